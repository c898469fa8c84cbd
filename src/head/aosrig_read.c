/*
 * mn_aosrig_read_*: the .aosrig container, its blobs and their contents,
 * checked in the order docs/formats.md gives ("What the reader checks, in order"); the
 * header document itself is aosrig_header.c's.
 *
 * A parsed pack is views: each known blob's pointer points into the bytes
 * (the caller's, or the pack's copy), which are 8-byte
 * aligned and whose blobs start at multiples of 8, so every view is aligned
 * for its type.  Only skinWeight is decoded, from f16 into the pack's arena.
 */
#include "head/aosrig_internal.h"

#include "io/io.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct mn_aosrig_private {
    mn_arena arena;
};

typedef struct pack_holder {
    mn_aosrig pack;
    struct mn_aosrig_private priv;
} pack_holder;

/* The blobs a pack knows (docs/formats.md's table), with the shape each must have. */
typedef enum known_blob {
    BLOB_NEUTRAL, BLOB_BASIS, BLOB_BASIS_SCALE, BLOB_FACES, BLOB_QUADS, BLOB_UV,
    BLOB_SKIN_INDEX, BLOB_SKIN_WEIGHT, BLOB_JOINT_PARENTS, BLOB_REST_WORLD,
    BLOB_EYE_POSITIONS, BLOB_EYE_WEIGHTS, BLOB_STITCH_LOCAL, KNOWN_BLOB_COUNT
} known_blob;

/* Shape symbols: a dimension is a literal (> 0) or one of these counts. */
enum { DIM_V = -1, DIM_E = -2, DIM_K = -3, DIM_J = -4, DIM_FREE = -5 };

typedef struct blob_rule {
    const char *name;
    mn_aosrig_dtype dtype;
    bool required;
    uint32_t rank;
    int dims[3];
} blob_rule;

static const blob_rule rules[KNOWN_BLOB_COUNT] = {
    [BLOB_NEUTRAL]       = {"neutral", MN_AOSRIG_F32, true, 2, {DIM_V, 3}},
    [BLOB_BASIS]         = {"basis", MN_AOSRIG_F16, true, 3, {DIM_V, DIM_E, 3}},
    [BLOB_BASIS_SCALE]   = {"basisScale", MN_AOSRIG_F32, true, 1, {DIM_E}},
    [BLOB_FACES]         = {"faces", MN_AOSRIG_U32, true, 2, {DIM_FREE, 3}},
    [BLOB_QUADS]         = {"quads", MN_AOSRIG_U32, false, 2, {DIM_FREE, 4}},
    [BLOB_UV]            = {"uv", MN_AOSRIG_F32, false, 2, {DIM_V, 2}},
    [BLOB_SKIN_INDEX]    = {"skinIndex", MN_AOSRIG_U16, true, 2, {DIM_V, DIM_K}},
    [BLOB_SKIN_WEIGHT]   = {"skinWeight", MN_AOSRIG_F16, true, 2, {DIM_V, DIM_K}},
    [BLOB_JOINT_PARENTS] = {"jointParents", MN_AOSRIG_I32, true, 1, {DIM_J}},
    [BLOB_REST_WORLD]    = {"restWorld", MN_AOSRIG_F32, true, 2, {DIM_J, 16}},
    [BLOB_EYE_POSITIONS] = {"eyePositions", MN_AOSRIG_F32, true, 2, {2, 3}},
    [BLOB_EYE_WEIGHTS]   = {"eyeWeights", MN_AOSRIG_F32, true, 2, {2, DIM_V}},
    [BLOB_STITCH_LOCAL]  = {"stitchLocal", MN_AOSRIG_F32, false, 2, {DIM_V, 3}},
};

typedef struct blob_checks {
    mn_aosrig_reader *r;
    const mn_aosrig_blob *known[KNOWN_BLOB_COUNT];   /* NULL when absent */
    uint32_t known_index[KNOWN_BLOB_COUNT];          /* its buffers[] index */
    uint64_t elements[KNOWN_BLOB_COUNT];             /* product of its shape */
} blob_checks;

/* Fail naming blob i: path "buffers[i]" (or "buffers[i].key"), message led by its name. */
static mn_status blob_fail(mn_aosrig_reader *r, uint32_t i, const char *key, mn_status code,
                           int64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

static mn_status blob_fail(mn_aosrig_reader *r, uint32_t i, const char *key, mn_status code,
                           int64_t offset, const char *fmt, ...)
{
    char text[200], path[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    snprintf(path, sizeof path, key ? "buffers[%u].%s" : "buffers[%u]", i, key ? key : "");
    return mni_error_set(r->err, code, path, offset, "%s: blob \"%s\": %s", path,
                         r->pack->blobs[i].name, text);
}

/* ---- the blob list ------------------------------------------------------------------ */

static uint64_t dim_value(const mn_aosrig *pack, int dim)
{
    switch (dim) {
    case DIM_V: return pack->header.vertex_count;
    case DIM_E: return pack->header.coeff_count;
    case DIM_K: return pack->header.max_influence;
    case DIM_J: return pack->header.joint_count;
    default: return (uint64_t)dim;
    }
}

static const char *dim_symbol(int dim)
{
    switch (dim) {
    case DIM_V: return "V";
    case DIM_E: return "E";
    case DIM_K: return "K";
    case DIM_J: return "J";
    default: return NULL;
    }
}

static mn_status find_known(blob_checks *c)
{
    const mn_aosrig *pack = c->r->pack;
    for (uint32_t i = 0; i < pack->blob_count; i++)
        for (int k = 0; k < KNOWN_BLOB_COUNT; k++)
            if (strcmp(pack->blobs[i].name, rules[k].name) == 0) {
                c->known[k] = &pack->blobs[i];
                c->known_index[k] = i;
            }
    for (int k = 0; k < KNOWN_BLOB_COUNT; k++)
        if (rules[k].required && !c->known[k])
            return mni_error_set(c->r->err, MN_MISSING_PROPERTY, "buffers", -1,
                                 "buffers: the required blob \"%s\" is missing", rules[k].name);
    return MN_OK;
}

static mn_status check_dtype_and_shape(blob_checks *c, int k)
{
    const mn_aosrig_blob *b = c->known[k];
    const blob_rule *rule = &rules[k];
    uint32_t i = c->known_index[k];
    if (b->dtype != rule->dtype)
        return blob_fail(c->r, i, "dtype", MN_INVALID_VALUE, -1, "dtype %s; it must be %s",
                         mn_aosrig_dtype_name(b->dtype), mn_aosrig_dtype_name(rule->dtype));
    if (b->rank != rule->rank)
        return blob_fail(c->r, i, "shape", MN_COUNT_MISMATCH, -1, "%u dimensions; it has %u",
                         b->rank, rule->rank);
    uint64_t elements = 1;
    for (uint32_t d = 0; d < rule->rank; d++) {
        int dim = rule->dims[d];
        if (dim != DIM_FREE && b->shape[d] != dim_value(c->r->pack, dim)) {
            const char *symbol = dim_symbol(dim);
            return blob_fail(c->r, i, "shape", MN_COUNT_MISMATCH, -1,
                             "shape[%u] is %llu; it must be %s%s%llu", d,
                             (unsigned long long)b->shape[d], symbol ? symbol : "",
                             symbol ? " = " : "", (unsigned long long)dim_value(c->r->pack, dim));
        }
        if (dim == DIM_FREE && b->shape[d] > UINT32_MAX)
            return blob_fail(c->r, i, "shape", MN_INVALID_VALUE, -1,
                             "%llu rows; at most 4294967295", (unsigned long long)b->shape[d]);
        /* every factor < 2^53 and the byte length is checked next: cap instead of overflow */
        elements = b->shape[d] && elements > UINT64_MAX / b->shape[d] ? UINT64_MAX
                                                                     : elements * b->shape[d];
    }
    c->elements[k] = elements;
    return MN_OK;
}

static mn_status check_byte_length(blob_checks *c, int k)
{
    const mn_aosrig_blob *b = c->known[k];
    uint64_t n = c->elements[k], want;
    if (k == BLOB_BASIS) /* stored as u32 pairs of halves: an odd count is padded by one half */
        want = n > UINT64_MAX / 2 - 1 ? UINT64_MAX : 4 * ((n + 1) / 2);
    else
        want = n > UINT64_MAX / 4 ? UINT64_MAX : n * mn_aosrig_dtype_size(b->dtype);
    if (b->size != want)
        return blob_fail(c->r, c->known_index[k], "byteLength", MN_COUNT_MISMATCH, -1,
                         k == BLOB_BASIS ? "byteLength %llu; %llu halves in u32 pairs take %llu"
                                         : "byteLength %llu; %llu elements take %llu",
                         (unsigned long long)b->size, (unsigned long long)n,
                         (unsigned long long)want);
    return MN_OK;
}

static int compare_by_offset(const void *a, const void *b)
{
    const mn_aosrig_blob *x = *(const mn_aosrig_blob *const *)a;
    const mn_aosrig_blob *y = *(const mn_aosrig_blob *const *)b;
    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    return x->size < y->size ? -1 : x->size > y->size;
}

/* Alignment, bounds, overlap and the file's end, for every blob (unknown ones included). */
static mn_status check_placement(mn_aosrig_reader *r)
{
    mn_aosrig *pack = r->pack;
    uint64_t first = mni_align8((uint64_t)MN_AOSRIG_PREAMBLE + r->header_length);
    for (uint32_t i = 0; i < pack->blob_count; i++)
        if (pack->blobs[i].offset % 8 != 0)
            return blob_fail(r, i, "offset", MN_INVALID_VALUE, (int64_t)pack->blobs[i].offset,
                             "offset %llu is not a multiple of 8",
                             (unsigned long long)pack->blobs[i].offset);
    for (uint32_t i = 0; i < pack->blob_count; i++) {
        const mn_aosrig_blob *b = &pack->blobs[i];
        /* offset and size are each below 2^53: the sum cannot overflow */
        if (b->offset < first || b->offset + b->size > r->size)
            return blob_fail(r, i, "offset", MN_BUFFER_VIEW_BOUNDS, (int64_t)b->offset,
                             "bytes %llu..%llu are outside the blob area %llu..%zu",
                             (unsigned long long)b->offset,
                             (unsigned long long)(b->offset + b->size), (unsigned long long)first,
                             r->size);
    }
    const mn_aosrig_blob **order = mni_arena_alloc(r->arena, pack->blob_count * sizeof *order, 8);
    if (!order && pack->blob_count)
        return mni_oom(r->err, NULL);
    uint64_t end = first;
    for (uint32_t i = 0; i < pack->blob_count; i++)
        order[i] = &pack->blobs[i];
    if (pack->blob_count)
        qsort(order, pack->blob_count, sizeof *order, compare_by_offset);
    const mn_aosrig_blob *last = NULL; /* the non-empty blob that reaches furthest so far */
    for (uint32_t i = 0; i < pack->blob_count; i++) {
        const mn_aosrig_blob *b = order[i];
        if (b->size == 0)
            continue;
        if (last && b->offset < last->offset + last->size)
            return blob_fail(r, (uint32_t)(b - pack->blobs), NULL, MN_INVALID_VALUE,
                             (int64_t)b->offset, "bytes %llu..%llu overlap blob \"%s\" (%llu..%llu)",
                             (unsigned long long)b->offset,
                             (unsigned long long)(b->offset + b->size), last->name,
                             (unsigned long long)last->offset,
                             (unsigned long long)(last->offset + last->size));
        if (!last || b->offset + b->size > last->offset + last->size)
            last = b;
    }
    for (uint32_t i = 0; i < pack->blob_count; i++)
        if (pack->blobs[i].offset + pack->blobs[i].size > end)
            end = pack->blobs[i].offset + pack->blobs[i].size;
    if (end != r->size)
        return mni_error_set(r->err, MN_COUNT_MISMATCH, "length", (int64_t)end,
                             "the file is %zu bytes but its last blob ends at byte %llu", r->size,
                             (unsigned long long)end);
    for (uint32_t i = 0; i < pack->blob_count; i++)
        ((mn_aosrig_blob *)&pack->blobs[i])->data = r->bytes + pack->blobs[i].offset;
    return MN_OK;
}

/* ---- the contents ---------------------------------------------------------------------- */

/* Each index of a u16 or u32 blob below `limit`. */
static mn_status check_indices(blob_checks *c, int k, uint64_t limit, const char *what)
{
    const mn_aosrig_blob *b = c->known[k];
    if (!b)
        return MN_OK;
    uint64_t n = c->elements[k];
    for (uint64_t e = 0; e < n; e++) {
        uint64_t v = b->dtype == MN_AOSRIG_U16 ? ((const uint16_t *)b->data)[e]
                                               : ((const uint32_t *)b->data)[e];
        if (v >= limit)
            return blob_fail(c->r, c->known_index[k], NULL, MN_INDEX_RANGE,
                             (int64_t)(b->offset + e * mn_aosrig_dtype_size(b->dtype)),
                             "element %llu is %llu; %s are below %llu", (unsigned long long)e,
                             (unsigned long long)v, what, (unsigned long long)limit);
    }
    return MN_OK;
}

/* jointParents: each -1 or a joint, and no cycle (every walk up reaches a root). */
static mn_status check_forest(blob_checks *c)
{
    mn_aosrig_reader *r = c->r;
    const int32_t *parents = c->known[BLOB_JOINT_PARENTS]->data;
    uint32_t count = r->pack->header.joint_count;
    uint32_t index = c->known_index[BLOB_JOINT_PARENTS];
    for (uint32_t j = 0; j < count; j++)
        if (parents[j] < -1 || parents[j] >= (int64_t)count)
            return blob_fail(r, index, NULL, MN_INDEX_RANGE, -1,
                             "joint %u (\"%s\") has parent %d; a parent is -1 or a joint below %u",
                             j, r->pack->header.joint_names[j], (int)parents[j], count);
    /* colour each joint: 0 unseen, 1 on the current walk, 2 known to reach a root */
    uint8_t *state = mni_arena_calloc(r->arena, count, 1, 8);
    if (!state && count)
        return mni_oom(r->err, NULL);
    for (uint32_t j = 0; j < count; j++) {
        int64_t at = j;
        while (at >= 0 && state[at] == 0) {
            state[at] = 1;
            at = parents[at];
        }
        if (at >= 0 && state[at] == 1)
            return blob_fail(r, index, NULL, MN_HIERARCHY, -1,
                             "joint %lld (\"%s\") is its own ancestor: the parents are not a forest",
                             (long long)at, r->pack->header.joint_names[at]);
        for (at = j; at >= 0 && state[at] == 1; at = parents[at])
            state[at] = 2;
    }
    return MN_OK;
}

/*
 * The first element of n whose exponent bits are all ones (a non-finite f32
 * or f16: `mask` 0x7f800000 or 0x7c00), or n.  Chunks of a branch-free OR
 * that the compiler vectorises, so a clean 55 MB basis is scanned at memory
 * speed; only a chunk that holds a flaw is searched element by element.
 */
#define SCAN_CHUNK 4096u

static uint64_t first_non_finite_u32(const uint32_t *v, uint64_t n, uint32_t mask)
{
    for (uint64_t at = 0; at < n; at += SCAN_CHUNK) {
        uint64_t end = n - at < SCAN_CHUNK ? n : at + SCAN_CHUNK;
        uint32_t any = 0;
        for (uint64_t i = at; i < end; i++)
            any |= (uint32_t)((v[i] & mask) == mask);
        if (any)
            for (uint64_t i = at; i < end; i++)
                if ((v[i] & mask) == mask)
                    return i;
    }
    return n;
}

static uint64_t first_non_finite_u16(const uint16_t *v, uint64_t n, uint16_t mask)
{
    for (uint64_t at = 0; at < n; at += SCAN_CHUNK) {
        uint64_t end = n - at < SCAN_CHUNK ? n : at + SCAN_CHUNK;
        unsigned any = 0;
        for (uint64_t i = at; i < end; i++)
            any |= (unsigned)((v[i] & mask) == mask);
        if (any)
            for (uint64_t i = at; i < end; i++)
                if ((v[i] & mask) == mask)
                    return i;
    }
    return n;
}

static mn_status check_finite_f32(blob_checks *c)
{
    for (int k = 0; k < KNOWN_BLOB_COUNT; k++) {
        const mn_aosrig_blob *b = c->known[k];
        if (!b || rules[k].dtype != MN_AOSRIG_F32)
            continue;
        uint64_t e = first_non_finite_u32(b->data, c->elements[k], 0x7f800000u);
        if (e < c->elements[k])
            return blob_fail(c->r, c->known_index[k], NULL, MN_NOT_FINITE,
                             (int64_t)(b->offset + 4 * e), "element %llu is not finite",
                             (unsigned long long)e);
    }
    return MN_OK;
}

static mn_status check_finite_f16(blob_checks *c)
{
    static const int halves[2] = {BLOB_BASIS, BLOB_SKIN_WEIGHT};
    for (int h = 0; h < 2; h++) {
        int k = halves[h];
        const uint16_t *v = c->known[k]->data;
        uint64_t e = first_non_finite_u16(v, c->elements[k], 0x7c00u);
        if (e < c->elements[k])
            return blob_fail(c->r, c->known_index[k], NULL, MN_NOT_FINITE,
                             (int64_t)(c->known[k]->offset + 2 * e),
                             "half %llu (0x%04x) is not finite", (unsigned long long)e,
                             (unsigned)v[e]);
    }
    return MN_OK;
}

static mn_status check_contents(blob_checks *c)
{
    mn_aosrig_reader *r = c->r;
    mn_status st = check_indices(c, BLOB_SKIN_INDEX, r->pack->header.joint_count,
                                 "joint indices");
    if (st == MN_OK)
        st = check_indices(c, BLOB_FACES, r->pack->header.vertex_count, "vertex indices");
    if (st == MN_OK)
        st = check_indices(c, BLOB_QUADS, r->pack->header.vertex_count, "vertex indices");
    if (st == MN_OK)
        st = check_forest(c);
    if (st == MN_OK)
        st = check_finite_f32(c);
    if (st == MN_OK)
        st = check_finite_f16(c);
    return st;
}

/* The data of known blob k, NULL when the pack has none. */
static const void *blob_view(const blob_checks *c, known_blob k)
{
    return c->known[k] ? c->known[k]->data : NULL;
}

/* Point the pack's views at the known blobs and widen skinWeight. */
static mn_status publish_views(blob_checks *c)
{
    mn_aosrig *pack = c->r->pack;
    pack->neutral = blob_view(c, BLOB_NEUTRAL);
    pack->basis = blob_view(c, BLOB_BASIS);
    pack->basis_scale = blob_view(c, BLOB_BASIS_SCALE);
    pack->faces = blob_view(c, BLOB_FACES);
    pack->quads = blob_view(c, BLOB_QUADS);
    pack->uv = blob_view(c, BLOB_UV);
    pack->skin_index = blob_view(c, BLOB_SKIN_INDEX);
    pack->joint_parents = blob_view(c, BLOB_JOINT_PARENTS);
    pack->rest_world = blob_view(c, BLOB_REST_WORLD);
    pack->eye_positions = blob_view(c, BLOB_EYE_POSITIONS);
    pack->eye_weights = blob_view(c, BLOB_EYE_WEIGHTS);
    pack->stitch_local = blob_view(c, BLOB_STITCH_LOCAL);
    pack->face_count = (uint32_t)c->known[BLOB_FACES]->shape[0];
    pack->quad_count = c->known[BLOB_QUADS] ? (uint32_t)c->known[BLOB_QUADS]->shape[0] : 0;
    size_t n = (size_t)c->elements[BLOB_SKIN_WEIGHT];
    float *weights = mni_arena_alloc(c->r->arena, n * sizeof *weights, 64);
    if (!weights)
        return mni_oom(c->r->err, "widening skinWeight (%zu weights)", n);
    mn_f16_decode(c->known[BLOB_SKIN_WEIGHT]->data, weights, n);
    pack->skin_weight = weights;
    return MN_OK;
}

static mn_status check_blobs(mn_aosrig_reader *r)
{
    blob_checks c = {.r = r};
    mn_status st = find_known(&c);
    for (int k = 0; k < KNOWN_BLOB_COUNT && st == MN_OK; k++)
        if (c.known[k])
            st = check_dtype_and_shape(&c, k);
    for (int k = 0; k < KNOWN_BLOB_COUNT && st == MN_OK; k++)
        if (c.known[k])
            st = check_byte_length(&c, k);
    if (st == MN_OK)
        st = check_placement(r);
    if (st == MN_OK)
        st = check_contents(&c);
    if (st == MN_OK)
        st = publish_views(&c);
    return st;
}

/* ---- the container ------------------------------------------------------------------- */

static mn_status read_preamble(mn_aosrig_reader *r)
{
    if (r->size < 8 || memcmp(r->bytes, MN_AOSRIG_MAGIC, 8) != 0)
        return mni_error_set(r->err, MN_INVALID_VALUE, "magic", 0,
                             "magic: the file does not start with \"AOSRIG\\0\\0\" (not a .aosrig pack)");
    if (r->size < MN_AOSRIG_PREAMBLE)
        return mni_error_set(r->err, MN_BUFFER_VIEW_BOUNDS, "header", 8,
                             "header: the file ends (%zu bytes) inside the 16-byte preamble",
                             r->size);
    r->header_length = mni_load_u32le(r->bytes + 8);
    if ((uint64_t)MN_AOSRIG_PREAMBLE + r->header_length > r->size)
        return mni_error_set(r->err, MN_BUFFER_VIEW_BOUNDS, "header", 8,
                             "header: length %u runs past the end of the file (%zu bytes)",
                             r->header_length, r->size);
    json_error_t jerr;
    r->root = mni_js_parse((const char *)r->bytes + MN_AOSRIG_PREAMBLE, r->header_length, &jerr);
    if (!r->root) {
        mn_status st = mni_error_set(r->err, MN_JSON_SYNTAX, "header",
                                     (int64_t)MN_AOSRIG_PREAMBLE + jerr.position,
                                     "header: not JSON text at line %d, column %d: %s", jerr.line,
                                     jerr.column, jerr.text);
        if (r->err) {
            r->err->line = jerr.line;
            r->err->column = jerr.column;
        }
        return st;
    }
    if (!json_is_object(r->root))
        return mni_error_set(r->err, MN_JSON_TYPE, "header", MN_AOSRIG_PREAMBLE,
                             "header: expected a JSON object, found %s",
                             mni_json_type_name(r->root));
    return MN_OK;
}

static mn_status read_pack(mn_aosrig_reader *r)
{
    mn_status st = read_preamble(r);
    if (st == MN_OK)
        st = mni_aosrig_read_header(r);
    if (st == MN_OK)
        st = check_blobs(r);
    return st;
}

/* A new holder with its arena; NULL when out of memory. */
static pack_holder *new_holder(const mn_allocator *allocator)
{
    pack_holder *h = mni_alloc(allocator, sizeof *h);
    if (!h)
        return NULL;
    memset(h, 0, sizeof *h);
    mni_arena_init(&h->priv.arena, allocator);
    h->pack.priv_ = &h->priv;
    return h;
}

MN_API void mn_aosrig_free(mn_aosrig *pack)
{
    if (!pack)
        return;
    pack_holder *h = (pack_holder *)pack;
    mni_arena_release_holder(&h->priv.arena, h, sizeof *h);
}

/* Parse bytes that already belong to (or outlive) holder h; frees h on failure. */
static mn_status parse_into(pack_holder *h, const uint8_t *bytes, size_t size,
                            const mn_allocator *allocator, mn_aosrig **out_pack, mn_error *err)
{
    mn_aosrig_reader r = {.pack = &h->pack, .arena = &h->priv.arena, .err = err, .bytes = bytes,
                          .size = size, .allocator = allocator};
    mn_error local;
    if (!err)
        r.err = &local; /* the JSON path helpers need somewhere to write */
    mni_json_init(&r.json, r.arena, r.err);
    mn_status st = read_pack(&r);
    json_decref(r.root);
    if (st != MN_OK) {
        mn_aosrig_free(&h->pack);
        return st;
    }
    h->pack.bytes = bytes;
    h->pack.byte_length = size;
    *out_pack = &h->pack;
    return MN_OK;
}

MN_API mn_status mn_aosrig_read_memory(const void *data, size_t size,
                                       const mn_aosrig_read_options *options,
                                       mn_aosrig **out_pack, mn_error *err)
{
    static const mn_allocator malloc_hooks = {0};
    mni_error_clear(err);
    if (out_pack)
        *out_pack = NULL;
    if (!out_pack || (!data && size))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_aosrig_read_memory needs out_pack, and data when size > 0");
    const mn_allocator *allocator = options ? &options->allocator : &malloc_hooks;
    pack_holder *h = new_holder(allocator);
    if (!h)
        return mni_oom(err, NULL);
    const uint8_t *bytes = data;
    bool copy = (options && options->copy_input) || ((uintptr_t)data % 8) != 0;
    if (copy && size) {
        uint8_t *own = mni_arena_alloc(&h->priv.arena, size, 64);
        if (!own) {
            mn_aosrig_free(&h->pack);
            return mni_oom(err, "copying a %zu-byte pack", size);
        }
        memcpy(own, data, size);
        bytes = own;
    }
    return parse_into(h, bytes, size, allocator, out_pack, err);
}

MN_API mn_status mn_aosrig_read_file(const char *path, const mn_aosrig_read_options *options,
                                     mn_aosrig **out_pack, mn_error *err)
{
    static const mn_allocator malloc_hooks = {0};
    mni_error_clear(err);
    if (out_pack)
        *out_pack = NULL;
    if (!path || !out_pack)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_aosrig_read_file needs a path and out_pack");
    const mn_allocator *allocator = options ? &options->allocator : &malloc_hooks;
    pack_holder *h = new_holder(allocator);
    if (!h)
        return mni_oom(err, NULL);
    /* Read, not mapped: a file that shrinks while the pack lives cannot fault it. */
    mn_bytes bytes = {0};
    mn_status st = mni_file_read(&h->priv.arena, path, &bytes, err);
    if (st != MN_OK) {
        mn_aosrig_free(&h->pack);
        return st;
    }
    return parse_into(h, bytes.data, bytes.size, allocator, out_pack, err);
}

MN_API const mn_aosrig_blob *mn_aosrig_find_blob(const mn_aosrig *pack, const char *name)
{
    if (!pack || !name)
        return NULL;
    for (uint32_t i = 0; i < pack->blob_count; i++)
        if (strcmp(pack->blobs[i].name, name) == 0)
            return &pack->blobs[i];
    return NULL;
}

MN_API uint32_t mn_aosrig_find_joint(const mn_aosrig *pack, const char *name)
{
    if (!pack || !name)
        return UINT32_MAX;
    for (uint32_t j = 0; j < pack->header.joint_count; j++)
        if (strcmp(pack->header.joint_names[j], name) == 0)
            return j;
    return UINT32_MAX;
}
