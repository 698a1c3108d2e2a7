/* itest_util.h: what the Kubernetes client's integration programs (tests/kube/prog_*_itest.c)
 * share: CHECK lines ("ok"/"FAIL" and what was checked), the cluster's configuration (KUBECONFIG)
 * and a copy whose server is a fault proxy in front of the API server, clients, a namespace of
 * their own, objects created and read, the log captured. */
#ifndef DAGSCHED_KUBE_ITEST_UTIL_H
#define DAGSCHED_KUBE_ITEST_UTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "clock.h"
#include "config.h"
#include "fault_proxy.h"
#include "kutil.h"
#include "log.h"
#include "writes.h"

static int itest_failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            printf("ok    ");                                                                      \
        } else {                                                                                   \
            printf("FAIL  ");                                                                      \
            itest_failures++;                                                                      \
        }                                                                                          \
        printf(__VA_ARGS__);                                                                       \
        printf("\n");                                                                              \
        fflush(stdout);                                                                            \
    } while (0)

static inline void itest_die(const char *what, const ds_err *err)
{
    printf("FAIL  %s: %s\n", what, err->msg);
    fflush(stdout);
    exit(1);
}

/* The cluster's configuration (KUBECONFIG); exits on failure. */
static inline kube_config *itest_config(void)
{
    kube_config *cfg = NULL;
    ds_err err = {{0}};
    if (kube_config_load(NULL, &cfg, &err) != 0)
        itest_die("load kubeconfig", &err);
    return cfg;
}

/* The API server's port, from the configuration's "https://127.0.0.1:PORT". */
static inline int itest_server_port(const kube_config *cfg)
{
    const char *colon = strrchr(cfg->server, ':');
    int port = colon != NULL ? atoi(colon + 1) : 0;
    if (port <= 0) {
        printf("FAIL  the API server address %s has no port\n", cfg->server);
        exit(1);
    }
    return port;
}

/* cfg with its server replaced by https://127.0.0.1:port (the fault proxy). */
static inline void itest_set_port(kube_config *cfg, int port)
{
    char url[64];
    snprintf(url, sizeof url, "https://127.0.0.1:%d", port);
    free(cfg->server);
    cfg->server = kutil_strdup(url);
    if (cfg->server == NULL) {
        printf("FAIL  out of memory\n");
        exit(1);
    }
}

/* *cfg: the cluster's configuration; *pcfg: the same through px, a fault proxy started in front
 * of its API server. Exits on failure. */
static inline void itest_proxied(fproxy *px, kube_config **cfg, kube_config **pcfg)
{
    *cfg = itest_config();
    if (fproxy_start(px, itest_server_port(*cfg)) != 0) {
        printf("FAIL  the fault proxy did not start\n");
        exit(1);
    }
    *pcfg = itest_config();
    itest_set_port(*pcfg, px->port);
}

/* Log at level info into a temporary file from now on; itest_log_end reads it back. */
static inline FILE *itest_log_begin(void)
{
    FILE *f = tmpfile();
    if (f == NULL) {
        printf("FAIL  tmpfile\n");
        exit(1);
    }
    kube_log_setup(KUBE_LOG_INFO, KUBE_LOG_TEXT, f);
    return f;
}

/* What was logged since itest_log_begin, NUL-terminated in buf; errors only, on stderr, again. */
static inline void itest_log_end(FILE *f, char *buf, size_t size)
{
    fflush(f);
    rewind(f);
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    kube_log_setup(KUBE_LOG_ERROR, KUBE_LOG_TEXT, NULL);
    fclose(f);
}

static inline kube_client *itest_client(const kube_config *cfg, const kube_client_opts *o)
{
    kube_client *c = NULL;
    ds_err err = {{0}};
    if (kube_client_new(cfg, o, &c, &err) != 0)
        itest_die("client", &err);
    return c;
}

/* A namespace PREFIX-PID, created; its name into ns. */
static inline void itest_namespace(kube_client *c, char *ns, size_t size, const char *prefix)
{
    snprintf(ns, size, "%s-%d", prefix, (int)getpid());
    json_t *obj = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "Namespace",
                            "metadata", "name", ns);
    ds_err err = {{0}};
    if (obj == NULL || kube_create(c, "/api/v1/namespaces", obj, NULL, &err) != 0)
        itest_die("create namespace", &err);
    json_decref(obj);
}

static inline void itest_delete_namespace(kube_client *c, const char *ns)
{
    char path[512];
    ds_err err = {{0}};
    snprintf(path, sizeof path, "/api/v1/namespaces/%s", ns);
    if (kube_delete(c, path, true, &err) != 0)
        printf("note  cannot delete namespace %s: %s\n", ns, err.msg);
}

/* Delete namespace ns and wait, up to timeout_s, until the API server no longer has it (the
 * namespace controller of kube-controller-manager has deleted its pods): a program whose pods
 * keep dagsched's gate leaves nothing for the controller that the next scenario of its suite
 * starts. True when it is gone. */
static inline bool itest_delete_namespace_wait(kube_client *c, const char *ns, double timeout_s)
{
    itest_delete_namespace(c, ns);
    char path[512];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s", ns);
    double end = rt_mono_now() + timeout_s;
    for (;;) {
        kube_response resp;
        ds_err err = {{0}};
        int rc = kube_request(c, "GET", path, NULL, NULL, &resp, &err);
        long status = resp.status;
        kube_response_free(&resp);
        if (rc != 0 && status == 404)
            return true;
        if (rt_mono_now() > end)
            return false;
        usleep(250000);
    }
}

/* POST obj (a JSON text) to path; exits on failure. The object is returned when out != NULL. */
static inline void itest_create(kube_client *c, const char *path, const char *text, json_t **out)
{
    json_error_t jerr;
    json_t *obj = json_loads(text, 0, &jerr);
    if (obj == NULL) {
        printf("FAIL  bad test JSON: %s\n", jerr.text);
        exit(1);
    }
    ds_err err = {{0}};
    /* A new namespace gets its "default" service account shortly after it is created; until
     * then pods are refused. */
    double end = rt_mono_now() + 60;
    while (kube_create(c, path, obj, out, &err) != 0) {
        if (strstr(err.msg, "serviceaccount") == NULL || rt_mono_now() > end)
            itest_die(path, &err);
        usleep(250000);
    }
    json_decref(obj);
}

/* GET path as JSON (NULL on failure, with the HTTP status in *status when given). */
static inline json_t *itest_get(kube_client *c, const char *path, long *status)
{
    json_t *obj = NULL;
    kube_response resp;
    ds_err err = {{0}};
    int rc = kube_get_json(c, path, &obj, &resp, &err);
    if (status != NULL)
        *status = resp.status;
    kube_response_free(&resp);
    return rc == 0 ? obj : NULL;
}

/* A string at a path of keys into a JSON object ("" when absent). */
static inline const char *itest_str(const json_t *obj, const char *k1, const char *k2)
{
    const json_t *v = json_object_get(obj, k1);
    if (k2 != NULL)
        v = json_object_get(v, k2);
    const char *s = json_string_value(v);
    return s != NULL ? s : "";
}

#endif
