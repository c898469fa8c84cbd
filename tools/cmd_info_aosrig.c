/*
 * The .aosrig side of `marionette info`: when FILE ends in ".aosrig",
 * cmd_info.c hands it here.
 *
 *   marionette info head.aosrig [--json]
 *       the pack's header (version, model, units), its counts (vertices,
 *       faces, quads, expressions, influences, joints), the control vector's
 *       layout (regions with their coefficient ranges and reduced counts, the
 *       gaze block), the joints (parents, rest translations, the eyes' joint),
 *       the eyes (centres and weighted vertices), the bind transform, the
 *       optional parts present, and every blob (dtype, shape, offset, bytes).
 *
 * --json prints one object, "format": "marionette-aosrig-info/1"; keys are
 * added, never renamed or removed:
 *   {"format", "file", "bytes", "headerBytes", "version", "model", "units",
 *    "vertexCount", "faceCount", "quadCount", "coeffCount", "maxInfluence",
 *    "jointCount",
 *    "headExt": {"dim", "exprDim", "gazeDim", "reducedDim",
 *                "regions": [{"name", "start", "count", "reduced" (null when the
 *                             region has no reduced member)}]},
 *    "joints": [{"name", "parent" (name or null), "restTranslation": [x, y, z]}],
 *    "eyes": {"left"/"right": {"joint", "position": [x, y, z], "weightedVertices"}},
 *    "bindTransform": [16, row-major] or null when the pack has none,
 *    "optional": {"uv", "quads", "stitchLocal"} booleans,
 *    "mouth", "source": the header's values, null when absent,
 *    "blobs": [{"name", "dtype", "shape", "offset", "byteLength", "known"}]}
 *
 * Exit status: 0 done; 1 the pack is refused (the reader's error on stderr).
 */
#include "cli.h"
#include "json_tree.h"

#include <marionette/head/aosrig.h>

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define INFO_FORMAT "marionette-aosrig-info/1"

/* The blobs a pack knows (docs/formats.md); any other is carried, bounds-checked, and ignored. */
static bool is_known_blob(const char *name)
{
    static const char *const known[] = {"neutral", "basis", "basisScale", "faces", "quads",
                                        "uv", "skinIndex", "skinWeight", "jointParents",
                                        "restWorld", "eyePositions", "eyeWeights",
                                        "stitchLocal"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(name, known[i]) == 0)
            return true;
    return false;
}

static uint32_t reduced_dim(const mn_aosrig_head_ext *x)
{
    uint32_t n = x->gaze_dim;
    for (uint32_t r = 0; r < x->region_count; r++)
        n += x->regions[r].reduced;
    return n;
}

/* Vertices eye k turns (a non-zero weight). */
static uint32_t weighted_vertices(const mn_aosrig *pack, int k)
{
    uint32_t n = 0, v_count = pack->header.vertex_count;
    for (uint32_t v = 0; v < v_count; v++)
        n += pack->eye_weights[(size_t)k * v_count + v] != 0.0f;
    return n;
}

static uint32_t header_bytes(const mn_aosrig *pack)
{
    const uint8_t *b = pack->bytes + 8;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* ---- text -------------------------------------------------------------------------------- */

static void text_vec3(FILE *out, const float *v)
{
    fprintf(out, "(%g, %g, %g)", (double)v[0], (double)v[1], (double)v[2]);
}

static void print_text(FILE *out, const char *path, const mn_aosrig *pack)
{
    const mn_aosrig_header *h = &pack->header;
    const mn_aosrig_head_ext *x = &h->head_ext;
    fprintf(out, "%s: .aosrig expression head, version 1, model gnm, units %s, %zu %s "
                 "(header %u)\n",
            path, mn_aosrig_units_name(h->units), pack->byte_length,
            cli_noun(pack->byte_length, "byte", "bytes"), header_bytes(pack));
    fprintf(out, "  vertices %u, faces %u, quads %u, expressions %u, influences %u, joints %u\n",
            h->vertex_count, pack->face_count, pack->quad_count, h->coeff_count,
            h->max_influence, h->joint_count);
    fprintf(out, "  control vector %u = %u expression + %u gaze; reduced view %u\n", x->dim,
            x->expr_dim, x->gaze_dim, reduced_dim(x));

    fprintf(out, "\nregions (%u):\n", x->region_count);
    for (uint32_t r = 0; r < x->region_count; r++) {
        const mn_aosrig_region *region = &x->regions[r];
        fputs("  ", out);
        cli_put_quoted(out, region->name);
        fprintf(out, "  coefficients %u..%u (%u)", region->start,
                region->start + region->count - 1, region->count);
        if (region->has_reduced)
            fprintf(out, ", reduced %u", region->reduced);
        fputc('\n', out);
    }

    fprintf(out, "\njoints (%u):\n", h->joint_count);
    for (uint32_t j = 0; j < h->joint_count; j++) {
        fputs("  ", out);
        cli_put_quoted(out, h->joint_names[j]);
        if (pack->joint_parents[j] < 0) {
            fputs("  root", out);
        } else {
            fputs("  parent ", out);
            cli_put_quoted(out, h->joint_names[pack->joint_parents[j]]);
        }
        const float *m = pack->rest_world + 16 * (size_t)j;
        const float t[3] = {m[3], m[7], m[11]};
        fputs("  rest at ", out);
        text_vec3(out, t);
        fputc('\n', out);
    }

    fputs("\neyes:\n", out);
    for (int k = 0; k < 2; k++) {
        fprintf(out, "  %-5s on ", k ? "right" : "left");
        cli_put_quoted(out, h->eye_joints[k]);
        fputs(" at ", out);
        text_vec3(out, pack->eye_positions + 3 * k);
        uint32_t weighted = weighted_vertices(pack, k);
        fprintf(out, ", %u weighted %s\n", weighted, cli_noun(weighted, "vertex", "vertices"));
    }

    fputs("\nbindTransform: ", out);
    if (!h->has_bind_transform) {
        fputs("none (identity)\n", out);
    } else {
        const float t[3] = {pack->bind_transform[3], pack->bind_transform[7],
                            pack->bind_transform[11]};
        fputs("given, translation ", out);
        text_vec3(out, t);
        fputc('\n', out);
    }
    fprintf(out, "optional: uv %s, quads %s, stitchLocal %s, mouth %s, source %s\n",
            pack->uv ? "yes" : "no", pack->quads ? "yes" : "no",
            pack->stitch_local ? "yes" : "no", h->mouth_json ? "yes" : "no",
            h->source_json ? "yes" : "no");

    fprintf(out, "\nblobs (%u):\n", pack->blob_count);
    for (uint32_t i = 0; i < pack->blob_count; i++) {
        const mn_aosrig_blob *b = &pack->blobs[i];
        fputs("  ", out);
        cli_put_quoted(out, b->name);
        fprintf(out, "  %s [", mn_aosrig_dtype_name(b->dtype));
        for (uint32_t d = 0; d < b->rank; d++)
            fprintf(out, "%s%llu", d ? "," : "", (unsigned long long)b->shape[d]);
        fprintf(out, "]  offset %llu, %llu %s%s\n", (unsigned long long)b->offset,
                (unsigned long long)b->size, cli_noun(b->size, "byte", "bytes"),
                is_known_blob(b->name) ? "" : " (unknown, ignored)");
    }
}

/* ---- JSON (json_tree.h: building stops at the first allocation failure) ------------------ */

/* The pack's JSON text (mouth, source) as a value; null when absent. */
static json_t *jtext(const char *text)
{
    return text ? json_loads(text, JSON_DECODE_ANY, NULL) : json_null();
}

static json_t *json_head_ext(const mn_aosrig_head_ext *x)
{
    json_t *regions = json_array();
    for (uint32_t r = 0; regions && r < x->region_count; r++) {
        const mn_aosrig_region *region = &x->regions[r];
        json_t *o = json_pack("{s:s, s:I, s:I}", "name", region->name, "start",
                              (json_int_t)region->start, "count", (json_int_t)region->count);
        if (o && json_object_set_new(o, "reduced", region->has_reduced
                                                       ? json_integer(region->reduced)
                                                       : json_null()) != 0) {
            json_decref(o);
            o = NULL;
        }
        if (!o || json_array_append_new(regions, o) != 0) {
            json_decref(regions);
            return NULL;
        }
    }
    if (!regions)
        return NULL;
    return json_pack("{s:I, s:I, s:I, s:I, s:o}", "dim", (json_int_t)x->dim, "exprDim",
                     (json_int_t)x->expr_dim, "gazeDim", (json_int_t)x->gaze_dim, "reducedDim",
                     (json_int_t)reduced_dim(x), "regions", regions);
}

static json_t *json_joints(const mn_aosrig *pack)
{
    json_t *joints = json_array();
    for (uint32_t j = 0; joints && j < pack->header.joint_count; j++) {
        const float *m = pack->rest_world + 16 * (size_t)j;
        const float t[3] = {m[3], m[7], m[11]};
        int32_t parent = pack->joint_parents[j];
        json_t *o = json_pack("{s:s, s:o, s:o}", "name", pack->header.joint_names[j], "parent",
                              parent < 0 ? json_null()
                                         : json_string(pack->header.joint_names[parent]),
                              "restTranslation", cli_jfloats(t, 3));
        if (!o || json_array_append_new(joints, o) != 0) {
            json_decref(joints);
            return NULL;
        }
    }
    return joints;
}

static json_t *json_blobs(const mn_aosrig *pack)
{
    json_t *blobs = json_array();
    for (uint32_t i = 0; blobs && i < pack->blob_count; i++) {
        const mn_aosrig_blob *b = &pack->blobs[i];
        json_t *shape = json_array();
        for (uint32_t d = 0; shape && d < b->rank; d++)
            if (json_array_append_new(shape, json_integer((json_int_t)b->shape[d])) != 0) {
                json_decref(shape);
                shape = NULL;
            }
        json_t *o = json_pack("{s:s, s:s, s:o, s:I, s:I, s:b}", "name", b->name, "dtype",
                              mn_aosrig_dtype_name(b->dtype), "shape", shape, "offset",
                              (json_int_t)b->offset, "byteLength", (json_int_t)b->size, "known",
                              is_known_blob(b->name));
        if (!o || json_array_append_new(blobs, o) != 0) {
            json_decref(blobs);
            return NULL;
        }
    }
    return blobs;
}

static json_t *json_eyes(const mn_aosrig *pack)
{
    json_t *eyes = json_object();
    for (int k = 0; eyes && k < 2; k++) {
        json_t *o = json_pack("{s:s, s:o, s:I}", "joint", pack->header.eye_joints[k], "position",
                              cli_jfloats(pack->eye_positions + 3 * k, 3), "weightedVertices",
                              (json_int_t)weighted_vertices(pack, k));
        if (!o || json_object_set_new(eyes, k ? "right" : "left", o) != 0) {
            json_decref(eyes);
            return NULL;
        }
    }
    return eyes;
}

static json_t *build_json(const char *path, const mn_aosrig *pack)
{
    const mn_aosrig_header *h = &pack->header;
    json_t *root = json_pack(
        "{s:s, s:s, s:I, s:I, s:i, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I}", "format",
        INFO_FORMAT, "file", path, "bytes", (json_int_t)pack->byte_length, "headerBytes",
        (json_int_t)header_bytes(pack), "version", 1, "model", "gnm", "units",
        mn_aosrig_units_name(h->units), "vertexCount",
        (json_int_t)h->vertex_count, "faceCount", (json_int_t)pack->face_count, "quadCount",
        (json_int_t)pack->quad_count, "coeffCount", (json_int_t)h->coeff_count, "maxInfluence",
        (json_int_t)h->max_influence, "jointCount", (json_int_t)h->joint_count);
    if (!root)
        return NULL;
    json_t *optional = json_pack("{s:b, s:b, s:b}", "uv", pack->uv != NULL, "quads",
                                 pack->quads != NULL, "stitchLocal", pack->stitch_local != NULL);
    bool ok = json_object_set_new(root, "headExt", json_head_ext(&h->head_ext)) == 0 &&
              json_object_set_new(root, "joints", json_joints(pack)) == 0 &&
              json_object_set_new(root, "eyes", json_eyes(pack)) == 0 &&
              json_object_set_new(root, "bindTransform",
                                  h->has_bind_transform ? cli_jfloats(pack->bind_transform, 16)
                                                        : json_null()) == 0 &&
              json_object_set_new(root, "optional", optional) == 0 &&
              json_object_set_new(root, "mouth", jtext(h->mouth_json)) == 0 &&
              json_object_set_new(root, "source", jtext(h->source_json)) == 0 &&
              json_object_set_new(root, "blobs", json_blobs(pack)) == 0;
    if (!ok) {
        json_decref(root);
        return NULL;
    }
    return root;
}

int mn_cli_aosrig_info(const char *path, bool json)
{
    mn_aosrig *pack = NULL;
    mn_error err;
    if (mn_aosrig_read_file(path, NULL, &pack, &err) != MN_OK) {
        cli_report_error(path, &err);
        return CLI_EXIT_FAILED;
    }
    bool ok = true;
    if (json) {
        json_t *root = build_json(path, pack);
        ok = root && json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(9)) == 0;
        if (ok)
            fputc('\n', stdout);
        json_decref(root);
    } else {
        print_text(stdout, path, pack);
    }
    mn_aosrig_free(pack);
    if (!ok) {
        fprintf(stderr, "marionette: %s: out of memory while describing the pack\n", path);
        return CLI_EXIT_FAILED;
    }
    return CLI_EXIT_OK;
}
