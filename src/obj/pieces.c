/*
 * The parallel OBJ read: a big text is split at line ends into pieces that
 * threads parse at once, then joined into exactly what the one pass makes.
 *
 *   1. Split: near equal sizes, each piece starting after a '\n' that ends a
 *      statement (a line continued by a trailing backslash is never cut).
 *   2. Parse the pieces (obj/read.c with mn_obj_parser.piece set): v, vt and
 *      vn go to each piece's own arrays; faces are checked and recorded
 *      (mn_obj_piece), not written, since the positions they name may lie
 *      in an earlier piece still being read; usemtl, mtllib and the first
 *      use of each unknown keyword are kept as events, in order.
 *   3. Join, on the caller's thread: element counts give each piece its
 *      first index of each kind; the result's arrays are allocated at their
 *      full size and the threads copy each piece's arrays into place; the events
 *      are replayed through the one pass's own state (mni_obj_use_material,
 *      mni_obj_add_faces, mni_obj_warn_unknown with the piece's lines shifted
 *      by the lines before it), which makes the same groups, libraries and
 *      warnings; bounds are merged keeping the earlier of equal values, as
 *      the one pass does; the soup is allocated at its exact size.
 *   4. Write the soup: the recorded faces, in chunks of about
 *      MN_OBJ_CHUNK_VERTICES taken by whichever thread is free, resolved and
 *      written by mn_obj_emit_face, the one pass's own routine, each at its
 *      place in the one soup.  Touching the fresh soup pages from every
 *      thread also shares out the kernel's zeroing of them.
 *
 * Errors are not joined: a piece stops at its first error, the join checks
 * the index ranges that reach into earlier pieces and every limit, and on
 * any failure (memory included) the caller reads the text again in one
 * pass, which reports the first error of the file with its line, column and
 * message exactly as it always does.  A failing read costs more; a good one
 * costs nothing for it.
 *
 * The threads are a worker pool (core/pool.c) made for the read and freed
 * after it; each step shares its pieces or soup chunks out over the pool.
 */
#define _POSIX_C_SOURCE 200809L /* pthreads under -std=c11 */

#include "obj/internal.h"

#include <pthread.h>
#include <stdatomic.h>

/* ---- the allocator, shared by the threads ----------------------------------------- */

/* The caller's hooks, one call at a time (malloc, the default, needs no lock). */
typedef struct locked_allocator {
    pthread_mutex_t lock;
    mn_allocator inner;
} locked_allocator;

static void *locked_alloc(void *user, size_t size)
{
    locked_allocator *a = user;
    pthread_mutex_lock(&a->lock);
    void *p = mni_alloc(&a->inner, size);
    pthread_mutex_unlock(&a->lock);
    return p;
}

static void locked_free(void *user, void *ptr, size_t size)
{
    locked_allocator *a = user;
    pthread_mutex_lock(&a->lock);
    mni_free(&a->inner, ptr, size);
    pthread_mutex_unlock(&a->lock);
}

/* ---- splitting ------------------------------------------------------------------------ */

/* Whether the '\n' at text[i] ends a line continued by a backslash (as mni_obj_join_line reads it). */
static bool continued_at(const char *text, size_t i)
{
    if (i > 0 && text[i - 1] == '\r')
        i--;
    return i > 0 && text[i - 1] == '\\';
}

/* The first statement start at or after `from` (just after a '\n' that ends a statement); size when none. */
static size_t statement_start(const char *text, size_t size, size_t from)
{
    size_t i = from > 0 ? from - 1 : 0;
    while (i < size) {
        const char *nl = memchr(text + i, '\n', size - i);
        if (!nl)
            return size;
        i = (size_t)(nl - text);
        if (!continued_at(text, i))
            return i + 1;
        i++;
    }
    return size;
}

/* Piece k spans starts[k] .. starts[k + 1]; returns how many pieces (at most `wanted`, at least 1). */
static uint32_t split(const char *text, size_t size, uint32_t wanted, size_t *starts)
{
    uint32_t count = 0;
    starts[0] = 0;
    for (uint32_t k = 1; k < wanted; k++) {
        size_t at = statement_start(text, size, (size_t)((double)size * k / wanted));
        if (at >= size)
            break;
        if (at > starts[count])
            starts[++count] = at;
    }
    starts[++count] = size;
    return count;
}

/* ---- the pieces ---------------------------------------------------------------------- */

typedef struct piece_work {
    mn_obj_parser ps;
    mn_obj_piece piece;
    mn_obj_vec positions, texcoords, normals;
    mn_error err;
    const char *text;
    size_t size;
    mn_status status;
    uint32_t base[3];                           /* elements of each kind before the piece */
    size_t soup_base;                           /* soup vertices before the piece */
} piece_work;

/* A run of one piece's face records, written at soup vertex `vertex` of the whole soup. */
typedef struct chunk {
    const piece_work *piece;
    size_t word, end;
    size_t vertex;
} chunk;

/* One thread's scratch for writing soup chunks. */
typedef struct soup_scratch {
    mn_obj_vec corners, tris, work;
} soup_scratch;

typedef struct join {
    const mn_allocator *allocator;              /* thread-safe */
    mn_pool *pool;                              /* NULL: the caller's thread alone */
    piece_work *pieces;
    uint32_t piece_count;
    chunk *chunks;
    size_t chunk_count, chunk_cap;
    soup_scratch *scratch;                      /* one per thread of the pool */
    float *positions, *texcoords, *normals;    /* the result's arrays, at their full size */
    float *soup;
    atomic_bool failed;                         /* a chunk ran out of memory */
    atomic_uint_least64_t fanned;               /* polygons finished as fans (mni_obj_warn_fanned) */
} join;

/* Step 2 for one piece: its elements into its own arrays, its faces and events recorded. */
static void parse_piece(piece_work *w, const mn_allocator *allocator)
{
    mni_arena_init(&w->piece.arena, allocator);
    mni_obj_parser_init(&w->ps, allocator, &w->piece.arena, &w->err, &w->positions, &w->texcoords,
                        &w->normals, NULL, w->size);
    w->ps.piece = &w->piece;
    w->status = mni_obj_parse_text(&w->ps, w->text, w->size);
}

/* ---- the soup ---------------------------------------------------------------------- */

/* Resolve a recorded index: relative ones count from the piece's first element (modulo 2^32). */
static inline uint32_t global_index(uint32_t stored, bool relative, uint32_t base)
{
    return relative ? base + stored : stored;
}

/* Write one chunk's faces into the soup; false when out of memory. */
static bool write_chunk(join *j, const chunk *c, soup_scratch *scratch)
{
    mn_obj_vec *corners = &scratch->corners, *tris = &scratch->tris, *work = &scratch->work;
    const uint32_t *w = (const uint32_t *)c->piece->piece.faces.data + c->word;
    const uint32_t *end = (const uint32_t *)c->piece->piece.faces.data + c->end;
    const uint32_t *base = c->piece->base;
    float *o = j->soup + 8 * c->vertex;
    while (w < end) {
        uint32_t n = w[0], face_flags = w[1];
        const uint32_t *ix = w + 2;
        const uint32_t *corner_flags = face_flags & MN_OBJ_FACE_MIXED ? ix + 3 * (size_t)n : NULL;
        w = ix + 3 * (size_t)n + (corner_flags ? n : 0);
        if (!mni_obj_vec_reserve(j->allocator, corners, (size_t)n * sizeof(mn_obj_corner)))
            return false;
        mn_obj_corner *cs = corners->data;
        bool all_normals = true;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t f = corner_flags ? corner_flags[k] : face_flags;
            cs[k].v = global_index(ix[3 * k], f & MN_OBJ_FACE_V_REL, base[0]);
            cs[k].vt = f & MN_OBJ_FACE_VT ? global_index(ix[3 * k + 1], f & MN_OBJ_FACE_VT_REL, base[1])
                                          : MN_NONE;
            cs[k].vn = f & MN_OBJ_FACE_VN ? global_index(ix[3 * k + 2], f & MN_OBJ_FACE_VN_REL, base[2])
                                          : MN_NONE;
            all_normals = all_normals && (f & MN_OBJ_FACE_VN);
        }
        bool gave_up;
        if (!mn_obj_emit_face(j->allocator, j->positions, j->texcoords, j->normals, cs, n, all_normals, tris,
                              work, o, &gave_up))
            return false;
        if (gave_up)
            atomic_fetch_add(&j->fanned, 1);
        o += 8 * 3 * ((size_t)n - 2);
    }
    return true;
}

/* ---- the steps, shared out over the pool ------------------------------------------ */

/* Step 2: parse pieces [first, end). */
static void parse_pieces(void *context, size_t first, size_t end, uint32_t worker)
{
    (void)worker;
    join *j = context;
    for (size_t k = first; k < end; k++)
        parse_piece(&j->pieces[k], j->allocator);
}

/* Step 3: copy pieces' arrays [first, end) to their places in the result's. */
static void copy_arrays(void *context, size_t first, size_t end, uint32_t worker)
{
    (void)worker;
    const join *j = context;
    for (size_t k = first; k < end; k++) {
        const piece_work *w = &j->pieces[k];
        if (w->positions.size)
            memcpy(j->positions + 3 * (size_t)w->base[0], w->positions.data, w->positions.size);
        if (w->texcoords.size)
            memcpy(j->texcoords + 2 * (size_t)w->base[1], w->texcoords.data, w->texcoords.size);
        if (w->normals.size)
            memcpy(j->normals + 3 * (size_t)w->base[2], w->normals.data, w->normals.size);
    }
}

/* Step 4: write soup chunks [first, end) with this thread's scratch (none once one failed). */
static void write_soup(void *context, size_t first, size_t end, uint32_t worker)
{
    join *j = context;
    for (size_t k = first; k < end && !atomic_load(&j->failed); k++)
        if (!write_chunk(j, &j->chunks[k], &j->scratch[worker]))
            atomic_store(&j->failed, true);
}

/* ---- the join --------------------------------------------------------------------- */

/* Element counts before each piece; false when a total or a reach into earlier pieces fails. */
static bool place_pieces(piece_work *pieces, uint32_t count)
{
    uint64_t totals[3] = {0, 0, 0}, soup = 0;
    for (uint32_t k = 0; k < count; k++) {
        piece_work *w = &pieces[k];
        uint32_t local[3] = {w->ps.position_count, w->ps.texcoord_count, w->ps.normal_count};
        for (int kind = 0; kind < 3; kind++) {
            if (w->piece.need[kind] > totals[kind])
                return false;  /* an index out of range: the one pass names it */
            w->base[kind] = (uint32_t)totals[kind];
            totals[kind] += local[kind];
            if (totals[kind] > (uint64_t)MN_NONE - 1)
                return false;  /* too many elements: the one pass names the line */
        }
        w->soup_base = (size_t)soup;
        soup += w->ps.soup_vertices;
        if (soup > (uint64_t)MN_NONE - 1 || w->ps.lines == INT32_MAX)
            return false;
    }
    return true;
}

/* Size the result's array for `count` elements of `width` floats (the pieces copy theirs in). */
static bool size_array(const mn_allocator *allocator, mn_obj_vec *vec, uint32_t count, int width)
{
    size_t bytes;
    if (!mni_checked_mul((size_t)count, (size_t)width * sizeof(float), &bytes) ||
        (bytes && !mni_obj_vec_grow(allocator, vec, bytes)))
        return false;
    vec->size = bytes;
    return true;
}

/* The earlier of equal values stays, as in the one pass (0 and −0 compare equal). */
static void merge_bounds(mn_obj_parser *ps, const mn_obj_parser *piece)
{
    for (int k = 0; k < 3; k++) {
        if (piece->bounds_min[k] < ps->bounds_min[k])
            ps->bounds_min[k] = piece->bounds_min[k];
        if (piece->bounds_max[k] > ps->bounds_max[k])
            ps->bounds_max[k] = piece->bounds_max[k];
    }
}

/* Replay a piece's events through the one pass's state; false when out of memory. */
static bool replay(mn_obj_parser *ps, const piece_work *w, int64_t line_base)
{
    const mn_obj_event *e = w->piece.events.data;
    size_t count = w->piece.events.size / sizeof *e;
    for (size_t i = 0; i < count; i++) {
        bool ok = true;
        switch (e[i].kind) {
        case MN_OBJ_EVENT_USEMTL:
            ok = mni_obj_use_material(ps, e[i].name, e[i].len);
            break;
        case MN_OBJ_EVENT_MTLLIB:
            ok = mni_obj_add_library(ps, e[i].name, e[i].len);
            break;
        case MN_OBJ_EVENT_UNKNOWN: {
            int64_t line = line_base + e[i].line;
            ok = mni_obj_warn_unknown(&ps->warnings, e[i].name, e[i].len,
                                      line > INT32_MAX ? INT32_MAX : (int)line, MN_OBJ_UNKNOWN_WHAT);
            break;
        }
        case MN_OBJ_EVENT_FACES:
            ok = mni_obj_add_faces(ps, e[i].vertices);
            break;
        }
        if (!ok)
            return false;
    }
    return true;
}

/* The chunks of every piece's faces, each with its place in the soup; false when out of memory. */
static bool make_chunks(join *j)
{
    size_t count = 0;
    for (uint32_t k = 0; k < j->piece_count; k++)
        count += j->pieces[k].piece.checkpoints.size / sizeof(mn_obj_checkpoint) + 1;
    j->chunks = mni_alloc(j->allocator, count * sizeof *j->chunks);
    if (!j->chunks)
        return false;
    j->chunk_cap = count;
    j->chunk_count = 0;
    for (uint32_t k = 0; k < j->piece_count; k++) {
        const piece_work *w = &j->pieces[k];
        const mn_obj_checkpoint *cp = w->piece.checkpoints.data;
        size_t n = w->piece.checkpoints.size / sizeof *cp;
        size_t words = w->piece.faces.size / sizeof(uint32_t);
        for (size_t i = 0; i <= n; i++) {
            size_t word = i == 0 ? 0 : cp[i - 1].word, vertex = i == 0 ? 0 : cp[i - 1].vertex;
            size_t end = i == n ? words : cp[i].word;
            if (end > word)
                j->chunks[j->chunk_count++] = (chunk){w, word, end, w->soup_base + vertex};
        }
    }
    return true;
}

/* Step 4 with one scratch per thread, freed after. */
static mn_status write_all_soup(join *j)
{
    uint32_t threads = mn_pool_thread_count(j->pool);
    j->scratch = mni_alloc(j->allocator, threads * sizeof *j->scratch);
    if (!j->scratch)
        return MN_OUT_OF_MEMORY;
    memset(j->scratch, 0, threads * sizeof *j->scratch);
    (void)mni_pool_for(j->pool, j->chunk_count, 1, write_soup, j);
    for (uint32_t i = 0; i < threads; i++) {
        mni_obj_vec_free(j->allocator, &j->scratch[i].corners);
        mni_obj_vec_free(j->allocator, &j->scratch[i].tris);
        mni_obj_vec_free(j->allocator, &j->scratch[i].work);
    }
    mni_free(j->allocator, j->scratch, threads * sizeof *j->scratch);
    return atomic_load(&j->failed) ? MN_OUT_OF_MEMORY : MN_OK;
}

/* Steps 3 and 4 (see the top): the pieces into ps. */
static mn_status join_pieces(mn_obj_parser *ps, join *j)
{
    piece_work *pieces = j->pieces;
    for (uint32_t k = 0; k < j->piece_count; k++)
        if (pieces[k].status != MN_OK)
            return pieces[k].status;
    if (!place_pieces(pieces, j->piece_count))
        return MN_INDEX_RANGE;
    int64_t line_base = 0;
    for (uint32_t k = 0; k < j->piece_count; k++) {
        piece_work *w = &pieces[k];
        ps->position_count += w->ps.position_count;
        ps->texcoord_count += w->ps.texcoord_count;
        ps->normal_count += w->ps.normal_count;
        merge_bounds(ps, &w->ps);
        if (!replay(ps, w, line_base))
            return MN_OUT_OF_MEMORY;
        line_base += w->ps.lines - 1;
    }
    ps->lines = line_base + 1 > INT32_MAX ? INT32_MAX : (int)(line_base + 1);
    if (!size_array(ps->allocator, ps->positions, ps->position_count, 3) ||
        !size_array(ps->allocator, ps->texcoords, ps->texcoord_count, 2) ||
        !size_array(ps->allocator, ps->normals, ps->normal_count, 3))
        return MN_OUT_OF_MEMORY;
    j->positions = ps->positions->data;
    j->texcoords = ps->texcoords->data;
    j->normals = ps->normals->data;
    (void)mni_pool_for(j->pool, j->piece_count, 1, copy_arrays, j);
    size_t soup_bytes;
    if (!mni_checked_mul(ps->soup_vertices, 8 * sizeof(float), &soup_bytes) ||
        (soup_bytes && !mni_obj_vec_grow(ps->allocator, ps->soup, soup_bytes)))
        return MN_OUT_OF_MEMORY;
    ps->soup->size = soup_bytes;
    if (!make_chunks(j))
        return MN_OUT_OF_MEMORY;
    j->soup = ps->soup->data;
    mn_status st = write_all_soup(j);
    ps->fanned = atomic_load(&j->fanned);
    if (st == MN_OK && !mni_obj_warn_fanned(ps))
        st = MN_OUT_OF_MEMORY;
    return st;
}

static void free_piece(const mn_allocator *allocator, piece_work *w)
{
    mni_obj_parser_release(&w->ps);
    mni_obj_vec_free(allocator, &w->piece.faces);
    mni_obj_vec_free(allocator, &w->piece.events);
    mni_obj_vec_free(allocator, &w->piece.checkpoints);
    mni_obj_vec_free(allocator, &w->positions);
    mni_obj_vec_free(allocator, &w->texcoords);
    mni_obj_vec_free(allocator, &w->normals);
    mni_arena_release(&w->piece.arena);
}

mn_status mni_obj_parse_pieces(mn_obj_parser *ps, const char *text, size_t size, uint32_t pieces,
                               uint32_t threads, uint32_t *joined)
{
    *joined = 1;
    if (pieces > 64)
        pieces = 64;
    size_t starts[65];
    uint32_t count = split(text, size, pieces, starts);
    if (count < 2)
        return MN_INVALID_ARGUMENT;  /* too few lines to split: the one pass reads it */

    locked_allocator locked = {.inner = *ps->allocator};
    bool lock = ps->allocator->alloc || ps->allocator->free;
    mn_allocator shared = lock ? (mn_allocator){locked_alloc, locked_free, &locked} : *ps->allocator;
    if (lock && pthread_mutex_init(&locked.lock, NULL) != 0)
        return MN_OUT_OF_MEMORY;

    mn_status st = MN_OUT_OF_MEMORY;
    join j = {.allocator = &shared, .piece_count = count};
    atomic_init(&j.failed, false);
    atomic_init(&j.fanned, 0);
    /* No more threads than pieces.  The pool is the read's own, so its batches are never
       refused; a pool that cannot be made sends the text to the one pass. */
    uint32_t pool_threads = threads < count ? threads : count;
    j.pieces = mni_alloc(&shared, count * sizeof *j.pieces);
    bool ready = j.pieces && (pool_threads < 2 ||
                              mn_pool_create(pool_threads, &shared, &j.pool, NULL) == MN_OK);
    if (ready) {
        memset(j.pieces, 0, count * sizeof *j.pieces);
        for (uint32_t k = 0; k < count; k++) {
            j.pieces[k].text = text + starts[k];
            j.pieces[k].size = starts[k + 1] - starts[k];
        }
        (void)mni_pool_for(j.pool, count, 1, parse_pieces, &j);
        st = join_pieces(ps, &j);
        for (uint32_t k = 0; k < count; k++)
            free_piece(&shared, &j.pieces[k]);
        mni_free(&shared, j.chunks, j.chunk_cap * sizeof *j.chunks);
        mn_pool_free(j.pool);
    }
    mni_free(&shared, j.pieces, count * sizeof *j.pieces);
    if (lock)
        pthread_mutex_destroy(&locked.lock);
    if (st == MN_OK)
        *joined = count;
    return st;
}
