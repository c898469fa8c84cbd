/*
 * The text plumbing the OBJ and MTL readers share: buffers that grow
 * through the caller's allocator, continued lines joined into one, the
 * warning list, the name table, and error filling with line and column.
 */
#define _DEFAULT_SOURCE /* madvise and MADV_HUGEPAGE under -std=c11 */

#include "obj/internal.h"

#include <stdio.h>
#include <string.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

/* ---- growable buffers ------------------------------------------------------------- */

/* Buffers from this size on get the huge-page hint. */
#define HUGE_HINT_BYTES ((size_t)4 << 20)
#define HUGE_PAGE ((uintptr_t)2 << 20)

/*
 * Ask Linux to back a big buffer with transparent huge pages (where the
 * system leaves that to madvise): a 100 MB OBJ makes about 140 MB of arrays
 * and soup, all written once, and taking them in 4 KB page faults cost about
 * a fifth of the whole read.  Only for the default allocator (malloc): a
 * caller's allocator keeps its memory as it likes.  A hint: when it is not
 * taken, nothing changes but the speed.
 */
static void hint_huge_pages(const mn_allocator *allocator, void *data, size_t size)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if ((allocator != NULL && allocator->alloc != NULL) || size < HUGE_HINT_BYTES)
        return;
    uintptr_t first = ((uintptr_t)data + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uintptr_t last = ((uintptr_t)data + size) & ~(HUGE_PAGE - 1);
    if (last > first)
        (void)madvise((void *)first, last - first, MADV_HUGEPAGE);
#else
    (void)allocator, (void)data, (void)size;
#endif
}

bool mni_obj_vec_grow(const mn_allocator *allocator, mn_obj_vec *vec, size_t extra)
{
    size_t need;
    if (!mni_checked_add(vec->size, extra, &need))
        return false;
    if (need <= vec->cap)
        return true;
    /* At least doubling keeps the copies linear in the final size; a bigger need
       (a projected size, see obj/read.c) is taken as it is. */
    size_t cap = vec->cap ? (vec->cap <= SIZE_MAX / 2 ? vec->cap * 2 : SIZE_MAX) : 256;
    if (cap < need)
        cap = need;
    void *data = mni_alloc(allocator, cap);
    if (!data)
        return false;
    hint_huge_pages(allocator, data, cap);
    if (vec->size)
        memcpy(data, vec->data, vec->size);
    mni_free(allocator, vec->data, vec->cap);
    vec->data = data;
    vec->cap = cap;
    return true;
}

void mni_obj_vec_free(const mn_allocator *allocator, mn_obj_vec *vec)
{
    mni_free(allocator, vec->data, vec->cap);
    vec->data = NULL;
    vec->size = vec->cap = 0;
}

/* ---- lines ------------------------------------------------------------------------ */

static bool append(const mn_allocator *allocator, mn_obj_vec *v, const char *s, size_t n)
{
    if (!mni_obj_vec_reserve(allocator, v, n))
        return false;
    if (n)
        memcpy((char *)v->data + v->size, s, n);
    v->size += n;
    return true;
}

bool mni_obj_join_line(const mn_allocator *allocator, mn_obj_vec *scratch, const char *p,
                       const char *end, const char **next, int *lines)
{
    scratch->size = 0;
    *lines = 0;
    for (;;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl : end;
        const char *content_end = stop;
        if (content_end > p && content_end[-1] == '\r')
            content_end--;
        bool continued = content_end > p && content_end[-1] == '\\';
        if (continued)
            content_end--;
        (*lines)++;
        if (!append(allocator, scratch, p, (size_t)(content_end - p)))
            return false;
        p = nl ? nl + 1 : end;
        if (!continued || p >= end)
            break;
        if (!append(allocator, scratch, " ", 1))
            return false;
    }
    *next = p;
    return append(allocator, scratch, "\n", 1);
}

size_t mni_obj_rest_length(const char *p)
{
    const char *e = p;
    while (*e != '\n')
        e++;
    while (e > p && mni_obj_is_blank(e[-1]))
        e--;
    return (size_t)(e - p);
}

/* ---- warnings --------------------------------------------------------------------- */

void mni_obj_warnings_init(mn_obj_warnings *w, mn_arena *arena)
{
    memset(w, 0, sizeof *w);
    w->arena = arena;
    w->prefix = "";
}

static bool warn_v(mn_obj_warnings *w, mn_status code, const char *path, const char *fmt, va_list ap)
{
    char text[512];
    int n = snprintf(text, sizeof text, "%s", w->prefix);
    if (n < 0 || (size_t)n >= sizeof text)
        n = 0;
    vsnprintf(text + n, sizeof text - (size_t)n, fmt, ap);
    mn_obj_warning_node *node = mni_arena_alloc(w->arena, sizeof *node, 8);
    char *message = mni_arena_strndup(w->arena, text, strlen(text));
    char *p = mni_arena_strndup(w->arena, path ? path : "", path ? strlen(path) : 0);
    if (!node || !message || !p)
        return false;
    node->warning.code = code;
    node->warning.path = p;
    node->warning.message = message;
    node->next = NULL;
    if (w->tail)
        w->tail->next = node;
    else
        w->head = node;
    w->tail = node;
    w->count++;
    return true;
}

bool mni_obj_warn(mn_obj_warnings *w, mn_status code, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool ok = warn_v(w, code, path, fmt, ap);
    va_end(ap);
    return ok;
}

bool mni_obj_keyword_listed(char (*list)[16], uint32_t count, const char *keyword, size_t len,
                            char key[16], size_t *kept)
{
    *kept = len < 15 ? len : 15;
    memcpy(key, keyword, *kept);
    key[*kept] = '\0';
    for (uint32_t i = 0; i < count; i++)
        if (strcmp(list[i], key) == 0)
            return true;
    return false;
}

bool mni_obj_warn_unknown(mn_obj_warnings *w, const char *keyword, size_t len, int line,
                          const char *what)
{
    char key[16];
    size_t kept;
    if (mni_obj_keyword_listed(w->unknown, w->unknown_count, keyword, len, key, &kept))
        return true;
    if (w->unknown_count == MN_OBJ_UNKNOWN_KEYWORDS) {
        if (w->unknown_overflow)
            return true;
        w->unknown_overflow = true;
        return mni_obj_warn(w, MN_INVALID_VALUE, "", "line %d: more unknown statements; not listed",
                            line);
    }
    memcpy(w->unknown[w->unknown_count++], key, kept + 1);
    return mni_obj_warn(w, MN_INVALID_VALUE, key, "line %d: %s \"%s\" ignored (reported once)", line,
                        what, key);
}

bool mni_obj_warnings_finish(mn_obj_warnings *w, const mn_warning **out, uint32_t *count)
{
    *out = NULL;
    *count = 0;
    if (w->count == 0)
        return true;
    mn_warning *list = mni_arena_calloc(w->arena, w->count, sizeof *list, 8);
    if (!list)
        return false;
    uint32_t i = 0;
    for (mn_obj_warning_node *n = w->head; n; n = n->next)
        list[i++] = n->warning;
    *out = list;
    *count = w->count;
    return true;
}

/* ---- names ------------------------------------------------------------------------- */

/* Murmur3's finaliser: every bit of x reaches the low bits that pick a slot. */
static uint64_t mix64(uint64_t x)
{
    x = (x ^ (x >> 33)) * 0xff51afd7ed558ccdu;
    x = (x ^ (x >> 33)) * 0xc4ceb9fe1a85ec53u;
    return x ^ (x >> 33);
}

/*
 * FNV-1a (64-bit) from a seeded start, mixed.  With a fixed hash a file could
 * pick names that all land in a few slots (a 1 in 256 draw each for a window
 * of 256), and every insert would then probe the whole cluster: quadratic.
 * The seed comes from where this table and the caller's stack are (ASLR), so
 * a file cannot know it; the result never depends on it, only the slots do.
 */
static uint32_t hash_bytes(const char *s, size_t len, uint64_t seed)
{
    uint64_t h = 14695981039346656037u ^ seed;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)s[i]) * 1099511628211u;
    return (uint32_t)mix64(h ^ len);
}

void mni_obj_names_init(mn_obj_names *t, mn_arena *arena)
{
    memset(t, 0, sizeof *t);
    t->arena = arena;
    uintptr_t here = (uintptr_t)&here;
    t->seed = mix64((uint64_t)(uintptr_t)t ^ mix64((uint64_t)here) ^ mix64((uint64_t)(uintptr_t)arena));
}

static mn_obj_name_slot *probe(mn_obj_name_slot *slots, size_t mask, const char *name, size_t len,
                               uint32_t hash)
{
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        mn_obj_name_slot *s = &slots[i];
        if (!s->name || (s->hash == hash && s->len == len && memcmp(s->name, name, len) == 0))
            return s;
    }
}

mn_obj_name_slot *mni_obj_names_find(const mn_obj_names *t, const char *name, size_t len)
{
    if (!t->slots)
        return NULL;
    mn_obj_name_slot *s = probe(t->slots, t->mask, name, len, hash_bytes(name, len, t->seed));
    return s->name ? s : NULL;
}

/* Double the slots.  They come from the arena's allocator, not the arena, so the old ones are
   given back: a table of a million names then holds one array of slots, not every size it had. */
static bool rehash(mn_obj_names *t)
{
    size_t n = t->slots ? (t->mask + 1) * 2 : 16, bytes;
    if (!mni_checked_mul(n, sizeof(mn_obj_name_slot), &bytes))
        return false;
    mn_obj_name_slot *slots = mni_alloc(&t->arena->allocator, bytes);
    if (!slots)
        return false;
    memset(slots, 0, bytes);
    for (size_t i = 0; t->slots && i <= t->mask; i++)
        if (t->slots[i].name)
            *probe(slots, n - 1, t->slots[i].name, t->slots[i].len, t->slots[i].hash) = t->slots[i];
    mni_obj_names_release(t);
    t->slots = slots;
    t->mask = n - 1;
    return true;
}

void mni_obj_names_release(mn_obj_names *t)
{
    if (t->slots)
        mni_free(&t->arena->allocator, t->slots, (t->mask + 1) * sizeof *t->slots);
    t->slots = NULL;
    t->mask = 0;
}

mn_obj_name_slot *mni_obj_names_add(mn_obj_names *t, const char *name, size_t len)
{
    if ((!t->slots || (t->count + 1) * 2 > t->mask + 1) && !rehash(t))
        return NULL;
    uint32_t hash = hash_bytes(name, len, t->seed);
    mn_obj_name_slot *s = probe(t->slots, t->mask, name, len, hash);
    if (s->name)
        return s;
    char *copy = mni_arena_strndup(t->arena, name, len);
    if (!copy)
        return NULL;
    s->name = copy;
    s->len = len;
    s->hash = hash;
    s->value = MN_NONE;
    t->count++;
    return s;
}

/* ---- errors ------------------------------------------------------------------------- */

mn_status mni_obj_fail(mn_error *err, mn_status code, const mn_obj_where *where, const char *keyword,
                       const char *at, const char *fmt, ...)
{
    if (!err)
        return code;
    char text[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    int64_t column = at >= where->text ? (int64_t)(at - where->text) : 0;
    mni_error_set(err, code, keyword, where->offset + column, "line %d: %s: %s", where->line, keyword,
                  text);
    err->line = where->line;
    err->column = column + 1 > INT32_MAX ? INT32_MAX : (int)(column + 1);
    return code;
}
