/*
 * The library starts no thread unless the caller asks for more than one
 * (docs/architecture.md, Threads; marionette/pool.h): a pool, a renderer and
 * a splat skinner made with 0 or 1 threads start none, with 2 exactly one
 * while they live and none after they are freed, and an OBJ read of a text
 * big enough to be split starts none with the default options.
 *
 * How threads are counted: on Linux /proc/self/task lists one entry per
 * thread of this process (cmocka starts none, so the count before a call is
 * the test's own).  A thread that has been joined can stay listed for a
 * moment (the kernel wakes pthread_join before it unlinks the task), so a
 * count expected to fall back is polled until it does, within seconds; a
 * started thread is listed as soon as pthread_create returns, so counts
 * expected to rise are read once.  Elsewhere the tests are skipped.
 *
 * An OBJ read keeps no thread after it returns, so its count is sampled
 * from inside the read: the options' allocator counts /proc/self/task on
 * every allocation and keeps the highest count it saw.  Every step of the
 * split read allocates while its threads live (each piece grows its own
 * arrays on the thread parsing it), so the same read asked for two threads
 * must show one more, which the test checks too: the sampler is seen to
 * catch the reader's threads, and not to see them with the defaults.
 *
 * A sanitizer runtime (TSan) starts a helper thread of its own at the first
 * pthread_create of the process; the group's setup starts and joins one
 * thread first, so that such a helper is already in every baseline.
 */
#define _POSIX_C_SOURCE 200809L /* opendir, nanosleep under -std=c11 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/character/splat.h>
#include <marionette/obj.h>
#include <marionette/pool.h>
#include <marionette/render.h>

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Threads of this process now; 0 when /proc/self/task cannot be read. */
static unsigned task_count(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return 0;
    unsigned n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* The count once it has fallen to `want`, polling for up to 5 s (see the top). */
static unsigned settled_count(unsigned want)
{
    unsigned n = task_count();
    for (int i = 0; i < 5000 && n != want; i++) {
        nanosleep(&(struct timespec){0, 1000000}, NULL);
        n = task_count();
    }
    return n;
}

static unsigned baseline(void)
{
    unsigned n = task_count();
    if (n == 0)
        skip();   /* no /proc/self/task: not Linux */
    return n;
}

/* ---- pools ----------------------------------------------------------------------- */

static void a_pool_starts_threads_only_above_one(void **state)
{
    (void)state;
    unsigned before = baseline();
    for (uint32_t threads = 0; threads <= 3; threads++) {
        mn_pool *pool = NULL;
        assert_int_equal(mn_pool_create(threads, NULL, &pool, NULL), MN_OK);
        unsigned started = threads > 1 ? threads - 1 : 0;
        assert_int_equal(task_count(), before + started);
        mn_pool_free(pool);
        assert_int_equal(settled_count(before), before);
    }
}

/* ---- the renderer -------------------------------------------------------------------- */

static const float tri_positions[9] = {-0.5f, -0.5f, 0, 0.5f, -0.5f, 0, 0, 0.5f, 0};

static mn_render_mesh one_triangle(void)
{
    mn_render_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    mesh.vertex_count = 3;
    mesh.positions = tri_positions;
    mesh.material = MN_NONE;
    return mesh;
}

/* Make a renderer with `o`, draw a triangle into img, check the thread count meanwhile. */
static void draw_with(const mn_render_options *o, mn_rgba_image *img, unsigned want_threads)
{
    mn_render_mesh mesh = one_triangle();
    mn_render_scene scene = {&mesh, 1, NULL, 0, NULL, 0, NULL, 0};
    float lo[3], hi[3];
    mn_render_bounds_reset(lo, hi);
    mn_render_scene_bounds(&scene, lo, hi);
    mn_render_camera cam;
    assert_int_equal(mn_render_camera_frame(lo, hi, &(mn_render_view){0}, 1.0f, &cam, NULL), MN_OK);
    mn_renderer *r = NULL;
    mn_error err;
    assert_int_equal(mn_renderer_create(o, &r, &err), MN_OK);
    assert_int_equal(task_count(), want_threads);
    assert_int_equal(mn_renderer_draw(r, &scene, &cam, img, &err), MN_OK);
    assert_int_equal(task_count(), want_threads);
    mn_renderer_free(r);
}

static void a_renderer_starts_threads_only_above_one(void **state)
{
    (void)state;
    unsigned before = baseline();
    mn_rgba_image one, img;
    assert_int_equal(mn_rgba_image_create(32, 32, NULL, &one, NULL), MN_OK);
    assert_int_equal(mn_rgba_image_create(32, 32, NULL, &img, NULL), MN_OK);
    mn_render_options o = {.width = 32, .height = 32, .max_triangles = 1, .threads = 1};
    draw_with(&o, &one, before);
    for (uint32_t threads = 0; threads <= 2; threads++) {
        o.threads = threads;
        draw_with(&o, &img, threads == 2 ? before + 1 : before);
        assert_int_equal(settled_count(before), before);
        assert_memory_equal(img.pixels, one.pixels, 32 * 32 * 4);
    }
    /* On a caller's pool: the pool's thread and none of the renderer's own. */
    mn_pool *pool = NULL;
    assert_int_equal(mn_pool_create(2, NULL, &pool, NULL), MN_OK);
    o.threads = 0;
    o.pool = pool;
    draw_with(&o, &img, before + 1);
    assert_memory_equal(img.pixels, one.pixels, 32 * 32 * 4);
    assert_int_equal(task_count(), before + 1);   /* freeing the renderer left the pool alone */
    o.threads = 2;   /* a pool or threads of its own, not both */
    mn_renderer *r = NULL;
    assert_int_equal(mn_renderer_create(&o, &r, NULL), MN_INVALID_ARGUMENT);
    assert_null(r);
    mn_pool_free(pool);
    assert_int_equal(settled_count(before), before);
    mn_rgba_image_free(&one);
    mn_rgba_image_free(&img);
}

/* ---- the splat skinner ------------------------------------------------------------------ */

enum { SPLATS = 5000 };   /* more than one chunk, so that two threads share a run */

static void a_splat_skinner_starts_threads_only_above_one(void **state)
{
    (void)state;
    static uint16_t joints[SPLATS];
    static float weights[SPLATS], centres[3 * SPLATS], rotations[4 * SPLATS];
    static float out_c[3 * SPLATS], out_r[4 * SPLATS];
    for (int i = 0; i < SPLATS; i++) {
        weights[i] = 1.0f;
        centres[3 * i] = (float)i;
        rotations[4 * i + 3] = 1.0f;
    }
    const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    mn_splat_skin_job job = {.count = SPLATS, .influences = 1, .joints = joints,
                             .weights = weights, .palette = identity, .palette_count = 1,
                             .centres = centres, .rotations = rotations,
                             .out_centres = out_c, .out_rotations = out_r};
    unsigned before = baseline();
    for (uint32_t threads = 0; threads <= 2; threads++) {
        mn_splat_skinner *s = NULL;
        assert_int_equal(mn_splat_skinner_create(threads, NULL, &s, NULL), MN_OK);
        unsigned want = threads == 2 ? before + 1 : before;
        assert_int_equal(task_count(), want);
        memset(out_c, 0, sizeof out_c);
        assert_int_equal(mn_splat_skinner_run(s, &job, MN_SIMD_BEST), MN_OK);
        assert_memory_equal(out_c, centres, sizeof centres);
        assert_int_equal(task_count(), want);
        mn_splat_skinner_free(s);
        assert_int_equal(settled_count(before), before);
    }
}

/* ---- an OBJ read -------------------------------------------------------------------- */

/* An allocator that samples the thread count on every allocation (see the top). */
typedef struct sampling {
    atomic_uint most;
} sampling;

static void *sampling_alloc(void *user, size_t size)
{
    sampling *s = user;
    unsigned n = task_count();
    unsigned seen = atomic_load(&s->most);
    while (n > seen && !atomic_compare_exchange_weak(&s->most, &seen, n))
        ;
    return malloc(size);
}

static void sampling_free(void *user, void *ptr, size_t size)
{
    (void)user, (void)size;
    free(ptr);
}

/* Over 8 MB of vertices and triangles: two threads would each read half (4 MB a thread). */
static char *big_obj(size_t *size)
{
    size_t cap = (size_t)10 << 20, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (unsigned i = 0; n < ((size_t)9 << 20); i++) {
        n += (size_t)snprintf(text + n, cap - n, "v %u.5 %u.25 0.125\n", i % 1000, i / 1000);
        if (i % 3 == 2)
            n += (size_t)snprintf(text + n, cap - n, "f -3 -2 -1\n");
    }
    *size = n;
    return text;
}

/* Read the text with `threads`; returns the object and the most threads seen during the read. */
static mn_obj *read_sampled(const char *text, size_t size, uint32_t threads, unsigned *most)
{
    sampling s;
    atomic_init(&s.most, 0u);
    mn_obj_options o = {.skip_libraries = true, .threads = threads,
                        .allocator = {sampling_alloc, sampling_free, &s}};
    mn_obj *obj = NULL;
    assert_int_equal(mn_obj_read_memory(text, size, &o, &obj, NULL), MN_OK);
    *most = atomic_load(&s.most);
    return obj;
}

static void an_obj_read_starts_no_thread_by_default(void **state)
{
    (void)state;
    size_t size;
    char *text = big_obj(&size);
    unsigned before = baseline();
    unsigned most_default, most_one, most_two;
    mn_obj *by_default = read_sampled(text, size, 0, &most_default);
    mn_obj *one = read_sampled(text, size, 1, &most_one);
    mn_obj *two = read_sampled(text, size, 2, &most_two);
    assert_int_equal(most_default, before);
    assert_int_equal(most_one, before);
    assert_int_equal(most_two, before + 1);   /* the sampler does see a reader's thread */
    assert_int_equal(settled_count(before), before);
    /* The same object all three ways. */
    const mn_obj *objs[2] = {by_default, two};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(objs[k]->group_count, one->group_count);
        assert_int_equal(objs[k]->position_count, one->position_count);
        assert_memory_equal(objs[k]->positions, one->positions,
                            (size_t)one->position_count * 3 * sizeof(float));
        for (uint32_t g = 0; g < one->group_count; g++) {
            assert_int_equal(objs[k]->groups[g].vertex_count, one->groups[g].vertex_count);
            assert_memory_equal(objs[k]->groups[g].verts, one->groups[g].verts,
                                (size_t)one->groups[g].vertex_count * 8 * sizeof(float));
        }
    }
    mn_obj_free(by_default);
    mn_obj_free(one);
    mn_obj_free(two);
    free(text);
}

/* Held by the setup while it counts, so that its thread is still there to be counted. */
static pthread_mutex_t hold = PTHREAD_MUTEX_INITIALIZER;

static void *wait_for_the_count(void *arg)
{
    pthread_mutex_lock(&hold);
    pthread_mutex_unlock(&hold);
    return arg;
}

/* Start one thread before any baseline (see the top), count it, wait until it is gone. */
static int start_the_runtime_helpers(void **state)
{
    (void)state;
    pthread_t t;
    pthread_mutex_lock(&hold);
    if (pthread_create(&t, NULL, wait_for_the_count, NULL) != 0)
        return -1;
    unsigned with_it = task_count();   /* the thread, and any helper started with it */
    pthread_mutex_unlock(&hold);
    if (pthread_join(t, NULL) != 0)
        return -1;
    return with_it == 0 || settled_count(with_it - 1) == with_it - 1 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_pool_starts_threads_only_above_one),
        cmocka_unit_test(a_renderer_starts_threads_only_above_one),
        cmocka_unit_test(a_splat_skinner_starts_threads_only_above_one),
        cmocka_unit_test(an_obj_read_starts_no_thread_by_default),
    };
    return cmocka_run_group_tests(tests, start_the_runtime_helpers, NULL);
}
