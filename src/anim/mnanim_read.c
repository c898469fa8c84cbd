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

/* A LEB128 at *q inside [.., end), at most 5 bytes, below 2^32; *q moves past it. */
static bool read_leb(const uint8_t *b, size_t *q, size_t end, uint32_t *v)
{
    uint64_t x = 0;
    for (uint32_t shift = 0;; shift += 7) {
        if (*q >= end || shift >= 35)
            return false;
        uint8_t c = b[(*q)++];
        x |= (uint64_t)(c & 0x7fu) << shift;
        if (!(c & 0x80u))
            break;
    }
    *v = (uint32_t)x;
    return x <= UINT32_MAX;
}

/* Four bytes at q inside [.., end) as a float into *f; q moves on. */
static bool read_f32(const uint8_t *b, size_t *q, size_t end, float *f)
{
    if (!inside(*q, 4, 0, end))
        return false;
    memcpy(f, b + *q, 4);
    *q += 4;
    return true;
}

#define LEB_OR(field, q0, what)                                                              \
    return bad(err, MN_ACCESSOR_BOUNDS, field, q0,                                           \
               "an unended or over-long LEB128, or " what " past the block's end%.0llu%.0llu", \
               0, 0)

/*
 * The header: magic, version, flags, the total size within the bytes, the
 * checksum, then each field inside the block and valid, the name and its
 * NUL after the records, the tail's zeros.  h receives it read out.
 */
static mn_status check_header(const uint8_t *b, size_t size, mni_cc_header *h, mn_error *err)
{
    if (memcmp(b, MNI_CC_MAGIC, 4) != 0)
        return bad(err, MN_INVALID_VALUE, "header.magic", 0, "not \"MNAN\"%.0llu%.0llu", 0, 0);
    if (b[4] != MNI_CC_VERSION)
        return bad(err, MN_INVALID_VALUE, "header.version", 4,
                   "version %llu, this reader reads %llu (compress the clip again)", b[4],
                   MNI_CC_VERSION);
    if ((b[5] & ~MNI_CC_HEAD_ALL) || (b[5] & MNI_CC_HEAD_SPACE) > MN_SPACE_JOINTS)
        return bad(err, MN_INVALID_VALUE, "header.flags", 5,
                   "0x%02llx (an unknown bit, or space kind %llu)", b[5], b[5] & MNI_CC_HEAD_SPACE);
    size_t q = MNI_CC_CHECKED_FROM;
    uint32_t total = 0;
    if (!read_leb(b, &q, size, &total))
        LEB_OR("header.total_size", MNI_CC_CHECKED_FROM, "one");
    if (total > size || total < q + MNI_CC_TAIL)
        return bad(err, MN_ACCESSOR_BOUNDS, "header.total_size", MNI_CC_CHECKED_FROM,
                   "%llu bytes, but %llu are there (the block is truncated or the size wrong)",
                   total, size);
    uint32_t checksum;
    memcpy(&checksum, b + 6, 4);
    uint32_t sum = mni_cc_fnv(2166136261u, b + MNI_CC_CHECKED_FROM, total - MNI_CC_CHECKED_FROM);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    sum = checksum; /* let the fuzzer past the checksum, to the checks behind it */
#endif
    if (sum != checksum)
        return bad(err, MN_INVALID_VALUE, "header.checksum", 6,
                   "0x%08llx, the bytes give 0x%08llx", checksum, sum);
    uint32_t v = 0;
    size_t at = q;
    if (!read_leb(b, &q, total, &v))
        LEB_OR("header.frame_count", at, "one");
    if (v < 1 || v > MNI_CC_MAX_FRAMES)
        return bad(err, MN_INVALID_VALUE, "header.frame_count", at, "%llu frames (1 to %llu)", v,
                   MNI_CC_MAX_FRAMES);
    at = q;
    if (!read_leb(b, &q, total, &v))
        LEB_OR("header.track_count", at, "one");
    float duration = 0.0f, f = 0.0f;
    at = q;
    if (!read_f32(b, &q, total, &duration))
        LEB_OR("header.duration", at, "4 bytes");
    if (!isfinite(duration) || duration < 0.0f)
        return bad(err, MN_NOT_FINITE, "header.duration", at, "not a finite time >= 0%.0llu%.0llu",
                   0, 0);
    at = q;
    if ((b[5] & MNI_CC_HEAD_SPACE) && !read_leb(b, &q, total, &v))
        LEB_OR("header.space_count", at, "one");
    at = q;
    if ((b[5] & MNI_CC_HEAD_SPACE_ID) && !inside(q += 8, 0, 0, total))
        LEB_OR("header.space_id", at, "8 bytes");
    at = q;
    if (b[5] & MNI_CC_HEAD_SHELL) {
        if (!read_f32(b, &q, total, &f))
            LEB_OR("header.shell", at, "4 bytes");
        if (!isfinite(f) || !(f > 0.0f))
            return bad(err, MN_NOT_FINITE, "header.shell", at, "not a finite distance > 0%.0llu%.0llu",
                       0, 0);
    }
    at = q;
    if (b[5] & MNI_CC_HEAD_ERRORS) {
        if (!inside(q, 4, 0, total))
            LEB_OR("header.errors", at, "4 bytes");
        float e0 = mni_cc_bf16(b + q), e1 = mni_cc_bf16(b + q + 2);
        if (!isfinite(e0) || !isfinite(e1) || e0 < 0.0f || e1 < 0.0f)
            return bad(err, MN_NOT_FINITE, "header.errors", at, "not finite errors >= 0%.0llu%.0llu",
                       0, 0);
        q += 4;
    }
    at = q;
    if (!read_leb(b, &q, total, &v))
        LEB_OR("header.name_length", at, "one");
    /* After the records: the name, its NUL and the zeros that make the 8-byte tail. */
    uint64_t after = (uint64_t)v + 1u + mni_cc_pad(v);
    if (after > total - q)
        return bad(err, MN_ACCESSOR_BOUNDS, "header.name_length", at,
                   "a name of %llu bytes does not fit the %llu bytes after the header", v, total - q);
    *h = mni_cc_head((const mn_compressed_clip *)(const void *)b);
    if (!isfinite(h->sample_rate) || !(h->sample_rate > 0.0f))
        return bad(err, MN_NOT_FINITE, "header.duration", 14,
                   "the sample rate (frames - 1) / duration is not finite%.0llu%.0llu", 0, 0);
    size_t nul = total - mni_cc_pad(v) - 1u;
    if (b[nul] != 0)
        return bad(err, MN_INVALID_VALUE, "name", nul,
                   "the name of %llu bytes is not NUL-ended%.0llu", v, 0);
    /* The tail: zero, so that what a value's 64-bit load reads past the records is known. */
    for (size_t i = nul + 1; i < total; i++)
        if (b[i] != 0)
            return bad(err, MN_INVALID_VALUE, "tail", i, "byte %llu is 0x%02llx, not 0", i, b[i]);
    return MN_OK;
}

/* A record's width field at q: at most 24 bits. */
static bool width_ok(uint8_t w) { return w <= MNI_CC_MAX_BITS; }

/*
 * Record i at offset `at` (records end at `end`, the name's first byte):
 * every byte it names inside [at, end), its fields valid; *size its size.
 */
static mn_status check_track(const mni_cc_header *h, const uint8_t *block, size_t at, size_t end,
                             uint32_t i, uint32_t *size, mn_error *err)
{
    char item[48];
#define FIELD(name) (snprintf(item, sizeof item, "tracks[%u]." name, i), item)
#define RUNS_INTO(name, where)                                                                  \
    return bad(err, MN_ACCESSOR_BOUNDS, FIELD(name), where,                                    \
               "the record's fields at offset %llu run past the records (or an over-long "     \
               "LEB128)%.0llu", where, 0)
    const uint8_t *p = block + at;
    if (at >= end)
        return bad(err, MN_ACCESSOR_BOUNDS, FIELD("desc"), at,
                   "record %llu starts past the records (the track count is %llu)", i,
                   h->track_count);
    uint8_t desc = p[0];
    if ((desc & MNI_CC_DESC_PATH) > MN_PATH_SCALE)
        return bad(err, MN_INVALID_VALUE, FIELD("desc"), at, "0x%02llx (path %llu)", desc,
                   desc & MNI_CC_DESC_PATH);
    bool rot = (desc & MNI_CC_DESC_PATH) == MN_PATH_ROTATION;
    bool animated = (desc & MNI_CC_DESC_ANIMATED) != 0, dropped = (desc & MNI_CC_DESC_W_DROPPED) != 0;
    bool delta = (desc & MNI_CC_DESC_DELTA) != 0, second = (desc & MNI_CC_DESC_DELTA2) != 0;
    bool keyed = (desc & MNI_CC_DESC_KEYED) != 0;
    if ((dropped && !rot) || ((delta || keyed) && !animated) || (second && !delta))
        return bad(err, MN_INVALID_VALUE, FIELD("desc"), at,
                   "0x%02llx: w dropped from a track that is no rotation, differences or keys in a constant, or differences of differences without differences%.0llu", desc, 0);
    size_t q = at + 1;
    uint32_t target = 0;
    if (!read_leb(block, &q, end, &target))
        return bad(err, MN_INVALID_VALUE, FIELD("target"), at + 1,
                   "an unended or over-long LEB128%.0llu%.0llu", 0, 0);
    if (h->space_kind != MN_SPACE_UNBOUND && target >= h->space_count)
        return bad(err, MN_INDEX_RANGE, FIELD("target"), at + 1, "%llu, the space has %llu", target,
                   h->space_count);
    uint32_t n = rot && !dropped ? 4u : 3u;
    if (!animated) {
        float v[4] = {0, 0, 0, 0};
        if (!inside(q, 4u * n, 0, end))
            return bad(err, MN_ACCESSOR_BOUNDS, FIELD("value"), q,
                       "%llu bytes at offset %llu run past the records", 4u * n, q);
        memcpy(v, block + q, 4u * n);
        if (!finite4(v))
            return bad(err, MN_NOT_FINITE, FIELD("value"), q, "not finite%.0llu%.0llu", 0, 0);
        *size = (uint32_t)(q + 4u * n - at);
        return MN_OK;
    }
    uint32_t knots = 0;
    if (keyed) {
        size_t k0 = q;
        if (!read_leb(block, &q, end, &knots))
            RUNS_INTO("knot_count", k0);
        if (knots < 2 || knots > h->frame_count)
            return bad(err, MN_INVALID_VALUE, FIELD("knot_count"), k0,
                       "%llu knots (2 to the frame count, %llu)", knots, h->frame_count);
    }
    if (!inside(q, 1, 0, end))
        RUNS_INTO("stride_log2", q);
    uint32_t stride = block[q] & 7u, segment_log2 = MNI_CC_SEGMENT_LOG2_MIN + ((block[q] >> 3) & 3u);
    if (stride > MNI_CC_MAX_STRIDE_LOG2 || (keyed && stride != 0))
        return bad(err, MN_INVALID_VALUE, FIELD("stride_log2"), q,
                   "%llu (at most %llu, and 0 for a keyed record)", stride, MNI_CC_MAX_STRIDE_LOG2);
    if (segment_log2 > MNI_CC_SEGMENT_LOG2_MAX)
        return bad(err, MN_INVALID_VALUE, FIELD("segment_log2"), q, "%llu (at most %llu)",
                   segment_log2, MNI_CC_SEGMENT_LOG2_MAX);
    if (!keyed)
        knots = mni_cc_knots_of(h->frame_count, stride);
    /* The widths, 5 bits each: bits, frame bits, base bits (several segments), slope bits. */
    uint32_t widths = n + keyed + ((knots > (1u << segment_log2)) + second) * n;
    size_t packed = (5u + 5u * widths + 7u) / 8u;
    if (!inside(q, packed + 2u, 0, end))
        RUNS_INTO("bits", q);
    for (uint32_t c = 0; c < widths; c++) {
        uint32_t wc = mni_cc_field(block + q, 5u + 5u * c, 5);
        if (!width_ok((uint8_t)wc))
            return bad(err, MN_INVALID_VALUE, FIELD("bits"), q + (5u + 5u * c) / 8u,
                       "width %llu: %llu bits (at most 24)", c, wc);
    }
    q += packed;
    float quantum = mni_cc_bf16(block + q);
    if (!isfinite(quantum) || quantum < 0.0f)
        return bad(err, MN_NOT_FINITE, FIELD("quantum"), q, "not finite, or < 0%.0llu%.0llu", 0, 0);
    q += 2;
    size_t m0 = q;
    for (uint32_t c = 0; c < n; c++) {
        uint32_t u = 0;
        float m = 0.0f;
        if (quantum == 0.0f ? !read_f32(block, &q, end, &m) : !read_leb(block, &q, end, &u))
            RUNS_INTO("min", m0);
        if (quantum != 0.0f)
            m = quantum * (float)(int32_t)((u >> 1) ^ (0u - (u & 1u)));
        if (!isfinite(m))
            return bad(err, MN_NOT_FINITE, FIELD("min"), m0, "minimum %llu is not finite%.0llu", c, 0);
    }
    size_t o0 = q;
    for (uint32_t c = 0; c < (delta + second) * n; c++) {
        uint32_t u = 0;
        if (!read_leb(block, &q, end, &u))
            RUNS_INTO("offset", o0);
    }
    /* Now the sizes mni_cc_parse computes: the bases, slopes, frames and values inside the records. */
    mni_cc_track tr;
    uint32_t bytes = mni_cc_parse(p, h->frame_count, &tr);
    if (!inside(at, bytes, 0, end))
        return bad(err, MN_ACCESSOR_BOUNDS, FIELD("data"), at,
                   "%llu bytes of bases and values at offset %llu run past the records", bytes, at);
    if (keyed) {
        /* The knots' frames: 0 first, increasing, the last frame last. */
        uint32_t prev = 0;
        for (uint32_t k = 0; k < tr.knot_count; k++) {
            uint32_t fr = mni_cc_field(tr.frames, (size_t)k * tr.frame_bits, tr.frame_bits);
            bool ok = k == 0 ? fr == 0 : fr > prev;
            if (k + 1 == tr.knot_count)
                ok = ok && fr == h->frame_count - 1u;
            if (!ok)
                return bad(err, MN_INVALID_VALUE, FIELD("frames"), (size_t)(tr.frames - block),
                           "knot %llu at frame %llu (0 first, increasing, the last frame last)", k,
                           fr);
            prev = fr;
        }
    }
    *size = bytes;
#undef RUNS_INTO
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
    if (size < MNI_CC_CHECKED_FROM + 1u + MNI_CC_TAIL)
        return bad(err, MN_ACCESSOR_BOUNDS, "header", 0,
                   "%llu bytes, a block needs at least %llu (truncated)", size,
                   MNI_CC_CHECKED_FROM + 1u + MNI_CC_TAIL);
    mni_cc_header h;
    memset(&h, 0, sizeof h);
    mn_status st = check_header(bytes, size, &h, err);
    if (st != MN_OK)
        return st;
    size_t at = h.header_size, end = (size_t)((const uint8_t *)h.name - (const uint8_t *)bytes);
    for (uint32_t i = 0; i < h.track_count; i++) {
        uint32_t size_i = 0;
        if ((st = check_track(&h, bytes, at, end, i, &size_i, err)) != MN_OK)
            return st;
        at += size_i;
    }
    if (at != end)
        return bad(err, MN_COUNT_MISMATCH, "header.track_count", 0,
                   "%llu records end at offset %llu, before the name", h.track_count, at);
    *out = bytes;
    if (err)
        mni_error_clear(err);
    return MN_OK;
}
