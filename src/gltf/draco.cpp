/*
 * KHR_draco_mesh_compression's decoder: Debian's libdraco behind the C
 * interface of gltf/draco.h.  The only C++ in the library, kept to what
 * libdraco needs: every entry point catches every exception (std::bad_alloc
 * included) and turns it into a message, and nothing is handed out before
 * the reader has compared it with its accessors.  The decoder validates the
 * bitstream; this file checks again what it relies on (each point's value
 * index below the attribute's size, each face index below the vertex count),
 * so data that decodes oddly is refused rather than read out of bounds.
 */
#include "gltf/draco.h"

#include <draco/compression/decode.h>
#include <draco/mesh/mesh.h>
#include <draco/point_cloud/point_cloud.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <new>

struct mni_draco_geometry {
    std::unique_ptr<draco::PointCloud> cloud;
    const draco::Mesh *mesh; /* cloud as a mesh, NULL for a point cloud */
};

namespace {

void say(char *msg, size_t cap, const char *text)
{
    if (cap)
        std::snprintf(msg, cap, "%s", text);
}

template <typename T> draco::DataType type_of();
template <> draco::DataType type_of<int8_t>() { return draco::DT_INT8; }
template <> draco::DataType type_of<uint8_t>() { return draco::DT_UINT8; }
template <> draco::DataType type_of<int16_t>() { return draco::DT_INT16; }
template <> draco::DataType type_of<uint16_t>() { return draco::DT_UINT16; }
template <> draco::DataType type_of<uint32_t>() { return draco::DT_UINT32; }
template <> draco::DataType type_of<float>() { return draco::DT_FLOAT32; }

/* Copy one attribute as OutT: the point's value, through the point-to-value map. */
template <typename OutT>
bool copy_as(const draco::PointAttribute *a, uint32_t points, uint32_t components, void *out, char *msg,
             size_t cap)
{
    OutT *dst = static_cast<OutT *>(out);
    const size_t values = a->size();
    /* The common case, one value per point in point order and already of the accessor's type
       (floats dequantised by the decoder): one copy of the whole buffer. */
    const size_t row = (size_t)components * sizeof(OutT);
    const bool same = a->data_type() == type_of<OutT>() && a->byte_stride() == (int64_t)row && a->buffer() &&
                      a->byte_offset() >= 0 && a->buffer()->data_size() >= (size_t)a->byte_offset() + row * values;
    if (same && a->is_mapping_identity() && values >= points) {
        if (points)
            std::memcpy(dst, a->GetAddress(draco::AttributeValueIndex(0)), row * points);
        return true;
    }
    if (same) {   /* values shared between points (seams): one copy of a row per point */
        for (uint32_t i = 0; i < points; i++) {
            draco::AttributeValueIndex v = a->mapped_index(draco::PointIndex(i));
            if (v.value() >= values) {
                std::snprintf(msg, cap, "point %u maps to value %u of an attribute that holds %zu", i, v.value(),
                              values);
                return false;
            }
            std::memcpy(dst + (size_t)i * components, a->GetAddress(v), row);
        }
        return true;
    }
    for (uint32_t i = 0; i < points; i++) {
        draco::AttributeValueIndex v = a->mapped_index(draco::PointIndex(i));
        if (v.value() >= values) {
            std::snprintf(msg, cap, "point %u maps to value %u of an attribute that holds %zu", i, v.value(),
                          values);
            return false;
        }
        if (!a->ConvertValue<OutT>(v, static_cast<int8_t>(components), dst + (size_t)i * components)) {
            std::snprintf(msg, cap, "the value of point %u does not convert to the accessor's component type", i);
            return false;
        }
    }
    return true;
}

template <typename T>
bool copy_indices_as(const draco::Mesh *m, uint32_t points, void *out, char *msg, size_t cap)
{
    T *dst = static_cast<T *>(out);
    const uint32_t faces = m->num_faces();
    for (uint32_t f = 0; f < faces; f++) {
        const draco::Mesh::Face &face = m->face(draco::FaceIndex(f));
        for (int k = 0; k < 3; k++) {
            uint32_t v = face[k].value();
            if (v >= points || v > static_cast<uint32_t>(static_cast<T>(~static_cast<T>(0)))) {
                std::snprintf(msg, cap, "face %u refers to vertex %u, which %s", f, v,
                              v >= points ? "is not below the vertex count" : "does not fit the index type");
                return false;
            }
            dst[(size_t)f * 3 + k] = static_cast<T>(v);
        }
    }
    return true;
}

} // namespace

extern "C" mni_draco_geometry *mni_draco_decode(const uint8_t *data, size_t size, char *msg, size_t cap)
{
    try {
        draco::DecoderBuffer buffer;
        buffer.Init(reinterpret_cast<const char *>(data), size);
        draco::Decoder decoder;
        auto type = draco::Decoder::GetEncodedGeometryType(&buffer);
        if (!type.ok()) {
            std::snprintf(msg, cap, "not Draco data (%s)", type.status().error_msg());
            return nullptr;
        }
        std::unique_ptr<mni_draco_geometry> g(new mni_draco_geometry());
        if (type.value() == draco::TRIANGULAR_MESH) {
            auto decoded = decoder.DecodeMeshFromBuffer(&buffer);
            if (!decoded.ok()) {
                std::snprintf(msg, cap, "the Draco mesh does not decode (%s)", decoded.status().error_msg());
                return nullptr;
            }
            std::unique_ptr<draco::Mesh> mesh = std::move(decoded).value();
            g->mesh = mesh.get();
            g->cloud = std::move(mesh);
        } else if (type.value() == draco::POINT_CLOUD) {
            auto decoded = decoder.DecodePointCloudFromBuffer(&buffer);
            if (!decoded.ok()) {
                std::snprintf(msg, cap, "the Draco point cloud does not decode (%s)",
                              decoded.status().error_msg());
                return nullptr;
            }
            g->cloud = std::move(decoded).value();
            g->mesh = nullptr;
        } else {
            say(msg, cap, "the Draco data holds neither a mesh nor a point cloud");
            return nullptr;
        }
        if (!g->cloud) {
            say(msg, cap, "the Draco data decodes to nothing");
            return nullptr;
        }
        return g.release();
    } catch (const std::bad_alloc &) {
        say(msg, cap, "out of memory while decoding the Draco data");
    } catch (const std::exception &e) {
        std::snprintf(msg, cap, "the Draco decoder failed (%s)", e.what());
    } catch (...) {
        say(msg, cap, "the Draco decoder failed");
    }
    return nullptr;
}

extern "C" void mni_draco_free(mni_draco_geometry *g)
{
    delete g;
}

extern "C" mni_draco_counts mni_draco_get_counts(const mni_draco_geometry *g)
{
    mni_draco_counts c;
    c.points = g->cloud->num_points();
    c.faces = g->mesh ? g->mesh->num_faces() : 0;
    c.is_mesh = g->mesh != nullptr;
    return c;
}

extern "C" bool mni_draco_attribute(const mni_draco_geometry *g, uint32_t id, mni_draco_attribute_info *out)
{
    const draco::PointAttribute *a = g->cloud->GetAttributeByUniqueId(id);
    if (!a)
        return false;
    out->components = a->num_components();
    out->data_type = static_cast<uint32_t>(a->data_type());
    out->normalized = a->normalized();
    return true;
}

extern "C" const char *mni_draco_type_name(uint32_t t)
{
    static const char *const names[] = {"INVALID", "INT8",   "UINT8",   "INT16",   "UINT16", "INT32",
                                        "UINT32",  "INT64",  "UINT64",  "FLOAT32", "FLOAT64", "BOOL"};
    return t < sizeof names / sizeof names[0] ? names[t] : "an unknown type";
}

extern "C" bool mni_draco_copy_attribute(const mni_draco_geometry *g, uint32_t id, uint32_t gltf_code,
                                         uint32_t components, void *out, char *msg, size_t cap)
{
    try {
        const draco::PointAttribute *a = g->cloud->GetAttributeByUniqueId(id);
        const uint32_t points = g->cloud->num_points();
        if (!a || a->num_components() != components || components == 0 || components > 16) {
            say(msg, cap, "the attribute's components differ from the accessor's");
            return false;
        }
        switch (gltf_code) {
        case 5120: return copy_as<int8_t>(a, points, components, out, msg, cap);
        case 5121: return copy_as<uint8_t>(a, points, components, out, msg, cap);
        case 5122: return copy_as<int16_t>(a, points, components, out, msg, cap);
        case 5123: return copy_as<uint16_t>(a, points, components, out, msg, cap);
        case 5125: return copy_as<uint32_t>(a, points, components, out, msg, cap);
        case 5126: return copy_as<float>(a, points, components, out, msg, cap);
        default: say(msg, cap, "the accessor's component type is not one glTF defines"); return false;
        }
    } catch (...) {
        say(msg, cap, "the Draco attribute could not be read");
    }
    return false;
}

extern "C" bool mni_draco_copy_indices(const mni_draco_geometry *g, uint32_t index_size, uint32_t vertex_count, void *out, char *msg,
                                       size_t cap)
{
    try {
        if (!g->mesh) {
            say(msg, cap, "a point cloud has no faces");
            return false;
        }
        const uint32_t points = vertex_count;
        switch (index_size) {
        case 1: return copy_indices_as<uint8_t>(g->mesh, points, out, msg, cap);
        case 2: return copy_indices_as<uint16_t>(g->mesh, points, out, msg, cap);
        case 4: return copy_indices_as<uint32_t>(g->mesh, points, out, msg, cap);
        default: say(msg, cap, "indices are 1, 2 or 4 bytes"); return false;
        }
    } catch (...) {
        say(msg, cap, "the Draco faces could not be read");
    }
    return false;
}
