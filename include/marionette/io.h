/*
 * marionette/io.h — how the readers get the files a model names.
 *
 * A glTF's buffers and images, an OBJ's MTL libraries and a character
 * package's files are read through an mn_resolver.  A zeroed resolver means
 * the library's own: the file base_dir/uri read with stdio.  A custom one
 * lets a host serve the bytes from an archive, a cache or the network.
 */
#ifndef MARIONETTE_IO_H
#define MARIONETTE_IO_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Loads the bytes an external URI names.  `uri` is already percent-decoded
 * and checked (no "../" escape, not absolute, unless the options allow it);
 * `base_dir` is the folder of the model ("" for the current one).  On success
 * fill *out and return MN_OK; the bytes must stay valid until `release` is
 * called with the same mn_bytes (release may be NULL when nothing needs
 * freeing).  On failure return an error code (MN_IO for a missing file) and,
 * when err is not NULL, fill it.
 */
typedef struct mn_resolver {
    mn_status (*read)(void *user, const char *base_dir, const char *uri, mn_bytes *out, mn_error *err);
    void (*release)(void *user, mn_bytes *bytes);
    void *user;
} mn_resolver;

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_IO_H */
