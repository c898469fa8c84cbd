/*
 * ARKit-52 face weights into an expression head's control vector
 * (docs/formats.md, "ARKit-52 maps"): the channel order, the table map
 * (a caller's JSON table resolved once to a flat array of slot terms) and
 * the fitted map (a package's face.arkit: a linear table A, pair correctives
 * C and eyeLook* gaze turns).  Building parses and checks everything; a frame
 * is a loop over arrays made here, allocating nothing.
 */
#include <marionette/head/arkit.h>

#include "core/core.h"
#include "io/io.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- the channels ------------------------------------------------------------------ */

static const char *const channel_names[MN_ARKIT_CHANNEL_COUNT] = {
    "eyeBlinkLeft", "eyeLookDownLeft", "eyeLookInLeft", "eyeLookOutLeft", "eyeLookUpLeft",
    "eyeSquintLeft", "eyeWideLeft", "eyeBlinkRight", "eyeLookDownRight", "eyeLookInRight",
    "eyeLookOutRight", "eyeLookUpRight", "eyeSquintRight", "eyeWideRight", "jawForward",
    "jawRight", "jawLeft", "jawOpen", "mouthClose", "mouthFunnel", "mouthPucker", "mouthRight",
    "mouthLeft", "mouthSmileLeft", "mouthSmileRight", "mouthFrownLeft", "mouthFrownRight",
    "mouthDimpleLeft", "mouthDimpleRight", "mouthStretchLeft", "mouthStretchRight",
    "mouthRollLower", "mouthRollUpper", "mouthShrugLower", "mouthShrugUpper", "mouthPressLeft",
    "mouthPressRight", "mouthLowerDownLeft", "mouthLowerDownRight", "mouthUpperUpLeft",
    "mouthUpperUpRight", "browDownLeft", "browDownRight", "browInnerUp", "browOuterUpLeft",
    "browOuterUpRight", "cheekPuff", "cheekSquintLeft", "cheekSquintRight", "noseSneerLeft",
    "noseSneerRight", "tongueOut"};

/* The eyeLook* channels the table map's gaze reads. */
enum {
    LOOK_DOWN_L = 1, LOOK_IN_L = 2, LOOK_OUT_L = 3, LOOK_UP_L = 4,
    LOOK_DOWN_R = 8, LOOK_IN_R = 9, LOOK_OUT_R = 10, LOOK_UP_R = 11
};

const char *mn_arkit_channel_name(uint32_t index)
{
    return index < MN_ARKIT_CHANNEL_COUNT ? channel_names[index] : NULL;
}

int32_t mn_arkit_channel_index(const char *name)
{
    if (!name)
        return -1;
    for (uint32_t c = 0; c < MN_ARKIT_CHANNEL_COUNT; c++) {
        const char *a = channel_names[c], *b = name;
        while (*a && tolower((unsigned char)*a) == tolower((unsigned char)*b)) {
            a++;
            b++;
        }
        if (*a == '\0' && *b == '\0')
            return (int32_t)c;
    }
    return -1;
}

/* ---- the map object ------------------------------------------------------------------ */

typedef enum map_kind { MAP_TABLE, MAP_FITTED } map_kind;

/* A fitted gaze term: weight of `channel`, clamped to [0, 1], times radians into slot. */
typedef struct gaze_term {
    uint32_t channel;
    uint32_t slot;             /* 0..3 within the gaze block */
    float radians;             /* head_ext's sign: the table's pitch already negated */
} gaze_term;

struct mn_arkit_map_private {
    map_kind kind;
    uint32_t expr_dim;
    /* table */
    uint32_t term_count;
    const uint32_t *term_channel, *term_slot;
    const float *term_gain;
    float clamp;
    bool gaze;
    /* fitted */
    uint32_t rows, pairs, coeffs, gaze_count;
    const int32_t *row_channel;        /* -1: a dropped channel, weight 0 */
    const uint32_t *pair_rows;         /* 2 a pair */
    const float *a, *c;                /* rows × coeffs, pairs × coeffs */
    const gaze_term *gaze_terms;
};

/* The map, its private part and the arena owning everything else: one free. */
typedef struct map_holder {
    mn_arkit_map map;
    struct mn_arkit_map_private priv;
    mn_arena arena;
    /* drops grow while building; they live in the arena */
    mn_arkit_drop *drops;
    uint32_t drop_capacity;
} map_holder;

static mn_status new_holder(const mn_allocator *allocator, const mn_aosrig_head_ext *layout,
                            map_kind kind, map_holder **out, mn_error *err)
{
    mn_allocator a = allocator ? *allocator : (mn_allocator){0};
    map_holder *h = mni_alloc(&a, sizeof *h);
    if (!h)
        return mni_oom(err, "ARKit map");
    memset(h, 0, sizeof *h);
    mni_arena_init(&h->arena, &a);
    h->map.dim = layout->dim;
    h->map.priv_ = &h->priv;
    h->priv.kind = kind;
    h->priv.expr_dim = layout->expr_dim;
    *out = h;
    return MN_OK;
}

void mn_arkit_map_free(mn_arkit_map *map)
{
    if (!map)
        return;
    map_holder *h = (map_holder *)(void *)map;
    mni_arena_release_holder(&h->arena, h, sizeof *h);
}

/*
 * Room for `most` drops, taken once where the most a document can drop is
 * known: doubling in the arena would leave every smaller array behind, up to
 * 64 bytes a drop where 16 are used.
 */
static mn_status reserve_drops(map_holder *h, size_t most, mn_error *err)
{
    if (most == 0 || most > UINT32_MAX)
        return MN_OK; /* none, or so many that drop() grows as it goes */
    h->drops = mni_arena_calloc(&h->arena, most, sizeof *h->drops, 8);
    if (!h->drops)
        return mni_oom(err, "ARKit map");
    h->drop_capacity = (uint32_t)most;
    h->map.drops = h->drops;
    return MN_OK;
}

/* Report `name` (printf-formatted) as dropped with `code`. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static mn_status drop(map_holder *h, mn_error *err, mn_status code, const char *fmt, ...)
{
    if (h->map.drop_count == h->drop_capacity) {
        uint32_t cap = h->drop_capacity ? 2 * h->drop_capacity : 16;
        mn_arkit_drop *grown = mni_arena_calloc(&h->arena, cap, sizeof *grown, 8);
        if (!grown || cap < h->drop_capacity)
            return mni_oom(err, "ARKit map");
        if (h->map.drop_count)
            memcpy(grown, h->drops, h->map.drop_count * sizeof *grown);
        h->drops = grown;
        h->drop_capacity = cap;
        h->map.drops = grown;
    }
    char name[160];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof name ? (size_t)n : sizeof name - 1;
    char *copy = mni_arena_strndup(&h->arena, name, len);
    if (!copy)
        return mni_oom(err, "ARKit map");
    h->drops[h->map.drop_count++] = (mn_arkit_drop){copy, code};
    return MN_OK;
}

static mn_status parse_object(const char *text, size_t size, const char *what, json_t **root,
                              mn_error *err)
{
    json_error_t jerr;
    *root = json_loadb(text, size, 0, &jerr);
    if (!*root) {
        mn_status st = mni_error_set(err, MN_JSON_SYNTAX, "", (int64_t)jerr.position,
                                     "%s: JSON syntax error at line %d, column %d: %s", what,
                                     jerr.line, jerr.column, jerr.text);
        if (err) {
            err->line = jerr.line;
            err->column = jerr.column;
        }
        return st;
    }
    if (!json_is_object(*root))
        return mni_error_set(err, MN_JSON_TYPE, "", 0, "%s: the document is %s, not an object",
                             what, mni_json_type_name(*root));
    return MN_OK;
}

/* ---- the table map -------------------------------------------------------------------- */

/* The layout's regions sorted by name (in `arena`), so that a term finds its region in log n. */
static bool sort_regions(mn_arena *arena, const mn_aosrig_head_ext *layout, mni_names_sorted *out)
{
    uint32_t n = layout->region_count;
    const char **names = mni_arena_calloc(arena, n ? n : 1, sizeof *names, _Alignof(char *));
    if (!names)
        return false;
    for (uint32_t r = 0; r < n; r++)
        names[r] = layout->regions[r].name;
    return mni_names_sort(out, arena, names, n);
}

static const mn_aosrig_region *find_region(const mn_aosrig_head_ext *layout,
                                           const mni_names_sorted *regions, const char *name)
{
    uint32_t r = mni_names_find(regions, name);
    return r != MN_NONE ? &layout->regions[r] : NULL;
}

/* A JSON number that is an integer (3 or 3.0) in [0, count): *out; false otherwise. */
static bool integer_below(const json_t *v, uint32_t count, uint32_t *out)
{
    double d;
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        if (i < 0 || (uint64_t)i >= count)
            return false;
        *out = (uint32_t)i;
        return true;
    }
    if (!json_is_real(v))
        return false;
    d = json_real_value(v);
    if (!(d >= 0.0) || d >= (double)count || d != floor(d))
        return false;
    *out = (uint32_t)d;
    return true;
}

/*
 * One term of key `key`: its slot and gain, or a drop.  *kept says which.
 * Only an allocation failure is an error.
 */
static mn_status table_term(map_holder *h, const mn_aosrig_head_ext *layout,
                            const mni_names_sorted *regions, const char *key, size_t i,
                            const json_t *term, uint32_t *slot, float *gain, bool *kept,
                            mn_error *err)
{
    *kept = false;
    const json_t *region = json_object_get(term, "region");
    const json_t *index = json_object_get(term, "index");
    const json_t *g = json_object_get(term, "gain");
    if (!json_is_object(term) || !json_is_string(region) || !json_is_number(index) ||
        !json_is_number(g))
        return drop(h, err, MN_JSON_TYPE, "%s[%zu]", key, i);
    const mn_aosrig_region *r = find_region(layout, regions, json_string_value(region));
    if (!r)
        return drop(h, err, MN_INVALID_VALUE, "%s[%zu]", key, i);
    uint32_t k;
    if (!integer_below(index, r->count, &k))
        return drop(h, err, MN_INDEX_RANGE, "%s[%zu]", key, i);
    double gd = json_number_value(g);
    if (!isfinite(gd) || fabs(gd) > 3.4028234663852886e38)
        return drop(h, err, MN_NOT_FINITE, "%s[%zu]", key, i);
    *slot = r->start + k;
    *gain = (float)gd;
    *kept = true;
    return MN_OK;
}

static mn_status build_terms(map_holder *h, const mn_aosrig_head_ext *layout,
                             const mni_names_sorted *regions, json_t *root, mn_error *err)
{
    /* Count the terms that could be kept, to size the arrays once. */
    size_t upper = 0;
    const char *key;
    json_t *value;
    json_object_foreach(root, key, value) {
        if (json_is_array(value))
            upper += json_array_size(value);
    }
    if (upper > UINT32_MAX)
        return mni_fail(err, MN_OVERFLOW, "ARKit table: %zu terms", upper);
    /* At most every key and every term is dropped. */
    mn_status reserved = reserve_drops(h, json_object_size(root) + upper, err);
    if (reserved != MN_OK)
        return reserved;
    uint32_t *channel = mni_arena_calloc(&h->arena, upper, sizeof *channel, 4);
    uint32_t *slot = mni_arena_calloc(&h->arena, upper, sizeof *slot, 4);
    float *gain = mni_arena_calloc(&h->arena, upper, sizeof *gain, 4);
    if (upper > 0 && (!channel || !slot || !gain))
        return mni_oom(err, "ARKit table");
    uint32_t n = 0;
    json_object_foreach(root, key, value) {
        int32_t c = mn_arkit_channel_index(key);
        mn_status st = MN_OK;
        if (c < 0)
            st = drop(h, err, MN_INVALID_VALUE, "%s", key);
        else if (!json_is_array(value))
            st = drop(h, err, MN_JSON_TYPE, "%s", key);
        for (size_t i = 0; st == MN_OK && c >= 0 && json_is_array(value) &&
                           i < json_array_size(value); i++) {
            bool kept;
            st = table_term(h, layout, regions, key, i, json_array_get(value, i), &slot[n],
                            &gain[n], &kept, err);
            if (kept)
                channel[n++] = (uint32_t)c;
        }
        if (st != MN_OK)
            return st;
    }
    h->priv.term_channel = channel;
    h->priv.term_slot = slot;
    h->priv.term_gain = gain;
    h->priv.term_count = n;
    h->map.terms = n;
    return MN_OK;
}

static mn_status build_table(map_holder *h, const mn_aosrig_head_ext *layout, json_t *root,
                             mn_error *err)
{
    mn_arena scratch;
    mni_arena_init(&scratch, &h->arena.allocator);
    mni_names_sorted regions;
    mn_status st = sort_regions(&scratch, layout, &regions) ? build_terms(h, layout, &regions, root, err)
                                                            : mni_oom(err, "ARKit table");
    mni_arena_release(&scratch);
    return st;
}

mn_status mn_arkit_table_map_create(const mn_aosrig_head_ext *layout, const char *json,
                                    size_t json_size, const mn_arkit_table_options *options,
                                    mn_arkit_map **out, mn_error *err)
{
    if (out)
        *out = NULL;
    if (!layout || !json || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "ARKit table: NULL layout, table or out");
    mn_arkit_table_options o = options ? *options : (mn_arkit_table_options){0};
    if (!(o.clamp >= 0.0f))
        return mni_fail(err, MN_INVALID_ARGUMENT, "ARKit table: clamp %g is negative or NaN",
                        (double)o.clamp);
    json_t *root = NULL;
    mn_status st = parse_object(json, json_size, "ARKit table", &root, err);
    map_holder *h = NULL;
    if (st == MN_OK)
        st = new_holder(&o.allocator, layout, MAP_TABLE, &h, err);
    if (st == MN_OK) {
        h->priv.clamp = o.clamp > 0.0f ? o.clamp : 4.0f;
        h->priv.gaze = !o.no_gaze;
        st = build_table(h, layout, root, err);
    }
    json_decref(root);
    if (st != MN_OK) {
        mn_arkit_map_free(h ? &h->map : NULL);
        return st;
    }
    *out = &h->map;
    return MN_OK;
}

/* ---- the fitted map ---------------------------------------------------------------- */

/* An integer member in [min, max] (required), or the JSON error. */
static mn_status fitted_uint(mn_json *j, json_t *obj, const char *key, bool required,
                             uint64_t max, uint64_t *out)
{
    return mni_json_uint(j, obj, key, required, 0, max, out);
}

static mn_status fitted_channels(map_holder *h, mn_json *j, json_t *root, mn_error *err)
{
    json_t *channels;
    mn_status st = mni_json_array(j, root, "channels", true, &channels);
    if (st != MN_OK)
        return st;
    size_t rows = json_array_size(channels);
    if (rows > UINT32_MAX)
        return mni_json_fail(j, MN_OVERFLOW, "channels", "%zu channels", rows);
    int32_t *row_channel = mni_arena_calloc(&h->arena, rows, sizeof *row_channel, 4);
    if (rows > 0 && !row_channel)
        return mni_oom(err, "face table");
    size_t mark = mni_json_push_key(j, "channels");
    for (size_t r = 0; r < rows && st == MN_OK; r++) {
        json_t *name = json_array_get(channels, r);
        if (!json_is_string(name)) {
            size_t m2 = mni_json_push_index(j, r);
            st = mni_json_fail(j, MN_JSON_TYPE, NULL, "expected a channel name, found %s",
                               mni_json_type_name(name));
            mni_json_pop(j, m2);
            break;
        }
        row_channel[r] = mn_arkit_channel_index(json_string_value(name));
        if (row_channel[r] < 0)
            st = drop(h, err, MN_INVALID_VALUE, "%s", json_string_value(name));
    }
    mni_json_pop(j, mark);
    h->priv.rows = (uint32_t)rows;
    h->priv.row_channel = row_channel;
    return st;
}

static mn_status fitted_pairs(map_holder *h, mn_json *j, json_t *root, mn_error *err)
{
    json_t *pairs;
    mn_status st = mni_json_array(j, root, "pairs", false, &pairs);
    if (st != MN_OK || !pairs)
        return st;
    size_t n = json_array_size(pairs);
    if (n > UINT32_MAX / 2)
        return mni_json_fail(j, MN_OVERFLOW, "pairs", "%zu pairs", n);
    uint32_t *rows = mni_arena_calloc(&h->arena, 2 * n, sizeof *rows, 4);
    if (n > 0 && !rows)
        return mni_oom(err, "face table");
    size_t mark = mni_json_push_key(j, "pairs");
    for (size_t k = 0; k < n && st == MN_OK; k++) {
        json_t *pair = json_array_get(pairs, k);
        size_t m2 = mni_json_push_index(j, k);
        if (!json_is_array(pair) || json_array_size(pair) != 2)
            st = mni_json_fail(j, MN_JSON_TYPE, NULL, "expected [i, j], found %s",
                               mni_json_type_name(pair));
        for (size_t e = 0; e < 2 && st == MN_OK; e++)
            if (!integer_below(json_array_get(pair, e), h->priv.rows, &rows[2 * k + e]))
                st = mni_json_fail(j, MN_INDEX_RANGE, NULL,
                                   "element %zu is not a channel index below %u", e, h->priv.rows);
        mni_json_pop(j, m2);
    }
    mni_json_pop(j, mark);
    h->priv.pairs = (uint32_t)n;
    h->priv.pair_rows = rows;
    return st;
}

static mn_status fitted_gaze(map_holder *h, mn_json *j, json_t *root, mn_error *err)
{
    static const char *const axes[] = {"pitch", "yaw"};
    static const char *const eyes[] = {"left", "right"};
    json_t *gaze;
    mn_status st = mni_json_object(j, root, "gaze", false, &gaze);
    if (st != MN_OK || !gaze)
        return st;
    size_t n = json_object_size(gaze);
    gaze_term *terms = mni_arena_calloc(&h->arena, n, sizeof *terms, 4);
    if (n > 0 && !terms)
        return mni_oom(err, "face table");
    size_t mark = mni_json_push_key(j, "gaze"), kept = 0;
    const char *key;
    json_t *entry;
    json_object_foreach(gaze, key, entry) {
        size_t m2 = mni_json_push_key(j, key);
        int axis = 0, eye = 0;
        float radians = 0.0f;
        if (!json_is_object(entry))
            st = mni_json_fail(j, MN_JSON_TYPE, NULL, "expected an object, found %s",
                               mni_json_type_name(entry));
        if (st == MN_OK)
            st = mni_json_enum(j, entry, "axis", true, axes, 2, "an axis", &axis);
        if (st == MN_OK)
            st = mni_json_enum(j, entry, "eye", true, eyes, 2, "an eye", &eye);
        if (st == MN_OK)
            st = mni_json_float(j, entry, "radians", true, &radians);
        mni_json_pop(j, m2);
        if (st != MN_OK)
            break;
        int32_t c = mn_arkit_channel_index(key);
        if (c < 0) {
            st = drop(h, err, MN_INVALID_VALUE, "gaze.%s", key);
            if (st != MN_OK)
                break;
            continue;
        }
        /* The table's pitch turns the eye up; head_ext's pitch > 0 looks down. */
        terms[kept++] = (gaze_term){(uint32_t)c, (uint32_t)(2 * eye + axis),
                                    axis == 0 ? -radians : radians};
    }
    mni_json_pop(j, mark);
    h->priv.gaze_terms = terms;
    h->priv.gaze_count = (uint32_t)kept;
    return st;
}

/* Optional members that are only described: strings (src, sha256) and blinks (names). */
static mn_status fitted_descriptive(mn_json *j, json_t *root)
{
    const char *s;
    size_t len;
    mn_status st = mni_json_string_ref(j, root, "src", false, &s, &len);
    if (st == MN_OK)
        st = mni_json_string_ref(j, root, "sha256", false, &s, &len);
    json_t *blinks = NULL;
    if (st == MN_OK)
        st = mni_json_array(j, root, "blinks", false, &blinks);
    for (size_t i = 0; st == MN_OK && blinks && i < json_array_size(blinks); i++)
        if (!json_is_string(json_array_get(blinks, i))) {
            size_t mark = mni_json_push_key(j, "blinks");
            size_t m2 = mni_json_push_index(j, i);
            st = mni_json_fail(j, MN_JSON_TYPE, NULL, "expected a channel name, found %s",
                               mni_json_type_name(json_array_get(blinks, i)));
            mni_json_pop(j, m2);
            mni_json_pop(j, mark);
        }
    return st;
}

/*
 * The rows that can ever weigh anything: every A row whose channel is an
 * ARKit name, and every C row (pair) whose two rows are.  A dropped channel
 * weighs 0, and so does any pair that names it.
 */
static uint32_t fitted_terms_in_use(const struct mn_arkit_map_private *p)
{
    uint32_t n = 0;
    for (uint32_t r = 0; r < p->rows; r++)
        n += p->row_channel[r] >= 0;
    for (uint32_t k = 0; k < p->pairs; k++)
        n += p->row_channel[p->pair_rows[2 * k]] >= 0 && p->row_channel[p->pair_rows[2 * k + 1]] >= 0;
    return n;
}

/* A and C from the file: size checked against the description, every float finite. */
static mn_status fitted_floats(map_holder *h, mn_json *j, json_t *root, const void *table,
                               size_t table_size, mn_error *err)
{
    uint64_t declared = 0;
    bool has_bytes = json_object_get(root, "bytes") != NULL;
    mn_status st = fitted_uint(j, root, "bytes", false, UINT64_MAX >> 11, &declared);
    if (st != MN_OK)
        return st;
    if (has_bytes && declared != table_size)
        return mni_json_fail(j, MN_COUNT_MISMATCH, "bytes",
                             "the description says %llu bytes, the file has %zu",
                             (unsigned long long)declared, table_size);
    size_t rows_all = 0, floats = 0, bytes = 0;
    if (!mni_checked_add(h->priv.rows, h->priv.pairs, &rows_all) ||
        !mni_checked_mul(rows_all, h->priv.coeffs, &floats) ||
        !mni_checked_mul(floats, 4, &bytes))
        return mni_fail(err, MN_OVERFLOW, "face table: its size overflows");
    if (table_size != bytes)
        return mni_fail(err, MN_COUNT_MISMATCH,
                        "face table file: %zu bytes, but (%u channels + %u pairs) x %u "
                        "coeffs x 4 = %zu",
                        table_size, h->priv.rows, h->priv.pairs, h->priv.coeffs, bytes);
    float *values = mni_arena_alloc(&h->arena, bytes, 16);
    if (bytes > 0 && !values)
        return mni_oom(err, "face table");
    const uint8_t *src = table;
    for (size_t i = 0; i < floats; i++) {
        uint32_t bits = (uint32_t)src[4 * i] | (uint32_t)src[4 * i + 1] << 8 |
                        (uint32_t)src[4 * i + 2] << 16 | (uint32_t)src[4 * i + 3] << 24;
        memcpy(&values[i], &bits, sizeof bits);
        if (!isfinite(values[i]))
            return mni_error_set(err, MN_NOT_FINITE, "", (int64_t)(4 * i),
                                 "face table file: float %zu (%s row %zu, coefficient %zu) is "
                                 "not finite",
                                 i, i / h->priv.coeffs < h->priv.rows ? "A" : "C",
                                 i / h->priv.coeffs < h->priv.rows
                                     ? i / h->priv.coeffs
                                     : i / h->priv.coeffs - h->priv.rows,
                                 i % h->priv.coeffs);
    }
    h->priv.a = values;
    h->priv.c = values ? values + (size_t)h->priv.rows * h->priv.coeffs : NULL;
    h->map.terms = fitted_terms_in_use(&h->priv);
    return MN_OK;
}

static mn_status build_fitted(map_holder *h, const mn_aosrig_head_ext *layout, json_t *root,
                              const void *table, size_t table_size, mn_error *err)
{
    mn_json j;
    mni_json_init(&j, &h->arena, err);
    uint64_t version = 0, coeffs = 0;
    mn_status st = mni_json_uint(&j, root, "version", true, 0, UINT32_MAX, &version);
    if (st == MN_OK && version != 1)
        st = mni_json_fail(&j, MN_INVALID_VALUE, "version", "unsupported version %llu",
                           (unsigned long long)version);
    if (st == MN_OK)
        st = fitted_uint(&j, root, "coeffs", true, UINT32_MAX, &coeffs);
    if (st == MN_OK && coeffs != layout->expr_dim)
        st = mni_json_fail(&j, MN_COUNT_MISMATCH, "coeffs",
                           "the table has %llu coefficients a row, the head's exprDim is %u",
                           (unsigned long long)coeffs, layout->expr_dim);
    h->priv.coeffs = (uint32_t)coeffs;
    if (st == MN_OK) /* at most every channel and every gaze entry is dropped */
        st = reserve_drops(h, json_array_size(json_object_get(root, "channels")) +
                                  json_object_size(json_object_get(root, "gaze")),
                           err);
    if (st == MN_OK)
        st = fitted_channels(h, &j, root, err);
    if (st == MN_OK)
        st = fitted_pairs(h, &j, root, err);
    if (st == MN_OK)
        st = fitted_gaze(h, &j, root, err);
    if (st == MN_OK)
        st = fitted_descriptive(&j, root);
    if (st == MN_OK)
        st = fitted_floats(h, &j, root, table, table_size, err);
    return st;
}

mn_status mn_arkit_fitted_map_create(const mn_aosrig_head_ext *layout, const char *info_json,
                                     size_t info_size, const void *table, size_t table_size,
                                     const mn_arkit_fitted_options *options, mn_arkit_map **out,
                                     mn_error *err)
{
    if (out)
        *out = NULL;
    if (!layout || !info_json || !out || (!table && table_size > 0))
        return mni_fail(err, MN_INVALID_ARGUMENT,
                        "face table: NULL layout, description, table or out");
    mn_error local;
    mn_error *e = err ? err : &local; /* mn_json needs somewhere to write */
    json_t *root = NULL;
    mn_status st = parse_object(info_json, info_size, "face.arkit", &root, e);
    map_holder *h = NULL;
    if (st == MN_OK)
        st = new_holder(options ? &options->allocator : NULL, layout, MAP_FITTED, &h, e);
    if (st == MN_OK)
        st = build_fitted(h, layout, root, table, table_size, e);
    json_decref(root);
    if (st != MN_OK) {
        mn_arkit_map_free(h ? &h->map : NULL);
        return st;
    }
    *out = &h->map;
    return MN_OK;
}

/* ---- a frame ------------------------------------------------------------------------ */

static inline float clamp01(float w)
{
    return w > 0.0f ? (w < 1.0f ? w : 1.0f) : 0.0f; /* NaN → 0 */
}

static void apply_table(const struct mn_arkit_map_private *p, const float *arkit, float *out,
                        uint32_t dim)
{
    memset(out, 0, dim * sizeof *out);
    for (uint32_t t = 0; t < p->term_count; t++)
        out[p->term_slot[t]] += p->term_gain[t] * arkit[p->term_channel[t]];
    for (uint32_t i = 0; i < p->expr_dim; i++)
        out[i] = fminf(fmaxf(out[i], -p->clamp), p->clamp);
    if (!p->gaze)
        return;
    float *g = out + p->expr_dim;
    const float s = MN_ARKIT_GAZE_FULL_SCALE;
    g[0] = s * (clamp01(arkit[LOOK_DOWN_L]) - clamp01(arkit[LOOK_UP_L]));
    g[1] = s * (clamp01(arkit[LOOK_OUT_L]) - clamp01(arkit[LOOK_IN_L]));
    g[2] = s * (clamp01(arkit[LOOK_DOWN_R]) - clamp01(arkit[LOOK_UP_R]));
    g[3] = s * (clamp01(arkit[LOOK_IN_R]) - clamp01(arkit[LOOK_OUT_R]));
}

static inline float row_weight(const struct mn_arkit_map_private *p, const float *arkit,
                               uint32_t r)
{
    int32_t c = p->row_channel[r];
    return c >= 0 ? arkit[c] : 0.0f;
}

static void apply_fitted(const struct mn_arkit_map_private *p, const float *arkit, float *out,
                         uint32_t dim)
{
    memset(out, 0, dim * sizeof *out);
    const size_t n = p->coeffs;
    for (uint32_t r = 0; r < p->rows; r++) {
        float w = row_weight(p, arkit, r);
        if (w == 0.0f)
            continue;
        const float *a = p->a + r * n;
        for (size_t k = 0; k < n; k++)
            out[k] += w * a[k];
    }
    for (uint32_t k = 0; k < p->pairs; k++) {
        float w = clamp01(row_weight(p, arkit, p->pair_rows[2 * k])) *
                  clamp01(row_weight(p, arkit, p->pair_rows[2 * k + 1]));
        if (w == 0.0f)
            continue;
        const float *c = p->c + k * n;
        for (size_t i = 0; i < n; i++)
            out[i] += w * c[i];
    }
    for (uint32_t t = 0; t < p->gaze_count; t++) {
        const gaze_term *g = &p->gaze_terms[t];
        out[p->expr_dim + g->slot] += clamp01(arkit[g->channel]) * g->radians;
    }
}

void mn_arkit_map_apply(const mn_arkit_map *map, const float *arkit, float *out)
{
    if (!map || !arkit || !out)
        return;
    if (map->priv_->kind == MAP_TABLE)
        apply_table(map->priv_, arkit, out, map->dim);
    else
        apply_fitted(map->priv_, arkit, out, map->dim);
}
