/*
 * Seeing a head: the debug colourings (one packed RGBA per vertex) and the
 * transform that fits its bounds to a view (mn_head_joint_tint,
 * mn_height_tint, mn_uv_tint, mn_flat_tint, mn_pack_rgba,
 * mn_fit_verts_transform).  None of this
 * is on a frame's path; it only has to make a rig bug obvious.
 */
#include <marionette/head/head.h>
#include <marionette/head/aosrig.h>

#include <math.h>

/* WGSL pack4x8unorm: ⌊0.5 + 255·clamp(e, 0, 1)⌋, NaN as 0. */
static uint32_t unorm8(float e)
{
    if (!(e > 0.0f))
        return 0;           /* NaN and non-positive */
    if (e >= 1.0f)
        return 255;
    return (uint32_t)floorf(0.5f + 255.0f * e);
}

uint32_t mn_pack_rgba(float r, float g, float b, float a)
{
    return unorm8(r) | unorm8(g) << 8 | unorm8(b) << 16 | unorm8(a) << 24;
}

/*
 * Joint j's colour.  A 16-bit index scrambled by an odd multiplier (a
 * bijection on 16 bits, so neighbours in the skeleton look unlike) and spread
 * as three base-192 digits over 64..255: every joint a pack can name
 * (skinIndex is u16) gets its own colour, none dark, none the eyes' cyan
 * (red is never 0).
 */
static uint32_t joint_colour(uint32_t j)
{
    uint32_t s = (j * 40503u) & 0xffffu;
    uint32_t r = 64 + s % 192, g = 64 + (s / 192) % 192, b = 64 + s / (192 * 192);
    return r | g << 8 | b << 16 | 0xff000000u;
}

mn_status mn_head_joint_tint(const mn_aosrig *pack, uint32_t *out, size_t out_count)
{
    if (!pack || !out || out_count < pack->header.vertex_count)
        return MN_INVALID_ARGUMENT;
    const uint32_t eye_cyan = mn_pack_rgba(0.0f, 1.0f, 1.0f, 1.0f);
    size_t v_count = pack->header.vertex_count, k_count = pack->header.max_influence;
    for (size_t v = 0; v < v_count; v++) {
        float eye = fmaxf(pack->eye_weights[v], pack->eye_weights[v_count + v]);
        if (eye >= 0.5f) {
            out[v] = eye_cyan;
            continue;
        }
        /* The dominant joint: the largest weight, the first on a tie. */
        const uint16_t *ji = pack->skin_index + v * k_count;
        const float *wi = pack->skin_weight + v * k_count;
        size_t best = 0;
        for (size_t k = 1; k < k_count; k++)
            if (wi[k] > wi[best])
                best = k;
        out[v] = joint_colour(ji[best]);
    }
    return MN_OK;
}

void mn_height_tint(const float *verts, size_t vertex_count, uint32_t *out)
{
    float lo = INFINITY, hi = -INFINITY;
    for (size_t v = 0; v < vertex_count; v++) {
        lo = fminf(lo, verts[3 * v + 1]);
        hi = fmaxf(hi, verts[3 * v + 1]);
    }
    float extent = hi - lo;
    for (size_t v = 0; v < vertex_count; v++) {
        /* A flat (or empty) bound gives the middle of the ramp, never a division by zero. */
        float t = extent > 0.0f ? (verts[3 * v + 1] - lo) / extent : 0.5f;
        float mid = 1.0f - fabsf(2.0f * t - 1.0f);
        out[v] = mn_pack_rgba(t, 0.25f + 0.5f * mid, 1.0f - t, 1.0f);
    }
}

void mn_uv_tint(const float *uv, size_t vertex_count, uint32_t *out)
{
    for (size_t v = 0; v < vertex_count; v++)
        out[v] = mn_pack_rgba(uv[2 * v], uv[2 * v + 1], 0.0f, 1.0f);
}

void mn_flat_tint(size_t vertex_count, const float *rgb, uint32_t *out)
{
    static const float neutral[3] = {0.8f, 0.78f, 0.75f};
    const float *c = rgb ? rgb : neutral;
    uint32_t packed = mn_pack_rgba(c[0], c[1], c[2], 1.0f);
    for (size_t v = 0; v < vertex_count; v++)
        out[v] = packed;
}

mn_fit_view mn_fit_verts_transform(const float min[3], const float max[3],
                                   const mn_fit_options *options)
{
    mn_fit_options o = options ? *options : (mn_fit_options){0};
    float height = o.height > 0.0f ? o.height : MN_FIT_DEFAULT_HEIGHT;
    float centre[3], extent_y = max[1] - min[1];
    for (int i = 0; i < 3; i++)
        centre[i] = 0.5f * (min[i] + max[i]);
    mn_fit_view fit = {{0}, 1.0f, {0}};
    if (o.scale > 0.0f)
        fit.scale = o.scale;
    else if (extent_y > 0.0f)
        fit.scale = height / extent_y;
    for (int i = 0; i < 3; i++) {
        fit.transform[4 * i + i] = fit.scale;
        fit.transform[4 * i + 3] = o.offset[i] - fit.scale * centre[i];
        fit.centroid[i] = o.offset[i];
    }
    return fit;
}
