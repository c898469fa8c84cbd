/*
 * The parallel OBJ read (src/obj/pieces.c): a text split into pieces
 * at line ends, read on several threads and joined, must give exactly the
 * one-pass result: the same groups in file order with the same materials,
 * the same soup bits (generated normals included), the same arrays, bounds,
 * libraries and warnings; and for a text with an error, the same first
 * error (code, line, column, offset, message).  Checked for every piece
 * count from 2 to 40 (so the cuts land on many different lines) over
 * generated texts: absolute and relative indices of every kind, every
 * corner form mixed in a face, usemtl and mtllib on either side of a cut,
 * many unknown keywords, CRLF, continued lines, a missing final newline, a
 * polygon longer than a piece, an error in any piece; through a counting
 * allocator (no leak, every allocation failing in turn) and through the
 * public entry with real threads on a text big enough to be split.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <marionette/obj.h>

#include "counting_alloc.h"
#include "obj/pieces.h"

/* ---- comparing results ------------------------------------------------------------------ */

static void assert_same_string(const char *a, const char *b)
{
    if (!a || !b)
        assert_true(a == b);
    else
        assert_string_equal(a, b);
}

static void assert_same_obj(const mn_obj *a, const mn_obj *b)
{
    assert_int_equal(a->group_count, b->group_count);
    for (uint32_t g = 0; g < a->group_count; g++) {
        assert_same_string(a->groups[g].material, b->groups[g].material);
        assert_int_equal(a->groups[g].material_index, b->groups[g].material_index);
        assert_int_equal(a->groups[g].vertex_count, b->groups[g].vertex_count);
        assert_memory_equal(a->groups[g].verts, b->groups[g].verts,
                            (size_t)a->groups[g].vertex_count * 8 * sizeof(float));
    }
    assert_int_equal(a->mtllib_count, b->mtllib_count);
    assert_same_string(a->mtllib, b->mtllib);
    for (uint32_t i = 0; i < a->mtllib_count; i++)
        assert_string_equal(a->mtllibs[i], b->mtllibs[i]);
    assert_memory_equal(a->bounds_min, b->bounds_min, sizeof a->bounds_min);
    assert_memory_equal(a->bounds_max, b->bounds_max, sizeof a->bounds_max);
    assert_int_equal(a->material_count, b->material_count);
    for (uint32_t m = 0; m < a->material_count; m++) {
        assert_string_equal(a->materials[m].name, b->materials[m].name);
        assert_int_equal(a->materials[m].defined, b->materials[m].defined);
    }
    assert_int_equal(a->position_count, b->position_count);
    assert_int_equal(a->texcoord_count, b->texcoord_count);
    assert_int_equal(a->normal_count, b->normal_count);
    if (a->position_count)
        assert_memory_equal(a->positions, b->positions, (size_t)a->position_count * 3 * sizeof(float));
    if (a->texcoord_count)
        assert_memory_equal(a->texcoords, b->texcoords, (size_t)a->texcoord_count * 2 * sizeof(float));
    if (a->normal_count)
        assert_memory_equal(a->normals, b->normals, (size_t)a->normal_count * 3 * sizeof(float));
    assert_int_equal(a->warning_count, b->warning_count);
    for (uint32_t w = 0; w < a->warning_count; w++) {
        assert_int_equal(a->warnings[w].code, b->warnings[w].code);
        assert_string_equal(a->warnings[w].path, b->warnings[w].path);
        assert_string_equal(a->warnings[w].message, b->warnings[w].message);
    }
}

static void assert_same_error(const mn_error *a, const mn_error *b)
{
    assert_int_equal(a->code, b->code);
    assert_int_equal(a->line, b->line);
    assert_int_equal(a->column, b->column);
    assert_int_equal(a->offset, b->offset);
    assert_string_equal(a->path, b->path);
    assert_string_equal(a->message, b->message);
}

/* Line ends that end a statement (no backslash before them): the places a text can be cut. */
static uint32_t lines_in(const char *text, size_t size)
{
    uint32_t n = 0;
    for (size_t i = 0; i < size; i++) {
        if (text[i] != '\n')
            continue;
        size_t e = i;
        if (e > 0 && text[e - 1] == '\r')
            e--;
        n += !(e > 0 && text[e - 1] == '\\');
    }
    return n;
}

/*
 * Read the text in one pass, then in 2..max_pieces pieces (on one thread,
 * and on two for a few counts): every read must match the one pass.
 * Returns the one pass's status.
 */
static mn_status check_splits(const char *text, size_t size, uint32_t max_pieces,
                              const mn_obj_options *options)
{
    mn_obj *whole = NULL;
    mn_error whole_err;
    mn_status whole_st = mni_obj_read_memory_pieces(text, size, options, 1, 1, &whole, &whole_err, NULL);
    for (uint32_t pieces = 2; pieces <= max_pieces; pieces++) {
        for (uint32_t threads = 1; threads <= (pieces % 5 == 2 ? 2u : 1u); threads++) {
            mn_obj *obj = NULL;
            mn_error err;
            uint32_t joined = 0;
            mn_status st =
                mni_obj_read_memory_pieces(text, size, options, pieces, threads, &obj, &err, &joined);
            assert_int_equal(st, whole_st);
            /* A good text with lines enough is read in pieces, not by falling back to one pass. */
            if (st == MN_OK && lines_in(text, size) >= pieces)
                assert_true(joined > 1);
            if (st == MN_OK) {
                assert_same_obj(whole, obj);
                mn_obj_free(obj);
            } else {
                assert_null(obj);
                assert_same_error(&whole_err, &err);
            }
        }
    }
    mn_obj_free(whole);
    return whole_st;
}

/* ---- generated texts ---------------------------------------------------------------------- */

typedef struct text {
    char *data;
    size_t size, cap;
} text;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    if (!t->data) {
        t->cap = 256;
        t->data = malloc(t->cap);
        assert_non_null(t->data);
    }
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(t->data + t->size, t->cap - t->size, fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if ((size_t)n < t->cap - t->size) {
            t->size += (size_t)n;
            return;
        }
        t->cap = t->cap * 2 + (size_t)n + 64;
        t->data = realloc(t->data, t->cap);
        assert_non_null(t->data);
    }
}

static uint32_t rng_state;

static uint32_t rnd(uint32_t n)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return (rng_state >> 8) % n;
}

static const char *eol(uint32_t style)
{
    return style == 1 || (style == 2 && rnd(2)) ? "\r\n" : "\n";
}

/* A number in one of the forms exporters write. */
static void put_number(text *t)
{
    switch (rnd(5)) {
    case 0:
        put(t, "%d", (int)rnd(21) - 10);
        break;
    case 1:
        put(t, "%.6f", ((double)rnd(20001) - 10000.0) / 1000.0);
        break;
    case 2:
        put(t, "%.3e", ((double)rnd(2001) - 1000.0) * 1e-3);
        break;
    case 3:
        put(t, "-0");
        break;
    default:
        put(t, "%.9f", (double)rnd(1000000) / 999983.0);
        break;
    }
}

/* An index naming one of `count` (> 0) elements: absolute or relative. */
static void put_index(text *t, uint32_t count)
{
    uint32_t i = rnd(count);
    if (rnd(2))
        put(t, "%u", i + 1);
    else
        put(t, "-%u", count - i);
}

typedef struct gen {
    uint32_t v, vt, vn;
    uint32_t eol_style;     /* 0 LF, 1 CRLF, 2 mixed */
} gen;

static void put_face(text *t, gen *g, uint32_t corners)
{
    uint32_t form = rnd(5); /* 4: every corner its own form */
    put(t, "f");
    for (uint32_t k = 0; k < corners; k++) {
        uint32_t f = form == 4 ? rnd(4) : form;
        put(t, rnd(8) ? " " : " \t ");
        put_index(t, g->v);
        if ((f == 1 || f == 3) && g->vt) {
            put(t, "/");
            put_index(t, g->vt);
        } else if (f == 2 && g->vn) {
            put(t, "//");
            put_index(t, g->vn);
            continue;
        }
        if (f == 3 && g->vt && g->vn) {
            put(t, "/");
            put_index(t, g->vn);
        }
    }
}

static const char *const materials[] = {"red", "green", "blue glass", "red"};
static const char *const unknown_keywords[] = {
    "l", "p", "curv", "surf", "vp", "cstype", "deg", "bmat", "step", "parm", "trim", "hole", "scrv", "sp",
    "end", "con", "lod", "usemap", "maplib", "shadow_obj", "trace_obj", "ctech", "stech", "bevel",
    "c_interp", "d_interp", "call", "csh", "res", "a_very_long_unknown_keyword", "xyz1", "xyz2", "xyz3",
    "xyz4", "xyz5", "xyz6", "xyz7", "xyz8", "xyz9", "xyz10"};
#define UNKNOWN_KEYWORDS (sizeof unknown_keywords / sizeof *unknown_keywords)

/* One random statement (with its line end). */
static void put_statement(text *t, gen *g)
{
    uint32_t what = rnd(40);
    if (what < 10 || g->v < 3) {
        put(t, rnd(10) ? "v " : "  v\t");
        for (int k = 0; k < 3; k++) {
            put_number(t);
            put(t, " ");
        }
        if (rnd(6) == 0)
            put(t, "1");  /* a w */
        g->v++;
    } else if (what < 14) {
        put(t, "vt ");
        put_number(t);
        if (rnd(4)) {
            put(t, " ");
            put_number(t);
        }
        g->vt++;
    } else if (what < 18) {
        put(t, "vn ");
        put_number(t);
        put(t, " ");
        put_number(t);
        put(t, " ");
        put_number(t);
        g->vn++;
    } else if (what < 30) {
        put_face(t, g, 3 + (rnd(4) ? 0 : rnd(6)));
        if (rnd(10) == 0)
            put(t, " # a comment");
    } else if (what < 33) {
        put(t, "usemtl %s", materials[rnd(4)]);
    } else if (what < 34) {
        put(t, "mtllib lib%u.mtl", rnd(3));
    } else if (what < 36) {
        put(t, "%s 1 2", unknown_keywords[rnd(UNKNOWN_KEYWORDS)]);
    } else if (what < 37) {
        put(t, rnd(2) ? "# comment \\" : "o part%u", rnd(9));
    } else if (what < 38) {
        put(t, rnd(2) ? "" : "   ");
    } else if (what < 39) {
        /* A statement continued over lines. */
        put(t, "v 1 \\%s2 \\%s3", eol(g->eol_style), eol(g->eol_style));
        g->v++;
    } else {
        put(t, rnd(2) ? "s off" : "g group%u", rnd(5));
    }
    put(t, "%s", eol(g->eol_style));
}

static text generate(uint32_t seed, uint32_t statements, uint32_t eol_style)
{
    rng_state = seed;
    text t = {0};
    gen g = {.eol_style = eol_style};
    for (uint32_t i = 0; i < statements; i++)
        put_statement(&t, &g);
    return t;
}

/* ---- tests -------------------------------------------------------------------------------- */

static const mn_obj_options skip = {.skip_libraries = true};

static void test_generated_texts_read_the_same_in_any_pieces(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 24; seed++) {
        text t = generate(seed, 60 + seed * 7, seed % 3);
        assert_int_equal(check_splits(t.data, t.size, 40, &skip), MN_OK);
        /* Without the final line end: the last piece ends in a line of its own. */
        while (t.size && (t.data[t.size - 1] == '\n' || t.data[t.size - 1] == '\r'))
            t.size--;
        assert_int_equal(check_splits(t.data, t.size, 40, &skip), MN_OK);
        free(t.data);
    }
}

static void test_usemtl_crossing_every_cut_keeps_groups_and_materials(void **state)
{
    (void)state;
    /* Faces before any usemtl, the same name again (no new group), A B A with no face between
       (a new group of the same material), and a usemtl at the very end. */
    static const char obj[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n"
                              "f 1 2 3\nf -3 -2 -1\n"
                              "usemtl A\nf 1 2 3\nusemtl A\nf 2 4 3\n"
                              "usemtl B\nusemtl A\nf 1 2 4\n"
                              "usemtl B\nf 1 2 3\nf 2 4 3\nusemtl C\n"
                              "f 4 3 2\nusemtl C\nusemtl C\nf 1 2 3\nusemtl D\n";
    assert_int_equal(check_splits(obj, sizeof obj - 1, 40, &skip), MN_OK);
    mn_obj *o = NULL;
    mn_error err;
    assert_int_equal(mni_obj_read_memory_pieces(obj, sizeof obj - 1, &skip, 9, 2, &o, &err, NULL), MN_OK);
    assert_int_equal(o->group_count, 5);
    assert_null(o->groups[0].material);
    assert_string_equal(o->groups[1].material, "A");
    assert_int_equal(o->groups[1].vertex_count, 6);
    assert_string_equal(o->groups[2].material, "A");
    assert_string_equal(o->groups[3].material, "B");
    assert_string_equal(o->groups[4].material, "C");
    assert_int_equal(o->groups[4].vertex_count, 6);
    mn_obj_free(o);
}

static void test_unknown_keywords_warn_as_in_one_pass(void **state)
{
    (void)state;
    /* More distinct unknown keywords than are listed, spread so that the cut splits them. */
    text t = {0};
    for (uint32_t round = 0; round < 3; round++)
        for (uint32_t k = 0; k < UNKNOWN_KEYWORDS; k++)
            put(&t, "%s %u\nv 1 2 3\n", unknown_keywords[(k * 7 + round) % UNKNOWN_KEYWORDS], k);
    put(&t, "f 1 2 3\n");
    assert_int_equal(check_splits(t.data, t.size, 40, &skip), MN_OK);
    mn_obj *o = NULL;
    mn_error err;
    assert_int_equal(mni_obj_read_memory_pieces(t.data, t.size, &skip, 30, 2, &o, &err, NULL), MN_OK);
    assert_int_equal(o->warning_count, 17); /* 16 keywords, then "more unknown statements" */
    mn_obj_free(o);
    free(t.data);
}

/* An error put at every statement in turn: the first one in the file is reported, as the one pass does. */
static void test_errors_in_any_piece_are_the_first_in_the_file(void **state)
{
    (void)state;
    static const char *const errors[] = {
        "f 1 2 99", "f 1 2 -99", "f 0 1 2", "f 1/99 2 3", "f 1//-99 2 3", "v 1 2", "v 1 x 3", "vt",
        "f 1 2", "usemtl", "mtllib", "f 1/ 2 3", "v 1e999 0 0",
    };
    for (uint32_t e = 0; e < sizeof errors / sizeof *errors; e++) {
        text base = generate(100 + e, 50, e % 3);
        /* Insert the error after a random line, and a second one further on. */
        rng_state = 7 * e + 1;
        text t = {0};
        size_t at = 0, lines = 0, first = 10 + rnd(30), second = first + 1 + rnd(10);
        while (at < base.size) {
            const char *nl = memchr(base.data + at, '\n', base.size - at);
            size_t end = nl ? (size_t)(nl - base.data) + 1 : base.size;
            put(&t, "%.*s", (int)(end - at), base.data + at);
            size_t content = nl ? end - 1 : end;
            if (content > at && base.data[content - 1] == '\r')
                content--;
            bool continued = content > at && base.data[content - 1] == '\\';
            lines++;
            if ((lines == first || lines == second) && !continued)
                put(&t, "%s\n", errors[e]);
            at = end;
        }
        mn_status st = check_splits(t.data, t.size, 40, &skip);
        assert_int_not_equal(st, MN_OK);
        free(t.data);
        free(base.data);
    }
}

static void test_a_polygon_longer_than_a_piece(void **state)
{
    (void)state;
    text t = {0};
    for (int k = 0; k < 400; k++)
        put(&t, "v %d %d 0\nvt 0.5 0.5\n", k % 20, k / 20 + (k % 3 == 0));
    put(&t, "usemtl long\nf");
    for (int k = 1; k <= 400; k++)
        put(&t, " %d/%d", k, -(401 - k));
    put(&t, "\nf 1 2 3 \\\n 4 5\nf -1 -2 -3");
    assert_int_equal(check_splits(t.data, t.size, 40, &skip), MN_OK);
    free(t.data);
}

static void test_texts_too_small_to_split_still_read(void **state)
{
    (void)state;
    static const char *const texts[] = {"", "\n", "v 1 2 3", "v 1 2 3\n", "v 1 2 3\\\n4\n", "\n\n\n\n",
                                        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        check_splits(texts[i], strlen(texts[i]), 12, &skip);
    /* Lines ending in backslashes are never cut: one long statement over every line. */
    text t = {0};
    put(&t, "f");
    for (int k = 0; k < 50; k++)
        put(&t, " 1 \\\n");
    put(&t, "\n");
    assert_int_not_equal(check_splits(t.data, t.size, 12, &skip), MN_OK);
    free(t.data);
}

static mn_status fake_read(void *user, const char *base_dir, const char *uri, mn_bytes *out, mn_error *err)
{
    (void)user, (void)base_dir, (void)err;
    static const char lib[] = "newmtl red\nKd 1 0 0\nnewmtl green\nKd 0 1 0\n";
    if (strcmp(uri, "lib0.mtl") != 0)
        return MN_IO;
    out->data = (const uint8_t *)lib;
    out->size = sizeof lib - 1;
    return MN_OK;
}

static void test_libraries_after_a_split_read(void **state)
{
    (void)state;
    mn_obj_options options = {.resolver = {fake_read, NULL, NULL}};
    text t = generate(77, 200, 0);
    assert_int_equal(check_splits(t.data, t.size, 16, &options), MN_OK);
    free(t.data);
}

/* Every allocation of a split read failing in turn: a clean failure or a good read, nothing leaked. */
static void test_out_of_memory_in_a_split_read(void **state)
{
    (void)state;
    text t = generate(5, 80, 0);
    mn_obj *whole = NULL;
    mn_error err;
    assert_int_equal(mni_obj_read_memory_pieces(t.data, t.size, &skip, 1, 1, &whole, &err, NULL), MN_OK);
    for (uint32_t threads = 1; threads <= 2; threads++) {
        for (long k = 0;; k++) {
            mn_counting_alloc counter = mn_counting_alloc_make();
            counter.fail_after = k;
            mn_obj_options options = {.allocator = mn_counting_allocator(&counter), .skip_libraries = true};
            mn_obj *obj = NULL;
            mn_status st = mni_obj_read_memory_pieces(t.data, t.size, &options, 4, threads, &obj, &err, NULL);
            if (st == MN_OK) {
                assert_same_obj(whole, obj);
                mn_obj_free(obj);
                assert_int_equal(counter.live_bytes, 0);
                if (counter.failures == 0)
                    break;
                continue;
            }
            assert_int_equal(st, MN_OUT_OF_MEMORY);
            assert_null(obj);
            assert_int_equal(counter.live_bytes, 0);
            assert_true(k < 20000);
        }
    }
    mn_obj_free(whole);
    free(t.data);
}

/* The public entry splits a big text over threads by itself: the same result as one thread. */
static void test_big_text_on_threads_matches_one_thread(void **state)
{
    (void)state;
    text t = generate(9, 20000, 2);
    while (t.size < ((size_t)9 << 20)) {
        /* Repeats: every index stays valid. */
        t.data = realloc(t.data, 2 * t.size);
        assert_non_null(t.data);
        memcpy(t.data + t.size, t.data, t.size);
        t.size *= 2;
        t.cap = t.size;
    }
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_obj_options one = {.skip_libraries = true, .threads = 1};
    mn_obj_options two = {.skip_libraries = true, .threads = 2, .allocator = mn_counting_allocator(&counter)};
    mn_obj *a = NULL, *b = NULL;
    mn_error err;
    assert_int_equal(mn_obj_read_memory(t.data, t.size, &one, &a, &err), MN_OK);
    assert_int_equal(mn_obj_read_memory(t.data, t.size, &two, &b, &err), MN_OK);
    assert_same_obj(a, b);
    mn_obj_free(a);
    mn_obj_free(b);
    assert_int_equal(counter.live_bytes, 0);
    free(t.data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generated_texts_read_the_same_in_any_pieces),
        cmocka_unit_test(test_usemtl_crossing_every_cut_keeps_groups_and_materials),
        cmocka_unit_test(test_unknown_keywords_warn_as_in_one_pass),
        cmocka_unit_test(test_errors_in_any_piece_are_the_first_in_the_file),
        cmocka_unit_test(test_a_polygon_longer_than_a_piece),
        cmocka_unit_test(test_texts_too_small_to_split_still_read),
        cmocka_unit_test(test_libraries_after_a_split_read),
        cmocka_unit_test(test_out_of_memory_in_a_split_read),
        cmocka_unit_test(test_big_text_on_threads_matches_one_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
