/*
 * Output sets (src/io/output.c): every file the library and the CLI write
 * appears whole or not at all, and a set of files is replaced as one.
 *
 * Each writer is run over targets that already exist (old bytes the test
 * wrote), in a folder of its own:
 *   - .gltf + .bin    mn_gltf_write_file to m.gltf (two files, one set)
 *   - .glb            mn_gltf_write_file to m.glb
 *   - voxel export    mn_voxel_export_file of tests/data/voxel_arm to v.gltf
 *                     (v.gltf, v.bin, v.interface.json: one set)
 *   - PNG             mn_rgba_image_write_png
 *   - JPEG            mn_rgba_image_write_jpeg
 *   - CLI render      `marionette render m.glb --turntable 3` (a sequence of
 *                     three PNGs, one set), run in this process (the tool's
 *                     sources are linked into this test)
 *   - public sets     mn_output_write_file of two files, then mn_output_commit
 *   - .aosrig         mn_aosrig_write_file of the synthetic head to h.aosrig
 *
 * For each: a run with no failure counts the system calls it makes (N) and
 * must succeed; then for every n in 1..N the n-th call fails (EIO), and the
 * call must return an error, every target must hold its old bytes, and the
 * folder must hold nothing but the targets.  Both with unnamed temporary
 * files (O_TMPFILE) and with the named fallback.
 *
 * Kills: for every n, a child process is killed (SIGKILL) at its n-th call;
 * every target is then whole (old or new bytes), a .gltf is new only when its
 * .bin is, and a temporary file is left only when the kill came after the
 * unnamed file was linked into the folder (it is then whole).
 *
 * A full disk: in a user and mount namespace (unshare), a small tmpfs is
 * filled to leave less room than the output needs, at many levels; each
 * write fails with MN_IO and the same checks hold.  Skipped, with a message,
 * where namespaces or mounts are not allowed.
 *
 * Also: a .gltf target that cannot be replaced (a folder of that name) after
 * its .bin was renamed leaves the old .bin (the reported case); a set of 70
 * files (more than the 64 descriptors a set keeps) whose last rename fails
 * puts all 69 renamed files back.
 *
 * Modes: every file any of them writes gets 0666 less the umask (022, 027,
 * 077), over a target of another mode or none, with either kind of
 * temporary file; a target put back after a failed commit keeps its mode.
 */
#define _GNU_SOURCE   /* unshare, CLONE_NEW* */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <marionette/gltf.h>
#include <marionette/head/aosrig.h>
#include <marionette/model.h>
#include <marionette/model_build.h>
#include <marionette/render.h>
#include <marionette/voxel/export.h>

#include "cli.h"
#include "files.h"
#include "io/io.h"
#include "synthetic_head.h"

#define MAX_TARGETS 4
#define PATH_CAP 1024

/* ---- files ---------------------------------------------------------------------------------- */

typedef struct blob {
    uint8_t *data;
    size_t size;
    bool exists;
} blob;

static blob read_blob(const char *path)
{
    blob b = {NULL, 0, false};
    FILE *f = fopen(path, "rb");
    if (!f)
        return b;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b.data = malloc(n > 0 ? (size_t)n : 1);
    b.size = n > 0 ? (size_t)n : 0;
    b.exists = b.data && fread(b.data, 1, b.size, f) == b.size;
    fclose(f);
    return b;
}

static bool blob_equal(const blob *a, const blob *b)
{
    return a->exists == b->exists && a->size == b->size && (a->size == 0 || memcmp(a->data, b->data, a->size) == 0);
}

/* Test setup writes files directly: it is what the library must not be trusted with here. */
static bool write_plain(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f) != 0)
        ok = false;
    return ok;
}

/* The names in dir that are not one of keep[0..n) (basenames); their count, the first into first. */
static int strays(const char *dir, const char *const *keep, int n, char *first, size_t size)
{
    DIR *d = opendir(dir);
    int count = 0;
    if (first)
        first[0] = '\0';
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        bool kept = false;
        for (int i = 0; i < n && !kept; i++)
            kept = strcmp(e->d_name, keep[i]) == 0;
        if (!kept && count++ == 0 && first)
            snprintf(first, size, "%s", e->d_name);
    }
    if (d)
        closedir(d);
    return count;
}

/* ---- the operations ------------------------------------------------------------------------------ */

typedef struct op op;
struct op {
    const char *name;
    mn_status (*run)(const op *o);
    const char *dir;                    /* the output folder */
    const char *targets[MAX_TARGETS];   /* basenames in dir, renamed in this order (stage) */
    int target_count;
    const mn_model *model;
    const char *input;                  /* a file the operation reads (the CLI's GLB) */
};

static void path_in(char *out, const op *o, const char *name)
{
    snprintf(out, PATH_CAP, "%s/%s", o->dir, name);
}

static mn_status run_gltf(const op *o)
{
    char path[PATH_CAP];
    path_in(path, o, o->targets[1]);
    return mn_gltf_write_file(o->model, path, NULL, NULL);
}

static mn_status run_glb(const op *o)
{
    char path[PATH_CAP];
    path_in(path, o, o->targets[0]);
    return mn_gltf_write_file(o->model, path, NULL, NULL);
}

static mn_status run_voxel(const op *o)
{
    char path[PATH_CAP];
    path_in(path, o, "v.gltf");
    return mn_voxel_export_file("tests/data/voxel_arm/rig.json", NULL, path, NULL, NULL);
}

static mn_rgba_image png_image;
static mn_aosrig *head_pack;   /* the synthetic head, re-packed by mn_aosrig_write_file */

static mn_status run_aosrig(const op *o)
{
    char path[PATH_CAP];
    path_in(path, o, o->targets[0]);
    return mn_aosrig_write_file(&head_pack->header, head_pack->blobs, head_pack->blob_count, path,
                                NULL, NULL);
}

static mn_status run_png(const op *o)
{
    char path[PATH_CAP];
    path_in(path, o, o->targets[0]);
    return mn_rgba_image_write_png(&png_image, path, NULL);
}

static mn_status run_jpeg(const op *o)
{
    char path[PATH_CAP];
    path_in(path, o, o->targets[0]);
    return mn_rgba_image_write_jpeg(&png_image, path, 90, NULL);
}

static mn_status run_cli_render(const op *o)
{
    char out[PATH_CAP];
    path_in(out, o, "f.png");
    char *argv[] = {"render", (char *)o->input, "--turntable", "3", "--size", "24x16", "--quiet", "--out", out, NULL};
    /* The tool says why each injected failure failed: not this test's output. */
    fflush(stdout);
    fflush(stderr);
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    if (saved >= 0 && null >= 0)
        dup2(null, 2);
    int rc = cli_render(9, argv);
    fflush(stderr);
    if (saved >= 0 && null >= 0)
        dup2(saved, 2);
    if (null >= 0)
        close(null);
    if (saved >= 0)
        close(saved);
    return rc == 0 ? MN_OK : MN_IO;
}

/* The public set: two whole files from memory, renamed in the order given. */
static mn_status run_public(const op *o)
{
    char a[PATH_CAP], b[PATH_CAP];
    path_in(a, o, o->targets[0]);
    path_in(b, o, o->targets[1]);
    mn_output *set = NULL;
    mn_status st = mn_output_begin(NULL, &set, NULL);
    if (st == MN_OK)
        st = mn_output_write_file(set, a, "new data\n", 9, NULL);
    if (st == MN_OK)
        st = mn_output_write_file(set, b, "{\"names\": \"a\"}\n", 16, NULL);
    if (st != MN_OK) {
        mn_output_abort(set);
        return st;
    }
    return mn_output_commit(set, NULL);
}

/* ---- the model ------------------------------------------------------------------------------------- */

static mn_model *triangle_model(void)
{
    static const float xyz[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    static const uint32_t tri[] = {0, 1, 2, 2, 1, 3};
    mn_model_builder *b = mn_model_build_begin(NULL);
    uint32_t pos = mn_model_build_accessor_f32(b, "positions", xyz, 4, MN_TYPE_VEC3);
    uint32_t idx = mn_model_build_accessor_u32(b, NULL, tri, 6, MN_TYPE_SCALAR);
    uint32_t mesh = mn_model_build_mesh(b, "quad");
    const mn_build_attribute attrs[] = {{"POSITION", pos}};
    mn_model_build_primitive(b, mesh, MN_MODE_TRIANGLES, attrs, 1, idx, MN_NONE);
    uint32_t node = mn_model_build_node(b, "root", MN_NONE);
    mn_model_build_node_mesh(b, node, mesh, MN_NONE);
    mn_model *model = NULL;
    mn_error err;
    if (mn_model_build_finish(b, &model, &err) != MN_OK)
        fail_msg("building the model: %s", err.message);
    return model;
}

/* ---- checks ---------------------------------------------------------------------------------------- */

/* Write "old <name>" into every target (the bytes a failure must keep). */
static void set_old(const op *o)
{
    for (int i = 0; i < o->target_count; i++) {
        char path[PATH_CAP], text[128];
        path_in(path, o, o->targets[i]);
        int n = snprintf(text, sizeof text, "old %s\n", o->targets[i]);
        if (!write_plain(path, text, (size_t)n))
            fail_msg("cannot write %s", path);
    }
}

static void remove_targets(const op *o)
{
    for (int i = 0; i < o->target_count; i++) {
        char path[PATH_CAP];
        path_in(path, o, o->targets[i]);
        unlink(path);
    }
}

static void snapshot(const op *o, blob *out)
{
    for (int i = 0; i < o->target_count; i++) {
        char path[PATH_CAP];
        path_in(path, o, o->targets[i]);
        out[i] = read_blob(path);
    }
}

static void free_blobs(blob *b, int n)
{
    for (int i = 0; i < n; i++)
        free(b[i].data);
}

/* Every target holds `expect` and the folder holds nothing else (but `extra`); else why. */
static bool state_is(const op *o, const blob *expect, const char *extra, char *why, size_t size)
{
    for (int i = 0; i < o->target_count; i++) {
        char path[PATH_CAP];
        path_in(path, o, o->targets[i]);
        blob now = read_blob(path);
        bool same = blob_equal(&now, &expect[i]);
        free(now.data);
        if (!same) {
            snprintf(why, size, "%s %s", o->targets[i],
                     expect[i].exists ? "does not hold the bytes it should" : "exists");
            return false;
        }
    }
    const char *keep[MAX_TARGETS + 1];
    int n = 0;
    for (; n < o->target_count; n++)
        keep[n] = o->targets[n];
    if (extra)
        keep[n++] = extra;
    char first[256];
    int left = strays(o->dir, keep, n, first, sizeof first);
    if (left) {
        snprintf(why, size, "%d file(s) left in the folder, %s", left, first);
        return false;
    }
    return true;
}

static const char *mode_name(unsigned flags)
{
    return flags & MNI_OUTPUT_TEST_NAMED ? "named" : "unnamed";
}

/*
 * Run o with no failure (it must succeed and leave only its targets), then
 * with each of its system calls failing in turn.  Returns the count.
 */
static uint64_t fault_loop(const op *o, unsigned flags, bool old_exists)
{
    blob old[MAX_TARGETS], fresh[MAX_TARGETS];
    char why[512];
    if (old_exists)
        set_old(o);
    else
        remove_targets(o);
    snapshot(o, old);
    mni_output_test_inject(0, 0, flags);
    mn_status st = o->run(o);
    const char *trace;
    uint64_t calls = mni_output_test_calls(&trace);
    char kinds[MNI_OUTPUT_TRACE_MAX];
    snprintf(kinds, sizeof kinds, "%s", trace);
    if (st != MN_OK)
        fail_msg("%s: the write without failures failed", o->name);
    snapshot(o, fresh);
    for (int i = 0; i < o->target_count; i++)
        if (!fresh[i].exists || blob_equal(&fresh[i], &old[i]))
            fail_msg("%s: %s was not written", o->name, o->targets[i]);
    if (!state_is(o, fresh, NULL, why, sizeof why))
        fail_msg("%s after a good write: %s", o->name, why);
    assert_true(calls > 0 && calls < MNI_OUTPUT_TRACE_MAX);
    for (uint64_t n = 1; n <= calls; n++) {
        if (old_exists)
            set_old(o);
        else
            remove_targets(o);
        mni_output_test_inject(n, EIO, flags);
        st = o->run(o);
        mni_output_test_inject(0, 0, 0);
        if (st == MN_OK)
            fail_msg("%s (%s): call %llu of %llu ('%c') failed but the write succeeded", o->name, mode_name(flags),
                     (unsigned long long)n, (unsigned long long)calls, kinds[n - 1]);
        if (!state_is(o, old, NULL, why, sizeof why))
            fail_msg("%s (%s): call %llu of %llu ('%c' in %s) failed: %s", o->name, mode_name(flags),
                     (unsigned long long)n, (unsigned long long)calls, kinds[n - 1], kinds, why);
    }
    print_message("%-14s %-7s %s targets: %3llu failure points, calls %s\n", o->name, mode_name(flags),
                  old_exists ? "old" : "no", (unsigned long long)calls, kinds);
    free_blobs(old, o->target_count);
    free_blobs(fresh, o->target_count);
    return calls;
}

/* Remove what a killed write left; true when each such file held one target's new bytes. */
static bool leftovers_whole(const op *o, const blob *fresh, int *count)
{
    DIR *d = opendir(o->dir);
    bool whole = true;
    *count = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        bool target = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
        for (int i = 0; i < o->target_count && !target; i++)
            target = strcmp(e->d_name, o->targets[i]) == 0;
        if (target)
            continue;
        char path[PATH_CAP];
        path_in(path, o, e->d_name);
        blob b = read_blob(path);
        bool any = false;
        for (int i = 0; i < o->target_count && !any; i++)
            any = blob_equal(&b, &fresh[i]);
        free(b.data);
        whole = whole && any;
        (*count)++;
        unlink(path);
    }
    if (d)
        closedir(d);
    return whole;
}

/* Kill a child at each system call in turn; what it leaves must be whole and in order. */
static void kill_loop(const op *o)
{
    blob old[MAX_TARGETS], fresh[MAX_TARGETS];
    set_old(o);
    snapshot(o, old);
    mni_output_test_inject(0, 0, 0);
    assert_int_equal(o->run(o), MN_OK);
    const char *trace;
    uint64_t calls = mni_output_test_calls(&trace);
    char kinds[MNI_OUTPUT_TRACE_MAX];
    snprintf(kinds, sizeof kinds, "%s", trace);
    snapshot(o, fresh);
    uint64_t leaving = 0, mixed = 0;
    for (uint64_t n = 1; n <= calls; n++) {
        set_old(o);
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            mni_output_test_inject(n, 0, MNI_OUTPUT_TEST_KILL);
            o->run(o);
            _exit(3);
        }
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
            fail_msg("%s: the child was not killed at call %llu", o->name, (unsigned long long)n);
        bool all_new = true, any_new = false;
        for (int i = 0; i < o->target_count; i++) {
            char path[PATH_CAP];
            path_in(path, o, o->targets[i]);
            blob now = read_blob(path);
            bool is_old = blob_equal(&now, &old[i]), is_new = blob_equal(&now, &fresh[i]);
            free(now.data);
            if (!is_old && !is_new)
                fail_msg("%s: killed at call %llu ('%c'): %s is neither old nor new", o->name,
                         (unsigned long long)n, kinds[n - 1], o->targets[i]);
            if (is_new && !all_new)
                fail_msg("%s: killed at call %llu: %s is new before a file it names", o->name,
                         (unsigned long long)n, o->targets[i]);
            all_new = all_new && is_new;
            any_new = any_new || is_new;
        }
        mixed += any_new && !all_new;
        int left = 0;
        if (!leftovers_whole(o, fresh, &left))
            fail_msg("%s: killed at call %llu ('%c'): a partial file was left", o->name, (unsigned long long)n,
                     kinds[n - 1]);
        /* Unnamed temporary files: nothing can be left before the first link. */
        bool linked = memchr(kinds, 'l', (size_t)(n - 1)) != NULL;
        if (left && !linked)
            fail_msg("%s: killed at call %llu ('%c'), before any link: %d file(s) left", o->name,
                     (unsigned long long)n, kinds[n - 1], left);
        leaving += left > 0;
    }
    print_message("%-14s killed at each of %llu calls: %llu left whole temporary files (after a link), "
                  "%llu a mixed set (between renames)\n",
                  o->name, (unsigned long long)calls, (unsigned long long)leaving, (unsigned long long)mixed);
    free_blobs(old, o->target_count);
    free_blobs(fresh, o->target_count);
}

/* ---- fixtures -------------------------------------------------------------------------------------- */

enum { OP_GLTF, OP_GLB, OP_VOXEL, OP_PNG, OP_CLI, OP_PUBLIC, OP_AOSRIG, OP_JPEG, OP_COUNT };

typedef struct fixture {
    char root[512];
    char dirs[OP_COUNT][PATH_CAP];
    char glb[PATH_CAP];
    mn_model *model;
    op ops[OP_COUNT];
} fixture;

static void make_ops(fixture *f, const char *root)   /* root: under 600 bytes */
{
    static const char *const names[OP_COUNT] = {"gltf+bin", "glb", "voxel export", "png", "cli render", "mn_output",
                                                "aosrig", "jpeg"};
    for (int i = 0; i < OP_COUNT; i++) {
        snprintf(f->dirs[i], PATH_CAP, "%s/%d", root, i);
        if (mkdir(f->dirs[i], 0777) != 0 && errno != EEXIST)
            fail_msg("cannot make %s", f->dirs[i]);
        op *o = &f->ops[i];
        memset(o, 0, sizeof *o);
        o->name = names[i];
        o->dir = f->dirs[i];
        o->model = f->model;
        o->input = f->glb;
    }
    f->ops[OP_GLTF].run = run_gltf;
    f->ops[OP_GLTF].targets[0] = "m.bin";
    f->ops[OP_GLTF].targets[1] = "m.gltf";
    f->ops[OP_GLTF].target_count = 2;
    f->ops[OP_GLB].run = run_glb;
    f->ops[OP_GLB].targets[0] = "m.glb";
    f->ops[OP_GLB].target_count = 1;
    f->ops[OP_VOXEL].run = run_voxel;
    f->ops[OP_VOXEL].targets[0] = "v.bin";
    f->ops[OP_VOXEL].targets[1] = "v.gltf";
    f->ops[OP_VOXEL].targets[2] = "v.interface.json";
    f->ops[OP_VOXEL].target_count = 3;
    f->ops[OP_PNG].run = run_png;
    f->ops[OP_PNG].targets[0] = "p.png";
    f->ops[OP_PNG].target_count = 1;
    f->ops[OP_CLI].run = run_cli_render;
    f->ops[OP_CLI].targets[0] = "f_000.png";
    f->ops[OP_CLI].targets[1] = "f_001.png";
    f->ops[OP_CLI].targets[2] = "f_002.png";
    f->ops[OP_CLI].target_count = 3;
    f->ops[OP_PUBLIC].run = run_public;
    f->ops[OP_PUBLIC].targets[0] = "data.bin";
    f->ops[OP_PUBLIC].targets[1] = "index.json";
    f->ops[OP_PUBLIC].target_count = 2;
    f->ops[OP_AOSRIG].run = run_aosrig;
    f->ops[OP_AOSRIG].targets[0] = "h.aosrig";
    f->ops[OP_AOSRIG].target_count = 1;
    f->ops[OP_JPEG].run = run_jpeg;
    f->ops[OP_JPEG].targets[0] = "p.jpg";
    f->ops[OP_JPEG].target_count = 1;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    mn_test_make_temp_dir(f->root, sizeof f->root, "output");
    f->model = triangle_model();
    snprintf(f->glb, sizeof f->glb, "%s/input.glb", f->root);
    mn_error err;
    if (mn_gltf_write_file(f->model, f->glb, NULL, &err) != MN_OK)
        return -1;
    if (mn_rgba_image_create(7, 5, NULL, &png_image, &err) != MN_OK)
        return -1;
    for (size_t i = 0; i < 7u * 5u * 4u; i++)
        png_image.pixels[i] = (uint8_t)(i * 37u);
    synthetic_head head;
    synthetic_head_build(&head, &(synthetic_head_options){.coeff_count = 4});
    uint8_t *packed = NULL;
    size_t packed_size = 0;
    mn_status st = synthetic_head_pack(&head, &packed, &packed_size, NULL);
    synthetic_head_free(&head);
    if (st == MN_OK)
        st = mn_aosrig_read_memory(packed, packed_size, &(mn_aosrig_read_options){.copy_input = true},
                                   &head_pack, &err);
    mn_aosrig_bytes_free(NULL, packed, packed_size);
    if (st != MN_OK)
        return -1;
    make_ops(f, f->root);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    mn_rgba_image_free(&png_image);
    mn_aosrig_free(head_pack);
    mn_model_free(f->model);
    mn_test_remove_tree(f->root);
    free(f);
    return 0;
}

/* ---- cases ----------------------------------------------------------------------------------------- */

static void test_every_failing_call_keeps_old_files(void **state)
{
    fixture *f = *state;
    uint64_t total = 0;
    for (int i = 0; i < OP_COUNT; i++)
        for (unsigned flags = 0; flags <= MNI_OUTPUT_TEST_NAMED; flags += MNI_OUTPUT_TEST_NAMED)
            total += fault_loop(&f->ops[i], flags, true);
    print_message("%llu failure points in all\n", (unsigned long long)total);
}

static void test_every_failing_call_leaves_no_new_file(void **state)
{
    fixture *f = *state;
    fault_loop(&f->ops[OP_GLTF], 0, false);
    fault_loop(&f->ops[OP_VOXEL], 0, false);
    fault_loop(&f->ops[OP_CLI], MNI_OUTPUT_TEST_NAMED, false);
}

static void test_a_kill_leaves_whole_files_in_order(void **state)
{
    fixture *f = *state;
    kill_loop(&f->ops[OP_GLTF]);
    kill_loop(&f->ops[OP_GLB]);
    kill_loop(&f->ops[OP_VOXEL]);
    kill_loop(&f->ops[OP_CLI]);
    kill_loop(&f->ops[OP_AOSRIG]);
    kill_loop(&f->ops[OP_JPEG]);
}

/* The reported case: the .gltf cannot be replaced after its .bin was renamed. */
static void test_gltf_that_cannot_be_replaced_keeps_old_bin(void **state)
{
    fixture *f = *state;
    const op *o = &f->ops[OP_GLTF];
    char bin[PATH_CAP], gltf[PATH_CAP];
    path_in(bin, o, "m.bin");
    path_in(gltf, o, "m.gltf");
    unlink(gltf);
    assert_int_equal(mkdir(gltf, 0777), 0);   /* rename(file, folder) fails: EISDIR */
    assert_true(write_plain(bin, "old m.bin\n", 10));
    mn_error err;
    mni_output_test_inject(0, 0, 0);
    assert_int_equal(mn_gltf_write_file(o->model, gltf, NULL, &err), MN_IO);
    const char *trace;
    mni_output_test_calls(&trace);
    assert_non_null(strstr(trace, "rr"));   /* the .bin was renamed, then the .gltf failed */
    assert_non_null(strstr(err.message, "m.gltf"));
    blob b = read_blob(bin);
    assert_true(b.exists && b.size == 10 && memcmp(b.data, "old m.bin\n", 10) == 0);
    free(b.data);
    const char *keep[] = {"m.bin", "m.gltf"};
    char first[256];
    assert_int_equal(strays(o->dir, keep, 2, first, sizeof first), 0);
    assert_int_equal(rmdir(gltf), 0);
}

/* A set longer than the descriptors it keeps open (64): all or nothing still. */
static void test_long_set_is_all_or_nothing(void **state)
{
    fixture *f = *state;
    char dir[600];
    snprintf(dir, sizeof dir, "%s/long", f->root);
    assert_int_equal(mkdir(dir, 0777), 0);
    enum { FILES = 70 };
    char path[FILES][PATH_CAP];
    for (int i = 0; i < FILES; i++) {
        snprintf(path[i], PATH_CAP, "%s/long_%02d.txt", dir, i);
        assert_true(write_plain(path[i], "old\n", 4));
    }
    /* Fail the last rename: the 69 files already renamed are put back. */
    for (int pass = 0; pass < 2; pass++) {
        mni_output_test_inject(0, 0, 0);
        mn_output *set = NULL;
        assert_int_equal(mn_output_begin(NULL, &set, NULL), MN_OK);
        for (int i = 0; i < FILES; i++)
            assert_int_equal(mn_output_write_file(set, path[i], "new\n", 4, NULL), MN_OK);
        if (pass == 0) {
            /* After the writes, commit calls: b per file, l for the 64 still unnamed, r per file. */
            const char *trace;
            uint64_t last_rename = (uint64_t)FILES + 64u + FILES;
            mni_output_test_inject(last_rename, EIO, 0);
            mn_error err;
            assert_int_equal(mn_output_commit(set, &err), MN_IO);
            mni_output_test_calls(&trace);
            assert_int_equal(trace[last_rename - 1], 'r');
        } else {
            assert_int_equal(mn_output_commit(set, NULL), MN_OK);
        }
        mni_output_test_inject(0, 0, 0);
        for (int i = 0; i < FILES; i++) {
            blob b = read_blob(path[i]);
            assert_true(b.exists && b.size == 4);
            assert_memory_equal(b.data, pass == 0 ? "old\n" : "new\n", 4);
            free(b.data);
        }
        char first[256];
        const char *keep[FILES];
        for (int i = 0; i < FILES; i++)
            keep[i] = strrchr(path[i], '/') + 1;
        assert_int_equal(strays(dir, keep, FILES, first, sizeof first), 0);
    }
    for (int i = 0; i < FILES; i++)
        unlink(path[i]);
}

/* ---- modes ------------------------------------------------------------------------------------------ */

static mode_t mode_of(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        fail_msg("cannot stat %s: %s", path, strerror(errno));
    return st.st_mode & 07777;
}

/* Every target of o: its mode, which must be `want`; the first that differs fails the test. */
static void expect_modes(const op *o, mode_t want, mode_t mask, unsigned flags)
{
    for (int i = 0; i < o->target_count; i++) {
        char path[PATH_CAP];
        path_in(path, o, o->targets[i]);
        mode_t got = mode_of(path);
        if (got != want)
            fail_msg("%s (%s, umask %03o): %s has mode %04o, expected %04o", o->name, mode_name(flags),
                     (unsigned)mask, o->targets[i], (unsigned)got, (unsigned)want);
    }
}

/*
 * One rule for every file the library and the command write: mode 0666 less
 * the umask, as open(O_CREAT, 0666) would give, whichever temporary file
 * (unnamed or named) carried it and whatever mode the target had before
 * (0600 here, the mode mkstemp gives).  Every writer: .aosrig, .glb,
 * .gltf + .bin, PNG, JPEG, the voxel export (.gltf, .bin, .interface.json), a
 * render sequence, the public set.
 */
static void test_every_file_written_is_0666_less_the_umask(void **state)
{
    fixture *f = *state;
    static const mode_t masks[] = {022, 027, 077};
    mode_t saved = umask(022);
    for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++)
        for (int i = 0; i < OP_COUNT; i++)
            for (unsigned flags = 0; flags <= MNI_OUTPUT_TEST_NAMED; flags += MNI_OUTPUT_TEST_NAMED) {
                const op *o = &f->ops[i];
                umask(masks[m]);
                set_old(o);
                for (int t = 0; t < o->target_count; t++) {
                    char path[PATH_CAP];
                    path_in(path, o, o->targets[t]);
                    assert_int_equal(chmod(path, 0600), 0);
                }
                mni_output_test_inject(0, 0, flags);
                mn_status st = o->run(o);
                if (st != MN_OK)
                    fail_msg("%s (%s): %s", o->name, mode_name(flags), mn_status_name(st));
                expect_modes(o, 0666 & ~masks[m], masks[m], flags);
                remove_targets(o);   /* and once more where no target was there */
                mni_output_test_inject(0, 0, flags);
                assert_int_equal(o->run(o), MN_OK);
                expect_modes(o, 0666 & ~masks[m], masks[m], flags);
            }
    umask(saved);
}

/*
 * A target put back after a failed commit is as it was, its mode included:
 * the .bin of a .gltf + .bin set is renamed first, the .gltf's rename fails,
 * and the old .bin (mode 0600) comes back with mode 0600.
 */
static void test_a_target_put_back_keeps_its_mode(void **state)
{
    fixture *f = *state;
    const op *o = &f->ops[OP_GLTF];
    mode_t saved = umask(022);
    for (unsigned flags = 0; flags <= MNI_OUTPUT_TEST_NAMED; flags += MNI_OUTPUT_TEST_NAMED) {
        set_old(o);
        char bin[PATH_CAP], gltf[PATH_CAP];
        path_in(bin, o, o->targets[0]);
        path_in(gltf, o, o->targets[1]);
        assert_int_equal(chmod(bin, 0600), 0);
        assert_int_equal(chmod(gltf, 0640), 0);
        /* find the second rename in a clean run's trace */
        mni_output_test_inject(0, 0, flags);
        assert_int_equal(o->run(o), MN_OK);
        const char *trace;
        uint64_t calls = mni_output_test_calls(&trace), second = 0;
        for (uint64_t n = 0, renames = 0; n < calls && !second; n++)
            if (trace[n] == 'r' && ++renames == 2)
                second = n + 1;
        assert_true(second > 0);
        set_old(o);
        assert_int_equal(chmod(bin, 0600), 0);
        assert_int_equal(chmod(gltf, 0640), 0);
        mni_output_test_inject(second, EIO, flags);
        assert_int_not_equal(o->run(o), MN_OK);
        blob b = read_blob(bin);
        assert_true(b.exists && b.size == strlen("old m.bin\n") && memcmp(b.data, "old m.bin\n", b.size) == 0);
        free(b.data);
        assert_int_equal(mode_of(bin), 0600);
        assert_int_equal(mode_of(gltf), 0640);
    }
    mni_output_test_inject(0, 0, 0);
    umask(saved);
}

/* ---- a full disk ------------------------------------------------------------------------------------ */

static bool write_text_file(const char *path, const char *text)
{
    return write_plain(path, text, strlen(text));
}

/* Become root of a user namespace with a mount namespace of its own; false (why on stderr) when not allowed. */
static bool enter_namespaces(void)
{
    uid_t uid = getuid();
    gid_t gid = getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
        fprintf(stderr, "test_output: full disk skipped: unshare: %s\n", strerror(errno));
        return false;
    }
    char map[64];
    snprintf(map, sizeof map, "0 %u 1\n", (unsigned)uid);
    bool ok = write_text_file("/proc/self/setgroups", "deny\n") && write_text_file("/proc/self/uid_map", map);
    snprintf(map, sizeof map, "0 %u 1\n", (unsigned)gid);
    ok = ok && write_text_file("/proc/self/gid_map", map) && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0;
    if (!ok)
        fprintf(stderr, "test_output: full disk skipped: cannot map ids or make mounts private\n");
    return ok;
}

/* Fill dir's file system but for about `room` bytes: the filler file's path into filler. */
static bool fill(const char *dir, size_t room, char *filler)
{
    snprintf(filler, PATH_CAP, "%s/filler", dir);
    int fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0)
        return false;
    static uint8_t chunk[4096];
    off_t size = 0;
    for (;;) {
        ssize_t n = write(fd, chunk, sizeof chunk);
        if (n <= 0)
            break;
        size += n;
    }
    bool ok = ftruncate(fd, size > (off_t)room ? size - (off_t)room : 0) == 0;
    close(fd);
    return ok;
}

/* One operation on the full tmpfs at many levels of room; 0, or 1 with the reason on stderr. */
static int full_disk_op(const op *o, unsigned flags, int *failures)
{
    blob old[MAX_TARGETS], fresh[MAX_TARGETS];
    char why[512], filler[PATH_CAP];
    set_old(o);
    snapshot(o, old);
    mni_output_test_inject(0, 0, flags);
    if (o->run(o) != MN_OK) {
        fprintf(stderr, "test_output: %s: the write failed on an empty tmpfs\n", o->name);
        return 1;
    }
    snapshot(o, fresh);
    size_t need = 0;
    for (int i = 0; i < o->target_count; i++)
        need += fresh[i].size;
    int rc = 0;
    for (size_t room = 0; rc == 0 && room <= need + 3 * 4096; room += 1024) {
        set_old(o);
        if (!fill(o->dir, room, filler)) {
            fprintf(stderr, "test_output: cannot fill the tmpfs\n");
            rc = 1;
            break;
        }
        mn_error err;
        memset(&err, 0, sizeof err);
        mn_status st = o->run(o);
        bool ok = st == MN_OK ? state_is(o, fresh, "filler", why, sizeof why)
                              : state_is(o, old, "filler", why, sizeof why);
        if (!ok) {
            fprintf(stderr, "test_output: %s (%s) with %zu bytes free: %s: %s\n", o->name, mode_name(flags), room,
                    st == MN_OK ? "written" : "failed", why);
            rc = 1;
        }
        *failures += st != MN_OK;
        unlink(filler);
    }
    free_blobs(old, o->target_count);
    free_blobs(fresh, o->target_count);
    return rc;
}

static int full_disk_child(const fixture *f)
{
    if (!enter_namespaces())
        return 77;
    char mnt[600];
    snprintf(mnt, sizeof mnt, "%s/tmpfs", f->root);
    if (mkdir(mnt, 0777) != 0 || mount("tmpfs", mnt, "tmpfs", 0, "size=2m") != 0) {
        fprintf(stderr, "test_output: full disk skipped: mount tmpfs: %s\n", strerror(errno));
        return 77;
    }
    fixture g = *f;
    make_ops(&g, mnt);
    int rc = 0;
    for (int i = 0; i < OP_COUNT && rc == 0; i++) {
        int failures = 0;
        for (unsigned flags = 0; flags <= MNI_OUTPUT_TEST_NAMED && rc == 0; flags += MNI_OUTPUT_TEST_NAMED)
            rc = full_disk_op(&g.ops[i], flags, &failures);
        if (rc == 0 && failures == 0) {
            fprintf(stderr, "test_output: %s never failed on a full tmpfs\n", g.ops[i].name);
            rc = 1;
        }
        if (rc == 0)
            fprintf(stderr, "test_output: full tmpfs: %s failed cleanly at %d levels of free space\n",
                    g.ops[i].name, failures);
    }
    umount(mnt);
    return rc;
}

static void test_full_disk_keeps_old_files(void **state)
{
    fixture *f = *state;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(full_disk_child(f));
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) == 77) {
        print_message("full disk: skipped (no user or mount namespace here)\n");
        skip();
    }
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_failing_call_keeps_old_files),
        cmocka_unit_test(test_every_failing_call_leaves_no_new_file),
        cmocka_unit_test(test_a_kill_leaves_whole_files_in_order),
        cmocka_unit_test(test_gltf_that_cannot_be_replaced_keeps_old_bin),
        cmocka_unit_test(test_long_set_is_all_or_nothing),
        cmocka_unit_test(test_full_disk_keeps_old_files),
        cmocka_unit_test(test_every_file_written_is_0666_less_the_umask),
        cmocka_unit_test(test_a_target_put_back_keeps_its_mode),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
