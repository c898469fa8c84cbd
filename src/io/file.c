/*
 * Getting a whole file into memory, in one piece the model owns.
 *
 * mn_gltf_read_file maps the model file read-only (mmap, MAP_PRIVATE): the
 * pages are the page cache's own, so nothing is zeroed or copied, and the
 * GLB BIN buffer and the images in it are views into the mapping.  Measured
 * on an 83 MB GLB in the page cache: one read() into fresh memory takes
 * about 37 ms (page faults and the copy), the mapping well under 1 ms.  The
 * mapping lives until mn_model_free.  Where mapping is not possible (an
 * empty or special file, a system without mmap) or not wanted (copy_input),
 * the file is read with one fread into one arena block instead; external
 * buffers and images are always read that way (mni_file_read).
 */
#define _POSIX_C_SOURCE 200809L

#include "io/io.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* strerror_r in its POSIX form (thread-safe, unlike strerror). */
static const char *errno_text(int e, char *buf, size_t size)
{
    if (strerror_r(e, buf, size) != 0)
        snprintf(buf, size, "error %d", e);
    return buf;
}

/* Empty *bytes (what a failed read leaves) and open path for reading; MN_IO with the reason. */
static mn_status open_for_reading(const char *path, mn_bytes *bytes, FILE **out, mn_error *err)
{
    char why[128];
    bytes->data = NULL;
    bytes->size = 0;
    *out = fopen(path, "rb");
    if (!*out)
        return mni_fail(err, MN_IO, "cannot open \"%s\": %s", path,
                        errno_text(errno, why, sizeof why));
    return MN_OK;
}

mn_status mni_file_read(mn_arena *arena, const char *path, mn_bytes *out, mn_error *err)
{
    char why[128];
    FILE *f;
    mn_status opened = open_for_reading(path, out, &f, err);
    if (opened != MN_OK)
        return opened;
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        int e = errno;
        fclose(f);
        return mni_fail(err, MN_IO, "cannot stat \"%s\": %s", path, errno_text(e, why, sizeof why));
    }
    if (!S_ISREG(st.st_mode)) {
        fclose(f);
        return mni_fail(err, MN_IO, "\"%s\" is not a regular file", path);
    }
    if ((uintmax_t)st.st_size > (uintmax_t)SIZE_MAX - 1) {
        fclose(f);
        return mni_fail(err, MN_IO, "\"%s\" is too large to read", path);
    }
    size_t size = (size_t)st.st_size;
    /* 64-byte alignment keeps every accessor view into the file aligned for its type. */
    uint8_t *data = mni_arena_alloc(arena, size ? size : 1, 64);
    if (!data) {
        fclose(f);
        return mni_oom(err, "reading \"%s\" (%zu bytes)", path, size);
    }
    size_t got = size ? fread(data, 1, size, f) : 0;
    int read_error = ferror(f);
    fclose(f);
    if (read_error || got != size)
        return mni_fail(err, MN_IO, "reading \"%s\" failed after %zu of %zu bytes", path, got, size);
    out->data = data;
    out->size = size;
    return MN_OK;
}

mn_status mni_file_map(const char *path, mn_bytes *out, bool *mapped, mn_error *err)
{
    FILE *f;
    *mapped = false;
    mn_status opened = open_for_reading(path, out, &f, err);
    if (opened != MN_OK)
        return opened;
    struct stat st;
    bool regular = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
                   (uintmax_t)st.st_size <= (uintmax_t)SIZE_MAX;
    if (regular) {
        void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fileno(f), 0);
        if (map != MAP_FAILED) {
            out->data = map;
            out->size = (size_t)st.st_size;
            *mapped = true;
        }
    }
    fclose(f); /* a mapping outlives its descriptor */
    return MN_OK;
}

void mni_file_unmap(mn_bytes bytes)
{
    if (bytes.data)
        munmap((void *)(uintptr_t)bytes.data, bytes.size);
}
