/*
 * The dual-quaternion skinning kernel, written once over the lane layer
 * (core/simd.h, the convention) for SSE2 and AVX2: VF_W vertices a group,
 * one vertex a lane, every step of dual_quat.c's reference in its order
 * (vf_madd where the reference adds a product, so SSE2 gives its bits and
 * AVX2 fuses those; AVX2 also normalises directions its own way, see
 * dq_rotate_unit).  Its entry point is MN_ISA(mni_dq_skin).
 *
 * A group's blend is the instruction set's (DQ_BLEND_ISA, below): vertex
 * by vertex, a joint's parts whole, then transposed into one register a
 * field.  Its positions, normals and tangents are gathered lane by lane with
 * DQ_LOAD4 (four floats at each lane's address, transposed), or, where the
 * file defines DQ_LOAD3_PACKED, a full group of a packed 3-float stream as
 * its contiguous floats.  A 3-float stream's lane-by-lane load also reads
 * the float after the vertex (the next vertex's x, or one of the stride's
 * gap), so the full groups stop before the last vertex; the group that ends
 * the call (1 to VF_W vertices) runs the same code on copies of its inputs
 * in a buffer of 4 floats a vertex, and copies exactly its outputs back.
 * Every vertex so gets the same bits wherever it falls.  A large call
 * prefetches its inputs as linear blending does (mn_skin_streams.prefetch).
 *
 * The including file defines, after its lane header and before this one:
 *   DQ_LOAD4(p, v), DQ_STORE4(p, v)  four floats at each lane's address,
 *                    to and from rows v[0..3];
 *   DQ_STORE3(p, v, packed)  store lanes 0 .. VF_W-1 of v[0..2] (x y z) at
 *                    p[0] .. p[VF_W-1] in lane order, three floats each;
 *                    with `packed` (a 3-float stride) a lane may write a
 *                    fourth float, the next lane's x, which that lane's
 *                    own store then overwrites; the last lane writes three;
 *   DQ_BLEND_ISA     its blend (declared below, defined after the include);
 * and optionally DQ_PACKED3 with DQ_LOAD3_PACKED and DQ_STORE3_PACKED, and
 * DQ_NORMALISE_INPUT (see dq_rotate_unit).
 * Outputs are written once a group's inputs are all read, and a group
 * writes only its own vertices' floats, so in place is safe.
 */
#ifndef MN_DEFORM_DUAL_QUAT_KERNEL_H
#define MN_DEFORM_DUAL_QUAT_KERNEL_H

#define DQ MN_SKIN_DQ_FLOATS

#ifndef DQ_NORMALISE_INPUT
#define DQ_NORMALISE_INPUT 0
#endif

/*
 * DQ_PACKED3 (1 where the including file defines DQ_LOAD3_PACKED(p, v) and
 * DQ_STORE3_PACKED(p, v): a full group's 3·VF_W contiguous floats to and
 * from rows v[0..2]) reads and writes a packed 3-float stream whole instead
 * of lane by lane.
 */
#ifndef DQ_PACKED3
#define DQ_PACKED3 0
#define DQ_LOAD3_PACKED(p, v) ((void)(p), (void)(v))
#define DQ_STORE3_PACKED(p, v) ((void)(p), (void)(v))
#endif

/*
 * Loops over lanes and components unrolled whole: the pointer and vector
 * arrays they fill then live in registers instead of on the stack.
 */
#define DQ_UNROLL _Pragma("GCC unroll 8")

/*
 * A call's shape: which optional streams, influences a vertex (a multiple of
 * 4), `packed` (every stream at its default stride: the strides are then
 * compile-time constants, and each lane's address a constant offset), and
 * `flags`: the call's hemisphere tests (DQ_FLIPS) and scale blend
 * (DQ_SCALES) as constants, or DQ_FLAGS_RUNTIME to read them from the call
 * (the loop then tests them vertex by vertex).
 */
typedef struct dq_layout {
    bool has_n, has_t, packed;
    size_t ic;
    int flags;
} dq_layout;

#define DQ_FLIPS 1
#define DQ_SCALES 2
#define DQ_FLAGS_RUNTIME (-1)

/*
 * Where a group reads and writes: lane l's vertex is `l` (or 0 from `lanes`
 * on: a short group's spare lanes repeat its first vertex) at each stream's
 * start plus that many strides (floats).
 */
typedef struct dq_view {
    size_t lanes;
    const uint16_t *j;
    const float *w, *p, *n, *t;
    float *op, *on, *ot;
    size_t ps, ns, ts, ops, ons, ots;
} dq_view;

/* A stride of view V under layout L: the default when packed. */
#define DQ_STRIDE(L, V, field, dflt) ((L).packed ? (size_t)(dflt) : (V)->field)

MN_LANE size_t dq_lane(const dq_view *v, int l)
{
    return (size_t)l < v->lanes ? (size_t)l : 0;
}

/* The blend of a group: real part r, dual part d, scale sc. */
typedef struct dq_blend {
    vf r[4], d[4], sc;
} dq_blend;

/*
 * The instruction set's blend (defined after this header, in its file):
 * Σ ±w_k · dq[j_k] of each lane's vertex, the sign from the first influence's
 * hemisphere when `flips`, and Σ w_k · scale[j_k] when `blend_scale`.
 */
MN_LANE dq_blend DQ_BLEND_ISA(const float *dqs, const dq_view *g, size_t ic, bool blend_scale,
                              bool flips);

/* v rotated by the unnormalised quaternion r, k = 2 / |r|² (dual_quat.c's rotate_scalar). */
MN_LANE void dq_rotate(const vf r[4], vf k, const vf v[3], vf out[3])
{
    vf u0 = vf_madd(r[3], v[0], vf_sub(vf_mul(r[1], v[2]), vf_mul(r[2], v[1])));
    vf u1 = vf_madd(r[3], v[1], vf_sub(vf_mul(r[2], v[0]), vf_mul(r[0], v[2])));
    vf u2 = vf_madd(r[3], v[2], vf_sub(vf_mul(r[0], v[1]), vf_mul(r[1], v[0])));
    vf c0 = vf_sub(vf_mul(r[1], u2), vf_mul(r[2], u1));
    vf c1 = vf_sub(vf_mul(r[2], u0), vf_mul(r[0], u2));
    vf c2 = vf_sub(vf_mul(r[0], u1), vf_mul(r[1], u0));
    out[0] = vf_madd(k, c0, v[0]);
    out[1] = vf_madd(k, c1, v[1]);
    out[2] = vf_madd(k, c2, v[2]);
}

/*
 * 1 / |v|, zero where |v|² is not positive: 1 / sqrt where the kernel gives
 * the reference's bits; with DQ_NORMALISE_INPUT the estimate rsqrt and one
 * Newton step, y·(1.5 − ½x·y²), within 3e-7 relative (the estimate is 12
 * bits, the step squares its error) and far cheaper than a square root and
 * a division.
 */
MN_LANE vf dq_inv_length(const vf v[3])
{
    vf len2 = vf_madd(v[2], v[2], vf_madd(v[1], v[1], vf_mul(v[0], v[0])));
    vf zero = vf_zero();
#if DQ_NORMALISE_INPUT
    vf y = vf_rsqrt(len2), hx = vf_mul(vf_set1(0.5f), len2);
    vf inv = vf_mul(y, vf_sub(vf_set1(1.5f), vf_mul(vf_mul(hx, y), y)));
#else
    vf inv = vf_div(vf_set1(1.0f), vf_sqrt(len2));
#endif
    return vf_sel_gt(len2, zero, inv, zero);
}

/*
 * A direction v rotated by r (k = 2 / |r|²) and normalised.  With
 * DQ_NORMALISE_INPUT (defined 1 by the including file), the length is the
 * input's: a rotation keeps lengths, so rot(v) / |rot(v)| is rot(v) / |v|
 * within float rounding, and 1 / |v| then depends on the load alone, not on
 * the blend: the square root and the division leave the long chain of
 * dependent steps that bounds a group.  Otherwise (SSE2, which gives the
 * reference's bits) the rotated vector's own length, as the reference.
 */
MN_LANE void dq_rotate_unit(const vf r[4], vf k, const vf v[3], vf out[3])
{
#if DQ_NORMALISE_INPUT
    vf inv = dq_inv_length(v);
    dq_rotate(r, k, v, out);
#else
    dq_rotate(r, k, v, out);
    vf inv = dq_inv_length(out);
#endif
    DQ_UNROLL
    for (int c = 0; c < 3; c++)
        out[c] = vf_mul(out[c], inv);
}

/* Lane l's address in a stream starting at `base`, `stride` floats a vertex. */
#define DQ_AT(base, stride) ((base) + dq_lane(g, l) * (stride))

/*
 * One group: read every lane's inputs, then write its outputs.  `exact`: a
 * short group's copies, whose 3-float outputs take 12-byte stores only.
 */
MN_LANE void dq_group(const mn_dq_call *c, const dq_view *g, dq_layout L, bool exact)
{
    bool flips = L.flags == DQ_FLAGS_RUNTIME ? !c->no_flips : (L.flags & DQ_FLIPS) != 0;
    bool blend_scale = L.flags == DQ_FLAGS_RUNTIME ? c->blend_scale : (L.flags & DQ_SCALES) != 0;
    dq_blend b = DQ_BLEND_ISA(c->s.palette, g, L.ic, blend_scale, flips);
    vf sc = blend_scale ? b.sc : vf_set1(c->scale);
    const vf *r = b.r, *d = b.d;

    vf n2 = vf_madd(r[3], r[3], vf_madd(r[2], r[2], vf_madd(r[1], r[1], vf_mul(r[0], r[0]))));
    vf zero = vf_zero();
    vf k2 = vf_sel_gt(n2, zero, vf_div(vf_set1(2.0f), n2), zero);
    vf t0 = vf_mul(k2, vf_add(vf_sub(vf_mul(r[3], d[0]), vf_mul(d[3], r[0])),
                              vf_sub(vf_mul(r[1], d[2]), vf_mul(r[2], d[1]))));
    vf t1 = vf_mul(k2, vf_add(vf_sub(vf_mul(r[3], d[1]), vf_mul(d[3], r[1])),
                              vf_sub(vf_mul(r[2], d[0]), vf_mul(r[0], d[2]))));
    vf t2 = vf_mul(k2, vf_add(vf_sub(vf_mul(r[3], d[2]), vf_mul(d[3], r[2])),
                              vf_sub(vf_mul(r[0], d[1]), vf_mul(r[1], d[0]))));

    size_t ps = DQ_STRIDE(L, g, ps, 3), ns = DQ_STRIDE(L, g, ns, 3), ts = DQ_STRIDE(L, g, ts, 4);
    size_t ops = DQ_STRIDE(L, g, ops, 3), ons = DQ_STRIDE(L, g, ons, 3);
    size_t ots = DQ_STRIDE(L, g, ots, 4);
    /* each lane's pointers made where they are used: kept, they would not fit in registers */
    vf P[4], N[4], T[4], out[3];
    if (DQ_PACKED3 && L.packed && !exact) {
        DQ_LOAD3_PACKED(g->p, P);
    } else {
        const float *pp[VF_W];
        DQ_UNROLL
        for (int l = 0; l < VF_W; l++)
            pp[l] = DQ_AT(g->p, ps);
        DQ_LOAD4(pp, P);
    }
    if (DQ_PACKED3 && L.has_n && L.packed && !exact) {
        DQ_LOAD3_PACKED(g->n, N);
    } else if (L.has_n) {
        const float *np[VF_W];
        DQ_UNROLL
        for (int l = 0; l < VF_W; l++)
            np[l] = DQ_AT(g->n, ns);
        DQ_LOAD4(np, N);
    }
    if (L.has_t) {
        const float *tp[VF_W];
        DQ_UNROLL
        for (int l = 0; l < VF_W; l++)
            tp[l] = DQ_AT(g->t, ts);
        DQ_LOAD4(tp, T);
    }

    vf ps3[3] = {vf_mul(sc, P[0]), vf_mul(sc, P[1]), vf_mul(sc, P[2])};
    dq_rotate(r, k2, ps3, out);
    out[0] = vf_add(out[0], t0);
    out[1] = vf_add(out[1], t1);
    out[2] = vf_add(out[2], t2);
    if (DQ_PACKED3 && L.packed && !exact) {
        DQ_STORE3_PACKED(g->op, out);
    } else {
        float *opp[VF_W];
        DQ_UNROLL
        for (int l = 0; l < VF_W; l++)
            opp[l] = DQ_AT(g->op, ops);
        DQ_STORE3(opp, out, !exact && ops == 3);
    }
    if (L.has_n) {
        dq_rotate_unit(r, k2, N, out);
        if (DQ_PACKED3 && L.packed && !exact) {
            DQ_STORE3_PACKED(g->on, out);
        } else {
            float *onp[VF_W];
            DQ_UNROLL
            for (int l = 0; l < VF_W; l++)
                onp[l] = DQ_AT(g->on, ons);
            DQ_STORE3(onp, out, !exact && ons == 3);
        }
    }
    if (L.has_t) {
        vf o4[4];
        dq_rotate_unit(r, k2, T, o4);
        o4[3] = T[3]; /* handedness from the input */
        float *otp[VF_W];
        DQ_UNROLL
        for (int l = 0; l < VF_W; l++)
            otp[l] = DQ_AT(g->ot, ots);
        DQ_STORE4(otp, o4);
    }
}

#undef DQ_AT

/* The full group at vertex v, in the call's own streams. */
MN_LANE dq_view dq_view_at(const mn_skin_streams *s, dq_layout L, size_t v)
{
    dq_view g;
    g.lanes = VF_W;
    g.j = s->joints + v * L.ic;
    g.w = s->weights + v * L.ic;
    g.ps = s->position_stride, g.ns = s->normal_stride, g.ts = s->tangent_stride;
    g.ops = s->out_position_stride, g.ons = s->out_normal_stride, g.ots = s->out_tangent_stride;
    g.p = s->positions + v * DQ_STRIDE(L, &g, ps, 3);
    g.op = s->out_positions + v * DQ_STRIDE(L, &g, ops, 3);
    g.n = L.has_n ? s->normals + v * DQ_STRIDE(L, &g, ns, 3) : NULL;
    g.on = L.has_n ? s->out_normals + v * DQ_STRIDE(L, &g, ons, 3) : NULL;
    g.t = L.has_t ? s->tangents + v * DQ_STRIDE(L, &g, ts, 4) : NULL;
    g.ot = L.has_t ? s->out_tangents + v * DQ_STRIDE(L, &g, ots, 4) : NULL;
    return g;
}

/*
 * Vertices first .. first+n-1 (1 ≤ n ≤ VF_W) as one group on copies of their
 * streams, 4 floats a vertex (lanes past n repeat the first vertex, computed
 * and not stored); the outputs are copied back exactly.
 */
MN_LANE void dq_tail(const mn_dq_call *c, dq_layout L, size_t first, size_t n)
{
    const mn_skin_streams *s = &c->s;
    float in[3][VF_W][4], out[3][VF_W][4];
    memset(in, 0, sizeof in);
    for (size_t l = 0; l < n; l++) {
        size_t x = first + l;
        memcpy(in[0][l], s->positions + x * s->position_stride, 3 * sizeof(float));
        if (L.has_n)
            memcpy(in[1][l], s->normals + x * s->normal_stride, 3 * sizeof(float));
        if (L.has_t)
            memcpy(in[2][l], s->tangents + x * s->tangent_stride, 4 * sizeof(float));
    }
    dq_view g = {n, s->joints + first * L.ic, s->weights + first * L.ic, in[0][0], in[1][0],
                 in[2][0], out[0][0], out[1][0], out[2][0], 4, 4, 4, 4, 4, 4};
    dq_layout strided = {L.has_n, L.has_t, false, L.ic, L.flags};
    dq_group(c, &g, strided, true);
    for (size_t l = 0; l < n; l++) {
        size_t x = first + l;
        memcpy(s->out_positions + x * s->out_position_stride, out[0][l], 3 * sizeof(float));
        if (L.has_n)
            memcpy(s->out_normals + x * s->out_normal_stride, out[1][l], 3 * sizeof(float));
        if (L.has_t)
            memcpy(s->out_tangents + x * s->out_tangent_stride, out[2][l], 4 * sizeof(float));
    }
}

/* The `bytes` from `ahead` bytes after p, line by line, asked into the cache (a hint: never faults). */
MN_LANE void dq_prefetch_span(const void *p, size_t ahead, size_t bytes)
{
    for (size_t b = 0; b < bytes; b += 64)
        __builtin_prefetch((const void *)((uintptr_t)p + ahead + b));
}

/*
 * A large call (mn_skin_streams.prefetch, as skinning's): the inputs of the
 * group MN_SKIN_PREFETCH_AHEAD vertices after g, every line of them, so that
 * the loop meets them in the cache instead of waiting for memory.
 */
MN_LANE void dq_prefetch(dq_layout L, const dq_view *g)
{
    const size_t a = MN_SKIN_PREFETCH_AHEAD, f = sizeof(float);
    size_t ps = DQ_STRIDE(L, g, ps, 3), ns = DQ_STRIDE(L, g, ns, 3), ts = DQ_STRIDE(L, g, ts, 4);
    dq_prefetch_span(g->p, a * ps * f, VF_W * ps * f);
    if (L.has_n)
        dq_prefetch_span(g->n, a * ns * f, VF_W * ns * f);
    if (L.has_t)
        dq_prefetch_span(g->t, a * ts * f, VF_W * ts * f);
    dq_prefetch_span(g->j, a * L.ic * sizeof(uint16_t), VF_W * L.ic * sizeof(uint16_t));
    dq_prefetch_span(g->w, a * L.ic * f, VF_W * L.ic * f);
}

MN_LANE void dq_all(const mn_dq_call *cp, dq_layout L)
{
    /* A local copy: the compiler then knows no output store can change a pointer or stride. */
    const mn_dq_call call = *cp, *c = &call;
    const mn_skin_streams *s = &c->s;
    /* the full groups leave at least one vertex after them (their 4-float reads) */
    size_t end = (s->count - 1) / VF_W * VF_W;
    for (size_t v = 0; v < end; v += VF_W) {
        dq_view g = dq_view_at(s, L, v);
        if (s->prefetch)
            dq_prefetch(L, &g);
        dq_group(c, &g, L, false);
    }
    dq_tail(c, L, end, s->count - end);
}

/* One instance per stream set, so the group loop carries no per-vertex tests. */
MN_LANE void dq_streams(const mn_dq_call *c, size_t ic, bool packed, int flags)
{
    bool has_n = c->s.normals != NULL, has_t = c->s.tangents != NULL;
    if (has_n && has_t)
        dq_all(c, (dq_layout){true, true, packed, ic, flags});
    else if (has_n)
        dq_all(c, (dq_layout){true, false, packed, ic, flags});
    else if (has_t)
        dq_all(c, (dq_layout){false, true, packed, ic, flags});
    else
        dq_all(c, (dq_layout){false, false, packed, ic, flags});
}

MN_KERNEL void MN_ISA(mni_dq_skin)(const mn_dq_call *c)
{
    /*
     * 4 influences unroll the blend; packed ones (the glTF layout) also take
     * the call's flags as constants, an instance each; the other shapes keep
     * run-time strides and flags.
     */
    bool packed = mni_skin_packed(&c->s);
    int flags = (c->no_flips ? 0 : DQ_FLIPS) | (c->blend_scale ? DQ_SCALES : 0);
    if (c->s.influences == 4 && packed) {
        switch (flags) {
        case 0:
            dq_streams(c, 4, true, 0);
            break;
        case DQ_FLIPS:
            dq_streams(c, 4, true, DQ_FLIPS);
            break;
        case DQ_SCALES:
            dq_streams(c, 4, true, DQ_SCALES);
            break;
        default:
            dq_streams(c, 4, true, DQ_FLIPS | DQ_SCALES);
            break;
        }
    } else if (c->s.influences == 4) {
        dq_streams(c, 4, false, DQ_FLAGS_RUNTIME);
    } else {
        dq_streams(c, c->s.influences, false, DQ_FLAGS_RUNTIME);
    }
}

#undef DQ

#endif /* MN_DEFORM_DUAL_QUAT_KERNEL_H */
