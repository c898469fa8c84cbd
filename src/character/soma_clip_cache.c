/*
 * The shared clip cache: a shared clip file is read once and its clips are
 * handed to every character that names it, counted by reference, until the
 * last release (or the cache's own free, which is releaseSharedClips).
 */
#include <marionette/character/soma.h>

#include "core/core.h"

#include <string.h>

typedef struct cache_entry {
    char *key;
    size_t key_size;
    mn_soma_clips *clips;
    uint32_t refs;
    uint32_t joint_count;
    char **names;          /* the skeleton's joint names the clips were read for */
    size_t names_size;
    struct cache_entry *next;
} cache_entry;

struct mn_soma_clip_cache {
    mn_allocator allocator;
    cache_entry *head;
    uint32_t count;
};

mn_status mn_soma_clip_cache_create(const mn_allocator *allocator, mn_soma_clip_cache **out,
                                    mn_error *err)
{
    if (!out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "clip cache: out is NULL");
    mn_allocator a = allocator ? *allocator : (mn_allocator){0};
    mn_soma_clip_cache *c = mni_alloc(&a, sizeof *c);
    if (!c)
        return mni_oom(err, "clip cache");
    *c = (mn_soma_clip_cache){.allocator = a};
    *out = c;
    return MN_OK;
}

static void entry_free(mn_soma_clip_cache *c, cache_entry *e)
{
    mn_soma_clips_free(e->clips);
    for (uint32_t i = 0; e->names && i < e->joint_count; i++)
        if (e->names[i])
            mni_free(&c->allocator, e->names[i], strlen(e->names[i]) + 1);
    mni_free(&c->allocator, e->names, e->names_size);
    mni_free(&c->allocator, e->key, e->key_size);
    mni_free(&c->allocator, e, sizeof *e);
}

static char *dup_string(const mn_allocator *a, const char *s, size_t *size)
{
    size_t n = strlen(s) + 1;
    char *d = mni_alloc(a, n);
    if (d)
        memcpy(d, s, n);
    if (size)
        *size = n;
    return d;
}

static bool same_joints(const cache_entry *e, const mn_soma_skeleton *sk)
{
    if (e->joint_count != sk->joint_count)
        return false;
    for (uint32_t i = 0; i < sk->joint_count; i++)
        if (strcmp(e->names[i], sk->names[i]) != 0)
            return false;
    return true;
}

/* A new entry holding copies of the key and of the skeleton's names; NULL when out of memory. */
static cache_entry *entry_new(mn_soma_clip_cache *c, const char *key, const mn_soma_skeleton *sk)
{
    cache_entry *e = mni_alloc(&c->allocator, sizeof *e);
    if (!e)
        return NULL;
    *e = (cache_entry){0};
    e->key = dup_string(&c->allocator, key, &e->key_size);
    e->names_size = (size_t)(sk->joint_count ? sk->joint_count : 1) * sizeof(char *);
    e->names = mni_alloc(&c->allocator, e->names_size);
    if (e->names) {
        memset(e->names, 0, e->names_size);
        e->joint_count = sk->joint_count;
    }
    bool ok = e->key && e->names;
    for (uint32_t i = 0; ok && i < sk->joint_count; i++)
        ok = (e->names[i] = dup_string(&c->allocator, sk->names[i], NULL)) != NULL;
    if (!ok) {
        entry_free(c, e);
        return NULL;
    }
    return e;
}

mn_status mn_soma_clip_cache_acquire(mn_soma_clip_cache *cache, const char *key,
                                     const void *json, size_t size,
                                     const mn_soma_skeleton *skeleton, const mn_soma_clips **out,
                                     mn_error *err)
{
    if (out)
        *out = NULL;
    if (!cache || !key || !skeleton || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "clip cache: NULL argument");
    for (cache_entry *e = cache->head; e; e = e->next) {
        if (strcmp(e->key, key) != 0)
            continue;
        if (!same_joints(e, skeleton))
            return mni_error_set(err, MN_COUNT_MISMATCH, key, -1,
                                 "shared clips \"%s\" were read for a skeleton with other joints",
                                 key);
        e->refs++;
        *out = e->clips;
        return MN_OK;
    }
    if (!json)
        return mni_error_set(err, MN_INVALID_ARGUMENT, key, -1,
                             "shared clips \"%s\" are not cached and no bytes were given", key);
    cache_entry *e = entry_new(cache, key, skeleton);
    if (!e)
        return mni_error_set(err, MN_OUT_OF_MEMORY, key, -1, NULL);
    mn_status st = mn_soma_clips_read(json, size, skeleton, &cache->allocator, &e->clips, err);
    if (st != MN_OK) {
        entry_free(cache, e);
        return st;
    }
    e->refs = 1;
    e->next = cache->head;
    cache->head = e;
    cache->count++;
    *out = e->clips;
    return MN_OK;
}

void mn_soma_clip_cache_release(mn_soma_clip_cache *cache, const mn_soma_clips *clips)
{
    if (!cache || !clips)
        return;
    for (cache_entry **p = &cache->head; *p; p = &(*p)->next) {
        cache_entry *e = *p;
        if (e->clips != clips)
            continue;
        if (--e->refs == 0) {
            *p = e->next;
            cache->count--;
            entry_free(cache, e);
        }
        return;
    }
}

uint32_t mn_soma_clip_cache_count(const mn_soma_clip_cache *cache)
{
    return cache ? cache->count : 0;
}

void mn_soma_clip_cache_free(mn_soma_clip_cache *cache)
{
    if (!cache)
        return;
    while (cache->head) {
        cache_entry *e = cache->head;
        cache->head = e->next;
        entry_free(cache, e);
    }
    mn_allocator a = cache->allocator;
    mni_free(&a, cache, sizeof *cache);
}
