/* Test support: where the sample assets are, and skipping without them (see assets.h). */
#define _POSIX_C_SOURCE 200809L /* mkdir, stat */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "assets.h"

#include <marionette/gltf.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define ASSETS_DEFAULT "../shared/assets"

const char *mn_test_assets_dir(void)
{
    const char *dir = getenv("MN_ASSETS");
    return dir && *dir ? dir : ASSETS_DEFAULT;
}

bool mn_test_assets_present(void)
{
    struct stat st;
    return stat(mn_test_assets_dir(), &st) == 0 && S_ISDIR(st.st_mode);
}

const char *mn_test_asset(const char *rel)
{
    /* Static, so a path costs no allocation: the allocation-counting tests stay exact and
       nothing is left for the leak checker.  A test names a few dozen assets at most. */
    enum { SLOTS = 64, LEN = 1024 };
    static char paths[SLOTS][LEN];
    static size_t used;
    const char *dir = mn_test_assets_dir();
    size_t dir_len = strlen(dir);
    for (size_t i = 0; i < used; i++)
        if (strcmp(paths[i] + dir_len + 1, rel) == 0)
            return paths[i];
    if (used == SLOTS)
        fail_msg("mn_test_asset: more than %d asset paths; raise SLOTS", SLOTS);
    int n = snprintf(paths[used], LEN, "%s/%s", dir, rel);
    assert_true(n > 0 && n < LEN);
    return paths[used++];
}

/* The environment variable is set to something other than "" or "0". */
static bool env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

/* "test_sample" from ".../tests/test_sample.c". */
static void test_name(const char *file, char *out, size_t size)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t len = strcspn(base, ".");
    snprintf(out, size, "%.*s", (int)len, base);
}

/* One line `what` in $MN_BUILD_DIR/skipped-assets/<test>; nothing when the build folder is not
   known (a test run by hand). */
static void record_skip(const char *test, const char *what)
{
    const char *build = getenv("MN_BUILD_DIR");
    if (!build)
        return;
    char path[1024];
    snprintf(path, sizeof path, "%s/skipped-assets", build);
    mkdir(path, 0777); /* an existing folder is fine; a failure shows at fopen */
    snprintf(path, sizeof path, "%s/skipped-assets/%s", build, test);
    FILE *f = fopen(path, "a");
    if (!f)
        fail_msg("cannot record the skip of %s in %s", what, path);
    fprintf(f, "%s\n", what);
    fclose(f);
}

#define REQUIRED_MESSAGE "%s needs the sample assets (none at %s; set MN_ASSETS=DIR); " \
                         "MN_REQUIRE_ASSETS=1 makes that a failure, not a skip"

/* The skip of `what` ("<test>" or "<test>/<case>"), recorded and announced. */
static void skipping(const char *test, const char *what)
{
    record_skip(test, what);
    print_message("%s needs the sample assets (none at %s; set MN_ASSETS=DIR): skipped\n", what,
                  mn_test_assets_dir());
}

void mn_test_need_assets_for(const char *file, const char *test_case)
{
    if (mn_test_assets_present())
        return;
    char test[128], what[384];
    test_name(file, test, sizeof test);
    snprintf(what, sizeof what, "%s/%s", test, test_case);
    if (env_on("MN_REQUIRE_ASSETS"))
        fail_msg(REQUIRED_MESSAGE, what, mn_test_assets_dir());
    skipping(test, what);
    skip();
}

void mn_test_binary_needs_assets_for(const char *file)
{
    if (mn_test_assets_present())
        return;
    char test[128];
    test_name(file, test, sizeof test);
    /* Outside a running case cmocka's fail_msg has nothing to return to: say it and exit. */
    if (env_on("MN_REQUIRE_ASSETS")) {
        fprintf(stderr, REQUIRED_MESSAGE "\n", test, mn_test_assets_dir());
        exit(EXIT_FAILURE);
    }
    skipping(test, test);
    exit(MN_TEST_SKIPPED);
}

mn_model *mn_test_load(const char *path)
{
    mn_model *model = NULL;
    mn_error err;
    if (mn_gltf_read_file(path, NULL, &model, &err) != MN_OK)
        fail_msg("%s: %s (at %s)", path, err.message, err.path[0] ? err.path : "-");
    return model;
}
