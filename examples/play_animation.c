/* Place an animated glTF model in the world, play its first clip, read the posed results. */
#include <marionette/marionette.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s MODEL.glb\n", argv[0]);
        return 2;
    }
    mn_model *model = NULL;
    mn_rig *rig = NULL;            /* what every instance of the model shares */
    mn_instance *guard = NULL;     /* one placed, animated copy */
    mn_error err;
    int status = 1;

    /* 2 m east and 5 m away, turned a quarter turn, 1.8 m at its largest dimension. */
    mn_instance_desc desc = {.position = {2, 0, -5}, .yaw = 1.5707964f, .size = 1.8f};
    if (mn_gltf_read_file(argv[1], NULL, &model, &err) != MN_OK ||
        mn_rig_create(model, NULL, &rig, &err) != MN_OK ||
        mn_instance_create(rig, &desc, &guard, &err) != MN_OK) {
        fprintf(stderr, "%s: %s (%s)\n", argv[1], err.message, mn_status_name(err.code));
        goto done;
    }

    mn_mixer *mixer = mn_instance_mixer(guard);
    if (mn_mixer_clip_count(mixer) == 0) {
        printf("%s has no animation to play\n", argv[1]);
        status = 0;
        goto done;
    }
    /* Loop clip 0 from 0.3 s in, fading in from the rest pose over 0.2 s. */
    mn_play_options play = {.fade = 0.2f, .at = 0.3f};
    if (mn_mixer_play(mixer, 0, &play, &err) != MN_OK) {
        fprintf(stderr, "play: %s\n", err.message);
        goto done;
    }
    for (int frame = 0; frame < 30; frame++)     /* half a second at 60 frames a second */
        mn_instance_update(guard, 1.0f / 60.0f);
    printf("clip \"%s\" (%.3f s) at %.3f s\n", mn_clip_name(mn_mixer_clip(mixer, 0)),
           mn_clip_duration(mn_mixer_clip(mixer, 0)), mn_mixer_time(mixer));

    /* Placed world matrices, one per node; the translation is the last column. */
    const float *worlds = mn_instance_worlds(guard);
    if (model->skin_count > 0 && model->skins[0].joint_count > 0) {
        uint32_t node = model->skins[0].joints[0];
        const char *name = model->nodes[node].name ? model->nodes[node].name : "?";
        const float *w = &worlds[16 * node];
        printf("joint %s at (%.3f, %.3f, %.3f)\n", name, w[12], w[13], w[14]);
    }

    /* A part's vertices are drawn with its matrix: for a skinned part they are skinned into
       model space and the matrix is the instance's placement. */
    for (uint32_t i = 0; i < mn_rig_part_count(rig); i++) {
        const mn_posed_part *part = mn_instance_part(guard, i);
        if (mn_rig_part(rig, i)->skin == MN_NONE || part->vertex_count == 0)
            continue;
        float p[3];
        mn_mat4_transform_point(p, part->matrix, &part->positions[0]);
        printf("part %u: %u skinned vertices, the first at (%.3f, %.3f, %.3f)\n", i,
               part->vertex_count, p[0], p[1], p[2]);
        break;
    }
    status = 0;

done:
    mn_instance_free(guard);       /* instances, then the rig, then the model */
    mn_rig_free(rig);
    mn_model_free(model);
    return status;
}
