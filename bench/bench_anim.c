/*
 * bench_anim — animation playback costs, beside memcpy: clip sampling,
 * local-to-world, the skinning palette, and a crowd of skinned instances.
 *
 * The models are generated here, byte by byte (bench_glb.h), and loaded with
 * mn_gltf_read_memory, so the benchmark needs no asset:
 *   - for sampling, local-to-world and palette: a skin of 64 (and 256)
 *     joints in chains of 8 hanging from each other, one animation with a
 *     LINEAR translation, rotation and scale channel per joint, 300 keys at
 *     30 keys a second (a 10 s clip);
 *   - for the crowd: a 50-joint skin, a 5,000-vertex cylinder (50 rings of
 *     100 vertices, POSITION, NORMAL, four influences a vertex) and a 2 s clip
 *     of 61 keys on every channel.
 *
 * Cases (one JSON line each):
 *   sample_random_no_cursor_<J>    mn_clip_sample at 512 seeded random times
 *   sample_random_cursor_<J>       the same with mn_clip_sample_cursor (which
 *                                  must give the same bits in any order)
 *   sample_forward_cursor_<J>      forward playback at 60 Hz for 20 s (two
 *                                  loops of the clip) with mn_clip_sample_cursor
 *   sample_forward_no_cursor_<J>   the same times with mn_clip_sample
 *   sample_per_track_<case>_<J>    each of the four above on the same clip
 *                                  with every track on its own key times
 *                                  (counts and times differ), as hand-made
 *                                  or per-curve resampled files have;
 *                                  per_track_to_shared = its ns per joint
 *                                  over the shared-times case's, this run
 *   sample_*_cubic_64              the four above for 64 joints whose
 *                                  channels are CUBICSPLINE (tangents: the
 *                                  central difference of the keys)
 *       ns_per_joint is per joint of the pose (its translation, rotation and
 *       scale: three tracks), joint_samples_per_s its inverse; bytes = the
 *       pose written, 40 per joint sample.
 *   local_to_world_<J>             mn_skeleton_local_to_world of a whole
 *                                  sampled pose; bytes = 64 per joint (worlds)
 *   palette_<J>                    mn_skeleton_palette; bytes = 64 per joint
 *   crowd_<T>_threads              mn_instances_update of 1,000 instances
 *                                  (each at its own clip time) by 1/60 s, on a
 *                                  pool of 2 threads and on the calling thread
 *                                  alone; ms_per_frame and ns_per_vertex
 *                                  (5M vertices a frame); bytes = 24 per vertex,
 *                                  the skinned positions and normals written
 *                                  (the rig's rest streams are shared by every
 *                                  instance and stay in cache)
 *   crowd_hidden_<T>_threads       the same crowd hidden: sampling and the
 *                                  placed worlds without deformation;
 *                                  ns_per_instance_joint, the figure
 *                                  comparable with other runtimes' mixers;
 *                                  bytes = 104 per joint (pose, world)
 *   crowd_hidden_direct            the same characters through
 *                                  mn_clip_sample_cursor and
 *                                  mn_skeleton_local_to_world alone, one
 *                                  thread: the hidden crowd's yardstick
 *   crowd_hidden_vs_direct, crowd_visible_vs_memcpy, crowd_thread_speedup
 *                                  the targets as ratios of this run's lines
 *                                  (at most 1.25, at least 1.0, at least 1.7);
 *                                  the visible line adds the compute floor
 *                                  (the frame's work with its vertices in
 *                                  cache: one instance updated 1,000 times,
 *                                  halved for two threads) and the frame with
 *                                  every store through the cache (the A/B of
 *                                  the crowd's streaming stores)
 *   crowd_posed_10000_2_threads    10,000 hidden 50-joint characters, no mesh,
 *                                  on 2 threads (target 4 ms a frame), beside
 *                                  its in-cache floor (10 × a frame of the
 *                                  first 1,000) and memcpy of the bytes it
 *                                  writes; checked against fresh instances
 * Every timed line carries memcpy of the same bytes measured in the same run
 * (bench.h's throughput fields), ns per joint or vertex beside the memcpy
 * time for the same count, and a `reference` string with the published
 * figure of another runtime to compare with (not measured here).
 *
 * Each case warms up, then takes the best (and median) of `runs`
 * repetitions, and is verified: sampled poses equal (bit for bit) poses
 * computed once before timing, and those agree with the generator's key
 * values (exact at key times, the lerp/nlerp midway); worlds and palettes
 * equal those computed once and agree with a double-precision recomputation
 * from the pose; crowd instances (their mixer worlds, and their skinned
 * vertices when visible) equal, bit for bit, a fresh instance started at
 * the same clip time.  A case whose check fails prints
 * "matches_reference": false and the benchmark exits 1.  The whole run takes
 * about 10 s on two cores.
 *
 * Beside the default build: bench_anim_native is this file and the whole
 * library compiled with -march=native (bench/CMakeLists.txt, where the
 * compiler has the flag).  When it sits beside bench_anim, bench_anim runs
 * it after its own cases for the sampling cases alone and prints one line a
 * sampling case, sample_..._vs_native: ns_per_joint (this run's),
 * native_ns_per_joint and default_to_native, their ratio.  The library
 * dispatches the same kernels in both; the ratio shows what the baseline
 * build loses around them (an AVX/SSE transition penalty, core/simd.h,
 * built without vzeroupper: 1.6 to 2.4).  MN_BENCH_NATIVE=0 skips it.
 *
 * Usage: bench_anim [runs] [--sampling | --crowd]   (default 15, at most 64;
 *        --sampling: the sampling cases alone; --crowd: the crowd cases alone)
 */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"
#include "bench_glb.h"

#include <marionette/clip.h>
#include <marionette/gltf.h>
#include <marionette/instance.h>
#include <marionette/mixer.h>
#include <marionette/model.h>
#include <marionette/pose.h>
#include <marionette/skeleton.h>

#include <pthread.h>

#define DEFAULT_RUNS 15
#define WARMUP_RUNS 2
#define KEYS_PER_SECOND 30.0
#define RANDOM_FRAMES 512u
#define FORWARD_FRAMES 1200u          /* 20 s at 60 Hz: two loops of the 10 s clip */
#define TRANSFORM_JOINTS_PER_RUN 524288u  /* joints a local-to-world or palette run handles */
#define CROWD_INSTANCES 1000u
#define CROWD_CHECKED 16u             /* instances compared with a fresh one after a crowd case */
#define MAX_SAMPLE_CASES 32u          /* sampling cases a run prints (24 now) */

/* This run's sampling figures, for the lines beside bench_anim_native's. */
static struct {
    char name[64];
    double ns_per_joint;
} sample_figures[MAX_SAMPLE_CASES];
static unsigned sample_figure_count;
static bool sampling_only;            /* --sampling: no local-to-world, palette or crowd */

static const char *const REF_FORWARD =
    "ozz-animation 0.16, forward playback: 12.8 ns/joint (published; not measured here)";
static const char *const REF_RANDOM =
    "ozz-animation 0.16, random times: 109 ns/joint, 40 with its keyframe index "
    "(published; not measured here)";
static const char *const REF_LTW =
    "ozz-animation 0.16, local-to-model: 5.9 ns/joint (published; not measured here)";
static const char *const REF_MIXER =
    "three.js AnimationMixer: about 180 ns/joint (published; not measured here)";

/* xorshift32: the same times and offsets on every run and machine. */
static uint32_t rng_state = 0x2545f491u;
static float frand(float lo, float hi)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return lo + (hi - lo) * (float)(rng_state >> 8) * (1.0f / 16777216.0f);
}

/* ---- the generated model -------------------------------------------------------- */

typedef struct gen_spec {
    uint32_t joints;
    uint32_t keys;
    uint32_t rings, segments;   /* the mesh: rings × segments vertices; 0 rings = no mesh */
    bool cubic;                 /* CUBICSPLINE samplers (tangents from key_tangent) instead of LINEAR */
} gen_spec;

/*
 * Joints come in chains of 8 (a spine, limbs, fingers); the first joint of
 * chain c > 0 hangs from the middle of chain (c - 1) / 2, so the tree
 * branches as a character's does.  parent(j) < j always.
 */
static int32_t joint_parent(uint32_t j)
{
    if (j == 0)
        return -1;
    if (j % 8u != 0)
        return (int32_t)j - 1;
    return (int32_t)(8u * ((j / 8u - 1u) / 2u) + 4u);
}

/* Rest translation of joint j relative to its parent (rest rotation identity, scale 1). */
static void joint_rest_translation(uint32_t j, double out[3])
{
    out[0] = (j > 0 && j % 8u == 0) ? 0.05 : 0.0;
    out[1] = j > 0 ? 0.1 : 0.0;
    out[2] = 0.0;
}

static float key_time(uint32_t k)
{
    return (float)(k / KEYS_PER_SECOND);
}

/* Translation (0), rotation (1) or scale (2) of joint j at key k: every key comes from here. */
static void key_value(uint32_t j, uint32_t k, int path, float out[4])
{
    double phase = 0.21 * k + 0.37 * j;
    if (path == 0) {
        double rest[3];
        joint_rest_translation(j, rest);
        out[0] = (float)(rest[0] + 0.01 * sin(phase));
        out[1] = (float)rest[1];
        out[2] = (float)(rest[2] + 0.01 * cos(phase));
    } else if (path == 1) {
        double ax = sin(j + 1.0), ay = cos(j + 1.0), az = 0.5;
        double len = sqrt(ax * ax + ay * ay + az * az);
        double half = 0.2 * sin(phase);    /* a swing of up to ±0.4 rad */
        out[0] = (float)(ax / len * sin(half));
        out[1] = (float)(ay / len * sin(half));
        out[2] = (float)(az / len * sin(half));
        out[3] = (float)cos(half);
    } else {
        out[0] = out[1] = out[2] = (float)(1.0 + 0.03 * sin(phase + 1.0));
    }
}

/*
 * The tangent (per second) of channel `path` of joint j at key k: the
 * central difference of key_value, which is defined at every k.
 */
static void key_tangent(uint32_t j, uint32_t k, int path, float out[4])
{
    float before[4] = {0}, after[4] = {0};
    key_value(j, k + 1u, path, after);
    key_value(j, k > 0 ? k - 1u : 0u, path, before);
    double span = (k > 0 ? 2.0 : 1.0) / KEYS_PER_SECOND;
    for (int i = 0; i < 4; i++)
        out[i] = (float)(((double)after[i] - (double)before[i]) / span);
}

/* Elements a key holds: 1, or 3 for CUBICSPLINE (in-tangent, value, out-tangent). */
static uint32_t elements_per_key(const gen_spec *s)
{
    return s->cubic ? 3u : 1u;
}

/* Buffer views, in BIN order; the mesh ones are empty when there is no mesh. */
enum { V_POSITION, V_NORMAL, V_JOINTS, V_WEIGHTS, V_INDICES, V_IBM, V_TIMES, V_VALUES, V_COUNT };

typedef struct gen_layout {
    uint32_t vertices, indices;
    size_t offset[V_COUNT], size[V_COUNT], total;
    int index[V_COUNT];         /* bufferView number in the JSON: empty views are left out */
    double (*rest_world)[3];    /* rest world translation of each joint */
} gen_layout;

static bool gen_layout_make(const gen_spec *s, gen_layout *l)
{
    l->vertices = s->rings * s->segments;
    l->indices = s->rings > 1 ? (s->rings - 1u) * s->segments * 6u : 0u;
    l->size[V_POSITION] = l->size[V_NORMAL] = (size_t)l->vertices * 12u;
    l->size[V_JOINTS] = (size_t)l->vertices * 8u;
    l->size[V_WEIGHTS] = (size_t)l->vertices * 16u;
    l->size[V_INDICES] = (size_t)l->indices * 4u;
    l->size[V_IBM] = (size_t)s->joints * 64u;
    l->size[V_TIMES] = (size_t)s->keys * 4u;
    l->size[V_VALUES] = (size_t)s->joints * s->keys * 40u * elements_per_key(s);   /* T 12, R 16, S 12 */
    l->total = 0;
    int views = 0;
    for (int v = 0; v < V_COUNT; v++) {
        l->offset[v] = l->total;
        l->total += l->size[v];
        l->index[v] = l->size[v] > 0 ? views++ : -1;
    }
    l->rest_world = malloc(s->joints * sizeof *l->rest_world);
    if (l->rest_world == NULL)
        return false;
    for (uint32_t j = 0; j < s->joints; j++) {
        double t[3];
        joint_rest_translation(j, t);
        int32_t p = joint_parent(j);
        for (int i = 0; i < 3; i++)
            l->rest_world[j][i] = t[i] + (p >= 0 ? l->rest_world[p][i] : 0.0);
    }
    return true;
}

/* Offset of joint j's T, R or S values inside V_VALUES. */
static size_t values_offset(const gen_spec *s, uint32_t j, int path)
{
    static const size_t within[3] = {0, 12, 28};
    return ((size_t)j * s->keys * 40u + within[path] * s->keys) * elements_per_key(s);
}

/* Vertex v of the cylinder: ring r = v / segments climbs the skeleton. */
static void vertex_of(const gen_spec *s, uint32_t v, float pos[3], float nrm[3], uint16_t joints[4],
                      float weights[4])
{
    uint32_t r = v / s->segments, seg = v % s->segments;
    double a = 6.283185307179586 * seg / s->segments;
    pos[0] = (float)(0.2 * cos(a));
    pos[1] = (float)(0.02 * r);
    pos[2] = (float)(0.2 * sin(a));
    nrm[0] = (float)cos(a);
    nrm[1] = 0.0f;
    nrm[2] = (float)sin(a);
    uint32_t j = r * s->joints / s->rings;
    joints[0] = (uint16_t)j;
    joints[1] = (uint16_t)((j + 1u) % s->joints);
    joints[2] = (uint16_t)((j + 2u) % s->joints);
    joints[3] = (uint16_t)((j + s->joints - 1u) % s->joints);
    weights[0] = 0.5f, weights[1] = 0.25f, weights[2] = 0.125f, weights[3] = 0.125f;
}

static void write_bin(const gen_spec *s, const gen_layout *l, uint8_t *bin)
{
    for (uint32_t v = 0; v < l->vertices; v++) {
        float p[3], n[3], w[4];
        uint16_t jt[4];
        vertex_of(s, v, p, n, jt, w);
        for (unsigned i = 0; i < 3; i++) {
            glb_put_f32(bin + l->offset[V_POSITION] + v * 12u + 4u * i, p[i]);
            glb_put_f32(bin + l->offset[V_NORMAL] + v * 12u + 4u * i, n[i]);
        }
        for (unsigned i = 0; i < 4; i++) {
            glb_put_u16(bin + l->offset[V_JOINTS] + v * 8u + 2u * i, jt[i]);
            glb_put_f32(bin + l->offset[V_WEIGHTS] + v * 16u + 4u * i, w[i]);
        }
    }
    for (uint32_t q = 0; q < l->indices / 6u; q++) {   /* one quad between ring r and r + 1 */
        uint32_t r = q / s->segments, seg = q % s->segments, next = (seg + 1u) % s->segments;
        uint32_t a = r * s->segments + seg, b = r * s->segments + next;
        uint32_t c = a + s->segments, d = b + s->segments;
        const uint32_t tri[6] = {a, b, d, a, d, c};
        for (unsigned i = 0; i < 6; i++)
            glb_put_u32(bin + l->offset[V_INDICES] + ((size_t)q * 6u + i) * 4u, tri[i]);
    }
    /* Rest locals are translations only: the inverse bind is minus the rest world translation. */
    for (uint32_t j = 0; j < s->joints; j++) {
        float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        for (int i = 0; i < 3; i++)
            m[12 + i] = (float)-l->rest_world[j][i];
        for (unsigned i = 0; i < 16; i++)
            glb_put_f32(bin + l->offset[V_IBM] + j * 64u + 4u * i, m[i]);
    }
    for (uint32_t k = 0; k < s->keys; k++)
        glb_put_f32(bin + l->offset[V_TIMES] + k * 4u, key_time(k));
    static const uint32_t width[3] = {3, 4, 3};
    for (uint32_t j = 0; j < s->joints; j++)
        for (int path = 0; path < 3; path++)
            for (uint32_t k = 0; k < s->keys; k++) {
                float v[3][4];   /* the element(s) of key k, in file order */
                if (s->cubic) {
                    key_tangent(j, k, path, v[0]);
                    key_value(j, k, path, v[1]);
                    memcpy(v[2], v[0], sizeof v[0]);
                } else {
                    key_value(j, k, path, v[0]);
                }
                uint32_t per_key = elements_per_key(s);
                uint8_t *dst = bin + l->offset[V_VALUES] + values_offset(s, j, path);
                for (uint32_t e = 0; e < per_key; e++)
                    for (uint32_t i = 0; i < width[path]; i++)
                        glb_put_f32(dst + ((k * per_key + e) * width[path] + i) * 4u, v[e][i]);
            }
}

/*
 * Nodes: with a mesh, node 0 "body" draws it with skin 0 and joint j is node
 * j + 1; without, joint j is node j.  Accessors: the five mesh ones (when
 * there is a mesh), the inverse binds, the shared key times, then T, R, S
 * values per joint.
 */
static void write_json(const gen_spec *s, const gen_layout *l, glb_text *t)
{
    bool mesh = l->vertices > 0;
    uint32_t jb = mesh ? 1u : 0u;
    uint32_t acc_ibm = mesh ? 5u : 0u, acc_times = acc_ibm + 1u, acc_values = acc_times + 1u;
    static const char *const path_name[3] = {"translation", "rotation", "scale"};

    glb_text_append(t, "{\"asset\":{\"version\":\"2.0\",\"generator\":\"marionette bench_anim\"},"
                       "\"scene\":0,\"scenes\":[{\"nodes\":[%s%u]}],\"nodes\":[",
                    mesh ? "0," : "", jb);
    if (mesh)
        glb_text_append(t, "{\"name\":\"body\",\"mesh\":0,\"skin\":0},");
    for (uint32_t j = 0; j < s->joints; j++) {
        double tr[3];
        joint_rest_translation(j, tr);
        glb_text_append(t, "%s{\"name\":\"joint%u\",\"translation\":[%.9g,%.9g,%.9g]", j ? "," : "",
                        (unsigned)j, tr[0], tr[1], tr[2]);
        bool any = false;
        for (uint32_t c = j + 1; c < s->joints; c++)
            if (joint_parent(c) == (int32_t)j) {
                glb_text_append(t, "%s%u", any ? "," : ",\"children\":[", (unsigned)(c + jb));
                any = true;
            }
        glb_text_append(t, "%s}", any ? "]" : "");
    }
    glb_text_append(t, "],");
    if (mesh)
        glb_text_append(t, "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,"
                           "\"JOINTS_0\":2,\"WEIGHTS_0\":3},\"indices\":4}]}],");
    glb_text_append(t, "\"skins\":[{\"inverseBindMatrices\":%u,\"joints\":[", (unsigned)acc_ibm);
    for (uint32_t j = 0; j < s->joints; j++)
        glb_text_append(t, "%s%u", j ? "," : "", (unsigned)(j + jb));
    glb_text_append(t, "]}],\"animations\":[{\"name\":\"sway\",\"channels\":[");
    for (uint32_t c = 0; c < 3u * s->joints; c++)
        glb_text_append(t, "%s{\"sampler\":%u,\"target\":{\"node\":%u,\"path\":\"%s\"}}", c ? "," : "",
                        (unsigned)c, (unsigned)(c / 3u + jb), path_name[c % 3u]);
    glb_text_append(t, "],\"samplers\":[");
    for (uint32_t c = 0; c < 3u * s->joints; c++)
        glb_text_append(t, "%s{\"input\":%u,\"output\":%u,\"interpolation\":\"%s\"}", c ? "," : "",
                        (unsigned)acc_times, (unsigned)(acc_values + c), s->cubic ? "CUBICSPLINE" : "LINEAR");
    glb_text_append(t, "]}],\"accessors\":[");
    if (mesh) {
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (uint32_t v = 0; v < l->vertices; v++) {
            float p[3], n[3], w[4];
            uint16_t jt[4];
            vertex_of(s, v, p, n, jt, w);
            for (int i = 0; i < 3; i++)
                lo[i] = fminf(lo[i], p[i]), hi[i] = fmaxf(hi[i], p[i]);
        }
        glb_text_append(t, "{\"bufferView\":%d,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\","
                           "\"min\":[%.9g,%.9g,%.9g],\"max\":[%.9g,%.9g,%.9g]},",
                        l->index[V_POSITION], (unsigned)l->vertices, (double)lo[0], (double)lo[1],
                        (double)lo[2], (double)hi[0], (double)hi[1], (double)hi[2]);
        glb_text_append(t, "{\"bufferView\":%d,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\"},",
                        l->index[V_NORMAL], (unsigned)l->vertices);
        glb_text_append(t, "{\"bufferView\":%d,\"componentType\":5123,\"count\":%u,\"type\":\"VEC4\"},",
                        l->index[V_JOINTS], (unsigned)l->vertices);
        glb_text_append(t, "{\"bufferView\":%d,\"componentType\":5126,\"count\":%u,\"type\":\"VEC4\"},",
                        l->index[V_WEIGHTS], (unsigned)l->vertices);
        glb_text_append(t, "{\"bufferView\":%d,\"componentType\":5125,\"count\":%u,\"type\":\"SCALAR\"},",
                        l->index[V_INDICES], (unsigned)l->indices);
    }
    glb_text_append(t, "{\"bufferView\":%d,\"componentType\":5126,\"count\":%u,\"type\":\"MAT4\"}",
                    l->index[V_IBM], (unsigned)s->joints);
    glb_text_append(t, ",{\"bufferView\":%d,\"componentType\":5126,\"count\":%u,\"type\":\"SCALAR\","
                       "\"min\":[%.9g],\"max\":[%.9g]}",
                    l->index[V_TIMES], (unsigned)s->keys, (double)key_time(0),
                    (double)key_time(s->keys - 1u));
    for (uint32_t c = 0; c < 3u * s->joints; c++)
        glb_text_append(t, ",{\"bufferView\":%d,\"byteOffset\":%zu,\"componentType\":5126,\"count\":%u,"
                           "\"type\":\"%s\"}",
                        l->index[V_VALUES], values_offset(s, c / 3u, (int)(c % 3u)),
                        (unsigned)(s->keys * elements_per_key(s)), c % 3u == 1u ? "VEC4" : "VEC3");
    glb_text_append(t, "],\"bufferViews\":[");
    for (int v = 0; v < V_COUNT; v++)
        if (l->index[v] >= 0)   /* glTF forbids empty views: a mesh-less model has no mesh ones */
            glb_text_append(t, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}",
                            l->index[v] ? "," : "", l->offset[v], l->size[v]);
    glb_text_append(t, "],\"buffers\":[{\"byteLength\":%zu}]}", l->total);
}

/* A loaded model and what the library builds from it. */
typedef struct anim_model {
    gen_spec spec;
    uint8_t *glb;
    size_t glb_size;
    mn_model *model;
    mn_skeleton *skeleton;
    mn_clip *clip;               /* targets: skeleton joints */
    double (*rest_world)[3];
} anim_model;

static void anim_model_free(anim_model *m)
{
    mn_clip_free(m->clip);
    mn_skeleton_free(m->skeleton);
    mn_model_free(m->model);
    free(m->glb);
    free(m->rest_world);
    memset(m, 0, sizeof *m);
}

static bool report_error(const char *what, mn_status st, const mn_error *err)
{
    fprintf(stderr, "bench_anim: %s: %s: %s\n", what, mn_status_name(st), err->message);
    return false;
}

static bool anim_model_load(anim_model *m, gen_spec spec)
{
    memset(m, 0, sizeof *m);
    m->spec = spec;
    gen_layout l;
    if (!gen_layout_make(&spec, &l))
        return false;
    m->rest_world = l.rest_world;
    glb_text json;
    glb_text_init(&json, 1u << 16);
    write_json(&spec, &l, &json);
    uint8_t *bin = NULL;
    m->glb = glb_begin(&json, l.total, &bin, &m->glb_size);
    glb_text_free(&json);
    if (m->glb == NULL)
        return false;
    write_bin(&spec, &l, bin);

    mn_error err;
    mn_status st = mn_gltf_read_memory(m->glb, m->glb_size, NULL, &m->model, &err);
    if (st != MN_OK)
        return report_error("reading the generated GLB", st, &err);
    st = mn_skeleton_from_skin(m->model, 0, NULL, &m->skeleton, &err);
    if (st != MN_OK)
        return report_error("mn_skeleton_from_skin", st, &err);
    if (m->skeleton->joint_count != spec.joints) {
        fprintf(stderr, "bench_anim: skeleton has %u joints, expected %u\n",
                (unsigned)m->skeleton->joint_count, (unsigned)spec.joints);
        return false;
    }
    st = mn_clip_from_gltf_skeleton(m->model, 0, m->skeleton, NULL, &m->clip, &err);
    if (st != MN_OK)
        return report_error("mn_clip_from_gltf_skeleton", st, &err);
    if (mn_clip_track_count(m->clip) != 3u * spec.joints) {
        fprintf(stderr, "bench_anim: clip has %u tracks, expected %u\n",
                (unsigned)mn_clip_track_count(m->clip), (unsigned)(3u * spec.joints));
        return false;
    }
    return true;
}

/* ---- poses, compared ---------------------------------------------------------------- */

#define POSE_FLOATS 10u

/* Per-track key times should cost at most this many times shared ones. */
#define PER_TRACK_TARGET 2.0   /* per joint: 3 translation, 4 rotation, 3 scale */

static void pose_store(const mn_pose *p, float *dst)
{
    uint32_t n = p->joint_count;
    memcpy(dst, p->translations, 3u * n * sizeof(float));
    memcpy(dst + 3u * n, p->rotations, 4u * n * sizeof(float));
    memcpy(dst + 7u * n, p->scales, 3u * n * sizeof(float));
}

static void pose_load(mn_pose *p, const float *src)
{
    uint32_t n = p->joint_count;
    memcpy(p->translations, src, 3u * n * sizeof(float));
    memcpy(p->rotations, src + 3u * n, 4u * n * sizeof(float));
    memcpy(p->scales, src + 7u * n, 3u * n * sizeof(float));
}

static bool pose_equals(const mn_pose *p, const float *ref)
{
    uint32_t n = p->joint_count;
    return memcmp(p->translations, ref, 3u * n * sizeof(float)) == 0 &&
           memcmp(p->rotations, ref + 3u * n, 4u * n * sizeof(float)) == 0 &&
           memcmp(p->scales, ref + 7u * n, 3u * n * sizeof(float)) == 0;
}

static bool near(double a, double b, double tol)
{
    return isfinite(a) && fabs(a - b) <= tol * fmax(1.0, fabs(b));
}

/*
 * The sampled pose against the generator: at key k every value is the key's
 * (rotations renormalised: 1e-6), midway between keys k and k+1 the lerp of
 * translation and scale and the normalised sum of the rotations (which is
 * what slerp gives at one half).  Joint j of the skeleton is node
 * node_of_joint[j], i.e. generator joint node - jb.
 */
static bool pose_matches_keys(const anim_model *m, const mn_pose *pose, uint32_t k, bool midway)
{
    uint32_t jb = m->spec.rings > 0 ? 1u : 0u;
    for (uint32_t j = 0; j < pose->joint_count; j++) {
        uint32_t g = m->skeleton->node_of_joint[j] - jb;
        const float *got[3] = {pose->translations + 3u * j, pose->rotations + 4u * j,
                               pose->scales + 3u * j};
        for (int path = 0; path < 3; path++) {
            float a[4], b[4];
            double want[4], len = 0.0;
            int n = path == 1 ? 4 : 3;
            key_value(g, k, path, a);
            key_value(g, midway ? k + 1u : k, path, b);
            for (int i = 0; i < n; i++) {
                want[i] = 0.5 * ((double)a[i] + (double)b[i]);
                len += want[i] * want[i];
            }
            for (int i = 0; i < n; i++)
                if (!near(got[path][i], path == 1 ? want[i] / sqrt(len) : want[i], 2e-6))
                    return false;
        }
    }
    return true;
}

/* ---- the reference for worlds and palettes, in double ------------------------------ */

/* Column-major T·R·S of a pose joint. */
static void trs_matrix(const mn_pose *p, uint32_t j, double m[16])
{
    const float *t = p->translations + 3u * j, *q = p->rotations + 4u * j, *s = p->scales + 3u * j;
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                      {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                      {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    for (int c = 0; c < 3; c++) {
        for (int row = 0; row < 3; row++)
            m[c * 4 + row] = r[row][c] * s[c];
        m[c * 4 + 3] = 0.0;
    }
    m[12] = t[0], m[13] = t[1], m[14] = t[2], m[15] = 1.0;
}

static void mat_mul(double out[16], const double a[16], const double b[16])
{
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            double sum = 0.0;
            for (int k = 0; k < 4; k++)
                sum += a[k * 4 + row] * b[c * 4 + k];
            out[c * 4 + row] = sum;
        }
}

/* worlds (float, from the library) against parent × T·R·S recomputed in double. */
static bool worlds_match_pose(const mn_skeleton *sk, const mn_pose *pose, const float *worlds)
{
    double *ref = malloc((size_t)sk->joint_count * 16u * sizeof(double));
    bool ok = ref != NULL;
    for (uint32_t j = 0; ok && j < sk->joint_count; j++) {
        double local[16];
        trs_matrix(pose, j, local);
        if (sk->parents[j] >= 0)
            mat_mul(ref + 16u * j, ref + 16u * (uint32_t)sk->parents[j], local);
        else
            memcpy(ref + 16u * j, local, sizeof local);
        for (int i = 0; i < 16 && ok; i++)
            ok = near(worlds[16u * j + (unsigned)i], ref[16u * j + (unsigned)i], 1e-5);
    }
    free(ref);
    return ok;
}

/* palette[i] against worlds[joint_of_skin_joint[i]] × inverse_bind[i] in double. */
static bool palette_matches_worlds(const mn_skeleton *sk, const float *worlds, const float *palette)
{
    for (uint32_t i = 0; i < sk->skin_joint_count; i++) {
        double a[16], b[16], m[16];
        for (int e = 0; e < 16; e++) {
            a[e] = worlds[16u * sk->joint_of_skin_joint[i] + (unsigned)e];
            b[e] = sk->inverse_bind[16u * i + (unsigned)e];
        }
        mat_mul(m, a, b);
        for (int e = 0; e < 16; e++)
            if (!near(palette[16u * i + (unsigned)e], m[e], 1e-5))
                return false;
    }
    return true;
}

/* ---- timing --------------------------------------------------------------------------- */

/* Warm up (caches, branch predictors, lazily mapped pages), then best of `runs`. */
static bench_timing timed(int runs, bench_fn body, void *ctx)
{
    for (int i = 0; i < WARMUP_RUNS; i++)
        if (!body(ctx))
            return (bench_timing){false, 0, 0.0, 0.0};
    return bench_run(runs, body, NULL, ctx);
}

/* The fields of a per-joint line: ns per joint, its rate, and memcpy of the same bytes. */
static void per_item_fields(bench_line *line, const char *unit, double count, size_t bytes,
                            bench_timing t, bench_timing mt)
{
    char key[64];
    snprintf(key, sizeof key, "ns_per_%s", unit);
    bench_line_num(line, key, t.best_ms * 1e6 / count);
    snprintf(key, sizeof key, "median_ns_per_%s", unit);
    bench_line_num(line, key, t.median_ms * 1e6 / count);
    snprintf(key, sizeof key, "memcpy_ns_per_%s", unit);
    bench_line_num(line, key, mt.best_ms * 1e6 / count);
    bench_line_throughput(line, bytes, t, mt);
}

/* ---- sampling --------------------------------------------------------------------------- */

typedef struct sample_ctx {
    const mn_clip *clip;
    mn_pose *pose;
    const float *times;
    uint32_t frames;
    mn_clip_cursor *cursor;      /* NULL: mn_clip_sample */
} sample_ctx;

static bool sample_body(void *ctx)
{
    sample_ctx *c = ctx;
    bool ok = true;
    if (c->cursor != NULL)
        for (uint32_t i = 0; i < c->frames; i++)
            ok &= mn_clip_sample_cursor(c->clip, c->times[i], c->cursor, c->pose, NULL) == MN_OK;
    else
        for (uint32_t i = 0; i < c->frames; i++)
            ok &= mn_clip_sample(c->clip, c->times[i], c->pose, NULL) == MN_OK;
    return ok;
}

/* Every frame of ctx again, each pose compared bit for bit with its reference. */
static bool sample_verify(sample_ctx *c, const float *refs)
{
    size_t stride = (size_t)POSE_FLOATS * c->pose->joint_count;
    for (uint32_t i = 0; i < c->frames; i++) {
        mn_status st = c->cursor != NULL
                           ? mn_clip_sample_cursor(c->clip, c->times[i], c->cursor, c->pose, NULL)
                           : mn_clip_sample(c->clip, c->times[i], c->pose, NULL);
        if (st != MN_OK || !pose_equals(c->pose, refs + i * stride))
            return false;
    }
    return true;
}

/* Reference poses, one per time, by mn_clip_sample; all finite. */
static float *reference_poses(const anim_model *m, mn_pose *pose, const float *times,
                              uint32_t frames)
{
    size_t stride = (size_t)POSE_FLOATS * pose->joint_count;
    float *refs = malloc(frames * stride * sizeof(float));
    if (refs == NULL)
        return NULL;
    for (uint32_t i = 0; i < frames; i++) {
        if (mn_clip_sample(m->clip, times[i], pose, NULL) != MN_OK) {
            free(refs);
            return NULL;
        }
        pose_store(pose, refs + i * stride);
        for (size_t e = 0; e < stride; e++)
            if (!isfinite(refs[i * stride + e])) {
                free(refs);
                return NULL;
            }
    }
    return refs;
}

/*
 * One sampling case.  per_track: the clip's tracks each have their own key
 * times (the line is named sample_per_track_...) and the line carries
 * per_track_to_shared, its ns per joint over *shared_ns (the shared-times
 * case of the same times and cursor, this run); otherwise *shared_ns is set.
 */
static bool sample_case(const anim_model *m, mn_pose *pose, bool random, const float *times,
                        uint32_t frames, const float *refs, bool cursor, int runs, bool per_track,
                        double *shared_ns)
{
    void *storage = malloc(mn_clip_cursor_storage_size(m->clip) + 4u);
    mn_clip_cursor cur;
    mn_clip_cursor_init(&cur, m->clip, storage);
    sample_ctx ctx = {m->clip, pose, times, frames, cursor ? &cur : NULL};
    bool ok = storage != NULL;
    bench_timing t = ok ? timed(runs, sample_body, &ctx) : (bench_timing){false, 0, 0.0, 0.0};
    size_t stride = (size_t)POSE_FLOATS * pose->joint_count;
    /* the timed loop's last pose, then every frame replayed (the cursor carries on) */
    ok = ok && t.ok && pose_equals(pose, refs + (frames - 1u) * stride) &&
         sample_verify(&ctx, refs);
    free(storage);

    double samples = (double)frames * pose->joint_count;
    size_t bytes = (size_t)samples * POSE_FLOATS * sizeof(float);
    bench_timing mt = bench_memcpy_ms(bytes, runs);
    char name[64];
    snprintf(name, sizeof name, "sample_%s%s_%s_%s%u", per_track ? "per_track_" : "",
             random ? "random" : "forward", cursor ? "cursor" : "no_cursor",
             m->spec.cubic ? "cubic_" : "", (unsigned)pose->joint_count);
    bench_line line;
    bench_line_begin(&line, "anim", name);
    bench_line_u64(&line, "joints", pose->joint_count);
    bench_line_u64(&line, "tracks", mn_clip_track_count(m->clip));
    bench_line_u64(&line, "keys_per_track", m->spec.keys);
    bench_line_str(&line, "interpolation", m->spec.cubic ? "CUBICSPLINE" : "LINEAR");
    bench_line_u64(&line, "frames", frames);
    bench_line_str(&line, "times", random ? "random" : "forward 60 Hz");
    bench_line_bool(&line, "cursor", cursor);
    bench_line_str(&line, "key_times", per_track ? "per track" : "shared");
    bench_line_num(&line, "mjoint_samples_per_s", samples / (t.best_ms * 1e3));
    per_item_fields(&line, "joint", samples, bytes, t, mt);
    double ns = t.best_ms * 1e6 / samples;
    if (per_track) {
        bench_line_num(&line, "per_track_to_shared", ns / *shared_ns);
        bench_line_num(&line, "target_ratio", PER_TRACK_TARGET);
        bench_line_bool(&line, "within_target", ns / *shared_ns <= PER_TRACK_TARGET);
    } else {
        *shared_ns = ns;
    }
    bench_line_bool(&line, "matches_reference", ok);
    bench_line_str(&line, "reference", random ? REF_RANDOM : REF_FORWARD);
    if (sample_figure_count < MAX_SAMPLE_CASES) {
        snprintf(sample_figures[sample_figure_count].name, sizeof sample_figures[0].name, "%s", name);
        sample_figures[sample_figure_count++].ns_per_joint = t.best_ms * 1e6 / samples;
    }
    bench_line_print(&line);
    return ok;
}

/* ---- local-to-world and palette ---------------------------------------------------------- */

typedef struct transform_ctx {
    const mn_skeleton *sk;
    const mn_pose *pose;
    float *worlds, *palette;
    uint32_t reps;
} transform_ctx;

static bool ltw_body(void *ctx)
{
    transform_ctx *c = ctx;
    for (uint32_t i = 0; i < c->reps; i++)
        mn_skeleton_local_to_world(c->sk, c->pose, 0, c->worlds);
    return true;
}

static bool palette_body(void *ctx)
{
    transform_ctx *c = ctx;
    for (uint32_t i = 0; i < c->reps; i++)
        mn_skeleton_palette(c->sk, c->worlds, c->palette);
    return true;
}

static void transform_line(const char *name, uint32_t joints, uint32_t reps, bench_timing t,
                           bool ok, const char *reference, int runs)
{
    double count = (double)joints * reps;
    size_t bytes = (size_t)count * 64u;
    bench_timing mt = bench_memcpy_ms(bytes, runs);
    bench_line line;
    bench_line_begin(&line, "anim", name);
    bench_line_u64(&line, "joints", joints);
    bench_line_u64(&line, "calls_per_run", reps);
    bench_line_num(&line, "mjoints_per_s", count / (t.best_ms * 1e3));
    per_item_fields(&line, "joint", count, bytes, t, mt);
    bench_line_bool(&line, "matches_reference", ok);
    if (reference != NULL)
        bench_line_str(&line, "reference", reference);
    bench_line_print(&line);
}

/* At rest every palette matrix is the identity: the inverse binds invert the rest worlds. */
static bool rest_palette_is_identity(const anim_model *m, mn_pose *pose, float *worlds,
                                     float *palette)
{
    const mn_skeleton *sk = m->skeleton;
    mn_pose_copy(pose, &sk->rest);
    mn_skeleton_local_to_world(sk, pose, 0, worlds);
    mn_skeleton_palette(sk, worlds, palette);
    for (uint32_t i = 0; i < sk->skin_joint_count; i++)
        for (int e = 0; e < 16; e++)
            if (!near(palette[16u * i + (unsigned)e], e % 5 == 0 ? 1.0 : 0.0, 1e-5))
                return false;
    return worlds_match_pose(sk, pose, worlds);
}

static bool transform_cases(const anim_model *m, mn_pose *pose, const float *sampled, int runs)
{
    const mn_skeleton *sk = m->skeleton;
    uint32_t n = sk->joint_count;
    float *worlds = aligned_alloc(64, (size_t)n * 64u);
    float *palette = aligned_alloc(64, (size_t)sk->skin_joint_count * 64u);
    float *ref_worlds = malloc((size_t)n * 64u);
    float *ref_palette = malloc((size_t)sk->skin_joint_count * 64u);
    bool ok = worlds && palette && ref_worlds && ref_palette &&
              rest_palette_is_identity(m, pose, worlds, palette);

    /* a sampled (animated) pose: the references once, checked in double */
    pose_load(pose, sampled);
    mn_skeleton_local_to_world(sk, pose, 0, ref_worlds);
    mn_skeleton_palette(sk, ref_worlds, ref_palette);
    ok = ok && worlds_match_pose(sk, pose, ref_worlds) &&
         palette_matches_worlds(sk, ref_worlds, ref_palette);

    transform_ctx ctx = {sk, pose, worlds, palette, TRANSFORM_JOINTS_PER_RUN / n};
    char name[64];
    bench_timing t = timed(runs, ltw_body, &ctx);
    bool right = ok && t.ok && memcmp(worlds, ref_worlds, (size_t)n * 64u) == 0;
    snprintf(name, sizeof name, "local_to_world_%u", (unsigned)n);
    transform_line(name, n, ctx.reps, t, right, REF_LTW, runs);
    ok = right;

    t = timed(runs, palette_body, &ctx);
    right = ok && t.ok && memcmp(palette, ref_palette, (size_t)sk->skin_joint_count * 64u) == 0;
    snprintf(name, sizeof name, "palette_%u", (unsigned)n);
    transform_line(name, n, ctx.reps, t, right, NULL, runs);
    ok = right;

    free(worlds), free(palette), free(ref_worlds), free(ref_palette);
    return ok;
}

/* Sampling, local-to-world and palette for one joint count. */
/*
 * m's clip rebuilt with every track on its own key times: track i keeps
 * keys - i % 4 keys (a prefix of its values), each time shifted by i·10 µs,
 * so no two tracks share a time array.  NULL on failure.
 */
static mn_clip *per_track_clip(const anim_model *m, float **times_out)
{
    uint32_t n = mn_clip_track_count(m->clip), keys = m->spec.keys;
    mn_track *tracks = malloc(n * sizeof *tracks);
    float *times = malloc((size_t)n * keys * sizeof *times);
    mn_clip *clip = NULL;
    if (tracks && times) {
        for (uint32_t i = 0; i < n; i++) {
            tracks[i] = *mn_clip_track(m->clip, i);
            tracks[i].key_count = keys - i % 4u;
            for (uint32_t k = 0; k < tracks[i].key_count; k++)
                times[(size_t)i * keys + k] = key_time(k) + (float)i * 1e-5f;
            tracks[i].times = times + (size_t)i * keys;
        }
        mn_clip_options o = {.space = mn_clip_space(m->clip)};
        mn_error err;
        mn_status st = mn_clip_create(tracks, n, "per track", &o, &clip, &err);
        if (st != MN_OK)
            report_error("mn_clip_create (per-track times)", st, &err);
    }
    free(tracks);
    *times_out = times;   /* the clip copied them; the caller frees */
    return clip;
}

/* The four sampling cases again on a clip whose tracks do not share key times. */
static bool per_track_cases(const anim_model *m, mn_pose *pose, const float *random_times,
                            const float *forward_times, const double shared_ns[4], int runs)
{
    float *times = NULL;
    anim_model pt = *m;
    pt.clip = per_track_clip(m, &times);
    free(times);
    float *random_refs = pt.clip ? reference_poses(&pt, pose, random_times, RANDOM_FRAMES) : NULL;
    float *forward_refs = pt.clip ? reference_poses(&pt, pose, forward_times, FORWARD_FRAMES) : NULL;
    bool ok = random_refs && forward_refs;
    double shared[4] = {shared_ns[0], shared_ns[1], shared_ns[2], shared_ns[3]};
    for (int cursor = 0; ok && cursor < 2; cursor++)
        ok = sample_case(&pt, pose, true, random_times, RANDOM_FRAMES, random_refs, cursor, runs,
                         true, &shared[cursor]) && ok;
    for (int cursor = 1; ok && cursor >= 0; cursor--)
        ok = sample_case(&pt, pose, false, forward_times, FORWARD_FRAMES, forward_refs, cursor,
                         runs, true, &shared[2 + cursor]) && ok;
    free(random_refs), free(forward_refs);
    mn_clip_free(pt.clip);
    return ok;
}

static bool skeleton_cases(uint32_t joints, bool cubic, int runs)
{
    anim_model m;
    gen_spec spec = {joints, 300, 0, 0, cubic};
    mn_pose pose;
    memset(&pose, 0, sizeof pose);
    mn_error err;
    bool ok = anim_model_load(&m, spec) && mn_pose_create(&pose, joints, NULL, &err) == MN_OK;
    float *random_times = malloc(RANDOM_FRAMES * sizeof(float));
    float *forward_times = malloc(FORWARD_FRAMES * sizeof(float));
    float *random_refs = NULL, *forward_refs = NULL;
    ok = ok && random_times && forward_times;
    if (ok) {
        float duration = mn_clip_duration(m.clip);
        for (uint32_t i = 0; i < RANDOM_FRAMES; i++)
            random_times[i] = frand(0.0f, duration);
        for (uint32_t i = 0; i < FORWARD_FRAMES; i++)
            forward_times[i] = fmodf((float)i / 60.0f, duration);   /* a looping player */
        mn_pose_copy(&pose, &m.skeleton->rest);
        random_refs = reference_poses(&m, &pose, random_times, RANDOM_FRAMES);
        forward_refs = reference_poses(&m, &pose, forward_times, FORWARD_FRAMES);
        ok = random_refs && forward_refs;
        /* the library's sampling against the generator's keys */
        for (uint32_t k = 0; ok && k + 1u < spec.keys; k += 37u) {
            ok = mn_clip_sample(m.clip, key_time(k), &pose, &err) == MN_OK &&
                 pose_matches_keys(&m, &pose, k, false);
            if (cubic)
                continue; /* midway, a cubic is not the lerp */
            float midway = (float)((k + 0.5) / KEYS_PER_SECOND);
            ok = ok && mn_clip_sample(m.clip, midway, &pose, &err) == MN_OK &&
                 pose_matches_keys(&m, &pose, k, true);
        }
        if (!ok)
            fprintf(stderr, "bench_anim: sampled poses disagree with the keys (%u joints)\n",
                    (unsigned)joints);
    }
    if (ok) {
        /* the cursor promises the same bits for any order of times, random included */
        double shared_ns[4] = {0};   /* random, random cursor, forward, forward cursor */
        for (int cursor = 0; cursor < 2; cursor++)
            ok = sample_case(&m, &pose, true, random_times, RANDOM_FRAMES, random_refs, cursor,
                             runs, false, &shared_ns[cursor]) && ok;
        for (int cursor = 1; cursor >= 0; cursor--)
            ok = sample_case(&m, &pose, false, forward_times, FORWARD_FRAMES, forward_refs, cursor,
                             runs, false, &shared_ns[2 + cursor]) && ok;
        ok = per_track_cases(&m, &pose, random_times, forward_times, shared_ns, runs) && ok;
        if (!cubic && !sampling_only)
            ok = transform_cases(&m, &pose, random_refs, runs) && ok;
    }
    free(random_times), free(forward_times), free(random_refs), free(forward_refs);
    mn_pose_free(&pose);
    anim_model_free(&m);
    return ok;
}

/* ---- the crowd -------------------------------------------------------------------------- */

/* What a crowd case hands to the target lines. */
typedef struct crowd_figures {
    double ms, memcpy_ms, ns_per_instance_joint;
    double cached_ms;            /* visible, on a pool: the frame with cached stores (cached_body) */
} crowd_figures;

/* One instance updated `count` times: a crowd frame's work with every output in cache. */
typedef struct floor_ctx {
    mn_instance *instance;
    size_t count;
} floor_ctx;

static bool floor_body(void *ctx)
{
    floor_ctx *c = ctx;
    for (size_t i = 0; i < c->count; i++)
        mn_instance_update(c->instance, 1.0f / 60.0f);
    return true;
}

typedef struct crowd_ctx {
    mn_pool *pool;               /* NULL: the calling thread */
    mn_instance **instances;
    size_t count;
} crowd_ctx;

static bool crowd_body(void *ctx)
{
    crowd_ctx *c = ctx;
    return mn_instances_update(c->pool, c->instances, c->count, 1.0f / 60.0f) == MN_OK;
}

/*
 * The visible crowd with every store through the cache: the frame on two
 * threads of the benchmark's own, each instance by mn_instance_update (which
 * caches its stores, where mn_instances_update streams a batch this big),
 * one contiguous half each as the crowd shares them.  The A/B of the crowd's
 * store choice, timed beside it.
 */
typedef struct cached_half {
    mn_instance **instances;
    size_t first, end;
} cached_half;

static void *cached_half_run(void *arg)
{
    cached_half *h = arg;
    for (size_t i = h->first; i < h->end; i++)
        mn_instance_update(h->instances[i], 1.0f / 60.0f);
    return NULL;
}

static bool cached_body(void *ctx)
{
    crowd_ctx *c = ctx;
    cached_half halves[2] = {{c->instances, 0, c->count / 2}, {c->instances, c->count / 2, c->count}};
    pthread_t other;
    if (pthread_create(&other, NULL, cached_half_run, &halves[1]) != 0)
        return false;
    cached_half_run(&halves[0]);
    return pthread_join(other, NULL) == 0;
}

/*
 * The visible crowd's compute floor: the same frame's work (count updates of
 * a 5,000-vertex instance) with the vertices written to cache rather than
 * memory, one instance updated count times on one thread, divided by the
 * pool's threads.  What the crowd would take if writing its vertices cost
 * nothing beyond the stores.  Leaves the instance as a crowd frame would.
 */
static double visible_floor_ms(mn_instance *inst, size_t count, uint32_t threads, int runs)
{
    floor_ctx c = {inst, count};
    bench_timing t = timed(runs < 5 ? runs : 5, floor_body, &c);
    return t.ok ? t.best_ms / (threads ? threads : 1) : NAN;
}

/* The largest |a - b| over n floats; NaN when a holds a non-finite value. */
static double max_diff(const float *a, const float *b, size_t n, double worst)
{
    for (size_t e = 0; e < n; e++) {
        double d = isfinite(a[e]) ? fabs((double)a[e] - (double)b[e]) : NAN;
        if (!(d <= worst))
            worst = d;
    }
    return worst;
}

/*
 * A few instances against a fresh instance started at the same clip time:
 * an update by the pool must give exactly what one instance shows when it
 * is made, played at that time and updated by 0 — the mixer's model-space
 * worlds always, the skinned vertices when the crowd is visible.  Returns
 * the largest difference (0 when bit-identical), NaN when something failed.
 */
static double crowd_check(const mn_rig *rig, mn_instance **instances, size_t count, bool vertices)
{
    double worst = 0.0;
    for (uint32_t c = 0; c < CROWD_CHECKED; c++) {
        mn_instance *inst = instances[(size_t)c * (count / CROWD_CHECKED)], *fresh = NULL;
        mn_error err;
        mn_play_options play = {.at = mn_mixer_time(mn_instance_mixer(inst))};
        if (mn_instance_create(rig, NULL, &fresh, &err) != MN_OK ||
            mn_mixer_play(mn_instance_mixer(fresh), 0, &play, &err) != MN_OK) {
            mn_instance_free(fresh);
            return NAN;
        }
        mn_instance_update(fresh, 0.0f);
        worst = max_diff(mn_mixer_worlds(mn_instance_mixer(inst)),
                         mn_mixer_worlds(mn_instance_mixer(fresh)),
                         16u * (size_t)mn_mixer_node_count(mn_instance_mixer(inst)), worst);
        for (uint32_t p = 0; vertices && p < mn_rig_part_count(rig); p++) {
            const mn_posed_part *a = mn_instance_part(inst, p), *b = mn_instance_part(fresh, p);
            worst = max_diff(a->positions, b->positions, 3u * (size_t)a->vertex_count, worst);
            worst = max_diff(a->normals, b->normals, 3u * (size_t)a->vertex_count, worst);
        }
        mn_instance_free(fresh);
    }
    return worst;
}

/* Instance 0's first part moves from one frame to the next: the work is real. */
static bool crowd_animates(mn_instance *inst)
{
    const mn_posed_part *p = mn_instance_part(inst, 0);
    size_t n = 3u * (size_t)p->vertex_count;
    float *before = malloc(n * sizeof(float));
    if (before == NULL)
        return false;
    memcpy(before, p->positions, n * sizeof(float));
    mn_instance_update(inst, 1.0f / 60.0f);
    bool moved = memcmp(before, p->positions, n * sizeof(float)) != 0;
    free(before);
    return moved;
}

/*
 * One crowd frame, timed: visible (animation, worlds, palette, skinning) or
 * hidden (an instance keeps animating but skips deformation: the mixer and
 * world matrices alone, the figure to set beside other runtimes' mixers).
 */
static bool crowd_case(const mn_rig *rig, mn_instance **instances, size_t count, mn_pool *pool,
                       bool visible, gen_spec spec, int runs, crowd_figures *out)
{
    uint32_t joints = spec.joints, vertices = spec.rings * spec.segments;
    for (size_t i = 0; i < count; i++)
        mn_instance_set_visible(instances[i], visible);
    crowd_ctx ctx = {pool, instances, count};
    bench_timing t = timed(runs, crowd_body, &ctx);
    bench_timing ct = {true, 0, NAN, NAN};
    if (t.ok && visible && mn_pool_thread_count(pool) == 2)
        ct = timed(runs, cached_body, &ctx);
    double diff = t.ok && ct.ok ? crowd_check(rig, instances, count, visible) : NAN;
    bool ok = t.ok && ct.ok && diff == 0.0;
    out->cached_ms = ct.best_ms;
    double instance_joints = (double)count * joints, total_vertices = (double)count * vertices;
    uint32_t threads = mn_pool_thread_count(pool);
    char name[64];
    snprintf(name, sizeof name, "crowd%s_%u_thread%s", visible ? "" : "_hidden", (unsigned)threads,
             threads == 1 ? "" : "s");
    bench_line line;
    bench_line_begin(&line, "anim", name);
    bench_line_u64(&line, "threads", threads);
    bench_line_u64(&line, "instances", count);
    bench_line_u64(&line, "joints", joints);
    bench_line_u64(&line, "vertices_per_instance", vertices);
    bench_line_str(&line, "work", visible ? "sample+worlds+palette+skin positions and normals"
                                          : "sample+worlds (hidden: no deformation)");
    bench_line_num(&line, "ms_per_frame", t.best_ms);
    bench_line_num(&line, "median_ms_per_frame", t.median_ms);
    if (visible) {
        size_t bytes = (size_t)total_vertices * 24u;
        bench_timing mt = bench_memcpy_ms(bytes, runs < 10 ? runs : 10);
        per_item_fields(&line, "vertex", total_vertices, bytes, t, mt);
        out->memcpy_ms = mt.best_ms;
    } else {
        /* what the frame writes: a pose (40 B) and a world matrix (64 B) per joint */
        size_t bytes = (size_t)instance_joints * 104u;
        bench_timing mt = bench_memcpy_ms(bytes, runs);
        per_item_fields(&line, "instance_joint", instance_joints, bytes, t, mt);
    }
    bench_line_num(&line, "max_diff_vs_fresh_instance", diff);
    bench_line_bool(&line, "matches_reference", ok);
    if (!visible)
        bench_line_str(&line, "reference", REF_MIXER);
    bench_line_print(&line);
    out->ms = t.best_ms;
    out->ns_per_instance_joint = t.best_ms * 1e6 / instance_joints;
    return ok;
}

/* ---- the crowd's building blocks, and the targets ------------------------------------ */

typedef struct direct_ctx {
    const mn_skeleton *sk;
    const mn_clip *clip;         /* in the skeleton's space */
    size_t count;
    mn_pose *poses;
    mn_clip_cursor *cursors;
    double *times;
    float *worlds;               /* 16 floats a joint, joint_count a character */
    double duration;
} direct_ctx;

/* What a hidden instance does, through the public building blocks alone. */
static bool direct_body(void *ctx)
{
    direct_ctx *c = ctx;
    bool ok = true;
    size_t stride = 16u * (size_t)c->sk->joint_count;
    for (size_t i = 0; i < c->count; i++) {
        double t = fmod(c->times[i] + 1.0 / 60.0, c->duration);
        c->times[i] = t;
        ok &= mn_clip_sample_cursor(c->clip, (float)t, &c->cursors[i], &c->poses[i], NULL) == MN_OK;
        mn_skeleton_local_to_world(c->sk, &c->poses[i], 0, c->worlds + stride * i);
    }
    return ok;
}

static void direct_free(direct_ctx *c, void *cursor_block)
{
    for (size_t i = 0; c->poses != NULL && i < c->count; i++)
        mn_pose_free(&c->poses[i]);
    free(c->poses), free(c->cursors), free(c->times), free(c->worlds), free(cursor_block);
    mn_clip_free((mn_clip *)c->clip);
    mn_skeleton_free((mn_skeleton *)c->sk);
}

/*
 * crowd_hidden_direct: the same characters (model, clip, clip times) as the
 * hidden crowd, each with its own pose, cursor and worlds, sampled with
 * mn_clip_sample_cursor and composed with mn_skeleton_local_to_world, one
 * thread.  The yardstick the hidden crowd is held to.
 */
static bool direct_case(const anim_model *m, mn_instance **instances, size_t count,
                        uint32_t joints_per, int runs, double *ns_out)
{
    direct_ctx c = {.count = count};
    mn_skeleton *sk = NULL;
    mn_clip *clip = NULL;
    mn_error err;
    void *cursor_block = NULL;
    mn_status st = mn_skeleton_from_nodes(m->model, NULL, &sk, &err);
    if (st == MN_OK)
        st = mn_clip_from_gltf_skeleton(m->model, 0, sk, NULL, &clip, &err);
    c.sk = sk, c.clip = clip;
    if (st != MN_OK) {
        direct_free(&c, NULL);
        return report_error("crowd_hidden_direct", st, &err);
    }
    size_t cursor_size = mn_clip_cursor_storage_size(clip), stride = (cursor_size + 15u) & ~(size_t)15u;
    c.poses = calloc(count, sizeof *c.poses);
    c.cursors = calloc(count, sizeof *c.cursors);
    c.times = calloc(count, sizeof *c.times);
    c.worlds = calloc(count * 16u * sk->joint_count, sizeof(float));
    cursor_block = calloc(count, stride ? stride : 16u);
    c.duration = mn_clip_duration(clip);
    bool ok = c.poses && c.cursors && c.times && c.worlds && cursor_block;
    for (size_t i = 0; ok && i < count; i++) {
        ok = mn_pose_create(&c.poses[i], sk->joint_count, NULL, &err) == MN_OK;
        if (ok)
            mn_pose_copy(&c.poses[i], &sk->rest);
        mn_clip_cursor_init(&c.cursors[i], clip, (char *)cursor_block + stride * i);
        c.times[i] = mn_mixer_time(mn_instance_mixer(instances[i]));
    }
    bench_timing t = ok ? timed(runs, direct_body, &c) : (bench_timing){0};
    ok = ok && t.ok;
    /* Per joint as the crowd lines count them (both also compose the mesh's node). */
    double joints = (double)count * joints_per;
    *ns_out = t.best_ms * 1e6 / joints;
    bench_line line;
    bench_line_begin(&line, "anim", "crowd_hidden_direct");
    bench_line_u64(&line, "threads", 1);
    bench_line_u64(&line, "instances", count);
    bench_line_u64(&line, "joints", joints_per);
    bench_line_str(&line, "work", "mn_clip_sample_cursor + mn_skeleton_local_to_world per character");
    bench_line_num(&line, "ms_per_frame", t.best_ms);
    bench_line_num(&line, "ns_per_instance_joint", *ns_out);
    bench_line_num(&line, "median_ns_per_instance_joint", t.median_ms * 1e6 / joints);
    bench_line_bool(&line, "matches_reference", ok);
    bench_line_print(&line);
    direct_free(&c, cursor_block);
    return ok;
}

/* The targets as ratios of this run's figures: they report, they do not fail the run. */
static void target_lines(const crowd_figures f[2][2], double direct_ns, double floor_ms)
{
    bench_line line;
    double hidden = f[0][1].ns_per_instance_joint;
    bench_line_begin(&line, "anim", "crowd_hidden_vs_direct");
    bench_line_num(&line, "hidden_ns_per_instance_joint", hidden);
    bench_line_num(&line, "direct_ns_per_instance_joint", direct_ns);
    bench_line_num(&line, "ratio", direct_ns > 0.0 ? hidden / direct_ns : NAN);
    bench_line_num(&line, "target_at_most", 1.25);
    bench_line_print(&line);

    bench_line_begin(&line, "anim", "crowd_visible_vs_memcpy");
    bench_line_num(&line, "ms_per_frame", f[1][0].ms);
    bench_line_num(&line, "memcpy_ms", f[1][0].memcpy_ms);
    bench_line_num(&line, "ratio_to_memcpy", f[1][0].ms > 0.0 ? f[1][0].memcpy_ms / f[1][0].ms : NAN);
    bench_line_num(&line, "target_at_least", 1.0);
    /* the compute floor (visible_floor_ms): the most ratio_to_memcpy can be with this kernel */
    bench_line_num(&line, "compute_floor_ms", floor_ms);
    bench_line_num(&line, "floor_ratio_to_memcpy", floor_ms > 0.0 ? f[1][0].memcpy_ms / floor_ms : NAN);
    bench_line_num(&line, "ratio_to_floor", floor_ms > 0.0 ? f[1][0].ms / floor_ms : NAN);
    /* the A/B of the store choice: the same frame with every store through the cache */
    bench_line_num(&line, "cached_stores_ms", f[1][0].cached_ms);
    bench_line_num(&line, "cached_ratio_to_memcpy",
                   f[1][0].cached_ms > 0.0 ? f[1][0].memcpy_ms / f[1][0].cached_ms : NAN);
    bench_line_print(&line);

    bench_line_begin(&line, "anim", "crowd_thread_speedup");
    bench_line_num(&line, "visible_1_thread_ms", f[1][1].ms);
    bench_line_num(&line, "visible_2_threads_ms", f[1][0].ms);
    bench_line_num(&line, "visible_speedup", f[1][0].ms > 0.0 ? f[1][1].ms / f[1][0].ms : NAN);
    bench_line_num(&line, "hidden_1_thread_ms", f[0][1].ms);
    bench_line_num(&line, "hidden_2_threads_ms", f[0][0].ms);
    bench_line_num(&line, "hidden_speedup", f[0][0].ms > 0.0 ? f[0][1].ms / f[0][0].ms : NAN);
    bench_line_num(&line, "target_at_least", 1.7);
    bench_line_print(&line);
}

/*
 * crowd_posed_10000_2_threads: 10,000 hidden 50-joint characters with no
 * mesh (posed, not skinned) updated on 2 threads; target 4 ms a frame.
 */
static bool posed_case(int runs)
{
    enum { POSED = 10000 };
    anim_model m;
    gen_spec spec = {50, 61, 0, 0, false};
    mn_rig *rig = NULL;
    mn_pool *pool = NULL;
    mn_instance **instances = calloc(POSED, sizeof *instances);
    mn_error err;
    bool ok = instances != NULL && anim_model_load(&m, spec);
    mn_status st = ok ? mn_rig_create(m.model, NULL, &rig, &err) : MN_OK;
    if (st != MN_OK)
        ok = report_error("mn_rig_create", st, &err);
    float duration = ok ? mn_clip_duration(mn_rig_clip(rig, 0)) : 0.0f;
    for (uint32_t i = 0; ok && i < POSED; i++) {
        mn_instance_desc desc = {.position = {(float)(i % 100u), 0.0f, (float)(i / 100u)},
                                 .yaw = frand(-3.14f, 3.14f), .size = 1.8f, .hidden = true};
        mn_play_options play = {.at = frand(0.0f, duration)};
        st = mn_instance_create(rig, &desc, &instances[i], &err);
        if (st == MN_OK)
            st = mn_mixer_play(mn_instance_mixer(instances[i]), 0, &play, &err);
        if (st != MN_OK)
            ok = report_error("creating the posed crowd", st, &err);
    }
    st = ok ? mn_pool_create(2, NULL, &pool, &err) : MN_OK;
    if (st != MN_OK)
        ok = report_error("mn_pool_create", st, &err);
    crowd_ctx ctx = {pool, instances, POSED};
    bench_timing t = ok ? timed(runs, crowd_body, &ctx) : (bench_timing){0};
    double diff = ok && t.ok ? crowd_check(rig, instances, POSED, false) : NAN;
    ok = ok && t.ok && diff == 0.0;
    /* The floor: a tenth of the crowd (5 MB a frame, which stays in cache) on the same pool, × 10. */
    crowd_ctx tenth = {pool, instances, POSED / 10};
    bench_timing ft = ok ? timed(runs, crowd_body, &tenth) : (bench_timing){0};
    double floor_ms = ft.best_ms * 10.0;
    /* What the frame writes, a pose (40 B) and a world (64 B) a node, and memcpy of as many bytes. */
    size_t bytes = (size_t)POSED * (ok ? m.model->node_count : 0u) * 104u;
    bench_timing mt = ok ? bench_memcpy_ms(bytes, runs) : (bench_timing){0};
    bench_line line;
    bench_line_begin(&line, "anim", "crowd_posed_10000_2_threads");
    bench_line_u64(&line, "threads", mn_pool_thread_count(pool));
    bench_line_u64(&line, "instances", POSED);
    bench_line_u64(&line, "joints", spec.joints);
    bench_line_str(&line, "work", "sample+placed worlds (no mesh)");
    bench_line_num(&line, "ms_per_frame", t.best_ms);
    bench_line_num(&line, "median_ms_per_frame", t.median_ms);
    bench_line_num(&line, "ns_per_instance_joint", t.best_ms * 1e6 / (POSED * (double)spec.joints));
    bench_line_num(&line, "target_ms_at_most", 4.0);
    bench_line_num(&line, "in_cache_floor_ms", floor_ms);
    bench_line_num(&line, "ratio_to_floor", floor_ms > 0.0 ? t.best_ms / floor_ms : NAN);
    bench_line_u64(&line, "bytes_written", bytes);
    bench_line_num(&line, "memcpy_ms", mt.best_ms);
    bench_line_num(&line, "max_diff_vs_fresh_instance", diff);
    bench_line_bool(&line, "matches_reference", ok);
    bench_line_print(&line);
    mn_pool_free(pool);
    for (uint32_t i = 0; instances != NULL && i < POSED; i++)
        mn_instance_free(instances[i]);
    free(instances);
    mn_rig_free(rig);
    anim_model_free(&m);
    return ok;
}

static bool crowd_cases(int runs)
{
    anim_model m;
    gen_spec spec = {50, 61, 50, 100, false};
    mn_rig *rig = NULL;
    mn_pool *pool = NULL;
    mn_instance **instances = calloc(CROWD_INSTANCES, sizeof *instances);
    mn_error err;
    bool ok = instances != NULL && anim_model_load(&m, spec);
    mn_status st = ok ? mn_rig_create(m.model, NULL, &rig, &err) : MN_OK;
    if (st != MN_OK)
        ok = report_error("mn_rig_create", st, &err);
    if (ok && (mn_rig_part_count(rig) != 1 || mn_rig_part(rig, 0)->vertex_count != 5000u)) {
        fprintf(stderr, "bench_anim: the crowd rig should have one part of 5000 vertices\n");
        ok = false;
    }
    float duration = ok ? mn_clip_duration(mn_rig_clip(rig, 0)) : 0.0f;
    for (uint32_t i = 0; ok && i < CROWD_INSTANCES; i++) {
        mn_instance_desc desc = {.position = {(float)(i % 32u), 0.0f, (float)(i / 32u)},
                                 .yaw = frand(-3.14f, 3.14f), .size = 1.8f};
        mn_play_options play = {.at = frand(0.0f, duration)};   /* no lockstep */
        st = mn_instance_create(rig, &desc, &instances[i], &err);
        if (st == MN_OK)
            st = mn_mixer_play(mn_instance_mixer(instances[i]), 0, &play, &err);
        if (st != MN_OK)
            ok = report_error("creating the crowd", st, &err);
    }
    ok = ok && crowd_animates(instances[0]);
    st = ok ? mn_pool_create(2, NULL, &pool, &err) : MN_OK;
    if (st != MN_OK)
        ok = report_error("mn_pool_create", st, &err);
    if (ok) {
        crowd_figures f[2][2] = {{{0}}};   /* [visible][0: 2 threads, 1: the caller alone] */
        double direct_ns = 0.0;
        for (int visible = 1; visible >= 0; visible--) {
            ok = crowd_case(rig, instances, CROWD_INSTANCES, pool, visible, spec, runs, &f[visible][0]) && ok;
            ok = crowd_case(rig, instances, CROWD_INSTANCES, NULL, visible, spec, runs, &f[visible][1]) && ok;
        }
        ok = direct_case(&m, instances, CROWD_INSTANCES, spec.joints, runs, &direct_ns) && ok;
        mn_instance_set_visible(instances[0], true);
        double floor_ms = visible_floor_ms(instances[0], CROWD_INSTANCES, mn_pool_thread_count(pool), runs);
        target_lines((const crowd_figures(*)[2])f, direct_ns, floor_ms);
    }
    mn_pool_free(pool);
    for (uint32_t i = 0; instances != NULL && i < CROWD_INSTANCES; i++)
        mn_instance_free(instances[i]);
    free(instances);
    mn_rig_free(rig);
    anim_model_free(&m);
    return ok;
}

#ifndef MN_BENCH_NATIVE_BUILD
/* The text after "key": in a JSON line of ours, or NULL. */
static const char *json_field(const char *line, const char *key)
{
    char quoted[80];
    snprintf(quoted, sizeof quoted, "\"%s\":", key);
    const char *at = strstr(line, quoted);
    return at != NULL ? at + strlen(quoted) : NULL;
}

/*
 * bench_anim_native beside this program (argv0's folder), run for the sampling
 * cases; one line per case of both.  Returns false when it ran and failed.
 */
static bool native_lines(const char *argv0, int runs)
{
    const char *off = getenv("MN_BENCH_NATIVE");
    const char *slash = strrchr(argv0, '/');
    char command[4096];
    if ((off != NULL && strcmp(off, "0") == 0) || slash == NULL ||
        (size_t)(slash - argv0) > sizeof command - 64)
        return true;
    int n = snprintf(command, sizeof command, "%.*s/bench_anim_native", (int)(slash - argv0), argv0);
    FILE *probe = fopen(command, "rb");
    if (probe == NULL)
        return true; /* not built: the compiler has no -march=native */
    fclose(probe);
    snprintf(command + n, sizeof command - (size_t)n, " %d --sampling", runs);
    FILE *child = popen(command, "r");
    if (child == NULL)
        return false;
    char text[4096];
    while (fgets(text, sizeof text, child) != NULL) {
        const char *name = json_field(text, "case"), *ns = json_field(text, "ns_per_joint");
        if (name == NULL || ns == NULL || strncmp(name, "\"sample_", 8) != 0)
            continue;
        for (unsigned i = 0; i < sample_figure_count; i++) {
            size_t len = strlen(sample_figures[i].name);
            if (strncmp(name + 1, sample_figures[i].name, len) != 0 || name[len + 1] != '"')
                continue;
            double native = strtod(ns, NULL);
            char vs[96];
            snprintf(vs, sizeof vs, "%s_vs_native", sample_figures[i].name);
            bench_line line;
            bench_line_begin(&line, "anim", vs);
            bench_line_num(&line, "ns_per_joint", sample_figures[i].ns_per_joint);
            bench_line_num(&line, "native_ns_per_joint", native);
            bench_line_num(&line, "default_to_native",
                           native > 0.0 ? sample_figures[i].ns_per_joint / native : 0.0);
            bench_line_print(&line);
        }
    }
    return pclose(child) == 0;
}
#endif

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : DEFAULT_RUNS;
    sampling_only = argc > 2 && strcmp(argv[2], "--sampling") == 0;
    bool crowd_only = argc > 2 && strcmp(argv[2], "--crowd") == 0;
    if (runs < 1 || runs > BENCH_MAX_RUNS || (argc > 2 && !sampling_only && !crowd_only) ||
        argc > 3) {
        fprintf(stderr, "usage: bench_anim [runs 1..%d] [--sampling | --crowd]\n", BENCH_MAX_RUNS);
        return 2;
    }
    double start = bench_now_ms();
    bool ok = true;
    if (!crowd_only) {
        ok = skeleton_cases(64, false, runs);
        ok = skeleton_cases(256, false, runs) && ok;
        ok = skeleton_cases(64, true, runs) && ok;
    }
    if (!sampling_only) {
        ok = crowd_cases(runs) && ok;
        ok = posed_case(runs) && ok;
    }
#ifndef MN_BENCH_NATIVE_BUILD
    if (!crowd_only && !native_lines(argv[0], runs)) {
        fprintf(stderr, "bench_anim: bench_anim_native failed\n");
        ok = false;
    }
#endif
    bench_line line;
    bench_line_begin(&line, "anim", "total");
    bench_line_num(&line, "seconds", (bench_now_ms() - start) * 1e-3);
    bench_line_bool(&line, "all_match_reference", ok);
    bench_line_print(&line);
    return ok ? 0 : 1;
}
