/*
 * What every FILE kind of `marionette render` takes alike (a glTF, OBJ or
 * voxel rig in cmd_render.c, a head in cmd_render_head.c, a character
 * package in cmd_render_character.c): where the image goes, its size, the
 * camera's angles, supersampling and threads, as one table of options they
 * each add to their own (cli_spec.shared); and writing the image (PNG or JPEG).  Defined in
 * cmd_render.c.
 */
#ifndef MN_TOOLS_SHOT_H
#define MN_TOOLS_SHOT_H

#include "cli.h"

#include <marionette/render.h>

typedef struct cli_shot {
    const char *out;              /* -o, --out OUT.png or OUT.jpg (.jpeg); required ("where to?");
                                     another extension is refused while parsing */
    cli_size size;                /* --size WxH, 1 to 8192 a side */
    float yaw, pitch;             /* --yaw DEG, --pitch DEG (-90 to 90), as given */
    uint32_t supersample;         /* --supersample N, 1 to 4 */
    uint32_t threads;             /* --threads N, 1 to 64 (0: one per CPU) */
    int view;                     /* --view front|side|top|orbit: an mn_render_view_kind */
    bool has_size, has_yaw, has_pitch;
    bool quiet;                   /* --quiet, -q: a head or a package prints nothing but errors,
                                     and takes it so scripts can pass it with any FILE */
} cli_shot;

/* The most options cli_shot_options writes. */
#define CLI_SHOT_OPTIONS 8

/* The options of shot into out (--view only when with_view); returns how many. */
size_t cli_shot_options(cli_shot *shot, bool with_view, cli_option out[CLI_SHOT_OPTIONS]);

/* The orbit (or orthographic view) shot asks for: its yaw and pitch in radians, or the
   renderer's defaults where they were not given. */
mn_render_view cli_shot_view(const cli_shot *shot);

/* img as the image at path, a PNG or a JPEG by its extension (-o takes no other), whole or
   not at all: CLI_EXIT_OK, or CLI_EXIT_FAILED after saying why on stderr. */
int cli_write_image(const mn_rgba_image *img, const char *path);

/* True when -o names a JPEG (.jpg, .jpeg): no alpha, so no transparent background. */
bool cli_shot_is_jpeg(const cli_shot *shot);

#endif /* MN_TOOLS_SHOT_H */
