/*
 * Private: what the OBJ and MTL readers share.
 *
 *   obj/internal.h     the number and index parsers (inline: they are the OBJ
 *                      reader's inner loop), character classes
 *   obj/text.c         growable buffers, joining continued lines, warnings,
 *                      the name table
 *   obj/triangulate.c  polygons to triangles (fan, ear clipping), face normals
 *   obj/read.c         the OBJ statements, groups, libraries, entry points
 *   obj/pieces.c       the parallel read: pieces parsed on several threads,
 *                      joined into exactly the one-thread result
 *   mtl_read.c         the MTL statements and mn_mtl_read_memory
 *
 * Every line the parsers look at ends in '\n': the input's own, or the one a
 * copy in scratch memory gets (the last line of an input without a final
 * newline, a line continued with a backslash).  So the scanners below run
 * without bounds checks: '\n' stops each of them.
 *
 * Not installed.
 */
#ifndef MN_OBJ_INTERNAL_H
#define MN_OBJ_INTERNAL_H

#include <marionette/obj.h>

#include "core/core.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The inner-loop helpers must inline even where the compiler's size heuristics say no. */
#if defined(__GNUC__)
#define MN_OBJ_INLINE static inline __attribute__((always_inline))
#else
#define MN_OBJ_INLINE static inline
#endif

/* ---- characters ----------------------------------------------------------------- */

/* Blanks inside a line: space, tab, CR, VT, FF (a CR before the '\n' reads as a blank). */
static inline bool mni_obj_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline bool mni_obj_is_digit(char c)
{
    return (unsigned)(c - '0') < 10u;
}

static inline const char *mni_obj_skip_blanks(const char *p)
{
    while (mni_obj_is_blank(*p))
        p++;
    return p;
}

/* A backslash that ends its line: the statement goes on on the next line. */
static inline bool mni_obj_is_continuation(const char *p)
{
    return p[0] == '\\' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n'));
}

/* What may follow a number or an index: a blank, the line end, a comment. */
static inline bool mni_obj_ends_token(char c)
{
    return mni_obj_is_blank(c) || c == '\n' || c == '#';
}

/* ---- numbers -------------------------------------------------------------------- */

/* Powers of ten exact in a double (10^22 is the last one). */
static const double mn_obj_pow10[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* Far-from-typical numbers: more than 2^53 in the significand or a big exponent. */
static inline double mni_obj_scale_slow(uint64_t m, int exp10, int digits)
{
    if (exp10 + digits > 40)
        return INFINITY;           /* beyond 1e39: past any float */
    if (exp10 + digits < -50)
        return 0.0;                /* below 1e-50: under the smallest float */
    double d = (double)m;
    while (exp10 > 22) {
        d *= 1e22;
        exp10 -= 22;
    }
    while (exp10 < -22) {
        d /= 1e22;
        exp10 += 22;
    }
    return exp10 < 0 ? d / mn_obj_pow10[-exp10] : d * mn_obj_pow10[exp10];
}

/*
 * Parse a decimal number ([+-] digits [. digits] [e [+-] digits], either
 * digit run may be empty but not both) at p into *out.  Returns the
 * character after it, or NULL when p holds no number (p unchanged in
 * meaning; "1e" or "-." are no numbers).  Locale-independent.
 *
 * Up to 19 significant digits go into a 64-bit integer; typical OBJ
 * decimals (fewer than 16 digits, |exponent| <= 22) then take Clinger's
 * fast path: the integer and the power of ten are both exact doubles, so
 * one division or multiplication rounds once to the nearest double, and the
 * conversion to float rounds again (within one float ulp of the correctly
 * rounded value, equal to it almost always).  Other numbers scale in a few
 * exact-power steps: a handful of double ulps, far below a float ulp.  A
 * value beyond the float range comes out as an infinity for the caller to
 * refuse.
 */
MN_OBJ_INLINE const char *mn_obj_parse_float(const char *p, float *out)
{
    bool negative = false;
    if (*p == '-') {
        negative = true;
        p++;
    } else if (*p == '+') {
        p++;
    }
    const char *start = p;
    uint64_t m = 0;
    int digits = 0, exp10 = 0;
    while (*p == '0')
        p++;
    while (mni_obj_is_digit(*p)) {
        if (digits < 19) {
            m = m * 10u + (uint64_t)(*p - '0');
            digits++;
        } else {
            exp10++;
        }
        p++;
    }
    bool any = p != start;
    if (*p == '.') {
        p++;
        const char *fraction = p;
        if (digits == 0)
            while (*p == '0') {
                p++;
                exp10--;
            }
        while (mni_obj_is_digit(*p)) {
            if (digits < 19) {
                m = m * 10u + (uint64_t)(*p - '0');
                digits++;
                exp10--;
            }
            p++;
        }
        any = any || p != fraction;
    }
    if (!any)
        return NULL;
    if ((*p | 0x20) == 'e') {
        const char *e = p + 1;
        bool exp_negative = false;
        if (*e == '-') {
            exp_negative = true;
            e++;
        } else if (*e == '+') {
            e++;
        }
        if (!mni_obj_is_digit(*e))
            return NULL;
        int x = 0;
        while (mni_obj_is_digit(*e)) {
            if (x < 100000)
                x = x * 10 + (*e - '0');
            e++;
        }
        exp10 += exp_negative ? -x : x;
        p = e;
    }
    double d;
    if (m == 0)
        d = 0.0;
    else if (m <= ((uint64_t)1 << 53) && exp10 >= -22 && exp10 <= 22)
        d = exp10 < 0 ? (double)m / mn_obj_pow10[-exp10] : (double)m * mn_obj_pow10[exp10];
    else
        d = mni_obj_scale_slow(m, exp10, digits);
    /* Halfway between FLT_MAX and 2^128 and above rounds to infinity. */
    float f = d >= 0x1.ffffffp127 ? INFINITY : (float)d;
    *out = negative ? -f : f;
    return p;
}

/* ---- eight digits at a time --------------------------------------------------------- */

/*
 * The common numbers of an OBJ file ("-0.123456", "42", "1.5") are read
 * eight characters at a time (SWAR) on little-endian machines, by the fast
 * parsers below; they take only the forms whose value the general parsers
 * above would compute with the very same operations (so the results are the
 * same bits), and hand anything else back (NULL) to the general parsers.
 * They read MN_OBJ_FAST_READ bytes at p without looking for the line end:
 * callers use them only when that many bytes of text remain.
 */
#define MN_OBJ_FAST_READ 24

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
#define MN_OBJ_SWAR 1

/* Powers of ten as integers, for joining the digits before and after the point. */
static const uint32_t mn_obj_pow10_u32[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};

/*
 * How many of the 8 bytes at p are leading decimal digits (0..8); their
 * value in *value.  A byte is a digit when its high nibble is 3 and adding 6
 * to it leaves the high nibble 3 (a carry out of a non-digit byte can only
 * disturb the bytes after it, which do not count).  The digits are then
 * moved to the top of the word (the zero bytes below them read as leading
 * zeros) and combined pairwise: 8 digits in three multiplications.
 */
MN_OBJ_INLINE unsigned mn_obj_digits8(const char *p, uint32_t *value)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    uint64_t high = (v & 0xF0F0F0F0F0F0F0F0u) ^ 0x3030303030303030u;
    uint64_t low = ((v + 0x0606060606060606u) & 0xF0F0F0F0F0F0F0F0u) ^ 0x3030303030303030u;
    uint64_t bad = high | low;
    unsigned n = bad ? (unsigned)__builtin_ctzll(bad) >> 3 : 8u;
    if (n == 0) {
        *value = 0;
        return 0;
    }
    v = (v << (8 * (8 - n))) & 0x0F0F0F0F0F0F0F0Fu;
    v = (v * 2561u) >> 8;
    v = ((v & 0x00FF00FF00FF00FFu) * 6553601u) >> 16;
    v = ((v & 0x0000FFFF0000FFFFu) * 42949672960001u) >> 32;
    *value = (uint32_t)v;
    return n;
}

/*
 * [+-] digits [. digits], at most 7 digits on either side, no exponent: the
 * value is m / 10^f with m < 10^14 < 2^53, exactly what mn_obj_parse_float
 * computes on its fast path (same m, same power, same division).  NULL for
 * any other form (the caller then uses mn_obj_parse_float).
 */
MN_OBJ_INLINE const char *mn_obj_parse_float_fast(const char *p, float *out)
{
    bool negative = *p == '-';
    p += *p == '-' || *p == '+';
    uint32_t whole, fraction = 0;
    unsigned nw = mn_obj_digits8(p, &whole), nf = 0;
    if (nw == 8)
        return NULL;
    p += nw;
    if (*p == '.') {
        nf = mn_obj_digits8(p + 1, &fraction);
        if (nf == 8)
            return NULL;
        p += 1 + nf;
    }
    if (nw + nf == 0 || (*p | 0x20) == 'e')
        return NULL;
    uint64_t m = (uint64_t)whole * mn_obj_pow10_u32[nf] + fraction;
    double d = m == 0 ? 0.0 : (double)m / mn_obj_pow10[nf];
    float f = (float)d;
    *out = negative ? -f : f;
    return p;
}

/* digits (at most 7, no sign): an index as mn_obj_parse_index reads it; NULL for other forms. */
MN_OBJ_INLINE const char *mn_obj_parse_index_fast(const char *p, int64_t *out)
{
    uint32_t v;
    unsigned n = mn_obj_digits8(p, &v);
    if (n == 0 || n == 8)
        return NULL;
    *out = (int64_t)v;
    return p + n;
}
#else
#define MN_OBJ_SWAR 0
#endif

/*
 * Parse an OBJ index ([+-] digits) at p.  Returns the character after it,
 * or NULL when there are no digits.  Magnitudes are clamped to 2^40, which
 * is out of range for any element count, so a 30-digit index fails the
 * range check instead of wrapping.
 */
MN_OBJ_INLINE const char *mn_obj_parse_index(const char *p, int64_t *out)
{
    bool negative = false;
    if (*p == '-') {
        negative = true;
        p++;
    } else if (*p == '+') {
        p++;
    }
    if (!mni_obj_is_digit(*p))
        return NULL;
    uint64_t v = 0;
    while (mni_obj_is_digit(*p)) {
        if (v < ((uint64_t)1 << 40))
            v = v * 10u + (uint64_t)(*p - '0');
        p++;
    }
    *out = negative ? -(int64_t)v : (int64_t)v;
    return p;
}

/* ---- growable buffers (obj/text.c) ---------------------------------------------- */

/* A byte buffer from the allocator that grows geometrically (×2). */
typedef struct mn_obj_vec {
    void *data;
    size_t size;   /* bytes in use */
    size_t cap;    /* bytes allocated */
} mn_obj_vec;

/* Make room for `extra` more bytes; false when out of memory or the size overflows. */
bool mni_obj_vec_grow(const mn_allocator *allocator, mn_obj_vec *vec, size_t extra);

static inline bool mni_obj_vec_reserve(const mn_allocator *allocator, mn_obj_vec *vec, size_t extra)
{
    return vec->cap - vec->size >= extra || mni_obj_vec_grow(allocator, vec, extra);
}

void mni_obj_vec_free(const mn_allocator *allocator, mn_obj_vec *vec);

/*
 * Copy one logical line starting at p (before end) into `scratch`: the
 * physical lines a trailing backslash continues are joined with a blank in
 * place of the backslash and line end, and the copy ends in '\n' (also when
 * the input did not).  *next is where the following line starts, *lines
 * how many physical lines were used.  False when out of memory.
 */
bool mni_obj_join_line(const mn_allocator *allocator, mn_obj_vec *scratch, const char *p,
                       const char *end, const char **next, int *lines);

/* The length of the text from p to its '\n' with trailing blanks removed. */
size_t mni_obj_rest_length(const char *p);

/* ---- warnings (obj/text.c) ------------------------------------------------------ */

typedef struct mn_obj_warning_node {
    mn_warning warning;
    struct mn_obj_warning_node *next;
} mn_obj_warning_node;

#define MN_OBJ_UNKNOWN_KEYWORDS 16

/* How the OBJ reader's warnings name a statement it does not read. */
#define MN_OBJ_UNKNOWN_WHAT "unknown or unsupported OBJ statement"

typedef struct mn_obj_warnings {
    mn_arena *arena;
    mn_obj_warning_node *head, *tail;
    uint32_t count;
    const char *prefix;          /* "pirate.mtl: " for a library's warnings, "" otherwise */
    /* Unknown statements are reported once per keyword, for the first few keywords. */
    char unknown[MN_OBJ_UNKNOWN_KEYWORDS][16];
    uint32_t unknown_count;
    bool unknown_overflow;
} mn_obj_warnings;

void mni_obj_warnings_init(mn_obj_warnings *w, mn_arena *arena);

/* Add a warning (message printf-style, after the prefix).  False when out of memory. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
bool mni_obj_warn(mn_obj_warnings *w, mn_status code, const char *path, const char *fmt, ...);

/*
 * The keyword of a statement as the unknown-keyword lists keep it (len bytes
 * cut to 15, NUL-terminated) into key, its length into *kept; true when it is
 * already one of list[0..count).  Shared by the one-pass warnings and the
 * split read's pieces, so both report the same keywords.
 */
bool mni_obj_keyword_listed(char (*list)[16], uint32_t count, const char *keyword, size_t len,
                            char key[16], size_t *kept);

/* Warn about the statement `keyword` (len bytes) at `line` unless its keyword was already reported. */
bool mni_obj_warn_unknown(mn_obj_warnings *w, const char *keyword, size_t len, int line,
                          const char *what);

/* The warnings as an arena array (NULL when none).  False when out of memory. */
bool mni_obj_warnings_finish(mn_obj_warnings *w, const mn_warning **out, uint32_t *count);

/* ---- names (obj/text.c) ----------------------------------------------------------- */

/* An open-addressing table from a name to a uint32_t: its names in an arena, its slots from the
   arena's allocator (mni_obj_names_release gives them back; the names stay). */
typedef struct mn_obj_name_slot {
    const char *name;   /* NULL: empty */
    size_t len;
    uint32_t hash;
    uint32_t value;
} mn_obj_name_slot;

typedef struct mn_obj_names {
    mn_arena *arena;
    mn_obj_name_slot *slots;
    size_t mask;        /* slot count - 1 */
    size_t count;
    uint64_t seed;      /* keys the hash (text.c): a file cannot choose names that collide */
} mn_obj_names;

void mni_obj_names_init(mn_obj_names *t, mn_arena *arena);

/* The slot holding the name, or NULL. */
mn_obj_name_slot *mni_obj_names_find(const mn_obj_names *t, const char *name, size_t len);

/*
 * The slot holding the name, added (an arena copy, NUL-terminated, with
 * value MN_NONE) when absent.  NULL when out of memory.
 */
mn_obj_name_slot *mni_obj_names_add(mn_obj_names *t, const char *name, size_t len);

/* Give back the slots (the table is then empty; the names stay in the arena). */
void mni_obj_names_release(mn_obj_names *t);

/* ---- errors --------------------------------------------------------------------- */

/* Where the statement being parsed is: for line, column and offset in errors. */
typedef struct mn_obj_where {
    int line;                   /* 1-based line the statement starts on */
    const char *text;           /* the statement's text (the input, or a scratch copy) */
    int64_t offset;             /* byte offset of `text` in the input */
} mn_obj_where;

/*
 * Fill err for the statement `keyword` at `at` (a character of where->text):
 * line, column, offset, path = keyword, message "line N: keyword: ...".
 */
#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
mn_status mni_obj_fail(mn_error *err, mn_status code, const mn_obj_where *where, const char *keyword,
                       const char *at, const char *fmt, ...);

/* ---- triangulation (obj/triangulate.c) ------------------------------------------- */

/* One face corner, resolved to 0-based indices; MN_NONE for an absent vt or vn. */
typedef struct mn_obj_corner {
    uint32_t v, vt, vn;
} mn_obj_corner;

/* What triangulating one polygon cost (all zero for a triangle, a quad or a fan). */
typedef struct mn_obj_tri_cost {
    uint64_t steps;     /* ear-clipping steps: ears tried and corners looked at against them */
    uint64_t budget;    /* the steps the polygon was allowed (mni_obj_ear_budget) */
    bool gave_up;       /* the budget ran out: the corners left became a fan */
} mn_obj_tri_cost;

/*
 * Triangulate the polygon of `n` >= 3 corners: appends (n − 2) triangles as
 * corner-index triples (uint32_t) to `tris`, winding as authored, and writes
 * the unit flat normal of the polygon ((0, 0, 1) when it has no area) into
 * normal[3] (normal may be NULL: the same triangles, without working the
 * normal out).  `work` is scratch memory: none for a convex polygon, about
 * 60 bytes a corner for a concave one.  Time O(n) for a convex polygon and
 * O(n log n) for any other (obj/triangulate.c says how).  *cost (when not
 * NULL) receives what it took.  False when out of memory.
 */
bool mni_obj_triangulate(const mn_allocator *allocator, const float *positions,
                         const mn_obj_corner *corners, uint32_t n, mn_obj_vec *tris,
                         mn_obj_vec *work, float normal[3], mn_obj_tri_cost *cost);

/* Ear-clipping steps allowed per corner and per doubling of the corner count. */
#define MN_OBJ_EAR_STEPS 32u

/* The steps a polygon of n corners is allowed: MN_OBJ_EAR_STEPS n (floor(log2 n) + 1) + 4096. */
uint64_t mni_obj_ear_budget(uint32_t n);

/* The unit normal of triangle a b c ((0, 0, 1) when it has no area). */
void mni_obj_triangle_normal(const float *a, const float *b, const float *c, float normal[3]);

/* ---- writing triangles ------------------------------------------------------------- */

/* One soup vertex (position, normal, uv) for corner c at o; the vertex after it. */
MN_OBJ_INLINE float *mn_obj_put_vertex(float *o, const float *positions, const float *texcoords,
                                       const float *normals, const mn_obj_corner *c,
                                       const float *face_normal)
{
    const float *p = positions + 3 * (size_t)c->v;
    const float *n = c->vn != MN_NONE ? normals + 3 * (size_t)c->vn : face_normal;
    o[0] = p[0];
    o[1] = p[1];
    o[2] = p[2];
    o[3] = n[0];
    o[4] = n[1];
    o[5] = n[2];
    if (c->vt != MN_NONE) {
        const float *t = texcoords + 2 * (size_t)c->vt;
        o[6] = t[0];
        o[7] = t[1];
    } else {
        o[6] = 0.0f;
        o[7] = 0.0f;
    }
    return o + 8;
}

/*
 * Write the 3 (n − 2) soup vertices of a polygon of n >= 3 resolved corners
 * at o: a triangle as it is, a bigger polygon through mni_obj_triangulate; a
 * corner without its own normal gets the face's flat one (all_normals: every
 * corner has one, so the face normal is not worked out).  The one routine
 * both the one-thread reader and the parallel join write faces with, so
 * their soups are the same bits.  *gave_up: whether ear clipping ran out of
 * its budget and finished the polygon as a fan.  False when out of memory.
 */
MN_OBJ_INLINE bool mn_obj_emit_face(const mn_allocator *allocator, const float *positions,
                                    const float *texcoords, const float *normals,
                                    const mn_obj_corner *c, uint32_t n, bool all_normals,
                                    mn_obj_vec *tris, mn_obj_vec *work, float *o, bool *gave_up)
{
    *gave_up = false;
    float face_normal[3];
    if (n == 3) {
        if (!all_normals)
            mni_obj_triangle_normal(positions + 3 * (size_t)c[0].v, positions + 3 * (size_t)c[1].v,
                                    positions + 3 * (size_t)c[2].v, face_normal);
        o = mn_obj_put_vertex(o, positions, texcoords, normals, &c[0], face_normal);
        o = mn_obj_put_vertex(o, positions, texcoords, normals, &c[1], face_normal);
        mn_obj_put_vertex(o, positions, texcoords, normals, &c[2], face_normal);
        return true;
    }
    /* With every corner's own normal the face normal is not needed, only the split. */
    tris->size = 0;
    mn_obj_tri_cost cost;
    if (!mni_obj_triangulate(allocator, positions, c, n, tris, work, all_normals ? NULL : face_normal, &cost))
        return false;
    *gave_up = cost.gave_up;
    const uint32_t *t = tris->data;
    size_t vertices = 3 * ((size_t)n - 2);
    for (size_t k = 0; k < vertices; k++)
        o = mn_obj_put_vertex(o, positions, texcoords, normals, &c[t[k]], face_normal);
    return true;
}

/* ---- the OBJ parser (obj/read.c), shared with the parallel read (obj/pieces.c) ----- */

/* A group while parsing: its material and where its soup vertices start. */
typedef struct mn_obj_group_start {
    const char *material;
    size_t first;
} mn_obj_group_start;

/*
 * What a piece of a parallel read keeps, in file order, of the statements
 * that shape groups, libraries and warnings; the join replays them through
 * the one-thread reader's own state (mni_obj_use_material, ...).
 */
typedef enum mn_obj_event_kind {
    MN_OBJ_EVENT_USEMTL,        /* name: the material name */
    MN_OBJ_EVENT_MTLLIB,        /* name: the library as written */
    MN_OBJ_EVENT_UNKNOWN,       /* name: the keyword; line: the piece's line */
    MN_OBJ_EVENT_FACES,         /* vertices: soup vertices of a run of faces */
} mn_obj_event_kind;

typedef struct mn_obj_event {
    mn_obj_event_kind kind;
    int line;
    const char *name;           /* in the piece's arena */
    size_t len;
    size_t vertices;
} mn_obj_event;

/*
 * A piece's faces are recorded, not written: the positions they name may be
 * in an earlier piece, read at the same time.  Each face is a run of
 * uint32_t words: the corner count n, the face's flags, n corners of three
 * words (v, vt, vn) and, when the corners differ in form (MN_OBJ_FACE_MIXED),
 * n words of flags, one per corner.  An absolute index is stored resolved
 * (0-based); a relative one as its distance from the piece's first element
 * (modulo 2^32: negative when it reaches into an earlier piece), resolved
 * when the join knows how many elements come before the piece.
 */
#define MN_OBJ_FACE_VT 1u       /* the corner has a texture coordinate */
#define MN_OBJ_FACE_VN 2u       /* the corner has a normal */
#define MN_OBJ_FACE_V_REL 4u    /* its v index is relative */
#define MN_OBJ_FACE_VT_REL 8u
#define MN_OBJ_FACE_VN_REL 16u
#define MN_OBJ_FACE_MIXED 32u   /* per-corner flags follow the corners */

/* Enough first uses of unknown keywords per piece to place the join's once-per-keyword warnings. */
#define MN_OBJ_PIECE_KEYWORDS (2 * MN_OBJ_UNKNOWN_KEYWORDS + 1)

/* A checkpoint every this many soup vertices of a piece: the join writes the soup in such chunks. */
#define MN_OBJ_CHUNK_VERTICES 49152u

/* A face-record offset (in words) and the piece's soup vertices before it. */
typedef struct mn_obj_checkpoint {
    size_t word;
    size_t vertex;
} mn_obj_checkpoint;

/* The state of one piece of a parallel read (obj/pieces.c), owned by it. */
typedef struct mn_obj_piece {
    mn_arena arena;             /* event names */
    mn_obj_vec faces;           /* the face records (uint32_t words) */
    mn_obj_vec events;          /* mn_obj_event */
    mn_obj_vec checkpoints;     /* mn_obj_checkpoint, one per MN_OBJ_CHUNK_VERTICES */
    size_t checkpoint_vertex;   /* soup vertices at the newest checkpoint */
    /* Per kind (v, vt, vn): how many elements before the piece its indices need. */
    uint64_t need[3];
    char unknown[MN_OBJ_PIECE_KEYWORDS][16];
    uint32_t unknown_count;
} mn_obj_piece;

typedef struct mn_obj_parser {
    const mn_allocator *allocator;
    mn_arena *arena;
    mn_error *err;
    mn_status status;                   /* the error a handler returned NULL for */
    mn_obj_where where;
    const char *region_end;             /* the text being parsed ends in '\n' just before this */
    mn_obj_piece *piece;                /* NULL: the whole text in one pass */

    mn_obj_vec *positions, *texcoords, *normals, *soup;  /* floats */
    uint32_t position_count, texcoord_count, normal_count;
    size_t soup_vertices;
    size_t text_size;                   /* of the text parsed, for size projections */
    int64_t first_face_offset;          /* where the first face starts, -1 before it */
    float bounds_min[3], bounds_max[3];

    mn_obj_vec corners, tris, work, scratch;
    mn_obj_vec groups;                  /* mn_obj_group_start */
    mn_obj_vec libraries;               /* const char * (arena), as written */
    mn_obj_names usemtl_names;          /* interned usemtl names */
    const char *material;               /* the usemtl in force (interned), NULL before any */
    bool group_open;                    /* the newest group has `material` */
    mn_obj_warnings warnings;
    int lines;                          /* after a pass: 1 + the newlines read (saturating) */
    uint64_t fanned;                    /* polygons whose ear clipping ran out of budget */
} mn_obj_parser;

/*
 * Set up a parser for `size` bytes of text: elements go to the vectors
 * given (the soup may be NULL for a piece), names and warnings to `arena`.
 */
void mni_obj_parser_init(mn_obj_parser *ps, const mn_allocator *allocator, mn_arena *arena,
                         mn_error *err, mn_obj_vec *positions, mn_obj_vec *texcoords,
                         mn_obj_vec *normals, mn_obj_vec *soup, size_t size);

/* Free the parser's working buffers (not the vectors it was given, not the arena). */
void mni_obj_parser_release(mn_obj_parser *ps);

/* Parse the whole text (or a piece: ps->piece set) statement by statement. */
mn_status mni_obj_parse_text(mn_obj_parser *ps, const char *text, size_t size);

/* usemtl NAME, mtllib NAME and a run of faces, as the one pass applies them.  False: out of memory. */
bool mni_obj_use_material(mn_obj_parser *ps, const char *name, size_t len);
bool mni_obj_add_library(mn_obj_parser *ps, const char *name, size_t len);
bool mni_obj_add_faces(mn_obj_parser *ps, size_t vertices);

/*
 * After the faces are written: the one warning (when ps->fanned > 0) that
 * so many polygons ran out of ear-clipping budget and were finished as
 * fans.  The one pass and the parallel join both add it at this point, so
 * both make the same warnings.  False when out of memory.
 */
bool mni_obj_warn_fanned(mn_obj_parser *ps);

/*
 * The parallel read (obj/pieces.c): split the text into `pieces` pieces at
 * line ends, parse them on up to `threads` threads (1: one after another on
 * the caller's), join them into ps (made by mni_obj_parser_init over the
 * result's vectors and arena, soup included): the groups, libraries,
 * warnings, bounds, counts and soup the one-pass read would make.  Anything
 * but MN_OK means "read it in one pass instead": an error in the text (the
 * one pass reports the first one, with its line), a limit crossed, or
 * memory running out; ps's vectors and arena then hold partial data for the
 * caller to release.  *joined: how many pieces were joined (on MN_OK).
 */
mn_status mni_obj_parse_pieces(mn_obj_parser *ps, const char *text, size_t size, uint32_t pieces,
                               uint32_t threads, uint32_t *joined);

/* ---- MTL (mtl_read.c) -------------------------------------------------------------- */

/*
 * Parse MTL text, appending its materials (mn_obj_material, names in
 * `arena`) to `materials` (a vector from `allocator`).  A name defined twice
 * keeps its first place and its last definition.  Warnings go to `warnings`.
 */
mn_status mni_mtl_parse(const char *text, size_t size, const mn_allocator *allocator, mn_arena *arena,
                        mn_obj_vec *materials, mn_obj_warnings *warnings, mn_error *err);

/* A material with every default (Kd 0.7, opacity 1, the rest 0), named `name`. */
void mni_obj_material_default(mn_obj_material *m, const char *name);

#endif /* MN_OBJ_INTERNAL_H */
