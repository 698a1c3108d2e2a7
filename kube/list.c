/* list.c: paginated LIST (see list.h). */
#include "list.h"

#include <stdlib.h>
#include <string.h>

#include "bytebuf.h"
#include "kutil.h"
#include "writes.h"

int kube_list_each(kube_client *c, const char *path, int page_size, kube_list_item_fn fn,
                   void *user, ds_err *err)
{
    if (page_size < 1 || page_size > 5000 || path == NULL || fn == NULL)
        return ds_err_set(err, "list: bad arguments");
    const char sep = strchr(path, '?') != NULL ? '&' : '?';
    char *cont = NULL;
    int rc = 0;
    do {
        ds_bytebuf url;
        ds_bytebuf_init(&url, 16384);
        char *esc = cont != NULL ? kutil_query_escape(cont) : NULL;
        if ((cont != NULL && esc == NULL) ||
            ds_bytebuf_printf(&url, "%s%climit=%d%s%s", path, sep, page_size,
                              esc != NULL ? "&continue=" : "", esc != NULL ? esc : "") != 0) {
            free(esc);
            ds_bytebuf_free(&url);
            rc = ds_err_set(err, "listing %s: out of memory", path);
            break;
        }
        free(esc);
        free(cont);
        cont = NULL;
        json_t *page = NULL;
        kube_response resp;
        ds_err e = {{0}};
        int grc = kube_get_json(c, url.data, &page, &resp, &e);
        kube_response_free(&resp);
        ds_bytebuf_free(&url);
        if (grc != 0) {
            rc = ds_err_set(err, "listing %s: %s", path, e.msg);
            break;
        }
        size_t i;
        json_t *item;
        json_array_foreach(json_object_get(page, "items"), i, item)
        {
            if (fn(user, item, err) != 0) {
                rc = -1;
                break;
            }
        }
        const char *next =
            json_string_value(json_object_get(json_object_get(page, "metadata"), "continue"));
        if (rc == 0 && next != NULL && next[0] != '\0' && (cont = kutil_strdup(next)) == NULL)
            rc = ds_err_set(err, "listing %s: out of memory", path);
        json_decref(page);
    } while (rc == 0 && cont != NULL);
    free(cont);
    return rc;
}

int kube_list_pods_once(kube_client *c, const kube_request_opts *ro, const char *ns,
                        const char *selector, int limit, kube_pod_fn fn, void *user, ds_err *err)
{
    if (ns == NULL || !kube_valid_name(ns) || selector == NULL || fn == NULL || limit < 1 ||
        limit > 5000)
        return ds_err_set(err, "listing pods: bad arguments");
    char *esc = kutil_query_escape(selector);
    if (esc == NULL)
        return ds_err_set(err, "listing pods of %s: out of memory", ns);
    ds_bytebuf path;
    ds_bytebuf_init(&path, 8192);
    int prc = ds_bytebuf_printf(&path, "/api/v1/namespaces/%s/pods?labelSelector=%s&limit=%d", ns,
                                esc, limit);
    free(esc);
    if (prc != 0) {
        ds_bytebuf_free(&path);
        return ds_err_set(err, "listing pods of %s: selector too long", ns);
    }
    kube_response resp;
    json_t *list = NULL;
    ds_err e = {{0}};
    int rc = kube_request_ex(c, ro, "GET", path.data, NULL, NULL, &resp, &e);
    if (rc == 0)
        rc = kube_response_json(&resp, path.data, &list, &e);
    kube_response_free(&resp);
    ds_bytebuf_free(&path);
    if (rc != 0)
        return ds_err_set(err, "listing pods of %s: %s", ns, e.msg);
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(list, "items"), i, item)
    {
        kube_meta *m = NULL;
        if (kube_obj_decode(KUBE_KIND_POD, item, NULL, &m, &e) != 0)
            continue;
        int stop = fn(user, (const kube_pod *)m);
        kube_obj_unref(m);
        if (stop != 0)
            break;
    }
    json_decref(list);
    return 0;
}
