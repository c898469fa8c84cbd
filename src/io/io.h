/*
 * The io folder's interface: what every reader shares to get bytes and read
 * JSON — whole files read without blocking, names kept inside the model's
 * folder, data: and relative URIs, and jansson helpers that know where they
 * are — and what every writer shares to put files on disk: output sets
 * (output.c).
 *
 * JSON:
 * An mn_json walks a document while keeping the JSON path of the current
 * value ("meshes[0].primitives[1].attributes").  Every typed getter checks
 * the value it reads and, when it is wrong, fills the mn_error with the path
 * of the offending member and a message that names it, so readers never
 * format paths by hand.  Strings and extras are copied into the arena.
 */
#ifndef MN_IO_IO_H
#define MN_IO_IO_H

#include "core/core.h"

#include <marionette/io.h>

#include <jansson.h>

#define MN_JSON_PATH_MAX 256

typedef struct mn_json {
    mn_arena *arena;              /* where strings and extras are copied */
    mn_error *err;                /* filled by every failing helper (never NULL) */
    char path[MN_JSON_PATH_MAX];  /* current path, NUL-terminated */
    size_t len;                   /* strlen(path), or MN_JSON_PATH_MAX - 1 once truncated */
} mn_json;

void mni_json_init(mn_json *j, mn_arena *arena, mn_error *err);

/* ---- the path ------------------------------------------------------------ */

/* Append ".key" (or "key" at the root); returns the mark to pop back to. */
size_t mni_json_push_key(mn_json *j, const char *key);
/* Append "[index]"; returns the mark to pop back to. */
size_t mni_json_push_index(mn_json *j, size_t index);
/* Return to a mark from push_*. */
void mni_json_pop(mn_json *j, size_t mark);

/* The path of member `key` of the current value (the current path when key is NULL) into out. */
void mni_json_path_of(const mn_json *j, const char *key, char *out, size_t out_size);

/*
 * Fail at member `key` of the current value (NULL: at the current value).
 * The message is prefixed with that path, so it reads on its own:
 * "accessors[3].count: expected an integer, found a string".  Returns code.
 */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
mn_status mni_json_fail(mn_json *j, mn_status code, const char *key, const char *fmt, ...);

/*
 * mni_json_fail for running out of memory at member `key` (NULL: the current
 * value): "<path>: <what>: out of memory", or "<path>: out of memory" when
 * what (printf-style, as mni_oom's) is NULL.  Returns MN_OUT_OF_MEMORY.
 */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
mn_status mni_json_oom(mn_json *j, const char *key, const char *what, ...);

/* "a string", "an array", ... for messages. */
const char *mni_json_type_name(const json_t *value);

/* ---- typed getters --------------------------------------------------------
 * Each reads member `key` of object `obj`.  When the member is absent a
 * getter returns MN_MISSING_PROPERTY if `required`, else MN_OK leaving *out
 * untouched (so callers preset defaults).  Wrong JSON types give
 * MN_JSON_TYPE; values outside what the specification allows give
 * MN_INVALID_VALUE, MN_INDEX_RANGE or MN_NOT_FINITE.
 */

/* An object member (*out = NULL when absent and optional). */
mn_status mni_json_object(mn_json *j, json_t *obj, const char *key, bool required, json_t **out);
/* An array member (*out = NULL when absent and optional). */
mn_status mni_json_array(mn_json *j, json_t *obj, const char *key, bool required, json_t **out);
/* A string member, copied into the arena. */
mn_status mni_json_string(mn_json *j, json_t *obj, const char *key, bool required, const char **out);
/* A string member, not copied (valid while the document lives). */
mn_status mni_json_string_ref(mn_json *j, json_t *obj, const char *key, bool required,
                              const char **out, size_t *out_len);
mn_status mni_json_bool(mn_json *j, json_t *obj, const char *key, bool required, bool *out);
/* An integer in [min, max]. */
mn_status mni_json_uint(mn_json *j, json_t *obj, const char *key, bool required, uint64_t min,
                        uint64_t max, uint64_t *out);
/* A uint32 in [min, max]. */
mn_status mni_json_u32(mn_json *j, json_t *obj, const char *key, bool required, uint32_t min,
                       uint32_t max, uint32_t *out);
/* A number that is finite as a float. */
mn_status mni_json_float(mn_json *j, json_t *obj, const char *key, bool required, float *out);
/* A number that is finite as a float and at least `min` (inclusive). */
mn_status mni_json_float_min(mn_json *j, json_t *obj, const char *key, bool required, float min,
                             float *out);
/* An array of exactly n numbers, each finite as a float. */
mn_status mni_json_floats(mn_json *j, json_t *obj, const char *key, bool required, size_t n,
                          float *out);

/*
 * A string that must be one of names[0..count): *out = its index.  Any other
 * string is MN_INVALID_VALUE with a message that lists the choices:
 * "\"CUBIC\" is not an interpolation (LINEAR, STEP, CUBICSPLINE)", where
 * `what` is "an interpolation".
 */
mn_status mni_json_enum(mn_json *j, json_t *obj, const char *key, bool required,
                        const char *const *names, size_t count, const char *what, int *out);

/*
 * An index into the top-level array `what` ("accessors") of `count` elements:
 * an integer in [0, count).  *out = MN_NONE when absent and optional.
 */
mn_status mni_json_index(mn_json *j, json_t *obj, const char *key, bool required, uint32_t count,
                         const char *what, uint32_t *out);
/* The same check for a bare value (an array element); the path is the current one. */
mn_status mni_json_index_value(mn_json *j, json_t *value, uint32_t count, const char *what,
                               uint32_t *out);

/*
 * The array member `key` as a uint32 count (*out = 0 when absent and
 * optional), with the type checked.  *out_array, when not NULL, receives the
 * array (NULL when absent).
 */
mn_status mni_json_array_count(mn_json *j, json_t *obj, const char *key, bool required,
                               json_t **out_array, uint32_t *out);

/*
 * Before `array` (n elements) is read: the first element whose "name" string
 * an earlier element's repeats, found by one sort of the names as the
 * document holds them (scratch, released; n log n whatever the names), so
 * the reader can refuse it in its place with any earlier flaw first.
 * *repeat is its index and *first the earlier one's; *repeat = MN_NONE when
 * the names are unique.  MN_OUT_OF_MEMORY (mni_json_oom, `what` as its
 * label, NULL for none) when the scratch cannot be had.
 */
mn_status mni_json_first_repeated_name(mn_json *j, json_t *array, uint32_t n, const char *what,
                                       uint32_t *repeat, uint32_t *first);

/* The member "extras" as compact JSON text in the arena (*out = NULL when absent). */
mn_status mni_json_extras(mn_json *j, json_t *obj, const char **out);

/* Compact JSON text of any value, in the arena. */
mn_status mni_json_dump(mn_json *j, const json_t *value, const char **out);

/* ---- JSON text being printed ---------------------------------------------
 * The writers (glTF, .aosrig headers) print JSON by hand into one growing run
 * of bytes from the allocator hooks.  `failed` sticks after the first error, so
 * a printer appends on and checks once at the end.  The text is not
 * NUL-terminated: data[0..len) is all of it (data is NULL while empty).
 */
typedef struct mn_jstext {
    const mn_allocator *allocator;
    char *data;
    size_t len, cap;
    bool failed;
} mn_jstext;

void mni_jstext_init(mn_jstext *t, const mn_allocator *allocator);
void mni_jstext_free(mn_jstext *t);
/* Append n bytes; false (and failed set) when memory runs out. */
bool mni_jstext_put(mn_jstext *t, const char *s, size_t n);
bool mni_jstext_puts(mn_jstext *t, const char *s);

/*
 * How much of s[0..n) is text a JSON string may hold: well-formed UTF-8 (no
 * overlong forms, surrogates or code points past U+10FFFF) without NUL.
 * Returns n when all of it is, else the offset of the first bad sequence.
 */
size_t mni_json_utf8_prefix(const char *s, size_t n);

/* ---- URIs (uri.c) -------------------------------------------------------------------- */

/* True when uri starts with "data:" (any case). */
bool mni_uri_is_data(const char *uri);

/*
 * Decode a data: URI.  The payload goes into the arena (16-byte aligned);
 * *media_type is the media type (arena copy, NULL when empty).
 * MN_URI for a malformed header, MN_BASE64 for bad base64.
 */
mn_status mni_data_uri_decode(mn_arena *arena, const char *uri, mn_bytes *out, const char **media_type,
                              const char *path, mn_error *err);

/*
 * Percent-decode a relative URI into the arena and apply the lexical rule of
 * mni_name_check to it (wide: the caller gave a root).  A scheme other than
 * data: is MN_URI; so is what mni_name_check refuses.
 */
mn_status mni_uri_to_path(mn_arena *arena, const char *uri, bool wide, char **out, const char *path,
                          mn_error *err);

/* ---- files (contain.c) ------------------------------------------------------------------
 *
 * Every file a reader opens comes through here.  The file the caller names
 * is read with mni_file_read; every file that file names (buffers, images,
 * libraries, part meshes, a package's files) through an mni_files, which
 * keeps it inside a root: see contain.c for the rule.
 */

/*
 * The lexical rule for a name a model gives: MN_URI, naming `item`, for an
 * empty name, and, unless `wide` (the caller gave a root), for an absolute
 * path or one with a ".." segment.  A custom resolver gets only names that
 * pass it.
 */
mn_status mni_name_check(const char *name, bool wide, const char *item, mn_error *err);

/*
 * Read a file the caller named (it may be a symlink) into one arena block
 * (64-byte aligned): opened without blocking, refused unless it is a regular
 * file, read with read().  MN_IO (naming the path) when it cannot be, and
 * when it ends before the size it had when opened (it changed while being
 * read).
 */
mn_status mni_file_read(mn_arena *arena, const char *path, mn_bytes *out, mn_error *err);

/*
 * Read `want` bytes from fd into one 64-byte-aligned arena block; MN_IO
 * (naming item) when the file ends first ("changed while being read").
 */
mn_status mni_fd_read(int fd, uint64_t want, mn_arena *arena, const char *item, mn_bytes *out,
                      mn_error *err);

struct mni_file_entry;

/* The files one reader call reads: where they may be, and what was read (set with mni_files_init). */
typedef struct mni_files {
    mn_arena *arena;               /* the bytes, the table, the paths */
    const char *root;              /* the caller's root; NULL: base_dir is the root */
    const char *base_dir;          /* the model's folder ("" for the current one) */
    char *real_root;               /* realpath of the root, once known */
    struct mni_file_entry **slots; /* by file (st_dev, st_ino) and by name */
    size_t cap, used;
} mni_files;

void mni_files_init(mni_files *f, mn_arena *arena, const char *root, const char *base_dir);

/*
 * base_dir/name (or name itself when absolute and a root is given) checked
 * and resolved: the lexical rule, then realpath(), which must lie inside the
 * real root (whole path components).  *out is the resolved path (arena).
 * MN_URI when refused ("... resolves outside the model's folder"), MN_IO
 * when it does not resolve (a missing file).
 */
mn_status mni_contained_path(mni_files *f, const char *name, const char *item, char **out,
                             mn_error *err);

/*
 * The default resolver: mni_contained_path, then the resolved path opened
 * without following a symlink or blocking (O_NOFOLLOW, O_NONBLOCK), refused
 * unless fstat() says it is a regular file (MN_IO naming the kind: a FIFO, a
 * device, ...), and read up to `limit` bytes (UINT64_MAX: all of it).  A
 * file read before in this mni_files (the same st_dev and st_ino, under any
 * name) is not read again: *out shares its bytes, and *again (when not NULL)
 * is set.  Errors name `item`.
 */
mn_status mni_files_read(mni_files *f, const char *name, const char *item, uint64_t limit,
                         mn_bytes *out, bool *again, mn_error *err);

/*
 * base_dir/name read as a file the caller named (a symlink followed, no
 * containment: it defines the folder), opened and read as mni_files_read
 * does, and kept so that a later name leading to it shares its bytes.
 */
mn_status mni_files_read_top(mni_files *f, const char *name, const char *item, mn_bytes *out,
                             mn_error *err);

/* Note that `name` will be asked for with `size` bytes: mni_files_wanted gives the largest. false: out of memory. */
bool mni_files_want(mni_files *f, const char *name, uint64_t size);
/* The largest size noted for name, UINT64_MAX when none was. */
uint64_t mni_files_wanted(mni_files *f, const char *name);

/* Bytes a custom resolver returned for name, kept so a name is asked for once. */
bool mni_files_find_named(mni_files *f, const char *name, mn_bytes *out);
bool mni_files_keep_named(mni_files *f, const char *name, mn_bytes bytes);

/* ---- output sets (output.c) ------------------------------------------------------------
 * Every file the library writes goes through an output set, so it appears
 * whole or not at all and a set of files is replaced as one (output.c says
 * how: temporary files beside the targets, O_TMPFILE where the folder allows
 * it, every file fsynced before any rename, renames by ascending stage, then
 * the folders fsynced; on any error every temporary file is removed and
 * every target keeps its old bytes).
 *
 *     mn_output set;
 *     mni_output_init(&set, allocator);
 *     uint32_t bin, gltf;
 *     st = mni_output_add(&set, "dir/m.bin", 0, &bin, err);          // stage 0: renamed first
 *     ... mni_output_write(&set, bin, bytes, n, err) ...
 *     st = mni_output_add(&set, "dir/m.gltf", 1, &gltf, err);        // names m.bin: after it
 *     ...
 *     st = st == MN_OK ? mni_output_commit(&set, err) : (mni_output_abort(&set), st);
 *
 * After any failing call the set is failed: later calls fail at once and
 * commit returns the error; the caller then commits or aborts (either
 * releases the set).  One thread uses a set at a time.
 */
struct mni_output_file;
struct mn_output {
    mn_allocator allocator;
    struct mni_output_file *files;
    uint32_t count, cap;
    uint32_t finished_open;    /* finished files still holding a descriptor */
    bool failed;
    mn_error error;            /* the first failure, given again by every later call */
};

/* An empty set whose memory comes from allocator (NULL: malloc/free). */
void mni_output_init(mn_output *set, const mn_allocator *allocator);

/*
 * Add the target `path` and open its temporary file.  Files are renamed in
 * ascending `stage` (equal stages in the order added): give a file a higher
 * stage than the files it names.  *file (may be NULL) is its index for
 * mni_output_write.  MN_INVALID_ARGUMENT for an empty path or one already in
 * the set; MN_IO (the system's reason) when the temporary file cannot be made.
 */
mn_status mni_output_add(mn_output *set, const char *path, uint32_t stage, uint32_t *file, mn_error *err);

/* Append size bytes to the file; MN_IO (naming the target) when they cannot be written. */
mn_status mni_output_write(mn_output *set, uint32_t file, const void *bytes, size_t size, mn_error *err);

/*
 * No more writes to the file: fsync it now (commit does it otherwise), and
 * let go of its descriptor when the set holds many.  For long sets.
 */
mn_status mni_output_finish(mn_output *set, uint32_t file, mn_error *err);

/*
 * Replace every target with its file, in the order above; on any error put
 * back the targets already replaced and remove every temporary file.  Frees
 * what the set holds either way (the set may be reused after init).
 */
mn_status mni_output_commit(mn_output *set, mn_error *err);

/* Remove every temporary file and free the set; the targets are untouched.  NULL is a no-op. */
void mni_output_abort(mn_output *set);

/*
 * Mark the set failed by the caller's own error st (err, when it holds st,
 * is kept as the set's error: later calls and commit give it again).
 * Returns st.
 */
mn_status mni_output_fail(mn_output *set, mn_status st, const mn_error *err);

/* One whole file from memory, as a set of one. */
mn_status mni_output_write_whole(const char *path, const void *bytes, size_t size, const mn_allocator *allocator,
                                 mn_error *err);

/*
 * Test only: count the system calls of output sets on this thread, record
 * their kinds, and make call number fail_at (1-based; 0: none) fail with
 * errno `error` (0: EIO) — or, with MNI_OUTPUT_TEST_KILL, kill the process
 * there.  MNI_OUTPUT_TEST_NAMED makes temporary files named (the fallback
 * where O_TMPFILE is missing).  Resets the count.  The kinds: o open a
 * temporary file, w write, f fsync a file, l link an unnamed file into its
 * folder, b open a target to restore from, r rename, d open a folder,
 * F fsync a folder.
 */
#define MNI_OUTPUT_TEST_KILL 1u
#define MNI_OUTPUT_TEST_NAMED 2u
#define MNI_OUTPUT_TRACE_MAX 4096
void mni_output_test_inject(uint64_t fail_at, int error, unsigned flags);
/* Calls counted since the last inject; *trace (may be NULL) their kinds, one letter each (the first 4095). */
uint64_t mni_output_test_calls(const char **trace);

#endif /* MN_IO_IO_H */
