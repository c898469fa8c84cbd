/*
 * marionette/core.h — status codes, errors, allocator hooks, SIMD levels.
 *
 * Every fallible marionette function returns an mn_status and, when given a
 * non-NULL mn_error*, fills it with the code, a message that names the
 * offending item, the JSON path (e.g. "meshes[0].primitives[1].attributes.POSITION"),
 * and a byte offset where one applies.  The library never prints and never exits.
 *
 * Allocation goes through mn_allocator.  A zeroed mn_allocator means
 * malloc/free.  Hooks live in the options of each call, never in a global.
 */
#ifndef MARIONETTE_CORE_H
#define MARIONETTE_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * MN_API marks every public function.  The library is compiled with hidden
 * visibility (its private mn_ helpers stay out of the shared library's
 * symbol table), so MN_API is what exports the public ones from
 * libmarionette.so.  For callers it expands to nothing.
 */
#if defined(MN_BUILDING_LIBRARY) && defined(__GNUC__)
#define MN_API __attribute__((visibility("default")))
#else
#define MN_API
#endif

/*
 * The one table of status codes.  X(NAME, default message).
 * MN_OK is 0; every other value is an error.  Tests assert on the code;
 * the wording of messages is free to improve.
 */
#define MN_STATUS_TABLE(X) \
    X(OK,                    "no error") \
    X(INVALID_ARGUMENT,      "invalid argument") \
    X(OUT_OF_MEMORY,         "out of memory") \
    X(IO,                    "input/output error") \
    X(OVERFLOW,              "size arithmetic overflows") \
    X(GLB_HEADER,            "GLB header is truncated") \
    X(GLB_MAGIC,             "GLB magic is not \"glTF\"") \
    X(GLB_VERSION,           "GLB version is not 2") \
    X(GLB_LENGTH,            "GLB declared length does not match the data") \
    X(GLB_CHUNK,             "GLB chunk runs past the end of the file") \
    X(GLB_FIRST_CHUNK,       "GLB first chunk is not JSON") \
    X(JSON_SYNTAX,           "JSON syntax error") \
    X(JSON_TYPE,             "JSON value has the wrong type") \
    X(MISSING_PROPERTY,      "required property is missing") \
    X(INVALID_VALUE,         "value is not one of the allowed values") \
    X(INDEX_RANGE,           "index is out of range") \
    X(BUFFER_VIEW_BOUNDS,    "buffer view runs past its buffer") \
    X(ACCESSOR_BOUNDS,       "accessor runs past its buffer view") \
    X(BASE64,                "invalid base64 data") \
    X(URI,                   "invalid or refused URI") \
    X(NOT_FINITE,            "number is not finite") \
    X(HIERARCHY,             "node hierarchy is not a forest") \
    X(SKEW,                  "matrix has skew and cannot be decomposed into TRS") \
    X(COUNT_MISMATCH,        "element counts do not match") \
    X(UNSUPPORTED_EXTENSION, "required extension is not supported") \
    X(MESHOPT,               "meshopt-compressed data fails to decode") \
    X(DRACO,                 "Draco-compressed data fails to decode") \
    X(NOT_RIGID,             "matrix is not a uniform scale times a rotation")

/* Status codes: MN_OK, MN_INVALID_ARGUMENT, ... */
typedef enum mn_status {
#define MN_STATUS_ENUM_(name, msg) MN_##name,
    MN_STATUS_TABLE(MN_STATUS_ENUM_)
#undef MN_STATUS_ENUM_
    MN_STATUS_COUNT
} mn_status;

/* Where and why something failed.  Filled by any function taking mn_error*. */
typedef struct mn_error {
    mn_status code;       /* MN_OK when nothing failed */
    char message[256];    /* human-readable, names the item: "accessors[3]: count 10 x stride 12 runs past bufferViews[1] (100 bytes)" */
    char path[128];       /* JSON path of the offending item, "" when none */
    int64_t offset;       /* byte offset in the input, -1 when none */
    int line, column;     /* 1-based position for JSON syntax errors, 0 otherwise */
} mn_error;

/* The constant name of a status ("MN_GLB_MAGIC"); "MN_UNKNOWN" when out of range. Never NULL. */
MN_API const char *mn_status_name(mn_status status);

/* The default message of a status ("GLB magic is not \"glTF\""). Never NULL. */
MN_API const char *mn_status_message(mn_status status);

/*
 * Allocator hooks.  All three NULL (a zeroed struct) means malloc/free.
 * alloc returns memory aligned for any standard type (as malloc does) or NULL.
 * free receives the size that was asked for, so counting allocators need no header.
 */
typedef struct mn_allocator {
    void *(*alloc)(void *user, size_t size);
    void (*free)(void *user, void *ptr, size_t size);
    void *user;
} mn_allocator;

/* "No index": the value of every absent uint32_t index into the model's arrays. */
#define MN_NONE UINT32_MAX

/* A read-only run of bytes. */
typedef struct mn_bytes {
    const uint8_t *data;
    size_t size;
} mn_bytes;

/*
 * SIMD levels: the instruction sets marionette's kernels are written for,
 * and the one way a caller picks a kernel or asks which runs (mn_skin_run_with,
 * mn_splat_skin_run, mn_splat_skinner_run, mn_head_set_simd).
 *
 * Every kernel family has the scalar reference, always built; each family's
 * header says which SIMD levels it also has.  Asked for a level, a family
 * runs its widest kernel that is not above that level and that both the CPU
 * and the build have: a level the CPU or the build lacks falls back to the
 * widest below it, down to the reference (a build with -DMN_NO_SIMD=ON has the
 * reference alone).  The x86-64 levels are ordered SCALAR < SSE2 < AVX2_FMA,
 * the AArch64 ones SCALAR < NEON; a level of the other architecture, any
 * value not listed here and MN_SIMD_BEST all mean the widest there is.  The
 * kernels of a family agree as its header says (within float rounding, some
 * bit for bit).
 */
typedef enum mn_simd_level {
    MN_SIMD_BEST = -1,    /* the widest the CPU and the build run */
    MN_SIMD_SCALAR = 0,   /* the plain C reference */
    MN_SIMD_SSE2,         /* x86-64 SSE2 (every x86-64 CPU has it) */
    MN_SIMD_AVX2_FMA,     /* x86-64 AVX2 and FMA, with the OS saving the 256-bit registers */
    MN_SIMD_NEON          /* AArch64 Advanced SIMD (every AArch64 CPU has it) */
} mn_simd_level;

/*
 * The widest level this CPU and this build run (never MN_SIMD_BEST): what
 * MN_SIMD_BEST means.  Cheap (the CPU is asked once, at load): call it freely.
 */
MN_API mn_simd_level mn_simd_detect(void);

/* Library version. */
#define MN_VERSION_MAJOR 0
#define MN_VERSION_MINOR 1
#define MN_VERSION_PATCH 0
#define MN_VERSION_STRING "0.1.0"

/* The version string of the library that is linked ("0.1.0"). */
MN_API const char *mn_version(void);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_CORE_H */
