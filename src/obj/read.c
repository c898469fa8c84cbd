/*
 * OBJ text → mn_obj, then its MTL libraries.
 *
 * One pass over the text, line by line, without copying it: every line the
 * statement parsers see ends in '\n' (obj/internal.h), so the number
 * scanners run without bounds checks.  v / vt / vn append to growable
 * arrays; each face is resolved (relative indices counted back from the
 * elements read so far), triangulated (obj/triangulate.c) and written at
 * once as stride-8 soup vertices.  All groups share one soup array: faces
 * only ever go to the newest group, so a group is a run of it, and no face
 * is copied again after it is written.
 *
 * The rare shapes of a line (a backslash continuation, a last line with no
 * newline) are copied into scratch memory, joined and newline-terminated,
 * and parsed again from there: the common path pays nothing for them.
 *
 * A big text is read in pieces on several threads when the caller asks for
 * them (mn_obj_options.threads, obj/pieces.c): the same statement parsers
 * then run with mn_obj_parser.piece set, which records faces (piece_face)
 * and the usemtl, mtllib and unknown statements instead of applying them;
 * the join replays them through the functions the one pass applies them
 * with (mni_obj_use_material, mni_obj_add_library, mni_obj_add_faces), so
 * both build groups one way.
 *
 * After the text, each mtllib library is read through the resolver (files
 * beside the OBJ by default) and parsed by mtl_read.c; a library that cannot
 * be read or parsed is a warning, and every usemtl name no library defines
 * gets a default material, so the geometry always loads.
 */
#include "obj/internal.h"
#include "obj/pieces.h"

#include "io/io.h"

#include <float.h>
#include <string.h>

struct mn_obj_private {
    mn_arena arena;                     /* strings, groups, materials, warnings */
    mn_obj_vec positions, texcoords, normals, soup;
};

typedef struct obj_holder {
    mn_obj obj;
    struct mn_obj_private priv;
} obj_holder;

typedef mn_obj_parser obj_parser;
typedef mn_obj_group_start group_start;

/* Returned by a statement parser whose line goes on after a trailing backslash. */
static const char join_marker;
#define JOIN (&join_marker)

/* ---- failures ---------------------------------------------------------------------- */

static const char *fail_oom(obj_parser *ps)
{
    ps->status = mni_oom(ps->err, "reading OBJ (line %d)", ps->where.line);
    if (ps->err)
        ps->err->line = ps->where.line;
    return NULL;
}

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static const char *fail(obj_parser *ps, mn_status code, const char *keyword, const char *at,
                        const char *fmt, ...)
{
    char text[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    ps->status = mni_obj_fail(ps->err, code, &ps->where, keyword, at, "%s", text);
    return NULL;
}

/* At most 20 characters of the token at p, for messages. */
static int shown(const char *p)
{
    int n = 0;
    while (n < 20 && !mni_obj_is_blank(p[n]) && p[n] != '\n')
        n++;
    return n;
}

/* ---- helpers --------------------------------------------------------------------------- */

/* The character after the '\n' that ends the line holding p. */
static const char *after_line(const obj_parser *ps, const char *p)
{
    const char *nl = memchr(p, '\n', (size_t)(ps->region_end - p));
    return nl + 1;
}

/* Past the blanks before a statement's next item: false at the end of its line (a comment
   ends it too), with *p then on the line's '\n'. */
MN_OBJ_INLINE bool next_item(const obj_parser *ps, const char **p)
{
    const char *q = mni_obj_skip_blanks(*p);
    if (*q == '#')
        q = after_line(ps, q) - 1;
    *p = q;
    return *q != '\n';
}

/* The rest of a statement we do not read: skipped, unless a backslash continues it. */
static const char *skip_statement(const obj_parser *ps, const char *p)
{
    const char *nl = memchr(p, '\n', (size_t)(ps->region_end - p));
    const char *e = nl;
    if (e > p && e[-1] == '\r')
        e--;
    if (e > p && e[-1] == '\\')
        return JOIN;
    return nl + 1;
}

/*
 * Read `min`..`max` numbers to the end of the line (a comment may follow).
 * Returns the next line, JOIN, or NULL on a malformed line.
 */
MN_OBJ_INLINE const char *read_numbers(obj_parser *ps, const char *keyword, const char *p, float *out,
                                       int min, int max, int *count)
{
    int n = 0;
    while (next_item(ps, &p)) {
        float x;
        const char *q = NULL;
#if MN_OBJ_SWAR
        if (ps->region_end - p >= MN_OBJ_FAST_READ)
            q = mn_obj_parse_float_fast(p, &x);
#endif
        if (!q)
            q = mn_obj_parse_float(p, &x);
        if (!q || !mni_obj_ends_token(*q)) {
            if (mni_obj_is_continuation(q ? q : p))
                return JOIN;
            return fail(ps, MN_INVALID_VALUE, keyword, p, "\"%.*s\" is not a number", shown(p), p);
        }
        if (n == max)
            return fail(ps, MN_INVALID_VALUE, keyword, p, "takes at most %d numbers", max);
        if (!(fabsf(x) <= FLT_MAX))
            return fail(ps, MN_NOT_FINITE, keyword, p, "\"%.*s\" is beyond the float range", shown(p), p);
        out[n++] = x;
        p = q;
    }
    if (n < min)
        return fail(ps, MN_INVALID_VALUE, keyword, p, "needs %s%d numbers, found %d",
                    min == max ? "" : "at least ", min, n);
    *count = n;
    return p + 1;
}

/*
 * Make room for `bytes` more in vec (the soup, a piece's face records or
 * arrays).  Past the first 64 KB it grows to what the text so far projects
 * for the whole text (bytes per byte of text since offset `since`: the
 * first face, or the start for a piece's arrays; times the text left, plus
 * 1/16), never less than double: a file whose faces look alike is
 * then written into one allocation instead of being copied at every
 * doubling, and one whose remaining text holds fewer faces than projected
 * wastes at most its own size in reserve.
 */
static bool grow_projected(obj_parser *ps, mn_obj_vec *vec, size_t bytes, const char *at, int64_t since)
{
    size_t extra = bytes;
    int64_t here = ps->where.offset + (at - ps->where.text);
    if (vec->size >= 65536 && here > since && (uint64_t)here < ps->text_size) {
        double rate = (double)vec->size / (double)(here - since);
        double projected = rate * (double)(ps->text_size - (uint64_t)here) * 1.0625 + (double)bytes;
        if (projected > (double)extra && projected < (double)(SIZE_MAX / 4))
            extra = (size_t)projected;
    }
    return mni_obj_vec_grow(ps->allocator, vec, extra);
}

/*
 * Append n floats to vec.  A piece's arrays grow by projection (the
 * elements of a piece's text tend to look alike), saving the copies and
 * fresh pages of repeated doubling; the one pass keeps doubling.
 */
static bool push_floats(obj_parser *ps, mn_obj_vec *vec, const float *v, int n)
{
    size_t bytes = (size_t)n * sizeof(float);
    if (vec->cap - vec->size < bytes && !(ps->piece ? grow_projected(ps, vec, bytes, ps->where.text, 0)
                                                     : mni_obj_vec_grow(ps->allocator, vec, bytes)))
        return false;
    memcpy((char *)vec->data + vec->size, v, bytes);
    vec->size += bytes;
    return true;
}

/* ---- v / vt / vn ------------------------------------------------------------------------- */

/*
 * The common shape of a v, vt or vn line, " x y z\n" with single blanks and
 * numbers the fast parser takes, read without the general loop's checks
 * (each of which such a line passes: at most `max` numbers, all finite, no
 * comment).  Returns the line end ('\n'), or NULL for any other shape, which
 * the general read_numbers then reads from the start: the same values.
 */
MN_OBJ_INLINE const char *read_numbers_fast(const obj_parser *ps, const char *p, float *out,
                                            int min, int max, int *count)
{
#if MN_OBJ_SWAR
    if (ps->region_end - p < (ptrdiff_t)(max + 1) * MN_OBJ_FAST_READ)
        return NULL;
    int n = 0;
    while (n < max && *p == ' ') {
        const char *q = mn_obj_parse_float_fast(p + 1, &out[n]);
        if (!q)
            return NULL;
        n++;
        p = q;
    }
    if (*p != '\n' || n < min)
        return NULL;
    *count = n;
    return p;
#else
    (void)ps, (void)p, (void)out, (void)min, (void)max, (void)count;
    return NULL;
#endif
}

/*
 * One v/vt/vn line: read between min and max numbers into v (the fast
 * reader first, the general one for anything unusual), then keep `stored`
 * of them in vec and count the element.  Returns the next line, NULL on an
 * error, or JOIN, as read_numbers does.
 */
static const char *vertex_record(obj_parser *ps, const char *p, const char *tag, float *v, int min,
                                 int max, int stored, mn_obj_vec *vec, uint32_t *count,
                                 const char *too_many)
{
    int n;
    const char *next = read_numbers_fast(ps, p, v, min, max, &n);
    next = next ? next + 1 : read_numbers(ps, tag, p, v, min, max, &n);
    if (!next || next == JOIN)
        return next;
    if (*count >= MN_NONE - 1)
        return fail(ps, MN_OVERFLOW, tag, p, "%s", too_many);
    if (!push_floats(ps, vec, v, stored))
        return fail_oom(ps);
    (*count)++;
    return next;
}

static const char *position(obj_parser *ps, const char *p)
{
    float v[7];
    const char *next = vertex_record(ps, p, "v", v, 3, 7, 3, ps->positions, &ps->position_count,
                                     "too many positions");
    if (!next || next == JOIN)
        return next;
    for (int k = 0; k < 3; k++) {
        if (v[k] < ps->bounds_min[k])
            ps->bounds_min[k] = v[k];
        if (v[k] > ps->bounds_max[k])
            ps->bounds_max[k] = v[k];
    }
    return next;
}

static const char *texcoord(obj_parser *ps, const char *p)
{
    float v[3] = {0.0f, 0.0f, 0.0f};
    return vertex_record(ps, p, "vt", v, 1, 3, 2, ps->texcoords, &ps->texcoord_count,
                         "too many texture coordinates");
}

static const char *normal(obj_parser *ps, const char *p)
{
    float v[3];
    return vertex_record(ps, p, "vn", v, 3, 3, 3, ps->normals, &ps->normal_count,
                         "too many normals");
}

/* ---- f ------------------------------------------------------------------------------------ */

/* A 1-based or negative index into `count` elements → 0-based; false when 0 or out of range. */
static inline bool resolve(int64_t index, uint32_t count, uint32_t *out)
{
    if (index > 0) {
        if ((uint64_t)index > count)
            return false;
        *out = (uint32_t)(index - 1);
        return true;
    }
    if (index == 0 || (uint64_t)(-index) > count)
        return false;
    *out = (uint32_t)((int64_t)count + index);
    return true;
}

/*
 * An index read in a piece of a parallel read, where only the `count`
 * elements of the piece so far are known: an absolute index is stored
 * 0-based, a relative one from the piece's first element (modulo 2^32,
 * *relative set), and *need grows to the elements before the piece the
 * index reaches (the join checks them).  False for index 0, an error wherever it is.
 */
static inline bool resolve_in_piece(int64_t index, uint32_t count, uint64_t *need, uint32_t *out,
                                    bool *relative)
{
    if (index == 0)
        return false;
    uint64_t magnitude = index > 0 ? (uint64_t)index : (uint64_t)(-index);
    if (magnitude > count && magnitude - count > *need)
        *need = magnitude - count;
    *relative = index < 0;
    *out = index > 0 ? (uint32_t)(index - 1) : (uint32_t)((int64_t)count + index);
    return true;
}

/* The index of kind ("v", "vt" or "vn") in the corner at p, as written: the parse clamps
   magnitudes past 2^40, so a message prints the digits themselves (at most 40 of them). */
static int index_text(const char *p, const char *kind, const char **start)
{
    int field = kind[1] == 't' ? 1 : kind[1] == 'n' ? 2 : 0;
    for (int f = 0; f < field; f++) {
        while (*p != '/' && !mni_obj_ends_token(*p))
            p++;
        if (*p == '/')
            p++;
    }
    *start = p;
    int n = *p == '-' || *p == '+' ? 1 : 0;
    while (n < 41 && mni_obj_is_digit(p[n]))
        n++;
    return n;
}

static const char *index_error(obj_parser *ps, const char *at, const char *what, const char *kind,
                               int64_t index, uint32_t count)
{
    if (index == 0)
        return fail(ps, MN_INDEX_RANGE, "f", at, "%s index 0 is not allowed (indices start at 1)", what);
    const char *digits;
    int n = index_text(at, kind, &digits);
    return fail(ps, MN_INDEX_RANGE, "f", at, "%s index %.*s%s is out of range (%u %s so far)", what,
                n, digits, mni_obj_is_digit(digits[n]) ? "..." : "", count, kind);
}

/* An index at p: eight digits at a time when enough text is left for that, else the general way. */
MN_OBJ_INLINE const char *parse_index(const obj_parser *ps, const char *p, int64_t *out)
{
#if MN_OBJ_SWAR
    if (ps->region_end - p >= MN_OBJ_FAST_READ) {
        const char *q = mn_obj_parse_index_fast(p, out);
        if (q)
            return q;
    }
#else
    (void)ps;
#endif
    return mn_obj_parse_index(p, out);
}

/* A corner's indices as written. */
typedef struct raw_corner {
    int64_t v, vt, vn;
    bool has_t, has_n;
} raw_corner;

/* One corner `v`, `v/vt`, `v//vn` or `v/vt/vn` at p; the character after it, JOIN or NULL. */
MN_OBJ_INLINE const char *corner_text(obj_parser *ps, const char *p, raw_corner *r)
{
    r->v = r->vt = r->vn = 0;
    r->has_t = r->has_n = false;
    const char *q = parse_index(ps, p, &r->v);
    if (!q)
        goto malformed;
    if (*q == '/') {
        q++;
        if (*q != '/') {
            if (!(q = parse_index(ps, q, &r->vt)))
                goto malformed;
            r->has_t = true;
        }
        if (*q == '/') {
            if (!(q = parse_index(ps, q + 1, &r->vn)))
                goto malformed;
            r->has_n = true;
        }
    }
    if (!mni_obj_ends_token(*q)) {
        if (mni_obj_is_continuation(q))
            return JOIN;
        goto malformed;
    }
    return q;
malformed:
    if (mni_obj_is_continuation(p))
        return JOIN;
    return fail(ps, MN_INVALID_VALUE, "f", p,
                "\"%.*s\" is not a corner (v, v/vt, v//vn or v/vt/vn)", shown(p), p);
}

/* One corner at p resolved against the elements so far; the character after it, JOIN or NULL. */
MN_OBJ_INLINE const char *corner(obj_parser *ps, const char *p, mn_obj_corner *c)
{
    raw_corner r;
    const char *q = corner_text(ps, p, &r);
    if (!q || q == JOIN)
        return q;
    if (!resolve(r.v, ps->position_count, &c->v))
        return index_error(ps, p, "vertex", "v", r.v, ps->position_count);
    c->vt = MN_NONE;
    if (r.has_t && !resolve(r.vt, ps->texcoord_count, &c->vt))
        return index_error(ps, p, "texture coordinate", "vt", r.vt, ps->texcoord_count);
    c->vn = MN_NONE;
    if (r.has_n && !resolve(r.vn, ps->normal_count, &c->vn))
        return index_error(ps, p, "normal", "vn", r.vn, ps->normal_count);
    return q;
}

/* A corner of a piece's face as recorded: indices (mn_obj_corner) and MN_OBJ_FACE_* flags. */
typedef struct piece_corner {
    uint32_t v, vt, vn, flags;
} piece_corner;

/* One corner at p in a piece (resolve_in_piece); the character after it, JOIN or NULL. */
MN_OBJ_INLINE const char *piece_corner_at(obj_parser *ps, const char *p, piece_corner *c)
{
    raw_corner r;
    const char *q = corner_text(ps, p, &r);
    if (!q || q == JOIN)
        return q;
    uint64_t *need = ps->piece->need;
    bool rel = false;
    c->flags = 0;
    if (!resolve_in_piece(r.v, ps->position_count, &need[0], &c->v, &rel))
        return index_error(ps, p, "vertex", "v", r.v, ps->position_count);
    c->flags |= rel ? MN_OBJ_FACE_V_REL : 0u;
    c->vt = c->vn = 0;
    if (r.has_t) {
        if (!resolve_in_piece(r.vt, ps->texcoord_count, &need[1], &c->vt, &rel))
            return index_error(ps, p, "texture coordinate", "vt", r.vt, ps->texcoord_count);
        c->flags |= MN_OBJ_FACE_VT | (rel ? MN_OBJ_FACE_VT_REL : 0u);
    }
    if (r.has_n) {
        if (!resolve_in_piece(r.vn, ps->normal_count, &need[2], &c->vn, &rel))
            return index_error(ps, p, "normal", "vn", r.vn, ps->normal_count);
        c->flags |= MN_OBJ_FACE_VN | (rel ? MN_OBJ_FACE_VN_REL : 0u);
    }
    return q;
}

static bool open_group(obj_parser *ps)
{
    if (!mni_obj_vec_reserve(ps->allocator, &ps->groups, sizeof(group_start)))
        return false;
    group_start *g = (group_start *)(void *)((char *)ps->groups.data + ps->groups.size);
    g->material = ps->material;
    g->first = ps->soup_vertices;
    ps->groups.size += sizeof(group_start);
    ps->group_open = true;
    return true;
}

bool mni_obj_add_faces(obj_parser *ps, size_t vertices)
{
    if (!ps->group_open && !open_group(ps))
        return false;
    ps->soup_vertices += vertices;
    return true;
}

/* Room for one more corner of `size` bytes after the face's corners so far (ps->corners). */
static inline void *corner_slot(obj_parser *ps, size_t size)
{
    if (!mni_obj_vec_reserve(ps->allocator, &ps->corners, size))
        return NULL;
    return (char *)ps->corners.data + ps->corners.size;
}

/*
 * What every face checks once its n corners are read: at least three, and the
 * soup's vertex count still in range; the first face's offset is noted.  Its
 * triangle vertices into *vertices; false after failing.
 */
static bool face_counted(obj_parser *ps, const char *line, uint32_t n, size_t *vertices)
{
    if (n < 3) {
        fail(ps, MN_INVALID_VALUE, "f", line, "a face needs at least 3 corners, found %u", n);
        return false;
    }
    *vertices = 3 * ((size_t)n - 2);
    if (*vertices > (size_t)(MN_NONE - 1) - ps->soup_vertices) {
        fail(ps, MN_OVERFLOW, "f", line, "more than 2^32 - 2 triangle vertices");
        return false;
    }
    if (ps->first_face_offset < 0)
        ps->first_face_offset = ps->where.offset;
    return true;
}

/* A face in the one pass: resolved, triangulated and written to the soup at once. */
static const char *face(obj_parser *ps, const char *p)
{
    const char *line = p;
    uint32_t n = 0;
    bool all_normals = true;
    ps->corners.size = 0;
    for (; next_item(ps, &p); n++) {
        mn_obj_corner *c = corner_slot(ps, sizeof *c);
        if (!c)
            return fail_oom(ps);
        const char *q = corner(ps, p, c);
        if (!q || q == JOIN)
            return q;
        all_normals = all_normals && c->vn != MN_NONE;
        ps->corners.size += sizeof *c;
        p = q;
    }
    size_t vertices;
    if (!face_counted(ps, line, n, &vertices))
        return NULL;
    size_t soup_bytes = vertices * 8 * sizeof(float);
    if (ps->soup->cap - ps->soup->size < soup_bytes &&
        !grow_projected(ps, ps->soup, soup_bytes, p, ps->first_face_offset))
        return fail_oom(ps);
    float *o = (float *)(void *)((char *)ps->soup->data + ps->soup->size);
    bool gave_up;
    if (!mn_obj_emit_face(ps->allocator, ps->positions->data, ps->texcoords->data, ps->normals->data,
                          ps->corners.data, n, all_normals, &ps->tris, &ps->work, o, &gave_up))
        return fail_oom(ps);
    ps->fanned += gave_up;
    if (!mni_obj_add_faces(ps, vertices))
        return fail_oom(ps);
    ps->soup->size += soup_bytes;
    return p + 1;
}

/* Add `vertices` to the piece's newest run of faces (or start one). */
static bool piece_add_faces(obj_parser *ps, size_t vertices)
{
    mn_obj_vec *events = &ps->piece->events;
    mn_obj_event *last = events->size ? (mn_obj_event *)events->data + events->size / sizeof *last - 1 : NULL;
    if (last && last->kind == MN_OBJ_EVENT_FACES) {
        last->vertices += vertices;
        return true;
    }
    if (!mni_obj_vec_reserve(ps->allocator, events, sizeof *last))
        return false;
    mn_obj_event *e = (mn_obj_event *)(void *)((char *)events->data + events->size);
    *e = (mn_obj_event){.kind = MN_OBJ_EVENT_FACES, .vertices = vertices};
    events->size += sizeof *e;
    return true;
}

/* A checkpoint before the face about to be recorded, once a chunk's worth of soup has gone by. */
static bool piece_checkpoint(obj_parser *ps)
{
    mn_obj_piece *piece = ps->piece;
    if (ps->soup_vertices - piece->checkpoint_vertex < MN_OBJ_CHUNK_VERTICES)
        return true;
    if (!mni_obj_vec_reserve(ps->allocator, &piece->checkpoints, sizeof(mn_obj_checkpoint)))
        return false;
    char *end = (char *)piece->checkpoints.data + piece->checkpoints.size;
    mn_obj_checkpoint *c = (mn_obj_checkpoint *)(void *)end;
    c->word = piece->faces.size / sizeof(uint32_t);
    c->vertex = ps->soup_vertices;
    piece->checkpoints.size += sizeof *c;
    piece->checkpoint_vertex = ps->soup_vertices;
    return true;
}

/*
 * A face in a piece of a parallel read: checked as the one pass checks it
 * (as far as the piece can: index ranges reaching before the piece are
 * settled at the join), and recorded (mn_obj_piece) for the join to write.
 */
static const char *piece_face(obj_parser *ps, const char *p)
{
    const char *line = p;
    uint32_t n = 0, flags = 0;
    bool mixed = false;
    ps->corners.size = 0;
    for (; next_item(ps, &p); n++) {
        piece_corner *c = corner_slot(ps, sizeof *c);
        if (!c)
            return fail_oom(ps);
        const char *q = piece_corner_at(ps, p, c);
        if (!q || q == JOIN)
            return q;
        if (n == 0)
            flags = c->flags;
        mixed = mixed || c->flags != flags;
        ps->corners.size += sizeof *c;
        p = q;
    }
    size_t vertices;
    if (!face_counted(ps, line, n, &vertices))
        return NULL;
    mn_obj_vec *faces = &ps->piece->faces;
    size_t words = 2 + 3 * (size_t)n + (mixed ? n : 0);
    if (words > SIZE_MAX / sizeof(uint32_t) || !piece_checkpoint(ps))
        return fail_oom(ps);
    if (faces->cap - faces->size < words * sizeof(uint32_t) &&
        !grow_projected(ps, faces, words * sizeof(uint32_t), p, ps->first_face_offset))
        return fail_oom(ps);
    uint32_t *w = (uint32_t *)(void *)((char *)faces->data + faces->size);
    const piece_corner *c = ps->corners.data;
    *w++ = n;
    *w++ = mixed ? MN_OBJ_FACE_MIXED : flags;
    for (uint32_t k = 0; k < n; k++) {
        *w++ = c[k].v;
        *w++ = c[k].vt;
        *w++ = c[k].vn;
    }
    for (uint32_t k = 0; mixed && k < n; k++)
        *w++ = c[k].flags;
    faces->size += words * sizeof(uint32_t);
    if (!piece_add_faces(ps, vertices))
        return fail_oom(ps);
    ps->soup_vertices += vertices;
    return p + 1;
}

/* ---- the other statements ------------------------------------------------------------------ */

static const char *token_end(const char *p)
{
    while (!mni_obj_is_blank(*p) && *p != '\n')
        p++;
    return p;
}

static bool keyword_is(const char *k, size_t len, const char *name)
{
    return strlen(name) == len && memcmp(k, name, len) == 0;
}

bool mni_obj_use_material(obj_parser *ps, const char *name, size_t len)
{
    /* The name is a C string from here on (the group keeps it, materials are found by it): a NUL ends it. */
    const char *nul = memchr(name, '\0', len);
    if (nul)
        len = (size_t)(nul - name);
    if (ps->material && strlen(ps->material) == len && memcmp(ps->material, name, len) == 0)
        return true;
    mn_obj_name_slot *slot = mni_obj_names_add(&ps->usemtl_names, name, len);
    if (!slot)
        return false;
    ps->material = slot->name;
    ps->group_open = false;
    return true;
}

bool mni_obj_add_library(obj_parser *ps, const char *name, size_t len)
{
    char *copy = mni_arena_strndup(ps->arena, name, len);
    if (!copy || !mni_obj_vec_reserve(ps->allocator, &ps->libraries, sizeof copy))
        return false;
    memcpy((char *)ps->libraries.data + ps->libraries.size, &copy, sizeof copy);
    ps->libraries.size += sizeof copy;
    return true;
}

/* A piece keeps a usemtl, mtllib or unknown keyword for the join (a usemtl repeated at once: once). */
static bool piece_event(obj_parser *ps, mn_obj_event_kind kind, const char *name, size_t len)
{
    mn_obj_vec *events = &ps->piece->events;
    size_t count = events->size / sizeof(mn_obj_event);
    const mn_obj_event *last = count ? (const mn_obj_event *)events->data + count - 1 : NULL;
    if (kind == MN_OBJ_EVENT_USEMTL && last && last->kind == kind && last->len == len &&
        memcmp(last->name, name, len) == 0)
        return true;
    char *copy = mni_arena_strndup(&ps->piece->arena, name, len);
    if (!copy || !mni_obj_vec_reserve(ps->allocator, events, sizeof(mn_obj_event)))
        return false;
    mn_obj_event *e = (mn_obj_event *)(void *)((char *)events->data + events->size);
    *e = (mn_obj_event){.kind = kind, .line = ps->where.line, .name = copy, .len = len};
    events->size += sizeof *e;
    return true;
}

/*
 * An unknown keyword in a piece: its first use there is kept, for the first
 * MN_OBJ_PIECE_KEYWORDS keywords.  That is enough for the join: at most
 * MN_OBJ_UNKNOWN_KEYWORDS of them were already reported by earlier pieces,
 * so the rest reach the point where the warnings stop listing keywords.
 */
static bool piece_unknown(obj_parser *ps, const char *keyword, size_t len)
{
    mn_obj_piece *piece = ps->piece;
    /* Keywords compare as mni_obj_warn_unknown compares them. */
    char key[16];
    size_t kept;
    if (mni_obj_keyword_listed(piece->unknown, piece->unknown_count, keyword, len, key, &kept))
        return true;
    if (piece->unknown_count == MN_OBJ_PIECE_KEYWORDS)
        return true;
    memcpy(piece->unknown[piece->unknown_count++], key, kept + 1);
    return piece_event(ps, MN_OBJ_EVENT_UNKNOWN, keyword, kept);
}

static const char *usemtl(obj_parser *ps, const char *p)
{
    const char *next = skip_statement(ps, p);
    if (next == JOIN)
        return JOIN;
    p = mni_obj_skip_blanks(p);
    size_t len = mni_obj_rest_length(p);
    if (len == 0)
        return fail(ps, MN_INVALID_VALUE, "usemtl", p, "needs a material name");
    bool ok = ps->piece ? piece_event(ps, MN_OBJ_EVENT_USEMTL, p, len) : mni_obj_use_material(ps, p, len);
    return ok ? next : fail_oom(ps);
}

static const char *mtllib(obj_parser *ps, const char *p)
{
    const char *next = skip_statement(ps, p);
    if (next == JOIN)
        return JOIN;
    p = mni_obj_skip_blanks(p);
    size_t len = mni_obj_rest_length(p);
    if (len == 0)
        return fail(ps, MN_INVALID_VALUE, "mtllib", p, "needs a library file name");
    bool ok = ps->piece ? piece_event(ps, MN_OBJ_EVENT_MTLLIB, p, len) : mni_obj_add_library(ps, p, len);
    return ok ? next : fail_oom(ps);
}

static const char *keyword_statement(obj_parser *ps, const char *p)
{
    const char *ke = token_end(p);
    size_t kl = (size_t)(ke - p);
    if (keyword_is(p, kl, "v"))
        return position(ps, ke);
    if (keyword_is(p, kl, "vt"))
        return texcoord(ps, ke);
    if (keyword_is(p, kl, "vn"))
        return normal(ps, ke);
    if (keyword_is(p, kl, "f"))
        return ps->piece ? piece_face(ps, ke) : face(ps, ke);
    if (keyword_is(p, kl, "usemtl"))
        return usemtl(ps, ke);
    if (keyword_is(p, kl, "mtllib"))
        return mtllib(ps, ke);
    const char *next = skip_statement(ps, ke);
    if (next == JOIN)
        return JOIN;
    if (keyword_is(p, kl, "o") || keyword_is(p, kl, "g") || keyword_is(p, kl, "s") ||
        keyword_is(p, kl, "mg"))
        return next;
    bool ok = ps->piece ? piece_unknown(ps, p, kl)
                        : mni_obj_warn_unknown(&ps->warnings, p, kl, ps->where.line, MN_OBJ_UNKNOWN_WHAT);
    if (!ok)
        return fail_oom(ps);
    return next;
}

/* One statement at the start of a line; the next line, JOIN, or NULL on error. */
static inline const char *statement(obj_parser *ps, const char *p)
{
    switch (*p) {
    case 'v':
        if (mni_obj_is_blank(p[1]))
            return position(ps, p + 1);
        if (p[1] == 't' && mni_obj_is_blank(p[2]))
            return texcoord(ps, p + 2);
        if (p[1] == 'n' && mni_obj_is_blank(p[2]))
            return normal(ps, p + 2);
        break;
    case 'f':
        if (mni_obj_is_blank(p[1]))
            return ps->piece ? piece_face(ps, p + 1) : face(ps, p + 1);
        break;
    case '#':
        return after_line(ps, p);
    case '\n':
        return p + 1;
    default:
        break;
    }
    p = mni_obj_skip_blanks(p);
    if (*p == '\n' || *p == '#')
        return after_line(ps, p);
    return keyword_statement(ps, p);
}

/* ---- the pass over the text ------------------------------------------------------------------- */

/* Parse the logical line at p (with its continuations, or the unterminated last line) from scratch. */
static const char *statement_copied(obj_parser *ps, const char *p, const char *end, int *lines)
{
    const char *next;
    if (!mni_obj_join_line(ps->allocator, &ps->scratch, p, end, &next, lines))
        return fail_oom(ps);
    const char *saved_end = ps->region_end;
    ps->where.text = ps->scratch.data;
    ps->region_end = (const char *)ps->scratch.data + ps->scratch.size;
    const char *r = statement(ps, ps->scratch.data);
    /* The copy holds no continuation, except where the input ended in two backslashes:
       the one left is text; as a blank it ends the statement as the end of the file does. */
    while (r == JOIN) {
        char *text = ps->scratch.data;
        size_t last = ps->scratch.size - 2;
        if (text[last] == '\r')
            last--;
        text[last] = ' ';
        r = statement(ps, ps->scratch.data);
    }
    ps->region_end = saved_end;
    return r ? next : NULL;
}

mn_status mni_obj_parse_text(obj_parser *ps, const char *text, size_t size)
{
    const char *end = text + size;
    const char *safe_end = end;
    while (safe_end > text && safe_end[-1] != '\n')
        safe_end--;
    ps->region_end = safe_end;
    const char *p = text;
    int line = 1;
    while (p < end) {
        ps->where.line = line;
        ps->where.text = p;
        ps->where.offset = p - text;
        const char *next = p < safe_end ? statement(ps, p) : JOIN;
        int lines = 1;
        if (next == JOIN)
            next = statement_copied(ps, p, end, &lines);
        if (!next)
            return ps->status;
        line = lines > INT32_MAX - line ? INT32_MAX : line + lines;
        p = next;
    }
    ps->lines = line;
    if (!ps->piece && !mni_obj_warn_fanned(ps)) {
        ps->status = mni_oom(ps->err, "reading OBJ");
        return ps->status;
    }
    return MN_OK;
}

bool mni_obj_warn_fanned(obj_parser *ps)
{
    if (ps->fanned == 0)
        return true;
    return mni_obj_warn(&ps->warnings, MN_INVALID_VALUE, "f",
                        "%llu polygon%s too hard to ear-clip within %u n (log2 n + 1) steps (n corners): "
                        "the corners left of each became a fan, whose triangles may overlap",
                        (unsigned long long)ps->fanned, ps->fanned == 1 ? " was" : "s were", MN_OBJ_EAR_STEPS);
}

/* ---- libraries ------------------------------------------------------------------------------------ */

typedef struct library_context {
    const mn_obj_options *options;
    const char *base_dir;
    mn_arena file_arena;                /* what the default resolver reads */
    mni_files files;                    /* the files read: contained, each read once */
    mn_obj_names library_names;         /* every library name asked for, so each is read once */
    mn_obj_vec materials;               /* mn_obj_material, all libraries */
    mn_obj_names material_names;        /* name → index into materials */
    bool all_read;                      /* every library was read and parsed */
} library_context;

/*
 * A map_Kd that names a file outside the model's folder as written (absolute,
 * or with ".."; the lexical rule of every reader) is dropped with a warning
 * here, so nothing that uses the OBJ later (a renderer, a converter writing
 * it as an image URI) is handed it.
 */
static mn_status drop_unsafe_map(obj_parser *ps, library_context *lc, mn_obj_material *m,
                                 const char *file)
{
    mn_error why;
    if (!m->map_kd_file || mni_name_check(m->map_kd_file, lc->options->resolver.root != NULL,
                                          "map_Kd", &why) == MN_OK)
        return MN_OK;
    if (!mni_obj_warn(&ps->warnings, MN_URI, "map_Kd", "%s: material \"%s\": %s; the map is dropped",
                      file, m->name, why.message))
        return MN_OUT_OF_MEMORY;
    m->map_kd = NULL;
    m->map_kd_file = NULL;
    return MN_OK;
}

/* Add one library's materials; a name already defined takes the later definition. */
static mn_status merge_materials(obj_parser *ps, library_context *lc, const mn_obj_vec *lib,
                                 const char *file)
{
    mn_obj_material *m = lib->data;
    size_t count = lib->size / sizeof *m;
    for (size_t i = 0; i < count; i++) {
        if (drop_unsafe_map(ps, lc, &m[i], file) != MN_OK)
            return MN_OUT_OF_MEMORY;
        mn_obj_name_slot *slot = mni_obj_names_add(&lc->material_names, m[i].name, strlen(m[i].name));
        if (!slot)
            return MN_OUT_OF_MEMORY;
        if (slot->value != MN_NONE) {
            ((mn_obj_material *)lc->materials.data)[slot->value] = m[i];
            if (!mni_obj_warn(&ps->warnings, MN_INVALID_VALUE, "mtllib",
                              "%s: material \"%s\" was defined by an earlier library; this definition is used",
                              file, m[i].name))
                return MN_OUT_OF_MEMORY;
            continue;
        }
        if (!mni_obj_vec_reserve(ps->allocator, &lc->materials, sizeof *m))
            return MN_OUT_OF_MEMORY;
        slot->value = (uint32_t)(lc->materials.size / sizeof *m);
        memcpy((char *)lc->materials.data + lc->materials.size, &m[i], sizeof *m);
        lc->materials.size += sizeof *m;
    }
    return MN_OK;
}

/*
 * Read and parse one library file.  MN_OK also when it cannot be read or
 * parsed (*why says why, *read false); only running out of memory fails.
 */
static mn_status read_library(obj_parser *ps, library_context *lc, const char *file, bool *read,
                              mn_error *why)
{
    *read = false;
    mni_error_clear(why);
    const mn_resolver *res = &lc->options->resolver;
    if (mni_name_check(file, res->root != NULL, "mtllib", why) != MN_OK)
        return MN_OK;
    mn_bytes bytes = {0};
    bool again = false;
    mn_status st = res->read ? res->read(res->user, lc->base_dir, file, &bytes, why)
                             : mni_files_read(&lc->files, file, "mtllib", UINT64_MAX, &bytes, &again, why);
    if (st == MN_OUT_OF_MEMORY)
        return st;
    if (st == MN_OK && again) {
        *read = true; /* another name for a library already merged */
        return MN_OK;
    }
    if (st != MN_OK) {
        if (why->code == MN_OK)
            mni_error_set(why, st, "mtllib", -1, "the resolver could not read it");
        return MN_OK;
    }
    mn_obj_vec lib = {0};
    char prefix[160];
    snprintf(prefix, sizeof prefix, "%s: ", file);
    ps->warnings.prefix = prefix;
    st = mni_mtl_parse(bytes.size ? (const char *)bytes.data : "", bytes.size, ps->allocator, ps->arena,
                       &lib, &ps->warnings, why);
    ps->warnings.prefix = "";
    if (res->read && res->release)
        res->release(res->user, &bytes);
    if (st == MN_OK)
        st = merge_materials(ps, lc, &lib, file);
    else if (st != MN_OUT_OF_MEMORY)
        st = MN_OK; /* a broken library: reported by the caller, its materials unused */
    else
        mni_error_clear(why);
    *read = st == MN_OK && why->code == MN_OK;
    mni_obj_vec_free(ps->allocator, &lib);
    return st;
}

static mn_status warn_unread(obj_parser *ps, const char *file, const mn_error *why)
{
    const char *what = why->line ? "cannot be parsed" : "cannot be read";
    return mni_obj_warn(&ps->warnings, why->code, "mtllib", "mtllib \"%s\" %s (%s); default materials are used",
                        file, what, why->message)
               ? MN_OK
               : MN_OUT_OF_MEMORY;
}

/*
 * One mtllib line: the whole text names one file (names may hold blanks);
 * when that file cannot be read and the text has blanks, it is read as the
 * list of files the OBJ specification allows instead.
 */
static mn_status load_mtllib(obj_parser *ps, library_context *lc, const char *written)
{
    bool read;
    mn_error why;
    /* A line written again (100,000 times, say) was read or reported the first time. */
    mn_obj_name_slot *seen = mni_obj_names_add(&lc->library_names, written, strlen(written));
    if (!seen)
        return MN_OUT_OF_MEMORY;
    if (seen->value != MN_NONE)
        return MN_OK;
    seen->value = 0;
    mn_status st = read_library(ps, lc, written, &read, &why);
    if (st != MN_OK || read)
        return st;
    bool list = strpbrk(written, " \t") != NULL && why.code != MN_URI && why.line == 0;
    if (!list) {
        lc->all_read = false;
        return warn_unread(ps, written, &why);
    }
    char *copy = mni_arena_strndup(ps->arena, written, strlen(written));
    if (!copy)
        return MN_OUT_OF_MEMORY;
    for (char *s = copy; *s;) {
        size_t len = strcspn(s, " \t");
        bool last = s[len] == '\0';
        s[len] = '\0';
        if (len) {
            st = read_library(ps, lc, s, &read, &why);
            if (st != MN_OK)
                return st;
            if (!read) {
                lc->all_read = false;
                if ((st = warn_unread(ps, s, &why)) != MN_OK)
                    return st;
            }
        }
        s += len + (last ? 0 : 1);
    }
    return MN_OK;
}

static mn_status load_libraries(obj_parser *ps, library_context *lc)
{
    const char *const *libs = ps->libraries.data;
    size_t count = ps->libraries.size / sizeof *libs;
    lc->all_read = count > 0;
    if (count == 0 || lc->options->skip_libraries) {
        lc->all_read = false;
        return MN_OK;
    }
    if (!lc->base_dir && !lc->options->resolver.read) {
        lc->all_read = false;
        return mni_obj_warn(&ps->warnings, MN_URI, "mtllib",
                            "mtllib \"%s\" not read: read from memory without a base_dir or resolver "
                            "(set mn_obj_options.base_dir, resolver or skip_libraries); default materials are used",
                            libs[0])
                   ? MN_OK
                   : MN_OUT_OF_MEMORY;
    }
    if (!lc->base_dir)
        lc->base_dir = "";
    mni_files_init(&lc->files, &lc->file_arena, lc->options->resolver.root, lc->base_dir);
    for (size_t i = 0; i < count; i++) {
        mn_status st = load_mtllib(ps, lc, libs[i]);
        if (st != MN_OK)
            return st;
    }
    return MN_OK;
}

/* Names no library defines are each warned about up to this many times; one warning counts the rest. */
#define MN_OBJ_UNDEFINED_WARNINGS 16

/*
 * Give each group its material, adding default ones for names no library
 * defines, into obj->materials: the libraries' materials, then one default
 * per such name in order of first use.  Each distinct usemtl name is looked
 * up in the libraries once (its interned slot keeps the answer), and the
 * array is made at its size, so a million groups of a million names cost
 * one material each and nothing more.
 */
static mn_status assign_materials(obj_parser *ps, library_context *lc, mn_obj_group *groups,
                                  size_t group_count, mn_obj *obj)
{
    const mn_obj_material *lib = lc->materials.data;
    size_t lib_count = lc->materials.size / sizeof *lib, count = lib_count;
    for (size_t g = 0; g < group_count; g++) {
        groups[g].material_index = MN_NONE;
        const char *name = groups[g].material;
        if (!name)
            continue;
        mn_obj_name_slot *slot = mni_obj_names_find(&ps->usemtl_names, name, strlen(name));
        if (!slot)
            return MN_INVALID_ARGUMENT; /* every group's name is interned: not reached */
        if (slot->value == MN_NONE) {
            const mn_obj_name_slot *defined = mni_obj_names_find(&lc->material_names, name, slot->len);
            slot->value = defined ? defined->value : (uint32_t)count++;
        }
        groups[g].material_index = slot->value;
    }
    if (count == 0)
        return MN_OK;
    size_t bytes;
    mn_obj_material *m = mni_checked_mul(count, sizeof *m, &bytes) ? mni_arena_alloc(ps->arena, bytes, 8) : NULL;
    if (!m)
        return MN_OUT_OF_MEMORY;
    if (lib_count)
        memcpy(m, lib, lib_count * sizeof *m);
    size_t next = lib_count;
    for (size_t g = 0; g < group_count && next < count; g++) {
        if (groups[g].material_index != next)
            continue;  /* none, a library's, or a name whose default is made */
        mni_obj_material_default(&m[next], groups[g].material);
        if (lc->all_read && next - lib_count < MN_OBJ_UNDEFINED_WARNINGS &&
            !mni_obj_warn(&ps->warnings, MN_INVALID_VALUE, "usemtl",
                          "usemtl \"%s\": no library defines it; a default material is used",
                          groups[g].material))
            return MN_OUT_OF_MEMORY;
        next++;
    }
    if (lc->all_read && count - lib_count > MN_OBJ_UNDEFINED_WARNINGS &&
        !mni_obj_warn(&ps->warnings, MN_INVALID_VALUE, "usemtl",
                      "%zu more usemtl names no library defines; default materials are used",
                      count - lib_count - MN_OBJ_UNDEFINED_WARNINGS))
        return MN_OUT_OF_MEMORY;
    obj->materials = m;
    obj->material_count = (uint32_t)count;
    return MN_OK;
}

/* ---- the result -------------------------------------------------------------------------------------- */

/* Give back what a failed parallel read left in the result, for the one pass to start afresh. */
static void holder_reset(obj_holder *h)
{
    mn_allocator allocator = h->priv.arena.allocator;
    mni_obj_vec_free(&allocator, &h->priv.positions);
    mni_obj_vec_free(&allocator, &h->priv.texcoords);
    mni_obj_vec_free(&allocator, &h->priv.normals);
    mni_obj_vec_free(&allocator, &h->priv.soup);
    mni_arena_release(&h->priv.arena);
}

static void holder_free(obj_holder *h)
{
    mn_allocator allocator = h->priv.arena.allocator;
    holder_reset(h);
    mni_free(&allocator, h, sizeof *h);
}

static mn_status finish(obj_parser *ps, library_context *lc, obj_holder *h)
{
    mn_obj *obj = &h->obj;
    const group_start *starts = ps->groups.data;
    size_t group_count = ps->groups.size / sizeof *starts;
    mn_obj_group *groups = mni_arena_calloc(ps->arena, group_count ? group_count : 1, sizeof *groups, 8);
    if (!groups)
        return MN_OUT_OF_MEMORY;
    const float *soup = h->priv.soup.data;
    for (size_t g = 0; g < group_count; g++) {
        size_t last = g + 1 < group_count ? starts[g + 1].first : ps->soup_vertices;
        groups[g].material = starts[g].material;
        groups[g].verts = soup + 8 * starts[g].first;
        groups[g].vertex_count = (uint32_t)(last - starts[g].first);
    }
    mn_status st = load_libraries(ps, lc);
    if (st == MN_OK)
        st = assign_materials(ps, lc, groups, group_count, obj);
    if (st != MN_OK)
        return st;
    size_t lib_count = ps->libraries.size / sizeof(char *);
    if (lib_count) {
        const char **libs = mni_arena_alloc(ps->arena, ps->libraries.size, 8);
        if (!libs)
            return MN_OUT_OF_MEMORY;
        memcpy(libs, ps->libraries.data, ps->libraries.size);
        obj->mtllibs = libs;
        obj->mtllib_count = (uint32_t)lib_count;
        obj->mtllib = libs[0];
    }
    if (!mni_obj_warnings_finish(&ps->warnings, &obj->warnings, &obj->warning_count))
        return MN_OUT_OF_MEMORY;
    obj->groups = groups;
    obj->group_count = (uint32_t)group_count;
    obj->positions = h->priv.positions.data;
    obj->position_count = ps->position_count;
    obj->texcoords = h->priv.texcoords.data;
    obj->texcoord_count = ps->texcoord_count;
    obj->normals = h->priv.normals.data;
    obj->normal_count = ps->normal_count;
    memcpy(obj->bounds_min, ps->bounds_min, sizeof obj->bounds_min);
    memcpy(obj->bounds_max, ps->bounds_max, sizeof obj->bounds_max);
    obj->priv_ = &h->priv;
    return MN_OK;
}

void mni_obj_parser_init(obj_parser *ps, const mn_allocator *allocator, mn_arena *arena, mn_error *err,
                         mn_obj_vec *positions, mn_obj_vec *texcoords, mn_obj_vec *normals, mn_obj_vec *soup,
                         size_t size)
{
    memset(ps, 0, sizeof *ps);
    ps->allocator = allocator;
    ps->arena = arena;
    ps->err = err;
    ps->positions = positions;
    ps->texcoords = texcoords;
    ps->normals = normals;
    ps->soup = soup;
    ps->text_size = size;
    ps->first_face_offset = -1;
    for (int k = 0; k < 3; k++) {
        ps->bounds_min[k] = FLT_MAX;
        ps->bounds_max[k] = -FLT_MAX;
    }
    mni_obj_names_init(&ps->usemtl_names, arena);
    mni_obj_warnings_init(&ps->warnings, arena);
}

void mni_obj_parser_release(obj_parser *ps)
{
    mni_obj_vec_free(ps->allocator, &ps->corners);
    mni_obj_vec_free(ps->allocator, &ps->tris);
    mni_obj_vec_free(ps->allocator, &ps->work);
    mni_obj_vec_free(ps->allocator, &ps->scratch);
    mni_obj_vec_free(ps->allocator, &ps->groups);
    mni_obj_vec_free(ps->allocator, &ps->libraries);
    mni_obj_names_release(&ps->usemtl_names);
}

/* Below this many bytes a piece is not worth a thread: the text is read in one pass. */
#define MIN_PIECE_BYTES ((size_t)4 << 20)
#define MAX_THREADS 16u
#define PIECES_PER_THREAD 4u

/* How many threads read `size` bytes: the options' count (0 is 1), one per MIN_PIECE_BYTES at most. */
static uint32_t threads_for(size_t size, const mn_obj_options *options)
{
    uint32_t threads = options->threads ? options->threads : 1u;
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    size_t by_size = size / MIN_PIECE_BYTES;
    return by_size < threads ? (uint32_t)(by_size ? by_size : 1) : threads;
}

/*
 * Pieces for `threads` threads: several each, taken by whichever thread is
 * free, so that a thread given cheap text (faces are cheaper to read than
 * vertices) takes more of it and none waits long for the last.
 */
static uint32_t pieces_for(uint32_t threads)
{
    return threads > 1 ? PIECES_PER_THREAD * threads : 1u;
}


/*
 * Parse the text into h: in `pieces` pieces on up to `threads` threads when
 * pieces > 1, and in one pass when that read gives up (an error in the text,
 * whose first one the one pass reports with its line; a limit; memory).
 */
static mn_status parse_into(obj_holder *h, obj_parser *ps, const char *text, size_t size, uint32_t pieces,
                            uint32_t threads, mn_error *err, uint32_t *joined)
{
    *joined = 1;
    const mn_allocator *allocator = &h->priv.arena.allocator;
    mni_obj_parser_init(ps, allocator, &h->priv.arena, err, &h->priv.positions, &h->priv.texcoords,
                        &h->priv.normals, &h->priv.soup, size);
    if (pieces > 1) {
        if (mni_obj_parse_pieces(ps, text, size, pieces, threads, joined) == MN_OK)
            return MN_OK;
        mni_obj_parser_release(ps);
        holder_reset(h);
        mni_obj_parser_init(ps, allocator, &h->priv.arena, err, &h->priv.positions, &h->priv.texcoords,
                            &h->priv.normals, &h->priv.soup, size);
    }
    return mni_obj_parse_text(ps, text, size);
}

static mn_status read_text(const char *text, size_t size, const mn_obj_options *options,
                           const char *base_dir, uint32_t pieces, uint32_t threads, mn_obj **out,
                           mn_error *err, uint32_t *joined)
{
    uint32_t joined_here;
    if (!joined)
        joined = &joined_here;
    *joined = 1;
    const mn_allocator *caller_allocator = &options->allocator;
    obj_holder *h = mni_alloc(caller_allocator, sizeof *h);
    if (!h)
        return mni_oom(err, "reading OBJ");
    memset(h, 0, sizeof *h);
    mni_arena_init(&h->priv.arena, caller_allocator);
    const mn_allocator *allocator = &h->priv.arena.allocator;

    obj_parser ps;
    mn_status st = parse_into(h, &ps, text, size, pieces, threads, err, joined);

    library_context lc;
    memset(&lc, 0, sizeof lc);
    lc.options = options;
    lc.base_dir = base_dir ? base_dir : options->base_dir;
    mni_arena_init(&lc.file_arena, allocator);
    mni_obj_names_init(&lc.material_names, ps.arena);
    mni_obj_names_init(&lc.library_names, ps.arena);

    if (st == MN_OK && (st = finish(&ps, &lc, h)) == MN_OUT_OF_MEMORY)
        mni_oom(err, "reading OBJ");

    mni_obj_parser_release(&ps);
    mni_obj_names_release(&lc.material_names);
    mni_obj_names_release(&lc.library_names);
    mni_obj_vec_free(allocator, &lc.materials);
    mni_arena_release(&lc.file_arena);
    if (st != MN_OK) {
        holder_free(h);
        return st;
    }
    mni_error_clear(err);
    *out = &h->obj;
    return MN_OK;
}

static const mn_obj_options default_options; /* zero: every default */

mn_status mni_obj_read_memory_pieces(const void *text, size_t size, const mn_obj_options *options,
                                     uint32_t pieces, uint32_t threads, mn_obj **out_obj, mn_error *err,
                                     uint32_t *joined)
{
    if (joined)
        *joined = 1;
    if (out_obj)
        *out_obj = NULL;
    if (!out_obj || (!text && size) || pieces == 0 || threads == 0)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mni_obj_read_memory_pieces needs text (or size 0), out_obj, pieces and threads");
    return read_text(size ? text : "", size, options ? options : &default_options, NULL, pieces, threads,
                     out_obj, err, joined);
}

/* ---- entry points --------------------------------------------------------------------------------------- */

mn_status mn_obj_read_memory(const void *text, size_t size, const mn_obj_options *options,
                             mn_obj **out_obj, mn_error *err)
{
    if (out_obj)
        *out_obj = NULL;
    if (!out_obj || (!text && size))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_obj_read_memory needs text (or size 0) and out_obj");
    if (!options)
        options = &default_options;
    uint32_t threads = threads_for(size, options);
    return read_text(size ? text : "", size, options, NULL, pieces_for(threads), threads, out_obj, err, NULL);
}

/* The folder of path ("" when it has none), in the arena. */
static const char *folder_of(mn_arena *arena, const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *back = strrchr(path, '\\');
    if (back && (!slash || back > slash))
        slash = back;
    if (!slash)
        return mni_arena_strndup(arena, "", 0);
    return mni_arena_strndup(arena, path, (size_t)(slash - path) + (slash == path ? 1 : 0));
}

mn_status mn_obj_read_file(const char *path, const mn_obj_options *options, mn_obj **out_obj,
                           mn_error *err)
{
    if (out_obj)
        *out_obj = NULL;
    if (!path || !out_obj)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_obj_read_file needs a path and out_obj");
    mn_arena file_arena;
    mni_arena_init(&file_arena, options ? &options->allocator : NULL);
    const char *base_dir = options && options->base_dir ? options->base_dir : folder_of(&file_arena, path);
    if (!base_dir) {
        mni_arena_release(&file_arena);
        return mni_oom(err, "reading \"%s\"", path);
    }
    /* Read, not mapped: a file that shrinks meanwhile is an error, never a fault. */
    mn_bytes bytes = {0};
    mn_status st = mni_file_read(&file_arena, path, &bytes, err);
    if (!options)
        options = &default_options;
    uint32_t threads = threads_for(bytes.size, options);
    if (st == MN_OK)
        st = read_text((const char *)bytes.data, bytes.size, options, base_dir, pieces_for(threads), threads,
                       out_obj, err, NULL);
    mni_arena_release(&file_arena);
    return st;
}

void mn_obj_free(mn_obj *obj)
{
    if (obj)
        holder_free((obj_holder *)(void *)obj);
}
