/*
 * mn_voxel_export_file: read a rig and its meshes, build the export, write
 * the glTF and interface.json.  Errors name the file (and the part whose
 * mesh it is).  Nothing is left half-written: interface.json goes to a
 * temporary file first, the glTF is written by mn_gltf_write_file (itself
 * temporary, then renamed), and the interface is renamed into place last;
 * when that fails the glTF just written is removed again.
 */
#define _POSIX_C_SOURCE 200809L

#include "voxel/export_internal.h"

#include <marionette/gltf.h>
#include <marionette/model.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Write text to a new temporary file beside `final`; its name into temp. */
static mn_status write_temp(const char *final, const char *text, size_t size, char *temp, size_t temp_size,
                            mn_error *err)
{
    int fd = -1;
    for (unsigned n = 0; n < 1000 && fd < 0; n++) {
        snprintf(temp, temp_size, "%s.tmp%ld-%u", final, (long)getpid(), n);
        fd = open(temp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0)
        return mni_fail(err, MN_IO, "cannot write %.200s: %s", final, strerror(errno));
    const char *p = text;
    while (size > 0) {
        ssize_t w = write(fd, p, size);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            close(fd);
            unlink(temp);
            return mni_fail(err, MN_IO, "cannot write %.200s: %s", final, strerror(e));
        }
        p += w;
        size -= (size_t)w;
    }
    if (close(fd) != 0) {
        int e = errno;
        unlink(temp);
        return mni_fail(err, MN_IO, "cannot write %.200s: %s", final, strerror(e));
    }
    return MN_OK;
}

static mn_status write_outputs(const inputs *in, const mn_model *model, const char *out_path,
                               const mn_voxel_export_options *o, mn_error *err)
{
    char stem[PATH_CAP], iface[PATH_CAP + 32], temp[PATH_CAP + 64];
    size_t ext = ends_with(out_path, ".gltf") ? 5 : 4;
    snprintf(stem, sizeof stem, "%.*s", (int)(strlen(out_path) - ext), out_path);
    snprintf(iface, sizeof iface, "%s.interface.json", stem);
    temp[0] = '\0';
    if (in->rig) {
        size_t size = mn_voxel_export_interface(in->rig, model, o, NULL, 0);
        char *text = mni_alloc(&in->allocator, size + 1);
        if (!text)
            return mni_oom(err, NULL);
        mn_voxel_export_interface(in->rig, model, o, text, size + 1);
        mn_status st = write_temp(iface, text, size, temp, sizeof temp, err);
        mni_free(&in->allocator, text, size + 1);
        if (st != MN_OK)
            return st;
    }
    mn_gltf_write_options wo;
    memset(&wo, 0, sizeof wo);
    wo.allocator = in->allocator;
    mn_status st = mn_gltf_write_file(model, out_path, &wo, err);
    if (st != MN_OK) {
        if (temp[0])
            unlink(temp);
        return st;
    }
    if (temp[0] && rename(temp, iface) != 0) {
        int e = errno;
        unlink(temp);
        unlink(out_path);
        if (ext == 5) {
            char bin[PATH_CAP + 8];
            snprintf(bin, sizeof bin, "%s.bin", stem);
            unlink(bin);
        }
        return mni_fail(err, MN_IO, "cannot write %.200s: %s", iface, strerror(e));
    }
    return MN_OK;
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
