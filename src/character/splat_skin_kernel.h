/*
 * The splat deform's rotation maths, written once over a lane type and
 * included once per width: float (the scalar reference, one lane) and
 * __m128 (SSE2, four lanes) by splat_skin.c, __m256 (AVX2+FMA, eight
 * lanes) by splat_skin_avx2.c.  GCC and clang give the SIMD types the
 * ordinary + - * / operators, so the maths reads the same for every width;
 * the including file supplies the few operations that differ.
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
 * The rotation of a batch, SK_ROTATE(m, r): m[c*3 + r] holds the lanes'
 * blended 3×3s (column c, row r), r[0..3] their splats' own rotations
 * (x y z w); r comes back as q(R) ⊗ normalise(r), w ≥ 0.  Expects SK_ROTATE,
 * SK_ATTR, SK_V (lane type), SK_SET1(x), SK_SQRT(v), SK_SEL_GT(a, b, x, y)
 * (per lane: a > b ? x : y), SK_ALL_GT(a, b) (a > b in every lane),
 * SK_MADD(a, b, c) (a·b + c, fused where the width has FMA), SK_RCP(v) and
 * SK_RSQRT(v) (about 1/v and 1/√v: only scales) and SK_FLIPSIGN(x, s) (x
 * negated where s has its sign bit set).
 */
SK_ATTR static inline void SK_ROTATE(const SK_V m[9], SK_V r[4])
{
    SK_V m00 = m[0], m10 = m[1], m20 = m[2];
    SK_V m01 = m[3], m11 = m[4], m21 = m[5];
    SK_V m02 = m[6], m12 = m[7], m22 = m[8];

    /* M scaled to |M|_F = 1, so s = |M|_F/√3 = 1/√3 and tr(B) = 4s = 4/√3 (tr N = 0).  Only a
       scale (the eigenvector does not depend on it), so rsqrt's precision is enough. */
    SK_V f2 = SK_MADD(m00, m00, SK_MADD(m10, m10, m20 * m20)) +
              SK_MADD(m01, m01, SK_MADD(m11, m11, m21 * m21)) +
              SK_MADD(m02, m02, SK_MADD(m12, m12, m22 * m22));
    SK_V k = SK_RSQRT(f2 + SK_SET1(SK_TINY));
    m00 = m00 * k, m10 = m10 * k, m20 = m20 * k;
    m01 = m01 * k, m11 = m11 * k, m21 = m21 * k;
    m02 = m02 * k, m12 = m12 * k, m22 = m22 * k;
    /* B = N + s·I, order w x y z */
    SK_V s = SK_SET1(0.57735027f);
    SK_V b00 = (m00 + m11) + (m22 + s), b11 = (m00 - m11) + (s - m22);
    SK_V b22 = (m11 - m00) + (s - m22), b33 = (m22 - m00) + (s - m11);
    SK_V b01 = m21 - m12, b02 = m02 - m20, b03 = m10 - m01;
    SK_V b12 = m01 + m10, b13 = m02 + m20, b23 = m12 + m21;

    /* C = B² (B symmetric: ten entries) */
#define SK_SQUARE()                                                                          \
    SK_V c00 = SK_MADD(b00, b00, b01 * b01) + SK_MADD(b02, b02, b03 * b03);                 \
    SK_V c11 = SK_MADD(b01, b01, b11 * b11) + SK_MADD(b12, b12, b13 * b13);                 \
    SK_V c22 = SK_MADD(b02, b02, b12 * b12) + SK_MADD(b22, b22, b23 * b23);                 \
    SK_V c33 = SK_MADD(b03, b03, b13 * b13) + SK_MADD(b23, b23, b33 * b33);                 \
    SK_V c01 = SK_MADD(b00, b01, b01 * b11) + SK_MADD(b02, b12, b03 * b13);                 \
    SK_V c02 = SK_MADD(b00, b02, b01 * b12) + SK_MADD(b02, b22, b03 * b23);                 \
    SK_V c03 = SK_MADD(b00, b03, b01 * b13) + SK_MADD(b02, b23, b03 * b33);                 \
    SK_V c12 = SK_MADD(b01, b02, b11 * b12) + SK_MADD(b12, b22, b13 * b23);                 \
    SK_V c13 = SK_MADD(b01, b03, b11 * b13) + SK_MADD(b12, b23, b13 * b33);                 \
    SK_V c23 = SK_MADD(b02, b03, b12 * b13) + SK_MADD(b22, b23, b23 * b33)
    {
        /* the first square needs no scale: tr B² = tr N² + 4s² = 4|M|² + 4/3 = 16/3 */
        SK_SQUARE();
        b00 = c00, b11 = c11, b22 = c22, b33 = c33;
        b01 = c01, b02 = c02, b03 = c03, b12 = c12, b13 = c13, b23 = c23;
    }
    for (int step = 1;; step++) {
        /* B (positive semi-definite now) is rank one when tr(B²) = tr(B)² */
        SK_V tb = (b00 + b11) + (b22 + b33);
        SK_V off = SK_MADD(b01, b01, SK_MADD(b02, b02, b03 * b03)) +
                   SK_MADD(b12, b12, SK_MADD(b13, b13, b23 * b23));
        SK_V sq = SK_MADD(b00, b00, SK_MADD(b11, b11, SK_MADD(b22, b22, SK_MADD(b33, b33,
                                                                           off + off))));
        if (step == SK_SQUARINGS - 1 || SK_ALL_GT(sq, SK_SET1(1.0f - SK_SETTLED) * tb * tb))
            break;
        SK_SQUARE();
        /* rescaled by about its trace so that nothing underflows */
        SK_V inv = SK_RCP((c00 + c11) + (c22 + c33));
        b00 = c00 * inv, b11 = c11 * inv, b22 = c22 * inv, b33 = c33 * inv;
        b01 = c01 * inv, b02 = c02 * inv, b03 = c03 * inv;
        b12 = c12 * inv, b13 = c13 * inv, b23 = c23 * inv;
    }
#undef SK_SQUARE

    /* the splat's own rotation, normalised (zero stays zero): independent of the above */
    SK_V rx = r[0], ry = r[1], rz = r[2], rw = r[3];
    SK_V r2 = SK_MADD(rx, rx, ry * ry) + SK_MADD(rz, rz, rw * rw);
    SK_V rn = SK_SEL_GT(r2, SK_SET1(0.0f), SK_SET1(1.0f) / SK_SQRT(r2), SK_SET1(0.0f));
    rx = rx * rn, ry = ry * rn, rz = rz * rn, rw = rw * rn;

    /* B's column with the largest diagonal (the first of equals), as (w, x, y, z): the larger
       of columns 0 and 1 against the larger of 2 and 3 ... */
    SK_V qw = SK_SEL_GT(b11, b00, b01, b00), qx = SK_SEL_GT(b11, b00, b11, b01);
    SK_V qy = SK_SEL_GT(b11, b00, b12, b02), qz = SK_SEL_GT(b11, b00, b13, b03);
    SK_V best = SK_SEL_GT(b11, b00, b11, b00);
    SK_V tw = SK_SEL_GT(b33, b22, b03, b02), tx = SK_SEL_GT(b33, b22, b13, b12);
    SK_V ty = SK_SEL_GT(b33, b22, b23, b22), tz = SK_SEL_GT(b33, b22, b33, b23);
    SK_V tbest = SK_SEL_GT(b33, b22, b33, b22);
    qw = SK_SEL_GT(tbest, best, tw, qw), qx = SK_SEL_GT(tbest, best, tx, qx);
    qy = SK_SEL_GT(tbest, best, ty, qy), qz = SK_SEL_GT(tbest, best, tz, qz);
    /* ... times B, SK_POWERS times: that column of B to the power SK_POWERS + 1 */
    for (int power = 0; power < SK_POWERS; power++) {
        SK_V pw = SK_MADD(b00, qw, b01 * qx) + SK_MADD(b02, qy, b03 * qz);
        SK_V px = SK_MADD(b01, qw, b11 * qx) + SK_MADD(b12, qy, b13 * qz);
        SK_V py = SK_MADD(b02, qw, b12 * qx) + SK_MADD(b22, qy, b23 * qz);
        SK_V pz = SK_MADD(b03, qw, b13 * qx) + SK_MADD(b23, qy, b33 * qz);
        qw = pw, qx = px, qy = py, qz = pz;
    }

    /* q ⊗ r (Hamilton) with q not yet unit: its 1/|q| and the sign that makes w ≥ 0 are applied
       last, so the product need not wait for the square root */
    SK_V ow = SK_MADD(qw, rw, -(qx * rx)) - SK_MADD(qy, ry, qz * rz);
    SK_V ox = SK_MADD(qw, rx, qx * rw) + SK_MADD(qy, rz, -(qz * ry));
    SK_V oy = SK_MADD(qw, ry, qy * rw) + SK_MADD(qz, rx, -(qx * rz));
    SK_V oz = SK_MADD(qw, rz, qz * rw) + SK_MADD(qx, ry, -(qy * rx));
    SK_V qn = SK_SET1(1.0f) / SK_SQRT(SK_MADD(qw, qw, qx * qx) + SK_MADD(qy, qy, qz * qz));
    qn = SK_FLIPSIGN(qn, ow);
    r[0] = ox * qn, r[1] = oy * qn, r[2] = oz * qn, r[3] = ow * qn;
}

#ifdef SK_NAME
/*
 * The batch loop, for the widths that stage their lanes in memory: expects
 * SK_NAME, SK_W, SK_LOAD(p) / SK_STORE(p, v) (SK_W floats, aligned),
 * SK_GATHER(a, base, end, m, rq): blend splats [base, base + SK_W) (clamped
 * to end), write their centres, put their 3×3s into m[c*3 + r][lane] and
 * their rotations into rq[k][lane], SK_SCATTER(a, base, end, rq): write rq's
 * lanes below end out.
 */
SK_ATTR static void SK_NAME(const mn_splat_skin_job *a, size_t first, size_t end)
{
    for (size_t base = first; base < end; base += SK_W) {
        _Alignas(32) float m[9][SK_W];
        _Alignas(32) float rq[4][SK_W];
        /* centres written; the 3×3s and the splats' rotations into lanes (a short last batch
           repeats its last splat in the spare lanes, which are written nowhere) */
        SK_GATHER(a, base, end, m, rq);
        SK_V mv[9], r[4];
        for (int e = 0; e < 9; e++)
            mv[e] = SK_LOAD(m[e]);
        for (int k = 0; k < 4; k++)
            r[k] = SK_LOAD(rq[k]);
        SK_ROTATE(mv, r);
        for (int k = 0; k < 4; k++)
            SK_STORE(rq[k], r[k]);
        SK_SCATTER(a, base, end, rq);
    }
}
#endif
