/*
 * The voxel rig controller (marionette/voxel/controller.h): the state a game drives —
 * caller values, the auto-play animations, one played animation and the two
 * clocks — over the pure posing functions of voxel/pose.c.
 *
 * Each frame is: overlay = caller map; sample every auto-play animation at
 * the auto clock into it, then the played one at its clock (so it wins);
 * mn_voxel_pose with that overlay as its caller map (which clamps and
 * composes); for a skinned mesh, the skinning matrices and mn_skin_run.  The
 * result is exactly mn_voxel_pose with the animations as inputs, but lets
 * the two kinds of animation run on different clocks.
 *
 * Every per-frame buffer is carved from one allocation made at creation, so
 * the driving calls cannot fail for want of memory and allocate nothing.
 * Outputs are recomputed lazily: a change marks them stale and the next
 * output query brings them up to date.
 */
#include <marionette/math.h>
#include <marionette/skin.h>
#include <marionette/voxel/controller.h>

#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

struct mn_voxel_controller {
    mn_allocator allocator;
    size_t block_size;               /* this struct and every array below: one allocation */

    const mn_voxel_rig *rig;
    const mn_part_mesh *const *part_meshes;   /* part_count entries or NULL */
    const mn_part_mesh *mesh;                 /* skinned or static, or NULL */
    bool skinned;                              /* mesh has bones: skin it */

    /* Owned when made by mn_voxel_controller_load (else NULL). */
    mn_voxel_rig *owned_rig;
    mn_part_mesh **owned_part_meshes;          /* part_count entries, own allocation */
    mn_part_mesh *owned_mesh;

    float *caller;                   /* joint_count caller values, NaN = unset */
    float *overlay;                  /* joint_count: caller with the animations sampled over it */
    float *values;                   /* joint_count final values */
    float *worlds;                   /* 16 × part_count */
    uint32_t *auto_play;             /* indices of the auto-play animations, rig order */
    uint32_t auto_play_count;

    uint32_t *part_of_bone;          /* skinned: bone_count */
    float *palette;                  /* skinned: 16 × bone_count */
    float *positions, *normals;      /* skinned: 3 × vertex_count each (normals when the mesh has them) */
    mn_skin_job job;

    uint32_t played;                 /* animation index, MN_NONE when none */
    double auto_ms, played_ms;       /* the two clocks */
    bool pose_stale, skin_stale;
};

/* ---- names ------------------------------------------------------------------------ */

/*
 * Names are looked up through the reader's tables (mn_voxel_rig_find_*) when
 * the rig was read; a rig built by hand as plain data has none (priv_ NULL),
 * and then a scan finds the same index.  `name` is the first member of
 * mn_voxel_part, mn_voxel_joint and mn_voxel_animation alike, which lets one
 * scan serve all three.
 */
static uint32_t scan_names(const void *items, size_t stride, uint32_t count, const char *name)
{
    for (uint32_t i = 0; name != NULL && i < count; i++) {
        const char *n = *(const char *const *)(const void *)((const char *)items + i * stride);
        if (n != NULL && strcmp(n, name) == 0)
            return i;
    }
    return MN_NONE;
}

static uint32_t find_joint(const mn_voxel_rig *rig, const char *name)
{
    if (rig->priv_ != NULL)
        return mn_voxel_rig_find_joint(rig, name);
    return scan_names(rig->joints, sizeof *rig->joints, rig->joint_count, name);
}

static uint32_t find_animation(const mn_voxel_rig *rig, const char *name)
{
    if (rig->priv_ != NULL)
        return mn_voxel_rig_find_animation(rig, name);
    return scan_names(rig->animations, sizeof *rig->animations, rig->animation_count, name);
}

static void find_bone_parts(const mn_voxel_rig *rig, const mn_part_mesh *mesh, uint32_t *out)
{
    if (rig->priv_ != NULL) {
        mn_voxel_bone_parts(rig, mesh, out);
        return;
    }
    for (uint32_t b = 0; b < mesh->bone_count; b++)
        out[b] = scan_names(rig->parts, sizeof *rig->parts, rig->part_count,
                            mesh->bone_names != NULL ? mesh->bone_names[b] : NULL);
}

/* ---- creation -------------------------------------------------------------------- */

/* Bump layout over one block: offsets aligned to 16, sizes checked. */
typedef struct layout {
    size_t size;
    bool overflow;
} layout;

static size_t layout_add(layout *l, size_t count, size_t elem)
{
    size_t bytes, at;
    if (!mni_checked_mul(count, elem, &bytes) || !mni_checked_add(l->size, 15, &at)) {
        l->overflow = true;
        return 0;
    }
    at &= ~(size_t)15;
    if (!mni_checked_add(at, bytes, &l->size))
        l->overflow = true;
    return at;
}

/* A skinned mesh's job over the controller's buffers; checked once, here. */
static mn_status setup_skinning(mn_voxel_controller *c, mn_error *err)
{
    const mn_part_mesh *m = c->mesh;
    if (m->joints == NULL || m->weights == NULL || m->positions == NULL)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "the skinned mesh has bones but no joints, weights or positions");
    find_bone_parts(c->rig, m, c->part_of_bone);
    for (uint32_t b = 0; b < m->bone_count; b++)   /* every bone at bind until posed */
        mn_mat4_identity(&c->palette[(size_t)b * 16]);
    c->job = (mn_skin_job){
        .vertex_count = m->vertex_count,
        .influence_count = 4,
        .joints = m->joints,
        .weights = m->weights,
        .palette = c->palette,
        .palette_count = m->bone_count,
        .positions = m->positions,
        .normals = m->normals,
        .out_positions = c->positions,
        .out_normals = m->normals != NULL ? c->normals : NULL,
    };
    return mn_skin_job_validate(&c->job, err);
}

mn_status mn_voxel_controller_create(const mn_voxel_controller_desc *desc,
                                     mn_voxel_controller **out, mn_error *err)
{
    if (out != NULL)
        *out = NULL;
    if (desc == NULL || desc->rig == NULL || out == NULL)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_voxel_controller_create needs a desc with a rig, and out");
    const mn_voxel_rig *rig = desc->rig;
    const mn_part_mesh *mesh = desc->mesh;
    bool skinned = mesh != NULL && mesh->bone_count > 0;
    uint32_t bones = skinned ? mesh->bone_count : 0;
    uint32_t verts = skinned ? mesh->vertex_count : 0;

    uint32_t auto_count = 0;
    for (uint32_t a = 0; a < rig->animation_count; a++)
        auto_count += rig->animations[a].auto_play ? 1u : 0u;

    layout l = {0, false};
    size_t at_self = layout_add(&l, 1, sizeof(mn_voxel_controller));
    size_t at_caller = layout_add(&l, rig->joint_count, sizeof(float));
    size_t at_overlay = layout_add(&l, rig->joint_count, sizeof(float));
    size_t at_values = layout_add(&l, rig->joint_count, sizeof(float));
    size_t at_worlds = layout_add(&l, (size_t)rig->part_count * 16, sizeof(float));
    size_t at_auto = layout_add(&l, auto_count, sizeof(uint32_t));
    size_t at_bones = layout_add(&l, bones, sizeof(uint32_t));
    size_t at_palette = layout_add(&l, (size_t)bones * 16, sizeof(float));
    size_t at_positions = layout_add(&l, (size_t)verts * 3, sizeof(float));
    size_t at_normals = layout_add(&l, (size_t)verts * 3, sizeof(float));
    if (l.overflow)
        return mni_fail(err, MN_OVERFLOW, "the rig is too large to control");
    unsigned char *block = mni_alloc(&desc->allocator, l.size);
    if (block == NULL)
        return mni_oom(err, "a voxel controller (%zu bytes)", l.size);
    memset(block, 0, l.size);

    mn_voxel_controller *c = (mn_voxel_controller *)(block + at_self);
    c->allocator = desc->allocator;
    c->block_size = l.size;
    c->rig = rig;
    c->part_meshes = desc->part_meshes;
    c->mesh = mesh;
    c->skinned = skinned;
    c->caller = (float *)(block + at_caller);
    c->overlay = (float *)(block + at_overlay);
    c->values = (float *)(block + at_values);
    c->worlds = (float *)(block + at_worlds);
    c->auto_play = (uint32_t *)(block + at_auto);
    c->part_of_bone = (uint32_t *)(block + at_bones);
    c->palette = (float *)(block + at_palette);
    c->positions = (float *)(block + at_positions);
    c->normals = (float *)(block + at_normals);
    for (uint32_t j = 0; j < rig->joint_count; j++)
        c->caller[j] = NAN;
    for (uint32_t a = 0; a < rig->animation_count; a++)
        if (rig->animations[a].auto_play)
            c->auto_play[c->auto_play_count++] = a;
    c->played = MN_NONE;
    c->pose_stale = c->skin_stale = true;

    if (skinned) {
        mn_status st = setup_skinning(c, err);
        if (st != MN_OK) {
            mni_free(&c->allocator, block, l.size);
            return st;
        }
    }
    *out = c;
    return MN_OK;
}

void mn_voxel_controller_free(mn_voxel_controller *c)
{
    if (c == NULL)
        return;
    if (c->owned_part_meshes != NULL) {
        for (uint32_t p = 0; p < c->rig->part_count; p++)
            mn_part_mesh_free(c->owned_part_meshes[p]);
        mni_free(&c->allocator, c->owned_part_meshes,
                 (size_t)c->rig->part_count * sizeof *c->owned_part_meshes);
    }
    mn_part_mesh_free(c->owned_mesh);
    mn_voxel_rig_free(c->owned_rig);
    mn_allocator allocator = c->allocator;
    mni_free(&allocator, c, c->block_size);   /* the struct is the block's first bytes */
}

/* ---- loading from the files a run produced ------------------------------------------- */

/*
 * A part name becomes a file name: one that could leave meshes/ ("../x",
 * "a/b") or is empty is refused, so a hostile rig.json cannot make the
 * controller read files elsewhere.
 */
static bool safe_file_name(const char *name)
{
    if (name == NULL || name[0] == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return false;
    return strpbrk(name, "/\\") == NULL;
}

/* "<dir>/<a><b><c>" in a fresh allocation (size in *size); NULL when out of memory. */
static char *join_path(const mn_allocator *allocator, const char *dir, size_t dir_len,
                       const char *a, const char *b, const char *c, size_t *size)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    *size = dir_len + 1 + la + lb + lc + 1;
    char *s = mni_alloc(allocator, *size);
    if (s == NULL)
        return NULL;
    memcpy(s, dir, dir_len);
    s[dir_len] = '/';
    memcpy(s + dir_len + 1, a, la);
    memcpy(s + dir_len + 1 + la, b, lb);
    memcpy(s + dir_len + 1 + la + lb, c, lc + 1);
    return s;
}

/* Read <a><b><c> in the folder dir as a part mesh, kept inside root (NULL: dir). */
static mn_status read_mesh(const mn_allocator *allocator, const char *dir, size_t dir_len,
                           const char *root, const char *a, const char *b, const char *c,
                           bool skinned, mn_part_mesh **out, mn_error *err)
{
    size_t size, name_size;
    char *folder = join_path(allocator, dir, dir_len, "", "", "", &size);
    char *name = folder ? join_path(allocator, "", 0, a, b, c, &name_size) : NULL;
    mn_status st = name ? mn_part_mesh_read_in(folder, name + 1, root, skinned, allocator, out, err)
                        : mni_oom(err, "a mesh path");
    if (name)
        mni_free(allocator, name, name_size);
    if (folder)
        mni_free(allocator, folder, size);
    return st;
}

/* The meshes of the rig's kind, into the owned slots of a desc being built. */
static mn_status read_meshes(const mn_voxel_rig *rig, const mn_allocator *allocator,
                             const char *dir, size_t dir_len, const char *root, mn_part_mesh ***out_parts,
                             mn_part_mesh **out_mesh, mn_error *err)
{
    bool skinned = mn_voxel_kind_is_skinned(rig->kind);
    if (skinned || rig->kind == MN_VOXEL_STATIC)
        return read_mesh(allocator, dir, dir_len, root, "mesh.glb", "", "", skinned, out_mesh, err);
    if (rig->part_count == 0)
        return MN_OK;
    size_t bytes = (size_t)rig->part_count * sizeof **out_parts;
    mn_part_mesh **parts = mni_alloc(allocator, bytes);
    if (parts == NULL)
        return mni_oom(err, "%u part meshes", (unsigned)rig->part_count);
    memset(parts, 0, bytes);
    *out_parts = parts;   /* the caller frees it, whole or partial */
    for (uint32_t p = 0; p < rig->part_count; p++) {
        const char *name = rig->parts[p].name;
        if (!safe_file_name(name)) {
            char path[32];
            snprintf(path, sizeof path, "parts[%u].name", (unsigned)p);
            return mni_error_set(err, MN_INVALID_VALUE, path, -1,
                                 "part name \"%s\" cannot name a file in meshes/",
                                 name != NULL ? name : "");
        }
        mn_status st =
            read_mesh(allocator, dir, dir_len, root, "meshes/", name, ".glb", false, &parts[p], err);
        if (st != MN_OK)
            return st;
    }
    return MN_OK;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

mn_status mn_voxel_controller_load(const char *path, const mn_voxel_controller_options *options,
                                   mn_voxel_controller **out, mn_error *err)
{
    if (out != NULL)
        *out = NULL;
    if (path == NULL || out == NULL)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_voxel_controller_load needs a path and out");
    mn_allocator allocator = options != NULL ? options->allocator : (mn_allocator){0};

    /* A .json path is the rig itself, its folder the model's; anything else is the folder. */
    bool is_file = ends_with(path, ".json");
    const char *slash = is_file ? strrchr(path, '/') : NULL;
    const char *dir = is_file ? (slash != NULL ? path : ".") : path;
    size_t dir_len = is_file ? (slash != NULL ? (size_t)(slash - path) : 1) : strlen(path);
    if (is_file && slash == path)   /* "/rig.json": the root folder */
        dir = "", dir_len = 0;

    mn_voxel_rig *rig = NULL;
    mn_part_mesh **parts = NULL, *mesh = NULL;
    mn_voxel_controller *c = NULL;
    mn_voxel_rig_options rig_options = {.allocator = allocator};
    mn_status st;
    if (is_file) {
        st = mn_voxel_rig_read_file(path, &rig_options, &rig, err);
    } else {
        size_t size;
        char *rig_path = join_path(&allocator, dir, dir_len, "rig.json", "", "", &size);
        if (rig_path == NULL)
            return mni_oom(err, "a path");
        st = mn_voxel_rig_read_file(rig_path, &rig_options, &rig, err);
        mni_free(&allocator, rig_path, size);
    }
    if (st == MN_OK)
        st = read_meshes(rig, &allocator, dir, dir_len, options != NULL ? options->root : NULL, &parts,
                         &mesh, err);
    if (st == MN_OK) {
        mn_voxel_controller_desc desc = {
            .rig = rig,
            .part_meshes = (const mn_part_mesh *const *)parts,
            .mesh = mesh,
            .allocator = allocator,
        };
        st = mn_voxel_controller_create(&desc, &c, err);
    }
    if (st != MN_OK) {
        if (parts != NULL) {
            for (uint32_t p = 0; p < rig->part_count; p++)
                mn_part_mesh_free(parts[p]);
            mni_free(&allocator, parts, (size_t)rig->part_count * sizeof *parts);
        }
        mn_part_mesh_free(mesh);
        mn_voxel_rig_free(rig);
        return st;
    }
    c->owned_rig = rig;
    c->owned_part_meshes = parts;
    c->owned_mesh = mesh;
    *out = c;
    return MN_OK;
}

/* ---- what it drives ------------------------------------------------------------------ */

const mn_voxel_rig *mn_voxel_controller_rig(const mn_voxel_controller *c)
{
    return c != NULL ? c->rig : NULL;
}

const mn_part_mesh *mn_voxel_controller_part_mesh(const mn_voxel_controller *c, uint32_t part)
{
    if (c == NULL || c->part_meshes == NULL || part >= c->rig->part_count)
        return NULL;
    return c->part_meshes[part];
}

const mn_part_mesh *mn_voxel_controller_mesh(const mn_voxel_controller *c)
{
    return c != NULL ? c->mesh : NULL;
}

/* ---- driving ---------------------------------------------------------------------------- */

static void mark_stale(mn_voxel_controller *c)
{
    c->pose_stale = c->skin_stale = true;
}

/* A caller value as stored: NaN stays (unset), anything else is clamped. */
static float caller_value(const mn_voxel_joint *joint, float v)
{
    if (isnan(v))
        return v;
    return v < joint->min ? joint->min : v > joint->max ? joint->max : v;
}

mn_status mn_voxel_controller_pose(mn_voxel_controller *c, const mn_voxel_joint_value *values,
                                   uint32_t count)
{
    if (c == NULL || (values == NULL && count > 0))
        return MN_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < count; i++)   /* all or nothing: check every name first */
        if (find_joint(c->rig, values[i].name) == MN_NONE)
            return MN_INVALID_VALUE;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t j = find_joint(c->rig, values[i].name);
        c->caller[j] = caller_value(&c->rig->joints[j], values[i].value);
    }
    mark_stale(c);
    return MN_OK;
}

mn_status mn_voxel_controller_set_joint(mn_voxel_controller *c, uint32_t joint, float value)
{
    if (c == NULL)
        return MN_INVALID_ARGUMENT;
    if (joint >= c->rig->joint_count)
        return MN_INDEX_RANGE;
    c->caller[joint] = caller_value(&c->rig->joints[joint], value);
    mark_stale(c);
    return MN_OK;
}

void mn_voxel_controller_reset_pose(mn_voxel_controller *c)
{
    if (c == NULL)
        return;
    for (uint32_t j = 0; j < c->rig->joint_count; j++)
        c->caller[j] = NAN;
    mark_stale(c);
}

mn_status mn_voxel_controller_play_animation(mn_voxel_controller *c, const char *name)
{
    if (c == NULL)
        return MN_INVALID_ARGUMENT;
    uint32_t a = MN_NONE;
    if (name != NULL) {
        a = find_animation(c->rig, name);
        if (a == MN_NONE)
            return MN_INVALID_VALUE;
    }
    c->played = a;
    c->played_ms = 0.0;
    mark_stale(c);
    return MN_OK;
}

const char *mn_voxel_controller_playing(const mn_voxel_controller *c)
{
    if (c == NULL || c->played == MN_NONE)
        return NULL;
    return c->rig->animations[c->played].name;
}

void mn_voxel_controller_update(mn_voxel_controller *c, double dt_seconds)
{
    if (c == NULL)
        return;
    double dt_ms = isfinite(dt_seconds) && dt_seconds > 0.0 ? dt_seconds * 1000.0 : 0.0;
    c->auto_ms += dt_ms;
    c->played_ms += dt_ms;
    if (c->played != MN_NONE) {
        const mn_voxel_animation *anim = &c->rig->animations[c->played];
        if (!anim->loop && c->played_ms >= anim->duration_ms)
            c->played = MN_NONE;   /* a one-shot that has run its course */
    }
    mark_stale(c);
}

void mn_voxel_controller_seek(mn_voxel_controller *c, double time_ms)
{
    if (c == NULL)
        return;
    double t = isfinite(time_ms) ? time_ms : 0.0;
    c->auto_ms = c->played_ms = t;
    mark_stale(c);
}

double mn_voxel_controller_time_ms(const mn_voxel_controller *c)
{
    if (c == NULL)
        return 0.0;
    return c->played != MN_NONE ? c->played_ms : c->auto_ms;
}

/* ---- the interface ---------------------------------------------------------------------- */

uint32_t mn_voxel_controller_joint_names(const mn_voxel_controller *c, mn_voxel_drive drive,
                                         const char **out, uint32_t capacity)
{
    if (c == NULL)
        return 0;
    uint32_t n = 0;
    for (uint32_t j = 0; j < c->rig->joint_count; j++) {
        if (c->rig->joints[j].drive != drive)
            continue;
        if (out != NULL && n < capacity)
            out[n] = c->rig->joints[j].name;
        n++;
    }
    return n;
}

mn_status mn_voxel_controller_joint_range(const mn_voxel_controller *c, const char *name,
                                          mn_voxel_joint_range *out)
{
    if (c == NULL || out == NULL)
        return MN_INVALID_ARGUMENT;
    uint32_t j = find_joint(c->rig, name);
    if (j == MN_NONE)
        return MN_INVALID_VALUE;
    const mn_voxel_joint *joint = &c->rig->joints[j];
    *out = (mn_voxel_joint_range){joint->min, joint->max, joint->rest};
    return MN_OK;
}

/* ---- outputs ------------------------------------------------------------------------------ */

/* Bring values and worlds up to date: the overlay, then mn_voxel_pose over it. */
static void refresh_pose(mn_voxel_controller *c)
{
    if (!c->pose_stale)
        return;
    const mn_voxel_rig *rig = c->rig;
    if (rig->joint_count > 0)
        memcpy(c->overlay, c->caller, rig->joint_count * sizeof *c->overlay);
    for (uint32_t k = 0; k < c->auto_play_count; k++)
        mn_voxel_sample_animation(rig, c->auto_play[k], c->auto_ms, c->overlay);
    if (c->played != MN_NONE)
        mn_voxel_sample_animation(rig, c->played, c->played_ms, c->overlay);
    mn_voxel_pose_input in = {.caller = c->overlay};
    if (mn_voxel_pose(rig, &in, c->worlds, c->values) != MN_OK) {
        /* Only a rig with a cycle in its parts (possible in one built by hand) gets here. */
        for (uint32_t p = 0; p < rig->part_count; p++)
            mn_mat4_identity(&c->worlds[(size_t)p * 16]);
    }
    c->pose_stale = false;
}

static void refresh_skin(mn_voxel_controller *c)
{
    refresh_pose(c);
    if (!c->skinned || !c->skin_stale)
        return;
    mn_voxel_skinning_matrices(c->rig, c->mesh, c->part_of_bone, c->worlds, c->palette);
    (void)mn_skin_run(&c->job);   /* checked by mn_skin_job_validate at creation */
    c->skin_stale = false;
}

const float *mn_voxel_controller_part_worlds(mn_voxel_controller *c)
{
    if (c == NULL)
        return NULL;
    refresh_pose(c);
    return c->worlds;
}

const float *mn_voxel_controller_joint_values(mn_voxel_controller *c)
{
    if (c == NULL)
        return NULL;
    refresh_pose(c);
    return c->values;
}

uint32_t mn_voxel_controller_vertex_count(const mn_voxel_controller *c)
{
    return c != NULL && c->mesh != NULL ? c->mesh->vertex_count : 0;
}

const float *mn_voxel_controller_positions(mn_voxel_controller *c)
{
    if (c == NULL || c->mesh == NULL)
        return NULL;
    if (!c->skinned)
        return c->mesh->positions;
    refresh_skin(c);
    return c->positions;
}

const float *mn_voxel_controller_normals(mn_voxel_controller *c)
{
    if (c == NULL || c->mesh == NULL || c->mesh->normals == NULL)
        return NULL;
    if (!c->skinned)
        return c->mesh->normals;
    refresh_skin(c);
    return c->normals;
}
