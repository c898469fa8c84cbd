/*
 * 2D blend spaces: a triangulation of the
 * children's points, and barycentric weights over it.
 *
 * Spaces are small (a handful to a few dozen points) and built once, so the
 * Delaunay triangulation is the direct one: every empty circumcircle through
 * three points is a cell.  A cell with more than three points on its circle
 * (each square of a grid) has no unique split; it is fanned from its lowest
 * index point, which makes the diagonal a property of the input order
 * rather than of the code's floating-point luck.
 *
 * Weights: the first triangle (in canonical order) whose barycentrics are
 * all ≥ −1e−6 wins, negatives clamped and renormalised; outside every
 * triangle the point moves to the nearest point of the boundary and that
 * edge's two ends share the weight linearly.
 */
#include "anim/blend_internal.h"

#include <math.h>
#include <string.h>

#define INSIDE_EPS 1e-6

static double orient(const double *a, const double *b, const double *c)
{
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* > 0 when d is inside the circle through a, b, c (counter-clockwise). */
static double incircle(const double *a, const double *b, const double *c, const double *d)
{
    double adx = a[0] - d[0], ady = a[1] - d[1];
    double bdx = b[0] - d[0], bdy = b[1] - d[1];
    double cdx = c[0] - d[0], cdy = c[1] - d[1];
    double ad = adx * adx + ady * ady, bd = bdx * bdx + bdy * bdy, cd = cdx * cdx + cdy * cdy;
    return adx * (bdy * cd - bd * cdy) - ady * (bdx * cd - bd * cdx) + ad * (bdx * cdy - bdy * cdx);
}

typedef struct space_build {
    const double *p;
    uint32_t n;
    double eps_area, eps_circle;
    uint32_t *tris;              /* room for every triangle a cell can give */
    uint32_t tri_count, tri_capacity;
} space_build;

static void sort3(uint32_t t[3])
{
    for (int i = 1; i < 3; i++)
        for (int k = i; k > 0 && t[k - 1] > t[k]; k--) {
            uint32_t x = t[k];
            t[k] = t[k - 1];
            t[k - 1] = x;
        }
}

static void push_triangle(space_build *b, uint32_t i, uint32_t j, uint32_t k)
{
    if (b->tri_count >= b->tri_capacity)
        return; /* capacity is a bound on the triangles of a planar triangulation */
    uint32_t *t = b->tris + 3 * (size_t)b->tri_count++;
    t[0] = i;
    t[1] = j;
    t[2] = k;
    sort3(t);
}

/*
 * The cell through i < j < k (counter-clockwise as a, b, c), if its circle is
 * empty and i, j, k are its three lowest points (so each cell is met once).
 * cell[] receives the points on the circle; a cell of m points is fanned
 * from its lowest index in angular order.
 */
static void try_cell(space_build *b, uint32_t i, uint32_t j, uint32_t k, uint32_t *cell,
                     double *angle)
{
    const double *p = b->p;
    uint32_t a = i, c1 = j, c2 = k;
    double o = orient(p + 2 * a, p + 2 * c1, p + 2 * c2);
    if (fabs(o) <= b->eps_area)
        return;
    if (o < 0) {
        uint32_t x = c1;
        c1 = c2;
        c2 = x;
    }
    uint32_t m = 0;
    for (uint32_t d = 0; d < b->n; d++) {
        if (d == i || d == j || d == k) {
            cell[m++] = d;
            continue;
        }
        double ic = incircle(p + 2 * a, p + 2 * c1, p + 2 * c2, p + 2 * d);
        if (ic > b->eps_circle)
            return; /* a point inside: not Delaunay */
        if (ic >= -b->eps_circle) {
            if (d < k)
                return; /* a lower point is on the circle: the cell is met from its own lowest three */
            cell[m++] = d;
        }
    }
    if (m == 3) {
        push_triangle(b, i, j, k);
        return;
    }
    /* Cocircular: order the points by angle about their centroid, fan from the lowest index (i). */
    double cx = 0, cy = 0;
    for (uint32_t q = 0; q < m; q++) {
        cx += p[2 * cell[q]];
        cy += p[2 * cell[q] + 1];
    }
    cx /= m;
    cy /= m;
    for (uint32_t q = 0; q < m; q++)
        angle[q] = atan2(p[2 * cell[q] + 1] - cy, p[2 * cell[q]] - cx);
    for (uint32_t q = 1; q < m; q++)
        for (uint32_t r = q; r > 0 && angle[r - 1] > angle[r]; r--) {
            double x = angle[r];
            angle[r] = angle[r - 1];
            angle[r - 1] = x;
            uint32_t y = cell[r];
            cell[r] = cell[r - 1];
            cell[r - 1] = y;
        }
    uint32_t start = 0;
    while (cell[start] != i)
        start++;
    for (uint32_t q = 1; q + 1 < m; q++)
        push_triangle(b, i, cell[(start + q) % m], cell[(start + q + 1) % m]);
}

static int compare_triples(const uint32_t *a, const uint32_t *b)
{
    for (int i = 0; i < 3; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* Sort triangles by their (sorted) index triples: one canonical order. */
static void sort_triangles(uint32_t *tris, uint32_t count)
{
    for (uint32_t q = 1; q < count; q++)
        for (uint32_t r = q; r > 0 && compare_triples(tris + 3 * (r - 1), tris + 3 * r) > 0; r--)
            for (int c = 0; c < 3; c++) {
                uint32_t x = tris[3 * r + c];
                tris[3 * r + c] = tris[3 * (r - 1) + c];
                tris[3 * (r - 1) + c] = x;
            }
}

/* Edges that belong to exactly one triangle, in the order the triangles meet them. */
static uint32_t boundary_edges(const uint32_t *tris, uint32_t tri_count, uint32_t *edges)
{
    uint32_t count = 0;
    for (uint32_t t = 0; t < tri_count; t++)
        for (int e = 0; e < 3; e++) {
            uint32_t u = tris[3 * t + e], v = tris[3 * t + (e + 1) % 3];
            uint32_t shared = 0;
            for (uint32_t s = 0; s < tri_count; s++)
                for (int f = 0; f < 3; f++) {
                    uint32_t x = tris[3 * s + f], y = tris[3 * s + (f + 1) % 3];
                    if ((x == u && y == v) || (x == v && y == u))
                        shared++;
                }
            if (shared == 1) {
                edges[2 * count] = u;
                edges[2 * count + 1] = v;
                count++;
            }
        }
    return count;
}

static mn_status check_points(const double *p, uint32_t n, double eps_area, const char *path,
                              mn_error *err)
{
    if (n < 3)
        return mni_error_set(err, MN_INVALID_ARGUMENT, path, -1,
                             "%s: a 2D blend space needs at least 3 children, has %u", path, n);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++)
            if (p[2 * i] == p[2 * j] && p[2 * i + 1] == p[2 * j + 1])
                return mni_error_set(err, MN_INVALID_ARGUMENT, path, -1,
                                     "%s: children %u and %u are at the same point (%g, %g)", path,
                                     i, j, p[2 * i], p[2 * i + 1]);
    for (uint32_t i = 2; i < n; i++)
        if (fabs(orient(p, p + 2, p + 2 * i)) > eps_area)
            return MN_OK;
    return mni_error_set(err, MN_INVALID_ARGUMENT, path, -1,
                         "%s: all %u children lie on one line", path, n);
}

mn_status mni_blend_space_build(mn_blend_space *space, mn_arena *arena, const float *points,
                                uint32_t point_count, const uint32_t *triangles,
                                uint32_t triangle_count, const char *path, mn_error *err)
{
    memset(space, 0, sizeof *space);
    uint32_t n = point_count;
    double *p = mni_arena_calloc(arena, n ? 2 * (size_t)n : 1, sizeof(double), 8);
    if (!p)
        return mni_error_set(err, MN_OUT_OF_MEMORY, path, -1, NULL);
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (uint32_t i = 0; i < 2 * n; i++) {
        if (!isfinite(points[i]))
            return mni_error_set(err, MN_NOT_FINITE, path, -1,
                                 "%s: position %u of child %u is not finite", path, i % 2, i / 2);
        p[i] = points[i];
        lo[i % 2] = fmin(lo[i % 2], p[i]);
        hi[i % 2] = fmax(hi[i % 2], p[i]);
    }
    double s = n ? fmax(hi[0] - lo[0], hi[1] - lo[1]) : 0;
    space_build b = {.p = p, .n = n, .eps_area = 1e-12 * s * s, .eps_circle = 1e-12 * s * s * s * s};
    mn_status st = check_points(p, n, b.eps_area, path, err);
    if (st != MN_OK)
        return st;

    if (triangles) {
        if (triangle_count == 0)
            return mni_error_set(err, MN_INVALID_ARGUMENT, path, -1, "%s: triangles given but none",
                                 path);
        b.tri_capacity = triangle_count;
    } else {
        b.tri_capacity = 2 * n; /* a planar triangulation of n points has at most 2n − 5 triangles */
    }
    size_t tri_floats;
    if (!mni_checked_mul(b.tri_capacity, 3, &tri_floats))
        return mni_error_set(err, MN_OVERFLOW, path, -1, "%s: too many triangles", path);
    b.tris = mni_arena_calloc(arena, tri_floats, sizeof(uint32_t), 4);
    uint32_t *edges = mni_arena_calloc(arena, tri_floats * 2, sizeof(uint32_t), 4);
    uint32_t *cell = mni_arena_calloc(arena, n, sizeof(uint32_t), 4);
    double *angle = mni_arena_calloc(arena, n, sizeof(double), 8);
    if (!b.tris || !edges || !cell || !angle)
        return mni_error_set(err, MN_OUT_OF_MEMORY, path, -1, NULL);

    if (triangles) {
        for (uint32_t t = 0; t < triangle_count; t++) {
            const uint32_t *tri = triangles + 3 * (size_t)t;
            for (int c = 0; c < 3; c++)
                if (tri[c] >= n)
                    return mni_error_set(err, MN_INDEX_RANGE, path, -1,
                                         "%s: triangles[%u] names child %u of %u", path, t, tri[c], n);
            if (fabs(orient(p + 2 * tri[0], p + 2 * tri[1], p + 2 * tri[2])) <= b.eps_area)
                return mni_error_set(err, MN_INVALID_ARGUMENT, path, -1,
                                     "%s: triangles[%u] (%u, %u, %u) has zero area", path, t, tri[0],
                                     tri[1], tri[2]);
            memcpy(b.tris + 3 * (size_t)t, tri, 3 * sizeof(uint32_t));
        }
        b.tri_count = triangle_count;
    } else {
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = i + 1; j < n; j++)
                for (uint32_t k = j + 1; k < n; k++)
                    try_cell(&b, i, j, k, cell, angle);
        sort_triangles(b.tris, b.tri_count);
    }
    space->point_count = n;
    space->points = p;
    space->triangle_count = b.tri_count;
    space->triangles = b.tris;
    space->edge_count = boundary_edges(b.tris, b.tri_count, edges);
    space->edges = edges;
    return MN_OK;
}

/* Barycentrics of (x, y) in triangle t (never degenerate: zero-area triangles are refused at build). */
static void barycentric(const mn_blend_space *s, const uint32_t *t, double x, double y, double w[3])
{
    const double *a = s->points + 2 * t[0], *b = s->points + 2 * t[1], *c = s->points + 2 * t[2];
    double q[2] = {x, y};
    double area = orient(a, b, c);
    w[0] = orient(q, b, c) / area;
    w[1] = orient(a, q, c) / area;
    w[2] = 1.0 - w[0] - w[1];
}

uint32_t mni_blend_space_weights(const mn_blend_space *s, double x, double y, uint32_t index[3],
                                 double weight[3])
{
    for (uint32_t t = 0; t < s->triangle_count; t++) {
        const uint32_t *tri = s->triangles + 3 * (size_t)t;
        double w[3];
        barycentric(s, tri, x, y, w);
        if (w[0] < -INSIDE_EPS || w[1] < -INSIDE_EPS || w[2] < -INSIDE_EPS)
            continue;
        double sum = 0;
        for (int c = 0; c < 3; c++) {
            w[c] = w[c] > 0 ? w[c] : 0;
            sum += w[c];
        }
        for (int c = 0; c < 3; c++) {
            index[c] = tri[c];
            weight[c] = w[c] / sum;
        }
        return 3;
    }
    /* Outside: the nearest point of the boundary, the first edge on a tie. */
    double best = INFINITY, best_u = 0;
    uint32_t best_edge = 0;
    for (uint32_t e = 0; e < s->edge_count; e++) {
        const double *a = s->points + 2 * s->edges[2 * e], *b = s->points + 2 * s->edges[2 * e + 1];
        double dx = b[0] - a[0], dy = b[1] - a[1];
        double u = ((x - a[0]) * dx + (y - a[1]) * dy) / (dx * dx + dy * dy);
        u = u > 0 ? (u < 1 ? u : 1) : 0;
        double px = a[0] + u * dx - x, py = a[1] + u * dy - y;
        double d2 = px * px + py * py;
        if (d2 < best) {
            best = d2;
            best_u = u;
            best_edge = e;
        }
    }
    index[0] = s->edges[2 * best_edge];
    index[1] = s->edges[2 * best_edge + 1];
    weight[0] = 1.0 - best_u;
    weight[1] = best_u;
    return 2;
}
