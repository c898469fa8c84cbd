/*
 * The splat deform's rotation maths, written once over the lane layer
 * (core/simd.h, the convention) and included once per width after its lane
 * header: one lane (core/lanes_scalar.h: the scalar reference) by
 * splat_skin.c, four (SSE2) by splat_skin_sse2.c, eight (AVX2+FMA) by
 * splat_skin_avx2.c.  GCC and clang give the SIMD types the ordinary
 * + - * / operators, so the maths reads the same for every width; the lane
 * layer supplies the few operations that differ.
 *
 * The rotation nearest M (the blended 3×3): Horn's quaternion form.  For a
 * unit quaternion q, trace(R(q)ᵀ·M) = qᵀ·N·q with N the symmetric 4×4
 * below, so the rotation maximising the trace is the eigenvector of N's
 * largest eigenvalue; when det M > 0 it is M's orthogonal polar factor.
 * N's eigenvalues are ±σ1±σ2±σ3 (M's singular values, with an odd number
 * of minus signs when det M < 0), so with s = |M|_F/√3 (at least the least
 * singular value) every other eigenvalue of B = N + s·I is smaller in
 * magnitude than the wanted one, and that shift puts them near 0 for M
 * near a rotation (B's are 4 and 0, 0, 0 for a rotation).  M is first
 * scaled to |M|_F = 1 (the eigenvector does not depend on the scale), so s
 * is a constant and tr(B²) = tr(N²) + 4s² = 4|M|² + 4/3 = 16/3 for every
 * blend: the first square needs no rescaling.
 *
 * B is squared until it is nearly rank one: every lane's tr(B²) ≥
 * (1 - SK_SETTLED)·tr(B)², which holds the other eigenvalues together to at
 * most 0.0208 of the top one.  Then B's column with the largest diagonal
 * (the eigenvector times a component of about 1/2 or more) is multiplied
 * by B SK_POWERS times, matrix-vector products at a quarter of a squaring
 * each, which leave the others at 0.0208⁴ = 1.9e-7 of it and the column
 * below 4e-7 off the eigenvector, float rounding's order.  One squaring
 * settles nearly every batch of ordinary blends (measured on blends of four
 * joints turned up to ±60°: 98% of batches of eight; a squaring and one
 * product, as before, settled none), the data-dependent branch is then
 * rarely mispredicted, and the critical path is short: the sums below are
 * written as trees for that.  Later squarings are rescaled by about their
 * trace so nothing underflows, and the loop stops after SK_SQUARINGS - 1 of
 * them in any case, which with the products settles joints blended as far
 * as 200° apart.  A lane's result thus depends on how many squarings its
 * batch ran, within float rounding; a batch is the same splats whatever the
 * thread count.
 */
#ifndef MN_CHARACTER_SPLAT_SKIN_KERNEL_H
#define MN_CHARACTER_SPLAT_SKIN_KERNEL_H

#define SK_SQUARINGS 8
#define SK_SETTLED 4e-2f
#define SK_POWERS 3

/*
 * Added to |M|_F² before its reciprocal square root: an all-zero blend
 * (every joint scaled to nothing) then scales to zero rather than to
 * 0·∞ = NaN, B is s·I, and the identity comes out.  Far below any blend of
 * ordinary scale (|M|_F² of 1e-36 is a joint scaled by 1e-18).
 */
#define SK_TINY 1e-36f

/*
 * The rotation of a batch: m[c*3 + r] holds the lanes' blended 3×3s (column
 * c, row r), r[0..3] their splats' own rotations (x y z w); r comes back as
 * q(R) ⊗ normalise(r), w ≥ 0.  vf_madd fuses where the width has FMA;
 * vf_rcp and vf_rsqrt (estimates at the SIMD widths) only scale.
 */
/* A symmetric 4 x 4 matrix: its ten distinct entries. */
typedef struct sym4 {
    vf m00, m11, m22, m33, m01, m02, m03, m12, m13, m23;
} sym4;

/* B² of a symmetric B (itself symmetric), each entry summed in the same fixed order. */
MN_LANE sym4 sym4_square(const sym4 *b)
{
    sym4 c;
    c.m00 = vf_madd(b->m00, b->m00, b->m01 * b->m01) + vf_madd(b->m02, b->m02, b->m03 * b->m03);
    c.m11 = vf_madd(b->m01, b->m01, b->m11 * b->m11) + vf_madd(b->m12, b->m12, b->m13 * b->m13);
    c.m22 = vf_madd(b->m02, b->m02, b->m12 * b->m12) + vf_madd(b->m22, b->m22, b->m23 * b->m23);
    c.m33 = vf_madd(b->m03, b->m03, b->m13 * b->m13) + vf_madd(b->m23, b->m23, b->m33 * b->m33);
    c.m01 = vf_madd(b->m00, b->m01, b->m01 * b->m11) + vf_madd(b->m02, b->m12, b->m03 * b->m13);
    c.m02 = vf_madd(b->m00, b->m02, b->m01 * b->m12) + vf_madd(b->m02, b->m22, b->m03 * b->m23);
    c.m03 = vf_madd(b->m00, b->m03, b->m01 * b->m13) + vf_madd(b->m02, b->m23, b->m03 * b->m33);
    c.m12 = vf_madd(b->m01, b->m02, b->m11 * b->m12) + vf_madd(b->m12, b->m22, b->m13 * b->m23);
    c.m13 = vf_madd(b->m01, b->m03, b->m11 * b->m13) + vf_madd(b->m12, b->m23, b->m13 * b->m33);
    c.m23 = vf_madd(b->m02, b->m03, b->m12 * b->m13) + vf_madd(b->m22, b->m23, b->m23 * b->m33);
    return c;
}

MN_LANE void rotate(const vf m[9], vf r[4])
{
    vf m00 = m[0], m10 = m[1], m20 = m[2];
    vf m01 = m[3], m11 = m[4], m21 = m[5];
    vf m02 = m[6], m12 = m[7], m22 = m[8];

    /* M scaled to |M|_F = 1, so s = |M|_F/√3 = 1/√3 and tr(B) = 4s = 4/√3 (tr N = 0).  Only a
       scale (the eigenvector does not depend on it), so rsqrt's precision is enough. */
    vf f2 = vf_madd(m00, m00, vf_madd(m10, m10, m20 * m20)) +
            vf_madd(m01, m01, vf_madd(m11, m11, m21 * m21)) +
            vf_madd(m02, m02, vf_madd(m12, m12, m22 * m22));
    vf k = vf_rsqrt(f2 + vf_set1(SK_TINY));
    m00 = m00 * k, m10 = m10 * k, m20 = m20 * k;
    m01 = m01 * k, m11 = m11 * k, m21 = m21 * k;
    m02 = m02 * k, m12 = m12 * k, m22 = m22 * k;
    /* B = N + s·I, order w x y z */
    vf s = vf_set1(0.57735027f);
    sym4 b;
    b.m00 = (m00 + m11) + (m22 + s), b.m11 = (m00 - m11) + (s - m22);
    b.m22 = (m11 - m00) + (s - m22), b.m33 = (m22 - m00) + (s - m11);
    b.m01 = m21 - m12, b.m02 = m02 - m20, b.m03 = m10 - m01;
    b.m12 = m01 + m10, b.m13 = m02 + m20, b.m23 = m12 + m21;

    /* B², B⁴, ...: the first square needs no scale, tr B² = tr N² + 4s² = 4|M|² + 4/3 = 16/3 */
    b = sym4_square(&b);
    for (int step = 1;; step++) {
        /* B (positive semi-definite now) is rank one when tr(B²) = tr(B)² */
        vf tb = (b.m00 + b.m11) + (b.m22 + b.m33);
        vf off = vf_madd(b.m01, b.m01, vf_madd(b.m02, b.m02, b.m03 * b.m03)) +
                 vf_madd(b.m12, b.m12, vf_madd(b.m13, b.m13, b.m23 * b.m23));
        vf sq = vf_madd(b.m33, b.m33, off + off);
        sq = vf_madd(b.m00, b.m00, vf_madd(b.m11, b.m11, vf_madd(b.m22, b.m22, sq)));
        if (step == SK_SQUARINGS - 1 || vf_all_gt(sq, vf_set1(1.0f - SK_SETTLED) * tb * tb))
            break;
        sym4 c = sym4_square(&b);
        /* rescaled by about its trace so that nothing underflows */
        vf inv = vf_rcp((c.m00 + c.m11) + (c.m22 + c.m33));
        b.m00 = c.m00 * inv, b.m11 = c.m11 * inv, b.m22 = c.m22 * inv, b.m33 = c.m33 * inv;
        b.m01 = c.m01 * inv, b.m02 = c.m02 * inv, b.m03 = c.m03 * inv;
        b.m12 = c.m12 * inv, b.m13 = c.m13 * inv, b.m23 = c.m23 * inv;
    }

    /* the splat's own rotation, normalised (zero stays zero): independent of the above */
    vf rx = r[0], ry = r[1], rz = r[2], rw = r[3];
    vf r2 = vf_madd(rx, rx, ry * ry) + vf_madd(rz, rz, rw * rw);
    vf rn = vf_sel_gt(r2, vf_set1(0.0f), vf_set1(1.0f) / vf_sqrt(r2), vf_set1(0.0f));
    rx = rx * rn, ry = ry * rn, rz = rz * rn, rw = rw * rn;

    /* B's column with the largest diagonal (the first of equals), as (w, x, y, z): the larger
       of columns 0 and 1 against the larger of 2 and 3 ... */
    vf qw = vf_sel_gt(b.m11, b.m00, b.m01, b.m00), qx = vf_sel_gt(b.m11, b.m00, b.m11, b.m01);
    vf qy = vf_sel_gt(b.m11, b.m00, b.m12, b.m02), qz = vf_sel_gt(b.m11, b.m00, b.m13, b.m03);
    vf best = vf_sel_gt(b.m11, b.m00, b.m11, b.m00);
    vf tw = vf_sel_gt(b.m33, b.m22, b.m03, b.m02), tx = vf_sel_gt(b.m33, b.m22, b.m13, b.m12);
    vf ty = vf_sel_gt(b.m33, b.m22, b.m23, b.m22), tz = vf_sel_gt(b.m33, b.m22, b.m33, b.m23);
    vf tbest = vf_sel_gt(b.m33, b.m22, b.m33, b.m22);
    qw = vf_sel_gt(tbest, best, tw, qw), qx = vf_sel_gt(tbest, best, tx, qx);
    qy = vf_sel_gt(tbest, best, ty, qy), qz = vf_sel_gt(tbest, best, tz, qz);
    /* ... times B, SK_POWERS times: that column of B to the power SK_POWERS + 1 */
    for (int power = 0; power < SK_POWERS; power++) {
        vf pw = vf_madd(b.m00, qw, b.m01 * qx) + vf_madd(b.m02, qy, b.m03 * qz);
        vf px = vf_madd(b.m01, qw, b.m11 * qx) + vf_madd(b.m12, qy, b.m13 * qz);
        vf py = vf_madd(b.m02, qw, b.m12 * qx) + vf_madd(b.m22, qy, b.m23 * qz);
        vf pz = vf_madd(b.m03, qw, b.m13 * qx) + vf_madd(b.m23, qy, b.m33 * qz);
        qw = pw, qx = px, qy = py, qz = pz;
    }

    /* q ⊗ r (Hamilton) with q not yet unit: its 1/|q| and the sign that makes w ≥ 0 are applied
       last, so the product need not wait for the square root */
    vf ow = vf_madd(qw, rw, -(qx * rx)) - vf_madd(qy, ry, qz * rz);
    vf ox = vf_madd(qw, rx, qx * rw) + vf_madd(qy, rz, -(qz * ry));
    vf oy = vf_madd(qw, ry, qy * rw) + vf_madd(qz, rx, -(qx * rz));
    vf oz = vf_madd(qw, rz, qz * rw) + vf_madd(qx, ry, -(qy * rx));
    vf qn = vf_set1(1.0f) / vf_sqrt(vf_madd(qw, qw, qx * qx) + vf_madd(qy, qy, qz * qz));
    qn = vf_flipsign(qn, ow);
    r[0] = ox * qn, r[1] = oy * qn, r[2] = oz * qn, r[3] = ow * qn;
}

#ifdef SPLAT_STAGED
/*
 * The batch loop, for the widths that stage their lanes in memory (SPLAT_STAGED):
 * the including file defines, after including,
 *   gather(a, base, end, m, rq)  blend splats [base, base + VF_W) (clamped
 *                                to end), write their centres, put their
 *                                3×3s into m[c*3 + r][lane] and their
 *                                rotations into rq[k][lane];
 *   scatter(a, base, end, rq)    write rq's lanes below end out.
 * The entry point is MN_ISA(mni_splat_skin), over splats [first, end).
 */
MN_LANE void gather(const mn_splat_skin_job *a, size_t base, size_t end, float m[9][VF_W],
                    float rq[4][VF_W]);
MN_LANE void scatter(const mn_splat_skin_job *a, size_t base, size_t end, float rq[4][VF_W]);

MN_KERNEL void MN_ISA(mni_splat_skin)(const mn_splat_skin_job *a, size_t first, size_t end)
{
    for (size_t base = first; base < end; base += VF_W) {
        _Alignas(32) float m[9][VF_W];
        _Alignas(32) float rq[4][VF_W];
        /* centres written; the 3×3s and the splats' rotations into lanes (a short last batch
           repeats its last splat in the spare lanes, which are written nowhere) */
        gather(a, base, end, m, rq);
        vf mv[9], r[4];
        for (int e = 0; e < 9; e++)
            mv[e] = vf_load(m[e]);
        for (int k = 0; k < 4; k++)
            r[k] = vf_load(rq[k]);
        rotate(mv, r);
        for (int k = 0; k < 4; k++)
            vf_store(rq[k], r[k]);
        scatter(a, base, end, rq);
    }
}
#endif

#endif /* MN_CHARACTER_SPLAT_SKIN_KERNEL_H */
