/*
 * The expression head (src/deform/expression*.c, src/head/runtime.c,
 * src/head/ext.c, src/head/view.c): forward and pose of the
 * synthetic head against a straightforward double-precision reference
 * (1e-5), every kernel the CPU has against the scalar one, units, the bind
 * transform and the neck seam, caller joint worlds, joint overrides (their
 * worlds, "moved", never accumulating), gaze signs, the head_ext helpers,
 * zero allocations per frame, refusals, and the debug colourings and fit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/head/aosrig.h>
#include <marionette/head/head.h>

#include "assert_near.h"
#include "counting_alloc.h"
#include "synthetic_head.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- fixtures --------------------------------------------------------------------- */

typedef struct fixture {
    synthetic_head source;
    uint8_t *bytes;
    size_t size;
    mn_aosrig *pack;
    mn_head *head;
    size_t v;          /* vertex count */
    size_t dim;        /* controls */
} fixture;

static void fixture_make(fixture *f, const synthetic_head_options *options)
{
    memset(f, 0, sizeof *f);
    synthetic_head_build(&f->source, options);
    mn_error err;
    assert_int_equal(synthetic_head_pack(&f->source, &f->bytes, &f->size, &err), MN_OK);
    assert_int_equal(mn_aosrig_read_memory(f->bytes, f->size, NULL, &f->pack, &err), MN_OK);
    assert_int_equal(mn_head_create(f->pack, NULL, &f->head, &err), MN_OK);
    f->v = f->pack->header.vertex_count;
    f->dim = f->pack->header.head_ext.dim;
}

static void fixture_free(fixture *f)
{
    mn_head_free(f->head);
    mn_aosrig_free(f->pack);
    mn_aosrig_bytes_free(NULL, f->bytes, f->size);
    synthetic_head_free(&f->source);
}

/* xorshift32: the same controls every run. */
static uint32_t rng = 12345u;
static float frand(float lo, float hi)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return lo + (hi - lo) * (float)(rng >> 8) / 16777216.0f;
}

static void random_controls(float *c, size_t dim, float gaze)
{
    for (size_t i = 0; i < dim; i++)
        c[i] = frand(-1.5f, 1.5f);
    for (size_t i = dim - 4; i < dim; i++)
        c[i] = frand(-gaze, gaze);
}

/* ---- the double-precision reference (section 2, written out plainly) ------------ */

static void ref_mul(double out[16], const double a[16], const double b[16])
{
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) {
            double s = 0.0;
            for (int k = 0; k < 4; k++)
                s += a[4 * r + k] * b[4 * k + c];
            out[4 * r + c] = s;
        }
}

/* The inverse of a row-major affine matrix, by Gauss-Jordan on the full 4×4. */
static void ref_invert(double out[16], const double m[16])
{
    double a[4][8];
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 8; c++)
            a[r][c] = c < 4 ? m[4 * r + c] : (c - 4 == r);
    for (int c = 0; c < 4; c++) {
        int piv = c;
        for (int r = c + 1; r < 4; r++)
            if (fabs(a[r][c]) > fabs(a[piv][c]))
                piv = r;
        for (int k = 0; k < 8; k++) {
            double t = a[c][k];
            a[c][k] = a[piv][k];
            a[piv][k] = t;
        }
        double d = a[c][c];
        for (int k = 0; k < 8; k++)
            a[c][k] /= d;
        for (int r = 0; r < 4; r++)
            if (r != c) {
                double s = a[r][c];
                for (int k = 0; k < 8; k++)
                    a[r][k] -= s * a[c][k];
            }
    }
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            out[4 * r + c] = a[r][c + 4];
}

static void ref_forward(const mn_aosrig *p, const float *controls, size_t count, double *out)
{
    size_t V = p->header.vertex_count, E = p->header.coeff_count;
    double gaze[4];
    for (int g = 0; g < 4; g++)
        gaze[g] = E + (size_t)g < count ? controls[E + (size_t)g] : 0.0;
    for (size_t v = 0; v < V; v++) {
        double q[3];
        for (int k = 0; k < 3; k++) {
            double s = p->neutral[3 * v + (size_t)k];
            for (size_t e = 0; e < E; e++) {
                double c = e < count ? controls[e] : 0.0;
                s += c * p->basis_scale[e] * mn_f16_to_float(p->basis[(v * E + e) * 3 + (size_t)k]);
            }
            q[k] = s;
        }
        for (int eye = 0; eye < 2; eye++) {
            double pitch = gaze[2 * eye], yaw = gaze[2 * eye + 1];
            double rx[9] = {1, 0, 0, 0, cos(pitch), -sin(pitch), 0, sin(pitch), cos(pitch)};
            double ry[9] = {cos(yaw), 0, sin(yaw), 0, 1, 0, -sin(yaw), 0, cos(yaw)};
            double r[9] = {0};
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    for (int k = 0; k < 3; k++)
                        r[3 * i + j] += ry[3 * i + k] * rx[3 * k + j];
            const float *c = p->eye_positions + 3 * eye;
            double d[3] = {q[0] - c[0], q[1] - c[1], q[2] - c[2]};
            double w = p->eye_weights[(size_t)eye * V + v];
            double t[3];
            for (int i = 0; i < 3; i++)
                t[i] = r[3 * i] * d[0] + r[3 * i + 1] * d[1] + r[3 * i + 2] * d[2] + c[i];
            for (int i = 0; i < 3; i++)
                q[i] = q[i] + w * (t[i] - q[i]);
        }
        for (int k = 0; k < 3; k++)
            out[3 * v + (size_t)k] = q[k];
    }
}

/* Pose against joint worlds in metres (NULL: the rest, as stored). */
static void ref_pose(const mn_aosrig *p, const float *controls, size_t count, const float *worlds,
                     double *out)
{
    size_t V = p->header.vertex_count, K = p->header.max_influence, J = p->header.joint_count;
    bool cm = p->header.units == MN_AOSRIG_CENTIMETRES;
    ref_forward(p, controls, count, out);
    double *skin = malloc(J * 16 * sizeof *skin);
    assert_non_null(skin);
    for (size_t j = 0; j < J; j++) {
        double w[16], rw[16], inv[16];
        for (int k = 0; k < 16; k++) {
            rw[k] = p->rest_world[16 * j + (size_t)k];
            w[k] = worlds ? worlds[16 * j + (size_t)k] : rw[k];
            if (worlds && cm && (k == 3 || k == 7 || k == 11))
                w[k] *= 100.0;
        }
        ref_invert(inv, rw);
        ref_mul(skin + 16 * j, w, inv);
    }
    for (size_t v = 0; v < V; v++) {
        double q[4] = {out[3 * v], out[3 * v + 1], out[3 * v + 2], 1.0};
        if (p->stitch_local)
            for (int k = 0; k < 3; k++)
                q[k] += p->stitch_local[3 * v + (size_t)k];
        double b[4] = {0, 0, 0, 0};
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 4; c++)
                b[r] += p->header.bind_transform[4 * r + c] * q[c];
        double o[3] = {0, 0, 0};
        for (size_t i = 0; i < K; i++) {
            double wi = p->skin_weight[v * K + i];
            const double *s = skin + 16 * p->skin_index[v * K + i];
            for (int r = 0; r < 3; r++)
                o[r] += wi * (s[4 * r] * b[0] + s[4 * r + 1] * b[1] + s[4 * r + 2] * b[2] +
                              s[4 * r + 3] * b[3]);
        }
        for (int r = 0; r < 3; r++)
            out[3 * v + (size_t)r] = cm ? 0.01 * o[r] : o[r];
    }
    free(skin);
}

static void assert_near_double(const float *got, const double *want, size_t n, double tol)
{
    for (size_t i = 0; i < n; i++) {
        if (!(fabs((double)got[i] - want[i]) <= tol)) {
            print_error("element %zu: %.9g, reference %.9g (difference %.3g)\n", i,
                        (double)got[i], want[i], fabs((double)got[i] - want[i]));
            fail();
        }
    }
}

static const synthetic_head_options full_options = {
    .rings = 10, .segments = 14, .coeff_count = 19, .seed = 7, .stitch = true,
    .bind_transform = true, .uv = true};

/* ---- forward and pose ------------------------------------------------------------- */

/* Every level the head can run: the scalar reference, then the SIMD kernel (when present). */
static int levels(mn_head *head, mn_simd_level out[2])
{
    out[0] = MN_SIMD_SCALAR;
    mn_simd_level best = mn_head_set_simd(head, MN_SIMD_AVX2_FMA);
    if (best == MN_SIMD_SCALAR)
        return 1;
    out[1] = best;
    return 2;
}

static void forward_matches_double_reference(void **state)
{
    (void)state;
    fixture f;
    fixture_make(&f, &full_options);
    float *controls = calloc(f.dim, sizeof *controls);
    float *out = malloc(f.v * 3 * sizeof *out);
    double *want = malloc(f.v * 3 * sizeof *want);
    mn_simd_level lv[2];
    int n = levels(f.head, lv);
    for (int trial = 0; trial < 4; trial++) {
        random_controls(controls, f.dim, 0.6f);
        ref_forward(f.pack, controls, f.dim, want);
        for (int l = 0; l < n; l++) {
            mn_head_set_simd(f.head, lv[l]);
            assert_int_equal(mn_head_forward(f.head, controls, f.dim, out, NULL), MN_OK);
            assert_near_double(out, want, f.v * 3, 1e-5);
        }
    }
    free(controls);
    free(out);
    free(want);
    fixture_free(&f);
}

static void pose_matches_double_reference(void **state)
{
    (void)state;
    for (int cm = 0; cm < 2; cm++) {
        synthetic_head_options o = full_options;
        o.centimetres = cm;
        fixture f;
        fixture_make(&f, &o);
        float *controls = calloc(f.dim, sizeof *controls);
        float *out = malloc(f.v * 3 * sizeof *out);
        double *want = malloc(f.v * 3 * sizeof *want);
        mn_simd_level lv[2];
        int n = levels(f.head, lv);
        random_controls(controls, f.dim, 0.5f);
        /* At the rest, then against caller worlds (metres): the rest moved and turned. */
        ref_pose(f.pack, controls, f.dim, NULL, want);
        for (int l = 0; l < n; l++) {
            mn_head_set_simd(f.head, lv[l]);
            assert_int_equal(mn_head_pose(f.head, controls, f.dim, out, NULL), MN_OK);
            assert_near_double(out, want, f.v * 3, 1e-5);
        }
        size_t J = f.pack->header.joint_count;
        float *worlds = malloc(J * 16 * sizeof *worlds);
        for (size_t j = 0; j < J; j++) {
            float a = 0.2f * (float)(j + 1), c = cosf(a), s = sinf(a);
            float m[16] = {c, 0, s, 0.01f * (float)j, 0, 1, 0, 0.02f, -s, 0, c, -0.01f, 0, 0, 0, 1};
            memcpy(worlds + 16 * j, m, sizeof m);
        }
        assert_int_equal(mn_head_set_joint_worlds(f.head, worlds, J * 16, NULL), MN_OK);
        ref_pose(f.pack, controls, f.dim, worlds, want);
        for (int l = 0; l < n; l++) {
            mn_head_set_simd(f.head, lv[l]);
            assert_int_equal(mn_head_pose(f.head, controls, f.dim, out, NULL), MN_OK);
            assert_near_double(out, want, f.v * 3, 1e-5);
        }
        /* NULL returns to the rest. */
        assert_int_equal(mn_head_set_joint_worlds(f.head, NULL, 0, NULL), MN_OK);
        assert_memory_equal(mn_head_joint_worlds(f.head), f.pack->rest_world,
                            J * 16 * sizeof(float));
        free(worlds);
        free(controls);
        free(out);
        free(want);
        fixture_free(&f);
    }
}

/* At zero controls and the rest, a pose is the neutral through the bind transform (+ seam). */
static void rest_pose_is_neutral_through_bind(void **state)
{
    (void)state;
    fixture f;
    fixture_make(&f, &full_options);
    float *out = malloc(f.v * 3 * sizeof *out);
    assert_int_equal(mn_head_forward(f.head, NULL, 0, out, NULL), MN_OK);
    assert_memory_equal(out, f.pack->neutral, f.v * 3 * sizeof *out);
    assert_int_equal(mn_head_pose(f.head, NULL, 0, out, NULL), MN_OK);
    const float *b = f.pack->bind_transform;
    for (size_t v = 0; v < f.v; v++) {
        float q[3];
        for (int k = 0; k < 3; k++)
            q[k] = f.pack->neutral[3 * v + (size_t)k] + f.pack->stitch_local[3 * v + (size_t)k];
        for (int r = 0; r < 3; r++)
            assert_float_near(out[3 * v + (size_t)r],
                              b[4 * r] * q[0] + b[4 * r + 1] * q[1] + b[4 * r + 2] * q[2] +
                                  b[4 * r + 3],
                              1e-6);
    }
    free(out);
    fixture_free(&f);
}

/* Large random data through both kernels: odd rows, rows that end at every tail length. */
static void simd_matches_scalar(void **state)
{
    (void)state;
    for (uint32_t e = 1; e <= 27; e += 2) {
        synthetic_head_options o = {.rings = 6, .segments = 9, .coeff_count = e, .seed = e};
        fixture f;
        fixture_make(&f, &o);
        if (mn_head_set_simd(f.head, MN_SIMD_AVX2_FMA) == MN_SIMD_SCALAR) {
            fixture_free(&f);
            skip();
        }
        float *controls = calloc(f.dim, sizeof *controls);
        float *a = malloc(f.v * 3 * sizeof *a), *b = malloc(f.v * 3 * sizeof *b);
        random_controls(controls, f.dim, 0.4f);
        assert_int_equal(mn_head_pose(f.head, controls, f.dim, a, NULL), MN_OK);
        mn_head_set_simd(f.head, MN_SIMD_SCALAR);
        assert_int_equal(mn_head_pose(f.head, controls, f.dim, b, NULL), MN_OK);
        assert_vec_near(a, b, f.v * 3, 2e-6);
        free(controls);
        free(a);
        free(b);
        fixture_free(&f);
    }
}

/* ---- gaze ---------------------------------------------------------------------------- */

/* The left eye's vertex furthest forward (+Z), and where it goes under a gaze. */
static void eye_front(const fixture *f, const float *verts, float out[3])
{
    size_t best = SIZE_MAX;
    for (size_t v = 0; v < f->v; v++)
        if (f->pack->eye_weights[v] == 1.0f &&
            (best == SIZE_MAX || f->pack->neutral[3 * v + 2] > f->pack->neutral[3 * best + 2]))
            best = v;
    assert_true(best != SIZE_MAX);
    memcpy(out, verts + 3 * best, 3 * sizeof(float));
}

static void gaze_signs(void **state)
{
    (void)state;
    fixture f;
    fixture_make(&f, NULL);
    float *controls = calloc(f.dim, sizeof *controls);
    float *out = malloc(f.v * 3 * sizeof *out);
    float rest[3], moved[3];
    mn_head_forward(f.head, controls, f.dim, out, NULL);
    eye_front(&f, out, rest);
    /* pitch_L > 0 looks down: the eye's front drops. */
    controls[f.dim - 4] = 0.3f;
    mn_head_forward(f.head, controls, f.dim, out, NULL);
    eye_front(&f, out, moved);
    assert_true(moved[1] < rest[1] - 1e-4f);
    /* yaw_L > 0 looks toward the character's left, +X. */
    controls[f.dim - 4] = 0.0f;
    controls[f.dim - 3] = 0.3f;
    mn_head_forward(f.head, controls, f.dim, out, NULL);
    eye_front(&f, out, moved);
    assert_true(moved[0] > rest[0] + 1e-4f);
    /* The right eye's angles leave the left eye alone. */
    controls[f.dim - 3] = 0.0f;
    controls[f.dim - 2] = 0.5f;
    controls[f.dim - 1] = -0.5f;
    mn_head_forward(f.head, controls, f.dim, out, NULL);
    eye_front(&f, out, moved);
    assert_vec_near(moved, rest, 3, 0.0);

    /* The quaternions: (0, 0, 1) turned by each. */
    float gaze[4] = {0.4f, 0.0f, 0.0f, 0.4f}, l[4], r[4];
    mn_gaze_to_eye_rotations(gaze, l, r);
    assert_float_near(l[0], sinf(0.2f), 1e-7);           /* x: pitch about +X */
    assert_float_near(l[3], cosf(0.2f), 1e-7);
    assert_float_near(r[1], sinf(0.2f), 1e-7);           /* y: yaw about +Y */
    /* Ry(yaw)·Rx(pitch): (cy·sp, sy·cp, −sy·sp, cy·cp). */
    float both[4] = {0.3f, 0.5f, 0.0f, 0.0f};
    mn_gaze_to_eye_rotations(both, l, r);
    float cp = cosf(0.15f), sp = sinf(0.15f), cy = cosf(0.25f), sy = sinf(0.25f);
    float want[4] = {cy * sp, sy * cp, -sy * sp, cy * cp};
    assert_vec_near(l, want, 4, 1e-7);
    free(controls);
    free(out);
    fixture_free(&f);
}

/* ---- joint overrides ------------------------------------------------------------------ */

static void override_worlds_follow_the_chain(void **state)
{
    (void)state;
    fixture f;
    fixture_make(&f, &full_options);
    const mn_aosrig *p = f.pack;
    uint32_t neck2 = mn_aosrig_find_joint(p, "neck_02"), head = mn_aosrig_find_joint(p, "head"),
             neck1 = mn_aosrig_find_joint(p, "neck_01");
    float s = sinf(0.2f), c = cosf(0.2f);
    mn_joint_override ov[] = {{"neck_02", {s, 0, 0, c}}, {"not_a_joint", {0, 1, 0, 0}}};
    bool moved = false;
    assert_int_equal(mn_head_set_joint_overrides(f.head, ov, 2, &moved, NULL), MN_OK);
    assert_true(moved);
    const float *w = mn_head_joint_worlds(f.head);
    /* neck_01 keeps its rest exactly. */
    assert_memory_equal(w + 16 * neck1, p->rest_world + 16 * neck1, 16 * sizeof(float));
    /* neck_02 = world(neck_01)·restLocal·Rx(0.4); head = world(neck_02)·restLocal(head). */
    double rw1[16], rw2[16], rwh[16], inv1[16], inv2[16], l2[16], lh[16], t[16], w2[16], wh[16];
    for (int k = 0; k < 16; k++) {
        rw1[k] = p->rest_world[16 * neck1 + (size_t)k];
        rw2[k] = p->rest_world[16 * neck2 + (size_t)k];
        rwh[k] = p->rest_world[16 * head + (size_t)k];
    }
    ref_invert(inv1, rw1);
    ref_invert(inv2, rw2);
    ref_mul(l2, inv1, rw2);
    ref_mul(lh, inv2, rwh);
    double rx[16] = {1, 0, 0, 0, 0, cos(0.4), -sin(0.4), 0, 0, sin(0.4), cos(0.4), 0, 0, 0, 0, 1};
    ref_mul(t, l2, rx);
    ref_mul(w2, rw1, t);
    ref_mul(wh, w2, lh);
    for (int k = 0; k < 12; k++) {
        assert_float_near(w[16 * neck2 + (size_t)k], w2[k], 1e-6);
        assert_float_near(w[16 * head + (size_t)k], wh[k], 1e-6);
    }
    /* The pose skins against those worlds: compare with the reference given them (metres). */
    float *controls = calloc(f.dim, sizeof *controls);
    float *out = malloc(f.v * 3 * sizeof *out);
    double *want = malloc(f.v * 3 * sizeof *want);
    random_controls(controls, f.dim, 0.3f);
    ref_pose(p, controls, f.dim, w, want);
    assert_int_equal(mn_head_pose(f.head, controls, f.dim, out, NULL), MN_OK);
    assert_near_double(out, want, f.v * 3, 1e-5);

    /* The same set, written differently: not moved. */
    mn_joint_override same[] = {{"neck_01", {0, 0, 0, 1}},
                                {"neck_02", {0, 0, 0, 1}},
                                {"neck_02", {-2 * s, 0, 0, -2 * c}},
                                {"ghost", {1, 0, 0, 0}}};
    /* On a repeat nothing is recomputed: a mark left in the worlds survives it. */
    float *scribble = (float *)(uintptr_t)mn_head_joint_worlds(f.head) + 16 * head + 3;
    float saved = *scribble;
    *scribble = 123.0f;
    assert_int_equal(mn_head_set_joint_overrides(f.head, same, 4, &moved, NULL), MN_OK);
    assert_false(moved);
    assert_float_near(*scribble, 123.0f, 0);
    *scribble = saved;
    /* Never accumulating: a second call with the same rotation leaves the worlds as they were. */
    assert_float_near(mn_head_joint_worlds(f.head)[16 * neck2 + 5], w2[5], 1e-6);
    /* No overrides: back to the rest, moved. */
    assert_int_equal(mn_head_set_joint_overrides(f.head, NULL, 0, &moved, NULL), MN_OK);
    assert_true(moved);
    assert_memory_equal(mn_head_joint_worlds(f.head), p->rest_world,
                        p->header.joint_count * 16 * sizeof(float));
    assert_int_equal(mn_head_set_joint_overrides(f.head, NULL, 0, &moved, NULL), MN_OK);
    assert_false(moved);
    /* Caller worlds, then the same overrides: moved (they never apply on top of caller worlds). */
    assert_int_equal(mn_head_set_joint_overrides(f.head, ov, 1, &moved, NULL), MN_OK);
    assert_true(moved);
    assert_int_equal(mn_head_set_joint_worlds(f.head, p->rest_world, p->header.joint_count * 16,
                                              NULL),
                     MN_OK);
    assert_int_equal(mn_head_set_joint_overrides(f.head, ov, 1, &moved, NULL), MN_OK);
    assert_true(moved);
    /* Refusals leave the head as it was. */
    mn_error err;
    mn_joint_override zero[] = {{"head", {0, 0, 0, 0}}};
    assert_int_equal(mn_head_set_joint_overrides(f.head, zero, 1, &moved, &err),
                     MN_INVALID_ARGUMENT);
    mn_joint_override nan[] = {{"head", {NAN, 0, 0, 1}}};
    assert_int_equal(mn_head_set_joint_overrides(f.head, nan, 1, &moved, &err), MN_NOT_FINITE);
    mn_joint_override unnamed[] = {{NULL, {0, 0, 0, 1}}};
    assert_int_equal(mn_head_set_joint_overrides(f.head, unnamed, 1, &moved, &err),
                     MN_INVALID_ARGUMENT);
    assert_float_near(mn_head_joint_worlds(f.head)[16 * neck2 + 5], w2[5], 1e-6);
    free(controls);
    free(out);
    free(want);
    fixture_free(&f);
}

/* Joints listed children first pose as the same joints listed parents first. */
static void overrides_in_any_joint_order(void **state)
{
    (void)state;
    fixture a;
    fixture_make(&a, &full_options);
    /* The same head with its joints reversed: new j is old 2 - j. */
    fixture b;
    memset(&b, 0, sizeof b);
    synthetic_head_build(&b.source, &full_options);
    synthetic_head *s = &b.source;
    const char *names[3] = {s->header.joint_names[2], s->header.joint_names[1],
                            s->header.joint_names[0]};
    s->header.joint_names = names;
    int32_t parents[3];
    float rest[48];
    for (int j = 0; j < 3; j++) {
        int32_t old_parent = s->joint_parents[2 - j];
        parents[j] = old_parent < 0 ? -1 : 2 - old_parent;
        memcpy(rest + 16 * j, s->rest_world + 16 * (2 - j), 16 * sizeof(float));
    }
    memcpy(s->joint_parents, parents, sizeof parents);
    memcpy(s->rest_world, rest, sizeof rest);
    for (size_t i = 0; i < (size_t)s->vertex_count * 2; i++)
        s->skin_index[i] = (uint16_t)(2 - s->skin_index[i]);
    mn_error err;
    assert_int_equal(synthetic_head_pack(s, &b.bytes, &b.size, &err), MN_OK);
    assert_int_equal(mn_aosrig_read_memory(b.bytes, b.size, NULL, &b.pack, &err), MN_OK);
    assert_int_equal(mn_head_create(b.pack, NULL, &b.head, &err), MN_OK);
    assert_int_equal(b.pack->joint_parents[0], 1);

    mn_joint_override ov[] = {{"neck_01", {0.0f, 0.1f, 0.0f, 1.0f}},
                              {"neck_02", {0.2f, 0.0f, 0.05f, 1.0f}}};
    float *controls = calloc(a.dim, sizeof *controls);
    float *pa = malloc(a.v * 3 * sizeof *pa), *pb = malloc(a.v * 3 * sizeof *pb);
    random_controls(controls, a.dim, 0.3f);
    assert_int_equal(mn_head_set_joint_overrides(a.head, ov, 2, NULL, NULL), MN_OK);
    assert_int_equal(mn_head_set_joint_overrides(b.head, ov, 2, NULL, NULL), MN_OK);
    assert_int_equal(mn_head_pose(a.head, controls, a.dim, pa, NULL), MN_OK);
    assert_int_equal(mn_head_pose(b.head, controls, a.dim, pb, NULL), MN_OK);
    assert_vec_near(pa, pb, a.v * 3, 1e-6);
    const float *wa = mn_head_joint_worlds(a.head), *wb = mn_head_joint_worlds(b.head);
    for (int j = 0; j < 3; j++)
        assert_vec_near(wa + 16 * j, wb + 16 * (2 - j), 16, 1e-6);
    free(controls);
    free(pa);
    free(pb);
    fixture_free(&a);
    fixture_free(&b);
}

/* ---- allocation and refusals ---------------------------------------------------------- */

static void frames_allocate_nothing(void **state)
{
    (void)state;
    fixture f;
    fixture_make(&f, &full_options);
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_head_options options = {mn_counting_allocator(&counter)};
    mn_head *head;
    assert_int_equal(mn_head_create(f.pack, &options, &head, NULL), MN_OK);
    size_t allocs = counter.allocs;
    float *controls = calloc(f.dim, sizeof *controls);
    float *out = malloc(f.v * 3 * sizeof *out);
    float expr[64], gaze[4];
    random_controls(controls, f.dim, 0.2f);
    mn_joint_override ov[] = {{"head", {0.1f, 0.0f, 0.0f, 1.0f}}};
    bool moved;
    mn_arkit_map *map;
    const char *table = "{\"jawOpen\": [{\"region\": \"lower_face\", \"index\": 1, \"gain\": 2}]}";
    assert_int_equal(mn_arkit_table_map_create(&f.pack->header.head_ext, table, strlen(table),
                                               NULL, &map, NULL),
                     MN_OK);
    assert_int_equal(mn_head_set_arkit_map(head, map, NULL), MN_OK);
    float arkit[MN_ARKIT_CHANNEL_COUNT] = {0};
    arkit[17] = 0.5f;
    for (int frame = 0; frame < 3; frame++) {
        assert_int_equal(mn_head_forward(head, controls, f.dim, out, NULL), MN_OK);
        assert_int_equal(mn_head_pose(head, controls, f.dim, out, NULL), MN_OK);
        assert_int_equal(mn_head_set_joint_overrides(head, ov, 1, &moved, NULL), MN_OK);
        assert_int_equal(mn_head_set_joint_worlds(head, f.pack->rest_world,
                                                  f.pack->header.joint_count * 16, NULL),
                         MN_OK);
        assert_int_equal(mn_head_ext_unpack(&f.pack->header.head_ext, controls, f.dim, expr, gaze,
                                            NULL),
                         MN_OK);
        assert_int_equal(mn_head_pose_arkit(head, arkit, MN_ARKIT_CHANNEL_COUNT, out, NULL), MN_OK);
    }
    assert_int_equal(counter.allocs, allocs);
    mn_head_free(head);
    mn_arkit_map_free(map);
    assert_int_equal(counter.live_bytes, 0);
    free(controls);
    free(out);
    fixture_free(&f);
}

static void refusals(void **state)
{
    (void)state;
    fixture f;
    fixture_make(&f, NULL);
    float *controls = calloc(f.dim + 1, sizeof *controls);
    float *out = malloc(f.v * 3 * sizeof *out);
    mn_error err;
    /* A longer control vector is an error; a shorter one is zero-padded. */
    assert_int_equal(mn_head_pose(f.head, controls, f.dim + 1, out, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "dim"));
    assert_int_equal(mn_head_pose(f.head, controls, 3, out, &err), MN_OK);
    assert_int_equal(mn_head_pose(f.head, NULL, 0, NULL, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_head_set_joint_worlds(f.head, controls, 5, &err), MN_COUNT_MISMATCH);
    float *bad = calloc(f.pack->header.joint_count * 16, sizeof *bad);
    bad[7] = INFINITY;
    assert_int_equal(mn_head_set_joint_worlds(f.head, bad, f.pack->header.joint_count * 16, &err),
                     MN_NOT_FINITE);
    /* An ARKit vector without a map is refused, loudly. */
    float arkit[52] = {0};
    assert_int_equal(mn_head_pose_arkit(f.head, arkit, 52, out, &err), MN_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "no ARKit map"));
    assert_int_equal(mn_head_create(NULL, NULL, NULL, &err), MN_INVALID_ARGUMENT);
    free(bad);
    free(controls);
    free(out);
    fixture_free(&f);
}

static void create_out_of_memory(void **state)
{
    (void)state;
    fixture f;
    fixture_make(&f, NULL);
    mn_counting_alloc counter = mn_counting_alloc_make();
    counter.fail_after = 0;
    mn_head_options options = {mn_counting_allocator(&counter)};
    mn_head *head = (mn_head *)&counter;
    assert_int_equal(mn_head_create(f.pack, &options, &head, NULL), MN_OUT_OF_MEMORY);
    assert_null(head);
    assert_int_equal(counter.live_bytes, 0);
    fixture_free(&f);
}

/* ---- head_ext helpers ------------------------------------------------------------------ */

static void head_ext_helpers(void **state)
{
    (void)state;
    fixture f;
    synthetic_head_options o = {.coeff_count = 16};
    fixture_make(&f, &o);
    const mn_aosrig_head_ext *L = &f.pack->header.head_ext;
    /* Regions: left_eye 4, right_eye 4, lower_face 7, pupils 1. */
    mn_head_ext_slice s[8];
    assert_int_equal(mn_head_ext_region_slices(L, NULL, 0), 4);
    assert_int_equal(mn_head_ext_region_slices(L, s, 8), 4);
    assert_string_equal(s[2].region, "lower_face");
    assert_int_equal(s[2].start, 8);
    assert_int_equal(s[2].end, 15);
    assert_int_equal(s[3].end, 16);

    char name[32];
    assert_int_equal(mn_head_ext_control_name(L, 0, name, sizeof name), 12);
    assert_string_equal(name, "left_eye_000");
    mn_head_ext_control_name(L, 10, name, sizeof name);
    assert_string_equal(name, "lower_face_002");
    mn_head_ext_control_name(L, 15, name, sizeof name);
    assert_string_equal(name, "pupils_000");
    mn_head_ext_control_name(L, 16, name, sizeof name);
    assert_string_equal(name, "gaze_pitch_L");
    mn_head_ext_control_name(L, 19, name, sizeof name);
    assert_string_equal(name, "gaze_yaw_R");
    assert_int_equal(mn_head_ext_control_name(L, 20, name, sizeof name), 0);
    assert_string_equal(name, "");
    /* Cut like snprintf, the full length returned. */
    assert_int_equal(mn_head_ext_control_name(L, 10, name, 5), 14);
    assert_string_equal(name, "lowe");
    /* More digits when a region needs them. */
    mn_aosrig_region big[1] = {{"jaw", 1500, 0, false, 0}};
    mn_aosrig_head_ext wide = {1504, 1500, 4, big, 1};
    mn_head_ext_control_name(&wide, 1234, name, sizeof name);
    assert_string_equal(name, "jaw_1234");
    mn_head_ext_control_name(&wide, 7, name, sizeof name);
    assert_string_equal(name, "jaw_0007");

    /* Unpack: zero-padded, a longer one refused. */
    float in[20], expr[16], gaze[4];
    for (int i = 0; i < 20; i++)
        in[i] = (float)(i + 1);
    assert_int_equal(mn_head_ext_unpack(L, in, 20, expr, gaze, NULL), MN_OK);
    assert_float_near(expr[15], 16.0f, 0);
    assert_float_near(gaze[3], 20.0f, 0);
    assert_int_equal(mn_head_ext_unpack(L, in, 17, expr, gaze, NULL), MN_OK);
    assert_float_near(gaze[0], 17.0f, 0);
    assert_float_near(gaze[1], 0.0f, 0);
    assert_int_equal(mn_head_ext_unpack(L, in, 21, expr, gaze, NULL), MN_INVALID_ARGUMENT);

    /* The reduced view: reduced counts of all but pupils, then gaze. */
    size_t rd = mn_head_ext_reduced_dim(L);
    size_t want_rd = 4;
    for (uint32_t r = 0; r < L->region_count; r++)
        want_rd += L->regions[r].has_reduced ? L->regions[r].reduced : 0;
    assert_int_equal(rd, want_rd);
    float reduced[64], full[20];
    for (size_t i = 0; i < rd; i++)
        reduced[i] = (float)(100 + i);
    mn_error err;
    assert_int_equal(mn_head_ext_widen(L, reduced, rd - 1, full, &err), MN_COUNT_MISMATCH);
    assert_int_equal(mn_head_ext_widen(L, reduced, rd, full, &err), MN_OK);
    size_t at = 0;
    for (uint32_t r = 0; r < L->region_count; r++) {
        const mn_aosrig_region *g = &L->regions[r];
        uint32_t n = g->has_reduced ? g->reduced : 0;
        for (uint32_t i = 0; i < g->count; i++)
            assert_float_near(full[g->start + i], i < n ? reduced[at + i] : 0.0f, 0);
        at += n;
    }
    for (int g = 0; g < 4; g++)
        assert_float_near(full[16 + g], reduced[at + (size_t)g], 0);
    fixture_free(&f);
}

/* ---- seeing a head ---------------------------------------------------------------------- */

static void colours_and_fit(void **state)
{
    (void)state;
    assert_int_equal(mn_pack_rgba(1, 0, 0, 1), 0xff0000ffu);
    assert_int_equal(mn_pack_rgba(0, 0, 1, 0), 0x00ff0000u);
    assert_int_equal(mn_pack_rgba(0.5f, NAN, 2.0f, -1.0f), 0x00ff0080u);

    fixture f;
    fixture_make(&f, &full_options);
    uint32_t *tint = malloc(f.v * sizeof *tint);
    assert_int_equal(mn_head_joint_tint(f.pack, tint, f.v), MN_OK);
    assert_int_equal(mn_head_joint_tint(f.pack, tint, f.v - 1), MN_INVALID_ARGUMENT);
    /* Eye vertices are cyan; the others take their dominant joint's colour, one per joint. */
    uint32_t cyan = mn_pack_rgba(0, 1, 1, 1), by_joint[3] = {0, 0, 0};
    size_t K = f.pack->header.max_influence;
    for (size_t v = 0; v < f.v; v++) {
        assert_int_equal(tint[v] >> 24, 0xff);
        if (f.pack->eye_weights[v] == 1.0f || f.pack->eye_weights[f.v + v] == 1.0f) {
            assert_int_equal(tint[v], cyan);
            continue;
        }
        const float *w = f.pack->skin_weight + v * K;
        size_t best = w[1] > w[0] ? 1 : 0;
        uint16_t j = f.pack->skin_index[v * K + best];
        assert_true(j < 3);
        if (by_joint[j] == 0)
            by_joint[j] = tint[v];
        assert_int_equal(tint[v], by_joint[j]);
        assert_int_not_equal(tint[v], cyan);
    }
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++)
            if (by_joint[a] && by_joint[b])
                assert_int_not_equal(by_joint[a], by_joint[b]);

    mn_height_tint(f.pack->neutral, f.v, tint);
    float lo = INFINITY, hi = -INFINITY;
    size_t low = 0, high = 0;
    for (size_t v = 0; v < f.v; v++) {
        float y = f.pack->neutral[3 * v + 1];
        if (y < lo) lo = y, low = v;
        if (y > hi) hi = y, high = v;
    }
    assert_int_equal(tint[low], mn_pack_rgba(0.0f, 0.25f, 1.0f, 1.0f));
    assert_int_equal(tint[high], mn_pack_rgba(1.0f, 0.25f, 0.0f, 1.0f));
    float flat[6] = {0, 1, 0, 1, 1, 1};
    uint32_t two[2];
    mn_height_tint(flat, 2, two);
    assert_int_equal(two[0], mn_pack_rgba(0.5f, 0.75f, 0.5f, 1.0f));
    mn_uv_tint(f.pack->uv, f.v, tint);
    assert_int_equal(tint[5], mn_pack_rgba(f.pack->uv[10], f.pack->uv[11], 0, 1));
    float grey[3] = {0.2f, 0.4f, 0.6f};
    mn_flat_tint(f.v, grey, tint);
    assert_int_equal(tint[f.v - 1], mn_pack_rgba(0.2f, 0.4f, 0.6f, 1.0f));
    mn_flat_tint(2, NULL, two);
    assert_int_equal(two[0], two[1]);

    /* The fit: centre to offset, height to 0.35 (or the options'). */
    float mn[3], mx[3];
    mn_head_neutral_bounds(f.head, mn, mx);
    assert_float_near(mx[1] - mn[1], hi - lo, 0);
    mn_fit_view fit = mn_fit_verts_transform(mn, mx, NULL);
    assert_float_near(fit.scale, 0.35f / (mx[1] - mn[1]), 1e-6);
    for (int i = 0; i < 3; i++) {
        float c = 0.5f * (mn[i] + mx[i]);
        assert_float_near(fit.transform[4 * i + i] * c + fit.transform[4 * i + 3], 0.0f, 1e-6);
    }
    float box_min[3] = {1, 2, 3}, box_max[3] = {3, 2, 5};
    mn_fit_options opt = {.height = 1.0f, .offset = {0, 1, 0}};
    fit = mn_fit_verts_transform(box_min, box_max, &opt);
    assert_float_near(fit.scale, 1.0f, 0);   /* a flat box */
    assert_float_near(fit.transform[3], -2.0f, 0);
    assert_float_near(fit.transform[7], -1.0f, 0);
    assert_float_near(fit.centroid[1], 1.0f, 0);
    opt.scale = 3.0f;
    fit = mn_fit_verts_transform(box_min, box_max, &opt);
    assert_float_near(fit.scale, 3.0f, 0);
    assert_float_near(fit.transform[11], -12.0f, 0);
    free(tint);
    fixture_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(forward_matches_double_reference),
        cmocka_unit_test(pose_matches_double_reference),
        cmocka_unit_test(rest_pose_is_neutral_through_bind),
        cmocka_unit_test(simd_matches_scalar),
        cmocka_unit_test(gaze_signs),
        cmocka_unit_test(override_worlds_follow_the_chain),
        cmocka_unit_test(overrides_in_any_joint_order),
        cmocka_unit_test(frames_allocate_nothing),
        cmocka_unit_test(refusals),
        cmocka_unit_test(create_out_of_memory),
        cmocka_unit_test(head_ext_helpers),
        cmocka_unit_test(colours_and_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
