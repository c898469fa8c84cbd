// The public headers compile as C++ (extern "C", no C-only syntax) and link
// from a C++ program.  Exit status 0 means every check held.
#include <marionette/marionette.h>

#include <cstdio>
#include <cstring>

static int failures = 0;

static void check(bool ok, const char *what)
{
    if (!ok) {
        std::fprintf(stderr, "test_headers: FAILED: %s\n", what);
        failures++;
    }
}

int main()
{
    check(std::strcmp(mn_version(), MN_VERSION_STRING) == 0, "mn_version() == MN_VERSION_STRING");
    check(std::strcmp(mn_status_name(MN_OK), "MN_OK") == 0, "mn_status_name(MN_OK)");
    check(std::strcmp(mn_status_name(MN_GLB_MAGIC), "MN_GLB_MAGIC") == 0,
          "mn_status_name(MN_GLB_MAGIC)");
    check(std::strcmp(mn_status_name(MN_STATUS_COUNT), "MN_UNKNOWN") == 0,
          "mn_status_name out of range");
    check(mn_status_message(MN_OK)[0] != '\0', "mn_status_message(MN_OK)");

    // Aggregates initialise the way C callers write them.
    mn_gltf_options options = mn_gltf_options();
    check(options.resolver.read == nullptr && options.resolver.root == nullptr, "zeroed options");

    // The reader refuses garbage with a code, from C++ as from C.
    const unsigned char junk[12] = {0};
    mn_model *model = nullptr;
    mn_error err;
    mn_status st = mn_gltf_read_memory(junk, sizeof junk, &options, &model, &err);
    check(st == MN_GLB_MAGIC || st == MN_JSON_SYNTAX, "12 zero bytes are refused");
    check(model == nullptr, "no model on failure");
    mn_model_free(model);

    float m[16];
    mn_mat4_identity(m);
    check(m[0] == 1.0f && m[5] == 1.0f && m[1] == 0.0f, "mn_mat4_identity");

    return failures == 0 ? 0 : 1;
}
