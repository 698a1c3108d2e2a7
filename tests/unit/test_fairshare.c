/* test_fairshare.c: unit tests of fair share across tenants (lib/fairshare.h) and of the release
 * rule with it (lib/admit.h): dominant shares, the fair queue's progressive filling, caps, the
 * fair-share hold, and DRF's properties within the model on random instances (sharing
 * incentive, no starvation, strategy-proofness, weights, work conservation), with the DRF
 * paper's example computed by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../common/ds_assert.h"

#include "admit.h"
#include "fairshare.h"

#define GI (1024LL * 1024 * 1024)

static ds_res res(int64_t milli_cpu, int64_t mem)
{
    return (ds_res){{milli_cpu, mem, 0, 0}};
}

static ds_admit_node empty_node(int64_t milli_cpu, int64_t mem)
{
    return (ds_admit_node){.allocatable = res(milli_cpu, mem), .free_ = res(milli_cpu, mem)};
}

/* n ready tasks: the first `split` of tenant 0 with request a, the others of tenant 1 with b. */
static void two_tenants(ds_admit_task *ready, size_t n, size_t split, ds_res a, ds_res b)
{
    for (size_t i = 0; i < n; i++)
        ready[i] = (ds_admit_task){.request = i < split ? a : b, .tenant = i < split ? 0 : 1};
}

/* ds_admit_plan under p with fairness over the tenants, the capacity being the nodes' allocatable;
 * its return value. */
static int plan_fair(ds_admit_params p, const ds_fair_tenant *tenants, size_t nt,
                     const ds_admit_node *nodes, size_t nn, const ds_admit_task *inflight,
                     size_t ni, const ds_admit_task *ready, size_t nr, ds_admit_result *out,
                     ds_admit_summary *sum, ds_err *err)
{
    ds_admit_fair fair = {.tenants = tenants, .n_tenants = nt};
    for (size_t k = 0; k < nn; k++)
        ds_res_add(&fair.capacity, &nodes[k].allocatable);
    p.fair = &fair;
    return ds_admit_plan(&p, nodes, nn, inflight, ni, ready, nr, out, sum, err);
}

static const ds_admit_params capacity0 = {.mode = DS_ADMIT_CAPACITY};

static void test_dominant_share(void **state)
{
    (void)state;
    ds_res cap = res(10000, 40 * GI);
    ds_res used = res(2000, 20 * GI);
    assert_double_near(ds_dominant_share(&used, &cap), 0.5, 0);
    used = res(6000, 4 * GI);
    assert_double_near(ds_dominant_share(&used, &cap), 0.6, 1e-15);
    /* A kind the cluster does not have counts nothing; nor does a negative use. */
    used = (ds_res){{-500, 4 * GI, 0, 3}};
    assert_double_near(ds_dominant_share(&used, &cap), 0.1, 1e-15);
    ds_res none = {{0}};
    assert_double_near(ds_dominant_share(&used, &none), 0, 0);

    ds_fair_tenant t = {.used = res(5000, 0), .weight = 2};
    assert_double_near(ds_fair_rank(&t, &cap), 0.25, 0);
    t.weight = 0; /* not > 0: counts 1 */
    assert_double_near(ds_fair_rank(&t, &cap), 0.5, 0);
}

static void test_names_and_maps(void **state)
{
    (void)state;
    ds_tenant_map m = {.n = 2};
    strcpy(m.name[0], "team-a");
    m.value[0] = 2;
    strcpy(m.name[1], "team-b");
    m.value[1] = 0.5;
    assert_double_near(ds_tenant_map_get(&m, "team-b", 1), 0.5, 0);
    assert_double_near(ds_tenant_map_get(&m, "team-c", 1), 1, 0);
    assert_double_near(ds_tenant_map_get(&m, NULL, 3), 3, 0);
    assert_double_near(ds_tenant_map_get(NULL, "team-a", 4), 4, 0);

    assert_string_equal(ds_tenant_name("", "ns1", "team-a"), "ns1");
    assert_string_equal(ds_tenant_name("example.com/team", "ns1", "team-a"), "team-a");
    assert_string_equal(ds_tenant_name("example.com/team", "ns1", ""), "ns1");
    assert_string_equal(ds_tenant_name("example.com/team", "ns1", NULL), "ns1");
}

static void test_queue_errors(void **state)
{
    (void)state;
    ds_fair_queue q;
    ds_err err = {{0}};
    ds_fair_tenant t[1] = {{.weight = 1}};
    ds_res cap = res(1000, GI);
    size_t of[2] = {0, 1};
    assert_int_equal(ds_fair_queue_init(&q, t, 1, &cap, of, 2, &err), -1);
    assert_string_equal(err.msg, "fair queue: task 1: tenant out of range (got 1 of 1)");
    assert_int_equal(ds_fair_queue_init(&q, t, 1, NULL, of, 1, &err), -1);
    assert_string_equal(err.msg, "fair queue: missing capacity");
    assert_int_equal(ds_fair_queue_init(&q, t, 1, &cap, NULL, 1, &err), -1);
    assert_string_equal(err.msg, "fair queue: missing tenants of the tasks");
    ds_fair_queue_free(&q);
    assert_int_equal(ds_fair_queue_init(&q, t, 1, &cap, of, 0, &err), 0);
    assert_true(ds_fair_queue_next(&q, NULL) == SIZE_MAX);
    ds_fair_queue_free(&q);
}

/* The DRF paper's example (Ghodsi et al., NSDI 2011, section 4): 9 cpu and 18 GB; user A's tasks
 * need <1 cpu, 4 GB>, user B's <3 cpu, 1 GB>. Progressive filling gives A three tasks and B two,
 * each a dominant share of 2/3 (A's memory 12/18, B's cpu 6/9). In the order given (A's tasks
 * first) the rule without fairness gives A four tasks (16 GB) and B one. */
static void test_drf_paper_example(void **state)
{
    (void)state;
    ds_admit_node node = empty_node(9000, 18 * GI);
    ds_admit_task ready[10];
    two_tenants(ready, 10, 5, res(1000, 4 * GI), res(3000, GI));
    ds_admit_result out[10];
    ds_err err = {{0}};
    assert_int_equal(ds_admit_plan(&capacity0, &node, 1, NULL, 0, ready, 10, out, NULL, &err), 0);
    size_t got[2] = {0, 0};
    for (size_t i = 0; i < 10; i++)
        got[i < 5 ? 0 : 1] += out[i].verdict == DS_ADMIT_RELEASED;
    assert_int_equal(got[0], 4);
    assert_int_equal(got[1], 1);

    ds_fair_tenant tenants[2] = {{.weight = 1}, {.weight = 1}};
    ds_admit_summary sum;
    assert_int_equal(
        plan_fair(capacity0, tenants, 2, &node, 1, NULL, 0, ready, 10, out, &sum, &err), 0);
    got[0] = got[1] = 0;
    for (size_t i = 0; i < 10; i++)
        got[i < 5 ? 0 : 1] += out[i].verdict == DS_ADMIT_RELEASED;
    assert_int_equal(got[0], 3);
    assert_int_equal(got[1], 2);
    /* Within a tenant, the order given: A's first three, B's first two. */
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(out[i].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[5].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[6].verdict, DS_ADMIT_RELEASED);
    /* The rest waits: both tenants are above their fair share (2/3 > 1/2) and nothing fits. */
    assert_int_equal(out[3].verdict, DS_ADMIT_HELD_FAIR_SHARE);
    assert_int_equal(out[9].verdict, DS_ADMIT_HELD_FAIR_SHARE);
    assert_int_equal(sum.count[DS_ADMIT_HELD_FAIR_SHARE], 5);
    assert_double_near(out[3].share, 2.0 / 3.0, 1e-12);
    assert_double_near(out[3].fair_share, 0.5, 0);
    assert_false(out[3].over_cap);
    char buf[300];
    ds_admit_describe(&out[3], &ready[3].request, "n1", "team-a", 0, buf, sizeof buf);
    assert_string_equal(buf, "tenant team-a is above its fair share (dominant share 0.67, fair "
                             "share 0.50): needs cpu 1, memory 4Gi; most free room on node n1: "
                             "cpu 0, memory 4Gi");
    assert_string_equal(ds_admit_verdict_name(DS_ADMIT_HELD_FAIR_SHARE), "fair-share");
}

/* The fair queue picks the tenant with the lowest weighted dominant share, its tasks in the order
 * given; what is charged moves the tenant back. */
static void test_queue_order_by_hand(void **state)
{
    (void)state;
    ds_res cap = res(10000, 10 * GI);
    /* Tenant 0 runs 2 cpu (share 0.2), tenant 1 nothing, tenant 2 4 cpu with weight 2 (0.2). */
    ds_fair_tenant t[3] = {
        {.used = res(2000, 0), .weight = 1}, {.weight = 1}, {.used = res(4000, 0), .weight = 2}};
    size_t of[6] = {0, 2, 1, 0, 1, 2};
    ds_fair_queue q;
    ds_err err = {{0}};
    assert_int_equal(ds_fair_queue_init(&q, t, 3, &cap, of, 6, &err), 0);
    ds_res one = res(1000, 0);
    /* Tenant 1 first (0), its first task 2; charged 0.1. Then its task 4 (0.1 < 0.2). */
    assert_int_equal(ds_fair_queue_next(&q, NULL), 2);
    ds_fair_queue_charge(&q, 1, &one);
    assert_int_equal(ds_fair_queue_next(&q, NULL), 4);
    ds_fair_queue_charge(&q, 1, &one);
    /* Now 0.2, 0.2, 0.2: the tenant whose task comes first, tenant 0 (task 0), then tenant 2
     * (task 1); tenant 1 has no task left. */
    assert_int_equal(ds_fair_queue_next(&q, NULL), 0);
    ds_fair_queue_charge(&q, 0, &one); /* 0.3 */
    /* Charging a tenant waiting in the queue is ignored. */
    ds_fair_queue_charge(&q, 2, &(ds_res){{9000, 0, 0, 0}});
    assert_int_equal(ds_fair_queue_next(&q, NULL), 1); /* tenant 2 at 0.2 */
    ds_fair_queue_charge(&q, 2, &one);                 /* 0.5 / 2 = 0.25 */
    assert_int_equal(ds_fair_queue_next(&q, NULL), 5); /* 0.25 < 0.3 */
    assert_int_equal(ds_fair_queue_next(&q, NULL), 3);
    assert_true(ds_fair_queue_next(&q, NULL) == SIZE_MAX);
    assert_double_near(ds_fair_queue_share(&q, 2), 0.5, 1e-15);
    /* Fair shares: weights 1, 1, 2 of 4. */
    assert_double_near(ds_fair_queue_fair_share(&q, 0), 0.25, 0);
    assert_double_near(ds_fair_queue_fair_share(&q, 2), 0.5, 0);
    assert_true(ds_fair_queue_above(&q, 0));  /* 0.3 > 0.25 */
    assert_false(ds_fair_queue_above(&q, 2)); /* 0.5, not above 0.5 */
    assert_false(ds_fair_queue_above(&q, 7)); /* out of range */
    ds_fair_queue_free(&q);

    /* Tasks decided outside the queue are skipped. */
    bool decided[6] = {false, true, true, false, false, false};
    assert_int_equal(ds_fair_queue_init(&q, t, 3, &cap, of, 6, &err), 0);
    assert_int_equal(ds_fair_queue_next(&q, decided), 4);
    ds_fair_queue_free(&q);
}

/* A tenant alone is never above its fair share; a tenant without tasks in the round is judged
 * as if it joined it. */
static void test_fair_share_alone(void **state)
{
    (void)state;
    ds_res cap = res(10000, 10 * GI);
    ds_fair_tenant t[2] = {{.used = res(9000, 0), .weight = 1},
                           {.used = res(9000, 0), .weight = 3}};
    size_t of[2] = {0, 0};
    ds_fair_queue q;
    ds_err err = {{0}};
    assert_int_equal(ds_fair_queue_init(&q, t, 2, &cap, of, 2, &err), 0);
    assert_false(ds_fair_queue_above(&q, 0));
    assert_double_near(ds_fair_queue_fair_share(&q, 0), 1, 0);
    assert_double_near(ds_fair_queue_fair_share(&q, 1), 0.75, 0);
    assert_true(ds_fair_queue_above(&q, 1)); /* 0.9 > 0.75 */
    ds_fair_queue_free(&q);
    /* Tenant 1 joins with tasks in flight only: tenant 0 is no longer alone (1 of 4 weights). */
    assert_int_equal(ds_fair_queue_init(&q, t, 2, &cap, of, 2, &err), 0);
    ds_fair_queue_join(&q, 1);
    ds_fair_queue_join(&q, 1); /* once */
    ds_fair_queue_join(&q, 7); /* out of range: nothing */
    assert_double_near(ds_fair_queue_fair_share(&q, 0), 0.25, 0);
    assert_double_near(ds_fair_queue_fair_share(&q, 1), 0.75, 0);
    assert_true(ds_fair_queue_above(&q, 0)); /* 0.9 > 0.25 */
    ds_fair_queue_free(&q);
}

/* A cap bounds a tenant's dominant share, checked with the task; a tenant using nothing may
 * start one task however large. */
static void test_cap(void **state)
{
    (void)state;
    ds_admit_node node = empty_node(8000, 64 * GI);
    ds_admit_task ready[6];
    two_tenants(ready, 6, 4, res(1000, GI), res(1000, GI));
    ds_fair_tenant tenants[2] = {{.weight = 1, .cap = 0.25}, {.weight = 1}};
    ds_admit_params on = capacity0;
    ds_admit_result out[6];
    ds_err err = {{0}};
    assert_int_equal(plan_fair(on, tenants, 2, &node, 1, NULL, 0, ready, 6, out, NULL, &err), 0);
    assert_int_equal(out[0].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[1].verdict, DS_ADMIT_RELEASED); /* 2/8 = the cap */
    assert_int_equal(out[2].verdict, DS_ADMIT_HELD_FAIR_SHARE);
    assert_int_equal(out[3].verdict, DS_ADMIT_HELD_FAIR_SHARE);
    assert_int_equal(out[4].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[5].verdict, DS_ADMIT_RELEASED);
    assert_true(out[2].over_cap);
    assert_double_near(out[2].share, 0.375, 0);
    assert_double_near(out[2].fair_share, 0.25, 0);
    char buf[300];
    ds_admit_describe(&out[2], &ready[2].request, "n1", "team-a", 0, buf, sizeof buf);
    assert_string_equal(buf, "tenant team-a is above its fair share (dominant share 0.38 with this "
                             "task, cap 0.25)");

    /* Cap 0.1 and a task of 0.25: the first one starts, the second waits. */
    tenants[0].cap = 0.1;
    for (size_t i = 0; i < 2; i++)
        ready[i] = (ds_admit_task){.request = res(2000, GI), .tenant = 0};
    assert_int_equal(plan_fair(on, tenants, 2, &node, 1, NULL, 0, ready, 2, out, NULL, &err), 0);
    assert_int_equal(out[0].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[1].verdict, DS_ADMIT_HELD_FAIR_SHARE);
    /* The cap holds an upcoming task too (decided before the tasks in flight). */
    ready[0].upcoming = true;
    tenants[0].used = res(1000, 0);
    assert_int_equal(plan_fair(on, tenants, 2, &node, 1, NULL, 0, ready, 1, out, NULL, &err), 0);
    assert_int_equal(out[0].verdict, DS_ADMIT_HELD_FAIR_SHARE);
    /* Under admission all as well. */
    on.mode = DS_ADMIT_ALL;
    ready[0].upcoming = false;
    assert_int_equal(plan_fair(on, tenants, 2, &node, 1, NULL, 0, ready, 2, out, NULL, &err), 0);
    assert_int_equal(out[0].verdict, DS_ADMIT_HELD_FAIR_SHARE);
}

/* Tasks in flight count for their tenant (room_only entries for none); starving tasks go first
 * whatever their tenant's share; a tenant above its fair share gets no look-ahead slot while
 * another tenant waits. */
static void test_inflight_starving_lookahead(void **state)
{
    (void)state;
    ds_admit_node node = empty_node(4000, 16 * GI);
    ds_fair_tenant tenants[2] = {{.weight = 1}, {.weight = 1}};
    ds_admit_params on = capacity0;
    ds_admit_result out[4];
    ds_err err = {{0}};
    /* Tenant 0 has 2 cpu in flight: tenant 1's task goes first and takes the last 2 cpu. */
    ds_admit_task inflight[2] = {{.request = res(2000, GI), .tenant = 0},
                                 {.request = res(0, GI), .room_only = true, .tenant = 1}};
    ds_admit_task ready[2] = {{.request = res(2000, GI), .tenant = 0},
                              {.request = res(2000, GI), .tenant = 1}};
    assert_int_equal(plan_fair(on, tenants, 2, &node, 1, inflight, 2, ready, 2, out, NULL, &err),
                     0);
    assert_int_equal(out[1].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[0].verdict, DS_ADMIT_HELD_NO_ROOM); /* 0.5, at its fair share */
    /* A starving task goes first, its tenant's share notwithstanding. */
    ready[0].starving = true;
    assert_int_equal(plan_fair(on, tenants, 2, &node, 1, inflight, 2, ready, 2, out, NULL, &err),
                     0);
    assert_int_equal(out[0].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[1].verdict, DS_ADMIT_HELD_NO_ROOM);
    ready[0].starving = false;

    /* Look-ahead: tenant 0 runs 3 cpu, tenant 1 nothing; the node is full. Tenant 1's task takes
     * the one slot; tenant 0's waits for its share. With lookahead 2, the second slot is not
     * tenant 0's either while tenant 1 has tasks in the round. */
    tenants[0].used = res(3000, 0);
    node.free_ = res(0, 0);
    on.lookahead = 2;
    ds_admit_task r3[3] = {{.request = res(1000, GI), .tenant = 0},
                           {.request = res(1000, GI), .tenant = 1},
                           {.request = res(1000, GI), .tenant = 0}};
    ds_admit_summary sum;
    assert_int_equal(plan_fair(on, tenants, 2, &node, 1, NULL, 0, r3, 3, out, &sum, &err), 0);
    assert_int_equal(out[1].verdict, DS_ADMIT_LOOKAHEAD);
    assert_int_equal(out[0].verdict, DS_ADMIT_HELD_FAIR_SHARE);
    assert_int_equal(out[2].verdict, DS_ADMIT_HELD_FAIR_SHARE);
    assert_double_near(out[0].share, 0.75, 0);
    assert_double_near(out[0].fair_share, 0.5, 0);
    /* A look-ahead release is charged: tenant 1's first task takes a slot and its share, so the
     * second slot goes to tenant 0 before tenant 1's second task. */
    tenants[0].used = res(0, 0);
    ds_admit_task r3b[3] = {{.request = res(1000, GI), .tenant = 1},
                            {.request = res(1000, GI), .tenant = 1},
                            {.request = res(1000, GI), .tenant = 0}};
    assert_int_equal(plan_fair(on, tenants, 2, &node, 1, NULL, 0, r3b, 3, out, &sum, &err), 0);
    assert_int_equal(out[0].verdict, DS_ADMIT_LOOKAHEAD);
    assert_int_equal(out[2].verdict, DS_ADMIT_LOOKAHEAD);
    assert_int_equal(out[1].verdict, DS_ADMIT_HELD_NO_ROOM);
    tenants[0].used = res(3000, 0);
    /* Tenant 1's task waits in kube-scheduler's queue (in flight, released ahead of room) and it
     * has none ready: it still takes part in the round, so tenant 0, above its half, gets no
     * look-ahead slot that would take the next room before it. */
    ds_admit_task waiting[1] = {{.request = res(1000, GI), .tenant = 1}};
    assert_int_equal(plan_fair(on, tenants, 2, &node, 1, waiting, 1, r3, 1, out, &sum, &err), 0);
    assert_int_equal(out[0].verdict, DS_ADMIT_HELD_FAIR_SHARE);
    assert_double_near(out[0].share, 0.75, 0);
    assert_double_near(out[0].fair_share, 0.5, 0);
    /* ... but one whose in-flight entry takes room only (not a DAG task) does not. */
    waiting[0].room_only = true;
    assert_int_equal(plan_fair(on, tenants, 2, &node, 1, waiting, 1, r3, 1, out, &sum, &err), 0);
    assert_int_equal(out[0].verdict, DS_ADMIT_LOOKAHEAD);
    /* Alone in the round, tenant 0 takes the slots (work-conserving). */
    assert_int_equal(plan_fair(on, tenants, 2, &node, 1, NULL, 0, r3, 1, out, &sum, &err), 0);
    assert_int_equal(out[0].verdict, DS_ADMIT_LOOKAHEAD);
    /* A tenant out of range is an error. */
    r3[0].tenant = 2;
    assert_int_equal(plan_fair(on, tenants, 2, &node, 1, NULL, 0, r3, 1, out, &sum, &err), -1);
    assert_string_equal(err.msg, "admission: fair queue: task 0: tenant out of range (got 2 of 2)");
}

/* A small deterministic generator for the property tests. */
typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next_u64(rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}

static int64_t between(rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(next_u64(r) % (uint64_t)(hi - lo + 1));
}

/* A cluster's capacity: at least cpu_lo milli-cores and mem_lo GiB, at most 64 cores and
 * 256 GiB. */
static ds_res random_capacity(rng *r, int64_t cpu_lo, int64_t mem_lo)
{
    int64_t cpu = between(r, cpu_lo, 64000);
    return res(cpu, between(r, mem_lo, 256) * GI);
}

#define TRIALS 300
#define MAX_T  5

/* 2 to MAX_T tenants, each running up to cap's cpu / use_div and weighing 1 to max_weight; how
 * many. */
static size_t random_tenants(rng *r, const ds_res *cap, int64_t use_div, int64_t max_weight,
                             ds_fair_tenant *t)
{
    size_t nt = (size_t)between(r, 2, MAX_T);
    for (size_t i = 0; i < nt; i++) {
        int64_t used = between(r, 0, cap->v[0] / use_div);
        t[i] = (ds_fair_tenant){.used = res(used, 0), .weight = (double)between(r, 1, max_weight)};
    }
    return nt;
}
#define MAX_TASKS 400

/* Per tenant (zeroed first, nt of them): the requests released and the ready tasks. */
static void tally(const ds_admit_task *ready, const ds_admit_result *out, size_t n, size_t nt,
                  ds_res *use, size_t *count)
{
    memset(use, 0, nt * sizeof *use);
    memset(count, 0, nt * sizeof *count);
    for (size_t i = 0; i < n; i++) {
        count[ready[i].tenant]++;
        if (ds_admit_verdict_releases(out[i].verdict))
            ds_res_add(&use[ready[i].tenant], &ready[i].request);
    }
}

/* Sharing incentive: n tenants of equal weight, each with tasks of its own shape and demand
 * enough to fill the cluster alone, on one node (pooled capacity), nothing running before. Each
 * ends with a dominant share above 1/n less the largest task's dominant share: what a static
 * partition into n equal parts would give it, up to one task. */
static void test_property_sharing_incentive(void **state)
{
    (void)state;
    rng r = {0x5eed1234u};
    static ds_admit_task ready[MAX_TASKS];
    static ds_admit_result out[MAX_TASKS];
    for (int trial = 0; trial < TRIALS; trial++) {
        size_t nt = (size_t)between(&r, 2, MAX_T);
        ds_res cap = random_capacity(&r, 4000, 8);
        ds_admit_node node = empty_node(cap.v[0], cap.v[1]);
        ds_res shape[MAX_T];
        double dmax = 0;
        for (size_t t = 0; t < nt; t++) {
            shape[t] = res(between(&r, 100, cap.v[0] / 8), between(&r, GI / 8, cap.v[1] / 8));
            double d = ds_dominant_share(&shape[t], &cap);
            dmax = d > dmax ? d : dmax;
        }
        size_t n = 0;
        while (n < MAX_TASKS) { /* interleaved at random; each tenant has > 8 tasks per turn */
            size_t t = (size_t)between(&r, 0, (int64_t)nt - 1);
            ready[n++] = (ds_admit_task){.request = shape[t], .tenant = t};
        }
        ds_fair_tenant tenants[MAX_T];
        for (size_t t = 0; t < nt; t++)
            tenants[t] = (ds_fair_tenant){.weight = 1};
        ds_err err = {{0}};
        assert_int_equal(
            plan_fair(capacity0, tenants, nt, &node, 1, NULL, 0, ready, n, out, NULL, &err), 0);
        ds_res use[MAX_T];
        size_t count[MAX_T];
        tally(ready, out, n, nt, use, count);
        for (size_t t = 0; t < nt; t++) {
            if ((double)count[t] * ds_dominant_share(&shape[t], &cap) < 1.0)
                continue; /* not enough demand to fill the cluster alone (rare) */
            double d = ds_dominant_share(&use[t], &cap);
            if (!(d > 1.0 / (double)nt - dmax))
                fail_msg("trial %d: tenant %zu of %zu: dominant share %g <= 1/n - %g", trial, t, nt,
                         d, dmax);
        }
    }
}

/* Weights: two tenants with the same task shape and weights 2 and 1 end with weighted dominant
 * shares within one task of each other: the first gets about twice the second's share. */
static void test_property_weights(void **state)
{
    (void)state;
    static struct {
        ds_admit_task ready[MAX_TASKS];
        ds_admit_result out[MAX_TASKS];
    } x;
    ds_admit_task *ready = x.ready;
    ds_admit_result *out = x.out;
    rng r = {0xbeef77u};
    for (int trial = 0; trial < TRIALS; trial++) {
        ds_res cap = random_capacity(&r, 8000, 16);
        int64_t cpu = between(&r, 100, cap.v[0] / 20);
        ds_res shape = res(cpu, between(&r, GI / 8, cap.v[1] / 20));
        ds_admit_node node = empty_node(cap.v[0], cap.v[1]);
        for (size_t i = 0; i < MAX_TASKS; i++)
            ready[i] = (ds_admit_task){.request = shape, .tenant = (size_t)between(&r, 0, 1)};
        ds_fair_tenant tenants[2] = {{.weight = 2}, {.weight = 1}};
        ds_err err = {{0}};
        assert_int_equal(
            plan_fair(capacity0, tenants, 2, &node, 1, NULL, 0, ready, MAX_TASKS, out, NULL, &err),
            0);
        ds_res use[2];
        size_t count[2];
        tally(ready, out, MAX_TASKS, 2, use, count);
        double step = ds_dominant_share(&shape, &cap);
        if ((double)count[0] * step < 1.0 || (double)count[1] * step < 1.0)
            continue;
        double a = ds_dominant_share(&use[0], &cap), b = ds_dominant_share(&use[1], &cap);
        if (!(a / 2 - b <= step + 1e-12 && b - a / 2 <= step + 1e-12))
            fail_msg("trial %d: weighted shares %g (weight 2) and %g (weight 1), one task %g",
                     trial, a / 2, b, step);
    }
}

/* Picks of the fair queue when every task is released (charged): out[k] is the task of pick k. */
static size_t run_queue(const ds_fair_tenant *t, size_t nt, const ds_res *cap, const size_t *of,
                        const ds_res *req, size_t n, size_t *out)
{
    ds_fair_queue q;
    ds_err err = {{0}};
    assert_int_equal(ds_fair_queue_init(&q, t, nt, cap, of, n, &err), 0);
    size_t k = 0;
    for (size_t i = ds_fair_queue_next(&q, NULL); i != SIZE_MAX; i = ds_fair_queue_next(&q, NULL)) {
        ds_fair_queue_charge(&q, of[i], &req[i]);
        out[k++] = i;
    }
    ds_fair_queue_free(&q);
    return k;
}

/* No starvation: a tenant with demand gets its first pick after at most, for each other tenant
 * ranked at or below it, as many picks as it takes that tenant to pass its rank, plus one. Each
 * pick adds at least the tenant's smallest request of each kind, so after j picks its rank is at
 * least (use_k + j * smallest_k) / capacity_k / weight for every kind k. */
static void test_property_no_starvation(void **state)
{
    (void)state;
    rng r = {0xfeed5u};
    static size_t of[MAX_TASKS], picks[MAX_TASKS];
    static ds_res req[MAX_TASKS];
    for (int trial = 0; trial < TRIALS; trial++) {
        ds_res cap = random_capacity(&r, 4000, 8);
        ds_fair_tenant t[MAX_T];
        size_t nt = random_tenants(&r, &cap, 2, 4, t);
        size_t n = (size_t)between(&r, 2, MAX_TASKS);
        ds_res smallest[MAX_T];
        for (size_t i = 0; i < nt; i++)
            smallest[i] = cap;
        for (size_t i = 0; i < n; i++) {
            of[i] = (size_t)between(&r, 0, (int64_t)nt - 1);
            req[i] = res(between(&r, 1, cap.v[0] / 10), between(&r, 1, cap.v[1] / 10));
            for (int k = 0; k < 2; k++)
                if (req[i].v[k] < smallest[of[i]].v[k])
                    smallest[of[i]].v[k] = req[i].v[k];
        }
        assert_int_equal(run_queue(t, nt, &cap, of, req, n, picks), n);
        for (size_t b = 0; b < nt; b++) {
            size_t first = SIZE_MAX;
            for (size_t k = 0; k < n && first == SIZE_MAX; k++)
                if (of[picks[k]] == b)
                    first = k;
            if (first == SIZE_MAX)
                continue; /* no demand */
            double rb = ds_fair_rank(&t[b], &cap);
            double bound = 0;
            for (size_t o = 0; o < nt; o++) {
                if (o == b || ds_fair_rank(&t[o], &cap) > rb)
                    continue;
                double most = 1e300;
                for (int k = 0; k < 2; k++) {
                    double j = (rb * t[o].weight * (double)cap.v[k] - (double)t[o].used.v[k]) /
                               (double)smallest[o].v[k];
                    most = j < most ? j : most;
                }
                bound += most + 1;
            }
            if (!((double)first <= bound + 1e-6))
                fail_msg("trial %d: tenant %zu first picked at %zu, bound %g", trial, b, first,
                         bound);
        }
    }
}

/* Strategy-proofness within the model: a tenant that declares more than it uses, larger requests
 * or more tasks, gets none of its tasks picked earlier. */
static void test_property_strategy_proof(void **state)
{
    (void)state;
    rng r = {0xabcdefu};
    static size_t of[MAX_TASKS], p_true[MAX_TASKS], p_lie[MAX_TASKS];
    static ds_res req[MAX_TASKS], lie[MAX_TASKS];
    for (int trial = 0; trial < TRIALS; trial++) {
        ds_res cap = random_capacity(&r, 4000, 8);
        ds_fair_tenant t[MAX_T];
        size_t nt = random_tenants(&r, &cap, 4, 3, t);
        size_t n = (size_t)between(&r, 2, MAX_TASKS - 50);
        size_t liar = (size_t)between(&r, 0, (int64_t)nt - 1);
        for (size_t i = 0; i < n; i++) {
            of[i] = (size_t)between(&r, 0, (int64_t)nt - 1);
            req[i] = res(between(&r, 1, cap.v[0] / 10), between(&r, 1, cap.v[1] / 10));
            lie[i] = req[i];
            if (of[i] == liar) { /* declares more of each kind */
                lie[i].v[0] += between(&r, 0, cap.v[0] / 10);
                lie[i].v[1] += between(&r, 0, cap.v[1] / 10);
            }
        }
        /* and, half the time, more tasks than it has, after its own */
        size_t n_lie = n;
        if (trial % 2 == 1)
            for (size_t i = 0; i < 50; i++) {
                of[n_lie] = liar;
                req[n_lie] = lie[n_lie] = res(1, 1);
                n_lie++;
            }
        assert_int_equal(run_queue(t, nt, &cap, of, req, n, p_true), n);
        assert_int_equal(run_queue(t, nt, &cap, of, lie, n_lie, p_lie), n_lie);
        /* the k-th pick of the liar's true tasks comes no earlier */
        size_t kt = 0, kl = 0;
        for (size_t k = 0; k < n; k++) {
            if (of[p_true[k]] != liar)
                continue;
            while (kl < n_lie && (of[p_lie[kl]] != liar || p_lie[kl] >= n))
                kl++;
            if (kl < k)
                fail_msg("trial %d: the liar's task %zu picked at %zu, truthfully at %zu", trial,
                         kt, kl, k);
            kt++;
            kl++;
        }
    }
}

/* Work conservation: a tenant alone in the round is decided exactly as without fairness, however
 * much other tenants use; and with room for every task, every task is released. */
static void test_property_work_conserving(void **state)
{
    (void)state;
    rng r = {0x1234567u};
    enum { NN = 6, NR = 60 };
    for (int trial = 0; trial < TRIALS; trial++) {
        size_t nn = (size_t)between(&r, 1, NN);
        ds_admit_node nodes[NN];
        ds_res cap = {{0}};
        for (size_t k = 0; k < nn; k++) {
            ds_res a = res(between(&r, 1000, 16000), between(&r, 1, 64) * GI);
            nodes[k] = (ds_admit_node){.allocatable = a, .free_ = a};
            nodes[k].free_.v[0] -= between(&r, 0, a.v[0]);
            ds_res_add(&cap, &a);
        }
        ds_admit_task ready[NR];
        size_t n = (size_t)between(&r, 1, NR), starving = (size_t)between(&r, 0, 3);
        for (size_t i = 0; i < n; i++) /* starving tasks first, as the order puts them */
            ready[i] =
                (ds_admit_task){.request = res(between(&r, 100, 4000), between(&r, 1, 8) * GI),
                                .tenant = 1,
                                .starving = i < starving};
        ds_fair_tenant tenants[2] = {{.used = res(cap.v[0], 0), .weight = 1}, {.weight = 1}};
        ds_admit_params off = {.mode = DS_ADMIT_CAPACITY, .lookahead = (size_t)between(&r, 0, 3)};
        ds_admit_result a[NR], b[NR];
        ds_err err = {{0}};
        assert_int_equal(ds_admit_plan(&off, nodes, nn, NULL, 0, ready, n, a, NULL, &err), 0);
        assert_int_equal(plan_fair(off, tenants, 2, nodes, nn, NULL, 0, ready, n, b, NULL, &err),
                         0);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(a[i].verdict, b[i].verdict);
            assert_true(a[i].node == b[i].node);
        }
        /* Two tenants, room for everything: everything is released. */
        for (size_t k = 0; k < nn; k++)
            nodes[k].free_ = res(1000000, 1000 * GI);
        for (size_t i = 0; i < n; i++)
            ready[i].tenant = (size_t)between(&r, 0, 1);
        assert_int_equal(plan_fair(off, tenants, 2, nodes, nn, NULL, 0, ready, n, b, NULL, &err),
                         0);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(b[i].verdict, DS_ADMIT_RELEASED);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dominant_share),
        cmocka_unit_test(test_names_and_maps),
        cmocka_unit_test(test_queue_errors),
        cmocka_unit_test(test_drf_paper_example),
        cmocka_unit_test(test_queue_order_by_hand),
        cmocka_unit_test(test_fair_share_alone),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_inflight_starving_lookahead),
        cmocka_unit_test(test_property_sharing_incentive),
        cmocka_unit_test(test_property_weights),
        cmocka_unit_test(test_property_no_starvation),
        cmocka_unit_test(test_property_strategy_proof),
        cmocka_unit_test(test_property_work_conserving),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
