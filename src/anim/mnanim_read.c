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
    if (h->header_size != sizeof *h)
        return bad(err, MN_INVALID_VALUE, "header.header_size", 6, "%llu, expected %llu",
                   h->header_size, sizeof *h);
    if (h->total_size < sizeof *h + MNI_CC_TAIL || h->total_size > size)
        return bad(err, MN_ACCESSOR_BOUNDS, "header.total_size", 8,
                   "%llu bytes, but %llu are there (the block is truncated or the size wrong)",
                   h->total_size, size);
    const uint8_t *b = (const uint8_t *)h;
    uint32_t sum = mni_cc_fnv(2166136261u, b + 16, h->total_size - 16u);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    sum = h->checksum; /* let the fuzzer past the checksum, to the checks behind it */
#endif
    if (sum != h->checksum)
        return bad(err, MN_INVALID_VALUE, "header.checksum", 12,
                   "0x%08llx, the bytes give 0x%08llx", h->checksum, sum);
    if (h->flags != 0)
        return bad(err, MN_INVALID_VALUE, "header.flags", 16, "0x%llx, expected 0%.0llu", h->flags, 0);
    if (!isfinite(h->duration) || h->duration < 0.0f)
        return bad(err, MN_NOT_FINITE, "header.duration", 20, "not a finite time >= 0%.0llu%.0llu", 0,
                   0);
    if (!isfinite(h->sample_rate) || !(h->sample_rate > 0.0f))
        return bad(err, MN_NOT_FINITE, "header.sample_rate", 24, "not a finite rate > 0%.0llu%.0llu",
                   0, 0);
    if (h->frame_count < 1 || h->frame_count > MNI_CC_MAX_FRAMES)
        return bad(err, MN_INVALID_VALUE, "header.frame_count", 28, "%llu frames (1 to %llu)",
                   h->frame_count, MNI_CC_MAX_FRAMES);
    if (h->space_kind > MN_SPACE_JOINTS)
        return bad(err, MN_INVALID_VALUE, "header.space_kind", 36, "%llu is no space kind%.0llu",
                   h->space_kind, 0);
    uint64_t end = h->total_size;
    if (h->tracks_offset % 8u || !inside(h->tracks_offset, (uint64_t)h->track_count * 56u,
                                         sizeof *h, end))
        return bad(err, MN_ACCESSOR_BOUNDS, "header.tracks_offset", 56,
                   "%llu tracks at offset %llu run past the block or are misaligned",
                   h->track_count, h->tracks_offset);
    if (!inside(h->name_offset, (uint64_t)h->name_length + 1u, sizeof *h, end) ||
        b[h->name_offset + (size_t)h->name_length] != 0)
        return bad(err, MN_ACCESSOR_BOUNDS, "header.name_offset", 68,
                   "a name of %llu bytes at offset %llu is not inside the block and NUL-ended",
                   h->name_length, h->name_offset);
    if (!inside(h->data_offset, (uint64_t)h->data_size + MNI_CC_TAIL, sizeof *h, end))
        return bad(err, MN_ACCESSOR_BOUNDS, "header.data_size", 64,
                   "%llu data bytes at offset %llu (and the tail) run past the block",
                   h->data_size, h->data_offset);
    return MN_OK;
}

static mn_status check_track(const mni_cc_header *h, const mni_cc_track *tr, uint32_t i,
                             mn_error *err)
{
    char item[48];
    size_t at = h->tracks_offset + (size_t)i * sizeof *tr;
#define FIELD(name) (snprintf(item, sizeof item, "tracks[%u]." name, i), item)
    if (tr->path > MN_PATH_SCALE)
        return bad(err, MN_INVALID_VALUE, FIELD("path"), at + 4, "%llu is not 0, 1 or 2%.0llu",
                   tr->path, 0);
    if (h->space_kind != MN_SPACE_UNBOUND && tr->target >= h->space_count)
        return bad(err, MN_INDEX_RANGE, FIELD("target"), at, "%llu, the space has %llu",
                   tr->target, h->space_count);
    if (tr->kind > MNI_CC_ANIMATED || (tr->flags & ~MNI_CC_FLAGS_ALL))
        return bad(err, MN_INVALID_VALUE, FIELD("kind"), at + 5, "kind %llu, flags 0x%llx",
                   tr->kind, tr->flags);
    bool rot = tr->path == MN_PATH_ROTATION, dropped = (tr->flags & MNI_CC_W_DROPPED) != 0;
    unsigned want = rot && !dropped ? 4u : 3u;
    if ((dropped && (!rot || tr->kind == MNI_CC_CONSTANT)) || tr->components != want)
        return bad(err, MN_INVALID_VALUE, FIELD("components"), at + 6,
                   "%llu components with flags 0x%llx", tr->components, tr->flags);
    if (!finite4(tr->min) || !finite4(tr->extent))
        return bad(err, MN_NOT_FINITE, FIELD("min"), at + 24, "a range is not finite%.0llu%.0llu", 0,
                   0);
    if (tr->kind == MNI_CC_CONSTANT)
        return MN_OK;
    for (int c = 0; c < 4; c++)
        if (tr->extent[c] < 0.0f)
            return bad(err, MN_INVALID_VALUE, FIELD("extent"), at + 40,
                       "component %llu is negative%.0llu", (unsigned long long)c, 0);
    if (tr->bits > MNI_CC_MAX_BITS || tr->stride_log2 > MNI_CC_MAX_STRIDE_LOG2)
        return bad(err, MN_INVALID_VALUE, FIELD("bits"), at + 8, "%llu bits, stride 2^%llu",
                   tr->bits, tr->stride_log2);
    uint32_t s = 1u << tr->stride_log2;
    uint32_t knots = h->frame_count <= 1 ? 1u : (h->frame_count - 2u) / s + 2u;
    uint32_t segments = (knots + MNI_CC_SEGMENT_KNOTS - 1u) / MNI_CC_SEGMENT_KNOTS;
    if (tr->knot_count != knots || tr->segment_count != segments)
        return bad(err, MN_COUNT_MISMATCH, FIELD("knot_count"), at + 12,
                   "%llu knots, the frames and stride give %llu", tr->knot_count, knots);
    uint64_t bytes = (uint64_t)mni_cc_ranges_bytes(tr) + mni_cc_values_bytes(tr);
    if (!inside(tr->data, bytes, h->data_offset, (uint64_t)h->data_offset + h->data_size))
        return bad(err, MN_ACCESSOR_BOUNDS, FIELD("data"), at + 20,
                   "%llu bytes at offset %llu run outside the data section", bytes, tr->data);
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
    const mni_cc_track *tracks =
        (const mni_cc_track *)(const void *)((const uint8_t *)bytes + h->tracks_offset);
    for (uint32_t i = 0; i < h->track_count; i++)
        if ((st = check_track(h, &tracks[i], i, err)) != MN_OK)
            return st;
    *out = bytes;
    if (err)
        mni_error_clear(err);
    return MN_OK;
}
