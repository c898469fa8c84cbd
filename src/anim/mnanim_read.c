/*
 * Checking a compressed clip's bytes (docs/formats.md, "Compressed clips"):
 * everything the sampler relies on is proved here once, so a view of
 * checked bytes samples without a bounds check and never reads outside the
 * block: header fields, each section inside the block, each track record's
 * values and its data inside the data section, and the checksum.  O(size).
 */
#include "anim/compress_internal.h"

#include "core/core.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Refuse with err naming the item and where it is. */
static mn_status bad(mn_error *err, mn_status code, const char *item, size_t offset,
                     const char *fmt, unsigned long long a, unsigned long long b)
{
    char what[160];
    snprintf(what, sizeof what, fmt, a, b);
    return mni_error_set(err, code, item, (int64_t)offset, "compressed clip: %s: %s", item, what);
}

/* [at, at + n) inside [lo, hi)? Overflow-safe. */
static bool inside(uint64_t at, uint64_t n, uint64_t lo, uint64_t hi)
{
    return at >= lo && at <= hi && n <= hi - at;
}

static bool finite4(const float *v)
{
    for (int c = 0; c < 4; c++)
        if (!isfinite(v[c]))
            return false;
    return true;
}

static mn_status check_header(const mni_cc_header *h, size_t size, mn_error *err)
{
    if (memcmp(h->magic, MNI_CC_MAGIC, 4) != 0)
        return bad(err, MN_INVALID_VALUE, "header.magic", 0, "not \"MNAN\"%.0llu%.0llu", 0, 0);
    if (h->version != MNI_CC_VERSION)
        return bad(err, MN_INVALID_VALUE, "header.version", 4, "version %llu, this reader reads %llu",
                   h->version, MNI_CC_VERSION);
    uint64_t least = sizeof *h + (uint64_t)h->name_length + 1u + MNI_CC_TAIL;
    if (h->total_size < least || h->total_size > size)
        return bad(err, MN_ACCESSOR_BOUNDS, "header.total_size", 8,
                   "%llu bytes, but %llu are there (the block is truncated or the size wrong)",
                   h->total_size, size < least ? least : size);
    const uint8_t *b = (const uint8_t *)h;
    uint32_t sum = mni_cc_fnv(2166136261u, b + 16, h->total_size - 16u);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    sum = h->checksum; /* let the fuzzer past the checksum, to the checks behind it */
#endif
    if (sum != h->checksum)
        return bad(err, MN_INVALID_VALUE, "header.checksum", 12,
                   "0x%08llx, the bytes give 0x%08llx", h->checksum, sum);
    if (!isfinite(h->duration) || h->duration < 0.0f)
        return bad(err, MN_NOT_FINITE, "header.duration", 16, "not a finite time >= 0%.0llu%.0llu", 0,
                   0);
    if (!isfinite(h->sample_rate) || !(h->sample_rate > 0.0f))
        return bad(err, MN_NOT_FINITE, "header.sample_rate", 20, "not a finite rate > 0%.0llu%.0llu",
                   0, 0);
    if (h->frame_count < 1 || h->frame_count > MNI_CC_MAX_FRAMES)
        return bad(err, MN_INVALID_VALUE, "header.frame_count", 24, "%llu frames (1 to %llu)",
                   h->frame_count, MNI_CC_MAX_FRAMES);
    if (h->space_kind > MN_SPACE_JOINTS)
        return bad(err, MN_INVALID_VALUE, "header.space_kind", 5, "%llu is no space kind%.0llu",
                   h->space_kind, 0);
    if (b[sizeof *h + h->name_length] != 0)
        return bad(err, MN_INVALID_VALUE, "header.name_length", 6,
                   "the name of %llu bytes is not NUL-ended%.0llu", h->name_length, 0);
    /* The tail: zero, so that what a value's 64-bit load reads past the records is known. */
    for (uint32_t i = h->total_size - MNI_CC_TAIL; i < h->total_size; i++)
        if (b[i] != 0)
            return bad(err, MN_INVALID_VALUE, "tail", i, "byte %llu is 0x%02llx, not 0", i, b[i]);
    return MN_OK;
}

/*
 * Record i at offset `at` (records end at `end`, the tail's first byte):
 * every byte it names inside [at, end), its fields valid; *size its size.
 */
static mn_status check_track(const mni_cc_header *h, const uint8_t *block, size_t at, size_t end,
                             uint32_t i, uint32_t *size, mn_error *err)
{
    char item[48];
#define FIELD(name) (snprintf(item, sizeof item, "tracks[%u]." name, i), item)
    const uint8_t *p = block + at;
    if (at >= end)
        return bad(err, MN_ACCESSOR_BOUNDS, FIELD("desc"), at,
                   "record %llu starts at the tail (the track count is %llu)", i, h->track_count);
    uint8_t desc = p[0];
    if ((desc & ~MNI_CC_DESC_ALL) || (desc & MNI_CC_DESC_PATH) > MN_PATH_SCALE)
        return bad(err, MN_INVALID_VALUE, FIELD("desc"), at, "0x%02llx (path %llu)", desc,
                   desc & MNI_CC_DESC_PATH);
    bool rot = (desc & MNI_CC_DESC_PATH) == MN_PATH_ROTATION;
    bool animated = (desc & MNI_CC_DESC_ANIMATED) != 0, dropped = (desc & MNI_CC_DESC_W_DROPPED) != 0;
    bool delta = (desc & MNI_CC_DESC_DELTA) != 0, second = (desc & MNI_CC_DESC_DELTA2) != 0;
    if ((dropped && (!rot || !animated)) || (delta && !animated) || (second && !delta))
        return bad(err, MN_INVALID_VALUE, FIELD("desc"), at,
                   "0x%02llx: w dropped from a constant or a track that is no rotation, or differences in a constant (or of differences without them)%.0llu", desc, 0);
    /* The target: LEB128, at most 5 bytes, below 2^32. */
    size_t q = at + 1;
    uint64_t target = 0;
    for (uint32_t shift = 0;; shift += 7, q++) {
        if (q >= end || shift >= 35)
            return bad(err, MN_INVALID_VALUE, FIELD("target"), at + 1,
                       "an unended or over-long LEB128%.0llu%.0llu", 0, 0);
        target |= (uint64_t)(block[q] & 0x7fu) << shift;
        if (!(block[q] & 0x80u))
            break;
    }
    q++;
    if (target > UINT32_MAX || (h->space_kind != MN_SPACE_UNBOUND && target >= h->space_count))
        return bad(err, MN_INDEX_RANGE, FIELD("target"), at + 1, "%llu, the space has %llu", target,
                   h->space_count);
    uint32_t n = rot && !dropped ? 4u : 3u;
    if (!animated) {
        float v[4] = {0, 0, 0, 0};
        if (!inside(q, 4u * n, 0, end))
            return bad(err, MN_ACCESSOR_BOUNDS, FIELD("value"), q,
                       "%llu bytes at offset %llu run into the tail", 4u * n, q);
        memcpy(v, block + q, 4u * n);
        if (!finite4(v))
            return bad(err, MN_NOT_FINITE, FIELD("value"), q, "not finite%.0llu%.0llu", 0, 0);
        *size = (uint32_t)(q + 4u * n - at);
        return MN_OK;
    }
    if (!inside(q, 1u, 0, end))
        return bad(err, MN_ACCESSOR_BOUNDS, FIELD("stride_log2"), q,
                   "the record's fields at offset %llu run into the tail%.0llu", q, 0);
    if (block[q] > MNI_CC_MAX_STRIDE_LOG2)
        return bad(err, MN_INVALID_VALUE, FIELD("stride_log2"), q, "%llu (at most %llu)", block[q],
                   MNI_CC_MAX_STRIDE_LOG2);
    uint32_t knots = mni_cc_knots_of(h->frame_count, block[q]);
    /* bits, base bits, slope bits; then minima, quantum, offsets, slope offsets */
    uint32_t widths = (1u + (knots > MNI_CC_SEGMENT_KNOTS || delta) + second) * n;
    if (!inside(q, 1u + widths + 4u * n + 4u + (delta + second) * 4u * n, 0, end))
        return bad(err, MN_ACCESSOR_BOUNDS, FIELD("bits"), q + 1,
                   "the record's fields at offset %llu run into the tail%.0llu", q + 1, 0);
    for (uint32_t c = 0; c < widths; c++)
        if (block[q + 1 + c] > MNI_CC_MAX_BITS)
            return bad(err, MN_INVALID_VALUE, FIELD("bits"), q + 1 + c, "%llu bits (at most %llu)",
                       block[q + 1 + c], MNI_CC_MAX_BITS);
    float v[4] = {0, 0, 0, 0}, quantum;
    memcpy(v, block + q + 1 + widths, 4u * n);
    memcpy(&quantum, block + q + 1 + widths + 4u * n, 4);
    if (!finite4(v) || !isfinite(quantum) || quantum < 0.0f)
        return bad(err, MN_NOT_FINITE, FIELD("min"), q + 1 + widths,
                   "a minimum or the quantum is not finite (or the quantum < 0)%.0llu%.0llu", 0, 0);
    /* Now the sizes mni_cc_parse computes: the bases and values inside the records. */
    mni_cc_track tr;
    uint32_t bytes = mni_cc_parse(p, h->frame_count, &tr);
    if (!inside(at, bytes, 0, end))
        return bad(err, MN_ACCESSOR_BOUNDS, FIELD("data"), at,
                   "%llu bytes of bases and values at offset %llu run into the tail", bytes, at);
    *size = bytes;
#undef FIELD
    return MN_OK;
}

mn_status mn_compressed_clip_view(const void *bytes, size_t size, const mn_compressed_clip **out,
                                  mn_error *err)
{
    if (out)
        *out = NULL;
    if (!bytes || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_compressed_clip_view: bytes and out must not be NULL");
    if ((uintptr_t)bytes % 8u)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_compressed_clip_view: the bytes must be 8-byte aligned");
    if (size < sizeof(mni_cc_header))
        return bad(err, MN_ACCESSOR_BOUNDS, "header", 0,
                   "%llu bytes, the header alone needs %llu (truncated)", size,
                   sizeof(mni_cc_header));
    const mni_cc_header *h = bytes;
    mn_status st = check_header(h, size, err);
    if (st != MN_OK)
        return st;
    size_t at = sizeof *h + h->name_length + 1u, end = h->total_size - MNI_CC_TAIL;
    for (uint32_t i = 0; i < h->track_count; i++) {
        uint32_t size_i = 0;
        if ((st = check_track(h, bytes, at, end, i, &size_i, err)) != MN_OK)
            return st;
        at += size_i;
    }
    if (at != end)
        return bad(err, MN_COUNT_MISMATCH, "header.track_count", 28,
                   "%llu records end at offset %llu, before the tail", h->track_count, at);
    *out = bytes;
    if (err)
        mni_error_clear(err);
    return MN_OK;
}
