/*
 * mn_voxel_export_file: read a rig and its meshes, build the export, write
 * the glTF and interface.json.  Errors name the file (and the part whose
 * mesh it is).  The files are one output set (io/output.c): whole or not at
 * all, replaced together.
 */
#define _POSIX_C_SOURCE 200809L

#include "voxel/export_internal.h"

#include "io/io.h"

#include <marionette/gltf.h>
#include <marionette/model.h>

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define PATH_CAP 4096

/* ---- paths ------------------------------------------------------------------------------------- */

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && strcasecmp(s + n - k, tail) == 0;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* "dir/" part of path ("" when none) into out. */
static void dir_of(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) + 1 : 0;
    snprintf(out, size, "%.*s", (int)n, path);
}

/* ---- reading ----------------------------------------------------------------------------------- */

/* Prefix err's message with "<file>: " (and the part), keeping its code and path. */
static mn_status name_file(mn_error *err, mn_status st, const char *file, const char *part)
{
    char message[sizeof err->message];
    snprintf(message, sizeof message, "%s", err->message);
    if (part)
        return mni_error_set(err, st, err->path, err->offset, "%.150s (part \"%.40s\"): %s", file, part, message);
    return mni_error_set(err, st, err->path, err->offset, "%.190s: %s", file, message);
}

static mn_status read_mesh(const char *path, bool skinned, const char *part, const mn_allocator *allocator,
                           mn_part_mesh **out, mn_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return mni_fail(err, MN_IO, "%.190s%s%.40s%s: the mesh file is missing", path,
                        part ? " (part \"" : "", part ? part : "", part ? "\")" : "");
    mn_status s = mn_part_mesh_read_file(path, skinned, allocator, out, err);
    return s == MN_OK ? MN_OK : name_file(err, s, path, part);
}

/* What the export reads: the rig, its meshes, all owned here. */
typedef struct inputs {
    mn_voxel_rig *rig;
    mn_part_mesh **parts;      /* part_count entries for rigged kinds */
    mn_part_mesh *mesh;
    mn_allocator allocator;
} inputs;

static void inputs_free(inputs *in)
{
    if (in->parts) {
        for (uint32_t p = 0; p < in->rig->part_count; p++)
            mn_part_mesh_free(in->parts[p]);
        mni_free(&in->allocator, in->parts, (size_t)in->rig->part_count * sizeof *in->parts);
    }
    mn_part_mesh_free(in->mesh);
    mn_voxel_rig_free(in->rig);
}

static mn_status read_inputs(const char *rig_path, const char *meshes_path, const char *root, inputs *in,
                             mn_error *err)
{
    char base[PATH_CAP], path[PATH_CAP + 256];
    if (rig_path) {
        mn_voxel_rig_options o = {in->allocator};
        mn_status st = mn_voxel_rig_read_file(rig_path, &o, &in->rig, err);
        if (st != MN_OK)
            return name_file(err, st, rig_path, NULL);
    } else if (!meshes_path) {
        return mni_fail(err, MN_INVALID_ARGUMENT, "a static export needs its mesh (--meshes mesh.glb)");
    }
    /* Where the meshes are: the given folder or file, else beside the rig. */
    bool file = meshes_path && !is_dir(meshes_path) && ends_with(meshes_path, ".glb");
    if (meshes_path)
        snprintf(base, sizeof base, "%s%s", meshes_path,
                 file || ends_with(meshes_path, "/") ? "" : "/");
    else
        dir_of(rig_path, base, sizeof base);
    mn_voxel_kind kind = in->rig ? in->rig->kind : MN_VOXEL_STATIC;
    if (kind == MN_VOXEL_STATIC || mn_voxel_kind_is_skinned(kind)) {
        snprintf(path, sizeof path, "%s%s", base, file ? "" : "mesh.glb");
        return read_mesh(path, mn_voxel_kind_is_skinned(kind), NULL, &in->allocator, &in->mesh, err);
    }
    if (file)
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "%.190s: a rigged model's meshes are a folder of <part>.glb files, not one file",
                        meshes_path);
    if (!meshes_path)
        snprintf(base + strlen(base), sizeof base - strlen(base), "meshes/");
    uint32_t n = in->rig->part_count;
    in->parts = mni_alloc(&in->allocator, (size_t)n * sizeof *in->parts);
    if (!in->parts)
        return mni_oom(err, NULL);
    memset(in->parts, 0, (size_t)n * sizeof *in->parts);
    /* A part's file is named by the rig: it must stay inside the meshes' folder's model (or root). */
    char folder[PATH_CAP];
    const char *sub = meshes_path ? "" : "meshes/";
    if (meshes_path)
        snprintf(folder, sizeof folder, "%s", base);
    else
        dir_of(rig_path, folder, sizeof folder);
    if (!folder[0])
        snprintf(folder, sizeof folder, ".");
    for (uint32_t p = 0; p < n; p++) {
        const char *name = in->rig->parts[p].name;
        snprintf(path, sizeof path, "%s%s.glb", sub, name);
        mn_status st = mn_part_mesh_read_in(folder, path, root, false, &in->allocator, &in->parts[p], err);
        if (st != MN_OK)
            return name_file(err, st, path, name);
    }
    return MN_OK;
}

/* ---- writing ----------------------------------------------------------------------------------- */

/*
 * The glTF's files go to the export's output set through this sink, named as
 * mn_gltf_write names them: "<stem>.glb", or "<stem>.gltf" and "<stem>.bin".
 */
typedef struct set_sink {
    mn_output *set;
    const char *main_name, *main_path, *bin_path;
    uint32_t main, bin;          /* files in the set; UINT32_MAX until written */
    mn_error io_err;             /* the set's own error (mn_gltf_write says only "refused") */
} set_sink;

static bool set_sink_write(void *user, const char *name, const void *bytes, size_t size)
{
    set_sink *s = user;
    bool main = strcmp(name, s->main_name) == 0;
    uint32_t *file = main ? &s->main : &s->bin;
    if (*file == UINT32_MAX &&
        mni_output_add(s->set, main ? s->main_path : s->bin_path, main ? 1u : 0u, file, &s->io_err) != MN_OK)
        return false;
    return mni_output_write(s->set, *file, bytes, size, &s->io_err) == MN_OK;
}

/* The interface (stage 2: it names the glTF) into the set. */
static mn_status add_interface(const inputs *in, const mn_model *model, const mn_voxel_export_options *o,
                               mn_output *set, const char *iface, mn_error *err)
{
    size_t size = mn_voxel_export_interface(in->rig, model, o, NULL, 0);
    char *text = mni_alloc(&in->allocator, size + 1);
    if (!text)
        return mni_oom(err, NULL);
    mn_voxel_export_interface(in->rig, model, o, text, size + 1);
    uint32_t file = 0;
    mn_status st = mni_output_add(set, iface, 2, &file, err);
    if (st == MN_OK)
        st = mni_output_write(set, file, text, size, err);
    mni_free(&in->allocator, text, size + 1);
    return st;
}

/*
 * The glTF (+ .bin) and interface.json as one output set (io/output.c):
 * all written and fsynced, then renamed .bin, glTF, interface; any failure
 * leaves all three old files as they were.
 */
static mn_status write_outputs(const inputs *in, const mn_model *model, const char *out_path,
                               const mn_voxel_export_options *o, mn_error *err)
{
    char stem[PATH_CAP], iface[PATH_CAP + 32], bin[PATH_CAP + 8], main_name[PATH_CAP + 8];
    bool gltf = ends_with(out_path, ".gltf");
    snprintf(stem, sizeof stem, "%.*s", (int)(strlen(out_path) - (gltf ? 5 : 4)), out_path);
    snprintf(iface, sizeof iface, "%s.interface.json", stem);
    snprintf(bin, sizeof bin, "%s.bin", stem);
    const char *slash = strrchr(stem, '/');
    const char *base = slash ? slash + 1 : stem;
    snprintf(main_name, sizeof main_name, "%s%s", base, gltf ? ".gltf" : ".glb");

    mn_output set;
    mni_output_init(&set, &in->allocator);
    mn_status st = in->rig ? add_interface(in, model, o, &set, iface, err) : MN_OK;
    if (st == MN_OK) {
        set_sink s = {&set, main_name, out_path, bin, UINT32_MAX, UINT32_MAX, {0}};
        mn_gltf_write_options wo;
        memset(&wo, 0, sizeof wo);
        wo.allocator = in->allocator;
        wo.container = gltf ? MN_GLTF_CONTAINER_GLTF : MN_GLTF_CONTAINER_GLB;
        wo.name = base;
        mn_gltf_sink sink = {set_sink_write, &s};
        st = mn_gltf_write(model, &wo, &sink, err);
        if (st != MN_OK && s.io_err.code != MN_OK) {
            *err = s.io_err;
            st = err->code;
        }
    }
    if (st != MN_OK) {
        mni_output_abort(&set);
        return st;
    }
    return mni_output_commit(&set, err);
}

mn_status mn_voxel_export_file(const char *rig_path, const char *meshes_path, const char *out_path,
                               const mn_voxel_export_options *options, mn_error *err)
{
    mn_error local;
    if (!err)
        err = &local;
    mni_error_clear(err);
    if (!out_path || !(ends_with(out_path, ".glb") || ends_with(out_path, ".gltf")))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "the output must end in .glb or .gltf (got %.200s)",
                        out_path ? out_path : "nothing");
    if (strlen(out_path) >= PATH_CAP - 64 || (rig_path && strlen(rig_path) >= PATH_CAP - 64) ||
        (meshes_path && strlen(meshes_path) >= PATH_CAP - 64))
        return mni_fail(err, MN_INVALID_ARGUMENT, "a path is too long");
    mn_voxel_export_options o;
    memset(&o, 0, sizeof o);
    if (options)
        o = *options;
    /* The model's name: the output's file name without its extension. */
    char name[PATH_CAP];
    const char *slash = strrchr(out_path, '/');
    const char *file = slash ? slash + 1 : out_path;
    snprintf(name, sizeof name, "%.*s", (int)(strlen(file) - (ends_with(file, ".gltf") ? 5 : 4)), file);
    if (!o.model_name)
        o.model_name = name;

    inputs in;
    memset(&in, 0, sizeof in);
    in.allocator = o.allocator;
    mn_model *model = NULL;
    mn_status st = read_inputs(rig_path, meshes_path, o.root, &in, err);
    if (st == MN_OK)
        st = mn_voxel_export_model(in.rig, (const mn_part_mesh *const *)in.parts, in.mesh, &o, &model, err);
    if (st == MN_OK)
        st = write_outputs(&in, model, out_path, &o, err);
    mn_model_free(model);
    inputs_free(&in);
    return st;
}
