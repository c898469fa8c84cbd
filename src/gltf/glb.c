/*
 * The GLB container (glTF 2.0 binary): a 12-byte header (magic "glTF",
 * version 2, total length) and chunks of (length, type, data).  The first
 * chunk must be JSON; a BIN chunk holds buffer 0; unknown chunk types are
 * skipped as the specification says.  Every length is checked against both
 * the bytes we have and the length the header declares, so a chunk can never
 * be read past either.
 */
#include "gltf/internal.h"

#include <stdio.h>
#include <string.h>

#define GLB_MAGIC      0x46546C67u /* "glTF" */
#define GLB_CHUNK_JSON 0x4E4F534Au /* "JSON" */
#define GLB_CHUNK_BIN  0x004E4942u /* "BIN\0" */
#define GLB_HEADER_SIZE 12u
#define GLB_CHUNK_HEADER_SIZE 8u

static uint32_t read_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* "JSON", "BIN" or the hex of an unknown type, for messages. */
static const char *chunk_name(uint32_t type, char buf[16])
{
    if (type == GLB_CHUNK_JSON)
        return "JSON";
    if (type == GLB_CHUNK_BIN)
        return "BIN";
    snprintf(buf, 16, "0x%08x", type);
    return buf;
}

mn_status mni_glb_parse(const uint8_t *data, size_t size, mn_bytes *json, mn_bytes *bin,
                        bool *has_bin, mn_error *err)
{
    *has_bin = false;
    memset(json, 0, sizeof *json);
    memset(bin, 0, sizeof *bin);
    if (size < GLB_HEADER_SIZE)
        return mni_error_set(err, MN_GLB_HEADER, "", (int64_t)size,
                             "the file is %zu bytes long, too short for the 12-byte GLB header",
                             size);
    uint32_t magic = read_u32le(data);
    if (magic != GLB_MAGIC)
        return mni_error_set(err, MN_GLB_MAGIC, "", 0,
                             "the first 4 bytes are 0x%08x, not the GLB magic \"glTF\" (0x%08x)",
                             magic, GLB_MAGIC);
    uint32_t version = read_u32le(data + 4);
    if (version != 2)
        return mni_error_set(err, MN_GLB_VERSION, "", 4,
                             "GLB version is %u; this reader reads version 2 (glTF 2.0)", version);
    uint32_t declared = read_u32le(data + 8);
    if (declared < GLB_HEADER_SIZE)
        return mni_error_set(err, MN_GLB_LENGTH, "", 8,
                             "the GLB header declares a total length of %u bytes, shorter than the header itself",
                             declared);

    /* Chunks may use neither more than the file has nor more than the header declares. */
    size_t limit = declared < size ? declared : size;
    const char *limit_why = declared < size ? "the GLB header's declared total length"
                                            : "the end of the data";
    bool have_json = false;
    size_t off = GLB_HEADER_SIZE;
    for (uint32_t index = 0; off < limit; index++) {
        char name_buf[16];
        if (limit - off < GLB_CHUNK_HEADER_SIZE)
            return mni_error_set(err, MN_GLB_CHUNK, "", (int64_t)off,
                                 "GLB chunk %u starts at byte %zu, but %s (byte %zu) leaves no room for its "
                                 "8-byte chunk header",
                                 index, off, limit_why, limit);
        uint32_t length = read_u32le(data + off);
        uint32_t type = read_u32le(data + off + 4);
        size_t start = off + GLB_CHUNK_HEADER_SIZE;
        if (length > limit - start)
            return mni_error_set(err, MN_GLB_CHUNK, "", (int64_t)off,
                                 "GLB chunk %u (%s) at byte %zu declares %u bytes of data, but %s leaves only %zu "
                                 "bytes after its header",
                                 index, chunk_name(type, name_buf), off, length, limit_why,
                                 limit - start);
        if (index == 0 && type != GLB_CHUNK_JSON)
            return mni_error_set(err, MN_GLB_FIRST_CHUNK, "", (int64_t)off,
                                 "the first GLB chunk is %s; a GLB must start with its JSON chunk",
                                 chunk_name(type, name_buf));
        size_t end = start + length;
        /* A padded chunk keeps the next one (and the BIN data in it) 4-byte aligned. */
        if (length % 4 != 0 && end < limit)
            return mni_error_set(err, MN_GLB_CHUNK, "", (int64_t)off,
                                 "GLB chunk %u (%s) at byte %zu has length %u, not a multiple of 4: "
                                 "chunks must be padded so the next one stays aligned",
                                 index, chunk_name(type, name_buf), off, length);
        if (index == 0) {
            json->data = data + start;
            json->size = length;
            have_json = true;
        } else if (type == GLB_CHUNK_BIN && !*has_bin) {
            bin->data = data + start;
            bin->size = length;
            *has_bin = true;
        }
        /* Other chunk types (and a second BIN) are skipped, as the specification says. */
        off = end;
    }
    if (declared != size)
        return mni_error_set(err, MN_GLB_LENGTH, "", (int64_t)size,
                             "the GLB header declares a total length of %u bytes, but the data is %zu bytes",
                             declared, size);
    if (!have_json)
        return mni_error_set(err, MN_GLB_FIRST_CHUNK, "", GLB_HEADER_SIZE,
                             "the GLB has no chunks; it must start with a JSON chunk");
    return MN_OK;
}
