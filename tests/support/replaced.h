/*
 * Test support: a variant of a JSON (or any text) template with one piece
 * swapped, so each refusal test states only what it breaks.  Include after
 * <cmocka.h>.
 */
#ifndef MN_TEST_REPLACED_H
#define MN_TEST_REPLACED_H

/* A malloc'd copy of src with the first `from` replaced by `to` (free it); the test
   fails when src does not hold `from`. */
char *mn_test_replaced(const char *src, const char *from, const char *to);

#endif /* MN_TEST_REPLACED_H */
