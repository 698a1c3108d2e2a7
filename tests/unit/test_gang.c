/* test_gang.c: unit tests of gang release: the gang labels (lib/gang.h), a gang's state and
 * reasons, and the release plan's all-or-nothing rule (lib/admit.h), with a property test over
 * random instances: a gang is never partly released, and the room planned is never over-committed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "../common/ds_assert.h"

#include "admit.h"
#include "gang.h"

#define GI (1024LL * 1024 * 1024)

static ds_res res(int64_t milli_cpu, int64_t mem)
{
    return (ds_res){{milli_cpu, mem, 0, 0}};
}

static ds_admit_node node(int64_t cpu, int64_t mem)
{
    return (ds_admit_node){.allocatable = res(cpu, mem), .free_ = res(cpu, mem)};
}

static ds_admit_task member(int64_t cpu, size_t gang, size_t size)
{
    return (ds_admit_task){.request = res(cpu, GI), .gang = gang, .gang_size = size};
}

static void plan_ok(const ds_admit_params *p, const ds_admit_node *nodes, size_t nn,
                    const ds_admit_task *inflight, size_t ni, const ds_admit_task *ready, size_t nr,
                    ds_admit_result *out, ds_admit_summary *sum)
{
    ds_err err = {{0}};
    if (ds_admit_plan(p, nodes, nn, inflight, ni, ready, nr, out, sum, &err) != 0)
        fail_msg("ds_admit_plan: %s", err.msg);
}

static void test_parse(void **state)
{
    (void)state;
    ds_gang_spec g;
    ds_err err = {{0}};
    assert_int_equal(ds_gang_parse(NULL, NULL, &g, &err), 0);
    assert_false(g.member);
    assert_int_equal(ds_gang_parse("workers", "8", &g, &err), 0);
    assert_true(g.member);
    assert_string_equal(g.name, "workers");
    assert_int_equal(g.size, 8);
    assert_int_equal(ds_gang_parse("w", "1000", &g, &err), 0);
    assert_int_equal(g.size, 1000);
    assert_int_equal(ds_gang_parse("w", "1001", &g, &err), -1);
    assert_string_equal(err.msg, "label dagsched.io/gang-size \"1001\" must be an integer from 1 "
                                 "to 1000");
    assert_false(g.member);
    assert_int_equal(ds_gang_parse("w", "0", &g, &err), -1);
    assert_int_equal(ds_gang_parse("w", "", &g, &err), -1);
    assert_int_equal(ds_gang_parse("w", "-1", &g, &err), -1);
    assert_int_equal(ds_gang_parse("w", "8x", &g, &err), -1);
    assert_int_equal(ds_gang_parse("w", "00008", &g, &err), -1);
    assert_int_equal(ds_gang_parse("w", "99999999999999999999999", &g, &err), -1);
    assert_int_equal(ds_gang_parse("-w", "2", &g, &err), -1);
    assert_string_equal(err.msg, "label dagsched.io/gang \"-w\": must be 1 to 63 letters, digits, "
                                 "'-', '_' or '.', beginning and ending with a letter or digit");
    assert_int_equal(ds_gang_parse("", "2", &g, &err), -1);
    char long_name[80];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    assert_int_equal(ds_gang_parse(long_name, "2", &g, &err), -1);
    assert_int_equal(ds_gang_parse("w", NULL, &g, &err), -1);
    assert_string_equal(err.msg, "label dagsched.io/gang is set without dagsched.io/gang-size");
    assert_int_equal(ds_gang_parse(NULL, "3", &g, &err), -1);
    assert_string_equal(err.msg, "label dagsched.io/gang-size is set without dagsched.io/gang");
}

static void test_judge_and_describe(void **state)
{
    (void)state;
    char buf[256];
    ds_gang_count c = {
        .size = 8, .sizes_agree = true, .members = 8, .ready = 8, .can_exist = SIZE_MAX};
    assert_int_equal(ds_gang_judge(&c), DS_GANG_READY);
    ds_gang_describe("w", DS_GANG_READY, &c, buf, sizeof buf);
    assert_string_equal(buf, "");
    c.ready = 5;
    assert_int_equal(ds_gang_judge(&c), DS_GANG_WAITING);
    ds_gang_describe("w", DS_GANG_WAITING, &c, buf, sizeof buf);
    assert_string_equal(buf, "gang w: 5 of 8 members ready");
    c.members = 6; /* pods still to come: waiting, not invalid */
    assert_int_equal(ds_gang_judge(&c), DS_GANG_WAITING);
    c.can_exist = 7; /* the job lists all its tasks: 7 can never be 8 */
    assert_int_equal(ds_gang_judge(&c), DS_GANG_INVALID);
    ds_gang_describe("w", DS_GANG_INVALID, &c, buf, sizeof buf);
    assert_string_equal(buf, "gang w is invalid: its job has 7 tasks, fewer than its size 8");
    c = (ds_gang_count){
        .size = 8, .sizes_agree = true, .members = 9, .ready = 9, .can_exist = SIZE_MAX};
    assert_int_equal(ds_gang_judge(&c), DS_GANG_INVALID);
    ds_gang_describe("w", DS_GANG_INVALID, &c, buf, sizeof buf);
    assert_string_equal(buf, "gang w is invalid: 9 members, more than its size 8");
    c = (ds_gang_count){
        .size = 8, .sizes_agree = false, .members = 8, .ready = 8, .can_exist = SIZE_MAX};
    assert_int_equal(ds_gang_judge(&c), DS_GANG_INVALID);
    ds_gang_describe("w", DS_GANG_INVALID, &c, buf, sizeof buf);
    assert_string_equal(buf, "gang w is invalid: its members declare different sizes "
                             "(dagsched.io/gang-size)");
    c = (ds_gang_count){
        .size = 8, .sizes_agree = true, .members = 8, .ready = 1, .started = 7, .can_exist = 8};
    assert_int_equal(ds_gang_judge(&c), DS_GANG_STARTED);
    ds_gang_describe_room("w", 3, 8, buf, sizeof buf);
    assert_string_equal(buf, "gang w: room for 3 of 8 members");
    assert_string_equal(ds_gang_state_name(DS_GANG_INVALID), "invalid");
    assert_string_equal(ds_gang_state_name((ds_gang_state)9), "unknown");
    assert_string_equal(ds_admit_verdict_name(DS_ADMIT_HELD_GANG), "gang");
}

/* Grouping: by job and name (one name in two jobs: two gangs), pods of one task are one member,
 * started wins over ready, sizes that disagree, the first member ready (ready ones only). */
static void test_tally(void **state)
{
    (void)state;
    ds_gang_obs obs[7] = {
        {.job = 1,
         .name = "w",
         .size = 3,
         .task = 0,
         .ready = true,
         .ready_since = 50,
         .can_exist = SIZE_MAX},
        {.job = 0,
         .name = "w",
         .size = 2,
         .task = 4,
         .ready = true,
         .ready_since = 10,
         .can_exist = 5},
        {.job = 1,
         .name = "w",
         .size = 3,
         .task = 1,
         .ready = true,
         .ready_since = 40,
         .can_exist = SIZE_MAX},
        {.job = 1,
         .name = "w",
         .size = 3,
         .task = 1,
         .started = true,
         .ready_since = 30,
         .can_exist = SIZE_MAX},
        {.job = 0,
         .name = "w",
         .size = 2,
         .task = 2,
         .ready = true,
         .ready_since = NAN,
         .can_exist = 5},
        {.job = 1,
         .name = "v",
         .size = 2,
         .task = 5,
         .ready = true,
         .ready_since = 5,
         .can_exist = SIZE_MAX},
        {.job = 1,
         .name = "v",
         .size = 3,
         .task = 6,
         .ready = false,
         .ready_since = 6,
         .can_exist = SIZE_MAX},
    };
    ds_gang g[7];
    size_t ng = 0, of[7];
    ds_err err = {{0}};
    assert_int_equal(ds_gang_tally(obs, 7, g, &ng, of, &err), 0);
    assert_int_equal(ng, 3);
    assert_int_equal(g[0].job, 0);
    assert_int_equal(g[0].state, DS_GANG_READY);
    assert_int_equal(g[0].count.members, 2);
    assert_double_near(g[0].ready_since, 10, 0);
    assert_int_equal(g[1].job, 1);
    assert_string_equal(g[1].name, "v");
    assert_int_equal(g[1].state, DS_GANG_INVALID); /* sizes 2 and 3 */
    assert_double_near(g[1].ready_since, 5, 0);    /* 6: not ready */
    assert_string_equal(g[2].name, "w");
    assert_int_equal(g[2].count.members, 2);
    assert_int_equal(g[2].count.started, 1);
    assert_int_equal(g[2].count.ready, 1);
    assert_int_equal(g[2].state, DS_GANG_STARTED);
    assert_double_near(g[2].ready_since, 40, 0); /* 30: a started pod */
    assert_int_equal(of[0], 2);
    assert_int_equal(of[1], 0);
    assert_int_equal(of[5], 1);
    assert_int_equal(ds_gang_tally(NULL, 0, NULL, &ng, NULL, &err), 0);
    assert_int_equal(ng, 0);
    assert_int_equal(ds_gang_tally(NULL, 1, g, &ng, of, &err), -1);
}

static void test_timeout(void **state)
{
    (void)state;
    assert_true(ds_gang_timed_out(100, 400, 300));
    assert_false(ds_gang_timed_out(100, 399, 300));
    assert_false(ds_gang_timed_out(100, 1e9, 0)); /* no timeout */
    assert_false(ds_gang_timed_out(NAN, 400, 300));
    assert_false(ds_gang_timed_out(100, INFINITY, 300));
    /* A member's hold: 15 s, or the cooldown when shorter (0: no cooldown set). */
    assert_double_near(ds_gang_hold_s(300), DS_GANG_HOLD_S, 0);
    assert_double_near(ds_gang_hold_s(10), 10, 0);
    assert_double_near(ds_gang_hold_s(0), DS_GANG_HOLD_S, 0);
    assert_false(ds_gang_timed_out(100, 400, NAN));
    assert_false(ds_gang_timed_out(100, 400, INFINITY));
}

/* Room for N-1 members: none is released, the task behind the gang takes the room; then the room
 * for N: all are. */
static void test_all_or_nothing(void **state)
{
    (void)state;
    ds_admit_params p = {.mode = DS_ADMIT_CAPACITY, .lookahead = 4};
    ds_admit_node nodes[2] = {node(2000, 8 * GI), node(1000, 8 * GI)};
    ds_admit_task ready[5] = {member(1000, 7, 4),
                              member(1000, 7, 4),
                              member(1000, 7, 4),
                              member(1000, 7, 4),
                              {.request = res(500, GI)}};
    ds_admit_result out[5];
    ds_admit_summary sum;
    plan_ok(&p, nodes, 2, NULL, 0, ready, 5, out, &sum);
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(out[i].verdict, DS_ADMIT_HELD_GANG);
        assert_int_equal(out[i].gang_room, 3);
        assert_int_equal(out[i].gang_ready, 4);
        assert_int_equal(out[i].gang_size, 4);
    }
    assert_int_equal(out[4].verdict, DS_ADMIT_RELEASED); /* the room is left to it */
    assert_int_equal(sum.count[DS_ADMIT_HELD_GANG], 4);
    assert_int_equal(sum.count[DS_ADMIT_LOOKAHEAD], 0); /* members never go as look-ahead */
    char buf[256];
    ds_admit_describe(&out[0], &ready[0].request, NULL, "w", 0, buf, sizeof buf);
    assert_string_equal(buf, "gang w: room for 3 of 4 members");
    nodes[1] = node(2000, 8 * GI);
    plan_ok(&p, nodes, 2, NULL, 0, ready, 4, out, &sum);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(out[i].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[0].node, 0);
    assert_int_equal(out[3].node, 1);
}

/* A gang whose members are all ready but do not all fit holds their room: each member's request
 * is taken from the node that comes closest to holding it, so that the task behind the gang
 * neither takes the room there nor is released ahead of it (look-ahead) to take the room that
 * frees; a gang the nodes' allocatable cannot hold holds nothing (test_all_or_nothing). */
static void test_room_held(void **state)
{
    (void)state;
    ds_admit_params p = {.mode = DS_ADMIT_CAPACITY, .lookahead = 4};
    ds_admit_node nodes[3] = {node(2000, 8 * GI), node(2000, 8 * GI), node(4000, 8 * GI)};
    nodes[1].free_ = res(1000, 8 * GI); /* a running pod holds 1 cpu */
    nodes[2].free_ = res(0, 8 * GI);    /* full */
    bool not_third[3] = {true, true, false};
    ds_admit_task ready[5] = {member(1000, 7, 4),
                              member(1000, 7, 4),
                              member(1000, 7, 4),
                              member(1000, 7, 4),
                              {.request = res(500, GI)}};
    for (size_t i = 0; i < 4; i++)
        ready[i].eligible = not_third;
    ds_admit_result out[5];
    ds_admit_summary sum;
    plan_ok(&p, nodes, 3, NULL, 0, ready, 5, out, &sum);
    size_t on[3] = {0};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(out[i].verdict, DS_ADMIT_HELD_GANG);
        assert_int_equal(out[i].gang_room, 3);
        assert_true(out[i].gang_holds);
        assert_true(out[i].node < 2);
        on[out[i].node]++;
    }
    assert_int_equal(on[0], 2); /* the free room first, then the node closest to holding one */
    assert_int_equal(on[1], 2);
    /* The task behind could use the third node, full: it would take the room that frees on the
     * first two as a look-ahead release, so it is held. */
    assert_int_equal(out[4].verdict, DS_ADMIT_HELD_NO_ROOM);
    assert_int_equal(sum.count[DS_ADMIT_LOOKAHEAD], 0);
    char buf[256];
    ds_admit_describe(&out[0], &ready[0].request, NULL, "w", 0, buf, sizeof buf);
    assert_string_equal(buf, "gang w: room for 3 of 4 members; the room that frees is held for it");
    /* Room beyond the gang's is the others': with 1.5 cpu more on the third node the task behind
     * takes it. */
    nodes[2].free_ = res(1500, 8 * GI);
    plan_ok(&p, nodes, 3, NULL, 0, ready, 5, out, &sum);
    assert_true(out[0].gang_holds);
    assert_int_equal(out[4].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[4].node, 2);
    /* Once the room frees, the gang is released on it. */
    nodes[1].free_ = nodes[1].allocatable;
    plan_ok(&p, nodes, 3, NULL, 0, ready, 4, out, &sum);
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(out[i].verdict, DS_ADMIT_RELEASED);
        assert_false(out[i].gang_holds);
    }
    /* A node reserved by a starving task ahead holds none of the gang's room: only the second
     * node is left for it, too small for four members, so it holds nothing. */
    nodes[0].free_ = res(2000, 7 * GI); /* a running pod holds 1 GiB */
    nodes[1].free_ = res(1000, 8 * GI);
    bool only_first[3] = {true, false, false};
    ds_admit_task with_starving[6] = {
        {.request = res(1000, 8 * GI), .starving = true, .eligible = only_first},
        ready[0],
        ready[1],
        ready[2],
        ready[3],
        ready[4]};
    ds_admit_result out6[6];
    plan_ok(&p, nodes, 3, NULL, 0, with_starving, 6, out6, &sum);
    assert_int_equal(out6[0].verdict, DS_ADMIT_LOOKAHEAD);
    for (size_t i = 1; i < 5; i++) {
        assert_int_equal(out6[i].verdict, DS_ADMIT_HELD_GANG);
        assert_false(out6[i].gang_holds);
    }
    assert_int_equal(out6[5].verdict, DS_ADMIT_RELEASED);
    assert_true(out6[5].node != 0); /* not on the starving task's node */
}

/* Members missing: none released, with the count; two gangs with one name in two jobs (two ids)
 * are two gangs. */
static void test_members_missing_and_scope(void **state)
{
    (void)state;
    ds_admit_params p = {.mode = DS_ADMIT_CAPACITY};
    ds_admit_node n1 = node(16000, 64 * GI);
    ds_admit_task ready[4] = {member(1000, 1, 3), member(1000, 2, 2), member(1000, 1, 3),
                              member(1000, 2, 2)};
    ds_admit_result out[4];
    plan_ok(&p, &n1, 1, NULL, 0, ready, 4, out, NULL);
    assert_int_equal(out[0].verdict, DS_ADMIT_HELD_GANG);
    assert_int_equal(out[2].verdict, DS_ADMIT_HELD_GANG);
    assert_int_equal(out[0].gang_ready, 2);
    assert_int_equal(out[1].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[3].verdict, DS_ADMIT_RELEASED);
    char buf[256];
    ds_admit_describe(&out[0], &ready[0].request, NULL, "g", 0, buf, sizeof buf);
    assert_string_equal(buf, "gang g: 2 of 3 members ready");
    /* Upcoming and first marks of members are ignored: decided in order with the gang. */
    ready[0].first = true;
    ready[2].first = true;
    plan_ok(&p, &n1, 1, NULL, 0, ready, 4, out, NULL);
    assert_int_equal(out[0].verdict, DS_ADMIT_HELD_GANG);
    assert_int_equal(out[2].verdict, DS_ADMIT_HELD_GANG);
}

/* maxConcurrentReleases: the members count together; a gang larger than the limit starts when
 * nothing is in flight; held for the limit, the tasks behind it wait too. */
static void test_limit(void **state)
{
    (void)state;
    ds_admit_params p = {.mode = DS_ADMIT_CAPACITY, .max_concurrent = 3};
    ds_admit_node n1 = node(64000, 64 * GI);
    ds_admit_task ready[5] = {member(1000, 1, 4),
                              member(1000, 1, 4),
                              member(1000, 1, 4),
                              member(1000, 1, 4),
                              {.request = res(100, GI)}};
    ds_admit_result out[5];
    plan_ok(&p, &n1, 1, NULL, 0, ready, 5, out, NULL);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(out[i].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[4].verdict, DS_ADMIT_HELD_LIMIT);
    ds_admit_task inflight = {.request = res(100, GI)};
    plan_ok(&p, &n1, 1, &inflight, 1, ready, 5, out, NULL);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(out[i].verdict, DS_ADMIT_HELD_LIMIT);
    /* Admission all: members and the limit only. */
    p.mode = DS_ADMIT_ALL;
    p.max_concurrent = 0;
    ds_admit_node none = node(0, 0);
    plan_ok(&p, &none, 1, NULL, 0, ready, 5, out, NULL);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(out[i].verdict, DS_ADMIT_RELEASED);
    plan_ok(&p, &none, 1, NULL, 0, ready, 3, out, NULL);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(out[i].verdict, DS_ADMIT_HELD_GANG);
}

/* Fairness: the gang's summed request counts against the cap; the gang is decided as one in the
 * fair queue's order. */
static void test_fair_cap(void **state)
{
    (void)state;
    ds_fair_tenant tenants[2] = {{.weight = 1, .cap = 0.5, .used = res(1000, 0)}, {.weight = 1}};
    ds_admit_fair fair = {.tenants = tenants, .n_tenants = 2, .capacity = res(8000, 64 * GI)};
    ds_admit_params p = {.mode = DS_ADMIT_CAPACITY, .fair = &fair};
    ds_admit_node n1 = node(8000, 64 * GI);
    ds_admit_task ready[4] = {member(1000, 1, 3),
                              member(1000, 1, 3),
                              member(1000, 1, 3),
                              {.request = res(1000, GI), .tenant = 1}};
    ds_admit_result out[4];
    plan_ok(&p, &n1, 1, NULL, 0, ready, 4, out, NULL);
    for (size_t i = 0; i < 3; i++) /* 1 + 3 cores of 8: 0.5, at the cap */
        assert_int_equal(out[i].verdict, DS_ADMIT_RELEASED);
    tenants[0].used = res(2000, 0);
    plan_ok(&p, &n1, 1, NULL, 0, ready, 4, out, NULL);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(out[i].verdict, DS_ADMIT_HELD_FAIR_SHARE);
        assert_true(out[i].over_cap);
        assert_double_near(out[i].share, 5000.0 / 8000.0, 1e-12);
    }
    assert_int_equal(out[3].verdict, DS_ADMIT_RELEASED);
}

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

#define P_NODES 6
#define P_TASKS 40

/* Over random instances (nodes, tasks in flight, gangs and single tasks, eligibility, starving
 * and first marks, limit, look-ahead, fairness on or off, admission capacity or all): every gang
 * is all RELEASED or none of its members is released; a gang with fewer ready members than its
 * size is never released; under admission capacity, the released tasks never take more than the
 * free room of their node (the tasks in flight take theirs first). */
static void test_property_never_partly(void **state)
{
    (void)state;
    rng r = {0x9e3779b97f4a7c15ULL};
    size_t gangs_released = 0, gangs_held = 0, gangs_holding = 0;
    for (int iter = 0; iter < 3000; iter++) {
        size_t nn = (size_t)between(&r, 1, P_NODES);
        ds_admit_node nodes[P_NODES];
        for (size_t k = 0; k < nn; k++) {
            nodes[k] = node(between(&r, 1, 16) * 1000, between(&r, 1, 32) * GI);
            nodes[k].free_.v[0] -= between(&r, 0, nodes[k].allocatable.v[0] / 1000) * 1000;
        }
        size_t ni = (size_t)between(&r, 0, 3);
        ds_admit_task inflight[3];
        for (size_t i = 0; i < ni; i++)
            inflight[i] = (ds_admit_task){.request = res(between(&r, 1, 4) * 500, GI),
                                          .room_only = between(&r, 0, 1) == 1,
                                          .tenant = SIZE_MAX};
        size_t nr = (size_t)between(&r, 1, P_TASKS);
        ds_admit_task ready[P_TASKS];
        bool elig[P_TASKS][P_NODES];
        size_t gang_size[5];
        for (size_t g = 0; g < 5; g++)
            gang_size[g] = (size_t)between(&r, 1, 8);
        for (size_t i = 0; i < nr; i++) {
            ready[i] =
                (ds_admit_task){.request = res(between(&r, 1, 8) * 500, between(&r, 0, 4) * GI),
                                .starving = between(&r, 0, 5) == 0,
                                .first = between(&r, 0, 5) == 0,
                                .tenant = (size_t)between(&r, 0, 1)};
            if (between(&r, 0, 2) > 0) {
                size_t g = (size_t)between(&r, 0, 4);
                ready[i].gang = g;
                ready[i].gang_size = gang_size[g];
            }
            if (between(&r, 0, 3) == 0) {
                for (size_t k = 0; k < nn; k++)
                    elig[i][k] = between(&r, 0, 2) > 0;
                ready[i].eligible = elig[i];
            }
        }
        ds_fair_tenant tenants[2] = {{.weight = 1, .cap = between(&r, 0, 1) ? 0.6 : 0},
                                     {.weight = 2}};
        ds_admit_fair fair = {.tenants = tenants, .n_tenants = 2};
        for (size_t k = 0; k < nn; k++)
            ds_res_add(&fair.capacity, &nodes[k].allocatable);
        ds_admit_params p = {.mode = between(&r, 0, 4) == 0 ? DS_ADMIT_ALL : DS_ADMIT_CAPACITY,
                             .lookahead = (size_t)between(&r, 0, 3),
                             .max_concurrent = (size_t)between(&r, 0, 12),
                             .fair = between(&r, 0, 1) ? &fair : NULL};
        ds_admit_result out[P_TASKS];
        plan_ok(&p, nodes, nn, inflight, ni, ready, nr, out, NULL);
        for (size_t g = 0; g < 5; g++) {
            size_t members = 0, rel = 0;
            for (size_t i = 0; i < nr; i++) {
                if (ready[i].gang_size == 0 || ready[i].gang != g)
                    continue;
                members++;
                if (ds_admit_verdict_releases(out[i].verdict)) {
                    rel++;
                    assert_int_equal(out[i].verdict, DS_ADMIT_RELEASED);
                }
            }
            assert_true(rel == 0 || rel == members);
            /* A gang that holds room holds it within the allocatable of nodes it may use. */
            ds_res held[P_NODES] = {{{0}}};
            for (size_t i = 0; i < nr; i++) {
                if (ready[i].gang_size == 0 || ready[i].gang != g || !out[i].gang_holds)
                    continue;
                assert_int_equal(out[i].verdict, DS_ADMIT_HELD_GANG);
                assert_true(out[i].node < nn);
                assert_true(ready[i].eligible == NULL || ready[i].eligible[out[i].node]);
                ds_res_add(&held[out[i].node], &ready[i].request);
                gangs_holding++;
            }
            for (size_t k = 0; k < nn; k++)
                assert_true(ds_res_fits(&held[k], &nodes[k].allocatable));
            if (members < gang_size[g])
                assert_int_equal(rel, 0);
            if (members > 0)
                *(rel > 0 ? &gangs_released : &gangs_held) += 1;
        }
        if (p.mode != DS_ADMIT_CAPACITY)
            continue;
        /* The released tasks fit the room the tasks in flight leave (they take room first). */
        ds_res left[P_NODES];
        for (size_t k = 0; k < nn; k++)
            left[k] = nodes[k].free_;
        for (size_t i = 0; i < nr; i++)
            if (out[i].verdict == DS_ADMIT_RELEASED) {
                assert_true(out[i].node < nn);
                assert_true(ready[i].eligible == NULL || ready[i].eligible[out[i].node]);
                ds_res_sub(&left[out[i].node], &ready[i].request);
            }
        for (size_t k = 0; k < nn; k++)
            for (int d = 0; d < DS_RES_N; d++)
                assert_true(left[k].v[d] >= 0);
    }
    /* The instances exercise both outcomes. */
    assert_true(gangs_released > 100);
    assert_true(gangs_held > 100);
    assert_true(gangs_holding > 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_judge_and_describe),
        cmocka_unit_test(test_tally),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_all_or_nothing),
        cmocka_unit_test(test_room_held),
        cmocka_unit_test(test_members_missing_and_scope),
        cmocka_unit_test(test_limit),
        cmocka_unit_test(test_fair_cap),
        cmocka_unit_test(test_property_never_partly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
