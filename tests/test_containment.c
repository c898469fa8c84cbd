/*
 * Containment: no reader reads outside the model's folder, nothing blocks on
 * a special file, a file named many times is read once, an external buffer
 * is read only up to its byteLength, and a file that shrinks is an error.
 *
 * Every case builds its hostile folder in a fresh temporary directory at run
 * time: <tmp>/model (what is read) beside <tmp>/outside (the secret).  Bounds
 * are on peak allocation (the counting allocator), never on time.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <marionette/gltf.h>
#include <marionette/obj.h>
#include <marionette/render.h>
#include <marionette/voxel/export.h>
#include <marionette/voxel/rig.h>

#include "counting_alloc.h"
#include "files.h"
#include "io/io.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct folders {
    char tmp[256];
    char model[300];
    char outside[300];
} folders;

static int setup(void **state)
{
    folders *f = calloc(1, sizeof *f);
    mn_test_make_temp_dir(f->tmp, sizeof f->tmp, "contain");
    snprintf(f->model, sizeof f->model, "%s/model", f->tmp);
    snprintf(f->outside, sizeof f->outside, "%s/outside", f->tmp);
    assert_int_equal(mkdir(f->model, 0700), 0);
    assert_int_equal(mkdir(f->outside, 0700), 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    folders *f = *state;
    mn_test_remove_tree(f->tmp);
    free(f);
    return 0;
}

/* dir/name, in a static buffer per call site's turn (two at a time). */
static const char *at(const char *dir, const char *name)
{
    static char paths[2][700];
    static int turn;
    turn ^= 1;
    snprintf(paths[turn], sizeof paths[turn], "%s/%s", dir, name);
    return paths[turn];
}

static void write_text(const char *dir, const char *name, const char *text)
{
    mn_test_write_file(at(dir, name), text, strlen(text));
}

/* Three vertices of a triangle: the 36 bytes every glTF case's buffer holds. */
static const float triangle[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};

#define MESH_JSON                                                                                  \
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"                                        \
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","     \
    "\"min\":[0,0,0],\"max\":[1,1,0]}],"                                                          \
    "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"                          \
    "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}],\"scene\":0"

/* model/m.gltf: buffer b.bin of byteLength 36, and images[0] "secret.png" when `image`. */
static const char *write_gltf(const folders *f, bool image)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"b.bin\",\"byteLength\":36}],"
             MESH_JSON "%s}",
             image ? ",\"images\":[{\"uri\":\"secret.png\"}]" : "");
    write_text(f->model, "m.gltf", json);
    return at(f->model, "m.gltf");
}

/* ---- glTF ----------------------------------------------------------------------------------- */

static void gltf_image_symlinked_outside_is_refused(void **state)
{
    folders *f = *state;
    mn_test_write_file(at(f->model, "b.bin"), triangle, sizeof triangle);
    write_text(f->outside, "secret.png", "SECRET");
    assert_int_equal(symlink("../outside/secret.png", at(f->model, "secret.png")), 0);
    const char *path = write_gltf(f, true);
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_gltf_read_file(path, NULL, &m, &err), MN_URI);
    assert_null(m);
    assert_string_equal(err.path, "images[0].uri");
    assert_non_null(strstr(err.message, "\"secret.png\" resolves outside the model's folder"));

    /* A root that holds the outside folder makes it readable. */
    mn_gltf_options o = {.resolver.root = f->tmp};
    assert_int_equal(mn_gltf_read_file(path, &o, &m, &err), MN_OK);
    assert_int_equal(m->images[0].size, 6);
    assert_memory_equal(m->images[0].data, "SECRET", 6);
    mn_model_free(m);
}

static void gltf_dotdot_needs_a_root_that_holds_it(void **state)
{
    folders *f = *state;
    mn_test_write_file(at(f->outside, "b.bin"), triangle, sizeof triangle);
    write_text(f->model, "m.gltf",
               "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"../outside/b.bin\","
               "\"byteLength\":36}]," MESH_JSON "}");
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_gltf_read_file(at(f->model, "m.gltf"), NULL, &m, &err), MN_URI);
    assert_string_equal(err.path, "buffers[0].uri");
    /* A root that does not hold it: still refused, after resolving. */
    mn_gltf_options narrow = {.resolver.root = f->model};
    assert_int_equal(mn_gltf_read_file(at(f->model, "m.gltf"), &narrow, &m, &err), MN_URI);
    assert_non_null(strstr(err.message, "resolves outside the root"));
    mn_gltf_options wide = {.resolver.root = f->tmp};
    assert_int_equal(mn_gltf_read_file(at(f->model, "m.gltf"), &wide, &m, &err), MN_OK);
    mn_model_free(m);
}

static void gltf_fifo_buffer_is_refused_without_blocking(void **state)
{
    folders *f = *state;
    assert_int_equal(mkfifo(at(f->model, "b.bin"), 0600), 0);
    const char *path = write_gltf(f, false);
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_gltf_read_file(path, NULL, &m, &err), MN_IO);
    assert_string_equal(err.path, "buffers[0].uri");
    assert_non_null(strstr(err.message, "is a FIFO"));
    /* The model file itself a FIFO: refused too. */
    assert_int_equal(mkfifo(at(f->model, "fifo.glb"), 0600), 0);
    assert_int_equal(mn_gltf_read_file(at(f->model, "fifo.glb"), NULL, &m, &err), MN_IO);
    assert_non_null(strstr(err.message, "is a FIFO"));
}

static void gltf_buffer_is_read_up_to_its_byte_length(void **state)
{
    folders *f = *state;
    mn_test_write_file(at(f->model, "b.bin"), triangle, sizeof triangle);
    assert_int_equal(truncate(at(f->model, "b.bin"), (off_t)1 << 30), 0);  /* sparse 1 GiB */
    const char *path = write_gltf(f, false);
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_gltf_options o = {.allocator = mn_counting_allocator(&counter)};
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_gltf_read_file(path, &o, &m, &err), MN_OK);
    assert_memory_equal(m->buffers[0].data, triangle, sizeof triangle);
    mn_model_free(m);
    print_message("36-byte buffer in a 1 GiB file: peak %zu bytes\n", counter.peak_bytes);
    assert_true(counter.peak_bytes < 256 * 1024);
    assert_int_equal(counter.live_bytes, 0);

    /* A file shorter than byteLength: an error naming the buffer. */
    mn_test_write_file(at(f->model, "b.bin"), triangle, 20);
    assert_int_equal(mn_gltf_read_file(path, NULL, &m, &err), MN_INVALID_VALUE);
    assert_string_equal(err.path, "buffers[0].byteLength");
}

static void gltf_file_named_by_many_buffers_is_read_once(void **state)
{
    folders *f = *state;
    enum { BUFFERS = 1000, SIZE = 1 << 20 };
    uint8_t *bytes = calloc(1, SIZE);
    memcpy(bytes, triangle, sizeof triangle);
    mn_test_write_file(at(f->model, "b.bin"), bytes, SIZE);
    free(bytes);
    size_t cap = 64 * BUFFERS + 1024, n = 0;
    char *json = malloc(cap);
    n += (size_t)snprintf(json + n, cap - n, "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[");
    for (int i = 0; i < BUFFERS; i++)
        n += (size_t)snprintf(json + n, cap - n, "%s{\"uri\":\"%s\",\"byteLength\":%d}", i ? "," : "",
                              i % 2 ? "./b.bin" : "b.bin", i == BUFFERS - 1 ? SIZE : 36);
    n += (size_t)snprintf(json + n, cap - n, "]," MESH_JSON "}");
    mn_test_write_file(at(f->model, "m.gltf"), json, n);
    free(json);
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_gltf_options o = {.allocator = mn_counting_allocator(&counter)};
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_gltf_read_file(at(f->model, "m.gltf"), &o, &m, &err), MN_OK);
    for (uint32_t i = 0; i < m->buffer_count; i++)
        assert_memory_equal(m->buffers[i].data, triangle, sizeof triangle);
    mn_model_free(m);
    print_message("1,000 buffers naming one 1 MB file: peak %zu bytes (model file %zu)\n",
                  counter.peak_bytes, n);
    assert_true(counter.peak_bytes < 2 * (size_t)SIZE + 8 * n);
}

/* A custom resolver is asked once per name, and gets only names that pass the lexical rule. */
typedef struct counting_resolver {
    int reads;
} counting_resolver;

static mn_status count_read(void *user, const char *base_dir, const char *uri, mn_bytes *out,
                            mn_error *err)
{
    (void)base_dir;
    (void)err;
    counting_resolver *r = user;
    r->reads++;
    assert_true(strstr(uri, "..") == NULL);
    out->data = (const uint8_t *)triangle;
    out->size = sizeof triangle;
    return MN_OK;
}

static void resolver_is_asked_once_per_name(void **state)
{
    (void)state;
    const char *json =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"b.bin\",\"byteLength\":36},"
        "{\"uri\":\"b.bin\",\"byteLength\":36},{\"uri\":\"b%2Ebin\",\"byteLength\":36}]," MESH_JSON "}";
    counting_resolver r = {0};
    mn_gltf_options o = {.resolver = {.read = count_read, .user = &r}};
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_gltf_read_memory(json, strlen(json), &o, &m, &err), MN_OK);
    assert_int_equal(r.reads, 1);  /* "b%2Ebin" decodes to the same name */
    mn_model_free(m);
    const char *up = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"../b.bin\",\"byteLength\":36}]}";
    assert_int_equal(mn_gltf_read_memory(up, strlen(up), &o, &m, &err), MN_URI);
    assert_int_equal(r.reads, 1);
}

/* ---- files that change ---------------------------------------------------------------------- */

static void file_shorter_than_when_opened_is_an_error(void **state)
{
    folders *f = *state;
    mn_test_write_file(at(f->model, "b.bin"), triangle, sizeof triangle);
    int fd = open(at(f->model, "b.bin"), O_RDONLY);
    assert_true(fd >= 0);
    /* The size fstat() said, then the file cut: what a file truncated between stat and read does. */
    assert_int_equal(truncate(at(f->model, "b.bin"), 10), 0);
    mn_arena arena;
    mni_arena_init(&arena, NULL);
    mn_bytes bytes;
    mn_error err;
    assert_int_equal(mni_fd_read(fd, sizeof triangle, &arena, "buffers[0]", &bytes, &err), MN_IO);
    assert_non_null(strstr(err.message, "changed while being read"));
    mni_arena_release(&arena);
    close(fd);
}

static void model_outlives_its_file_being_truncated(void **state)
{
    folders *f = *state;
    mn_test_write_file(at(f->model, "b.bin"), triangle, sizeof triangle);
    const char *path = write_gltf(f, false);
    mn_model *m = NULL;
    mn_error err;
    assert_int_equal(mn_gltf_read_file(path, NULL, &m, &err), MN_OK);
    /* Were the files mapped, touching their bytes now would raise SIGBUS. */
    assert_int_equal(truncate(path, 0), 0);
    assert_int_equal(truncate(at(f->model, "b.bin"), 0), 0);
    assert_memory_equal(m->buffers[0].data, triangle, sizeof triangle);
    mn_model_free(m);
}

/* ---- OBJ ------------------------------------------------------------------------------------ */

static const char *const OBJ_TAIL = "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nusemtl m\nf 1/1 2/1 3/1\n";

static mn_obj *read_obj(const folders *f, const char *head, mn_counting_alloc *counter)
{
    char text[512];
    snprintf(text, sizeof text, "%s%s", head, OBJ_TAIL);
    write_text(f->model, "m.obj", text);
    mn_obj_options o = {0};
    if (counter)
        o.allocator = mn_counting_allocator(counter);
    mn_obj *obj = NULL;
    mn_error err;
    assert_int_equal(mn_obj_read_file(at(f->model, "m.obj"), &o, &obj, &err), MN_OK);
    return obj;
}

/* The first warning whose message holds `text`, or NULL. */
static const mn_warning *warning_with(const mn_obj *obj, const char *text)
{
    for (uint32_t i = 0; i < obj->warning_count; i++)
        if (strstr(obj->warnings[i].message, text))
            return &obj->warnings[i];
    return NULL;
}

static void obj_mtllib_outside_is_refused(void **state)
{
    folders *f = *state;
    write_text(f->outside, "secret.mtl", "SECRET-CONTENT not mtl\nnewmtl m\nKd 1 0 0\n");
    mn_obj *obj = read_obj(f, "mtllib ../outside/secret.mtl\n", NULL);
    const mn_warning *w = warning_with(obj, "has a \"..\" segment");
    assert_non_null(w);
    assert_int_equal(w->code, MN_URI);
    assert_false(obj->materials[0].defined);
    mn_obj_free(obj);

    /* A symlink to it: refused before a byte is read, so nothing of it is ever said. */
    assert_int_equal(symlink("../outside/secret.mtl", at(f->model, "a.mtl")), 0);
    obj = read_obj(f, "mtllib a.mtl\n", NULL);
    assert_non_null(warning_with(obj, "resolves outside the model's folder"));
    for (uint32_t i = 0; i < obj->warning_count; i++)
        assert_null(strstr(obj->warnings[i].message, "SECRET"));
    mn_obj_free(obj);
}

static void obj_fifo_mtllib_is_refused_without_blocking(void **state)
{
    folders *f = *state;
    assert_int_equal(mkfifo(at(f->model, "a.mtl"), 0600), 0);
    mn_obj *obj = read_obj(f, "mtllib a.mtl\n", NULL);
    const mn_warning *w = warning_with(obj, "is a FIFO");
    assert_non_null(w);
    assert_int_equal(w->code, MN_IO);
    mn_obj_free(obj);
}

static void obj_map_kd_outside_is_dropped(void **state)
{
    folders *f = *state;
    write_text(f->model, "a.mtl", "newmtl m\nKd 1 1 1\nmap_Kd ../outside/secret.png\n");
    mn_obj *obj = read_obj(f, "mtllib a.mtl\n", NULL);
    assert_int_equal(obj->material_count, 1);
    assert_true(obj->materials[0].defined);
    assert_null(obj->materials[0].map_kd_file);
    assert_null(obj->materials[0].map_kd);
    const mn_warning *w = warning_with(obj, "map_Kd: \"../outside/secret.png\" has a \"..\" segment");
    assert_non_null(w);
    assert_int_equal(w->code, MN_URI);
    mn_obj_free(obj);
}

static void obj_library_named_many_times_is_read_once(void **state)
{
    folders *f = *state;
    enum { LINES = 100000 };
    write_text(f->model, "a.mtl", "newmtl m\nKd 1 0 0\n");
    const char *line = "mtllib a.mtl\n";
    size_t n = strlen(line) * LINES + strlen(OBJ_TAIL) + strlen("mtllib ./a.mtl\n");
    char *text = malloc(n + 1), *p = text;
    for (int i = 0; i < LINES; i++)
        p += sprintf(p, "%s", line);
    p += sprintf(p, "mtllib ./a.mtl\n%s", OBJ_TAIL);
    mn_test_write_file(at(f->model, "m.obj"), text, (size_t)(p - text));
    free(text);
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_obj_options o = {.allocator = mn_counting_allocator(&counter)};
    mn_obj *obj = NULL;
    mn_error err;
    assert_int_equal(mn_obj_read_file(at(f->model, "m.obj"), &o, &obj, &err), MN_OK);
    assert_int_equal(obj->mtllib_count, LINES + 1);
    assert_int_equal(obj->material_count, 1);
    assert_int_equal(obj->warning_count, 0);  /* merged once: no "defined by an earlier library" */
    mn_obj_free(obj);
    print_message("100,001 mtllib lines (%zu bytes of OBJ): peak %zu bytes\n", n, counter.peak_bytes);
    assert_true(counter.peak_bytes < 8 * n);
}

/* A 256x256 PNG at dir/name: 256 KiB once decoded. */
static void write_png(const char *dir, const char *name)
{
    mn_rgba_image img;
    assert_int_equal(mn_rgba_image_create(256, 256, NULL, &img, NULL), MN_OK);
    for (size_t i = 0; i < 256u * 256u * 4u; i++)
        img.pixels[i] = (uint8_t)(i * 7);
    assert_int_equal(mn_rgba_image_write_png(&img, at(dir, name), NULL), MN_OK);
    mn_rgba_image_free(&img);
}

static void obj_map_named_by_many_materials_is_decoded_once(void **state)
{
    folders *f = *state;
    enum { MATERIALS = 1000 };
    write_png(f->model, "tex.png");
    char *mtl = malloc(MATERIALS * 64), *p = mtl;
    for (int i = 0; i < MATERIALS; i++)
        p += sprintf(p, "newmtl m%d\nmap_Kd %stex.png\n", i, i % 2 ? "./" : "");
    write_text(f->model, "a.mtl", mtl);
    free(mtl);
    mn_obj *obj = read_obj(f, "mtllib a.mtl\n", NULL);
    assert_int_equal(obj->material_count, MATERIALS + 1);  /* and "m", which the faces use */
    mn_counting_alloc counter = mn_counting_alloc_make();
    mn_allocator hooks = mn_counting_allocator(&counter);
    mn_render_source *src = NULL;
    mn_error err;
    assert_int_equal(mn_render_source_obj(obj, f->model, NULL, &hooks, &src, &err), MN_OK);
    const mn_render_scene *scene = mn_render_source_scene(src);
    for (uint32_t i = 0; i < MATERIALS; i++)
        assert_ptr_equal(scene->textures[i].rgba, scene->textures[0].rgba);
    mn_render_source_free(src);
    mn_obj_free(obj);
    print_message("%d materials naming one 256x256 map: peak %zu bytes\n", MATERIALS,
                  counter.peak_bytes);
    assert_true(counter.peak_bytes < 4 * 256 * 256 * 4 + 256 * (size_t)MATERIALS);
}

static void obj_map_outside_needs_the_root_when_drawn(void **state)
{
    folders *f = *state;
    write_png(f->outside, "tex.png");
    write_text(f->model, "a.mtl", "newmtl m\nKd 1 1 1\nmap_Kd ../outside/tex.png\n");
    write_text(f->model, "m.obj", "mtllib a.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nusemtl m\nf 1/1 2/1 3/1\n");
    mn_obj_options o = {.resolver.root = f->tmp};
    mn_obj *obj = NULL;
    mn_error err;
    assert_int_equal(mn_obj_read_file(at(f->model, "m.obj"), &o, &obj, &err), MN_OK);
    assert_non_null(obj->materials[0].map_kd_file);
    mn_render_source *src = NULL;
    /* Drawn without the root: the map stays outside, a warning, untextured. */
    assert_int_equal(mn_render_source_obj(obj, f->model, NULL, NULL, &src, &err), MN_OK);
    assert_null(mn_render_source_scene(src)->textures[0].rgba);
    assert_int_equal(mn_render_source_warning_count(src), 1);
    assert_non_null(strstr(mn_render_source_warning(src, 0)->message, "\"..\" segment"));
    mn_render_source_free(src);
    /* With the root the OBJ was read under, it is drawn. */
    assert_int_equal(mn_render_source_obj(obj, f->model, f->tmp, NULL, &src, &err), MN_OK);
    assert_non_null(mn_render_source_scene(src)->textures[0].rgba);
    assert_int_equal(mn_render_source_warning_count(src), 0);
    mn_render_source_free(src);
    mn_obj_free(obj);
}

/* ---- voxel rig part meshes ------------------------------------------------------------------ */

static void copy_file(const char *from, const char *to)
{
    size_t size;
    void *bytes = mn_test_read_file(from, &size);
    mn_test_write_file(to, bytes, size);
    free(bytes);
}

static void rig_part_outside_is_refused(void **state)
{
    folders *f = *state;
    static const char *const parts[4] = {"base", "fore", "upper", "tip"};
    char meshes[400], from[200], name[32];
    snprintf(meshes, sizeof meshes, "%s/meshes", f->model);
    assert_int_equal(mkdir(meshes, 0700), 0);
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "%s.glb", parts[i]);
        snprintf(from, sizeof from, "tests/data/voxel_arm/meshes/%s", name);
        copy_file(from, at(meshes, name));
    }
    copy_file("tests/data/voxel_arm/meshes/tip.glb", at(f->outside, "secret.glb"));
    size_t size;
    char *rig = mn_test_read_file("tests/data/voxel_arm/rig.json", &size);
    /* The part "tip" renamed "../../outside/secret": its mesh would be meshes/../../outside/secret.glb. */
    size_t cap = size + 256, o = 0;
    char *hostile = malloc(cap);
    for (const char *s = rig; *s;) {
        if (strncmp(s, "\"tip\"", 5) == 0) {
            o += (size_t)snprintf(hostile + o, cap - o, "\"../../outside/secret\"");
            s += 5;
        } else {
            hostile[o++] = *s++;
        }
    }
    hostile[o] = '\0';
    write_text(f->model, "rig.json", hostile);
    free(hostile);
    free(rig);
    char out[400];
    snprintf(out, sizeof out, "%s/out.glb", f->tmp);
    mn_error err;
    assert_int_equal(mn_voxel_export_file(at(f->model, "rig.json"), NULL, out, NULL, &err), MN_URI);
    assert_non_null(strstr(err.message, "part \"../../outside/secret\""));
    assert_int_equal(access(out, F_OK), -1);

    /* With a root above both, the outside mesh is read. */
    mn_voxel_export_options wide = {.root = f->tmp};
    assert_int_equal(mn_voxel_export_file(at(f->model, "rig.json"), NULL, out, &wide, &err), MN_OK);

    /* One part mesh read on its own: a symlink leading out is refused too. */
    assert_int_equal(symlink("../../outside/secret.glb", at(meshes, "link.glb")), 0);
    mn_part_mesh *mesh = NULL;
    assert_int_equal(mn_part_mesh_read_in(f->model, "meshes/link.glb", NULL, false, NULL, &mesh, &err),
                     MN_URI);
    assert_non_null(strstr(err.message, "resolves outside the model's folder"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(gltf_image_symlinked_outside_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(gltf_dotdot_needs_a_root_that_holds_it, setup, teardown),
        cmocka_unit_test_setup_teardown(gltf_fifo_buffer_is_refused_without_blocking, setup, teardown),
        cmocka_unit_test_setup_teardown(gltf_buffer_is_read_up_to_its_byte_length, setup, teardown),
        cmocka_unit_test_setup_teardown(gltf_file_named_by_many_buffers_is_read_once, setup, teardown),
        cmocka_unit_test(resolver_is_asked_once_per_name),
        cmocka_unit_test_setup_teardown(file_shorter_than_when_opened_is_an_error, setup, teardown),
        cmocka_unit_test_setup_teardown(model_outlives_its_file_being_truncated, setup, teardown),
        cmocka_unit_test_setup_teardown(obj_mtllib_outside_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(obj_fifo_mtllib_is_refused_without_blocking, setup, teardown),
        cmocka_unit_test_setup_teardown(obj_map_kd_outside_is_dropped, setup, teardown),
        cmocka_unit_test_setup_teardown(obj_library_named_many_times_is_read_once, setup, teardown),
        cmocka_unit_test_setup_teardown(obj_map_named_by_many_materials_is_decoded_once, setup, teardown),
        cmocka_unit_test_setup_teardown(obj_map_outside_needs_the_root_when_drawn, setup, teardown),
        cmocka_unit_test_setup_teardown(rig_part_outside_is_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
