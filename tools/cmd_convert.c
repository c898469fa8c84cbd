/*
 * `marionette convert IN OUT [--quantize] [--scale S] [--rate HZ]`: anything
 * the library reads, written as GLB or .gltf (+ .bin) by OUT's extension.
 *
 *   IN .glb / .gltf   read and written back (mn_gltf_read_file, mn_gltf_write_file)
 *   IN .obj           with its MTL libraries: groups become primitives with
 *                     their materials (mn_model_from_obj, obj_model.h)
 *   IN .json          a voxel rig with its meshes beside it, through the
 *                     exporter (mn_voxel_export_file: OUT.interface.json too)
 *
 * The reader's warnings (what it could not carry over) go to stderr, one line each.
 *
 * Exit status: 0 written; 1 IN cannot be read or OUT written (the error names
 * the file and item; nothing partial is left); 2 a wrong command line.
 */
#include "cli.h"

#include <marionette/marionette.h>
#include <marionette/voxel/export.h>

#include <string.h>

int cli_convert(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    mn_gltf_write_options wo;
    memset(&wo, 0, sizeof wo);
    mn_voxel_export_options vo;
    memset(&vo, 0, sizeof vo);
    const cli_option options[] = {
        {.name = "--quantize", .kind = CLI_FLAG, .dest = &wo.quantize},
    };
    cli_option numbers[2];
    cli_export_number_options(&vo, numbers);
    const char *missing = "give an input and an output file";
    const cli_positional positionals[] = {{"IN", &in, missing}, {"OUT", &out, missing}};
    const cli_spec spec = {.reads_model = true, .command = cli_find_command("convert"), .options = options,
                           .option_count = CLI_COUNT(options), .shared = numbers,
                           .shared_count = CLI_COUNT(numbers), .positionals = positionals,
                           .positional_count = CLI_COUNT(positionals)};
    int rc;
    if (!cli_parse_args(&spec, argc, argv, &rc))
        return rc;
    if (!cli_has_extension(out, ".glb") && !cli_has_extension(out, ".gltf"))
        return cli_usage_error("convert", "convert: the output must end in .glb or .gltf, not '%s'",
                               out);
    bool rig = cli_has_extension(in, ".json");
    if (!rig && (vo.scale != 0.0f || vo.rate != 0.0f))
        return cli_usage_error("convert", "convert: --scale and --rate apply to a voxel rig "
                                          "(.json) input only");

    mn_error err;
    memset(&err, 0, sizeof err);
    if (rig) {
        if (wo.quantize)
            return cli_usage_error("convert",
                                   "convert: --quantize does not apply to a voxel rig input");
        vo.root = cli_allow_outside;
        if (mn_voxel_export_file(in, NULL, out, &vo, &err) != MN_OK) {
            cli_report_error(in, &err);
            return CLI_EXIT_FAILED;
        }
        printf("wrote %s and its interface.json\n", out);
        return CLI_EXIT_OK;
    }
    mn_model *model = cli_read_model(in, CLI_READS_CONVERT, true);
    if (!model)
        return CLI_EXIT_FAILED;
    mn_status st = mn_gltf_write_file(model, out, &wo, &err);
    if (st != MN_OK)
        cli_report_error(out, &err);
    else
        printf("wrote %s (%u %s, %u %s, %u %s, %u %s)\n", out, model->node_count,
               cli_noun(model->node_count, "node", "nodes"), model->mesh_count,
               cli_noun(model->mesh_count, "mesh", "meshes"), model->material_count,
               cli_noun(model->material_count, "material", "materials"), model->animation_count,
               cli_noun(model->animation_count, "animation", "animations"));
    mn_model_free(model);
    return st == MN_OK ? CLI_EXIT_OK : CLI_EXIT_FAILED;
}
