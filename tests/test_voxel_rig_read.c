/*
 * rig.json reading (voxel-rig-format.md "rig.json"): the spec's example with
 * its exact values, defaults, the "rig" member form, parents after children
 * and the part order, unknown fields kept, and every validation error with
 * its status code and JSON path.  Then sweeps: the example truncated at every
 * length, mutated at random, oversized, and failed at every allocation, each
 * failing cleanly (no leak, no out-of-bounds read under ASan/UBSan).
 *
 * JSON in this file is written with single quotes (turned into double quotes
 * before reading) so cases stay readable.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <marionette/voxel/rig.h>

#include "counting_alloc.h"
#include "voxel/fcurve_internal.h"

/* The example of voxel-rig-format.md, verbatim. */
static const char spec_example[] =
    "{\n"
    "  \"format\": \"voxel-rig\",\n"
    "  \"version\": 1,\n"
    "  \"kind\": \"cube\",\n"
    "  \"voxel_size\": 1.0,\n"
    "  \"parts\": [\n"
    "    { \"name\": \"body\", \"parent\": null,   \"pivot\": [8, 6, 8] },\n"
    "    { \"name\": \"head\", \"parent\": \"body\", \"pivot\": [8, 12, 8] },\n"
    "    { \"name\": \"hat\",  \"parent\": \"head\", \"pivot\": [8, 15, 8] },\n"
    "    { \"name\": \"muzzle\", \"parent\": \"head\", \"pivot\": [8, 14, 13] }\n"
    "  ],\n"
    "  \"joints\": [\n"
    "    { \"name\": \"neck_yaw\", \"part\": \"head\", \"type\": \"rotation\", \"axis\": [0, 1, 0],\n"
    "      \"min\": -0.8, \"max\": 0.8, \"rest\": 0.0, \"drive\": \"caller\" },\n"
    "    { \"name\": \"hat_tilt\", \"part\": \"hat\", \"type\": \"rotation\", \"axis\": \"x\",\n"
    "      \"min\": 0, \"max\": 0, \"rest\": 0, \"drive\": \"auto\",\n"
    "      \"mount\": { \"orient\": [0.0, 0.3, 0.0], \"offset\": [0, 1, 0] } }\n"
    "  ],\n"
    "  \"animations\": [\n"
    "    { \"name\": \"idle\", \"loop\": true, \"auto_play\": true, \"duration_ms\": 2000,\n"
    "      \"tracks\": [\n"
    "        { \"joint\": \"neck_yaw\", \"keys\": [\n"
    "          { \"t\": 0,    \"v\": 0.0,  \"interp\": \"bezier\" },\n"
    "          { \"t\": 1000, \"v\": 0.4,  \"interp\": \"ease-in-out\" },\n"
    "          { \"t\": 1500, \"v\": 0.1,  \"interp\": \"bezier\", \"handle_left\": [-200, 0.05], "
    "\"handle_right\": [150, -0.02] }\n"
    "        ] }\n"
    "      ] }\n"
    "  ]\n"
    "}\n";

/* Single quotes → double quotes, in a malloc'd copy. */
static char *dq(const char *text)
{
    size_t n = strlen(text);
    char *s = malloc(n + 1);
    assert_non_null(s);
    for (size_t i = 0; i <= n; i++)
        s[i] = text[i] == '\'' ? '"' : text[i];
    return s;
}

/* Read single-quoted JSON text with the default allocator. */
static mn_status read_text(const char *text, mn_voxel_rig **rig, mn_error *err)
{
    char *json = dq(text);
    mn_status st = mn_voxel_rig_read_memory(json, strlen(json), NULL, rig, err);
    free(json);
    return st;
}

static mn_voxel_rig *read_ok(const char *text)
{
    mn_voxel_rig *rig = NULL;
    mn_error err;
    mn_status st = read_text(text, &rig, &err);
    if (st != MN_OK)
        print_error("unexpected failure: %s %s\n", mn_status_name(st), err.message);
    assert_int_equal(st, MN_OK);
    assert_non_null(rig);
    return rig;
}

/* Two parts and a joint that every case below builds on. */
#define PARTS "'parts':[{'name':'body','parent':null,'pivot':[0,0,0]},{'name':'head','parent':'body','pivot':[0,1,0]}]"
#define JOINT_FIELDS "'part':'head','type':'rotation','axis':'y','min':-1,'max':1,'rest':0,'drive':'caller'"
#define JOINT(name) "{'name':'" name "'," JOINT_FIELDS "}"
#define JOINTS "'joints':[" JOINT("yaw") "," JOINT("nod") "]"
#define KEY(t, v) "{'t':" #t ",'v':" #v ",'interp':'linear'}"
#define TRACK(joint) "{'joint':'" joint "','keys':[" KEY(0, 0) "," KEY(100, 1) "]}"
#define ANIM(name) "{'name':'" name "','loop':false,'auto_play':false,'tracks':[" TRACK("yaw") "]}"

/* ---- the example and the shape of a rig ------------------------------------------------------ */

static void test_spec_example_loads_with_exact_values(void **state)
{
    (void)state;
    mn_voxel_rig *rig = NULL;
    mn_error err;
    assert_int_equal(mn_voxel_rig_read_memory(spec_example, strlen(spec_example), NULL, &rig, &err), MN_OK);
    assert_int_equal(err.code, MN_OK);
    assert_int_equal(rig->kind, MN_VOXEL_CUBE);
    assert_true(rig->voxel_size == 1.0f);
    assert_null(rig->extras);

    assert_int_equal(rig->part_count, 4);
    const char *names[] = {"body", "head", "hat", "muzzle"};
    const uint32_t parents[] = {MN_NONE, 0, 1, 1};
    const float pivots[4][3] = {{8, 6, 8}, {8, 12, 8}, {8, 15, 8}, {8, 14, 13}};
    for (uint32_t p = 0; p < 4; p++) {
        assert_string_equal(rig->parts[p].name, names[p]);
        assert_int_equal(rig->parts[p].parent, parents[p]);
        assert_memory_equal(rig->parts[p].pivot, pivots[p], sizeof pivots[p]);
        assert_null(rig->parts[p].extras);
        assert_int_equal(rig->part_order[p], p);
    }
    assert_int_equal(rig->parts[0].joint_count, 0);
    assert_int_equal(rig->parts[1].joint_count, 1);
    assert_int_equal(rig->parts[1].joints[0], 0);
    assert_int_equal(rig->parts[2].joint_count, 1);
    assert_int_equal(rig->parts[2].joints[0], 1);
    assert_int_equal(rig->parts[3].joint_count, 0);

    assert_int_equal(rig->joint_count, 2);
    const mn_voxel_joint *yaw = &rig->joints[0], *tilt = &rig->joints[1];
    assert_string_equal(yaw->name, "neck_yaw");
    assert_int_equal(yaw->part, 1);
    assert_int_equal(yaw->type, MN_VOXEL_ROTATION);
    assert_true(yaw->axis[0] == 0.0f && yaw->axis[1] == 1.0f && yaw->axis[2] == 0.0f);
    assert_true(yaw->min == -0.8f && yaw->max == 0.8f && yaw->rest == 0.0f);
    assert_int_equal(yaw->drive, MN_VOXEL_DRIVE_CALLER);
    assert_false(yaw->has_mount);
    assert_true(yaw->orient[0] == 0 && yaw->orient[1] == 0 && yaw->orient[2] == 0);
    assert_true(yaw->offset[0] == 0 && yaw->offset[1] == 0 && yaw->offset[2] == 0);
    assert_string_equal(tilt->name, "hat_tilt");
    assert_int_equal(tilt->part, 2);
    assert_true(tilt->axis[0] == 1.0f && tilt->axis[1] == 0.0f && tilt->axis[2] == 0.0f);
    assert_true(tilt->min == 0.0f && tilt->max == 0.0f && tilt->rest == 0.0f);
    assert_int_equal(tilt->drive, MN_VOXEL_DRIVE_AUTO);
    assert_true(tilt->has_mount);
    assert_true(tilt->orient[0] == 0.0f && tilt->orient[1] == 0.3f && tilt->orient[2] == 0.0f);
    assert_true(tilt->offset[0] == 0.0f && tilt->offset[1] == 1.0f && tilt->offset[2] == 0.0f);

    assert_int_equal(rig->animation_count, 1);
    const mn_voxel_animation *idle = &rig->animations[0];
    assert_string_equal(idle->name, "idle");
    assert_true(idle->loop);
    assert_true(idle->auto_play);
    assert_true(idle->duration_ms == 2000.0);
    assert_int_equal(idle->track_count, 1);
    const mn_voxel_track *track = &idle->tracks[0];
    assert_int_equal(track->joint, 0);
    assert_true(track->curve.loop);
    assert_true(track->curve.duration_ms == 2000.0);
    assert_int_equal(track->curve.key_count, 3);
    const mn_fcurve_key *k = track->curve.keys;
    assert_true(k[0].t == 0.0 && k[0].v == 0.0 && k[0].interp == MN_FCURVE_BEZIER);
    assert_true(k[1].t == 1000.0 && k[1].v == 0.4 && k[1].interp == MN_FCURVE_EASE_IN_OUT);
    assert_true(k[2].t == 1500.0 && k[2].v == 0.1 && k[2].interp == MN_FCURVE_BEZIER);
    assert_false(k[0].has_handle_left || k[0].has_handle_right);
    assert_false(k[1].has_handle_left || k[1].has_handle_right);
    assert_true(k[2].has_handle_left && k[2].has_handle_right);
    assert_true(k[2].handle_left[0] == -200.0 && k[2].handle_left[1] == 0.05);
    assert_true(k[2].handle_right[0] == 150.0 && k[2].handle_right[1] == -0.02);
    mn_voxel_rig_free(rig);
}

static void test_defaults_when_optional_members_are_absent(void **state)
{
    (void)state;
    mn_voxel_rig *rig = read_ok("{'parts':[{'name':'only','parent':null,'pivot':[1,2,3]}]}");
    assert_int_equal(rig->kind, MN_VOXEL_CUBE);
    assert_true(rig->voxel_size == 1.0f);
    assert_int_equal(rig->part_count, 1);
    assert_int_equal(rig->part_order[0], 0);
    assert_int_equal(rig->joint_count, 0);
    assert_int_equal(rig->animation_count, 0);
    assert_int_equal(rig->parts[0].joint_count, 0);
    assert_null(rig->extras);
    mn_voxel_rig_free(rig);

    /* A mount with neither member: zeros, still a mount. */
    rig = read_ok("{" PARTS ",'joints':[{'name':'m'," JOINT_FIELDS ",'mount':{}}],'voxel_size':0.5}");
    assert_true(rig->voxel_size == 0.5f);
    assert_true(rig->joints[0].has_mount);
    for (int k = 0; k < 3; k++)
        assert_true(rig->joints[0].orient[k] == 0.0f && rig->joints[0].offset[k] == 0.0f);
    mn_voxel_rig_free(rig);
}

static void test_every_kind_name_and_which_are_skinned(void **state)
{
    (void)state;
    static const struct { const char *name; mn_voxel_kind kind; bool skinned; } kinds[] = {
        {"cube", MN_VOXEL_CUBE, false},
        {"mc", MN_VOXEL_MC, false},
        {"sn", MN_VOXEL_SN, false},
        {"dc", MN_VOXEL_DC, false},
        {"mc-skinned", MN_VOXEL_MC_SKINNED, true},
        {"sn-skinned", MN_VOXEL_SN_SKINNED, true},
        {"dc-skinned", MN_VOXEL_DC_SKINNED, true},
        {"static", MN_VOXEL_STATIC, false},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "{'kind':'%s'," PARTS "}", kinds[i].name);
        mn_voxel_rig *rig = read_ok(text);
        assert_int_equal(rig->kind, kinds[i].kind);
        assert_int_equal(mn_voxel_kind_is_skinned(rig->kind), kinds[i].skinned);
        assert_string_equal(mn_voxel_kind_name(rig->kind), kinds[i].name);
        mn_voxel_rig_free(rig);
    }
    const struct {
        const char *got, *want;
    } names[] = {
        {mn_voxel_kind_name((mn_voxel_kind)8), "invalid"},
        {mn_voxel_joint_type_name(MN_VOXEL_ROTATION), "rotation"},
        {mn_voxel_joint_type_name(MN_VOXEL_TRANSLATION), "translation"},
        {mn_voxel_joint_type_name((mn_voxel_joint_type)2), "invalid"},
        {mn_voxel_drive_name(MN_VOXEL_DRIVE_CALLER), "caller"},
        {mn_voxel_drive_name(MN_VOXEL_DRIVE_AUTO), "auto"},
        {mn_voxel_drive_name((mn_voxel_drive)2), "invalid"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        assert_string_equal(names[i].got, names[i].want);
}

static void test_rig_member_holds_the_rig_when_there_are_no_parts(void **state)
{
    (void)state;
    mn_voxel_rig *rig = read_ok("{'id':'run-17','rig':{'kind':'sn'," PARTS "," JOINTS ",'note':1},'other':[1]}");
    assert_int_equal(rig->kind, MN_VOXEL_SN);
    assert_int_equal(rig->part_count, 2);
    assert_int_equal(rig->joint_count, 2);
    assert_string_equal(rig->extras, "{\"note\":1}"); /* the rig's own unknown members, not the record's */
    mn_voxel_rig_free(rig);

    /* Errors inside it name the path through "rig". */
    mn_error err;
    assert_int_equal(read_text("{'rig':{'parts':[{'name':'a','parent':'zz','pivot':[0,0,0]}]}}", &rig, &err),
                     MN_INVALID_VALUE);
    assert_null(rig);
    assert_string_equal(err.path, "rig.parts[0].parent");

    /* With "parts" present the top level is the rig, whatever "rig" holds. */
    rig = read_ok("{" PARTS ",'rig':{'parts':[]}}");
    assert_int_equal(rig->part_count, 2);
    assert_string_equal(rig->extras, "{\"rig\":{\"parts\":[]}}");
    mn_voxel_rig_free(rig);

    /* A "rig" that is not an object is not the rig: "parts" is then missing. */
    assert_int_equal(read_text("{'rig':[1]}", &rig, &err), MN_MISSING_PROPERTY);
    assert_string_equal(err.path, "parts");
}

static void test_parents_after_children_give_a_parents_first_order(void **state)
{
    (void)state;
    /* A forest: d → c → b → a listed children first, and a lone root e. */
    mn_voxel_rig *rig = read_ok("{'parts':["
                                "{'name':'d','parent':'c','pivot':[0,0,0]},"
                                "{'name':'e','parent':null,'pivot':[0,0,0]},"
                                "{'name':'c','parent':'b','pivot':[0,0,0]},"
                                "{'name':'a','parent':null,'pivot':[0,0,0]},"
                                "{'name':'b','parent':'a','pivot':[0,0,0]},"
                                "{'name':'f','parent':'a','pivot':[0,0,0]}]}");
    assert_int_equal(rig->parts[0].parent, 2);
    assert_int_equal(rig->parts[1].parent, MN_NONE);
    assert_int_equal(rig->parts[2].parent, 4);
    assert_int_equal(rig->parts[3].parent, MN_NONE);
    assert_int_equal(rig->parts[4].parent, 3);
    assert_int_equal(rig->parts[5].parent, 3);
    /* Each unplaced part brings its unplaced ancestors, top down: a b c d, then e, then f. */
    const uint32_t expected[] = {3, 4, 2, 0, 1, 5};
    assert_memory_equal(rig->part_order, expected, sizeof expected);
    /* Whatever the order, every part comes once and after its parent. */
    uint32_t position[6];
    for (uint32_t k = 0; k < 6; k++)
        position[rig->part_order[k]] = k;
    for (uint32_t p = 0; p < 6; p++)
        if (rig->parts[p].parent != MN_NONE)
            assert_true(position[rig->parts[p].parent] < position[p]);
    mn_voxel_rig_free(rig);
}

static void test_each_part_lists_its_joints_in_declared_order(void **state)
{
    (void)state;
    mn_voxel_rig *rig = read_ok("{" PARTS ",'joints':["
                                "{'name':'j0','part':'head','type':'rotation','axis':'x','min':0,'max':0,'rest':0,'drive':'caller'},"
                                "{'name':'j1','part':'body','type':'translation','axis':'z','min':0,'max':2,'rest':1,'drive':'auto'},"
                                "{'name':'j2','part':'head','type':'rotation','axis':'y','min':0,'max':0,'rest':0,'drive':'caller'},"
                                "{'name':'j3','part':'head','type':'rotation','axis':'z','min':0,'max':0,'rest':0,'drive':'caller'}]}");
    assert_int_equal(rig->parts[0].joint_count, 1);
    assert_int_equal(rig->parts[0].joints[0], 1);
    assert_int_equal(rig->parts[1].joint_count, 3);
    assert_int_equal(rig->parts[1].joints[0], 0);
    assert_int_equal(rig->parts[1].joints[1], 2);
    assert_int_equal(rig->parts[1].joints[2], 3);
    assert_int_equal(rig->joints[1].type, MN_VOXEL_TRANSLATION);
    assert_int_equal(rig->joints[1].drive, MN_VOXEL_DRIVE_AUTO);
    assert_true(rig->joints[1].axis[2] == 1.0f);
    assert_true(rig->joints[1].rest == 1.0f);
    mn_voxel_rig_free(rig);
}

static void test_unknown_fields_are_kept_as_extras(void **state)
{
    (void)state;
    mn_voxel_rig *rig = read_ok(
        "{'format':'voxel-rig','version':1,'generator':{'name':'x','v':[1,2]},'seed':7,"
        "'parts':[{'name':'body','parent':null,'pivot':[0,0,0],'material':'steel','extras':{'a':true}},"
        "{'name':'head','parent':'body','pivot':[0,1,0]}],"
        "'joints':[{'name':'yaw'," JOINT_FIELDS ",'ui':{'slider':1},'mount':{'orient':[0,0,0],'why':1}}],"
        "'animations':[{'name':'a','loop':false,'auto_play':false,'tags':['x'],"
        "'tracks':[{'joint':'yaw','weight':2,'keys':[{'t':0,'v':0,'interp':'linear','ease':9}]}]}]}");
    assert_string_equal(rig->extras, "{\"generator\":{\"name\":\"x\",\"v\":[1,2]},\"seed\":7}");
    assert_string_equal(rig->parts[0].extras, "{\"material\":\"steel\",\"extras\":{\"a\":true}}");
    assert_null(rig->parts[1].extras);
    assert_string_equal(rig->joints[0].extras, "{\"ui\":{\"slider\":1}}");
    assert_string_equal(rig->animations[0].extras, "{\"tags\":[\"x\"]}");
    /* Unknown members of a mount, a track or a key have no extras and are simply ignored. */
    assert_int_equal(rig->animations[0].tracks[0].curve.key_count, 1);
    mn_voxel_rig_free(rig);
}

static void test_axes_are_normalised(void **state)
{
    (void)state;
    mn_voxel_rig *rig = read_ok("{" PARTS ",'joints':["
                                "{'name':'a','part':'head','type':'rotation','axis':[0,0,2],'min':0,'max':0,'rest':0,'drive':'caller'},"
                                "{'name':'b','part':'head','type':'translation','axis':[3,-4,0],'min':0,'max':0,'rest':0,'drive':'caller'},"
                                "{'name':'c','part':'head','type':'rotation','axis':[1e-30,0,0],'min':0,'max':0,'rest':0,'drive':'caller'},"
                                "{'name':'d','part':'head','type':'rotation','axis':'z','min':0,'max':0,'rest':0,'drive':'caller'}]}");
    assert_true(rig->joints[0].axis[0] == 0.0f && rig->joints[0].axis[1] == 0.0f && rig->joints[0].axis[2] == 1.0f);
    assert_true(fabsf(rig->joints[1].axis[0] - 0.6f) < 1e-7f && fabsf(rig->joints[1].axis[1] + 0.8f) < 1e-7f &&
                rig->joints[1].axis[2] == 0.0f);
    assert_true(rig->joints[2].axis[0] == 1.0f && rig->joints[2].axis[1] == 0.0f);
    assert_true(rig->joints[3].axis[0] == 0.0f && rig->joints[3].axis[2] == 1.0f);
    mn_voxel_rig_free(rig);
}

static void test_duration_defaults_to_the_largest_key_time(void **state)
{
    (void)state;
    mn_voxel_rig *rig = read_ok("{" PARTS "," JOINTS ",'animations':["
                                "{'name':'a','loop':false,'auto_play':false,'tracks':["
                                "{'joint':'yaw','keys':[" KEY(-50, 0) "," KEY(700, 1) "]},"
                                "{'joint':'nod','keys':[" KEY(0, 0) "," KEY(1250.5, 1) "," KEY(1300, 2) "]}]},"
                                "{'name':'b','loop':true,'auto_play':true,'tracks':["
                                "{'joint':'yaw','keys':[" KEY(100, 0) "," KEY(900, 1) "]}]},"
                                "{'name':'c','loop':false,'auto_play':false,'tracks':[]},"
                                "{'name':'d','loop':false,'auto_play':false,'tracks':["
                                "{'joint':'yaw','keys':[" KEY(-300, 0) "," KEY(-100, 1) "]}]},"
                                "{'name':'e','loop':false,'auto_play':true,'duration_ms':400,'tracks':["
                                "{'joint':'yaw','keys':[" KEY(0, 0) "," KEY(900, 1) "]}]}]}");
    assert_true(rig->animations[0].duration_ms == 1300.0);
    assert_false(rig->animations[0].tracks[1].curve.loop);
    assert_true(rig->animations[0].tracks[1].curve.duration_ms == 1300.0);
    assert_true(rig->animations[0].tracks[0].curve.keys[0].t == -50.0);
    assert_true(rig->animations[1].duration_ms == 900.0); /* the keys span 800 ≤ 900 */
    assert_true(rig->animations[1].tracks[0].curve.loop);
    assert_true(rig->animations[1].tracks[0].curve.duration_ms == 900.0);
    assert_true(rig->animations[2].duration_ms == 0.0);
    assert_int_equal(rig->animations[2].track_count, 0);
    assert_true(rig->animations[3].duration_ms == 0.0); /* never negative */
    assert_true(rig->animations[4].duration_ms == 400.0); /* keys after a one-shot's end are allowed */
    assert_true(rig->animations[4].auto_play);
    mn_voxel_rig_free(rig);
}

static void test_every_interpolation_name(void **state)
{
    (void)state;
    mn_voxel_rig *rig = read_ok("{" PARTS "," JOINTS ",'animations':[{'name':'a','loop':false,'auto_play':false,"
                                "'tracks':[{'joint':'yaw','keys':["
                                "{'t':0,'v':0,'interp':'constant'},{'t':1,'v':0,'interp':'linear'},"
                                "{'t':2,'v':0,'interp':'bezier'},{'t':3,'v':0,'interp':'ease-in'},"
                                "{'t':4,'v':0,'interp':'ease-out'},{'t':5,'v':0,'interp':'ease-in-out'}]}]}]}");
    const mn_fcurve_key *k = rig->animations[0].tracks[0].curve.keys;
    assert_int_equal(k[0].interp, MN_FCURVE_CONSTANT);
    assert_int_equal(k[1].interp, MN_FCURVE_LINEAR);
    assert_int_equal(k[2].interp, MN_FCURVE_BEZIER);
    assert_int_equal(k[3].interp, MN_FCURVE_EASE_IN);
    assert_int_equal(k[4].interp, MN_FCURVE_EASE_OUT);
    assert_int_equal(k[5].interp, MN_FCURVE_EASE_IN_OUT);
    mn_voxel_rig_free(rig);
}

static void test_find_by_name(void **state)
{
    (void)state;
    mn_voxel_rig *rig = NULL;
    assert_int_equal(mn_voxel_rig_read_memory(spec_example, strlen(spec_example), NULL, &rig, NULL), MN_OK);
    assert_int_equal(mn_voxel_rig_find_part(rig, "body"), 0);
    assert_int_equal(mn_voxel_rig_find_part(rig, "muzzle"), 3);
    assert_int_equal(mn_voxel_rig_find_part(rig, "neck_yaw"), MN_NONE);
    assert_int_equal(mn_voxel_rig_find_part(rig, ""), MN_NONE);
    assert_int_equal(mn_voxel_rig_find_part(rig, NULL), MN_NONE);
    assert_int_equal(mn_voxel_rig_find_joint(rig, "hat_tilt"), 1);
    assert_int_equal(mn_voxel_rig_find_joint(rig, "body"), MN_NONE);
    assert_int_equal(mn_voxel_rig_find_animation(rig, "idle"), 0);
    assert_int_equal(mn_voxel_rig_find_animation(rig, "walk"), MN_NONE);
    assert_int_equal(mn_voxel_rig_find_part(NULL, "body"), MN_NONE);
    assert_int_equal(mn_voxel_rig_find_joint(NULL, "x"), MN_NONE);
    assert_int_equal(mn_voxel_rig_find_animation(NULL, "x"), MN_NONE);
    mn_voxel_rig_free(rig);

    /* A rig built by hand as plain data (no reader tables) is searched by name too. */
    mn_voxel_part parts[2] = {{.name = "body", .parent = MN_NONE}, {.name = "head", .parent = 0}};
    mn_voxel_joint joints[1] = {{.name = "yaw", .part = 1, .axis = {0, 1, 0}}};
    mn_voxel_animation animations[1] = {{.name = "idle"}};
    mn_voxel_rig hand = {.parts = parts, .part_count = 2, .joints = joints, .joint_count = 1,
                         .animations = animations, .animation_count = 1, .voxel_size = 1};
    assert_int_equal(mn_voxel_rig_find_part(&hand, "head"), 1);
    assert_int_equal(mn_voxel_rig_find_part(&hand, "yaw"), MN_NONE);
    assert_int_equal(mn_voxel_rig_find_joint(&hand, "yaw"), 0);
    assert_int_equal(mn_voxel_rig_find_animation(&hand, "idle"), 0);
    assert_int_equal(mn_voxel_rig_find_animation(&hand, NULL), MN_NONE);

    /* Many names: every one found at its index (the hash table's collisions and growth). */
    size_t cap = 64 + 600 * 64;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t len = (size_t)snprintf(text, cap, "{\"parts\":[");
    for (int i = 0; i < 600; i++)
        len += (size_t)snprintf(text + len, cap - len, "%s{\"name\":\"p%d\",\"parent\":null,\"pivot\":[0,0,0]}",
                                i ? "," : "", i);
    len += (size_t)snprintf(text + len, cap - len, "]}");
    assert_int_equal(mn_voxel_rig_read_memory(text, len, NULL, &rig, NULL), MN_OK);
    for (int i = 0; i < 600; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%d", i);
        assert_int_equal(mn_voxel_rig_find_part(rig, name), (uint32_t)i);
    }
    assert_int_equal(mn_voxel_rig_find_part(rig, "p600"), MN_NONE);
    mn_voxel_rig_free(rig);
    free(text);
}

/* ---- validation errors ------------------------------------------------------------------------- */

typedef struct error_case {
    const char *what;
    const char *json;   /* single-quoted */
    mn_status code;
    const char *path;
} error_case;

#define ONE_ANIM(body) "{" PARTS "," JOINTS ",'animations':[" body "]}"
#define ONE_TRACK(keys) ONE_ANIM("{'name':'a','loop':false,'auto_play':false,'tracks':[{'joint':'yaw','keys':[" keys "]}]}")
#define ONE_JOINT(fields) "{" PARTS ",'joints':[{'name':'j'," fields "}]}"

static const error_case error_cases[] = {
    /* the header */
    {"format is not voxel-rig", "{'format':'voxel-rigs'," PARTS "}", MN_INVALID_VALUE, "format"},
    {"format is not a string", "{'format':1," PARTS "}", MN_JSON_TYPE, "format"},
    {"version 2", "{'version':2," PARTS "}", MN_INVALID_VALUE, "version"},
    {"version as a string", "{'version':'1'," PARTS "}", MN_JSON_TYPE, "version"},
    {"unknown kind", "{'kind':'voxel'," PARTS "}", MN_INVALID_VALUE, "kind"},
    {"kind as a number", "{'kind':0," PARTS "}", MN_JSON_TYPE, "kind"},
    {"voxel_size zero", "{'voxel_size':0," PARTS "}", MN_INVALID_VALUE, "voxel_size"},
    {"voxel_size negative", "{'voxel_size':-1," PARTS "}", MN_INVALID_VALUE, "voxel_size"},
    {"voxel_size a boolean", "{'voxel_size':true," PARTS "}", MN_JSON_TYPE, "voxel_size"},
    {"voxel_size beyond float", "{'voxel_size':1e39," PARTS "}", MN_NOT_FINITE, "voxel_size"},
    /* parts */
    {"no parts", "{'joints':[]}", MN_MISSING_PROPERTY, "parts"},
    {"parts empty", "{'parts':[]}", MN_INVALID_VALUE, "parts"},
    {"parts an object", "{'parts':{}}", MN_JSON_TYPE, "parts"},
    {"part not an object", "{'parts':[3]}", MN_JSON_TYPE, "parts[0]"},
    {"part without name", "{'parts':[{'name':'a','parent':null,'pivot':[0,0,0]},{'parent':null,'pivot':[0,0,0]}]}",
     MN_MISSING_PROPERTY, "parts[1].name"},
    {"part name a number", "{'parts':[{'name':5,'parent':null,'pivot':[0,0,0]}]}", MN_JSON_TYPE, "parts[0].name"},
    {"duplicate part name", "{'parts':[{'name':'a','parent':null,'pivot':[0,0,0]},{'name':'b','parent':'a','pivot':[0,0,0]},"
     "{'name':'a','parent':null,'pivot':[0,0,0]}]}", MN_INVALID_VALUE, "parts[2].name"},
    {"parent key absent", "{'parts':[{'name':'a','pivot':[0,0,0]}]}", MN_MISSING_PROPERTY, "parts[0].parent"},
    {"parent a number", "{'parts':[{'name':'a','parent':0,'pivot':[0,0,0]}]}", MN_JSON_TYPE, "parts[0].parent"},
    {"unknown parent", "{'parts':[{'name':'a','parent':null,'pivot':[0,0,0]},{'name':'b','parent':'c','pivot':[0,0,0]}]}",
     MN_INVALID_VALUE, "parts[1].parent"},
    {"own parent", "{'parts':[{'name':'r','parent':null,'pivot':[0,0,0]},{'name':'a','parent':'a','pivot':[0,0,0]}]}",
     MN_HIERARCHY, "parts[1].parent"},
    {"two-part cycle", "{'parts':[{'name':'a','parent':'b','pivot':[0,0,0]},{'name':'b','parent':'a','pivot':[0,0,0]}]}",
     MN_HIERARCHY, "parts[0].parent"},
    {"cycle above a tail", "{'parts':[{'name':'t','parent':'a','pivot':[0,0,0]},{'name':'r','parent':null,'pivot':[0,0,0]},"
     "{'name':'a','parent':'b','pivot':[0,0,0]},{'name':'b','parent':'c','pivot':[0,0,0]},"
     "{'name':'c','parent':'a','pivot':[0,0,0]}]}", MN_HIERARCHY, "parts[2].parent"},
    {"pivot absent", "{'parts':[{'name':'a','parent':null}]}", MN_MISSING_PROPERTY, "parts[0].pivot"},
    {"pivot of two", "{'parts':[{'name':'a','parent':null,'pivot':[0,0]}]}", MN_INVALID_VALUE, "parts[0].pivot"},
    {"pivot with a boolean", "{'parts':[{'name':'a','parent':null,'pivot':[0,true,0]}]}", MN_JSON_TYPE, "parts[0].pivot[1]"},
    {"pivot beyond float", "{'parts':[{'name':'a','parent':null,'pivot':[0,0,-1e39]}]}", MN_NOT_FINITE, "parts[0].pivot[2]"},
    /* joints */
    {"joints an object", "{" PARTS ",'joints':{}}", MN_JSON_TYPE, "joints"},
    {"joint not an object", "{" PARTS ",'joints':['yaw']}", MN_JSON_TYPE, "joints[0]"},
    {"joint without name", "{" PARTS ",'joints':[{" JOINT_FIELDS "}]}", MN_MISSING_PROPERTY, "joints[0].name"},
    {"duplicate joint name", "{" PARTS ",'joints':[" JOINT("a") "," JOINT("b") "," JOINT("a") "]}", MN_INVALID_VALUE,
     "joints[2].name"},
    {"joint without part", ONE_JOINT("'type':'rotation','axis':'y','min':0,'max':0,'rest':0,'drive':'caller'"),
     MN_MISSING_PROPERTY, "joints[0].part"},
    {"unknown part", ONE_JOINT("'part':'tail','type':'rotation','axis':'y','min':0,'max':0,'rest':0,'drive':'caller'"),
     MN_INVALID_VALUE, "joints[0].part"},
    {"unknown type", ONE_JOINT("'part':'head','type':'hinge','axis':'y','min':0,'max':0,'rest':0,'drive':'caller'"),
     MN_INVALID_VALUE, "joints[0].type"},
    {"type absent", ONE_JOINT("'part':'head','axis':'y','min':0,'max':0,'rest':0,'drive':'caller'"),
     MN_MISSING_PROPERTY, "joints[0].type"},
    {"axis absent", ONE_JOINT("'part':'head','type':'rotation','min':0,'max':0,'rest':0,'drive':'caller'"),
     MN_MISSING_PROPERTY, "joints[0].axis"},
    {"zero axis", ONE_JOINT("'part':'head','type':'rotation','axis':[0,0,0],'min':0,'max':0,'rest':0,'drive':'caller'"),
     MN_INVALID_VALUE, "joints[0].axis"},
    {"axis name w", ONE_JOINT("'part':'head','type':'rotation','axis':'w','min':0,'max':0,'rest':0,'drive':'caller'"),
     MN_INVALID_VALUE, "joints[0].axis"},
    {"axis upper-case X", ONE_JOINT("'part':'head','type':'rotation','axis':'X','min':0,'max':0,'rest':0,'drive':'caller'"),
     MN_INVALID_VALUE, "joints[0].axis"},
    {"axis a number", ONE_JOINT("'part':'head','type':'rotation','axis':1,'min':0,'max':0,'rest':0,'drive':'caller'"),
     MN_JSON_TYPE, "joints[0].axis"},
    {"axis of four", ONE_JOINT("'part':'head','type':'rotation','axis':[0,1,0,0],'min':0,'max':0,'rest':0,'drive':'caller'"),
     MN_INVALID_VALUE, "joints[0].axis"},
    {"axis with a string", ONE_JOINT("'part':'head','type':'rotation','axis':[0,'1',0],'min':0,'max':0,'rest':0,'drive':'caller'"),
     MN_JSON_TYPE, "joints[0].axis[1]"},
    {"min above max", "{" PARTS ",'joints':[" JOINT("a") "," JOINT("b") ",{'name':'c','part':'head','type':'rotation',"
     "'axis':'y','min':1,'max':-1,'rest':0,'drive':'caller'}]}", MN_INVALID_VALUE, "joints[2].min"},
    {"rest above max", "{" PARTS ",'joints':[" JOINT("a") "," JOINT("b") ",{'name':'c','part':'head','type':'rotation',"
     "'axis':'y','min':-1,'max':1,'rest':1.5,'drive':'caller'}]}", MN_INVALID_VALUE, "joints[2].rest"},
    {"rest below min", ONE_JOINT("'part':'head','type':'translation','axis':'y','min':0,'max':2,'rest':-0.001,'drive':'caller'"),
     MN_INVALID_VALUE, "joints[0].rest"},
    {"min a boolean", ONE_JOINT("'part':'head','type':'rotation','axis':'y','min':false,'max':0,'rest':0,'drive':'caller'"),
     MN_JSON_TYPE, "joints[0].min"},
    {"max beyond float", ONE_JOINT("'part':'head','type':'rotation','axis':'y','min':0,'max':1e39,'rest':0,'drive':'caller'"),
     MN_NOT_FINITE, "joints[0].max"},
    {"rest absent", ONE_JOINT("'part':'head','type':'rotation','axis':'y','min':0,'max':0,'drive':'caller'"),
     MN_MISSING_PROPERTY, "joints[0].rest"},
    {"unknown drive", ONE_JOINT("'part':'head','type':'rotation','axis':'y','min':0,'max':0,'rest':0,'drive':'manual'"),
     MN_INVALID_VALUE, "joints[0].drive"},
    {"drive absent", ONE_JOINT("'part':'head','type':'rotation','axis':'y','min':0,'max':0,'rest':0"),
     MN_MISSING_PROPERTY, "joints[0].drive"},
    {"mount an array", ONE_JOINT(JOINT_FIELDS ",'mount':[0,0,0]"), MN_JSON_TYPE, "joints[0].mount"},
    {"mount orient of two", ONE_JOINT(JOINT_FIELDS ",'mount':{'orient':[0,0]}"), MN_INVALID_VALUE, "joints[0].mount.orient"},
    {"mount offset with a string", ONE_JOINT(JOINT_FIELDS ",'mount':{'offset':[0,0,'a']}"), MN_JSON_TYPE,
     "joints[0].mount.offset[2]"},
    {"mount orient beyond float", ONE_JOINT(JOINT_FIELDS ",'mount':{'orient':[1e300,0,0]}"), MN_NOT_FINITE,
     "joints[0].mount.orient[0]"},
    /* animations */
    {"animations an object", "{" PARTS ",'animations':{}}", MN_JSON_TYPE, "animations"},
    {"animation not an object", ONE_ANIM("null"), MN_JSON_TYPE, "animations[0]"},
    {"animation without name", ONE_ANIM("{'loop':false,'auto_play':false,'tracks':[]}"), MN_MISSING_PROPERTY,
     "animations[0].name"},
    {"duplicate animation name", ONE_ANIM(ANIM("a") "," ANIM("a")), MN_INVALID_VALUE, "animations[1].name"},
    {"loop absent", ONE_ANIM("{'name':'a','auto_play':false,'tracks':[]}"), MN_MISSING_PROPERTY, "animations[0].loop"},
    {"loop a string", ONE_ANIM("{'name':'a','loop':'yes','auto_play':false,'tracks':[]}"), MN_JSON_TYPE,
     "animations[0].loop"},
    {"auto_play a number", ONE_ANIM("{'name':'a','loop':false,'auto_play':1,'tracks':[]}"), MN_JSON_TYPE,
     "animations[0].auto_play"},
    {"duration_ms a boolean", ONE_ANIM("{'name':'a','loop':false,'auto_play':false,'duration_ms':true,'tracks':[]}"),
     MN_JSON_TYPE, "animations[0].duration_ms"},
    {"duration_ms negative", ONE_ANIM("{'name':'a','loop':false,'auto_play':false,'duration_ms':-5,'tracks':[]}"),
     MN_INVALID_VALUE, "animations[0].duration_ms"},
    {"loop with duration 0", ONE_ANIM("{'name':'a','loop':true,'auto_play':false,'duration_ms':0,'tracks':[" TRACK("yaw") "]}"),
     MN_INVALID_VALUE, "animations[0].duration_ms"},
    {"loop whose keys end at 0", ONE_ANIM("{'name':'a','loop':true,'auto_play':false,'tracks':[{'joint':'yaw','keys':["
     KEY(-10, 0) "," KEY(0, 1) "]}]}"), MN_INVALID_VALUE, "animations[0].duration_ms"},
    {"loop without tracks or duration", ONE_ANIM("{'name':'a','loop':true,'auto_play':true,'tracks':[]}"),
     MN_INVALID_VALUE, "animations[0].duration_ms"},
    {"loop keys span past duration", ONE_ANIM(ANIM("z") ",{'name':'a','loop':true,'auto_play':false,'duration_ms':99,"
     "'tracks':[{'joint':'nod','keys':[" KEY(0, 0) "]}," TRACK("yaw") "]}"), MN_INVALID_VALUE,
     "animations[1].tracks[1].keys"},
    {"tracks absent", ONE_ANIM("{'name':'a','loop':false,'auto_play':false}"), MN_MISSING_PROPERTY, "animations[0].tracks"},
    {"track not an object", ONE_ANIM("{'name':'a','loop':false,'auto_play':false,'tracks':[1]}"), MN_JSON_TYPE,
     "animations[0].tracks[0]"},
    {"track of an unknown joint", ONE_ANIM(ANIM("z") ",{'name':'a','loop':false,'auto_play':false,'tracks':[" TRACK("tail") "]}"),
     MN_INVALID_VALUE, "animations[1].tracks[0].joint"},
    {"track without joint", ONE_ANIM("{'name':'a','loop':false,'auto_play':false,'tracks':[{'keys':[" KEY(0, 0) "]}]}"),
     MN_MISSING_PROPERTY, "animations[0].tracks[0].joint"},
    {"second track for a joint", ONE_ANIM("{'name':'a','loop':false,'auto_play':false,'tracks':[" TRACK("yaw") ","
     TRACK("nod") "," TRACK("yaw") "]}"), MN_INVALID_VALUE, "animations[0].tracks[2].joint"},
    {"keys absent", ONE_ANIM("{'name':'a','loop':false,'auto_play':false,'tracks':[{'joint':'yaw'}]}"),
     MN_MISSING_PROPERTY, "animations[0].tracks[0].keys"},
    {"keys empty", ONE_TRACK(""), MN_INVALID_VALUE, "animations[0].tracks[0].keys"},
    {"key not an object", ONE_TRACK("[0,1]"), MN_JSON_TYPE, "animations[0].tracks[0].keys[0]"},
    {"t absent", ONE_TRACK("{'v':0,'interp':'linear'}"), MN_MISSING_PROPERTY, "animations[0].tracks[0].keys[0].t"},
    {"t a boolean", ONE_TRACK("{'t':true,'v':0,'interp':'linear'}"), MN_JSON_TYPE, "animations[0].tracks[0].keys[0].t"},
    {"t going back", ONE_ANIM(ANIM("z") ",{'name':'a','loop':false,'auto_play':false,'tracks':[{'joint':'yaw','keys':["
     KEY(0, 0) "," KEY(10, 0) "," KEY(20, 0) "," KEY(15, 0) "]}]}"), MN_INVALID_VALUE,
     "animations[1].tracks[0].keys[3].t"},
    {"t repeated", ONE_TRACK(KEY(0, 0) "," KEY(10, 0) "," KEY(10, 1)), MN_INVALID_VALUE, "animations[0].tracks[0].keys[2].t"},
    {"v absent", ONE_TRACK("{'t':0,'interp':'linear'}"), MN_MISSING_PROPERTY, "animations[0].tracks[0].keys[0].v"},
    {"v a string", ONE_TRACK("{'t':0,'v':'0','interp':'linear'}"), MN_JSON_TYPE, "animations[0].tracks[0].keys[0].v"},
    {"v beyond float", ONE_TRACK("{'t':0,'v':-1e39,'interp':'linear'}"), MN_NOT_FINITE, "animations[0].tracks[0].keys[0].v"},
    {"interp absent on the last key", ONE_TRACK(KEY(0, 0) "," KEY(5, 0) ",{'t':10,'v':0}"), MN_MISSING_PROPERTY,
     "animations[0].tracks[0].keys[2].interp"},
    {"unknown interp", ONE_TRACK("{'t':0,'v':0,'interp':'cubic'}"), MN_INVALID_VALUE,
     "animations[0].tracks[0].keys[0].interp"},
    {"interp in capitals", ONE_TRACK("{'t':0,'v':0,'interp':'LINEAR'}"), MN_INVALID_VALUE,
     "animations[0].tracks[0].keys[0].interp"},
    {"handle of one", ONE_TRACK("{'t':0,'v':0,'interp':'bezier','handle_left':[1]}"), MN_INVALID_VALUE,
     "animations[0].tracks[0].keys[0].handle_left"},
    {"handle an object", ONE_TRACK("{'t':0,'v':0,'interp':'bezier','handle_right':{}}"), MN_JSON_TYPE,
     "animations[0].tracks[0].keys[0].handle_right"},
    {"handle with a boolean", ONE_TRACK("{'t':0,'v':0,'interp':'bezier','handle_right':[0,false]}"), MN_JSON_TYPE,
     "animations[0].tracks[0].keys[0].handle_right[1]"},
    /* the document */
    {"an array", "[]", MN_JSON_TYPE, ""},
    {"syntax", "{'parts':[}", MN_JSON_SYNTAX, ""},
    {"empty", "", MN_JSON_SYNTAX, ""},
    {"a bare number", "42", MN_JSON_SYNTAX, ""},
};

static void test_every_validation_error_names_its_path(void **state)
{
    (void)state;
    int mismatches = 0;
    for (size_t i = 0; i < sizeof error_cases / sizeof error_cases[0]; i++) {
        const error_case *c = &error_cases[i];
        mn_voxel_rig *rig = (mn_voxel_rig *)(uintptr_t)1;
        mn_error err;
        memset(&err, 0x55, sizeof err);
        mn_status st = read_text(c->json, &rig, &err);
        printf("  %-34s %-22s %s\n", c->what, mn_status_name(st), err.message);
        if (st != c->code || err.code != st || strcmp(err.path, c->path) != 0 || rig != NULL ||
            memchr(err.message, '\0', sizeof err.message) == NULL || err.message[0] == '\0') {
            print_error("MISMATCH %s: got %s at \"%s\", expected %s at \"%s\"\n", c->what, mn_status_name(st),
                        err.path, mn_status_name(c->code), c->path);
            mismatches++;
        }
        if (st == MN_OK)
            mn_voxel_rig_free(rig);
    }
    assert_int_equal(mismatches, 0);
}

static void test_syntax_errors_give_line_and_column(void **state)
{
    (void)state;
    mn_voxel_rig *rig = NULL;
    mn_error err;
    const char *text = "{\n  \"parts\": [\n    {\"name\": \"a\",, }\n  ]\n}\n";
    assert_int_equal(mn_voxel_rig_read_memory(text, strlen(text), NULL, &rig, &err), MN_JSON_SYNTAX);
    assert_int_equal(err.line, 3);
    assert_true(err.column > 0);
    assert_true(err.offset > 0);
    assert_null(rig);
}

static void test_byte_order_mark_and_trailing_space_are_accepted(void **state)
{
    (void)state;
    size_t n = strlen(spec_example);
    char *text = malloc(n + 16);
    assert_non_null(text);
    memcpy(text, "\xEF\xBB\xBF", 3);
    memcpy(text + 3, spec_example, n);
    memcpy(text + 3 + n, " \r\n\t ", 5);
    mn_voxel_rig *rig = NULL;
    assert_int_equal(mn_voxel_rig_read_memory(text, n + 8, NULL, &rig, NULL), MN_OK);
    assert_int_equal(rig->part_count, 4);
    mn_voxel_rig_free(rig);
    free(text);
}

static void test_invalid_arguments(void **state)
{
    (void)state;
    mn_voxel_rig *rig = (mn_voxel_rig *)(uintptr_t)1;
    mn_error err;
    assert_int_equal(mn_voxel_rig_read_memory(NULL, 3, NULL, &rig, &err), MN_INVALID_ARGUMENT);
    assert_null(rig);
    assert_int_equal(err.code, MN_INVALID_ARGUMENT);
    assert_int_equal(mn_voxel_rig_read_memory(spec_example, 10, NULL, NULL, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_voxel_rig_read_memory(NULL, 0, NULL, &rig, &err), MN_JSON_SYNTAX);
    assert_int_equal(mn_voxel_rig_read_file(NULL, NULL, &rig, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_voxel_rig_read_file("tests/data/voxel_arm/rig.json", NULL, NULL, &err), MN_INVALID_ARGUMENT);
    mn_voxel_rig_free(NULL);
    /* A NULL error is allowed everywhere. */
    assert_int_equal(mn_voxel_rig_read_memory("{}", 2, NULL, &rig, NULL), MN_MISSING_PROPERTY);
    assert_null(rig);
}

/* ---- files ------------------------------------------------------------------------------------- */

static void test_reads_the_voxel_arm_files(void **state)
{
    (void)state;
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_voxel_rig_options options = {.allocator = mn_counting_allocator(&counter)};
    mn_voxel_rig *rig = NULL;
    mn_error err;
    assert_int_equal(mn_voxel_rig_read_file("tests/data/voxel_arm/rig.json", &options, &rig, &err), MN_OK);
    assert_int_equal(rig->kind, MN_VOXEL_CUBE);
    assert_true(rig->voxel_size == 0.25f);
    assert_string_equal(rig->extras, "{\"generator\":\"make_voxel_model\"}");
    assert_int_equal(rig->part_count, 4);
    assert_string_equal(rig->parts[1].name, "fore");
    assert_int_equal(rig->parts[1].parent, 2); /* "upper", listed after it */
    const uint32_t order[] = {0, 2, 1, 3};
    assert_memory_equal(rig->part_order, order, sizeof order);
    assert_int_equal(rig->joint_count, 5);
    assert_int_equal(rig->parts[1].joint_count, 2); /* elbow, then reach */
    assert_int_equal(rig->parts[1].joints[0], mn_voxel_rig_find_joint(rig, "elbow"));
    assert_int_equal(rig->parts[1].joints[1], mn_voxel_rig_find_joint(rig, "reach"));
    const mn_voxel_joint *elbow = &rig->joints[2];
    assert_true(elbow->axis[0] == 0.0f && elbow->axis[1] == 0.0f && elbow->axis[2] == 1.0f);
    assert_true(elbow->rest == 0.5f);
    const mn_voxel_joint *mount = &rig->joints[4];
    assert_true(mount->has_mount && mount->min == 0.0f && mount->max == 0.0f);
    assert_true(mount->orient[2] == 0.5f && mount->offset[1] == 1.0f);
    const mn_voxel_animation *wave = &rig->animations[mn_voxel_rig_find_animation(rig, "wave")];
    assert_false(wave->loop);
    assert_true(wave->duration_ms == 1200.0);
    assert_int_equal(wave->track_count, 2);
    mn_voxel_rig_free(rig);
    assert_int_equal(counter.live_bytes, 0);

    assert_int_equal(mn_voxel_rig_read_file("tests/data/voxel_arm/skinned/rig.json", &options, &rig, &err), MN_OK);
    assert_int_equal(rig->kind, MN_VOXEL_MC_SKINNED);
    assert_true(mn_voxel_kind_is_skinned(rig->kind));
    assert_int_equal(rig->part_count, 3);
    mn_voxel_rig_free(rig);
    assert_int_equal(counter.live_bytes, 0);

    assert_int_equal(mn_voxel_rig_read_file("tests/data/voxel_arm/no_such_rig.json", &options, &rig, &err), MN_IO);
    assert_null(rig);
    assert_non_null(strstr(err.message, "no_such_rig.json"));
    assert_int_equal(mn_voxel_rig_read_file("tests/data/voxel_arm", &options, &rig, &err), MN_IO);
    assert_int_equal(counter.live_bytes, 0);
}

/* ---- sweeps ------------------------------------------------------------------------------------ */

/* Load or fail cleanly: a failure has a code, a message and no rig; nothing is left allocated. */
static void read_clean(const void *data, size_t size, mn_status *out_status)
{
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_voxel_rig_options options = {.allocator = mn_counting_allocator(&counter)};
    mn_voxel_rig *rig = NULL;
    mn_error err;
    mn_status st = mn_voxel_rig_read_memory(data, size, &options, &rig, &err);
    assert_int_equal(err.code, st);
    if (st == MN_OK) {
        assert_non_null(rig);
        assert_true(rig->part_count > 0);
        mn_voxel_rig_free(rig);
    } else {
        assert_null(rig);
        assert_non_null(memchr(err.message, '\0', sizeof err.message));
        assert_true(err.message[0] != '\0');
    }
    assert_int_equal(counter.live_bytes, 0);
    if (out_status)
        *out_status = st;
}

static void test_truncated_example_fails_cleanly_at_every_length(void **state)
{
    (void)state;
    size_t n = strlen(spec_example);
    /* A heap copy of exactly each length, so a read past the end is caught by ASan. */
    size_t last_brace = n;
    while (spec_example[last_brace - 1] != '}')
        last_brace--;
    for (size_t len = 0; len <= n; len++) {
        char *copy = malloc(len ? len : 1);
        assert_non_null(copy);
        memcpy(copy, spec_example, len);
        mn_status st;
        read_clean(copy, len, &st);
        if (len < last_brace)
            assert_int_equal(st, MN_JSON_SYNTAX);
        else
            assert_int_equal(st, MN_OK);
        free(copy);
    }
}

static void test_mutated_example_loads_or_fails_cleanly(void **state)
{
    (void)state;
    static const char alphabet[] = "{}[]:,\"0123456789.-eE ntfaxyz\\";
    size_t n = strlen(spec_example);
    char *copy = malloc(n);
    assert_non_null(copy);
    uint32_t seed = 12345;
    int loaded = 0;
    for (int round = 0; round < 3000; round++) {
        memcpy(copy, spec_example, n);
        int edits = 1 + round % 4;
        for (int e = 0; e < edits; e++) {
            seed = seed * 1664525u + 1013904223u;
            size_t at = (seed >> 8) % n;
            seed = seed * 1664525u + 1013904223u;
            copy[at] = (seed >> 24) % 4 == 0 ? (char)(seed >> 16) : alphabet[(seed >> 16) % (sizeof alphabet - 1)];
        }
        mn_status st;
        read_clean(copy, n, &st);
        loaded += st == MN_OK;
    }
    printf("  %d of 3000 mutations still load\n", loaded);
    free(copy);
}

/* A growing text buffer for the large inputs below. */
typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void add(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if (t->s && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        t->cap = (t->cap + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
}

static void test_oversized_inputs_load_or_fail_cleanly(void **state)
{
    (void)state;
    /* A 20000-part chain listed children first: ordering is iterative, no deep recursion. */
    text t = {0};
    const uint32_t chain = 20000;
    add(&t, "{\"parts\":[");
    for (uint32_t i = chain; i-- > 0;) {
        if (i > 0)
            add(&t, "{\"name\":\"p%u\",\"parent\":\"p%u\",\"pivot\":[0,0,0]},", i, i - 1);
        else
            add(&t, "{\"name\":\"p0\",\"parent\":null,\"pivot\":[0,0,0]}");
    }
    add(&t, "]}");
    mn_voxel_rig *rig = NULL;
    mn_error err;
    assert_int_equal(mn_voxel_rig_read_memory(t.s, t.len, NULL, &rig, &err), MN_OK);
    assert_int_equal(rig->part_count, chain);
    for (uint32_t k = 0; k < chain; k++)
        assert_int_equal(rig->part_order[k], chain - 1 - k);
    mn_voxel_rig_free(rig);
    free(t.s);

    /* A 200 KB name and a 2000-element unknown array survive; paths stay bounded. */
    t = (text){0};
    add(&t, "{\"parts\":[{\"name\":\"");
    for (int i = 0; i < 200000; i++)
        add(&t, "n");
    add(&t, "\",\"parent\":null,\"pivot\":[0,0,0],\"big\":[");
    for (int i = 0; i < 2000; i++)
        add(&t, "%s%d", i ? "," : "", i);
    add(&t, "]}]}");
    assert_int_equal(mn_voxel_rig_read_memory(t.s, t.len, NULL, &rig, &err), MN_OK);
    assert_int_equal(strlen(rig->parts[0].name), 200000);
    assert_true(strlen(rig->parts[0].extras) > 8000);
    mn_voxel_rig_free(rig);
    free(t.s);

    /* An error deep in a long path is still reported, its path cut to the field's size. */
    t = (text){0};
    add(&t, "{\"parts\":[{\"name\":\"a\",\"parent\":null,\"pivot\":[0,0,0]}],\"joints\":[{\"name\":\"j\",\"part\":\"a\","
            "\"type\":\"rotation\",\"axis\":\"x\",\"min\":0,\"max\":0,\"rest\":0,\"drive\":\"auto\"}],\"animations\":[");
    for (int i = 0; i < 3000; i++)
        add(&t, "{\"name\":\"anim%d\",\"loop\":false,\"auto_play\":false,\"tracks\":[{\"joint\":\"j\",\"keys\":["
                "{\"t\":0,\"v\":0,\"interp\":\"linear\"}%s]}]},",
            i, i == 2999 ? ",{\"t\":0,\"v\":0,\"interp\":\"linear\"}" : "");
    t.len--; /* the last comma */
    add(&t, "]}");
    assert_int_equal(mn_voxel_rig_read_memory(t.s, t.len, NULL, &rig, &err), MN_INVALID_VALUE);
    assert_string_equal(err.path, "animations[2999].tracks[0].keys[1].t");
    free(t.s);

    /* A long cycle of long names: the message is cut, the path still names where it closes. */
    t = (text){0};
    add(&t, "{\"parts\":[");
    for (int i = 0; i < 40; i++)
        add(&t, "%s{\"name\":\"a_rather_long_part_name_%02d\",\"parent\":\"a_rather_long_part_name_%02d\","
                "\"pivot\":[0,0,0]}", i ? "," : "", i, (i + 1) % 40);
    add(&t, "]}");
    assert_int_equal(mn_voxel_rig_read_memory(t.s, t.len, NULL, &rig, &err), MN_HIERARCHY);
    assert_string_equal(err.path, "parts[0].parent");
    free(t.s);

    /* Numbers at the edges: 1e308 is a fine key time, but not a joint limit (a float). */
    const char *huge = "{\"parts\":[{\"name\":\"a\",\"parent\":null,\"pivot\":[0,0,0]}],\"joints\":[{\"name\":\"j\","
                       "\"part\":\"a\",\"type\":\"rotation\",\"axis\":\"x\",\"min\":-1e308,\"max\":0,\"rest\":0,"
                       "\"drive\":\"auto\"}]}";
    assert_int_equal(mn_voxel_rig_read_memory(huge, strlen(huge), NULL, &rig, &err), MN_NOT_FINITE);
    assert_string_equal(err.path, "joints[0].min");
    const char *far = "{\"parts\":[{\"name\":\"a\",\"parent\":null,\"pivot\":[0,0,0]}],\"joints\":[{\"name\":\"j\","
                      "\"part\":\"a\",\"type\":\"rotation\",\"axis\":\"x\",\"min\":0,\"max\":0,\"rest\":0,"
                      "\"drive\":\"auto\"}],\"animations\":[{\"name\":\"a\",\"loop\":false,\"auto_play\":false,"
                      "\"tracks\":[{\"joint\":\"j\",\"keys\":[{\"t\":-1e308,\"v\":0,\"interp\":\"linear\"},"
                      "{\"t\":1e308,\"v\":0,\"interp\":\"linear\"}]}]}]}";
    assert_int_equal(mn_voxel_rig_read_memory(far, strlen(far), NULL, &rig, &err), MN_OK);
    assert_true(rig->animations[0].duration_ms == 1e308);
    mn_voxel_rig_free(rig);
    /* 1e400 is not a JSON number jansson can hold: a syntax error, not a crash. */
    const char *inf = "{\"parts\":[{\"name\":\"a\",\"parent\":null,\"pivot\":[1e400,0,0]}]}";
    assert_int_equal(mn_voxel_rig_read_memory(inf, strlen(inf), NULL, &rig, &err), MN_JSON_SYNTAX);

    /* Nesting past the parser's depth limit in an unknown field: a syntax error. */
    t = (text){0};
    add(&t, "{\"parts\":[{\"name\":\"a\",\"parent\":null,\"pivot\":[0,0,0]}],\"deep\":");
    for (int i = 0; i < 5000; i++)
        add(&t, "[");
    for (int i = 0; i < 5000; i++)
        add(&t, "]");
    add(&t, "}");
    read_clean(t.s, t.len, NULL);
    free(t.s);

    /* Binary garbage, NUL bytes inside strings. */
    const char nul_name[] = "{\"parts\":[{\"name\":\"a\\u0000b\",\"parent\":null,\"pivot\":[0,0,0]}]}";
    read_clean(nul_name, sizeof nul_name - 1, NULL);
    uint8_t noise[512];
    for (size_t i = 0; i < sizeof noise; i++)
        noise[i] = (uint8_t)(i * 131 + 7);
    read_clean(noise, sizeof noise, NULL);
}

/* Fail the k-th allocation for k = 0, 1, ... until the read succeeds; every failure is clean. */
static void fail_every_allocation(const char *json)
{
    size_t size = strlen(json);
    for (long k = 0;; k++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = k;
        mn_voxel_rig_options options = {.allocator = mn_counting_allocator(&counter)};
        mn_voxel_rig *rig = NULL;
        mn_error err;
        mn_status st = mn_voxel_rig_read_memory(json, size, &options, &rig, &err);
        if (st == MN_OK) {
            assert_int_equal(counter.failures, 0);
            mn_voxel_rig_free(rig);
            assert_int_equal(counter.live_bytes, 0);
            assert_true(k > 0);
            return;
        }
        assert_int_equal(st, MN_OUT_OF_MEMORY);
        assert_int_equal(err.code, MN_OUT_OF_MEMORY);
        assert_null(rig);
        assert_int_equal(counter.live_bytes, 0);
        assert_true(k < 10000);
    }
}

/* The same through mn_voxel_rig_read_file, whose file buffer comes from the hooks too. */
static void fail_every_allocation_reading(const char *path)
{
    for (long k = 0;; k++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = k;
        mn_voxel_rig_options options = {.allocator = mn_counting_allocator(&counter)};
        mn_voxel_rig *rig = NULL;
        mn_error err;
        mn_status st = mn_voxel_rig_read_file(path, &options, &rig, &err);
        if (st == MN_OK) {
            mn_voxel_rig_free(rig);
            assert_int_equal(counter.live_bytes, 0);
            assert_true(k > 1);
            return;
        }
        assert_int_equal(st, MN_OUT_OF_MEMORY);
        assert_null(rig);
        assert_int_equal(counter.live_bytes, 0);
        assert_true(k < 10000);
    }
}

static void test_out_of_memory_at_every_allocation(void **state)
{
    (void)state;
    fail_every_allocation_reading("tests/data/voxel_arm/rig.json");
    fail_every_allocation(spec_example);
    char *big = dq("{'seed':1,'rig':{'extra':[1,2]," PARTS "," JOINTS ",'animations':[" ANIM("a") "," ANIM("b") "]}}");
    fail_every_allocation(big);
    free(big);
    /* Enough parts and keys that the arena grows past its first blocks. */
    text t = {0};
    add(&t, "{\"parts\":[");
    for (int i = 0; i < 300; i++)
        add(&t, "%s{\"name\":\"part_with_a_long_name_%d\",\"parent\":null,\"pivot\":[0,0,0],\"x\":%d}", i ? "," : "",
            i, i);
    add(&t, "],\"joints\":[{\"name\":\"j\",\"part\":\"part_with_a_long_name_7\",\"type\":\"rotation\",\"axis\":\"x\","
            "\"min\":0,\"max\":9,\"rest\":0,\"drive\":\"auto\"}],\"animations\":[{\"name\":\"a\",\"loop\":true,"
            "\"auto_play\":true,\"tracks\":[{\"joint\":\"j\",\"keys\":[");
    for (int i = 0; i < 2000; i++)
        add(&t, "%s{\"t\":%d,\"v\":1,\"interp\":\"linear\"}", i ? "," : "", i);
    add(&t, "]}]}]}");
    fail_every_allocation(t.s);
    free(t.s);
}

/*
 * A rig.json of one looping track of `keys` keys with random values and
 * eases (segments the baked pieces find hard to follow), malloc'd; *size its
 * length.
 */
static char *hard_rig_text(uint32_t keys, size_t *size)
{
    static const char *kinds[4] = {"ease-in", "ease-out", "ease-in-out", "bezier"};
    size_t cap = 512 + (size_t)keys * 64;
    char *json = malloc(cap);
    assert_non_null(json);
    size_t n = (size_t)snprintf(
        json, cap,
        "{\"format\":\"voxel-rig\",\"version\":1,\"kind\":\"cube\",\"voxel_size\":1,"
        "\"parts\":[{\"name\":\"p\",\"parent\":null,\"pivot\":[0,0,0]}],"
        "\"joints\":[{\"name\":\"j\",\"part\":\"p\",\"type\":\"rotation\",\"axis\":\"x\","
        "\"min\":-1,\"max\":1,\"rest\":0,\"drive\":\"auto\"}],"
        "\"animations\":[{\"name\":\"a\",\"loop\":true,\"auto_play\":true,"
        "\"duration_ms\":%u,\"tracks\":[{\"joint\":\"j\",\"keys\":[",
        10u * keys);
    uint32_t rng = 0x13579bdu;
    for (uint32_t i = 0; i < keys; i++) {
        rng = rng * 1664525u + 1013904223u;
        n += (size_t)snprintf(json + n, cap - n, "%s{\"t\":%u,\"v\":%.6f,\"interp\":\"%s\"}",
                              i ? "," : "", 10u * i, (double)(rng >> 8) / 16777216.0 - 0.5,
                              kinds[rng % 4]);
    }
    n += (size_t)snprintf(json + n, cap - n, "]}]}]}");
    assert_true(n < cap);
    *size = n;
    return json;
}

static void a_rig_past_its_baking_budget_is_sampled_exactly(void **state)
{
    (void)state;
    /* Baking costs samples of the exact curves and memory, and a rig.json may only spend a
       budget in proportion to its size (plus room for any ordinary rig): a small rig of hard
       keys is baked; one of 12,000 such keys runs past the budget, is left to the exact
       curves (the same values), and its load stays in proportion to its text. */
    static const uint32_t counts[2] = {200, 12000};
    for (int c = 0; c < 2; c++) {
        size_t size = 0;
        char *json = hard_rig_text(counts[c], &size);
        mn_counting_alloc counter = mn_counting_alloc_make();
        mn_voxel_rig_options options = {.allocator = mn_counting_allocator(&counter)};
        mn_voxel_rig *rig = NULL;
        mn_error err;
        assert_int_equal(mn_voxel_rig_read_memory(json, size, &options, &rig, &err), MN_OK);
        const fcurve_baked *const *baked = mni_voxel_rig_baked_tracks(rig, 0);
        assert_non_null(baked);
        if (c == 0)
            assert_non_null(baked[0]);
        else
            assert_null(baked[0]);
        assert_true(counter.peak_bytes < ((size_t)8 << 20) + 64 * size);
        const mn_fcurve *curve = &rig->animations[0].tracks[0].curve;
        double tol = c == 0 ? 1e-7 : 0.0;   /* baked: within 1e-7 of the range (1); else exact */
        for (int i = 0; i <= 4000; i++) {
            double t = -500.0 + 10.0 * counts[c] * 1.5 * i / 4000.0;
            float value = NAN;
            mn_voxel_sample_animation(rig, 0, t, &value);
            assert_true(fabs((double)value - (double)(float)mn_fcurve_sample(curve, t)) <=
                        tol + 1e-7);
        }
        mn_voxel_rig_free(rig);
        assert_int_equal(counter.live_bytes, 0);
        free(json);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_example_loads_with_exact_values),
        cmocka_unit_test(test_defaults_when_optional_members_are_absent),
        cmocka_unit_test(test_every_kind_name_and_which_are_skinned),
        cmocka_unit_test(test_rig_member_holds_the_rig_when_there_are_no_parts),
        cmocka_unit_test(test_parents_after_children_give_a_parents_first_order),
        cmocka_unit_test(test_each_part_lists_its_joints_in_declared_order),
        cmocka_unit_test(test_unknown_fields_are_kept_as_extras),
        cmocka_unit_test(test_axes_are_normalised),
        cmocka_unit_test(test_duration_defaults_to_the_largest_key_time),
        cmocka_unit_test(test_every_interpolation_name),
        cmocka_unit_test(test_find_by_name),
        cmocka_unit_test(test_every_validation_error_names_its_path),
        cmocka_unit_test(test_syntax_errors_give_line_and_column),
        cmocka_unit_test(test_byte_order_mark_and_trailing_space_are_accepted),
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_reads_the_voxel_arm_files),
        cmocka_unit_test(test_truncated_example_fails_cleanly_at_every_length),
        cmocka_unit_test(test_mutated_example_loads_or_fails_cleanly),
        cmocka_unit_test(test_oversized_inputs_load_or_fail_cleanly),
        cmocka_unit_test(test_out_of_memory_at_every_allocation),
        cmocka_unit_test(a_rig_past_its_baking_budget_is_sampled_exactly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
