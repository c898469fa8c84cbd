/*
 * Test support: golden images.  A render is compared with a PNG stored in
 * tests/data/golden/: a pixel differs when a channel is more than
 * MN_GOLDEN_CHANNEL_TOLERANCE away, and a render matches when at most
 * MN_GOLDEN_MAX_DIFFERING of its pixels differ.  So a last-bit change in the
 * maths passes while a wrong pose does not.
 *
 * MN_UPDATE_GOLDEN=1 rewrites the stored images instead (then look at them).
 * A failing render is written to $MN_BUILD_DIR/golden_<name>.png to look at.
 * Include after <cmocka.h>.
 */
#ifndef MN_TEST_GOLDEN_H
#define MN_TEST_GOLDEN_H

#include <marionette/render.h>

#include <stdbool.h>
#include <stddef.h>

#define MN_GOLDEN_CHANNEL_TOLERANCE 8
#define MN_GOLDEN_MAX_DIFFERING 0.005   /* share of the pixels */

typedef struct mn_golden_diff {
    size_t differing, total;
} mn_golden_diff;

/* Pixels of a that differ from b (all of them when the sizes differ). */
mn_golden_diff mn_golden_compare(const mn_rgba_image *a, const mn_rgba_image *b);

/* Few enough differ. */
bool mn_golden_matches(mn_golden_diff d);

/* Compare img with (or, with MN_UPDATE_GOLDEN set, store it as) tests/data/golden/<name>.png;
   a mismatch fails the cmocka test. */
void mn_golden_check(const char *name, const mn_rgba_image *img);

/* The PNG a test just made at `made` matches the committed picture at `committed` (a docs/
   picture the README shows) within the golden tolerances; a mismatch fails the cmocka test,
   saying how many pixels differ and which file to copy over the stale one. */
void mn_golden_check_file(const char *made, const char *committed);

#endif /* MN_TEST_GOLDEN_H */
