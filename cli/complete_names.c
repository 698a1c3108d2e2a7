/* complete_names.c: job and pod names for shell completion, listed from the cluster (see
 * complete_names.h): jobs from the labels of pods and batch Jobs, and the Argo Workflows. */
#include "complete_names.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "annotations.h"
#include "argo_discovery.h"
#include "cluster_view.h"
#include "grow.h"
#include "k8s_names.h"
#include "kutil.h"
#include "list.h"

#define NAMES_MAX 5000 /* candidates offered at most */
#define PAGE      500

typedef struct names {
    const char *prefix;
    size_t prefix_len;
    bool jobs; /* the job key of each item, else its name */
    char **v;
    size_t n, cap;
} names;

static int add_name(names *ns, const char *s, ds_err *err)
{
    if (s == NULL || strncmp(s, ns->prefix, ns->prefix_len) != 0 || ns->n >= NAMES_MAX)
        return 0;
    if (ns->n == ns->cap) {
        char **v = ds_grow(ns->v, &ns->cap, sizeof *v, 64);
        if (v == NULL)
            return ds_err_set(err, "out of memory");
        ns->v = v;
    }
    if ((ns->v[ns->n] = strdup(s)) == NULL)
        return ds_err_set(err, "out of memory");
    ns->n++;
    return 0;
}

static const char *label(const json_t *labels, const char *key)
{
    return json_string_value(json_object_get(labels, key));
}

static int collect(void *user, const json_t *item, ds_err *err)
{
    names *ns = user;
    const json_t *meta = json_object_get(item, "metadata");
    if (!ns->jobs)
        return add_name(ns, json_string_value(json_object_get(meta, "name")), err);
    const json_t *labels = json_object_get(meta, "labels");
    const char *used;
    return add_name(ns,
                    ds_job_label_value(label(labels, DS_LABEL_JOB),
                                       label(labels, DS_LABEL_ARGO_WORKFLOW), &used),
                    err);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* LIST the resource in namespace ns (with a label selector, or NULL) into out; 0 or -1. */
static int list_into(kube_client *c, const char *ns, const char *resource_prefix,
                     const char *resource, const char *selector, names *out, ds_err *err)
{
    char *sel = selector != NULL ? kutil_query_escape(selector) : NULL;
    if (selector != NULL && sel == NULL)
        return ds_err_set(err, "out of memory");
    char path[1024];
    int w = snprintf(path, sizeof path, "%s/namespaces/%s/%s%s%s", resource_prefix, ns, resource,
                     sel != NULL ? "?labelSelector=" : "", sel != NULL ? sel : "");
    free(sel);
    if (w < 0 || (size_t)w >= sizeof path)
        return ds_err_set(err, "namespace name too long");
    return kube_list_each(c, path, PAGE, collect, out, err);
}

int cli_complete_names(cli_name_kind kind, const cli_names_conn *conn, const char *prefix,
                       FILE *out)
{
    if (kind == CLI_NAMES_NONE)
        return 0;
    double timeout = 5;
    if (conn->timeout != NULL) {
        char *end;
        double t = strtod(conn->timeout, &end);
        if (end != conn->timeout && *end == '\0' && t > 0 && t <= 3600)
            timeout = t;
    }
    cli_view_opts o = {.kubeconfig = conn->kubeconfig,
                       .context = conn->context,
                       .ns = conn->ns,
                       .timeout_s = timeout};
    kube_client *c = NULL;
    char ns[254];
    ds_err err = {{0}};
    if (cli_client_open(&o, &c, ns, sizeof ns, &err) != 0)
        return -1;
    if (ds_check_dns_label(ns) != NULL) { /* not a namespace name: nothing to list */
        kube_client_free(c);
        return -1;
    }
    names nm = {.prefix = prefix, .prefix_len = strlen(prefix), .jobs = kind == CLI_NAMES_JOBS};
    int rc;
    if (kind == CLI_NAMES_PODS) {
        rc = list_into(c, ns, "/api/v1", "pods", NULL, &nm, &err);
    } else {
        /* Pods of a DAG job or an Argo workflow, and the task Jobs (suspended ones have none). */
        rc = list_into(c, ns, "/api/v1", "pods", DS_LABEL_JOB, &nm, &err);
        if (rc == 0)
            rc = list_into(c, ns, "/api/v1", "pods", DS_LABEL_ARGO_WORKFLOW, &nm, &err);
        if (rc == 0)
            rc = list_into(c, ns, "/apis/batch/v1", "jobs", DS_LABEL_JOB, &nm, &err);
        /* Argo Workflows by name (their pods may be gone after podGC), where served and listable:
         * completion never says why not. */
        bool wf = false;
        ds_err werr = {{0}};
        if (rc == 0 && kube_argo_workflows_served(c, &wf, &werr) == 0 && wf) {
            nm.jobs = false;
            if (list_into(c, ns, "/apis/argoproj.io/v1alpha1", "workflows", NULL, &nm, &werr) != 0)
                nm.jobs = true; /* the names listed so far stay offered */
        }
    }
    kube_client_free(c);
    if (rc == 0 && nm.n > 0) {
        qsort(nm.v, nm.n, sizeof *nm.v, cmp_str);
        for (size_t i = 0; i < nm.n; i++)
            if (i == 0 || strcmp(nm.v[i], nm.v[i - 1]) != 0)
                fprintf(out, "%s\n", nm.v[i]);
    }
    for (size_t i = 0; i < nm.n; i++)
        free(nm.v[i]);
    free(nm.v);
    return rc == 0 ? 0 : -1;
}
