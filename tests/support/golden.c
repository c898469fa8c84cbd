/* Golden image comparison for the tests (golden.h). */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "golden.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

mn_golden_diff mn_golden_compare(const mn_rgba_image *a, const mn_rgba_image *b)
{
    mn_golden_diff d = {0, (size_t)a->width * a->height};
    if (a->width != b->width || a->height != b->height) {
        d.differing = d.total;
        return d;
    }
    for (size_t i = 0; i < d.total; i++) {
        const uint8_t *p = a->pixels + 4 * i, *q = b->pixels + 4 * i;
        for (int c = 0; c < 4; c++)
            if (abs((int)p[c] - (int)q[c]) > MN_GOLDEN_CHANNEL_TOLERANCE) {
                d.differing++;
                break;
            }
    }
    return d;
}

bool mn_golden_matches(mn_golden_diff d)
{
    return (double)d.differing <= MN_GOLDEN_MAX_DIFFERING * (double)d.total;
}

void mn_golden_check(const char *name, const mn_rgba_image *img)
{
    char path[256];
    snprintf(path, sizeof path, "tests/data/golden/%s.png", name);
    mn_error err;
    const char *update = getenv("MN_UPDATE_GOLDEN");
    if (update && *update && strcmp(update, "0") != 0) {
        assert_int_equal(mn_rgba_image_write_png(img, path, &err), MN_OK);
        return;
    }
    mn_rgba_image want;
    if (mn_rgba_image_read_file(path, NULL, &want, &err) != MN_OK)
        fail_msg("%s: %s", path, err.message);
    mn_golden_diff d = mn_golden_compare(img, &want);
    mn_rgba_image_free(&want);
    if (!mn_golden_matches(d)) {
        const char *build = getenv("MN_BUILD_DIR");
        char out[512];
        snprintf(out, sizeof out, "%s/golden_%s.png", build ? build : "/tmp", name);
        mn_rgba_image_write_png(img, out, &err);
        fail_msg("%s: %zu of %zu pixels differ (render written to %s)", name, d.differing,
                 d.total, out);
    }
}

void mn_golden_check_file(const char *made, const char *committed)
{
    mn_rgba_image now, stored;
    mn_error err;
    if (mn_rgba_image_read_file(made, NULL, &now, &err) != MN_OK)
        fail_msg("%s: %s", made, err.message);
    if (mn_rgba_image_read_file(committed, NULL, &stored, &err) != MN_OK)
        fail_msg("%s: %s", committed, err.message);
    mn_golden_diff d = mn_golden_compare(&now, &stored);
    mn_rgba_image_free(&now);
    mn_rgba_image_free(&stored);
    if (!mn_golden_matches(d))
        fail_msg("%s is stale: %zu of %zu pixels differ (copy %s over it)", committed, d.differing,
                 d.total, made);
}
