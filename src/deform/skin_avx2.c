/*
 * Skinning with AVX2 and FMA, chosen at run time (skin.c's dispatch, when
 * mni_simd_resolve gives MN_SIMD_AVX2_FMA).
 *
 * Two vertices share each 256-bit register, vertex a in the low 128-bit
 * lane and vertex b in the high one (the pair layout), so that every
 * transform, normalisation and store instruction does two vertices' work:
 *
 *   - Blend: a palette matrix is two 256-bit loads (columns 0-1, columns
 *     2-3), so an influence costs one broadcast and two FMAs with their loads
 *     folded in; four lane permutes then regroup two vertices' blends into
 *     the pair layout, column c of a beside column c of b.
 *   - Transform: a vertex's x y z is one 16-byte load into its lane, and an
 *     in-lane permute broadcasts each coordinate across its lane, so three
 *     FMAs transform both vertices (one vertex per 128-bit register needs six
 *     FMAs and six broadcast loads for the same work).
 *   - Normalise: the squared components of four vertices (two pairs) are
 *     interleaved so that one add chain gives their four squared lengths in
 *     the reference's order, (x² + y²) + z²; one sqrt and one division serve
 *     all four, correctly rounded as the reference's 1 / sqrtf is, and two
 *     in-lane permutes bring each 1/length back to its vertex.  (rsqrt with
 *     a Newton-Raphson step was measured no faster: the divider is not the
 *     limit here, and it costs three more instructions and ~2e-7 of error.)
 *   - Store: a group of four vertices of a packed 3-float stream is packed by
 *     two lane-crossing permutes and a blend into its 48 contiguous bytes,
 *     one 32-byte and one 16-byte store, or three aligned 16-byte streaming
 *     stores.
 *   - The loop: pointers advance group by group (no index times stride), a
 *     group's normalisation and stores are issued after the next group's
 *     blends (software pipelining: their long dependency chain then overlaps
 *     independent work), and the streaming choice is made once per call,
 *     not per group.
 *
 * A 16-byte load of a vertex's x y z also reads the float after it: the next
 * vertex's x, or a float of the stride's gap.  That float exists whenever a
 * vertex follows, so the full groups stop before the last vertex and the
 * group that ends the call (one to four vertices) takes exact 12-byte reads
 * instead (skin_partial).  Nothing uses the extra lane.
 *
 * Fused multiply-adds round once where the reference rounds twice, so
 * results agree with it within float rounding (1e-6 relative).  Every value
 * is computed lane by lane by the same instructions whichever lane or group a
 * vertex falls in, so the full groups, the partial ones at the ends and the
 * peel before a streaming boundary give a vertex the same bits, and
 * streaming stores the same bytes as caching.
 *
 * How a call is specialised and walked, and the entry point mni_skin_avx2,
 * are skin_kernel.h's, shared with the other instruction sets; the functions
 * here are compiled for AVX2 and FMA through MN_LANE (core/lanes_avx2.h).
 */
#include "deform/internal.h"

#if MN_WITH_AVX2

#include "core/lanes_avx2.h"

#define SKIN_READS_PAST 1
#define SKIN_STREAMS 1
#define SKIN_FENCE() _mm_sfence()
#include "deform/skin_kernel.h"

#include "deform/palette_blend_avx2.h"

/*
 * Where a group's inputs start: pointers advanced group by group, so the loop
 * adds a constant to each instead of multiplying a vertex index by strides.
 */
typedef struct cursor {
    const uint16_t *j;
    const float *w, *p, *n, *t;
} cursor;

MN_LANE cursor cursor_at(const mn_skin_streams *s, layout L, size_t v)
{
    cursor c = {s->joints + v * L.ic, s->weights + v * L.ic,
                s->positions + v * STRIDE(L, s, position_stride, 3), NULL, NULL};
    if (L.has_n)
        c.n = s->normals + v * STRIDE(L, s, normal_stride, 3);
    if (L.has_t)
        c.t = s->tangents + v * STRIDE(L, s, tangent_stride, 4);
    return c;
}

MN_LANE void cursor_advance(cursor *c, const mn_skin_streams *s, layout L, size_t by)
{
    c->j += by * L.ic;
    c->w += by * L.ic;
    c->p += by * STRIDE(L, s, position_stride, 3);
    if (L.has_n)
        c->n += by * STRIDE(L, s, normal_stride, 3);
    if (L.has_t)
        c->t += by * STRIDE(L, s, tangent_stride, 4);
}

/* The blended matrices of a pair: column c of vertex a in the low lane of cc, of vertex b in the high. */
typedef struct pair_cols {
    __m256 c0, c1, c2, c3;
} pair_cols;

/* The blends of the cursor's vertices a and b, in the pair layout. */
MN_LANE pair_cols blend_pair(const mn_skin_streams *s, layout L, const cursor *at, size_t a,
                             size_t b)
{
    __m256 a01, a23, b01, b23;
    mn_palette_blend_avx2(s->palette, at->j + a * L.ic, at->w + a * L.ic, L.ic, &a01, &a23);
    mn_palette_blend_avx2(s->palette, at->j + b * L.ic, at->w + b * L.ic, L.ic, &b01, &b23);
    pair_cols c;
    c.c0 = _mm256_permute2f128_ps(a01, b01, 0x20);
    c.c1 = _mm256_permute2f128_ps(a01, b01, 0x31);
    c.c2 = _mm256_permute2f128_ps(a23, b23, 0x20);
    c.c3 = _mm256_permute2f128_ps(a23, b23, 0x31);
    return c;
}

/*
 * Two vertices' x y z, each in lanes 0-2 of its half.  `exact`: read their 3
 * floats only (the unused lanes are 0); otherwise one 16-byte load each,
 * which also reads the float that follows (see the top of the file).
 */
MN_LANE __m256 load3_pair(const float *pa, const float *pb, bool exact)
{
    if (exact)
        return _mm256_setr_ps(pa[0], pa[1], pa[2], 0.0f, pb[0], pb[1], pb[2], 0.0f);
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(pa)), _mm_loadu_ps(pb), 1);
}

/* M3x3 · d for both vertices of a pair: (c0·x + c1·y) + c2·z, fused, x y z broadcast from d's lanes 0-2. */
MN_LANE __m256 xform_dir(const pair_cols *c, __m256 d)
{
    __m256 x = _mm256_permute_ps(d, 0x00), y = _mm256_permute_ps(d, 0x55);
    __m256 z = _mm256_permute_ps(d, 0xAA);
    return _mm256_fmadd_ps(c->c2, z, _mm256_fmadd_ps(c->c1, y, _mm256_mul_ps(c->c0, x)));
}

/* M · (p, 1) for both vertices of a pair: ((c3 + c0·x) + c1·y) + c2·z, fused. */
MN_LANE __m256 xform_point(const pair_cols *c, __m256 p)
{
    __m256 x = _mm256_permute_ps(p, 0x00), y = _mm256_permute_ps(p, 0x55);
    __m256 z = _mm256_permute_ps(p, 0xAA);
    return _mm256_fmadd_ps(c->c2, z, _mm256_fmadd_ps(c->c1, y, _mm256_fmadd_ps(c->c0, x, c->c3)));
}

/*
 * Normalise the x y z of the four vertices of two pairs (v01: vertices 0 and
 * 1, v23: 2 and 3); a vector whose squared length is zero becomes zero.  The
 * fourth float of each lane comes out as whatever it was times 1/length.
 */
MN_LANE void normalize_pairs(__m256 *v01, __m256 *v23)
{
    __m256 s01 = _mm256_mul_ps(*v01, *v01), s23 = _mm256_mul_ps(*v23, *v23);
    __m256 lo = _mm256_unpacklo_ps(s01, s23); /* x0 x2 y0 y2 | x1 x3 y1 y3 */
    __m256 hi = _mm256_unpackhi_ps(s01, s23); /* z0 z2 .. .. | z1 z3 .. .. */
    __m256 ys = _mm256_permute_ps(lo, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 len2 = _mm256_add_ps(_mm256_add_ps(lo, ys), hi); /* l0 l2 .. .. | l1 l3 .. .. */
    __m256 inv = _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(len2));
    inv = _mm256_and_ps(inv, _mm256_cmp_ps(len2, _mm256_setzero_ps(), _CMP_GT_OQ));
    *v01 = _mm256_mul_ps(*v01, _mm256_permute_ps(inv, _MM_SHUFFLE(0, 0, 0, 0)));
    *v23 = _mm256_mul_ps(*v23, _mm256_permute_ps(inv, _MM_SHUFFLE(1, 1, 1, 1)));
}

/* Store lanes 0..2 (x y z) and nothing else. */
MN_LANE void store3(float *out, __m128 v)
{
    _mm_storel_pi((__m64 *)(void *)out, v);
    _mm_store_ss(out + 2, _mm_movehl_ps(v, v));
}

/*
 * A group's x y z (v01: vertices 0 and 1, v23: 2 and 3) packed into the 12
 * floats x0 y0 z0 x1 | y1 z1 x2 y2 | z2 x3 y3 z3: `head` holds the first 8,
 * `tail` the last 4.
 */
MN_LANE void pack_xyz4(__m256 v01, __m256 v23, __m256 *head, __m128 *tail)
{
    const __m256i first = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
    const __m256i second = _mm256_setr_epi32(2, 4, 5, 6, 0, 0, 0, 1);
    __m256 a = _mm256_permutevar8x32_ps(v01, first);  /* x0 y0 z0 x1 y1 z1 .. .. */
    __m256 b = _mm256_permutevar8x32_ps(v23, second); /* z2 x3 y3 z3 .. .. x2 y2 */
    *head = _mm256_blend_ps(a, b, 0xC0);
    *tail = _mm256_castps256_ps128(b);
}

/*
 * Write x y z of a group's vertices 0 .. n-1 (v01: vertices 0 and 1, v23: 2
 * and 3).  A full group of a packed stream is 48 contiguous bytes: two
 * stores, or, with `stream` (out on a 16-byte boundary), three aligned
 * non-temporal ones.  Otherwise vertex by vertex, exactly 12 bytes each.
 */
MN_LANE void store_xyz_group(float *out, size_t stride, __m256 v01, __m256 v23, size_t n,
                             bool packed_full, bool stream)
{
    if (packed_full) {
        __m256 head;
        __m128 tail;
        pack_xyz4(v01, v23, &head, &tail);
        if (stream) {
            _mm_stream_ps(out, _mm256_castps256_ps128(head));
            _mm_stream_ps(out + 4, _mm256_extractf128_ps(head, 1));
            _mm_stream_ps(out + 8, tail);
        } else {
            _mm256_storeu_ps(out, head);
            _mm_storeu_ps(out + 8, tail);
        }
        return;
    }
    __m128 v[4] = {_mm256_castps256_ps128(v01), _mm256_extractf128_ps(v01, 1),
                   _mm256_castps256_ps128(v23), _mm256_extractf128_ps(v23, 1)};
    for (size_t b = 0; b < n; b++)
        store3(out + b * stride, v[b]);
}

/* What a group of four vertices carries from its reads to its writes: pairs (0, 1) and (2, 3). */
typedef struct group {
    __m256 pos[2], nv[2], tv[2], tin[2];
} group;

/*
 * Read and compute pair h of a group: the cursor's vertices a and b (b may
 * repeat a in a partial group).  `exact`: see load3_pair.
 */
MN_LANE void skin_pair(const mn_skin_streams *s, layout L, const cursor *at, size_t a,
                       size_t b, bool exact, group *g, size_t h)
{
    pair_cols c = blend_pair(s, L, at, a, b);
    size_t ps = STRIDE(L, s, position_stride, 3);
    g->pos[h] = xform_point(&c, load3_pair(at->p + a * ps, at->p + b * ps, exact));
    if (L.has_n) {
        size_t ns = STRIDE(L, s, normal_stride, 3);
        g->nv[h] = xform_dir(&c, load3_pair(at->n + a * ns, at->n + b * ns, exact));
    }
    if (L.has_t) {
        size_t ts = STRIDE(L, s, tangent_stride, 4);
        __m256 t = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(at->t + a * ts)),
                                        _mm_loadu_ps(at->t + b * ts), 1);
        g->tin[h] = t;
        g->tv[h] = xform_dir(&c, t);
    }
}

/*
 * Normalise, then write the outputs of vertices first .. first+n-1 (every
 * input already read).  `full`: n is 4; `stream`: a full group from
 * stream_first on, whose streamed outputs take non-temporal stores (same
 * values, other route).
 */
MN_LANE void finish_group(const mn_skin_streams *s, layout L, size_t first, size_t n,
                          bool full, bool stream, group *g)
{
    size_t ps = STRIDE(L, s, out_position_stride, 3);
    store_xyz_group(s->out_positions + first * ps, ps, g->pos[0], g->pos[1], n, L.packed && full,
                    stream && s->stream_positions);
    if (L.has_n) {
        normalize_pairs(&g->nv[0], &g->nv[1]);
        size_t ns = STRIDE(L, s, out_normal_stride, 3);
        store_xyz_group(s->out_normals + first * ns, ns, g->nv[0], g->nv[1], n, L.packed && full,
                        stream && s->stream_normals);
    }
    if (L.has_t) {
        normalize_pairs(&g->tv[0], &g->tv[1]);
        size_t ts = STRIDE(L, s, out_tangent_stride, 4);
        float *out = s->out_tangents + first * ts;
        __m128 t[4];
        for (size_t h = 0; h < 2; h++) { /* x y z skinned, w (handedness) from the input */
            __m256 v = _mm256_blend_ps(g->tv[h], g->tin[h], 0x88);
            t[2 * h] = _mm256_castps256_ps128(v);
            t[2 * h + 1] = _mm256_extractf128_ps(v, 1);
        }
        for (size_t b = 0; b < n; b++) {
            if (stream && s->stream_tangents)
                _mm_stream_ps(out + b * ts, t[b]);
            else
                _mm_storeu_ps(out + b * ts, t[b]);
        }
    }
}

/* `bytes` after p, as an address only (it may lie past the stream: see prefetch_ahead). */
MN_LANE const char *ahead_of(const void *p, size_t bytes)
{
    return (const char *)((uintptr_t)p + bytes);
}

/*
 * Ask for the inputs MN_SKIN_PREFETCH_AHEAD vertices after the cursor to be
 * brought into the cache: in a large call the loop then meets them there
 * instead of waiting for memory (that many vertices are about half a
 * microsecond of work, a few times the latency of memory).  A prefetch is a
 * hint that never faults, so addresses past the end of a stream are harmless
 * and need no clamp.
 */
MN_LANE void prefetch_ahead(const mn_skin_streams *s, layout L, const cursor *at)
{
    const size_t a = MN_SKIN_PREFETCH_AHEAD * sizeof(float);
    _mm_prefetch(ahead_of(at->p, a * STRIDE(L, s, position_stride, 3)), _MM_HINT_T0);
    if (L.has_n)
        _mm_prefetch(ahead_of(at->n, a * STRIDE(L, s, normal_stride, 3)), _MM_HINT_T0);
    if (L.has_t)
        _mm_prefetch(ahead_of(at->t, a * STRIDE(L, s, tangent_stride, 4)), _MM_HINT_T0);
    _mm_prefetch(ahead_of(at->j, MN_SKIN_PREFETCH_AHEAD * sizeof(uint16_t) * L.ic), _MM_HINT_T0);
    _mm_prefetch(ahead_of(at->w, a * L.ic), _MM_HINT_T0);
}

/*
 * Vertices first .. first+n-1 (1 ≤ n ≤ 4) as one group with exact reads,
 * stored vertex by vertex through the cache; a missing vertex of a pair
 * repeats the pair's first (computed, not stored).
 */
MN_LANE void skin_partial(const mn_skin_streams *s, layout L, size_t first, size_t n)
{
    group g;
    cursor at = cursor_at(s, L, first);
    skin_pair(s, L, &at, 0, n > 1 ? 1 : 0, true, &g, 0);
    if (n > 2)
        skin_pair(s, L, &at, 2, n > 3 ? 3 : 2, true, &g, 1);
    else
        g.pos[1] = g.nv[1] = g.tv[1] = g.tin[1] = _mm256_setzero_ps(); /* normalise to zeros */
    finish_group(s, L, first, n, false, false, &g);
}

/*
 * The full groups from vertex v to `end` (a multiple of 4 further, with at
 * least one vertex after it), software pipelined: a group's normalisation
 * and stores, a long dependency chain, are issued after the next group's
 * reads and blends, which do not depend on them.  In place stays safe: a
 * group's stores touch only its own vertices, all read before, and come
 * after the reads of the group that follows.
 */
MN_LANE void group_loop(const mn_skin_streams *s, layout L, size_t v, size_t end, bool stream)
{
    if (v == end)
        return;
    cursor at = cursor_at(s, L, v);
    group prev, g;
    skin_pair(s, L, &at, 0, 1, false, &prev, 0);
    skin_pair(s, L, &at, 2, 3, false, &prev, 1);
    for (v += 4; v < end; v += 4) {
        cursor_advance(&at, s, L, 4);
        if (s->prefetch)
            prefetch_ahead(s, L, &at);
        skin_pair(s, L, &at, 0, 1, false, &g, 0);
        skin_pair(s, L, &at, 2, 3, false, &g, 1);
        finish_group(s, L, v - 4, 4, true, stream, &prev);
        prev = g;
    }
    finish_group(s, L, v - 4, 4, true, stream, &prev);
}

/* The full groups from v to end (at least one vertex after them: their 16-byte reads stay inside the streams). */
MN_LANE void skin_groups(const mn_skin_streams *s, layout L, size_t v, size_t end, bool stream)
{
    if (stream) /* two instances: the loop tests no flag per group */
        group_loop(s, L, v, end, true);
    else
        group_loop(s, L, v, end, false);
}

#else
/* ISO C wants a translation unit to declare something. */
typedef int mn_skin_avx2_unused;
#endif
