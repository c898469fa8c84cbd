/*
 * bench_render: the software rasteriser on a 100k-triangle textured model
 * (a UV sphere, 224 × 224 quads, 512 × 512 checker texture, bilinear,
 * per-vertex normals) at 1024 × 1024 with 2 × 2 supersampling, framed by the
 * default three-quarter camera.  Cases:
 *
 *   empty      the same draw of a scene with no triangles: clearing and
 *              averaging 4 M samples, the fixed cost of any frame
 *   sphere_1t  the model on one thread
 *   sphere     the model on every core (one thread per online CPU)
 *
 * Each line gives ms per frame (best and median wall clock, and the process's CPU time per
 * frame, every thread's: on a loaded machine the wall clock also counts waiting for a core),
 * triangles per second, and
 * memcpy of the sample buffer's bytes (colour and depth, 32 MiB) measured in
 * the same run as the yardstick.  No target: a report.
 *
 *     bench_render [runs]     (default 5)
 */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <marionette/render.h>

#include <unistd.h>

#define SIDE 1024u
#define SEGMENTS 224u          /* 224 × 224 quads × 2 = 100,352 triangles */
#define TEX 512u

typedef struct model {
    float *positions, *normals, *uv;
    uint32_t *indices;
    uint32_t vertex_count, index_count;
    uint8_t *texels;
    mn_render_mesh mesh;
    mn_render_material material;
    mn_render_texture texture;
    mn_render_scene scene;
} model;

static bool model_make(model *m)
{
    uint32_t ring = SEGMENTS + 1;
    m->vertex_count = ring * ring;
    m->index_count = SEGMENTS * SEGMENTS * 6;
    m->positions = malloc(sizeof(float) * 3 * m->vertex_count);
    m->normals = malloc(sizeof(float) * 3 * m->vertex_count);
    m->uv = malloc(sizeof(float) * 2 * m->vertex_count);
    m->indices = malloc(sizeof(uint32_t) * m->index_count);
    m->texels = malloc(4u * TEX * TEX);
    if (!m->positions || !m->normals || !m->uv || !m->indices || !m->texels)
        return false;
    for (uint32_t i = 0; i < ring; i++)
        for (uint32_t j = 0; j < ring; j++) {
            float theta = 3.14159265f * (float)i / SEGMENTS;        /* from the north pole */
            float phi = 6.2831853f * (float)j / SEGMENTS;
            uint32_t v = i * ring + j;
            float n[3] = {sinf(theta) * sinf(phi), cosf(theta), sinf(theta) * cosf(phi)};
            memcpy(m->normals + 3 * v, n, sizeof n);
            memcpy(m->positions + 3 * v, n, sizeof n);
            m->uv[2 * v] = 4.0f * (float)j / SEGMENTS;
            m->uv[2 * v + 1] = 2.0f * (float)i / SEGMENTS;
        }
    uint32_t *o = m->indices;
    for (uint32_t i = 0; i < SEGMENTS; i++)
        for (uint32_t j = 0; j < SEGMENTS; j++) {
            uint32_t a = i * ring + j, b = a + ring;   /* b is the next ring south */
            *o++ = a; *o++ = b; *o++ = b + 1;
            *o++ = a; *o++ = b + 1; *o++ = a + 1;
        }
    for (uint32_t y = 0; y < TEX; y++)
        for (uint32_t x = 0; x < TEX; x++) {
            bool dark = ((x / 32) + (y / 32)) & 1;
            uint8_t *p = m->texels + 4 * (y * TEX + x);
            p[0] = dark ? 40 : 230;
            p[1] = dark ? 90 : 200;
            p[2] = dark ? 160 : 120;
            p[3] = 255;
        }
    m->texture = (mn_render_texture){TEX, TEX, m->texels, MN_WRAP_REPEAT, MN_WRAP_REPEAT, false};
    m->material = (mn_render_material){.base_color = {1, 1, 1, 1}, .texture = 0,
                                       .alpha_mode = MN_ALPHA_OPAQUE, .alpha_cutoff = 0.5f,
                                       .emissive_texture = MN_NONE};
    m->mesh = (mn_render_mesh){.vertex_count = m->vertex_count, .positions = m->positions,
                               .normals = m->normals, .uv = {m->uv, NULL},
                               .indices = m->indices, .index_count = m->index_count,
                               .material = 0};
    m->scene = (mn_render_scene){&m->mesh, 1, &m->material, 1, &m->texture, 1, NULL, 0};
    return true;
}

static void model_free(model *m)
{
    free(m->positions);
    free(m->normals);
    free(m->uv);
    free(m->indices);
    free(m->texels);
}

/* CPU time of the whole process (every thread), ms: on a shared machine it shows the work a
   frame takes when the wall clock also counts waiting for a core. */
static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

typedef struct draw_ctx {
    mn_renderer *renderer;
    const mn_render_scene *scene;
    mn_render_camera camera;
    mn_rgba_image image;
} draw_ctx;

static bool draw_body(void *p)
{
    draw_ctx *c = p;
    return mn_renderer_draw(c->renderer, c->scene, &c->camera, &c->image, NULL) == MN_OK;
}

static bool run_case(const char *name, const mn_render_scene *scene, uint32_t threads, int runs,
                     bench_timing memcpy_t, size_t sample_bytes)
{
    draw_ctx c = {.scene = scene};
    mn_render_options o = {.width = SIDE, .height = SIDE, .supersample = 2, .threads = threads,
                           .max_triangles = mn_render_scene_triangle_count(scene) + 1,
                           .background = {0.2f, 0.2f, 0.25f, 1.0f}};
    mn_error err;
    if (mn_renderer_create(&o, &c.renderer, &err) != MN_OK ||
        mn_rgba_image_create(SIDE, SIDE, NULL, &c.image, &err) != MN_OK) {
        fprintf(stderr, "bench_render: %s\n", err.message);
        return false;
    }
    /* Frame the sphere whatever the scene, so both draws use one camera. */
    const float lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};
    mn_render_view view = {.yaw = MN_RENDER_DEFAULT_YAW, .pitch = MN_RENDER_DEFAULT_PITCH};
    mn_render_camera_frame(lo, hi, &view, 1.0f, &c.camera, NULL);
    draw_body(&c);   /* warm the caches and the threads */
    double cpu0 = cpu_ms();
    bench_timing t = bench_run(runs, draw_body, NULL, &c);
    double cpu_per_frame = t.runs > 0 ? (cpu_ms() - cpu0) / t.runs : 0.0;
    size_t tris = mn_render_scene_triangle_count(scene);
    size_t covered = 0;
    for (size_t i = 0; i < (size_t)SIDE * SIDE; i++)
        covered += c.image.pixels[4 * i] != c.image.pixels[0];
    bench_line line;
    bench_line_begin(&line, "render", name);
    bench_line_u64(&line, "width", SIDE);
    bench_line_u64(&line, "height", SIDE);
    bench_line_u64(&line, "supersample", 2);
    bench_line_u64(&line, "threads", threads);
    bench_line_u64(&line, "triangles", tris);
    bench_line_u64(&line, "covered_pixels", covered);
    bench_line_num(&line, "ms", t.best_ms);
    bench_line_num(&line, "median_ms", t.median_ms);
    bench_line_num(&line, "cpu_ms", cpu_per_frame);
    bench_line_i64(&line, "runs", t.runs);
    bench_line_num(&line, "mtris_per_s", t.best_ms > 0 ? (double)tris / t.best_ms / 1e3 : 0.0);
    bench_line_num(&line, "fps", t.best_ms > 0 ? 1e3 / t.best_ms : 0.0);
    bench_line_u64(&line, "sample_bytes", sample_bytes);
    bench_line_num(&line, "memcpy_sample_bytes_ms", memcpy_t.best_ms);
    bench_line_num(&line, "ratio_to_memcpy", memcpy_t.best_ms > 0 ? t.best_ms / memcpy_t.best_ms : 0.0);
    bench_line_bool(&line, "ok", t.ok);
    bench_line_print(&line);
    mn_rgba_image_free(&c.image);
    mn_renderer_free(c.renderer);
    return t.ok && (tris == 0 || covered > (size_t)SIDE * SIDE / 10);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1 || runs > BENCH_MAX_RUNS)
        runs = 5;
    model m = {0};
    if (!model_make(&m)) {
        fprintf(stderr, "bench_render: out of memory\n");
        return 1;
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    uint32_t all = cpus < 1 ? 1u : cpus > 64 ? 64u : (uint32_t)cpus;
    size_t sample_bytes = (size_t)SIDE * SIDE * 4u * 8u;   /* 4 samples × (RGBA8 + float depth) */
    bench_timing memcpy_t = bench_memcpy_ms(sample_bytes, runs);
    mn_render_scene empty = {NULL, 0, NULL, 0, NULL, 0, NULL, 0};
    bool ok = run_case("empty", &empty, all, runs, memcpy_t, sample_bytes) &&
              run_case("sphere_1t", &m.scene, 1, runs, memcpy_t, sample_bytes) &&
              run_case("sphere", &m.scene, all, runs, memcpy_t, sample_bytes);
    model_free(&m);
    return ok ? 0 : 1;
}
