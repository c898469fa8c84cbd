/*
 * libFuzzer target for the OBJ and MTL readers: bytes → mn_obj_read_memory
 * (libraries skipped: there are no files) → check what the reader promises →
 * mn_obj_free; the same bytes → mn_mtl_read_memory → mn_mtl_free.  A refused
 * input must come back with an error code, a line, a terminated message and
 * no object; an accepted one must hold non-empty groups of whole triangles
 * that tile one soup in file order, finite soup values, positions inside the
 * bounds, material indices that name the group's material, and well-formed
 * warnings.  Any broken promise aborts, under ASan
 * and UBSan.
 *
 *     make fuzz                    (each target for 30 s, corpus fuzz/corpus/obj)
 *     build/fuzz/fuzz_obj -dict=fuzz/dict/obj.dict CORPUS_DIR fuzz/corpus/obj
 */
#include <marionette/obj.h>

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
    } else {
        check(obj != NULL && err.code == MN_OK);
        check_obj(obj);
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
