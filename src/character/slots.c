/*
 * The slot allocator (docs/formats.md, "Slots"): a free list of blocks in ascending
 * offset order, first-fit allocation, coalescing free.
 */
#include <marionette/character/slots.h>

#include "core/core.h"

#include <string.h>

struct mn_slot_allocator {
    mn_allocator allocator;
    uint32_t capacity;
    uint32_t count;      /* free blocks in use */
    uint32_t room;       /* free blocks the array holds */
    mn_slot_range *free_list;
};

mn_status mn_slot_allocator_create(uint32_t capacity, const mn_allocator *allocator,
                                   mn_slot_allocator **out, mn_error *err)
{
    if (!out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "slot allocator: out is NULL");
    *out = NULL;
    mn_allocator a = allocator ? *allocator : (mn_allocator){0};
    mn_slot_allocator *s = mni_alloc(&a, sizeof *s);
    if (!s)
        return mni_oom(err, "slot allocator");
    memset(s, 0, sizeof *s);
    s->allocator = a;
    s->capacity = capacity;
    s->room = 4;
    s->free_list = mni_alloc(&a, s->room * sizeof *s->free_list);
    if (!s->free_list) {
        mni_free(&a, s, sizeof *s);
        return mni_oom(err, "slot allocator");
    }
    if (capacity > 0)
        s->free_list[s->count++] = (mn_slot_range){0, capacity};
    *out = s;
    return MN_OK;
}

void mn_slot_allocator_free(mn_slot_allocator *slots)
{
    if (!slots)
        return;
    mn_allocator a = slots->allocator;
    mni_free(&a, slots->free_list, slots->room * sizeof *slots->free_list);
    mni_free(&a, slots, sizeof *slots);
}

uint32_t mn_slot_capacity(const mn_slot_allocator *slots) { return slots ? slots->capacity : 0; }

uint32_t mn_slot_available(const mn_slot_allocator *slots)
{
    uint64_t total = 0;
    for (uint32_t i = 0; slots && i < slots->count; i++)
        total += slots->free_list[i].count;
    return (uint32_t)total;
}

mn_status mn_slot_allocate(mn_slot_allocator *slots, uint32_t count, mn_slot_range *out,
                           mn_error *err)
{
    if (out)
        *out = (mn_slot_range){0, 0};
    if (!slots || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "slot allocate: NULL argument");
    if (count == 0)
        return mni_fail(err, MN_INVALID_ARGUMENT, "slot allocate: count must be a positive integer");
    uint32_t largest = 0;
    for (uint32_t i = 0; i < slots->count; i++) {
        mn_slot_range *b = &slots->free_list[i];
        if (b->count >= count) {
            *out = (mn_slot_range){b->offset, count};
            b->offset += count;
            b->count -= count;
            if (b->count == 0) {
                memmove(b, b + 1, (size_t)(slots->count - i - 1) * sizeof *b);
                slots->count--;
            }
            return MN_OK;
        }
        if (b->count > largest)
            largest = b->count;
    }
    return mni_fail(err, MN_OUT_OF_MEMORY,
                    "slot allocate: no free block holds %u slots (%u free, largest block %u)",
                    count, mn_slot_available(slots), largest);
}

/* Make room for one more block; false when the allocator refuses. */
static bool grow(mn_slot_allocator *s)
{
    if (s->count < s->room)
        return true;
    uint32_t room = s->room * 2;
    mn_slot_range *list = mni_alloc(&s->allocator, room * sizeof *list);
    if (!list)
        return false;
    memcpy(list, s->free_list, s->count * sizeof *list);
    mni_free(&s->allocator, s->free_list, s->room * sizeof *s->free_list);
    s->free_list = list;
    s->room = room;
    return true;
}

mn_status mn_slot_free(mn_slot_allocator *slots, mn_slot_range range, mn_error *err)
{
    if (!slots)
        return mni_fail(err, MN_INVALID_ARGUMENT, "slot free: allocator is NULL");
    uint64_t end = (uint64_t)range.offset + range.count;
    if (range.count == 0 || end > slots->capacity)
        return mni_fail(err, MN_INDEX_RANGE,
                        "slot free: range {%u, %u} is not inside the capacity %u", range.offset,
                        range.count, slots->capacity);
    /* i = the first free block that starts at or after the range. */
    uint32_t i = 0;
    while (i < slots->count && slots->free_list[i].offset < range.offset)
        i++;
    mn_slot_range *before = i > 0 ? &slots->free_list[i - 1] : NULL;
    mn_slot_range *after = i < slots->count ? &slots->free_list[i] : NULL;
    bool overlaps_before = before && (uint64_t)before->offset + before->count > range.offset;
    bool overlaps_after = after && after->offset < end;
    if (overlaps_before || overlaps_after) {
        const mn_slot_range *b = overlaps_before ? before : after;
        return mni_fail(err, MN_INVALID_VALUE,
                        "slot free: range {%u, %u} overlaps the free block {%u, %u}", range.offset,
                        range.count, b->offset, b->count);
    }
    bool join_before = before && before->offset + before->count == range.offset;
    bool join_after = after && after->offset == end;
    if (join_before && join_after) {
        before->count += range.count + after->count;
        memmove(after, after + 1, (size_t)(slots->count - i - 1) * sizeof *after);
        slots->count--;
    } else if (join_before) {
        before->count += range.count;
    } else if (join_after) {
        after->offset = range.offset;
        after->count += range.count;
    } else {
        if (!grow(slots))
            return mni_oom(err, "slot free");
        mn_slot_range *at = &slots->free_list[i];
        memmove(at + 1, at, (size_t)(slots->count - i) * sizeof *at);
        *at = range;
        slots->count++;
    }
    return MN_OK;
}

uint32_t mn_slot_block_count(const mn_slot_allocator *slots) { return slots ? slots->count : 0; }

uint32_t mn_slot_blocks(const mn_slot_allocator *slots, mn_slot_range *out, uint32_t capacity_out)
{
    if (!slots)
        return 0;
    uint32_t n = slots->count < capacity_out ? slots->count : capacity_out;
    if (out && n)
        memcpy(out, slots->free_list, n * sizeof *out);
    return slots->count;
}
