/*
 * clips.json of a version-2 body (docs/formats.md):
 * each clip validated on its own — a bad one is left out with its reason,
 * never the whole file — and turned into an ordinary mn_clip so the mixer,
 * blend trees and state machine play it.
 */
#include <marionette/character/soma.h>

#include "io/io.h"
#include "character/soma_internal.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

struct mn_soma_clips_private {
    mn_arena arena;
    mni_names_sorted names;    /* the kept clips by name: mn_soma_clips_find is log n */
};

typedef struct clips_holder {
    mn_soma_clips pub;
    struct mn_soma_clips_private priv;
} clips_holder;

typedef struct clip_reader {
    mn_json *j;                     /* paths and strings into the clips' arena */
    mn_arena *scratch;              /* per-clip key buffers, released after each clip */
    const mn_soma_skeleton *sk;
    mn_allocator allocator;
    mn_soma_clip *kept;
    uint32_t kept_count;
    mni_names_sorted names;         /* every clip's name as the document holds it */
    uint8_t *name_kept;             /* per clip i: a kept clip has the name whose lowest index is i */
} clip_reader;

/* frames × width finite numbers from array member `key` into out. */
static mn_status read_keys(mn_json *j, json_t *arr, const char *key, uint32_t frames,
                           uint32_t width, float *out)
{
    size_t want = (size_t)frames * width;
    if (json_array_size(arr) != want)
        return mni_json_fail(j, MN_COUNT_MISMATCH, key, "%zu numbers, expected %zu (%u frames × %u)",
                             json_array_size(arr), want, frames, width);
    for (size_t i = 0; i < want; i++) {
        json_t *v = json_array_get(arr, i);
        if (!json_is_number(v)) {
            size_t mark = mni_json_push_key(j, key);
            mni_json_push_index(j, i);
            mn_status st = mni_json_fail(j, MN_JSON_TYPE, NULL, "expected a number, found %s",
                                         mni_json_type_name(v));
            mni_json_pop(j, mark);
            return st;
        }
        double d = json_number_value(v);
        if (!isfinite((float)d)) {
            size_t mark = mni_json_push_key(j, key);
            mni_json_push_index(j, i);
            mn_status st = mni_json_fail(j, MN_NOT_FINITE, NULL, "%g is not finite as a float", d);
            mni_json_pop(j, mark);
            return st;
        }
        out[i] = (float)d;
    }
    return MN_OK;
}

/* Normalise each quaternion of a bone's keys; a zero-length one is refused. */
static mn_status normalise_keys(mn_json *j, const char *key, uint32_t frames, float *q)
{
    for (uint32_t f = 0; f < frames; f++, q += 4) {
        double n = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                        (double)q[3] * q[3]);
        if (!(n > 0) || !isfinite(n))
            return mni_json_fail(j, MN_INVALID_VALUE, key, "frame %u: quaternion has zero length", f);
        for (int k = 0; k < 4; k++)
            q[k] = (float)(q[k] / n);
    }
    return MN_OK;
}

/* The header members of a clip: name, fps, frames, loop, locomotion, speed. */
static mn_status read_header(clip_reader *r, json_t *c, mn_soma_clip *out)
{
    mn_json *j = r->j;
    mn_status st = mni_json_string(j, c, "name", true, &out->name);
    if (st != MN_OK)
        return st;
    uint32_t first = mni_names_find(&r->names, out->name);
    if (first != MN_NONE && r->name_kept[first])
        return mni_json_fail(j, MN_INVALID_VALUE, "name", "clip name \"%s\" is already taken",
                             out->name);
    json_t *fps = json_object_get(c, "fps"), *frames = json_object_get(c, "frames");
    if (!fps || !frames)
        return mni_json_fail(j, MN_MISSING_PROPERTY, fps ? "frames" : "fps", "required property is missing");
    if (!json_is_number(fps))
        return mni_json_fail(j, MN_JSON_TYPE, "fps", "expected a number, found %s", mni_json_type_name(fps));
    double f = json_number_value(fps);
    if (!(f > 0) || !isfinite((float)f))
        return mni_json_fail(j, MN_INVALID_VALUE, "fps", "fps %g is not a positive finite number", f);
    if (!json_is_number(frames))
        return mni_json_fail(j, MN_JSON_TYPE, "frames", "expected a number, found %s",
                             mni_json_type_name(frames));
    double n = json_number_value(frames);
    if (!(n >= 1) || n != floor(n) || n > (double)(UINT32_MAX / 4))
        return mni_json_fail(j, MN_INVALID_VALUE, "frames", "frames %g is not a positive integer", n);
    out->fps = (float)f;
    out->frames = (uint32_t)n;
    out->duration = (float)((n - 1) / f);
    if ((st = mni_json_bool(j, c, "loop", false, &out->loop)) != MN_OK ||
        (st = mni_json_bool(j, c, "locomotion", false, &out->locomotion)) != MN_OK)
        return st;
    json_t *speed = json_object_get(c, "speed");
    if (speed && !json_is_null(speed))
        st = mni_json_float(j, c, "speed", true, &out->speed);
    return st;
}

/* Validate one clip and build its mn_clip; MN_OUT_OF_MEMORY is the only failure that is not a drop. */
static mn_status read_clip(clip_reader *r, json_t *c, mn_soma_clip *out)
{
    mn_json *j = r->j;
    const mn_soma_skeleton *sk = r->sk;
    if (!json_is_object(c))
        return mni_json_fail(j, MN_JSON_TYPE, NULL, "expected an object, found %s",
                             mni_json_type_name(c));
    mn_status st = read_header(r, c, out);
    if (st != MN_OK)
        return st;
    uint32_t frames = out->frames;
    json_t *bones, *root;
    if ((st = mni_json_object(j, c, "bones", false, &bones)) != MN_OK ||
        (st = mni_json_array(j, c, "root", true, &root)) != MN_OK)
        return st;
    /* Check root's length before allocating: frames is then bounded by the file's size. */
    if (json_array_size(root) != (size_t)frames * 3)
        return mni_json_fail(j, MN_COUNT_MISMATCH, "root", "%zu numbers, expected %zu (%u frames × 3)",
                             json_array_size(root), (size_t)frames * 3, frames);
    uint32_t bone_count = bones ? (uint32_t)json_object_size(bones) : 0;
    float *times = mni_arena_calloc(r->scratch, frames, sizeof(float), 16);
    float *root_keys = mni_arena_calloc(r->scratch, frames, 3 * sizeof(float), 16);
    mn_track *tracks = mni_arena_calloc(r->scratch, (size_t)bone_count + 1, sizeof *tracks,
                                        _Alignof(mn_track));
    if (!times || !root_keys || !tracks)
        return mni_json_oom(j, NULL, NULL);
    /* Frame f is at f / fps, computed in double so long clips keep their spacing. */
    for (uint32_t f = 0; f < frames; f++)
        times[f] = (float)((double)f / out->fps);
    if ((st = read_keys(j, root, "root", frames, 3, root_keys)) != MN_OK)
        return st;
    for (uint32_t f = 0; f < frames; f++)
        root_keys[3 * f + 1] += sk->ground_offset;
    uint32_t t = 0;
    const char *bone;
    json_t *keys;
    size_t mark = mni_json_push_key(j, "bones");
    json_object_foreach(bones, bone, keys) {
        uint32_t joint = mn_soma_skeleton_find(sk, bone);
        if (joint == UINT32_MAX)
            return mni_json_fail(j, MN_INDEX_RANGE, bone, "\"%s\" names no joint of the skeleton", bone);
        if (!json_is_array(keys))
            return mni_json_fail(j, MN_JSON_TYPE, bone, "expected an array, found %s",
                                 mni_json_type_name(keys));
        float *q = mni_arena_calloc(r->scratch, frames, 4 * sizeof(float), 16);
        if (!q)
            return mni_json_oom(j, NULL, NULL);
        if ((st = read_keys(j, keys, bone, frames, 4, q)) != MN_OK ||
            (st = normalise_keys(j, bone, frames, q)) != MN_OK)
            return st;
        tracks[t++] = (mn_track){joint, MN_PATH_ROTATION, MN_INTERP_LINEAR, frames, 4, times, q};
    }
    mni_json_pop(j, mark);
    tracks[t++] = (mn_track){sk->hips, MN_PATH_TRANSLATION, MN_INTERP_LINEAR, frames, 3, times,
                             root_keys};
    mn_clip_options opt = {.allocator = r->allocator};
    mn_error cerr;
    st = mn_clip_create(tracks, t, out->name, &opt, &out->clip, &cerr);
    if (st != MN_OK)
        return mni_json_fail(j, st, NULL, "%s", cerr.message);
    return MN_OK;
}

/*
 * Every clip's name sorted once (in `arena`, released after the clips), so
 * that "a name an earlier kept clip has" is one lookup and a flag, not a scan
 * of the kept clips: n log n for n clips.
 */
static mn_status sort_names(clip_reader *r, mn_arena *arena, json_t *clips, uint32_t n)
{
    const char **names = mni_arena_calloc(arena, n ? n : 1, sizeof *names, _Alignof(char *));
    r->name_kept = mni_arena_calloc(arena, n ? n : 1, 1, 1);
    if (!names || !r->name_kept)
        return mni_json_oom(r->j, NULL, NULL);
    for (uint32_t i = 0; i < n; i++) {
        json_t *name = json_object_get(json_array_get(clips, i), "name");
        names[i] = json_is_string(name) ? json_string_value(name) : NULL;
    }
    return mni_names_sort(&r->names, arena, names, n) ? MN_OK : mni_json_oom(r->j, NULL, NULL);
}

static mn_status read_clips(clip_reader *r, json_t *root, mn_soma_clips *out)
{
    mn_json *j = r->j;
    mn_status st = mni_soma_json_format(j, root, "clips.json", "soma-clips");
    if (st != MN_OK)
        return st;
    json_t *clips;
    uint32_t n;
    if ((st = mni_json_array_count(j, root, "clips", true, &clips, &n)) != MN_OK)
        return st;
    mn_soma_clip *kept = mni_arena_calloc(j->arena, n ? n : 1, sizeof *kept, _Alignof(mn_soma_clip));
    mn_soma_clip_drop *dropped = mni_arena_calloc(j->arena, n ? n : 1, sizeof *dropped,
                                                  _Alignof(mn_soma_clip_drop));
    if (!kept || !dropped)
        return mni_json_oom(j, NULL, NULL);
    r->kept = kept;
    out->clips = kept;
    out->dropped = dropped;
    mn_arena names, scratch;
    mni_arena_init(&names, &r->allocator);
    mni_arena_init(&scratch, &r->allocator);
    r->scratch = &scratch;
    st = sort_names(r, &names, clips, n);
    size_t mark = mni_json_push_key(j, "clips");
    for (uint32_t i = 0; st == MN_OK && i < n; i++) {
        size_t m2 = mni_json_push_index(j, i);
        mn_soma_clip c = {0};
        mn_error clip_err;
        mn_error *outer = j->err;
        j->err = &clip_err;
        mni_error_clear(&clip_err);
        st = read_clip(r, json_array_get(clips, i), &c);
        j->err = outer;
        mni_arena_release(&scratch);
        mni_json_pop(j, m2);
        if (st == MN_OK) {
            uint32_t first = mni_names_find(&r->names, c.name);
            if (first != MN_NONE)
                r->name_kept[first] = 1;
            kept[r->kept_count++] = c;
            out->clip_count = r->kept_count;
            continue;
        }
        if (st == MN_OUT_OF_MEMORY) {
            *j->err = clip_err;
            break;
        }
        mn_soma_clip_drop *d = &dropped[out->dropped_count];
        d->index = i;
        d->code = st;
        d->name = c.name ? c.name : "";
        d->message = mni_arena_strndup(j->arena, clip_err.message, strlen(clip_err.message));
        if (!d->message) {
            st = mni_json_oom(j, NULL, NULL);
            break;
        }
        out->dropped_count++;
        st = MN_OK;
    }
    mni_arena_release(&names);
    if (st != MN_OK)
        return st;
    mni_json_pop(j, mark);
    uint32_t kn = r->kept_count;
    const char **kept_names = mni_arena_calloc(j->arena, kn ? kn : 1, sizeof *kept_names, _Alignof(char *));
    if (!kept_names)
        return mni_json_oom(j, NULL, NULL);
    for (uint32_t k = 0; k < r->kept_count; k++)
        kept_names[k] = kept[k].name;
    if (!mni_names_sort(&out->priv_->names, j->arena, kept_names, kn))
        return mni_json_oom(j, NULL, NULL);
    return MN_OK;
}

static mn_status read_clips_holder(void *holder, mn_json *j, json_t *root, const void *ctx)
{
    clips_holder *h = holder;
    h->pub.priv_ = &h->priv;
    clip_reader r = {.j = j, .sk = ctx, .allocator = h->priv.arena.allocator};
    return read_clips(&r, root, &h->pub);
}

/* A failed read may have built some clips already: they are freed with the rest. */
static void release_clips_holder(void *holder)
{
    mn_soma_clips_free(&((clips_holder *)holder)->pub);
}

static const mn_soma_holder_kind clips_kind = {"clips.json", sizeof(clips_holder),
                                               offsetof(clips_holder, priv.arena),
                                               read_clips_holder, release_clips_holder};

mn_status mn_soma_clips_read(const void *json, size_t size, const mn_soma_skeleton *skeleton,
                             const mn_allocator *allocator, mn_soma_clips **out, mn_error *err)
{
    mn_error local;
    if (!err)
        err = &local;
    mni_error_clear(err);
    if (!out || !skeleton || (!json && size))
        return mni_fail(err, MN_INVALID_ARGUMENT, "clips.json: NULL argument");
    *out = NULL;
    void *h = NULL;
    mn_status st = mni_soma_holder_read(&clips_kind, json, size, allocator, skeleton, &h, err);
    if (st == MN_OK)
        *out = &((clips_holder *)h)->pub;
    return st;
}

void mn_soma_clips_free(mn_soma_clips *clips)
{
    if (!clips)
        return;
    for (uint32_t i = 0; i < clips->clip_count; i++)
        mn_clip_free(clips->clips[i].clip);
    clips_holder *h = (clips_holder *)clips;
    mni_arena_release_holder(&h->priv.arena, h, sizeof *h);
}

const mn_soma_clip *mn_soma_clips_find(const mn_soma_clips *clips, const char *name)
{
    if (!clips || !name)
        return NULL;
    const struct mn_soma_clips_private *p = clips->priv_;
    if (p && p->names.refs && p->names.count == clips->clip_count) {
        uint32_t i = mni_names_find(&p->names, name);
        return i != MN_NONE ? &clips->clips[i] : NULL;
    }
    for (uint32_t i = 0; i < clips->clip_count; i++)
        if (strcmp(clips->clips[i].name, name) == 0)
            return &clips->clips[i];
    return NULL;
}

const mn_soma_clip *mn_soma_clips_lookup(const mn_soma_clips *package, const mn_soma_clips *shared,
                                         const char *name)
{
    const mn_soma_clip *c = mn_soma_clips_find(package, name);
    return c ? c : mn_soma_clips_find(shared, name);
}

bool mn_soma_clips_shadowed(const mn_soma_clips *package, const mn_soma_clips *shared,
                            uint32_t index)
{
    if (!shared || index >= shared->clip_count)
        return false;
    return mn_soma_clips_find(package, shared->clips[index].name) != NULL;
}
