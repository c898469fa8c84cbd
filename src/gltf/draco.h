/*
 * Private: the Draco decoder behind a C interface (gltf/draco.cpp, the one
 * C++ file of the library, built when libdraco is found: MN_WITH_DRACO).
 * The reader (gltf/read_mesh.c) decodes a KHR_draco_mesh_compression
 * bufferView into an opaque handle, checks the decoded counts and each
 * attribute's components against the glTF accessors, and only then copies
 * the values out, converted to the accessor's component type, into memory it
 * allocated.  No function here throws: every C++ exception is caught and
 * reported as a message.  Not installed.
 */
#ifndef MN_GLTF_DRACO_H
#define MN_GLTF_DRACO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mni_draco_geometry mni_draco_geometry;

/* What the decoded data holds. */
typedef struct mni_draco_counts {
    uint32_t points;            /* vertices */
    uint32_t faces;             /* triangles; 0 for a point cloud */
    bool is_mesh;               /* a triangle mesh (else a point cloud) */
} mni_draco_counts;

/* One decoded attribute, found by the unique id the glTF extension names. */
typedef struct mni_draco_attribute_info {
    uint32_t components;        /* values per point */
    uint32_t data_type;         /* Draco's DataType: 1 INT8 ... 9 FLOAT32 (mni_draco_type_name) */
    bool normalized;
} mni_draco_attribute_info;

/*
 * Decode `size` bytes of Draco data.  Returns the geometry (free it with
 * mni_draco_free), or NULL with a one-line reason in msg (cap bytes, always
 * terminated) when the data does not decode or memory runs out.
 */
mni_draco_geometry *mni_draco_decode(const uint8_t *data, size_t size, char *msg, size_t cap);

void mni_draco_free(mni_draco_geometry *g);

mni_draco_counts mni_draco_get_counts(const mni_draco_geometry *g);

/* The attribute with unique id `id`; false when the data has none. */
bool mni_draco_attribute(const mni_draco_geometry *g, uint32_t id, mni_draco_attribute_info *out);

/* "UINT8", "FLOAT32", ... for a data_type. */
const char *mni_draco_type_name(uint32_t data_type);

/*
 * Copy attribute `id` into out: points x components values of the glTF
 * component `gltf_code` (5120 BYTE ... 5126 FLOAT), tightly packed (the
 * caller sized it from mni_draco_get_counts and checked components).  Values
 * are dequantised by the decoder; integer to float honours the attribute's
 * normalized flag, float to a normalized integer rounds (values outside
 * [0, 1] fail), integer to integer must fit.  false with a reason in msg
 * when a value does not convert.
 */
bool mni_draco_copy_attribute(const mni_draco_geometry *g, uint32_t id, uint32_t gltf_code,
                              uint32_t components, void *out, char *msg, size_t cap);

/*
 * Copy the faces' vertex indices (faces x 3) into out as little-endian
 * unsigned integers of index_size bytes (1, 2 or 4); false with a reason
 * when an index does not fit that size or is not below vertex_count (the
 * primitive's vertex count: the Draco point count when the Draco data holds
 * attributes, the uncompressed accessors' count when it holds none).
 */
bool mni_draco_copy_indices(const mni_draco_geometry *g, uint32_t index_size, uint32_t vertex_count, void *out, char *msg,
                            size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* MN_GLTF_DRACO_H */
