/*
 * KHR_animation_pointer end to end, on glTF written here: the reader's
 * pointer parsing and validation (each family kept, each kind of bad pointer
 * dropped with a warning naming the channel), clips and their sampling
 * (LINEAR, STEP, CUBICSPLINE, bool steps, node pointers as node tracks), the
 * mixer's animated instance state with crossfades and no allocation in the
 * update, and the writer's round trip.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <marionette/clip.h>
#include <marionette/gltf.h>
#include <marionette/instance.h>
#include <marionette/mixer.h>
#include <marionette/render.h>
#include <marionette/model.h>

#include "counting_alloc.h"
#include "glb_builder.h"
#include "run_tool.h"

#include <jansson.h>

#define NEAR(a, b) assert_true(fabsf((float)(a) - (float)(b)) < 1e-5f)

/* glTF componentType values. */
enum { U8 = 5121, F32 = 5126 };

/* One accessor of the test file: its type, component, count and bytes. */
typedef struct acc {
    const char *type;
    int component;
    unsigned count;
    const void *data;
    size_t bytes;
} acc;

static const float TIMES[] = {0, 1, 2};
static const float COLORS[] = {1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1};
static const float SCALARS[] = {0, 0.5f, 1};
static const float OFFSETS[] = {0, 0, 1, 2, 2, 4};
static const uint8_t VISIBLE[] = {1, 0, 1};
static const float VEC3S[] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
/* CUBICSPLINE: in-tangent, value, out-tangent per key; flat tangents. */
static const float CUBIC[] = {0, 0, 0, 0, 1, 0, 0, 0, 0};
static const float POSITIONS[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
static const float TARGET[] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
static const float WEIGHTS[] = {0, 0, 1, 0, 0, 1};
static const float VIS_FLOAT[] = {1, 0, 1};
static const float QUATS[] = {0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1};

enum { A_TIMES, A_COLORS, A_SCALARS, A_OFFSETS, A_VISIBLE, A_VEC3, A_CUBIC, A_POS, A_TARGET,
       A_WEIGHTS, A_VIS_FLOAT, A_QUATS, A_COUNT };

static const acc ACCESSORS[A_COUNT] = {
    {"SCALAR", F32, 3, TIMES, sizeof TIMES},       {"VEC4", F32, 3, COLORS, sizeof COLORS},
    {"SCALAR", F32, 3, SCALARS, sizeof SCALARS},   {"VEC2", F32, 3, OFFSETS, sizeof OFFSETS},
    {"SCALAR", U8, 3, VISIBLE, sizeof VISIBLE},    {"VEC3", F32, 3, VEC3S, sizeof VEC3S},
    {"SCALAR", F32, 9, CUBIC, sizeof CUBIC},       {"VEC3", F32, 3, POSITIONS, sizeof POSITIONS},
    {"VEC3", F32, 3, TARGET, sizeof TARGET},       {"SCALAR", F32, 6, WEIGHTS, sizeof WEIGHTS},
    {"SCALAR", F32, 3, VIS_FLOAT, sizeof VIS_FLOAT}, {"VEC4", F32, 3, QUATS, sizeof QUATS},
};

/* A channel of the test file: its pointer (NULL: a core channel), output, interpolation, node. */
typedef struct chan {
    const char *pointer;
    int output;
    const char *interpolation;
    int node;            /* -1: none */
    const char *path;    /* core path when pointer is NULL */
} chan;

/* The good animation: one channel of each family. */
static const chan GOOD[] = {
    {"/materials/0/pbrMetallicRoughness/baseColorFactor", A_COLORS, "LINEAR", -1, NULL},
    {"/materials/0/pbrMetallicRoughness/metallicFactor", A_SCALARS, "STEP", -1, NULL},
    {"/materials/0/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/offset",
     A_OFFSETS, "LINEAR", -1, NULL},
    {"/nodes/0/extensions/KHR_node_visibility/visible", A_VISIBLE, "STEP", -1, NULL},
    {"/materials/0/emissiveFactor", A_VEC3, "LINEAR", -1, NULL},
    {"/cameras/0/perspective/yfov", A_SCALARS, "LINEAR", -1, NULL},
    {"/cameras/1/orthographic/xmag", A_SCALARS, "LINEAR", -1, NULL},
    {"/materials/0/pbrMetallicRoughness/roughnessFactor", A_CUBIC, "CUBICSPLINE", -1, NULL},
    {"/nodes/1/rotation", A_QUATS, "LINEAR", -1, NULL},
    {"/meshes/0/weights", A_WEIGHTS, "LINEAR", -1, NULL},
    {"/materials/0/extensions/KHR_materials_emissive_strength/emissiveStrength", A_SCALARS, "LINEAR",
     -1, NULL},
    {"/materials/0/alphaCutoff", A_SCALARS, "LINEAR", -1, NULL},
    {"/materials/0/normalTexture/scale", A_SCALARS, "LINEAR", -1, NULL},
    {"/extensions/KHR_lights_punctual/lights/0/color", A_VEC3, "LINEAR", -1, NULL},
};
#define GOOD_COUNT (sizeof GOOD / sizeof GOOD[0])

/* The bad animation: each kind of pointer the reader must drop, and one it keeps. */
static const chan BAD[] = {
    {"/materials/5/alphaCutoff", A_SCALARS, "LINEAR", -1, NULL},                         /* range */
    {"/materials/0/sheen", A_SCALARS, "LINEAR", -1, NULL},                               /* unknown */
    {"/materials/0/pbrMetallicRoughness/baseColorFactor", A_SCALARS, "LINEAR", -1, NULL}, /* type */
    {"/nodes/0/extensions/KHR_node_visibility/visible", A_VIS_FLOAT, "STEP", -1, NULL},  /* not u8 */
    {"/materials/0/alphaCutoff", A_SCALARS, "LINEAR", 0, NULL},                          /* a node */
    {"/cameras/0/orthographic/xmag", A_SCALARS, "LINEAR", -1, NULL},                     /* perspective */
    {"/materials/0/occlusionTexture/strength", A_SCALARS, "LINEAR", -1, NULL},           /* no texture */
    {"/materials/00/alphaCutoff", A_SCALARS, "LINEAR", -1, NULL},                        /* not an index */
    {"/nodes/0/extensions/KHR_node_visibility/visible", A_VISIBLE, "LINEAR", -1, NULL},  /* not STEP */
    {"/extensions/KHR_lights_punctual/lights/0/spot/innerConeAngle", A_SCALARS, "LINEAR", -1, NULL}, /* a point */
    {"/extensions/KHR_lights_punctual/lights/1/intensity", A_SCALARS, "LINEAR", -1, NULL},  /* range */
    {"/extensions/KHR_lights_punctual/lights/0/range", A_SCALARS, "LINEAR", -1, NULL},      /* infinite */
    {"/materials/0/alphaCutoff", A_SCALARS, "LINEAR", -1, NULL},                         /* kept */
};
#define BAD_COUNT (sizeof BAD / sizeof BAD[0])

static void put_animation(gb_builder *b, const char *name, const chan *ch, size_t n)
{
    gb_json(b, "{'name':'%s','samplers':[", name);
    for (size_t i = 0; i < n; i++)
        gb_json(b, "%s{'input':%d,'output':%d,'interpolation':'%s'}", i ? "," : "", A_TIMES, ch[i].output,
                ch[i].interpolation);
    gb_json(b, "],'channels':[");
    for (size_t i = 0; i < n; i++) {
        gb_json(b, "%s{'sampler':%zu,'target':{", i ? "," : "", i);
        if (ch[i].node >= 0)
            gb_json(b, "'node':%d,", ch[i].node);
        if (ch[i].pointer)
            gb_json(b, "'path':'pointer','extensions':{'KHR_animation_pointer':{'pointer':'%s'}}}}",
                    ch[i].pointer);
        else
            gb_json(b, "'path':'%s'}}", ch[i].path);
    }
    gb_json(b, "]}");
}

/*
 * The test file: node 0 shows mesh 0 (a triangle with one morph target,
 * material 0) and camera 0 (perspective); node 1 camera 1 (orthographic);
 * material 0 red, with a transformed base colour texture and a normal
 * texture; light 0 a point light.  `anims` is the animations array's text.
 */
static gb_blob build(const char *anims)
{
    gb_builder b;
    gb_init(&b);
    size_t at[A_COUNT];
    for (int i = 0; i < A_COUNT; i++) {
        gb_bin_align(&b, 4);
        at[i] = gb_bin_bytes(&b, ACCESSORS[i].data, ACCESSORS[i].bytes);
    }
    gb_bin_align(&b, 4);
    gb_json(&b, "{'asset':{'version':'2.0'},'extensionsUsed':['KHR_animation_pointer',"
                "'KHR_texture_transform','KHR_lights_punctual','KHR_node_visibility',"
                "'KHR_materials_emissive_strength'],");
    gb_json(&b, "'buffers':[{'byteLength':%zu}],'bufferViews':[", gb_bin_size(&b));
    for (int i = 0; i < A_COUNT; i++)
        gb_json(&b, "%s{'buffer':0,'byteOffset':%zu,'byteLength':%zu}", i ? "," : "", at[i],
                ACCESSORS[i].bytes);
    gb_json(&b, "],'accessors':[");
    for (int i = 0; i < A_COUNT; i++) {
        gb_json(&b, "%s{'bufferView':%d,'componentType':%d,'count':%u,'type':'%s'", i ? "," : "", i,
                ACCESSORS[i].component, ACCESSORS[i].count, ACCESSORS[i].type);
        if (i == A_TIMES)
            gb_json(&b, ",'min':[0],'max':[2]");
        if (i == A_POS || i == A_TARGET)
            gb_json(&b, ",'min':[0,0,0],'max':[1,1,1]");
        gb_json(&b, "}");
    }
    gb_json(&b, "],'textures':[{}],'materials':[{'pbrMetallicRoughness':{'baseColorFactor':[1,0,0,1],"
                "'baseColorTexture':{'index':0,'extensions':{'KHR_texture_transform':{'offset':[0,0]}}}},"
                "'normalTexture':{'index':0},'emissiveFactor':[0,0,0]}],");
    gb_json(&b, "'meshes':[{'primitives':[{'attributes':{'POSITION':%d},'material':0,"
                "'targets':[{'POSITION':%d},{'POSITION':%d}]}],'weights':[0,0]}],",
            A_POS, A_TARGET, A_TARGET);
    gb_json(&b, "'cameras':[{'type':'perspective','perspective':{'yfov':1,'znear':0.1,'zfar':100}},"
                "{'type':'orthographic','orthographic':{'xmag':1,'ymag':1,'znear':0.1,'zfar':10}}],");
    gb_json(&b, "'extensions':{'KHR_lights_punctual':{'lights':[{'type':'point','color':[1,1,1]}]}},");
    gb_json(&b, "'nodes':[{'mesh':0,'camera':0,'extensions':{'KHR_lights_punctual':{'light':0}}},"
                "{'camera':1}],'scenes':[{'nodes':[0,1]}],'scene':0,");
    gb_json(&b, "'animations':[%s]}", anims);
    gb_blob glb = gb_glb(&b);
    gb_free(&b);
    return glb;
}

static char *animations_text(void)
{
    gb_builder b;
    gb_init(&b);
    put_animation(&b, "good", GOOD, GOOD_COUNT);
    gb_json(&b, ",");
    put_animation(&b, "bad", BAD, BAD_COUNT);
    size_t n = strlen(gb_json_text(&b)) + 1;
    char *s = malloc(n);
    assert_non_null(s);
    memcpy(s, gb_json_text(&b), n);
    gb_free(&b);
    return s;
}

typedef struct fixture {
    gb_blob glb;
    mn_model *model;
} fixture;

static fixture load(void)
{
    char *anims = animations_text();
    fixture f = {build(anims), NULL};
    free(anims);
    mn_error err = {0};
    mn_status st = mn_gltf_read_memory(f.glb.data, f.glb.size, NULL, &f.model, &err);
    if (st != MN_OK)
        print_error("read: %s at %s: %s\n", mn_status_name(st), err.path, err.message);
    assert_int_equal(st, MN_OK);
    return f;
}

static void unload(fixture *f)
{
    mn_model_free(f->model);
    gb_blob_free(&f->glb);
}

static bool lights_read(const mn_model *m)
{
    return m->light_count > 0;
}

/* ---- the reader ---------------------------------------------------------------- */

static const mn_channel *find_channel(const mn_animation *a, const char *pointer)
{
    for (uint32_t i = 0; i < a->channel_count; i++)
        if (a->channels[i].path == MN_PATH_POINTER && strcmp(a->channels[i].pointer.text, pointer) == 0)
            return &a->channels[i];
    return NULL;
}

static void reader_keeps_every_family(void **state)
{
    (void)state;
    fixture f = load();
    const mn_animation *a = &f.model->animations[0];
    assert_true(lights_read(f.model));
    assert_int_equal(a->channel_count, (uint32_t)GOOD_COUNT);
    static const struct {
        const char *pointer;
        mn_pointer_property property;
        uint32_t index, components;
    } want[] = {
        {"/materials/0/pbrMetallicRoughness/baseColorFactor", MN_PROP_BASE_COLOR, 0, 4},
        {"/materials/0/pbrMetallicRoughness/metallicFactor", MN_PROP_METALLIC, 0, 1},
        {"/nodes/0/extensions/KHR_node_visibility/visible", MN_PROP_NODE_VISIBLE, 0, 1},
        {"/cameras/1/orthographic/xmag", MN_PROP_CAMERA_XMAG, 1, 1},
        {"/nodes/1/rotation", MN_PROP_NODE_ROTATION, 1, 4},
        {"/meshes/0/weights", MN_PROP_MESH_WEIGHTS, 0, 2},
        {"/materials/0/normalTexture/scale", MN_PROP_NORMAL_SCALE, 0, 1},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const mn_channel *ch = find_channel(a, want[i].pointer);
        assert_non_null(ch);
        assert_int_equal(ch->node, MN_NONE);
        assert_int_equal(ch->pointer.property, want[i].property);
        assert_int_equal(ch->pointer.index, want[i].index);
        assert_int_equal(ch->pointer.components, want[i].components);
        assert_int_equal(ch->components, want[i].components);
    }
    const mn_channel *tt = find_channel(
        a, "/materials/0/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/offset");
    assert_non_null(tt);
    assert_int_equal(tt->pointer.property, MN_PROP_TEXTURE_OFFSET);
    assert_int_equal(tt->pointer.slot, MN_SLOT_BASE_COLOR);
    const mn_channel *light = find_channel(a, "/extensions/KHR_lights_punctual/lights/0/color");
    assert_non_null(light);
    assert_int_equal(light->pointer.property, MN_PROP_LIGHT_COLOR);
    /* No warning on the good animation. */
    for (uint32_t w = 0; w < f.model->warning_count; w++)
        assert_null(strstr(f.model->warnings[w].path, "animations[0]"));
    unload(&f);
}

static void reader_drops_bad_pointers_with_a_warning(void **state)
{
    (void)state;
    fixture f = load();
    const mn_animation *a = &f.model->animations[1];
    assert_int_equal(a->channel_count, 1);
    assert_string_equal(a->channels[0].pointer.text, "/materials/0/alphaCutoff");
    for (uint32_t c = 0; c + 1 < BAD_COUNT; c++) {
        char want[64];
        snprintf(want, sizeof want, "animations[1].channels[%u]", c);
        bool found = false;
        for (uint32_t w = 0; w < f.model->warning_count && !found; w++)
            found = strstr(f.model->warnings[w].path, want) != NULL &&
                    strstr(f.model->warnings[w].message, "ignored") != NULL;
        if (!found)
            print_error("no warning names %s\n", want);
        assert_true(found);
    }
    unload(&f);
}

/* ---- clips ---------------------------------------------------------------------- */

static const mn_pointer_track *find_track(const mn_clip *clip, mn_pointer_property p, uint32_t *offset)
{
    uint32_t at = 0;
    for (uint32_t i = 0; i < mn_clip_pointer_count(clip); i++) {
        const mn_pointer_track *t = mn_clip_pointer(clip, i);
        if (t->pointer.property == p) {
            if (offset)
                *offset = at;
            return t;
        }
        at += t->components;
    }
    return NULL;
}

static void clip_samples_pointer_tracks(void **state)
{
    (void)state;
    fixture f = load();
    mn_clip *clip = NULL;
    mn_error err = {0};
    assert_int_equal(mn_clip_from_gltf(f.model, 0, NULL, &clip, &err), MN_OK);
    /* Node rotation and mesh weights became node tracks: 2 fewer pointer tracks. */
    uint32_t pointers = f.model->animations[0].channel_count - 2;
    assert_int_equal(mn_clip_pointer_count(clip), pointers);
    assert_int_equal(mn_clip_track_count(clip), 2);
    NEAR(mn_clip_duration(clip), 2.0f);

    float v[4];
    const mn_pointer_track *color = find_track(clip, MN_PROP_BASE_COLOR, NULL);
    assert_non_null(color);
    assert_string_equal(color->pointer.text, "/materials/0/pbrMetallicRoughness/baseColorFactor");
    mn_pointer_track_sample(color, 0.5f, v);     /* LINEAR midpoint */
    NEAR(v[0], 0.5f), NEAR(v[1], 0.5f), NEAR(v[2], 0.0f), NEAR(v[3], 1.0f);
    mn_pointer_track_sample(color, 2.0f, v);     /* the last key */
    NEAR(v[0], 0.0f), NEAR(v[2], 1.0f);

    const mn_pointer_track *metal = find_track(clip, MN_PROP_METALLIC, NULL);
    mn_pointer_track_sample(metal, 0.99f, v);    /* STEP holds the key before */
    NEAR(v[0], 0.0f);
    mn_pointer_track_sample(metal, 1.0f, v);
    NEAR(v[0], 0.5f);

    const mn_pointer_track *rough = find_track(clip, MN_PROP_ROUGHNESS, NULL);
    mn_pointer_track_sample(rough, 0.5f, v);     /* Hermite with flat tangents: h01(0.5) = 0.5 */
    NEAR(v[0], 0.5f);
    mn_pointer_track_sample(rough, 1.0f, v);
    NEAR(v[0], 1.0f);

    const mn_pointer_track *vis = find_track(clip, MN_PROP_NODE_VISIBLE, NULL);
    float expect_vis[][2] = {{0.0f, 1}, {0.5f, 1}, {1.0f, 0}, {1.5f, 0}, {2.0f, 1}, {9.0f, 1}};
    for (size_t i = 0; i < sizeof expect_vis / sizeof expect_vis[0]; i++) {
        mn_pointer_track_sample(vis, expect_vis[i][0], v);
        NEAR(v[0], expect_vis[i][1]);
    }

    const mn_pointer_track *offset = find_track(clip, MN_PROP_TEXTURE_OFFSET, NULL);
    mn_pointer_track_sample(offset, 1.5f, v);
    NEAR(v[0], 1.5f), NEAR(v[1], 3.0f);

    /* All at once: the same values, track after track. */
    float all[64];
    assert_true(mn_clip_pointer_floats(clip) <= 64);
    mn_clip_sample_pointers(clip, 0.5f, all);
    uint32_t at = 0;
    find_track(clip, MN_PROP_BASE_COLOR, &at);
    NEAR(all[at], 0.5f);
    find_track(clip, MN_PROP_ROUGHNESS, &at);
    NEAR(all[at], 0.5f);

    /* The rotation pointer drives node 1 like a rotation channel; mesh weights drive node 0. */
    mn_pose pose;
    assert_int_equal(mn_pose_create(&pose, f.model->node_count, NULL, &err), MN_OK);
    assert_int_equal(mn_clip_sample(clip, 0.5f, &pose, &err), MN_OK);
    float h = sqrtf(0.5f);
    NEAR(pose.rotations[4 + 2], h), NEAR(pose.rotations[4 + 3], h);
    float w[2] = {9, 9};
    assert_true(mn_clip_sample_weights(clip, 1.5f, 0, w, 2));
    NEAR(w[0], 0.5f), NEAR(w[1], 0.5f);
    mn_pose_free(&pose);
    mn_clip_free(clip);
    unload(&f);
}

/* ---- the mixer ------------------------------------------------------------------- */

static void mixer_applies_pointers_with_crossfades_and_no_allocation(void **state)
{
    (void)state;
    fixture f = load();
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_mixer_options o = {.allocator = mn_counting_allocator(&counter)};
    mn_mixer *mx = NULL;
    mn_error err = {0};
    assert_int_equal(mn_mixer_create(f.model, &o, &mx, &err), MN_OK);
    assert_true(mn_mixer_animates_properties(mx));
    /* Before any play: the model's values. */
    const mn_material *mat = mn_mixer_material(mx, 0);
    assert_non_null(mat);
    assert_ptr_not_equal(mat, &f.model->materials[0]);
    NEAR(mat->base_color[0], 1.0f), NEAR(mat->base_color[1], 0.0f);
    assert_false(mn_mixer_node_hidden(mx, 0));
    assert_null(mn_mixer_material(mx, 1));

    size_t allocs = counter.allocs;
    assert_int_equal(mn_mixer_play(mx, 0, NULL, &err), MN_OK);
    mn_mixer_update(mx, 0.5f);
    NEAR(mat->base_color[0], 0.5f), NEAR(mat->base_color[1], 0.5f), NEAR(mat->base_color[3], 1.0f);
    NEAR(mat->base_color_texture.offset[0], 0.5f), NEAR(mat->base_color_texture.offset[1], 1.0f);
    NEAR(mat->emissive[2], 0.5f);
    NEAR(mat->metallic, 0.0f);                      /* STEP */
    NEAR(mn_mixer_camera(mx, 0)->yfov, 0.25f);
    NEAR(mn_mixer_camera(mx, 1)->xmag, 0.25f);
    NEAR(mn_mixer_camera(mx, 1)->ymag, 1.0f);        /* not animated: the model's */
    NEAR(mn_mixer_light(mx, 0)->color[0], 0.5f);
    NEAR(mn_mixer_light(mx, 0)->intensity, 1.0f);
    NEAR(f.model->lights[0].color[0], 1.0f);
    assert_false(mn_mixer_node_hidden(mx, 0));
    /* The model itself is untouched. */
    NEAR(f.model->materials[0].base_color[0], 1.0f);
    NEAR(f.model->cameras[0].yfov, 1.0f);
    mn_mixer_update(mx, 0.7f);                      /* t = 1.2: the visibility key 0 */
    assert_true(mn_mixer_node_hidden(mx, 0));
    NEAR(mat->metallic, 0.5f);

    /* Crossfade to clip 1 (it drives alphaCutoff only) from t = 1.2 over 1 s. */
    mn_play_options fade = {.fade = 1.0f};
    assert_int_equal(mn_mixer_play(mx, 1, &fade, &err), MN_OK);
    mn_mixer_update(mx, 0.4f);                      /* source at 1.6, weight 0.4 */
    float src_green = 0.4f, src_blue = 0.6f;        /* clip 0's colour at 1.6: (0, 0.4, 0.6, 1) */
    NEAR(mat->base_color[0], 0.4f * 1.0f);
    NEAR(mat->base_color[1], 0.6f * src_green);
    NEAR(mat->base_color[2], 0.6f * src_blue);
    assert_true(mn_mixer_node_hidden(mx, 0));        /* weight < 1/2: the source's false */
    mn_mixer_update(mx, 0.2f);                      /* weight 0.6: the current clip's (rest) */
    assert_false(mn_mixer_node_hidden(mx, 0));
    mn_mixer_update(mx, 0.5f);                      /* the fade is over */
    NEAR(mat->base_color[0], 1.0f), NEAR(mat->base_color[1], 0.0f);
    NEAR(mn_mixer_camera(mx, 0)->yfov, 1.0f);
    assert_int_equal(counter.allocs, allocs);       /* no update allocated */

    mn_mixer_free(mx);
    assert_int_equal(counter.live_bytes, 0);
    unload(&f);
}

/* ---- the writer ------------------------------------------------------------------ */

typedef struct sink_buf {
    uint8_t *data;
    size_t size;
} sink_buf;

static bool sink_write(void *user, const char *name, const void *bytes, size_t size)
{
    (void)name;
    sink_buf *b = user;
    uint8_t *grown = realloc(b->data, b->size + size);
    if (!grown)
        return false;
    memcpy(grown + b->size, bytes, size);
    b->data = grown;
    b->size += size;
    return true;
}

static void same_channels(const mn_animation *a, const mn_animation *b)
{
    assert_int_equal(a->channel_count, b->channel_count);
    for (uint32_t c = 0; c < a->channel_count; c++) {
        const mn_channel *x = &a->channels[c], *y = &b->channels[c];
        assert_int_equal(x->node, y->node);
        assert_int_equal(x->path, y->path);
        assert_int_equal(x->interpolation, y->interpolation);
        assert_int_equal(x->key_count, y->key_count);
        assert_int_equal(x->components, y->components);
        assert_string_equal(x->pointer.text ? x->pointer.text : "", y->pointer.text ? y->pointer.text : "");
        assert_int_equal(x->pointer.property, y->pointer.property);
        assert_int_equal(x->pointer.index, y->pointer.index);
        assert_int_equal(x->pointer.slot, y->pointer.slot);
        size_t n = (size_t)x->key_count * x->components * (x->interpolation == MN_INTERP_CUBICSPLINE ? 3 : 1);
        assert_memory_equal(x->times, y->times, x->key_count * sizeof(float));
        for (size_t i = 0; i < n; i++)
            NEAR(x->values[i], y->values[i]);
    }
}

static void writer_round_trips_pointer_channels(void **state)
{
    (void)state;
    fixture f = load();
    sink_buf buf = {0};
    mn_gltf_sink sink = {sink_write, &buf};
    mn_error err = {0};
    mn_status st = mn_gltf_write(f.model, NULL, &sink, &err);
    if (st != MN_OK)
        print_error("write: %s at %s: %s\n", mn_status_name(st), err.path, err.message);
    assert_int_equal(st, MN_OK);
    mn_model *back = NULL;
    st = mn_gltf_read_memory(buf.data, buf.size, NULL, &back, &err);
    if (st != MN_OK)
        print_error("read back: %s at %s: %s\n", mn_status_name(st), err.path, err.message);
    assert_int_equal(st, MN_OK);
    bool used = false;
    for (uint32_t i = 0; i < back->extensions_used_count; i++)
        used = used || strcmp(back->extensions_used[i], "KHR_animation_pointer") == 0;
    assert_true(used);
    /* Every channel comes back as it was, the light's included (the writer writes lights). */
    assert_true(lights_read(f.model));
    same_channels(&f.model->animations[0], &back->animations[0]);
    same_channels(&f.model->animations[1], &back->animations[1]);
    /* The bool stays unsigned bytes: a second trip reads the same. */
    const mn_channel *vis = find_channel(&back->animations[0], "/nodes/0/extensions/KHR_node_visibility/visible");
    assert_non_null(vis);
    NEAR(vis->values[1], 0.0f), NEAR(vis->values[2], 1.0f);
    mn_model_free(back);
    free(buf.data);
    unload(&f);
}

/* ---- the renderer ---------------------------------------------------------------- */

typedef struct sums {
    double r, g, b;
    uint32_t drawn;      /* pixels not the background */
} sums;

/* Render the instance at clip 0's time t (camera `cam`, framed once) and sum the image's colours. */
static sums render_at(mn_instance *inst, mn_render_source *src, mn_renderer *r, const mn_render_camera *cam,
                      float t)
{
    mn_error err = {0};
    mn_mixer_seek(mn_instance_mixer(inst), t);
    mn_instance_update(inst, 0.0f);
    mn_render_source_refresh(src);
    mn_rgba_image img;
    assert_int_equal(mn_rgba_image_create(64, 64, NULL, &img, &err), MN_OK);
    assert_int_equal(mn_renderer_draw(r, mn_render_source_scene(src), cam, &img, &err), MN_OK);
    sums s = {0};
    for (size_t i = 0; i < (size_t)64 * 64; i++) {
        const uint8_t *px = img.pixels + 4 * i;
        s.r += px[0], s.g += px[1], s.b += px[2];
        s.drawn += px[3] != 0;
    }
    mn_rgba_image_free(&img);
    return s;
}

static void render_draws_animated_colour_and_visibility(void **state)
{
    (void)state;
    fixture f = load();
    mn_error err = {0};
    mn_rig *rig = NULL;
    mn_instance *inst = NULL;
    mn_render_source *src = NULL;
    mn_renderer *r = NULL;
    assert_int_equal(mn_rig_create(f.model, NULL, &rig, &err), MN_OK);
    assert_int_equal(mn_instance_create(rig, NULL, &inst, &err), MN_OK);
    assert_int_equal(mn_mixer_play(mn_instance_mixer(inst), 0, NULL, &err), MN_OK);
    mn_instance_update(inst, 0.0f);
    assert_int_equal(mn_render_source_gltf(inst, NULL, &src, &err), MN_OK);
    mn_render_options o = {.width = 64, .height = 64, .supersample = 1,
                           .max_triangles = mn_render_scene_triangle_count(mn_render_source_scene(src))};
    assert_int_equal(mn_renderer_create(&o, &r, &err), MN_OK);
    mn_renderer_set_background(r, (const float[4]){0, 0, 0, 0});
    float lo[3], hi[3];
    mn_render_bounds_reset(lo, hi);
    mn_render_scene_bounds(mn_render_source_scene(src), lo, hi);
    mn_render_camera cam;
    assert_int_equal(mn_render_camera_frame(lo, hi, &(mn_render_view){.yaw = 0, .pitch = 0}, 1.0f, &cam, &err),
                     MN_OK);
    sums red = render_at(inst, src, r, &cam, 0.0f);    /* base colour (1, 0, 0) */
    sums mid = render_at(inst, src, r, &cam, 0.5f);    /* (0.5, 0.5, 0), emissive on */
    sums off = render_at(inst, src, r, &cam, 1.2f);    /* visible false */
    assert_true(red.drawn > 100);
    assert_true(mid.drawn > 100);                     /* (the morph weights move it too) */
    assert_true(red.r > 4.0 * red.g);                  /* red */
    assert_true(mid.g > 2.0 * red.g);                  /* the animated colour shows */
    assert_int_equal(off.drawn, 0);                    /* the hidden node draws nothing */
    mn_renderer_free(r);
    mn_render_source_free(src);
    mn_instance_free(inst);
    mn_rig_free(rig);
    unload(&f);
}

/* ---- the command line ---------------------------------------------------------- */

/* The test file written to a temporary folder; returns its path (in dir). */
static const char *write_test_file(gb_tempdir *dir)
{
    char *anims = animations_text();
    gb_blob glb = build(anims);
    free(anims);
    assert_true(gb_tempdir_create(dir));
    const char *path = gb_tempdir_write(dir, "pointer.glb", glb.data, glb.size);
    assert_non_null(path);
    gb_blob_free(&glb);
    return path;
}

static void sample_json_prints_pointers(void **state)
{
    (void)state;
    gb_tempdir dir;
    const char *path = write_test_file(&dir);
    char args[700];
    snprintf(args, sizeof args, "sample '%s' --clip good --times 0.5,1.5 --rest --vertices none --json", path);
    run_result r = mn_run_tool("marionette", args, 0);
    assert_int_equal(r.status, 0);
    json_error_t je;
    json_t *root = json_loads(r.out, 0, &je);
    assert_non_null(root);
    assert_string_equal(json_string_value(json_object_get(root, "format")), "marionette-sample/1");
    json_t *samples = json_object_get(root, "samples");
    assert_int_equal(json_array_size(samples), 3);
    assert_int_equal(json_array_size(json_object_get(json_array_get(samples, 0), "pointers")), 0);
    json_t *ptrs = json_object_get(json_array_get(samples, 1), "pointers");
    assert_true(json_array_size(ptrs) >= 10);
    bool color = false, visible = false;
    for (size_t i = 0; i < json_array_size(ptrs); i++) {
        json_t *e = json_array_get(ptrs, i);
        const char *ptr = json_string_value(json_object_get(e, "pointer"));
        json_t *v = json_object_get(e, "value");
        if (strcmp(ptr, "/materials/0/pbrMetallicRoughness/baseColorFactor") == 0) {
            assert_int_equal(json_array_size(v), 4);
            NEAR(json_number_value(json_array_get(v, 0)), 0.5);
            NEAR(json_number_value(json_array_get(v, 1)), 0.5);
            color = true;
        }
        if (strcmp(ptr, "/nodes/0/extensions/KHR_node_visibility/visible") == 0) {
            NEAR(json_number_value(json_array_get(v, 0)), 1.0);
            visible = true;
        }
    }
    assert_true(color && visible);
    ptrs = json_object_get(json_array_get(samples, 2), "pointers");
    for (size_t i = 0; i < json_array_size(ptrs); i++) {
        json_t *e = json_array_get(ptrs, i);
        if (strcmp(json_string_value(json_object_get(e, "pointer")),
                   "/nodes/0/extensions/KHR_node_visibility/visible") == 0)
            NEAR(json_number_value(json_array_get(json_object_get(e, "value"), 0)), 0.0);
    }
    json_decref(root);
    run_free(&r);
    gb_tempdir_remove(&dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reader_keeps_every_family),
        cmocka_unit_test(reader_drops_bad_pointers_with_a_warning),
        cmocka_unit_test(clip_samples_pointer_tracks),
        cmocka_unit_test(mixer_applies_pointers_with_crossfades_and_no_allocation),
        cmocka_unit_test(writer_round_trips_pointer_channels),
        cmocka_unit_test(render_draws_animated_colour_and_visibility),
        cmocka_unit_test(sample_json_prints_pointers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
