/*
 * The scene graph: cameras, nodes (TRS, or a matrix decomposed into TRS),
 * their children and parents, scenes, and skins with their inverse bind
 * matrices.  A child claimed by two parents is refused here, as it is found;
 * cycles are found by gltf/validate.c once every parent is known.
 */
#include "gltf/internal.h"

#include <marionette/math.h>

#include <math.h>

/* ---- cameras ------------------------------------------------------------------------------- */

static mn_status read_perspective(mn_gltf_reader *r, json_t *p, mn_camera *c)
{
    mn_json *j = &r->json;
    mn_status st;
    if ((st = mni_json_float(j, p, "yfov", true, &c->yfov)) != MN_OK ||
        (st = mni_json_float(j, p, "znear", true, &c->znear)) != MN_OK ||
        (st = mni_json_float(j, p, "zfar", false, &c->zfar)) != MN_OK ||
        (st = mni_json_float(j, p, "aspectRatio", false, &c->aspect_ratio)) != MN_OK)
        return st;
    if (!(c->yfov > 0.0f))
        return mni_json_fail(j, MN_INVALID_VALUE, "yfov", "the field of view must be above 0");
    if (!(c->znear > 0.0f))
        return mni_json_fail(j, MN_INVALID_VALUE, "znear", "znear must be above 0 for a perspective camera");
    if (json_object_get(p, "zfar") && !(c->zfar > c->znear))
        return mni_json_fail(j, MN_INVALID_VALUE, "zfar", "zfar %g is not beyond znear %g", (double)c->zfar,
                             (double)c->znear);
    if (json_object_get(p, "aspectRatio") && !(c->aspect_ratio > 0.0f))
        return mni_json_fail(j, MN_INVALID_VALUE, "aspectRatio", "the aspect ratio must be above 0");
    return MN_OK;
}

static mn_status read_orthographic(mn_gltf_reader *r, json_t *o, mn_camera *c)
{
    mn_json *j = &r->json;
    mn_status st;
    if ((st = mni_json_float(j, o, "xmag", true, &c->xmag)) != MN_OK ||
        (st = mni_json_float(j, o, "ymag", true, &c->ymag)) != MN_OK ||
        (st = mni_json_float_min(j, o, "znear", true, 0.0f, &c->znear)) != MN_OK ||
        (st = mni_json_float(j, o, "zfar", true, &c->zfar)) != MN_OK)
        return st;
    if (!(c->zfar > c->znear))
        return mni_json_fail(j, MN_INVALID_VALUE, "zfar", "zfar %g is not beyond znear %g", (double)c->zfar,
                             (double)c->znear);
    return MN_OK;
}

static mn_status read_camera(mn_gltf_reader *r, json_t *obj, uint32_t index)
{
    mn_json *j = &r->json;
    mn_camera *c = &r->model->cameras[index];
    static const char *const TYPES[] = {"perspective", "orthographic"};
    int t = 0;
    mn_status st;
    if ((st = mni_json_string(j, obj, "name", false, &c->name)) != MN_OK ||
        (st = mni_json_enum(j, obj, "type", true, TYPES, 2, "a camera type", &t)) != MN_OK)
        return st;
    const char *type = TYPES[t]; /* its parameters are in the member of that name */
    bool ortho = t == 1;
    c->orthographic = ortho;
    json_t *params;
    if ((st = mni_json_object(j, obj, type, true, &params)) != MN_OK)
        return st;
    size_t mark = mni_json_push_key(j, type);
    st = ortho ? read_orthographic(r, params, c) : read_perspective(r, params, c);
    mni_json_pop(j, mark);
    return st;
}

mn_status mni_gltf_read_cameras(mn_gltf_reader *r)
{
    return mni_gltf_read_array(r, "cameras", r->model->camera_count, read_camera);
}

/* ---- nodes --------------------------------------------------------------------------------- */

/* Decompose a node matrix into TRS; MN_SKEW when no TRS reproduces it. */
static mn_status decompose_matrix(mn_gltf_reader *r, const float m[16], mn_node *n)
{
    if (fabsf(m[3]) > 1e-6f || fabsf(m[7]) > 1e-6f || fabsf(m[11]) > 1e-6f || fabsf(m[15] - 1.0f) > 1e-6f)
        return mni_json_fail(&r->json, MN_SKEW, "matrix",
                             "the matrix's last row is (%g %g %g %g), not (0 0 0 1): a projective matrix "
                             "cannot be decomposed into translation, rotation and scale",
                             (double)m[3], (double)m[7], (double)m[11], (double)m[15]);
    bool ok = mn_mat4_decompose(m, n->translation, n->rotation, n->scale);
    /* A zero scale makes decompose refuse, yet T·R·S with that zero still is the matrix. */
    float back[16], largest = 0.0f, worst = 0.0f;
    mn_mat4_compose(back, n->translation, n->rotation, n->scale);
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++) {
            largest = fmaxf(largest, fabsf(m[c * 4 + row]));
            worst = fmaxf(worst, fabsf(back[c * 4 + row] - m[c * 4 + row]));
        }
    if (!ok && worst > 1e-4f * fmaxf(largest, 1e-30f))
        return mni_json_fail(&r->json, MN_SKEW, "matrix",
                             "the matrix has skew (its basis columns are not perpendicular), so it cannot be "
                             "decomposed into translation, rotation and scale as glTF requires; bake the "
                             "skew into the mesh or use TRS");
    return MN_OK;
}

/* A rotation that is not unit length is normalised (with a warning): it must be a rotation. */
static mn_status check_rotation(mn_gltf_reader *r, mn_node *n)
{
    float *q = n->rotation;
    float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (fabsf(len2 - 1.0f) <= 1e-3f)
        return MN_OK;
    mn_quat_normalize(q, q);
    return mni_gltf_warn(r, MN_INVALID_VALUE, "rotation",
                         "the rotation quaternion has length %g, not 1; it was normalised", (double)sqrtf(len2));
}

static mn_status read_children(mn_gltf_reader *r, json_t *obj, uint32_t index)
{
    mn_json *j = &r->json;
    mn_node *nodes = r->model->nodes;
    mn_node *n = &nodes[index];
    json_t *arr;
    mn_status st = mni_json_array_count(j, obj, "children", false, &arr, &n->child_count);
    if (st != MN_OK || n->child_count == 0)
        return st;
    /* uint32_t alignment, not 16: a node's one child must not cost 16 bytes in a long chain. */
    if (!(n->children = mni_gltf_alloc(r, n->child_count, sizeof(uint32_t), _Alignof(uint32_t), false)))
        return MN_OUT_OF_MEMORY;
    size_t mark = mni_json_push_key(j, "children");
    for (uint32_t i = 0; i < n->child_count; i++) {
        uint32_t child;
        size_t m2 = mni_json_push_index(j, i);
        if ((st = mni_json_index_value(j, json_array_get(arr, i), r->model->node_count, "nodes", &child)) != MN_OK)
            return st;
        if (child == index)
            return mni_json_fail(j, MN_HIERARCHY, NULL, "node %u lists itself as a child", index);
        if (nodes[child].parent == index)
            return mni_json_fail(j, MN_HIERARCHY, NULL, "node %u lists node %u as a child twice", index, child);
        if (nodes[child].parent != MN_NONE)
            return mni_json_fail(j, MN_HIERARCHY, NULL,
                                 "node %u is a child of both node %u and node %u; a node has at most one parent",
                                 child, nodes[child].parent, index);
        nodes[child].parent = index;
        n->children[i] = child;
        mni_json_pop(j, m2);
    }
    mni_json_pop(j, mark);
    return MN_OK;
}

static mn_status read_node_weights(mn_gltf_reader *r, json_t *obj, mn_node *n)
{
    json_t *arr;
    mn_status st = mni_json_array_count(&r->json, obj, "weights", false, &arr, &n->weight_count);
    if (st != MN_OK || !arr)
        return st;
    if (!(n->weights = mni_gltf_alloc(r, n->weight_count ? n->weight_count : 1, sizeof(float), 16, true)))
        return MN_OUT_OF_MEMORY;
    return mni_json_floats(&r->json, obj, "weights", true, n->weight_count, n->weights);
}

static mn_status read_node(mn_gltf_reader *r, json_t *obj, uint32_t index)
{
    mn_json *j = &r->json;
    mn_model *m = r->model;
    mn_node *n = &m->nodes[index];
    mn_status st;
    if ((st = mni_json_string(j, obj, "name", false, &n->name)) != MN_OK ||
        (st = read_children(r, obj, index)) != MN_OK ||
        (st = mni_json_index(j, obj, "mesh", false, m->mesh_count, "meshes", &n->mesh)) != MN_OK ||
        (st = mni_json_index(j, obj, "skin", false, m->skin_count, "skins", &n->skin)) != MN_OK ||
        (st = mni_json_index(j, obj, "camera", false, m->camera_count, "cameras", &n->camera)) != MN_OK ||
        (st = mni_json_floats(j, obj, "translation", false, 3, n->translation)) != MN_OK ||
        (st = mni_json_floats(j, obj, "rotation", false, 4, n->rotation)) != MN_OK ||
        (st = mni_json_floats(j, obj, "scale", false, 3, n->scale)) != MN_OK ||
        (st = read_node_weights(r, obj, n)) != MN_OK || (st = mni_json_extras(j, obj, &n->extras)) != MN_OK)
        return st;
    if (json_object_get(obj, "rotation") && (st = check_rotation(r, n)) != MN_OK)
        return st;
    if (json_object_get(obj, "matrix")) {
        float mat[16];
        if (json_object_get(obj, "translation") || json_object_get(obj, "rotation") ||
            json_object_get(obj, "scale"))
            return mni_json_fail(j, MN_INVALID_VALUE, "matrix",
                                 "the node has both a matrix and translation/rotation/scale; glTF allows one "
                                 "or the other");
        if ((st = mni_json_floats(j, obj, "matrix", true, 16, mat)) != MN_OK ||
            (st = decompose_matrix(r, mat, n)) != MN_OK)
            return st;
        n->has_matrix = true;
    }
    if ((st = mni_gltf_default_name(r, &n->name, &n->default_name, "node", index)) != MN_OK)
        return st;
    return mni_gltf_read_node_extensions(r, obj, index);
}

mn_status mni_gltf_read_nodes(mn_gltf_reader *r)
{
    /* Defaults first: a node's parent is set while reading an earlier or later node. */
    for (uint32_t i = 0; i < r->model->node_count; i++) {
        mn_node *n = &r->model->nodes[i];
        n->parent = n->mesh = n->skin = n->camera = n->light = MN_NONE;
        n->instance_translation = n->instance_rotation = n->instance_scale = MN_NONE;
        n->rotation[3] = 1.0f;
        n->scale[0] = n->scale[1] = n->scale[2] = 1.0f;
    }
    return mni_gltf_read_array(r, "nodes", r->model->node_count, read_node);
}

/* ---- scenes ---------------------------------------------------------------------------------- */

static mn_status read_scene(mn_gltf_reader *r, json_t *obj, uint32_t index)
{
    mn_json *j = &r->json;
    mn_scene *s = &r->model->scenes[index];
    json_t *arr;
    mn_status st;
    if ((st = mni_json_string(j, obj, "name", false, &s->name)) != MN_OK ||
        (st = mni_json_array_count(j, obj, "nodes", false, &arr, &s->node_count)) != MN_OK)
        return st;
    if (s->node_count == 0)
        return MN_OK;
    if (!(s->nodes = mni_gltf_alloc(r, s->node_count, sizeof(uint32_t), 16, false)))
        return MN_OUT_OF_MEMORY;
    size_t mark = mni_json_push_key(j, "nodes");
    for (uint32_t i = 0; i < s->node_count; i++) {
        size_t m2 = mni_json_push_index(j, i);
        if ((st = mni_json_index_value(j, json_array_get(arr, i), r->model->node_count, "nodes", &s->nodes[i])) != MN_OK)
            return st;
        uint32_t parent = r->model->nodes[s->nodes[i]].parent;
        if (parent != MN_NONE)
            return mni_json_fail(j, MN_HIERARCHY, NULL,
                                 "node %u is listed as a root of the scene, but it is a child of node %u",
                                 s->nodes[i], parent);
        mni_json_pop(j, m2);
    }
    mni_json_pop(j, mark);
    return MN_OK;
}

mn_status mni_gltf_read_scenes(mn_gltf_reader *r)
{
    return mni_gltf_read_array(r, "scenes", r->model->scene_count, read_scene);
}

/* ---- skins ----------------------------------------------------------------------------------- */

static mn_status read_inverse_binds(mn_gltf_reader *r, json_t *obj, mn_skin *s)
{
    mn_json *j = &r->json;
    uint32_t acc;
    mn_status st = mni_json_index(j, obj, "inverseBindMatrices", false, r->file_accessor_count,
                                  "accessors", &acc);
    if (st != MN_OK)
        return st;
    if (acc == MN_NONE) {
        float *ident = mni_gltf_alloc(r, (size_t)s->joint_count * 16, sizeof(float), 16, true);
        if (!ident)
            return MN_OUT_OF_MEMORY;
        for (uint32_t i = 0; i < s->joint_count; i++)
            ident[16 * (size_t)i + 0] = ident[16 * (size_t)i + 5] = ident[16 * (size_t)i + 10] =
                ident[16 * (size_t)i + 15] = 1.0f;
        s->inverse_bind = ident;
        return MN_OK;
    }
    const mn_accessor *a = &r->model->accessors[acc];
    if (a->type != MN_TYPE_MAT4 || a->component != MN_COMPONENT_F32)
        return mni_json_fail(j, MN_INVALID_VALUE, "inverseBindMatrices",
                             "accessor %u must be MAT4 of FLOAT to hold inverse bind matrices", acc);
    if (a->count < s->joint_count)
        return mni_json_fail(j, MN_COUNT_MISMATCH, "inverseBindMatrices",
                             "accessor %u holds %u matrices for %u joints; there must be one per joint", acc,
                             a->count, s->joint_count);
    size_t n;
    size_t mark = mni_json_push_key(j, "inverseBindMatrices");
    st = mni_gltf_accessor_floats(r, acc, &s->inverse_bind, &n);
    mni_json_pop(j, mark);
    return st;
}

static mn_status read_skin(mn_gltf_reader *r, json_t *obj, uint32_t index)
{
    mn_json *j = &r->json;
    mn_skin *s = &r->model->skins[index];
    json_t *arr;
    mn_status st;
    if ((st = mni_json_string(j, obj, "name", false, &s->name)) != MN_OK ||
        (st = mni_json_array_count(j, obj, "joints", true, &arr, &s->joint_count)) != MN_OK ||
        (st = mni_json_index(j, obj, "skeleton", false, r->model->node_count, "nodes", &s->skeleton)) != MN_OK)
        return st;
    if (s->joint_count == 0)
        return mni_json_fail(j, MN_INVALID_VALUE, "joints", "a skin needs at least one joint");
    if (!(s->joints = mni_gltf_alloc(r, s->joint_count, sizeof(uint32_t), 16, false)))
        return MN_OUT_OF_MEMORY;
    size_t mark = mni_json_push_key(j, "joints");
    for (uint32_t i = 0; i < s->joint_count; i++) {
        size_t m2 = mni_json_push_index(j, i);
        if ((st = mni_json_index_value(j, json_array_get(arr, i), r->model->node_count, "nodes",
                                       &s->joints[i])) != MN_OK)
            return st;
        mni_json_pop(j, m2);
    }
    mni_json_pop(j, mark);
    return read_inverse_binds(r, obj, s);
}

mn_status mni_gltf_read_skins(mn_gltf_reader *r)
{
    for (uint32_t i = 0; i < r->model->skin_count; i++)
        r->model->skins[i].skeleton = MN_NONE;
    return mni_gltf_read_array(r, "skins", r->model->skin_count, read_skin);
}
