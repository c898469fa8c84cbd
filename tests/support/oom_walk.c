/* Test support: the out-of-memory walk of a model maker (see oom_walk.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "oom_walk.h"

#include "counting_alloc.h"

long mn_test_model_oom_walk(mn_test_model_make make, void *ctx)
{
    long failures = 0;
    for (long n = 0;; n++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = n;
        mn_allocator hooks = mn_counting_allocator(&counter);
        mn_model *m = NULL;
        mn_error err;
        mn_status st = make(&hooks, ctx, &m, &err);
        if (st == MN_OK) {
            assert_int_equal(counter.failures, 0);
            mn_model_free(m);
            assert_int_equal(counter.live_bytes, 0);
            break;
        }
        assert_int_equal(st, MN_OUT_OF_MEMORY);
        assert_null(m);
        assert_int_equal(counter.live_bytes, 0);
        failures++;
    }
    assert_true(failures > 0);
    return failures;
}
