/* Load a glTF or GLB file and walk what it holds. */
#include <marionette/marionette.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s MODEL.glb\n", argv[0]);
        return 2;
    }
    mn_model *model = NULL;
    mn_error err;
    if (mn_gltf_read_file(argv[1], NULL, &model, &err) != MN_OK) {
        fprintf(stderr, "%s: %s (%s)\n", argv[1], err.message, mn_status_name(err.code));
        return 1;
    }
    printf("%u nodes, %u meshes, %u skins, %u animations\n", model->node_count,
           model->mesh_count, model->skin_count, model->animation_count);

    /* Positions as floats, whatever type the file stores them in. */
    for (uint32_t m = 0; m < model->mesh_count; m++) {
        const mn_mesh *mesh = &model->meshes[m];
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            uint32_t a = mn_primitive_find(&mesh->primitives[p], MN_SEMANTIC_POSITION, 0);
            if (a == MN_NONE || model->accessors[a].count == 0)
                continue;
            size_t n = mn_accessor_unpack_floats(&model->accessors[a], NULL, 0);
            float *xyz = malloc(n * sizeof *xyz);
            if (!xyz)
                break;
            mn_accessor_unpack_floats(&model->accessors[a], xyz, n);
            printf("mesh %s: %zu vertices, first at (%g, %g, %g)\n", mesh->name ? mesh->name : "?",
                   n / 3, xyz[0], xyz[1], xyz[2]);
            free(xyz);
        }
    }

    for (uint32_t s = 0; s < model->skin_count; s++)
        printf("skin %u: %u joints, the first is %s\n", s, model->skins[s].joint_count,
               model->skins[s].joint_count ? model->nodes[model->skins[s].joints[0]].name : "-");
    for (uint32_t i = 0; i < model->animation_count; i++)
        printf("animation %s: %u channels, %.3f s\n", model->animations[i].name,
               model->animations[i].channel_count, model->animations[i].duration);

    mn_model_free(model);
    return 0;
}
