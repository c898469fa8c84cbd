/*
 * libFuzzer target for the SOMA clip reader: bytes → mn_soma_clips_read for
 * a fixed three-joint skeleton → check every kept clip (positive fps and
 * frames, duration (frames − 1)/fps, unique names, an mn_clip) and every drop
 * (an error code, a message) → sample each clip at its ends and middle and
 * check the rotations are unit → free.
 *
 *     build/fuzz/fuzz_soma_clips CORPUS_DIR fuzz/corpus/soma_clips
 */
#include <marionette/character/soma.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char SKELETON[] =
    "{\"format\":\"aosrig-v2-skeleton\",\"groundOffset\":0.1,\"hips\":\"Hips\",\"joints\":["
    "{\"name\":\"Hips\",\"parent\":-1,\"localPosition\":[0,1,0],\"localRotation\":[0,0,0,1],"
    "\"inverseBind\":[1,0,0,0,0,1,0,0,0,0,1,0,0,-1,0,1]},"
    "{\"name\":\"Arm\",\"parent\":0,\"localPosition\":[0.2,0,0],\"localRotation\":[0,0,0,1],"
    "\"inverseBind\":[1,0,0,0,0,1,0,0,0,0,1,0,-0.2,-1,0,1]},"
    "{\"name\":\"Hand\",\"parent\":1,\"localPosition\":[0.3,0,0],\"localRotation\":[0,0,0,1],"
    "\"inverseBind\":[1,0,0,0,0,1,0,0,0,0,1,0,-0.5,-1,0,1]}]}";

static void check(bool ok)
{
    if (!ok)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static mn_soma_skeleton *sk;
    if (!sk && mn_soma_skeleton_read(SKELETON, sizeof SKELETON - 1, NULL, 0, NULL, &sk, NULL) != MN_OK)
        abort();
    mn_soma_clips *clips = NULL;
    mn_error err;
    if (mn_soma_clips_read(data, size, sk, NULL, &clips, &err) != MN_OK) {
        check(clips == NULL && err.code != MN_OK);
        return 0;
    }
    float storage[256];
    mn_pose pose;
    check(mn_pose_storage_size(3) <= sizeof storage);
    mn_pose_init(&pose, 3, storage);
    for (uint32_t i = 0; i < clips->clip_count; i++) {
        const mn_soma_clip *c = &clips->clips[i];
        check(c->fps > 0 && c->frames >= 1 && c->clip && c->name);
        check(mn_soma_clips_find(clips, c->name) == c);
        const float times[4] = {-1, 0, c->duration * 0.5f, c->duration + 1};
        for (int k = 0; k < 4; k++) {
            mn_soma_rest_pose(sk, &pose);
            check(mn_clip_sample(c->clip, times[k], &pose, NULL) == MN_OK);
            for (uint32_t j = 0; j < 3; j++) {
                const float *q = pose.rotations + 4 * j;
                check(fabsf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] - 1) < 1e-3f);
            }
        }
    }
    for (uint32_t i = 0; i < clips->dropped_count; i++)
        check(clips->dropped[i].code != MN_OK && clips->dropped[i].message && clips->dropped[i].name);
    mn_soma_clips_free(clips);
    return 0;
}
