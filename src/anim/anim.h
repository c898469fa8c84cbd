/*
 * The interface anim gives the folders after it (rig): the per-frame jobs an
 * instance runs over a mixer's node hierarchy without going through the
 * mixer's own matrices.  Not installed; the public API is in
 * include/marionette/.
 *
 * The kernels are the skeleton's (skeleton.c: scalar reference, SSE2, and
 * AVX2+FMA, whose rounding differs from the others by about 1e-7 relative),
 * taken with an array of parents instead of a whole mn_skeleton.
 */
#ifndef MN_ANIM_ANIM_H
#define MN_ANIM_ANIM_H

#include <marionette/mixer.h>
#include <marionette/pose.h>

#include <stdbool.h>
#include <stdint.h>

/*
 * World matrices of joints 0 .. count − 1 from a pose: world[j] =
 * world[parents[j]] × T·R·S(pose j), and for a root (parents[j] < 0)
 * root × T·R·S, root being an affine matrix (last row 0 0 0 1; identity when
 * NULL).  Precondition: parents[j] < j.  Through the kernel of `level`
 * (skeleton_internal.h's levels; MN_SIMD_BEST what the CPU runs best);
 * false, nothing written, when that kernel cannot run here.  Allocation-free.
 */
bool mni_local_to_world_kernel(mn_simd_level level, const int16_t *parents, uint32_t count,
                               const mn_pose *pose, const float *root, float *worlds);

/* palette[i] = worlds[joints[i]] × inverse_bind[i] (16 floats each, affine; a copy when NULL). */
typedef struct mni_palette_job {
    const float *worlds;
    const uint32_t *joints;
    const float *inverse_bind;
    uint32_t count;
} mni_palette_job;

/* The palette through the kernel of `level`, as mni_local_to_world_kernel.  palette must not alias worlds. */
bool mni_palette_kernel(mn_simd_level level, const mni_palette_job *job, float *palette);

/*
 * An instance's mixer: mn_mixer_update then only samples (pose and
 * weights), and the locals and model-space worlds are brought up to date
 * when mn_mixer_locals or mn_mixer_worlds asks for them, the worlds through
 * mni_mixer_worlds_under (root NULL).  Set once, right after creation.
 */
mn_status mni_mixer_defer_matrices(mn_mixer *mixer, mn_error *err);

/*
 * The worlds of every node (node order) from the mixer's pose, the roots
 * placed under `root` (affine; NULL: identity, which gives model space), in
 * one pass through the best skeleton kernel: parents-first node orders
 * directly, others through a permuted copy.  Allocation-free.
 */
void mni_mixer_worlds_under(const mn_mixer *mixer, const float *root, float *worlds);

/*
 * Prefetch what the mixer's next update reads and writes (itself, its pose,
 * its current clip's cursor, the kernel's parents): a crowd calls it for the
 * next instance while it updates this one, so that a crowd too big for the
 * cache does not wait on memory instance by instance.  Changes nothing.
 */
void mni_mixer_prefetch(const mn_mixer *mixer);

#endif /* MN_ANIM_ANIM_H */
