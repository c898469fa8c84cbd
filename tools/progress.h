/*
 * A progress bar on stderr for the commands' longer work (multi-frame
 * renders, the demo, benchmarks): "LABEL [#####.....] 3/10", redrawn in
 * place.  It stays off when stderr is not a terminal (a log or a pipe gets
 * no carriage returns) and when the user asked for quiet.
 */
#ifndef MN_TOOLS_PROGRESS_H
#define MN_TOOLS_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct cli_progress {
    bool on;
    uint32_t total;
    const char *label;
} cli_progress;

/* A bar for `total` steps, on only when total > 1, quiet is false and stderr is a terminal. */
cli_progress cli_progress_start(const char *label, uint32_t total, bool quiet);

/* Draw the bar at `done` of total steps; the last step ends its line. */
void cli_progress_show(const cli_progress *p, uint32_t done);

#endif /* MN_TOOLS_PROGRESS_H */
