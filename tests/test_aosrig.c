/*
 * .aosrig packs (character-formats.md sections 1 and 11): the synthetic head
 * packed with the writer reads back equal, as views into the bytes, and
 * re-packs to the same bytes; every refusal of section 1 and 11's check list
 * is triggered by a corrupted copy and named by code and path; f16 decoding
 * and encoding are exact; header numbers print as ECMAScript prints them;
 * the writer's four-pass layout gives up on a header that will not settle.
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
#include <unistd.h>

#include <marionette/head/aosrig.h>

#include "counting_alloc.h"
#include "head/aosrig_internal.h" /* mni_js_number */
#include "synthetic_head.h"

/* ---- helpers ------------------------------------------------------------------------- */

typedef struct packed {
    uint8_t *bytes;
    size_t size;
} packed;

static synthetic_head_options full_options(void)
{
    return (synthetic_head_options){.coeff_count = 8, .seed = 7, .uv = true, .quads = true,
                                    .stitch = true, .bind_transform = true, .mouth = true};
}

static packed pack_head(const synthetic_head *h)
{
    packed p;
    mn_error err;
    mn_status st = synthetic_head_pack(h, &p.bytes, &p.size, &err);
    if (st != MN_OK)
        fail_msg("packing the synthetic head failed: %s", err.message);
    return p;
}

static packed pack_full(synthetic_head *h)
{
    synthetic_head_options o = full_options();
    synthetic_head_build(h, &o);
    return pack_head(h);
}

/* A copy of the pack's bytes (malloc: 16-byte aligned, as the reader wants for views). */
static uint8_t *copy_bytes(const packed *p)
{
    uint8_t *c = malloc(p->size + 16);
    assert_non_null(c);
    memcpy(c, p->bytes, p->size);
    return c;
}

static uint32_t header_length(const uint8_t *bytes)
{
    return (uint32_t)bytes[8] | (uint32_t)bytes[9] << 8 | (uint32_t)bytes[10] << 16 |
           (uint32_t)bytes[11] << 24;
}

/* Read `bytes` and expect failure with `code`, a path containing `path` and a message containing `says`. */
static void expect_refusal(const uint8_t *bytes, size_t size, mn_status code, const char *path,
                           const char *says)
{
    mn_aosrig *pack = (mn_aosrig *)(uintptr_t)1;
    mn_error err;
    mn_status st = mn_aosrig_read_memory(bytes, size, NULL, &pack, &err);
    if (st != code)
        fail_msg("expected %s, got %s: %s", mn_status_name(code), mn_status_name(st), err.message);
    assert_null(pack);
    assert_int_equal(err.code, code);
    if (path && !strstr(err.path, path))
        fail_msg("path \"%s\" does not name \"%s\" (%s)", err.path, path, err.message);
    if (says && !strstr(err.message, says))
        fail_msg("message \"%s\" does not say \"%s\"", err.message, says);
}

/*
 * A new file whose header is the pack's with the first `from` replaced by
 * `to`, followed by the original blob area (offsets not adjusted: for the
 * header checks, which all come before the blobs are placed).
 */
static packed edit_header(const packed *p, const char *from, const char *to)
{
    uint32_t h = header_length(p->bytes);
    const char *text = (const char *)p->bytes + 16;
    char *header = malloc(h + 1);
    assert_non_null(header);
    memcpy(header, text, h);
    header[h] = '\0';
    char *at = strstr(header, from);
    if (!at)
        fail_msg("\"%s\" is not in the header", from);
    size_t new_h = h - strlen(from) + strlen(to);
    size_t blob_start = (16 + h + 7) & ~(size_t)7;
    size_t new_start = (16 + new_h + 7) & ~(size_t)7;
    packed out = {.size = new_start + (p->size - blob_start)};
    out.bytes = calloc(1, out.size);
    assert_non_null(out.bytes);
    memcpy(out.bytes, p->bytes, 16);
    out.bytes[8] = (uint8_t)new_h, out.bytes[9] = (uint8_t)(new_h >> 8);
    out.bytes[10] = (uint8_t)(new_h >> 16), out.bytes[11] = (uint8_t)(new_h >> 24);
    size_t before = (size_t)(at - header);
    memcpy(out.bytes + 16, header, before);
    memcpy(out.bytes + 16 + before, to, strlen(to));
    memcpy(out.bytes + 16 + before + strlen(to), at + strlen(from), h - before - strlen(from));
    memcpy(out.bytes + new_start, p->bytes + blob_start, p->size - blob_start);
    free(header);
    return out;
}

/* The header text of blob `name`'s buffers entry, e.g. {"name":"uv",...}. */
static void blob_entry(const packed *p, const char *name, char *out, size_t cap)
{
    uint32_t h = header_length(p->bytes);
    char *header = malloc(h + 1);
    assert_non_null(header);
    memcpy(header, p->bytes + 16, h);
    header[h] = '\0';
    char key[64];
    snprintf(key, sizeof key, "{\"name\":\"%s\",", name);
    char *at = strstr(header, key);
    assert_non_null(at);
    char *end = strchr(at, '}');
    assert_non_null(end);
    size_t n = (size_t)(end - at + 1);
    assert_true(n < cap);
    memcpy(out, at, n);
    out[n] = '\0';
    free(header);
}

/* edit_header on blob `name`'s entry: member `key` takes the JSON text `value`. */
static packed edit_blob(const packed *p, const char *name, const char *key, const char *value)
{
    char entry[512], edited[512], member[64];
    blob_entry(p, name, entry, sizeof entry);
    snprintf(member, sizeof member, "\"%s\":", key);
    char *at = strstr(entry, member);
    assert_non_null(at);
    char *value_start = at + strlen(member);
    char *value_end = value_start;
    int depth = 0;
    while (*value_end && (depth > 0 || (*value_end != ',' && *value_end != '}'))) {
        depth += *value_end == '[' ? 1 : *value_end == ']' ? -1 : 0;
        value_end++;
    }
    snprintf(edited, sizeof edited, "%.*s%s%s", (int)(value_start - entry), entry, value,
             value_end);
    return edit_header(p, entry, edited);
}

/* Rewrite the number after `"key":` in blob `name`'s entry, in place; it must keep its length. */
static void poke_blob_number(uint8_t *bytes, const packed *p, const char *name, const char *key,
                             unsigned long long value)
{
    char entry[512], member[64], digits[32];
    blob_entry(p, name, entry, sizeof entry);
    uint32_t h = header_length(p->bytes);
    char *header = (char *)bytes + 16;
    char *found = NULL;
    for (uint32_t i = 0; i + strlen(entry) <= h && !found; i++)
        if (memcmp(header + i, entry, strlen(entry)) == 0)
            found = header + i;
    assert_non_null(found);
    snprintf(member, sizeof member, "\"%s\":", key);
    char *at = strstr(entry, member);
    assert_non_null(at);
    char *number = found + (at - entry) + strlen(member);
    size_t len = strspn(number, "0123456789");
    snprintf(digits, sizeof digits, "%llu", value);
    if (strlen(digits) != len)
        fail_msg("%s.%s: %s does not fit the %zu digits there", name, key, digits, len);
    memcpy(number, digits, len);
}

static const mn_aosrig_blob *blob_of(const mn_aosrig *pack, const char *name)
{
    const mn_aosrig_blob *b = mn_aosrig_find_blob(pack, name);
    if (!b)
        fail_msg("no blob \"%s\"", name);
    return b;
}

static mn_aosrig *read_ok(const uint8_t *bytes, size_t size)
{
    mn_aosrig *pack = NULL;
    mn_error err;
    mn_status st = mn_aosrig_read_memory(bytes, size, NULL, &pack, &err);
    if (st != MN_OK)
        fail_msg("reading failed: %s (%s)", err.message, mn_status_name(st));
    return pack;
}

/* ---- reading back ---------------------------------------------------------------------- */

static void assert_blob_equals(const mn_aosrig *pack, const mn_aosrig_blob *in)
{
    const mn_aosrig_blob *b = blob_of(pack, in->name);
    assert_int_equal(b->dtype, in->dtype);
    assert_int_equal(b->rank, in->rank);
    for (uint32_t d = 0; d < in->rank; d++)
        assert_int_equal(b->shape[d], in->shape[d]);
    assert_int_equal(b->size, in->size);
    assert_int_equal(b->offset % 8, 0);
    assert_ptr_equal(b->data, pack->bytes + b->offset);
    assert_memory_equal(b->data, in->data, (size_t)in->size);
}

static void the_synthetic_head_reads_back_equal(void **state)
{
    (void)state;
    synthetic_head h;
    packed p = pack_full(&h);
    mn_aosrig *pack = read_ok(p.bytes, p.size);
    const mn_aosrig_header *hd = &pack->header;
    assert_int_equal(hd->units, MN_AOSRIG_METRES);
    assert_int_equal(hd->vertex_count, h.vertex_count);
    assert_int_equal(hd->coeff_count, 8);
    assert_int_equal(hd->max_influence, 2);
    for (uint32_t e = 0; e < 8; e++)
        assert_string_equal(hd->names[e], h.header.names[e]);
    assert_int_equal(hd->head_ext.dim, 12);
    assert_int_equal(hd->head_ext.expr_dim, 8);
    assert_int_equal(hd->head_ext.gaze_dim, 4);
    assert_int_equal(hd->head_ext.region_count, 4);
    static const uint32_t starts[4] = {0, 2, 4, 7};
    for (uint32_t r = 0; r < 4; r++) {
        const mn_aosrig_region *a = &hd->head_ext.regions[r], *b = &h.header.head_ext.regions[r];
        assert_string_equal(a->name, b->name);
        assert_int_equal(a->count, b->count);
        assert_int_equal(a->start, starts[r]);
        assert_int_equal(a->has_reduced, b->has_reduced);
        assert_int_equal(a->reduced, b->reduced);
    }
    assert_int_equal(hd->joint_count, 3);
    assert_string_equal(hd->joint_names[0], "neck_01");
    assert_string_equal(hd->joint_names[2], "head");
    assert_string_equal(hd->eye_joints[0], "head");
    assert_int_equal(pack->eye_joint[0], 2);
    assert_int_equal(pack->eye_joint[1], 2);
    assert_true(hd->has_bind_transform);
    for (int i = 0; i < 16; i++) {
        assert_true(hd->bind_transform[i] == h.header.bind_transform[i]); /* the same doubles */
        assert_true(pack->bind_transform[i] == (float)h.header.bind_transform[i]);
    }
    assert_string_equal(hd->mouth_json, "{\"jaw\":\"head\",\"teeth\":[0.5,-1e-7],\"open\":true}");
    assert_string_equal(hd->source_json, h.header.source_json);
    assert_int_equal(pack->blob_count, h.blob_count);
    for (uint32_t i = 0; i < h.blob_count; i++) {
        assert_string_equal(pack->blobs[i].name, h.blobs[i].name); /* in header order */
        assert_blob_equals(pack, &h.blobs[i]);
    }
    assert_int_equal(pack->face_count, h.face_count);
    assert_int_equal(pack->quad_count, h.quad_count);
    assert_ptr_equal(pack->neutral, blob_of(pack, "neutral")->data);
    assert_ptr_equal(pack->basis, blob_of(pack, "basis")->data);
    assert_ptr_equal(pack->uv, blob_of(pack, "uv")->data);
    assert_ptr_equal(pack->quads, blob_of(pack, "quads")->data);
    assert_ptr_equal(pack->stitch_local, blob_of(pack, "stitchLocal")->data);
    assert_ptr_equal(pack->rest_world, blob_of(pack, "restWorld")->data);
    assert_memory_equal(pack->eye_positions, h.eye_positions, sizeof h.eye_positions);
    /* skinWeight is the one blob that is widened: into memory of the pack's own */
    const mn_aosrig_blob *sw = blob_of(pack, "skinWeight");
    assert_true((const uint8_t *)pack->skin_weight < pack->bytes ||
                (const uint8_t *)pack->skin_weight >= pack->bytes + pack->byte_length);
    for (uint32_t i = 0; i < 2 * h.vertex_count; i++)
        assert_true(pack->skin_weight[i] == mn_f16_to_float(((const uint16_t *)sw->data)[i]));
    /* the quantised weights sum to exactly 1 */
    for (uint32_t v = 0; v < h.vertex_count; v++)
        assert_true(pack->skin_weight[2 * v] + pack->skin_weight[2 * v + 1] == 1.0f);
    assert_int_equal(mn_aosrig_find_joint(pack, "neck_02"), 1);
    assert_int_equal(mn_aosrig_find_joint(pack, "jaw"), UINT32_MAX);
    assert_null(mn_aosrig_find_blob(pack, "nothing"));
    mn_aosrig_free(pack);
    mn_aosrig_bytes_free(NULL, p.bytes, p.size);
    synthetic_head_free(&h);
}

static void optional_parts_absent_read_as_null_and_identity(void **state)
{
    (void)state;
    synthetic_head h;
    synthetic_head_build(&h, NULL);
    packed p = pack_head(&h);
    mn_aosrig *pack = read_ok(p.bytes, p.size);
    assert_null(pack->uv);
    assert_null(pack->quads);
    assert_null(pack->stitch_local);
    assert_int_equal(pack->quad_count, 0);
    assert_false(pack->header.has_bind_transform);
    assert_null(pack->header.mouth_json);
    for (int i = 0; i < 16; i++) {
        assert_true(pack->bind_transform[i] == ((i % 5 == 0) ? 1.0f : 0.0f));
        assert_true(pack->header.bind_transform[i] == ((i % 5 == 0) ? 1.0 : 0.0));
    }
    /* the header leaves the absent members out rather than writing null */
    char header[8192];
    uint32_t hl = header_length(p.bytes);
    assert_true(hl < sizeof header);
    memcpy(header, p.bytes + 16, hl);
    header[hl] = '\0';
    assert_null(strstr(header, "bindTransform"));
    assert_null(strstr(header, "mouth"));
    assert_null(strstr(header, "null"));
    mn_aosrig_free(pack);
    mn_aosrig_bytes_free(NULL, p.bytes, p.size);
    synthetic_head_free(&h);
}

static void packing_is_byte_identical_and_repacks_to_the_same_bytes(void **state)
{
    (void)state;
    synthetic_head_options variants[3] = {full_options(), {0}, full_options()};
    variants[2].centimetres = true;
    variants[2].coeff_count = 3; /* one region, and an odd V·E·3: the basis's pad half */
    for (int v = 0; v < 3; v++) {
        synthetic_head h;
        synthetic_head_build(&h, &variants[v]);
        packed a = pack_head(&h), b = pack_head(&h);
        assert_int_equal(a.size, b.size);
        assert_memory_equal(a.bytes, b.bytes, a.size);
        mn_aosrig *pack = read_ok(a.bytes, a.size);
        assert_int_equal(pack->header.units, variants[v].centimetres ? MN_AOSRIG_CENTIMETRES : MN_AOSRIG_METRES);
        assert_string_equal(mn_aosrig_units_name(pack->header.units), variants[v].centimetres ? "cm" : "m");
        uint8_t *again;
        size_t again_size;
        mn_error err;
        assert_int_equal(mn_aosrig_repack(pack, NULL, &again, &again_size, &err), MN_OK);
        assert_int_equal(again_size, a.size);
        assert_memory_equal(again, a.bytes, a.size);
        mn_aosrig_bytes_free(NULL, again, again_size);
        mn_aosrig_free(pack);
        mn_aosrig_bytes_free(NULL, a.bytes, a.size);
        mn_aosrig_bytes_free(NULL, b.bytes, b.size);
        synthetic_head_free(&h);
    }
    assert_string_equal(mn_aosrig_units_name((mn_aosrig_units)2), "invalid");
}

static void the_container_is_laid_out_as_section_11_says(void **state)
{
    (void)state;
    synthetic_head h;
    packed p = pack_full(&h);
    assert_memory_equal(p.bytes, "AOSRIG\0\0", 8);
    uint32_t hl = header_length(p.bytes);
    assert_int_equal(p.bytes[12] | p.bytes[13] | p.bytes[14] | p.bytes[15], 0);
    assert_int_equal(p.bytes[16], '{');
    assert_int_equal(p.bytes[16 + hl - 1], '}');
    assert_memory_equal(p.bytes + 16, "{\"version\":1,\"model\":\"gnm\",\"units\":\"m\",\"vertexCount\":",
                        strlen("{\"version\":1,\"model\":\"gnm\",\"units\":\"m\",\"vertexCount\":"));
    mn_aosrig *pack = read_ok(p.bytes, p.size);
    /* the first blob right after the padded header; each next one at the next multiple of 8 */
    size_t expect = (16 + hl + 7) & ~(size_t)7;
    for (size_t i = 16 + hl; i < expect; i++)
        assert_int_equal(p.bytes[i], 0);
    for (uint32_t i = 0; i < pack->blob_count; i++) {
        assert_int_equal(pack->blobs[i].offset, expect);
        expect = (size_t)((pack->blobs[i].offset + pack->blobs[i].size + 7) & ~(uint64_t)7);
    }
    const mn_aosrig_blob *last = &pack->blobs[pack->blob_count - 1];
    assert_int_equal(p.size, last->offset + last->size);
    mn_aosrig_free(pack);
    mn_aosrig_bytes_free(NULL, p.bytes, p.size);
    synthetic_head_free(&h);
}

static void files_read_mapped_or_copied_and_write_atomically(void **state)
{
    (void)state;
    synthetic_head h;
    packed p = pack_full(&h);
    char path[128];
    snprintf(path, sizeof path, "/tmp/mn_test_aosrig_%ld.aosrig", (long)getpid());
    mn_error err;
    assert_int_equal(mn_aosrig_write_file(&h.header, h.blobs, h.blob_count, path, NULL, &err),
                     MN_OK);
    for (int copy = 0; copy < 2; copy++) {
        mn_aosrig_read_options o = {.copy_input = copy != 0};
        mn_aosrig *pack = NULL;
        assert_int_equal(mn_aosrig_read_file(path, &o, &pack, &err), MN_OK);
        assert_int_equal(pack->byte_length, p.size);
        assert_memory_equal(pack->bytes, p.bytes, p.size);
        assert_ptr_equal(pack->neutral, pack->bytes + blob_of(pack, "neutral")->offset);
        mn_aosrig_free(pack);
    }
    remove(path);
    mn_aosrig *none = NULL;
    assert_int_equal(mn_aosrig_read_file(path, NULL, &none, &err), MN_IO);
    assert_null(none);
    assert_int_equal(mn_aosrig_write_file(&h.header, h.blobs, h.blob_count,
                                          "/nonexistent-dir/x.aosrig", NULL, &err), MN_IO);
    mn_aosrig_bytes_free(NULL, p.bytes, p.size);
    synthetic_head_free(&h);
}

static void memory_input_is_viewed_unless_copied_or_misaligned(void **state)
{
    (void)state;
    synthetic_head h;
    packed p = pack_full(&h);
    mn_aosrig *pack = read_ok(p.bytes, p.size);
    assert_ptr_equal(pack->bytes, p.bytes); /* a view of the caller's bytes */
    mn_aosrig_free(pack);
    mn_aosrig_read_options copy = {.copy_input = true};
    mn_error err;
    assert_int_equal(mn_aosrig_read_memory(p.bytes, p.size, &copy, &pack, &err), MN_OK);
    assert_ptr_not_equal(pack->bytes, p.bytes);
    mn_aosrig_free(pack);
    uint8_t *shifted = malloc(p.size + 1);
    assert_non_null(shifted);
    memcpy(shifted + 1, p.bytes, p.size);
    assert_int_equal(mn_aosrig_read_memory(shifted + 1, p.size, NULL, &pack, &err), MN_OK);
    assert_ptr_not_equal(pack->bytes, shifted + 1);
    assert_int_equal((uintptr_t)pack->neutral % 4, 0);
    mn_aosrig_free(pack);
    free(shifted);
    assert_int_equal(mn_aosrig_read_memory(NULL, 4, NULL, &pack, &err), MN_INVALID_ARGUMENT);
    mn_aosrig_bytes_free(NULL, p.bytes, p.size);
    synthetic_head_free(&h);
}

static void the_reader_frees_everything_and_survives_every_failed_allocation(void **state)
{
    (void)state;
    synthetic_head h;
    packed p = pack_full(&h);
    for (long n = 0;; n++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = n;
        mn_aosrig_read_options o = {.allocator = mn_counting_allocator(&counter)};
        mn_aosrig *pack = NULL;
        mn_error err;
        mn_status st = mn_aosrig_read_memory(p.bytes, p.size, &o, &pack, &err);
        if (st == MN_OK) {
            assert_int_equal(counter.failures, 0);
            mn_aosrig_free(pack);
            assert_int_equal(counter.live_bytes, 0);
            break;
        }
        assert_int_equal(st, MN_OUT_OF_MEMORY);
        assert_null(pack);
        assert_int_equal(counter.live_bytes, 0);
    }
    for (long n = 0;; n++) { /* the writer too */
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = n;
        mn_aosrig_write_options o = {.allocator = mn_counting_allocator(&counter)};
        uint8_t *bytes;
        size_t size;
        mn_error err;
        mn_status st = mn_aosrig_write(&h.header, h.blobs, h.blob_count, &o, &bytes, &size, &err);
        if (st == MN_OK) {
            assert_memory_equal(bytes, p.bytes, p.size);
            mn_aosrig_bytes_free(&o.allocator, bytes, size);
            assert_int_equal(counter.live_bytes, 0);
            break;
        }
        assert_int_equal(st, MN_OUT_OF_MEMORY);
        assert_int_equal(counter.live_bytes, 0);
    }
    mn_aosrig_bytes_free(NULL, p.bytes, p.size);
    synthetic_head_free(&h);
}

/* ---- refusals: the container and the blobs' placement -------------------------------- */

static void a_bad_magic_or_short_file_is_refused(void **state)
{
    (void)state;
    synthetic_head h;
    packed p = pack_full(&h);
    uint8_t *c = copy_bytes(&p);
    c[5] = 'X';
    expect_refusal(c, p.size, MN_INVALID_VALUE, "magic", "AOSRIG");
    expect_refusal(c, 0, MN_INVALID_VALUE, "magic", NULL);
    memcpy(c, p.bytes, p.size);
    expect_refusal(c, 7, MN_INVALID_VALUE, "magic", NULL);
    expect_refusal(c, 12, MN_BUFFER_VIEW_BOUNDS, "header", "preamble");
    /* a header length that runs past the file */
    uint32_t too_long = (uint32_t)p.size;
    c[8] = (uint8_t)too_long, c[9] = (uint8_t)(too_long >> 8);
    c[10] = (uint8_t)(too_long >> 16), c[11] = (uint8_t)(too_long >> 24);
    expect_refusal(c, p.size, MN_BUFFER_VIEW_BOUNDS, "header", "runs past");
    /* every truncation is refused cleanly */
    for (size_t n = 0; n < p.size; n += (n < 64 ? 1 : 61)) {
        mn_aosrig *pack = NULL;
        mn_error err;
        assert_int_not_equal(mn_aosrig_read_memory(p.bytes, n, NULL, &pack, &err), MN_OK);
        assert_null(pack);
    }
    free(c);
    mn_aosrig_bytes_free(NULL, p.bytes, p.size);
    synthetic_head_free(&h);
}

static void a_file_length_that_disagrees_with_the_header_is_refused(void **state)
{
    (void)state;
    synthetic_head h;
    packed p = pack_full(&h);
    uint8_t *c = calloc(1, p.size + 8);
    assert_non_null(c);
    memcpy(c, p.bytes, p.size);
    expect_refusal(c, p.size + 8, MN_COUNT_MISMATCH, "length", "last blob ends");
    /* shorter: the last blob runs outside the file */
    expect_refusal(c, p.size - 8, MN_BUFFER_VIEW_BOUNDS, "buffers[", "outside");
    free(c);
    mn_aosrig_bytes_free(NULL, p.bytes, p.size);
    synthetic_head_free(&h);
}

static void misplaced_blobs_are_refused(void **state)
{
    (void)state;
    synthetic_head h;
    packed p = pack_full(&h);
    mn_aosrig *pack = read_ok(p.bytes, p.size);
    uint64_t faces = blob_of(pack, "faces")->offset;
    uint64_t skin_index = blob_of(pack, "skinIndex")->offset;
    uint64_t skin_weight = blob_of(pack, "skinWeight")->offset;
    uint64_t first = pack->blobs[0].offset;
    mn_aosrig_free(pack);
    uint8_t *c = copy_bytes(&p);
    poke_blob_number(c, &p, "faces", "offset", faces + 4);
    expect_refusal(c, p.size, MN_INVALID_VALUE, "buffers[3].offset", "multiple of 8");
    memcpy(c, p.bytes, p.size);
    /* an offset inside the header's area */
    poke_blob_number(c, &p, "faces", "offset", first - 8);
    expect_refusal(c, p.size, MN_BUFFER_VIEW_BOUNDS, "buffers[3]", "faces");
    memcpy(c, p.bytes, p.size);
    /* skinWeight moved onto skinIndex, and the other way: the two overlap */
    poke_blob_number(c, &p, "skinWeight", "offset", skin_index);
    expect_refusal(c, p.size, MN_INVALID_VALUE, "buffers[", "overlap");
    memcpy(c, p.bytes, p.size);
    poke_blob_number(c, &p, "skinIndex", "offset", skin_weight);
    expect_refusal(c, p.size, MN_INVALID_VALUE, NULL, "overlap");
    free(c);
    mn_aosrig_bytes_free(NULL, p.bytes, p.size);
    synthetic_head_free(&h);
}

/* ---- refusals: the header ---------------------------------------------------------------- */

typedef struct header_case {
    const char *from, *to;
    mn_status code;
    const char *path;      /* a substring of err.path */
} header_case;

static void every_header_flaw_is_refused_naming_the_field(void **state)
{
    (void)state;
    static const header_case cases[] = {
        {"{\"version\":1,", "[\"version\",1,", MN_JSON_SYNTAX, "header"},
        {"\"units\":\"m\",", "\"units\":1e400,", MN_JSON_SYNTAX, "header"},
        {"\"version\":1,", "\"version\":2,", MN_INVALID_VALUE, "version"},
        {"\"version\":1,", "\"version\":\"1\",", MN_JSON_TYPE, "version"},
        {"\"version\":1,", "", MN_MISSING_PROPERTY, "version"},
        {"\"model\":\"gnm\"", "\"model\":\"orl\"", MN_INVALID_VALUE, "model"},
        {"\"units\":\"m\"", "\"units\":\"mm\"", MN_INVALID_VALUE, "units"},
        {"\"units\":\"m\",", "", MN_MISSING_PROPERTY, "units"},
        {"\"coeffCount\":8", "\"coeffCount\":0", MN_INVALID_VALUE, "coeffCount"},
        {"\"coeffCount\":8", "\"coeffCount\":8.5", MN_INVALID_VALUE, "coeffCount"},
        {"\"maxInfluence\":2", "\"maxInfluence\":-2", MN_INVALID_VALUE, "maxInfluence"},
        {"\"vertexCount\":", "\"vertexCount\":\"many\",\"x\":", MN_JSON_TYPE, "vertexCount"},
        {"\"expr_000\",", "", MN_COUNT_MISMATCH, "names"},
        {"\"expr_003\"", "3", MN_JSON_TYPE, "names[3]"},
        {"\"exprDim\":8", "\"exprDim\":9", MN_INVALID_VALUE, "headExt.exprDim"},
        {"\"gazeDim\":4", "\"gazeDim\":3", MN_INVALID_VALUE, "headExt.gazeDim"},
        {"\"dim\":12", "\"dim\":13", MN_INVALID_VALUE, "headExt.dim"},
        {"[\"lower_face\",3]", "[\"lower_face\",4]", MN_INVALID_VALUE, "headExt.regions"},
        {"[\"pupils\",1]", "[\"pupils\",0]", MN_INVALID_VALUE, "headExt.regions[3]"},
        {"[\"pupils\",1]", "[\"left_eye\",1]", MN_INVALID_VALUE, "headExt.regions[3]"},
        {"[\"pupils\",1]", "[\"pupils\"]", MN_JSON_TYPE, "headExt.regions[3]"},
        {"\"lower_face\":2", "\"lower_face\":4", MN_INVALID_VALUE, "headExt.reduced.lower_face"},
        {"\"lower_face\":2", "\"lower_face\":2,\"jaw\":1", MN_INVALID_VALUE,
         "headExt.reduced.jaw"},
        {"\"reduced\":{", "\"reduced\":[{", MN_JSON_SYNTAX, "header"},
        {"{\"name\":\"neck_01\"}", "{\"name\":\"head\"}", MN_INVALID_VALUE, "joints[2].name"},
        {"{\"name\":\"neck_01\"}", "{\"label\":\"neck_01\"}", MN_MISSING_PROPERTY,
         "joints[0].name"},
        {"\"left\":{\"joint\":\"head\"}", "\"left\":{\"joint\":\"eye_L\"}", MN_INDEX_RANGE,
         "eyes.left.joint"},
        {"\"right\":{\"joint\":\"head\"}", "\"right\":{}", MN_MISSING_PROPERTY,
         "eyes.right.joint"},
        {"\"bindTransform\":[0.9950041652780258", "\"bindTransform\":[1e300", MN_NOT_FINITE,
         "bindTransform[0]"},
        {"\"bindTransform\":[0.9950041652780258", "\"bindTransform\":[\"x\"", MN_JSON_TYPE,
         "bindTransform[0]"},
        {"\"bindTransform\":[", "\"bindTransform\":[0,", MN_COUNT_MISMATCH, "bindTransform"},
        {"\"buffers\":[", "\"buffers\":[7,", MN_JSON_TYPE, "buffers[0]"},
        {"\"buffers\":[", "\"buffers\":{\"x\":[", MN_JSON_SYNTAX, "header"},
        {"\"name\":\"neutral\",\"dtype\":\"f32\"", "\"name\":\"neutral\",\"dtype\":\"f64\"",
         MN_INVALID_VALUE, "buffers[0].dtype"},
        {"\"name\":\"uv\"", "\"name\":\"neutral\"", MN_INVALID_VALUE, "buffers[5].name"},
    };
    synthetic_head h;
    packed p = pack_full(&h);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        packed bad = edit_header(&p, cases[i].from, cases[i].to);
        print_message("case %zu: %s -> %s\n", i, cases[i].from, cases[i].to);
        expect_refusal(bad.bytes, bad.size, cases[i].code, cases[i].path, NULL);
        free(bad.bytes);
    }
    mn_aosrig_bytes_free(NULL, p.bytes, p.size);
    synthetic_head_free(&h);
}

static void every_required_blob_must_be_present(void **state)
{
    (void)state;
    static const char *const required[] = {"neutral", "basis", "basisScale", "faces",
                                           "skinIndex", "skinWeight", "jointParents",
                                           "restWorld", "eyePositions", "eyeWeights"};
    synthetic_head h;
    packed p = pack_full(&h);
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        char from[64], to[64];
        snprintf(from, sizeof from, "\"name\":\"%s\"", required[i]);
        snprintf(to, sizeof to, "\"name\":\"%s_old\"", required[i]);
        packed bad = edit_header(&p, from, to);
        expect_refusal(bad.bytes, bad.size, MN_MISSING_PROPERTY, "buffers", required[i]);
        free(bad.bytes);
    }
    /* the optional ones may go: renamed (same length, same layout), they are unknown blobs,
       only bounds-checked */
    static const char *const optional[][2] = {{"quads", "quadz"}, {"uv", "vu"},
                                              {"stitchLocal", "stitchLocaX"}};
    for (size_t i = 0; i < 3; i++) {
        char from[64], to[64];
        snprintf(from, sizeof from, "\"name\":\"%s\"", optional[i][0]);
        snprintf(to, sizeof to, "\"name\":\"%s\"", optional[i][1]);
        packed renamed = edit_header(&p, from, to);
        mn_aosrig *pack = read_ok(renamed.bytes, renamed.size);
        assert_non_null(mn_aosrig_find_blob(pack, optional[i][1]));
        assert_null(mn_aosrig_find_blob(pack, optional[i][0]));
        if (i == 0)
            assert_null(pack->quads);
        if (i == 1)
            assert_null(pack->uv);
        if (i == 2)
            assert_null(pack->stitch_local);
        mn_aosrig_free(pack);
        free(renamed.bytes);
    }
    mn_aosrig_bytes_free(NULL, p.bytes, p.size);
    synthetic_head_free(&h);
}

static void a_known_blob_with_the_wrong_dtype_shape_or_length_is_refused(void **state)
{
    (void)state;
    typedef struct {
        const char *blob, *key, *value;
        mn_status code;
        const char *says;
    } blob_case;
    static const blob_case cases[] = {
        {"neutral", "dtype", "\"f16\"", MN_INVALID_VALUE, "must be f32"},
        {"skinIndex", "dtype", "\"u32\"", MN_INVALID_VALUE, "must be u16"},
        {"jointParents", "dtype", "\"u32\"", MN_INVALID_VALUE, "must be i32"},
        {"neutral", "shape", "[5,3]", MN_COUNT_MISMATCH, "V ="},
        {"neutral", "shape", "[5,3,1]", MN_COUNT_MISMATCH, "dimensions"},
        {"basis", "shape", "[1,8,3]", MN_COUNT_MISMATCH, "V ="},
        {"basis", "shape", "[1,1]", MN_COUNT_MISMATCH, "dimensions"},
        {"basisScale", "shape", "[7]", MN_COUNT_MISMATCH, "E ="},
        {"faces", "shape", "[1,4]", MN_COUNT_MISMATCH, "must be 3"},
        {"quads", "shape", "[1,3]", MN_COUNT_MISMATCH, "must be 4"},
        {"skinIndex", "shape", "[1,1]", MN_COUNT_MISMATCH, NULL},
        {"skinWeight", "shape", "[1,1]", MN_COUNT_MISMATCH, NULL},
        {"jointParents", "shape", "[4]", MN_COUNT_MISMATCH, "J ="},
        {"restWorld", "shape", "[3,12]", MN_COUNT_MISMATCH, "must be 16"},
        {"eyePositions", "shape", "[3,3]", MN_COUNT_MISMATCH, "must be 2"},
        {"eyeWeights", "shape", "[1,2]", MN_COUNT_MISMATCH, NULL},
        {"stitchLocal", "shape", "[1,3]", MN_COUNT_MISMATCH, NULL},
        {"uv", "shape", "[1,2]", MN_COUNT_MISMATCH, NULL},
        {"basisScale", "byteLength", "36", MN_COUNT_MISMATCH, "byteLength 36"},
        {"faces", "byteLength", "0", MN_COUNT_MISMATCH, "byteLength 0"},
        {"neutral", "offset", "-8", MN_INVALID_VALUE, "byte offset"},
        {"neutral", "byteLength", "1.5", MN_INVALID_VALUE, "byte length"},
        {"neutral", "shape", "[\"V\",3]", MN_JSON_TYPE, "dimension"},
    };
    synthetic_head h;
    packed p = pack_full(&h);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        packed bad = edit_blob(&p, cases[i].blob, cases[i].key, cases[i].value);
        print_message("case %zu: %s.%s = %s\n", i, cases[i].blob, cases[i].key, cases[i].value);
        expect_refusal(bad.bytes, bad.size, cases[i].code, "buffers[", cases[i].says);
        if (cases[i].code != MN_JSON_TYPE && cases[i].code != MN_INVALID_VALUE)
            expect_refusal(bad.bytes, bad.size, cases[i].code, NULL, cases[i].blob);
        free(bad.bytes);
    }
    mn_aosrig_bytes_free(NULL, p.bytes, p.size);
    synthetic_head_free(&h);
}

static void the_basis_byte_length_counts_halves_in_u32_pairs(void **state)
{
    (void)state;
    synthetic_head_options o = {.coeff_count = 3, .segments = 13};
    synthetic_head h;
    synthetic_head_build(&h, &o);
    uint64_t halves = (uint64_t)h.vertex_count * 3 * 3;
    assert_int_equal(halves % 2, 1); /* odd: the pad half is there */
    packed p = pack_head(&h);
    mn_aosrig *pack = read_ok(p.bytes, p.size);
    assert_int_equal(blob_of(pack, "basis")->size, 4 * ((halves + 1) / 2));
    mn_aosrig_free(pack);
    /* the unpadded length is refused */
    char value[32];
    snprintf(value, sizeof value, "%llu", (unsigned long long)(2 * halves));
    packed bad = edit_blob(&p, "basis", "byteLength", value);
    expect_refusal(bad.bytes, bad.size, MN_COUNT_MISMATCH, "buffers[1].byteLength", "u32 pairs");
    free(bad.bytes);
    mn_aosrig_bytes_free(NULL, p.bytes, p.size);
    synthetic_head_free(&h);
}

/* ---- refusals: the contents ------------------------------------------------------------ */

/* A copy of the pack with the bytes of blob `name` at element `index` (of `size` bytes) set to `value`. */
static uint8_t *poke_element(const packed *p, const char *name, size_t index, const void *value,
                             size_t size)
{
    mn_aosrig *pack = read_ok(p->bytes, p->size);
    uint64_t offset = blob_of(pack, name)->offset;
    mn_aosrig_free(pack);
    uint8_t *c = copy_bytes(p);
    memcpy(c + offset + index * size, value, size);
    return c;
}

static void out_of_range_indices_are_refused(void **state)
{
    (void)state;
    synthetic_head h;
    packed p = pack_full(&h);
    uint16_t joint = 3;
    uint8_t *c = poke_element(&p, "skinIndex", 5, &joint, 2);
    expect_refusal(c, p.size, MN_INDEX_RANGE, "buffers[6]", "skinIndex");
    free(c);
    uint32_t vertex = h.vertex_count;
    c = poke_element(&p, "faces", 7, &vertex, 4);
    expect_refusal(c, p.size, MN_INDEX_RANGE, "buffers[3]", "faces");
    free(c);
    c = poke_element(&p, "quads", 2, &vertex, 4);
    expect_refusal(c, p.size, MN_INDEX_RANGE, "buffers[4]", "quads");
    free(c);
    mn_aosrig_bytes_free(NULL, p.bytes, p.size);
    synthetic_head_free(&h);
}

static void parents_that_are_not_a_forest_are_refused(void **state)
{
    (void)state;
    synthetic_head h;
    packed p = pack_full(&h);
    int32_t cycle = 2; /* neck_01's parent becomes head, whose chain leads back to neck_01 */
    uint8_t *c = poke_element(&p, "jointParents", 0, &cycle, 4);
    expect_refusal(c, p.size, MN_HIERARCHY, "buffers[8]", "forest");
    free(c);
    int32_t self = 1;
    c = poke_element(&p, "jointParents", 1, &self, 4);
    expect_refusal(c, p.size, MN_HIERARCHY, "buffers[8]", "own ancestor");
    free(c);
    int32_t outside = 3, below = -2;
    c = poke_element(&p, "jointParents", 2, &outside, 4);
    expect_refusal(c, p.size, MN_INDEX_RANGE, "buffers[8]", "jointParents");
    free(c);
    c = poke_element(&p, "jointParents", 2, &below, 4);
    expect_refusal(c, p.size, MN_INDEX_RANGE, "buffers[8]", "parent -2");
    free(c);
    /* several roots are a forest */
    int32_t root = -1;
    c = poke_element(&p, "jointParents", 2, &root, 4);
    mn_aosrig *pack = read_ok(c, p.size);
    mn_aosrig_free(pack);
    free(c);
    mn_aosrig_bytes_free(NULL, p.bytes, p.size);
    synthetic_head_free(&h);
}

static void non_finite_values_are_refused(void **state)
{
    (void)state;
    static const char *const f32_blobs[] = {"neutral", "basisScale", "uv", "restWorld",
                                            "eyePositions", "eyeWeights", "stitchLocal"};
    synthetic_head h;
    packed p = pack_full(&h);
    float bad[2] = {NAN, INFINITY};
    for (size_t i = 0; i < sizeof f32_blobs / sizeof f32_blobs[0]; i++)
        for (int k = 0; k < 2; k++) {
            uint8_t *c = poke_element(&p, f32_blobs[i], 1, &bad[k], 4);
            expect_refusal(c, p.size, MN_NOT_FINITE, "buffers[", f32_blobs[i]);
            free(c);
        }
    const uint16_t halves_nan = 0x7e00;
    uint16_t halves[3] = {0x7c00, 0xfc00, 0x7e00}; /* +inf, -inf, NaN */
    for (int k = 0; k < 3; k++) {
        uint8_t *c = poke_element(&p, "basis", 11, &halves[k], 2);
        expect_refusal(c, p.size, MN_NOT_FINITE, "buffers[1]", "basis");
        free(c);
        c = poke_element(&p, "skinWeight", 3, &halves[k], 2);
        expect_refusal(c, p.size, MN_NOT_FINITE, "buffers[7]", "skinWeight");
        free(c);
    }
    mn_aosrig_bytes_free(NULL, p.bytes, p.size);
    synthetic_head_free(&h);
    /* a basis of several scanning chunks (4096 halves each): a flaw past the first chunk,
       on a chunk's edge, and in the very last half is found and named by its index */
    synthetic_head_options big = {.coeff_count = 40};
    synthetic_head_build(&h, &big);
    p = pack_head(&h);
    size_t basis_halves = (size_t)h.vertex_count * 40 * 3;
    const size_t where[3] = {4101, 8191, basis_halves - 1};
    for (int k = 0; k < 3; k++) {
        uint8_t *c = poke_element(&p, "basis", where[k], &halves_nan, 2);
        char says[32];
        snprintf(says, sizeof says, "half %zu ", where[k]);
        expect_refusal(c, p.size, MN_NOT_FINITE, "buffers[1]", says);
        free(c);
    }
    mn_aosrig_bytes_free(NULL, p.bytes, p.size);
    synthetic_head_free(&h);
}

/* ---- the writer --------------------------------------------------------------------- */

static void the_writer_refuses_what_it_cannot_encode(void **state)
{
    (void)state;
    synthetic_head h;
    synthetic_head_build(&h, NULL);
    uint8_t *bytes;
    size_t size;
    mn_error err;
    mn_aosrig_header hd = h.header;
    hd.has_bind_transform = true;
    hd.bind_transform[3] = NAN;
    assert_int_equal(mn_aosrig_write(&hd, h.blobs, h.blob_count, NULL, &bytes, &size, &err),
                     MN_NOT_FINITE);
    assert_string_equal(err.path, "bindTransform");
    hd = h.header;
    hd.mouth_json = "{\"open\":";
    assert_int_equal(mn_aosrig_write(&hd, h.blobs, h.blob_count, NULL, &bytes, &size, &err),
                     MN_JSON_SYNTAX);
    assert_string_equal(err.path, "mouth");
    hd.mouth_json = "null";
    assert_int_equal(mn_aosrig_write(&hd, h.blobs, h.blob_count, NULL, &bytes, &size, &err),
                     MN_JSON_SYNTAX);
    hd = h.header;
    hd.eye_joints[1] = "\xff\xfe";
    assert_int_equal(mn_aosrig_write(&hd, h.blobs, h.blob_count, NULL, &bytes, &size, &err),
                     MN_INVALID_ARGUMENT);
    assert_string_equal(err.path, "eyes.right.joint");
    mn_aosrig_blob blobs[SYNTHETIC_HEAD_MAX_BLOBS];
    memcpy(blobs, h.blobs, sizeof blobs);
    blobs[2].dtype = MN_AOSRIG_DTYPE_COUNT;
    assert_int_equal(mn_aosrig_write(&h.header, blobs, h.blob_count, NULL, &bytes, &size, &err),
                     MN_INVALID_ARGUMENT);
    assert_string_equal(err.path, "buffers[2]");
    assert_int_equal(mn_aosrig_write(NULL, blobs, h.blob_count, NULL, &bytes, &size, &err),
                     MN_INVALID_ARGUMENT);
    synthetic_head_free(&h);
}

static void mouth_and_source_are_reprinted_as_json_stringify_prints_them(void **state)
{
    (void)state;
    synthetic_head h;
    synthetic_head_build(&h, NULL);
    mn_aosrig_header hd = h.header;
    hd.mouth_json = " { \"b\" : [ 1.50 , 2e0, -0.0, 1E21, 0.0000001 ], \"a\" : \"\\u00e9\\/\\u001f\\n\" } ";
    hd.source_json = "\"just a string\"";
    uint8_t *bytes;
    size_t size;
    mn_error err;
    assert_int_equal(mn_aosrig_write(&hd, h.blobs, h.blob_count, NULL, &bytes, &size, &err), MN_OK);
    mn_aosrig *pack = read_ok(bytes, size);
    assert_string_equal(pack->header.mouth_json,
                        "{\"b\":[1.5,2,0,1e+21,1e-7],\"a\":\"\xc3\xa9/\\u001f\\n\"}");
    assert_string_equal(pack->header.source_json, "\"just a string\"");
    mn_aosrig_free(pack);
    mn_aosrig_bytes_free(NULL, bytes, size);
    synthetic_head_free(&h);
}

/*
 * A layout whose header length keeps moving.  After a big first blob come
 * GROUPS groups of PER_GROUP blobs sharing one offset (empty blobs, then an
 * 8-byte one that moves the next group 8 bytes on).  The big blob's size puts
 * the last group exactly at 10^6 once the header has its pass-1 length, so
 * pass 2 lengthens every offset of that group by a digit: PER_GROUP (16) more
 * bytes, which move the blob area on by at least 9 - so by 16 - and push at
 * least two more groups across 10^6 in pass 3, and more again in pass 4.
 * The same blobs after a smaller big blob (no group near 10^6) converge.
 */
static void the_writer_fails_when_the_header_length_does_not_converge(void **state)
{
    (void)state;
    enum { GROUPS = 16, PER_GROUP = 16, COUNT = 1 + GROUPS * PER_GROUP };
    synthetic_head h;
    synthetic_head_build(&h, NULL);
    static const uint64_t shape_eight[1] = {8}, shape_zero[1] = {0};
    static const uint8_t spacer[8];
    static char names[COUNT][16];
    mn_aosrig_blob *blobs = calloc(COUNT, sizeof *blobs);
    uint8_t *big = calloc(1, 1000000);
    assert_non_null(blobs);
    assert_non_null(big);
    snprintf(names[0], sizeof names[0], "big");
    for (uint32_t g = 0, n = 1; g < GROUPS; g++)
        for (uint32_t k = 0; k < PER_GROUP; k++, n++) {
            bool last = k + 1 == PER_GROUP;
            snprintf(names[n], sizeof names[n], "g%02u_%02u", g, k);
            blobs[n] = (mn_aosrig_blob){names[n], MN_AOSRIG_U8, last ? shape_eight : shape_zero,
                                        1, last ? spacer : NULL, last ? 8 : 0, 0};
        }
    /* with a big blob of 500000 bytes no offset nears 10^6: the header settles at its
       pass-1 length, which no big size between 10^5 and 10^6 changes */
    blobs[0] = (mn_aosrig_blob){names[0], MN_AOSRIG_U8, shape_eight, 1, big, 500000, 0};
    uint8_t *bytes;
    size_t size;
    mn_error err;
    assert_int_equal(mn_aosrig_write(&h.header, blobs, COUNT, NULL, &bytes, &size, &err), MN_OK);
    uint64_t settled = header_length(bytes);
    uint64_t blob_area = (16 + settled + 7) & ~(uint64_t)7;
    mn_aosrig_bytes_free(NULL, bytes, size);
    blobs[0].size = 1000000 - 8 * (GROUPS - 1) - blob_area;
    mn_status st = mn_aosrig_write(&h.header, blobs, COUNT, NULL, &bytes, &size, &err);
    assert_int_equal(st, MN_COUNT_MISMATCH);
    assert_null(bytes);
    assert_string_equal(err.path, "buffers");
    assert_non_null(strstr(err.message, "did not converge in 4"));
    free(big);
    free(blobs);
    synthetic_head_free(&h);
}

/* ---- f16 -------------------------------------------------------------------------------- */

static double half_reference(uint16_t h)
{
    int exponent = (h >> 10) & 31, mantissa = h & 1023;
    double sign = (h & 0x8000) ? -1.0 : 1.0;
    if (exponent == 0)
        return sign * ldexp(mantissa, -24);
    if (exponent == 31)
        return mantissa ? NAN : sign * INFINITY;
    return sign * ldexp(1024 + mantissa, exponent - 25);
}

static void every_half_decodes_exactly_scalar_and_bulk(void **state)
{
    (void)state;
    uint16_t *all = malloc(65536 * sizeof *all);
    float *bulk = malloc(65536 * sizeof *bulk);
    assert_non_null(all);
    assert_non_null(bulk);
    for (uint32_t i = 0; i < 65536; i++)
        all[i] = (uint16_t)i;
    mn_f16_decode(all, bulk, 65536);
    for (uint32_t i = 0; i < 65536; i++) {
        float f = mn_f16_to_float((uint16_t)i);
        double want = half_reference((uint16_t)i);
        if (isnan(want)) {
            assert_true(isnan(f));
        } else {
            assert_true((double)f == want);
            assert_int_equal(signbit(f) != 0, (i & 0x8000) != 0);
        }
        uint32_t a, b;
        memcpy(&a, &f, 4);
        memcpy(&b, &bulk[i], 4);
        assert_int_equal(a, b); /* the F16C path gives the scalar path's bits */
    }
    free(all);
    free(bulk);
}

static void halves_encode_to_nearest_even_and_refuse_overflow(void **state)
{
    (void)state;
    for (uint32_t i = 0; i < 65536; i++) { /* every finite half survives a round trip */
        if (((i >> 10) & 31) == 31)
            continue;
        uint16_t back;
        assert_int_equal(mn_f16_from_float(mn_f16_to_float((uint16_t)i), &back, NULL), MN_OK);
        assert_int_equal(back, i);
    }
    typedef struct {
        float in;
        uint16_t out;
    } enc;
    const enc cases[] = {
        {1.0f + 0x1p-11f, 0x3c00},        /* a tie: down to the even 1.0 */
        {1.0f + 3 * 0x1p-11f, 0x3c02},    /* a tie: up to the even neighbour */
        {1.0f + 0x1p-11f + 0x1p-20f, 0x3c01}, /* just above a tie */
        {0x1p-25f, 0x0000},               /* half the smallest subnormal: ties to 0 */
        {3 * 0x1p-25f, 0x0002},           /* 1.5 subnormal steps: ties to 2 */
        {0x1p-26f, 0x0000},
        {-0.0f, 0x8000},
        {65504.0f, 0x7bff},
        {65519.0f, 0x7bff},
        {0x1p-14f - 0x1p-25f, 0x0400},    /* rounds up into the smallest normal */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint16_t h;
        assert_int_equal(mn_f16_from_float(cases[i].in, &h, NULL), MN_OK);
        assert_int_equal(h, cases[i].out);
    }
    const float refused[] = {65520.0f, -65520.0f, 1e10f, INFINITY, -INFINITY, NAN};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        uint16_t h = 1;
        mn_error err;
        assert_int_equal(mn_f16_from_float(refused[i], &h, &err), MN_NOT_FINITE);
        assert_int_equal(h, 0);
    }
}

/* ---- header numbers ------------------------------------------------------------------- */

static void header_numbers_print_as_ecmascript_prints_them(void **state)
{
    (void)state;
    /* each expected string is what Node's String(x) prints */
    typedef struct {
        double x;
        const char *text;
    } num;
    const num cases[] = {
        {0.0, "0"},
        {-0.0, "0"},
        {1.0, "1"},
        {-1.0, "-1"},
        {1.5, "1.5"},
        {0.1, "0.1"},
        {1e21, "1e+21"},
        {1e20, "100000000000000000000"},
        {1e-7, "1e-7"},
        {1.5e-7, "1.5e-7"},
        {0.000001, "0.000001"},
        {1.2345e-6, "0.0000012345"},
        {123456789012345680000.0, "123456789012345680000"},
        {5e-324, "5e-324"},
        {1.7976931348623157e308, "1.7976931348623157e+308"},
        {0.30000000000000004, "0.30000000000000004"},
        {0x1p-44, "5.684341886080802e-14"},
        {2.2250738585072014e-308, "2.2250738585072014e-308"},
        {9007199254740991.0, "9007199254740991"},
        {-2.5e-10, "-2.5e-10"},
        {65504.0, "65504"},
        {1.0 / 3.0, "0.3333333333333333"},
        {(double)0.1f, "0.10000000149011612"},
        {(double)1.6f, "1.600000023841858"},
        {123e-20, "1.23e-18"},
        {1e301, "1e+301"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[40];
        size_t n = mni_js_number(cases[i].x, out);
        assert_string_equal(out, cases[i].text);
        assert_int_equal(n, strlen(cases[i].text));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_synthetic_head_reads_back_equal),
        cmocka_unit_test(optional_parts_absent_read_as_null_and_identity),
        cmocka_unit_test(packing_is_byte_identical_and_repacks_to_the_same_bytes),
        cmocka_unit_test(the_container_is_laid_out_as_section_11_says),
        cmocka_unit_test(files_read_mapped_or_copied_and_write_atomically),
        cmocka_unit_test(memory_input_is_viewed_unless_copied_or_misaligned),
        cmocka_unit_test(the_reader_frees_everything_and_survives_every_failed_allocation),
        cmocka_unit_test(a_bad_magic_or_short_file_is_refused),
        cmocka_unit_test(a_file_length_that_disagrees_with_the_header_is_refused),
        cmocka_unit_test(misplaced_blobs_are_refused),
        cmocka_unit_test(every_header_flaw_is_refused_naming_the_field),
        cmocka_unit_test(every_required_blob_must_be_present),
        cmocka_unit_test(a_known_blob_with_the_wrong_dtype_shape_or_length_is_refused),
        cmocka_unit_test(the_basis_byte_length_counts_halves_in_u32_pairs),
        cmocka_unit_test(out_of_range_indices_are_refused),
        cmocka_unit_test(parents_that_are_not_a_forest_are_refused),
        cmocka_unit_test(non_finite_values_are_refused),
        cmocka_unit_test(the_writer_refuses_what_it_cannot_encode),
        cmocka_unit_test(mouth_and_source_are_reprinted_as_json_stringify_prints_them),
        cmocka_unit_test(the_writer_fails_when_the_header_length_does_not_converge),
        cmocka_unit_test(every_half_decodes_exactly_scalar_and_bulk),
        cmocka_unit_test(halves_encode_to_nearest_even_and_refuse_overflow),
        cmocka_unit_test(header_numbers_print_as_ecmascript_prints_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
