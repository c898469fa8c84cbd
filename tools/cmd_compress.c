/*
 * `marionette compress IN OUT.mnanim [--max-error M] [--shell S] [--json]`:
 * every animation of a glTF (or OBJ) model compressed (marionette/compress.h)
 * over the model's nodes, the clips a mixer plays, and written as one
 * .mnanim file: the blocks back to back, each starting at a multiple of 8.
 *
 * The file written is read back, each block checked (mn_compressed_clip_view)
 * and measured against the raw clip (mn_clip_error_measure): the errors
 * reported are the file's, not the compressor's.  --json prints one object:
 *   {"clips": N, "raw_bytes": R, "compressed_bytes": C, "ratio": R/C,
 *    "max_error_m": E, "p99_error_m": P, "shell_m": S}
 * raw bytes: the float32 keys and times as glTF stores them (each distinct
 * times and values array of an animation once); compressed bytes: the
 * file's size; P: the largest of the clips' 99th percentiles.
 *
 * OUT.glb or OUT.gltf (+ OUT.bin): the model written again (mn_gltf_write)
 * with its animations reduced and quantised within the same bound
 * (mn_compress_gltf) and meshopt-compressed (EXT_meshopt_compression,
 * required); meshes and the rest as the writer writes them.  The file is
 * read back with the library's reader, its clips built and measured against
 * the source's; compressed bytes: the animations' buffer views as stored
 * (mn_animation.stored_bytes: the compressed bytes of times and values).
 *
 * Exit status: 0 written; 1 IN cannot be read, a clip not compressed or OUT
 * not written (nothing partial is left); 2 a wrong command line.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <marionette/marionette.h>

#include <stdlib.h>
#include <string.h>

/* Every animation compressed, the blocks joined (8-aligned) into *bytes; false after saying why. */
static bool compress_all(const mn_model *model, const mn_skeleton *sk, const mn_compress_options *o,
                         const char *in, uint8_t **bytes, size_t *size)
{
    *bytes = NULL;
    *size = 0;
    for (uint32_t a = 0; a < model->animation_count; a++) {
        mn_error err;
        mn_clip *clip = NULL;
        mn_compressed_clip *cc = NULL;
        if (mn_clip_from_gltf(model, a, NULL, &clip, &err) != MN_OK ||
            mn_compress_clip(clip, sk, o, &cc, NULL, &err) != MN_OK) {
            mn_clip_free(clip);
            cli_report_error(in, &err);
            return false;
        }
        size_t n = mn_compressed_clip_info_of(cc).bytes, at = (*size + 7) & ~(size_t)7;
        uint8_t *grown = realloc(*bytes, at + n);
        if (!grown) {
            mn_compressed_clip_free(cc, NULL);
            mn_clip_free(clip);
            fprintf(stderr, "marionette: %s: out of memory\n", in);
            return false;
        }
        memset(grown + *size, 0, at - *size);
        memcpy(grown + at, cc, n);
        *bytes = grown;
        *size = at + n;
        mn_compressed_clip_free(cc, NULL);
        mn_clip_free(clip);
    }
    return true;
}

typedef struct measured {
    uint32_t clips;
    float max, p99;
} measured;

/* One clip read back measured against its raw clip, folded into m. */
static bool add_measure(measured *m, const mn_skeleton *sk, const mn_clip *raw, const mn_clip *view, float shell,
                        mn_error *err)
{
    mn_clip_error e;
    if (mn_clip_error_measure(sk, raw, view, &(mn_clip_error_options){.shell = shell}, &e, NULL, NULL, err) != MN_OK)
        return false;
    m->clips++;
    m->max = e.max > m->max ? e.max : m->max;
    m->p99 = e.p99 > m->p99 ? e.p99 : m->p99;
    return true;
}

/* OUT read back, each block viewed and measured against its raw clip; false after saying why. */
static bool measure_file(const char *out, const mn_model *model, const mn_skeleton *sk, float shell,
                         size_t *size, measured *m)
{
    FILE *f = fopen(out, "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0) {
        if (f)
            fclose(f);
        fprintf(stderr, "marionette: %s: cannot be read back\n", out);
        return false;
    }
    long length = ftell(f);
    rewind(f);
    uint64_t *buffer = malloc(((size_t)(length > 0 ? length : 0) / 8 + 1) * 8);
    bool ok = buffer && length >= 0 && fread(buffer, 1, (size_t)length, f) == (size_t)length;
    fclose(f);
    *size = (size_t)length;
    memset(m, 0, sizeof *m);
    size_t at = 0;
    for (uint32_t a = 0; ok && a < model->animation_count; a++) {
        mn_error err;
        const mn_compressed_clip *cc = NULL;
        mn_clip *raw = NULL, *view = NULL;
        ok = mn_compressed_clip_view((const uint8_t *)buffer + at, (size_t)length - at, &cc, &err) ==
                 MN_OK &&
             mn_clip_from_gltf(model, a, NULL, &raw, &err) == MN_OK &&
             mn_clip_from_compressed(cc, NULL, &view, &err) == MN_OK && add_measure(m, sk, raw, view, shell, &err);
        if (ok) {
            at = (at + mn_compressed_clip_info_of(cc).bytes + 7) & ~(size_t)7;
        } else {
            cli_report_error(out, &err);
        }
        mn_clip_free(view);
        mn_clip_free(raw);
    }
    free(buffer);
    return ok;
}

/* OUT.glb / OUT.gltf: reduced, written, read back and measured; false after saying why. */
static bool compress_gltf_file(const mn_model *model, const mn_skeleton *sk, const mn_compress_options *o,
                               const char *in, const char *out, float shell, size_t *written, measured *m)
{
    mn_error err;
    mn_gltf_compressed *gc = NULL;
    if (mn_compress_gltf(model, sk, o, &gc, &err) != MN_OK) {
        cli_report_error(in, &err);
        return false;
    }
    mn_gltf_write_options wo = {.channel_encodings = gc->encodings};
    bool ok = mn_gltf_write_file(&gc->model, out, &wo, &err) == MN_OK;
    mn_gltf_compressed_free(gc);
    if (!ok) {
        cli_report_error(out, &err);
        return false;
    }
    mn_model *back = NULL;
    if (mn_gltf_read_file(out, NULL, &back, &err) != MN_OK) {
        cli_report_error(out, &err);
        return false;
    }
    memset(m, 0, sizeof *m);
    *written = 0;
    ok = back->animation_count == model->animation_count;
    if (!ok)
        fprintf(stderr, "marionette: %s: %u animations read back, not %u\n", out, back->animation_count,
                model->animation_count);
    for (uint32_t a = 0; ok && a < model->animation_count; a++) {
        mn_clip *raw = NULL, *view = NULL;
        ok = mn_clip_from_gltf(model, a, NULL, &raw, &err) == MN_OK &&
             mn_clip_from_gltf(back, a, NULL, &view, &err) == MN_OK && add_measure(m, sk, raw, view, shell, &err);
        if (ok) {
            *written += back->animations[a].stored_bytes;
        } else {
            cli_report_error(out, &err);
        }
        mn_clip_free(view);
        mn_clip_free(raw);
    }
    mn_model_free(back);
    return ok;
}

int cli_compress(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    bool json = false;
    mn_compress_options o;
    memset(&o, 0, sizeof o);
    const cli_option options[] = {
        {.name = "--json", .kind = CLI_FLAG, .dest = &json},
        {.name = "--max-error", .kind = CLI_FLOAT, .dest = &o.max_error, .min = 0,
         .bounds = CLI_ABOVE, .help = "a distance > 0 (model units)"},
        {.name = "--shell", .kind = CLI_FLOAT, .dest = &o.shell, .min = 0, .bounds = CLI_ABOVE,
         .help = "a distance > 0 (model units)"},
    };
    const char *missing = "give an input and an output file";
    const cli_positional positionals[] = {{"IN", &in, missing}, {"OUT", &out, missing}};
    const cli_spec spec = {.reads_model = true, .command = cli_find_command("compress"),
                           .options = options, .option_count = CLI_COUNT(options),
                           .positionals = positionals, .positional_count = CLI_COUNT(positionals)};
    int rc;
    if (!cli_parse_args(&spec, argc, argv, &rc))
        return rc;
    bool gltf = cli_has_extension(out, ".glb") || cli_has_extension(out, ".gltf");
    if (!gltf && !cli_has_extension(out, ".mnanim"))
        return cli_usage_error("compress",
                               "compress: the output must end in .mnanim, .glb or .gltf, not '%s'", out);
    mn_model *model = cli_read_model(in, CLI_READS_CONVERT, true);
    if (!model)
        return CLI_EXIT_FAILED;
    mn_error err;
    mn_skeleton *sk = NULL;
    uint8_t *bytes = NULL;
    size_t size = 0, raw = 0, written = 0;
    measured m;
    bool ok = mn_skeleton_from_nodes(model, NULL, &sk, &err) == MN_OK;
    if (!ok)
        cli_report_error(in, &err);
    float shell = o.shell > 0.0f ? o.shell : MN_SHELL_DISTANCE_DEFAULT;
    if (gltf)
        ok = ok && compress_gltf_file(model, sk, &o, in, out, shell, &written, &m);
    else
        ok = ok && compress_all(model, sk, &o, in, &bytes, &size);
    if (ok && !gltf) {
        mn_output *set = NULL;
        ok = mn_output_begin(NULL, &set, &err) == MN_OK &&
             mn_output_write_file(set, out, bytes, size, &err) == MN_OK;
        ok = set && mn_output_commit(set, &err) == MN_OK && ok;
        if (!ok)
            cli_report_error(out, &err);
    }
    ok = ok && (gltf || measure_file(out, model, sk, shell, &written, &m));
    for (uint32_t a = 0; a < model->animation_count; a++)
        raw += mn_animation_raw_bytes(&model->animations[a]);
    if (ok && json) {
        printf("{\"clips\": %u, \"raw_bytes\": %zu, \"compressed_bytes\": %zu, \"ratio\": ", m.clips,
               raw, written);
        cli_put_json_number(stdout, written ? (double)raw / (double)written : 0.0);
        printf(", \"max_error_m\": ");
        cli_put_json_number(stdout, m.max);
        printf(", \"p99_error_m\": ");
        cli_put_json_number(stdout, m.p99);
        printf(", \"shell_m\": ");
        cli_put_json_number(stdout, shell);
        printf("}\n");
    } else if (ok) {
        printf("wrote %s (%u %s, %zu -> %zu bytes, %.2f:1, max error %.3g m at a %.3g m shell)\n",
               out, m.clips, cli_noun(m.clips, "clip", "clips"), raw, written,
               written ? (double)raw / (double)written : 0.0, (double)m.max, (double)shell);
    }
    free(bytes);
    mn_skeleton_free(sk);
    mn_model_free(model);
    return ok ? CLI_EXIT_OK : CLI_EXIT_FAILED;
}
