/*
 * The JSON document of the glTF writer, printed by hand from the plan
 * (gltf/write_plan.c).
 *
 * Why not jansson: the writer owns every byte this way.  Keys come in one
 * fixed order, numbers in one format (%.9g for floats, which reads back to
 * the same float; integers as integers), so the same model always gives the
 * same bytes.  The text is never held: it is printed once only to count it
 * (finding every error before a byte goes out, and the length a GLB header
 * gives first) and once more into the output stream, so the document of a
 * model of a million primitives costs no memory.  jansson only checks
 * extras, which the model holds as JSON text and which are written as given.
 *
 * Defaults are left out (a scale of 1 1 1, LINEAR interpolation, ...), as
 * the specification's defaults give the same values back.
 */
#include "gltf/write_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- the printer -------------------------------------------------------------------------------- */

typedef struct printer {
    mn_gltf_writer *w;
    mn_wemit_fn emit;    /* where the text goes; NULL: only counted */
    void *ctx;
    size_t len;          /* bytes printed so far */
    bool comma;          /* the next member or element needs a ',' first */
    mn_status status;    /* the first error; printing goes on harmlessly after it */
} printer;

static void put(printer *p, const char *s, size_t n)
{
    p->len += n;
    if (p->emit && n > 0 && p->status == MN_OK) {
        mn_status st = p->emit(p->ctx, s, n);
        if (st != MN_OK)
            p->status = st;
    }
}

static void raw(printer *p, const char *s)
{
    put(p, s, strlen(s));
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void rawf(printer *p, const char *fmt, ...)
{
    char buf[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        put(p, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void failp(printer *p, mn_status code, const char *path, const char *fmt, ...)
{
    if (p->status != MN_OK)
        return;
    char message[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    p->status = mni_error_set(p->w->err, code, path, -1, "%s: %s", path, message);
}

/* Member `k` of the current object (the value follows). */
static void key(printer *p, const char *k)
{
    if (p->comma)
        raw(p, ",");
    raw(p, "\"");
    raw(p, k);
    raw(p, "\":");
    p->comma = true;
}

/* The next element of the current array (the value follows). */
static void elem(printer *p)
{
    if (p->comma)
        raw(p, ",");
    p->comma = true;
}

static void open_(printer *p, const char *bracket)
{
    raw(p, bracket);
    p->comma = false;
}

static void close_(printer *p, const char *bracket)
{
    raw(p, bracket);
    p->comma = true;
}

static void v_uint(printer *p, uint64_t v)
{
    rawf(p, "%llu", (unsigned long long)v);
}

static void v_float(printer *p, float v, const char *path)
{
    if (!isfinite(v)) {
        failp(p, MN_NOT_FINITE, path, "%s is not a finite number, which JSON cannot hold", isnan(v) ? "NaN" : "infinity");
        raw(p, "0");
        return;
    }
    rawf(p, "%.9g", (double)v);
}

/* A JSON string: quotes, backslashes and control characters escaped; UTF-8 checked. */
static void v_str(printer *p, const char *s, const char *path)
{
    size_t n = strlen(s);
    size_t good = mni_json_utf8_prefix(s, n);
    if (good < n)
        failp(p, MN_INVALID_ARGUMENT, path, "the text is not valid UTF-8 (byte %u at offset %zu)",
              (unsigned)(unsigned char)s[good], good);
    raw(p, "\"");
    const unsigned char *c = (const unsigned char *)s, *end = c + good;
    const unsigned char *run = c;
    for (; c < end; c++) {
        if (*c != '"' && *c != '\\' && *c >= 0x20)
            continue;   /* bytes of multi-byte sequences are all >= 0x80: never escaped */
        put(p, (const char *)run, (size_t)(c - run));
        if (*c == '"' || *c == '\\') {
            char esc[3] = {'\\', (char)*c, '\0'};
            raw(p, esc);
        } else {
            rawf(p, "\\u%04x", *c);
        }
        run = c + 1;
    }
    put(p, (const char *)run, (size_t)(c - run));
    raw(p, "\"");
}

static void m_str(printer *p, const char *k, const char *s, const char *path)
{
    if (!s)
        return;
    key(p, k);
    v_str(p, s, path);
}

static void m_uint(printer *p, const char *k, uint64_t v)
{
    key(p, k);
    v_uint(p, v);
}

static void m_floats(printer *p, const char *k, const float *v, uint32_t n, const char *path)
{
    key(p, k);
    open_(p, "[");
    for (uint32_t i = 0; i < n; i++) {
        elem(p);
        v_float(p, v[i], path);
    }
    close_(p, "]");
}

static void m_float(printer *p, const char *k, float v, const char *path)
{
    key(p, k);
    v_float(p, v, path);
}

static void m_uints(printer *p, const char *k, const uint32_t *v, uint32_t n)
{
    key(p, k);
    open_(p, "[");
    for (uint32_t i = 0; i < n; i++) {
        elem(p);
        v_uint(p, v[i]);
    }
    close_(p, "]");
}

/* An index member, checked against the array it points into. */
static void m_index(printer *p, const char *k, uint32_t v, uint32_t count, const char *what, const char *path)
{
    if (v >= count) {
        char at[160];
        snprintf(at, sizeof at, "%s.%s", path, k);
        failp(p, MN_INDEX_RANGE, at, "%s %u is out of range (the model has %u)", what, v, count);
    }
    m_uint(p, k, v);
}

static bool all_equal(const float *v, float x, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (v[i] != x)
            return false;
    return true;
}

/* ---- extras ----------------------------------------------------------------------------------------- */

/* Parse extras text (NULL when it is not JSON: the error is recorded). */
static json_t *parse_extras(printer *p, const char *text, const char *path)
{
    json_error_t error;
    json_t *value = json_loads(text, JSON_DECODE_ANY, &error);
    if (!value)
        failp(p, MN_JSON_SYNTAX, path, "extras are not JSON text (%s, at character %d)", error.text,
              error.position);
    return value;
}

static void m_extras(printer *p, const char *extras, const char *path)
{
    if (!extras)
        return;
    json_t *value = parse_extras(p, extras, path);
    if (!value)
        return;
    json_decref(value);
    key(p, "extras");
    raw(p, extras);
}

/* A mesh's extras, with targetNames from target_names when the extras do not hold them. */
static void mesh_extras(printer *p, const mn_mesh *mesh, uint32_t target_count, const char *path)
{
    bool names = mesh->target_names && target_count > 0;
    json_t *value = NULL;
    if (mesh->extras) {
        value = parse_extras(p, mesh->extras, path);
        if (!value)
            return;
    }
    bool splice = names && (!value || (json_is_object(value) && !json_object_get(value, "targetNames")));
    if (!splice) {
        json_decref(value);
        m_extras(p, mesh->extras, path);
        return;
    }
    key(p, "extras");
    open_(p, "{");
    key(p, "targetNames");
    open_(p, "[");
    for (uint32_t i = 0; i < target_count; i++) {
        elem(p);
        v_str(p, mesh->target_names[i] ? mesh->target_names[i] : "", path);
    }
    close_(p, "]");
    if (value && json_object_size(value) > 0) {
        /* The rest of the object as given: everything after its opening brace. */
        const char *rest = strchr(mesh->extras, '{') + 1;
        raw(p, ",");
        raw(p, rest);
    } else {
        close_(p, "}");
    }
    json_decref(value);
}

/* ---- asset, extensions, scenes, nodes ------------------------------------------------------------------ */

/*
 * Whether a texture's KHR_texture_transform is written: when it moves
 * anything, or when a KHR_animation_pointer channel animates it (its pointer
 * needs the object in the file, even at the defaults).
 */
static bool texture_transform_set(const mn_gltf_writer *w, const mn_texture_ref *r, uint32_t material,
                                  mn_texture_slot slot)
{
    bool animated = w->animated_slots && (w->animated_slots[material] >> slot & 1u);
    return r->texture != MN_NONE && r->has_transform &&
           (animated || r->offset[0] != 0.0f || r->offset[1] != 0.0f || r->rotation != 0.0f ||
            r->uv_scale[0] != 1.0f || r->uv_scale[1] != 1.0f);
}

/* Per material, the texture slots whose transforms a pointer channel animates (bit = slot). */
static void scan_animated_slots(mn_gltf_writer *w)
{
    const mn_model *m = w->model;
    for (uint32_t a = 0; a < m->animation_count; a++)
        for (uint32_t c = 0; c < m->animations[a].channel_count; c++) {
            const mn_channel *ch = &m->animations[a].channels[c];
            mn_pointer_property pp = ch->pointer.property;
            if (ch->path != MN_PATH_POINTER || ch->pointer.index >= m->material_count ||
                (pp != MN_PROP_TEXTURE_OFFSET && pp != MN_PROP_TEXTURE_ROTATION && pp != MN_PROP_TEXTURE_SCALE))
                continue;
            if (!w->animated_slots &&
                !(w->animated_slots = mni_arena_calloc(&w->arena, m->material_count, 1, 1)))
                return; /* out of memory: only the default transforms go unwritten */
            w->animated_slots[ch->pointer.index] |= (uint8_t)(1u << (ch->pointer.slot & 7u));
        }
}

/* A WebP image (by its media type or its bytes): glTF core allows only PNG and JPEG as a source. */
static bool image_is_webp(const mn_model *m, uint32_t image)
{
    if (image == MN_NONE || image >= m->image_count)
        return false;
    const mn_image *img = &m->images[image];
    if (img->mime_type && strcmp(img->mime_type, "image/webp") == 0)
        return true;
    return img->data && img->size >= 12 && memcmp(img->data, "RIFF", 4) == 0 && memcmp(img->data + 8, "WEBP", 4) == 0;
}

/* The scene extensions the model uses (instancing is found by the plan). */
static void scan_scene_extensions(mn_gltf_writer *w)
{
    const mn_model *m = w->model;
    w->uses_lights = m->light_count > 0;
    w->uses_variants = m->variant_count > 0;
    for (uint32_t i = 0; i < m->node_count; i++)
        if (m->nodes[i].hidden)
            w->uses_visibility = true;
}

static void scan_material_extensions(mn_gltf_writer *w)
{
    scan_animated_slots(w);
    for (uint32_t i = 0; i < w->model->texture_count; i++)
        if (image_is_webp(w->model, w->model->textures[i].image))
            w->uses_texture_webp = true;
    for (uint32_t i = 0; i < w->model->material_count; i++) {
        const mn_material *mat = &w->model->materials[i];
        const mn_texture_ref *refs[5] = {&mat->base_color_texture, &mat->metallic_roughness_texture,
                                         &mat->normal_texture, &mat->occlusion_texture, &mat->emissive_texture};
        for (int k = 0; k < 5; k++)
            if (texture_transform_set(w, refs[k], i, (mn_texture_slot)k))
                w->uses_texture_transform = true;
        if (mat->emissive_strength != 1.0f)
            w->uses_emissive_strength = true;
    }
}

static void print_asset(printer *p)
{
    const mn_model *m = p->w->model;
    key(p, "asset");
    open_(p, "{");
    m_str(p, "version", "2.0", "asset.version");
    m_str(p, "generator", "marionette " MN_VERSION_STRING, "asset.generator");
    m_str(p, "copyright", m->copyright, "asset.copyright");
    m_str(p, "minVersion", m->min_version, "asset.minVersion");
    close_(p, "}");

    mn_gltf_writer *w = p->w;
    const char *used[10];
    int n = 0;
    if (w->uses_animation_pointer)
        used[n++] = "KHR_animation_pointer";
    if (w->uses_meshopt)
        used[n++] = "EXT_meshopt_compression";
    if (w->uses_quantization)
        used[n++] = "KHR_mesh_quantization";
    if (w->uses_texture_transform)
        used[n++] = "KHR_texture_transform";
    if (w->uses_emissive_strength)
        used[n++] = "KHR_materials_emissive_strength";
    if (w->uses_texture_webp)
        used[n++] = "EXT_texture_webp";
    if (w->uses_lights)
        used[n++] = "KHR_lights_punctual";
    if (w->uses_visibility)
        used[n++] = "KHR_node_visibility";
    if (w->uses_instancing)
        used[n++] = "EXT_mesh_gpu_instancing";
    if (w->uses_variants)
        used[n++] = "KHR_materials_variants";
    if (n) {
        key(p, "extensionsUsed");
        open_(p, "[");
        for (int i = 0; i < n; i++) {
            elem(p);
            v_str(p, used[i], "extensionsUsed");
        }
        close_(p, "]");
    }
    /* Quantized attributes cannot be read without the extension, nor a WebP texture (written
       with no core source beside it). */
    /* Nor meshopt-compressed keys: their fallback buffer holds no bytes (gltfpack's choice). */
    if (w->uses_quantization || w->uses_texture_webp || w->uses_meshopt) {
        key(p, "extensionsRequired");
        open_(p, "[");
        const char *required[3] = {"EXT_meshopt_compression", "KHR_mesh_quantization", "EXT_texture_webp"};
        const bool on[3] = {w->uses_meshopt, w->uses_quantization, w->uses_texture_webp};
        for (int i = 0; i < 3; i++)
            if (on[i]) {
                elem(p);
                v_str(p, required[i], "extensionsRequired");
            }
        close_(p, "]");
    }
}

static void print_scenes(printer *p)
{
    const mn_model *m = p->w->model;
    char path[64];
    if (m->scene != MN_NONE)
        m_index(p, "scene", m->scene, m->scene_count, "scene", "scene");
    if (m->scene_count == 0)
        return;
    key(p, "scenes");
    open_(p, "[");
    for (uint32_t i = 0; i < m->scene_count; i++) {
        const mn_scene *s = &m->scenes[i];
        snprintf(path, sizeof path, "scenes[%u]", i);
        elem(p);
        open_(p, "{");
        m_str(p, "name", s->name, path);
        for (uint32_t k = 0; k < s->node_count; k++)
            if (s->nodes[k] >= m->node_count)
                failp(p, MN_INDEX_RANGE, path, "node %u is out of range (the model has %u)", s->nodes[k],
                      m->node_count);
        if (s->node_count)
            m_uints(p, "nodes", s->nodes, s->node_count);
        close_(p, "}");
    }
    close_(p, "]");
}

/* KHR_lights_punctual's light, KHR_node_visibility's "visible", EXT_mesh_gpu_instancing's attributes. */
static void node_extensions(printer *p, const mn_node *n)
{
    const mn_model *m = p->w->model;
    bool light = n->light < m->light_count;   /* a hand-built model's 0 with no lights is none */
    if (!light && !n->hidden && n->instance_count == 0)
        return;
    key(p, "extensions");
    open_(p, "{");
    if (n->instance_count) {
        key(p, "EXT_mesh_gpu_instancing");
        open_(p, "{");
        key(p, "attributes");
        open_(p, "{");
        static const char *const names[3] = {"TRANSLATION", "ROTATION", "SCALE"};
        const uint32_t accs[3] = {n->instance_translation, n->instance_rotation, n->instance_scale};
        for (int k = 0; k < 3; k++)
            if (accs[k] != MN_NONE)
                m_uint(p, names[k], mni_gltf_write_instance_attribute(p->w, accs[k]));
        close_(p, "}");
        close_(p, "}");
    }
    if (light) {
        key(p, "KHR_lights_punctual");
        open_(p, "{");
        m_uint(p, "light", n->light);
        close_(p, "}");
    }
    if (n->hidden) {
        key(p, "KHR_node_visibility");
        raw(p, "{\"visible\":false}");
    }
    close_(p, "}");
}

static void print_node(printer *p, uint32_t i)
{
    const mn_model *m = p->w->model;
    const mn_node *n = &m->nodes[i];
    char path[64];
    snprintf(path, sizeof path, "nodes[%u]", i);
    open_(p, "{");
    m_str(p, "name", n->default_name ? NULL : n->name, path);
    for (uint32_t k = 0; k < n->child_count; k++)
        if (n->children[k] >= m->node_count)
            failp(p, MN_INDEX_RANGE, path, "child %u is out of range (the model has %u)", n->children[k],
                  m->node_count);
    if (n->child_count)
        m_uints(p, "children", n->children, n->child_count);
    const float *t = p->w->node_folds[i] ? p->w->node_translation[i] : n->translation;
    const float *s = p->w->node_folds[i] ? p->w->node_scale[i] : n->scale;
    char at[80];
    snprintf(at, sizeof at, "%s.translation", path);
    if (!all_equal(t, 0.0f, 3))
        m_floats(p, "translation", t, 3, at);
    static const float identity[4] = {0, 0, 0, 1};
    snprintf(at, sizeof at, "%s.rotation", path);
    if (memcmp(n->rotation, identity, sizeof identity) != 0)
        m_floats(p, "rotation", n->rotation, 4, at);
    snprintf(at, sizeof at, "%s.scale", path);
    if (!all_equal(s, 1.0f, 3))
        m_floats(p, "scale", s, 3, at);
    if (n->mesh != MN_NONE)
        m_index(p, "mesh", n->mesh, m->mesh_count, "mesh", path);
    if (n->skin != MN_NONE)
        m_index(p, "skin", n->skin, m->skin_count, "skin", path);
    if (n->camera != MN_NONE)
        m_index(p, "camera", n->camera, m->camera_count, "camera", path);
    snprintf(at, sizeof at, "%s.weights", path);
    if (n->weights && n->weight_count)
        m_floats(p, "weights", n->weights, n->weight_count, at);
    node_extensions(p, n);
    snprintf(at, sizeof at, "%s.extras", path);
    m_extras(p, n->extras, at);
    close_(p, "}");
}

static void print_nodes(printer *p)
{
    if (p->w->model->node_count == 0)
        return;
    key(p, "nodes");
    open_(p, "[");
    for (uint32_t i = 0; i < p->w->model->node_count; i++) {
        elem(p);
        print_node(p, i);
    }
    close_(p, "]");
}

static void print_cameras(printer *p)
{
    const mn_model *m = p->w->model;
    if (m->camera_count == 0)
        return;
    key(p, "cameras");
    open_(p, "[");
    for (uint32_t i = 0; i < m->camera_count; i++) {
        const mn_camera *c = &m->cameras[i];
        char path[64];
        snprintf(path, sizeof path, "cameras[%u]", i);
        elem(p);
        open_(p, "{");
        m_str(p, "name", c->name, path);
        m_str(p, "type", c->orthographic ? "orthographic" : "perspective", path);
        key(p, c->orthographic ? "orthographic" : "perspective");
        open_(p, "{");
        if (c->orthographic) {
            m_float(p, "xmag", c->xmag, path);
            m_float(p, "ymag", c->ymag, path);
            m_float(p, "zfar", c->zfar, path);
        } else {
            if (c->aspect_ratio > 0.0f)
                m_float(p, "aspectRatio", c->aspect_ratio, path);
            m_float(p, "yfov", c->yfov, path);
            if (c->zfar > 0.0f)
                m_float(p, "zfar", c->zfar, path);
        }
        m_float(p, "znear", c->znear, path);
        close_(p, "}");
        close_(p, "}");
    }
    close_(p, "]");
}

/* ---- meshes ----------------------------------------------------------------------------------------------- */

/* KHR_materials_variants: the primitive's mappings, every index checked. */
static void variant_mappings(printer *p, const mn_primitive *prim, const char *path)
{
    const mn_model *m = p->w->model;
    if (prim->variant_mapping_count == 0)
        return;
    key(p, "extensions");
    open_(p, "{");
    key(p, "KHR_materials_variants");
    open_(p, "{");
    key(p, "mappings");
    open_(p, "[");
    for (uint32_t i = 0; i < prim->variant_mapping_count; i++) {
        const mn_variant_mapping *map = &prim->variant_mappings[i];
        elem(p);
        open_(p, "{");
        m_index(p, "material", map->material, m->material_count, "material", path);
        m_str(p, "name", map->name, path);
        for (uint32_t k = 0; k < map->variant_count; k++)
            if (map->variants[k] >= m->variant_count)
                failp(p, MN_INDEX_RANGE, path, "mapping %u: variant %u is out of range (the model has %u)", i,
                      map->variants[k], m->variant_count);
        if (map->variant_count == 0)
            failp(p, MN_INVALID_ARGUMENT, path, "mapping %u lists no variant", i);
        m_uints(p, "variants", map->variants, map->variant_count);
        close_(p, "}");
    }
    close_(p, "]");
    close_(p, "}");
    close_(p, "}");
}

static void print_primitive(printer *p, uint32_t mi, uint32_t pi)
{
    mn_gltf_writer *w = p->w;
    const mn_model *m = w->model;
    const mn_primitive *prim = &m->meshes[mi].primitives[pi];
    char path[96];
    snprintf(path, sizeof path, "meshes[%u].primitives[%u]", mi, pi);
    open_(p, "{");
    key(p, "attributes");
    open_(p, "{");
    for (uint32_t a = 0; a < prim->attribute_count; a++) {
        const mn_attribute *attr = &prim->attributes[a];
        if (!attr->name) {
            failp(p, MN_INVALID_ARGUMENT, path, "attribute %u has no name", a);
            continue;
        }
        key(p, attr->name);
        v_uint(p, mni_gltf_write_attribute(w, mi, attr->semantic, false, attr->accessor));
    }
    close_(p, "}");
    if (prim->indices != MN_NONE)
        m_uint(p, "indices", mni_gltf_write_indices(w, prim->indices));
    if (prim->material != MN_NONE)
        m_index(p, "material", prim->material, m->material_count, "material", path);
    if (prim->mode != MN_MODE_TRIANGLES) {
        if ((unsigned)prim->mode > MN_MODE_TRIANGLE_FAN)
            failp(p, MN_INVALID_VALUE, path, "mode %u is not a glTF primitive mode", (unsigned)prim->mode);
        m_uint(p, "mode", (unsigned)prim->mode);
    }
    variant_mappings(p, prim, path);
    if (prim->target_count) {
        key(p, "targets");
        open_(p, "[");
        for (uint32_t t = 0; t < prim->target_count; t++) {
            const mn_morph_target *target = &prim->targets[t];
            elem(p);
            open_(p, "{");
            static const mn_semantic semantics[3] = {MN_SEMANTIC_POSITION, MN_SEMANTIC_NORMAL,
                                                     MN_SEMANTIC_TANGENT};
            const uint32_t accessors[3] = {target->position, target->normal, target->tangent};
            for (int k = 0; k < 3; k++)
                if (accessors[k] != MN_NONE)
                    m_uint(p, mni_semantic_name(semantics[k]),
                           mni_gltf_write_attribute(w, mi, semantics[k], true, accessors[k]));
            close_(p, "}");
        }
        close_(p, "]");
    }
    close_(p, "}");
}

static void print_meshes(printer *p)
{
    const mn_model *m = p->w->model;
    if (m->mesh_count == 0)
        return;
    key(p, "meshes");
    open_(p, "[");
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        const mn_mesh *mesh = &m->meshes[i];
        char path[64];
        snprintf(path, sizeof path, "meshes[%u]", i);
        elem(p);
        open_(p, "{");
        m_str(p, "name", mesh->name, path);
        key(p, "primitives");
        open_(p, "[");
        for (uint32_t k = 0; k < mesh->primitive_count; k++) {
            elem(p);
            print_primitive(p, i, k);
        }
        close_(p, "]");
        char at[80];
        snprintf(at, sizeof at, "%s.weights", path);
        if (mesh->weights && mesh->weight_count && !all_equal(mesh->weights, 0.0f, mesh->weight_count))
            m_floats(p, "weights", mesh->weights, mesh->weight_count, at);
        uint32_t targets = mesh->primitive_count ? mesh->primitives[0].target_count : 0;
        snprintf(at, sizeof at, "%s.extras", path);
        mesh_extras(p, mesh, targets, at);
        close_(p, "}");
    }
    close_(p, "]");
}

/* ---- materials, textures, images, samplers ------------------------------------------------------------------ */

static void texture_ref(printer *p, const char *name, const mn_texture_ref *r, const char *scale_key,
                        uint32_t material, mn_texture_slot slot, const char *path)
{
    if (r->texture == MN_NONE)
        return;
    char at[128];
    snprintf(at, sizeof at, "%s.%s", path, name);
    key(p, name);
    open_(p, "{");
    m_index(p, "index", r->texture, p->w->model->texture_count, "texture", at);
    if (r->texcoord)
        m_uint(p, "texCoord", r->texcoord);
    if (scale_key && r->scale != 1.0f)
        m_float(p, scale_key, r->scale, at);
    if (texture_transform_set(p->w, r, material, slot)) {
        key(p, "extensions");
        open_(p, "{");
        key(p, "KHR_texture_transform");
        open_(p, "{");
        if (r->offset[0] != 0.0f || r->offset[1] != 0.0f)
            m_floats(p, "offset", r->offset, 2, at);
        if (r->rotation != 0.0f)
            m_float(p, "rotation", r->rotation, at);
        if (r->uv_scale[0] != 1.0f || r->uv_scale[1] != 1.0f)
            m_floats(p, "scale", r->uv_scale, 2, at);
        close_(p, "}");
        close_(p, "}");
    }
    close_(p, "}");
}

static void print_material(printer *p, uint32_t i)
{
    const mn_material *mat = &p->w->model->materials[i];
    char path[64];
    snprintf(path, sizeof path, "materials[%u]", i);
    open_(p, "{");
    m_str(p, "name", mat->default_name ? NULL : mat->name, path);
    bool pbr = !all_equal(mat->base_color, 1.0f, 4) || mat->metallic != 1.0f || mat->roughness != 1.0f ||
               mat->base_color_texture.texture != MN_NONE || mat->metallic_roughness_texture.texture != MN_NONE;
    if (pbr) {
        char at[96];
        snprintf(at, sizeof at, "%s.pbrMetallicRoughness", path);
        key(p, "pbrMetallicRoughness");
        open_(p, "{");
        if (!all_equal(mat->base_color, 1.0f, 4))
            m_floats(p, "baseColorFactor", mat->base_color, 4, at);
        texture_ref(p, "baseColorTexture", &mat->base_color_texture, NULL, i, MN_SLOT_BASE_COLOR, at);
        if (mat->metallic != 1.0f)
            m_float(p, "metallicFactor", mat->metallic, at);
        if (mat->roughness != 1.0f)
            m_float(p, "roughnessFactor", mat->roughness, at);
        texture_ref(p, "metallicRoughnessTexture", &mat->metallic_roughness_texture, NULL, i,
                    MN_SLOT_METALLIC_ROUGHNESS, at);
        close_(p, "}");
    }
    texture_ref(p, "normalTexture", &mat->normal_texture, "scale", i, MN_SLOT_NORMAL, path);
    texture_ref(p, "occlusionTexture", &mat->occlusion_texture, "strength", i, MN_SLOT_OCCLUSION, path);
    texture_ref(p, "emissiveTexture", &mat->emissive_texture, NULL, i, MN_SLOT_EMISSIVE, path);
    if (!all_equal(mat->emissive, 0.0f, 3))
        m_floats(p, "emissiveFactor", mat->emissive, 3, path);
    if (mat->alpha_mode == MN_ALPHA_MASK || mat->alpha_mode == MN_ALPHA_BLEND)
        m_str(p, "alphaMode", mn_alpha_mode_name(mat->alpha_mode), path);
    if (mat->alpha_mode == MN_ALPHA_MASK && mat->alpha_cutoff != 0.5f)
        m_float(p, "alphaCutoff", mat->alpha_cutoff, path);
    if (mat->double_sided) {
        key(p, "doubleSided");
        raw(p, "true");
    }
    if (mat->emissive_strength != 1.0f) {
        key(p, "extensions");
        open_(p, "{");
        key(p, "KHR_materials_emissive_strength");
        open_(p, "{");
        m_float(p, "emissiveStrength", mat->emissive_strength, path);
        close_(p, "}");
        close_(p, "}");
    }
    char at[80];
    snprintf(at, sizeof at, "%s.extras", path);
    m_extras(p, mat->extras, at);
    close_(p, "}");
}

static void print_materials(printer *p)
{
    const mn_model *m = p->w->model;
    if (m->material_count) {
        key(p, "materials");
        open_(p, "[");
        for (uint32_t i = 0; i < m->material_count; i++) {
            elem(p);
            print_material(p, i);
        }
        close_(p, "]");
    }
    if (m->texture_count) {
        key(p, "textures");
        open_(p, "[");
        for (uint32_t i = 0; i < m->texture_count; i++) {
            const mn_texture *t = &m->textures[i];
            char path[64];
            snprintf(path, sizeof path, "textures[%u]", i);
            elem(p);
            open_(p, "{");
            m_str(p, "name", t->name, path);
            if (t->sampler != MN_NONE)
                m_index(p, "sampler", t->sampler, m->sampler_count, "sampler", path);
            if (image_is_webp(m, t->image)) {
                key(p, "extensions");
                open_(p, "{");
                key(p, "EXT_texture_webp");
                open_(p, "{");
                m_index(p, "source", t->image, m->image_count, "image", path);
                close_(p, "}");
                close_(p, "}");
            } else if (t->image != MN_NONE) {
                m_index(p, "source", t->image, m->image_count, "image", path);
            }
            close_(p, "}");
        }
        close_(p, "]");
    }
    if (m->image_count) {
        key(p, "images");
        open_(p, "[");
        for (uint32_t i = 0; i < m->image_count; i++) {
            const mn_image *img = &m->images[i];
            char path[64];
            snprintf(path, sizeof path, "images[%u]", i);
            elem(p);
            open_(p, "{");
            m_str(p, "name", img->name, path);
            if (p->w->image_views[i] != MN_NONE) {
                m_uint(p, "bufferView", p->w->image_views[i]);
                m_str(p, "mimeType", img->mime_type, path);
            } else {
                m_str(p, "uri", img->uri, path);
                m_str(p, "mimeType", img->mime_type, path);
            }
            close_(p, "}");
        }
        close_(p, "]");
    }
    if (m->sampler_count) {
        key(p, "samplers");
        open_(p, "[");
        for (uint32_t i = 0; i < m->sampler_count; i++) {
            const mn_sampler *s = &m->samplers[i];
            char path[64];
            snprintf(path, sizeof path, "samplers[%u]", i);
            elem(p);
            open_(p, "{");
            m_str(p, "name", s->name, path);
            if (s->mag_filter)
                m_uint(p, "magFilter", s->mag_filter);
            if (s->min_filter)
                m_uint(p, "minFilter", s->min_filter);
            if (s->wrap_s != 10497)
                m_uint(p, "wrapS", s->wrap_s);
            if (s->wrap_t != 10497)
                m_uint(p, "wrapT", s->wrap_t);
            close_(p, "}");
        }
        close_(p, "]");
    }
}

/* ---- skins and animations ---------------------------------------------------------------------------------- */

static void print_skins(printer *p)
{
    const mn_model *m = p->w->model;
    if (m->skin_count == 0)
        return;
    key(p, "skins");
    open_(p, "[");
    for (uint32_t i = 0; i < m->skin_count; i++) {
        const mn_skin *s = &m->skins[i];
        char path[64];
        snprintf(path, sizeof path, "skins[%u]", i);
        elem(p);
        open_(p, "{");
        m_str(p, "name", s->name, path);
        uint32_t ibm = mni_gltf_write_ibm(p->w, i);
        if (ibm != MN_NONE)
            m_uint(p, "inverseBindMatrices", ibm);
        if (s->skeleton != MN_NONE)
            m_index(p, "skeleton", s->skeleton, m->node_count, "node", path);
        for (uint32_t k = 0; k < s->joint_count; k++)
            if (s->joints[k] >= m->node_count)
                failp(p, MN_INDEX_RANGE, path, "joint %u is out of range (the model has %u nodes)", s->joints[k],
                      m->node_count);
        m_uints(p, "joints", s->joints, s->joint_count);
        close_(p, "}");
    }
    close_(p, "]");
}

static void print_animations(printer *p)
{
    mn_gltf_writer *w = p->w;
    const mn_model *m = w->model;
    bool any = false;
    uint32_t flat = 0;
    for (uint32_t i = 0; i < m->animation_count; i++) {
        const mn_animation *anim = &m->animations[i];
        if (anim->channel_count == 0)
            continue;   /* glTF requires at least one channel: an empty animation is left out */
        if (!any) {
            key(p, "animations");
            open_(p, "[");
            any = true;
        }
        char path[64];
        snprintf(path, sizeof path, "animations[%u]", i);
        elem(p);
        open_(p, "{");
        m_str(p, "name", anim->default_name ? NULL : anim->name, path);
        key(p, "channels");
        open_(p, "[");
        for (uint32_t c = 0; c < anim->channel_count; c++, flat++) {
            const mn_channel *ch = &anim->channels[c];
            elem(p);
            open_(p, "{");
            m_uint(p, "sampler", w->channel_samplers[flat]);
            key(p, "target");
            open_(p, "{");
            if (ch->path == MN_PATH_POINTER) {
                /* KHR_animation_pointer: no node; the pointer as the file wrote it */
                m_str(p, "path", "pointer", path);
                key(p, "extensions");
                open_(p, "{");
                key(p, "KHR_animation_pointer");
                open_(p, "{");
                m_str(p, "pointer", ch->pointer.text, path);
                close_(p, "}");
                close_(p, "}");
            } else {
                m_uint(p, "node", ch->node);
                m_str(p, "path", mn_anim_path_name(ch->path), path);
            }
            close_(p, "}");
            close_(p, "}");
        }
        close_(p, "]");
        key(p, "samplers");
        open_(p, "[");
        for (uint32_t s = 0; s < w->anim_sampler_count[i]; s++) {
            const mn_wsampler *ws = &w->samplers[w->anim_first_sampler[i] + s];
            elem(p);
            open_(p, "{");
            m_uint(p, "input", ws->input);
            if (ws->interpolation != MN_INTERP_LINEAR)
                m_str(p, "interpolation", mn_interpolation_name(ws->interpolation), path);
            m_uint(p, "output", ws->output);
            close_(p, "}");
        }
        close_(p, "]");
        char at[80];
        snprintf(at, sizeof at, "%s.extras", path);
        m_extras(p, anim->extras, at);
        close_(p, "}");
    }
    if (any)
        close_(p, "]");
}

/* ---- the root's extensions: lights and variants ------------------------------------------------------------ */

static void print_light(printer *p, const mn_light *l, uint32_t i)
{
    char path[96];
    snprintf(path, sizeof path, "extensions.KHR_lights_punctual.lights[%u]", i);
    open_(p, "{");
    m_str(p, "name", l->name, path);
    if ((unsigned)l->type > MN_LIGHT_SPOT)
        failp(p, MN_INVALID_VALUE, path, "type %u is not a light type", (unsigned)l->type);
    m_str(p, "type", mn_light_type_name(l->type), path);
    if (!all_equal(l->color, 1.0f, 3))
        m_floats(p, "color", l->color, 3, path);
    if (l->intensity != 1.0f)
        m_float(p, "intensity", l->intensity, path);
    if (l->type != MN_LIGHT_DIRECTIONAL && l->range > 0.0f)
        m_float(p, "range", l->range, path);
    if (l->type == MN_LIGHT_SPOT) {
        if (!(l->inner_cone_angle >= 0.0f && l->inner_cone_angle < l->outer_cone_angle &&
              l->outer_cone_angle <= 1.57079632679489662f))
            failp(p, MN_INVALID_VALUE, path, "cone angles %g and %g are not 0 <= inner < outer <= pi/2",
                  (double)l->inner_cone_angle, (double)l->outer_cone_angle);
        key(p, "spot");
        open_(p, "{");
        if (l->inner_cone_angle != 0.0f)
            m_float(p, "innerConeAngle", l->inner_cone_angle, path);
        m_float(p, "outerConeAngle", l->outer_cone_angle, path);
        close_(p, "}");
    }
    close_(p, "}");
}

static void print_root_extensions(printer *p)
{
    const mn_model *m = p->w->model;
    if (m->light_count == 0 && m->variant_count == 0)
        return;
    key(p, "extensions");
    open_(p, "{");
    if (m->light_count) {
        key(p, "KHR_lights_punctual");
        open_(p, "{");
        key(p, "lights");
        open_(p, "[");
        for (uint32_t i = 0; i < m->light_count; i++) {
            elem(p);
            print_light(p, &m->lights[i], i);
        }
        close_(p, "]");
        close_(p, "}");
    }
    if (m->variant_count) {
        key(p, "KHR_materials_variants");
        open_(p, "{");
        key(p, "variants");
        open_(p, "[");
        for (uint32_t i = 0; i < m->variant_count; i++) {
            char path[80];
            snprintf(path, sizeof path, "extensions.KHR_materials_variants.variants[%u]", i);
            elem(p);
            open_(p, "{");
            if (!m->variants[i])
                failp(p, MN_INVALID_ARGUMENT, path, "variant %u has no name (the extension requires one)", i);
            m_str(p, "name", m->variants[i], path);
            close_(p, "}");
        }
        close_(p, "]");
        close_(p, "}");
    }
    close_(p, "}");
}

/* ---- accessors, buffer views, the buffer ---------------------------------------------------------------------- */

static void bounds(printer *p, const char *k, const mn_wacc *acc, const double *v)
{
    key(p, k);
    open_(p, "[");
    for (uint32_t i = 0; i < mn_accessor_components(acc->type); i++) {
        elem(p);
        if (acc->component == MN_COMPONENT_F32)
            rawf(p, "%.9g", (double)(float)v[i]);
        else
            rawf(p, "%lld", (long long)v[i]);
    }
    close_(p, "]");
}

/*
 * An EXT_meshopt_compression view (the object's members; the caller opened
 * it): the decoded bytes' place in the fallback buffer (1), and where the
 * compressed ones lie in buffer 0.  Animation data: no byteStride on the view.
 */
static void meshopt_view(printer *p, const mn_wgroup *acc)
{
    static const char *const filters[4] = {NULL, NULL, "QUATERNION", "EXPONENTIAL"};
    if (acc->plain) {
        m_uint(p, "buffer", 0);
        if (acc->offset)
            m_uint(p, "byteOffset", acc->offset);
        m_uint(p, "byteLength", acc->size);
        close_(p, "}");
        return;
    }
    m_uint(p, "buffer", 1);
    if (acc->fallback_offset)
        m_uint(p, "byteOffset", acc->fallback_offset);
    m_uint(p, "byteLength", (uint64_t)acc->count * acc->stride);
    key(p, "extensions");
    open_(p, "{");
    key(p, "EXT_meshopt_compression");
    open_(p, "{");
    m_uint(p, "buffer", 0);
    if (acc->offset)
        m_uint(p, "byteOffset", acc->offset);
    m_uint(p, "byteLength", acc->size);
    m_uint(p, "byteStride", acc->stride);
    m_uint(p, "count", acc->count);
    m_str(p, "mode", "ATTRIBUTES", "bufferViews");
    if (acc->filter != MN_WFILTER_NONE)
        m_str(p, "filter", filters[acc->filter], "bufferViews");
    close_(p, "}");
    close_(p, "}");
    close_(p, "}");
}

static void print_buffers(printer *p, const char *bin_uri)
{
    mn_gltf_writer *w = p->w;
    const mn_model *m = w->model;
    if (w->acc_count) {
        key(p, "accessors");
        open_(p, "[");
        for (uint32_t i = 0; i < w->acc_count; i++) {
            const mn_wacc *acc = &w->accs[i];
            char path[64];
            snprintf(path, sizeof path, "accessors[%u]", i);
            elem(p);
            open_(p, "{");
            m_str(p, "name", acc->name, path);
            m_uint(p, "bufferView", acc->view);
            if (acc->source == MN_WSOURCE_MESHOPT && acc->group_offset)
                m_uint(p, "byteOffset", acc->group_offset);
            m_uint(p, "componentType", mni_component_gltf_code(acc->component));
            if (acc->normalized) {
                key(p, "normalized");
                raw(p, "true");
            }
            m_uint(p, "count", acc->count);
            m_str(p, "type", mn_accessor_type_name(acc->type), path);
            if (acc->has_bounds) {
                bounds(p, "max", acc, acc->max);
                bounds(p, "min", acc, acc->min);
            }
            close_(p, "}");
        }
        close_(p, "]");
    }
    if (w->bin_size == 0)
        return;
    key(p, "bufferViews");
    open_(p, "[");
    for (uint32_t i = 0; i < w->acc_count; i++) {
        const mn_wacc *acc = &w->accs[i];
        if (acc->source == MN_WSOURCE_MESHOPT)
            continue;   /* in its group's view, below */
        elem(p);
        open_(p, "{");
        m_uint(p, "buffer", 0);
        if (acc->offset)
            m_uint(p, "byteOffset", acc->offset);
        m_uint(p, "byteLength", acc->size);
        if (acc->stride != acc->element_size)
            m_uint(p, "byteStride", acc->stride);
        if (acc->target)
            m_uint(p, "target", acc->target);
        close_(p, "}");
    }
    for (uint32_t g = 0; g < w->group_count; g++) {
        elem(p);
        open_(p, "{");
        meshopt_view(p, &w->groups[g]);
    }
    for (uint32_t i = 0; i < m->image_count; i++) {
        if (w->image_views[i] == MN_NONE)
            continue;
        elem(p);
        open_(p, "{");
        m_uint(p, "buffer", 0);
        if (w->image_offsets[i])
            m_uint(p, "byteOffset", w->image_offsets[i]);
        m_uint(p, "byteLength", m->images[i].size);
        close_(p, "}");
    }
    close_(p, "]");
    key(p, "buffers");
    open_(p, "[");
    elem(p);
    open_(p, "{");
    m_uint(p, "byteLength", w->bin_size);
    m_str(p, "uri", bin_uri, "buffers[0].uri");
    close_(p, "}");
    if (w->fallback_size) {
        elem(p);
        open_(p, "{");
        m_uint(p, "byteLength", w->fallback_size);
        key(p, "extensions");
        raw(p, "{\"EXT_meshopt_compression\":{\"fallback\":true}}");
        close_(p, "}");
    }
    close_(p, "]");
}

mn_status mni_gltf_write_json(mn_gltf_writer *w, const char *bin_uri, mn_wemit_fn emit, void *ctx, size_t *length)
{
    printer p = {w, emit, ctx, 0, false, MN_OK};
    scan_material_extensions(w);
    scan_scene_extensions(w);
    open_(&p, "{");
    print_asset(&p);
    print_scenes(&p);
    print_nodes(&p);
    print_cameras(&p);
    print_meshes(&p);
    print_materials(&p);
    print_skins(&p);
    print_animations(&p);
    print_buffers(&p, bin_uri);
    print_root_extensions(&p);
    close_(&p, "}");
    *length = p.len;
    return p.status;
}
