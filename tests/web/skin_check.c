/*
 * The web build's skinning kernel against the scalar reference, in WebAssembly: compiled by
 * tests/test_web.sh with emcc over the web build's library (build/web/lib/libmarionette.a) and
 * run in Node.  Random palettes, weights and vertices, every layout a kernel specialises on
 * (influences 1 to 8, packed and strided, normals and tangents or not, in place; palettes whose
 * fourth row is not 0 0 0 1 among them), and vertex counts from 1 to 41 (full groups and each
 * tail), then palettes of 1024 joints (the most the kernel repacks) and 1100 (the reference
 * runs): mn_skin_run at MN_SIMD_BEST (the
 * WebAssembly kernel, skin_wasm.c) must give the reference's positions bit for bit and its
 * directions within 1e-6 relative (the promise; the kernel states 2e-7), and write nothing
 * outside the outputs.  Prints the largest direction difference; exits 1 on any failure.
 */
#include <marionette/skin.h>

#include "support/xorshift.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_V 41
#define JOINTS 12
#define LARGE_JOINTS 1100 /* more than the kernel repacks (1024, skin_wasm.c): the reference runs */
#define STRIDE_MAX 7
#define GUARD 8 /* floats after each output, which no kernel may write */

static float palette[LARGE_JOINTS * 16];
static uint32_t palette_count = JOINTS;
static uint16_t joints[MAX_V * 8];
static float weights[MAX_V * 8];
static float inputs[3][MAX_V * STRIDE_MAX];            /* positions, normals, tangents */
static float out[2][3][MAX_V * STRIDE_MAX + GUARD];    /* [reference, kernel][stream] */
static int failures;
static double worst;

static void fill(uint32_t *rng, float *p, size_t n, float lo, float hi)
{
    for (size_t i = 0; i < n; i++)
        p[i] = mn_test_random_in(rng, lo, hi);
}

/* One call both ways; strides 0 (packed) or the given ones; in place: outputs start as inputs. */
static void check(uint32_t count, uint32_t ic, uint32_t stride, bool dirs, bool tangents, bool in_place)
{
    uint32_t ps = stride ? stride : 3, ts = stride ? stride + 1 : 4;
    for (int k = 0; k < 2; k++) {
        for (int st = 0; st < 3; st++)
            for (size_t i = 0; i < MAX_V * STRIDE_MAX + GUARD; i++)
                out[k][st][i] = i < MAX_V * STRIDE_MAX && in_place ? inputs[st][i] : -7.0f;
        mn_skin_job job;
        memset(&job, 0, sizeof job);
        job.vertex_count = count;
        job.influence_count = ic;
        job.joints = joints;
        job.weights = weights;
        job.palette = palette;
        job.palette_count = palette_count;
        job.positions = in_place ? out[k][0] : inputs[0];
        job.position_stride = job.out_position_stride = stride;
        job.out_positions = out[k][0];
        if (dirs) {
            job.normals = in_place ? out[k][1] : inputs[1];
            job.normal_stride = job.out_normal_stride = stride;
            job.out_normals = out[k][1];
        }
        if (tangents) {
            job.tangents = in_place ? out[k][2] : inputs[2];
            job.tangent_stride = job.out_tangent_stride = stride ? ts : 0;
            job.out_tangents = out[k][2];
        }
        if (mn_skin_run_with(&job, k == 0 ? MN_SIMD_SCALAR : MN_SIMD_BEST) != MN_OK) {
            printf("skin_check: FAILED: mn_skin_run refused a job (%u vertices)\n", count);
            failures++;
            return;
        }
    }
    char what[96];
    snprintf(what, sizeof what, "%u vertices, %u influences, stride %u%s%s%s", count, ic, stride,
             dirs ? ", normals" : "", tangents ? ", tangents" : "", in_place ? ", in place" : "");
    for (int st = 0; st < 3; st++) {
        uint32_t sd = st == 2 ? ts : ps;
        for (size_t i = 0; i < MAX_V * STRIDE_MAX + GUARD; i++) {
            float r = out[0][st][i], g = out[1][st][i];
            bool inside = i < (size_t)count * sd && i % sd < (st == 2 ? 4u : 3u);
            if (!inside || st == 0 || (st == 2 && i % sd == 3)) {
                if (memcmp(&r, &g, sizeof r) != 0) { /* positions, w, untouched floats: bits */
                    printf("skin_check: FAILED: %s: stream %d float %zu: kernel %.9g, reference %.9g\n",
                           what, st, i, g, r);
                    failures++;
                    return;
                }
                continue;
            }
            double d = fabs((double)g - (double)r);
            if (d > worst)
                worst = d;
            if (!(d <= 1e-6)) { /* unit vectors: relative is absolute */
                printf("skin_check: FAILED: %s: direction float %zu: kernel %.9g, reference %.9g\n",
                       what, i, g, r);
                failures++;
                return;
            }
        }
    }
}

int main(void)
{
    uint32_t rng = 0x5EED5u;
    fill(&rng, palette, sizeof palette / sizeof *palette, -2.0f, 2.0f);
    /* the fourth row as a palette has it, 0 0 0 1, in even joints; odd ones keep random values,
       which skinning ignores (skin.c) */
    for (int j = 0; j < LARGE_JOINTS; j += 2)
        palette[j * 16 + 3] = palette[j * 16 + 7] = palette[j * 16 + 11] = 0.0f, palette[j * 16 + 15] = 1.0f;
    for (size_t i = 0; i < sizeof joints / sizeof *joints; i++)
        joints[i] = (uint16_t)(mn_test_random(&rng) % JOINTS);
    fill(&rng, weights, sizeof weights / sizeof *weights, 0.0f, 1.0f);
    fill(&rng, inputs[0], sizeof inputs[0] / sizeof *inputs[0], -5.0f, 5.0f);
    fill(&rng, inputs[1], sizeof inputs[1] / sizeof *inputs[1], -1.0f, 1.0f);
    fill(&rng, inputs[2], sizeof inputs[2] / sizeof *inputs[2], -1.0f, 1.0f);
    inputs[1][3] = inputs[1][4] = inputs[1][5] = 0.0f; /* a zero normal stays zero */
    static const uint32_t counts[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 40, 41};
    for (uint32_t ic = 1; ic <= 8; ic++)
        for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
            for (int layout = 0; layout < 8; layout++)
                for (uint32_t stride = 0; stride <= 6; stride += 6) /* packed, and 6 (7 for tangents) */
                    check(counts[c], ic, stride, layout & 1, layout & 2, layout & 4);
    /* palettes of 1024 joints (the most the kernel repacks) and of more (the reference runs) */
    static const uint32_t large[] = {1024, LARGE_JOINTS};
    for (size_t l = 0; l < 2; l++) {
        palette_count = large[l];
        for (size_t i = 0; i < sizeof joints / sizeof *joints; i++)
            joints[i] = (uint16_t)(i % 2 ? palette_count - 1 - mn_test_random(&rng) % 8
                                         : mn_test_random(&rng) % palette_count);
        for (int layout = 0; layout < 8; layout++)
            check(41, 4, 0, layout & 1, layout & 2, layout & 4);
    }
    printf("skin_check: level %d against the reference: positions bit for bit, largest direction "
           "difference %.2e (tolerance 1e-6)\n", (int)mn_simd_detect(), worst);
    return failures ? 1 : 0;
}
