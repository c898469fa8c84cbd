/*
 * render/setup: from meshes to screen triangles.  Each triangle's corners are
 * transformed to clip space (normals to view space by the inverse-transpose),
 * clipped against the near plane (a triangle may become two), divided by w,
 * culled when they face away from a one-sided material, wound to a positive
 * screen area, and filed as opaque (drawn in scene order) or BLEND (drawn
 * after, farthest first).
 */
#include "render/raster_internal.h"

#include <math.h>
#include <string.h>

/* A corner in clip space with its attributes. */
typedef struct corner {
    float clip[4];
    float attr[MN_ATTRS];
} corner;

typedef struct mesh_xform {
    float mvp[16];
    float mv[16];
    float normal[9];             /* view-space normal matrix (cofactors of MV's 3x3, signed) */
    float winding;               /* −1 when the model matrix mirrors (front faces flip) */
    float uv[6], emissive_uv[6];
    const mn_render_material *material;
    uint32_t material_index;
    bool blend;
} mesh_xform;

static void mat4_mul(float out[16], const float a[16], const float b[16])
{
    float t[16];
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            t[c * 4 + r] = a[r] * b[c * 4] + a[4 + r] * b[c * 4 + 1] + a[8 + r] * b[c * 4 + 2] +
                           a[12 + r] * b[c * 4 + 3];
    memcpy(out, t, sizeof t);
}

/* Cofactor matrix of the 3x3 part of m (= det · inverse-transpose), as 9 floats column-major. */
static float cofactors(const float m[16], float out[9])
{
    const float a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6],
                i = m[10];
    /* rows of the cofactor matrix; out is column-major */
    float c00 = e * i - f * h, c01 = -(d * i - f * g), c02 = d * h - e * g;
    float c10 = -(b * i - c * h), c11 = a * i - c * g, c12 = -(a * h - b * g);
    float c20 = b * f - c * e, c21 = -(a * f - c * d), c22 = a * e - b * d;
    out[0] = c00; out[3] = c01; out[6] = c02;
    out[1] = c10; out[4] = c11; out[7] = c12;
    out[2] = c20; out[5] = c21; out[8] = c22;
    return a * c00 + b * c01 + c * c02;
}

static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

/* A material's uv matrix, all zeros meaning the identity. */
static void uv_matrix(const float m[6], float out[6])
{
    static const float uv_identity[6] = {1, 0, 0, 1, 0, 0};
    bool any = false;
    for (int i = 0; i < 6; i++)
        any = any || m[i] != 0.0f;
    memcpy(out, any ? m : uv_identity, 6 * sizeof *out);
}

/* uv set `set` of vertex v through matrix m into out[2]; zeros when the mesh lacks the set. */
static void load_uv(const mn_render_mesh *mesh, uint32_t set, uint32_t v, const float m[6],
                    float out[2])
{
    set = set == 1 ? 1 : 0;
    if (!mesh->uv[set]) {
        out[0] = out[1] = 0.0f;
        return;
    }
    const float *uv = mesh->uv[set] + (size_t)v * (mesh->uv_stride[set] ? mesh->uv_stride[set] : 2);
    out[0] = m[0] * uv[0] + m[2] * uv[1] + m[4];
    out[1] = m[1] * uv[0] + m[3] * uv[1] + m[5];
}

static void mesh_prepare(const mn_render_scene *scene, const mn_render_mesh *mesh,
                         const mn_render_camera *camera, mesh_xform *x)
{
    const float *model = mesh->matrix ? mesh->matrix : identity;
    mat4_mul(x->mv, camera->view, model);
    mat4_mul(x->mvp, camera->projection, x->mv);
    float det = cofactors(x->mv, x->normal);
    if (det < 0.0f)
        for (int i = 0; i < 9; i++)
            x->normal[i] = -x->normal[i];
    x->winding = det < 0.0f ? -1.0f : 1.0f;
    static const mn_render_material plain = {.base_color = {1, 1, 1, 1}, .texture = MN_NONE,
                                             .emissive_texture = MN_NONE};
    x->material_index = mesh->material < scene->material_count ? mesh->material : MN_NONE;
    x->material = x->material_index == MN_NONE ? &plain : &scene->materials[x->material_index];
    x->blend = x->material->alpha_mode == MN_ALPHA_BLEND;
    uv_matrix(x->material->uv_transform, x->uv);
    uv_matrix(x->material->emissive_uv_transform, x->emissive_uv);
}

static void load_corner(const mn_render_mesh *mesh, const mesh_xform *x, uint32_t v, corner *c)
{
    const float *p = mesh->positions + (size_t)v * (mesh->position_stride ? mesh->position_stride : 3);
    for (int r = 0; r < 4; r++)
        c->clip[r] = x->mvp[r] * p[0] + x->mvp[4 + r] * p[1] + x->mvp[8 + r] * p[2] + x->mvp[12 + r];
    if (mesh->normals) {
        const float *n = mesh->normals + (size_t)v * (mesh->normal_stride ? mesh->normal_stride : 3);
        for (int r = 0; r < 3; r++)
            c->attr[r] = x->normal[r] * n[0] + x->normal[3 + r] * n[1] + x->normal[6 + r] * n[2];
    }
    if (mesh->colors) {
        uint32_t comps = mesh->color_components == 3 ? 3 : 4;
        const float *col = mesh->colors + (size_t)v * (mesh->color_stride ? mesh->color_stride : comps);
        for (uint32_t i = 0; i < comps; i++)
            c->attr[3 + i] = col[i];
        if (comps == 3)
            c->attr[6] = 1.0f;
    } else {
        c->attr[3] = c->attr[4] = c->attr[5] = c->attr[6] = 1.0f;
    }
    load_uv(mesh, x->material->texcoord, v, x->uv, &c->attr[7]);
    load_uv(mesh, x->material->emissive_texcoord, v, x->emissive_uv, &c->attr[9]);
    for (int r = 0; r < 3; r++)
        c->attr[MN_ATTR_POSITION + r] = x->mv[r] * p[0] + x->mv[4 + r] * p[1] + x->mv[8 + r] * p[2] + x->mv[12 + r];
}

/* The face normal in view space, for meshes without normals (front side out). */
static void face_normal(const mn_render_mesh *mesh, const mesh_xform *x, const uint32_t v[3],
                        float out[3])
{
    float q[3][3];
    for (int k = 0; k < 3; k++) {
        const float *p =
            mesh->positions + (size_t)v[k] * (mesh->position_stride ? mesh->position_stride : 3);
        for (int r = 0; r < 3; r++)
            q[k][r] = x->mv[r] * p[0] + x->mv[4 + r] * p[1] + x->mv[8 + r] * p[2] + x->mv[12 + r];
    }
    float e1[3] = {q[1][0] - q[0][0], q[1][1] - q[0][1], q[1][2] - q[0][2]};
    float e2[3] = {q[2][0] - q[0][0], q[2][1] - q[0][1], q[2][2] - q[0][2]};
    out[0] = (e1[1] * e2[2] - e1[2] * e2[1]) * x->winding;
    out[1] = (e1[2] * e2[0] - e1[0] * e2[2]) * x->winding;
    out[2] = (e1[0] * e2[1] - e1[1] * e2[0]) * x->winding;
}

static bool corner_finite(const corner *c)
{
    float s = 0.0f;
    for (int i = 0; i < 4; i++)
        s += c->clip[i] * 0.0f;
    for (int i = 0; i < MN_ATTRS; i++)
        s += c->attr[i] * 0.0f;
    return s == 0.0f;   /* NaN or infinity anywhere makes s NaN */
}

static void lerp_corner(corner *out, const corner *a, const corner *b, float t)
{
    for (int i = 0; i < 4; i++)
        out->clip[i] = a->clip[i] + (b->clip[i] - a->clip[i]) * t;
    for (int i = 0; i < MN_ATTRS; i++)
        out->attr[i] = a->attr[i] + (b->attr[i] - a->attr[i]) * t;
}

/* Clip a triangle against the near plane z = −w; returns the polygon's corner count (0, 3 or 4). */
static int clip_near(const corner in[3], corner out[4])
{
    float d[3];
    int inside = 0;
    for (int k = 0; k < 3; k++) {
        d[k] = in[k].clip[2] + in[k].clip[3];
        inside += d[k] >= 0.0f;
    }
    if (inside == 3) {
        memcpy(out, in, 3 * sizeof *in);
        return 3;
    }
    if (inside == 0)
        return 0;
    int n = 0;
    for (int k = 0; k < 3; k++) {
        const corner *a = &in[k], *b = &in[(k + 1) % 3];
        float da = d[k], db = d[(k + 1) % 3];
        if (da >= 0.0f)
            out[n++] = *a;
        if ((da >= 0.0f) != (db >= 0.0f))
            lerp_corner(&out[n++], a, b, da / (da - db));
    }
    return n;
}

/* Project a clipped triangle and file it; false when it is culled or off the grid. */
static bool emit(mn_renderer *r, const mesh_xform *x, const corner *c0, const corner *c1,
                 const corner *c2)
{
    const corner *c[3] = {c0, c1, c2};
    mn_rtri t;
    for (int k = 0; k < 3; k++) {
        float w = c[k]->clip[3];
        if (!(w > 0.0f))
            return false;
        float iw = 1.0f / w;
        t.x[k] = (c[k]->clip[0] * iw * 0.5f + 0.5f) * (float)r->sw;
        t.y[k] = (0.5f - c[k]->clip[1] * iw * 0.5f) * (float)r->sh;
        t.z[k] = c[k]->clip[2] * iw;
        t.iw[k] = iw;
        memcpy(t.attr[k], c[k]->attr, sizeof t.attr[k]);
    }
    float area = (t.x[1] - t.x[0]) * (t.y[2] - t.y[0]) - (t.x[2] - t.x[0]) * (t.y[1] - t.y[0]);
    if (!(area != 0.0f) || !isfinite(area))
        return false;
    /* Counter-clockwise in NDC (glTF's front) is a negative area with y down. */
    bool front = area * x->winding < 0.0f;
    if (!front && !x->material->double_sided)
        return false;
    t.back = !front;
    if (area < 0.0f) {   /* wind to a positive area: swap corners 1 and 2 */
        mn_rtri s = t;
        t.x[1] = s.x[2]; t.x[2] = s.x[1];
        t.y[1] = s.y[2]; t.y[2] = s.y[1];
        t.z[1] = s.z[2]; t.z[2] = s.z[1];
        t.iw[1] = s.iw[2]; t.iw[2] = s.iw[1];
        memcpy(t.attr[1], s.attr[2], sizeof t.attr[1]);
        memcpy(t.attr[2], s.attr[1], sizeof t.attr[2]);
    }
    float xmin = fminf(t.x[0], fminf(t.x[1], t.x[2])), xmax = fmaxf(t.x[0], fmaxf(t.x[1], t.x[2]));
    float ymin = fminf(t.y[0], fminf(t.y[1], t.y[2])), ymax = fmaxf(t.y[0], fmaxf(t.y[1], t.y[2]));
    if (!(xmax >= 0.0f && ymax >= 0.0f && xmin < (float)r->sw && ymin < (float)r->sh))
        return false;
    if (r->tri_count >= r->capacity)
        return false;
    t.material = x->material_index;
    uint32_t index = r->tri_count++;
    r->tris[index] = t;
    /* Sample rows whose centres (row + 0.5) may be covered. */
    float lo = floorf(ymin - 0.5f), hi = ceilf(ymax - 0.5f);
    r->spans[2 * index] = lo < 0.0f ? 0 : (int32_t)lo;
    r->spans[2 * index + 1] = hi >= (float)r->sh ? (int32_t)r->sh - 1 : (int32_t)hi;
    if (x->blend) {
        r->keys[index] = (t.z[0] + t.z[1] + t.z[2]) * (1.0f / 3.0f);
        /* BLEND triangles collect at the end of order; setup moves them after the opaque ones. */
        r->order[r->capacity - 1 - (index - r->opaque_count)] = index;
    } else {
        r->order[r->opaque_count++] = index;
    }
    return true;
}

/* Far first (greater depth first); equal depths in scene order, so the order is total. */
static bool draws_before(const mn_renderer *r, uint32_t a, uint32_t b)
{
    float ka = r->keys[a], kb = r->keys[b];
    return ka > kb || (ka == kb && a < b);
}

static void sift_down(mn_renderer *r, uint32_t *v, size_t start, size_t n)
{
    size_t root = start;
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && draws_before(r, v[child], v[child + 1]))
            child++;
        if (!draws_before(r, v[root], v[child]))
            return;
        uint32_t tmp = v[root];
        v[root] = v[child];
        v[child] = tmp;
        root = child;
    }
}

/* Heap sort: in place, no allocation, O(n log n) whatever the input. */
static void sort_blend(mn_renderer *r, uint32_t *v, size_t n)
{
    if (n < 2)
        return;
    for (size_t i = n / 2; i-- > 0;)
        sift_down(r, v, i, n);
    for (size_t end = n - 1; end > 0; end--) {
        uint32_t tmp = v[0];
        v[0] = v[end];
        v[end] = tmp;
        sift_down(r, v, 0, end);
    }
}

void mni_raster_setup(mn_renderer *r, const mn_render_scene *scene, const mn_render_camera *camera)
{
    r->tri_count = 0;
    r->opaque_count = 0;
    /* Opaque and BLEND triangles interleave in tris; count the BLEND ones as they come. */
    uint32_t blend_count = 0;
    for (uint32_t m = 0; m < scene->mesh_count; m++) {
        const mn_render_mesh *mesh = &scene->meshes[m];
        if (!mesh->positions || mesh->hidden)
            continue;
        mesh_xform x;
        mesh_prepare(scene, mesh, camera, &x);
        uint32_t tris = mesh->indices ? mesh->index_count / 3 : mesh->vertex_count / 3;
        for (uint32_t i = 0; i < tris; i++) {
            uint32_t v[3];
            for (int k = 0; k < 3; k++)
                v[k] = mesh->indices ? mesh->indices[3 * i + (uint32_t)k] : 3 * i + (uint32_t)k;
            if (v[0] >= mesh->vertex_count || v[1] >= mesh->vertex_count ||
                v[2] >= mesh->vertex_count)
                continue;
            corner in[3];
            for (int k = 0; k < 3; k++)
                load_corner(mesh, &x, v[k], &in[k]);
            if (!mesh->normals) {
                float n[3];
                face_normal(mesh, &x, v, n);
                for (int k = 0; k < 3; k++)
                    memcpy(in[k].attr, n, sizeof n);
            }
            if (!corner_finite(&in[0]) || !corner_finite(&in[1]) || !corner_finite(&in[2]))
                continue;
            corner poly[4];
            int n = clip_near(in, poly);
            for (int k = 1; k + 1 < n; k++) {
                /* emit files a BLEND triangle at order[capacity - 1 - (index - opaque)],
                   which stays unique because index - opaque counts BLEND ones so far. */
                uint32_t before = r->opaque_count;
                if (emit(r, &x, &poly[0], &poly[k], &poly[k + 1]) && r->opaque_count == before)
                    blend_count++;
            }
        }
    }
    /* Move the BLEND indices (collected at the end) after the opaque ones, then sort them
       far to near; the sort's order is total, so where they started does not matter. */
    uint32_t *blend = r->order + r->opaque_count;
    memmove(blend, r->order + r->capacity - blend_count, blend_count * sizeof *blend);
    sort_blend(r, blend, blend_count);
}
