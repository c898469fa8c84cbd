/*
 * marionette/io.h — how the readers get the files a model names.
 *
 * A glTF's buffers and images, an OBJ's MTL libraries and a character
 * package's files are read through an mn_resolver.  A zeroed resolver means
 * the library's own: the file base_dir/uri, kept inside the model's folder.
 * A custom one lets a host serve the bytes from an archive, a cache or the
 * network.
 */
#ifndef MARIONETTE_IO_H
#define MARIONETTE_IO_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Where a model's names may lead.  Every name a model gives (a glTF buffer's
 * or image's uri, an mtllib, a map_Kd, a rig part's mesh, a package's src
 * and sharedClips) is refused, with an error naming the item, when it is
 * absolute or holds a ".." segment, unless `root` is set; then it may be
 * either, as long as it resolves inside root.
 *
 * With the default resolver (read == NULL) the name is also resolved with
 * realpath(), symlinks followed, and must lie inside root (NULL: the
 * model's folder, base_dir): "images[0].uri: \"secret.png\" resolves
 * outside the model's folder (...)".  The file is opened without blocking
 * and without following a last symlink, and only a regular file is read
 * (a FIFO, device, socket or folder is refused by name).  Within one read
 * call a file is read once, however many names lead to it, and its bytes
 * are shared.
 *
 * A custom resolver (read != NULL) loads the bytes a name stands for: a
 * host serving them from an archive, a cache or the network.  The library
 * applies the lexical rule above before calling it (with root NULL, no
 * name it receives is absolute or holds ".."); everything else — what a
 * name resolves to, symlinks, special files — is the resolver's to decide.
 * It is called once per distinct name within one read call.  `uri` is
 * percent-decoded; `base_dir` is the folder of the model ("" for the
 * current one).  On success fill *out and return MN_OK; the bytes must stay
 * valid until `release` is called with the same mn_bytes (release may be
 * NULL when nothing needs freeing).  On failure return an error code (MN_IO
 * for a missing file) and, when err is not NULL, fill it.
 */
typedef struct mn_resolver {
    mn_status (*read)(void *user, const char *base_dir, const char *uri, mn_bytes *out, mn_error *err);
    void (*release)(void *user, mn_bytes *bytes);
    void *user;
    const char *root;   /* NULL: names stay inside the model's folder; else inside this folder
                           (names may then be absolute or hold "..") */
} mn_resolver;

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_IO_H */
