/*
 * Test support: run a program the build made (found through MN_BUILD_DIR,
 * which CTest sets) under popen and capture one of its output streams.
 * Used by the command-line tests.  Include after <cmocka.h>.
 */
#ifndef MN_TEST_RUN_TOOL_H
#define MN_TEST_RUN_TOOL_H

#include <stddef.h>

typedef struct run_result {
    int status;        /* exit status, -1 when it did not exit normally */
    char *out;         /* what the captured stream received, NUL-terminated */
    size_t size;
} run_result;

/* The build folder (MN_BUILD_DIR); fails the test when it is not set. */
const char *mn_test_build_dir(void);

/*
 * Run `<build>/<program> <args>` through the shell.  capture_stderr selects
 * which stream comes back; the other goes to /dev/null.  Arguments are
 * written by the tests themselves (asset paths, temp files), never by users.
 * Free the result with run_free.
 */
run_result mn_run_tool(const char *program, const char *args, int capture_stderr);

/* Free what a run captured. */
void run_free(run_result *r);

#endif /* MN_TEST_RUN_TOOL_H */
