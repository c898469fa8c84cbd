/*
 * Animations: each channel gets its sampler resolved into float arrays of
 * key times and values.  Tightly packed float accessors are used in place
 * (zero-copy); anything else (strided, or normalised integers as
 * KHR_mesh_quantization allows) is converted once per sampler.  A channel
 * whose target cannot be driven (no node, an unknown path, weights on a node
 * without morph targets) is dropped with a warning, as a runtime would
 * ignore it anyway.  Key times are checked as glTF requires (finite, the
 * first at 0 or later, strictly increasing) and key values must be finite,
 * once per accessor however many samplers share it.
 *
 * KHR_animation_pointer: a channel whose path is "pointer" names its target
 * by a JSON pointer (target.extensions.KHR_animation_pointer.pointer, and no
 * node).  The pointer is resolved against this model (model/pointer.c): a
 * pointer that names no property the library animates, an index past its
 * array, a property the model does not define, or an output accessor whose
 * type does not suit the property drops the channel with a warning naming
 * it.  A bool property (visible) takes unsigned bytes and STEP keys, as the
 * extension requires.
 */
#include "gltf/internal.h"

#include <math.h>
#include <string.h>

/* A sampler as read, with its float data filled in on first use. */
typedef struct anim_sampler {
    uint32_t input, output;
    mn_interpolation interpolation;
    const float *times, *values;
    bool converted;
} anim_sampler;

static mn_status read_interpolation(mn_gltf_reader *r, json_t *obj, mn_interpolation *out)
{
    int i = MN_INTERP_LINEAR;
    mn_status st = mni_json_enum(&r->json, obj, "interpolation", false, mni_interpolation_names,
                                 MNI_INTERPOLATION_COUNT, "an interpolation", &i);
    *out = (mn_interpolation)i;
    return st;
}

static mn_status read_samplers(mn_gltf_reader *r, json_t *anim, anim_sampler **out, uint32_t *count)
{
    mn_json *j = &r->json;
    json_t *arr;
    mn_status st;
    if ((st = mni_json_array_count(j, anim, "samplers", true, &arr, count)) != MN_OK)
        return st;
    anim_sampler *s = mni_gltf_alloc(r, *count ? *count : 1, sizeof *s, 16, true);
    if (!s)
        return MN_OUT_OF_MEMORY;
    size_t mark = mni_json_push_key(j, "samplers");
    for (uint32_t i = 0; i < *count; i++) {
        json_t *obj;
        size_t m2 = j->len;
        if ((st = mni_gltf_element(r, arr, i, &obj)) != MN_OK ||
            (st = mni_json_index(j, obj, "input", true, r->file_accessor_count, "accessors", &s[i].input)) != MN_OK ||
            (st = mni_json_index(j, obj, "output", true, r->file_accessor_count, "accessors", &s[i].output)) != MN_OK ||
            (st = read_interpolation(r, obj, &s[i].interpolation)) != MN_OK)
            return st;
        const mn_accessor *in = &r->model->accessors[s[i].input];
        if (in->type != MN_TYPE_SCALAR || in->component != MN_COMPONENT_F32)
            return mni_json_fail(j, MN_INVALID_VALUE, "input",
                                 "accessor %u holds the key times, so it must be SCALAR FLOAT", s[i].input);
        mni_json_pop(j, m2);
    }
    mni_json_pop(j, mark);
    *out = s;
    return MN_OK;
}

/* The output accessor suits the path: its type, and its components (core or quantized). */
static mn_status check_output(mn_gltf_reader *r, mn_anim_path path, uint32_t acc)
{
    const mn_accessor *a = &r->model->accessors[acc];
    static const mn_accessor_type types[] = {MN_TYPE_VEC3, MN_TYPE_VEC4, MN_TYPE_VEC3, MN_TYPE_SCALAR};
    if (a->type != types[path])
        return mni_json_fail(&r->json, MN_INVALID_VALUE, NULL,
                             "the output accessor %u of a %s channel must be %s", acc, mn_anim_path_name(path),
                             mn_accessor_type_name(types[path]));
    mn_component c = a->component;
    if (c == MN_COMPONENT_F32)
        return MN_OK;
    bool core = (path == MN_PATH_ROTATION || path == MN_PATH_WEIGHTS) && a->normalized &&
                c != MN_COMPONENT_U32;
    bool quantized = (path == MN_PATH_TRANSLATION || path == MN_PATH_SCALE) && c != MN_COMPONENT_U32;
    if (core || (quantized && r->uses_quantization))
        return MN_OK;
    return mni_json_fail(&r->json, MN_INVALID_VALUE, NULL,
                         "the output accessor %u of a %s channel holds %s integers, which glTF %s", acc,
                         mn_anim_path_name(path), a->normalized ? "normalized" : "plain",
                         quantized ? "allows only with KHR_mesh_quantization in extensionsUsed"
                                   : "does not allow here");
}

/*
 * A pointer channel's target and output (path at the channel's "target"):
 * *keep = false with a warning when the pointer cannot be driven.
 */
static mn_status read_pointer_target(mn_gltf_reader *r, json_t *target, const anim_sampler *s,
                                     mn_channel *ch, bool *keep)
{
    mn_json *j = &r->json;
    json_t *ext = NULL;
    const char *text = NULL;
    mn_status st;
    *keep = false;
    if (ch->node != MN_NONE)
        return mni_gltf_warn(r, MN_INVALID_VALUE, "node",
                             "a \"pointer\" channel must not name a node (KHR_animation_pointer); the "
                             "channel is ignored");
    if ((st = mni_gltf_extension(r, target, "KHR_animation_pointer", &ext)) != MN_OK)
        return st;
    if (!ext)
        return mni_gltf_warn(r, MN_MISSING_PROPERTY, "extensions",
                             "a \"pointer\" channel without extensions.KHR_animation_pointer; the "
                             "channel is ignored");
    size_t mark = mni_json_push_key(j, "extensions");
    mni_json_push_key(j, "KHR_animation_pointer");
    if ((st = mni_json_string(j, ext, "pointer", true, &text)) != MN_OK)
        return st;
    char why[128];
    st = mni_pointer_resolve(r->model, text, &ch->pointer, why, sizeof why);
    if (st != MN_OK)
        return mni_gltf_warn(r, st, "pointer", "the pointer \"%.96s\" cannot be animated: %s; the "
                             "channel is ignored", text, why);
    const mn_accessor *out = &r->model->accessors[s->output];
    mn_accessor_type type = mni_pointer_type(&ch->pointer);
    bool is_bool = mni_pointer_is_bool(ch->pointer.property);
    if (out->type != type)
        return mni_gltf_warn(r, MN_INVALID_VALUE, "pointer",
                             "the pointer \"%.96s\" takes %s values, but the output accessor %u is %s; "
                             "the channel is ignored",
                             text, mn_accessor_type_name(type), s->output, mn_accessor_type_name(out->type));
    if (is_bool && (out->component != MN_COMPONENT_U8 || s->interpolation != MN_INTERP_STEP))
        return mni_gltf_warn(r, MN_INVALID_VALUE, "pointer",
                             "the pointer \"%.96s\" is a bool, which takes unsigned bytes and STEP keys "
                             "(the output accessor %u holds %s, interpolated %s); the channel is ignored",
                             text, s->output, mn_component_name(out->component),
                             mn_interpolation_name(s->interpolation));
    mni_json_pop(j, mark);
    *keep = true;
    return MN_OK;
}

/* Index of the first non-finite of n floats, or n. */
static size_t first_not_finite(const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return i;
    return n;
}

/*
 * The path "animations[a].samplers[i].<key>" for a message about sampler i
 * (anim_mark: the path's length at "animations[a]").
 */
static void sampler_path(mn_gltf_reader *r, size_t anim_mark, uint32_t sampler_index, const char *key)
{
    mni_json_pop(&r->json, anim_mark);
    mni_json_push_key(&r->json, "samplers");
    mni_json_push_index(&r->json, sampler_index);
    mni_json_push_key(&r->json, key);
}

/*
 * glTF: "sampler input values are times: time[0] >= 0, strictly increasing"
 * (a MUST); a key twice at one time or a time before 0 is refused, naming the
 * key.  Values must be finite.  Each accessor is checked once, however many
 * samplers share it.
 */
static mn_status check_keys(mn_gltf_reader *r, size_t anim_mark, const anim_sampler *s,
                            uint32_t sampler_index, size_t value_count)
{
    const mn_accessor *in = &r->model->accessors[s->input];
    const float *t = s->times;
    if (!r->keys_checked &&
        !(r->keys_checked = mni_gltf_alloc(r, r->file_accessor_count, sizeof(uint8_t), 16, true)))
        return MN_OUT_OF_MEMORY;
    if (!(r->keys_checked[s->input] & MNI_KEYS_TIMES)) {
        size_t bad = first_not_finite(t, in->count);
        if (bad < in->count) {
            sampler_path(r, anim_mark, sampler_index, "input");
            return mni_json_fail(&r->json, MN_NOT_FINITE, NULL,
                                 "key time %zu of sampler %u (accessor %u) is not a finite number", bad,
                                 sampler_index, s->input);
        }
        if (in->count > 0 && t[0] < 0.0f) {
            sampler_path(r, anim_mark, sampler_index, "input");
            return mni_json_fail(&r->json, MN_INVALID_VALUE, NULL,
                                 "key 0 of sampler %u (accessor %u) is at %g s; glTF requires key times of 0 "
                                 "or more",
                                 sampler_index, s->input, (double)t[0]);
        }
        for (uint32_t k = 1; k < in->count; k++) {
            if (!(t[k] > t[k - 1])) {
                sampler_path(r, anim_mark, sampler_index, "input");
                return mni_json_fail(&r->json, MN_INVALID_VALUE, NULL,
                                     "key %u of sampler %u (accessor %u) is at %g s, not after key %u at %g s; "
                                     "glTF requires strictly increasing key times",
                                     k, sampler_index, s->input, (double)t[k], k - 1, (double)t[k - 1]);
            }
        }
        r->keys_checked[s->input] |= MNI_KEYS_TIMES;
    }
    if (!(r->keys_checked[s->output] & MNI_KEYS_VALUES)) {
        size_t bad = first_not_finite(s->values, value_count);
        if (bad < value_count) {
            sampler_path(r, anim_mark, sampler_index, "output");
            return mni_json_fail(&r->json, MN_NOT_FINITE, NULL,
                                 "value %zu of sampler %u (accessor %u) is not finite", bad, sampler_index,
                                 s->output);
        }
        r->keys_checked[s->output] |= MNI_KEYS_VALUES;
    }
    return MN_OK;
}

/* Fill the sampler's float arrays and check its keys (once), and its output count for this channel. */
static mn_status resolve_sampler(mn_gltf_reader *r, size_t anim_mark, anim_sampler *s,
                                 uint32_t sampler_index, uint32_t components, mn_channel *ch)
{
    mn_json *j = &r->json;
    const mn_accessor *in = &r->model->accessors[s->input];
    const mn_accessor *out = &r->model->accessors[s->output];
    bool many = ch->path == MN_PATH_WEIGHTS ||
                (ch->path == MN_PATH_POINTER && (ch->pointer.property == MN_PROP_NODE_WEIGHTS ||
                                                 ch->pointer.property == MN_PROP_MESH_WEIGHTS));
    size_t per_key = (size_t)(s->interpolation == MN_INTERP_CUBICSPLINE ? 3 : 1) * (many ? components : 1);
    size_t expected;
    if (!mni_checked_mul(in->count, per_key, &expected) || out->count != expected)
        return mni_json_fail(j, MN_COUNT_MISMATCH, "sampler",
                             "sampler %u has %u key time%s (accessor %u), so its output accessor %u must hold "
                             "%zu element%s for this %s %s channel, but it holds %u",
                             sampler_index, in->count, in->count == 1 ? "" : "s", s->input, s->output,
                             expected, expected == 1 ? "" : "s",
                             mn_interpolation_name(s->interpolation), mn_anim_path_name(ch->path),
                             out->count);
    if (!s->converted) {
        size_t n;
        mn_status st = mni_gltf_accessor_floats(r, s->input, &s->times, &n);
        if (st == MN_OK)
            st = mni_gltf_accessor_floats(r, s->output, &s->values, &n);
        if (st == MN_OK)
            st = check_keys(r, anim_mark, s, sampler_index, n);
        if (st != MN_OK)
            return st;
        s->converted = true;
    }
    ch->times = s->times;
    ch->values = s->values;
    ch->key_count = in->count;
    ch->components = components;
    ch->interpolation = s->interpolation;
    ch->sampler = sampler_index;
    return MN_OK;
}

/* Read channel obj into ch; *keep = false when it is dropped (with a warning). */
static mn_status read_channel(mn_gltf_reader *r, size_t anim_mark, json_t *obj, anim_sampler *samplers,
                              uint32_t sampler_count, mn_channel *ch, bool *keep)
{
    mn_json *j = &r->json;
    mn_model *m = r->model;
    json_t *target;
    const char *path = NULL;
    uint32_t sampler;
    mn_status st;
    *keep = false;
    if ((st = mni_json_index(j, obj, "sampler", true, sampler_count, "samplers of this animation",
                             &sampler)) != MN_OK ||
        (st = mni_json_object(j, obj, "target", true, &target)) != MN_OK)
        return st;
    size_t mark = mni_json_push_key(j, "target");
    if ((st = mni_json_index(j, target, "node", false, m->node_count, "nodes", &ch->node)) != MN_OK ||
        (st = mni_json_string_ref(j, target, "path", true, &path, NULL)) != MN_OK)
        return st;
    int p = -1;
    for (int k = 0; k < MNI_ANIM_PATH_COUNT; k++)
        if (strcmp(path, mni_anim_path_names[k]) == 0)
            p = k;
    if (p < 0)
        return mni_gltf_warn(r, MN_INVALID_VALUE, "path",
                             "\"%.32s\" is not an animation path this reader drives (translation, rotation, "
                             "scale, weights, pointer); the channel is ignored",
                             path);
    if (p == MN_PATH_POINTER) {
        ch->path = MN_PATH_POINTER;
        bool ok;
        if ((st = read_pointer_target(r, target, &samplers[sampler], ch, &ok)) != MN_OK || !ok)
            return st;
        mni_json_pop(j, mark);
        if ((st = resolve_sampler(r, anim_mark, &samplers[sampler], sampler, ch->pointer.components, ch)) != MN_OK)
            return st;
        *keep = true;
        return MN_OK;
    }
    if (ch->node == MN_NONE)
        return mni_gltf_warn(r, MN_MISSING_PROPERTY, "node",
                             "the channel targets no node; it is ignored");
    ch->path = (mn_anim_path)p;
    uint32_t components = p == MN_PATH_ROTATION ? 4 : 3;
    if (ch->path == MN_PATH_WEIGHTS) {
        const mn_node *n = &m->nodes[ch->node];
        components = n->mesh != MN_NONE ? m->meshes[n->mesh].weight_count : 0;
        if (components == 0)
            return mni_gltf_warn(r, MN_INVALID_VALUE, "node",
                                 "a weights channel targets node %u, which has no mesh with morph targets; "
                                 "the channel is ignored",
                                 ch->node);
    }
    mni_json_pop(j, mark);
    size_t m2 = mni_json_push_key(j, "sampler");
    st = check_output(r, ch->path, samplers[sampler].output);
    mni_json_pop(j, m2);
    if (st != MN_OK || (st = resolve_sampler(r, anim_mark, &samplers[sampler], sampler, components, ch)) != MN_OK)
        return st;
    *keep = true;
    return MN_OK;
}

/*
 * The bytes the samplers' keys take in the file: each buffer view their
 * accessors use that no earlier animation counted, marked with the
 * animation's number (so the animations' sum counts every view once).
 */
static mn_status stored_bytes(mn_gltf_reader *r, const anim_sampler *s, uint32_t count, uint32_t index,
                              size_t *total)
{
    const mn_model *m = r->model;
    *total = 0;
    if (!r->view_counted && m->buffer_view_count &&
        !(r->view_counted = mni_gltf_alloc(r, m->buffer_view_count, sizeof(uint32_t), 16, true)))
        return MN_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < 2 * count; i++) {
        uint32_t acc = i % 2 ? s[i / 2].output : s[i / 2].input;
        uint32_t view = m->accessors[acc].buffer_view;
        if (view == MN_NONE || view >= m->buffer_view_count || r->view_counted[view])
            continue;   /* counted once in the file, by the first animation to use it */
        r->view_counted[view] = index + 1;
        *total += m->buffer_views[view].stored_size;
    }
    return MN_OK;
}

static mn_status read_animation(mn_gltf_reader *r, json_t *obj, uint32_t index)
{
    mn_json *j = &r->json;
    mn_animation *anim = &r->model->animations[index];
    size_t anim_mark = j->len;
    anim_sampler *samplers = NULL;
    uint32_t sampler_count = 0, channel_count = 0;
    json_t *arr;
    mn_status st;
    if ((st = mni_json_string(j, obj, "name", false, &anim->name)) != MN_OK ||
        (st = mni_json_extras(j, obj, &anim->extras)) != MN_OK ||
        (st = read_samplers(r, obj, &samplers, &sampler_count)) != MN_OK ||
        (st = mni_json_array_count(j, obj, "channels", true, &arr, &channel_count)) != MN_OK)
        return st;
    anim->channels = mni_gltf_alloc(r, channel_count ? channel_count : 1, sizeof *anim->channels, 16, true);
    if (!anim->channels)
        return MN_OUT_OF_MEMORY;
    size_t mark = mni_json_push_key(j, "channels");
    for (uint32_t i = 0; i < channel_count; i++) {
        json_t *ch_obj;
        bool keep;
        size_t m2 = j->len;
        mn_channel *ch = &anim->channels[anim->channel_count];
        if ((st = mni_gltf_element(r, arr, i, &ch_obj)) != MN_OK ||
            (st = read_channel(r, anim_mark, ch_obj, samplers, sampler_count, ch, &keep)) != MN_OK)
            return st;
        if (keep)
            anim->channel_count++;
        else
            memset(ch, 0, sizeof *ch);
        mni_json_pop(j, m2);
    }
    mni_json_pop(j, mark);
    if ((st = stored_bytes(r, samplers, sampler_count, index, &anim->stored_bytes)) != MN_OK)
        return st;
    return mni_gltf_default_name(r, &anim->name, &anim->default_name, "anim", index);
}

mn_status mni_gltf_read_animations(mn_gltf_reader *r)
{
    return mni_gltf_read_array(r, "animations", r->model->animation_count, read_animation);
}
