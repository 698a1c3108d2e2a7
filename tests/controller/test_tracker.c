/* test_tracker.c: unit tests of the snapshot (tracker.c): decoded API objects become the decision
 * view and the job model: pod states (gated, unschedulable, bound, finished), task states from the
 * job model, owners, PodDisruptionBudget facts, node schedulability and taints, a suspended
 * batch Job standing for its task, and the labels of each pod's namespace. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "release.h"
#include "tracker.h"
#include "ctl_obj_util.h"

#define POD(name, extra_meta, spec, status)                                                        \
    "{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"b\",\"uid\":\"u-" name "\","             \
    "\"resourceVersion\":\"1\",\"creationTimestamp\":\"2026-11-22T10:00:00Z\"" extra_meta "},"     \
    "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}"      \
    "]" spec "},\"status\":" status "}"

static void test_snapshot(void **state)
{
    (void)state;
    kube_obj_list pods = {0}, nodes = {0}, pdbs = {0}, jobs = {0}, graphs = {0}, nss = {0};
    /* Job "etl": a (succeeded) -> b (gated) ; c runs, covered by a PDB; u unschedulable. */
    add(&pods, obj(KUBE_KIND_POD,
                   POD("a",
                       ",\"labels\":{\"dagsched.io/job\":\"etl\",\"dagsched.io/task\":\"a\"},"
                       "\"annotations\":{\"dagsched.io/runtime\":\"60s\"}",
                       ",\"nodeName\":\"n1\"", "{\"phase\":\"Succeeded\"}")));
    add(&pods, obj(KUBE_KIND_POD,
                   POD("b",
                       ",\"labels\":{\"dagsched.io/job\":\"etl\",\"dagsched.io/task\":\"b\"},"
                       "\"annotations\":{\"dagsched.io/runtime\":\"60s\",\"dagsched.io/"
                       "depends-on\":\"a\",\"dagsched.io/waiting-reason\":\"no room: x\"}",
                       ",\"schedulingGates\":[{\"name\":\"dagsched.io/dependencies\"},"
                       "{\"name\":\"example.com/quota\"}]",
                       "{\"phase\":\"Pending\"}")));
    add(&pods, obj(KUBE_KIND_POD,
                   POD("c",
                       ",\"labels\":{\"dagsched.io/job\":\"other\",\"dagsched.io/"
                       "task\":\"c\",\"app\":\"x\"},"
                       "\"annotations\":{\"dagsched.io/runtime\":\"1h\","
                       "\"dagsched.io/evicted-at\":\"2026-11-22T10:01:00Z\"},"
                       "\"ownerReferences\":[{\"kind\":\"Job\",\"name\":\"c\",\"uid\":\"j\","
                       "\"controller\":true}]",
                       ",\"nodeName\":\"n1\",\"priorityClassName\":\"low\",\"priority\":5",
                       "{\"phase\":\"Running\",\"startTime\":\"2026-11-22T10:00:10Z\"}")));
    add(&pods, obj(KUBE_KIND_POD,
                   POD("u", ",\"labels\":{\"dagsched.io/job\":\"solo\",\"dagsched.io/task\":\"u\"}",
                       ",\"nodeSelector\":{\"zone\":\"a\"},\"affinity\":{\"nodeAffinity\":{"
                       "\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":"
                       "[{\"matchExpressions\":[{\"key\":\"pool\",\"operator\":\"In\","
                       "\"values\":[\"fast\"]}]}]}}}",
                       "{\"phase\":\"Pending\",\"conditions\":[{\"type\":\"PodScheduled\","
                       "\"status\":\"False\",\"reason\":\"Unschedulable\","
                       "\"lastTransitionTime\":\"2026-11-22T10:00:05Z\"}]}")));
    add(&pods, obj(KUBE_KIND_POD,
                   POD("plain", "",
                       ",\"nodeName\":\"n2\",\"affinity\":{\"nodeAffinity\":{"
                       "\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":"
                       "[{\"matchExpressions\":[{\"key\":\"gen\",\"operator\":\"Gt\","
                       "\"values\":[\"new\"]}]}]}}}",
                       "{\"phase\":\"Running\"}")));
    add(&nodes,
        obj(KUBE_KIND_NODE, "{\"metadata\":{\"name\":\"n1\",\"resourceVersion\":\"1\","
                            "\"labels\":{\"dagsched.io/speed\":\"2\",\"pool\":\"fast\"}},"
                            "\"spec\":{\"taints\":[{\"key\":\"k\",\"effect\":\"NoSchedule\"}]},"
                            "\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"8Gi\"},"
                            "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}"));
    add(&nodes,
        obj(KUBE_KIND_NODE, "{\"metadata\":{\"name\":\"n2\",\"resourceVersion\":\"1\"},"
                            "\"spec\":{\"unschedulable\":true},"
                            "\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"8Gi\"},"
                            "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}"));
    add(&pdbs, obj(KUBE_KIND_PDB,
                   "{\"metadata\":{\"name\":\"p\",\"namespace\":\"b\",\"resourceVersion\":\"1\","
                   "\"generation\":2},\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"x\"}}},"
                   "\"status\":{\"disruptionsAllowed\":0,\"observedGeneration\":2}}"));
    add(&jobs, obj(KUBE_KIND_JOB,
                   "{\"metadata\":{\"name\":\"d\",\"namespace\":\"b\",\"uid\":\"u-jd\","
                   "\"resourceVersion\":\"1\",\"creationTimestamp\":\"2026-11-22T10:00:00Z\","
                   "\"labels\":{\"dagsched.io/job\":\"etl\",\"dagsched.io/task\":\"d\"},"
                   "\"annotations\":{\"dagsched.io/depends-on\":\"b\"}},"
                   "\"spec\":{\"suspend\":true,\"template\":{\"spec\":{\"containers\":[{"
                   "\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"2\"}}}]}}},"
                   "\"status\":{}}"));
    /* Namespace b (of every pod above) and another one, listed in no particular order. */
    add(&nss, obj(KUBE_KIND_NAMESPACE,
                  "{\"metadata\":{\"name\":\"z\",\"resourceVersion\":\"1\",\"labels\":"
                  "{\"team\":\"web\"}}}"));
    add(&nss,
        obj(KUBE_KIND_NAMESPACE,
            "{\"metadata\":{\"name\":\"b\",\"resourceVersion\":\"1\",\"labels\":"
            "{\"kubernetes.io/metadata.name\":\"b\",\"dagsched.io/preemption\":\"enabled\"}}}"));
    ds_policy pol;
    ds_policy_defaults(&pol);
    ctl_snapshot s;
    ds_err err = {{0}};
    double now = 1795341700.0; /* 2026-11-22T10:01:40Z */
    assert_int_equal(
        ctl_snapshot_build(&pods, &nodes, &pdbs, &jobs, &graphs, &nss, &pol, now, &s, &err), 0);
    assert_null(pods.items);
    assert_null(nss.items);
    assert_int_equal(s.n_pod, 5);

    const ctl_pod *a = &s.pod[0], *b = &s.pod[1], *c = &s.pod[2], *u = &s.pod[3],
                  *plain = &s.pod[4];
    assert_int_equal(a->state, CTL_POD_SUCCEEDED);
    assert_int_equal(a->task.state, DS_TASK_SUCCEEDED);
    assert_int_equal(b->state, CTL_POD_GATED);
    assert_int_equal(b->task.state, DS_TASK_WAITING); /* upstream a succeeded */
    assert_true(b->task.evaluated);
    assert_int_equal(b->owner_evictions_left, 0);
    assert_int_equal(b->owner_verdict, DS_RETRY_BARE);
    assert_true(b->other_gates); /* example.com/quota */
    assert_string_equal(b->waiting_reason, "no room: x");
    assert_false(a->other_gates);
    assert_string_equal(a->waiting_reason, "");

    assert_int_equal(c->state, CTL_POD_BOUND);
    assert_string_equal(c->node, "n1");
    assert_int_equal(c->task.state, DS_TASK_RUNNING);
    /* Its Job (uid j) is not among the Jobs seen: not known to retry it. */
    assert_int_equal(c->owner_evictions_left, 0);
    assert_int_equal(c->owner_verdict, DS_RETRY_JOB_UNKNOWN);
    assert_string_equal(c->owner_uid, "j");
    assert_string_equal(c->priority_class, "low");
    assert_int_equal(c->k8s_priority, 5);
    assert_int_equal(c->n_pdbs, 1);
    /* The labels of its namespace b. */
    assert_true(c->ns_known);
    assert_int_equal(c->n_ns_labels, 2);
    assert_string_equal(ctl_kv_get(c->ns_labels, c->n_ns_labels, "dagsched.io/preemption"),
                        "enabled");
    assert_null(ctl_kv_get(c->ns_labels, c->n_ns_labels, "team"));
    assert_true(c->pdb_blocks);
    assert_false(c->pdb_stale);
    assert_true(c->evicted_at == 1795341660.0);
    assert_true(c->started_at == 1795341610.0);
    assert_int_equal(c->request.v[DS_RES_CPU], 1000);
    /* Running on a node of speed 2: 1 h of reference work, 90 s done at double speed. */
    assert_true(fabs(c->task.eval.t_rem_s - (3600.0 - 90.0 * 2.0) / 2.0) < 1e-6);

    assert_int_equal(u->state, CTL_POD_UNSCHEDULABLE);
    assert_true(u->unschedulable_since == 1795341605.0);
    assert_int_equal(u->n_node_selector, 1);
    assert_string_equal(u->node_selector[0].key, "zone");
    assert_true(u->has_required_affinity);
    assert_string_equal(u->affinity_error, "");
    assert_int_equal(u->required_affinity.n_terms, 1);
    assert_string_equal(u->required_affinity.terms[0].match_expressions[0].key, "pool");
    assert_false(c->has_required_affinity);
    assert_string_equal(c->affinity_error, "");
    /* A malformed affinity reaches the view as an error. */
    assert_true(plain->has_required_affinity);
    assert_string_equal(plain->affinity_error,
                        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                        "nodeSelectorTerms[0].matchExpressions[0].values[0]: must be a base-10 "
                        "integer with operator Gt (got \"new\")");

    assert_int_equal(plain->task.job, DS_NO_TASK);
    assert_false(plain->task.evaluated);
    /* The job deadline rule's figures: etl has no deadline; its remaining path runs through b
     * (60 s) and d; outside a DAG there are none. */
    assert_true(isinf(b->task.job_slack_s) && b->task.job_slack_s > 0);
    assert_true(isfinite(b->task.job_path_s) && b->task.job_path_s >= 60.0);
    assert_true(isnan(plain->task.job_slack_s) && isnan(plain->task.job_path_s));

    assert_true(s.node[0].schedulable);
    assert_false(s.node[1].schedulable); /* cordoned */
    assert_int_equal(s.node[0].n_taints, 1);
    assert_int_equal(s.node[0].taints[0].effect, CTL_TAINT_NO_SCHEDULE);
    /* Speeds: n1's label; n2 has no label and the largest allocatable, so Eq. 1 gives 1.0. */
    assert_true(s.node[0].speed == 2.0);
    assert_true(fabs(s.node[1].speed - 1.0) < 1e-9);
    assert_int_equal(s.node[0].n_labels, 2);

    /* The suspended Job is task d of job etl; b has not succeeded, so d is blocked. */
    assert_int_equal(s.n_job, 1);
    assert_true(s.job[0].suspended);
    assert_false(s.job[0].has_pods);
    assert_int_equal(s.job[0].request.v[DS_RES_CPU], 2000);
    assert_int_equal(s.job[0].task.job, b->task.job);
    assert_int_equal(s.job[0].task.state, DS_TASK_BLOCKED);
    assert_true(s.job[0].task.job_path_s == b->task.job_path_s);
    const ds_job *etl = ctl_snapshot_job_of(&s, &b->task);
    assert_non_null(etl);
    assert_int_equal(etl->dag.n, 3);

    assert_int_equal(s.n_ns, 2);
    assert_string_equal(s.ns[0].name, "b"); /* sorted by name */
    const ctl_namespace *z = ctl_snapshot_namespace(&s, "z");
    assert_non_null(z);
    assert_int_equal(z->n_labels, 1);
    assert_string_equal(z->labels[0].value, "web");
    assert_null(ctl_snapshot_namespace(&s, "a"));
    assert_null(ctl_snapshot_namespace(&s, NULL));
    ctl_snapshot_free(&s);
}

/* A pod whose namespace is not listed (not in the namespace cache) has no namespace labels and
 * says so; without any namespace list every pod is in that state. */
static void test_unknown_namespace(void **state)
{
    (void)state;
    kube_obj_list pods = {0}, nodes = {0}, pdbs = {0}, jobs = {0}, graphs = {0}, nss = {0};
    add(&pods, obj(KUBE_KIND_POD, POD("p", "", ",\"nodeName\":\"n1\"", "{\"phase\":\"Running\"}")));
    add(&nss, obj(KUBE_KIND_NAMESPACE, "{\"metadata\":{\"name\":\"other\",\"resourceVersion\":"
                                       "\"1\",\"labels\":{\"a\":\"b\"}}}"));
    ds_policy pol;
    ds_policy_defaults(&pol);
    ctl_snapshot s;
    ds_err err = {{0}};
    assert_int_equal(
        ctl_snapshot_build(&pods, &nodes, &pdbs, &jobs, &graphs, &nss, &pol, 1e9, &s, &err), 0);
    assert_int_equal(s.n_pod, 1);
    assert_string_equal(s.pod[0].ns, "b");
    assert_false(s.pod[0].ns_known);
    assert_int_equal(s.pod[0].n_ns_labels, 0);
    ctl_snapshot_free(&s);

    add(&pods, obj(KUBE_KIND_POD, POD("q", "", "", "{\"phase\":\"Pending\"}")));
    assert_int_equal(
        ctl_snapshot_build(&pods, &nodes, &pdbs, &jobs, &graphs, NULL, &pol, 1e9, &s, &err), 0);
    assert_int_equal(s.n_ns, 0);
    assert_false(s.pod[0].ns_known);
    ctl_snapshot_free(&s);
}

#define NSPOD(ns, name, extra_meta, spec, status, cpu)                                             \
    "{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"" ns "\",\"uid\":\"u-" name "\","        \
    "\"resourceVersion\":\"1\",\"creationTimestamp\":\"2026-11-22T10:00:00Z\"" extra_meta "},"     \
    "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"" cpu        \
    "\"}}}]" spec "},\"status\":" status "}"
#define GATED_TASK(job, runtime)                                                                   \
    ",\"labels\":{\"dagsched.io/job\":\"" job "\",\"dagsched.io/task\":\"t\"},"                    \
    "\"annotations\":{\"dagsched.io/runtime\":\"" runtime "\"}"

/* spec.fairness puts the tenant rank in front of the job figures in the queue order: the flood
 * namespace runs 2 of the 4 cores, so the light namespace's task goes first although its job has
 * more work left (shortestRemaining puts it second without fairness). With tenantLabel, both
 * namespaces are one tenant: the order of the job figures again. */
static void test_fair_queue_order(void **state)
{
    (void)state;
    for (int mode = 0; mode < 3; mode++) {
        kube_obj_list pods = {0}, nodes = {0}, pdbs = {0}, jobs = {0}, graphs = {0}, nss = {0};
        add(&pods, obj(KUBE_KIND_POD, NSPOD("flood", "busy", "", ",\"nodeName\":\"n1\"",
                                            "{\"phase\":\"Running\"}", "2")));
        add(&pods, obj(KUBE_KIND_POD,
                       NSPOD("flood", "f", GATED_TASK("f", "60s"),
                             ",\"schedulingGates\":[{\"name\":\"dagsched.io/dependencies\"}]",
                             "{\"phase\":\"Pending\"}", "1")));
        add(&pods, obj(KUBE_KIND_POD,
                       NSPOD("light", "l", GATED_TASK("l", "600s"),
                             ",\"schedulingGates\":[{\"name\":\"dagsched.io/dependencies\"}]",
                             "{\"phase\":\"Pending\"}", "1")));
        add(&nodes,
            obj(KUBE_KIND_NODE, "{\"metadata\":{\"name\":\"n1\",\"resourceVersion\":\"1\"},"
                                "\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"8Gi\"},"
                                "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}"));
        add(&nss, obj(KUBE_KIND_NAMESPACE, "{\"metadata\":{\"name\":\"flood\",\"resourceVersion\":"
                                           "\"1\",\"labels\":{\"example.com/team\":\"x\"}}}"));
        add(&nss, obj(KUBE_KIND_NAMESPACE, "{\"metadata\":{\"name\":\"light\",\"resourceVersion\":"
                                           "\"1\",\"labels\":{\"example.com/team\":\"x\"}}}"));
        ds_policy pol;
        ds_policy_defaults(&pol);
        pol.fairness_enabled = mode > 0;
        if (mode == 2)
            strcpy(pol.tenant_label, "example.com/team");
        ctl_snapshot s;
        ds_err err = {{0}};
        assert_int_equal(ctl_snapshot_build(&pods, &nodes, &pdbs, &jobs, &graphs, &nss, &pol,
                                            1795341700.0, &s, &err),
                         0);
        assert_int_equal(s.pod[1].task.state, DS_TASK_WAITING);
        assert_int_equal(s.pod[2].task.state, DS_TASK_WAITING);
        assert_int_equal(s.pod[1].task.queue_pos, mode == 1 ? 1 : 0); /* flood's */
        assert_int_equal(s.pod[2].task.queue_pos, mode == 1 ? 0 : 1); /* light's */
        ctl_snapshot_free(&s);
    }
}

/* A gated pod whose dagsched annotation is over dagsched's bounds (a 70,000-byte runtime) is in
 * the view, outside any DAG job, with the reason; the release plan removes its gate at once while
 * the other task of its job is unaffected. */
static void test_pod_over_bounds(void **state)
{
    (void)state;
    kube_obj_list pods = {0}, nodes = {0}, pdbs = {0}, jobs = {0}, graphs = {0}, nss = {0};
    add(&pods, obj(KUBE_KIND_POD,
                   POD("a",
                       ",\"labels\":{\"dagsched.io/job\":\"etl\",\"dagsched.io/task\":\"a\"},"
                       "\"annotations\":{\"dagsched.io/runtime\":\"60s\"}",
                       "", "{\"phase\":\"Pending\"}")));
    size_t len = 70000 + 1024;
    char *text = malloc(len);
    assert_non_null(text);
    int at = snprintf(text, len, "%s",
                      POD("big",
                          ",\"labels\":{\"dagsched.io/job\":\"etl\",\"dagsched.io/task\":"
                          "\"big\"},\"annotations\":{\"dagsched.io/runtime\":\"@\"}",
                          ",\"schedulingGates\":[{\"name\":\"dagsched.io/dependencies\"}]",
                          "{\"phase\":\"Pending\"}"));
    char *mark = strchr(text, '@');
    assert_non_null(mark);
    size_t tail = (size_t)at - (size_t)(mark + 1 - text);
    memmove(mark + 70000, mark + 1, tail + 1);
    memset(mark, '9', 69999);
    mark[69999] = 's';
    add(&pods, obj(KUBE_KIND_POD, text));
    free(text);
    ds_policy pol;
    ds_policy_defaults(&pol);
    ctl_snapshot s;
    ds_err err = {{0}};
    assert_int_equal(
        ctl_snapshot_build(&pods, &nodes, &pdbs, &jobs, &graphs, &nss, &pol, 1e9, &s, &err), 0);
    assert_int_equal(s.n_pod, 2);
    assert_string_equal(s.pod[0].dagsched_error, "");
    assert_true(s.pod[0].task.job != DS_NO_TASK);
    assert_string_equal(s.pod[1].name, "big");
    assert_string_equal(s.pod[1].dagsched_error,
                        "annotation dagsched.io/runtime: 70000 bytes, limit 65536");
    assert_int_equal(s.pod[1].state, CTL_POD_GATED);
    assert_int_equal(s.pod[1].task.job, DS_NO_TASK);
    ctl_release_in in = {.pods = s.pod, .n_pods = s.n_pod};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, &err), 0);
    assert_int_equal(out.n_ungate, 1);
    assert_int_equal(out.ungate[0], 1);
    ctl_release_out_free(&out);
    ctl_snapshot_free(&s);
}

/* A snapshot of pods, Jobs and graphs (no nodes, budgets or namespaces) under the default policy
 * at time 1e9; fails the test when it cannot be built. */
static void build_plain(kube_obj_list *pods, kube_obj_list *jobs, kube_obj_list *graphs,
                        ctl_snapshot *s)
{
    kube_obj_list nodes = {0}, pdbs = {0}, nss = {0};
    ds_policy pol;
    ds_policy_defaults(&pol);
    ds_err err = {{0}};
    if (ctl_snapshot_build(pods, &nodes, &pdbs, jobs, graphs, &nss, &pol, 1e9, s, &err) != 0)
        fail_msg("snapshot: %s", err.msg);
}

/* A gated DAG pod of job `job`, task `task`, depending on `deps` ("" for none). */
#define GATED(name, job, task, deps)                                                               \
    POD(name,                                                                                      \
        ",\"labels\":{\"dagsched.io/job\":\"" job "\",\"dagsched.io/task\":\"" task "\"},"         \
        "\"annotations\":{\"dagsched.io/runtime\":\"5s\",\"dagsched.io/depends-on\":\"" deps       \
        "\"}",                                                                                     \
        ",\"schedulingGates\":[{\"name\":\"dagsched.io/dependencies\"}]",                          \
        "{\"phase\":\"Pending\"}")

static const ctl_wait *wait_of(const ctl_release_out *out, const ctl_snapshot *s, const char *name)
{
    for (size_t k = 0; k < out->n_wait; k++)
        if (out->wait[k].kind == CTL_RELEASE_POD &&
            strcmp(s->pod[out->wait[k].idx].name, name) == 0)
            return &out->wait[k];
    fail_msg("pod %s is not held", name);
    return NULL;
}

/* Pods that arrive downstream first, and a job whose graph has a cycle: every task that depends
 * on another keeps its gate, with a reason that says why; only the invalid job's root task is
 * ungated (it depends on nothing). */
static void test_any_creation_order(void **state)
{
    (void)state;
    kube_obj_list pods = {0}, jobs = {0}, graphs = {0};
    add(&pods, obj(KUBE_KIND_POD, GATED("x3", "chain", "x3", "x2")));
    add(&pods, obj(KUBE_KIND_POD, GATED("x2", "chain", "x2", "x1")));
    add(&pods, obj(KUBE_KIND_POD, GATED("cyc-a", "cyc", "a", "b")));
    add(&pods, obj(KUBE_KIND_POD, GATED("cyc-b", "cyc", "b", "a")));
    add(&pods, obj(KUBE_KIND_POD, GATED("cyc-r", "cyc", "r", "")));
    ctl_snapshot s;
    build_plain(&pods, &jobs, &graphs, &s);
    ds_err err = {{0}};
    assert_int_equal(s.n_pod, 5);
    ctl_release_in in = {
        .pods = s.pod, .n_pods = s.n_pod, .model = s.js.jobs, .n_model = s.js.n_jobs};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, &err), 0);
    assert_int_equal(out.n_rel, 0);
    assert_int_equal(out.n_ungate, 1);
    assert_string_equal(s.pod[out.ungate[0]].name, "cyc-r");
    assert_int_equal(out.n_wait, 4);
    char msg[1024];
    const ctl_wait *w = wait_of(&out, &s, "x2");
    assert_int_equal(w->reason, CTL_WAIT_UPSTREAM);
    ctl_wait_message(&in, w, msg, sizeof msg);
    assert_string_equal(msg, "waiting for upstream tasks: x1 (not created yet)");
    w = wait_of(&out, &s, "x3");
    assert_int_equal(w->reason, CTL_WAIT_UPSTREAM);
    ctl_wait_message(&in, w, msg, sizeof msg);
    assert_string_equal(msg, "waiting for upstream tasks: x2");
    for (int k = 0; k < 2; k++) {
        w = wait_of(&out, &s, k == 0 ? "cyc-a" : "cyc-b");
        assert_int_equal(w->reason, CTL_WAIT_INVALID_JOB);
        ctl_wait_message(&in, w, msg, sizeof msg);
        assert_string_equal(msg, "its job is invalid right now: dependency cycle: a -> b -> a");
        assert_int_equal(ctl_wait_reason_of(msg), CTL_WAIT_INVALID_JOB);
    }
    ctl_release_out_free(&out);
    ctl_snapshot_free(&s);
}

/* A namespace being deleted (metadata.deletionTimestamp): the namespace controller deletes each of
 * its pods, so they are leaving as a pod being deleted is. Its gated pods are neither ungated
 * (outside any DAG job) nor released (a ready DAG task): no PATCH for a pod about to go, and
 * kube-scheduler is not handed it. The same pods in a namespace that stays are. */
static void test_namespace_being_deleted(void **state)
{
    (void)state;
    kube_obj_list pods = {0}, nodes = {0}, pdbs = {0}, jobs = {0}, graphs = {0}, nss = {0};
    const char *gate = ",\"schedulingGates\":[{\"name\":\"dagsched.io/dependencies\"}]";
    for (int k = 0; k < 2; k++) {
        const char *ns = k == 0 ? "gone" : "kept";
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"metadata\":{\"name\":\"plain\",\"namespace\":\"%s\",\"uid\":\"u-p%d\","
                 "\"resourceVersion\":\"1\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]%s},"
                 "\"status\":{\"phase\":\"Pending\"}}",
                 ns, k, gate);
        add(&pods, obj(KUBE_KIND_POD, text));
        snprintf(text, sizeof text,
                 "{\"metadata\":{\"name\":\"root\",\"namespace\":\"%s\",\"uid\":\"u-r%d\","
                 "\"resourceVersion\":\"1\",\"labels\":{\"dagsched.io/job\":\"j\","
                 "\"dagsched.io/task\":\"root\"},\"annotations\":{\"dagsched.io/runtime\":"
                 "\"5s\"}},\"spec\":{\"containers\":[{\"name\":\"c\"}]%s},"
                 "\"status\":{\"phase\":\"Pending\"}}",
                 ns, k, gate);
        add(&pods, obj(KUBE_KIND_POD, text));
    }
    add(&nss, obj(KUBE_KIND_NAMESPACE,
                  "{\"metadata\":{\"name\":\"gone\",\"resourceVersion\":\"2\","
                  "\"deletionTimestamp\":\"2026-11-22T10:00:00Z\"},\"status\":{\"phase\":"
                  "\"Terminating\"}}"));
    add(&nss, obj(KUBE_KIND_NAMESPACE, "{\"metadata\":{\"name\":\"kept\",\"resourceVersion\":"
                                       "\"1\"}}"));
    ds_policy pol;
    ds_policy_defaults(&pol);
    ctl_snapshot s;
    ds_err err = {{0}};
    assert_int_equal(
        ctl_snapshot_build(&pods, &nodes, &pdbs, &jobs, &graphs, &nss, &pol, 1e9, &s, &err), 0);
    assert_int_equal(s.n_pod, 4);
    for (size_t i = 0; i < s.n_pod; i++) {
        assert_int_equal(s.pod[i].state, CTL_POD_GATED);
        assert_int_equal(s.pod[i].terminating, strcmp(s.pod[i].ns, "gone") == 0);
    }
    ctl_release_in in = {.pods = s.pod,
                         .n_pods = s.n_pod,
                         .model = s.js.jobs,
                         .n_model = s.js.n_jobs,
                         .admission = DS_ADMIT_ALL};
    ctl_release_out out;
    assert_int_equal(ctl_release_plan(&in, &out, &err), 0);
    assert_int_equal(out.n_ungate, 1);
    assert_string_equal(s.pod[out.ungate[0]].ns, "kept");
    assert_string_equal(s.pod[out.ungate[0]].name, "plain");
    assert_int_equal(out.n_rel, 1);
    assert_string_equal(s.pod[out.rel[0].idx].ns, "kept");
    assert_string_equal(s.pod[out.rel[0].idx].name, "root");
    assert_int_equal(out.n_wait, 0);
    ctl_release_out_free(&out);
    ctl_snapshot_free(&s);
}

/* A running DAG pod of a Job, decoded with the Job: what the Job does with an eviction. */
static const ctl_pod *owned_pod(kube_obj_list *pods, const char *job_spec, ctl_snapshot *s)
{
    kube_obj_list jobs = {0}, graphs = {0};
    add(pods, obj(KUBE_KIND_POD,
                  POD("w",
                      ",\"labels\":{\"dagsched.io/job\":\"etl\",\"dagsched.io/task\":\"w\"},"
                      "\"ownerReferences\":[{\"kind\":\"Job\",\"name\":\"w\",\"uid\":\"job-w\","
                      "\"controller\":true}]",
                      ",\"nodeName\":\"n1\"", "{\"phase\":\"Running\"}")));
    char job[1024];
    snprintf(job, sizeof job,
             "{\"metadata\":{\"name\":\"w\",\"namespace\":\"b\",\"uid\":\"job-w\","
             "\"resourceVersion\":\"1\"},\"spec\":{%s},\"status\":{\"active\":1,\"failed\":1}}",
             job_spec);
    add(&jobs, obj(KUBE_KIND_JOB, job));
    build_plain(pods, &jobs, &graphs, s);
    return &s->pod[s->n_pod - 1];
}

/* The victim's Job decides: retries left under spec.backoffLimit (its failed pods and those being
 * deleted counted), any number with a podFailurePolicy that ignores DisruptionTarget. */
static void test_owner_facts(void **state)
{
    (void)state;
    ctl_snapshot s;
    kube_obj_list pods = {0};
    const ctl_pod *p = owned_pod(&pods, "\"backoffLimit\":3", &s);
    assert_int_equal(p->owner_evictions_left, 2);
    assert_string_equal(p->owner_uid, "job-w");
    ctl_snapshot_free(&s);

    kube_obj_list pods2 = {0};
    p = owned_pod(&pods2, "\"backoffLimit\":1", &s);
    assert_int_equal(p->owner_evictions_left, 0);
    assert_int_equal(p->owner_verdict, DS_RETRY_JOB_EXHAUSTED);
    ctl_snapshot_free(&s);

    /* A sibling pod being deleted is an eviction on its way: one retry fewer. */
    kube_obj_list pods3 = {0};
    add(&pods3, obj(KUBE_KIND_POD,
                    "{\"metadata\":{\"name\":\"w-old\",\"namespace\":\"b\",\"uid\":\"u-old\","
                    "\"resourceVersion\":\"1\",\"deletionTimestamp\":\"2026-11-22T10:00:00Z\","
                    "\"ownerReferences\":[{\"kind\":\"Job\",\"name\":\"w\",\"uid\":\"job-w\","
                    "\"controller\":true}]},\"spec\":{\"nodeName\":\"n1\",\"containers\":[]},"
                    "\"status\":{\"phase\":\"Running\"}}"));
    p = owned_pod(&pods3, "\"backoffLimit\":3", &s);
    assert_int_equal(p->owner_evictions_left, 1);
    ctl_snapshot_free(&s);

    kube_obj_list pods4 = {0};
    p = owned_pod(&pods4,
                  "\"backoffLimit\":0,\"podFailurePolicy\":{\"rules\":[{\"action\":\"Ignore\","
                  "\"onPodConditions\":[{\"type\":\"DisruptionTarget\"}]}]}",
                  &s);
    assert_int_equal(p->owner_evictions_left, DS_EVICTIONS_UNLIMITED);
    ctl_snapshot_free(&s);
}

/* An Argo Workflow's running pod: evictable as many times as its node's retryStrategy retries
 * errors; never without one. */
static void test_workflow_owner_facts(void **state)
{
    (void)state;
    for (int with_retry = 0; with_retry <= 1; with_retry++) {
        kube_obj_list pods = {0}, jobs = {0}, graphs = {0};
        add(&pods,
            obj(KUBE_KIND_POD, POD("wf-a-1",
                                   ",\"labels\":{\"workflows.argoproj.io/workflow\":\"wf\"},"
                                   "\"annotations\":{\"workflows.argoproj.io/node-id\":\"wf-2\"},"
                                   "\"ownerReferences\":[{\"kind\":\"Workflow\",\"name\":\"wf\","
                                   "\"uid\":\"w-uid\",\"controller\":true}]",
                                   ",\"nodeName\":\"n1\"", "{\"phase\":\"Running\"}")));
        char wf[2048];
        snprintf(wf, sizeof wf,
                 "{\"metadata\":{\"name\":\"wf\",\"namespace\":\"b\",\"uid\":\"w-uid\","
                 "\"resourceVersion\":\"3\"},\"spec\":{\"entrypoint\":\"main\",\"templates\":["
                 "{\"name\":\"main\",\"dag\":{\"tasks\":[{\"name\":\"a\",\"template\":"
                 "\"work\"}]}},{\"name\":\"work\",%s\"container\":{}}]},\"status\":{\"nodes\":{"
                 "\"wf-1\":{\"id\":\"wf-1\",\"name\":\"wf.a\",\"type\":\"Retry\","
                 "\"templateName\":\"work\",\"children\":[\"wf-2\"]},"
                 "\"wf-2\":{\"id\":\"wf-2\",\"name\":\"wf.a(0)\",\"type\":\"Pod\","
                 "\"templateName\":\"work\",\"phase\":\"Running\"}}}}",
                 with_retry ? "\"retryStrategy\":{\"limit\":2,\"retryPolicy\":\"Always\"}," : "");
        add(&graphs, obj(KUBE_KIND_WORKFLOW, wf));
        ctl_snapshot s;
        build_plain(&pods, &jobs, &graphs, &s);
        const ctl_pod *p = &s.pod[0];
        if (with_retry) {
            assert_int_equal(p->owner_evictions_left, 2);
        } else {
            assert_int_equal(p->owner_evictions_left, 0);
            assert_int_equal(p->owner_verdict, DS_RETRY_WORKFLOW);
        }
        ctl_snapshot_free(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_snapshot),
        cmocka_unit_test(test_unknown_namespace),
        cmocka_unit_test(test_namespace_being_deleted),
        cmocka_unit_test(test_fair_queue_order),
        cmocka_unit_test(test_pod_over_bounds),
        cmocka_unit_test(test_any_creation_order),
        cmocka_unit_test(test_owner_facts),
        cmocka_unit_test(test_workflow_owner_facts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
