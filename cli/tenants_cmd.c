/* tenants_cmd.c: `kubectl dagsched get tenants` (see tenants_cmd.h). */
#include "tenants_cmd.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cluster_view.h"
#include "fairshare.h"
#include "json_out.h"
#include "tenant_view.h"
#include "term.h"

#define HELD_NAMES 3 /* job names in the table's last column before "(+N more)" */

/* A job's name as the row shows it: NS/NAME when tenants group namespaces (a label), else NAME. */
static void job_label(const cli_view *v, size_t job, char *buf, size_t size)
{
    const ds_job *j = job < v->snap.js.n_jobs ? &v->snap.js.jobs[job] : NULL;
    if (j == NULL)
        snprintf(buf, size, "?");
    else if (v->policy.policy.tenant_label[0] != '\0')
        snprintf(buf, size, "%s/%s", j->ns, j->name);
    else
        snprintf(buf, size, "%s", j->name);
}

/* Does row r hold namespace ns's tenant? */
static bool row_of_namespace(const cli_view *v, const cli_tenant_row *r, const char *ns)
{
    const char *key = v->policy.policy.tenant_label;
    const char *value = NULL;
    for (size_t i = 0; key[0] != '\0' && i < v->snap.n_ns; i++)
        if (strcmp(v->snap.ns[i].name, ns) == 0)
            value = ctl_kv_get(v->snap.ns[i].labels, v->snap.ns[i].n_labels, key);
    return strcmp(r->name, ds_tenant_name(key, ns, value)) == 0;
}

static json_t *res_json(const ds_res *r)
{
    json_t *o = json_object();
    for (int k = 0; o != NULL && k < DS_RES_N; k++)
        if (json_object_set_new(o, ds_res_name(k), json_integer(r->v[k])) != 0) {
            json_decref(o);
            return NULL;
        }
    return o;
}

static json_t *row_json(const cli_view *v, const cli_tenant_row *r)
{
    json_t *jobs = json_array();
    for (size_t i = 0; jobs != NULL && i < r->n_held_jobs; i++) {
        const ds_job *j = &v->snap.js.jobs[r->held_jobs[i]];
        if (json_array_append_new(
                jobs, json_pack("{s:s,s:s}", "namespace", j->ns, "name", j->name)) != 0) {
            json_decref(jobs);
            jobs = NULL;
        }
    }
    json_t *used = res_json(&r->used);
    if (jobs == NULL || used == NULL) {
        json_decref(jobs);
        json_decref(used);
        return NULL;
    }
    return json_pack("{s:s,s:f,s:o,s:f,s:o,s:f,s:b,s:o,s:{s:I,s:I,s:I},s:o}", "name", r->name,
                     "weight", r->weight, "cap", r->cap > 0 ? json_real(r->cap) : json_null(),
                     "dominantShare", r->share, "dominantResource",
                     r->dominant >= 0 ? json_string(ds_res_name(r->dominant)) : json_null(),
                     "fairShare", r->fair_share, "aboveFairShare", r->above, "used", used, "tasks",
                     "running", (json_int_t)r->running, "ready", (json_int_t)r->ready,
                     "heldForFairShare", (json_int_t)r->held, "jobsWaitingForFairness", jobs);
}

static int print_json(const cli_view *v, const cli_tenant_view *tv, const char *ns)
{
    json_t *items = json_array();
    for (size_t i = 0; items != NULL && i < tv->n; i++) {
        if (ns != NULL && !row_of_namespace(v, &tv->rows[i], ns))
            continue;
        if (json_array_append_new(items, row_json(v, &tv->rows[i])) != 0) {
            json_decref(items);
            items = NULL;
        }
    }
    json_t *cap = res_json(&tv->capacity);
    if (items == NULL || cap == NULL) {
        json_decref(items);
        json_decref(cap);
        return cli_print_json(NULL, 0);
    }
    const ds_policy *p = &v->policy.policy;
    return cli_print_json(json_pack("{s:s,s:s,s:{s:b,s:s},s:o,s:o}", "kind", "DagTenantList",
                                    "policy", v->policy.source, "fairness", "enabled",
                                    p->fairness_enabled, "tenantLabel", p->tenant_label, "capacity",
                                    cap, "items", items),
                          JSON_SORT_KEYS);
}

/* The held jobs of r, at most HELD_NAMES names then "(+N more)"; "-" for none. */
static void held_text(const cli_view *v, const cli_tenant_row *r, size_t max, char *buf,
                      size_t size)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < r->n_held_jobs && i < max && off < size; i++) {
        char name[320];
        job_label(v, r->held_jobs[i], name, sizeof name);
        int w = snprintf(buf + off, size - off, "%s%s", i ? ", " : "", name);
        off += w > 0 ? (size_t)w : 0;
    }
    if (r->n_held_jobs > max && off < size)
        snprintf(buf + off, size - off, " (+%zu more)", r->n_held_jobs - max);
    if (buf[0] == '\0')
        snprintf(buf, size, "-");
}

static void print_table(const cli_view *v, const cli_tenant_view *tv, const char *ns, bool wide)
{
    printf("%-24s %6s %5s %6s %10s %-5s %7s %5s %4s", "TENANT", "WEIGHT", "CAP", "SHARE",
           "FAIR-SHARE", "ABOVE", "RUNNING", "READY", "HELD");
    if (wide)
        printf(" %-18s %-34s", "DOMINANT", "USED");
    printf(" %s\n", "JOBS-WAITING-FOR-FAIRNESS");
    for (size_t i = 0; i < tv->n; i++) {
        const cli_tenant_row *r = &tv->rows[i];
        if (ns != NULL && !row_of_namespace(v, r, ns))
            continue;
        char cap[16] = "-", held[1024], line[1024];
        if (r->cap > 0)
            snprintf(cap, sizeof cap, "%.2f", r->cap);
        held_text(v, r, wide ? SIZE_MAX : HELD_NAMES, held, sizeof held);
        printf("%-24s %6g %5s %6.3f %10.3f %-5s %7zu %5zu %4zu", r->name, r->weight, cap, r->share,
               r->fair_share, r->above ? "yes" : "no", r->running, r->ready, r->held);
        if (wide) {
            char used[256];
            ds_res_format(&r->used, used, sizeof used);
            printf(" %-18s %-34s", r->dominant >= 0 ? ds_res_name(r->dominant) : "-",
                   used[0] ? used : "-");
        }
        printf(" %s\n", cli_oneline(held, line, sizeof line));
    }
}

int tenants_cmd_get(cli_flags *o)
{
    /* A tenant's share is of the whole cluster: -n only picks the tenant shown. */
    const char *show = o->v.all_namespaces ? NULL : o->v.ns;
    o->v.wide = true;
    cli_view v;
    if (cli_view_load_or_report(&o->v, &v) != 0)
        return 1;
    int rc = 1;
    cli_tenant_view tv = {0};
    ds_err err = {{0}};
    if (!v.wide)
        fprintf(stderr, "kubectl-dagsched: get tenants needs the pods of every namespace: %s\n",
                v.wide_note[0] ? v.wide_note : "they cannot be listed");
    else if (!v.nodes_listed)
        fprintf(stderr, "kubectl-dagsched: get tenants needs the nodes (the cluster's capacity), "
                        "which cannot be listed\n");
    else if (cli_tenant_view_build(v.snap.pod, v.snap.n_pod, v.snap.ns, v.snap.n_ns, v.snap.node,
                                   v.snap.n_node, &v.policy.policy, &tv, &err) != 0)
        fprintf(stderr, "kubectl-dagsched: %s\n", err.msg);
    else
        rc = o->out == CLI_OUT_JSON ? print_json(&v, &tv, show)
                                    : (print_table(&v, &tv, show, o->out == CLI_OUT_WIDE), 0);
    if (rc == 0 && o->out != CLI_OUT_JSON) {
        if (!v.policy.policy.fairness_enabled)
            fprintf(stderr,
                    "note: spec.fairness is off in %s: the release order does not use "
                    "these shares\n",
                    v.policy.source);
        if (v.policy.policy.tenant_label[0] != '\0' && !v.namespaces_listed)
            fprintf(stderr, "note: each namespace counted as a tenant of its own (%s)\n",
                    v.namespaces_note);
        if (v.policy_note[0] != '\0')
            fprintf(stderr, "note: %s\n", v.policy_note);
    }
    cli_tenant_view_free(&tv);
    cli_view_free(&v);
    return rc;
}
