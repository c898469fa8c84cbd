/*
 * libFuzzer target for the .aosrig reader and writer: bytes →
 * mn_aosrig_read_memory → check what the reader promises → mn_aosrig_repack
 * → read that back → re-pack it again, which must give the same bytes →
 * free.  A refused input must come back with an error code, a terminated
 * message and no pack.  An accepted one must have every view inside its
 * bytes, every index in range, parents that reach a root, finite floats and
 * weights, regions that tile the expression block; and its re-pack must be
 * accepted and be a fixed point of read + re-pack.  Any broken promise
 * aborts, under ASan and UBSan.
 *
 *     make fuzz                    (each target for 30 s, corpus fuzz/corpus/aosrig)
 *     build/fuzz/fuzz_aosrig -dict=fuzz/dict/aosrig.dict CORPUS_DIR fuzz/corpus/aosrig
 */
#include <marionette/head/aosrig.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check(bool ok)
{
    if (!ok)
        abort();
}

static void check_inside(const mn_aosrig *pack, const void *view, uint64_t bytes)
{
    const uint8_t *p = view;
    check(p >= pack->bytes && bytes <= pack->byte_length &&
          (size_t)(p - pack->bytes) <= pack->byte_length - bytes);
}

static void check_pack(const mn_aosrig *pack)
{
    const mn_aosrig_header *h = &pack->header;
    uint64_t v = h->vertex_count, e = h->coeff_count, k = h->max_influence, j = h->joint_count;
    check(v > 0 && e > 0 && k > 0);
    check(h->head_ext.expr_dim == e && h->head_ext.gaze_dim == 4 && h->head_ext.dim == e + 4);
    uint64_t next = 0;
    for (uint32_t r = 0; r < h->head_ext.region_count; r++) {
        const mn_aosrig_region *region = &h->head_ext.regions[r];
        check(region->count > 0 && region->start == next && region->reduced <= region->count);
        next += region->count;
    }
    check(next == e);
    check(pack->eye_joint[0] < j && pack->eye_joint[1] < j);
    check_inside(pack, pack->neutral, 12 * v);
    check_inside(pack, pack->basis, 4 * ((v * e * 3 + 1) / 2));
    check_inside(pack, pack->faces, 12 * (uint64_t)pack->face_count);
    check_inside(pack, pack->skin_index, 2 * v * k);
    check_inside(pack, pack->rest_world, 64 * j);
    check_inside(pack, pack->eye_weights, 8 * v);
    for (uint64_t i = 0; i < 3 * (uint64_t)pack->face_count; i++)
        check(pack->faces[i] < v);
    for (uint64_t i = 0; i < 4 * (uint64_t)pack->quad_count; i++)
        check(pack->quads[i] < v);
    for (uint64_t i = 0; i < v * k; i++)
        check(pack->skin_index[i] < j && isfinite(pack->skin_weight[i]));
    for (uint64_t i = 0; i < j; i++) { /* a walk up from any joint reaches a root */
        int64_t at = (int64_t)i;
        for (uint64_t steps = 0; at >= 0; steps++) {
            check(steps <= j && at < (int64_t)j);
            at = pack->joint_parents[at];
        }
    }
    for (uint64_t i = 0; i < 3 * v; i++)
        check(isfinite(pack->neutral[i]));
    for (uint64_t i = 0; i < v * e * 3; i++)
        check(isfinite(mn_f16_to_float(pack->basis[i])));
    for (int i = 0; i < 16; i++)
        check(isfinite(pack->bind_transform[i]));
    for (uint32_t b = 0; b < pack->blob_count; b++)
        check_inside(pack, pack->blobs[b].data, pack->blobs[b].size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mn_aosrig *pack = (mn_aosrig *)(uintptr_t)1;
    mn_error err;
    mn_status st = mn_aosrig_read_memory(data, size, NULL, &pack, &err);
    if (st != MN_OK) {
        check(pack == NULL && err.code == st);
        check(memchr(err.message, '\0', sizeof err.message) != NULL);
        return 0;
    }
    check_pack(pack);
    uint8_t *once = NULL, *twice = NULL;
    size_t once_size = 0, twice_size = 0;
    check(mn_aosrig_repack(pack, NULL, &once, &once_size, &err) == MN_OK);
    mn_aosrig *again = NULL;
    check(mn_aosrig_read_memory(once, once_size, NULL, &again, &err) == MN_OK);
    check_pack(again);
    check(mn_aosrig_repack(again, NULL, &twice, &twice_size, &err) == MN_OK);
    check(twice_size == once_size && memcmp(once, twice, once_size) == 0);
    mn_aosrig_bytes_free(NULL, once, once_size);
    mn_aosrig_bytes_free(NULL, twice, twice_size);
    mn_aosrig_free(again);
    mn_aosrig_free(pack);
    return 0;
}
