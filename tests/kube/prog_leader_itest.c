/* prog_leader_itest.c: leader election (kube/leader.h) on the real kube-apiserver's Leases
 * (KUBECONFIG), through a byte-forwarding fault proxy (fault_proxy.h) to take the server away.
 * Lease duration 2 s, renew deadline 1.5 s, retry period 0.25 s. Prints one "ok"/"FAIL" line per
 * check; exits 0 when all passed.
 *   - two candidates: exactly one leads, the other sees it as the holder; the leader's stop
 *     releases the Lease and the other leads well before the lease duration, one transition;
 *   - the server gone: the leader stops leading within the renew deadline; back, it is still the
 *     recorded holder and leads again;
 *   - a Lease held by a silent holder is taken over only after the lease duration, counted from
 *     when the candidate first saw the record (not the holder's renewTime);
 *   - kube_client_shutdown ends the election: the leader stops, nothing more is sent, the Lease
 *     still names it.
 * Two processes and a killed leader are integration-run.sh's lease scenario. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault_proxy.h"
#include "itest_util.h"
#include "leader.h"
#include "log.h"

typedef struct candidate {
    kube_leader *le;
    atomic_int started, stopped;
} candidate;

static void on_started(void *u)
{
    atomic_fetch_add(&((candidate *)u)->started, 1);
}

static void on_stopped(void *u)
{
    atomic_fetch_add(&((candidate *)u)->stopped, 1);
}

static void candidate_start(candidate *cd, kube_client *c, const char *ns, const char *lease,
                            const char *id)
{
    kube_leader_opts o = {.namespace = ns,
                          .name = lease,
                          .identity = id,
                          .lease_duration_s = 2,
                          .renew_deadline_s = 1.5,
                          .retry_period_s = 0.25,
                          .on_started = on_started,
                          .on_stopped = on_stopped,
                          .user = cd};
    atomic_init(&cd->started, 0);
    atomic_init(&cd->stopped, 0);
    ds_err err = {{0}};
    if (kube_leader_new(c, &o, &cd->le, &err) != 0 || kube_leader_start(cd->le, &err) != 0)
        itest_die("leader", &err);
}

static bool wait_for(candidate *cd, bool want_leader, double timeout)
{
    double end = rt_mono_now() + timeout;
    while (rt_mono_now() < end) {
        if (kube_leader_is_leader(cd->le) == want_leader)
            return true;
        usleep(20000);
    }
    return kube_leader_is_leader(cd->le) == want_leader;
}

static bool wait_stopped(candidate *cd, int n, double timeout)
{
    double end = rt_mono_now() + timeout;
    while (atomic_load(&cd->stopped) < n && rt_mono_now() < end)
        usleep(20000);
    return atomic_load(&cd->stopped) >= n;
}

/* The Lease's holderIdentity and leaseTransitions, read from the server. */
static void lease_spec(kube_client *c, const char *ns, const char *lease, char *holder, size_t size,
                       long long *transitions)
{
    char path[256];
    snprintf(path, sizeof path, "/apis/coordination.k8s.io/v1/namespaces/%s/leases/%s", ns, lease);
    json_t *l = itest_get(c, path, NULL);
    snprintf(holder, size, "%s", itest_str(l, "spec", "holderIdentity"));
    *transitions =
        json_integer_value(json_object_get(json_object_get(l, "spec"), "leaseTransitions"));
    json_decref(l);
}

static void check_contention(kube_client *admin, const kube_config *pcfg, fproxy *px,
                             const char *ns)
{
    kube_client *c = itest_client(pcfg, NULL);
    candidate a, b;
    candidate_start(&a, c, ns, "contended", "a");
    candidate_start(&b, c, ns, "contended", "b");
    double end = rt_mono_now() + 10;
    while (!kube_leader_is_leader(a.le) && !kube_leader_is_leader(b.le) && rt_mono_now() < end)
        usleep(20000);
    int both = 0, none = 0;
    for (int i = 0; i < 100; i++) {
        bool la = kube_leader_is_leader(a.le), lb = kube_leader_is_leader(b.le);
        both += la && lb;
        none += !la && !lb;
        usleep(10000);
    }
    CHECK(both == 0 && none == 0,
          "over 1 s of renewals exactly one leads (%d samples with two, "
          "%d with none)",
          both, none);
    candidate *lead = kube_leader_is_leader(a.le) ? &a : &b;
    candidate *other = lead == &a ? &b : &a;
    const char *lead_id = lead == &a ? "a" : "b", *other_id = lead == &a ? "b" : "a";
    char holder[64];
    kube_leader_holder(other->le, holder, sizeof holder);
    CHECK(strcmp(holder, lead_id) == 0, "the other candidate sees %s as the holder (got %s)",
          lead_id, holder);
    long long tr0 = 0, tr1 = 0;
    lease_spec(admin, ns, "contended", holder, sizeof holder, &tr0);
    CHECK(strcmp(holder, lead_id) == 0, "the Lease on the server names %s (got %s)", lead_id,
          holder);

    /* Stop: the Lease is released and the other takes over before it would expire. */
    double t0 = rt_mono_now();
    kube_leader_stop(lead->le);
    CHECK(atomic_load(&lead->started) == 1 && atomic_load(&lead->stopped) == 1 &&
              !kube_leader_is_leader(lead->le),
          "the stopped leader reported starting and stopping once");
    bool took = wait_for(other, true, 5);
    double after = rt_mono_now() - t0;
    CHECK(took && after < 1.9, "the other leads %.2f s after the release (lease duration 2 s)",
          after);
    lease_spec(admin, ns, "contended", holder, sizeof holder, &tr1);
    CHECK(strcmp(holder, other_id) == 0 && tr1 == tr0 + 1,
          "the Lease names %s, one more transition (%lld -> %lld)", holder, tr0, tr1);

    /* The server gone: the leader stops within the renew deadline. */
    CHECK(fproxy_refuse(px, true) == 0, "the server goes away");
    t0 = rt_mono_now();
    bool lost = wait_for(other, false, 5);
    after = rt_mono_now() - t0;
    CHECK(lost && after <= 1.5 + 0.5,
          "the leader stops leading %.2f s later (renew deadline "
          "1.5 s)",
          after);
    CHECK(wait_stopped(other, 1, 3), "and reports stopping");
    CHECK(fproxy_refuse(px, false) == 0, "the server is back");
    CHECK(wait_for(other, true, 5) && atomic_load(&other->started) == 2,
          "still the recorded holder, it leads again (started %d times)",
          atomic_load(&other->started));
    kube_leader_free(a.le);
    kube_leader_free(b.le);
    kube_client_free(c);
}

static void check_silent_holder(kube_client *admin, const char *ns)
{
    char path[256];
    snprintf(path, sizeof path, "/apis/coordination.k8s.io/v1/namespaces/%s/leases", ns);
    itest_create(admin, path,
                 "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":"
                 "{\"name\":\"ghosted\"},\"spec\":{\"holderIdentity\":\"ghost\","
                 "\"leaseDurationSeconds\":2,\"renewTime\":\"2026-11-22T10:00:00.000000Z\","
                 "\"leaseTransitions\":4}}",
                 NULL);
    candidate a;
    double t0 = rt_mono_now();
    candidate_start(&a, admin, ns, "ghosted", "a");
    bool led = wait_for(&a, true, 8);
    double after = rt_mono_now() - t0;
    CHECK(led && after >= 2.0,
          "a silent holder's Lease is taken over after the lease duration (%.2f s), its old "
          "renewTime not trusted",
          after);
    char holder[64];
    long long tr = 0;
    lease_spec(admin, ns, "ghosted", holder, sizeof holder, &tr);
    CHECK(strcmp(holder, "a") == 0 && tr == 5, "the Lease names a, transitions 4 -> %lld", tr);
    kube_leader_free(a.le);
}

static void check_shutdown(kube_client *admin, const kube_config *pcfg, fproxy *px, const char *ns)
{
    FILE *logf = itest_log_begin();
    kube_client *c = itest_client(pcfg, NULL);
    candidate a, b;
    candidate_start(&a, c, ns, "shut", "a");
    CHECK(wait_for(&a, true, 10), "a leads");
    candidate_start(&b, c, ns, "shut", "b");
    usleep(300 * 1000);
    kube_client_shutdown(c);
    CHECK(wait_stopped(&a, 1, 3) && !kube_leader_is_leader(a.le),
          "after kube_client_shutdown the leader stops leading");
    usleep(200 * 1000);
    fproxy_counts before = fproxy_get(px);
    usleep(800 * 1000);
    fproxy_counts after = fproxy_get(px);
    CHECK(after.up_bytes == before.up_bytes && after.connections == before.connections,
          "no candidate sends anything more (%llu bytes, %d connections in 0.8 s)",
          (unsigned long long)(after.up_bytes - before.up_bytes),
          after.connections - before.connections);
    char holder[64];
    long long tr = 0;
    lease_spec(admin, ns, "shut", holder, sizeof holder, &tr);
    CHECK(strcmp(holder, "a") == 0, "the Lease is not released (it cannot be): it names %s",
          holder);
    kube_leader_free(a.le);
    kube_leader_free(b.le);
    CHECK(atomic_load(&b.started) == 0, "the other candidate never led");
    kube_client_free(c);
    char logged[8192];
    itest_log_end(logf, logged, sizeof logged);
    char want[160];
    snprintf(want, sizeof want, "lease %s/shut: a stops leading: the API client is shut down\n",
             ns);
    CHECK(strstr(logged, "cancelled") == NULL && strstr(logged, want) != NULL &&
              strstr(logged, "the API client is shut down; the election stops\n") != NULL,
          "the log says why each stops, no \"cancelled\"");
}

int main(void)
{
    kube_log_setup(KUBE_LOG_ERROR, KUBE_LOG_TEXT, NULL);
    printf("== leader\n");
    kube_config *cfg, *pcfg;
    fproxy px;
    itest_proxied(&px, &cfg, &pcfg);
    kube_client *admin = itest_client(cfg, NULL);
    char ns[64];
    itest_namespace(admin, ns, sizeof ns, "itest-le");
    check_contention(admin, pcfg, &px, ns);
    check_silent_holder(admin, ns);
    check_shutdown(admin, pcfg, &px, ns);
    itest_delete_namespace(admin, ns);
    kube_client_free(admin);
    fproxy_stop(&px);
    kube_config_free(pcfg);
    kube_config_free(cfg);
    printf("== leader: %s\n", itest_failures ? "FAILED" : "passed");
    return itest_failures ? 1 : 0;
}
