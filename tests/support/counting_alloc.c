/* The counting allocator of counting_alloc.h.  Each block carries a small
   header with its size so a wrong size passed to free fails the test. */
#include "counting_alloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include <jansson.h>

/* max_align_t keeps the user pointer aligned as malloc's own would be. */
typedef union block_header {
    size_t size;
    max_align_t align;
} block_header;

/* One block of `size` bytes behind its header, counted into state. */
static void *counted_block(mn_counting_alloc *state, size_t size)
{
    if (size > SIZE_MAX - sizeof(block_header))
        return NULL;
    block_header *h = malloc(sizeof *h + size);
    if (!h)
        return NULL;
    h->size = size;
    state->allocs++;
    state->live_bytes += size;
    if (state->live_bytes > state->peak_bytes)
        state->peak_bytes = state->live_bytes;
    return h + 1;
}

static void *counting_alloc_fn(void *user, size_t size)
{
    mn_counting_alloc *state = user;
    if (state->fail_after >= 0 && state->allocs >= (size_t)state->fail_after) {
        state->failures++;
        return NULL;
    }
    return counted_block(state, size);
}

static void counting_free_fn(void *user, void *ptr, size_t size)
{
    mn_counting_alloc *state = user;
    if (!ptr)
        return;
    block_header *h = (block_header *)ptr - 1;
    if (h->size != size)
        fail_msg("counting allocator: free of %zu bytes for a block of %zu bytes", size, h->size);
    if (size > state->live_bytes)
        fail_msg("counting allocator: freeing %zu bytes with only %zu live", size, state->live_bytes);
    state->frees++;
    state->live_bytes -= size;
    free(h);
}

mn_counting_alloc mn_counting_alloc_make(void)
{
    mn_counting_alloc state = {0, 0, 0, 0, 0, -1};
    return state;
}

mn_allocator mn_counting_allocator(mn_counting_alloc *state)
{
    mn_allocator a = {counting_alloc_fn, counting_free_fn, state};
    return a;
}

/* ---- jansson ---------------------------------------------------------------------------- */

static mn_counting_alloc *json_counter;

/* jansson's allocations never fail on purpose: fail_after walks the library's own. */
static void *json_counted_alloc(size_t size)
{
    return counted_block(json_counter, size);
}

/* jansson's free is not told the size: the header gives it. */
static void json_counted_free(void *ptr)
{
    if (ptr)
        counting_free_fn(json_counter, ptr, ((block_header *)ptr - 1)->size);
}

void mn_counting_json_begin(mn_counting_alloc *state)
{
    json_counter = state;
    json_set_alloc_funcs(json_counted_alloc, json_counted_free);
}

void mn_counting_json_end(void)
{
    json_set_alloc_funcs(malloc, free);
    json_counter = NULL;
}
