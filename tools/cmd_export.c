/*
 * `marionette export`: a voxel model (rig.json and its meshes, or a static
 * mesh.glb) as one glTF, with the joint interface beside it
 * (mn_voxel_export_file; voxel_export.h says what the file holds).
 *
 *   marionette export --rig rig.json --meshes meshes/ --out model.glb    rigged, animated
 *   marionette export --meshes mesh.glb --out model.glb                   static
 *   marionette export --rig rig.json --out model.gltf                     .gltf + .bin
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

int cli_export(int argc, char **argv)
{
    const char *rig = NULL, *meshes = NULL, *out = NULL;
    mn_voxel_export_options o;
    memset(&o, 0, sizeof o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = strcmp(a, "--rig") == 0 || strcmp(a, "--meshes") == 0 || strcmp(a, "--out") == 0 ||
                     strcmp(a, "-o") == 0 || strcmp(a, "--scale") == 0 || strcmp(a, "--rate") == 0 ||
                     strcmp(a, "--name") == 0;
        if (!takes)
            return cli_usage_error("export", "unexpected argument '%s'", a);
        if (!v)
            return cli_usage_error("export", "%s needs a value", a);
        i++;
        if (strcmp(a, "--rig") == 0)
            rig = v;
        else if (strcmp(a, "--meshes") == 0)
            meshes = v;
        else if (strcmp(a, "--out") == 0 || strcmp(a, "-o") == 0)
            out = v;
        else if (strcmp(a, "--name") == 0)
            o.model_name = v;
        else if (!cli_parse_positive(v, strcmp(a, "--scale") == 0 ? &o.scale : &o.rate) ||
                 (strcmp(a, "--rate") == 0 && o.rate < 1.0f))
            return cli_usage_error("export", "%s needs a positive number%s, not '%s'", a,
                                   strcmp(a, "--rate") == 0 ? " (at least 1)" : "", v);
    }
    if (!out)
        return cli_usage_error("export", "--out is required");
    if (!cli_has_extension(out, ".glb") && !cli_has_extension(out, ".gltf"))
        return cli_usage_error("export", "--out must end in .glb or .gltf, not '%s'", out);
    if (!rig && !meshes)
        return cli_usage_error("export", "give --rig (a rigged model) or --meshes mesh.glb (a static one)");

    mn_error err;
    memset(&err, 0, sizeof err);
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
