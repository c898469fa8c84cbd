/*
 * Private: the OBJ reader with its text split into a given number of pieces,
 * for the tests and the fuzz target, which check that any split reads
 * exactly as the one pass does (mn_obj_read_memory splits only big texts).
 * Needs nothing but the public header, so the fuzz target can include it.
 *
 * Not installed.
 */
#ifndef MN_OBJ_PIECES_H
#define MN_OBJ_PIECES_H

#include <marionette/obj.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * mn_obj_read_memory with the text split into `pieces` pieces near equal
 * sizes (at line ends; fewer when the text has too few lines), parsed on
 * `threads` threads (1: one after another on the caller's thread), joined.
 * pieces == 1 is the one pass.  `options->threads` is not used.
 * *joined (when not NULL): how many pieces the result was joined from; 1
 * when it was read in one pass (asked for, too few lines, or the split read
 * gave up: an error in the text, a limit, memory).
 */
mn_status mni_obj_read_memory_pieces(const void *text, size_t size, const mn_obj_options *options,
                                     uint32_t pieces, uint32_t threads, mn_obj **out_obj,
                                     mn_error *err, uint32_t *joined);

#ifdef __cplusplus
}
#endif

#endif /* MN_OBJ_PIECES_H */
