

/*
 * The splat deform kernel, written once over a lane type and included by
 * splat_skin.c once per width: float (the scalar reference, one lane),
 * __m128 (SSE2, four lanes) and __m256 (AVX2+FMA, eight lanes).  GCC and
 * clang give the SIMD types the ordinary + - * / operators, so the maths
 * below reads the same for every width; the including file supplies the
 * few operations that differ (broadcast, square root, compare and select,
 * moving lanes to and from memory) and the per-splat blend.
 *
 * The rotation nearest M (the blended 3×3): Horn's quaternion form.  For a
 * unit quaternion q, trace(R(q)ᵀ·M) = qᵀ·N·q with N the symmetric 4×4
 * below, so the rotation maximising the trace is the eigenvector of N's
 * largest eigenvalue; when det M > 0 it is M's orthogonal polar factor.
 * N's eigenvalues are ±σ1±σ2±σ3 (M's singular values, with an odd number
 * of minus signs when det M < 0), so with s = |M|_F/√3 (at least the least
 * singular value) every other eigenvalue of B = N + s·I is smaller in
 * magnitude than the wanted one, and squaring B (rescaled by about its
 * trace each time so nothing overflows) leaves a matrix whose every column is
 * that eigenvector times its component: the column with the largest
 * diagonal is taken.  That shift puts B's other eigenvalues near 0 for M
 * near a rotation (B's are 4 and 0, 0, 0 for a rotation), so two or three
 * squarings settle a batch; the loop stops once every lane's B has
 * tr(B²) ≥ (1 - 1e-3)·tr(B)² (the others hold at most 5e-4 of the top
 * eigenvalue, so the squaring that follows leaves them below 2.5e-7 and the
 * column below 5e-7 off the eigenvector, float rounding's order), or
 * after SK_SQUARINGS squarings, which settle joints blended as far as
 * 200° apart (measured: 5 were 2.7e-3 short there, 6 enough).  A lane's
 * result thus depends on how many squarings its batch ran, within float
 * rounding; a batch is the same splats whatever the thread count.
 */
#define SK_SQUARINGS 8

/*
 * Added to B's w diagonal: far below float rounding for any blend of
 * ordinary scale (B's entries are about |M|), yet its square (1e-36) is
 * still a normal float, so an all-zero B becomes diag(1e-18, 0, 0, 0),
 * settles at once and yields the identity rather than NaN.
 */
#define SK_ZERO_BIAS 1e-18f


/*
 * Expects: SK_NAME, SK_ATTR, SK_W, SK_V (lane type), SK_SET1(x),
 * SK_LOAD(p) / SK_STORE(p, v) (SK_W floats, 32-byte aligned), SK_SQRT(v),
 * SK_SEL_GT(a, b, x, y) (per lane: a > b ? x : y), SK_ALL_GT(a, b) (a > b
 * in every lane), SK_MADD(a, b, c) (a·b + c, fused where the width has FMA), and
 * SK_RCP(v) (about 1/v: only a scale), SK_GATHER(a, base, end, m, rq):
 * blend splats [base, base + SK_W) (clamped to end), write their centres,
 * put their 3×3s into m[c*3 + r][lane] and their rotations into rq[k][lane],
 * SK_SCATTER(a, base, end, rq): write rq's lanes below end out, and
 * SK_FINISH(): after the last batch (a store fence where stores stream).
 */

SK_ATTR static void SK_NAME(const mn_splat_skin_job *a, size_t first, size_t end)
{
    for (size_t base = first; base < end; base += SK_W) {
        _Alignas(32) float m[9][SK_W];
        _Alignas(32) float rq[4][SK_W];
        /* centres written; the 3×3s and the splats' rotations into lanes (a short last batch
           repeats its last splat in the spare lanes, which are written nowhere) */
        SK_GATHER(a, base, end, m, rq);
        SK_V m00 = SK_LOAD(m[0]), m10 = SK_LOAD(m[1]), m20 = SK_LOAD(m[2]);
        SK_V m01 = SK_LOAD(m[3]), m11 = SK_LOAD(m[4]), m21 = SK_LOAD(m[5]);
        SK_V m02 = SK_LOAD(m[6]), m12 = SK_LOAD(m[7]), m22 = SK_LOAD(m[8]);

        SK_V f2 = m00 * m00 + m10 * m10 + m20 * m20 + m01 * m01 + m11 * m11 + m21 * m21 +
                  m02 * m02 + m12 * m12 + m22 * m22;
        SK_V s = SK_SQRT(f2 * SK_SET1(1.0f / 3.0f));
        /* B = N + s·I, order w x y z; SK_ZERO_BIAS on B's w entry gives an all-zero blend
           (every joint scaled to nothing: B = 0, whose powers would be 0/0) the identity */
        SK_V b00 = m00 + m11 + m22 + s + SK_SET1(SK_ZERO_BIAS), b11 = m00 - m11 - m22 + s;
        SK_V b22 = m11 - m00 - m22 + s, b33 = m22 - m00 - m11 + s;
        SK_V b01 = m21 - m12, b02 = m02 - m20, b03 = m10 - m01;
        SK_V b12 = m01 + m10, b13 = m02 + m20, b23 = m12 + m21;

        bool settled = false;
        for (int step = 0; step < SK_SQUARINGS && !settled; step++) {
            SK_V c00 = SK_MADD(b00, b00, b01 * b01) + SK_MADD(b02, b02, b03 * b03);
            SK_V c11 = SK_MADD(b01, b01, b11 * b11) + SK_MADD(b12, b12, b13 * b13);
            SK_V c22 = SK_MADD(b02, b02, b12 * b12) + SK_MADD(b22, b22, b23 * b23);
            SK_V c33 = SK_MADD(b03, b03, b13 * b13) + SK_MADD(b23, b23, b33 * b33);
            SK_V c01 = SK_MADD(b00, b01, b01 * b11) + SK_MADD(b02, b12, b03 * b13);
            SK_V c02 = SK_MADD(b00, b02, b01 * b12) + SK_MADD(b02, b22, b03 * b23);
            SK_V c03 = SK_MADD(b00, b03, b01 * b13) + SK_MADD(b02, b23, b03 * b33);
            SK_V c12 = SK_MADD(b01, b02, b11 * b12) + SK_MADD(b12, b22, b13 * b23);
            SK_V c13 = SK_MADD(b01, b03, b11 * b13) + SK_MADD(b12, b23, b13 * b33);
            SK_V c23 = SK_MADD(b02, b03, b12 * b13) + SK_MADD(b22, b23, b23 * b33);
            SK_V trace = (c00 + c11) + (c22 + c33);
            /* B (positive semi-definite from the second step) is rank one when tr(B²) = tr(B)² */
            SK_V tb = (b00 + b11) + (b22 + b33);
            settled = step > 0 && SK_ALL_GT(trace, SK_SET1(1.0f - 1e-3f) * tb * tb);
            /* any positive scale will do: it only keeps the powers in range */
            SK_V inv = SK_RCP(trace);
            b00 = c00 * inv, b11 = c11 * inv, b22 = c22 * inv, b33 = c33 * inv;
            b01 = c01 * inv, b02 = c02 * inv, b03 = c03 * inv;
            b12 = c12 * inv, b13 = c13 * inv, b23 = c23 * inv;
        }

        /* the column with the largest diagonal, as (w, x, y, z) */
        SK_V qw = b00, qx = b01, qy = b02, qz = b03, best = b00;
        qw = SK_SEL_GT(b11, best, b01, qw), qx = SK_SEL_GT(b11, best, b11, qx);
        qy = SK_SEL_GT(b11, best, b12, qy), qz = SK_SEL_GT(b11, best, b13, qz);
        best = SK_SEL_GT(b11, best, b11, best);
        qw = SK_SEL_GT(b22, best, b02, qw), qx = SK_SEL_GT(b22, best, b12, qx);
        qy = SK_SEL_GT(b22, best, b22, qy), qz = SK_SEL_GT(b22, best, b23, qz);
        best = SK_SEL_GT(b22, best, b22, best);
        qw = SK_SEL_GT(b33, best, b03, qw), qx = SK_SEL_GT(b33, best, b13, qx);
        qy = SK_SEL_GT(b33, best, b23, qy), qz = SK_SEL_GT(b33, best, b33, qz);
        SK_V qn = SK_SET1(1.0f) / SK_SQRT(qw * qw + qx * qx + qy * qy + qz * qz);
        qw = qw * qn, qx = qx * qn, qy = qy * qn, qz = qz * qn;

        /* the splat's own rotation, normalised (zero stays zero) */
        SK_V rx = SK_LOAD(rq[0]), ry = SK_LOAD(rq[1]), rz = SK_LOAD(rq[2]), rw = SK_LOAD(rq[3]);
        SK_V r2 = rx * rx + ry * ry + rz * rz + rw * rw;
        SK_V rn = SK_SEL_GT(r2, SK_SET1(0.0f), SK_SET1(1.0f) / SK_SQRT(r2), SK_SET1(0.0f));
        rx = rx * rn, ry = ry * rn, rz = rz * rn, rw = rw * rn;

        /* q ⊗ r, Hamilton; the sign chosen so that w ≥ 0 */
        SK_V ow = qw * rw - qx * rx - qy * ry - qz * rz;
        SK_V ox = qw * rx + qx * rw + qy * rz - qz * ry;
        SK_V oy = qw * ry - qx * rz + qy * rw + qz * rx;
        SK_V oz = qw * rz + qx * ry - qy * rx + qz * rw;
        SK_V sign = SK_SEL_GT(SK_SET1(0.0f), ow, SK_SET1(-1.0f), SK_SET1(1.0f));
        SK_STORE(rq[0], ox * sign);
        SK_STORE(rq[1], oy * sign);
        SK_STORE(rq[2], oz * sign);
        SK_STORE(rq[3], ow * sign);
        SK_SCATTER(a, base, end, rq);
    }
    SK_FINISH();
}
