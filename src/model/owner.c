/*
 * The owner of a loaded model.  A model and its private part come from one
 * allocation; everything the model points at lives in the arena (a copy of
 * the input, decoded data: URIs, external files, converted and synthesized
 * data, the file mn_gltf_read_file read), except bytes a custom resolver
 * handed out, which are given back through its release callback.  One mn_model_free undoes it all.
 */
#include "model/model.h"
#include "io/io.h"

#include <string.h>

typedef struct model_holder {
    mn_model model;
    struct mn_model_private priv;
} model_holder;

mn_model *mni_model_create(const mn_allocator *allocator)
{
    model_holder *h = mni_alloc(allocator, sizeof *h);
    if (!h)
        return NULL;
    memset(h, 0, sizeof *h);
    mni_arena_init(&h->priv.arena, allocator);
    h->model.priv = &h->priv;
    h->model.scene = MN_NONE;
    return &h->model;
}

bool mni_model_keep_resolved(mn_model *model, const mn_resolver *resolver, mn_bytes bytes)
{
    struct mn_model_private *priv = model->priv;
    mn_resolved *node = mni_arena_alloc(&priv->arena, sizeof *node, _Alignof(mn_resolved));
    if (!node)
        return false;
    priv->resolver = *resolver;
    node->bytes = bytes;
    node->next = priv->resolved;
    priv->resolved = node;
    return true;
}

void mn_model_free(mn_model *model)
{
    if (!model)
        return;
    struct mn_model_private *priv = model->priv;
    for (mn_resolved *r = priv->resolved; r; r = r->next)
        if (priv->resolver.release)
            priv->resolver.release(priv->resolver.user, &r->bytes);
    /* model is the first member of its holder, so this is the holder's address. */
    mni_arena_release_holder(&priv->arena, (model_holder *)(void *)model, sizeof(model_holder));
}
