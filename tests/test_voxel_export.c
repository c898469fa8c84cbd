/*
 * The voxel exporter (voxel_export.h), on the project's own test model
 * tests/data/voxel_arm (a rigged arm with a socket, mounts, a loop with
 * Bézier and eased keys, a one-shot with a constant step and a translation;
 * and its skinned variant).  Every check reads the export back from the
 * file written (mn_voxel_export_file) and compares with the runtime,
 * mn_voxel_pose, within 1e-4 of the model's size:
 *
 *   - rest: every node's rest world is S · W(part) · T(pivot) · S⁻¹, and
 *     every exported vertex lands where the posed sculpt puts it;
 *   - clips: each baked animation, played by the playback runtime
 *     (mn_clip_from_gltf, mn_clip_sample) at 240 times across it (between
 *     samples as well as on them), matches mn_voxel_pose with that animation;
 *   - the interface: driving the exported nodes from interface.json alone
 *     (the rule of voxel_export.h) at random caller values matches
 *     mn_voxel_pose with those values; node extras mirror the entries;
 *   - the skinned kind: skinning matrices and skinned vertices of the export
 *     match mn_voxel_skinning_matrices at rest and along the clip;
 *   - a static mesh, --scale, the resolved rig form, byte-identical reruns;
 *   - errors (missing part mesh, bad GLB, invalid rig, bad output name)
 *     name the file and part and leave no file behind.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <marionette/clip.h>
#include <marionette/gltf.h>
#include <marionette/math.h>
#include <marionette/model.h>
#include <marionette/pose.h>
#include <marionette/voxel/export.h>
#include <marionette/voxel/rig.h>

#include "counting_alloc.h"
#include "oom_walk.h"
#include "files.h"

#define ARM "tests/data/voxel_arm/"

/* ---- files ------------------------------------------------------------------------------------- */

static void copy_file(const char *from, const char *to)
{
    size_t n;
    char *text = mn_test_read_file(from, &n);
    mn_test_write_file(to, text, n);
    free(text);
}

/* ---- the export and the runtime ------------------------------------------------------------------ */

typedef struct fixture {
    char dir[64];
    mn_voxel_rig *rig;
    mn_part_mesh **parts;   /* rigged: per part */
    mn_part_mesh *mesh;     /* skinned */
    mn_model *model;        /* the export, read back from the file */
    double scale, size;
} fixture;

static mn_voxel_rig *read_rig(const char *path)
{
    mn_voxel_rig *rig = NULL;
    mn_error err;
    if (mn_voxel_rig_read_file(path, NULL, &rig, &err) != MN_OK)
        fail_msg("%s: %s", path, err.message);
    return rig;
}

static mn_model *read_model(const char *path)
{
    mn_model *m = NULL;
    mn_error err;
    if (mn_gltf_read_file(path, NULL, &m, &err) != MN_OK)
        fail_msg("%s: %s", path, err.message);
    return m;
}

/* Export rig_path (meshes beside it) to <temp>/<out_name> and read everything back. */
static void fixture_make(fixture *f, const char *rig_path, const char *out_name, float scale)
{
    memset(f, 0, sizeof *f);
    mn_test_make_temp_dir(f->dir, sizeof f->dir, "voxel_export");
    char out[128];
    snprintf(out, sizeof out, "%s/%s", f->dir, out_name);
    mn_voxel_export_options o;
    memset(&o, 0, sizeof o);
    o.scale = scale;
    mn_error err;
    mn_status st = mn_voxel_export_file(rig_path, NULL, out, &o, &err);
    if (st != MN_OK)
        fail_msg("export %s: %s: %s", rig_path, mn_status_name(st), err.message);
    f->rig = read_rig(rig_path);
    f->model = read_model(out);
    assert_int_equal(f->model->warning_count, 0);
    f->scale = scale ? scale : f->rig->voxel_size;
    char dir[128];
    snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(rig_path, '/') - rig_path), rig_path);
    if (mn_voxel_kind_is_skinned(f->rig->kind)) {
        char mesh[160];
        snprintf(mesh, sizeof mesh, "%s/mesh.glb", dir);
        assert_int_equal(mn_part_mesh_read_file(mesh, true, NULL, &f->mesh, &err), MN_OK);
    } else {
        f->parts = calloc(f->rig->part_count, sizeof *f->parts);
        assert_non_null(f->parts);
        for (uint32_t p = 0; p < f->rig->part_count; p++) {
            char mesh[160];
            snprintf(mesh, sizeof mesh, "%s/meshes/%s.glb", dir, f->rig->parts[p].name);
            assert_int_equal(mn_part_mesh_read_file(mesh, false, NULL, &f->parts[p], &err), MN_OK);
        }
    }
    double size = 0.0;
    for (int k = 0; k < 3; k++)
        size = fmax(size, (double)f->model->bounds_max[k] - (double)f->model->bounds_min[k]);
    assert_true(size > 0.0);
    f->size = size;
}

static void fixture_free(fixture *f)
{
    if (f->parts)
        for (uint32_t p = 0; p < f->rig->part_count; p++)
            mn_part_mesh_free(f->parts[p]);
    free(f->parts);
    mn_part_mesh_free(f->mesh);
    mn_model_free(f->model);
    mn_voxel_rig_free(f->rig);
    mn_test_remove_tree(f->dir);
}

/* What node p's world must be: S · W · T(pivot) · S⁻¹ (W the part's world from mn_voxel_pose). */
static void expected_node_world(const fixture *f, const float *worlds, uint32_t p, float out[16])
{
    const float *w = &worlds[16 * p];
    const float *pivot = f->rig->parts[p].pivot;
    memcpy(out, w, 16 * sizeof *out);
    for (int r = 0; r < 3; r++) {
        double v = w[12 + r];
        for (int k = 0; k < 3; k++)
            v += (double)w[k * 4 + r] * pivot[k];
        out[12 + r] = (float)(v * f->scale);
    }
}

/* Largest difference of two worlds: translations relative to size, rotations absolute. */
static double world_error(const float a[16], const float b[16], double size)
{
    double e = 0.0;
    for (int i = 0; i < 16; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        e = fmax(e, i >= 12 && i < 15 ? d / size : d);
    }
    return e;
}

/* World matrices of every node of m from a pose over its nodes (node_order, parents first). */
static void pose_worlds(const mn_model *m, const mn_pose *pose, float *locals, float *worlds)
{
    mn_pose_local_matrices(pose, locals);
    for (uint32_t k = 0; k < m->node_count; k++) {
        uint32_t n = m->node_order[k];
        if (m->nodes[n].parent == MN_NONE)
            memcpy(&worlds[16 * n], &locals[16 * n], 16 * sizeof(float));
        else
            mn_mat4_mul(&worlds[16 * n], &worlds[16 * m->nodes[n].parent], &locals[16 * n]);
    }
}

static void pose_from_rest(const mn_model *m, mn_pose *pose)
{
    for (uint32_t n = 0; n < m->node_count; n++)
        assert_int_equal(mn_pose_set_joint(pose, n, m->nodes[n].translation, m->nodes[n].rotation, m->nodes[n].scale, NULL), MN_OK);
}

/* ---- rest ---------------------------------------------------------------------------------------- */

static void test_rest_worlds_and_geometry_match_the_rig_at_rest(void **state)
{
    (void)state;
    fixture f;
    fixture_make(&f, ARM "rig.json", "arm.glb", 0.0f);
    const mn_voxel_rig *rig = f.rig;
    const mn_model *m = f.model;
    assert_true(m->node_count == rig->part_count);
    float worlds[16 * 8], nodes[16 * 8], expect[16];
    assert_int_equal(mn_voxel_pose(rig, NULL, worlds, NULL), MN_OK);
    mn_model_rest_worlds(m, nodes);
    double worst = 0.0, worst_vertex = 0.0;
    for (uint32_t p = 0; p < rig->part_count; p++) {
        assert_string_equal(m->nodes[p].name, rig->parts[p].name);
        uint32_t parent = rig->parts[p].parent;
        assert_int_equal(m->nodes[p].parent, parent);
        expected_node_world(&f, worlds, p, expect);
        worst = fmax(worst, world_error(&nodes[16 * p], expect, f.size));
        const mn_part_mesh *pm = f.parts[p];
        if (pm->vertex_count == 0) {   /* the socket */
            assert_int_equal(m->nodes[p].mesh, MN_NONE);
            json_t *extras = json_loads(m->nodes[p].extras, 0, NULL);
            assert_true(json_is_true(json_object_get(extras, "socket")));
            json_decref(extras);
            continue;
        }
        /* Every vertex: node world × exported position = S × (W · sculpted position). */
        const mn_primitive *prim = &m->meshes[m->nodes[p].mesh].primitives[0];
        assert_string_equal(m->meshes[m->nodes[p].mesh].name, rig->parts[p].name);
        const mn_accessor *pos = &m->accessors[mn_primitive_find(prim, MN_SEMANTIC_POSITION, 0)];
        assert_int_equal(pos->count, pm->vertex_count);
        assert_int_not_equal(mn_primitive_find(prim, MN_SEMANTIC_COLOR, 0), MN_NONE);
        const float *v = mn_accessor_float_view(pos);
        assert_non_null(v);
        for (uint32_t i = 0; i < pos->count; i++) {
            float got[3], want[3];
            mn_mat4_transform_point(got, &nodes[16 * p], &v[3 * i]);
            mn_mat4_transform_point(want, &worlds[16 * p], &pm->positions[3 * i]);
            for (int k = 0; k < 3; k++)
                worst_vertex = fmax(worst_vertex, fabs((double)got[k] - want[k] * f.scale) / f.size);
        }
    }
    print_message("rest: worst node world error %.3g, vertex %.3g (x size %.3g)\n", worst, worst_vertex, f.size);
    assert_true(worst <= 1e-4);
    assert_true(worst_vertex <= 1e-4);
    fixture_free(&f);
}

/* ---- clips --------------------------------------------------------------------------------------- */

/* Play every baked clip with the runtime at `times` times across it and compare with mn_voxel_pose. */
static double clips_error(const fixture *f, int times)
{
    const mn_model *m = f->model;
    const mn_voxel_rig *rig = f->rig;
    assert_int_equal(m->animation_count, rig->animation_count);
    mn_pose pose;
    assert_int_equal(mn_pose_create(&pose, m->node_count, NULL, NULL), MN_OK);
    float *locals = malloc(64u * m->node_count), *nodes = malloc(64u * m->node_count);
    float *worlds = malloc(64u * rig->part_count);
    assert_non_null(locals);
    assert_non_null(nodes);
    assert_non_null(worlds);
    double worst = 0.0;
    for (uint32_t a = 0; a < rig->animation_count; a++) {
        assert_string_equal(m->animations[a].name, rig->animations[a].name);
        mn_clip *clip = NULL;
        assert_int_equal(mn_clip_from_gltf(m, a, NULL, &clip, NULL), MN_OK);
        double d = rig->animations[a].duration_ms / 1000.0;
        assert_float_equal(mn_clip_duration(clip), d, 1e-6);
        for (int i = 0; i <= times; i++) {
            /* An irrational step: the times fall between samples, never on one. */
            float t = (float)(d * fmod(i * 0.6180339887, 1.0));
            if (i == times)
                t = (float)d;
            pose_from_rest(m, &pose);
            assert_int_equal(mn_clip_sample(clip, t, &pose, NULL), MN_OK);
            pose_worlds(m, &pose, locals, nodes);
            uint32_t anim = a;
            mn_voxel_pose_input in = {NULL, &anim, 1, (double)t * 1000.0};
            assert_int_equal(mn_voxel_pose(rig, &in, worlds, NULL), MN_OK);
            for (uint32_t p = 0; p < rig->part_count; p++) {
                float expect[16];
                expected_node_world(f, worlds, p, expect);
                double e = world_error(&nodes[16 * p], expect, f->size);
                if (e > worst) {
                    worst = e;
                    if (getenv("MN_DEBUG"))
                        print_message("anim %u t %.9g part %u err %.3g\n", a, (double)t, p, e);
                }
            }
        }
        mn_clip_free(clip);
    }
    mn_pose_free(&pose);
    free(locals);
    free(nodes);
    free(worlds);
    return worst;
}

/* Every k/rate below the duration, and the duration, is a key time of the channel. */
static bool has_grid(const mn_channel *ch, double rate, double duration)
{
    uint32_t at = 0;
    for (int k = 0; k / rate < duration; k++) {
        float t = (float)(k / rate);
        while (at < ch->key_count && ch->times[at] < t)
            at++;
        if (at == ch->key_count || ch->times[at] != t)
            return false;
    }
    /* The end: the largest float not after the duration (a step at the end holds from its exact time). */
    float end = (float)duration;
    if ((double)end > duration)
        end = nextafterf(end, -INFINITY);
    return ch->times[ch->key_count - 1] == end;
}

static void test_baked_clips_play_like_the_rig(void **state)
{
    (void)state;
    fixture f;
    fixture_make(&f, ARM "rig.json", "arm.gltf", 0.0f);
    double worst = clips_error(&f, 240);
    print_message("clips: worst node world error %.3g x size over 240 times a clip\n", worst);
    assert_true(worst <= 1e-4);
    /* Loop and autoPlay ride in the extras; LINEAR translation + rotation for each driven node. */
    assert_string_equal(f.model->animations[0].extras, "{\"loop\":true,\"autoPlay\":true}");
    assert_string_equal(f.model->animations[1].extras, "{\"loop\":false,\"autoPlay\":false}");
    assert_int_equal(f.model->animations[0].channel_count, 2);   /* shoulder drives upper */
    assert_int_equal(f.model->animations[1].channel_count, 2);   /* elbow and reach drive fore */
    const mn_channel *ch = &f.model->animations[0].channels[0];
    assert_int_equal(ch->interpolation, MN_INTERP_LINEAR);
    assert_int_equal(ch->node, mn_voxel_rig_find_part(f.rig, "upper"));
    /* 60 Hz over 2 s: every k/60 for k < 120 and the end are keys (refinement adds more between). */
    assert_true(has_grid(ch, 60.0, 2.0));
    assert_true(ch->key_count > 121);
    /* The one-shot's constant step at 1.2 s: a key just before it holds the old value. */
    const mn_channel *wave = &f.model->animations[1].channels[1];
    bool before = false;
    for (uint32_t k = 0; k < wave->key_count; k++)
        before |= wave->times[k] < 1.2f && wave->times[k] > 1.2f - 1e-6f;
    assert_true(before);
    fixture_free(&f);
}

static void test_rate_sets_the_sample_grid(void **state)
{
    (void)state;
    fixture f;
    memset(&f, 0, sizeof f);
    mn_test_make_temp_dir(f.dir, sizeof f.dir, "voxel_export");
    char out[128];
    snprintf(out, sizeof out, "%s/slow.glb", f.dir);
    mn_voxel_export_options o;
    memset(&o, 0, sizeof o);
    o.rate = 10.0f;
    mn_error err;
    assert_int_equal(mn_voxel_export_file(ARM "rig.json", NULL, out, &o, &err), MN_OK);
    f.rig = read_rig(ARM "rig.json");
    f.model = read_model(out);
    f.scale = f.rig->voxel_size;
    for (int k = 0; k < 3; k++)
        f.size = fmax(f.size, (double)f.model->bounds_max[k] - (double)f.model->bounds_min[k]);
    assert_true(has_grid(&f.model->animations[0].channels[0], 10.0, 2.0));
    assert_true(has_grid(&f.model->animations[1].channels[0], 10.0, 1.2));
    /* A coarse grid is refined where LINEAR would stray: the clips still play like the rig. */
    double worst = clips_error(&f, 240);
    print_message("10 Hz: worst node world error %.3g x size, %u keys in idle\n", worst,
                  f.model->animations[0].channels[0].key_count);
    assert_true(worst <= 1e-4);
    fixture_free(&f);
}

/* ---- the interface --------------------------------------------------------------------------------- */

/* D(entry, v): R(axis, v) or T(axis · v) as a matrix. */
static void joint_matrix(json_t *entry, float v, float out[16])
{
    float axis[3];
    for (int k = 0; k < 3; k++)
        axis[k] = (float)json_number_value(json_array_get(json_object_get(entry, "axis"), (size_t)k));
    mn_mat4_identity(out);
    if (strcmp(json_string_value(json_object_get(entry, "kind")), "rotation") == 0) {
        float q[4];
        mn_quat_from_axis_angle(q, axis, v);
        mn_quat_to_mat4(out, q);
    } else {
        for (int k = 0; k < 3; k++)
            out[12 + k] = axis[k] * v;
    }
}

static void test_interface_alone_drives_the_nodes_like_the_rig(void **state)
{
    (void)state;
    fixture f;
    fixture_make(&f, ARM "rig.json", "robot.glb", 2.0f);
    char path[128];
    snprintf(path, sizeof path, "%s/robot.interface.json", f.dir);
    json_error_t jerr;
    json_t *iface = json_load_file(path, 0, &jerr);
    assert_non_null(iface);
    assert_string_equal(json_string_value(json_object_get(iface, "format")), "voxel-rig-interface");
    assert_string_equal(json_string_value(json_object_get(iface, "model")), "robot");
    assert_float_equal(json_number_value(json_object_get(iface, "scale")), 2.0, 0);
    json_t *joints = json_object_get(iface, "joints");
    /* Every caller joint, rig order; the auto joint "reach" is not one. */
    assert_int_equal(json_array_size(joints), 4);
    const char *names[4] = {"turn", "shoulder", "elbow", "tip_mount"};
    for (size_t i = 0; i < 4; i++)
        assert_string_equal(json_string_value(json_object_get(json_array_get(joints, i), "name")), names[i]);
    json_t *sockets = json_object_get(iface, "sockets");
    assert_int_equal(json_array_size(sockets), 1);
    assert_string_equal(json_string_value(json_array_get(sockets, 0)), "tip");
    json_t *anims = json_object_get(iface, "animations");
    assert_int_equal(json_array_size(anims), 2);
    assert_true(json_is_true(json_object_get(json_array_get(anims, 0), "autoPlay")));
    assert_float_equal(json_number_value(json_object_get(json_array_get(anims, 1), "duration")), 1.2, 1e-12);

    const mn_model *m = f.model;
    const mn_voxel_rig *rig = f.rig;
    /* Node extras mirror the interface entries of their node. */
    for (uint32_t n = 0; n < rig->part_count; n++) {
        json_t *extras = m->nodes[n].extras ? json_loads(m->nodes[n].extras, 0, &jerr) : NULL;
        json_t *mine = json_array();
        for (size_t i = 0; i < json_array_size(joints); i++)
            if (json_integer_value(json_object_get(json_array_get(joints, i), "node_index")) == (json_int_t)n)
                json_array_append(mine, json_array_get(joints, i));
        if (json_array_size(mine) == 0)
            assert_true(!extras || !json_object_get(extras, "joints"));
        else
            assert_true(json_equal(json_object_get(extras, "joints"), mine));
        json_decref(mine);
        json_decref(extras);
    }

    float *caller = malloc(sizeof(float) * rig->joint_count), worlds[16 * 8], nodes[16 * 8], locals[16 * 8];
    assert_non_null(caller);
    srand(7);
    double worst = 0.0;
    for (int trial = 0; trial < 50; trial++) {
        for (uint32_t j = 0; j < rig->joint_count; j++)
            caller[j] = NAN;
        /* Each node: default · (Π D(rest))⁻¹ · Π D(v), from the interface and the file alone. */
        for (uint32_t n = 0; n < m->node_count; n++) {
            float local[16], undo[16] = {0}, drive[16], tmp[16];
            mn_node_local_matrix(&m->nodes[n], local);
            mn_mat4_identity(undo);
            mn_mat4_identity(drive);
            for (size_t i = 0; i < json_array_size(joints); i++) {
                json_t *e = json_array_get(joints, i);
                if (json_integer_value(json_object_get(e, "node_index")) != (json_int_t)n)
                    continue;
                assert_string_equal(json_string_value(json_object_get(e, "node")), m->nodes[n].name);
                float lo = (float)json_number_value(json_object_get(e, "min"));
                float hi = (float)json_number_value(json_object_get(e, "max"));
                float rest = (float)json_number_value(json_object_get(e, "rest"));
                float v = lo + (hi - lo) * (float)rand() / (float)RAND_MAX;
                float d[16];
                joint_matrix(e, rest, d);
                mn_mat4_mul(tmp, undo, d);
                memcpy(undo, tmp, sizeof tmp);
                joint_matrix(e, v, d);
                mn_mat4_mul(tmp, drive, d);
                memcpy(drive, tmp, sizeof tmp);
                /* The rig takes the value in voxels (translations) and radians. */
                uint32_t j = mn_voxel_rig_find_joint(rig, json_string_value(json_object_get(e, "name")));
                caller[j] = rig->joints[j].type == MN_VOXEL_TRANSLATION ? v / (float)f.scale : v;
            }
            float inv[16];
            assert_true(mn_mat4_invert(inv, undo));
            mn_mat4_mul(tmp, local, inv);
            mn_mat4_mul(&locals[16 * n], tmp, drive);
        }
        for (uint32_t k = 0; k < m->node_count; k++) {
            uint32_t n = m->node_order[k];
            if (m->nodes[n].parent == MN_NONE)
                memcpy(&nodes[16 * n], &locals[16 * n], sizeof(float) * 16);
            else
                mn_mat4_mul(&nodes[16 * n], &nodes[16 * m->nodes[n].parent], &locals[16 * n]);
        }
        mn_voxel_pose_input in = {caller, NULL, 0, 0.0};
        assert_int_equal(mn_voxel_pose(rig, &in, worlds, NULL), MN_OK);
        for (uint32_t p = 0; p < rig->part_count; p++) {
            float expect[16];
            expected_node_world(&f, worlds, p, expect);
            worst = fmax(worst, world_error(&nodes[16 * p], expect, f.size));
        }
    }
    print_message("interface: worst node world error %.3g x size over 50 random poses\n", worst);
    assert_true(worst <= 1e-4);
    free(caller);
    json_decref(iface);
    fixture_free(&f);
}

/* ---- the skinned kind ------------------------------------------------------------------------------- */

static void test_skinned_kind_exports_one_skinned_mesh_with_the_same_motion(void **state)
{
    (void)state;
    fixture f;
    fixture_make(&f, ARM "skinned/rig.json", "skinned.glb", 0.0f);
    const mn_model *m = f.model;
    const mn_voxel_rig *rig = f.rig;
    const mn_part_mesh *mesh = f.mesh;
    assert_int_equal(m->skin_count, 1);
    assert_int_equal(m->mesh_count, 1);
    const mn_skin *skin = &m->skins[0];
    assert_int_equal(skin->joint_count, mesh->bone_count);
    uint32_t mesh_node = MN_NONE;
    for (uint32_t n = 0; n < m->node_count; n++)
        if (m->nodes[n].mesh != MN_NONE)
            mesh_node = n;
    assert_int_not_equal(mesh_node, MN_NONE);
    assert_int_equal(m->nodes[mesh_node].parent, MN_NONE);   /* a skinned mesh on a root node */
    assert_int_equal(m->nodes[mesh_node].skin, 0);
    const mn_primitive *prim = &m->meshes[0].primitives[0];
    const mn_accessor *pos = &m->accessors[mn_primitive_find(prim, MN_SEMANTIC_POSITION, 0)];
    const float *v = mn_accessor_float_view(pos);
    uint16_t *joints = malloc(8u * pos->count);
    float *weights = malloc(16u * pos->count);
    assert_non_null(joints);
    assert_non_null(weights);
    assert_true(mn_primitive_skin_influences(m, prim, joints, weights));

    mn_pose pose;
    assert_int_equal(mn_pose_create(&pose, m->node_count, NULL, NULL), MN_OK);
    float *locals = malloc(64u * m->node_count), *nodes = malloc(64u * m->node_count);
    float *palette = malloc(64u * mesh->bone_count), *runtime = malloc(64u * mesh->bone_count);
    float worlds[16 * 8];
    assert_non_null(locals);
    assert_non_null(nodes);
    assert_non_null(palette);
    assert_non_null(runtime);
    mn_clip *clip = NULL;
    assert_int_equal(mn_clip_from_gltf(m, 0, NULL, &clip, NULL), MN_OK);
    double worst = 0.0;
    for (int i = -1; i < 60; i++) {
        float t = i < 0 ? 0.0f : (float)(fmod(i * 0.6180339887, 1.0) * rig->animations[0].duration_ms / 1000.0);
        pose_from_rest(m, &pose);
        if (i >= 0)
            assert_int_equal(mn_clip_sample(clip, t, &pose, NULL), MN_OK);
        pose_worlds(m, &pose, locals, nodes);
        uint32_t anim = 0;
        mn_voxel_pose_input in = {NULL, &anim, i < 0 ? 0u : 1u, (double)t * 1000.0};
        assert_int_equal(mn_voxel_pose(rig, &in, worlds, NULL), MN_OK);
        mn_voxel_skinning_matrices(rig, mesh, NULL, worlds, runtime);
        for (uint32_t k = 0; k < skin->joint_count; k++)
            mn_mat4_mul(&palette[16 * k], &nodes[16 * skin->joints[k]], &skin->inverse_bind[16 * k]);
        /* Each vertex skinned both ways: the export's equals S × the runtime's. */
        for (uint32_t vi = 0; vi < pos->count; vi++) {
            double got[3] = {0, 0, 0}, want[3] = {0, 0, 0};
            for (int c = 0; c < 4; c++) {
                float a[3], b[3];
                mn_mat4_transform_point(a, &palette[16 * joints[4 * vi + c]], &v[3 * vi]);
                mn_mat4_transform_point(b, &runtime[16 * mesh->joints[4 * vi + c]], &mesh->positions[3 * vi]);
                for (int k = 0; k < 3; k++) {
                    got[k] += weights[4 * vi + c] * a[k];
                    want[k] += mesh->weights[4 * vi + c] * b[k] * f.scale;
                }
            }
            for (int k = 0; k < 3; k++)
                worst = fmax(worst, fabs(got[k] - want[k]) / f.size);
        }
    }
    print_message("skinned: worst vertex error %.3g x size, rest and 60 clip times\n", worst);
    assert_true(worst <= 1e-4);
    mn_clip_free(clip);
    mn_pose_free(&pose);
    free(locals);
    free(nodes);
    free(palette);
    free(runtime);
    free(joints);
    free(weights);
    fixture_free(&f);
}

/* ---- static meshes, scale, forms ------------------------------------------------------------------- */

static void test_static_mesh_is_one_scaled_node_without_interface(void **state)
{
    (void)state;
    char dir[64], out[128], listing[256];
    mn_test_make_temp_dir(dir, sizeof dir, "voxel_export");
    snprintf(out, sizeof out, "%s/static.glb", dir);
    mn_voxel_export_options o;
    memset(&o, 0, sizeof o);
    o.scale = 0.5f;
    mn_error err;
    assert_int_equal(mn_voxel_export_file(NULL, ARM "meshes/upper.glb", out, &o, &err), MN_OK);
    mn_test_list_dir(dir, listing, sizeof listing);
    assert_string_equal(listing, "static.glb");
    mn_model *m = read_model(out);
    mn_part_mesh *pm = NULL;
    assert_int_equal(mn_part_mesh_read_file(ARM "meshes/upper.glb", false, NULL, &pm, &err), MN_OK);
    assert_int_equal(m->node_count, 1);
    assert_int_equal(m->animation_count, 0);
    const mn_accessor *pos = &m->accessors[mn_primitive_find(&m->meshes[0].primitives[0], MN_SEMANTIC_POSITION, 0)];
    const float *v = mn_accessor_float_view(pos);
    assert_int_equal(pos->count, pm->vertex_count);
    for (uint32_t i = 0; i < 3 * pos->count; i++)
        assert_float_equal(v[i], pm->positions[i] * 0.5f, 1e-6);
    mn_part_mesh_free(pm);
    mn_model_free(m);
    mn_test_remove_tree(dir);
}

static void test_resolved_rig_form_and_reruns_give_the_same_bytes(void **state)
{
    (void)state;
    char dir[64], path[160];
    mn_test_make_temp_dir(dir, sizeof dir, "voxel_export");
    size_t n;
    char *raw = mn_test_read_file(ARM "rig.json", &n);
    char *resolved = malloc(n + 64);
    assert_non_null(resolved);
    int len = snprintf(resolved, n + 64, "{\"run\": 7, \"rig\": %s}", raw);
    snprintf(path, sizeof path, "%s/record.json", dir);
    mn_test_write_file(path, resolved, (size_t)len);
    char a[160], b[160], c[160];
    snprintf(a, sizeof a, "%s/a.glb", dir);
    snprintf(b, sizeof b, "%s/b.glb", dir);
    snprintf(c, sizeof c, "%s/c.glb", dir);
    mn_error err;
    assert_int_equal(mn_voxel_export_file(ARM "rig.json", NULL, a, NULL, &err), MN_OK);
    assert_int_equal(mn_voxel_export_file(ARM "rig.json", ARM "meshes", b, NULL, &err), MN_OK);
    assert_int_equal(mn_voxel_export_file(path, ARM "meshes/", c, NULL, &err), MN_OK);
    size_t na, nb, nc;
    char *ta = mn_test_read_file(a, &na), *tb = mn_test_read_file(b, &nb), *tc = mn_test_read_file(c, &nc);
    assert_int_equal(na, nb);
    assert_int_equal(na, nc);
    assert_memory_equal(ta, tb, na);
    assert_memory_equal(ta, tc, na);
    free(ta);
    free(tb);
    free(tc);
    /* The interfaces differ only in the model's name. */
    snprintf(path, sizeof path, "%s/a.interface.json", dir);
    ta = mn_test_read_file(path, &na);
    snprintf(path, sizeof path, "%s/c.interface.json", dir);
    tc = mn_test_read_file(path, &nc);
    assert_int_equal(na, nc);
    assert_non_null(strstr(ta, "\"model\": \"a\""));
    free(ta);
    free(tc);
    free(raw);
    free(resolved);
    mn_test_remove_tree(dir);
}

/* ---- errors ---------------------------------------------------------------------------------------- */

/* A copy of voxel_arm in dir (rig.json, meshes/). */
static void copy_arm(const char *dir)
{
    char from[160], to[160];
    snprintf(to, sizeof to, "%s/rig.json", dir);
    copy_file(ARM "rig.json", to);
    snprintf(to, sizeof to, "%s/meshes", dir);
    assert_int_equal(mkdir(to, 0755), 0);
    const char *parts[4] = {"base", "upper", "fore", "tip"};
    for (int i = 0; i < 4; i++) {
        snprintf(from, sizeof from, ARM "meshes/%s.glb", parts[i]);
        snprintf(to, sizeof to, "%s/meshes/%s.glb", dir, parts[i]);
        copy_file(from, to);
    }
}

static void expect_failure(const char *dir, const char *rig, mn_status code, const char *needle1,
                           const char *needle2)
{
    char out[160], listing[256];
    snprintf(out, sizeof out, "%s/out/model.glb", dir);
    mn_error err;
    mn_status st = mn_voxel_export_file(rig, NULL, out, NULL, &err);
    print_message("expected failure: %s: %s\n", mn_status_name(st), err.message);
    assert_int_equal(st, code);
    assert_non_null(strstr(err.message, needle1));
    if (needle2)
        assert_non_null(strstr(err.message, needle2));
    char outdir[128];
    snprintf(outdir, sizeof outdir, "%s/out", dir);
    mn_test_list_dir(outdir, listing, sizeof listing);
    assert_string_equal(listing, "");   /* nothing left behind */
}

static void test_errors_name_the_file_and_leave_nothing_behind(void **state)
{
    (void)state;
    char dir[64], path[160], rig[160];
    mn_test_make_temp_dir(dir, sizeof dir, "voxel_export");
    copy_arm(dir);
    snprintf(path, sizeof path, "%s/out", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(rig, sizeof rig, "%s/rig.json", dir);

    /* A part's mesh file is missing. */
    snprintf(path, sizeof path, "%s/meshes/tip.glb", dir);
    unlink(path);
    expect_failure(dir, rig, MN_IO, "tip.glb", "part \"tip\"");
    copy_file(ARM "meshes/tip.glb", path);

    /* A part's mesh is not a GLB. */
    snprintf(path, sizeof path, "%s/meshes/fore.glb", dir);
    mn_test_write_file(path, "\x01\x02\x03\x04 not a glb", 14);
    expect_failure(dir, rig, MN_GLB_MAGIC, "fore.glb", "part \"fore\"");
    copy_file(ARM "meshes/fore.glb", path);

    /* The rig does not validate: the file and the JSON path. */
    size_t n;
    char *text = mn_test_read_file(ARM "rig.json", &n);
    char *bad = strstr(text, "\"rest\": 0.5");
    assert_non_null(bad);
    memcpy(bad, "\"rest\": 9.5", 11);   /* elbow: rest above max */
    mn_test_write_file(rig, text, n);
    free(text);
    expect_failure(dir, rig, MN_INVALID_VALUE, "rig.json", "joints[2]");

    /* The output cannot be written (its folder is missing): no interface left either. */
    copy_file(ARM "rig.json", rig);
    char out[160];
    snprintf(out, sizeof out, "%s/missing/model.glb", dir);
    mn_error err;
    assert_int_equal(mn_voxel_export_file(rig, NULL, out, NULL, &err), MN_IO);
    assert_int_equal(mn_voxel_export_file(rig, NULL, "model.obj", NULL, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_voxel_export_file(NULL, NULL, "model.glb", NULL, &err), MN_INVALID_ARGUMENT);
    snprintf(path, sizeof path, "%s/meshes", dir);
    assert_int_equal(mn_voxel_export_file(NULL, path, "x.glb", NULL, &err), MN_IO);   /* no mesh.glb there */
    mn_test_remove_tree(dir);

    /* Bad options and missing inputs of the model builder. */
    mn_voxel_rig *r = read_rig(ARM "rig.json");
    mn_model *m = NULL;
    mn_voxel_export_options o;
    memset(&o, 0, sizeof o);
    o.scale = -1.0f;
    assert_int_equal(mn_voxel_export_model(r, NULL, NULL, NULL, &m, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_voxel_export_model(NULL, NULL, NULL, NULL, &m, &err), MN_INVALID_ARGUMENT);
    const mn_part_mesh *none[4] = {NULL, NULL, NULL, NULL};
    assert_int_equal(mn_voxel_export_model(r, none, NULL, &o, &m, &err), MN_INVALID_ARGUMENT);
    o.scale = 0.0f;
    o.rate = 0.5f;
    assert_int_equal(mn_voxel_export_model(r, none, NULL, &o, &m, &err), MN_INVALID_ARGUMENT);
    assert_null(m);
    /* Every part a socket is still a valid export. */
    assert_int_equal(mn_voxel_export_model(r, none, NULL, NULL, &m, &err), MN_OK);
    assert_int_equal(m->mesh_count, 0);
    mn_model_free(m);
    mn_voxel_rig_free(r);
}

/* Clips at their edges: a one-shot whose keys all lie before 0 is one pose at 0; a forest of parts. */
static void test_edge_clips_and_forests_export(void **state)
{
    (void)state;
    static const char RIG[] =
        "{\"parts\": [{\"name\": \"a\", \"parent\": null, \"pivot\": [0, 0, 0]},"
        "           {\"name\": \"b\", \"parent\": null, \"pivot\": [4, 0, 0]}],"
        " \"joints\": [{\"name\": \"j\", \"part\": \"b\", \"type\": \"translation\", \"axis\": \"x\","
        "              \"min\": -2, \"max\": 2, \"rest\": 0, \"drive\": \"auto\"}],"
        " \"animations\": [{\"name\": \"early\", \"loop\": false, \"auto_play\": false, \"tracks\": ["
        "   {\"joint\": \"j\", \"keys\": [{\"t\": -100, \"v\": 1, \"interp\": \"linear\"},"
        "                              {\"t\": -50, \"v\": 2, \"interp\": \"linear\"}]}]}]}";
    mn_voxel_rig *rig = NULL;
    mn_error err;
    assert_int_equal(mn_voxel_rig_read_memory(RIG, sizeof RIG - 1, NULL, &rig, &err), MN_OK);
    const mn_part_mesh *none[2] = {NULL, NULL};
    mn_model *m = NULL;
    assert_int_equal(mn_voxel_export_model(rig, none, NULL, NULL, &m, &err), MN_OK);
    assert_int_equal(m->scenes[0].node_count, 2);            /* two roots */
    assert_int_equal(m->animations[0].channels[0].key_count, 1);
    assert_float_equal(m->animations[0].channels[0].times[0], 0.0f, 0);
    assert_float_equal(m->animations[0].channels[0].values[0], 6.0f, 1e-6);   /* pivot 4 + the last value 2 */
    char text[2048];
    size_t n = mn_voxel_export_interface(rig, m, NULL, text, sizeof text);
    assert_true(n > 0 && n < sizeof text);
    assert_non_null(strstr(text, "\"duration\": 0}"));
    assert_non_null(strstr(text, "\"sockets\": [\"a\", \"b\"]"));
    assert_non_null(strstr(text, "\"joints\": [],"));       /* no caller joint */
    assert_int_equal(mn_voxel_export_interface(rig, m, NULL, NULL, 0), n);
    char small[16];
    assert_int_equal(mn_voxel_export_interface(rig, m, NULL, small, sizeof small), n);
    assert_int_equal(strlen(small), sizeof small - 1);   /* cut, NUL-terminated */
    mn_model_free(m);
    mn_voxel_rig_free(rig);
}

static mn_status make_export(const mn_allocator *hooks, void *ctx, mn_model **out, mn_error *err)
{
    const fixture *f = ctx;
    mn_voxel_export_options o;
    memset(&o, 0, sizeof o);
    o.allocator = *hooks;
    return mn_voxel_export_model(f->rig, (const mn_part_mesh *const *)f->parts, NULL, &o, out, err);
}

/* Every allocation of an export failing in turn: MN_OUT_OF_MEMORY, nothing leaked. */
static void test_out_of_memory_at_every_allocation(void **state)
{
    (void)state;
    fixture f;
    fixture_make(&f, ARM "rig.json", "arm.glb", 0.0f);
    long failures = mn_test_model_oom_walk(make_export, &f);
    print_message("%ld allocations failed in turn\n", failures);
    fixture_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rest_worlds_and_geometry_match_the_rig_at_rest),
        cmocka_unit_test(test_baked_clips_play_like_the_rig),
        cmocka_unit_test(test_rate_sets_the_sample_grid),
        cmocka_unit_test(test_interface_alone_drives_the_nodes_like_the_rig),
        cmocka_unit_test(test_skinned_kind_exports_one_skinned_mesh_with_the_same_motion),
        cmocka_unit_test(test_static_mesh_is_one_scaled_node_without_interface),
        cmocka_unit_test(test_resolved_rig_form_and_reruns_give_the_same_bytes),
        cmocka_unit_test(test_errors_name_the_file_and_leave_nothing_behind),
        cmocka_unit_test(test_edge_clips_and_forests_export),
        cmocka_unit_test(test_out_of_memory_at_every_allocation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
