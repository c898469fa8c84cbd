/* The commands' progress bar (progress.h). */
#define _POSIX_C_SOURCE 200809L

#include "progress.h"

#include <stdio.h>
#include <unistd.h>

cli_progress cli_progress_start(const char *label, uint32_t total, bool quiet)
{
    cli_progress p = {total > 1 && !quiet && isatty(STDERR_FILENO), total, label};
    return p;
}

void cli_progress_show(const cli_progress *p, uint32_t done)
{
    if (!p->on)
        return;
    enum { BAR = 30 };
    uint32_t fill = p->total ? done * BAR / p->total : BAR;
    char bar[BAR + 1];
    for (uint32_t i = 0; i < BAR; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[BAR] = '\0';
    fprintf(stderr, "\r%s [%s] %u/%u", p->label, bar, done, p->total);
    if (done == p->total)
        fputc('\n', stderr);
    fflush(stderr);
}
