/*
 * The state machine (src/anim/state_machine.c) against animation-decisions
 * §9 (update order), §10 (interruption), §11 (phases in a machine), §16
 * (exit times, conditions, triggers), §17 (events) and §21 (names).
 *
 * The clips are ramps that make time visible: clip X moves joint 0 along x
 * by one unit a second (x = t), Y along y, Z along z, so the pose a machine
 * outputs reads back as (state time, fade weight): a fade from X at time a
 * to Y at time b with weight w shows (a·(1−w), b·w, 0).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/blend.h>
#include <marionette/state_machine.h>

#include "assert_near.h"
#include "counting_alloc.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define JOINTS 2u

typedef struct fixture {
    mn_clip *x, *y, *z;          /* 10 s ramps along each axis, on joint 0 */
    mn_clip *walk, *run;         /* 1 s and 0.5 s ramps along x and y, for sync */
    mn_pose bind;                /* joint 1 at (5, 6, 7): what every leaf starts from */
} fixture;

static fixture fx;

static mn_clip *ramp(int axis, float duration)
{
    float times[2] = {0.0f, duration};
    float values[6] = {0};
    values[3 + axis] = duration;
    mn_track track = {.target = 0, .path = MN_PATH_TRANSLATION, .interpolation = MN_INTERP_LINEAR,
                      .key_count = 2, .components = 3, .times = times, .values = values};
    mn_clip *clip = NULL;
    mn_error err;
    assert_int_equal(mn_clip_create(&track, 1, "ramp", NULL, &clip, &err), MN_OK);
    return clip;
}

static int setup(void **state)
{
    (void)state;
    fx.x = ramp(0, 10.0f);
    fx.y = ramp(1, 10.0f);
    fx.z = ramp(2, 10.0f);
    fx.walk = ramp(0, 1.0f);
    fx.run = ramp(1, 0.5f);
    mn_error err;
    if (mn_pose_create(&fx.bind, JOINTS, NULL, &err) != MN_OK)
        return -1;
    assert_int_equal(mn_pose_set_joint(&fx.bind, 1, (float[3]){5, 6, 7}, NULL, NULL, NULL), MN_OK);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    mn_clip_free(fx.x);
    mn_clip_free(fx.y);
    mn_clip_free(fx.z);
    mn_clip_free(fx.walk);
    mn_clip_free(fx.run);
    mn_pose_free(&fx.bind);
    return 0;
}

/* Nodes 0, 1, 2: clips X, Y, Z (clamped).  States "X", "Y", "Z" on them. */
static const mn_blend_node *xyz_nodes(void)
{
    static mn_blend_node nodes[3];
    nodes[0] = (mn_blend_node){.kind = MN_BLEND_NODE_CLIP, .clip = fx.x};
    nodes[1] = (mn_blend_node){.kind = MN_BLEND_NODE_CLIP, .clip = fx.y};
    nodes[2] = (mn_blend_node){.kind = MN_BLEND_NODE_CLIP, .clip = fx.z};
    return nodes;
}

static const mn_sm_state xyz_states[] = {{"X", 0}, {"Y", 1}, {"Z", 2}};

/* The parameters the X/Y/Z machines' tests name: the clips declare none of their own. */
static const mn_sm_parameter xyz_params[] = {
    {"speed", MN_SM_PARAM_FLOAT, 0}, {"v", MN_SM_PARAM_FLOAT, 0},    {"a", MN_SM_PARAM_FLOAT, 0},
    {"b", MN_SM_PARAM_FLOAT, 0},     {"go", MN_SM_PARAM_FLOAT, 0},   {"jump", MN_SM_PARAM_TRIGGER, 0},
    {"wave", MN_SM_PARAM_TRIGGER, 0}, {"go1", MN_SM_PARAM_TRIGGER, 0}, {"go2", MN_SM_PARAM_TRIGGER, 0},
    {"go3", MN_SM_PARAM_TRIGGER, 0}, {"again", MN_SM_PARAM_TRIGGER, 0}, {"away", MN_SM_PARAM_TRIGGER, 0},
    {"back", MN_SM_PARAM_TRIGGER, 0},
};
#define XYZ_PARAMS ((uint32_t)(sizeof xyz_params / sizeof xyz_params[0]))

static mn_state_machine *make_xyz(const mn_sm_transition *transitions, uint32_t count)
{
    mn_state_machine_desc desc = {.nodes = xyz_nodes(), .node_count = 3, .bind = &fx.bind,
                                  .parameters = xyz_params, .parameter_count = XYZ_PARAMS,
                                  .states = xyz_states, .state_count = 3,
                                  .transitions = transitions, .transition_count = count};
    mn_state_machine *sm = NULL;
    mn_error err;
    mn_status st = mn_state_machine_create(&desc, &sm, &err);
    if (st != MN_OK)
        print_error("create: %s\n", err.message);
    assert_int_equal(st, MN_OK);
    return sm;
}

static void update(mn_state_machine *sm, float dt)
{
    mn_error err;
    assert_int_equal(mn_state_machine_update(sm, dt, NULL, 0, NULL, &err), MN_OK);
}

static void set(mn_state_machine *sm, const char *name, float value)
{
    mn_error err;
    assert_int_equal(mn_state_machine_set(sm, name, value, &err), MN_OK);
}

static void trigger(mn_state_machine *sm, const char *name)
{
    mn_error err;
    assert_int_equal(mn_state_machine_set_trigger(sm, name, &err), MN_OK);
}

/* Joint 0's translation as the machine outputs it now. */
static void shown(mn_state_machine *sm, float t[3])
{
    mn_pose pose;
    mn_error err;
    assert_int_equal(mn_pose_create(&pose, JOINTS, NULL, &err), MN_OK);
    assert_int_equal(mn_state_machine_evaluate(sm, &pose, &err), MN_OK);
    memcpy(t, pose.translations, 3 * sizeof(float));
    mn_pose_free(&pose);
}

#define assert_shown(sm, ex, ey, ez)                  \
    do {                                              \
        float t_[3];                                  \
        shown((sm), t_);                              \
        assert_float_near(t_[0], (ex), 1e-5);         \
        assert_float_near(t_[1], (ey), 1e-5);         \
        assert_float_near(t_[2], (ez), 1e-5);         \
    } while (0)

static const mn_sm_condition fast[] = {{"speed", MN_SM_GREATER, 1.0f}};

/* ---- §9: update order ------------------------------------------------------------- */

static void starts_in_the_first_state_at_time_zero(void **state)
{
    (void)state;
    mn_state_machine *sm = make_xyz(NULL, 0);
    assert_int_equal(mn_state_machine_current(sm), 0);
    assert_true(mn_state_machine_state_time(sm) == 0.0);
    assert_false(mn_state_machine_fading(sm));
    assert_true(mn_state_machine_fade_weight(sm) == 1.0f);
    assert_shown(sm, 0, 0, 0);
    update(sm, 0.25f);
    assert_shown(sm, 0.25, 0, 0);
    /* dt = 0 is valid and moves nothing. */
    update(sm, 0.0f);
    assert_shown(sm, 0.25, 0, 0);
    mn_state_machine_free(sm);
}

static void advance_then_check_and_the_firing_update_shows_the_old_pose(void **state)
{
    (void)state;
    mn_sm_transition t[] = {{.from = 0, .to = 1, .duration = 0.5f, .conditions = fast, .condition_count = 1}};
    mn_state_machine *sm = make_xyz(t, 1);
    set(sm, "speed", 2.0f);
    update(sm, 0.1f);
    /* Fired at this update: Y entered at 0, no dt carried over, weight 0. */
    assert_int_equal(mn_state_machine_current(sm), 1);
    assert_int_equal(mn_state_machine_source(sm), 0);
    assert_true(mn_state_machine_fading(sm));
    assert_true(mn_state_machine_state_time(sm) == 0.0);
    assert_true(mn_state_machine_fade_weight(sm) == 0.0f);
    assert_shown(sm, 0.1, 0, 0);
    /* The next update shows dt / duration: X at 0.2 by 0.8, Y at 0.1 by 0.2. */
    update(sm, 0.1f);
    assert_float_near(mn_state_machine_fade_weight(sm), 0.2, 1e-6);
    assert_shown(sm, 0.2 * 0.8, 0.1 * 0.2, 0);
    update(sm, 0.1f);
    update(sm, 0.1f);
    update(sm, 0.1f);
    assert_true(mn_state_machine_fading(sm));
    assert_shown(sm, 0.5 * 0.2, 0.4 * 0.8, 0);
    /* elapsed >= duration ends the fade in step 1. */
    update(sm, 0.1f);
    assert_false(mn_state_machine_fading(sm));
    assert_int_equal(mn_state_machine_source(sm), MN_NONE);
    assert_shown(sm, 0, 0.5, 0);
    mn_state_machine_free(sm);
}

static void at_most_one_transition_per_update(void **state)
{
    (void)state;
    /* Unconditional cuts X -> Y -> Z: one per update, each at the first update in its state. */
    mn_sm_transition t[] = {{.from = 0, .to = 1}, {.from = 1, .to = 2}};
    mn_state_machine *sm = make_xyz(t, 2);
    update(sm, 0.1f);
    assert_int_equal(mn_state_machine_current(sm), 1);
    /* A zero duration cuts: Y at 0 shows at once. */
    assert_false(mn_state_machine_fading(sm));
    assert_shown(sm, 0, 0, 0);
    update(sm, 0.1f);
    assert_int_equal(mn_state_machine_current(sm), 2);
    update(sm, 0.1f);
    assert_int_equal(mn_state_machine_current(sm), 2);
    assert_shown(sm, 0, 0, 0.1);
    mn_state_machine_free(sm);
}

static void priority_then_declaration_order(void **state)
{
    (void)state;
    mn_sm_transition t[] = {
        {.from = 0, .to = 1, .priority = 2, .conditions = fast, .condition_count = 1},
        {.from = 0, .to = 2, .priority = 1, .conditions = fast, .condition_count = 1},
    };
    mn_state_machine *sm = make_xyz(t, 2);
    set(sm, "speed", 3.0f);
    update(sm, 0.1f);
    assert_int_equal(mn_state_machine_current(sm), 2); /* priority 1 before 2 */
    mn_state_machine_free(sm);

    mn_sm_transition tie[] = {
        {.from = 0, .to = 2, .priority = 5, .conditions = fast, .condition_count = 1},
        {.from = 0, .to = 1, .priority = 5, .conditions = fast, .condition_count = 1},
    };
    sm = make_xyz(tie, 2);
    set(sm, "speed", 3.0f);
    update(sm, 0.1f);
    assert_int_equal(mn_state_machine_current(sm), 2); /* declared first */
    mn_state_machine_free(sm);
}

static void during_a_fade_the_destinations_transitions_are_candidates(void **state)
{
    (void)state;
    mn_sm_transition t[] = {
        {.from = 0, .to = 1, .duration = 1.0f},                                    /* X -> Y */
        {.from = 1, .to = 2, .duration = 1.0f, .conditions = fast, .condition_count = 1}, /* Y -> Z */
        {.from = 0, .to = 2, .duration = 1.0f, .conditions = fast, .condition_count = 1}, /* X -> Z */
    };
    mn_state_machine *sm = make_xyz(t, 3);
    update(sm, 0.1f);
    assert_int_equal(mn_state_machine_current(sm), 1);
    set(sm, "speed", 2.0f);
    update(sm, 0.1f);
    /* Y -> Z (the destination's) fired, not X -> Z (the source's). */
    assert_int_equal(mn_state_machine_current(sm), 2);
    mn_state_machine_free(sm);
}

/* ---- §16: conditions, exit times, triggers ---------------------------------------- */

static void every_comparison_is_exact_as_float(void **state)
{
    (void)state;
    const struct { mn_sm_condition_op op; float below, at, above; } cases[] = {
        {MN_SM_LESS, 1, 0, 0},          {MN_SM_LESS_EQUAL, 1, 1, 0}, {MN_SM_GREATER, 0, 0, 1},
        {MN_SM_GREATER_EQUAL, 0, 1, 1}, {MN_SM_EQUAL, 0, 1, 0},      {MN_SM_NOT_EQUAL, 1, 0, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const float probes[3] = {nextafterf(0.5f, 0.0f), 0.5f, nextafterf(0.5f, 1.0f)};
        const float expect[3] = {cases[i].below, cases[i].at, cases[i].above};
        for (int p = 0; p < 3; p++) {
            mn_sm_condition c[] = {{"v", cases[i].op, 0.5f}};
            mn_sm_transition t[] = {{.from = 0, .to = 1, .conditions = c, .condition_count = 1}};
            mn_state_machine *sm = make_xyz(t, 1);
            set(sm, "v", probes[p]);
            update(sm, 0.1f);
            assert_int_equal(mn_state_machine_current(sm) == 1, expect[p] != 0);
            mn_state_machine_free(sm);
        }
    }
}

static void conditions_are_anded(void **state)
{
    (void)state;
    mn_sm_condition c[] = {{"a", MN_SM_GREATER, 0.0f}, {"b", MN_SM_GREATER, 0.0f}};
    mn_sm_transition t[] = {{.from = 0, .to = 1, .conditions = c, .condition_count = 2}};
    mn_state_machine *sm = make_xyz(t, 1);
    set(sm, "a", 1.0f);
    update(sm, 0.1f);
    assert_int_equal(mn_state_machine_current(sm), 0);
    set(sm, "b", 1.0f);
    update(sm, 0.1f);
    assert_int_equal(mn_state_machine_current(sm), 1);
    mn_state_machine_free(sm);
}

static void exit_time_is_local_seconds_and_stays_met(void **state)
{
    (void)state;
    mn_sm_transition t[] = {{.from = 0, .to = 1, .has_exit_time = true, .exit_time = 0.25f}};
    mn_state_machine *sm = make_xyz(t, 1);
    update(sm, 0.1f);
    update(sm, 0.1f);
    assert_int_equal(mn_state_machine_current(sm), 0);
    update(sm, 0.1f); /* local time 0.3 >= 0.25 after step 1 */
    assert_int_equal(mn_state_machine_current(sm), 1);
    mn_state_machine_free(sm);

    /* Met from then on: a condition that comes true long after still fires. */
    mn_sm_condition c[] = {{"go", MN_SM_EQUAL, 1.0f}};
    mn_sm_transition t2[] = {{.from = 0, .to = 1, .has_exit_time = true, .exit_time = 0.25f,
                              .conditions = c, .condition_count = 1}};
    sm = make_xyz(t2, 1);
    for (int i = 0; i < 20; i++)
        update(sm, 0.1f);
    assert_int_equal(mn_state_machine_current(sm), 0);
    set(sm, "go", 1.0f);
    update(sm, 0.1f);
    assert_int_equal(mn_state_machine_current(sm), 1);
    mn_state_machine_free(sm);

    /* Exactly at the exit time counts (>=). */
    mn_sm_transition t3[] = {{.from = 0, .to = 1, .has_exit_time = true, .exit_time = 0.5f}};
    sm = make_xyz(t3, 1);
    update(sm, 0.5f);
    assert_int_equal(mn_state_machine_current(sm), 1);
    mn_state_machine_free(sm);
}

static void triggers_stay_set_until_consumed(void **state)
{
    (void)state;
    mn_sm_condition jump_fast[] = {{"jump", MN_SM_TRIGGER, 0}, {"speed", MN_SM_GREATER, 1.0f}};
    mn_sm_condition wave[] = {{"wave", MN_SM_TRIGGER, 0}};
    mn_sm_transition t[] = {
        {.from = 0, .to = 1, .conditions = jump_fast, .condition_count = 2},
        {.from = 1, .to = 2, .conditions = wave, .condition_count = 1},
    };
    mn_state_machine *sm = make_xyz(t, 2);
    float v;
    mn_error err;
    trigger(sm, "jump");
    trigger(sm, "wave"); /* named only by a transition out of Y: stays set while in X */
    for (int i = 0; i < 3; i++)
        update(sm, 0.1f);
    assert_int_equal(mn_state_machine_current(sm), 0);
    assert_int_equal(mn_state_machine_get(sm, "jump", &v, &err), MN_OK);
    assert_true(v == 1.0f);
    set(sm, "speed", 2.0f);
    update(sm, 0.1f);
    assert_int_equal(mn_state_machine_current(sm), 1);
    /* Consumed by the transition that fired. */
    assert_int_equal(mn_state_machine_get(sm, "jump", &v, &err), MN_OK);
    assert_true(v == 0.0f);
    /* "wave" was still set: Y -> Z fires at the next update and consumes it. */
    assert_int_equal(mn_state_machine_get(sm, "wave", &v, &err), MN_OK);
    assert_true(v == 1.0f);
    update(sm, 0.1f);
    assert_int_equal(mn_state_machine_current(sm), 2);
    assert_int_equal(mn_state_machine_get(sm, "wave", &v, &err), MN_OK);
    assert_true(v == 0.0f);
    mn_state_machine_free(sm);
}

/* ---- §21: names ---------------------------------------------------------------------- */

static void unknown_names_and_bad_values_fail_loudly_and_change_nothing(void **state)
{
    (void)state;
    mn_sm_condition jump[] = {{"jump", MN_SM_TRIGGER, 0}};
    mn_sm_transition t[] = {{.from = 0, .to = 1, .conditions = fast, .condition_count = 1},
                            {.from = 0, .to = 2, .conditions = jump, .condition_count = 1}};
    mn_state_machine *sm = make_xyz(t, 2);
    mn_error err;
    float v = -1;
    assert_int_equal(mn_state_machine_set(sm, "sped", 2.0f, &err), MN_INVALID_VALUE);
    assert_non_null(strstr(err.message, "\"sped\""));
    assert_int_equal(mn_state_machine_set(sm, "Speed", 2.0f, &err), MN_INVALID_VALUE); /* case-sensitive */
    assert_int_equal(mn_state_machine_set(sm, "speed", NAN, &err), MN_NOT_FINITE);
    assert_int_equal(mn_state_machine_set(sm, "speed", INFINITY, &err), MN_NOT_FINITE);
    assert_int_equal(mn_state_machine_get(sm, "speed", &v, &err), MN_OK);
    assert_true(v == 0.0f); /* every value starts at 0 and the failures changed nothing */
    assert_int_equal(mn_state_machine_set(sm, "jump", 1.0f, &err), MN_INVALID_VALUE); /* set on a trigger */
    assert_int_equal(mn_state_machine_set_trigger(sm, "speed", &err), MN_INVALID_VALUE);
    assert_int_equal(mn_state_machine_set_trigger(sm, "nope", &err), MN_INVALID_VALUE);
    assert_int_equal(mn_state_machine_get(sm, "nope", &v, &err), MN_INVALID_VALUE);
    assert_int_equal(mn_state_machine_set(sm, NULL, 1.0f, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_state_machine_set(NULL, "speed", 1.0f, &err), MN_INVALID_ARGUMENT);
    update(sm, 0.1f);
    assert_int_equal(mn_state_machine_current(sm), 0);
    /* Values keep across updates and states. */
    set(sm, "speed", 2.0f);
    update(sm, 0.1f);
    update(sm, 0.1f);
    assert_int_equal(mn_state_machine_get(sm, "speed", &v, &err), MN_OK);
    assert_true(v == 2.0f);
    mn_state_machine_free(sm);
}

/* A lerp over "speed" between X and Y (node 2), and Z (node 3): the tree declares "speed". */
static mn_status speed_machine(const mn_sm_parameter *params, uint32_t param_count, const mn_sm_transition *t,
                               uint32_t count, mn_state_machine **sm, mn_error *err)
{
    mn_blend_node nodes[4] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = fx.x},
        {.kind = MN_BLEND_NODE_CLIP, .clip = fx.y},
        {.kind = MN_BLEND_NODE_LERP, .a = 0, .b = 1, .parameter = "speed"},
        {.kind = MN_BLEND_NODE_CLIP, .clip = fx.z},
    };
    static const mn_sm_state states[] = {{"move", 2}, {"Z", 3}};
    mn_state_machine_desc desc = {.nodes = nodes, .node_count = 4, .bind = &fx.bind,
                                  .parameters = params, .parameter_count = param_count,
                                  .states = states, .state_count = 2, .transitions = t,
                                  .transition_count = count};
    *sm = (mn_state_machine *)&desc;
    mn_status st = mn_state_machine_create(&desc, sm, err);
    if (st != MN_OK)
        assert_null(*sm);
    return st;
}

static void a_condition_on_an_undeclared_parameter_is_refused_naming_the_closest(void **state)
{
    (void)state;
    mn_error err;
    mn_state_machine *sm;
    static const mn_sm_parameter params[] = {{"jump", MN_SM_PARAM_TRIGGER, 0},
                                             {"grounded", MN_SM_PARAM_BOOL, 1}};
    /* The tree declares "speed"; "sped" would have become a parameter nothing sets. */
    mn_sm_condition sped[] = {{"sped", MN_SM_GREATER, 0.5f}};
    mn_sm_transition t[] = {{.from = 0, .to = 1, .conditions = sped, .condition_count = 1}};
    assert_int_equal(speed_machine(params, 2, t, 1, &sm, &err), MN_INVALID_VALUE);
    assert_string_equal(err.path, "transitions[0].conditions[0]");
    assert_non_null(strstr(err.message, "\"sped\""));
    assert_non_null(strstr(err.message, "did you mean \"speed\"?"));
    /* The machine's own names are suggested too: a trigger, a bool. */
    mn_sm_condition jmup[] = {{"grounded", MN_SM_EQUAL, 1.0f}, {"jmup", MN_SM_TRIGGER, 0}};
    t[0] = (mn_sm_transition){.from = 0, .to = 1, .conditions = jmup, .condition_count = 2};
    assert_int_equal(speed_machine(params, 2, t, 1, &sm, &err), MN_INVALID_VALUE);
    assert_string_equal(err.path, "transitions[0].conditions[1]");
    assert_non_null(strstr(err.message, "did you mean \"jump\"?"));
    mn_sm_condition grnd[] = {{"Grounded", MN_SM_EQUAL, 1.0f}};
    t[0] = (mn_sm_transition){.from = 0, .to = 1, .conditions = grnd, .condition_count = 1};
    assert_int_equal(speed_machine(params, 2, t, 1, &sm, &err), MN_INVALID_VALUE);
    assert_non_null(strstr(err.message, "did you mean \"grounded\"?"));
    /* Nothing near: refused all the same, with no guess. */
    mn_sm_condition far[] = {{"altitude", MN_SM_GREATER, 0.0f}};
    t[0] = (mn_sm_transition){.from = 0, .to = 1, .conditions = far, .condition_count = 1};
    assert_int_equal(speed_machine(params, 2, t, 1, &sm, &err), MN_INVALID_VALUE);
    assert_non_null(strstr(err.message, "\"altitude\""));
    assert_null(strstr(err.message, "did you mean"));
    /* Without declarations a machine's conditions may name only the tree's names. */
    mn_sm_condition fine[] = {{"speed", MN_SM_GREATER, 0.5f}};
    t[0] = (mn_sm_transition){.from = 0, .to = 1, .conditions = fine, .condition_count = 1};
    assert_int_equal(speed_machine(NULL, 0, t, 1, &sm, &err), MN_OK);
    set(sm, "speed", 0.75f);
    update(sm, 0.1f);
    assert_int_equal(mn_state_machine_current(sm), 1);
    mn_state_machine_free(sm);
}

static void setting_an_undeclared_parameter_is_refused_naming_the_closest(void **state)
{
    (void)state;
    mn_error err;
    mn_state_machine *sm;
    static const mn_sm_parameter params[] = {{"jump", MN_SM_PARAM_TRIGGER, 0},
                                             {"grounded", MN_SM_PARAM_BOOL, 1}};
    assert_int_equal(speed_machine(params, 2, NULL, 0, &sm, &err), MN_OK);
    float v = -1;
    assert_int_equal(mn_state_machine_set(sm, "sped", 1.0f, &err), MN_INVALID_VALUE);
    assert_non_null(strstr(err.message, "\"sped\""));
    assert_non_null(strstr(err.message, "did you mean \"speed\"?"));
    assert_string_equal(err.path, "sped");
    assert_int_equal(mn_state_machine_set_trigger(sm, "jmp", &err), MN_INVALID_VALUE);
    assert_non_null(strstr(err.message, "did you mean \"jump\"?"));
    assert_int_equal(mn_state_machine_get(sm, "grounde", &v, &err), MN_INVALID_VALUE);
    assert_non_null(strstr(err.message, "did you mean \"grounded\"?"));
    assert_int_equal(mn_state_machine_set(sm, "altitude", 1.0f, &err), MN_INVALID_VALUE);
    assert_null(strstr(err.message, "did you mean"));
    /* Known names in the wrong role say what they are instead of guessing. */
    assert_int_equal(mn_state_machine_set_trigger(sm, "grounded", &err), MN_INVALID_VALUE);
    assert_non_null(strstr(err.message, "bool"));
    assert_int_equal(mn_state_machine_set_trigger(sm, "speed", &err), MN_INVALID_VALUE);
    assert_null(strstr(err.message, "did you mean"));
    /* Nothing changed. */
    assert_int_equal(mn_state_machine_get(sm, "speed", &v, &err), MN_OK);
    assert_true(v == 0.0f);
    assert_int_equal(mn_state_machine_get(sm, "jump", &v, &err), MN_OK);
    assert_true(v == 0.0f);
    mn_state_machine_free(sm);
}

static void declared_parameters_start_at_their_values_and_keep_their_kinds(void **state)
{
    (void)state;
    mn_error err;
    mn_state_machine *sm;
    float v = -1;
    /* A float, a bool, a trigger declared set, and a starting value for the tree's "speed". */
    static const mn_sm_parameter params[] = {{"health", MN_SM_PARAM_FLOAT, 0.5f},
                                             {"grounded", MN_SM_PARAM_BOOL, 1},
                                             {"land", MN_SM_PARAM_TRIGGER, 1},
                                             {"speed", MN_SM_PARAM_FLOAT, 0.25f}};
    mn_sm_condition land[] = {{"land", MN_SM_TRIGGER, 0}, {"grounded", MN_SM_NOT_EQUAL, 0},
                              {"health", MN_SM_GREATER, 0.25f}};
    mn_sm_transition t[] = {{.from = 0, .to = 1, .conditions = land, .condition_count = 3}};
    assert_int_equal(speed_machine(params, 4, t, 1, &sm, &err), MN_OK);
    assert_int_equal(mn_state_machine_get(sm, "health", &v, &err), MN_OK);
    assert_true(v == 0.5f);
    assert_int_equal(mn_state_machine_get(sm, "grounded", &v, &err), MN_OK);
    assert_true(v == 1.0f);
    assert_int_equal(mn_state_machine_get(sm, "speed", &v, &err), MN_OK);
    assert_true(v == 0.25f);
    assert_shown(sm, 0, 0, 0); /* lerp(X, Y, 0.25) at time 0 */
    /* A bool takes 0 or 1 only; nothing changes otherwise. */
    assert_int_equal(mn_state_machine_set(sm, "grounded", 0.5f, &err), MN_INVALID_VALUE);
    assert_non_null(strstr(err.message, "\"grounded\""));
    assert_int_equal(mn_state_machine_get(sm, "grounded", &v, &err), MN_OK);
    assert_true(v == 1.0f);
    assert_int_equal(mn_state_machine_set(sm, "land", 1.0f, &err), MN_INVALID_VALUE);
    /* The trigger declared set fires at the first update and is consumed. */
    update(sm, 0.1f);
    assert_int_equal(mn_state_machine_current(sm), 1);
    assert_int_equal(mn_state_machine_get(sm, "land", &v, &err), MN_OK);
    assert_true(v == 0.0f);
    mn_state_machine_free(sm);

    /* Refused declarations, each naming the entry. */
    const struct { mn_sm_parameter p; mn_status code; } bad[] = {
        {{"grounded", MN_SM_PARAM_BOOL, 0.5f}, MN_INVALID_VALUE},   /* a bool starts at 0 or 1 */
        {{"land", MN_SM_PARAM_TRIGGER, 2.0f}, MN_INVALID_VALUE},
        {{"health", MN_SM_PARAM_FLOAT, NAN}, MN_NOT_FINITE},
        {{"speed", MN_SM_PARAM_BOOL, 0}, MN_INVALID_VALUE},         /* the tree's blend parameter */
        {{"speed", MN_SM_PARAM_TRIGGER, 0}, MN_INVALID_VALUE},
        {{"health", MN_SM_PARAM_INVALID, 0}, MN_INVALID_ARGUMENT},  /* a zeroed kind */
        {{"", MN_SM_PARAM_FLOAT, 0}, MN_INVALID_ARGUMENT},
        {{NULL, MN_SM_PARAM_FLOAT, 0}, MN_INVALID_ARGUMENT},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mn_sm_parameter one[2] = {{"ok", MN_SM_PARAM_FLOAT, 0}, bad[i].p};
        assert_int_equal(speed_machine(one, 2, NULL, 0, &sm, &err), bad[i].code);
        assert_string_equal(err.path, "parameters[1]");
    }
    mn_sm_parameter twice[] = {{"health", MN_SM_PARAM_FLOAT, 0}, {"health", MN_SM_PARAM_BOOL, 0}};
    assert_int_equal(speed_machine(twice, 2, NULL, 0, &sm, &err), MN_INVALID_VALUE);
    assert_non_null(strstr(err.message, "twice"));
    assert_int_equal(speed_machine(NULL, 1, NULL, 0, &sm, &err), MN_INVALID_ARGUMENT);
    assert_string_equal(err.path, "parameters");

    /* Conditions must fit the kind: a bool by == or != against 0 or 1; a trigger only as a trigger. */
    const mn_sm_condition wrong[] = {
        {"grounded", MN_SM_GREATER, 0.5f}, {"grounded", MN_SM_EQUAL, 2.0f}, {"land", MN_SM_EQUAL, 1.0f},
        {"health", MN_SM_TRIGGER, 0},      {"speed", MN_SM_TRIGGER, 0},
    };
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        t[0] = (mn_sm_transition){.from = 0, .to = 1, .conditions = &wrong[i], .condition_count = 1};
        assert_int_equal(speed_machine(params, 4, t, 1, &sm, &err), MN_INVALID_VALUE);
        assert_non_null(strstr(err.message, wrong[i].name));
    }
}

static void bad_dt_is_an_error_that_changes_nothing(void **state)
{
    (void)state;
    mn_state_machine *sm = make_xyz(NULL, 0);
    mn_error err;
    uint32_t total = 7;
    update(sm, 0.5f);
    assert_int_equal(mn_state_machine_update(sm, -0.1f, NULL, 0, &total, &err), MN_INVALID_VALUE);
    assert_int_equal(total, 0);
    assert_int_equal(mn_state_machine_update(sm, NAN, NULL, 0, NULL, &err), MN_NOT_FINITE);
    assert_int_equal(mn_state_machine_update(sm, INFINITY, NULL, 0, NULL, &err), MN_NOT_FINITE);
    assert_int_equal(mn_state_machine_update(NULL, 0.1f, NULL, 0, NULL, &err), MN_INVALID_ARGUMENT);
    assert_true(mn_state_machine_state_time(sm) == 0.5);
    mn_pose small;
    assert_int_equal(mn_pose_create(&small, 1, NULL, &err), MN_OK);
    assert_int_equal(mn_state_machine_evaluate(sm, &small, &err), MN_COUNT_MISMATCH);
    mn_pose_free(&small);
    mn_state_machine_free(sm);
}

static mn_status try_create(const mn_sm_transition *t, uint32_t count, const mn_sm_state *states,
                            uint32_t state_count, mn_error *err)
{
    mn_state_machine_desc desc = {.nodes = xyz_nodes(), .node_count = 3, .bind = &fx.bind,
                                  .parameters = xyz_params, .parameter_count = XYZ_PARAMS,
                                  .states = states, .state_count = state_count,
                                  .transitions = t, .transition_count = count};
    mn_state_machine *sm = (mn_state_machine *)&desc;
    mn_status st = mn_state_machine_create(&desc, &sm, err);
    if (st != MN_OK)
        assert_null(sm);
    mn_state_machine_free(sm);
    return st;
}

static void creation_refuses_bad_descriptions_naming_them(void **state)
{
    (void)state;
    mn_error err;
    /* A float named as a trigger, and a trigger compared: each name has its one declared kind. */
    mn_sm_condition as_trigger[] = {{"go", MN_SM_TRIGGER, 0}};
    mn_sm_condition as_param[] = {{"jump", MN_SM_GREATER, 0}};
    mn_sm_transition clash[] = {{.from = 0, .to = 1, .conditions = as_param, .condition_count = 1},
                                {.from = 1, .to = 2, .conditions = as_trigger, .condition_count = 1}};
    assert_int_equal(try_create(clash, 2, xyz_states, 3, &err), MN_INVALID_VALUE);
    assert_non_null(strstr(err.message, "\"jump\""));
    assert_string_equal(err.path, "transitions[0].conditions[0]");
    assert_int_equal(try_create(clash + 1, 1, xyz_states, 3, &err), MN_INVALID_VALUE);
    assert_non_null(strstr(err.message, "\"go\""));
    /* Negative duration or exit time, non-finite constants. */
    mn_sm_transition neg[] = {{.from = 0, .to = 1, .duration = -1.0f}};
    assert_int_equal(try_create(neg, 1, xyz_states, 3, &err), MN_INVALID_VALUE);
    assert_string_equal(err.path, "transitions[0]");
    mn_sm_transition nexit[] = {{.from = 0, .to = 1, .has_exit_time = true, .exit_time = -0.1f}};
    assert_int_equal(try_create(nexit, 1, xyz_states, 3, &err), MN_INVALID_VALUE);
    mn_sm_transition nan_dur[] = {{.from = 0, .to = 1, .duration = NAN}};
    assert_int_equal(try_create(nan_dur, 1, xyz_states, 3, &err), MN_NOT_FINITE);
    mn_sm_condition nan_c[] = {{"v", MN_SM_LESS, NAN}};
    mn_sm_transition nan_t[] = {{.from = 0, .to = 1, .conditions = nan_c, .condition_count = 1}};
    assert_int_equal(try_create(nan_t, 1, xyz_states, 3, &err), MN_NOT_FINITE);
    assert_string_equal(err.path, "transitions[0].conditions[0]");
    /* Invalid op (a zeroed condition), empty name, NULL conditions with a count. */
    mn_sm_condition zero[] = {{"v", MN_SM_CONDITION_INVALID, 0}};
    mn_sm_transition zt[] = {{.from = 0, .to = 1, .conditions = zero, .condition_count = 1}};
    assert_int_equal(try_create(zt, 1, xyz_states, 3, &err), MN_INVALID_ARGUMENT);
    mn_sm_condition empty[] = {{"", MN_SM_LESS, 0}};
    mn_sm_transition et[] = {{.from = 0, .to = 1, .conditions = empty, .condition_count = 1}};
    assert_int_equal(try_create(et, 1, xyz_states, 3, &err), MN_INVALID_ARGUMENT);
    mn_sm_transition nullc[] = {{.from = 0, .to = 1, .condition_count = 2}};
    assert_int_equal(try_create(nullc, 1, xyz_states, 3, &err), MN_INVALID_ARGUMENT);
    /* Out-of-range states and nodes. */
    mn_sm_transition far[] = {{.from = 0, .to = 3}};
    assert_int_equal(try_create(far, 1, xyz_states, 3, &err), MN_INDEX_RANGE);
    mn_sm_state bad_node[] = {{"X", 0}, {"Q", 9}};
    assert_int_equal(try_create(NULL, 0, bad_node, 2, &err), MN_INDEX_RANGE);
    assert_string_equal(err.path, "states[1]");
    mn_sm_state bad_first[] = {{"Q", 9}};
    assert_int_equal(try_create(NULL, 0, bad_first, 1, &err), MN_INDEX_RANGE);
    /* Names of states: non-empty and unique. */
    mn_sm_state twice[] = {{"X", 0}, {"X", 1}};
    assert_int_equal(try_create(NULL, 0, twice, 2, &err), MN_INVALID_ARGUMENT);
    mn_sm_state unnamed[] = {{NULL, 0}};
    assert_int_equal(try_create(NULL, 0, unnamed, 1, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(try_create(NULL, 0, xyz_states, 0, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(try_create(NULL, 3, xyz_states, 3, &err), MN_INVALID_ARGUMENT);
    mn_state_machine *sm = NULL;
    assert_int_equal(mn_state_machine_create(NULL, &sm, &err), MN_INVALID_ARGUMENT);
}

static void a_trigger_may_not_be_a_tree_parameter_or_clock(void **state)
{
    (void)state;
    mn_error err;
    mn_blend_node nodes[4] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = fx.x, .clock = "distance"},
        {.kind = MN_BLEND_NODE_CLIP, .clip = fx.y},
        {.kind = MN_BLEND_NODE_LERP, .a = 0, .b = 1, .parameter = "mix"},
        {.kind = MN_BLEND_NODE_CLIP, .clip = fx.z},
    };
    mn_sm_state states[] = {{"L", 2}, {"Z", 3}};
    const char *names[] = {"distance", "mix"};
    for (int i = 0; i < 2; i++) {
        mn_sm_condition c[] = {{names[i], MN_SM_TRIGGER, 0}};
        mn_sm_transition t[] = {{.from = 0, .to = 1, .conditions = c, .condition_count = 1}};
        mn_state_machine_desc desc = {.nodes = nodes, .node_count = 4, .bind = &fx.bind, .states = states,
                                      .state_count = 2, .transitions = t, .transition_count = 1};
        mn_state_machine *sm = NULL;
        assert_int_equal(mn_state_machine_create(&desc, &sm, &err), MN_INVALID_VALUE);
        assert_non_null(strstr(err.message, names[i]));
        assert_null(sm);
    }
    /* Comparisons may read tree parameters and clocks; both are set through the machine. */
    mn_sm_condition c[] = {{"distance", MN_SM_GREATER_EQUAL, 3.0f}, {"mix", MN_SM_LESS, 0.5f}};
    mn_sm_transition t[] = {{.from = 0, .to = 1, .conditions = c, .condition_count = 2}};
    mn_state_machine_desc desc = {.nodes = nodes, .node_count = 4, .bind = &fx.bind, .states = states,
                                  .state_count = 2, .transitions = t, .transition_count = 1};
    mn_state_machine *sm = NULL;
    assert_int_equal(mn_state_machine_create(&desc, &sm, &err), MN_OK);
    set(sm, "distance", 2.0f);
    set(sm, "mix", 0.25f);
    /* State L: lerp(X at its clock 2.0, Y at frame time, 0.25). */
    update(sm, 0.5f);
    assert_int_equal(mn_state_machine_current(sm), 0);
    assert_shown(sm, 2.0 * 0.75, 0.5 * 0.25, 0);
    set(sm, "distance", 3.0f);
    update(sm, 0.5f);
    assert_int_equal(mn_state_machine_current(sm), 1);
    mn_state_machine_free(sm);
}

/* ---- §10: interruption --------------------------------------------------------------- */

static mn_state_machine *make_chain(void)
{
    static const mn_sm_condition go1[] = {{"go1", MN_SM_TRIGGER, 0}};
    static const mn_sm_condition go2[] = {{"go2", MN_SM_TRIGGER, 0}};
    static const mn_sm_transition t[] = {
        {.from = 0, .to = 1, .duration = 1.0f, .conditions = go1, .condition_count = 1},
        {.from = 1, .to = 2, .duration = 1.0f, .conditions = go2, .condition_count = 1},
    };
    return make_xyz(t, 2);
}

static void interruption_freezes_the_shown_pose_and_is_continuous(void **state)
{
    (void)state;
    mn_state_machine *a = make_chain(), *b = make_chain();
    mn_state_machine *both[2] = {a, b};
    for (int m = 0; m < 2; m++) {
        update(both[m], 0.5f);
        trigger(both[m], "go1");
        update(both[m], 0.25f); /* X at 0.75 -> Y fires */
        update(both[m], 0.25f); /* X 1.0, Y 0.25, w 0.25 */
    }
    trigger(a, "go2");
    update(a, 0.25f); /* a: interrupted after step 1 */
    update(b, 0.25f); /* b: the same update, not interrupted */
    assert_int_equal(mn_state_machine_current(a), 2);
    assert_true(mn_state_machine_fading(a));
    assert_int_equal(mn_state_machine_source(a), MN_NONE); /* a frozen pose, not a live state */
    /* Continuous: a shows exactly what b shows (X 1.25 by 0.5, Y 0.5 by 0.5). */
    float ta[3], tb[3];
    shown(a, ta);
    shown(b, tb);
    assert_memory_equal(ta, tb, sizeof ta);
    assert_float_near(ta[0], 1.25 * 0.5, 1e-6);
    assert_float_near(ta[1], 0.5 * 0.5, 1e-6);
    /* The frozen pose never advances: fade from it to Z. */
    update(a, 0.25f);
    assert_shown(a, 0.625 * 0.75, 0.25 * 0.75, 0.25 * 0.25);
    update(a, 0.5f);
    assert_shown(a, 0.625 * 0.25, 0.25 * 0.25, 0.75 * 0.75);
    update(a, 0.25f);
    assert_false(mn_state_machine_fading(a));
    assert_shown(a, 0, 0, 1.0);
    mn_state_machine_free(a);
    mn_state_machine_free(b);
}

static mn_state_machine *make_cycle(void)
{
    static const mn_sm_condition go[3][1] = {{{"go1", MN_SM_TRIGGER, 0}}, {{"go2", MN_SM_TRIGGER, 0}},
                                             {{"go3", MN_SM_TRIGGER, 0}}};
    static const mn_sm_transition t[] = {
        {.from = 0, .to = 1, .duration = 1.0f, .conditions = go[0], .condition_count = 1},
        {.from = 1, .to = 2, .duration = 1.0f, .conditions = go[1], .condition_count = 1},
        {.from = 2, .to = 0, .duration = 1.0f, .conditions = go[2], .condition_count = 1},
    };
    return make_xyz(t, 3);
}

static void interrupting_a_frozen_fade_freezes_again(void **state)
{
    (void)state;
    /* X -> Y, interrupted by Y -> Z, interrupted by Z -> X: each interruption continuous. */
    const char *go[3] = {"go1", "go2", "go3"};
    for (int depth = 1; depth < 3; depth++) {
        mn_state_machine *a = make_cycle(), *b = make_cycle();
        mn_state_machine *both[2] = {a, b};
        for (int m = 0; m < 2; m++) {
            update(both[m], 0.5f);
            for (int i = 0; i < depth; i++) {
                trigger(both[m], go[i]);
                update(both[m], 0.25f);
                update(both[m], 0.25f);
            }
        }
        trigger(a, go[depth]);
        update(a, 0.25f);
        update(b, 0.25f);
        assert_int_equal(mn_state_machine_current(a), (depth + 1) % 3);
        assert_int_equal(mn_state_machine_source(a), MN_NONE);
        float ta[3], tb[3];
        shown(a, ta);
        shown(b, tb);
        assert_memory_equal(ta, tb, sizeof ta);
        /* Then the fade runs from that frozen pose to the new state, linearly. */
        update(a, 0.5f);
        float tc[3];
        shown(a, tc);
        float dest[3] = {0, 0, 0};
        dest[(depth + 1) % 3] = 0.5f;
        for (int i = 0; i < 3; i++)
            assert_float_near(tc[i], ta[i] * 0.5f + dest[i] * 0.5f, 1e-6);
        mn_state_machine_free(a);
        mn_state_machine_free(b);
    }
}

static void a_transition_with_no_fade_running_fades_from_the_live_state(void **state)
{
    (void)state;
    mn_sm_condition c[] = {{"again", MN_SM_TRIGGER, 0}};
    mn_sm_transition t[] = {{.from = 0, .to = 0, .duration = 1.0f, .conditions = c, .condition_count = 1}};
    mn_state_machine *sm = make_xyz(t, 1);
    update(sm, 2.0f);
    trigger(sm, "again");
    update(sm, 0.5f); /* X restarts; the old X (at 2.5) is a live source */
    assert_int_equal(mn_state_machine_source(sm), 0);
    assert_int_equal(mn_state_machine_current(sm), 0);
    update(sm, 0.5f);
    /* Live: the source advanced to 3.0; the new X is at 0.5; weight 0.5. */
    assert_shown(sm, 3.0 * 0.5 + 0.5 * 0.5, 0, 0);
    mn_state_machine_free(sm);
}

/* ---- determinism ------------------------------------------------------------------------ */

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static void same_calls_give_the_same_poses_bit_for_bit(void **state)
{
    (void)state;
    mn_sm_condition f[] = {{"speed", MN_SM_GREATER, 0.5f}};
    mn_sm_condition s[] = {{"speed", MN_SM_LESS_EQUAL, 0.5f}};
    mn_sm_condition j[] = {{"jump", MN_SM_TRIGGER, 0}};
    mn_sm_transition t[] = {
        {.from = 0, .to = 1, .duration = 0.3f, .conditions = f, .condition_count = 1},
        {.from = 1, .to = 0, .duration = 0.2f, .conditions = s, .condition_count = 1},
        {.from = 1, .to = 2, .duration = 0.1f, .conditions = j, .condition_count = 1, .priority = -1},
        {.from = 2, .to = 0, .duration = 0.4f, .has_exit_time = true, .exit_time = 0.35f},
    };
    mn_state_machine *m[2] = {make_xyz(t, 4), make_xyz(t, 4)};
    mn_pose p[2];
    mn_error err;
    for (int i = 0; i < 2; i++)
        assert_int_equal(mn_pose_create(&p[i], JOINTS, NULL, &err), MN_OK);
    uint32_t seed = 12345;
    int fades = 0;
    for (int step = 0; step < 500; step++) {
        uint32_t r = lcg(&seed);
        float dt = (float)(r % 100) / 1000.0f;
        float speed = (float)((r >> 8) % 10) / 10.0f;
        bool jump = (r >> 16) % 7 == 0;
        for (int i = 0; i < 2; i++) {
            set(m[i], "speed", speed);
            if (jump)
                trigger(m[i], "jump");
            update(m[i], dt);
            assert_int_equal(mn_state_machine_evaluate(m[i], &p[i], &err), MN_OK);
        }
        fades += mn_state_machine_fading(m[0]);
        assert_int_equal(mn_state_machine_current(m[0]), mn_state_machine_current(m[1]));
        assert_memory_equal(p[0].translations, p[1].translations, JOINTS * 3 * sizeof(float));
        assert_memory_equal(p[0].rotations, p[1].rotations, JOINTS * 4 * sizeof(float));
        assert_memory_equal(p[0].scales, p[1].scales, JOINTS * 3 * sizeof(float));
    }
    assert_true(fades > 50); /* the sequence exercised fades, not only idle */
    for (int i = 0; i < 2; i++) {
        mn_pose_free(&p[i]);
        mn_state_machine_free(m[i]);
    }
}

static void evaluate_writes_every_channel_from_the_bind_pose(void **state)
{
    (void)state;
    mn_sm_transition t[] = {{.from = 0, .to = 1, .duration = 1.0f}};
    mn_state_machine *sm = make_xyz(t, 1);
    mn_pose out;
    mn_error err;
    assert_int_equal(mn_pose_create(&out, JOINTS, NULL, &err), MN_OK);
    update(sm, 0.1f);
    update(sm, 0.1f); /* mid-fade */
    for (uint32_t i = 0; i < JOINTS * 3; i++)
        out.translations[i] = out.scales[i] = 99.0f;
    for (uint32_t i = 0; i < JOINTS * 4; i++)
        out.rotations[i] = 99.0f;
    assert_int_equal(mn_state_machine_evaluate(sm, &out, &err), MN_OK);
    const float bind1[3] = {5, 6, 7}, one[3] = {1, 1, 1}, ident[4] = {0, 0, 0, 1};
    assert_memory_equal(out.translations + 3, bind1, sizeof bind1);
    assert_memory_equal(out.scales + 3, one, sizeof one);
    assert_memory_equal(out.rotations, ident, sizeof ident);
    assert_memory_equal(out.rotations + 4, ident, sizeof ident);
    mn_pose_free(&out);
    mn_state_machine_free(sm);
}

/* ---- §11: phases in a machine ----------------------------------------------------------- */

/* Node 2 is a synced 1D set of walk (at 0) and run (at 1) over "speed"; node 3 is X. */
static mn_state_machine *make_sync(const mn_sm_transition *t, uint32_t count,
                                   const mn_clip_events *const *node_events)
{
    static const uint32_t children[2] = {0, 1};
    static const float at[2] = {0.0f, 1.0f};
    mn_blend_node nodes[4] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = fx.walk},
        {.kind = MN_BLEND_NODE_CLIP, .clip = fx.run},
        {.kind = MN_BLEND_NODE_1D, .parameter = "speed", .children = children, .child_count = 2,
         .positions = at, .sync = true},
        {.kind = MN_BLEND_NODE_CLIP, .clip = fx.x, .loop = true},
    };
    mn_sm_state states[] = {{"move", 2}, {"X", 3}};
    static const mn_sm_parameter params[] = {{"away", MN_SM_PARAM_TRIGGER, 0}, {"back", MN_SM_PARAM_TRIGGER, 0}};
    mn_state_machine_desc desc = {.nodes = nodes, .node_count = 4, .bind = &fx.bind, .states = states,
                                  .state_count = 2, .transitions = t, .transition_count = count,
                                  .node_events = node_events, .parameters = params, .parameter_count = 2};
    mn_state_machine *sm = NULL;
    mn_error err;
    mn_status st = mn_state_machine_create(&desc, &sm, &err);
    if (st != MN_OK)
        print_error("create: %s\n", err.message);
    assert_int_equal(st, MN_OK);
    return sm;
}

static void synced_phase_advances_by_dt_over_the_weighted_period(void **state)
{
    (void)state;
    mn_state_machine *sm = make_sync(NULL, 0, NULL);
    set(sm, "speed", 0.5f);
    /* The decisions' example: D = 0.75, φ = 0.4: walk at 0.4 s, run at 0.2 s, each by ½. */
    update(sm, 0.3f);
    assert_shown(sm, 0.4 * 0.5, 0.2 * 0.5, 0);
    /* With the parameter moved, φ goes on from 0.4 by dt / D(new): no jump. */
    set(sm, "speed", 0.0f); /* walk alone, D = 1 */
    update(sm, 0.1f);
    assert_shown(sm, 0.5, 0, 0);
    set(sm, "speed", 1.0f); /* run alone, D = 0.5: φ 0.5 + 0.2 = 0.7 -> run at 0.35 */
    update(sm, 0.1f);
    assert_shown(sm, 0, 0.35, 0);
    mn_state_machine_free(sm);
}

static void phases_restart_at_zero_when_a_state_is_entered(void **state)
{
    (void)state;
    mn_sm_condition away[] = {{"away", MN_SM_TRIGGER, 0}};
    mn_sm_condition back[] = {{"back", MN_SM_TRIGGER, 0}};
    mn_sm_transition t[] = {{.from = 0, .to = 1, .conditions = away, .condition_count = 1},
                            {.from = 1, .to = 0, .conditions = back, .condition_count = 1}};
    mn_state_machine *sm = make_sync(t, 2, NULL);
    update(sm, 0.3f); /* speed 0: walk, φ 0.3 */
    assert_shown(sm, 0.3, 0, 0);
    trigger(sm, "away");
    update(sm, 0.1f);
    trigger(sm, "back");
    update(sm, 0.1f);
    assert_shown(sm, 0, 0, 0); /* entered at φ 0 */
    update(sm, 0.25f);
    assert_shown(sm, 0.25, 0, 0);
    mn_state_machine_free(sm);
}

/* ---- §17: events through the machine ------------------------------------------------------ */

static mn_clip_events *track(const mn_event_key *keys, uint32_t n)
{
    mn_clip_events *ev = NULL;
    mn_error err;
    assert_int_equal(mn_clip_events_create(keys, n, NULL, &ev, &err), MN_OK);
    return ev;
}

/* Update and return the names reported, space-separated, and the total. */
static uint32_t update_events(mn_state_machine *sm, float dt, char *buf, size_t size, mn_event *out,
                              uint32_t cap)
{
    mn_error err;
    uint32_t total = 0;
    assert_int_equal(mn_state_machine_update(sm, dt, out, cap, &total, &err), MN_OK);
    buf[0] = '\0';
    for (uint32_t i = 0; i < total && i < cap; i++) {
        if (i)
            strncat(buf, " ", size - strlen(buf) - 1);
        strncat(buf, out[i].name, size - strlen(buf) - 1);
    }
    return total;
}

static void events_on_a_looping_leaf_fire_once_per_wrap(void **state)
{
    (void)state;
    /* X loops every 10 s; events at 0 ("start"), 2.5 and 10 ("end"). */
    mn_clip_events *ev = track((mn_event_key[]){{"start", 0.0f}, {"mid", 2.5f}, {"end", 10.0f}}, 3);
    const mn_clip_events *node_events[4] = {NULL, NULL, NULL, ev};
    mn_sm_transition t[] = {{.from = 0, .to = 1}};
    mn_state_machine *sm = make_sync(t, 1, node_events);
    mn_event out[16];
    char buf[256];
    update(sm, 0.1f); /* enter X: an empty span, so "start" has not fired */
    assert_int_equal(mn_state_machine_current(sm), 1);
    /* The event at 0 fires on the next update; so does the one at d, whose
       occurrences e + k·d include 10 − 10 = 0 (§17: both fire at a wrap, and 0 is one). */
    assert_int_equal(update_events(sm, 1.0f, buf, sizeof buf, out, 16), 2);
    assert_string_equal(buf, "start end");
    assert_int_equal(out[0].state, 1);
    assert_int_equal(out[0].leaf, 0);
    assert_true(out[1].at == 0.0 && out[1].time == 10.0f);
    assert_int_equal(update_events(sm, 0.0f, buf, sizeof buf, out, 16), 0); /* dt = 0: nothing */
    assert_int_equal(update_events(sm, 2.0f, buf, sizeof buf, out, 16), 1);  /* [1, 3) */
    assert_string_equal(buf, "mid");
    /* Several wraps in one update: [3, 25): 10 (start, end), 12.5, 20 (start, end), 22.5. */
    assert_int_equal(update_events(sm, 22.0f, buf, sizeof buf, out, 16), 6);
    assert_string_equal(buf, "start end mid start end mid");
    assert_true(out[0].at == 10.0 && out[5].at == 22.5);
    /* Capacity: the first in order, the total returned. */
    assert_int_equal(update_events(sm, 20.0f, buf, sizeof buf, out, 2), 6);
    assert_string_equal(buf, "start end");
    mn_state_machine_free(sm);
    mn_clip_events_free(ev);
}

static void synced_leaves_report_over_their_phase_span(void **state)
{
    (void)state;
    mn_clip_events *steps = track((mn_event_key[]){{"walk_step", 0.5f}}, 1);
    mn_clip_events *runs = track((mn_event_key[]){{"run_step", 0.25f}}, 1);
    const mn_clip_events *node_events[4] = {steps, runs, NULL, NULL};
    mn_state_machine *sm = make_sync(NULL, 0, node_events);
    set(sm, "speed", 0.5f);
    mn_event out[8];
    char buf[256];
    /* φ 0 -> 0.4: walk [0, 0.4), run [0, 0.2): nothing. */
    assert_int_equal(update_events(sm, 0.3f, buf, sizeof buf, out, 8), 0);
    /* φ 0.4 -> 0.6: walk [0.4, 0.6) crosses 0.5, run [0.2, 0.3) crosses 0.25; same fraction ½:
       leaf order breaks the tie (walk is leaf 0). */
    assert_int_equal(update_events(sm, 0.15f, buf, sizeof buf, out, 8), 2);
    assert_string_equal(buf, "walk_step run_step");
    assert_int_equal(out[0].leaf, 0);
    assert_int_equal(out[1].leaf, 1);
    /* φ 0.6 -> 2.6: two more cycles, each foot twice, in phase order. */
    assert_int_equal(update_events(sm, 1.5f, buf, sizeof buf, out, 8), 4);
    assert_string_equal(buf, "walk_step run_step walk_step run_step");
    mn_state_machine_free(sm);
    mn_clip_events_free(steps);
    mn_clip_events_free(runs);
}

static void a_live_source_reports_before_the_destination_and_a_frozen_one_never(void **state)
{
    (void)state;
    mn_clip_events *xe = track((mn_event_key[]){{"x1", 1.0f}, {"x2", 2.0f}, {"x3", 3.0f}}, 3);
    mn_clip_events *ye = track((mn_event_key[]){{"y", 0.5f}}, 1);
    mn_clip_events *ze = track((mn_event_key[]){{"z", 0.25f}}, 1);
    const mn_clip_events *node_events[3] = {xe, ye, ze};
    static const mn_sm_condition go1[] = {{"go1", MN_SM_TRIGGER, 0}};
    static const mn_sm_condition go2[] = {{"go2", MN_SM_TRIGGER, 0}};
    mn_sm_transition t[] = {
        {.from = 0, .to = 1, .duration = 2.0f, .conditions = go1, .condition_count = 1},
        {.from = 1, .to = 2, .duration = 2.0f, .conditions = go2, .condition_count = 1},
    };
    mn_state_machine_desc desc = {.nodes = xyz_nodes(), .node_count = 3, .bind = &fx.bind,
                                  .node_events = node_events, .parameters = xyz_params,
                                  .parameter_count = XYZ_PARAMS, .states = xyz_states, .state_count = 3,
                                  .transitions = t, .transition_count = 2};
    mn_state_machine *sm = NULL;
    mn_error err;
    assert_int_equal(mn_state_machine_create(&desc, &sm, &err), MN_OK);
    mn_event out[8];
    char buf[256];
    assert_int_equal(update_events(sm, 0.5f, buf, sizeof buf, out, 8), 0);
    trigger(sm, "go1");
    /* X [0.5, 1.5) crosses x1; X is current during step 1, so it reports; then Y is entered. */
    assert_int_equal(update_events(sm, 1.0f, buf, sizeof buf, out, 8), 1);
    assert_string_equal(buf, "x1");
    /* X live source [1.5, 2.5) crosses x2 at fraction ½; Y [0, 1) crosses y at ½: source first. */
    assert_int_equal(update_events(sm, 1.0f, buf, sizeof buf, out, 8), 2);
    assert_string_equal(buf, "x2 y");
    assert_int_equal(out[0].state, 0);
    assert_int_equal(out[1].state, 1);
    /* Interrupt: Y -> Z while fading.  Step 1 still advanced the live X [2.5, 2.75): nothing. */
    trigger(sm, "go2");
    assert_int_equal(update_events(sm, 0.25f, buf, sizeof buf, out, 8), 0);
    assert_int_equal(mn_state_machine_source(sm), MN_NONE);
    /* From now on the frozen source reports nothing (X would have crossed x3 at 3.0). */
    assert_int_equal(update_events(sm, 0.5f, buf, sizeof buf, out, 8), 1);
    assert_string_equal(buf, "z");
    mn_state_machine_free(sm);
    mn_clip_events_free(xe);
    mn_clip_events_free(ye);
    mn_clip_events_free(ze);
}

static void a_named_clock_leaf_reports_between_its_values_at_updates(void **state)
{
    (void)state;
    mn_clip_events *ev = track((mn_event_key[]){{"plant", 0.75f}}, 1);
    mn_blend_node nodes[1] = {{.kind = MN_BLEND_NODE_CLIP, .clip = fx.walk, .clock = "stride", .loop = true}};
    const mn_clip_events *node_events[1] = {ev};
    mn_sm_state states[] = {{"walk", 0}};
    mn_state_machine_desc desc = {.nodes = nodes, .node_count = 1, .bind = &fx.bind, .node_events = node_events,
                                  .states = states, .state_count = 1};
    mn_state_machine *sm = NULL;
    mn_error err;
    assert_int_equal(mn_state_machine_create(&desc, &sm, &err), MN_OK);
    mn_event out[8];
    char buf[64];
    set(sm, "stride", 0.5f);
    assert_int_equal(update_events(sm, 0.1f, buf, sizeof buf, out, 8), 0); /* [0, 0.5) */
    set(sm, "stride", 3.5f);
    /* [0.5, 3.5) on a 1 s loop: 0.75, 1.75, 2.75. */
    assert_int_equal(update_events(sm, 0.1f, buf, sizeof buf, out, 8), 3);
    assert_true(out[2].at == 2.75);
    /* A clock set backwards crosses nothing, and the next span starts from where it now is. */
    set(sm, "stride", 0.2f);
    assert_int_equal(update_events(sm, 0.1f, buf, sizeof buf, out, 8), 0);
    set(sm, "stride", 1.2f);
    assert_int_equal(update_events(sm, 0.1f, buf, sizeof buf, out, 8), 1);
    /* dt = 0 reports nothing, even with the clock moved; the next update with time reports it. */
    set(sm, "stride", 1.8f);
    assert_int_equal(update_events(sm, 0.0f, buf, sizeof buf, out, 8), 0);
    assert_int_equal(update_events(sm, 0.1f, buf, sizeof buf, out, 8), 1);
    assert_true(out[0].at == 1.75);
    mn_state_machine_free(sm);
    mn_clip_events_free(ev);
}

static void events_on_a_node_that_is_not_a_clip_are_refused(void **state)
{
    (void)state;
    mn_clip_events *ev = track((mn_event_key[]){{"e", 0.0f}}, 1);
    const mn_clip_events *node_events[4] = {NULL, NULL, ev, NULL};
    static const uint32_t children[2] = {0, 1};
    static const float at[2] = {0.0f, 1.0f};
    mn_blend_node nodes[3] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = fx.walk},
        {.kind = MN_BLEND_NODE_CLIP, .clip = fx.run},
        {.kind = MN_BLEND_NODE_1D, .parameter = "speed", .children = children, .child_count = 2, .positions = at},
    };
    mn_sm_state states[] = {{"move", 2}};
    mn_state_machine_desc desc = {.nodes = nodes, .node_count = 3, .bind = &fx.bind, .node_events = node_events,
                                  .states = states, .state_count = 1};
    mn_state_machine *sm = NULL;
    mn_error err;
    assert_int_equal(mn_state_machine_create(&desc, &sm, &err), MN_INVALID_ARGUMENT);
    assert_string_equal(err.path, "node_events[2]");
    mn_clip_events_free(ev);
}

static void huge_times_are_reported_not_crashed_on(void **state)
{
    (void)state;
    mn_clip_events *ev = track((mn_event_key[]){{"tick", 1.0f}}, 1);
    const mn_clip_events *node_events[4] = {NULL, NULL, NULL, ev};
    mn_sm_transition t[] = {{.from = 0, .to = 1}};
    mn_state_machine *sm = make_sync(t, 1, node_events);
    mn_event out[4];
    mn_error err;
    uint32_t total = 0;
    update(sm, 0.1f); /* into the looping X */
    /* 3.4e38 s of a 10 s loop: the count saturates, the first occurrences are written. */
    assert_int_equal(mn_state_machine_update(sm, FLT_MAX, out, 4, &total, &err), MN_OK);
    assert_int_equal(total, UINT32_MAX);
    assert_string_equal(out[0].name, "tick");
    assert_true(out[0].at == 1.0);
    /* Past the float range the state time cannot be sampled: evaluate says so. */
    assert_int_equal(mn_state_machine_update(sm, FLT_MAX, out, 4, &total, &err), MN_OK);
    mn_pose pose;
    assert_int_equal(mn_pose_create(&pose, JOINTS, NULL, &err), MN_OK);
    assert_int_equal(mn_state_machine_evaluate(sm, &pose, &err), MN_NOT_FINITE);
    mn_pose_free(&pose);
    mn_state_machine_free(sm);
    mn_clip_events_free(ev);
}

/* ---- memory -------------------------------------------------------------------------------- */

static mn_status create_counted(mn_counting_alloc *counter, const mn_clip_events *const *node_events,
                                mn_state_machine **sm, mn_error *err)
{
    static const uint32_t children[2] = {0, 1};
    static const float at[2] = {0.0f, 1.0f};
    static mn_sm_condition f[] = {{"speed", MN_SM_GREATER, 0.5f}};
    static mn_sm_condition j[] = {{"jump", MN_SM_TRIGGER, 0}, {"grounded", MN_SM_EQUAL, 1.0f}};
    mn_blend_node nodes[4] = {
        {.kind = MN_BLEND_NODE_CLIP, .clip = fx.walk},
        {.kind = MN_BLEND_NODE_CLIP, .clip = fx.run},
        {.kind = MN_BLEND_NODE_1D, .parameter = "speed", .children = children, .child_count = 2,
         .positions = at, .sync = true},
        {.kind = MN_BLEND_NODE_CLIP, .clip = fx.x, .loop = true},
    };
    mn_sm_state states[] = {{"move", 2}, {"X", 3}};
    mn_sm_transition t[] = {{.from = 1, .to = 0, .duration = 0.3f, .conditions = f, .condition_count = 1},
                            {.from = 0, .to = 1, .duration = 0.2f, .conditions = j, .condition_count = 2}};
    static const mn_sm_parameter params[] = {{"jump", MN_SM_PARAM_TRIGGER, 0},
                                             {"grounded", MN_SM_PARAM_BOOL, 1}};
    mn_state_machine_desc desc = {.nodes = nodes, .node_count = 4, .bind = &fx.bind, .states = states,
                                  .state_count = 2, .transitions = t, .transition_count = 2,
                                  .node_events = node_events, .parameters = params, .parameter_count = 2,
                                  .allocator = mn_counting_allocator(counter)};
    return mn_state_machine_create(&desc, sm, err);
}

static void update_and_evaluate_allocate_nothing(void **state)
{
    (void)state;
    mn_clip_events *ev = track((mn_event_key[]){{"a", 0.0f}, {"b", 0.5f}}, 2);
    const mn_clip_events *node_events[4] = {ev, ev, NULL, ev};
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_state_machine *sm = NULL;
    mn_error err;
    assert_int_equal(create_counted(&counter, node_events, &sm, &err), MN_OK);
    mn_pose pose;
    assert_int_equal(mn_pose_create(&pose, JOINTS, NULL, &err), MN_OK);
    size_t allocs = counter.allocs;
    mn_event out[16];
    uint32_t seed = 7, fired = 0;
    for (int i = 0; i < 300; i++) {
        uint32_t r = lcg(&seed);
        set(sm, "speed", (float)(r % 10) / 10.0f);
        set(sm, "grounded", (float)((r >> 4) % 2));
        if ((r >> 8) % 5 == 0)
            trigger(sm, "jump");
        uint32_t n = 0;
        assert_int_equal(mn_state_machine_update(sm, 0.05f, out, 16, &n, &err), MN_OK);
        fired += n;
        assert_int_equal(mn_state_machine_evaluate(sm, &pose, &err), MN_OK);
    }
    assert_true(fired > 0);
    assert_int_equal(counter.allocs, allocs);
    mn_pose_free(&pose);
    mn_state_machine_free(sm);
    assert_int_equal(counter.live_bytes, 0);

    /* Every out-of-memory path during creation is reported and leaks nothing. */
    for (long n = 0;; n++) {
        counter = mn_counting_alloc_make();
        counter.fail_after = n;
        sm = NULL;
        mn_status st = create_counted(&counter, node_events, &sm, &err);
        if (st == MN_OK) {
            mn_state_machine_free(sm);
            assert_int_equal(counter.live_bytes, 0);
            break;
        }
        assert_int_equal(st, MN_OUT_OF_MEMORY);
        assert_null(sm);
        assert_int_equal(counter.live_bytes, 0);
    }
    mn_clip_events_free(ev);
}

static void queries(void **state)
{
    (void)state;
    mn_state_machine *sm = make_xyz(NULL, 0);
    assert_int_equal(mn_state_machine_state_count(sm), 3);
    assert_string_equal(mn_state_machine_state_name(sm, 2), "Z");
    assert_null(mn_state_machine_state_name(sm, 3));
    assert_int_equal(mn_state_machine_find_state(sm, "Y"), 1);
    assert_int_equal(mn_state_machine_find_state(sm, "y"), MN_NONE);
    assert_int_equal(mn_state_machine_joint_count(sm), JOINTS);
    assert_non_null(mn_state_machine_tree(sm));
    assert_int_equal(mn_state_machine_current(NULL), MN_NONE);
    mn_state_machine_free(sm);
    mn_state_machine_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(starts_in_the_first_state_at_time_zero),
        cmocka_unit_test(advance_then_check_and_the_firing_update_shows_the_old_pose),
        cmocka_unit_test(at_most_one_transition_per_update),
        cmocka_unit_test(priority_then_declaration_order),
        cmocka_unit_test(during_a_fade_the_destinations_transitions_are_candidates),
        cmocka_unit_test(every_comparison_is_exact_as_float),
        cmocka_unit_test(conditions_are_anded),
        cmocka_unit_test(exit_time_is_local_seconds_and_stays_met),
        cmocka_unit_test(triggers_stay_set_until_consumed),
        cmocka_unit_test(unknown_names_and_bad_values_fail_loudly_and_change_nothing),
        cmocka_unit_test(a_condition_on_an_undeclared_parameter_is_refused_naming_the_closest),
        cmocka_unit_test(setting_an_undeclared_parameter_is_refused_naming_the_closest),
        cmocka_unit_test(declared_parameters_start_at_their_values_and_keep_their_kinds),
        cmocka_unit_test(bad_dt_is_an_error_that_changes_nothing),
        cmocka_unit_test(creation_refuses_bad_descriptions_naming_them),
        cmocka_unit_test(a_trigger_may_not_be_a_tree_parameter_or_clock),
        cmocka_unit_test(interruption_freezes_the_shown_pose_and_is_continuous),
        cmocka_unit_test(interrupting_a_frozen_fade_freezes_again),
        cmocka_unit_test(a_transition_with_no_fade_running_fades_from_the_live_state),
        cmocka_unit_test(same_calls_give_the_same_poses_bit_for_bit),
        cmocka_unit_test(evaluate_writes_every_channel_from_the_bind_pose),
        cmocka_unit_test(synced_phase_advances_by_dt_over_the_weighted_period),
        cmocka_unit_test(phases_restart_at_zero_when_a_state_is_entered),
        cmocka_unit_test(events_on_a_looping_leaf_fire_once_per_wrap),
        cmocka_unit_test(synced_leaves_report_over_their_phase_span),
        cmocka_unit_test(a_live_source_reports_before_the_destination_and_a_frozen_one_never),
        cmocka_unit_test(a_named_clock_leaf_reports_between_its_values_at_updates),
        cmocka_unit_test(events_on_a_node_that_is_not_a_clip_are_refused),
        cmocka_unit_test(huge_times_are_reported_not_crashed_on),
        cmocka_unit_test(update_and_evaluate_allocate_nothing),
        cmocka_unit_test(queries),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
