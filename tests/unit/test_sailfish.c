/* test_sailfish.c: unit tests of Sailfish packing (dominant resource, DV of Eq. 1, complementary
 * partner, best fit) and of the extender's per-node score, with values worked out by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include <math.h>

#include "sailfish.h"

#define GI ((int64_t)1 << 30)

/* The paper's example (Sailfish, Fig. 5): demands on cpu, memory, storage. */
static const double T_I[3] = {6, 5, 4};
static const double T_J[3] = {2, 4, 2};
static const double T_S[3] = {1, 1, 2};

static void test_dominant(void **state)
{
    (void)state;
    assert_int_equal(ds_dominant(T_I, 3), 0);
    assert_int_equal(ds_dominant(T_J, 3), 1);
    assert_int_equal(ds_dominant(T_S, 3), 2);
    const double tie[3] = {3, 3, 1};
    assert_int_equal(ds_dominant(tie, 3), 0);
    const double zero[2] = {0, 0};
    assert_int_equal(ds_dominant(zero, 2), -1);
    const double neg[2] = {-1, -2};
    assert_int_equal(ds_dominant(neg, 2), -1);
    assert_int_equal(ds_dominant(T_I, 0), -1);
    const double with_nan[3] = {NAN, 0.5, 0.2};
    assert_int_equal(ds_dominant(with_nan, 3), 1);
}

static void test_dv_paper(void **state)
{
    (void)state;
    assert_double_near(ds_dv(T_J, T_I, 3), 10.5, 1e-12);
    assert_double_near(ds_dv(T_S, T_I, 3), 22.5, 1e-12);
    /* Symmetric, zero against itself. */
    assert_double_near(ds_dv(T_I, T_S, 3), 22.5, 1e-12);
    assert_double_near(ds_dv(T_I, T_I, 3), 0.0, 1e-12);
    assert_double_near(ds_dv(T_I, T_S, 0), 0.0, 1e-12);
}

static void test_partner_paper(void **state)
{
    (void)state;
    const double cands[2 * 3] = {2, 4, 2, 1, 1, 2}; /* T_j, T_s */
    size_t out = 99;
    assert_int_equal(ds_complementary_partner(T_I, cands, 2, 3, &out), 0);
    assert_int_equal(out, 1); /* T_s: DV 22.5 > 10.5 */

    /* Only T_j offered: it is the partner. */
    out = 99;
    assert_int_equal(ds_complementary_partner(T_I, cands, 1, 3, &out), 0);
    assert_int_equal(out, 0);
}

static void test_partner_same_dominant_excluded(void **state)
{
    (void)state;
    /* (10,0,0) has the largest DV with T_i (28.5) but shares its dominant resource (cpu). */
    const double cands[3 * 3] = {10, 0, 0, 2, 4, 2, 9, 1, 1};
    assert_double_near(ds_dv(&cands[0], T_I, 3), 28.5, 1e-12);
    size_t out = 99;
    assert_int_equal(ds_complementary_partner(T_I, cands, 3, 3, &out), 0);
    assert_int_equal(out, 1);

    /* Every candidate cpu-dominant: no partner, out untouched. */
    const double same[2 * 3] = {10, 0, 0, 9, 1, 1};
    out = 99;
    assert_int_equal(ds_complementary_partner(T_I, same, 2, 3, &out), -1);
    assert_int_equal(out, 99);

    /* A zero target has no dominant resource; zero candidates are never partners. */
    const double zero[3] = {0, 0, 0};
    assert_int_equal(ds_complementary_partner(zero, cands, 3, 3, &out), -1);
    const double zero_cand[3] = {0, 0, 0};
    assert_int_equal(ds_complementary_partner(T_I, zero_cand, 1, 3, &out), -1);
    assert_int_equal(ds_complementary_partner(T_I, NULL, 0, 3, &out), -1);
}

/* A partner dominant in the first resource (index 0) counts: memory-dominant T_j pairs with
 * cpu-dominant T_i. */
static void test_partner_first_resource_dominant(void **state)
{
    (void)state;
    size_t out = 99;
    assert_int_equal(ds_complementary_partner(T_J, T_I, 1, 3, &out), 0);
    assert_int_equal(out, 0);
}

static void test_partner_tie_lowest_index(void **state)
{
    (void)state;
    const double cands[3 * 3] = {6, 5, 4, 1, 1, 2, 1, 1, 2};
    size_t out = 99;
    assert_int_equal(ds_complementary_partner(T_I, cands, 3, 3, &out), 0);
    assert_int_equal(out, 1);
}

static void test_best_fit(void **state)
{
    (void)state;
    ds_res alloc[4] = {
        {{4000, 8 * GI, 0, 0}},
        {{4000, 8 * GI, 0, 0}},
        {{4000, 8 * GI, 0, 0}},
        {{4000, 8 * GI, 0, 0}},
    };
    ds_res free_[4] = {
        {{3000, 6 * GI, 0, 0}}, /* roomy */
        {{1500, 3 * GI, 0, 0}}, /* fullest that fits */
        {{500, 8 * GI, 0, 0}},  /* too little cpu */
        {{2000, 2 * GI, 0, 0}}, /* fits exactly on memory, more cpu left than node 1 */
    };
    ds_res req = {{1000, 2 * GI, 0, 0}};
    size_t out = 99;
    assert_int_equal(ds_best_fit(&req, free_, alloc, 4, &out), 0);
    /* Remaining after placement: node0 0.5+0.5=1.0, node1 0.125+0.125=0.25, node3 0.25+0=0.25:
     * tie between 1 and 3 goes to the lower index. */
    assert_int_equal(out, 1);

    free_[1].v[DS_RES_CPU] = 2500; /* node1 now leaves 0.375 + 0.125 */
    assert_int_equal(ds_best_fit(&req, free_, alloc, 4, &out), 0);
    assert_int_equal(out, 3);

    ds_res huge = {{5000, 1, 0, 0}};
    out = 99;
    assert_int_equal(ds_best_fit(&huge, free_, alloc, 4, &out), -1);
    assert_int_equal(out, 99);

    /* A gpu request never fits a node without gpus, even if free_ claims some. */
    ds_res gpu_req = {{100, 1, 0, 1}};
    ds_res bogus_free = {{4000, 8 * GI, 0, 1}};
    assert_int_equal(ds_best_fit(&gpu_req, &bogus_free, alloc, 1, &out), -1);
    /* Likewise cpu on a node without allocatable cpu. */
    ds_res no_cpu = {{0, 8 * GI, 0, 0}}, cpu_free = {{4000, 8 * GI, 0, 0}};
    assert_int_equal(ds_best_fit(&req, &cpu_free, &no_cpu, 1, &out), -1);
    assert_int_equal(ds_best_fit(&req, NULL, NULL, 0, &out), -1);
}

static ds_node_view node_view(int64_t cpu, int64_t mem, int64_t used_cpu, int64_t used_mem,
                              double speed)
{
    ds_node_view v = {.allocatable = {{cpu, mem, 0, 0}},
                      .requested = {{used_cpu, used_mem, 0, 0}},
                      .speed = speed};
    return v;
}

static void test_score_prefers_complementary_node(void **state)
{
    (void)state;
    ds_pack_params p = {0.4, 0.4, 0.2};
    ds_res req = {{1000, 1 * GI, 0, 0}}; /* cpu-heavy: (0.25, 0.0625) */
    /* Same free room (sum of free fractions 1.25) on both; A is memory-loaded, B cpu-loaded. */
    ds_node_view mem_loaded = node_view(4000, 16 * GI, 1000, 8 * GI, 1.0);
    ds_node_view cpu_loaded = node_view(4000, 16 * GI, 2000, 4 * GI, 1.0);
    ds_node_score a, b;
    ds_score_node(&req, &mem_loaded, 0.0, 1.0, &p, &a);
    ds_score_node(&req, &cpu_loaded, 0.0, 1.0, &p, &b);

    assert_true(a.fits);
    /* DV((0.25,0.0625),(0.25,0.5)) = 0.4375^2/2, normalised by m/2 = 1. */
    assert_double_near(a.complementarity, 0.095703125, 1e-12);
    /* Free after placement: cpu 0.5, mem 7/16 -> mean 0.46875. */
    assert_double_near(a.best_fit, 0.53125, 1e-12);
    assert_double_near(a.speed, 0.0, 1e-12);
    assert_int_equal(a.score, 3); /* 10 * (0.4*0.0957 + 0.4*0.53125) = 2.51 */
    /* Weights are relative: 2/2/1 is 0.4/0.4/0.2. */
    ds_pack_params twice = {2.0, 2.0, 1.0};
    ds_node_score a2;
    ds_score_node(&req, &mem_loaded, 0.0, 1.0, &twice, &a2);
    assert_int_equal(a2.score, 3);
    ds_pack_params best_fit_only = {0.0, 3.0, 0.0};
    ds_score_node(&req, &mem_loaded, 0.0, 1.0, &best_fit_only, &a2);
    assert_int_equal(a2.score, 5); /* 10 * 0.53125 */

    assert_true(b.fits);
    assert_double_near(b.complementarity, 0.0, 1e-12); /* both cpu-dominant */
    assert_double_near(b.best_fit, 0.53125, 1e-12);
    assert_int_equal(b.score, 2); /* 10 * 0.4 * 0.53125 = 2.125 */
    assert_true(a.score > b.score);

    /* An empty node has no complementarity and little best fit. */
    ds_node_view empty = node_view(4000, 16 * GI, 0, 0, 1.0);
    ds_node_score e;
    ds_score_node(&req, &empty, 0.0, 1.0, &p, &e);
    assert_double_near(e.complementarity, 0.0, 1e-12);
    assert_double_near(e.best_fit, 0.15625, 1e-12);
    assert_int_equal(e.score, 1);
}

static void test_score_full_complementarity(void **state)
{
    (void)state;
    ds_pack_params only_c = {1.0, 0.0, 0.0};
    ds_res req = {{4000, 0, 0, 0}};
    ds_node_view n = node_view(4000, 16 * GI, 0, 16 * GI, 1.0);
    ds_node_score s;
    ds_score_node(&req, &n, 0.0, 1.0, &only_c, &s);
    assert_true(s.fits);
    assert_double_near(s.complementarity, 1.0, 1e-12);
    assert_double_near(s.best_fit, 1.0, 1e-12);
    assert_int_equal(s.score, 10);

    /* All weights zero: fits, but the score is 0. */
    ds_pack_params none = {0, 0, 0};
    ds_score_node(&req, &n, 0.0, 1.0, &none, &s);
    assert_true(s.fits);
    assert_int_equal(s.score, 0);

    /* Negative and NaN weights count as zero. */
    ds_pack_params odd = {1.0, -5.0, NAN};
    ds_score_node(&req, &n, 0.0, 1.0, &odd, &s);
    assert_int_equal(s.score, 10);
}

static void test_score_critical_prefers_fast(void **state)
{
    (void)state;
    ds_res req = {{1000, 1 * GI, 0, 0}};
    ds_node_view slow = node_view(4000, 16 * GI, 0, 0, 1.0);
    ds_node_view fast = node_view(4000, 16 * GI, 0, 0, 2.0);
    ds_node_score s, f;
    ds_score_node(&req, &slow, 1.0, 2.0, NULL, &s); /* NULL: default weights 0.4/0.4/0.2 */
    ds_score_node(&req, &fast, 1.0, 2.0, NULL, &f);
    assert_double_near(s.speed, 0.5, 1e-12);
    assert_double_near(f.speed, 1.0, 1e-12);
    assert_int_equal(s.score, 2); /* 10 * (0.4*0.15625 + 0.2*0.5) = 1.625 */
    assert_int_equal(f.score, 3); /* 10 * (0.4*0.15625 + 0.2*1.0) = 2.625 */

    /* Not critical: speed does not matter. */
    ds_score_node(&req, &slow, 0.0, 2.0, NULL, &s);
    ds_score_node(&req, &fast, 0.0, 2.0, NULL, &f);
    assert_int_equal(s.score, f.score);
    assert_double_near(f.speed, 0.0, 1e-12);

    /* Half critical, and no speed information at all. */
    ds_score_node(&req, &fast, 0.5, 2.0, NULL, &f);
    assert_double_near(f.speed, 0.5, 1e-12);
    ds_score_node(&req, &fast, 1.0, 0.0, NULL, &f);
    assert_double_near(f.speed, 0.0, 1e-12);

    /* Speeds below 1: 0.25 against the fastest 0.5. */
    ds_node_view slower = node_view(4000, 16 * GI, 0, 0, 0.25);
    ds_score_node(&req, &slower, 1.0, 0.5, NULL, &s);
    assert_double_near(s.speed, 0.5, 1e-12);
}

static void test_score_not_fitting(void **state)
{
    (void)state;
    ds_node_score s;
    ds_res too_big = {{5000, 1 * GI, 0, 0}};
    ds_node_view n = node_view(4000, 16 * GI, 0, 0, 2.0);
    ds_score_node(&too_big, &n, 1.0, 2.0, NULL, &s);
    assert_false(s.fits);
    assert_int_equal(s.score, 0);
    assert_double_near(s.speed, 0.0, 1e-12);
    assert_double_near(s.best_fit, 0.0, 1e-12);

    /* The load leaves less than the request. */
    ds_res req = {{1000, 1 * GI, 0, 0}};
    ds_node_view busy = node_view(4000, 16 * GI, 3500, 0, 1.0);
    ds_score_node(&req, &busy, 0.0, 1.0, NULL, &s);
    assert_false(s.fits);
    assert_int_equal(s.score, 0);

    /* A gpu pod on a node without gpus. */
    ds_res gpu = {{1000, 1 * GI, 0, 1}};
    ds_score_node(&gpu, &n, 0.0, 2.0, NULL, &s);
    assert_false(s.fits);
    assert_int_equal(s.score, 0);

    /* Exactly full after placement: fits with best fit 1 (same dominant: no complementarity). */
    ds_node_view nearly = node_view(4000, 16 * GI, 3000, 12 * GI, 1.0);
    ds_res rest = {{1000, 4 * GI, 0, 0}};
    ds_score_node(&rest, &nearly, 0.0, 1.0, NULL, &s);
    assert_true(s.fits);
    assert_double_near(s.best_fit, 1.0, 1e-12);
    assert_double_near(s.complementarity, 0.0, 1e-12);
    assert_int_equal(s.score, 4);
}

static void test_score_gpu_dimension(void **state)
{
    (void)state;
    /* A gpu node with 4 gpus: a 1-gpu pod is gpu-dominant (0.25 > 0.125), the cpu-loaded node is
     * cpu-dominant, so the pair complements. m = 3 used dimensions (storage unset). */
    ds_node_view n = {
        .allocatable = {{8000, 32 * GI, 0, 4}}, .requested = {{4000, 4 * GI, 0, 0}}, .speed = 1.0};
    ds_res req = {{1000, 2 * GI, 0, 1}};
    ds_node_score s;
    ds_score_node(&req, &n, 0.0, 1.0, NULL, &s);
    assert_true(s.fits);
    /* a = (0.125, 0.0625, 0.25), b = (0.5, 0.125, 0): DV = (0.375^2 + 0.0625^2 + 0.25^2) / 2
     * = 0.103515625; / 1.5 = 0.0690104166... */
    assert_double_near(s.complementarity, 0.103515625 / 1.5, 1e-12);
    /* free after: cpu 3/8, mem 26/32, gpu 3/4 -> mean (0.375 + 0.8125 + 0.75) / 3 = 0.6458333 */
    assert_double_near(s.best_fit, 1.0 - (0.375 + 0.8125 + 0.75) / 3.0, 1e-12);
    assert_int_equal(s.score, 2); /* 10 * 0.4 * (0.0690 + 0.3542) = 1.693 */
}

/* An idle GPU under a pod that requests none is not a packing dimension: on an 8-cpu, 32Gi,
 * 4-gpu node with 6 cpu and 4Gi in use, a 1-cpu 16Gi pod is scored over cpu and memory only.
 * a = (0.125, 0.5), b = (0.75, 0.125): dominants differ; DV = (0.625^2 + 0.375^2) / 2 =
 * 0.265625, / (m/2 = 1) = 0.265625. Free after: cpu 1/8, memory 12/32: best fit 1 - 0.5/2 =
 * 0.75. Score 10 * 0.4 * (0.265625 + 0.75) = 4.06 -> 4 (with the idle gpu counted it was 3). */
static void test_score_idle_gpu_ignored(void **state)
{
    (void)state;
    ds_node_view n = {
        .allocatable = {{8000, 32 * GI, 0, 4}}, .requested = {{6000, 4 * GI, 0, 0}}, .speed = 1.0};
    ds_res req = {{1000, 16 * GI, 0, 0}};
    ds_node_score s;
    ds_score_node(&req, &n, 0.0, 1.0, NULL, &s);
    assert_true(s.fits);
    assert_double_near(s.complementarity, 0.265625, 1e-12);
    assert_double_near(s.best_fit, 0.75, 1e-12);
    assert_int_equal(s.score, 4);
    /* The same node without the gpu scores the same: the idle gpu changes nothing. */
    ds_node_view plain = n;
    plain.allocatable.v[DS_RES_GPU] = 0;
    ds_node_score t;
    ds_score_node(&req, &plain, 0.0, 1.0, NULL, &t);
    assert_int_equal(t.score, s.score);
    assert_double_near(t.best_fit, s.best_fit, 0);
    /* A gpu in use by the node's pods is a dimension again (their load is what a pod complements).
     */
    n.requested.v[DS_RES_GPU] = 2;
    ds_score_node(&req, &n, 0.0, 1.0, NULL, &s);
    /* a = (0.125, 0.5, 0), b = (0.75, 0.125, 0.5): DV = (0.390625 + 0.140625 + 0.25) / 2 =
     * 0.390625, / 1.5; free after: 1/8, 12/32, 2/4 -> best fit 1 - 1/3. */
    assert_double_near(s.complementarity, 0.390625 / 1.5, 1e-12);
    assert_double_near(s.best_fit, 1.0 - (0.125 + 0.375 + 0.5) / 3.0, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dominant),
        cmocka_unit_test(test_dv_paper),
        cmocka_unit_test(test_partner_paper),
        cmocka_unit_test(test_partner_same_dominant_excluded),
        cmocka_unit_test(test_partner_first_resource_dominant),
        cmocka_unit_test(test_partner_tie_lowest_index),
        cmocka_unit_test(test_best_fit),
        cmocka_unit_test(test_score_prefers_complementary_node),
        cmocka_unit_test(test_score_full_complementarity),
        cmocka_unit_test(test_score_critical_prefers_fast),
        cmocka_unit_test(test_score_not_fitting),
        cmocka_unit_test(test_score_gpu_dimension),
        cmocka_unit_test(test_score_idle_gpu_ignored),
    };
    return cmocka_run_group_tests_name("sailfish", tests, NULL, NULL);
}
