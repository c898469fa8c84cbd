/*
 * marionette/head/arkit.h — driving an expression head from ARKit-52 face
 * weights (docs/formats.md, "ARKit-52 maps").
 *
 * ARKit's 52 blendshape weights come in a fixed channel order
 * (mn_arkit_channel_name).  A map turns one such vector into a head's
 * control vector (head_ext, see head.h), allocating nothing per frame:
 *
 *   - the table map: a caller-supplied JSON table
 *     {"jawOpen": [{"region": "lower_face", "index": 3, "gain": 1.5}, ...], ...}
 *     resolved once to absolute slots; expression = clamp(Σ gain·weight, ±clamp),
 *     and the eyeLook* channels turn the eyes at MN_ARKIT_GAZE_FULL_SCALE
 *     radians per unit weight (gaze on by default);
 *   - the fitted map: a package's face.arkit (its JSON description) and the
 *     f32 file it describes: expression = c·A + Σ_k clamp01(c[i_k])·clamp01(c[j_k])·C[k]
 *     (not clamped), gaze per eyeLook* channel in radians per unit weight.
 *
 *     mn_arkit_map *map;
 *     mn_arkit_table_map_create(&pack->header.head_ext, json, json_size, NULL, &map, &err);
 *     float arkit[MN_ARKIT_CHANNEL_COUNT] = {0}, controls[387];
 *     arkit[mn_arkit_channel_index("jawOpen")] = 0.8f;
 *     mn_arkit_map_apply(map, arkit, controls);
 *     mn_arkit_map_free(map);
 *
 * What a build could not use (a key that is no ARKit channel, a term whose
 * region is unknown or whose index is out of range) is dropped and reported
 * in map->drops: a name and an error code, so tests compare codes.  marionette
 * ships no face table of its own.  ARKit's Left/Right are the character's own
 * (the left eye is on head-local +X).
 *
 * Thread safety: a map is immutable once built; apply it from any thread.
 */
#ifndef MARIONETTE_HEAD_ARKIT_H
#define MARIONETTE_HEAD_ARKIT_H

#include "../core.h"
#include "aosrig.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ARKit-52: the channel count, and the gaze turn per unit eyeLook* weight (20 degrees). */
#define MN_ARKIT_CHANNEL_COUNT 52u
#define MN_ARKIT_GAZE_FULL_SCALE 0.349065850398865915f

/* The name of channel `index` as Apple spells it ("eyeBlinkLeft"), or NULL when index ≥ 52. */
MN_API const char *mn_arkit_channel_name(uint32_t index);

/* The channel called `name`, compared case-insensitively ("JawOpen" = "jawOpen"); -1 when none. */
MN_API int32_t mn_arkit_channel_index(const char *name);

/* One item a build dropped: what it was and why (an error code of core.h). */
typedef struct mn_arkit_drop {
    const char *name;          /* a table key ("jawOpn"), a term ("jawOpen[2]"), or a fitted channel */
    mn_status code;            /* MN_INVALID_VALUE (not an ARKit channel, unknown region),
                                  MN_INDEX_RANGE (index outside its region or not an integer),
                                  MN_JSON_TYPE (a key or term of the wrong JSON type),
                                  MN_NOT_FINITE (a gain that is not a finite float) */
} mn_arkit_drop;

/* A built map.  Owned by the library: free with mn_arkit_map_free. */
typedef struct mn_arkit_map {
    uint32_t dim;              /* floats mn_arkit_map_apply writes: the layout's head_ext dim */
    /* Table: the terms kept.  Fitted: the rows in use, that is the channel
       rows whose name is an ARKit channel plus the corrective pairs both of
       whose rows are (a dropped channel, and any pair naming it, weighs 0). */
    uint32_t terms;
    uint32_t drop_count;
    const mn_arkit_drop *drops;
    struct mn_arkit_map_private *priv_;
} mn_arkit_map;

/* Options of the table map.  A zeroed struct (or NULL) means the defaults given. */
typedef struct mn_arkit_table_options {
    mn_allocator allocator;    /* zero: malloc/free */
    float clamp;               /* > 0 (infinity allowed): the clamp on every expression slot;
                                  0: 4 */
    bool no_gaze;              /* true: the gaze slots are always 0 */
} mn_arkit_table_options;

/*
 * Build the table map for `layout` from the JSON table `json` (json_size
 * bytes; one object, a member per ARKit channel name, each an array of
 * {"region", "index", "gain"}).  Keys that differ only in case all apply.
 * Dropped (and listed in drops): a key that is not an ARKit-52 name or whose
 * value is not an array; a term that is not an object, names an unknown
 * region, has an index that is not an integer in [0, region count), or a
 * gain that is not a finite number.
 * Errors: MN_INVALID_ARGUMENT (NULL layout/json/out, a negative or NaN
 * clamp), MN_JSON_SYNTAX, MN_JSON_TYPE (the top level is not an object),
 * MN_OVERFLOW, MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_arkit_table_map_create(const mn_aosrig_head_ext *layout, const char *json,
                                           size_t json_size, const mn_arkit_table_options *options,
                                           mn_arkit_map **out, mn_error *err);

/* Options of the fitted map.  A zeroed struct (or NULL) means malloc/free. */
typedef struct mn_arkit_fitted_options {
    mn_allocator allocator;
} mn_arkit_fitted_options;

/*
 * Build the fitted map from a package's face.arkit description `info_json`
 * (info_size bytes: {"version":1, "src", "sha256", "bytes", "channels",
 * "coeffs", "pairs", "gaze", "blinks"}) and the table file's bytes (A then
 * C, f32 little-endian, copied).  The hash is the loader's business; this
 * checks everything else: version 1; coeffs = layout->expr_dim; channels
 * strings; pairs [i, j] integers into channels; gaze entries {axis "pitch" |
 * "yaw", eye "left" | "right", radians finite}; `bytes`, when present, equal
 * to table_size; table_size exactly (channels + pairs) × coeffs × 4; every
 * float finite.  A channel (or gaze key) that is no ARKit-52 name is dropped
 * and listed (its weight is 0).
 * Errors: MN_INVALID_ARGUMENT (NULL pointer), MN_JSON_SYNTAX, MN_JSON_TYPE,
 * MN_MISSING_PROPERTY, MN_INVALID_VALUE (version, axis, eye),
 * MN_COUNT_MISMATCH (coeffs, bytes, the file's size), MN_INDEX_RANGE (a
 * pair), MN_NOT_FINITE, MN_OVERFLOW, MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_arkit_fitted_map_create(const mn_aosrig_head_ext *layout,
                                            const char *info_json, size_t info_size,
                                            const void *table, size_t table_size,
                                            const mn_arkit_fitted_options *options,
                                            mn_arkit_map **out, mn_error *err);

/*
 * One frame: arkit holds 52 weights in channel order; out receives all
 * map->dim floats (expression slots, then the four gaze angles).  Pure and
 * allocation-free.
 */
MN_API void mn_arkit_map_apply(const mn_arkit_map *map, const float *arkit, float *out);

/* Free a map.  NULL is allowed. */
MN_API void mn_arkit_map_free(mn_arkit_map *map);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_HEAD_ARKIT_H */
