/*
 * Test support: a whole character package written in code, with real
 * SHA-256s, for the runtime's tests, the command line's and bench_character.
 * Plain C (no cmocka): it aborts the process when a file cannot be written.
 *
 * The package (character.json and what it names), y up, facing +z, the
 * character's left on +x:
 *   - skeleton.json: Hips (1 m up) → Spine → Chest → neck_01 → neck_02 → head,
 *     the neck chain's rest worlds those of the synthetic head's joints (so the
 *     head sits on the body; with body_lacks_head_joint its "head" is "HeadBody"), LeftArm/RightArm → ForeArm → Hand hanging down
 *     from the chest, a twist helper on each forearm (fraction 0.5), then
 *     `joints − 14` extra joints in chains of eight under the hips;
 *   - clips.json: "idle" (a looping spine sway, 1 s), "raise" (the left arm
 *     lifted sideways from hanging to 170 degrees in 1 s, once), "nod" (the
 *     head nodding, 1 s);
 *   - character.ply and bindings.bin: `splats` splats near the joints they are
 *     bound to (two influences, 0.75 and 0.25), plyToCharacter a small lift;
 *   - head.aosrig: synthetic_head with a bind transform (unless no_head), its
 *     coefficient `lip_coeff` moving the upper lip vertex up and the lower down;
 *   - face.arkit (unless no_face or no_head): channels jawOpen (one unit of
 *     lip_coeff), mouthSmileLeft (coefficient 1), eyeLookOutLeft (gaze yaw 0.3);
 *   - corrective/ (unless no_corrective): one correction, its left drive on
 *     LeftArm → LeftForeArm and its right on RightArm → RightForeArm, both
 *     framed by Chest, rising from 60 to 120 degrees;
 *   - mouth_hidden.bin (unless no_mouth or no_head): the last `mouth_count`
 *     splats, kinds plug, inside, band in turn, on the two lip vertices.
 * The same options always give the same bytes.
 */
#ifndef MN_TEST_SYNTHETIC_CHARACTER_H
#define MN_TEST_SYNTHETIC_CHARACTER_H

#include "synthetic_head.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct synthetic_character_options {
    uint32_t joints;               /* SOMA joints, at least 14; 0 means 14 */
    uint32_t splats;               /* 0 means 512; at least 16 */
    synthetic_head_options head;   /* the head's (bind_transform is always set) */
    bool no_head, no_face, no_corrective, no_mouth;
    bool body_lacks_head_joint;    /* the skeleton's "head" is called "HeadBody": the pack's
                                      "head" joint then follows neck_02 by its rest */
} synthetic_character_options;

typedef struct synthetic_character_info {
    uint32_t joints, splats, head_vertices;
    uint32_t upper_lip, lower_lip; /* head vertices */
    uint32_t lip_coeff;            /* the expression coefficient that parts the lips */
    uint32_t mouth_first, mouth_count; /* the splat rows the mouth list names */
} synthetic_character_info;

/* Write the package into `dir` (which must exist); info (may be NULL) says what it holds. */
void synthetic_character_write(const char *dir, const synthetic_character_options *options,
                               synthetic_character_info *info);

#endif /* MN_TEST_SYNTHETIC_CHARACTER_H */
