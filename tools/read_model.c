/*
 * Reading a FILE into a model, as info, sample and convert do alike: glTF or
 * OBJ by its name, warnings on stderr, and an error that speaks of what the
 * command reads when FILE is none of it (a PNG given to info is "not a glTF,
 * OBJ, rig.json, .aosrig or character.json file", not the GLB reader's magic).
 */
#include "cli.h"

#include <marionette/marionette.h>
#include <marionette/obj_model.h>

#include <stdio.h>
#include <string.h>

/* The glTF reader found no glTF at all: neither GLB bytes nor, from the first token on, a JSON
   document (jansson says "'[' or '{' expected" of a first token that opens none). */
static bool no_gltf_at_all(const mn_error *err)
{
    return err->code == MN_GLB_MAGIC ||
           (err->code == MN_JSON_SYNTAX && err->line == 1 &&
            strstr(err->message, "'[' or '{' expected") != NULL);
}

void cli_report_read_error(const char *file, const mn_error *err, const char *kinds)
{
    /* A .glb or .gltf is meant as one: the reader's own words say what is wrong with it. */
    if (no_gltf_at_all(err) && !cli_has_extension(file, ".glb") &&
        !cli_has_extension(file, ".gltf")) {
        fprintf(stderr, "marionette: %s: not a %s file\n", file, kinds);
        return;
    }
    cli_report_error(file, err);
}

/* The file name of path without folder and extension, into out. */
static void stem_of(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    const char *dot = strrchr(name, '.');
    size_t n = dot && dot > name ? (size_t)(dot - name) : strlen(name);
    snprintf(out, size, "%.*s", (int)n, name);
}

static mn_model *read_obj(const char *file)
{
    mn_error err;
    memset(&err, 0, sizeof err);
    mn_obj *obj = NULL;
    mn_obj_options options = {.threads = cli_obj_threads(), .resolver.root = cli_allow_outside};
    if (mn_obj_read_file(file, &options, &obj, &err) != MN_OK) {
        cli_report_error(file, &err);
        return NULL;
    }
    for (uint32_t i = 0; i < obj->warning_count; i++)
        fprintf(stderr, "marionette: %s: warning: %s\n", file, obj->warnings[i].message);
    char name[256];
    stem_of(file, name, sizeof name);
    mn_model *model = NULL;
    if (mn_model_from_obj(obj, name, NULL, &model, &err) != MN_OK)
        cli_report_error(file, &err);
    mn_obj_free(obj);
    return model;
}

mn_model *cli_read_model(const char *file, const char *kinds, bool gltf_warnings)
{
    if (cli_has_extension(file, ".obj"))
        return read_obj(file);
    mn_error err;
    memset(&err, 0, sizeof err);
    mn_model *model = NULL;
    if (mn_gltf_read_file(file, &(mn_gltf_options){.resolver.root = cli_allow_outside}, &model,
                          &err) != MN_OK) {
        cli_report_read_error(file, &err, kinds);
        return NULL;
    }
    /* What the reader could not carry over (an extension it does not expand, ...) would
       otherwise be lost from a written file without a word. */
    for (uint32_t i = 0; gltf_warnings && i < model->warning_count; i++) {
        const mn_warning *w = &model->warnings[i];
        fprintf(stderr, "marionette: %s: warning: %s%s%s\n", file, w->path ? w->path : "",
                w->path && w->path[0] ? ": " : "",
                w->message ? w->message : mn_status_message(w->code));
    }
    return model;
}
