/*
 * The state machine (the rules: marionette/state_machine.h): states
 * are nodes of one blend tree; update advances, reports events, picks at
 * most one transition and enters its state; evaluate blends a fade.
 *
 * A machine holds two slots, each one playing state: `cur` (the current
 * state, a fade's destination) and `src` (a live fade source).  A slot
 * carries what playing a state needs between updates — local time, the φ of
 * every sync set, and each leaf's time at the previous update, which is
 * where the next update's event spans start.  A fade from a frozen pose
 * (an interruption) uses the `frozen` pose instead of a slot.  Slots and
 * poses are claimed at creation; nothing per update allocates.
 */
#include <marionette/blend.h>
#include <marionette/state_machine.h>

#include "anim/events_internal.h"
#include "anim/space_internal.h"
#include "core/core.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Where a condition reads its value: a tree name, or a declared parameter (triggers included). */
typedef enum sm_source { SM_TREE_NAME, SM_PARAM } sm_source;

typedef struct sm_condition {
    sm_source source;
    uint32_t index;              /* into the tree's names or the machine's params */
    mn_sm_condition_op op;
    float value;
} sm_condition;

typedef struct sm_transition {
    uint32_t from, to;
    float duration;
    bool has_exit_time;
    float exit_time;
    uint32_t first_condition, condition_count;
} sm_transition;

/* One playing state. */
typedef struct sm_slot {
    uint32_t state;              /* MN_NONE when empty */
    double time;                 /* local time, seconds */
    double *phases;              /* sync_count φ values */
    double *prev;                /* each leaf's time at the previous update */
    uint32_t leaf_count;
} sm_slot;

/* One leaf's event walk during an update. */
typedef struct sm_walk {
    mn_event_span span;
    uint32_t state, leaf;
} sm_walk;

struct mn_state_machine {
    mn_arena arena;
    mn_blend_tree *tree;
    uint32_t joint_count, state_count, transition_count, sync_count, max_leaves;

    char **state_names;
    uint32_t *state_nodes;
    sm_transition *transitions;
    uint32_t *candidates;        /* transition indices grouped by from-state, by (priority, declaration) */
    uint32_t *candidates_first;  /* state_count + 1 offsets into candidates */
    sm_condition *conditions;

    /* Declared parameters that no tree node uses (desc.parameters less those
       that only give a tree name its starting value).  A trigger's value is
       1 while set, 0 while not. */
    char **param_names;
    mn_sm_parameter_kind *param_kinds;
    float *param_values;
    uint32_t param_count;

    const mn_clip_events **node_events; /* node_count, NULL where none */
    bool *state_reports;         /* per state: does any of its leaves carry events? */

    sm_slot slots[2];
    sm_slot *cur, *src;          /* src NULL: no live source */
    bool fading, frozen_source;
    double elapsed;
    float duration;

    mn_pose pose_a, pose_b, frozen;
    mn_blend_leaf *leaves;       /* max_leaves scratch for leaf queries */
    sm_walk *walks;              /* 2 × max_leaves */
};

/* ---- small helpers --------------------------------------------------------------- */

static float clamp01(double x)
{
    return x > 0.0 ? (x < 1.0 ? (float)x : 1.0f) : 0.0f;
}

static uint32_t find_name(char *const *names, uint32_t count, const char *name)
{
    for (uint32_t i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return MN_NONE;
}

/* "; did you mean ..." for an unknown `name`, over every declared name: the tree's, then the machine's. */
static const char *suggestion(const mn_state_machine *sm, const char *name, char *buf, size_t size)
{
    mni_suggest s;
    mni_suggest_init(&s, name);
    uint32_t tree_names = mn_blend_tree_name_count(sm->tree);
    for (uint32_t i = 0; i < tree_names; i++)
        mni_suggest_offer(&s, mn_blend_tree_name(sm->tree, i));
    for (uint32_t i = 0; i < sm->param_count; i++)
        mni_suggest_offer(&s, sm->param_names[i]);
    return mni_suggest_text(&s, buf, size);
}

static const char *kind_name(mn_sm_parameter_kind kind)
{
    return kind == MN_SM_PARAM_BOOL ? "bool" : kind == MN_SM_PARAM_TRIGGER ? "trigger" : "float";
}

static bool zero_or_one(float v)
{
    return v == 0.0f || v == 1.0f;
}

/*
 * A state's time as the tree takes it.  Past the float range the tree
 * refuses the time (MN_NOT_FINITE) rather than the conversion being
 * undefined behaviour, which a cast of an out-of-range double would be.
 */
static float tree_time(double t)
{
    return t <= (double)FLT_MAX ? (float)t : INFINITY;
}

static float fade_weight(const mn_state_machine *sm)
{
    if (!sm->fading)
        return 1.0f;
    return clamp01(sm->elapsed / sm->duration);
}

/* Leaf times of the slot's state at its current time and phases, into sm->leaves. */
static uint32_t slot_leaves(mn_state_machine *sm, const sm_slot *slot)
{
    uint32_t n = mn_blend_tree_leaves(sm->tree, sm->state_nodes[slot->state], tree_time(slot->time),
                                      slot->phases, sm->leaves, sm->max_leaves);
    return n < sm->max_leaves ? n : sm->max_leaves;
}

/*
 * Start `state` in slot: time 0, phases 0, leaf times as of entry (so the
 * first span is empty).  A state whose leaves carry no events keeps no leaf
 * times: nothing would ever read them.
 */
static void slot_enter(mn_state_machine *sm, sm_slot *slot, uint32_t state)
{
    slot->state = state;
    slot->time = 0.0;
    for (uint32_t i = 0; i < sm->sync_count; i++)
        slot->phases[i] = 0.0;
    slot->leaf_count = sm->state_reports[state] ? slot_leaves(sm, slot) : 0;
    for (uint32_t i = 0; i < slot->leaf_count; i++)
        slot->prev[i] = sm->leaves[i].time;
}

static void slot_advance(mn_state_machine *sm, sm_slot *slot, float dt)
{
    slot->time += dt;
    mn_blend_tree_advance_phases(sm->tree, sm->state_nodes[slot->state], dt, slot->phases);
}

/* ---- creation ---------------------------------------------------------------------- */

/* A copy of a non-empty name, or an error naming `path`. */
static mn_status copy_name(mn_state_machine *sm, const char *name, const char *path, char **out,
                           mn_error *err)
{
    if (!name || !name[0])
        return mni_error_set(err, MN_INVALID_ARGUMENT, path, -1, "%s: the name is NULL or empty", path);
    *out = mni_arena_strndup(&sm->arena, name, strlen(name));
    if (!*out)
        return mni_error_set(err, MN_OUT_OF_MEMORY, path, -1, NULL);
    return MN_OK;
}

static mn_status check_states(mn_state_machine *sm, const mn_state_machine_desc *desc, mn_error *err)
{
    for (uint32_t s = 0; s < desc->state_count; s++) {
        char path[48];
        snprintf(path, sizeof path, "states[%u]", s);
        mn_status st = copy_name(sm, desc->states[s].name, path, &sm->state_names[s], err);
        if (st != MN_OK)
            return st;
        if (find_name(sm->state_names, s, sm->state_names[s]) != MN_NONE)
            return mni_error_set(err, MN_INVALID_ARGUMENT, path, -1, "%s: state name \"%s\" is used twice",
                                 path, sm->state_names[s]);
        if (desc->states[s].node >= desc->node_count)
            return mni_error_set(err, MN_INDEX_RANGE, path, -1, "%s (\"%s\"): node %u is out of range (%u nodes)",
                                 path, sm->state_names[s], desc->states[s].node, desc->node_count);
        sm->state_nodes[s] = desc->states[s].node;
    }
    return MN_OK;
}

static mn_status check_transition(const mn_state_machine_desc *desc, uint32_t t, mn_error *err)
{
    const mn_sm_transition *tr = &desc->transitions[t];
    char path[48];
    snprintf(path, sizeof path, "transitions[%u]", t);
    if (tr->from >= desc->state_count || tr->to >= desc->state_count)
        return mni_error_set(err, MN_INDEX_RANGE, path, -1, "%s: from %u / to %u out of range (%u states)",
                             path, tr->from, tr->to, desc->state_count);
    if (!isfinite(tr->duration) || (tr->has_exit_time && !isfinite(tr->exit_time)))
        return mni_error_set(err, MN_NOT_FINITE, path, -1, "%s: duration or exit time is not finite", path);
    if (tr->duration < 0.0f || (tr->has_exit_time && tr->exit_time < 0.0f))
        return mni_error_set(err, MN_INVALID_VALUE, path, -1, "%s: duration or exit time is negative", path);
    if (!tr->conditions && tr->condition_count > 0)
        return mni_error_set(err, MN_INVALID_ARGUMENT, path, -1, "%s: conditions is NULL with count %u",
                             path, tr->condition_count);
    for (uint32_t c = 0; c < tr->condition_count; c++) {
        const mn_sm_condition *cond = &tr->conditions[c];
        char cpath[80];
        snprintf(cpath, sizeof cpath, "%s.conditions[%u]", path, c);
        if (!cond->name || !cond->name[0])
            return mni_error_set(err, MN_INVALID_ARGUMENT, cpath, -1, "%s: the name is NULL or empty", cpath);
        if (cond->op <= MN_SM_CONDITION_INVALID || cond->op > MN_SM_TRIGGER)
            return mni_error_set(err, MN_INVALID_ARGUMENT, cpath, -1, "%s (\"%s\"): invalid op %d", cpath,
                                 cond->name, (int)cond->op);
        if (cond->op != MN_SM_TRIGGER && !isfinite(cond->value))
            return mni_error_set(err, MN_NOT_FINITE, cpath, -1, "%s (\"%s\"): the constant is not finite",
                                 cpath, cond->name);
    }
    return MN_OK;
}

/*
 * Check the declared parameters.  One that names a tree parameter or clock
 * only gives it a starting value; the others become the machine's own.
 */
static mn_status declare_parameters(mn_state_machine *sm, const mn_state_machine_desc *desc, mn_error *err)
{
    if (!desc->parameters && desc->parameter_count > 0)
        return mni_error_set(err, MN_INVALID_ARGUMENT, "parameters", -1, "parameters is NULL with count %u",
                             desc->parameter_count);
    for (uint32_t p = 0; p < desc->parameter_count; p++) {
        const mn_sm_parameter *in = &desc->parameters[p];
        char path[48];
        snprintf(path, sizeof path, "parameters[%u]", p);
        if (!in->name || !in->name[0])
            return mni_error_set(err, MN_INVALID_ARGUMENT, path, -1, "%s: the name is NULL or empty", path);
        if (in->kind <= MN_SM_PARAM_INVALID || in->kind > MN_SM_PARAM_TRIGGER)
            return mni_error_set(err, MN_INVALID_ARGUMENT, path, -1, "%s (\"%s\"): invalid kind %d", path,
                                 in->name, (int)in->kind);
        for (uint32_t q = 0; q < p; q++)
            if (strcmp(desc->parameters[q].name, in->name) == 0)
                return mni_error_set(err, MN_INVALID_VALUE, path, -1,
                                     "%s: \"%s\" is declared twice (parameters[%u] too)", path, in->name, q);
        if (!isfinite(in->value))
            return mni_error_set(err, MN_NOT_FINITE, path, -1, "%s (\"%s\"): the value is not finite", path,
                                 in->name);
        if (in->kind != MN_SM_PARAM_FLOAT && !zero_or_one(in->value))
            return mni_error_set(err, MN_INVALID_VALUE, path, -1, "%s (\"%s\"): a %s starts at 0 or 1, not %g",
                                 path, in->name, kind_name(in->kind), (double)in->value);
        uint32_t tree_index = mn_blend_tree_find(sm->tree, in->name);
        if (tree_index != MN_NONE) {
            if (in->kind != MN_SM_PARAM_FLOAT)
                return mni_error_set(err, MN_INVALID_VALUE, path, -1,
                                     "%s: \"%s\" is declared a %s but is a blend-tree %s", path, in->name,
                                     kind_name(in->kind),
                                     mn_blend_tree_name_kind(sm->tree, in->name) == MN_BLEND_NAME_CLOCK
                                         ? "clock"
                                         : "parameter");
            mn_status st = mn_blend_tree_set_index(sm->tree, tree_index, in->value, err);
            if (st != MN_OK)
                return st;
            continue;
        }
        uint32_t i = sm->param_count;
        mn_status st = copy_name(sm, in->name, path, &sm->param_names[i], err);
        if (st != MN_OK)
            return st;
        sm->param_kinds[i] = in->kind;
        sm->param_values[i] = in->value;
        sm->param_count++;
    }
    return MN_OK;
}

/* Where condition `cond` (at `path`) reads its value, or why it cannot. */
static mn_status resolve_condition(const mn_state_machine *sm, const mn_sm_condition *cond, const char *path,
                                   sm_condition *out, mn_error *err)
{
    out->op = cond->op;
    out->value = cond->value;
    bool trigger = cond->op == MN_SM_TRIGGER;
    if ((out->index = mn_blend_tree_find(sm->tree, cond->name)) != MN_NONE) {
        out->source = SM_TREE_NAME;
        if (trigger)
            return mni_error_set(err, MN_INVALID_VALUE, path, -1,
                                 "%s: \"%s\" is a blend-tree %s, not a trigger", path, cond->name,
                                 mn_blend_tree_name_kind(sm->tree, cond->name) == MN_BLEND_NAME_CLOCK
                                     ? "clock"
                                     : "parameter");
        return MN_OK;
    }
    out->source = SM_PARAM;
    out->index = find_name(sm->param_names, sm->param_count, cond->name);
    if (out->index == MN_NONE) {
        char hint[MNI_SUGGEST_MAX + 24];
        return mni_error_set(err, MN_INVALID_VALUE, path, -1,
                             "%s: \"%s\" is not declared (no parameter, trigger or blend-tree name)%s", path,
                             cond->name, suggestion(sm, cond->name, hint, sizeof hint));
    }
    mn_sm_parameter_kind kind = sm->param_kinds[out->index];
    if (trigger && kind != MN_SM_PARAM_TRIGGER)
        return mni_error_set(err, MN_INVALID_VALUE, path, -1, "%s: \"%s\" is a %s parameter, not a trigger",
                             path, cond->name, kind_name(kind));
    if (!trigger && kind == MN_SM_PARAM_TRIGGER)
        return mni_error_set(err, MN_INVALID_VALUE, path, -1,
                             "%s: \"%s\" is a trigger: name it with MN_SM_TRIGGER, not a comparison", path,
                             cond->name);
    if (kind == MN_SM_PARAM_BOOL &&
        (!(cond->op == MN_SM_EQUAL || cond->op == MN_SM_NOT_EQUAL) || !zero_or_one(cond->value)))
        return mni_error_set(err, MN_INVALID_VALUE, path, -1,
                             "%s: \"%s\" is a bool: compare it with == or != against 0 or 1", path, cond->name);
    return MN_OK;
}

/* Resolve every condition to where its value lives, and order each state's candidates. */
static mn_status resolve_transitions(mn_state_machine *sm, const mn_state_machine_desc *desc, mn_error *err)
{
    uint32_t next = 0;
    for (uint32_t t = 0; t < desc->transition_count; t++) {
        const mn_sm_transition *in = &desc->transitions[t];
        sm_transition *tr = &sm->transitions[t];
        *tr = (sm_transition){in->from, in->to, in->duration, in->has_exit_time, in->exit_time, next,
                              in->condition_count};
        for (uint32_t c = 0; c < in->condition_count; c++) {
            char path[80];
            snprintf(path, sizeof path, "transitions[%u].conditions[%u]", t, c);
            mn_status st = resolve_condition(sm, &in->conditions[c], path, &sm->conditions[next++], err);
            if (st != MN_OK)
                return st;
        }
    }
    /* Candidates: grouped by from-state, each group by ascending priority, ties in declaration order. */
    uint32_t n = 0;
    for (uint32_t s = 0; s < sm->state_count; s++) {
        sm->candidates_first[s] = n;
        for (uint32_t t = 0; t < desc->transition_count; t++) {
            if (desc->transitions[t].from != s)
                continue;
            uint32_t j = n++;
            while (j > sm->candidates_first[s] &&
                   desc->transitions[sm->candidates[j - 1]].priority > desc->transitions[t].priority) {
                sm->candidates[j] = sm->candidates[j - 1];
                j--;
            }
            sm->candidates[j] = t;
        }
    }
    sm->candidates_first[sm->state_count] = n;
    return MN_OK;
}

static mn_status check_node_events(mn_state_machine *sm, const mn_state_machine_desc *desc, mn_error *err)
{
    for (uint32_t i = 0; i < desc->node_count; i++) {
        const mn_clip_events *ev = desc->node_events ? desc->node_events[i] : NULL;
        if (ev && desc->nodes[i].kind != MN_BLEND_NODE_CLIP) {
            char path[48];
            snprintf(path, sizeof path, "node_events[%u]", i);
            return mni_error_set(err, MN_INVALID_ARGUMENT, path, -1,
                                 "%s: events attached to node %u, which is not a clip leaf", path, i);
        }
        sm->node_events[i] = ev;
    }
    return MN_OK;
}

/* Claim a count × size array from the arena (never NULL for count 0). */
static void *claim(mn_state_machine *sm, size_t count, size_t size, size_t align, bool *ok)
{
    void *p = mni_arena_calloc(&sm->arena, count ? count : 1, size, align);
    if (!p)
        *ok = false;
    return p;
}

static bool claim_pose(mn_state_machine *sm, mn_pose *pose)
{
    size_t bytes = mn_pose_storage_size(sm->joint_count);
    void *storage = bytes == SIZE_MAX ? NULL : mni_arena_alloc(&sm->arena, bytes ? bytes : 16, 16);
    if (!storage)
        return false;
    mn_pose_init(pose, sm->joint_count, storage);
    return true;
}

static mn_status claim_runtime(mn_state_machine *sm, mn_error *err)
{
    bool ok = true;
    sm->leaves = claim(sm, sm->max_leaves, sizeof *sm->leaves, 8, &ok);
    sm->walks = claim(sm, 2 * (size_t)sm->max_leaves, sizeof *sm->walks, 8, &ok);
    for (int i = 0; i < 2; i++) {
        sm->slots[i].phases = claim(sm, sm->sync_count, sizeof(double), 8, &ok);
        sm->slots[i].prev = claim(sm, sm->max_leaves, sizeof(double), 8, &ok);
        sm->slots[i].state = MN_NONE;
    }
    ok = ok && claim_pose(sm, &sm->pose_a) && claim_pose(sm, &sm->pose_b) && claim_pose(sm, &sm->frozen);
    if (!ok)
        return mni_oom(err, "the state machine's scratch");
    return MN_OK;
}

/* Which states have a leaf with an event track (the others skip the leaf walk each update). */
static void mark_reporting_states(mn_state_machine *sm)
{
    for (uint32_t s = 0; s < sm->state_count; s++) {
        uint32_t n = mn_blend_tree_leaves(sm->tree, sm->state_nodes[s], 0.0f, NULL, sm->leaves, sm->max_leaves);
        for (uint32_t i = 0; i < n && i < sm->max_leaves; i++)
            if (sm->node_events[sm->leaves[i].node])
                sm->state_reports[s] = true;
    }
}

static mn_status build(mn_state_machine *sm, const mn_state_machine_desc *desc, mn_error *err)
{
    mn_blend_tree_desc tree_desc = {
        .nodes = desc->nodes, .node_count = desc->node_count, .root = desc->states[0].node,
        .joint_count = desc->joint_count, .bind = desc->bind, .allocator = desc->allocator,
    };
    if (desc->states[0].node >= desc->node_count || !desc->nodes)
        tree_desc.root = 0; /* the state checks below name the bad node; the tree checks the rest */
    mn_status st = mn_blend_tree_create(&tree_desc, &sm->tree, err);
    if (st != MN_OK)
        return st;
    sm->joint_count = mn_blend_tree_joint_count(sm->tree);
    sm->state_count = desc->state_count;
    sm->transition_count = desc->transition_count;

    size_t conditions = 0;
    for (uint32_t t = 0; t < desc->transition_count; t++) {
        if ((st = check_transition(desc, t, err)) != MN_OK)
            return st;
        conditions += desc->transitions[t].condition_count;
    }
    bool ok = true;
    sm->state_names = claim(sm, desc->state_count, sizeof(char *), 8, &ok);
    sm->state_nodes = claim(sm, desc->state_count, sizeof(uint32_t), 4, &ok);
    sm->transitions = claim(sm, desc->transition_count, sizeof(sm_transition), 8, &ok);
    sm->candidates = claim(sm, desc->transition_count, sizeof(uint32_t), 4, &ok);
    sm->candidates_first = claim(sm, (size_t)desc->state_count + 1, sizeof(uint32_t), 4, &ok);
    sm->conditions = claim(sm, conditions, sizeof(sm_condition), 8, &ok);
    sm->param_names = claim(sm, desc->parameter_count, sizeof(char *), 8, &ok);
    sm->param_kinds = claim(sm, desc->parameter_count, sizeof(mn_sm_parameter_kind), 4, &ok);
    sm->param_values = claim(sm, desc->parameter_count, sizeof(float), 4, &ok);
    sm->node_events = claim(sm, desc->node_count, sizeof(mn_clip_events *), 8, &ok);
    sm->state_reports = claim(sm, desc->state_count, sizeof(bool), 1, &ok);
    if (!ok)
        return mni_oom(err, "the state machine");
    if ((st = check_states(sm, desc, err)) != MN_OK || (st = declare_parameters(sm, desc, err)) != MN_OK ||
        (st = resolve_transitions(sm, desc, err)) != MN_OK || (st = check_node_events(sm, desc, err)) != MN_OK)
        return st;

    sm->sync_count = mn_blend_tree_sync_count(sm->tree);
    for (uint32_t s = 0; s < sm->state_count; s++) {
        uint32_t n = mn_blend_tree_leaves(sm->tree, sm->state_nodes[s], 0.0f, NULL, NULL, 0);
        if (n > sm->max_leaves)
            sm->max_leaves = n;
    }
    if ((st = claim_runtime(sm, err)) != MN_OK)
        return st;
    mark_reporting_states(sm);
    sm->cur = &sm->slots[0];
    sm->src = NULL;
    slot_enter(sm, sm->cur, 0);
    return MN_OK;
}

mn_status mn_state_machine_create(const mn_state_machine_desc *desc, mn_state_machine **out, mn_error *err)
{
    if (!out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!desc)
        return mni_fail(err, MN_INVALID_ARGUMENT, "desc is NULL");
    if (!desc->states || desc->state_count == 0)
        return mni_error_set(err, MN_INVALID_ARGUMENT, "states", -1, "a state machine needs at least one state");
    if (!desc->transitions && desc->transition_count > 0)
        return mni_error_set(err, MN_INVALID_ARGUMENT, "transitions", -1, "transitions is NULL with count %u",
                             desc->transition_count);
    mn_state_machine *sm = mni_alloc(&desc->allocator, sizeof *sm);
    if (!sm)
        return mni_oom(err, "a state machine");
    memset(sm, 0, sizeof *sm);
    mni_arena_init(&sm->arena, &desc->allocator);
    mn_status st = build(sm, desc, err);
    if (st != MN_OK) {
        mn_state_machine_free(sm);
        return st;
    }
    *out = sm;
    return MN_OK;
}

void mn_state_machine_free(mn_state_machine *sm)
{
    if (!sm)
        return;
    mn_blend_tree_free(sm->tree);
    mni_arena_release_holder(&sm->arena, sm, sizeof *sm);
}

/* ---- names ------------------------------------------------------------------------ */

/* The refusal of a name nothing declares, with the closest declared name when one is near. */
static mn_status unknown_name(const mn_state_machine *sm, const char *name, mn_error *err)
{
    char hint[MNI_SUGGEST_MAX + 24];
    return mni_error_set(err, MN_INVALID_VALUE, name, -1,
                         "\"%s\" is not declared (no parameter, trigger or blend-tree name)%s", name,
                         suggestion(sm, name, hint, sizeof hint));
}

mn_status mn_state_machine_set(mn_state_machine *sm, const char *name, float value, mn_error *err)
{
    if (!sm || !name)
        return mni_fail(err, MN_INVALID_ARGUMENT, "NULL state machine or name");
    uint32_t i = mn_blend_tree_find(sm->tree, name);
    uint32_t p = i == MN_NONE ? find_name(sm->param_names, sm->param_count, name) : MN_NONE;
    if (i == MN_NONE && p == MN_NONE)
        return unknown_name(sm, name, err);
    if (p != MN_NONE && sm->param_kinds[p] == MN_SM_PARAM_TRIGGER)
        return mni_error_set(err, MN_INVALID_VALUE, name, -1,
                             "\"%s\" is a trigger: set it with mn_state_machine_set_trigger", name);
    if (!isfinite(value))
        return mni_error_set(err, MN_NOT_FINITE, name, -1, "\"%s\": the value is not finite", name);
    if (i != MN_NONE)
        return mn_blend_tree_set_index(sm->tree, i, value, err);
    if (sm->param_kinds[p] == MN_SM_PARAM_BOOL && !zero_or_one(value))
        return mni_error_set(err, MN_INVALID_VALUE, name, -1, "\"%s\" is a bool: 0 or 1, not %g", name,
                             (double)value);
    sm->param_values[p] = value;
    return MN_OK;
}

mn_status mn_state_machine_set_trigger(mn_state_machine *sm, const char *name, mn_error *err)
{
    if (!sm || !name)
        return mni_fail(err, MN_INVALID_ARGUMENT, "NULL state machine or name");
    uint32_t i = find_name(sm->param_names, sm->param_count, name);
    if (i != MN_NONE && sm->param_kinds[i] == MN_SM_PARAM_TRIGGER) {
        sm->param_values[i] = 1.0f;
        return MN_OK;
    }
    if (i != MN_NONE)
        return mni_error_set(err, MN_INVALID_VALUE, name, -1, "\"%s\" is a %s parameter, not a trigger", name,
                             kind_name(sm->param_kinds[i]));
    if (mn_blend_tree_find(sm->tree, name) != MN_NONE)
        return mni_error_set(err, MN_INVALID_VALUE, name, -1, "\"%s\" is a blend-tree name, not a trigger",
                             name);
    return unknown_name(sm, name, err);
}

mn_status mn_state_machine_get(const mn_state_machine *sm, const char *name, float *value, mn_error *err)
{
    if (!sm || !name || !value)
        return mni_fail(err, MN_INVALID_ARGUMENT, "NULL state machine, name or value");
    uint32_t i;
    if ((i = mn_blend_tree_find(sm->tree, name)) != MN_NONE)
        *value = mn_blend_tree_value(sm->tree, i);
    else if ((i = find_name(sm->param_names, sm->param_count, name)) != MN_NONE)
        *value = sm->param_values[i];
    else
        return unknown_name(sm, name, err);
    return MN_OK;
}

/* ---- the output ---------------------------------------------------------------------- */

/* What the machine shows now, into out (never one of the machine's own poses except `frozen`). */
static mn_status output(mn_state_machine *sm, mn_pose *out, mn_error *err)
{
    const sm_slot *cur = sm->cur;
    if (!sm->fading)
        return mn_blend_tree_evaluate_node(sm->tree, sm->state_nodes[cur->state], tree_time(cur->time),
                                           cur->phases, out, err);
    mn_status st = mn_blend_tree_evaluate_node(sm->tree, sm->state_nodes[cur->state], tree_time(cur->time),
                                               cur->phases, &sm->pose_b, err);
    if (st != MN_OK)
        return st;
    const mn_pose *from = &sm->frozen;
    if (!sm->frozen_source) {
        const sm_slot *src = sm->src;
        st = mn_blend_tree_evaluate_node(sm->tree, sm->state_nodes[src->state], tree_time(src->time),
                                         src->phases, &sm->pose_a, err);
        if (st != MN_OK)
            return st;
        from = &sm->pose_a;
    }
    return mn_pose_blend(from, &sm->pose_b, fade_weight(sm), out, err);
}

mn_status mn_state_machine_evaluate(mn_state_machine *sm, mn_pose *out, mn_error *err)
{
    if (!sm || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "NULL state machine or pose");
    if (out->joint_count != sm->joint_count)
        return mni_fail(err, MN_COUNT_MISMATCH, "the pose has %u joints, the machine %u",
                        out->joint_count, sm->joint_count);
    /* A fade writes out through a blend, not the tree: check the space here. */
    mn_status st = mni_space_check(mn_blend_tree_space(sm->tree), "the state machine", out, err);
    return st != MN_OK ? st : output(sm, out, err);
}

/* ---- events ------------------------------------------------------------------------ */

/* Add the walks of a slot's leaves that carry events, from their previous time to now. */
static uint32_t add_walks(mn_state_machine *sm, sm_slot *slot, uint32_t n, uint32_t *total)
{
    if (!sm->state_reports[slot->state])
        return n;
    uint32_t count = slot_leaves(sm, slot);
    for (uint32_t i = 0; i < count && i < slot->leaf_count; i++) {
        const mn_blend_leaf *leaf = &sm->leaves[i];
        const mn_clip_events *ev = sm->node_events[leaf->node];
        /* Forward spans only: a clock set backwards crosses nothing. */
        if (!ev || !(leaf->time > slot->prev[i]))
            continue;
        sm_walk *w = &sm->walks[n];
        if (!mni_event_span_init(&w->span, ev, mn_clip_duration(leaf->clip), leaf->loop, slot->prev[i],
                                 leaf->time))
            continue;
        uint32_t t = mni_event_span_total(&w->span);
        if (t == 0)
            continue;
        *total = *total > UINT32_MAX - t ? UINT32_MAX : *total + t;
        w->state = slot->state;
        w->leaf = i;
        n++;
    }
    for (uint32_t i = 0; i < count; i++)
        slot->prev[i] = sm->leaves[i].time;
    return n;
}

/* Merge the walks by (fraction of span, walk order, event order) into out. */
static void merge_walks(mn_state_machine *sm, uint32_t walks, mn_event *out, uint32_t capacity,
                        uint32_t total)
{
    for (uint32_t written = 0; out && written < capacity && written < total; written++) {
        uint32_t best = MN_NONE, best_pos = 0;
        double best_f = 0.0, best_at = 0.0;
        for (uint32_t w = 0; w < walks; w++) {
            double at;
            uint32_t pos;
            mn_event_span *span = &sm->walks[w].span;
            if (!mni_event_span_peek(span, &at, &pos))
                continue;
            double f = (at - span->lo) / (span->hi - span->lo);
            if (best == MN_NONE || f < best_f) {
                best = w;
                best_f = f;
                best_at = at;
                best_pos = pos;
            }
        }
        if (best == MN_NONE)
            return;
        sm_walk *w = &sm->walks[best];
        mni_event_span_describe(&w->span, best_pos, best_at, &out[written]);
        out[written].state = w->state;
        out[written].leaf = w->leaf;
        mni_event_span_advance(&w->span, best_at, best_pos);
    }
}

/* ---- transitions --------------------------------------------------------------------- */

static bool condition_holds(const mn_state_machine *sm, const sm_condition *c)
{
    float v;
    if (c->op == MN_SM_TRIGGER)
        return sm->param_values[c->index] != 0.0f;
    v = c->source == SM_TREE_NAME ? mn_blend_tree_value(sm->tree, c->index) : sm->param_values[c->index];
    switch (c->op) {
    case MN_SM_LESS: return v < c->value;
    case MN_SM_LESS_EQUAL: return v <= c->value;
    case MN_SM_GREATER: return v > c->value;
    case MN_SM_GREATER_EQUAL: return v >= c->value;
    case MN_SM_EQUAL: return v == c->value;
    case MN_SM_NOT_EQUAL: return v != c->value;
    default: return false;
    }
}

static bool transition_holds(const mn_state_machine *sm, const sm_transition *tr)
{
    if (tr->has_exit_time && !(sm->cur->time >= (double)tr->exit_time))
        return false;
    for (uint32_t c = 0; c < tr->condition_count; c++)
        if (!condition_holds(sm, &sm->conditions[tr->first_condition + c]))
            return false;
    return true;
}

/* The first candidate out of the current state that holds, or MN_NONE. */
static uint32_t choose(const mn_state_machine *sm)
{
    uint32_t s = sm->cur->state;
    for (uint32_t i = sm->candidates_first[s]; i < sm->candidates_first[s + 1]; i++)
        if (transition_holds(sm, &sm->transitions[sm->candidates[i]]))
            return sm->candidates[i];
    return MN_NONE;
}

static void fire(mn_state_machine *sm, const sm_transition *tr)
{
    for (uint32_t c = 0; c < tr->condition_count; c++) {
        const sm_condition *cond = &sm->conditions[tr->first_condition + c];
        if (cond->op == MN_SM_TRIGGER)
            sm->param_values[cond->index] = 0.0f;
    }
    sm_slot *old = sm->cur, *other = old == &sm->slots[0] ? &sm->slots[1] : &sm->slots[0];
    if (tr->duration <= 0.0f) {
        /* A cut: nothing to fade from. */
        sm->fading = false;
        sm->frozen_source = false;
        sm->src = NULL;
    } else if (sm->fading) {
        /*
         * Interruption: freeze what shows now (after step 1) and fade from
         * it.  The output fails only for a state time past the float range
         * (years of dt); the frozen pose then keeps what it held, and
         * evaluate reports the same error for as long as that state shows.
         */
        mn_error ignored;
        (void)output(sm, &sm->frozen, &ignored);
        sm->frozen_source = true;
        sm->src = NULL;
    } else {
        sm->frozen_source = false;
        sm->src = old;
    }
    if (tr->duration > 0.0f) {
        sm->fading = true;
        sm->duration = tr->duration;
        sm->elapsed = 0.0;
    }
    /* The new state goes in the slot the live source (if any) does not hold. */
    sm->cur = sm->src == old ? other : old;
    slot_enter(sm, sm->cur, tr->to);
}

/* ---- update ------------------------------------------------------------------------- */

mn_status mn_state_machine_update(mn_state_machine *sm, float dt, mn_event *events, uint32_t capacity,
                                  uint32_t *event_total, mn_error *err)
{
    if (event_total)
        *event_total = 0;
    if (!sm)
        return mni_fail(err, MN_INVALID_ARGUMENT, "state machine is NULL");
    if (!isfinite(dt))
        return mni_fail(err, MN_NOT_FINITE, "dt is not finite");
    if (dt < 0.0f)
        return mni_fail(err, MN_INVALID_VALUE, "dt %g is negative: time only moves forward",
                        (double)dt);
    /* 1. Advance. */
    slot_advance(sm, sm->cur, dt);
    if (sm->fading) {
        if (sm->src)
            slot_advance(sm, sm->src, dt);
        sm->elapsed += dt;
        if (sm->elapsed >= sm->duration) {
            sm->fading = false;
            sm->frozen_source = false;
            sm->src = NULL;
        }
    }
    /*
     * 2. Events: the live source (still weighted > 0, as the fade is still
     * running) before the current state.  dt = 0 reports nothing and keeps
     * every span's start, so a clock set between two updates is reported by
     * the next update that moves time rather than lost.
     */
    uint32_t total = 0, walks = 0;
    if (dt > 0.0f) {
        if (sm->src)
            walks = add_walks(sm, sm->src, walks, &total);
        walks = add_walks(sm, sm->cur, walks, &total);
        merge_walks(sm, walks, events, capacity, total);
    }
    if (event_total)
        *event_total = total;
    /* 3, 4. Choose at most one transition and enter its state. */
    uint32_t t = choose(sm);
    if (t != MN_NONE)
        fire(sm, &sm->transitions[t]);
    return MN_OK;
}

/* ---- queries ------------------------------------------------------------------------- */

uint32_t mn_state_machine_state_count(const mn_state_machine *sm)
{
    return sm ? sm->state_count : 0;
}

const char *mn_state_machine_state_name(const mn_state_machine *sm, uint32_t state)
{
    return sm && state < sm->state_count ? sm->state_names[state] : NULL;
}

uint32_t mn_state_machine_find_state(const mn_state_machine *sm, const char *name)
{
    if (!sm || !name)
        return MN_NONE;
    return find_name(sm->state_names, sm->state_count, name);
}

uint32_t mn_state_machine_joint_count(const mn_state_machine *sm)
{
    return sm ? sm->joint_count : 0;
}

uint32_t mn_state_machine_current(const mn_state_machine *sm)
{
    return sm ? sm->cur->state : MN_NONE;
}

double mn_state_machine_state_time(const mn_state_machine *sm)
{
    return sm ? sm->cur->time : 0.0;
}

bool mn_state_machine_fading(const mn_state_machine *sm)
{
    return sm && sm->fading;
}

uint32_t mn_state_machine_source(const mn_state_machine *sm)
{
    return sm && sm->fading && sm->src ? sm->src->state : MN_NONE;
}

float mn_state_machine_fade_weight(const mn_state_machine *sm)
{
    return sm ? fade_weight(sm) : 1.0f;
}

const mn_blend_tree *mn_state_machine_tree(const mn_state_machine *sm)
{
    return sm ? sm->tree : NULL;
}
