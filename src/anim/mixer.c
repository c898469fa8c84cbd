/*
 * The clip mixer over a model's whole node
 * hierarchy.
 *
 * Two layers play: the current clip and, during a crossfade, the clip it
 * fades from, which keeps playing (its own time, speed, loop or clamp) while
 * its weight falls.  A fade that interrupts a fade, or starts from a pose
 * no single clip explains (before the first play, after a seek or play not
 * yet shown), fades from a frozen snapshot of the pose on screen instead —
 * the state machine's rule for interruption (the spec's §10).
 *
 * Everything is laid out at creation, in one arena: the rest pose and the
 * pose being built, the fade's source pose, locals and worlds, morph
 * weights, a clip cursor per layer, and two index lists that keep the
 * frame small:
 *   - `animated`: nodes some clip drives (translation, rotation or scale);
 *     only these are reset, blended and re-baked each frame;
 *   - `dynamic`: the animated nodes and their descendants, parents first;
 *     only their worlds can change, so only they are recomposed.
 * Every other node keeps the local and world computed at creation.
 *
 * An instance's mixer defers its matrices (mni_mixer_defer_matrices,
 * anim/anim.h): update samples only, and the instance composes the worlds it
 * needs in one pass of the skeleton's kernel (mni_mixer_worlds_under),
 * placed or not; the getters build locals and model worlds on request.
 */
#include <marionette/math.h>
#include <marionette/mixer.h>

#include "anim/anim.h"
#include "anim/clip_internal.h"
#include "anim/pointer_state_internal.h"
#include "anim/space_internal.h"
#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A clip playing: the current one, or the one a fade is leaving. */
typedef struct layer {
    uint32_t clip;               /* MN_NONE: none */
    double time;                 /* double so long runs of small dt do not drift */
    float speed;
    bool loop, done;
    void *cursor_storage;        /* sized for the clip with the most timelines */
    mn_clip_cursor cursor;
} layer;

struct mn_mixer {
    mn_arena arena;              /* owns everything below except owned clips */
    mn_allocator allocator;
    const mn_model *model;

    uint32_t clip_count;
    const mn_clip **clips;
    bool owns_clips;             /* built by create (freed by free) rather than borrowed */

    uint32_t node_count;
    int32_t *parents;            /* node order, -1 for roots */
    uint32_t *animated;          /* nodes a clip drives, ascending */
    uint32_t animated_count;
    uint32_t *dynamic;           /* animated nodes and their descendants, parents first */
    uint32_t dynamic_count;
    uint32_t *order;             /* every node, parents first */

    bool *covers;                /* per clip: it drives every path some clip animates */

    /* Deferred matrices (an instance's mixer, mni_mixer_defer_matrices). */
    bool deferred;
    bool locals_stale, worlds_stale;
    int16_t *kernel_parents;     /* parents in kernel order (node order when direct); NULL: scalar */
    bool direct;                 /* node order is parents-first: the kernel reads the pose itself */
    mn_pose work;                /* otherwise the pose permuted into `order` ... */
    float *work_worlds;          /* ... and the kernel's worlds in that order */

    mn_pose rest;                /* the nodes' TRS as loaded */
    mn_pose pose;                /* the pose of the last update */
    mn_pose from;                /* the fade's source: src sampled, or the frozen snapshot */
    float *locals, *worlds;      /* 16 floats a node */

    uint32_t *weight_offset;     /* per node, into the weights arrays */
    uint32_t *weight_count;      /* per node, 0 when the node has no morphable mesh */
    uint32_t *weighted;          /* nodes with weight_count > 0 */
    uint32_t weighted_count;
    uint32_t weight_total;
    float *weights, *weights_rest, *weights_from;
    mni_pointer_state pointers;  /* KHR_animation_pointer: the instance's animated properties */

    /* playback */
    layer cur;                   /* cur.clip is MN_NONE before the first play */
    layer src;                   /* while fading: the clip faded from, MN_NONE for a snapshot */
    bool paused;
    bool dirty;                  /* play or seek since the last update */
    bool fading;
    bool posed;                  /* the pose is the caller's (mn_mixer_set_pose), no clip plays */
    bool all_nodes;              /* the next bake (and compose) covers every node, not just the
                                    animated ones: a caller's pose may move any node */
    double fade_elapsed;
    float fade_duration;
};

/* ---- creation ------------------------------------------------------------- */

/*
 * Parent-first order of every node: depth by walking up (memoised), then a
 * counting sort by depth.  A walk longer than node_count steps is a cycle,
 * which only a hand-built model can have.
 */
static mn_status parent_first_order(const mn_model *model, mn_arena *arena, int32_t *parents,
                                    uint32_t *order, mn_error *err)
{
    uint32_t n = model->node_count;
    uint32_t *depth = mni_arena_calloc(arena, n ? n : 1, sizeof *depth, 4);
    uint32_t *start = mni_arena_calloc(arena, (size_t)n + 1, sizeof *start, 4);
    if (!depth || !start)
        return mni_oom(err, "mixer");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = model->nodes[i].parent;
        if (p != MN_NONE && p >= n)
            return mni_error_set(err, MN_INDEX_RANGE, "nodes", -1,
                                 "nodes[%u]: parent %u is out of range (%u nodes)", i, p, n);
        parents[i] = p == MN_NONE ? -1 : (int32_t)p;
        depth[i] = UINT32_MAX; /* unknown */
    }
    for (uint32_t i = 0; i < n; i++) {
        /* Walk up to a root or a node of known depth, counting steps. */
        uint32_t steps = 0, at = i;
        while (depth[at] == UINT32_MAX && parents[at] >= 0) {
            at = (uint32_t)parents[at];
            if (++steps > n)
                return mni_error_set(err, MN_HIERARCHY, "nodes", -1,
                                     "nodes[%u]: its parent chain loops", i);
        }
        uint32_t base = depth[at] != UINT32_MAX ? depth[at] : 0;
        if (depth[at] == UINT32_MAX)
            depth[at] = 0;
        /* Walk again, writing depths from the bottom: node i is `steps` below `at`. */
        uint32_t d = base + steps;
        for (uint32_t k = i; k != at; k = (uint32_t)parents[k])
            depth[k] = d--;
    }
    for (uint32_t i = 0; i < n; i++)
        start[depth[i] + 1]++;
    for (uint32_t d = 0; d < n; d++)
        start[d + 1] += start[d];
    for (uint32_t i = 0; i < n; i++)
        order[start[depth[i]]++] = i;
    return MN_OK;
}

/* Does any clip drive node's translation, rotation or scale? */
static void mark_animated(const mn_mixer *m, uint8_t *animated)
{
    for (uint32_t c = 0; c < m->clip_count; c++) {
        uint32_t tracks = mn_clip_track_count(m->clips[c]);
        for (uint32_t k = 0; k < tracks; k++) {
            const mn_track *tr = mn_clip_track(m->clips[c], k);
            /* A compressed clip's tracks hold no keys, and each drives what it names. */
            bool keyed = tr->key_count > 0 || m->clips[c]->compressed;
            if (tr->path != MN_PATH_WEIGHTS && tr->target < m->node_count && keyed)
                animated[tr->target] = 1;
        }
    }
}

/* The morph target count of a mesh: its weights, or its widest primitive's targets. */
static uint32_t mesh_target_count(const mn_mesh *mesh)
{
    uint32_t count = mesh->weight_count;
    for (uint32_t p = 0; p < mesh->primitive_count; p++)
        if (mesh->primitives[p].target_count > count)
            count = mesh->primitives[p].target_count;
    return count;
}

/* Weight slots per node, and their rest values: the node's, else the mesh's, else zeros. */
static mn_status lay_out_weights(mn_mixer *m, mn_arena *arena, mn_error *err)
{
    const mn_model *model = m->model;
    uint32_t n = m->node_count;
    m->weight_offset = mni_arena_calloc(arena, n ? n : 1, sizeof(uint32_t), 4);
    m->weight_count = mni_arena_calloc(arena, n ? n : 1, sizeof(uint32_t), 4);
    m->weighted = mni_arena_calloc(arena, n ? n : 1, sizeof(uint32_t), 4);
    if (!m->weight_offset || !m->weight_count || !m->weighted)
        return mni_oom(err, "mixer");
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t mesh = model->nodes[i].mesh;
        uint32_t count = mesh < model->mesh_count ? mesh_target_count(&model->meshes[mesh]) : 0;
        m->weight_offset[i] = (uint32_t)total;
        m->weight_count[i] = count;
        if (count)
            m->weighted[m->weighted_count++] = i;
        total += count;
        if (total > UINT32_MAX / 4)
            return mni_fail(err, MN_OVERFLOW, "mixer: too many morph weights");
    }
    m->weight_total = (uint32_t)total;
    size_t slots = total ? total : 1;
    m->weights = mni_arena_calloc(arena, slots, sizeof(float), 16);
    m->weights_rest = mni_arena_calloc(arena, slots, sizeof(float), 16);
    m->weights_from = mni_arena_calloc(arena, slots, sizeof(float), 16);
    if (!m->weights || !m->weights_rest || !m->weights_from)
        return mni_oom(err, "mixer");
    for (uint32_t i = 0; i < n; i++) {
        const mn_node *node = &model->nodes[i];
        float *w = m->weights_rest + m->weight_offset[i];
        uint32_t count = m->weight_count[i];
        if (!count)
            continue;
        const float *src = node->weights;
        uint32_t have = node->weight_count;
        if (!src || have == 0) {
            src = model->meshes[node->mesh].weights;
            have = model->meshes[node->mesh].weight_count;
        }
        for (uint32_t k = 0; k < count; k++)
            w[k] = src && k < have ? src[k] : 0.0f;
    }
    memcpy(m->weights, m->weights_rest, slots * sizeof(float));
    return MN_OK;
}

static mn_status alloc_pose(mn_arena *arena, mn_pose *pose, uint32_t joints, mn_error *err)
{
    size_t size = mn_pose_storage_size(joints);
    if (size == SIZE_MAX)
        return mni_fail(err, MN_OVERFLOW, "mixer: %u nodes overflow a pose", joints);
    void *storage = mni_arena_alloc(arena, size ? size : 16, 64);
    if (!storage)
        return mni_oom(err, "mixer");
    mn_pose_init(pose, joints, storage);
    return MN_OK;
}

/* world = parent's world × local, or the local for a root. */
static inline void compose_world(mn_mixer *m, uint32_t node)
{
    float *world = m->worlds + 16 * (size_t)node;
    const float *local = m->locals + 16 * (size_t)node;
    int32_t p = m->parents[node];
    if (p < 0)
        memcpy(world, local, 16 * sizeof(float));
    else
        mn_mat4_mul(world, m->worlds + 16 * (size_t)p, local);
}

/*
 * Per clip, whether it drives translation, rotation and scale of every
 * animated node.  Such a clip (the usual full-body clip) overwrites the whole
 * animated pose at every sample, so the reset to rest before it is skipped;
 * any other clip resets the animated nodes first, as always.  One flag a
 * clip, so a mixer of many clips over a big hierarchy stays small.
 */
static mn_status lay_out_covers(mn_mixer *m, mn_arena *arena, const uint8_t *animated,
                                mn_error *err)
{
    uint32_t n = m->node_count;
    uint8_t *drives = mni_arena_calloc(arena, n ? n : 1, 1, 1);
    m->covers = mni_arena_calloc(arena, m->clip_count ? m->clip_count : 1, sizeof(bool), 1);
    if (!drives || !m->covers)
        return mni_oom(err, "mixer");
    for (uint32_t c = 0; c < m->clip_count; c++) {
        memset(drives, 0, n);
        uint32_t tracks = mn_clip_track_count(m->clips[c]);
        for (uint32_t k = 0; k < tracks; k++) {
            const mn_track *tr = mn_clip_track(m->clips[c], k);
            if (tr->path != MN_PATH_WEIGHTS && tr->target < n && tr->key_count > 0)
                drives[tr->target] |= (uint8_t)(tr->path == MN_PATH_TRANSLATION ? 1
                                                : tr->path == MN_PATH_ROTATION  ? 2 : 4);
        }
        bool covers = true;
        for (uint32_t i = 0; i < n && covers; i++)
            covers = !animated[i] || drives[i] == 7;
        m->covers[c] = covers;
    }
    return MN_OK;
}

/* Everything that depends on the model and the clips, not on playback. */
static mn_status lay_out(mn_mixer *m, mn_arena *arena, mn_error *err)
{
    const mn_model *model = m->model;
    uint32_t n = m->node_count;
    size_t slots = n ? n : 1;
    m->parents = mni_arena_calloc(arena, slots, sizeof(int32_t), 4);
    uint32_t *order = m->order = mni_arena_calloc(arena, slots, sizeof(uint32_t), 4);
    uint8_t *animated = mni_arena_calloc(arena, slots, 1, 1);
    uint8_t *dynamic = mni_arena_calloc(arena, slots, 1, 1);
    m->animated = mni_arena_calloc(arena, slots, sizeof(uint32_t), 4);
    m->dynamic = mni_arena_calloc(arena, slots, sizeof(uint32_t), 4);
    m->locals = mni_arena_calloc(arena, slots * 16, sizeof(float), 16);
    m->worlds = mni_arena_calloc(arena, slots * 16, sizeof(float), 16);
    if (!m->parents || !order || !animated || !dynamic || !m->animated || !m->dynamic ||
        !m->locals || !m->worlds)
        return mni_oom(err, "mixer");

    mn_status st = parent_first_order(model, arena, m->parents, order, err);
    if (st != MN_OK)
        return st;
    if ((st = alloc_pose(arena, &m->rest, n, err)) != MN_OK ||
        (st = alloc_pose(arena, &m->pose, n, err)) != MN_OK ||
        (st = alloc_pose(arena, &m->from, n, err)) != MN_OK)
        return st;
    /* Every pose of the mixer holds the model's nodes: what its clips must index. */
    mn_space nodes = mn_space_of_nodes(model);
    m->rest.space = m->pose.space = m->from.space = nodes;
    for (uint32_t c = 0; c < m->clip_count; c++) {
        char what[80];
        snprintf(what, sizeof what, "clips[%u] \"%.40s\"", c, mn_clip_name(m->clips[c]));
        if ((st = mni_space_check(mn_clip_space(m->clips[c]), what, &m->pose, err)) != MN_OK)
            return st;
    }
    for (uint32_t i = 0; i < n; i++) {
        const mn_node *node = &model->nodes[i];
        if ((st = mn_pose_set_joint(&m->rest, i, node->translation, node->rotation, node->scale, err)) != MN_OK)
            return st;
        mn_mat4_compose(m->locals + 16 * (size_t)i, node->translation, node->rotation, node->scale);
    }
    mn_pose_copy(&m->pose, &m->rest);
    mn_pose_copy(&m->from, &m->rest);

    mark_animated(m, animated);
    for (uint32_t i = 0; i < n; i++)
        if (animated[i])
            m->animated[m->animated_count++] = i;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = order[k];
        compose_world(m, i); /* the rest worlds of every node */
        int32_t p = m->parents[i];
        dynamic[i] = animated[i] || (p >= 0 && dynamic[p]);
        if (dynamic[i])
            m->dynamic[m->dynamic_count++] = i;
    }

    if ((st = lay_out_weights(m, arena, err)) != MN_OK ||
        (st = lay_out_covers(m, arena, animated, err)) != MN_OK)
        return st;

    size_t cursor_size = 0;
    for (uint32_t c = 0; c < m->clip_count; c++) {
        size_t s = mn_clip_cursor_storage_size(m->clips[c]);
        if (s > cursor_size)
            cursor_size = s;
    }
    m->cur.cursor_storage = mni_arena_alloc(arena, cursor_size ? cursor_size : 4, 64);
    m->src.cursor_storage = mni_arena_alloc(arena, cursor_size ? cursor_size : 4, 64);
    if (!m->cur.cursor_storage || !m->src.cursor_storage)
        return mni_oom(err, "mixer");
    mn_clip_cursor_init(&m->cur.cursor, NULL, m->cur.cursor_storage);
    mn_clip_cursor_init(&m->src.cursor, NULL, m->src.cursor_storage);
    return mni_pointer_state_init(&m->pointers, arena, model, m->clips, m->clip_count, err);
}

/* The clip list: borrowed from the options, or one built per animation. */
static mn_status gather_clips(mn_mixer *m, mn_arena *arena, const mn_mixer_options *options,
                              mn_error *err)
{
    if (options && options->clips) {
        m->clip_count = options->clip_count;
        m->clips = mni_arena_calloc(arena, m->clip_count ? m->clip_count : 1, sizeof *m->clips,
                                    sizeof(void *));
        if (!m->clips)
            return mni_oom(err, "mixer");
        for (uint32_t c = 0; c < m->clip_count; c++) {
            if (!options->clips[c])
                return mni_fail(err, MN_INVALID_ARGUMENT, "mixer options: clips[%u] is NULL", c);
            m->clips[c] = options->clips[c];
        }
        return MN_OK;
    }
    const mn_model *model = m->model;
    m->owns_clips = true;
    m->clips = mni_arena_calloc(arena, model->animation_count ? model->animation_count : 1,
                                sizeof *m->clips, sizeof(void *));
    if (!m->clips)
        return mni_oom(err, "mixer");
    mn_clip_options clip_options = {.allocator = m->allocator};
    for (uint32_t a = 0; a < model->animation_count; a++) {
        mn_clip *clip = NULL;
        mn_status st = mn_clip_from_gltf(model, a, &clip_options, &clip, err);
        if (st != MN_OK)
            return st;
        m->clips[m->clip_count++] = clip; /* counted as built, so a failure frees it */
    }
    return MN_OK;
}

static void free_owned_clips(mn_mixer *m)
{
    if (!m->owns_clips)
        return;
    for (uint32_t c = 0; c < m->clip_count; c++)
        mn_clip_free((mn_clip *)m->clips[c]);
    m->clip_count = 0;
}

mn_status mn_mixer_create(const mn_model *model, const mn_mixer_options *options, mn_mixer **out,
                          mn_error *err)
{
    mni_error_clear(err);
    if (out)
        *out = NULL;
    if (!model || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_mixer_create: model and out must not be NULL");
    if (model->node_count && !model->nodes)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_mixer_create: model has no nodes array");

    mn_allocator allocator = options ? options->allocator : (mn_allocator){0};
    mn_arena arena;
    mni_arena_init(&arena, &allocator);
    mn_mixer *m = mni_arena_calloc(&arena, 1, sizeof *m, 64); /* its own cache lines: crowds */
    if (!m) {
        mni_arena_release(&arena);
        return mni_oom(err, "mixer");
    }
    m->allocator = allocator;
    m->model = model;
    m->node_count = model->node_count;
    m->cur = (layer){.clip = MN_NONE, .speed = 1.0f, .loop = true};
    m->src = (layer){.clip = MN_NONE, .speed = 1.0f, .loop = true};

    mn_status st = gather_clips(m, &arena, options, err);
    if (st == MN_OK)
        st = lay_out(m, &arena, err);
    if (st != MN_OK) {
        free_owned_clips(m);
        mni_arena_release(&arena);
        return st;
    }
    m->arena = arena; /* the arena's blocks now belong to the mixer it holds */
    *out = m;
    return MN_OK;
}

void mn_mixer_free(mn_mixer *mixer)
{
    if (!mixer)
        return;
    free_owned_clips(mixer);
    mn_arena arena = mixer->arena; /* copy first: the mixer lives inside it */
    mni_arena_release(&arena);
}

/* ---- clips ------------------------------------------------------------------ */

uint32_t mn_mixer_clip_count(const mn_mixer *mixer)
{
    return mixer ? mixer->clip_count : 0;
}

const mn_clip *mn_mixer_clip(const mn_mixer *mixer, uint32_t index)
{
    return mixer && index < mixer->clip_count ? mixer->clips[index] : NULL;
}

uint32_t mn_mixer_find_clip(const mn_mixer *mixer, const char *name)
{
    if (!mixer || !name)
        return MN_NONE;
    for (uint32_t c = 0; c < mixer->clip_count; c++)
        if (strcmp(mn_clip_name(mixer->clips[c]), name) == 0)
            return c;
    return MN_NONE;
}

/* ---- playing ------------------------------------------------------------------ */

static double layer_duration(const mn_mixer *m, const layer *l)
{
    return l->clip == MN_NONE ? 0.0 : (double)mn_clip_duration(m->clips[l->clip]);
}

/* t placed into the clip: wrapped into [0, d) when looping, clamped to [0, d] otherwise. */
static double place_time(double t, double d, bool loop)
{
    if (!(d > 0.0))
        return 0.0;
    if (loop) {
        t = fmod(t, d);
        if (t < 0.0)
            t += d;
        return t < d ? t : 0.0; /* t + d can round up to d */
    }
    return t < 0.0 ? 0.0 : t > d ? d : t;
}

/*
 * Where a fade starts.  When the screen shows the current clip alone, as of
 * its current time, that clip becomes the live source and plays on; the
 * current layer's cursor goes with it.  Otherwise (mid-fade, nothing played
 * yet, a play or seek not yet shown) the source is what is on screen, frozen.
 */
static void start_fade(mn_mixer *m, float seconds)
{
    bool live = !m->fading && !m->dirty && m->cur.clip != MN_NONE;
    if (live) {
        void *spare = m->src.cursor_storage;
        m->src = m->cur;
        m->cur.cursor_storage = spare;
    } else {
        mn_pose_copy(&m->from, &m->pose);
        memcpy(m->weights_from, m->weights, (size_t)m->weight_total * sizeof(float));
        if (m->pointers.prop_count)
            memcpy(m->pointers.from, m->pointers.values, m->pointers.floats * sizeof(float));
        m->src.clip = MN_NONE;
    }
    m->fading = true;
    m->fade_elapsed = 0.0;
    m->fade_duration = seconds;
}

/*
 * A clip takes over from a caller's pose: nodes no clip animates go back to
 * rest (the fade blends only the animated ones, from the snapshot), and the
 * next bake and compose cover every node once, as the caller's pose may have
 * moved any.
 */
static void leave_caller_pose(mn_mixer *m)
{
    mn_pose_copy(&m->pose, &m->rest);
    m->posed = false;
    m->all_nodes = true;
}

mn_status mn_mixer_play(mn_mixer *mixer, uint32_t index, const mn_play_options *options,
                        mn_error *err)
{
    mni_error_clear(err);
    if (!mixer)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_mixer_play: mixer is NULL");
    mn_play_options o = options ? *options : (mn_play_options){0};
    if (!(o.fade >= 0.0f) || !isfinite(o.fade))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_mixer_play: fade %g must be a finite number >= 0", (double)o.fade);
    if (!isfinite(o.speed) || !isfinite(o.at))
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_mixer_play: speed and at must be finite");
    if (index >= mixer->clip_count)
        return mni_fail(err, MN_INDEX_RANGE,
                        "mn_mixer_play: clip %u is out of range (the mixer has %u)", index,
                        mixer->clip_count);

    if (o.fade > 0.0f) {
        start_fade(mixer, o.fade); /* from a caller's pose: cur.clip is MN_NONE, a snapshot */
    } else {
        mixer->fading = false;
        mixer->src.clip = MN_NONE;
    }
    if (mixer->posed)
        leave_caller_pose(mixer);
    layer *cur = &mixer->cur;
    cur->clip = index;
    cur->loop = !o.once;
    cur->speed = o.speed == 0.0f ? 1.0f : o.speed;
    cur->time = place_time(o.at, layer_duration(mixer, cur), cur->loop);
    cur->done = false;
    mn_clip_cursor_init(&cur->cursor, mixer->clips[index], cur->cursor_storage);
    mixer->paused = false;
    mixer->dirty = true;
    return MN_OK;
}

mn_status mn_mixer_play_named(mn_mixer *mixer, const char *name, const mn_play_options *options,
                              mn_error *err)
{
    mni_error_clear(err);
    if (!mixer || !name)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_mixer_play_named: mixer and name must not be NULL");
    uint32_t index = mn_mixer_find_clip(mixer, name);
    if (index == MN_NONE)
        return mni_fail(err, MN_INVALID_VALUE,
                        "no clip is named \"%.180s\" (the mixer has %u clips)", name,
                        mixer->clip_count);
    return mn_mixer_play(mixer, index, options, err);
}

void mn_mixer_seek(mn_mixer *mixer, float t)
{
    if (!mixer || mixer->cur.clip == MN_NONE || !isfinite(t))
        return;
    mixer->cur.time = place_time(t, layer_duration(mixer, &mixer->cur), mixer->cur.loop);
    mixer->cur.done = false; /* a one-shot sought anywhere plays on from there */
    mixer->dirty = true;
}

void mn_mixer_pause(mn_mixer *mixer)
{
    if (mixer)
        mixer->paused = true;
}

void mn_mixer_resume(mn_mixer *mixer)
{
    if (mixer)
        mixer->paused = false;
}

void mn_mixer_set_speed(mn_mixer *mixer, float speed)
{
    if (mixer && isfinite(speed))
        mixer->cur.speed = speed;
}

/* ---- state -------------------------------------------------------------------- */

uint32_t mn_mixer_current(const mn_mixer *mixer)
{
    return mixer ? mixer->cur.clip : MN_NONE;
}

float mn_mixer_time(const mn_mixer *mixer)
{
    return mixer ? (float)mixer->cur.time : 0.0f;
}

float mn_mixer_speed(const mn_mixer *mixer)
{
    return mixer ? mixer->cur.speed : 0.0f;
}

uint32_t mn_mixer_source(const mn_mixer *mixer)
{
    return mixer && mixer->fading ? mixer->src.clip : MN_NONE;
}

float mn_mixer_source_time(const mn_mixer *mixer)
{
    return mixer && mixer->fading && mixer->src.clip != MN_NONE ? (float)mixer->src.time : 0.0f;
}

bool mn_mixer_playing(const mn_mixer *mixer)
{
    return mixer && mixer->cur.clip != MN_NONE && !mixer->paused && !mixer->cur.done;
}

bool mn_mixer_paused(const mn_mixer *mixer)
{
    return mixer && mixer->paused;
}

bool mn_mixer_done(const mn_mixer *mixer)
{
    return mixer && mixer->cur.done;
}

bool mn_mixer_fading(const mn_mixer *mixer)
{
    return mixer && mixer->fading;
}

/* ---- the frame ------------------------------------------------------------------ */

/* A layer's time by dt × speed: wrapped when looping, else clamped at an end, which sets done. */
static void advance_layer(const mn_mixer *m, layer *l, float dt)
{
    double d = layer_duration(m, l);
    double t = l->time + (double)dt * (double)l->speed;
    if (l->loop) {
        l->time = place_time(t, d, true);
    } else if (l->speed >= 0.0f && t >= d) {
        l->time = d;
        l->done = true;
    } else if (l->speed < 0.0f && t <= 0.0) {
        l->time = 0.0;
        l->done = true;
    } else {
        l->time = t;
    }
}

/*
 * A layer's clip at its time into pose and weights: rest first on the
 * animated nodes unless the clip covers them all (what the clip does not
 * drive keeps its rest value; only animated nodes can differ from rest in
 * any pose the mixer makes), then the tracks.  The clip's space was checked
 * at creation.
 */
static void sample_layer(mn_mixer *m, layer *l, mn_pose *pose, float *weights, float *pointers)
{
    const mn_clip *clip = m->clips[l->clip];
    float t = (float)l->time;
    mni_pointer_state_sample(&m->pointers, clip, l->clip, t, pointers);
    for (uint32_t k = 0; !m->covers[l->clip] && k < m->animated_count; k++) {
        size_t i = m->animated[k];
        memcpy(pose->translations + 3 * i, m->rest.translations + 3 * i, 3 * sizeof(float));
        memcpy(pose->rotations + 4 * i, m->rest.rotations + 4 * i, 4 * sizeof(float));
        memcpy(pose->scales + 3 * i, m->rest.scales + 3 * i, 3 * sizeof(float));
    }
    mni_clip_sample_into(clip, t, &l->cursor, pose);

    if (m->weight_total == 0)
        return;
    memcpy(weights, m->weights_rest, (size_t)m->weight_total * sizeof(float));
    for (uint32_t k = 0; k < m->weighted_count; k++) {
        uint32_t node = m->weighted[k];
        mn_clip_sample_weights(clip, t, node, weights + m->weight_offset[node],
                               m->weight_count[node]);
    }
}

/* pose = from + (pose − from)·w on the animated nodes (lerp t/s, slerp r), weights likewise. */
static void blend_from_source(mn_mixer *m, float w)
{
    for (uint32_t k = 0; k < m->animated_count; k++) {
        size_t i = m->animated[k];
        const float *ft = m->from.translations + 3 * i, *fs = m->from.scales + 3 * i;
        float *pt = m->pose.translations + 3 * i, *ps = m->pose.scales + 3 * i;
        for (int c = 0; c < 3; c++) {
            pt[c] = ft[c] + (pt[c] - ft[c]) * w;
            ps[c] = fs[c] + (ps[c] - fs[c]) * w;
        }
        float *pr = m->pose.rotations + 4 * i;
        mn_quat_slerp(pr, m->from.rotations + 4 * i, pr, w);
    }
    for (uint32_t k = 0; k < m->weight_total; k++)
        m->weights[k] = m->weights_from[k] + (m->weights[k] - m->weights_from[k]) * w;
}

/* Local matrices of the animated nodes from the pose (the others keep their rest locals). */
static void bake_locals(mn_mixer *m)
{
    if (m->all_nodes) { /* after a caller's pose: every node, once */
        for (size_t i = 0; i < m->node_count; i++)
            mn_mat4_compose(m->locals + 16 * i, m->pose.translations + 3 * i,
                            m->pose.rotations + 4 * i, m->pose.scales + 3 * i);
        return;
    }
    for (uint32_t k = 0; k < m->animated_count; k++) {
        size_t i = m->animated[k];
        mn_mat4_compose(m->locals + 16 * i, m->pose.translations + 3 * i,
                        m->pose.rotations + 4 * i, m->pose.scales + 3 * i);
    }
}

/* Locals and worlds from the pose: deferred for an instance's mixer, else now. */
static void rebuild_matrices(mn_mixer *m)
{
    if (m->deferred) {
        /* Built when asked for (mn_mixer_locals, _worlds); all_nodes stays until the bake. */
        m->locals_stale = m->worlds_stale = true;
        return;
    }
    bool all = m->all_nodes;
    bake_locals(m);
    m->all_nodes = false;
    if (all) {
        for (uint32_t k = 0; k < m->node_count; k++)
            compose_world(m, m->order[k]);
        return;
    }
    for (uint32_t k = 0; k < m->dynamic_count; k++)
        compose_world(m, m->dynamic[k]);
}

/* Sample the current clip (and a live fade source), blend, bake, compose. */
static void evaluate(mn_mixer *m)
{
    sample_layer(m, &m->cur, &m->pose, m->weights, m->pointers.values);
    if (m->fading) {
        if (m->src.clip != MN_NONE)
            sample_layer(m, &m->src, &m->from, m->weights_from, m->pointers.from);
        float w = (float)(m->fade_elapsed / (double)m->fade_duration);
        blend_from_source(m, w);
        mni_pointer_state_blend(&m->pointers, w);
    }
    mni_pointer_state_apply(&m->pointers);
    rebuild_matrices(m);
}

mn_status mn_mixer_set_pose(mn_mixer *mixer, const mn_pose *pose, mn_error *err)
{
    mni_error_clear(err);
    if (!mixer || !pose)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_mixer_set_pose: mixer and pose must not be NULL");
    if (pose->joint_count != mixer->node_count)
        return mni_fail(err, MN_COUNT_MISMATCH,
                        "mn_mixer_set_pose: the pose has %u joints, the mixer %u nodes",
                        pose->joint_count, mixer->node_count);
    mn_status st = mni_space_check(pose->space, "mn_mixer_set_pose: the pose", &mixer->pose, err);
    if (st != MN_OK)
        return st;
    mn_pose_copy(&mixer->pose, pose);
    mixer->cur.clip = MN_NONE;
    mixer->cur.time = 0.0;
    mixer->cur.done = false;
    mixer->src.clip = MN_NONE;
    mixer->fading = false;
    mixer->paused = false;
    mixer->posed = true;
    mixer->all_nodes = true;
    mixer->dirty = true;
    return MN_OK;
}

bool mn_mixer_update(mn_mixer *mixer, float dt)
{
    if (mixer && mixer->posed) {
        if (!mixer->dirty)
            return false; /* the caller's pose, already shown */
        rebuild_matrices(mixer);
        mni_pointer_state_rest(&mixer->pointers); /* no clip plays: the model's values */
        mni_pointer_state_apply(&mixer->pointers);
        mixer->dirty = false;
        return true;
    }
    if (!mixer || mixer->cur.clip == MN_NONE)
        return false;
    if (!(dt > 0.0f) || !isfinite(dt))
        dt = 0.0f;
    bool time_runs = !mixer->paused && !mixer->cur.done;
    bool fade_runs = !mixer->paused && mixer->fading;
    if (!time_runs && !fade_runs && !mixer->dirty)
        return false; /* frozen: the outputs already hold this pose */
    if (time_runs)
        advance_layer(mixer, &mixer->cur, dt);
    if (fade_runs) {
        /* The clip faded from plays on at its own speed while its weight falls. */
        if (mixer->src.clip != MN_NONE && !mixer->src.done)
            advance_layer(mixer, &mixer->src, dt);
        mixer->fade_elapsed += dt;
        if (mixer->fade_elapsed >= (double)mixer->fade_duration) {
            mixer->fading = false;
            mixer->src.clip = MN_NONE;
        }
    }
    evaluate(mixer);
    mixer->dirty = false;
    return true;
}

uint32_t mn_mixer_node_count(const mn_mixer *mixer)
{
    return mixer ? mixer->node_count : 0;
}

const mn_pose *mn_mixer_pose(const mn_mixer *mixer)
{
    return mixer ? &mixer->pose : NULL;
}

/*
 * A deferred mixer's matrices are built on the first request after an
 * update.  The getters take a const mixer, but the mixer itself was made
 * writable (mn_mixer_create) and is used from one thread at a time, so
 * filling its own cache here is sound.
 */
const float *mn_mixer_locals(const mn_mixer *mixer)
{
    if (!mixer)
        return NULL;
    if (mixer->locals_stale) {
        mn_mixer *m = (mn_mixer *)mixer;
        bake_locals(m);
        m->all_nodes = false;
        m->locals_stale = false;
    }
    return mixer->locals;
}

const float *mn_mixer_worlds(const mn_mixer *mixer)
{
    if (!mixer)
        return NULL;
    if (mixer->worlds_stale) {
        mn_mixer *m = (mn_mixer *)mixer;
        mni_mixer_worlds_under(m, NULL, m->worlds);
        m->worlds_stale = false;
    }
    return mixer->worlds;
}

/* ---- deferred matrices: an instance's mixer ---------------------------------------- */

/* The kernels' parents (int16_t) hold any node count up to this; beyond it, the scalar walk. */
#define KERNEL_MAX_NODES 32767u

mn_status mni_mixer_defer_matrices(mn_mixer *m, mn_error *err)
{
    uint32_t n = m->node_count;
    m->deferred = true;
    m->worlds_stale = true; /* from now on the worlds are the kernel's, the rest worlds too */
    if (n == 0 || n > KERNEL_MAX_NODES)
        return MN_OK; /* kernel_parents NULL: mni_mixer_worlds_under walks `order` in scalar */
    m->direct = true;
    for (uint32_t i = 0; i < n; i++)
        m->direct = m->direct && m->parents[i] < (int32_t)i;
    int16_t *parents = mni_arena_calloc(&m->arena, n, sizeof *parents, 2);
    if (!parents)
        return mni_oom(err, "mixer");
    if (m->direct) {
        for (uint32_t i = 0; i < n; i++)
            parents[i] = (int16_t)m->parents[i];
        m->kernel_parents = parents;
        return MN_OK;
    }
    /* Kernel order = `order`: node order[k] is kernel joint k, its parent an earlier k. */
    uint32_t *joint_of = mni_arena_calloc(&m->arena, n, sizeof *joint_of, 4);
    m->work_worlds = mni_arena_calloc(&m->arena, (size_t)n * 16, sizeof(float), 16);
    mn_status st = joint_of && m->work_worlds ? alloc_pose(&m->arena, &m->work, n, err)
                                              : mni_oom(err, "mixer");
    if (st != MN_OK)
        return st;
    for (uint32_t k = 0; k < n; k++)
        joint_of[m->order[k]] = k;
    for (uint32_t k = 0; k < n; k++) {
        int32_t p = m->parents[m->order[k]];
        parents[k] = p < 0 ? -1 : (int16_t)joint_of[p];
    }
    m->kernel_parents = parents;
    return MN_OK;
}

/* The scalar walk for a hierarchy too big for the kernels: compose, then parent × local. */
static void worlds_scalar_under(const mn_mixer *m, const float *root, float *worlds)
{
    const mn_pose *pose = &m->pose;
    for (uint32_t k = 0; k < m->node_count; k++) {
        size_t i = m->order[k];
        float local[16];
        mn_mat4_compose(local, pose->translations + 3 * i, pose->rotations + 4 * i,
                        pose->scales + 3 * i);
        int32_t p = m->parents[i];
        const float *parent = p >= 0 ? worlds + 16 * (size_t)p : root;
        if (parent)
            mn_mat4_mul(worlds + 16 * i, parent, local);
        else
            memcpy(worlds + 16 * i, local, sizeof local);
    }
}

void mni_mixer_worlds_under(const mn_mixer *m, const float *root, float *worlds)
{
    uint32_t n = m->node_count;
    if (!m->kernel_parents) {
        worlds_scalar_under(m, root, worlds);
        return;
    }
    if (m->direct) {
        mni_local_to_world_kernel(MN_SIMD_BEST, m->kernel_parents, n, &m->pose, root, worlds);
        return;
    }
    /* Permuted: the pose gathered into kernel order, the worlds scattered back. */
    const mn_pose *pose = &m->pose;
    const mn_pose *work = &m->work;
    for (uint32_t k = 0; k < n; k++) {
        size_t i = m->order[k];
        memcpy(work->translations + 3 * (size_t)k, pose->translations + 3 * i, 3 * sizeof(float));
        memcpy(work->rotations + 4 * (size_t)k, pose->rotations + 4 * i, 4 * sizeof(float));
        memcpy(work->scales + 3 * (size_t)k, pose->scales + 3 * i, 3 * sizeof(float));
    }
    mni_local_to_world_kernel(MN_SIMD_BEST, m->kernel_parents, n, work, root, m->work_worlds);
    for (uint32_t k = 0; k < n; k++)
        memcpy(worlds + 16 * (size_t)m->order[k], m->work_worlds + 16 * (size_t)k,
               16 * sizeof(float));
}

void mni_mixer_prefetch(const mn_mixer *m)
{
    mni_prefetch(m, sizeof *m, true);
    mni_prefetch(m->pose.translations, mn_pose_storage_size(m->node_count), true);
    if (m->cur.clip != MN_NONE)
        mni_prefetch(m->cur.cursor_storage, mn_clip_cursor_storage_size(m->clips[m->cur.clip]),
                     true);
    if (m->kernel_parents)
        mni_prefetch(m->kernel_parents, m->node_count * sizeof *m->kernel_parents, false);
}

const float *mn_mixer_weights(const mn_mixer *mixer, uint32_t node, uint32_t *count)
{
    if (count)
        *count = 0;
    if (!mixer || node >= mixer->node_count || mixer->weight_count[node] == 0)
        return NULL;
    if (count)
        *count = mixer->weight_count[node];
    return mixer->weights + mixer->weight_offset[node];
}

/* ---- KHR_animation_pointer state ------------------------------------------------------------ */

const mn_material *mn_mixer_material(const mn_mixer *mixer, uint32_t index)
{
    if (!mixer || index >= mixer->model->material_count)
        return NULL;
    return mixer->pointers.materials ? &mixer->pointers.materials[index] : &mixer->model->materials[index];
}

const mn_camera *mn_mixer_camera(const mn_mixer *mixer, uint32_t index)
{
    if (!mixer || index >= mixer->model->camera_count)
        return NULL;
    return mixer->pointers.cameras ? &mixer->pointers.cameras[index] : &mixer->model->cameras[index];
}

const mn_light *mn_mixer_light(const mn_mixer *mixer, uint32_t index)
{
    if (!mixer || !mixer->model->lights || index >= mixer->model->light_count)
        return NULL;
    return mixer->pointers.lights ? &mixer->pointers.lights[index] : &mixer->model->lights[index];
}

bool mn_mixer_node_hidden(const mn_mixer *mixer, uint32_t node)
{
    if (!mixer || node >= mixer->node_count)
        return false;
    return mixer->pointers.hidden ? mixer->pointers.hidden[node] : mixer->model->nodes[node].hidden;
}

bool mn_mixer_animates_properties(const mn_mixer *mixer)
{
    return mixer && mixer->pointers.prop_count > 0;
}
