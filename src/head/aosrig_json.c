/*
 * JSON text exactly as ECMAScript's JSON.stringify prints it with no indent
 * (docs/formats.md, "Header bytes"): the bytes of a pack's header must not
 * depend on whose packer wrote them, so numbers follow Number::toString and
 * strings escape only what JSON requires.
 */
#include "head/aosrig_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- numbers ---------------------------------------------------------------------- */

/*
 * The decimal digits of |x| (finite, non-zero) at `precision` significant
 * digits, correctly rounded (printf's %e is), and the exponent of the first.
 */
static void digits_at(double x, int precision, char *digits, int *exponent)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.*e", precision - 1, fabs(x));
    int n = 0;
    const char *p = buf;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[n++] = *p;
    digits[n] = '\0';
    *exponent = atoi(p + 1);
}

/* Does the digit string d × 10^(exponent - len + 1) read back as |x|? */
static bool reads_back(const char *digits, int exponent, double magnitude)
{
    /* an integer mantissa: no decimal point, so the locale's does not matter */
    char buf[48];
    snprintf(buf, sizeof buf, "%se%d", digits, exponent - (int)strlen(digits) + 1);
    return strtod(buf, NULL) == magnitude;
}

/* digits + 1 in the last place, carrying; a carry out of the first digit bumps the exponent. */
static void increment_digits(char *digits, int *exponent)
{
    int i = (int)strlen(digits) - 1;
    while (i >= 0 && digits[i] == '9')
        digits[i--] = '0';
    if (i >= 0) {
        digits[i]++;
        return;
    }
    digits[0] = '1'; /* 99..9 + 1 = 100..0: same length, one more decade */
    (*exponent)++;
}

/*
 * The shortest digits that read back to |x|; among several of that length,
 * the nearest.  The correctly rounded candidate is the nearest; it can fail to
 * read back while its upper neighbour succeeds only when |x| is a power of two
 * (the gap below is half the gap above), so that neighbour is the only other
 * one worth trying.
 */
static void shortest_digits(double x, char *digits, int *exponent)
{
    double magnitude = fabs(x);
    for (int precision = 1; precision <= 17; precision++) {
        digits_at(x, precision, digits, exponent);
        if (reads_back(digits, *exponent, magnitude))
            break;
        char up[24];
        int up_exponent = *exponent;
        memcpy(up, digits, strlen(digits) + 1);
        increment_digits(up, &up_exponent);
        if (reads_back(up, up_exponent, magnitude)) {
            memcpy(digits, up, strlen(up) + 1);
            *exponent = up_exponent;
            break;
        }
    }
    size_t len = strlen(digits);
    while (len > 1 && digits[len - 1] == '0')
        digits[--len] = '\0';
}

size_t mni_js_number(double x, char *out)
{
    if (x == 0.0) { /* -0 prints as 0 */
        out[0] = '0';
        out[1] = '\0';
        return 1;
    }
    char digits[24];
    int exponent;
    shortest_digits(x, digits, &exponent);
    int k = (int)strlen(digits);
    int n = exponent + 1; /* x = 0.d1d2...dk × 10^n */
    char *o = out;
    if (x < 0)
        *o++ = '-';
    if (k <= n && n <= 21) {
        memcpy(o, digits, (size_t)k);
        o += k;
        for (int i = 0; i < n - k; i++)
            *o++ = '0';
    } else if (0 < n && n <= 21) {
        memcpy(o, digits, (size_t)n);
        o += n;
        *o++ = '.';
        memcpy(o, digits + n, (size_t)(k - n));
        o += k - n;
    } else if (-6 < n && n <= 0) {
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -n; i++)
            *o++ = '0';
        memcpy(o, digits, (size_t)k);
        o += k;
    } else {
        *o++ = digits[0];
        if (k > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)(k - 1));
            o += k - 1;
        }
        o += sprintf(o, "e%c%d", n - 1 >= 0 ? '+' : '-', abs(n - 1));
    }
    *o = '\0';
    return (size_t)(o - out);
}

/* ---- strings ---------------------------------------------------------------------- */

bool mni_js_valid_utf8(const char *s, size_t n)
{
    return mni_json_utf8_prefix(s, n) == n;
}

bool mni_js_put_string(mn_jstext *t, const char *s, size_t n)
{
    if (!mni_js_valid_utf8(s, n)) {
        t->failed = true;
        return false;
    }
    mni_jstext_put(t, "\"", 1);
    size_t run = 0; /* start of the bytes that need no escape */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        mni_jstext_put(t, s + run, i - run);
        run = i + 1;
        char esc[8];
        switch (c) {
        case '"':  mni_jstext_put(t, "\\\"", 2); break;
        case '\\': mni_jstext_put(t, "\\\\", 2); break;
        case '\b': mni_jstext_put(t, "\\b", 2); break;
        case '\f': mni_jstext_put(t, "\\f", 2); break;
        case '\n': mni_jstext_put(t, "\\n", 2); break;
        case '\r': mni_jstext_put(t, "\\r", 2); break;
        case '\t': mni_jstext_put(t, "\\t", 2); break;
        default:
            snprintf(esc, sizeof esc, "\\u%04x", c);
            mni_jstext_put(t, esc, 6);
            break;
        }
    }
    mni_jstext_put(t, s + run, n - run);
    return mni_jstext_put(t, "\"", 1);
}

/* ---- any value ---------------------------------------------------------------------- */

bool mni_js_put_value(mn_jstext *t, const json_t *value)
{
    char num[40];
    switch (json_typeof(value)) {
    case JSON_OBJECT: {
        const char *key;
        json_t *member;
        bool first = true;
        mni_jstext_put(t, "{", 1);
        /* jansson keeps members in insertion order, which is what JSON.stringify prints */
        json_object_foreach((json_t *)value, key, member) {
            if (!first)
                mni_jstext_put(t, ",", 1);
            first = false;
            mni_js_put_string(t, key, strlen(key));
            mni_jstext_put(t, ":", 1);
            mni_js_put_value(t, member);
        }
        return mni_jstext_put(t, "}", 1);
    }
    case JSON_ARRAY:
        mni_jstext_put(t, "[", 1);
        for (size_t i = 0; i < json_array_size(value); i++) {
            if (i)
                mni_jstext_put(t, ",", 1);
            mni_js_put_value(t, json_array_get(value, i));
        }
        return mni_jstext_put(t, "]", 1);
    case JSON_STRING:
        return mni_js_put_string(t, json_string_value(value), json_string_length(value));
    case JSON_INTEGER:
        return mni_jstext_put(t, num, mni_js_number((double)json_integer_value(value), num));
    case JSON_REAL:
        return mni_jstext_put(t, num, mni_js_number(json_real_value(value), num));
    case JSON_TRUE:
        return mni_jstext_puts(t, "true");
    case JSON_FALSE:
        return mni_jstext_puts(t, "false");
    case JSON_NULL:
        return mni_jstext_puts(t, "null");
    }
    return false;
}

json_t *mni_js_parse(const char *text, size_t size, json_error_t *error)
{
    /* JSON_DECODE_INT_AS_REAL: an ECMAScript number is a double, integers included;
       a literal that overflows a double is refused by jansson. */
    return json_loadb(text, size, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, error);
}
