/*
 * render/shade: what colour a fragment is.  Material factor × vertex colour ×
 * texture sample (sRGB texels decoded to linear), then a fixed three-term
 * light chosen so form reads in a thumbnail: a key light from the upper left
 * (in view space, so every view and turntable frame is lit alike), a
 * sky/ground ambient, and a rim term that brightens silhouettes.  A scene
 * with lights of its own (KHR_lights_punctual) is lit by them instead, over
 * a dimmer ambient, with the falloffs the extension recommends.
 */
#include "render/raster_internal.h"

#include <math.h>
#include <string.h>

static const mn_render_material default_material = {
    .base_color = {1.0f, 1.0f, 1.0f, 1.0f},
    .texture = MN_NONE,
    .emissive_texture = MN_NONE,
    .alpha_mode = MN_ALPHA_OPAQUE,
    .alpha_cutoff = 0.5f,
};

/* The key light's direction (towards the light), unit length, view space. */
static const float key_dir[3] = {-0.4923660f, 0.6154575f, 0.6154575f};
#define KEY_STRENGTH 0.85f
#define SKY_AMBIENT 0.42f
#define GROUND_AMBIENT 0.16f
#define RIM_STRENGTH 0.35f
#define LIT_AMBIENT 0.5f   /* the ambient's share with the scene's own lights */

void mni_raster_tables(mn_renderer *r)
{
    for (int i = 0; i < 256; i++) {
        float c = (float)i / 255.0f;
        r->srgb_to_linear[i] = c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
    }
    for (int i = 0; i < 4096; i++) {
        float v = (float)i / 4095.0f;
        float s = v <= 0.0031308f ? v * 12.92f : 1.055f * powf(v, 1.0f / 2.4f) - 0.055f;
        r->linear_to_srgb[i] = (uint8_t)(s * 255.0f + 0.5f);
    }
}

/*
 * A texel index folded by the wrap mode into [0, size).  The coordinate was
 * reduced first (reduce_coordinate), so i lies in [-1, 2 × size]: a compare
 * or two does what a modulo would, without the division.
 */
static int32_t wrap_index(int32_t i, int32_t size, uint32_t mode)
{
    if (mode == MN_WRAP_CLAMP_TO_EDGE)
        return i < 0 ? 0 : i >= size ? size - 1 : i;
    if (mode == MN_WRAP_MIRRORED_REPEAT) {
        int32_t period = 2 * size;
        int32_t m = i < 0 ? i + period : i >= period ? i - period : i;
        return m < size ? m : period - 1 - m;
    }
    int32_t m = i < 0 ? i + size : i;
    while (m >= size)
        m -= size;
    return m;
}

/* Bring a coordinate into [0, 2) (both repeats have a period dividing 2) or, for a clamp, [-1, 2]. */
static float reduce_coordinate(float c, uint32_t mode)
{
    if (!isfinite(c))
        return 0.0f;
    if (mode == MN_WRAP_CLAMP_TO_EDGE)
        return c < -1.0f ? -1.0f : c > 2.0f ? 2.0f : c;
    float r = c - 2.0f * floorf(0.5f * c);
    return r >= 2.0f || r < 0.0f ? 0.0f : r;   /* rounding at the period's end */
}

static void texel(const mn_renderer *r, const mn_render_texture *tex, int32_t x, int32_t y,
                  float out[4])
{
    const uint8_t *p = tex->rgba + 4 * ((size_t)y * tex->width + (size_t)x);
    out[0] = r->srgb_to_linear[p[0]];
    out[1] = r->srgb_to_linear[p[1]];
    out[2] = r->srgb_to_linear[p[2]];
    out[3] = (float)p[3] * (1.0f / 255.0f);
}

static void sample_texture(const mn_renderer *r, const mn_render_texture *tex, float u, float v,
                           float out[4])
{
    int32_t w = (int32_t)tex->width, h = (int32_t)tex->height;
    float fx = reduce_coordinate(u, tex->wrap_s) * (float)w;
    float fy = reduce_coordinate(v, tex->wrap_t) * (float)h;
    if (tex->nearest) {
        texel(r, tex, wrap_index((int32_t)floorf(fx), w, tex->wrap_s),
              wrap_index((int32_t)floorf(fy), h, tex->wrap_t), out);
        return;
    }
    fx -= 0.5f;
    fy -= 0.5f;
    float x0f = floorf(fx), y0f = floorf(fy);
    float ax = fx - x0f, ay = fy - y0f;
    int32_t x0 = (int32_t)x0f, y0 = (int32_t)y0f;
    int32_t xa = wrap_index(x0, w, tex->wrap_s), xb = wrap_index(x0 + 1, w, tex->wrap_s);
    int32_t ya = wrap_index(y0, h, tex->wrap_t), yb = wrap_index(y0 + 1, h, tex->wrap_t);
    float c00[4], c10[4], c01[4], c11[4];
    texel(r, tex, xa, ya, c00);
    texel(r, tex, xb, ya, c10);
    texel(r, tex, xa, yb, c01);
    texel(r, tex, xb, yb, c11);
    for (int i = 0; i < 4; i++) {
        float top = c00[i] + (c10[i] - c00[i]) * ax;
        float bottom = c01[i] + (c11[i] - c01[i]) * ax;
        out[i] = top + (bottom - top) * ay;
    }
}

/* ---- the scene's lights ---------------------------------------------------------------- */

static float dot3(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* v / |v| into out; (0, 0, -1) for a zero vector (a light down the view, whatever it was). */
static void unit3(const float v[3], float out[3])
{
    float len = sqrtf(dot3(v, v));
    if (!(len > 0.0f)) {
        out[0] = out[1] = 0.0f;
        out[2] = -1.0f;
        return;
    }
    for (int k = 0; k < 3; k++)
        out[k] = v[k] / len;
}

void mni_raster_lights(mn_renderer *r, const mn_render_scene *scene, const mn_render_camera *camera)
{
    const float *v = camera->view;
    r->light_count = scene->light_count < MN_RENDER_MAX_LIGHTS ? scene->light_count : MN_RENDER_MAX_LIGHTS;
    for (uint32_t i = 0; i < r->light_count; i++) {
        const mn_render_light *l = &scene->lights[i];
        mn_vlight *o = &r->lights[i];
        float d[3];
        for (int k = 0; k < 3; k++) {
            o->color[k] = l->color[k];
            o->position[k] = v[k] * l->position[0] + v[4 + k] * l->position[1] + v[8 + k] * l->position[2] + v[12 + k];
            d[k] = v[k] * l->direction[0] + v[4 + k] * l->direction[1] + v[8 + k] * l->direction[2];
        }
        o->type = l->type;
        unit3(d, o->spot_dir);
        for (int k = 0; k < 3; k++)
            o->to_light[k] = -o->spot_dir[k];
        o->inv_range = l->range > 0.0f ? 1.0f / l->range : 0.0f;
        /* The extension's cone: scale = 1 / max(0.001, cos inner − cos outer), offset = −cos outer · scale. */
        float span = l->inner_cos - l->outer_cos;
        o->cone_scale = 1.0f / (span > 0.001f ? span : 0.001f);
        o->cone_offset = -l->outer_cos * o->cone_scale;
    }
}

/* ambient + Σ lights' colour × attenuation × max(n·l, 0), per channel, at view-space point p. */
static void scene_light(const mn_renderer *r, const float n[3], const float p[3], float ambient, float out[3])
{
    out[0] = out[1] = out[2] = ambient;
    for (uint32_t i = 0; i < r->light_count; i++) {
        const mn_vlight *l = &r->lights[i];
        float to[3], att = 1.0f;
        if (l->type == MN_LIGHT_DIRECTIONAL) {
            memcpy(to, l->to_light, sizeof to);
        } else {
            float d[3] = {l->position[0] - p[0], l->position[1] - p[1], l->position[2] - p[2]};
            float d2 = dot3(d, d);
            if (!(d2 > 1e-12f))
                continue;
            float inv = 1.0f / sqrtf(d2);
            for (int k = 0; k < 3; k++)
                to[k] = d[k] * inv;
            att = 1.0f / d2;
            if (l->inv_range > 0.0f) {
                float q = d2 * l->inv_range * l->inv_range;   /* (d / range)² */
                float w = 1.0f - q * q;
                att *= w > 0.0f ? w * w : 0.0f;
            }
            if (l->type == MN_LIGHT_SPOT) {
                float cd = -dot3(l->spot_dir, to);
                float s = cd * l->cone_scale + l->cone_offset;
                s = s < 0.0f ? 0.0f : s > 1.0f ? 1.0f : s;
                att *= s * s;
            }
        }
        float ndl = dot3(n, to);
        if (!(ndl > 0.0f) || !(att > 0.0f))
            continue;
        for (int k = 0; k < 3; k++)
            out[k] += l->color[k] * att * ndl;
    }
}

bool mni_raster_shade(const mn_renderer *r, const mn_render_scene *scene, const mn_rtri *t,
                      const float attr[MN_ATTRS], float out[4])
{
    const mn_render_material *m =
        t->material == MN_NONE ? &default_material : &scene->materials[t->material];
    float c[4];
    for (int i = 0; i < 4; i++)
        c[i] = m->base_color[i] * attr[3 + i];
    if (m->texture != MN_NONE) {
        const mn_render_texture *tex = &scene->textures[m->texture];
        if (tex->rgba && tex->width > 0 && tex->height > 0) {
            float s[4];
            sample_texture(r, tex, attr[7], attr[8], s);
            for (int i = 0; i < 4; i++)
                c[i] *= s[i];
        }
    }
    if (m->alpha_mode == MN_ALPHA_OPAQUE)
        c[3] = 1.0f;
    else if (m->alpha_mode == MN_ALPHA_MASK) {
        if (!(c[3] >= m->alpha_cutoff))
            return false;
        c[3] = 1.0f;
    }

    float n[3] = {attr[0], attr[1], attr[2]};
    float len2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    if (len2 > 1e-20f) {
        float inv = 1.0f / sqrtf(len2);
        for (int i = 0; i < 3; i++)
            n[i] *= t->back ? -inv : inv;
    } else {
        n[0] = 0.0f;
        n[1] = 0.0f;
        n[2] = 1.0f;
    }
    float ambient = GROUND_AMBIENT + (SKY_AMBIENT - GROUND_AMBIENT) * (0.5f + 0.5f * n[1]);
    float light[3], rim = 0.0f;
    if (r->light_count) {
        scene_light(r, n, &attr[MN_ATTR_POSITION], LIT_AMBIENT * ambient, light);
    } else {
        float ndl = n[0] * key_dir[0] + n[1] * key_dir[1] + n[2] * key_dir[2];
        light[0] = light[1] = light[2] = ambient + KEY_STRENGTH * (ndl > 0.0f ? ndl : 0.0f);
        float facing = n[2] > 0.0f ? n[2] : 0.0f;
        rim = 1.0f - facing;
        rim = RIM_STRENGTH * rim * rim * rim;
    }
    float emissive[4] = {m->emissive[0], m->emissive[1], m->emissive[2], 1.0f};
    if (m->emissive_texture != MN_NONE && (emissive[0] > 0.0f || emissive[1] > 0.0f ||
                                           emissive[2] > 0.0f)) {
        const mn_render_texture *tex = &scene->textures[m->emissive_texture];
        if (tex->rgba && tex->width > 0 && tex->height > 0) {
            float s[4];
            sample_texture(r, tex, attr[9], attr[10], s);
            for (int i = 0; i < 3; i++)
                emissive[i] *= s[i];
        }
    }
    for (int i = 0; i < 3; i++)
        out[i] = c[i] * light[i] + rim * (0.25f + 0.75f * c[i]) + emissive[i];
    out[3] = c[3];
    return true;
}
