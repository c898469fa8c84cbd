/*
 * Names sorted once (core.h, "names sorted for lookups"): the duplicate
 * checks and name lookups of the readers, n log n whatever the file holds.
 */
#include "core/core.h"

#include <stdlib.h>
#include <string.h>

static int compare_refs(const void *a, const void *b)
{
    const mni_name_ref *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

bool mni_names_sort(mni_names_sorted *s, mn_arena *arena, const char *const *names, uint32_t count)
{
    uint32_t named = 0;
    for (uint32_t i = 0; i < count; i++)
        named += names[i] != NULL;
    s->refs = mni_arena_calloc(arena, named ? named : 1, sizeof *s->refs, _Alignof(mni_name_ref));
    s->count = 0;
    if (!s->refs)
        return false;
    for (uint32_t i = 0; i < count; i++)
        if (names[i])
            s->refs[s->count++] = (mni_name_ref){names[i], i};
    if (s->count > 1)
        qsort(s->refs, s->count, sizeof *s->refs, compare_refs);
    return true;
}

uint32_t mni_names_find(const mni_names_sorted *s, const char *name)
{
    if (!name)
        return MN_NONE;
    /* The first ref not below `name`: equal names sit in index order, so that is the lowest. */
    uint32_t lo = 0, hi = s->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (strcmp(s->refs[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->count && strcmp(s->refs[lo].name, name) == 0 ? s->refs[lo].index : MN_NONE;
}

bool mni_names_first_duplicate(const mni_names_sorted *s, uint32_t *dup, uint32_t *first)
{
    bool found = false;
    uint32_t run = 0; /* where the run of names equal to refs[i] starts */
    for (uint32_t i = 1; i < s->count; i++) {
        if (strcmp(s->refs[i - 1].name, s->refs[i].name) != 0) {
            run = i;
            continue;
        }
        /* The run's second entry is the first repeat of its name; later ones are later still. */
        if (i == run + 1 && (!found || s->refs[i].index < *dup)) {
            *dup = s->refs[i].index;
            *first = s->refs[run].index;
            found = true;
        }
    }
    return found;
}
