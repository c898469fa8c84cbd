/*
 * bench_draco.h — bench_load's Draco encoder (bench/draco_encode.cpp, built
 * with bench_load when the library has its Draco decoder): the generated
 * torus as one Draco mesh, for the Draco case of bench_load.
 */
#ifndef MN_BENCH_DRACO_H
#define MN_BENCH_DRACO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Quantisation bits the encoder is given (and the tolerance the checks allow). */
#define BENCH_DRACO_BITS_POSITION 14
#define BENCH_DRACO_BITS_NORMAL 10
#define BENCH_DRACO_BITS_TEXCOORD 12
#define BENCH_DRACO_BITS_GENERIC 12

/*
 * Encode `vertices` points (POSITION, NORMAL, TEXCOORD_0 floats, JOINTS_0 as
 * u16 and WEIGHTS_0 floats, tightly packed) and `index_count` u32 indices
 * with edgebreaker at the bits above.  Attribute unique ids are 0..4 in that
 * order.  Returns malloc'd bytes (*size set), NULL on failure.
 */
uint8_t *bench_draco_encode(const float *position, const float *normal, const float *texcoord,
                            const uint16_t *joints, const float *weights, uint32_t vertices,
                            const uint32_t *indices, uint32_t index_count, size_t *size);

#ifdef __cplusplus
}
#endif

#endif /* MN_BENCH_DRACO_H */
