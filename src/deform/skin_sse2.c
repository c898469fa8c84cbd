/*
 * Skinning with SSE2 (the x86-64 baseline, so always available there).
 *
 * One vertex at a time, the blended matrix held as four column vectors (the
 * layout of the palette, so each influence is four aligned-or-not loads and
 * no shuffle); each stream is then a broadcast-multiply-add per component.
 * Normalising needs 1/sqrt of a horizontal sum, which is slow one vector at a
 * time, so normals and tangents are normalised four vertices at once: the
 * squared components are transposed into x², y², z² rows, summed in the
 * reference's order, and one reciprocal square root estimate with a
 * Newton-Raphson step serves four vertices (inv_length4).  Additions run in
 * the scalar reference's order and there is no FMA, so positions are the
 * reference's bits, and normals and tangents are within 3e-7 relative of
 * them (the estimate's refinement), inside skinning's 1e-6.
 *
 * Where the time goes: a vertex of four influences costs 25 multiplies (16
 * for the blend: four columns, row 3 included, for each influence) and 18
 * adds, each its own instruction, where the AVX2+FMA kernel's 256-bit fused
 * ones do the same work in 12; both are bound by the multiply pipes, so this
 * kernel takes about twice AVX2's time on data in cache, whatever the
 * normalisation costs (bench_skin's sse2_to_avx2).
 *
 * A full group reads a vertex's x y z with one 16-byte load, which also
 * reads the float after it (the next vertex's x, or a float of the stride's
 * gap), then broadcasts each coordinate with a shuffle that needs no copy
 * (pshufd); that float exists whenever a vertex follows, so the full groups
 * stop before the last vertex and the group that ends the call takes exact
 * 12-byte reads (skin_partial), as in the AVX2 kernel.  Outputs are
 * written once a group of four has been read entirely, which makes in place
 * safe; in packed streams (stride 3) the first three vertices of a group are
 * stored 16 bytes at a time, the fourth lane landing on the next vertex of
 * the same group and overwritten by it (see store_xyz), so nothing outside
 * the group's own floats is ever written.
 *
 * A call that asks for streaming stores (MN_SKIN_STORE_STREAM; the default
 * stores through the cache, see mn_skin_store) gets them: the
 * vertices before the first 16-byte boundary are skinned as a partial group,
 * then each full group's 48 packed bytes go out as three aligned
 * non-temporal stores (stream_xyz4) and the call ends with a store fence; the
 * values are the cached path's, only their route to memory differs.  Large
 * calls also prefetch their inputs a little ahead (prefetch_vertex).
 *
 * How a call is specialised and walked, and the entry point mni_skin_sse2,
 * are skin_kernel.h's, shared with the other instruction sets.
 */
#include "deform/internal.h"

#if MN_WITH_SSE2

#include "core/lanes_sse2.h"

#include <float.h>

#define SKIN_READS_PAST 1
#define SKIN_STREAMS 1
#define SKIN_FENCE() _mm_sfence()
#include "deform/skin_kernel.h"

typedef struct cols4 {
    __m128 c0, c1, c2, c3;
} cols4;

/* Lane i of v in every lane, without the copy shufps needs (pshufd writes another register). */
#define SPLAT(v, i) _mm_castsi128_ps(_mm_shuffle_epi32(_mm_castps_si128(v), (i) * 0x55))

/* blend for four influences, their weights w4 (one lane each). */
MN_LANE cols4 blend4(const float *pal, const uint16_t *j, __m128 w4)
{
    const float *m = pal + 16 * (size_t)j[0];
    __m128 wk = SPLAT(w4, 0);
    cols4 c;
    c.c0 = _mm_mul_ps(_mm_loadu_ps(m), wk);
    c.c1 = _mm_mul_ps(_mm_loadu_ps(m + 4), wk);
    c.c2 = _mm_mul_ps(_mm_loadu_ps(m + 8), wk);
    c.c3 = _mm_mul_ps(_mm_loadu_ps(m + 12), wk);
    for (int k = 1; k < 4; k++) {
        m = pal + 16 * (size_t)j[k];
        wk = k == 1 ? SPLAT(w4, 1) : k == 2 ? SPLAT(w4, 2) : SPLAT(w4, 3);
        c.c0 = _mm_add_ps(c.c0, _mm_mul_ps(_mm_loadu_ps(m), wk));
        c.c1 = _mm_add_ps(c.c1, _mm_mul_ps(_mm_loadu_ps(m + 4), wk));
        c.c2 = _mm_add_ps(c.c2, _mm_mul_ps(_mm_loadu_ps(m + 8), wk));
        c.c3 = _mm_add_ps(c.c3, _mm_mul_ps(_mm_loadu_ps(m + 12), wk));
    }
    return c;
}

/* M = Σ w_k · palette[j_k], column by column (row 3 computed and ignored). */
MN_LANE cols4 blend(const float *pal, const uint16_t *j, const float *w, size_t ic)
{
    const float *m = pal + 16 * (size_t)j[0];
    if (ic == 4) /* a constant count: the four weights are one load and four shuffles */
        return blend4(pal, j, _mm_loadu_ps(w));
    __m128 wk = _mm_set1_ps(w[0]);
    cols4 c;
    c.c0 = _mm_mul_ps(_mm_loadu_ps(m), wk);
    c.c1 = _mm_mul_ps(_mm_loadu_ps(m + 4), wk);
    c.c2 = _mm_mul_ps(_mm_loadu_ps(m + 8), wk);
    c.c3 = _mm_mul_ps(_mm_loadu_ps(m + 12), wk);
    for (size_t k = 1; k < ic; k++) {
        m = pal + 16 * (size_t)j[k];
        wk = _mm_set1_ps(w[k]);
        c.c0 = _mm_add_ps(c.c0, _mm_mul_ps(_mm_loadu_ps(m), wk));
        c.c1 = _mm_add_ps(c.c1, _mm_mul_ps(_mm_loadu_ps(m + 4), wk));
        c.c2 = _mm_add_ps(c.c2, _mm_mul_ps(_mm_loadu_ps(m + 8), wk));
        c.c3 = _mm_add_ps(c.c3, _mm_mul_ps(_mm_loadu_ps(m + 12), wk));
    }
    return c;
}

/* (c0·x + c1·y) + c2·z: the 3x3 part applied to (x, y, z). */
MN_LANE __m128 apply3(const cols4 *c, __m128 x, __m128 y, __m128 z)
{
    return _mm_add_ps(_mm_add_ps(_mm_mul_ps(c->c0, x), _mm_mul_ps(c->c1, y)), _mm_mul_ps(c->c2, z));
}

/* Store lanes 0..2 (x y z) and nothing else. */
MN_LANE void store3(float *out, __m128 v)
{
    _mm_storel_pi((__m64 *)(void *)out, v);
    _mm_store_ss(out + 2, _mm_movehl_ps(v, v));
}

/*
 * 1 / sqrt(len2) for four squared lengths, 0 where len2 is 0.  rsqrt's
 * estimate (12 bits) refined by one Newton-Raphson step, y·(1.5 - ½·len2·y²),
 * is within 3e-7 relative of 1 / sqrtf (2.2e-7 measured over every normal
 * float on one AMD CPU; Intel's estimate has the same bound), inside the 1e-6
 * skinning promises, and takes the divider out of the loop (a sqrt and a
 * division every four vertices).  rsqrt may read a subnormal as 0 and gives
 * 0 for infinity, which the step turns into infinity or NaN, so a group with
 * a length there (0 < len2 < FLT_MIN, or len2 = ∞) takes the exact sqrt and
 * division instead: a branch that ordinary meshes never take.
 */
MN_LANE __m128 inv_length4(__m128 len2)
{
    __m128 odd = _mm_or_ps(_mm_and_ps(_mm_cmpgt_ps(len2, _mm_setzero_ps()),
                                      _mm_cmplt_ps(len2, _mm_set1_ps(FLT_MIN))),
                           _mm_cmpgt_ps(len2, _mm_set1_ps(FLT_MAX)));
    __m128 inv;
    if (_mm_movemask_ps(odd) != 0) {
        inv = _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(len2));
    } else {
        __m128 y = _mm_rsqrt_ps(len2);
        __m128 half = _mm_mul_ps(_mm_set1_ps(0.5f), len2);
        inv = _mm_mul_ps(y, _mm_sub_ps(_mm_set1_ps(1.5f), _mm_mul_ps(_mm_mul_ps(half, y), y)));
    }
    return _mm_and_ps(inv, _mm_cmpgt_ps(len2, _mm_setzero_ps()));
}

/*
 * v[i] = v[i] / |v[i].xyz| for four vectors (lane 3 ignored), zero when the
 * squared length is zero.  len² = (x² + y²) + z², as the reference adds.
 */
MN_LANE void normalize4(__m128 v[4])
{
    __m128 s0 = _mm_mul_ps(v[0], v[0]), s1 = _mm_mul_ps(v[1], v[1]);
    __m128 s2 = _mm_mul_ps(v[2], v[2]), s3 = _mm_mul_ps(v[3], v[3]);
    __m128 t0 = _mm_unpacklo_ps(s0, s1);    /* x0 x1 y0 y1 */
    __m128 t1 = _mm_unpacklo_ps(s2, s3);    /* x2 x3 y2 y3 */
    __m128 t2 = _mm_unpackhi_ps(s0, s1);    /* z0 z1 .. .. */
    __m128 t3 = _mm_unpackhi_ps(s2, s3);    /* z2 z3 .. .. */
    __m128 xx = _mm_movelh_ps(t0, t1);
    __m128 yy = _mm_movehl_ps(t1, t0);
    __m128 zz = _mm_movelh_ps(t2, t3);
    __m128 inv = inv_length4(_mm_add_ps(_mm_add_ps(xx, yy), zz));
    v[0] = _mm_mul_ps(v[0], _mm_shuffle_ps(inv, inv, _MM_SHUFFLE(0, 0, 0, 0)));
    v[1] = _mm_mul_ps(v[1], _mm_shuffle_ps(inv, inv, _MM_SHUFFLE(1, 1, 1, 1)));
    v[2] = _mm_mul_ps(v[2], _mm_shuffle_ps(inv, inv, _MM_SHUFFLE(2, 2, 2, 2)));
    v[3] = _mm_mul_ps(v[3], _mm_shuffle_ps(inv, inv, _MM_SHUFFLE(3, 3, 3, 3)));
}

/* What a group of four vertices carries from its reads to its writes. */
typedef struct group {
    __m128 pos[4], nv[4], tv[4], tw[4];
} group;

/*
 * x y z at d in lanes 0-2: `exact` reads the 3 floats alone (lane 3 is 0),
 * otherwise one 16-byte load, which also reads the float after them.
 */
MN_LANE __m128 load3(const float *d, bool exact)
{
    if (exact)
        return _mm_setr_ps(d[0], d[1], d[2], 0.0f);
    return _mm_loadu_ps(d);
}

/* (c0·x + c1·y) + c2·z for the x y z in lanes 0-2 of d. */
MN_LANE __m128 apply3v(const cols4 *c, __m128 d)
{
    return apply3(c, SPLAT(d, 0), SPLAT(d, 1), SPLAT(d, 2));
}

/*
 * Read and compute vertex v into slot b of g (nothing is written to the
 * outputs yet).  `exact`: see load3; false only where another vertex follows.
 */
MN_LANE void skin_vertex(const mn_skin_streams *s, layout L, size_t v, group *g, size_t b,
                         bool exact)
{
    cols4 c = blend(s->palette, s->joints + v * L.ic, s->weights + v * L.ic, L.ic);
    const float *p = s->positions + v * STRIDE(L, s, position_stride, 3);
    g->pos[b] = _mm_add_ps(apply3v(&c, load3(p, exact)), c.c3);
    if (L.has_n) {
        const float *q = s->normals + v * STRIDE(L, s, normal_stride, 3);
        g->nv[b] = apply3v(&c, load3(q, exact));
    }
    if (L.has_t) {
        const float *q = s->tangents + v * STRIDE(L, s, tangent_stride, 4);
        g->tw[b] = _mm_loadu_ps(q);
        g->tv[b] = apply3v(&c, g->tw[b]);
    }
}

/*
 * Store x y z of vertex b of a group.  In a packed stream of 3 floats, a
 * 16-byte store of vertex b (< 3) spills its fourth lane onto vertex b+1's x,
 * which the group has already read and which vertex b+1's own store then
 * overwrites; the group's last vertex stores exactly 12 bytes, so nothing
 * outside the group is touched.  One store instead of two.
 */
MN_LANE void store_xyz(float *out, __m128 v, bool packed_full, size_t b)
{
    if (packed_full && b < 3)
        _mm_storeu_ps(out, v);
    else
        store3(out, v);
}

/*
 * A full group's x y z into a packed 3-float stream with streaming stores:
 * four vertices are 48 bytes, three aligned 16-byte stores
 * (x0 y0 z0 x1 | y1 z1 x2 y2 | z2 x3 y3 z3), `out` on a 16-byte boundary.
 */
MN_LANE void stream_xyz4(float *out, const __m128 v[4])
{
    __m128 z0x1 = _mm_shuffle_ps(v[0], v[1], _MM_SHUFFLE(0, 0, 2, 2)); /* z0 z0 x1 x1 */
    __m128 z2x3 = _mm_shuffle_ps(v[2], v[3], _MM_SHUFFLE(0, 0, 2, 2)); /* z2 z2 x3 x3 */
    _mm_stream_ps(out, _mm_shuffle_ps(v[0], z0x1, _MM_SHUFFLE(2, 0, 1, 0)));
    _mm_stream_ps(out + 4, _mm_shuffle_ps(v[1], v[2], _MM_SHUFFLE(1, 0, 2, 1)));
    _mm_stream_ps(out + 8, _mm_shuffle_ps(z2x3, v[3], _MM_SHUFFLE(2, 1, 2, 0)));
}

/*
 * Normalise, then write the outputs of vertices first .. first+n-1 (every
 * input already read).  `stream`: a full group from stream_first on, whose
 * streamed outputs take non-temporal stores (same values, other route).
 */
MN_LANE void finish_group(const mn_skin_streams *s, layout L, size_t first, size_t n,
                          bool full, bool stream, group *g)
{
    size_t ps = STRIDE(L, s, out_position_stride, 3);
    if (stream && s->stream_positions)
        stream_xyz4(s->out_positions + first * 3, g->pos);
    else
        for (size_t b = 0; b < n; b++)
            store_xyz(s->out_positions + (first + b) * ps, g->pos[b], L.packed && full, b);
    if (L.has_n) {
        normalize4(g->nv);
        size_t ns = STRIDE(L, s, out_normal_stride, 3);
        if (stream && s->stream_normals)
            stream_xyz4(s->out_normals + first * 3, g->nv);
        else
            for (size_t b = 0; b < n; b++)
                store_xyz(s->out_normals + (first + b) * ns, g->nv[b], L.packed && full, b);
    }
    if (L.has_t) {
        normalize4(g->tv);
        size_t ts = STRIDE(L, s, out_tangent_stride, 4);
        const __m128 xyz = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
        for (size_t b = 0; b < n; b++) { /* x y z skinned, w (handedness) from the input */
            __m128 t = _mm_or_ps(_mm_and_ps(xyz, g->tv[b]), _mm_andnot_ps(xyz, g->tw[b]));
            if (stream && s->stream_tangents)
                _mm_stream_ps(s->out_tangents + (first + b) * ts, t);
            else
                _mm_storeu_ps(s->out_tangents + (first + b) * ts, t);
        }
    }
}

/*
 * Ask for the inputs of vertex v (clamped to the last) to be brought into the
 * cache: in a large call the loop then meets them there instead of waiting
 * for memory (MN_SKIN_PREFETCH_AHEAD vertices are about half a microsecond
 * of work, a few times the latency of memory).  A hint: it never faults and
 * changes nothing.
 */
MN_LANE void prefetch_vertex(const mn_skin_streams *s, layout L, size_t v)
{
    if (v >= s->count)
        v = s->count - 1;
    _mm_prefetch((const char *)(s->positions + v * STRIDE(L, s, position_stride, 3)), _MM_HINT_T0);
    if (L.has_n)
        _mm_prefetch((const char *)(s->normals + v * STRIDE(L, s, normal_stride, 3)), _MM_HINT_T0);
    if (L.has_t)
        _mm_prefetch((const char *)(s->tangents + v * STRIDE(L, s, tangent_stride, 4)), _MM_HINT_T0);
    _mm_prefetch((const char *)(s->joints + v * L.ic), _MM_HINT_T0);
    _mm_prefetch((const char *)(s->weights + v * L.ic), _MM_HINT_T0);
}

/* Vertices first .. first+n-1 (1 to 4) as one group: exact reads, cached stores. */
MN_LANE void skin_partial(const mn_skin_streams *s, layout L, size_t first, size_t n)
{
    group g;
    for (size_t b = 0; b < 4; b++) /* unused lanes hold zeros, which normalise to zeros */
        g.pos[b] = g.nv[b] = g.tv[b] = g.tw[b] = _mm_setzero_ps();
    for (size_t b = 0; b < n; b++)
        skin_vertex(s, L, first + b, &g, b, true);
    finish_group(s, L, first, n, false, false, &g);
}

/* The full groups from v to end (a multiple of 4 further, a vertex after it), four a step. */
MN_LANE void skin_groups(const mn_skin_streams *s, layout L, size_t v, size_t end, bool stream)
{
    group g;
    for (; v < end; v += 4) {
        if (s->prefetch)
            prefetch_vertex(s, L, v + MN_SKIN_PREFETCH_AHEAD);
        /* four calls, not a loop: the group's vectors stay in registers */
        skin_vertex(s, L, v, &g, 0, false);
        skin_vertex(s, L, v + 1, &g, 1, false);
        skin_vertex(s, L, v + 2, &g, 2, false);
        skin_vertex(s, L, v + 3, &g, 3, false);
        finish_group(s, L, v, 4, true, stream, &g);
    }
}

#else
/* ISO C wants a translation unit to declare something. */
typedef int mn_skin_sse2_unused;
#endif
