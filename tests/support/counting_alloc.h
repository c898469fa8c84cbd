/*
 * A counting mn_allocator for tests: it proves a call allocates nothing
 * (allocs unchanged), frees everything (live_bytes back to 0), and lets a test
 * make the N+1-th allocation fail to walk every out-of-memory path.
 *
 *     mn_counting_alloc counter = {.fail_after = -1};
 *     mn_allocator hooks = mn_counting_allocator(&counter);
 *     ... call the library with &hooks ...
 *     assert_int_equal(counter.live_bytes, 0);
 *
 * Memory comes from malloc.  The hooks check that free receives the size that
 * alloc was asked for (the mn_allocator contract) and fail the test if not.
 */
#ifndef MN_TEST_COUNTING_ALLOC_H
#define MN_TEST_COUNTING_ALLOC_H

#include <marionette/core.h>

#include <stddef.h>

typedef struct mn_counting_alloc {
    size_t allocs;      /* successful allocations so far */
    size_t frees;       /* frees of non-NULL pointers so far */
    size_t failures;    /* allocations refused because of fail_after */
    size_t live_bytes;  /* bytes allocated and not yet freed */
    size_t peak_bytes;  /* highest live_bytes seen */
    long fail_after;    /* < 0: never fail; N >= 0: the first N allocations succeed, later ones return NULL */
} mn_counting_alloc;

/* Zeroed counters that never fail (fail_after = -1). */
mn_counting_alloc mn_counting_alloc_make(void);

/* Hooks that allocate with malloc and count into *state (which must outlive their use). */
mn_allocator mn_counting_allocator(mn_counting_alloc *state);

/*
 * Count jansson's allocations too (json_set_alloc_funcs), into *state, until
 * mn_counting_json_end: a reader's peak then includes its JSON DOM.  jansson's
 * free is not told the size, so each block keeps it in a header.
 */
void mn_counting_json_begin(mn_counting_alloc *state);
void mn_counting_json_end(void);

#endif /* MN_TEST_COUNTING_ALLOC_H */
