/*
 * libFuzzer target for the corrective index reader: bytes →
 * mn_corrective_index_read (splatCount 1000, a four-joint rig) → check every
 * promise (drives name joints, distinct sides, fromDeg < toDeg, plain paths,
 * at most two played) → weights from an identity pose are in [0, 1] → free.
 *
 *     build/fuzz/fuzz_corrective CORPUS_DIR fuzz/corpus/corrective
 */
#include <marionette/character/corrective.h>
#include <marionette/math.h>

#include <stdint.h>
#include <stdlib.h>

static const char *const NAMES[] = {"Spine", "LeftArm", "LeftForeArm", "RightArm"};

static void check(bool ok)
{
    if (!ok)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mn_corrective_index *ix = NULL;
    mn_error err;
    if (mn_corrective_index_read(data, size, 1000, NAMES, 4, NULL, &ix, &err) != MN_OK) {
        check(ix == NULL && err.code != MN_OK);
        return 0;
    }
    check(ix->splat_count == 1000 && ix->played_count <= MN_CORRECTIONS_PLAYED);
    for (uint32_t c = 0; c < ix->correction_count; c++) {
        const mn_correction *cor = &ix->corrections[c];
        check(cor->drive_count >= 1 && cor->drive_count <= 2);
        for (int f = 0; f < MN_CORRECTIVE_FILE_COUNT; f++)
            check(mn_corrective_path_is_plain(cor->files[f], false));
        for (uint32_t d = 0; d < cor->drive_count; d++) {
            const mn_corrective_drive *dr = &cor->drives[d];
            check(dr->upper < 4 && dr->next < 4 && dr->frame < 4 && dr->side <= 1);
            check(dr->from_deg < dr->to_deg);
        }
        if (cor->drive_count == 2)
            check(cor->drives[0].side != cor->drives[1].side);
    }
    float worlds[64], skin[64], w[4];
    for (int j = 0; j < 4; j++) {
        mn_mat4_identity(worlds + 16 * j);
        mn_mat4_identity(skin + 16 * j);
        worlds[16 * j + 12] = (float)j * 0.1f;
    }
    mn_corrective_weights(ix, worlds, skin, w);
    for (int k = 0; k < 4; k++)
        check(w[k] >= 0 && w[k] <= 1);
    mn_corrective_index_free(ix);
    return 0;
}
