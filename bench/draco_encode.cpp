/*
 * bench_load's Draco encoder: the generated torus into one Draco mesh
 * (bench_draco.h).  Encoding is not timed; only decoding is.
 */
#include "bench_draco.h"

#include <draco/compression/encode.h>
#include <draco/mesh/mesh.h>

#include <cstdlib>
#include <cstring>
#include <exception>

namespace {

int add(draco::Mesh &mesh, draco::GeometryAttribute::Type type, draco::DataType dt, int comps, size_t comp_size,
        const void *values, uint32_t vertices)
{
    draco::GeometryAttribute ga;
    ga.Init(type, nullptr, static_cast<int8_t>(comps), dt, false, static_cast<int64_t>(comps * comp_size), 0);
    int id = mesh.AddAttribute(ga, true, vertices);
    draco::PointAttribute *a = mesh.attribute(id);
    const uint8_t *p = static_cast<const uint8_t *>(values);
    for (uint32_t i = 0; i < vertices; i++)
        a->SetAttributeValue(draco::AttributeValueIndex(i), p + (size_t)i * comps * comp_size);
    return id;
}

} // namespace

extern "C" uint8_t *bench_draco_encode(const float *position, const float *normal, const float *texcoord,
                                       const uint16_t *joints, const float *weights, uint32_t vertices,
                                       const uint32_t *indices, uint32_t index_count, size_t *size)
{
    try {
        draco::Mesh mesh;
        mesh.set_num_points(vertices);
        mesh.SetNumFaces(index_count / 3);
        for (uint32_t f = 0; f < index_count / 3; f++) {
            draco::Mesh::Face face = {{draco::PointIndex(indices[3 * f]), draco::PointIndex(indices[3 * f + 1]),
                                       draco::PointIndex(indices[3 * f + 2])}};
            mesh.SetFace(draco::FaceIndex(f), face);
        }
        add(mesh, draco::GeometryAttribute::POSITION, draco::DT_FLOAT32, 3, 4, position, vertices);
        add(mesh, draco::GeometryAttribute::NORMAL, draco::DT_FLOAT32, 3, 4, normal, vertices);
        add(mesh, draco::GeometryAttribute::TEX_COORD, draco::DT_FLOAT32, 2, 4, texcoord, vertices);
        add(mesh, draco::GeometryAttribute::GENERIC, draco::DT_UINT16, 4, 2, joints, vertices);
        add(mesh, draco::GeometryAttribute::GENERIC, draco::DT_FLOAT32, 4, 4, weights, vertices);
        draco::Encoder encoder;
        encoder.SetAttributeQuantization(draco::GeometryAttribute::POSITION, BENCH_DRACO_BITS_POSITION);
        encoder.SetAttributeQuantization(draco::GeometryAttribute::NORMAL, BENCH_DRACO_BITS_NORMAL);
        encoder.SetAttributeQuantization(draco::GeometryAttribute::TEX_COORD, BENCH_DRACO_BITS_TEXCOORD);
        encoder.SetAttributeQuantization(draco::GeometryAttribute::GENERIC, BENCH_DRACO_BITS_GENERIC);
        encoder.SetSpeedOptions(5, 5);
        encoder.SetEncodingMethod(draco::MESH_EDGEBREAKER_ENCODING);
        draco::EncoderBuffer buffer;
        if (!encoder.EncodeMeshToBuffer(mesh, &buffer).ok())
            return nullptr;
        uint8_t *out = static_cast<uint8_t *>(std::malloc(buffer.size() ? buffer.size() : 1));
        if (!out)
            return nullptr;
        std::memcpy(out, buffer.data(), buffer.size());
        *size = buffer.size();
        return out;
    } catch (...) {
        return nullptr;
    }
}
