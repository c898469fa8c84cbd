/* Load a voxel rig (rig.json and part meshes), drive joints, play an animation, read the parts. */
#include <marionette/marionette.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s RIG_FOLDER (or RIG.json)\n", argv[0]);
        return 2;
    }
    mn_voxel_controller *arm = NULL;
    mn_error err;
    if (mn_voxel_controller_load(argv[1], NULL, &arm, &err) != MN_OK) {
        fprintf(stderr, "%s: %s%s%s (%s)\n", argv[1], err.path, err.path[0] ? ": " : "",
                err.message, mn_status_name(err.code));
        return 1;
    }
    const mn_voxel_rig *rig = mn_voxel_controller_rig(arm);

    /* The procedural interface: the joints a game drives, with their ranges. */
    const char *names[16];
    uint32_t n = mn_voxel_controller_joint_names(arm, MN_VOXEL_DRIVE_CALLER, names, 16);
    for (uint32_t i = 0; i < n && i < 16; i++) {
        mn_voxel_joint_range r;
        mn_voxel_controller_joint_range(arm, names[i], &r);
        printf("caller joint %-10s range [%g, %g], rest %g\n", names[i], r.min, r.max, r.rest);
    }

    /* Caller values are clamped to the joint's range; auto-play animations run from the start. */
    mn_voxel_joint_value values[] = {{"turn", 0.5f}, {"shoulder", 0.8f}};
    if (mn_voxel_controller_pose(arm, values, 2) != MN_OK)
        fprintf(stderr, "this rig has no joint 'turn' or 'shoulder'\n");
    if (mn_voxel_controller_play_animation(arm, "wave") != MN_OK)   /* a one-shot, by name */
        fprintf(stderr, "this rig has no animation 'wave'\n");
    for (int frame = 0; frame < 18; frame++)                         /* 0.3 s at 60 Hz */
        mn_voxel_controller_update(arm, 1.0 / 60.0);

    /* One world matrix per part, column-major: it takes the part's mesh (sculpt space, in
       voxels) to its posed place.  voxel_size turns voxels into world units. */
    const float *worlds = mn_voxel_controller_part_worlds(arm);
    const char *playing = mn_voxel_controller_playing(arm);
    printf("at %.0f ms, playing %s:\n", mn_voxel_controller_time_ms(arm), playing ? playing : "-");
    for (uint32_t p = 0; p < rig->part_count; p++) {
        const float *w = &worlds[16 * p];
        const mn_part_mesh *mesh = mn_voxel_controller_part_mesh(arm, p);
        printf("  part %-6s translation (%.3f, %.3f, %.3f) voxels", rig->parts[p].name, w[12],
               w[13], w[14]);
        if (mesh)
            printf(", mesh of %u vertices", mesh->vertex_count);
        printf("\n");
    }
    /* A *-skinned kind has one mesh, skinned by the posed parts (its bones). */
    if (mn_voxel_controller_vertex_count(arm) > 0) {
        const float *v = mn_voxel_controller_positions(arm);
        printf("  mesh: %u vertices, the first at (%.3f, %.3f, %.3f) voxels\n",
               mn_voxel_controller_vertex_count(arm), v[0], v[1], v[2]);
    }
    mn_voxel_controller_free(arm);                /* the rig and meshes it loaded, too */
    return 0;
}
