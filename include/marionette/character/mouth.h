/*
 * marionette/character/mouth.h — the mouth interior list (mouth_hidden.bin) and the
 * lips' gap functions.
 *
 * A character's splat cloud holds points inside the mouth (teeth, tongue,
 * the plug that closes the throat) that must disappear while the lips are
 * closed.  mouth_hidden.bin lists those splats with the two lip vertices of
 * the head whose distance opens the mouth; a renderer fades each listed
 * splat by mn_mouth_hidden_alpha(gap) and pushes plugs back along forward by
 * mn_mouth_plug_push(gap).  Layout (little-endian; docs/formats.md):
 *
 *     "MHID" u32 version (1) u32 count  f32 up[3]  f32 forward[3]
 *     count × { u32 row, u8 kind (1 plug, 2 inside, 3 band), u8 pad[3], u32 upper, u32 lower }
 */
#ifndef MARIONETTE_CHARACTER_MOUTH_H
#define MARIONETTE_CHARACTER_MOUTH_H

#include "../core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mn_mouth_kind {
    MN_MOUTH_PLUG = 1,
    MN_MOUTH_INSIDE = 2,
    MN_MOUTH_BAND = 3
} mn_mouth_kind;

typedef struct mn_mouth_entry {
    uint32_t row;         /* splat index, < splat_count */
    mn_mouth_kind kind;
    uint32_t upper;       /* upper lip head vertex, < head_vertex_count */
    uint32_t lower;       /* lower lip head vertex */
} mn_mouth_entry;

typedef struct mn_mouth_hidden {
    uint32_t version;     /* 1 */
    uint32_t count;       /* entries listed */
    uint32_t plugs;       /* of them, the lip line's plugs (kind 1): pushed back as the lips part */
    uint32_t band;        /* the lips' band (kind 3); the other count − plugs − band are inside points (kind 2) */
    float up[3];          /* unit, character frame */
    float forward[3];     /* unit, character frame */
    const mn_mouth_entry *entries;  /* count, in file order */
    struct mn_mouth_private *priv_;
} mn_mouth_hidden;

/*
 * Read and validate mouth_hidden.bin.  splat_count and head_vertex_count
 * bound the rows and lip vertices.  Pad bytes are ignored.  The list copies
 * what it needs and counts the plugs and the band; free it with
 * mn_mouth_hidden_free.
 * Errors (err->offset is the byte offset of the offending field):
 *   MN_INVALID_ARGUMENT  NULL data with a non-zero size, or out NULL;
 *   MN_INVALID_VALUE     magic not "MHID", version not 1, a kind not 1–3,
 *                        a row listed twice, up or forward not unit length (±1e-3);
 *   MN_COUNT_MISMATCH    the size is not 36 + 16·count (truncated or trailing bytes);
 *   MN_NOT_FINITE        a NaN or infinite up or forward component;
 *   MN_INDEX_RANGE       a row ≥ splat_count, a lip vertex ≥ head_vertex_count;
 *   MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_mouth_hidden_read(const void *data, size_t size, uint32_t splat_count,
                                      uint32_t head_vertex_count, const mn_allocator *allocator,
                                      mn_mouth_hidden **out, mn_error *err);

/* Free a list.  NULL is allowed. */
MN_API void mn_mouth_hidden_free(mn_mouth_hidden *mouth);

/*
 * The lips' gap in metres: up·((u − l) − (u0 − l0)), u and l the posed upper
 * and lower lip vertices, u0 and l0 the same at zero controls and rest joints,
 * all in the character's frame.
 */
MN_API float mn_mouth_lip_gap(const float up[3], const float u[3], const float l[3],
                              const float u0[3], const float l0[3]);

/* The opacity factor of a hidden splat: 1 − smoothstep(0, 0.002, gap) (1 at or below 0, 0 from 2 mm). NaN gives 1. */
MN_API float mn_mouth_hidden_alpha(float gap);

/* How far a plug moves back along forward, in metres: 0.003 · smoothstep(0, 0.002, gap). NaN gives 0. */
MN_API float mn_mouth_plug_push(float gap);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_CHARACTER_MOUTH_H */
