/*
 * marionette/obj.h — the Wavefront OBJ and MTL reader.
 *
 *     mn_obj *obj = NULL;
 *     mn_error err;
 *     if (mn_obj_read_file("pirate.obj", NULL, &obj, &err) != MN_OK) {
 *         fprintf(stderr, "line %d: %s\n", err.line, err.message);
 *         return 1;
 *     }
 *     for (uint32_t g = 0; g < obj->group_count; g++)
 *         draw(obj->groups[g].verts, obj->groups[g].vertex_count,
 *              &obj->materials[obj->groups[g].material_index]);   (when material_index != MN_NONE)
 *     mn_obj_free(obj);
 *
 * What it reads:
 *
 *   v x y z [w | r g b]   a position; the optional w or vertex colour is accepted and dropped
 *   vt u [v [w]]          a texture coordinate, v default 0, w dropped; not flipped
 *   vn x y z              a normal, kept as written (not normalised)
 *   f a b c ...           a polygon of three or more corners, each `v`, `v/vt`, `v//vn` or
 *                         `v/vt/vn`; 1-based indices, or negative ones counting back from the
 *                         latest element (-1 is the last `v` so far).  Corners may mix forms.
 *   usemtl NAME           the material of the faces that follow (NAME is the rest of the line)
 *   mtllib FILE...        material libraries (kept as written; read through the resolver)
 *   o, g, s, mg           accepted and ignored: groups are made per `usemtl`, normals that
 *                         the file lacks are flat, so object, group and smoothing-group
 *                         names change nothing
 *   # ...                 comments, here and after the numbers of v/vt/vn/f lines
 *
 * Blank lines, CRLF line ends, tabs, and lines continued by a trailing
 * backslash are accepted.  Any other statement (l, p, curv, surf, vp, ...) is
 * skipped with a warning, one per distinct keyword (real files carry many).
 *
 * Polygons are triangulated keeping the authored winding, in the plane
 * through the first corner perpendicular to their Newell normal.  A polygon
 * with no area, or whose corners all turn one way, or that lies within
 * 10^-6 of its size of a convex outline made of its own corners (a smooth
 * convex outline printed with a few decimals zigzags by about its last
 * digit) is a fan from its first corner: O(n) for n corners.  Any other is
 * ear-clipped over a quadtree of its corners in O(n log n): at most
 * 32 n (floor(log2 n) + 1) + 4096 steps (a step: a corner tried, a cell or
 * corner looked at; a 1,000,000-corner star takes about 120 a corner).  A
 * polygon that runs out of steps, or has no ear left (it crosses itself),
 * has the corners left finished as a fan whose triangles may overlap; one
 * warning (path "f") counts such polygons.  A corner without `vt` gets uv
 * (0, 0); a corner without `vn` gets the face's flat normal: the unit Newell
 * normal of the whole polygon (for a triangle, the normalised cross product
 * (b − a) × (c − a)), or (0, 0, 1) when the polygon has no area.
 *
 * Numbers are parsed by the reader's own locale-independent parser (decimal
 * and exponent forms; within one float ulp of strtod in the C locale); "nan",
 * "inf" and hexadecimal floats are refused, and so is a value beyond the
 * float range (MN_NOT_FINITE).
 *
 * Errors: a malformed line stops the read with an mn_error whose `line` is
 * the 1-based line the statement starts on, `column` the 1-based column of
 * the offending text, `offset` its byte offset, `path` the statement
 * keyword ("f", "v", "usemtl", ... "newmtl", "Kd" for MTL) and `message`
 * naming both, e.g. "line 12: f: vertex index 9 is out of range (8 v so far)".
 * Codes: MN_INVALID_VALUE (a bad number, a missing name, a v/vt/vn with too
 * few or too many numbers, a face with fewer than 3 corners, a malformed
 * corner), MN_INDEX_RANGE (an index that is 0 or names an element not yet
 * defined), MN_NOT_FINITE (a number beyond the float range), MN_OVERFLOW
 * (more than 2^32 − 2 elements of a kind or soup vertices in a group),
 * MN_OUT_OF_MEMORY, MN_INVALID_ARGUMENT (NULL arguments), MN_IO (read_file
 * only: the OBJ cannot be read).
 *
 * Memory: everything a result holds comes from the options' allocator and is
 * released by its one free function.  The peak is at most the result (soup,
 * groups, materials, element arrays) plus 24 bytes per byte of text plus about
 * 92 bytes per corner of the biggest polygon that is ear-clipped; time is
 * linear in the text plus O(n log n) for that polygon's n corners.  A
 * million `usemtl` groups cost a group, a material and a name each.  The
 * first 16 `usemtl` names no library defines get a warning each; one
 * warning counts the rest.
 *
 * Threads: by default the text is read on the calling thread and no thread
 * is started.  Asked for more (mn_obj_options.threads), a big text (4 MB or
 * more per thread) is split at line ends into pieces read at once on a
 * worker pool made for the read (marionette/pool.h), then joined; the
 * result is the one-thread result exactly (groups, soup bits, arrays,
 * bounds, warnings, and for a malformed text the same first error, which is
 * found by reading the text again on one thread).  While it runs, the split
 * read also holds each piece's faces in a compact form, about 0.6 of their
 * text's size.
 */
#ifndef MARIONETTE_OBJ_H
#define MARIONETTE_OBJ_H

#include "core.h"
#include "io.h"    /* mn_resolver */
#include "model.h" /* mn_warning, MN_NONE */

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One material of an MTL library (parseMtl's ObjMaterial).  Absent keys keep
 * the defaults given per field; the has_ flags say which keys were present.
 */
typedef struct mn_obj_material {
    const char *name;          /* the newmtl name (rest of the line), what usemtl refers to */
    float diffuse[3];          /* Kd, default 0.7 0.7 0.7; "Kd r" alone means r r r */
    float ambient[3];          /* Ka, default 0 0 0 */
    float specular[3];         /* Ks, default 0 0 0 */
    float shininess;           /* Ns, default 0 */
    float opacity;             /* d, or 1 − Tr when there is no d; default 1 */
    float emissive[3];         /* Ke, default 0 0 0 */
    const char *map_kd;        /* map_Kd exactly as written after the keyword (options
                                  included, trailing blanks trimmed); NULL when absent */
    const char *map_kd_file;   /* map_Kd with its leading -options removed: the file name as
                                  written (may hold spaces); NULL when absent or empty */
    bool has_diffuse, has_ambient, has_specular, has_shininess, has_opacity, has_emissive;
    bool defined;              /* true: read from a library.  false: a default material made
                                  for a usemtl name that no library defines (or whose library
                                  could not be read) */
} mn_obj_material;

/* One per-material triangle group (ObjGroup). */
typedef struct mn_obj_group {
    const char *material;      /* the usemtl name, NULL for faces before any usemtl */
    uint32_t material_index;   /* into mn_obj.materials; MN_NONE when material is NULL */
    const float *verts;        /* triangle soup, stride 8: position(3) normal(3) uv(2),
                                  3 vertices per triangle, winding as authored */
    uint32_t vertex_count;     /* 3 × triangles */
} mn_obj_group;

/* A parsed OBJ file (ObjData), plus its materials and the indexed arrays as read. */
typedef struct mn_obj {
    const mn_obj_group *groups;      uint32_t group_count;    /* file order; a group starts at
                                        the first face after a usemtl that changes the name,
                                        so groups are never empty and one material may own
                                        several groups */
    const char *mtllib;              /* the first mtllib as written (rest of the line), or NULL */
    const char *const *mtllibs;      uint32_t mtllib_count;   /* every mtllib line as written */
    float bounds_min[3], bounds_max[3];  /* over every `v`, used or not; min > max when none */
    const mn_obj_material *materials; uint32_t material_count; /* every library material in
                                        library and file order, then one default material
                                        (defined = false) per usemtl name no library defines */
    const float *positions;          uint32_t position_count; /* xyz per `v` */
    const float *texcoords;          uint32_t texcoord_count; /* uv per `vt` */
    const float *normals;            uint32_t normal_count;   /* xyz per `vn` */
    const mn_warning *warnings;      uint32_t warning_count;  /* path: the keyword; code: what
                                        the flaw would be if fatal (MN_IO: a library that cannot
                                        be read, MN_URI: a library or map_Kd name refused
                                        by the containment rule of marionette/io.h) */
    struct mn_obj_private *priv_;
} mn_obj;

/* A parsed MTL library on its own (parseMtl). */
typedef struct mn_mtl_library {
    const mn_obj_material *materials; uint32_t material_count; /* file order; a name defined
                                        twice keeps its first place and its last definition
                                        (with a warning) */
    const mn_warning *warnings;      uint32_t warning_count;
    struct mn_mtl_private *priv_;
} mn_mtl_library;

/* Reader options.  A zeroed struct (or NULL) means the defaults given per field. */
typedef struct mn_obj_options {
    mn_allocator allocator;    /* zero: malloc/free */
    mn_resolver resolver;      /* reads the mtllib libraries.  zero (read == NULL): files
                                  relative to base_dir, kept inside it (resolver.root widens
                                  that; marionette/io.h), each file read and merged once
                                  however many mtllib lines name it.  A name refused is a
                                  warning (MN_URI); so is a map_Kd refused by the same
                                  lexical rule (absolute, or with ".."), which is dropped */
    const char *base_dir;      /* folder mtllib names resolve against.  mn_obj_read_file sets
                                  it from the path when NULL.  For mn_obj_read_memory NULL means
                                  no library is read (a warning says so) unless a resolver is
                                  given, which then receives "" */
    bool skip_libraries;       /* true: never read mtllib libraries, no warning; usemtl names
                                  get default materials */
    uint32_t threads;          /* how many threads may parse a big OBJ (4 MB of text or more per
                                  thread), the caller's included: 0 and 1 = only the calling
                                  thread (no thread started), at most 16 (more counts as 16).
                                  For one per CPU pass mn_cpu_count() (marionette/pool.h).
                                  The result is the same for any count.
                                  With more than one, `allocator`'s hooks are also called from
                                  the reader's own threads (one call at a time), all before the
                                  read returns */
} mn_obj_options;

/*
 * Parse OBJ text held in memory (need not be NUL-terminated).  Libraries are
 * read as mn_obj_options says; a library that cannot be read or parsed is a
 * warning, and the geometry still loads with default materials for its
 * names.  On success *out_obj is a new object (free with mn_obj_free) that
 * holds no pointer into `text`.  On failure *out_obj is NULL, nothing is
 * leaked, and err (when not NULL) says what and on which line.
 */
MN_API mn_status mn_obj_read_memory(const void *text, size_t size, const mn_obj_options *options,
                                    mn_obj **out_obj, mn_error *err);

/*
 * Read an OBJ file (read whole without blocking, released before returning), then
 * its mtllib libraries beside it (or through the resolver).  Errors as
 * mn_obj_read_memory, plus MN_IO when the OBJ itself cannot be read.
 */
MN_API mn_status mn_obj_read_file(const char *path, const mn_obj_options *options,
                                  mn_obj **out_obj, mn_error *err);

/* Free an object and everything it holds.  NULL is allowed. */
MN_API void mn_obj_free(mn_obj *obj);

/*
 * Parse MTL text alone.  Keys read: newmtl, Kd, Ka, Ks, Ns, d (with an
 * optional -halo), Tr, Ke, map_Kd; other known MTL keys (illum, Ni, Tf,
 * map_*, bump, ...) are ignored, unknown ones warned about once per keyword;
 * a colour given as "spectral" or "xyz" is ignored with a warning.  Errors as
 * for OBJ (bad numbers, a key before any newmtl is a warning, not an error).
 * Only `allocator` of the options is used.  Free with mn_mtl_free.
 */
MN_API mn_status mn_mtl_read_memory(const void *text, size_t size, const mn_obj_options *options,
                                    mn_mtl_library **out_library, mn_error *err);

/* Free a library.  NULL is allowed. */
MN_API void mn_mtl_free(mn_mtl_library *library);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_OBJ_H */
