/*
 * Building compressed clips (marionette/compress.h, THE COMPRESSED CLIP):
 * the clip resampled at its key rate, B-splines fitted to it per stride by
 * least squares, each track given a tolerance from
 * the bound and its joint's place in the hierarchy, the cheapest encoding
 * within it chosen (default, constant, or a stride and bit rate), then the
 * whole block measured by the hierarchy-aware metric and the tolerances
 * along each chain that errs too much halved until none does.  The block's
 * layout is compress_internal.h's; every candidate is measured through the
 * sampler's own decoder.
 */
#include "anim/clip_internal.h"
#include "anim/compress_internal.h"

#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_RATE 240.0
#define ROUNDS 16
/* Precision levels a bit: a record's level L holds 2^(L / LEVEL_STEPS) - 1 quanta of its extent. */
#define LEVEL_STEPS 4
/* The greedy last step (squeeze) runs where times × joints × tracks is at most this. */
#define SQUEEZE_WORK 4e6

/* One track being compressed. */
typedef struct ctrack {
    const mn_track *src;
    uint32_t joint;               /* skeleton joint it moves */
    uint32_t n;                   /* components stored when animated */
    float *frames;                /* frame_count × 4: resampled, rotations continuous */
    float *orig;                  /* time_count × 4: the source at the metric's times */
    float tol;                    /* local tolerance in the track's units */
    float *fits[MNI_CC_MAX_STRIDE_LOG2 + 1];  /* the least-squares knots of each stride, once made */
    uint32_t key_count;           /* KEYED candidate: its knots' frames and values (0: none) */
    uint32_t *key_frames;
    float *key_knots;             /* key_count × 4 */
    bool keyed_none;              /* no KEYED candidate (keys off the grid, or cubic) */
    bool omit;                    /* a default track: not stored */
    mni_cc_track rec;             /* the chosen record (its pointers stale: re-encoded at layout) */
    uint8_t level;                /* an animated record's precision: 2^(level / 4) - 1 quanta */
    mni_cc_track kept;            /* rec, level and omit of the best block so far */
    uint8_t kept_level;
    bool kept_omit;
} ctrack;

typedef struct compressor {
    mn_allocator allocator;
    mn_arena arena;
    const mn_clip *clip;
    const mn_skeleton *sk;
    float bound, shell;
    bool plain_only;              /* options.plain_only: no records of differences */
    uint32_t frames;
    float rate, duration;
    uint32_t count;
    ctrack *tracks;
    mni_error_ref ref;
    float *levers, *joint_max;
    uint8_t *scratch;             /* one track's encoded data, the largest a track can need */
    size_t scratch_size;
    double *band, *rhs;           /* the least-squares fit's system: K × 4 each */
    void *cursor;                 /* a cursor's storage for measuring blocks (every track stored) */
    uint32_t *grid, *grid_bases;  /* encode's scratch: knots × 4 grid values, segments × 4 bases */
} compressor;

/* ---- resampling ----------------------------------------------------------------- */

/*
 * The clip's key rate: per track its mean rate when its keys are evenly
 * spaced (float times jitter the finest gap by an ulp), else its finest
 * gap's; the clip's is the highest, then multiplied (up to 64×) until every
 * key time falls on the frame grid where some multiple makes it.  Capped at
 * MAX_RATE; 0 when no track has two keys.
 */
static double key_rate(const mn_clip *clip)
{
    double best = 0.0;
    uint32_t n = mn_clip_track_count(clip);
    for (uint32_t i = 0; i < n; i++) {
        const mn_track *tr = mn_clip_track(clip, i);
        double gap = INFINITY;
        for (uint32_t k = 1; k < tr->key_count; k++) {
            double d = (double)tr->times[k] - (double)tr->times[k - 1];
            gap = d > 1e-5 && d < gap ? d : gap;
        }
        if (!isfinite(gap))
            continue;
        double span = (double)tr->times[tr->key_count - 1] - (double)tr->times[0];
        double mean = (tr->key_count - 1) / span, finest = 1.0 / gap;
        double r = finest <= mean * 1.01 ? mean : finest;
        best = r > best ? r : best;
    }
    if (best <= 0.0)
        return 0.0;
    best = best > MAX_RATE ? MAX_RATE : best;
    for (int m = 1; m <= 64 && best * m <= MAX_RATE; m++) {
        bool on_grid = true;
        for (uint32_t i = 0; i < n && on_grid; i++) {
            const mn_track *tr = mn_clip_track(clip, i);
            for (uint32_t k = 0; k < tr->key_count && on_grid; k++) {
                double f = (double)tr->times[k] * best * m;
                on_grid = fabs(f - floor(f + 0.5)) < 0.01;
            }
        }
        if (on_grid)
            return best * m;
    }
    return best;
}

/* 4-component distance between two quaternions up to sign, as an angle (radians). */
static float quat_angle(const float *a, const float *b)
{
    float dm = 0.0f, dp = 0.0f;
    for (int c = 0; c < 4; c++) {
        dm += (a[c] - b[c]) * (a[c] - b[c]);
        dp += (a[c] + b[c]) * (a[c] + b[c]);
    }
    float d = sqrtf(dm < dp ? dm : dp) * 0.5f;
    if (d < 0.05f)
        return 4.0f * d * (1.0f + d * d * (1.0f / 6.0f)); /* asin's series: off by < 1e-7 */
    return 4.0f * asinf(d < 1.0f ? d : 1.0f);
}

static float vec_distance(const float *a, const float *b)
{
    float d = 0.0f;
    for (int c = 0; c < 3; c++)
        d += (a[c] - b[c]) * (a[c] - b[c]);
    return sqrtf(d);
}

/* Frames of a track: sampled on the grid; rotations continuous, then w >= 0 when w keeps one sign. */
static void resample(const compressor *z, ctrack *ct)
{
    const mn_track *tr = ct->src;
    bool rot = tr->path == MN_PATH_ROTATION;
    for (uint32_t f = 0; f < z->frames; f++) {
        float t = (float)f / z->rate;
        float *v = ct->frames + 4 * (size_t)f;
        mn_track_sample(tr, t < z->duration ? t : z->duration, v);
        if (rot && f > 0) {
            const float *p = v - 4;
            if (p[0] * v[0] + p[1] * v[1] + p[2] * v[2] + p[3] * v[3] < 0.0f)
                for (int c = 0; c < 4; c++)
                    v[c] = -v[c];
        }
    }
    ct->n = 3;
    if (!rot)
        return;
    bool pos = true, neg = true;
    for (uint32_t f = 0; f < z->frames; f++) {
        pos = pos && ct->frames[4 * (size_t)f + 3] >= 0.0f;
        neg = neg && ct->frames[4 * (size_t)f + 3] <= 0.0f;
    }
    if (!pos && !neg) {
        ct->n = 4;
        return;
    }
    if (!pos)
        for (size_t i = 0; i < 4 * (size_t)z->frames; i++)
            ct->frames[i] = -ct->frames[i];
}

/* ---- encoding one track ------------------------------------------------------------- */

/* Knots and segments of an animated record with its stride set. */
static void plan_record(const compressor *z, mni_cc_track *r)
{
    if (!(r->flags & MNI_CC_KEYED)) /* a KEYED record's knot count is its own */
        r->knot_count = mni_cc_knots_of(z->frames, r->stride_log2);
    if (r->segment_log2 < MNI_CC_SEGMENT_LOG2_MIN)
        r->segment_log2 = MNI_CC_SEGMENT_LOG2_MIN;
    r->segment_count = ((r->knot_count - 1u) >> r->segment_log2) + 1u;
}

/*
 * The knots of ct at stride 2^sl into fit (K × 4): the frames themselves at
 * stride 1; above, the control points of the uniform cubic B-spline (the
 * decoder's, end knots extrapolated as it does) closest to every frame in
 * least squares, solved by a banded Cholesky factorisation in double.
 * Returns the knots (ct->frames at stride 1).
 */
static const float *knots_of(const compressor *z, const ctrack *ct, uint32_t sl, float *fit)
{
    if (sl == 0 || (ct->src->interpolation == MN_INTERP_STEP))
        return ct->frames;
    mni_cc_track r = {.stride_log2 = (uint8_t)sl};
    plan_record(z, &r);
    uint32_t K = r.knot_count, s = 1u << sl;
    double (*U)[4] = (double (*)[4])z->band; /* U[i][d] = N[i][i + d] */
    double *b = z->rhs;                       /* K × 4 */
    memset(U, 0, (size_t)K * sizeof *U);
    memset(b, 0, (size_t)K * 4 * sizeof(double));
    bool rot = ct->src->path == MN_PATH_ROTATION;
    /* Every frame and every midpoint between two: the metric measures both, and the source's
       keys are joined by straight lines (slerps) that no smooth curve meets at both. */
    for (uint32_t i = 0; i + 1 < 2 * z->frames; i++) {
        uint32_t f = i / 2;
        double y[4];
        const float *y0 = ct->frames + 4 * (size_t)f;
        if (i % 2 == 0) {
            for (int c = 0; c < 4; c++)
                y[c] = y0[c];
        } else {
            double l = 0.0;
            for (int c = 0; c < 4; c++) {
                y[c] = 0.5 * ((double)y0[c] + (double)y0[c + 4]);
                l += y[c] * y[c];
            }
            for (int c = 0; c < 4 && rot && l > 0.0; c++)
                y[c] /= sqrt(l);
        }
        double u = 0.5 * i / s;
        uint32_t k = (uint32_t)u;
        if (k + 1 >= K)
            k = K >= 2 ? K - 2 : 0;
        double t = u - k, q = 1.0 - t, t2 = t * t, t3 = t2 * t;
        double w[4] = {q * q * q / 6.0, (3 * t3 - 6 * t2 + 4) / 6.0, (-3 * t3 + 3 * t2 + 3 * t + 1) / 6.0,
                       t3 / 6.0};
        /* The row over c: p1 = c_k, p2 = c_k+1, p0 and p3 as the decoder extrapolates them. */
        double row[6] = {0};      /* row[i]: the weight of c_(k - 2 + i) */
        int32_t base = (int32_t)k - 2;
        row[2] += w[1];           /* p1 = c_k */
        row[3] += w[2];           /* p2 = c_(k+1) */
        if (k > 0) {              /* p0 = c_(k-1), else 3 c0 - 3 c1 + c2 (2 c0 - c1 with 2 knots) */
            row[1] += w[0];
        } else if (K > 2) {
            row[2] += 3 * w[0], row[3] -= 3 * w[0], row[4] += w[0];
        } else {
            row[2] += 2 * w[0], row[3] -= w[0];
        }
        if (k + 2 <= K - 1) {     /* p3 = c_(k+2), else 3 p2 - 3 p1 + p0 (2 p2 - p1 at k = 0) */
            row[4] += w[3];
        } else if (k > 0) {
            row[3] += 3 * w[3], row[2] -= 3 * w[3], row[1] += w[3];
        } else {
            row[3] += 2 * w[3], row[2] -= w[3];
        }
        for (int e = 0; e < 6; e++) {
            int32_t ci = base + e;
            if (row[e] == 0.0 || ci < 0 || ci >= (int32_t)K)
                continue;
            for (int j = e; j < 6 && j - e < 4; j++) {
                int32_t cj = base + j;
                if (row[j] == 0.0 || cj >= (int32_t)K)
                    continue;
                U[ci][cj - ci] += row[e] * row[j];
            }
            for (uint32_t c = 0; c < 4; c++)
                b[4 * (size_t)ci + c] += row[e] * y[c];
        }
    }
    double ridge = 0.0;
    for (uint32_t i = 0; i < K; i++)
        ridge = U[i][0] > ridge ? U[i][0] : ridge;
    ridge *= 1e-12;
    for (uint32_t i = 0; i < K; i++) {
        U[i][0] += ridge;
        for (uint32_t d = 0; d < 4 && i + d < K; d++) {
            uint32_t j = i + d;
            double sum = U[i][d];
            for (uint32_t m = j >= 3 ? j - 3 : 0; m < i; m++)
                if (i - m <= 3 && j - m <= 3)
                    sum -= U[m][i - m] * U[m][j - m];
            U[i][d] = d == 0 ? sqrt(sum > 1e-300 ? sum : 1e-300) : sum / U[i][0];
        }
    }
    for (uint32_t c = 0; c < 4; c++) {
        for (uint32_t i = 0; i < K; i++) { /* Uᵀ y = b */
            double sum = b[4 * (size_t)i + c];
            for (uint32_t m = i >= 3 ? i - 3 : 0; m < i; m++)
                sum -= U[m][i - m] * b[4 * (size_t)m + c];
            b[4 * (size_t)i + c] = sum / U[i][0];
        }
        for (uint32_t i = K; i-- > 0;) { /* U x = y */
            double sum = b[4 * (size_t)i + c];
            for (uint32_t d = 1; d < 4 && i + d < K; d++)
                sum -= U[i][d] * b[4 * (size_t)(i + d) + c];
            b[4 * (size_t)i + c] = sum / U[i][0];
        }
        for (uint32_t i = 0; i < K; i++)
            fit[4 * (size_t)i + c] = (float)b[4 * (size_t)i + c];
    }
    return fit;
}

static void put_bits(uint8_t *values, size_t bit, uint32_t q)
{
    uint64_t word;
    memcpy(&word, values + (bit >> 3), 8);
    word |= (uint64_t)q << (bit & 7u);
    memcpy(values + (bit >> 3), &word, 8);
}

/* v as LEB128 into out; returns the bytes written (1 to 5). */
static size_t put_leb(uint32_t v, uint8_t *out)
{
    size_t at = 0;
    do {
        out[at++] = (uint8_t)((v & 0x7fu) | (v > 0x7fu ? 0x80u : 0u));
        v >>= 7;
    } while (v);
    return at;
}

/* v as a zigzag LEB128 (mni_cc_zigzag's). */
static size_t put_zigzag(int32_t v, uint8_t *out)
{
    return put_leb(((uint32_t)v << 1) ^ (v < 0 ? 0xffffffffu : 0u), out);
}

static size_t leb_bytes(uint32_t v)
{
    uint8_t tmp[5];
    return put_leb(v, tmp);
}

/* f's high half (bf16), rounded away from zero unless exact: never below f in magnitude. */
static uint32_t bf16_up(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0xffffu) && (u & 0x7f800000u) != 0x7f800000u)
        u += 0x10000u;
    return u >> 16;
}

static float bf16_value(uint32_t h)
{
    uint32_t u = h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* The record's first bytes: desc and the target as LEB128; returns the bytes written. */
static size_t put_head(const mni_cc_track *r, uint8_t *out)
{
    size_t at = 0;
    out[at++] = (uint8_t)(r->path | (r->kind == MNI_CC_ANIMATED ? MNI_CC_DESC_ANIMATED : 0u) |
                          ((r->flags & MNI_CC_W_DROPPED) ? MNI_CC_DESC_W_DROPPED : 0u) |
                          ((r->flags & MNI_CC_STEP) ? MNI_CC_DESC_STEP : 0u) |
                          ((r->flags & MNI_CC_DELTA) ? MNI_CC_DESC_DELTA : 0u) |
                          ((r->flags & MNI_CC_DELTA2) ? MNI_CC_DESC_DELTA2 : 0u) |
                          ((r->flags & MNI_CC_KEYED) ? MNI_CC_DESC_KEYED : 0u));
    return at + put_leb(r->target, out + at);
}

/* A constant record's bytes (desc, target, value); returns its size. */
static size_t put_constant(const mni_cc_track *r, uint8_t *out)
{
    size_t at = put_head(r, out);
    memcpy(out + at, r->min, (size_t)r->components * 4u);
    return at + (size_t)r->components * 4u;
}

/* Bits to hold 0 .. v. */
static uint32_t bit_length(uint32_t v)
{
    uint32_t b = 0;
    while (v >> b)
        b++;
    return b;
}

/*
 * Knot k's component c on the grid: round((v - min) / quantum), 0 .. 2^24 - 1, or
 * down to -(2^24 - 1) (as an int32) where the minimum is the first knot's.
 */
static uint32_t grid_of(const float *knots, const mni_cc_track *r, uint32_t k, uint32_t c,
                        bool below)
{
    if (!(r->quantum > 0.0f))
        return 0;
    double top = (double)((1u << MNI_CC_MAX_BITS) - 1u), bottom = below ? -top : 0.0;
    double u = floor((double)(knots[4 * (size_t)k + c] - r->min[c]) / r->quantum + 0.5);
    u = u < bottom ? bottom : u > top ? top : u;
    return (uint32_t)(int32_t)u;
}

/* Segment g's knots [*k0, *k1). */
static void segment_span(const mni_cc_track *r, uint32_t g, uint32_t *k0, uint32_t *k1)
{
    uint32_t seg = 1u << r->segment_log2;
    *k0 = g * seg;
    *k1 = *k0 + seg < r->knot_count ? *k0 + seg : r->knot_count;
}

/*
 * Component c's base in segment g (into gb[g × 4 + c], from the grid
 * values q[k × 4 + c]): the smallest grid value there (0 with one segment:
 * no base), or with DELTA the segment's first knot's.
 */
static void fill_bases(const uint32_t *q, const mni_cc_track *r, uint32_t *gb)
{
    for (uint32_t g = 0; g < r->segment_count; g++) {
        uint32_t k0, k1;
        segment_span(r, g, &k0, &k1);
        for (uint32_t c = 0; c < r->components; c++) {
            uint32_t lo = UINT32_MAX;
            if (r->flags & MNI_CC_DELTA)
                lo = q[4 * (size_t)k0 + c];
            else if (r->segment_count <= 1)
                lo = 0;
            else
                for (uint32_t k = k0; k < k1; k++)
                    lo = q[4 * (size_t)k + c] < lo ? q[4 * (size_t)k + c] : lo;
            gb[4 * (size_t)g + c] = lo;
        }
    }
}

/* Grid difference of knot k from the knot before (k > 0). */
static int64_t diff_of(const uint32_t *q, uint32_t k, uint32_t c)
{
    return (int64_t)(int32_t)q[4 * (size_t)k + c] - (int64_t)(int32_t)q[4 * (size_t)(k - 1) + c];
}

/* What knot k stores for component c, before the offset (a knot with a stored value). */
static int64_t stored_of(const uint32_t *q, const uint32_t *gb, const mni_cc_track *r, uint32_t g,
                         uint32_t k, uint32_t c)
{
    if (r->flags & MNI_CC_DELTA2)
        return diff_of(q, k, c) - diff_of(q, k - 1, c);
    if (r->flags & MNI_CC_DELTA)
        return diff_of(q, k, c);
    return (int64_t)q[4 * (size_t)k + c] - (int64_t)gb[4 * (size_t)g + c];
}

/* Segment g's slope for component c (DELTA2): its second knot's difference, 0 with one knot. */
static int64_t slope_of(const uint32_t *q, const mni_cc_track *r, uint32_t g, uint32_t c)
{
    uint32_t k0, k1;
    segment_span(r, g, &k0, &k1);
    return k1 > k0 + 1 ? diff_of(q, k0 + 1, c) : 0;
}

/* The bits that hold v - lo for every v in [lo, hi]; 0 when there is none (lo > hi). */
static uint8_t span_bits(int64_t lo, int64_t hi)
{
    return (uint8_t)(lo > hi ? 0u : bit_length((uint32_t)(hi - lo)));
}

/*
 * Encode an animated track (stride, components, flags and target set in r;
 * MNI_CC_DELTA, and MNI_CC_DELTA2, in flags for differences) at 2^(level / 4) - 1
 * steps of its widest component's extent into out (the whole record, plus
 * 8 bytes it may touch past its end): the clip minimum per component, one
 * quantum, per segment each component's base (and slope), and each
 * component's stored values (above the base, or differences less an
 * offset), each in the fewest bits that hold every segment's.  The
 * differences change the bytes, never the grid values, so every form errs
 * alike.  r's fields and pointers (into out) are set as mni_cc_parse would
 * set them.  Returns the size.
 */
static size_t encode(const compressor *z, const float *knots, const uint32_t *key_frames,
                     mni_cc_track *r, uint32_t level, uint8_t *out)
{
    plan_record(z, r);
    bool delta = (r->flags & MNI_CC_DELTA) != 0, second = (r->flags & MNI_CC_DELTA2) != 0;
    uint32_t n = r->components, K = r->knot_count, G = r->segment_count;
    uint32_t skip = second ? 2 : delta ? 1 : 0; /* a segment's knots without a stored value */
    bool based = G > 1;
    /* Differences in one segment: the first knot is the origin (its base 0, none stored). */
    bool origin = delta && !based;
    float widest = 0.0f;
    for (uint32_t c = 0; c < 4; c++) {
        r->min[c] = 0.0f;
        r->bits[c] = r->base_bits[c] = r->slope_bits[c] = 0;
        r->offset[c] = r->slope_offset[c] = 0;
    }
    for (uint32_t c = 0; c < n; c++) {
        float lo = INFINITY, hi = -INFINITY;
        for (uint32_t k = 0; k < K; k++) {
            float v = knots[4 * (size_t)k + c];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        r->min[c] = lo;
        widest = hi - lo > widest ? hi - lo : widest;
    }
    /* The quantum in a bf16 (rounded up), each minimum on its grid: m quanta (rounded down). */
    double steps = exp2((double)level / LEVEL_STEPS) - 1.0; /* 2^(level / 4) - 1 */
    r->quantum = widest > 0.0f ? bf16_value(bf16_up((float)((double)widest / steps))) : 0.0f;
    int32_t mins[4] = {0, 0, 0, 0};
    for (uint32_t c = 0; c < n && r->quantum > 0.0f; c++) {
        double m = origin ? floor((double)knots[c] / (double)r->quantum + 0.5)
                          : floor((double)r->min[c] / (double)r->quantum);
        mins[c] = m < -2147483647.0 ? -2147483647 : m > 2147483647.0 ? 2147483647 : (int32_t)m;
        r->min[c] = r->quantum * (float)mins[c];
    }
    uint32_t *q = z->grid, *gb = z->grid_bases;
    for (uint32_t k = 0; k < K; k++)
        for (uint32_t c = 0; c < n; c++)
            q[4 * (size_t)k + c] = grid_of(knots, r, k, c, origin);
    for (uint32_t k = K; origin && k-- > 0;) /* exactly 0 at the origin (0.5 may round up) */
        for (uint32_t c = 0; c < n; c++)
            q[4 * (size_t)k + c] -= q[c];
    fill_bases(q, r, gb);
    /* Per component: the offsets (the least stored value, slope), then every field's bits. */
    r->knot_bits = r->segment_bits = r->slope_sum = 0;
    int64_t least[4] = {0, 0, 0, 0}, least_slope[4] = {0, 0, 0, 0};
    for (uint32_t c = 0; c < n; c++) {
        int64_t lo = INT64_MAX, hi = INT64_MIN, slo = INT64_MAX, shi = INT64_MIN;
        for (uint32_t g = 0; g < G; g++) {
            uint32_t k0, k1;
            segment_span(r, g, &k0, &k1);
            uint32_t bb = based ? bit_length(gb[4 * (size_t)g + c]) : 0u;
            r->base_bits[c] = (uint8_t)(bb > r->base_bits[c] ? bb : r->base_bits[c]);
            if (second) {
                int64_t v = slope_of(q, r, g, c);
                slo = v < slo ? v : slo;
                shi = v > shi ? v : shi;
            }
            for (uint32_t k = k0 + skip; k < k1; k++) {
                int64_t v = stored_of(q, gb, r, g, k, c);
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
        }
        least[c] = delta && lo <= hi ? lo : 0;
        least_slope[c] = second ? slo : 0;
        r->offset[c] = (uint32_t)(int32_t)least[c];
        r->slope_offset[c] = (uint32_t)(int32_t)least_slope[c];
        r->bits[c] = span_bits(least[c], hi);
        r->slope_bits[c] = second ? span_bits(slo, shi) : 0;
        r->knot_bits += r->bits[c];
        r->segment_bits += r->base_bits[c];
        r->slope_sum += r->slope_bits[c];
    }
    bool keyed = (r->flags & MNI_CC_KEYED) != 0;
    r->frame_bits = keyed ? (uint8_t)bit_length(z->frames - 1u) : 0u;
    size_t at = put_head(r, out);
    if (keyed)
        at += put_leb(K, out + at);
    /* The widths, packed: stride, segment size, then 5 bits a width. */
    uint8_t widths[3 * 4 + 1];
    uint32_t w = 0;
    for (uint32_t c = 0; c < n; c++)
        widths[w++] = r->bits[c];
    if (keyed)
        widths[w++] = r->frame_bits;
    for (uint32_t c = 0; c < n && based; c++)
        widths[w++] = r->base_bits[c];
    for (uint32_t c = 0; c < n && second; c++)
        widths[w++] = r->slope_bits[c];
    size_t packed = (5u + 5u * w + 7u) / 8u;
    memset(out + at, 0, packed + 8u);
    put_bits(out + at, 0, (uint32_t)(r->stride_log2 | (r->segment_log2 - MNI_CC_SEGMENT_LOG2_MIN) << 3));
    for (uint32_t i = 0; i < w; i++)
        put_bits(out + at, 5u + 5u * i, widths[i]);
    at += packed;
    uint32_t qh = bf16_up(r->quantum);
    out[at++] = (uint8_t)qh;
    out[at++] = (uint8_t)(qh >> 8);
    for (uint32_t c = 0; c < n; c++) {
        if (r->quantum > 0.0f) {
            at += put_zigzag(mins[c], out + at);
        } else {
            memcpy(out + at, &r->min[c], 4);
            at += 4;
        }
    }
    for (uint32_t c = 0; c < n && delta; c++)
        at += put_zigzag((int32_t)least[c], out + at);
    for (uint32_t c = 0; c < n && second; c++)
        at += put_zigzag((int32_t)least_slope[c], out + at);
    size_t bases = based ? mni_cc_stream_bytes(G, r->segment_bits) : 0u;
    size_t slopes = second ? mni_cc_stream_bytes(G, r->slope_sum) : 0u;
    size_t frames = keyed ? mni_cc_stream_bytes(K, r->frame_bits) : 0u;
    size_t values = mni_cc_stream_bytes(mni_cc_entries(K, r->flags, r->segment_log2), r->knot_bits);
    uint8_t *base_out = out + at, *slope_out = base_out + bases, *frame_out = slope_out + slopes;
    uint8_t *value_out = frame_out + frames;
    r->bases = based ? base_out : NULL;
    r->slopes = second ? slope_out : NULL;
    r->frames = keyed ? frame_out : NULL;
    r->values = value_out;
    memset(base_out, 0, bases + slopes + frames + values + MNI_CC_TAIL);
    for (uint32_t k = 0; k < K && keyed && r->frame_bits; k++)
        put_bits(frame_out, (size_t)k * r->frame_bits, key_frames[k]);
    size_t base_bit = 0, slope_bit = 0, entry = 0;
    for (uint32_t g = 0; g < G; g++) {
        uint32_t k0, k1;
        segment_span(r, g, &k0, &k1);
        uint32_t first = k0 + skip; /* the first knot with a stored value */
        size_t bit = entry * r->knot_bits;
        for (uint32_t c = 0; c < n; c++) {
            if (based && r->base_bits[c])
                put_bits(base_out, base_bit, gb[4 * (size_t)g + c]);
            base_bit += r->base_bits[c];
            if (second && r->slope_bits[c])
                put_bits(slope_out, slope_bit, (uint32_t)(slope_of(q, r, g, c) - least_slope[c]));
            slope_bit += r->slope_bits[c];
            for (uint32_t k = first; k < k1 && r->bits[c]; k++)
                put_bits(value_out, bit + (size_t)(k - first) * r->knot_bits,
                         (uint32_t)(stored_of(q, gb, r, g, k, c) - least[c]));
            bit += r->bits[c];
        }
        entry += k1 > first ? k1 - first : 0;
    }
    r->size = (uint32_t)(at + bases + slopes + frames + values);
    return r->size;
}

/* The track's largest local error (its units) under record r over data; stops past limit. */
static float local_error(const compressor *z, const ctrack *ct, const mni_cc_track *r, float limit,
                         uint32_t step)
{
    mni_cc_header head = {.duration = z->duration, .sample_rate = z->rate,
                          .frame_count = z->frames};
    float worst = 0.0f;
    /* The span's knots kept from one time to the next, as a cursor keeps them (same bits). */
    float p[4][4] = {{0}};
    uint32_t span1 = 0;
    mni_cc_walker walk = {0, {0}, {0}};
    for (uint32_t m = 0; m < z->ref.time_count; m += step) {
        float out[4], s = 0.0f;
        float f = mni_cc_frame_of(&head, z->ref.times[m]);
        if (r->kind == MNI_CC_ANIMATED) {
            uint32_t k = mni_cc_span(r, f, &s);
            if (span1 != k + 1u && !(span1 == k && k > 0 && mni_cc_advance(r, k, p, &walk))) {
                memset(p, 0, sizeof p);
                mni_cc_span_knots(r, k, p, &walk);
            }
            span1 = k + 1u;
        }
        mni_cc_interp(r, (const float(*)[4])p, s, out);
        const float *o = ct->orig + 4 * (size_t)m;
        float e = r->path == MN_PATH_ROTATION ? quat_angle(out, o) : vec_distance(out, o);
        if (!(e <= worst))
            worst = e;
        if (!(worst <= limit))
            return worst;
    }
    return worst;
}

/* The knots of ct at stride 2^sl, fitted once and kept (NULL when out of memory). */
static const float *fitted(compressor *z, ctrack *ct, uint32_t sl)
{
    if (sl == 0 || ct->src->interpolation == MN_INTERP_STEP)
        return ct->frames;
    if (!ct->fits[sl]) {
        mni_cc_track r = {.stride_log2 = (uint8_t)sl};
        plan_record(z, &r);
        ct->fits[sl] = mni_arena_alloc(&z->arena, (size_t)r.knot_count * 4 * sizeof(float), 16);
        if (ct->fits[sl])
            knots_of(z, ct, sl, ct->fits[sl]);
    }
    return ct->fits[sl];
}

/* A constant record holding v (a rotation normalised, all four kept). */
static mni_cc_track constant_record(const ctrack *ct, const float *v)
{
    mni_cc_track r;
    memset(&r, 0, sizeof r);
    r.target = ct->src->target;
    r.path = (uint8_t)ct->src->path;
    r.kind = MNI_CC_CONSTANT;
    r.components = ct->src->path == MN_PATH_ROTATION ? 4 : 3;
    r.knot_count = 1;
    memcpy(r.min, v, (size_t)r.components * sizeof(float));
    r.size = (uint32_t)(1u + leb_bytes(r.target) + 4u * r.components);
    if (ct->src->path == MN_PATH_ROTATION) {
        float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
        for (int c = 0; c < 4; c++)
            r.min[c] = l > 0.0f ? v[c] / l : (c == 3 ? 1.0f : 0.0f);
    }
    return r;
}

/* A constant rotation stored as x y z (w >= 0 rebuilt, the sign flipped for it), as parse reads it. */
static mni_cc_track constant_dropped(const mni_cc_track *full)
{
    mni_cc_track r = *full;
    float sign = full->min[3] < 0.0f ? -1.0f : 1.0f;
    for (int c = 0; c < 3; c++)
        r.min[c] = sign * full->min[c];
    float w2 = 1.0f - (r.min[0] * r.min[0] + r.min[1] * r.min[1] + r.min[2] * r.min[2]);
    r.min[3] = w2 > 0.0f ? sqrtf(w2) : 0.0f;
    r.components = 3;
    r.flags |= MNI_CC_W_DROPPED;
    r.size -= 4u;
    return r;
}

/*
 * The keyed candidate's knots: where every source key falls on the frame
 * grid (a LINEAR or STEP track), the frames of its keys, with the first and
 * the last frame; false when a key is off the grid or there are no fewer
 * knots than frames.
 */
static bool plan_keyed(compressor *z, ctrack *ct)
{
    const mn_track *tr = ct->src;
    if (ct->key_count || ct->keyed_none)
        return ct->key_count > 0;
    ct->keyed_none = true; /* until shown otherwise */
    if (tr->interpolation == MN_INTERP_CUBICSPLINE || z->frames < 3 || tr->key_count + 2u >= z->frames)
        return false;
    uint32_t *kf = mni_arena_alloc(&z->arena, ((size_t)tr->key_count + 2u) * sizeof(uint32_t), 4);
    if (!kf)
        return false;
    uint32_t K = 0;
    kf[K++] = 0;
    for (uint32_t k = 0; k < tr->key_count; k++) {
        double f = (double)tr->times[k] * z->rate;
        double r = floor(f + 0.5);
        if (fabs(f - r) > 1e-3)
            return false;
        uint32_t fi = r < 0.0 ? 0u : r > z->frames - 1.0 ? z->frames - 1u : (uint32_t)r;
        if (fi > kf[K - 1])
            kf[K++] = fi;
    }
    if (kf[K - 1] != z->frames - 1u)
        kf[K++] = z->frames - 1u;
    float *knots = mni_arena_alloc(&z->arena, (size_t)K * 4 * sizeof(float), 16);
    if (!knots)
        return false;
    for (uint32_t k = 0; k < K; k++)
        memcpy(knots + 4 * (size_t)k, ct->frames + 4 * (size_t)kf[k], 4 * sizeof(float));
    ct->key_frames = kf;
    ct->key_knots = knots;
    ct->key_count = K;
    ct->keyed_none = false;
    return true;
}

/*
 * The lowest precision level at which r (its form set) over knots holds
 * ct's tolerance, encoded into the scratch; 0 when none does.
 */
static uint32_t lowest_level(compressor *z, ctrack *ct, const float *knots, const uint32_t *kf,
                             mni_cc_track *r)
{
    /* Binary search on the level (the error falls nearly monotonically with it) over every
       third sample time, then the lowest from there that holds at every one. */
    uint32_t la = 1, lb = MNI_CC_MAX_BITS + 1;
    while (la < lb) {
        uint32_t level = (la + lb) / 2;
        encode(z, knots, kf, r, level * LEVEL_STEPS, z->scratch);
        if (local_error(z, ct, r, ct->tol, 3) <= ct->tol)
            lb = level;
        else
            la = level + 1;
    }
    for (; la <= MNI_CC_MAX_BITS; la++) {
        encode(z, knots, kf, r, la * LEVEL_STEPS, z->scratch);
        if (local_error(z, ct, r, ct->tol, 1) <= ct->tol)
            return la * LEVEL_STEPS;
    }
    return 0;
}

/* The rest value of the track's joint and path. */
static const float *rest_value(const compressor *z, const ctrack *ct)
{
    const mn_pose *rest = &z->sk->rest;
    switch (ct->src->path) {
    case MN_PATH_TRANSLATION: return rest->translations + 3 * (size_t)ct->joint;
    case MN_PATH_ROTATION: return rest->rotations + 4 * (size_t)ct->joint;
    default: return rest->scales + 3 * (size_t)ct->joint;
    }
}

/* Pick the cheapest encoding of ct within ct->tol: default, constant, or stride and bits. */
static void choose(compressor *z, ctrack *ct)
{
    /* Default: the rest value is within tolerance. */
    mni_cc_track r = constant_record(ct, rest_value(z, ct));
    ct->omit = false;
    if (local_error(z, ct, &r, ct->tol, 1) <= ct->tol) {
        ct->omit = true;
        ct->rec = r;
        return;
    }
    /* Constant: the middle of each component's range. */
    float lo[4], hi[4], mid[4];
    for (int c = 0; c < 4; c++) {
        lo[c] = INFINITY;
        hi[c] = -INFINITY;
    }
    for (uint32_t f = 0; f < z->frames; f++)
        for (int c = 0; c < 4; c++) {
            float v = ct->frames[4 * (size_t)f + c];
            lo[c] = v < lo[c] ? v : lo[c];
            hi[c] = v > hi[c] ? v : hi[c];
        }
    for (int c = 0; c < 4; c++)
        mid[c] = 0.5f * (lo[c] + hi[c]);
    r = constant_record(ct, mid);
    if (local_error(z, ct, &r, ct->tol, 1) <= ct->tol) {
        mni_cc_track d = constant_dropped(&r);
        ct->rec = r.path == MN_PATH_ROTATION && local_error(z, ct, &d, ct->tol, 1) <= ct->tol ? d : r;
        return;
    }
    /*
     * Animated: for each stride (and the source's keys, where they lie on
     * the grid), the fewest bits within tolerance; the fewest bytes wins.
     */
    mni_cc_track best;
    size_t best_bytes = SIZE_MAX;
    uint8_t best_level = 0;
    memset(&best, 0, sizeof best);
    for (int32_t sl = -1; sl <= (int32_t)MNI_CC_MAX_STRIDE_LOG2; sl++) {
        if (sl > 0 && (1u << (sl - 1)) >= z->frames)
            break;
        bool keyed = sl < 0;
        if (keyed && !plan_keyed(z, ct))
            continue;
        memset(&r, 0, sizeof r);
        r.target = ct->src->target;
        r.path = (uint8_t)ct->src->path;
        r.kind = MNI_CC_ANIMATED;
        r.components = (uint8_t)ct->n;
        r.flags = (uint8_t)((ct->n == 3 && ct->src->path == MN_PATH_ROTATION ? MNI_CC_W_DROPPED : 0) |
                            (ct->src->interpolation == MN_INTERP_STEP ? MNI_CC_STEP : 0) |
                            (keyed ? MNI_CC_KEYED : 0));
        r.stride_log2 = (uint8_t)(keyed ? 0 : sl);
        r.knot_count = keyed ? ct->key_count : 0;
        const float *knots = keyed ? ct->key_knots : fitted(z, ct, (uint32_t)sl);
        const uint32_t *kf = keyed ? ct->key_frames : NULL;
        if (!knots)
            continue; /* out of memory for this stride's fit: the others remain */
        uint32_t la = lowest_level(z, ct, knots, kf, &r);
        if (la == 0 && keyed)
            continue;
        if (la == 0)
            break; /* a longer stride errs more still */
        /*
         * The same grid values as differences (of differences), and in longer segments (fewer
         * bases, longer walks from one): the same error, maybe fewer bytes.
         */
        mni_cc_track plain = r;
        for (uint32_t form = 0; form <= 2 && (form == 0 || !z->plain_only); form++) {
            for (uint32_t sg = MNI_CC_SEGMENT_LOG2_MIN; sg <= MNI_CC_SEGMENT_LOG2_MAX; sg++) {
                if (form == 0 && sg == MNI_CC_SEGMENT_LOG2_MIN)
                    continue; /* r itself */
                if (sg > MNI_CC_SEGMENT_LOG2_MIN && r.knot_count <= (1u << (sg - 1)))
                    break; /* one segment already */
                mni_cc_track d = plain;
                d.flags = (uint8_t)((d.flags & ~(MNI_CC_DELTA | MNI_CC_DELTA2)) |
                                    (form >= 1 ? MNI_CC_DELTA : 0u) | (form == 2 ? MNI_CC_DELTA2 : 0u));
                d.segment_log2 = (uint8_t)sg;
                if (encode(z, knots, kf, &d, la, z->scratch) < r.size)
                    r = d;
            }
        }
        if (r.size < best_bytes) {
            best_bytes = r.size;
            best = r;
            best_level = (uint8_t)la;
        }
    }
    if (best_bytes == SIZE_MAX) {
        /* Nothing meets the tolerance: every frame at full precision is the best there is. */
        best = r;
        best.flags &= (uint8_t)~(MNI_CC_DELTA | MNI_CC_DELTA2 | MNI_CC_KEYED);
        best.stride_log2 = 0;
        best_level = MNI_CC_MAX_BITS * LEVEL_STEPS;
        encode(z, ct->frames, NULL, &best, best_level, z->scratch);
    }
    ct->rec = best;
    ct->level = best_level;
}

/* Encode ct's chosen animated record r at its level into out: the knots choose measured. */
static size_t encode_chosen(compressor *z, ctrack *ct, mni_cc_track *r, uint8_t *out)
{
    if (r->flags & MNI_CC_KEYED)
        return encode(z, ct->key_knots, ct->key_frames, r, ct->level, out);
    return encode(z, fitted(z, ct, r->stride_log2), NULL, r, ct->level, out);
}

/* ---- the block ---------------------------------------------------------------------- */

/*
 * The header (compress_internal.h) into out (MNI_CC_MAX_HEADER bytes),
 * errors 0 and the checksum left for seal (run writes the errors just
 * before the name length); returns its size.
 */
static size_t put_header(const compressor *z, size_t total, uint32_t tracks, uint32_t name_len,
                         uint8_t *out)
{
    mn_space sp = mn_clip_space(z->clip);
    bool shell = z->shell != MN_SHELL_DISTANCE_DEFAULT;
    memcpy(out, MNI_CC_MAGIC, 4);
    out[4] = MNI_CC_VERSION;
    out[5] = (uint8_t)(sp.kind | (sp.id ? MNI_CC_HEAD_SPACE_ID : 0u) |
                       (shell ? MNI_CC_HEAD_SHELL : 0u) | MNI_CC_HEAD_ERRORS);
    size_t at = MNI_CC_CHECKED_FROM;
    at += put_leb((uint32_t)total, out + at);
    at += put_leb(z->frames, out + at);
    at += put_leb(tracks, out + at);
    memcpy(out + at, &z->duration, 4);
    at += 4;
    if (sp.kind != MN_SPACE_UNBOUND)
        at += put_leb(sp.count, out + at);
    if (sp.id) {
        memcpy(out + at, &sp.id, 8);
        at += 8;
    }
    if (shell) {
        memcpy(out + at, &z->shell, 4);
        at += 4;
    }
    memset(out + at, 0, 4);
    at += 4;
    at += put_leb(name_len, out + at);
    return at;
}

/* Lay out and fill the whole block from the chosen records; NULL on OOM or a block over 4 GiB. */
static uint8_t *build_block(compressor *z, const mn_allocator *allocator, size_t *size_out)
{
    uint32_t stored = 0;
    const char *name = mn_clip_name(z->clip);
    size_t name_len = strlen(name);
    name_len = name_len > UINT16_MAX ? UINT16_MAX : name_len; /* longer names are cut */
    size_t records = 0;
    for (uint32_t i = 0; i < z->count; i++) {
        const ctrack *ct = &z->tracks[i];
        stored += !ct->omit;
        records += ct->omit ? 0 : ct->rec.size;
    }
    uint8_t head[MNI_CC_MAX_HEADER];
    size_t tail = name_len + 1u + mni_cc_pad((uint32_t)name_len);
    /* The header's size depends on the total's LEB128 bytes: settle it (a few rounds at most). */
    size_t size = 0, head_size = 0;
    for (int i = 0; i < 4; i++) {
        head_size = put_header(z, size, stored, (uint32_t)name_len, head);
        size_t next = head_size + records + tail;
        if (next == size)
            break;
        size = next;
    }
    if (size > UINT32_MAX)
        return NULL;
    head_size = put_header(z, size, stored, (uint32_t)name_len, head);
    uint8_t *block = mni_alloc(allocator, size);
    if (!block)
        return NULL;
    memset(block, 0, size);
    memcpy(block, head, head_size);
    size_t at = head_size;
    for (uint32_t i = 0; i < z->count; i++) {
        ctrack *ct = &z->tracks[i];
        if (ct->omit)
            continue;
        mni_cc_track r = ct->rec;
        if (r.kind == MNI_CC_ANIMATED) /* the same bytes choose measured: the fit is kept */
            at += encode_chosen(z, ct, &r, block + at);
        else
            at += put_constant(&r, block + at);
    }
    /* After the records (whose encoding zeroes the 8 bytes past each): the name, NUL, zeros. */
    memcpy(block + at, name, name_len);
    *size_out = size;
    return block;
}

static void seal(uint8_t *block)
{
    uint32_t total = mni_cc_head((const mn_compressed_clip *)(const void *)block).total_size;
    uint32_t sum = mni_cc_fnv(2166136261u, block + MNI_CC_CHECKED_FROM, total - MNI_CC_CHECKED_FROM);
    memcpy(block + 6, &sum, 4);
}

/* A block and a cursor's storage over it (zeroed for each pass over the times). */
typedef struct block_cursor {
    const uint8_t *block;
    void *cache;
} block_cursor;

static void sample_block(const void *ctx, float t, mn_pose *pose)
{
    const block_cursor *b = ctx;
    mni_compressed_sample((const mn_compressed_clip *)(const void *)b->block, t, b->cache, pose,
                          MN_SIMD_BEST);
}

/* ---- set-up ------------------------------------------------------------------------- */

/* The longest chain of joints from a root to a leaf through each joint. */
static void chain_lengths(const mn_skeleton *sk, uint32_t *chain)
{
    uint32_t n = sk->joint_count;
    for (uint32_t j = 0; j < n; j++)
        chain[j] = 1; /* height below j, counting j */
    for (uint32_t j = n; j-- > 0;)
        if (sk->parents[j] >= 0 && chain[j] + 1 > chain[sk->parents[j]])
            chain[sk->parents[j]] = chain[j] + 1;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t depth = 0;
        for (int32_t p = sk->parents[j]; p >= 0; p = sk->parents[p])
            depth++;
        chain[j] += depth;
    }
}

/* Tracks to compress: the last pose track of each (joint, path) with keys; the rest dropped. */
static mn_status gather(compressor *z, mn_compress_stats *stats, mn_error *err)
{
    const mn_skeleton *sk = z->sk;
    uint32_t total = mn_clip_track_count(z->clip);
    uint32_t *last = mni_arena_calloc(&z->arena, (size_t)(sk->joint_count ? sk->joint_count : 1) * 3,
                                      sizeof(uint32_t), 4);
    z->tracks = mni_arena_calloc(&z->arena, total ? total : 1, sizeof(ctrack), 16);
    if (!last || !z->tracks)
        return mni_oom(err, "compression");
    for (uint32_t j = 0; j < sk->joint_count * 3u; j++)
        last[j] = MN_NONE;
    for (uint32_t i = 0; i < total; i++) {
        const mn_track *tr = mn_clip_track(z->clip, i);
        uint32_t joint = tr->target;
        if (z->ref.joint_of_target)
            joint = tr->target < sk->node_count ? z->ref.joint_of_target[tr->target] : MN_NONE;
        if (tr->key_count == 0)
            continue;
        if (tr->path == MN_PATH_WEIGHTS || joint == MN_NONE || joint >= sk->joint_count) {
            stats->dropped_tracks++;
            continue;
        }
        last[3 * joint + tr->path] = i;
    }
    for (uint32_t j = 0; j < sk->joint_count * 3u; j++) {
        if (last[j] == MN_NONE)
            continue;
        ctrack *ct = &z->tracks[z->count++];
        ct->src = mn_clip_track(z->clip, last[j]);
        ct->joint = j / 3;
        ct->frames = mni_arena_calloc(&z->arena, (size_t)z->frames * 4, sizeof(float), 16);
        ct->orig = mni_arena_calloc(&z->arena, (size_t)z->ref.time_count * 4, sizeof(float), 16);
        if (!ct->frames || !ct->orig)
            return mni_oom(err, "compression: %u frames", z->frames);
        resample(z, ct);
        for (uint32_t m = 0; m < z->ref.time_count; m++)
            mn_track_sample(ct->src, z->ref.times[m], ct->orig + 4 * (size_t)m);
    }
    return MN_OK;
}

/* Each track's first tolerance: its joint's share of the bound, over its lever for rotations and scales. */
static mn_status first_tolerances(compressor *z, mn_error *err)
{
    uint32_t n = z->sk->joint_count ? z->sk->joint_count : 1;
    uint32_t *chain = mni_arena_calloc(&z->arena, n, sizeof(uint32_t), 4);
    z->levers = mni_arena_calloc(&z->arena, 2 * (size_t)n, sizeof(float), 16);
    z->joint_max = mni_arena_calloc(&z->arena, n, sizeof(float), 16);
    if (!chain || !z->levers || !z->joint_max)
        return mni_oom(err, "compression");
    chain_lengths(z->sk, chain);
    mni_error_levers(&z->ref, z->clip, z->levers);
    for (uint32_t i = 0; i < z->count; i++) {
        ctrack *ct = &z->tracks[i];
        float share = 0.7f * z->bound / sqrtf((float)chain[ct->joint]);
        ct->tol = ct->src->path == MN_PATH_TRANSLATION ? share : share / z->levers[ct->joint];
    }
    return MN_OK;
}

static mn_status setup(compressor *z, double multiplier, mn_compress_stats *stats, mn_error *err)
{
    mn_status st = mni_error_ref_init(&z->ref, z->sk, z->clip, z->shell, &z->allocator, err);
    if (st != MN_OK)
        return st;
    double rate = key_rate(z->clip) * multiplier;
    double d = mn_clip_duration(z->clip);
    z->duration = d > 0.0 ? (float)d : 0.0f;
    z->frames = 1;
    z->rate = 1.0f;
    if (rate > 0.0 && d > 0.0) {
        /* A whole number of frames spans the duration: 360.01 intervals are 360. */
        double frames = d * rate;
        frames = (fabs(frames - floor(frames + 0.5)) < 0.02 ? floor(frames + 0.5) : ceil(frames)) + 1.0;
        if (frames > MNI_CC_MAX_FRAMES)
            return mni_fail(err, MN_OVERFLOW, "compression: %.0f frames (at most %u)", frames,
                            MNI_CC_MAX_FRAMES);
        z->frames = (uint32_t)frames;
        z->rate = (float)((frames - 1.0) / d);
    }
    st = gather(z, stats, err);
    if (st == MN_OK)
        st = first_tolerances(z, err);
    if (st != MN_OK)
        return st;
    /* The largest record: every frame at 16 bits, 4 components, a base per segment. */
    uint32_t knots_max = mni_cc_knots_of(z->frames, 0);
    z->scratch_size = MNI_CC_MAX_RECORD_HEAD +
                      mni_cc_stream_bytes((knots_max >> MNI_CC_SEGMENT_LOG2_MIN) + 1, 4 * MNI_CC_MAX_BITS) +
                      mni_cc_stream_bytes(knots_max, 4 * MNI_CC_MAX_BITS) +
                      mni_cc_stream_bytes(knots_max, MNI_CC_MAX_BITS) + MNI_CC_TAIL + 64;
    z->scratch = mni_arena_alloc(&z->arena, z->scratch_size, 16);
    size_t knots = (size_t)z->frames + 2;
    z->band = mni_arena_calloc(&z->arena, knots * 4, sizeof(double), 16);
    z->rhs = mni_arena_calloc(&z->arena, knots * 4, sizeof(double), 16);
    z->cursor = mni_arena_alloc(&z->arena, mni_cc_cursor_bytes(z->count ? z->count : 1), 16);
    z->grid = mni_arena_calloc(&z->arena, (size_t)knots_max * 4, sizeof(uint32_t), 16);
    z->grid_bases = mni_arena_calloc(&z->arena, ((size_t)(knots_max >> MNI_CC_SEGMENT_LOG2_MIN) + 1) * 4,
                                     sizeof(uint32_t), 16);
    return z->scratch && z->band && z->rhs && z->cursor && z->grid && z->grid_bases
               ? MN_OK
               : mni_oom(err, "compression scratch");
}

/* ---- the search --------------------------------------------------------------------- */

/* Halve the tolerance of every track on the chains of joints over the bound; false when none is. */
static bool tighten(compressor *z, uint8_t *mark)
{
    const mn_skeleton *sk = z->sk;
    memset(mark, 0, sk->joint_count);
    bool any = false;
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        if (!(z->joint_max[j] > z->bound))
            continue;
        any = true;
        for (int32_t a = (int32_t)j; a >= 0; a = sk->parents[a])
            mark[a] = 1;
    }
    for (uint32_t i = 0; any && i < z->count; i++)
        if (mark[z->tracks[i].joint]) {
            z->tracks[i].tol *= 0.5f;
            choose(z, &z->tracks[i]);
        }
    return any;
}

/*
 * Loosen each track by how far the worst vertex its joint moves (its
 * subtree's) sits under the bound, at most 8×; false when nothing gains.
 */
static bool relax(compressor *z)
{
    const mn_skeleton *sk = z->sk;
    float *sub = z->levers + sk->joint_count; /* scratch beside the levers */
    for (uint32_t j = sk->joint_count; j-- > 0;) {
        sub[j] = z->joint_max[j];
        for (uint32_t d = j + 1; d < sk->subtree_end[j]; d++)
            sub[j] = z->joint_max[d] > sub[j] ? z->joint_max[d] : sub[j];
    }
    bool any = false;
    for (uint32_t i = 0; i < z->count; i++) {
        ctrack *ct = &z->tracks[i];
        float e = sub[ct->joint];
        float f = e > 0.0f ? 0.9f * z->bound / e : 8.0f;
        f = f > 8.0f ? 8.0f : f;
        if (f < 1.1f)
            continue;
        ct->tol *= f;
        choose(z, ct);
        any = true;
    }
    return any;
}

/* The metric over block, sampled through a cursor (the times ascend; a cursor never changes a result). */
static float measure_into(compressor *z, const uint8_t *block, float *joint_max, float *errors)
{
    memset(z->cursor, 0, mni_compressed_cursor_size((const mn_compressed_clip *)(const void *)block));
    block_cursor b = {block, z->cursor};
    return mni_error_eval(&z->ref, sample_block, &b, 1, joint_max, errors, NULL, NULL);
}

static float measure(compressor *z, const uint8_t *block)
{
    return measure_into(z, block, z->joint_max, NULL);
}

/* Remember (keep) or bring back (!keep) every track's choice of the best block. */
static void keep_choices(compressor *z, bool keep)
{
    for (uint32_t i = 0; i < z->count; i++) {
        ctrack *ct = &z->tracks[i];
        if (keep) {
            ct->kept = ct->rec, ct->kept_level = ct->level, ct->kept_omit = ct->omit;
        } else {
            ct->rec = ct->kept, ct->level = ct->kept_level, ct->omit = ct->kept_omit;
        }
    }
}

/*
 * The greedy last step, for clips whose whole-block measure is cheap: in
 * rounds, from the last track (the leaves) to the first, lower each
 * animated track's precision one level (a quarter bit) while the
 * hierarchy-aware metric of the whole block stays within the bound; a
 * track that fails is left where it is.  Round by round, so that the
 * error the bound leaves is shared among the tracks rather than taken by
 * the first.  *best (a passing block) is replaced by each smaller block
 * that passes.  false on OOM (*best still valid).
 */
static bool squeeze(compressor *z, uint8_t *stuck, uint8_t **best, size_t *best_size,
                    float *best_worst)
{
    memset(stuck, 0, z->count);
    for (int pass = 0; pass < 8 * LEVEL_STEPS; pass++) {
        bool gained = false;
        for (uint32_t i = z->count; i-- > 0;) {
            ctrack *ct = &z->tracks[i];
            if (stuck[i] || ct->omit || ct->rec.kind != MNI_CC_ANIMATED || ct->level <= 1)
                continue;
            mni_cc_track was = ct->rec;
            ct->level--;
            encode_chosen(z, ct, &ct->rec, z->scratch);
            size_t size = 0;
            uint8_t *block = build_block(z, &z->allocator, &size);
            if (!block) {
                ct->level++, ct->rec = was;
                return false;
            }
            float worst = measure(z, block);
            if (worst <= z->bound && size <= *best_size) {
                mni_free(&z->allocator, *best, *best_size);
                *best = block, *best_size = size, *best_worst = worst;
                gained = true;
                continue;
            }
            mni_free(&z->allocator, block, size);
            ct->level++, ct->rec = was;
            stuck[i] = 1;
        }
        if (!gained)
            break;
    }
    return true;
}

static mn_status run(compressor *z, mn_compressed_clip **out, mn_compress_stats *stats,
                     mn_error *err)
{
    for (uint32_t i = 0; i < z->count; i++)
        choose(z, &z->tracks[i]);
    uint8_t *mark = mni_arena_alloc(&z->arena, z->sk->joint_count ? z->sk->joint_count : 1, 1);
    if (!mark)
        return mni_oom(err, "compression");
    size_t size = 0, best_size = 0;
    uint8_t *block = NULL, *best = NULL;
    float worst = 0.0f, best_worst = 0.0f;
    bool relaxing = true;
    for (int round = 0; round < ROUNDS; round++) {
        block = build_block(z, &z->allocator, &size);
        if (!block) {
            mni_free(&z->allocator, best, best_size);
            return mni_oom(err, "a compressed clip");
        }
        worst = measure(z, block);
        if (worst <= z->bound && (!best || size < best_size)) {
            mni_free(&z->allocator, best, best_size);
            best = block;
            best_size = size;
            best_worst = worst;
            keep_choices(z, true);
        } else if (best || worst <= z->bound) {
            mni_free(&z->allocator, block, size);
        } else if (round + 1 < ROUNDS) {
            mni_free(&z->allocator, block, size); /* no passing block yet: keep searching */
        } else {
            best = block; /* the last word, over the bound: bound_met says so */
            best_size = size;
            best_worst = worst;
        }
        block = NULL;
        if (worst <= z->bound) {
            if (!relaxing || !relax(z))
                break;
        } else {
            relaxing = best == NULL; /* once a relaxation overshoots, only tighten */
            if (!tighten(z, mark))
                break;
        }
    }
    if (best && best_worst <= z->bound &&
        (double)z->ref.time_count * z->sk->joint_count * z->count <= SQUEEZE_WORK) {
        keep_choices(z, false);
        uint8_t *stuck = mni_arena_alloc(&z->arena, z->count ? z->count : 1, 1);
        if (!stuck || !squeeze(z, stuck, &best, &best_size, &best_worst)) {
            mni_free(&z->allocator, best, best_size);
            return mni_oom(err, "a compressed clip");
        }
    }
    if (!best) {
        /* Every round erred: the last, tightest choice is the best there is. */
        best = build_block(z, &z->allocator, &best_size);
        if (!best)
            return mni_oom(err, "a compressed clip");
        best_worst = measure(z, best);
    }
    block = best;
    size = best_size;
    worst = best_worst;
    /* The p99 over every (time, joint) sample, stored with the max. */
    size_t n = (size_t)z->ref.time_count * z->sk->joint_count;
    float *errors = mni_arena_calloc(&z->arena, n ? n : 1, sizeof(float), 16);
    if (!errors) {
        mni_free(&z->allocator, block, size);
        return mni_oom(err, "compression");
    }
    measure_into(z, block, NULL, errors);
    float p99 = 0.0f;
    if (n > 0) {
        /* Count below a bisected threshold instead of sorting n floats. */
        float lo = 0.0f, hi = worst;
        for (int it = 0; it < 40; it++) {
            float mid = 0.5f * (lo + hi);
            size_t below = 0;
            for (size_t i = 0; i < n; i++)
                below += errors[i] <= mid;
            if ((double)below >= 0.99 * (double)n)
                hi = mid;
            else
                lo = mid;
        }
        p99 = hi;
    }
    /* The errors as bf16, rounded up: what the block records is never below what was measured. */
    uint32_t e[2] = {bf16_up(worst), bf16_up(p99)};
    mni_cc_header h = mni_cc_head((const mn_compressed_clip *)(const void *)block);
    size_t errors_at = h.header_size - 4u - leb_bytes(h.name_length);
    for (int i = 0; i < 2; i++) {
        block[errors_at + 2 * i] = (uint8_t)e[i];
        block[errors_at + 2 * i + 1] = (uint8_t)(e[i] >> 8);
    }
    seal(block);
    stats->bytes = size;
    stats->frame_count = z->frames;
    stats->sample_rate = z->rate;
    for (uint32_t i = 0; i < z->count; i++) {
        const ctrack *ct = &z->tracks[i];
        if (ct->omit)
            stats->default_tracks++;
        else if (ct->rec.kind == MNI_CC_CONSTANT)
            stats->constant_tracks++;
        else
            stats->animated_tracks++;
    }
    stats->max_error = worst;
    stats->p99_error = p99;
    stats->bound_met = worst <= z->bound;
    *out = (mn_compressed_clip *)(void *)block;
    return MN_OK;
}

mn_status mn_compress_clip(const mn_clip *clip, const mn_skeleton *skeleton,
                           const mn_compress_options *options, mn_compressed_clip **out,
                           mn_compress_stats *stats, mn_error *err)
{
    if (out)
        *out = NULL;
    if (!clip || !skeleton || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_compress_clip: clip, skeleton and out must not be NULL");
    mn_compress_options o = options ? *options : (mn_compress_options){0};
    if (o.max_error == 0.0f)
        o.max_error = MN_COMPRESS_ERROR_DEFAULT;
    if (o.shell == 0.0f)
        o.shell = MN_SHELL_DISTANCE_DEFAULT;
    if (!(o.max_error > 0.0f) || !isfinite(o.max_error) || !(o.shell > 0.0f) || !isfinite(o.shell))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_compress_clip: max_error %g and shell %g must be finite and > 0",
                        (double)o.max_error, (double)o.shell);
    mn_compress_stats local;
    if (!stats)
        stats = &local;
    /*
     * Resampling at the key rate errs where the source does not interpolate
     * linearly between its keys (CUBICSPLINE, STEP off the grid): when the
     * bound is not met, try again at twice the rate, three times at most.
     */
    mn_status st = MN_OK;
    for (double multiplier = 1.0;; multiplier *= 2.0) {
        compressor z;
        memset(&z, 0, sizeof z);
        z.allocator = o.allocator;
        z.clip = clip;
        z.sk = skeleton;
        z.bound = o.max_error;
        z.shell = o.shell;
        z.plain_only = o.plain_only;
        mni_arena_init(&z.arena, &z.allocator);
        memset(stats, 0, sizeof *stats);
        st = setup(&z, multiplier, stats, err);
        if (st == MN_OK)
            st = run(&z, out, stats, err);
        bool again = st == MN_OK && !stats->bound_met && multiplier < 8.0 && z.frames > 1 &&
                     (double)z.rate * 2.0 <= MAX_RATE * 1.0001;
        mni_arena_release(&z.arena);
        mni_error_ref_free(&z.ref);
        if (!again)
            break;
        mn_compressed_clip_free(*out, &o.allocator);
        *out = NULL;
    }
    if (st == MN_OK && err)
        mni_error_clear(err);
    return st;
}

size_t mn_animation_raw_bytes(const mn_animation *a)
{
    size_t bytes = 0;
    for (uint32_t i = 0; a && i < a->channel_count; i++) {
        const mn_channel *ch = &a->channels[i];
        bool times_seen = false, values_seen = false;
        for (uint32_t k = 0; k < i; k++) {
            times_seen = times_seen || a->channels[k].times == ch->times;
            values_seen = values_seen || a->channels[k].values == ch->values;
        }
        size_t per = (size_t)ch->components * (ch->interpolation == MN_INTERP_CUBICSPLINE ? 3 : 1);
        bytes += times_seen ? 0 : (size_t)ch->key_count * 4;
        bytes += values_seen ? 0 : (size_t)ch->key_count * per * 4;
    }
    return bytes;
}
