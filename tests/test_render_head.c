/*
 * The head render source on the synthetic head (tests/support/synthetic_head.h):
 *   - a coefficient whose basis moves only the upper half of the head changes
 *     the picture there and nowhere below the ring under the equator (the
 *     normals of the equator ring follow the moved triangles above it), and
 *     posing back to neutral gives the neutral picture again, bit for bit;
 *   - the normals a refresh computes are unit and point away from the centre
 *     of the sphere they lie on;
 *   - each colouring's colours (skin with dark eyes, flat, joint with cyan
 *     eyes, uv, height), and the refusals (uv without a uv blob, a colouring
 *     out of range, rgb outside [0, 1], NULL arguments);
 *   - pose + refresh + draw allocate nothing (counting allocator), every
 *     allocation failure while building is reported and leaks nothing;
 *   - two goldens of 96 × 96 (tests/data/golden/head_*.png): the posed head in
 *     skin colour and the neutral head in joint colours, compared as
 *     tests/support/golden.h compares.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/marionette.h>

#include "counting_alloc.h"
#include "golden.h"
#include "synthetic_head.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE 96
#define E 8

static const float background[4] = {0.18f, 0.2f, 0.23f, 1.0f};

typedef struct fixture {
    synthetic_head source;
    uint8_t *bytes;
    size_t size;
    mn_aosrig *pack;
    mn_head *head;
    float *posed;
    float controls[E + 4];
} fixture;

/* The synthetic head; with upper_only, coefficient 0 moves only vertices above the equator. */
static void fixture_make(fixture *f, const synthetic_head_options *options, bool upper_only)
{
    memset(f, 0, sizeof *f);
    synthetic_head_build(&f->source, options);
    if (upper_only)
        for (uint32_t v = 0; v < f->source.vertex_count; v++)
            if (f->source.neutral[3 * v + 1] <= 0.0f)
                for (int k = 0; k < 3; k++)
                    f->source.basis[((size_t)v * E + 0) * 3 + (size_t)k] = 0;
    mn_error err;
    assert_int_equal(synthetic_head_pack(&f->source, &f->bytes, &f->size, &err), MN_OK);
    assert_int_equal(mn_aosrig_read_memory(f->bytes, f->size, NULL, &f->pack, &err), MN_OK);
    assert_int_equal(mn_head_create(f->pack, NULL, &f->head, &err), MN_OK);
    f->posed = calloc((size_t)f->pack->header.vertex_count * 3, sizeof *f->posed);
    assert_non_null(f->posed);
}

static void fixture_free(fixture *f)
{
    free(f->posed);
    mn_head_free(f->head);
    mn_aosrig_free(f->pack);
    mn_aosrig_bytes_free(NULL, f->bytes, f->size);
    synthetic_head_free(&f->source);
}

/* Pose with coefficient `e` at `value` (e < 0: neutral) and refresh. */
static void pose(fixture *f, mn_render_source *src, int e, float value)
{
    memset(f->controls, 0, sizeof f->controls);
    if (e >= 0)
        f->controls[e] = value;
    mn_error err;
    assert_int_equal(mn_head_pose(f->head, f->controls, E + 4, f->posed, &err), MN_OK);
    mn_render_source_refresh(src);
}

/* A fixed box round the head (so every picture has the same camera) and its view. */
static mn_render_camera camera(mn_render_view_kind kind)
{
    const float lo[3] = {-0.12f, -0.12f, -0.12f}, hi[3] = {0.12f, 0.12f, 0.12f};
    mn_render_view view = {.kind = kind, .yaw = MN_RENDER_DEFAULT_YAW,
                           .pitch = MN_RENDER_DEFAULT_PITCH};
    mn_render_camera cam;
    mn_error err;
    assert_int_equal(mn_render_camera_frame(lo, hi, &view, 1.0f, &cam, &err), MN_OK);
    return cam;
}

static mn_renderer *renderer(const mn_render_source *src, const mn_allocator *hooks)
{
    mn_render_options o = {.width = SIZE, .height = SIZE, .threads = 2,
                           .max_triangles = mn_render_scene_triangle_count(
                               mn_render_source_scene(src))};
    memcpy(o.background, background, sizeof background);
    if (hooks)
        o.allocator = *hooks;
    mn_renderer *r;
    mn_error err;
    assert_int_equal(mn_renderer_create(&o, &r, &err), MN_OK);
    return r;
}

static void draw(mn_renderer *r, const mn_render_source *src, const mn_render_camera *cam,
                 mn_rgba_image *img)
{
    mn_error err;
    assert_int_equal(mn_renderer_draw(r, mn_render_source_scene(src), cam, img, &err), MN_OK);
}

/* The image row a world point lands on (column-major view and projection). */
static float row_of(const mn_render_camera *cam, const float p[3])
{
    float v[4], c[4];
    for (int i = 0; i < 4; i++)
        v[i] = cam->view[i] * p[0] + cam->view[4 + i] * p[1] + cam->view[8 + i] * p[2] +
               cam->view[12 + i];
    for (int i = 0; i < 4; i++)
        c[i] = cam->projection[i] * v[0] + cam->projection[4 + i] * v[1] +
               cam->projection[8 + i] * v[2] + cam->projection[12 + i] * v[3];
    return (1.0f - c[1] / c[3]) * 0.5f * (float)SIZE;
}

static void test_posed_differs_where_the_basis_moves(void **state)
{
    (void)state;
    fixture f;
    fixture_make(&f, NULL, true);
    mn_render_source *src;
    mn_error err;
    assert_int_equal(mn_render_source_head(f.head, f.posed, NULL, &src, &err), MN_OK);
    mn_renderer *r = renderer(src, NULL);
    mn_render_camera cam = camera(MN_VIEW_FRONT);
    mn_rgba_image neutral, posed, again;
    assert_int_equal(mn_rgba_image_create(SIZE, SIZE, NULL, &neutral, &err), MN_OK);
    assert_int_equal(mn_rgba_image_create(SIZE, SIZE, NULL, &posed, &err), MN_OK);
    assert_int_equal(mn_rgba_image_create(SIZE, SIZE, NULL, &again, &err), MN_OK);
    pose(&f, src, -1, 0.0f);
    draw(r, src, &cam, &neutral);
    pose(&f, src, 0, 4.0f);
    draw(r, src, &cam, &posed);
    pose(&f, src, -1, 0.0f);
    draw(r, src, &cam, &again);
    assert_memory_equal(neutral.pixels, again.pixels, (size_t)SIZE * SIZE * 4);

    /* The ring under the equator (8 rings: 22.5 degrees down) is the lowest thing that can
       change: the triangles below it do not move and neither do their normals. */
    const float below[3] = {0.0f, -0.1f * sinf(3.14159265f / 8.0f), 0.1f};
    float lowest = row_of(&cam, below);
    size_t above = 0;
    for (uint32_t y = 0; y < SIZE; y++)
        for (uint32_t x = 0; x < SIZE; x++) {
            size_t i = 4 * ((size_t)y * SIZE + x);
            if (memcmp(neutral.pixels + i, posed.pixels + i, 4) == 0)
                continue;
            if ((float)y > lowest + 1.0f)
                fail_msg("pixel (%u, %u) changed below the moving half (row %.1f)", x, y,
                         (double)lowest);
            above++;
        }
    assert_true(above >= 40);
    mn_rgba_image_free(&neutral);
    mn_rgba_image_free(&posed);
    mn_rgba_image_free(&again);
    mn_renderer_free(r);
    mn_render_source_free(src);
    fixture_free(&f);
}

static void test_normals_point_out(void **state)
{
    (void)state;
    fixture f;
    fixture_make(&f, NULL, false);
    mn_render_source *src;
    mn_error err;
    assert_int_equal(mn_render_source_head(f.head, f.posed, NULL, &src, &err), MN_OK);
    pose(&f, src, -1, 0.0f);
    const mn_render_mesh *mesh = &mn_render_source_scene(src)->meshes[0];
    assert_ptr_equal(mesh->positions, f.posed);
    assert_int_equal(mesh->vertex_count, f.pack->header.vertex_count);
    assert_int_equal(mesh->index_count, 3 * f.pack->face_count);
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
        const float *n = mesh->normals + 3 * v, *p = f.posed + 3 * v;
        /* Each vertex lies on the head sphere (centre 0) or an eye's (its eye position). */
        static const float origin[3] = {0, 0, 0};
        const float *c = origin;
        if (f.pack->eye_weights[v] >= 0.5f)
            c = f.pack->eye_positions;
        else if (f.pack->eye_weights[mesh->vertex_count + v] >= 0.5f)
            c = f.pack->eye_positions + 3;
        float d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
        float dl = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        float nl = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        assert_true(fabsf(nl - 1.0f) < 1e-5f);
        float cosine = (n[0] * d[0] + n[1] * d[1] + n[2] * d[2]) / dl;
        if (!(cosine > 0.9f))
            fail_msg("vertex %u: normal at cos %.3f from the outward radius", v, (double)cosine);
    }
    mn_render_source_free(src);
    fixture_free(&f);
}

/* Vertex v's linear colour is the packed sRGB colour `want` decoded. */
static void assert_colour(const mn_render_source *src, uint32_t v, uint32_t want)
{
    const mn_render_mesh *mesh = &mn_render_source_scene(src)->meshes[0];
    assert_int_equal(mesh->color_components, 3);
    for (int c = 0; c < 3; c++) {
        float e = (float)(want >> (8 * c) & 0xffu) / 255.0f;
        float linear = e <= 0.04045f ? e / 12.92f : powf((e + 0.055f) / 1.055f, 2.4f);
        if (!(fabsf(mesh->colors[3 * v + c] - linear) < 1e-5f))
            fail_msg("vertex %u channel %d: %g, want %g", v, c, (double)mesh->colors[3 * v + c],
                     (double)linear);
    }
}

static mn_render_source *source_with(fixture *f, mn_head_colouring colouring, const float rgb[3])
{
    mn_render_head_options o = {.colouring = colouring};
    if (rgb)
        memcpy(o.rgb, rgb, sizeof o.rgb);
    mn_render_source *src;
    mn_error err;
    assert_int_equal(mn_render_source_head(f->head, f->posed, &o, &src, &err), MN_OK);
    return src;
}

static void test_colourings(void **state)
{
    (void)state;
    fixture f;
    fixture_make(&f, &(synthetic_head_options){.uv = true}, false);
    uint32_t eye = f.pack->header.vertex_count - 1, top = 0, v_count = f.pack->header.vertex_count;
    uint32_t *packed = calloc(v_count, sizeof *packed);
    assert_non_null(packed);

    mn_render_source *src = source_with(&f, MN_HEAD_COLOUR_SKIN, NULL);
    assert_colour(src, top, mn_pack_rgba(0.87f, 0.69f, 0.58f, 1.0f));
    assert_colour(src, eye, mn_pack_rgba(0.16f, 0.1f, 0.07f, 1.0f));
    mn_render_source_free(src);

    src = source_with(&f, MN_HEAD_COLOUR_FLAT, (const float[3]){1.0f, 0.0f, 0.5f});
    assert_colour(src, top, mn_pack_rgba(1.0f, 0.0f, 0.5f, 1.0f));
    assert_colour(src, eye, mn_pack_rgba(1.0f, 0.0f, 0.5f, 1.0f));
    mn_render_source_free(src);

    src = source_with(&f, MN_HEAD_COLOUR_FLAT, NULL);    /* zero rgb: flat tint's own */
    mn_flat_tint(1, NULL, packed);
    assert_colour(src, top, packed[0]);
    mn_render_source_free(src);

    src = source_with(&f, MN_HEAD_COLOUR_JOINT, NULL);
    assert_int_equal(mn_head_joint_tint(f.pack, packed, v_count), MN_OK);
    assert_colour(src, eye, mn_pack_rgba(0.0f, 1.0f, 1.0f, 1.0f));
    for (uint32_t v = 0; v < v_count; v++)
        assert_colour(src, v, packed[v]);
    mn_render_source_free(src);

    src = source_with(&f, MN_HEAD_COLOUR_UV, NULL);
    mn_uv_tint(f.pack->uv, v_count, packed);
    for (uint32_t v = 0; v < v_count; v++)
        assert_colour(src, v, packed[v]);
    mn_render_source_free(src);

    src = source_with(&f, MN_HEAD_COLOUR_HEIGHT, NULL);
    mn_height_tint(f.pack->neutral, v_count, packed);
    for (uint32_t v = 0; v < v_count; v++)
        assert_colour(src, v, packed[v]);
    mn_render_source_free(src);
    free(packed);
    fixture_free(&f);
}

static void test_refusals(void **state)
{
    (void)state;
    fixture f;
    fixture_make(&f, NULL, false);
    mn_render_source *src = (mn_render_source *)&f;   /* must be reset to NULL */
    mn_error err;
    mn_render_head_options o = {.colouring = MN_HEAD_COLOUR_UV};
    assert_int_equal(mn_render_source_head(f.head, f.posed, &o, &src, &err), MN_MISSING_PROPERTY);
    assert_null(src);
    assert_non_null(strstr(err.message, "uv"));
    o = (mn_render_head_options){.colouring = (mn_head_colouring)99};
    assert_int_equal(mn_render_source_head(f.head, f.posed, &o, &src, &err), MN_INVALID_ARGUMENT);
    o = (mn_render_head_options){.colouring = MN_HEAD_COLOUR_FLAT, .rgb = {0.5f, 1.5f, 0.0f}};
    assert_int_equal(mn_render_source_head(f.head, f.posed, &o, &src, &err), MN_INVALID_ARGUMENT);
    o.rgb[1] = NAN;
    assert_int_equal(mn_render_source_head(f.head, f.posed, &o, &src, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_render_source_head(NULL, f.posed, NULL, &src, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_render_source_head(f.head, NULL, NULL, &src, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_render_source_head(f.head, f.posed, NULL, NULL, &err),
                     MN_INVALID_ARGUMENT);
    fixture_free(&f);
}

static void test_frames_allocate_nothing(void **state)
{
    (void)state;
    fixture f;
    fixture_make(&f, NULL, false);
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_render_head_options o = {.colouring = MN_HEAD_COLOUR_JOINT, .allocator = hooks};
    mn_render_source *src;
    mn_error err;
    assert_int_equal(mn_render_source_head(f.head, f.posed, &o, &src, &err), MN_OK);
    mn_renderer *r = renderer(src, &hooks);
    mn_rgba_image img;
    assert_int_equal(mn_rgba_image_create(SIZE, SIZE, &hooks, &img, &err), MN_OK);
    mn_render_camera cam = camera(MN_VIEW_ORBIT);
    size_t before = counter.allocs;
    for (int frame = 0; frame < 8; frame++) {
        pose(&f, src, frame % E, 0.25f * (float)frame);
        draw(r, src, &cam, &img);
    }
    assert_int_equal(counter.allocs, before);
    mn_rgba_image_free(&img);
    mn_renderer_free(r);
    mn_render_source_free(src);
    assert_int_equal(counter.live_bytes, 0);

    /* Every allocation the source makes, failing in turn: reported, nothing leaked. */
    for (long n = 0;; n++) {
        counter = mn_counting_alloc_make();
        counter.fail_after = n;
        o.allocator = mn_counting_allocator(&counter);
        mn_status st = mn_render_source_head(f.head, f.posed, &o, &src, &err);
        if (st == MN_OK) {
            mn_render_source_free(src);
            assert_int_equal(counter.live_bytes, 0);
            break;
        }
        assert_int_equal(st, MN_OUT_OF_MEMORY);
        assert_null(src);
        assert_int_equal(counter.live_bytes, 0);
    }
    fixture_free(&f);
}

/* The three-quarter view a user sees first: posed in skin colour, and neutral in joint colours. */
static void test_goldens(void **state)
{
    (void)state;
    fixture f;
    fixture_make(&f, NULL, false);
    mn_render_camera cam = camera(MN_VIEW_ORBIT);
    mn_error err;
    mn_rgba_image img;
    assert_int_equal(mn_rgba_image_create(SIZE, SIZE, NULL, &img, &err), MN_OK);
    mn_render_source *src = source_with(&f, MN_HEAD_COLOUR_SKIN, NULL);
    mn_renderer *r = renderer(src, NULL);
    pose(&f, src, 2, 1.0f);
    draw(r, src, &cam, &img);
    mn_golden_check("head_posed_skin", &img);
    mn_render_source_free(src);

    src = source_with(&f, MN_HEAD_COLOUR_JOINT, NULL);
    pose(&f, src, -1, 0.0f);
    draw(r, src, &cam, &img);
    mn_golden_check("head_neutral_joint", &img);
    mn_render_source_free(src);
    mn_renderer_free(r);
    mn_rgba_image_free(&img);
    fixture_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_posed_differs_where_the_basis_moves),
        cmocka_unit_test(test_normals_point_out),
        cmocka_unit_test(test_colourings),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_frames_allocate_nothing),
        cmocka_unit_test(test_goldens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
