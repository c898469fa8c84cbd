/*
 * Skinning with AArch64 Advanced SIMD (NEON).  Every AArch64 CPU has it, so
 * an AArch64 build runs this kernel without asking the CPU (mn_simd_detect
 * says MN_SIMD_NEON there).
 * 32-bit ARM is left to the scalar reference: its NEON has no vector divide
 * or square root (only estimates that need refining steps), flushes
 * subnormals to zero, and lacks the AArch64 intrinsics used here.
 *
 * The shape is the SSE2 kernel's (see skin_sse2.c): per vertex, the blended
 * matrix held as four column vectors (the palette's layout, so an influence
 * is four loads and four multiply-adds by the weight, no shuffle); each
 * stream is then three multiply-adds by the vertex's x, y, z.  Normals and
 * tangents are normalised four vertices at once: the squared components are
 * transposed into x², y², z² rows, so one square root and one division serve
 * four vertices.  The multiply-adds are fused (FMLA) and round once where the
 * reference rounds twice, so results agree with it within float rounding
 * (1e-6 relative), not bit for bit, as the AVX2+FMA kernel does.
 *
 * Loads touch only the floats of their vertex (3 for positions and normals,
 * 4 for tangents), so nothing is read past the end of a stream.  Outputs are
 * written once a group of four vertices has been read entirely, which makes
 * in place safe; a full group in a packed 3-float stream is rearranged into
 * its 48 bytes and written as three 16-byte stores (pack_xyz4); any other
 * vertex gets stores that cover exactly its x y z (or its four tangent
 * floats), so nothing outside a vertex's own floats is ever written.
 *
 * Large calls prefetch their inputs ahead, as the x86 kernels do.  Their
 * outputs are stored through the cache even where skin.c planned streaming
 * (stream_positions and the rest are ignored): ACLE offers no non-temporal
 * store (STNP would take inline assembly), and ARM cores from the
 * Cortex-A53 on switch to write-streaming by themselves when they see whole
 * cache lines written in sequence, which is what this loop does.  The values
 * would be the same either way.
 *
 * How a call is specialised and walked, and the entry point mni_skin_neon,
 * are skin_kernel.h's, shared with the other instruction sets.
 */
#include "deform/internal.h"

#if MN_WITH_NEON

#include "core/lanes_neon.h"

#define SKIN_READS_PAST 0
#define SKIN_STREAMS 0 /* see above: the streaming plan is ignored */
#define SKIN_FENCE() ((void)0)
#include "deform/skin_kernel.h"

typedef struct cols4 {
    float32x4_t c0, c1, c2, c3;
} cols4;

/* M = Σ w_k · palette[j_k], column by column (row 3 computed and ignored). */
MN_LANE cols4 blend(const float *pal, const uint16_t *j, const float *w, size_t ic)
{
    const float *m = pal + 16 * (size_t)j[0];
    cols4 c;
    c.c0 = vmulq_n_f32(vld1q_f32(m), w[0]);
    c.c1 = vmulq_n_f32(vld1q_f32(m + 4), w[0]);
    c.c2 = vmulq_n_f32(vld1q_f32(m + 8), w[0]);
    c.c3 = vmulq_n_f32(vld1q_f32(m + 12), w[0]);
    for (size_t k = 1; k < ic; k++) {
        m = pal + 16 * (size_t)j[k];
        c.c0 = vfmaq_n_f32(c.c0, vld1q_f32(m), w[k]);
        c.c1 = vfmaq_n_f32(c.c1, vld1q_f32(m + 4), w[k]);
        c.c2 = vfmaq_n_f32(c.c2, vld1q_f32(m + 8), w[k]);
        c.c3 = vfmaq_n_f32(c.c3, vld1q_f32(m + 12), w[k]);
    }
    return c;
}

/* c0·x + c1·y + c2·z: the 3x3 part applied to (x, y, z). */
MN_LANE float32x4_t apply3(const cols4 *c, float x, float y, float z)
{
    return vfmaq_n_f32(vfmaq_n_f32(vmulq_n_f32(c->c0, x), c->c1, y), c->c2, z);
}

/* c0·x + c1·y + c2·z + c3: the affine part applied to the point (x, y, z). */
MN_LANE float32x4_t apply_point(const cols4 *c, float x, float y, float z)
{
    return vfmaq_n_f32(vfmaq_n_f32(vfmaq_n_f32(c->c3, c->c0, x), c->c1, y), c->c2, z);
}

/* Store lanes 0..2 (x y z) and nothing else. */
MN_LANE void store3(float *out, float32x4_t v)
{
    vst1_f32(out, vget_low_f32(v));
    vst1q_lane_f32(out + 2, v, 2);
}

/*
 * Four vertices' x y z into a packed 3-float stream: 48 bytes as three
 * 16-byte stores (x0 y0 z0 x1 | y1 z1 x2 y2 | z2 x3 y3 z3).  Lane inserts
 * and one extract: fewer stores than writing the vertices one by one.
 */
MN_LANE void pack_xyz4(float *out, const float32x4_t v[4])
{
    float32x4_t a = vcopyq_laneq_f32(v[0], 3, v[1], 0);                 /* x0 y0 z0 x1 */
    float32x4_t b = vcombine_f32(vget_low_f32(vextq_f32(v[1], v[1], 1)),
                                 vget_low_f32(v[2]));                    /* y1 z1 x2 y2 */
    float32x4_t d = vcopyq_laneq_f32(vextq_f32(v[3], v[3], 3), 0, v[2], 2); /* z2 x3 y3 z3 */
    vst1q_f32(out, a);
    vst1q_f32(out + 4, b);
    vst1q_f32(out + 8, d);
}

/* The low (zip_lo64) or high (zip_hi64) 64-bit halves of a and b side by side. */
MN_LANE float32x4_t zip_lo64(float32x4_t a, float32x4_t b)
{
    return vreinterpretq_f32_f64(vzip1q_f64(vreinterpretq_f64_f32(a), vreinterpretq_f64_f32(b)));
}

MN_LANE float32x4_t zip_hi64(float32x4_t a, float32x4_t b)
{
    return vreinterpretq_f32_f64(vzip2q_f64(vreinterpretq_f64_f32(a), vreinterpretq_f64_f32(b)));
}

/*
 * v[i] = v[i] / |v[i].xyz| for four vectors (lane 3 ignored), zero when the
 * squared length is zero.  len² = (x² + y²) + z², as the reference adds.
 */
MN_LANE void normalize4(float32x4_t v[4])
{
    float32x4_t s0 = vmulq_f32(v[0], v[0]), s1 = vmulq_f32(v[1], v[1]);
    float32x4_t s2 = vmulq_f32(v[2], v[2]), s3 = vmulq_f32(v[3], v[3]);
    float32x4_t t0 = vzip1q_f32(s0, s1); /* x0 x1 y0 y1 */
    float32x4_t t1 = vzip1q_f32(s2, s3); /* x2 x3 y2 y3 */
    float32x4_t t2 = vzip2q_f32(s0, s1); /* z0 z1 .. .. */
    float32x4_t t3 = vzip2q_f32(s2, s3); /* z2 z3 .. .. */
    float32x4_t xx = zip_lo64(t0, t1);
    float32x4_t yy = zip_hi64(t0, t1);
    float32x4_t zz = zip_lo64(t2, t3);
    float32x4_t len2 = vaddq_f32(vaddq_f32(xx, yy), zz);
    float32x4_t inv = vdivq_f32(vdupq_n_f32(1.0f), vsqrtq_f32(len2));
    /* 1/sqrt(0) is infinity: keep only the lanes whose length is positive */
    uint32x4_t positive = vcgtq_f32(len2, vdupq_n_f32(0.0f));
    inv = vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(inv), positive));
    v[0] = vmulq_laneq_f32(v[0], inv, 0);
    v[1] = vmulq_laneq_f32(v[1], inv, 1);
    v[2] = vmulq_laneq_f32(v[2], inv, 2);
    v[3] = vmulq_laneq_f32(v[3], inv, 3);
}

/* What a group of four vertices carries from its reads to its writes. */
typedef struct group {
    float32x4_t pos[4], nv[4], tv[4], tw[4];
} group;

/* Read and compute vertex v into slot b of g (nothing is written to the outputs yet). */
MN_LANE void skin_vertex(const mn_skin_streams *s, layout L, size_t v, group *g, size_t b)
{
    cols4 c = blend(s->palette, s->joints + v * L.ic, s->weights + v * L.ic, L.ic);
    const float *p = s->positions + v * STRIDE(L, s, position_stride, 3);
    g->pos[b] = apply_point(&c, p[0], p[1], p[2]);
    if (L.has_n) {
        const float *q = s->normals + v * STRIDE(L, s, normal_stride, 3);
        g->nv[b] = apply3(&c, q[0], q[1], q[2]);
    }
    if (L.has_t) {
        const float *q = s->tangents + v * STRIDE(L, s, tangent_stride, 4);
        g->tw[b] = vld1q_f32(q);
        g->tv[b] = apply3(&c, vgetq_lane_f32(g->tw[b], 0), vgetq_lane_f32(g->tw[b], 1),
                          vgetq_lane_f32(g->tw[b], 2));
    }
}

/* x y z of vertices first .. first+n-1 into a 3-float stream `stride` floats apart. */
MN_LANE void store_xyz_group(float *out, size_t stride, size_t first, size_t n,
                             bool packed_full, const float32x4_t v[4])
{
    if (packed_full) {
        pack_xyz4(out + first * 3, v);
        return;
    }
    for (size_t b = 0; b < n; b++)
        store3(out + (first + b) * stride, v[b]);
}

/* Normalise, then write the outputs of vertices first .. first+n-1 (every input already read). */
MN_LANE void finish_group(const mn_skin_streams *s, layout L, size_t first, size_t n, bool full,
                          group *g)
{
    bool packed_full = L.packed && full;
    store_xyz_group(s->out_positions, STRIDE(L, s, out_position_stride, 3), first, n, packed_full,
                    g->pos);
    if (L.has_n) {
        normalize4(g->nv);
        store_xyz_group(s->out_normals, STRIDE(L, s, out_normal_stride, 3), first, n, packed_full,
                        g->nv);
    }
    if (L.has_t) {
        normalize4(g->tv);
        size_t ts = STRIDE(L, s, out_tangent_stride, 4);
        for (size_t b = 0; b < n; b++) /* x y z skinned, w (handedness) from the input */
            vst1q_f32(s->out_tangents + (first + b) * ts,
                      vcopyq_laneq_f32(g->tv[b], 3, g->tw[b], 3));
    }
}

/*
 * Ask for the inputs of vertex v (clamped to the last) to be brought into the
 * cache, MN_SKIN_PREFETCH_AHEAD vertices before the loop needs them, as the
 * x86 kernels do in large calls (PRFM PLDL1KEEP).  A hint: it never faults
 * and changes nothing.
 */
MN_LANE void prefetch_vertex(const mn_skin_streams *s, layout L, size_t v)
{
    if (v >= s->count)
        v = s->count - 1;
    __builtin_prefetch(s->positions + v * STRIDE(L, s, position_stride, 3), 0, 3);
    if (L.has_n)
        __builtin_prefetch(s->normals + v * STRIDE(L, s, normal_stride, 3), 0, 3);
    if (L.has_t)
        __builtin_prefetch(s->tangents + v * STRIDE(L, s, tangent_stride, 4), 0, 3);
    __builtin_prefetch(s->joints + v * L.ic, 0, 3);
    __builtin_prefetch(s->weights + v * L.ic, 0, 3);
}

/* The full groups from vertex v to end (a multiple of 4 further), four vertices a step. */
MN_LANE void skin_groups(const mn_skin_streams *s, layout L, size_t v, size_t end, bool stream)
{
    (void)stream; /* SKIN_STREAMS is 0 */
    group g;
    for (; v < end; v += 4) {
        if (s->prefetch)
            prefetch_vertex(s, L, v + MN_SKIN_PREFETCH_AHEAD);
        /* four calls, not a loop: the group's vectors stay in registers */
        skin_vertex(s, L, v, &g, 0);
        skin_vertex(s, L, v + 1, &g, 1);
        skin_vertex(s, L, v + 2, &g, 2);
        skin_vertex(s, L, v + 3, &g, 3);
        finish_group(s, L, v, 4, true, &g);
    }
}

/* Vertices first .. first+n-1 (n < 4) as one partial group. */
MN_LANE void skin_partial(const mn_skin_streams *s, layout L, size_t first, size_t n)
{
    group g;
    for (size_t b = 0; b < 4; b++) /* unused lanes hold zeros, which normalise to zeros */
        g.pos[b] = g.nv[b] = g.tv[b] = g.tw[b] = vdupq_n_f32(0.0f);
    for (size_t b = 0; b < n; b++)
        skin_vertex(s, L, first + b, &g, b);
    finish_group(s, L, first, n, false, &g);
}

#else
/* ISO C wants a translation unit to declare something. */
typedef int mn_skin_neon_unused;
#endif
