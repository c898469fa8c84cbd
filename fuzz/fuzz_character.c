/*
 * libFuzzer target for character.json: bytes → mn_character_descriptor_read
 * → check what the reader promises → free.  A refused input must come back
 * with an error code, a terminated message and no descriptor.  An accepted
 * one must hold the four required files, at most one head pack, plain
 * relative paths, lowercase 64-digit hashes, unique joint names and a
 * plyToCharacter whose 3×3 is the identity, and each optional part it
 * dropped named once and left with nothing to fetch.  Any broken promise aborts.
 *
 *     make fuzz                    (each target for 30 s, corpus fuzz/corpus/character)
 *     build/fuzz/fuzz_character CORPUS_DIR fuzz/corpus/character
 */
#include <marionette/character/package.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check(bool ok)
{
    if (!ok)
        abort();
}

static void check_file(const mn_character_file *f)
{
    check(f->name && f->src && f->src[0] && f->src[0] != '/');
    check(!strstr(f->src, "//") && !strchr(f->src, '\\') && !strchr(f->src, '%'));
    size_t n = strlen(f->sha256);
    check(n == 0 || n == 64);
    for (size_t i = 0; i < n; i++)
        check((f->sha256[i] >= '0' && f->sha256[i] <= '9') ||
              (f->sha256[i] >= 'a' && f->sha256[i] <= 'f'));
    check(f->has_bytes || f->bytes == 0);
}

static bool has_file(const mn_character_descriptor *d, const char *name)
{
    for (uint32_t i = 0; i < d->file_count; i++)
        if (strcmp(d->files[i].name, name) == 0)
            return true;
    return false;
}

static void check_descriptor(const mn_character_descriptor *d)
{
    check(d->version == 2 && strcmp(d->rig, "aosrig-v2") == 0 && strcmp(d->units, "m") == 0);
    check(d->splat_count > 0 && d->joint_count > 0 && d->joint_count <= 65535);
    for (uint32_t i = 0; i < d->joint_count; i++)
        for (uint32_t k = 0; k < i; k++)
            check(strcmp(d->joint_names[i], d->joint_names[k]) != 0);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            check(d->ply_to_character[4 * r + c] == (r == c ? 1.0f : 0.0f));
    check(has_file(d, "character.ply") && has_file(d, "bindings.bin") &&
          has_file(d, "skeleton.json") && has_file(d, "clips.json"));
    uint32_t heads = 0;
    for (uint32_t i = 0; i < d->file_count; i++) {
        check_file(&d->files[i]);
        check(d->files[i].sha256[0] != '\0');
        size_t n = strlen(d->files[i].name);
        heads += n >= 7 && strcmp(d->files[i].name + n - 7, ".aosrig") == 0;
    }
    check(heads <= 1);
    if (d->has_face)
        check_file(&d->face_table), check(d->face_json != NULL);
    if (d->has_corrective)
        check_file(&d->corrective_index);
    for (uint32_t i = 0; i < d->clip_count; i++)
        check(d->clip_names[i] != NULL);
    /* a dropped part is named once, with a code, and left with nothing to fetch */
    check(d->dropped_count <= MN_CHARACTER_PARTS);
    for (uint32_t i = 0; i < d->dropped_count; i++) {
        const char *name = d->dropped[i].name;
        check(d->dropped[i].code != MN_OK && d->dropped[i].code != MN_OUT_OF_MEMORY);
        check(strcmp(name, "face.arkit") == 0 || strcmp(name, "corrective") == 0 ||
              strcmp(name, "mouth_hidden.bin") == 0);
        for (uint32_t k = 0; k < i; k++)
            check(strcmp(d->dropped[k].name, name) != 0);
        check(strcmp(name, "face.arkit") != 0 || !d->has_face);
        check(strcmp(name, "corrective") != 0 || !d->has_corrective);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mn_character_descriptor *d = NULL;
    mn_error err;
    mn_status st = mn_character_descriptor_read(data, size, NULL, &d, &err);
    if (st == MN_OK) {
        check(d != NULL);
        check_descriptor(d);
        mn_character_descriptor_free(d);
    } else {
        check(d == NULL && err.code == st);
        check(memchr(err.message, '\0', sizeof err.message) != NULL);
    }
    return 0;
}
