/*
 * MTL text → materials.
 *
 * A library is a list of `newmtl NAME` blocks; the keys read are the ones
 * the OBJ loader has a use for (Kd, Ka, Ks, Ns, d, Tr, Ke, map_Kd).  MTL
 * files in the wild carry many more (illum, Ni, PBR extensions, every map_
 * kind); those are skipped quietly, and only a key nobody defined gets a
 * warning, once per keyword.  A key before any newmtl has no material to
 * go to: a warning, not an error, as the rest of the library is still good.
 * A bad number is an error with the line, as in OBJ.
 *
 * Speed is not a concern here (libraries are small), so lines are found
 * with memchr and each statement parsed on its own.
 */
#include "obj/internal.h"

#include <string.h>

void mni_obj_material_default(mn_obj_material *m, const char *name)
{
    memset(m, 0, sizeof *m);
    m->name = name;
    m->diffuse[0] = m->diffuse[1] = m->diffuse[2] = 0.7f;
    m->opacity = 1.0f;
}

typedef struct mtl_parser {
    const mn_allocator *allocator;
    mn_arena *arena;
    mn_obj_vec *materials;
    mn_obj_warnings *warnings;
    mn_obj_names names;
    mn_error *err;
    mn_obj_where where;
    uint32_t current;        /* index of the material being defined, MN_NONE before newmtl */
    bool has_d;              /* the current material had a `d`: Tr no longer changes opacity */
} mtl_parser;

static mn_obj_material *current(mtl_parser *ps)
{
    return (mn_obj_material *)ps->materials->data + ps->current;
}

static bool keyword_is(const char *k, size_t len, const char *name)
{
    return strlen(name) == len && memcmp(k, name, len) == 0;
}

/* Keys of the MTL format (and common extensions) that the reader has no use for. */
static bool known_ignored(const char *k, size_t len)
{
    static const char *const keys[] = {"illum", "Ni", "Tf", "sharpness", "Pr", "Pm", "Ps", "Pc",
                                       "Pcr", "aniso", "anisor", "bump", "disp", "decal", "refl",
                                       "norm", "Km", "Ns_map"};
    if (len > 4 && memcmp(k, "map_", 4) == 0)
        return true;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (keyword_is(k, len, keys[i]))
            return true;
    return false;
}

/* At most 20 characters of the token at p, for messages. */
static int shown(const char *p)
{
    int n = 0;
    while (n < 20 && !mni_obj_is_blank(p[n]) && p[n] != '\n')
        n++;
    return n;
}

/* After the numbers: only blanks or a comment may remain. */
static mn_status expect_end(mtl_parser *ps, const char *key, const char *p)
{
    p = mni_obj_skip_blanks(p);
    if (*p != '\n' && *p != '#')
        return mni_obj_fail(ps->err, MN_INVALID_VALUE, &ps->where, key, p,
                            "unexpected text after the value");
    return MN_OK;
}

/* Read up to `max` numbers; *count says how many there were. */
static mn_status numbers(mtl_parser *ps, const char *key, const char *p, float *out, int max,
                         int *count, const char **rest)
{
    *count = 0;
    for (;;) {
        p = mni_obj_skip_blanks(p);
        if (*p == '\n' || *p == '#' || *count == max)
            break;
        const char *q = mn_obj_parse_float(p, &out[*count]);
        if (!q || !mni_obj_ends_token(*q))
            return mni_obj_fail(ps->err, MN_INVALID_VALUE, &ps->where, key, p,
                                "\"%.*s\" is not a number", shown(p), p);
        if (!isfinite(out[*count]))
            return mni_obj_fail(ps->err, MN_NOT_FINITE, &ps->where, key, p,
                                "number is beyond the float range");
        (*count)++;
        p = q;
    }
    *rest = p;
    return MN_OK;
}

static mn_status colour(mtl_parser *ps, const char *key, size_t key_len, const char *p, float rgb[3],
                        bool *present)
{
    const char *v = mni_obj_skip_blanks(p);
    if ((strncmp(v, "spectral", 8) == 0 || strncmp(v, "xyz", 3) == 0)) {
        return mni_obj_warn(ps->warnings, MN_INVALID_VALUE, key,
                            "line %d: %.*s: spectral and CIEXYZ colours are not read; ignored",
                            ps->where.line, (int)key_len, key)
                   ? MN_OK
                   : mni_oom(ps->err, NULL);
    }
    float c[3];
    int n;
    const char *rest;
    mn_status st = numbers(ps, key, p, c, 3, &n, &rest);
    if (st != MN_OK)
        return st;
    if (n != 1 && n != 3)
        return mni_obj_fail(ps->err, MN_INVALID_VALUE, &ps->where, key, rest,
                            "needs r g b (or one grey value), found %d number%s", n, n == 1 ? "" : "s");
    if ((st = expect_end(ps, key, rest)) != MN_OK)
        return st;
    rgb[0] = c[0];
    rgb[1] = n == 3 ? c[1] : c[0];
    rgb[2] = n == 3 ? c[2] : c[0];
    *present = true;
    return MN_OK;
}

static mn_status scalar(mtl_parser *ps, const char *key, const char *p, float *out)
{
    int n;
    const char *rest;
    mn_status st = numbers(ps, key, p, out, 1, &n, &rest);
    if (st != MN_OK)
        return st;
    if (n != 1)
        return mni_obj_fail(ps->err, MN_INVALID_VALUE, &ps->where, key, rest, "needs one number");
    return expect_end(ps, key, rest);
}

/* The number arguments each map option takes; -o -s -t take one to three. */
static int option_args(const char *t, size_t len, bool *numeric_1_to_3)
{
    static const char *const one[] = {"-blendu", "-blendv", "-cc", "-clamp", "-bm",
                                      "-boost",  "-texres", "-imfchan", "-type"};
    *numeric_1_to_3 = false;
    if (keyword_is(t, len, "-o") || keyword_is(t, len, "-s") || keyword_is(t, len, "-t")) {
        *numeric_1_to_3 = true;
        return 3;
    }
    if (keyword_is(t, len, "-mm"))
        return 2;
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
        if (keyword_is(t, len, one[i]))
            return 1;
    return -1;
}

static const char *token_end(const char *p)
{
    while (!mni_obj_is_blank(*p) && *p != '\n')
        p++;
    return p;
}

/* map_Kd's file: the text after the leading options (documented in obj.h). */
static const char *map_file(const char *p)
{
    for (;;) {
        p = mni_obj_skip_blanks(p);
        if (*p != '-')
            return p;
        const char *e = token_end(p);
        bool numeric;
        int args = option_args(p, (size_t)(e - p), &numeric);
        if (args < 0)
            return p; /* not an option: a file name that starts with '-' */
        p = e;
        for (int a = 0; a < args; a++) {
            const char *t = mni_obj_skip_blanks(p);
            if (*t == '\n')
                return t;
            float ignored;
            if (numeric) {
                const char *q = mn_obj_parse_float(t, &ignored);
                if (!q || !mni_obj_ends_token(*q))
                    break;
            }
            p = token_end(t);
        }
    }
}

static mn_status out_of_memory(mtl_parser *ps)
{
    return mni_oom(ps->err, "reading MTL");
}

static mn_status newmtl(mtl_parser *ps, const char *p)
{
    p = mni_obj_skip_blanks(p);
    size_t len = mni_obj_rest_length(p);
    if (len == 0)
        return mni_obj_fail(ps->err, MN_INVALID_VALUE, &ps->where, "newmtl", p, "needs a material name");
    mn_obj_name_slot *slot = mni_obj_names_add(&ps->names, p, len);
    if (!slot)
        return out_of_memory(ps);
    ps->has_d = false;
    if (slot->value != MN_NONE) {
        ps->current = slot->value;
        mni_obj_material_default(current(ps), slot->name);
        current(ps)->defined = true;
        return mni_obj_warn(ps->warnings, MN_INVALID_VALUE, "newmtl",
                            "line %d: material \"%s\" is defined again; the later definition is used",
                            ps->where.line, slot->name)
                   ? MN_OK
                   : out_of_memory(ps);
    }
    size_t index = ps->materials->size / sizeof(mn_obj_material);
    if (index >= MN_NONE - 1)
        return mni_obj_fail(ps->err, MN_OVERFLOW, &ps->where, "newmtl", p, "too many materials");
    if (!mni_obj_vec_reserve(ps->allocator, ps->materials, sizeof(mn_obj_material)))
        return out_of_memory(ps);
    ps->materials->size += sizeof(mn_obj_material);
    slot->value = (uint32_t)index;
    ps->current = (uint32_t)index;
    mni_obj_material_default(current(ps), slot->name);
    current(ps)->defined = true;
    return MN_OK;
}

static mn_status map_kd(mtl_parser *ps, const char *p)
{
    mn_obj_material *m = current(ps);
    p = mni_obj_skip_blanks(p);
    size_t len = mni_obj_rest_length(p);
    if (len == 0)
        return mni_obj_warn(ps->warnings, MN_INVALID_VALUE, "map_Kd",
                            "line %d: map_Kd names no file; ignored", ps->where.line)
                   ? MN_OK
                   : out_of_memory(ps);
    char *written = mni_arena_strndup(ps->arena, p, len);
    if (!written)
        return out_of_memory(ps);
    const char *file = map_file(p);
    size_t file_len = mni_obj_rest_length(file);
    m->map_kd = written;
    m->map_kd_file = file_len ? written + (file - p) : NULL;
    return MN_OK;
}

static mn_status statement(mtl_parser *ps, const char *p)
{
    p = mni_obj_skip_blanks(p);
    if (*p == '\n' || *p == '#')
        return MN_OK;
    const char *k = p;
    const char *ke = token_end(p);
    size_t kl = (size_t)(ke - k);
    if (keyword_is(k, kl, "newmtl"))
        return newmtl(ps, ke);
    bool read = keyword_is(k, kl, "Kd") || keyword_is(k, kl, "Ka") || keyword_is(k, kl, "Ks") ||
                keyword_is(k, kl, "Ke") || keyword_is(k, kl, "Ns") || keyword_is(k, kl, "d") ||
                keyword_is(k, kl, "Tr") || keyword_is(k, kl, "map_Kd");
    if (!read)
        return known_ignored(k, kl) || mni_obj_warn_unknown(ps->warnings, k, kl, ps->where.line,
                                                          "unknown MTL statement")
                   ? MN_OK
                   : out_of_memory(ps);
    if (ps->current == MN_NONE)
        return mni_obj_warn(ps->warnings, MN_INVALID_VALUE, "", "line %d: %.*s before any newmtl; ignored",
                            ps->where.line, (int)kl, k)
                   ? MN_OK
                   : out_of_memory(ps);
    char key[8];
    memcpy(key, k, kl);
    key[kl] = '\0';
    mn_obj_material *m = current(ps);
    switch (k[0]) {
    case 'K':
        return colour(ps, key, kl, ke,
                      k[1] == 'd' ? m->diffuse : k[1] == 'a' ? m->ambient : k[1] == 's' ? m->specular : m->emissive,
                      k[1] == 'd' ? &m->has_diffuse : k[1] == 'a' ? &m->has_ambient
                                  : k[1] == 's' ? &m->has_specular : &m->has_emissive);
    case 'N': {
        mn_status st = scalar(ps, key, ke, &m->shininess);
        m->has_shininess = st == MN_OK;
        return st;
    }
    case 'd': {
        const char *v = mni_obj_skip_blanks(ke);
        if (strncmp(v, "-halo", 5) == 0 && mni_obj_is_blank(v[5]))
            v += 5;
        float d;
        mn_status st = scalar(ps, key, v, &d);
        if (st == MN_OK) {
            m->opacity = d;
            m->has_opacity = true;
            ps->has_d = true;
        }
        return st;
    }
    case 'T': {
        float tr;
        mn_status st = scalar(ps, key, ke, &tr);
        if (st == MN_OK && !ps->has_d) {
            m->opacity = 1.0f - tr;
            m->has_opacity = true;
        }
        return st;
    }
    default:
        return map_kd(ps, ke);
    }
}

/* Does the line [p, nl) end with a continuing backslash? */
static bool continued(const char *p, const char *nl)
{
    if (nl > p && nl[-1] == '\r')
        nl--;
    return nl > p && nl[-1] == '\\';
}

mn_status mni_mtl_parse(const char *text, size_t size, const mn_allocator *allocator, mn_arena *arena,
                        mn_obj_vec *materials, mn_obj_warnings *warnings, mn_error *err)
{
    mtl_parser ps = {.allocator = allocator, .arena = arena, .materials = materials,
                     .warnings = warnings, .err = err, .current = MN_NONE};
    mni_obj_names_init(&ps.names, arena);
    mn_obj_vec scratch = {0};
    const char *p = text, *end = text + size;
    int line = 1;
    mn_status st = MN_OK;
    while (p < end && st == MN_OK) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *line_text = p, *next = nl ? nl + 1 : end;
        int lines = 1;
        if (!nl || continued(p, nl)) {
            if (!mni_obj_join_line(allocator, &scratch, p, end, &next, &lines)) {
                st = out_of_memory(&ps);
                break;
            }
            line_text = scratch.data;
        }
        ps.where.line = line;
        ps.where.text = line_text;
        ps.where.offset = p - text;
        st = statement(&ps, line_text);
        line = lines > INT32_MAX - line ? INT32_MAX : line + lines;
        p = next;
    }
    mni_obj_vec_free(allocator, &scratch);
    mni_obj_names_release(&ps.names);
    return st;
}

/* ---- mn_mtl_read_memory -------------------------------------------------------------- */

struct mn_mtl_private {
    mn_arena arena;
};

typedef struct mtl_holder {
    mn_mtl_library library;
    struct mn_mtl_private priv;
} mtl_holder;

static void holder_free(mtl_holder *h)
{
    mn_allocator allocator = h->priv.arena.allocator;
    mni_arena_release(&h->priv.arena);
    mni_free(&allocator, h, sizeof *h);
}

mn_status mn_mtl_read_memory(const void *text, size_t size, const mn_obj_options *options,
                             mn_mtl_library **out_library, mn_error *err)
{
    if (out_library)
        *out_library = NULL;
    if (!out_library || (!text && size))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "mn_mtl_read_memory needs text (or size 0) and out_library");
    const mn_allocator *allocator = options ? &options->allocator : NULL;
    mtl_holder *h = mni_alloc(allocator, sizeof *h);
    if (!h)
        return mni_oom(err, "reading MTL");
    memset(h, 0, sizeof *h);
    mni_arena_init(&h->priv.arena, allocator);
    mn_obj_warnings warnings;
    mni_obj_warnings_init(&warnings, &h->priv.arena);
    mn_obj_vec materials = {0};
    mn_status st = mni_mtl_parse(size ? text : "", size, allocator, &h->priv.arena, &materials,
                                 &warnings, err);
    if (st == MN_OK && materials.size) {
        mn_obj_material *copy = mni_arena_alloc(&h->priv.arena, materials.size, 8);
        if (copy) {
            memcpy(copy, materials.data, materials.size);
            h->library.materials = copy;
            h->library.material_count = (uint32_t)(materials.size / sizeof *copy);
        } else {
            st = mni_oom(err, "reading MTL");
        }
    }
    mni_obj_vec_free(allocator, &materials);
    if (st == MN_OK && !mni_obj_warnings_finish(&warnings, &h->library.warnings, &h->library.warning_count))
        st = mni_oom(err, "reading MTL");
    if (st != MN_OK) {
        holder_free(h);
        return st;
    }
    h->library.priv_ = &h->priv;
    mni_error_clear(err);
    *out_library = &h->library;
    return MN_OK;
}

void mn_mtl_free(mn_mtl_library *library)
{
    if (library)
        holder_free((mtl_holder *)(void *)library);
}
