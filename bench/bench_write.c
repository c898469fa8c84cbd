/*
 * bench_write — how fast mn_gltf_write produces a big GLB, beside memcpy.
 *
 * The model is bench_load's (generated here byte by byte, so no asset is
 * needed): a torus of 1000 × 1000 vertices (POSITION, NORMAL, TEXCOORD_0 as
 * f32; JOINTS_0 as u16 vec4; WEIGHTS_0 as f32 vec4), 6,000,000 u32 indices,
 * a chain of 64 joints with inverse bind matrices, and one animation of
 * 64 × 3 LINEAR channels of 1,000 keys each: about 83 MB.  It is loaded once
 * (mn_gltf_read_memory), then written again and again.
 *
 * Cases, each one JSON line (bench.h):
 *   model              what was generated and loaded
 *   write_glb          mn_gltf_write as GLB into a memory sink that appends to
 *                      a preallocated, pre-faulted buffer; bytes = the GLB
 *                      written; beside memcpy of the same bytes in the same run
 *   write_glb_quantized the same with options.quantize (positions stay f32
 *                      here: the mesh is skinned; normals and uvs shrink)
 *
 * Every repetition is checked: the first written GLB is read back and its
 * accessors compared with the loaded model's, and every later repetition
 * must give the same bytes (the writer is deterministic).  A figure is never
 * printed for wrong work; exit 0 when every case ran and checked out.
 *
 * Usage: bench_write [runs]   (default 5)
 */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"
#include "bench_glb.h"

#include <marionette/gltf.h>
#include <marionette/model.h>

#include <math.h>

/* ---- the generated model -------------------------------------------------- */

#define GRID 1000u                            /* vertices around each ring and rings around the torus */
#define VERTEX_COUNT (GRID * GRID)
#define INDEX_COUNT (VERTEX_COUNT * 6u)       /* one quad per vertex: the torus wraps both ways */
#define JOINT_COUNT 64u
#define KEY_COUNT 1000u
#define CHANNEL_COUNT (JOINT_COUNT * 3u)      /* translation, rotation, scale per joint */
#define DEFAULT_RUNS 5

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

/* ---- the memory sink ---------------------------------------------------------- */

/* Appends to one preallocated buffer, written over once before timing (no page faults timed). */
typedef struct memory_sink {
    uint8_t *data;
    size_t size, capacity;
    bool overflow;
} memory_sink;

static bool sink_write(void *user, const char *name, const void *bytes, size_t size)
{
    (void)name;
    memory_sink *s = user;
    if (s->capacity - s->size < size) {
        s->overflow = true;
        return false;
    }
    memcpy(s->data + s->size, bytes, size);
    s->size += size;
    return true;
}

/* ---- one repetition -------------------------------------------------------------- */

typedef struct write_ctx {
    const mn_model *model;
    mn_gltf_write_options options;
    memory_sink sink;
    uint8_t *first;             /* the first repetition's bytes: every later one must equal them */
    size_t first_size;
    mn_error err;
    mn_status status;
} write_ctx;

static bool write_body(void *user)
{
    write_ctx *c = user;
    c->sink.size = 0;
    mn_gltf_sink sink = {sink_write, &c->sink};
    c->status = mn_gltf_write(c->model, &c->options, &sink, &c->err);
    return c->status == MN_OK;
}

/* Untimed: the bytes equal the first repetition's (kept on the first). */
static bool write_after(void *user)
{
    write_ctx *c = user;
    if (!c->first) {
        c->first = malloc(c->sink.size);
        if (!c->first)
            return false;
        memcpy(c->first, c->sink.data, c->sink.size);
        c->first_size = c->sink.size;
        return true;
    }
    return c->sink.size == c->first_size && memcmp(c->sink.data, c->first, c->first_size) == 0;
}

/* The written GLB reads back with the loaded model's accessor values (spot checks: every 997th float). */
static bool check_written(const mn_model *model, const uint8_t *glb, size_t size, bool quantized)
{
    mn_model *back = NULL;
    mn_error err;
    if (mn_gltf_read_memory(glb, size, NULL, &back, &err) != MN_OK) {
        fprintf(stderr, "bench_write: the written GLB does not read back: %s\n", err.message);
        return false;
    }
    const mn_primitive *p = &model->meshes[0].primitives[0], *q = &back->meshes[0].primitives[0];
    bool ok = back->animations[0].channel_count == CHANNEL_COUNT && p->attribute_count == q->attribute_count;
    for (uint32_t a = 0; ok && a < p->attribute_count; a++) {
        const mn_accessor *x = &model->accessors[p->attributes[a].accessor];
        const mn_accessor *y = &back->accessors[q->attributes[a].accessor];
        size_t n = mn_accessor_unpack_floats(x, NULL, 0);
        float *fx = malloc(n * sizeof *fx), *fy = malloc(n * sizeof *fy);
        ok = fx && fy && mn_accessor_unpack_floats(y, NULL, 0) == n;
        if (ok) {
            mn_accessor_unpack_floats(x, fx, n);
            mn_accessor_unpack_floats(y, fy, n);
            double tol = quantized && x->component == MN_COMPONENT_F32 && y->component != MN_COMPONENT_F32 ? 1.0 / 127.0 : 0.0;
            for (size_t i = 0; ok && i < n; i += 997)
                ok = fabs((double)fx[i] - (double)fy[i]) <= tol;
        }
        free(fx);
        free(fy);
    }
    for (uint32_t c = 0; ok && c < CHANNEL_COUNT; c++) {
        const mn_channel *x = &model->animations[0].channels[c], *y = &back->animations[0].channels[c];
        ok = x->key_count == y->key_count && memcmp(x->times, y->times, x->key_count * 4u) == 0 &&
             memcmp(x->values, y->values, (size_t)x->key_count * x->components * 4u) == 0;
    }
    if (!ok)
        fprintf(stderr, "bench_write: the written GLB reads back with other values\n");
    mn_model_free(back);
    return ok;
}

static bool case_write(const char *name, const mn_model *model, bool quantize, int runs, size_t capacity)
{
    write_ctx c;
    memset(&c, 0, sizeof c);
    c.model = model;
    c.options.quantize = quantize;
    c.sink.capacity = capacity;
    c.sink.data = malloc(capacity);
    if (!c.sink.data)
        return false;
    memset(c.sink.data, 0x5a, capacity);   /* pre-faulted: page faults are not the writer's cost */
    bench_timing t = bench_run(runs, write_body, write_after, &c);
    bool ok = t.ok && check_written(model, c.first, c.first_size, quantize);
    if (!t.ok)
        fprintf(stderr, "bench_write: %s failed: %s%s\n", name, c.status != MN_OK ? c.err.message : "the bytes differ between runs",
                c.sink.overflow ? " (sink full)" : "");
    if (ok) {
        bench_timing m = bench_memcpy_ms(c.first_size, runs);
        bench_line line;
        bench_line_begin(&line, "write", name);
        bench_line_throughput(&line, c.first_size, t, m);
        bench_line_num(&line, "mb_per_s", (double)c.first_size / (t.best_ms * 1e3));
        bench_line_bool(&line, "deterministic", true);   /* checked on every repetition */
        bench_line_print(&line);
    }
    free(c.first);
    free(c.sink.data);
    return ok;
}

int main(int argc, char **argv)
{
    int runs = 5;
    if (argc > 1) {
        runs = atoi(argv[1]);
        if (runs < 1 || runs > BENCH_MAX_RUNS) {
            fprintf(stderr, "usage: bench_write [runs 1..%d]\n", BENCH_MAX_RUNS);
            return 2;
        }
    }
    size_t size = 0;
    glb_info info;
    uint8_t *glb = build_glb(&size, &info);
    mn_model *model = NULL;
    mn_error err;
    if (!glb || mn_gltf_read_memory(glb, size, NULL, &model, &err) != MN_OK) {
        fprintf(stderr, "bench_write: cannot generate or load the model%s%s\n", glb ? ": " : "", glb ? err.message : "");
        free(glb);
        return 1;
    }
    bench_line line;
    bench_line_begin(&line, "write", "model");
    bench_line_u64(&line, "source_glb_bytes", size);
    bench_line_u64(&line, "vertices", VERTEX_COUNT);
    bench_line_u64(&line, "indices", INDEX_COUNT);
    bench_line_u64(&line, "joints", JOINT_COUNT);
    bench_line_u64(&line, "channels", CHANNEL_COUNT);
    bench_line_i64(&line, "runs", runs);
    bench_line_print(&line);
    /* Room for the GLB as written: the source's size plus slack for its own JSON. */
    size_t capacity = size + size / 8 + (1u << 20);
    bool ok = case_write("write_glb", model, false, runs, capacity) &&
              case_write("write_glb_quantized", model, true, runs, capacity);
    mn_model_free(model);
    free(glb);
    return ok ? 0 : 1;
}
