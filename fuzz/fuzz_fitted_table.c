/*
 * libFuzzer target for the ARKit face tables (src/head/arkit.c): the input is
 * a face.arkit description (JSON text), a NUL byte, then the table file's
 * bytes.  Both parsers run on it: the fitted map on the description and the
 * bytes, the table map on the same JSON.  A refused input must come back
 * with an error code, a terminated message and no map; an accepted one must
 * hold what the header promises (dim the layout's, drops named with a known
 * code, the fitted terms no more than the table's rows, which are the
 * channels plus the pairs: dropped ones are not in use) and map every weight vector
 * (zeros, ones, large, NaN) without touching memory it does not own.  Any
 * broken promise aborts, under ASan and UBSan.
 *
 *     make fuzz                    (each target for 30 s, corpus fuzz/corpus/fitted_table)
 *     build/fuzz/fuzz_fitted_table -dict=fuzz/dict/fitted_table.dict CORPUS_DIR fuzz/corpus/fitted_table
 */
#include <marionette/head/arkit.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check(bool ok)
{
    if (!ok)
        abort();
}

/* A small layout: 4 coefficients (left_eye 1, right_eye 1, lower_face 2), then gaze. */
static const mn_aosrig_region regions[3] = {
    {"left_eye", 1, 0, true, 1}, {"right_eye", 1, 1, false, 0}, {"lower_face", 2, 2, true, 1}};
static const mn_aosrig_head_ext layout = {8, 4, 4, regions, 3};

static void check_error(mn_status st, const mn_error *err, const mn_arkit_map *map)
{
    check(st != MN_OK && st < MN_STATUS_COUNT);
    check(err->code == st);
    check(memchr(err->message, '\0', sizeof err->message) != NULL);
    check(map == NULL);
}

static void exercise(const mn_arkit_map *map)
{
    check(map->dim == layout.dim);
    for (uint32_t i = 0; i < map->drop_count; i++) {
        check(map->drops[i].name != NULL);
        check(map->drops[i].code > MN_OK && map->drops[i].code < MN_STATUS_COUNT);
    }
    float arkit[MN_ARKIT_CHANNEL_COUNT], out[9];
    const float values[] = {0.0f, 1.0f, -3.0f, 1e30f, NAN};
    for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
        for (uint32_t c = 0; c < MN_ARKIT_CHANNEL_COUNT; c++)
            arkit[c] = values[v];
        out[8] = 12345.0f;
        mn_arkit_map_apply(map, arkit, out);
        check(out[8] == 12345.0f); /* exactly dim floats written */
        if (v == 0)
            for (int i = 0; i < 8; i++)
                check(out[i] == 0.0f);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, '\0', size);
    size_t json_size = nul ? (size_t)(nul - data) : size;
    const uint8_t *table = nul ? nul + 1 : data + size;
    size_t table_size = nul ? size - json_size - 1 : 0;

    mn_arkit_map *map = NULL;
    mn_error err;
    memset(&err, 0, sizeof err);
    mn_status st = mn_arkit_fitted_map_create(&layout, (const char *)data, json_size, table,
                                              table_size, NULL, &map, &err);
    if (st == MN_OK) {
        check(map != NULL);
        check((size_t)map->terms * layout.expr_dim * 4 <= table_size);
        exercise(map);
        mn_arkit_map_free(map);
    } else {
        check_error(st, &err, map);
    }

    map = NULL;
    st = mn_arkit_table_map_create(&layout, (const char *)data, json_size, NULL, &map, &err);
    if (st == MN_OK) {
        check(map != NULL);
        exercise(map);
        mn_arkit_map_free(map);
    } else {
        check_error(st, &err, map);
    }
    return 0;
}
