/*
 * render/source_obj: a scene from an OBJ.  Each group's triangle soup is drawn
 * in place (stride 8: position, normal, uv); materials take Kd and d, and
 * map_Kd read from the OBJ's folder.  OBJ files say nothing about culling and
 * often mix windings, so their materials are double-sided.
 */
#include "render/render.h"
#include "io/io.h"

#include <stdio.h>
#include <string.h>

/*
 * The maps decoded so far, by the address of their file's bytes: mni_files
 * gives every name of one file the same bytes, so a file is decoded once
 * however many materials name it (a hash set, not a scan: a library may
 * hold a million materials).
 */
typedef struct decoded_maps {
    const void **file;  /* cap slots: the file bytes, NULL when empty */
    uint32_t *texture;  /* the texture decoded from it */
    size_t cap;         /* a power of two, at least twice the materials */
} decoded_maps;

static size_t map_slot(const decoded_maps *d, const void *file)
{
    size_t h = (size_t)(((uintptr_t)file >> 4) * (uintptr_t)0x9E3779B97F4A7C15ull);
    size_t i = h & (d->cap - 1);
    while (d->file[i] && d->file[i] != file)
        i = (i + 1) & (d->cap - 1);
    return i;
}

/*
 * Read a map_Kd file into a texture (a warning when it cannot be read or
 * decoded).  The map is read as every name a model gives is: inside the
 * root, symlinks followed, regular files only, each file once (io/contain.c).
 */
static mn_status load_map(mn_render_source *s, mni_files *files, decoded_maps *maps,
                          const mn_obj_material *m, uint32_t index, mn_render_texture *tex)
{
    char what[160];
    snprintf(what, sizeof what, "materials[%u] (%s).map_Kd", index, m->name ? m->name : "");
    mn_rgba_image img;
    mn_error err;
    mn_bytes file;
    mn_status st = mni_files_read(files, m->map_kd_file, what, UINT64_MAX, &file, NULL, &err);
    size_t slot = 0;
    if (st == MN_OK && file.data) {
        slot = map_slot(maps, file.data);
        if (maps->file[slot]) {
            *tex = s->textures[maps->texture[slot]];
            return MN_OK;
        }
    }
    if (st == MN_OK)
        st = mn_rgba_image_decode(file.data, file.size, &s->arena.allocator, &img, &err);
    if (st == MN_OUT_OF_MEMORY)
        return st;
    if (st != MN_OK) {
        mni_source_warn(s, st, what, "%s: %s; drawn untextured", what, err.message);
        return MN_OK;
    }
    size_t bytes = (size_t)img.width * img.height * 4u;
    uint8_t *pixels = mni_arena_alloc(&s->arena, bytes, 16);
    if (pixels)
        memcpy(pixels, img.pixels, bytes);
    *tex = (mn_render_texture){img.width, img.height, pixels, MN_WRAP_REPEAT, MN_WRAP_REPEAT, false};
    mn_rgba_image_free(&img);
    if (pixels && file.data) {
        maps->file[slot] = file.data;
        maps->texture[slot] = index;
    }
    return pixels ? MN_OK : MN_OUT_OF_MEMORY;
}

mn_status mn_render_source_obj(const mn_obj *obj, const char *base_dir, const char *root,
                               const mn_allocator *allocator, mn_render_source **out, mn_error *err)
{
    if (out)
        *out = NULL;
    if (!obj || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "render source: NULL obj or out");
    mn_render_source *s = mni_source_new(allocator, NULL);
    if (!s)
        return mni_oom(err, "render source");
    mn_status st = MN_OK;
    uint32_t nm = obj->material_count, ng = obj->group_count;
    if (nm) {
        s->materials = mni_arena_calloc(&s->arena, nm, sizeof *s->materials, 16);
        s->textures = mni_arena_calloc(&s->arena, nm, sizeof *s->textures, 16);
        st = s->materials && s->textures ? MN_OK : MN_OUT_OF_MEMORY;
    }
    mn_arena scratch; /* the map files, kept while the maps are decoded */
    mni_arena_init(&scratch, &s->arena.allocator);
    mni_files files;
    mni_files_init(&files, &scratch, root, base_dir);
    decoded_maps maps = {NULL, NULL, 16};
    while (maps.cap < 2 * (size_t)nm)
        maps.cap *= 2;
    maps.file = mni_arena_calloc(&scratch, maps.cap, sizeof *maps.file, 16);
    maps.texture = mni_arena_calloc(&scratch, maps.cap, sizeof *maps.texture, 16);
    if (!maps.file || !maps.texture)
        st = MN_OUT_OF_MEMORY;
    for (uint32_t i = 0; st == MN_OK && i < nm; i++) {
        const mn_obj_material *m = &obj->materials[i];
        mn_render_material *rm = &s->materials[i];
        memcpy(rm->base_color, m->diffuse, 3 * sizeof(float));
        rm->base_color[3] = m->opacity;
        memcpy(rm->emissive, m->emissive, sizeof rm->emissive);
        rm->alpha_mode = m->opacity < 1.0f ? MN_ALPHA_BLEND : MN_ALPHA_OPAQUE;
        rm->alpha_cutoff = 0.5f;
        rm->double_sided = true;
        rm->texture = MN_NONE;
        rm->emissive_texture = MN_NONE;
        /* OBJ's v runs up the image, glTF's (and the sampler's) down it: v' = 1 − v. */
        const float flip[6] = {1.0f, 0.0f, 0.0f, -1.0f, 0.0f, 1.0f};
        memcpy(rm->uv_transform, flip, sizeof flip);
        s->textures[i] = (mn_render_texture){0, 0, NULL, MN_WRAP_REPEAT, MN_WRAP_REPEAT, false};
        if (m->map_kd_file) {
            st = load_map(s, &files, &maps, m, i, &s->textures[i]);
            if (st == MN_OK && s->textures[i].rgba)
                rm->texture = i;
        }
    }
    mni_arena_release(&scratch);
    if (st == MN_OK && ng) {
        s->meshes = mni_arena_calloc(&s->arena, ng, sizeof *s->meshes, 16);
        st = s->meshes ? MN_OK : MN_OUT_OF_MEMORY;
    }
    if (st != MN_OK) {
        mn_render_source_free(s);
        return mni_oom(err, "render source");
    }
    for (uint32_t g = 0; g < ng; g++) {
        const mn_obj_group *group = &obj->groups[g];
        mn_render_mesh *mesh = &s->meshes[g];
        mesh->vertex_count = group->vertex_count;
        mesh->positions = group->verts;
        mesh->position_stride = 8;
        mesh->normals = group->verts + 3;
        mesh->normal_stride = 8;
        mesh->uv[0] = group->verts + 6;
        mesh->uv_stride[0] = 8;
        mesh->material = group->material_index < nm ? group->material_index : MN_NONE;
    }
    s->scene = (mn_render_scene){s->meshes, ng, s->materials, nm, s->textures, nm, NULL, 0};
    *out = s;
    return MN_OK;
}
