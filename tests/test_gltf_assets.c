/*
 * The glTF reader on real files nobody on this project wrote:
 *
 *   - every model under the sample assets' gltf/ loads, in every variant, with
 *     the counts that the assets' README.md lists (the facts table below
 *     was checked against the README, variant by variant where the README
 *     says variants differ);
 *   - BoxMeshopt (meshopt-compressed and quantized, two encodings) decodes
 *     to the same box as Box;
 *   - a few models are checked value by value where they exercise a feature
 *     (matrix nodes, images in three storages, sparse, morph, skins, modes);
 *   - every file under the assets' invalid/ has its outcome asserted, with
 *     its message printed so a person can judge it;
 *   - real files cut short, corrupted byte by byte, or read with an allocator
 *     that fails, are refused cleanly (ASan/UBSan builds make "cleanly" mean
 *     no out-of-bounds read, leak or undefined behaviour).
 *
 * The assets folder is tests/support/assets.h's (MN_ASSETS, else ../shared/assets); without
 * it the whole test is skipped.
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

#include <marionette/gltf.h>
#include <marionette/math.h>
#include <marionette/model.h>

#include "assets.h"
#include "counting_alloc.h"
#include "files.h"

/* ---- helpers ------------------------------------------------------------------------------ */

static mn_model *load_file(const char *path)
{
    mn_model *m = NULL;
    mn_error err;
    mn_status st = mn_gltf_read_file(path, NULL, &m, &err);
    if (st != MN_OK)
        fail_msg("%s: %s at '%s': %s", path, mn_status_name(st), err.path, err.message);
    assert_non_null(m);
    return m;
}

/* The folder of a path, with its trailing '/'. */
static void folder_of(const char *path, char *out, size_t size)
{
    snprintf(out, size, "%s", path);
    char *slash = strrchr(out, '/');
    if (slash)
        slash[1] = '\0';
}

/* Names joined with ',' ("" when none). */
static void join(const char **names, uint32_t n, char *out, size_t size)
{
    out[0] = '\0';
    for (uint32_t i = 0; i < n; i++) {
        size_t len = strlen(out);
        snprintf(out + len, size - len, "%s%s", i ? "," : "", names[i]);
    }
}

/* ---- the facts of every asset ------------------------------------------------------------ */

typedef struct asset_facts {
    const char *path;                  /* under the assets folder's gltf/ */
    uint32_t vertices;                 /* sum of count over distinct POSITION accessors */
    uint32_t primitives, mode_mask;    /* mode_mask: bit (1 << mode) per mode written in the file */
    uint32_t indexed, indices;         /* indexed primitives; index count as the file has it */
    uint32_t nodes, matrix_nodes, meshes, scenes, cameras;
    uint32_t skins, joints;            /* joints of skin 0 */
    uint32_t animations, channels, step, cubic; /* the rest of the channels are LINEAR */
    float duration;                    /* latest key time over every animation */
    uint32_t targets;                  /* most morph targets of a primitive */
    uint32_t sparse, textures, images, materials;
    const char *used, *required;       /* extensions, comma-joined in file order */
} asset_facts;

#define T 0x10u /* TRIANGLES only */

static const asset_facts ASSETS[] = {
    {"Triangle/glTF/Triangle.gltf", 3, 1, T, 1, 3, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 0, "", ""},
    {"Triangle/glTF-Embedded/Triangle.gltf", 3, 1, T, 1, 3, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 0, "", ""},
    {"TriangleWithoutIndices/glTF/TriangleWithoutIndices.gltf", 3, 1, T, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 0, "", ""},
    {"TriangleWithoutIndices/glTF-Embedded/TriangleWithoutIndices.gltf", 3, 1, T, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 0, "", ""},
    {"SimpleMeshes/glTF/SimpleMeshes.gltf", 3, 1, T, 1, 3, 2, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 0, "", ""},
    {"SimpleMeshes/glTF-Embedded/SimpleMeshes.gltf", 3, 1, T, 1, 3, 2, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 0, "", ""},
    {"MeshPrimitiveModes/glTF/MeshPrimitiveModes.gltf", 7, 7, 0x7f, 7, 65, 7, 0, 7, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 0, "", ""},
    {"MeshPrimitiveModes/glTF-Embedded/MeshPrimitiveModes.gltf", 7, 7, 0x7f, 7, 65, 7, 0, 7, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 0, "", ""},
    {"Box/glTF-Binary/Box.glb", 24, 1, T, 1, 36, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 1, "", ""},
    {"Box/glTF-Embedded/Box.gltf", 24, 1, T, 1, 36, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 1, "", ""},
    {"Box/glTF/Box.gltf", 24, 1, T, 1, 36, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 1, "", ""},
    {"BoxInterleaved/glTF-Binary/BoxInterleaved.glb", 24, 1, T, 1, 36, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 1, "", ""},
    {"BoxInterleaved/glTF-Embedded/BoxInterleaved.gltf", 24, 1, T, 1, 36, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 1, "", ""},
    {"BoxInterleaved/glTF/BoxInterleaved.gltf", 24, 1, T, 1, 36, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 1, "", ""},
    {"BoxTextured/glTF-Binary/BoxTextured.glb", 24, 1, T, 1, 36, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 1, 1, 1, "", ""},
    {"BoxTextured/glTF-Embedded/BoxTextured.gltf", 24, 1, T, 1, 36, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 1, 1, 1, "", ""},
    {"BoxTextured/glTF/BoxTextured.gltf", 24, 1, T, 1, 36, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 1, 1, 1, "", ""},
    {"BoxVertexColors/glTF-Binary/BoxVertexColors.glb", 24, 1, T, 1, 36, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 0, "", ""},
    {"BoxVertexColors/glTF-Embedded/BoxVertexColors.gltf", 24, 1, T, 1, 36, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 0, "", ""},
    {"BoxVertexColors/glTF/BoxVertexColors.gltf", 24, 1, T, 1, 36, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 0, "", ""},
    {"MultiUVTest/glTF-Binary/MultiUVTest.glb", 24, 1, T, 1, 36, 3, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 2, 2, 1, "", ""},
    {"MultiUVTest/glTF/MultiUVTest.gltf", 24, 1, T, 1, 36, 3, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 2, 2, 1, "", ""},
    {"Cameras/glTF/Cameras.gltf", 4, 1, T, 1, 6, 3, 0, 1, 1, 2, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 0, "", ""},
    {"Cameras/glTF-Embedded/Cameras.gltf", 4, 1, T, 1, 6, 3, 0, 1, 1, 2, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 0, "", ""},
    {"SimpleInstancing/glTF-Binary/SimpleInstancing.glb", 24, 1, T, 1, 36, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 0, "EXT_mesh_gpu_instancing", ""},
    {"SimpleInstancing/glTF/SimpleInstancing.gltf", 24, 1, T, 1, 36, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 0, "EXT_mesh_gpu_instancing", ""},
    {"SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf", 14, 1, T, 1, 36, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 1, 0, 0, 0, "", ""},
    {"SimpleSparseAccessor/glTF-Embedded/SimpleSparseAccessor.gltf", 14, 1, T, 1, 36, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 1, 0, 0, 0, "", ""},
    {"BoxMeshopt/BoxMeshopt.glb", 24, 1, T, 1, 36, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 1,
     "KHR_mesh_quantization,EXT_meshopt_compression", "KHR_mesh_quantization,EXT_meshopt_compression"},
    {"BoxMeshopt/BoxMeshopt.gltf", 24, 1, T, 1, 36, 2, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 0, 0, 0, 0, 1,
     "KHR_mesh_quantization,EXT_meshopt_compression", "KHR_mesh_quantization,EXT_meshopt_compression"},
    {"AnimatedTriangle/glTF/AnimatedTriangle.gltf", 3, 1, T, 1, 3, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 1.0f, 0, 0, 0, 0, 0, "", ""},
    {"AnimatedTriangle/glTF-Embedded/AnimatedTriangle.gltf", 3, 1, T, 1, 3, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 1.0f, 0, 0, 0, 0, 0, "", ""},
    {"AnimatedCube/glTF/AnimatedCube.gltf", 36, 1, T, 1, 36, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 2.0f, 0, 0, 2, 2, 1, "", ""},
    {"BoxAnimated/glTF-Binary/BoxAnimated.glb", 320, 2, T, 2, 762, 4, 0, 2, 1, 0, 0, 0, 1, 2, 0, 0, 3.7083f, 0, 0, 0, 0, 2, "", ""},
    {"BoxAnimated/glTF-Embedded/BoxAnimated.gltf", 320, 2, T, 2, 762, 4, 0, 2, 1, 0, 0, 0, 1, 2, 0, 0, 3.7083f, 0, 0, 0, 0, 2, "", ""},
    {"BoxAnimated/glTF/BoxAnimated.gltf", 320, 2, T, 2, 762, 4, 0, 2, 1, 0, 0, 0, 1, 2, 0, 0, 3.7083f, 0, 0, 0, 0, 2, "", ""},
    {"InterpolationTest/glTF-Binary/InterpolationTest.glb", 220, 10, T, 10, 330, 12, 0, 10, 1, 0, 0, 0, 9, 9, 3, 3, 1.7083f, 0, 0, 1, 1, 10, "", ""},
    {"InterpolationTest/glTF/InterpolationTest.gltf", 220, 10, T, 10, 330, 12, 0, 10, 1, 0, 0, 0, 9, 9, 3, 3, 1.7083f, 0, 0, 1, 1, 10, "", ""},
    {"SimpleMorph/glTF/SimpleMorph.gltf", 3, 1, T, 1, 3, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 4.0f, 2, 0, 0, 0, 0, "", ""},
    {"SimpleMorph/glTF-Embedded/SimpleMorph.gltf", 3, 1, T, 1, 3, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 4.0f, 2, 0, 0, 0, 0, "", ""},
    {"AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb", 24, 1, T, 1, 36, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 4.2f, 2, 0, 0, 0, 1, "", ""},
    {"AnimatedMorphCube/glTF/AnimatedMorphCube.gltf", 24, 1, T, 1, 36, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 4.2f, 2, 0, 0, 0, 1, "", ""},
    {"AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf", 24, 1, T, 1, 36, 2, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 4.2f, 2, 0, 0, 0, 1,
     "KHR_mesh_quantization", "KHR_mesh_quantization"},
    {"MorphPrimitivesTest/glTF-Binary/MorphPrimitivesTest.glb", 30, 2, T, 2, 96, 2, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 1, 0, 1, 1, 2, "", ""},
    {"MorphPrimitivesTest/glTF/MorphPrimitivesTest.gltf", 30, 2, T, 2, 96, 2, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0.0f, 1, 0, 1, 1, 2, "", ""},
    {"SimpleSkin/glTF/SimpleSkin.gltf", 10, 1, T, 1, 24, 3, 0, 1, 1, 0, 1, 2, 1, 1, 0, 0, 5.5f, 0, 0, 0, 0, 0, "", ""},
    {"SimpleSkin/glTF-Embedded/SimpleSkin.gltf", 10, 1, T, 1, 24, 3, 0, 1, 1, 0, 1, 2, 1, 1, 0, 0, 5.5f, 0, 0, 0, 0, 0, "", ""},
    {"RiggedSimple/glTF-Binary/RiggedSimple.glb", 160, 1, T, 1, 564, 5, 3, 1, 1, 0, 1, 2, 1, 3, 0, 0, 2.0833f, 0, 0, 0, 0, 1, "", ""},
    {"RiggedSimple/glTF-Embedded/RiggedSimple.gltf", 160, 1, T, 1, 564, 5, 3, 1, 1, 0, 1, 2, 1, 3, 0, 0, 2.0833f, 0, 0, 0, 0, 1, "", ""},
    {"RiggedSimple/glTF/RiggedSimple.gltf", 160, 1, T, 1, 564, 5, 3, 1, 1, 0, 1, 2, 1, 3, 0, 0, 2.0833f, 0, 0, 0, 0, 1, "", ""},
    {"RiggedFigure/glTF-Binary/RiggedFigure.glb", 370, 1, T, 1, 768, 22, 1, 1, 1, 0, 1, 19, 1, 57, 0, 0, 1.25f, 0, 0, 0, 0, 1, "", ""},
    {"RiggedFigure/glTF-Embedded/RiggedFigure.gltf", 370, 1, T, 1, 768, 22, 1, 1, 1, 0, 1, 19, 1, 57, 0, 0, 1.25f, 0, 0, 0, 0, 1, "", ""},
    {"RiggedFigure/glTF/RiggedFigure.gltf", 370, 1, T, 1, 768, 22, 1, 1, 1, 0, 1, 19, 1, 57, 0, 0, 1.25f, 0, 0, 0, 0, 1, "", ""},
    {"CesiumMan/glTF-Binary/CesiumMan.glb", 3273, 1, T, 1, 14016, 22, 2, 1, 1, 0, 1, 19, 1, 57, 0, 0, 2.0f, 0, 0, 1, 1, 1, "", ""},
    /* A different export (README): 46 keys ending at 1.9167 s. */
    {"CesiumMan/glTF-Embedded/CesiumMan.gltf", 3273, 1, T, 1, 14016, 22, 2, 1, 1, 0, 1, 19, 1, 57, 0, 0, 1.9167f, 0, 0, 1, 1, 1, "", ""},
    {"CesiumMan/glTF/CesiumMan.gltf", 3273, 1, T, 1, 14016, 22, 2, 1, 1, 0, 1, 19, 1, 57, 0, 0, 2.0f, 0, 0, 1, 1, 1, "", ""},
};

#define ASSET_COUNT (sizeof ASSETS / sizeof ASSETS[0])

/* Index count as the file wrote it: a converted strip or fan of n indices has 3(n-2) now. */
static uint32_t file_index_count(const mn_model *m, const mn_primitive *p)
{
    uint32_t n = m->accessors[p->indices].count;
    if (p->original_mode == MN_MODE_TRIANGLE_STRIP || p->original_mode == MN_MODE_TRIANGLE_FAN)
        return n / 3 + 2;
    return n;
}

static void check_facts(const mn_model *m, const asset_facts *f)
{
    uint32_t vertices = 0, primitives = 0, mode_mask = 0, indexed = 0, indices = 0, targets = 0;
    bool *seen = calloc(m->accessor_count + 1, 1);
    assert_non_null(seen);
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        const mn_mesh *mesh = &m->meshes[i];
        for (uint32_t k = 0; k < mesh->primitive_count; k++) {
            const mn_primitive *p = &mesh->primitives[k];
            primitives++;
            mode_mask |= 1u << p->original_mode;
            uint32_t pos = mn_primitive_find(p, MN_SEMANTIC_POSITION, 0);
            if (pos != MN_NONE && !seen[pos]) {
                seen[pos] = true;
                vertices += m->accessors[pos].count;
                assert_int_equal(p->vertex_count, m->accessors[pos].count);
            }
            if (p->indices != MN_NONE) {
                indexed++;
                indices += file_index_count(m, p);
            }
            if (p->target_count > targets)
                targets = p->target_count;
        }
    }
    free(seen);
    uint32_t matrix_nodes = 0, channels = 0, step = 0, cubic = 0, sparse = 0;
    for (uint32_t i = 0; i < m->node_count; i++)
        matrix_nodes += m->nodes[i].has_matrix;
    float duration = 0.0f;
    for (uint32_t i = 0; i < m->animation_count; i++) {
        channels += m->animations[i].channel_count;
        if (m->animations[i].duration > duration)
            duration = m->animations[i].duration;
        for (uint32_t c = 0; c < m->animations[i].channel_count; c++) {
            step += m->animations[i].channels[c].interpolation == MN_INTERP_STEP;
            cubic += m->animations[i].channels[c].interpolation == MN_INTERP_CUBICSPLINE;
        }
    }
    for (uint32_t i = 0; i < m->accessor_count; i++)
        sparse += m->accessors[i].sparse_count > 0;
    char used[256], required[256];
    join(m->extensions_used, m->extensions_used_count, used, sizeof used);
    join(m->extensions_required, m->extensions_required_count, required, sizeof required);

    assert_int_equal(vertices, f->vertices);
    assert_int_equal(primitives, f->primitives);
    assert_int_equal(mode_mask, f->mode_mask);
    assert_int_equal(indexed, f->indexed);
    assert_int_equal(indices, f->indices);
    assert_int_equal(m->node_count, f->nodes);
    assert_int_equal(matrix_nodes, f->matrix_nodes);
    assert_int_equal(m->mesh_count, f->meshes);
    assert_int_equal(m->scene_count, f->scenes);
    assert_int_equal(m->camera_count, f->cameras);
    assert_int_equal(m->skin_count, f->skins);
    if (f->skins)
        assert_int_equal(m->skins[0].joint_count, f->joints);
    assert_int_equal(m->animation_count, f->animations);
    assert_int_equal(channels, f->channels);
    assert_int_equal(step, f->step);
    assert_int_equal(cubic, f->cubic);
    assert_true(fabsf(duration - f->duration) < 1e-3f);
    assert_int_equal(targets, f->targets);
    assert_int_equal(sparse, f->sparse);
    assert_int_equal(m->texture_count, f->textures);
    assert_int_equal(m->image_count, f->images);
    assert_int_equal(m->material_count, f->materials);
    assert_string_equal(used, f->used);
    assert_string_equal(required, f->required);
    assert_string_equal(m->version, "2.0");
    /* No warnings; SimpleInstancing's one node keeps its 125 instances. */
    assert_int_equal(m->warning_count, 0);
    if (strstr(f->used, "EXT_mesh_gpu_instancing"))
        assert_int_equal(m->nodes[0].instance_count, 125);
    /* Every sample has a scene 0 with something in it. */
    assert_int_equal(m->scene, 0);
    assert_true(m->bounds_min[0] <= m->bounds_max[0]);
}

static void test_every_asset_loads_with_the_readme_counts(void **state)
{
    (void)state;
    for (size_t i = 0; i < ASSET_COUNT; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", mn_test_asset("gltf"), ASSETS[i].path);
        print_message("%s\n", ASSETS[i].path);
        mn_model *m = load_file(path);
        check_facts(m, &ASSETS[i]);
        mn_model_free(m);
    }
}

/* The same facts from mn_gltf_read_memory, external files resolved against the file's folder. */
static void test_every_asset_reads_the_same_from_memory(void **state)
{
    (void)state;
    for (size_t i = 0; i < ASSET_COUNT; i++) {
        char path[512], dir[512];
        snprintf(path, sizeof path, "%s/%s", mn_test_asset("gltf"), ASSETS[i].path);
        folder_of(path, dir, sizeof dir);
        size_t size;
        void *data = mn_test_read_file(path, &size);
        mn_gltf_options opts;
        memset(&opts, 0, sizeof opts);
        opts.base_dir = dir;
        mn_model *m = NULL;
        mn_error err;
        mn_status st = mn_gltf_read_memory(data, size, &opts, &m, &err);
        if (st != MN_OK)
            fail_msg("%s: %s", path, err.message);
        check_facts(m, &ASSETS[i]);
        mn_model_free(m);
        free(data);
    }
}

/* ---- BoxMeshopt is the Box ------------------------------------------------------------------ */

/* One triangle in world space: 3 positions and 3 normals, rotated so the smallest position leads. */
typedef struct world_tri {
    float p[3][3], n[3][3];
} world_tri;

static int compare_tri(const void *a, const void *b)
{
    const world_tri *x = a, *y = b;
    for (int v = 0; v < 3; v++)
        for (int c = 0; c < 3; c++) {
            /* Compare on a 1/100 grid: quantization noise must not reorder equal corners. */
            long qx = lroundf(x->p[v][c] * 100.0f), qy = lroundf(y->p[v][c] * 100.0f);
            if (qx != qy)
                return qx < qy ? -1 : 1;
        }
    return 0;
}

static bool less_on_grid(const float a[3], const float b[3])
{
    for (int c = 0; c < 3; c++) {
        long qa = lroundf(a[c] * 100.0f), qb = lroundf(b[c] * 100.0f);
        if (qa != qb)
            return qa < qb;
    }
    return false;
}

/*
 * The triangles of the model's only mesh instance, in world space at rest,
 * canonical: each rotated (winding kept) to start at its smallest corner,
 * then sorted.  Positions and normals go through the accessor conversion
 * (dequantization of normalized integers) and the node's world matrix.
 */
static world_tri *world_triangles(const mn_model *m, size_t *count)
{
    float *worlds = malloc(sizeof(float) * 16 * m->node_count);
    assert_non_null(worlds);
    mn_model_rest_worlds(m, worlds);
    uint32_t node = MN_NONE;
    for (uint32_t i = 0; i < m->node_count; i++)
        if (m->nodes[i].mesh != MN_NONE)
            node = i;
    assert_int_not_equal(node, MN_NONE);
    const float *w = worlds + 16 * (size_t)node;
    float normal_m[16], inv[16];
    assert_true(mn_mat4_invert_affine(inv, w));
    for (int r = 0; r < 4; r++) /* inverse-transpose for normals */
        for (int c = 0; c < 4; c++)
            normal_m[c * 4 + r] = inv[r * 4 + c];
    const mn_primitive *p = &m->meshes[m->nodes[node].mesh].primitives[0];
    const mn_accessor *pa = &m->accessors[mn_primitive_find(p, MN_SEMANTIC_POSITION, 0)];
    const mn_accessor *na = &m->accessors[mn_primitive_find(p, MN_SEMANTIC_NORMAL, 0)];
    const mn_accessor *ia = &m->accessors[p->indices];
    float *pos = malloc(sizeof(float) * 3 * pa->count), *nrm = malloc(sizeof(float) * 3 * na->count);
    uint32_t *idx = malloc(sizeof(uint32_t) * ia->count);
    assert_true(pos && nrm && idx);
    assert_int_equal(mn_accessor_unpack_floats(pa, pos, 3 * (size_t)pa->count), 3 * (size_t)pa->count);
    assert_int_equal(mn_accessor_unpack_floats(na, nrm, 3 * (size_t)na->count), 3 * (size_t)na->count);
    assert_int_equal(mn_accessor_unpack_u32(ia, idx, ia->count), ia->count);
    *count = ia->count / 3;
    world_tri *tris = calloc(*count, sizeof *tris);
    assert_non_null(tris);
    for (size_t t = 0; t < *count; t++) {
        world_tri raw;
        for (int v = 0; v < 3; v++) {
            uint32_t k = idx[3 * t + (size_t)v];
            assert_true(k < pa->count);
            mn_mat4_transform_point(raw.p[v], w, pos + 3 * (size_t)k);
            mn_mat4_transform_dir(raw.n[v], normal_m, nrm + 3 * (size_t)k);
            float len = sqrtf(raw.n[v][0] * raw.n[v][0] + raw.n[v][1] * raw.n[v][1] + raw.n[v][2] * raw.n[v][2]);
            for (int c = 0; c < 3; c++)
                raw.n[v][c] /= len;
        }
        int first = 0;
        for (int v = 1; v < 3; v++)
            if (less_on_grid(raw.p[v], raw.p[first]))
                first = v;
        for (int v = 0; v < 3; v++) {
            memcpy(tris[t].p[v], raw.p[(first + v) % 3], sizeof raw.p[0]);
            memcpy(tris[t].n[v], raw.n[(first + v) % 3], sizeof raw.n[0]);
        }
    }
    qsort(tris, *count, sizeof *tris, compare_tri);
    free(pos);
    free(nrm);
    free(idx);
    free(worlds);
    return tris;
}

/*
 * Tolerances: 14-bit positions (gltfpack) and 16-bit normalized positions
 * (glTF-Transform) put corners within 1e-4 of ±0.5, so 1e-3 is generous; the
 * normals are 8-bit (normalized BYTE, or an 8-bit octahedral filter), good to
 * about 1/127, so 0.02 per component.
 */
#define BOX_POSITION_TOL 1e-3f
#define BOX_NORMAL_TOL 0.02f

static void test_box_meshopt_decodes_to_the_box(void **state)
{
    (void)state;
    mn_model *box = load_file(mn_test_asset("gltf/Box/glTF-Binary/Box.glb"));
    size_t n_ref;
    world_tri *ref = world_triangles(box, &n_ref);
    assert_int_equal(n_ref, 12);
    const char *variants[] = {mn_test_asset("gltf/BoxMeshopt/BoxMeshopt.glb"),
                              mn_test_asset("gltf/BoxMeshopt/BoxMeshopt.gltf")};
    for (size_t v = 0; v < 2; v++) {
        mn_model *m = load_file(variants[v]);
        size_t n;
        world_tri *tris = world_triangles(m, &n);
        assert_int_equal(n, n_ref);
        float worst_p = 0.0f, worst_n = 0.0f;
        for (size_t t = 0; t < n; t++)
            for (int k = 0; k < 3; k++)
                for (int c = 0; c < 3; c++) {
                    worst_p = fmaxf(worst_p, fabsf(tris[t].p[k][c] - ref[t].p[k][c]));
                    worst_n = fmaxf(worst_n, fabsf(tris[t].n[k][c] - ref[t].n[k][c]));
                }
        print_message("%s: worst position error %g, worst normal error %g (first corner %g %g %g)\n",
                      variants[v], (double)worst_p, (double)worst_n, (double)tris[0].p[0][0],
                      (double)tris[0].p[0][1], (double)tris[0].p[0][2]);
        assert_true(worst_p <= BOX_POSITION_TOL);
        assert_true(worst_n <= BOX_NORMAL_TOL);
        free(tris);
        mn_model_free(m);
    }
    free(ref);
    mn_model_free(box);
}

/* ---- features, value by value ---------------------------------------------------------------- */

static void test_box_matrix_node_is_decomposed(void **state)
{
    (void)state;
    mn_model *m = load_file(mn_test_asset("gltf/Box/glTF/Box.gltf"));
    const mn_node *root = &m->nodes[0];
    assert_true(root->has_matrix);
    /* [1 0 0 0, 0 0 -1 0, 0 1 0 0, 0 0 0 1]: -90 degrees about X. */
    const float h = 0.70710678f;
    assert_true(fabsf(root->rotation[0] + h) < 1e-6f);
    assert_true(fabsf(root->rotation[1]) < 1e-6f && fabsf(root->rotation[2]) < 1e-6f);
    assert_true(fabsf(root->rotation[3] - h) < 1e-6f);
    for (int i = 0; i < 3; i++) {
        assert_true(fabsf(root->translation[i]) < 1e-6f);
        assert_true(fabsf(root->scale[i] - 1.0f) < 1e-6f);
    }
    assert_string_equal(root->name, "node0");
    assert_int_equal(root->child_count, 1);
    assert_int_equal(root->children[0], 1);
    assert_int_equal(m->nodes[1].parent, 0);
    assert_int_equal(m->nodes[1].mesh, 0);
    assert_string_equal(m->materials[0].name, "Red");
    mn_model_free(m);
}

/* BoxTextured keeps one PNG in a bufferView, an external file and a data: URI: the same bytes. */
static void test_images_in_three_storages_are_the_same_png(void **state)
{
    (void)state;
    size_t png_size;
    void *png = mn_test_read_file(mn_test_asset("gltf/BoxTextured/glTF/CesiumLogoFlat.png"), &png_size);
    const char *variants[] = {mn_test_asset("gltf/BoxTextured/glTF-Binary/BoxTextured.glb"),
                              mn_test_asset("gltf/BoxTextured/glTF/BoxTextured.gltf"),
                              mn_test_asset("gltf/BoxTextured/glTF-Embedded/BoxTextured.gltf")};
    for (size_t v = 0; v < 3; v++) {
        mn_model *m = load_file(variants[v]);
        const mn_image *img = &m->images[0];
        assert_string_equal(img->mime_type, "image/png");
        assert_int_equal(img->size, png_size);
        assert_memory_equal(img->data, png, png_size);
        if (v == 0)
            assert_int_not_equal(img->buffer_view, MN_NONE);
        else
            assert_int_equal(img->buffer_view, MN_NONE);
        if (v == 1)
            assert_string_equal(img->uri, "CesiumLogoFlat.png");
        assert_int_equal(m->textures[0].image, 0);
        assert_int_equal(m->materials[0].base_color_texture.texture, 0);
        assert_int_equal(m->materials[0].base_color_texture.texcoord, 0);
        mn_model_free(m);
    }
    free(png);
}

static void test_sparse_accessor_substitutes_three_positions(void **state)
{
    (void)state;
    mn_model *m = load_file(mn_test_asset("gltf/SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf"));
    const mn_accessor *a = &m->accessors[1];
    assert_int_equal(a->sparse_count, 3);
    assert_int_equal(a->buffer_view, 1);
    float pos[42];
    assert_int_equal(mn_accessor_unpack_floats(a, pos, 42), 42);
    /* Base grid: x = i % 7, y = i / 7; elements 8, 10, 12 become (1,2), (3,3), (5,4). */
    for (uint32_t i = 0; i < 14; i++) {
        float x = (float)(i % 7), y = (float)(i / 7);
        if (i == 8) { x = 1; y = 2; }
        if (i == 10) { x = 3; y = 3; }
        if (i == 12) { x = 5; y = 4; }
        assert_true(pos[3 * i] == x && pos[3 * i + 1] == y && pos[3 * i + 2] == 0.0f);
    }
    mn_model_free(m);
}

static void test_multi_uv_materials_and_camera(void **state)
{
    (void)state;
    mn_model *m = load_file(mn_test_asset("gltf/MultiUVTest/glTF-Binary/MultiUVTest.glb"));
    const mn_material *mat = &m->materials[0];
    assert_int_equal(mat->base_color_texture.texture, 0);
    assert_int_equal(mat->base_color_texture.texcoord, 0);
    assert_int_equal(mat->emissive_texture.texture, 1);
    assert_int_equal(mat->emissive_texture.texcoord, 1);
    assert_true(mat->emissive[0] == 1.0f && mat->emissive[1] == 1.0f && mat->emissive[2] == 1.0f);
    const mn_primitive *p = &m->meshes[0].primitives[0];
    assert_int_not_equal(mn_primitive_find(p, MN_SEMANTIC_TEXCOORD, 1), MN_NONE);
    assert_int_not_equal(mn_primitive_find(p, MN_SEMANTIC_TANGENT, 0), MN_NONE);
    assert_int_equal(m->camera_count, 1);
    for (uint32_t i = 0; i < m->image_count; i++)
        assert_string_equal(m->images[i].mime_type, "image/png");
    mn_model_free(m);
}

static void test_morph_targets_weights_and_animation(void **state)
{
    (void)state;
    mn_model *m = load_file(mn_test_asset("gltf/SimpleMorph/glTF/SimpleMorph.gltf"));
    const mn_mesh *mesh = &m->meshes[0];
    assert_int_equal(mesh->weight_count, 2);
    assert_true(mesh->weights[0] == 0.5f && mesh->weights[1] == 0.5f);
    assert_int_equal(mesh->primitives[0].target_count, 2);
    assert_int_not_equal(mesh->primitives[0].targets[1].position, MN_NONE);
    assert_int_equal(mesh->primitives[0].targets[1].normal, MN_NONE);
    const mn_channel *ch = &m->animations[0].channels[0];
    assert_int_equal(ch->path, MN_PATH_WEIGHTS);
    assert_int_equal(ch->components, 2);
    assert_int_equal(ch->key_count, 5);
    mn_model_free(m);

    m = load_file(mn_test_asset("gltf/AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf"));
    const mn_primitive *p = &m->meshes[0].primitives[0];
    assert_int_equal(p->target_count, 2);
    assert_int_not_equal(p->targets[0].normal, MN_NONE);
    assert_string_equal(m->animations[0].name, "Square");
    assert_int_equal(m->animations[0].channels[0].key_count, 127);
    mn_model_free(m);
}

static void test_mesh_primitive_modes_strips_and_fans_become_lists(void **state)
{
    (void)state;
    mn_model *m = load_file(mn_test_asset("gltf/MeshPrimitiveModes/glTF/MeshPrimitiveModes.gltf"));
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        const mn_primitive *p = &m->meshes[i].primitives[0];
        bool converted = p->original_mode == MN_MODE_TRIANGLE_STRIP || p->original_mode == MN_MODE_TRIANGLE_FAN;
        assert_int_equal(p->mode, converted ? MN_MODE_TRIANGLES : p->original_mode);
        const mn_accessor *a = &m->accessors[p->indices];
        if (converted) {
            /* Appended after the file's 10 accessors, u32, a whole number of triangles. */
            assert_true(p->indices >= 8);
            assert_int_equal(a->component, MN_COMPONENT_U32);
            assert_int_equal(a->count % 3, 0);
            assert_int_equal(a->buffer_view, MN_NONE);
        }
    }
    assert_int_equal(m->accessor_count, 10); /* the file's 8 + one list per strip/fan */
    mn_model_free(m);
}

static void test_skins_and_animation_of_cesium_man(void **state)
{
    (void)state;
    size_t size;
    void *data = mn_test_read_file(mn_test_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb"), &size);
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_gltf_read_memory(data, size, NULL, &m, &err), MN_OK);
    const mn_skin *s = &m->skins[0];
    assert_int_equal(s->joint_count, 19);
    assert_int_equal(s->skeleton, 3);
    assert_int_equal(m->nodes[2].skin, 0);
    const uint8_t *lo = data, *hi = lo + size;
    /* Packed float data is used in place: inverse binds, key times and values point into the file. */
    assert_true((const uint8_t *)s->inverse_bind >= lo && (const uint8_t *)s->inverse_bind < hi);
    const mn_animation *a = &m->animations[0];
    assert_string_equal(a->name, "anim0");
    for (uint32_t c = 0; c < a->channel_count; c++) {
        assert_int_equal(a->channels[c].key_count, 48);
        assert_true((const uint8_t *)a->channels[c].times >= lo && (const uint8_t *)a->channels[c].times < hi);
        assert_true((const uint8_t *)a->channels[c].values >= lo && (const uint8_t *)a->channels[c].values < hi);
        assert_int_equal(a->channels[c].components, a->channels[c].path == MN_PATH_ROTATION ? 4 : 3);
    }
    assert_true(fabsf(a->channels[0].times[0] - 0.0417f) < 1e-3f);
    assert_string_equal(m->images[0].mime_type, "image/jpeg");
    assert_int_equal(m->images[0].size, 209908);
    mn_model_free(m);
    free(data);
}

static void test_interpolation_test_keeps_cubic_tangents(void **state)
{
    (void)state;
    mn_model *m = load_file(mn_test_asset("gltf/InterpolationTest/glTF-Binary/InterpolationTest.glb"));
    static const struct {
        const char *name;
        mn_interpolation interp;
        mn_anim_path path;
    } expected[] = {
        {"Step Scale", MN_INTERP_STEP, MN_PATH_SCALE},
        {"Linear Scale", MN_INTERP_LINEAR, MN_PATH_SCALE},
        {"CubicSpline Scale", MN_INTERP_CUBICSPLINE, MN_PATH_SCALE},
        {"Step Rotation", MN_INTERP_STEP, MN_PATH_ROTATION},
        {"CubicSpline Rotation", MN_INTERP_CUBICSPLINE, MN_PATH_ROTATION},
        {"Linear Rotation", MN_INTERP_LINEAR, MN_PATH_ROTATION},
        {"Step Translation", MN_INTERP_STEP, MN_PATH_TRANSLATION},
        {"CubicSpline Translation", MN_INTERP_CUBICSPLINE, MN_PATH_TRANSLATION},
        {"Linear Translation", MN_INTERP_LINEAR, MN_PATH_TRANSLATION},
    };
    assert_int_equal(m->animation_count, 9);
    for (uint32_t i = 0; i < 9; i++) {
        const mn_animation *a = &m->animations[i];
        assert_string_equal(a->name, expected[i].name);
        assert_int_equal(a->channel_count, 1);
        assert_int_equal(a->channels[0].interpolation, expected[i].interp);
        assert_int_equal(a->channels[0].path, expected[i].path);
        assert_int_equal(a->channels[0].key_count, 5);
    }
    mn_model_free(m);
}

static void test_glb_bin_is_a_view_unless_copied(void **state)
{
    (void)state;
    size_t size;
    void *data = mn_test_read_file(mn_test_asset("gltf/Box/glTF-Binary/Box.glb"), &size);
    const uint8_t *lo = data, *hi = lo + size;
    mn_model *m = NULL;
    assert_int_equal(mn_gltf_read_memory(data, size, NULL, &m, NULL), MN_OK);
    assert_true(m->buffers[0].data >= lo && m->buffers[0].data < hi);
    assert_null(m->buffers[0].uri);
    mn_model_free(m);
    mn_gltf_options opts;
    memset(&opts, 0, sizeof opts);
    opts.copy_input = true;
    assert_int_equal(mn_gltf_read_memory(data, size, &opts, &m, NULL), MN_OK);
    assert_false(m->buffers[0].data >= lo && m->buffers[0].data < hi);
    memset(data, 0, size); /* the model no longer borrows the input */
    assert_int_equal(m->accessors[0].count, 36);
    float p[3];
    mn_accessor_unpack_floats(&m->accessors[2], p, 3);
    assert_true(fabsf(p[0]) == 0.5f);
    mn_model_free(m);
    free(data);
}

/* A .gltf with external files read from memory without a base_dir: refused, naming the URI. */
static void test_external_buffer_from_memory_needs_a_base_dir(void **state)
{
    (void)state;
    size_t size;
    void *data = mn_test_read_file(mn_test_asset("gltf/Box/glTF/Box.gltf"), &size);
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_gltf_read_memory(data, size, NULL, &m, &err), MN_URI);
    assert_null(m);
    assert_string_equal(err.path, "buffers[0].uri");
    print_message("%s\n", err.message);
    free(data);
}

/* ---- the invalid files ---------------------------------------------------------------------- */

typedef struct invalid_case {
    const char *path;     /* under the assets folder's invalid/ */
    mn_status code;       /* every one is refused: see the comment on each */
    const char *err_path; /* the JSON path the error names ("" for container errors) */
} invalid_case;

static const invalid_case INVALID[] = {
    /* The GLB container: each flaw makes the chunks unreadable or ambiguous. */
    {"glb/invalid_magic.glb", MN_GLB_MAGIC, ""},
    {"glb/truncated_chunk_data.glb", MN_GLB_CHUNK, ""},
    {"glb/chunk_too_big.glb", MN_GLB_CHUNK, ""},
    {"glb/length_mismatch.glb", MN_GLB_LENGTH, ""},
    {"glb/only_bin_chunk.glb", MN_GLB_FIRST_CHUNK, ""},
    {"glb/empty_file.glb", MN_GLB_HEADER, ""},
    {"json/invalid_syntax.gltf", MN_JSON_SYNTAX, ""},
    /* References to things that do not exist would be read out of bounds. */
    {"accessor/unresolved_bufferviews.gltf", MN_INDEX_RANGE, "accessors[0].bufferView"},
    {"skin/unresolved_joint.gltf", MN_INDEX_RANGE, "skins[0].joints[0]"},
    {"mesh_data/index_buffer_oob.gltf", MN_INDEX_RANGE, "meshes[0].primitives[0].indices"},
    {"buffer_view/invalid_length.gltf", MN_BUFFER_VIEW_BOUNDS, "bufferViews[0].byteLength"},
    /* Data that cannot be had. */
    {"buffer/not_found.gltf", MN_IO, "buffers[0].uri"},
    {"buffer/invalid_uri_data.gltf", MN_URI, "buffers[0].uri"},
    /* A cycle has no root to compose from. */
    {"node/node_loop.gltf", MN_HIERARCHY, "nodes[0]"},
    /* Counts that disagree: a morph delta per vertex, a value per key.  The second
       animation's unknown path would only be a warning, but the first is refused. */
    {"mesh/morph_attribute_invalid_count.gltf", MN_COUNT_MISMATCH, "meshes[0].primitives[0].targets[0].POSITION"},
    {"animation/sampler_output_count_invalid.gltf", MN_COUNT_MISMATCH, "animations[0].channels[0].sampler"},
};

#define INVALID_COUNT (sizeof INVALID / sizeof INVALID[0])

static void test_every_invalid_asset_is_refused_with_a_named_code(void **state)
{
    (void)state;
    for (size_t i = 0; i < INVALID_COUNT; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", mn_test_asset("invalid"), INVALID[i].path);
        mn_model *m = (mn_model *)(uintptr_t)1;
        mn_error err;
        mn_status st = mn_gltf_read_file(path, NULL, &m, &err);
        print_message("%-45s %-22s %s\n", INVALID[i].path, mn_status_name(st), err.message);
        assert_int_equal(st, INVALID[i].code);
        assert_int_equal(err.code, INVALID[i].code);
        assert_null(m);
        assert_string_equal(err.path, INVALID[i].err_path);
        assert_true(strlen(err.message) > 20);
        if (st == MN_JSON_SYNTAX) {
            assert_int_equal(err.line, 1);
            assert_int_equal(err.column, 2);
        }
    }
}

/* Read from memory (external files against the folder): the same outcome. */
static void test_invalid_assets_from_memory_have_the_same_outcome(void **state)
{
    (void)state;
    for (size_t i = 0; i < INVALID_COUNT; i++) {
        char path[512], dir[512];
        snprintf(path, sizeof path, "%s/%s", mn_test_asset("invalid"), INVALID[i].path);
        folder_of(path, dir, sizeof dir);
        size_t size;
        void *data = mn_test_read_file(path, &size);
        mn_gltf_options opts;
        memset(&opts, 0, sizeof opts);
        opts.base_dir = dir;
        mn_model *m = NULL;
        mn_error err;
        assert_int_equal(mn_gltf_read_memory(data, size, &opts, &m, &err), INVALID[i].code);
        assert_null(m);
        free(data);
    }
}

/* ---- hostile variants of real files ---------------------------------------------------------- */

/* Every prefix of a real file is refused, never read past. */
static void test_every_truncation_of_real_files_is_refused(void **state)
{
    (void)state;
    const char *files[] = {mn_test_asset("gltf/Box/glTF-Binary/Box.glb"),
                           mn_test_asset("gltf/BoxMeshopt/BoxMeshopt.glb"),
                           mn_test_asset("gltf/SimpleSparseAccessor/glTF-Embedded/SimpleSparseAccessor.gltf")};
    for (size_t f = 0; f < 3; f++) {
        size_t size;
        uint8_t *data = mn_test_read_file(files[f], &size);
        for (size_t n = 0; n < size; n++) {
            /* An exact-size copy, so ASan sees a read one past the prefix. */
            uint8_t *cut = malloc(n ? n : 1);
            assert_non_null(cut);
            memcpy(cut, data, n);
            mn_model *m = NULL;
            mn_error err;
            mn_status st = mn_gltf_read_memory(cut, n, NULL, &m, &err);
            /* Trailing JSON whitespace is the one cut that may still be a whole document. */
            if (st == MN_OK) {
                assert_true(files[f][strlen(files[f]) - 1] == 'f');
                mn_model_free(m);
            } else {
                assert_null(m);
            }
            free(cut);
        }
        free(data);
    }
}

/* Every byte of Box.glb set to a few hostile values: each read succeeds or fails cleanly. */
static void test_corrupted_bytes_of_a_real_file_fail_cleanly(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = mn_test_read_file(mn_test_asset("gltf/BoxMeshopt/BoxMeshopt.glb"), &size);
    uint8_t *copy = malloc(size);
    assert_non_null(copy);
    static const uint8_t values[] = {0x00, 0xFF, 0x7F, '9', '"'};
    size_t refused = 0, loaded = 0;
    for (size_t i = 0; i < size; i++) {
        for (size_t v = 0; v < sizeof values; v++) {
            memcpy(copy, data, size);
            copy[i] = values[v];
            mn_model *m = NULL;
            mn_status st = mn_gltf_read_memory(copy, size, NULL, &m, NULL);
            if (st == MN_OK) {
                loaded++;
                mn_model_free(m);
            } else {
                refused++;
                assert_null(m);
            }
        }
    }
    print_message("BoxMeshopt.glb with one byte changed: %zu loaded, %zu refused\n", loaded, refused);
    free(copy);
    free(data);
}

/* The N-th allocation fails, for every N until the read succeeds: out of memory, nothing leaked. */
static void test_allocation_failures_leak_nothing(void **state)
{
    (void)state;
    const char *files[] = {mn_test_asset("gltf/CesiumMan/glTF-Binary/CesiumMan.glb"),
                           mn_test_asset("gltf/BoxMeshopt/BoxMeshopt.gltf"),
                           mn_test_asset("gltf/BoxTextured/glTF/BoxTextured.gltf"),
                           mn_test_asset("gltf/MeshPrimitiveModes/glTF-Embedded/MeshPrimitiveModes.gltf")};
    for (size_t f = 0; f < 4; f++) {
        for (long n = 0;; n++) {
            mn_counting_alloc counter = mn_counting_alloc_make();
            counter.fail_after = n;
            mn_gltf_options opts;
            memset(&opts, 0, sizeof opts);
            opts.allocator = mn_counting_allocator(&counter);
            mn_model *m = NULL;
            mn_error err;
            mn_status st = mn_gltf_read_file(files[f], &opts, &m, &err);
            if (st == MN_OK) {
                assert_true(counter.live_bytes > 0);
                mn_model_free(m);
                assert_int_equal(counter.live_bytes, 0);
                print_message("%s: succeeded once %ld allocations were allowed\n", files[f], n);
                break;
            }
            assert_int_equal(st, MN_OUT_OF_MEMORY);
            assert_null(m);
            assert_int_equal(counter.live_bytes, 0);
            assert_true(n < 10000);
        }
    }
}

int main(void)
{
    mn_test_binary_needs_assets();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_asset_loads_with_the_readme_counts),
        cmocka_unit_test(test_every_asset_reads_the_same_from_memory),
        cmocka_unit_test(test_box_meshopt_decodes_to_the_box),
        cmocka_unit_test(test_box_matrix_node_is_decomposed),
        cmocka_unit_test(test_images_in_three_storages_are_the_same_png),
        cmocka_unit_test(test_sparse_accessor_substitutes_three_positions),
        cmocka_unit_test(test_multi_uv_materials_and_camera),
        cmocka_unit_test(test_morph_targets_weights_and_animation),
        cmocka_unit_test(test_mesh_primitive_modes_strips_and_fans_become_lists),
        cmocka_unit_test(test_skins_and_animation_of_cesium_man),
        cmocka_unit_test(test_interpolation_test_keeps_cubic_tangents),
        cmocka_unit_test(test_glb_bin_is_a_view_unless_copied),
        cmocka_unit_test(test_external_buffer_from_memory_needs_a_base_dir),
        cmocka_unit_test(test_every_invalid_asset_is_refused_with_a_named_code),
        cmocka_unit_test(test_invalid_assets_from_memory_have_the_same_outcome),
        cmocka_unit_test(test_every_truncation_of_real_files_is_refused),
        cmocka_unit_test(test_corrupted_bytes_of_a_real_file_fail_cleanly),
        cmocka_unit_test(test_allocation_failures_leak_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
