/* quickstart MODEL.glb: load it, play its first clip, skin it, print a vertex 0.5 s in. */
#include <marionette/marionette.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    mn_model *model = NULL;  mn_rig *rig = NULL;  mn_instance *actor = NULL;
    mn_error err = {.message = "usage: quickstart MODEL.glb"};
    bool ok = argc == 2 && mn_gltf_read_file(argv[1], NULL, &model, &err) == MN_OK &&
              mn_rig_create(model, NULL, &rig, &err) == MN_OK &&        /* shared, made once */
              mn_instance_create(rig, NULL, &actor, &err) == MN_OK &&   /* one placed copy */
              mn_mixer_play(mn_instance_mixer(actor), 0, NULL, &err) == MN_OK;   /* loop clip 0 */
    if (ok) {
        mn_instance_update(actor, 0.5f);   /* sample the clip, pose the joints, skin the mesh */
        const float *v = mn_instance_part(actor, 0)->positions;
        printf("vertex 0 at 0.5 s: (%.3f, %.3f, %.3f)\n", v[0], v[1], v[2]);
    } else
        fprintf(stderr, "%s\n", err.message);
    mn_instance_free(actor);  mn_rig_free(rig);  mn_model_free(model);   /* each NULL-safe */
    return ok ? 0 : 1;
}
