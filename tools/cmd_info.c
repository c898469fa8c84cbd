/*
 * `marionette info FILE [--json]`: what a glTF/GLB file (or an OBJ, read into
 * the same model) holds, as text for a person or as one JSON object for a script.  The JSON keys are a stable
 * interface documented in docs/cli.md ("marionette info --json"): add keys,
 * never rename or remove them.
 *
 * Everything printed comes from the mn_model the reader returns, so this file
 * also shows, by example, how to walk a model.
 */
#include "cli.h"
#include "json_tree.h"

#include <marionette/marionette.h>

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Enum values print through the library's names (mn_component_name and the rest of model.h). */
#define INTERP_COUNT (MN_INTERP_CUBICSPLINE + 1)

/* ---- facts derived from the model ---------------------------------------- */

static bool bounds_empty(const mn_model *m)
{
    return !(m->bounds_min[0] <= m->bounds_max[0] && m->bounds_min[1] <= m->bounds_max[1] &&
             m->bounds_min[2] <= m->bounds_max[2]);
}

/* Element count of an accessor index, 0 for MN_NONE (the reader checked the range). */
static uint32_t accessor_count(const mn_model *m, uint32_t accessor)
{
    return accessor == MN_NONE ? 0 : m->accessors[accessor].count;
}

/*
 * For each node, the first skin that lists it as a joint (MN_NONE when none).
 * A node may be a joint of several skins; the tree marks the first, the JSON
 * lists skins with their joints in full.  NULL when out of memory or no nodes.
 */
static uint32_t *joint_owners(const mn_model *m)
{
    if (m->node_count == 0)
        return NULL;
    uint32_t *owner = malloc((size_t)m->node_count * sizeof *owner);
    if (!owner)
        return NULL;
    for (uint32_t i = 0; i < m->node_count; i++)
        owner[i] = MN_NONE;
    for (uint32_t s = m->skin_count; s-- > 0;)
        for (uint32_t j = 0; j < m->skins[s].joint_count; j++)
            owner[m->skins[s].joints[j]] = s;
    return owner;
}

/* ---- text output --------------------------------------------------------- */

static void put_name(FILE *out, const char *s)
{
    if (s) {
        fputc(' ', out);
        cli_put_quoted(out, s);
    }
}

/* Attribute names are identifiers in every sane file; quote only the odd ones. */
static void put_ident(FILE *out, const char *s, int width)
{
    const char *p = s ? s : "";
    size_t n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
    if (*p && p[n] == '\0')
        fprintf(out, "%-*s", width, p);
    else
        cli_put_quoted(out, p);
}

/* Bounds read better without float dust: -1.6e-07 on a 1.5 m figure is 0. */
static double tidy(float v, float extent)
{
    return fabsf(v) < extent * 1e-5f ? 0.0 : (double)v;
}

static void put_plural(FILE *out, uint64_t n, const char *one, const char *many)
{
    fprintf(out, "%llu %s", (unsigned long long)n, cli_noun(n, one, many));
}

static void put_string_list(FILE *out, const char *const *list, uint32_t count)
{
    if (count == 0)
        fputs("none", out);
    for (uint32_t i = 0; i < count; i++) {
        if (i)
            fputs(", ", out);
        fputs(list[i], out);
    }
}

static void put_node_line(FILE *out, const mn_model *m, uint32_t n, uint32_t depth,
                          const uint32_t *owner)
{
    const mn_node *node = &m->nodes[n];
    /* Deep chains are legal; keep the indentation readable and say the depth. */
    uint32_t indent = depth < 32 ? depth : 32;
    fprintf(out, "    %*s", (int)(2 * indent), "");
    if (depth > 32)
        fprintf(out, "(depth %u) ", depth);
    cli_put_quoted(out, node->name);
    fprintf(out, " #%u", n);
    if (node->mesh != MN_NONE) {
        fprintf(out, "  [mesh %u", node->mesh);
        put_name(out, m->meshes[node->mesh].name);
        fputc(']', out);
    }
    if (node->skin != MN_NONE)
        fprintf(out, "  [skin %u]", node->skin);
    if (node->camera != MN_NONE)
        fprintf(out, "  [camera %u]", node->camera);
    if (node->light < m->light_count)
        fprintf(out, "  [light %u]", node->light);
    if (node->instance_count)
        fprintf(out, "  [%u instances]", node->instance_count);
    if (node->hidden)
        fputs("  [hidden]", out);
    if (owner && owner[n] != MN_NONE)
        fprintf(out, "  [joint of skin %u]", owner[n]);
    fputc('\n', out);
}

/*
 * Depth-first walk from `roots`, with an explicit stack: a hostile file may
 * hold a chain of a million nodes, and recursion would overflow the C stack.
 * The reader guarantees a forest, so every node is visited at most once.
 */
static bool put_tree(FILE *out, const mn_model *m, const uint32_t *roots, uint32_t root_count,
                     const uint32_t *owner)
{
    typedef struct { uint32_t node, depth; } item;
    size_t cap = (size_t)m->node_count + 1;
    item *stack = malloc(cap * sizeof *stack);
    if (!stack)
        return false;
    for (uint32_t r = 0; r < root_count; r++) {
        size_t top = 0;
        stack[top++] = (item){roots[r], 0};
        while (top > 0) {
            item it = stack[--top];
            put_node_line(out, m, it.node, it.depth, owner);
            const mn_node *node = &m->nodes[it.node];
            for (uint32_t c = node->child_count; c-- > 0 && top < cap;)
                stack[top++] = (item){node->children[c], it.depth + 1};
        }
    }
    free(stack);
    return true;
}

static void put_header(FILE *out, const char *path, const mn_model *m)
{
    fputs("file        ", out);
    cli_put_quoted(out, path);
    /* An OBJ is described as the model it is read into (mn_model_from_obj). */
    fputs(cli_has_extension(path, ".obj") ? "\nasset       OBJ, as glTF " : "\nasset       glTF ", out);
    fputs(m->version ? m->version : "?", out);
    if (m->min_version)
        fprintf(out, " (minVersion %s)", m->min_version);
    if (m->generator) {
        fputs(", generator ", out);
        cli_put_quoted(out, m->generator);
    }
    fputs("\nextensions  used: ", out);
    put_string_list(out, m->extensions_used, m->extensions_used_count);
    fputs("; required: ", out);
    put_string_list(out, m->extensions_required, m->extensions_required_count);
    fputs("\nbounds      ", out);
    if (bounds_empty(m))
        fputs("empty (the default scene places no mesh)", out);
    else
    {
        float extent = 0.0f;
        for (int i = 0; i < 3; i++)
            extent = fmaxf(extent, fmaxf(fabsf(m->bounds_min[i]), fabsf(m->bounds_max[i])));
        fprintf(out, "min (%.4g, %.4g, %.4g)  max (%.4g, %.4g, %.4g)  at rest",
                tidy(m->bounds_min[0], extent), tidy(m->bounds_min[1], extent),
                tidy(m->bounds_min[2], extent), tidy(m->bounds_max[0], extent),
                tidy(m->bounds_max[1], extent), tidy(m->bounds_max[2], extent));
    }
    fputs("\ncounts      ", out);
    put_plural(out, m->scene_count, "scene", "scenes");
    fputs(", ", out);
    put_plural(out, m->node_count, "node", "nodes");
    fputs(", ", out);
    put_plural(out, m->mesh_count, "mesh", "meshes");
    fputs(", ", out);
    put_plural(out, m->skin_count, "skin", "skins");
    fputs(", ", out);
    put_plural(out, m->animation_count, "animation", "animations");
    fputs(", ", out);
    put_plural(out, m->material_count, "material", "materials");
    fputs(", ", out);
    put_plural(out, m->texture_count, "texture", "textures");
    fputs(", ", out);
    put_plural(out, m->image_count, "image", "images");
    fputs(", ", out);
    put_plural(out, m->camera_count, "camera", "cameras");
    fputs(",\n            ", out);
    put_plural(out, m->accessor_count, "accessor", "accessors");
    fputs(", ", out);
    put_plural(out, m->buffer_view_count, "buffer view", "buffer views");
    fputs(", ", out);
    put_plural(out, m->buffer_count, "buffer", "buffers");
    fputc('\n', out);
}

static bool put_scenes(FILE *out, const mn_model *m)
{
    uint32_t *owner = joint_owners(m);
    if (m->node_count > 0 && !owner)
        return false;
    bool ok = true;
    if (m->scene_count == 0) {
        /* No scenes: the nodes without a parent are what an application would show. */
        fputs("\nscenes: none; root nodes:\n", out);
        for (uint32_t n = 0; n < m->node_count && ok; n++)
            if (m->nodes[n].parent == MN_NONE)
                ok = put_tree(out, m, &n, 1, owner);
    } else {
        fprintf(out, "\nscenes (%u", m->scene_count);
        if (m->scene != MN_NONE)
            fprintf(out, ", default %u", m->scene);
        fputs(")\n", out);
    }
    for (uint32_t s = 0; s < m->scene_count && ok; s++) {
        fprintf(out, "  scene %u", s);
        put_name(out, m->scenes[s].name);
        fputs(":\n", out);
        ok = put_tree(out, m, m->scenes[s].nodes, m->scenes[s].node_count, owner);
    }
    free(owner);
    return ok;
}

static void put_meshes(FILE *out, const mn_model *m)
{
    if (m->mesh_count == 0)
        return;
    fprintf(out, "\nmeshes (%u)\n", m->mesh_count);
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        const mn_mesh *mesh = &m->meshes[i];
        fprintf(out, "  mesh %u", i);
        put_name(out, mesh->name);
        fputs(": ", out);
        put_plural(out, mesh->primitive_count, "primitive", "primitives");
        if (mesh->weight_count) {
            fputs(", ", out);
            put_plural(out, mesh->weight_count, "morph weight", "morph weights");
        }
        fputc('\n', out);
        for (uint32_t p = 0; p < mesh->primitive_count; p++) {
            const mn_primitive *prim = &mesh->primitives[p];
            fprintf(out, "    primitive %u: %s", p, mn_primitive_mode_name(prim->mode));
            if (prim->original_mode != prim->mode)
                fprintf(out, " (from %s)", mn_primitive_mode_name(prim->original_mode));
            fputs(", ", out);
            put_plural(out, prim->vertex_count, "vertex", "vertices");
            if (prim->indices != MN_NONE) {
                fputs(", ", out);
                put_plural(out, m->accessors[prim->indices].count, "index", "indices");
                fprintf(out, " (%s)", mn_component_name(m->accessors[prim->indices].component));
            } else
                fputs(", not indexed", out);
            if (prim->material != MN_NONE)
                fprintf(out, ", material %u", prim->material);
            if (prim->target_count) {
                fputs(", ", out);
                put_plural(out, prim->target_count, "morph target", "morph targets");
            }
            fputc('\n', out);
            for (uint32_t a = 0; a < prim->attribute_count; a++) {
                const mn_accessor *acc = &m->accessors[prim->attributes[a].accessor];
                fputs("      ", out);
                put_ident(out, prim->attributes[a].name, 12);
                fprintf(out, " %-6s %s%s\n", mn_accessor_type_name(acc->type),
                        mn_component_name(acc->component), acc->normalized ? " normalized" : "");
            }
        }
    }
}

static void put_skins(FILE *out, const mn_model *m)
{
    if (m->skin_count == 0)
        return;
    fprintf(out, "\nskins (%u)\n", m->skin_count);
    for (uint32_t i = 0; i < m->skin_count; i++) {
        const mn_skin *skin = &m->skins[i];
        fprintf(out, "  skin %u", i);
        put_name(out, skin->name);
        fputs(": ", out);
        put_plural(out, skin->joint_count, "joint", "joints");
        if (skin->skeleton != MN_NONE)
            fprintf(out, ", skeleton node %u", skin->skeleton);
        fputc('\n', out);
    }
}

static void put_animations(FILE *out, const mn_model *m)
{
    if (m->animation_count == 0)
        return;
    fprintf(out, "\nanimations (%u)\n", m->animation_count);
    for (uint32_t i = 0; i < m->animation_count; i++) {
        const mn_animation *anim = &m->animations[i];
        uint32_t by_path[5] = {0}, by_interp[INTERP_COUNT] = {0};
        for (uint32_t c = 0; c < anim->channel_count; c++) {
            if ((unsigned)anim->channels[c].path < 5)
                by_path[anim->channels[c].path]++;
            if ((unsigned)anim->channels[c].interpolation < INTERP_COUNT)
                by_interp[anim->channels[c].interpolation]++;
        }
        fprintf(out, "  animation %u", i);
        put_name(out, anim->name);
        fprintf(out, ": %.3f s, ", (double)anim->duration);
        put_plural(out, anim->channel_count, "channel", "channels");
        const char *sep = " (";
        for (unsigned p = 0; p < 5; p++)
            if (by_path[p]) {
                fprintf(out, "%s%u %s", sep, by_path[p], mn_anim_path_name((mn_anim_path)p));
                sep = ", ";
            }
        fputs(anim->channel_count ? ")" : "", out);
        sep = ", ";
        for (unsigned k = 0; k < INTERP_COUNT; k++)
            if (by_interp[k]) {
                fprintf(out, "%s%s %u", sep, mn_interpolation_name((mn_interpolation)k),
                        by_interp[k]);
                sep = " ";
            }
        fputc('\n', out);
    }
}

static void put_texture_slot(FILE *out, const char *slot, const mn_texture_ref *ref)
{
    if (ref->texture == MN_NONE)
        return;
    fprintf(out, ", %s texture %u (TEXCOORD_%u)", slot, ref->texture, ref->texcoord);
}

static void put_materials(FILE *out, const mn_model *m)
{
    if (m->material_count == 0)
        return;
    fprintf(out, "\nmaterials (%u)\n", m->material_count);
    for (uint32_t i = 0; i < m->material_count; i++) {
        const mn_material *mat = &m->materials[i];
        fprintf(out, "  material %u", i);
        put_name(out, mat->name);
        fprintf(out, ": base color (%.3g, %.3g, %.3g, %.3g), metallic %.3g, roughness %.3g, %s",
                (double)mat->base_color[0], (double)mat->base_color[1],
                (double)mat->base_color[2], (double)mat->base_color[3], (double)mat->metallic,
                (double)mat->roughness, mn_alpha_mode_name(mat->alpha_mode));
        if (mat->alpha_mode == MN_ALPHA_MASK)
            fprintf(out, " cutoff %.3g", (double)mat->alpha_cutoff);
        if (mat->double_sided)
            fputs(", double-sided", out);
        put_texture_slot(out, "base color", &mat->base_color_texture);
        put_texture_slot(out, "metallic-roughness", &mat->metallic_roughness_texture);
        put_texture_slot(out, "normal", &mat->normal_texture);
        put_texture_slot(out, "occlusion", &mat->occlusion_texture);
        put_texture_slot(out, "emissive", &mat->emissive_texture);
        fputc('\n', out);
    }
}

static void put_images(FILE *out, const mn_model *m)
{
    if (m->image_count == 0)
        return;
    fprintf(out, "\nimages (%u)\n", m->image_count);
    for (uint32_t i = 0; i < m->image_count; i++) {
        const mn_image *img = &m->images[i];
        fprintf(out, "  image %u", i);
        put_name(out, img->name);
        fprintf(out, ": %s, ", img->mime_type ? img->mime_type : "unknown type");
        put_plural(out, img->size, "byte", "bytes");
        if (img->buffer_view != MN_NONE)
            fprintf(out, ", bufferView %u", img->buffer_view);
        else if (img->uri && strncmp(img->uri, "data:", 5) == 0)
            fputs(", data URI", out);
        else if (img->uri) {
            fputs(", file ", out);
            cli_put_quoted(out, img->uri);
        }
        fputc('\n', out);
    }
}

static void put_cameras(FILE *out, const mn_model *m)
{
    if (m->camera_count == 0)
        return;
    fprintf(out, "\ncameras (%u)\n", m->camera_count);
    for (uint32_t i = 0; i < m->camera_count; i++) {
        const mn_camera *cam = &m->cameras[i];
        fprintf(out, "  camera %u", i);
        put_name(out, cam->name);
        if (cam->orthographic)
            fprintf(out, ": orthographic, xmag %.4g, ymag %.4g", (double)cam->xmag, (double)cam->ymag);
        else
            fprintf(out, ": perspective, yfov %.4g rad", (double)cam->yfov);
        fprintf(out, ", znear %.4g, zfar ", (double)cam->znear);
        if (!cam->orthographic && cam->zfar == 0.0f)
            fputs("infinite\n", out);
        else
            fprintf(out, "%.4g\n", (double)cam->zfar);
    }
}

/* "node N", with the node's name when the file gives one (not the reader's "nodeN"). */
static void put_node_ref(FILE *out, const mn_model *m, uint32_t n, const char *prefix)
{
    fprintf(out, "%s%u", prefix, n);
    if (!m->nodes[n].default_name)
        put_name(out, m->nodes[n].name);
}

/* KHR_lights_punctual: each light, and the nodes that place it. */
static void put_lights(FILE *out, const mn_model *m)
{
    if (m->light_count == 0)
        return;
    fprintf(out, "\nlights (%u)\n", m->light_count);
    for (uint32_t i = 0; i < m->light_count; i++) {
        const mn_light *l = &m->lights[i];
        fprintf(out, "  light %u", i);
        put_name(out, l->name);
        fprintf(out, ": %s, colour (%.4g, %.4g, %.4g), intensity %.4g", mn_light_type_name(l->type),
                (double)l->color[0], (double)l->color[1], (double)l->color[2], (double)l->intensity);
        if (l->type != MN_LIGHT_DIRECTIONAL)
            l->range > 0.0f ? fprintf(out, ", range %.4g", (double)l->range) : fputs(", range infinite", out);
        if (l->type == MN_LIGHT_SPOT)
            fprintf(out, ", cone %.4g to %.4g rad", (double)l->inner_cone_angle, (double)l->outer_cone_angle);
        uint32_t nodes = 0;
        for (uint32_t n = 0; n < m->node_count; n++)
            if (m->nodes[n].light == i)
                put_node_ref(out, m, n, nodes++ ? ", " : ", node ");
        fputs(nodes ? "\n" : ", on no node\n", out);
    }
}

/* EXT_mesh_gpu_instancing and KHR_node_visibility: the nodes that use them. */
static void put_instancing_and_visibility(FILE *out, const mn_model *m)
{
    uint32_t instanced = 0, hidden = 0;
    for (uint32_t n = 0; n < m->node_count; n++) {
        instanced += m->nodes[n].instance_count > 0;
        hidden += m->nodes[n].hidden;
    }
    if (instanced) {
        fprintf(out, "\ninstanced nodes (%u)\n", instanced);
        for (uint32_t n = 0; n < m->node_count; n++) {
            const mn_node *node = &m->nodes[n];
            if (!node->instance_count)
                continue;
            put_node_ref(out, m, n, "  node ");
            fprintf(out, ": %u instances of mesh %u (", node->instance_count, node->mesh);
            const char *sep = "";
            if (node->instance_translation != MN_NONE)
                fprintf(out, "%stranslation", sep), sep = ", ";
            if (node->instance_rotation != MN_NONE)
                fprintf(out, "%srotation", sep), sep = ", ";
            if (node->instance_scale != MN_NONE)
                fprintf(out, "%sscale", sep);
            fputs(")\n", out);
        }
    }
    if (hidden) {
        fprintf(out, "\nhidden nodes (%u), with what lies under them\n", hidden);
        for (uint32_t n = 0; n < m->node_count; n++)
            if (m->nodes[n].hidden) {
                put_node_ref(out, m, n, "  node ");
                fputc('\n', out);
            }
    }
}

/* Primitives whose KHR_materials_variants mappings list variant v. */
static uint32_t variant_primitives(const mn_model *m, uint32_t v)
{
    uint32_t count = 0;
    for (uint32_t i = 0; i < m->mesh_count; i++)
        for (uint32_t p = 0; p < m->meshes[i].primitive_count; p++) {
            const mn_primitive *prim = &m->meshes[i].primitives[p];
            bool maps = false;
            for (uint32_t k = 0; k < prim->variant_mapping_count && !maps; k++)
                for (uint32_t j = 0; j < prim->variant_mappings[k].variant_count && !maps; j++)
                    maps = prim->variant_mappings[k].variants[j] == v;
            count += maps;
        }
    return count;
}

static void put_variants(FILE *out, const mn_model *m)
{
    if (m->variant_count == 0)
        return;
    fprintf(out, "\nvariants (%u)\n", m->variant_count);
    for (uint32_t v = 0; v < m->variant_count; v++) {
        fprintf(out, "  variant %u", v);
        put_name(out, m->variants[v]);
        uint32_t n = variant_primitives(m, v);
        fprintf(out, ": %u %s\n", n, n == 1 ? "primitive" : "primitives");
    }
}

static void put_warnings(FILE *out, const mn_model *m)
{
    fprintf(out, "\nwarnings (%u)\n", m->warning_count);
    for (uint32_t i = 0; i < m->warning_count; i++) {
        const mn_warning *w = &m->warnings[i];
        fprintf(out, "  %s", mn_status_name(w->code));
        if (w->path && w->path[0])
            fprintf(out, " at %s", w->path);
        fprintf(out, ": %s\n", w->message ? w->message : mn_status_message(w->code));
    }
}

static bool print_text(FILE *out, const char *path, const mn_model *m)
{
    put_header(out, path, m);
    if (!put_scenes(out, m))
        return false;
    put_meshes(out, m);
    put_skins(out, m);
    put_animations(out, m);
    put_materials(out, m);
    put_images(out, m);
    put_cameras(out, m);
    put_lights(out, m);
    put_instancing_and_visibility(out, m);
    put_variants(out, m);
    put_warnings(out, m);
    return true;
}

/* ---- JSON output (json_tree.h: building stops at the first failure) ---------- */

/* A JSON string; bytes that are not UTF-8 (the reader's JSON parser rejects
   them, but stay safe) become '?'. */
static json_t *jstr(const char *s)
{
    if (!s)
        return json_null();
    json_t *v = json_string(s);
    if (v)
        return v;
    size_t n = strlen(s);
    char *copy = malloc(n + 1);
    if (!copy)
        return NULL;
    for (size_t i = 0; i <= n; i++)
        copy[i] = (s[i] & 0x80) ? '?' : s[i];
    v = json_string(copy);
    free(copy);
    return v;
}

static json_t *jindex(uint32_t i)
{
    return i == MN_NONE ? json_null() : json_integer(i);
}

static json_t *jindices(const uint32_t *v, uint32_t n)
{
    json_t *a = json_array();
    for (uint32_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_integer(v[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *jstrings(const char *const *v, uint32_t n)
{
    json_t *a = json_array();
    for (uint32_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, jstr(v[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *json_asset(const mn_model *m)
{
    json_t *o = json_object();
    o = cli_jput(o, "version", jstr(m->version));
    o = cli_jput(o, "min_version", jstr(m->min_version));
    o = cli_jput(o, "generator", jstr(m->generator));
    o = cli_jput(o, "copyright", jstr(m->copyright));
    return o;
}

static json_t *json_counts(const mn_model *m)
{
    json_t *o = json_object();
    o = cli_jput(o, "buffers", json_integer(m->buffer_count));
    o = cli_jput(o, "buffer_views", json_integer(m->buffer_view_count));
    o = cli_jput(o, "accessors", json_integer(m->accessor_count));
    o = cli_jput(o, "images", json_integer(m->image_count));
    o = cli_jput(o, "samplers", json_integer(m->sampler_count));
    o = cli_jput(o, "textures", json_integer(m->texture_count));
    o = cli_jput(o, "materials", json_integer(m->material_count));
    o = cli_jput(o, "meshes", json_integer(m->mesh_count));
    o = cli_jput(o, "nodes", json_integer(m->node_count));
    o = cli_jput(o, "scenes", json_integer(m->scene_count));
    o = cli_jput(o, "skins", json_integer(m->skin_count));
    o = cli_jput(o, "cameras", json_integer(m->camera_count));
    o = cli_jput(o, "animations", json_integer(m->animation_count));
    o = cli_jput(o, "warnings", json_integer(m->warning_count));
    return o;
}

static json_t *json_scenes(const mn_model *m)
{
    json_t *a = json_array();
    for (uint32_t i = 0; i < m->scene_count; i++) {
        json_t *o = json_object();
        o = cli_jput(o, "name", jstr(m->scenes[i].name));
        o = cli_jput(o, "nodes", jindices(m->scenes[i].nodes, m->scenes[i].node_count));
        a = cli_jpush(a, o);
    }
    return a;
}

static json_t *json_nodes(const mn_model *m)
{
    json_t *a = json_array();
    for (uint32_t i = 0; i < m->node_count; i++) {
        const mn_node *n = &m->nodes[i];
        json_t *o = json_object();
        o = cli_jput(o, "name", jstr(n->name));
        o = cli_jput(o, "parent", jindex(n->parent));
        o = cli_jput(o, "children", jindices(n->children, n->child_count));
        o = cli_jput(o, "mesh", jindex(n->mesh));
        o = cli_jput(o, "skin", jindex(n->skin));
        o = cli_jput(o, "camera", jindex(n->camera));
        o = cli_jput(o, "translation", cli_jfloats(n->translation, 3));
        o = cli_jput(o, "rotation", cli_jfloats(n->rotation, 4));
        o = cli_jput(o, "scale", cli_jfloats(n->scale, 3));
        o = cli_jput(o, "has_matrix", json_boolean(n->has_matrix));
        o = cli_jput(o, "light", jindex(n->light < m->light_count ? n->light : MN_NONE));
        o = cli_jput(o, "hidden", json_boolean(n->hidden));
        o = cli_jput(o, "instance_count", json_integer(n->instance_count));
        a = cli_jpush(a, o);
    }
    return a;
}

static json_t *json_attribute(const mn_model *m, const mn_attribute *attr)
{
    const mn_accessor *acc = &m->accessors[attr->accessor];
    json_t *o = json_object();
    o = cli_jput(o, "name", jstr(attr->name));
    o = cli_jput(o, "accessor", json_integer(attr->accessor));
    o = cli_jput(o, "component", json_string(mn_component_name(acc->component)));
    o = cli_jput(o, "type", json_string(mn_accessor_type_name(acc->type)));
    o = cli_jput(o, "normalized", json_boolean(acc->normalized));
    o = cli_jput(o, "count", json_integer(acc->count));
    return o;
}

static json_t *json_primitive(const mn_model *m, const mn_primitive *p)
{
    json_t *o = json_object();
    o = cli_jput(o, "mode", json_string(mn_primitive_mode_name(p->mode)));
    o = cli_jput(o, "original_mode", json_string(mn_primitive_mode_name(p->original_mode)));
    o = cli_jput(o, "vertex_count", json_integer(p->vertex_count));
    if (p->indices != MN_NONE) {
        o = cli_jput(o, "index_count", json_integer(accessor_count(m, p->indices)));
        o = cli_jput(o, "index_component",
                     json_string(mn_component_name(m->accessors[p->indices].component)));
    } else {
        o = cli_jput(o, "index_count", json_null());
        o = cli_jput(o, "index_component", json_null());
    }
    o = cli_jput(o, "material", jindex(p->material));
    json_t *attrs = json_array();
    for (uint32_t a = 0; a < p->attribute_count; a++)
        attrs = cli_jpush(attrs, json_attribute(m, &p->attributes[a]));
    o = cli_jput(o, "attributes", attrs);
    o = cli_jput(o, "morph_targets", json_integer(p->target_count));
    return o;
}

static json_t *json_meshes(const mn_model *m)
{
    json_t *a = json_array();
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        const mn_mesh *mesh = &m->meshes[i];
        json_t *o = json_object();
        o = cli_jput(o, "name", jstr(mesh->name));
        json_t *prims = json_array();
        for (uint32_t p = 0; p < mesh->primitive_count; p++)
            prims = cli_jpush(prims, json_primitive(m, &mesh->primitives[p]));
        o = cli_jput(o, "primitives", prims);
        o = cli_jput(o, "weights", cli_jfloats(mesh->weights, mesh->weight_count));
        a = cli_jpush(a, o);
    }
    return a;
}

static json_t *json_skins(const mn_model *m)
{
    json_t *a = json_array();
    for (uint32_t i = 0; i < m->skin_count; i++) {
        const mn_skin *s = &m->skins[i];
        json_t *o = json_object();
        o = cli_jput(o, "name", jstr(s->name));
        o = cli_jput(o, "joint_count", json_integer(s->joint_count));
        o = cli_jput(o, "joints", jindices(s->joints, s->joint_count));
        o = cli_jput(o, "skeleton", jindex(s->skeleton));
        a = cli_jpush(a, o);
    }
    return a;
}

static json_t *json_animations(const mn_model *m)
{
    json_t *a = json_array();
    for (uint32_t i = 0; i < m->animation_count; i++) {
        const mn_animation *anim = &m->animations[i];
        uint32_t by_interp[INTERP_COUNT] = {0};
        json_t *channels = json_array();
        for (uint32_t c = 0; c < anim->channel_count; c++) {
            const mn_channel *ch = &anim->channels[c];
            if ((unsigned)ch->interpolation < INTERP_COUNT)
                by_interp[ch->interpolation]++;
            json_t *co = json_object();
            co = cli_jput(co, "node", json_integer(ch->node == MN_NONE ? -1 : (json_int_t)ch->node));
            co = cli_jput(co, "path", json_string(mn_anim_path_name(ch->path)));
            if (ch->path == MN_PATH_POINTER)
                co = cli_jput(co, "pointer", json_string(ch->pointer.text));
            co = cli_jput(co, "interpolation",
                          json_string(mn_interpolation_name(ch->interpolation)));
            co = cli_jput(co, "key_count", json_integer(ch->key_count));
            co = cli_jput(co, "sampler", json_integer(ch->sampler));
            channels = cli_jpush(channels, co);
        }
        json_t *interps = json_object();
        for (unsigned k = 0; k < INTERP_COUNT; k++)
            interps = cli_jput(interps, mn_interpolation_name((mn_interpolation)k),
                               json_integer(by_interp[k]));
        json_t *o = json_object();
        o = cli_jput(o, "name", jstr(anim->name));
        o = cli_jput(o, "duration", json_real((double)anim->duration));
        o = cli_jput(o, "channel_count", json_integer(anim->channel_count));
        o = cli_jput(o, "interpolations", interps);
        o = cli_jput(o, "channels", channels);
        a = cli_jpush(a, o);
    }
    return a;
}

static json_t *json_texture_ref(const mn_texture_ref *ref)
{
    if (ref->texture == MN_NONE)
        return json_null();
    json_t *o = json_object();
    o = cli_jput(o, "texture", json_integer(ref->texture));
    o = cli_jput(o, "texcoord", json_integer(ref->texcoord));
    return o;
}

static json_t *json_materials(const mn_model *m)
{
    json_t *a = json_array();
    for (uint32_t i = 0; i < m->material_count; i++) {
        const mn_material *mat = &m->materials[i];
        json_t *tex = json_object();
        tex = cli_jput(tex, "base_color", json_texture_ref(&mat->base_color_texture));
        tex = cli_jput(tex, "metallic_roughness",
                       json_texture_ref(&mat->metallic_roughness_texture));
        tex = cli_jput(tex, "normal", json_texture_ref(&mat->normal_texture));
        tex = cli_jput(tex, "occlusion", json_texture_ref(&mat->occlusion_texture));
        tex = cli_jput(tex, "emissive", json_texture_ref(&mat->emissive_texture));
        json_t *o = json_object();
        o = cli_jput(o, "name", jstr(mat->name));
        o = cli_jput(o, "base_color", cli_jfloats(mat->base_color, 4));
        o = cli_jput(o, "metallic", json_real((double)mat->metallic));
        o = cli_jput(o, "roughness", json_real((double)mat->roughness));
        o = cli_jput(o, "emissive", cli_jfloats(mat->emissive, 3));
        o = cli_jput(o, "emissive_strength", json_real((double)mat->emissive_strength));
        o = cli_jput(o, "alpha_mode", json_string(mn_alpha_mode_name(mat->alpha_mode)));
        o = cli_jput(o, "alpha_cutoff", json_real((double)mat->alpha_cutoff));
        o = cli_jput(o, "double_sided", json_boolean(mat->double_sided));
        o = cli_jput(o, "textures", tex);
        a = cli_jpush(a, o);
    }
    return a;
}

static json_t *json_images(const mn_model *m)
{
    json_t *a = json_array();
    for (uint32_t i = 0; i < m->image_count; i++) {
        const mn_image *img = &m->images[i];
        bool data_uri = img->uri && strncmp(img->uri, "data:", 5) == 0;
        json_t *o = json_object();
        o = cli_jput(o, "name", jstr(img->name));
        o = cli_jput(o, "mime_type", jstr(img->mime_type));
        o = cli_jput(o, "size", json_integer((json_int_t)img->size));
        o = cli_jput(o, "buffer_view", jindex(img->buffer_view));
        /* A data: URI can be megabytes of base64; say what it is instead. */
        o = cli_jput(o, "uri", data_uri ? json_string("data:") : jstr(img->uri));
        a = cli_jpush(a, o);
    }
    return a;
}

static json_t *json_cameras(const mn_model *m)
{
    json_t *a = json_array();
    for (uint32_t i = 0; i < m->camera_count; i++) {
        const mn_camera *c = &m->cameras[i];
        json_t *o = json_object();
        o = cli_jput(o, "name", jstr(c->name));
        o = cli_jput(o, "type", json_string(c->orthographic ? "orthographic" : "perspective"));
        if (c->orthographic) {
            o = cli_jput(o, "xmag", json_real((double)c->xmag));
            o = cli_jput(o, "ymag", json_real((double)c->ymag));
        } else {
            o = cli_jput(o, "yfov", json_real((double)c->yfov));
            o = cli_jput(o, "aspect_ratio",
                         c->aspect_ratio > 0.0f ? json_real((double)c->aspect_ratio) : json_null());
        }
        o = cli_jput(o, "znear", json_real((double)c->znear));
        o = cli_jput(o, "zfar", !c->orthographic && c->zfar == 0.0f ? json_null()
                                                                    : json_real((double)c->zfar));
        a = cli_jpush(a, o);
    }
    return a;
}

static json_t *json_lights(const mn_model *m)
{
    json_t *a = json_array();
    for (uint32_t i = 0; i < m->light_count; i++) {
        const mn_light *l = &m->lights[i];
        json_t *o = json_object();
        o = cli_jput(o, "name", jstr(l->name));
        o = cli_jput(o, "type", json_string(mn_light_type_name(l->type)));
        o = cli_jput(o, "color", cli_jfloats(l->color, 3));
        o = cli_jput(o, "intensity", json_real((double)l->intensity));
        o = cli_jput(o, "range", l->range > 0.0f ? json_real((double)l->range) : json_null());
        if (l->type == MN_LIGHT_SPOT) {
            o = cli_jput(o, "inner_cone_angle", json_real((double)l->inner_cone_angle));
            o = cli_jput(o, "outer_cone_angle", json_real((double)l->outer_cone_angle));
        }
        a = cli_jpush(a, o);
    }
    return a;
}

static json_t *json_variants(const mn_model *m)
{
    json_t *a = json_array();
    for (uint32_t v = 0; v < m->variant_count; v++) {
        json_t *o = json_object();
        o = cli_jput(o, "name", jstr(m->variants[v]));
        o = cli_jput(o, "primitive_count", json_integer(variant_primitives(m, v)));
        a = cli_jpush(a, o);
    }
    return a;
}

static json_t *json_bounds(const mn_model *m)
{
    if (bounds_empty(m))
        return json_null();
    json_t *o = json_object();
    o = cli_jput(o, "min", cli_jfloats(m->bounds_min, 3));
    o = cli_jput(o, "max", cli_jfloats(m->bounds_max, 3));
    return o;
}

static json_t *json_warnings(const mn_model *m)
{
    json_t *a = json_array();
    for (uint32_t i = 0; i < m->warning_count; i++) {
        const mn_warning *w = &m->warnings[i];
        json_t *o = json_object();
        o = cli_jput(o, "code", json_string(mn_status_name(w->code)));
        o = cli_jput(o, "path", jstr(w->path ? w->path : ""));
        o = cli_jput(o, "message", jstr(w->message ? w->message : mn_status_message(w->code)));
        a = cli_jpush(a, o);
    }
    return a;
}

static bool print_json(FILE *out, const char *path, const mn_model *m)
{
    json_t *root = json_object();
    root = cli_jput(root, "file", jstr(path));
    root = cli_jput(root, "asset", json_asset(m));
    root = cli_jput(root, "extensions_used",
                    jstrings(m->extensions_used, m->extensions_used_count));
    root = cli_jput(root, "extensions_required",
                    jstrings(m->extensions_required, m->extensions_required_count));
    root = cli_jput(root, "counts", json_counts(m));
    root = cli_jput(root, "scene", jindex(m->scene));
    root = cli_jput(root, "scenes", json_scenes(m));
    root = cli_jput(root, "nodes", json_nodes(m));
    root = cli_jput(root, "meshes", json_meshes(m));
    root = cli_jput(root, "skins", json_skins(m));
    root = cli_jput(root, "animations", json_animations(m));
    root = cli_jput(root, "materials", json_materials(m));
    root = cli_jput(root, "images", json_images(m));
    root = cli_jput(root, "cameras", json_cameras(m));
    root = cli_jput(root, "lights", json_lights(m));
    root = cli_jput(root, "variants", json_variants(m));
    root = cli_jput(root, "bounds", json_bounds(m));
    root = cli_jput(root, "warnings", json_warnings(m));
    if (!root)
        return false;
    /* 7 significant digits: the values are 32-bit floats, so more digits only add noise. */
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(7));
    json_decref(root);
    if (rc != 0)
        return false;
    fputc('\n', out);
    return true;
}

/* ---- the command ---------------------------------------------------------- */

/* Character packages (cmd_info_character.c says which .json files are ones). */
bool mn_cli_is_character(const char *path);
int mn_cli_character_info(const char *path, bool json);

int cli_info(int argc, char **argv)
{
    const char *file = NULL;
    bool as_json = false;
    const cli_option options[] = {
        {.name = "--json", .kind = CLI_FLAG, .dest = &as_json},
    };
    const cli_positional positionals[] = {{"FILE", &file, "which file?"}};
    const cli_spec spec = {.reads_model = true, .command = cli_find_command("info"), .options = options,
                           .option_count = CLI_COUNT(options), .positionals = positionals,
                           .positional_count = CLI_COUNT(positionals)};
    int rc;
    if (!cli_parse_args(&spec, argc, argv, &rc))
        return rc;
    if (mn_cli_is_character(file))
        return mn_cli_character_info(file, as_json);
    if (cli_is_rig_json(file))
        return mn_cli_voxel_info(file, as_json);
    if (mn_cli_is_aosrig(file))
        return mn_cli_aosrig_info(file, as_json);

    mn_model *model = cli_read_model(file, CLI_READS_INFO, false);
    if (!model)
        return CLI_EXIT_FAILED;
    bool ok = as_json ? print_json(stdout, file, model) : print_text(stdout, file, model);
    mn_model_free(model);
    if (!ok) {
        fprintf(stderr, "marionette: %s: out of memory while describing the model\n", file);
        return CLI_EXIT_FAILED;
    }
    return CLI_EXIT_OK;
}
