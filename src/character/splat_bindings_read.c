/*
 * bindings.bin: each splat's K joint indices
 * (u16) and weights (f32).  The size is fixed by the header (16 + 6·count·K,
 * no padding), so any other length is refused before anything is copied.
 */
#include <marionette/character/splat.h>

#include "core/core.h"

#include <math.h>
#include <string.h>

static uint32_t read_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static mn_status check_header(const uint8_t *p, size_t size,
                              const mn_splat_bindings_read_options *o, size_t *values,
                              mn_error *err)
{
    if (size < 16)
        return mni_error_set(err, MN_COUNT_MISMATCH, "header", (int64_t)size,
                             "bindings.bin is %zu bytes, shorter than its 16-byte header", size);
    if (memcmp(p, "BIND", 4) != 0)
        return mni_error_set(err, MN_INVALID_VALUE, "magic", 0, "bindings.bin magic is not \"BIND\"");
    uint32_t version = read_u32(p + 4), count = read_u32(p + 8), k = read_u32(p + 12);
    if (version != 1)
        return mni_error_set(err, MN_INVALID_VALUE, "version", 4,
                             "unsupported version %u (bindings.bin version 1 is read)", version);
    if (k == 0)
        return mni_error_set(err, MN_INVALID_VALUE, "K", 12, "bindings.bin K is 0");
    if (o->expected_count != 0 && count != o->expected_count)
        return mni_error_set(err, MN_COUNT_MISMATCH, "count", 8,
                             "bindings.bin has %u splats, the package says splatCount %u", count,
                             o->expected_count);
    size_t n = 0, bytes = 0, total = 0;
    if (!mni_checked_mul(count, k, &n) || !mni_checked_mul(n, 6, &bytes) ||
        !mni_checked_add(bytes, 16, &total))
        return mni_error_set(err, MN_OVERFLOW, "count", 8, "bindings.bin size overflows");
    if (total != size)
        return mni_error_set(err, MN_COUNT_MISMATCH, "length", (int64_t)size,
                             "bindings.bin is %zu bytes; %u splats x K %u need %zu", size, count,
                             k, total);
    *values = n;
    return MN_OK;
}

static mn_status copy_arrays(const uint8_t *p, size_t n, const mn_splat_bindings_read_options *o,
                             mn_splat_bindings *out, mn_error *err)
{
    const uint8_t *idx = p + 16, *wts = p + 16 + 2 * n;
    for (size_t i = 0; i < n; i++) {
        uint16_t j = (uint16_t)(idx[2 * i] | idx[2 * i + 1] << 8);
        if (o->joint_count != 0 && j >= o->joint_count)
            return mni_error_set(err, MN_INDEX_RANGE, "joints", (int64_t)(16 + 2 * i),
                                 "bindings.bin splat %zu: joint %u is not below the joint "
                                 "count %u", i / out->influences, j, o->joint_count);
        out->joints[i] = j;
        uint32_t bits = read_u32(wts + 4 * i);
        float w;
        memcpy(&w, &bits, 4);
        if (!isfinite(w))
            return mni_error_set(err, MN_NOT_FINITE, "weights", (int64_t)(16 + 2 * n + 4 * i),
                                 "bindings.bin splat %zu: weight is not finite",
                                 i / out->influences);
        out->weights[i] = w;
    }
    return MN_OK;
}

MN_API mn_status mn_splat_bindings_read(const void *data, size_t size,
                                        const mn_splat_bindings_read_options *options,
                                        mn_splat_bindings *out, mn_error *err)
{
    mni_error_clear(err);
    if (!out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "out is NULL");
    memset(out, 0, sizeof *out);
    if (!data && size)
        return mni_fail(err, MN_INVALID_ARGUMENT, "data is NULL");
    mn_splat_bindings_read_options o = {0};
    if (options)
        o = *options;
    size_t n = 0;
    mn_status st = check_header(data, size, &o, &n, err);
    if (st != MN_OK)
        return st;
    const uint8_t *p = data;
    out->allocator = o.allocator;
    out->count = read_u32(p + 8);
    out->influences = read_u32(p + 12);
    size_t slots = n ? n : 1;
    out->joints = mni_alloc(&o.allocator, slots * sizeof(uint16_t));
    out->weights = mni_alloc(&o.allocator, slots * sizeof(float));
    if (!out->joints || !out->weights)
        st = mni_oom(err, NULL);
    if (st == MN_OK)
        st = copy_arrays(p, n, &o, out, err);
    if (st != MN_OK)
        mn_splat_bindings_free(out);
    return st;
}

MN_API void mn_splat_bindings_free(mn_splat_bindings *bindings)
{
    if (!bindings)
        return;
    size_t n = (size_t)bindings->count * bindings->influences;
    if (n == 0)
        n = 1;
    mni_free(&bindings->allocator, bindings->joints, n * sizeof(uint16_t));
    mni_free(&bindings->allocator, bindings->weights, n * sizeof(float));
    memset(bindings, 0, sizeof *bindings);
}
