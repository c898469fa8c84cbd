/*
 * What the SOMA readers (skeleton.json, clips.json, corrective/index.json)
 * share on the way from bytes to their holders: parsing with a located
 * syntax error, the format check every document opens with, name lookup,
 * and the one allocate-parse-read-release sequence (soma_internal.h).
 */
#include "character/soma_internal.h"

#include <string.h>

mn_status mni_soma_json_load(const void *json, size_t size, json_t **root, mn_error *err)
{
    json_error_t jerr;
    *root = json_loadb((const char *)json, size, 0, &jerr);
    if (*root)
        return MN_OK;
    mn_status st = mni_error_set(err, MN_JSON_SYNTAX, "", (int64_t)jerr.position,
                                 "JSON syntax error at line %d, column %d: %s", jerr.line,
                                 jerr.column, jerr.text);
    if (err) {
        err->line = jerr.line;
        err->column = jerr.column;
    }
    return st;
}

uint32_t mni_soma_find_name(const char *const *names, uint32_t count, const char *name)
{
    for (uint32_t i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return UINT32_MAX;
}

mn_status mni_soma_holder_read(const mn_soma_holder_kind *kind, const void *json, size_t size,
                               const mn_allocator *allocator, const void *ctx, void **out, mn_error *err)
{
    mn_allocator a = allocator ? *allocator : (mn_allocator){0};
    unsigned char *h = mni_alloc(&a, kind->size);
    if (!h)
        return mni_oom(err, "%s", kind->file);
    memset(h, 0, kind->size);
    mn_arena *arena = (mn_arena *)(void *)(h + kind->arena_offset);
    mni_arena_init(arena, &a);
    json_t *root;
    mn_status st = mni_soma_json_load(json, size, &root, err);
    if (st == MN_OK) {
        mn_json j;
        mni_json_init(&j, arena, err);
        st = kind->read(h, &j, root, ctx);
        json_decref(root);
    }
    if (st != MN_OK) {
        if (kind->release)
            kind->release(h);
        else
            mni_arena_release_holder(arena, h, kind->size);
        return st;
    }
    *out = h;
    return MN_OK;
}

mn_status mni_soma_json_format(mn_json *j, json_t *root, const char *file, const char *format)
{
    if (!json_is_object(root))
        return mni_json_fail(j, MN_JSON_TYPE, NULL, "%s: expected an object, found %s", file,
                             mni_json_type_name(root));
    const char *found;
    mn_status st = mni_json_string_ref(j, root, "format", true, &found, NULL);
    if (st != MN_OK)
        return st;
    if (strcmp(found, format) != 0)
        return mni_json_fail(j, MN_INVALID_VALUE, "format", "\"%s\" is not \"%s\"", found, format);
    return MN_OK;
}
