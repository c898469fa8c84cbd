/* Test support: running the built tools and capturing their output (see run_tool.h). */
#define _POSIX_C_SOURCE 200809L /* popen, pclose */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run_tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

const char *mn_test_build_dir(void)
{
    const char *dir = getenv("MN_BUILD_DIR");
    assert_non_null(dir);   /* CTest sets it; run through ctest */
    return dir;
}

run_result mn_run_tool(const char *program, const char *args, int capture_stderr)
{
    char cmd[4096];
    int n = snprintf(cmd, sizeof cmd, "'%s/%s' %s %s", mn_test_build_dir(), program, args,
                     capture_stderr ? "2>&1 >/dev/null" : "2>/dev/null");
    assert_true(n > 0 && (size_t)n < sizeof cmd);
    FILE *pipe = popen(cmd, "r");
    assert_non_null(pipe);
    run_result r = {-1, NULL, 0};
    size_t cap = 0;
    for (;;) {
        if (r.size + 65536 + 1 > cap) {
            cap = cap ? cap * 2 : 131072;
            r.out = realloc(r.out, cap);
            assert_non_null(r.out);
        }
        size_t got = fread(r.out + r.size, 1, 65536, pipe);
        r.size += got;
        if (got == 0)
            break;
    }
    r.out[r.size] = '\0';
    int ws = pclose(pipe);
    if (ws != -1 && WIFEXITED(ws))
        r.status = WEXITSTATUS(ws);
    return r;
}

void run_free(run_result *r)
{
    free(r->out);
    r->out = NULL;
}
