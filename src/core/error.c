/* Status names and messages from the one X-macro table, and mn_error filling. */
#include "core/core.h"

#include <stdio.h>
#include <string.h>

static const char *const status_names[] = {
#define MN_STATUS_NAME_(name, msg) "MN_" #name,
    MN_STATUS_TABLE(MN_STATUS_NAME_)
#undef MN_STATUS_NAME_
};

static const char *const status_messages[] = {
#define MN_STATUS_MSG_(name, msg) msg,
    MN_STATUS_TABLE(MN_STATUS_MSG_)
#undef MN_STATUS_MSG_
};

const char *mn_status_name(mn_status status)
{
    if ((unsigned)status >= (unsigned)MN_STATUS_COUNT)
        return "MN_UNKNOWN";
    return status_names[status];
}

const char *mn_status_message(mn_status status)
{
    if ((unsigned)status >= (unsigned)MN_STATUS_COUNT)
        return "unknown status";
    return status_messages[status];
}

const char *mn_version(void)
{
    return MN_VERSION_STRING;
}

/*
 * Every successful call clears its caller's error, several times a frame on
 * the hot paths: the fields and the strings' first bytes, not all 400 bytes.
 */
void mni_error_clear(mn_error *err)
{
    if (!err)
        return;
    err->code = MN_OK;
    err->message[0] = '\0';
    err->path[0] = '\0';
    err->offset = -1;
    err->line = 0;
    err->column = 0;
}

/* Fill err (not NULL) from a va_list: mni_error_set's work. */
static void error_vset(mn_error *err, mn_status code, const char *path, int64_t offset,
                       const char *fmt, va_list ap)
{
    memset(err, 0, sizeof *err); /* a failure is rare: leave no stale bytes after the text */
    err->code = code;
    err->offset = offset;
    if (path)
        snprintf(err->path, sizeof err->path, "%s", path);
    if (fmt)
        vsnprintf(err->message, sizeof err->message, fmt, ap);
    else if (path && path[0])
        snprintf(err->message, sizeof err->message, "%s: %s", path, mn_status_message(code));
    else
        snprintf(err->message, sizeof err->message, "%s", mn_status_message(code));
}

mn_status mni_error_set(mn_error *err, mn_status code, const char *path, int64_t offset,
                        const char *fmt, ...)
{
    if (!err)
        return code;
    va_list ap;
    va_start(ap, fmt);
    error_vset(err, code, path, offset, fmt, ap);
    va_end(ap);
    return code;
}

mn_status mni_fail(mn_error *err, mn_status code, const char *fmt, ...)
{
    if (!err)
        return code;
    va_list ap;
    va_start(ap, fmt);
    error_vset(err, code, NULL, -1, fmt, ap);
    va_end(ap);
    return code;
}

mn_status mni_oom_va(mn_error *err, const char *what, va_list ap)
{
    if (!err)
        return MN_OUT_OF_MEMORY;
    if (!what)
        return mni_fail(err, MN_OUT_OF_MEMORY, NULL);
    const char *words = mn_status_message(MN_OUT_OF_MEMORY);
    char text[sizeof err->message];
    vsnprintf(text, sizeof text, what, ap);
    /* keep room for ": " and the words, so that a long `what` never cuts them off */
    size_t room = sizeof err->message - 3 - strlen(words);
    if (strlen(text) > room)
        text[room] = '\0';
    return mni_error_set(err, MN_OUT_OF_MEMORY, NULL, -1, "%s: %s", text, words);
}

mn_status mni_oom(mn_error *err, const char *what, ...)
{
    va_list ap;
    va_start(ap, what);
    mn_status st = mni_oom_va(err, what, ap);
    va_end(ap);
    return st;
}

/* ---- did you mean ------------------------------------------------------------- */

void mni_suggest_init(mni_suggest *s, const char *name)
{
    size_t len = name ? strlen(name) : 0;
    s->name = name;
    s->best = NULL;
    s->limit = len / 3 > 1 ? (uint32_t)(len / 3) : 1u;
    s->distance = s->limit + 1;
}

/*
 * Optimal string alignment distance between a (la bytes) and b (lb bytes),
 * both at most MNI_SUGGEST_MAX: the Levenshtein recurrence plus a swap of
 * two neighbours, over three rolling rows.
 */
static uint32_t osa_distance(const char *a, size_t la, const char *b, size_t lb)
{
    uint32_t rows[3][MNI_SUGGEST_MAX + 1];
    uint32_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (uint32_t)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (uint32_t)i;
        for (size_t j = 1; j <= lb; j++) {
            uint32_t cost = a[i - 1] == b[j - 1] ? 0u : 1u;
            uint32_t d = prev[j] + 1;
            if (cur[j - 1] + 1 < d)
                d = cur[j - 1] + 1;
            if (prev[j - 1] + cost < d)
                d = prev[j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < d)
                d = prev2[j - 2] + 1;
            cur[j] = d;
        }
        uint32_t *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

void mni_suggest_offer(mni_suggest *s, const char *candidate)
{
    if (!s->name || !candidate)
        return;
    size_t la = strlen(s->name), lb = strlen(candidate);
    if (la > MNI_SUGGEST_MAX || lb > MNI_SUGGEST_MAX)
        return;
    /* The length difference alone is a lower bound on the distance. */
    size_t gap = la > lb ? la - lb : lb - la;
    if (gap >= s->distance)
        return;
    uint32_t d = osa_distance(s->name, la, candidate, lb);
    if (d < s->distance && d <= s->limit) {
        s->distance = d;
        s->best = candidate;
    }
}

const char *mni_suggest_text(const mni_suggest *s, char *buf, size_t size)
{
    if (!buf || size == 0)
        return "";
    if (s->best)
        snprintf(buf, size, "; did you mean \"%s\"?", s->best);
    else
        buf[0] = '\0';
    return buf;
}
