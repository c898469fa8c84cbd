/*
 * EXT_meshopt_compression: a buffer view whose bytes are meshoptimizer-
 * encoded in another buffer.  The view keeps its own byteOffset/byteLength
 * (often into a "fallback" buffer that holds no data at all); its bytes come
 * from decoding the extension's buffer range with Debian's libmeshoptimizer
 * (vertex, index and index-sequence codecs, then the octahedral, quaternion
 * or exponential filter).  The decoders are safe on untrusted input, but
 * they assert on their size preconditions, so every one is checked first.
 */
#include "gltf/internal.h"

#include <meshoptimizer.h>
#include <string.h>

typedef enum meshopt_mode {
    MODE_ATTRIBUTES,
    MODE_TRIANGLES,
    MODE_INDICES
} meshopt_mode;

typedef enum meshopt_filter {
    FILTER_NONE,
    FILTER_OCTAHEDRAL,
    FILTER_QUATERNION,
    FILTER_EXPONENTIAL
} meshopt_filter;

/* The (mode, filter, stride, count) combination the codecs accept. */
static mn_status check_layout(mn_gltf_reader *r, int mode, int filter, uint32_t stride, uint32_t count)
{
    mn_json *j = &r->json;
    if (mode == MODE_ATTRIBUTES && (stride % 4 != 0 || stride > 256))
        return mni_json_fail(j, MN_INVALID_VALUE, "byteStride",
                             "ATTRIBUTES data needs a byteStride that is a multiple of 4 up to 256, not %u",
                             stride);
    if (mode != MODE_ATTRIBUTES && stride != 2 && stride != 4)
        return mni_json_fail(j, MN_INVALID_VALUE, "byteStride", "index data needs byteStride 2 or 4, not %u",
                             stride);
    if (mode == MODE_TRIANGLES && count % 3 != 0)
        return mni_json_fail(j, MN_INVALID_VALUE, "count",
                             "TRIANGLES data holds whole triangles, but count %u is not a multiple of 3", count);
    if (filter != FILTER_NONE && mode != MODE_ATTRIBUTES)
        return mni_json_fail(j, MN_INVALID_VALUE, "filter", "filters apply to ATTRIBUTES data only");
    if (filter == FILTER_OCTAHEDRAL && stride != 4 && stride != 8)
        return mni_json_fail(j, MN_INVALID_VALUE, "byteStride",
                             "the OCTAHEDRAL filter needs byteStride 4 or 8, not %u", stride);
    if (filter == FILTER_QUATERNION && stride != 8)
        return mni_json_fail(j, MN_INVALID_VALUE, "byteStride",
                             "the QUATERNION filter needs byteStride 8, not %u", stride);
    return MN_OK;
}

static int decode(int mode, uint8_t *dst, uint32_t count, uint32_t stride, const uint8_t *src, size_t size)
{
    switch (mode) {
    case MODE_ATTRIBUTES: return meshopt_decodeVertexBuffer(dst, count, stride, src, size);
    case MODE_TRIANGLES: return meshopt_decodeIndexBuffer(dst, count, stride, src, size);
    default: return meshopt_decodeIndexSequence(dst, count, stride, src, size);
    }
}

static void apply_filter(int filter, uint8_t *data, uint32_t count, uint32_t stride)
{
    switch (filter) {
    case FILTER_OCTAHEDRAL: meshopt_decodeFilterOct(data, count, stride); break;
    case FILTER_QUATERNION: meshopt_decodeFilterQuat(data, count, stride); break;
    case FILTER_EXPONENTIAL: meshopt_decodeFilterExp(data, count, stride); break;
    default: break;
    }
}

mn_status mni_meshopt_decode_view(mn_gltf_reader *r, json_t *ext, mn_buffer_view *view)
{
    static const char *const MODES[] = {"ATTRIBUTES", "TRIANGLES", "INDICES"};
    static const char *const FILTERS[] = {"NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL"};
    mn_json *j = &r->json;
    mn_model *m = r->model;
    uint32_t buffer, stride = 0, count = 0;
    uint64_t offset = 0, length = 0;
    int mode = 0, filter = FILTER_NONE;
    mn_status st;
    if ((st = mni_json_index(j, ext, "buffer", true, m->buffer_count, "buffers", &buffer)) != MN_OK ||
        (st = mni_json_uint(j, ext, "byteOffset", false, 0, SIZE_MAX, &offset)) != MN_OK ||
        (st = mni_json_uint(j, ext, "byteLength", true, 1, SIZE_MAX, &length)) != MN_OK ||
        (st = mni_json_u32(j, ext, "byteStride", true, 1, 256, &stride)) != MN_OK ||
        (st = mni_json_u32(j, ext, "count", true, 1, UINT32_MAX, &count)) != MN_OK ||
        (st = mni_json_enum(j, ext, "mode", true, MODES, 3, "a meshopt mode", &mode)) != MN_OK ||
        (st = mni_json_enum(j, ext, "filter", false, FILTERS, 4, "a meshopt filter", &filter)) != MN_OK ||
        (st = check_layout(r, mode, filter, stride, count)) != MN_OK)
        return st;
    const mn_buffer *src = &m->buffers[buffer];
    if (r->buffer_is_fallback[buffer])
        return mni_json_fail(j, MN_INVALID_VALUE, "buffer",
                             "buffer %u is a fallback buffer with no data; the compressed bytes must come "
                             "from a buffer that holds them",
                             buffer);
    if (offset > src->size || length > src->size - offset)
        return mni_json_fail(j, MN_BUFFER_VIEW_BOUNDS, "byteLength",
                             "byteOffset %llu + byteLength %llu runs past the end of buffer %u, which holds "
                             "%zu bytes",
                             (unsigned long long)offset, (unsigned long long)length, buffer, src->size);
    size_t bytes;
    if (!mni_checked_mul(count, stride, &bytes))
        return mni_json_fail(j, MN_OVERFLOW, "count", "count %u x byteStride %u overflows", count, stride);
    if (bytes > view->size)
        return mni_json_fail(j, MN_INVALID_VALUE, "count",
                             "count %u x byteStride %u = %zu decoded bytes do not fit the buffer view's "
                             "byteLength %zu",
                             count, stride, bytes, view->size);
    if ((st = mni_gltf_budget(r, view->size, "the decoded meshopt data")) != MN_OK)
        return st;
    uint8_t *out = mni_arena_alloc(r->arena, view->size, 64);
    if (!out)
        return mni_json_oom(j, NULL, "%zu bytes", view->size);
    memset(out + bytes, 0, view->size - bytes);
    int rc = decode(mode, out, count, stride, src->data + offset, (size_t)length);
    if (rc != 0)
        return mni_json_fail(j, MN_MESHOPT, NULL,
                             "the %s data (%llu bytes from buffer %u, count %u, byteStride %u) fails to "
                             "decode (meshoptimizer error %d)",
                             MODES[mode], (unsigned long long)length, buffer, count, stride, rc);
    apply_filter(filter, out, count, stride);
    view->data = out;
    view->stored_size = (size_t)length;
    return MN_OK;
}
