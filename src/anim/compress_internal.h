/*
 * The compressed clip's block (docs/formats.md, "Compressed clips"), shared
 * by its writer (compress.c), its checker (mnanim_read.c), its sampler
 * (compressed_sample.c) and the error metric (error_metric.c).  Private to
 * src/anim.
 *
 * Block, little-endian (version 3; docs/formats.md has the byte map):
 *   header        "MNAN", u8 version, u8 flags (bits 0-1 space kind, 4:
 *                 space id, 8: shell, 16: errors stored), u32 checksum
 *                 (FNV-1a of bytes [10, T)), then LEB128 total size T,
 *                 LEB128 frame count F, LEB128 track count N, f32
 *                 duration, (space kind > 0) LEB128 space count, (4) u64
 *                 space id, (8) f32 shell, (16) two bf16 errors (max,
 *                 p99: an f32's high half, rounded up), LEB128 name
 *                 length L; the sample rate is (F - 1) / duration
 *                 (1 with one frame), computed in double, rounded to f32.
 *   tracks        N records back to back, no padding (below)
 *   name          L bytes and a NUL, then zero bytes up to 8 bytes after
 *                 the records (the tail: a 64-bit load at any value's
 *                 byte stays inside the block).
 * A record: u8 desc (path in bits 0-1, 4: animated, 8: w dropped, 16:
 * STEP, 32: DELTA, 64: DELTA2, 128: KEYED), the target as LEB128; a
 * constant then holds its value (3 f32, 4 for a rotation that keeps w);
 * an animated track (KEYED: its knot count K as LEB128, then) its widths
 * packed in a bit stream of ceil(bits / 8) bytes: stride_log2 (3 bits),
 * segment_log2 - 4 (2 bits), then 5 bits each: every stored component's
 * bits, (KEYED) the frame bits, (more than one segment) every component's
 * base bits, (DELTA2) every component's slope bits; then u16 quantum
 * (bf16), per component the minimum as a zigzag LEB128 m (min = quantum ×
 * m; f32 when the quantum is 0), (DELTA) zigzag LEB128 offset per
 * component, (DELTA2) zigzag LEB128 slope offset per component, then (more
 * than one segment) per segment of 2^segment_log2 knots (16 or 32)
 * every component's base in its base bits, (DELTA2) the slopes, (KEYED)
 * each knot's frame in frame bits, then knot-major every knot's
 * components, each in its component's bits; bit fields LSB-first, each
 * stream in ceil(bits / 8) bytes.  Knot k's component c is min[c] +
 * quantum × (base[k >> segment_log2][c] + the stored value), every grid
 * value below 2^24 (exact in a float); with DELTA a segment's first knot
 * is its base and each later one stores its difference from the knot
 * before, less the offset (in one segment the base is 0: the first knot
 * is the minimum, later grid values may fall below it, as int32).  A
 * KEYED record (stride 0) has its knots at the frames it lists
 * (increasing, the first 0, the last F - 1), linear or
 * STEP between them.
 */
#ifndef MN_ANIM_COMPRESS_INTERNAL_H
#define MN_ANIM_COMPRESS_INTERNAL_H

#include <marionette/clip.h>
#include <marionette/compress.h>
#include <marionette/skeleton.h>

#include "core/simd.h"

#include <math.h>
#include <string.h>

#define MNI_CC_MAGIC "MNAN"
#define MNI_CC_VERSION 3u
#define MNI_CC_SEGMENT_LOG2_MIN 4u   /* a segment (one base) holds 2^4 or 2^5 knots */
#define MNI_CC_SEGMENT_LOG2_MAX 5u
#define MNI_CC_MAX_BITS 24u         /* a value's or a base's bits; grid values < 2^24 */
#define MNI_CC_MAX_STRIDE_LOG2 5u     /* strides 1 .. 32 frames */
#define MNI_CC_MAX_FRAMES (1u << 24)
#define MNI_CC_TAIL 8u           /* bytes after the records (name, NUL, zeros) */
#define MNI_CC_MAX_RECORD_HEAD 96u    /* desc, target, 3 × 4 widths, frame bits, K, quantum, 12 LEB128s */
#define MNI_CC_MAX_HEADER 64u         /* the header's most bytes */
#define MNI_CC_CHECKED_FROM 10u       /* the checksum covers bytes from here */

enum { MNI_CC_CONSTANT = 0, MNI_CC_ANIMATED = 1 };
enum {
    MNI_CC_W_DROPPED = 1u,            /* rotation: x y z stored, w >= 0 rebuilt */
    MNI_CC_STEP = 2u,                 /* hold the left knot (a STEP source track) */
    MNI_CC_DELTA = 4u,                /* values: differences from the knot before */
    MNI_CC_DELTA2 = 8u,               /* with DELTA: differences of differences */
    MNI_CC_KEYED = 16u,               /* knots at listed frames (stride 0, no DELTA2) */
    MNI_CC_FLAGS_ALL = 31u
};
/* The record's first byte. */
enum {
    MNI_CC_DESC_PATH = 3u,
    MNI_CC_DESC_ANIMATED = 4u,
    MNI_CC_DESC_W_DROPPED = 8u,
    MNI_CC_DESC_STEP = 16u,
    MNI_CC_DESC_DELTA = 32u,
    MNI_CC_DESC_DELTA2 = 64u,         /* only with DELTA */
    MNI_CC_DESC_KEYED = 128u,         /* only animated, stride 0, without DELTA2 */
    MNI_CC_DESC_ALL = 255u
};
/* The header's flags byte. */
enum {
    MNI_CC_HEAD_SPACE = 3u,           /* the space kind */
    MNI_CC_HEAD_SPACE_ID = 4u,
    MNI_CC_HEAD_SHELL = 8u,
    MNI_CC_HEAD_ERRORS = 16u,
    MNI_CC_HEAD_ALL = 31u
};

/* The header as read out of a block (never stored as it is). */
typedef struct mni_cc_header {
    uint8_t version, space_kind, flags;
    uint32_t name_length;         /* a NUL follows the name */
    uint32_t total_size;
    uint32_t checksum;            /* FNV-1a of bytes [10, total_size) */
    float duration;
    float sample_rate;            /* (frame_count - 1) / duration; 1 with one frame */
    uint32_t frame_count;         /* >= 1 */
    uint32_t track_count;
    uint64_t space_id;
    uint32_t space_count;
    float shell, max_error, p99_error;
    uint32_t header_size;         /* the first record's offset */
    const uint8_t *records;       /* the first record */
    const char *name;             /* NUL-ended, after the records */
} mni_cc_header;

/*
 * A track record as read out of the block (never stored as it is): what
 * the decoder needs, with pointers to its bases and values.
 */
typedef struct mni_cc_track {
    uint32_t target;
    uint8_t path;                 /* translation 0, rotation 1, scale 2 */
    uint8_t kind;                 /* MNI_CC_CONSTANT or MNI_CC_ANIMATED */
    uint8_t components;           /* stored: 3, or 4 for a rotation with w kept */
    uint8_t flags;                /* MNI_CC_* */
    uint8_t stride_log2;          /* knot every 2^stride_log2 frames */
    uint8_t bits[4];              /* per stored component, 0 .. 24 */
    uint8_t base_bits[4];         /* per stored component (0 with one segment) */
    uint32_t knot_bits;           /* the sum of bits */
    uint32_t segment_bits;        /* the sum of base_bits */
    uint32_t knot_count;          /* (frame_count - 2) / stride + 2 (1 for one frame) */
    uint32_t segment_count;       /* ceil(knot_count / 16) */
    float min[4];                 /* a constant's value (a rotation's four) */
    float quantum;
    uint32_t offset[4];           /* DELTA: added to each stored difference (an int32 as stored) */
    uint8_t slope_bits[4];        /* DELTA2: per component */
    uint32_t slope_sum;           /* the sum of slope_bits */
    uint32_t slope_offset[4];     /* DELTA2: added to each segment's first difference */
    const uint8_t *slopes;        /* DELTA2: segment_count × slope_sum bits */
    const uint8_t *bases;         /* segment_count × segment_bits; NULL: one segment, base 0 */
    const uint8_t *values;
    uint32_t size;                /* the record's bytes in the block */
    uint8_t frame_bits;           /* KEYED: bits of each knot's frame */
    const uint8_t *frames;        /* KEYED: knot_count frames; NULL otherwise */
    uint8_t segment_log2;         /* knots per segment: 2^segment_log2 (4 .. 6; 4 for a constant) */
} mni_cc_track;

/* LEB128 at *p (of a checked block, or the writer's), at most 5 bytes; *p moves past it. */
static inline uint32_t mni_cc_leb(const uint8_t **p)
{
    uint32_t v = 0;
    for (uint32_t shift = 0; shift < 35u; shift += 7u) {
        uint8_t b = *(*p)++;
        v |= (uint32_t)(b & 0x7fu) << shift;
        if (!(b & 0x80u))
            break;
    }
    return v;
}

/* A zigzag LEB128 (0, -1, 1, -2, ... as 0, 1, 2, 3, ...). */
static inline int32_t mni_cc_zigzag(const uint8_t **p)
{
    uint32_t u = mni_cc_leb(p);
    return (int32_t)((u >> 1) ^ (0u - (u & 1u)));
}

/* An f32 from its stored high half (bf16). */
static inline float mni_cc_bf16(const uint8_t *p)
{
    uint32_t u = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 24;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* The sample rate of F frames over a duration: (F - 1) / duration, 1 with one frame (or none). */
static inline float mni_cc_rate(uint32_t frame_count, float duration)
{
    if (frame_count <= 1 || !(duration > 0.0f))
        return 1.0f;
    return (float)((double)(frame_count - 1u) / (double)duration);
}

/* Bytes of zeros after the name and its NUL, so that 8 bytes follow the records. */
static inline uint32_t mni_cc_pad(uint32_t name_length)
{
    return name_length + 1u >= MNI_CC_TAIL ? 0u : MNI_CC_TAIL - 1u - name_length;
}

/*
 * The header of a checked block (or one the writer made) read out; the
 * reader (mnanim_read.c) proves every field inside the block first.
 */
static inline mni_cc_header mni_cc_head(const mn_compressed_clip *c)
{
    const uint8_t *b = (const uint8_t *)c, *at = b + MNI_CC_CHECKED_FROM;
    mni_cc_header h;
    h.version = b[4];
    h.flags = b[5];
    h.space_kind = b[5] & MNI_CC_HEAD_SPACE;
    memcpy(&h.checksum, b + 6, 4);
    h.total_size = mni_cc_leb(&at);
    h.frame_count = mni_cc_leb(&at);
    h.track_count = mni_cc_leb(&at);
    memcpy(&h.duration, at, 4);
    at += 4;
    h.sample_rate = mni_cc_rate(h.frame_count, h.duration);
    h.space_count = h.space_kind ? mni_cc_leb(&at) : 0u;
    h.space_id = 0;
    if (h.flags & MNI_CC_HEAD_SPACE_ID) {
        memcpy(&h.space_id, at, 8);
        at += 8;
    }
    h.shell = MN_SHELL_DISTANCE_DEFAULT;
    if (h.flags & MNI_CC_HEAD_SHELL) {
        memcpy(&h.shell, at, 4);
        at += 4;
    }
    h.max_error = h.p99_error = 0.0f;
    if (h.flags & MNI_CC_HEAD_ERRORS) {
        h.max_error = mni_cc_bf16(at);
        h.p99_error = mni_cc_bf16(at + 2);
        at += 4;
    }
    h.name_length = mni_cc_leb(&at);
    h.header_size = (uint32_t)(at - b);
    h.records = at;
    h.name = (const char *)b + h.total_size - mni_cc_pad(h.name_length) - 1u - h.name_length;
    return h;
}

/* The first record's byte. */
static inline const uint8_t *mni_cc_records(const mn_compressed_clip *c)
{
    return mni_cc_head(c).records;
}

/* FNV-1a, 32 bits, continued over n bytes (seed 2166136261). */
static inline uint32_t mni_cc_fnv(uint32_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

/* Knots of a track at stride 2^sl over frame_count frames. */
static inline uint32_t mni_cc_knots_of(uint32_t frame_count, uint32_t sl)
{
    return frame_count <= 1 ? 1u : (frame_count - 2u) / (1u << sl) + 2u;
}

/* Bytes of a bit stream of count fields of `bits` bits each (bases, values). */
static inline size_t mni_cc_stream_bytes(uint32_t count, uint32_t bits)
{
    return ((size_t)count * bits + 7u) / 8u;
}

/* `bits` bits at bit `bit` of p, LSB-first (a 64-bit load: 8 bytes from bit / 8 are readable). */
static inline uint32_t mni_cc_field(const uint8_t *p, size_t bit, uint32_t bits)
{
    uint64_t word;
    memcpy(&word, p + (bit >> 3), 8);
    return (uint32_t)((word >> (bit & 7u)) & ((1u << bits) - 1u));
}

/*
 * Knots with a stored value: all; with DELTA all but each segment's first;
 * with DELTA2 all but each segment's first two.
 */
static inline uint32_t mni_cc_entries(uint32_t knots, uint32_t flags, uint32_t segment_log2)
{
    uint32_t seg = 1u << segment_log2;
    uint32_t segments = (knots + seg - 1u) / seg;
    if (!(flags & MNI_CC_DELTA))
        return knots;
    if (!(flags & MNI_CC_DELTA2))
        return knots - segments;
    uint32_t tail = knots - (segments - 1u) * seg; /* the last segment's */
    return knots - 2u * segments + (tail == 1u ? 1u : 0u);
}

/*
 * Read the record at p (of a checked block, or one the writer made) into
 * tr; returns its size.  The reader (mnanim_read.c) proves, before any
 * view exists, that every record parses inside the block.
 */
static inline uint32_t mni_cc_parse(const uint8_t *p, uint32_t frame_count, mni_cc_track *tr)
{
    const uint8_t *at = p;
    uint8_t desc = *at++;
    tr->path = desc & MNI_CC_DESC_PATH;
    tr->kind = (desc & MNI_CC_DESC_ANIMATED) ? MNI_CC_ANIMATED : MNI_CC_CONSTANT;
    tr->flags = (uint8_t)(((desc & MNI_CC_DESC_W_DROPPED) ? MNI_CC_W_DROPPED : 0u) |
                          ((desc & MNI_CC_DESC_STEP) ? MNI_CC_STEP : 0u) |
                          ((desc & MNI_CC_DESC_DELTA) ? MNI_CC_DELTA : 0u) |
                          ((desc & MNI_CC_DESC_DELTA2) ? MNI_CC_DELTA2 : 0u) |
                          ((desc & MNI_CC_DESC_KEYED) ? MNI_CC_KEYED : 0u));
    tr->target = mni_cc_leb(&at);
    bool rot = tr->path == MN_PATH_ROTATION;
    uint32_t n = rot && !(tr->flags & MNI_CC_W_DROPPED) ? 4u : 3u;
    tr->components = (uint8_t)n;
    tr->min[3] = 0.0f;
    tr->frame_bits = 0;
    tr->frames = NULL;
    if (tr->kind == MNI_CC_CONSTANT) {
        memcpy(tr->min, at, (size_t)n * 4u);
        if (rot && n == 3u) { /* w >= 0 rebuilt, as for an animated track's knots */
            float w2 = 1.0f - (tr->min[0] * tr->min[0] + tr->min[1] * tr->min[1] +
                               tr->min[2] * tr->min[2]);
            tr->min[3] = w2 > 0.0f ? sqrtf(w2) : 0.0f;
        }
        tr->stride_log2 = 0;
        tr->segment_log2 = MNI_CC_SEGMENT_LOG2_MIN;
        tr->knot_count = 1;
        tr->segment_count = 0;
        tr->knot_bits = 0;
        tr->quantum = 0.0f;
        tr->bases = tr->values = NULL;
        tr->size = (uint32_t)(at + 4u * n - p);
        return tr->size;
    }
    /* (KEYED) K, then the widths: 3 + 2 bits, then 5 bits a width (mni_cc_widths). */
    bool keyed = (tr->flags & MNI_CC_KEYED) != 0;
    uint32_t knots = keyed ? mni_cc_leb(&at) : 0u;
    tr->stride_log2 = (uint8_t)(at[0] & 7u);
    tr->segment_log2 = (uint8_t)(MNI_CC_SEGMENT_LOG2_MIN + ((at[0] >> 3) & 3u));
    tr->knot_count = keyed ? knots
                           : mni_cc_knots_of(frame_count, tr->stride_log2 <= MNI_CC_MAX_STRIDE_LOG2
                                                              ? tr->stride_log2
                                                              : MNI_CC_MAX_STRIDE_LOG2);
    tr->segment_count = ((tr->knot_count - 1u) >> (tr->segment_log2 & 31u)) + 1u;
    bool segmented = tr->segment_count > 1; /* bases stored (one segment: base 0) */
    bool second = (tr->flags & MNI_CC_DELTA2) != 0;
    size_t bit = 5;
    uint32_t sum = 0, base_sum = 0, slope_sum = 0;
    memset(tr->bits, 0, sizeof tr->bits);
    memset(tr->base_bits, 0, sizeof tr->base_bits);
    memset(tr->slope_bits, 0, sizeof tr->slope_bits);
    for (uint32_t c = 0; c < n; c++, bit += 5)
        sum += tr->bits[c] = (uint8_t)mni_cc_field(at, bit, 5);
    if (keyed) {
        tr->frame_bits = (uint8_t)mni_cc_field(at, bit, 5);
        bit += 5;
    }
    for (uint32_t c = 0; c < n && segmented; c++, bit += 5)
        base_sum += tr->base_bits[c] = (uint8_t)mni_cc_field(at, bit, 5);
    for (uint32_t c = 0; c < n && second; c++, bit += 5)
        slope_sum += tr->slope_bits[c] = (uint8_t)mni_cc_field(at, bit, 5);
    at += (bit + 7u) / 8u;
    tr->slope_sum = slope_sum;
    tr->knot_bits = sum;
    tr->segment_bits = base_sum;
    tr->quantum = mni_cc_bf16(at);
    at += 2;
    for (uint32_t c = 0; c < n; c++) {
        if (tr->quantum == 0.0f) {
            memcpy(&tr->min[c], at, 4);
            at += 4;
        } else {
            tr->min[c] = tr->quantum * (float)mni_cc_zigzag(&at);
        }
    }
    memset(tr->offset, 0, sizeof tr->offset);
    memset(tr->slope_offset, 0, sizeof tr->slope_offset);
    uint32_t entries = mni_cc_entries(tr->knot_count, tr->flags, tr->segment_log2);
    for (uint32_t c = 0; c < n && (tr->flags & MNI_CC_DELTA); c++)
        tr->offset[c] = (uint32_t)mni_cc_zigzag(&at);
    for (uint32_t c = 0; c < n && second; c++)
        tr->slope_offset[c] = (uint32_t)mni_cc_zigzag(&at);
    tr->bases = segmented ? at : NULL;
    at += segmented ? mni_cc_stream_bytes(tr->segment_count, base_sum) : 0u;
    tr->slopes = second ? at : NULL;
    at += second ? mni_cc_stream_bytes(tr->segment_count, slope_sum) : 0u;
    if (keyed) {
        tr->frames = at;
        at += mni_cc_stream_bytes(tr->knot_count, tr->frame_bits);
    }
    tr->values = at;
    at += mni_cc_stream_bytes(entries, sum);
    tr->size = (uint32_t)(at - p);
    return tr->size;
}

/*
 * Where a walk stopped (differences only): knot next1 - 2's grid values
 * and its difference, so that a walk to a later knot of its segment steps
 * on from there.
 * next1 0: nothing held.  Holding it never changes a result: modular sums
 * are the same in any grouping.
 */
typedef struct mni_cc_walker {
    uint32_t next1;
    uint32_t cur[4], d[4];
} mni_cc_walker;

/*
 * The grid values of `count` consecutive knots from k into q[0 .. count-1]
 * (q[i][components]): the segment's base plus the stored value; with
 * DELTA the base is the segment's first knot and each later one adds its
 * stored difference and offset to the one before; with DELTA2 the
 * segment's first difference is its slope (plus the slope offset) and
 * each later difference adds its stored value and offset to the one
 * before.  Unsigned arithmetic: a checked block's values sum to the
 * writer's grid values (below 2^24); other bytes give other numbers,
 * never undefined behaviour.
 */
static inline void mni_cc_walk(const mni_cc_track *tr, uint32_t k, uint32_t count, uint32_t (*q)[4],
                               mni_cc_walker *w)
{
    uint32_t n = tr->components;
    uint32_t order = (tr->flags & MNI_CC_DELTA) ? ((tr->flags & MNI_CC_DELTA2) ? 2u : 1u) : 0u;
    uint32_t cur[4] = {0, 0, 0, 0}, d[4] = {0, 0, 0, 0};
    /* Resume from the knot w holds when it lies before k in k's segment. */
    uint32_t held = w && w->next1 >= 2u ? w->next1 - 2u : UINT32_MAX;
    uint32_t sg = tr->segment_log2;
    bool resume = order > 0 && held < k && held >> sg == k >> sg;
    if (resume) {
        memcpy(cur, w->cur, sizeof cur);
        memcpy(d, w->d, sizeof d);
    }
    for (uint32_t i = 0; i < count; i++, k++) {
        uint32_t g = k >> sg, k0 = g << sg;
        uint32_t m = k;
        if (order == 0 || (i == 0 && !resume) || k == k0) {
            /* From the segment's base (order 0: the knot's own value above it). */
            size_t base_bit = (size_t)g * tr->segment_bits;
            for (uint32_t c = 0; c < n; c++) {
                cur[c] = 0;
                if (tr->bases) {
                    cur[c] = mni_cc_field(tr->bases, base_bit, tr->base_bits[c]);
                    base_bit += tr->base_bits[c];
                }
            }
            if (order == 0) {
                size_t bit = (size_t)k * tr->knot_bits;
                for (uint32_t c = 0; c < n; c++) {
                    q[i][c] = cur[c] + mni_cc_field(tr->values, bit, tr->bits[c]);
                    bit += tr->bits[c];
                }
                continue;
            }
            m = k0 + 1u; /* then step from the segment's second knot up to k */
        } else if (i == 0) {
            m = held + 1u; /* step from the held knot up to k */
        }
        for (; m <= k; m++) {
            if (order == 2 && m == k0 + 1u) {
                size_t bit = (size_t)g * tr->slope_sum;
                for (uint32_t c = 0; c < n; c++) {
                    d[c] = mni_cc_field(tr->slopes, bit, tr->slope_bits[c]) + tr->slope_offset[c];
                    cur[c] += d[c];
                    bit += tr->slope_bits[c];
                }
                continue;
            }
            size_t entry = order == 1 ? m - g - 1u : m - 2u * g - 2u;
            size_t bit = entry * tr->knot_bits;
            for (uint32_t c = 0; c < n; c++) {
                uint32_t v = mni_cc_field(tr->values, bit, tr->bits[c]) + tr->offset[c];
                bit += tr->bits[c];
                if (order == 2) {
                    d[c] += v;
                    cur[c] += d[c];
                } else {
                    cur[c] += v;
                }
            }
        }
        for (uint32_t c = 0; c < n; c++)
            q[i][c] = cur[c];
    }
    if (w && order > 0) {
        w->next1 = k + 1u; /* k is now one past the last knot walked */
        memcpy(w->cur, cur, sizeof cur);
        memcpy(w->d, d, sizeof d);
    }
}

/* Knot k's grid values into q[components]. */
static inline void mni_cc_knot_ints(const mni_cc_track *tr, uint32_t k, uint32_t *q)
{
    mni_cc_walk(tr, k, 1, (uint32_t(*)[4])(void *)q, NULL);
}

/*
 * Knot k of an animated track into out[components]: its grid values from
 * the track's minimum, a quantum apart.  The writer quantises through this
 * very expression, so what it measured is what this gives.
 */
static inline void mni_cc_knot(const mni_cc_track *tr, uint32_t k, float *out)
{
    uint32_t q[4];
    mni_cc_knot_ints(tr, k, q);
    for (uint32_t c = 0; c < tr->components; c++)
        out[c] = tr->min[c] + tr->quantum * (float)(int32_t)q[c];
}

/* mni_cc_knot, stepping from (and leaving) where w holds. */
static inline void mni_cc_knot_walk(const mni_cc_track *tr, uint32_t k, float *out, mni_cc_walker *w)
{
    uint32_t q[4];
    mni_cc_walk(tr, k, 1, (uint32_t(*)[4])(void *)q, w);
    for (uint32_t c = 0; c < tr->components; c++)
        out[c] = tr->min[c] + tr->quantum * (float)(int32_t)q[c];
}

/*
 * The grid values of the knots span k reads into q[0..3] (knots k - 1 ..
 * k + 2, those that exist: k and k + 1 at stride 1 and for STEP), in one
 * walk.
 */
static inline void mni_cc_span_ints(const mni_cc_track *tr, uint32_t k, uint32_t q[4][4],
                                    mni_cc_walker *w)
{
    uint32_t last = tr->knot_count - 1u;
    bool spline = tr->stride_log2 != 0 && !(tr->flags & MNI_CC_STEP);
    uint32_t first = spline && k > 0 ? k - 1u : k;
    uint32_t end = k + (spline ? 2u : 1u);
    end = end < last ? end : last;
    mni_cc_walk(tr, first, end + 1u - first, q + (first + 1u - k), w);
}

/* Grid values q into out[components]: mni_cc_knot's expression. */
static inline void mni_cc_ints_to(const mni_cc_track *tr, const uint32_t *q, float *out)
{
    for (uint32_t c = 0; c < tr->components; c++)
        out[c] = tr->min[c] + tr->quantum * (float)(int32_t)q[c];
}

/* The span of frame position f in a track's knots: knot k and the fraction s past it. */
static inline uint32_t mni_cc_span(const mni_cc_track *tr, float f, float *s)
{
    if (tr->frames) {
        /* KEYED: the last knot at or before f (at most K - 2), by bisection of its frames. */
        uint32_t lo = 0, hi = tr->knot_count - 1u;
        while (hi - lo > 1u) {
            uint32_t mid = (lo + hi) / 2u;
            if ((float)mni_cc_field(tr->frames, (size_t)mid * tr->frame_bits, tr->frame_bits) <= f)
                lo = mid;
            else
                hi = mid;
        }
        float f0 = (float)mni_cc_field(tr->frames, (size_t)lo * tr->frame_bits, tr->frame_bits);
        float f1 = (float)mni_cc_field(tr->frames, (size_t)(lo + 1u) * tr->frame_bits, tr->frame_bits);
        float r = f1 > f0 ? (f - f0) / (f1 - f0) : 0.0f;
        if (tr->flags & MNI_CC_STEP) /* held to the next knot only a thousandth of a frame early */
            r = f1 - f < 0.001f ? 1.0f : 0.0f;
        *s = r < 0.0f ? 0.0f : r > 1.0f ? 1.0f : r;
        return lo;
    }
    static const float inv_stride[MNI_CC_MAX_STRIDE_LOG2 + 1] = {1.0f, 0.5f, 0.25f, 0.125f,
                                                                 0.0625f, 0.03125f};
    float u = f * inv_stride[tr->stride_log2]; /* exact: powers of two */
    uint32_t last = tr->knot_count - 1u;
    uint32_t k = u <= 0.0f ? 0u : (uint32_t)u;
    if (k >= last)
        k = last > 0 ? last - 1u : 0u;
    float r = u - (float)k;
    *s = r < 0.0f ? 0.0f : r > 1.0f ? 1.0f : r;
    return k;
}

/* w >= 0 rebuilt from x y z (a rotation stored without w). */
static inline void mni_cc_rebuild_w(float *q)
{
    float w2 = 1.0f - (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    q[3] = w2 > 0.0f ? sqrtf(w2) : 0.0f;
}

/*
 * Knots k-1, k, k+1, k+2 into p[0..3]: what span k interpolates.  At stride
 * 1 (and for STEP) the knots are frames, and a rotation stored without w
 * gets it back here, so that rotations interpolate as whole quaternions (nlerp, exact at
 * midpoints); above, the knots are B-spline control points (not unit
 * quaternions), and w is rebuilt after the curve is evaluated.
 */
static inline void mni_cc_span_knots(const mni_cc_track *tr, uint32_t k, float p[4][4],
                                     mni_cc_walker *wk)
{
    uint32_t last = tr->knot_count - 1u;
    bool step = (tr->flags & MNI_CC_STEP) != 0;
    bool w = (tr->flags & MNI_CC_W_DROPPED) != 0 && (tr->stride_log2 == 0 || step);
    uint32_t q[4][4];
    mni_cc_span_ints(tr, k, q, wk);
    mni_cc_ints_to(tr, q[1], p[1]);
    if (w)
        mni_cc_rebuild_w(p[1]);
    if (last == 0)
        return;
    mni_cc_ints_to(tr, q[2], p[2]);
    if (w)
        mni_cc_rebuild_w(p[2]);
    if (tr->stride_log2 == 0 || step)
        return;
    if (k > 0)
        mni_cc_ints_to(tr, q[0], p[0]);
    if (k + 2u <= last)
        mni_cc_ints_to(tr, q[3], p[3]);
    if (w) {
        if (k > 0)
            mni_cc_rebuild_w(p[0]);
        if (k + 2u <= last)
            mni_cc_rebuild_w(p[3]);
    }
    /*
     * Past an end the missing knot is extrapolated by the quadratic through
     * the three nearest (linearly when there are only two): clamping it
     * would halve the end tangent and err to first order in the stride.
     */
    for (int c = 0; c < 4; c++) {
        if (k == 0)
            p[0][c] = last >= 2 ? 3.0f * p[1][c] - 3.0f * p[2][c] + p[3][c]
                                : 2.0f * p[1][c] - p[2][c];
        if (k + 2u > last)
            p[3][c] = k > 0 ? 3.0f * p[2][c] - 3.0f * p[1][c] + p[0][c] : 2.0f * p[2][c] - p[1][c];
    }
}

/* The uniform cubic B-spline basis at s in [0, 1]: the weights of control points p[0..3].
   The scalar and SSE2 decoders both take them from here, so they agree bit for bit. */
static inline void mni_cc_bspline_weights(float s, float w[4])
{
    float r = 1.0f - s, s2 = s * s, s3 = s2 * s;
    w[0] = r * r * r * (1.0f / 6.0f);
    w[1] = (3.0f * s3 - 6.0f * s2 + 4.0f) * (1.0f / 6.0f);
    w[2] = (-3.0f * s3 + 3.0f * s2 + 3.0f * s + 1.0f) * (1.0f / 6.0f);
    w[3] = s3 * (1.0f / 6.0f);
}

/*
 * The last step of every decoder: a translation or scale is v as it is, a
 * rotation v normalised (the identity where v has no length).
 */
static inline void mni_cc_finish(uint32_t path, const float v[4], float *out)
{
    if (path != MN_PATH_ROTATION) {
        memcpy(out, v, 3 * sizeof(float));
        return;
    }
    float len2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3];
    if (!(len2 > 0.0f)) {
        out[0] = out[1] = out[2] = 0.0f;
        out[3] = 1.0f;
        return;
    }
    float inv = 1.0f / sqrtf(len2);
    for (int c = 0; c < 4; c++)
        out[c] = v[c] * inv;
}

/*
 * A track's value at fraction s of the span whose knots p holds, into out
 * (3 floats, or a normalised x y z w rotation): linear at stride 1, the
 * uniform cubic B-spline of control points p[0..3] above (the compressor
 * fits them by least squares), the left knot for STEP; constants from the
 * record.
 * Rotations interpolate all four components and are normalised.
 */
static inline void mni_cc_interp(const mni_cc_track *tr, const float p[4][4], float s, float *out)
{
    float v[4] = {0, 0, 0, 0};
    uint32_t n = tr->path == MN_PATH_ROTATION ? 4u : 3u;
    if (tr->kind == MNI_CC_CONSTANT) {
        memcpy(v, tr->min, sizeof v);
    } else if (tr->knot_count == 1 || ((tr->flags & MNI_CC_STEP) && s < 0.999f)) {
        /* (STEP: a key time lands a hair before its frame in float: it is that frame.) */
        memcpy(v, p[1], sizeof v);
    } else if (tr->flags & MNI_CC_STEP) {
        memcpy(v, p[2], sizeof v);
    } else if (tr->stride_log2 == 0) {
        for (uint32_t c = 0; c < n; c++)
            v[c] = p[1][c] + (p[2][c] - p[1][c]) * s;
    } else {
        float w[4];
        mni_cc_bspline_weights(s, w);
        for (uint32_t c = 0; c < n; c++)
            v[c] = w[0] * p[0][c] + w[1] * p[1][c] + w[2] * p[2][c] + w[3] * p[3][c];
        if (tr->flags & MNI_CC_W_DROPPED)
            mni_cc_rebuild_w(v);
    }
    mni_cc_finish(tr->path, v, out);
}

/*
 * A cursor's knots of span k - 1 moved on to span k: the knots shift down
 * and only the new last one is decoded (the scalar decoder, which the SSE2
 * one matches bit for bit), so forward playback decodes one knot a span.
 * False where a fresh decode is needed (an end span's extrapolated knot).
 */
static inline bool mni_cc_advance(const mni_cc_track *tr, uint32_t k, float p[4][4],
                                  mni_cc_walker *w)
{
    uint32_t last = tr->knot_count - 1u;
    if (tr->stride_log2 == 0 || (tr->flags & MNI_CC_STEP)) {
        memcpy(p[1], p[2], sizeof p[1]);
        memset(p[2], 0, sizeof p[2]);
        mni_cc_knot_walk(tr, k + 1u, p[2], w);
        if (tr->flags & MNI_CC_W_DROPPED)
            mni_cc_rebuild_w(p[2]);
        return true;
    }
    if (k + 2u > last)
        return false;
    memmove(p[0], p[1], 3 * sizeof p[0]);
    memset(p[3], 0, sizeof p[3]);
    mni_cc_knot_walk(tr, k + 2u, p[3], w);
    return true;
}

/* One track at frame position f (0 .. frame_count - 1) into out, decoding what it needs. */
static inline void mni_cc_track_at(const mni_cc_track *tr, float f, float *out)
{
    float p[4][4] = {{0}};
    float s = 0.0f;
    if (tr->kind == MNI_CC_ANIMATED)
        mni_cc_span_knots(tr, mni_cc_span(tr, f, &s), p, NULL);
    mni_cc_interp(tr, (const float(*)[4])p, s, out);
}

/* The frame position of time t: clamped to [0, duration] × rate, and to the last frame. */
static inline float mni_cc_frame_of(const mni_cc_header *h, float t)
{
    if (!(t > 0.0f) || h->frame_count <= 1)
        return 0.0f;
    float f = (t < h->duration ? t : h->duration) * h->sample_rate;
    float last = (float)(h->frame_count - 1u);
    return f < last ? f : last;
}

/* Bytes of a cursor's storage over a compressed clip of track_count records. */
size_t mni_cc_cursor_bytes(uint32_t track_count);

/* The sampler without checks: every stored track whose target is in the pose. */
void mni_compressed_sample_into(const mn_compressed_clip *clip, float t, mn_pose *pose);

/*
 * The metric's core, shared by mn_clip_error_measure and the compressor:
 * the sample times and the reference's vertices, computed once.
 */
typedef struct mni_error_ref {
    mn_allocator allocator;
    struct mn_arena *arena_;      /* owns everything below */
    const mn_skeleton *skeleton;
    float shell;
    uint32_t time_count;
    float *times;                 /* time_count */
    float *vertices;              /* time_count × joints × 9 (three vertices) */
    uint32_t clip_joints;         /* joints of the clip's pose (space count, or skeleton joints) */
    const uint32_t *joint_of_target;  /* clip target → skeleton joint; NULL: identity */
    mn_pose clip_pose, joint_pose;    /* scratch: the clip's pose (rest), the skeleton's */
    mn_pose clip_rest;
    float *worlds;                /* joints × 16 */
} mni_error_ref;

/* A sampler the metric drives: fill pose (already at rest) at t. */
typedef void (*mni_error_sampler)(const void *ctx, float t, mn_pose *pose);

/*
 * Set up the reference: times from `times_clip`'s keys (and midpoints),
 * vertices of `reference` sampled through `sample` (ctx).  Errors:
 * MN_INVALID_ARGUMENT (the clip's space), MN_OUT_OF_MEMORY, MN_OVERFLOW.
 */
mn_status mni_error_ref_init(mni_error_ref *ref, const mn_skeleton *skeleton, const mn_clip *clip,
                             float shell, const mn_allocator *allocator, mn_error *err);
void mni_error_ref_free(mni_error_ref *ref);

/*
 * Per-joint max (joint_max, joints floats) of the candidate sampled through
 * `sample` over the reference's times, every `step`-th time (1: all);
 * errors_out (time_count × joints, may be NULL) receives every sample's
 * error.  Returns the max; *worst_joint and *worst_time where it is.
 */
float mni_error_eval(mni_error_ref *ref, mni_error_sampler sample, const void *ctx, uint32_t step,
                     float *joint_max, float *errors_out, uint32_t *worst_joint, float *worst_time);

/*
 * Each joint's lever (levers[joints]): the shell plus the farthest any
 * vertex of its subtree lies from it, at the reference's first, middle and
 * last times: how far a rotation error at the joint can throw a vertex.
 */
void mni_error_levers(mni_error_ref *ref, const mn_clip *clip, float *levers);

/* The sampler over an mn_clip (ctx is the clip). */
void mni_error_sample_clip(const void *ctx, float t, mn_pose *pose);

#endif /* MN_ANIM_COMPRESS_INTERNAL_H */
