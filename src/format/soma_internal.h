/*
 * Private: what the SOMA skeleton and clip readers share.
 */
#ifndef MN_FORMAT_SOMA_INTERNAL_H
#define MN_FORMAT_SOMA_INTERNAL_H

#include "core/internal.h"

#include <jansson.h>

/* Parse JSON bytes; a syntax error (a number overflowing a double included) fills err with line and column. */
mn_status mn_soma_json_load(const void *json, size_t size, json_t **root, mn_error *err);

/* Index of `name` in names[0..count), UINT32_MAX when absent (linear: load time only). */
uint32_t mn_soma_find_name(const char *const *names, uint32_t count, const char *name);

#endif /* MN_FORMAT_SOMA_INTERNAL_H */
