/* Building JSON documents for `info --json` (json_tree.h). */
#include "json_tree.h"

json_t *cli_jput(json_t *obj, const char *key, json_t *value)
{
    if (!obj || !value || json_object_set_new(obj, key, value) != 0) {
        json_decref(obj);
        if (!obj)   /* otherwise json_object_set_new took it, failing or not */
            json_decref(value);
        return NULL;
    }
    return obj;
}

json_t *cli_jpush(json_t *arr, json_t *value)
{
    if (!arr || !value || json_array_append_new(arr, value) != 0) {
        json_decref(arr);
        if (!arr)
            json_decref(value);
        return NULL;
    }
    return arr;
}

json_t *cli_jfloats(const float *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_real((double)v[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}
