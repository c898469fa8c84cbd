/*
 * Private: what the SOMA skeleton, clip and corrective readers share.
 */
#ifndef MN_CHARACTER_SOMA_INTERNAL_H
#define MN_CHARACTER_SOMA_INTERNAL_H

#include "core/core.h"
#include "io/io.h"

#include <jansson.h>

/* Parse JSON bytes; a syntax error (a number overflowing a double included) fills err with line and column. */
mn_status mni_soma_json_load(const void *json, size_t size, json_t **root, mn_error *err);

/* Index of `name` in names[0..count), UINT32_MAX when absent: a scan, for a skeleton built by hand
   (what the readers make is looked up through mni_names_sorted). */
uint32_t mni_soma_find_name(const char *const *names, uint32_t count, const char *name);

/*
 * What a reader returns is one "holder" block: its public struct at offset 0,
 * then the arena that owns everything the struct points to, so one free
 * releases all.  A kind says how to fill one.
 */
typedef struct mn_soma_holder_kind {
    const char *file;      /* "skeleton.json": names the out-of-memory error */
    size_t size;           /* sizeof the holder */
    size_t arena_offset;   /* offsetof its arena */
    /* Fill the zeroed holder from the parsed root; j reports into the caller's
       error and keeps strings in the holder's arena. */
    mn_status (*read)(void *holder, mn_json *j, json_t *root, const void *ctx);
    /* Free a holder `read` failed on; NULL when the arena holds all it made. */
    void (*release)(void *holder);
} mn_soma_holder_kind;

/*
 * Allocate a holder of `kind` through `allocator` (NULL: the defaults), parse
 * `json`, run kind->read on its root and hand the holder back in *out.  On any
 * failure everything is released, err says why and *out is left alone.
 */
mn_status mni_soma_holder_read(const mn_soma_holder_kind *kind, const void *json, size_t size,
                               const mn_allocator *allocator, const void *ctx, void **out, mn_error *err);

/*
 * The opening every SOMA document shares: the root is an object whose member
 * "format" is the string `format` (`file` names the document in the message).
 */
mn_status mni_soma_json_format(mn_json *j, json_t *root, const char *file, const char *format);

#endif /* MN_CHARACTER_SOMA_INTERNAL_H */
