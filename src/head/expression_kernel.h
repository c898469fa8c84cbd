/*
 * The expression head's basis sum, written once over the lane layer
 * (core/simd.h, the convention) and included by expression_avx2.c (eight
 * lanes) and expression_neon.c (four) after their lane headers; the entry
 * point is MN_ISA(mni_expression).
 *
 * A vertex's row is 3E halves, x y z per coefficient, and coef3 is the same
 * length.  VF_W halves at a time are widened exactly (vcvtph2ps, FCVTL: the
 * f16 rule) and multiply-added against coef3.  VF_W lanes do not
 * divide into x y z triples, but 3·VF_W do: the row is walked in blocks of
 * 3·VF_W halves with three accumulators, so lane l of accumulator m always
 * holds component (VF_W·m + l) mod 3, up to two more blocks of VF_W
 * continue the pattern, and the three are folded into x, y, z once per
 * vertex.  The last row % VF_W halves are summed one by one.  Loads read
 * only the row's own halves.
 *
 * The sum's order differs from the reference's (VF_W partial sums a
 * component, fused multiply-adds), so results agree with it within float
 * rounding of a dot product, not to the bit; everything after the sum is the
 * shared mni_expression_finish.
 */
#ifndef MN_HEAD_EXPRESSION_KERNEL_H
#define MN_HEAD_EXPRESSION_KERNEL_H

/* x y z of one row: the three accumulators' lanes folded by component. */
MN_LANE void row_sum(const uint16_t *b, const float *c, size_t row, float xyz[3])
{
    vf a0 = vf_zero(), a1 = vf_zero(), a2 = vf_zero();
    size_t i = 0;
    for (; i + 3 * VF_W <= row; i += 3 * VF_W) {
        a0 = vf_madd(vf_load_f16(b + i), vf_loadu(c + i), a0);
        a1 = vf_madd(vf_load_f16(b + i + VF_W), vf_loadu(c + i + VF_W), a1);
        a2 = vf_madd(vf_load_f16(b + i + 2 * VF_W), vf_loadu(c + i + 2 * VF_W), a2);
    }
    /* At most two more whole blocks of VF_W, continuing the lane pattern. */
    if (i + VF_W <= row) {
        a0 = vf_madd(vf_load_f16(b + i), vf_loadu(c + i), a0);
        i += VF_W;
        if (i + VF_W <= row) {
            a1 = vf_madd(vf_load_f16(b + i), vf_loadu(c + i), a1);
            i += VF_W;
        }
    }
    float lanes[3 * VF_W];
    vf_storeu(lanes, a0);
    vf_storeu(lanes + VF_W, a1);
    vf_storeu(lanes + 2 * VF_W, a2);
    float s[3] = {0.0f, 0.0f, 0.0f};
    for (int l = 0; l < 3 * VF_W; l += 3) {
        s[0] += lanes[l];
        s[1] += lanes[l + 1];
        s[2] += lanes[l + 2];
    }
    /* The tail starts at a multiple of VF_W, so its component is i mod 3. */
    for (; i < row; i++)
        s[i % 3] += c[i] * vf_half1(b[i]);
    xyz[0] = s[0];
    xyz[1] = s[1];
    xyz[2] = s[2];
}

MN_KERNEL void MN_ISA(mni_expression)(const mn_expr_frame *f)
{
    const size_t row = f->row;
    const uint16_t *b = f->basis;
    for (size_t v = 0; v < f->vertex_count; v++, b += row) {
        const float *n = f->neutral + 3 * v;
        float s[3];
        row_sum(b, f->coef3, row, s);
        float p[3] = {n[0] + s[0], n[1] + s[1], n[2] + s[2]};
        mni_expression_finish(f, v, p);
    }
}

#endif /* MN_HEAD_EXPRESSION_KERNEL_H */
