/*
 * The splat deform with AVX2 and FMA, eight splats a batch, entered only
 * from splat_skin.c's dispatch at MN_SIMD_AVX2_FMA.  Every function here is
 * compiled for AVX2+FMA by MN_LANE and MN_KERNEL (core/lanes_avx2.h), as
 * skin_avx2.c's are.
 *
 * The rotation maths runs with one splat a lane (splat_skin_kernel.h); the
 * work around it is moving eight splats into that layout and back, which is
 * done in registers with as few lane-crossing shuffles as it takes (those
 * have one port on Intel cores, where the in-lane shuffles and blends have
 * two or three):
 *
 *   - Blend: a splat's skin matrices are blended as mesh skinning blends a
 *     vertex's (columns 0-1 one register, 2-3 another: a broadcast and two
 *     FMAs an influence).  An in-lane 4×4 transpose of four splats' column
 *     pairs gives, for each row, that row of column 0 (or 2) of the four in
 *     the low half and of column 1 (or 3) in the high half; one lane-crossing
 *     permute then joins the four splats of 0-3 with those of 4-7.
 *   - Rotations in and out: the register for splats l and l + 4 is two
 *     16-byte loads (the second an insert from memory, which needs no
 *     shuffle port), and an in-lane transpose makes x, y, z and w.  Out, the
 *     same transpose backwards and 16-byte stores of each half.
 *   - Centres in and out: three such register pairs hold the 24 floats of
 *     eight x y z; two blends and an in-lane permute pick each of x, y and z
 *     (and back).  The centre is then transformed lane-wise with FMAs.
 *
 * A short last batch copies its splats' centres and rotations to a padded
 * block (repeating its last splat, as the blend does) and writes its outputs
 * through another, so every batch runs the same instructions and a splat
 * gets the same bits wherever it falls.  Large jobs stream their outputs, as
 * mesh skinning decides (MN_SKIN_STREAM_MIN_BYTES).
 */
#include "character/splat_internal.h"

#include <marionette/skin.h> /* MN_SKIN_STREAM_MIN_BYTES */

#include <stdint.h>
#include <string.h>

#if MN_WITH_AVX2

#include "core/lanes_avx2.h"

#include "character/splat_skin_kernel.h"
#include "deform/palette_blend_avx2.h"

/* ---- into lanes and back ----------------------------------------------------------- */

/* Rows 0-2 of the in-lane 4×4 transpose of v[0..3] (row 3 is not needed: its shuffle is dropped). */
MN_LANE void transpose3(const __m256 v[4], __m256 out[3])
{
    __m256 all[4];
    vf_transpose_halves4(v, all);
    out[0] = all[0], out[1] = all[1], out[2] = all[2];
}

/* The halves of v to lo and hi: streaming (both 16-byte aligned) or not. */
MN_LANE void store_halves(float *lo, float *hi, __m256 v, bool stream)
{
    if (stream) {
        _mm_stream_ps(lo, _mm256_castps256_ps128(v));
        _mm_stream_ps(hi, _mm256_extractf128_ps(v, 1));
    } else {
        _mm_storeu_ps(lo, _mm256_castps256_ps128(v));
        _mm_storeu_ps(hi, _mm256_extractf128_ps(v, 1));
    }
}

/*
 * Where a batch reads and writes: its splats' joints and weights (a pointer
 * a lane, so a short batch can repeat its last splat), and the job's arrays
 * for centres and rotations for a whole batch, padded blocks for a short one.
 */
typedef struct batch_io {
    const uint16_t *joints[8];
    const float *weights[8];
    const float *centres;   /* 8 × 3 */
    const float *rotations; /* 8 × 4 */
    float *out_centres;     /* 8 × 3 */
    float *out_rotations;   /* 8 × 4 */
    bool stream;
} batch_io;

/*
 * Four splats' blends (lanes first to first + 3 of io), transposed in each
 * 128-bit lane: rows01[r] holds row r of column 0 of the four in its low
 * half and of column 1 in its high half; rows23[r] the same of columns 2
 * and 3.  Blending four at a time, rather than all eight before
 * transposing, keeps the accumulators in registers.
 */
MN_LANE void blend4(const float *pal, const batch_io *io, int first, size_t ic,
                    __m256 rows01[3], __m256 rows23[3])
{
    __m256 c01[4], c23[4];
    for (int l = 0; l < 4; l++)
        mn_palette_blend_avx2(pal, io->joints[first + l], io->weights[first + l], ic, &c01[l], &c23[l]);
    transpose3(c01, rows01);
    transpose3(c23, rows23);
}

/*
 * Eight splats' blended 3×3 columns and translation into lanes: m[c*3 + r]
 * is row r of column c (c = 3: the translation), lane l splat l of io.
 */
MN_LANE void gather_matrices(const float *pal, const batch_io *io, size_t ic,
                             __m256 m[12])
{
    __m256 lo01[3], lo23[3], hi01[3], hi23[3]; /* splats 0-3 and 4-7, by row */
    blend4(pal, io, 0, ic, lo01, lo23);
    blend4(pal, io, 4, ic, hi01, hi23);
    for (int r = 0; r < 3; r++) {
        m[r] = _mm256_permute2f128_ps(lo01[r], hi01[r], 0x20);
        m[3 + r] = _mm256_permute2f128_ps(lo01[r], hi01[r], 0x31);
        m[6 + r] = _mm256_permute2f128_ps(lo23[r], hi23[r], 0x20);
        m[9 + r] = _mm256_permute2f128_ps(lo23[r], hi23[r], 0x31);
    }
}

/* Eight packed x y z to x, y and z lanes. */
MN_LANE void load_xyz(const float *p, __m256 xyz[3])
{
    /* a = x0 y0 z0 x1, b = y1 z1 x2 y2, c = z2 x3 y3 z3 (and splats 4-7 in the high half) */
    __m256 a = vf_load_halves(p, p + 12), b = vf_load_halves(p + 4, p + 16);
    __m256 c = vf_load_halves(p + 8, p + 20);
    __m256 x = _mm256_blend_ps(_mm256_blend_ps(a, b, 0x44), c, 0x22); /* x0 x3 x2 x1 */
    __m256 y = _mm256_blend_ps(_mm256_blend_ps(a, b, 0x99), c, 0x44); /* y1 y0 y3 y2 */
    __m256 z = _mm256_blend_ps(_mm256_blend_ps(a, b, 0x22), c, 0x99); /* z2 z1 z0 z3 */
    xyz[0] = _mm256_permute_ps(x, _MM_SHUFFLE(1, 2, 3, 0));
    xyz[1] = _mm256_permute_ps(y, _MM_SHUFFLE(2, 3, 0, 1));
    xyz[2] = _mm256_permute_ps(z, _MM_SHUFFLE(3, 0, 1, 2));
}

/* load_xyz backwards: x, y and z lanes to eight packed x y z. */
MN_LANE void store_xyz(float *p, const __m256 xyz[3], bool stream)
{
    __m256 x = _mm256_permute_ps(xyz[0], _MM_SHUFFLE(1, 2, 3, 0)); /* x0 x3 x2 x1 */
    __m256 y = _mm256_permute_ps(xyz[1], _MM_SHUFFLE(2, 3, 0, 1)); /* y1 y0 y3 y2 */
    __m256 z = _mm256_permute_ps(xyz[2], _MM_SHUFFLE(3, 0, 1, 2)); /* z2 z1 z0 z3 */
    __m256 a = _mm256_blend_ps(_mm256_blend_ps(x, y, 0x22), z, 0x44); /* x0 y0 z0 x1 */
    __m256 b = _mm256_blend_ps(_mm256_blend_ps(y, z, 0x22), x, 0x44); /* y1 z1 x2 y2 */
    __m256 c = _mm256_blend_ps(_mm256_blend_ps(z, x, 0x22), y, 0x44); /* z2 x3 y3 z3 */
    store_halves(p, p + 12, a, stream);
    store_halves(p + 4, p + 16, b, stream);
    store_halves(p + 8, p + 20, c, stream);
}

/* One batch of eight splats. */
MN_LANE void batch(const mn_splat_skin_job *a, const batch_io *io, size_t ic)
{
    __m256 m[12];
    gather_matrices(a->palette, io, ic, m);

    __m256 c[3];
    load_xyz(io->centres, c);
    for (int r = 0; r < 3; r++)
        c[r] = _mm256_add_ps(c[r], _mm256_set1_ps(a->translation[r]));
    __m256 out_c[3];
    for (int r = 0; r < 3; r++)
        out_c[r] = _mm256_add_ps(
            _mm256_fmadd_ps(m[6 + r], c[2], _mm256_fmadd_ps(m[3 + r], c[1],
                                                            _mm256_mul_ps(m[r], c[0]))),
            m[9 + r]);
    store_xyz(io->out_centres, out_c, io->stream);

    const float *rot = io->rotations;
    __m256 q[4];
    for (int l = 0; l < 4; l++)
        q[l] = vf_load_halves(rot + 4 * l, rot + 4 * (l + 4));
    vf_transpose_halves4(q, q);
    rotate(m, q);
    vf_transpose_halves4(q, q);
    float *out = io->out_rotations;
    for (int l = 0; l < 4; l++)
        store_halves(out + 4 * l, out + 4 * (l + 4), q[l], io->stream);
}

/*
 * The whole batches of [first, end): inlined once with ic a constant (4,
 * the common count, so the blend is straight-line code) and once with ic
 * read from the job.  Returns where the short batch starts.
 */
MN_LANE size_t whole_batches(const mn_splat_skin_job *a, size_t first, size_t end,
                             size_t ic, bool stream)
{
    size_t base = first;
    for (; end - base >= 8; base += 8) {
        batch_io io = {.centres = a->centres + 3 * base, .rotations = a->rotations + 4 * base,
                       .out_centres = a->out_centres + 3 * base,
                       .out_rotations = a->out_rotations + 4 * base, .stream = stream};
        for (size_t l = 0; l < 8; l++) {
            io.joints[l] = a->joints + (base + l) * ic;
            io.weights[l] = a->weights + (base + l) * ic;
        }
        batch(a, &io, ic);
    }
    return base;
}

/* A short last batch: its splats [base, end) through padded blocks, the last one repeated. */
MN_KERNEL static void short_batch(const mn_splat_skin_job *a, size_t base, size_t end)
{
    _Alignas(32) float centres[24], rotations[32], out_c[24], out_r[32];
    batch_io io = {.centres = centres, .rotations = rotations, .out_centres = out_c,
                   .out_rotations = out_r, .stream = false};
    for (size_t l = 0; l < 8; l++) {
        size_t i = base + l < end ? base + l : end - 1;
        io.joints[l] = a->joints + i * a->influences;
        io.weights[l] = a->weights + i * a->influences;
        memcpy(centres + 3 * l, a->centres + 3 * i, 3 * sizeof(float));
        memcpy(rotations + 4 * l, a->rotations + 4 * i, 4 * sizeof(float));
    }
    batch(a, &io, a->influences);
    memcpy(a->out_centres + 3 * base, out_c, 3 * (end - base) * sizeof(float));
    memcpy(a->out_rotations + 4 * base, out_r, 4 * (end - base) * sizeof(float));
}

MN_KERNEL void mni_splat_skin_avx2(const mn_splat_skin_job *a, size_t first, size_t end)
{
    /* as mesh skinning decides (skin.h); 16-byte streaming stores need 16-byte alignment, which
       every batch has when the arrays do (a batch is 96 and 128 bytes of them) */
    bool stream = (size_t)a->count * 28u >= MN_SKIN_STREAM_MIN_BYTES &&
                  ((uintptr_t)(a->out_centres + 3 * first) & 15) == 0 &&
                  ((uintptr_t)(a->out_rotations + 4 * first) & 15) == 0;
    size_t base = a->influences == 4 ? whole_batches(a, first, end, 4, stream)
                                     : whole_batches(a, first, end, a->influences, stream);
    if (base < end)
        short_batch(a, base, end);
    if (stream)
        _mm_sfence();
}

#else
/* ISO C wants a translation unit to declare something. */
typedef int mn_splat_skin_avx2_unused;
#endif
