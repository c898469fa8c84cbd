/*
 * OBJ polygons to triangles, keeping the authored winding, in time O(n)
 * for a convex polygon of n corners and O(n log n) for any other.
 *
 * The polygon's normal is Newell's (the sum over its edges; exact for a
 * planar polygon, a good average for a warped one).  The polygon is
 * projected onto the plane through its first corner perpendicular to that
 * normal, in axes (u, v) with u × v along it, so it turns counter-clockwise
 * there.  Then:
 *
 *   - no area, or no corner turning clockwise: a fan from corner 0, found
 *     in one pass without scratch memory;
 *   - within MN_OBJ_CONVEX_TOLERANCE of its size of a convex outline made
 *     of its own corners (text rounding makes a smooth convex outline of
 *     many corners zigzag by about its last decimal): the fan too, O(n);
 *   - otherwise ear clipping.  An ear is a strictly convex corner whose
 *     triangle holds no other remaining corner (corners at the same spot as
 *     the ear's own are allowed: polygons with holes bridged by a seam
 *     repeat them).  The corners go into a quadtree (sorted along a Z-order
 *     curve, each axis on its own 16-bit scale), so an ear's test visits
 *     only the cells that meet its triangle and still hold corners.  The
 *     corners are tried from a queue: a clipped ear's neighbours go to its
 *     back, a corner that was no ear waits until its neighbours change (or
 *     the queue runs dry).  Every corner tried, cell visited and corner
 *     looked at is a step, and a polygon may take MN_OBJ_EAR_STEPS × n ×
 *     (floor(log2 n) + 1) + 4096 of them: simple polygons finish far inside
 *     that (a 1,000,000-corner star takes about 120 steps a corner, a
 *     spiral 93, a comb 183, an L with its edges cut into 1,000,000 straight
 *     corners 509, of the 640 allowed).  A polygon that runs out of steps,
 *     or has no ear left (it crosses itself), has the corners left finished
 *     as a fan, whose triangles may overlap; the reader then warns.
 */
#include "obj/internal.h"

#include <string.h>

/* How far a corner may stray from a convex outline, relative to the polygon's box diagonal, for
   the polygon to be a fan. */
#define MN_OBJ_CONVEX_TOLERANCE 1e-6

/* Up to this many corners an ear is tested against every remaining corner, without an index. */
#define MN_OBJ_SMALL_POLYGON 16u

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

/* Newell's normal into out, and the diagonal of the polygon's box into *diagonal. */
static void newell(const float *positions, const mn_obj_corner *corners, uint32_t n, double out[3],
                   double *diagonal)
{
    out[0] = out[1] = out[2] = 0.0;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < n; i++) {
        const float *p = positions + 3 * (size_t)corners[i].v;
        const float *q = positions + 3 * (size_t)corners[i + 1 == n ? 0 : i + 1].v;
        out[0] += ((double)p[1] - q[1]) * ((double)p[2] + q[2]);
        out[1] += ((double)p[2] - q[2]) * ((double)p[0] + q[0]);
        out[2] += ((double)p[0] - q[0]) * ((double)p[1] + q[1]);
        for (int k = 0; k < 3; k++) {
            lo[k] = p[k] < lo[k] ? p[k] : lo[k];
            hi[k] = p[k] > hi[k] ? p[k] : hi[k];
        }
    }
    double d[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
    *diagonal = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* The plane's axes: u, v unit and perpendicular to the unit normal w, with u × v = w. */
typedef struct plane {
    double origin[3], u[3], v[3];
} plane;

static void make_plane(const double w[3], const float *origin, plane *pl)
{
    /* u = (e × w) / |e × w| for the axis e the normal is least along: never near parallel. */
    int k = fabs(w[0]) <= fabs(w[1]) ? (fabs(w[0]) <= fabs(w[2]) ? 0 : 2) : (fabs(w[1]) <= fabs(w[2]) ? 1 : 2);
    double e[3] = {0.0, 0.0, 0.0};
    e[k] = 1.0;
    double u[3] = {e[1] * w[2] - e[2] * w[1], e[2] * w[0] - e[0] * w[2], e[0] * w[1] - e[1] * w[0]};
    double len = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int i = 0; i < 3; i++) {
        pl->origin[i] = origin[i];
        pl->u[i] = u[i] / len;
    }
    pl->v[0] = w[1] * pl->u[2] - w[2] * pl->u[1];
    pl->v[1] = w[2] * pl->u[0] - w[0] * pl->u[2];
    pl->v[2] = w[0] * pl->u[1] - w[1] * pl->u[0];
}

static void project(const plane *pl, const float *p, double out[2])
{
    double d[3] = {(double)p[0] - pl->origin[0], (double)p[1] - pl->origin[1], (double)p[2] - pl->origin[2]};
    out[0] = d[0] * pl->u[0] + d[1] * pl->u[1] + d[2] * pl->u[2];
    out[1] = d[0] * pl->v[0] + d[1] * pl->v[1] + d[2] * pl->v[2];
}

/* The turn at b on the way a → b → c: positive to the left (counter-clockwise). */
static double cross2(const double *a, const double *b, const double *c)
{
    return (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]);
}

/* Whether no corner turns clockwise: convex (or straight), found in one pass without memory. */
static bool convex(const plane *pl, const float *positions, const mn_obj_corner *corners, uint32_t n)
{
    double p0[2], p1[2], p2[2];
    project(pl, positions + 3 * (size_t)corners[n - 2].v, p0);
    project(pl, positions + 3 * (size_t)corners[n - 1].v, p1);
    for (uint32_t i = 0; i < n; i++) {
        project(pl, positions + 3 * (size_t)corners[i].v, p2);
        if (cross2(p0, p1, p2) < 0.0)
            return false;
        memcpy(p0, p1, sizeof p0);
        memcpy(p1, p2, sizeof p1);
    }
    return true;
}

/* How far point p lies from the segment a b, across it (|along| beyond its ends counts too). */
static double off_segment(const double *a, const double *b, const double *p)
{
    double ex = b[0] - a[0], ey = b[1] - a[1], px = p[0] - a[0], py = p[1] - a[1];
    double len = hypot(ex, ey);
    if (!(len > 0.0))
        return hypot(px, py);
    double across = fabs(ex * py - ey * px) / len, along = (ex * px + ey * py) / len;
    double beyond = along < 0.0 ? -along : (along > len ? along - len : 0.0);
    return fmax(across, beyond);
}

/*
 * Whether the polygon (xy, counter-clockwise) lies within `tolerance` of a
 * convex polygon made of some of its corners, going round it once in order:
 * then the fan from corner 0 covers it with overlaps no wider than that.  A
 * smooth convex outline of many corners written with a few decimals
 * zigzags by about its last digit, too little to matter and too much for
 * the exact test.  The convex polygon is the one a Graham scan of the
 * corners in their own order keeps, starting from the lowest (a corner of
 * the hull), `stack` (n entries) holding it; each corner the scan dropped
 * must lie within `tolerance` of the kept edge it falls between.  O(n).
 */
static bool nearly_convex(const double *xy, uint32_t n, double tolerance, uint32_t *stack)
{
    uint32_t s = 0;
    for (uint32_t i = 1; i < n; i++)
        if (xy[2 * i + 1] < xy[2 * s + 1] || (xy[2 * i + 1] == xy[2 * s + 1] && xy[2 * i] < xy[2 * s]))
            s = i;
    uint32_t top = 0;
    stack[top++] = s;
    for (uint32_t k = 1; k <= n; k++) {
        uint32_t j = k == n ? s : (s + k) % n;
        while (top >= 2 && cross2(xy + 2 * stack[top - 2], xy + 2 * stack[top - 1], xy + 2 * j) <= 0.0)
            top--;
        if (k < n)
            stack[top++] = j;
    }
    if (top < 3)
        return false;
    /* Strictly convex at s too, and turning once round: exterior angles summing to 2 pi. */
    double turning = 0.0;
    for (uint32_t m = 0; m < top; m++) {
        const double *a = xy + 2 * stack[m ? m - 1 : top - 1], *b = xy + 2 * stack[m];
        const double *c = xy + 2 * stack[m + 1 < top ? m + 1 : 0];
        double turn = cross2(a, b, c);
        if (!(turn > 0.0))
            return false;
        double dot = (b[0] - a[0]) * (c[0] - b[0]) + (b[1] - a[1]) * (c[1] - b[1]);
        turning += atan2(turn, dot);
    }
    if (!(fabs(turning - 6.283185307179586) < 1e-6))
        return false;
    /* Every dropped corner near the kept edge it lies between. */
    uint32_t m = 0;
    for (uint32_t k = 1; k < n; k++) {
        uint32_t j = (s + k) % n;
        if (m + 1 < top && stack[m + 1] == j) {
            m++;
            continue;
        }
        const double *a = xy + 2 * stack[m], *b = xy + 2 * stack[m + 1 < top ? m + 1 : 0];
        if (!(off_segment(a, b, xy + 2 * j) <= tolerance))
            return false;
    }
    return true;
}

/* ---- ear clipping ------------------------------------------------------------------ */

/* A quadtree cell holds at most this many corners unless it is one unit of the code grid. */
#define MN_OBJ_LEAF_CORNERS 8u

/*
 * A cell of the quadtree over the corners.  The corners sorted by Z-order
 * code list every cell's corners as one run [first, end); an inner cell's
 * four quarters are nodes child .. child + 3 (in code order: x low then
 * high, y low, then the same with y high); `live` counts its corners not
 * yet clipped, so a search skips emptied cells.
 */
typedef struct qnode {
    uint32_t first, end;
    uint32_t child;             /* MN_NONE: a leaf */
    uint32_t live;
    uint32_t parent;            /* MN_NONE: the root */
} qnode;

/* The ring of remaining corners, the quadtree over them, the steps left. */
typedef struct ears {
    const double *xy;
    uint32_t *next, *prev;        /* the ring */
    const uint64_t *keys;         /* code << 32 | corner, in code order */
    uint32_t *leaf;               /* each corner's leaf; MN_NONE once clipped */
    qnode *nodes;                 /* NULL: no index, every remaining corner is looked at */
    double min[2], scale[2];      /* grid coordinate = (p - min) × scale, 16 bits on each axis */
    double margin[2];             /* a cell's box is widened by this much (rounding) */
    uint32_t *queue;              /* corners to try, 3 n entries: the n, then 2 a clip */
    uint32_t *ticket;             /* each corner's newest place in the queue; older places are void */
    uint32_t head, tail;
    uint64_t steps, budget;
    bool gave_up;
} ears;

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

/* One step of work; false (and gave_up) once the budget is spent. */
static inline bool step(ears *e)
{
    if (e->steps == e->budget) {
        e->gave_up = true;
        return false;
    }
    e->steps++;
    return true;
}

/* The 16-bit grid coordinate of x along axis k; it never decreases as x grows. */
static uint32_t grid(const ears *e, double x, int k)
{
    double f = (x - e->min[k]) * e->scale[k];
    return f > 0.0 ? (f < 65535.0 ? (uint32_t)f : 65535u) : 0u;
}

/* Spread the low 16 bits of x to the even bits. */
static uint32_t spread16(uint32_t x)
{
    x &= 0xFFFFu;
    x = (x | (x << 8)) & 0x00FF00FFu;
    x = (x | (x << 4)) & 0x0F0F0F0Fu;
    x = (x | (x << 2)) & 0x33333333u;
    x = (x | (x << 1)) & 0x55555555u;
    return x;
}

/* Whether corner j blocks the ear (a, i, b): inside its triangle and not at one of its corners. */
static bool blocks(const ears *e, uint32_t a, uint32_t i, uint32_t b, uint32_t j)
{
    const double *xy = e->xy, *pa = xy + 2 * a, *pi = xy + 2 * i, *pb = xy + 2 * b, *pj = xy + 2 * j;
    if (j == a || j == i || j == b || same_point(pj, pa) || same_point(pj, pi) || same_point(pj, pb))
        return false;
    return contains(pa, pi, pb, pj);
}

/* A node to visit and its cell: grid coordinates of its low corner, its width. */
typedef struct cell {
    uint32_t node, x, y, size;
} cell;

/* Whether the cell [x, x + size)² of the grid lies wholly outside the triangle (a, b, c),
   counter-clockwise: all its corners beyond one of the triangle's edges. */
static bool cell_outside(const ears *e, const cell *c, const double *pa, const double *pb, const double *pc)
{
    double x0 = e->min[0] + c->x / e->scale[0] - e->margin[0];
    double x1 = e->min[0] + (c->x + c->size) / e->scale[0] + e->margin[0];
    double y0 = e->min[1] + c->y / e->scale[1] - e->margin[1];
    double y1 = e->min[1] + (c->y + c->size) / e->scale[1] + e->margin[1];
    const double corners[4][2] = {{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}};
    const double *edge[3][2] = {{pa, pb}, {pb, pc}, {pc, pa}};
    for (int k = 0; k < 3; k++) {
        const double *p = edge[k][0], *q = edge[k][1];
        bool beyond = true;
        for (int m = 0; m < 4 && beyond; m++)
            beyond = (q[0] - p[0]) * (corners[m][1] - p[1]) - (q[1] - p[1]) * (corners[m][0] - p[0]) < 0.0;
        if (beyond)
            return true;
    }
    return false;
}

/*
 * Whether a remaining corner blocks the ear (a, i, b), whose triangle's
 * grid box is [lo, hi]; true too when the budget runs out.  Depth first
 * through the cells that meet the triangle and still hold corners.
 */
static bool tree_blocks(ears *e, const uint32_t lo[2], const uint32_t hi[2], uint32_t a, uint32_t i, uint32_t b)
{
    const double *pa = e->xy + 2 * a, *pi = e->xy + 2 * i, *pb = e->xy + 2 * b;
    cell stack[4 * 17 + 4];
    int top = 0;
    stack[top++] = (cell){0, 0, 0, 65536u};
    while (top > 0) {
        cell c = stack[--top];
        if (!step(e))
            return true;
        const qnode *q = &e->nodes[c.node];
        if (q->live == 0 || c.x > hi[0] || c.y > hi[1] || c.x + (c.size - 1) < lo[0] ||
            c.y + (c.size - 1) < lo[1] || (e->scale[0] > 0.0 && e->scale[1] > 0.0 && cell_outside(e, &c, pa, pi, pb)))
            continue;
        if (q->child == MN_NONE) {
            for (uint32_t k = q->first; k < q->end; k++) {
                uint32_t j = (uint32_t)e->keys[k];
                if (!step(e))
                    return true;
                if (e->leaf[j] != MN_NONE && blocks(e, a, i, b, j))
                    return true;
            }
            continue;
        }
        uint32_t half = c.size / 2;
        for (uint32_t d = 0; d < 4; d++)
            stack[top++] = (cell){q->child + d, c.x + (d & 1u) * half, c.y + (d >> 1) * half, half};
    }
    return false;
}

/* Whether the corner i, between a and b, is an ear (false too when the budget runs out). */
static bool is_ear(ears *e, uint32_t a, uint32_t i, uint32_t b)
{
    const double *xy = e->xy, *pa = xy + 2 * a, *pi = xy + 2 * i, *pb = xy + 2 * b;
    if (cross2(pa, pi, pb) <= 0.0)
        return false;
    if (!e->nodes) {
        for (uint32_t j = e->next[b]; j != a; j = e->next[j])
            if (!step(e) || blocks(e, a, i, b, j))
                return false;
        return true;
    }
    uint32_t lo[2], hi[2];
    for (int k = 0; k < 2; k++) {
        lo[k] = grid(e, fmin(pa[k], fmin(pi[k], pb[k])), k);
        hi[k] = grid(e, fmax(pa[k], fmax(pi[k], pb[k])), k);
    }
    return !tree_blocks(e, lo, hi, a, i, b) && !e->gave_up;
}

static void emit(uint32_t *out, uint32_t *count, uint32_t a, uint32_t b, uint32_t c)
{
    out[3 * *count + 0] = a;
    out[3 * *count + 1] = b;
    out[3 * *count + 2] = c;
    (*count)++;
}

/* Take corner i out of the ring and the quadtree's counts; its leaf becomes MN_NONE (clipped). */
static void unlink_corner(ears *e, uint32_t i)
{
    e->next[e->prev[i]] = e->next[i];
    e->prev[e->next[i]] = e->prev[i];
    for (uint32_t q = e->nodes ? e->leaf[i] : MN_NONE; q != MN_NONE; q = e->nodes[q].parent)
        e->nodes[q].live--;
    e->leaf[i] = MN_NONE;
}

/*
 * The corners' keys (code << 32 | corner) sorted by code: four byte-wide
 * counting passes between `keys` and `spare`, which end with the keys
 * sorted in `keys`.
 */
static void sort_corners(ears *e, uint32_t n, uint64_t *keys, uint64_t *spare)
{
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 2; k++) {
            lo[k] = fmin(lo[k], e->xy[2 * i + k]);
            hi[k] = fmax(hi[k], e->xy[2 * i + k]);
        }
    /* Each axis on its own scale: a long thin polygon gets cells as thin as it. */
    for (int k = 0; k < 2; k++) {
        double size = hi[k] - lo[k];
        e->min[k] = lo[k];
        e->scale[k] = size > 0.0 && isfinite(size) ? 65535.0 / size : 0.0;
        e->margin[k] = 1e-9 * size;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t z = spread16(grid(e, e->xy[2 * i], 0)) | spread16(grid(e, e->xy[2 * i + 1], 1)) << 1;
        keys[i] = (uint64_t)z << 32 | i;
    }
    for (int shift = 32; shift < 64; shift += 8) {
        size_t count[257] = {0};
        for (uint32_t i = 0; i < n; i++)
            count[((keys[i] >> shift) & 0xFFu) + 1]++;
        for (int d = 0; d < 256; d++)
            count[d + 1] += count[d];
        for (uint32_t i = 0; i < n; i++)
            spare[count[(keys[i] >> shift) & 0xFFu]++] = keys[i];
        uint64_t *t = keys;
        keys = spare;
        spare = t;
    }
}

/* The first k in [first, end) whose code has quarter digit >= d at `shift`, the run sorted. */
static uint32_t quarter_start(const uint64_t *keys, uint32_t first, uint32_t end, int shift, uint32_t d)
{
    while (first < end) {
        uint32_t mid = first + (end - first) / 2;
        if (((keys[mid] >> (32 + shift)) & 3u) < d)
            first = mid + 1;
        else
            end = mid;
    }
    return first;
}

/*
 * The quadtree over the sorted keys, into `nodes` (grown from the
 * allocator): a cell of more than MN_OBJ_LEAF_CORNERS corners is split in
 * four, down to cells one grid unit wide (16 levels), and while there are
 * at most 2 n + 1 nodes (an outline makes about n / 2; corners clustered
 * at a few spots could make more, in long chains of cells with one
 * quarter used).  False when out of memory.
 */
static bool build_tree(const mn_allocator *allocator, mn_obj_vec *nodes, ears *e, uint32_t n)
{
    nodes->size = 0;
    if (!mni_obj_vec_reserve(allocator, nodes, sizeof(qnode)))
        return false;
    *(qnode *)nodes->data = (qnode){0, n, MN_NONE, n, MN_NONE};
    nodes->size = sizeof(qnode);
    struct { uint32_t node, level; } stack[3 * 17 + 4];
    int top = 0;
    stack[top].node = 0;
    stack[top++].level = 0;
    while (top > 0) {
        uint32_t node = stack[top - 1].node, level = stack[top - 1].level;
        top--;
        qnode q = ((qnode *)nodes->data)[node];
        /* Past 2 n + 1 nodes (clustered corners), cells stay leaves: memory stays 40 bytes a corner. */
        if (q.end - q.first <= MN_OBJ_LEAF_CORNERS || level == 16 ||
            nodes->size / sizeof(qnode) + 4 > 2 * (size_t)n + 1) {
            for (uint32_t k = q.first; k < q.end; k++)
                e->leaf[(uint32_t)e->keys[k]] = node;
            continue;
        }
        if (!mni_obj_vec_reserve(allocator, nodes, 4 * sizeof(qnode)))
            return false;
        qnode *all = nodes->data;
        uint32_t child = (uint32_t)(nodes->size / sizeof(qnode));
        all[node].child = child;
        int shift = 30 - 2 * (int)level;
        uint32_t bounds[5] = {q.first, 0, 0, 0, q.end};
        for (uint32_t d = 1; d < 4; d++)
            bounds[d] = quarter_start(e->keys, bounds[d - 1], q.end, shift, d);
        for (uint32_t d = 0; d < 4; d++) {
            all[child + d] = (qnode){bounds[d], bounds[d + 1], MN_NONE, bounds[d + 1] - bounds[d], node};
            stack[top].node = child + d;
            stack[top++].level = level + 1;
        }
        nodes->size += 4 * sizeof(qnode);
    }
    return true;
}

/* Put corner i at the back of the queue; its older place, if any, goes void. */
static void enqueue(ears *e, uint32_t i)
{
    e->ticket[i] = e->tail;
    e->queue[e->tail++] = i;
}

/*
 * Clip ears until three corners are left.  The corners are tried in queue
 * order, every one once at first; a clipped ear's two neighbours go to the
 * back, since their own ears have changed (so after an ear the corner
 * beside it waits for the next round: a smooth outline is cut in rounds
 * of triangles that grow together, not in a fan of slivers, and a run of
 * straight corners is eaten from its ends one by one, not by going round
 * the whole ring for each).  A corner that was no ear is tried again only
 * when its neighbours change, or once the queue runs dry and every corner
 * left goes in again: a corner an ear's clipping uncovered may be one.  A
 * round of all of them with no ear means the polygon crosses itself.  On
 * that, or when the budget is spent, the rest is a fan.
 */
static void clip(ears *e, uint32_t n, uint32_t *out, uint32_t *count)
{
    uint32_t remaining = n, last = 0;
    bool clipped = true;      /* an ear since the queue was last filled */
    for (uint32_t i = 0; i < n; i++)
        enqueue(e, i);
    while (remaining > 3 && step(e)) {
        if (e->head == e->tail) {
            if (!clipped)
                break;        /* a whole round without an ear: fan the rest */
            clipped = false;
            e->head = e->tail = 0;
            uint32_t i = last;
            for (uint32_t k = 0; k < remaining; k++, i = e->next[i])
                enqueue(e, i);
            continue;
        }
        uint32_t at = e->head++, i = e->queue[at];
        if (e->ticket[i] != at || e->leaf[i] == MN_NONE)
            continue;         /* a void place, or a corner clipped since */
        last = i;
        uint32_t a = e->prev[i], b = e->next[i];
        if (is_ear(e, a, i, b)) {
            emit(out, count, a, i, b);
            unlink_corner(e, i);
            remaining--;
            clipped = true;
            last = a;
            enqueue(e, a);
            enqueue(e, b);
        } else if (e->gave_up) {
            break;
        }
    }
    uint32_t first = last, b = e->next[first];
    for (uint32_t k = 2; k < remaining; k++) {
        uint32_t c = e->next[b];
        emit(out, count, first, b, c);
        b = c;
    }
}

/* floor(log2 n) + 1 for n >= 1. */
static uint32_t bit_length(uint32_t n)
{
    uint32_t bits = 0;
    while (n) {
        bits++;
        n >>= 1;
    }
    return bits;
}

uint64_t mni_obj_ear_budget(uint32_t n)
{
    return (uint64_t)MN_OBJ_EAR_STEPS * n * bit_length(n) + 4096u;
}

/*
 * Concave: project every corner, index them, clip.  The scratch memory, 52
 * bytes a corner and the quadtree's nodes: the corners in the plane (16),
 * the sorted keys (8), the queue (12, the sort's spare before), the ring,
 * each corner's leaf and queue place (16).  False when out of memory.
 */
static bool ear_clip(const mn_allocator *allocator, const plane *pl, const float *positions,
                     const mn_obj_corner *corners, uint32_t n, double tolerance, mn_obj_vec *work,
                     uint32_t *out, mn_obj_tri_cost *cost)
{
    size_t queue_words = 3 * (size_t)n + (n & 1u);  /* a whole number of uint64_t */
    size_t need = (size_t)n * (2 * sizeof(double) + sizeof(uint64_t) + 4 * sizeof(uint32_t)) +
                  queue_words * sizeof(uint32_t);
    work->size = 0;
    if (!mni_obj_vec_reserve(allocator, work, need))
        return false;
    double *xy = work->data;
    uint64_t *keys = (uint64_t *)(void *)(xy + 2 * (size_t)n);
    uint32_t *queue = (uint32_t *)(void *)(keys + n);
    uint32_t *next = queue + queue_words;
    ears e = {.xy = xy, .next = next, .prev = next + n, .keys = keys, .leaf = next + 2 * (size_t)n,
              .queue = queue, .ticket = next + 3 * (size_t)n, .budget = mni_obj_ear_budget(n)};
    for (uint32_t i = 0; i < n; i++) {
        project(pl, positions + 3 * (size_t)corners[i].v, xy + 2 * i);
        e.next[i] = i + 1 == n ? 0 : i + 1;
        e.prev[i] = i == 0 ? n - 1 : i - 1;
        e.leaf[i] = 0;
    }
    uint32_t count = 0;
    if (n > MN_OBJ_SMALL_POLYGON && nearly_convex(xy, n, tolerance, queue)) {
        for (uint32_t i = 1; i + 1 < n; i++)
            emit(out, &count, 0, i, i + 1);
        return true;
    }
    mn_obj_vec nodes = {0};
    if (n > MN_OBJ_SMALL_POLYGON) {
        sort_corners(&e, n, keys, (uint64_t *)(void *)queue);
        if (!build_tree(allocator, &nodes, &e, n)) {
            mni_obj_vec_free(allocator, &nodes);
            return false;
        }
        e.nodes = nodes.data;
    }
    clip(&e, n, out, &count);
    mni_obj_vec_free(allocator, &nodes);
    if (cost) {
        cost->steps = e.steps;
        cost->budget = e.budget;
        cost->gave_up = e.gave_up;
    }
    return true;
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
                         mn_obj_vec *work, float normal[3], mn_obj_tri_cost *cost)
{
    if (cost)
        *cost = (mn_obj_tri_cost){0};
    size_t tri_bytes = (size_t)(n - 2) * 3 * sizeof(uint32_t);
    if (!mni_obj_vec_reserve(allocator, tris, tri_bytes))
        return false;
    uint32_t *out = (uint32_t *)(void *)((char *)tris->data + tris->size);
    if (n == 4) {
        quad(positions, corners, out, normal);
        tris->size += tri_bytes;
        return true;
    }

    double nn[3], diagonal;
    newell(positions, corners, n, nn, &diagonal);
    unit_or_up(nn, normal);
    double len = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
    bool flat = !(len > 0.0) || !isfinite(len) || !isfinite(diagonal);
    plane pl;
    if (!flat) {
        double w[3] = {nn[0] / len, nn[1] / len, nn[2] / len};
        make_plane(w, positions + 3 * (size_t)corners[0].v, &pl);
    }
    /* Convex (or no area to speak of): the fan. */
    if (flat || convex(&pl, positions, corners, n)) {
        uint32_t count = 0;
        for (uint32_t i = 1; i + 1 < n; i++)
            emit(out, &count, 0, i, i + 1);
        tris->size += tri_bytes;
        return true;
    }
    if (!ear_clip(allocator, &pl, positions, corners, n, MN_OBJ_CONVEX_TOLERANCE * diagonal, work, out, cost))
        return false;
    tris->size += tri_bytes;
    return true;
}
