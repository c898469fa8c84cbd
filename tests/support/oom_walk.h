/*
 * Test support: the out-of-memory walk for a call that makes an mn_model.
 * The call runs again and again through counting hooks that refuse the
 * first, second, third ... allocation, until it gets through.  Every refusal
 * must come back as MN_OUT_OF_MEMORY with no model and nothing left
 * allocated; the run that gets through must have been refused nothing and
 * free everything through mn_model_free.  Include after <cmocka.h>.
 */
#ifndef MN_TEST_OOM_WALK_H
#define MN_TEST_OOM_WALK_H

#include <marionette/model.h>

/* Make a model through `hooks` into *out (NULL when it fails), as the library call under test does. */
typedef mn_status (*mn_test_model_make)(const mn_allocator *hooks, void *ctx, mn_model **out,
                                        mn_error *err);

/* Walk every allocation of make(ctx) as above; returns how many runs were refused (asserted > 0). */
long mn_test_model_oom_walk(mn_test_model_make make, void *ctx);

#endif /* MN_TEST_OOM_WALK_H */
