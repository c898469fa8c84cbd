/*
 * The arena that owns everything a loaded object holds.  Blocks grow
 * geometrically so a model of N bytes costs O(log N) hook calls; a request
 * larger than half a block gets a block of its own so big arrays waste nothing.
 */
#include "core/core.h"

#include <string.h>

#define ARENA_FIRST_BLOCK 4096u
#define ARENA_MAX_BLOCK   (1u << 20)
#define ARENA_MAX_ALIGN   64u

struct mn_arena_block {
    mn_arena_block *next;
    size_t size;   /* bytes after the header */
    size_t used;
    /* data follows, aligned to ARENA_MAX_ALIGN via the header padding below */
};

/* Header rounded up so block data starts ARENA_MAX_ALIGN-aligned relative to the block. */
#define ARENA_HEADER ((sizeof(mn_arena_block) + ARENA_MAX_ALIGN - 1) & ~(size_t)(ARENA_MAX_ALIGN - 1))

void mni_arena_init(mn_arena *arena, const mn_allocator *allocator)
{
    memset(arena, 0, sizeof *arena);
    if (allocator)
        arena->allocator = *allocator;
}

static uint8_t *block_data(mn_arena_block *b)
{
    return (uint8_t *)b + ARENA_HEADER;
}

/* Aligned offset within block b for `size` bytes, or SIZE_MAX when it does not fit. */
static size_t block_fit(mn_arena_block *b, size_t size, size_t align)
{
    uintptr_t base = (uintptr_t)block_data(b);
    uintptr_t at = (base + b->used + (align - 1)) & ~(uintptr_t)(align - 1);
    size_t off = (size_t)(at - base);
    if (off > b->size || size > b->size - off)
        return SIZE_MAX;
    return off;
}

static mn_arena_block *arena_new_block(mn_arena *arena, size_t min_size)
{
    size_t size = arena->head ? arena->head->size * 2 : ARENA_FIRST_BLOCK;
    if (size > ARENA_MAX_BLOCK)
        size = ARENA_MAX_BLOCK;
    if (size < min_size)
        size = min_size;
    size_t total;
    /* + ARENA_MAX_ALIGN: malloc only promises 16-byte alignment of the block itself */
    if (!mni_checked_add(size, ARENA_HEADER + ARENA_MAX_ALIGN, &total))
        return NULL;
    mn_arena_block *b = mni_alloc(&arena->allocator, total);
    if (!b)
        return NULL;
    b->size = size + ARENA_MAX_ALIGN;
    b->used = 0;
    arena->reserved += total;
    return b;
}

void *mni_arena_alloc(mn_arena *arena, size_t size, size_t align)
{
    if (align == 0)
        align = 1;
    if (align > ARENA_MAX_ALIGN || (align & (align - 1)) != 0)
        return NULL;
    mn_arena_block *b = arena->head;
    size_t off = b ? block_fit(b, size, align) : SIZE_MAX;
    if (off == SIZE_MAX) {
        b = arena_new_block(arena, size);
        if (!b)
            return NULL;
        /* A dedicated block for a big request goes behind the head so the
           head's free space stays usable for the small requests that follow. */
        if (arena->head && size > arena->head->size / 2) {
            b->next = arena->head->next;
            arena->head->next = b;
        } else {
            b->next = arena->head;
            arena->head = b;
        }
        off = block_fit(b, size, align);
        if (off == SIZE_MAX)
            return NULL; /* unreachable: the block was sized for it */
    }
    b->used = off + size;
    arena->used += size;
    return block_data(b) + off;
}

void *mni_arena_calloc(mn_arena *arena, size_t count, size_t size, size_t align)
{
    size_t total;
    if (!mni_checked_mul(count, size, &total))
        return NULL;
    void *p = mni_arena_alloc(arena, total, align);
    if (p && total)
        memset(p, 0, total);
    return p;
}

char *mni_arena_strndup(mn_arena *arena, const char *s, size_t len)
{
    size_t total;
    if (!mni_checked_add(len, 1, &total))
        return NULL;
    char *p = mni_arena_alloc(arena, total, 1);
    if (!p)
        return NULL;
    if (len)
        memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

void mni_arena_release(mn_arena *arena)
{
    mn_arena_block *b = arena->head;
    while (b) {
        mn_arena_block *next = b->next;
        mni_free(&arena->allocator, b, b->size + ARENA_HEADER);
        b = next;
    }
    arena->head = NULL;
    arena->used = 0;
    arena->reserved = 0;
}
