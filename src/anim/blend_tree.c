/*
 * Blend trees (docs/animation.md): clip
 * leaves with their own clocks, lerps, 1D sets and 2D blend spaces over
 * named parameters, phase-locked sets, evaluated depth-first into a
 * caller's pose.
 *
 * Scratch: an interior node evaluated at level L puts its first operand in
 * the caller's pose (or its parent's scratch) and every further operand in
 * scratch[L], evaluating its children at level L + 1.  So a tree needs one
 * scratch pose per interior level of its deepest path — claimed at build —
 * whichever node is evaluated, and a node shared by two parents is safe
 * (each use finishes before the next starts).  A tree with a 2D node has a
 * second pose per level, scratch3[L], for a triangle's third operand: the
 * three are evaluated before their two blends, made in one pass.
 *
 * Depth is bounded (MAX_LEVELS) so that evaluation's recursion is too: a
 * hostile description cannot run the stack out.
 */
#include <marionette/blend_tree.h>

#include "anim/blend_internal.h"
#include "anim/clip_internal.h"
#include "anim/space_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A leaf's channels copied from the bind pose before its clip is sampled (sample_leaf). */
#define FROM_BIND_T 1u
#define FROM_BIND_R 2u
#define FROM_BIND_S 4u
#define FROM_BIND_ALL 7u

/* Deepest path accepted, in nodes: far beyond any authored tree, small enough for the stack. */
#define MAX_LEVELS 64u
/* Leaf visits one evaluation may make: a node shared by both sides of a lerp is visited twice, so
   a chain of such lerps doubles per level; past this a description is refused, not evaluated. */
#define MAX_LEAF_VISITS 65536u

typedef struct bt_name {
    const char *name;
    mn_blend_name_kind kind;
    float value;
    uint32_t first_node;         /* the node that declared it first, for error messages */
} bt_name;

typedef struct bt_node {
    mn_blend_node_kind kind;
    /* CLIP */
    const mn_clip *clip;
    uint32_t clock;              /* name index, MN_NONE for the frame time */
    bool loop;
    double duration;
    uint8_t from_bind;           /* channels (FROM_BIND_*) its clip leaves to the bind pose somewhere */
    /* LERP */
    uint32_t a, b;
    /* LERP, 1D, 2D */
    uint32_t param, param_y;     /* name indices */
    uint32_t child_count;
    uint32_t *children;          /* node indices, declaration order */
    uint32_t *order;             /* 1D: positions in `children`, ascending by position */
    float *at;                   /* 1D: at[k] is the position of children[order[k]] */
    mn_blend_space space;        /* 2D: points are the children in declaration order */
    bool sync;
    bool weighted_sum;           /* blend the weighted children in one normalised sum */
    /* derived */
    uint32_t depth;              /* interior levels from here down (0 for a leaf) */
    uint32_t visits;             /* leaf visits evaluating this node makes (at most) */
    uint32_t *syncs;             /* sync slots in this subtree, each once */
    uint32_t sync_count;
} bt_node;

struct mn_blend_tree {
    mn_arena arena;              /* owns everything below; the tree itself is its holder */
    uint32_t joint_count;
    mn_space clip_space;         /* its clips' and bind pose's space, checked once at build */
    uint32_t node_count;
    uint32_t root;
    bt_node *nodes;
    bt_name *names;
    uint32_t name_count;
    mn_pose bind;
    mn_pose *scratch;            /* one per interior level */
    mn_pose *scratch3;           /* a third operand's, one per level (only with a 2D node), or NULL */
    uint32_t scratch_count;
    uint32_t sync_count;
    uint32_t *sync_nodes;        /* node of each sync slot */
    uint32_t *sync_slot;         /* slot of each node, MN_NONE */
};

/* ---- names ------------------------------------------------------------------ */

static uint32_t find_name(const mn_blend_tree *tree, const char *name)
{
    for (uint32_t i = 0; i < tree->name_count; i++)
        if (strcmp(tree->names[i].name, name) == 0)
            return i;
    return MN_NONE;
}

static const char *kind_word(mn_blend_name_kind kind)
{
    return kind == MN_BLEND_NAME_CLOCK ? "a clock" : "a blend parameter";
}

/* Record `name` as used by node `node` (field `field`) as `kind`; its index in *index. */
static mn_status declare_name(mn_blend_tree *tree, const char *name, mn_blend_name_kind kind,
                              uint32_t node, const char *field, uint32_t *index, mn_error *err)
{
    char path[64];
    snprintf(path, sizeof path, "nodes[%u].%s", node, field);
    if (!name || !name[0])
        return mni_error_set(err, MN_INVALID_ARGUMENT, path, -1, "%s: the name is %s", path,
                             name ? "empty" : "missing");
    uint32_t i = find_name(tree, name);
    if (i != MN_NONE) {
        if (tree->names[i].kind != kind)
            return mni_error_set(err, MN_INVALID_VALUE, path, -1,
                                 "%s: \"%s\" is %s here and %s at nodes[%u]; a name is one or the "
                                 "other, never both",
                                 path, name, kind_word(kind), kind_word(tree->names[i].kind),
                                 tree->names[i].first_node);
        *index = i;
        return MN_OK;
    }
    char *copy = mni_arena_strndup(&tree->arena, name, strlen(name));
    if (!copy)
        return mni_error_set(err, MN_OUT_OF_MEMORY, path, -1, NULL);
    i = tree->name_count++;
    tree->names[i] = (bt_name){.name = copy, .kind = kind, .value = 0.0f, .first_node = node};
    *index = i;
    return MN_OK;
}

static float name_value(const mn_blend_tree *tree, uint32_t index)
{
    return tree->names[index].value;
}

/* ---- weights ------------------------------------------------------------------ */

/*
 * The children of a set that carry weight, in blend order: positions in
 * node->children and weights summing to 1.  Returns how many (1 to 3).
 */
static uint32_t set_weights(const mn_blend_tree *tree, const bt_node *nd, uint32_t idx[3],
                            double w[3])
{
    if (nd->kind == MN_BLEND_NODE_1D) {
        float p = name_value(tree, nd->param);
        uint32_t last = nd->child_count - 1;
        if (p <= nd->at[0] || last == 0) {
            idx[0] = nd->order[0];
            w[0] = 1.0;
            return 1;
        }
        if (p >= nd->at[last]) {
            idx[0] = nd->order[last];
            w[0] = 1.0;
            return 1;
        }
        uint32_t i = 0;
        while (!(p < nd->at[i + 1]))
            i++;
        float f = (p - nd->at[i]) / (nd->at[i + 1] - nd->at[i]);
        idx[0] = nd->order[i];
        w[0] = 1.0 - (double)f;
        if (f == 0.0f)
            return 1;
        idx[1] = nd->order[i + 1];
        w[1] = f;
        return 2;
    }
    uint32_t k = mni_blend_space_weights(&nd->space, name_value(tree, nd->param),
                                         name_value(tree, nd->param_y), idx, w);
    uint32_t kept = 0;
    for (uint32_t c = 0; c < k; c++)
        if (w[c] > 0.0) {
            idx[kept] = idx[c];
            w[kept] = w[c];
            kept++;
        }
    if (kept == 0) { /* weights sum to 1, so one is positive; guard the pose being written anyway */
        w[0] = 1.0;
        kept = 1;
    }
    return kept;
}

/* D = Σ w_i·d_i of a synchronised set under the current parameters. */
static double sync_period(const mn_blend_tree *tree, const bt_node *nd)
{
    uint32_t idx[3];
    double w[3], d = 0.0;
    uint32_t k = set_weights(tree, nd, idx, w);
    for (uint32_t c = 0; c < k; c++)
        d += w[c] * tree->nodes[nd->children[idx[c]]].duration;
    return d;
}

/* The set's phase: the caller's (a state machine's), or time / D for a bare evaluation. */
static double set_phase(const mn_blend_tree *tree, const bt_node *nd, double time,
                        const double *phases)
{
    uint32_t slot = tree->sync_slot[nd - tree->nodes];
    double phi = phases ? phases[slot] : time / sync_period(tree, nd);
    return isfinite(phi) ? phi : 0.0;
}

/* ---- evaluation --------------------------------------------------------------- */

/* Leaf time to sampling time: wrapped by the duration counted from 0, or left to clamp. */
static float leaf_sample_time(const bt_node *leaf, double t)
{
    if (!leaf->loop)
        return (float)t;
    double d = leaf->duration;
    if (!(d > 0.0))
        return 0.0f;
    double u = t - d * floor(t / d);
    return u < d ? (float)u : 0.0f; /* rounding can land a hair below a wrap on d itself */
}

/*
 * Every leaf starts from the bind pose, then its clip writes what it
 * animates.  A channel the clip writes for every joint (the rotations of a
 * clip with a rotation track on each) would be overwritten whole, so it is
 * not copied first: the same pose, less copying.
 */
static void sample_leaf(const mn_blend_tree *tree, const bt_node *leaf, float t, mn_pose *out)
{
    if (leaf->from_bind == FROM_BIND_ALL) {
        mn_pose_copy(out, &tree->bind);
    } else {
        size_t n = tree->joint_count;
        if (leaf->from_bind & FROM_BIND_T)
            memcpy(out->translations, tree->bind.translations, 3 * n * sizeof(float));
        if (leaf->from_bind & FROM_BIND_R)
            memcpy(out->rotations, tree->bind.rotations, 4 * n * sizeof(float));
        if (leaf->from_bind & FROM_BIND_S)
            memcpy(out->scales, tree->bind.scales, 3 * n * sizeof(float));
        if (out->space.kind == MN_SPACE_UNBOUND) /* as mn_pose_copy: a whole copy takes bind's space */
            out->space = tree->bind.space;
    }
    mni_clip_sample_into(leaf->clip, t, NULL, out); /* its space was checked at build */
}

static void eval_node(mn_blend_tree *tree, uint32_t node, float time, const double *phases,
                      mn_pose *out, uint32_t level);

/*
 * A set: its weighted children one after another, each blended in by its
 * share so far.  Three children (inside a 2D triangle) are all evaluated
 * first and their two blends made in one pass (mni_blend_poses3: the same
 * bits as one blend after the other).
 */
static void eval_set(mn_blend_tree *tree, const bt_node *nd, float time, const double *phases,
                     mn_pose *out, uint32_t level)
{
    uint32_t idx[3];
    double w[3];
    uint32_t k = set_weights(tree, nd, idx, w);
    double phase = nd->sync ? set_phase(tree, nd, time, phases) : 0.0;
    double frac = phase - floor(phase);
    bool fused = k == 3 && tree->scratch3;
    /* a weighted sum: the children evaluated as for the fused blends, then one pass (WEIGHTED SUMS) */
    bool sum = nd->weighted_sum && (k < 3 || tree->scratch3);
    double acc = 0.0;
    float share[3] = {1.0f, 1.0f, 1.0f};
    for (uint32_t c = 0; c < k; c++) {
        uint32_t child = nd->children[idx[c]];
        mn_pose *target = c == 0 ? out : fused && c == 2 ? &tree->scratch3[level] : &tree->scratch[level];
        if (nd->sync) {
            const bt_node *leaf = &tree->nodes[child];
            sample_leaf(tree, leaf, (float)(frac * leaf->duration), target);
        } else {
            eval_node(tree, child, time, phases, target, level + 1);
        }
        acc += w[c];
        share[c] = (float)(w[c] / acc);
        if (c > 0 && !fused && !sum)
            mni_blend_poses(out, target, share[c], NULL, out);
    }
    if (sum && k > 1) {
        const mn_pose *third = k == 3 ? &tree->scratch3[level] : &tree->scratch[level];
        mni_blend_sum3(out, &tree->scratch[level], third, (float)w[0], (float)w[1],
                       k == 3 ? (float)w[2] : 0.0f, out);
    } else if (fused) {
        mni_blend_poses3(out, &tree->scratch[level], &tree->scratch3[level], share[1], share[2], out);
    }
}

static void eval_node(mn_blend_tree *tree, uint32_t node, float time, const double *phases,
                      mn_pose *out, uint32_t level)
{
    const bt_node *nd = &tree->nodes[node];
    switch (nd->kind) {
    case MN_BLEND_NODE_CLIP: {
        double t = nd->clock != MN_NONE ? name_value(tree, nd->clock) : time;
        sample_leaf(tree, nd, leaf_sample_time(nd, t), out);
        break;
    }
    case MN_BLEND_NODE_LERP: {
        float w = mni_clamp01(name_value(tree, nd->param));
        if (w == 0.0f || w == 1.0f) {
            /* The blend would copy one side exactly: the other is not evaluated. */
            eval_node(tree, w == 0.0f ? nd->a : nd->b, time, phases, out, level + 1);
            break;
        }
        eval_node(tree, nd->a, time, phases, out, level + 1);
        eval_node(tree, nd->b, time, phases, &tree->scratch[level], level + 1);
        mni_blend_poses(out, &tree->scratch[level], w, NULL, out);
        break;
    }
    default:
        eval_set(tree, nd, time, phases, out, level);
        break;
    }
}

static mn_status check_evaluate(const mn_blend_tree *tree, uint32_t node, float time,
                                const mn_pose *out, mn_error *err)
{
    if (!tree || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "blend tree: tree or out is NULL");
    if (node >= tree->node_count)
        return mni_fail(err, MN_INDEX_RANGE, "blend tree: node %u of %u", node, tree->node_count);
    if (out->joint_count != tree->joint_count)
        return mni_fail(err, MN_COUNT_MISMATCH, "blend tree: out has %u joints, the tree %u",
                        out->joint_count, tree->joint_count);
    if (!isfinite(time))
        return mni_fail(err, MN_NOT_FINITE, "blend tree: time is not finite");
    return mni_space_check(tree->clip_space, "the blend tree", out, err);
}

mn_status mn_blend_tree_evaluate_node(mn_blend_tree *tree, uint32_t node, float time,
                                      const double *phases, mn_pose *out, mn_error *err)
{
    mn_status st = check_evaluate(tree, node, time, out, err);
    if (st != MN_OK)
        return st;
    eval_node(tree, node, time, phases, out, 0);
    mni_error_clear(err);
    return MN_OK;
}

mn_status mn_blend_tree_evaluate(mn_blend_tree *tree, float time, mn_pose *out, mn_error *err)
{
    return mn_blend_tree_evaluate_node(tree, tree ? tree->root : 0, time, NULL, out, err);
}

/* ---- parameters and clocks ------------------------------------------------------- */

static mn_status lookup(const mn_blend_tree *tree, const char *name, uint32_t *index, mn_error *err)
{
    if (!tree || !name)
        return mni_fail(err, MN_INVALID_ARGUMENT, "blend tree: tree or name is NULL");
    *index = find_name(tree, name);
    if (*index != MN_NONE)
        return MN_OK;
    mni_suggest s;
    mni_suggest_init(&s, name);
    for (uint32_t i = 0; i < tree->name_count; i++)
        mni_suggest_offer(&s, tree->names[i].name);
    char hint[MNI_SUGGEST_MAX + 24];
    return mni_fail(err, MN_INVALID_VALUE, "blend tree: no node declares a parameter or clock named \"%s\"%s",
                    name, mni_suggest_text(&s, hint, sizeof hint));
}

mn_status mn_blend_tree_set_index(mn_blend_tree *tree, uint32_t index, float value, mn_error *err)
{
    if (!tree)
        return mni_fail(err, MN_INVALID_ARGUMENT, "blend tree: tree is NULL");
    if (index >= tree->name_count)
        return mni_fail(err, MN_INDEX_RANGE, "blend tree: name index %u of %u", index,
                        tree->name_count);
    if (!isfinite(value))
        return mni_fail(err, MN_NOT_FINITE, "blend tree: \"%s\" set to a non-finite value",
                        tree->names[index].name);
    tree->names[index].value = value;
    mni_error_clear(err);
    return MN_OK;
}

mn_status mn_blend_tree_set(mn_blend_tree *tree, const char *name, float value, mn_error *err)
{
    uint32_t index;
    mn_status st = lookup(tree, name, &index, err);
    return st != MN_OK ? st : mn_blend_tree_set_index(tree, index, value, err);
}

mn_status mn_blend_tree_advance_clock(mn_blend_tree *tree, const char *name, float dt, mn_error *err)
{
    uint32_t index;
    mn_status st = lookup(tree, name, &index, err);
    if (st != MN_OK)
        return st;
    if (tree->names[index].kind != MN_BLEND_NAME_CLOCK)
        return mni_fail(err, MN_INVALID_VALUE,
                        "blend tree: \"%s\" is a blend parameter, not a clock", name);
    if (!isfinite(dt))
        return mni_fail(err, MN_NOT_FINITE, "blend tree: clock \"%s\" advanced by a non-finite dt",
                        name);
    return mn_blend_tree_set_index(tree, index, tree->names[index].value + dt, err);
}

mn_status mn_blend_tree_get(const mn_blend_tree *tree, const char *name, float *value, mn_error *err)
{
    uint32_t index;
    if (!value)
        return mni_fail(err, MN_INVALID_ARGUMENT, "blend tree: value is NULL");
    mn_status st = lookup(tree, name, &index, err);
    if (st != MN_OK)
        return st;
    *value = tree->names[index].value;
    mni_error_clear(err);
    return MN_OK;
}

uint32_t mn_blend_tree_name_count(const mn_blend_tree *tree)
{
    return tree ? tree->name_count : 0;
}

uint32_t mn_blend_tree_find(const mn_blend_tree *tree, const char *name)
{
    return tree && name ? find_name(tree, name) : MN_NONE;
}

const char *mn_blend_tree_name(const mn_blend_tree *tree, uint32_t index)
{
    return tree && index < tree->name_count ? tree->names[index].name : NULL;
}

mn_blend_name_kind mn_blend_tree_name_kind(const mn_blend_tree *tree, const char *name)
{
    uint32_t i = mn_blend_tree_find(tree, name);
    return i == MN_NONE ? MN_BLEND_NAME_NONE : tree->names[i].kind;
}

float mn_blend_tree_value(const mn_blend_tree *tree, uint32_t index)
{
    return tree && index < tree->name_count ? tree->names[index].value : 0.0f;
}

uint32_t mn_blend_tree_joint_count(const mn_blend_tree *tree)
{
    return tree ? tree->joint_count : 0;
}

mn_space mn_blend_tree_space(const mn_blend_tree *tree)
{
    return tree ? tree->clip_space : (mn_space){0};
}

uint32_t mn_blend_tree_node_count(const mn_blend_tree *tree)
{
    return tree ? tree->node_count : 0;
}

uint32_t mn_blend_tree_root(const mn_blend_tree *tree)
{
    return tree ? tree->root : MN_NONE;
}

/* ---- sync slots, phases, leaves ---------------------------------------------------- */

uint32_t mn_blend_tree_sync_count(const mn_blend_tree *tree)
{
    return tree ? tree->sync_count : 0;
}

uint32_t mn_blend_tree_sync_node(const mn_blend_tree *tree, uint32_t slot)
{
    return tree && slot < tree->sync_count ? tree->sync_nodes[slot] : MN_NONE;
}

uint32_t mn_blend_tree_sync_slot(const mn_blend_tree *tree, uint32_t node)
{
    return tree && node < tree->node_count ? tree->sync_slot[node] : MN_NONE;
}

double mn_blend_tree_sync_period(const mn_blend_tree *tree, uint32_t slot)
{
    if (!tree || slot >= tree->sync_count)
        return 0.0;
    return sync_period(tree, &tree->nodes[tree->sync_nodes[slot]]);
}

void mn_blend_tree_advance_phases(const mn_blend_tree *tree, uint32_t node, float dt, double *phases)
{
    if (!tree || !phases || node >= tree->node_count || !isfinite(dt))
        return;
    const bt_node *nd = &tree->nodes[node];
    for (uint32_t i = 0; i < nd->sync_count; i++) {
        uint32_t slot = nd->syncs[i];
        phases[slot] += (double)dt / mn_blend_tree_sync_period(tree, slot);
    }
}

static void list_leaves(const mn_blend_tree *tree, uint32_t node, double time, const double *phases,
                        mn_blend_leaf *out, uint32_t capacity, uint32_t *count)
{
    const bt_node *nd = &tree->nodes[node];
    if (nd->kind == MN_BLEND_NODE_CLIP) {
        if (*count < capacity)
            out[*count] = (mn_blend_leaf){.node = node, .clip = nd->clip, .loop = nd->loop,
                                          .time = nd->clock != MN_NONE ? name_value(tree, nd->clock)
                                                                       : time};
        ++*count;
        return;
    }
    if (nd->kind == MN_BLEND_NODE_LERP) {
        list_leaves(tree, nd->a, time, phases, out, capacity, count);
        list_leaves(tree, nd->b, time, phases, out, capacity, count);
        return;
    }
    double phase = nd->sync ? set_phase(tree, nd, time, phases) : 0.0;
    for (uint32_t c = 0; c < nd->child_count; c++) {
        uint32_t child = nd->children[c];
        if (!nd->sync) {
            list_leaves(tree, child, time, phases, out, capacity, count);
            continue;
        }
        const bt_node *leaf = &tree->nodes[child];
        if (*count < capacity)
            out[*count] = (mn_blend_leaf){.node = child, .clip = leaf->clip, .loop = true,
                                          .time = phase * leaf->duration};
        ++*count;
    }
}

uint32_t mn_blend_tree_leaves(const mn_blend_tree *tree, uint32_t node, float time,
                              const double *phases, mn_blend_leaf *out, uint32_t capacity)
{
    if (!tree || node >= tree->node_count)
        return 0;
    uint32_t count = 0;
    list_leaves(tree, node, time, phases, out, out ? capacity : 0, &count);
    return count;
}

/* ---- build ------------------------------------------------------------------------- */

static mn_status node_error(mn_error *err, mn_status code, uint32_t node, const char *field,
                            const char *what)
{
    char path[64];
    snprintf(path, sizeof path, "nodes[%u]%s%s", node, field[0] ? "." : "", field);
    return mni_error_set(err, code, path, -1, "%s: %s", path, what);
}

static mn_status copy_children(mn_blend_tree *tree, bt_node *nd, const mn_blend_node *src,
                               uint32_t node, mn_error *err)
{
    for (uint32_t c = 0; c < src->child_count; c++)
        if (src->children[c] >= tree->node_count) {
            char field[40];
            snprintf(field, sizeof field, "children[%u]", c);
            return node_error(err, MN_INDEX_RANGE, node, field, "no such node");
        }
    nd->child_count = src->child_count;
    nd->children = mni_arena_alloc(&tree->arena, (size_t)src->child_count * sizeof(uint32_t), 4);
    if (!nd->children)
        return node_error(err, MN_OUT_OF_MEMORY, node, "", mn_status_message(MN_OUT_OF_MEMORY));
    memcpy(nd->children, src->children, (size_t)src->child_count * sizeof(uint32_t));
    return MN_OK;
}

/* 1D: positions checked, children ordered by them (stable insertion sort). */
static mn_status build_1d(mn_blend_tree *tree, bt_node *nd, const float *positions, uint32_t node,
                          mn_error *err)
{
    uint32_t n = nd->child_count;
    nd->order = mni_arena_alloc(&tree->arena, (size_t)n * sizeof(uint32_t), 4);
    nd->at = mni_arena_alloc(&tree->arena, (size_t)n * sizeof(float), 4);
    if (!nd->order || !nd->at)
        return node_error(err, MN_OUT_OF_MEMORY, node, "", mn_status_message(MN_OUT_OF_MEMORY));
    for (uint32_t c = 0; c < n; c++) {
        if (!isfinite(positions[c]))
            return node_error(err, MN_NOT_FINITE, node, "positions", "a position is not finite");
        uint32_t k = c;
        while (k > 0 && nd->at[k - 1] > positions[c]) {
            nd->at[k] = nd->at[k - 1];
            nd->order[k] = nd->order[k - 1];
            k--;
        }
        nd->at[k] = positions[c];
        nd->order[k] = c;
    }
    for (uint32_t k = 1; k < n; k++)
        if (nd->at[k] == nd->at[k - 1])
            return node_error(err, MN_INVALID_ARGUMENT, node, "positions",
                              "two children at the same position");
    return MN_OK;
}

static mn_status build_node(mn_blend_tree *tree, uint32_t node, const mn_blend_node *src,
                            mn_error *err)
{
    bt_node *nd = &tree->nodes[node];
    nd->kind = src->kind;
    nd->clock = nd->param = nd->param_y = MN_NONE;
    switch (src->kind) {
    case MN_BLEND_NODE_CLIP:
        if (!src->clip)
            return node_error(err, MN_INVALID_ARGUMENT, node, "clip", "a clip leaf without a clip");
        nd->clip = src->clip;
        nd->loop = src->loop;
        nd->duration = mn_clip_duration(src->clip);
        return src->clock ? declare_name(tree, src->clock, MN_BLEND_NAME_CLOCK, node, "clock",
                                         &nd->clock, err)
                          : MN_OK;
    case MN_BLEND_NODE_LERP:
        if (src->a >= tree->node_count || src->b >= tree->node_count)
            return node_error(err, MN_INDEX_RANGE, node, src->a >= tree->node_count ? "a" : "b",
                              "no such node");
        nd->a = src->a;
        nd->b = src->b;
        return declare_name(tree, src->parameter, MN_BLEND_NAME_PARAMETER, node, "parameter",
                            &nd->param, err);
    case MN_BLEND_NODE_1D:
    case MN_BLEND_NODE_2D: {
        bool two = src->kind == MN_BLEND_NODE_2D;
        if (!src->children || src->child_count == 0)
            return node_error(err, MN_INVALID_ARGUMENT, node, "children", "a set without children");
        if (src->child_count > MN_BLEND_MAX_CHILDREN)
            return node_error(err, MN_OVERFLOW, node, "children",
                              "a set has more than MN_BLEND_MAX_CHILDREN (128) children");
        if (!src->positions)
            return node_error(err, MN_INVALID_ARGUMENT, node, "positions", "positions are missing");
        nd->sync = src->sync;
        nd->weighted_sum = src->weighted_sum;
        mn_status st = declare_name(tree, src->parameter, MN_BLEND_NAME_PARAMETER, node,
                                    "parameter", &nd->param, err);
        if (st == MN_OK && two)
            st = declare_name(tree, src->parameter_y, MN_BLEND_NAME_PARAMETER, node, "parameter_y",
                              &nd->param_y, err);
        if (st == MN_OK)
            st = copy_children(tree, nd, src, node, err);
        if (st != MN_OK)
            return st;
        if (!two)
            return build_1d(tree, nd, src->positions, node, err);
        char path[32];
        snprintf(path, sizeof path, "nodes[%u]", node);
        return mni_blend_space_build(&nd->space, &tree->arena, src->positions, src->child_count,
                                     src->triangles, src->triangle_count, path, err);
    }
    default:
        return node_error(err, MN_INVALID_ARGUMENT, node, "kind", "not a node kind");
    }
}

/* The children of an interior node, for walks: a lerp's a and b, a set's children. */
static uint32_t child_at(const bt_node *nd, uint32_t c)
{
    return nd->kind == MN_BLEND_NODE_LERP ? (c == 0 ? nd->a : nd->b) : nd->children[c];
}

static uint32_t child_total(const bt_node *nd)
{
    return nd->kind == MN_BLEND_NODE_CLIP ? 0 : nd->kind == MN_BLEND_NODE_LERP ? 2 : nd->child_count;
}

/* Depth of every node below `node`, refusing cycles (state: 0 new, 1 on the path, 2 done). */
static mn_status measure(mn_blend_tree *tree, uint32_t node, uint8_t *state, uint32_t levels,
                         mn_error *err)
{
    if (state[node] == 2)
        return MN_OK;
    if (state[node] == 1)
        return node_error(err, MN_HIERARCHY, node, "", "the node is its own ancestor");
    if (levels >= MAX_LEVELS)
        return node_error(err, MN_OVERFLOW, node, "", "the tree is deeper than 64 levels");
    state[node] = 1;
    bt_node *nd = &tree->nodes[node];
    uint32_t depth = 0, visits = nd->kind == MN_BLEND_NODE_CLIP ? 1 : 0;
    for (uint32_t c = 0; c < child_total(nd); c++) {
        uint32_t child = child_at(nd, c);
        mn_status st = measure(tree, child, state, levels + 1, err);
        if (st != MN_OK)
            return st;
        if (tree->nodes[child].depth > depth)
            depth = tree->nodes[child].depth;
        visits += tree->nodes[child].visits; /* both terms <= MAX_LEAF_VISITS: cannot wrap */
        if (visits > MAX_LEAF_VISITS)
            return node_error(err, MN_OVERFLOW, node, "",
                              "evaluating the node would visit more than 65536 leaves");
    }
    nd->depth = nd->kind == MN_BLEND_NODE_CLIP ? 0 : depth + 1;
    nd->visits = visits;
    if (nd->depth >= MAX_LEVELS) /* met here when the deep end was measured first */
        return node_error(err, MN_OVERFLOW, node, "", "the tree is deeper than 64 levels");
    state[node] = 2;
    return MN_OK;
}

/* A synchronised set's children must be clip leaves on the set's clock with a period. */
static mn_status check_sync(const mn_blend_tree *tree, uint32_t node, mn_error *err)
{
    const bt_node *nd = &tree->nodes[node];
    for (uint32_t c = 0; c < nd->child_count; c++) {
        const bt_node *leaf = &tree->nodes[nd->children[c]];
        char field[40];
        snprintf(field, sizeof field, "children[%u]", c);
        if (leaf->kind != MN_BLEND_NODE_CLIP)
            return node_error(err, MN_INVALID_ARGUMENT, node, field,
                              "a synchronised set's child must be a clip leaf");
        if (leaf->clock != MN_NONE)
            return node_error(err, MN_INVALID_ARGUMENT, node, field,
                              "a synchronised set's child may not have a clock of its own");
        if (!(leaf->duration > 0.0))
            return node_error(err, MN_INVALID_ARGUMENT, node, field,
                              "a synchronised set's child needs a duration > 0");
    }
    return MN_OK;
}

/* Collect the sync slots under `node` once each (`mark` stamps visited nodes with `stamp`). */
static void gather_syncs(const mn_blend_tree *tree, uint32_t node, uint32_t *mark, uint32_t stamp,
                         uint32_t *slots, uint32_t *count)
{
    if (mark[node] == stamp)
        return;
    mark[node] = stamp;
    const bt_node *nd = &tree->nodes[node];
    if (nd->sync)
        slots[(*count)++] = tree->sync_slot[node];
    for (uint32_t c = 0; c < child_total(nd); c++)
        gather_syncs(tree, child_at(nd, c), mark, stamp, slots, count);
}

static mn_status derive(mn_blend_tree *tree, mn_error *err)
{
    uint32_t n = tree->node_count;
    uint8_t *state = mni_arena_calloc(&tree->arena, n, 1, 1);
    uint32_t *mark = mni_arena_calloc(&tree->arena, n, sizeof(uint32_t), 4);
    tree->sync_slot = mni_arena_calloc(&tree->arena, n, sizeof(uint32_t), 4);
    tree->sync_nodes = mni_arena_calloc(&tree->arena, n, sizeof(uint32_t), 4);
    uint32_t *slots = mni_arena_calloc(&tree->arena, n, sizeof(uint32_t), 4);
    if (!state || !mark || !tree->sync_slot || !tree->sync_nodes || !slots)
        return mni_oom(err, "blend tree");
    uint32_t max_depth = 0;
    for (uint32_t i = 0; i < n; i++) {
        mn_status st = measure(tree, i, state, 0, err);
        if (st != MN_OK)
            return st;
        if (tree->nodes[i].depth > max_depth)
            max_depth = tree->nodes[i].depth;
        tree->sync_slot[i] = MN_NONE;
        if (tree->nodes[i].sync) {
            if ((st = check_sync(tree, i, err)) != MN_OK)
                return st;
            tree->sync_slot[i] = tree->sync_count;
            tree->sync_nodes[tree->sync_count++] = i;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t count = 0;
        gather_syncs(tree, i, mark, i + 1, slots, &count);
        bt_node *nd = &tree->nodes[i];
        nd->sync_count = count;
        nd->syncs = mni_arena_alloc(&tree->arena, (size_t)count * sizeof(uint32_t), 4);
        if (!nd->syncs)
            return mni_oom(err, "blend tree");
        memcpy(nd->syncs, slots, (size_t)count * sizeof(uint32_t));
    }
    tree->scratch_count = max_depth;
    return MN_OK;
}

static mn_status claim_pose(mn_blend_tree *tree, mn_pose *pose, mn_error *err)
{
    size_t size = mn_pose_storage_size(tree->joint_count);
    if (size == SIZE_MAX)
        return mni_fail(err, MN_OVERFLOW, "blend tree: %u joints overflow a pose",
                        tree->joint_count);
    void *storage = mni_arena_alloc(&tree->arena, size ? size : 16, 16);
    if (!storage)
        return mni_oom(err, "blend tree poses");
    mn_pose_init(pose, tree->joint_count, storage);
    return MN_OK;
}

static mn_status check_desc(const mn_blend_tree_desc *desc, mn_error *err)
{
    if (!desc || !desc->nodes || desc->node_count == 0)
        return mni_fail(err, MN_INVALID_ARGUMENT, "blend tree: no nodes");
    if (desc->root >= desc->node_count)
        return mni_error_set(err, MN_INDEX_RANGE, "root", -1, "blend tree: root %u of %u nodes",
                             desc->root, desc->node_count);
    if (desc->joint_count == 0 && !desc->bind)
        return mni_error_set(err, MN_INVALID_ARGUMENT, "joint_count", -1,
                             "blend tree: neither joint_count nor a bind pose");
    if (desc->bind && desc->joint_count != 0 && desc->bind->joint_count != desc->joint_count)
        return mni_error_set(err, MN_COUNT_MISMATCH, "bind", -1,
                             "blend tree: the bind pose has %u joints, joint_count is %u",
                             desc->bind->joint_count, desc->joint_count);
    if (desc->bind && desc->bind->joint_count == 0)
        return mni_error_set(err, MN_INVALID_ARGUMENT, "bind", -1, "blend tree: the bind pose is empty");
    if (desc->node_count > UINT32_MAX / 3)
        return mni_fail(err, MN_OVERFLOW, "blend tree: too many nodes");
    return MN_OK;
}

/*
 * The tree's space: the bind pose's, and every bound clip's, which must be
 * one (unbound clips fit any).  Checked here once, so evaluation checks
 * only the caller's pose.
 */
static mn_status gather_space(mn_blend_tree *tree, const mn_blend_tree_desc *desc, mn_error *err)
{
    mn_pose probe = {.joint_count = tree->joint_count};
    if (desc->bind)
        probe.space = desc->bind->space;
    for (uint32_t i = 0; i < tree->node_count; i++) {
        const bt_node *nd = &tree->nodes[i];
        if (nd->kind != MN_BLEND_NODE_CLIP)
            continue;
        mn_space space = mn_clip_space(nd->clip);
        char what[96];
        snprintf(what, sizeof what, "nodes[%u].clip \"%.40s\"", i, mn_clip_name(nd->clip));
        mn_status st = mni_space_check(space, what, &probe, err);
        if (st != MN_OK) {
            if (err)
                snprintf(err->path, sizeof err->path, "nodes[%u].clip", i);
            return st;
        }
        if (probe.space.kind == MN_SPACE_UNBOUND)
            probe.space = space;
    }
    tree->clip_space = probe.space;
    return MN_OK;
}

/*
 * The channels a clip leaves to the bind pose for some joint: those without
 * a track with keys on every joint (mn_clip_sample writes exactly the
 * translation, rotation and scale tracks with keys, of joints in the pose).
 * `seen` is scratch of 3 × joint_count bytes.
 */
static uint8_t leaf_from_bind(const mn_clip *clip, uint32_t joint_count, uint8_t *seen)
{
    static const mn_anim_path paths[3] = {MN_PATH_TRANSLATION, MN_PATH_ROTATION, MN_PATH_SCALE};
    uint32_t covered[3] = {0, 0, 0};
    memset(seen, 0, 3 * (size_t)joint_count);
    for (uint32_t i = 0; i < mn_clip_track_count(clip); i++) {
        const mn_track *tr = mn_clip_track(clip, i);
        if (!tr || tr->key_count == 0 || tr->target >= joint_count)
            continue;
        for (uint32_t c = 0; c < 3; c++)
            if (tr->path == paths[c] && !seen[c * (size_t)joint_count + tr->target]) {
                seen[c * (size_t)joint_count + tr->target] = 1;
                covered[c]++;
            }
    }
    uint8_t from_bind = 0;
    for (uint32_t c = 0; c < 3; c++)
        if (covered[c] < joint_count)
            from_bind |= (uint8_t)(1u << c);
    return from_bind;
}

static mn_status find_leaf_channels(mn_blend_tree *tree, mn_error *err)
{
    uint8_t *seen = mni_arena_alloc(&tree->arena, 3 * (size_t)tree->joint_count, 1);
    if (!seen)
        return mni_oom(err, "blend tree");
    for (uint32_t i = 0; i < tree->node_count; i++)
        if (tree->nodes[i].kind == MN_BLEND_NODE_CLIP)
            tree->nodes[i].from_bind = leaf_from_bind(tree->nodes[i].clip, tree->joint_count, seen);
    return MN_OK;
}

static mn_status build(mn_blend_tree *tree, const mn_blend_tree_desc *desc, mn_error *err)
{
    uint32_t n = desc->node_count;
    tree->node_count = n;
    tree->root = desc->root;
    tree->joint_count = desc->joint_count ? desc->joint_count : desc->bind->joint_count;
    tree->nodes = mni_arena_calloc(&tree->arena, n, sizeof(bt_node), 8);
    tree->names = mni_arena_calloc(&tree->arena, 3 * (size_t)n, sizeof(bt_name), 8);
    if (!tree->nodes || !tree->names)
        return mni_oom(err, "blend tree");
    mn_status st = MN_OK;
    for (uint32_t i = 0; i < n && st == MN_OK; i++)
        st = build_node(tree, i, &desc->nodes[i], err);
    if (st == MN_OK)
        st = gather_space(tree, desc, err);
    if (st == MN_OK)
        st = derive(tree, err);
    if (st == MN_OK)
        st = find_leaf_channels(tree, err);
    if (st == MN_OK)
        st = claim_pose(tree, &tree->bind, err);
    if (st != MN_OK)
        return st;
    if (desc->bind)
        mn_pose_copy(&tree->bind, desc->bind);
    tree->scratch = mni_arena_calloc(&tree->arena, tree->scratch_count ? tree->scratch_count : 1,
                                     sizeof(mn_pose), 8);
    if (!tree->scratch)
        return mni_oom(err, "blend tree");
    for (uint32_t i = 0; i < tree->scratch_count && st == MN_OK; i++)
        st = claim_pose(tree, &tree->scratch[i], err);
    bool two_d = false;
    for (uint32_t i = 0; i < n; i++)
        two_d = two_d || tree->nodes[i].kind == MN_BLEND_NODE_2D;
    if (st != MN_OK || !two_d || tree->scratch_count == 0)
        return st;
    /* A 2D node's triangle: the third operand's scratch, so its two blends can be one pass. */
    tree->scratch3 = mni_arena_calloc(&tree->arena, tree->scratch_count, sizeof(mn_pose), 8);
    if (!tree->scratch3)
        return mni_oom(err, "blend tree");
    for (uint32_t i = 0; i < tree->scratch_count && st == MN_OK; i++)
        st = claim_pose(tree, &tree->scratch3[i], err);
    return st;
}

mn_status mn_blend_tree_create(const mn_blend_tree_desc *desc, mn_blend_tree **out, mn_error *err)
{
    if (!out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "blend tree: out is NULL");
    *out = NULL;
    mn_status st = check_desc(desc, err);
    if (st != MN_OK)
        return st;
    mn_blend_tree *tree = mni_alloc(&desc->allocator, sizeof *tree);
    if (!tree)
        return mni_oom(err, "blend tree");
    memset(tree, 0, sizeof *tree);
    mni_arena_init(&tree->arena, &desc->allocator);
    st = build(tree, desc, err);
    if (st != MN_OK) {
        mni_arena_release_holder(&tree->arena, tree, sizeof *tree);
        return st;
    }
    mni_error_clear(err);
    *out = tree;
    return MN_OK;
}

void mn_blend_tree_free(mn_blend_tree *tree)
{
    if (tree)
        mni_arena_release_holder(&tree->arena, tree, sizeof *tree);
}
