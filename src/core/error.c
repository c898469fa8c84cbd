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
