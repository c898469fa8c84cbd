/*
 * Accessors: the layout of one element, zero-copy float views, and the
 * conversion of any accessor the reader validated into packed floats or uint32.
 *
 * Conversion is the hot part of loading (a million-vertex mesh converts tens
 * of megabytes), so it never switches per component the way a generic
 * "read element i" does.  One switch per call picks a small kernel:
 *   - packed f32 (stride == element size)  → memcpy;
 *   - packed 8/16/32-bit integers           → one counted loop over every
 *     component, with an SSE2 kernel in front of it (the scalar loop finishes
 *     the tail and is the reference: MN_NO_SIMD builds only the scalar loops,
 *     and both give the same bits because every step — int to float, one
 *     division, one max — is exactly rounded);
 *   - interleaved (stride > element size)   → one loop per element, with f32
 *     copies specialised by component count;
 *   - 1- and 2-byte MAT2/MAT3, whose columns are padded to 4 bytes → column by column.
 *
 * Memory safety: the kernels read element i's bytes only, from data + i*stride
 * to the end of its last column's last component; the last element may end
 * exactly at the end of its buffer.  Multi-byte values are read with memcpy,
 * so misaligned data is fine.  glTF data is little-endian and so is every host
 * marionette supports (the zero-copy float view depends on it as well).
 */
#include "model/model.h"

#include <string.h>

#if defined(__SSE2__) && !defined(MN_NO_SIMD)
#define MN_ACCESSOR_SSE2 1
#include <emmintrin.h>
#else
#define MN_ACCESSOR_SSE2 0
#endif

/* ---- layout ------------------------------------------------------------------ */

uint32_t mn_accessor_components(mn_accessor_type type)
{
    switch (type) {
    case MN_TYPE_SCALAR: return 1;
    case MN_TYPE_VEC2: return 2;
    case MN_TYPE_VEC3: return 3;
    case MN_TYPE_VEC4: return 4;
    case MN_TYPE_MAT2: return 4;
    case MN_TYPE_MAT3: return 9;
    case MN_TYPE_MAT4: return 16;
    default: return 0;
    }
}

uint32_t mn_component_size(mn_component component)
{
    switch (component) {
    case MN_COMPONENT_I8:
    case MN_COMPONENT_U8: return 1;
    case MN_COMPONENT_I16:
    case MN_COMPONENT_U16: return 2;
    case MN_COMPONENT_U32:
    case MN_COMPONENT_F32: return 4;
    default: return 0;
    }
}

/*
 * How one element lies in memory.  Scalars and vectors are one column of
 * `comps` components.  Matrices are `rows` columns of `rows` components, and
 * glTF starts every column on a 4-byte boundary, which pads the columns of
 * 1-byte MAT2/MAT3 and 2-byte MAT3.
 */
typedef struct mn_layout {
    size_t comps;       /* components per element; 0 for an invalid type */
    size_t comp_size;   /* bytes per component; 0 for an invalid component */
    size_t rows;        /* components per column */
    size_t cols;        /* columns: 1 for scalars and vectors */
    size_t col_stride;  /* bytes from one column to the next */
    size_t elem_size;   /* cols × col_stride */
} mn_layout;

static size_t matrix_order(mn_accessor_type type)
{
    switch (type) {
    case MN_TYPE_MAT2: return 2;
    case MN_TYPE_MAT3: return 3;
    case MN_TYPE_MAT4: return 4;
    default: return 0;
    }
}

static mn_layout layout_of(const mn_accessor *accessor)
{
    mn_layout l;
    l.comps = mn_accessor_components(accessor->type);
    l.comp_size = mn_component_size(accessor->component);
    size_t order = matrix_order(accessor->type);
    if (order == 0) {
        l.rows = l.comps;
        l.cols = 1;
        l.col_stride = l.comps * l.comp_size;
    } else {
        l.rows = order;
        l.cols = order;
        l.col_stride = (order * l.comp_size + 3) & ~(size_t)3;
    }
    l.elem_size = l.cols * l.col_stride;
    return l;
}

static bool layout_padded(const mn_layout *l)
{
    return l->col_stride != l->rows * l->comp_size;
}

uint32_t mn_accessor_element_size(const mn_accessor *accessor)
{
    return accessor ? (uint32_t)layout_of(accessor).elem_size : 0;
}

const float *mn_accessor_float_view(const mn_accessor *accessor)
{
    if (!accessor || accessor->component != MN_COMPONENT_F32)
        return NULL;
    /* f32 columns are never padded, so element size = components × 4. */
    if (accessor->stride != layout_of(accessor).elem_size)
        return NULL;
    return (const float *)(const void *)accessor->data;
}

/* ---- scalar kernels: contiguous components ----------------------------------- */

static inline uint16_t load_u16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline int16_t load_i16(const uint8_t *p)
{
    int16_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline uint32_t load_u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline float load_f32(const uint8_t *p)
{
    float v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* glTF's signed rule: c / (2^(bits-1) - 1), clamped below at -1 (the most negative code). */
static inline float clamp_minus_one(float v)
{
    return v < -1.0f ? -1.0f : v;
}

/*
 * One loop per (type, normalized) pair, each a plain counted loop over
 * restrict pointers so that gcc and clang vectorise it when SSE2 is off.
 */
static inline void u8_floats(const uint8_t *restrict s, size_t n, bool norm, float *restrict d)
{
    if (norm)
        for (size_t i = 0; i < n; i++)
            d[i] = (float)s[i] / 255.0f;
    else
        for (size_t i = 0; i < n; i++)
            d[i] = (float)s[i];
}

static inline void i8_floats(const uint8_t *restrict s, size_t n, bool norm, float *restrict d)
{
    if (norm)
        for (size_t i = 0; i < n; i++)
            d[i] = clamp_minus_one((float)(int8_t)s[i] / 127.0f);
    else
        for (size_t i = 0; i < n; i++)
            d[i] = (float)(int8_t)s[i];
}

static inline void u16_floats(const uint8_t *restrict s, size_t n, bool norm, float *restrict d)
{
    if (norm)
        for (size_t i = 0; i < n; i++)
            d[i] = (float)load_u16(s + 2 * i) / 65535.0f;
    else
        for (size_t i = 0; i < n; i++)
            d[i] = (float)load_u16(s + 2 * i);
}

static inline void i16_floats(const uint8_t *restrict s, size_t n, bool norm, float *restrict d)
{
    if (norm)
        for (size_t i = 0; i < n; i++)
            d[i] = clamp_minus_one((float)load_i16(s + 2 * i) / 32767.0f);
    else
        for (size_t i = 0; i < n; i++)
            d[i] = (float)load_i16(s + 2 * i);
}

/* glTF allows `normalized` only on 8- and 16-bit components; u32 converts by value. */
static inline void u32_floats(const uint8_t *restrict s, size_t n, float *restrict d)
{
    for (size_t i = 0; i < n; i++)
        d[i] = (float)load_u32(s + 4 * i);
}

/* ---- SSE2 kernels ------------------------------------------------------------- */

#if MN_ACCESSOR_SSE2
/* Four int32 lanes to float, normalised when asked (c / div, then max with -1). */
static inline __m128 sse2_finish(__m128i v, bool norm, __m128 div)
{
    __m128 f = _mm_cvtepi32_ps(v);
    return norm ? _mm_max_ps(_mm_div_ps(f, div), _mm_set1_ps(-1.0f)) : f;
}

/* Widen the low or high four 16-bit lanes to 32 bits, with or without sign. */
static inline __m128i sse2_widen16(__m128i v, bool high, bool is_signed)
{
    if (is_signed) {
        __m128i twice = high ? _mm_unpackhi_epi16(v, v) : _mm_unpacklo_epi16(v, v);
        return _mm_srai_epi32(twice, 16);
    }
    __m128i zero = _mm_setzero_si128();
    return high ? _mm_unpackhi_epi16(v, zero) : _mm_unpacklo_epi16(v, zero);
}

/* Eight 16-bit lanes to eight floats at d. */
static inline void sse2_store16(__m128i v, bool is_signed, bool norm, __m128 div, float *d)
{
    _mm_storeu_ps(d, sse2_finish(sse2_widen16(v, false, is_signed), norm, div));
    _mm_storeu_ps(d + 4, sse2_finish(sse2_widen16(v, true, is_signed), norm, div));
}

/* 16 bytes at a time; returns how many components it converted (a multiple of 16). */
static size_t sse2_8bit(const uint8_t *s, size_t n, bool is_signed, bool norm, float *d)
{
    const __m128 div = _mm_set1_ps(is_signed ? 127.0f : 255.0f);
    const __m128i zero = _mm_setzero_si128();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i lo, hi;
        if (is_signed) { /* duplicate each byte into a 16-bit lane, shift back with sign */
            lo = _mm_srai_epi16(_mm_unpacklo_epi8(b, b), 8);
            hi = _mm_srai_epi16(_mm_unpackhi_epi8(b, b), 8);
        } else {
            lo = _mm_unpacklo_epi8(b, zero);
            hi = _mm_unpackhi_epi8(b, zero);
        }
        sse2_store16(lo, is_signed, norm, div, d + i);
        sse2_store16(hi, is_signed, norm, div, d + i + 8);
    }
    return i;
}

/* 8 components (16 bytes) at a time. */
static size_t sse2_16bit(const uint8_t *s, size_t n, bool is_signed, bool norm, float *d)
{
    const __m128 div = _mm_set1_ps(is_signed ? 32767.0f : 65535.0f);
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        sse2_store16(_mm_loadu_si128((const __m128i *)(const void *)(s + 2 * i)), is_signed,
                     norm, div, d + i);
    return i;
}

/*
 * SSE2 converts only signed int32, so split u32 into 16-bit halves: hi·65536
 * and lo are both exact floats, and their sum is rounded once — the same
 * correctly rounded result as the scalar (float) conversion.
 */
static size_t sse2_u32(const uint8_t *s, size_t n, float *d)
{
    const __m128i low_mask = _mm_set1_epi32(0xFFFF);
    const __m128 k65536 = _mm_set1_ps(65536.0f);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + 4 * i));
        __m128 hi = _mm_mul_ps(_mm_cvtepi32_ps(_mm_srli_epi32(v, 16)), k65536);
        __m128 lo = _mm_cvtepi32_ps(_mm_and_si128(v, low_mask));
        _mm_storeu_ps(d + i, _mm_add_ps(hi, lo));
    }
    return i;
}

/* The SIMD front of floats_packed: how many leading components it converted. */
static size_t sse2_floats(mn_component c, bool norm, const uint8_t *s, size_t n, float *d)
{
    switch (c) {
    case MN_COMPONENT_U8: return sse2_8bit(s, n, false, norm, d);
    case MN_COMPONENT_I8: return sse2_8bit(s, n, true, norm, d);
    case MN_COMPONENT_U16: return sse2_16bit(s, n, false, norm, d);
    case MN_COMPONENT_I16: return sse2_16bit(s, n, true, norm, d);
    case MN_COMPONENT_U32: return sse2_u32(s, n, d);
    default: return 0; /* f32 is a memcpy already */
    }
}
#endif

/* ---- float conversion drivers ------------------------------------------------- */

/* n contiguous components at s to n floats at d. */
static void floats_packed(mn_component c, bool norm, const uint8_t *s, size_t n, float *d,
                          bool simd)
{
#if MN_ACCESSOR_SSE2
    if (simd) {
        size_t done = sse2_floats(c, norm, s, n, d);
        s += done * mn_component_size(c);
        d += done;
        n -= done;
    }
#else
    (void)simd;
#endif
    switch (c) {
    case MN_COMPONENT_F32: memcpy(d, s, n * sizeof(float)); break;
    case MN_COMPONENT_U32: u32_floats(s, n, d); break;
    case MN_COMPONENT_U8: u8_floats(s, n, norm, d); break;
    case MN_COMPONENT_I8: i8_floats(s, n, norm, d); break;
    case MN_COMPONENT_U16: u16_floats(s, n, norm, d); break;
    case MN_COMPONENT_I16: i16_floats(s, n, norm, d); break;
    default: break; /* excluded by the caller */
    }
}

/* Interleaved f32: a fixed-size copy per element, so the compiler emits plain moves. */
static void f32_strided(const uint8_t *restrict s, size_t stride, size_t count, size_t k,
                        float *restrict d)
{
    switch (k) {
    case 1: for (size_t e = 0; e < count; e++) d[e] = load_f32(s + e * stride); break;
    case 2: for (size_t e = 0; e < count; e++) memcpy(d + 2 * e, s + e * stride, 8); break;
    case 3: for (size_t e = 0; e < count; e++) memcpy(d + 3 * e, s + e * stride, 12); break;
    case 4: for (size_t e = 0; e < count; e++) memcpy(d + 4 * e, s + e * stride, 16); break;
    default:
        for (size_t e = 0; e < count; e++)
            memcpy(d + k * e, s + e * stride, k * sizeof(float));
        break;
    }
}

/* Interleaved elements of k unpadded components each. */
static void floats_strided(mn_component c, bool norm, const uint8_t *s, size_t stride,
                           size_t count, size_t k, float *d)
{
    switch (c) {
    case MN_COMPONENT_F32: f32_strided(s, stride, count, k, d); break;
    case MN_COMPONENT_U32:
        for (size_t e = 0; e < count; e++) u32_floats(s + e * stride, k, d + e * k);
        break;
    case MN_COMPONENT_U8:
        for (size_t e = 0; e < count; e++) u8_floats(s + e * stride, k, norm, d + e * k);
        break;
    case MN_COMPONENT_I8:
        for (size_t e = 0; e < count; e++) i8_floats(s + e * stride, k, norm, d + e * k);
        break;
    case MN_COMPONENT_U16:
        for (size_t e = 0; e < count; e++) u16_floats(s + e * stride, k, norm, d + e * k);
        break;
    case MN_COMPONENT_I16:
        for (size_t e = 0; e < count; e++) i16_floats(s + e * stride, k, norm, d + e * k);
        break;
    default: break;
    }
}

/* Elements [first, first + count) of a valid accessor into count × comps floats. */
static void floats_range(const mn_accessor *a, const mn_layout *l, size_t first, size_t count,
                         float *out, bool simd)
{
    const uint8_t *src = a->data + first * a->stride;
    if (count == 0)
        return;
    if (layout_padded(l)) { /* column by column, skipping each column's padding */
        for (size_t e = 0; e < count; e++)
            for (size_t col = 0; col < l->cols; col++)
                floats_packed(a->component, a->normalized,
                              src + e * a->stride + col * l->col_stride, l->rows,
                              out + (e * l->cols + col) * l->rows, false);
    } else if (a->stride == l->elem_size) {
        floats_packed(a->component, a->normalized, src, count * l->comps, out, simd);
    } else {
        floats_strided(a->component, a->normalized, src, a->stride, count, l->comps, out);
    }
}

/* Components the full conversion yields, 0 when the accessor cannot be converted. */
static size_t unpacked_size(const mn_accessor *a, mn_layout *l)
{
    if (!a)
        return 0;
    *l = layout_of(a);
    if (l->comps == 0 || l->comp_size == 0 || (a->count > 0 && !a->data))
        return 0;
    size_t need;
    mni_checked_mul(a->count, l->comps, &need); /* SIZE_MAX on overflow: no buffer is that big */
    return need;
}

static size_t unpack_floats(const mn_accessor *a, float *out, size_t cap, bool simd)
{
    mn_layout l;
    size_t need = unpacked_size(a, &l);
    if (!out || need == 0 || cap == 0)
        return need;
    size_t n = need < cap ? need : cap;
    size_t whole = n / l.comps, part = n % l.comps;
    floats_range(a, &l, 0, whole, out, simd);
    if (part) { /* capacity ends inside an element: convert it aside, keep its head */
        float tmp[16];
        floats_range(a, &l, whole, 1, tmp, simd);
        memcpy(out + whole * l.comps, tmp, part * sizeof(float));
    }
    return need;
}

size_t mn_accessor_unpack_floats(const mn_accessor *accessor, float *out, size_t out_capacity)
{
    return unpack_floats(accessor, out, out_capacity, MN_ACCESSOR_SSE2 != 0);
}

/* The scalar reference (declared in model/model.h). */
size_t mni_accessor_unpack_floats_scalar(const mn_accessor *accessor, float *out,
                                         size_t out_capacity)
{
    return unpack_floats(accessor, out, out_capacity, false);
}

/* ---- uint32 conversion -------------------------------------------------------- */

/* Negative values become 0 and floats are truncated toward zero, saturating at
   UINT32_MAX; NaN becomes 0.  (A plain cast of those would be undefined.) */
static inline uint32_t f32_to_u32(float f)
{
    if (!(f >= 0.0f))
        return 0;
    if (f >= 4294967296.0f)
        return UINT32_MAX;
    return (uint32_t)f;
}

static inline uint32_t signed_to_u32(int32_t v)
{
    return v < 0 ? 0 : (uint32_t)v;
}

/* n contiguous components at s to n uint32 at d. */
static void u32_packed(mn_component c, const uint8_t *restrict s, size_t n, uint32_t *restrict d)
{
    switch (c) {
    case MN_COMPONENT_U32: memcpy(d, s, n * sizeof(uint32_t)); break;
    case MN_COMPONENT_U16: for (size_t i = 0; i < n; i++) d[i] = load_u16(s + 2 * i); break;
    case MN_COMPONENT_U8: for (size_t i = 0; i < n; i++) d[i] = s[i]; break;
    case MN_COMPONENT_I16:
        for (size_t i = 0; i < n; i++) d[i] = signed_to_u32(load_i16(s + 2 * i));
        break;
    case MN_COMPONENT_I8: for (size_t i = 0; i < n; i++) d[i] = signed_to_u32((int8_t)s[i]); break;
    case MN_COMPONENT_F32:
        for (size_t i = 0; i < n; i++) d[i] = f32_to_u32(load_f32(s + 4 * i));
        break;
    default: break;
    }
}

/* Interleaved elements of k components: one small packed call per element is
   enough here (indices are packed in practice; joints are 4 components). */
static void u32_range(const mn_accessor *a, const mn_layout *l, size_t first, size_t count,
                      uint32_t *out)
{
    const uint8_t *src = a->data + first * a->stride;
    if (count == 0)
        return;
    if (layout_padded(l)) {
        for (size_t e = 0; e < count; e++)
            for (size_t col = 0; col < l->cols; col++)
                u32_packed(a->component, src + e * a->stride + col * l->col_stride, l->rows,
                           out + (e * l->cols + col) * l->rows);
    } else if (a->stride == l->elem_size) {
        u32_packed(a->component, src, count * l->comps, out);
    } else {
        for (size_t e = 0; e < count; e++)
            u32_packed(a->component, src + e * a->stride, l->comps, out + e * l->comps);
    }
}

size_t mn_accessor_unpack_u32(const mn_accessor *accessor, uint32_t *out, size_t out_capacity)
{
    mn_layout l;
    size_t need = unpacked_size(accessor, &l);
    if (!out || need == 0 || out_capacity == 0)
        return need;
    size_t n = need < out_capacity ? need : out_capacity;
    size_t whole = n / l.comps, part = n % l.comps;
    u32_range(accessor, &l, 0, whole, out);
    if (part) {
        uint32_t tmp[16];
        u32_range(accessor, &l, whole, 1, tmp);
        memcpy(out + whole * l.comps, tmp, part * sizeof(uint32_t));
    }
    return need;
}
