/* test_preempt.c: unit tests of one preemption round over the controller's view: which pod is
 * evicted for which preemptor on which node, and every guard, limit and check that keeps a pod
 * from being evicted. Scenarios are small enough to compute the expected decision by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>

#include "ctl_test_util.h"
#include "preempt.h"

/* Two 4-cpu nodes full of a low-priority job's 2-cpu tasks (priorities n1: 0.5, 0.3; n2: 0.4,
 * 0.6) in namespace "batch" and one urgent 2-cpu task of another job (slack 5 s, priority 0.2)
 * in namespace "prod". The scene's policy trusts "prod" to preempt across namespaces at equal
 * Kubernetes priority, so that the other guards can be tested on it; the pair rule itself is
 * tested with the default policy (test_cross_namespace_*). */
typedef struct scene {
    ds_dag low, urg;
    const ds_dag *dags[2];
    ctl_node nodes[2];
    ctl_pod pods[8];
    size_t n_pods;
    ds_policy pol;
    ctl_ledger ledger;
    const bool *held_for_room; /* passed as ctl_preempt_in.held_for_room */
    bool release_limited;      /* and ctl_preempt_in.release_limited, release_slots */
    size_t release_slots;
    ctl_preempt_in in;
} scene;

enum { R0 = 0, R1, R2, R3, W };

/* spec.preemption.crossNamespace: {trustedNamespaces: [ns], requireHigherPriority: higher}. */
static void trust(ds_policy *p, const char *ns, bool higher)
{
    p->cross_ns_trusted.n = 1;
    snprintf(p->cross_ns_trusted.name[0], sizeof p->cross_ns_trusted.name[0], "%s", ns);
    p->cross_ns_require_higher = higher;
}

static void scene_init(scene *s)
{
    memset(s, 0, sizeof *s);
    assert_int_equal(t_flat_dag(&s->low, 4), 0);
    assert_int_equal(t_flat_dag(&s->urg, 2), 0);
    s->dags[0] = &s->low;
    s->dags[1] = &s->urg;
    s->nodes[0] = t_node("n1", MILLI(4));
    s->nodes[1] = t_node("n2", MILLI(4));
    s->pods[R0] = t_running("batch", "r0", "n1", 0, 0, 0.5, MILLI(2));
    s->pods[R1] = t_running("batch", "r1", "n1", 0, 1, 0.3, MILLI(2));
    s->pods[R2] = t_running("batch", "r2", "n2", 0, 2, 0.4, MILLI(2));
    s->pods[R3] = t_running("batch", "r3", "n2", 0, 3, 0.6, MILLI(2));
    s->pods[W] = t_waiting("prod", "w", 1, 0, 0.2, 5.0, MILLI(2));
    s->n_pods = 5;
    ds_policy_defaults(&s->pol);
    trust(&s->pol, "prod", false);
    ctl_ledger_init(&s->ledger);
}

static void scene_free(scene *s)
{
    ds_dag_free(&s->low);
    ds_dag_free(&s->urg);
    ctl_ledger_free(&s->ledger);
}

static void plan(scene *s, ctl_preempt_out *out)
{
    s->in = (ctl_preempt_in){.pods = s->pods,
                             .n_pods = s->n_pods,
                             .nodes = s->nodes,
                             .n_nodes = 2,
                             .dags = s->dags,
                             .n_jobs = 2,
                             .policy = &s->pol,
                             .ledger = &s->ledger,
                             .held_for_room = s->held_for_room,
                             .release_limited = s->release_limited,
                             .release_slots = s->release_slots,
                             .now = NOW};
    ds_err err = {{0}};
    assert_int_equal(ctl_preempt_plan(&s->in, out, &err), 0);
}

static void add_ledger(ctl_ledger *l, double at, const char *vns, const char *vuid,
                       const char *node, const char *puid)
{
    ctl_ledger_entry e;
    memset(&e, 0, sizeof e);
    e.at = at;
    snprintf(e.victim_ns, sizeof e.victim_ns, "%s", vns);
    snprintf(e.victim_name, sizeof e.victim_name, "%s", vuid);
    snprintf(e.victim_uid, sizeof e.victim_uid, "%s", vuid);
    snprintf(e.node, sizeof e.node, "%s", node);
    snprintf(e.preemptor_ns, sizeof e.preemptor_ns, "prod");
    snprintf(e.preemptor_name, sizeof e.preemptor_name, "%s", puid);
    snprintf(e.preemptor_uid, sizeof e.preemptor_uid, "%s", puid);
    snprintf(e.reason, sizeof e.reason, "urgent");
    snprintf(e.result, sizeof e.result, CTL_LEDGER_EVICTED);
    assert_int_equal(ctl_ledger_add(l, &e, NULL), 0);
}

/* The lowest-priority pod on the node where evicting one pod makes room is evicted. */
static void test_urgent_evicts_lowest(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R1);
    assert_int_equal(out.ev[0].preemptor, W);
    assert_int_equal(out.ev[0].node, 0);
    assert_int_equal(out.ev[0].reason, DS_REASON_URGENT);
    assert_int_equal(out.n_waiting, 1);
    assert_int_equal(out.n_urgent, 1);
    assert_int_equal(out.n_running, 4);
    assert_int_equal(out.n_evictable, 4);
    assert_int_equal(out.guard[R1], CTL_GUARD_OK);
    assert_int_equal(out.guard[W], CTL_GUARD_NOT_RUNNING);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* Another scheduler's pods (ctl_pod.foreign: not schedulerName dagsched) are neither victims nor
 * preemptors: the lowest-priority pod foreign, the next-lowest goes; the waiting task foreign,
 * nothing does. */
static void test_foreign_pods_untouched(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.pods[R1].foreign = true;
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_not_equal(out.ev[0].victim, R1);
    assert_int_equal(out.guard[R1], CTL_GUARD_NOT_A_TASK);
    ctl_preempt_out_free(&out);
    s.pods[W].foreign = true;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    assert_int_equal(out.n_waiting, 0);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* A task with slack above the urgent threshold and a priority below every running task evicts
 * nothing while room comes in time (the running tasks end in 20 s, within its 31 s of slack less
 * 5 s to start). When room would come only in an hour it is urgent by the forecast
 * (ds_task_urgent) and evicts, with the forecast in the decision. */
static void test_not_urgent_low_priority_evicts_nothing(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.pods[W].task.eval.t_allow_s = 31.0;
    s.pods[W].task.job_slack_s = 31.0;
    for (int r = R0; r <= R3; r++)
        s.pods[r].task.eval.t_rem_s = 20;
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    assert_int_equal(out.n_urgent, 0);
    ctl_preempt_out_free(&out);
    for (int r = R0; r <= R3; r++)
        s.pods[r].task.eval.t_rem_s = 3600;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].reason, DS_REASON_URGENT);
    assert_true(out.ev[0].room_wait_s > 3599 && out.ev[0].room_wait_s <= 3600);
    ctl_preempt_out_free(&out);
    /* Its job's slack is what is at risk: 200 s for the task, 31 s for the job. */
    for (int r = R0; r <= R3; r++)
        s.pods[r].task.eval.t_rem_s = 60;
    s.pods[W].task.eval.t_allow_s = 200.0;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    ctl_preempt_out_free(&out);
    s.pods[W].task.job_slack_s = 200.0;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* Not found unschedulable by kube-scheduler yet: no preemption for it. */
static void test_pending_not_unschedulable_waits(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.pods[W].state = CTL_POD_PENDING;
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    assert_int_equal(out.n_waiting, 0);
    assert_int_equal(out.n_urgent, 1);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* A gated preemptor is released into the room its eviction makes: it takes a release slot
 * (spec.release.maxConcurrentReleases). With one slot left only the first gated preemptor gets an
 * eviction, with none no gated one does (their victims keep running); pending preemptors, which
 * kube-scheduler already has, are not limited. */
static void test_gated_preemptors_take_release_slots(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.pods[W].state = CTL_POD_GATED;
    s.pods[W + 1] = t_waiting("prod", "w2", 1, 1, 0.25, 5.0, MILLI(2));
    s.pods[W + 1].state = CTL_POD_GATED;
    s.n_pods = 6;
    bool held[8] = {false};
    held[W] = held[W + 1] = true;
    s.held_for_room = held;
    ctl_preempt_out out;
    plan(&s, &out); /* no limit: both */
    assert_int_equal(out.n_ev, 2);
    assert_int_equal(out.n_release_limit, 0);
    ctl_preempt_out_free(&out);

    size_t slots[] = {1, 0};
    s.release_limited = true;
    for (size_t k = 0; k < 2; k++) {
        s.release_slots = slots[k];
        plan(&s, &out);
        assert_int_equal(out.n_ev, slots[k]);
        assert_true(out.n_release_limit >= 1);
        for (size_t i = 0; i < out.n_ev; i++)
            assert_int_equal(out.ev[i].preemptor, out.ev[0].preemptor);
        ctl_preempt_out_free(&out);
    }

    /* Preemptors kube-scheduler already has (found unschedulable) take no slot. */
    s.pods[W].state = CTL_POD_UNSCHEDULABLE;
    s.pods[W + 1].state = CTL_POD_UNSCHEDULABLE;
    s.release_slots = 0;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 2);
    assert_int_equal(out.n_release_limit, 0);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* A gated pod is a preemptor only when the release rule holds it for lack of room this round
 * (ctl_preempt_in.held_for_room): held for another reason, or no flags at all, it evicts nothing.
 */
static void test_gated_held_for_room_preempts(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.pods[W].state = CTL_POD_GATED;
    ctl_preempt_out out;
    plan(&s, &out); /* no flags */
    assert_int_equal(out.n_ev, 0);
    assert_int_equal(out.n_waiting, 0);
    ctl_preempt_out_free(&out);
    bool held[8] = {false};
    s.held_for_room = held; /* flags, but not for W */
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    assert_int_equal(out.n_waiting, 0);
    ctl_preempt_out_free(&out);
    held[W] = true;
    plan(&s, &out);
    assert_int_equal(out.n_waiting, 1);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R1);
    assert_int_equal(out.ev[0].preemptor, W);
    assert_int_equal(out.ev[0].reason, DS_REASON_URGENT);
    ctl_preempt_out_free(&out);
    /* A flag on a pod that is not gated changes nothing: a pending pod waits for kube-scheduler. */
    s.pods[W].state = CTL_POD_PENDING;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

static void test_protected_namespace_and_class(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.pods[R1].ns = "kube-system";
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_PROTECTED_NS);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R2); /* next lowest, on n2 */
    assert_int_equal(out.ev[0].node, 1);
    ctl_preempt_out_free(&out);

    s.pods[R1].ns = "batch";
    s.pods[R1].priority_class = "system-node-critical";
    s.pods[R2].priority_class = "system-cluster-critical";
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_PROTECTED_CLASS);
    assert_int_equal(out.guard[R2], CTL_GUARD_PROTECTED_CLASS);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R0); /* 0.5 on n1 beats 0.6 on n2 */
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

static void test_pdb_protects(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    ctl_preempt_out out;
    s.pods[R1].n_pdbs = 1;
    s.pods[R1].pdb_blocks = true;
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_PDB);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R2);
    ctl_preempt_out_free(&out);

    /* A budget that allows a disruption does not block... */
    s.pods[R1].pdb_blocks = false;
    plan(&s, &out);
    assert_int_equal(out.ev[0].victim, R1);
    ctl_preempt_out_free(&out);
    /* ... unless its status is stale, or two budgets select the pod. */
    s.pods[R1].pdb_stale = true;
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_PDB_STALE);
    assert_int_equal(out.ev[0].victim, R2);
    ctl_preempt_out_free(&out);
    s.pods[R1].pdb_stale = false;
    s.pods[R1].n_pdbs = 2;
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_MULTIPLE_PDBS);
    assert_int_equal(out.ev[0].victim, R2);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* Condition C2 reaches the algorithm: a running ancestor of the preemptor is never its victim. */
static void test_ancestor_never_evicted(void **state)
{
    (void)state;
    ds_dag chain;
    assert_int_equal(t_chain_dag(&chain), 0);
    const ds_dag *dags[1] = {&chain};
    ctl_node nodes[1] = {t_node("n1", MILLI(4))};
    ctl_pod pods[2];
    pods[0] = t_running("batch", "a", "n1", 0, 0, 0.1, MILLI(4)); /* ancestor of c */
    pods[1] = t_waiting("batch", "c", 0, 2, 0.9, 5.0, MILLI(2));
    ds_policy pol;
    ds_policy_defaults(&pol);
    ctl_ledger l;
    ctl_ledger_init(&l);
    ctl_preempt_in in = {.pods = pods,
                         .n_pods = 2,
                         .nodes = nodes,
                         .n_nodes = 1,
                         .dags = dags,
                         .n_jobs = 1,
                         .policy = &pol,
                         .ledger = &l,
                         .now = NOW};
    ctl_preempt_out out;
    assert_int_equal(ctl_preempt_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_ev, 0);
    assert_int_equal(out.guard[0], CTL_GUARD_OK); /* evictable in general, not for c */
    ctl_preempt_out_free(&out);
    /* Swapped roles: the running pod is task c and the preemptor task a; c descends from a, so
     * it may be evicted. */
    pods[0].task.task = 2;
    pods[1].task.task = 0;
    assert_int_equal(ctl_preempt_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, 0);
    ctl_preempt_out_free(&out);
    ds_dag_free(&chain);
}

/* rho with the paper's normalisation: a gap of exactly one average neighbour gap is not enough at
 * rho 1.5, but is at rho 0. (The default normalisation, the ratio, is tested in
 * tests/unit/test_preempt_rules.c.) */
static void test_rho(void **state)
{
    (void)state;
    ds_dag d0, d1;
    assert_int_equal(t_flat_dag(&d0, 1), 0);
    assert_int_equal(t_flat_dag(&d1, 1), 0);
    const ds_dag *dags[2] = {&d0, &d1};
    ctl_node nodes[1] = {t_node("n1", MILLI(4))};
    ctl_pod pods[2];
    pods[0] = t_running("batch", "low", "n1", 0, 0, 1.0, MILLI(4));
    /* Not urgent (a minute of slack), so only the priority gap can justify an eviction. */
    pods[1] = t_waiting("batch", "high", 1, 0, 1.1, 60, MILLI(4));
    ds_policy pol;
    ds_policy_defaults(&pol);
    pol.preemption.norm = DS_NORM_PAPER;
    pol.preemption.payoff = false; /* the paper's rule: no urgency by forecast */
    ctl_ledger l;
    ctl_ledger_init(&l);
    ctl_preempt_in in = {.pods = pods,
                         .n_pods = 2,
                         .nodes = nodes,
                         .n_nodes = 1,
                         .dags = dags,
                         .n_jobs = 2,
                         .policy = &pol,
                         .ledger = &l,
                         .now = NOW};
    ctl_preempt_out out;
    assert_int_equal(ctl_preempt_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_ev, 0);
    assert_int_equal(out.n_waiting, 1);
    ctl_preempt_out_free(&out);

    pol.preemption.rho = 0.0;
    assert_int_equal(ctl_preempt_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, 0);
    assert_int_equal(out.ev[0].preemptor, 1);
    assert_int_equal(out.ev[0].reason, DS_REASON_PRIORITY);
    assert_true(fabs(out.ev[0].gap - 0.1) < 1e-9);
    assert_true(fabs(out.ev[0].normalised_gap - 1.0) < 1e-9);
    ctl_preempt_out_free(&out);

    /* A lower-priority waiting task never evicts a higher one, whatever rho. */
    pods[1].task.eval.priority = 0.9;
    assert_int_equal(ctl_preempt_plan(&in, &out, NULL), 0);
    assert_int_equal(out.n_ev, 0);
    ctl_preempt_out_free(&out);
    ds_dag_free(&d0);
    ds_dag_free(&d1);
}

/* An eviction made for the preemptor within the cooldown holds it back (its room is coming). */
static void test_preemptor_cooldown(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    add_ledger(&s.ledger, NOW - 100, "batch", "gone", "n1", "w");
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    assert_int_equal(out.n_cooling, 1);
    ctl_preempt_out_free(&out);
    s.pol.cooldown_s = 60; /* the same entry is now older than the cooldown */
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* A victim whose eviction was requested within the cooldown (annotation or ledger) is skipped. */
static void test_victim_cooldown(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.pods[R1].evicted_at = NOW - 30;
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_COOLDOWN);
    assert_int_equal(out.ev[0].victim, R2);
    ctl_preempt_out_free(&out);
    s.pods[R1].evicted_at = NAN;
    add_ledger(&s.ledger, NOW - 30, "batch", "r1", "n1", "other");
    s.pol.max_evictions_per_node = 2; /* so that n1's budget is not what stops it */
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_COOLDOWN);
    assert_int_equal(out.ev[0].victim, R2);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* Cooldowns follow the task, not the pod: R1 is the replacement of batch/low/t1's pod evicted
 * 30 s ago (another UID and name): it is not evicted again; and a waiting task that was itself
 * evicted within the cooldown evicts nobody (no cascade), while it would once the cooldown is
 * over. */
static void test_cooldown_follows_the_task(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.pods[R1].task.job_name = "low";
    s.pods[R1].task.task_name = "t1";
    s.pods[W].task.job_name = "urg";
    s.pods[W].task.task_name = "t0";
    ctl_ledger_entry e;
    memset(&e, 0, sizeof e);
    e.at = NOW - 30;
    strcpy(e.victim_ns, "batch");
    strcpy(e.victim_name, "r1-old");
    strcpy(e.victim_uid, "uid-r1-old");
    strcpy(e.victim_job, "low");
    strcpy(e.victim_task, "t1");
    strcpy(e.node, "n1");
    strcpy(e.preemptor_ns, "elsewhere");
    strcpy(e.preemptor_name, "x");
    strcpy(e.preemptor_uid, "uid-x");
    strcpy(e.reason, "urgent");
    strcpy(e.result, CTL_LEDGER_EVICTED);
    assert_int_equal(ctl_ledger_add(&s.ledger, &e, NULL), 0);
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_COOLDOWN);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R2);
    ctl_preempt_out_free(&out);
    /* The urgent task's own earlier pod was evicted 30 s ago: its replacement evicts nobody. */
    strcpy(e.victim_ns, "prod");
    strcpy(e.victim_job, "urg");
    strcpy(e.victim_task, "t0");
    strcpy(e.victim_uid, "uid-w-old");
    assert_int_equal(ctl_ledger_add(&s.ledger, &e, NULL), 0);
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    assert_int_equal(out.n_cooling, 1);
    ctl_preempt_out_free(&out);
    /* An eviction made for the task's earlier pod holds its replacement back too. */
    ctl_ledger_clear(&s.ledger);
    strcpy(e.victim_job, "");
    strcpy(e.preemptor_ns, "prod");
    strcpy(e.preemptor_job, "urg");
    strcpy(e.preemptor_task, "t0");
    assert_int_equal(ctl_ledger_add(&s.ledger, &e, NULL), 0);
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    assert_int_equal(out.n_cooling, 1);
    ctl_preempt_out_free(&out);
    /* After the cooldown (default 5 min) the task may preempt again. */
    ctl_ledger_clear(&s.ledger);
    e.at = NOW - 400;
    assert_int_equal(ctl_ledger_add(&s.ledger, &e, NULL), 0);
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

static void test_limits(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    ctl_preempt_out out;
    /* Total per minute used up by evictions of the last minute. */
    for (int i = 0; i < 10; i++)
        add_ledger(&s.ledger, NOW - 59, "elsewhere", "x", "n9", "y");
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    ctl_preempt_out_free(&out);
    /* One minute later they no longer count. */
    ctl_ledger_clear(&s.ledger);
    for (int i = 0; i < 10; i++)
        add_ledger(&s.ledger, NOW - 61, "elsewhere", "x", "n9", "y");
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    ctl_preempt_out_free(&out);
    /* Per node per epoch: n1 had one 5 s ago, so the victim is on n2. */
    ctl_ledger_clear(&s.ledger);
    add_ledger(&s.ledger, NOW - 5, "batch", "x", "n1", "y");
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R2);
    ctl_preempt_out_free(&out);
    /* Per namespace per minute. */
    ctl_ledger_clear(&s.ledger);
    s.pol.max_evictions_per_namespace = 2;
    add_ledger(&s.ledger, NOW - 30, "batch", "x", "n9", "y");
    add_ledger(&s.ledger, NOW - 30, "batch", "z", "n9", "y");
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    assert_int_equal(out.guard[R1], CTL_GUARD_NAMESPACE_LIMIT);
    ctl_preempt_out_free(&out);
    /* Preemption disabled: counts, no plan. */
    ctl_ledger_clear(&s.ledger);
    s.pol.preemption_enabled = false;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    assert_int_equal(out.n_waiting, 1);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* Two urgent preemptors, a namespace limit of one: the second plan is removed after the
 * algorithm, and the rounds that follow find no other victim outside the namespace. */
static void test_namespace_limit_within_round(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.pol.max_evictions_per_namespace = 1;
    s.pods[5] = t_waiting("prod", "w2", 1, 1, 0.15, 6.0, MILLI(2));
    s.n_pods = 6;
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R1);
    assert_int_equal(out.ev[0].preemptor, W);
    assert_true(out.n_dropped >= 1);
    ctl_preempt_out_free(&out);
    /* With room for two in the namespace both get a victim, one per node. */
    s.pol.max_evictions_per_namespace = 2;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 2);
    assert_int_equal(out.ev[0].victim, R1);
    assert_int_equal(out.ev[1].victim, R2);
    assert_int_equal(out.ev[1].preemptor, 5);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* Two urgent preemptors whose lowest victims R1 and R2 belong to one Job with one retry left:
 * evicting both would fail that Job, so one is evicted and the other is not; with two retries
 * left, both. */
static void test_owner_retries_within_round(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.pods[5] = t_waiting("prod", "w2", 1, 1, 0.15, 6.0, MILLI(2));
    s.n_pods = 6;
    s.pods[R1].owner_uid = s.pods[R2].owner_uid = "job-uid";
    s.pods[R1].owner_evictions_left = s.pods[R2].owner_evictions_left = 1;
    ctl_preempt_out out;
    plan(&s, &out);
    size_t of_job = 0;
    for (size_t i = 0; i < out.n_ev; i++)
        of_job += out.ev[i].victim == R1 || out.ev[i].victim == R2;
    assert_int_equal(of_job, 1);
    assert_int_equal(out.guard[R2], CTL_GUARD_OWNER_WOULD_FAIL);
    ctl_preempt_out_free(&out);
    s.pods[R1].owner_evictions_left = s.pods[R2].owner_evictions_left = 2;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 2);
    assert_int_equal(out.ev[0].victim, R1);
    assert_int_equal(out.ev[1].victim, R2);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* Never evict a pod of higher Kubernetes priority than the preemptor. */
static void test_kubernetes_priority_pair(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.pods[R1].k8s_priority = 1000;
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R2);
    assert_int_equal(out.n_dropped, 1);
    ctl_preempt_out_free(&out);
    s.pods[W].k8s_priority = 1000; /* equal: allowed */
    plan(&s, &out);
    assert_int_equal(out.ev[0].victim, R1);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* The default policy keeps preemption within a namespace: the urgent "prod" task evicts none of
 * the "batch" pods, which show the cross-namespace guard; in its own namespace it evicts. */
static void test_cross_namespace_default(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    ds_policy_defaults(&s.pol);
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    assert_int_equal(out.guard[R1], CTL_GUARD_CROSS_NAMESPACE);
    assert_string_equal(ctl_guard_name(CTL_GUARD_CROSS_NAMESPACE), "cross-namespace");
    ctl_preempt_out_free(&out);
    s.pods[W].ns = "batch";
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R1);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* A trusted namespace preempts across namespaces only with a strictly higher Kubernetes priority
 * (requireHigherPriority: true, the default), never against a higher one. */
static void test_cross_namespace_trusted(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    trust(&s.pol, "prod", true);
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0); /* equal priority 0 */
    ctl_preempt_out_free(&out);
    s.pods[W].k8s_priority = 100;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R1);
    ctl_preempt_out_free(&out);
    trust(&s.pol, "staging", true); /* another namespace is trusted, not "prod" */
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* A preemptor whose deadline has passed (slack -1 h) or that would miss it on every node even if
 * it started now evicts nothing: no eviction can save it. A fast node can still save a task
 * whose slack at reference speed is slightly negative. */
static void test_lost_deadline_never_preempts(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.pods[W].task.eval.t_allow_s = -3600.0;
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    assert_int_equal(out.n_urgent, 1); /* still counted as urgent, just not preempting */
    ctl_preempt_out_free(&out);
    /* Slack -5 s with 20 s of work left: lost at speed 1, saved on a node of speed 2 (10 s). */
    s.pods[W].task.eval.t_allow_s = -5.0;
    s.pods[W].task.eval.t_rem_s = 20.0;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    ctl_preempt_out_free(&out);
    s.nodes[1].speed = 2.0;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R2); /* n2, the only node where it can still make it */
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* Terminating, too young, without owner, DaemonSet, mirror, not opted in, no slack. */
/* Dice and the default victims: a task evicted maxEvictionsPerTask (2) times over its life, a
 * task with a deadline of its own, and long tasks on a node where one was evicted within the
 * window are all held back; the urgent task takes the pod that remains. */
static void test_dice_and_deadline_guards(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.pods[R1].task.job_name = "low";
    s.pods[R1].task.task_name = "t1";
    ctl_ledger_entry e;
    memset(&e, 0, sizeof e);
    strcpy(e.victim_ns, "batch");
    strcpy(e.victim_job, "low");
    strcpy(e.victim_task, "t1");
    strcpy(e.node, "n1");
    strcpy(e.preemptor_ns, "elsewhere");
    strcpy(e.reason, "urgent");
    strcpy(e.result, CTL_LEDGER_EVICTED);
    for (int i = 0; i < 2; i++) { /* long ago: no cooldown, no window */
        e.at = NOW - 3000 - 1000 * i;
        snprintf(e.victim_uid, sizeof e.victim_uid, "uid-r1-old-%d", i);
        assert_int_equal(ctl_ledger_add(&s.ledger, &e, NULL), 0);
    }
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_TASK_LIMIT);
    assert_int_equal(out.ev[0].victim, R2);
    ctl_preempt_out_free(&out);
    s.pol.max_evictions_per_task = 3;
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_OK);
    ctl_preempt_out_free(&out);
    s.pol.max_evictions_per_task = 2;

    /* R2 has a deadline of its own (an hour and a half of slack). */
    s.pods[R2].task.eval.t_allow_s = 5400;
    plan(&s, &out);
    assert_int_equal(out.guard[R2], CTL_GUARD_HAS_DEADLINE);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R0);
    ctl_preempt_out_free(&out);
    s.pol.preemption.deadline_victims = true;
    plan(&s, &out);
    assert_int_equal(out.guard[R2], CTL_GUARD_OK);
    ctl_preempt_out_free(&out);
    s.pol.preemption.deadline_victims = false;
    s.pods[R2].task.eval.t_allow_s = INFINITY;

    /* A long task was evicted on n1 a minute ago (window 100 s): n1's pods (long: 10 min run,
     * an hour left) stay; n2's lowest-priority pod goes. */
    e.at = NOW - 60;
    e.victim_long = true;
    strcpy(e.victim_job, "other");
    strcpy(e.victim_uid, "uid-long");
    assert_int_equal(ctl_ledger_add(&s.ledger, &e, NULL), 0);
    plan(&s, &out);
    assert_int_equal(out.guard[R0], CTL_GUARD_LONG_TASK);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R2);
    assert_int_equal(out.ev[0].node, 1);
    ctl_preempt_out_free(&out);
    assert_string_equal(ctl_guard_name(CTL_GUARD_LONG_TASK), "long-task");
    assert_string_equal(ctl_guard_name(CTL_GUARD_TASK_LIMIT), "task-eviction-limit");
    assert_string_equal(ctl_guard_name(CTL_GUARD_HAS_DEADLINE), "has-deadline");
    scene_free(&s);
}

/* The queue order (spec.order) between preemptor and victim: a victim whose job comes first in
 * the order across jobs (less remaining work under shortestRemaining) is never evicted for it. */
static void test_queue_order_and_ahead(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    ctl_preempt_out out;
    /* Every running job before the urgent one (less remaining work): nothing. */
    for (int r = R0; r <= R3; r++)
        s.pods[r].task.order[0] = 50;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    ctl_preempt_out_free(&out);
    s.pol.preemption.queue_order = false;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R1);
    ctl_preempt_out_free(&out);
    s.pol.preemption.queue_order = true;
    /* Only R2 and R3's job after it: R2, the lower of the two. */
    s.pods[R2].task.order[0] = s.pods[R3].task.order[0] = 200;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R2);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* The scene with the urgent task at queue position 1, 20 s of slack, and r1 ending in 10 s. */
static void scene_r1_ends_soon(scene *s)
{
    scene_init(s);
    s->pods[W].task.eval.t_allow_s = 20;
    s->pods[W].task.job_slack_s = 20;
    s->pods[R1].task.eval.t_rem_s = 10;
    s->pods[W].task.queue_pos = 1;
}

/* Room that frees anyway, behind the tasks ahead: r1 ends in 10 s, within what the urgent task
 * (20 s of slack, 5 s to start) can wait: nothing is evicted. Once a gated task ahead of it in
 * the queue wants the 2 cpu r1 frees, the next room is an hour away: an eviction pays, even of
 * r1 (its end gives the task ahead its room, not the urgent one), the lowest priority. */
static void test_room_frees_behind_queue(void **state)
{
    (void)state;
    scene s;
    scene_r1_ends_soon(&s);
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0); /* r1's 2 cpu come in 10 s */
    ctl_preempt_out_free(&out);
    /* A gated task of another job ahead of it in the queue wants those 2 cpu. */
    s.pods[s.n_pods] = t_waiting("batch", "ahead", 0, 3, 0.9, INFINITY, MILLI(2));
    s.pods[s.n_pods].state = CTL_POD_GATED;
    s.pods[s.n_pods].task.queue_pos = 0;
    s.n_pods++;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].preemptor, W);
    assert_int_equal(out.ev[0].victim, R1);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* A task already released to kube-scheduler (pending, a look-ahead release) takes room that frees
 * before a gated preemptor, whatever dagsched's order says: kube-scheduler binds what is in its
 * queue. Gated, the urgent task then sees r1's 2 cpu go to that task, and an eviction pays (of
 * r1, the lowest priority: its end would not give the urgent task room); pending itself (in
 * kube-scheduler's queue too), it comes first by the order and nothing is evicted. */
static void test_released_task_takes_room_first(void **state)
{
    (void)state;
    scene s;
    scene_r1_ends_soon(&s);
    s.pods[W].state = CTL_POD_GATED;
    bool held[8] = {false};
    held[W] = true;
    s.held_for_room = held;
    s.pods[s.n_pods] = t_waiting("batch", "released", 0, 3, 0.1, INFINITY, MILLI(2));
    s.pods[s.n_pods].state = CTL_POD_PENDING;
    s.pods[s.n_pods].task.queue_pos = 5; /* behind W in dagsched's order */
    s.n_pods++;
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].preemptor, W);
    assert_int_equal(out.ev[0].victim, R1);
    ctl_preempt_out_free(&out);
    /* Two released tasks of 4 cpu: every known end together (8 cpu) never frees room for them
     * and the urgent one, 100 s of slack or not. That is a deadline at risk, not "no forecast". */
    s.pods[s.n_pods - 1].request.v[DS_RES_CPU] = MILLI(4);
    s.pods[s.n_pods] = s.pods[s.n_pods - 1];
    s.pods[s.n_pods].name = "released-2";
    s.pods[s.n_pods].uid = "uid-released-2";
    s.n_pods++;
    s.pods[W].task.eval.t_allow_s = 100; /* beyond the urgent threshold: by the forecast alone */
    s.pods[W].task.job_slack_s = 100;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].reason, DS_REASON_URGENT);
    assert_true(isinf(out.ev[0].room_wait_s));
    ctl_preempt_out_free(&out);
    /* Tasks that fit no node even empty (100 cpu) never take room: r1's room in 10 s is in time,
     * and nothing is evicted. */
    s.pods[s.n_pods - 1].request.v[DS_RES_CPU] = MILLI(100);
    s.pods[s.n_pods - 2].request.v[DS_RES_CPU] = MILLI(100);
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    ctl_preempt_out_free(&out);
    s.pods[s.n_pods - 1].request.v[DS_RES_CPU] = MILLI(4);
    s.pods[s.n_pods - 2].request.v[DS_RES_CPU] = MILLI(4);
    /* But when a running task's end is not known (r0 overran its run time), the room may yet come
     * from it: not forecast, not urgent. */
    s.pods[R0].task.eval.t_rem_s = 0;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    ctl_preempt_out_free(&out);
    s.pods[R0].task.eval.t_rem_s = 3600;
    s.n_pods--; /* one released task of 2 cpu again */
    s.pods[s.n_pods - 1].request.v[DS_RES_CPU] = MILLI(2);
    s.pods[W].task.eval.t_allow_s = 20;
    s.pods[W].task.job_slack_s = 20;
    /* The released task carries another gate: not in kube-scheduler's queue, takes nothing. */
    s.pods[s.n_pods - 1].other_gates = true;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    ctl_preempt_out_free(&out);
    s.pods[s.n_pods - 1].other_gates = false;
    /* W pending: both are in kube-scheduler's queue, W first by the order. */
    s.pods[W].state = CTL_POD_UNSCHEDULABLE;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* The job rule (lib/job_room.h): the urgent task a of a chain a -> b -> c makes room for itself,
 * but b, still blocked, needs 4 cpu within 100 s and the cluster frees nothing for an hour: the
 * job is late whatever this eviction does, and nothing is evicted. When b needs only the 2 cpu
 * that a's room passes on, or without the rule, the eviction is made. */
static void test_job_rule(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    ds_dag_free(&s.urg);
    assert_int_equal(t_chain_dag(&s.urg), 0);
    ctl_pod *b = &s.pods[s.n_pods++];
    *b = t_waiting("prod", "b", 1, 1, 0.2, 100, MILLI(4));
    b->state = CTL_POD_GATED;
    b->task.state = DS_TASK_BLOCKED;
    ctl_preempt_out out;
    assert_false(s.pol.preemption.job_room); /* off by default */
    s.pol.preemption.job_room = true;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    ctl_preempt_out_free(&out);
    s.pol.preemption.job_room = false;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].preemptor, W);
    ctl_preempt_out_free(&out);
    s.pol.preemption.job_room = true;
    b->request.v[DS_RES_CPU] = MILLI(2);
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].preemptor, W);
    ctl_preempt_out_free(&out);
    /* A terminating pod of b counts for nothing; nor does a b without a deadline. */
    b->request.v[DS_RES_CPU] = MILLI(4);
    b->terminating = true;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    ctl_preempt_out_free(&out);
    b->terminating = false;
    b->task.eval.t_allow_s = INFINITY;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* The job deadline rule: an urgent task whose job misses its deadline even if all its remaining
 * tasks got room now (the tracker's job summary) evicts nothing. */
static void test_job_deadline_rule(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.n_job_late, 0);
    ctl_preempt_out_free(&out);
    /* The task's level deadline is within reach, its job's is not. */
    s.pods[W].task.job_slack_s = -600;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    assert_int_equal(out.n_job_late, 1); /* said in the round's log line */
    assert_int_equal(out.n_too_late, 0);
    ctl_preempt_out_free(&out);
    /* A task whose own deadline is out of reach on every node is counted as such. */
    s.pods[W].task.eval.t_allow_s = -10;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    assert_int_equal(out.n_too_late, 1);
    assert_int_equal(out.n_job_late, 0);
    ctl_preempt_out_free(&out);
    s.pods[W].task.eval.t_allow_s = 5;
    s.pol.preemption.payoff = false; /* the paper's rule does not look at the job */
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    ctl_preempt_out_free(&out);
    s.pol.preemption.payoff = true;
    s.pods[W].task.job_slack_s = NAN; /* not known: not judged */
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

static void test_other_guards(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    ctl_preempt_out out;
    s.pods[R1].terminating = true;
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_TERMINATING);
    assert_int_equal(out.ev[0].victim, R2);
    ctl_preempt_out_free(&out);
    s.pods[R1].terminating = false;

    s.pods[R1].started_at = NOW - 59; /* minRunTime 60 s */
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_MIN_RUN_TIME);
    assert_int_equal(out.ev[0].victim, R2);
    ctl_preempt_out_free(&out);
    s.pods[R1].started_at = NOW - 60;
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_OK);
    ctl_preempt_out_free(&out);

    s.pods[R1].owner_evictions_left = 0;
    s.pods[R1].owner_verdict = DS_RETRY_BARE;
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_NO_OWNER);
    ctl_preempt_out_free(&out);
    s.pods[R1].owner_verdict = DS_RETRY_DAEMONSET;
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_DAEMONSET);
    ctl_preempt_out_free(&out);
    /* A Job out of retries, an Argo Workflow's pod: evicting it would fail its owner. */
    s.pods[R1].owner_verdict = DS_RETRY_JOB_EXHAUSTED;
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_OWNER_WOULD_FAIL);
    ctl_preempt_out_free(&out);
    s.pods[R1].owner_verdict = DS_RETRY_WORKFLOW;
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_OWNER_WOULD_FAIL);
    ctl_preempt_out_free(&out);
    s.pods[R1].owner_evictions_left = DS_EVICTIONS_UNLIMITED;
    s.pods[R1].owner_verdict = DS_RETRY_OK;
    s.pods[R1].mirror = true;
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_MIRROR);
    ctl_preempt_out_free(&out);
    s.pods[R1].mirror = false;

    /* Opt-in selector: only pods labelled preemptible=true. */
    s.pol.opt_in_selector.n = 1;
    snprintf(s.pol.opt_in_selector.key[0], DS_LABEL_KEY_MAX, "preemptible");
    snprintf(s.pol.opt_in_selector.value[0], DS_LABEL_VALUE_MAX, "true");
    ctl_kv yes[] = {{"preemptible", "true"}};
    s.pods[R3].labels = yes;
    s.pods[R3].n_labels = 1;
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_NOT_OPTED_IN);
    assert_int_equal(out.guard[R3], CTL_GUARD_OK);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R3);
    ctl_preempt_out_free(&out);
    s.pol.opt_in_selector.n = 0;

    /* A victim whose own slack is within one epoch cannot afford the delay. */
    s.pods[R1].task.eval.t_allow_s = 10.0;
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_NO_SLACK);
    assert_int_equal(out.ev[0].victim, R2);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

static void set_selector(ds_label_selector *sel, const char *key, const char *value)
{
    memset(sel, 0, sizeof *sel);
    sel->n = 1;
    snprintf(sel->key[0], DS_LABEL_KEY_MAX, "%s", key);
    snprintf(sel->value[0], DS_LABEL_VALUE_MAX, "%s", value);
}

static void in_namespace(ctl_pod *p, const char *ns, const ctl_kv *labels, size_t n)
{
    p->ns = ns;
    p->ns_known = true;
    p->ns_labels = labels;
    p->n_ns_labels = n;
}

/* spec.preemption.namespaceSelector: only pods of namespaces whose labels match may be evicted,
 * and with a podSelector only those that match both; a namespace not in the cache is never
 * opted in; an empty selector changes nothing. */
static void test_namespace_selector(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    ctl_preempt_out out;
    const ctl_kv ml[] = {{"kubernetes.io/metadata.name", "ml"}, {"team", "ml"}};
    const ctl_kv web[] = {{"kubernetes.io/metadata.name", "web"}, {"team", "web"}};

    /* Without a namespace selector, namespaces unknown to the cache are no obstacle (the
     * behaviour before namespace selectors existed). */
    plan(&s, &out);
    assert_false(s.pods[R1].ns_known);
    assert_int_equal(out.guard[R1], CTL_GUARD_OK);
    assert_int_equal(out.ev[0].victim, R1);
    ctl_preempt_out_free(&out);

    /* With one, a namespace the controller has not seen is not opted in: nothing is evicted. */
    set_selector(&s.pol.opt_in_namespace_selector, "team", "ml");
    plan(&s, &out);
    for (int r = R0; r <= R3; r++)
        assert_int_equal(out.guard[r], CTL_GUARD_NS_UNKNOWN);
    assert_int_equal(out.n_evictable, 0);
    assert_int_equal(out.n_ev, 0);
    ctl_preempt_out_free(&out);

    /* Every running pod in namespace ml (team=ml): the lowest-priority one goes, as before. */
    for (int r = R0; r <= R3; r++)
        in_namespace(&s.pods[r], "ml", ml, 2);
    plan(&s, &out);
    assert_int_equal(out.n_evictable, 4);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R1);
    ctl_preempt_out_free(&out);

    /* The lowest (r1) in namespace web (team=web, not selected): the next lowest, r2, goes. */
    in_namespace(&s.pods[R1], "web", web, 2);
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_NS_NOT_OPTED_IN);
    assert_int_equal(out.n_evictable, 3);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R2);
    ctl_preempt_out_free(&out);

    /* A namespace without any labels matches no selector. */
    in_namespace(&s.pods[R1], "bare", NULL, 0);
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_NS_NOT_OPTED_IN);
    ctl_preempt_out_free(&out);

    /* Both selectors: namespace AND pod labels. r1 in web fails the namespace selector first;
     * r2 (ml, unlabelled) fails the pod selector; r3 (ml, labelled) is the only victim, although
     * r0 and r2 have lower priorities. */
    in_namespace(&s.pods[R1], "web", web, 2);
    set_selector(&s.pol.opt_in_selector, "preemptible", "true");
    const ctl_kv yes[] = {{"preemptible", "true"}};
    s.pods[R1].labels = yes; /* labelled, but in a namespace not selected */
    s.pods[R1].n_labels = 1;
    s.pods[R3].labels = yes;
    s.pods[R3].n_labels = 1;
    plan(&s, &out);
    assert_int_equal(out.guard[R0], CTL_GUARD_NOT_OPTED_IN);
    assert_int_equal(out.guard[R1], CTL_GUARD_NS_NOT_OPTED_IN);
    assert_int_equal(out.guard[R2], CTL_GUARD_NOT_OPTED_IN);
    assert_int_equal(out.guard[R3], CTL_GUARD_OK);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R3);
    ctl_preempt_out_free(&out);

    /* A protected namespace stays protected whatever its labels. */
    s.pol.protected_namespaces.n = 1;
    snprintf(s.pol.protected_namespaces.name[0], DS_POLICY_NAME_MAX, "ml");
    plan(&s, &out);
    assert_int_equal(out.guard[R3], CTL_GUARD_PROTECTED_NS);
    assert_int_equal(out.n_ev, 0);
    ctl_preempt_out_free(&out);

    /* A selector written as {} selects every namespace again, known or not. */
    memset(&s.pol.opt_in_namespace_selector, 0, sizeof s.pol.opt_in_namespace_selector);
    memset(&s.pol.opt_in_selector, 0, sizeof s.pol.opt_in_selector);
    s.pol.protected_namespaces.n = 0;
    s.pods[R1].ns_known = false;
    plan(&s, &out);
    assert_int_equal(out.guard[R1], CTL_GUARD_OK);
    assert_int_equal(out.ev[0].victim, R1);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* What logs say about the namespace guards, and every guard's name. */
static void test_guard_texts(void **state)
{
    (void)state;
    ctl_pod p = t_running("ml-batch", "etl-a", "n1", 0, 0, 0.5, MILLI(1));
    char buf[512];
    ctl_guard_describe(CTL_GUARD_NS_NOT_OPTED_IN, &p, buf, sizeof buf);
    assert_string_equal(buf, "pod ml-batch/etl-a: namespace ml-batch is not selected by "
                             "spec.preemption.namespaceSelector");
    ctl_guard_describe(CTL_GUARD_NS_UNKNOWN, &p, buf, sizeof buf);
    assert_string_equal(buf, "pod ml-batch/etl-a: namespace ml-batch is not in the namespace cache "
                             "(just created or being deleted), so it is not selected by "
                             "spec.preemption.namespaceSelector");
    ctl_guard_describe(CTL_GUARD_NOT_OPTED_IN, &p, buf, sizeof buf);
    assert_string_equal(buf, "pod ml-batch/etl-a is not selected by spec.preemption.podSelector");
    ctl_guard_describe(CTL_GUARD_PDB, &p, buf, 24); /* cut short, still terminated */
    assert_string_equal(buf, "pod ml-batch/etl-a is c");
    assert_string_equal(ctl_guard_name(CTL_GUARD_NS_NOT_OPTED_IN), "namespace-not-opted-in");
    assert_string_equal(ctl_guard_name(CTL_GUARD_NS_UNKNOWN), "namespace-unknown");
    assert_string_equal(ctl_guard_name(CTL_GUARD_NO_SLACK), "no-slack");
    assert_string_equal(ctl_guard_name(CTL_GUARD_N), "unknown");
    for (int g = 0; g < CTL_GUARD_N; g++)
        assert_string_not_equal(ctl_guard_explain((ctl_guard)g), "unknown guard");
}

/* Resources of terminating pods still count; a cordoned node takes no preemptor and loses no pod.
 */
static void test_nodes(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.nodes[0].schedulable = false;
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R2);
    assert_int_equal(out.ev[0].node, 1);
    ctl_preempt_out_free(&out);
    s.nodes[0].schedulable = true;
    /* r1 terminating: n1 is still full until it is gone, and r1 is not a victim again. */
    s.pods[R1].terminating = true;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R2);
    ctl_preempt_out_free(&out);
    /* Room on a node already: nothing to evict. */
    s.pods[R1].state = CTL_POD_SUCCEEDED;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* A plan on a node the preemptor cannot use (node selector, taints) is removed. */
static void test_node_eligibility(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    ctl_kv zone_a[] = {{"zone", "a"}}, zone_b[] = {{"zone", "b"}};
    s.nodes[0].labels = zone_a;
    s.nodes[0].n_labels = 1;
    s.nodes[1].labels = zone_b;
    s.nodes[1].n_labels = 1;
    ctl_kv want_b[] = {{"zone", "b"}};
    s.pods[W].node_selector = want_b;
    s.pods[W].n_node_selector = 1;
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R2);
    assert_int_equal(out.ev[0].node, 1);
    ctl_preempt_out_free(&out);

    /* A NoSchedule taint on n2 that the preemptor does not tolerate: no node left for it. */
    ctl_taint gpu[] = {{"gpu", "true", CTL_TAINT_NO_SCHEDULE}};
    s.nodes[1].taints = gpu;
    s.nodes[1].n_taints = 1;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    ctl_preempt_out_free(&out);
    ctl_toleration tol[] = {{"gpu", false, "true", "NoSchedule"}};
    s.pods[W].tolerations = tol;
    s.pods[W].n_tolerations = 1;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R2);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* A preemptor confined to a pool of nodes (node selector): the room forecast counts only the nodes
 * it may use. Its pool is full with tasks ending in 50 s, beyond its 40 s of slack; another pool
 * has an idle node. Urgent by the forecast, it evicts in its pool (it did not: the idle node
 * elsewhere made the room look free now). */
/* The scene's two nodes as pool a (label pool=a) and a third, empty 4-cpu node n3 as pool b;
 * the urgent task may use pool a only. */
static void scene_pools(scene *s, ctl_node nodes[3], ctl_kv *pool_a, ctl_kv *pool_b)
{
    nodes[0] = s->nodes[0];
    nodes[1] = s->nodes[1];
    nodes[2] = t_node("n3", MILLI(4));
    nodes[0].labels = nodes[1].labels = pool_a;
    nodes[0].n_labels = nodes[1].n_labels = 1;
    nodes[2].labels = pool_b;
    nodes[2].n_labels = 1;
    s->pods[W].node_selector = pool_a;
    s->pods[W].n_node_selector = 1;
}

/* The preemption input over the scene's pods and the three pool nodes. */
static void pools_input(scene *s, const ctl_node *nodes, const bool *held)
{
    s->in = (ctl_preempt_in){.pods = s->pods,
                             .n_pods = s->n_pods,
                             .nodes = nodes,
                             .n_nodes = 3,
                             .dags = s->dags,
                             .n_jobs = 2,
                             .policy = &s->pol,
                             .ledger = &s->ledger,
                             .held_for_room = held,
                             .now = NOW};
}

/* A preemptor confined to pool a (n1, n2): the room forecast pools its nodes only, and counts
 * ahead of it only the tasks that may use them. A look-ahead task pending in pool b takes none
 * of its room: r1's 2 cpu come in 10 s, in time, and nothing is evicted. Then one pending in
 * pool a takes r1's room, and 4 cpu ending in 5 s in pool b are no room for it: its room comes
 * in an hour, it is urgent, and a task of pool a is evicted. */
static void test_forecast_pool_rivals(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    ctl_kv pool_a[] = {{"pool", "a"}}, pool_b[] = {{"pool", "b"}};
    ctl_node nodes[3];
    scene_pools(&s, nodes, pool_a, pool_b);
    s.pods[R1].task.eval.t_rem_s = 10;
    s.pods[W].state = CTL_POD_GATED;
    s.pods[W].task.queue_pos = 0;
    s.pods[W].task.eval.t_allow_s = 100;
    s.pods[W].task.eval.t_rem_s = 5;
    s.pods[W].task.job_slack_s = 100;
    s.pods[W].task.job_path_s = 5;
    bool held[10] = {false};
    held[W] = true;
    ctl_pod *rival = &s.pods[s.n_pods++]; /* pool b: released ahead of room */
    *rival = t_waiting("other", "lb", 0, 3, 0.1, INFINITY, MILLI(4));
    rival->state = CTL_POD_PENDING;
    rival->node_selector = pool_b;
    rival->n_node_selector = 1;
    rival->task.queue_pos = 6;
    pools_input(&s, nodes, held);
    ctl_preempt_out out;
    ds_err err = {{0}};
    assert_int_equal(ctl_preempt_plan(&s.in, &out, &err), 0);
    assert_int_equal(out.n_ev, 0);
    ctl_preempt_out_free(&out);
    /* Now in pool a, and pool b runs 4 cpu that end in 5 s. */
    rival->node_selector = pool_a;
    rival->request.v[DS_RES_CPU] = MILLI(2);
    ctl_pod *rb = &s.pods[s.n_pods++];
    *rb = t_running("other", "rb", "n3", 0, 3, 0.9, MILLI(4));
    rb->task.eval.t_rem_s = 5;
    s.in.n_pods = s.n_pods;
    assert_int_equal(ctl_preempt_plan(&s.in, &out, &err), 0);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].preemptor, W);
    assert_int_equal(out.ev[0].reason, DS_REASON_URGENT);
    assert_true(out.ev[0].room_wait_s > 100); /* an hour: the next end in pool a */
    assert_true(out.ev[0].node < 2);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

static void test_forecast_in_own_pool(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    ctl_kv pool_a[] = {{"pool", "a"}}, pool_b[] = {{"pool", "b"}};
    ctl_node nodes[3];
    scene_pools(&s, nodes, pool_a, pool_b);
    for (int r = R0; r <= R3; r++)
        s.pods[r].task.eval.t_rem_s = 50;
    s.pods[W].task.eval.t_allow_s = 45;
    s.pods[W].task.eval.t_rem_s = 5;
    s.pods[W].task.job_slack_s = 45;
    s.pods[W].task.job_path_s = 15;
    pools_input(&s, nodes, NULL);
    ctl_preempt_out out;
    ds_err err = {{0}};
    assert_int_equal(ctl_preempt_plan(&s.in, &out, &err), 0);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].reason, DS_REASON_URGENT);
    assert_true(out.ev[0].node < 2);
    ctl_preempt_out_free(&out);
    /* Another scheduler's waiting task of the same size ahead of it in the queue, in the other
     * pool: the same eviction. */
    ctl_pod *f = &s.pods[s.n_pods++];
    *f = t_waiting("prod", "theirs", 1, 1, 0.2, 45, MILLI(4));
    f->node_selector = pool_b;
    f->n_node_selector = 1;
    f->foreign = true;
    f->task.queue_pos = 0;
    s.pods[W].task.queue_pos = 1;
    s.in.n_pods = s.n_pods;
    assert_int_equal(ctl_preempt_plan(&s.in, &out, &err), 0);
    assert_int_equal(out.n_ev, 1);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* Required node affinity: the preemptor's victim is on a node it may run on, even when a lower
 * priority victim elsewhere would make room; a malformed affinity allows no node. */
static void test_required_affinity(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    ctl_kv n1_labels[] = {{"zone", "a"}, {"gen", "3"}}, n2_labels[] = {{"zone", "b"}, {"gen", "5"}};
    s.nodes[0].labels = n1_labels;
    s.nodes[0].n_labels = 2;
    s.nodes[1].labels = n2_labels;
    s.nodes[1].n_labels = 2;
    const char *zone_b[] = {"b"};
    ds_nsel_req req = {.key = "zone", .op = DS_NSEL_IN, .values = zone_b, .n_values = 1};
    ds_nsel_term term = {.match_expressions = &req, .n_match_expressions = 1};
    s.pods[W].has_required_affinity = true;
    s.pods[W].required_affinity = (ds_node_selector){.terms = &term, .n_terms = 1};
    s.pods[W].affinity_error = "";
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1); /* r1 (0.3, n1) would be chosen without the affinity */
    assert_int_equal(out.ev[0].victim, R2);
    assert_int_equal(out.ev[0].node, 1);
    ctl_preempt_out_free(&out);

    /* Gt on a numeric label: gen > 4 holds on n2 only. */
    const char *four[] = {"4"};
    req = (ds_nsel_req){.key = "gen", .op = DS_NSEL_GT, .values = four, .n_values = 1};
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].node, 1);
    ctl_preempt_out_free(&out);
    /* NotIn zone b: n1 only. */
    req = (ds_nsel_req){.key = "zone", .op = DS_NSEL_NOT_IN, .values = zone_b, .n_values = 1};
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R1);
    assert_int_equal(out.ev[0].node, 0);
    ctl_preempt_out_free(&out);
    /* matchFields on the node name. */
    const char *n2[] = {"n2"};
    ds_nsel_req by_name = {.key = "metadata.name", .op = DS_NSEL_IN, .values = n2, .n_values = 1};
    ds_nsel_term name_term = {.match_fields = &by_name, .n_match_fields = 1};
    s.pods[W].required_affinity = (ds_node_selector){.terms = &name_term, .n_terms = 1};
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R2);
    ctl_preempt_out_free(&out);

    /* No node satisfies it (zone c): nothing is evicted. */
    const char *zone_c[] = {"c"};
    req = (ds_nsel_req){.key = "zone", .op = DS_NSEL_IN, .values = zone_c, .n_values = 1};
    s.pods[W].required_affinity = (ds_node_selector){.terms = &term, .n_terms = 1};
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    assert_int_equal(out.n_waiting, 1);
    ctl_preempt_out_free(&out);
    /* Present without terms: matches no node (Kubernetes). */
    s.pods[W].required_affinity = (ds_node_selector){.terms = NULL, .n_terms = 0};
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    ctl_preempt_out_free(&out);
    /* Malformed (decoding failed): no node is known to fit, whatever the selector says. */
    req = (ds_nsel_req){.key = "zone", .op = DS_NSEL_IN, .values = zone_b, .n_values = 1};
    s.pods[W].required_affinity = (ds_node_selector){.terms = &term, .n_terms = 1};
    s.pods[W].affinity_error = "spec.affinity: must be an object";
    plan(&s, &out);
    assert_int_equal(out.n_ev, 0);
    ctl_preempt_out_free(&out);
    /* Without the affinity at all, back to the lowest-priority pod. */
    s.pods[W].has_required_affinity = false;
    s.pods[W].affinity_error = "";
    plan(&s, &out);
    assert_int_equal(out.ev[0].victim, R1);
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* The eligibility check itself: node selector, affinity and taints together. */
static void test_node_eligible_affinity(void **state)
{
    (void)state;
    ctl_node n = t_node("n1", MILLI(4));
    ctl_kv labels[] = {{"zone", "a"}, {"disk", "ssd"}};
    n.labels = labels;
    n.n_labels = 2;
    ctl_pod p = t_waiting("prod", "w", 0, 0, 0.5, 5.0, MILLI(1));
    assert_true(ctl_guard_node_eligible(&p, &n));
    /* Two terms ORed: (zone In [b]) or (disk Exists and zone NotIn [c]). */
    const char *a[] = {"a"}, *b[] = {"b"}, *c[] = {"c"};
    ds_nsel_req t0[] = {{.key = "zone", .op = DS_NSEL_IN, .values = b, .n_values = 1}};
    ds_nsel_req t1[] = {{.key = "disk", .op = DS_NSEL_EXISTS},
                        {.key = "zone", .op = DS_NSEL_NOT_IN, .values = c, .n_values = 1}};
    ds_nsel_term terms[] = {{.match_expressions = t0, .n_match_expressions = 1},
                            {.match_expressions = t1, .n_match_expressions = 2}};
    p.has_required_affinity = true;
    p.required_affinity = (ds_node_selector){.terms = terms, .n_terms = 2};
    assert_true(ctl_guard_node_eligible(&p, &n));
    t1[1].values = a; /* zone NotIn [a]: neither term holds */
    assert_false(ctl_guard_node_eligible(&p, &n));
    t1[1].values = c;
    /* The node selector still applies on top. */
    ctl_kv want[] = {{"zone", "b"}};
    p.node_selector = want;
    p.n_node_selector = 1;
    assert_false(ctl_guard_node_eligible(&p, &n));
    p.n_node_selector = 0;
    /* Cordoned: never. */
    n.schedulable = false;
    assert_false(ctl_guard_node_eligible(&p, &n));
    n.schedulable = true;
    /* An affinity error: never. */
    p.affinity_error = "too many terms";
    assert_false(ctl_guard_node_eligible(&p, &n));
    /* A pod without required affinity ignores an error-free empty selector. */
    p.affinity_error = "";
    p.has_required_affinity = false;
    p.required_affinity = (ds_node_selector){0};
    assert_true(ctl_guard_node_eligible(&p, &n));
}

/* Among equally justified victims on several nodes, the fastest node is chosen (the preemptor
 * finishes soonest there); speed never outweighs a lower-priority victim; ties of speed go by
 * node name, whatever the order of the nodes in the view. */
static void test_prefers_faster_node(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.pods[R2].task.eval.priority = 0.3; /* same as r1: n1 and n2 are equally good */
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R1); /* same speed (unset: 1.0): by name, n1 */
    assert_int_equal(out.ev[0].node, 0);
    ctl_preempt_out_free(&out);

    s.nodes[1].speed = 2.0;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 1);
    assert_int_equal(out.ev[0].victim, R2);
    assert_int_equal(out.ev[0].node, 1);
    ctl_preempt_out_free(&out);

    s.nodes[0].speed = 2.5;
    plan(&s, &out);
    assert_int_equal(out.ev[0].victim, R1);
    assert_int_equal(out.ev[0].node, 0);
    ctl_preempt_out_free(&out);

    /* A speed that is not a positive number counts as 1.0: n2 (1.2) beats n1. */
    s.nodes[0].speed = NAN;
    s.nodes[1].speed = 1.2;
    plan(&s, &out);
    assert_int_equal(out.ev[0].victim, R2);
    ctl_preempt_out_free(&out);
    s.nodes[0].speed = -3.0;
    plan(&s, &out);
    assert_int_equal(out.ev[0].victim, R2);
    ctl_preempt_out_free(&out);

    /* Priority first: a fast node whose cheapest victim has a higher priority loses. */
    s.nodes[0].speed = 1.0;
    s.nodes[1].speed = 4.0;
    s.pods[R2].task.eval.priority = 0.31;
    plan(&s, &out);
    assert_int_equal(out.ev[0].victim, R1);
    assert_int_equal(out.ev[0].node, 0);
    ctl_preempt_out_free(&out);

    /* Equal speeds with the nodes listed in the other order: still n1, by name. */
    s.pods[R2].task.eval.priority = 0.3;
    s.nodes[1].speed = 1.0;
    ctl_node swapped = s.nodes[0];
    s.nodes[0] = s.nodes[1];
    s.nodes[1] = swapped; /* nodes[0] is n2 now */
    plan(&s, &out);
    assert_int_equal(out.ev[0].victim, R1);
    assert_int_equal(out.ev[0].node, 1); /* the view's index of n1 */
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

/* Several victims per preemptor: equal plans (same highest victim priority, same count) on two
 * nodes go to the faster node. */
static void test_prefers_faster_node_multi(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.pol.preemption.max_victims_per_preemptor = 2;
    s.pol.max_evictions_per_node = 2;
    s.pods[W].request.v[DS_RES_CPU] = MILLI(4); /* needs a whole node: both pods on it go */
    s.pods[R0].task.eval.priority = 0.5;
    s.pods[R1].task.eval.priority = 0.3;
    s.pods[R2].task.eval.priority = 0.3;
    s.pods[R3].task.eval.priority = 0.5;
    ctl_preempt_out out;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 2);
    assert_int_equal(out.ev[0].node, 0);
    assert_int_equal(out.ev[1].node, 0);
    ctl_preempt_out_free(&out);
    s.nodes[1].speed = 1.5;
    plan(&s, &out);
    assert_int_equal(out.n_ev, 2);
    assert_int_equal(out.ev[0].node, 1);
    assert_int_equal(out.ev[1].node, 1);
    assert_true((out.ev[0].victim == R2 && out.ev[1].victim == R3) ||
                (out.ev[0].victim == R3 && out.ev[1].victim == R2));
    ctl_preempt_out_free(&out);
    scene_free(&s);
}

static void test_bad_input(void **state)
{
    (void)state;
    scene s;
    scene_init(&s);
    s.pods[R1].task.job = 7;
    s.in = (ctl_preempt_in){.pods = s.pods,
                            .n_pods = s.n_pods,
                            .nodes = s.nodes,
                            .n_nodes = 2,
                            .dags = s.dags,
                            .n_jobs = 2,
                            .policy = &s.pol,
                            .ledger = &s.ledger,
                            .now = NOW};
    ctl_preempt_out out;
    ds_err err = {{0}};
    assert_int_equal(ctl_preempt_plan(&s.in, &out, &err), -1);
    assert_string_equal(err.msg, "pod batch/r1: task reference 7/1 outside the 2 jobs");
    scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_urgent_evicts_lowest),
        cmocka_unit_test(test_foreign_pods_untouched),
        cmocka_unit_test(test_forecast_in_own_pool),
        cmocka_unit_test(test_forecast_pool_rivals),
        cmocka_unit_test(test_not_urgent_low_priority_evicts_nothing),
        cmocka_unit_test(test_pending_not_unschedulable_waits),
        cmocka_unit_test(test_gated_held_for_room_preempts),
        cmocka_unit_test(test_gated_preemptors_take_release_slots),
        cmocka_unit_test(test_protected_namespace_and_class),
        cmocka_unit_test(test_pdb_protects),
        cmocka_unit_test(test_ancestor_never_evicted),
        cmocka_unit_test(test_rho),
        cmocka_unit_test(test_preemptor_cooldown),
        cmocka_unit_test(test_victim_cooldown),
        cmocka_unit_test(test_cooldown_follows_the_task),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_namespace_limit_within_round),
        cmocka_unit_test(test_owner_retries_within_round),
        cmocka_unit_test(test_kubernetes_priority_pair),
        cmocka_unit_test(test_other_guards),
        cmocka_unit_test(test_dice_and_deadline_guards),
        cmocka_unit_test(test_queue_order_and_ahead),
        cmocka_unit_test(test_released_task_takes_room_first),
        cmocka_unit_test(test_room_frees_behind_queue),
        cmocka_unit_test(test_job_rule),
        cmocka_unit_test(test_job_deadline_rule),
        cmocka_unit_test(test_cross_namespace_default),
        cmocka_unit_test(test_cross_namespace_trusted),
        cmocka_unit_test(test_lost_deadline_never_preempts),
        cmocka_unit_test(test_namespace_selector),
        cmocka_unit_test(test_guard_texts),
        cmocka_unit_test(test_nodes),
        cmocka_unit_test(test_node_eligibility),
        cmocka_unit_test(test_required_affinity),
        cmocka_unit_test(test_node_eligible_affinity),
        cmocka_unit_test(test_prefers_faster_node),
        cmocka_unit_test(test_prefers_faster_node_multi),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
