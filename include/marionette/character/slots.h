/*
 * marionette/character/slots.h — the slot allocator: deterministic first-fit ranges
 * over [0, capacity).
 *
 * A renderer that keeps every character's splats in one storage buffer hands
 * each branch (body, head, mouth interior) a contiguous run of slots.  The
 * allocator is first-fit over a free list kept in ascending offset order, so
 * the same sequence of calls always gives the same offsets.  Failure is loud:
 * an allocation that does not fit is an error, never a silent empty range.
 *
 *     mn_slot_allocator *slots;
 *     mn_slot_allocator_create(262144, NULL, &slots, &err);
 *     mn_slot_range head;
 *     mn_slot_allocate(slots, 65536, &head, &err);   // {0, 65536}
 *     mn_slot_free(slots, head, &err);
 *     mn_slot_allocator_free(slots);
 */
#ifndef MARIONETTE_CHARACTER_SLOTS_H
#define MARIONETTE_CHARACTER_SLOTS_H

#include "../core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A run of slots [offset, offset + count). */
typedef struct mn_slot_range {
    uint32_t offset;
    uint32_t count;
} mn_slot_range;

typedef struct mn_slot_allocator mn_slot_allocator;

/*
 * An allocator over [0, capacity), all free.  Capacity 0 is allowed (every
 * allocation then fails).  allocator NULL: malloc/free.
 * Errors: MN_INVALID_ARGUMENT (out NULL), MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_slot_allocator_create(uint32_t capacity, const mn_allocator *allocator,
                                          mn_slot_allocator **out, mn_error *err);

/* Free the allocator.  NULL is allowed.  Ranges handed out become meaningless. */
MN_API void mn_slot_allocator_free(mn_slot_allocator *slots);

/* The capacity given at creation. */
MN_API uint32_t mn_slot_capacity(const mn_slot_allocator *slots);

/* Slots owned by no range (the sum of the free blocks: an upper bound on the largest allocation). */
MN_API uint32_t mn_slot_available(const mn_slot_allocator *slots);

/*
 * Reserve `count` contiguous slots from the lowest free block that holds
 * them (first fit).  *out = {offset, count}.
 * Errors: MN_INVALID_ARGUMENT (count 0, NULL arguments), MN_OUT_OF_MEMORY
 * when no free block holds count slots (the message says how many are free
 * and the largest block).  On error *out is {0, 0} and nothing changes.
 */
MN_API mn_status mn_slot_allocate(mn_slot_allocator *slots, uint32_t count, mn_slot_range *out,
                                  mn_error *err);

/*
 * Give a range back, coalescing with the free blocks either side.  Any range
 * inside the capacity that overlaps no free block is accepted (a sub-range of
 * an allocation included).
 * Errors: MN_INDEX_RANGE (the range is empty or runs past the capacity),
 * MN_INVALID_VALUE (it overlaps a free block: two owners held the same
 * slots), MN_OUT_OF_MEMORY (the free list could not grow).  On error nothing changes.
 */
MN_API mn_status mn_slot_free(mn_slot_allocator *slots, mn_slot_range range, mn_error *err);

/* Number of free blocks. */
MN_API uint32_t mn_slot_block_count(const mn_slot_allocator *slots);

/*
 * Copy the free list, ascending by offset, into out[0..min(capacity_out,
 * block count)); returns the block count (a full allocator has none).
 */
MN_API uint32_t mn_slot_blocks(const mn_slot_allocator *slots, mn_slot_range *out,
                               uint32_t capacity_out);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_CHARACTER_SLOTS_H */
