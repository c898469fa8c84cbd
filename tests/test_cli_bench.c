/*
 * `marionette bench` run as a user runs it: --quick --json prints one valid
 * JSON object a line, one for each of the five cases, each with its timing
 * and the memcpy yardstick of the same run; the text form names every case;
 * the progress bar stays off when stderr is not a terminal; --help, and a
 * wrong command line exits 2.  No figure is checked: timings are the
 * machine's, never a test's.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_tool.h"

static const char *const cases[] = {"gltf_load", "clip_sample", "skinning", "voxel_pose", "render"};
#define CASE_COUNT (sizeof cases / sizeof cases[0])

static void test_quick_json_lines(void **state)
{
    (void)state;
    run_result r = mn_run_tool("marionette", "bench --quick --json", 0);
    assert_int_equal(r.status, 0);
    bool seen[CASE_COUNT] = {false};
    size_t lines = 0;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        json_error_t jerr;
        json_t *o = json_loads(line, 0, &jerr);
        if (!o || !json_is_object(o))
            fail_msg("line %zu is not a JSON object (%s): %s", lines + 1, jerr.text, line);
        assert_string_equal(json_string_value(json_object_get(o, "bench")), "marionette");
        const char *name = json_string_value(json_object_get(o, "case"));
        assert_non_null(name);
        size_t k = 0;
        while (k < CASE_COUNT && strcmp(cases[k], name) != 0)
            k++;
        if (k == CASE_COUNT || seen[k])
            fail_msg("unexpected or repeated case '%s'", name);
        seen[k] = true;
        static const char *const numbers[] = {"ms", "median_ms", "per_s", "memcpy_ms",
                                              "memcpy_gbps", "x_memcpy"};
        for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
            json_t *v = json_object_get(o, numbers[i]);
            if (!json_is_number(v) || json_number_value(v) < 0.0)
                fail_msg("case %s: %s is not a number >= 0", name, numbers[i]);
        }
        assert_true(json_integer_value(json_object_get(o, "runs")) >= 1);
        assert_true(json_integer_value(json_object_get(o, "bytes")) > 0);
        assert_true(json_integer_value(json_object_get(o, "items")) > 0);
        json_decref(o);
        lines++;
    }
    assert_int_equal(lines, CASE_COUNT);
    run_free(&r);
}

/* Text: a line per case; stderr (a pipe here) gets no progress bar. */
static void test_quick_text_and_quiet_stderr(void **state)
{
    (void)state;
    run_result r = mn_run_tool("marionette", "bench --quick", 0);
    assert_int_equal(r.status, 0);
    for (size_t k = 0; k < CASE_COUNT; k++)
        assert_non_null(strstr(r.out, cases[k]));
    assert_non_null(strstr(r.out, "memcpy"));
    run_free(&r);
    r = mn_run_tool("marionette", "bench --quick --json", 1);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.size, 0);
    run_free(&r);
}

static void test_help_and_usage(void **state)
{
    (void)state;
    run_result r = mn_run_tool("marionette", "bench --help", 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: marionette bench"));
    run_free(&r);
    static const char *const bad[] = {"bench --bogus", "bench stray", "bench --quick 3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = mn_run_tool("marionette", bad[i], 1);
        if (r.status != 2 || !strstr(r.out, "usage: marionette bench"))
            fail_msg("'%s': status %d, stderr:\n%s", bad[i], r.status, r.out);
        run_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quick_json_lines),
        cmocka_unit_test(test_quick_text_and_quiet_stderr),
        cmocka_unit_test(test_help_and_usage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
