/*
 * The install test's consumer: links against an installed marionette and
 * reads a one-triangle glTF held in memory (its buffer is a data: URI), so it
 * needs no files.  Prints "consumer: ok" and exits 0 when everything holds.
 */
#include <marionette/marionette.h>

#include <stdio.h>
#include <string.h>

static const char triangle[] =
    "{\"asset\": {\"version\": \"2.0\"},"
    " \"scene\": 0, \"scenes\": [{\"nodes\": [0]}],"
    " \"nodes\": [{\"mesh\": 0, \"translation\": [0, 0, 2]}],"
    " \"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": 0}, \"indices\": 1}]}],"
    " \"accessors\": ["
    "  {\"bufferView\": 0, \"componentType\": 5126, \"count\": 3, \"type\": \"VEC3\","
    "   \"min\": [0, 0, 0], \"max\": [1, 1, 0]},"
    "  {\"bufferView\": 1, \"componentType\": 5123, \"count\": 3, \"type\": \"SCALAR\"}],"
    " \"bufferViews\": [{\"buffer\": 0, \"byteLength\": 36},"
    "                  {\"buffer\": 0, \"byteOffset\": 36, \"byteLength\": 6}],"
    " \"buffers\": [{\"byteLength\": 44, \"uri\":"
    "  \"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAABAAIAAAA=\"}]}";

static int fail(const char *what)
{
    fprintf(stderr, "consumer: FAILED: %s\n", what);
    return 1;
}

int main(void)
{
    if (strcmp(mn_version(), MN_VERSION_STRING) != 0)
        return fail("the library's version differs from the header's");

    mn_model *model = NULL;
    mn_error err;
    if (mn_gltf_read_memory(triangle, sizeof triangle - 1, NULL, &model, &err) != MN_OK) {
        fprintf(stderr, "consumer: %s: %s (%s)\n", err.path, err.message, mn_status_name(err.code));
        return 1;
    }
    int status = 0;
    float xyz[9] = {0}, world[16];
    const mn_primitive *prim = model->mesh_count ? &model->meshes[0].primitives[0] : NULL;
    if (!prim || prim->vertex_count != 3)
        status = fail("one primitive of 3 vertices");
    else if (mn_accessor_unpack_floats(&model->accessors[0], xyz, 9) != 9 || xyz[3] != 1.0f ||
             xyz[7] != 1.0f)
        status = fail("positions unpack to floats");
    mn_model_rest_worlds(model, world);
    if (world[14] != 2.0f)
        status = fail("the node's rest world carries its translation");
    if (model->bounds_max[2] != 2.0f)
        status = fail("bounds are in world space");
    mn_model_free(model);

    if (status == 0)
        printf("consumer: ok (marionette %s)\n", mn_version());
    return status;
}
