/* test_uninstall.c: `dagsched-controller uninstall --objects-only` (the chart's post-delete hook)
 * against a loopback API server: it waits until no pod matches --wait-for-pods, then deletes the
 * named ConfigMaps and Leases (one already gone is fine); pods that never go leave every object
 * in place and exit 1; a failed deletion still tries the others and exits 1; flags that name
 * objects without a namespace, invalid names or a webhook with --objects-only are refused (2). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kube/mock_server.h"
#include "uninstall.h"

typedef struct api {
    int pod_lists;       /* pod lists answered so far */
    int pods_until;      /* lists that still show a pod; -1: always */
    int deletes;         /* DELETE requests */
    const char *refused; /* a path whose DELETE gets 403 */
    const char *missing; /* a path whose DELETE gets 404 */
} api;

static void handler(void *ud, const mock_request *q, mock_reply *rep, char *body, size_t size)
{
    api *a = ud;
    rep->body = body;
    if (strcmp(q->method, "GET") == 0 &&
        strncmp(q->path, "/api/v1/namespaces/ns1/pods?", 28) == 0) {
        bool pod = a->pods_until < 0 || a->pod_lists < a->pods_until;
        a->pod_lists++;
        rep->status = 200;
        snprintf(body, size,
                 "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"1\"},"
                 "\"items\":[%s]}",
                 pod ? "{\"metadata\":{\"name\":\"dagsched-controller-1\",\"namespace\":\"ns1\"}}"
                     : "");
        return;
    }
    if (strcmp(q->method, "DELETE") == 0) {
        a->deletes++;
        if (a->refused != NULL && strcmp(q->path, a->refused) == 0) {
            rep->status = 403;
            snprintf(body, size, "{\"kind\":\"Status\",\"reason\":\"Forbidden\",\"code\":403}");
        } else if (a->missing != NULL && strcmp(q->path, a->missing) == 0) {
            rep->status = 404;
            snprintf(body, size, "{\"kind\":\"Status\",\"reason\":\"NotFound\",\"code\":404}");
        } else {
            rep->status = 200;
            snprintf(body, size, "{\"kind\":\"Status\",\"status\":\"Success\"}");
        }
        return;
    }
    rep->status = 404;
    snprintf(body, size, "{\"kind\":\"Status\",\"reason\":\"NotFound\",\"code\":404}");
}

typedef struct fixture {
    mock_server m;
    api a;
    char kubeconfig[64];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (f == NULL || mock_start(&f->m) != 0)
        return -1;
    pthread_mutex_lock(&f->m.lock);
    f->m.handler = handler;
    f->m.handler_ud = &f->a;
    pthread_mutex_unlock(&f->m.lock);
    snprintf(f->kubeconfig, sizeof f->kubeconfig, "/tmp/dagsched-uninstall-kc.XXXXXX");
    int fd = mkstemp(f->kubeconfig);
    if (fd < 0)
        return -1;
    FILE *out = fdopen(fd, "w");
    if (out == NULL)
        return -1;
    int n = fprintf(out,
                    "apiVersion: v1\nkind: Config\n"
                    "clusters: [{name: c, cluster: {server: \"http://127.0.0.1:%d\"}}]\n"
                    "users: [{name: u, user: {token: t}}]\n"
                    "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
                    "current-context: x\n",
                    f->m.port);
    if (fclose(out) != 0 || n < 0)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    mock_stop(&f->m);
    unlink(f->kubeconfig);
    free(f);
    return 0;
}

/* Runs `uninstall --kubeconfig K ARGS...` (NULL-terminated). */
static int run(fixture *f, ...)
{
    char *argv[32] = {"uninstall", "--kubeconfig", f->kubeconfig, "--log-level", "error"};
    int argc = 5;
    va_list ap;
    va_start(ap, f);
    for (char *a; argc < 31 && (a = va_arg(ap, char *)) != NULL;)
        argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    return ctl_uninstall_main(argc, argv);
}

/* The i-th request the server received (method and path). */
static const mock_request *req(fixture *f, int i)
{
    assert_true(i < f->m.n_requests);
    return &f->m.requests[i];
}

static void test_waits_then_deletes(void **state)
{
    fixture *f = *state;
    f->a.pods_until = 2;
    f->a.missing = "/api/v1/namespaces/ns1/configmaps/dagsched-runtime-history";
    int rc = run(f, "--objects-only", "--namespace", "ns1", "--wait-for-pods",
                 "app.kubernetes.io/instance=dagsched,app.kubernetes.io/component in "
                 "(controller,scheduler)",
                 "--wait-timeout", "30s", "--delete-configmap", "dagsched-controller-evictions",
                 "--delete-configmap", "dagsched-runtime-history", "--delete-lease",
                 "dagsched-controller", "--delete-lease", "dagsched-scheduler", NULL);
    assert_int_equal(rc, 0);
    assert_int_equal(f->a.pod_lists, 3); /* a pod, a pod, none */
    assert_int_equal(f->m.n_requests, 7);
    assert_string_equal(req(f, 0)->method, "GET");
    assert_string_equal(
        req(f, 0)->path,
        "/api/v1/namespaces/ns1/pods?labelSelector=app.kubernetes.io%2Finstance%"
        "3Ddagsched%2Capp.kubernetes.io%2Fcomponent%20in%20%28controller%2Cscheduler"
        "%29&limit=500");
    const char *deleted[] = {
        "/api/v1/namespaces/ns1/configmaps/dagsched-controller-evictions",
        "/api/v1/namespaces/ns1/configmaps/dagsched-runtime-history",
        "/apis/coordination.k8s.io/v1/namespaces/ns1/leases/dagsched-controller",
        "/apis/coordination.k8s.io/v1/namespaces/ns1/leases/dagsched-scheduler",
    };
    for (int i = 0; i < 4; i++) {
        assert_string_equal(req(f, 3 + i)->method, "DELETE");
        assert_string_equal(req(f, 3 + i)->path, deleted[i]);
    }
}

static void test_pods_stay(void **state)
{
    fixture *f = *state;
    f->a.pods_until = -1;
    int rc =
        run(f, "--objects-only", "--namespace", "ns1", "--wait-for-pods",
            "app.kubernetes.io/instance=dagsched", "--wait-timeout", "1s", "--delete-configmap",
            "dagsched-controller-evictions", "--delete-lease", "dagsched-controller", NULL);
    assert_int_equal(rc, 1);
    assert_true(f->a.pod_lists >= 2);
    assert_int_equal(f->a.deletes, 0); /* the pods would write them again */
}

static void test_refused_delete(void **state)
{
    fixture *f = *state;
    f->a.refused = "/api/v1/namespaces/ns1/configmaps/a";
    int rc = run(f, "--objects-only", "--namespace", "ns1", "--delete-configmap", "a",
                 "--delete-configmap", "b", "--delete-lease", "c", NULL);
    assert_int_equal(rc, 1);
    assert_int_equal(f->a.pod_lists, 0); /* no selector: no wait */
    assert_int_equal(f->a.deletes, 3);   /* the others are still deleted */
}

static void test_bad_flags(void **state)
{
    fixture *f = *state;
    assert_int_equal(run(f, "--objects-only", "--delete-lease", "x", NULL), 2);
    assert_int_equal(run(f, "--objects-only", "--wait-for-pods", "a=b", NULL), 2);
    assert_int_equal(run(f, "--namespace", "ns1", "--delete-configmap", "Bad_Name", NULL), 2);
    assert_int_equal(run(f, "--namespace", "no.dots", "--delete-lease", "x", NULL), 2);
    assert_int_equal(run(f, "--namespace", "ns1", "--wait-timeout", "soon", NULL), 2);
    assert_int_equal(run(f, "--objects-only", "--webhook-configuration", "w", NULL), 2);
    assert_int_equal(run(f, "--namespace", "ns1", "--delete-lease", "1", "--delete-lease", "2",
                         "--delete-lease", "3", "--delete-lease", "4", "--delete-lease", "5",
                         "--delete-lease", "6", "--delete-lease", "7", "--delete-lease", "8",
                         "--delete-lease", "9", NULL),
                     2);
    assert_int_equal(f->m.n_requests, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_waits_then_deletes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pods_stay, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_delete, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_flags, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
