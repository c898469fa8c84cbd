/*
 * bench_load — how fast a big skinned, animated GLB loads, beside memcpy.
 *
 * The file is generated here, byte by byte, so the benchmark needs no asset:
 * a torus of 1000 × 1000 vertices (POSITION with min/max, NORMAL, TEXCOORD_0
 * as f32; JOINTS_0 as u16 vec4; WEIGHTS_0 as f32 vec4), 6,000,000 u32
 * indices (two triangles per quad, wrapping around), a chain of 64 joints
 * with inverse bind matrices, and one animation of 64 × 3 LINEAR channels
 * (translation, rotation, scale per joint) of 1,000 keys each: about 83 MB.
 *
 * Cases, each printed as one JSON line beside memcpy of the same bytes:
 *   glb                        what was generated (sizes, counts)
 *   peak_memory_read_file      one run of read_file_convert through a counting
 *                              allocator: peak live bytes of the library plus
 *                              the caller's converted buffers (plus the file
 *                              when the reader maps it rather than allocating
 *                              it), against file + converted + 10 %; and the
 *                              process RSS, whose peak counts mapped pages too
 *   parse_zero_copy            (a) mn_gltf_read_memory, float data left in
 *                              place (POSITION must have a zero-copy view);
 *                              bytes = file size
 *   parse_convert              (b) (a) plus every vertex attribute through
 *                              mn_accessor_unpack_floats and the indices
 *                              through mn_accessor_unpack_u32; bytes = bytes
 *                              written by the conversions (~88 MB)
 *   read_file_convert          (c) mn_gltf_read_file plus the conversions of
 *                              (b), the read included; bytes = file size.  The
 *                              file was just written, so the page cache is warm
 *                              (the line says so): this is the cost of the
 *                              library, not of the disk.
 *
 * Each timed case is the best (and the median) of RUNS repetitions; the
 * model is freed after each, outside the timed region.  Converted buffers
 * are allocated and written once before timing, so their page faults are not
 * counted (a caller reuses them too).  Every repetition is checked: counts
 * exact, and sampled values compared with the generator, so a figure is never
 * printed for wrong work.  Exit 0 when every case ran and checked out.
 *
 * Usage: bench_load [runs]   (default 5)
 */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"
#include "bench_glb.h"

#include <marionette/gltf.h>
#include <marionette/model.h>

#include <math.h>
#include <sys/resource.h>
#include <unistd.h>

/* ---- the generated model -------------------------------------------------- */

#define GRID 1000u                            /* vertices around each ring and rings around the torus */
#define VERTEX_COUNT (GRID * GRID)
#define INDEX_COUNT (VERTEX_COUNT * 6u)       /* one quad per vertex: the torus wraps both ways */
#define JOINT_COUNT 64u
#define KEY_COUNT 1000u
#define CHANNEL_COUNT (JOINT_COUNT * 3u)      /* translation, rotation, scale per joint */
#define DEFAULT_RUNS 5
#define SPOT_CHECKS 4096u                     /* sampled values compared per repetition */

/* Accessor numbering in the generated JSON. */
enum {
    ACC_POSITION, ACC_NORMAL, ACC_TEXCOORD, ACC_JOINTS, ACC_WEIGHTS, ACC_INDICES, ACC_IBM,
    ACC_FIRST_CHANNEL   /* then, per channel c: times at +2c, values at +2c+1 */
};

/* Buffer views, one per stream, in BIN order. */
enum {
    VIEW_POSITION, VIEW_NORMAL, VIEW_TEXCOORD, VIEW_JOINTS, VIEW_WEIGHTS, VIEW_INDICES,
    VIEW_IBM, VIEW_TIMES, VIEW_VALUES, VIEW_COUNT
};

static const char *const path_names[3] = {"translation", "rotation", "scale"};
static const uint32_t path_components[3] = {3, 4, 3};

typedef struct vertex {
    float position[3], normal[3], uv[2], weights[4];
    uint16_t joints[4];
} vertex;

/*
 * Vertex v of the torus (major radius 1, minor 0.3).  Every value written to
 * the file and every value checked after loading comes from here, so the
 * check compares exact floats.
 */
static vertex vertex_of(uint32_t v)
{
    const double two_pi = 6.283185307179586;
    uint32_t x = v % GRID, y = v / GRID;
    double a = two_pi * x / GRID, b = two_pi * y / GRID;
    double ring = 1.0 + 0.3 * cos(b);
    vertex out;
    out.position[0] = (float)(ring * cos(a));
    out.position[1] = (float)(ring * sin(a));
    out.position[2] = (float)(0.3 * sin(b));
    out.normal[0] = (float)(cos(b) * cos(a));
    out.normal[1] = (float)(cos(b) * sin(a));
    out.normal[2] = (float)sin(b);
    out.uv[0] = (float)x / (float)(GRID - 1);
    out.uv[1] = (float)y / (float)(GRID - 1);
    /* Four distinct joints around the ring position, heaviest first. */
    uint16_t j = (uint16_t)(x * JOINT_COUNT / GRID);
    out.joints[0] = j;
    out.joints[1] = (uint16_t)((j + 1) % JOINT_COUNT);
    out.joints[2] = (uint16_t)((j + 2) % JOINT_COUNT);
    out.joints[3] = (uint16_t)((j + JOINT_COUNT - 1) % JOINT_COUNT);
    out.weights[0] = 0.7f;
    out.weights[1] = 0.2f;
    out.weights[2] = 0.06f;
    out.weights[3] = 0.04f;
    return out;
}

/* Index i: quad q = i / 6 spans vertices (x, y) .. (x+1, y+1), wrapping. */
static uint32_t index_of(uint32_t i)
{
    uint32_t q = i / 6u, x = q % GRID, y = q / GRID;
    uint32_t x1 = (x + 1u) % GRID, y1 = (y + 1u) % GRID;
    uint32_t a = y * GRID + x, b = y * GRID + x1, c = y1 * GRID + x, d = y1 * GRID + x1;
    const uint32_t corners[6] = {a, b, d, a, d, c};
    return corners[i % 6u];
}

/* Joint j hangs 0.02 above its parent; the chain starts at the origin. */
static float joint_height(uint32_t j)
{
    return 0.02f * (float)j;
}

static float key_time(uint32_t k)
{
    return (float)k / 30.0f;
}

/* Value of channel c (joint c/3, path c%3) at key k; returns the component count. */
static uint32_t key_value(uint32_t c, uint32_t k, float out[4])
{
    uint32_t joint = c / 3u, path = c % 3u;
    double phase = 0.05 * k + 0.1 * joint;
    if (path == 0) {
        out[0] = 0.0f;
        out[1] = (float)(0.02 + 0.001 * sin(phase));
        out[2] = 0.0f;
    } else if (path == 1) {
        double half = 0.1 * sin(phase);       /* rotation about z by 0.2·sin(phase) */
        out[0] = 0.0f;
        out[1] = 0.0f;
        out[2] = (float)sin(half);
        out[3] = (float)cos(half);
    } else {
        float s = (float)(1.0 + 0.01 * sin(phase));
        out[0] = out[1] = out[2] = s;
    }
    return path_components[path];
}

/* ---- writing the GLB byte by byte ----------------------------------------- */

/* Where each buffer view lies in BIN.  Every size is a multiple of 4, so
   every view starts 4-aligned as glTF asks for its component types. */
typedef struct bin_layout {
    size_t offset[VIEW_COUNT], size[VIEW_COUNT];
    size_t total;
} bin_layout;

static bin_layout layout_bin(void)
{
    bin_layout l;
    l.size[VIEW_POSITION] = (size_t)VERTEX_COUNT * 12u;
    l.size[VIEW_NORMAL] = (size_t)VERTEX_COUNT * 12u;
    l.size[VIEW_TEXCOORD] = (size_t)VERTEX_COUNT * 8u;
    l.size[VIEW_JOINTS] = (size_t)VERTEX_COUNT * 8u;
    l.size[VIEW_WEIGHTS] = (size_t)VERTEX_COUNT * 16u;
    l.size[VIEW_INDICES] = (size_t)INDEX_COUNT * 4u;
    l.size[VIEW_IBM] = (size_t)JOINT_COUNT * 64u;
    l.size[VIEW_TIMES] = (size_t)CHANNEL_COUNT * KEY_COUNT * 4u;
    l.size[VIEW_VALUES] = (size_t)JOINT_COUNT * KEY_COUNT * (3u + 4u + 3u) * 4u;
    l.total = 0;
    for (int v = 0; v < VIEW_COUNT; v++) {
        l.offset[v] = l.total;
        l.total += l.size[v];
    }
    return l;
}

/* Byte offset of channel c's values inside VIEW_VALUES (per joint: T, R, S). */
static size_t channel_values_offset(uint32_t c)
{
    static const size_t within_joint[3] = {0, 12u * KEY_COUNT, 28u * KEY_COUNT};
    return (size_t)(c / 3u) * 40u * KEY_COUNT + within_joint[c % 3u];
}

static void write_bin(uint8_t *bin, const bin_layout *l)
{
    for (uint32_t v = 0; v < VERTEX_COUNT; v++) {
        vertex x = vertex_of(v);
        for (int i = 0; i < 3; i++) {
            glb_put_f32(bin + l->offset[VIEW_POSITION] + v * 12u + 4u * (unsigned)i, x.position[i]);
            glb_put_f32(bin + l->offset[VIEW_NORMAL] + v * 12u + 4u * (unsigned)i, x.normal[i]);
        }
        for (int i = 0; i < 2; i++)
            glb_put_f32(bin + l->offset[VIEW_TEXCOORD] + v * 8u + 4u * (unsigned)i, x.uv[i]);
        for (int i = 0; i < 4; i++) {
            glb_put_u16(bin + l->offset[VIEW_JOINTS] + v * 8u + 2u * (unsigned)i, x.joints[i]);
            glb_put_f32(bin + l->offset[VIEW_WEIGHTS] + v * 16u + 4u * (unsigned)i, x.weights[i]);
        }
    }
    for (uint32_t i = 0; i < INDEX_COUNT; i++)
        glb_put_u32(bin + l->offset[VIEW_INDICES] + (size_t)i * 4u, index_of(i));
    /* Inverse bind matrices: the inverse of "translate up by joint_height". */
    for (uint32_t j = 0; j < JOINT_COUNT; j++) {
        float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        m[13] = -joint_height(j);
        for (int i = 0; i < 16; i++)
            glb_put_f32(bin + l->offset[VIEW_IBM] + j * 64u + 4u * (unsigned)i, m[i]);
    }
    for (uint32_t c = 0; c < CHANNEL_COUNT; c++) {
        uint8_t *times = bin + l->offset[VIEW_TIMES] + (size_t)c * KEY_COUNT * 4u;
        uint8_t *values = bin + l->offset[VIEW_VALUES] + channel_values_offset(c);
        for (uint32_t k = 0; k < KEY_COUNT; k++) {
            float value[4];
            uint32_t n = key_value(c, k, value);
            glb_put_f32(times + k * 4u, key_time(k));
            for (uint32_t i = 0; i < n; i++)
                glb_put_f32(values + (k * n + i) * 4u, value[i]);
        }
    }
}

static void position_bounds(float min[3], float max[3])
{
    for (int i = 0; i < 3; i++) {
        min[i] = INFINITY;
        max[i] = -INFINITY;
    }
    for (uint32_t v = 0; v < VERTEX_COUNT; v++) {
        vertex x = vertex_of(v);
        for (int i = 0; i < 3; i++) {
            min[i] = fminf(min[i], x.position[i]);
            max[i] = fmaxf(max[i], x.position[i]);
        }
    }
}

/* %.9g prints every float so that it reads back to the same float. */
static void write_json(glb_text *t, const bin_layout *l)
{
    float min[3], max[3];
    position_bounds(min, max);
    glb_text_append(t, "{\"asset\":{\"version\":\"2.0\",\"generator\":\"marionette bench_load\"},"
                       "\"scene\":0,\"scenes\":[{\"nodes\":[0,1]}],\"nodes\":[");
    glb_text_append(t, "{\"name\":\"body\",\"mesh\":0,\"skin\":0}");
    for (uint32_t j = 0; j < JOINT_COUNT; j++) {
        glb_text_append(t, ",{\"name\":\"joint%u\"", (unsigned)j);
        if (j > 0)
            glb_text_append(t, ",\"translation\":[0,%.9g,0]", (double)(joint_height(j) - joint_height(j - 1)));
        if (j + 1 < JOINT_COUNT)
            glb_text_append(t, ",\"children\":[%u]", (unsigned)(j + 2));
        glb_text_append(t, "}");
    }
    glb_text_append(t, "],\"meshes\":[{\"name\":\"torus\",\"primitives\":[{\"attributes\":{"
                       "\"POSITION\":%d,\"NORMAL\":%d,\"TEXCOORD_0\":%d,\"JOINTS_0\":%d,\"WEIGHTS_0\":%d},"
                       "\"indices\":%d,\"mode\":4}]}],",
                    ACC_POSITION, ACC_NORMAL, ACC_TEXCOORD, ACC_JOINTS, ACC_WEIGHTS, ACC_INDICES);
    glb_text_append(t, "\"skins\":[{\"name\":\"spine\",\"inverseBindMatrices\":%d,\"skeleton\":1,\"joints\":[", ACC_IBM);
    for (uint32_t j = 0; j < JOINT_COUNT; j++)
        glb_text_append(t, "%s%u", j ? "," : "", (unsigned)(j + 1));
    glb_text_append(t, "]}],\"animations\":[{\"name\":\"wave\",\"channels\":[");
    for (uint32_t c = 0; c < CHANNEL_COUNT; c++)
        glb_text_append(t, "%s{\"sampler\":%u,\"target\":{\"node\":%u,\"path\":\"%s\"}}", c ? "," : "",
                        (unsigned)c, (unsigned)(c / 3u + 1u), path_names[c % 3u]);
    glb_text_append(t, "],\"samplers\":[");
    for (uint32_t c = 0; c < CHANNEL_COUNT; c++)
        glb_text_append(t, "%s{\"input\":%u,\"output\":%u,\"interpolation\":\"LINEAR\"}", c ? "," : "",
                        (unsigned)(ACC_FIRST_CHANNEL + 2u * c), (unsigned)(ACC_FIRST_CHANNEL + 2u * c + 1u));
    glb_text_append(t, "]}],\"accessors\":[");
    glb_text_append(t, "{\"bufferView\":%d,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\","
                       "\"min\":[%.9g,%.9g,%.9g],\"max\":[%.9g,%.9g,%.9g]}",
                    VIEW_POSITION, (unsigned)VERTEX_COUNT, (double)min[0], (double)min[1], (double)min[2],
                    (double)max[0], (double)max[1], (double)max[2]);
    glb_text_append(t, ",{\"bufferView\":%d,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\"}",
                    VIEW_NORMAL, (unsigned)VERTEX_COUNT);
    glb_text_append(t, ",{\"bufferView\":%d,\"componentType\":5126,\"count\":%u,\"type\":\"VEC2\"}",
                    VIEW_TEXCOORD, (unsigned)VERTEX_COUNT);
    glb_text_append(t, ",{\"bufferView\":%d,\"componentType\":5123,\"count\":%u,\"type\":\"VEC4\"}",
                    VIEW_JOINTS, (unsigned)VERTEX_COUNT);
    glb_text_append(t, ",{\"bufferView\":%d,\"componentType\":5126,\"count\":%u,\"type\":\"VEC4\"}",
                    VIEW_WEIGHTS, (unsigned)VERTEX_COUNT);
    glb_text_append(t, ",{\"bufferView\":%d,\"componentType\":5125,\"count\":%u,\"type\":\"SCALAR\"}",
                    VIEW_INDICES, (unsigned)INDEX_COUNT);
    glb_text_append(t, ",{\"bufferView\":%d,\"componentType\":5126,\"count\":%u,\"type\":\"MAT4\"}",
                    VIEW_IBM, (unsigned)JOINT_COUNT);
    for (uint32_t c = 0; c < CHANNEL_COUNT; c++) {
        glb_text_append(t, ",{\"bufferView\":%d,\"byteOffset\":%zu,\"componentType\":5126,\"count\":%u,"
                           "\"type\":\"SCALAR\",\"min\":[%.9g],\"max\":[%.9g]}",
                        VIEW_TIMES, (size_t)c * KEY_COUNT * 4u, (unsigned)KEY_COUNT,
                        (double)key_time(0), (double)key_time(KEY_COUNT - 1));
        glb_text_append(t, ",{\"bufferView\":%d,\"byteOffset\":%zu,\"componentType\":5126,\"count\":%u,"
                           "\"type\":\"%s\"}",
                        VIEW_VALUES, channel_values_offset(c), (unsigned)KEY_COUNT,
                        path_components[c % 3u] == 4 ? "VEC4" : "VEC3");
    }
    glb_text_append(t, "],\"bufferViews\":[");
    for (int v = 0; v < VIEW_COUNT; v++) {
        glb_text_append(t, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu", v ? "," : "",
                        l->offset[v], l->size[v]);
        if (v <= VIEW_WEIGHTS)
            glb_text_append(t, ",\"target\":34962");
        else if (v == VIEW_INDICES)
            glb_text_append(t, ",\"target\":34963");
        glb_text_append(t, "}");
    }
    glb_text_append(t, "],\"buffers\":[{\"byteLength\":%zu}]}", l->total);
}

typedef struct glb_info {
    size_t json_bytes, bin_bytes;
} glb_info;

/* The whole GLB (bench_glb.h's container), BIN written in place.  NULL on allocation failure. */
static uint8_t *build_glb(size_t *out_size, glb_info *info)
{
    bin_layout l = layout_bin();
    glb_text json;
    glb_text_init(&json, 1u << 16);
    write_json(&json, &l);
    uint8_t *bin = NULL;
    uint8_t *glb = glb_begin(&json, l.total, &bin, out_size);
    if (glb != NULL) {
        write_bin(bin, &l);
        info->json_bytes = json.len;
        info->bin_bytes = l.total;
    }
    glb_text_free(&json);
    return glb;
}

/* ---- a counting allocator ------------------------------------------------- */

/* Live and peak bytes of everything allocated through it (library and caller). */
typedef struct counter {
    size_t live, peak;
    size_t allocations, frees;
    bool underflow;       /* a free larger than what is live: a size mismatch in the caller */
} counter;

static void *counter_alloc(void *user, size_t size)
{
    counter *c = user;
    void *p = malloc(size ? size : 1);
    if (p != NULL) {
        c->live += size;
        if (c->live > c->peak)
            c->peak = c->live;
        c->allocations++;
    }
    return p;
}

static void counter_free(void *user, void *ptr, size_t size)
{
    counter *c = user;
    if (ptr == NULL)
        return;
    free(ptr);
    if (size > c->live)
        c->underflow = true;
    c->live -= size > c->live ? c->live : size;
    c->frees++;
}

/* ---- the converted data ---------------------------------------------------- */

enum { OUT_POSITION, OUT_NORMAL, OUT_TEXCOORD, OUT_JOINTS, OUT_WEIGHTS, OUT_ATTRIBUTE_COUNT };

static const mn_semantic out_semantics[OUT_ATTRIBUTE_COUNT] = {
    MN_SEMANTIC_POSITION, MN_SEMANTIC_NORMAL, MN_SEMANTIC_TEXCOORD, MN_SEMANTIC_JOINTS,
    MN_SEMANTIC_WEIGHTS,
};
static const size_t out_components[OUT_ATTRIBUTE_COUNT] = {3, 3, 2, 4, 4};

/* Caller buffers the conversions write into: allocated and touched once. */
typedef struct converted {
    float *floats[OUT_ATTRIBUTE_COUNT];
    size_t float_count[OUT_ATTRIBUTE_COUNT];
    uint32_t *indices;
    size_t bytes;
} converted;

static void converted_free(converted *out, counter *c)
{
    for (int a = 0; a < OUT_ATTRIBUTE_COUNT; a++)
        counter_free(c, out->floats[a], out->float_count[a] * sizeof(float));
    counter_free(c, out->indices, (size_t)INDEX_COUNT * sizeof(uint32_t));
    memset(out, 0, sizeof *out);
}

/* Allocate through the counter (so the peak includes them) and write every
   page, so the timed conversions see no first-touch page faults. */
static bool converted_alloc(converted *out, counter *c)
{
    memset(out, 0, sizeof *out);
    bool ok = true;
    for (int a = 0; a < OUT_ATTRIBUTE_COUNT; a++) {
        out->float_count[a] = (size_t)VERTEX_COUNT * out_components[a];
        out->floats[a] = counter_alloc(c, out->float_count[a] * sizeof(float));
        ok = ok && out->floats[a] != NULL;
        if (out->floats[a] != NULL)
            memset(out->floats[a], 0xff, out->float_count[a] * sizeof(float));
        out->bytes += out->float_count[a] * sizeof(float);
    }
    out->indices = counter_alloc(c, (size_t)INDEX_COUNT * sizeof(uint32_t));
    ok = ok && out->indices != NULL;
    if (out->indices != NULL)
        memset(out->indices, 0xff, (size_t)INDEX_COUNT * sizeof(uint32_t));
    out->bytes += (size_t)INDEX_COUNT * sizeof(uint32_t);
    if (!ok)
        converted_free(out, c);
    return ok;
}

/* ---- one repetition -------------------------------------------------------- */

typedef struct load_ctx {
    const uint8_t *glb;          /* in-memory cases */
    size_t glb_size;
    const char *path;            /* read_file case */
    mn_gltf_options options;
    converted *out;              /* NULL: leave the data zero-copy */
    mn_model *model;
    mn_status status;
    mn_error err;
    const char *failure;         /* what a check found wrong, NULL when fine */
    uint32_t repetition;         /* seeds the sampled checks */
} load_ctx;

static const mn_primitive *body_primitive(const mn_model *model)
{
    if (model->mesh_count != 1 || model->meshes[0].primitive_count != 1)
        return NULL;
    return &model->meshes[0].primitives[0];
}

/* Every vertex attribute to floats, the indices to u32: the timed conversions. */
static bool convert_all(load_ctx *ctx)
{
    const mn_model *model = ctx->model;
    const mn_primitive *prim = body_primitive(model);
    if (prim == NULL || prim->indices == MN_NONE) {
        ctx->failure = "the model has not the one indexed primitive that was written";
        return false;
    }
    for (int a = 0; a < OUT_ATTRIBUTE_COUNT; a++) {
        uint32_t acc = mn_primitive_find(prim, out_semantics[a], 0);
        if (acc == MN_NONE) {
            ctx->failure = "a vertex attribute that was written is missing";
            return false;
        }
        size_t n = mn_accessor_unpack_floats(&model->accessors[acc], ctx->out->floats[a],
                                             ctx->out->float_count[a]);
        if (n != ctx->out->float_count[a]) {
            ctx->failure = "mn_accessor_unpack_floats returned the wrong float count";
            return false;
        }
    }
    size_t n = mn_accessor_unpack_u32(&model->accessors[prim->indices], ctx->out->indices,
                                      INDEX_COUNT);
    if (n != INDEX_COUNT) {
        ctx->failure = "mn_accessor_unpack_u32 returned the wrong index count";
        return false;
    }
    return true;
}

static bool load_body(void *user)
{
    load_ctx *ctx = user;
    ctx->model = NULL;
    if (ctx->path != NULL)
        ctx->status = mn_gltf_read_file(ctx->path, &ctx->options, &ctx->model, &ctx->err);
    else
        ctx->status = mn_gltf_read_memory(ctx->glb, ctx->glb_size, &ctx->options, &ctx->model, &ctx->err);
    if (ctx->status != MN_OK)
        return false;
    return ctx->out == NULL || convert_all(ctx);
}

/* A small LCG: the sampled checks differ per repetition but are reproducible. */
static uint32_t next_sample(uint32_t *state, uint32_t bound)
{
    *state = *state * 1664525u + 1013904223u;
    return (uint32_t)(((uint64_t)(*state >> 8) * bound) >> 24);
}

static bool same_floats(const float *got, const float *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(got[i] == want[i]))
            return false;
    return true;
}

/* The model's shape: counts exactly as written. */
static const char *check_shape(const mn_model *model)
{
    const mn_primitive *prim = body_primitive(model);
    if (prim == NULL || prim->vertex_count != VERTEX_COUNT || prim->indices == MN_NONE)
        return "the primitive does not have the vertices and indices that were written";
    for (int a = 0; a < OUT_ATTRIBUTE_COUNT; a++)
        if (mn_primitive_find(prim, out_semantics[a], 0) == MN_NONE)
            return "a vertex attribute that was written is missing";
    if (model->accessor_count != ACC_FIRST_CHANNEL + 2u * CHANNEL_COUNT)
        return "the accessor count differs from what was written";
    if (model->accessors[prim->indices].count != INDEX_COUNT)
        return "the index count differs from what was written";
    if (model->skin_count != 1 || model->skins[0].joint_count != JOINT_COUNT)
        return "the skin does not have the 64 joints that were written";
    if (model->skins[0].inverse_bind[16u * (JOINT_COUNT - 1u) + 13u] != -joint_height(JOINT_COUNT - 1u))
        return "an inverse bind matrix differs from what was written";
    if (model->animation_count != 1 || model->animations[0].channel_count != CHANNEL_COUNT)
        return "the animation does not have the 192 channels that were written";
    const mn_animation *anim = &model->animations[0];
    for (uint32_t c = 0; c < CHANNEL_COUNT; c++) {
        const mn_channel *ch = &anim->channels[c];
        float want[4];
        uint32_t k = (c * 37u) % KEY_COUNT;
        uint32_t n = key_value(c, k, want);
        if (ch->key_count != KEY_COUNT || ch->components != n || ch->node != c / 3u + 1u ||
            ch->interpolation != MN_INTERP_LINEAR || ch->times[k] != key_time(k) ||
            !same_floats(ch->values + (size_t)k * n, want, n))
            return "an animation channel differs from what was written";
    }
    return NULL;
}

/* Sampled converted values against the generator; then poisoned, so the next
   repetition has to write them again to pass.  Poisoning is a second pass:
   a sample drawn twice must not meet its own poison. */
static const char *check_converted(converted *out, uint32_t seed)
{
    uint32_t state = seed * 2654435761u + 1u;
    for (uint32_t s = 0; s < SPOT_CHECKS; s++) {
        uint32_t v = next_sample(&state, VERTEX_COUNT);
        vertex want = vertex_of(v);
        const float joints[4] = {want.joints[0], want.joints[1], want.joints[2], want.joints[3]};
        const float *wants[OUT_ATTRIBUTE_COUNT] = {want.position, want.normal, want.uv, joints,
                                                   want.weights};
        for (int a = 0; a < OUT_ATTRIBUTE_COUNT; a++)
            if (!same_floats(out->floats[a] + (size_t)v * out_components[a], wants[a], out_components[a]))
                return "a converted vertex attribute differs from what was written";
        uint32_t i = next_sample(&state, INDEX_COUNT);
        if (out->indices[i] != index_of(i))
            return "a converted index differs from what was written";
    }
    state = seed * 2654435761u + 1u;
    for (uint32_t s = 0; s < SPOT_CHECKS; s++) {
        uint32_t v = next_sample(&state, VERTEX_COUNT);
        for (int a = 0; a < OUT_ATTRIBUTE_COUNT; a++)
            out->floats[a][(size_t)v * out_components[a]] = NAN;
        out->indices[next_sample(&state, INDEX_COUNT)] = UINT32_MAX;
    }
    return NULL;
}

/* Zero-copy: POSITION and NORMAL are f32 vec3 packed, so they must be views,
   and views into the caller's bytes (copy_input is false), not into a copy. */
static const char *check_zero_copy(const load_ctx *ctx, uint32_t seed)
{
    const mn_model *model = ctx->model;
    const mn_primitive *prim = body_primitive(model);
    const float *pos = mn_accessor_float_view(&model->accessors[mn_primitive_find(prim, MN_SEMANTIC_POSITION, 0)]);
    const float *nrm = mn_accessor_float_view(&model->accessors[mn_primitive_find(prim, MN_SEMANTIC_NORMAL, 0)]);
    if (pos == NULL || nrm == NULL)
        return "mn_accessor_float_view gave no zero-copy view of POSITION or NORMAL";
    uintptr_t begin = (uintptr_t)ctx->glb, end = begin + ctx->glb_size;
    if ((uintptr_t)pos < begin || (uintptr_t)(pos + 3u * (size_t)VERTEX_COUNT) > end)
        return "POSITION's float view does not point into the input bytes: the reader copied them";
    uint32_t state = seed * 2654435761u + 7u;
    for (uint32_t s = 0; s < SPOT_CHECKS; s++) {
        uint32_t v = next_sample(&state, VERTEX_COUNT);
        vertex want = vertex_of(v);
        if (!same_floats(pos + (size_t)v * 3u, want.position, 3) ||
            !same_floats(nrm + (size_t)v * 3u, want.normal, 3))
            return "a zero-copy POSITION or NORMAL value differs from what was written";
    }
    return NULL;
}

/* Untimed, after each repetition: check what was loaded, then free it. */
static bool load_after(void *user)
{
    load_ctx *ctx = user;
    if (ctx->model == NULL)
        return false;        /* the read failed: status and err say why */
    if (ctx->failure == NULL)
        ctx->failure = check_shape(ctx->model);
    if (ctx->failure == NULL)
        ctx->failure = ctx->out != NULL ? check_converted(ctx->out, ctx->repetition)
                                        : check_zero_copy(ctx, ctx->repetition);
    mn_model_free(ctx->model);
    ctx->model = NULL;
    ctx->repetition++;
    return ctx->failure == NULL;
}

/* A repetition that failed: say why as a JSON line (to stdout, with the rest). */
static void report_failure(const char *name, const load_ctx *ctx)
{
    bench_line line;
    bench_line_begin(&line, "load", name);
    if (ctx->status != MN_OK) {
        bench_line_str(&line, "error", mn_status_name(ctx->status));
        bench_line_str(&line, "message", ctx->err.message);
        bench_line_str(&line, "path", ctx->err.path);
    } else {
        bench_line_str(&line, "error", ctx->failure != NULL ? ctx->failure : "unknown failure");
    }
    bench_line_print(&line);
    mn_model_free(ctx->model);
}

/* ---- process memory ---------------------------------------------------------- */

/* Resident bytes now (Linux /proc/self/statm), 0 when unknown. */
static size_t resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, resident = 0;
    if (f == NULL)
        return 0;
    if (fscanf(f, "%lu %lu", &size, &resident) != 2)
        resident = 0;
    fclose(f);
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (size_t)resident * (size_t)page : 0;
}

/* Peak resident bytes of the process so far (ru_maxrss is in KiB on Linux). */
static size_t peak_resident_bytes(void)
{
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0)
        return 0;
    return (size_t)usage.ru_maxrss * 1024u;
}

/* ---- files --------------------------------------------------------------------- */

static bool write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return false;
    bool ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

static uint8_t *read_whole_file(const char *path, size_t size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data = f != NULL ? malloc(size) : NULL;
    bool ok = data != NULL && fread(data, 1, size, f) == size;
    if (f != NULL)
        fclose(f);
    if (!ok) {
        free(data);
        return NULL;
    }
    return data;
}

/* ---- the cases ------------------------------------------------------------------- */

typedef struct bench_state {
    int runs;
    char dir[4096], path[4200];
    size_t file_size;
    glb_info info;
    counter count;
    converted out;
} bench_state;

static mn_gltf_options counting_options(counter *c)
{
    mn_gltf_options options;
    memset(&options, 0, sizeof options);
    options.allocator.alloc = counter_alloc;
    options.allocator.free = counter_free;
    options.allocator.user = c;
    return options;
}

/*
 * One read_file_convert through the counting allocator, first thing after
 * the generator freed its copy: the process is then small, so its peak RSS
 * (ru_maxrss) is set by this run and the RSS delta means something.
 */
static bool case_peak_memory(bench_state *s)
{
    size_t rss_before = resident_bytes();
    size_t maxrss_before = peak_resident_bytes();
    if (!converted_alloc(&s->out, &s->count)) {
        fprintf(stderr, "bench_load: out of memory for the converted buffers\n");
        return false;
    }
    load_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.path = s->path;
    ctx.options = counting_options(&s->count);
    ctx.out = &s->out;
    size_t live_before = s->count.live;
    size_t allocations_before = s->count.allocations;
    bool ok = load_body(&ctx);
    size_t model_bytes = s->count.live - live_before;     /* what the loaded model keeps */
    size_t allocations = s->count.allocations - allocations_before;
    ok = load_after(&ctx) && ok;
    if (!ok) {
        report_failure("peak_memory_read_file", &ctx);
        return false;
    }
    size_t maxrss_after = peak_resident_bytes();
    size_t data = s->file_size + s->out.bytes;
    size_t budget = data + data / 10u;
    size_t library_peak = s->count.peak - s->out.bytes;
    /* A reader that maps the file (mmap) instead of allocating it shows a
       library peak below the file size.  The mapped pages are memory all the
       same (the page cache's, resident while the model lives), so the file
       is then added once to compare like with like. */
    bool file_in_allocator = library_peak >= s->file_size;
    size_t peak = s->count.peak + (file_in_allocator ? 0 : s->file_size);
    bench_line line;
    bench_line_begin(&line, "load", "peak_memory_read_file");
    bench_line_u64(&line, "file_bytes", s->file_size);
    bench_line_u64(&line, "converted_bytes", s->out.bytes);
    bench_line_u64(&line, "library_peak_bytes", library_peak);
    bench_line_u64(&line, "model_bytes", model_bytes);
    bench_line_u64(&line, "library_allocations", allocations);
    bench_line_bool(&line, "file_in_allocator", file_in_allocator);
    bench_line_u64(&line, "peak_bytes", peak);
    bench_line_u64(&line, "budget_bytes", budget);
    bench_line_num(&line, "peak_over_file_plus_converted", (double)peak / (double)data);
    bench_line_bool(&line, "within_budget", peak <= budget);
    bool rss_meaningful = rss_before > 0 && maxrss_after > maxrss_before;
    bench_line_bool(&line, "maxrss_meaningful", rss_meaningful);
    if (rss_meaningful) {
        bench_line_u64(&line, "rss_before_bytes", rss_before);
        bench_line_u64(&line, "maxrss_bytes", maxrss_after);
        bench_line_u64(&line, "maxrss_delta_bytes", maxrss_after - rss_before);
        bench_line_num(&line, "maxrss_delta_over_file_plus_converted",
                       (double)(maxrss_after - rss_before) / (double)data);
    }
    bench_line_print(&line);
    return true;
}

/* (a) and (b): the in-memory GLB, read without copying it. */
static bool case_memory(bench_state *s, const uint8_t *glb, bool convert)
{
    const char *name = convert ? "parse_convert" : "parse_zero_copy";
    load_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.glb = glb;
    ctx.glb_size = s->file_size;
    ctx.options.copy_input = false;
    ctx.out = convert ? &s->out : NULL;
    bench_timing t = bench_run(s->runs, load_body, load_after, &ctx);
    if (!t.ok) {
        report_failure(name, &ctx);
        return false;
    }
    size_t bytes = convert ? s->out.bytes : s->file_size;
    bench_timing m = bench_memcpy_ms(bytes, s->runs);
    bench_line line;
    bench_line_begin(&line, "load", name);
    bench_line_throughput(&line, bytes, t, m);
    bench_line_u64(&line, "file_bytes", s->file_size);
    if (convert)
        bench_line_str(&line, "bytes_are", "written by the conversions");
    else
        bench_line_bool(&line, "zero_copy", true);   /* checked on every repetition */
    bench_line_print(&line);
    return true;
}

/* (c): from the file, the read included, through the counting allocator. */
static bool case_file(bench_state *s)
{
    load_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.path = s->path;
    ctx.options = counting_options(&s->count);
    ctx.out = &s->out;
    s->count.peak = s->count.live;
    bench_timing t = bench_run(s->runs, load_body, load_after, &ctx);
    if (!t.ok) {
        report_failure("read_file_convert", &ctx);
        return false;
    }
    bench_timing m = bench_memcpy_ms(s->file_size, s->runs);
    bench_line line;
    bench_line_begin(&line, "load", "read_file_convert");
    bench_line_throughput(&line, s->file_size, t, m);
    bench_line_u64(&line, "converted_bytes", s->out.bytes);
    bench_line_u64(&line, "allocator_peak_bytes", s->count.peak);
    bench_line_str(&line, "page_cache", "warm: the file was just written, so no disk I/O is timed");
    bench_line_print(&line);
    return true;
}

/* Generate the GLB, write it to a fresh temp folder, and free it. */
static bool make_file(bench_state *s)
{
    const char *tmp = getenv("TMPDIR");
    if (tmp == NULL || tmp[0] == '\0')
        tmp = "/tmp";
    snprintf(s->dir, sizeof s->dir, "%s/mn_bench_load_XXXXXX", tmp);
    if (mkdtemp(s->dir) == NULL) {
        fprintf(stderr, "bench_load: cannot create a folder under %s\n", tmp);
        return false;
    }
    snprintf(s->path, sizeof s->path, "%s/bench_load.glb", s->dir);
    double start = bench_now_ms();
    uint8_t *glb = build_glb(&s->file_size, &s->info);
    double generate_ms = bench_now_ms() - start;
    bool ok = glb != NULL && write_file(s->path, glb, s->file_size);
    free(glb);
    if (!ok) {
        fprintf(stderr, "bench_load: cannot generate or write %s\n", s->path);
        return false;
    }
    bench_line line;
    bench_line_begin(&line, "load", "glb");
    bench_line_u64(&line, "bytes", s->file_size);
    bench_line_u64(&line, "json_bytes", s->info.json_bytes);
    bench_line_u64(&line, "bin_bytes", s->info.bin_bytes);
    bench_line_u64(&line, "vertices", VERTEX_COUNT);
    bench_line_u64(&line, "indices", INDEX_COUNT);
    bench_line_u64(&line, "joints", JOINT_COUNT);
    bench_line_u64(&line, "channels", CHANNEL_COUNT);
    bench_line_u64(&line, "keys_per_channel", KEY_COUNT);
    bench_line_num(&line, "generate_ms", generate_ms);
    bench_line_i64(&line, "runs", s->runs);
    bench_line_print(&line);
    return true;
}

static bool run_cases(bench_state *s)
{
    if (!case_peak_memory(s))
        return false;
    uint8_t *glb = read_whole_file(s->path, s->file_size);
    if (glb == NULL) {
        fprintf(stderr, "bench_load: cannot read back %s\n", s->path);
        return false;
    }
    bool ok = case_memory(s, glb, false) && case_memory(s, glb, true);
    free(glb);
    return ok && case_file(s);
}

int main(int argc, char **argv)
{
    static bench_state s;   /* static: the path buffers are large for a stack frame */
    s.runs = DEFAULT_RUNS;
    if (argc > 1) {
        s.runs = atoi(argv[1]);
        if (s.runs < 1 || s.runs > BENCH_MAX_RUNS) {
            fprintf(stderr, "usage: bench_load [runs 1..%d]\n", BENCH_MAX_RUNS);
            return 2;
        }
    }
    if (!make_file(&s))
        return 1;
    bool ok = run_cases(&s);
    converted_free(&s.out, &s.count);
    if (ok && (s.count.live != 0 || s.count.underflow)) {
        fprintf(stderr, "bench_load: %zu bytes still live after freeing everything%s\n",
                s.count.live, s.count.underflow ? " (and a free larger than what was live)" : "");
        ok = false;
    }
    remove(s.path);
    remove(s.dir);
    return ok ? 0 : 1;
}
