/*
 * What a surface looks like: images (views of their encoded bytes, with a
 * MIME type), samplers, textures, and metallic-roughness materials with
 * KHR_texture_transform on every texture reference and
 * KHR_materials_emissive_strength.
 */
#include "gltf/internal.h"

#include <stdio.h>
#include <string.h>

/* ---- images ---------------------------------------------------------------------------- */

/* The MIME type the first bytes of an encoded image announce, NULL when unknown. */
static const char *mime_from_magic(const uint8_t *p, size_t n)
{
    if (n >= 8 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0)
        return "image/png";
    if (n >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF)
        return "image/jpeg";
    if (n >= 12 && memcmp(p, "RIFF", 4) == 0 && memcmp(p + 8, "WEBP", 4) == 0)
        return "image/webp";
    if (n >= 12 && memcmp(p, "\xABKTX 20\xBB\r\n\x1A\n", 12) == 0)
        return "image/ktx2";
    if (n >= 6 && (memcmp(p, "GIF87a", 6) == 0 || memcmp(p, "GIF89a", 6) == 0))
        return "image/gif";
    if (n >= 4 && memcmp(p, "DDS ", 4) == 0)
        return "image/vnd-ms.dds";
    return NULL;
}

/* The MIME type a file name's extension suggests, NULL when unknown. */
static const char *mime_from_name(const char *uri)
{
    static const struct {
        const char *ext, *mime;
    } table[] = {{".png", "image/png"},   {".jpg", "image/jpeg"}, {".jpeg", "image/jpeg"},
                 {".webp", "image/webp"}, {".ktx2", "image/ktx2"}, {".gif", "image/gif"},
                 {".dds", "image/vnd-ms.dds"}};
    const char *dot = strrchr(uri, '.');
    if (!dot)
        return NULL;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        size_t n = strlen(table[i].ext);
        bool same = strlen(dot) == n;
        for (size_t k = 0; same && k < n; k++) {
            char c = dot[k];
            if (c >= 'A' && c <= 'Z')
                c = (char)(c - 'A' + 'a');
            same = c == table[i].ext[k];
        }
        if (same)
            return table[i].mime;
    }
    return NULL;
}

/* The image's bytes from its URI; a file that cannot be read is a warning (size 0). */
static mn_status image_from_uri(mn_gltf_reader *r, mn_image *img, const char *uri,
                                const char **media_type)
{
    mn_bytes bytes = {0};
    if (!(img->uri = mni_arena_strndup(r->arena, uri, strlen(uri))))
        return mni_json_oom(&r->json, NULL, NULL);
    mn_status st = mni_gltf_load_uri(r, uri, &bytes, media_type);
    if (st == MN_OK) {
        img->data = bytes.data;
        img->size = bytes.size;
        return MN_OK;
    }
    /* A missing texture leaves the model usable: keep going without it. */
    bool external = !mni_uri_is_data(uri);
    bool unresolved = st == MN_IO || (st == MN_URI && external && !r->base_dir);
    if (!external || !unresolved)
        return st;
    mn_status code = st;
    char message[256];
    snprintf(message, sizeof message, "%s", r->err->message);
    mni_error_clear(r->err);
    img->data = NULL;
    img->size = 0;
    return mni_gltf_warn(r, code, "uri", "%s (the image is left empty)", message);
}

static mn_status read_image(mn_gltf_reader *r, json_t *obj, mn_image *img)
{
    mn_json *j = &r->json;
    const char *uri = NULL, *media_type = NULL;
    mn_status st;
    if ((st = mni_json_string(j, obj, "name", false, &img->name)) != MN_OK ||
        (st = mni_json_string(j, obj, "mimeType", false, &img->mime_type)) != MN_OK ||
        (st = mni_json_string_ref(j, obj, "uri", false, &uri, NULL)) != MN_OK ||
        (st = mni_json_index(j, obj, "bufferView", false, r->model->buffer_view_count, "bufferViews",
                             &img->buffer_view)) != MN_OK)
        return st;
    if (uri && img->buffer_view != MN_NONE)
        return mni_json_fail(j, MN_INVALID_VALUE, NULL,
                             "an image has either a uri or a bufferView, not both");
    if (img->buffer_view != MN_NONE) {
        const mn_buffer_view *v = &r->model->buffer_views[img->buffer_view];
        img->data = v->data;
        img->size = v->size;
    } else if (uri) {
        if ((st = image_from_uri(r, img, uri, &media_type)) != MN_OK)
            return st;
    } else {
        /* Extensions (KHR_texture_basisu, ...) may carry the image instead; nothing to read here. */
        return mni_gltf_warn(r, MN_MISSING_PROPERTY, NULL,
                             "the image has neither a uri nor a bufferView; it is left empty");
    }
    if (!img->mime_type && img->size)
        img->mime_type = mime_from_magic(img->data, img->size);
    if (!img->mime_type && media_type && strncmp(media_type, "image/", 6) == 0)
        img->mime_type = media_type;
    if (!img->mime_type && uri && !mni_uri_is_data(uri))
        img->mime_type = mime_from_name(uri);
    return MN_OK;
}

/* ---- samplers and textures ----------------------------------------------------------------- */

static bool in_list(uint32_t v, const uint32_t *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == v)
            return true;
    return false;
}

/* An optional enum member; 0 stays when absent. */
static mn_status read_enum(mn_gltf_reader *r, json_t *obj, const char *key, const uint32_t *allowed,
                           size_t n, uint32_t *out)
{
    uint32_t v = *out;
    mn_status st = mni_json_u32(&r->json, obj, key, false, 0, UINT32_MAX, &v);
    if (st != MN_OK)
        return st;
    if (json_object_get(obj, key) && !in_list(v, allowed, n))
        return mni_json_fail(&r->json, MN_INVALID_VALUE, key, "%u is not one of the values glTF allows here", v);
    *out = v;
    return MN_OK;
}

static mn_status read_sampler(mn_gltf_reader *r, json_t *obj, mn_sampler *s)
{
    static const uint32_t MAG[] = {9728, 9729};
    static const uint32_t MIN[] = {9728, 9729, 9984, 9985, 9986, 9987};
    static const uint32_t WRAP[] = {33071, 33648, 10497};
    s->wrap_s = s->wrap_t = 10497;
    mn_status st;
    if ((st = mni_json_string(&r->json, obj, "name", false, &s->name)) != MN_OK ||
        (st = read_enum(r, obj, "magFilter", MAG, 2, &s->mag_filter)) != MN_OK ||
        (st = read_enum(r, obj, "minFilter", MIN, 6, &s->min_filter)) != MN_OK ||
        (st = read_enum(r, obj, "wrapS", WRAP, 3, &s->wrap_s)) != MN_OK ||
        (st = read_enum(r, obj, "wrapT", WRAP, 3, &s->wrap_t)) != MN_OK)
        return st;
    return MN_OK;
}

/* extensions.<name>.source of a texture (MN_NONE when absent); *present says whether the extension is. */
static mn_status extension_source(mn_gltf_reader *r, json_t *obj, const char *name, bool *present,
                                  uint32_t *out)
{
    json_t *ext;
    *out = MN_NONE;
    mn_status st = mni_gltf_extension(r, obj, name, &ext);
    *present = ext != NULL;
    if (st != MN_OK || !ext)
        return st;
    size_t mark = mni_json_push_key(&r->json, "extensions");
    mni_json_push_key(&r->json, name);
    st = mni_json_index(&r->json, ext, "source", true, r->model->image_count, "images", out);
    if (st == MN_OK)
        mni_json_pop(&r->json, mark);
    return st;
}

/*
 * The texture's image: its core source, else EXT_texture_webp's (the renderer decodes WebP with
 * libwebp).  A texture whose only source is KHR_texture_basisu's KTX2 image is left without one:
 * nothing here decodes Basis Universal, so materials that use it draw with their factors.
 */
static mn_status read_texture(mn_gltf_reader *r, json_t *obj, mn_texture *t)
{
    mn_status st;
    uint32_t webp, basisu;
    bool has_webp, has_basisu;
    if ((st = mni_json_string(&r->json, obj, "name", false, &t->name)) != MN_OK ||
        (st = mni_json_index(&r->json, obj, "source", false, r->model->image_count, "images",
                             &t->image)) != MN_OK ||
        (st = mni_json_index(&r->json, obj, "sampler", false, r->model->sampler_count, "samplers",
                             &t->sampler)) != MN_OK ||
        (st = extension_source(r, obj, "EXT_texture_webp", &has_webp, &webp)) != MN_OK ||
        (st = extension_source(r, obj, "KHR_texture_basisu", &has_basisu, &basisu)) != MN_OK)
        return st;
    if (t->image == MN_NONE && has_webp)
        t->image = webp;
    if (t->image == MN_NONE && has_basisu)
        return mni_gltf_warn(r, MN_UNSUPPORTED_EXTENSION, NULL,
                             "the texture's only image is images[%u], a KHR_texture_basisu (KTX2) image, which "
                             "marionette does not decode; it is left without an image, and materials that use "
                             "it draw with their factors",
                             basisu);
    return MN_OK;
}

/* ---- materials ------------------------------------------------------------------------------ */

static void texture_ref_defaults(mn_texture_ref *t)
{
    memset(t, 0, sizeof *t);
    t->texture = MN_NONE;
    t->scale = 1.0f;
    t->uv_scale[0] = t->uv_scale[1] = 1.0f;
}

/* A textureInfo member `key` of obj; `scale_key` names its scale/strength ("scale", "strength" or NULL). */
static mn_status read_texture_ref(mn_gltf_reader *r, json_t *obj, const char *key,
                                  const char *scale_key, mn_texture_ref *t)
{
    mn_json *j = &r->json;
    json_t *info, *tt;
    texture_ref_defaults(t);
    mn_status st = mni_json_object(j, obj, key, false, &info);
    if (st != MN_OK || !info)
        return st;
    size_t mark = mni_json_push_key(j, key);
    if ((st = mni_json_index(j, info, "index", true, r->model->texture_count, "textures", &t->texture)) != MN_OK ||
        (st = mni_json_u32(j, info, "texCoord", false, 0, UINT32_MAX, &t->texcoord)) != MN_OK)
        return st;
    if (scale_key)
        st = mni_json_float(j, info, scale_key, false, &t->scale);
    if (st != MN_OK || (st = mni_gltf_extension(r, info, "KHR_texture_transform", &tt)) != MN_OK)
        return st;
    if (tt) {
        mni_json_push_key(j, "extensions");
        mni_json_push_key(j, "KHR_texture_transform");
        t->has_transform = true;
        if ((st = mni_json_floats(j, tt, "offset", false, 2, t->offset)) != MN_OK ||
            (st = mni_json_float(j, tt, "rotation", false, &t->rotation)) != MN_OK ||
            (st = mni_json_floats(j, tt, "scale", false, 2, t->uv_scale)) != MN_OK ||
            (st = mni_json_u32(j, tt, "texCoord", false, 0, UINT32_MAX, &t->texcoord)) != MN_OK)
            return st;
    }
    mni_json_pop(j, mark);
    return MN_OK;
}

static mn_status read_alpha_mode(mn_gltf_reader *r, json_t *obj, mn_alpha_mode *out)
{
    int i = (int)*out;
    mn_status st = mni_json_enum(&r->json, obj, "alphaMode", false, mni_alpha_mode_names,
                                 MNI_ALPHA_MODE_COUNT, "an alpha mode", &i);
    *out = (mn_alpha_mode)i;
    return st;
}

static mn_status read_pbr(mn_gltf_reader *r, json_t *obj, mn_material *mat)
{
    mn_json *j = &r->json;
    json_t *pbr;
    mn_status st = mni_json_object(j, obj, "pbrMetallicRoughness", false, &pbr);
    texture_ref_defaults(&mat->base_color_texture);
    texture_ref_defaults(&mat->metallic_roughness_texture);
    if (st != MN_OK || !pbr)
        return st;
    size_t mark = mni_json_push_key(j, "pbrMetallicRoughness");
    if ((st = mni_json_floats(j, pbr, "baseColorFactor", false, 4, mat->base_color)) != MN_OK ||
        (st = mni_json_float_min(j, pbr, "metallicFactor", false, 0.0f, &mat->metallic)) != MN_OK ||
        (st = mni_json_float_min(j, pbr, "roughnessFactor", false, 0.0f, &mat->roughness)) != MN_OK ||
        (st = read_texture_ref(r, pbr, "baseColorTexture", NULL, &mat->base_color_texture)) != MN_OK ||
        (st = read_texture_ref(r, pbr, "metallicRoughnessTexture", NULL,
                               &mat->metallic_roughness_texture)) != MN_OK)
        return st;
    mni_json_pop(j, mark);
    return MN_OK;
}

static mn_status read_material(mn_gltf_reader *r, json_t *obj, uint32_t index, mn_material *mat)
{
    mn_json *j = &r->json;
    json_t *es;
    for (int k = 0; k < 4; k++)
        mat->base_color[k] = 1.0f;
    mat->metallic = mat->roughness = 1.0f;
    mat->emissive_strength = 1.0f;
    mat->alpha_cutoff = 0.5f;
    mn_status st;
    if ((st = mni_json_string(j, obj, "name", false, &mat->name)) != MN_OK ||
        (st = read_pbr(r, obj, mat)) != MN_OK ||
        (st = read_texture_ref(r, obj, "normalTexture", "scale", &mat->normal_texture)) != MN_OK ||
        (st = read_texture_ref(r, obj, "occlusionTexture", "strength", &mat->occlusion_texture)) != MN_OK ||
        (st = read_texture_ref(r, obj, "emissiveTexture", NULL, &mat->emissive_texture)) != MN_OK ||
        (st = mni_json_floats(j, obj, "emissiveFactor", false, 3, mat->emissive)) != MN_OK ||
        (st = read_alpha_mode(r, obj, &mat->alpha_mode)) != MN_OK ||
        (st = mni_json_float_min(j, obj, "alphaCutoff", false, 0.0f, &mat->alpha_cutoff)) != MN_OK ||
        (st = mni_json_bool(j, obj, "doubleSided", false, &mat->double_sided)) != MN_OK ||
        (st = mni_json_extras(j, obj, &mat->extras)) != MN_OK ||
        (st = mni_gltf_extension(r, obj, "KHR_materials_emissive_strength", &es)) != MN_OK)
        return st;
    if (es) {
        size_t mark = mni_json_push_key(j, "extensions");
        mni_json_push_key(j, "KHR_materials_emissive_strength");
        st = mni_json_float_min(j, es, "emissiveStrength", false, 0.0f, &mat->emissive_strength);
        mni_json_pop(j, mark);
        if (st != MN_OK)
            return st;
    }
    return mni_gltf_default_name(r, &mat->name, &mat->default_name, "material", index);
}

/* ---- the arrays ---------------------------------------------------------------------------------- */

static mn_status image_at(mn_gltf_reader *r, json_t *obj, uint32_t i)
{
    return read_image(r, obj, &r->model->images[i]);
}

static mn_status sampler_at(mn_gltf_reader *r, json_t *obj, uint32_t i)
{
    return read_sampler(r, obj, &r->model->samplers[i]);
}

static mn_status texture_at(mn_gltf_reader *r, json_t *obj, uint32_t i)
{
    return read_texture(r, obj, &r->model->textures[i]);
}

static mn_status material_at(mn_gltf_reader *r, json_t *obj, uint32_t i)
{
    return read_material(r, obj, i, &r->model->materials[i]);
}

mn_status mni_gltf_read_images(mn_gltf_reader *r)
{
    return mni_gltf_read_array(r, "images", r->model->image_count, image_at);
}

mn_status mni_gltf_read_samplers(mn_gltf_reader *r)
{
    return mni_gltf_read_array(r, "samplers", r->model->sampler_count, sampler_at);
}

mn_status mni_gltf_read_textures(mn_gltf_reader *r)
{
    return mni_gltf_read_array(r, "textures", r->model->texture_count, texture_at);
}

mn_status mni_gltf_read_materials(mn_gltf_reader *r)
{
    return mni_gltf_read_array(r, "materials", r->model->material_count, material_at);
}
