/*
 * Skinning with WebAssembly SIMD (the web build; core/simd.h).  The SSE2
 * kernel ran there through emscripten's SSE2 headers at about three times
 * the native SSE2 kernel's time: its 1/sqrt estimate is a square root and a
 * division there (the Newton step after it wasted work), its transposes and
 * its vectorised joint indices became byte shuffles with constants built on
 * the fly, and the whole kernel, every specialisation inlined into one
 * function, reached the engine's optimising compiler seconds after the rest.
 * This kernel is written for what a browser's compiler makes of WebAssembly:
 *
 *   - each specialisation a function of its own (SKIN_SPLIT, skin_kernel.h),
 *     called through a table so that the linker's optimiser cannot inline
 *     them back into one;
 *   - the palette repacked once a call to its affine part, 12 floats a
 *     joint (pack_palette): the blend is then three multiplies and three
 *     adds an influence instead of four, and two shuffles a vertex turn the
 *     three blended vectors into the four columns (measured 0.73-0.78x the
 *     time of blending the four columns of the 16-float palette, in Node);
 *   - one vertex at a time from its reads to its position's store: the
 *     blended matrix as four column vectors (as skin_sse2.c), the four
 *     weights one load and four lane splats, each coordinate read straight
 *     into every lane (v128.load32_splat: no shuffle, and no read past a
 *     vertex's three floats, so no vertex needs to follow a group), the joint
 *     indices split in integer registers (matrices4);
 *   - positions stored as soon as they are computed, exactly 12 bytes (so in
 *     place stays safe: nothing after the vertex is touched);
 *   - normals and tangents held for four vertices and normalised together
 *     with the exact 1 / sqrt (WebAssembly has no estimate to refine: a
 *     square root and a division for four vertices), through shuffles that
 *     use every lane (lanes_wasm.h says why), in the middle of the next
 *     group (skin_groups).
 *
 * The arithmetic is skin.c's: the blend and the transforms add in the
 * reference's order and there is no fused multiply-add, so positions are the
 * reference's bits; a squared length adds x² + z² before y² (one rounding of
 * len² apart from the reference), so directions are within 2e-7 relative of
 * it, inside skinning's 1e-6 (tests/web/skin_check.c checks both in the web
 * build).  No streaming stores and no prefetch: WebAssembly has neither.
 *
 * How a call is specialised and walked is skin_kernel.h's, shared with the
 * other instruction sets; the entry point mni_skin_wasm (at the end) repacks
 * the palette and runs that dispatch over it.  A palette of more than
 * SKIN_AFFINE_JOINTS joints (1024; glTF skins have tens) runs the scalar
 * reference instead: its repacking would not fit the stack.
 */
#include "deform/internal.h"

#if MN_WITH_WASM

#include "core/lanes_wasm.h"

#include <string.h>

#define SKIN_READS_PAST 0
#define SKIN_STREAMS 0
#define SKIN_FENCE() ((void)0)
#define SKIN_SPLIT 1 /* each specialisation its own function, optimised as soon as it runs hot */
#define SKIN_OWN_ENTRY 1 /* mni_skin_wasm repacks the palette, then runs the dispatch */
#include "deform/skin_kernel.h"

/*
 * The palette's affine part, 12 floats a joint instead of 16, so that a
 * blend is three multiplies and three adds an influence instead of four
 * (row 3, which skinning ignores, is left out).  Column K, row r as cK.r:
 *
 *   a = c0.x c0.y c0.z c1.z     b = c1.x c1.y c2.x c2.y     d = c3.x c3.y c3.z c2.z
 *
 * a is column 0 and d column 3 as they stand (their lane 3 is another
 * element, which the kernel never stores: lanes_wasm.h's stores and
 * normalize4 ignore lane 3), and columns 1 and 2 are one two-source shuffle
 * each of the blended b with a or d (shufps).  Repacked once a call, on the
 * stack: a few hundred bytes for a character's skin, against thousands of
 * vertices.
 */
#define SKIN_AFFINE_FLOATS 12
/* The most joints repacked on the stack (48 KB); a larger palette runs the scalar reference. */
#define SKIN_AFFINE_JOINTS 1024

MN_LANE void pack_palette(const float *pal, size_t count, float *out)
{
    for (size_t j = 0; j < count; j++, pal += 16, out += SKIN_AFFINE_FLOATS) {
        vf c0 = vf_loadu(pal), c1 = vf_loadu(pal + 4), c2 = vf_loadu(pal + 8), c3 = vf_loadu(pal + 12);
        vf_storeu(out, wasm_i32x4_shuffle(c0, c1, 0, 1, 2, 6));
        vf_storeu(out + 4, wasm_i32x4_shuffle(c1, c2, 0, 1, 4, 5));
        vf_storeu(out + 8, wasm_i32x4_shuffle(c3, c2, 0, 1, 2, 6));
    }
}

typedef struct cols4 {
    vf c0, c1, c2, c3;
} cols4;

/*
 * Where the affine matrices of joints j[0..3] start, from one 8-byte read of
 * the four u16 indices split with shifts: integer work, which leaves the
 * vector pipes to the blend (widening them in a vector and taking the lanes
 * out measured slower), and four separate u16 reads invite the compiler to
 * do just that, through shuffles the engine spells slowly.
 */
MN_LANE void matrices4(const float *pal, const uint16_t *j, const float *m[4])
{
    uint64_t all;
    memcpy(&all, j, sizeof all);
    m[0] = pal + SKIN_AFFINE_FLOATS * (size_t)(all & 0xFFFFu);
    m[1] = pal + SKIN_AFFINE_FLOATS * (size_t)((all >> 16) & 0xFFFFu);
    m[2] = pal + SKIN_AFFINE_FLOATS * (size_t)((all >> 32) & 0xFFFFu);
    m[3] = pal + SKIN_AFFINE_FLOATS * (size_t)(all >> 48);
}

/*
 * M = Σ w_k · affine[j_k] in the reference's order (each element a multiply,
 * then one add an influence), unpacked into its four columns (lanes 0-2;
 * lane 3 holds another element).
 */
MN_LANE cols4 blend(const float *pal, const uint16_t *j, const float *w, size_t ic)
{
    const float *mk[8];
    bool fixed = ic == 4 || ic == 8; /* the constant counts: their matrices four at a time */
    if (fixed)
        matrices4(pal, j, mk);
    if (ic == 8)
        matrices4(pal, j + 4, mk + 4);
    const float *m = fixed ? mk[0] : pal + SKIN_AFFINE_FLOATS * (size_t)j[0];
    /* four weights: one load and four shuffles (four splatting loads cost the engine more) */
    vf w4 = ic == 4 ? vf_loadu(w) : vf_zero();
    vf wk = ic == 4 ? VF_SPLAT(w4, 0) : vf_load1(w);
    vf a = vf_mul(vf_loadu(m), wk), b = vf_mul(vf_loadu(m + 4), wk), d = vf_mul(vf_loadu(m + 8), wk);
    for (size_t k = 1; k < ic; k++) {
        m = fixed ? mk[k] : pal + SKIN_AFFINE_FLOATS * (size_t)j[k];
        if (ic == 4)
            wk = k == 1 ? VF_SPLAT(w4, 1) : k == 2 ? VF_SPLAT(w4, 2) : VF_SPLAT(w4, 3);
        else
            wk = vf_load1(w + k);
        a = vf_add(a, vf_mul(vf_loadu(m), wk));
        b = vf_add(b, vf_mul(vf_loadu(m + 4), wk));
        d = vf_add(d, vf_mul(vf_loadu(m + 8), wk));
    }
    cols4 c;
    c.c0 = a;
    c.c1 = wasm_i32x4_shuffle(b, a, 0, 1, 7, 7);
    c.c2 = wasm_i32x4_shuffle(b, d, 2, 3, 7, 7);
    c.c3 = d;
    return c;
}

/* (c0·x + c1·y) + c2·z for the x y z at d. */
MN_LANE vf apply3(const cols4 *c, const float *d)
{
    return vf_add(vf_add(vf_mul(c->c0, vf_load1(d)), vf_mul(c->c1, vf_load1(d + 1))),
                  vf_mul(c->c2, vf_load1(d + 2)));
}

/*
 * v[i] = v[i] / |v[i].xyz| for four vectors (lane 3 ignored), zero when the
 * squared length is not above zero, as the reference: 1 / sqrt(len²) rounded
 * twice, as sqrtf then a division.  The squares' lane 3 is zeroed, so that
 * the two transposing steps use every lane: (x0 x1 y0 y1) + (z0 z1 0 0),
 * then the halves of that and its pair for vertices 2 and 3 added.
 */
MN_LANE void normalize4(vf v[4])
{
    vf zero = vf_zero();
    vf s0 = vf_xyz_w(vf_mul(v[0], v[0]), zero), s1 = vf_xyz_w(vf_mul(v[1], v[1]), zero);
    vf s2 = vf_xyz_w(vf_mul(v[2], v[2]), zero), s3 = vf_xyz_w(vf_mul(v[3], v[3]), zero);
    vf a = vf_add(vf_unpacklo(s0, s1), vf_unpackhi(s0, s1)); /* x+z: 0 1, y: 0 1 */
    vf b = vf_add(vf_unpacklo(s2, s3), vf_unpackhi(s2, s3)); /* the same for 2 3 */
    vf len2 = vf_add(vf_lohalves(a, b), vf_hihalves(a, b));
    vf inv = vf_and(vf_div(vf_set1(1.0f), vf_sqrt(len2)), vf_gt(len2, zero));
    v[0] = vf_mul(v[0], VF_SPLAT(inv, 0));
    v[1] = vf_mul(v[1], VF_SPLAT(inv, 1));
    v[2] = vf_mul(v[2], VF_SPLAT(inv, 2));
    v[3] = vf_mul(v[3], VF_SPLAT(inv, 3));
}

/* What a group of four vertices carries from its reads to its writes: the directions. */
typedef struct group {
    vf nv[4], tv[4], tw[4];
} group;

/*
 * Vertex v0 + b: its position skinned and stored, its directions computed
 * into slot b of g (stored by finish_group, once the group has read them
 * all).  Addresses are the group's plus b strides, which packed streams make
 * constant offsets of one address a group.
 */
MN_LANE void skin_vertex(const mn_skin_streams *s, layout L, size_t v0, size_t b, group *g)
{
    size_t ic = L.ic;
    cols4 c = blend(s->palette, s->joints + v0 * ic + b * ic, s->weights + v0 * ic + b * ic, ic);
    if (L.has_n) {
        size_t ns = STRIDE(L, s, normal_stride, 3);
        g->nv[b] = apply3(&c, s->normals + v0 * ns + b * ns);
    }
    if (L.has_t) {
        size_t ts = STRIDE(L, s, tangent_stride, 4);
        const float *q = s->tangents + v0 * ts + b * ts;
        g->tw[b] = vf_loadu(q);
        g->tv[b] = apply3(&c, q);
    }
    size_t ps = STRIDE(L, s, position_stride, 3), os = STRIDE(L, s, out_position_stride, 3);
    vf p = vf_add(apply3(&c, s->positions + v0 * ps + b * ps), c.c3);
    vf_store3(s->out_positions + v0 * os + b * os, p);
}

/*
 * Store x y z of vertex b of a group.  In a packed stream of 3 floats a full
 * group stores vertices 0..2 16 bytes at a time, the fourth lane landing on
 * the next vertex's x, which the group has already read and which that
 * vertex's own store then overwrites; the last stores exactly 12 bytes.
 */
MN_LANE void store_xyz(float *out, vf v, bool packed_full, size_t b)
{
    if (packed_full && b < 3)
        vf_storeu(out, v);
    else
        vf_store3(out, v);
}

/* Normalise and store the directions of vertices first .. first+n-1 (every input read). */
MN_LANE void finish_group(const mn_skin_streams *s, layout L, size_t first, size_t n, bool full,
                          group *g)
{
    if (L.has_n) {
        normalize4(g->nv);
        size_t ns = STRIDE(L, s, out_normal_stride, 3);
        for (size_t b = 0; b < n; b++)
            store_xyz(s->out_normals + (first + b) * ns, g->nv[b], L.packed && full, b);
    }
    if (L.has_t) {
        normalize4(g->tv);
        size_t ts = STRIDE(L, s, out_tangent_stride, 4);
        for (size_t b = 0; b < n; b++) /* x y z skinned, w (handedness) from the input */
            vf_storeu(s->out_tangents + (first + b) * ts, vf_xyz_w(g->tv[b], g->tw[b]));
    }
}

/* Vertices first .. first+n-1 (1 to 3) as one group. */
MN_LANE void skin_partial(const mn_skin_streams *s, layout L, size_t first, size_t n)
{
    group g;
    for (size_t b = 0; b < 4; b++) /* unused lanes hold zeros, which normalise to zeros */
        g.nv[b] = g.tv[b] = g.tw[b] = vf_zero();
    for (size_t b = 0; b < n; b++)
        skin_vertex(s, L, first, b, &g);
    finish_group(s, L, first, n, false, &g);
}

/* The full groups from v to end (a multiple of 4 further on), four a step. */
/*
 * The full groups from v to end (a multiple of 4 further on), four a step,
 * each group's directions normalised and stored in the middle of the next
 * group's blends: the square root and division wait on the group's last
 * vertex, and placed there they overlap work that does not wait on them
 * (measured 7 % faster than finishing each group at once).  In place stays
 * safe: a group writes only its own directions, all read before.
 */
MN_LANE void skin_groups(const mn_skin_streams *s, layout L, size_t v, size_t end, bool stream)
{
    (void)stream; /* SKIN_STREAMS is 0: never asked */
    if (v >= end)
        return;
    group prev;
    for (size_t b = 0; b < 4; b++) /* four calls: the group's directions stay in registers */
        skin_vertex(s, L, v, b, &prev);
    size_t pv = v;
    for (v += 4; v < end; v += 4) {
        group g;
        skin_vertex(s, L, v, 0, &g);
        skin_vertex(s, L, v, 1, &g);
        finish_group(s, L, pv, 4, true, &prev);
        skin_vertex(s, L, v, 2, &g);
        skin_vertex(s, L, v, 3, &g);
        prev = g;
        pv = v;
    }
    finish_group(s, L, pv, 4, true, &prev);
}

/*
 * The entry point: the palette repacked (pack_palette), then skin_kernel.h's
 * dispatch over it.
 */
MN_KERNEL void MN_ISA(mni_skin)(const mn_skin_streams *s)
{
    if (s->palette_count > SKIN_AFFINE_JOINTS) {
        mni_skin_scalar(s);
        return;
    }
    float affine[SKIN_AFFINE_JOINTS * SKIN_AFFINE_FLOATS];
    pack_palette(s->palette, s->palette_count, affine);
    mn_skin_streams local = *s;
    local.palette = affine;
    skin_dispatch(&local);
}

#else
/* ISO C wants a translation unit to declare something. */
typedef int mn_skin_wasm_unused;
#endif
