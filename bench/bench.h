/*
 * bench.h — what every marionette benchmark shares.
 *
 *   - bench_now_ms: a monotonic clock (CLOCK_MONOTONIC), in milliseconds.
 *   - bench_run: time a callback N times; keep the best and the median.
 *   - bench_memcpy_ms: memcpy of the same number of bytes, measured in the
 *     same run, as the yardstick every figure is printed beside (machines
 *     differ and are shared, a ratio to memcpy travels better than a time).
 *   - bench_line_*: one JSON object per line on stdout, for people and scripts.
 *
 * There are no timing thresholds here, on purpose: the machines are shared
 * and noisy, so a benchmark reports and never fails on a figure.  A
 * benchmark exits non-zero only when what it measures is wrong (a read
 * fails, a converted value differs), because then its figures mean nothing.
 *
 * Everything is static inline so each bench_<name>.c stays one translation
 * unit with no support library.
 */
#ifndef MN_BENCH_H
#define MN_BENCH_H

#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 200809L
#error "define _POSIX_C_SOURCE 200809L before including any header (clock_gettime)"
#endif

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- clock ------------------------------------------------------------- */

/* Milliseconds on the monotonic clock: immune to wall-clock adjustments. */
static inline double bench_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ---- best of N --------------------------------------------------------- */

/* Repetitions are bounded so the median needs no allocation. */
#define BENCH_MAX_RUNS 64

/*
 * One timed repetition.  Returns false when the work failed; bench_run then
 * stops and reports ok = false, because a time for failed work is no figure.
 */
typedef bool (*bench_fn)(void *ctx);

typedef struct bench_timing {
    bool ok;
    int runs;            /* repetitions completed */
    double best_ms;      /* the least disturbed run: what the code can do */
    double median_ms;    /* what a caller typically sees on a shared machine */
} bench_timing;

static inline int bench_compare_double_(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/*
 * Run `body` `runs` times (1..BENCH_MAX_RUNS), timing each call alone.
 * `after` (may be NULL) runs untimed after each call: it releases what the
 * body made (a model), so releasing is not counted and every repetition
 * starts from the same state.
 */
static inline bench_timing bench_run(int runs, bench_fn body, bench_fn after, void *ctx)
{
    bench_timing t = {false, 0, 0.0, 0.0};
    double ms[BENCH_MAX_RUNS];
    if (runs < 1 || runs > BENCH_MAX_RUNS)
        return t;
    for (int i = 0; i < runs; i++) {
        double start = bench_now_ms();
        bool ok = body(ctx);
        ms[i] = bench_now_ms() - start;
        if (after != NULL && !after(ctx))
            ok = false;
        if (!ok)
            return t;
        t.runs = i + 1;
    }
    qsort(ms, (size_t)runs, sizeof ms[0], bench_compare_double_);
    t.ok = true;
    t.best_ms = ms[0];
    t.median_ms = runs % 2 ? ms[runs / 2] : 0.5 * (ms[runs / 2 - 1] + ms[runs / 2]);
    return t;
}

/* Throughput in GB/s (10^9 bytes per second) of `bytes` handled in `ms`. */
static inline double bench_gbps(size_t bytes, double ms)
{
    return ms > 0.0 ? (double)bytes / (ms * 1e6) : 0.0;
}

/* ---- the memcpy yardstick ---------------------------------------------- */

typedef struct bench_memcpy_ctx_ {
    unsigned char *dst;
    const unsigned char *src;
    size_t bytes;
    unsigned sink;       /* bytes read back, so the copy cannot be dropped as dead */
} bench_memcpy_ctx_;

static inline bool bench_memcpy_body_(void *ctx)
{
    bench_memcpy_ctx_ *c = ctx;
    memcpy(c->dst, c->src, c->bytes);
    c->sink += c->dst[0] + c->dst[c->bytes / 2] + c->dst[c->bytes - 1];
    return true;
}

/*
 * Best-of-`runs` memcpy of `bytes` bytes, in the same process and run as the
 * figure it is compared with.  Both buffers are written before timing, so
 * page faults (first touch of fresh memory) are not counted: the yardstick
 * is the memory bandwidth, not the kernel.  Returns a timing with ok = false
 * when the buffers cannot be allocated.
 */
static inline bench_timing bench_memcpy_ms(size_t bytes, int runs)
{
    bench_timing t = {false, 0, 0.0, 0.0};
    if (bytes == 0)
        return t;
    unsigned char *src = malloc(bytes);
    unsigned char *dst = malloc(bytes);
    if (src != NULL && dst != NULL) {
        /* A non-zero pattern: fresh zero pages may share one physical page. */
        memset(src, 0x5a, bytes);
        memset(dst, 0xa5, bytes);
        bench_memcpy_ctx_ ctx = {dst, src, bytes, 0};
        t = bench_run(runs, bench_memcpy_body_, NULL, &ctx);
        if (ctx.sink == 1u)          /* never true; keeps the reads alive */
            fputc('\0', stderr);
    }
    free(src);
    free(dst);
    return t;
}

/* ---- JSON lines ------------------------------------------------------- */

/*
 * One JSON object, built field by field and printed as one line:
 *
 *     bench_line line;
 *     bench_line_begin(&line, "load", "parse_zero_copy");
 *     bench_line_u64(&line, "bytes", size);
 *     bench_line_num(&line, "ms", t.best_ms);
 *     bench_line_print(&line);
 *
 * A line that would overflow the buffer is cut at the last whole field, so
 * the output stays valid JSON.
 */
typedef struct bench_line {
    char text[2048];
    size_t len;
} bench_line;

static inline void bench_line_raw_(bench_line *line, const char *key, const char *value)
{
    size_t room = sizeof line->text - line->len;
    int n = snprintf(line->text + line->len, room, "%s\"%s\":%s",
                     line->len > 1 ? "," : "", key, value);
    if (n > 0 && (size_t)n < room - 2)   /* keep room for the closing "}\n" */
        line->len += (size_t)n;
    else
        line->text[line->len] = '\0';
}

static inline void bench_line_str(bench_line *line, const char *key, const char *value)
{
    char quoted[512];
    size_t n = 0;
    quoted[n++] = '"';
    for (const char *s = value; *s != '\0' && n < sizeof quoted - 8; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            quoted[n++] = '\\';
            quoted[n++] = (char)ch;
        } else if (ch < 0x20) {
            n += (size_t)snprintf(quoted + n, sizeof quoted - n, "\\u%04x", ch);
        } else {
            quoted[n++] = (char)ch;
        }
    }
    quoted[n++] = '"';
    quoted[n] = '\0';
    bench_line_raw_(line, key, quoted);
}

static inline void bench_line_begin(bench_line *line, const char *bench, const char *name)
{
    line->text[0] = '{';
    line->text[1] = '\0';
    line->len = 1;
    bench_line_str(line, "bench", bench);
    bench_line_str(line, "case", name);
}

static inline void bench_line_u64(bench_line *line, const char *key, uint64_t value)
{
    char text[32];
    snprintf(text, sizeof text, "%llu", (unsigned long long)value);
    bench_line_raw_(line, key, text);
}

static inline void bench_line_i64(bench_line *line, const char *key, int64_t value)
{
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)value);
    bench_line_raw_(line, key, text);
}

/* A number with 3 decimals (ms, GB/s, ratios); JSON has no NaN, so null. */
static inline void bench_line_num(bench_line *line, const char *key, double value)
{
    char text[64];
    if (isfinite(value))
        snprintf(text, sizeof text, "%.3f", value);
    else
        snprintf(text, sizeof text, "null");
    bench_line_raw_(line, key, text);
}

static inline void bench_line_bool(bench_line *line, const char *key, bool value)
{
    bench_line_raw_(line, key, value ? "true" : "false");
}

/* Print the object as one line and flush, so a pipe sees each case as it ends. */
static inline void bench_line_print(bench_line *line)
{
    fprintf(stdout, "%s}\n", line->text);
    fflush(stdout);
}

/*
 * The standard throughput fields of a timed case beside its memcpy
 * yardstick: bytes, ms (best), median_ms, runs, gbps, memcpy_ms,
 * memcpy_gbps, ratio_to_memcpy (throughput / memcpy throughput: 1.0 means
 * as fast as copying the same bytes).
 */
static inline void bench_line_throughput(bench_line *line, size_t bytes, bench_timing t,
                                         bench_timing memcpy_t)
{
    double gbps = bench_gbps(bytes, t.best_ms);
    double memcpy_gbps = bench_gbps(bytes, memcpy_t.best_ms);
    bench_line_u64(line, "bytes", bytes);
    bench_line_num(line, "ms", t.best_ms);
    bench_line_num(line, "median_ms", t.median_ms);
    bench_line_i64(line, "runs", t.runs);
    bench_line_num(line, "gbps", gbps);
    bench_line_num(line, "memcpy_ms", memcpy_t.best_ms);
    bench_line_num(line, "memcpy_gbps", memcpy_gbps);
    bench_line_num(line, "ratio_to_memcpy", memcpy_gbps > 0.0 ? gbps / memcpy_gbps : NAN);
}

#endif /* MN_BENCH_H */
