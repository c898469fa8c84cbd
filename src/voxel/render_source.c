/*
 * voxel/render_source: a scene from a voxel rig controller.  A rigged kind
 * draws every part's mesh placed by its part world; a skinned or static kind
 * draws the controller's one mesh with its posed (skinned) vertices.  Voxel
 * meshes carry their colour per vertex; the material is the plain default.
 */
#include <marionette/voxel/controller.h>

#include "render/render.h"

#include <string.h>

static void voxel_refresh(mn_render_source *s);

static void mesh_from_part(const mn_part_mesh *pm, mn_render_mesh *mesh)
{
    memset(mesh, 0, sizeof *mesh);
    mesh->vertex_count = pm->vertex_count;
    mesh->positions = pm->positions;
    mesh->normals = pm->normals;
    mesh->colors = pm->colors;
    mesh->color_components = 3;
    mesh->indices = pm->indices;
    mesh->index_count = pm->index_count / 3 * 3;
    mesh->material = MN_NONE;
}

mn_status mn_render_source_voxel(mn_voxel_controller *controller, const mn_allocator *allocator,
                                 mn_render_source **out, mn_error *err)
{
    if (out)
        *out = NULL;
    if (!controller || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "render source: NULL controller or out");
    mn_render_source *s = mni_source_new(allocator, voxel_refresh);
    if (!s)
        return mni_oom(err, "render source");
    s->kind_state = controller;
    const mn_voxel_rig *rig = mn_voxel_controller_rig(controller);
    const mn_part_mesh *one = mn_voxel_controller_mesh(controller);
    uint32_t slots = one ? 1 : rig->part_count;
    s->meshes = slots ? mni_arena_calloc(&s->arena, slots, sizeof *s->meshes, 16) : NULL;
    uint32_t *part_of = slots ? mni_arena_calloc(&s->arena, slots, sizeof *part_of, 16) : NULL;
    if (slots && (!s->meshes || !part_of)) {
        mn_render_source_free(s);
        return mni_oom(err, "render source");
    }
    uint32_t count = 0;
    if (one) {
        mesh_from_part(one, &s->meshes[count]);
        part_of[count++] = MN_NONE;
    } else {
        for (uint32_t p = 0; p < rig->part_count; p++) {
            const mn_part_mesh *pm = mn_voxel_controller_part_mesh(controller, p);
            if (!pm || pm->vertex_count == 0 || pm->index_count < 3)
                continue;
            mesh_from_part(pm, &s->meshes[count]);
            part_of[count++] = p;
        }
    }
    s->part_of = part_of;
    s->scene.meshes = s->meshes;
    s->scene.mesh_count = count;
    voxel_refresh(s);
    *out = s;
    return MN_OK;
}

static void voxel_refresh(mn_render_source *s)
{
    if (s->scene.mesh_count == 1 && s->part_of[0] == MN_NONE) {
        s->meshes[0].positions = mn_voxel_controller_positions(s->kind_state);
        s->meshes[0].normals = mn_voxel_controller_normals(s->kind_state);
        s->meshes[0].vertex_count = mn_voxel_controller_vertex_count(s->kind_state);
        return;
    }
    const float *worlds = mn_voxel_controller_part_worlds(s->kind_state);
    for (uint32_t k = 0; k < s->scene.mesh_count; k++)
        s->meshes[k].matrix = worlds + 16 * (size_t)s->part_of[k];
}
