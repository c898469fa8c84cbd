/*
 * character.json, the package descriptor, validated into an
 * mn_character_descriptor whose strings and arrays live in one arena
 * (docs/formats.md, "character.json").
 */
#include <marionette/character/package.h>

#include "io/io.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

struct descriptor_holder {
    mn_character_descriptor d;   /* first: the public pointer is the holder's */
    mn_arena arena;
    mn_character_warning dropped[MN_CHARACTER_PARTS];
};

/* Whether the optional part `name` was dropped for a malformed entry. */
static bool part_dropped(const mn_character_descriptor *d, const char *name)
{
    for (uint32_t i = 0; i < d->dropped_count; i++)
        if (strcmp(d->dropped[i].name, name) == 0)
            return true;
    return false;
}

/* ---- paths ------------------------------------------------------------------- */

/* The plain relative path rule (docs/formats.md); allow_up lets it begin with "../" segments. */
static bool plain_path(const char *p, bool allow_up)
{
    if (!p[0] || p[0] == '/')
        return false;
    if (allow_up)
        while (strncmp(p, "../", 3) == 0)
            p += 3;
    for (const char *c = p; *c; c++)
        if (*c == '\\' || *c == ':' || *c == '?' || *c == '#' || *c == '%' ||
            (unsigned char)*c < 0x20 || *c == 0x7f)
            return false;
    const char *seg = p;
    for (;;) {
        const char *slash = strchr(seg, '/');
        size_t len = slash ? (size_t)(slash - seg) : strlen(seg);
        if (len == 0 || (len == 1 && seg[0] == '.') || (len == 2 && seg[0] == '.' && seg[1] == '.'))
            return false;
        if (!slash)
            return true;
        seg = slash + 1;
    }
}

static mn_status read_src(mn_json *j, json_t *obj, const char *key, bool allow_up,
                          const char **out)
{
    mn_status st = mni_json_string(j, obj, key, true, out);
    if (st == MN_OK && !plain_path(*out, allow_up))
        return mni_json_fail(j, MN_URI, key, "\"%s\" is not a plain relative path", *out);
    return st;
}

static mn_status read_sha(mn_json *j, json_t *obj, bool required, char out[65])
{
    const char *s = NULL;
    out[0] = '\0';
    mn_status st = mni_json_string(j, obj, "sha256", required, &s);
    if (st != MN_OK || !s)
        return st;
    if (strlen(s) != 64)
        return mni_json_fail(j, MN_INVALID_VALUE, "sha256", "expected 64 hex digits");
    for (int i = 0; i < 64; i++) {
        if (!isxdigit((unsigned char)s[i]))
            return mni_json_fail(j, MN_INVALID_VALUE, "sha256", "expected 64 hex digits");
        out[i] = (char)tolower((unsigned char)s[i]);
    }
    out[64] = '\0';
    return MN_OK;
}

static mn_status read_bytes(mn_json *j, json_t *obj, mn_character_file *f)
{
    uint64_t v = UINT64_MAX;
    mn_status st = mni_json_uint(j, obj, "bytes", false, 0, (uint64_t)1 << 53, &v);
    f->has_bytes = st == MN_OK && v != UINT64_MAX;
    f->bytes = f->has_bytes ? v : 0;
    return st;
}

/* {src, sha256, bytes?} (src under `src_key`). */
static mn_status read_file_entry(mn_json *j, json_t *obj, const char *name, const char *src_key,
                                 bool sha_required, bool allow_up, mn_character_file *f)
{
    f->name = mni_arena_strndup(j->arena, name, strlen(name));
    if (!f->name)
        return mni_json_oom(j, NULL, NULL);
    mn_status st = read_src(j, obj, src_key, allow_up, &f->src);
    if (st == MN_OK)
        st = read_sha(j, obj, sha_required, f->sha256);
    if (st == MN_OK)
        st = read_bytes(j, obj, f);
    return st;
}

/* ---- members ---------------------------------------------------------------- */

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

static mn_status read_files(mn_json *j, json_t *root, mn_character_descriptor *d)
{
    json_t *files = NULL;
    mn_status st = mni_json_object(j, root, "files", true, &files);
    if (st != MN_OK)
        return st;
    size_t n = json_object_size(files);
    mn_character_file *out = mni_arena_calloc(j->arena, n ? n : 1, sizeof *out, 8);
    if (!out)
        return mni_json_oom(j, NULL, NULL);
    size_t mark = mni_json_push_key(j, "files");
    const char *key;
    json_t *value;
    uint32_t i = 0, heads = 0;
    json_object_foreach(files, key, value) {
        size_t m = mni_json_push_key(j, key);
        if (!json_is_object(value))
            return mni_json_fail(j, MN_JSON_TYPE, NULL, "expected an object, found %s",
                                 mni_json_type_name(value));
        if (!plain_path(key, false))
            return mni_json_fail(j, MN_URI, NULL, "\"%s\" is not a plain relative name", key);
        st = read_file_entry(j, value, key, "src", true, false, &out[i++]);
        if (st != MN_OK)
            return st;
        heads += ends_with(key, ".aosrig");
        mni_json_pop(j, m);
    }
    d->files = out;
    d->file_count = i;
    if (heads > 1)
        return mni_json_fail(j, MN_INVALID_VALUE, NULL, "%u head packs (*.aosrig); at most one",
                             heads);
    static const char *const required[] = {"character.ply", "bindings.bin", "skeleton.json",
                                           "clips.json"};
    for (size_t r = 0; r < 4; r++)
        if (!json_object_get(files, required[r]))
            return mni_json_fail(j, MN_MISSING_PROPERTY, required[r], "required file missing");
    mni_json_pop(j, mark);
    return MN_OK;
}

/*
 * The first element of `arr` whose string an earlier one repeats (MN_NONE
 * when none): one sort, n log n, where a scan per name was n².
 */
static mn_status first_repeat(mn_json *j, json_t *arr, uint32_t n, uint32_t *out)
{
    mn_arena scratch;
    mni_arena_init(&scratch, &j->arena->allocator);
    const char **names = mni_arena_calloc(&scratch, n ? n : 1, sizeof *names, 8);
    mni_names_sorted sorted;
    bool ok = names != NULL;
    for (uint32_t i = 0; ok && i < n; i++) {
        json_t *v = json_array_get(arr, i);
        names[i] = json_is_string(v) ? json_string_value(v) : NULL;
    }
    uint32_t first;
    *out = MN_NONE;
    if (ok && (ok = mni_names_sort(&sorted, &scratch, names, n)) &&
        !mni_names_first_duplicate(&sorted, out, &first))
        *out = MN_NONE;
    mni_arena_release(&scratch);
    return ok ? MN_OK : mni_json_oom(j, NULL, NULL);
}

/* An array of strings into the arena; unique when asked. */
static mn_status read_names(mn_json *j, json_t *root, const char *key, bool required,
                            bool unique, const char *const **out, uint32_t *count)
{
    json_t *arr = NULL;
    uint32_t n = 0, repeat = MN_NONE;
    mn_status st = mni_json_array_count(j, root, key, required, &arr, &n);
    if (st == MN_OK && arr && unique)
        st = first_repeat(j, arr, n, &repeat);
    if (st != MN_OK || !arr)
        return st;
    const char **names = mni_arena_calloc(j->arena, n ? n : 1, sizeof *names, 8);
    if (!names)
        return mni_json_oom(j, NULL, NULL);
    size_t mark = mni_json_push_key(j, key);
    for (uint32_t i = 0; i < n; i++) {
        json_t *v = json_array_get(arr, i);
        size_t m = mni_json_push_index(j, i);
        if (!json_is_string(v))
            return mni_json_fail(j, MN_JSON_TYPE, NULL, "expected a string, found %s",
                                 mni_json_type_name(v));
        names[i] = mni_arena_strndup(j->arena, json_string_value(v), json_string_length(v));
        if (!names[i])
            return mni_json_oom(j, NULL, NULL);
        if (i == repeat)
            return mni_json_fail(j, MN_INVALID_VALUE, NULL, "\"%s\" is named twice", names[i]);
        mni_json_pop(j, m);
    }
    mni_json_pop(j, mark);
    *out = names;
    *count = n;
    return MN_OK;
}

static mn_status read_identity(mn_json *j, json_t *root, mn_character_descriptor *d)
{
    const char *format = NULL;
    mn_status st = mni_json_string(j, root, "format", true, &format);
    if (st == MN_OK && strcmp(format, "aosrig-splat") != 0)
        return mni_json_fail(j, MN_INVALID_VALUE, "format", "\"%s\" is not \"aosrig-splat\"",
                             format);
    uint64_t version = 0;
    if (st == MN_OK)
        st = mni_json_uint(j, root, "version", true, 0, UINT32_MAX, &version);
    if (st == MN_OK && version != 2)
        return mni_json_fail(j, MN_INVALID_VALUE, "version",
                             "unsupported version %llu (version 2 packages are read%s)",
                             (unsigned long long)version,
                             version == 1 ? "; version 1's rig.glb body is not" : "");
    d->version = (uint32_t)version;
    if (st == MN_OK)
        st = mni_json_string(j, root, "rig", true, &d->rig);
    if (st == MN_OK && strcmp(d->rig, "aosrig-v2") != 0)
        return mni_json_fail(j, MN_INVALID_VALUE, "rig", "\"%s\" does not pair with version 2 "
                             "(\"aosrig-v2\")", d->rig);
    if (st == MN_OK)
        st = mni_json_string(j, root, "units", true, &d->units);
    if (st == MN_OK && strcmp(d->units, "m") != 0)
        return mni_json_fail(j, MN_INVALID_VALUE, "units", "\"%s\" is not \"m\"", d->units);
    static const char *const spaces[] = {"srgb", "linear"};
    int space = 0;
    if (st == MN_OK)
        st = mni_json_enum(j, root, "colorSpace", false, spaces, 2, "a colour space", &space);
    d->color_space = spaces[space];
    return st;
}

static mn_status read_geometry(mn_json *j, json_t *root, mn_character_descriptor *d)
{
    mn_status st = mni_json_u32(j, root, "splatCount", true, 1, UINT32_MAX, &d->splat_count);
    if (st == MN_OK)
        st = mni_json_u32(j, root, "headVertexCount", true, 0, UINT32_MAX,
                          &d->head_vertex_count);
    if (st == MN_OK)
        st = read_names(j, root, "jointNames", true, true, &d->joint_names, &d->joint_count);
    if (st == MN_OK && (d->joint_count == 0 || d->joint_count > 65535))
        return mni_json_fail(j, MN_INVALID_VALUE, "jointNames", "%u joints (1 to 65535)",
                             d->joint_count);
    json_t *bounds = NULL;
    if (st == MN_OK)
        st = mni_json_object(j, root, "bounds", true, &bounds);
    if (st == MN_OK) {
        size_t m = mni_json_push_key(j, "bounds");
        st = mni_json_floats(j, bounds, "center", true, 3, d->bounds_center);
        if (st == MN_OK)
            st = mni_json_float_min(j, bounds, "radius", true, 0.0f, &d->bounds_radius);
        mni_json_pop(j, m);
    }
    if (st == MN_OK)
        st = mni_json_floats(j, root, "plyToCharacter", true, 12, d->ply_to_character);
    for (int r = 0; st == MN_OK && r < 3; r++)
        for (int c = 0; c < 3; c++)
            if (d->ply_to_character[4 * r + c] != (r == c ? 1.0f : 0.0f))
                return mni_json_fail(j, MN_INVALID_VALUE, "plyToCharacter",
                                     "the 3x3 must be the identity (the PLY's axes are kept)");
    return st;
}

static mn_status read_shared_clips(mn_json *j, json_t *root, mn_character_descriptor *d)
{
    json_t *obj = NULL;
    mn_status st = mni_json_object(j, root, "sharedClips", false, &obj);
    if (st != MN_OK || !obj)
        return st;
    size_t m = mni_json_push_key(j, "sharedClips");
    const char *format = NULL;
    st = mni_json_string(j, obj, "format", true, &format);
    if (st == MN_OK && strcmp(format, "soma-clips") != 0)
        return mni_json_fail(j, MN_INVALID_VALUE, "format", "\"%s\" is not \"soma-clips\"",
                             format);
    if (st == MN_OK)
        st = read_file_entry(j, obj, "sharedClips", "src", true, true, &d->shared_clips);
    d->has_shared_clips = st == MN_OK;
    mni_json_pop(j, m);
    return st;
}

/* corrective: {index, sha256?, bytes?}. */
static mn_status read_corrective(mn_json *j, json_t *root, mn_character_descriptor *d)
{
    json_t *obj = NULL;
    mn_status st = mni_json_object(j, root, "corrective", false, &obj);
    if (st != MN_OK || !obj)
        return st;
    size_t m = mni_json_push_key(j, "corrective");
    st = read_file_entry(j, obj, "corrective", "index", false, false, &d->corrective_index);
    d->has_corrective = st == MN_OK;
    mni_json_pop(j, m);
    return st;
}

/* face.arkit: {src, sha256, bytes?, ...}, the whole object kept as JSON for the fitted map. */
static mn_status read_face(mn_json *j, json_t *root, mn_character_descriptor *d)
{
    json_t *face = NULL, *arkit = NULL;
    mn_status st = mni_json_object(j, root, "face", false, &face);
    if (st != MN_OK || !face)
        return st;
    size_t m = mni_json_push_key(j, "face");
    st = mni_json_object(j, face, "arkit", false, &arkit);
    if (st != MN_OK || !arkit) {
        mni_json_pop(j, m);
        return st;
    }
    size_t a = mni_json_push_key(j, "arkit");
    st = read_file_entry(j, arkit, "face.arkit", "src", true, false, &d->face_table);
    if (st == MN_OK)
        st = mni_json_dump(j, arkit, &d->face_json);
    d->has_face = st == MN_OK;
    mni_json_pop(j, a);
    mni_json_pop(j, m);
    return st;
}

/*
 * Record part `name` as dropped for `why`, once (a part named twice keeps its
 * first reason).
 */
static void drop_part(struct descriptor_holder *h, const char *name, const mn_error *why)
{
    mn_character_descriptor *d = &h->d;
    for (uint32_t i = 0; i < d->dropped_count; i++)
        if (strcmp(h->dropped[i].name, name) == 0)
            return;
    if (d->dropped_count == MN_CHARACTER_PARTS)
        return;
    mn_character_warning *w = &h->dropped[d->dropped_count++];
    snprintf(w->name, sizeof w->name, "%s", name);
    w->code = why->code;
    snprintf(w->message, sizeof w->message, "%.40s dropped: %.200s", name, why->message);
    d->dropped = h->dropped;
}

/*
 * An optional part's entry read with its errors caught: a malformed entry
 * drops the part (character-formats.md §11: the rest loads), running out of
 * memory still fails the read.  The path is put back where it was, since a
 * failing reader returns without popping what it pushed.
 */
static mn_status read_optional(mn_json *j, json_t *root, struct descriptor_holder *h,
                               const char *name,
                               mn_status (*read)(mn_json *, json_t *, mn_character_descriptor *))
{
    mn_error why, *outer = j->err;
    mni_error_clear(&why);
    size_t mark = j->len;
    j->err = &why;
    mn_status st = read(j, root, &h->d);
    j->err = outer;
    mni_json_pop(j, mark);
    if (st == MN_OUT_OF_MEMORY) {
        *outer = why;
        return st;
    }
    if (st != MN_OK)
        drop_part(h, name, &why);
    return MN_OK;
}

/* package.files[i]: {path, bytes?}. */
static mn_status read_package_file(mn_json *j, json_t *v, mn_character_file *f)
{
    if (!json_is_object(v))
        return mni_json_fail(j, MN_JSON_TYPE, NULL, "expected an object, found %s",
                             mni_json_type_name(v));
    mn_status st = mni_json_string(j, v, "path", true, &f->src);
    if (st == MN_OK)
        st = read_bytes(j, v, f);
    f->name = f->src;
    return st;
}

/* The optional part a package.files path belongs to; NULL for any other file. */
static const char *part_of_path(const json_t *entry)
{
    const char *path = json_is_object(entry) ? json_string_value(json_object_get(entry, "path"))
                                             : NULL;
    if (!path)
        return NULL;
    if (strcmp(path, "mouth_hidden.bin") == 0)
        return "mouth_hidden.bin";
    if (strncmp(path, "corrective/", 11) == 0)
        return "corrective";
    return NULL;
}

/*
 * package {bytes?, files?: [{path, bytes?}]}.  A malformed files entry
 * whose path is an optional part's file (the mouth list, corrective/) drops
 * that part and is left out; any other fails the read.
 */
static mn_status read_package(mn_json *j, json_t *root, struct descriptor_holder *h)
{
    mn_character_descriptor *d = &h->d;
    json_t *pkg = NULL, *files = NULL;
    mn_status st = mni_json_object(j, root, "package", false, &pkg);
    if (st != MN_OK || !pkg)
        return st;
    size_t m = mni_json_push_key(j, "package");
    uint32_t n = 0;
    st = mni_json_array_count(j, pkg, "files", false, &files, &n);
    if (st != MN_OK || !files)
        return st;
    mn_character_file *out = mni_arena_calloc(j->arena, n ? n : 1, sizeof *out, 8);
    if (!out)
        return mni_json_oom(j, NULL, NULL);
    size_t f = mni_json_push_key(j, "files");
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        json_t *v = json_array_get(files, i);
        const char *part = part_of_path(v);
        mn_error why, *outer = j->err;
        mni_error_clear(&why);
        size_t e = mni_json_push_index(j, i);
        if (part)
            j->err = &why;
        st = read_package_file(j, v, &out[kept]);
        j->err = outer;
        mni_json_pop(j, e);
        if (st == MN_OK) {
            kept++;
            continue;
        }
        if (!part)
            return st;          /* the error is already in *outer */
        if (st == MN_OUT_OF_MEMORY) {
            *outer = why;
            return st;
        }
        drop_part(h, part, &why);
        memset(&out[kept], 0, sizeof out[kept]);
    }
    mni_json_pop(j, f);
    mni_json_pop(j, m);
    d->package_files = out;
    d->package_file_count = kept;
    return MN_OK;
}

/* What a dropped part leaves: nothing the loader would fetch. */
static void clear_dropped(mn_character_descriptor *d)
{
    if (part_dropped(d, "corrective")) {
        d->has_corrective = false;
        memset(&d->corrective_index, 0, sizeof d->corrective_index);
    }
    if (part_dropped(d, "face.arkit")) {
        d->has_face = false;
        d->face_json = NULL;
        memset(&d->face_table, 0, sizeof d->face_table);
    }
}

static mn_status read_descriptor(mn_json *j, json_t *root, struct descriptor_holder *h)
{
    mn_character_descriptor *d = &h->d;
    if (!json_is_object(root))
        return mni_json_fail(j, MN_JSON_TYPE, NULL, "character.json is not a JSON object");
    mn_status st = read_identity(j, root, d);
    if (st == MN_OK)
        st = read_geometry(j, root, d);
    if (st == MN_OK)
        st = read_files(j, root, d);
    if (st == MN_OK)
        st = read_names(j, root, "clips", false, false, &d->clip_names, &d->clip_count);
    if (st == MN_OK)
        st = read_shared_clips(j, root, d);   /* once named, required: a fault fails */
    if (st == MN_OK)
        st = read_optional(j, root, h, "corrective", read_corrective);
    if (st == MN_OK)
        st = read_optional(j, root, h, "face.arkit", read_face);
    if (st == MN_OK)
        st = read_package(j, root, h);
    clear_dropped(d);
    return st;
}

MN_API mn_status mn_character_descriptor_read(const void *json, size_t size,
                                              const mn_allocator *allocator,
                                              mn_character_descriptor **out, mn_error *err)
{
    mni_error_clear(err);
    if (!out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!json && size)
        return mni_fail(err, MN_INVALID_ARGUMENT, "json is NULL");
    mn_allocator hooks = {0};
    if (allocator)
        hooks = *allocator;
    json_error_t jerr;
    json_t *root = json_loadb(json ? (const char *)json : "", size, 0, &jerr);
    if (!root) {
        mn_status st = mni_error_set(err, MN_JSON_SYNTAX, "", (int64_t)jerr.position,
                                     "character.json: JSON syntax error at line %d, column %d: "
                                     "%s", jerr.line, jerr.column, jerr.text);
        if (err)
            err->line = jerr.line, err->column = jerr.column;
        return st;
    }
    struct descriptor_holder *h = mni_alloc(&hooks, sizeof *h);
    if (!h) {
        json_decref(root);
        return mni_oom(err, NULL);
    }
    memset(h, 0, sizeof *h);
    mni_arena_init(&h->arena, &hooks);
    mn_error local;
    mn_json j;
    mni_json_init(&j, &h->arena, err ? err : &local);
    mn_status st = read_descriptor(&j, root, h);
    json_decref(root);
    if (st != MN_OK) {
        mni_arena_release_holder(&h->arena, h, sizeof *h);
        return st;
    }
    *out = &h->d;
    return MN_OK;
}

MN_API void mn_character_descriptor_free(mn_character_descriptor *descriptor)
{
    if (!descriptor)
        return;
    struct descriptor_holder *h = (struct descriptor_holder *)(void *)descriptor;
    mni_arena_release_holder(&h->arena, h, sizeof *h);
}
