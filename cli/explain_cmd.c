/* explain_cmd.c: `kubectl dagsched explain pod NAME` (see explain_cmd.h). Reads what the
 * extender's informers read (every pod, node and namespace, the JobGraph ConfigMaps, Argo
 * Workflows where served, the policy), builds the extender's snapshot with ext_snapshot_build and
 * sends the extender's own handlers the requests kube-scheduler would send: filter with every
 * node, then prioritize with the nodes that passed. The answers are the extender's answers. */
#include "explain_cmd.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "argo_discovery.h"
#include "clock.h"
#include "term.h"
#include "cluster_view.h"
#include "handlers.h"
#include "json_out.h"
#include "kutil.h"
#include "view_flags.h"
#include "writes.h"

void explain_cmd_usage(FILE *f)
{
    fprintf(f, "  explain pod NAME [-n NS] [-o json]\n"
               "                                the extender's filter and score of the pod on\n"
               "                                every node, as kube-scheduler would get them\n");
}

/* Everything the extender's snapshot is built from. */
typedef struct inputs {
    kube_policy_state policy;
    char policy_note[256];
    kube_obj_list pods, nodes, namespaces, graphs, workflows;
} inputs;

static void inputs_free(inputs *in)
{
    kube_obj_list_free(&in->pods);
    kube_obj_list_free(&in->nodes);
    kube_obj_list_free(&in->namespaces);
    kube_obj_list_free(&in->graphs);
    kube_obj_list_free(&in->workflows);
}

static int read_inputs(kube_client *c, const cli_view_opts *o, inputs *in, ds_err *err)
{
    memset(in, 0, sizeof *in);
    cli_load_policy(c, o, &in->policy, in->policy_note, sizeof in->policy_note);
    const char *gpu[DS_POLICY_MAX_LIST];
    kube_decode_opts dec = {.gpu_names = gpu};
    dec.n_gpu_names = ds_name_list_ptrs(&in->policy.policy.gpu_resource_names, gpu);
    bool wf = false;
    ds_err werr = {{0}};
    if (kube_argo_workflows_served(c, &wf, &werr) != 0) {
        fprintf(stderr, "kubectl-dagsched: warning: %s (Argo Workflows not read)\n", werr.msg);
        wf = false;
    }
    if (cli_list_kind(c, KUBE_KIND_POD, NULL, NULL, &dec, &in->pods, err) != 0 ||
        cli_list_kind(c, KUBE_KIND_NODE, NULL, NULL, &dec, &in->nodes, err) != 0 ||
        cli_list_kind(c, KUBE_KIND_NAMESPACE, NULL, NULL, &dec, &in->namespaces, err) != 0 ||
        cli_list_kind(c, KUBE_KIND_CONFIGMAP, NULL, DS_SELECTOR_JOBGRAPH, &dec, &in->graphs, err) !=
            0 ||
        (wf && cli_list_kind(c, KUBE_KIND_WORKFLOW, NULL, NULL, &dec, &in->workflows, err) != 0)) {
        inputs_free(in);
        return -1;
    }
    return 0;
}

/* The ExtenderArgs body kube-scheduler sends (nodeCacheCapable): the Pod and node names. */
static char *args_body(json_t *pod, json_t *names, size_t *len)
{
    json_t *a = json_pack("{s:O,s:O}", "Pod", pod, "NodeNames", names);
    char *s = a != NULL ? json_dumps(a, JSON_COMPACT) : NULL;
    json_decref(a);
    *len = s != NULL ? strlen(s) : 0;
    return s;
}

/* One handler call; *out the parsed answer. -1 with the answer's error in err. */
static int call(void (*h)(const ext_ctx *, const ext_snapshot *, const char *, size_t, double,
                          ext_reply *, ext_outcome *),
                const ext_snapshot *s, json_t *pod, json_t *names, ext_outcome *o, json_t **out,
                ds_err *err)
{
    *out = NULL;
    ext_ctx ctx = {0};
    ext_limits_default(&ctx.limits);
    size_t len;
    char *body = args_body(pod, names, &len);
    if (body == NULL)
        return ds_err_set(err, "out of memory");
    ext_reply r = {0};
    h(&ctx, s, body, len, s->now, &r, o);
    free(body);
    json_error_t je;
    *out = r.body != NULL ? json_loadb(r.body, r.len, 0, &je) : NULL;
    int rc = 0;
    if (r.status != 200 || *out == NULL)
        rc = ds_err_set(err, "the extender's answer (HTTP %d): %.300s", r.status,
                        o->error[0] ? o->error : (r.body != NULL ? r.body : "none"));
    free(r.body);
    return rc;
}

typedef struct node_row {
    const char *name;
    bool pass, unresolvable;
    const char *reason; /* NULL when it passes */
    json_int_t score;   /* -1: not scored (failed the filter) */
} node_row;

static const char *class_text(const ext_outcome *o)
{
    switch (o->pod_class) {
    case EXT_POD_OUTSIDE:
        return "outside any DAG job";
    case EXT_POD_DAG:
        return "a task of a DAG job, ready";
    case EXT_POD_BLOCKED:
        return "a task of a DAG job, waiting for upstream tasks";
    case EXT_POD_INVALID_JOB:
        return "of a DAG job dagsched cannot use (handled as outside any DAG)";
    case EXT_POD_INVALID_POD:
        return "with dagsched metadata beyond its bounds (handled as outside any DAG)";
    case EXT_POD_HELD:
        return "of a DAG job dagsched cannot use, and may depend on other tasks (no node until "
               "the job is fixed)";
    }
    return "?";
}

static const char *class_key(ext_pod_class c)
{
    static const char *const k[] = {"outside",    "dag",        "blocked",
                                    "invalidJob", "invalidPod", "heldInvalidJob"};
    return (unsigned)c < sizeof k / sizeof k[0] ? k[c] : "?";
}

static int print_json(const char *ns, const char *name, const ext_outcome *o, const inputs *in,
                      const node_row *rows, size_t n)
{
    json_t *nodes = json_array();
    for (size_t i = 0; nodes != NULL && i < n; i++) {
        json_t *r = json_pack("{s:s,s:b,s:b,s:o,s:o}", "name", rows[i].name, "passes", rows[i].pass,
                              "unresolvable", rows[i].unresolvable, "reason",
                              rows[i].reason ? json_string(rows[i].reason) : json_null(), "score",
                              rows[i].score >= 0 ? json_integer(rows[i].score) : json_null());
        if (r == NULL || json_array_append_new(nodes, r) != 0) {
            json_decref(nodes);
            nodes = NULL;
        }
    }
    json_t *doc = nodes != NULL
                      ? json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:o}", "kind", "PodExplanation",
                                  "namespace", ns, "name", name, "class", class_key(o->pod_class),
                                  "note", o->note, "policy", in->policy.source, "nodes", nodes)
                      : NULL;
    return cli_print_json(doc, JSON_PRESERVE_ORDER);
}

static void print_table(const char *ns, const char *name, const ext_outcome *o, const inputs *in,
                        const node_row *rows, size_t n)
{
    char line[2048];
    printf("Pod:      %s/%s\nDagsched: %s\n", ns, name, class_text(o));
    if (o->note[0] != '\0')
        printf("Note:     %s\n", cli_oneline(o->note, line, sizeof line));
    printf("Policy:   %s\n\n", in->policy.source);
    int w = 4;
    for (size_t i = 0; i < n; i++) {
        int l = (int)strlen(rows[i].name);
        if (l > w && l < 64)
            w = l;
    }
    printf("%-*s  %-6s  %5s  %s\n", w, "NODE", "FILTER", "SCORE", "REASON");
    for (size_t i = 0; i < n; i++) {
        char score[24] = "-";
        if (rows[i].score >= 0)
            snprintf(score, sizeof score, "%lld", (long long)rows[i].score);
        printf("%-*s  %-6s  %5s  %s\n", w, rows[i].name, rows[i].pass ? "pass" : "fail", score,
               rows[i].reason ? cli_oneline(rows[i].reason, line, sizeof line) : "-");
    }
}

static int explain(const cli_flags *f, kube_client *c, const char *ns, const char *name)
{
    json_t *pod = NULL;
    long status = 0;
    ds_err err = {{0}};
    if (kube_get_named(c, "/api/v1", ns, "pods", name, &pod, &status, &err) != 0) {
        if (status == 404)
            fprintf(stderr, "kubectl-dagsched: pod \"%s\" not found in namespace %s\n", name, ns);
        else
            fprintf(stderr, "kubectl-dagsched: %s\n", err.msg);
        return 1;
    }
    inputs in;
    if (read_inputs(c, &f->v, &in, &err) != 0) {
        fprintf(stderr, "kubectl-dagsched: %s\n", err.msg);
        json_decref(pod);
        return 1;
    }
    ext_build_input bi = {
        .nodes = (const kube_node *const *)in.nodes.items,
        .n_nodes = in.nodes.n,
        .pods = (const kube_pod *const *)in.pods.items,
        .n_pods = in.pods.n,
        .graphs = (const kube_configmap *const *)in.graphs.items,
        .n_graphs = in.graphs.n,
        .workflows = (const kube_workflow *const *)in.workflows.items,
        .n_workflows = in.workflows.n,
        .namespaces = (const kube_namespace *const *)in.namespaces.items,
        .n_namespaces = in.namespaces.n,
        .policy = &in.policy.policy,
        .policy_generation = in.policy.generation,
        .policy_source = in.policy.source,
        .now = rt_wall_now(),
    };
    ext_snapshot *snap = NULL;
    int rc = 1;
    json_t *names = json_array(), *passed = json_array(), *fres = NULL, *pres = NULL;
    node_row *rows = calloc(in.nodes.n ? in.nodes.n : 1, sizeof *rows);
    ext_outcome fo = {0}, po = {0};
    if (names == NULL || passed == NULL || rows == NULL) {
        fprintf(stderr, "kubectl-dagsched: out of memory\n");
        goto out;
    }
    if (ext_snapshot_build(&bi, &snap, &err) != 0) {
        fprintf(stderr, "kubectl-dagsched: building the extender's snapshot: %s\n", err.msg);
        goto out;
    }
    for (size_t i = 0; i < snap->n_nodes; i++)
        json_array_append_new(names, json_string(snap->nodes[i].name));
    if (call(ext_handle_filter, snap, pod, names, &fo, &fres, &err) != 0) {
        fprintf(stderr, "kubectl-dagsched: filter: %s\n", err.msg);
        goto out;
    }
    const json_t *failed = json_object_get(fres, "FailedNodes");
    const json_t *unres = json_object_get(fres, "FailedAndUnresolvableNodes");
    size_t n = 0;
    for (size_t i = 0; i < snap->n_nodes; i++) {
        node_row *r = &rows[n++];
        r->name = snap->nodes[i].name;
        r->score = -1;
        const json_t *why = json_object_get(unres, r->name);
        r->unresolvable = why != NULL;
        if (why == NULL)
            why = json_object_get(failed, r->name);
        r->pass = why == NULL;
        r->reason = json_string_value(why);
        if (r->pass)
            json_array_append_new(passed, json_string(r->name));
    }
    if (json_array_size(passed) > 0) {
        if (call(ext_handle_prioritize, snap, pod, passed, &po, &pres, &err) != 0) {
            fprintf(stderr, "kubectl-dagsched: prioritize: %s\n", err.msg);
            goto out;
        }
        size_t k;
        const json_t *hp;
        json_array_foreach(pres, k, hp)
        {
            const char *host = json_string_value(json_object_get(hp, "Host"));
            for (size_t i = 0; host != NULL && i < n; i++)
                if (strcmp(rows[i].name, host) == 0)
                    rows[i].score = json_integer_value(json_object_get(hp, "Score"));
        }
    }
    if (f->out == CLI_OUT_JSON) {
        rc = print_json(ns, name, &fo, &in, rows, n);
    } else {
        print_table(ns, name, &fo, &in, rows, n);
        rc = 0;
    }
    if (in.policy_note[0] != '\0')
        fprintf(stderr, "note: %s\n", in.policy_note);
out:
    ext_outcome_clear(&fo);
    ext_outcome_clear(&po);
    json_decref(fres);
    json_decref(pres);
    json_decref(names);
    json_decref(passed);
    json_decref(pod);
    free(rows);
    ext_snapshot_unref(snap);
    inputs_free(&in);
    return rc;
}

int explain_cmd(int argc, char **argv)
{
    cli_flags o;
    int first;
    static const char usage[] = "usage: kubectl dagsched explain pod NAME [-n NS] [-o json]\n";
    int rc = cli_parse_view_flags(argc, argv, CLI_FLAGS_EXPLAIN, usage, &o, &first);
    if (rc != RT_FLAGS_RUN)
        return rc;
    if (argc - first != 2 || strcmp(argv[first], "pod") != 0) {
        fputs(usage, stderr);
        return RT_EXIT_USAGE;
    }
    kube_client *c = NULL;
    char ns[254];
    ds_err err = {{0}};
    if (cli_client_open(&o.v, &c, ns, sizeof ns, &err) != 0) {
        fprintf(stderr, "kubectl-dagsched: %s\n", err.msg);
        return 1;
    }
    rc = explain(&o, c, ns, argv[first + 1]);
    kube_client_free(c);
    return rc;
}
