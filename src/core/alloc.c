/* Allocation through the caller's hooks; a zeroed mn_allocator means malloc/free. */
#include "core/core.h"

#include <stdlib.h>

void *mni_alloc(const mn_allocator *allocator, size_t size)
{
    if (size == 0)
        return NULL;
    if (allocator && allocator->alloc)
        return allocator->alloc(allocator->user, size);
    return malloc(size);
}

void mni_free(const mn_allocator *allocator, void *ptr, size_t size)
{
    if (!ptr)
        return;
    if (allocator && allocator->alloc) {
        if (allocator->free)
            allocator->free(allocator->user, ptr, size);
        return;
    }
    free(ptr);
}
