/*
 * The 3D Gaussian Splatting PLY (binary little-endian)
 * into packed float arrays.  The header is parsed line by line into a
 * property table (name, type, byte offset in the vertex); the required
 * properties are then located by name, so their order in the file is free,
 * and every other scalar property is skipped by its size.
 */
#include <marionette/character/splat.h>

#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A header longer than this is not a splat PLY (a real one is well under 4 KB). */
#define PLY_HEADER_MAX (1u << 16)
/* More properties than this cannot be a 3DGS vertex (62 with degree-3 harmonics). */
#define PLY_PROPERTY_MAX 256u
/* f_rest_N coefficients kept at most (degree 3 is 45). */
#define PLY_REST_MAX 192u

typedef struct ply_property {
    char name[32];
    uint32_t size;       /* bytes */
    bool is_float;       /* float / float32 */
    uint32_t offset;     /* within the vertex */
} ply_property;

typedef struct ply_header {
    ply_property props[PLY_PROPERTY_MAX];
    uint32_t prop_count;
    uint32_t stride;         /* bytes a vertex */
    uint64_t count;
    size_t data_offset;      /* first byte after "end_header\n" */
    bool seen_vertex;
} ply_header;

typedef struct type_size {
    const char *name;
    uint32_t size;
} type_size;

static const type_size ply_types[] = {
    {"char", 1},   {"uchar", 1},  {"int8", 1},   {"uint8", 1},  {"short", 2},
    {"ushort", 2}, {"int16", 2},  {"uint16", 2}, {"int", 4},    {"uint", 4},
    {"int32", 4},  {"uint32", 4}, {"float", 4},  {"float32", 4}, {"double", 8},
    {"float64", 8},
};

/* Split the next whitespace-separated word of line[*pos..len) into word (NUL-terminated). */
static bool next_word(const char *line, size_t len, size_t *pos, char *word, size_t word_size)
{
    size_t i = *pos;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    size_t start = i;
    while (i < len && line[i] != ' ' && line[i] != '\t')
        i++;
    *pos = i;
    if (i == start || i - start >= word_size)
        return false;
    memcpy(word, line + start, i - start);
    word[i - start] = '\0';
    return true;
}

static mn_status bad_line(mn_error *err, mn_status code, size_t line_start, const char *what,
                          const char *line, size_t len)
{
    int shown = (int)(len > 60 ? 60 : len);
    return mni_error_set(err, code, "header", (int64_t)line_start, "PLY header: %s: \"%.*s\"",
                         what, shown, line);
}

static mn_status parse_format(const char *line, size_t len, size_t at, mn_error *err)
{
    char word[32], version[16];
    size_t pos = 0;
    next_word(line, len, &pos, word, sizeof word);
    if (!next_word(line, len, &pos, word, sizeof word) ||
        !next_word(line, len, &pos, version, sizeof version))
        return bad_line(err, MN_INVALID_VALUE, at, "malformed format line", line, len);
    if (strcmp(word, "ascii") == 0)
        return mni_error_set(err, MN_INVALID_VALUE, "header.format", (int64_t)at,
                             "ASCII PLY is not supported: splat PLYs must be "
                             "binary_little_endian");
    if (strcmp(word, "binary_big_endian") == 0)
        return mni_error_set(err, MN_INVALID_VALUE, "header.format", (int64_t)at,
                             "big-endian PLY is not supported: splat PLYs must be "
                             "binary_little_endian");
    if (strcmp(word, "binary_little_endian") != 0 || strcmp(version, "1.0") != 0)
        return bad_line(err, MN_INVALID_VALUE, at, "unknown format", line, len);
    return MN_OK;
}

static mn_status parse_element(ply_header *h, const char *line, size_t len, size_t at,
                               mn_error *err)
{
    char word[32], count[32];
    size_t pos = 0;
    next_word(line, len, &pos, word, sizeof word);
    if (!next_word(line, len, &pos, word, sizeof word) ||
        !next_word(line, len, &pos, count, sizeof count))
        return bad_line(err, MN_INVALID_VALUE, at, "malformed element line", line, len);
    if (strcmp(word, "vertex") != 0 || h->seen_vertex)
        return mni_error_set(err, MN_INVALID_VALUE, "header.element", (int64_t)at,
                             "PLY element \"%s\": a splat PLY has exactly one element, "
                             "\"vertex\"", word);
    uint64_t n = 0;
    for (const char *c = count; *c; c++) {
        if (*c < '0' || *c > '9' || n > (UINT64_MAX - 9) / 10)
            return bad_line(err, MN_INVALID_VALUE, at, "bad vertex count", line, len);
        n = n * 10 + (uint64_t)(*c - '0');
    }
    if (n > UINT32_MAX)
        return mni_error_set(err, MN_OVERFLOW, "header.element", (int64_t)at,
                             "PLY vertex count %llu is beyond 2^32 - 1", (unsigned long long)n);
    h->count = n;
    h->seen_vertex = true;
    return MN_OK;
}

static mn_status parse_property(ply_header *h, const char *line, size_t len, size_t at,
                                mn_error *err)
{
    char type[32], name[32];
    size_t pos = 0;
    next_word(line, len, &pos, type, sizeof type);
    if (!h->seen_vertex)
        return bad_line(err, MN_INVALID_VALUE, at, "property before any element", line, len);
    if (!next_word(line, len, &pos, type, sizeof type))
        return bad_line(err, MN_INVALID_VALUE, at, "malformed property line", line, len);
    if (strcmp(type, "list") == 0)
        return bad_line(err, MN_INVALID_VALUE, at, "list properties are not supported", line, len);
    if (!next_word(line, len, &pos, name, sizeof name))
        return bad_line(err, MN_INVALID_VALUE, at, "malformed property line", line, len);
    uint32_t size = 0;
    for (size_t i = 0; i < sizeof ply_types / sizeof ply_types[0]; i++)
        if (strcmp(type, ply_types[i].name) == 0)
            size = ply_types[i].size;
    if (size == 0)
        return bad_line(err, MN_INVALID_VALUE, at, "unknown property type", line, len);
    for (uint32_t i = 0; i < h->prop_count; i++)
        if (strcmp(h->props[i].name, name) == 0)
            return bad_line(err, MN_INVALID_VALUE, at, "property named twice", line, len);
    if (h->prop_count == PLY_PROPERTY_MAX)
        return bad_line(err, MN_INVALID_VALUE, at, "too many properties", line, len);
    ply_property *p = &h->props[h->prop_count++];
    snprintf(p->name, sizeof p->name, "%s", name);
    p->size = size;
    p->is_float = strcmp(type, "float") == 0 || strcmp(type, "float32") == 0;
    p->offset = h->stride;
    h->stride += size;
    return MN_OK;
}

/* One header line (without its newline); *done when it is end_header. */
static mn_status parse_line(ply_header *h, const char *line, size_t len, size_t at, bool *done,
                            mn_error *err)
{
    char word[32];
    size_t pos = 0;
    if (len > 0 && line[len - 1] == '\r')
        len--;
    if (!next_word(line, len, &pos, word, sizeof word))
        return bad_line(err, MN_INVALID_VALUE, at, "empty or overlong line", line, len);
    if (strcmp(word, "comment") == 0 || strcmp(word, "obj_info") == 0)
        return MN_OK;
    if (strcmp(word, "format") == 0)
        return parse_format(line, len, at, err);
    if (strcmp(word, "element") == 0)
        return parse_element(h, line, len, at, err);
    if (strcmp(word, "property") == 0)
        return parse_property(h, line, len, at, err);
    if (strcmp(word, "end_header") == 0 && pos == len) {
        *done = true;
        return MN_OK;
    }
    return bad_line(err, MN_INVALID_VALUE, at, "unknown header line", line, len);
}

static mn_status parse_header(const uint8_t *data, size_t size, ply_header *h, mn_error *err)
{
    if (size < 4 || memcmp(data, "ply", 3) != 0 || (data[3] != '\n' && data[3] != '\r'))
        return mni_error_set(err, MN_INVALID_VALUE, "magic", 0, "not a PLY file (no \"ply\" line)");
    size_t pos = data[3] == '\r' && size > 4 && data[4] == '\n' ? 5 : 4;
    size_t limit = size < PLY_HEADER_MAX ? size : PLY_HEADER_MAX;
    bool format_seen = false, done = false;
    while (!done) {
        const uint8_t *nl = memchr(data + pos, '\n', limit - pos);
        if (!nl)
            return mni_error_set(err, MN_COUNT_MISMATCH, "header", (int64_t)pos,
                                 "PLY header has no end_header line within %zu bytes", limit);
        size_t len = (size_t)(nl - (data + pos));
        const char *line = (const char *)data + pos;
        bool is_format = len >= 7 && memcmp(line, "format ", 7) == 0;
        if (!format_seen && !is_format && !(len >= 7 && memcmp(line, "comment", 7) == 0))
            return bad_line(err, MN_INVALID_VALUE, pos, "the format line must come first", line,
                            len);
        format_seen = format_seen || is_format;
        mn_status st = parse_line(h, line, len, pos, &done, err);
        if (st != MN_OK)
            return st;
        pos += len + 1;
    }
    if (!h->seen_vertex)
        return mni_error_set(err, MN_INVALID_VALUE, "header.element", (int64_t)pos,
                             "PLY has no vertex element");
    h->data_offset = pos;
    return MN_OK;
}

static const ply_property *find_property(const ply_header *h, const char *name)
{
    for (uint32_t i = 0; i < h->prop_count; i++)
        if (strcmp(h->props[i].name, name) == 0)
            return &h->props[i];
    return NULL;
}

/* A required float property's offset, or an error naming it. */
static mn_status require_float(const ply_header *h, const char *name, uint32_t *offset,
                               mn_error *err)
{
    const ply_property *p = find_property(h, name);
    if (!p)
        return mni_error_set(err, MN_MISSING_PROPERTY, name, -1,
                             "PLY vertex has no \"%s\" property", name);
    if (!p->is_float)
        return mni_error_set(err, MN_INVALID_VALUE, name, -1,
                             "PLY property \"%s\" must be float", name);
    *offset = p->offset;
    return MN_OK;
}

/* f_rest_N: every N from 0 to n-1 once, all float; offsets in index order. */
static mn_status find_rest(const ply_header *h, uint32_t offsets[PLY_REST_MAX], uint32_t *n,
                           mn_error *err)
{
    uint32_t count = 0;
    for (uint32_t i = 0; i < h->prop_count; i++)
        if (strncmp(h->props[i].name, "f_rest_", 7) == 0)
            count++;
    if (count > PLY_REST_MAX)
        return mni_error_set(err, MN_INVALID_VALUE, "f_rest", -1,
                             "PLY has %u f_rest properties (at most %u)", count, PLY_REST_MAX);
    for (uint32_t k = 0; k < count; k++) {
        char name[32];
        snprintf(name, sizeof name, "f_rest_%u", k);
        mn_status st = require_float(h, name, &offsets[k], err);
        if (st != MN_OK)
            return st;
    }
    *n = count;
    return MN_OK;
}

typedef struct ply_layout {
    uint32_t xyz[3], rot[4], scale[3], opacity, dc[3];
    uint32_t rest[PLY_REST_MAX];
    uint32_t rest_count;
} ply_layout;

static mn_status find_layout(const ply_header *h, ply_layout *l, mn_error *err)
{
    static const char *const xyz[3] = {"x", "y", "z"};
    static const char *const rot[4] = {"rot_1", "rot_2", "rot_3", "rot_0"}; /* x y z w */
    static const char *const scale[3] = {"scale_0", "scale_1", "scale_2"};
    static const char *const dc[3] = {"f_dc_0", "f_dc_1", "f_dc_2"};
    mn_status st = MN_OK;
    for (int i = 0; i < 3 && st == MN_OK; i++)
        st = require_float(h, xyz[i], &l->xyz[i], err);
    for (int i = 0; i < 3 && st == MN_OK; i++)
        st = require_float(h, dc[i], &l->dc[i], err);
    if (st == MN_OK)
        st = require_float(h, "opacity", &l->opacity, err);
    for (int i = 0; i < 3 && st == MN_OK; i++)
        st = require_float(h, scale[i], &l->scale[i], err);
    for (int i = 0; i < 4 && st == MN_OK; i++)
        st = require_float(h, rot[i], &l->rot[i], err);
    if (st == MN_OK)
        st = find_rest(h, l->rest, &l->rest_count, err);
    return st;
}

static mn_status allocate_cloud(mn_splat_cloud *c, uint32_t count, uint32_t rest_count)
{
    size_t n = count ? count : 1;
    c->count = count;
    c->rest_count = rest_count;
    c->centres = mni_alloc(&c->allocator, n * 3 * sizeof(float));
    c->rotations = mni_alloc(&c->allocator, n * 4 * sizeof(float));
    c->scales = mni_alloc(&c->allocator, n * 3 * sizeof(float));
    c->opacities = mni_alloc(&c->allocator, n * sizeof(float));
    c->colours = mni_alloc(&c->allocator, n * 3 * sizeof(float));
    if (rest_count)
        c->rest = mni_alloc(&c->allocator, n * rest_count * sizeof(float));
    bool ok = c->centres && c->rotations && c->scales && c->opacities && c->colours &&
              (rest_count == 0 || c->rest);
    return ok ? MN_OK : MN_OUT_OF_MEMORY;
}

/* Copy one little-endian float; false when it is not finite. */
static inline bool take(const uint8_t *vertex, uint32_t offset, float *out)
{
    uint32_t bits = (uint32_t)vertex[offset] | (uint32_t)vertex[offset + 1] << 8 |
                    (uint32_t)vertex[offset + 2] << 16 | (uint32_t)vertex[offset + 3] << 24;
    memcpy(out, &bits, 4);
    return isfinite(*out);
}

static mn_status copy_vertex(const uint8_t *v, const ply_layout *l, mn_splat_cloud *c, size_t i,
                             size_t at, mn_error *err)
{
    bool ok = true;
    for (int k = 0; k < 3; k++) {
        ok &= take(v, l->xyz[k], &c->centres[i * 3 + k]);
        ok &= take(v, l->scale[k], &c->scales[i * 3 + k]);
        ok &= take(v, l->dc[k], &c->colours[i * 3 + k]);
    }
    ok &= take(v, l->opacity, &c->opacities[i]);
    for (int k = 0; k < 4; k++)
        ok &= take(v, l->rot[k], &c->rotations[i * 4 + k]);
    for (uint32_t k = 0; k < l->rest_count; k++)
        ok &= take(v, l->rest[k], &c->rest[i * l->rest_count + k]);
    if (!ok)
        return mni_error_set(err, MN_NOT_FINITE, "vertex", (int64_t)at,
                             "PLY vertex %zu holds a NaN or infinity", i);
    const float *q = &c->rotations[i * 4];
    if (q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f)
        return mni_error_set(err, MN_INVALID_VALUE, "rot_0", (int64_t)at,
                             "PLY vertex %zu has a zero-length rotation", i);
    return MN_OK;
}

static mn_status check_size(const ply_header *h, size_t size, uint32_t expected, mn_error *err)
{
    if (expected != 0 && h->count != expected)
        return mni_error_set(err, MN_COUNT_MISMATCH, "header.element", -1,
                             "PLY has %llu splats, the package says splatCount %u",
                             (unsigned long long)h->count, expected);
    size_t bytes = 0, end = 0;
    if (!mni_checked_mul((size_t)h->count, h->stride, &bytes) ||
        !mni_checked_add(h->data_offset, bytes, &end))
        return mni_error_set(err, MN_OVERFLOW, "header.element", -1,
                             "PLY vertex data size overflows");
    if (end != size)
        return mni_error_set(err, MN_COUNT_MISMATCH, "vertex", (int64_t)size,
                             "PLY is %zu bytes; %llu vertices of %u bytes after the header "
                             "need %zu (%s)", size, (unsigned long long)h->count, h->stride, end,
                             end > size ? "truncated" : "trailing bytes");
    return MN_OK;
}

MN_API mn_status mn_splat_ply_read(const void *data, size_t size,
                                   const mn_splat_read_options *options,
                                   mn_splat_cloud *out, mn_error *err)
{
    mni_error_clear(err);
    if (!out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "out is NULL");
    memset(out, 0, sizeof *out);
    if (!data && size)
        return mni_fail(err, MN_INVALID_ARGUMENT, "data is NULL");
    mn_splat_read_options opts = {0};
    if (options)
        opts = *options;

    ply_header *h = mni_alloc(&opts.allocator, sizeof *h + sizeof(ply_layout));
    if (!h)
        return mni_oom(err, NULL);
    memset(h, 0, sizeof *h);
    ply_layout *layout = (ply_layout *)(h + 1);
    mn_status st = parse_header(data, size, h, err);
    if (st == MN_OK)
        st = find_layout(h, layout, err);
    if (st == MN_OK)
        st = check_size(h, size, opts.expected_count, err);
    if (st == MN_OK) {
        out->allocator = opts.allocator;
        if (allocate_cloud(out, (uint32_t)h->count, layout->rest_count) != MN_OK)
            st = mni_oom(err, NULL);
    }
    const uint8_t *bytes = data;
    for (size_t i = 0; st == MN_OK && i < h->count; i++) {
        size_t at = h->data_offset + i * h->stride;
        st = copy_vertex(bytes + at, layout, out, i, at, err);
    }
    mni_free(&opts.allocator, h, sizeof *h + sizeof(ply_layout));
    if (st != MN_OK)
        mn_splat_cloud_free(out);
    return st;
}

MN_API void mn_splat_cloud_free(mn_splat_cloud *cloud)
{
    if (!cloud)
        return;
    size_t n = cloud->count ? cloud->count : 1;
    const mn_allocator *a = &cloud->allocator;
    mni_free(a, cloud->centres, n * 3 * sizeof(float));
    mni_free(a, cloud->rotations, n * 4 * sizeof(float));
    mni_free(a, cloud->scales, n * 3 * sizeof(float));
    mni_free(a, cloud->opacities, n * sizeof(float));
    mni_free(a, cloud->colours, n * 3 * sizeof(float));
    mni_free(a, cloud->rest, n * cloud->rest_count * sizeof(float));
    memset(cloud, 0, sizeof *cloud);
}
