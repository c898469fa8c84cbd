/*
 * Tolerance asserts for cmocka tests.  On failure they print the values (and
 * the index, for arrays), then fail the test at the caller's file and line.
 * Include after <cmocka.h>.  NaN never compares near anything.
 */
#ifndef MN_TEST_ASSERT_NEAR_H
#define MN_TEST_ASSERT_NEAR_H

#include <math.h>
#include <stddef.h>

static inline void mn_assert_float_near_(double a, double b, double tol, const char *expr_a,
                                         const char *expr_b, const char *file, int line)
{
    if (!(fabs(a - b) <= tol)) {
        print_error("ERROR: %s = %.9g is not within %.3g of %s = %.9g (difference %.3g)\n", expr_a,
                    a, tol, expr_b, b, fabs(a - b));
        _fail(file, line); /* reports the caller's line, not this header's */
    }
}

static inline void mn_assert_vec_near_(const float *a, const float *b, size_t n, double tol,
                                       const char *expr_a, const char *expr_b, const char *file,
                                       int line)
{
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (!(d <= tol)) {
            print_error("ERROR: %s[%zu] = %.9g is not within %.3g of %s[%zu] = %.9g (difference %.3g)\n",
                        expr_a, i, (double)a[i], tol, expr_b, i, (double)b[i], d);
            _fail(file, line);
        }
    }
}

/* |a - b| <= tol for two numbers. */
#define assert_float_near(a, b, tol) \
    mn_assert_float_near_((double)(a), (double)(b), (double)(tol), #a, #b, __FILE__, __LINE__)

/* |a[i] - b[i]| <= tol for every i < n, over two float arrays. */
#define assert_vec_near(a, b, n, tol) \
    mn_assert_vec_near_((a), (b), (n), (double)(tol), #a, #b, __FILE__, __LINE__)

#endif /* MN_TEST_ASSERT_NEAR_H */
