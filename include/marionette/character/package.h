/*
 * marionette/character/package.h — character packages: character.json (the
 * descriptor) validated, and every file it names read through a resolver,
 * its size and SHA-256 checked, with progress reported in bytes
 * (docs/formats.md, "character.json").
 *
 * What a load holds: the descriptor; the splats (character.ply) and their
 * bindings (bindings.bin) read (splat.h); the SOMA skeleton (skeleton.json,
 * its names checked against jointNames), the package's clips (clips.json)
 * and the shared clip pack (soma.h); the head pack (the one *.aosrig in
 * `files`, whose vertex count must be headVertexCount) read with the
 * aosrig reader; the face's fitted ARKit table (face.arkit) built into a
 * map against the head; the corrective index (corrective.h) with the
 * played corrections' five files each; the mouth list (mouth.h).
 *
 * What fails the load: the descriptor (not JSON, a rule below broken), any
 * `files` entry or the shared clip pack that cannot be read, whose size or
 * hash does not match, or that its reader refuses (the PLY, the bindings,
 * the skeleton, a clips file that is not a soma-clips file at all, the
 * head): the error names the file.  A bad clip inside a clips file is left
 * out and listed in that file's `dropped`, with its reason.  What is
 * dropped with a warning: an optional part (face.arkit, corrective/ with
 * its files, the mouth list) that is missing, unreadable, of the wrong size
 * or hash, or invalid, or whose entry in character.json is malformed; the
 * character loads without it.
 */
#ifndef MARIONETTE_CHARACTER_PACKAGE_H
#define MARIONETTE_CHARACTER_PACKAGE_H

#include "../head/aosrig.h"
#include "../head/arkit.h"
#include "../core.h"
#include "corrective.h"
#include "../io.h" /* mn_resolver */
#include "mouth.h"
#include "soma.h"
#include "splat.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One file the descriptor names, with what it says of it. */
typedef struct mn_character_file {
    const char *name;        /* the files key ("character.ply"), or the part ("sharedClips") */
    const char *src;         /* the path relative to character.json */
    char sha256[65];         /* lowercase hex, "" when the descriptor gives none */
    uint64_t bytes;          /* the stated size (0 when has_bytes is false) */
    bool has_bytes;
} mn_character_file;

/*
 * A part dropped, or something else the load wants said: the part's name,
 * the code its check returned (tests compare codes, not messages) and a
 * message.  The names: "face.arkit"; "corrective" (its entry in
 * character.json, or a package.files entry under corrective/, malformed),
 * "corrective/index.json" or "corrective/<file>" (the index or a
 * correction's file missing, mismatched or invalid); "mouth_hidden.bin".
 */
typedef struct mn_character_warning {
    char name[64];
    mn_status code;
    char message[256];
} mn_character_warning;

/* The optional parts: face.arkit, corrective/, the mouth list. */
#define MN_CHARACTER_PARTS 3u

/*
 * character.json, validated.  Rules: format "aosrig-splat";
 * version 2 with rig "aosrig-v2" (version 1, a rig.glb body, and any other
 * version are refused: "unsupported version N"); units "m"; splatCount a
 * positive integer; headVertexCount an integer ≥ 0; jointNames unique
 * strings (1..65535); bounds {center[3], radius ≥ 0}; plyToCharacter 12
 * numbers whose 3×3 is the identity; colorSpace "srgb" or "linear"
 * (absent: "srgb"); files name → {src, sha256 (64 hex digits), bytes?},
 * with character.ply, bindings.bin, skeleton.json and clips.json present
 * and at most one *.aosrig; every src a plain relative path (non-empty,
 * '/'-separated, no leading '/', no '\\' ':' '?' '#' '%' or control
 * characters, no empty, "." or ".." segment; sharedClips.src may begin with
 * "../" segments); clips strings; sharedClips {src, sha256, bytes?, format
 * "soma-clips"}; corrective {index, sha256?, bytes?}; face.arkit {src,
 * sha256, bytes?, ...} kept as JSON for the fitted-map builder; package
 * {bytes?, files?: [{path, bytes?}]}; `renderer` ignored.  bytes is an
 * integer 0..2^53.
 *
 * The optional parts' entries (character-formats.md §11): a malformed
 * entry for face.arkit (`face` or `face.arkit` not an object; src missing,
 * not a string or not a plain path; sha256 not 64 hex digits; bytes
 * negative or not an integer) or for corrective (not an object; index or
 * sha256 malformed, as for face.arkit), or a malformed package.files entry
 * whose path is mouth_hidden.bin or under corrective/, does not fail the
 * read: the part is dropped (has_face or has_corrective false, the entry
 * left out of package_files) and listed in `dropped`, which the loader
 * gives as warnings.  A malformed sharedClips or `files` entry, or any
 * other package.files entry, fails the read.  Semantic checks of a part
 * (face.arkit's version, channels and coefficients) are the loader's: they
 * drop the part there.
 */
typedef struct mn_character_descriptor {
    uint32_t version;                 /* 2 */
    const char *rig;                  /* "aosrig-v2" */
    const char *units;                /* "m" */
    const char *color_space;          /* "srgb" or "linear" */
    uint32_t splat_count;
    uint32_t head_vertex_count;
    const char *const *joint_names;
    uint32_t joint_count;
    float bounds_center[3];
    float bounds_radius;
    float ply_to_character[12];       /* row-major 3×4 */
    const mn_character_file *files;   /* in the descriptor's order */
    uint32_t file_count;
    const char *const *clip_names;    /* "clips", in order (none when absent) */
    uint32_t clip_count;
    bool has_shared_clips;
    mn_character_file shared_clips;   /* name "sharedClips" */
    bool has_corrective;
    mn_character_file corrective_index; /* name "corrective", src the index path */
    bool has_face;
    mn_character_file face_table;     /* name "face.arkit" */
    const char *face_json;            /* the face.arkit object as compact JSON */
    const mn_character_file *package_files; /* package.files: name = src = path, bytes */
    uint32_t package_file_count;
    /* Optional parts dropped for a malformed entry, in the order read (corrective, face.arkit,
       then package.files'); each named once, by "face.arkit", "corrective" or "mouth_hidden.bin" */
    const mn_character_warning *dropped;
    uint32_t dropped_count;
} mn_character_descriptor;

/*
 * Read and validate character.json (json, size bytes) into a new
 * descriptor (*out NULL on failure; free with mn_character_descriptor_free).
 * allocator may be NULL (malloc/free).  Errors: MN_JSON_SYNTAX (line and
 * column set), MN_JSON_TYPE, MN_MISSING_PROPERTY, MN_INVALID_VALUE (a
 * value outside the rules above, "unsupported version N"), MN_URI (a src
 * that is not a plain relative path), MN_NOT_FINITE, MN_OUT_OF_MEMORY
 * (also when it happens inside an optional part's entry); err->path names
 * the member ("files.bindings.bin.sha256").  An optional part's malformed
 * entry is no error: see `dropped` above.
 */
MN_API mn_status mn_character_descriptor_read(const void *json, size_t size,
                                              const mn_allocator *allocator,
                                              mn_character_descriptor **out, mn_error *err);

/* Free a descriptor.  NULL is allowed. */
MN_API void mn_character_descriptor_free(mn_character_descriptor *descriptor);

/* Progress: bytes read and checked so far, and the total the descriptor states. */
typedef void (*mn_character_progress_fn)(void *user, uint64_t loaded, uint64_t total);

typedef struct mn_character_load_options {
    mn_allocator allocator;       /* zero: malloc/free */
    mn_resolver resolver;         /* every file, character.json included, is read through it;
                                     zero (read == NULL): stdio, relative to base_dir, kept
                                     inside base_dir (root NULL) or resolver.root.  Without a
                                     root, sharedClips.src may begin with one "../" (the pack
                                     beside the packages): it is then kept inside the folder
                                     above base_dir; a custom resolver gets that name as is */
    mn_character_progress_fn progress;  /* NULL: none */
    void *progress_user;
    bool skip_shared_clips;       /* do not fetch the shared clip pack */
    bool skip_face;               /* do not fetch face.arkit */
    bool skip_corrective;         /* do not fetch corrective/ */
    bool skip_mouth;              /* do not fetch mouth_hidden.bin */
    /*
     * Shared clip packs read once across characters: the pack is acquired
     * from the cache by its resolved path (base_dir/src) and released by
     * mn_character_free; the host frees the cache once the last character
     * that used it is gone (releaseSharedClips).  NULL: the character reads
     * and owns its own copy.
     */
    mn_soma_clip_cache *clip_cache;
} mn_character_load_options;

typedef struct mn_character_private mn_character_private;

/* A loaded character.  Everything is owned by it; free with mn_character_free. */
typedef struct mn_character {
    const mn_character_descriptor *descriptor;
    const mn_bytes *file_data;        /* per descriptor file, in its order: the checked bytes */
    mn_splat_cloud splats;            /* character.ply */
    mn_splat_bindings bindings;       /* bindings.bin (indices checked against jointNames) */
    float ply_translation[3];         /* plyToCharacter's translation, for mn_splat_skin_job */
    mn_aosrig *head;                  /* the *.aosrig pack; NULL when the package has none */
    mn_arkit_map *face_map;           /* face.arkit built against the head; NULL when absent or dropped */
    mn_soma_skeleton *skeleton;       /* skeleton.json */
    mn_soma_clips *clips;             /* clips.json: kept clips, and dropped ones with reasons */
    const mn_soma_clips *shared_clips; /* the shared clip pack; NULL when absent or skipped
                                          (a package name wins: mn_soma_clips_lookup) */
    mn_corrective_index *corrective;  /* corrective/index.json; NULL when absent, skipped or dropped */
    /* the played corrections' files (points, pointsSide, bindings, side, fade), checked */
    mn_bytes corrective_files[MN_CORRECTIONS_PLAYED][MN_CORRECTIVE_FILE_COUNT];
    mn_mouth_hidden *mouth;           /* mouth_hidden.bin; NULL when absent, skipped or dropped */
    /* The checked bytes of those parts ({ NULL, 0 } when absent, skipped or dropped). */
    mn_bytes skeleton_json;
    mn_bytes clips_json;
    mn_bytes shared_clips_json;
    mn_bytes corrective_index_json;
    mn_bytes mouth_hidden;
    const mn_character_warning *warnings;
    uint32_t warning_count;
    uint64_t loaded_bytes;            /* the last progress figure */
    mn_character_private *priv_;
} mn_character;

/*
 * Load the package whose descriptor is base_dir/descriptor_name
 * ("character.json") through the resolver, in this order:
 * the descriptor, then `files` in the descriptor's order, the shared clip
 * pack, the face table, the corrective index (corrective/index.json unless
 * the descriptor names another) and the played corrections' files
 * (corrective/<file>, hash-checked where the index gives a sha256), the
 * mouth list.  A corrective index or mouth list that is not there and that
 * neither corrective nor package.files names is simply absent.  Progress
 * is called after each file (not the descriptor) is read and checked, with
 * the total the descriptor states (the sum of the stated sizes of the
 * files this load fetches; package.files gives the size of a file that
 * states none; the played corrections' files count with the sizes
 * package.files gives the corrective/ files), then once more with
 * (loaded, loaded) when the last call
 * did not already have loaded == total.
 *
 * On success *out is a new character (free with mn_character_free); on
 * failure *out is NULL and err names the file: MN_IO (the resolver could
 * not read it), MN_COUNT_MISMATCH (size ≠ bytes; splat counts), MN_INVALID_VALUE
 * (SHA-256 mismatch, "sha256 of X is ..., expected ..."), the descriptor's
 * errors, and the PLY's, bindings' and aosrig reader's errors with the
 * file named in err->path; MN_OUT_OF_MEMORY.
 */
MN_API mn_status mn_character_load(const char *base_dir, const char *descriptor_name,
                                   const mn_character_load_options *options,
                                   mn_character **out, mn_error *err);

/* Free a character and everything it owns.  NULL is allowed. */
MN_API void mn_character_free(mn_character *character);

/* The checked bytes of the descriptor file named `name`; NULL when there is none. */
MN_API const mn_bytes *mn_character_file_data(const mn_character *character, const char *name);

/*
 * The lowercase hex SHA-256 of data (65 bytes with the NUL), as the
 * loader checks it (libmd's SHA-256).
 */
MN_API void mn_sha256_hex(const void *data, size_t size, char out[65]);

#ifdef __cplusplus
}
#endif

#endif /* MARIONETTE_CHARACTER_PACKAGE_H */
