/*
 * A character package played on the command line (cmd_character_play.c):
 * loaded with mn_character_load, driven by mn_character_runtime, posed at a
 * clip time with ARKit weights and a look target.  `marionette sample` and
 * `marionette render` on a character.json share it.
 */
#ifndef MN_TOOLS_CHARACTER_PLAY_H
#define MN_TOOLS_CHARACTER_PLAY_H

#include "cli.h"

#include <marionette/character/runtime.h>

typedef struct cli_character {
    const char *file;
    mn_character *character;
    mn_character_runtime *runtime;
    const mn_soma_clip *clip;             /* NULL: the rest pose */
    float arkit[MN_ARKIT_CHANNEL_COUNT];
    bool has_arkit;
    bool look;
    float look_at[3];
} cli_character;

/* What the command line asked for. */
typedef struct cli_character_args {
    const char *file, *clip, *arkit, *look;
    bool has_time;                        /* --time alone takes the first clip */
    uint32_t threads;                     /* the runtime's (0: one) */
    bool quiet;                           /* no warnings on stderr */
} cli_character_args;

/*
 * Load the package, check --clip (exit 2 with its clips listed when it has no
 * such clip), --arkit (CHANNEL=W,...) and --look (X,Y,Z), and make the
 * runtime.  CLI_EXIT_OK, or the exit status after saying why.  `command` names
 * the command in messages ("sample", "render").
 */
int cli_character_open(const cli_character_args *a, const char *command, cli_character *out);

/* Pose at clip time t (the mixer's rules: a loop wraps, a one-shot clamps) with the face and look. */
int cli_character_pose(cli_character *c, float t);

/* The clip's duration (0 for the rest pose). */
float cli_character_duration(const cli_character *c);

void cli_character_close(cli_character *c);

#endif /* MN_TOOLS_CHARACTER_PLAY_H */
