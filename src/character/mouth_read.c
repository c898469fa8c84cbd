/*
 * mouth_hidden.bin (docs/formats.md): the
 * reader, every refusal naming its byte offset, and the gap functions.
 */
#include <marionette/character/mouth.h>

#include "core/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_SIZE 36u
#define ENTRY_SIZE 16u

struct mn_mouth_private {
    mn_allocator allocator;
    size_t block_size;
};

static uint32_t rd_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float rd_f32(const uint8_t *p)
{
    uint32_t u = rd_u32(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* A unit vector at byte `at` of the file: finite, length within 1e-3 of 1. */
static mn_status read_unit(const uint8_t *d, size_t at, const char *what, float out[3],
                           mn_error *err)
{
    double len2 = 0;
    for (int k = 0; k < 3; k++) {
        out[k] = rd_f32(d + at + 4u * (size_t)k);
        if (!isfinite(out[k]))
            return mni_error_set(err, MN_NOT_FINITE, what, (int64_t)(at + 4u * (size_t)k),
                                 "mouth_hidden.bin: %s[%d] is not finite", what, k);
        len2 += (double)out[k] * out[k];
    }
    double len = sqrt(len2);
    if (fabs(len - 1.0) > 1e-3)
        return mni_error_set(err, MN_INVALID_VALUE, what, (int64_t)at,
                             "mouth_hidden.bin: %s has length %g, not 1 (within 1e-3)", what, len);
    return MN_OK;
}

static int cmp_row(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    if (x[0] != y[0])
        return (x[0] > y[0]) - (x[0] < y[0]);
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* The earliest entry whose row was listed before it; count when none. */
static mn_status find_duplicate(const mn_mouth_entry *e, uint32_t count, const mn_allocator *a,
                                uint32_t *out_index)
{
    *out_index = count;
    if (count < 2)
        return MN_OK;
    size_t bytes = (size_t)count * 2 * sizeof(uint32_t);
    uint32_t *pairs = mni_alloc(a, bytes); /* (row, index) sorted by row then index */
    if (!pairs)
        return MN_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < count; i++) {
        pairs[2 * i] = e[i].row;
        pairs[2 * i + 1] = i;
    }
    qsort(pairs, count, 2 * sizeof(uint32_t), cmp_row);
    for (uint32_t i = 1; i < count; i++) {
        if (pairs[2 * i] != pairs[2 * i - 2])
            continue;
        /* Sorted by (row, index): this is a later listing of the row. */
        if (pairs[2 * i + 1] < *out_index)
            *out_index = pairs[2 * i + 1];
    }
    mni_free(a, pairs, bytes);
    return MN_OK;
}

mn_status mn_mouth_hidden_read(const void *data, size_t size, uint32_t splat_count,
                               uint32_t head_vertex_count, const mn_allocator *allocator,
                               mn_mouth_hidden **out, mn_error *err)
{
    if (!out || (!data && size))
        return mni_fail(err, MN_INVALID_ARGUMENT, "mouth_hidden.bin: NULL argument");
    *out = NULL;
    const uint8_t *d = data;
    if (size < HEADER_SIZE)
        return mni_error_set(err, MN_COUNT_MISMATCH, "", (int64_t)size,
                             "mouth_hidden.bin: %zu bytes is shorter than the 36-byte header", size);
    if (memcmp(d, "MHID", 4) != 0)
        return mni_error_set(err, MN_INVALID_VALUE, "magic", 0, "mouth_hidden.bin: magic is not \"MHID\"");
    uint32_t version = rd_u32(d + 4);
    if (version != 1)
        return mni_error_set(err, MN_INVALID_VALUE, "version", 4,
                             "mouth_hidden.bin: unsupported version %u", version);
    uint32_t count = rd_u32(d + 8);
    if ((size - HEADER_SIZE) / ENTRY_SIZE != count || (size - HEADER_SIZE) % ENTRY_SIZE != 0)
        return mni_error_set(err, MN_COUNT_MISMATCH, "count", 8,
                             "mouth_hidden.bin: %zu bytes do not hold the header and %u entries "
                             "of 16 bytes", size, count);
    float up[3], forward[3];
    mn_status st = read_unit(d, 12, "up", up, err);
    if (st == MN_OK)
        st = read_unit(d, 24, "forward", forward, err);
    if (st != MN_OK)
        return st;

    mn_allocator a = allocator ? *allocator : (mn_allocator){0};
    size_t entries_bytes = (size_t)(count ? count : 1) * sizeof(mn_mouth_entry);
    size_t total = sizeof(mn_mouth_hidden) + sizeof(struct mn_mouth_private) + entries_bytes;
    uint8_t *block = mni_alloc(&a, total);
    if (!block)
        return mni_oom(err, "mouth_hidden.bin");
    mn_mouth_hidden *m = (mn_mouth_hidden *)block;
    struct mn_mouth_private *priv = (struct mn_mouth_private *)(m + 1);
    mn_mouth_entry *entries = (mn_mouth_entry *)(priv + 1);
    *priv = (struct mn_mouth_private){a, total};
    *m = (mn_mouth_hidden){.version = version, .count = count, .entries = entries, .priv_ = priv};
    memcpy(m->up, up, sizeof up);
    memcpy(m->forward, forward, sizeof forward);

    for (uint32_t i = 0; i < count && st == MN_OK; i++) {
        size_t at = HEADER_SIZE + (size_t)i * ENTRY_SIZE;
        mn_mouth_entry e = {rd_u32(d + at), (mn_mouth_kind)d[at + 4], rd_u32(d + at + 8),
                            rd_u32(d + at + 12)};
        if (e.row >= splat_count)
            st = mni_error_set(err, MN_INDEX_RANGE, "row", (int64_t)at,
                               "mouth_hidden.bin: entry %u: row %u is not below the splat count %u",
                               i, e.row, splat_count);
        else if (d[at + 4] < 1 || d[at + 4] > 3)
            st = mni_error_set(err, MN_INVALID_VALUE, "kind", (int64_t)at + 4,
                               "mouth_hidden.bin: entry %u: kind %u is not 1 (plug), 2 (inside) "
                               "or 3 (band)", i, d[at + 4]);
        else if (e.upper >= head_vertex_count || e.lower >= head_vertex_count)
            st = mni_error_set(err, MN_INDEX_RANGE, e.upper >= head_vertex_count ? "upper" : "lower",
                               (int64_t)at + (e.upper >= head_vertex_count ? 8 : 12),
                               "mouth_hidden.bin: entry %u: lip vertex %u is not below the head's "
                               "vertex count %u", i,
                               e.upper >= head_vertex_count ? e.upper : e.lower, head_vertex_count);
        entries[i] = e;
        m->plugs += e.kind == MN_MOUTH_PLUG;
        m->band += e.kind == MN_MOUTH_BAND;
    }
    uint32_t dup = count;
    if (st == MN_OK && find_duplicate(entries, count, &a, &dup) != MN_OK)
        st = mni_oom(err, "mouth_hidden.bin");
    if (st == MN_OK && dup < count)
        st = mni_error_set(err, MN_INVALID_VALUE, "row", (int64_t)(HEADER_SIZE + (size_t)dup * ENTRY_SIZE),
                           "mouth_hidden.bin: entry %u: row %u is listed twice", dup,
                           entries[dup].row);
    if (st != MN_OK) {
        mni_free(&a, block, total);
        return st;
    }
    *out = m;
    return MN_OK;
}

void mn_mouth_hidden_free(mn_mouth_hidden *mouth)
{
    if (!mouth)
        return;
    mn_allocator a = mouth->priv_->allocator;
    mni_free(&a, mouth, mouth->priv_->block_size);
}

float mn_mouth_lip_gap(const float up[3], const float u[3], const float l[3], const float u0[3],
                       const float l0[3])
{
    float g = 0;
    for (int k = 0; k < 3; k++)
        g += up[k] * ((u[k] - l[k]) - (u0[k] - l0[k]));
    return g;
}

/* smoothstep(0, 0.002, gap); NaN reads as closed (0). */
static float open_amount(float gap)
{
    if (!(gap > 0))
        return 0;
    float t = gap / 0.002f;
    if (t >= 1)
        return 1;
    return t * t * (3 - 2 * t);
}

float mn_mouth_hidden_alpha(float gap) { return 1 - open_amount(gap); }

float mn_mouth_plug_push(float gap) { return 0.003f * open_amount(gap); }
