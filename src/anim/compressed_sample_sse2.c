/*
 * The compressed clip's sampler with SSE2 (core/simd.h, the convention):
 * the loop of compressed_sample.h with each animated track's components in
 * the lanes of one register (its knots from the scalar code's grid values,
 * the rebuilt w, the lerp or B-spline and the normalisation), and four
 * rotations a pass where a cursor groups them.  Only exact IEEE operations
 * in the scalar code's order (compress_internal.h: mni_cc_span_knots,
 * mni_cc_interp), horizontal sums added lane by lane from the left as the
 * scalar code adds them: each lane is bit for bit the scalar code
 * (tests/test_compress.c holds it to that).
 */
#include "anim/compress_internal.h"
#include "anim/compressed_sample.h"

#include "core/simd.h"

#if MN_WITH_SSE2
#include "core/lanes_sse2.h"

/* ((v0² + v1²) + v2²) [+ v3²] in lane 0, summed from the left as the scalar code sums. */
MN_LANE __m128 sum_squares(__m128 v, bool four)
{
    __m128 q = _mm_mul_ps(v, v);
    __m128 s = _mm_add_ss(q, _mm_shuffle_ps(q, q, _MM_SHUFFLE(1, 1, 1, 1)));
    s = _mm_add_ss(s, _mm_shuffle_ps(q, q, _MM_SHUFFLE(2, 2, 2, 2)));
    return four ? _mm_add_ss(s, _mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 3, 3, 3))) : s;
}

/* A knot from its grid values (mni_cc_span_ints, the scalar code's own) on the grid. */
MN_LANE __m128 knot(const uint32_t *f, __m128 cmin, __m128 quantum, __m128 keep)
{
    __m128i q = _mm_set_epi32((int)f[3], (int)f[2], (int)f[1], (int)f[0]);
    /* Lanes past the stored components are zero, as the scalar code leaves them. */
    return _mm_and_ps(_mm_add_ps(cmin, _mm_mul_ps(quantum, _mm_cvtepi32_ps(q))), keep);
}

/* w >= 0 into lane 3 from x, y, z, as mni_cc_rebuild_w (sqrtss is sqrtf, correctly rounded). */
MN_LANE __m128 rebuild_w(__m128 v)
{
    __m128 w2 = _mm_sub_ss(_mm_set_ss(1.0f), sum_squares(v, false));
    __m128 w = _mm_and_ps(_mm_sqrt_ss(w2), _mm_cmpgt_ss(w2, _mm_setzero_ps())); /* 0 unless w2 > 0 */
    w = _mm_shuffle_ps(w, w, _MM_SHUFFLE(0, 0, 0, 0));
    return _mm_shuffle_ps(v, _mm_unpackhi_ps(v, w), _MM_SHUFFLE(1, 0, 1, 0)); /* x y z w */
}

/* mni_cc_convert in one register (knot and rebuild_w: the same operations). */
MN_LANE void convert_sse2(const mni_cc_track *tr, const uint32_t *q, bool w, float *out)
{
    __m128 keep = _mm_castsi128_ps(tr->components == 4 ? _mm_set1_epi32(-1)
                                                       : _mm_set_epi32(0, -1, -1, -1));
    __m128 cmin = _mm_and_ps(_mm_loadu_ps(tr->min), keep);
    __m128 v = knot(q, cmin, _mm_set1_ps(tr->quantum), keep);
    _mm_storeu_ps(out, w ? rebuild_w(v) : v);
}

/* 3 lanes of v to out (a fourth store would overwrite the next joint's). */
MN_LANE void store3(float *out, __m128 v)
{
    _mm_storel_pi((__m64 *)(void *)out, v);
    _mm_store_ss(out + 2, _mm_movehl_ps(v, v));
}

/*
 * mni_cc_interp with the span's shared weights (mni_cc_at), in one
 * register: the same operations in the same order, so the same bits.
 */
MN_LANE void eval_sse2(const float p[4][4], uint32_t path, uint32_t eval, bool wdrop,
                       const mni_cc_at *a, float *out)
{
    __m128 p1 = _mm_loadu_ps(p[1]), v;
    float s = a->s;
    if (eval == MNI_CC_EV_SPLINE) {
        v = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_set1_ps(a->w[0]), _mm_loadu_ps(p[0])),
                                             _mm_mul_ps(_mm_set1_ps(a->w[1]), p1)),
                                  _mm_mul_ps(_mm_set1_ps(a->w[2]), _mm_loadu_ps(p[2]))),
                       _mm_mul_ps(_mm_set1_ps(a->w[3]), _mm_loadu_ps(p[3])));
        if (wdrop)
            v = rebuild_w(v);
    } else if (eval == MNI_CC_EV_LERP) {
        __m128 p2 = _mm_loadu_ps(p[2]);
        v = _mm_add_ps(p1, _mm_mul_ps(_mm_sub_ps(p2, p1), _mm_set1_ps(s)));
    } else if (eval == MNI_CC_EV_STEP && !(s < 0.999f)) {
        v = _mm_loadu_ps(p[2]);
    } else {
        v = p1;
    }
    if (path != MN_PATH_ROTATION) {
        store3(out, v);
        return;
    }
    __m128 len2 = sum_squares(v, true);
    if (!(_mm_cvtss_f32(len2) > 0.0f)) {
        out[0] = out[1] = out[2] = 0.0f;
        out[3] = 1.0f;
        return;
    }
    __m128 inv = _mm_div_ss(_mm_set_ss(1.0f), _mm_sqrt_ss(len2));
    _mm_storeu_ps(out, _mm_mul_ps(v, _mm_shuffle_ps(inv, inv, _MM_SHUFFLE(0, 0, 0, 0))));
}

/* A quad's knots after its tracks moved to span k: each lane refreshed, then laid out by component. */
static void quad_refresh(mni_cc_cursor *c, mni_cc_quad *q, uint32_t k)
{
    mni_cc_hot *hot = mni_cc_hots(c);
    mni_cc_hot *e[4];
    for (uint32_t l = 0; l < 4; l++) {
        e[l] = &hot[q->track[l]];
        if (e[l]->span1 != k + 1u)
            mni_cc_refresh(e[l], &mni_cc_colds(c)[q->track[l]], k, convert_sse2);
    }
    /* A lerp reads knots 1 and 2 only. */
    uint32_t from = q->eval == MNI_CC_EV_SPLINE ? 0u : 1u, to = q->eval == MNI_CC_EV_SPLINE ? 4u : 3u;
    for (uint32_t i = from; i < to; i++) {
        __m128 r0 = _mm_loadu_ps(e[0]->p[i]), r1 = _mm_loadu_ps(e[1]->p[i]);
        __m128 r2 = _mm_loadu_ps(e[2]->p[i]), r3 = _mm_loadu_ps(e[3]->p[i]);
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        _mm_store_ps(q->p[i][0], r0);
        _mm_store_ps(q->p[i][1], r1);
        _mm_store_ps(q->p[i][2], r2);
        _mm_store_ps(q->p[i][3], r3);
    }
    q->span1 = k + 1u;
}

/*
 * Four rotations at once, lanes by track: eval_sse2's lerp or B-spline, w
 * and normalisation, the same operations in the same order per lane.
 */
static void quad_eval(const mni_cc_quad *q, const mni_cc_at *a, __m128 v[4])
{
    if (q->eval == MNI_CC_EV_SPLINE) {
        __m128 w0 = _mm_set1_ps(a->w[0]), w1 = _mm_set1_ps(a->w[1]);
        __m128 w2 = _mm_set1_ps(a->w[2]), w3 = _mm_set1_ps(a->w[3]);
        uint32_t n = q->wdrop ? 3u : 4u;
        for (uint32_t comp = 0; comp < n; comp++)
            v[comp] = _mm_add_ps(
                _mm_add_ps(_mm_add_ps(_mm_mul_ps(w0, _mm_load_ps(q->p[0][comp])),
                                      _mm_mul_ps(w1, _mm_load_ps(q->p[1][comp]))),
                           _mm_mul_ps(w2, _mm_load_ps(q->p[2][comp]))),
                _mm_mul_ps(w3, _mm_load_ps(q->p[3][comp])));
        if (q->wdrop) {
            __m128 s2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(v[0], v[0]), _mm_mul_ps(v[1], v[1])),
                                   _mm_mul_ps(v[2], v[2]));
            __m128 r = _mm_sub_ps(_mm_set1_ps(1.0f), s2);
            v[3] = _mm_and_ps(_mm_sqrt_ps(r), _mm_cmpgt_ps(r, _mm_setzero_ps()));
        }
    } else {
        __m128 s = _mm_set1_ps(a->s);
        for (uint32_t comp = 0; comp < 4; comp++) {
            __m128 p1 = _mm_load_ps(q->p[1][comp]), p2 = _mm_load_ps(q->p[2][comp]);
            v[comp] = _mm_add_ps(p1, _mm_mul_ps(_mm_sub_ps(p2, p1), s));
        }
    }
    __m128 len2 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(v[0], v[0]), _mm_mul_ps(v[1], v[1])),
                                        _mm_mul_ps(v[2], v[2])),
                             _mm_mul_ps(v[3], v[3]));
    __m128 ok = _mm_cmpgt_ps(len2, _mm_setzero_ps());
    __m128 inv = _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(len2));
    for (uint32_t comp = 0; comp < 4; comp++)
        v[comp] = _mm_and_ps(_mm_mul_ps(v[comp], inv), ok);
    /* !(len2 > 0): the identity. */
    v[3] = _mm_or_ps(v[3], _mm_andnot_ps(ok, _mm_set1_ps(1.0f)));
    _MM_TRANSPOSE4_PS(v[0], v[1], v[2], v[3]);
}

MN_KERNEL void MN_ISA(mni_cc_sample_cursor)(const mn_compressed_clip *clip, const mni_cc_at *at,
                                            float f, mni_cc_cursor *c, mn_pose *pose)
{
    mni_cc_sample_cursor(clip, at, f, c, pose, true, eval_sse2, convert_sse2);
    mni_cc_quad *quads = mni_cc_quads(c);
    mni_cc_hot *hot = mni_cc_hots(c);
    uint32_t joints = pose->joint_count;
    for (uint32_t g = 0; g < c->quad_count; g++) {
        mni_cc_quad *q = &quads[g];
        const mni_cc_at *a = &at[q->sl];
        if (q->span1 != a->k + 1u)
            quad_refresh(c, q, a->k);
        __m128 v[4];
        quad_eval(q, a, v);
        for (uint32_t l = 0; l < 4; l++) {
            uint32_t target = hot[q->track[l]].target;
            if (target < joints)
                _mm_storeu_ps(pose->rotations + 4 * (size_t)target, v[l]);
        }
    }
}

MN_KERNEL void MN_ISA(mni_cc_sample_fresh)(const mn_compressed_clip *clip,
                                           const mni_cc_prepared *prep, float t, mn_pose *pose)
{
    mni_cc_sample_fresh(clip, prep, t, pose, eval_sse2);
}
#else
/* ISO C wants a translation unit to declare something. */
typedef int mn_compressed_sample_sse2_unused;
#endif
