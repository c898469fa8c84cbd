/*
 * libFuzzer target for the splat readers: bytes → mn_splat_ply_read (the
 * 3DGS PLY) and mn_splat_bindings_read (bindings.bin) → check what they
 * promise → free.  A refused input must come back with an error code, a
 * terminated message and a zeroed result.  An accepted PLY must have its
 * count of every array, finite values and no zero rotation; accepted
 * bindings must have every index below the joint count and finite weights.
 * An accepted cloud with its bindings is then deformed once, so the kernels
 * see whatever the readers let through.  Any broken promise aborts.
 *
 *     make fuzz                    (each target for 30 s, corpus fuzz/corpus/ply)
 *     build/fuzz/fuzz_ply -dict=fuzz/dict/ply.dict CORPUS_DIR fuzz/corpus/ply
 */
#include <marionette/character/splat.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define JOINTS 8u

static void check(bool ok)
{
    if (!ok)
        abort();
}

static void check_refusal(mn_status st, const mn_error *err)
{
    check(st != MN_OK && err->code == st);
    check(memchr(err->message, '\0', sizeof err->message) != NULL);
}

static void check_cloud(const mn_splat_cloud *c)
{
    for (size_t i = 0; i < c->count; i++) {
        const float *q = c->rotations + 4 * i;
        check(q[0] != 0.0f || q[1] != 0.0f || q[2] != 0.0f || q[3] != 0.0f);
        for (int k = 0; k < 3; k++)
            check(isfinite(c->centres[3 * i + k]) && isfinite(c->scales[3 * i + k]) &&
                  isfinite(c->colours[3 * i + k]));
        check(isfinite(c->opacities[i]));
        for (size_t k = 0; k < c->rest_count; k++)
            check(isfinite(c->rest[i * c->rest_count + k]));
    }
}

/* Every splat bound to joint i % JOINTS with weight 1, deformed by a palette of translations. */
static void deform(const mn_splat_cloud *c)
{
    size_t n = c->count ? c->count : 1;
    uint16_t *joints = malloc(n * sizeof *joints);
    float *weights = malloc(n * sizeof *weights);
    float *out_c = malloc(n * 3 * sizeof(float)), *out_r = malloc(n * 4 * sizeof(float));
    check(joints && weights && out_c && out_r);
    float palette[16 * JOINTS];
    for (uint32_t j = 0; j < JOINTS; j++) {
        memset(palette + 16 * j, 0, 16 * sizeof(float));
        palette[16 * j] = palette[16 * j + 5] = palette[16 * j + 10] = palette[16 * j + 15] = 1;
        palette[16 * j + 12] = (float)j;
    }
    for (size_t i = 0; i < c->count; i++)
        joints[i] = (uint16_t)(i % JOINTS), weights[i] = 1.0f;
    mn_splat_skin_job job = {.count = c->count, .influences = 1, .joints = joints,
                             .weights = weights, .palette = palette, .palette_count = JOINTS,
                             .centres = c->centres, .rotations = c->rotations,
                             .out_centres = out_c, .out_rotations = out_r};
    check(mn_splat_skin_job_validate(&job, NULL) == MN_OK);
    check(mn_splat_skin_run(&job, MN_SIMD_BEST) == MN_OK);
    for (size_t i = 0; i < c->count; i++)
        check(out_c[3 * i] == c->centres[3 * i] + (float)(i % JOINTS) || !isfinite(out_c[3 * i]));
    free(joints), free(weights), free(out_c), free(out_r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mn_splat_cloud cloud;
    mn_error err;
    mn_status st = mn_splat_ply_read(data, size, NULL, &cloud, &err);
    if (st == MN_OK) {
        check_cloud(&cloud);
        if (cloud.count <= 4096)
            deform(&cloud);
        mn_splat_cloud_free(&cloud);
    } else {
        check_refusal(st, &err);
        check(cloud.count == 0 && cloud.centres == NULL);
    }

    mn_splat_bindings bind;
    mn_splat_bindings_read_options o = {.joint_count = JOINTS};
    st = mn_splat_bindings_read(data, size, &o, &bind, &err);
    if (st == MN_OK) {
        for (size_t i = 0; i < (size_t)bind.count * bind.influences; i++)
            check(bind.joints[i] < JOINTS && isfinite(bind.weights[i]));
        mn_splat_bindings_free(&bind);
    } else {
        check_refusal(st, &err);
        check(bind.joints == NULL);
    }
    return 0;
}
