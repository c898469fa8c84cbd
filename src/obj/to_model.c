/*
 * An OBJ as an mn_model (obj_model.h): groups to indexed primitives through
 * the model builder, MTL materials to glTF metallic-roughness materials.
 *
 * The reader gives each group as a triangle soup; the corners that come out
 * the same (position, normal and uv as written, bit for bit) become one
 * vertex, found by hashing, and the vertices are written straight into the
 * model's accessors (mni_model_build_accessor_place), so the only memory
 * beside the model is 4 bytes per corner of the group in hand (its vertex
 * numbers, copied into the index accessor) and the hash table, at most 16
 * bytes per distinct vertex.
 */
#include <marionette/model_build.h>
#include <marionette/obj_model.h>

#include "core/core.h"
#include "model/model.h"

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

/* ---- one group as a primitive ------------------------------------------------------------------- */

/*
 * Soup vertex i of a group as it is written: position, the normal made unit
 * (a zero or non-finite one replaced by its triangle's face normal,
 * (b − a) × (c − a), or (0, 0, 1) for a triangle without area), uv with v
 * flipped.  Two corners are one vertex of the primitive when these 8 floats
 * have the same bits.
 */
static void corner(const mn_obj_group *g, size_t i, float out[8])
{
    const float *v = &g->verts[8 * i];
    memcpy(out, v, 3 * sizeof(float));
    out[6] = v[6];
    out[7] = 1.0f - v[7];
    const float *q = v + 3;
    double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2]);
    if (len > 1e-20 && isfinite(len)) {
        for (int k = 0; k < 3; k++)
            out[3 + k] = (float)(q[k] / len);
        return;
    }
    const float *a = &g->verts[8 * (i - i % 3)], *bb = a + 8, *c = a + 16;
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++)
        e1[k] = (double)bb[k] - a[k], e2[k] = (double)c[k] - a[k];
    double f[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    double fl = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (int k = 0; k < 3; k++)
        out[3 + k] = fl > 1e-30 ? (float)(f[k] / fl) : (k == 2 ? 1.0f : 0.0f);
}

static uint32_t corner_hash(const float v[8])
{
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int k = 0; k < 8; k++) {
        uint32_t bits;
        memcpy(&bits, &v[k], sizeof bits);
        h = (h ^ bits) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return (uint32_t)h;
}

/*
 * The distinct vertices of a group, found with an open-addressing table of
 * corners (slot: the first corner with that vertex, + 1; 0 empty) kept at
 * most half full, so the work is O(n) expected.  remap[i] is corner i's
 * vertex; vertices are numbered in the order their first corner comes, so
 * corner i is the first of its vertex exactly when remap[i] equals the
 * number of vertices met before it.
 */
typedef struct dedup {
    const mn_allocator *allocator;
    const mn_obj_group *g;
    uint32_t *remap;           /* per corner */
    uint32_t *slots;
    uint32_t mask;             /* slots - 1 (a power of two minus 1) */
    uint32_t count;            /* distinct vertices so far */
} dedup;

/* The slot of vertex v (hash h): the one holding a corner with the same bits, or the empty one where it goes. */
static uint32_t *dedup_slot(dedup *d, uint32_t *slots, uint32_t mask, const float v[8], uint32_t h)
{
    for (uint32_t s = h & mask;; s = (s + 1) & mask) {
        if (slots[s] == 0)
            return &slots[s];
        float w[8];
        corner(d->g, slots[s] - 1, w);
        if (memcmp(v, w, sizeof w) == 0)
            return &slots[s];
    }
}

/* Twice the slots, every corner put back; false when out of memory. */
static bool dedup_grow(dedup *d)
{
    uint32_t size = 2 * (d->mask + 1);
    uint32_t *slots = mni_alloc(d->allocator, (size_t)size * sizeof *slots);
    if (!slots)
        return false;
    memset(slots, 0, (size_t)size * sizeof *slots);
    for (uint32_t s = 0; s <= d->mask; s++) {
        if (d->slots[s] == 0)
            continue;
        float v[8];
        corner(d->g, d->slots[s] - 1, v);
        *dedup_slot(d, slots, size - 1, v, corner_hash(v)) = d->slots[s];
    }
    mni_free(d->allocator, d->slots, (size_t)(d->mask + 1) * sizeof *d->slots);
    d->slots = slots;
    d->mask = size - 1;
    return true;
}

/* Number the distinct vertices of the group's corners into d->remap; false when out of memory. */
static bool dedup_run(dedup *d)
{
    size_t n = d->g->vertex_count;
    d->count = 0;
    d->mask = 63;
    d->remap = mni_alloc(d->allocator, n * sizeof *d->remap);
    d->slots = mni_alloc(d->allocator, (size_t)(d->mask + 1) * sizeof *d->slots);
    if (!d->remap || !d->slots)
        return false;
    memset(d->slots, 0, (size_t)(d->mask + 1) * sizeof *d->slots);
    for (size_t i = 0; i < n; i++) {
        float v[8];
        corner(d->g, i, v);
        uint32_t *slot = dedup_slot(d, d->slots, d->mask, v, corner_hash(v));
        if (*slot) {
            d->remap[i] = d->remap[*slot - 1];
            continue;
        }
        *slot = (uint32_t)i + 1;
        d->remap[i] = d->count++;
        if (d->count > (d->mask + 1) / 2 && !dedup_grow(d))
            return false;
    }
    return true;
}

static void dedup_free(dedup *d)
{
    mni_free(d->allocator, d->remap, (size_t)d->g->vertex_count * sizeof *d->remap);
    mni_free(d->allocator, d->slots, (size_t)(d->mask + 1) * sizeof *d->slots);
    d->remap = d->slots = NULL;
}

/*
 * The attribute accessors (written in place, in the model) and the index
 * accessor of a deduplicated group: u16 indices while every index fits below
 * 65535 (glTF keeps the type's largest value out of indices), else u32; no
 * indices when every corner is a vertex of its own.
 */
static void add_accessors(mn_model_builder *b, const dedup *d, bool uvs, mn_build_attribute attrs[3],
                          uint32_t *indices)
{
    size_t n = d->g->vertex_count;
    void *place[3];
    attrs[0] = (mn_build_attribute){"POSITION", mni_model_build_accessor_place(b, NULL, d->count, MN_TYPE_VEC3,
                                                                               MN_COMPONENT_F32, &place[0])};
    attrs[1] = (mn_build_attribute){"NORMAL", mni_model_build_accessor_place(b, NULL, d->count, MN_TYPE_VEC3,
                                                                             MN_COMPONENT_F32, &place[1])};
    attrs[2] = (mn_build_attribute){"TEXCOORD_0", MN_NONE};
    place[2] = NULL;
    if (uvs)
        attrs[2].accessor = mni_model_build_accessor_place(b, NULL, d->count, MN_TYPE_VEC2, MN_COMPONENT_F32, &place[2]);
    if (mn_model_build_status(b) != MN_OK)
        return;
    float *pos = place[0], *nrm = place[1], *uv = place[2];
    uint32_t next = 0;
    for (size_t i = 0; i < n && next < d->count; i++) {
        if (d->remap[i] != next)
            continue;
        float v[8];
        corner(d->g, i, v);
        memcpy(&pos[3 * (size_t)next], v, 3 * sizeof(float));
        memcpy(&nrm[3 * (size_t)next], v + 3, 3 * sizeof(float));
        if (uv)
            memcpy(&uv[2 * (size_t)next], v + 6, 2 * sizeof(float));
        next++;
    }
    for (int k = 0; k < (uvs ? 3 : 2); k++)
        mni_model_build_accessor_seal(b, attrs[k].accessor);
    *indices = MN_NONE;
    if (d->count == n)
        return;
    bool wide = d->count > 65535u;
    void *idx;
    *indices = mni_model_build_accessor_place(b, NULL, (uint32_t)n, MN_TYPE_SCALAR,
                                              wide ? MN_COMPONENT_U32 : MN_COMPONENT_U16, &idx);
    if (*indices == MN_NONE)
        return;
    if (wide) {
        memcpy(idx, d->remap, n * sizeof *d->remap);
    } else {
        uint16_t *out = idx;
        for (size_t i = 0; i < n; i++)
            out[i] = (uint16_t)d->remap[i];
    }
    mni_model_build_accessor_seal(b, *indices);
}

/* One group as a primitive of `mesh`: its distinct vertices and, when corners share them, indices. */
static bool add_group(mn_model_builder *b, uint32_t mesh, const mn_obj_group *g, bool uvs, uint32_t material,
                      const mn_allocator *allocator)
{
    dedup d = {allocator, g, NULL, NULL, 0, 0};
    bool ok = dedup_run(&d);
    if (ok) {
        mn_build_attribute attrs[3];
        uint32_t indices = MN_NONE;
        add_accessors(b, &d, uvs, attrs, &indices);
        mn_model_build_primitive(b, mesh, MN_MODE_TRIANGLES, attrs, uvs ? 3u : 2u, indices, material);
    }
    dedup_free(&d);
    return ok;
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
