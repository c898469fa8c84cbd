/*
 * Dual-quaternion skinning with SSE2 (the x86-64 baseline, so always
 * available there): dual_quat_kernel.h over core/lanes_sse2.h, four vertices
 * a group, one a lane.  SSE2 has no fused multiply-add and every step runs
 * in the reference's order, so this kernel gives dual_quat.c's bits.
 *
 * What is SSE2's own is the store of a 3-float output (DQ_STORE3): the
 * group's x y z rows transposed into one register a vertex, stored in lane
 * order, 16 bytes a vertex in a packed stream (the fourth float lands on the
 * next vertex's x, which that vertex's store then overwrites) and exactly 12
 * for the group's last vertex and in strided streams.
 */
#include "deform/internal.h"

#if MN_WITH_SSE2

#include "core/lanes_sse2.h"

#include <string.h>

/* Store lanes 0..2 (x y z) of v and nothing else. */
MN_LANE void store3(float *out, __m128 v)
{
    _mm_storel_pi((__m64 *)(void *)out, v);
    _mm_store_ss(out + 2, _mm_movehl_ps(v, v));
}

MN_LANE void dq_store3(float *const p[VF_W], const vf v[3], bool packed)
{
    __m128 a = v[0], b = v[1], c = v[2], d = _mm_setzero_ps();
    _MM_TRANSPOSE4_PS(a, b, c, d);
    if (packed) {
        _mm_storeu_ps(p[0], a);
        _mm_storeu_ps(p[1], b);
        _mm_storeu_ps(p[2], c);
    } else {
        store3(p[0], a);
        store3(p[1], b);
        store3(p[2], c);
    }
    store3(p[3], d);
}

#define DQ_LOAD4 vf_load_t4
#define DQ_STORE4 vf_store_t4
#define DQ_STORE3 dq_store3
#include "deform/dual_quat_kernel.h"

#else
/* ISO C wants a translation unit to declare something. */
typedef int mn_dual_quat_sse2_unused;
#endif
