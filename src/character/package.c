/*
 * Loading a character package (docs/formats.md, "Character packages").
 * Every file comes through the resolver, is copied
 * into the character's arena, and is checked (size, then SHA-256 with
 * libmd) before anything reads it; progress is told after each file.
 *
 * The parts are read by their own readers: splats and bindings (splat.h),
 * the SOMA skeleton and clips (soma.h; a shared clip pack through the
 * caller's clip cache when given), the head (aosrig.h), the face table
 * (arkit.h), the corrective index (corrective.h), the mouth list (mouth.h).
 */
#include <marionette/character/package.h>

#include "core/core.h"
#include "io/io.h"

#include <sha2.h>
#include <stdio.h>
#include <string.h>

#define MAX_WARNINGS 8

struct mn_character_private {
    mn_character c;                 /* first: the public pointer is the holder's */
    mn_arena arena;                 /* every file's bytes and the small arrays */
    mn_character_descriptor *descriptor;
    mn_soma_clip_cache *clip_cache; /* where shared_clips came from; NULL: owned */
    mn_character_warning warnings[MAX_WARNINGS];
};

typedef struct loader {
    struct mn_character_private *p;
    mn_character_load_options o;
    const char *base_dir;
    mni_files files;                /* what was read: kept inside the package's folder, each file once */
    mni_files batch;                /* the shared clip pack "../src": kept inside the folder above */
    uint64_t total, loaded;
    bool told_equal;                /* the last progress call had loaded == total */
} loader;

MN_API void mn_sha256_hex(const void *data, size_t size, char out[65])
{
    SHA2_CTX ctx;
    uint8_t digest[SHA256_DIGEST_LENGTH];
    SHA256Init(&ctx);
    SHA256Update(&ctx, data, size);
    SHA256Final(digest, &ctx);
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++) {
        out[2 * i] = hex[digest[i] >> 4];
        out[2 * i + 1] = hex[digest[i] & 15];
    }
    out[64] = '\0';
}

/* ---- reading one file ---------------------------------------------------------- */

/* The folder that holds the package's folder: base_dir + "/..", in the arena (NULL: out of memory). */
static const char *batch_folder(mn_arena *arena, const char *base_dir)
{
    size_t n = base_dir ? strlen(base_dir) : 0;
    char *s = mni_arena_alloc(arena, n + 4, 1);
    if (!s)
        return NULL;
    memcpy(s, base_dir ? base_dir : "", n);
    if (n > 0 && base_dir[n - 1] != '/')
        s[n++] = '/';
    memcpy(s + n, "..", 3);
    return s;
}

/* Bytes a custom resolver returned for src, copied into the character's arena (64-byte aligned). */
static mn_status fetch_resolved(loader *l, const char *src, mn_bytes *out, mn_error *err)
{
    if (mni_files_find_named(&l->files, src, out))
        return MN_OK;
    mn_bytes got = {0};
    mn_status st = l->o.resolver.read(l->o.resolver.user, l->base_dir ? l->base_dir : "", src, &got, err);
    if (st != MN_OK)
        return st;
    uint8_t *copy = mni_arena_alloc(&l->p->arena, got.size ? got.size : 1, 64);
    if (copy && got.size)
        memcpy(copy, got.data, got.size);
    if (l->o.resolver.release)
        l->o.resolver.release(l->o.resolver.user, &got);
    *out = (mn_bytes){copy, got.size};
    if (!copy || !mni_files_keep_named(&l->files, src, *out))
        return mni_error_set(err, MN_OUT_OF_MEMORY, src, -1, NULL);
    return MN_OK;
}

/*
 * Read src into the character's arena: through the custom resolver (once per
 * name), or contained in the package's folder (once per file, at most
 * `limit` bytes).  `item` names it in errors ("sharedClips").  The
 * descriptor itself (`top`) is the file the caller named: it is not held
 * to the folder, only opened as every file is (regular files only).
 */
static mn_status fetch(loader *l, const char *item, const char *src, uint64_t limit, bool top,
                       mn_bytes *out, mn_error *err)
{
    mni_files *files = &l->files;
    const char *checked = src;
    /*
     * The shared clip pack lies beside the packages (character-formats.md:
     * its src may begin with "../"): one leading "../" reaches the folder
     * that holds the package's folder, and no further unless the caller
     * gave a root.
     */
    if (!l->o.resolver.root && strcmp(item, "sharedClips") == 0 && strncmp(src, "../", 3) == 0) {
        checked = src + 3;
        files = &l->batch;
    }
    mn_status st = top ? MN_OK : mni_name_check(checked, l->o.resolver.root != NULL, item, err);
    if (st != MN_OK)
        return st;
    if (l->o.resolver.read)
        st = fetch_resolved(l, src, out, err);
    else if (top)
        st = mni_files_read_top(files, src, item, out, err);
    else
        st = mni_files_read(files, src, item, limit, out, NULL, err);
    if (st != MN_OK && err && err->code == MN_OK)
        mni_error_set(err, st, src, -1, "cannot read \"%s\"", src);
    else if (st != MN_OK && err)
        snprintf(err->path, sizeof err->path, "%s", src);  /* the reader's message, our file */
    return st;
}

/* The most a file is read: one byte past its stated size shows a mismatch without reading on. */
static uint64_t limit_of(const mn_character_file *f)
{
    return f->has_bytes && f->bytes < UINT64_MAX ? f->bytes + 1 : UINT64_MAX;
}

/* Size (when stated), then hash (when stated). */
static mn_status check(const mn_character_file *f, mn_bytes b, mn_error *err)
{
    if (f->has_bytes && b.size > f->bytes)
        return mni_error_set(err, MN_COUNT_MISMATCH, f->name, -1,
                             "%s (\"%s\") is more than %llu bytes, what character.json says",
                             f->name, f->src, (unsigned long long)f->bytes);
    if (f->has_bytes && b.size != f->bytes)
        return mni_error_set(err, MN_COUNT_MISMATCH, f->name, -1,
                             "%s (\"%s\") is %zu bytes; character.json says %llu", f->name,
                             f->src, b.size, (unsigned long long)f->bytes);
    if (f->sha256[0]) {
        char got[65];
        mn_sha256_hex(b.data, b.size, got);
        if (strcmp(got, f->sha256) != 0)
            return mni_error_set(err, MN_INVALID_VALUE, f->name, -1,
                                 "sha256 of %s (\"%s\") is %s, expected %s", f->name, f->src,
                                 got, f->sha256);
    }
    return MN_OK;
}

static void progress(loader *l, uint64_t bytes)
{
    l->loaded += bytes;
    l->p->c.loaded_bytes = l->loaded;
    l->told_equal = l->loaded == l->total;
    if (l->o.progress)
        l->o.progress(l->o.progress_user, l->loaded, l->total);
}

/* Fetch, check, tell progress (whatever the check said).  A read failure tells nothing: nothing came. */
static mn_status load_file(loader *l, const mn_character_file *f, mn_bytes *out, mn_error *err)
{
    mn_status st = fetch(l, f->name, f->src, limit_of(f), false, out, err);
    if (st != MN_OK)
        return st;
    st = check(f, *out, err);
    progress(l, out->size);
    if (st != MN_OK)
        *out = (mn_bytes){0};
    return st;
}

static void warn(loader *l, const char *name, const mn_error *why)
{
    mn_character *c = &l->p->c;
    if (c->warning_count == MAX_WARNINGS)
        return;
    mn_character_warning *w = &l->p->warnings[c->warning_count++];
    snprintf(w->name, sizeof w->name, "%s", name);
    w->code = why->code;
    snprintf(w->message, sizeof w->message, "%.40s dropped: %.200s", name, why->message);
}

/* The record of part `name` dropped for a malformed entry in character.json; NULL when it was not. */
static const mn_character_warning *dropped(const mn_character_descriptor *d, const char *name)
{
    for (uint32_t i = 0; i < d->dropped_count; i++)
        if (strcmp(d->dropped[i].name, name) == 0)
            return &d->dropped[i];
    return NULL;
}

/* Say that the descriptor dropped part `name`, if it did: true when it did. */
static bool warn_dropped(loader *l, const char *name)
{
    const mn_character_warning *w = dropped(l->p->descriptor, name);
    mn_character *c = &l->p->c;
    if (w && c->warning_count < MAX_WARNINGS)
        l->p->warnings[c->warning_count++] = *w;
    return w != NULL;
}

/* ---- the plan: sizes stated before anything is read -------------------------------- */

/* The size stated for src: its own `bytes`, else package.files', else 0. */
static uint64_t stated(const mn_character_descriptor *d, const mn_character_file *f)
{
    if (f->has_bytes)
        return f->bytes;
    for (uint32_t i = 0; i < d->package_file_count; i++)
        if (strcmp(d->package_files[i].src, f->src) == 0)
            return d->package_files[i].bytes;
    return 0;
}

static bool listed(const mn_character_descriptor *d, const char *path)
{
    for (uint32_t i = 0; i < d->package_file_count; i++)
        if (strcmp(d->package_files[i].src, path) == 0)
            return true;
    return false;
}

static const mn_character_file mouth_file = {"mouth_hidden.bin", "mouth_hidden.bin", "", 0, false};
static const mn_character_file old_corrective = {"corrective", "corrective/index.json", "", 0,
                                                 false};

/* The corrective index this load fetches: the declared one, or an older package's folder. */
static const mn_character_file *corrective_file(const loader *l)
{
    const mn_character_descriptor *d = l->p->descriptor;
    if (l->o.skip_corrective || dropped(d, "corrective"))
        return NULL;
    return d->has_corrective ? &d->corrective_index : &old_corrective;
}

static uint64_t plan_total(const loader *l)
{
    const mn_character_descriptor *d = l->p->descriptor;
    uint64_t total = 0;
    for (uint32_t i = 0; i < d->file_count; i++)
        total += stated(d, &d->files[i]);
    if (d->has_shared_clips && !l->o.skip_shared_clips)
        total += stated(d, &d->shared_clips);
    if (d->has_face && !l->o.skip_face)
        total += stated(d, &d->face_table);
    if (corrective_file(l)) {
        total += stated(d, corrective_file(l));
        for (uint32_t i = 0; i < d->package_file_count; i++)
            if (strncmp(d->package_files[i].src, "corrective/", 11) == 0 &&
                strcmp(d->package_files[i].src, corrective_file(l)->src) != 0)
                total += d->package_files[i].bytes;
    }
    if (!l->o.skip_mouth && !dropped(d, mouth_file.src))
        total += stated(d, &mouth_file);
    return total;
}

/* ---- the required parts --------------------------------------------------------------- */

/* Prefix a reader's error with the file it came from (err->path names the file). */
static mn_status in_file(mn_error *err, mn_status st, const char *name)
{
    if (st != MN_OK && err) {
        char message[sizeof err->message];
        snprintf(message, sizeof message, "%.40s: %.200s", name, err->message);
        memcpy(err->message, message, sizeof message);
        snprintf(err->path, sizeof err->path, "%s", name);
    }
    return st;
}

static mn_status read_parts(loader *l, const mn_character_file *f, mn_bytes b, mn_error *err)
{
    mn_character *c = &l->p->c;
    const mn_character_descriptor *d = l->p->descriptor;
    mn_status st = MN_OK;
    if (strcmp(f->name, "character.ply") == 0) {
        mn_splat_read_options o = {l->o.allocator, d->splat_count};
        st = mn_splat_ply_read(b.data, b.size, &o, &c->splats, err);
    } else if (strcmp(f->name, "bindings.bin") == 0) {
        mn_splat_bindings_read_options o = {l->o.allocator, d->splat_count, d->joint_count};
        st = mn_splat_bindings_read(b.data, b.size, &o, &c->bindings, err);
    } else if (strcmp(f->name, "skeleton.json") == 0) {
        c->skeleton_json = b;   /* read once every file is in: see read_body */
    } else if (strcmp(f->name, "clips.json") == 0) {
        c->clips_json = b;
    } else if (strlen(f->name) > 7 && strcmp(f->name + strlen(f->name) - 7, ".aosrig") == 0) {
        mn_aosrig_read_options o = {.allocator = l->o.allocator};
        st = mn_aosrig_read_memory(b.data, b.size, &o, &c->head, err);
        if (st == MN_OK && c->head->header.vertex_count != d->head_vertex_count)
            st = mni_error_set(err, MN_COUNT_MISMATCH, f->name, -1,
                               "the head has %u vertices; headVertexCount is %u",
                               c->head->header.vertex_count, d->head_vertex_count);
    }
    return in_file(err, st, f->name);
}

/* The shared clip pack: through the caller's cache (read once for every character), or owned. */
static mn_status read_shared_clips(loader *l, mn_error *err)
{
    mn_character *c = &l->p->c;
    const mn_bytes b = c->shared_clips_json;
    const mn_allocator *a = &l->o.allocator;
    mn_status st;
    if (l->o.clip_cache) {
        const char *src = l->p->descriptor->shared_clips.src;
        size_t n = (l->base_dir ? strlen(l->base_dir) : 0) + strlen(src) + 2;
        char *key = mni_arena_alloc(&l->p->arena, n, 1);
        if (!key)
            return mni_oom(err, NULL);
        snprintf(key, n, "%s%s%s", l->base_dir ? l->base_dir : "", l->base_dir ? "/" : "", src);
        st = mn_soma_clip_cache_acquire(l->o.clip_cache, key, b.data, b.size, c->skeleton,
                                        &c->shared_clips, err);
        if (st == MN_OK)
            l->p->clip_cache = l->o.clip_cache;
    } else {
        mn_soma_clips *own = NULL;
        st = mn_soma_clips_read(b.data, b.size, c->skeleton, a, &own, err);
        c->shared_clips = own;
    }
    return in_file(err, st, "sharedClips");
}

/* The body: the skeleton (names = jointNames), then the package's clips and the shared pack. */
static mn_status read_body(loader *l, mn_error *err)
{
    mn_character *c = &l->p->c;
    const mn_character_descriptor *d = l->p->descriptor;
    const mn_allocator *a = &l->o.allocator;
    mn_status st = mn_soma_skeleton_read(c->skeleton_json.data, c->skeleton_json.size,
                                         d->joint_names, d->joint_count, a, &c->skeleton, err);
    st = in_file(err, st, "skeleton.json");
    if (st == MN_OK)
        st = in_file(err, mn_soma_clips_read(c->clips_json.data, c->clips_json.size, c->skeleton,
                                             a, &c->clips, err),
                     "clips.json");
    if (st == MN_OK && c->shared_clips_json.data)
        st = read_shared_clips(l, err);
    return st;
}

static mn_status load_required(loader *l, mn_error *err)
{
    const mn_character_descriptor *d = l->p->descriptor;
    mn_bytes *data = mni_arena_calloc(&l->p->arena, d->file_count, sizeof *data, 8);
    if (!data)
        return mni_oom(err, NULL);
    l->p->c.file_data = data;
    for (uint32_t i = 0; i < d->file_count; i++) {
        mn_status st = load_file(l, &d->files[i], &data[i], err);
        if (st == MN_OK)
            st = read_parts(l, &d->files[i], data[i], err);
        if (st != MN_OK)
            return st;
    }
    mn_status st = mn_splat_ply_to_character(d->ply_to_character, l->p->c.ply_translation, err);
    if (st == MN_OK && d->has_shared_clips && !l->o.skip_shared_clips)
        st = load_file(l, &d->shared_clips, &l->p->c.shared_clips_json, err);
    if (st == MN_OK)
        st = read_body(l, err);
    return st;
}

/* ---- the optional parts --------------------------------------------------------------- */

static void load_face(loader *l)
{
    const mn_character_descriptor *d = l->p->descriptor;
    mn_character *c = &l->p->c;
    if (l->o.skip_face || warn_dropped(l, "face.arkit") || !d->has_face)
        return;
    mn_error why;
    mni_error_clear(&why);
    mn_bytes b = {0};
    mn_status st = load_file(l, &d->face_table, &b, &why);
    if (st == MN_OK && !c->head)
        st = mni_error_set(&why, MN_MISSING_PROPERTY, "face.arkit", -1,
                           "the package has no head pack to drive");
    if (st == MN_OK) {
        mn_arkit_fitted_options o = {l->o.allocator};
        st = mn_arkit_fitted_map_create(&c->head->header.head_ext, d->face_json,
                                        strlen(d->face_json), b.data, b.size, &o, &c->face_map,
                                        &why);
    }
    if (st != MN_OK)
        warn(l, "face.arkit", &why);
}

/*
 * An optional file kept as bytes: dropped with a warning when it fails, and
 * silently absent when it cannot be read and nothing says it should be
 * there (`expected` false).
 */
static void load_optional(loader *l, const mn_character_file *f, bool expected, mn_bytes *out)
{
    mn_error why;
    mni_error_clear(&why);
    mn_bytes b = {0};
    mn_status st = fetch(l, f->name, f->src, limit_of(f), false, &b, &why);
    if (st != MN_OK) {
        if (expected)
            warn(l, f->src, &why);
        return;
    }
    st = check(f, b, &why);
    progress(l, b.size);
    if (st != MN_OK) {
        warn(l, f->src, &why);
        return;
    }
    *out = b;
}

/* A correction's file, its hash compared (case-insensitively) when the index gives one. */
static mn_status load_correction_file(loader *l, const char *file, const char *sha256,
                                      mn_bytes *out, mn_error *why)
{
    char src[512];
    snprintf(src, sizeof src, "corrective/%s", file);
    mn_character_file f = {src, src, "", 0, false};
    if (sha256) {
        size_t n = strlen(sha256) < 64 ? strlen(sha256) : 64;
        for (size_t i = 0; i < n; i++)
            f.sha256[i] = (char)(sha256[i] >= 'A' && sha256[i] <= 'Z' ? sha256[i] + 32 : sha256[i]);
        f.sha256[n] = '\0';
        if (n == 0)
            snprintf(f.sha256, sizeof f.sha256, "-");  /* an empty hash matches nothing */
    }
    mn_status st = fetch(l, src, src, UINT64_MAX, false, out, why);
    if (st != MN_OK)
        return st;
    st = check(&f, *out, why);
    progress(l, out->size);
    return st;
}

static void drop_corrective(loader *l, const char *name, const mn_error *why)
{
    mn_character *c = &l->p->c;
    warn(l, name, why);
    mn_corrective_index_free(c->corrective);
    c->corrective = NULL;
    c->corrective_index_json = (mn_bytes){0};
    memset(c->corrective_files, 0, sizeof c->corrective_files);
}

/* The index, validated; then the played corrections' files.  Any failure drops the part whole. */
static void load_corrective(loader *l)
{
    const mn_character_descriptor *d = l->p->descriptor;
    mn_character *c = &l->p->c;
    if (l->o.skip_corrective || warn_dropped(l, "corrective"))
        return;
    const mn_character_file *index = corrective_file(l);
    load_optional(l, index, d->has_corrective || listed(d, index->src), &c->corrective_index_json);
    if (!c->corrective_index_json.data)
        return;
    mn_error why;
    mni_error_clear(&why);
    if (mn_corrective_index_read(c->corrective_index_json.data, c->corrective_index_json.size,
                                 d->splat_count, d->joint_names, d->joint_count, &l->o.allocator,
                                 &c->corrective, &why) != MN_OK) {
        drop_corrective(l, index->src, &why);
        return;
    }
    for (uint32_t k = 0; k < c->corrective->played_count; k++) {
        const mn_correction *corr = &c->corrective->corrections[k];
        for (int f = 0; f < MN_CORRECTIVE_FILE_COUNT; f++) {
            if (load_correction_file(l, corr->files[f], corr->sha256[f],
                                     &c->corrective_files[k][f], &why) != MN_OK) {
                char name[64];
                snprintf(name, sizeof name, "corrective/%.52s", corr->files[f]);
                drop_corrective(l, name, &why);
                return;
            }
        }
    }
    if (c->corrective->extra_warning) {
        mni_error_set(&why, MN_COUNT_MISMATCH, "corrections", -1,
                      "%u corrections; the first %u are played", c->corrective->correction_count,
                      c->corrective->played_count);
        warn(l, "corrective/index.json", &why);
    }
}

static void load_mouth(loader *l)
{
    const mn_character_descriptor *d = l->p->descriptor;
    mn_character *c = &l->p->c;
    if (l->o.skip_mouth || warn_dropped(l, mouth_file.src))
        return;
    load_optional(l, &mouth_file, listed(d, mouth_file.src), &c->mouth_hidden);
    if (!c->mouth_hidden.data)
        return;
    mn_error why;
    mni_error_clear(&why);
    if (mn_mouth_hidden_read(c->mouth_hidden.data, c->mouth_hidden.size, d->splat_count,
                             d->head_vertex_count, &l->o.allocator, &c->mouth, &why) != MN_OK) {
        warn(l, mouth_file.src, &why);
        c->mouth_hidden = (mn_bytes){0};
    }
}

static void load_optional_parts(loader *l)
{
    load_face(l);
    load_corrective(l);
    load_mouth(l);
}

/* ---- the load ---------------------------------------------------------------------- */

static mn_status read_descriptor(loader *l, const char *name, mn_error *err)
{
    mn_bytes json = {0};
    mn_status st = fetch(l, name, name, UINT64_MAX, true, &json, err);
    if (st == MN_OK)
        st = mn_character_descriptor_read(json.data, json.size, &l->o.allocator,
                                          &l->p->descriptor, err);
    l->p->c.descriptor = l->p->descriptor;
    return st;
}

MN_API mn_status mn_character_load(const char *base_dir, const char *descriptor_name,
                                   const mn_character_load_options *options,
                                   mn_character **out, mn_error *err)
{
    mni_error_clear(err);
    if (!out || !descriptor_name)
        return mni_fail(err, MN_INVALID_ARGUMENT, "out or descriptor_name is NULL");
    *out = NULL;
    loader l = {.base_dir = base_dir};
    if (options)
        l.o = *options;
    l.p = mni_alloc(&l.o.allocator, sizeof *l.p);
    if (!l.p)
        return mni_oom(err, NULL);
    memset(l.p, 0, sizeof *l.p);
    mni_arena_init(&l.p->arena, &l.o.allocator);
    l.p->c.priv_ = l.p;
    l.p->c.warnings = l.p->warnings;
    mni_files_init(&l.files, &l.p->arena, l.o.resolver.root, base_dir);
    const char *batch_root = l.o.resolver.root ? l.o.resolver.root : batch_folder(&l.p->arena, base_dir);
    if (!batch_root) {
        mn_character_free(&l.p->c);
        return mni_oom(err, NULL);
    }
    mni_files_init(&l.batch, &l.p->arena, batch_root, base_dir);

    mn_status st = read_descriptor(&l, descriptor_name, err);
    if (st == MN_OK) {
        l.total = plan_total(&l);
        st = load_required(&l, err);
    }
    if (st != MN_OK) {
        mn_character_free(&l.p->c);
        return st;
    }
    load_optional_parts(&l);
    if (!l.told_equal) {
        l.total = l.loaded;
        l.told_equal = true;
        if (l.o.progress)
            l.o.progress(l.o.progress_user, l.loaded, l.loaded);
    }
    *out = &l.p->c;
    return MN_OK;
}

MN_API void mn_character_free(mn_character *character)
{
    if (!character)
        return;
    struct mn_character_private *p = character->priv_;
    mn_splat_cloud_free(&p->c.splats);
    mn_splat_bindings_free(&p->c.bindings);
    mn_aosrig_free(p->c.head);
    mn_arkit_map_free(p->c.face_map);
    if (p->clip_cache)
        mn_soma_clip_cache_release(p->clip_cache, p->c.shared_clips);
    else
        mn_soma_clips_free((mn_soma_clips *)(uintptr_t)p->c.shared_clips);
    mn_soma_clips_free(p->c.clips);
    mn_soma_skeleton_free(p->c.skeleton);
    mn_corrective_index_free(p->c.corrective);
    mn_mouth_hidden_free(p->c.mouth);
    mn_character_descriptor_free(p->descriptor);
    mni_arena_release_holder(&p->arena, p, sizeof *p);
}

MN_API const mn_bytes *mn_character_file_data(const mn_character *character, const char *name)
{
    if (!character || !name || !character->file_data)
        return NULL;
    const mn_character_descriptor *d = character->descriptor;
    for (uint32_t i = 0; i < d->file_count; i++)
        if (strcmp(d->files[i].name, name) == 0)
            return &character->file_data[i];
    return NULL;
}
