/*
 * Test support: the sample assets (glTF models, OBJ files and invalid files, kept outside the
 * repository) and what a test case does when they are not there.
 *
 * The folder is $MN_ASSETS when set, else ../shared/assets; a relative path is taken from the
 * repository root, where CTest runs every test.  tests/support/assets.sh holds the same rule
 * for the shell tests.  The command-line tests put asset paths on a shell command line as
 * they are, so the folder's path must not hold spaces or quotes.
 *
 * A test case that reads the assets starts with mn_test_need_assets(), a test that is wholly
 * about them calls mn_test_binary_needs_assets() first in main().  When the folder is missing
 * the case (cmocka's skip) or the whole test (CTest's SKIP_RETURN_CODE) is skipped and
 * recorded as a line "<test>/<case>" or "<test>" in $MN_BUILD_DIR/skipped-assets/<test>,
 * which scripts/check-summary lists at the end of `make check`.  With MN_REQUIRE_ASSETS=1
 * (CI) it fails instead, naming the folder.
 * Include after <cmocka.h>.
 */
#ifndef MN_TEST_ASSETS_H
#define MN_TEST_ASSETS_H

#include <stdbool.h>

/* The assets folder: $MN_ASSETS when set and not empty, else "../shared/assets". */
const char *mn_test_assets_dir(void);

/* The assets folder is there. */
bool mn_test_assets_present(void);

/* "<assets folder>/<rel>", in storage that lives as long as the process (each distinct rel
   is joined once, into a fixed table; the test fails when the table is full). */
const char *mn_test_asset(const char *rel);

/* The glTF file at path (a sample asset: mn_test_asset(rel)) read with the default options;
   the test fails, naming the file and the reader's message and JSON path, when it cannot be
   read.  Free it with mn_model_free. */
struct mn_model *mn_test_load(const char *path);

/* First in a test case that reads the assets: returns when they are there; otherwise records
   the case and skips it, or fails it under MN_REQUIRE_ASSETS=1. */
#define mn_test_need_assets() mn_test_need_assets_for(__FILE__, __func__)

/* mn_test_need_assets() for the case test_case of the test whose source file is file. */
void mn_test_need_assets_for(const char *file, const char *test_case);

/* The exit status of a test skipped whole: CTest's SKIP_RETURN_CODE for every test whose
   main() calls mn_test_binary_needs_assets() (tests/CMakeLists.txt finds them). */
#define MN_TEST_SKIPPED 77

/* First in main() of a test all of whose cases read the assets: returns when they are there;
   otherwise records the test ("<test>") and exits MN_TEST_SKIPPED, or, under
   MN_REQUIRE_ASSETS=1, says why on stderr and exits 1. */
#define mn_test_binary_needs_assets() mn_test_binary_needs_assets_for(__FILE__)

/* mn_test_binary_needs_assets() for the test whose source file is file. */
void mn_test_binary_needs_assets_for(const char *file);

#endif /* MN_TEST_ASSETS_H */
