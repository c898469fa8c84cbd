/*
 * Part meshes: a voxel part's (or a static or skinned model's) GLB decoded
 * into the flat arrays a renderer and the CPU skinner take
 * (docs/formats.md, "Part meshes").
 *
 * A part's geometry is every triangle primitive instanced by the default
 * scene (scene 0 when none is named, every root when there are no scenes),
 * placed by its node's rest world matrix, concatenated in node order
 * (model->node_order: depth first from the roots, children in their listed
 * order).  Every mesher writes the same shape, so one path serves all; any
 * glTF encoding works because attributes go through the accessor helpers.
 *
 * Two layouts come out of one primitive:
 *   - with NORMAL: its vertices as they are, normals by the inverse-transpose
 *     of the world, renormalised; its indices offset into the shared array;
 *   - without NORMAL: one vertex per triangle corner, with the flat face
 *     normal mn_primitive_soup computes, so a shared vertex never averages
 *     the faces of a cube (voxel geometry wants hard edges); indices 0..n-1.
 * COLOR_0 is linear RGB (alpha dropped), white when absent.
 *
 * A skinned mesh is the one node with both a mesh and a skin (the first in
 * node order): its triangle primitives as authored (glTF ignores the skinned
 * node's transform), with JOINTS_0/WEIGHTS_0 and the skin's joint names and
 * inverse bind matrices.
 *
 * The result lives in one arena; scratch memory comes from a second arena on
 * the same allocator that is released before returning, and what one piece
 * needs while it is decoded from a third, released after each piece.
 */
#include <marionette/gltf.h>
#include <marionette/math.h>
#include <marionette/voxel/rig.h>

#include "core/core.h"
#include "io/io.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

struct mn_part_mesh_private {
    mn_arena arena;
};

typedef struct mesh_holder {
    mn_part_mesh mesh;
    struct mn_part_mesh_private priv;
} mesh_holder;

/* One primitive that contributes to the mesh. */
typedef struct piece {
    uint32_t mesh, primitive;      /* where it is, for messages */
    const mn_primitive *prim;
    const float *world;            /* NULL: positions as authored */
    bool flat;                     /* no NORMAL: one vertex per corner, face normals */
    uint32_t corners;              /* indices of whole triangles */
    uint32_t vertices;             /* vertices it adds to the mesh */
} piece;

typedef struct mesh_builder {
    const mn_model *model;
    mn_error *err;
    mn_arena *out;                 /* the mesh's arena */
    mn_arena scratch;
    mn_arena piece_scratch;        /* the piece being decoded's, released after each piece */
    const mn_skin *skin;           /* the skinned mesh's skin, NULL for a plain part */
    piece *pieces;
    uint32_t piece_count;
    /* writable views of the mesh's arrays */
    float *positions, *normals, *colors, *weights;
    uint32_t *indices;
    uint16_t *joints;
} mesh_builder;

static mn_status out_of_memory(mesh_builder *b)
{
    return mni_oom(b->err, "decoding a part mesh");
}

static const mn_accessor *accessor_of(const mn_model *model, uint32_t index)
{
    return index < model->accessor_count ? &model->accessors[index] : NULL;
}

/* POSITION (VEC3) of a triangle primitive, else NULL: points, lines and odd attributes add nothing. */
static const mn_accessor *triangle_positions(const mn_model *model, const mn_primitive *p)
{
    if (p->mode != MN_MODE_TRIANGLES)
        return NULL;
    const mn_accessor *a = accessor_of(model, mn_primitive_find(p, MN_SEMANTIC_POSITION, 0));
    return a && a->type == MN_TYPE_VEC3 && a->count == p->vertex_count ? a : NULL;
}

/* ---- which nodes, which primitives ------------------------------------------------------------ */

/* in_scene[i]: node i belongs to the default scene's trees (every root's when there are no scenes). */
static mn_status mark_scene(mesh_builder *b, uint8_t **out)
{
    const mn_model *m = b->model;
    uint8_t *root = mni_arena_calloc(&b->scratch, m->node_count, 1, 1);
    uint8_t *in = mni_arena_calloc(&b->scratch, m->node_count, 1, 1);
    if (!root || !in)
        return out_of_memory(b);
    uint32_t scene = mn_model_default_scene(m);
    for (uint32_t i = 0; i < m->node_count; i++)
        root[i] = scene == MN_NONE && m->nodes[i].parent == MN_NONE;
    if (scene != MN_NONE)
        for (uint32_t k = 0; k < m->scenes[scene].node_count; k++)
            if (m->scenes[scene].nodes[k] < m->node_count)
                root[m->scenes[scene].nodes[k]] = 1;
    /* Up each parent chain to a root or a node already settled, settling every node passed:
       each node is walked once, so a deep chain costs its length, not its length squared.
       in[i]: 0 not yet known, 1 on the walk under way, 2 in the scene, 3 not (a hand-built
       model's cycle without a root meets its own walk and settles as not). */
    uint32_t *path = mni_arena_calloc(&b->scratch, m->node_count, sizeof *path, _Alignof(uint32_t));
    if (!path)
        return out_of_memory(b);
    for (uint32_t i = 0; i < m->node_count; i++) {
        uint32_t p = i, len = 0;
        while (p < m->node_count && !root[p] && in[p] == 0) {
            in[p] = 1;
            path[len++] = p;
            p = m->nodes[p].parent;
        }
        uint8_t settled = p < m->node_count && (root[p] || in[p] == 2) ? 2 : 3;
        while (len > 0)
            in[path[--len]] = settled;
    }
    for (uint32_t i = 0; i < m->node_count; i++)
        in[i] = root[i] || in[i] == 2;
    *out = in;
    return MN_OK;
}

/* The k-th node in node order (index order for a hand-built model without one). */
static uint32_t node_at(const mn_model *m, uint32_t k)
{
    return m->node_order ? m->node_order[k] : k;
}

/* Append the triangle primitives of mesh `mesh_index` placed by `world`; count only when pieces is NULL. */
static void add_mesh(mesh_builder *b, uint32_t mesh_index, const float *world)
{
    const mn_mesh *mesh = &b->model->meshes[mesh_index];
    for (uint32_t p = 0; p < mesh->primitive_count; p++) {
        const mn_primitive *prim = &mesh->primitives[p];
        if (!triangle_positions(b->model, prim))
            continue;
        if (b->pieces) {
            const mn_accessor *n = accessor_of(b->model, mn_primitive_find(prim, MN_SEMANTIC_NORMAL, 0));
            piece *pc = &b->pieces[b->piece_count];
            pc->mesh = mesh_index;
            pc->primitive = p;
            pc->prim = prim;
            pc->world = world;
            pc->flat = !n || n->type != MN_TYPE_VEC3 || n->count != prim->vertex_count;
        }
        b->piece_count++;
    }
}

/*
 * The primitives to decode.  Two passes over the same walk: the first counts
 * (pieces NULL), the second fills.  worlds: rest worlds of every node.
 */
static mn_status collect_pieces(mesh_builder *b, bool skinned, const float *worlds)
{
    const mn_model *m = b->model;
    uint8_t *in_scene = NULL;
    mn_status st = mark_scene(b, &in_scene);
    if (st != MN_OK)
        return st;
    uint32_t skinned_node = MN_NONE;
    for (uint32_t k = 0; k < m->node_count && skinned_node == MN_NONE; k++) {
        uint32_t i = node_at(m, k);
        if (i < m->node_count && in_scene[i] && m->nodes[i].mesh < m->mesh_count &&
            m->nodes[i].skin < m->skin_count)
            skinned_node = i;
    }
    if (skinned && skinned_node == MN_NONE)
        return mni_error_set(b->err, MN_INVALID_VALUE, "nodes", -1,
                             "a skinned mesh was asked for, but no node of the default scene has both "
                             "a mesh and a skin");
    for (int pass = 0; pass < 2; pass++) {
        b->piece_count = 0;
        if (skinned) {
            add_mesh(b, m->nodes[skinned_node].mesh, NULL);
        } else {
            for (uint32_t k = 0; k < m->node_count; k++) {
                uint32_t i = node_at(m, k);
                if (i < m->node_count && in_scene[i] && m->nodes[i].mesh < m->mesh_count)
                    add_mesh(b, m->nodes[i].mesh, worlds + 16 * (size_t)i);
            }
        }
        if (pass == 0) {
            b->pieces = mni_arena_calloc(&b->scratch, b->piece_count, sizeof *b->pieces, _Alignof(piece));
            if (!b->pieces)
                return out_of_memory(b);
        }
    }
    if (skinned)
        b->skin = &m->skins[m->nodes[skinned_node].skin];
    return MN_OK;
}

/* Corners and vertices of each piece, and the totals (which must fit uint32). */
static mn_status size_pieces(mesh_builder *b, uint32_t *out_vertices, uint32_t *out_indices)
{
    uint64_t vertices = 0, indices = 0;
    for (uint32_t i = 0; i < b->piece_count; i++) {
        piece *pc = &b->pieces[i];
        const mn_accessor *ix = accessor_of(b->model, pc->prim->indices);
        uint32_t corners = ix ? ix->count : pc->prim->vertex_count;
        pc->corners = corners - corners % 3;
        pc->vertices = pc->flat ? pc->corners : pc->prim->vertex_count;
        vertices += pc->vertices;
        indices += pc->corners;
    }
    if (vertices >= UINT32_MAX || indices >= UINT32_MAX)
        return mni_fail(b->err, MN_OVERFLOW,
                        "the mesh has %llu vertices and %llu indices; a part mesh holds fewer than 2^32",
                        (unsigned long long)vertices, (unsigned long long)indices);
    *out_vertices = (uint32_t)vertices;
    *out_indices = (uint32_t)indices;
    return MN_OK;
}

/* ---- decoding one primitive -------------------------------------------------------------------- */

/* The piece's corner → vertex indices into scratch, each checked against its vertex count. */
static mn_status read_indices(mesh_builder *b, const piece *pc, uint32_t **out)
{
    uint32_t *idx = mni_arena_calloc(&b->piece_scratch, pc->corners, sizeof *idx, _Alignof(uint32_t));
    if (!idx)
        return out_of_memory(b);
    const mn_accessor *ix = accessor_of(b->model, pc->prim->indices);
    if (ix)
        mn_accessor_unpack_u32(ix, idx, pc->corners);
    else
        for (uint32_t c = 0; c < pc->corners; c++)
            idx[c] = c;
    for (uint32_t c = 0; c < pc->corners; c++)
        if (idx[c] >= pc->prim->vertex_count) {
            char path[96];
            snprintf(path, sizeof path, "meshes[%u].primitives[%u].indices", pc->mesh, pc->primitive);
            return mni_error_set(b->err, MN_INDEX_RANGE, path, -1,
                                 "%s: index %u (element %u) is out of range: the primitive has %u vertices",
                                 path, idx[c], c, pc->prim->vertex_count);
        }
    *out = idx;
    return MN_OK;
}

/* COLOR_0 as RGBA per vertex into scratch; NULL (white) when the primitive has none. */
static mn_status read_colors(mesh_builder *b, const piece *pc, float **out)
{
    *out = NULL;
    size_t need = mn_primitive_colors(b->model, pc->prim, 0, NULL, 0);
    if (need == 0)
        return MN_OK;
    float *rgba = mni_arena_calloc(&b->piece_scratch, need, sizeof *rgba, _Alignof(float));
    if (!rgba)
        return out_of_memory(b);
    mn_primitive_colors(b->model, pc->prim, 0, rgba, need);
    *out = rgba;
    return MN_OK;
}

/* JOINTS_0/WEIGHTS_0 per vertex into scratch, each joint checked against the skin. */
static mn_status read_influences(mesh_builder *b, const piece *pc, uint16_t **joints, float **weights)
{
    size_t n = 4 * (size_t)pc->prim->vertex_count;
    char path[96];
    snprintf(path, sizeof path, "meshes[%u].primitives[%u].attributes", pc->mesh, pc->primitive);
    *joints = mni_arena_calloc(&b->piece_scratch, n, sizeof **joints, _Alignof(uint16_t));
    *weights = mni_arena_calloc(&b->piece_scratch, n, sizeof **weights, _Alignof(float));
    if (!*joints || !*weights)
        return out_of_memory(b);
    if (!mn_primitive_skin_influences(b->model, pc->prim, *joints, *weights))
        return mni_error_set(b->err, MN_INVALID_VALUE, path, -1,
                             "%s: the skinned mesh's primitive has no JOINTS_0/WEIGHTS_0 (VEC4)", path);
    for (size_t i = 0; i < n; i++)
        if ((*joints)[i] >= b->skin->joint_count)
            return mni_error_set(b->err, MN_INDEX_RANGE, path, -1,
                                 "%s: JOINTS_0 of vertex %zu names joint %u; the skin has %u", path,
                                 i / 4, (*joints)[i], b->skin->joint_count);
    return MN_OK;
}

static void normalise_or_up(float v[3])
{
    float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (len > 0.0f && len <= FLT_MAX) {
        v[0] /= len;
        v[1] /= len;
        v[2] /= len;
    } else {
        /* A zero normal has no direction; +Y (glTF's up) lights it like the floor, as the soup does. */
        v[0] = 0.0f;
        v[1] = 1.0f;
        v[2] = 0.0f;
    }
}

/* Positions and normals of a piece that keeps its vertices, placed by its world. */
static void place_vertices(const mesh_builder *b, const piece *pc, float *pos, float *nrm)
{
    const mn_model *m = b->model;
    uint32_t nv = pc->prim->vertex_count;
    mn_accessor_unpack_floats(accessor_of(m, mn_primitive_find(pc->prim, MN_SEMANTIC_POSITION, 0)), pos,
                              3 * (size_t)nv);
    mn_accessor_unpack_floats(accessor_of(m, mn_primitive_find(pc->prim, MN_SEMANTIC_NORMAL, 0)), nrm,
                              3 * (size_t)nv);
    /* Normals go through the inverse-transpose (a singular world leaves them as they are),
       and are renormalised either way: quantized normals are only nearly unit. */
    float inv[16], normal[16];
    if (pc->world) {
        mn_mat4_invert_affine(inv, pc->world); /* identity when singular */
        mn_mat4_identity(normal);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                normal[c * 4 + r] = inv[r * 4 + c];
    }
    for (uint32_t v = 0; v < nv; v++) {
        float *p = pos + 3 * (size_t)v, *n = nrm + 3 * (size_t)v;
        if (pc->world) {
            float placed[3], turned[3];
            mn_mat4_transform_point(placed, pc->world, p);
            mn_mat4_transform_dir(turned, normal, n);
            memcpy(p, placed, sizeof placed);
            memcpy(n, turned, sizeof turned);
        }
        normalise_or_up(n);
    }
}

/* Positions and face normals of a piece without NORMAL: one vertex per corner, from the soup. */
static mn_status place_corners(mesh_builder *b, const piece *pc, float *pos, float *nrm)
{
    float *soup = mni_arena_calloc(&b->piece_scratch, pc->corners, 8 * sizeof *soup, _Alignof(float));
    if (!soup)
        return out_of_memory(b);
    mn_primitive_soup(b->model, pc->prim, pc->world, soup, pc->corners);
    for (uint32_t c = 0; c < pc->corners; c++) {
        memcpy(pos + 3 * (size_t)c, soup + 8 * (size_t)c, 3 * sizeof(float));
        memcpy(nrm + 3 * (size_t)c, soup + 8 * (size_t)c + 3, 3 * sizeof(float));
    }
    return MN_OK;
}

/* Decode piece pc into the mesh's arrays at vertex vbase and index ibase. */
static mn_status decode_piece(mesh_builder *b, const piece *pc, uint32_t vbase, uint32_t ibase)
{
    uint32_t *idx = NULL;
    float *rgba = NULL, *weights = NULL;
    uint16_t *joints = NULL;
    mn_status st = read_indices(b, pc, &idx);
    if (st == MN_OK)
        st = read_colors(b, pc, &rgba);
    if (st == MN_OK && b->skin)
        st = read_influences(b, pc, &joints, &weights);
    if (st == MN_OK && pc->flat)
        st = place_corners(b, pc, b->positions + 3 * (size_t)vbase, b->normals + 3 * (size_t)vbase);
    if (st != MN_OK)
        return st;
    if (!pc->flat)
        place_vertices(b, pc, b->positions + 3 * (size_t)vbase, b->normals + 3 * (size_t)vbase);
    /* Vertex v of the piece comes from source vertex `src`: itself, or its corner's index. */
    for (uint32_t v = 0; v < pc->vertices; v++) {
        uint32_t src = pc->flat ? idx[v] : v;
        size_t out = (size_t)vbase + v;
        for (int k = 0; k < 3; k++)
            b->colors[3 * out + k] = rgba ? rgba[4 * (size_t)src + k] : 1.0f;
        if (joints) {
            memcpy(b->joints + 4 * out, joints + 4 * (size_t)src, 4 * sizeof *joints);
            memcpy(b->weights + 4 * out, weights + 4 * (size_t)src, 4 * sizeof *weights);
        }
    }
    for (uint32_t c = 0; c < pc->corners; c++)
        b->indices[(size_t)ibase + c] = vbase + (pc->flat ? c : idx[c]);
    return MN_OK;
}

/* ---- the whole mesh ------------------------------------------------------------------------------ */

/* The skin's joint names and inverse bind matrices, copied into the mesh. */
static mn_status copy_skeleton(mesh_builder *b, mn_part_mesh *mesh)
{
    const mn_skin *skin = b->skin;
    const char **names = mni_arena_calloc(b->out, skin->joint_count, sizeof *names, _Alignof(char *));
    float *inverse_bind = mni_arena_calloc(b->out, skin->joint_count, 16 * sizeof(float), _Alignof(float));
    if (!names || !inverse_bind)
        return out_of_memory(b);
    for (uint32_t k = 0; k < skin->joint_count; k++) {
        uint32_t node = skin->joints[k];
        const char *name = node < b->model->node_count && b->model->nodes[node].name
                               ? b->model->nodes[node].name
                               : "";
        if (!(names[k] = mni_arena_strndup(b->out, name, strlen(name))))
            return out_of_memory(b);
        if (skin->inverse_bind)
            memcpy(inverse_bind + 16 * (size_t)k, skin->inverse_bind + 16 * (size_t)k, 16 * sizeof(float));
        else
            mn_mat4_identity(inverse_bind + 16 * (size_t)k);
    }
    mesh->bone_count = skin->joint_count;
    mesh->bone_names = names;
    mesh->inverse_bind = inverse_bind;
    return MN_OK;
}

/* The mesh's arrays, zeroed (a count of 0 still gives valid pointers). */
static mn_status allocate_arrays(mesh_builder *b, mn_part_mesh *mesh, uint32_t vertices, uint32_t indices)
{
    size_t v = vertices;
    b->positions = mni_arena_calloc(b->out, v, 3 * sizeof(float), _Alignof(float));
    b->normals = mni_arena_calloc(b->out, v, 3 * sizeof(float), _Alignof(float));
    b->colors = mni_arena_calloc(b->out, v, 3 * sizeof(float), _Alignof(float));
    b->indices = mni_arena_calloc(b->out, indices, sizeof(uint32_t), _Alignof(uint32_t));
    if (!b->positions || !b->normals || !b->colors || !b->indices)
        return out_of_memory(b);
    if (b->skin) {
        b->joints = mni_arena_calloc(b->out, v, 4 * sizeof(uint16_t), _Alignof(uint16_t));
        b->weights = mni_arena_calloc(b->out, v, 4 * sizeof(float), _Alignof(float));
        if (!b->joints || !b->weights)
            return out_of_memory(b);
    }
    mesh->vertex_count = vertices;
    mesh->index_count = indices;
    mesh->positions = b->positions;
    mesh->normals = b->normals;
    mesh->colors = b->colors;
    mesh->indices = b->indices;
    mesh->joints = b->joints;
    mesh->weights = b->weights;
    return MN_OK;
}

static mn_status build(mesh_builder *b, bool skinned, mn_part_mesh *mesh)
{
    const mn_model *m = b->model;
    float *worlds = mni_arena_calloc(&b->scratch, m->node_count, 16 * sizeof(float), _Alignof(float));
    if (!worlds)
        return out_of_memory(b);
    mn_model_rest_worlds(m, worlds);
    uint32_t vertices = 0, indices = 0;
    mn_status st = collect_pieces(b, skinned, worlds);
    if (st == MN_OK)
        st = size_pieces(b, &vertices, &indices);
    if (st == MN_OK)
        st = allocate_arrays(b, mesh, vertices, indices);
    if (st == MN_OK && b->skin)
        st = copy_skeleton(b, mesh);
    uint32_t vbase = 0, ibase = 0;
    for (uint32_t i = 0; st == MN_OK && i < b->piece_count; i++) {
        st = decode_piece(b, &b->pieces[i], vbase, ibase);
        /* A piece's scratch is its own: many pieces cost the largest one's, not their sum. */
        mni_arena_release(&b->piece_scratch);
        vbase += b->pieces[i].vertices;
        ibase += b->pieces[i].corners;
    }
    return st;
}

static void free_holder(mesh_holder *h)
{
    mni_arena_release_holder(&h->priv.arena, h, sizeof *h);
}

mn_status mn_part_mesh_from_model(const mn_model *model, bool skinned, const mn_allocator *allocator,
                                  mn_part_mesh **out_mesh, mn_error *err)
{
    if (out_mesh)
        *out_mesh = NULL;
    if (!model || !out_mesh)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_part_mesh_from_model needs a model and out_mesh");
    mesh_holder *h = mni_alloc(allocator, sizeof *h);
    if (!h)
        return mni_oom(err, "creating a part mesh");
    memset(h, 0, sizeof *h);
    mni_arena_init(&h->priv.arena, allocator);
    h->mesh.priv_ = &h->priv;

    mn_error local;
    mni_error_clear(&local);
    mesh_builder b;
    memset(&b, 0, sizeof b);
    b.model = model;
    b.err = &local;
    b.out = &h->priv.arena;
    mni_arena_init(&b.scratch, allocator);
    mni_arena_init(&b.piece_scratch, allocator);
    mn_status st = build(&b, skinned, &h->mesh);
    mni_arena_release(&b.scratch);
    mni_arena_release(&b.piece_scratch);
    if (st != MN_OK) {
        free_holder(h);
        if (err)
            *err = local;
        return st;
    }
    if (err)
        mni_error_clear(err);
    *out_mesh = &h->mesh;
    return MN_OK;
}

mn_status mn_part_mesh_read_file(const char *path, bool skinned, const mn_allocator *allocator,
                                 mn_part_mesh **out_mesh, mn_error *err)
{
    if (out_mesh)
        *out_mesh = NULL;
    if (!path || !out_mesh)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_part_mesh_read_file needs a path and out_mesh");
    mn_gltf_options options;
    memset(&options, 0, sizeof options);
    if (allocator)
        options.allocator = *allocator;
    mn_model *model = NULL;
    mn_status st = mn_gltf_read_file(path, &options, &model, err);
    if (st == MN_OK)
        st = mn_part_mesh_from_model(model, skinned, allocator, out_mesh, err);
    mn_model_free(model);
    return st;
}

mn_status mn_part_mesh_read_in(const char *dir, const char *name, const char *root, bool skinned,
                               const mn_allocator *allocator, mn_part_mesh **out_mesh, mn_error *err)
{
    if (out_mesh)
        *out_mesh = NULL;
    if (!dir || !name || !out_mesh)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_part_mesh_read_in needs dir, name and out_mesh");
    mn_arena paths;
    mni_arena_init(&paths, allocator);
    mni_files files;
    mni_files_init(&files, &paths, root, dir);
    char *resolved = NULL;
    mn_status st = mni_contained_path(&files, name, name, &resolved, err);
    if (st == MN_OK) {
        mn_gltf_options options;
        memset(&options, 0, sizeof options);
        if (allocator)
            options.allocator = *allocator;
        options.resolver.root = root ? root : files.real_root;
        mn_model *model = NULL;
        st = mn_gltf_read_file(resolved, &options, &model, err);
        if (st == MN_OK)
            st = mn_part_mesh_from_model(model, skinned, allocator, out_mesh, err);
        mn_model_free(model);
    }
    mni_arena_release(&paths);
    return st;
}

void mn_part_mesh_free(mn_part_mesh *mesh)
{
    if (mesh)
        free_holder((mesh_holder *)(void *)mesh);
}

void mn_voxel_bone_parts(const mn_voxel_rig *rig, const mn_part_mesh *mesh, uint32_t *out)
{
    if (!mesh || !out)
        return;
    for (uint32_t b = 0; b < mesh->bone_count; b++)
        out[b] = mn_voxel_rig_find_part(rig, mesh->bone_names[b]);
}
