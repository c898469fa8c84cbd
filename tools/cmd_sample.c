/*
 * `marionette sample FILE [--clip NAME|INDEX|all] [--times LIST] [--rest]
 *                         [--vertices deformed|skinned|all|none] [--json]`
 *
 * What the runtime computes, dumped: every node's world matrix, the morph
 * weights of nodes whose mesh has targets, and world-space vertex positions,
 * at the times asked, for the rest pose and for each chosen clip.  The JSON
 * shape ("marionette-sample/1") is fixed by docs/cli.md ("sample --json"),
 * because other implementations are compared with it number by number (see
 * tests/reference/crosscheck.mjs, which holds it against three.js).
 *
 * Everything is computed with the library, the way an application would:
 *
 *   rest pose     the nodes' TRS in an mn_pose over ALL nodes (targets are node indices)
 *   clip at t     mn_pose_copy(rest) + mn_clip_sample + mn_clip_sample_weights
 *   worlds        mn_pose_local_matrices + mn_compose_worlds (mn_model_rest_worlds at rest)
 *   positions     mn_deform_mesh_run: morph, then skin by the palette
 *                 world(skin.joints[i]) × inverseBind[i]; an unskinned
 *                 primitive is then placed by world(node)
 *
 * The output is streamed (a skinned figure at every key time is millions of
 * numbers: building a JSON tree first would take hundreds of MB).
 */
#include "cli.h"

#include <marionette/marionette.h>
#include <marionette/clip.h>
#include <marionette/pose.h>
#include <marionette/skin.h>

#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the command line ------------------------------------------------------- */

typedef enum vertex_choice {
    VERTICES_DEFORMED = 0,   /* skinned or morphed primitives (the default) */
    VERTICES_SKINNED,
    VERTICES_ALL,
    VERTICES_NONE
} vertex_choice;

typedef struct sample_args {
    const char *file;
    const char *clip;        /* NULL: every clip */
    const char *times;       /* NULL: "keys" */
    bool rest;
    int vertices;            /* a vertex_choice */
    bool json;
} sample_args;

/* One token of --times: a number, `keys` or `keys+mid`.  Returns false when it is none of them. */
typedef enum time_token { TOKEN_NUMBER, TOKEN_KEYS, TOKEN_KEYS_MID } time_token;

static bool parse_time_token(const char *s, size_t len, time_token *kind, float *value)
{
    if (len == 4 && strncmp(s, "keys", 4) == 0) {
        *kind = TOKEN_KEYS;
        return true;
    }
    if (len == 8 && strncmp(s, "keys+mid", 8) == 0) {
        *kind = TOKEN_KEYS_MID;
        return true;
    }
    /* Times are float32 (docs/cli.md): a value that overflows a float is as wrong as "abc". */
    *kind = TOKEN_NUMBER;
    return cli_parse_float_span(s, len, value);
}

/* --times LIST (or --time T): every token checked now, so sampling can trust them. */
static int take_times(const cli_spec *spec, const cli_option *opt, const char *option,
                      const char *list)
{
    for (const char *s = list;; s++) {
        size_t len = strcspn(s, ",");
        time_token kind;
        float v;
        if (!parse_time_token(s, len, &kind, &v))
            return cli_command_error(spec->command,
                                     "sample: %s: '%.*s' is not a number of seconds, 'keys' or "
                                     "'keys+mid'",
                                     option, (int)len, s);
        s += len;
        if (*s == '\0')
            break;
    }
    *(const char **)opt->dest = list;
    return CLI_EXIT_OK;
}

#define SAMPLE_OPTIONS 6

/* The tables a glTF FILE's spec points into. */
typedef struct sample_tables {
    cli_option options[SAMPLE_OPTIONS];
    cli_positional file;
} sample_tables;

static cli_spec sample_spec(sample_args *a, sample_tables *t)
{
    memset(a, 0, sizeof *a);
    static const cli_choice vertex_choices[] = {
        {"deformed", VERTICES_DEFORMED}, {"skinned", VERTICES_SKINNED}, {"all", VERTICES_ALL},
        {"none", VERTICES_NONE}, {NULL, 0}};
    /* --time T is --times with one value, --skinned is --vertices skinned: the
       spellings `render` uses, so flags read alike. */
    const cli_option options[SAMPLE_OPTIONS] = {
        {.name = "--json", .kind = CLI_FLAG, .dest = &a->json},
        {.name = "--rest", .kind = CLI_FLAG, .dest = &a->rest},
        {.name = "--clip", .kind = CLI_STRING, .dest = &a->clip},
        {.name = "--times", .alias = "--time", .kind = CLI_CUSTOM, .dest = &a->times,
         .convert = take_times},
        {.name = "--vertices", .kind = CLI_CHOICE, .dest = &a->vertices, .choices = vertex_choices},
        {.name = "--skinned", .kind = CLI_SET, .dest = &a->vertices, .value = VERTICES_SKINNED},
    };
    memcpy(t->options, options, sizeof options);
    t->file = (cli_positional){"FILE", &a->file, "which file?"};
    return (cli_spec){.reads_model = true, .command = cli_find_command("sample"),
                      .options = t->options, .option_count = SAMPLE_OPTIONS,
                      .positionals = &t->file, .positional_count = 1};
}

/* cli_option_values of a glTF FILE's spec. */
static int sample_values(const char *option)
{
    sample_args a;
    sample_tables t;
    cli_spec spec = sample_spec(&a, &t);
    return cli_option_values(&spec, option);
}

static bool parse_args(int argc, char **argv, sample_args *a, int *status)
{
    sample_tables t;
    cli_spec spec = sample_spec(a, &t);
    return cli_parse_args(&spec, argc, argv, status);
}

/* ---- which clips, which times ------------------------------------------------ */

uint32_t cli_find_clip(const mn_model *m, const char *want)
{
    for (uint32_t i = 0; i < m->animation_count; i++)
        if (m->animations[i].name && strcmp(m->animations[i].name, want) == 0)
            return i;
    uint32_t index;
    if (cli_parse_uint(want, 0, UINT32_MAX, &index) && index < m->animation_count)
        return index;
    return MN_NONE;
}

static void list_clips(FILE *out, const mn_model *m)
{
    if (m->animation_count == 0) {
        fputs("the file has no animations\n", out);
        return;
    }
    fputs("its clips:", out);
    for (uint32_t i = 0; i < m->animation_count; i++)
        fprintf(out, "%s %u \"%s\"", i ? "," : "", i,
                m->animations[i].name ? m->animations[i].name : "");
    fputc('\n', out);
}

static int compare_floats(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Every distinct key time of an animation, ascending, in a malloc'ed array (*count of them). */
static float *key_times(const mn_animation *anim, uint32_t *count)
{
    size_t total = 0;
    for (uint32_t c = 0; c < anim->channel_count; c++)
        total += anim->channels[c].key_count;
    *count = 0;
    float *keys = malloc((total ? total : 1) * sizeof *keys);
    if (!keys)
        return NULL;
    size_t n = 0;
    for (uint32_t c = 0; c < anim->channel_count; c++)
        for (uint32_t k = 0; k < anim->channels[c].key_count; k++)
            keys[n++] = anim->channels[c].times[k];
    qsort(keys, n, sizeof *keys, compare_floats);
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++)
        if (distinct == 0 || keys[i] != keys[distinct - 1])
            keys[distinct++] = keys[i];
    *count = (uint32_t)distinct;
    return keys;
}

typedef struct time_list {
    float *t;
    size_t count, cap;
} time_list;

static bool times_push(time_list *l, float t)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        float *grown = realloc(l->t, cap * sizeof *grown);
        if (!grown)
            return false;
        l->t = grown;
        l->cap = cap;
    }
    l->t[l->count++] = t;
    return true;
}

/*
 * The times to sample one animation at, in the order asked.  `keys` is every
 * distinct key time; `keys+mid` adds the midpoint between neighbouring keys
 * and one time 0.25 s before the first and after the last (to exercise
 * clamping).  All of it in float32, as docs/cli.md says.
 */
static bool expand_times(const char *list, const mn_animation *anim, time_list *out)
{
    out->count = 0;
    const char *s = list ? list : "keys";
    for (;;) {
        size_t len = strcspn(s, ",");
        time_token kind = TOKEN_NUMBER;
        float v = 0.0f;
        parse_time_token(s, len, &kind, &v);   /* checked by take_times */
        if (kind == TOKEN_NUMBER) {
            if (!times_push(out, v))
                return false;
        } else {
            uint32_t n;
            float *keys = key_times(anim, &n);
            if (!keys)
                return false;
            bool ok = true;
            if (kind == TOKEN_KEYS_MID && n > 0)
                ok = times_push(out, keys[0] - 0.25f);
            for (uint32_t k = 0; ok && k < n; k++) {
                ok = times_push(out, keys[k]);
                if (ok && kind == TOKEN_KEYS_MID && k + 1 < n)
                    ok = times_push(out, 0.5f * (keys[k] + keys[k + 1]));
            }
            if (ok && kind == TOKEN_KEYS_MID && n > 0)
                ok = times_push(out, keys[n - 1] + 0.25f);
            free(keys);
            if (!ok)
                return false;
        }
        if (s[len] == '\0')
            return true;
        s += len + 1;
    }
}

/* ---- the posing state ---------------------------------------------------------- */

/* Fill err for a failure of this command's own (the library fills it for its calls). */
static mn_status fail(mn_error *err, mn_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static mn_status fail(mn_error *err, mn_status code, const char *fmt, ...)
{
    memset(err, 0, sizeof *err);
    err->code = code;
    err->offset = -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return code;
}

static mn_status out_of_memory(mn_error *err)
{
    return fail(err, MN_OUT_OF_MEMORY, "out of memory while sampling the model");
}

/* One primitive whose positions are printed. */
typedef struct prim_job {
    uint32_t node, mesh, primitive;
    bool skinned, morphed;
    const mn_deform_mesh *dm;
} prim_job;

typedef struct poser {
    const mn_model *m;
    uint32_t n;                  /* node count */
    int32_t *parents;            /* for mn_compose_worlds */
    mn_pose rest, pose;          /* over all nodes: joint j is node j */
    float *locals, *worlds;      /* 16 × n */
    /* Morph weights: node i owns weights[weight_at[i] .. + weight_count[i]] (count 0: no targets). */
    uint32_t *weight_at, *weight_count;
    float *rest_weights, *weights;
    mn_deform_mesh **dms;        /* one per (mesh, primitive) printed, in job order; may repeat */
    prim_job *jobs;
    uint32_t job_count;
    float *palette;              /* 16 × the largest skin */
    float *positions;            /* 3 × the largest job's vertex count */
    const mn_clip *clip;         /* the sample's clip (NULL: the rest pose) and time */
    float time;
    bool pointers;               /* the file has KHR_animation_pointer channels: print "pointers" */
} poser;

static uint32_t mesh_target_count(const mn_mesh *mesh)
{
    uint32_t n = mesh->weight_count;
    for (uint32_t p = 0; p < mesh->primitive_count; p++)
        if (mesh->primitives[p].target_count > n)
            n = mesh->primitives[p].target_count;
    return n;
}

static void *zalloc(size_t count, size_t size)
{
    return calloc(count ? count : 1, size);
}

static void poser_free(poser *p)
{
    if (p->dms)
        for (uint32_t j = 0; j < p->job_count; j++) {
            /* Nodes that share a mesh share its prepared primitives: free each once. */
            bool first = true;
            for (uint32_t k = 0; k < j && first; k++)
                first = p->dms[k] != p->dms[j];
            if (first)
                mn_deform_mesh_free(p->dms[j]);
        }
    free(p->dms);
    free(p->jobs);
    free(p->parents);
    mn_pose_free(&p->rest);
    mn_pose_free(&p->pose);
    free(p->locals);
    free(p->worlds);
    free(p->weight_at);
    free(p->weight_count);
    free(p->rest_weights);
    free(p->weights);
    free(p->palette);
    free(p->positions);
    memset(p, 0, sizeof *p);
}

static bool wanted(vertex_choice choice, bool skinned, bool morphed)
{
    switch (choice) {
    case VERTICES_DEFORMED: return skinned || morphed;
    case VERTICES_SKINNED:  return skinned;
    case VERTICES_ALL:      return true;
    case VERTICES_NONE:     return false;
    }
    return false;
}

/* The primitives to print and their prepared meshes.  Fails only on the library's errors. */
static mn_status plan_primitives(poser *p, vertex_choice choice, mn_error *err)
{
    const mn_model *m = p->m;
    size_t most = 0;
    for (uint32_t i = 0; i < m->node_count; i++)
        if (m->nodes[i].mesh != MN_NONE)
            most += m->meshes[m->nodes[i].mesh].primitive_count;
    p->jobs = zalloc(most, sizeof *p->jobs);
    p->dms = zalloc(most, sizeof *p->dms);
    if (!p->jobs || !p->dms)
        return out_of_memory(err);
    size_t most_vertices = 0;
    for (uint32_t i = 0; i < m->node_count; i++) {
        const mn_node *node = &m->nodes[i];
        if (node->mesh == MN_NONE)
            continue;
        const mn_mesh *mesh = &m->meshes[node->mesh];
        for (uint32_t pi = 0; pi < mesh->primitive_count; pi++) {
            const mn_primitive *prim = &mesh->primitives[pi];
            if (mn_primitive_find(prim, MN_SEMANTIC_POSITION, 0) == MN_NONE)
                continue;   /* nothing to place */
            bool skinned = node->skin != MN_NONE &&
                           mn_primitive_find(prim, MN_SEMANTIC_JOINTS, 0) != MN_NONE &&
                           mn_primitive_find(prim, MN_SEMANTIC_WEIGHTS, 0) != MN_NONE;
            bool morphed = prim->target_count > 0;
            if (!wanted(choice, skinned, morphed))
                continue;
            /* Another node may have prepared this primitive already. */
            mn_deform_mesh *dm = NULL;
            for (uint32_t k = 0; k < p->job_count && !dm; k++)
                if (p->jobs[k].mesh == node->mesh && p->jobs[k].primitive == pi)
                    dm = p->dms[k];
            if (!dm) {
                mn_status st = mn_deform_mesh_create(m, node->mesh, pi, NULL, &dm, err);
                if (st != MN_OK)
                    return st;
            }
            p->dms[p->job_count] = dm;
            p->jobs[p->job_count++] = (prim_job){i, node->mesh, pi, skinned && dm->influence_count > 0,
                                                 morphed, dm};
            if (dm->vertex_count > most_vertices)
                most_vertices = dm->vertex_count;
        }
    }
    p->positions = zalloc(most_vertices * 3, sizeof(float));
    return p->positions ? MN_OK : out_of_memory(err);
}

static mn_status poser_init(poser *p, const mn_model *m, vertex_choice choice, mn_error *err)
{
    memset(p, 0, sizeof *p);
    p->m = m;
    p->n = m->node_count;
    size_t n = p->n;
    p->parents = zalloc(n, sizeof *p->parents);
    p->locals = zalloc(n * 16, sizeof(float));
    p->worlds = zalloc(n * 16, sizeof(float));
    p->weight_at = zalloc(n, sizeof *p->weight_at);
    p->weight_count = zalloc(n, sizeof *p->weight_count);
    if (!p->parents || !p->locals || !p->worlds || !p->weight_at || !p->weight_count)
        return out_of_memory(err);

    mn_status st = mn_pose_create(&p->rest, p->n, NULL, err);
    if (st == MN_OK)
        st = mn_pose_create(&p->pose, p->n, NULL, err);
    if (st != MN_OK)
        return st;

    /* The rest pose: each node's TRS as loaded (a matrix node's exact decomposition). */
    size_t total_weights = 0;
    for (uint32_t i = 0; i < p->n; i++) {
        const mn_node *node = &m->nodes[i];
        p->parents[i] = node->parent == MN_NONE ? -1 : (int32_t)node->parent;
        if ((st = mn_pose_set_joint(&p->rest, i, node->translation, node->rotation, node->scale, err)) != MN_OK)
            return st;
        p->weight_at[i] = (uint32_t)total_weights;
        if (node->mesh != MN_NONE)
            p->weight_count[i] = mesh_target_count(&m->meshes[node->mesh]);
        total_weights += p->weight_count[i];
    }

    /* Rest weights: node.weights, else mesh.weights, else 0 (glTF's order of precedence). */
    p->rest_weights = zalloc(total_weights, sizeof(float));
    p->weights = zalloc(total_weights, sizeof(float));
    if (!p->rest_weights || !p->weights)
        return out_of_memory(err);
    for (uint32_t i = 0; i < p->n; i++) {
        const mn_node *node = &m->nodes[i];
        if (p->weight_count[i] == 0)
            continue;
        const mn_mesh *mesh = &m->meshes[node->mesh];
        const float *src = node->weights ? node->weights : mesh->weights;
        uint32_t have = node->weights ? node->weight_count : mesh->weight_count;
        for (uint32_t w = 0; w < p->weight_count[i] && src && w < have; w++)
            p->rest_weights[p->weight_at[i] + w] = src[w];
    }

    uint32_t most_joints = 0;
    for (uint32_t s = 0; s < m->skin_count; s++)
        if (m->skins[s].joint_count > most_joints)
            most_joints = m->skins[s].joint_count;
    for (uint32_t a = 0; a < m->animation_count; a++)
        for (uint32_t c = 0; c < m->animations[a].channel_count; c++)
            p->pointers = p->pointers || m->animations[a].channels[c].path == MN_PATH_POINTER;
    p->palette = zalloc((size_t)most_joints * 16, sizeof(float));
    if (!p->palette)
        return out_of_memory(err);
    return plan_primitives(p, choice, err);
}

/*
 * Pose every node for one sample: clip NULL is the rest pose.  Fills
 * p->worlds and p->weights.  Properties the clip does not animate keep their
 * rest values, because the pose starts as a copy of the rest pose.
 */
static mn_status pose_at(poser *p, const mn_clip *clip, float t, mn_error *err)
{
    size_t total = p->n ? p->weight_at[p->n - 1] + p->weight_count[p->n - 1] : 0;
    memcpy(p->weights, p->rest_weights, total * sizeof(float));
    p->clip = clip;
    p->time = t;
    if (!clip) {
        mn_model_rest_worlds(p->m, p->worlds);
        return MN_OK;
    }
    mn_pose_copy(&p->pose, &p->rest);
    mn_status st = mn_clip_sample(clip, t, &p->pose, err);
    if (st != MN_OK)
        return st;
    for (uint32_t i = 0; i < p->n; i++)
        if (p->weight_count[i] > 0)
            mn_clip_sample_weights(clip, t, i, p->weights + p->weight_at[i], p->weight_count[i]);
    mn_pose_local_matrices(&p->pose, p->locals);
    return mn_compose_worlds(p->parents, p->n, p->locals, p->worlds, err);
}

/*
 * World-space positions of one job into p->positions.  Skinned: morph, then
 * skin by world(joint) × inverseBind (glTF places a skinned mesh by its
 * joints; the mesh node's own transform is ignored).  Otherwise: morph, then
 * world(node).
 */
static mn_status place_vertices(poser *p, const prim_job *job, mn_error *err)
{
    const mn_model *m = p->m;
    const mn_node *node = &m->nodes[job->node];
    const float *weights = p->weight_count[job->node] > 0 ? p->weights + p->weight_at[job->node] : NULL;
    const float *palette = NULL;
    uint32_t palette_count = 0;
    if (job->skinned) {
        const mn_skin *skin = &m->skins[node->skin];
        for (uint32_t j = 0; j < skin->joint_count; j++)
            mn_mat4_mul(p->palette + 16 * (size_t)j, p->worlds + 16 * (size_t)skin->joints[j],
                        skin->inverse_bind + 16 * (size_t)j);
        palette = p->palette;
        palette_count = skin->joint_count;
    }
    mn_status st = mn_deform_mesh_run(job->dm, weights, palette, palette_count, p->positions, NULL,
                                      NULL);
    if (st != MN_OK) {
        return fail(err, st, "nodes[%u] (mesh %u, primitive %u): the mesh cannot be deformed (%s)",
                    job->node, job->mesh, job->primitive, mn_status_message(st));
    }
    if (!job->skinned) {
        const float *world = p->worlds + 16 * (size_t)job->node;
        for (uint32_t v = 0; v < job->dm->vertex_count; v++) {
            float in[3] = {p->positions[3 * v], p->positions[3 * v + 1], p->positions[3 * v + 2]};
            mn_mat4_transform_point(p->positions + 3 * (size_t)v, world, in);
        }
    }
    return MN_OK;
}

/* ---- JSON output ------------------------------------------------------------------ */

static void put_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20 || *c == 0x7f)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

static long long index_or_minus_one(uint32_t i)
{
    return i == MN_NONE ? -1 : (long long)i;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static void json_begin(FILE *out, const char *file, const mn_model *m)
{
    fputs("{\n  \"format\": \"marionette-sample/1\",\n  \"source\": ", out);
    put_json_string(out, base_name(file));
    fputs(",\n  \"nodes\": [", out);
    for (uint32_t i = 0; i < m->node_count; i++) {
        const mn_node *n = &m->nodes[i];
        fprintf(out, "%s\n    {\"index\": %u, \"name\": ", i ? "," : "", i);
        put_json_string(out, n->name);
        fprintf(out, ", \"parent\": %lld, \"mesh\": %lld, \"skin\": %lld}",
                index_or_minus_one(n->parent), index_or_minus_one(n->mesh),
                index_or_minus_one(n->skin));
    }
    fputs(m->node_count ? "\n  ],\n  \"clips\": [" : "],\n  \"clips\": [", out);
    for (uint32_t i = 0; i < m->animation_count; i++) {
        fprintf(out, "%s\n    {\"index\": %u, \"name\": ", i ? "," : "", i);
        put_json_string(out, m->animations[i].name);
        fputs(", \"duration\": ", out);
        cli_put_json_number(out, m->animations[i].duration);
        fputc('}', out);
    }
    fputs(m->animation_count ? "\n  ],\n  \"samples\": [" : "],\n  \"samples\": [", out);
}

/*
 * KHR_animation_pointer: each pointer track of the sample's clip at its
 * time (none at rest), when the file has pointer channels.  Node pointers
 * are in the world matrices and weights already: clips make them node tracks.
 */
static void json_pointers(FILE *out, const poser *p)
{
    if (!p->pointers)
        return;
    uint32_t n = mn_clip_pointer_count(p->clip);
    fputs(",\n      \"pointers\": [", out);
    for (uint32_t i = 0; i < n; i++) {
        const mn_pointer_track *tr = mn_clip_pointer(p->clip, i);
        float v[4] = {0};
        if (tr->components > 4)
            continue; /* none of the properties pointer tracks drive has more */
        mn_pointer_track_sample(tr, p->time, v);
        fprintf(out, "%s\n        {\"pointer\": ", i ? "," : "");
        put_json_string(out, tr->pointer.text);
        fputs(", \"value\": ", out);
        cli_put_json_floats(out, v, tr->components);
        fputc('}', out);
    }
    fputs(n ? "\n      ]" : "]", out);
}

static mn_status json_sample(FILE *out, poser *p, long clip, const float *t, bool first,
                             mn_error *err)
{
    fprintf(out, "%s\n    {\n      \"clip\": %ld,\n      \"time\": ", first ? "" : ",", clip);
    if (t)
        cli_put_json_number(out, *t);
    else
        fputs("null", out);
    fputs(",\n      \"world_matrices\": [", out);
    for (uint32_t i = 0; i < p->n; i++) {
        fputs(i ? ",\n        " : "\n        ", out);
        cli_put_json_floats(out, p->worlds + 16 * (size_t)i, 16);
    }
    fputs(p->n ? "\n      ],\n      \"morph_weights\": [" : "],\n      \"morph_weights\": [", out);
    bool any = false;
    for (uint32_t i = 0; i < p->n; i++) {
        if (p->weight_count[i] == 0)
            continue;
        fprintf(out, "%s\n        {\"node\": %u, \"mesh\": %u, \"weights\": ", any ? "," : "", i,
                p->m->nodes[i].mesh);
        cli_put_json_floats(out, p->weights + p->weight_at[i], p->weight_count[i]);
        fputc('}', out);
        any = true;
    }
    fputs(any ? "\n      ],\n      \"primitives\": [" : "],\n      \"primitives\": [", out);
    for (uint32_t j = 0; j < p->job_count; j++) {
        const prim_job *job = &p->jobs[j];
        mn_status st = place_vertices(p, job, err);
        if (st != MN_OK)
            return st;
        fprintf(out,
                "%s\n        {\"node\": %u, \"mesh\": %u, \"primitive\": %u, \"skinned\": %s, "
                "\"morphed\": %s, \"vertex_count\": %u,\n         \"positions\": ",
                j ? "," : "", job->node, job->mesh, job->primitive, job->skinned ? "true" : "false",
                job->morphed ? "true" : "false", job->dm->vertex_count);
        cli_put_json_floats(out, p->positions, 3 * (size_t)job->dm->vertex_count);
        fputc('}', out);
    }
    fputs(p->job_count ? "\n      ]" : "]", out);
    json_pointers(out, p);
    fputs("\n    }", out);
    return MN_OK;
}

/* ---- text output ------------------------------------------------------------------ */

/* Short figures for a person: float dust below 1e-6 of the value's scale prints as 0. */
static double tidy(float v)
{
    return fabsf(v) < 1e-6f ? 0.0 : (double)v;
}

static void put_vec3(FILE *out, const float v[3])
{
    fprintf(out, "(%.4g, %.4g, %.4g)", tidy(v[0]), tidy(v[1]), tidy(v[2]));
}

static void text_begin(FILE *out, const char *file, const mn_model *m)
{
    fputs("file   ", out);
    cli_put_quoted(out, file);
    fprintf(out, "\nnodes  %u\nclips  %u", m->node_count, m->animation_count);
    for (uint32_t i = 0; i < m->animation_count; i++) {
        fprintf(out, "%s%u ", i ? ", " : ": ", i);
        cli_put_quoted(out, m->animations[i].name);
        fprintf(out, " %.4g s", (double)m->animations[i].duration);
    }
    fputc('\n', out);
}

/*
 * One sample as a table: each node's world translation, rotation (x y z w)
 * and scale, decomposed from its world matrix; morph weights; and per
 * printed primitive the world-space box its vertices span.
 */
static mn_status text_sample(FILE *out, poser *p, long clip, const float *t, mn_error *err)
{
    const mn_model *m = p->m;
    if (clip < 0)
        fputs("\nrest pose\n", out);
    else {
        fprintf(out, "\nclip %ld ", clip);
        cli_put_quoted(out, m->animations[clip].name);
        fprintf(out, " at t = %.9g s\n", (double)*t);
    }
    fprintf(out, "  %4s  %-24s  %-30s  %-38s  %s\n", "node", "name", "world translation",
            "world rotation (x, y, z, w)", "world scale");
    for (uint32_t i = 0; i < p->n; i++) {
        float tr[3], r[4], s[3];
        bool exact = mn_mat4_decompose(p->worlds + 16 * (size_t)i, tr, r, s);
        char name[25];
        snprintf(name, sizeof name, "%s", m->nodes[i].name ? m->nodes[i].name : "");
        for (char *c = name; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = '?';
        char col_t[64], col_r[64], col_s[64];
        snprintf(col_t, sizeof col_t, "(%.4g, %.4g, %.4g)", tidy(tr[0]), tidy(tr[1]), tidy(tr[2]));
        snprintf(col_r, sizeof col_r, "(%.4g, %.4g, %.4g, %.4g)", tidy(r[0]), tidy(r[1]), tidy(r[2]),
                 tidy(r[3]));
        snprintf(col_s, sizeof col_s, "(%.4g, %.4g, %.4g)%s", tidy(s[0]), tidy(s[1]), tidy(s[2]),
                 exact ? "" : " skewed");
        fprintf(out, "  %4u  %-24s  %-30s  %-38s  %s\n", i, name, col_t, col_r, col_s);
    }
    for (uint32_t i = 0; i < p->n; i++) {
        if (p->weight_count[i] == 0)
            continue;
        fprintf(out, "  morph weights of node %u (mesh %u):", i, m->nodes[i].mesh);
        for (uint32_t w = 0; w < p->weight_count[i]; w++)
            fprintf(out, " %.4g", tidy(p->weights[p->weight_at[i] + w]));
        fputc('\n', out);
    }
    for (uint32_t i = 0; i < mn_clip_pointer_count(p->clip); i++) {
        const mn_pointer_track *tr = mn_clip_pointer(p->clip, i);
        float v[4] = {0};
        if (tr->components > 4)
            continue;
        mn_pointer_track_sample(tr, p->time, v);
        fputs("  pointer ", out);
        cli_put_quoted(out, tr->pointer.text);
        for (uint32_t c = 0; c < tr->components; c++)
            fprintf(out, " %.4g", tidy(v[c]));
        fputc('\n', out);
    }
    for (uint32_t j = 0; j < p->job_count; j++) {
        const prim_job *job = &p->jobs[j];
        mn_status st = place_vertices(p, job, err);
        if (st != MN_OK)
            return st;
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (uint32_t v = 0; v < job->dm->vertex_count; v++)
            for (int c = 0; c < 3; c++) {
                lo[c] = fminf(lo[c], p->positions[3 * v + c]);
                hi[c] = fmaxf(hi[c], p->positions[3 * v + c]);
            }
        fprintf(out, "  node %u mesh %u primitive %u%s%s: %u %s", job->node, job->mesh,
                job->primitive, job->skinned ? " skinned" : "", job->morphed ? " morphed" : "",
                job->dm->vertex_count, cli_noun(job->dm->vertex_count, "vertex", "vertices"));
        if (job->dm->vertex_count > 0) {
            fputs(", world box min ", out);
            put_vec3(out, lo);
            fputs(" max ", out);
            put_vec3(out, hi);
        }
        fputc('\n', out);
    }
    return MN_OK;
}

/* ---- the command -------------------------------------------------------------------- */

typedef struct emitter {
    FILE *out;
    bool json;
    bool first;
} emitter;

static mn_status emit(emitter *e, poser *p, long clip, const float *t, mn_error *err)
{
    mn_status st = e->json ? json_sample(e->out, p, clip, t, e->first, err)
                           : text_sample(e->out, p, clip, t, err);
    e->first = false;
    return st;
}

/* Every sample of one clip at the asked times. */
static mn_status sample_clip(emitter *e, poser *p, uint32_t a, const char *times, mn_error *err)
{
    mn_clip *clip = NULL;
    mn_status st = mn_clip_from_gltf(p->m, a, NULL, &clip, err);
    if (st != MN_OK)
        return st;
    time_list list = {0};
    if (!expand_times(times, &p->m->animations[a], &list)) {
        mn_clip_free(clip);
        free(list.t);
        return out_of_memory(err);
    }
    for (size_t k = 0; k < list.count && st == MN_OK; k++) {
        st = pose_at(p, clip, list.t[k], err);
        if (st == MN_OK)
            st = emit(e, p, (long)a, &list.t[k], err);
    }
    free(list.t);
    mn_clip_free(clip);
    return st;
}

static mn_status run_samples(emitter *e, poser *p, const sample_args *a, uint32_t only_clip,
                             mn_error *err)
{
    const mn_model *m = p->m;
    mn_status st = MN_OK;
    /* A file without animations always has its rest pose: otherwise there would be nothing. */
    if (a->rest || m->animation_count == 0) {
        st = pose_at(p, NULL, 0.0f, err);
        if (st == MN_OK)
            st = emit(e, p, -1, NULL, err);
    }
    for (uint32_t i = 0; i < m->animation_count && st == MN_OK; i++)
        if (only_clip == MN_NONE || only_clip == i)
            st = sample_clip(e, p, i, a->times, err);
    return st;
}

/* Expression heads (cmd_sample_head.c). */
bool mn_cli_is_aosrig(const char *path);
int mn_cli_head_sample(int argc, char **argv);
int mn_cli_head_sample_values(const char *option);
/* Character packages (cmd_character_play.c; the rule in cmd_info_character.c). */
bool mn_cli_is_character(const char *path);
int mn_cli_character_sample(int argc, char **argv);
int mn_cli_character_sample_values(const char *option);

int cli_sample(int argc, char **argv)
{
    /* The one FILE decides; option values (--clip head.aosrig, --table t.json) never do. */
    static const cli_values_fn kinds[] = {sample_values, mn_cli_head_sample_values,
                                          mn_cli_voxel_sample_values,
                                          mn_cli_character_sample_values};
    const char *file = cli_the_file(argc, argv, kinds, CLI_COUNT(kinds));
    if (file && mn_cli_is_aosrig(file))
        return mn_cli_head_sample(argc, argv);
    if (file && mn_cli_is_character(file))
        return mn_cli_character_sample(argc, argv);
    if (file && cli_is_rig_json(file))
        return mn_cli_voxel_sample(argc, argv);
    sample_args a;
    int rc;
    if (!parse_args(argc, argv, &a, &rc))
        return rc;

    mn_model *model = cli_read_model(a.file, CLI_READS_SAMPLE, false);
    if (!model)
        return CLI_EXIT_FAILED;
    mn_error err;
    memset(&err, 0, sizeof err);

    uint32_t only_clip = MN_NONE;
    if (a.clip && strcmp(a.clip, "all") != 0) {
        only_clip = cli_find_clip(model, a.clip);
        if (only_clip == MN_NONE) {
            fprintf(stderr, "marionette: %s: no clip named or numbered '%s'; ", a.file, a.clip);
            list_clips(stderr, model);
            mn_model_free(model);
            return cli_usage_error("sample", "sample: --clip names a clip the file does not have");
        }
    }

    poser p;
    mn_status st = poser_init(&p, model, (vertex_choice)a.vertices, &err);
    if (st == MN_OK) {
        emitter e = {stdout, a.json, true};
        if (a.json)
            json_begin(stdout, a.file, model);
        else
            text_begin(stdout, a.file, model);
        st = run_samples(&e, &p, &a, only_clip, &err);
        if (a.json && st == MN_OK)
            fputs(e.first ? "]\n}\n" : "\n  ]\n}\n", stdout);
    }
    if (st != MN_OK)
        cli_report_error(a.file, &err);
    poser_free(&p);
    mn_model_free(model);
    return st == MN_OK ? CLI_EXIT_OK : CLI_EXIT_FAILED;
}
