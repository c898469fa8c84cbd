/*
 * marionette/io.h — how the readers get the files a model names, and how
 * the writers put files on disk.
 *
 * A glTF's buffers and images, an OBJ's MTL libraries and a character
 * package's files are read through an mn_resolver.  A zeroed resolver means
 * the library's own: the file base_dir/uri, kept inside the model's folder.
 * A custom one lets a host serve the bytes from an archive, a cache or the
 * network.
 *
 * Every file the library writes (mn_gltf_write_file, mn_voxel_export_file,
 * mn_rgba_image_write_png, mn_aosrig_write_file) appears whole or not at
 * all, and a set of files is replaced as one.  An mn_output gives a host
 * the same for its own set of files (a sequence of frames):
 *
 *     mn_output *set;
 *     if (mn_output_begin(NULL, &set, &err) != MN_OK) ...
 *     for (...)
 *         if (mn_rgba_image_write_png_to(set, &frame, name, &err) != MN_OK)   // render.h
 *             break;                          // the set is failed from here on
 *     st = mn_output_commit(set, &err);       // all frames, or none
 *
 * What is guaranteed:
 *   - each file is written to a temporary file in its target's folder (an
 *     unnamed O_TMPFILE on Linux where the file system has it, so a killed
 *     process leaves nothing; else ".NAME.XXXXXX", created exclusively);
 *   - at commit every file is fsynced before any target is touched; then
 *     the files are renamed over their targets, the files others name
 *     first (a .bin before its .gltf; mn_output files in the order
 *     written), and then each folder is fsynced;
 *   - on any error, or mn_output_abort, every temporary file is removed and
 *     every target keeps its old bytes: targets already replaced when a
 *     later rename or folder fsync fails are put back from their old bytes
 *     (a target that could not be read, or space that ran out while putting
 *     it back, is named in the error);
 *   - the window: a process killed between two renames of one commit leaves
 *     a mixed set (the files renamed so far new, the rest old, each whole,
 *     in the order above), and one killed between naming its temporary
 *     files and renaming them leaves those ".NAME.XXXXXX" files, whole.
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

/* A set of files written together: whole or not at all (above).  Opaque. */
typedef struct mn_output mn_output;

/*
 * Start an empty set; its memory comes from allocator (NULL: malloc/free).
 * Errors: MN_INVALID_ARGUMENT (out NULL), MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_output_begin(const mn_allocator *allocator, mn_output **out, mn_error *err);

/*
 * Add the file `path` with these bytes to the set (written and fsynced to
 * its temporary file now; the target changes only at commit).  Files are
 * renamed in the order added.  Errors: MN_INVALID_ARGUMENT (NULL set, NULL
 * bytes with size, an empty path or one already in the set), MN_IO (the
 * system's reason, naming path); after an error the set is failed and
 * commit returns it.
 */
MN_API mn_status mn_output_write_file(mn_output *set, const char *path, const void *bytes, size_t size,
                                      mn_error *err);

/*
 * Replace every target of the set (above), then free the set, whatever the
 * outcome.  Errors: the set's earlier error when it failed; MN_IO when a
 * file cannot be named, renamed or its folder fsynced (the old targets are
 * then put back).
 */
MN_API mn_status mn_output_commit(mn_output *set, mn_error *err);

/* Drop the set: every temporary file removed, every target untouched, the set freed.  NULL is allowed. */
MN_API void mn_output_abort(mn_output *set);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_IO_H */
