/* test_admit.c: unit tests of release as admission (lib/admit.h): best fit, room taken by
 * in-flight and released tasks, the look-ahead, maxConcurrentReleases, the starvation guard,
 * eligibility masks, admission "all", and the reasons written for users. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../common/ds_assert.h"

#include "admit.h"

#define GI (1024LL * 1024 * 1024)

static ds_res res(int64_t milli_cpu, int64_t mem)
{
    return (ds_res){{milli_cpu, mem, 0, 0}};
}

/* A node with allocatable cpu/mem and that much already requested by bound pods. */
static ds_admit_node node(int64_t cpu, int64_t mem, int64_t used_cpu, int64_t used_mem)
{
    ds_admit_node n = {.allocatable = res(cpu, mem), .free_ = res(cpu - used_cpu, mem - used_mem)};
    return n;
}

static ds_admit_task task(int64_t cpu, int64_t mem)
{
    return (ds_admit_task){.request = res(cpu, mem)};
}

static const ds_admit_params capacity0 = {.mode = DS_ADMIT_CAPACITY};

static void plan_ok(const ds_admit_params *p, const ds_admit_node *nodes, size_t nn,
                    const ds_admit_task *inflight, size_t ni, const ds_admit_task *ready, size_t nr,
                    ds_admit_result *out, ds_admit_summary *sum)
{
    ds_err err = {{0}};
    int rc = ds_admit_plan(p, nodes, nn, inflight, ni, ready, nr, out, sum, &err);
    if (rc != 0)
        fail_msg("ds_admit_plan: %s", err.msg);
}

static void test_names(void **state)
{
    (void)state;
    ds_admit_mode m = DS_ADMIT_ALL;
    assert_int_equal(ds_admit_mode_parse("capacity", &m), 0);
    assert_int_equal(m, DS_ADMIT_CAPACITY);
    assert_int_equal(ds_admit_mode_parse("all", &m), 0);
    assert_int_equal(m, DS_ADMIT_ALL);
    assert_int_equal(ds_admit_mode_parse("Capacity", &m), -1);
    assert_int_equal(ds_admit_mode_parse(NULL, &m), -1);
    assert_string_equal(ds_admit_mode_name(DS_ADMIT_CAPACITY), "capacity");
    assert_string_equal(ds_admit_mode_name((ds_admit_mode)9), "unknown");
    assert_string_equal(ds_admit_verdict_name(DS_ADMIT_HELD_STARVING), "behind-starving");
    assert_string_equal(ds_admit_verdict_name(DS_ADMIT_VERDICT_N), "unknown");
    assert_true(ds_admit_verdict_releases(DS_ADMIT_RELEASED));
    assert_true(ds_admit_verdict_releases(DS_ADMIT_LOOKAHEAD));
    assert_false(ds_admit_verdict_releases(DS_ADMIT_HELD_NO_ROOM));
    assert_false(ds_admit_verdict_releases(DS_ADMIT_HELD_LIMIT));
}

/* Only what fits is released, in queue order; released tasks take room so that the third one,
 * which would fit the node alone, is held. */
static void test_releases_what_fits_in_order(void **state)
{
    (void)state;
    ds_admit_node nodes[] = {node(4000, 8 * GI, 1000, 0)}; /* 3 cores free */
    ds_admit_task ready[] = {task(2000, GI), task(2000, GI), task(1000, GI)};
    ds_admit_result out[3];
    ds_admit_summary sum;
    plan_ok(&capacity0, nodes, 1, NULL, 0, ready, 3, out, &sum);
    assert_int_equal(out[0].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[0].node, 0);
    assert_int_equal(out[1].verdict, DS_ADMIT_HELD_NO_ROOM);
    assert_false(out[1].never_fits);
    assert_int_equal(out[1].node, 0);
    assert_true(out[1].node_free.v[DS_RES_CPU] == 1000); /* what was left after the first */
    /* Backfill: the smaller task behind fits the 1 core left. */
    assert_int_equal(out[2].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(sum.count[DS_ADMIT_RELEASED], 2);
    assert_int_equal(sum.count[DS_ADMIT_HELD_NO_ROOM], 1);
}

/* Best fit: the node left with the least free room (as fractions of allocatable) wins; ties go
 * to the lower index. */
static void test_best_fit(void **state)
{
    (void)state;
    ds_admit_node nodes[] = {
        node(8000, 16 * GI, 0, 0),        /* empty big node */
        node(4000, 8 * GI, 2000, 4 * GI), /* half full */
        node(4000, 8 * GI, 2000, 4 * GI), /* same: tie, lower index wins */
    };
    ds_admit_task ready[] = {task(2000, 4 * GI), task(2000, 4 * GI), task(2000, 4 * GI)};
    ds_admit_result out[3];
    plan_ok(&capacity0, nodes, 3, NULL, 0, ready, 3, out, NULL);
    assert_int_equal(out[0].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[0].node, 1); /* fills node 1 exactly */
    assert_int_equal(out[1].node, 2);
    assert_int_equal(out[2].node, 0);
}

/* In-flight tasks (released, not bound) take room first, so a ready task does not get room that
 * a released task will use. */
static void test_inflight_take_room(void **state)
{
    (void)state;
    ds_admit_node nodes[] = {node(4000, 8 * GI, 0, 0)};
    ds_admit_task inflight[] = {task(3000, GI)};
    ds_admit_task ready[] = {task(2000, GI), task(1000, GI)};
    ds_admit_result out[2];
    ds_admit_summary sum;
    ds_admit_params p = capacity0; /* no look-ahead */
    plan_ok(&p, nodes, 1, inflight, 1, ready, 2, out, &sum);
    assert_int_equal(out[0].verdict, DS_ADMIT_HELD_NO_ROOM);
    assert_int_equal(out[1].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(sum.inflight_placed, 1);
    assert_int_equal(sum.inflight_unplaced, 0);
}

/* The look-ahead releases up to N tasks that fit nowhere now; in-flight tasks that fit nowhere
 * use its slots. */
static void test_lookahead(void **state)
{
    (void)state;
    ds_admit_node nodes[] = {node(2000, 4 * GI, 0, 0)};
    ds_admit_task ready[] = {task(2000, GI), task(2000, GI), task(2000, GI), task(2000, GI)};
    ds_admit_result out[4];
    ds_admit_summary sum;
    ds_admit_params p = {.mode = DS_ADMIT_CAPACITY, .lookahead = 2};
    plan_ok(&p, nodes, 1, NULL, 0, ready, 4, out, &sum);
    assert_int_equal(out[0].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[1].verdict, DS_ADMIT_LOOKAHEAD);
    assert_int_equal(out[2].verdict, DS_ADMIT_LOOKAHEAD);
    assert_int_equal(out[3].verdict, DS_ADMIT_HELD_NO_ROOM);
    assert_int_equal(sum.count[DS_ADMIT_LOOKAHEAD], 2);

    /* Next round: the first two are in flight (the node is now full of the first, bound), one
     * look-ahead pod is still pending and fits nowhere: one slot is left. */
    ds_admit_node full[] = {node(2000, 4 * GI, 2000, GI)};
    ds_admit_task inflight[] = {task(2000, GI)};
    ds_admit_task rest[] = {task(2000, GI), task(2000, GI)};
    plan_ok(&p, full, 1, inflight, 1, rest, 2, out, &sum);
    assert_int_equal(sum.inflight_unplaced, 1);
    assert_int_equal(out[0].verdict, DS_ADMIT_LOOKAHEAD);
    assert_int_equal(out[1].verdict, DS_ADMIT_HELD_NO_ROOM);

    /* More unplaced in-flight tasks than slots: none left (no underflow). */
    ds_admit_task many[] = {task(2000, GI), task(2000, GI), task(2000, GI)};
    plan_ok(&p, full, 1, many, 3, rest, 1, out, &sum);
    assert_int_equal(sum.inflight_unplaced, 3);
    assert_int_equal(out[0].verdict, DS_ADMIT_HELD_NO_ROOM);
}

/* Pending pods that are no released task take room but neither a look-ahead slot nor a place
 * under maxConcurrentReleases. */
static void test_room_only(void **state)
{
    (void)state;
    ds_admit_node nodes[] = {node(4000, 8 * GI, 0, 0)};
    ds_admit_task inflight[] = {task(3000, GI), task(8000, GI)};
    inflight[0].room_only = true;
    inflight[1].room_only = true; /* fits nowhere: uses no slot */
    ds_admit_task ready[] = {task(2000, GI), task(1000, GI), task(1000, GI)};
    ds_admit_result out[3];
    ds_admit_summary sum;
    ds_admit_params p = {.mode = DS_ADMIT_CAPACITY, .lookahead = 1, .max_concurrent = 2};
    plan_ok(&p, nodes, 1, inflight, 2, ready, 3, out, &sum);
    assert_int_equal(sum.inflight_placed, 1);
    assert_int_equal(sum.inflight_unplaced, 0);
    assert_int_equal(out[0].verdict, DS_ADMIT_LOOKAHEAD); /* 1 core left after the other pod */
    assert_int_equal(out[1].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[2].verdict, DS_ADMIT_HELD_LIMIT);
}

/* An upcoming task (its pod still to come) keeps the room it fits from the tasks behind it, but
 * counts against neither maxConcurrentReleases nor the look-ahead, and takes nothing when it fits
 * nowhere. */
static void test_upcoming(void **state)
{
    (void)state;
    ds_admit_node nodes[] = {node(4000, 8 * GI, 0, 0), node(4000, 8 * GI, 3000, 0)};
    ds_admit_task ready[] = {task(4000, GI), task(4000, GI), task(1000, GI), task(4000, GI)};
    ready[0].upcoming = true;
    ds_admit_result out[4];
    ds_admit_summary sum;
    ds_admit_params p = {.mode = DS_ADMIT_CAPACITY, .lookahead = 1, .max_concurrent = 2};
    plan_ok(&p, nodes, 2, NULL, 0, ready, 4, out, &sum);
    assert_int_equal(out[0].verdict, DS_ADMIT_RELEASED); /* room kept on node 0 */
    assert_int_equal(out[0].node, 0);
    /* node 0 is kept: not even ahead of room, which would take the kept room when it frees */
    assert_int_equal(out[1].verdict, DS_ADMIT_HELD_NO_ROOM);
    assert_int_equal(out[1].node, 0);
    assert_int_equal(out[2].verdict, DS_ADMIT_RELEASED); /* node 1's last core */
    assert_int_equal(out[2].node, 1);
    assert_int_equal(out[3].verdict, DS_ADMIT_HELD_NO_ROOM); /* the look-ahead is no way either */
    /* A task that could never use the kept node (it wants more than node 0 has) still goes
     * ahead of room elsewhere. */
    ds_admit_node mixed[] = {node(4000, 8 * GI, 0, 0), node(16000, 8 * GI, 15000, 0)};
    ds_admit_task two[] = {task(4000, GI), task(8000, GI)};
    two[0].upcoming = true;
    plan_ok(&p, mixed, 2, NULL, 0, two, 2, out, &sum);
    assert_int_equal(out[0].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[1].verdict, DS_ADMIT_LOOKAHEAD);
    /* A first task (the room its upstream freed) takes it before the task in flight; unmarked,
     * the task in flight takes it. */
    ds_admit_node single[] = {node(4000, 8 * GI, 0, 0)};
    ds_admit_task queued[] = {task(4000, GI)};
    ds_admit_task next[] = {task(4000, GI)};
    ds_admit_params la = {.mode = DS_ADMIT_CAPACITY, .lookahead = 2};
    plan_ok(&la, single, 1, queued, 1, next, 1, out, &sum);
    assert_int_equal(out[0].verdict, DS_ADMIT_LOOKAHEAD);
    next[0].first = true;
    plan_ok(&la, single, 1, queued, 1, next, 1, out, &sum);
    assert_int_equal(out[0].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(sum.inflight_unplaced, 1);
    /* ... but not beyond max_concurrent: then it is decided with the others. */
    la.max_concurrent = 1;
    plan_ok(&la, single, 1, queued, 1, next, 1, out, &sum);
    assert_int_equal(out[0].verdict, DS_ADMIT_HELD_LIMIT);
    /* The limit: 2 in flight (the upcoming one is none). */
    ds_admit_task small[] = {task(4000, GI), task(500, GI), task(500, GI), task(500, GI)};
    small[0].upcoming = true;
    plan_ok(&p, nodes, 2, NULL, 0, small, 4, out, &sum);
    assert_int_equal(out[1].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[2].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[3].verdict, DS_ADMIT_HELD_LIMIT);

    /* Without the upcoming task, the batch task takes node 0. */
    plan_ok(&p, nodes, 2, NULL, 0, &ready[1], 1, out, &sum);
    assert_int_equal(out[0].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[0].node, 0);

    /* Fits nowhere: held, takes no slot, and the limit does not hold it either. */
    ds_admit_task big[] = {task(8000, GI), task(4000, GI)};
    big[0].upcoming = true;
    ds_admit_params one = {.mode = DS_ADMIT_CAPACITY, .lookahead = 0, .max_concurrent = 1};
    ds_admit_task inflight[] = {task(100, 0)}; /* the limit is reached */
    plan_ok(&one, nodes, 2, inflight, 1, big, 2, out, &sum);
    assert_int_equal(out[0].verdict, DS_ADMIT_HELD_NO_ROOM);
    assert_false(out[0].never_fits); /* not judged: it has no pod to tell */
    assert_int_equal(out[1].verdict, DS_ADMIT_HELD_LIMIT);
    ds_admit_task big2[] = {task(4000, GI), task(4000, GI)};
    big2[0].upcoming = true;
    plan_ok(&one, nodes, 2, inflight, 1, big2, 2, out, &sum);
    assert_int_equal(out[0].verdict, DS_ADMIT_RELEASED); /* room kept despite the limit */
}

/* maxConcurrentReleases counts in-flight tasks and those released now, look-ahead included. */
static void test_max_concurrent(void **state)
{
    (void)state;
    ds_admit_node nodes[] = {node(16000, 64 * GI, 0, 0)};
    ds_admit_task inflight[] = {task(100, 0)};
    ds_admit_task ready[] = {task(100, 0), task(100, 0), task(100, 0)};
    ds_admit_result out[3];
    ds_admit_summary sum;
    ds_admit_params p = {.mode = DS_ADMIT_CAPACITY, .max_concurrent = 3};
    plan_ok(&p, nodes, 1, inflight, 1, ready, 3, out, &sum);
    assert_int_equal(out[0].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[1].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[2].verdict, DS_ADMIT_HELD_LIMIT);
    assert_int_equal(sum.count[DS_ADMIT_HELD_LIMIT], 1);

    ds_admit_node small[] = {node(100, GI, 0, 0)};
    p.lookahead = 5;
    plan_ok(&p, small, 1, NULL, 0, ready, 3, out, &sum);
    assert_int_equal(out[0].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[1].verdict, DS_ADMIT_LOOKAHEAD);
    assert_int_equal(out[2].verdict, DS_ADMIT_LOOKAHEAD);
    p.max_concurrent = 2;
    plan_ok(&p, small, 1, NULL, 0, ready, 3, out, &sum);
    assert_int_equal(out[1].verdict, DS_ADMIT_LOOKAHEAD);
    assert_int_equal(out[2].verdict, DS_ADMIT_HELD_LIMIT);
}

/* A starving task at the head that does not fit reserves the nodes it could use: smaller tasks
 * behind it do not take the room freeing there, but still start on other nodes. */
static void test_starving_head_stops_backfill(void **state)
{
    (void)state;
    ds_admit_node nodes[] = {
        node(4000, 8 * GI, 2000, 0), /* 2 cores free; could hold the starving task when empty */
        node(1000, 8 * GI, 0, 0),    /* too small for it: free for backfill */
    };
    ds_admit_task ready[] = {task(4000, GI), task(1000, GI), task(1000, GI), task(1000, GI)};
    ready[0].starving = true;
    ds_admit_result out[4];
    ds_admit_summary sum;
    ds_admit_params p = {.mode = DS_ADMIT_CAPACITY};
    plan_ok(&p, nodes, 2, NULL, 0, ready, 4, out, &sum);
    assert_int_equal(out[0].verdict, DS_ADMIT_HELD_NO_ROOM);
    assert_int_equal(out[0].node, 0);
    assert_int_equal(out[1].verdict, DS_ADMIT_RELEASED); /* on the small node */
    assert_int_equal(out[1].node, 1);
    assert_int_equal(out[2].verdict, DS_ADMIT_HELD_STARVING); /* would fit node 0 */
    assert_int_equal(out[2].blocker, 0);
    assert_int_equal(out[2].node, 0);
    assert_int_equal(out[3].verdict, DS_ADMIT_HELD_STARVING);

    /* The same queue without starvation: backfill takes node 0's room. */
    ready[0].starving = false;
    plan_ok(&p, nodes, 2, NULL, 0, ready, 4, out, &sum);
    assert_int_equal(out[2].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[2].node, 0);
    assert_int_equal(out[3].verdict, DS_ADMIT_RELEASED);

    /* A starving task that fits is released and reserves nothing. */
    ready[0] = task(2000, GI);
    ready[0].starving = true;
    plan_ok(&p, nodes, 2, NULL, 0, ready, 4, out, &sum);
    assert_int_equal(out[0].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[0].node, 0);
    assert_int_equal(out[1].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[2].verdict, DS_ADMIT_HELD_NO_ROOM);
}

/* Held room (hold_room): a task that may hold and fits no free room takes its request from the
 * node closest to holding it, so the room that frees there is not given to the small tasks behind
 * it (the backlog's maps), nor to look-ahead; room beyond it is theirs; only hold_room tasks hold;
 * tasks not marked may_hold, or larger than every node, hold nothing. */
static void test_hold_room(void **state)
{
    (void)state;
    ds_admit_node nodes[] = {
        node(8000, 8 * GI, 6000, 0), /* 2 cores free */
        node(8000, 8 * GI, 7000, 0), /* 1 core free */
    };
    /* A 4-core deadline task, then two 1-core maps and a 2-core one. */
    ds_admit_task ready[] = {task(4000, GI), task(1000, GI), task(1000, GI), task(2000, GI)};
    ready[0].may_hold = true;
    ds_admit_result out[4];
    ds_admit_summary sum;
    ds_admit_params p = {.mode = DS_ADMIT_CAPACITY, .lookahead = 2};
    /* Without holds: the maps take the free room, the task goes ahead of room. */
    plan_ok(&p, nodes, 2, NULL, 0, ready, 4, out, &sum);
    assert_int_equal(out[0].verdict, DS_ADMIT_LOOKAHEAD);
    assert_int_equal(out[1].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[2].verdict, DS_ADMIT_RELEASED);
    assert_false(out[0].room_held);
    /* With holds: the room of node 0 (closest: 2 of 4 cores free) is the task's; the maps get
     * node 1's core only, the 2-core task nothing, and none of them goes ahead of room. */
    p.hold_room = 1;
    plan_ok(&p, nodes, 2, NULL, 0, ready, 4, out, &sum);
    assert_int_equal(out[0].verdict, DS_ADMIT_HELD_NO_ROOM);
    assert_true(out[0].room_held);
    assert_int_equal(out[0].node, 0);
    assert_int_equal(out[1].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[1].node, 1);
    assert_int_equal(out[2].verdict, DS_ADMIT_HELD_NO_ROOM); /* could use node 0: no look-ahead */
    assert_int_equal(out[3].verdict, DS_ADMIT_HELD_NO_ROOM);
    assert_int_equal(sum.count[DS_ADMIT_LOOKAHEAD], 0);
    char buf[256];
    ds_admit_describe(&out[0], &ready[0].request, "n0", NULL, 0, buf, sizeof buf);
    assert_string_equal(buf, "no room: needs cpu 4, memory 1Gi; the room that frees on node n0 is "
                             "held for it (free now: cpu 2, memory 8Gi)");
    /* Room beyond the held room is the others': with 6 cores free on node 0 the maps fit there. */
    nodes[0] = node(8000, 8 * GI, 2000, 0);
    nodes[1] = node(8000, 8 * GI, 8000, 0);
    ready[0] = task(8000, GI); /* needs the whole node */
    ready[0].may_hold = true;
    plan_ok(&p, nodes, 2, NULL, 0, ready, 4, out, &sum);
    assert_true(out[0].room_held);
    assert_int_equal(out[0].node, 0);
    for (size_t i = 1; i < 4; i++)
        assert_int_equal(out[i].verdict, DS_ADMIT_HELD_NO_ROOM);
    /* Only hold_room tasks hold: a second one goes ahead of room as before. */
    ds_admit_task two[] = {task(8000, GI), task(8000, GI), task(1000, GI)};
    two[0].may_hold = two[1].may_hold = true;
    nodes[0] = node(8000, 8 * GI, 6000, 0);
    nodes[1] = node(8000, 8 * GI, 7000, 0);
    plan_ok(&p, nodes, 2, NULL, 0, two, 3, out, &sum);
    assert_true(out[0].room_held);
    assert_false(out[1].room_held);
    assert_int_equal(out[2].verdict, DS_ADMIT_RELEASED); /* node 1's core */
    assert_int_equal(out[2].node, 1);
    /* hold_room 2: the second holds the other node; nothing is left for the map. */
    p.hold_room = 2;
    plan_ok(&p, nodes, 2, NULL, 0, two, 3, out, &sum);
    assert_true(out[0].room_held && out[1].room_held);
    assert_int_not_equal(out[0].node, out[1].node);
    assert_int_equal(out[2].verdict, DS_ADMIT_HELD_NO_ROOM);
    /* Not marked, or larger than every node: no hold. */
    two[0].may_hold = false;
    two[1] = task(9000, GI);
    two[1].may_hold = true;
    plan_ok(&p, nodes, 2, NULL, 0, two, 3, out, &sum);
    assert_false(out[0].room_held);
    assert_false(out[1].room_held);
    assert_true(out[1].never_fits);
}

/* Look-ahead does not go to a task behind a starving one on the nodes it reserves; a starving
 * task larger than every node reserves nothing. */
static void test_starving_and_lookahead(void **state)
{
    (void)state;
    ds_admit_node nodes[] = {node(4000, 8 * GI, 4000, 0)}; /* full */
    ds_admit_task ready[] = {task(2000, GI), task(1000, GI)};
    ready[0].starving = true;
    ds_admit_result out[2];
    ds_admit_params p = {.mode = DS_ADMIT_CAPACITY, .lookahead = 4};
    plan_ok(&p, nodes, 1, NULL, 0, ready, 2, out, NULL);
    assert_int_equal(out[0].verdict, DS_ADMIT_LOOKAHEAD);
    assert_int_equal(out[1].verdict, DS_ADMIT_HELD_STARVING);

    ready[0] = task(8000, GI); /* never fits */
    ready[0].starving = true;
    plan_ok(&p, nodes, 1, NULL, 0, ready, 2, out, NULL);
    assert_int_equal(out[0].verdict, DS_ADMIT_HELD_NO_ROOM);
    assert_true(out[0].never_fits);
    assert_int_equal(out[1].verdict, DS_ADMIT_LOOKAHEAD);
}

/* Eligibility masks: a task takes room only on the nodes it may use; a task that may use no node
 * is held (never fits), and so is one larger than every node it may use. */
static void test_eligibility(void **state)
{
    (void)state;
    ds_admit_node nodes[] = {node(4000, 8 * GI, 0, 0), node(8000, 8 * GI, 0, 0)};
    bool only0[] = {true, false}, none[] = {false, false};
    ds_admit_task ready[] = {task(3000, GI), task(3000, GI), task(6000, GI), task(1, 0)};
    ready[0].eligible = only0;
    ready[1].eligible = only0;
    ready[2].eligible = only0;
    ready[3].eligible = none;
    ds_admit_result out[4];
    ds_admit_params p = {.mode = DS_ADMIT_CAPACITY, .lookahead = 3};
    plan_ok(&p, nodes, 2, NULL, 0, ready, 4, out, NULL);
    assert_int_equal(out[0].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[0].node, 0);
    assert_int_equal(out[1].verdict, DS_ADMIT_LOOKAHEAD); /* node 1 has room, but not for it */
    assert_int_equal(out[1].node, 0);
    assert_int_equal(out[2].verdict, DS_ADMIT_HELD_NO_ROOM);
    assert_true(out[2].never_fits);
    assert_int_equal(out[3].verdict, DS_ADMIT_HELD_NO_ROOM);
    assert_true(out[3].never_fits);
    assert_true(out[3].node == SIZE_MAX);
}

/* Zero requests fit everywhere; an over-committed node holds nothing with a positive request;
 * no nodes at all holds every task with a request. */
static void test_edges(void **state)
{
    (void)state;
    ds_admit_node nodes[] = {node(1000, GI, 1500, 0)}; /* over-committed cpu */
    ds_admit_task ready[] = {task(0, 0), task(1, 0), task(0, 1)};
    ds_admit_result out[3];
    plan_ok(&capacity0, nodes, 1, NULL, 0, ready, 3, out, NULL);
    assert_int_equal(out[0].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[1].verdict, DS_ADMIT_HELD_NO_ROOM);
    assert_int_equal(out[2].verdict, DS_ADMIT_RELEASED);

    plan_ok(&capacity0, NULL, 0, NULL, 0, ready, 3, out, NULL);
    assert_int_equal(out[0].verdict, DS_ADMIT_HELD_NO_ROOM);
    assert_true(out[0].never_fits);
    assert_int_equal(out[1].verdict, DS_ADMIT_HELD_NO_ROOM);

    ds_err err = {{0}};
    assert_int_equal(ds_admit_plan(NULL, NULL, 0, NULL, 0, NULL, 0, NULL, NULL, &err), -1);
    assert_string_equal(err.msg, "admission: missing parameters");
    assert_int_equal(ds_admit_plan(&capacity0, NULL, 1, NULL, 0, NULL, 0, NULL, NULL, &err), -1);
    assert_string_equal(err.msg, "admission: missing nodes");
    assert_int_equal(ds_admit_plan(&capacity0, NULL, 0, NULL, 0, ready, 1, NULL, NULL, &err), -1);
    assert_string_equal(err.msg, "admission: missing results");
    assert_int_equal(ds_admit_plan(&capacity0, NULL, 0, NULL, 0, NULL, 0, NULL, NULL, &err), 0);
}

/* admission: all releases every ready task up to the limit, whatever the room. */
static void test_mode_all(void **state)
{
    (void)state;
    ds_admit_node nodes[] = {node(1000, GI, 1000, 0)};
    ds_admit_task inflight[] = {task(1000, 0)};
    ds_admit_task ready[] = {task(1000, 0), task(1000, 0), task(1000, 0)};
    ds_admit_result out[3];
    ds_admit_summary sum;
    ds_admit_params p = {.mode = DS_ADMIT_ALL};
    plan_ok(&p, nodes, 1, inflight, 1, ready, 3, out, &sum);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(out[i].verdict, DS_ADMIT_RELEASED);
        assert_true(out[i].node == SIZE_MAX);
    }
    p.max_concurrent = 3;
    plan_ok(&p, nodes, 1, inflight, 1, ready, 3, out, &sum);
    assert_int_equal(out[1].verdict, DS_ADMIT_RELEASED);
    assert_int_equal(out[2].verdict, DS_ADMIT_HELD_LIMIT);
    assert_int_equal(sum.count[DS_ADMIT_RELEASED], 2);
}

static void test_describe(void **state)
{
    (void)state;
    char buf[256];
    ds_res req = {{2000, GI, 0, 1}};
    ds_admit_result r = {.verdict = DS_ADMIT_HELD_NO_ROOM,
                         .node = 3,
                         .node_free = {{1500, 4 * GI, 0, 0}},
                         .blocker = SIZE_MAX};
    ds_admit_describe(&r, &req, "n3", NULL, 0, buf, sizeof buf);
    assert_string_equal(buf, "no room: needs cpu 2, memory 1Gi, gpu 1; most free room on node "
                             "n3: cpu 1500m, memory 4Gi, gpu 0");
    r.verdict = DS_ADMIT_LOOKAHEAD;
    ds_admit_describe(&r, &req, "n3", NULL, 0, buf, sizeof buf);
    assert_string_equal(buf, "released ahead of room (look-ahead): needs cpu 2, memory 1Gi, gpu "
                             "1; most free room on node n3: cpu 1500m, memory 4Gi, gpu 0");
    r.verdict = DS_ADMIT_HELD_NO_ROOM;
    r.never_fits = true;
    ds_admit_describe(&r, &req, "n3", NULL, 0, buf, sizeof buf);
    assert_string_equal(buf, "no room: needs cpu 2, memory 1Gi, gpu 1; larger than the "
                             "allocatable of every node it may run on");
    r.node = SIZE_MAX;
    ds_admit_describe(&r, &req, NULL, NULL, 0, buf, sizeof buf);
    assert_string_equal(buf, "no room: no node it may run on (node selector, affinity, taints)");
    r = (ds_admit_result){.verdict = DS_ADMIT_HELD_STARVING, .node = 0, .blocker = 1};
    ds_admit_describe(&r, &req, "n0", "ns/job-a/big", 0, buf, sizeof buf);
    assert_string_equal(buf, "behind starving task ns/job-a/big, which waits for room on node n0");
    r = (ds_admit_result){.verdict = DS_ADMIT_HELD_LIMIT, .node = SIZE_MAX};
    ds_admit_describe(&r, &req, NULL, NULL, 4, buf, sizeof buf);
    assert_string_equal(buf, "maxConcurrentReleases (4) tasks released and not yet running");
    r = (ds_admit_result){.verdict = DS_ADMIT_RELEASED, .node = 2};
    ds_admit_describe(&r, &req, "n2", NULL, 0, buf, sizeof buf);
    assert_string_equal(buf, "fits on node n2");
    /* Cut short, still terminated. */
    char small[8];
    r = (ds_admit_result){.verdict = DS_ADMIT_HELD_LIMIT, .node = SIZE_MAX};
    ds_admit_describe(&r, &req, NULL, NULL, 4, small, sizeof small);
    assert_string_equal(small, "maxConc");
}

static void test_res_format(void **state)
{
    (void)state;
    char buf[128];
    ds_res r = {{250, 1536LL * 1024 * 1024, 1000, 2}};
    ds_res_format(&r, buf, sizeof buf);
    assert_string_equal(buf, "cpu 250m, memory 1536Mi, ephemeral-storage 1000, gpu 2");
    ds_res z = {{0, 0, 0, 0}};
    ds_res_format(&z, buf, sizeof buf);
    assert_string_equal(buf, "nothing");
    ds_res neg = {{-1500, -2 * GI, 0, 0}};
    ds_res_format(&neg, buf, sizeof buf);
    assert_string_equal(buf, "cpu -1500m, memory -2Gi");
    char small[10];
    ds_res_format(&r, small, sizeof small);
    assert_string_equal(small, "cpu 250m");
    ds_res like = {{1, 0, 0, 1}};
    ds_res_format_like(&z, &like, buf, sizeof buf);
    assert_string_equal(buf, "cpu 0, gpu 0");
    ds_res_format_like(&r, &z, buf, sizeof buf);
    assert_string_equal(buf, "cpu 250m, memory 1536Mi, ephemeral-storage 1000, gpu 2");
    ds_res_format_like(&r, NULL, buf, sizeof buf);
    assert_string_equal(buf, "cpu 250m, memory 1536Mi, ephemeral-storage 1000, gpu 2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_releases_what_fits_in_order),
        cmocka_unit_test(test_best_fit),
        cmocka_unit_test(test_inflight_take_room),
        cmocka_unit_test(test_lookahead),
        cmocka_unit_test(test_room_only),
        cmocka_unit_test(test_upcoming),
        cmocka_unit_test(test_max_concurrent),
        cmocka_unit_test(test_starving_head_stops_backfill),
        cmocka_unit_test(test_hold_room),
        cmocka_unit_test(test_starving_and_lookahead),
        cmocka_unit_test(test_eligibility),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_mode_all),
        cmocka_unit_test(test_describe),
        cmocka_unit_test(test_res_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
