/*
 * The SIMD convention.  Every kernel family of the library follows it: mesh
 * skinning (deform/skin), the pose blends (anim/blend), the clip sampler
 * (anim/clip), the splat deform (character/splat_skin) and the expression
 * head (head/expression).  Not installed.
 *
 * 1. Levels.  mn_simd_level (marionette/core.h) is the one enum of
 *    instruction sets, for callers and inside the library alike.  One
 *    function asks the CPU: mn_simd_detect() (core/cpu.c), "the widest
 *    level this CPU and this build run".  mni_simd_resolve(wanted)
 *    (core/core.h) turns a caller's level into the level to run, by the
 *    rule marionette/core.h states, and every dispatch starts from its
 *    answer.  (mni_cpu_has_f16c() is the one extra bit a family needs: the
 *    expression head's half conversion, asked when a head picks its kernel.)
 *
 * 2. Files.  A family <k> is
 *      <k>.c          the scalar reference (plain C, always built, the meaning
 *                     of every other kernel), the checks, and the dispatch:
 *                     one function per entry point that maps the resolved
 *                     level to the widest kernel the family has not above it,
 *                     falling back to narrower ones and the reference;
 *      <k>_kernel.h   what the instruction sets share, written once: either
 *                     the whole kernel over the lane layer (vf, vf_add, ...),
 *                     or, where an instruction set lays the data out its own
 *                     way, the loops and specialisations around its code;
 *      <k>_sse2.c  <k>_avx2.c  <k>_neon.c
 *                     one thin file per instruction set it has: includes
 *                     core/simd.h, then inside #if MN_WITH_<ISA> its lane
 *                     header core/lanes_<isa>.h and <k>_kernel.h, and holds
 *                     only what that instruction set does differently (with
 *                     its intrinsics, where the lane layer does not reach).
 *                     Its entry points are MN_ISA(mni_<k>...), which the
 *                     lane header spells mni_<k>..._sse2, _avx2 or _neon,
 *                     declared in the family's internal header under the same
 *                     #if.  Outside it the file declares a placeholder type
 *                     (ISO C wants a translation unit to declare something).
 *    A width-generic kernel whose reference is its own one-lane instance
 *    (the splat deform) includes core/lanes_scalar.h in <k>.c.
 *
 * 3. Targets.  No file gets compiler flags of its own.  The lane header
 *    gives each instruction set two attributes: MN_LANE (static, always
 *    inlined, compiled for the instruction set) for every helper and
 *    MN_KERNEL (compiled for it, not inlined) for the entry points.  The rest
 *    of the library stays at its architecture's baseline (x86-64: SSE2;
 *    AArch64: Advanced SIMD), so it runs on any CPU of the architecture, and
 *    an AVX2 function is entered only from a dispatch that resolved
 *    MN_SIMD_AVX2_FMA.  AVX2 code is compiled for AVX2, FMA and F16C; only
 *    the expression head uses F16C, and its dispatch asks for it.  Helpers
 *    that take or return __m256 are always inlined into their MN_KERNEL, so
 *    an AVX2 function only ever returns to the baseline through an entry
 *    point, which the compiler ends with vzeroupper (a non-inlined helper
 *    could return with dirty upper halves and slow the SSE code after it).
 *    The rule, for every function that touches a ymm register (the AVX2
 *    kernels, and those with target attributes of their own): vzeroupper
 *    before each return, tail call or call out; where the compiler would not
 *    insert it, _mm256_zeroupper() at the end of the entry point.
 *    tests/test_vzeroupper.sh checks the library's object code for it.
 *
 * 4. Bits.  The library is compiled with -ffp-contract=off: no compiler fuses
 *    a·b + c unless a kernel asks for it (vf_madd, fused on AVX2 and NEON,
 *    two roundings on SSE2 and the reference).  Kernels that promise the
 *    reference's bits (the clip sampler, the pose blends, SSE2 skinning) use
 *    plain IEEE operations in the reference's order, and their tests check
 *    the bits; the others agree within the rounding their header states.
 *
 * WebAssembly.  The web build (scripts/web-build) compiles with -msimd128
 *    -msse2: MN_WITH_SSE2 is 1 there and the SSE2 kernels run as WebAssembly
 *    SIMD through emscripten's SSE2 headers; mn_simd_detect() says
 *    MN_SIMD_SSE2.  A family may have a kernel written for WebAssembly SIMD
 *    itself (<k>_wasm.c over core/lanes_wasm.h, under MN_WITH_WASM, entry
 *    points MN_ISA(...) spelled ..._wasm), which its dispatch then runs at
 *    MN_SIMD_SSE2 in place of the SSE2 one: skinning has one
 *    (deform/skin_wasm.c says why).  anim/skeleton.c guards its SSE2
 *    kernels by MN_WITH_SSE2 alone and its AVX2 ones by MN_WITH_AVX2 too, so
 *    the web build runs the SSE2 ones.
 *
 * 5. MN_NO_SIMD.  -DMN_NO_SIMD=ON (make scalar) sets every MN_WITH_<ISA> to
 *    0: the instruction-set files compile to their placeholders, the
 *    dispatches' SIMD cases are compiled out, mn_simd_detect() says
 *    MN_SIMD_SCALAR, and the test suite runs the reference alone.
 *
 * Not yet in files of their own: the SSE2 and AVX2 kernels of
 * anim/skeleton.c and the AVX2 kernel of voxel/pose.c sit beside their
 * references, with target attributes of their own (their levels, guards
 * and dispatch follow 1 and 5); model/accessor.c and model/query.c have
 * SSE2 loops chosen at compile time (the x86-64 baseline), no dispatch.
 */
#ifndef MN_CORE_SIMD_H
#define MN_CORE_SIMD_H

#include "core/core.h"

/* Which instruction sets this build has kernels for (GCC and clang, which the attributes need). */
#if !defined(MN_NO_SIMD) && defined(__GNUC__) && defined(__x86_64__)
#define MN_WITH_SSE2 1
#define MN_WITH_AVX2 1
#elif !defined(MN_NO_SIMD) && defined(__EMSCRIPTEN__) && defined(__wasm_simd128__) && defined(__SSE2__)
/* WebAssembly SIMD (the web build, -msimd128 -msse2): the SSE2 kernels, through emscripten's
   SSE2 headers, which lower each intrinsic to WebAssembly's 128-bit operations.  There is
   no AVX2 there; MN_SIMD_SSE2 names this level. */
#define MN_WITH_SSE2 1
#define MN_WITH_AVX2 0
#else
#define MN_WITH_SSE2 0
#define MN_WITH_AVX2 0
#endif

/* WebAssembly SIMD's own kernels (lanes_wasm.h), where a family has one (deform/skin_wasm.c); the
   families without one run their SSE2 kernels as above. */
#if !defined(MN_NO_SIMD) && defined(__EMSCRIPTEN__) && defined(__wasm_simd128__)
#define MN_WITH_WASM 1
#else
#define MN_WITH_WASM 0
#endif

/* 32-bit ARM runs the reference: its NEON has no vector divide or square root. */
#if !defined(MN_NO_SIMD) && defined(__GNUC__) && defined(__aarch64__) && defined(__ARM_NEON)
#define MN_WITH_NEON 1
#else
#define MN_WITH_NEON 0
#endif

#endif /* MN_CORE_SIMD_H */
