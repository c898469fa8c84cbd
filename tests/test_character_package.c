/*
 * Character packages (src/character/descriptor.c, src/character/package.c):
 * a complete synthetic package written to a temporary folder with real
 * SHA-256s (3,000 splats bound to a five-joint SOMA skeleton, two clips one
 * of them broken, a head pack from the synthetic head, a fitted ARKit
 * table, a corrective index with one correction and its five files, a
 * mouth list, a shared clip pack beside the package), loaded through stdio
 * and through a caller's resolver, with progress checked call by call;
 * every corrupted variant gives the outcome section 11 documents: a bad
 * hash or size of a listed file, an ASCII PLY, a head of the wrong size, a
 * skeleton that is not jointNames, a clips file that is not soma-clips, a
 * missing file fail the load naming the file; a broken clip is left out
 * with its reason; a bad optional part (face table, a drive, a correction's
 * file, a mouth row, a missing mouth list) is dropped with a warning naming
 * it; the shared pack is read once for two characters through the cache.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <marionette/head/arkit.h>
#include <marionette/character/package.h>
#include <marionette/head/head.h>

#include "counting_alloc.h"
#include "files.h"
#include "synthetic_head.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SPLATS 3000u
#define JOINTS 5u
#define COEFFS 8u

/* ---- building the package ------------------------------------------------------ */

typedef struct blob {
    uint8_t *data;
    size_t size;
} blob;

static blob ply_bytes(bool ascii)
{
    static const char *const props[] = {"x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity",
                                        "scale_0", "scale_1", "scale_2", "rot_0", "rot_1",
                                        "rot_2", "rot_3"};
    char header[1024];
    int n = snprintf(header, sizeof header, "ply\nformat %s 1.0\nelement vertex %u\n",
                     ascii ? "ascii" : "binary_little_endian", SPLATS);
    for (size_t p = 0; p < 14; p++)
        n += snprintf(header + n, sizeof header - (size_t)n, "property float %s\n", props[p]);
    n += snprintf(header + n, sizeof header - (size_t)n, "end_header\n");
    blob b = {malloc((size_t)n + SPLATS * 14 * 4), (size_t)n + SPLATS * 14 * 4};
    memcpy(b.data, header, (size_t)n);
    float *v = (float *)(void *)(b.data + n);
    for (uint32_t i = 0; i < SPLATS; i++)
        for (int p = 0; p < 14; p++) {
            float f = p == 10 ? 1.0f : (float)((i * 31u + (uint32_t)p * 7u) % 97u) * 0.01f;
            memcpy((uint8_t *)v + ((size_t)i * 14 + (size_t)p) * 4, &f, 4);
        }
    return b;
}

static blob bindings_bytes(void)
{
    const uint32_t k = 2;
    blob b = {calloc(1, 16 + 6 * SPLATS * k), 16 + 6 * SPLATS * k};
    uint32_t head[4] = {0, 1, SPLATS, k};
    memcpy(head, "BIND", 4);
    memcpy(b.data, head, 16);
    for (uint32_t i = 0; i < SPLATS * k; i++) {
        uint16_t j = (uint16_t)(i % JOINTS);
        float w = 0.5f;
        memcpy(b.data + 16 + 2 * i, &j, 2);
        memcpy(b.data + 16 + 2 * SPLATS * k + 4 * i, &w, 4);
    }
    return b;
}

static const char skeleton_json[] =
    "{\"format\":\"aosrig-v2-skeleton\",\"floorY\":0,\"groundOffset\":0.05,\"hips\":\"Hips\","
    "\"joints\":["
    "{\"name\":\"Hips\",\"parent\":-1,\"localPosition\":[0,1,0],\"localRotation\":[0,0,0,1],"
    "\"baseLocalRotation\":null,\"inverseBind\":[1,0,0,0,0,1,0,0,0,0,1,0,0,-1,0,1]},"
    "{\"name\":\"Spine\",\"parent\":0,\"localPosition\":[0,0.2,0],\"localRotation\":[0,0,0,1],"
    "\"baseLocalRotation\":null,\"inverseBind\":[1,0,0,0,0,1,0,0,0,0,1,0,0,-1.2,0,1]},"
    "{\"name\":\"Neck\",\"parent\":1,\"localPosition\":[0,0.3,0],\"localRotation\":[0,0,0,1],"
    "\"baseLocalRotation\":null,\"inverseBind\":[1,0,0,0,0,1,0,0,0,0,1,0,0,-1.5,0,1]},"
    "{\"name\":\"Head\",\"parent\":2,\"localPosition\":[0,0.1,0],\"localRotation\":[0,0,0,1],"
    "\"baseLocalRotation\":null,\"inverseBind\":[1,0,0,0,0,1,0,0,0,0,1,0,0,-1.6,0,1]},"
    "{\"name\":\"LeftArm\",\"parent\":1,\"localPosition\":[0.2,0.25,0],"
    "\"localRotation\":[0,0,0,1],\"baseLocalRotation\":null,"
    "\"inverseBind\":[1,0,0,0,0,1,0,0,0,0,1,0,-0.2,-1.45,0,1]}],\"twist\":[]}";
/* Two clips, the second broken (fps 0): it is left out with its reason, the file is kept. */
static const char clips_json[] =
    "{\"format\":\"soma-clips\",\"clips\":["
    "{\"name\":\"idle\",\"fps\":10,\"frames\":2,\"loop\":true,"
    "\"bones\":{\"Spine\":[0,0,0,1,0,0,0.1,0.995]},\"root\":[0,0,0,0,0.01,0]},"
    "{\"name\":\"broken\",\"fps\":0,\"frames\":1,\"root\":[0,0,0]}]}";
static const char shared_json[] =
    "{\"format\":\"soma-clips\",\"clips\":[{\"name\":\"walk\",\"fps\":30,\"frames\":2,"
    "\"locomotion\":true,\"speed\":1.4,\"bones\":{\"LeftArm\":[0,0,0,1,0.1,0,0,0.995]},"
    "\"root\":[0,0,0,0,0,0.05]},{\"name\":\"idle\",\"fps\":10,\"frames\":1,"
    "\"root\":[0,0,0]}]}";
/* One correction, driven by the left arm; %s: its points file's sha256, %g/%g: fromDeg/toDeg. */
static const char corrective_format[] =
    "{\"format\":\"aosrig-corrective\",\"version\":1,\"splatCount\":3000,\"corrections\":["
    "{\"name\":\"raise\",\"label\":\"L\",\"points\":4,\"trainedDeg\":150,"
    "\"files\":{\"points\":\"raise/points.bin\",\"pointsSide\":\"raise/ps.bin\","
    "\"bindings\":\"raise/b.bin\",\"side\":\"raise/s.bin\",\"fade\":\"raise/f.bin\"},"
    "\"sha256\":{\"points\":\"%s\"},"
    "\"drives\":[{\"side\":0,\"bone\":[\"LeftArm\",\"Head\"],\"frame\":\"Spine\","
    "\"restDeg\":10,\"fromDeg\":%g,\"toDeg\":%g,\"curve\":\"smoothstep\"}]}]}";

/* Two rows; `bad_row` puts the second past splatCount. */
static blob mouth_bytes(bool bad_row)
{
    blob b = {calloc(1, 36 + 2 * 16), 36 + 2 * 16};
    uint32_t head[3] = {0, 1, 2};
    memcpy(head, "MHID", 4);
    float axes[6] = {0, 1, 0, 0, 0, 1};
    memcpy(b.data, head, 12);
    memcpy(b.data + 12, axes, 24);
    uint32_t rows[2] = {5, bad_row ? SPLATS : 9};
    for (int i = 0; i < 2; i++) {
        uint8_t *e = b.data + 36 + 16 * i;
        uint32_t upper = 3, lower = 4;
        memcpy(e, &rows[i], 4);
        e[4] = (uint8_t)(i + 1);
        memcpy(e + 8, &upper, 4);
        memcpy(e + 12, &lower, 4);
    }
    return b;
}

/* The fitted table: 2 channels, 1 pair, COEFFS floats a row. */
static blob face_table_bytes(void)
{
    blob b = {calloc(3 * COEFFS, 4), 3 * COEFFS * 4};
    for (uint32_t i = 0; i < 3 * COEFFS; i++) {
        float f = (float)i * 0.01f;
        memcpy(b.data + 4 * i, &f, 4);
    }
    return b;
}

#define FILES 14

typedef struct package {
    char dir[256];       /* the temporary folder; the package is dir/pkg, the shared pack dir/shared.json */
    char pkg[300];
    blob files[FILES];   /* ply, bindings, skeleton, clips, head, face, corrective, mouth, shared, 5 correction files */
    uint32_t head_vertices;
} package;

enum { F_PLY, F_BIND, F_SKEL, F_CLIPS, F_HEAD, F_FACE, F_CORR, F_MOUTH, F_SHARED, F_C0 };
static const char *const file_paths[FILES] = {
    "character.ply", "bindings.bin", "skeleton.json", "clips.json", "head.aosrig",
    "arkit_to_gnm.bin", "corrective/index.json", "mouth_hidden.bin", "../shared.json",
    "corrective/raise/points.bin", "corrective/raise/ps.bin", "corrective/raise/b.bin",
    "corrective/raise/s.bin", "corrective/raise/f.bin"};

static blob copy_text(const char *s)
{
    blob b = {malloc(strlen(s)), strlen(s)};
    memcpy(b.data, s, b.size);
    return b;
}

static void write_file(const package *p, const char *rel, const blob *b)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", p->pkg, rel);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b->data, 1, b->size, f), b->size);
    fclose(f);
}

/* Edits a test makes to the descriptor it writes. */
typedef struct tweak {
    int version;                 /* 0: 2 */
    const char *ply_to_character; /* NULL: the identity with a translation */
    int wrong_bytes;             /* index + 1 of a file whose stated size is off by one */
    int wrong_hash;              /* index + 1 of a file whose stated hash is another file's */
    uint32_t head_vertex_count;  /* 0: the head's */
    bool second_head;
    bool copy_of_bindings;       /* one more file, "copy.bin", whose src is bindings.bin */
    const char *shared_src;      /* NULL: "../shared.json" */
    const char *face;            /* the "face" member's JSON (NULL: the real table's entry) */
    const char *corrective;      /* the "corrective" member's JSON (NULL: the real index's) */
    int entry_of;                /* index + 1 of a file whose package.files entry is `entry` */
    const char *entry;           /* that entry's JSON */
} tweak;

static void sha_of(const blob *b, char out[65])
{
    mn_sha256_hex(b->data, b->size, out);
}

/* The corrective index: its points file's real hash (or a wrong one), fromDeg/toDeg as given. */
static void set_corrective(package *p, bool wrong_points_hash, double from, double to)
{
    char sha[65], text[2048];
    sha_of(&p->files[F_C0], sha);
    if (wrong_points_hash)
        sha[0] = sha[0] == '0' ? '1' : '0';
    snprintf(text, sizeof text, corrective_format, sha, from, to);
    free(p->files[F_CORR].data);
    p->files[F_CORR] = (blob){malloc(strlen(text)), strlen(text)};
    memcpy(p->files[F_CORR].data, text, strlen(text));
}

static void write_descriptor(const package *p, const tweak *t)
{
    char sha[9][65];
    for (int i = 0; i < 9; i++)
        sha_of(&p->files[i], sha[i]);
    if (t->wrong_hash)
        memcpy(sha[t->wrong_hash - 1], sha[(t->wrong_hash) % 9], 65);
    size_t bytes[FILES];
    for (int i = 0; i < FILES; i++)
        bytes[i] = p->files[i].size + (t->wrong_bytes == i + 1 ? 1 : 0);
    char *json = malloc(16384);
    int n = snprintf(json, 16384,
        "{\"format\":\"aosrig-splat\",\"version\":%d,\"rig\":\"aosrig-v2\",\"units\":\"m\","
        "\"renderer\":\"webgpu\",\"splatCount\":%u,\"headVertexCount\":%u,"
        "\"jointNames\":[\"Hips\",\"Spine\",\"Neck\",\"Head\",\"LeftArm\"],"
        "\"bounds\":{\"center\":[0,1,0],\"radius\":1.2},\"plyToCharacter\":%s,"
        "\"colorSpace\":\"srgb\",\"files\":{",
        t->version ? t->version : 2, SPLATS,
        t->head_vertex_count ? t->head_vertex_count : p->head_vertices,
        t->ply_to_character ? t->ply_to_character : "[1,0,0,0,0,1,0,0.5,0,0,1,0]");
    for (int i = F_PLY; i <= F_HEAD; i++)
        n += snprintf(json + n, 16384 - (size_t)n,
                      "%s\"%s\":{\"src\":\"%s\",\"sha256\":\"%s\",\"bytes\":%zu}",
                      i ? "," : "", file_paths[i], file_paths[i], sha[i], bytes[i]);
    if (t->second_head)
        n += snprintf(json + n, 16384 - (size_t)n,
                      ",\"other.aosrig\":{\"src\":\"head.aosrig\",\"sha256\":\"%s\"}", sha[4]);
    if (t->copy_of_bindings)
        n += snprintf(json + n, 16384 - (size_t)n,
                      ",\"copy.bin\":{\"src\":\"bindings.bin\",\"sha256\":\"%s\"}", sha[1]);
    n += snprintf(json + n, 16384 - (size_t)n,
        "},\"clips\":[],\"sharedClips\":{\"src\":\"%s\",\"format\":\"soma-clips\","
        "\"sha256\":\"%s\",\"bytes\":%zu},",
        t->shared_src ? t->shared_src : "../shared.json", sha[F_SHARED], bytes[F_SHARED]);
    if (t->corrective)
        n += snprintf(json + n, 16384 - (size_t)n, "\"corrective\":%s,", t->corrective);
    else
        n += snprintf(json + n, 16384 - (size_t)n,
                      "\"corrective\":{\"index\":\"corrective/index.json\",\"sha256\":\"%s\"},",
                      sha[F_CORR]);
    if (t->face)
        n += snprintf(json + n, 16384 - (size_t)n, "\"face\":%s,", t->face);
    else
        n += snprintf(json + n, 16384 - (size_t)n,
            "\"face\":{\"arkit\":{\"version\":1,\"src\":\"arkit_to_gnm.bin\",\"sha256\":\"%s\","
            "\"bytes\":%zu,\"channels\":[\"jawOpen\",\"mouthSmileLeft\"],\"coeffs\":%u,"
            "\"pairs\":[[0,1]],\"gaze\":{},\"blinks\":[]}},",
            sha[F_FACE], bytes[F_FACE], COEFFS);
    n += snprintf(json + n, 16384 - (size_t)n, "\"package\":{\"files\":[");
    static const int listed[] = {F_CORR, F_MOUTH, F_C0, F_C0 + 1, F_C0 + 2, F_C0 + 3, F_C0 + 4};
    for (size_t k = 0; k < sizeof listed / sizeof listed[0]; k++) {
        int i = listed[k];
        if (t->entry_of == i + 1)
            n += snprintf(json + n, 16384 - (size_t)n, "%s%s", k ? "," : "", t->entry);
        else
            n += snprintf(json + n, 16384 - (size_t)n, "%s{\"path\":\"%s\",\"bytes\":%zu}",
                          k ? "," : "", file_paths[i], bytes[i]);
    }
    n += snprintf(json + n, 16384 - (size_t)n, "]}}");
    blob d = {(uint8_t *)json, (size_t)n};
    write_file(p, "character.json", &d);
    free(json);
}

static void write_package(package *p, const tweak *t)
{
    for (int i = 0; i < FILES; i++)
        write_file(p, file_paths[i], &p->files[i]);
    write_descriptor(p, t);
}

static int setup(void **state)
{
    package *p = calloc(1, sizeof *p);
    mn_test_make_temp_dir(p->dir, sizeof p->dir, "character");
    snprintf(p->pkg, sizeof p->pkg, "%s/pkg", p->dir);
    char sub[400];
    assert_int_equal(mkdir(p->pkg, 0700), 0);
    snprintf(sub, sizeof sub, "%s/corrective", p->pkg);
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(sub, sizeof sub, "%s/corrective/raise", p->pkg);
    assert_int_equal(mkdir(sub, 0700), 0);

    p->files[F_PLY] = ply_bytes(false);
    p->files[F_BIND] = bindings_bytes();
    p->files[F_SKEL] = copy_text(skeleton_json);
    p->files[F_CLIPS] = copy_text(clips_json);
    synthetic_head_options ho = {.coeff_count = COEFFS};
    synthetic_head head;
    synthetic_head_build(&head, &ho);
    uint8_t *packed = NULL;
    size_t packed_size = 0;
    assert_int_equal(synthetic_head_pack(&head, &packed, &packed_size, NULL), MN_OK);
    p->head_vertices = head.vertex_count;
    p->files[F_HEAD] = (blob){malloc(packed_size), packed_size};
    memcpy(p->files[F_HEAD].data, packed, packed_size);
    mn_aosrig_bytes_free(NULL, packed, packed_size);
    synthetic_head_free(&head);
    p->files[F_FACE] = face_table_bytes();
    p->files[F_MOUTH] = mouth_bytes(false);
    p->files[F_SHARED] = copy_text(shared_json);
    for (int i = F_C0; i < FILES; i++) {
        char text[64];
        snprintf(text, sizeof text, "correction file %d", i - F_C0);
        p->files[i] = copy_text(text);
    }
    set_corrective(p, false, 60, 120);
    *state = p;
    return 0;
}

static int teardown(void **state)
{
    package *p = *state;
    mn_test_remove_tree(p->dir);
    for (int i = 0; i < FILES; i++)
        free(p->files[i].data);
    free(p);
    return 0;
}

/* ---- loading -------------------------------------------------------------------- */

typedef struct progress_log {
    uint64_t loaded[32], total[32];
    int calls;
} progress_log;

static void on_progress(void *user, uint64_t loaded, uint64_t total)
{
    progress_log *log = user;
    if (log->calls < 32) {
        log->loaded[log->calls] = loaded;
        log->total[log->calls] = total;
    }
    log->calls++;
}

static mn_status load(const package *p, mn_character **out, mn_error *err)
{
    /* The shared clip pack is "../shared.json", beside the package: no root is needed. */
    return mn_character_load(p->pkg, "character.json", NULL, out, err);
}

static void loads_the_whole_package(void **state)
{
    package *p = *state;
    write_package(p, &(tweak){0});
    mn_counting_alloc counter = mn_counting_alloc_make();
    progress_log log = {0};
    mn_character_load_options o = {.allocator = mn_counting_allocator(&counter),
                                   .progress = on_progress, .progress_user = &log};
    mn_character *c = NULL;
    mn_error err;
    mn_status st = mn_character_load(p->pkg, "character.json", &o, &c, &err);
    if (st != MN_OK)
        fail_msg("%s: %s", mn_status_name(st), err.message);
    const mn_character_descriptor *d = c->descriptor;
    assert_int_equal(d->version, 2);
    assert_int_equal(d->file_count, 5);
    assert_int_equal(d->joint_count, JOINTS);
    assert_string_equal(d->files[1].name, "bindings.bin");
    assert_int_equal(c->splats.count, SPLATS);
    assert_int_equal(c->bindings.count, SPLATS);
    assert_true(c->ply_translation[1] == 0.5f);
    assert_non_null(c->head);
    assert_int_equal(c->head->header.vertex_count, p->head_vertices);
    assert_non_null(c->face_map);
    assert_int_equal(c->skeleton_json.size, strlen(skeleton_json));
    assert_memory_equal(c->clips_json.data, clips_json, strlen(clips_json));
    /* the body: skeleton, clips (the broken one left out with its reason), the shared pack */
    assert_non_null(c->skeleton);
    assert_int_equal(c->skeleton->joint_count, JOINTS);
    assert_int_equal(c->clips->clip_count, 1);
    assert_int_equal(c->clips->dropped_count, 1);
    assert_string_equal(c->clips->dropped[0].name, "broken");
    assert_int_equal(c->clips->dropped[0].code, MN_INVALID_VALUE);
    assert_non_null(c->shared_clips);
    assert_int_equal(c->shared_clips->clip_count, 2);
    /* a name the package has wins over the shared pack's */
    assert_true(mn_soma_clips_lookup(c->clips, c->shared_clips, "idle") == &c->clips->clips[0]);
    assert_non_null(mn_soma_clips_lookup(c->clips, c->shared_clips, "walk"));
    /* the optional parts */
    assert_non_null(c->corrective);
    assert_int_equal(c->corrective->played_count, 1);
    for (int f = 0; f < MN_CORRECTIVE_FILE_COUNT; f++)
        assert_int_equal(c->corrective_files[0][f].size, p->files[F_C0 + f].size);
    assert_non_null(c->mouth);
    assert_int_equal(c->mouth->count, 2);
    assert_int_equal(c->warning_count, 0);
    assert_non_null(mn_character_file_data(c, "head.aosrig"));
    assert_null(mn_character_file_data(c, "nothing"));

    /* progress: one call a file (14), in bytes, rising, the total stated up front, last equal */
    uint64_t total = 0;
    for (int i = 0; i < FILES; i++)
        total += p->files[i].size;
    assert_int_equal(log.calls, FILES);
    uint64_t sum = 0;
    const int order[FILES] = {F_PLY,  F_BIND, F_SKEL,     F_CLIPS,    F_HEAD,
                              F_SHARED, F_FACE, F_CORR, F_C0,       F_C0 + 1,
                              F_C0 + 2, F_C0 + 3, F_C0 + 4, F_MOUTH};
    for (int i = 0; i < FILES; i++) {
        sum += p->files[order[i]].size;
        assert_int_equal(log.loaded[i], sum);
        assert_int_equal(log.total[i], total);
    }
    assert_int_equal(c->loaded_bytes, total);
    mn_character_free(c);
    assert_int_equal(counter.live_bytes, 0);

    /* every allocation failing in turn: an error, never a leak */
    for (long fail = 0; fail < 80; fail++) {
        counter = mn_counting_alloc_make();
        counter.fail_after = fail;
        o.allocator = mn_counting_allocator(&counter);
        st = mn_character_load(p->pkg, "character.json", &o, &c, NULL);
        if (st == MN_OK)
            mn_character_free(c);
        else
            assert_null(c);
        assert_int_equal(counter.live_bytes, 0);
    }
}

static void expect_failure(const package *p, const tweak *t, mn_status code, const char *path,
                           const char *words)
{
    write_package((package *)p, t);
    mn_character *c = NULL;
    mn_error err;
    assert_int_equal(load(p, &c, &err), code);
    assert_null(c);
    if (path && strcmp(err.path, path) != 0)
        fail_msg("path \"%s\", expected \"%s\" (%s)", err.path, path, err.message);
    if (words && !strstr(err.message, words))
        fail_msg("message \"%s\" lacks \"%s\"", err.message, words);
}

static void a_listed_file_fails_the_load(void **state)
{
    package *p = *state;
    expect_failure(p, &(tweak){.wrong_hash = F_BIND + 1}, MN_INVALID_VALUE, "bindings.bin",
                   "sha256");
    expect_failure(p, &(tweak){.wrong_bytes = F_SKEL + 1}, MN_COUNT_MISMATCH, "skeleton.json",
                   "bytes");
    expect_failure(p, &(tweak){.wrong_hash = F_SHARED + 1}, MN_INVALID_VALUE, "sharedClips",
                   "sha256");
    expect_failure(p, &(tweak){.head_vertex_count = 7}, MN_COUNT_MISMATCH, "head.aosrig",
                   "headVertexCount");

    /* an ASCII PLY, with its real hash: the PLY reader refuses it, naming the file */
    blob binary = p->files[F_PLY];
    p->files[F_PLY] = ply_bytes(true);
    expect_failure(p, &(tweak){0}, MN_INVALID_VALUE, "character.ply", "ASCII");
    free(p->files[F_PLY].data);
    p->files[F_PLY] = binary;

    /* a missing file */
    write_package(p, &(tweak){0});
    char path[700];
    snprintf(path, sizeof path, "%s/clips.json", p->pkg);
    assert_int_equal(unlink(path), 0);
    mn_character *c = NULL;
    mn_error err;
    assert_int_equal(load(p, &c, &err), MN_IO);
    assert_non_null(strstr(err.message, "clips.json"));
    assert_string_equal(err.path, "clips.json");
}

static void the_descriptor_is_validated(void **state)
{
    package *p = *state;
    expect_failure(p, &(tweak){.version = 1}, MN_INVALID_VALUE, "version",
                   "unsupported version 1");
    expect_failure(p, &(tweak){.version = 3}, MN_INVALID_VALUE, "version",
                   "unsupported version 3");
    expect_failure(p, &(tweak){.ply_to_character = "[0,1,0,0,1,0,0,0,0,0,1,0]"},
                   MN_INVALID_VALUE, "plyToCharacter", "identity");
    expect_failure(p, &(tweak){.ply_to_character = "[1,0,0,0]"}, MN_INVALID_VALUE, NULL,
                   NULL);
    expect_failure(p, &(tweak){.second_head = true}, MN_INVALID_VALUE, "files", "head packs");

    /* paths, required files and types straight through the descriptor reader */
    static const struct {
        const char *json;
        mn_status code;
    } cases[] = {
        {"{", MN_JSON_SYNTAX},
        {"[]", MN_JSON_TYPE},
        {"{\"format\":\"other\"}", MN_INVALID_VALUE},
        {"{\"format\":\"aosrig-splat\",\"version\":2,\"rig\":\"aosrig_v0\",\"units\":\"m\"}",
         MN_INVALID_VALUE},
        {"{\"format\":\"aosrig-splat\",\"version\":2,\"rig\":\"aosrig-v2\",\"units\":\"cm\"}",
         MN_INVALID_VALUE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mn_character_descriptor *d = NULL;
        mn_error err;
        assert_int_equal(mn_character_descriptor_read(cases[i].json, strlen(cases[i].json), NULL,
                                                      &d, &err),
                         cases[i].code);
        assert_null(d);
    }
    static const char base[] =
        "{\"format\":\"aosrig-splat\",\"version\":2,\"rig\":\"aosrig-v2\",\"units\":\"m\","
        "\"splatCount\":1,\"headVertexCount\":0,\"jointNames\":[\"a\",\"b\"],"
        "\"bounds\":{\"center\":[0,0,0],\"radius\":1},"
        "\"plyToCharacter\":[1,0,0,0,0,1,0,0,0,0,1,0],\"files\":{%s}}";
    static const char sha[] = "\"sha256\":\"00112233445566778899aabbccddeeff"
                              "00112233445566778899AABBCCDDEEFF\"";
    static const struct {
        const char *files;
        mn_status code;
        const char *path;
    } file_cases[] = {
        {"\"character.ply\":{\"src\":\"../x.ply\",%s}", MN_URI, "files.character.ply.src"},
        {"\"character.ply\":{\"src\":\"a//b\",%s}", MN_URI, NULL},
        {"\"character.ply\":{\"src\":\"/abs\",%s}", MN_URI, NULL},
        {"\"character.ply\":{\"src\":\"a%%20b\",%s}", MN_URI, NULL},
        {"\"character.ply\":{\"src\":\"c.ply\",\"sha256\":\"12\"}", MN_INVALID_VALUE, NULL},
        {"\"character.ply\":{\"src\":\"c.ply\",%s}", MN_MISSING_PROPERTY, NULL},
    };
    for (size_t i = 0; i < sizeof file_cases / sizeof file_cases[0]; i++) {
        char files[512], json[2048];
        snprintf(files, sizeof files, file_cases[i].files, sha);
        snprintf(json, sizeof json, base, files);
        mn_character_descriptor *d = NULL;
        mn_error err;
        assert_int_equal(mn_character_descriptor_read(json, strlen(json), NULL, &d, &err),
                         file_cases[i].code);
        if (file_cases[i].path)
            assert_string_equal(err.path, file_cases[i].path);
    }
    /* four required files and an upper-case hash: read, the hash lower-cased */
    char files[1024], json[2048];
    snprintf(files, sizeof files,
             "\"character.ply\":{\"src\":\"c.ply\",%s},\"bindings.bin\":{\"src\":\"b\",%s},"
             "\"skeleton.json\":{\"src\":\"s\",%s},\"clips.json\":{\"src\":\"d/c\",%s}",
             sha, sha, sha, sha);
    snprintf(json, sizeof json, base, files);
    mn_character_descriptor *d = NULL;
    assert_int_equal(mn_character_descriptor_read(json, strlen(json), NULL, &d, NULL), MN_OK);
    assert_string_equal(d->files[0].sha256,
                        "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff");
    assert_false(d->files[0].has_bytes);
    assert_string_equal(d->color_space, "srgb");
    mn_character_descriptor_free(d);
}

static void optional_parts_are_dropped_with_a_warning(void **state)
{
    package *p = *state;
    static const struct {
        int wrong_hash;
        const char *name;
    } cases[] = {{F_FACE + 1, "face.arkit"}, {F_CORR + 1, "corrective/index.json"}};
    for (size_t i = 0; i < 2; i++) {
        write_package(p, &(tweak){.wrong_hash = cases[i].wrong_hash});
        progress_log log = {0};
        mn_character_load_options o = {.progress = on_progress, .progress_user = &log};
        mn_character *c = NULL;
        mn_error err;
        assert_int_equal(mn_character_load(p->pkg, "character.json", &o, &c, &err), MN_OK);
        assert_int_equal(c->warning_count, 1);
        assert_string_equal(c->warnings[0].name, cases[i].name);
        assert_int_equal(c->warnings[0].code, MN_INVALID_VALUE);
        assert_true(i == 0 ? c->face_map == NULL : c->corrective_index_json.data == NULL);
        assert_true(log.loaded[log.calls - 1] == log.total[log.calls - 1]);
        mn_character_free(c);
    }

    /* a face table that is valid bytes but the wrong size for its channels */
    blob face = p->files[F_FACE];
    p->files[F_FACE] = (blob){calloc(1, 8), 8};
    write_package(p, &(tweak){0});
    mn_character *c = NULL;
    assert_int_equal(load(p, &c, NULL), MN_OK);
    assert_int_equal(c->warning_count, 1);
    assert_string_equal(c->warnings[0].name, "face.arkit");
    assert_int_equal(c->warnings[0].code, MN_COUNT_MISMATCH);
    mn_character_free(c);
    free(p->files[F_FACE].data);
    p->files[F_FACE] = face;

    /* the mouth list missing while package.files lists it; progress still ends equal */
    write_package(p, &(tweak){0});
    char path[700];
    snprintf(path, sizeof path, "%s/mouth_hidden.bin", p->pkg);
    assert_int_equal(unlink(path), 0);
    progress_log log = {0};
    mn_character_load_options o = {.progress = on_progress, .progress_user = &log};
    assert_int_equal(mn_character_load(p->pkg, "character.json", &o, &c, NULL), MN_OK);
    assert_int_equal(c->warning_count, 1);
    assert_string_equal(c->warnings[0].name, "mouth_hidden.bin");
    assert_int_equal(c->warnings[0].code, MN_IO);
    assert_null(c->mouth_hidden.data);
    assert_int_equal(log.calls, FILES); /* 13 files, then (loaded, loaded) */
    assert_true(log.loaded[FILES - 1] == log.total[FILES - 1]);
    assert_true(log.total[FILES - 2] > log.loaded[FILES - 2]);
    mn_character_free(c);

    /* a bad drive (fromDeg ≥ toDeg): the corrective part is dropped, named */
    set_corrective(p, false, 120, 60);
    write_package(p, &(tweak){0});
    assert_int_equal(load(p, &c, NULL), MN_OK);
    assert_int_equal(c->warning_count, 1);
    assert_string_equal(c->warnings[0].name, "corrective/index.json");
    assert_int_equal(c->warnings[0].code, MN_INVALID_VALUE);
    assert_null(c->corrective);
    assert_null(c->corrective_files[0][0].data);
    mn_character_free(c);

    /* a correction's file whose hash the index gives wrong: dropped whole, the file named */
    set_corrective(p, true, 60, 120);
    write_package(p, &(tweak){0});
    assert_int_equal(load(p, &c, NULL), MN_OK);
    assert_int_equal(c->warning_count, 1);
    assert_string_equal(c->warnings[0].name, "corrective/raise/points.bin");
    assert_int_equal(c->warnings[0].code, MN_INVALID_VALUE);
    assert_null(c->corrective);
    mn_character_free(c);
    set_corrective(p, false, 60, 120);

    /* a bad mouth row (≥ splatCount): the list is dropped, named */
    free(p->files[F_MOUTH].data);
    p->files[F_MOUTH] = mouth_bytes(true);
    write_package(p, &(tweak){0});
    assert_int_equal(load(p, &c, NULL), MN_OK);
    assert_int_equal(c->warning_count, 1);
    assert_string_equal(c->warnings[0].name, "mouth_hidden.bin");
    assert_int_equal(c->warnings[0].code, MN_INDEX_RANGE);
    assert_null(c->mouth);
    mn_character_free(c);
    free(p->files[F_MOUTH].data);
    p->files[F_MOUTH] = mouth_bytes(false);

    /* skipping parts: nothing fetched for them, nothing said */
    write_package(p, &(tweak){0});
    mn_character_load_options skip = {.skip_face = true, .skip_corrective = true,
                                      .skip_mouth = true, .skip_shared_clips = true,
                                      .resolver.root = p->dir};
    assert_int_equal(mn_character_load(p->pkg, "character.json", &skip, &c, NULL), MN_OK);
    assert_int_equal(c->warning_count, 0);
    assert_null(c->face_map);
    assert_null(c->shared_clips_json.data);
    mn_character_free(c);
}

/* What a load left of each optional part: 1 when it is there. */
static void expect_parts(const mn_character *c, bool face, bool corrective, bool mouth)
{
    assert_int_equal(c->face_map != NULL, face);
    assert_int_equal(c->corrective != NULL, corrective);
    assert_int_equal(c->corrective_index_json.data != NULL, corrective);
    assert_int_equal(c->corrective_files[0][0].data != NULL, corrective);
    assert_int_equal(c->mouth != NULL, mouth);
    /* the required parts are all there */
    assert_non_null(c->head);
    assert_non_null(c->skeleton);
    assert_non_null(c->shared_clips);
    assert_int_equal(c->splats.count, SPLATS);
}

#define ZEROS64 "0000000000000000000000000000000000000000000000000000000000000000"
#define ARKIT_REST "\"channels\":[\"jawOpen\"],\"coeffs\":8,\"pairs\":[],\"gaze\":{},\"blinks\":[]"

/*
 * character-formats.md §11: a malformed entry for an optional part in
 * character.json drops that part with a warning naming it (its code the
 * check's), nothing of the part is fetched, and the rest loads.
 */
static void a_malformed_optional_entry_drops_only_that_part(void **state)
{
    package *p = *state;
    enum { FACE, CORR, MOUTH };
    static const struct {
        tweak t;
        int part;
        const char *name;
        mn_status code;
        int files;   /* the part's files, none of them fetched */
    } cases[] = {
        {{.face = "7"}, FACE, "face.arkit", MN_JSON_TYPE, 1},
        {{.face = "{\"arkit\":[]}"}, FACE, "face.arkit", MN_JSON_TYPE, 1},
        {{.face = "{\"arkit\":{\"version\":1,\"sha256\":\"" ZEROS64 "\"," ARKIT_REST "}}"}, FACE,
         "face.arkit", MN_MISSING_PROPERTY, 1},
        {{.face = "{\"arkit\":{\"version\":1,\"src\":5,\"sha256\":\"" ZEROS64 "\"," ARKIT_REST "}}"},
         FACE, "face.arkit", MN_JSON_TYPE, 1},
        {{.face = "{\"arkit\":{\"version\":1,\"src\":\"../a.bin\",\"sha256\":\"" ZEROS64 "\","
                  ARKIT_REST "}}"}, FACE, "face.arkit", MN_URI, 1},
        {{.face = "{\"arkit\":{\"version\":1,\"src\":\"a/./b.bin\",\"sha256\":\"" ZEROS64 "\","
                  ARKIT_REST "}}"}, FACE, "face.arkit", MN_URI, 1},
        {{.face = "{\"arkit\":{\"version\":1,\"src\":\"arkit_to_gnm.bin\",\"sha256\":\"12\","
                  ARKIT_REST "}}"}, FACE, "face.arkit", MN_INVALID_VALUE, 1},
        {{.face = "{\"arkit\":{\"version\":1,\"src\":\"arkit_to_gnm.bin\",\"sha256\":\"" ZEROS64
                  "0\"," ARKIT_REST "}}"}, FACE, "face.arkit", MN_INVALID_VALUE, 1},
        {{.face = "{\"arkit\":{\"version\":1,\"src\":\"arkit_to_gnm.bin\",\"sha256\":\"g"
                  ZEROS64 "\"," ARKIT_REST "}}"}, FACE, "face.arkit", MN_INVALID_VALUE, 1},
        {{.face = "{\"arkit\":{\"version\":1,\"src\":\"arkit_to_gnm.bin\",\"sha256\":\"" ZEROS64
                  "\",\"bytes\":-1," ARKIT_REST "}}"}, FACE, "face.arkit", MN_INVALID_VALUE, 1},
        {{.face = "{\"arkit\":{\"version\":1,\"src\":\"arkit_to_gnm.bin\",\"sha256\":\"" ZEROS64
                  "\",\"bytes\":1.5," ARKIT_REST "}}"}, FACE, "face.arkit", MN_JSON_TYPE, 1},
        {{.corrective = "[]"}, CORR, "corrective", MN_JSON_TYPE, 6},
        {{.corrective = "\"corrective/index.json\""}, CORR, "corrective", MN_JSON_TYPE, 6},
        {{.corrective = "{\"sha256\":\"" ZEROS64 "\"}"}, CORR, "corrective", MN_MISSING_PROPERTY, 6},
        {{.corrective = "{\"index\":\"../index.json\"}"}, CORR, "corrective", MN_URI, 6},
        {{.corrective = "{\"index\":\"corrective/index.json\",\"sha256\":\"xyz\"}"}, CORR,
         "corrective", MN_INVALID_VALUE, 6},
        {{.corrective = "{\"index\":\"corrective/index.json\",\"bytes\":-4}"}, CORR, "corrective",
         MN_INVALID_VALUE, 6},
        {{.entry_of = F_C0 + 1, .entry = "{\"path\":\"corrective/raise/points.bin\",\"bytes\":\"9\"}"},
         CORR, "corrective", MN_JSON_TYPE, 6},
        {{.entry_of = F_MOUTH + 1, .entry = "{\"path\":\"mouth_hidden.bin\",\"bytes\":-1}"}, MOUTH,
         "mouth_hidden.bin", MN_INVALID_VALUE, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_package(p, &cases[i].t);
        progress_log log = {0};
        mn_character_load_options o = {.progress = on_progress, .progress_user = &log};
        mn_character *c = NULL;
        mn_error err;
        mn_status st = mn_character_load(p->pkg, "character.json", &o, &c, &err);
        if (st != MN_OK)
            fail_msg("case %zu: %s: %s", i, mn_status_name(st), err.message);
        if (c->warning_count != 1)
            fail_msg("case %zu: %u warnings", i, c->warning_count);
        assert_string_equal(c->warnings[0].name, cases[i].name);
        if (c->warnings[0].code != cases[i].code)
            fail_msg("case %zu: %s, expected %s (%s)", i, mn_status_name(c->warnings[0].code),
                     mn_status_name(cases[i].code), c->warnings[0].message);
        assert_non_null(strstr(c->warnings[0].message, cases[i].part == CORR ? "corrective"
                                                       : cases[i].part == FACE ? "face"
                                                                               : "mouth_hidden.bin"));
        expect_parts(c, cases[i].part != FACE, cases[i].part != CORR, cases[i].part != MOUTH);
        /* the descriptor says so too, and no file of the part was fetched */
        assert_int_equal(c->descriptor->dropped_count, 1);
        assert_string_equal(c->descriptor->dropped[0].name, cases[i].name);
        assert_int_equal(log.calls, FILES - cases[i].files);
        assert_true(log.loaded[log.calls - 1] == log.total[log.calls - 1]);
        mn_character_free(c);
    }

    /* a bad face.arkit.version is dropped by the map builder, at the same point: the file was read */
    write_package(p, &(tweak){.face = "{\"arkit\":{\"version\":2,\"src\":\"arkit_to_gnm.bin\","
                                      "\"sha256\":\"" ZEROS64 "\"," ARKIT_REST "}}"});
    mn_character *c = NULL;
    assert_int_equal(load(p, &c, NULL), MN_OK);
    assert_int_equal(c->warning_count, 1);
    assert_string_equal(c->warnings[0].name, "face.arkit");
    expect_parts(c, false, true, true);
    mn_character_free(c);

    /* two parts malformed at once: two warnings, in load order; skipping a part silences its own */
    write_package(p, &(tweak){.face = "[]", .corrective = "1"});
    assert_int_equal(load(p, &c, NULL), MN_OK);
    assert_int_equal(c->warning_count, 2);
    assert_string_equal(c->warnings[0].name, "face.arkit");
    assert_string_equal(c->warnings[1].name, "corrective");
    expect_parts(c, false, false, true);
    mn_character_free(c);
    mn_character_load_options skip = {.skip_face = true};
    assert_int_equal(mn_character_load(p->pkg, "character.json", &skip, &c, NULL), MN_OK);
    assert_int_equal(c->warning_count, 1);
    assert_string_equal(c->warnings[0].name, "corrective");
    mn_character_free(c);

    /* the shared clip pack and `files` are not optional: a malformed entry fails the load */
    expect_failure(p, &(tweak){.shared_src = "/abs/shared.json"}, MN_URI, "sharedClips.src",
                   NULL);
    expect_failure(p, &(tweak){.entry_of = F_CORR + 1, .entry = "{\"path\":7}"}, MN_JSON_TYPE,
                   NULL, NULL);
}

/*
 * The descriptor reader on its own: a malformed optional entry is listed in
 * `dropped` with the JSON path in its message, the part cleared; running out
 * of memory on the way is still an error, with nothing leaked.
 */
static void the_descriptor_lists_the_parts_it_drops(void **state)
{
    package *p = *state;
    write_package(p, &(tweak){.face = "{\"arkit\":{\"src\":\"a.bin\",\"sha256\":\"12\"}}",
                              .corrective = "{\"index\":\"corrective/index.json\",\"bytes\":-4}",
                              .entry_of = F_MOUTH + 1,
                              .entry = "{\"path\":\"mouth_hidden.bin\",\"bytes\":null}"});
    char path[700];
    snprintf(path, sizeof path, "%s/character.json", p->pkg);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char json[16384];
    size_t n = fread(json, 1, sizeof json, f);
    fclose(f);
    mn_character_descriptor *d = NULL;
    mn_error err;
    assert_int_equal(mn_character_descriptor_read(json, n, NULL, &d, &err), MN_OK);
    assert_int_equal(d->dropped_count, 3);
    assert_string_equal(d->dropped[0].name, "corrective");
    assert_int_equal(d->dropped[0].code, MN_INVALID_VALUE);
    assert_non_null(strstr(d->dropped[0].message, "corrective.bytes"));
    assert_string_equal(d->dropped[1].name, "face.arkit");
    assert_int_equal(d->dropped[1].code, MN_INVALID_VALUE);
    assert_non_null(strstr(d->dropped[1].message, "face.arkit.sha256"));
    assert_string_equal(d->dropped[2].name, "mouth_hidden.bin");
    assert_int_equal(d->dropped[2].code, MN_JSON_TYPE);
    assert_non_null(strstr(d->dropped[2].message, "package.files[1]"));
    assert_false(d->has_face);
    assert_null(d->face_json);
    assert_false(d->has_corrective);
    assert_true(d->has_shared_clips);
    assert_int_equal(d->package_file_count, 6);   /* the mouth's entry left out */
    for (uint32_t i = 0; i < d->package_file_count; i++)
        assert_string_not_equal(d->package_files[i].src, "mouth_hidden.bin");
    mn_character_descriptor_free(d);

    for (long fail = 0; fail < 40; fail++) {
        mn_counting_alloc counter = mn_counting_alloc_make();
        counter.fail_after = fail;
        mn_allocator hooks = mn_counting_allocator(&counter);
        mn_status st = mn_character_descriptor_read(json, n, &hooks, &d, &err);
        if (st == MN_OK) {
            assert_int_equal(d->dropped_count, 3);
            mn_character_descriptor_free(d);
        } else {
            assert_int_equal(st, MN_OUT_OF_MEMORY);
            assert_null(d);
        }
        assert_int_equal(counter.live_bytes, 0);
    }
}

/* Two characters naming one shared pack read it once through the cache, and give it back. */
static void shared_clips_are_read_once(void **state)
{
    package *p = *state;
    write_package(p, &(tweak){0});
    mn_soma_clip_cache *cache = NULL;
    assert_int_equal(mn_soma_clip_cache_create(NULL, &cache, NULL), MN_OK);
    mn_character_load_options o = {.clip_cache = cache};
    mn_character *a = NULL, *b = NULL;
    assert_int_equal(mn_character_load(p->pkg, "character.json", &o, &a, NULL), MN_OK);
    assert_int_equal(mn_character_load(p->pkg, "character.json", &o, &b, NULL), MN_OK);
    assert_true(a->shared_clips == b->shared_clips);
    assert_int_equal(mn_soma_clip_cache_count(cache), 1);
    mn_character_free(a);
    mn_character_free(b);
    assert_int_equal(mn_soma_clip_cache_count(cache), 0);
    mn_soma_clip_cache_free(cache);

    /* a clips file that is no soma-clips file at all fails the load, named */
    blob clips = p->files[F_CLIPS];
    p->files[F_CLIPS] = copy_text("{\"format\":\"other\",\"clips\":[]}");
    expect_failure(p, &(tweak){0}, MN_INVALID_VALUE, "clips.json", "clips.json");
    free(p->files[F_CLIPS].data);
    p->files[F_CLIPS] = clips;
    /* a skeleton whose names are not jointNames */
    blob skel = p->files[F_SKEL];
    p->files[F_SKEL] = copy_text("{\"format\":\"aosrig-v2-skeleton\",\"floorY\":0,"
                                 "\"groundOffset\":0,\"hips\":\"Hips\",\"joints\":[{\"name\":"
                                 "\"Hips\",\"parent\":-1,\"localPosition\":[0,1,0],"
                                 "\"localRotation\":[0,0,0,1],\"baseLocalRotation\":null,"
                                 "\"inverseBind\":[1,0,0,0,0,1,0,0,0,0,1,0,0,-1,0,1]}],"
                                 "\"twist\":[]}");
    expect_failure(p, &(tweak){0}, MN_COUNT_MISMATCH, "skeleton.json", NULL);
    free(p->files[F_SKEL].data);
    p->files[F_SKEL] = skel;
}

/* A resolver over memory: the package's files by name, counting reads and releases. */
typedef struct memory_store {
    const package *p;
    blob descriptor;
    int reads, releases;
    const char *refuse;   /* a name to fail with MN_IO */
} memory_store;

static mn_status store_read(void *user, const char *base_dir, const char *uri, mn_bytes *out,
                            mn_error *err)
{
    memory_store *s = user;
    (void)base_dir;
    if (s->refuse && strcmp(uri, s->refuse) == 0) {
        if (err) {
            err->code = MN_IO;
            snprintf(err->message, sizeof err->message, "refused %s", uri);
        }
        return MN_IO;
    }
    if (strcmp(uri, "character.json") == 0) {
        *out = (mn_bytes){s->descriptor.data, s->descriptor.size};
        s->reads++;
        return MN_OK;
    }
    for (int i = 0; i < FILES; i++)
        if (strcmp(uri, file_paths[i]) == 0) {
            *out = (mn_bytes){s->p->files[i].data, s->p->files[i].size};
            s->reads++;
            return MN_OK;
        }
    return MN_IO;
}

static void store_release(void *user, mn_bytes *bytes)
{
    (void)bytes;
    ((memory_store *)user)->releases++;
}

static void loads_through_a_resolver(void **state)
{
    package *p = *state;
    write_package(p, &(tweak){0});
    char path[700];
    snprintf(path, sizeof path, "%s/character.json", p->pkg);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    memory_store s = {.p = p, .descriptor = {malloc(16384), 0}};
    s.descriptor.size = fread(s.descriptor.data, 1, 16384, f);
    fclose(f);
    mn_character_load_options o = {
        .resolver = {.read = store_read, .release = store_release, .user = &s, .root = "/"}};
    mn_character *c = NULL;
    assert_int_equal(mn_character_load("nowhere", "character.json", &o, &c, NULL), MN_OK);
    assert_int_equal(s.reads, 1 + FILES);
    assert_int_equal(s.releases, 1 + FILES);
    assert_int_equal(c->splats.count, SPLATS);
    mn_character_free(c);

    s.refuse = "bindings.bin";
    mn_error err;
    assert_int_equal(mn_character_load("nowhere", "character.json", &o, &c, &err), MN_IO);
    assert_non_null(strstr(err.message, "bindings.bin"));
    free(s.descriptor.data);
}

/* FIPS 180-2's examples, as the loader prints hashes. */
static void sha256_known_answers(void **state)
{
    (void)state;
    char hex[65];
    mn_sha256_hex("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    mn_sha256_hex("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

/* The package's head pack drives the face through the heads code: its face
   map posed through mn_head_pose_arkit equals the map applied by hand and
   posed by control vector, and jawOpen moves the face. */
static void the_package_head_is_driven_by_its_face_map(void **state)
{
    package *p = *state;
    write_package(p, &(tweak){0});
    mn_character *c = NULL;
    mn_error err;
    if (load(p, &c, &err) != MN_OK)
        fail_msg("%s", err.message);
    mn_head *head = NULL;
    assert_int_equal(mn_head_create(c->head, NULL, &head, &err), MN_OK);
    float arkit[MN_ARKIT_CHANNEL_COUNT] = {0};
    size_t n = (size_t)c->head->header.vertex_count * 3;
    float *neutral = calloc(n, sizeof(float)), *posed = calloc(n, sizeof(float));
    float *by_hand = calloc(n, sizeof(float));
    float *controls = calloc(c->face_map->dim, sizeof(float));
    assert_non_null(neutral);
    assert_non_null(posed);
    assert_non_null(by_hand);
    assert_non_null(controls);
    /* without the map an ARKit vector is refused */
    assert_int_equal(mn_head_pose_arkit(head, arkit, MN_ARKIT_CHANNEL_COUNT, posed, &err),
                     MN_INVALID_ARGUMENT);
    assert_int_equal(mn_head_set_arkit_map(head, c->face_map, &err), MN_OK);
    assert_int_equal(mn_head_pose_arkit(head, arkit, MN_ARKIT_CHANNEL_COUNT, neutral, &err), MN_OK);
    arkit[mn_arkit_channel_index("jawOpen")] = 0.8f;
    assert_int_equal(mn_head_pose_arkit(head, arkit, MN_ARKIT_CHANNEL_COUNT, posed, &err), MN_OK);
    mn_arkit_map_apply(c->face_map, arkit, controls);
    assert_int_equal(mn_head_pose(head, controls, c->face_map->dim, by_hand, &err), MN_OK);
    assert_memory_equal(posed, by_hand, n * sizeof(float));
    double moved = 0;
    for (size_t i = 0; i < n; i++)
        moved = fmax(moved, fabs((double)posed[i] - neutral[i]));
    assert_true(moved > 0);
    free(neutral);
    free(posed);
    free(by_hand);
    free(controls);
    mn_head_free(head);
    mn_character_free(c);
}

/* Containment (marionette/io.h): the shared pack's "../" needs a root; a FIFO never blocks; a file named twice is read once. */
static void package_files_stay_inside_its_folder(void **state)
{
    package *p = *state;
    /* The shared pack may be beside the package ("../"), no further. */
    mn_character *c = NULL;
    mn_error err;
    write_package(p, &(tweak){.shared_src = "../../shared.json"});
    assert_int_equal(mn_character_load(p->pkg, "character.json", NULL, &c, &err), MN_URI);
    assert_null(c);
    assert_non_null(strstr(err.message, "sharedClips"));
    assert_non_null(strstr(err.message, "\"..\" segment"));
    /* ... also through a symlink beside the package that leads out of its folder. */
    char link[700];
    snprintf(link, sizeof link, "%s/out.json", p->dir);
    assert_int_equal(symlink("/etc/hostname", link), 0);
    write_package(p, &(tweak){.shared_src = "../out.json"});
    assert_int_equal(mn_character_load(p->pkg, "character.json", NULL, &c, &err), MN_URI);
    assert_non_null(strstr(err.message, "outside"));
    unlink(link);
    /* A root above lets it through (and the hash check then speaks). */
    mn_character_load_options wide = {.resolver.root = "/"};
    char two_up[400];
    snprintf(two_up, sizeof two_up, "../../%s/shared.json", strrchr(p->dir, '/') + 1);
    write_package(p, &(tweak){.shared_src = two_up});
    assert_int_equal(mn_character_load(p->pkg, "character.json", &wide, &c, &err), MN_OK);
    mn_character_free(c);

    write_package(p, &(tweak){.copy_of_bindings = true});

    assert_int_equal(load(p, &c, &err), MN_OK);
    const mn_bytes *copy = mn_character_file_data(c, "copy.bin");
    const mn_bytes *bindings = mn_character_file_data(c, "bindings.bin");
    assert_non_null(copy);
    assert_non_null(bindings);
    assert_ptr_equal(copy->data, bindings->data);   /* read once, shared */
    mn_character_free(c);

    char path[700];
    snprintf(path, sizeof path, "%s/fifo.json", p->pkg);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(mn_character_load(p->pkg, "fifo.json", NULL, &c, &err), MN_IO);
    assert_non_null(strstr(err.message, "is a FIFO"));
    snprintf(path, sizeof path, "%s/bindings.bin", p->pkg);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(load(p, &c, &err), MN_IO);
    assert_non_null(strstr(err.message, "is a FIFO"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sha256_known_answers),
        cmocka_unit_test_setup_teardown(loads_the_whole_package, setup, teardown),
        cmocka_unit_test_setup_teardown(the_package_head_is_driven_by_its_face_map, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_listed_file_fails_the_load, setup, teardown),
        cmocka_unit_test_setup_teardown(the_descriptor_is_validated, setup, teardown),
        cmocka_unit_test_setup_teardown(optional_parts_are_dropped_with_a_warning, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_malformed_optional_entry_drops_only_that_part, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(the_descriptor_lists_the_parts_it_drops, setup, teardown),
        cmocka_unit_test_setup_teardown(shared_clips_are_read_once, setup, teardown),
        cmocka_unit_test_setup_teardown(loads_through_a_resolver, setup, teardown),
        cmocka_unit_test_setup_teardown(package_files_stay_inside_its_folder, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
