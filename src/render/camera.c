/*
 * render/camera: cameras framed from bounds.  The camera looks at the box's
 * centre from the view's direction and is set back (perspective) or widened
 * (orthographic) until every corner of the box lies inside the image less the
 * margin, so any model fills a thumbnail the same way whatever its units.
 */
#include <marionette/render.h>

#include "core/core.h"

#include <math.h>
#include <string.h>

#define DEFAULT_FOV 0.6981317f     /* 40 degrees */
#define DEFAULT_MARGIN 0.06f

static float dot3(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(float out[3], const float a[3], const float b[3])
{
    float x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2],
          z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

static void normalize3(float v[3])
{
    float len = sqrtf(dot3(v, v));
    if (len > 0.0f)
        for (int i = 0; i < 3; i++)
            v[i] /= len;
}

static bool box_usable(const float lo[3], const float hi[3])
{
    for (int i = 0; i < 3; i++)
        if (!isfinite(lo[i]) || !isfinite(hi[i]) || lo[i] > hi[i])
            return false;
    return true;
}

/* Direction from the target towards the camera, and the camera's up. */
static void view_direction(const mn_render_view *view, float back[3], float up[3])
{
    float yaw = view->yaw, pitch = view->pitch;
    switch (view->kind) {
    case MN_VIEW_FRONT: yaw = 0.0f; pitch = 0.0f; break;
    case MN_VIEW_SIDE: yaw = 1.5707963f; pitch = 0.0f; break;
    case MN_VIEW_TOP: yaw = 0.0f; pitch = 1.5707963f; break;
    case MN_VIEW_ORBIT: break;
    }
    back[0] = sinf(yaw) * cosf(pitch);
    back[1] = sinf(pitch);
    back[2] = cosf(yaw) * cosf(pitch);
    /* Looking straight down (or up), world y cannot be up: the image's up is
       then the direction the camera's yaw faces away from. */
    if (fabsf(back[1]) > 0.999f) {
        up[0] = -sinf(yaw) * (back[1] > 0 ? 1.0f : -1.0f);
        up[1] = 0.0f;
        up[2] = -cosf(yaw) * (back[1] > 0 ? 1.0f : -1.0f);
    } else {
        up[0] = 0.0f;
        up[1] = 1.0f;
        up[2] = 0.0f;
    }
}

mn_status mn_render_camera_frame(const float lo[3], const float hi[3], const mn_render_view *view,
                                 float aspect, mn_render_camera *out, mn_error *err)
{
    if (!out || !view)
        return mni_fail(err, MN_INVALID_ARGUMENT, "camera: NULL view or out");
    if (!isfinite(aspect) || aspect <= 0.0f || !isfinite(view->yaw) || !isfinite(view->pitch) ||
        !isfinite(view->distance) || view->distance < 0.0f || !isfinite(view->fov_y) ||
        view->fov_y < 0.0f || view->fov_y >= 3.1415926f || !isfinite(view->margin) ||
        view->margin < 0.0f || view->margin >= 0.45f ||
        (view->kind == MN_VIEW_ORBIT && fabsf(view->pitch) > 1.5707964f))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "camera: aspect %g, yaw %g, pitch %g, distance %g, fov %g or margin %g "
                        "out of range",
                        (double)aspect, (double)view->yaw, (double)view->pitch,
                        (double)view->distance, (double)view->fov_y, (double)view->margin);
    float blo[3] = {-0.5f, -0.5f, -0.5f}, bhi[3] = {0.5f, 0.5f, 0.5f};
    if (lo && hi && box_usable(lo, hi)) {
        memcpy(blo, lo, sizeof blo);
        memcpy(bhi, hi, sizeof bhi);
    }
    float center[3], half[3];
    for (int i = 0; i < 3; i++) {
        center[i] = 0.5f * (blo[i] + bhi[i]);
        half[i] = 0.5f * (bhi[i] - blo[i]);
    }
    float radius = sqrtf(dot3(half, half));
    if (!(radius > 0.0f)) {   /* a point: frame a unit box round it */
        for (int i = 0; i < 3; i++)
            half[i] = 0.5f;
        radius = sqrtf(0.75f);
    }

    float back[3], up[3], right[3];
    view_direction(view, back, up);
    float forward[3] = {-back[0], -back[1], -back[2]};
    cross3(right, forward, up);
    normalize3(right);
    cross3(up, right, forward);

    /* The corners in the camera's frame: x right, y up, z towards the camera. */
    float margin = view->margin > 0.0f ? view->margin : DEFAULT_MARGIN;
    float fill = 1.0f - 2.0f * margin;
    float ext_x = 0.0f, ext_y = 0.0f, z_near = -radius, z_far = radius;
    float corners[8][3];
    for (int k = 0; k < 8; k++) {
        float p[3] = {(k & 1) ? half[0] : -half[0], (k & 2) ? half[1] : -half[1],
                      (k & 4) ? half[2] : -half[2]};
        corners[k][0] = dot3(p, right);
        corners[k][1] = dot3(p, up);
        corners[k][2] = dot3(p, back);
        ext_x = fmaxf(ext_x, fabsf(corners[k][0]));
        ext_y = fmaxf(ext_y, fabsf(corners[k][1]));
        z_near = k ? fmaxf(z_near, corners[k][2]) : corners[k][2];
        z_far = k ? fminf(z_far, corners[k][2]) : corners[k][2];
    }

    bool ortho = view->kind != MN_VIEW_ORBIT;
    float distance, near_plane, far_plane;
    memset(out->projection, 0, sizeof out->projection);
    if (ortho) {
        float h = fmaxf(ext_y, ext_x / aspect) / fill;
        if (!(h > 0.0f))
            h = radius;
        distance = view->distance > 0.0f ? view->distance : 2.0f * radius;
        near_plane = distance - z_near - 0.1f * radius;
        far_plane = distance - z_far + 0.1f * radius;
        out->projection[0] = 1.0f / (h * aspect);
        out->projection[5] = 1.0f / h;
        out->projection[10] = -2.0f / (far_plane - near_plane);
        out->projection[14] = -(far_plane + near_plane) / (far_plane - near_plane);
        out->projection[15] = 1.0f;
    } else {
        float fov = view->fov_y > 0.0f ? view->fov_y : DEFAULT_FOV;
        float ty = tanf(0.5f * fov) * fill, tx = ty * aspect;
        distance = view->distance;
        if (distance == 0.0f)
            for (int k = 0; k < 8; k++) {
                float need = corners[k][2] + fmaxf(fabsf(corners[k][0]) / tx,
                                                   fabsf(corners[k][1]) / ty);
                distance = fmaxf(distance, need);
            }
        near_plane = fmaxf(0.5f * (distance - z_near), 1e-3f * radius);
        far_plane = fmaxf((distance - z_far) * 1.5f, near_plane * 2.0f);
        float f = 1.0f / tanf(0.5f * fov);
        out->projection[0] = f / aspect;
        out->projection[5] = f;
        out->projection[10] = (far_plane + near_plane) / (near_plane - far_plane);
        out->projection[11] = -1.0f;
        out->projection[14] = 2.0f * far_plane * near_plane / (near_plane - far_plane);
    }

    float eye[3];
    for (int i = 0; i < 3; i++)
        eye[i] = center[i] + back[i] * distance;
    float *v = out->view;
    memset(v, 0, sizeof out->view);
    for (int i = 0; i < 3; i++) {
        v[i * 4 + 0] = right[i];
        v[i * 4 + 1] = up[i];
        v[i * 4 + 2] = back[i];
    }
    v[12] = -dot3(right, eye);
    v[13] = -dot3(up, eye);
    v[14] = -dot3(back, eye);
    v[15] = 1.0f;
    out->orthographic = ortho;
    return MN_OK;
}
