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

mn_status mni_error_set(mn_error *err, mn_status code, const char *path, int64_t offset,
                       const char *fmt, ...)
{
    if (!err)
        return code;
    memset(err, 0, sizeof *err); /* a failure is rare: leave no stale bytes after the text */
    err->code = code;
    err->offset = offset;
    if (path)
        snprintf(err->path, sizeof err->path, "%s", path);
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    } else {
        snprintf(err->message, sizeof err->message, "%s", mn_status_message(code));
    }
    return code;
}
