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
#include <stdarg.h>
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

/* ---- blend trees and state machines from a JSON description ---------------------------------- */

/*
 * JavaScript hands over a description as JSON (marionette.mjs, rig.blendTree and
 * rig.stateMachine, with clip names already turned into indices):
 *   { "nodes": [ { "kind": "clip", "clip": 0, "clock": "t", "loop": true },
 *                { "kind": "lerp", "a": 0, "b": 1, "parameter": "w" },
 *                { "kind": "1d", "parameter": "speed", "children": [..], "positions": [..],
 *                  "sync": false },
 *                { "kind": "2d", "parameter": "x", "parameterY": "y", "children": [..],
 *                  "positions": [x0, y0, x1, y1, ..], "triangles": [..], "sync": false } ],
 *     "root": 0,                                                            (blend tree)
 *     "parameters": [ { "name", "kind": "float"|"bool"|"trigger", "value" } ], (machine)
 *     "states": [ { "name", "node" } ],
 *     "transitions": [ { "from", "to", "duration", "exitTime", "priority",
 *                        "conditions": [ { "name", "op": "<"|"<="|">"|">="|"=="|"!="|"trigger",
 *                                          "value" } ] } ] }
 * Everything is read into the C descriptions (marionette/blend_tree.h, state_machine.h), whose
 * create copies it; the bind pose is the model's rest pose, bound to its nodes.
 */
typedef struct mnw_graph {
    mn_blend_tree *tree;       /* one of tree and sm */
    mn_state_machine *sm;
    mn_pose out;               /* the evaluated pose, node order */
} mnw_graph;

static int graph_fail(mn_status code, const char *path, const char *fmt, ...)
{
    memset(&last_error, 0, sizeof last_error);
    last_error.code = code;
    last_error.offset = -1;
    snprintf(last_error.path, sizeof last_error.path, "%s", path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error.message, sizeof last_error.message, fmt, ap);
    va_end(ap);
    return (int)code;
}

/* Scratch of one parse: every array handed to a desc, freed after create (which copies). */
typedef struct graph_scratch {
    void **blocks;
    size_t count, cap;
} graph_scratch;

static void *scratch_calloc(graph_scratch *s, size_t n, size_t size)
{
    if (s->count == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        void **grown = realloc(s->blocks, cap * sizeof *grown);
        if (!grown)
            return NULL;
        s->blocks = grown;
        s->cap = cap;
    }
    void *p = calloc(n ? n : 1, size);
    if (p)
        s->blocks[s->count++] = p;
    return p;
}

static void scratch_free(graph_scratch *s)
{
    for (size_t i = 0; i < s->count; i++)
        free(s->blocks[i]);
    free(s->blocks);
    s->blocks = NULL;
    s->count = s->cap = 0;
}

/* An optional string member (NULL when absent); a non-string is an error. */
static int json_name(json_t *obj, const char *key, const char *path, const char **out)
{
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return graph_fail(MN_INVALID_ARGUMENT, path, "%s.%s must be a string", path, key);
    *out = json_string_value(v);
    return 0;
}

static int json_index(json_t *v, const char *path, uint32_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > UINT32_MAX)
        return graph_fail(MN_INVALID_ARGUMENT, path, "%s must be an index (an integer >= 0)", path);
    *out = (uint32_t)json_integer_value(v);
    return 0;
}

static int json_float(json_t *v, const char *path, float *out)
{
    if (!json_is_number(v))
        return graph_fail(MN_INVALID_ARGUMENT, path, "%s must be a number", path);
    *out = (float)json_number_value(v);
    return 0;
}

/* An array member of indices or numbers: *out (scratch) and *count; absent: NULL, 0. */
static int json_array_of(json_t *obj, const char *key, const char *path, bool floats,
                         graph_scratch *s, void **out, uint32_t *count)
{
    json_t *arr = json_object_get(obj, key);
    *out = NULL;
    *count = 0;
    if (!arr || json_is_null(arr))
        return 0;
    if (!json_is_array(arr))
        return graph_fail(MN_INVALID_ARGUMENT, path, "%s.%s must be an array", path, key);
    size_t n = json_array_size(arr);
    void *data = scratch_calloc(s, n, 4);
    if (!data)
        return graph_fail(MN_OUT_OF_MEMORY, path, "%s: out of memory", path);
    for (size_t i = 0; i < n; i++) {
        char at[128];
        snprintf(at, sizeof at, "%s.%s[%zu]", path, key, i);
        int st = floats ? json_float(json_array_get(arr, i), at, (float *)data + i)
                        : json_index(json_array_get(arr, i), at, (uint32_t *)data + i);
        if (st)
            return st;
    }
    *out = data;
    *count = (uint32_t)n;
    return 0;
}

static int parse_node(const mn_rig *rig, json_t *j, const char *path, graph_scratch *s,
                      mn_blend_node *node)
{
    if (!json_is_object(j))
        return graph_fail(MN_INVALID_ARGUMENT, path, "%s must be an object", path);
    const char *kind = NULL;
    int st = json_name(j, "kind", path, &kind);
    if (st)
        return st;
    char at[128];
    if (kind && strcmp(kind, "clip") == 0) {
        node->kind = MN_BLEND_NODE_CLIP;
        snprintf(at, sizeof at, "%s.clip", path);
        uint32_t clip = 0;
        if ((st = json_index(json_object_get(j, "clip"), at, &clip)))
            return st;
        node->clip = mn_rig_clip(rig, clip);
        if (!node->clip)
            return graph_fail(MN_INDEX_RANGE, at, "%s: clip %u is out of range (the rig has %u)",
                              at, clip, mn_rig_clip_count(rig));
        node->loop = !json_is_false(json_object_get(j, "loop")); /* default: loop */
        return json_name(j, "clock", path, &node->clock);
    }
    if (kind && strcmp(kind, "lerp") == 0) {
        node->kind = MN_BLEND_NODE_LERP;
        snprintf(at, sizeof at, "%s.a", path);
        if ((st = json_index(json_object_get(j, "a"), at, &node->a)))
            return st;
        snprintf(at, sizeof at, "%s.b", path);
        if ((st = json_index(json_object_get(j, "b"), at, &node->b)))
            return st;
        return json_name(j, "parameter", path, &node->parameter);
    }
    bool one = kind && strcmp(kind, "1d") == 0, two = kind && strcmp(kind, "2d") == 0;
    if (!one && !two)
        return graph_fail(MN_INVALID_ARGUMENT, path,
                          "%s.kind must be \"clip\", \"lerp\", \"1d\" or \"2d\"", path);
    node->kind = one ? MN_BLEND_NODE_1D : MN_BLEND_NODE_2D;
    node->sync = json_is_true(json_object_get(j, "sync"));
    uint32_t positions = 0, triangles = 0;
    if ((st = json_name(j, "parameter", path, &node->parameter)) ||
        (two && (st = json_name(j, "parameterY", path, &node->parameter_y))) ||
        (st = json_array_of(j, "children", path, false, s, (void **)&node->children,
                            &node->child_count)) ||
        (st = json_array_of(j, "positions", path, true, s, (void **)&node->positions, &positions)) ||
        (two && (st = json_array_of(j, "triangles", path, false, s, (void **)&node->triangles,
                                    &triangles))))
        return st;
    if (positions != node->child_count * (two ? 2u : 1u))
        return graph_fail(MN_COUNT_MISMATCH, path, "%s: %u positions for %u children (%s)", path,
                          positions, node->child_count, two ? "two numbers a child" : "one a child");
    if (triangles % 3)
        return graph_fail(MN_COUNT_MISMATCH, path, "%s.triangles: %u indices, not triples", path,
                          triangles);
    node->triangle_count = triangles / 3;
    return 0;
}

static int parse_nodes(const mn_rig *rig, json_t *root, graph_scratch *s, mn_blend_node **nodes,
                       uint32_t *count)
{
    json_t *arr = json_object_get(root, "nodes");
    if (!json_is_array(arr))
        return graph_fail(MN_INVALID_ARGUMENT, "nodes", "nodes must be an array of nodes");
    size_t n = json_array_size(arr);
    *nodes = scratch_calloc(s, n, sizeof **nodes);
    if (!*nodes)
        return graph_fail(MN_OUT_OF_MEMORY, "nodes", "nodes: out of memory");
    for (size_t i = 0; i < n; i++) {
        char path[64];
        snprintf(path, sizeof path, "nodes[%zu]", i);
        int st = parse_node(rig, json_array_get(arr, i), path, s, &(*nodes)[i]);
        if (st)
            return st;
    }
    *count = (uint32_t)n;
    return 0;
}

/* A state by index or name (names resolved against the states parsed so far: all of them). */
static int state_ref(json_t *v, const mn_sm_state *states, uint32_t count, const char *path,
                     uint32_t *out)
{
    if (json_is_string(v)) {
        for (uint32_t i = 0; i < count; i++)
            if (states[i].name && strcmp(states[i].name, json_string_value(v)) == 0) {
                *out = i;
                return 0;
            }
        return graph_fail(MN_INVALID_VALUE, path, "%s: no state is named \"%.100s\"", path,
                          json_string_value(v));
    }
    return json_index(v, path, out);
}

static int parse_condition(json_t *j, const char *path, mn_sm_condition *c)
{
    static const struct { const char *op; mn_sm_condition_op value; } ops[] = {
        {"<", MN_SM_LESS}, {"<=", MN_SM_LESS_EQUAL}, {">", MN_SM_GREATER},
        {">=", MN_SM_GREATER_EQUAL}, {"==", MN_SM_EQUAL}, {"!=", MN_SM_NOT_EQUAL},
        {"trigger", MN_SM_TRIGGER}};
    const char *op = NULL;
    int st;
    if (!json_is_object(j))
        return graph_fail(MN_INVALID_ARGUMENT, path, "%s must be an object", path);
    if ((st = json_name(j, "name", path, &c->name)) || (st = json_name(j, "op", path, &op)))
        return st;
    for (size_t k = 0; op && k < sizeof ops / sizeof ops[0]; k++)
        if (strcmp(op, ops[k].op) == 0)
            c->op = ops[k].value;
    if (c->op == MN_SM_CONDITION_INVALID)
        return graph_fail(MN_INVALID_ARGUMENT, path,
                          "%s.op must be one of < <= > >= == != trigger", path);
    json_t *v = json_object_get(j, "value");
    return v ? json_float(v, path, &c->value) : 0;
}

static int parse_machine(json_t *root, graph_scratch *s, mn_state_machine_desc *d)
{
    json_t *params = json_object_get(root, "parameters");
    json_t *states = json_object_get(root, "states");
    json_t *trans = json_object_get(root, "transitions");
    size_t np = json_array_size(params), ns = json_array_size(states), nt = json_array_size(trans);
    mn_sm_parameter *p = scratch_calloc(s, np, sizeof *p);
    mn_sm_state *st_ = scratch_calloc(s, ns, sizeof *st_);
    mn_sm_transition *t = scratch_calloc(s, nt, sizeof *t);
    if (!p || !st_ || !t)
        return graph_fail(MN_OUT_OF_MEMORY, "", "state machine: out of memory");
    char path[96];
    int st;
    for (size_t i = 0; i < np; i++) {
        json_t *j = json_array_get(params, i);
        snprintf(path, sizeof path, "parameters[%zu]", i);
        const char *kind = NULL;
        if ((st = json_name(j, "name", path, &p[i].name)) || (st = json_name(j, "kind", path, &kind)))
            return st;
        p[i].kind = !kind || strcmp(kind, "float") == 0 ? MN_SM_PARAM_FLOAT
                    : strcmp(kind, "bool") == 0        ? MN_SM_PARAM_BOOL
                    : strcmp(kind, "trigger") == 0     ? MN_SM_PARAM_TRIGGER
                                                       : MN_SM_PARAM_INVALID;
        if (p[i].kind == MN_SM_PARAM_INVALID)
            return graph_fail(MN_INVALID_ARGUMENT, path,
                              "%s.kind must be \"float\", \"bool\" or \"trigger\"", path);
        json_t *v = json_object_get(j, "value");
        if (json_is_boolean(v))
            p[i].value = json_is_true(v) ? 1.0f : 0.0f;
        else if (v && (st = json_float(v, path, &p[i].value)))
            return st;
    }
    for (size_t i = 0; i < ns; i++) {
        json_t *j = json_array_get(states, i);
        snprintf(path, sizeof path, "states[%zu]", i);
        if ((st = json_name(j, "name", path, &st_[i].name)))
            return st;
        snprintf(path, sizeof path, "states[%zu].node", i);
        if ((st = json_index(json_object_get(j, "node"), path, &st_[i].node)))
            return st;
    }
    for (size_t i = 0; i < nt; i++) {
        json_t *j = json_array_get(trans, i), *v;
        snprintf(path, sizeof path, "transitions[%zu].from", i);
        if ((st = state_ref(json_object_get(j, "from"), st_, (uint32_t)ns, path, &t[i].from)))
            return st;
        snprintf(path, sizeof path, "transitions[%zu].to", i);
        if ((st = state_ref(json_object_get(j, "to"), st_, (uint32_t)ns, path, &t[i].to)))
            return st;
        snprintf(path, sizeof path, "transitions[%zu]", i);
        if ((v = json_object_get(j, "duration")) && (st = json_float(v, path, &t[i].duration)))
            return st;
        if ((v = json_object_get(j, "exitTime")) && !json_is_null(v)) {
            t[i].has_exit_time = true;
            if ((st = json_float(v, path, &t[i].exit_time)))
                return st;
        }
        if ((v = json_object_get(j, "priority")) && json_is_integer(v))
            t[i].priority = (int32_t)json_integer_value(v);
        json_t *conds = json_object_get(j, "conditions");
        size_t nc = json_array_size(conds);
        mn_sm_condition *c = scratch_calloc(s, nc, sizeof *c);
        if (!c)
            return graph_fail(MN_OUT_OF_MEMORY, path, "state machine: out of memory");
        for (size_t k = 0; k < nc; k++) {
            char at[128];
            snprintf(at, sizeof at, "transitions[%zu].conditions[%zu]", i, k);
            if ((st = parse_condition(json_array_get(conds, k), at, &c[k])))
                return st;
        }
        t[i].conditions = c;
        t[i].condition_count = (uint32_t)nc;
    }
    d->parameters = p;
    d->parameter_count = (uint32_t)np;
    d->states = st_;
    d->state_count = (uint32_t)ns;
    d->transitions = t;
    d->transition_count = (uint32_t)nt;
    return 0;
}

/* The rest pose of the model's nodes, bound to them: every leaf's starting pose. */
static mn_status rest_pose(const mn_model *model, mn_pose *pose)
{
    mn_status st = mn_pose_create(pose, model->node_count, NULL, &last_error);
    for (uint32_t i = 0; st == MN_OK && i < model->node_count; i++) {
        const mn_node *n = &model->nodes[i];
        st = mn_pose_set_joint(pose, i, n->translation, n->rotation, n->scale, &last_error);
    }
    pose->space = mn_space_of_nodes(model);
    return st;
}

MNW void mnw_graph_free(mnw_graph *g)
{
    if (!g)
        return;
    mn_blend_tree_free(g->tree);
    mn_state_machine_free(g->sm);
    mn_pose_free(&g->out);
    free(g);
}

/* A blend tree (machine == 0) or state machine over the rig's clips; NULL on error. */
MNW mnw_graph *mnw_graph_create(const mn_rig *rig, const char *text, int machine)
{
    memset(&last_error, 0, sizeof last_error);
    const mn_model *model = mn_rig_model(rig);
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    if (!json_is_object(root)) {
        json_decref(root);
        graph_fail(root ? MN_JSON_TYPE : MN_JSON_SYNTAX, "", "graph description: %s", root ? "not an object" : jerr.text);
        return NULL;
    }
    mnw_graph *g = calloc(1, sizeof *g);
    graph_scratch *s = calloc(1, sizeof *s);
    mn_pose bind = {0};
    int st = !g || !s ? graph_fail(MN_OUT_OF_MEMORY, "", "graph: out of memory") : 0;
    mn_blend_node *nodes = NULL;
    uint32_t node_count = 0;
    if (!st)
        st = rest_pose(model, &bind);
    if (!st)
        st = rest_pose(model, &g->out);
    if (!st)
        st = parse_nodes(rig, root, s, &nodes, &node_count);
    if (!st && machine) {
        mn_state_machine_desc d = {.nodes = nodes, .node_count = node_count, .bind = &bind};
        st = parse_machine(root, s, &d);
        if (!st) {
            memset(&last_error, 0, sizeof last_error);
            st = mn_state_machine_create(&d, &g->sm, &last_error);
        }
    } else if (!st) {
        uint32_t root_node = 0;
        json_t *r = json_object_get(root, "root");
        if (r)
            st = json_index(r, "root", &root_node);
        if (!st) {
            mn_blend_tree_desc d = {.nodes = nodes, .node_count = node_count, .root = root_node,
                                    .bind = &bind};
            memset(&last_error, 0, sizeof last_error);
            st = mn_blend_tree_create(&d, &g->tree, &last_error);
        }
    }
    mn_pose_free(&bind);
    if (s)
        scratch_free(s);
    free(s);
    json_decref(root);
    if (st) {
        mnw_graph_free(g);
        return NULL;
    }
    return g;
}

MNW int mnw_graph_set(mnw_graph *g, const char *name, float value)
{
    memset(&last_error, 0, sizeof last_error);
    return (int)(g->sm ? mn_state_machine_set(g->sm, name, value, &last_error)
                       : mn_blend_tree_set(g->tree, name, value, &last_error));
}

MNW int mnw_graph_get(mnw_graph *g, const char *name, float *out)
{
    memset(&last_error, 0, sizeof last_error);
    return (int)(g->sm ? mn_state_machine_get(g->sm, name, out, &last_error)
                       : mn_blend_tree_get(g->tree, name, out, &last_error));
}

MNW int mnw_graph_trigger(mnw_graph *g, const char *name)
{
    memset(&last_error, 0, sizeof last_error);
    if (!g->sm)
        return fail_with(MN_INVALID_ARGUMENT, "trigger: a blend tree has no triggers");
    return (int)mn_state_machine_set_trigger(g->sm, name, &last_error);
}

/* A machine advances by dt; a tree's clock `name` does (tree.advance). */
MNW int mnw_graph_update(mnw_graph *g, float dt, const char *clock)
{
    memset(&last_error, 0, sizeof last_error);
    if (g->sm)
        return (int)mn_state_machine_update(g->sm, dt, NULL, 0, NULL, &last_error);
    return (int)mn_blend_tree_advance_clock(g->tree, clock, dt, &last_error);
}

MNW const char *mnw_graph_state(mnw_graph *g)
{
    return g->sm ? mn_state_machine_state_name(g->sm, mn_state_machine_current(g->sm)) : NULL;
}

MNW int mnw_graph_fading(mnw_graph *g) { return g->sm && mn_state_machine_fading(g->sm); }

/* Evaluate the graph (a tree at frame time `time`) and show its pose on the instance now. */
MNW int mnw_drive(mnw_instance *w, mnw_graph *g, float time)
{
    memset(&last_error, 0, sizeof last_error);
    mn_status st = g->sm ? mn_state_machine_evaluate(g->sm, &g->out, &last_error)
                         : mn_blend_tree_evaluate(g->tree, time, &g->out, &last_error);
    if (st == MN_OK)
        st = mn_mixer_set_pose(mn_instance_mixer(w->instance), &g->out, &last_error);
    if (st == MN_OK)
        mn_instance_update(w->instance, 0.0f);
    return (int)st;
}
