/*
 * The glTF 2.0 reader's top level: the two entry points, telling GLB from
 * JSON, the asset and extension declarations, buffers and buffer views, and
 * the helpers every part of the reader shares (warnings, the allocation
 * budget, loading URIs).  The other parts of the document are read by the
 * files gltf/internal.h lists, in the order read_document() calls them, and
 * gltf/validate.c has the last word on whether the model is sound.
 */
#include "gltf/internal.h"

#include <stdio.h>
#include <string.h>

/* ---- shared helpers ----------------------------------------------------------------- */

mn_status mni_gltf_warn(mn_gltf_reader *r, mn_status code, const char *key, const char *fmt, ...)
{
    char path[MN_JSON_PATH_MAX + 64];
    char text[256];
    mni_json_path_of(&r->json, key, path, sizeof path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    mn_gltf_warning_node *node = mni_arena_alloc(r->arena, sizeof *node, _Alignof(mn_gltf_warning_node));
    char *p = mni_arena_strndup(r->arena, path, strlen(path));
    char *m = mni_arena_strndup(r->arena, text, strlen(text));
    if (!node || !p || !m)
        return mni_json_oom(&r->json, key, "recording a warning");
    node->warning.code = code;
    node->warning.path = p;
    node->warning.message = m;
    node->next = NULL;
    *r->warnings_tail = node;
    r->warnings_tail = &node->next;
    r->warning_count++;
    return MN_OK;
}

mn_status mni_gltf_budget(mn_gltf_reader *r, size_t bytes, const char *what)
{
    size_t total;
    if (!mni_checked_add(r->synth_bytes, bytes, &total) || total > MN_GLTF_SYNTH_LIMIT)
        return mni_json_fail(&r->json, MN_OUT_OF_MEMORY, NULL,
                             "%s would need %zu bytes that the file does not hold; refusing more than "
                             "%zu bytes of such data per model",
                             what, bytes, (size_t)MN_GLTF_SYNTH_LIMIT);
    r->synth_bytes = total;
    return MN_OK;
}

void *mni_gltf_alloc(mn_gltf_reader *r, size_t count, size_t size, size_t align, bool zero)
{
    size_t total;
    void *p = NULL;
    if (mni_checked_mul(count, size, &total))
        p = zero ? mni_arena_calloc(r->arena, count, size, align) : mni_arena_alloc(r->arena, total, align);
    if (!p)
        mni_json_oom(&r->json, NULL, "%zu x %zu bytes", count, size);
    return p;
}

mn_status mni_gltf_element(mn_gltf_reader *r, json_t *array, size_t i, json_t **out)
{
    mni_json_push_index(&r->json, i);
    *out = json_array_get(array, i);
    if (!json_is_object(*out))
        return mni_json_fail(&r->json, MN_JSON_TYPE, NULL, "expected an object, found %s",
                             mni_json_type_name(*out));
    return MN_OK;
}

mn_status mni_gltf_default_name(mn_gltf_reader *r, const char **name, bool *made, const char *prefix,
                                uint32_t index)
{
    *made = *name == NULL;
    if (*name)
        return MN_OK;
    char text[32];
    snprintf(text, sizeof text, "%s%u", prefix, index);
    if (!(*name = mni_arena_strndup(r->arena, text, strlen(text))))
        return mni_json_oom(&r->json, NULL, NULL);
    return MN_OK;
}

mn_status mni_gltf_read_array(mn_gltf_reader *r, const char *key, uint32_t count, mn_gltf_element_fn fn)
{
    json_t *arr = json_object_get(r->root, key);
    size_t mark = mni_json_push_key(&r->json, key);
    for (uint32_t i = 0; i < count; i++) {
        json_t *obj;
        size_t m2 = r->json.len;
        mn_status st = mni_gltf_element(r, arr, i, &obj);
        if (st == MN_OK)
            st = fn(r, obj, i);
        if (st != MN_OK)
            return st;
        mni_json_pop(&r->json, m2);
    }
    mni_json_pop(&r->json, mark);
    return MN_OK;
}

mn_status mni_gltf_extension(mn_gltf_reader *r, json_t *obj, const char *name, json_t **out)
{
    json_t *exts;
    *out = NULL;
    mn_status st = mni_json_object(&r->json, obj, "extensions", false, &exts);
    if (st != MN_OK || !exts)
        return st;
    size_t mark = mni_json_push_key(&r->json, "extensions");
    st = mni_json_object(&r->json, exts, name, false, out);
    mni_json_pop(&r->json, mark);
    return st;
}

/* Bytes from a custom resolver, kept (aligned) for the model and by name for this read. */
static mn_status from_resolver(mn_gltf_reader *r, const char *uri, const char *decoded, mn_bytes *out,
                               const char *path)
{
    if (mni_files_find_named(&r->files, decoded, out))
        return MN_OK;
    mn_error rerr;
    mni_error_clear(&rerr);
    mn_bytes bytes = {0};
    const mn_resolver *res = &r->options.resolver;
    mn_status st = res->read(res->user, r->base_dir ? r->base_dir : "", decoded, &bytes, &rerr);
    if (st == MN_OK && bytes.size > 0 && !bytes.data)
        st = mni_fail(&rerr, MN_IO, "the resolver returned no data");
    if (st != MN_OK) {
        if (rerr.code == MN_OK)
            mni_fail(&rerr, st, NULL);
        return mni_error_set(r->err, st, path, -1, "%s: cannot read \"%.80s\": %s", path, uri,
                             rerr.message);
    }
    /* Views into resolver bytes must stay aligned for their component type. */
    if (((uintptr_t)bytes.data & 15) != 0) {
        uint8_t *copy = mni_arena_alloc(r->arena, bytes.size ? bytes.size : 1, 64);
        if (copy)
            memcpy(copy, bytes.data, bytes.size);
        if (res->release)
            res->release(res->user, &bytes);
        if (!copy)
            return mni_error_set(r->err, MN_OUT_OF_MEMORY, path, -1, NULL);
        bytes.data = copy;
    } else if (res->release && !mni_model_keep_resolved(r->model, res, bytes)) {
        res->release(res->user, &bytes);
        return mni_error_set(r->err, MN_OUT_OF_MEMORY, path, -1, NULL);
    }
    if (!mni_files_keep_named(&r->files, decoded, bytes))
        return mni_error_set(r->err, MN_OUT_OF_MEMORY, path, -1, NULL);
    *out = bytes;
    return MN_OK;
}

mn_status mni_gltf_load_uri(mn_gltf_reader *r, const char *uri, mn_bytes *out,
                            const char **out_media_type)
{
    char path[MN_JSON_PATH_MAX + 8];
    mni_json_path_of(&r->json, "uri", path, sizeof path);
    *out_media_type = NULL;
    if (mni_uri_is_data(uri))
        return mni_data_uri_decode(r->arena, uri, out, out_media_type, path, r->err);
    char *decoded = NULL;
    mn_status st = mni_uri_to_path(r->arena, uri, r->options.resolver.root != NULL, &decoded, path, r->err);
    if (st != MN_OK)
        return st;
    if (!r->base_dir && r->default_resolver)
        return mni_error_set(r->err, MN_URI, path, -1,
                             "%s: external URI \"%.80s\" cannot be resolved: the model was read from memory "
                             "without a base_dir (set mn_gltf_options.base_dir or a resolver)",
                             path, uri);
    if (!r->default_resolver)
        return from_resolver(r, uri, decoded, out, path);
    return mni_files_read(&r->files, decoded, path, mni_files_wanted(&r->files, decoded), out, NULL,
                          r->err);
}

/* ---- asset and extensions ------------------------------------------------------------ */

static const char *const SUPPORTED_EXTENSIONS[] = {
    "KHR_mesh_quantization",
    "KHR_texture_transform",
    "KHR_materials_emissive_strength",
    "EXT_meshopt_compression",
    "KHR_draco_mesh_compression",   /* when the build has a decoder (mni_gltf_has_draco) */
    "EXT_texture_webp",             /* the image is kept; the renderer decodes it with libwebp */
    "KHR_texture_basisu",           /* the texture is kept undecoded, with a warning */
    "KHR_lights_punctual",          /* these four: gltf/read_ext.c */
    "KHR_node_visibility",
    "EXT_mesh_gpu_instancing",
    "KHR_materials_variants",
    "KHR_animation_pointer",        /* channels on the properties gltf/read_anim.c resolves */
};

static bool extension_supported(const char *name)
{
    if (strcmp(name, "KHR_draco_mesh_compression") == 0)
        return mni_gltf_has_draco();
    for (size_t i = 0; i < sizeof SUPPORTED_EXTENSIONS / sizeof SUPPORTED_EXTENSIONS[0]; i++)
        if (strcmp(name, SUPPORTED_EXTENSIONS[i]) == 0)
            return true;
    return false;
}

/* "2.0" → major 2, minor 0; false when not "<digits>.<digits>". */
static bool parse_version(const char *s, unsigned *major, unsigned *minor)
{
    char tail;
    return sscanf(s, "%u.%u%c", major, minor, &tail) == 2 && s[0] >= '0' && s[0] <= '9';
}

static mn_status read_asset(mn_gltf_reader *r)
{
    mn_json *j = &r->json;
    mn_model *m = r->model;
    json_t *asset;
    mn_status st = mni_json_object(j, r->root, "asset", true, &asset);
    if (st != MN_OK)
        return st;
    size_t mark = mni_json_push_key(j, "asset");
    unsigned major = 0, minor = 0;
    if ((st = mni_json_string(j, asset, "version", true, &m->version)) != MN_OK ||
        (st = mni_json_string(j, asset, "minVersion", false, &m->min_version)) != MN_OK ||
        (st = mni_json_string(j, asset, "generator", false, &m->generator)) != MN_OK ||
        (st = mni_json_string(j, asset, "copyright", false, &m->copyright)) != MN_OK)
        return st;
    if (!parse_version(m->version, &major, &minor))
        return mni_json_fail(j, MN_INVALID_VALUE, "version",
                             "\"%.32s\" is not a version of the form <major>.<minor>", m->version);
    if (major != 2)
        return mni_json_fail(j, MN_INVALID_VALUE, "version",
                             "the file is glTF %.32s; this reader reads glTF 2.x", m->version);
    if (m->min_version) {
        if (!parse_version(m->min_version, &major, &minor))
            return mni_json_fail(j, MN_INVALID_VALUE, "minVersion",
                                 "\"%.32s\" is not a version of the form <major>.<minor>", m->min_version);
        if (major != 2 || minor != 0)
            return mni_json_fail(j, MN_INVALID_VALUE, "minVersion",
                                 "the file needs a glTF %.32s reader; this one implements 2.0",
                                 m->min_version);
    }
    mni_json_pop(j, mark);
    return MN_OK;
}

/* An array of extension names into the arena. */
static mn_status read_names(mn_gltf_reader *r, const char *key, const char ***out, uint32_t *count)
{
    mn_json *j = &r->json;
    json_t *arr;
    mn_status st = mni_json_array_count(j, r->root, key, false, &arr, count);
    if (st != MN_OK || *count == 0)
        return st;
    const char **names = mni_gltf_alloc(r, *count, sizeof *names, _Alignof(const char *), false);
    if (!names)
        return MN_OUT_OF_MEMORY;
    size_t mark = mni_json_push_key(j, key);
    for (uint32_t i = 0; i < *count; i++) {
        json_t *v = json_array_get(arr, i);
        size_t m2 = mni_json_push_index(j, i);
        if (!json_is_string(v))
            return mni_json_fail(j, MN_JSON_TYPE, NULL, "expected an extension name (a string), found %s",
                                 mni_json_type_name(v));
        if (!(names[i] = mni_arena_strndup(r->arena, json_string_value(v), json_string_length(v))))
            return mni_json_oom(j, NULL, NULL);
        mni_json_pop(j, m2);
    }
    mni_json_pop(j, mark);
    *out = names;
    return MN_OK;
}

static mn_status read_extensions(mn_gltf_reader *r)
{
    mn_model *m = r->model;
    mn_status st = read_names(r, "extensionsUsed", &m->extensions_used, &m->extensions_used_count);
    if (st == MN_OK)
        st = read_names(r, "extensionsRequired", &m->extensions_required, &m->extensions_required_count);
    if (st != MN_OK)
        return st;
    for (uint32_t i = 0; i < m->extensions_required_count; i++) {
        const char *name = m->extensions_required[i];
        if (!extension_supported(name)) {
            size_t mark = mni_json_push_key(&r->json, "extensionsRequired");
            mni_json_push_index(&r->json, i);
            if (strcmp(name, "KHR_draco_mesh_compression") == 0)
                st = mni_json_fail(&r->json, MN_UNSUPPORTED_EXTENSION, NULL,
                                   "the file requires KHR_draco_mesh_compression, and this build of marionette "
                                   "has no Draco decoder (libdraco was not found when it was built)");
            else
                st = mni_json_fail(&r->json, MN_UNSUPPORTED_EXTENSION, NULL,
                                   "the file requires the extension %.64s, which this reader does not implement "
                                   "(it reads KHR_mesh_quantization, KHR_texture_transform, "
                                   "KHR_materials_emissive_strength, EXT_meshopt_compression, "
                                   "KHR_draco_mesh_compression, EXT_texture_webp, KHR_texture_basisu, "
                                   "KHR_lights_punctual, KHR_node_visibility, EXT_mesh_gpu_instancing, "
                                   "KHR_materials_variants and KHR_animation_pointer)",
                                   name);
            mni_json_pop(&r->json, mark);
            return st;
        }
        if (strcmp(name, "KHR_mesh_quantization") == 0)
            r->uses_quantization = true;
    }
    for (uint32_t i = 0; i < m->extensions_used_count; i++)
        if (strcmp(m->extensions_used[i], "KHR_mesh_quantization") == 0)
            r->uses_quantization = true;
    return MN_OK;
}

/* ---- buffers and buffer views -------------------------------------------------------------- */

static mn_status read_buffer(mn_gltf_reader *r, json_t *obj, uint32_t index, mn_buffer *b)
{
    mn_json *j = &r->json;
    uint64_t length = 0;
    const char *uri = NULL;
    json_t *ext;
    mn_status st;
    if ((st = mni_json_string(j, obj, "name", false, &b->name)) != MN_OK ||
        (st = mni_json_uint(j, obj, "byteLength", true, 1, SIZE_MAX, &length)) != MN_OK ||
        (st = mni_json_string_ref(j, obj, "uri", false, &uri, NULL)) != MN_OK ||
        (st = mni_gltf_extension(r, obj, "EXT_meshopt_compression", &ext)) != MN_OK)
        return st;
    bool fallback = false;
    if (ext) {
        size_t mark = mni_json_push_key(j, "extensions");
        mni_json_push_key(j, "EXT_meshopt_compression");
        st = mni_json_bool(j, ext, "fallback", false, &fallback);
        mni_json_pop(j, mark);
        if (st != MN_OK)
            return st;
    }
    b->size = (size_t)length;
    mn_bytes bytes = {0};
    const char *source;
    if (uri) {
        const char *media;
        if (!(b->uri = mni_arena_strndup(r->arena, uri, strlen(uri))))
            return mni_json_oom(j, NULL, NULL);
        if ((st = mni_gltf_load_uri(r, uri, &bytes, &media)) != MN_OK)
            return st;
        source = mni_uri_is_data(uri) ? "its data: URI" : "its file";
    } else if (r->is_glb && index == 0) {
        if (!r->glb_bin)
            return mni_json_fail(j, MN_MISSING_PROPERTY, "uri",
                                 "buffer 0 has no uri, so its data must be the GLB's BIN chunk, but the GLB "
                                 "has none");
        bytes.data = r->glb_bin;
        bytes.size = r->glb_bin_size;
        source = "the GLB BIN chunk";
    } else if (fallback) {
        /* EXT_meshopt_compression: only compressed views use it; they bring their own bytes. */
        r->buffer_is_fallback[index] = true;
        return MN_OK;
    } else {
        return mni_json_fail(j, MN_MISSING_PROPERTY, "uri",
                             "buffer %u has no uri%s, so it has no data", index,
                             r->is_glb ? " and only buffer 0 can be the GLB BIN chunk" : "");
    }
    if (bytes.size < b->size)
        return mni_json_fail(j, MN_INVALID_VALUE, "byteLength",
                             "byteLength is %zu, but %s holds only %zu bytes", b->size, source, bytes.size);
    b->data = bytes.data;
    return MN_OK;
}

static mn_status buffer_at(mn_gltf_reader *r, json_t *obj, uint32_t i)
{
    return read_buffer(r, obj, i, &r->model->buffers[i]);
}

static mn_status read_buffer_view(mn_gltf_reader *r, json_t *obj, mn_buffer_view *v)
{
    mn_json *j = &r->json;
    mn_model *m = r->model;
    uint64_t offset = 0, length = 0;
    json_t *ext;
    mn_status st;
    if ((st = mni_json_string(j, obj, "name", false, &v->name)) != MN_OK ||
        (st = mni_json_index(j, obj, "buffer", true, m->buffer_count, "buffers", &v->buffer)) != MN_OK ||
        (st = mni_json_uint(j, obj, "byteOffset", false, 0, SIZE_MAX, &offset)) != MN_OK ||
        (st = mni_json_uint(j, obj, "byteLength", true, 1, SIZE_MAX, &length)) != MN_OK ||
        (st = mni_json_u32(j, obj, "byteStride", false, 4, 252, &v->stride)) != MN_OK ||
        (st = mni_gltf_extension(r, obj, "EXT_meshopt_compression", &ext)) != MN_OK)
        return st;
    v->offset = (size_t)offset;
    v->size = (size_t)length;
    /* Harmless to this reader: each accessor's stride is checked against its own component size. */
    if (v->stride % 4 != 0 &&
        (st = mni_gltf_warn(r, MN_INVALID_VALUE, "byteStride",
                            "byteStride %u is not a multiple of 4 as glTF requires; read anyway", v->stride)) != MN_OK)
        return st;
    const mn_buffer *b = &m->buffers[v->buffer];
    if (v->offset > b->size || v->size > b->size - v->offset)
        return mni_json_fail(j, MN_BUFFER_VIEW_BOUNDS, v->offset ? "byteOffset" : "byteLength",
                             "byteOffset %zu + byteLength %zu runs past the end of buffer %u, which holds "
                             "%zu bytes",
                             v->offset, v->size, v->buffer, b->size);
    if (ext) {
        size_t mark = mni_json_push_key(j, "extensions");
        mni_json_push_key(j, "EXT_meshopt_compression");
        st = mni_meshopt_decode_view(r, ext, v);
        mni_json_pop(j, mark);
        return st;   /* stored_size: set by the decoder */
    }
    if (r->buffer_is_fallback[v->buffer])
        return mni_json_fail(j, MN_INVALID_VALUE, "buffer",
                             "buffer %u is an EXT_meshopt_compression fallback with no data; only views "
                             "compressed with EXT_meshopt_compression may refer to it",
                             v->buffer);
    v->data = b->data + v->offset;
    v->stored_size = v->size;
    return MN_OK;
}

static mn_status buffer_view_at(mn_gltf_reader *r, json_t *obj, uint32_t i)
{
    return read_buffer_view(r, obj, &r->model->buffer_views[i]);
}

/* ---- the document --------------------------------------------------------------------------- */

/*
 * n zeroed elements of `size` bytes for one of the model's arrays: NULL when
 * n is 0, and nothing more is asked once *failed (set, error filled, when an
 * allocation fails), so the first failure's message stands.
 */
static void *alloc_array(mn_gltf_reader *r, size_t n, size_t size, bool *failed)
{
    if (n == 0 || *failed)
        return NULL;
    void *p = mni_gltf_alloc(r, n, size, 16, true);
    *failed = !p;
    return p;
}

/* Every top-level array's length, type-checked, and the model's arrays, zeroed. */
static mn_status allocate_arrays(mn_gltf_reader *r)
{
    mn_model *m = r->model;
    mn_json *j = &r->json;
    uint32_t accessors = 0;
    mn_status st;
    if ((st = mni_json_array_count(j, r->root, "buffers", false, NULL, &m->buffer_count)) != MN_OK ||
        (st = mni_json_array_count(j, r->root, "bufferViews", false, NULL, &m->buffer_view_count)) != MN_OK ||
        (st = mni_json_array_count(j, r->root, "accessors", false, NULL, &accessors)) != MN_OK ||
        (st = mni_json_array_count(j, r->root, "images", false, NULL, &m->image_count)) != MN_OK ||
        (st = mni_json_array_count(j, r->root, "samplers", false, NULL, &m->sampler_count)) != MN_OK ||
        (st = mni_json_array_count(j, r->root, "textures", false, NULL, &m->texture_count)) != MN_OK ||
        (st = mni_json_array_count(j, r->root, "materials", false, NULL, &m->material_count)) != MN_OK ||
        (st = mni_json_array_count(j, r->root, "meshes", false, NULL, &m->mesh_count)) != MN_OK ||
        (st = mni_json_array_count(j, r->root, "nodes", false, NULL, &m->node_count)) != MN_OK ||
        (st = mni_json_array_count(j, r->root, "scenes", false, NULL, &m->scene_count)) != MN_OK ||
        (st = mni_json_array_count(j, r->root, "skins", false, NULL, &m->skin_count)) != MN_OK ||
        (st = mni_json_array_count(j, r->root, "cameras", false, NULL, &m->camera_count)) != MN_OK ||
        (st = mni_json_array_count(j, r->root, "animations", false, NULL, &m->animation_count)) != MN_OK)
        return st;
    r->file_accessor_count = accessors;
    uint32_t synth = mni_gltf_count_synth_accessors(r->root);
    if (synth > UINT32_MAX - 1 - accessors)
        return mni_json_fail(j, MN_INVALID_VALUE, "accessors", "too many accessors");
    r->accessor_capacity = accessors + synth;
    m->accessor_count = accessors;

    bool failed = false;
    m->buffers = alloc_array(r, m->buffer_count, sizeof *m->buffers, &failed);
    m->buffer_views = alloc_array(r, m->buffer_view_count, sizeof *m->buffer_views, &failed);
    m->accessors = alloc_array(r, r->accessor_capacity, sizeof *m->accessors, &failed);
    m->images = alloc_array(r, m->image_count, sizeof *m->images, &failed);
    m->samplers = alloc_array(r, m->sampler_count, sizeof *m->samplers, &failed);
    m->textures = alloc_array(r, m->texture_count, sizeof *m->textures, &failed);
    m->materials = alloc_array(r, m->material_count, sizeof *m->materials, &failed);
    m->meshes = alloc_array(r, m->mesh_count, sizeof *m->meshes, &failed);
    m->nodes = alloc_array(r, m->node_count, sizeof *m->nodes, &failed);
    m->scenes = alloc_array(r, m->scene_count, sizeof *m->scenes, &failed);
    m->skins = alloc_array(r, m->skin_count, sizeof *m->skins, &failed);
    m->cameras = alloc_array(r, m->camera_count, sizeof *m->cameras, &failed);
    m->animations = alloc_array(r, m->animation_count, sizeof *m->animations, &failed);
    if (failed)
        return MN_OUT_OF_MEMORY;
    if (m->buffer_count > 0 &&
        !(r->buffer_is_fallback = mni_gltf_alloc(r, m->buffer_count, sizeof(bool), 1, true)))
        return MN_OUT_OF_MEMORY;
    return MN_OK;
}

/* The default scene ("scene"), MN_NONE when absent. */
static mn_status read_default_scene(mn_gltf_reader *r)
{
    return mni_json_index(&r->json, r->root, "scene", false, r->model->scene_count, "scenes",
                          &r->model->scene);
}

/* Turn the warning list into model->warnings. */
static mn_status finish_warnings(mn_gltf_reader *r)
{
    mn_model *m = r->model;
    if (r->warning_count == 0)
        return MN_OK;
    m->warnings = mni_gltf_alloc(r, r->warning_count, sizeof *m->warnings, 16, false);
    if (!m->warnings)
        return MN_OUT_OF_MEMORY;
    uint32_t i = 0;
    for (mn_gltf_warning_node *n = r->warnings; n; n = n->next)
        m->warnings[i++] = n->warning;
    m->warning_count = i;
    return MN_OK;
}

/*
 * Before any buffer is read: the largest byteLength asked of each file, so
 * that a file several buffers name is read once, and no further than that.
 * Values that fail their checks are left to read_buffer to report.
 */
static mn_status note_buffer_sizes(mn_gltf_reader *r)
{
    json_t *arr = json_object_get(r->root, "buffers");
    if (!r->default_resolver || !r->base_dir)
        return MN_OK;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *b = json_array_get(arr, i);
        const char *uri = json_string_value(json_object_get(b, "uri"));
        json_t *length = json_object_get(b, "byteLength");
        if (!uri || !json_is_integer(length) || json_integer_value(length) < 1 || mni_uri_is_data(uri))
            continue;
        mn_error ignored;
        char *decoded;
        if (mni_uri_to_path(r->arena, uri, true, &decoded, "", &ignored) != MN_OK)
            continue;
        if (!mni_files_want(&r->files, decoded, (uint64_t)json_integer_value(length)))
            return mni_json_oom(&r->json, NULL, NULL);
    }
    return MN_OK;
}

static mn_status read_buffers(mn_gltf_reader *r)
{
    mn_status st = note_buffer_sizes(r);
    return st != MN_OK ? st : mni_gltf_read_array(r, "buffers", r->model->buffer_count, buffer_at);
}

static mn_status read_buffer_views(mn_gltf_reader *r)
{
    return mni_gltf_read_array(r, "bufferViews", r->model->buffer_view_count, buffer_view_at);
}

/* The parts of the document in dependency order: each step may refer to what came before. */
static mn_status read_document(mn_gltf_reader *r)
{
    static mn_status (*const steps[])(mn_gltf_reader *) = {
        read_asset,           read_extensions,        allocate_arrays,
        mni_gltf_read_root_extensions,
        read_buffers,         read_buffer_views,      mni_gltf_read_accessors,
        mni_gltf_read_images,  mni_gltf_read_samplers,  mni_gltf_read_textures,
        mni_gltf_read_materials, mni_gltf_read_cameras, mni_gltf_read_meshes,
        mni_gltf_read_skins,   mni_gltf_read_nodes,     mni_gltf_read_scenes,
        read_default_scene,   mni_gltf_read_animations, mni_gltf_validate,
        finish_warnings,
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        mn_status st = steps[i](r);
        if (st != MN_OK)
            return st;
    }
    return MN_OK;
}

/* ---- container detection and JSON parsing ------------------------------------------------------ */

static bool is_json_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Parse the JSON text at data[0..size) (starting at byte `base` of the input) into r->root. */
static mn_status parse_json(mn_gltf_reader *r, const uint8_t *data, size_t size, size_t base)
{
    /* A UTF-8 byte order mark is not allowed by glTF but harmless; trailing NUL padding too. */
    if (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) {
        data += 3;
        size -= 3;
        base += 3;
    }
    while (size > 0 && (data[size - 1] == 0 || is_json_space(data[size - 1])))
        size--;
    json_error_t jerr;
    r->root = json_loadb((const char *)data, size, 0, &jerr);
    if (!r->root) {
        mn_status st = mni_error_set(r->err, MN_JSON_SYNTAX, "", (int64_t)(base + (size_t)jerr.position),
                                     "JSON syntax error at line %d, column %d: %s", jerr.line,
                                     jerr.column, jerr.text);
        r->err->line = jerr.line;
        r->err->column = jerr.column;
        return st;
    }
    if (!json_is_object(r->root))
        return mni_error_set(r->err, MN_JSON_TYPE, "", (int64_t)base,
                             "the document is %s; a glTF document is a JSON object",
                             mni_json_type_name(r->root));
    return MN_OK;
}

static mn_status read_bytes(mn_gltf_reader *r, const uint8_t *data, size_t size)
{
    if (size >= 4 && memcmp(data, "glTF", 4) == 0) {
        mn_bytes json, bin;
        bool has_bin;
        mn_status st = mni_glb_parse(data, size, &json, &bin, &has_bin, r->err);
        if (st != MN_OK)
            return st;
        r->is_glb = true;
        r->glb_bin = has_bin ? bin.data : NULL;
        r->glb_bin_size = has_bin ? bin.size : 0;
        st = parse_json(r, json.data, json.size, (size_t)(json.data - data));
        return st != MN_OK ? st : read_document(r);
    }
    size_t i = 0;
    if (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF)
        i = 3;
    while (i < size && is_json_space(data[i]))
        i++;
    /* Text (whitespace included) goes to the JSON parser, which says what is wrong with it;
       anything else is a bad GLB. */
    bool text = i < size ? data[i] >= 0x20 && data[i] < 0x7F : size > 0;
    if (!text) {
        if (size < 4)
            return mni_error_set(r->err, MN_GLB_HEADER, "", (int64_t)size,
                                 "the input is %zu bytes long: neither JSON nor a GLB (whose header is 12 bytes)",
                                 size);
        return mni_error_set(r->err, MN_GLB_MAGIC, "", 0,
                             "the input is neither JSON nor a GLB: it starts with 0x%02x%02x%02x%02x, not "
                             "the GLB magic \"glTF\" or '{'",
                             data[0], data[1], data[2], data[3]);
    }
    mn_status st = parse_json(r, data, size, 0);
    return st != MN_OK ? st : read_document(r);
}

/* ---- entry points ------------------------------------------------------------------------------ */

/* The folder part of a path ("" when it has none), in the arena. */
static const char *dir_of(mn_arena *arena, const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *back = strrchr(path, '\\');
    if (back && (!slash || back > slash))
        slash = back;
    if (!slash)
        return mni_arena_strndup(arena, "", 0);
    return mni_arena_strndup(arena, path, (size_t)(slash - path) + 1);
}

static mn_status read_model(const void *data, size_t size, const char *file_path,
                            const mn_gltf_options *options, mn_model **out_model, mn_error *err)
{
    mn_error local;
    mni_error_clear(&local);
    mn_gltf_options opts;
    memset(&opts, 0, sizeof opts);
    if (options)
        opts = *options;
    mn_model *model = mni_model_create(&opts.allocator);
    if (!model) {
        mni_oom(err, "creating a model");
        return MN_OUT_OF_MEMORY;
    }
    mn_gltf_reader r;
    memset(&r, 0, sizeof r);
    r.model = model;
    r.priv = model->priv;
    r.arena = &model->priv->arena;
    r.err = &local;
    r.options = opts;
    r.default_resolver = opts.resolver.read == NULL;
    r.base_dir = opts.base_dir;
    r.warnings_tail = &r.warnings;
    mni_json_init(&r.json, r.arena, &local);
    mni_files_init(&r.files, r.arena, opts.resolver.root, r.base_dir);

    mn_status st = MN_OK;
    const uint8_t *bytes = data;
    if (file_path) {
        /* Read, not mapped: a file that shrinks later cannot fault the model's readers. */
        mn_bytes file = {0};
        st = mni_file_read(r.arena, file_path, &file, &local);
        bytes = file.data;
        size = file.size;
        if (st == MN_OK && !r.base_dir && !(r.base_dir = dir_of(r.arena, file_path)))
            st = mni_oom(&local, NULL);
        mni_files_init(&r.files, r.arena, opts.resolver.root, r.base_dir);
    } else if (opts.copy_input || ((uintptr_t)data & 15) != 0) {
        /* A copy also keeps views aligned when the caller's bytes are not. */
        uint8_t *copy = mni_arena_alloc(r.arena, size ? size : 1, 64);
        if (!copy)
            st = mni_oom(&local, "copying %zu bytes", size);
        else if (size)
            memcpy(copy, data, size);
        bytes = copy;
    }
    if (st == MN_OK)
        st = read_bytes(&r, bytes, size);
    /* The model holds copies of all it keeps, so the DOM (the largest part of reading a
       .gltf) goes before the bounds' scratch is allocated rather than beside it. */
    if (r.root)
        json_decref(r.root);
    r.root = NULL;
    if (st == MN_OK && mni_model_compute_bounds(model, &opts.allocator) != MN_OK)
        st = mni_oom(&local, "computing the bounds");
    if (st != MN_OK) {
        if (local.code == MN_OK)
            mni_fail(&local, st, NULL);
        mn_model_free(model);
        if (err)
            *err = local;
        return st;
    }
    if (err)
        mni_error_clear(err);
    *out_model = model;
    return MN_OK;
}

mn_status mn_gltf_read_memory(const void *data, size_t size, const mn_gltf_options *options,
                              mn_model **out_model, mn_error *err)
{
    if (out_model)
        *out_model = NULL;
    if (!out_model || (!data && size > 0))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_gltf_read_memory needs data (or size 0) and out_model");
    static const uint8_t empty[1] = {0};
    return read_model(data ? data : empty, size, NULL, options, out_model, err);
}

mn_status mn_gltf_read_file(const char *path, const mn_gltf_options *options, mn_model **out_model,
                            mn_error *err)
{
    if (out_model)
        *out_model = NULL;
    if (!out_model || !path)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_gltf_read_file needs a path and out_model");
    return read_model(NULL, 0, path, options, out_model, err);
}
