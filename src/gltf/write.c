/*
 * The glTF writer's entry points: options, the two containers, streaming
 * the buffer to the sink, and writing files safely.
 *
 * The plan (gltf/write_plan.c) fixes every byte offset before anything is
 * written, and the JSON (gltf/write_json.c) is printed whole, so the GLB
 * header knows its lengths up front and the buffer can stream: accessor data
 * that is already laid out as glTF wants it (tightly packed, the common case
 * and nearly all of a big model's bytes) goes to the sink straight from the
 * model, without a copy; small pieces gather in a staging block so the sink
 * sees few, large calls; converted data (restrided, quantized) is produced a
 * block at a time.
 *
 * mn_gltf_write_file writes each file under a temporary name beside the
 * target (open with O_EXCL, so two writers never share one) and renames it
 * over the target only once everything is written.
 */
#define _POSIX_C_SOURCE 200809L

#include "gltf/write_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

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
        mn_status st = out_pad_to(o, base + acc->offset, 0);
        if (st == MN_OK)
            st = mni_gltf_write_accessor_bytes(acc, scratch, STAGE_SIZE, out_put, o);
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

    mn_status st = mni_gltf_write_json(w, bin_uri);
    if (st != MN_OK)
        return st;

    out_stream o = {sink, main_name, stage, 0, 0, w->err};
    if (!glb) {
        if ((st = out_put(&o, w->json.data, w->json.len)) != MN_OK || (st = out_flush(&o)) != MN_OK)
            return st;
        if (w->bin_size == 0)
            return MN_OK;
        out_stream b = {sink, bin_name, stage, 0, 0, w->err};
        return stream_bin(w, &b, scratch);
    }

    size_t json_padded = (w->json.len + 3u) & ~(size_t)3u;
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
    if ((st = out_put(&o, header, sizeof header)) != MN_OK || (st = out_put(&o, w->json.data, w->json.len)) != MN_OK ||
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
    mni_jstext_init(&w.json, &w.options.allocator);

    mn_status st = mni_gltf_write_plan(&w);
    if (st == MN_OK)
        st = write_outputs(&w, sink);
    mni_jstext_free(&w.json);
    mni_arena_release(&w.arena);
    return st;
}

/* ---- mn_gltf_write_file ----------------------------------------------------------------------------- */

/* One file being written under a temporary name. */
typedef struct temp_file {
    const char *final_path;
    char temp_path[4096 + 32];
    int fd;                      /* -1 when not open */
} temp_file;

typedef struct file_sink {
    const char *main_name;       /* the sink name of the .glb or .gltf */
    temp_file main, bin;
    int error;                   /* errno of the first failure, 0 when none */
    const char *failed_path;
} file_sink;

static const char *errno_text(int e, char *buf, size_t size)
{
    if (strerror_r(e, buf, size) != 0)
        snprintf(buf, size, "error %d", e);
    return buf;
}

/* Create "<final>.tmp<pid>-<n>" exclusively (mode 0666 less the umask, as the final file would be). */
static bool temp_open(temp_file *t)
{
    for (unsigned n = 0; n < 1000; n++) {
        snprintf(t->temp_path, sizeof t->temp_path, "%s.tmp%ld-%u", t->final_path, (long)getpid(), n);
        t->fd = open(t->temp_path, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (t->fd >= 0 || errno != EEXIST)
            return t->fd >= 0;
    }
    return false;
}

static bool file_sink_write(void *user, const char *name, const void *bytes, size_t size)
{
    file_sink *s = user;
    temp_file *t = strcmp(name, s->main_name) == 0 ? &s->main : &s->bin;
    if (t->fd < 0 && !temp_open(t)) {
        s->error = errno;
        s->failed_path = t->temp_path;
        return false;
    }
    const uint8_t *p = bytes;
    while (size > 0) {
        ssize_t n = write(t->fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            s->error = n < 0 ? errno : EIO;
            s->failed_path = t->temp_path;
            return false;
        }
        p += n;
        size -= (size_t)n;
    }
    return true;
}

/* Close a temporary file; true when it was closed cleanly (or was never opened). */
static bool temp_close(temp_file *t, file_sink *s)
{
    if (t->fd < 0)
        return true;
    int rc = close(t->fd);
    t->fd = -1;
    if (rc != 0 && s->error == 0) {
        s->error = errno;
        s->failed_path = t->temp_path;
    }
    return rc == 0;
}

static void temp_discard(temp_file *t)
{
    if (t->fd >= 0)
        close(t->fd);
    t->fd = -1;
    if (t->temp_path[0])
        unlink(t->temp_path);
    t->temp_path[0] = '\0';
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
    s.main.final_path = path;
    s.main.fd = -1;
    s.bin.final_path = bin_path;
    s.bin.fd = -1;

    mn_gltf_sink sink = {file_sink_write, &s};
    mn_status st = mn_gltf_write(model, &o, &sink, err);
    bool main_closed = temp_close(&s.main, &s);   /* both closed, whatever the first gives */
    bool closed = temp_close(&s.bin, &s) && main_closed;
    if (st == MN_OK && !closed)
        st = MN_IO;
    if (st == MN_OK) {
        /* The .bin first: a .gltf never names a .bin that is not there yet. */
        if (s.bin.temp_path[0] && rename(s.bin.temp_path, s.bin.final_path) != 0) {
            s.error = errno;
            s.failed_path = s.bin.final_path;
            st = MN_IO;
        } else {
            s.bin.temp_path[0] = '\0';
            if (rename(s.main.temp_path, s.main.final_path) != 0) {
                s.error = errno;
                s.failed_path = s.main.final_path;
                st = MN_IO;
            } else {
                s.main.temp_path[0] = '\0';
            }
        }
    }
    if (st == MN_IO && s.error) {
        char reason[128];
        const char *final = s.failed_path == s.bin.temp_path ? s.bin.final_path
                            : s.failed_path == s.main.temp_path ? s.main.final_path : s.failed_path;
        mni_fail(err, MN_IO, "cannot write %.200s: %s%s%.200s", final,
                 errno_text(s.error, reason, sizeof reason),
                 final != s.failed_path ? " (writing " : "",
                 final != s.failed_path ? s.failed_path : "");
        if (final != s.failed_path && strlen(err->message) + 1 < sizeof err->message)
            strcat(err->message, ")");
    }
    temp_discard(&s.main);
    temp_discard(&s.bin);
    return st;
}
