/*
 * URIs in a glTF document: data: URIs (RFC 2397) with strict base64
 * (RFC 4648), and percent-decoding of relative URIs (RFC 3986), the names
 * then checked by mni_name_check (contain.c).
 */
#include "io/io.h"

#include <stdio.h>
#include <string.h>

/* ---- small character helpers ------------------------------------------------ */

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static bool starts_with_nocase(const char *s, const char *prefix)
{
    for (; *prefix; s++, prefix++)
        if (lower((unsigned char)*s) != *prefix)
            return false;
    return true;
}

static bool equals_nocase(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && starts_with_nocase(s, word);
}

static int hex_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = lower(c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* RFC 2045 token characters (media types and their parameters). */
static bool is_token_char(int c)
{
    return c > 32 && c < 127 && !strchr("()<>@,;:\\\"/[]?=", c);
}

/* ---- base64 ------------------------------------------------------------------- */

/* Value of each base64 character, 64 for anything else. */
static const uint8_t BASE64_VALUE[256] = {
    ['A'] = 0,  ['B'] = 1,  ['C'] = 2,  ['D'] = 3,  ['E'] = 4,  ['F'] = 5,  ['G'] = 6,  ['H'] = 7,
    ['I'] = 8,  ['J'] = 9,  ['K'] = 10, ['L'] = 11, ['M'] = 12, ['N'] = 13, ['O'] = 14, ['P'] = 15,
    ['Q'] = 16, ['R'] = 17, ['S'] = 18, ['T'] = 19, ['U'] = 20, ['V'] = 21, ['W'] = 22, ['X'] = 23,
    ['Y'] = 24, ['Z'] = 25, ['a'] = 26, ['b'] = 27, ['c'] = 28, ['d'] = 29, ['e'] = 30, ['f'] = 31,
    ['g'] = 32, ['h'] = 33, ['i'] = 34, ['j'] = 35, ['k'] = 36, ['l'] = 37, ['m'] = 38, ['n'] = 39,
    ['o'] = 40, ['p'] = 41, ['q'] = 42, ['r'] = 43, ['s'] = 44, ['t'] = 45, ['u'] = 46, ['v'] = 47,
    ['w'] = 48, ['x'] = 49, ['y'] = 50, ['z'] = 51, ['0'] = 52, ['1'] = 53, ['2'] = 54, ['3'] = 55,
    ['4'] = 56, ['5'] = 57, ['6'] = 58, ['7'] = 59, ['8'] = 60, ['9'] = 61, ['+'] = 62, ['/'] = 63,
};

static bool is_base64_char(unsigned char c)
{
    return c == 'A' || BASE64_VALUE[c] != 0;
}

/*
 * Strict base64: only the 64 alphabet characters, '=' only as the final
 * padding (then the length is a multiple of 4).  Unpadded input is accepted
 * when its length leaves 2 or 3 characters in the last group, as RFC 4648
 * allows where a format says so; a lone trailing character is never valid.
 */
static mn_status base64_decode(mn_arena *arena, const char *text, size_t n, mn_bytes *out,
                               const char *path, mn_error *err)
{
    size_t pad = 0;
    while (pad < 2 && n > pad && text[n - 1 - pad] == '=')
        pad++;
    size_t chars = n - pad;
    for (size_t i = 0; i < chars; i++) {
        unsigned char c = (unsigned char)text[i];
        if (!is_base64_char(c)) {
            if (c == '=')
                return mni_error_set(err, MN_BASE64, path, -1,
                                     "%s: base64 padding '=' at character %zu is not at the end of the data",
                                     path, i);
            return mni_error_set(err, MN_BASE64, path, -1,
                                 "%s: character %zu of the base64 data (0x%02x) is not in the base64 alphabet",
                                 path, i, c);
        }
    }
    if ((pad > 0 && n % 4 != 0) || chars % 4 == 1)
        return mni_error_set(err, MN_BASE64, path, -1,
                             "%s: base64 data of %zu characters is truncated (its length must be a multiple of 4)",
                             path, n);
    size_t size = chars / 4 * 3 + (chars % 4 ? chars % 4 - 1 : 0);
    uint8_t *dst = mni_arena_alloc(arena, size ? size : 1, 16);
    if (!dst)
        return mni_error_set(err, MN_OUT_OF_MEMORY, path, -1, "%s: out of memory decoding %zu bytes",
                             path, size);
    const unsigned char *s = (const unsigned char *)text;
    size_t o = 0, i = 0;
    for (; i + 4 <= chars; i += 4) {
        uint32_t v = (uint32_t)BASE64_VALUE[s[i]] << 18 | (uint32_t)BASE64_VALUE[s[i + 1]] << 12 |
                     (uint32_t)BASE64_VALUE[s[i + 2]] << 6 | BASE64_VALUE[s[i + 3]];
        dst[o++] = (uint8_t)(v >> 16);
        dst[o++] = (uint8_t)(v >> 8);
        dst[o++] = (uint8_t)v;
    }
    if (chars - i >= 2) {
        uint32_t v = (uint32_t)BASE64_VALUE[s[i]] << 18 | (uint32_t)BASE64_VALUE[s[i + 1]] << 12;
        if (chars - i == 3)
            v |= (uint32_t)BASE64_VALUE[s[i + 2]] << 6;
        dst[o++] = (uint8_t)(v >> 16);
        if (chars - i == 3)
            dst[o++] = (uint8_t)(v >> 8);
    }
    out->data = dst;
    out->size = o;
    return MN_OK;
}

/* ---- percent-decoding ------------------------------------------------------------ */

/*
 * Decode the %XX escapes of text[0..n) into dst (room for n bytes), *out_len
 * bytes.  MN_URI for a '%' that does not start an escape, and for %00 in a
 * file name: a NUL is legal only in the data of a data: URI (`data`).
 */
static mn_status unescape(const char *text, size_t n, bool data, uint8_t *dst, size_t *out_len,
                          const char *path, mn_error *err)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (text[i] != '%') {
            dst[o++] = (uint8_t)text[i];
            continue;
        }
        int hi = i + 1 < n ? hex_value((unsigned char)text[i + 1]) : -1;
        int lo = i + 2 < n ? hex_value((unsigned char)text[i + 2]) : -1;
        if (hi < 0 || lo < 0)
            return mni_error_set(err, MN_URI, path, -1,
                                 "%s: '%%' at character %zu%s does not start a %%XX escape", path, i,
                                 data ? " of the data" : "");
        if (hi == 0 && lo == 0 && !data)
            return mni_error_set(err, MN_URI, path, -1,
                                 "%s: the escape %%00 (a NUL byte) cannot be part of a file name", path);
        dst[o++] = (uint8_t)(hi * 16 + lo);
        i += 2;
    }
    *out_len = o;
    return MN_OK;
}

/* Decode a file name's %XX escapes into the arena, NUL-terminated. */
static mn_status percent_decode(mn_arena *arena, const char *text, size_t n, char **out,
                                size_t *out_len, const char *path, mn_error *err)
{
    size_t total, len;
    char *dst = mni_checked_add(n, 1, &total) ? mni_arena_alloc(arena, total, 1) : NULL;
    if (!dst)
        return mni_error_set(err, MN_OUT_OF_MEMORY, path, -1, "%s: out of memory decoding a URI", path);
    mn_status st = unescape(text, n, false, (uint8_t *)dst, &len, path, err);
    if (st != MN_OK)
        return st;
    dst[len] = '\0';
    *out = dst;
    if (out_len)
        *out_len = len;
    return MN_OK;
}

/* ---- data: URIs -------------------------------------------------------------------- */

bool mni_uri_is_data(const char *uri)
{
    return starts_with_nocase(uri, "data:");
}

/* A media type "type/subtype": two non-empty tokens around one '/'. */
static bool valid_media_type(const char *s, size_t n)
{
    size_t slash = n;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '/' && slash == n)
            slash = i;
        else if (!is_token_char((unsigned char)s[i]))
            return false;
    }
    return slash > 0 && slash < n - 1;
}

mn_status mni_data_uri_decode(mn_arena *arena, const char *uri, mn_bytes *out, const char **media_type,
                              const char *path, mn_error *err)
{
    *media_type = NULL;
    const char *header = uri + 5; /* after "data:" */
    const char *comma = strchr(header, ',');
    if (!comma)
        return mni_error_set(err, MN_URI, path, -1,
                             "%s: data: URI has no ',' between its header and its data", path);
    /* Header: [mediatype] *(";" attribute "=" value) [";base64"]. */
    bool base64 = false;
    const char *p = header;
    size_t index = 0;
    while (p <= comma) {
        const char *end = p;
        while (end < comma && *end != ';')
            end++;
        size_t n = (size_t)(end - p);
        if (index == 0) {
            if (n > 0 && !valid_media_type(p, n))
                return mni_error_set(err, MN_URI, path, -1,
                                     "%s: data: URI media type \"%.*s\" is not of the form type/subtype",
                                     path, (int)(n > 64 ? 64 : n), p);
            if (n > 0 && !(*media_type = mni_arena_strndup(arena, p, n)))
                return mni_error_set(err, MN_OUT_OF_MEMORY, path, -1, NULL);
        } else if (base64) {
            return mni_error_set(err, MN_URI, path, -1,
                                 "%s: data: URI has parameters after \";base64\", which must come last",
                                 path);
        } else if (equals_nocase(p, n, "base64")) {
            base64 = true;
        } else if (n == 0) {
            return mni_error_set(err, MN_URI, path, -1,
                                 "%s: data: URI header has an empty parameter (\";;\" or a trailing ';')",
                                 path);
        } else {
            const char *eq = memchr(p, '=', n);
            if (!eq || eq == p || eq == end - 1)
                return mni_error_set(err, MN_URI, path, -1,
                                     "%s: data: URI parameter \"%.*s\" is not of the form name=value",
                                     path, (int)(n > 64 ? 64 : n), p);
        }
        index++;
        p = end + 1;
    }
    const char *payload = comma + 1;
    size_t payload_len = strlen(payload);
    if (base64)
        return base64_decode(arena, payload, payload_len, out, path, err);
    /* A non-base64 data: URI carries percent-encoded bytes; %00 is legal here. */
    size_t total;
    uint8_t *dst = mni_checked_add(payload_len, 1, &total) ? mni_arena_alloc(arena, total, 16) : NULL;
    if (!dst)
        return mni_error_set(err, MN_OUT_OF_MEMORY, path, -1, NULL);
    size_t size;
    mn_status st = unescape(payload, payload_len, true, dst, &size, path, err);
    if (st != MN_OK)
        return st;
    out->data = dst;
    out->size = size;
    return MN_OK;
}

/* ---- relative URIs ----------------------------------------------------------------- */

/* Length of a URI scheme ("http" in "http://…"), 0 when there is none. */
static size_t scheme_length(const char *uri)
{
    if (!((*uri >= 'a' && *uri <= 'z') || (*uri >= 'A' && *uri <= 'Z')))
        return 0;
    size_t i = 1;
    while ((uri[i] >= 'a' && uri[i] <= 'z') || (uri[i] >= 'A' && uri[i] <= 'Z') ||
           (uri[i] >= '0' && uri[i] <= '9') || uri[i] == '+' || uri[i] == '-' || uri[i] == '.')
        i++;
    return uri[i] == ':' ? i : 0;
}

mn_status mni_uri_to_path(mn_arena *arena, const char *uri, bool wide, char **out, const char *path,
                          mn_error *err)
{
    if (uri[0] == '\0')
        return mni_error_set(err, MN_URI, path, -1, "%s: the URI is empty", path);
    size_t scheme = scheme_length(uri);
    /* One letter before ':' is a Windows drive ("C:/x"), an absolute path; more is a scheme. */
    if (scheme > 1)
        return mni_error_set(err, MN_URI, path, -1,
                             "%s: URI \"%.64s\" has the scheme \"%.*s:\"; only data: URIs and relative "
                             "file paths can be read",
                             path, uri, (int)(scheme > 16 ? 16 : scheme), uri);
    /* Strip a query or fragment: they never name part of a file. */
    size_t n = strcspn(uri, "?#");
    char *decoded = NULL;
    mn_status st = percent_decode(arena, uri, n, &decoded, NULL, path, err);
    if (st != MN_OK)
        return st;
    st = mni_name_check(decoded, wide, path, err);
    if (st != MN_OK)
        return st;
    *out = decoded;
    return MN_OK;
}
