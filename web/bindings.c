/*
 * The WebAssembly module's C side: a flat set of functions over the public
 * API that JavaScript (web/marionette.mjs) calls through the module's
 * exports.  Everything here is plain marionette usage; the only state of its
 * own is the last error (one per module: JavaScript is single-threaded here)
 * and the per-skin palettes a binding instance computes on request.
 *
 * Ownership: every *_create/_load returns a handle the caller frees with its
 * *_free; views (mnw_*_ptr) point into wasm memory owned by the handle and
 * stay valid until the handle is freed or the instance is updated again
 * (their bytes change, not their address).  A memory growth makes
 * JavaScript's typed arrays over the old buffer detached: the JS side makes
 * its views again when `memory.buffer` changed (marionette.mjs, views()).
 */
#define _DEFAULT_SOURCE /* getentropy under -std=c11 */

#include <marionette/marionette.h>

#include <emscripten/emscripten.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MNW EMSCRIPTEN_KEEPALIVE

/* ---- start ------------------------------------------------------------------------- */

/* Called once by the JS API before anything else.  jansson seeds its hash tables from
   /dev/urandom on first use; the module has no file system, so it is seeded here, from the
   browser's (or Node's) crypto random through getentropy. */
MNW void mnw_init(void)
{
    uint32_t seed = 0;
    if (getentropy(&seed, sizeof seed) != 0 || seed == 0)
        seed = (uint32_t)emscripten_get_now() | 1u;
    json_object_seed(seed);
}

/* ---- errors ------------------------------------------------------------------------ */

static mn_error last_error;

static int fail_with(mn_status code, const char *message)
{
    memset(&last_error, 0, sizeof last_error);
    last_error.code = code;
    strncpy(last_error.message, message, sizeof last_error.message - 1);
    last_error.offset = -1;
    return (int)code;
}

MNW int mnw_error_code(void) { return (int)last_error.code; }
MNW const char *mnw_error_status(void) { return mn_status_name(last_error.code); }
MNW const char *mnw_error_message(void) { return last_error.message; }
MNW const char *mnw_error_path(void) { return last_error.path; }
MNW const char *mnw_status_name(int code) { return mn_status_name((mn_status)code); }
MNW const char *mnw_version(void) { return mn_version(); }

/* ---- the files a .gltf names --------------------------------------------------------- */

/* Files handed over from JavaScript for one load: name -> bytes (copied). */
typedef struct mnw_file {
    char *name;
    uint8_t *data;
    size_t size;
} mnw_file;

typedef struct mnw_files {
    mnw_file *files;
    size_t count, cap;
} mnw_files;

MNW mnw_files *mnw_files_create(void) { return calloc(1, sizeof(mnw_files)); }

MNW int mnw_files_add(mnw_files *set, const char *name, const uint8_t *data, size_t size)
{
    if (!set || !name)
        return fail_with(MN_INVALID_ARGUMENT, "files_add: no set or no name");
    if (set->count == set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 8;
        mnw_file *grown = realloc(set->files, cap * sizeof *grown);
        if (!grown)
            return fail_with(MN_OUT_OF_MEMORY, "files_add: out of memory");
        set->files = grown;
        set->cap = cap;
    }
    mnw_file *f = &set->files[set->count];
    size_t name_size = strlen(name) + 1;
    f->name = malloc(name_size);
    if (f->name)
        memcpy(f->name, name, name_size);
    f->data = malloc(size ? size : 1);
    if (!f->name || !f->data) {
        free(f->name);
        free(f->data);
        return fail_with(MN_OUT_OF_MEMORY, "files_add: out of memory");
    }
    memcpy(f->data, data, size);
    f->size = size;
    set->count++;
    return MN_OK;
}

MNW void mnw_files_free(mnw_files *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->count; i++) {
        free(set->files[i].name);
        free(set->files[i].data);
    }
    free(set->files);
    free(set);
}

/* The reader's resolver: a URI (already percent-decoded and checked by the reader) names one
   of the files given, by exact name; "./name" is the same file. */
static mn_status files_read(void *user, const char *base_dir, const char *uri, mn_bytes *out,
                            mn_error *err)
{
    (void)base_dir;
    const mnw_files *set = user;
    const char *name = strncmp(uri, "./", 2) == 0 ? uri + 2 : uri;
    for (size_t i = 0; set && i < set->count; i++) {
        if (strcmp(set->files[i].name, name) == 0) {
            out->data = set->files[i].data;
            out->size = set->files[i].size;
            return MN_OK;
        }
    }
    if (err) {
        memset(err, 0, sizeof *err);
        err->code = MN_IO;
        err->offset = -1;
        snprintf(err->message, sizeof err->message, "\"%.200s\" was not given with the model", uri);
    }
    return MN_IO;
}

/* ---- models ---------------------------------------------------------------------------- */

/* Read a GLB or .gltf from bytes; `files` (may be NULL) holds what a .gltf names.  The model
   keeps its own copy of everything: the caller may free data and files right after. */
MNW mn_model *mnw_model_load(const uint8_t *data, size_t size, mnw_files *files)
{
    mn_gltf_options options = {.copy_input = true};
    options.resolver.read = files_read;
    options.resolver.user = files;
    mn_model *model = NULL;
    memset(&last_error, 0, sizeof last_error);
    if (mn_gltf_read_memory(data, size, &options, &model, &last_error) != MN_OK)
        return NULL;
    return model;
}

MNW void mnw_model_free(mn_model *model) { mn_model_free(model); }
MNW uint32_t mnw_model_node_count(const mn_model *m) { return m->node_count; }
MNW const char *mnw_model_node_name(const mn_model *m, uint32_t i)
{
    return i < m->node_count ? m->nodes[i].name : NULL;
}
MNW uint32_t mnw_model_node_parent(const mn_model *m, uint32_t i)
{
    return i < m->node_count ? m->nodes[i].parent : MN_NONE;
}
MNW uint32_t mnw_model_skin_count(const mn_model *m) { return m->skin_count; }
MNW const char *mnw_model_skin_name(const mn_model *m, uint32_t i)
{
    return i < m->skin_count && m->skins[i].name ? m->skins[i].name : "";
}
MNW uint32_t mnw_model_skin_joint_count(const mn_model *m, uint32_t i)
{
    return i < m->skin_count ? m->skins[i].joint_count : 0;
}
MNW const uint32_t *mnw_model_skin_joints(const mn_model *m, uint32_t i)
{
    return i < m->skin_count ? m->skins[i].joints : NULL;
}
MNW uint32_t mnw_model_warning_count(const mn_model *m) { return m->warning_count; }
MNW const char *mnw_model_warning(const mn_model *m, uint32_t i)
{
    return i < m->warning_count ? m->warnings[i].message : NULL;
}
/* Bounds of the default scene at rest: 6 floats, min then max. */
MNW void mnw_model_bounds(const mn_model *m, float *out)
{
    memcpy(out, m->bounds_min, sizeof m->bounds_min);
    memcpy(out + 3, m->bounds_max, sizeof m->bounds_max);
}

/* ---- rigs ------------------------------------------------------------------------------ */

MNW mn_rig *mnw_rig_create(const mn_model *model)
{
    mn_rig *rig = NULL;
    memset(&last_error, 0, sizeof last_error);
    if (mn_rig_create(model, NULL, &rig, &last_error) != MN_OK)
        return NULL;
    return rig;
}

MNW void mnw_rig_free(mn_rig *rig) { mn_rig_free(rig); }
MNW uint32_t mnw_rig_clip_count(const mn_rig *rig) { return mn_rig_clip_count(rig); }
MNW const char *mnw_rig_clip_name(const mn_rig *rig, uint32_t i)
{
    const mn_clip *clip = mn_rig_clip(rig, i);
    return clip ? mn_clip_name(clip) : NULL;
}
MNW float mnw_rig_clip_duration(const mn_rig *rig, uint32_t i)
{
    const mn_clip *clip = mn_rig_clip(rig, i);
    return clip ? mn_clip_duration(clip) : 0.0f;
}
MNW uint32_t mnw_rig_part_count(const mn_rig *rig) { return mn_rig_part_count(rig); }
MNW uint32_t mnw_rig_part_skin(const mn_rig *rig, uint32_t i)
{
    const mn_part *p = mn_rig_part(rig, i);
    return p ? p->skin : MN_NONE;
}
MNW uint32_t mnw_rig_triangle_count(const mn_rig *rig) { return mn_rig_triangle_count(rig); }

/* ---- instances ------------------------------------------------------------------------- */

/* An instance with room for the palettes of the model's skins (computed on request). */
typedef struct mnw_instance {
    mn_instance *instance;
    const mn_model *model;
    float *palettes;           /* 16 floats per joint of every skin, skins in order */
    uint32_t *palette_start;   /* first joint of skin s in palettes */
} mnw_instance;

/* A new instance of size `size` (0: 1); hidden != 0 makes it hidden (it animates, its worlds
   are kept, its vertices are not deformed: marionette/instance.h, VISIBILITY). */
MNW mnw_instance *mnw_instance_create(const mn_rig *rig, float size, int hidden)
{
    const mn_model *model = mn_rig_model(rig);
    mnw_instance *w = calloc(1, sizeof *w);
    uint32_t joints = 0;
    for (uint32_t s = 0; s < model->skin_count; s++)
        joints += model->skins[s].joint_count;
    if (w) {
        w->palettes = malloc((size_t)(joints ? joints : 1) * 16 * sizeof(float));
        w->palette_start = malloc((size_t)(model->skin_count + 1) * sizeof(uint32_t));
    }
    if (!w || !w->palettes || !w->palette_start) {
        if (w) {
            free(w->palettes);
            free(w->palette_start);
        }
        free(w);
        fail_with(MN_OUT_OF_MEMORY, "instance: out of memory");
        return NULL;
    }
    for (uint32_t s = 0, at = 0; s <= model->skin_count; s++) {
        w->palette_start[s] = at;
        if (s < model->skin_count)
            at += model->skins[s].joint_count;
    }
    w->model = model;
    memset(&last_error, 0, sizeof last_error);
    if (mn_instance_create(rig, &(mn_instance_desc){.size = size, .hidden = hidden != 0},
                           &w->instance, &last_error) != MN_OK) {
        free(w->palettes);
        free(w->palette_start);
        free(w);
        return NULL;
    }
    return w;
}

MNW void mnw_instance_free(mnw_instance *w)
{
    if (!w)
        return;
    mn_instance_free(w->instance);
    free(w->palettes);
    free(w->palette_start);
    free(w);
}

MNW int mnw_play(mnw_instance *w, uint32_t clip, float fade, float speed, float at, int once)
{
    mn_play_options options = {.once = once != 0, .fade = fade, .speed = speed, .at = at};
    memset(&last_error, 0, sizeof last_error);
    return (int)mn_mixer_play(mn_instance_mixer(w->instance), clip, &options, &last_error);
}

MNW void mnw_seek(mnw_instance *w, float t) { mn_mixer_seek(mn_instance_mixer(w->instance), t); }
MNW void mnw_set_speed(mnw_instance *w, float s) { mn_mixer_set_speed(mn_instance_mixer(w->instance), s); }
MNW void mnw_pause(mnw_instance *w) { mn_mixer_pause(mn_instance_mixer(w->instance)); }
MNW void mnw_resume(mnw_instance *w) { mn_mixer_resume(mn_instance_mixer(w->instance)); }
MNW float mnw_time(mnw_instance *w) { return mn_mixer_time(mn_instance_mixer(w->instance)); }
MNW uint32_t mnw_current(mnw_instance *w) { return mn_mixer_current(mn_instance_mixer(w->instance)); }
MNW int mnw_fading(mnw_instance *w) { return mn_mixer_fading(mn_instance_mixer(w->instance)); }
MNW int mnw_paused(mnw_instance *w) { return mn_mixer_paused(mn_instance_mixer(w->instance)); }

MNW void mnw_update(mnw_instance *w, float dt) { mn_instance_update(w->instance, dt); }

MNW const float *mnw_palette(mnw_instance *w, uint32_t s);

MNW void mnw_set_visible(mnw_instance *w, int visible) { mn_instance_set_visible(w->instance, visible != 0); }
MNW int mnw_visible(mnw_instance *w) { return mn_instance_visible(w->instance); }

/* Update n instances (an array of handles) one after another, and when palettes is not 0 compute
   each one's palette of every skin: one call per frame for a crowd. */
MNW void mnw_update_many(mnw_instance *const *ws, uint32_t n, float dt, int palettes)
{
    for (uint32_t i = 0; i < n; i++) {
        mn_instance_update(ws[i]->instance, dt);
        for (uint32_t s = 0; palettes && s < ws[i]->model->skin_count; s++)
            mnw_palette(ws[i], s);
    }
}

MNW const float *mnw_worlds(mnw_instance *w) { return mn_instance_worlds(w->instance); }
MNW const float *mnw_model_worlds(mnw_instance *w)
{
    return mn_mixer_worlds(mn_instance_mixer(w->instance));
}

/* The pose's arrays: which 0 = translations (3 a node), 1 = rotations (4), 2 = scales (3). */
MNW const float *mnw_pose(mnw_instance *w, int which)
{
    const mn_pose *pose = mn_mixer_pose(mn_instance_mixer(w->instance));
    return which == 0 ? pose->translations : which == 1 ? pose->rotations : pose->scales;
}

/* Skin s's palette in model space, world[joint] x inverseBind, computed now from the mixer's
   worlds; 16 floats a joint, NULL for a skin out of range. */
MNW const float *mnw_palette(mnw_instance *w, uint32_t s)
{
    if (s >= w->model->skin_count)
        return NULL;
    const mn_skin *skin = &w->model->skins[s];
    const float *worlds = mn_mixer_worlds(mn_instance_mixer(w->instance));
    float *out = w->palettes + (size_t)w->palette_start[s] * 16;
    for (uint32_t j = 0; j < skin->joint_count; j++)
        mn_mat4_mul(out + (size_t)j * 16, worlds + (size_t)skin->joints[j] * 16, skin->inverse_bind + (size_t)j * 16);
    return out;
}

/* Part i's posed vertices: which 0 = positions, 1 = normals, 2 = matrix; count = vertices. */
MNW const float *mnw_part(mnw_instance *w, uint32_t i, int which)
{
    const mn_posed_part *p = mn_instance_part(w->instance, i);
    if (!p)
        return NULL;
    return which == 0 ? p->positions : which == 1 ? p->normals : p->matrix;
}

MNW uint32_t mnw_part_vertex_count(mnw_instance *w, uint32_t i)
{
    const mn_posed_part *p = mn_instance_part(w->instance, i);
    return p ? p->vertex_count : 0;
}

/* Part i's triangles: writes up to cap indices (3 a triangle) to out and returns how many the
   part has (0 for points and lines); a non-indexed part gets 0, 1, 2, ...  Call with cap 0 to
   learn the count. */
MNW uint32_t mnw_rig_part_indices(const mn_rig *rig, uint32_t i, uint32_t *out, uint32_t cap)
{
    const mn_part *p = mn_rig_part(rig, i);
    if (!p || p->triangle_count == 0)
        return 0;
    const mn_model *model = mn_rig_model(rig);
    const mn_primitive *prim = &model->meshes[p->mesh].primitives[p->primitive];
    if (prim->mode != MN_MODE_TRIANGLES)
        return 0;
    uint32_t count = p->triangle_count * 3;
    if (cap < count)
        return count;
    if (prim->indices == MN_NONE) {
        for (uint32_t k = 0; k < count; k++)
            out[k] = k;
        return count;
    }
    return (uint32_t)mn_accessor_unpack_u32(&model->accessors[prim->indices], out, cap);
}

/* Part i's base colour factor (RGBA, 4 floats), white when it has no material. */
MNW void mnw_rig_part_color(const mn_rig *rig, uint32_t i, float *out)
{
    const mn_part *p = mn_rig_part(rig, i);
    const mn_model *model = mn_rig_model(rig);
    static const float white[4] = {1, 1, 1, 1};
    const float *c = p && p->material != MN_NONE ? model->materials[p->material].base_color : white;
    memcpy(out, c, 4 * sizeof(float));
}
