/*
 * What every skinning kernel shares, written once: how a call is
 * specialised (influence count, packed or strided, which optional streams)
 * and walked (the vertices before a streaming boundary, the full groups of
 * four, the last few, the store fence), and its entry point
 * MN_ISA(mni_skin).  Included by each instruction set's file (skin_sse2.c,
 * skin_avx2.c, skin_neon.c) after its lane header (core/simd.h, the
 * convention); what differs between them is how a group of four vertices is
 * read, computed and written, which each file writes for its registers: one
 * vertex a register (SSE2, NEON) or two (AVX2).
 *
 * The including file defines, before including (and SKIN_SPLIT, see below, if it wants it):
 *   SKIN_READS_PAST  vertices that must follow a full group, because its
 *                    loads read past the group's last float (AVX2: 1);
 *   SKIN_STREAMS     1 when it writes the streamed outputs (skin.c's plan)
 *                    with non-temporal stores, then ended by SKIN_FENCE();
 * and, after including, two MN_LANE functions:
 *   skin_groups(s, L, v, end, stream)  the full groups from v to end (a
 *                    multiple of 4 further on), streaming when `stream`;
 *   skin_partial(s, L, first, n)       vertices first .. first+n-1 (1 to 4,
 *                    fewer than 4 when SKIN_READS_PAST is 0), through the
 *                    cache.
 * Every vertex gets the same bits wherever it falls (in a full group, a
 * partial one or the peel before a streaming boundary): lanes are
 * independent.
 */
#ifndef MN_DEFORM_SKIN_KERNEL_H
#define MN_DEFORM_SKIN_KERNEL_H

typedef mn_skin_layout layout;
#define STRIDE MN_SKIN_STRIDE

MN_LANE void skin_groups(const mn_skin_streams *s, layout L, size_t v, size_t end, bool stream);
MN_LANE void skin_partial(const mn_skin_streams *s, layout L, size_t first, size_t n);

MN_LANE void skin_all(const mn_skin_streams *sp, layout L)
{
    /* A local copy: the compiler then knows no output store can change a pointer or stride. */
    const mn_skin_streams st = *sp, *s = &st;
    bool stream = SKIN_STREAMS && (s->stream_positions || s->stream_normals || s->stream_tangents);
    size_t v = 0;
    if (stream && s->stream_first > 0) {
        /* the vertices before the 16-byte boundary: grouping changes no value */
        v = s->stream_first < s->count ? s->stream_first : s->count;
        skin_partial(s, L, 0, v);
    }
    size_t left = s->count - v;
    size_t end = left > SKIN_READS_PAST ? v + (left - SKIN_READS_PAST) / 4 * 4 : v;
    skin_groups(s, L, v, end, stream);
    if (end < s->count)
        skin_partial(s, L, end, s->count - end);
    if (stream)
        SKIN_FENCE(); /* streaming stores are weakly ordered: make them visible before returning */
}

/*
 * One instance per stream set, so the group loop carries no per-vertex tests.
 * SKIN_SPLIT (0 unless the including file defines it) makes each instance
 * a function of its own instead of inlining all twenty into the entry point:
 * a WebAssembly engine compiles each function on its own, starting with a
 * quick baseline, and optimises a function only once it runs hot, so one
 * huge function reaches its fast form seconds later than its small hot part
 * would.
 */
#ifndef SKIN_SPLIT
#define SKIN_SPLIT 0
#endif

#if SKIN_SPLIT
/* skin_all for influence count IC (an expression of s) and `packed`, one function per stream set */
#define SKIN_STREAM_SETS(name, PACKED, IC)                                                     \
    static __attribute__((noinline)) void name##_nt(const mn_skin_streams *s)                  \
    { skin_all(s, (layout){PACKED, true, true, IC}); }                                         \
    static __attribute__((noinline)) void name##_n(const mn_skin_streams *s)                   \
    { skin_all(s, (layout){PACKED, true, false, IC}); }                                        \
    static __attribute__((noinline)) void name##_t(const mn_skin_streams *s)                   \
    { skin_all(s, (layout){PACKED, false, true, IC}); }                                        \
    static __attribute__((noinline)) void name##_p(const mn_skin_streams *s)                   \
    { skin_all(s, (layout){PACKED, false, false, IC}); }
SKIN_STREAM_SETS(skin_4_packed, true, 4)
SKIN_STREAM_SETS(skin_4_strided, false, 4)
SKIN_STREAM_SETS(skin_8_packed, true, 8)
SKIN_STREAM_SETS(skin_8_strided, false, 8)
SKIN_STREAM_SETS(skin_n_strided, false, s->influences)
#undef SKIN_STREAM_SETS

/*
 * The twenty, called through this table: a call through a pointer read at
 * run time is one no optimiser inlines.  noinline alone is not enough in
 * the web build, whose linker runs binaryen's wasm-opt, and wasm-opt inlines
 * every function that has a single caller, which put all twenty back into
 * the entry point (one function of some 70,000 instructions, which the
 * engine then optimised seconds late).  Rows: influences and layout; columns:
 * normals and tangents, normals, tangents, positions alone.
 */
typedef void skin_split_fn(const mn_skin_streams *s);
#define SKIN_STREAM_ROW(name) {name##_nt, name##_n, name##_t, name##_p}
static skin_split_fn *const skin_split_table[5][4] = {
    SKIN_STREAM_ROW(skin_4_packed), SKIN_STREAM_ROW(skin_4_strided), SKIN_STREAM_ROW(skin_8_packed),
    SKIN_STREAM_ROW(skin_8_strided), SKIN_STREAM_ROW(skin_n_strided),
};
#undef SKIN_STREAM_ROW

/*
 * SKIN_OWN_ENTRY (0 unless the including file defines it): this dispatch is
 * then the static skin_dispatch, and the including file writes the entry
 * point MN_ISA(mni_skin) around it (the WebAssembly kernel repacks the
 * palette first).
 */
#if defined(SKIN_OWN_ENTRY) && SKIN_OWN_ENTRY
MN_LANE void skin_dispatch(const mn_skin_streams *s)
#else
MN_KERNEL void MN_ISA(mni_skin)(const mn_skin_streams *s)
#endif
{
    bool packed = mni_skin_packed(s);
    size_t row = s->influences == 4 ? (packed ? 0 : 1) : s->influences == 8 ? (packed ? 2 : 3) : 4;
    size_t col = s->normals ? (s->tangents ? 0 : 1) : s->tangents ? 2 : 3;
    skin_split_table[row][col](s);
}

#else /* every instance inlined into the entry point */
MN_LANE void skin_streams(const mn_skin_streams *s, size_t ic, bool packed)
{
    bool has_n = s->normals != NULL, has_t = s->tangents != NULL;
    if (has_n && has_t)
        skin_all(s, (layout){packed, true, true, ic});
    else if (has_n)
        skin_all(s, (layout){packed, true, false, ic});
    else if (has_t)
        skin_all(s, (layout){packed, false, true, ic});
    else
        skin_all(s, (layout){packed, false, false, ic});
}

MN_KERNEL void MN_ISA(mni_skin)(const mn_skin_streams *s)
{
    /* Constant influence counts unroll the blend; the generic count keeps run-time strides. */
    bool packed = mni_skin_packed(s);
    if (s->influences == 4 && packed)
        skin_streams(s, 4, true);
    else if (s->influences == 4)
        skin_streams(s, 4, false);
    else if (s->influences == 8 && packed)
        skin_streams(s, 8, true);
    else if (s->influences == 8)
        skin_streams(s, 8, false);
    else
        skin_streams(s, s->influences, false);
}
#endif

#endif /* MN_DEFORM_SKIN_KERNEL_H */
