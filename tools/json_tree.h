/*
 * Building a JSON document with jansson, as `info --json` does for each kind
 * of FILE (cmd_info.c, cmd_info_character.c, cmd_info_aosrig.c).  Building
 * stops at the first allocation failure: every helper takes NULL and passes
 * it on, so the caller checks the root once.  json_object_set_new and
 * json_array_append_new take ownership of the value even when they fail.
 */
#ifndef MN_TOOLS_JSON_TREE_H
#define MN_TOOLS_JSON_TREE_H

#include <jansson.h>

#include <stddef.h>

/* obj with key set to value (owned: freed when it cannot be set); on any failure obj is
   freed and NULL comes back.  NULL obj or value: a failure. */
json_t *cli_jput(json_t *obj, const char *key, json_t *value);

/* arr with value appended, owning and failing as cli_jput does. */
json_t *cli_jpush(json_t *arr, json_t *value);

/* n floats as an array of JSON reals, or NULL. */
json_t *cli_jfloats(const float *v, size_t n);

#endif /* MN_TOOLS_JSON_TREE_H */
