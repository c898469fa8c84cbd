/*
 * libFuzzer target for the SOMA skeleton reader: bytes →
 * mn_soma_skeleton_read → check what the reader promises (parents earlier,
 * rotations unit, twist segments well-formed, hips a joint) → pose the rest
 * with the twist helpers and check the helpers' rotations are finite → free.  A
 * refusal must come with a code, a terminated message and no skeleton.
 *
 *     build/fuzz/fuzz_soma_skeleton CORPUS_DIR fuzz/corpus/soma_skeleton
 */
#include <marionette/character/soma.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check(bool ok)
{
    if (!ok)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mn_soma_skeleton *sk = NULL;
    mn_error err;
    if (mn_soma_skeleton_read(data, size, NULL, 0, NULL, &sk, &err) != MN_OK) {
        check(sk == NULL && err.code != MN_OK && memchr(err.message, 0, sizeof err.message));
        return 0;
    }
    uint32_t n = sk->joint_count;
    check(sk->hips < n);
    for (uint32_t j = 0; j < n; j++) {
        check(sk->parents[j] >= -1 && sk->parents[j] < (int32_t)j);
        const float *q = sk->local_rotations + 4 * j;
        check(fabsf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] - 1) < 1e-4f);
    }
    for (uint32_t t = 0; t < sk->twist_count; t++) {
        const mn_soma_twist *tw = &sk->twists[t];
        check(tw->child < n && sk->parents[tw->child] == (int32_t)tw->bone);
        for (uint32_t h = 0; h < tw->helper_count; h++)
            check(tw->helpers[h].joint < n && sk->has_base[tw->helpers[h].joint]);
    }
    if (n > 0 && n <= 4096) {
        size_t bytes = mn_pose_storage_size(n);
        void *storage = aligned_alloc(16, (bytes + 15) & ~(size_t)15);
        float *worlds = malloc((size_t)n * 16 * sizeof(float));
        float *skin = malloc((size_t)n * 16 * sizeof(float));
        mn_pose pose;
        mn_pose_init(&pose, n, storage);
        mn_soma_rest_pose(sk, &pose);
        mn_soma_pose(sk, &pose, worlds, skin);
        for (uint32_t h = 0; h < sk->twist_count; h++)
            for (uint32_t k = 0; k < sk->twists[h].helper_count; k++)
                check(isfinite(pose.rotations[4 * sk->twists[h].helpers[k].joint + 3]));
        free(skin);
        free(worlds);
        free(storage);
    }
    mn_soma_skeleton_free(sk);
    return 0;
}
