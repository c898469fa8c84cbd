/*
 * bench_compress's glTF half: a corpus clip compressed to glTF
 * (mn_compress_gltf, written by mn_gltf_write, read back), and gltfpack
 * (npm gltfpack, tests/reference/node_modules/.bin/gltfpack, or
 * $MN_GLTFPACK) on the same clip written as a plain GLB by the library's
 * writer, at three settings:
 *   cc_af0          -cc -af 0
 *   cc_af0_ar14     -cc -af 0 -ar 14
 *   cc_at24_ar16_as24_af0   -cc -at 24 -ar 16 -as 24 -af 0
 * Each output is read back with the library's reader and measured with
 * the same metric against the source clip.  gltfpack may drop or rename
 * what it does not need, so the clip is written with every node named
 * ("n<index>" where it has no name), its channels are mapped back to the
 * source nodes by name, and every mapped node's translation, rotation and
 * scale that gltfpack no longer animates (a constant track it folded into
 * the node) is added as a one-key track of the value it wrote.
 * Animation bytes: mn_animation.stored_bytes (each view once).
 * Not the stuff of a benchmark's timing: it runs once per clip.
 */
#ifndef MN_BENCH_COMPRESS_GLB_H
#define MN_BENCH_COMPRESS_GLB_H

#include "bench.h"

#include <marionette/compress.h>
#include <marionette/gltf.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GLTFPACK_SETTINGS 3

static const char *const gltfpack_names[GLTFPACK_SETTINGS] = {"cc_af0", "cc_af0_ar14",
                                                              "cc_at24_ar16_as24_af0"};
static const char *const gltfpack_flags[GLTFPACK_SETTINGS] = {"-cc -af 0", "-cc -af 0 -ar 14",
                                                              "-cc -at 24 -ar 16 -as 24 -af 0"};

/* One output measured: its animation bytes and the metric. */
typedef struct glb_figures {
    bool ok;
    size_t bytes;
    float max, p99;
} glb_figures;

/* A one-animation model over `model`'s nodes, each named; names and nodes from malloc. */
typedef struct glb_source {
    mn_model model;
    mn_node *nodes;
    char (*names)[16];
    mn_animation animation;
    mn_skeleton *sk;
} glb_source;

static void glb_source_free(glb_source *s)
{
    mn_skeleton_free(s->sk);
    free(s->nodes);
    free(s->names);
    memset(s, 0, sizeof *s);
}

/* `anim` (its channels borrowed) over model's nodes, every node named; false on failure. */
static bool glb_source_make(const mn_model *model, const mn_animation *anim, glb_source *s)
{
    memset(s, 0, sizeof *s);
    uint32_t n = model->node_count;
    s->nodes = malloc((n ? n : 1) * sizeof *s->nodes);
    s->names = malloc((n ? n : 1) * sizeof *s->names);
    if (!s->nodes || !s->names)
        return false;
    memcpy(s->nodes, model->nodes, n * sizeof *s->nodes);
    for (uint32_t i = 0; i < n; i++)
        if (!s->nodes[i].name || s->nodes[i].default_name) {
            snprintf(s->names[i], sizeof s->names[i], "n%u", i);
            s->nodes[i].name = s->names[i];
            s->nodes[i].default_name = false;
        }
    s->model = *model;
    s->model.nodes = s->nodes;
    s->animation = *anim;
    s->model.animations = &s->animation;
    s->model.animation_count = 1;
    return mn_skeleton_from_nodes(&s->model, NULL, &s->sk, NULL) == MN_OK;
}

/* The source's clip 0 against `back`'s animation 0 (same nodes, as our writer keeps them). */
static glb_figures glb_measure_same(const glb_source *s, const mn_model *back)
{
    glb_figures f = {0};
    mn_clip *ref = NULL, *cand = NULL;
    mn_clip_error e;
    if (back->animation_count == 1 && back->node_count == s->model.node_count &&
        mn_clip_from_gltf(&s->model, 0, NULL, &ref, NULL) == MN_OK &&
        mn_clip_from_gltf(back, 0, NULL, &cand, NULL) == MN_OK &&
        mn_clip_error_measure(s->sk, ref, cand, NULL, &e, NULL, NULL, NULL) == MN_OK) {
        f = (glb_figures){true, back->animations[0].stored_bytes, e.max, e.p99};
    }
    mn_clip_free(cand);
    mn_clip_free(ref);
    return f;
}

/* gltfpack's output against the source: nodes mapped by name, folded constants put back. */
static glb_figures glb_measure_mapped(const glb_source *s, const mn_model *back)
{
    glb_figures f = {0};
    uint32_t n = s->model.node_count;
    if (back->animation_count < 1)
        return f;
    uint32_t *map = malloc((back->node_count + 1) * sizeof *map);
    bool *driven = calloc((size_t)n * 3 + 1, sizeof *driven);
    const mn_animation *a = &back->animations[0];
    mn_track *tracks = malloc(((size_t)a->channel_count + 3u * back->node_count + 1) * sizeof *tracks);
    uint32_t count = 0;
    for (uint32_t i = 0; map && i < back->node_count; i++) {
        map[i] = MN_NONE;
        for (uint32_t k = 0; back->nodes[i].name && k < n; k++)
            if (strcmp(back->nodes[i].name, s->model.nodes[k].name) == 0)
                map[i] = k;
    }
    for (uint32_t c = 0; map && driven && tracks && c < a->channel_count; c++) {
        const mn_channel *ch = &a->channels[c];
        if (ch->path > MN_PATH_SCALE || ch->node >= back->node_count || map[ch->node] == MN_NONE)
            continue;
        driven[3 * map[ch->node] + ch->path] = true;
        tracks[count++] = (mn_track){map[ch->node], ch->path, ch->interpolation, ch->key_count,
                                     ch->components, ch->times, ch->values};
    }
    static const float zero = 0.0f;
    for (uint32_t i = 0; map && driven && tracks && i < back->node_count; i++) {
        if (map[i] == MN_NONE)
            continue;
        const mn_node *node = &back->nodes[i];
        const float *values[3] = {node->translation, node->rotation, node->scale};
        for (int p = 0; p < 3; p++)
            if (!driven[3 * map[i] + p])
                tracks[count++] = (mn_track){map[i], (mn_anim_path)p, MN_INTERP_LINEAR, 1,
                                             p == 1 ? 4u : 3u, &zero, values[p]};
    }
    mn_clip *ref = NULL, *cand = NULL;
    mn_clip_error e;
    mn_clip_options o = {.space = mn_space_of_nodes(&s->model)};
    if (map && driven && tracks && mn_clip_from_gltf(&s->model, 0, NULL, &ref, NULL) == MN_OK &&
        mn_clip_create(tracks, count, "gltfpack", &o, &cand, NULL) == MN_OK &&
        mn_clip_error_measure(s->sk, ref, cand, NULL, &e, NULL, NULL, NULL) == MN_OK) {
        size_t bytes = 0;
        for (uint32_t k = 0; k < back->animation_count; k++)
            bytes += back->animations[k].stored_bytes;
        f = (glb_figures){true, bytes, e.max, e.p99};
    }
    mn_clip_free(cand);
    mn_clip_free(ref);
    free(tracks);
    free(driven);
    free(map);
    return f;
}

/* Ours: compressed, written to dir/ours.glb, read back, measured. */
static glb_figures glb_ours(const glb_source *s, const char *dir)
{
    glb_figures f = {0};
    char path[600];
    snprintf(path, sizeof path, "%s/ours.glb", dir);
    mn_gltf_compressed *gc = NULL;
    mn_model *back = NULL;
    if (mn_compress_gltf(&s->model, s->sk, NULL, &gc, NULL) == MN_OK &&
        mn_gltf_write_file(&gc->model, path, &(mn_gltf_write_options){.channel_encodings = gc->encodings},
                           NULL) == MN_OK &&
        mn_gltf_read_file(path, NULL, &back, NULL) == MN_OK)
        f = glb_measure_same(s, back);
    mn_model_free(back);
    mn_gltf_compressed_free(gc);
    return f;
}

static const char *gltfpack_path(void)
{
    const char *p = getenv("MN_GLTFPACK");
    if (p && *p)
        return access(p, X_OK) == 0 ? p : NULL;
    p = "tests/reference/node_modules/.bin/gltfpack";
    return access(p, X_OK) == 0 ? p : NULL;
}

/* gltfpack at setting i on dir/source.glb; its figures (ok false when it failed). */
static glb_figures glb_gltfpack(const glb_source *s, const char *tool, const char *dir, int i)
{
    glb_figures f = {0};
    char cmd[1600], out[600];
    snprintf(out, sizeof out, "%s/gltfpack_%d.glb", dir, i);
    snprintf(cmd, sizeof cmd, "timeout 300 '%s' -i '%s/source.glb' -o '%s' %s >/dev/null 2>&1", tool, dir, out,
             gltfpack_flags[i]);
    if (system(cmd) != 0)
        return f;
    mn_model *back = NULL;
    if (mn_gltf_read_file(out, NULL, &back, NULL) == MN_OK)
        f = glb_measure_mapped(s, back);
    mn_model_free(back);
    return f;
}

static void put_error(bench_line *line, const char *key, float v)
{
    char num[32];
    snprintf(num, sizeof num, "%.3g", (double)v);
    bench_line_raw_(line, key, num);
}

/* The smallest gltfpack output within `max`, over `bytes` (0 when none is). */
static double vs_gltfpack(const glb_figures *g, float max, size_t bytes)
{
    size_t best = 0;
    for (int i = 0; i < GLTFPACK_SETTINGS; i++)
        if (g[i].ok && g[i].max <= max && (best == 0 || g[i].bytes < best))
            best = g[i].bytes;
    return best && bytes ? (double)best / (double)bytes : 0.0;
}

/*
 * One line "compress_glb" for clip `name`: ours as glTF, the .mnanim figures
 * given, gltfpack's at each setting and ratio_vs_gltfpack_{mnanim,glb}.
 * False when our own path fails (gltfpack failing is reported, not fatal).
 */
static bool glb_case(const char *name, const mn_model *model, const mn_animation *anim, size_t raw_bytes,
                     size_t mnanim_bytes, float mnanim_max)
{
    glb_source s;
    char dir[] = "/tmp/bench_compress_XXXXXX";
    if (!glb_source_make(model, anim, &s) || !mkdtemp(dir)) {
        glb_source_free(&s);
        return false;
    }
    glb_figures ours = glb_ours(&s, dir), g[GLTFPACK_SETTINGS] = {{0}};
    const char *tool = gltfpack_path();
    char src[600];
    snprintf(src, sizeof src, "%s/source.glb", dir);
    bool packed = tool && mn_gltf_write_file(&s.model, src, NULL, NULL) == MN_OK;
    for (int i = 0; packed && i < GLTFPACK_SETTINGS; i++)
        g[i] = glb_gltfpack(&s, tool, dir, i);
    bench_line line;
    bench_line_begin(&line, "compress_glb", name);
    bench_line_u64(&line, "raw_bytes", raw_bytes);
    bench_line_u64(&line, "glb_bytes", ours.bytes);
    bench_line_num(&line, "glb_ratio", ours.bytes ? (double)raw_bytes / (double)ours.bytes : 0.0);
    put_error(&line, "glb_max_error_m", ours.max);
    put_error(&line, "glb_p99_error_m", ours.p99);
    bench_line_bool(&line, "glb_bound_met", ours.ok && ours.max <= MN_COMPRESS_ERROR_DEFAULT);
    bench_line_num(&line, "mnanim_ratio", mnanim_bytes ? (double)raw_bytes / (double)mnanim_bytes : 0.0);
    put_error(&line, "mnanim_max_error_m", mnanim_max);
    bench_line_bool(&line, "gltfpack", packed);
    for (int i = 0; packed && i < GLTFPACK_SETTINGS; i++) {
        char key[96];
        snprintf(key, sizeof key, "gltfpack_%s_ratio", gltfpack_names[i]);
        bench_line_num(&line, key, g[i].ok && g[i].bytes ? (double)raw_bytes / (double)g[i].bytes : 0.0);
        snprintf(key, sizeof key, "gltfpack_%s_max_error_m", gltfpack_names[i]);
        put_error(&line, key, g[i].ok ? g[i].max : -1.0f);
    }
    if (packed) {
        /* How many times our bytes the smallest gltfpack output as exact as ours takes (0: none is). */
        bench_line_num(&line, "ratio_vs_gltfpack_mnanim", vs_gltfpack(g, mnanim_max, mnanim_bytes));
        bench_line_num(&line, "ratio_vs_gltfpack_glb", vs_gltfpack(g, ours.max, ours.bytes));
    }
    bench_line_print(&line);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_compress: %s left behind\n", dir);
    glb_source_free(&s);
    return ours.ok;
}

#endif /* MN_BENCH_COMPRESS_GLB_H */
