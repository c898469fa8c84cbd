/*
 * Spaces: which hierarchy a pose's joints or a clip's targets index
 * (marionette/pose.h, SPACES).  A space is named by a hash of the
 * hierarchy's structure, computed once where the space is made (a clip
 * built, a skeleton built, a mixer created), so the check that every
 * sampling call makes is three compares.
 */
#include "anim/space_internal.h"
#include "core/core.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

uint64_t mni_space_hash(uint64_t h, const void *bytes, size_t n)
{
    const unsigned char *p = bytes;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull; /* the FNV-1a 64-bit prime */
    }
    return h;
}

/*
 * Node count, then each node's parent and name (its bytes and the NUL; a
 * nameless node hashes one 0xFF, which no name's bytes end with): what makes
 * node j of one model node j of another.
 */
mn_space mn_space_of_nodes(const mn_model *model)
{
    if (!model || (model->node_count && !model->nodes))
        return (mn_space){0};
    uint64_t h = MNI_SPACE_HASH_SEED;
    uint32_t n = model->node_count;
    h = mni_space_hash(h, &n, sizeof n);
    for (uint32_t i = 0; i < n; i++) {
        const mn_node *node = &model->nodes[i];
        h = mni_space_hash(h, &node->parent, sizeof node->parent);
        if (node->name)
            h = mni_space_hash(h, node->name, strlen(node->name) + 1);
        else
            h = mni_space_hash(h, "\xff", 1);
    }
    return (mn_space){.kind = MN_SPACE_NODES, .count = n, .id = h};
}

/* "the 22 nodes of a model (space 1f2e…)" */
static void describe(char *out, size_t size, mn_space space)
{
    switch (space.kind) {
    case MN_SPACE_NODES:
        snprintf(out, size, "the %u nodes of a model (space %016" PRIx64 ")", space.count,
                 space.id);
        break;
    case MN_SPACE_JOINTS:
        snprintf(out, size, "the %u joints of a skeleton (space %016" PRIx64 ")", space.count,
                 space.id);
        break;
    default:
        snprintf(out, size, "no recorded space");
        break;
    }
}

static void describe_pose(char *out, size_t size, const mn_pose *pose)
{
    if (pose->space.kind == MN_SPACE_UNBOUND)
        snprintf(out, size, "%u joints of no recorded space", pose->joint_count);
    else
        describe(out, size, pose->space);
}

mn_status mni_space_refuse(mn_space space, const char *what, const mn_pose *pose, mn_error *err)
{
    char have[80], want[80];
    describe(have, sizeof have, space);
    describe_pose(want, sizeof want, pose);
    bool nodes_for_joints = space.kind == MN_SPACE_NODES && pose->space.kind != MN_SPACE_NODES;
    const char *hint =
        nodes_for_joints ? " (for a skeleton's pose, build the clip with mn_clip_from_gltf_skeleton)"
                         : "";
    return mni_fail(err, MN_INVALID_ARGUMENT, "%.48s indexes %s; the pose holds %s%s", what, have,
                    want, hint);
}
