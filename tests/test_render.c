/*
 * The rasteriser on hand-built scenes, where the right pixel is known:
 * depth order, back-face culling and double-sided materials, perspective-
 * correct uv, the three wrap modes, MASK and sorted BLEND, supersampled
 * edges, camera framing, the same bytes on one thread or two, and a draw
 * that allocates nothing.  Plus images (PNG round trip, errors), text and
 * contact sheets.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/render.h>

#include "counting_alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define W 64
#define H 64

static const float grey_bg[4] = {0.5f, 0.5f, 0.5f, 1.0f};

/* A camera whose clip space is world space: x right, y up, z in [-1, 1], smaller z nearer. */
static mn_render_camera flat_camera(void)
{
    mn_render_camera c;
    memset(&c, 0, sizeof c);
    for (int i = 0; i < 4; i++) {
        c.view[i * 5] = 1.0f;
        c.projection[i * 5] = 1.0f;
    }
    c.orthographic = true;
    return c;
}

/* A quad facing +z (counter-clockwise seen from the camera) covering [x0,x1]×[y0,y1] at depth z. */
typedef struct quad {
    float pos[12];
    float uv[8];
    uint32_t idx[6];
} quad;

static quad make_quad(float x0, float y0, float x1, float y1, float z)
{
    quad q = {{x0, y0, z, x1, y0, z, x1, y1, z, x0, y1, z},
              {0, 1, 1, 1, 1, 0, 0, 0},
              {0, 1, 2, 0, 2, 3}};
    return q;
}

static mn_render_mesh quad_mesh(const quad *q, uint32_t material)
{
    mn_render_mesh m;
    memset(&m, 0, sizeof m);
    m.vertex_count = 4;
    m.positions = q->pos;
    m.uv[0] = q->uv;
    m.indices = q->idx;
    m.index_count = 6;
    m.material = material;
    return m;
}

static mn_render_material solid(float r, float g, float b, float a, mn_alpha_mode mode)
{
    mn_render_material m;
    memset(&m, 0, sizeof m);
    m.base_color[0] = r;
    m.base_color[1] = g;
    m.base_color[2] = b;
    m.base_color[3] = a;
    m.texture = MN_NONE;
    m.emissive_texture = MN_NONE;
    m.alpha_mode = mode;
    m.alpha_cutoff = 0.5f;
    return m;
}

static mn_renderer *renderer(uint32_t w, uint32_t h, uint32_t ss, uint32_t threads,
                             const mn_allocator *alloc)
{
    mn_render_options o = {.width = w, .height = h, .supersample = ss, .threads = threads,
                           .max_triangles = 64};
    memcpy(o.background, grey_bg, sizeof grey_bg);
    if (alloc)
        o.allocator = *alloc;
    mn_renderer *r = NULL;
    mn_error err;
    assert_int_equal(mn_renderer_create(&o, &r, &err), MN_OK);
    return r;
}

/* Draw through the flat camera into a new image. */
static mn_rgba_image draw(const mn_render_scene *scene, uint32_t ss)
{
    mn_renderer *r = renderer(W, H, ss, 2, NULL);
    mn_rgba_image img;
    mn_error err;
    assert_int_equal(mn_rgba_image_create(W, H, NULL, &img, &err), MN_OK);
    mn_render_camera cam = flat_camera();
    assert_int_equal(mn_renderer_draw(r, scene, &cam, &img, &err), MN_OK);
    mn_renderer_free(r);
    return img;
}

static const uint8_t *px(const mn_rgba_image *img, uint32_t x, uint32_t y)
{
    return img->pixels + 4 * ((size_t)y * img->width + x);
}

static bool is_background(const uint8_t *p)
{
    return p[0] == 128 && p[1] == 128 && p[2] == 128 && p[3] == 255;
}

/* Red clearly dominates, blue clearly dominates. */
static bool reddish(const uint8_t *p) { return p[0] > 100 && p[0] > 3 * p[2]; }
static bool bluish(const uint8_t *p) { return p[2] > 100 && p[2] > 3 * p[0]; }

/* ---- depth, culling ---------------------------------------------------------------- */

static void test_depth_order(void **state)
{
    (void)state;
    /* Red near (z −0.5), blue far (z 0.5), overlapping in the middle; both submission orders. */
    quad near_q = make_quad(-0.6f, -0.6f, 0.3f, 0.3f, -0.5f);
    quad far_q = make_quad(-0.3f, -0.3f, 0.6f, 0.6f, 0.5f);
    mn_render_material mats[2] = {solid(1, 0, 0, 1, MN_ALPHA_OPAQUE),
                                  solid(0, 0, 1, 1, MN_ALPHA_OPAQUE)};
    for (int order = 0; order < 2; order++) {
        mn_render_mesh meshes[2];
        meshes[order] = quad_mesh(&near_q, 0);
        meshes[1 - order] = quad_mesh(&far_q, 1);
        mn_render_scene scene = {meshes, 2, mats, 2, NULL, 0, NULL, 0};
        mn_rgba_image img = draw(&scene, 1);
        assert_true(reddish(px(&img, W / 2 - 2, H / 2)));     /* overlap: near wins */
        assert_true(bluish(px(&img, W * 3 / 4, H / 4)));       /* far alone (y up → row small) */
        assert_true(reddish(px(&img, W / 4, H * 3 / 4)));      /* near alone */
        assert_true(is_background(px(&img, 1, 1)));
        mn_rgba_image_free(&img);
    }
}

static void test_culling(void **state)
{
    (void)state;
    quad q = make_quad(-0.5f, -0.5f, 0.5f, 0.5f, 0.0f);
    uint32_t back[6] = {0, 2, 1, 0, 3, 2};   /* clockwise: facing away */
    mn_render_material mats[2] = {solid(1, 0, 0, 1, MN_ALPHA_OPAQUE),
                                  solid(1, 0, 0, 1, MN_ALPHA_OPAQUE)};
    mats[1].double_sided = true;
    mn_render_mesh m = quad_mesh(&q, 0);
    m.indices = back;
    mn_render_scene scene = {&m, 1, mats, 2, NULL, 0, NULL, 0};
    mn_rgba_image img = draw(&scene, 1);
    assert_true(is_background(px(&img, W / 2, H / 2)));   /* culled */
    mn_rgba_image_free(&img);

    m.material = 1;   /* double-sided: drawn, lit with the normal flipped towards the camera */
    img = draw(&scene, 1);
    assert_true(reddish(px(&img, W / 2, H / 2)));
    uint8_t lit_back = px(&img, W / 2, H / 2)[0];
    mn_rgba_image_free(&img);

    m.indices = q.idx;   /* front face, same lighting */
    img = draw(&scene, 1);
    assert_int_equal(px(&img, W / 2, H / 2)[0], lit_back);
    mn_rgba_image_free(&img);

    /* A mirroring matrix turns the screen winding round, and glTF's rule (a negative
       determinant makes clockwise the front) keeps the authored front face in front. */
    const float mirror[16] = {-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    m.material = 0;
    m.matrix = mirror;
    img = draw(&scene, 1);   /* front-wound indices: still drawn */
    assert_true(reddish(px(&img, W / 2, H / 2)));
    mn_rgba_image_free(&img);
    m.indices = back;        /* back-wound: still culled */
    img = draw(&scene, 1);
    assert_true(is_background(px(&img, W / 2, H / 2)));
    mn_rgba_image_free(&img);
}

/* ---- textures ------------------------------------------------------------------------ */

/* A texture whose texels are given as 0 (black) or 1 (white), opaque. */
static mn_render_texture bw_texture(uint8_t *storage, const int *bits, uint32_t w, uint32_t h,
                                    uint32_t wrap)
{
    for (uint32_t i = 0; i < w * h; i++) {
        uint8_t v = bits[i] ? 255 : 0;
        storage[4 * i] = storage[4 * i + 1] = storage[4 * i + 2] = v;
        storage[4 * i + 3] = 255;
    }
    mn_render_texture t = {w, h, storage, wrap, wrap, true};
    return t;
}

static void test_wrap_modes(void **state)
{
    (void)state;
    /* A full-screen quad with u from −1 to 2 over a 2×1 texture: black left half, white right. */
    quad q = make_quad(-1, -1, 1, 1, 0);
    const float uv[8] = {-1, 0, 2, 0, 2, 0, -1, 0};
    memcpy(q.uv, uv, sizeof uv);
    uint8_t storage[8];
    static const int bits[2] = {0, 1};
    const uint32_t modes[3] = {MN_WRAP_REPEAT, MN_WRAP_CLAMP_TO_EDGE, MN_WRAP_MIRRORED_REPEAT};
    /* Expected brightness at u = −0.75, −0.25, 0.25, 0.75, 1.25, 1.75 for each mode. */
    static const int expect[3][6] = {
        {0, 1, 0, 1, 0, 1},   /* repeat */
        {0, 0, 0, 1, 1, 1},   /* clamp */
        {1, 0, 0, 1, 1, 0},   /* mirrored: [-1,0) is [0,1) reversed, [1,2) likewise */
    };
    for (int m = 0; m < 3; m++) {
        mn_render_texture tex = bw_texture(storage, bits, 2, 1, modes[m]);
        mn_render_material mat = solid(1, 1, 1, 1, MN_ALPHA_OPAQUE);
        mat.texture = 0;
        mn_render_mesh mesh = quad_mesh(&q, 0);
        mn_render_scene scene = {&mesh, 1, &mat, 1, &tex, 1, NULL, 0};
        mn_rgba_image img = draw(&scene, 1);
        for (int k = 0; k < 6; k++) {
            float u = -0.75f + 0.5f * (float)k;
            uint32_t x = (uint32_t)((u + 1.0f) / 3.0f * W);
            uint8_t v = px(&img, x, H / 2)[0];
            if (expect[m][k])
                assert_true(v > 150);
            else
                assert_true(v < 20);
        }
        mn_rgba_image_free(&img);
    }
}

static void test_uv_transform_and_texcoord_set(void **state)
{
    (void)state;
    quad q = make_quad(-1, -1, 1, 1, 0);
    uint8_t storage[8];
    static const int bits[2] = {0, 1};
    mn_render_texture tex = bw_texture(storage, bits, 2, 1, MN_WRAP_CLAMP_TO_EDGE);
    mn_render_material mat = solid(1, 1, 1, 1, MN_ALPHA_OPAQUE);
    mat.texture = 0;
    /* u' = 1 − u mirrors the texture: white on the left. */
    const float flip_u[6] = {-1, 0, 0, 1, 1, 0};
    memcpy(mat.uv_transform, flip_u, sizeof flip_u);
    mn_render_mesh mesh = quad_mesh(&q, 0);
    mn_render_scene scene = {&mesh, 1, &mat, 1, &tex, 1, NULL, 0};
    mn_rgba_image img = draw(&scene, 1);
    assert_true(px(&img, W / 8, H / 2)[0] > 150);
    assert_true(px(&img, W * 7 / 8, H / 2)[0] < 20);
    mn_rgba_image_free(&img);

    /* texcoord 1 reads the second set: a set that is uniformly u = 0.9 gives white everywhere. */
    memset(mat.uv_transform, 0, sizeof mat.uv_transform);
    const float set1[8] = {0.9f, 0, 0.9f, 0, 0.9f, 0, 0.9f, 0};
    mesh.uv[1] = set1;
    mat.texcoord = 1;
    img = draw(&scene, 1);
    assert_true(px(&img, W / 8, H / 2)[0] > 150);
    assert_true(px(&img, W * 7 / 8, H / 2)[0] > 150);
    mn_rgba_image_free(&img);

    /* An emissive texture through its own set: a black base lit only by emission, which
       reads set 1 (u across the quad) while the base colour reads set 0. */
    const float across[8] = {0, 0, 1, 0, 1, 0, 0, 0};
    mn_render_material glow = solid(0, 0, 0, 1, MN_ALPHA_OPAQUE);
    glow.emissive[0] = glow.emissive[1] = glow.emissive[2] = 1.0f;
    glow.emissive_texture = 0;
    glow.emissive_texcoord = 1;
    mesh.uv[1] = across;
    scene.materials = &glow;
    img = draw(&scene, 1);
    assert_true(px(&img, W / 8, H / 2)[0] < 30);
    assert_true(px(&img, W * 7 / 8, H / 2)[0] > 200);
    mn_rgba_image_free(&img);
    glow.emissive_texture = 5;   /* out of range: refused, naming the material */
    mn_renderer *r = renderer(W, H, 1, 1, NULL);
    mn_error err;
    assert_int_equal(mn_rgba_image_create(W, H, NULL, &img, &err), MN_OK);
    mn_render_camera cam = flat_camera();
    assert_int_equal(mn_renderer_draw(r, &scene, &cam, &img, &err), MN_INDEX_RANGE);
    assert_non_null(strstr(err.message, "materials[0]: emissive_texture"));
    mn_rgba_image_free(&img);
    mn_renderer_free(r);
}

/* The row (from the top) that world point p lands on through cam, at image height h. */
static float project_row(const mn_render_camera *cam, const float p[3], uint32_t h)
{
    float v[4], c[4];
    for (int r = 0; r < 4; r++)
        v[r] = cam->view[r] * p[0] + cam->view[4 + r] * p[1] + cam->view[8 + r] * p[2] + cam->view[12 + r];
    for (int r = 0; r < 4; r++)
        c[r] = cam->projection[r] * v[0] + cam->projection[4 + r] * v[1] +
               cam->projection[8 + r] * v[2] + cam->projection[12 + r] * v[3];
    return (0.5f - 0.5f * c[1] / c[3]) * (float)h;
}

static void test_perspective_correct_uv(void **state)
{
    (void)state;
    /* A floor running from z = 2 (near) to z = −30 (far) under a camera at the origin looking
       down −z; v = 0 at the near edge, 1 at the far one; a texture black for v < 0.5, white
       after.  The colour must change where the floor's 3D midpoint (z = −16) lands, not
       half-way down the floor's image (where affine interpolation would put it). */
    const float pos[12] = {-4, -1, -2, 4, -1, -2, 4, -1, -30, -4, -1, -30};
    const float uv[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    uint8_t storage[8];
    static const int bits[2] = {0, 1};
    mn_render_texture tex = bw_texture(storage, bits, 1, 2, MN_WRAP_CLAMP_TO_EDGE);
    mn_render_material mat = solid(1, 1, 1, 1, MN_ALPHA_OPAQUE);
    mat.texture = 0;
    mn_render_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    mesh.vertex_count = 4;
    mesh.positions = pos;
    mesh.uv[0] = uv;
    mesh.indices = idx;
    mesh.index_count = 6;
    mesh.material = 0;
    mn_render_scene scene = {&mesh, 1, &mat, 1, &tex, 1, NULL, 0};

    mn_render_camera cam;
    memset(&cam, 0, sizeof cam);
    for (int i = 0; i < 4; i++)
        cam.view[i * 5] = 1.0f;
    float n = 0.5f, f = 100.0f, t = 1.0f / tanf(0.5f);
    cam.projection[0] = t;
    cam.projection[5] = t;
    cam.projection[10] = (f + n) / (n - f);
    cam.projection[11] = -1.0f;
    cam.projection[14] = 2 * f * n / (n - f);

    uint32_t size = 128;
    mn_renderer *r = renderer(size, size, 1, 1, NULL);
    mn_rgba_image img;
    mn_error err;
    assert_int_equal(mn_rgba_image_create(size, size, NULL, &img, &err), MN_OK);
    assert_int_equal(mn_renderer_draw(r, &scene, &cam, &img, &err), MN_OK);
    const float mid[3] = {0, -1, -16}, near_p[3] = {0, -1, -2}, far_p[3] = {0, -1, -30};
    float row_mid = project_row(&cam, mid, size);
    float row_affine = 0.5f * (project_row(&cam, near_p, size) + project_row(&cam, far_p, size));
    assert_true(row_affine - row_mid > 10.0f);   /* the two predictions are far apart */
    /* Farther than the midpoint (above it in the image): white; nearer: black (grazing
       light gives black texels the rim term's glow, well below white). */
    assert_true(px(&img, size / 2, (uint32_t)(row_mid - 2.0f))[0] > 200);
    assert_true(px(&img, size / 2, (uint32_t)(row_mid + 2.0f))[0] < 110);
    assert_true(px(&img, size / 2, (uint32_t)(row_affine - 2.0f))[0] < 110);
    mn_rgba_image_free(&img);
    mn_renderer_free(r);
}

/* ---- alpha ------------------------------------------------------------------------- */

static void test_mask(void **state)
{
    (void)state;
    /* A 2×1 texture: left texel alpha 0, right alpha 1; MASK at 0.5 shows the background left. */
    uint8_t storage[8] = {255, 0, 0, 0, 255, 0, 0, 255};
    mn_render_texture tex = {2, 1, storage, MN_WRAP_CLAMP_TO_EDGE, MN_WRAP_CLAMP_TO_EDGE, true};
    quad q = make_quad(-1, -1, 1, 1, 0);
    mn_render_material mat = solid(1, 1, 1, 1, MN_ALPHA_MASK);
    mat.texture = 0;
    mn_render_mesh mesh = quad_mesh(&q, 0);
    mn_render_scene scene = {&mesh, 1, &mat, 1, &tex, 1, NULL, 0};
    mn_rgba_image img = draw(&scene, 1);
    assert_true(is_background(px(&img, W / 4, H / 2)));
    assert_true(reddish(px(&img, W * 3 / 4, H / 2)));
    mn_rgba_image_free(&img);

    /* OPAQUE ignores alpha altogether. */
    mat.alpha_mode = MN_ALPHA_OPAQUE;
    img = draw(&scene, 1);
    assert_true(reddish(px(&img, W / 4, H / 2)));
    mn_rgba_image_free(&img);
}

static void test_blend_sorted(void **state)
{
    (void)state;
    /* An opaque blue quad far; half-transparent red (near) and green (middle) in front.
       Whatever order the two transparent quads come in, they are drawn far to near, so the
       result is the same, and red (drawn last) dominates green. */
    quad blue_q = make_quad(-1, -1, 1, 1, 0.8f);
    quad green_q = make_quad(-1, -1, 1, 1, 0.0f);
    quad red_q = make_quad(-1, -1, 1, 1, -0.5f);
    mn_render_material mats[3] = {solid(0, 0, 1, 1, MN_ALPHA_OPAQUE),
                                  solid(0, 1, 0, 0.5f, MN_ALPHA_BLEND),
                                  solid(1, 0, 0, 0.5f, MN_ALPHA_BLEND)};
    uint8_t first[4] = {0};
    for (int order = 0; order < 2; order++) {
        mn_render_mesh meshes[3] = {quad_mesh(&blue_q, 0), quad_mesh(&green_q, 1),
                                    quad_mesh(&red_q, 2)};
        if (order) {
            mn_render_mesh t = meshes[1];
            meshes[1] = meshes[2];
            meshes[2] = t;
        }
        mn_render_scene scene = {meshes, 3, mats, 3, NULL, 0, NULL, 0};
        mn_rgba_image img = draw(&scene, 1);
        const uint8_t *p = px(&img, W / 2, H / 2);
        assert_true(p[0] > p[1]);          /* red over green */
        assert_true(p[1] > 0 && p[2] > 0); /* both show through */
        assert_int_equal(p[3], 255);
        if (order == 0)
            memcpy(first, p, 4);
        else
            assert_memory_equal(first, p, 4);
        mn_rgba_image_free(&img);
    }

    /* BLEND does not write depth, but is hidden behind nearer opaque geometry. */
    quad front = make_quad(-1, -1, 0, 1, -0.9f);
    mn_render_mesh meshes[2] = {quad_mesh(&red_q, 2), quad_mesh(&front, 0)};
    mn_render_scene scene = {meshes, 2, mats, 3, NULL, 0, NULL, 0};
    mn_rgba_image img = draw(&scene, 1);
    assert_true(bluish(px(&img, W / 4, H / 2)));     /* the opaque front quad hides it */
    assert_true(reddish(px(&img, W * 3 / 4, H / 2)) || px(&img, W * 3 / 4, H / 2)[0] > 100);
    mn_rgba_image_free(&img);
}

static void test_shared_edge_drawn_once(void **state)
{
    (void)state;
    /* A half-transparent quad of two triangles whose shared diagonal runs exactly through
       sample centres: each sample on it belongs to one triangle only (the top-left rule on
       an edge both evaluate alike), so the quad is one even colour, no gaps, no doubles. */
    quad q = make_quad(-1, -1, 1, 1, 0);
    mn_render_material mat = solid(1, 0, 0, 0.5f, MN_ALPHA_BLEND);
    mn_render_mesh mesh = quad_mesh(&q, 0);
    mn_render_scene scene = {&mesh, 1, &mat, 1, NULL, 0, NULL, 0};
    mn_rgba_image img = draw(&scene, 1);
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++)
            assert_memory_equal(px(&img, x, y), px(&img, 0, 0), 4);
    assert_false(is_background(px(&img, 0, 0)));
    mn_rgba_image_free(&img);
}

static void test_transparent_background_and_supersampling(void **state)
{
    (void)state;
    /* Transparent background: empty pixels have alpha 0; a half-covered pixel at 2×2 gets a
       partial alpha. */
    mn_render_options o = {.width = 8, .height = 8, .supersample = 2, .threads = 1,
                           .max_triangles = 2};
    mn_renderer *r = NULL;
    mn_error err;
    assert_int_equal(mn_renderer_create(&o, &r, &err), MN_OK);
    /* The quad's left edge at x = −0.125: exactly half-way through pixel column 3. */
    quad q = make_quad(-0.125f, -1, 1, 1, 0);
    mn_render_mesh mesh = quad_mesh(&q, MN_NONE);
    mn_render_scene scene = {&mesh, 1, NULL, 0, NULL, 0, NULL, 0};
    mn_rgba_image img;
    assert_int_equal(mn_rgba_image_create(8, 8, NULL, &img, &err), MN_OK);
    mn_render_camera cam = flat_camera();
    assert_int_equal(mn_renderer_draw(r, &scene, &cam, &img, &err), MN_OK);
    assert_int_equal(px(&img, 0, 4)[3], 0);
    assert_int_equal(px(&img, 3, 4)[3], 128);
    assert_int_equal(px(&img, 6, 4)[3], 255);
    mn_rgba_image_free(&img);
    mn_renderer_free(r);
}

/* ---- cameras ------------------------------------------------------------------------ */

static void ndc(const mn_render_camera *cam, const float p[3], float out[3])
{
    float v[4], c[4];
    for (int r = 0; r < 4; r++)
        v[r] = cam->view[r] * p[0] + cam->view[4 + r] * p[1] + cam->view[8 + r] * p[2] + cam->view[12 + r];
    for (int r = 0; r < 4; r++)
        c[r] = cam->projection[r] * v[0] + cam->projection[4 + r] * v[1] +
               cam->projection[8 + r] * v[2] + cam->projection[12 + r] * v[3];
    for (int i = 0; i < 3; i++)
        out[i] = c[i] / c[3];
}

static void test_framing(void **state)
{
    (void)state;
    const float lo[3] = {-3, 0, -1}, hi[3] = {5, 10, 2};
    const mn_render_view_kind kinds[4] = {MN_VIEW_ORBIT, MN_VIEW_FRONT, MN_VIEW_SIDE, MN_VIEW_TOP};
    for (int k = 0; k < 4; k++)
        for (int a = 0; a < 2; a++) {
            float aspect = a ? 2.0f : 0.75f;
            mn_render_view view = {.kind = kinds[k], .yaw = 0.7f, .pitch = 0.4f};
            mn_render_camera cam;
            mn_error err;
            assert_int_equal(mn_render_camera_frame(lo, hi, &view, aspect, &cam, &err), MN_OK);
            assert_int_equal(cam.orthographic, kinds[k] != MN_VIEW_ORBIT);
            float most = 0.0f;
            for (int c = 0; c < 8; c++) {
                float p[3] = {(c & 1) ? hi[0] : lo[0], (c & 2) ? hi[1] : lo[1],
                              (c & 4) ? hi[2] : lo[2]}, q[3];
                ndc(&cam, p, q);
                /* inside the image less the default margin, and inside the depth range */
                assert_true(fabsf(q[0]) <= 0.88f + 1e-4f && fabsf(q[1]) <= 0.88f + 1e-4f);
                assert_true(q[2] > -1.0f && q[2] < 1.0f);
                most = fmaxf(most, fmaxf(fabsf(q[0]), fabsf(q[1])));
            }
            assert_true(most > 0.85f);   /* and it fills the frame */
        }
    /* Top view: +z lands at the bottom of the image, +x on the right. */
    mn_render_view top = {.kind = MN_VIEW_TOP};
    mn_render_camera cam;
    assert_int_equal(mn_render_camera_frame(lo, hi, &top, 1.0f, &cam, NULL), MN_OK);
    float a[3], b[3];
    const float pz[3] = {1, 5, 2}, px_[3] = {5, 5, 0.5f}, pc[3] = {1, 5, 0.5f};
    ndc(&cam, pz, a);
    ndc(&cam, pc, b);
    assert_true(a[1] < b[1]);
    ndc(&cam, px_, a);
    assert_true(a[0] > b[0]);
    /* Bad views are refused. */
    mn_render_view bad = {.fov_y = 4.0f};
    assert_int_equal(mn_render_camera_frame(lo, hi, &bad, 1.0f, &cam, NULL), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_render_camera_frame(lo, hi, &top, NAN, &cam, NULL), MN_INVALID_ARGUMENT);
    /* An empty box frames the unit box: the result is usable. */
    float elo[3], ehi[3];
    mn_render_bounds_reset(elo, ehi);
    assert_int_equal(mn_render_camera_frame(elo, ehi, &top, 1.0f, &cam, NULL), MN_OK);
    for (int i = 0; i < 16; i++)
        assert_true(isfinite(cam.projection[i]) && isfinite(cam.view[i]));
}

static void test_scene_bounds(void **state)
{
    (void)state;
    quad q = make_quad(-1, -2, 3, 4, 0.5f);
    const float move[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 10, 0, 0, 1};
    mn_render_mesh meshes[2] = {quad_mesh(&q, MN_NONE), quad_mesh(&q, MN_NONE)};
    meshes[1].matrix = move;
    mn_render_scene scene = {meshes, 2, NULL, 0, NULL, 0, NULL, 0};
    float lo[3], hi[3];
    mn_render_bounds_reset(lo, hi);
    mn_render_scene_bounds(&scene, lo, hi);
    const float elo[3] = {-1, -2, 0.5f}, ehi[3] = {13, 4, 0.5f};
    assert_memory_equal(lo, elo, sizeof lo);
    assert_memory_equal(hi, ehi, sizeof hi);
    assert_int_equal(mn_render_scene_triangle_count(&scene), 4);
}

/* ---- threads, allocation, errors --------------------------------------------------------- */

/* Many small triangles at many depths: enough work for every band. */
static void make_field(float *pos, uint32_t *idx, float *colors, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        float x = -1.0f + 2.0f * (float)(i % 16) / 16.0f, y = -1.0f + 2.0f * (float)(i / 16) / 16.0f;
        float z = (float)((i * 7) % 11) / 11.0f - 0.5f;
        float tri[9] = {x, y, z, x + 0.3f, y + 0.05f, z, x + 0.1f, y + 0.3f, z};
        memcpy(pos + 9 * i, tri, sizeof tri);
        for (int k = 0; k < 3; k++) {
            idx[3 * i + (uint32_t)k] = 3 * i + (uint32_t)k;
            colors[4 * (3 * i + (uint32_t)k) + 0] = (float)(i % 3) / 2.0f;
            colors[4 * (3 * i + (uint32_t)k) + 1] = (float)k / 2.0f;
            colors[4 * (3 * i + (uint32_t)k) + 2] = 0.5f;
            colors[4 * (3 * i + (uint32_t)k) + 3] = 1.0f;
        }
    }
}

static void test_threads_same_bytes_and_no_allocation(void **state)
{
    (void)state;
    enum { N = 256 };
    static float pos[N * 9], colors[N * 12];
    static uint32_t idx[N * 3];
    make_field(pos, idx, colors, N);
    mn_render_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    mesh.vertex_count = N * 3;
    mesh.positions = pos;
    mesh.colors = colors;
    mesh.indices = idx;
    mesh.index_count = N * 3;
    mesh.material = MN_NONE;
    mn_render_scene scene = {&mesh, 1, NULL, 0, NULL, 0, NULL, 0};
    mn_render_view view = {.yaw = 0.3f, .pitch = 0.2f};
    float lo[3], hi[3];
    mn_render_bounds_reset(lo, hi);
    mn_render_scene_bounds(&scene, lo, hi);
    mn_render_camera cam;
    assert_int_equal(mn_render_camera_frame(lo, hi, &view, 1.0f, &cam, NULL), MN_OK);

    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_rgba_image one, two;
    mn_error err;
    assert_int_equal(mn_rgba_image_create(96, 96, &hooks, &one, &err), MN_OK);
    assert_int_equal(mn_rgba_image_create(96, 96, &hooks, &two, &err), MN_OK);
    mn_render_options o = {.width = 96, .height = 96, .threads = 1, .max_triangles = N,
                           .allocator = hooks};
    mn_renderer *r1 = NULL, *r2 = NULL;
    assert_int_equal(mn_renderer_create(&o, &r1, &err), MN_OK);
    o.threads = 2;
    assert_int_equal(mn_renderer_create(&o, &r2, &err), MN_OK);
    size_t before = counter.allocs;
    for (int rep = 0; rep < 3; rep++) {
        assert_int_equal(mn_renderer_draw(r1, &scene, &cam, &one, &err), MN_OK);
        assert_int_equal(mn_renderer_draw(r2, &scene, &cam, &two, &err), MN_OK);
    }
    assert_int_equal(counter.allocs, before);   /* drawing allocates nothing */
    assert_memory_equal(one.pixels, two.pixels, 96 * 96 * 4);
    size_t drawn = 0;
    for (size_t i = 0; i < 96 * 96; i++)
        drawn += one.pixels[4 * i + 3] != 0;
    assert_true(drawn > 96 * 96 / 4);

    /* Too many triangles for the room: refused, then reserve makes room. */
    mesh.index_count = N * 3;
    mn_render_options small = o;
    small.max_triangles = 8;
    mn_renderer *r3 = NULL;
    assert_int_equal(mn_renderer_create(&small, &r3, &err), MN_OK);
    assert_int_equal(mn_renderer_draw(r3, &scene, &cam, &one, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_renderer_reserve(r3, N, &err), MN_OK);
    assert_int_equal(mn_renderer_draw(r3, &scene, &cam, &one, &err), MN_OK);
    assert_memory_equal(one.pixels, two.pixels, 96 * 96 * 4);

    mn_renderer_free(r1);
    mn_renderer_free(r2);
    mn_renderer_free(r3);
    mn_rgba_image_free(&one);
    mn_rgba_image_free(&two);
    assert_int_equal(counter.live_bytes, 0);
}

static void test_bad_input(void **state)
{
    (void)state;
    mn_error err;
    mn_renderer *r = NULL;
    mn_render_options o = {.width = 0, .height = 4};
    assert_int_equal(mn_renderer_create(&o, &r, &err), MN_INVALID_ARGUMENT);
    assert_null(r);
    o = (mn_render_options){.width = 4, .height = 4, .supersample = 9};
    assert_int_equal(mn_renderer_create(&o, &r, &err), MN_INVALID_ARGUMENT);
    o = (mn_render_options){.width = 4, .height = 4, .background = {NAN, 0, 0, 1}};
    assert_int_equal(mn_renderer_create(&o, &r, &err), MN_INVALID_ARGUMENT);

    r = renderer(W, H, 1, 1, NULL);
    mn_rgba_image img, wrong;
    assert_int_equal(mn_rgba_image_create(W, H, NULL, &img, &err), MN_OK);
    assert_int_equal(mn_rgba_image_create(W + 1, H, NULL, &wrong, &err), MN_OK);
    mn_render_camera cam = flat_camera();
    quad q = make_quad(-1, -1, 1, 1, 0);
    mn_render_mesh mesh = quad_mesh(&q, 3);
    mn_render_scene scene = {&mesh, 1, NULL, 0, NULL, 0, NULL, 0};
    assert_int_equal(mn_renderer_draw(r, &scene, &cam, &img, &err), MN_INDEX_RANGE);
    assert_non_null(strstr(err.message, "meshes[0]"));
    mesh.material = MN_NONE;
    assert_int_equal(mn_renderer_draw(r, &scene, &cam, &wrong, &err), MN_INVALID_ARGUMENT);
    /* Out-of-range indices and NaN positions are skipped, not read. */
    uint32_t bad_idx[6] = {0, 1, 99, 0, 2, 3};
    float nan_pos[12];
    memcpy(nan_pos, q.pos, sizeof nan_pos);
    nan_pos[9] = NAN;
    mesh.indices = bad_idx;
    mesh.positions = nan_pos;
    assert_int_equal(mn_renderer_draw(r, &scene, &cam, &img, &err), MN_OK);
    for (size_t i = 0; i < (size_t)W * H; i++)
        assert_true(is_background(img.pixels + 4 * i));
    mn_rgba_image_free(&img);
    mn_rgba_image_free(&wrong);
    mn_renderer_free(r);
}

/* Extreme coordinates (huge, tiny, behind the camera, on the eye) draw without harm. */
static void test_hostile_geometry(void **state)
{
    (void)state;
    static const float values[] = {0.0f, 1.0f, -1.0f, 1e30f, -1e30f, 1e-30f, 3.4e38f, -3.4e38f,
                                   0.5f, -0.5f, 1e6f, -1e6f, 1e-6f, 2.0f, -2.0f};
    enum { N = 600 };
    static float pos[N * 9], uv[N * 6];
    uint32_t seed = 12345;
    for (size_t i = 0; i < N * 9; i++) {
        seed = seed * 1103515245u + 12345u;
        pos[i] = values[(seed >> 16) % (sizeof values / sizeof values[0])];
    }
    for (size_t i = 0; i < N * 6; i++) {
        seed = seed * 1103515245u + 12345u;
        uv[i] = values[(seed >> 16) % (sizeof values / sizeof values[0])];
    }
    uint8_t storage[8];
    static const int bits[2] = {0, 1};
    mn_render_texture tex = bw_texture(storage, bits, 2, 1, MN_WRAP_MIRRORED_REPEAT);
    tex.nearest = false;
    mn_render_material mat = solid(1, 1, 1, 0.5f, MN_ALPHA_BLEND);
    mat.texture = 0;
    mat.double_sided = true;
    mn_render_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    mesh.vertex_count = N * 3;
    mesh.positions = pos;
    mesh.uv[0] = uv;
    mesh.material = 0;
    mn_render_scene scene = {&mesh, 1, &mat, 1, &tex, 1, NULL, 0};
    mn_renderer *r = renderer(W, H, 2, 2, NULL);
    mn_rgba_image img;
    mn_error err;
    assert_int_equal(mn_renderer_reserve(r, N, &err), MN_OK);
    assert_int_equal(mn_rgba_image_create(W, H, NULL, &img, &err), MN_OK);
    const float lo[3] = {-2, -2, -2}, hi[3] = {2, 2, 2};
    for (int v = 0; v < 4; v++) {
        mn_render_view view = {.kind = (mn_render_view_kind)v, .yaw = 0.3f, .pitch = 0.2f,
                               .distance = v == 0 ? 0.5f : 0.0f};
        mn_render_camera cam;
        assert_int_equal(mn_render_camera_frame(lo, hi, &view, 1.0f, &cam, &err), MN_OK);
        assert_int_equal(mn_renderer_draw(r, &scene, &cam, &img, &err), MN_OK);
    }
    mn_rgba_image_free(&img);
    mn_renderer_free(r);
}

/* ---- images, text, sheets -------------------------------------------------------------- */

static void test_png_round_trip(void **state)
{
    (void)state;
    mn_rgba_image img, back;
    mn_error err;
    assert_int_equal(mn_rgba_image_create(5, 3, NULL, &img, &err), MN_OK);
    for (size_t i = 0; i < 5 * 3 * 4; i++)
        img.pixels[i] = (uint8_t)(i * 37);
    char path[] = "/tmp/mn_render_png_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(mn_rgba_image_write_png(&img, path, &err), MN_OK);
    assert_int_equal(mn_rgba_image_read_file(path, NULL, &back, &err), MN_OK);
    assert_int_equal(back.width, 5);
    assert_int_equal(back.height, 3);
    assert_memory_equal(back.pixels, img.pixels, 5 * 3 * 4);
    mn_rgba_image_free(&back);
    remove(path);

    assert_int_equal(mn_rgba_image_write_png(&img, "/nonexistent-dir/x.png", &err), MN_IO);
    assert_non_null(strstr(err.message, "/nonexistent-dir/x.png"));
    assert_int_equal(mn_rgba_image_read_file("/nonexistent-dir/x.png", NULL, &back, &err), MN_IO);
    static const uint8_t junk[16] = "not an image...";
    assert_int_equal(mn_rgba_image_decode(junk, sizeof junk, NULL, &back, &err), MN_INVALID_VALUE);
    assert_null(back.pixels);
    mn_rgba_image_free(&img);
}

static void test_text_and_sheet(void **state)
{
    (void)state;
    mn_sheet sheet;
    mn_error err;
    const uint8_t dark[4] = {10, 10, 10, 255};
    assert_int_equal(mn_sheet_create(5, 40, 30, dark, NULL, &sheet, &err), MN_OK);
    assert_int_equal(sheet.columns, 3);
    assert_int_equal(sheet.rows, 2);
    assert_int_equal(sheet.image.width, 120);
    assert_int_equal(sheet.image.height, 2 * (30 + sheet.label_height));
    mn_rgba_image cell;
    assert_int_equal(mn_rgba_image_create(40, 30, NULL, &cell, &err), MN_OK);
    const uint8_t white[4] = {255, 255, 255, 255};
    mn_rgba_image_fill(&cell, white);
    mn_sheet_put(&sheet, 4, &cell, "T=1");
    /* Cell 4 is column 1 of row 1; its label strip has ink, the empty cell 5's does not. */
    uint32_t y0 = sheet.cell_height + sheet.label_height;
    assert_memory_equal(px(&sheet.image, 40, y0), white, 4);
    size_t ink = 0, ink_empty = 0;
    for (uint32_t y = y0 + 30; y < y0 + 30 + sheet.label_height; y++)
        for (uint32_t x = 0; x < 40; x++) {
            ink += px(&sheet.image, 40 + x, y)[0] > 128;
            ink_empty += px(&sheet.image, 80 + x, y)[0] > 128;
        }
    assert_true(ink > 10);
    assert_int_equal(ink_empty, 0);
    mn_rgba_image_free(&cell);
    mn_sheet_free(&sheet);
    assert_int_equal(mn_sheet_create(0, 40, 30, dark, NULL, &sheet, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_sheet_create(1000, 8000, 8000, dark, NULL, &sheet, &err), MN_OVERFLOW);

    /* Digits differ from each other; lower case draws as upper case. */
    mn_rgba_image a, b;
    assert_int_equal(mn_rgba_image_create(12, 9, NULL, &a, &err), MN_OK);
    assert_int_equal(mn_rgba_image_create(12, 9, NULL, &b, &err), MN_OK);
    assert_int_equal(mn_rgba_image_text(&a, 0, 0, 1, white, "ab"), 12);
    mn_rgba_image_text(&b, 0, 0, 1, white, "AB");
    assert_memory_equal(a.pixels, b.pixels, 12 * 9 * 4);
    memset(a.pixels, 0, 12 * 9 * 4);
    memset(b.pixels, 0, 12 * 9 * 4);
    mn_rgba_image_text(&a, 0, 0, 1, white, "0");
    mn_rgba_image_text(&b, 0, 0, 1, white, "8");
    assert_true(memcmp(a.pixels, b.pixels, 12 * 9 * 4) != 0);
    /* Text is cut at the image's edges. */
    mn_rgba_image_text(&a, -3, 5, 3, white, "WIDE TEXT");
    mn_rgba_image_free(&a);
    mn_rgba_image_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_depth_order),
        cmocka_unit_test(test_culling),
        cmocka_unit_test(test_wrap_modes),
        cmocka_unit_test(test_uv_transform_and_texcoord_set),
        cmocka_unit_test(test_perspective_correct_uv),
        cmocka_unit_test(test_mask),
        cmocka_unit_test(test_blend_sorted),
        cmocka_unit_test(test_shared_edge_drawn_once),
        cmocka_unit_test(test_transparent_background_and_supersampling),
        cmocka_unit_test(test_framing),
        cmocka_unit_test(test_scene_bounds),
        cmocka_unit_test(test_threads_same_bytes_and_no_allocation),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_hostile_geometry),
        cmocka_unit_test(test_png_round_trip),
        cmocka_unit_test(test_text_and_sheet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
