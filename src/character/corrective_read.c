/*
 * corrective/index.json (docs/formats.md):
 * every rule checked at load, paths kept plain so no file outside
 * corrective/ can be named.
 */
#include <marionette/character/corrective.h>

#include "io/io.h"
#include "character/soma_internal.h"

#include <stddef.h>
#include <string.h>

struct mn_corrective_private {
    mn_arena arena;
};

typedef struct index_holder {
    mn_corrective_index pub;
    struct mn_corrective_private priv;
} index_holder;

static const char *const file_keys[MN_CORRECTIVE_FILE_COUNT] = {"points", "pointsSide", "bindings",
                                                                "side", "fade"};

bool mn_corrective_path_is_plain(const char *path, bool allow_parent)
{
    if (!path || !*path || *path == '/')
        return false;
    const char *p = path;
    if (allow_parent)
        while (strncmp(p, "../", 3) == 0)
            p += 3;
    const char *seg = p;
    for (const char *c = p;; c++) {
        unsigned char ch = (unsigned char)*c;
        if (ch == '/' || ch == 0) {
            size_t len = (size_t)(c - seg);
            if (len == 0 || (len == 1 && seg[0] == '.') || (len == 2 && seg[0] == '.' && seg[1] == '.'))
                return false;
            if (ch == 0)
                return true;
            seg = c + 1;
            continue;
        }
        if (ch < 0x20 || ch == 0x7f || strchr("\\:?#%", ch))
            return false;
    }
}

static mn_status joint_member(mn_json *j, json_t *obj, json_t *v, const char *key,
                              const mni_names_sorted *names, uint32_t *out)
{
    (void)obj;
    if (!json_is_string(v))
        return mni_json_fail(j, MN_JSON_TYPE, key, "expected a joint name, found %s",
                             mni_json_type_name(v));
    *out = mni_names_find(names, json_string_value(v));
    if (*out == UINT32_MAX)
        return mni_json_fail(j, MN_INDEX_RANGE, key, "\"%s\" names no joint of the rig",
                             json_string_value(v));
    return MN_OK;
}

static mn_status read_drive(mn_json *j, json_t *d, const mni_names_sorted *names,
                            mn_corrective_drive *out)
{
    if (!json_is_object(d))
        return mni_json_fail(j, MN_JSON_TYPE, NULL, "expected an object, found %s", mni_json_type_name(d));
    mn_status st = mni_json_u32(j, d, "side", true, 0, 1, &out->side);
    if (st != MN_OK)
        return st;
    json_t *bone;
    if ((st = mni_json_array(j, d, "bone", true, &bone)) != MN_OK)
        return st;
    if (json_array_size(bone) != 2)
        return mni_json_fail(j, MN_INVALID_VALUE, "bone", "expected [upper, next], found %zu names",
                             json_array_size(bone));
    if ((st = joint_member(j, d, json_array_get(bone, 0), "bone", names, &out->upper)) != MN_OK ||
        (st = joint_member(j, d, json_array_get(bone, 1), "bone", names, &out->next)) != MN_OK)
        return st;
    json_t *frame = json_object_get(d, "frame");
    if (!frame)
        return mni_json_fail(j, MN_MISSING_PROPERTY, "frame", "required property is missing");
    if ((st = joint_member(j, d, frame, "frame", names, &out->frame)) != MN_OK ||
        (st = mni_json_float(j, d, "restDeg", true, &out->rest_deg)) != MN_OK ||
        (st = mni_json_float(j, d, "fromDeg", true, &out->from_deg)) != MN_OK ||
        (st = mni_json_float(j, d, "toDeg", true, &out->to_deg)) != MN_OK)
        return st;
    if (!(out->from_deg < out->to_deg))
        return mni_json_fail(j, MN_INVALID_VALUE, "toDeg", "fromDeg %g is not below toDeg %g",
                             out->from_deg, out->to_deg);
    const char *curve;
    if ((st = mni_json_string_ref(j, d, "curve", true, &curve, NULL)) != MN_OK)
        return st;
    if (strcmp(curve, "smoothstep") != 0)
        return mni_json_fail(j, MN_INVALID_VALUE, "curve", "\"%s\" is not \"smoothstep\"", curve);
    return MN_OK;
}

static mn_status read_correction(mn_json *j, json_t *c, const mni_names_sorted *names,
                                 mn_correction *out)
{
    if (!json_is_object(c))
        return mni_json_fail(j, MN_JSON_TYPE, NULL, "expected an object, found %s", mni_json_type_name(c));
    mn_status st;
    if ((st = mni_json_string(j, c, "name", true, &out->name)) != MN_OK ||
        (st = mni_json_string(j, c, "label", false, &out->label)) != MN_OK ||
        (st = mni_json_u32(j, c, "points", true, 0, UINT32_MAX, &out->points)) != MN_OK ||
        (st = mni_json_float(j, c, "trainedDeg", false, &out->trained_deg)) != MN_OK)
        return st;
    json_t *files, *sha;
    if ((st = mni_json_object(j, c, "files", true, &files)) != MN_OK ||
        (st = mni_json_object(j, c, "sha256", false, &sha)) != MN_OK)
        return st;
    for (int f = 0; f < MN_CORRECTIVE_FILE_COUNT; f++) {
        size_t mark = mni_json_push_key(j, "files");
        if ((st = mni_json_string(j, files, file_keys[f], true, &out->files[f])) != MN_OK)
            return st;
        if (!mn_corrective_path_is_plain(out->files[f], false))
            return mni_json_fail(j, MN_INVALID_VALUE, file_keys[f],
                                 "\"%s\" is not a plain relative path under corrective/", out->files[f]);
        mni_json_pop(j, mark);
        if (sha) {
            mark = mni_json_push_key(j, "sha256");
            if ((st = mni_json_string(j, sha, file_keys[f], false, &out->sha256[f])) != MN_OK)
                return st;
            mni_json_pop(j, mark);
        }
    }
    json_t *drives;
    uint32_t dn;
    if ((st = mni_json_array_count(j, c, "drives", true, &drives, &dn)) != MN_OK)
        return st;
    if (dn < 1 || dn > 2)
        return mni_json_fail(j, MN_INVALID_VALUE, "drives", "%u drives: a correction has one or two", dn);
    size_t mark = mni_json_push_key(j, "drives");
    for (uint32_t d = 0; d < dn; d++) {
        size_t m2 = mni_json_push_index(j, d);
        if ((st = read_drive(j, json_array_get(drives, d), names, &out->drives[d])) != MN_OK)
            return st;
        if (d == 1 && out->drives[1].side == out->drives[0].side)
            return mni_json_fail(j, MN_INVALID_VALUE, "side", "both drives are on side %u",
                                 out->drives[1].side);
        mni_json_pop(j, m2);
    }
    mni_json_pop(j, mark);
    out->drive_count = dn;
    return MN_OK;
}

static mn_status read_index(mn_json *j, json_t *root, uint32_t splat_count,
                            const mni_names_sorted *names, mn_corrective_index *out)
{
    uint32_t version;
    mn_status st = mni_soma_json_format(j, root, "index.json", "aosrig-corrective");
    if (st != MN_OK)
        return st;
    if ((st = mni_json_u32(j, root, "version", true, 0, UINT32_MAX, &version)) != MN_OK)
        return st;
    if (version != 1)
        return mni_json_fail(j, MN_INVALID_VALUE, "version", "unsupported version %u", version);
    if ((st = mni_json_u32(j, root, "splatCount", true, 0, UINT32_MAX, &out->splat_count)) != MN_OK)
        return st;
    if (out->splat_count != splat_count)
        return mni_json_fail(j, MN_COUNT_MISMATCH, "splatCount", "splatCount %u, but the package has %u",
                             out->splat_count, splat_count);
    json_t *list;
    uint32_t cn;
    if ((st = mni_json_array_count(j, root, "corrections", true, &list, &cn)) != MN_OK)
        return st;
    mn_correction *c = mni_arena_calloc(j->arena, cn ? cn : 1, sizeof *c, _Alignof(mn_correction));
    if (!c)
        return mni_json_oom(j, NULL, NULL);
    size_t mark = mni_json_push_key(j, "corrections");
    for (uint32_t i = 0; i < cn; i++) {
        size_t m2 = mni_json_push_index(j, i);
        if ((st = read_correction(j, json_array_get(list, i), names, &c[i])) != MN_OK)
            return st;
        mni_json_pop(j, m2);
    }
    mni_json_pop(j, mark);
    out->corrections = c;
    out->correction_count = cn;
    out->played_count = cn < MN_CORRECTIONS_PLAYED ? cn : MN_CORRECTIONS_PLAYED;
    out->extra_warning = cn > MN_CORRECTIONS_PLAYED;
    return MN_OK;
}

typedef struct index_rig {
    uint32_t splat_count;
    const char *const *joint_names;
    uint32_t joint_count;
} index_rig;

static mn_status read_index_holder(void *holder, mn_json *j, json_t *root, const void *ctx)
{
    index_holder *h = holder;
    const index_rig *rig = ctx;
    h->pub.priv_ = &h->priv;
    /* The rig's names sorted once (scratch): a drive's joint is then a log n lookup, not a scan. */
    mn_arena scratch;
    mni_arena_init(&scratch, &j->arena->allocator);
    mni_names_sorted names;
    mn_status st = mni_names_sort(&names, &scratch, rig->joint_names, rig->joint_count)
                       ? read_index(j, root, rig->splat_count, &names, &h->pub)
                       : mni_json_oom(j, NULL, NULL);
    mni_arena_release(&scratch);
    return st;
}

static const mn_soma_holder_kind index_kind = {"corrective index", sizeof(index_holder),
                                               offsetof(index_holder, priv.arena),
                                               read_index_holder, NULL};

mn_status mn_corrective_index_read(const void *json, size_t size, uint32_t splat_count,
                                   const char *const *joint_names, uint32_t joint_count,
                                   const mn_allocator *allocator, mn_corrective_index **out,
                                   mn_error *err)
{
    mn_error local;
    if (!err)
        err = &local;
    mni_error_clear(err);
    if (!out || (!json && size) || (!joint_names && joint_count))
        return mni_fail(err, MN_INVALID_ARGUMENT, "corrective index: NULL argument");
    *out = NULL;
    index_rig rig = {splat_count, joint_names, joint_count};
    void *h = NULL;
    mn_status st = mni_soma_holder_read(&index_kind, json, size, allocator, &rig, &h, err);
    if (st == MN_OK)
        *out = &((index_holder *)h)->pub;
    return st;
}

void mn_corrective_index_free(mn_corrective_index *index)
{
    if (!index)
        return;
    index_holder *h = (index_holder *)index;
    mni_arena_release_holder(&h->priv.arena, h, sizeof *h);
}
