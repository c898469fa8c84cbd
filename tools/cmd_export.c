/*
 * `marionette export`: a voxel model (rig.json and its meshes, or a static
 * mesh.glb) as one glTF, with the joint interface beside it
 * (mn_voxel_export_file; voxel/export.h says what the file holds).
 *
 *   marionette export --rig rig.json --meshes meshes/ --out model.glb    rigged, animated
 *   marionette export --meshes mesh.glb --out model.glb                   static
 *   marionette export --rig rig.json --out model.gltf                     .gltf + .bin
 *   marionette export --rig rig.json --out model                          model.glb
 *   options: --scale S  --rate HZ  --name NAME
 *
 * Exit status: 0 written; 1 an input is missing or invalid, or the output
 * cannot be written (the error names the file and item; nothing is left
 * behind); 2 a wrong command line.
 */
#include "cli.h"

#include <marionette/marionette.h>
#include <marionette/voxel/export.h>

#include <string.h>

void cli_export_number_options(mn_voxel_export_options *o, cli_option out[2])
{
    out[0] = (cli_option){.name = "--scale", .kind = CLI_FLOAT, .dest = &o->scale,
                          .help = "a positive number", .bounds = CLI_ABOVE, .min = 0};
    out[1] = (cli_option){.name = "--rate", .kind = CLI_FLOAT, .dest = &o->rate,
                          .help = "a rate of 1 or more (samples a second)", .bounds = CLI_AT_LEAST,
                          .min = 1};
}

/* True when the file name of path (after its last '/') holds a '.' past its first byte. */
static bool has_extension(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    const char *dot = strrchr(name, '.');
    return dot && dot > name;
}

int cli_export(int argc, char **argv)
{
    const char *rig = NULL, *meshes = NULL, *out = NULL;
    mn_voxel_export_options o;
    memset(&o, 0, sizeof o);
    const cli_option options[] = {
        {.name = "--rig", .kind = CLI_STRING, .dest = &rig},
        {.name = "--meshes", .kind = CLI_STRING, .dest = &meshes},
        {.name = "--out", .alias = "-o", .kind = CLI_STRING, .dest = &out,
         .required = "--out is required"},
        {.name = "--name", .kind = CLI_STRING, .dest = &o.model_name},
    };
    cli_option numbers[2];
    cli_export_number_options(&o, numbers);
    const cli_spec spec = {.reads_model = true, .command = cli_find_command("export"), .options = options,
                           .option_count = CLI_COUNT(options), .shared = numbers,
                           .shared_count = CLI_COUNT(numbers)};
    int rc;
    if (!cli_parse_args(&spec, argc, argv, &rc))
        return rc;
    /* OUT without an extension is a GLB, as the voxel runtime's own exporter writes one. */
    char named[4096];
    if (!has_extension(out)) {
        if (snprintf(named, sizeof named, "%s.glb", out) >= (int)sizeof named)
            return cli_usage_error("export", "export: --out '%.64s...' is too long", out);
        out = named;
    }
    if (!cli_has_extension(out, ".glb") && !cli_has_extension(out, ".gltf"))
        return cli_usage_error("export", "export: --out must end in .glb or .gltf, not '%s'", out);
    if (!rig && !meshes)
        return cli_usage_error("export", "export: give --rig (a rigged model) or --meshes mesh.glb "
                                         "(a static one)");

    mn_error err;
    memset(&err, 0, sizeof err);
    o.root = cli_allow_outside;
    if (mn_voxel_export_file(rig, meshes, out, &o, &err) != MN_OK) {
        cli_report_error("export", &err);
        return CLI_EXIT_FAILED;
    }
    printf("wrote %s", out);
    if (rig) {
        size_t stem = strlen(out) - (cli_has_extension(out, ".gltf") ? 5 : 4);
        printf(" and %.*s.interface.json", (int)stem, out);
    }
    putchar('\n');
    return CLI_EXIT_OK;
}
