/* Test support: GLB / .gltf inputs assembled in memory.  See glb_builder.h. */
#define _POSIX_C_SOURCE 200809L   /* mkdtemp */

#include "glb_builder.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Test support may not fail quietly: a test without its input is meaningless. */
static void *xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (!p) {
        fprintf(stderr, "glb_builder: out of memory (%zu bytes)\n", size);
        abort();
    }
    return p;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = xrealloc(NULL, n);
    memcpy(copy, s, n);
    return copy;
}

void gb_init(gb_builder *b)
{
    memset(b, 0, sizeof *b);
}

void gb_free(gb_builder *b)
{
    free(b->json);
    free(b->bin);
    gb_init(b);
}

void gb_blob_free(gb_blob *blob)
{
    free(blob->data);
    blob->data = NULL;
    blob->size = 0;
}

/* ---- JSON text ------------------------------------------------------------ */

static void json_reserve(gb_builder *b, size_t extra)
{
    size_t need = b->json_len + extra + 1;
    if (need <= b->json_cap)
        return;
    size_t cap = b->json_cap ? b->json_cap : 256;
    while (cap < need)
        cap *= 2;
    b->json = xrealloc(b->json, cap);
    b->json_cap = cap;
}

void gb_json_raw(gb_builder *b, const char *text)
{
    size_t n = strlen(text);
    json_reserve(b, n);
    memcpy(b->json + b->json_len, text, n + 1);
    b->json_len += n;
}

void gb_jsonv(gb_builder *b, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    if (n < 0)
        abort();
    json_reserve(b, (size_t)n);
    char *at = b->json + b->json_len;
    vsnprintf(at, (size_t)n + 1, fmt, again);
    va_end(again);
    for (int i = 0; i < n; i++)
        if (at[i] == '\'')
            at[i] = '"';
    b->json_len += (size_t)n;
}

void gb_json(gb_builder *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gb_jsonv(b, fmt, ap);
    va_end(ap);
}

const char *gb_json_text(const gb_builder *b)
{
    return b->json ? b->json : "";
}

size_t gb_json_size(const gb_builder *b)
{
    return b->json_len;
}

/* ---- binary blob ----------------------------------------------------------- */

static uint8_t *bin_grow(gb_builder *b, size_t extra)
{
    size_t need = b->bin_len + extra;
    if (need > b->bin_cap) {
        size_t cap = b->bin_cap ? b->bin_cap : 256;
        while (cap < need)
            cap *= 2;
        b->bin = xrealloc(b->bin, cap);
        b->bin_cap = cap;
    }
    uint8_t *at = b->bin + b->bin_len;
    b->bin_len = need;
    return at;
}

size_t gb_bin_size(const gb_builder *b)
{
    return b->bin_len;
}

const uint8_t *gb_bin_data(const gb_builder *b)
{
    return b->bin;
}

size_t gb_bin_zeros(gb_builder *b, size_t count)
{
    size_t offset = b->bin_len;
    memset(bin_grow(b, count), 0, count);
    return offset;
}

size_t gb_bin_align(gb_builder *b, size_t align)
{
    if (align > 1 && b->bin_len % align)
        gb_bin_zeros(b, align - b->bin_len % align);
    return b->bin_len;
}

size_t gb_bin_bytes(gb_builder *b, const void *data, size_t size)
{
    size_t offset = b->bin_len;
    if (size)
        memcpy(bin_grow(b, size), data, size);
    return offset;
}

/* Little-endian store of the low `size` bytes of v. */
static void put_le(uint8_t *at, uint32_t v, size_t size)
{
    for (size_t i = 0; i < size; i++)
        at[i] = (uint8_t)(v >> (8 * i));
}

static size_t append_le(gb_builder *b, const uint32_t *bits, size_t count, size_t size)
{
    gb_bin_align(b, size);
    size_t offset = b->bin_len;
    uint8_t *at = bin_grow(b, count * size);
    for (size_t i = 0; i < count; i++)
        put_le(at + i * size, bits[i], size);
    return offset;
}

/* Each typed appender widens to 32-bit patterns, then stores little-endian. */
#define GB_APPENDER_(fn, type, size, to_bits)                             \
    size_t fn(gb_builder *b, const type *v, size_t count)                 \
    {                                                                     \
        uint32_t *bits = xrealloc(NULL, count * sizeof *bits);            \
        for (size_t i = 0; i < count; i++)                                \
            bits[i] = to_bits(v[i]);                                      \
        size_t offset = append_le(b, bits, count, size);                  \
        free(bits);                                                       \
        return offset;                                                    \
    }

static uint32_t bits_i8(int8_t v) { return (uint8_t)v; }
static uint32_t bits_u8(uint8_t v) { return v; }
static uint32_t bits_i16(int16_t v) { return (uint16_t)v; }
static uint32_t bits_u16(uint16_t v) { return v; }
static uint32_t bits_u32(uint32_t v) { return v; }
static uint32_t bits_f32(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

GB_APPENDER_(gb_bin_i8v, int8_t, 1, bits_i8)
GB_APPENDER_(gb_bin_u8v, uint8_t, 1, bits_u8)
GB_APPENDER_(gb_bin_i16v, int16_t, 2, bits_i16)
GB_APPENDER_(gb_bin_u16v, uint16_t, 2, bits_u16)
GB_APPENDER_(gb_bin_u32v, uint32_t, 4, bits_u32)
GB_APPENDER_(gb_bin_f32v, float, 4, bits_f32)

/* ---- containers ------------------------------------------------------------ */

static size_t pad4(size_t n)
{
    return (n + 3) & ~(size_t)3;
}

gb_blob gb_glb_custom(const gb_layout *layout)
{
    size_t total = 12;
    for (size_t i = 0; i < layout->chunk_count; i++) {
        const gb_chunk *c = &layout->chunks[i];
        total += 8 + (c->pad ? pad4(c->size) : c->size);
    }
    gb_blob out = { xrealloc(NULL, total), total };
    uint8_t *p = out.data;
    put_le(p, layout->magic, 4);
    put_le(p + 4, layout->version, 4);
    put_le(p + 8, (uint32_t)(layout->declared_length == GB_AUTO ? (int64_t)total
                                                                 : layout->declared_length), 4);
    p += 12;
    for (size_t i = 0; i < layout->chunk_count; i++) {
        const gb_chunk *c = &layout->chunks[i];
        size_t written = c->pad ? pad4(c->size) : c->size;
        put_le(p, (uint32_t)(c->declared_length == GB_AUTO ? (int64_t)written
                                                            : c->declared_length), 4);
        put_le(p + 4, c->type, 4);
        if (c->size)
            memcpy(p + 8, c->data, c->size);
        memset(p + 8 + c->size, c->type == GB_CHUNK_JSON ? ' ' : 0, written - c->size);
        p += 8 + written;
    }
    return out;
}

gb_blob gb_glb(const gb_builder *b)
{
    gb_chunk chunks[2] = {
        { GB_CHUNK_JSON, gb_json_text(b), b->json_len, true, GB_AUTO },
        { GB_CHUNK_BIN, b->bin, b->bin_len, true, GB_AUTO },
    };
    gb_layout layout = { GB_MAGIC, 2, GB_AUTO, chunks, b->bin_len ? 2u : 1u };
    return gb_glb_custom(&layout);
}

size_t gb_glb_bin_offset(const gb_builder *b)
{
    return 12 + 8 + pad4(b->json_len) + 8;
}

/* ---- data: URIs --------------------------------------------------------------- */

char *gb_base64(const void *data, size_t size)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const uint8_t *in = data;
    char *out = xrealloc(NULL, (size + 2) / 3 * 4 + 1);
    char *o = out;
    for (size_t i = 0; i < size; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < size)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < size)
            v |= in[i + 2];
        *o++ = alphabet[(v >> 18) & 63];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = i + 1 < size ? alphabet[(v >> 6) & 63] : '=';
        *o++ = i + 2 < size ? alphabet[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

char *gb_data_uri(const gb_builder *b)
{
    static const char prefix[] = "data:application/octet-stream;base64,";
    char *b64 = gb_base64(b->bin, b->bin_len);
    size_t n = strlen(b64);
    char *uri = xrealloc(NULL, sizeof prefix + n);
    memcpy(uri, prefix, sizeof prefix - 1);
    memcpy(uri + sizeof prefix - 1, b64, n + 1);
    free(b64);
    return uri;
}

/* ---- files on disk -------------------------------------------------------------- */

bool gb_tempdir_create(gb_tempdir *dir)
{
    memset(dir, 0, sizeof *dir);
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    int n = snprintf(dir->path, sizeof dir->path, "%s/mn_test_XXXXXX", base);
    if (n < 0 || (size_t)n >= sizeof dir->path)
        return false;
    if (!mkdtemp(dir->path)) {
        dir->path[0] = '\0';
        return false;
    }
    return true;
}

/* Record a created entry so gb_tempdir_remove can undo it; returns its path. */
static const char *remember(gb_tempdir *dir, const char *full, bool is_dir)
{
    if (dir->entry_count == GB_TEMPDIR_MAX_ENTRIES) {
        fprintf(stderr, "glb_builder: more than %d temp entries\n", GB_TEMPDIR_MAX_ENTRIES);
        abort();
    }
    dir->entries[dir->entry_count] = xstrdup(full);
    dir->entry_is_dir[dir->entry_count] = is_dir;
    return dir->entries[dir->entry_count++];
}

static bool join(char *out, size_t cap, const gb_tempdir *dir, const char *name)
{
    int n = snprintf(out, cap, "%s/%s", dir->path, name);
    return n >= 0 && (size_t)n < cap;
}

const char *gb_tempdir_mkdir(gb_tempdir *dir, const char *name)
{
    char full[1024];
    if (!dir->path[0] || !join(full, sizeof full, dir, name) || mkdir(full, 0700) != 0)
        return NULL;
    return remember(dir, full, true);
}

const char *gb_tempdir_write(gb_tempdir *dir, const char *name, const void *data, size_t size)
{
    char full[1024];
    if (!dir->path[0] || !join(full, sizeof full, dir, name))
        return NULL;
    FILE *f = fopen(full, "wb");
    if (!f)
        return NULL;
    const char *path = remember(dir, full, false);
    bool ok = (size == 0 || fwrite(data, 1, size, f) == size);
    if (fclose(f) != 0 || !ok)
        return NULL;
    return path;
}

const char *gb_tempdir_write_gltf(gb_tempdir *dir, const gb_builder *b, const char *gltf_name,
                                  const char *bin_name)
{
    if (!gb_tempdir_write(dir, bin_name, b->bin, b->bin_len))
        return NULL;
    return gb_tempdir_write(dir, gltf_name, gb_json_text(b), b->json_len);
}

void gb_tempdir_remove(gb_tempdir *dir)
{
    while (dir->entry_count > 0) {
        size_t i = --dir->entry_count;
        if (dir->entry_is_dir[i])
            rmdir(dir->entries[i]);
        else
            unlink(dir->entries[i]);
        free(dir->entries[i]);
        dir->entries[i] = NULL;
    }
    if (dir->path[0])
        rmdir(dir->path);
    dir->path[0] = '\0';
}

/* ---- a sample model ---------------------------------------------------------- */

/* One tightly packed section of the blob, becoming one buffer view. */
typedef struct sample_view {
    size_t offset, size;
} sample_view;

static sample_view view_since(const gb_builder *b, size_t offset)
{
    sample_view v = { offset, b->bin_len - offset };
    return v;
}

void gb_sample_model(gb_builder *b, bool data_uri)
{
    sample_view v[12];
    size_t o;

    o = gb_bin_f32(b, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0);
    v[0] = view_since(b, o);                                         /* POSITION */
    o = gb_bin_f32(b, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1);
    v[1] = view_since(b, o);                                         /* NORMAL */
    o = gb_bin_f32(b, 0, 0, 1, 0, 1, 1, 0, 1);
    v[2] = view_since(b, o);                                         /* TEXCOORD_0 */
    o = gb_bin_u8(b, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0);
    v[3] = view_since(b, o);                                         /* JOINTS_0 */
    o = gb_bin_f32(b, 1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 0.25f, 0.75f, 0, 0, 0, 1, 0, 0);
    v[4] = view_since(b, o);                                         /* WEIGHTS_0 */
    o = gb_bin_u16(b, 0, 1, 2, 0, 2, 3);
    v[5] = view_since(b, o);                                         /* indices */
    o = gb_bin_f32(b, 0, 0, 0.5f, 0, 0, 0.5f, 0, 0, 0.5f, 0, 0, 0.5f);
    v[6] = view_since(b, o);                                         /* morph POSITION */
    o = gb_bin_f32(b, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                   1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1);
    v[7] = view_since(b, o);                                         /* inverse binds */
    o = gb_bin_f32(b, 0, 0.5f, 1);
    v[8] = view_since(b, o);                                         /* key times */
    o = gb_bin_f32(b, 0, 1, 0, 0, 1.5f, 0, 0, 2, 0);
    v[9] = view_since(b, o);                                         /* translations */
    o = gb_bin_f32(b, 0, 0, 0, 1, 0, 0, 0.70710677f, 0.70710677f, 0, 0, 1, 0);
    v[10] = view_since(b, o);                                        /* rotations */
    o = gb_bin_u8(b, 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 0);
    v[11] = view_since(b, o);                                        /* image bytes */
    size_t sparse_idx = gb_bin_u8(b, 2);
    size_t sparse_val = gb_bin_f32(b, 9);
    gb_bin_align(b, 4);

    char *uri = data_uri ? gb_data_uri(b) : NULL;
    gb_json(b, "{'asset':{'version':'2.0','generator':'glb_builder sample'},");
    gb_json(b, "'buffers':[{'byteLength':%zu%s%s%s}],", b->bin_len, uri ? ",'uri':'" : "",
            uri ? uri : "", uri ? "'" : "");
    free(uri);
    gb_json(b, "'bufferViews':[");
    for (int i = 0; i < 12; i++)
        gb_json(b, "{'buffer':0,'byteOffset':%zu,'byteLength':%zu},", v[i].offset, v[i].size);
    gb_json(b, "{'buffer':0,'byteOffset':%zu,'byteLength':1},", sparse_idx);
    gb_json(b, "{'buffer':0,'byteOffset':%zu,'byteLength':4}],", sparse_val);
    gb_json(b, "'accessors':["
               "{'bufferView':0,'componentType':5126,'count':4,'type':'VEC3',"
               "'min':[0,0,0],'max':[1,1,0]},"
               "{'bufferView':1,'componentType':5126,'count':4,'type':'VEC3'},"
               "{'bufferView':2,'componentType':5126,'count':4,'type':'VEC2'},"
               "{'bufferView':3,'componentType':5121,'count':4,'type':'VEC4'},"
               "{'bufferView':4,'componentType':5126,'count':4,'type':'VEC4'},"
               "{'bufferView':5,'componentType':5123,'count':6,'type':'SCALAR'},"
               "{'bufferView':6,'componentType':5126,'count':4,'type':'VEC3',"
               "'min':[0,0,0.5],'max':[0,0,0.5]},"
               "{'bufferView':7,'componentType':5126,'count':2,'type':'MAT4'},"
               "{'bufferView':8,'componentType':5126,'count':3,'type':'SCALAR','min':[0],'max':[1]},"
               "{'bufferView':9,'componentType':5126,'count':3,'type':'VEC3'},"
               "{'bufferView':10,'componentType':5126,'count':3,'type':'VEC4'},"
               "{'componentType':5126,'count':3,'type':'SCALAR','sparse':{'count':1,"
               "'indices':{'bufferView':12,'componentType':5121},'values':{'bufferView':13}}}],");
    gb_json(b, "'meshes':[{'name':'quad','primitives':[{'attributes':{'POSITION':0,'NORMAL':1,"
               "'TEXCOORD_0':2,'JOINTS_0':3,'WEIGHTS_0':4},'indices':5,'material':0,"
               "'targets':[{'POSITION':6}]}],'weights':[0.5],"
               "'extras':{'targetNames':['lift']}}],");
    gb_json(b, "'materials':[{'name':'skin','pbrMetallicRoughness':{'baseColorFactor':[1,0.5,0.25,1],"
               "'baseColorTexture':{'index':0}},'doubleSided':true,'extras':{'kind':'test'}}],"
               "'textures':[{'source':0,'sampler':0}],'samplers':[{'magFilter':9729}],"
               "'images':[{'bufferView':11,'mimeType':'image/png'}],");
    gb_json(b, "'cameras':[{'type':'perspective','perspective':{'yfov':0.8,'znear':0.1,'zfar':100}}],");
    gb_json(b, "'nodes':[{'name':'root','children':[1],'mesh':0,'skin':0,'translation':[0,0,1]},"
               "{'name':'joint','translation':[0,1,0],'extras':{'bone':true}},"
               "{'camera':0,'matrix':[1,0,0,0,0,1,0,0,0,0,1,0,0,2,5,1]}],");
    gb_json(b, "'skins':[{'joints':[0,1],'inverseBindMatrices':7,'skeleton':0}],");
    gb_json(b, "'animations':[{'name':'wave','channels':["
               "{'sampler':0,'target':{'node':1,'path':'translation'}},"
               "{'sampler':1,'target':{'node':1,'path':'rotation'}}],"
               "'samplers':[{'input':8,'output':9},"
               "{'input':8,'output':10,'interpolation':'STEP'}]}],");
    gb_json(b, "'scenes':[{'nodes':[0,2]}],'scene':0}");
}
