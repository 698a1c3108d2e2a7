/* test_wqueue.c: the waiting queue (augmented treap) against a brute-force reference: queue
 * order, first fit (from any position), ranks, counts before a key, removal, re-keying and
 * parking (the fit and head queries skip parked entries), on random operations. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "wqueue.h"

#define N_MAX 600

typedef struct ref {
    int live;
    int parked;
    sim_qkey key;
    ds_res req;
    uint32_t h;
} ref;

static int ref_less(const ref *a, const ref *b)
{
    for (int i = 0; i < SIM_QKEY_N; i++)
        if (a->key.k[i] != b->key.k[i])
            return a->key.k[i] < b->key.k[i];
    return a->key.seq < b->key.seq;
}

/* Reference: live entries in key order. */
static size_t ref_sorted(const ref *r, size_t n, size_t *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i].live)
            out[m++] = i;
    for (size_t i = 1; i < m; i++) {
        size_t x = out[i], j = i;
        while (j > 0 && ref_less(&r[x], &r[out[j - 1]])) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = x;
    }
    return m;
}

static void check(const sim_wqueue *q, const ref *r, size_t n, sim_rng *rng)
{
    size_t order[N_MAX];
    size_t m = ref_sorted(r, n, order);
    assert_int_equal(sim_wq_size(q), m);
    uint32_t got[N_MAX];
    assert_int_equal(sim_wq_collect(q, got), m);
    for (size_t i = 0; i < m; i++) {
        assert_int_equal(got[i], r[order[i]].h);
        assert_int_equal(sim_wq_rank(q, r[order[i]].h), i);
    }
    uint32_t first[8];
    size_t k = sim_wq_collect_first(q, first, 8);
    assert_int_equal(k, m < 8 ? m : 8);
    for (size_t i = 0; i < k; i++)
        assert_int_equal(first[i], r[order[i]].h);
    uint32_t head = SIM_WQ_NONE;
    size_t active = 0;
    for (size_t i = 0; i < m; i++)
        if (!r[order[i]].parked) {
            if (head == SIM_WQ_NONE)
                head = r[order[i]].h;
            active++;
        }
    assert_int_equal(sim_wq_first_active(q), head);
    assert_int_equal(sim_wq_active(q), active);
    for (int t = 0; t < 20; t++) {
        ds_res free_ = {{(int64_t)sim_rng_below(rng, 1200), (int64_t)sim_rng_below(rng, 1200), 0,
                         (int64_t)sim_rng_below(rng, 2)}};
        uint32_t want = SIM_WQ_NONE;
        for (size_t i = 0; i < m && want == SIM_WQ_NONE; i++)
            if (!r[order[i]].parked && ds_res_fits(&r[order[i]].req, &free_))
                want = r[order[i]].h;
        assert_int_equal(sim_wq_first_fit(q, &free_), want);
        size_t start = (size_t)sim_rng_below(rng, m + 2);
        want = SIM_WQ_NONE;
        for (size_t i = start; i < m && want == SIM_WQ_NONE; i++)
            if (!r[order[i]].parked && ds_res_fits(&r[order[i]].req, &free_))
                want = r[order[i]].h;
        assert_int_equal(sim_wq_first_fit_from(q, &free_, start), want);
    }
    /* entries before a probe key: the first k[0] value below it, the rest at -infinity */
    for (int t = 0; t < 5; t++) {
        sim_qkey probe = {.seq = 0};
        probe.k[0] = (double)sim_rng_below(rng, 4);
        for (int i = 1; i < SIM_QKEY_N; i++)
            probe.k[i] = -INFINITY;
        size_t want = 0;
        for (size_t i = 0; i < m; i++)
            if (r[order[i]].key.k[0] < probe.k[0])
                want++;
        assert_int_equal(sim_wq_count_before(q, &probe), want);
        if (m > 0)
            assert_int_equal(sim_wq_count_before(q, &r[order[m / 2]].key), m / 2);
    }
}

static void test_random_ops(void **state)
{
    (void)state;
    sim_rng rng;
    sim_rng_seed(&rng, 42, 0);
    sim_wqueue q;
    sim_wq_init(&q, 1);
    ref r[N_MAX];
    memset(r, 0, sizeof r);
    size_t n = 0;
    uint64_t seq = 0;
    for (int step = 0; step < 3000; step++) {
        uint64_t op = sim_rng_below(&rng, 13);
        if (op < 6 && n < N_MAX) {
            ref *x = &r[n++];
            x->live = 1;
            x->parked = 0;
            /* few distinct key values so that ties exercise seq */
            static const uint64_t span[SIM_QKEY_N] = {3, 20, 2, 2, 3, 2};
            x->key.seq = seq++;
            for (int k = 0; k < SIM_QKEY_N; k++)
                x->key.k[k] = (double)sim_rng_below(&rng, span[k]);
            x->req =
                (ds_res){{(int64_t)sim_rng_below(&rng, 1000), (int64_t)sim_rng_below(&rng, 1000), 0,
                          sim_rng_below(&rng, 8) == 0 ? 1 : 0}};
            assert_int_equal(sim_wq_insert(&q, x->key, 0, (uint32_t)(x - r), &x->req, &x->h), 0);
        } else if (op < 8 && n > 0) {
            size_t i = (size_t)sim_rng_below(&rng, n);
            if (r[i].live) {
                sim_wq_remove(&q, r[i].h);
                r[i].live = 0;
            }
        } else if (op < 9 && n > 0) {
            size_t i = (size_t)sim_rng_below(&rng, n);
            if (r[i].live) {
                r[i].parked = !r[i].parked;
                sim_wq_set_parked(&q, r[i].h, r[i].parked);
            }
        } else if (op == 10 && n > 0) {
            /* a failed attempt: a new key, parked (sim_wq_reinsert) */
            size_t i = (size_t)sim_rng_below(&rng, n);
            if (r[i].live) {
                r[i].key.k[1] = (double)sim_rng_below(&rng, 50);
                r[i].key.seq = seq++;
                r[i].parked = (int)sim_rng_below(&rng, 2);
                assert_int_equal(sim_wq_reinsert(&q, &r[i].h, r[i].key, r[i].parked), 0);
            }
        } else if (op >= 11 && op <= 12) {
            /* park or unpark a few entries (one path each) or most of them (the whole tree) */
            uint32_t hs[N_MAX];
            size_t k = 0;
            int parked = (int)sim_rng_below(&rng, 2);
            uint64_t keep = op == 11 ? 64 : 1; /* one live entry in `keep` */
            for (size_t i = 0; i < n; i++)
                if (r[i].live && sim_rng_below(&rng, keep) == 0) {
                    r[i].parked = parked;
                    hs[k++] = r[i].h;
                }
            sim_wq_set_parked_many(&q, hs, k, parked);
        } else {
            /* re-key every live entry and rebuild */
            for (size_t i = 0; i < n; i++)
                if (r[i].live) {
                    r[i].key.k[1] = (double)sim_rng_below(&rng, 50);
                    sim_wq_set_key(&q, r[i].h, r[i].key);
                }
            assert_int_equal(sim_wq_rebuild(&q), 0);
        }
        if (step % 50 == 0)
            check(&q, r, n, &rng);
    }
    check(&q, r, n, &rng);
    sim_wq_free(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
