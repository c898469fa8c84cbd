/*
 * bench_obj — streaming a 100 MB OBJ, against the goal that it reads at no
 * less than a tenth of memcpy's bandwidth.
 *
 * The OBJ is generated in memory: a grid of 1,000 columns and as many rows
 * as make about 100 MB, each vertex with `v` (six decimals), `vt` and `vn`,
 * then one quad per grid cell as `f v/vt/vn ×4` in four `usemtl` bands,
 * all positive indices, the way exporters write big meshes.
 *
 * Cases (JSON lines, bench.h):
 *   obj_text      the generated text: bytes, elements, faces (nothing timed)
 *   parse_memory  mn_obj_read_memory on the text: parse, triangulate (fan
 *                 after the convexity test), write the stride-8 soup, with
 *                 the text split over one thread per CPU, at most 8
 *                 (`threads`, passed as mn_obj_options.threads); the
 *                 `bytes` are the OBJ text, beside memcpy of as many
 *                 bytes; target_ratio 0.1 and
 *                 within_target say whether that goal was met in
 *                 this run
 *   parse_one_thread  the same with mn_obj_options.threads = 1: the one-pass
 *                 reader, the reference the split read must equal
 *   checks        the split read and the one-thread read give the same
 *                 object, bit for bit (groups, soup, arrays, bounds,
 *                 warnings); the bench fails when they differ
 *   read_file     mn_obj_read_file of the same text written to $TMPDIR (page
 *                 cache warm: this is the library, not the disk)
 *   peak_memory   one parse through a counting allocator: the library's peak
 *                 live bytes, beside the text size and the soup size
 *
 *     bench_obj [runs]     (default 5)
 */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <marionette/obj.h>

#include <unistd.h>

static bool same_floats(const float *a, const float *b, size_t n)
{
    return n == 0 || memcmp(a, b, n * sizeof(float)) == 0;
}

/* Whether two reads of the same text gave the same object, bit for bit. */
static bool same_obj(const mn_obj *a, const mn_obj *b)
{
    if (a->group_count != b->group_count || a->position_count != b->position_count ||
        a->texcoord_count != b->texcoord_count || a->normal_count != b->normal_count ||
        a->warning_count != b->warning_count || a->mtllib_count != b->mtllib_count ||
        memcmp(a->bounds_min, b->bounds_min, sizeof a->bounds_min) != 0 ||
        memcmp(a->bounds_max, b->bounds_max, sizeof a->bounds_max) != 0)
        return false;
    for (uint32_t g = 0; g < a->group_count; g++)
        if (strcmp(a->groups[g].material, b->groups[g].material) != 0 ||
            a->groups[g].vertex_count != b->groups[g].vertex_count ||
            !same_floats(a->groups[g].verts, b->groups[g].verts, 8 * (size_t)a->groups[g].vertex_count))
            return false;
    for (uint32_t w = 0; w < a->warning_count; w++)
        if (strcmp(a->warnings[w].message, b->warnings[w].message) != 0)
            return false;
    return same_floats(a->positions, b->positions, 3 * (size_t)a->position_count) &&
           same_floats(a->texcoords, b->texcoords, 2 * (size_t)a->texcoord_count) &&
           same_floats(a->normals, b->normals, 3 * (size_t)a->normal_count);
}

#define COLUMNS 1000u
#define TARGET_BYTES 100000000u
#define BANDS 4u

typedef struct text_buf {
    char *data;
    size_t size, cap;
} text_buf;

/* A fixed-point decimal with six places: what exporters print, without snprintf's cost. */
static char *put_fixed(char *o, double value)
{
    if (value < 0.0) {
        *o++ = '-';
        value = -value;
    }
    uint64_t micros = (uint64_t)(value * 1e6 + 0.5);
    uint64_t whole = micros / 1000000u, frac = micros % 1000000u;
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + whole % 10u);
        whole /= 10u;
    } while (whole);
    while (n)
        *o++ = digits[--n];
    *o++ = '.';
    for (int k = 5; k >= 0; k--) {
        o[k] = (char)('0' + frac % 10u);
        frac /= 10u;
    }
    return o + 6;
}

static char *put_uint(char *o, uint32_t v)
{
    char digits[12];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    while (n)
        *o++ = digits[--n];
    return o;
}

/* Room for one more line of at most 256 bytes. */
static bool reserve(text_buf *t)
{
    if (t->cap - t->size >= 256)
        return true;
    size_t cap = t->cap ? t->cap * 2 : (size_t)TARGET_BYTES + (TARGET_BYTES >> 3);
    char *data = realloc(t->data, cap);
    if (!data)
        return false;
    t->data = data;
    t->cap = cap;
    return true;
}

typedef struct grid {
    uint32_t rows, columns;
    uint64_t quads;
    float min[3], max[3];
} grid;

static double height(uint32_t r, uint32_t c)
{
    return 0.25 * sin(r * 0.05) * cos(c * 0.03);
}

/* The whole OBJ text into t; g gets its shape and the bounds of its written positions. */
static bool generate(text_buf *t, grid *g)
{
    const uint32_t columns = COLUMNS;
    /* About 166 bytes of text per grid vertex: its v, vt and vn lines and one f line. */
    uint32_t rows = (uint32_t)(TARGET_BYTES / (columns * 166.0));
    g->rows = rows;
    g->columns = columns;
    g->quads = (uint64_t)(rows - 1) * (columns - 1);
    for (int k = 0; k < 3; k++) {
        g->min[k] = INFINITY;
        g->max[k] = -INFINITY;
    }
    static const char header[] = "# bench_obj grid\nmtllib bench.mtl\no grid\n";
    if (!reserve(t))
        return false;
    memcpy(t->data, header, sizeof header - 1);
    t->size = sizeof header - 1;
    for (uint32_t r = 0; r < rows; r++) {
        for (uint32_t c = 0; c < columns; c++) {
            if (!reserve(t))
                return false;
            char *o = t->data + t->size;
            double p[3] = {c * 0.01 - 5.0, height(r, c), r * 0.01 - 3.0};
            *o++ = 'v';
            for (int k = 0; k < 3; k++) {
                *o++ = ' ';
                o = put_fixed(o, p[k]);
                float written = (float)(round(p[k] * 1e6) / 1e6);
                g->min[k] = fminf(g->min[k], written);
                g->max[k] = fmaxf(g->max[k], written);
            }
            memcpy(o, "\nvt ", 4);
            o = put_fixed(o + 4, (double)c / (columns - 1));
            *o++ = ' ';
            o = put_fixed(o, (double)r / (rows - 1));
            memcpy(o, "\nvn ", 4);
            /* The height field's normal (-dh/dx, 1, -dh/dz), normalised. */
            double nx = 0.75 * sin(r * 0.05) * sin(c * 0.03), nz = -1.25 * cos(r * 0.05) * cos(c * 0.03);
            double len = sqrt(nx * nx + 1.0 + nz * nz);
            o = put_fixed(o + 4, nx / len);
            *o++ = ' ';
            o = put_fixed(o, 1.0 / len);
            *o++ = ' ';
            o = put_fixed(o, nz / len);
            *o++ = '\n';
            t->size = (size_t)(o - t->data);
        }
    }
    uint32_t band_rows = (rows - 1 + BANDS - 1) / BANDS;
    for (uint32_t r = 0; r + 1 < rows; r++) {
        if (r % band_rows == 0) {
            if (!reserve(t))
                return false;
            t->size += (size_t)sprintf(t->data + t->size, "usemtl band%u\ns off\n", r / band_rows);
        }
        for (uint32_t c = 0; c + 1 < columns; c++) {
            if (!reserve(t))
                return false;
            char *o = t->data + t->size;
            uint32_t corner[4] = {r * columns + c + 1, (r + 1) * columns + c + 1,
                                  (r + 1) * columns + c + 2, r * columns + c + 2};
            *o++ = 'f';
            for (int k = 0; k < 4; k++) {
                *o++ = ' ';
                o = put_uint(o, corner[k]);
                *o++ = '/';
                o = put_uint(o, corner[k]);
                *o++ = '/';
                o = put_uint(o, corner[k]);
            }
            *o++ = '\n';
            t->size = (size_t)(o - t->data);
        }
    }
    return true;
}

/* ---- the timed bodies ------------------------------------------------------------ */

typedef struct parse_ctx {
    const text_buf *text;
    const grid *grid;
    const char *path;
    mn_obj_options options;
    mn_obj *obj;
} parse_ctx;

static bool parse_body(void *p)
{
    parse_ctx *c = p;
    mn_error err;
    return mn_obj_read_memory(c->text->data, c->text->size, &c->options, &c->obj, &err) == MN_OK;
}

static bool file_body(void *p)
{
    parse_ctx *c = p;
    mn_error err;
    return mn_obj_read_file(c->path, &c->options, &c->obj, &err) == MN_OK;
}

/* Untimed: the result must be the grid (a figure for a wrong parse means nothing). */
static bool check_and_free(void *p)
{
    parse_ctx *c = p;
    const mn_obj *o = c->obj;
    bool ok = o != NULL && o->group_count == BANDS &&
              o->position_count == c->grid->rows * c->grid->columns &&
              o->texcoord_count == o->position_count && o->normal_count == o->position_count;
    uint64_t vertices = 0;
    for (uint32_t g = 0; ok && g < o->group_count; g++)
        vertices += o->groups[g].vertex_count;
    ok = ok && vertices == 6 * c->grid->quads;
    for (int k = 0; ok && k < 3; k++)
        ok = o->bounds_min[k] == c->grid->min[k] && o->bounds_max[k] == c->grid->max[k];
    /* The first corner of the first triangle is grid vertex 0. */
    ok = ok && o->groups[0].verts[0] == -5.0f && o->groups[0].verts[6] == 0.0f && o->groups[0].verts[7] == 0.0f;
    mn_obj_free(c->obj);
    c->obj = NULL;
    return ok;
}

/* ---- peak memory ----------------------------------------------------------------- */

typedef struct peak_alloc {
    size_t live, peak;
} peak_alloc;

static void *peak_alloc_fn(void *user, size_t size)
{
    peak_alloc *a = user;
    void *p = malloc(size);
    if (p) {
        a->live += size;
        if (a->live > a->peak)
            a->peak = a->live;
    }
    return p;
}

static void peak_free_fn(void *user, void *ptr, size_t size)
{
    peak_alloc *a = user;
    if (ptr)
        a->live -= size;
    free(ptr);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1 || runs > BENCH_MAX_RUNS)
        runs = 5;
    text_buf text = {0};
    grid g;
    if (!generate(&text, &g)) {
        fprintf(stderr, "bench_obj: out of memory generating the OBJ\n");
        return 1;
    }
    bench_line line;
    bench_line_begin(&line, "obj", "obj_text");
    bench_line_u64(&line, "bytes", text.size);
    bench_line_u64(&line, "v", (uint64_t)g.rows * g.columns);
    bench_line_u64(&line, "vt", (uint64_t)g.rows * g.columns);
    bench_line_u64(&line, "vn", (uint64_t)g.rows * g.columns);
    bench_line_u64(&line, "quads", g.quads);
    bench_line_u64(&line, "triangles", 2 * g.quads);
    bench_line_u64(&line, "usemtl_groups", BANDS);
    bench_line_u64(&line, "soup_bytes", 6 * g.quads * 8 * sizeof(float));
    bench_line_print(&line);

    bench_timing memcpy_t = bench_memcpy_ms(text.size, runs);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    uint32_t threads = cpus < 1 ? 1u : cpus > 8 ? 8u : (uint32_t)cpus;
    parse_ctx ctx = {.text = &text, .grid = &g,
                     .options = {.skip_libraries = true, .threads = threads}};
    bench_timing t = bench_run(runs, parse_body, check_and_free, &ctx);
    bench_line_begin(&line, "obj", "parse_memory");
    bench_line_bool(&line, "ok", t.ok);
    bench_line_i64(&line, "threads", threads);
    bench_line_throughput(&line, text.size, t, memcpy_t);
    double ratio = t.ok && memcpy_t.best_ms > 0.0 ? memcpy_t.best_ms / t.best_ms : NAN;
    bench_line_num(&line, "target_ratio", 0.1);
    bench_line_bool(&line, "within_target", ratio >= 0.1);
    bench_line_num(&line, "mb_per_s", t.ok ? text.size / (t.best_ms * 1e3) : NAN);
    bench_line_print(&line);
    if (!t.ok) {
        fprintf(stderr, "bench_obj: parse_memory failed or gave a wrong result\n");
        return 1;
    }

    /* The one-pass reader, and the proof that the split read equals it. */
    parse_ctx one = {.text = &text, .grid = &g, .options = {.skip_libraries = true, .threads = 1}};
    bench_timing t1 = bench_run(runs, parse_body, check_and_free, &one);
    bench_line_begin(&line, "obj", "parse_one_thread");
    bench_line_bool(&line, "ok", t1.ok);
    bench_line_throughput(&line, text.size, t1, memcpy_t);
    bench_line_num(&line, "split_speedup", t.ok && t1.ok ? t1.best_ms / t.best_ms : NAN);
    bench_line_print(&line);
    mn_obj *split = NULL, *whole = NULL;
    mn_error err;
    bool same = mn_obj_read_memory(text.data, text.size, &ctx.options, &split, &err) == MN_OK &&
                mn_obj_read_memory(text.data, text.size, &one.options, &whole, &err) == MN_OK &&
                same_obj(split, whole);
    mn_obj_free(split);
    mn_obj_free(whole);
    bench_line_begin(&line, "obj", "checks");
    bench_line_bool(&line, "split_equals_one_thread", same);
    bench_line_print(&line);
    if (!t1.ok || !same) {
        fprintf(stderr, "bench_obj: the split read differs from the one-thread read\n");
        return 1;
    }

    /* read_file: the same text from a file. */
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/bench_obj_%ld.obj", dir && *dir ? dir : "/tmp", (long)getpid());
    FILE *f = fopen(path, "wb");
    bool written = f && fwrite(text.data, 1, text.size, f) == text.size;
    if (f && fclose(f) != 0)
        written = false;
    if (written) {
        ctx.path = path;
        bench_timing ft = bench_run(runs, file_body, check_and_free, &ctx);
        bench_line_begin(&line, "obj", "read_file");
        bench_line_bool(&line, "ok", ft.ok);
        bench_line_throughput(&line, text.size, ft, memcpy_t);
        bench_line_str(&line, "note", "file written just before: page cache warm");
        bench_line_print(&line);
        if (!ft.ok) {
            remove(path);
            fprintf(stderr, "bench_obj: read_file failed or gave a wrong result\n");
            return 1;
        }
    }
    remove(path);

    peak_alloc counter = {0, 0};
    ctx.options.allocator = (mn_allocator){peak_alloc_fn, peak_free_fn, &counter};
    bool ok = parse_body(&ctx) && check_and_free(&ctx);
    bench_line_begin(&line, "obj", "peak_memory");
    bench_line_bool(&line, "ok", ok && counter.live == 0);
    bench_line_u64(&line, "text_bytes", text.size);
    bench_line_u64(&line, "soup_bytes", 6 * g.quads * 8 * sizeof(float));
    bench_line_u64(&line, "peak_bytes", counter.peak);
    bench_line_num(&line, "peak_over_text", (double)counter.peak / (double)text.size);
    bench_line_print(&line);
    free(text.data);
    return ok && counter.live == 0 ? 0 : 1;
}
