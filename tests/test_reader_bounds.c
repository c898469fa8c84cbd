/*
 * Every reader of untrusted input keeps its memory in proportion to what it
 * is given (docs/formats.md states each bound): the peak of a read, through
 * the counting allocator with jansson's DOM counted into the same counter, is
 * at most K bytes for each byte of input (plus twice the mesh a part mesh
 * returns) and 1 MiB.  Each reader is fed the most elements its format lets a
 * size hold: short names, empty members, the smallest records, names repeated
 * where they may be, chains where nesting is allowed, at n and 4n elements,
 * so that a cost growing faster than the input, or a constant far above the
 * DOM's own (about 70 for "{}"), shows.  Time is never asserted: the shapes
 * include each one whose checks were quadratic (a name found by a scan for
 * each element, a parent chain walked from every node), which at ten times
 * these sizes took from seconds to minutes and now read in proportion.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <marionette/character/corrective.h>
#include <marionette/character/mouth.h>
#include <marionette/character/package.h>
#include <marionette/character/soma.h>
#include <marionette/character/splat.h>
#include <marionette/head/aosrig.h>
#include <marionette/head/arkit.h>
#include <marionette/obj.h>
#include <marionette/voxel/rig.h>

#include "counting_alloc.h"
#include "glb_builder.h"

/* ---- counting, jansson included ------------------------------------------------------------------ */


static mn_counting_alloc counter;
static mn_allocator hooks;

static void count_begin(void)
{
    counter = mn_counting_alloc_make();
    hooks = mn_counting_allocator(&counter);
    mn_counting_json_begin(&counter);
}

/* The read's peak; everything it made must be freed by now. */
static size_t count_end(void)
{
    mn_counting_json_end();
    assert_int_equal(counter.live_bytes, 0);
    return counter.peak_bytes;
}

static void expect_ok(mn_status st, const mn_error *err)
{
    if (st != MN_OK)
        fail_msg("%s: %s (%s)", mn_status_name(st), err->message, err->path);
}

/* ---- input text --------------------------------------------------------------------------------- */

typedef struct text {
    char *data;
    size_t len, cap;
} text;

static void grow(text *t, size_t more)
{
    if (t->len + more + 1 <= t->cap)
        return;
    while (t->len + more + 1 > t->cap)
        t->cap = t->cap ? 2 * t->cap : 4096;
    t->data = realloc(t->data, t->cap);
    assert_non_null(t->data);
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    assert_true(n >= 0);
    grow(t, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(t->data + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

static void put_bytes(text *t, const void *bytes, size_t n)
{
    grow(t, n);
    memcpy(t->data + t->len, bytes, n);
    t->len += n;
}

static void put_u32(text *t, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put_bytes(t, b, 4);
}

static void put_f32(text *t, float f)
{
    uint32_t v;
    memcpy(&v, &f, 4);
    put_u32(t, v);
}

/* A short name for element i, distinct for every i: letters only, "a".."z", "ba", ... */
static const char *name_of(uint32_t i, char buf[16])
{
    char rev[16];
    int n = 0;
    do {
        rev[n++] = (char)('a' + i % 26);
        i /= 26;
    } while (i);
    for (int k = 0; k < n; k++)
        buf[k] = rev[n - 1 - k];
    buf[n] = '\0';
    return buf;
}

#define NAME(i) name_of((i), (char[16]){0})

/* ---- one reader, one shape, two sizes ------------------------------------------------------------ */

/* Build the input of n elements into t. */
typedef void (*build_fn)(text *t, uint32_t n);
/* Read t (n elements) with the counting hooks; the bytes it returns (0 unless it returns geometry). */
typedef size_t (*read_fn)(const text *t, uint32_t n);

typedef struct shape {
    const char *reader, *what;
    build_fn build;
    read_fn read;
    double k;                /* the bound: peak <= k x input (+ output x 2) + SLACK */
    uint32_t n;              /* elements of the smaller size; 0: N */
} shape;

/* What any read may take whatever its size: holders, and the partly used last blocks of its
   arenas (whose blocks grow to 1 MiB). */
#define SLACK (1u << 20)

typedef struct measure {
    size_t bytes, peak, output;
} measure;

static measure measure_shape(const shape *s, uint32_t n)
{
    text t = {0};
    s->build(&t, n);
    measure m = {t.len, 0, 0};
    count_begin();
    m.output = s->read(&t, n);
    m.peak = count_end();
    free(t.data);
    return m;
}

/* Peak per byte at n and 4n, both within the shape's bound. */
static void check_shape(const shape *s, uint32_t n)
{
    n = s->n ? s->n : n;
    measure small = measure_shape(s, n), large = measure_shape(s, 4 * n);
    const measure *both[2] = {&small, &large};
    for (int i = 0; i < 2; i++) {
        const measure *m = both[i];
        double per_byte = (double)m->peak / (double)m->bytes;
        print_message("    %-12s %-40s %7u: %9zu bytes, peak %6.2f x%s\n", s->reader, s->what,
                      i ? 4 * n : n, m->bytes, per_byte, m->output ? " (geometry out)" : "");
        double allowed = s->k * (double)m->bytes + 2.0 * (double)m->output + SLACK;
        if ((double)m->peak > allowed)
            fail_msg("%s, %s: peak %zu bytes for %zu of input (%zu out): over %.0f x the input", s->reader,
                     s->what, m->peak, m->bytes, m->output, s->k);
    }
}

/* Element counts (build with -DN=... to measure other sizes): enough that a read's constant is small. */
#ifndef N
#define N 10000u
#endif
/* For the shapes of a few bytes an element: enough bytes that SLACK is small beside them. */
#define MANY 100000u

/* The bounds docs/formats.md states, in bytes of peak per byte of input. */
#define RIG_K 48.0             /* rig.json (13-20 as written; 37 for unknown {} members) */
#define PART_K 40.0            /* a part mesh's GLB, plus twice the mesh it returns */
#define AOSRIG_K 16.0          /* a .aosrig pack */
#define ARKIT_K 64.0           /* an ARKit table, or face.arkit and its table file */
#define DESCRIPTOR_K 40.0      /* character.json */
#define SOMA_K 16.0            /* skeleton.json */
#define CLIPS_K 32.0           /* clips.json whose clips are kept */
#define CLIPS_DROPPED_K 128.0  /* clips.json of {} clips, every one dropped and reported */
#define CORRECTIVE_K 16.0      /* corrective/index.json */
#define BINARY_K 2.0           /* mouth_hidden.bin, character.ply, bindings.bin */
#define MTL_K 32.0             /* MTL text */

/* ---- rig.json ------------------------------------------------------------------------------------ */

/* A chain of parts listed children first (each part's parent comes after it). */
static void rig_parts(text *t, uint32_t n)
{
    put(t, "{\"parts\":[");
    for (uint32_t i = 0; i < n; i++) {
        put(t, i ? ",{\"name\":\"%s\",\"parent\":" : "{\"name\":\"%s\",\"parent\":", NAME(i));
        put(t, i + 1 < n ? "\"%s\",\"pivot\":[0,0,0]}" : "null,\"pivot\":[0,0,0]}", NAME(i + 1));
    }
    put(t, "]}");
}

static void rig_joint_list(text *t, uint32_t n)
{
    put(t, "{\"parts\":[{\"name\":\"a\",\"parent\":null,\"pivot\":[0,0,0]}],\"joints\":[");
    for (uint32_t i = 0; i < n; i++)
        put(t, "%s{\"name\":\"%s\",\"part\":\"a\",\"type\":\"rotation\",\"axis\":\"x\",\"min\":0,"
               "\"max\":0,\"rest\":0,\"drive\":\"caller\"}", i ? "," : "", NAME(i));
    put(t, "]");
}

static void rig_joints(text *t, uint32_t n)
{
    rig_joint_list(t, n);
    put(t, "}");
}

/* n joints and one looping animation with a one-key track for each. */
static void rig_tracks(text *t, uint32_t n)
{
    rig_joint_list(t, n);
    put(t, ",\"animations\":[{\"name\":\"a\",\"loop\":true,\"auto_play\":true,\"duration_ms\":1,"
           "\"tracks\":[");
    for (uint32_t i = 0; i < n; i++)
        put(t, "%s{\"joint\":\"%s\",\"keys\":[{\"t\":0,\"v\":0,\"interp\":\"linear\"}]}", i ? "," : "",
            NAME(i));
    put(t, "]}]}");
}

/* One looping track of n bezier keys: what baking works hardest on. */
static void rig_keys(text *t, uint32_t n)
{
    rig_joint_list(t, 1);
    put(t, ",\"animations\":[{\"name\":\"a\",\"loop\":true,\"auto_play\":true,\"duration_ms\":%u,"
           "\"tracks\":[{\"joint\":\"a\",\"keys\":[", n);
    for (uint32_t i = 0; i < n; i++)
        put(t, "%s{\"t\":%u,\"v\":%u,\"interp\":\"bezier\"}", i ? "," : "", i, i % 7);
    put(t, "]}]}]}");
}

static void rig_animations(text *t, uint32_t n)
{
    put(t, "{\"parts\":[{\"name\":\"a\",\"parent\":null,\"pivot\":[0,0,0]}],\"animations\":[");
    for (uint32_t i = 0; i < n; i++)
        put(t, "%s{\"name\":\"%s\",\"loop\":false,\"auto_play\":false,\"tracks\":[]}", i ? "," : "",
            NAME(i));
    put(t, "]}");
}

/* n looping animations of one track each: a grid is baked for every one, within the budget. */
static void rig_loops(text *t, uint32_t n)
{
    rig_joint_list(t, 1);
    put(t, ",\"animations\":[");
    for (uint32_t i = 0; i < n; i++)
        put(t, "%s{\"name\":\"%s\",\"loop\":true,\"auto_play\":false,\"duration_ms\":9,\"tracks\":["
               "{\"joint\":\"a\",\"keys\":[{\"t\":0,\"v\":0,\"interp\":\"bezier\"},{\"t\":5,\"v\":1,"
               "\"interp\":\"bezier\"}]}]}", i ? "," : "", NAME(i));
    put(t, "]}");
}

/* One part with n unknown members, kept as its extras. */
static void rig_extras(text *t, uint32_t n)
{
    put(t, "{\"parts\":[{\"name\":\"a\",\"parent\":null,\"pivot\":[0,0,0]");
    for (uint32_t i = 0; i < n; i++)
        put(t, ",\"_%s\":{}", NAME(i)); /* "_": never a member the reader knows */
    put(t, "}]}");
}

static size_t read_rig(const text *t, uint32_t n)
{
    (void)n;
    mn_voxel_rig_options o = {.allocator = hooks};
    mn_voxel_rig *rig = NULL;
    mn_error err;
    expect_ok(mn_voxel_rig_read_memory(t->data, t->len, &o, &rig, &err), &err);
    assert_true(rig->part_count + rig->joint_count + rig->animation_count > 0);
    mn_voxel_rig_free(rig);
    return 0;
}

/* ---- part meshes ---------------------------------------------------------------------------------- */

enum { GLTF_FLOAT = 5126, GLTF_UBYTE = 5121 };

/* One triangle (no NORMAL: unwelded, face normals), as mesh 0, its bytes in the builder. */
static void one_triangle(gb_builder *b)
{
    gb_bin_f32(b, 0, 0, 0, 1, 0, 0, 0, 1, 0);
    gb_json(b, "'buffers':[{'byteLength':36}],'bufferViews':[{'buffer':0,'byteLength':36}],"
               "'accessors':[{'bufferView':0,'componentType':%d,'count':3,'type':'VEC3',"
               "'min':[0,0,0],'max':[1,1,0]}],'meshes':[{'primitives':[{'attributes':{'POSITION':0}}]}]",
            GLTF_FLOAT);
}

/* The GLB written to a file and read back as a part mesh; what the mesh holds, in bytes. */
static size_t read_part_mesh(const text *t, uint32_t n)
{
    (void)n;
    gb_tempdir dir;
    assert_true(gb_tempdir_create(&dir));
    const char *path = gb_tempdir_write(&dir, "part.glb", t->data, t->len);
    assert_non_null(path);
    mn_part_mesh *mesh = NULL;
    mn_error err;
    expect_ok(mn_part_mesh_read_file(path, false, &hooks, &mesh, &err), &err);
    size_t out = (size_t)mesh->vertex_count * 36 + (size_t)mesh->index_count * 4;
    mn_part_mesh_free(mesh);
    gb_tempdir_remove(&dir);
    return out;
}

static void glb_into(text *t, gb_builder *b)
{
    gb_blob glb = gb_glb(b);
    put_bytes(t, glb.data, glb.size);
    gb_blob_free(&glb);
    gb_free(b);
}

/* A chain of n nodes, the triangle at its far end: the scene's depth is the file's length. */
static void part_chain(text *t, uint32_t n)
{
    gb_builder b;
    gb_init(&b);
    gb_json(&b, "{'asset':{'version':'2.0'},'scene':0,'scenes':[{'nodes':[0]}],");
    one_triangle(&b);
    gb_json(&b, ",'nodes':[");
    for (uint32_t i = 0; i + 1 < n; i++)
        gb_json(&b, "{'children':[%u]},", i + 1);
    gb_json(&b, "{'mesh':0}]}");
    glb_into(t, &b);
}

/* n root nodes instancing the one triangle: the output grows with the nodes. */
static void part_instances(text *t, uint32_t n)
{
    gb_builder b;
    gb_init(&b);
    gb_json(&b, "{'asset':{'version':'2.0'},");
    one_triangle(&b);
    gb_json(&b, ",'nodes':[");
    for (uint32_t i = 0; i < n; i++)
        gb_json(&b, "%s{'mesh':0}", i ? "," : "");
    gb_json(&b, "]}");
    glb_into(t, &b);
}

/* n triangles of one-byte indices over three vertices: the most output a byte can ask for. */
static void part_corners(text *t, uint32_t n)
{
    gb_builder b;
    gb_init(&b);
    gb_bin_f32(&b, 0, 0, 0, 1, 0, 0, 0, 1, 0);
    for (uint32_t i = 0; i < n; i++)
        gb_bin_u8(&b, 0, 1, 2);
    gb_json(&b, "{'asset':{'version':'2.0'},'buffers':[{'byteLength':%zu}],'bufferViews':["
                "{'buffer':0,'byteLength':36},{'buffer':0,'byteOffset':36,'byteLength':%u}],"
                "'accessors':[{'bufferView':0,'componentType':%d,'count':3,'type':'VEC3',"
                "'min':[0,0,0],'max':[1,1,0]},{'bufferView':1,'componentType':%d,'count':%u,"
                "'type':'SCALAR'}],'meshes':[{'primitives':[{'attributes':{'POSITION':0},"
                "'indices':1}]}],'nodes':[{'mesh':0}]}",
            gb_bin_size(&b), 3 * n, GLTF_FLOAT, GLTF_UBYTE, 3 * n);
    glb_into(t, &b);
}

/* ---- .aosrig ------------------------------------------------------------------------------------ */

/* A one-vertex head with `joints` joints (a chain), `regions` one-coefficient regions and `extra` empty unknown blobs. */
static void aosrig_pack(text *t, uint32_t joints, uint32_t regions, uint32_t extra)
{
    uint32_t e = regions;
    char **names = calloc((size_t)joints + e + extra, sizeof *names);
    mn_aosrig_region *reg = calloc(e, sizeof *reg);
    uint16_t *basis = calloc(3 * (size_t)e + 1, sizeof *basis);
    float *scale = calloc(e, sizeof *scale), *rest = calloc(16 * (size_t)joints, sizeof *rest);
    int32_t *parents = calloc(joints, sizeof *parents);
    mn_aosrig_blob *blobs = calloc(10 + (size_t)extra, sizeof *blobs);
    assert_true(names && reg && basis && scale && rest && parents && blobs);
    for (uint32_t i = 0; i < joints + e + extra; i++) {
        names[i] = malloc(17);
        assert_non_null(names[i]);
        names[i][0] = '_'; /* never the name of a known blob ("uv") */
        name_of(i, names[i] + 1);
    }
    for (uint32_t i = 0; i < e; i++)
        reg[i] = (mn_aosrig_region){.name = names[joints + i], .count = 1};
    for (uint32_t j = 0; j < joints; j++)
        parents[j] = (int32_t)j - 1;
    static const float neutral[3], eyes[6], eye_weights[2];
    static const uint32_t faces[3];
    static const uint16_t skin_index[1], skin_weight[1] = {0x3c00};
    static const uint64_t s_v3[] = {1, 3}, s_vk[] = {1, 1}, s_23[] = {2, 3}, s_2v[] = {2, 1},
                          s_f[] = {1, 3}, s_zero[] = {0};
    uint64_t s_basis[] = {1, e, 3}, s_e[] = {e}, s_j[] = {joints}, s_rest[] = {joints, 16};
    mn_aosrig_blob known[10] = {
        {"neutral", MN_AOSRIG_F32, s_v3, 2, neutral, 12, 0},
        {"basis", MN_AOSRIG_F16, s_basis, 3, basis, 4 * ((3 * (uint64_t)e + 1) / 2), 0},
        {"basisScale", MN_AOSRIG_F32, s_e, 1, scale, 4 * (uint64_t)e, 0},
        {"faces", MN_AOSRIG_U32, s_f, 2, faces, 12, 0},
        {"skinIndex", MN_AOSRIG_U16, s_vk, 2, skin_index, 2, 0},
        {"skinWeight", MN_AOSRIG_F16, s_vk, 2, skin_weight, 2, 0},
        {"jointParents", MN_AOSRIG_I32, s_j, 1, parents, 4 * (uint64_t)joints, 0},
        {"restWorld", MN_AOSRIG_F32, s_rest, 2, rest, 64 * (uint64_t)joints, 0},
        {"eyePositions", MN_AOSRIG_F32, s_23, 2, eyes, 24, 0},
        {"eyeWeights", MN_AOSRIG_F32, s_2v, 2, eye_weights, 8, 0},
    };
    memcpy(blobs, known, sizeof known);
    for (uint32_t i = 0; i < extra; i++)
        blobs[10 + i] = (mn_aosrig_blob){names[joints + e + i], MN_AOSRIG_U8, s_zero, 1, NULL, 0, 0};
    mn_aosrig_header h = {
        .units = MN_AOSRIG_METRES, .vertex_count = 1, .coeff_count = e, .max_influence = 1,
        .names = (const char *const *)(names + joints),
        .head_ext = {e + 4, e, 4, reg, e},
        .eye_joints = {names[0], names[0]},
        .joint_names = (const char *const *)names, .joint_count = joints};
    uint8_t *data = NULL;
    size_t size = 0;
    mn_error err;
    expect_ok(mn_aosrig_write(&h, blobs, 10 + extra, NULL, &data, &size, &err), &err);
    put_bytes(t, data, size);
    mn_aosrig_bytes_free(NULL, data, size);
    for (uint32_t i = 0; i < joints + e + extra; i++)
        free(names[i]);
    free(names), free(reg), free(basis), free(scale), free(rest), free(parents), free(blobs);
}

static void aosrig_joints(text *t, uint32_t n) { aosrig_pack(t, n, 1, 0); }
static void aosrig_regions(text *t, uint32_t n) { aosrig_pack(t, 1, n, 0); }
static void aosrig_blobs(text *t, uint32_t n) { aosrig_pack(t, 1, 1, n); }

static size_t read_aosrig(const text *t, uint32_t n)
{
    (void)n;
    /* The caller's bytes are kept as views (malloc's are 8-aligned): only what the pack adds counts. */
    mn_aosrig_read_options o = {.allocator = hooks};
    mn_aosrig *pack = NULL;
    mn_error err;
    expect_ok(mn_aosrig_read_memory(t->data, t->len, &o, &pack, &err), &err);
    mn_aosrig_free(pack);
    return 0;
}

/* ---- ARKit maps --------------------------------------------------------------------------------- */

/* A layout of n one-coefficient regions r0.., as a pack with many regions gives. */
static mn_aosrig_head_ext layout_of(uint32_t n, mn_aosrig_region **regions, char (**names)[16])
{
    *regions = calloc(n, sizeof **regions);
    *names = calloc(n, sizeof **names);
    assert_true(*regions && *names);
    for (uint32_t i = 0; i < n; i++) {
        name_of(i, (*names)[i]);
        (*regions)[i] = (mn_aosrig_region){.name = (*names)[i], .count = 1, .start = i};
    }
    return (mn_aosrig_head_ext){n + 4, n, 4, *regions, n};
}

/* A table of n terms, each naming a region of an n-region layout. */
static void table_terms(text *t, uint32_t n)
{
    put(t, "{\"jawOpen\":[");
    for (uint32_t i = 0; i < n; i++)
        put(t, "%s{\"region\":\"%s\",\"index\":0,\"gain\":1}", i ? "," : "", NAME(n - 1 - i));
    put(t, "]}");
}

/* n terms that are not objects: each dropped and reported. */
static void table_drops(text *t, uint32_t n)
{
    put(t, "{\"jawOpen\":[0");
    for (uint32_t i = 1; i < n; i++)
        put(t, ",0");
    put(t, "]}");
}

static size_t read_table(const text *t, uint32_t n)
{
    mn_aosrig_region *regions;
    char(*names)[16];
    mn_aosrig_head_ext layout = layout_of(n, &regions, &names);
    mn_arkit_table_options o = {.allocator = hooks};
    mn_arkit_map *map = NULL;
    mn_error err;
    expect_ok(mn_arkit_table_map_create(&layout, t->data, t->len, &o, &map, &err), &err);
    assert_int_equal(map->terms + map->drop_count, n);
    mn_arkit_map_free(map);
    free(regions);
    free(names);
    return 0;
}

/* A face.arkit description of n channels (every other one no ARKit name, dropped) and n pairs,
   then a NUL and the table file's bytes (one coefficient a row). */
static void fitted_table(text *t, uint32_t n)
{
    put(t, "{\"version\":1,\"src\":\"f\",\"sha256\":\"ab\",\"coeffs\":1,\"channels\":[");
    for (uint32_t i = 0; i < n; i++)
        put(t, i % 2 ? ",\"jawOpen\"" : "%s\"x\"", i ? "," : "");
    put(t, "],\"pairs\":[");
    for (uint32_t i = 0; i < n; i++)
        put(t, "%s[%u,0]", i ? "," : "", i);
    put(t, "],\"gaze\":{}}");
    grow(t, 1);
    t->data[t->len++] = '\0';
    for (uint32_t i = 0; i < 2 * n; i++)
        put_f32(t, 0.5f);
}

static size_t read_fitted(const text *t, uint32_t n)
{
    static const mn_aosrig_region one = {"lower_face", 1, 0, false, 0};
    static const mn_aosrig_head_ext layout = {5, 1, 4, &one, 1};
    size_t json = strlen(t->data);
    mn_arkit_fitted_options o = {.allocator = hooks};
    mn_arkit_map *map = NULL;
    mn_error err;
    expect_ok(mn_arkit_fitted_map_create(&layout, t->data, json, t->data + json + 1, t->len - json - 1,
                                         &o, &map, &err),
              &err);
    assert_int_equal(map->drop_count, n / 2);
    mn_arkit_map_free(map);
    return 0;
}

/* ---- character.json ------------------------------------------------------------------------------ */

#define SHA "\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\""

/* The descriptor with `joints` joint names, `files` extra files, `clips` clip names, `package` entries. */
static void descriptor(text *t, uint32_t joints, uint32_t files, uint32_t clips, uint32_t package)
{
    put(t, "{\"format\":\"aosrig-splat\",\"version\":2,\"rig\":\"aosrig-v2\",\"units\":\"m\","
           "\"splatCount\":1,\"headVertexCount\":0,\"jointNames\":[");
    for (uint32_t i = 0; i < joints; i++)
        put(t, "%s\"%s\"", i ? "," : "", NAME(i));
    put(t, "],\"bounds\":{\"center\":[0,0,0],\"radius\":1},\"plyToCharacter\":[1,0,0,0,0,1,0,0,0,0,1,0],"
           "\"files\":{\"character.ply\":{\"src\":\"a\",\"sha256\":" SHA "},\"bindings.bin\":{\"src\":\"a\","
           "\"sha256\":" SHA "},\"skeleton.json\":{\"src\":\"a\",\"sha256\":" SHA "},\"clips.json\":{"
           "\"src\":\"a\",\"sha256\":" SHA "}");
    for (uint32_t i = 0; i < files; i++)
        put(t, ",\"%s\":{\"src\":\"a\",\"sha256\":" SHA "}", NAME(i));
    put(t, "},\"clips\":[");
    for (uint32_t i = 0; i < clips; i++)
        put(t, "%s\"a\"", i ? "," : "");
    put(t, "],\"package\":{\"files\":[");
    for (uint32_t i = 0; i < package; i++)
        put(t, "%s{\"path\":\"a\"}", i ? "," : "");
    put(t, "]}}");
}

/* jointNames must be unique and at most 65535: n of them (n <= 16383). */
static void descriptor_joints(text *t, uint32_t n) { descriptor(t, n, 0, 0, 0); }
static void descriptor_files(text *t, uint32_t n) { descriptor(t, 1, n, 0, 0); }
static void descriptor_clips(text *t, uint32_t n) { descriptor(t, 1, 0, n, 0); }
static void descriptor_package(text *t, uint32_t n) { descriptor(t, 1, 0, 0, n); }

static size_t read_descriptor(const text *t, uint32_t n)
{
    (void)n;
    mn_character_descriptor *d = NULL;
    mn_error err;
    expect_ok(mn_character_descriptor_read(t->data, t->len, &hooks, &d, &err), &err);
    mn_character_descriptor_free(d);
    return 0;
}

/* ---- skeleton.json, clips.json ------------------------------------------------------------------- */

/* A chain of n joints, and a twist segment on each pair of them when `twists`. */
static void skeleton(text *t, uint32_t n, bool twists)
{
    put(t, "{\"format\":\"aosrig-v2-skeleton\",\"hips\":\"a\",\"joints\":[");
    for (uint32_t i = 0; i < n; i++)
        put(t, "%s{\"name\":\"%s\",\"parent\":%d,\"localPosition\":[0,1,0],\"localRotation\":[0,0,0,1],"
               "\"inverseBind\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}", i ? "," : "", NAME(i), (int)i - 1);
    put(t, "],\"twist\":[");
    for (uint32_t i = 0; twists && i + 1 < n; i++) {
        char child[16];
        put(t, "%s{\"bone\":\"%s\",\"child\":\"%s\",\"helpers\":[]}", i ? "," : "", NAME(i),
            name_of(i + 1, child));
    }
    put(t, "]}");
}

static void skeleton_joints(text *t, uint32_t n) { skeleton(t, n, false); }
static void skeleton_twists(text *t, uint32_t n) { skeleton(t, n, true); }

static size_t read_skeleton(const text *t, uint32_t n)
{
    mn_soma_skeleton *sk = NULL;
    mn_error err;
    expect_ok(mn_soma_skeleton_read(t->data, t->len, NULL, 0, &hooks, &sk, &err), &err);
    assert_int_equal(sk->joint_count, n);
    mn_soma_skeleton_free(sk);
    return 0;
}

/* n one-frame clips without bones. */
static void clips_many(text *t, uint32_t n)
{
    put(t, "{\"format\":\"soma-clips\",\"clips\":[");
    for (uint32_t i = 0; i < n; i++)
        put(t, "%s{\"name\":\"%s\",\"fps\":1,\"frames\":1,\"root\":[0,0,0]}", i ? "," : "", NAME(i));
    put(t, "]}");
}

/* One clip that animates each of n joints for one frame. */
static void clips_bones(text *t, uint32_t n)
{
    put(t, "{\"format\":\"soma-clips\",\"clips\":[{\"name\":\"a\",\"fps\":1,\"frames\":1,\"root\":[0,0,0],"
           "\"bones\":{");
    for (uint32_t i = 0; i < n; i++)
        put(t, "%s\"%s\":[0,0,0,1]", i ? "," : "", NAME(n - 1 - i));
    put(t, "}}]}");
}

/* n clips that are empty objects: each dropped with its reason. */
static void clips_dropped(text *t, uint32_t n)
{
    put(t, "{\"format\":\"soma-clips\",\"clips\":[{}");
    for (uint32_t i = 1; i < n; i++)
        put(t, ",{}");
    put(t, "]}");
}

/* The skeleton every clips shape is read for: 4N joints, made before counting. */
static mn_soma_skeleton *clip_sk;

static size_t read_clips(const text *t, uint32_t n)
{
    (void)n;
    mn_soma_clips *clips = NULL;
    mn_error err;
    expect_ok(mn_soma_clips_read(t->data, t->len, clip_sk, &hooks, &clips, &err), &err);
    assert_true(clips->clip_count + clips->dropped_count >= 1);
    mn_soma_clips_free(clips);
    return 0;
}

/* ---- corrective/index.json ----------------------------------------------------------------------- */

/* The rig's joint names the index is read against: 4N of them. */
static char (*rig_names)[16];
static const char **rig_name_list;
static uint32_t rig_name_count;

/* n corrections, each driven by joints near the end of the rig's list. */
static void corrective(text *t, uint32_t n)
{
    put(t, "{\"format\":\"aosrig-corrective\",\"version\":1,\"splatCount\":1,\"corrections\":[");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t last = rig_name_count - 1 - i % (rig_name_count - 2);
        put(t, "%s{\"name\":\"a\",\"points\":0,\"files\":{\"points\":\"a\",\"pointsSide\":\"a\","
               "\"bindings\":\"a\",\"side\":\"a\",\"fade\":\"a\"},\"drives\":[{\"side\":0,\"bone\":[",
            i ? "," : "");
        put(t, "\"%s\",", rig_names[last]);
        put(t, "\"%s\"],\"frame\":", rig_names[last - 1]);
        put(t, "\"%s\",\"restDeg\":0,\"fromDeg\":0,\"toDeg\":1,\"curve\":\"smoothstep\"}]}",
            rig_names[last - 2]);
    }
    put(t, "]}");
}

static size_t read_corrective(const text *t, uint32_t n)
{
    mn_corrective_index *ix = NULL;
    mn_error err;
    expect_ok(mn_corrective_index_read(t->data, t->len, 1, rig_name_list, rig_name_count, &hooks, &ix,
                                       &err),
              &err);
    assert_int_equal(ix->correction_count, n);
    mn_corrective_index_free(ix);
    return 0;
}

/* ---- binary files: mouth_hidden.bin, character.ply, bindings.bin --------------------------------- */

static void mouth(text *t, uint32_t n)
{
    put_bytes(t, "MHID", 4);
    put_u32(t, 1);
    put_u32(t, n);
    static const float up_forward[6] = {0, 1, 0, 0, 0, 1};
    for (int k = 0; k < 6; k++)
        put_f32(t, up_forward[k]);
    for (uint32_t i = 0; i < n; i++) {
        put_u32(t, n - 1 - i); /* rows listed backwards: the duplicate check sorts them */
        put_u32(t, 1);         /* kind 1, padding */
        put_u32(t, 0);
        put_u32(t, 0);
    }
}

static size_t read_mouth(const text *t, uint32_t n)
{
    mn_mouth_hidden *m = NULL;
    mn_error err;
    expect_ok(mn_mouth_hidden_read(t->data, t->len, n, 1, &hooks, &m, &err), &err);
    mn_mouth_hidden_free(m);
    return 0;
}

/* n splats of the 14 properties a splat needs, nothing else. */
static void ply(text *t, uint32_t n)
{
    static const char *const props[14] = {"x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity",
                                          "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2",
                                          "rot_3"};
    put(t, "ply\nformat binary_little_endian 1.0\nelement vertex %u\n", n);
    for (int k = 0; k < 14; k++)
        put(t, "property float %s\n", props[k]);
    put(t, "end_header\n");
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 14; k++)
            put_f32(t, k == 10 ? 1.0f : 0.0f);
}

static size_t read_ply(const text *t, uint32_t n)
{
    mn_splat_read_options o = {.allocator = hooks, .expected_count = n};
    mn_splat_cloud cloud;
    mn_error err;
    expect_ok(mn_splat_ply_read(t->data, t->len, &o, &cloud, &err), &err);
    mn_splat_cloud_free(&cloud);
    return 0;
}

static void bindings(text *t, uint32_t n)
{
    put_bytes(t, "BIND", 4);
    put_u32(t, 1);
    put_u32(t, n);
    put_u32(t, 1);
    for (uint32_t i = 0; i < n; i++)
        put_bytes(t, "\0\0", 2);
    for (uint32_t i = 0; i < n; i++)
        put_f32(t, 1.0f);
}

static size_t read_bindings(const text *t, uint32_t n)
{
    mn_splat_bindings_read_options o = {.allocator = hooks, .expected_count = n, .joint_count = 1};
    mn_splat_bindings b;
    mn_error err;
    expect_ok(mn_splat_bindings_read(t->data, t->len, &o, &b, &err), &err);
    mn_splat_bindings_free(&b);
    return 0;
}

/* ---- MTL ---------------------------------------------------------------------------------------- */

static void mtl_materials(text *t, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        put(t, "newmtl %s\n", NAME(i));
}

/* One name defined n times: a warning each time. */
static void mtl_redefined(text *t, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        put(t, "newmtl a\n");
}

/* n keys before any newmtl: a warning each. */
static void mtl_orphans(text *t, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        put(t, "d 1\n");
}

static size_t read_mtl(const text *t, uint32_t n)
{
    (void)n;
    mn_obj_options o = {.allocator = hooks};
    mn_mtl_library *lib = NULL;
    mn_error err;
    expect_ok(mn_mtl_read_memory(t->data, t->len, &o, &lib, &err), &err);
    mn_mtl_free(lib);
    return 0;
}

/* ---- the shapes ------------------------------------------------------------------------------------ */

static const shape rig_shapes[] = {
    {"rig.json", "parts in a chain, children first", rig_parts, read_rig, RIG_K, 0},
    {"rig.json", "joints", rig_joints, read_rig, RIG_K, 0},
    {"rig.json", "one-key tracks of a loop", rig_tracks, read_rig, RIG_K, 0},
    {"rig.json", "bezier keys of one looping track", rig_keys, read_rig, RIG_K, 0},
    {"rig.json", "empty animations", rig_animations, read_rig, RIG_K, 0},
    {"rig.json", "looping animations of two bezier keys", rig_loops, read_rig, RIG_K, 0},
    {"rig.json", "unknown members {} of a part", rig_extras, read_rig, RIG_K, 4 * N},
};

static const shape part_shapes[] = {
    {"part mesh", "nodes in a chain, one triangle", part_chain, read_part_mesh, PART_K, 4 * N},
    {"part mesh", "nodes instancing one triangle", part_instances, read_part_mesh, PART_K, 4 * N},
    {"part mesh", "triangles of u8 indices", part_corners, read_part_mesh, PART_K, MANY},
};

static const shape aosrig_shapes[] = {
    {".aosrig", "joints in a chain", aosrig_joints, read_aosrig, AOSRIG_K, 0},
    {".aosrig", "one-coefficient regions", aosrig_regions, read_aosrig, AOSRIG_K, 0},
    {".aosrig", "empty unknown blobs", aosrig_blobs, read_aosrig, AOSRIG_K, 0},
};

static const shape arkit_shapes[] = {
    {"ARKit table", "terms naming one of N regions", table_terms, read_table, ARKIT_K, 0},
    {"ARKit table", "terms dropped (0)", table_drops, read_table, ARKIT_K, MANY},
    {"face.arkit", "channels (half dropped) and pairs", fitted_table, read_fitted, ARKIT_K, 0},
};

/* jointNames are at most 65535: 16000 and 64000 of them. */
static const shape descriptor_shapes[] = {
    {"character", "unique jointNames", descriptor_joints, read_descriptor, DESCRIPTOR_K, 16000},
    {"character", "files", descriptor_files, read_descriptor, DESCRIPTOR_K, 0},
    {"character", "clip names, one repeated", descriptor_clips, read_descriptor, DESCRIPTOR_K, MANY},
    {"character", "package files", descriptor_package, read_descriptor, DESCRIPTOR_K, 0},
};

static const shape skeleton_shapes[] = {
    {"skeleton", "joints in a chain", skeleton_joints, read_skeleton, SOMA_K, 0},
    {"skeleton", "twist segments on each pair", skeleton_twists, read_skeleton, SOMA_K, 0},
};

static const shape clip_shapes[] = {
    {"clips", "one-frame clips", clips_many, read_clips, CLIPS_K, 0},
    {"clips", "bones of one clip", clips_bones, read_clips, CLIPS_K, 0},
    {"clips", "clips {} dropped", clips_dropped, read_clips, CLIPS_DROPPED_K, MANY},
};

static const shape corrective_shapes[] = {
    {"corrective", "corrections naming joints of 4N", corrective, read_corrective, CORRECTIVE_K, 0},
};

static const shape binary_shapes[] = {
    {"mouth", "entries", mouth, read_mouth, BINARY_K, 0},
    {"ply", "splats of 14 floats", ply, read_ply, BINARY_K, 0},
    {"bindings", "splats of one influence", bindings, read_bindings, BINARY_K, MANY},
};

static const shape mtl_shapes[] = {
    {"MTL", "materials", mtl_materials, read_mtl, MTL_K, 4 * N},
    {"MTL", "one material defined again", mtl_redefined, read_mtl, MTL_K, 4 * N},
    {"MTL", "keys before any newmtl", mtl_orphans, read_mtl, MTL_K, MANY},
};

/* What clips and the corrective index are read against, made before any counting. */
static void context_make(void)
{
    text t = {0};
    skeleton(&t, 4 * N, false);
    mn_error err;
    expect_ok(mn_soma_skeleton_read(t.data, t.len, NULL, 0, NULL, &clip_sk, &err), &err);
    free(t.data);
    rig_name_count = 4 * N;
    rig_names = calloc(rig_name_count, sizeof *rig_names);
    rig_name_list = calloc(rig_name_count, sizeof *rig_name_list);
    assert_true(rig_names && rig_name_list);
    for (uint32_t i = 0; i < rig_name_count; i++)
        rig_name_list[i] = name_of(i, rig_names[i]);
}

static void context_free(void)
{
    mn_soma_skeleton_free(clip_sk);
    clip_sk = NULL;
    free(rig_names);
    free(rig_name_list);
    rig_names = NULL;
    rig_name_list = NULL;
}

/* ---- the bounds ------------------------------------------------------------------------------------ */

static void check_shapes(const shape *shapes, size_t count)
{
    for (size_t i = 0; i < count; i++)
        check_shape(&shapes[i], N);
}

#define CHECK(shapes) check_shapes((shapes), sizeof(shapes) / sizeof(shapes)[0])

static void test_voxel_rig(void **state)
{
    (void)state;
    CHECK(rig_shapes);
}

static void test_part_mesh(void **state)
{
    (void)state;
    CHECK(part_shapes);
}

static void test_aosrig(void **state)
{
    (void)state;
    CHECK(aosrig_shapes);
}

static void test_arkit(void **state)
{
    (void)state;
    CHECK(arkit_shapes);
}

static void test_descriptor(void **state)
{
    (void)state;
    CHECK(descriptor_shapes);
}

static void test_soma(void **state)
{
    (void)state;
    CHECK(skeleton_shapes);
    context_make();
    CHECK(clip_shapes);
    context_free();
}

static void test_corrective(void **state)
{
    (void)state;
    context_make();
    CHECK(corrective_shapes);
    context_free();
}

static void test_binary(void **state)
{
    (void)state;
    CHECK(binary_shapes);
}

static void test_mtl(void **state)
{
    (void)state;
    CHECK(mtl_shapes);
}

#ifndef READER_BOUNDS_NO_MAIN
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_voxel_rig),  cmocka_unit_test(test_part_mesh),
        cmocka_unit_test(test_aosrig),     cmocka_unit_test(test_arkit),
        cmocka_unit_test(test_descriptor), cmocka_unit_test(test_soma),
        cmocka_unit_test(test_corrective), cmocka_unit_test(test_binary),
        cmocka_unit_test(test_mtl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
