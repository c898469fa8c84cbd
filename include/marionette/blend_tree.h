/*
 * marionette/blend_tree.h — a graph of clips blended by parameters the
 * caller names: clip leaves (each with an optional clock of its own), lerps,
 * one-dimensional sets, two-dimensional blend spaces, and phase-locked
 * (synchronised) locomotion sets.
 *
 *     // stand / walk / run along "speed", walk and run phase-locked
 *     mn_blend_node nodes[] = {
 *         {.kind = MN_BLEND_NODE_CLIP, .clip = idle, .loop = true},          // 0
 *         {.kind = MN_BLEND_NODE_CLIP, .clip = walk},                         // 1
 *         {.kind = MN_BLEND_NODE_CLIP, .clip = run},                          // 2
 *         {.kind = MN_BLEND_NODE_1D, .parameter = "speed", .children = gait,  // 3
 *          .child_count = 2, .positions = gait_at, .sync = true},             //   gait = {1, 2}
 *         {.kind = MN_BLEND_NODE_LERP, .parameter = "moving", .a = 0, .b = 3},// 4: the root
 *     };
 *     mn_blend_tree_desc desc = {.nodes = nodes, .node_count = 5, .root = 4,
 *                                .bind = &skeleton->rest};
 *     mn_blend_tree *tree;
 *     mn_blend_tree_create(&desc, &tree, &err);
 *     mn_blend_tree_set(tree, "speed", 1.4f, &err);   // a name no node declares fails
 *     mn_blend_tree_evaluate(tree, seconds, &pose, &err);   // allocation-free
 *     mn_blend_tree_free(tree);
 *
 * NODES
 *   Nodes are given as an array; a node refers to its children by index in
 *   that array, in any order (a child may come before or after its parent,
 *   and one node may be the child of several).  Cycles are refused.
 *   CLIP  samples `clip`.  Its time is the frame time passed to evaluate,
 *         or, when `clock` names one, that clock's value (seconds on the
 *         clip's own axis: what advances it — distance walked, an angle
 *         turned — is the caller's business).  `loop` false (the default)
 *         clamps to the clip's keys; true wraps: τ − d·floor(τ/d), d the
 *         clip's duration counted from 0 (d = 0 samples at 0).  Every leaf,
 *         every evaluation, samples into a pose first copied from the bind
 *         pose (no bind: T 0, R identity, S 1), so a channel no track
 *         mentions holds the bind value — never last frame's.
 *   LERP  mn_pose_blend(a, b, parameter): the parameter clamps to [0, 1].
 *   1D    children at `positions` along `parameter`, sorted by position at
 *         build (stably).  Below the first position the first child alone,
 *         above the last the last alone; between positions the two
 *         bracketing children blend by (p − at_i)/(at_{i+1} − at_i).
 *   2D    children at points (positions[2i], positions[2i+1]) in the plane
 *         of (`parameter`, `parameter_y`).  Weights are barycentric over a
 *         triangulation: the caller's `triangles` (index triples into the
 *         node's children), or by default a Delaunay triangulation in which
 *         a cocircular cell (a square of a grid) is fanned from its
 *         lowest-index point.  Inside the hull the first triangle holding
 *         the point (all barycentrics ≥ −1e−6, negatives clamped to 0 and
 *         renormalised) gives three weights; outside, the point moves to the
 *         nearest point of the hull boundary (Euclidean, in raw parameter
 *         units; on a tie the first boundary edge in triangle order) and that
 *         edge's two children blend linearly.  The three children blend in triangle order as
 *         blend(blend(c0, c1, w1/(w0 + w1)), c2, w2), which is the exact
 *         barycentric mix for translation and scale.
 *   Children at weight 0 are not evaluated.
 *
 * WEIGHTED SUMS (`weighted_sum` on a 1D or 2D node)
 *   By default a set's children blend one slerp after another (above).  With
 *   `weighted_sum` the two or three weighted children blend in one pass, as
 *   ozz-animation's blending job does: per joint the rotation is the
 *   weighted sum of the children's quaternions, each taken on the first
 *   child's side, normalised once, and translations and scales are the
 *   weighted sums t0 + (t1 − t0)·w1 + (t2 − t0)·w2 (equal finite inputs
 *   keep their bits): the default's to float rounding.  A rotation
 *   differs from the sequential slerps by at most 1.5e-3 rad where
 *   the children are within 0.7 rad of one another (a locomotion grid's
 *   neighbours), more as they spread (nlerp runs ahead of slerp in the
 *   middle of a wide arc).  About 0.4 of the default blends' instructions:
 *   no slerp series.  tests/test_blend.c holds the bound and the kernels.
 *
 * SYNCHRONISED SETS (`sync` on a 1D or 2D node)
 *   Every child must be a clip leaf with no clock and a duration > 0.  The
 *   set's period is D = Σ w_i·d_i over its current weights; child i is
 *   sampled at frac(φ)·d_i, so walk and run of different lengths put their
 *   feet down together.  Leaf `loop` flags are ignored (synced leaves wrap).
 *   A bare evaluation takes φ = t / D (exact while the parameters hold
 *   still).  A state machine keeps φ itself, one per sync slot, 0 when a
 *   state is entered, advanced by mn_blend_tree_advance_phases with each
 *   update's dt and parameters, and passed to mn_blend_tree_evaluate_node.
 *   Example: walk 1 s, run 0.5 s, weights ½/½, t = 0.3 → D = 0.75, φ = 0.4,
 *   walk sampled at 0.4 s and run at 0.2 s.
 *
 * NAMES: PARAMETERS AND CLOCKS
 *   A blend parameter (a lerp's or set's `parameter`/`parameter_y`) is a
 *   weight; a clock (a clip's `clock`) is a time.  The tree collects every
 *   name at build, and a name used as both is refused there (one dial
 *   steering a blend and a clip's time is a rig that responds to the wrong
 *   dial).  A name on several nodes is one shared value.  Every value
 *   starts at 0 and keeps what it was set to.  Names are case-sensitive
 *   bytes; empty names are refused.  Setting a name no node declares, or a
 *   non-finite value, fails loudly and changes nothing: a misspelt name
 *   would otherwise leave an animation that silently will not respond.
 *
 * STATES OF A STATE MACHINE
 *   A tree may have several entry points: any node can be evaluated on its
 *   own with mn_blend_tree_evaluate_node (mn_blend_tree_evaluate uses
 *   `root`).  A state machine builds one tree holding every state's nodes,
 *   so its states share one parameter namespace, and evaluates state s by
 *   its node index into a pose of its own.  Sync slots, phases and leaf
 *   times (for events) are exposed below for it.
 *
 * MEMORY AND THREADS
 *   mn_blend_tree_create copies the node descriptions, the names and the
 *   bind pose, and claims every scratch pose evaluation needs (one per level
 *   of the deepest path) through the desc's allocator.  Clips are borrowed
 *   and must outlive the tree.  Setting values, advancing clocks and phases
 *   and evaluating allocate nothing.  Evaluation writes the tree's scratch:
 *   one tree, one thread at a time.  Many characters: one tree each (clips
 *   shared).
 */
#ifndef MARIONETTE_BLEND_TREE_H
#define MARIONETTE_BLEND_TREE_H

#include "core.h"
#include "pose.h"
#include "clip.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most children a 1D set or 2D space may have (building a space costs O(n⁴) at this size). */
#define MN_BLEND_MAX_CHILDREN 128u

/* The tree: opaque, made by mn_blend_tree_create, freed by mn_blend_tree_free. */
typedef struct mn_blend_tree mn_blend_tree;

typedef enum mn_blend_node_kind {
    MN_BLEND_NODE_INVALID = 0,   /* a zeroed node: refused at build */
    MN_BLEND_NODE_CLIP,          /* a clip leaf */
    MN_BLEND_NODE_LERP,          /* blend(a, b, parameter) */
    MN_BLEND_NODE_1D,            /* children along one parameter */
    MN_BLEND_NODE_2D             /* children in the plane of two parameters */
} mn_blend_node_kind;

/*
 * One node's description.  Fields a kind does not use must be zero/NULL
 * (they are ignored, but zero keeps a description readable).  Strings and
 * arrays are copied at build.
 */
typedef struct mn_blend_node {
    mn_blend_node_kind kind;

    /* CLIP */
    const mn_clip *clip;         /* borrowed; must outlive the tree */
    const char *clock;           /* NULL: the frame time; else the clock giving this clip's time */
    bool loop;                   /* false: clamp to the keys; true: wrap by the duration */

    /* LERP: mn_pose_blend(node a, node b, parameter) */
    uint32_t a, b;               /* node indices */

    /* LERP, 1D, 2D */
    const char *parameter;       /* the blend parameter (the x axis of a 2D space) */
    /* 2D */
    const char *parameter_y;     /* the y axis; may equal parameter */

    /* 1D, 2D */
    const uint32_t *children;    /* child_count node indices */
    uint32_t child_count;        /* 1D: >= 1; 2D: >= 3 */
    const float *positions;      /* 1D: child_count positions, distinct and not NaN;
                                    2D: child_count (x, y) pairs, distinct, not all on a line */
    const uint32_t *triangles;   /* 2D, optional: triangle_count triples of indices into
                                    `children`, each of non-zero area; NULL: Delaunay */
    uint32_t triangle_count;
    bool sync;                   /* phase-lock the children (see SYNCHRONISED SETS) */
    bool weighted_sum;           /* one normalised weighted sum, not sequential slerps (WEIGHTED SUMS) */
} mn_blend_node;

/* What mn_blend_tree_create builds.  Zero means the default given per field. */
typedef struct mn_blend_tree_desc {
    const mn_blend_node *nodes;
    uint32_t node_count;         /* >= 1 */
    uint32_t root;               /* the node mn_blend_tree_evaluate evaluates (< node_count) */
    uint32_t joint_count;        /* joints of every pose; 0: bind->joint_count (bind required then) */
    /*
     * The bind (rest) pose, copied: what every leaf starts from before its
     * clip writes the channels it animates.  Give it whenever clips are
     * rotation-only (most are): without it a joint no translation track
     * mentions sits at its parent's origin and the figure folds in on
     * itself.  NULL: T 0, R identity, S 1.  Its joint count must equal
     * joint_count when both are given.
     */
    const mn_pose *bind;
    mn_allocator allocator;      /* zero: malloc/free; everything the tree holds comes from it */
} mn_blend_tree_desc;

/*
 * Build a tree.  Checks every node, collects the parameter and clock
 * names, sorts 1D children, triangulates 2D spaces, and claims the scratch
 * poses.  err->path names the offending field ("nodes[3].children[1]").
 * Errors (*out = NULL):
 *   MN_INVALID_ARGUMENT  NULL desc/out/nodes, node_count 0, no joint count,
 *                        an unknown kind, a clip leaf without a clip, a
 *                        clip bound to a space of another joint count, or
 *                        to a space other than the bind pose's or another
 *                        clip's (pose.h, SPACES; err names both), a
 *                        missing or empty name, a 1D set without children,
 *                        a 2D space with fewer than 3 children, positions
 *                        missing, a sync set whose child is not a clip leaf,
 *                        has a clock or has duration 0, a triangle of zero
 *                        area, duplicate or collinear 2D points, equal 1D
 *                        positions;
 *   MN_NOT_FINITE        a NaN or infinite position;
 *   MN_INDEX_RANGE       root, a child or a triangle index out of range;
 *   MN_HIERARCHY         a node that is its own ancestor;
 *   MN_INVALID_VALUE     a name used both as a clock and as a blend parameter
 *                        (err names it and both nodes);
 *   MN_COUNT_MISMATCH    a bind pose whose joint count is not joint_count;
 *   MN_OVERFLOW          a path from some node to a leaf longer than 64
 *                        nodes (which keeps evaluation's recursion bounded),
 *                        a node whose evaluation would visit more than 65536
 *                        leaves (shared nodes count once per use), a set of
 *                        more than MN_BLEND_MAX_CHILDREN children, or sizes
 *                        that overflow;
 *   MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_blend_tree_create(const mn_blend_tree_desc *desc, mn_blend_tree **out,
                                      mn_error *err);

/* Free a tree and everything it claimed.  NULL is allowed. */
MN_API void mn_blend_tree_free(mn_blend_tree *tree);

/* Joints of every pose the tree evaluates and its node count (0 for NULL); its root node (MN_NONE for NULL). */
MN_API uint32_t mn_blend_tree_joint_count(const mn_blend_tree *tree);

/*
 * The space the tree's poses are in (pose.h, SPACES): that of its bind pose
 * and its bound clips, which build made sure are one; unbound when none of
 * them is bound.  Evaluation refuses a pose this space does not fit.
 */
MN_API mn_space mn_blend_tree_space(const mn_blend_tree *tree);
MN_API uint32_t mn_blend_tree_node_count(const mn_blend_tree *tree);
MN_API uint32_t mn_blend_tree_root(const mn_blend_tree *tree);

/* ---- parameters and clocks ------------------------------------------------ */

typedef enum mn_blend_name_kind {
    MN_BLEND_NAME_NONE = 0,      /* no node declares it */
    MN_BLEND_NAME_PARAMETER,     /* a blend parameter (lerp, 1D, 2D) */
    MN_BLEND_NAME_CLOCK          /* a clip leaf's clock */
} mn_blend_name_kind;

/*
 * Set a parameter or a clock by name (strcmp against the names collected at
 * build: fine per frame for a handful, or look the index up once with
 * mn_blend_tree_find and use mn_blend_tree_set_index).
 * Errors (nothing changes): MN_INVALID_ARGUMENT (NULL tree or name),
 * MN_INVALID_VALUE (no node declares the name: err quotes it and suggests the
 * closest name a node declares, within a few edits),
 * MN_NOT_FINITE (value is NaN or infinite).  Allocation-free.
 */
MN_API mn_status mn_blend_tree_set(mn_blend_tree *tree, const char *name, float value,
                                   mn_error *err);

/*
 * Add dt seconds to a clock (clock += dt).  A name that is a blend
 * parameter, not a clock, is MN_INVALID_VALUE; otherwise errors as
 * mn_blend_tree_set (a non-finite dt or result is MN_NOT_FINITE).
 */
MN_API mn_status mn_blend_tree_advance_clock(mn_blend_tree *tree, const char *name, float dt,
                                             mn_error *err);

/* The current value of a name, in *value.  Errors as mn_blend_tree_set (NULL value: invalid argument). */
MN_API mn_status mn_blend_tree_get(const mn_blend_tree *tree, const char *name, float *value,
                                   mn_error *err);

/* Number of distinct names (parameters and clocks); indices run 0 .. count−1 in first-use order. */
MN_API uint32_t mn_blend_tree_name_count(const mn_blend_tree *tree);

/* Index of `name`, MN_NONE when no node declares it (NULL tree or name: MN_NONE). */
MN_API uint32_t mn_blend_tree_find(const mn_blend_tree *tree, const char *name);

/* The name at index (NULL when out of range).  Owned by the tree. */
MN_API const char *mn_blend_tree_name(const mn_blend_tree *tree, uint32_t index);

/* Whether `name` is a parameter, a clock or unknown (what a state machine checks triggers against). */
MN_API mn_blend_name_kind mn_blend_tree_name_kind(const mn_blend_tree *tree, const char *name);

/* Set by index.  Errors: MN_INDEX_RANGE (index >= name count), MN_NOT_FINITE; nothing changes. */
MN_API mn_status mn_blend_tree_set_index(mn_blend_tree *tree, uint32_t index, float value,
                                         mn_error *err);

/* The value at index (0 when out of range). */
MN_API float mn_blend_tree_value(const mn_blend_tree *tree, uint32_t index);

/* ---- evaluation --------------------------------------------------------------- */

/*
 * Evaluate the root at frame time `time` (seconds) into out, with the
 * current parameters and clocks.  Every channel of out is written: the
 * result is a pure function of (tree, values, time).  Synchronised sets use
 * φ = time / D.  Allocation-free.
 * Errors (out untouched): MN_INVALID_ARGUMENT (NULL tree or out, or out
 * bound to a space other than mn_blend_tree_space: err names both),
 * MN_COUNT_MISMATCH (out->joint_count is not the tree's), MN_NOT_FINITE
 * (time is NaN or infinite).
 */
MN_API mn_status mn_blend_tree_evaluate(mn_blend_tree *tree, float time, mn_pose *out,
                                        mn_error *err);

/*
 * Evaluate any node (a state machine's state) at frame time `time`.
 * phases: NULL for φ = time / D in every synchronised set, or
 * mn_blend_tree_sync_count values, phases[slot] being the φ of that sync
 * slot (only slots inside this node's subtree are read).  out may not be a
 * pose the tree owns.  Errors as mn_blend_tree_evaluate, plus
 * MN_INDEX_RANGE (node >= node count).  Allocation-free.
 */
MN_API mn_status mn_blend_tree_evaluate_node(mn_blend_tree *tree, uint32_t node, float time,
                                             const double *phases, mn_pose *out, mn_error *err);

/* ---- synchronised sets (for a state machine) --------------------------------- */

/* Number of synchronised sets (sync slots); slot i is the i-th sync node in node order. */
MN_API uint32_t mn_blend_tree_sync_count(const mn_blend_tree *tree);

/* The node index of sync slot `slot`, MN_NONE when out of range. */
MN_API uint32_t mn_blend_tree_sync_node(const mn_blend_tree *tree, uint32_t slot);

/* The sync slot of `node`, MN_NONE when it is not a synchronised set. */
MN_API uint32_t mn_blend_tree_sync_slot(const mn_blend_tree *tree, uint32_t node);

/* D = Σ w_i·d_i of sync slot `slot` under the current parameters (0 when out of range). */
MN_API double mn_blend_tree_sync_period(const mn_blend_tree *tree, uint32_t slot);

/*
 * phases[slot] += dt / D(slot), with the current parameters, for every
 * synchronised set in the subtree of `node` (other slots untouched).
 * phases holds mn_blend_tree_sync_count values; a state machine zeroes them
 * when it enters a state.  Does nothing for a NULL tree or phases, a node
 * out of range, or a non-finite dt.  Allocation-free.
 */
MN_API void mn_blend_tree_advance_phases(const mn_blend_tree *tree, uint32_t node, float dt,
                                         double *phases);

/* ---- leaf times (for clip events) -------------------------------------------- */

/* One clip leaf reached from a node, and the unwrapped time it is sampled at. */
typedef struct mn_blend_leaf {
    uint32_t node;               /* the clip node's index */
    const mn_clip *clip;
    bool loop;                   /* true when the leaf wraps (a looping or synchronised leaf) */
    double time;                 /* unwrapped leaf time: the frame time (frame clock), the
                                    clock's value (named clock), or φ·d_i (synchronised) */
} mn_blend_leaf;

/*
 * The clip leaves under `node`, depth-first in declaration order (a lerp's a
 * before b; a set's children in the order given, not sorted), with the leaf
 * time each would be sampled at for frame time `time` and `phases` (as for
 * mn_blend_tree_evaluate_node), before wrapping.  Every leaf is listed,
 * whatever its weight; a node reached twice is listed twice.  Writes
 * min(capacity, total) entries and returns the total (0 for a NULL tree or
 * a node out of range), so a first call with capacity 0 sizes the array.
 * Allocation-free.
 */
MN_API uint32_t mn_blend_tree_leaves(const mn_blend_tree *tree, uint32_t node, float time,
                                     const double *phases, mn_blend_leaf *out, uint32_t capacity);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_BLEND_TREE_H */
