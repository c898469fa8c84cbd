/*
 * OBJ polygons to triangles, keeping the authored winding.
 *
 * The polygon's normal is Newell's (the sum over its edges; exact for a
 * planar polygon, a good average for a warped one).  The polygon is
 * projected onto the coordinate plane that normal is most perpendicular to,
 * with the axes taken cyclically (y z, z x, x y) so that the projection
 * keeps the orientation the normal's dominant component gives it.  Then:
 *
 *   - convex (every turn the same way, or straight): a fan from corner 0,
 *     the cheap common case (quads);
 *   - concave: ear clipping.  An ear is a strictly convex corner whose
 *     triangle holds no other remaining corner (corners at the same spot as
 *     the ear's own are allowed: polygons with holes bridged by a seam
 *     repeat them).  A simple polygon always has an ear (the two-ears
 *     theorem); one that crosses itself may not, and then the rest becomes
 *     a fan, as does a polygon with no area.  A work budget bounds the
 *     containment tests, so a hostile polygon of thousands of corners
 *     cannot take quadratic-times-n time: past it the rest is a fan too.
 */
#include "obj/internal.h"

#include <string.h>

/* normal = n / |n|, or (0, 0, 1) when n has no length; nothing when normal is NULL. */
static void unit_or_up(const double n[3], float normal[3])
{
    if (normal == NULL)
        return;
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(len > 0.0) || !isfinite(len)) {
        normal[0] = 0.0f;
        normal[1] = 0.0f;
        normal[2] = 1.0f;
        return;
    }
    for (int k = 0; k < 3; k++)
        normal[k] = (float)(n[k] / len);
}

void mni_obj_triangle_normal(const float *a, const float *b, const float *c, float normal[3])
{
    double u[3], v[3];
    for (int k = 0; k < 3; k++) {
        u[k] = (double)b[k] - (double)a[k];
        v[k] = (double)c[k] - (double)a[k];
    }
    double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    unit_or_up(n, normal);
}

static void newell(const float *positions, const mn_obj_corner *corners, uint32_t n, double out[3])
{
    out[0] = out[1] = out[2] = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        const float *p = positions + 3 * (size_t)corners[i].v;
        const float *q = positions + 3 * (size_t)corners[i + 1 == n ? 0 : i + 1].v;
        out[0] += ((double)p[1] - q[1]) * ((double)p[2] + q[2]);
        out[1] += ((double)p[2] - q[2]) * ((double)p[0] + q[0]);
        out[2] += ((double)p[0] - q[0]) * ((double)p[1] + q[1]);
    }
}

static double cross2(const double *a, const double *b, const double *c)
{
    return (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]);
}

/* Triangle (a, b, c), counter-clockwise, contains p (boundary included). */
static bool contains(const double *a, const double *b, const double *c, const double *p)
{
    double ab = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
    double bc = (c[0] - b[0]) * (p[1] - b[1]) - (c[1] - b[1]) * (p[0] - b[0]);
    double ca = (a[0] - c[0]) * (p[1] - c[1]) - (a[1] - c[1]) * (p[0] - c[0]);
    return ab >= 0.0 && bc >= 0.0 && ca >= 0.0;
}

static bool same_point(const double *a, const double *b)
{
    return a[0] == b[0] && a[1] == b[1];
}

static void emit(uint32_t *out, uint32_t *count, uint32_t a, uint32_t b, uint32_t c)
{
    out[3 * *count + 0] = a;
    out[3 * *count + 1] = b;
    out[3 * *count + 2] = c;
    (*count)++;
}

/* The rest of the ring from `first` on, as a fan. */
static void fan_rest(const uint32_t *next, uint32_t first, uint32_t remaining, uint32_t *out,
                     uint32_t *count)
{
    uint32_t b = next[first];
    for (uint32_t k = 2; k < remaining; k++) {
        uint32_t c = next[b];
        emit(out, count, first, b, c);
        b = c;
    }
}

static bool ear_at(const double *xy, const uint32_t *next, uint32_t a, uint32_t i, uint32_t b,
                   uint64_t *budget)
{
    const double *pa = xy + 2 * a, *pi = xy + 2 * i, *pb = xy + 2 * b;
    if (cross2(pa, pi, pb) <= 0.0)
        return false;
    for (uint32_t j = next[b]; j != a; j = next[j]) {
        const double *pj = xy + 2 * j;
        if (*budget == 0)
            return false;
        (*budget)--;
        if (same_point(pj, pa) || same_point(pj, pi) || same_point(pj, pb))
            continue;
        if (contains(pa, pi, pb, pj))
            return false;
    }
    return true;
}

static void ear_clip(const double *xy, uint32_t *next, uint32_t *prev, uint32_t n, uint32_t *out,
                     uint32_t *count)
{
    uint64_t budget = 32u * (uint64_t)n * n + 4096u;
    uint32_t remaining = n, i = 0, misses = 0;
    while (remaining > 3) {
        uint32_t a = prev[i], b = next[i];
        if (ear_at(xy, next, a, i, b, &budget)) {
            emit(out, count, a, i, b);
            next[a] = b;
            prev[b] = a;
            remaining--;
            misses = 0;
            i = a; /* the corners beside a clipped ear are the likeliest next ears */
            continue;
        }
        if (budget == 0 || ++misses >= remaining)
            break; /* no ear: the polygon crosses itself (or is too costly); fan the rest */
        i = b;
    }
    fan_rest(next, i, remaining, out, count);
}

/*
 * A quad, the commonest polygon, without the general machinery.  Its Newell
 * normal is the cross product of its diagonals.  Of the two ways to split
 * it, the fan from corner 0 (diagonal 0-2) is right unless corner 1 or 3 is
 * the reflex one; then the diagonal 1-3 is the one inside.  (The same
 * triangles ear clipping finds: a concave quad has one inner diagonal.)
 */
static void quad(const float *positions, const mn_obj_corner *corners, uint32_t *out, float normal[3])
{
    const float *p[4];
    for (int i = 0; i < 4; i++)
        p[i] = positions + 3 * (size_t)corners[i].v;
    double d02[3], d13[3], d01[3], d03[3];
    for (int k = 0; k < 3; k++) {
        d02[k] = (double)p[2][k] - p[0][k];
        d13[k] = (double)p[3][k] - p[1][k];
        d01[k] = (double)p[1][k] - p[0][k];
        d03[k] = (double)p[3][k] - p[0][k];
    }
    double n[3] = {d02[1] * d13[2] - d02[2] * d13[1], d02[2] * d13[0] - d02[0] * d13[2],
                   d02[0] * d13[1] - d02[1] * d13[0]};
    unit_or_up(n, normal);
    /* Orientation of triangles (0,1,2) and (0,2,3) along n. */
    double a[3] = {d01[1] * d02[2] - d01[2] * d02[1], d01[2] * d02[0] - d01[0] * d02[2],
                   d01[0] * d02[1] - d01[1] * d02[0]};
    double b[3] = {d02[1] * d03[2] - d02[2] * d03[1], d02[2] * d03[0] - d02[0] * d03[2],
                   d02[0] * d03[1] - d02[1] * d03[0]};
    double sa = a[0] * n[0] + a[1] * n[1] + a[2] * n[2];
    double sb = b[0] * n[0] + b[1] * n[1] + b[2] * n[2];
    uint32_t count = 0;
    if (sa >= 0.0 && sb >= 0.0) {
        emit(out, &count, 0, 1, 2);
        emit(out, &count, 0, 2, 3);
    } else {
        emit(out, &count, 1, 2, 3);
        emit(out, &count, 1, 3, 0);
    }
}

bool mni_obj_triangulate(const mn_allocator *allocator, const float *positions,
                         const mn_obj_corner *corners, uint32_t n, mn_obj_vec *tris,
                         mn_obj_vec *work, float normal[3])
{
    size_t tri_bytes = (size_t)(n - 2) * 3 * sizeof(uint32_t);
    if (!mni_obj_vec_reserve(allocator, tris, tri_bytes))
        return false;
    uint32_t *out = (uint32_t *)(void *)((char *)tris->data + tris->size);
    uint32_t count = 0;
    if (n == 4) {
        quad(positions, corners, out, normal);
        tris->size += tri_bytes;
        return true;
    }

    double nn[3];
    newell(positions, corners, n, nn);
    unit_or_up(nn, normal);
    int axis = fabs(nn[0]) > fabs(nn[1]) ? (fabs(nn[0]) > fabs(nn[2]) ? 0 : 2)
                                         : (fabs(nn[1]) > fabs(nn[2]) ? 1 : 2);
    bool flat = !(fabs(nn[axis]) > 0.0) || !isfinite(nn[axis]);

    /* Convex (or no area to speak of): the fan. */
    bool convex = true;
    if (!flat) {
        int u = (axis + 1) % 3, v = (axis + 2) % 3;
        double sign = nn[axis] > 0.0 ? 1.0 : -1.0;
        const float *p0 = positions + 3 * (size_t)corners[n - 2].v;
        const float *p1 = positions + 3 * (size_t)corners[n - 1].v;
        for (uint32_t i = 0; i < n && convex; i++) {
            const float *p2 = positions + 3 * (size_t)corners[i].v;
            double turn = ((double)p1[u] - p0[u]) * ((double)p2[v] - p1[v]) -
                          ((double)p1[v] - p0[v]) * ((double)p2[u] - p1[u]);
            convex = turn * sign >= 0.0;
            p0 = p1;
            p1 = p2;
        }
    }
    if (flat || convex) {
        for (uint32_t i = 1; i + 1 < n; i++)
            emit(out, &count, 0, i, i + 1);
        tris->size += tri_bytes;
        return true;
    }

    /* Concave: project (mirrored when the normal points down the axis, so the polygon turns
       counter-clockwise) and clip ears. */
    size_t need = (size_t)n * (2 * sizeof(double) + 2 * sizeof(uint32_t));
    work->size = 0;
    if (!mni_obj_vec_reserve(allocator, work, need))
        return false;
    double *xy = work->data;
    uint32_t *next = (uint32_t *)(void *)(xy + 2 * (size_t)n);
    uint32_t *prev = next + n;
    int u = (axis + 1) % 3, v = (axis + 2) % 3;
    double sign = nn[axis] > 0.0 ? 1.0 : -1.0;
    for (uint32_t i = 0; i < n; i++) {
        const float *p = positions + 3 * (size_t)corners[i].v;
        xy[2 * i] = p[u];
        xy[2 * i + 1] = sign * p[v];
        next[i] = i + 1 == n ? 0 : i + 1;
        prev[i] = i == 0 ? n - 1 : i - 1;
    }
    ear_clip(xy, next, prev, n, out, &count);
    tris->size += tri_bytes;
    return true;
}
