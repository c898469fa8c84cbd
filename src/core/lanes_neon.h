/*
 * The lane layer at AArch64 Advanced SIMD: vf is four floats (float32x4_t).
 * The operations of lanes_sse2.h (core/simd.h, the convention) that the NEON
 * kernels use, and the half-float conversions, which every AArch64 CPU has
 * (FCVTL).  Include from an instruction-set file under #if MN_WITH_NEON, one
 * lane header a translation unit.  Not installed.
 *
 * NEON is the AArch64 baseline: the attributes add no target.  vf_madd is
 * fused (FMLA, one rounding).
 */
#ifdef VF_W
#error "one lane layer a translation unit"
#endif

#include <arm_neon.h>
#include <stdbool.h>
#include <stdint.h>

typedef float32x4_t vf;
#define VF_W 4

#define MN_LANE static inline __attribute__((always_inline))
#define MN_KERNEL
#define MN_ISA(name) name##_neon

MN_LANE vf vf_set1(float x) { return vdupq_n_f32(x); }
MN_LANE vf vf_zero(void) { return vdupq_n_f32(0.0f); }
MN_LANE vf vf_loadu(const float *p) { return vld1q_f32(p); }
MN_LANE void vf_storeu(float *p, vf v) { vst1q_f32(p, v); }

MN_LANE vf vf_add(vf a, vf b) { return vaddq_f32(a, b); }
MN_LANE vf vf_sub(vf a, vf b) { return vsubq_f32(a, b); }
MN_LANE vf vf_mul(vf a, vf b) { return vmulq_f32(a, b); }
MN_LANE vf vf_div(vf a, vf b) { return vdivq_f32(a, b); }
MN_LANE vf vf_sqrt(vf a) { return vsqrtq_f32(a); }
/* a·b + c, fused */
MN_LANE vf vf_madd(vf a, vf b, vf c) { return vfmaq_f32(c, a, b); }

/* Four halves (IEEE binary16 bits) to floats, exactly. */
MN_LANE vf vf_load_f16(const uint16_t *h) { return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(h))); }

/* One half to a float, exactly. */
MN_LANE float vf_half1(uint16_t h)
{
    return vgetq_lane_f32(vcvt_f32_f16(vreinterpret_f16_u16(vdup_n_u16(h))), 0);
}
