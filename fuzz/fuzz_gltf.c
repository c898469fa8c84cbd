/*
 * libFuzzer target for the glTF reader: bytes → mn_gltf_read_memory → touch
 * everything the model exposes (its animations built into clips and
 * sampled too) → mn_model_free.  A refused input must come
 * back with an error code; an accepted one must survive every model function
 * (the header promises they cannot fail on a reader's model), under ASan and
 * UBSan.
 *
 * base_dir stays NULL, so external URIs are refused and the fuzzer never
 * opens files.  Odd-sized inputs are read with copy_input, even-sized ones as
 * borrowed views, so both ownership paths are exercised.
 *
 *     make fuzz                    (each target for 30 s, corpus fuzz/corpus/gltf)
 *     build/fuzz/fuzz_gltf -dict=fuzz/dict/gltf.dict CORPUS_DIR fuzz/corpus/gltf
 */
#include <marionette/marionette.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Outputs are capped so a valid but huge model does not turn into an OOM report. */
#define MAX_FLOATS ((size_t)1 << 22)   /* 16 MiB of floats */

/* Reads that the optimiser must not drop. */
static volatile float sink;

/*
 * Read n floats.  Capped like the outputs: a model may legally hold up to the
 * reader's limit of zero-filled accessor data, and reading a gigabyte per
 * input would stall the fuzzer without finding anything new.
 */
static void consume(const float *v, size_t n)
{
    if (n > MAX_FLOATS)
        n = MAX_FLOATS;
    float acc = 0.0f;
    for (size_t i = 0; i < n; i++)
        acc += v[i];
    sink = acc;
}

static void touch_accessors(const mn_model *m, float *scratch)
{
    for (uint32_t i = 0; i < m->accessor_count; i++) {
        const mn_accessor *a = &m->accessors[i];
        size_t need = mn_accessor_unpack_floats(a, NULL, 0);
        if (need > MAX_FLOATS)
            continue;
        size_t got = mn_accessor_unpack_floats(a, scratch, MAX_FLOATS);
        if (got != need)
            abort();   /* the size protocol must not change between calls */
        consume(scratch, need);
        const float *view = mn_accessor_float_view(a);
        if (view)
            consume(view, (size_t)a->count * mn_accessor_components(a->type));
        if (a->component != MN_COMPONENT_F32 &&
            mn_accessor_unpack_u32(a, NULL, 0) <= MAX_FLOATS)
            mn_accessor_unpack_u32(a, (uint32_t *)(void *)scratch, MAX_FLOATS);
    }
}

static void touch_primitives(const mn_model *m, const float *worlds, float *scratch)
{
    for (uint32_t n = 0; n < m->node_count; n++) {
        const mn_node *node = &m->nodes[n];
        if (node->mesh == MN_NONE)
            continue;
        const mn_mesh *mesh = &m->meshes[node->mesh];
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            const mn_primitive *prim = &mesh->primitives[p];
            /* The soup, plain and baked with the node's rest world. */
            size_t verts = mn_primitive_soup(m, prim, NULL, NULL, 0);
            if (verts <= MAX_FLOATS / 8) {
                consume(scratch, 8 * mn_primitive_soup(m, prim, NULL, scratch, verts));
                consume(scratch, 8 * mn_primitive_soup(m, prim, worlds ? worlds + 16 * (size_t)n : NULL,
                                                       scratch, verts));
            }
            size_t colors = mn_primitive_colors(m, prim, 0, NULL, 0);
            if (colors <= MAX_FLOATS)
                consume(scratch, mn_primitive_colors(m, prim, 0, scratch, MAX_FLOATS));
            /* Influences: 4 u16 joints (8 bytes) + 4 weights (16 bytes) per vertex. */
            size_t v4 = (size_t)prim->vertex_count * 4;
            if (v4 <= MAX_FLOATS / 2) {
                uint16_t *joints = (uint16_t *)(void *)(scratch + v4);
                if (mn_primitive_skin_influences(m, prim, joints, scratch))
                    consume(scratch, v4);
            }
        }
    }
}

static void touch_animations(const mn_model *m)
{
    for (uint32_t i = 0; i < m->animation_count; i++) {
        const mn_animation *anim = &m->animations[i];
        for (uint32_t c = 0; c < anim->channel_count; c++) {
            const mn_channel *ch = &anim->channels[c];
            size_t per_key = ch->interpolation == MN_INTERP_CUBICSPLINE ? 3 : 1;
            consume(ch->times, ch->key_count);
            consume(ch->values, (size_t)ch->key_count * per_key * ch->components);
        }
    }
}

/*
 * Every animation built into a runtime clip and sampled, plainly and with a
 * cursor, into a pose of every node (the sampler's SIMD loads run right up
 * to the end of a clip's block), before, inside and past its keys.  A short
 * pose refuses the clip of every node; the same tracks as an unbound clip
 * (an identity target map) sample into it, their runs cut by the pose.
 */
static void touch_clips(const mn_model *m)
{
    if (m->node_count == 0 || m->node_count > 4096)
        return;
    mn_pose pose, small;
    uint32_t *identity = malloc(m->node_count * sizeof *identity);
    if (!identity)
        return;
    for (uint32_t n = 0; n < m->node_count; n++)
        identity[n] = n;
    if (mn_pose_create(&pose, m->node_count, NULL, NULL) != MN_OK) {
        free(identity);
        return;
    }
    if (mn_pose_create(&small, (m->node_count + 1) / 2, NULL, NULL) != MN_OK) {
        mn_pose_free(&pose);
        free(identity);
        return;
    }
    const mn_clip_options unbound = {.target_map = identity, .target_map_count = m->node_count};
    for (uint32_t i = 0; i < m->animation_count && i < 8; i++) {
        mn_clip *clip = NULL, *loose = NULL;
        if (mn_clip_from_gltf(m, i, NULL, &clip, NULL) != MN_OK)
            continue;
        if (mn_clip_from_gltf(m, i, &unbound, &loose, NULL) != MN_OK)
            abort(); /* the same channels, only mapped */
        size_t bytes = mn_clip_cursor_storage_size(clip);
        void *storage = malloc(bytes > 0 ? bytes : 1);
        mn_clip_cursor cursor;
        mn_clip_cursor_init(&cursor, loose, storage);
        float d = mn_clip_duration(clip);
        const float times[] = {-1.0f, 0.0f, 0.3f * d, 0.5f * d, 0.77f * d, d, d + 1.0f};
        for (size_t t = 0; t < sizeof times / sizeof times[0]; t++) {
            if (mn_clip_sample(clip, times[t], &pose, NULL) != MN_OK ||
                (small.joint_count != pose.joint_count &&
                 mn_clip_sample(clip, times[t], &small, NULL) != MN_INVALID_ARGUMENT) ||
                mn_clip_sample_cursor(loose, times[t], &cursor, &small, NULL) != MN_OK)
                abort(); /* a clip of every node fits a pose of every node, and only that */
            consume(pose.rotations, 4 * (size_t)pose.joint_count);
            consume(pose.translations, 3 * (size_t)pose.joint_count);
        }
        free(storage);
        mn_clip_free(loose);
        mn_clip_free(clip);
    }
    mn_pose_free(&pose);
    mn_pose_free(&small);
    free(identity);
}

static void touch_model(const mn_model *m, float *scratch)
{
    touch_accessors(m, scratch);

    float *worlds = NULL;
    if (m->node_count > 0 && m->node_count <= MAX_FLOATS / 16) {
        worlds = malloc((size_t)m->node_count * 16 * sizeof *worlds);
        if (worlds)
            mn_model_rest_worlds(m, worlds);
    }
    for (uint32_t n = 0; n < m->node_count; n++) {
        float local[16];
        mn_node_local_matrix(&m->nodes[n], local);
        consume(local, 16);
    }
    touch_primitives(m, worlds, scratch);
    free(worlds);

    for (uint32_t s = 0; s < m->skin_count; s++)
        consume(m->skins[s].inverse_bind, (size_t)m->skins[s].joint_count * 16);
    touch_animations(m);
    touch_clips(m);
    for (uint32_t i = 0; i < m->image_count; i++)
        if (m->images[i].size > 0)
            sink = (float)(m->images[i].data[0] + m->images[i].data[m->images[i].size - 1]);
    for (uint32_t w = 0; w < m->warning_count; w++)
        sink = (float)strlen(m->warnings[w].message);
    consume(m->bounds_min, 3);
    consume(m->bounds_max, 3);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mn_gltf_options options;
    memset(&options, 0, sizeof options);
    options.copy_input = (size & 1) != 0;

    mn_model *model = NULL;
    mn_error err;
    mn_status status = mn_gltf_read_memory(data, size, &options, &model, &err);
    if (status != MN_OK) {
        /* Refusal must be complete: a code, a terminated message, no model. */
        if (model != NULL || err.code != status || memchr(err.message, '\0', sizeof err.message) == NULL)
            abort();
        return 0;
    }
    /* One scratch buffer for the whole run: a 16 MiB malloc per input would
       dominate the time.  It stays reachable, so LeakSanitizer is quiet. */
    static float *scratch;
    if (!scratch)
        scratch = malloc(MAX_FLOATS * sizeof *scratch);
    if (scratch)
        touch_model(model, scratch);
    mn_model_free(model);
    return 0;
}
