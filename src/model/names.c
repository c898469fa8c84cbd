/*
 * The names of the model's enum values: one table per enum, in enum order.
 * The public mn_*_name functions read them (`marionette info` prints what
 * they return), the glTF reader parses through them and the glTF writer
 * writes from them, so each name is spelled in this file only.
 *
 * Every name function returns "invalid" for a value outside its enum (and for
 * the enum's own *_INVALID), never NULL: a caller can print what it returns.
 */
#include "model/model.h"

#include <string.h>

const char *const mni_interpolation_names[MNI_INTERPOLATION_COUNT] = {"LINEAR", "STEP",
                                                                      "CUBICSPLINE"};
const char *const mni_anim_path_names[MNI_ANIM_PATH_COUNT] = {"translation", "rotation", "scale",
                                                              "weights", "pointer"};
const char *const mni_alpha_mode_names[MNI_ALPHA_MODE_COUNT] = {"OPAQUE", "MASK", "BLEND"};
const char *const mni_accessor_type_names[MNI_ACCESSOR_TYPE_COUNT] = {
    "SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"};

static const char *const primitive_mode_names[] = {
    "POINTS", "LINES", "LINE_LOOP", "LINE_STRIP", "TRIANGLES", "TRIANGLE_STRIP", "TRIANGLE_FAN"};

/* A component type: its short name, its glTF name and its glTF componentType code. */
typedef struct component_names {
    const char *name, *gltf;
    uint32_t code;
} component_names;

static const component_names components[] = {
    [MN_COMPONENT_I8] = {"i8", "BYTE", 5120},
    [MN_COMPONENT_U8] = {"u8", "UNSIGNED_BYTE", 5121},
    [MN_COMPONENT_I16] = {"i16", "SHORT", 5122},
    [MN_COMPONENT_U16] = {"u16", "UNSIGNED_SHORT", 5123},
    [MN_COMPONENT_U32] = {"u32", "UNSIGNED_INT", 5125},
    [MN_COMPONENT_F32] = {"f32", "FLOAT", 5126},
};

/* An attribute semantic: its glTF name, and whether a set number follows ("TEXCOORD_1"). */
static const struct {
    const char *name;
    bool numbered;
} semantics[] = {
    [MN_SEMANTIC_POSITION] = {"POSITION", false}, [MN_SEMANTIC_NORMAL] = {"NORMAL", false},
    [MN_SEMANTIC_TANGENT] = {"TANGENT", false},   [MN_SEMANTIC_TEXCOORD] = {"TEXCOORD", true},
    [MN_SEMANTIC_COLOR] = {"COLOR", true},        [MN_SEMANTIC_JOINTS] = {"JOINTS", true},
    [MN_SEMANTIC_WEIGHTS] = {"WEIGHTS", true},
};

const char *mn_interpolation_name(mn_interpolation interpolation)
{
    return mni_name_in(mni_interpolation_names, MNI_INTERPOLATION_COUNT, (unsigned)interpolation);
}

const char *mn_anim_path_name(mn_anim_path path)
{
    return mni_name_in(mni_anim_path_names, MNI_ANIM_PATH_COUNT, (unsigned)path);
}

const char *mn_alpha_mode_name(mn_alpha_mode mode)
{
    return mni_name_in(mni_alpha_mode_names, MNI_ALPHA_MODE_COUNT, (unsigned)mode);
}

const char *mn_light_type_name(mn_light_type type)
{
    static const char *const names[] = {"directional", "point", "spot"};
    return mni_name_in(names, MNI_COUNT(names), (unsigned)type);
}

const char *mn_accessor_type_name(mn_accessor_type type)
{
    /* the table starts at MN_TYPE_SCALAR; INVALID wraps round to a value past its end */
    return mni_name_in(mni_accessor_type_names, MNI_ACCESSOR_TYPE_COUNT, (unsigned)type - MN_TYPE_SCALAR);
}

const char *mn_primitive_mode_name(mn_primitive_mode mode)
{
    return mni_name_in(primitive_mode_names, MNI_COUNT(primitive_mode_names), (unsigned)mode);
}

/* The row of a component type, NULL outside the enum and for MN_COMPONENT_INVALID. */
static const component_names *component_row(mn_component component)
{
    unsigned c = (unsigned)component;
    return c < MNI_COUNT(components) && components[c].name ? &components[c] : NULL;
}

const char *mn_component_name(mn_component component)
{
    const component_names *row = component_row(component);
    return row ? row->name : "invalid";
}

const char *mni_component_gltf_name(mn_component component)
{
    const component_names *row = component_row(component);
    return row ? row->gltf : "invalid";
}

uint32_t mni_component_gltf_code(mn_component component)
{
    const component_names *row = component_row(component);
    return row ? row->code : 0;
}

mn_component mni_component_from_gltf_code(uint32_t code)
{
    for (size_t c = 0; c < MNI_COUNT(components); c++)
        if (components[c].name && components[c].code == code)
            return (mn_component)c;
    return MN_COMPONENT_INVALID;
}

const char *mni_semantic_name(mn_semantic semantic)
{
    if (semantic == MN_SEMANTIC_CUSTOM)
        return "custom";
    unsigned s = (unsigned)semantic;
    return s < MNI_COUNT(semantics) && semantics[s].name ? semantics[s].name : "invalid";
}

/* The set number after "NAME_": decimal digits without a leading zero (but "0"), at most UINT32_MAX. */
static bool parse_set(const char *digits, uint32_t *set)
{
    if (digits[0] == '\0' || (digits[0] == '0' && digits[1] != '\0'))
        return false;
    uint64_t v = 0;
    for (const char *p = digits; *p; p++) {
        if (*p < '0' || *p > '9' || v > UINT32_MAX / 10)
            return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (v > UINT32_MAX)
        return false;
    *set = (uint32_t)v;
    return true;
}

mn_semantic mni_semantic_parse(const char *name, uint32_t *set)
{
    *set = 0;
    for (size_t s = 0; s < MNI_COUNT(semantics); s++) {
        if (!semantics[s].name)
            continue;
        size_t n = strlen(semantics[s].name);
        if (strncmp(name, semantics[s].name, n) != 0)
            continue;
        if (!semantics[s].numbered)
            return name[n] == '\0' ? (mn_semantic)s : MN_SEMANTIC_INVALID;
        return name[n] == '_' && parse_set(name + n + 1, set) ? (mn_semantic)s : MN_SEMANTIC_INVALID;
    }
    return name[0] == '_' ? MN_SEMANTIC_CUSTOM : MN_SEMANTIC_INVALID;
}
