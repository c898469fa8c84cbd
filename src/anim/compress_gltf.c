/*
 * glTF animations compressed within the metric's bound (compress.h, "GLTF
 * OUTPUT"): keys reduced per channel, then quantised as mn_gltf_write's
 * channel encodings store them, the whole clip measured with the
 * hierarchy-aware metric on the values a reader decodes, and the
 * tolerances of the joints over the bound tightened along their chains
 * until none is.
 *
 * Per channel:
 *   - candidate keys: the source keys (STEP, LINEAR), or a CUBICSPLINE
 *     curve sampled 8 times a key interval, which becomes LINEAR;
 *   - a STEP channel keeps a key where its value moves by more than the
 *     tolerance; a LINEAR one keeps the fewest keys a greedy forward scan
 *     finds with every candidate within the tolerance of the line (slerp
 *     for rotations) between the keys kept either side;
 *   - bits: the fewest (rotations QUATERNION 8..16 then EXPONENTIAL 17..24,
 *     the rest EXPONENTIAL 6..24) whose decoded
 *     values stay within a quarter of the tolerance, and the fewest time
 *     bits (10..24) that keep the times increasing and whose shift, times
 *     the channel's speed, stays within a quarter of it.
 * Tolerances: rotation angle and relative scale k·bound / lever (the
 * joint's reach, mni_error_levers), translation k·bound; k starts at 1/2
 * for every joint.  Weights channels (not in the metric) keep 1e-4.
 */
#include "anim/compress_internal.h"

#include <marionette/gltf.h>

#include "anim/clip_internal.h"
#include "core/core.h"

#include <math.h>
#include <string.h>

#define CUBIC_SUBSTEPS 8u
#define MAX_ROUNDS 24u
#define WEIGHT_TOLERANCE 1e-4f

/* One channel's candidate keys: LINEAR or STEP, components floats a key. */
typedef struct dense {
    const float *times, *values;
    uint32_t count, components;
    mn_interpolation interpolation;   /* LINEAR or STEP */
} dense;

/* ---- candidates -------------------------------------------------------------------------------- */

static void hermite(const float *p0, const float *m0, const float *p1, const float *m1, float s, float dt,
                    uint32_t n, float *out)
{
    float s2 = s * s, s3 = s2 * s;
    float h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
    for (uint32_t i = 0; i < n; i++)
        out[i] = h00 * p0[i] + h10 * dt * m0[i] + h01 * p1[i] + h11 * dt * m1[i];
}

static void normalize4(float *q)
{
    float l = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (l > 0.0f)
        for (int i = 0; i < 4; i++)
            q[i] /= l;
}

/* The channel's candidate keys into d (the arena holds a CUBICSPLINE curve's samples). */
static bool dense_of(mn_arena *arena, const mn_channel *ch, dense *d)
{
    uint32_t n = ch->components;
    d->components = n;
    if (ch->interpolation != MN_INTERP_CUBICSPLINE || ch->key_count < 2) {
        d->times = ch->times;
        d->count = ch->key_count;
        d->interpolation = ch->interpolation == MN_INTERP_STEP ? MN_INTERP_STEP : MN_INTERP_LINEAR;
        if (ch->interpolation != MN_INTERP_CUBICSPLINE) {
            d->values = ch->values;
            return true;
        }
        float *v = mni_arena_alloc(arena, (size_t)n * ch->key_count * sizeof(float), 16);
        if (!v)
            return false;
        for (uint32_t k = 0; k < ch->key_count; k++)
            memcpy(v + (size_t)k * n, ch->values + ((size_t)3 * k + 1) * n, n * sizeof(float));
        d->values = v;
        return true;
    }
    uint32_t count = (ch->key_count - 1) * CUBIC_SUBSTEPS + 1;
    float *t = mni_arena_alloc(arena, (size_t)count * sizeof(float), 16);
    float *v = mni_arena_alloc(arena, (size_t)count * n * sizeof(float), 16);
    if (!t || !v)
        return false;
    for (uint32_t k = 0; k + 1 < ch->key_count; k++) {
        const float *a = ch->values + (size_t)3 * k * n, *b = ch->values + (size_t)3 * (k + 1) * n;
        float dt = ch->times[k + 1] - ch->times[k];
        for (uint32_t s = 0; s < CUBIC_SUBSTEPS; s++) {
            uint32_t i = k * CUBIC_SUBSTEPS + s;
            float f = (float)s / (float)CUBIC_SUBSTEPS;
            t[i] = s == 0 ? ch->times[k] : ch->times[k] + f * dt;
            hermite(a + n, a + 2 * n, b + n, b, f, dt, n, v + (size_t)i * n);
            if (ch->path == MN_PATH_ROTATION)
                normalize4(v + (size_t)i * n);
        }
    }
    t[count - 1] = ch->times[ch->key_count - 1];
    memcpy(v + (size_t)(count - 1) * n, ch->values + ((size_t)3 * (ch->key_count - 1) + 1) * n, n * sizeof(float));
    if (ch->path == MN_PATH_ROTATION)
        normalize4(v + (size_t)(count - 1) * n);
    d->times = t;
    d->values = v;
    d->count = count;
    d->interpolation = MN_INTERP_LINEAR;
    return true;
}

/* ---- distances between values ------------------------------------------------------------------ */

/* The angle between two rotations, in radians (either sign of a quaternion is the same rotation). */
static double angle_between(const float *a, const float *b)
{
    double d = 0, la = 0, lb = 0;
    for (int i = 0; i < 4; i++) {
        d += (double)a[i] * b[i];
        la += (double)a[i] * a[i];
        lb += (double)b[i] * b[i];
    }
    double c = fabs(d) / sqrt(la * lb > 0 ? la * lb : 1);
    return 2.0 * acos(c > 1.0 ? 1.0 : c);
}

/* How far value b is from value a in the channel's own units (angle, distance, relative scale). */
static double value_error(mn_anim_path path, const float *a, const float *b, uint32_t n)
{
    if (path == MN_PATH_ROTATION)
        return angle_between(a, b);
    double e = 0;
    for (uint32_t i = 0; i < n; i++) {
        double x = fabs((double)a[i] - b[i]);
        if (path == MN_PATH_SCALE)
            x /= fabs((double)a[i]) > 1e-3 ? fabs((double)a[i]) : 1e-3;
        if (path == MN_PATH_WEIGHTS || path == MN_PATH_SCALE)
            e = x > e ? x : e;
        else
            e += x * x;
    }
    return path == MN_PATH_TRANSLATION ? sqrt(e) : e;
}

/* Between a and b at s in [0, 1]: slerp (shortest arc) for rotations, lerp otherwise. */
static void interpolate(mn_anim_path path, const float *a, const float *b, float s, uint32_t n, float *out)
{
    if (path != MN_PATH_ROTATION) {
        for (uint32_t i = 0; i < n; i++)
            out[i] = a[i] + s * (b[i] - a[i]);
        return;
    }
    double d = 0;
    for (int i = 0; i < 4; i++)
        d += (double)a[i] * b[i];
    double sign = d < 0 ? -1.0 : 1.0, c = fabs(d), wa = 1.0 - s, wb = s;
    if (c < 0.9995) {
        double th = acos(c), sn = sin(th);
        wa = sin((1.0 - s) * th) / sn;
        wb = sin(s * th) / sn;
    }
    for (int i = 0; i < 4; i++)
        out[i] = (float)(wa * a[i] + sign * wb * b[i]);
    normalize4(out);
}

/* ---- key reduction --------------------------------------------------------------------------- */

/* Every candidate strictly between keys a and b within tol of the line from a to b. */
static bool span_fits(mn_anim_path path, const dense *d, uint32_t a, uint32_t b, double tol)
{
    uint32_t n = d->components;
    float v[64];
    const float *va = d->values + (size_t)a * n, *vb = d->values + (size_t)b * n;
    float dt = d->times[b] - d->times[a];
    for (uint32_t i = a + 1; i < b; i++) {
        interpolate(path, va, vb, (d->times[i] - d->times[a]) / dt, n, v);
        if (value_error(path, d->values + (size_t)i * n, v, n) > tol)
            return false;
    }
    return true;
}

/* The kept keys' indices into keep (ascending, first and last included); returns how many. */
static uint32_t reduce(mn_anim_path path, const dense *d, double tol, uint32_t *keep)
{
    uint32_t n = d->components, kept = 0;
    if (d->count == 0)
        return 0;
    bool constant = true;
    for (uint32_t i = 1; i < d->count && constant; i++)
        constant = value_error(path, d->values, d->values + (size_t)i * n, n) <= tol;
    keep[kept++] = 0;
    if (constant || d->count == 1)
        return kept;
    if (d->interpolation == MN_INTERP_STEP) {
        for (uint32_t i = 1; i < d->count; i++)
            if (value_error(path, d->values + (size_t)keep[kept - 1] * n, d->values + (size_t)i * n, n) > tol)
                keep[kept++] = i;
        return kept;
    }
    uint32_t a = 0;
    while (a + 1 < d->count) {
        uint32_t b = a + 1;
        while (b + 1 < d->count && span_fits(path, d, a, b + 1, tol))
            b++;
        keep[kept++] = b;
        a = b;
    }
    return kept;
}

/* ---- bits ------------------------------------------------------------------------------------------ */

static double max_error_of(mn_anim_path path, const float *a, const float *b, uint32_t count, uint32_t n)
{
    double e = 0;
    for (uint32_t k = 0; k < count; k++) {
        double x = value_error(path, a + (size_t)k * n, b + (size_t)k * n, n);
        e = x > e ? x : e;
    }
    return e;
}

/*
 * The fewest value bits whose decoded values (into out) stay within tol of
 * values: rotations QUATERNION 8..16, then EXPONENTIAL 17..24 (finer than
 * 16-bit components), the rest EXPONENTIAL 6..24.
 */
static uint32_t value_bits(mn_anim_path path, const float *values, uint32_t count, uint32_t n, double tol,
                           float *out)
{
    bool rotation = path == MN_PATH_ROTATION;
    bool scalars = path == MN_PATH_WEIGHTS;   /* written as SCALAR: each weight its own exponent */
    for (uint32_t b = rotation ? 8 : 6; b <= 24; b++) {
        bool quaternion = rotation && b <= 16;
        mn_gltf_encoded_keys(values, scalars ? count * n : count, scalars ? 1 : n, quaternion, b, out);
        double e = max_error_of(path, values, out, count, n);
        /* 16-bit components stay while within the whole tolerance: a view of its own costs more. */
        if (b == 24 || e <= tol || (rotation && b == 16 && e <= 4.0 * tol))
            return b;
    }
    return 24;
}

/* The fewest time bits that keep times increasing and whose shifts move values by at most tol; 0: none do. */
static uint32_t time_bits(mn_anim_path path, const float *t, const float *v, uint32_t count, uint32_t n, double tol,
                          float *out)
{
    for (uint32_t b = 10; b <= 24; b++) {
        mn_gltf_encoded_keys(t, count, 1, false, b, out);
        bool ok = true;
        for (uint32_t k = 0; k < count && ok; k++) {
            if (k > 0 && !(out[k] > out[k - 1])) {
                ok = false;
                break;
            }
            double speed = 0;   /* the faster of the key's two segments */
            for (int side = -1; side <= 0; side++) {
                uint32_t i = k + (uint32_t)side, j = i + 1;
                if (side == -1 && k == 0)
                    continue;
                if (j >= count)
                    continue;
                double s = value_error(path, v + (size_t)i * n, v + (size_t)j * n, n) / (double)(t[j] - t[i]);
                speed = s > speed ? s : speed;
            }
            ok = speed * fabs((double)out[k] - t[k]) <= tol;
        }
        if (ok)
            return b;
    }
    memcpy(out, t, (size_t)count * sizeof(float));
    return 0;
}

/* ---- one animation ----------------------------------------------------------------------------------- */

typedef struct anim_job {
    const mn_model *model;
    const mn_skeleton *sk;
    uint32_t animation;
    float bound;
    dense *dense;                /* per channel */
    uint32_t *joint;             /* per channel: its joint, MN_NONE for weights or outside */
    float *levers, *k, *joint_max;   /* per joint */
    uint32_t *keep;              /* scratch: the longest dense channel */
} anim_job;

/* A channel's keys as written (encoded: false) and as decoded (true), from the round's tolerances. */
typedef struct reduced {
    mn_channel written, decoded;
    mn_gltf_channel_encoding encoding;
} reduced;

static double tolerance_of(const anim_job *job, const mn_channel *ch, uint32_t c)
{
    if (ch->path == MN_PATH_WEIGHTS || job->joint[c] == MN_NONE)
        return WEIGHT_TOLERANCE;
    uint32_t j = job->joint[c];
    double t = (double)job->k[j] * job->bound;
    return ch->path == MN_PATH_TRANSLATION ? t : t / (double)job->levers[j];
}

static bool reduce_channel(mn_arena *arena, const anim_job *job, uint32_t c, reduced *r)
{
    const mn_channel *ch = &job->model->animations[job->animation].channels[c];
    const dense *d = &job->dense[c];
    uint32_t n = d->components;
    if (ch->path == MN_PATH_POINTER) {   /* KHR_animation_pointer: written as it is, lossless */
        r->written = r->decoded = *ch;
        r->encoding = (mn_gltf_channel_encoding){0, 0};
        return true;
    }
    double tol = tolerance_of(job, ch, c);
    uint32_t kept = reduce(ch->path, d, tol, job->keep);
    float *t = mni_arena_alloc(arena, (size_t)kept * sizeof(float), 16);
    float *v = mni_arena_alloc(arena, (size_t)kept * n * sizeof(float), 16);
    float *dt = mni_arena_alloc(arena, (size_t)kept * sizeof(float), 16);
    float *dv = mni_arena_alloc(arena, (size_t)kept * n * sizeof(float), 16);
    if (!t || !v || !dt || !dv)
        return false;
    for (uint32_t i = 0; i < kept; i++) {
        t[i] = d->times[job->keep[i]];
        memcpy(v + (size_t)i * n, d->values + (size_t)job->keep[i] * n, n * sizeof(float));
    }
    r->encoding.value_bits = (uint8_t)value_bits(ch->path, v, kept, n, 0.25 * tol, dv);
    r->encoding.time_bits = (uint8_t)time_bits(ch->path, t, v, kept, n, 0.25 * tol, dt);
    r->written = *ch;
    r->written.interpolation = d->interpolation;
    r->written.key_count = kept;
    r->written.times = t;
    r->written.values = v;
    r->decoded = r->written;
    r->decoded.times = dt;
    r->decoded.values = dv;
    return true;
}

/* The metric of the decoded channels against the reference (joint_max filled); a negative on failure. */
static float measure_round(const anim_job *job, mni_error_ref *ref, const reduced *r, mn_channel *scratch,
                           mn_error *err)
{
    const mn_animation *src = &job->model->animations[job->animation];
    for (uint32_t c = 0; c < src->channel_count; c++)
        scratch[c] = r[c].decoded;
    mn_model copy = *job->model;
    mn_animation anim = *src;
    anim.channels = scratch;
    copy.animations = &anim;
    copy.animation_count = 1;
    mn_clip *clip = NULL;
    if (mn_clip_from_gltf(&copy, 0, NULL, &clip, err) != MN_OK)
        return -1.0f;
    float e = mni_error_eval(ref, mni_error_sample_clip, clip, 1, job->joint_max, NULL, NULL, NULL);
    mn_clip_free(clip);
    return e;
}

/* Tighten every joint over the bound, and its ancestors, in proportion to how far over it is. */
static void tighten(const anim_job *job)
{
    const mn_skeleton *sk = job->sk;
    for (uint32_t j = 0; j < sk->joint_count; j++) {
        if (!(job->joint_max[j] > job->bound))
            continue;
        float f = 0.9f * job->bound / job->joint_max[j];
        f = f < 0.3f ? 0.3f : f > 0.8f ? 0.8f : f;
        for (int32_t a = (int32_t)j; a >= 0; a = sk->parents[a])
            job->k[a] *= f;
    }
}

/* ---- the result -------------------------------------------------------------------------------------- */

struct mn_gltf_compressed_private {
    mn_allocator allocator;
    mn_arena arena;
    mn_gltf_channel_encoding *encodings;   /* what the public const pointer shows */
};

void mn_gltf_compressed_free(mn_gltf_compressed *c)
{
    if (!c)
        return;
    mn_allocator a = c->priv_->allocator;
    mni_arena_release(&c->priv_->arena);
    mni_free(&a, c->priv_, sizeof *c->priv_);
    mni_free(&a, c, sizeof *c);
}

/* Compress animation `a` into out (channels and encodings from the result's arena). */
static mn_status compress_one(mn_gltf_compressed *res, const mn_skeleton *sk, uint32_t a, float bound, float shell,
                              uint32_t flat, mn_error *err)
{
    const mn_model *m = res->source;
    const mn_animation *src = &m->animations[a];
    mn_arena *keep_arena = &res->priv_->arena;
    mn_animation *dst = &res->model.animations[a];
    *dst = *src;
    if (src->channel_count == 0)
        return MN_OK;
    mn_clip *clip = NULL;
    mn_status st = mn_clip_from_gltf(m, a, NULL, &clip, err);
    if (st != MN_OK)
        return st;
    mni_error_ref ref;
    st = mni_error_ref_init(&ref, sk, clip, shell, &res->priv_->allocator, err);
    if (st != MN_OK) {
        mn_clip_free(clip);
        return st;
    }
    mn_arena work;
    mni_arena_init(&work, &res->priv_->allocator);
    uint32_t nc = src->channel_count, joints = sk->joint_count ? sk->joint_count : 1, longest = 1;
    anim_job job = {m, sk, a, bound, NULL, NULL, NULL, NULL, NULL, NULL};
    job.dense = mni_arena_alloc(keep_arena, nc * sizeof *job.dense, 16);
    job.joint = mni_arena_alloc(keep_arena, nc * sizeof *job.joint, 16);
    job.levers = mni_arena_alloc(keep_arena, joints * sizeof(float), 16);
    job.k = mni_arena_alloc(keep_arena, joints * sizeof(float), 16);
    job.joint_max = mni_arena_calloc(keep_arena, joints, sizeof(float), 16);
    reduced *best = mni_arena_alloc(keep_arena, nc * sizeof *best, 16);
    mn_channel *scratch = mni_arena_alloc(keep_arena, nc * sizeof *scratch, 16);
    bool ok = job.dense && job.joint && job.levers && job.k && job.joint_max && best && scratch;
    for (uint32_t c = 0; c < nc; c++)
        if (src->channels[c].components > 64 || src->channels[c].components == 0) {
            st = mni_fail(err, MN_INVALID_ARGUMENT, "animations[%u].channels[%u]: %u components a key (at most 64)",
                          a, c, src->channels[c].components);
            goto done;
        }
    for (uint32_t c = 0; ok && c < nc; c++) {
        const mn_channel *ch = &src->channels[c];
        ok = dense_of(keep_arena, ch, &job.dense[c]);
        job.joint[c] = ch->path != MN_PATH_WEIGHTS && ch->node < sk->node_count ? sk->joint_of_node[ch->node] : MN_NONE;
        longest = ok && job.dense[c].count > longest ? job.dense[c].count : longest;
    }
    ok = ok && (job.keep = mni_arena_alloc(keep_arena, longest * sizeof(uint32_t), 16)) != NULL;
    if (!ok) {
        st = mni_oom(err, "compressing animation %u", a);
        goto done;
    }
    mni_error_levers(&ref, clip, job.levers);
    for (uint32_t j = 0; j < joints; j++)
        job.k[j] = 0.5f;
    float e = INFINITY;
    for (uint32_t round = 0; round < MAX_ROUNDS; round++) {
        mni_arena_release(&work);
        mni_arena_init(&work, &res->priv_->allocator);
        for (uint32_t c = 0; c < nc; c++)
            if (!reduce_channel(&work, &job, c, &best[c])) {
                st = mni_oom(err, "compressing animation %u", a);
                goto done;
            }
        e = measure_round(&job, &ref, best, scratch, err);
        if (e < 0.0f) {
            st = err ? err->code : MN_INVALID_ARGUMENT;
            goto done;
        }
        if (e <= bound)
            break;
        tighten(&job);
    }
    mn_channel *channels = mni_arena_alloc(keep_arena, nc * sizeof *channels, 16);
    if (!channels) {
        st = mni_oom(err, "compressing animation %u", a);
        goto done;
    }
    for (uint32_t c = 0; c < nc; c++) {
        if (e > bound) {   /* no round met the bound: the source keys, lossless */
            channels[c] = src->channels[c];
            res->priv_->encodings[flat + c] = (mn_gltf_channel_encoding){0, 0};
            continue;
        }
        const mn_channel *w = &best[c].written;
        uint32_t n = w->components;
        float *t = mni_arena_alloc(keep_arena, (size_t)w->key_count * sizeof(float), 16);
        float *v = mni_arena_alloc(keep_arena, (size_t)w->key_count * n * sizeof(float), 16);
        if (!t || !v) {
            st = mni_oom(err, "compressing animation %u", a);
            goto done;
        }
        memcpy(t, w->times, (size_t)w->key_count * sizeof(float));
        memcpy(v, w->values, (size_t)w->key_count * n * sizeof(float));
        channels[c] = *w;
        channels[c].times = t;
        channels[c].values = v;
        channels[c].sampler = c;
        res->priv_->encodings[flat + c] = best[c].encoding;
    }
    dst->channels = channels;
    res->max_error = e > bound ? res->max_error : (e > res->max_error ? e : res->max_error);
    res->bound_met = res->bound_met && e <= bound;
done:
    mni_arena_release(&work);
    mni_error_ref_free(&ref);
    mn_clip_free(clip);
    return st;
}

mn_status mn_compress_gltf(const mn_model *model, const mn_skeleton *skeleton, const mn_compress_options *options,
                           mn_gltf_compressed **out, mn_error *err)
{
    if (out)
        *out = NULL;
    if (!model || !skeleton || !out)
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_compress_gltf: NULL model, skeleton or out");
    mn_compress_options o = options ? *options : (mn_compress_options){0};
    float bound = o.max_error == 0.0f ? MN_COMPRESS_ERROR_DEFAULT : o.max_error;
    float shell = o.shell == 0.0f ? MN_SHELL_DISTANCE_DEFAULT : o.shell;
    if (!(bound > 0.0f) || !isfinite(bound) || !(shell > 0.0f) || !isfinite(shell))
        return mni_fail(err, MN_INVALID_ARGUMENT, "mn_compress_gltf: max_error %g and shell %g must be > 0",
                        (double)bound, (double)shell);
    mn_gltf_compressed *res = mni_alloc(&o.allocator, sizeof *res);
    struct mn_gltf_compressed_private *priv = mni_alloc(&o.allocator, sizeof *priv);
    if (!res || !priv) {
        mni_free(&o.allocator, res, sizeof *res);
        mni_free(&o.allocator, priv, sizeof *priv);
        return mni_oom(err, "mn_compress_gltf");
    }
    memset(res, 0, sizeof *res);
    priv->allocator = o.allocator;
    mni_arena_init(&priv->arena, &o.allocator);
    res->priv_ = priv;
    res->source = model;
    res->model = *model;
    res->bound_met = true;
    size_t channels = 0;
    for (uint32_t a = 0; a < model->animation_count; a++)
        channels += model->animations[a].channel_count;
    res->encoding_count = (uint32_t)channels;
    res->model.animations = mni_arena_calloc(&priv->arena, model->animation_count + 1u, sizeof(mn_animation), 16);
    res->encodings = priv->encodings = mni_arena_calloc(&priv->arena, channels + 1u, sizeof *priv->encodings, 16);
    mn_status st = res->model.animations && res->encodings ? MN_OK : mni_oom(err, "mn_compress_gltf");
    uint32_t flat = 0;
    for (uint32_t a = 0; st == MN_OK && a < model->animation_count; a++) {
        st = compress_one(res, skeleton, a, bound, shell, flat, err);
        flat += model->animations[a].channel_count;
    }
    if (st != MN_OK) {
        mn_gltf_compressed_free(res);
        return st;
    }
    *out = res;
    if (err)
        mni_error_clear(err);
    return MN_OK;
}
