/*
 * libFuzzer target for the rig.json reader: bytes → mn_voxel_rig_read_memory
 * → check what the reader promises → mn_voxel_rig_free.  A refused input
 * must come back with an error code, a terminated message and no rig; an
 * accepted one must hold a rig that posing can trust without checking again
 * (voxel-rig-format.md): every index in range, part_order a parents-first
 * permutation, each part's joint list exactly its joints in declared order,
 * unit axes, min <= rest <= max, strictly increasing finite key times,
 * loop periods that cover their tracks, and names the find functions return.
 * Any broken promise aborts, under ASan and UBSan.
 *
 *     make fuzz                    (each target for 30 s, corpus fuzz/corpus/voxel_rig)
 *     build/fuzz/fuzz_voxel_rig -dict=fuzz/dict/voxel_rig.dict CORPUS_DIR fuzz/corpus/voxel_rig
 */
#include <marionette/voxel/rig.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check(bool ok)
{
    if (!ok)
        abort();
}

static void check_parts(const mn_voxel_rig *rig)
{
    uint32_t n = rig->part_count;
    check(n > 0);
    uint8_t *placed = calloc(n, 1);
    check(placed != NULL);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t p = rig->part_order[k];
        check(p < n && !placed[p]);
        check(rig->parts[p].parent == MN_NONE || (rig->parts[p].parent < n && placed[rig->parts[p].parent]));
        placed[p] = 1;
    }
    free(placed);
    for (uint32_t p = 0; p < n; p++) {
        const mn_voxel_part *part = &rig->parts[p];
        check(part->name != NULL && mn_voxel_rig_find_part(rig, part->name) == p);
        for (int k = 0; k < 3; k++)
            check(isfinite(part->pivot[k]));
        uint32_t previous = 0;
        for (uint32_t i = 0; i < part->joint_count; i++) {
            uint32_t j = part->joints[i];
            check(j < rig->joint_count && rig->joints[j].part == p && (i == 0 || j > previous));
            previous = j;
        }
        if (part->extras)
            check(part->extras[0] == '{');
    }
}

static void check_joints(const mn_voxel_rig *rig)
{
    uint32_t listed = 0;
    for (uint32_t p = 0; p < rig->part_count; p++)
        listed += rig->parts[p].joint_count;
    check(listed == rig->joint_count);
    for (uint32_t j = 0; j < rig->joint_count; j++) {
        const mn_voxel_joint *jt = &rig->joints[j];
        check(jt->name != NULL && mn_voxel_rig_find_joint(rig, jt->name) == j);
        check(jt->part < rig->part_count);
        float len = sqrtf(jt->axis[0] * jt->axis[0] + jt->axis[1] * jt->axis[1] + jt->axis[2] * jt->axis[2]);
        check(fabsf(len - 1.0f) < 1e-5f);
        check(isfinite(jt->min) && isfinite(jt->max) && jt->min <= jt->rest && jt->rest <= jt->max);
        for (int k = 0; k < 3; k++)
            check(isfinite(jt->orient[k]) && isfinite(jt->offset[k]));
        check(jt->has_mount || (jt->orient[0] == 0 && jt->offset[0] == 0));
    }
}

static void check_animations(const mn_voxel_rig *rig)
{
    for (uint32_t a = 0; a < rig->animation_count; a++) {
        const mn_voxel_animation *anim = &rig->animations[a];
        check(anim->name != NULL && mn_voxel_rig_find_animation(rig, anim->name) == a);
        check(isfinite(anim->duration_ms) && anim->duration_ms >= 0.0);
        check(!anim->loop || anim->duration_ms > 0.0);
        for (uint32_t t = 0; t < anim->track_count; t++) {
            const mn_voxel_track *track = &anim->tracks[t];
            const mn_fcurve *c = &track->curve;
            check(track->joint < rig->joint_count);
            for (uint32_t u = 0; u < t; u++)
                check(anim->tracks[u].joint != track->joint);
            check(c->key_count > 0 && c->loop == anim->loop && c->duration_ms == anim->duration_ms);
            for (uint32_t k = 0; k < c->key_count; k++) {
                const mn_fcurve_key *key = &c->keys[k];
                check(isfinite(key->t) && isfinite(key->v) && (k == 0 || key->t > c->keys[k - 1].t));
                check(key->interp >= MN_FCURVE_CONSTANT && key->interp <= MN_FCURVE_EASE_IN_OUT);
                check(!key->has_handle_left || (isfinite(key->handle_left[0]) && isfinite(key->handle_left[1])));
                check(!key->has_handle_right || (isfinite(key->handle_right[0]) && isfinite(key->handle_right[1])));
            }
            check(!c->loop || c->keys[c->key_count - 1].t - c->keys[0].t <= c->duration_ms);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mn_voxel_rig *rig = NULL;
    mn_error err;
    mn_status status = mn_voxel_rig_read_memory(data, size, NULL, &rig, &err);
    if (status != MN_OK) {
        check(rig == NULL && err.code == status && memchr(err.message, '\0', sizeof err.message) != NULL &&
              memchr(err.path, '\0', sizeof err.path) != NULL);
        return 0;
    }
    check(rig != NULL && err.code == MN_OK);
    check(rig->kind >= MN_VOXEL_CUBE && rig->kind <= MN_VOXEL_STATIC);
    check(isfinite(rig->voxel_size) && rig->voxel_size > 0.0f);
    check_parts(rig);
    check_joints(rig);
    check_animations(rig);
    mn_voxel_rig_free(rig);
    return 0;
}
