/*
 * An optional manual check of the AArch64 NEON skinning kernel
 * (src/deform/skin_neon.c) against the scalar reference, for machines
 * without ARM hardware.  Not part of the CTest suite (CMake only picks up
 * tests/test_*.c): on an AArch64 build tests/test_skin.c covers the same
 * ground, since there every SIMD level runs the NEON kernel.
 *
 * Cross-compile and run it under user-mode QEMU (Debian packages
 * gcc-aarch64-linux-gnu and qemu-user), from the repository root:
 *
 *   aarch64-linux-gnu-gcc -O2 -std=c11 -Wall -Wextra -Wpedantic -Werror \
 *       -Iinclude -Isrc -static tests/arm/skin_neon_check.c \
 *       src/deform/skin*.c src/core/error.c src/core/math.c src/core/cpu.c -lm \
 *       -o /tmp/skin_neon_check
 *   qemu-aarch64 /tmp/skin_neon_check
 *
 * (skin_sse2.c and skin_avx2.c compile to nothing there.)  Each case skins
 * random data with the reference (MN_SIMD_SCALAR) and with NEON, checks
 * every output float within 1e-6 × max(1, |reference|) (the agreement
 * skin.h promises) and every float between strides or around the streams
 * left as it was, and prints its largest relative difference.  Exit status
 * 0 when every case passes.
 */
#include <marionette/math.h>
#include <marionette/skin.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOLERANCE 1e-6
#define SENTINEL -777.25f /* fills every float no vertex owns */
#define GUARD 5           /* sentinel floats after each stream */

static uint32_t rng;

static float frand(float lo, float hi)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return lo + (hi - lo) * (float)(rng >> 8) * (1.0f / 16777216.0f);
}

/* Near unit scale: rotation up to 0.5 rad about a random axis, scale 0.9..1.1, a translation. */
static void random_matrix(float m[16], bool row3_garbage)
{
    float axis[3] = {frand(-1, 1), frand(-1, 1), frand(-1, 1) + 0.01f};
    float q[4], t[3] = {frand(-1, 1), frand(-1, 1), frand(-1, 1)};
    float s[3] = {frand(0.9f, 1.1f), frand(0.9f, 1.1f), frand(0.9f, 1.1f)};
    mn_quat_from_axis_angle(q, axis, frand(-0.5f, 0.5f));
    mn_mat4_compose(m, t, q, s);
    if (row3_garbage) /* skin.h: the fourth row is never read for the result */
        for (int c = 0; c < 4; c++)
            m[c * 4 + 3] = frand(-100, 100);
}

typedef struct check_case {
    const char *name;
    uint32_t count, ic;
    bool normals, tangents;
    uint32_t in_stride[3], out_stride[3]; /* positions, normals, tangents; 0 = default */
    bool in_place;                        /* outputs are the inputs (in_stride is used for both) */
    size_t offset;                        /* floats before each stream: 16-byte misalignment */
    mn_skin_store store;
    bool row3_garbage;
} check_case;

/* One stream: `offset` sentinels, count vertices `stride` floats apart, GUARD sentinels. */
typedef struct stream {
    float *buf, *data;
    size_t len, stride, width;
} stream;

static stream stream_make(size_t count, uint32_t stride, size_t width, size_t offset)
{
    stream s;
    s.width = width;
    s.stride = stride ? stride : width;
    s.len = offset + count * s.stride + GUARD;
    s.buf = malloc(sizeof(float) * s.len);
    if (!s.buf) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    for (size_t i = 0; i < s.len; i++)
        s.buf[i] = SENTINEL;
    s.data = s.buf + offset;
    return s;
}

static stream stream_copy(const stream *from)
{
    stream s = *from;
    s.buf = malloc(sizeof(float) * s.len);
    if (!s.buf) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    memcpy(s.buf, from->buf, sizeof(float) * s.len);
    s.data = s.buf + (from->data - from->buf);
    return s;
}

/* Random inputs: every 7th normal and 11th tangent of zero length (they must come out zero). */
static void fill_inputs(stream *p, stream *n, stream *t, size_t count)
{
    for (size_t v = 0; v < count; v++) {
        for (size_t c = 0; c < 3; c++) {
            p->data[v * p->stride + c] = frand(-2, 2);
            n->data[v * n->stride + c] = v % 7 == 6 ? 0.0f : frand(-1, 1);
            t->data[v * t->stride + c] = v % 11 == 10 ? 0.0f : frand(-1, 1);
        }
        t->data[v * t->stride + 3] = v % 2 ? 1.0f : -1.0f;
    }
}

/*
 * got against want, float by float: a vertex's floats within tolerance,
 * every other float of the buffer (gaps between strides, guards) bit for
 * bit.  Returns false on a mismatch; *max_rel grows to the largest
 * relative difference seen.
 */
static bool compare(const char *what, const stream *got, const stream *want, size_t count,
                    double *max_rel)
{
    size_t offset = (size_t)(want->data - want->buf);
    for (size_t i = 0; i < want->len; i++) {
        bool owned = i >= offset && i < offset + count * want->stride &&
                     (i - offset) % want->stride < want->width;
        float a = got->buf[i], b = want->buf[i];
        if (!owned) {
            if (memcmp(&a, &b, sizeof a) != 0) {
                printf("  %s: float %zu outside the vertices changed: %.9g, was %.9g\n", what, i,
                       (double)a, (double)b);
                return false;
            }
            continue;
        }
        double rel = fabs((double)a - (double)b) / fmax(1.0, fabs((double)b));
        if (!(rel <= TOLERANCE)) {
            printf("  %s: vertex %zu float %zu: %.9g vs reference %.9g (%.3g relative)\n", what,
                   (i - offset) / want->stride, (i - offset) % want->stride, (double)a, (double)b,
                   rel);
            return false;
        }
        if (rel > *max_rel)
            *max_rel = rel;
    }
    return true;
}

static bool run_case(const check_case *k, uint32_t seed)
{
    rng = seed;
    const uint32_t palette_count = 24;
    size_t count = k->count, ic = k->ic;
    float *palette = malloc(sizeof(float) * 16 * palette_count);
    uint16_t *joints = malloc(sizeof(uint16_t) * (count * ic + 1));
    float *weights = malloc(sizeof(float) * (count * ic + 1));
    if (!palette || !joints || !weights) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    for (uint32_t j = 0; j < palette_count; j++)
        random_matrix(palette + 16 * j, k->row3_garbage);
    for (size_t v = 0; v < count; v++) {
        float sum = 0;
        for (size_t i = 0; i < ic; i++) {
            joints[v * ic + i] = (uint16_t)(rng % palette_count);
            /* some exact zeros, as glTF files have */
            weights[v * ic + i] = (i > 0 && v % 3 == 0) ? 0.0f : frand(0.01f, 1);
            sum += weights[v * ic + i];
        }
        for (size_t i = 0; i < ic; i++)
            weights[v * ic + i] /= sum;
    }

    const size_t width[3] = {3, 3, 4};
    stream in[3], ref[3], got[3];
    for (int i = 0; i < 3; i++)
        in[i] = stream_make(count, k->in_stride[i], width[i], k->offset);
    fill_inputs(&in[0], &in[1], &in[2], count);
    for (int i = 0; i < 3; i++) {
        ref[i] = stream_make(count, k->in_place ? k->in_stride[i] : k->out_stride[i], width[i],
                             k->offset);
        got[i] = k->in_place ? stream_copy(&in[i]) : stream_copy(&ref[i]);
    }

    mn_skin_job job = {0};
    job.vertex_count = (uint32_t)count;
    job.influence_count = (uint32_t)ic;
    job.joints = joints;
    job.weights = weights;
    job.palette = palette;
    job.palette_count = palette_count;
    job.output_store = k->store;
    job.positions = in[0].data;
    job.position_stride = k->in_stride[0];
    job.out_positions = ref[0].data;
    job.out_position_stride = (uint32_t)ref[0].stride;
    if (k->normals) {
        job.normals = in[1].data;
        job.normal_stride = k->in_stride[1];
        job.out_normals = ref[1].data;
        job.out_normal_stride = (uint32_t)ref[1].stride;
    }
    if (k->tangents) {
        job.tangents = in[2].data;
        job.tangent_stride = k->in_stride[2];
        job.out_tangents = ref[2].data;
        job.out_tangent_stride = (uint32_t)ref[2].stride;
    }
    bool ok = mn_skin_job_validate(&job, NULL) == MN_OK &&
              mn_skin_run_with(&job, MN_SIMD_SCALAR) == MN_OK;

    /* the same job into got; in place, got holds the inputs and is both */
    if (k->in_place) {
        job.positions = got[0].data;
        job.normals = k->normals ? got[1].data : NULL;
        job.tangents = k->tangents ? got[2].data : NULL;
    }
    job.out_positions = got[0].data;
    job.out_normals = k->normals ? got[1].data : NULL;
    job.out_tangents = k->tangents ? got[2].data : NULL;
    ok = ok && mn_skin_run_with(&job, MN_SIMD_NEON) == MN_OK;
    if (!ok)
        printf("  the job was refused\n");

    double max_rel = 0;
    const char *names[3] = {"positions", "normals", "tangents"};
    bool used[3] = {true, k->normals, k->tangents};
    for (int i = 0; i < 3; i++) {
        /* an unused in-place stream is the input, untouched: compare it with itself */
        if (ok && used[i])
            ok = compare(names[i], &got[i], &ref[i], count, &max_rel);
        else if (ok && k->in_place)
            ok = compare(names[i], &got[i], &in[i], 0, &max_rel);
        else if (ok)
            ok = compare(names[i], &got[i], &ref[i], 0, &max_rel);
    }
    printf("%-44s %8zu vertices  %2zu influences  max rel %.3e  %s\n", k->name, count, ic, max_rel,
           ok ? "ok" : "FAIL");

    for (int i = 0; i < 3; i++)
        free(in[i].buf), free(ref[i].buf), free(got[i].buf);
    free(palette), free(joints), free(weights);
    return ok;
}

int main(void)
{
    if (mn_simd_detect() != MN_SIMD_NEON) {
        printf("mn_simd_detect() is %d, not MN_SIMD_NEON: this build has no NEON kernel\n",
               (int)mn_simd_detect());
        return 1;
    }
    const mn_skin_store D = MN_SKIN_STORE_DEFAULT, S = MN_SKIN_STORE_STREAM;
    const check_case cases[] = {
        {"packed, all streams", 1003, 1, true, true, {0}, {0}, false, 0, D, false},
        {"packed, all streams", 1003, 2, true, true, {0}, {0}, false, 0, D, false},
        {"packed, all streams", 1003, 3, true, true, {0}, {0}, false, 0, D, false},
        {"packed, all streams", 1003, 4, true, true, {0}, {0}, false, 0, D, false},
        {"packed, all streams", 1003, 5, true, true, {0}, {0}, false, 0, D, false},
        {"packed, all streams", 1003, 8, true, true, {0}, {0}, false, 0, D, false},
        {"packed, all streams", 1003, 12, true, true, {0}, {0}, false, 0, D, false},
        {"packed, positions only", 1003, 4, false, false, {0}, {0}, false, 0, D, false},
        {"packed, positions and normals", 1003, 4, true, false, {0}, {0}, false, 0, D, false},
        {"packed, positions and tangents", 1003, 4, false, true, {0}, {0}, false, 0, D, false},
        {"packed, positions only", 1003, 8, false, false, {0}, {0}, false, 0, D, false},
        {"packed, positions and normals", 1003, 12, true, false, {0}, {0}, false, 0, D, false},
        {"packed, palette row 3 not 0 0 0 1", 1003, 4, true, true, {0}, {0}, false, 0, D, true},
        {"no vertices", 0, 4, true, true, {0}, {0}, false, 0, D, false},
        {"tail: 1 vertex", 1, 4, true, true, {0}, {0}, false, 0, D, false},
        {"tail: 2 vertices", 2, 4, true, true, {0}, {0}, false, 0, D, false},
        {"tail: 3 vertices", 3, 4, true, true, {0}, {0}, false, 0, D, false},
        {"tail: 5 vertices", 5, 8, true, true, {0}, {0}, false, 0, D, false},
        {"tail: 6 vertices", 6, 3, true, true, {0}, {0}, false, 0, D, false},
        {"tail: 7 vertices", 7, 12, true, true, {0}, {0}, false, 0, D, false},
        {"strided in and out, misaligned", 1003, 1, true, true, {5, 4, 6}, {4, 7, 5}, false, 1, D, false},
        {"strided in and out, misaligned", 1003, 3, true, true, {5, 4, 6}, {4, 7, 5}, false, 1, D, false},
        {"strided in and out, misaligned", 1003, 4, true, true, {5, 4, 6}, {4, 7, 5}, false, 1, D, false},
        {"strided in and out, misaligned", 1003, 8, true, true, {5, 4, 6}, {4, 7, 5}, false, 1, D, false},
        {"strided in and out, misaligned", 1003, 12, true, true, {5, 4, 6}, {4, 7, 5}, false, 1, D, false},
        {"strided out only", 1003, 4, true, true, {0}, {8, 3, 8}, false, 2, D, false},
        {"in place, packed", 1003, 4, true, true, {0}, {0}, true, 0, D, false},
        {"in place, packed", 1003, 8, true, true, {0}, {0}, true, 0, D, false},
        {"in place, packed", 1003, 3, true, true, {0}, {0}, true, 0, D, false},
        {"in place, packed, positions only", 1003, 4, false, false, {0}, {0}, true, 0, D, false},
        {"in place, strided", 1003, 4, true, true, {6, 6, 8}, {0}, true, 3, D, false},
        {"in place, strided", 1003, 12, true, true, {6, 6, 8}, {0}, true, 3, D, false},
        {"streaming asked, 16-byte aligned", 1003, 4, true, true, {0}, {0}, false, 0, S, false},
        {"streaming asked, 1 float off", 1003, 4, true, true, {0}, {0}, false, 1, S, false},
        {"streaming asked, 2 floats off", 1003, 4, true, true, {0}, {0}, false, 2, S, false},
        {"streaming asked, 3 floats off", 1003, 4, true, true, {0}, {0}, false, 3, S, false},
        {"large call (prefetch, streaming plan)", 200003, 4, true, true, {0}, {0}, false, 0, D, false},
        {"large call, in place", 200003, 4, true, true, {0}, {0}, true, 0, D, false},
    };
    size_t failed = 0, n = sizeof cases / sizeof cases[0];
    for (size_t i = 0; i < n; i++)
        failed += !run_case(&cases[i], 1000u + (uint32_t)i * 7919u);
    printf("%zu of %zu cases agree with the scalar reference within %g relative\n", n - failed, n,
           TOLERANCE);
    return failed ? 1 : 0;
}
