/*
 * Private core helpers shared by every layer: allocation through the
 * caller's hooks, the arena that owns a loaded object, checked size
 * arithmetic, the SIMD level to run (core/simd.h has the kernels'
 * convention), running work on the worker pool, and filling an mn_error.
 * Not installed.
 */
#ifndef MN_CORE_CORE_H
#define MN_CORE_CORE_H

#include <marionette/core.h>
#include <marionette/pool.h>
#include <stdarg.h>

/* ---- allocation ---------------------------------------------------------- */

/* Allocate through the hooks (zeroed hooks → malloc).  NULL on failure or size 0. */
void *mni_alloc(const mn_allocator *allocator, size_t size);
/* Free through the hooks; size must be what was asked for.  NULL ptr is a no-op. */
void mni_free(const mn_allocator *allocator, void *ptr, size_t size);

/* ---- checked size arithmetic -------------------------------------------- */

/* *out = a * b; false (and *out = SIZE_MAX) when it overflows size_t. */
static inline bool mni_checked_mul(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a) {
        *out = SIZE_MAX;
        return false;
    }
    *out = a * b;
    return true;
}

/* *out = a + b; false (and *out = SIZE_MAX) when it overflows size_t. */
static inline bool mni_checked_add(size_t a, size_t b, size_t *out)
{
    if (b > SIZE_MAX - a) {
        *out = SIZE_MAX;
        return false;
    }
    *out = a + b;
    return true;
}

/* ---- prefetching ---------------------------------------------------------- */

/*
 * Ask for the cache lines of [p, p + bytes) ahead of use (to be written when
 * `write`); a hint that changes no value, nothing where the compiler has no
 * prefetch builtin.  For a loop over objects too many for the cache, which
 * fetches the next object's lines while it works on this one.
 */
static inline void mni_prefetch(const void *p, size_t bytes, bool write)
{
#if defined(__GNUC__) || defined(__clang__)
    const char *at = (const char *)((uintptr_t)p & ~(uintptr_t)63);
    const char *end = (const char *)p + bytes;
    /* Four lines a step: a crowd asks for about a hundred an instance, and the
       loop's own compare and add were three of every four instructions. */
    for (; end - at > 192; at += 256) {
        if (write) {
            __builtin_prefetch(at, 1, 3), __builtin_prefetch(at + 64, 1, 3);
            __builtin_prefetch(at + 128, 1, 3), __builtin_prefetch(at + 192, 1, 3);
        } else {
            __builtin_prefetch(at, 0, 3), __builtin_prefetch(at + 64, 0, 3);
            __builtin_prefetch(at + 128, 0, 3), __builtin_prefetch(at + 192, 0, 3);
        }
    }
    for (; at < end; at += 64) {
        if (write)
            __builtin_prefetch(at, 1, 3);
        else
            __builtin_prefetch(at, 0, 3);
    }
#else
    (void)p, (void)bytes, (void)write;
#endif
}

/* ---- name tables ----------------------------------------------------------- */

/* The number of elements of an array (not a pointer). */
#define MNI_COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* names[value] of an enum's name table of count entries; "invalid" past its end.  Never NULL
   when the table holds no NULL. */
static inline const char *mni_name_in(const char *const *names, size_t count, unsigned value)
{
    return value < count ? names[value] : "invalid";
}

/* ---- arenas -------------------------------------------------------------- */

/*
 * A bump allocator over a list of blocks taken from the hooks.  Small
 * requests share blocks; large ones get a block of their own.  Everything is
 * released at once by mni_arena_release.  Not thread-safe (one object, one arena).
 */
typedef struct mn_arena_block mn_arena_block;
typedef struct mn_arena {
    mn_allocator allocator;
    mn_arena_block *head;   /* newest block first */
    size_t used;            /* bytes handed out, for accounting */
    size_t reserved;        /* bytes taken from the hooks */
} mn_arena;

void mni_arena_init(mn_arena *arena, const mn_allocator *allocator);
/* Uninitialised memory aligned to `align` (a power of two ≤ 64).  NULL on failure; size 0 gives a valid (not necessarily unique) pointer. */
void *mni_arena_alloc(mn_arena *arena, size_t size, size_t align);
/* Zeroed memory for count × size bytes, aligned to `align`; NULL on failure or overflow. */
void *mni_arena_calloc(mn_arena *arena, size_t count, size_t size, size_t align);
/* A NUL-terminated copy of the first len bytes of s; NULL on failure. */
char *mni_arena_strndup(mn_arena *arena, const char *s, size_t len);
/* Give every block back to the hooks; the arena is then empty and reusable. */
void mni_arena_release(mn_arena *arena);

/*
 * Release the arena and then free `holder`, the block of `holder_size` bytes
 * that contains it (an object allocated together with the arena that owns
 * its data), through the arena's hooks.  The hooks are copied first: they
 * live inside the block being freed.
 */
static inline void mni_arena_release_holder(mn_arena *arena, void *holder, size_t holder_size)
{
    mn_allocator allocator = arena->allocator;
    mni_arena_release(arena);
    mni_free(&allocator, holder, holder_size);
}

/* ---- names sorted for lookups -------------------------------------------- */

/*
 * A list of names sorted once, for duplicate checks and lookups that stay
 * n log n however hostile the names (a hash table can be made to collide; a
 * sort cannot): every name takes part in O(log n) comparisons.  The refs
 * point at the caller's strings, which must outlive the sort.
 */
typedef struct mni_name_ref {
    const char *name;
    uint32_t index;            /* its place in the list */
} mni_name_ref;

typedef struct mni_names_sorted {
    mni_name_ref *refs;        /* by name, equal names by index; NULL entries left out */
    uint32_t count;
} mni_names_sorted;

/* Sort names[0..count) (NULL entries are left out) with refs from `arena`; false when out of memory. */
bool mni_names_sort(mni_names_sorted *s, mn_arena *arena, const char *const *names, uint32_t count);
/* The lowest index whose name is `name`, or MN_NONE (also for a NULL name). */
uint32_t mni_names_find(const mni_names_sorted *s, const char *name);
/*
 * The first index, in list order, whose name an earlier index has: true with
 * *dup that index and *first the earliest with that name; false when the
 * names are unique.
 */
bool mni_names_first_duplicate(const mni_names_sorted *s, uint32_t *dup, uint32_t *first);

/* ---- row-major affine matrices ------------------------------------------------ */

/* out = the inverse of the affine row-major 4×4 m (its last row taken as 0 0 0 1), computed in
   double (core/math.c): the head pack's and the character runtime's convention.  Returns false,
   leaving out unset, when m's 3×3 is singular or not finite. */
bool mni_affine_invert_rows(double out[16], const float m[16]);

/* ---- SIMD levels ------------------------------------------------------------ */

/*
 * The level a kernel family runs for a caller's `wanted` (mn_simd_level in
 * marionette/core.h: MN_SIMD_SCALAR stays; an x86-64 level is capped at
 * what mn_simd_detect() says; MN_SIMD_BEST, another architecture's level or
 * an unknown value gives mn_simd_detect()).  Never MN_SIMD_BEST.  A family
 * then runs its widest kernel not above the answer (core/simd.h).  As cheap
 * as mn_simd_detect: call it each time a kernel is chosen.
 */
mn_simd_level mni_simd_resolve(mn_simd_level wanted);

/*
 * Whether the CPU converts halves (x86 F16C), which the expression head's
 * AVX2 kernel needs on top of its level; false off x86 and in MN_NO_SIMD
 * builds.  Asks cpuid every time: for set-up, not per frame.
 */
bool mni_cpu_has_f16c(void);

/* ---- the worker pool (core/pool.c; the public half is marionette/pool.h) ------ */

/*
 * What every thread of a batch runs: `worker` is 0 on the calling thread and
 * 1 .. mn_pool_thread_count − 1 on the pool's threads, each exactly once.
 */
typedef void (*mni_pool_job)(void *context, uint32_t worker);

/*
 * Run job(context, w) once on each thread of the pool, the caller's
 * included (w = 0), and return when all are done.  A NULL pool or a pool of
 * one thread runs job(context, 0) on the caller alone.  Allocation-free.
 * Returns MN_OK, or MN_INVALID_ARGUMENT (nothing run) when another batch is
 * running on this pool (marionette/pool.h, THREAD SAFETY).
 */
mn_status mni_pool_run(mn_pool *pool, mni_pool_job job, void *context);

/* What a shared-out batch runs on items [first, end), on thread `worker` (as for mni_pool_job). */
typedef void (*mni_pool_range)(void *context, size_t first, size_t end, uint32_t worker);

/*
 * Share items 0 .. count − 1 out over the pool's threads and the caller's in
 * chunks of `chunk` (0 means 1): fn(context, first, end, worker) runs once
 * for every chunk, [k·chunk, min((k + 1)·chunk, count)), on whichever thread
 * takes it from one atomic counter, so a descheduled thread holds back one
 * chunk at most and the chunks' bounds never depend on the thread count.
 * `worker` lets fn use per-thread scratch (worker < mn_pool_thread_count).
 * A NULL pool, a pool of one thread, or a batch of one chunk runs every
 * chunk on the caller, waking no one.  Allocation-free; returns as
 * mni_pool_run.
 */
mn_status mni_pool_for(mn_pool *pool, size_t count, size_t chunk, mni_pool_range fn,
                       void *context);

/* ---- errors --------------------------------------------------------------- */

/*
 * Fill err (when not NULL) with code, JSON path (may be NULL), byte offset
 * (-1 for none) and a printf-style message; returns code so callers can
 * `return mni_error_set(...)`.  A NULL fmt uses the code's default message,
 * after the path when there is one ("images[0].uri: out of memory").  For
 * failures with neither a path nor an offset, mni_fail and mni_oom say it
 * shorter.
 */
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
mn_status mni_error_set(mn_error *err, mn_status code, const char *path, int64_t offset,
                        const char *fmt, ...);

/*
 * The common failure: mni_error_set with no path and no offset.  Fills err
 * (when not NULL) with code and the printf-style message (NULL: the code's
 * default message); returns code, so callers write `return mni_fail(...)`.
 */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
mn_status mni_fail(mn_error *err, mn_status code, const char *fmt, ...);

/*
 * Running out of memory: fills err (when not NULL) with MN_OUT_OF_MEMORY and
 * "<what>: out of memory", or plain "out of memory" when what is NULL;
 * returns MN_OUT_OF_MEMORY.  `what` names what needed the memory ("render
 * source", "a pose of 40 joints (1920 bytes)", "reading MTL"), printf-style.
 *
 * Why this shape: the words come from the status table, so they are written
 * once; `what` leads, as every message here names its item first
 * ("accessors[3]: ..."), and it is printf-style so sizes and names stay in
 * the message.  It takes no path: an allocation that fails for a JSON item
 * says so through mni_error_set (NULL fmt) or its reader's own helper
 * (mni_json_oom), which keep the path.  The text is cut so that the words
 * always fit.
 */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
mn_status mni_oom(mn_error *err, const char *what, ...);
/* mni_oom with a va_list, for helpers that put a path before its message. */
mn_status mni_oom_va(mn_error *err, const char *what, va_list ap);

/* Reset err (when not NULL) to "no error": code MN_OK, empty message and path, offset -1, line and column 0. */
void mni_error_clear(mn_error *err);

/*
 * "Did you mean": the closest of the names offered to `name`, for an error
 * that refuses an unknown name ("sped" when "speed" is declared).  The
 * distance is the optimal string alignment distance over bytes (insert,
 * delete, substitute, or swap two neighbours: one edit each), case-sensitive,
 * so "Speed" is one edit from "speed".  A name is close when it is within
 * max(1, strlen(name) / 3) edits (rustc's rule: a short name must be nearly
 * right, a long one may be further off) and both names have at most
 * MNI_SUGGEST_MAX bytes; ties go to the name offered first.  Allocation-free
 * (two rows on the stack), so a per-frame setter's error path may use it.
 *
 *     mni_suggest s;
 *     mni_suggest_init(&s, name);
 *     for (each declared name d) mni_suggest_offer(&s, d);
 *     char hint[96];
 *     mni_fail(err, code, "no parameter is named \"%s\"%s", name, mni_suggest_text(&s, hint, sizeof hint));
 */
#define MNI_SUGGEST_MAX 64u
typedef struct mni_suggest {
    const char *name;            /* what was asked for (borrowed) */
    const char *best;            /* the closest name offered so far, NULL while none is close */
    uint32_t distance;           /* best's distance */
    uint32_t limit;              /* the most edits that still count as close */
} mni_suggest;
void mni_suggest_init(mni_suggest *s, const char *name);
/* Offer one declared name (borrowed until the text is made; NULL is ignored). */
void mni_suggest_offer(mni_suggest *s, const char *candidate);
/* "; did you mean \"best\"?" into buf, or "" when nothing offered was close; returns buf. */
const char *mni_suggest_text(const mni_suggest *s, char *buf, size_t size);

#endif /* MN_CORE_CORE_H */
