/*
 * The glTF writer's entry points: options, the two containers, streaming
 * the buffer to the sink, and writing files safely.
 *
 * The plan (gltf/write_plan.c) fixes every byte offset before anything is
 * written, and the JSON (gltf/write_json.c) is printed once to count it, so
 * the GLB header knows its lengths up front; then the JSON and the buffer
 * stream: accessor data that is already laid out as glTF wants it (tightly
 * packed, the common case and nearly all of a big model's bytes) goes to the
 * sink straight from the model, without a copy; small pieces (the JSON's
 * among them) gather in a staging block so the sink sees few, large calls;
 * converted data (restrided, quantized) is produced a block at a time.
 *
 * mn_gltf_write_file writes its files through one output set (io/output.c):
 * whole or not at all, the .bin and the .gltf replaced as one.
 */
#define _POSIX_C_SOURCE 200809L

#include "gltf/write_internal.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define STAGE_SIZE ((size_t)64 * 1024)

/* ---- the output stream ---------------------------------------------------------------------- */

typedef struct out_stream {
    const mn_gltf_sink *sink;
    const char *name;            /* the output being written */
    uint8_t *stage;
    size_t used;                 /* bytes waiting in stage */
    size_t written;              /* bytes of this output so far (staged included) */
    mn_error *err;
} out_stream;

static mn_status sink_write(out_stream *o, const void *bytes, size_t size)
{
    if (size == 0 || o->sink->write(o->sink->user, o->name, bytes, size))
        return MN_OK;
    return mni_fail(o->err, MN_IO, "the sink refused %zu bytes of %s", size, o->name);
}

static mn_status out_flush(out_stream *o)
{
    mn_status st = sink_write(o, o->stage, o->used);
    o->used = 0;
    return st;
}

/* Append bytes: large runs go to the sink directly, small ones gather in the stage. */
static mn_status out_put(void *ctx, const void *bytes, size_t size)
{
    out_stream *o = ctx;
    o->written += size;
    if (size >= STAGE_SIZE / 2) {
        mn_status st = out_flush(o);
        return st != MN_OK ? st : sink_write(o, bytes, size);
    }
    if (STAGE_SIZE - o->used < size) {
        mn_status st = out_flush(o);
        if (st != MN_OK)
            return st;
    }
    memcpy(o->stage + o->used, bytes, size);
    o->used += size;
    return MN_OK;
}

/* Append `value` bytes until the output is `size` bytes long (padding). */
static mn_status out_pad_to(out_stream *o, size_t size, uint8_t value)
{
    uint8_t fill[64];
    memset(fill, value, sizeof fill);
    while (o->written < size) {
        size_t n = size - o->written < sizeof fill ? size - o->written : sizeof fill;
        mn_status st = out_put(o, fill, n);
        if (st != MN_OK)
            return st;
    }
    return MN_OK;
}

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* The buffer's bytes, view after view, zero padding between them (offsets from the plan). */
static mn_status stream_bin(mn_gltf_writer *w, out_stream *o, uint8_t *scratch)
{
    size_t base = o->written;   /* where the buffer starts in this output */
    for (uint32_t i = 0; i < w->acc_count; i++) {
        const mn_wacc *acc = &w->accs[i];
        if (acc->source == MN_WSOURCE_MESHOPT)
            continue;   /* its group's bytes follow */
        mn_status st = out_pad_to(o, base + acc->offset, 0);
        if (st == MN_OK)
            st = mni_gltf_write_accessor_bytes(acc, scratch, STAGE_SIZE, out_put, o);
        if (st != MN_OK)
            return st;
    }
    for (uint32_t g = 0; g < w->group_count; g++) {
        mn_status st = out_pad_to(o, base + w->groups[g].offset, 0);
        if (st == MN_OK)
            st = out_put(o, w->groups[g].packed, w->groups[g].size);
        if (st != MN_OK)
            return st;
    }
    for (uint32_t i = 0; i < w->model->image_count; i++) {
        if (w->image_views[i] == MN_NONE)
            continue;
        const mn_image *img = &w->model->images[i];
        mn_status st = out_pad_to(o, base + w->image_offsets[i], 0);
        if (st == MN_OK)
            st = out_put(o, img->data, img->size);
        if (st != MN_OK)
            return st;
    }
    mn_status st = out_pad_to(o, base + w->bin_size, 0);
    return st != MN_OK ? st : out_flush(o);
}

/* ---- names ------------------------------------------------------------------------------------- */

static char *concat(mn_arena *arena, const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    char *s = mni_arena_alloc(arena, na + nb + 1, 1);
    if (s) {
        memcpy(s, a, na);
        memcpy(s + na, b, nb + 1);
    }
    return s;
}

/* A file name as a URI: every byte but A-Z a-z 0-9 - . _ ~ percent-encoded. */
static char *uri_of(mn_arena *arena, const char *name)
{
    size_t n = strlen(name);
    char *s = mni_arena_alloc(arena, 3 * n + 1, 1);
    if (!s)
        return NULL;
    char *d = s;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        if ((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-' ||
            *c == '.' || *c == '_' || *c == '~') {
            *d++ = (char)*c;
        } else {
            static const char hex[] = "0123456789ABCDEF";
            *d++ = '%';
            *d++ = hex[*c >> 4];
            *d++ = hex[*c & 15];
        }
    }
    *d = '\0';
    return s;
}

/* ---- mn_gltf_write ------------------------------------------------------------------------------- */

/* The JSON document printed into the stream: the `counted` bytes the first printing found. */
static mn_status put_json(mn_gltf_writer *w, out_stream *o, const char *bin_uri, size_t counted)
{
    size_t printed;
    mn_status st = mni_gltf_write_json(w, bin_uri, out_put, o, &printed);
    if (st == MN_OK && printed != counted)   /* the printer is a pure function of the plan */
        return mni_fail(w->err, MN_INVALID_ARGUMENT, "the glTF JSON printed %zu bytes, counted %zu", printed,
                        counted);
    return st;
}

static mn_status write_outputs(mn_gltf_writer *w, const mn_gltf_sink *sink)
{
    mn_arena *ar = &w->arena;
    const char *base = w->options.name && w->options.name[0] ? w->options.name : "model";
    bool glb = w->options.container == MN_GLTF_CONTAINER_GLB;
    char *main_name = concat(ar, base, glb ? ".glb" : ".gltf");
    char *bin_name = glb ? NULL : concat(ar, base, ".bin");
    char *bin_uri = glb || w->bin_size == 0 ? NULL : uri_of(ar, bin_name);
    uint8_t *stage = mni_arena_alloc(ar, STAGE_SIZE, 64);
    uint8_t *scratch = mni_arena_alloc(ar, STAGE_SIZE, 64);
    if (!main_name || (!glb && !bin_name) || (!glb && w->bin_size && !bin_uri) || !stage || !scratch)
        return mni_oom(w->err, "preparing the glTF output");

    size_t json_len;
    mn_status st = mni_gltf_write_json(w, bin_uri, NULL, NULL, &json_len);
    if (st != MN_OK)
        return st;

    out_stream o = {sink, main_name, stage, 0, 0, w->err};
    if (!glb) {
        if ((st = put_json(w, &o, bin_uri, json_len)) != MN_OK || (st = out_flush(&o)) != MN_OK)
            return st;
        if (w->bin_size == 0)
            return MN_OK;
        out_stream b = {sink, bin_name, stage, 0, 0, w->err};
        return stream_bin(w, &b, scratch);
    }

    size_t json_padded = (json_len + 3u) & ~(size_t)3u;
    uint64_t total = 12u + 8u + (uint64_t)json_padded + (w->bin_size ? 8u + (uint64_t)w->bin_size : 0u);
    if (total > UINT32_MAX)
        return mni_fail(w->err, MN_OVERFLOW,
                        "the GLB would be %llu bytes, more than its 32-bit length can say; "
                        "write .gltf + .bin instead",
                        (unsigned long long)total);
    uint8_t header[20];
    put_u32(header, 0x46546C67u);   /* "glTF" */
    put_u32(header + 4, 2u);
    put_u32(header + 8, (uint32_t)total);
    put_u32(header + 12, (uint32_t)json_padded);
    put_u32(header + 16, 0x4E4F534Au);   /* "JSON" */
    if ((st = out_put(&o, header, sizeof header)) != MN_OK || (st = put_json(w, &o, bin_uri, json_len)) != MN_OK ||
        (st = out_pad_to(&o, 20u + json_padded, ' ')) != MN_OK)
        return st;
    if (w->bin_size) {
        put_u32(header, (uint32_t)w->bin_size);
        put_u32(header + 4, 0x004E4942u);   /* "BIN\0" */
        if ((st = out_put(&o, header, 8)) != MN_OK)
            return st;
        return stream_bin(w, &o, scratch);
    }
    return out_flush(&o);
}

mn_status mn_gltf_write(const mn_model *model, const mn_gltf_write_options *options, const mn_gltf_sink *sink,
                        mn_error *err)
{
    mn_error local;
    if (!err)
        err = &local;
    mni_error_clear(err);
    if (!model || !sink || !sink->write)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_gltf_write needs a model and a sink with a write function");
    mn_gltf_writer w;
    memset(&w, 0, sizeof w);
    w.model = model;
    if (options)
        w.options = *options;
    w.err = err;
    mni_arena_init(&w.arena, &w.options.allocator);

    mn_status st = mni_gltf_write_plan(&w);
    if (st == MN_OK)
        st = write_outputs(&w, sink);
    mni_arena_release(&w.arena);
    return st;
}

/* ---- mn_gltf_write_file ----------------------------------------------------------------------------- */

/*
 * The files go through one output set (io/output.c): the .glb, or the .gltf
 * and its .bin, each to a temporary file beside its target, all fsynced
 * before either is renamed, the .bin (stage 0) before the .gltf that names
 * it (stage 1), so a failure anywhere leaves both old files as they were.
 */
typedef struct file_sink {
    const char *main_name;       /* the sink name of the .glb or .gltf */
    const char *main_path, *bin_path;
    mn_output set;
    uint32_t main, bin;          /* their files in the set; UINT32_MAX until written */
    mn_error io_err;             /* the set's error: mn_gltf_write's own says only "refused" */
} file_sink;

static bool file_sink_write(void *user, const char *name, const void *bytes, size_t size)
{
    file_sink *s = user;
    bool main = strcmp(name, s->main_name) == 0;
    uint32_t *file = main ? &s->main : &s->bin;
    if (*file == UINT32_MAX &&
        mni_output_add(&s->set, main ? s->main_path : s->bin_path, main ? 1u : 0u, file, &s->io_err) != MN_OK)
        return false;
    return mni_output_write(&s->set, *file, bytes, size, &s->io_err) == MN_OK;
}

/* "x.GLB" → GLB; "x.gltf" → GLTF; -1 otherwise.  *stem_len: length of the path without the extension. */
static int container_of(const char *path, size_t *stem_len)
{
    size_t n = strlen(path);
    if (n > 4 && strcasecmp(path + n - 4, ".glb") == 0) {
        *stem_len = n - 4;
        return MN_GLTF_CONTAINER_GLB;
    }
    if (n > 5 && strcasecmp(path + n - 5, ".gltf") == 0) {
        *stem_len = n - 5;
        return MN_GLTF_CONTAINER_GLTF;
    }
    return -1;
}

mn_status mn_gltf_write_file(const mn_model *model, const char *path, const mn_gltf_write_options *options,
                             mn_error *err)
{
    mn_error local;
    if (!err)
        err = &local;
    mni_error_clear(err);
    size_t stem_len = 0;
    int container = path ? container_of(path, &stem_len) : -1;
    if (!model || container < 0)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_gltf_write_file needs a model and a path ending in .glb or .gltf (got %.200s)",
                        path ? path : "no path");
    if (stem_len + 8 > 4096)
        return mni_fail(err, MN_INVALID_ARGUMENT, "the path is too long: %.200s...", path);

    /* dir/stem.ext: the outputs are named after stem; the .bin goes to dir/stem.bin. */
    char stem_path[4096], bin_path[4096 + 16];
    memcpy(stem_path, path, stem_len);
    stem_path[stem_len] = '\0';
    const char *slash = strrchr(stem_path, '/');
    const char *stem = slash ? slash + 1 : stem_path;
    snprintf(bin_path, sizeof bin_path, "%s.bin", stem_path);

    mn_gltf_write_options o;
    memset(&o, 0, sizeof o);
    if (options)
        o = *options;
    o.container = (mn_gltf_container)container;
    o.name = stem;
    /* The name mn_gltf_write gives the main output. */
    char name_with_ext[4096 + 16];
    snprintf(name_with_ext, sizeof name_with_ext, "%s%s", stem, container == MN_GLTF_CONTAINER_GLB ? ".glb" : ".gltf");

    file_sink s;
    memset(&s, 0, sizeof s);
    s.main_name = name_with_ext;
    s.main_path = path;
    s.bin_path = bin_path;
    s.main = s.bin = UINT32_MAX;
    mni_output_init(&s.set, &o.allocator);

    mn_gltf_sink sink = {file_sink_write, &s};
    mn_status st = mn_gltf_write(model, &o, &sink, err);
    if (st != MN_OK) {
        mni_output_abort(&s.set);
        if (s.io_err.code == MN_OK)
            return st;
        *err = s.io_err;
        return err->code;
    }
    return mni_output_commit(&s.set, err);
}
