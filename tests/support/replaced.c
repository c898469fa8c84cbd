/* Test support: a template with one piece swapped (see replaced.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "replaced.h"

#include <stdlib.h>
#include <string.h>

char *mn_test_replaced(const char *src, const char *from, const char *to)
{
    const char *at = strstr(src, from);
    if (!at)
        fail_msg("\"%s\" not in the template", from);
    char *out = malloc(strlen(src) - strlen(from) + strlen(to) + 1);
    assert_non_null(out);
    size_t head = (size_t)(at - src);
    memcpy(out, src, head);
    strcpy(out + head, to);
    strcat(out, at + strlen(from));
    return out;
}
