/*
 * skeleton.json of a version-2 body (docs/formats.md):
 * joints in parent-first order, inverse binds, the hips, and the twist
 * segments with their helpers.  Every rule is checked at load so the poser
 * runs without tests per frame.
 */
#include <marionette/character/soma.h>

#include "io/io.h"
#include "character/soma_internal.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

struct mn_soma_skeleton_private {
    mn_arena arena;
    mni_names_sorted names;    /* the joints by name: every lookup is log n */
};

typedef struct skeleton_holder {
    mn_soma_skeleton pub;
    struct mn_soma_skeleton_private priv;
} skeleton_holder;

/* Read a quaternion member and normalise it; zero length is refused. */
static mn_status read_rotation(mn_json *j, json_t *obj, const char *key, float out[4])
{
    mn_status st = mni_json_floats(j, obj, key, true, 4, out);
    if (st != MN_OK)
        return st;
    double n = sqrt((double)out[0] * out[0] + (double)out[1] * out[1] + (double)out[2] * out[2] +
                    (double)out[3] * out[3]);
    if (!(n > 0) || !isfinite(n))
        return mni_json_fail(j, MN_INVALID_VALUE, key, "rotation has zero length");
    for (int k = 0; k < 4; k++)
        out[k] = (float)(out[k] / n);
    return MN_OK;
}

typedef struct reader {
    mn_json *j;
    mn_soma_skeleton *sk;
    uint32_t repeat;           /* the first joint whose name an earlier one has, MN_NONE when none */
    const char **names;
    int32_t *parents;
    float *pos, *rot, *ibind, *base;
    uint8_t *has_base;
} reader;

static mn_status read_joint(reader *r, json_t *joint, uint32_t i)
{
    mn_json *j = r->j;
    if (!json_is_object(joint))
        return mni_json_fail(j, MN_JSON_TYPE, NULL, "expected an object, found %s",
                             mni_json_type_name(joint));
    mn_status st = mni_json_string(j, joint, "name", true, &r->names[i]);
    if (st != MN_OK)
        return st;
    if (i == r->repeat)
        return mni_json_fail(j, MN_INVALID_VALUE, "name", "joint name \"%s\" is used twice",
                             r->names[i]);
    json_t *parent = json_object_get(joint, "parent");
    if (!parent)
        return mni_json_fail(j, MN_MISSING_PROPERTY, "parent", "required property is missing");
    if (!json_is_integer(parent) && !(json_is_real(parent) &&
                                      json_real_value(parent) == floor(json_real_value(parent))))
        return mni_json_fail(j, MN_JSON_TYPE, "parent", "expected an integer, found %s",
                             mni_json_type_name(parent));
    double p = json_number_value(parent);
    if (p != -1 && !(p >= 0 && p < (double)i))
        return mni_json_fail(j, MN_INDEX_RANGE, "parent",
                             "parent %g is not -1 or an earlier joint (this is joint %u)", p, i);
    r->parents[i] = (int32_t)p;
    if ((st = mni_json_floats(j, joint, "localPosition", true, 3, r->pos + 3 * i)) != MN_OK ||
        (st = read_rotation(j, joint, "localRotation", r->rot + 4 * i)) != MN_OK ||
        (st = mni_json_floats(j, joint, "inverseBind", true, 16, r->ibind + 16 * i)) != MN_OK)
        return st;
    json_t *base = json_object_get(joint, "baseLocalRotation");
    float *b = r->base + 4 * i;
    b[0] = b[1] = b[2] = 0;
    b[3] = 1;
    if (base && !json_is_null(base)) {
        if ((st = read_rotation(j, joint, "baseLocalRotation", b)) != MN_OK)
            return st;
        r->has_base[i] = 1;
    }
    return MN_OK;
}

/* A member naming a joint: its index, or MN_INDEX_RANGE. */
static mn_status joint_ref(reader *r, json_t *obj, const char *key, uint32_t *out)
{
    const char *name;
    mn_status st = mni_json_string_ref(r->j, obj, key, true, &name, NULL);
    if (st != MN_OK)
        return st;
    *out = mn_soma_skeleton_find(r->sk, name);
    if (*out == UINT32_MAX)
        return mni_json_fail(r->j, MN_INDEX_RANGE, key, "\"%s\" names no joint", name);
    return MN_OK;
}

static mn_status read_segment(reader *r, json_t *seg, mn_soma_twist *tw, uint32_t *segment_of)
{
    mn_json *j = r->j;
    if (!json_is_object(seg))
        return mni_json_fail(j, MN_JSON_TYPE, NULL, "expected an object, found %s",
                             mni_json_type_name(seg));
    mn_status st;
    if ((st = joint_ref(r, seg, "bone", &tw->bone)) != MN_OK ||
        (st = joint_ref(r, seg, "child", &tw->child)) != MN_OK)
        return st;
    if (r->parents[tw->child] != (int32_t)tw->bone)
        return mni_json_fail(j, MN_INVALID_VALUE, "child", "\"%s\" is not a direct child of \"%s\"",
                             r->names[tw->child], r->names[tw->bone]);
    const float *lp = r->pos + 3 * tw->child;
    double len = sqrt((double)lp[0] * lp[0] + (double)lp[1] * lp[1] + (double)lp[2] * lp[2]);
    if (!(len > 0) || !isfinite(len))
        return mni_json_fail(j, MN_INVALID_VALUE, "child",
                             "\"%s\" has a zero localPosition: the twist has no axis",
                             r->names[tw->child]);
    for (int k = 0; k < 3; k++)
        tw->axis[k] = (float)(lp[k] / len);
    json_t *helpers;
    uint32_t n;
    if ((st = mni_json_array_count(j, seg, "helpers", true, &helpers, &n)) != MN_OK)
        return st;
    mn_soma_twist_helper *h = mni_arena_calloc(j->arena, n ? n : 1, sizeof *h, _Alignof(mn_soma_twist_helper));
    if (!h)
        return mni_json_oom(j, NULL, NULL);
    size_t mark = mni_json_push_key(j, "helpers");
    for (uint32_t k = 0; k < n; k++) {
        size_t m2 = mni_json_push_index(j, k);
        json_t *hj = json_array_get(helpers, k);
        if (!json_is_object(hj))
            return mni_json_fail(j, MN_JSON_TYPE, NULL, "expected an object, found %s",
                                 mni_json_type_name(hj));
        if ((st = joint_ref(r, hj, "joint", &h[k].joint)) != MN_OK ||
            (st = mni_json_float(j, hj, "fraction", true, &h[k].fraction)) != MN_OK)
            return st;
        uint32_t hjn = h[k].joint;
        if (hjn == tw->bone || hjn == tw->child)
            return mni_json_fail(j, MN_INVALID_VALUE, "joint", "helper \"%s\" is the segment's %s",
                                 r->names[hjn], hjn == tw->bone ? "bone" : "child");
        if (segment_of[hjn] != UINT32_MAX)
            return mni_json_fail(j, MN_INVALID_VALUE, "joint",
                                 "helper \"%s\" is already a helper of twist[%u]", r->names[hjn],
                                 segment_of[hjn]);
        if (!r->has_base[hjn])
            return mni_json_fail(j, MN_INVALID_VALUE, "joint",
                                 "helper \"%s\" has no baseLocalRotation", r->names[hjn]);
        segment_of[hjn] = (uint32_t)(tw - r->sk->twists);
        mni_json_pop(j, m2);
    }
    mni_json_pop(j, mark);
    tw->helpers = h;
    tw->helper_count = n;
    return MN_OK;
}

static mn_status read_skeleton(reader *r, json_t *root, const char *const *joint_names,
                               uint32_t joint_name_count)
{
    mn_json *j = r->j;
    mn_soma_skeleton *sk = r->sk;
    mn_status st = mni_soma_json_format(j, root, "skeleton.json", "aosrig-v2-skeleton");
    if (st != MN_OK)
        return st;
    if ((st = mni_json_float(j, root, "floorY", false, &sk->floor_y)) != MN_OK ||
        (st = mni_json_float(j, root, "groundOffset", false, &sk->ground_offset)) != MN_OK)
        return st;
    json_t *joints;
    uint32_t n;
    if ((st = mni_json_array_count(j, root, "joints", true, &joints, &n)) != MN_OK)
        return st;
    mn_arena *a = j->arena;
    size_t cap = n ? n : 1;
    r->names = mni_arena_calloc(a, cap, sizeof *r->names, _Alignof(char *));
    r->parents = mni_arena_calloc(a, cap, sizeof *r->parents, 4);
    r->pos = mni_arena_calloc(a, cap, 3 * sizeof(float), 16);
    r->rot = mni_arena_calloc(a, cap, 4 * sizeof(float), 16);
    r->ibind = mni_arena_calloc(a, cap, 16 * sizeof(float), 16);
    r->base = mni_arena_calloc(a, cap, 4 * sizeof(float), 16);
    r->has_base = mni_arena_calloc(a, cap, 1, 1);
    uint32_t *segment_of = mni_arena_calloc(a, cap, sizeof(uint32_t), 4);
    if (!r->names || !r->parents || !r->pos || !r->rot || !r->ibind || !r->base || !r->has_base ||
        !segment_of)
        return mni_json_oom(j, NULL, NULL);
    uint32_t first; /* r->repeat: the first joint whose name an earlier one's repeats */
    if ((st = mni_json_first_repeated_name(j, joints, n, NULL, &r->repeat, &first)) != MN_OK)
        return st;
    size_t mark = mni_json_push_key(j, "joints");
    for (uint32_t i = 0; i < n; i++) {
        size_t m2 = mni_json_push_index(j, i);
        if ((st = read_joint(r, json_array_get(joints, i), i)) != MN_OK)
            return st;
        mni_json_pop(j, m2);
    }
    mni_json_pop(j, mark);
    if (!mni_names_sort(&sk->priv_->names, a, r->names, n))
        return mni_json_oom(j, NULL, NULL);
    sk->joint_count = n;
    sk->names = r->names;
    sk->parents = r->parents;
    sk->local_positions = r->pos;
    sk->local_rotations = r->rot;
    sk->inverse_bind = r->ibind;
    sk->base_local_rotations = r->base;
    sk->has_base = r->has_base;
    if (joint_names) {
        if (joint_name_count != n)
            return mni_json_fail(j, MN_COUNT_MISMATCH, "joints",
                                 "%u joints, but the package names %u", n, joint_name_count);
        for (uint32_t i = 0; i < n; i++)
            if (!joint_names[i] || strcmp(joint_names[i], r->names[i]) != 0)
                return mni_json_fail(j, MN_COUNT_MISMATCH, "joints",
                                     "joint %u is \"%s\", but the package's jointNames[%u] is \"%s\"",
                                     i, r->names[i], i, joint_names[i] ? joint_names[i] : "(null)");
    }
    if ((st = joint_ref(r, root, "hips", &sk->hips)) != MN_OK)
        return st;
    for (uint32_t i = 0; i < n; i++)
        segment_of[i] = UINT32_MAX;
    json_t *twist;
    uint32_t tn;
    if ((st = mni_json_array_count(j, root, "twist", false, &twist, &tn)) != MN_OK)
        return st;
    mn_soma_twist *tw = mni_arena_calloc(a, tn ? tn : 1, sizeof *tw, _Alignof(mn_soma_twist));
    if (!tw)
        return mni_json_oom(j, NULL, NULL);
    sk->twists = tw;
    mark = mni_json_push_key(j, "twist");
    for (uint32_t t = 0; t < tn; t++) {
        size_t m2 = mni_json_push_index(j, t);
        if ((st = read_segment(r, json_array_get(twist, t), &tw[t], segment_of)) != MN_OK)
            return st;
        mni_json_pop(j, m2);
    }
    mni_json_pop(j, mark);
    sk->twist_count = tn;
    return MN_OK;
}

typedef struct skeleton_names {
    const char *const *names;   /* the package's jointNames, NULL when it has none */
    uint32_t count;
} skeleton_names;

static mn_status read_skeleton_holder(void *holder, mn_json *j, json_t *root, const void *ctx)
{
    skeleton_holder *h = holder;
    const skeleton_names *names = ctx;
    h->pub.priv_ = &h->priv;
    reader r = {.j = j, .sk = &h->pub};
    return read_skeleton(&r, root, names->names, names->count);
}

static const mn_soma_holder_kind skeleton_kind = {"skeleton.json", sizeof(skeleton_holder),
                                                  offsetof(skeleton_holder, priv.arena),
                                                  read_skeleton_holder, NULL};

mn_status mn_soma_skeleton_read(const void *json, size_t size, const char *const *joint_names,
                                uint32_t joint_name_count, const mn_allocator *allocator,
                                mn_soma_skeleton **out, mn_error *err)
{
    mn_error local;
    if (!err)
        err = &local;
    mni_error_clear(err);
    if (!out || (!json && size))
        return mni_fail(err, MN_INVALID_ARGUMENT, "skeleton.json: NULL argument");
    *out = NULL;
    skeleton_names names = {joint_names, joint_name_count};
    void *h = NULL;
    mn_status st = mni_soma_holder_read(&skeleton_kind, json, size, allocator, &names, &h, err);
    if (st == MN_OK)
        *out = &((skeleton_holder *)h)->pub;
    return st;
}

void mn_soma_skeleton_free(mn_soma_skeleton *skeleton)
{
    if (!skeleton)
        return;
    skeleton_holder *h = (skeleton_holder *)skeleton;
    mni_arena_release_holder(&h->priv.arena, h, sizeof *h);
}

uint32_t mn_soma_skeleton_find(const mn_soma_skeleton *skeleton, const char *name)
{
    if (!skeleton || !name)
        return UINT32_MAX;
    /* A skeleton the reader made has its names sorted; any other is scanned. */
    const struct mn_soma_skeleton_private *p = skeleton->priv_;
    if (p && p->names.refs && p->names.count == skeleton->joint_count)
        return mni_names_find(&p->names, name);
    return mni_soma_find_name(skeleton->names, skeleton->joint_count, name);
}
