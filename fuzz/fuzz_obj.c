/*
 * libFuzzer target for the OBJ and MTL readers: bytes → mn_obj_read_memory
 * (libraries skipped: there are no files) → check what the reader promises →
 * mn_obj_free; the same bytes → mn_mtl_read_memory → mn_mtl_free.  A refused
 * input must come back with an error code, a line, a terminated message and
 * no object; an accepted one must hold non-empty groups of whole triangles
 * that tile one soup in file order, finite soup values, positions inside the
 * bounds, material indices that name the group's material, and well-formed
 * warnings.  The same bytes are then read split into pieces (2 to 8, the
 * count taken from the input's size, parsed one after another: the split
 * read's code, not its threads), which must give exactly the one-pass
 * result: the same object, or the same first error with its line, column
 * and message.  Any broken promise aborts, under ASan and UBSan.
 *
 *     make fuzz                    (each target for 30 s, corpus fuzz/corpus/obj)
 *     build/fuzz/fuzz_obj -dict=fuzz/dict/obj.dict CORPUS_DIR fuzz/corpus/obj
 */
#include <marionette/obj.h>

#include "../src/obj/pieces.h" /* the split read, for the comparison */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check(bool ok)
{
    if (!ok)
        abort();
}

static void check_obj(const mn_obj *obj)
{
    size_t next = 0;
    const float *soup = obj->group_count ? obj->groups[0].verts : NULL;
    for (uint32_t g = 0; g < obj->group_count; g++) {
        const mn_obj_group *group = &obj->groups[g];
        check(group->vertex_count > 0 && group->vertex_count % 3 == 0);
        check(group->verts == soup + 8 * next);
        next += group->vertex_count;
        check(group->material ? group->material_index < obj->material_count &&
                                    strcmp(obj->materials[group->material_index].name, group->material) == 0
                              : group->material_index == MN_NONE);
        for (uint32_t v = 0; v < group->vertex_count; v++) {
            const float *x = group->verts + 8 * (size_t)v;
            for (int k = 0; k < 8; k++)
                check(isfinite(x[k]));
            for (int k = 0; k < 3; k++)
                check(x[k] >= obj->bounds_min[k] && x[k] <= obj->bounds_max[k]);
        }
    }
    for (uint32_t i = 0; i < obj->position_count; i++)
        for (int k = 0; k < 3; k++)
            check(obj->positions[3 * i + k] >= obj->bounds_min[k] && obj->positions[3 * i + k] <= obj->bounds_max[k]);
    check((obj->mtllib == NULL) == (obj->mtllib_count == 0));
    for (uint32_t w = 0; w < obj->warning_count; w++)
        check(obj->warnings[w].message != NULL && obj->warnings[w].path != NULL);
}

static bool same_string(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static bool same_floats(const float *a, const float *b, size_t n)
{
    return n == 0 || memcmp(a, b, n * sizeof(float)) == 0;
}

/* The split read's object must be the one pass's, bit for bit. */
static void check_same(const mn_obj *a, const mn_obj *b)
{
    check(a->group_count == b->group_count && a->mtllib_count == b->mtllib_count &&
          a->material_count == b->material_count && a->warning_count == b->warning_count &&
          a->position_count == b->position_count && a->texcoord_count == b->texcoord_count &&
          a->normal_count == b->normal_count);
    for (uint32_t g = 0; g < a->group_count; g++)
        check(same_string(a->groups[g].material, b->groups[g].material) &&
              a->groups[g].material_index == b->groups[g].material_index &&
              a->groups[g].vertex_count == b->groups[g].vertex_count &&
              same_floats(a->groups[g].verts, b->groups[g].verts, 8 * (size_t)a->groups[g].vertex_count));
    for (uint32_t i = 0; i < a->mtllib_count; i++)
        check(strcmp(a->mtllibs[i], b->mtllibs[i]) == 0);
    for (uint32_t m = 0; m < a->material_count; m++)
        check(strcmp(a->materials[m].name, b->materials[m].name) == 0);
    for (uint32_t w = 0; w < a->warning_count; w++)
        check(a->warnings[w].code == b->warnings[w].code &&
              strcmp(a->warnings[w].path, b->warnings[w].path) == 0 &&
              strcmp(a->warnings[w].message, b->warnings[w].message) == 0);
    check(memcmp(a->bounds_min, b->bounds_min, sizeof a->bounds_min) == 0 &&
          memcmp(a->bounds_max, b->bounds_max, sizeof a->bounds_max) == 0);
    check(same_floats(a->positions, b->positions, 3 * (size_t)a->position_count) &&
          same_floats(a->texcoords, b->texcoords, 2 * (size_t)a->texcoord_count) &&
          same_floats(a->normals, b->normals, 3 * (size_t)a->normal_count));
}

/* Read the bytes again in pieces; compare with the one pass's status, error and object. */
static void check_split(const uint8_t *data, size_t size, const mn_obj_options *options, mn_status status,
                        const mn_error *err, const mn_obj *obj)
{
    mn_obj *split = NULL;
    mn_error split_err;
    mn_status st = mni_obj_read_memory_pieces(data, size, options, 2 + (uint32_t)(size % 7), 1, &split,
                                              &split_err, NULL);
    check(st == status);
    if (st != MN_OK) {
        check(split == NULL && split_err.code == err->code && split_err.line == err->line &&
              split_err.column == err->column && split_err.offset == err->offset &&
              strcmp(split_err.message, err->message) == 0);
        return;
    }
    check_same(obj, split);
    mn_obj_free(split);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mn_obj *obj = NULL;
    mn_error err;
    mn_obj_options options = {.skip_libraries = true};
    mn_status status = mn_obj_read_memory(data, size, &options, &obj, &err);
    if (status != MN_OK) {
        check(obj == NULL && err.code == status && memchr(err.message, '\0', sizeof err.message) != NULL);
        check(status == MN_OUT_OF_MEMORY || err.line >= 1);
        check_split(data, size, &options, status, &err, NULL);
    } else {
        check(obj != NULL && err.code == MN_OK);
        check_obj(obj);
        check_split(data, size, &options, status, &err, obj);
        mn_obj_free(obj);
    }
    mn_mtl_library *lib = NULL;
    status = mn_mtl_read_memory(data, size, &options, &lib, &err);
    if (status == MN_OK) {
        for (uint32_t m = 0; m < lib->material_count; m++)
            check(lib->materials[m].name != NULL && lib->materials[m].defined &&
                  (lib->materials[m].map_kd_file == NULL || lib->materials[m].map_kd != NULL));
        mn_mtl_free(lib);
    } else {
        check(lib == NULL && (status == MN_OUT_OF_MEMORY || err.line >= 1));
    }
    return 0;
}
