/*
 * Output sets: every file the library writes appears whole or not at all,
 * and a set of files (a .gltf and its .bin) is replaced as one.
 *
 * Writing.  Each file goes to a temporary file in its target's folder, so
 * the final rename never crosses a file system.  On Linux that is an
 * unnamed file (open(folder, O_TMPFILE)): a process killed while writing
 * leaves nothing behind.  Where the folder's file system cannot make one
 * (EOPNOTSUPP, EISDIR, EINVAL from an old kernel or a FUSE or network
 * mount), or /proc/self/fd is missing (linkat needs it to name the file),
 * the file is a named one, ".NAME.XXXXXX" beside the target, created with
 * O_EXCL (as mkstemp does, but with mode 0666 less the umask, the mode the
 * target would get).
 *
 * Commit, in this order:
 *   1. every file is fsynced (all of them before any rename);
 *   2. each target there is opened for reading, to restore it from should a
 *      later step fail;
 *   3. an unnamed file is linked into the folder as ".NAME.XXXXXX" (linkat
 *      cannot replace an existing name, rename can);
 *   4. the files are renamed over their targets by ascending stage (a data
 *      file before the file that names it: .bin, then .gltf);
 *   5. every folder of the set is fsynced, so the renames are durable.
 * Any failure before step 4 removes every temporary file and leaves every
 * target as it was.  A failure in step 4 or 5 also puts back the targets
 * already replaced: each is restored from the descriptor opened in step 2
 * (its bytes copied into a new temporary file given the old file's mode,
 * fsynced and renamed back; a target that did not exist is removed again).
 *
 * Modes.  Every file written gets 0666 less the umask (both kinds of
 * temporary file are opened with 0666), whatever mode a target it replaces
 * had; only a target put back keeps its own.
 *
 * What a kill leaves.  Killed before the links of step 3: nothing.
 * Killed between a link of step 3 and its rename in step 4: the whole,
 * fsynced ".NAME.XXXXXX" files not yet renamed, beside targets that are
 * still the old ones (with the named fallback these files exist from the
 * start, so a kill while writing leaves them too, possibly partial; and a
 * set of more than 64 files, a long PNG sequence, names each file past the
 * 64th when it is finished, to hold no more descriptors, so a kill can leave
 * those, whole).
 * Killed between two renames of step 4: a mixed set, the files renamed so
 * far new and the rest old; the stage order makes the mix readable (a new
 * .bin beside the old .gltf, never a new .gltf naming a .bin that is not
 * there), and each file is whole.  That window is a few rename calls long.
 *
 * Testing.  Every system call that can fail the write goes through io_step,
 * which counts it and records its kind, and fails the one the test names
 * (mni_output_test_inject).  The state is per thread and test-only.
 */
#define _GNU_SOURCE   /* O_TMPFILE, AT_SYMLINK_FOLLOW */

#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Finished unnamed files beyond this many are named early and closed, so a long set (a PNG
   sequence) never holds more descriptors. */
#define OPEN_MAX_FINISHED 64u

/* ---- the test hook --------------------------------------------------------------------------- */

typedef struct io_hook {
    uint64_t calls;       /* io_step calls since the last mni_output_test_inject */
    uint64_t fail_at;     /* the call (1-based) that fails; 0: none */
    int error;            /* errno it fails with */
    unsigned flags;       /* MNI_OUTPUT_TEST_* */
    char trace[MNI_OUTPUT_TRACE_MAX];
} io_hook;

static _Thread_local io_hook hook;

void mni_output_test_inject(uint64_t fail_at, int error, unsigned flags)
{
    memset(&hook, 0, sizeof hook);
    hook.fail_at = fail_at;
    hook.error = error ? error : EIO;
    hook.flags = flags;
}

uint64_t mni_output_test_calls(const char **trace)
{
    if (trace)
        *trace = hook.trace;
    return hook.calls;
}

/* Count one system call of kind `kind`; false (errno set) when the test makes it fail. */
static bool io_step(char kind)
{
    if (hook.calls < MNI_OUTPUT_TRACE_MAX - 1)
        hook.trace[hook.calls] = kind;
    hook.calls++;
    if (hook.fail_at == 0 || hook.calls != hook.fail_at)
        return true;
    if (hook.flags & MNI_OUTPUT_TEST_KILL)
        raise(SIGKILL);
    errno = hook.error;
    return false;
}

/* ---- system calls ------------------------------------------------------------------------------ */

static int io_open(char kind, const char *path, int flags, mode_t mode)
{
    if (!io_step(kind))
        return -1;
    int fd;
    do
        fd = open(path, flags | O_CLOEXEC, mode);
    while (fd < 0 && errno == EINTR);
    return fd;
}

/* Write all of bytes (short writes continued); false with errno set. */
static bool io_write_all(int fd, const uint8_t *p, size_t size)
{
    while (size > 0) {
        if (!io_step('w'))
            return false;
        ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return false;
        }
        p += n;
        size -= (size_t)n;
    }
    return true;
}

static bool io_fsync(char kind, int fd)
{
    return io_step(kind) && fsync(fd) == 0;
}

static bool io_rename(const char *from, const char *to)
{
    return io_step('r') && rename(from, to) == 0;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* strerror_r in whichever form the C library gives under _GNU_SOURCE (glibc's returns the text). */
static const char *errno_text(int e, char *buf, size_t size)
{
#if defined(__GLIBC__)
    return strerror_r(e, buf, size);
#else
    if (strerror_r(e, buf, size) != 0)
        snprintf(buf, size, "error %d", e);
    return buf;
#endif
}

/* ---- names --------------------------------------------------------------------------------------- */

/* The folder of path ("." when none); a copy made with the allocator, NULL when out of memory. */
static char *folder_of(const mn_allocator *a, const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    if (slash && n == 0)
        n = 1;   /* "/x": the root */
    char *s = mni_alloc(a, n ? n + 1 : 2);
    if (!s)
        return NULL;
    if (n)
        memcpy(s, path, n);
    else
        s[n++] = '.';
    s[n] = '\0';
    return s;
}

/* Six characters no two calls in a process are likely to share, and other processes neither. */
static void random_tag(char out[7])
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static _Thread_local uint64_t counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40) ^
                 (++counter * 0x9E3779B97F4A7C15ull) ^ (uint64_t)(uintptr_t)&counter;
    for (int i = 0; i < 6; i++) {
        x ^= x >> 29;
        x *= 0xBF58476D1CE4E5B9ull;
        out[i] = digits[x % 62u];
    }
    out[6] = '\0';
}

/* "folder/.NAME.XXXXXX" for target `path`, into temp (PATH_MAX-sized). */
static void temp_name(const char *path, char *temp, size_t size)
{
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
    char tag[7];
    random_tag(tag);
    snprintf(temp, size, "%.*s.%s.%s", (int)dir, path, path + dir, tag);
}

/* ---- one file -------------------------------------------------------------------------------------- */

typedef struct mni_output_file {
    char *path;          /* the target */
    char *folder;        /* its folder */
    char *temp;          /* the named temporary file ("" while unnamed), room for the path + 16 */
    uint32_t stage;      /* renamed in ascending stage */
    int fd;              /* the temporary file while open, else -1 */
    int old_fd;          /* the target as it was, opened in commit; -1: none */
    bool existed;        /* the target existed at commit */
    bool finished;       /* fsynced: no more writes */
    bool renamed;        /* the temporary file is now the target */
} mni_output_file;

/* Fill err with "cannot <verb> <path>: <reason>" for errno e; MN_IO. */
static mn_status io_fail(mn_error *err, int e, const char *verb, const char *path)
{
    char why[128];
    return mni_fail(err, MN_IO, "cannot %s %.300s: %s", verb, path, errno_text(e, why, sizeof why));
}

/* A named temporary file beside f->path, created exclusively. */
static bool open_named(mni_output_file *f)
{
    for (int tries = 0; tries < 100; tries++) {
        temp_name(f->path, f->temp, strlen(f->path) + 16);
        f->fd = io_open('o', f->temp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (f->fd >= 0)
            return true;
        if (errno != EEXIST)
            break;
    }
    f->temp[0] = '\0';
    return false;
}

/* Open f's temporary file: unnamed where the folder allows it, else named. */
static bool open_temp(mni_output_file *f)
{
    f->temp[0] = '\0';
#ifdef O_TMPFILE
    if (!(hook.flags & MNI_OUTPUT_TEST_NAMED) && access("/proc/self/fd", X_OK) == 0) {
        f->fd = io_open('o', f->folder, O_TMPFILE | O_WRONLY, 0666);
        if (f->fd >= 0)
            return true;
        if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOTSUP)
            return false;
    }
#endif
    return open_named(f);
}

/* Give an unnamed file the name ".NAME.XXXXXX" (a no-op for a named one). */
static bool name_temp(mni_output_file *f)
{
    if (f->temp[0])
        return true;
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", f->fd);
    for (int tries = 0; tries < 100; tries++) {
        temp_name(f->path, f->temp, strlen(f->path) + 16);
        if (io_step('l') && linkat(AT_FDCWD, proc, AT_FDCWD, f->temp, AT_SYMLINK_FOLLOW) == 0)
            return true;
        if (errno != EEXIST)
            break;
    }
    f->temp[0] = '\0';
    return false;
}

/* Close and remove the temporary file (whatever state it is in). */
static void discard_temp(mni_output_file *f)
{
    close_fd(&f->fd);
    if (f->temp[0] && !f->renamed)
        unlink(f->temp);
    f->temp[0] = '\0';
}

/* ---- the set ------------------------------------------------------------------------------------------ */

void mni_output_init(mn_output *set, const mn_allocator *allocator)
{
    memset(set, 0, sizeof *set);
    if (allocator)
        set->allocator = *allocator;
}

static void release(mn_output *set)
{
    for (uint32_t i = 0; i < set->count; i++) {
        mni_output_file *f = &set->files[i];
        discard_temp(f);
        close_fd(&f->old_fd);
        mni_free(&set->allocator, f->temp, strlen(f->path) + 16);
        mni_free(&set->allocator, f->path, strlen(f->path) + 1);
        mni_free(&set->allocator, f->folder, strlen(f->folder) + 1);
    }
    mni_free(&set->allocator, set->files, (size_t)set->cap * sizeof *set->files);
    set->files = NULL;
    set->count = set->cap = 0;
}

void mni_output_abort(mn_output *set)
{
    if (set)
        release(set);
}

/* Room for one more file. */
static bool grow(mn_output *set)
{
    if (set->count < set->cap)
        return true;
    uint32_t cap = set->cap ? 2 * set->cap : 4;
    mni_output_file *files = mni_alloc(&set->allocator, (size_t)cap * sizeof *files);
    if (!files)
        return false;
    if (set->count)
        memcpy(files, set->files, (size_t)set->count * sizeof *files);
    mni_free(&set->allocator, set->files, (size_t)set->cap * sizeof *set->files);
    set->files = files;
    set->cap = cap;
    return true;
}

/* The set's first error again, into err. */
static mn_status replay(const mn_output *set, mn_error *err)
{
    if (err)
        *err = set->error;
    return set->error.code;
}

mn_status mni_output_fail(mn_output *set, mn_status st, const mn_error *err)
{
    if (set->failed)
        return st;
    set->failed = true;
    if (err && err->code == st)
        set->error = *err;
    else
        mni_fail(&set->error, st, "a file of this output set failed");
    return st;
}

mn_status mni_output_add(mn_output *set, const char *path, uint32_t stage, uint32_t *file, mn_error *err)
{
    if (set->failed)
        return replay(set, err);
    if (!path || !path[0] || path[strlen(path) - 1] == '/') {
        return mni_output_fail(
            set, mni_fail(err, MN_INVALID_ARGUMENT, "not a file path to write: %.300s", path ? path : "NULL"), err);
    }
    for (uint32_t i = 0; i < set->count; i++)
        if (strcmp(set->files[i].path, path) == 0) {
            return mni_output_fail(
                set, mni_fail(err, MN_INVALID_ARGUMENT, "%.300s is written twice in one output set", path), err);
        }
    if (!grow(set)) {
        return mni_output_fail(set, mni_oom(err, "an output set"), err);
    }
    mni_output_file *f = &set->files[set->count];
    memset(f, 0, sizeof *f);
    f->fd = f->old_fd = -1;
    f->stage = stage;
    size_t n = strlen(path) + 1;
    f->path = mni_alloc(&set->allocator, n);
    f->temp = f->path ? mni_alloc(&set->allocator, n + 15) : NULL;
    f->folder = f->temp ? folder_of(&set->allocator, path) : NULL;
    if (!f->folder) {
        mni_free(&set->allocator, f->temp, n + 15);
        mni_free(&set->allocator, f->path, n);
        return mni_output_fail(set, mni_oom(err, "an output set"), err);
    }
    f->temp[0] = '\0';
    memcpy(f->path, path, n);
    set->count++;
    if (!open_temp(f)) {
        return mni_output_fail(set, io_fail(err, errno, "write", path), err);
    }
    if (file)
        *file = set->count - 1;
    return MN_OK;
}

mn_status mni_output_write(mn_output *set, uint32_t file, const void *bytes, size_t size, mn_error *err)
{
    if (set->failed)
        return replay(set, err);
    if (file >= set->count || set->files[file].finished)
        return mni_output_fail(set, mni_fail(err, MN_INVALID_ARGUMENT, "write to an output that was finished"), err);
    mni_output_file *f = &set->files[file];
    if (!io_write_all(f->fd, bytes, size)) {
        return mni_output_fail(set, io_fail(err, errno, "write", f->path), err);
    }
    return MN_OK;
}

/* fsync f; close it when it is named or too many finished files hold descriptors. */
static mn_status finish(mn_output *set, mni_output_file *f, mn_error *err)
{
    if (f->finished)
        return MN_OK;
    if (!io_fsync('f', f->fd)) {
        return mni_output_fail(set, io_fail(err, errno, "write", f->path), err);
    }
    f->finished = true;
    set->finished_open++;
    if (set->finished_open > OPEN_MAX_FINISHED || f->temp[0]) {
        if (!name_temp(f)) {
            return mni_output_fail(set, io_fail(err, errno, "name the temporary file of", f->path), err);
        }
        close_fd(&f->fd);
        set->finished_open--;
    }
    return MN_OK;
}

mn_status mni_output_finish(mn_output *set, uint32_t file, mn_error *err)
{
    if (set->failed)
        return replay(set, err);
    if (file >= set->count)
        return mni_output_fail(set, mni_fail(err, MN_INVALID_ARGUMENT, "finish an output the set does not have"), err);
    return finish(set, &set->files[file], err);
}

/* ---- commit -------------------------------------------------------------------------------------------- */

/* Copy the old target (f->old_fd) into a fresh temporary file and rename it back over f->path. */
static bool restore_one(mni_output_file *f)
{
    if (!f->existed)
        return unlink(f->path) == 0 || errno == ENOENT;
    if (f->old_fd < 0)
        return false;
    mni_output_file r = *f;
    char temp[4096 + 16];
    if (strlen(f->path) + 16 > sizeof temp)
        return false;
    r.temp = temp;
    r.fd = -1;
    r.renamed = false;
    if (!open_temp(&r))
        return false;
    /*
     * As it was, its mode included: the new file got 0666 less the umask,
     * the old one may have had another.  Best effort: the bytes matter more,
     * so a failing fchmod does not stop the restore.
     */
    struct stat old;
    if (fstat(f->old_fd, &old) == 0)
        (void)fchmod(r.fd, old.st_mode & 07777);
    uint8_t buf[64 * 1024];
    bool ok = true;
    for (off_t at = 0; ok;) {
        ssize_t n = pread(f->old_fd, buf, sizeof buf, at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            ok = n == 0;
            break;
        }
        ok = io_write_all(r.fd, buf, (size_t)n);
        at += n;
    }
    ok = ok && io_fsync('f', r.fd) && name_temp(&r) && io_rename(r.temp, r.path);
    if (ok)
        r.renamed = true;
    discard_temp(&r);
    return ok;
}

/* fsync every folder of the set (each once). */
static bool sync_folders(mn_output *set, const char **failed)
{
    for (uint32_t i = 0; i < set->count; i++) {
        bool seen = false;
        for (uint32_t j = 0; j < i && !seen; j++)
            seen = strcmp(set->files[j].folder, set->files[i].folder) == 0;
        if (seen)
            continue;
        int fd = io_open('d', set->files[i].folder, O_RDONLY | O_DIRECTORY, 0);
        bool ok = fd >= 0 && io_fsync('F', fd);
        int e = errno;
        close_fd(&fd);
        if (!ok) {
            *failed = set->files[i].folder;
            errno = e;
            return false;
        }
    }
    return true;
}

/* Put back every target already replaced; err's message says which could not be. */
static void roll_back(mn_output *set, mn_error *err)
{
    bool all = true;
    for (uint32_t i = set->count; i-- > 0;) {
        mni_output_file *f = &set->files[i];
        if (f->renamed && !restore_one(f)) {
            all = false;
            size_t len = strlen(err->message);
            snprintf(err->message + len, sizeof err->message - len, "; %.200s could not be restored",
                     f->path);
        }
    }
    const char *ignored;
    if (all)
        sync_folders(set, &ignored);
}

/* Stable order of the files by stage (insertion sort: sets are small). */
static void order_by_stage(mn_output *set, uint32_t *order)
{
    for (uint32_t i = 0; i < set->count; i++) {
        uint32_t j = i;
        while (j > 0 && set->files[order[j - 1]].stage > set->files[i].stage) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
}

static mn_status commit(mn_output *set, mn_error *err)
{
    if (set->failed)
        return replay(set, err);
    /* 1: everything durable before any target changes. */
    for (uint32_t i = 0; i < set->count; i++) {
        mn_status st = finish(set, &set->files[i], err);
        if (st != MN_OK)
            return st;
    }
    /* 2: what to restore from. */
    for (uint32_t i = 0; i < set->count; i++) {
        mni_output_file *f = &set->files[i];
        f->old_fd = io_open('b', f->path, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0);
        f->existed = f->old_fd >= 0 || errno != ENOENT;
        /* An unreadable target (EACCES) is still replaced; it alone could not be put back. */
        if (f->old_fd < 0 && errno != ENOENT && errno != EACCES && errno != EPERM)
            return io_fail(err, errno, "read", f->path);
    }
    /* 3: names for the unnamed files, as late as can be (a kill from here on leaves them). */
    for (uint32_t i = 0; i < set->count; i++) {
        mni_output_file *f = &set->files[i];
        if (!name_temp(f))
            return io_fail(err, errno, "name the temporary file of", f->path);
        close_fd(&f->fd);
    }
    /* 4: data before the files that name it. */
    uint32_t small[8], *order = set->count <= 8 ? small : mni_alloc(&set->allocator, set->count * sizeof *order);
    if (!order)
        return mni_oom(err, "an output set");
    order_by_stage(set, order);
    mn_status st = MN_OK;
    for (uint32_t k = 0; k < set->count && st == MN_OK; k++) {
        mni_output_file *f = &set->files[order[k]];
        if (io_rename(f->temp, f->path)) {
            f->renamed = true;
            f->temp[0] = '\0';
        } else {
            st = io_fail(err, errno, "replace", f->path);
        }
    }
    if (order != small)
        mni_free(&set->allocator, order, set->count * sizeof *order);
    /* 5: the renames durable. */
    const char *folder = NULL;
    if (st == MN_OK && !sync_folders(set, &folder))
        st = io_fail(err, errno, "sync the folder", folder);
    if (st != MN_OK)
        roll_back(set, err);
    return st;
}

mn_status mni_output_commit(mn_output *set, mn_error *err)
{
    mn_error local;
    if (!err)
        err = &local;
    mn_status st = commit(set, err);
    release(set);
    return st;
}

/* ---- one whole file -------------------------------------------------------------------------------------- */

mn_status mni_output_write_whole(const char *path, const void *bytes, size_t size, const mn_allocator *allocator,
                                 mn_error *err)
{
    mn_output set;
    mni_output_init(&set, allocator);
    uint32_t file = 0;
    mn_status st = mni_output_add(&set, path, 0, &file, err);
    if (st == MN_OK)
        st = mni_output_write(&set, file, bytes, size, err);
    if (st != MN_OK) {
        mni_output_abort(&set);
        return st;
    }
    return mni_output_commit(&set, err);
}

/* ---- the public form ----------------------------------------------------------------------------------- */

MN_API mn_status mn_output_begin(const mn_allocator *allocator, mn_output **out, mn_error *err)
{
    if (!out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_output_begin: out is NULL");
    *out = NULL;
    mn_allocator a = {0};
    if (allocator)
        a = *allocator;
    mn_output *set = mni_alloc(&a, sizeof *set);
    if (!set)
        return mni_oom(err, "an output set");
    mni_output_init(set, &a);
    *out = set;
    return MN_OK;
}

MN_API mn_status mn_output_write_file(mn_output *set, const char *path, const void *bytes, size_t size,
                                      mn_error *err)
{
    if (!set || (!bytes && size))
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_output_write_file: NULL set or bytes");
    uint32_t file = 0;
    mn_status st = mni_output_add(set, path, set->count, &file, err);
    if (st == MN_OK)
        st = mni_output_write(set, file, bytes, size, err);
    if (st == MN_OK)
        st = mni_output_finish(set, file, err);
    return st;
}

MN_API mn_status mn_output_commit(mn_output *set, mn_error *err)
{
    if (!set)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_output_commit: set is NULL");
    mn_allocator a = set->allocator;
    mn_status st = mni_output_commit(set, err);
    mni_free(&a, set, sizeof *set);
    return st;
}

MN_API void mn_output_abort(mn_output *set)
{
    if (!set)
        return;
    mn_allocator a = set->allocator;
    mni_output_abort(set);
    mni_free(&a, set, sizeof *set);
}
