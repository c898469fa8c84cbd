/*
 * KHR_animation_pointer targets: the one table of the pointers the library
 * animates, the parse of a pointer against a model (what the glTF reader
 * keeps, what it drops), and where a property's floats live in a material,
 * camera or light, which the mixer's instance state and the renderer share.
 *
 * A pointer is an RFC 6901 JSON pointer.  None of the properties here has
 * '~' or '/' in its name, so a pointer that escapes one cannot name any of
 * them: the parse compares the text, segment for segment, with the table.
 * An index is "0" or a decimal without leading zeros, as RFC 6901 writes
 * array indices.
 */
#include "model/model.h"

#include <stdio.h>
#include <string.h>

/* The collections a pointer starts in. */
typedef enum collection { IN_NODES, IN_MESHES, IN_MATERIALS, IN_CAMERAS, IN_LIGHTS } collection;

static const char *const collection_prefix[] = {
    [IN_NODES] = "/nodes/", [IN_MESHES] = "/meshes/", [IN_MATERIALS] = "/materials/",
    [IN_CAMERAS] = "/cameras/", [IN_LIGHTS] = "/extensions/KHR_lights_punctual/lights/"};

/* What must hold of the object for the property to be defined (the extension's rule). */
typedef enum need {
    NEED_NONE = 0,
    NEED_MORPH,        /* a node's mesh, or the mesh, has morph targets */
    NEED_PERSPECTIVE,  /* the camera is perspective */
    NEED_ASPECT,       /* perspective with aspectRatio given */
    NEED_ZFAR,         /* perspective with zfar given */
    NEED_ORTHOGRAPHIC, /* the camera is orthographic */
    NEED_NORMAL,       /* the material has a normalTexture */
    NEED_OCCLUSION,    /* ... an occlusionTexture */
    NEED_TRANSFORM,    /* the slot's texture has KHR_texture_transform */
    NEED_SPOT,         /* the light is a spot */
    NEED_RANGE         /* the light gives a range */
} need;

typedef struct pointer_entry {
    collection in;
    const char *suffix;          /* after "<prefix><index>/" */
    mn_pointer_property property;
    uint32_t components;         /* 0: the morph target count */
    need need;
    mn_texture_slot slot;
} pointer_entry;

#define TT "/extensions/KHR_texture_transform/"
static const pointer_entry table[] = {
    {IN_NODES, "translation", MN_PROP_NODE_TRANSLATION, 3, NEED_NONE, 0},
    {IN_NODES, "rotation", MN_PROP_NODE_ROTATION, 4, NEED_NONE, 0},
    {IN_NODES, "scale", MN_PROP_NODE_SCALE, 3, NEED_NONE, 0},
    {IN_NODES, "weights", MN_PROP_NODE_WEIGHTS, 0, NEED_MORPH, 0},
    {IN_NODES, "extensions/KHR_node_visibility/visible", MN_PROP_NODE_VISIBLE, 1, NEED_NONE, 0},
    {IN_MESHES, "weights", MN_PROP_MESH_WEIGHTS, 0, NEED_MORPH, 0},
    {IN_MATERIALS, "pbrMetallicRoughness/baseColorFactor", MN_PROP_BASE_COLOR, 4, NEED_NONE, 0},
    {IN_MATERIALS, "pbrMetallicRoughness/metallicFactor", MN_PROP_METALLIC, 1, NEED_NONE, 0},
    {IN_MATERIALS, "pbrMetallicRoughness/roughnessFactor", MN_PROP_ROUGHNESS, 1, NEED_NONE, 0},
    {IN_MATERIALS, "alphaCutoff", MN_PROP_ALPHA_CUTOFF, 1, NEED_NONE, 0},
    {IN_MATERIALS, "emissiveFactor", MN_PROP_EMISSIVE, 3, NEED_NONE, 0},
    {IN_MATERIALS, "extensions/KHR_materials_emissive_strength/emissiveStrength",
     MN_PROP_EMISSIVE_STRENGTH, 1, NEED_NONE, 0},
    {IN_MATERIALS, "normalTexture/scale", MN_PROP_NORMAL_SCALE, 1, NEED_NORMAL, 0},
    {IN_MATERIALS, "occlusionTexture/strength", MN_PROP_OCCLUSION_STRENGTH, 1, NEED_OCCLUSION, 0},
    {IN_MATERIALS, "pbrMetallicRoughness/baseColorTexture" TT "offset", MN_PROP_TEXTURE_OFFSET, 2, NEED_TRANSFORM, MN_SLOT_BASE_COLOR},
    {IN_MATERIALS, "pbrMetallicRoughness/baseColorTexture" TT "rotation", MN_PROP_TEXTURE_ROTATION, 1, NEED_TRANSFORM, MN_SLOT_BASE_COLOR},
    {IN_MATERIALS, "pbrMetallicRoughness/baseColorTexture" TT "scale", MN_PROP_TEXTURE_SCALE, 2, NEED_TRANSFORM, MN_SLOT_BASE_COLOR},
    {IN_MATERIALS, "pbrMetallicRoughness/metallicRoughnessTexture" TT "offset", MN_PROP_TEXTURE_OFFSET, 2, NEED_TRANSFORM, MN_SLOT_METALLIC_ROUGHNESS},
    {IN_MATERIALS, "pbrMetallicRoughness/metallicRoughnessTexture" TT "rotation", MN_PROP_TEXTURE_ROTATION, 1, NEED_TRANSFORM, MN_SLOT_METALLIC_ROUGHNESS},
    {IN_MATERIALS, "pbrMetallicRoughness/metallicRoughnessTexture" TT "scale", MN_PROP_TEXTURE_SCALE, 2, NEED_TRANSFORM, MN_SLOT_METALLIC_ROUGHNESS},
    {IN_MATERIALS, "normalTexture" TT "offset", MN_PROP_TEXTURE_OFFSET, 2, NEED_TRANSFORM, MN_SLOT_NORMAL},
    {IN_MATERIALS, "normalTexture" TT "rotation", MN_PROP_TEXTURE_ROTATION, 1, NEED_TRANSFORM, MN_SLOT_NORMAL},
    {IN_MATERIALS, "normalTexture" TT "scale", MN_PROP_TEXTURE_SCALE, 2, NEED_TRANSFORM, MN_SLOT_NORMAL},
    {IN_MATERIALS, "occlusionTexture" TT "offset", MN_PROP_TEXTURE_OFFSET, 2, NEED_TRANSFORM, MN_SLOT_OCCLUSION},
    {IN_MATERIALS, "occlusionTexture" TT "rotation", MN_PROP_TEXTURE_ROTATION, 1, NEED_TRANSFORM, MN_SLOT_OCCLUSION},
    {IN_MATERIALS, "occlusionTexture" TT "scale", MN_PROP_TEXTURE_SCALE, 2, NEED_TRANSFORM, MN_SLOT_OCCLUSION},
    {IN_MATERIALS, "emissiveTexture" TT "offset", MN_PROP_TEXTURE_OFFSET, 2, NEED_TRANSFORM, MN_SLOT_EMISSIVE},
    {IN_MATERIALS, "emissiveTexture" TT "rotation", MN_PROP_TEXTURE_ROTATION, 1, NEED_TRANSFORM, MN_SLOT_EMISSIVE},
    {IN_MATERIALS, "emissiveTexture" TT "scale", MN_PROP_TEXTURE_SCALE, 2, NEED_TRANSFORM, MN_SLOT_EMISSIVE},
    {IN_CAMERAS, "perspective/yfov", MN_PROP_CAMERA_YFOV, 1, NEED_PERSPECTIVE, 0},
    {IN_CAMERAS, "perspective/aspectRatio", MN_PROP_CAMERA_ASPECT_RATIO, 1, NEED_ASPECT, 0},
    {IN_CAMERAS, "perspective/znear", MN_PROP_CAMERA_ZNEAR, 1, NEED_PERSPECTIVE, 0},
    {IN_CAMERAS, "perspective/zfar", MN_PROP_CAMERA_ZFAR, 1, NEED_ZFAR, 0},
    {IN_CAMERAS, "orthographic/xmag", MN_PROP_CAMERA_XMAG, 1, NEED_ORTHOGRAPHIC, 0},
    {IN_CAMERAS, "orthographic/ymag", MN_PROP_CAMERA_YMAG, 1, NEED_ORTHOGRAPHIC, 0},
    {IN_CAMERAS, "orthographic/znear", MN_PROP_CAMERA_ZNEAR, 1, NEED_ORTHOGRAPHIC, 0},
    {IN_CAMERAS, "orthographic/zfar", MN_PROP_CAMERA_ZFAR, 1, NEED_ORTHOGRAPHIC, 0},
    {IN_LIGHTS, "color", MN_PROP_LIGHT_COLOR, 3, NEED_NONE, 0},
    {IN_LIGHTS, "intensity", MN_PROP_LIGHT_INTENSITY, 1, NEED_NONE, 0},
    {IN_LIGHTS, "range", MN_PROP_LIGHT_RANGE, 1, NEED_RANGE, 0},
    {IN_LIGHTS, "spot/innerConeAngle", MN_PROP_LIGHT_INNER_CONE, 1, NEED_SPOT, 0},
    {IN_LIGHTS, "spot/outerConeAngle", MN_PROP_LIGHT_OUTER_CONE, 1, NEED_SPOT, 0},
};
#undef TT

static const mn_texture_ref *slot_ref(const mn_material *m, mn_texture_slot slot)
{
    switch (slot) {
    case MN_SLOT_BASE_COLOR: return &m->base_color_texture;
    case MN_SLOT_METALLIC_ROUGHNESS: return &m->metallic_roughness_texture;
    case MN_SLOT_NORMAL: return &m->normal_texture;
    case MN_SLOT_OCCLUSION: return &m->occlusion_texture;
    default: return &m->emissive_texture;
    }
}

/* The count of a collection in m. */
static uint32_t collection_count(const mn_model *m, collection in)
{
    switch (in) {
    case IN_NODES: return m->node_count;
    case IN_MESHES: return m->mesh_count;
    case IN_MATERIALS: return m->material_count;
    case IN_CAMERAS: return m->camera_count;
    default: return m->lights ? m->light_count : 0;
    }
}

static uint32_t morph_count(const mn_model *m, collection in, uint32_t i)
{
    if (in == IN_MESHES)
        return m->meshes[i].weight_count;
    uint32_t mesh = m->nodes[i].mesh;
    return mesh < m->mesh_count ? m->meshes[mesh].weight_count : 0;
}

/* Whether entry e is defined on object i (NULL) or why not. */
static const char *undefined(const mn_model *m, const pointer_entry *e, uint32_t i)
{
    switch (e->need) {
    case NEED_MORPH: return morph_count(m, e->in, i) ? NULL : "it has no morph targets";
    case NEED_PERSPECTIVE: return !m->cameras[i].orthographic ? NULL : "the camera is orthographic";
    case NEED_ASPECT:
        return m->cameras[i].orthographic ? "the camera is orthographic"
               : m->cameras[i].aspect_ratio > 0.0f ? NULL : "the camera gives no aspectRatio";
    case NEED_ZFAR:
        return m->cameras[i].orthographic ? "the camera is orthographic"
               : m->cameras[i].zfar > 0.0f ? NULL : "the camera gives no zfar (infinite)";
    case NEED_ORTHOGRAPHIC: return m->cameras[i].orthographic ? NULL : "the camera is perspective";
    case NEED_NORMAL:
        return m->materials[i].normal_texture.texture != MN_NONE ? NULL : "the material has no normalTexture";
    case NEED_OCCLUSION:
        return m->materials[i].occlusion_texture.texture != MN_NONE ? NULL
                                                                     : "the material has no occlusionTexture";
    case NEED_TRANSFORM: {
        const mn_texture_ref *ref = slot_ref(&m->materials[i], e->slot);
        return ref->texture == MN_NONE ? "the material has no texture in that slot"
               : ref->has_transform    ? NULL
                                       : "that texture has no KHR_texture_transform";
    }
    case NEED_SPOT: return m->lights[i].type == MN_LIGHT_SPOT ? NULL : "the light is not a spot";
    case NEED_RANGE: return m->lights[i].range > 0.0f ? NULL : "the light gives no range (infinite)";
    default: return NULL;
    }
}

/* An RFC 6901 array index at *s ("0" or no leading zero), up to '/'; false when it is none. */
static bool parse_index(const char **s, uint64_t *out)
{
    const char *p = *s;
    if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9'))
        return false;
    uint64_t v = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        if ((v = v * 10 + (uint64_t)(*p - '0')) > UINT32_MAX)
            return false;
    if (*p != '/')
        return false;
    *out = v;
    *s = p + 1;
    return true;
}

mn_status mni_pointer_resolve(const mn_model *m, const char *text, mn_pointer *out, char *why,
                              size_t why_size)
{
    memset(out, 0, sizeof *out);
    out->text = text;
    for (size_t c = 0; c < MNI_COUNT(collection_prefix); c++) {
        size_t n = strlen(collection_prefix[c]);
        if (strncmp(text, collection_prefix[c], n) != 0)
            continue;
        const char *rest = text + n;
        uint64_t index;
        if (!parse_index(&rest, &index))
            break;
        const pointer_entry *e = NULL;
        for (size_t k = 0; k < MNI_COUNT(table) && !e; k++)
            if (table[k].in == (collection)c && strcmp(rest, table[k].suffix) == 0)
                e = &table[k];
        if (!e)
            break;
        uint32_t count = collection_count(m, (collection)c);
        if (index >= count) {
            snprintf(why, why_size, "index %llu is out of range (the model has %u)",
                     (unsigned long long)index, count);
            return MN_INDEX_RANGE;
        }
        const char *no = undefined(m, e, (uint32_t)index);
        if (no) {
            snprintf(why, why_size, "the property is not defined: %s", no);
            return MN_INVALID_VALUE;
        }
        out->property = e->property;
        out->index = (uint32_t)index;
        out->slot = e->slot;
        out->components = e->components ? e->components : morph_count(m, (collection)c, (uint32_t)index);
        return MN_OK;
    }
    snprintf(why, why_size, "it names no property this reader animates");
    return MN_INVALID_VALUE;
}

bool mni_pointer_is_bool(mn_pointer_property property)
{
    return property == MN_PROP_NODE_VISIBLE;
}

mn_accessor_type mni_pointer_type(const mn_pointer *p)
{
    static const mn_accessor_type by_components[] = {MN_TYPE_SCALAR, MN_TYPE_SCALAR, MN_TYPE_VEC2,
                                                     MN_TYPE_VEC3, MN_TYPE_VEC4};
    if (p->property == MN_PROP_NODE_WEIGHTS || p->property == MN_PROP_MESH_WEIGHTS)
        return MN_TYPE_SCALAR;
    return p->components <= 4 ? by_components[p->components] : MN_TYPE_INVALID;
}

float *mni_pointer_field(mn_material *materials, mn_camera *cameras, mn_light *lights,
                         const mn_pointer *p)
{
    mn_material *mat = materials ? &materials[p->index] : NULL;
    mn_camera *cam = cameras ? &cameras[p->index] : NULL;
    mn_light *light = lights ? &lights[p->index] : NULL;
    switch (p->property) {
    case MN_PROP_BASE_COLOR: return mat ? mat->base_color : NULL;
    case MN_PROP_METALLIC: return mat ? &mat->metallic : NULL;
    case MN_PROP_ROUGHNESS: return mat ? &mat->roughness : NULL;
    case MN_PROP_ALPHA_CUTOFF: return mat ? &mat->alpha_cutoff : NULL;
    case MN_PROP_EMISSIVE: return mat ? mat->emissive : NULL;
    case MN_PROP_EMISSIVE_STRENGTH: return mat ? &mat->emissive_strength : NULL;
    case MN_PROP_NORMAL_SCALE: return mat ? &mat->normal_texture.scale : NULL;
    case MN_PROP_OCCLUSION_STRENGTH: return mat ? &mat->occlusion_texture.scale : NULL;
    case MN_PROP_TEXTURE_OFFSET:
        return mat ? ((mn_texture_ref *)slot_ref(mat, p->slot))->offset : NULL;
    case MN_PROP_TEXTURE_ROTATION:
        return mat ? &((mn_texture_ref *)slot_ref(mat, p->slot))->rotation : NULL;
    case MN_PROP_TEXTURE_SCALE:
        return mat ? ((mn_texture_ref *)slot_ref(mat, p->slot))->uv_scale : NULL;
    case MN_PROP_CAMERA_YFOV: return cam ? &cam->yfov : NULL;
    case MN_PROP_CAMERA_ASPECT_RATIO: return cam ? &cam->aspect_ratio : NULL;
    case MN_PROP_CAMERA_ZNEAR: return cam ? &cam->znear : NULL;
    case MN_PROP_CAMERA_ZFAR: return cam ? &cam->zfar : NULL;
    case MN_PROP_CAMERA_XMAG: return cam ? &cam->xmag : NULL;
    case MN_PROP_CAMERA_YMAG: return cam ? &cam->ymag : NULL;
    case MN_PROP_LIGHT_COLOR: return light ? light->color : NULL;
    case MN_PROP_LIGHT_INTENSITY: return light ? &light->intensity : NULL;
    case MN_PROP_LIGHT_RANGE: return light ? &light->range : NULL;
    case MN_PROP_LIGHT_INNER_CONE: return light ? &light->inner_cone_angle : NULL;
    case MN_PROP_LIGHT_OUTER_CONE: return light ? &light->outer_cone_angle : NULL;
    default: return NULL;
    }
}
