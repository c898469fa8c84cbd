/*
 * glTF reader errors: for each kind of broken input, a minimal file built in
 * the test, the status code, the JSON path (or the byte offset for GLB
 * container errors) and, for syntax errors, the line and column.  Every
 * message is printed so a person can judge whether it helps fix the file.
 * Then sweeps: a valid GLB truncated at every length and randomly mutated
 * must load or fail cleanly (never crash, leak or read out of bounds: run
 * under ASan/UBSan).
 *
 * Within one test every case is checked and mismatches are counted, so one
 * run shows them all; the test fails at its end if any case mismatched.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <marionette/gltf.h>
#include <marionette/model.h>

#include "counting_alloc.h"
#include "glb_builder.h"

#define ASSET "'asset':{'version':'2.0'}"

/* glTF componentType values. */
enum { I8 = 5120, U8 = 5121, I16 = 5122, U16 = 5123, U32 = 5125, F32 = 5126 };

/* A set of acceptable codes, for the few cases where two readings are defensible. */
#define ONE(code) (1u << (unsigned)(code))
#define ANY_FAILURE (~ONE(MN_OK))

/* Cases that did not go as expected in the current test (reset by each test). */
static int mismatches;

#define finish_cases()                                                          \
    do {                                                                        \
        if (mismatches)                                                         \
            print_error("%d case(s) above did not go as expected\n", mismatches); \
        assert_int_equal(mismatches, 0);                                        \
    } while (0)

/* ---- reading -------------------------------------------------------------------- */

/*
 * Read a private copy of exactly `size` bytes (so ASan sees any over-read),
 * check the failure contract (model NULL, err filled, strings terminated) and
 * free a model that loaded.  Returns the status; *err holds the error.
 */
static mn_status read_input(const void *data, size_t size, const mn_gltf_options *options,
                            mn_error *err)
{
    uint8_t *copy = malloc(size ? size : 1);
    assert_non_null(copy);
    if (size)
        memcpy(copy, data, size);
    int sentinel;
    mn_model *model = (mn_model *)(void *)&sentinel;   /* must become NULL on failure */
    memset(err, 0x5A, sizeof *err);
    mn_status status = mn_gltf_read_memory(copy, size, options, &model, err);
    if (status == MN_OK) {
        assert_non_null(model);
        assert_ptr_not_equal(model, (void *)&sentinel);
        mn_model_free(model);
    } else {
        assert_true((unsigned)status < (unsigned)MN_STATUS_COUNT);
        assert_null(model);
        assert_int_equal(err->code, status);
        assert_non_null(memchr(err->message, '\0', sizeof err->message));
        assert_non_null(memchr(err->path, '\0', sizeof err->path));
        assert_true(err->message[0] != '\0');
    }
    free(copy);
    return status;
}

/* path: exact match; "prefix*": starts with prefix; NULL: not checked. */
static bool path_matches(const char *got, const char *want)
{
    if (!want)
        return true;
    size_t n = strlen(want);
    if (n > 0 && want[n - 1] == '*')
        return strncmp(got, want, n - 1) == 0;
    return strcmp(got, want) == 0;
}

static const char *codes_text(uint32_t codes, char *buf, size_t size)
{
    buf[0] = '\0';
    size_t len = 0;
    for (int c = 0; c < MN_STATUS_COUNT; c++) {
        if (codes & ONE(c)) {
            int n = snprintf(buf + len, size - len, "%s%s", len ? " or " : "",
                             mn_status_name((mn_status)c));
            if (n < 0 || (size_t)n >= size - len)
                break;
            len += (size_t)n;
        }
    }
    return buf;
}

/* One case: print the outcome, count it as a mismatch unless code and path are as expected. */
static mn_error check_case(const char *file, int line, const void *data, size_t size,
                           const mn_gltf_options *options, uint32_t codes, const char *path)
{
    mn_error err;
    mn_status status = read_input(data, size, options, &err);
    if (status == MN_OK) {
        memset(&err, 0, sizeof err);
        err.offset = -1;
    }
    print_message("%-26s %-48s %s\n", mn_status_name(status), status ? err.path : "",
                  status ? err.message : "(loaded)");
    bool ok = (codes & ONE(status)) && (status == MN_OK || path_matches(err.path, path));
    if (!ok) {
        char want[256];
        print_error("%s:%d: MISMATCH: got %s at '%s', expected %s at '%s'\n", file, line,
                    mn_status_name(status), status ? err.path : "",
                    codes_text(codes, want, sizeof want), path ? path : "(any)");
        mismatches++;
    }
    return err;
}

/* A .gltf given as single-quoted JSON text (see gb_json). */
static mn_error json_case(const char *file, int line, uint32_t codes, const char *path,
                          const char *fmt, ...) GB_PRINTF(5, 6);
static mn_error json_case(const char *file, int line, uint32_t codes, const char *path,
                          const char *fmt, ...)
{
    gb_builder b;
    gb_init(&b);
    va_list ap;
    va_start(ap, fmt);
    gb_jsonv(&b, fmt, ap);
    va_end(ap);
    mn_error err = check_case(file, line, gb_json_text(&b), gb_json_size(&b), NULL, codes, path);
    gb_free(&b);
    return err;
}

#define expect_json(code, path, ...) json_case(__FILE__, __LINE__, ONE(code), (path), __VA_ARGS__)
#define expect_json_in(codes, path, ...) json_case(__FILE__, __LINE__, (codes), (path), __VA_ARGS__)

/*
 * A flaw a runtime could live with: the reader may refuse it (with code at
 * path) or load it with a warning at path.  Loading it silently is a mismatch.
 */
static void json_tolerated(const char *file, int line, mn_status code, const char *path,
                           const char *fmt, ...) GB_PRINTF(5, 6);
static void json_tolerated(const char *file, int line, mn_status code, const char *path,
                           const char *fmt, ...)
{
    gb_builder b;
    gb_init(&b);
    va_list ap;
    va_start(ap, fmt);
    gb_jsonv(&b, fmt, ap);
    va_end(ap);
    mn_model *m = NULL;
    mn_error err;
    mn_status status = mn_gltf_read_memory(gb_json_text(&b), gb_json_size(&b), NULL, &m, &err);
    bool ok;
    if (status == MN_OK) {
        ok = false;
        for (uint32_t i = 0; i < m->warning_count; i++) {
            print_message("%-26s %-48s %s\n", "warning", m->warnings[i].path, m->warnings[i].message);
            ok |= path_matches(m->warnings[i].path, path);
        }
        if (!ok)
            print_message("%-26s %-48s %s\n", "MN_OK", "", "(loaded, no warning)");
        mn_model_free(m);
    } else {
        print_message("%-26s %-48s %s\n", mn_status_name(status), err.path, err.message);
        ok = status == code && path_matches(err.path, path);
    }
    if (!ok) {
        print_error("%s:%d: MISMATCH: expected %s at '%s', or a warning there\n", file, line,
                    mn_status_name(code), path);
        mismatches++;
    }
    gb_free(&b);
}

#define expect_json_tolerated(code, path, ...) json_tolerated(__FILE__, __LINE__, (code), (path), __VA_ARGS__)

/* A GLB from the builder's JSON and blob. */
static mn_error glb_case(const char *file, int line, const gb_builder *b, uint32_t codes,
                         const char *path)
{
    gb_blob glb = gb_glb(b);
    mn_error err = check_case(file, line, glb.data, glb.size, NULL, codes, path);
    gb_blob_free(&glb);
    return err;
}

#define expect_glb(b, code, path) glb_case(__FILE__, __LINE__, (b), ONE(code), (path))
#define expect_glb_in(b, codes, path) glb_case(__FILE__, __LINE__, (b), (codes), (path))

/* Raw bytes. */
#define expect_bytes(data, size, code, path) \
    check_case(__FILE__, __LINE__, (data), (size), NULL, ONE(code), (path))
#define expect_bytes_in(data, size, codes, path) \
    check_case(__FILE__, __LINE__, (data), (size), NULL, (codes), (path))

static void expect_offset_(const char *file, int line, const mn_error *err, int64_t offset)
{
    if (err->offset != offset) {
        print_error("%s:%d: MISMATCH: byte offset %lld, expected %lld\n", file, line,
                    (long long)err->offset, (long long)offset);
        mismatches++;
    }
}
#define expect_offset(err, offset) expect_offset_(__FILE__, __LINE__, &(err), (offset))

static void expect_position_(const char *file, int line, const mn_error *err, int want_line)
{
    bool ok = err->line > 0 && err->column > 0 && (want_line == 0 || err->line == want_line);
    print_message("    at line %d, column %d\n", err->line, err->column);
    if (!ok) {
        print_error("%s:%d: MISMATCH: line %d column %d, expected line %s%d and a column > 0\n",
                    file, line, err->line, err->column, want_line ? "" : "> ", want_line);
        mismatches++;
    }
}
/* line/column > 0, and line == want_line unless want_line is 0. */
#define expect_position(err, want_line) expect_position_(__FILE__, __LINE__, &(err), (want_line))

/* Little-endian uint32 patch inside a byte buffer. */
static void put_u32(uint8_t *at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        at[i] = (uint8_t)(v >> (8 * i));
}

/* A GLB of the sample model (tests/support/glb_builder.h). */
static gb_blob sample_glb(void)
{
    gb_builder b;
    gb_init(&b);
    gb_sample_model(&b, false);
    gb_blob glb = gb_glb(&b);
    gb_free(&b);
    return glb;
}

/* ---- GLB container ------------------------------------------------------------------ */

static void test_glb_container_errors(void **state)
{
    (void)state;
    mismatches = 0;
    gb_builder b;
    gb_init(&b);
    gb_sample_model(&b, false);
    gb_blob good = gb_glb(&b);
    size_t bin_chunk = gb_glb_bin_offset(&b) - 8;   /* the BIN chunk's header */
    uint8_t *bad = malloc(good.size + 16);
    assert_non_null(bad);
    mn_error err;

    /* The file as built loads: every case below is one change away from it. */
    expect_bytes(good.data, good.size, MN_OK, NULL);

    /*
     * gltf.h detects a GLB by its magic; other input is read as .gltf JSON.
     * A magic that is not text cannot be JSON, so it is a bad GLB magic; a
     * magic corrupted into printable text may reach the JSON parser instead.
     */
    memcpy(bad, good.data, good.size);
    bad[0] = 0x01;
    err = expect_bytes(bad, good.size, MN_GLB_MAGIC, "");
    expect_offset(err, 0);
    bad[0] = 'g';
    bad[3] = 'x';
    expect_bytes_in(bad, good.size, ONE(MN_GLB_MAGIC) | ONE(MN_JSON_SYNTAX), "");

    /* glTF-Validator glb/invalid_magic.glb: twelve zero bytes. */
    const uint8_t zeros[12] = { 0 };
    err = expect_bytes(zeros, sizeof zeros, MN_GLB_MAGIC, "");
    expect_offset(err, 0);

    memcpy(bad, good.data, good.size);
    put_u32(bad + 4, 1);
    err = expect_bytes(bad, good.size, MN_GLB_VERSION, "");
    expect_offset(err, 4);
    put_u32(bad + 4, 3);
    expect_bytes(bad, good.size, MN_GLB_VERSION, "");

    /*
     * Declared length one more than the data (validator glb/length_mismatch.glb).
     * The offset is where the data ends, as glTF-Validator reports it.
     */
    memcpy(bad, good.data, good.size);
    put_u32(bad + 8, (uint32_t)good.size + 1);
    err = expect_bytes(bad, good.size, MN_GLB_LENGTH, "");
    expect_offset(err, (int64_t)good.size);
    /* Four bytes of trailing data after a GLB whose chunks are all complete. */
    memcpy(bad, good.data, good.size);
    put_u32(bad + good.size, 0);
    err = expect_bytes(bad, good.size + 4, MN_GLB_LENGTH, "");
    expect_offset(err, (int64_t)good.size + 4);
    /* Declared length shorter than the data: the last chunk no longer fits it. */
    memcpy(bad, good.data, good.size);
    put_u32(bad + 8, (uint32_t)good.size - 4);
    expect_bytes_in(bad, good.size, ONE(MN_GLB_LENGTH) | ONE(MN_GLB_CHUNK), "");
    /* Declared 13 with a 28-byte JSON chunk (validator glb/chunk_too_big.glb). */
    put_u32(bad + 8, 13);
    expect_bytes_in(bad, good.size, ONE(MN_GLB_LENGTH) | ONE(MN_GLB_CHUNK), "");

    /* Header complete, but the JSON chunk claims more bytes than the file has. */
    memcpy(bad, good.data, good.size);
    put_u32(bad + 12, 1000000);
    err = expect_bytes(bad, good.size, MN_GLB_CHUNK, "");
    expect_offset(err, 12);
    put_u32(bad + 12, 0xFFFFFFFCu);
    err = expect_bytes(bad, good.size, MN_GLB_CHUNK, "");
    expect_offset(err, 12);

    /* The BIN chunk runs past the end. */
    memcpy(bad, good.data, good.size);
    put_u32(bad + bin_chunk, (uint32_t)(good.size - bin_chunk - 8 + 4));
    err = expect_bytes(bad, good.size, MN_GLB_CHUNK, "");
    expect_offset(err, (int64_t)bin_chunk);

    /* The file ends four bytes into a third chunk's header. */
    memcpy(bad, good.data, good.size);
    put_u32(bad + good.size, 16);
    put_u32(bad + 8, (uint32_t)good.size + 4);
    err = expect_bytes(bad, good.size + 4, MN_GLB_CHUNK, "");
    expect_offset(err, (int64_t)good.size);

    /* The first chunk is BIN (validator glb/only_bin_chunk.glb). */
    const uint8_t four[4] = { 1, 2, 3, 4 };
    gb_chunk only_bin[1] = { { GB_CHUNK_BIN, four, 4, true, GB_AUTO } };
    gb_layout layout = { GB_MAGIC, 2, GB_AUTO, only_bin, 1 };
    gb_blob blob = gb_glb_custom(&layout);
    err = expect_bytes(blob.data, blob.size, MN_GLB_FIRST_CHUNK, "");
    expect_offset(err, 12);
    gb_blob_free(&blob);

    /* JSON chunk second, after an unknown one. */
    const char *json = "{\"asset\":{\"version\":\"2.0\"}}";
    gb_chunk late_json[2] = { { 0x5A5A5A5Au, four, 4, false, GB_AUTO },
                              { GB_CHUNK_JSON, json, strlen(json), true, GB_AUTO } };
    layout = (gb_layout){ GB_MAGIC, 2, GB_AUTO, late_json, 2 };
    blob = gb_glb_custom(&layout);
    err = expect_bytes(blob.data, blob.size, MN_GLB_FIRST_CHUNK, "");
    expect_offset(err, 12);
    gb_blob_free(&blob);

    /* A header and nothing else: there is no JSON chunk. */
    layout = (gb_layout){ GB_MAGIC, 2, GB_AUTO, NULL, 0 };
    blob = gb_glb_custom(&layout);
    expect_bytes_in(blob.data, blob.size, ONE(MN_GLB_CHUNK) | ONE(MN_GLB_FIRST_CHUNK), "");
    gb_blob_free(&blob);

    /* A header cut short (validator glb/empty_file.glb is the 0-byte case, in the sweep). */
    expect_bytes(good.data, 8, MN_GLB_HEADER, "");
    expect_bytes(good.data, 11, MN_GLB_HEADER, "");
    expect_bytes(good.data, 4, MN_GLB_HEADER, "");

    /* The JSON chunk data cut by one byte (validator glb/truncated_chunk_data.glb). */
    memcpy(bad, good.data, good.size);
    put_u32(bad + 8, (uint32_t)bin_chunk - 1);
    expect_bytes_in(bad, bin_chunk - 1, ONE(MN_GLB_CHUNK) | ONE(MN_GLB_LENGTH), "");

    /* A JSON syntax error inside the JSON chunk still reports line and column. */
    gb_builder s;
    gb_init(&s);
    gb_json(&s, "{" ASSET ",\n'nodes':[{]}");
    err = expect_glb(&s, MN_JSON_SYNTAX, NULL);
    expect_position(err, 2);
    gb_free(&s);

    /* The BIN chunk is shorter than buffers[0].byteLength says. */
    gb_init(&s);
    gb_bin_f32(&s, 1, 2);
    gb_json(&s, "{" ASSET ",'buffers':[{'byteLength':64}]}");
    expect_glb_in(&s, ONE(MN_INVALID_VALUE) | ONE(MN_BUFFER_VIEW_BOUNDS) | ONE(MN_GLB_CHUNK),
                  "buffers[0]*");
    gb_free(&s);

    /* No BIN chunk at all, yet buffer 0 has no uri. */
    gb_init(&s);
    gb_json(&s, "{" ASSET ",'buffers':[{'byteLength':8}],'bufferViews':[{'buffer':0,'byteLength':8}],"
                "'accessors':[{'bufferView':0,'componentType':%d,'count':2,'type':'SCALAR'}]}",
            F32);
    expect_glb_in(&s, ONE(MN_INVALID_VALUE) | ONE(MN_MISSING_PROPERTY) | ONE(MN_BUFFER_VIEW_BOUNDS) |
                          ONE(MN_GLB_CHUNK),
                  "buffers[0]*");
    gb_free(&s);

    free(bad);
    gb_blob_free(&good);
    gb_free(&b);
    finish_cases();
}

/* ---- JSON syntax ----------------------------------------------------------------------- */

static void test_json_syntax_errors_give_line_and_column(void **state)
{
    (void)state;
    mismatches = 0;
    mn_error err;

    /* glTF-Validator json/invalid_syntax.gltf. */
    err = expect_json(MN_JSON_SYNTAX, NULL, "{]");
    expect_position(err, 1);
    err = expect_json(MN_JSON_SYNTAX, NULL, "{\n  " ASSET ",\n  'nodes': [ {, ]\n}");
    expect_position(err, 3);
    err = expect_json(MN_JSON_SYNTAX, NULL, "{" ASSET ",'nodes':[{}]");
    expect_position(err, 0);
    err = expect_json(MN_JSON_SYNTAX, NULL, "{" ASSET ",'nodes':[{}]} trailing");
    expect_position(err, 0);
    err = expect_json(MN_JSON_SYNTAX, NULL, "{" ASSET ",\n'nodes':[{'translation':[NaN,0,0]}]}");
    expect_position(err, 2);
    /*
     * A number too large for a double: jansson refuses it while parsing
     * ("real number overflow"), so it is a syntax error, not MN_NOT_FINITE.
     */
    err = expect_json(MN_JSON_SYNTAX, NULL, "{" ASSET ",'nodes':[{'translation':[1e999,0,0]}]}");
    expect_position(err, 1);
    err = expect_json(MN_JSON_SYNTAX, NULL, "{" ASSET ",'nodes':[{'name':'\xC3\x28'}]}");
    expect_position(err, 1);
    err = expect_json(MN_JSON_SYNTAX, NULL, "   \n  ");
    err = expect_json(MN_JSON_SYNTAX, NULL, "{'asset':{'version':'2.0'},}");
    expect_position(err, 1);
    /* An empty input is neither JSON nor a GLB header. */
    expect_bytes_in("", 0, ONE(MN_JSON_SYNTAX) | ONE(MN_GLB_HEADER) | ONE(MN_INVALID_ARGUMENT), NULL);
    finish_cases();
}

/* ---- JSON types ----------------------------------------------------------------------------- */

static void test_wrong_json_types(void **state)
{
    (void)state;
    mismatches = 0;
    expect_json(MN_JSON_TYPE, "", "[1,2,3]");
    expect_json(MN_JSON_TYPE, "asset", "{'asset':[]}");
    expect_json(MN_JSON_TYPE, "asset.version", "{'asset':{'version':2}}");
    expect_json(MN_JSON_TYPE, "nodes", "{" ASSET ",'nodes':{}}");
    expect_json(MN_JSON_TYPE, "nodes[0]", "{" ASSET ",'nodes':[7]}");
    expect_json(MN_JSON_TYPE, "nodes[0].name", "{" ASSET ",'nodes':[{'name':5}]}");
    expect_json(MN_JSON_TYPE, "nodes[0].children", "{" ASSET ",'nodes':[{'children':{}},{}]}");
    expect_json(MN_JSON_TYPE, "nodes[0].children[0]", "{" ASSET ",'nodes':[{'children':['1']},{}]}");
    expect_json(MN_JSON_TYPE, "nodes[0].translation", "{" ASSET ",'nodes':[{'translation':'x'}]}");
    expect_json(MN_JSON_TYPE, "nodes[0].translation*", "{" ASSET ",'nodes':[{'translation':[1,'2',3]}]}");
    expect_json_in(ONE(MN_JSON_TYPE) | ONE(MN_INVALID_VALUE), "nodes[0].translation*",
                   "{" ASSET ",'nodes':[{'translation':[1,2]}]}");
    expect_json(MN_JSON_TYPE, "accessors[0].count",
                "{" ASSET ",'accessors':[{'componentType':5126,'count':'3','type':'SCALAR'}]}");
    expect_json(MN_JSON_TYPE, "accessors[0].type",
                "{" ASSET ",'accessors':[{'componentType':5126,'count':3,'type':3}]}");
    expect_json(MN_JSON_TYPE, "accessors[0].normalized",
                "{" ASSET ",'accessors':[{'componentType':5121,'count':3,'type':'SCALAR','normalized':1}]}");
    expect_json(MN_JSON_TYPE, "accessors[0].componentType",
                "{" ASSET ",'accessors':[{'componentType':5126.5,'count':3,'type':'SCALAR'}]}");
    expect_json(MN_JSON_TYPE, "buffers[0].byteLength", "{" ASSET ",'buffers':[{'byteLength':1.5}]}");
    expect_json(MN_JSON_TYPE, "meshes[0].primitives", "{" ASSET ",'meshes':[{'primitives':{}}]}");
    expect_json(MN_JSON_TYPE, "meshes[0].primitives[0].attributes",
                "{" ASSET ",'meshes':[{'primitives':[{'attributes':[]}]}]}");
    expect_json(MN_JSON_TYPE, "materials[0].doubleSided", "{" ASSET ",'materials':[{'doubleSided':'yes'}]}");
    expect_json(MN_JSON_TYPE, "materials[0].pbrMetallicRoughness",
                "{" ASSET ",'materials':[{'pbrMetallicRoughness':[]}]}");
    expect_json(MN_JSON_TYPE, "scene", "{" ASSET ",'nodes':[{}],'scenes':[{'nodes':[0]}],'scene':'main'}");
    expect_json(MN_JSON_TYPE, "extensionsRequired", "{" ASSET ",'extensionsRequired':'KHR_x'}");
    expect_json(MN_JSON_TYPE, "extensionsUsed[0]", "{" ASSET ",'extensionsUsed':[1]}");
    expect_json(MN_JSON_TYPE, "cameras[0].perspective.yfov",
                "{" ASSET ",'cameras':[{'type':'perspective','perspective':{'yfov':'wide','znear':1}}]}");
    expect_json(MN_JSON_TYPE, "animations[0].channels[0].target.path",
                "{" ASSET ",'nodes':[{}],'accessors':[{'componentType':5126,'count':1,'type':'SCALAR',"
                "'min':[0],'max':[0]},{'componentType':5126,'count':1,'type':'VEC3'}],"
                "'animations':[{'channels':[{'sampler':0,'target':{'node':0,'path':1}}],"
                "'samplers':[{'input':0,'output':1}]}]}");

    /* Indices written as strings or fractions are type errors, not indices. */
    expect_json(MN_JSON_TYPE, "nodes[0].mesh", "{" ASSET ",'nodes':[{'mesh':'0'}]}");
    expect_json(MN_JSON_TYPE, "nodes[0].mesh", "{" ASSET ",'nodes':[{'mesh':0.5}]}");
    expect_json(MN_JSON_TYPE, "nodes[0].mesh", "{" ASSET ",'nodes':[{'mesh':null}]}");
    expect_json(MN_JSON_TYPE, "scenes[0].nodes[0]", "{" ASSET ",'nodes':[{}],'scenes':[{'nodes':[0.25]}]}");
    finish_cases();
}

/* ---- missing properties ------------------------------------------------------------------ */

static void test_missing_required_properties(void **state)
{
    (void)state;
    mismatches = 0;
    expect_json(MN_MISSING_PROPERTY, "asset", "{}");
    expect_json(MN_MISSING_PROPERTY, "asset.version", "{'asset':{}}");
    expect_json(MN_MISSING_PROPERTY, "accessors[0].componentType",
                "{" ASSET ",'accessors':[{'count':1,'type':'SCALAR'}]}");
    expect_json(MN_MISSING_PROPERTY, "accessors[0].count",
                "{" ASSET ",'accessors':[{'componentType':5126,'type':'SCALAR'}]}");
    expect_json(MN_MISSING_PROPERTY, "accessors[0].type",
                "{" ASSET ",'accessors':[{'componentType':5126,'count':1}]}");
    expect_json(MN_MISSING_PROPERTY, "accessors[0].sparse.indices",
                "{" ASSET ",'accessors':[{'componentType':5126,'count':2,'type':'SCALAR',"
                "'sparse':{'count':1,'values':{'bufferView':0}}}],"
                "'buffers':[{'byteLength':4,'uri':'data:application/octet-stream;base64,AAAAAA=='}],"
                "'bufferViews':[{'buffer':0,'byteLength':4}]}");
    expect_json(MN_MISSING_PROPERTY, "buffers[0].byteLength", "{" ASSET ",'buffers':[{}]}");
    expect_json(MN_MISSING_PROPERTY, "bufferViews[0].buffer",
                "{" ASSET ",'buffers':[{'byteLength':4,'uri':'data:application/octet-stream;base64,AAAAAA=='}],"
                "'bufferViews':[{'byteLength':4}]}");
    expect_json(MN_MISSING_PROPERTY, "bufferViews[0].byteLength",
                "{" ASSET ",'buffers':[{'byteLength':4,'uri':'data:application/octet-stream;base64,AAAAAA=='}],"
                "'bufferViews':[{'buffer':0}]}");
    expect_json(MN_MISSING_PROPERTY, "meshes[0].primitives", "{" ASSET ",'meshes':[{}]}");
    expect_json(MN_MISSING_PROPERTY, "meshes[0].primitives[0].attributes",
                "{" ASSET ",'meshes':[{'primitives':[{}]}]}");
    expect_json(MN_MISSING_PROPERTY, "skins[0].joints", "{" ASSET ",'skins':[{}]}");
    expect_json(MN_MISSING_PROPERTY, "materials[0].pbrMetallicRoughness.baseColorTexture.index",
                "{" ASSET ",'materials':[{'pbrMetallicRoughness':{'baseColorTexture':{}}}]}");
    expect_json(MN_MISSING_PROPERTY, "cameras[0].type", "{" ASSET ",'cameras':[{}]}");
    expect_json(MN_MISSING_PROPERTY, "cameras[0].perspective",
                "{" ASSET ",'cameras':[{'type':'perspective'}]}");
    expect_json(MN_MISSING_PROPERTY, "cameras[0].perspective.yfov",
                "{" ASSET ",'cameras':[{'type':'perspective','perspective':{'znear':0.1}}]}");
    expect_json(MN_MISSING_PROPERTY, "cameras[0].orthographic.xmag",
                "{" ASSET ",'cameras':[{'type':'orthographic','orthographic':{'ymag':1,'znear':0,'zfar':1}}]}");

#define ANIM_HEAD "{" ASSET ",'nodes':[{}],'accessors':[{'componentType':5126,'count':1,'type':'SCALAR'," \
                  "'min':[0],'max':[0]},{'componentType':5126,'count':1,'type':'VEC3'}],"
    expect_json(MN_MISSING_PROPERTY, "animations[0].channels",
                ANIM_HEAD "'animations':[{'samplers':[{'input':0,'output':1}]}]}");
    expect_json(MN_MISSING_PROPERTY, "animations[0].samplers",
                ANIM_HEAD "'animations':[{'channels':[{'sampler':0,'target':{'node':0,'path':'scale'}}]}]}");
    expect_json(MN_MISSING_PROPERTY, "animations[0].channels[0].target",
                ANIM_HEAD "'animations':[{'channels':[{'sampler':0}],'samplers':[{'input':0,'output':1}]}]}");
    expect_json(MN_MISSING_PROPERTY, "animations[0].channels[0].sampler",
                ANIM_HEAD "'animations':[{'channels':[{'target':{'node':0,'path':'scale'}}],"
                "'samplers':[{'input':0,'output':1}]}]}");
    expect_json(MN_MISSING_PROPERTY, "animations[0].channels[0].target.path",
                ANIM_HEAD "'animations':[{'channels':[{'sampler':0,'target':{'node':0}}],"
                "'samplers':[{'input':0,'output':1}]}]}");
    expect_json(MN_MISSING_PROPERTY, "animations[0].samplers[0].input",
                ANIM_HEAD "'animations':[{'channels':[{'sampler':0,'target':{'node':0,'path':'scale'}}],"
                "'samplers':[{'output':1}]}]}");
    expect_json(MN_MISSING_PROPERTY, "animations[0].samplers[0].output",
                ANIM_HEAD "'animations':[{'channels':[{'sampler':0,'target':{'node':0,'path':'scale'}}],"
                "'samplers':[{'input':0}]}]}");
    finish_cases();
}

/* ---- values outside what the specification allows -------------------------------------- */

static void test_invalid_values(void **state)
{
    (void)state;
    mismatches = 0;
    expect_json(MN_INVALID_VALUE, "asset.version", "{'asset':{'version':'1.0'}}");
    expect_json(MN_INVALID_VALUE, "accessors[0].componentType",
                "{" ASSET ",'accessors':[{'componentType':5130,'count':1,'type':'SCALAR'}]}");
    expect_json(MN_INVALID_VALUE, "accessors[0].type",
                "{" ASSET ",'accessors':[{'componentType':5126,'count':1,'type':'VEC5'}]}");
    expect_json(MN_INVALID_VALUE, "accessors[0].count",
                "{" ASSET ",'accessors':[{'componentType':5126,'count':0,'type':'SCALAR'}]}");
    expect_json(MN_INVALID_VALUE, "accessors[0].count",
                "{" ASSET ",'accessors':[{'componentType':5126,'count':-1,'type':'SCALAR'}]}");
    expect_json(MN_INVALID_VALUE, "accessors[0].normalized",
                "{" ASSET ",'accessors':[{'componentType':5125,'normalized':true,'count':1,'type':'SCALAR'}]}");
    expect_json(MN_INVALID_VALUE, "accessors[0].normalized",
                "{" ASSET ",'accessors':[{'componentType':5126,'normalized':true,'count':1,'type':'SCALAR'}]}");
    expect_json(MN_INVALID_VALUE, "buffers[0].byteLength", "{" ASSET ",'buffers':[{'byteLength':-4}]}");
    expect_json(MN_INVALID_VALUE, "buffers[0].byteLength", "{" ASSET ",'buffers':[{'byteLength':0}]}");

#define VIEW_HEAD "{" ASSET ",'buffers':[{'byteLength':12,'uri':'data:application/octet-stream;base64,AAAAAAAAAAAAAAAA'}],"
    expect_json(MN_INVALID_VALUE, "bufferViews[0].byteStride",
                VIEW_HEAD "'bufferViews':[{'buffer':0,'byteLength':12,'byteStride':2}]}");
    expect_json(MN_INVALID_VALUE, "bufferViews[0].byteStride",
                VIEW_HEAD "'bufferViews':[{'buffer':0,'byteLength':12,'byteStride':256}]}");
    /* Not a multiple of 4 (the schema's multipleOf): refused, or at least a warning. */
    expect_json_tolerated(MN_INVALID_VALUE, "bufferViews[0].byteStride",
                          VIEW_HEAD "'bufferViews':[{'buffer':0,'byteLength':12,'byteStride':6}]}");
    /* The accessor side: a stride its floats cannot sit on, a stride shorter than an element, a misaligned start. */
    expect_json(MN_INVALID_VALUE, "accessors[0].bufferView",
                VIEW_HEAD "'bufferViews':[{'buffer':0,'byteLength':12,'byteStride':6}],"
                "'accessors':[{'bufferView':0,'componentType':5126,'count':2,'type':'SCALAR'}]}");
    expect_json(MN_INVALID_VALUE, "accessors[0].bufferView",
                VIEW_HEAD "'bufferViews':[{'buffer':0,'byteLength':12,'byteStride':4}],"
                "'accessors':[{'bufferView':0,'componentType':5126,'count':1,'type':'VEC2'}]}");
    expect_json(MN_INVALID_VALUE, "accessors[0].byteOffset",
                VIEW_HEAD "'bufferViews':[{'buffer':0,'byteLength':12}],"
                "'accessors':[{'bufferView':0,'byteOffset':2,'componentType':5126,'count':1,'type':'SCALAR'}]}");
    expect_json(MN_INVALID_VALUE, "bufferViews[0].byteOffset",
                VIEW_HEAD "'bufferViews':[{'buffer':0,'byteOffset':-4,'byteLength':4}]}");

    expect_json(MN_INVALID_VALUE, "meshes[0].primitives[0].mode",
                "{" ASSET ",'accessors':[{'componentType':5126,'count':3,'type':'VEC3','min':[0,0,0],'max':[0,0,0]}],"
                "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'mode':7}]}]}");
    expect_json(MN_INVALID_VALUE, "materials[0].alphaMode", "{" ASSET ",'materials':[{'alphaMode':'SOMETIMES'}]}");
    expect_json(MN_INVALID_VALUE, "cameras[0].type", "{" ASSET ",'cameras':[{'type':'fisheye'}]}");
    expect_json(MN_INVALID_VALUE, "animations[0].samplers[0].interpolation",
                ANIM_HEAD "'animations':[{'channels':[{'sampler':0,'target':{'node':0,'path':'scale'}}],"
                "'samplers':[{'input':0,'output':1,'interpolation':'CUBIC'}]}]}");

    /* Sparse accessors. */
#define SPARSE_HEAD VIEW_HEAD "'bufferViews':[{'buffer':0,'byteLength':12}],"
    expect_json(MN_INVALID_VALUE, "accessors[0].sparse.count",
                SPARSE_HEAD "'accessors':[{'componentType':5126,'count':2,'type':'SCALAR','sparse':{'count':0,"
                "'indices':{'bufferView':0,'componentType':5121},'values':{'bufferView':0}}}]}");
    expect_json(MN_INVALID_VALUE, "accessors[0].sparse.count",
                SPARSE_HEAD "'accessors':[{'componentType':5126,'count':2,'type':'SCALAR','sparse':{'count':3,"
                "'indices':{'bufferView':0,'componentType':5121},'values':{'bufferView':0}}}]}");
    expect_json(MN_INVALID_VALUE, "accessors[0].sparse.indices.componentType",
                SPARSE_HEAD "'accessors':[{'componentType':5126,'count':2,'type':'SCALAR','sparse':{'count':1,"
                "'indices':{'bufferView':0,'componentType':5126},'values':{'bufferView':0}}}]}");

    /* Accessors of the wrong kind for their use. */
#define PRIM_ACCESSORS "'accessors':[{'componentType':5126,'count':3,'type':'VEC3','min':[0,0,0],'max':[0,0,0]}," \
                       "{'componentType':5126,'count':3,'type':'VEC2'},{'componentType':5126,'count':3,'type':'SCALAR'}," \
                       "{'componentType':5125,'count':3,'type':'VEC2'},{'componentType':5126,'count':3,'type':'VEC4'}],"
    expect_json(MN_INVALID_VALUE, "meshes[0].primitives[0].attributes.POSITION",
                "{" ASSET "," PRIM_ACCESSORS "'meshes':[{'primitives':[{'attributes':{'POSITION':1}}]}]}");
    expect_json(MN_INVALID_VALUE, "meshes[0].primitives[0].indices",
                "{" ASSET "," PRIM_ACCESSORS "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'indices':2}]}]}");
    expect_json(MN_INVALID_VALUE, "meshes[0].primitives[0].indices",
                "{" ASSET "," PRIM_ACCESSORS "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'indices':3}]}]}");
    expect_json(MN_INVALID_VALUE, "meshes[0].primitives[0].attributes.JOINTS_0",
                "{" ASSET "," PRIM_ACCESSORS "'meshes':[{'primitives':[{'attributes':{'POSITION':0,'JOINTS_0':4,"
                "'WEIGHTS_0':4}}]}]}");
    expect_json(MN_INVALID_VALUE, "skins[0].inverseBindMatrices",
                "{" ASSET "," PRIM_ACCESSORS "'nodes':[{}],'skins':[{'joints':[0],'inverseBindMatrices':4}]}");
    expect_json(MN_INVALID_VALUE, "animations[0].samplers[0].input",
                "{" ASSET "," PRIM_ACCESSORS "'nodes':[{}],'animations':[{'channels':[{'sampler':0,"
                "'target':{'node':0,'path':'scale'}}],'samplers':[{'input':1,'output':0}]}]}");
    finish_cases();
}

/* ---- indices out of range ------------------------------------------------------------------- */

static void test_indices_out_of_range(void **state)
{
    (void)state;
    mismatches = 0;
    expect_json(MN_INDEX_RANGE, "nodes[0].mesh", "{" ASSET ",'nodes':[{'mesh':0}]}");
    expect_json(MN_INDEX_RANGE, "nodes[0].mesh", "{" ASSET ",'nodes':[{'mesh':-1}]}");
    /* 2^32-1 is MN_NONE inside the model: it must not read as "no mesh". */
    expect_json(MN_INDEX_RANGE, "nodes[0].mesh", "{" ASSET ",'nodes':[{'mesh':4294967295}]}");
    expect_json(MN_INDEX_RANGE, "nodes[0].mesh", "{" ASSET ",'nodes':[{'mesh':1099511627776}]}");
    expect_json(MN_INDEX_RANGE, "nodes[0].skin", "{" ASSET ",'nodes':[{'skin':2}]}");
    expect_json(MN_INDEX_RANGE, "nodes[0].camera", "{" ASSET ",'nodes':[{'camera':0}]}");
    expect_json(MN_INDEX_RANGE, "nodes[0].children[1]", "{" ASSET ",'nodes':[{'children':[1,7]},{}]}");
    expect_json(MN_INDEX_RANGE, "nodes[0].children[0]", "{" ASSET ",'nodes':[{'children':[-1]}]}");
    expect_json(MN_INDEX_RANGE, "scenes[0].nodes[0]", "{" ASSET ",'nodes':[{}],'scenes':[{'nodes':[3]}]}");
    expect_json(MN_INDEX_RANGE, "scene", "{" ASSET ",'nodes':[{}],'scenes':[{'nodes':[0]}],'scene':1}");
    expect_json(MN_INDEX_RANGE, "scene", "{" ASSET ",'scene':0}");

    expect_json(MN_INDEX_RANGE, "accessors[0].bufferView",
                "{" ASSET ",'accessors':[{'bufferView':0,'componentType':5126,'count':1,'type':'SCALAR'}]}");
    /* glTF-Validator accessor/unresolved_bufferviews.gltf, reduced. */
    expect_json(MN_INDEX_RANGE, "accessors[0].sparse.indices.bufferView",
                "{" ASSET ",'accessors':[{'componentType':5126,'count':2,'type':'SCALAR','sparse':{'count':1,"
                "'indices':{'bufferView':1,'componentType':5121},'values':{'bufferView':1}}}]}");
    expect_json(MN_INDEX_RANGE, "bufferViews[0].buffer",
                "{" ASSET ",'buffers':[{'byteLength':4,'uri':'data:application/octet-stream;base64,AAAAAA=='}],"
                "'bufferViews':[{'buffer':1,'byteLength':4}]}");
    expect_json(MN_INDEX_RANGE, "meshes[0].primitives[0].attributes.POSITION",
                "{" ASSET ",'meshes':[{'primitives':[{'attributes':{'POSITION':9}}]}]}");
    expect_json(MN_INDEX_RANGE, "meshes[0].primitives[0].indices",
                "{" ASSET "," PRIM_ACCESSORS "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'indices':9}]}]}");
    expect_json(MN_INDEX_RANGE, "meshes[0].primitives[0].material",
                "{" ASSET "," PRIM_ACCESSORS "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'material':0}]}]}");
    expect_json(MN_INDEX_RANGE, "meshes[0].primitives[0].targets[0].POSITION",
                "{" ASSET "," PRIM_ACCESSORS "'meshes':[{'primitives':[{'attributes':{'POSITION':0},"
                "'targets':[{'POSITION':12}]}]}]}");
    /* glTF-Validator skin/unresolved_joint.gltf. */
    expect_json(MN_INDEX_RANGE, "skins[0].joints[0]", "{" ASSET ",'skins':[{'joints':[0]}]}");
    expect_json(MN_INDEX_RANGE, "skins[0].skeleton", "{" ASSET ",'nodes':[{}],'skins':[{'joints':[0],'skeleton':4}]}");
    expect_json(MN_INDEX_RANGE, "skins[0].inverseBindMatrices",
                "{" ASSET ",'nodes':[{}],'skins':[{'joints':[0],'inverseBindMatrices':0}]}");
    expect_json(MN_INDEX_RANGE, "animations[0].channels[0].sampler",
                ANIM_HEAD "'animations':[{'channels':[{'sampler':1,'target':{'node':0,'path':'scale'}}],"
                "'samplers':[{'input':0,'output':1}]}]}");
    expect_json(MN_INDEX_RANGE, "animations[0].channels[0].target.node",
                ANIM_HEAD "'animations':[{'channels':[{'sampler':0,'target':{'node':5,'path':'scale'}}],"
                "'samplers':[{'input':0,'output':1}]}]}");
    expect_json(MN_INDEX_RANGE, "animations[0].samplers[0].input",
                ANIM_HEAD "'animations':[{'channels':[{'sampler':0,'target':{'node':0,'path':'scale'}}],"
                "'samplers':[{'input':7,'output':1}]}]}");
    expect_json(MN_INDEX_RANGE, "textures[0].source", "{" ASSET ",'textures':[{'source':3}]}");
    expect_json(MN_INDEX_RANGE, "textures[0].sampler", "{" ASSET ",'textures':[{'sampler':0}]}");
    expect_json(MN_INDEX_RANGE, "materials[0].pbrMetallicRoughness.baseColorTexture.index",
                "{" ASSET ",'materials':[{'pbrMetallicRoughness':{'baseColorTexture':{'index':0}}}]}");
    expect_json(MN_INDEX_RANGE, "materials[0].emissiveTexture.index",
                "{" ASSET ",'materials':[{'emissiveTexture':{'index':2}}]}");
    expect_json(MN_INDEX_RANGE, "images[0].bufferView", "{" ASSET ",'images':[{'bufferView':0,'mimeType':'image/png'}]}");

    /* Index data naming a vertex that does not exist (validator mesh_data/index_buffer_oob.gltf). */
    gb_builder b;
    gb_init(&b);
    size_t pos = gb_bin_f32(&b, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0);
    size_t idx = gb_bin_u16(&b, 0, 1, 2, 3, 2, 5);
    gb_bin_align(&b, 4);
    gb_json(&b, "{" ASSET ",'buffers':[{'byteLength':%zu}],'bufferViews':[{'buffer':0,'byteLength':%zu}],"
                "'accessors':[{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':4,'type':'VEC3',"
                "'min':[0,0,0],'max':[1,1,0]},"
                "{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':6,'type':'SCALAR'}],"
                "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'indices':1}]}]}",
            gb_bin_size(&b), gb_bin_size(&b), pos, F32, idx, U16);
    expect_glb(&b, MN_INDEX_RANGE, "meshes[0].primitives[0].indices");
    gb_free(&b);

    /* A sparse index past the accessor's count. */
    gb_init(&b);
    size_t si = gb_bin_u8(&b, 1, 2);
    size_t sv = gb_bin_f32(&b, 5, 6);
    gb_json(&b, "{" ASSET ",'buffers':[{'byteLength':%zu}],'bufferViews':[{'buffer':0,'byteLength':%zu}],"
                "'accessors':[{'componentType':%d,'count':2,'type':'SCALAR','sparse':{'count':2,"
                "'indices':{'bufferView':0,'byteOffset':%zu,'componentType':%d},"
                "'values':{'bufferView':0,'byteOffset':%zu}}}]}",
            gb_bin_size(&b), gb_bin_size(&b), F32, si, U8, sv);
    expect_glb(&b, MN_INDEX_RANGE, "accessors[0].sparse.indices");
    gb_free(&b);

    /* Sparse indices that do not increase. */
    gb_init(&b);
    si = gb_bin_u8(&b, 1, 0);
    sv = gb_bin_f32(&b, 5, 6);
    gb_json(&b, "{" ASSET ",'buffers':[{'byteLength':%zu}],'bufferViews':[{'buffer':0,'byteLength':%zu}],"
                "'accessors':[{'componentType':%d,'count':4,'type':'SCALAR','sparse':{'count':2,"
                "'indices':{'bufferView':0,'byteOffset':%zu,'componentType':%d},"
                "'values':{'bufferView':0,'byteOffset':%zu}}}]}",
            gb_bin_size(&b), gb_bin_size(&b), F32, si, U8, sv);
    expect_glb_in(&b, ONE(MN_INVALID_VALUE) | ONE(MN_INDEX_RANGE), "accessors[0].sparse.indices");
    gb_free(&b);
    finish_cases();
}

/* ---- ranges: buffer views and accessors ------------------------------------------------- */

static void test_views_and_accessors_past_their_storage(void **state)
{
    (void)state;
    mismatches = 0;
    gb_builder b;

    /* glTF-Validator buffer_view/invalid_length.gltf: both views run past the 4-byte buffer. */
    expect_json(MN_BUFFER_VIEW_BOUNDS, "bufferViews[0].byteLength",
                "{" ASSET ",'buffers':[{'byteLength':4,'uri':'data:application/octet-stream;base64,AAAAAA=='}],"
                "'bufferViews':[{'buffer':0,'byteLength':5}]}");
    expect_json(MN_BUFFER_VIEW_BOUNDS, "bufferViews[1].byteOffset",
                "{" ASSET ",'buffers':[{'byteLength':4,'uri':'data:application/octet-stream;base64,AAAAAA=='}],"
                "'bufferViews':[{'buffer':0,'byteLength':4},{'buffer':0,'byteOffset':4,'byteLength':4}]}");
    expect_json(MN_BUFFER_VIEW_BOUNDS, "bufferViews[0].byteLength",
                "{" ASSET ",'buffers':[{'byteLength':4,'uri':'data:application/octet-stream;base64,AAAAAA=='}],"
                "'bufferViews':[{'buffer':0,'byteLength':9007199254740992}]}");
    expect_json_in(ONE(MN_BUFFER_VIEW_BOUNDS) | ONE(MN_OVERFLOW) | ONE(MN_INVALID_VALUE), "bufferViews[0]*",
                   "{" ASSET ",'buffers':[{'byteLength':4,'uri':'data:application/octet-stream;base64,AAAAAA=='}],"
                   "'bufferViews':[{'buffer':0,'byteOffset':9223372036854775807,"
                   "'byteLength':9223372036854775807}]}");

    /* An accessor reaching past its view: 3 × 12 bytes in a 32-byte view, or starting past it. */
    gb_init(&b);
    for (int i = 0; i < 64; i++)
        gb_bin_u8(&b, (uint8_t)i);   /* ascending bytes: any sparse indices read from here increase */
    gb_json(&b, "{" ASSET ",'buffers':[{'byteLength':64}],'bufferViews':[{'buffer':0,'byteLength':32},"
                "{'buffer':0,'byteOffset':0,'byteLength':43,'byteStride':16},"
                "{'buffer':0,'byteOffset':0,'byteLength':44,'byteStride':16},"
                "{'buffer':0,'byteOffset':60,'byteLength':4}],");
    size_t mark = b.json_len;
    gb_json(&b, "'accessors':[{'bufferView':0,'componentType':%d,'count':3,'type':'VEC3'}]}", F32);
    expect_glb(&b, MN_ACCESSOR_BOUNDS, "accessors[0]");
    b.json_len = mark;
    gb_json(&b, "'accessors':[{'bufferView':0,'byteOffset':40,'componentType':%d,'count':1,'type':'SCALAR'}]}", F32);
    expect_glb(&b, MN_ACCESSOR_BOUNDS, "accessors[0]");
    /* Strided: the last element needs only its own 12 bytes, so 44 fits and 43 does not. */
    b.json_len = mark;
    gb_json(&b, "'accessors':[{'bufferView':2,'componentType':%d,'count':3,'type':'VEC3'}]}", F32);
    expect_glb(&b, MN_OK, NULL);
    b.json_len = mark;
    gb_json(&b, "'accessors':[{'bufferView':1,'componentType':%d,'count':3,'type':'VEC3'}]}", F32);
    expect_glb(&b, MN_ACCESSOR_BOUNDS, "accessors[0]");
    /* Sparse indices and values past their views. */
    b.json_len = mark;
    gb_json(&b, "'accessors':[{'componentType':%d,'count':8,'type':'SCALAR','sparse':{'count':8,"
                "'indices':{'bufferView':3,'componentType':%d},'values':{'bufferView':0}}}]}", F32, U8);
    expect_glb(&b, MN_ACCESSOR_BOUNDS, "accessors[0].sparse.indices.byteOffset");
    b.json_len = mark;
    gb_json(&b, "'accessors':[{'componentType':%d,'count':64,'type':'SCALAR','sparse':{'count':4,"
                "'indices':{'bufferView':3,'componentType':%d},'values':{'bufferView':3}}}]}", F32, U8);
    expect_glb(&b, MN_ACCESSOR_BOUNDS, "accessors[0].sparse.values.byteOffset");

    /* count × stride that a 32-bit product would wrap: never a pass, never a huge read. */
    b.json_len = mark;
    gb_json(&b, "'accessors':[{'bufferView':0,'componentType':%d,'count':2147483647,'type':'VEC4'}]}", F32);
    expect_glb_in(&b, ONE(MN_ACCESSOR_BOUNDS) | ONE(MN_OVERFLOW), "accessors[0]*");
    b.json_len = mark;
    gb_json(&b, "'accessors':[{'bufferView':0,'componentType':%d,'count':4294967295,'type':'MAT4'}]}", F32);
    expect_glb_in(&b, ONE(MN_ACCESSOR_BOUNDS) | ONE(MN_OVERFLOW), "accessors[0]*");
    b.json_len = mark;
    gb_json(&b, "'accessors':[{'bufferView':0,'componentType':%d,'count':4294967296,'type':'SCALAR'}]}", F32);
    expect_glb_in(&b, ONE(MN_INVALID_VALUE) | ONE(MN_OVERFLOW), "accessors[0].count");
    b.json_len = mark;
    gb_json(&b, "'accessors':[{'bufferView':0,'byteOffset':4294967296,'componentType':%d,'count':1,'type':'SCALAR'}]}", F32);
    expect_glb_in(&b, ONE(MN_ACCESSOR_BOUNDS) | ONE(MN_INVALID_VALUE), "accessors[0]*");
    gb_free(&b);

    /* buffers[0].byteLength far beyond the data the data: URI carries. */
    expect_json_in(ONE(MN_INVALID_VALUE) | ONE(MN_BASE64) | ONE(MN_BUFFER_VIEW_BOUNDS) | ONE(MN_COUNT_MISMATCH),
                   "buffers[0]*",
                   "{" ASSET ",'buffers':[{'byteLength':9007199254740992,"
                   "'uri':'data:application/octet-stream;base64,AAAAAA=='}]}");
    expect_json_in(ONE(MN_INVALID_VALUE) | ONE(MN_BASE64) | ONE(MN_BUFFER_VIEW_BOUNDS) | ONE(MN_COUNT_MISMATCH),
                   "buffers[0]*",
                   "{" ASSET ",'buffers':[{'byteLength':8,'uri':'data:application/octet-stream;base64,AAAAAA=='}]}");
    finish_cases();
}

/* An allocator that refuses any single request over 64 MiB. */
typedef struct capped {
    mn_counting_alloc counter;
    mn_allocator inner;
} capped;

static void *capped_alloc(void *user, size_t size)
{
    capped *c = user;
    if (size > ((size_t)64 << 20))
        return NULL;
    return c->inner.alloc(c->inner.user, size);
}

static void capped_free(void *user, void *ptr, size_t size)
{
    capped *c = user;
    c->inner.free(c->inner.user, ptr, size);
}

static void test_huge_accessors_without_data_fail_cleanly(void **state)
{
    (void)state;
    mismatches = 0;
    capped c;
    c.counter = mn_counting_alloc_make();
    c.inner = mn_counting_allocator(&c.counter);
    mn_gltf_options o;
    memset(&o, 0, sizeof o);
    o.allocator = (mn_allocator){ capped_alloc, capped_free, &c };

    /*
     * No bufferView reads as zeros, which the reader must materialise: 2^32-1
     * MAT4s is 256 GiB.  With an allocator that cannot give that much, the
     * read fails cleanly (out of memory, or refused as too large).
     */
    const char *texts[2] = {
        "{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,"
        "\"count\":4294967295,\"type\":\"MAT4\"}]}",
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":20,"
        "\"uri\":\"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAAAAAAAAAAA=\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":20}],"
        "\"accessors\":[{\"componentType\":5126,\"count\":2147483647,\"type\":\"VEC4\","
        "\"sparse\":{\"count\":1,\"indices\":{\"bufferView\":0,\"componentType\":5125},"
        "\"values\":{\"bufferView\":0,\"byteOffset\":4}}}]}",
    };
    for (int i = 0; i < 2; i++) {
        check_case(__FILE__, __LINE__, texts[i], strlen(texts[i]), &o,
                   ONE(MN_OUT_OF_MEMORY) | ONE(MN_OVERFLOW) | ONE(MN_INVALID_VALUE), NULL);
        assert_int_equal(c.counter.live_bytes, 0);
    }
    finish_cases();
}

/* ---- base64 and URIs --------------------------------------------------------------------------- */

static mn_status fail_read(void *user, const char *base_dir, const char *uri, mn_bytes *out,
                           mn_error *err)
{
    (void)base_dir;
    (void)out;
    int *calls = user;
    ++*calls;
    if (err) {
        memset(err, 0, sizeof *err);
        err->code = MN_IO;
        err->offset = -1;
        snprintf(err->message, sizeof err->message, "%s: no such file in this test", uri);
    }
    return MN_IO;
}

static void test_bad_base64_and_uris(void **state)
{
    (void)state;
    mismatches = 0;
#define DATA_BUFFER(len, payload) \
    "{" ASSET ",'buffers':[{'byteLength':" #len ",'uri':'data:application/octet-stream;base64," payload "'}]}"
    expect_json(MN_OK, NULL, DATA_BUFFER(3, "AAAA"));
    expect_json(MN_BASE64, "buffers[0].uri", DATA_BUFFER(3, "AAA*"));
    expect_json(MN_BASE64, "buffers[0].uri", DATA_BUFFER(1, "A==="));
    expect_json(MN_BASE64, "buffers[0].uri", DATA_BUFFER(3, "AAAAA"));
    expect_json(MN_BASE64, "buffers[0].uri", DATA_BUFFER(2, "AA=A"));
    expect_json(MN_BASE64, "buffers[0].uri", DATA_BUFFER(3, "AA AA"));
    /* glTF-Validator buffer/invalid_uri_data.gltf: a doubled semicolon. */
    expect_json_in(ONE(MN_URI) | ONE(MN_BASE64), "buffers[0].uri",
                   "{" ASSET ",'buffers':[{'byteLength':1,'uri':'data:application/octet-stream;;base64,AA=='}]}");
    expect_json(MN_BASE64, "images[0].uri", "{" ASSET ",'images':[{'uri':'data:image/png;base64,iV!BORw0KGgo='}]}");

    /* External URIs read from memory with no base_dir are refused. */
    expect_json(MN_URI, "buffers[0].uri", "{" ASSET ",'buffers':[{'byteLength':4,'uri':'model.bin'}]}");

    int calls = 0;
    mn_gltf_options o;
    memset(&o, 0, sizeof o);
    o.resolver.read = fail_read;
    o.resolver.user = &calls;
    o.base_dir = "somewhere";
    const char *texts[4] = {
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":\"model.bin\"}]}",
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":\"bad%zzname.bin\"}]}",
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":\"../up.bin\"}]}",
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":\"nul%00.bin\"}]}",
    };
    const mn_status want[4] = { MN_IO, MN_URI, MN_URI, MN_URI };
    for (int i = 0; i < 4; i++)
        check_case(__FILE__, __LINE__, texts[i], strlen(texts[i]), &o, ONE(want[i]), "buffers[0].uri");
    assert_int_equal(calls, 1);   /* only the well-formed, in-folder URI reached the resolver */

    /* mn_gltf_read_file: a missing file, and a buffer that is not beside the model. */
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_gltf_read_file("/nonexistent/marionette/none.glb", NULL, &m, &err), MN_IO);
    assert_null(m);
    print_message("%s: %s\n", mn_status_name(err.code), err.message);
    gb_tempdir dir;
    assert_true(gb_tempdir_create(&dir));
    const char *text = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":\"not_found.bin\"}]}";
    const char *path = gb_tempdir_write(&dir, "not_found.gltf", text, strlen(text));
    assert_non_null(path);
    assert_int_equal(mn_gltf_read_file(path, NULL, &m, &err), MN_IO);
    assert_null(m);
    assert_string_equal(err.path, "buffers[0].uri");
    print_message("%s at %s: %s\n", mn_status_name(err.code), err.path, err.message);
    gb_tempdir_remove(&dir);
    finish_cases();
}

/* ---- numbers that must be finite ------------------------------------------------------------ */

static void test_non_finite_numbers(void **state)
{
    (void)state;
    mismatches = 0;
    /* 1e39 is a fine double but overflows float to infinity. */
    expect_json(MN_NOT_FINITE, "nodes[0].translation*", "{" ASSET ",'nodes':[{'translation':[1e39,0,0]}]}");
    expect_json(MN_NOT_FINITE, "nodes[0].rotation*", "{" ASSET ",'nodes':[{'rotation':[0,0,0,-1e39]}]}");
    expect_json(MN_NOT_FINITE, "nodes[0].scale*", "{" ASSET ",'nodes':[{'scale':[1,1e300,1]}]}");
    expect_json(MN_NOT_FINITE, "nodes[0].matrix*",
                "{" ASSET ",'nodes':[{'matrix':[1,0,0,0,0,1,0,0,0,0,1,0,4e38,0,0,1]}]}");
    expect_json(MN_NOT_FINITE, "nodes[0].weights*",
                "{" ASSET ",'nodes':[{'weights':[1e40]}]}");
    expect_json(MN_NOT_FINITE, "materials[0].pbrMetallicRoughness.baseColorFactor*",
                "{" ASSET ",'materials':[{'pbrMetallicRoughness':{'baseColorFactor':[1,1,1e39,1]}}]}");
    expect_json(MN_NOT_FINITE, "materials[0].pbrMetallicRoughness.metallicFactor",
                "{" ASSET ",'materials':[{'pbrMetallicRoughness':{'metallicFactor':-1e39}}]}");
    expect_json(MN_NOT_FINITE, "materials[0].emissiveFactor*", "{" ASSET ",'materials':[{'emissiveFactor':[1e39,0,0]}]}");
    expect_json(MN_NOT_FINITE, "materials[0].alphaCutoff", "{" ASSET ",'materials':[{'alphaCutoff':1e39}]}");
    expect_json(MN_NOT_FINITE, "cameras[0].perspective.yfov",
                "{" ASSET ",'cameras':[{'type':'perspective','perspective':{'yfov':1e39,'znear':0.1}}]}");
    expect_json(MN_NOT_FINITE, "meshes[0].weights*",
                "{" ASSET "," PRIM_ACCESSORS "'meshes':[{'primitives':[{'attributes':{'POSITION':0},"
                "'targets':[{'POSITION':0}]}],'weights':[1e39]}]}");

    /* Non-finite binary data where finite values are required: key times and bind matrices. */
    gb_builder b;
    gb_init(&b);
    size_t t = gb_bin_f32(&b, 0, (float)INFINITY);
    size_t v = gb_bin_f32(&b, 0, 0, 0, 1, 1, 1);
    gb_bin_align(&b, 4);
    gb_json(&b, "{" ASSET ",'buffers':[{'byteLength':%zu}],'bufferViews':[{'buffer':0,'byteLength':%zu}],"
                "'accessors':[{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':2,'type':'SCALAR',"
                "'min':[0],'max':[1]},{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':2,'type':'VEC3'}],"
                "'nodes':[{}],'animations':[{'channels':[{'sampler':0,'target':{'node':0,'path':'scale'}}],"
                "'samplers':[{'input':0,'output':1}]}]}",
            gb_bin_size(&b), gb_bin_size(&b), t, F32, v, F32);
    expect_glb(&b, MN_NOT_FINITE, "animations[0].samplers[0].input");
    gb_free(&b);

    gb_init(&b);
    size_t ibm = gb_bin_f32(&b, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, (float)NAN, 0, 1);
    gb_json(&b, "{" ASSET ",'buffers':[{'byteLength':%zu}],'bufferViews':[{'buffer':0,'byteLength':%zu}],"
                "'accessors':[{'bufferView':0,'byteOffset':%zu,'componentType':%d,'count':1,'type':'MAT4'}],"
                "'nodes':[{}],'skins':[{'joints':[0],'inverseBindMatrices':0}]}",
            gb_bin_size(&b), gb_bin_size(&b), ibm, F32);
    expect_glb(&b, MN_NOT_FINITE, "skins[0].inverseBindMatrices");
    gb_free(&b);
    finish_cases();
}

/* ---- the node graph --------------------------------------------------------------------------- */

static void test_node_hierarchy_must_be_a_forest(void **state)
{
    (void)state;
    mismatches = 0;
    expect_json(MN_HIERARCHY, "nodes[1].children[0]", "{" ASSET ",'nodes':[{'children':[2]},{'children':[2]},{}]}");
    expect_json(MN_HIERARCHY, "nodes[0].children[1]", "{" ASSET ",'nodes':[{'children':[1,1]},{}]}");
    expect_json(MN_HIERARCHY, "nodes[0].children[0]", "{" ASSET ",'nodes':[{'children':[0]}]}");
    /* glTF-Validator node/node_loop.gltf: 0 → 1 → 2 → 0, every node with one parent. */
    expect_json(MN_HIERARCHY, "nodes[*", "{" ASSET ",'nodes':[{'children':[1]},{'children':[2]},{'children':[0]}]}");
    expect_json(MN_HIERARCHY, "nodes[*", "{" ASSET ",'nodes':[{},{'children':[2]},{'children':[1]}]}");
    /* A long chain is fine (no recursion limit hit, no quadratic blow-up at this size). */
    gb_builder b;
    gb_init(&b);
    gb_json(&b, "{" ASSET ",'nodes':[");
    for (int i = 0; i < 5000; i++)
        gb_json(&b, "%s{'children':[%d]}", i ? "," : "", i + 1);
    gb_json(&b, ",{}]}");
    check_case(__FILE__, __LINE__, gb_json_text(&b), gb_json_size(&b), NULL, ONE(MN_OK), NULL);
    gb_free(&b);

    /* A matrix with shear has no TRS. */
    expect_json(MN_SKEW, "nodes[0].matrix", "{" ASSET ",'nodes':[{'matrix':[1,0,0,0, 1,1,0,0, 0,0,1,0, 0,0,0,1]}]}");
    expect_json(MN_SKEW, "nodes[1].matrix",
                "{" ASSET ",'nodes':[{},{'matrix':[2,0,0,0, 0,1,0,0, 0,0.5,1,0, 0,0,0,1]}]}");
    finish_cases();
}

/* ---- counts that must agree -------------------------------------------------------------------- */

static void test_count_mismatches(void **state)
{
    (void)state;
    mismatches = 0;
#define COUNT_ACCESSORS "'accessors':[{'componentType':5126,'count':3,'type':'VEC3','min':[0,0,0],'max':[0,0,0]}," \
                        "{'componentType':5126,'count':4,'type':'VEC3'},{'componentType':5126,'count':1,'type':'SCALAR'," \
                        "'min':[0],'max':[0]},{'componentType':5126,'count':2,'type':'VEC3'}," \
                        "{'componentType':5126,'count':1,'type':'MAT4'},{'componentType':5126,'count':3,'type':'SCALAR'}],"
    expect_json(MN_COUNT_MISMATCH, "meshes[0].primitives[0].attributes.NORMAL",
                "{" ASSET "," COUNT_ACCESSORS "'meshes':[{'primitives':[{'attributes':{'POSITION':0,'NORMAL':1}}]}]}");
    /* glTF-Validator mesh/morph_attribute_invalid_count.gltf. */
    expect_json(MN_COUNT_MISMATCH, "meshes[0].primitives[0].targets[0].POSITION",
                "{" ASSET "," COUNT_ACCESSORS "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'targets':[{'POSITION':1}]}]}]}");
    expect_json(MN_COUNT_MISMATCH, "meshes[0].weights",
                "{" ASSET "," COUNT_ACCESSORS "'meshes':[{'primitives':[{'attributes':{'POSITION':0},"
                "'targets':[{'POSITION':0},{'POSITION':0}]}],'weights':[0.5]}]}");
    expect_json(MN_COUNT_MISMATCH, "meshes[0].primitives[1].targets",
                "{" ASSET "," COUNT_ACCESSORS "'meshes':[{'primitives':[{'attributes':{'POSITION':0},'targets':[{'POSITION':0}]},"
                "{'attributes':{'POSITION':0},'targets':[{'POSITION':0},{'POSITION':0}]}]}]}");
    expect_json(MN_COUNT_MISMATCH, "nodes[0].weights",
                "{" ASSET "," COUNT_ACCESSORS "'meshes':[{'primitives':[{'attributes':{'POSITION':0},"
                "'targets':[{'POSITION':0},{'POSITION':0}]}]}],'nodes':[{'mesh':0,'weights':[1,0,0]}]}");
    expect_json(MN_COUNT_MISMATCH, "skins[0].inverseBindMatrices",
                "{" ASSET "," COUNT_ACCESSORS "'nodes':[{},{}],'skins':[{'joints':[0,1],'inverseBindMatrices':4}]}");
    /*
     * glTF-Validator animation/sampler_output_count_invalid.gltf: 1 key, 2
     * outputs.  Reported at the channel, as the validator does: what the
     * output must hold depends on the channel's path (weights: targets per key).
     */
    expect_json(MN_COUNT_MISMATCH, "animations[0].channels[0].sampler",
                "{" ASSET "," COUNT_ACCESSORS "'nodes':[{}],'animations':[{'channels':[{'sampler':0,"
                "'target':{'node':0,'path':'translation'}}],'samplers':[{'input':2,'output':3}]}]}");
    /* CUBICSPLINE needs 3 outputs per key. */
    expect_json(MN_COUNT_MISMATCH, "animations[0].channels[0].sampler",
                "{" ASSET "," COUNT_ACCESSORS "'nodes':[{}],'animations':[{'channels':[{'sampler':0,"
                "'target':{'node':0,'path':'translation'}}],'samplers':[{'input':2,'output':3,"
                "'interpolation':'CUBICSPLINE'}]}]}");
    /* Weights: keys × targets outputs (1 key × 2 targets = 2, the accessor has 3). */
    expect_json(MN_COUNT_MISMATCH, "animations[0].channels[0].sampler",
                "{" ASSET "," COUNT_ACCESSORS "'meshes':[{'primitives':[{'attributes':{'POSITION':0},"
                "'targets':[{'POSITION':0},{'POSITION':0}]}]}],'nodes':[{'mesh':0}],"
                "'animations':[{'channels':[{'sampler':0,'target':{'node':0,'path':'weights'}}],"
                "'samplers':[{'input':2,'output':5}]}]}");
    finish_cases();
}

/* ---- extensions and tolerated flaws ----------------------------------------------------------- */

static void test_required_extensions_and_tolerated_flaws(void **state)
{
    (void)state;
    mismatches = 0;
    mn_error err = expect_json(MN_UNSUPPORTED_EXTENSION, "extensionsRequired[0]",
                               "{" ASSET ",'extensionsUsed':['EXT_lights_image_based'],"
                               "'extensionsRequired':['EXT_lights_image_based']}");
    assert_non_null(strstr(err.message, "EXT_lights_image_based"));
    err = expect_json(MN_UNSUPPORTED_EXTENSION, "extensionsRequired[1]",
                      "{" ASSET ",'extensionsUsed':['KHR_mesh_quantization','EXT_future'],"
                      "'extensionsRequired':['KHR_mesh_quantization','EXT_future']}");
    assert_non_null(strstr(err.message, "EXT_future"));

    /*
     * An animation path this reader does not know (KHR_animation_pointer's
     * "pointer", or a typo): harmless to a runtime, so the model loads and a
     * warning names the channel.
     */
    gb_builder b;
    gb_init(&b);
    gb_json(&b, ANIM_HEAD "'animations':[{'channels':[{'sampler':0,'target':{'node':0,'path':'scale'}},"
                          "{'sampler':0,'target':{'node':0,'path':'unknown'}}],"
                          "'samplers':[{'input':0,'output':1}]}]}");
    mn_model *m = NULL;
    mn_status status = mn_gltf_read_memory(gb_json_text(&b), gb_json_size(&b), NULL, &m, &err);
    if (status != MN_OK)
        print_error("unknown path refused: %s at %s: %s\n", mn_status_name(status), err.path, err.message);
    assert_int_equal(status, MN_OK);
    assert_true(m->warning_count >= 1);
    bool named = false;
    for (uint32_t i = 0; i < m->warning_count; i++) {
        print_message("warning %s at %s: %s\n", mn_status_name(m->warnings[i].code),
                      m->warnings[i].path, m->warnings[i].message);
        named |= strcmp(m->warnings[i].path, "animations[0].channels[1].target.path") == 0;
    }
    assert_true(named);
    mn_model_free(m);
    gb_free(&b);
    finish_cases();
}

/* ---- the API's own contract ------------------------------------------------------------------- */

static void test_invalid_arguments(void **state)
{
    (void)state;
    mn_model *m = NULL;
    mn_error err;
    const char *text = "{\"asset\":{\"version\":\"2.0\"}}";
    assert_int_equal(mn_gltf_read_memory(text, strlen(text), NULL, NULL, &err), MN_INVALID_ARGUMENT);
    assert_int_equal(mn_gltf_read_memory(NULL, 10, NULL, &m, &err), MN_INVALID_ARGUMENT);
    assert_null(m);
    assert_int_equal(mn_gltf_read_file(NULL, NULL, &m, &err), MN_INVALID_ARGUMENT);
    assert_null(m);
    /* err may be NULL: the code alone comes back. */
    assert_int_equal(mn_gltf_read_memory("{]", 2, NULL, &m, NULL), MN_JSON_SYNTAX);
    assert_null(m);
    assert_int_equal(mn_gltf_read_memory(text, strlen(text), NULL, &m, &err), MN_OK);
    mn_model_free(m);
    mn_model_free(NULL);
}

/* ---- sweeps ------------------------------------------------------------------------------------- */

static void test_truncated_glb_fails_cleanly_at_every_length(void **state)
{
    (void)state;
    gb_blob glb = sample_glb();
    size_t counts[MN_STATUS_COUNT] = { 0 };
    for (size_t len = 0; len < glb.size; len++) {
        mn_error err;
        mn_status status = read_input(glb.data, len, NULL, &err);
        assert_int_not_equal(status, MN_OK);
        counts[status]++;
        if (len >= 12)   /* a chunk now runs past the end, or the header's length no longer matches */
            assert_true(status == MN_GLB_CHUNK || status == MN_GLB_LENGTH);
        else if (len >= 4)
            assert_int_equal(status, MN_GLB_HEADER);
    }
    for (int c = 0; c < MN_STATUS_COUNT; c++)
        if (counts[c])
            print_message("%zu lengths: %s\n", counts[c], mn_status_name((mn_status)c));
    gb_blob_free(&glb);
}

static void test_truncated_gltf_fails_cleanly_at_every_length(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    gb_sample_model(&b, true);
    const char *text = gb_json_text(&b);
    size_t size = gb_json_size(&b);
    for (size_t len = 0; len < size; len++) {
        mn_error err;
        mn_status status = read_input(text, len, NULL, &err);
        assert_int_not_equal(status, MN_OK);
        if (len > 0)
            assert_int_equal(status, MN_JSON_SYNTAX);
    }
    gb_free(&b);
}

/* xorshift64*: a fixed seed gives the same sweep on every run and machine. */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static void report_outcomes(const char *what, const size_t *counts)
{
    for (int c = 0; c < MN_STATUS_COUNT; c++)
        if (counts[c])
            print_message("%s: %5zu x %s\n", what, counts[c], mn_status_name((mn_status)c));
}

static void test_random_byte_flips_load_or_fail_cleanly(void **state)
{
    (void)state;
    gb_blob glb = sample_glb();
    uint8_t *copy = malloc(glb.size);
    assert_non_null(copy);
    uint64_t seed = 0x6D6172696F6E6574ULL;   /* "marionet" */
    size_t counts[MN_STATUS_COUNT] = { 0 };
    for (int round = 0; round < 3000; round++) {
        memcpy(copy, glb.data, glb.size);
        int flips = 1 + (int)(next_random(&seed) % 4);
        for (int f = 0; f < flips; f++) {
            size_t at = (size_t)(next_random(&seed) % glb.size);
            copy[at] ^= (uint8_t)(1 + next_random(&seed) % 255);
        }
        mn_error err;
        counts[read_input(copy, glb.size, NULL, &err)]++;
    }
    report_outcomes("byte flips", counts);
    free(copy);
    gb_blob_free(&glb);
}

/* Mutations inside the JSON text that keep the container valid: digits and punctuation. */
static void test_random_json_edits_load_or_fail_cleanly(void **state)
{
    (void)state;
    gb_builder b;
    gb_init(&b);
    gb_sample_model(&b, false);
    gb_blob glb = gb_glb(&b);
    size_t json_start = 20, json_end = 20 + gb_json_size(&b);
    uint8_t *copy = malloc(glb.size);
    assert_non_null(copy);
    static const char replacements[] = "0123456789-.e{}[]:,\" ";
    uint64_t seed = 0x676C54462D6A736FULL;
    size_t counts[MN_STATUS_COUNT] = { 0 };
    for (int round = 0; round < 3000; round++) {
        memcpy(copy, glb.data, glb.size);
        int edits = 1 + (int)(next_random(&seed) % 3);
        for (int e = 0; e < edits; e++) {
            size_t at = json_start + (size_t)(next_random(&seed) % (json_end - json_start));
            bool digit_only = (copy[at] >= '0' && copy[at] <= '9') || round % 2 == 0;
            if (digit_only) {
                /* Find the next digit from here and change it: indices, counts, offsets. */
                while (at < json_end && !(copy[at] >= '0' && copy[at] <= '9'))
                    at++;
                if (at == json_end)
                    continue;
                copy[at] = (uint8_t)('0' + next_random(&seed) % 10);
            } else {
                copy[at] = (uint8_t)replacements[next_random(&seed) % (sizeof replacements - 1)];
            }
        }
        mn_error err;
        counts[read_input(copy, glb.size, NULL, &err)]++;
    }
    report_outcomes("JSON edits", counts);
    free(copy);
    gb_blob_free(&glb);
    gb_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_glb_container_errors),
        cmocka_unit_test(test_json_syntax_errors_give_line_and_column),
        cmocka_unit_test(test_wrong_json_types),
        cmocka_unit_test(test_missing_required_properties),
        cmocka_unit_test(test_invalid_values),
        cmocka_unit_test(test_indices_out_of_range),
        cmocka_unit_test(test_views_and_accessors_past_their_storage),
        cmocka_unit_test(test_huge_accessors_without_data_fail_cleanly),
        cmocka_unit_test(test_bad_base64_and_uris),
        cmocka_unit_test(test_non_finite_numbers),
        cmocka_unit_test(test_node_hierarchy_must_be_a_forest),
        cmocka_unit_test(test_count_mismatches),
        cmocka_unit_test(test_required_extensions_and_tolerated_flaws),
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_truncated_glb_fails_cleanly_at_every_length),
        cmocka_unit_test(test_truncated_gltf_fails_cleanly_at_every_length),
        cmocka_unit_test(test_random_byte_flips_load_or_fail_cleanly),
        cmocka_unit_test(test_random_json_edits_load_or_fail_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
