/*
 * interface.json (docs/formats.md) and the joint entries the exporter
 * mirrors into driven nodes' extras, printed by hand so that numbers keep
 * their authored look (a rest of 0.2 prints as 0.2, the shortest decimal
 * that reads back to the same float) and the same rig always gives the same
 * bytes.
 */
#include "voxel/export_internal.h"

#include <marionette/model.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- text ------------------------------------------------------------------------------------- */

static void put_n(mn_vx_text *t, const char *s, size_t n)
{
    if (t->cap > 0 && t->len < t->cap - 1) {
        size_t room = t->cap - 1 - t->len;
        memcpy(t->out + t->len, s, n < room ? n : room);
    }
    t->len += n;
    if (t->cap > 0)
        t->out[t->len < t->cap - 1 ? t->len : t->cap - 1] = '\0';
}

void mni_vx_put(mn_vx_text *t, const char *s)
{
    put_n(t, s, strlen(s));
}

void mni_vx_put_string(mn_vx_text *t, const char *s)
{
    put_n(t, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            put_n(t, esc, 2);
        } else if (*p < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", *p);
            put_n(t, esc, 6);
        } else {
            put_n(t, (const char *)p, 1);
        }
    }
    put_n(t, "\"", 1);
}

void mni_vx_put_float(mn_vx_text *t, float v)
{
    char buf[32];
    for (int precision = 1; precision <= 9; precision++) {
        snprintf(buf, sizeof buf, "%.*g", precision, (double)v);
        if (strtof(buf, NULL) == v)
            break;
    }
    mni_vx_put(t, buf);
}

void mni_vx_put_double(mn_vx_text *t, double v)
{
    char buf[40];
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(buf, sizeof buf, "%.*g", precision, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    mni_vx_put(t, buf);
}

/* ---- the entries ------------------------------------------------------------------------------- */

double mni_vx_scale(const mn_voxel_rig *rig, const mn_voxel_export_options *options)
{
    if (options && options->scale != 0.0f)
        return options->scale;
    return rig ? (double)rig->voxel_size : 1.0;
}

/* A limit in exported units: radians stay, voxels times the scale (as the node translations are). */
static float limit(const mn_voxel_joint *j, float v, double scale)
{
    return j->type == MN_VOXEL_TRANSLATION ? (float)((double)v * scale) : v;
}

void mni_vx_put_joint_entry(mn_vx_text *t, const mn_voxel_rig *rig, uint32_t joint, double scale)
{
    const mn_voxel_joint *j = &rig->joints[joint];
    char index[16];
    snprintf(index, sizeof index, "%u", j->part);
    mni_vx_put(t, "{\"name\": ");
    mni_vx_put_string(t, j->name);
    mni_vx_put(t, ", \"node\": ");
    mni_vx_put_string(t, rig->parts[j->part].name);
    mni_vx_put(t, ", \"node_index\": ");
    mni_vx_put(t, index);
    mni_vx_put(t, j->type == MN_VOXEL_ROTATION ? ", \"kind\": \"rotation\", \"axis\": ["
                                              : ", \"kind\": \"translation\", \"axis\": [");
    for (int k = 0; k < 3; k++) {
        if (k)
            mni_vx_put(t, ", ");
        mni_vx_put_float(t, j->axis[k]);
    }
    mni_vx_put(t, "], \"min\": ");
    mni_vx_put_float(t, limit(j, j->min, scale));
    mni_vx_put(t, ", \"max\": ");
    mni_vx_put_float(t, limit(j, j->max, scale));
    mni_vx_put(t, ", \"rest\": ");
    mni_vx_put_float(t, limit(j, j->rest, scale));
    mni_vx_put(t, "}");
}

bool mni_vx_part_has_caller_joints(const mn_voxel_rig *rig, uint32_t part)
{
    for (uint32_t j = 0; j < rig->joint_count; j++)
        if (rig->joints[j].part == part && rig->joints[j].drive == MN_VOXEL_DRIVE_CALLER)
            return true;
    return false;
}

bool mni_vx_is_socket(const mn_model *model, uint32_t part)
{
    if (part >= model->node_count || model->nodes[part].mesh != MN_NONE)
        return false;
    for (uint32_t s = 0; s < model->skin_count; s++)
        for (uint32_t k = 0; k < model->skins[s].joint_count; k++)
            if (model->skins[s].joints[k] == part)
                return false;
    return true;
}

/* ---- interface.json ------------------------------------------------------------------------------ */

size_t mn_voxel_export_interface(const mn_voxel_rig *rig, const mn_model *exported,
                                 const mn_voxel_export_options *options, char *out, size_t capacity)
{
    if (!rig)
        return 0;
    mn_vx_text t = {out, out ? capacity : 0, 0};
    if (t.cap > 0)
        t.out[0] = '\0';
    double scale = mni_vx_scale(rig, options);
    const char *model = options && options->model_name ? options->model_name : "model";
    mni_vx_put(&t, "{\n  \"format\": \"voxel-rig-interface\",\n  \"version\": 1,\n  \"model\": ");
    mni_vx_put_string(&t, model);
    mni_vx_put(&t, ",\n  \"scale\": ");
    mni_vx_put_float(&t, (float)scale);
    mni_vx_put(&t, ",\n  \"joints\": [");
    bool first = true;
    for (uint32_t j = 0; j < rig->joint_count; j++) {
        if (rig->joints[j].drive != MN_VOXEL_DRIVE_CALLER)
            continue;
        mni_vx_put(&t, first ? "\n    " : ",\n    ");
        mni_vx_put_joint_entry(&t, rig, j, scale);
        first = false;
    }
    mni_vx_put(&t, first ? "],\n  \"animations\": [" : "\n  ],\n  \"animations\": [");
    for (uint32_t a = 0; a < rig->animation_count; a++) {
        const mn_voxel_animation *anim = &rig->animations[a];
        mni_vx_put(&t, a ? ",\n    {\"name\": " : "\n    {\"name\": ");
        mni_vx_put_string(&t, anim->name);
        mni_vx_put(&t, anim->loop ? ", \"loop\": true" : ", \"loop\": false");
        mni_vx_put(&t, anim->auto_play ? ", \"autoPlay\": true, \"duration\": " : ", \"autoPlay\": false, \"duration\": ");
        mni_vx_put_double(&t, (anim->duration_ms > 0.0 ? anim->duration_ms : 0.0) / 1000.0);
        mni_vx_put(&t, "}");
    }
    mni_vx_put(&t, rig->animation_count ? "\n  ],\n  \"sockets\": [" : "],\n  \"sockets\": [");
    first = true;
    for (uint32_t p = 0; p < rig->part_count; p++) {
        if (!exported || !mni_vx_is_socket(exported, p))
            continue;
        mni_vx_put(&t, first ? "" : ", ");
        mni_vx_put_string(&t, rig->parts[p].name);
        first = false;
    }
    mni_vx_put(&t, "]\n}\n");
    return t.len;
}
