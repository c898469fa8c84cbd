/*
 * An OBJ as an mn_model (obj_model.h): groups to primitives through the
 * model builder, MTL materials to glTF metallic-roughness materials.
 */
#include <marionette/model_build.h>
#include <marionette/obj_model.h>

#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* map_Kd's file name as a URI reference: '\' as '/', bytes a URI cannot hold percent-encoded. */
static char *file_uri(const mn_allocator *allocator, const char *file, size_t *size)
{
    size_t n = strlen(file);
    *size = 3 * n + 1;
    char *out = mni_alloc(allocator, *size);
    if (!out)
        return NULL;
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)file; *p; p++) {
        unsigned char c = *p == '\\' ? '/' : *p;
        bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    strchr("-._~/!$&'()*+,;=:@", c) != NULL;
        if (keep) {
            out[k++] = (char)c;
        } else {
            static const char hex[] = "0123456789ABCDEF";
            out[k++] = '%';
            out[k++] = hex[c >> 4];
            out[k++] = hex[c & 15];
        }
    }
    out[k] = '\0';
    return out;
}

/* The glTF material of an OBJ material (and its texture, when it has map_Kd). */
static uint32_t add_material(mn_model_builder *b, const mn_obj_material *om, const mn_allocator *allocator)
{
    mn_material mat;
    mn_model_build_material_defaults(&mat);
    mat.name = om->name;
    memcpy(mat.base_color, om->diffuse, sizeof om->diffuse);
    mat.base_color[3] = om->opacity;
    if (om->opacity < 1.0f)
        mat.alpha_mode = MN_ALPHA_BLEND;
    memcpy(mat.emissive, om->emissive, sizeof om->emissive);
    mat.metallic = 0.0f;
    mat.roughness = om->has_shininess ? sqrtf(2.0f / (fmaxf(om->shininess, 0.0f) + 2.0f)) : 1.0f;
    if (om->map_kd_file) {
        size_t size;
        char *uri = file_uri(allocator, om->map_kd_file, &size);
        if (!uri)
            return MN_NONE;
        uint32_t image = mn_model_build_image(b, NULL, NULL, uri, NULL, 0);
        mni_free(allocator, uri, size);
        mat.base_color_texture.texture = mn_model_build_texture(b, image, MN_NONE);
    }
    return mn_model_build_material(b, &mat);
}

/* One group's soup split into attribute arrays (uv flipped, normals made unit). */
static bool add_group(mn_model_builder *b, uint32_t mesh, const mn_obj_group *g, bool uvs, uint32_t material,
                      const mn_allocator *allocator)
{
    size_t n = g->vertex_count;
    size_t bytes = n * 8 * sizeof(float);
    float *buf = mni_alloc(allocator, bytes ? bytes : 1);
    if (!buf)
        return false;
    float *pos = buf, *nrm = buf + 3 * n, *uv = buf + 6 * n;
    for (size_t i = 0; i < n; i++) {
        const float *v = &g->verts[8 * i];
        memcpy(&pos[3 * i], v, 3 * sizeof(float));
        memcpy(&nrm[3 * i], v + 3, 3 * sizeof(float));
        uv[2 * i] = v[6];
        uv[2 * i + 1] = 1.0f - v[7];
    }
    for (size_t i = 0; i < n; i++) {
        float *q = &nrm[3 * i];
        double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2]);
        if (len > 1e-20 && isfinite(len)) {
            for (int k = 0; k < 3; k++)
                q[k] = (float)(q[k] / len);
            continue;
        }
        /* The face normal of the vertex's triangle, (b − a) × (c − a). */
        const float *a = &pos[3 * (i - i % 3)], *bb = a + 3, *c = a + 6;
        double e1[3], e2[3];
        for (int k = 0; k < 3; k++)
            e1[k] = (double)bb[k] - a[k], e2[k] = (double)c[k] - a[k];
        double f[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        double fl = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
        for (int k = 0; k < 3; k++)
            q[k] = fl > 1e-30 ? (float)(f[k] / fl) : (k == 2 ? 1.0f : 0.0f);
    }
    mn_build_attribute attrs[3] = {
        {"POSITION", mn_model_build_accessor_f32(b, NULL, pos, (uint32_t)n, MN_TYPE_VEC3)},
        {"NORMAL", mn_model_build_accessor_f32(b, NULL, nrm, (uint32_t)n, MN_TYPE_VEC3)},
        {"TEXCOORD_0", uvs ? mn_model_build_accessor_f32(b, NULL, uv, (uint32_t)n, MN_TYPE_VEC2) : MN_NONE},
    };
    mni_free(allocator, buf, bytes ? bytes : 1);
    mn_model_build_primitive(b, mesh, MN_MODE_TRIANGLES, attrs, uvs ? 3u : 2u, MN_NONE, material);
    return true;
}

mn_status mn_model_from_obj(const mn_obj *obj, const char *name, const mn_allocator *allocator,
                            mn_model **out_model, mn_error *err)
{
    if (out_model)
        *out_model = NULL;
    if (!obj || !out_model)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_model_from_obj needs an obj and out_model");
    mn_allocator none;
    memset(&none, 0, sizeof none);
    if (!allocator)
        allocator = &none;
    if (!name)
        name = "obj";
    mn_model_builder *b = mn_model_build_begin(allocator);
    uint32_t *materials = mni_alloc(allocator, (obj->material_count + 1u) * sizeof *materials);
    bool ok = materials != NULL;
    for (uint32_t i = 0; ok && i < obj->material_count; i++)
        materials[i] = MN_NONE;
    uint32_t node = mn_model_build_node(b, name, MN_NONE);
    uint32_t mesh = MN_NONE;
    bool uvs = obj->texcoord_count > 0;
    for (uint32_t g = 0; ok && g < obj->group_count; g++) {
        const mn_obj_group *group = &obj->groups[g];
        if (group->vertex_count == 0)
            continue;
        uint32_t mi = group->material_index, material = MN_NONE;
        if (mi != MN_NONE && mi < obj->material_count) {
            if (materials[mi] == MN_NONE)
                materials[mi] = add_material(b, &obj->materials[mi], allocator);
            material = materials[mi];
            ok = material != MN_NONE || mn_model_build_status(b) != MN_OK;
        }
        if (mesh == MN_NONE)
            mesh = mn_model_build_mesh(b, name);
        ok = ok && add_group(b, mesh, group, uvs, material, allocator);
    }
    if (mesh != MN_NONE)
        mn_model_build_node_mesh(b, node, mesh, MN_NONE);
    if (materials)
        mni_free(allocator, materials, (obj->material_count + 1u) * sizeof *materials);
    if (!ok) {
        mn_model_build_discard(b);
        return mni_oom(err, "converting the OBJ");
    }
    return mn_model_build_finish(b, out_model, err);
}
