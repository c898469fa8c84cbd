/*
 * jansson helpers that track the JSON path as a reader descends, and typed
 * getters whose errors name that path (see json.h).
 */
#include "io/io.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void mni_json_init(mn_json *j, mn_arena *arena, mn_error *err)
{
    j->arena = arena;
    j->err = err;
    j->path[0] = '\0';
    j->len = 0;
}

/* ---- the path ------------------------------------------------------------ */

/* Append text; a path that would overflow stays truncated (messages still name the start). */
static void path_append(mn_json *j, const char *text)
{
    size_t room = MN_JSON_PATH_MAX - 1 - j->len;
    size_t n = strlen(text);
    if (n > room)
        n = room;
    memcpy(j->path + j->len, text, n);
    j->len += n;
    j->path[j->len] = '\0';
}

size_t mni_json_push_key(mn_json *j, const char *key)
{
    size_t mark = j->len;
    if (j->len > 0)
        path_append(j, ".");
    path_append(j, key);
    return mark;
}

size_t mni_json_push_index(mn_json *j, size_t index)
{
    size_t mark = j->len;
    char buf[32];
    snprintf(buf, sizeof buf, "[%zu]", index);
    path_append(j, buf);
    return mark;
}

void mni_json_pop(mn_json *j, size_t mark)
{
    if (mark < j->len) {
        j->len = mark;
        j->path[mark] = '\0';
    }
}

void mni_json_path_of(const mn_json *j, const char *key, char *out, size_t out_size)
{
    if (key && j->len > 0)
        snprintf(out, out_size, "%s.%s", j->path, key);
    else if (key)
        snprintf(out, out_size, "%s", key);
    else
        snprintf(out, out_size, "%s", j->path);
}

mn_status mni_json_fail(mn_json *j, mn_status code, const char *key, const char *fmt, ...)
{
    char path[MN_JSON_PATH_MAX + 64];
    char text[256];
    mni_json_path_of(j, key, path, sizeof path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (path[0])
        return mni_error_set(j->err, code, path, -1, "%s: %s", path, text);
    return mni_error_set(j->err, code, path, -1, "%s", text);
}

mn_status mni_json_oom(mn_json *j, const char *key, const char *what, ...)
{
    mn_error words; /* mni_oom's message, which mni_json_fail puts after the path */
    va_list ap;
    va_start(ap, what);
    mni_oom_va(&words, what, ap);
    va_end(ap);
    return mni_json_fail(j, MN_OUT_OF_MEMORY, key, "%s", words.message);
}

const char *mni_json_type_name(const json_t *value)
{
    switch (json_typeof(value)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number with a fraction or exponent";
    case JSON_TRUE: return "true";
    case JSON_FALSE: return "false";
    case JSON_NULL: return "null";
    }
    return "an unknown value";
}

/* ---- typed getters -------------------------------------------------------- */

/* The member, or NULL when absent; MN_MISSING_PROPERTY when required and absent. */
static mn_status member(mn_json *j, json_t *obj, const char *key, bool required, json_t **out)
{
    *out = obj ? json_object_get(obj, key) : NULL;
    if (!*out && required)
        return mni_json_fail(j, MN_MISSING_PROPERTY, key, "required property \"%s\" is missing", key);
    return MN_OK;
}

static mn_status wrong_type(mn_json *j, const char *key, const char *expected, const json_t *v)
{
    return mni_json_fail(j, MN_JSON_TYPE, key, "expected %s, found %s", expected,
                         mni_json_type_name(v));
}

/* A member holding an object or an array (`type`); *out = NULL unless it is one. */
static mn_status container(mn_json *j, json_t *obj, const char *key, bool required, json_type type,
                           json_t **out)
{
    json_t *v;
    mn_status st = member(j, obj, key, required, &v);
    *out = NULL;
    if (st != MN_OK || !v)
        return st;
    if (json_typeof(v) != type)
        return wrong_type(j, key, type == JSON_OBJECT ? "an object" : "an array", v);
    *out = v;
    return MN_OK;
}

mn_status mni_json_object(mn_json *j, json_t *obj, const char *key, bool required, json_t **out)
{
    return container(j, obj, key, required, JSON_OBJECT, out);
}

mn_status mni_json_array(mn_json *j, json_t *obj, const char *key, bool required, json_t **out)
{
    return container(j, obj, key, required, JSON_ARRAY, out);
}

mn_status mni_json_string_ref(mn_json *j, json_t *obj, const char *key, bool required,
                              const char **out, size_t *out_len)
{
    json_t *v;
    mn_status st = member(j, obj, key, required, &v);
    if (st != MN_OK || !v)
        return st;
    if (!json_is_string(v))
        return wrong_type(j, key, "a string", v);
    *out = json_string_value(v);
    if (out_len)
        *out_len = json_string_length(v);
    return MN_OK;
}

mn_status mni_json_string(mn_json *j, json_t *obj, const char *key, bool required, const char **out)
{
    const char *s = NULL;
    size_t len = 0;
    mn_status st = mni_json_string_ref(j, obj, key, required, &s, &len);
    if (st != MN_OK || !s)
        return st;
    char *copy = mni_arena_strndup(j->arena, s, len);
    if (!copy)
        return mni_json_oom(j, key, "copying a string");
    *out = copy;
    return MN_OK;
}

mn_status mni_json_bool(mn_json *j, json_t *obj, const char *key, bool required, bool *out)
{
    json_t *v;
    mn_status st = member(j, obj, key, required, &v);
    if (st != MN_OK || !v)
        return st;
    if (!json_is_boolean(v))
        return wrong_type(j, key, "true or false", v);
    *out = json_is_true(v);
    return MN_OK;
}

/* Check an integer value v against [min, max]; key names it for messages. */
static mn_status uint_value(mn_json *j, const char *key, json_t *v, uint64_t min, uint64_t max,
                            uint64_t *out)
{
    if (!json_is_integer(v))
        return wrong_type(j, key, "an integer", v);
    json_int_t x = json_integer_value(v);
    if (x < 0 || (uint64_t)x < min || (uint64_t)x > max) {
        if (max == UINT64_MAX)
            return mni_json_fail(j, MN_INVALID_VALUE, key, "%lld is below the minimum %llu",
                                 (long long)x, (unsigned long long)min);
        return mni_json_fail(j, MN_INVALID_VALUE, key, "%lld is outside the allowed range [%llu, %llu]",
                             (long long)x, (unsigned long long)min, (unsigned long long)max);
    }
    *out = (uint64_t)x;
    return MN_OK;
}

mn_status mni_json_uint(mn_json *j, json_t *obj, const char *key, bool required, uint64_t min,
                        uint64_t max, uint64_t *out)
{
    json_t *v;
    mn_status st = member(j, obj, key, required, &v);
    if (st != MN_OK || !v)
        return st;
    return uint_value(j, key, v, min, max, out);
}

mn_status mni_json_u32(mn_json *j, json_t *obj, const char *key, bool required, uint32_t min,
                       uint32_t max, uint32_t *out)
{
    uint64_t x = 0;
    json_t *v;
    mn_status st = member(j, obj, key, required, &v);
    if (st != MN_OK || !v)
        return st;
    st = uint_value(j, key, v, min, max, &x);
    if (st == MN_OK)
        *out = (uint32_t)x;
    return st;
}

/* A JSON number as a finite float. */
static mn_status float_value(mn_json *j, const char *key, json_t *v, float *out)
{
    if (!json_is_number(v))
        return wrong_type(j, key, "a number", v);
    double d = json_number_value(v);
    if (!isfinite(d) || fabs(d) > (double)FLT_MAX)
        return mni_json_fail(j, MN_NOT_FINITE, key, "%g does not fit a finite 32-bit float", d);
    *out = (float)d;
    return MN_OK;
}

mn_status mni_json_float(mn_json *j, json_t *obj, const char *key, bool required, float *out)
{
    json_t *v;
    mn_status st = member(j, obj, key, required, &v);
    if (st != MN_OK || !v)
        return st;
    return float_value(j, key, v, out);
}

mn_status mni_json_float_min(mn_json *j, json_t *obj, const char *key, bool required, float min,
                             float *out)
{
    float x = 0.0f;
    json_t *v;
    mn_status st = member(j, obj, key, required, &v);
    if (st != MN_OK || !v)
        return st;
    st = float_value(j, key, v, &x);
    if (st != MN_OK)
        return st;
    if (x < min)
        return mni_json_fail(j, MN_INVALID_VALUE, key, "%g is below the minimum %g", (double)x,
                             (double)min);
    *out = x;
    return MN_OK;
}

mn_status mni_json_floats(mn_json *j, json_t *obj, const char *key, bool required, size_t n,
                          float *out)
{
    json_t *arr;
    mn_status st = mni_json_array(j, obj, key, required, &arr);
    if (st != MN_OK || !arr)
        return st;
    if (json_array_size(arr) != n)
        return mni_json_fail(j, MN_INVALID_VALUE, key, "expected an array of %zu numbers, found %zu",
                             n, json_array_size(arr));
    size_t mark = mni_json_push_key(j, key);
    for (size_t i = 0; i < n; i++) {
        size_t m2 = mni_json_push_index(j, i);
        st = float_value(j, NULL, json_array_get(arr, i), &out[i]);
        if (st != MN_OK)
            return st;
        mni_json_pop(j, m2);
    }
    mni_json_pop(j, mark);
    return MN_OK;
}

mn_status mni_json_enum(mn_json *j, json_t *obj, const char *key, bool required,
                        const char *const *names, size_t count, const char *what, int *out)
{
    const char *s = NULL;
    mn_status st = mni_json_string_ref(j, obj, key, required, &s, NULL);
    if (st != MN_OK || !s)
        return st;
    for (size_t i = 0; i < count; i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = (int)i;
            return MN_OK;
        }
    }
    char choices[160] = "";
    size_t len = 0;
    for (size_t i = 0; i < count && len < sizeof choices; i++)
        len += (size_t)snprintf(choices + len, sizeof choices - len, "%s%s", i ? ", " : "", names[i]);
    return mni_json_fail(j, MN_INVALID_VALUE, key, "\"%.32s\" is not %s (%s)", s, what, choices);
}

mn_status mni_json_index_value(mn_json *j, json_t *value, uint32_t count, const char *what,
                               uint32_t *out)
{
    if (!json_is_integer(value))
        return wrong_type(j, NULL, "an integer index", value);
    json_int_t x = json_integer_value(value);
    if (x < 0 || (uint64_t)x >= count) {
        if (count == 0)
            return mni_json_fail(j, MN_INDEX_RANGE, NULL, "index %lld is out of range: the file has no %s",
                                 (long long)x, what);
        return mni_json_fail(j, MN_INDEX_RANGE, NULL,
                             "index %lld is out of range: the file has %u %s (valid: 0 to %u)",
                             (long long)x, count, what, count - 1);
    }
    *out = (uint32_t)x;
    return MN_OK;
}

mn_status mni_json_index(mn_json *j, json_t *obj, const char *key, bool required, uint32_t count,
                         const char *what, uint32_t *out)
{
    json_t *v;
    mn_status st = member(j, obj, key, required, &v);
    if (st != MN_OK)
        return st;
    if (!v) {
        *out = MN_NONE;
        return MN_OK;
    }
    size_t mark = mni_json_push_key(j, key);
    st = mni_json_index_value(j, v, count, what, out);
    mni_json_pop(j, mark);
    return st;
}

mn_status mni_json_array_count(mn_json *j, json_t *obj, const char *key, bool required,
                               json_t **out_array, uint32_t *out)
{
    json_t *arr;
    mn_status st = mni_json_array(j, obj, key, required, &arr);
    *out = 0;
    if (out_array)
        *out_array = arr;
    if (st != MN_OK || !arr)
        return st;
    size_t n = json_array_size(arr);
    if (n >= UINT32_MAX)
        return mni_json_fail(j, MN_INVALID_VALUE, key, "%zu elements are more than this reader supports", n);
    *out = (uint32_t)n;
    return MN_OK;
}

mn_status mni_json_dump(mn_json *j, const json_t *value, const char **out)
{
    const size_t flags = JSON_COMPACT | JSON_ENCODE_ANY;
    size_t need = json_dumpb(value, NULL, 0, flags);
    if (need == 0)
        return mni_json_fail(j, MN_INVALID_VALUE, NULL, "value cannot be written back as JSON text");
    size_t total;
    char *text = mni_checked_add(need, 1, &total) ? mni_arena_alloc(j->arena, total, 1) : NULL;
    if (!text)
        return mni_json_oom(j, NULL, "keeping JSON text");
    if (json_dumpb(value, text, need, flags) != need)
        return mni_json_fail(j, MN_INVALID_VALUE, NULL, "value cannot be written back as JSON text");
    text[need] = '\0';
    *out = text;
    return MN_OK;
}

mn_status mni_json_first_repeated_name(mn_json *j, json_t *array, uint32_t n, const char *what,
                                       uint32_t *repeat, uint32_t *first)
{
    mn_arena scratch;
    mni_arena_init(&scratch, &j->arena->allocator);
    const char **names = mni_arena_calloc(&scratch, n ? n : 1, sizeof *names, _Alignof(char *));
    mni_names_sorted sorted;
    bool ok = names != NULL;
    for (uint32_t i = 0; ok && i < n; i++) {
        json_t *name = json_object_get(json_array_get(array, i), "name");
        names[i] = json_is_string(name) ? json_string_value(name) : NULL;
    }
    *repeat = MN_NONE;
    if (ok && (ok = mni_names_sort(&sorted, &scratch, names, n)) &&
        !mni_names_first_duplicate(&sorted, repeat, first))
        *repeat = MN_NONE;
    mni_arena_release(&scratch);
    if (ok)
        return MN_OK;
    return what ? mni_json_oom(j, NULL, "%s", what) : mni_json_oom(j, NULL, NULL);
}

mn_status mni_json_extras(mn_json *j, json_t *obj, const char **out)
{
    json_t *v = json_object_get(obj, "extras");
    *out = NULL;
    if (!v)
        return MN_OK;
    size_t mark = mni_json_push_key(j, "extras");
    mn_status st = mni_json_dump(j, v, out);
    mni_json_pop(j, mark);
    return st;
}

/* ---- JSON text being printed ------------------------------------------------ */

void mni_jstext_init(mn_jstext *t, const mn_allocator *allocator)
{
    t->allocator = allocator;
    t->data = NULL;
    t->len = t->cap = 0;
    t->failed = false;
}

void mni_jstext_free(mn_jstext *t)
{
    mni_free(t->allocator, t->data, t->cap);
    mni_jstext_init(t, t->allocator);
}

bool mni_jstext_put(mn_jstext *t, const char *s, size_t n)
{
    if (t->failed)
        return false;
    if (n > t->cap - t->len) {
        size_t need;
        if (!mni_checked_add(t->len, n, &need)) {
            t->failed = true;
            return false;
        }
        size_t cap = t->cap ? t->cap : 256;
        while (cap < need) {
            if (cap > SIZE_MAX / 2) {
                t->failed = true;
                return false;
            }
            cap *= 2;
        }
        char *grown = mni_alloc(t->allocator, cap);
        if (!grown) {
            t->failed = true;
            return false;
        }
        if (t->len)
            memcpy(grown, t->data, t->len);
        mni_free(t->allocator, t->data, t->cap);
        t->data = grown;
        t->cap = cap;
    }
    if (n)
        memcpy(t->data + t->len, s, n);
    t->len += n;
    return true;
}

bool mni_jstext_puts(mn_jstext *t, const char *s)
{
    return mni_jstext_put(t, s, strlen(s));
}

size_t mni_json_utf8_prefix(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        size_t extra;
        uint32_t cp;
        if (c == 0)
            return i;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            extra = 1;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            extra = 2;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            extra = 3;
            cp = c & 0x07;
        } else {
            return i;
        }
        if (n - i <= extra)
            return i;
        for (size_t e = 1; e <= extra; e++) {
            if ((p[i + e] & 0xc0) != 0x80)
                return i;
            cp = cp << 6 | (p[i + e] & 0x3f);
        }
        /* overlong forms, surrogates and code points past U+10FFFF */
        if ((extra == 2 && cp < 0x800) || (extra == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return i;
        i += extra + 1;
    }
    return n;
}
