/* argo_discovery.c: asks the API server whether it serves Argo Workflows (see argo_discovery.h).
 */
#include "argo_discovery.h"

#include <jansson.h>
#include <string.h>

int kube_argo_workflows_served(kube_client *c, bool *served, ds_err *err)
{
    *served = false;
    kube_response resp = {0};
    json_t *doc = NULL;
    kube_request_opts ro = {.no_retry = true};
    int rc = kube_request_ex(c, &ro, "GET", "/apis/argoproj.io/v1alpha1", NULL, NULL, &resp, err);
    if (rc != 0) {
        long st = resp.status;
        kube_response_free(&resp);
        return st == 404 ? 0 : -1;
    }
    if (kube_response_json(&resp, "/apis/argoproj.io/v1alpha1", &doc, err) != 0) {
        kube_response_free(&resp);
        return -1;
    }
    kube_response_free(&resp);
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(doc, "resources"), i, r)
    {
        const char *name = json_string_value(json_object_get(r, "name"));
        if (name != NULL && strcmp(name, "workflows") == 0)
            *served = true;
    }
    json_decref(doc);
    return 0;
}

int kube_argo_workflows_served_wait(kube_client *c, double timeout_s, bool *served, ds_err *err)
{
    for (double waited = 0;; waited += 2.0) {
        if (kube_argo_workflows_served(c, served, err) == 0)
            return 0;
        if (waited >= timeout_s || kube_client_sleep(c, 2.0, NULL) != 0)
            return -1;
    }
}
