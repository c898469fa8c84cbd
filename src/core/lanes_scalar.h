/*
 * The lane layer at one lane: vf is a float.  For a kernel written once over
 * the lanes whose scalar reference is its own one-lane instance (the splat
 * deform), included by the family's <k>.c; it spells the subset of
 * lanes_sse2.h such a kernel uses (core/simd.h, the convention).  Plain C,
 * always built.  Not installed.
 */
#ifdef VF_W
#error "one lane layer a translation unit"
#endif

#include <math.h>
#include <stdbool.h>

typedef float vf;
#define VF_W 1

#if defined(__GNUC__)
#define MN_LANE static inline __attribute__((always_inline))
#else
#define MN_LANE static inline
#endif
#define MN_KERNEL
#define MN_ISA(name) name##_scalar

MN_LANE vf vf_set1(float x) { return x; }
MN_LANE vf vf_load(const float *p) { return p[0]; }
MN_LANE void vf_store(float *p, vf v) { p[0] = v; }
MN_LANE vf vf_sqrt(vf a) { return sqrtf(a); }
/* a·b + c, two roundings */
MN_LANE vf vf_madd(vf a, vf b, vf c) { return a * b + c; }
/* 1/a and 1/√a, correctly rounded (the SIMD widths' estimates stand in for these) */
MN_LANE vf vf_rcp(vf a) { return 1.0f / a; }
MN_LANE vf vf_rsqrt(vf a) { return 1.0f / sqrtf(a); }
/* a > b ? x : y; and whether a > b */
MN_LANE vf vf_sel_gt(vf a, vf b, vf x, vf y) { return a > b ? x : y; }
MN_LANE bool vf_all_gt(vf a, vf b) { return a > b; }
/* x negated where s has its sign bit set */
MN_LANE vf vf_flipsign(vf x, vf s) { return signbit(s) ? -x : x; }
