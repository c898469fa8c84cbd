/*
 * libFuzzer target for compressed clips (.mnanim): bytes (copied to an
 * 8-aligned buffer, as a file mapped or read into malloc'd memory is) →
 * mn_compressed_clip_view → every promise of a view: the info inside the
 * block, sampling at times inside, before and past the clip (directly and
 * through an mn_clip view with a cursor) into a pose of the clip's space,
 * never reading outside the block.  A refusal carries a code and no view.
 *
 *     build/fuzz/fuzz_mnanim CORPUS_DIR fuzz/corpus/mnanim
 */
#include <marionette/compress.h>

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
    uint64_t *buffer = malloc((size / 8 + 1) * 8);
    if (!buffer)
        return 0;
    memcpy(buffer, data, size);
    const mn_compressed_clip *clip = NULL;
    mn_error err;
    if (mn_compressed_clip_view(buffer, size, &clip, &err) != MN_OK) {
        check(clip == NULL && err.code != MN_OK);
        free(buffer);
        return 0;
    }
    mn_compressed_clip_info info = mn_compressed_clip_info_of(clip);
    check(info.bytes <= size && info.frame_count >= 1);
    check((const uint8_t *)info.name >= (const uint8_t *)buffer &&
          (const uint8_t *)info.name + strlen(info.name) < (const uint8_t *)buffer + info.bytes);
    uint32_t joints = info.space.kind == MN_SPACE_UNBOUND ? 64u : info.space.count;
    if (joints > 4096) {
        free(buffer);
        return 0;
    }
    mn_pose pose;
    if (mn_pose_create(&pose, joints, NULL, &err) != MN_OK) {
        free(buffer);
        return 0;
    }
    if (info.space.kind != MN_SPACE_UNBOUND)
        check(mn_pose_bind(&pose, info.space, &err) == MN_OK);
    mn_clip *view = NULL;
    check(mn_clip_from_compressed(clip, NULL, &view, &err) == MN_OK);
    void *storage = malloc(mn_clip_cursor_storage_size(view) + 4);
    mn_clip_cursor cursor;
    mn_clip_cursor_init(&cursor, view, storage);
    const float times[] = {-1.0f, 0.0f, 0.3f * info.duration, info.duration, info.duration + 5.0f};
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        check(mn_compressed_clip_sample(clip, times[i], &pose, &err) == MN_OK);
        check(mn_clip_sample_cursor(view, times[i], &cursor, &pose, &err) == MN_OK);
    }
    free(storage);
    mn_clip_free(view);
    mn_pose_free(&pose);
    free(buffer);
    return 0;
}
