/*
 * marionette/state_machine.h — a crossfading state machine over blend-tree
 * states, driven by parameters the caller names, reporting clip events.
 *
 * States are nodes of one blend tree (blend_tree.h): the machine builds that
 * tree from the node descriptions it is given, so every state shares one
 * namespace of parameters and clocks.  Transitions go from a state to a
 * state when their conditions hold; each crossfades for its duration.
 *
 *     mn_sm_parameter params[] = {{.name = "jump", .kind = MN_SM_PARAM_TRIGGER},
 *                                 {.name = "grounded", .kind = MN_SM_PARAM_BOOL, .value = 1}};
 *     mn_sm_condition go[] = {{.name = "speed", .op = MN_SM_GREATER, .value = 0.1f}};
 *     mn_sm_condition jump[] = {{.name = "jump", .op = MN_SM_TRIGGER},
 *                               {.name = "grounded", .op = MN_SM_EQUAL, .value = 1}};
 *     mn_sm_state states[] = {{.name = "idle", .node = 0}, {.name = "move", .node = 4},
 *                             {.name = "jump", .node = 5}};
 *     mn_sm_transition transitions[] = {
 *         {.from = 0, .to = 1, .duration = 0.2f, .conditions = go, .condition_count = 1},
 *         {.from = 1, .to = 2, .duration = 0.1f, .conditions = jump, .condition_count = 2},
 *         {.from = 2, .to = 0, .duration = 0.3f, .has_exit_time = true, .exit_time = 0.8f},
 *     };
 *     mn_state_machine_desc desc = {.nodes = nodes, .node_count = 6, .bind = &sk->rest,
 *                                   .parameters = params, .parameter_count = 2,
 *                                   .states = states, .state_count = 3,
 *                                   .transitions = transitions, .transition_count = 3};
 *     mn_state_machine *sm;
 *     mn_state_machine_create(&desc, &sm, &err);
 *     for (;;) {
 *         mn_state_machine_set(sm, "speed", speed, &err);       // a tree parameter (node 4's)
 *         mn_state_machine_set(sm, "grounded", on_ground, &err); // 0 or 1
 *         if (jump_pressed) mn_state_machine_set_trigger(sm, "jump", &err);
 *         mn_event fired[16];  uint32_t n;
 *         mn_state_machine_update(sm, dt, fired, 16, &n, &err); // the only thing that moves time
 *         mn_state_machine_evaluate(sm, &pose, &err);           // allocation-free
 *     }
 *     mn_state_machine_free(sm);
 *
 * WHAT mn_state_machine_update(dt) DOES, IN ORDER
 *   A negative or non-finite dt is an error that changes nothing; 0 is valid.
 *   1. Advance.  The current state's local time += dt, and a live fade
 *      source's too; the fade's elapsed time += dt; the phase of every
 *      synchronised set of those states advances by dt / D under the current
 *      parameters (blend_tree.h).  elapsed >= duration ends the fade.
 *   2. Events.  Each clip leaf of the current state, and of a live source
 *      whose weight in the output is still > 0, reports the events of its
 *      track crossed by its leaf time during step 1 (see EVENTS).
 *   3. Choose.  The transitions out of the current state (during a fade: out
 *      of its destination), by ascending priority, ties in declaration
 *      order; the first whose conditions and exit time hold fires.  At most
 *      one fires per update.  Its triggers are reset.
 *   4. Enter.  The new state starts at local time 0 with its phases at 0; no
 *      dt carries over.  The fade's destination weight is
 *      clamp01(elapsed / duration), linear: the firing update still shows the
 *      old pose and the next shows dt / duration.  A duration of 0 cuts.
 *   The initial state is states[0] at time 0.  mn_state_machine_evaluate
 *   blends source and destination with the destination weight, using the
 *   parameters current when it is called.
 *
 * INTERRUPTION
 *   A transition that fires while a fade is running freezes the pose the
 *   machine would output at that update (after step 1) into a pose claimed
 *   at creation, and fades from it: the frozen source never advances and
 *   reports no events; the old source and destination are dropped.  The
 *   output is continuous at the interrupting update, and no depth of
 *   interruptions costs more memory.  A transition with no fade running
 *   fades from the old state, live (its time advances, it reads the current
 *   parameters, it reports events).
 *
 * CONDITIONS, EXIT TIMES, TRIGGERS
 *   Conditions are ANDed.  Each compares a named value with a constant
 *   (<, <=, >, >=, ==, !=, exactly as floats), or requires a trigger.  The
 *   exit time is seconds of the state's local time (a blend-tree state has
 *   no single duration to normalise by), met once local time >= exit_time
 *   after step 1, and met from then on.  A transition with neither
 *   conditions nor exit time fires at the first update in its state.
 *   A trigger stays set until a transition naming it fires, which resets
 *   every trigger it names; triggers named only by transitions that do not
 *   fire stay set.
 *
 * NAMES: PARAMETERS, CLOCKS AND TRIGGERS
 *   Every name a condition, a set or a get uses is declared, once:
 *   - the tree's blend parameters and clocks, by its nodes (blend_tree.h);
 *   - the machine's own parameters, in desc.parameters: a name, a kind and
 *     the value it starts with.  A FLOAT holds any finite value; a BOOL
 *     holds 0 or 1 and is compared only with == or != against 0 or 1; a
 *     TRIGGER (its value 0 or 1: unset or set) is set by set_trigger and
 *     read only by MN_SM_TRIGGER conditions.  A FLOAT declaration may also
 *     name a tree parameter or clock, to give it a starting value.
 *   A condition naming anything else is refused at creation, and set,
 *   set_trigger and get refuse it at run time: the error quotes the name
 *   and, when a declared name is within a few edits of it, suggests that
 *   one ("\"sped\" is not declared; did you mean \"speed\"?"), because a
 *   misspelt name that quietly became a parameter nothing sets would leave
 *   a transition that never fires.  A name declared twice, declared as a
 *   BOOL or TRIGGER while a tree node uses it, a TRIGGER condition on a
 *   non-trigger and a comparison of a trigger are refused at creation.
 *   Every value keeps what it was set to across updates and states; a name
 *   nobody declared a value for starts at 0.  Setting a non-finite value,
 *   a BOOL to anything but 0 or 1, `set` on a trigger or `set_trigger` on a
 *   non-trigger is an error naming it, and nothing changes.  Names are
 *   case-sensitive bytes.
 *
 * EVENTS
 *   Event tracks (events.h) are attached to clip nodes (desc.node_events).
 *   A leaf's span in one update is [its leaf time at the previous update,
 *   its leaf time now) in unwrapped leaf time: state time for the frame
 *   clock, φ·d for a synchronised leaf, the clock's value for a named clock
 *   (a clock set backwards crosses nothing).  Entering a state gives an
 *   empty span, so an event at 0 fires on the next update.  dt = 0 reports
 *   nothing, not even a named clock set since the last update: that span is
 *   kept and reported by the next update with dt > 0.  Looping (and
 *   synchronised) leaves report every wrap crossed.
 *   Order: by fraction of each leaf's span, then the live source before the
 *   current state, then leaves depth-first, then event order.  The first
 *   `capacity` events in that order are written; the total is returned.
 *
 * MEMORY AND THREADS
 *   mn_state_machine_create copies the descriptions and names and claims
 *   everything (the tree, three poses, per-state phase and leaf buffers)
 *   through the desc's allocator.  set, set_trigger, update and evaluate
 *   allocate nothing.  A machine is one object: one thread at a time.  Same
 *   sequence of calls, same poses and events, bit for bit.
 */
#ifndef MARIONETTE_STATE_MACHINE_H
#define MARIONETTE_STATE_MACHINE_H

#include "core.h"
#include "pose.h"
#include "blend_tree.h"
#include "events.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The machine: opaque, made by mn_state_machine_create, freed by mn_state_machine_free. */
typedef struct mn_state_machine mn_state_machine;

/* How a condition tests its name.  0 is invalid, so a zeroed condition is refused. */
typedef enum mn_sm_condition_op {
    MN_SM_CONDITION_INVALID = 0,
    MN_SM_LESS,                  /* value(name) <  constant */
    MN_SM_LESS_EQUAL,            /* value(name) <= constant */
    MN_SM_GREATER,               /* value(name) >  constant */
    MN_SM_GREATER_EQUAL,         /* value(name) >= constant */
    MN_SM_EQUAL,                 /* value(name) == constant */
    MN_SM_NOT_EQUAL,             /* value(name) != constant */
    MN_SM_TRIGGER                /* the trigger `name` is set (value unused) */
} mn_sm_condition_op;

/* The kind of a declared machine parameter.  0 is invalid, so a zeroed declaration is refused. */
typedef enum mn_sm_parameter_kind {
    MN_SM_PARAM_INVALID = 0,
    MN_SM_PARAM_FLOAT,           /* any finite value, compared with any op */
    MN_SM_PARAM_BOOL,            /* 0 or 1, compared with == or != against 0 or 1 */
    MN_SM_PARAM_TRIGGER          /* set by set_trigger, reset when a transition naming it fires */
} mn_sm_parameter_kind;

/* One declared parameter of a machine (see NAMES). */
typedef struct mn_sm_parameter {
    const char *name;            /* unique among the declarations, non-empty (copied) */
    mn_sm_parameter_kind kind;
    float value;                 /* the starting value: finite; BOOL and TRIGGER 0 or 1 (a trigger
                                    declared 1 starts set); zero is 0 */
} mn_sm_parameter;

typedef struct mn_sm_condition {
    const char *name;            /* a declared parameter or trigger, or a tree parameter or clock (copied) */
    mn_sm_condition_op op;
    float value;                 /* the constant compared against; finite */
} mn_sm_condition;

typedef struct mn_sm_state {
    const char *name;            /* unique, non-empty (copied) */
    uint32_t node;               /* the blend-tree node this state evaluates */
} mn_sm_state;

typedef struct mn_sm_transition {
    uint32_t from, to;           /* state indices (from == to restarts the state, fading from itself) */
    float duration;              /* crossfade seconds, finite, >= 0; 0 cuts */
    bool has_exit_time;          /* false: no exit time */
    float exit_time;             /* seconds of the from-state's local time, finite, >= 0 */
    int32_t priority;            /* lower is tried first; ties in declaration order */
    const mn_sm_condition *conditions;
    uint32_t condition_count;
} mn_sm_transition;

/* What mn_state_machine_create builds.  Zero means the default given per field. */
typedef struct mn_state_machine_desc {
    /* The blend tree holding every state's nodes (blend_tree.h; copied). */
    const mn_blend_node *nodes;
    uint32_t node_count;
    uint32_t joint_count;        /* 0: bind->joint_count */
    const mn_pose *bind;         /* copied; see mn_blend_tree_desc.bind */
    /* Optional: node_count entries, node_events[i] the event track of clip
       node i or NULL.  Borrowed: the tracks must outlive the machine. */
    const mn_clip_events *const *node_events;
    /* The machine's own parameters and triggers, and starting values for
       tree parameters (see NAMES; copied).  NULL with count 0: none, so
       conditions may name only tree parameters and clocks. */
    const mn_sm_parameter *parameters;
    uint32_t parameter_count;
    const mn_sm_state *states;   /* >= 1; states[0] is the initial state */
    uint32_t state_count;
    const mn_sm_transition *transitions;
    uint32_t transition_count;
    mn_allocator allocator;      /* zero: malloc/free */
} mn_state_machine_desc;

/*
 * Build a machine (and its tree), in states[0] at time 0, no fade.
 * err->path names the offending field ("transitions[2].conditions[0]").
 * Errors (*out = NULL): every error of mn_blend_tree_create (for the nodes),
 * and MN_INVALID_ARGUMENT (NULL desc/out, no states, a NULL or empty or
 * repeated state name, a NULL or empty condition or parameter name, NULL
 * conditions or parameters with a count, an invalid op or parameter kind,
 * node_events naming a node that is not a clip leaf), MN_INDEX_RANGE (a
 * state's node, a transition's from/to), MN_NOT_FINITE (a duration, exit
 * time, constant or starting value), MN_INVALID_VALUE (a negative duration
 * or exit time; a condition naming nothing declared, err quoting it and the
 * closest declared name; a parameter declared twice, or as a BOOL or TRIGGER
 * while a tree node uses it; a BOOL or TRIGGER starting value other than 0
 * or 1; a TRIGGER condition on a non-trigger; a comparison of a trigger; a
 * BOOL compared other than by == or != with 0 or 1), MN_OVERFLOW,
 * MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_state_machine_create(const mn_state_machine_desc *desc, mn_state_machine **out,
                                         mn_error *err);

/* Free a machine and everything it claimed.  NULL is allowed. */
MN_API void mn_state_machine_free(mn_state_machine *sm);

/* ---- names --------------------------------------------------------------------- */

/*
 * Set a tree parameter or clock, or a declared FLOAT or BOOL parameter.
 * Errors (nothing changes): MN_INVALID_ARGUMENT (NULL sm or name),
 * MN_INVALID_VALUE (a name nothing declares: err quotes it and suggests the
 * closest declared name; a trigger: use mn_state_machine_set_trigger; a BOOL
 * given anything but 0 or 1), MN_NOT_FINITE.  Allocation-free.
 */
MN_API mn_status mn_state_machine_set(mn_state_machine *sm, const char *name, float value,
                                      mn_error *err);

/*
 * Set a declared trigger; it stays set until a transition naming it fires.
 * Errors (nothing changes): MN_INVALID_ARGUMENT (NULL), MN_INVALID_VALUE (not
 * a declared trigger: err quotes the name and, when it is declared nowhere,
 * suggests the closest declared name).  Allocation-free.
 */
MN_API mn_status mn_state_machine_set_trigger(mn_state_machine *sm, const char *name, mn_error *err);

/*
 * The value of any declared name in *value (a trigger: 1 set, 0 not; a
 * BOOL: 0 or 1).  Errors: MN_INVALID_ARGUMENT (NULL sm, name or value),
 * MN_INVALID_VALUE (a name nothing declares, with the suggestion).
 */
MN_API mn_status mn_state_machine_get(const mn_state_machine *sm, const char *name, float *value,
                                      mn_error *err);

/* ---- time ------------------------------------------------------------------------ */

/*
 * Advance by dt seconds (the steps above).  Events crossed are written to
 * events[0 .. min(capacity, total)) (events may be NULL when capacity is 0);
 * *event_total (may be NULL) receives the total.
 * Errors (nothing changes, *event_total = 0): MN_INVALID_ARGUMENT (NULL sm),
 * MN_INVALID_VALUE (dt < 0), MN_NOT_FINITE (dt NaN or infinite).
 * Allocation-free.
 */
MN_API mn_status mn_state_machine_update(mn_state_machine *sm, float dt, mn_event *events,
                                         uint32_t capacity, uint32_t *event_total, mn_error *err);

/*
 * The machine's pose into out (every channel written): the current state,
 * or during a fade mn_pose_blend(source, destination, weight).
 * Errors (out untouched): MN_INVALID_ARGUMENT (NULL, or out bound to a
 * space other than that of the machine's clips and bind pose: pose.h,
 * SPACES, mn_blend_tree_space; err names both), MN_COUNT_MISMATCH (out's
 * joint count is not the machine's).  Allocation-free.
 */
MN_API mn_status mn_state_machine_evaluate(mn_state_machine *sm, mn_pose *out, mn_error *err);

/* ---- state ---------------------------------------------------------------------- */

/* Number of states (0 for NULL). */
MN_API uint32_t mn_state_machine_state_count(const mn_state_machine *sm);

/* The name of a state, owned by the machine; NULL when out of range. */
MN_API const char *mn_state_machine_state_name(const mn_state_machine *sm, uint32_t state);

/* The index of the state named `name` (strcmp; for set-up), MN_NONE when none. */
MN_API uint32_t mn_state_machine_find_state(const mn_state_machine *sm, const char *name);

/* Joints of every pose the machine evaluates (0 for NULL). */
MN_API uint32_t mn_state_machine_joint_count(const mn_state_machine *sm);

/* The current state (a fade's destination); MN_NONE for NULL. */
MN_API uint32_t mn_state_machine_current(const mn_state_machine *sm);

/* Seconds the current state has been in (its local time); 0 for NULL. */
MN_API double mn_state_machine_state_time(const mn_state_machine *sm);

/* True while a crossfade runs. */
MN_API bool mn_state_machine_fading(const mn_state_machine *sm);

/* The live source state of the fade; MN_NONE with no fade, or when fading from a frozen pose. */
MN_API uint32_t mn_state_machine_source(const mn_state_machine *sm);

/* The destination weight clamp01(elapsed / duration); 1 with no fade. */
MN_API float mn_state_machine_fade_weight(const mn_state_machine *sm);

/* The tree the machine built (for mn_blend_tree_leaves and the like).  Owned by the machine. */
MN_API const mn_blend_tree *mn_state_machine_tree(const mn_state_machine *sm);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_STATE_MACHINE_H */
