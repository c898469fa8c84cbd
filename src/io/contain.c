/*
 * Reading the files a model names, contained: the one way every reader gets
 * a file other than the one the caller named.
 *
 * A name is first checked as written (mni_name_check): not absolute, no ".."
 * segment, unless the caller gave a root.  Then the default resolver resolves
 * it with realpath() and refuses a path outside the root (the model's folder
 * when the caller gave none), so a symlink cannot lead out either.  The file
 * is opened without following a last symlink, without blocking and without
 * becoming a controlling terminal, and fstat() must say it is a regular file
 * before a single byte is read: a FIFO, a device, a socket or a folder is
 * refused by name.  Then read() fills one 64-byte-aligned arena block of at
 * most the size asked for; a file that ends early changed while being read
 * (MN_IO), which is an error and never a fault, as reading a shrunk mapping
 * would be.
 *
 * One mni_files serves one reader call: a file (st_dev, st_ino) is read once
 * and its bytes shared however many names lead to it; bytes a custom resolver
 * returned are kept by name for the same reason.
 *
 * What is left to chance: between realpath() and open() a folder on the path
 * could be swapped for a symlink by someone who can write to the model's
 * folder.  O_NOFOLLOW covers the last component only.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* realpath */

#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef O_NOFOLLOW
#define O_NOFOLLOW 0
#endif
#ifndef O_NOCTTY
#define O_NOCTTY 0
#endif
#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* strerror_r in its POSIX form (thread-safe, unlike strerror). */
static const char *errno_text(int e, char *buf, size_t size)
{
    if (strerror_r(e, buf, size) != 0)
        snprintf(buf, size, "error %d", e);
    return buf;
}

/* ---- the lexical rule -------------------------------------------------------------------- */

static bool name_is_absolute(const char *p)
{
    return p[0] == '/' || p[0] == '\\' || (p[0] && p[1] == ':');
}

/* True when a path segment (between '/' or '\\') is "..". */
static bool name_has_dotdot(const char *s)
{
    for (const char *seg = s, *p = s;; p++) {
        if (*p == '/' || *p == '\\' || *p == '\0') {
            if (p - seg == 2 && seg[0] == '.' && seg[1] == '.')
                return true;
            if (*p == '\0')
                return false;
            seg = p + 1;
        }
    }
}

mn_status mni_name_check(const char *name, bool wide, const char *item, mn_error *err)
{
    if (name[0] == '\0')
        return mni_error_set(err, MN_URI, item, -1, "%s: the name is empty", item);
    if (wide)
        return MN_OK;
    /* An item that is the name itself is said once. */
    const char *sep = strcmp(item, name) != 0 ? ": " : "";
    const char *lead = *sep ? item : "";
    if (name_is_absolute(name))
        return mni_error_set(err, MN_URI, item, -1,
                             "%s%s\"%.80s\" is an absolute path; only names inside the model's folder "
                             "are read unless the caller gives a wider root (mn_resolver.root, "
                             "--allow-outside)",
                             lead, sep, name);
    if (name_has_dotdot(name))
        return mni_error_set(err, MN_URI, item, -1,
                             "%s%s\"%.80s\" has a \"..\" segment that could leave the model's folder; "
                             "refused unless the caller gives a wider root (mn_resolver.root, "
                             "--allow-outside)",
                             lead, sep, name);
    return MN_OK;
}

/* ---- opening and reading ------------------------------------------------------------------ */

static const char *kind_of(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

/* Open path without blocking, following no last symlink unless `follow`, and refuse anything but a regular file. */
static mn_status open_regular(const char *path, bool follow, const char *item, int *out_fd,
                              struct stat *st, mn_error *err)
{
    char why[128];
    /* item "" (the file the caller named) or the path itself: the path alone says it. */
    const char *sep = *item && strcmp(item, path) != 0 ? ": " : "";
    const char *lead = *sep ? item : "";
    int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW);
    int fd = open(path, flags);
    if (fd < 0) {
        int e = errno;
        return mni_error_set(err, MN_IO, item, -1, "%s%scannot open \"%.200s\": %s", lead, sep, path,
                             errno_text(e, why, sizeof why));
    }
    if (fstat(fd, st) != 0) {
        int e = errno;
        close(fd);
        return mni_error_set(err, MN_IO, item, -1, "%s%scannot stat \"%.200s\": %s", lead, sep, path,
                             errno_text(e, why, sizeof why));
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        return mni_error_set(err, MN_IO, item, -1, "%s%s\"%.200s\" is %s, not a regular file; refused",
                             lead, sep, path, kind_of(st->st_mode));
    }
    *out_fd = fd;
    return MN_OK;
}

/*
 * Ask for huge pages under a large read buffer before read() touches it:
 * with 4 KiB pages, faulting in fresh memory is most of what reading a big
 * file costs (an 83 MB GLB: about 20,000 faults).  Only the whole huge pages
 * inside the block are advised; where the system says no, nothing changes.
 */
static void advise_huge_pages(void *data, size_t size)
{
#if defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t begin = ((uintptr_t)data + huge - 1) & ~(huge - 1);
    uintptr_t end = ((uintptr_t)data + size) & ~(huge - 1);
    if (end > begin)
        (void)madvise((void *)begin, end - begin, MADV_HUGEPAGE);
#else
    (void)data;
    (void)size;
#endif
}

mn_status mni_fd_read(int fd, uint64_t want, mn_arena *arena, const char *item, mn_bytes *out,
                      mn_error *err)
{
    char why[128];
    if (want > (uint64_t)SIZE_MAX - 64)
        return mni_error_set(err, MN_IO, item, -1, "%s: too large to read (%llu bytes)", item,
                             (unsigned long long)want);
    size_t size = (size_t)want;
    /* 64-byte alignment keeps every accessor view into the file aligned for its type. */
    uint8_t *data = mni_arena_alloc(arena, size ? size : 1, 64);
    if (!data)
        return mni_error_set(err, MN_OUT_OF_MEMORY, item, -1, "%s: out of memory reading %zu bytes",
                             item, size);
    advise_huge_pages(data, size);
    size_t got = 0;
    while (got < size) {
        size_t chunk = size - got < ((size_t)1 << 30) ? size - got : ((size_t)1 << 30);
        ssize_t n = read(fd, data + got, chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            return mni_error_set(err, MN_IO, item, -1, "%s: reading failed after %zu of %zu bytes: %s",
                                 item, got, size, errno_text(e, why, sizeof why));
        }
        if (n == 0)
            return mni_error_set(err, MN_IO, item, -1,
                                 "%s: the file changed while being read: it ended after %zu of the %zu "
                                 "bytes it held when opened",
                                 item, got, size);
        got += (size_t)n;
    }
    out->data = data;
    out->size = size;
    return MN_OK;
}

mn_status mni_file_read(mn_arena *arena, const char *path, mn_bytes *out, mn_error *err)
{
    out->data = NULL;
    out->size = 0;
    int fd = -1;
    struct stat st;
    /* The file the caller named may be a symlink: the caller chose it. */
    mn_status s = open_regular(path, true, "", &fd, &st, err);
    if (s != MN_OK)
        return s;
    s = mni_fd_read(fd, (uint64_t)st.st_size, arena, path, out, err);
    close(fd);
    return s;
}

/* ---- one reader call's files ------------------------------------------------------------- */

typedef struct mni_file_entry {
    uint64_t hash;
    const char *name;       /* by name (custom resolver, wanted sizes): the decoded name */
    dev_t dev;              /* by file: the identity */
    ino_t ino;
    uint64_t limit;         /* by name: the largest size asked for (UINT64_MAX: whole) */
    mn_bytes bytes;
    bool read;              /* bytes hold what was read (the whole file when `whole`) */
    bool whole;
} mni_file_entry;

void mni_files_init(mni_files *f, mn_arena *arena, const char *root, const char *base_dir)
{
    memset(f, 0, sizeof *f);
    f->arena = arena;
    f->root = root;
    f->base_dir = base_dir ? base_dir : "";
}

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

static uint64_t name_hash(const char *name)
{
    return hash_bytes(14695981039346656037ull, name, strlen(name)) | 1; /* 0 marks a file entry */
}

static uint64_t file_hash(dev_t dev, ino_t ino)
{
    uint64_t h = hash_bytes(14695981039346656037ull, &dev, sizeof dev);
    return hash_bytes(h, &ino, sizeof ino) & ~(uint64_t)1;
}

static bool entry_is(const mni_file_entry *e, uint64_t hash, const char *name, dev_t dev, ino_t ino)
{
    if (e->hash != hash)
        return false;
    return name ? e->name && strcmp(e->name, name) == 0 : !e->name && e->dev == dev && e->ino == ino;
}

/* Open addressing, doubled at half full; old tables stay in the arena (at most as much again). */
static bool grow(mni_files *f)
{
    size_t cap = f->cap ? f->cap * 2 : 16;
    mni_file_entry **slots = mni_arena_calloc(f->arena, cap, sizeof *slots, 8);
    if (!slots)
        return false;
    for (size_t i = 0; i < f->cap; i++) {
        mni_file_entry *e = f->slots[i];
        if (!e)
            continue;
        size_t k = (size_t)e->hash & (cap - 1);
        while (slots[k])
            k = (k + 1) & (cap - 1);
        slots[k] = e;
    }
    f->slots = slots;
    f->cap = cap;
    return true;
}

/* The entry for a name (name != NULL) or a file; created when `add`.  NULL when absent or out of memory. */
static mni_file_entry *lookup(mni_files *f, const char *name, dev_t dev, ino_t ino, bool add)
{
    uint64_t hash = name ? name_hash(name) : file_hash(dev, ino);
    if (f->cap) {
        for (size_t k = (size_t)hash & (f->cap - 1); f->slots[k]; k = (k + 1) & (f->cap - 1))
            if (entry_is(f->slots[k], hash, name, dev, ino))
                return f->slots[k];
    }
    if (!add || ((f->used + 1) * 2 > f->cap && !grow(f)))
        return NULL;
    mni_file_entry *e = mni_arena_calloc(f->arena, 1, sizeof *e, 8);
    if (!e || (name && !(e->name = mni_arena_strndup(f->arena, name, strlen(name)))))
        return NULL;
    e->hash = hash;
    e->dev = dev;
    e->ino = ino;
    e->limit = 0;
    size_t k = (size_t)hash & (f->cap - 1);
    while (f->slots[k])
        k = (k + 1) & (f->cap - 1);
    f->slots[k] = e;
    f->used++;
    return e;
}

bool mni_files_want(mni_files *f, const char *name, uint64_t size)
{
    mni_file_entry *e = lookup(f, name, 0, 0, true);
    if (!e)
        return false;
    if (size > e->limit)
        e->limit = size;
    return true;
}

uint64_t mni_files_wanted(mni_files *f, const char *name)
{
    mni_file_entry *e = lookup(f, name, 0, 0, false);
    return e && e->limit ? e->limit : UINT64_MAX;
}

bool mni_files_find_named(mni_files *f, const char *name, mn_bytes *out)
{
    mni_file_entry *e = lookup(f, name, 0, 0, false);
    if (!e || !e->read)
        return false;
    *out = e->bytes;
    return true;
}

bool mni_files_keep_named(mni_files *f, const char *name, mn_bytes bytes)
{
    mni_file_entry *e = lookup(f, name, 0, 0, true);
    if (!e)
        return false;
    e->bytes = bytes;
    e->read = true;
    return true;
}

/* realpath() of the root (the base folder when none was given), once per reader call. */
static mn_status real_root(mni_files *f, const char *item, mn_error *err)
{
    if (f->real_root)
        return MN_OK;
    char why[128];
    const char *root = f->root ? f->root : (f->base_dir[0] ? f->base_dir : ".");
    char *real = realpath(root, NULL);
    if (!real) {
        int e = errno;
        return mni_error_set(err, MN_IO, item, -1, "%s: the %s \"%.200s\" cannot be resolved: %s", item,
                             f->root ? "root" : "model's folder", root, errno_text(e, why, sizeof why));
    }
    f->real_root = mni_arena_strndup(f->arena, real, strlen(real));
    free(real);
    return f->real_root ? MN_OK : mni_error_set(err, MN_OUT_OF_MEMORY, item, -1, NULL);
}

/* True when path is root or lies under it (whole components: "/a/bc" is not under "/a/b"). */
static bool inside(const char *root, const char *path)
{
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/')
        return path[0] == '/';
    return strncmp(root, path, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* base_dir/name (name alone when absolute) in the arena; errors name item. */
static mn_status full_path(mni_files *f, const char *name, const char *item, char **out,
                           mn_error *err)
{
    size_t base_len = name_is_absolute(name) ? 0 : strlen(f->base_dir);
    size_t total;
    if (!mni_checked_add(base_len, strlen(name), &total) || !mni_checked_add(total, 2, &total))
        return mni_error_set(err, MN_OVERFLOW, item, -1, "%s: the file path is too long", item);
    char *full = mni_arena_alloc(f->arena, total, 1);
    if (!full)
        return mni_error_set(err, MN_OUT_OF_MEMORY, item, -1, NULL);
    snprintf(full, total, "%s%s%s", base_len ? f->base_dir : "",
             base_len && f->base_dir[base_len - 1] != '/' ? "/" : "", name);
    *out = full;
    return MN_OK;
}

mn_status mni_contained_path(mni_files *f, const char *name, const char *item, char **out,
                             mn_error *err)
{
    char why[128];
    mn_status s = mni_name_check(name, f->root != NULL, item, err);
    if (s == MN_OK)
        s = real_root(f, item, err);
    if (s != MN_OK)
        return s;
    char *full = NULL;
    mn_status joined = full_path(f, name, item, &full, err);
    if (joined != MN_OK)
        return joined;
    char *real = realpath(full, NULL);
    if (!real) {
        int e = errno;
        return mni_error_set(err, MN_IO, item, -1, "%s: cannot open \"%.200s\": %s", item, full,
                             errno_text(e, why, sizeof why));
    }
    bool in = inside(f->real_root, real);
    *out = in ? mni_arena_strndup(f->arena, real, strlen(real)) : NULL;
    free(real);
    const char *sep = strcmp(item, name) != 0 ? ": " : "";
    if (!in)
        return mni_error_set(err, MN_URI, item, -1,
                             "%s%s\"%.80s\" resolves outside the %s (%.120s); refused unless the caller "
                             "gives a wider root (mn_resolver.root, --allow-outside)",
                             *sep ? item : "", sep, name, f->root ? "root" : "model's folder", f->real_root);
    return *out ? MN_OK : mni_error_set(err, MN_OUT_OF_MEMORY, item, -1, NULL);
}

/* An opened file's bytes: shared when this mni_files read it before, else read up to limit. */
static mn_status read_opened(mni_files *f, int fd, const struct stat *st, uint64_t limit,
                             const char *item, mn_bytes *out, bool *again, mn_error *err)
{
    uint64_t size = (uint64_t)st->st_size;
    uint64_t want = limit < size ? limit : size;
    mni_file_entry *e = lookup(f, NULL, st->st_dev, st->st_ino, true);
    if (!e)
        return mni_error_set(err, MN_OUT_OF_MEMORY, item, -1, NULL);
    if (e->read && (e->whole || e->bytes.size >= want)) {
        if (again)
            *again = true;
        out->data = e->bytes.data;
        out->size = e->bytes.size < want ? e->bytes.size : (size_t)want;
        return MN_OK;
    }
    mn_status s = mni_fd_read(fd, want, f->arena, item, out, err);
    if (s == MN_OK) {
        e->bytes = *out;
        e->read = true;
        e->whole = want == size;
    }
    return s;
}

mn_status mni_files_read(mni_files *f, const char *name, const char *item, uint64_t limit,
                         mn_bytes *out, bool *again, mn_error *err)
{
    out->data = NULL;
    out->size = 0;
    if (again)
        *again = false;
    char *path;
    mn_status s = mni_contained_path(f, name, item, &path, err);
    int fd = -1;
    struct stat st;
    if (s == MN_OK)
        s = open_regular(path, false, item, &fd, &st, err);
    if (s != MN_OK)
        return s;
    s = read_opened(f, fd, &st, limit, item, out, again, err);
    close(fd);
    return s;
}

mn_status mni_files_read_top(mni_files *f, const char *name, const char *item, mn_bytes *out,
                             mn_error *err)
{
    out->data = NULL;
    out->size = 0;
    char *full = NULL;
    mn_status joined = full_path(f, name, item, &full, err);
    if (joined != MN_OK)
        return joined;
    int fd = -1;
    struct stat st;
    mn_status s = open_regular(full, true, item, &fd, &st, err);
    if (s != MN_OK)
        return s;
    s = read_opened(f, fd, &st, UINT64_MAX, item, out, NULL, err);
    close(fd);
    return s;
}
