/*
 * The lane layer at WebAssembly SIMD (wasm_simd128.h): vf is four floats
 * (v128_t).  The operations of lanes_sse2.h (core/simd.h, the convention)
 * that the WebAssembly kernels use, and the loads, stores and shuffles they
 * need spelled as the single WebAssembly operations a browser's compiler
 * turns into one instruction each.  Include from an instruction-set file
 * under #if MN_WITH_WASM, one lane header a translation unit.  Not installed.
 *
 * Why the kernels that have one do not go through emscripten's SSE2 headers
 * (which the rest of the web build uses): those headers emulate what
 * WebAssembly lacks (_mm_rsqrt_ps is a square root and a division), and a
 * shuffle whose unused lanes the compiler leaves undefined is written with
 * lane 0 in their place, a pattern the engine does not recognise and spells
 * as two byte shuffles and an or.  Every shuffle here uses all its lanes.
 * WebAssembly has no fused multiply-add: vf_madd rounds twice.
 */
#ifdef VF_W
#error "one lane layer a translation unit"
#endif

#include <stdbool.h>
#include <stdint.h>
#include <wasm_simd128.h>

typedef v128_t vf;
#define VF_W 4

/* WebAssembly SIMD is the whole web build's target: the attributes add none. */
#define MN_LANE static inline __attribute__((always_inline))
#define MN_KERNEL
#define MN_ISA(name) name##_wasm

MN_LANE vf vf_set1(float x) { return wasm_f32x4_splat(x); }
MN_LANE vf vf_zero(void) { return wasm_f32x4_splat(0.0f); }
MN_LANE vf vf_loadu(const float *p) { return wasm_v128_load(p); }
MN_LANE void vf_storeu(float *p, vf v) { wasm_v128_store(p, v); }
/* *p in every lane (one load, no shuffle) */
MN_LANE vf vf_load1(const float *p) { return wasm_v128_load32_splat(p); }
/* lanes 0..2 to p[0..2], nothing else */
MN_LANE void vf_store3(float *p, vf v)
{
    wasm_v128_store64_lane(p, v, 0);
    wasm_v128_store32_lane(p + 2, v, 2);
}

MN_LANE vf vf_add(vf a, vf b) { return wasm_f32x4_add(a, b); }
MN_LANE vf vf_sub(vf a, vf b) { return wasm_f32x4_sub(a, b); }
MN_LANE vf vf_mul(vf a, vf b) { return wasm_f32x4_mul(a, b); }
MN_LANE vf vf_div(vf a, vf b) { return wasm_f32x4_div(a, b); }
MN_LANE vf vf_sqrt(vf a) { return wasm_f32x4_sqrt(a); }
/* a·b + c */
MN_LANE vf vf_madd(vf a, vf b, vf c) { return wasm_f32x4_add(wasm_f32x4_mul(a, b), c); }

MN_LANE vf vf_and(vf a, vf b) { return wasm_v128_and(a, b); }
MN_LANE vf vf_gt(vf a, vf b) { return wasm_f32x4_gt(a, b); }

/* Lane i of v in every lane (pshufd). */
#define VF_SPLAT(v, i) wasm_i32x4_shuffle((v), (v), (i), (i), (i), (i))
/* a0 b0 a1 b1 and a2 b2 a3 b3 (unpcklps, unpckhps) */
MN_LANE vf vf_unpacklo(vf a, vf b) { return wasm_i32x4_shuffle(a, b, 0, 4, 1, 5); }
MN_LANE vf vf_unpackhi(vf a, vf b) { return wasm_i32x4_shuffle(a, b, 2, 6, 3, 7); }
/* a0 a1 b0 b1 and a2 a3 b2 b3 (the 64-bit halves) */
MN_LANE vf vf_lohalves(vf a, vf b) { return wasm_i64x2_shuffle(a, b, 0, 2); }
MN_LANE vf vf_hihalves(vf a, vf b) { return wasm_i64x2_shuffle(a, b, 1, 3); }
/* a0 a1 a2 b3: x y z of a, w of b (a blend) */
MN_LANE vf vf_xyz_w(vf a, vf b) { return wasm_i32x4_shuffle(a, b, 0, 1, 2, 7); }
