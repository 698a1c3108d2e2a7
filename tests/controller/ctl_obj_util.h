/* ctl_obj_util.h: decoded API objects for the controller's unit tests: an object from JSON text
 * through the kube client's own decoder, appended to a list the snapshot takes over. */
#ifndef DAGSCHED_CTL_OBJ_UTIL_H
#define DAGSCHED_CTL_OBJ_UTIL_H

#include <jansson.h>
#include <stdlib.h>

#include "cache.h"
#include "objects.h"

static inline const kube_meta *obj(kube_kind kind, const char *text)
{
    json_error_t jerr;
    json_t *j = json_loads(text, 0, &jerr);
    if (j == NULL)
        fail_msg("bad test JSON: %s", jerr.text);
    kube_meta *m = NULL;
    ds_err err = {{0}};
    if (kube_obj_decode(kind, j, NULL, &m, &err) != 0)
        fail_msg("decode: %s", err.msg);
    json_decref(j);
    return m;
}

static inline void add(kube_obj_list *l, const kube_meta *m)
{
    const kube_meta **items = realloc(l->items, (l->n + 1) * sizeof *items);
    assert_non_null(items);
    items[l->n++] = m;
    l->items = items;
}

#endif
