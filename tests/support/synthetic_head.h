/*
 * Test support: a small, fully deterministic expression head, built in code
 * and packed with mn_aosrig_write, so tests need no asset.
 *
 * The head (head-local, metres unless `centimetres`; +Y up, +Z forward, +X
 * the character's left):
 *   - a sphere of radius 0.1 subdivided into `rings` latitude bands and
 *     `segments` longitude slices (two pole vertices, (rings-1)·segments
 *     others), triangulated into `faces`; the bands between the poles' fans
 *     are also listed as `quads` when `quads` is set;
 *   - two eyes, small spheres (radius 0.012, 4 rings × 6 segments) centred on
 *     eye_positions (left at +X), whose vertices have eye weight 1 for their
 *     eye and 0 for the other (every head vertex has 0 for both);
 *   - a basis of E = coeff_count coefficients: every half is a seeded
 *     pseudo-random value in [-0.01, 0.01] encoded with mn_f16_from_float;
 *     basisScale in [0.5, 1.5];
 *   - a three-joint chain "neck_01" (root) → "neck_02" → "head", rest worlds
 *     with a small tilt on neck_02 (not the identity), both eyes on "head";
 *   - K = 2 influences: (head, neck_02) weights by height, quantised to
 *     multiples of 1/1024 so the two f16 weights sum to exactly 1;
 *   - headExt regions: with E ≥ 4, left_eye E/4, right_eye E/4, lower_face
 *     the rest but one, pupils 1; reduced counts for all but pupils.  With
 *     E < 4, one region "lower_face".
 * The same options always give the same bytes.
 */
#ifndef MN_TEST_SYNTHETIC_HEAD_H
#define MN_TEST_SYNTHETIC_HEAD_H

#include <marionette/head/aosrig.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct synthetic_head_options {
    uint32_t rings;          /* latitude bands of the head sphere, >= 2; 0 means 8 */
    uint32_t segments;       /* longitude slices, >= 3; 0 means 12 */
    uint32_t coeff_count;    /* E; 0 means 8 */
    uint32_t seed;           /* the basis and scales' generator seed */
    bool centimetres;        /* units "cm": every stored length × 100 */
    bool uv;                 /* add the optional uv blob */
    bool quads;              /* add the optional quads blob */
    bool stitch;             /* add the optional stitchLocal blob */
    bool bind_transform;     /* add a bindTransform (a translation and a turn) */
    bool mouth;              /* add a "mouth" header object */
} synthetic_head_options;

/* The most blobs a synthetic head has (13: every optional one present). */
#define SYNTHETIC_HEAD_MAX_BLOBS 13

typedef struct synthetic_head {
    mn_aosrig_header header;             /* what mn_aosrig_write is given */
    mn_aosrig_blob blobs[SYNTHETIC_HEAD_MAX_BLOBS];
    uint32_t blob_count;
    /* the arrays the blobs point at (owned; freed by synthetic_head_free) */
    uint32_t vertex_count, face_count, quad_count;
    float *neutral;          /* (V,3) */
    uint16_t *basis;         /* (V,E,3) halves, plus one pad half when V·E·3 is odd */
    float *basis_scale;      /* (E) */
    uint32_t *faces;         /* (F,3) */
    uint32_t *quads;         /* (Q,4), NULL unless options.quads */
    float *uv;               /* (V,2), NULL unless options.uv */
    uint16_t *skin_index;    /* (V,2) */
    uint16_t *skin_weight;   /* (V,2) halves */
    int32_t joint_parents[3];
    float rest_world[3 * 16];
    float eye_positions[6];
    float *eye_weights;      /* (2,V) */
    float *stitch_local;     /* (V,3), NULL unless options.stitch */
    /* private storage behind header and blobs */
    char **names_storage;
    mn_aosrig_region regions_storage[4];
    uint64_t shapes_storage[SYNTHETIC_HEAD_MAX_BLOBS][3];
} synthetic_head;

/* Build the head (NULL options: every default).  Aborts the test process on
   an impossible option or out of memory (it is test support). */
void synthetic_head_build(synthetic_head *head, const synthetic_head_options *options);

/* Pack the head with mn_aosrig_write; free *out with mn_aosrig_bytes_free(NULL, ...). */
mn_status synthetic_head_pack(const synthetic_head *head, uint8_t **out, size_t *size,
                              mn_error *err);

/* The index in head->blobs of the blob called `name`, or -1. */
int synthetic_head_blob(const synthetic_head *head, const char *name);

/* Free what synthetic_head_build allocated. */
void synthetic_head_free(synthetic_head *head);

#endif /* MN_TEST_SYNTHETIC_HEAD_H */
