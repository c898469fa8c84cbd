/*
 * EXT_meshopt_compression on the writer's side: animation keys filtered
 * (QUATERNION, EXPONENTIAL or none) and encoded with libmeshoptimizer's
 * vertex codec when the plan is made, so the layout knows every compressed
 * size before a byte is written; and mn_gltf_encoded_keys, the floats a
 * reader decodes from them, which the animation compressor measures.
 */
#include "gltf/write_internal.h"

#include <meshoptimizer.h>
#include <string.h>

#define CHUNK 64u   /* elements filtered at a time by mn_gltf_encoded_keys */

static uint32_t clamp_bits(uint32_t bits, uint32_t lo, uint32_t hi)
{
    return bits < lo ? lo : bits > hi ? hi : bits;
}

/* A filtered element's bytes back to floats, as the reader converts them. */
static void decode_chunk(bool quaternion, uint8_t *bytes, uint32_t n, uint32_t components, float *out)
{
    if (quaternion) {
        meshopt_decodeFilterQuat(bytes, n, 8);
        for (uint32_t i = 0; i < 4 * n; i++) {
            int16_t v;
            memcpy(&v, bytes + 2 * i, 2);
            float f = (float)v / 32767.0f;   /* normalized i16, as model/accessor.c reads it */
            out[i] = f < -1.0f ? -1.0f : f;
        }
        return;
    }
    meshopt_decodeFilterExp(bytes, n, 4u * components);
    memcpy(out, bytes, (size_t)n * components * sizeof(float));
}

void mn_gltf_encoded_keys(const float *in, uint32_t count, uint32_t components, bool quaternion, uint32_t bits,
                          float *out)
{
    if (!in || !out || components == 0 || components > 16 || (quaternion && components != 4))
        return;
    if (bits == 0) {
        if (out != in)
            memmove(out, in, (size_t)count * components * sizeof(float));
        return;
    }
    uint8_t bytes[CHUNK * 16 * sizeof(float)];
    float src[CHUNK * 16];
    for (uint32_t first = 0; first < count; first += CHUNK) {
        uint32_t n = count - first < CHUNK ? count - first : CHUNK;
        memcpy(src, in + (size_t)first * components, (size_t)n * components * sizeof(float));
        if (quaternion)
            meshopt_encodeFilterQuat(bytes, n, 8, (int)clamp_bits(bits, 4, 16), src);
        else
            meshopt_encodeFilterExp(bytes, n, 4u * components, (int)clamp_bits(bits, 1, 24), src);
        decode_chunk(quaternion, bytes, n, components, out + (size_t)first * components);
    }
}

static mn_status find_group(mn_gltf_writer *w, mn_wfilter filter, uint32_t stride, uint32_t count,
                            uint32_t *index)
{
    for (uint32_t g = 0; g < w->group_count; g++)
        if (w->groups[g].filter == filter && w->groups[g].stride == stride) {
            *index = g;
            break;
        }
    if (*index == UINT32_MAX) {
        if (w->group_count == sizeof w->groups / sizeof w->groups[0])
            return mni_fail(w->err, MN_OVERFLOW, "too many kinds of meshopt-compressed animation data");
        *index = w->group_count++;
        memset(&w->groups[*index], 0, sizeof w->groups[*index]);
        w->groups[*index].filter = filter;
        w->groups[*index].stride = stride;
    }
    if (w->groups[*index].count > UINT32_MAX / 16u - count)
        return mni_fail(w->err, MN_OVERFLOW, "too many animation keys for one meshopt view");
    return MN_OK;
}

mn_status mni_gltf_write_pack(mn_gltf_writer *w, mn_wacc *acc, const float *floats, uint32_t count,
                              uint32_t components, mn_wfilter filter, uint32_t bits)
{
    bool quaternion = filter == MN_WFILTER_QUATERNION;
    if (filter == MN_WFILTER_QUATERNION)
        bits = clamp_bits(bits, 4, 16);
    else if (filter == MN_WFILTER_EXPONENTIAL)
        bits = clamp_bits(bits, 1, 24);
    acc->source = MN_WSOURCE_MESHOPT;
    acc->count = count;
    acc->filter = filter;
    acc->bits = filter == MN_WFILTER_NONE ? 0 : bits;
    acc->component = quaternion ? MN_COMPONENT_I16 : MN_COMPONENT_F32;
    acc->normalized = quaternion;
    acc->element_size = acc->stride = quaternion ? 8u : 4u * components;
    uint32_t group = UINT32_MAX;
    mn_status st = find_group(w, filter, acc->stride, count, &group);
    if (st != MN_OK)
        return st;
    size_t raw_size = (size_t)count * acc->stride, values = (size_t)count * components;
    uint8_t *raw = mni_arena_alloc(&w->arena, raw_size ? raw_size : 1, 16);
    float *decoded = mni_arena_alloc(&w->arena, (values ? values : 1) * sizeof(float), 16);
    if (!raw || !decoded)
        return mni_oom(w->err, "encoding animation keys for EXT_meshopt_compression");
    if (filter == MN_WFILTER_QUATERNION)
        meshopt_encodeFilterQuat(raw, count, 8, (int)bits, floats);
    else if (filter == MN_WFILTER_EXPONENTIAL)
        meshopt_encodeFilterExp(raw, count, acc->stride, (int)bits, floats);
    else
        memcpy(raw, floats, raw_size);
    mn_gltf_encoded_keys(floats, count, components, quaternion, acc->bits, decoded);
    acc->filtered = raw;
    acc->floats = decoded;
    acc->group = group;
    acc->group_offset = (size_t)w->groups[group].count * acc->stride;
    acc->size = raw_size;
    w->groups[group].count += count;
    return MN_OK;
}

mn_status mni_gltf_write_groups(mn_gltf_writer *w)
{
    for (uint32_t g = 0; g < w->group_count; g++) {
        mn_wgroup *gr = &w->groups[g];
        size_t raw_size = (size_t)gr->count * gr->stride;
        size_t bound = meshopt_encodeVertexBufferBound(gr->count, gr->stride);
        uint8_t *raw = mni_arena_alloc(&w->arena, raw_size ? raw_size : 1, 16);
        uint8_t *packed = mni_arena_alloc(&w->arena, bound ? bound : 1, 16);
        if (!raw || !packed)
            return mni_oom(w->err, "encoding animation keys for EXT_meshopt_compression");
        for (uint32_t i = 0; i < w->acc_count; i++) {
            const mn_wacc *acc = &w->accs[i];
            if (acc->source == MN_WSOURCE_MESHOPT && acc->group == g)
                memcpy(raw + acc->group_offset, acc->filtered, acc->size);
        }
        gr->packed = packed;
        gr->size = meshopt_encodeVertexBuffer(packed, bound, raw, gr->count, gr->stride);
        if (gr->size == 0)
            return mni_fail(w->err, MN_INVALID_ARGUMENT, "meshopt could not encode %u keys", gr->count);
        if (gr->size >= raw_size) {
            /* Small data: the codec's tail costs more than it saves.  The filter's output as is. */
            if (gr->filter == MN_WFILTER_QUATERNION)
                meshopt_decodeFilterQuat(raw, gr->count, gr->stride);
            else if (gr->filter == MN_WFILTER_EXPONENTIAL)
                meshopt_decodeFilterExp(raw, gr->count, gr->stride);
            gr->plain = true;
            gr->packed = raw;
            gr->size = raw_size;
        }
    }
    w->uses_meshopt = false;
    for (uint32_t g = 0; g < w->group_count; g++)
        w->uses_meshopt = w->uses_meshopt || !w->groups[g].plain;
    return MN_OK;
}
