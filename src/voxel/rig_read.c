/*
 * rig.json → mn_voxel_rig: the reading half of docs/formats.md, "rig.json".
 *
 * The document is parsed with jansson, then read in the order its parts
 * depend on one another: parts (names first, then parents, because a parent
 * may be listed after its child), the part order and its cycle check,
 * joints (which name parts), then animations (whose tracks name joints).
 * Every check fails through the mn_json path tracker, so an error names the
 * exact member ("animations[1].tracks[0].keys[3].t") and reads on its own.
 *
 * Names are sorted once per array and kept with the rig (mni_names_sorted,
 * core.h): resolving references and the find functions are binary searches,
 * and the first repeated name is found by one sort before its array is read,
 * so no choice of names makes a read slower than n log n (a hash table can be
 * made to collide by names chosen for it).
 *
 * Unknown members of the rig, a part, a joint or an animation are kept as
 * compact JSON object text in that object's `extras` (they are never fatal);
 * unknown members of a mount, a track or a key have no home and are ignored.
 * Everything the rig holds lives in one arena taken from the options'
 * allocator; jansson's own parse tree uses malloc and is gone on return.
 */
#include <marionette/voxel/rig.h>

#include "io/io.h"
#include "voxel/fcurve_internal.h"
#include "voxel/pose_internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- names of enum values ---------------------------------------------------------------------- */

/* rig.json's names, in enum order: the reader parses through them, mn_voxel_*_name prints them. */
static const char *const kind_names[] = {"cube",       "mc",         "sn",         "dc",
                                         "mc-skinned", "sn-skinned", "dc-skinned", "static"};
static const char *const joint_type_names[] = {"rotation", "translation"};
static const char *const drive_names[] = {"caller", "auto"};

const char *mn_voxel_kind_name(mn_voxel_kind kind)
{
    return mni_name_in(kind_names, MNI_COUNT(kind_names), (unsigned)kind);
}

const char *mn_voxel_joint_type_name(mn_voxel_joint_type type)
{
    return mni_name_in(joint_type_names, MNI_COUNT(joint_type_names), (unsigned)type);
}

const char *mn_voxel_drive_name(mn_voxel_drive drive)
{
    return mni_name_in(drive_names, MNI_COUNT(drive_names), (unsigned)drive);
}

/* ---- name tables ------------------------------------------------------------------------------- */

/* Names of one array (parts, joints or animations), sorted for lookups. */
typedef struct name_table {
    mni_names_sorted sorted;   /* the arena's copies, once every element of the array is read */
    bool ready;
    uint32_t repeat, first;    /* while reading: the first element whose name an earlier one
                                  (`first`) has; MN_NONE when the names are unique */
} name_table;

/* An animation's tracks baked for posing (fcurve_internal.h); a NULL entry is sampled exactly. */
typedef struct baked_tracks {
    const fcurve_baked **tracks;
    uint32_t count;
    const fcurve_grid *grid;   /* a looping animation's grid (mni_fcurve_grid_bake), or NULL */
    const mn_voxel_track *source;   /* the tracks the grid was baked from */
} baked_tracks;

struct mn_voxel_rig_private {
    mn_arena arena;
    name_table parts, joints, animations;
    baked_tracks *baked;   /* per animation */
    uint32_t baked_count;
    /* Every joint's plan for posing (voxel/pose_internal.h). */
    voxel_pose_plan plan;
    bool planned;
    /* The parts by depth (mni_voxel_rig_level_order), for these very parts and part_order. */
    const uint32_t *level_order;
    const mn_voxel_part *leveled_parts;
};

/* The rig and what only the reader sees, freed together. */
typedef struct rig_holder {
    mn_voxel_rig rig;
    struct mn_voxel_rig_private priv;
} rig_holder;

/* The index of `name`, or MN_NONE (also for a table not sorted yet). */
static uint32_t table_find(const name_table *t, const char *name)
{
    return t->ready ? mni_names_find(&t->sorted, name) : MN_NONE;
}

/* ---- the reader -------------------------------------------------------------------------------- */

typedef struct rig_reader {
    mn_json j;                          /* path tracker; fails into a local mn_error */
    mn_arena *arena;
    mn_voxel_rig *rig;
    struct mn_voxel_rig_private *priv;
    mn_voxel_part *parts;               /* writable views of the rig's arrays */
    mn_voxel_joint *joints;
    mn_voxel_animation *animations;
    uint32_t *claimed_by;               /* per joint: 1 + the animation whose track drives it */
    uint32_t *claimed_track;            /* per joint: that track's index */
    uint32_t *level_slots;              /* where order_levels puts the parts by depth */
    fcurve_bake_budget bake;            /* what baking may still spend (bake_budget_for) */
} rig_reader;

/*
 * The baking budget of a rig read from `size` bytes of text: room for an
 * ordinary rig (bench_voxel's 52 KB rig.json takes 1.1 M samples and 2.3 MB
 * of the budget), plus an amount in proportion to the text, so that however
 * its keys are laid out a rig.json costs at most a few samples and bytes of
 * baking for each of its bytes (a hostile 10 MB one: seconds, not minutes;
 * about 100 MB, not gigabytes).  Past the budget curves are sampled exactly.
 */
#define BAKE_MIN_SAMPLES (4u * 1000u * 1000u)
#define BAKE_SAMPLES_PER_BYTE 4u
#define BAKE_MIN_BYTES (8u << 20)
#define BAKE_BYTES_PER_BYTE 8u

static fcurve_bake_budget bake_budget_for(size_t size)
{
    fcurve_bake_budget b = {BAKE_MIN_SAMPLES + (uint64_t)size * BAKE_SAMPLES_PER_BYTE,
                            BAKE_MIN_BYTES + (uint64_t)size * BAKE_BYTES_PER_BYTE};
    return b;
}

static mn_status expect_object(rig_reader *r, json_t *v, const char *what)
{
    if (json_is_object(v))
        return MN_OK;
    return mni_json_fail(&r->j, MN_JSON_TYPE, NULL, "expected %s (an object), found %s", what,
                         mni_json_type_name(v));
}

/* A JSON number as a finite double; `key` names it for messages (NULL: the current path). */
static mn_status number_value(mn_json *j, const char *key, json_t *v, double *out)
{
    if (!json_is_number(v))
        return mni_json_fail(j, MN_JSON_TYPE, key, "expected a number, found %s", mni_json_type_name(v));
    double d = json_number_value(v);
    if (!isfinite(d))
        return mni_json_fail(j, MN_NOT_FINITE, key, "%g is not a finite number", d);
    *out = d;
    return MN_OK;
}

/* Member `key` as a finite double (json.h's getters stop at float precision). */
static mn_status get_number(mn_json *j, json_t *obj, const char *key, bool required, double *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v) {
        if (!required)
            return MN_OK;
        return mni_json_fail(j, MN_MISSING_PROPERTY, key, "required property \"%s\" is missing", key);
    }
    return number_value(j, key, v, out);
}

/* Members not in `known`, as compact JSON object text in the arena; NULL when there are none. */
static mn_status keep_unknown(rig_reader *r, json_t *obj, const char *const *known, size_t known_count,
                              const char **out)
{
    *out = NULL;
    json_t *extra = NULL;
    const char *key;
    json_t *value;
    json_object_foreach(obj, key, value) {
        bool is_known = false;
        for (size_t i = 0; i < known_count && !is_known; i++)
            is_known = strcmp(key, known[i]) == 0;
        if (is_known)
            continue;
        if (!extra && !(extra = json_object()))
            return mni_json_oom(&r->j, NULL, "keeping unknown fields");
        if (json_object_set(extra, key, value) != 0) {
            json_decref(extra);
            return mni_json_oom(&r->j, NULL, "keeping unknown fields");
        }
    }
    if (!extra)
        return MN_OK;
    mn_status st = mni_json_dump(&r->j, extra, out);
    json_decref(extra);
    return st;
}

/* Once the array is read: its names (the `name` first member of each `stride`-byte element) sorted. */
static mn_status sort_table(rig_reader *r, name_table *table, const void *items, size_t stride,
                            uint32_t n)
{
    mn_arena scratch;
    mni_arena_init(&scratch, &r->arena->allocator);
    const char **names = mni_arena_calloc(&scratch, n ? n : 1, sizeof *names, _Alignof(char *));
    bool ok = names != NULL;
    for (uint32_t i = 0; ok && i < n; i++)
        names[i] = *(const char *const *)(const void *)((const char *)items + i * stride);
    ok = ok && mni_names_sort(&table->sorted, r->arena, names, n);
    mni_arena_release(&scratch);
    table->ready = ok;
    return ok ? MN_OK : mni_json_oom(&r->j, NULL, "sorting names");
}

/* Read member "name" of element i; the first element to repeat an earlier one's name is an error. */
static mn_status read_unique_name(rig_reader *r, json_t *obj, const name_table *table,
                                  const char *array, uint32_t i, const char **out)
{
    mn_status st = mni_json_string(&r->j, obj, "name", true, out);
    if (st != MN_OK)
        return st;
    if (i == table->repeat)
        return mni_json_fail(&r->j, MN_INVALID_VALUE, "name",
                             "\"%.64s\" is already the name of %s[%u]; names must be unique", *out,
                             array, table->first);
    return MN_OK;
}

/* Member `key` holding the name of an element of `table` (`what`: "part", "joint"). */
static mn_status read_reference(rig_reader *r, json_t *obj, const char *key, const name_table *table,
                                const char *what, uint32_t *out)
{
    const char *name = NULL;
    mn_status st = mni_json_string_ref(&r->j, obj, key, true, &name, NULL);
    if (st != MN_OK)
        return st;
    *out = table_find(table, name);
    if (*out == MN_NONE)
        return mni_json_fail(&r->j, MN_INVALID_VALUE, key, "no %s is named \"%.64s\"", what, name);
    return MN_OK;
}

/* Loop over the elements of `array` with the path at "<key>[i]", calling fn(r, element, i). */
typedef mn_status (*element_fn)(rig_reader *r, json_t *element, uint32_t i);

static mn_status for_each(rig_reader *r, const char *key, json_t *array, uint32_t count, element_fn fn)
{
    size_t mark = mni_json_push_key(&r->j, key);
    for (uint32_t i = 0; i < count; i++) {
        size_t m2 = mni_json_push_index(&r->j, i);
        mn_status st = fn(r, json_array_get(array, i), i);
        if (st != MN_OK)
            return st;
        mni_json_pop(&r->j, m2);
    }
    mni_json_pop(&r->j, mark);
    return MN_OK;
}

/* ---- parts --------------------------------------------------------------------------------------- */

static const char *const part_fields[] = {"name", "parent", "pivot"};

/* Name, pivot and extras; the parent is resolved once every name is known. */
static mn_status read_part(rig_reader *r, json_t *obj, uint32_t i)
{
    mn_voxel_part *p = &r->parts[i];
    p->parent = MN_NONE;
    mn_status st = expect_object(r, obj, "a part");
    if (st == MN_OK)
        st = read_unique_name(r, obj, &r->priv->parts, "parts", i, &p->name);
    if (st == MN_OK) {
        json_t *parent = json_object_get(obj, "parent");
        if (!parent)
            st = mni_json_fail(&r->j, MN_MISSING_PROPERTY, "parent",
                               "required property \"parent\" is missing (null for a root part)");
        else if (!json_is_string(parent) && !json_is_null(parent))
            st = mni_json_fail(&r->j, MN_JSON_TYPE, "parent", "expected a part name or null, found %s",
                               mni_json_type_name(parent));
    }
    if (st == MN_OK)
        st = mni_json_floats(&r->j, obj, "pivot", true, 3, p->pivot);
    if (st == MN_OK)
        st = keep_unknown(r, obj, part_fields, sizeof part_fields / sizeof *part_fields, &p->extras);
    return st;
}

static mn_status resolve_parent(rig_reader *r, json_t *obj, uint32_t i)
{
    if (json_is_null(json_object_get(obj, "parent")))
        return MN_OK;
    return read_reference(r, obj, "parent", &r->priv->parts, "part", &r->parts[i].parent);
}

/* "a → b → a" for the message of a cycle through part `start`. */
static void describe_cycle(const mn_voxel_part *parts, uint32_t start, char *out, size_t size)
{
    size_t len = 0;
    uint32_t p = start;
    out[0] = '\0';
    do {
        int n = snprintf(out + len, size - len, "%s%.24s", len ? " -> " : "", parts[p].name);
        if (n < 0 || (size_t)n >= size - len)
            return; /* cut short; the start of the loop is what a person needs */
        len += (size_t)n;
        p = parts[p].parent;
    } while (p != start);
    snprintf(out + len, size - len, " -> %.24s", parts[start].name);
}

/*
 * The parts by depth, roots first, each depth in part_order's order: parents
 * still come first, and parts one after another are mostly not each other's
 * parent, so posing works on several at once.  Kept in front of part_order
 * (one allocation), `depth` is scratch (a part count of entries).  O(parts).
 */
static mn_status order_levels(rig_reader *r, uint32_t *depth)
{
    uint32_t n = r->rig->part_count, top = 0;
    const uint32_t *order = r->rig->part_order;
    uint32_t *levels = r->level_slots;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t p = order[k], parent = r->parts[p].parent;
        depth[p] = parent == MN_NONE ? 0 : depth[parent] + 1;
        top = depth[p] > top ? depth[p] : top;
    }
    /* A counting sort by depth, stable: where each depth starts, then each part in its place. */
    uint32_t *start = mni_arena_calloc(r->arena, (size_t)top + 2, sizeof *start, _Alignof(uint32_t));
    if (!start)
        return mni_json_oom(&r->j, NULL, "ordering the parts by depth");
    for (uint32_t p = 0; p < n; p++)
        start[depth[p] + 1]++;
    for (uint32_t d = 0; d <= top; d++)
        start[d + 1] += start[d];
    for (uint32_t k = 0; k < n; k++)
        levels[start[depth[order[k]]]++] = order[k];
    r->priv->level_order = levels;
    r->priv->leveled_parts = r->parts;
    return MN_OK;
}

/*
 * part_order: every part once, parents first, otherwise in declared order.
 * Each part not yet placed walks up its parent chain to a placed part (or a
 * root), then the chain is placed top-down.  Meeting a part of the chain being
 * walked is a cycle.  O(parts), no recursion.
 */
static mn_status order_parts(rig_reader *r)
{
    uint32_t n = r->rig->part_count;
    /* level_order (order_levels) then part_order, one after the other */
    uint32_t *levels = mni_arena_calloc(r->arena, 2 * (size_t)n, sizeof *levels, _Alignof(uint32_t));
    uint32_t *order = levels != NULL ? levels + n : NULL;
    uint32_t *chain = mni_arena_calloc(r->arena, n, sizeof *chain, _Alignof(uint32_t));
    r->level_slots = levels;
    uint8_t *state = mni_arena_calloc(r->arena, n, 1, 1); /* 0 new, 1 on the walked chain, 2 placed */
    if (!order || !chain || !state)
        return mni_json_oom(&r->j, NULL, "ordering the parts");
    uint32_t placed = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t len = 0, p = i;
        while (p != MN_NONE && state[p] == 0) {
            state[p] = 1;
            chain[len++] = p;
            p = r->parts[p].parent;
        }
        if (p != MN_NONE && state[p] == 1) {
            char cycle[160];
            describe_cycle(r->parts, p, cycle, sizeof cycle);
            size_t m1 = mni_json_push_key(&r->j, "parts");
            mni_json_push_index(&r->j, p);
            mn_status st = mni_json_fail(&r->j, MN_HIERARCHY, "parent",
                                         "the part tree has a cycle (%s); a part cannot be its own ancestor",
                                         cycle);
            mni_json_pop(&r->j, m1);
            return st;
        }
        while (len > 0) {
            uint32_t c = chain[--len];
            state[c] = 2;
            order[placed++] = c;
        }
    }
    r->rig->part_order = order;
    return order_levels(r, chain);
}

const uint32_t *mni_voxel_rig_level_order(const mn_voxel_rig *rig)
{
    const struct mn_voxel_rig_private *p = rig->priv_;
    if (p == NULL || p->level_order == NULL || p->leveled_parts != rig->parts ||
        rig->part_order != p->level_order + rig->part_count)
        return NULL;
    return p->level_order;
}

static mn_status read_parts(rig_reader *r, json_t *rig_obj)
{
    json_t *array;
    uint32_t n;
    mn_status st = mni_json_array_count(&r->j, rig_obj, "parts", true, &array, &n);
    if (st != MN_OK)
        return st;
    if (n == 0)
        return mni_json_fail(&r->j, MN_INVALID_VALUE, "parts", "a rig needs at least one part");
    r->parts = mni_arena_calloc(r->arena, n, sizeof *r->parts, _Alignof(mn_voxel_part));
    if (!r->parts)
        return mni_json_oom(&r->j, NULL, "reading the parts");
    r->rig->parts = r->parts;
    r->rig->part_count = n;
    st = mni_json_first_repeated_name(&r->j, array, n, "checking names",
                                      &r->priv->parts.repeat, &r->priv->parts.first);
    if (st == MN_OK)
        st = for_each(r, "parts", array, n, read_part);
    if (st == MN_OK)
        st = sort_table(r, &r->priv->parts, r->parts, sizeof *r->parts, n);
    if (st == MN_OK)
        st = for_each(r, "parts", array, n, resolve_parent);
    return st == MN_OK ? order_parts(r) : st;
}

/* ---- joints -------------------------------------------------------------------------------------- */

static const char *const joint_fields[] = {"name", "part", "type", "axis", "min",
                                           "max",  "rest", "drive", "mount"};

/* "x", "y", "z", or a non-zero 3-vector, normalised. */
static mn_status read_axis(rig_reader *r, json_t *obj, float axis[3])
{
    static const char *const names[] = {"x", "y", "z"};
    json_t *v = json_object_get(obj, "axis");
    if (!v)
        return mni_json_fail(&r->j, MN_MISSING_PROPERTY, "axis", "required property \"axis\" is missing");
    if (json_is_string(v)) {
        int k = 0;
        mn_status st = mni_json_enum(&r->j, obj, "axis", true, names, 3, "an axis name", &k);
        if (st == MN_OK)
            axis[k] = 1.0f;
        return st;
    }
    if (!json_is_array(v))
        return mni_json_fail(&r->j, MN_JSON_TYPE, "axis",
                             "expected a 3-vector or \"x\", \"y\", \"z\", found %s", mni_json_type_name(v));
    float a[3];
    mn_status st = mni_json_floats(&r->j, obj, "axis", true, 3, a);
    if (st != MN_OK)
        return st;
    double len = sqrt((double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2]);
    if (!(len > 0.0))
        return mni_json_fail(&r->j, MN_INVALID_VALUE, "axis",
                             "[%g, %g, %g] has no direction: an axis is a non-zero vector", (double)a[0],
                             (double)a[1], (double)a[2]);
    for (int k = 0; k < 3; k++)
        axis[k] = (float)(a[k] / len);
    return MN_OK;
}

/* min <= rest <= max, each violation named at its member. */
static mn_status check_range(rig_reader *r, const mn_voxel_joint *jt)
{
    if (jt->min > jt->max)
        return mni_json_fail(&r->j, MN_INVALID_VALUE, "min", "min %g is greater than max %g",
                             (double)jt->min, (double)jt->max);
    if (jt->rest < jt->min || jt->rest > jt->max)
        return mni_json_fail(&r->j, MN_INVALID_VALUE, "rest", "rest %g is outside [min, max] = [%g, %g]",
                             (double)jt->rest, (double)jt->min, (double)jt->max);
    return MN_OK;
}

/* The optional mount: orient and offset each default to zeros. */
static mn_status read_mount(rig_reader *r, json_t *obj, mn_voxel_joint *jt)
{
    json_t *mount;
    mn_status st = mni_json_object(&r->j, obj, "mount", false, &mount);
    if (st != MN_OK || !mount)
        return st;
    jt->has_mount = true;
    size_t mark = mni_json_push_key(&r->j, "mount");
    st = mni_json_floats(&r->j, mount, "orient", false, 3, jt->orient);
    if (st == MN_OK)
        st = mni_json_floats(&r->j, mount, "offset", false, 3, jt->offset);
    if (st == MN_OK)
        mni_json_pop(&r->j, mark);
    return st;
}

/* A mount is constant: work its matrix out once, so posing need not (mount_affine). */
static mn_status resolve_mount(rig_reader *r, uint32_t i)
{
    mn_voxel_joint *jt = &r->joints[i];
    if (!jt->has_mount)
        return MN_OK;
    double *m = mni_arena_alloc(r->arena, 12 * sizeof *m, _Alignof(double));
    if (!m)
        return mni_json_oom(&r->j, NULL, "resolving a mount");
    mn_voxel_mount_affine(r->rig, i, m);
    jt->mount_affine = m;
    return MN_OK;
}

static mn_status read_joint(rig_reader *r, json_t *obj, uint32_t i)
{
    mn_voxel_joint *jt = &r->joints[i];
    int type = 0, drive = 0;
    mn_status st = expect_object(r, obj, "a joint");
    if (st == MN_OK)
        st = read_unique_name(r, obj, &r->priv->joints, "joints", i, &jt->name);
    if (st == MN_OK)
        st = read_reference(r, obj, "part", &r->priv->parts, "part", &jt->part);
    if (st == MN_OK)
        st = mni_json_enum(&r->j, obj, "type", true, joint_type_names, MNI_COUNT(joint_type_names),
                           "a joint type", &type);
    if (st == MN_OK)
        st = read_axis(r, obj, jt->axis);
    if (st == MN_OK)
        st = mni_json_float(&r->j, obj, "min", true, &jt->min);
    if (st == MN_OK)
        st = mni_json_float(&r->j, obj, "max", true, &jt->max);
    if (st == MN_OK)
        st = mni_json_float(&r->j, obj, "rest", true, &jt->rest);
    if (st == MN_OK)
        st = check_range(r, jt);
    if (st == MN_OK)
        st = mni_json_enum(&r->j, obj, "drive", true, drive_names, MNI_COUNT(drive_names), "a drive", &drive);
    if (st == MN_OK)
        st = read_mount(r, obj, jt);
    if (st == MN_OK)
        st = keep_unknown(r, obj, joint_fields, sizeof joint_fields / sizeof *joint_fields, &jt->extras);
    jt->type = (mn_voxel_joint_type)type;
    jt->drive = (mn_voxel_drive)drive;
    if (st == MN_OK)
        st = resolve_mount(r, i);
    return st;
}

/* parts[p].joints: each part's joints in declared order, carved from one array. */
static mn_status list_part_joints(rig_reader *r)
{
    uint32_t nj = r->rig->joint_count, np = r->rig->part_count;
    uint32_t *lists = mni_arena_calloc(r->arena, nj, sizeof *lists, _Alignof(uint32_t));
    uint32_t *start = mni_arena_calloc(r->arena, np, sizeof *start, _Alignof(uint32_t));
    if (!lists || !start)
        return mni_json_oom(&r->j, NULL, "listing each part's joints");
    for (uint32_t j = 0; j < nj; j++)
        r->parts[r->joints[j].part].joint_count++;
    uint32_t at = 0;
    for (uint32_t p = 0; p < np; p++) {
        start[p] = at;
        r->parts[p].joints = lists + at;
        at += r->parts[p].joint_count;
    }
    for (uint32_t j = 0; j < nj; j++)
        lists[start[r->joints[j].part]++] = j;
    return MN_OK;
}

/* Every joint's plan, once its mount is resolved: posing then only reads it. */
static mn_status plan_joints(rig_reader *r)
{
    if (!mni_voxel_pose_plan_build(r->arena, r->rig, &r->priv->plan))
        return mni_json_oom(&r->j, NULL, "planning the joints");
    r->priv->planned = true;
    return MN_OK;
}

static mn_status read_joints(rig_reader *r, json_t *rig_obj)
{
    json_t *array;
    uint32_t n;
    mn_status st = mni_json_array_count(&r->j, rig_obj, "joints", false, &array, &n);
    if (st != MN_OK)
        return st;
    r->joints = mni_arena_calloc(r->arena, n, sizeof *r->joints, _Alignof(mn_voxel_joint));
    if (!r->joints)
        return mni_json_oom(&r->j, NULL, "reading the joints");
    r->rig->joints = r->joints;
    r->rig->joint_count = n;
    st = mni_json_first_repeated_name(&r->j, array, n, "checking names",
                                      &r->priv->joints.repeat, &r->priv->joints.first);
    if (st == MN_OK)
        st = for_each(r, "joints", array, n, read_joint);
    if (st == MN_OK)
        st = sort_table(r, &r->priv->joints, r->joints, sizeof *r->joints, n);
    if (st == MN_OK)
        st = plan_joints(r);
    return st == MN_OK ? list_part_joints(r) : st;
}

const voxel_pose_plan *mni_voxel_rig_pose_plan(const mn_voxel_rig *rig)
{
    const struct mn_voxel_rig_private *p = rig->priv_;
    if (p == NULL || !p->planned || p->plan.joints != rig->joints ||
        p->plan.joint_count != rig->joint_count)
        return NULL;
    return &p->plan;
}

/* ---- animations ---------------------------------------------------------------------------------- */

static const char *const animation_fields[] = {"name", "loop", "auto_play", "duration_ms", "tracks"};

/* An optional [dt_ms, dv] handle. */
static mn_status read_handle(rig_reader *r, json_t *obj, const char *key, bool *has, double out[2])
{
    json_t *arr;
    mn_status st = mni_json_array(&r->j, obj, key, false, &arr);
    if (st != MN_OK || !arr)
        return st;
    if (json_array_size(arr) != 2)
        return mni_json_fail(&r->j, MN_INVALID_VALUE, key,
                             "expected [dt_ms, dv] (2 numbers), found an array of %zu", json_array_size(arr));
    size_t mark = mni_json_push_key(&r->j, key);
    for (size_t k = 0; k < 2; k++) {
        size_t m2 = mni_json_push_index(&r->j, k);
        st = number_value(&r->j, NULL, json_array_get(arr, k), &out[k]);
        if (st != MN_OK)
            return st;
        mni_json_pop(&r->j, m2);
    }
    mni_json_pop(&r->j, mark);
    *has = true;
    return MN_OK;
}

/* One key; `prev` is the key before it on the track (NULL for the first). */
static mn_status read_key(rig_reader *r, json_t *obj, mn_fcurve_key *key, const mn_fcurve_key *prev)
{
    static const char *const interps[] = {"constant", "linear",   "bezier",
                                          "ease-in",  "ease-out", "ease-in-out"};
    int interp = 0;
    mn_status st = expect_object(r, obj, "a key");
    if (st == MN_OK)
        st = get_number(&r->j, obj, "t", true, &key->t);
    if (st == MN_OK && prev && !(key->t > prev->t))
        st = mni_json_fail(&r->j, MN_INVALID_VALUE, "t",
                           "t %g is not after the previous key's t %g: key times must strictly increase",
                           key->t, prev->t);
    if (st == MN_OK)
        st = get_number(&r->j, obj, "v", true, &key->v);
    /* Values become float joint values: one too large for a float is not a usable value. */
    if (st == MN_OK && fabs(key->v) > (double)FLT_MAX)
        st = mni_json_fail(&r->j, MN_NOT_FINITE, "v", "%g does not fit a finite 32-bit float", key->v);
    if (st == MN_OK)
        st = mni_json_enum(&r->j, obj, "interp", true, interps, 6, "an interpolation", &interp);
    if (st == MN_OK)
        st = read_handle(r, obj, "handle_left", &key->has_handle_left, key->handle_left);
    if (st == MN_OK)
        st = read_handle(r, obj, "handle_right", &key->has_handle_right, key->handle_right);
    key->interp = (mn_fcurve_interp)interp;
    return st;
}

/* The joint a track drives: it must exist and have no other track in this animation. */
static mn_status read_track_joint(rig_reader *r, json_t *obj, uint32_t anim, uint32_t track,
                                  uint32_t *out)
{
    mn_status st = read_reference(r, obj, "joint", &r->priv->joints, "joint", out);
    if (st != MN_OK)
        return st;
    if (r->claimed_by[*out] == anim + 1)
        return mni_json_fail(&r->j, MN_INVALID_VALUE, "joint",
                             "a second track for joint \"%.64s\" (tracks[%u] drives it already); an "
                             "animation has at most one track per joint",
                             r->joints[*out].name, r->claimed_track[*out]);
    r->claimed_by[*out] = anim + 1;
    r->claimed_track[*out] = track;
    return MN_OK;
}

static mn_status read_track(rig_reader *r, json_t *obj, uint32_t anim, uint32_t t, mn_voxel_track *track)
{
    json_t *keys;
    uint32_t n = 0;
    mn_status st = expect_object(r, obj, "a track");
    if (st == MN_OK)
        st = read_track_joint(r, obj, anim, t, &track->joint);
    if (st == MN_OK)
        st = mni_json_array_count(&r->j, obj, "keys", true, &keys, &n);
    if (st == MN_OK && n == 0)
        st = mni_json_fail(&r->j, MN_INVALID_VALUE, "keys", "a track needs at least one key");
    if (st != MN_OK)
        return st;
    mn_fcurve_key *k = mni_arena_calloc(r->arena, n, sizeof *k, _Alignof(mn_fcurve_key));
    if (!k)
        return mni_json_oom(&r->j, NULL, "reading keys");
    size_t mark = mni_json_push_key(&r->j, "keys");
    for (uint32_t i = 0; i < n; i++) {
        size_t m2 = mni_json_push_index(&r->j, i);
        st = read_key(r, json_array_get(keys, i), &k[i], i ? &k[i - 1] : NULL);
        if (st != MN_OK)
            return st;
        mni_json_pop(&r->j, m2);
    }
    mni_json_pop(&r->j, mark);
    track->curve.keys = k;
    track->curve.key_count = n;
    return MN_OK;
}

/* duration_ms: given (>= 0), or the largest key time of any track (0 without tracks). */
static mn_status settle_duration(rig_reader *r, json_t *obj, mn_voxel_animation *a, mn_voxel_track *tracks)
{
    bool given = json_object_get(obj, "duration_ms") != NULL;
    if (!given) {
        double latest = 0.0;
        for (uint32_t t = 0; t < a->track_count; t++) {
            const mn_fcurve *c = &tracks[t].curve;
            double last = c->keys[c->key_count - 1].t;
            if (t == 0 || last > latest)
                latest = last;
        }
        /* All-negative key times would give a negative length; a duration is never negative. */
        a->duration_ms = latest > 0.0 ? latest : 0.0;
    }
    if (a->loop && !(a->duration_ms > 0.0))
        return mni_json_fail(&r->j, MN_INVALID_VALUE, "duration_ms",
                             given ? "a looping animation needs duration_ms > 0, found %g"
                                   : "a looping animation needs duration_ms > 0; without it the "
                                     "duration is the largest key time, %g",
                             a->duration_ms);
    for (uint32_t t = 0; t < a->track_count; t++) {
        mn_fcurve *c = &tracks[t].curve;
        double span = c->keys[c->key_count - 1].t - c->keys[0].t;
        if (a->loop && span > a->duration_ms) {
            size_t mark = mni_json_push_key(&r->j, "tracks");
            mni_json_push_index(&r->j, t);
            mn_status st = mni_json_fail(&r->j, MN_INVALID_VALUE, "keys",
                                         "the keys span %g ms, longer than the loop's duration_ms %g",
                                         span, a->duration_ms);
            mni_json_pop(&r->j, mark);
            return st;
        }
        c->loop = a->loop;
        c->duration_ms = a->duration_ms;
    }
    return MN_OK;
}

/*
 * Each track's curve baked into cubic pieces (fcurve_bake.c), which posing
 * samples instead of solving its bezier and eased segments.
 */
static mn_status bake_curves(rig_reader *r, const mn_voxel_animation *a)
{
    uint32_t i = (uint32_t)(a - r->animations);
    baked_tracks *bt = &r->priv->baked[i];
    bt->tracks = mni_arena_calloc(r->arena, a->track_count ? a->track_count : 1,
                                  sizeof *bt->tracks, _Alignof(fcurve_baked *));
    if (!bt->tracks)
        return mni_json_oom(&r->j, NULL, "baking the curves");
    for (uint32_t t = 0; t < a->track_count; t++)
        if (!mni_fcurve_bake(r->arena, &a->tracks[t].curve, a->resolved[t], &r->bake,
                         &bt->tracks[t]))
            return mni_json_oom(&r->j, NULL, "baking the curves");
    bt->count = a->track_count;
    bt->source = a->tracks;
    if (!a->loop || a->track_count == 0)
        return MN_OK;
    const mn_fcurve **curves = mni_arena_calloc(r->arena, a->track_count, sizeof *curves,
                                                _Alignof(const mn_fcurve *));
    if (!curves)
        return mni_json_oom(&r->j, NULL, "baking the curves");
    for (uint32_t t = 0; t < a->track_count; t++)
        curves[t] = &a->tracks[t].curve;
    if (!mni_fcurve_grid_bake(r->arena, curves, a->resolved, a->track_count, a->duration_ms, &r->bake,
                          &bt->grid))
        return mni_json_oom(&r->j, NULL, "baking the curves");
    return MN_OK;
}

const fcurve_grid *mni_voxel_rig_baked_grid(const mn_voxel_rig *rig, uint32_t animation)
{
    if (mni_voxel_rig_baked_tracks(rig, animation) == NULL)
        return NULL;
    const baked_tracks *bt = &rig->priv_->baked[animation];
    const mn_voxel_animation *a = &rig->animations[animation];
    return bt->grid != NULL && bt->source == a->tracks && a->loop &&
                   bt->grid->period == a->duration_ms
               ? bt->grid
               : NULL;
}

const fcurve_baked *const *mni_voxel_rig_baked_tracks(const mn_voxel_rig *rig, uint32_t animation)
{
    const struct mn_voxel_rig_private *p = rig->priv_;
    if (p == NULL || animation >= p->baked_count || animation >= rig->animation_count ||
        p->baked[animation].count != rig->animations[animation].track_count)
        return NULL;
    return p->baked[animation].tracks;
}

/*
 * Each track's mn_fcurve_resolve record (animation.resolved), once loop and
 * duration are settled: sampling then finds every bezier segment's control
 * points ready.  A curve without a bezier key has nothing to resolve (NULL).
 */
static mn_status resolve_curves(rig_reader *r, mn_voxel_animation *a)
{
    const double **records = mni_arena_calloc(r->arena, a->track_count ? a->track_count : 1,
                                              sizeof *records, _Alignof(double *));
    if (!records)
        return mni_json_oom(&r->j, NULL, "resolving the curves");
    for (uint32_t t = 0; t < a->track_count; t++) {
        const mn_fcurve *c = &a->tracks[t].curve;
        bool bezier = false;
        for (uint32_t k = 0; k < c->key_count && !bezier; k++)
            bezier = c->keys[k].interp == MN_FCURVE_BEZIER;
        if (!bezier)
            continue;
        double *record = mni_arena_calloc(r->arena, (size_t)c->key_count * 4, sizeof *record,
                                          _Alignof(double));
        if (!record)
            return mni_json_oom(&r->j, NULL, "resolving the curves");
        mn_fcurve_resolve(c, record);
        records[t] = record;
    }
    a->resolved = records;
    return bake_curves(r, a);
}

static mn_status read_tracks(rig_reader *r, json_t *obj, uint32_t i)
{
    mn_voxel_animation *a = &r->animations[i];
    json_t *array;
    uint32_t n;
    mn_status st = mni_json_array_count(&r->j, obj, "tracks", true, &array, &n);
    if (st != MN_OK)
        return st;
    mn_voxel_track *tracks = mni_arena_calloc(r->arena, n, sizeof *tracks, _Alignof(mn_voxel_track));
    if (!tracks)
        return mni_json_oom(&r->j, NULL, "reading tracks");
    size_t mark = mni_json_push_key(&r->j, "tracks");
    for (uint32_t t = 0; t < n; t++) {
        size_t m2 = mni_json_push_index(&r->j, t);
        st = read_track(r, json_array_get(array, t), i, t, &tracks[t]);
        if (st != MN_OK)
            return st;
        mni_json_pop(&r->j, m2);
    }
    mni_json_pop(&r->j, mark);
    a->tracks = tracks;
    a->track_count = n;
    st = settle_duration(r, obj, a, tracks);
    return st == MN_OK ? resolve_curves(r, a) : st;
}

static mn_status read_animation(rig_reader *r, json_t *obj, uint32_t i)
{
    mn_voxel_animation *a = &r->animations[i];
    mn_status st = expect_object(r, obj, "an animation");
    if (st == MN_OK)
        st = read_unique_name(r, obj, &r->priv->animations, "animations", i, &a->name);
    if (st == MN_OK)
        st = mni_json_bool(&r->j, obj, "loop", true, &a->loop);
    if (st == MN_OK)
        st = mni_json_bool(&r->j, obj, "auto_play", true, &a->auto_play);
    if (st == MN_OK)
        st = get_number(&r->j, obj, "duration_ms", false, &a->duration_ms);
    if (st == MN_OK && a->duration_ms < 0.0)
        st = mni_json_fail(&r->j, MN_INVALID_VALUE, "duration_ms", "duration_ms %g is negative",
                           a->duration_ms);
    if (st == MN_OK)
        st = read_tracks(r, obj, i);
    if (st == MN_OK)
        st = keep_unknown(r, obj, animation_fields, sizeof animation_fields / sizeof *animation_fields,
                          &a->extras);
    return st;
}

static mn_status read_animations(rig_reader *r, json_t *rig_obj)
{
    json_t *array;
    uint32_t n;
    mn_status st = mni_json_array_count(&r->j, rig_obj, "animations", false, &array, &n);
    if (st != MN_OK)
        return st;
    uint32_t nj = r->rig->joint_count;
    r->animations = mni_arena_calloc(r->arena, n, sizeof *r->animations, _Alignof(mn_voxel_animation));
    r->claimed_by = mni_arena_calloc(r->arena, nj, sizeof *r->claimed_by, _Alignof(uint32_t));
    r->claimed_track = mni_arena_calloc(r->arena, nj, sizeof *r->claimed_track, _Alignof(uint32_t));
    r->priv->baked = mni_arena_calloc(r->arena, n ? n : 1, sizeof *r->priv->baked,
                                      _Alignof(baked_tracks));
    if (!r->animations || !r->claimed_by || !r->claimed_track || !r->priv->baked)
        return mni_json_oom(&r->j, NULL, "reading the animations");
    r->priv->baked_count = n;
    r->rig->animations = r->animations;
    r->rig->animation_count = n;
    st = mni_json_first_repeated_name(&r->j, array, n, "checking names",
                                      &r->priv->animations.repeat, &r->priv->animations.first);
    if (st == MN_OK)
        st = for_each(r, "animations", array, n, read_animation);
    return st == MN_OK ? sort_table(r, &r->priv->animations, r->animations, sizeof *r->animations, n)
                       : st;
}

/* ---- the document -------------------------------------------------------------------------------- */

static const char *const rig_fields[] = {"format", "version", "kind",      "voxel_size",
                                         "parts",  "joints",  "animations"};

/* format, version, kind and voxel_size: the rig's header. */
static mn_status read_header(rig_reader *r, json_t *obj)
{
    const char *format = NULL;
    mn_status st = mni_json_string_ref(&r->j, obj, "format", false, &format, NULL);
    if (st == MN_OK && format && strcmp(format, "voxel-rig") != 0)
        st = mni_json_fail(&r->j, MN_INVALID_VALUE, "format", "\"%.32s\" is not \"voxel-rig\"", format);
    if (st != MN_OK)
        return st;
    json_t *version = json_object_get(obj, "version");
    if (version && !json_is_number(version))
        return mni_json_fail(&r->j, MN_JSON_TYPE, "version", "expected the number 1, found %s",
                             mni_json_type_name(version));
    if (version && json_number_value(version) != 1.0)
        return mni_json_fail(&r->j, MN_INVALID_VALUE, "version",
                             "version %g is not supported (this reader reads version 1)",
                             json_number_value(version));
    int kind = 0;
    st = mni_json_enum(&r->j, obj, "kind", false, kind_names, MNI_COUNT(kind_names), "a voxel model kind", &kind);
    if (st != MN_OK)
        return st;
    r->rig->kind = (mn_voxel_kind)kind;
    float size = 1.0f;
    st = mni_json_float(&r->j, obj, "voxel_size", false, &size);
    if (st == MN_OK && !(size > 0.0f))
        st = mni_json_fail(&r->j, MN_INVALID_VALUE, "voxel_size", "voxel_size %g is not positive",
                           (double)size);
    r->rig->voxel_size = size;
    return st;
}

static mn_status read_rig(rig_reader *r, json_t *root)
{
    json_t *obj = root;
    json_t *inner = json_object_get(root, "rig");
    /* The resolved form a run record carries: the rig is the "rig" member. */
    if (!json_object_get(root, "parts") && json_is_object(inner)) {
        obj = inner;
        mni_json_push_key(&r->j, "rig");
    }
    mn_status st = read_header(r, obj);
    if (st == MN_OK)
        st = read_parts(r, obj);
    if (st == MN_OK)
        st = read_joints(r, obj);
    if (st == MN_OK)
        st = read_animations(r, obj);
    if (st == MN_OK)
        st = keep_unknown(r, obj, rig_fields, sizeof rig_fields / sizeof *rig_fields, &r->rig->extras);
    return st;
}

static bool is_json_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Parse the text (a UTF-8 byte order mark allowed) into *root, an object. */
static mn_status parse(const uint8_t *data, size_t size, mn_error *err, json_t **root)
{
    size_t base = 0;
    if (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF)
        base = 3;
    while (size > base && is_json_space(data[size - 1]))
        size--;
    json_error_t jerr;
    *root = json_loadb((const char *)data + base, size - base, 0, &jerr);
    if (!*root) {
        mn_status st = mni_error_set(err, MN_JSON_SYNTAX, "", (int64_t)(base + (size_t)jerr.position),
                                     "JSON syntax error at line %d, column %d: %s", jerr.line,
                                     jerr.column, jerr.text);
        err->line = jerr.line;
        err->column = jerr.column;
        return st;
    }
    if (!json_is_object(*root))
        return mni_error_set(err, MN_JSON_TYPE, "", (int64_t)base,
                             "the document is %s; a rig is a JSON object", mni_json_type_name(*root));
    return MN_OK;
}

static void free_holder(rig_holder *h)
{
    mni_arena_release_holder(&h->priv.arena, h, sizeof *h);
}

mn_status mn_voxel_rig_read_memory(const void *json, size_t size, const mn_voxel_rig_options *options,
                                   mn_voxel_rig **out_rig, mn_error *err)
{
    if (out_rig)
        *out_rig = NULL;
    if (!out_rig || (!json && size > 0))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_voxel_rig_read_memory needs json (or size 0) and out_rig");
    mn_allocator allocator = {0};
    if (options)
        allocator = options->allocator;
    rig_holder *h = mni_alloc(&allocator, sizeof *h);
    if (!h)
        return mni_oom(err, "creating a rig");
    memset(h, 0, sizeof *h);
    mni_arena_init(&h->priv.arena, &allocator);
    h->rig.priv_ = &h->priv;
    h->rig.voxel_size = 1.0f;

    mn_error local;
    mni_error_clear(&local);
    rig_reader r;
    memset(&r, 0, sizeof r);
    r.arena = &h->priv.arena;
    r.rig = &h->rig;
    r.priv = &h->priv;
    r.bake = bake_budget_for(size);
    mni_json_init(&r.j, r.arena, &local);

    static const uint8_t empty[1] = {0};
    json_t *root = NULL;
    mn_status st = parse(json ? json : empty, size, &local, &root);
    if (st == MN_OK)
        st = read_rig(&r, root);
    if (root)
        json_decref(root);
    if (st != MN_OK) {
        if (local.code == MN_OK)
            mni_fail(&local, st, NULL);
        free_holder(h);
        if (err)
            *err = local;
        return st;
    }
    if (err)
        mni_error_clear(err);
    *out_rig = &h->rig;
    return MN_OK;
}

mn_status mn_voxel_rig_read_file(const char *path, const mn_voxel_rig_options *options,
                                 mn_voxel_rig **out_rig, mn_error *err)
{
    if (out_rig)
        *out_rig = NULL;
    if (!path || !out_rig)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_voxel_rig_read_file needs a path and out_rig");
    mn_arena file_arena;
    mni_arena_init(&file_arena, options ? &options->allocator : NULL);
    mn_bytes bytes = {0};
    mn_status st = mni_file_read(&file_arena, path, &bytes, err);
    if (st == MN_OK)
        st = mn_voxel_rig_read_memory(bytes.data, bytes.size, options, out_rig, err);
    mni_arena_release(&file_arena);
    return st;
}

void mn_voxel_rig_free(mn_voxel_rig *rig)
{
    if (rig)
        free_holder((rig_holder *)(void *)rig);
}

/*
 * A rig built by hand as plain data has no tables (priv_ NULL): a scan finds
 * the same index.  `name` is the first member of a part, a joint and an
 * animation alike, so one scan serves the three.
 */
static uint32_t scan_names(const void *items, size_t stride, uint32_t count, const char *name)
{
    for (uint32_t i = 0; name && items && i < count; i++) {
        const char *n = *(const char *const *)(const void *)((const char *)items + i * stride);
        if (n && strcmp(n, name) == 0)
            return i;
    }
    return MN_NONE;
}

uint32_t mn_voxel_rig_find_part(const mn_voxel_rig *rig, const char *name)
{
    if (!rig)
        return MN_NONE;
    if (!rig->priv_)
        return scan_names(rig->parts, sizeof *rig->parts, rig->part_count, name);
    return table_find(&rig->priv_->parts, name);
}

uint32_t mn_voxel_rig_find_joint(const mn_voxel_rig *rig, const char *name)
{
    if (!rig)
        return MN_NONE;
    if (!rig->priv_)
        return scan_names(rig->joints, sizeof *rig->joints, rig->joint_count, name);
    return table_find(&rig->priv_->joints, name);
}

uint32_t mn_voxel_rig_find_animation(const mn_voxel_rig *rig, const char *name)
{
    if (!rig)
        return MN_NONE;
    if (!rig->priv_)
        return scan_names(rig->animations, sizeof *rig->animations, rig->animation_count, name);
    return table_find(&rig->priv_->animations, name);
}

bool mn_voxel_kind_is_skinned(mn_voxel_kind kind)
{
    return kind == MN_VOXEL_MC_SKINNED || kind == MN_VOXEL_SN_SKINNED || kind == MN_VOXEL_DC_SKINNED;
}
