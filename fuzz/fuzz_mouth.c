/*
 * libFuzzer target for the mouth interior list: bytes →
 * mn_mouth_hidden_read (splatCount 4096, 512 head vertices) → check every
 * promise (unit up and forward, rows and lip vertices in range, kinds 1–3,
 * no row twice) → free.  A refusal carries a code and no list.
 *
 *     build/fuzz/fuzz_mouth CORPUS_DIR fuzz/corpus/mouth
 */
#include <marionette/character/mouth.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check(bool ok)
{
    if (!ok)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mn_mouth_hidden *m = NULL;
    mn_error err;
    if (mn_mouth_hidden_read(data, size, 4096, 512, NULL, &m, &err) != MN_OK) {
        check(m == NULL && err.code != MN_OK);
        return 0;
    }
    check(size == 36 + 16 * (size_t)m->count);
    float up = sqrtf(m->up[0] * m->up[0] + m->up[1] * m->up[1] + m->up[2] * m->up[2]);
    check(fabsf(up - 1) < 2e-3f);
    static uint8_t seen[4096];
    memset(seen, 0, sizeof seen);
    for (uint32_t i = 0; i < m->count; i++) {
        const mn_mouth_entry *e = &m->entries[i];
        check(e->row < 4096 && e->upper < 512 && e->lower < 512);
        check(e->kind >= MN_MOUTH_PLUG && e->kind <= MN_MOUTH_BAND);
        check(!seen[e->row]);
        seen[e->row] = 1;
    }
    mn_mouth_hidden_free(m);
    return 0;
}
