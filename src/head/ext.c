/*
 * head_ext, the expression head's control vector (docs/formats.md, "The
 * control vector"): the split into coefficients and gaze, region slices,
 * control names, the reduced view's widening, and gaze to eye rotations.
 * All of it is slicing over the pack's layout: nothing allocates.
 */
#include <marionette/head/head.h>

#include "core/core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

mn_status mn_head_ext_unpack(const mn_aosrig_head_ext *layout, const float *controls,
                             size_t count, float *expr, float *gaze, mn_error *err)
{
    if (!layout || !expr || !gaze || (!controls && count > 0))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "head_ext unpack: NULL layout, output or controls");
    if (count > layout->dim)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "head_ext: %zu controls, more than the layout's dim %u", count, layout->dim);
    for (size_t i = 0; i < layout->expr_dim; i++)
        expr[i] = i < count ? controls[i] : 0.0f;
    for (size_t i = 0; i < layout->gaze_dim; i++) {
        size_t k = layout->expr_dim + i;
        gaze[i] = k < count ? controls[k] : 0.0f;
    }
    return MN_OK;
}

size_t mn_head_ext_region_slices(const mn_aosrig_head_ext *layout, mn_head_ext_slice *out,
                                 size_t capacity)
{
    if (!layout)
        return 0;
    uint32_t start = 0;
    for (size_t r = 0; r < layout->region_count; r++) {
        const mn_aosrig_region *g = &layout->regions[r];
        if (out && r < capacity)
            out[r] = (mn_head_ext_slice){g->name, start, start + g->count};
        start += g->count;
    }
    return layout->region_count;
}

/* Digits of the largest index in a region of `count` coefficients, at least 3. */
static int index_digits(uint32_t count)
{
    int digits = 1;
    for (uint32_t n = count > 0 ? count - 1 : 0; n >= 10; n /= 10)
        digits++;
    return digits < 3 ? 3 : digits;
}

size_t mn_head_ext_control_name(const mn_aosrig_head_ext *layout, size_t index, char *buf,
                                size_t size)
{
    static const char *const gaze_names[4] = {"gaze_pitch_L", "gaze_yaw_L", "gaze_pitch_R",
                                              "gaze_yaw_R"};
    if (buf && size > 0)
        buf[0] = '\0';
    if (!layout || index >= layout->dim)
        return 0;
    int n = 0;
    if (index >= layout->expr_dim) {
        size_t g = index - layout->expr_dim;
        /* The layout's gaze_dim is 4 (the reader checks it); any other would have no names. */
        if (g >= 4)
            return 0;
        n = snprintf(buf, buf ? size : 0, "%s", gaze_names[g]);
    } else {
        uint32_t start = 0;
        for (size_t r = 0; r < layout->region_count; r++) {
            const mn_aosrig_region *g = &layout->regions[r];
            if (index < (size_t)start + g->count) {
                n = snprintf(buf, buf ? size : 0, "%s_%0*u", g->name, index_digits(g->count),
                             (unsigned)(index - start));
                break;
            }
            start += g->count;
        }
    }
    return n > 0 ? (size_t)n : 0;
}

size_t mn_head_ext_reduced_dim(const mn_aosrig_head_ext *layout)
{
    if (!layout)
        return 0;
    size_t n = layout->gaze_dim;
    for (size_t r = 0; r < layout->region_count; r++)
        n += layout->regions[r].has_reduced ? layout->regions[r].reduced : 0;
    return n;
}

mn_status mn_head_ext_widen(const mn_aosrig_head_ext *layout, const float *reduced,
                            size_t count, float *out, mn_error *err)
{
    if (!layout || !out || (!reduced && count > 0))
        return mni_fail(err, MN_INVALID_ARGUMENT, "head_ext widen: NULL layout, input or output");
    size_t want = mn_head_ext_reduced_dim(layout);
    if (count != want)
        return mni_fail(err, MN_COUNT_MISMATCH,
                        "reduced view: %zu floats, the layout's reduced view has %zu", count, want);
    memset(out, 0, (size_t)layout->dim * sizeof *out);
    size_t at = 0, start = 0;
    for (size_t r = 0; r < layout->region_count; r++) {
        const mn_aosrig_region *g = &layout->regions[r];
        uint32_t n = g->has_reduced ? g->reduced : 0;
        memcpy(out + start, reduced + at, n * sizeof *out);
        at += n;
        start += g->count;
    }
    memcpy(out + layout->expr_dim, reduced + at, layout->gaze_dim * sizeof *out);
    return MN_OK;
}

/* R = Ry(yaw)·Rx(pitch) = (cy, 0, sy, 0) ⊗ (cp, sp, 0, 0), written x y z w. */
static void eye_quat(float pitch, float yaw, float q[4])
{
    double cp = cos(0.5 * pitch), sp = sin(0.5 * pitch);
    double cy = cos(0.5 * yaw), sy = sin(0.5 * yaw);
    q[0] = (float)(cy * sp);
    q[1] = (float)(sy * cp);
    q[2] = (float)(-sy * sp);
    q[3] = (float)(cy * cp);
}

void mn_gaze_to_eye_rotations(const float gaze[4], float left[4], float right[4])
{
    eye_quat(gaze[0], gaze[1], left);
    eye_quat(gaze[2], gaze[3], right);
}
