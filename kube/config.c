/* config.c: kubeconfig and in-cluster configuration loading (see config.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kutil.h"
#include "readfile.h"
#include "log.h"
#include "yaml_tree.h"

/* Longest name, server URL or path accepted from a kubeconfig. */
#define KCFG_MAX_STR 4096

void kube_config_free(kube_config *cfg)
{
    if (cfg == NULL)
        return;
    free(cfg->server);
    free(cfg->tls_server_name);
    free(cfg->ca_file);
    free(cfg->ca_data);
    free(cfg->cert_file);
    free(cfg->cert_data);
    free(cfg->key_file);
    if (cfg->key_data != NULL) {
        /* Do not leave private key material in freed memory. */
        volatile char *p = cfg->key_data;
        for (size_t i = 0; i < cfg->key_data_len; i++)
            p[i] = 0;
    }
    free(cfg->key_data);
    if (cfg->token != NULL) {
        volatile char *p = cfg->token;
        for (size_t i = 0; p[i] != '\0'; i++)
            p[i] = 0;
    }
    free(cfg->token);
    free(cfg->token_file);
    free(cfg->namespace);
    free(cfg->source);
    free(cfg);
}

/* ---- YAML navigation over the bounded tree of lib/yaml_tree.h ---- */

/* A kubeconfig nests at most about seven levels (users[].user.exec.env[]); base64 certificates
 * and keys are the longest scalars. */
static const ds_yaml_limits kubeconfig_limits = {
    .max_bytes = KUBE_CONFIG_MAX_FILE,
    .max_depth = 16,
    .max_nodes = 65536,
    .max_scalar = KUBE_CONFIG_MAX_FILE,
};

typedef const ds_yaml_node ynode;

/* Scalar value of map[key] as a string; *out NULL when absent or null. Errors name the field. */
static int get_str(ynode *map, const char *key, const char *where, const char **out, ds_err *err)
{
    *out = NULL;
    ynode *n = ds_yaml_get(map, key);
    if (n == NULL)
        return 0;
    if (n->kind != DS_YAML_SCALAR)
        return ds_err_set(err, "%s.%s: must be a string", where, key);
    if (n->len > KCFG_MAX_STR && strstr(key, "-data") == NULL)
        return ds_err_set(err, "%s.%s: too long (got %zu bytes, limit %d)", where, key, n->len,
                          KCFG_MAX_STR);
    /* An unquoted "null" or "~" or empty value is YAML null. */
    if (ds_yaml_is_null(n))
        return 0;
    *out = n->text;
    return 0;
}

static int get_bool(ynode *map, const char *key, const char *where, bool *out, ds_err *err)
{
    *out = false;
    const char *v;
    if (get_str(map, key, where, &v, err) != 0)
        return -1;
    if (v == NULL)
        return 0;
    if (strcmp(v, "true") == 0 || strcmp(v, "True") == 0 || strcmp(v, "TRUE") == 0)
        *out = true;
    else if (strcmp(v, "false") == 0 || strcmp(v, "False") == 0 || strcmp(v, "FALSE") == 0)
        *out = false;
    else
        return ds_err_set(err, "%s.%s: must be true or false (got \"%s\")", where, key, v);
    return 0;
}

/* Find the entry named `name` in the list map[list_key] (clusters, users, contexts) and return its
 * `inner` mapping (cluster, user, context). */
static int find_named(ynode *root, const char *list_key, const char *inner, const char *name,
                      ynode **out, ds_err *err)
{
    *out = NULL;
    ynode *list = ds_yaml_get(root, list_key);
    if (list == NULL)
        return ds_err_set(err, "%s: missing (looking for \"%s\")", list_key, name);
    if (list->kind != DS_YAML_SEQUENCE)
        return ds_err_set(err, "%s: must be a list", list_key);
    for (size_t i = 0; i < list->n; i++) {
        ynode *e = list->child[i];
        const char *n;
        if (get_str(e, "name", list_key, &n, err) != 0)
            return -1;
        if (n != NULL && strcmp(n, name) == 0) {
            ynode *in = ds_yaml_get(e, inner);
            if (in == NULL || in->kind != DS_YAML_MAPPING)
                return ds_err_set(err, "%s[\"%s\"].%s: missing or not a mapping", list_key, name,
                                  inner);
            *out = in;
            return 0;
        }
    }
    return ds_err_set(err, "%s: no entry named \"%s\"", list_key, name);
}

/* Resolve a path from the kubeconfig relative to its directory. */
static char *resolve_path(const char *kubeconfig_path, const char *p)
{
    if (p[0] == '/' || kubeconfig_path == NULL)
        return kutil_strdup(p);
    const char *slash = strrchr(kubeconfig_path, '/');
    if (slash == NULL)
        return kutil_strdup(p);
    size_t dl = (size_t)(slash - kubeconfig_path);
    char *r = malloc(dl + 1 + strlen(p) + 1);
    if (r == NULL)
        return NULL;
    memcpy(r, kubeconfig_path, dl);
    r[dl] = '/';
    strcpy(r + dl + 1, p);
    return r;
}

/* Decode a *-data field (base64 PEM) into *out. */
static int decode_data(const char *v, const char *field, char **out, size_t *out_len, ds_err *err)
{
    if (kutil_base64_decode(v, strlen(v), out, out_len, err) != 0) {
        ds_err_prefix(err, "%s", field);
        return -1;
    }
    if (*out_len == 0) {
        free(*out);
        *out = NULL;
        return ds_err_set(err, "%s: empty after base64 decoding", field);
    }
    return 0;
}

static int set_str(char **dst, const char *v, ds_err *err)
{
    *dst = kutil_strdup(v);
    if (*dst == NULL)
        return ds_err_set(err, "out of memory");
    return 0;
}

static int validate_server(const char *server, const char *field, ds_err *err)
{
    if (strncmp(server, "https://", 8) != 0 && strncmp(server, "http://", 7) != 0)
        return ds_err_set(err, "%s: must be an https:// URL (got \"%s\")", field, server);
    const char *host = strstr(server, "://") + 3;
    if (*host == '\0' || *host == '/')
        return ds_err_set(err, "%s: no host in \"%s\"", field, server);
    for (const char *p = server; *p != '\0'; p++)
        if ((unsigned char)*p <= ' ' || *p == '?' || *p == '#')
            return ds_err_set(err, "%s: invalid character in \"%s\"", field, server);
    return 0;
}

static int fill_cluster(ynode *c, const char *where, const char *path, kube_config *cfg,
                        ds_err *err)
{
    const char *server, *ca, *ca_data, *sni;
    char field[KCFG_MAX_STR * 2];
    if (get_str(c, "server", where, &server, err) != 0 ||
        get_str(c, "certificate-authority", where, &ca, err) != 0 ||
        get_str(c, "certificate-authority-data", where, &ca_data, err) != 0 ||
        get_str(c, "tls-server-name", where, &sni, err) != 0 ||
        get_bool(c, "insecure-skip-tls-verify", where, &cfg->insecure_skip_tls_verify, err) != 0)
        return -1;
    if (server == NULL)
        return ds_err_set(err, "%s.server: missing", where);
    snprintf(field, sizeof field, "%s.server", where);
    if (validate_server(server, field, err) != 0)
        return -1;
    if (cfg->insecure_skip_tls_verify && (ca != NULL || ca_data != NULL))
        return ds_err_set(
            err, "%s: insecure-skip-tls-verify and a certificate authority are both set", where);
    if (set_str(&cfg->server, server, err) != 0)
        return -1;
    size_t sl = strlen(cfg->server);
    while (sl > 0 && cfg->server[sl - 1] == '/')
        cfg->server[--sl] = '\0';
    if (sni != NULL && set_str(&cfg->tls_server_name, sni, err) != 0)
        return -1;
    if (ca_data != NULL) {
        snprintf(field, sizeof field, "%s.certificate-authority-data", where);
        if (decode_data(ca_data, field, &cfg->ca_data, &cfg->ca_data_len, err) != 0)
            return -1;
    } else if (ca != NULL) {
        cfg->ca_file = resolve_path(path, ca);
        if (cfg->ca_file == NULL)
            return ds_err_set(err, "out of memory");
        if (access(cfg->ca_file, R_OK) != 0)
            return ds_err_set(err, "%s.certificate-authority: %s: %s", where, cfg->ca_file,
                              strerror(errno));
    }
    return 0;
}

static int fill_user(ynode *u, const char *where, const char *path, kube_config *cfg, ds_err *err)
{
    static const char *const unsupported[] = {"exec", "auth-provider", "username", "password"};
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
        if (ds_yaml_get(u, unsupported[i]) != NULL)
            return ds_err_set(err, "%s.%s: not supported (use a client certificate or a token)",
                              where, unsupported[i]);
    const char *cert, *cert_data, *key, *key_data, *token, *token_file;
    if (get_str(u, "client-certificate", where, &cert, err) != 0 ||
        get_str(u, "client-certificate-data", where, &cert_data, err) != 0 ||
        get_str(u, "client-key", where, &key, err) != 0 ||
        get_str(u, "client-key-data", where, &key_data, err) != 0 ||
        get_str(u, "token", where, &token, err) != 0 ||
        get_str(u, "tokenFile", where, &token_file, err) != 0)
        return -1;
    char field[KCFG_MAX_STR * 2];
    bool has_cert = cert != NULL || cert_data != NULL;
    bool has_key = key != NULL || key_data != NULL;
    if (has_cert != has_key)
        return ds_err_set(err, "%s: %s without %s", where,
                          has_cert ? "client-certificate" : "client-key",
                          has_cert ? "client-key" : "client-certificate");
    if (cert_data != NULL) {
        snprintf(field, sizeof field, "%s.client-certificate-data", where);
        if (decode_data(cert_data, field, &cfg->cert_data, &cfg->cert_data_len, err) != 0)
            return -1;
    } else if (cert != NULL) {
        cfg->cert_file = resolve_path(path, cert);
        if (cfg->cert_file == NULL)
            return ds_err_set(err, "out of memory");
        if (access(cfg->cert_file, R_OK) != 0)
            return ds_err_set(err, "%s.client-certificate: %s: %s", where, cfg->cert_file,
                              strerror(errno));
    }
    if (key_data != NULL) {
        snprintf(field, sizeof field, "%s.client-key-data", where);
        if (decode_data(key_data, field, &cfg->key_data, &cfg->key_data_len, err) != 0)
            return -1;
    } else if (key != NULL) {
        cfg->key_file = resolve_path(path, key);
        if (cfg->key_file == NULL)
            return ds_err_set(err, "out of memory");
        if (access(cfg->key_file, R_OK) != 0)
            return ds_err_set(err, "%s.client-key: %s: %s", where, cfg->key_file, strerror(errno));
    }
    if (token != NULL && set_str(&cfg->token, token, err) != 0)
        return -1;
    if (token == NULL && token_file != NULL) {
        cfg->token_file = resolve_path(path, token_file);
        if (cfg->token_file == NULL)
            return ds_err_set(err, "out of memory");
        if (access(cfg->token_file, R_OK) != 0)
            return ds_err_set(err, "%s.tokenFile: %s: %s", where, cfg->token_file, strerror(errno));
    }
    return 0;
}

static int parse_doc(ynode *root, const char *path, const char *context, kube_config *cfg,
                     ds_err *err)
{
    if (root->kind != DS_YAML_MAPPING)
        return ds_err_set(err, "top level must be a mapping");
    const char *ctx_name = context;
    if (ctx_name == NULL) {
        if (get_str(root, "current-context", "kubeconfig", &ctx_name, err) != 0)
            return -1;
        if (ctx_name == NULL)
            return ds_err_set(err, "current-context: not set and no context given");
    }
    ynode *ctx;
    if (find_named(root, "contexts", "context", ctx_name, &ctx, err) != 0)
        return -1;
    char where[KCFG_MAX_STR + 64];
    snprintf(where, sizeof where, "contexts[\"%s\"].context", ctx_name);
    const char *cluster_name, *user_name, *ns;
    if (get_str(ctx, "cluster", where, &cluster_name, err) != 0 ||
        get_str(ctx, "user", where, &user_name, err) != 0 ||
        get_str(ctx, "namespace", where, &ns, err) != 0)
        return -1;
    if (cluster_name == NULL)
        return ds_err_set(err, "%s.cluster: missing", where);
    if (set_str(&cfg->namespace, ns != NULL ? ns : "default", err) != 0)
        return -1;

    ynode *cl;
    if (find_named(root, "clusters", "cluster", cluster_name, &cl, err) != 0)
        return -1;
    snprintf(where, sizeof where, "clusters[\"%s\"].cluster", cluster_name);
    if (fill_cluster(cl, where, path, cfg, err) != 0)
        return -1;
    if (user_name != NULL) {
        ynode *u;
        if (find_named(root, "users", "user", user_name, &u, err) != 0)
            return -1;
        snprintf(where, sizeof where, "users[\"%s\"].user", user_name);
        if (fill_user(u, where, path, cfg, err) != 0)
            return -1;
    }
    char src[KCFG_MAX_STR * 2 + 64];
    snprintf(src, sizeof src, "kubeconfig %s (context %s)", path, ctx_name);
    return set_str(&cfg->source, src, err);
}

int kube_config_parse_kubeconfig(const char *text, size_t len, const char *path,
                                 const char *context, kube_config **out, ds_err *err)
{
    *out = NULL;
    if (path == NULL)
        path = "kubeconfig";
    if (len > KUBE_CONFIG_MAX_FILE)
        return ds_err_set(err, "%s: too large (got %zu bytes, limit %u)", path, len,
                          KUBE_CONFIG_MAX_FILE);
    ds_yaml_node *root = NULL;
    if (ds_yaml_load(text, len, &kubeconfig_limits, &root, err) != 0) {
        if (err != NULL && strcmp(err->msg, "YAML document: empty") == 0)
            ds_err_set(err, "empty document");
        ds_err_prefix(err, "%s", path);
        return -1;
    }
    kube_config *cfg = calloc(1, sizeof *cfg);
    int rc = -1;
    if (cfg == NULL)
        ds_err_set(err, "out of memory");
    else if (parse_doc(root, path, context, cfg, err) == 0)
        rc = 0;
    else
        ds_err_prefix(err, "%s", path);
    ds_yaml_free(root);
    if (rc != 0) {
        kube_config_free(cfg);
        return -1;
    }
    *out = cfg;
    return 0;
}

static int load_kubeconfig_file(const char *path, const char *context, kube_config **out,
                                ds_err *err)
{
    char *text;
    size_t len;
    if (rt_read_file(path, KUBE_CONFIG_MAX_FILE, &text, &len, err) != 0) {
        ds_err_prefix(err, "kubeconfig");
        return -1;
    }
    int rc = kube_config_parse_kubeconfig(text, len, path, context, out, err);
    free(text);
    return rc;
}

int kube_config_in_cluster(const char *sa_dir, kube_config **out, ds_err *err)
{
    *out = NULL;
    if (sa_dir == NULL)
        sa_dir = KUBE_SA_DIR_DEFAULT;
    const char *host = getenv("KUBERNETES_SERVICE_HOST");
    const char *port = getenv("KUBERNETES_SERVICE_PORT");
    if (host == NULL || host[0] == '\0' || port == NULL || port[0] == '\0')
        return ds_err_set(err, "in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT "
                               "must be set");
    if (strlen(host) > 255 || strlen(port) > 5 || strspn(port, "0123456789") != strlen(port))
        return ds_err_set(err,
                          "in-cluster: invalid KUBERNETES_SERVICE_HOST/PORT (got \"%.64s\", "
                          "\"%.16s\")",
                          host, port);
    kube_config *cfg = calloc(1, sizeof *cfg);
    if (cfg == NULL)
        return ds_err_set(err, "out of memory");
    char buf[1024];
    bool v6 = strchr(host, ':') != NULL;
    snprintf(buf, sizeof buf, "https://%s%s%s:%s", v6 ? "[" : "", host, v6 ? "]" : "", port);
    if (set_str(&cfg->server, buf, err) != 0)
        goto fail;
    snprintf(buf, sizeof buf, "%s/token", sa_dir);
    if (access(buf, R_OK) != 0) {
        ds_err_set(err, "in-cluster: service account token %s: %s", buf, strerror(errno));
        goto fail;
    }
    if (set_str(&cfg->token_file, buf, err) != 0)
        goto fail;
    snprintf(buf, sizeof buf, "%s/ca.crt", sa_dir);
    if (access(buf, R_OK) != 0) {
        ds_err_set(err, "in-cluster: service account CA %s: %s", buf, strerror(errno));
        goto fail;
    }
    if (set_str(&cfg->ca_file, buf, err) != 0)
        goto fail;
    snprintf(buf, sizeof buf, "%s/namespace", sa_dir);
    char *ns = NULL;
    size_t nl = 0;
    if (rt_read_file(buf, 256, &ns, &nl, NULL) == 0) {
        while (nl > 0 && (ns[nl - 1] == '\n' || ns[nl - 1] == ' '))
            ns[--nl] = '\0';
        if (nl > 0) {
            cfg->namespace = ns;
            ns = NULL;
        }
        free(ns);
    }
    if (cfg->namespace == NULL && set_str(&cfg->namespace, "default", err) != 0)
        goto fail;
    if (set_str(&cfg->source, "in-cluster", err) != 0)
        goto fail;
    *out = cfg;
    return 0;
fail:
    kube_config_free(cfg);
    return -1;
}

int kube_config_load(const kube_config_opts *opts, kube_config **out, ds_err *err)
{
    kube_config_opts none = {0};
    if (opts == NULL)
        opts = &none;
    *out = NULL;
    if (opts->in_cluster)
        return kube_config_in_cluster(opts->sa_dir, out, err);
    if (opts->kubeconfig != NULL)
        return load_kubeconfig_file(opts->kubeconfig, opts->context, out, err);
    const char *env = getenv("KUBECONFIG");
    if (env != NULL && env[0] != '\0') {
        /* Several files are merged by kubectl; dagsched uses the first one listed. */
        char first[KCFG_MAX_STR];
        size_t n = strcspn(env, ":");
        if (n >= sizeof first)
            return ds_err_set(err, "KUBECONFIG: path too long");
        memcpy(first, env, n);
        first[n] = '\0';
        if (env[n] == ':')
            KLOG_INFO("config", "KUBECONFIG lists several files; using the first, %s", first);
        return load_kubeconfig_file(first, opts->context, out, err);
    }
    const char *home = getenv("HOME");
    if (home != NULL && home[0] != '\0') {
        char path[KCFG_MAX_STR];
        snprintf(path, sizeof path, "%s/.kube/config", home);
        struct stat st;
        if (stat(path, &st) == 0)
            return load_kubeconfig_file(path, opts->context, out, err);
    }
    const char *host = getenv("KUBERNETES_SERVICE_HOST");
    if (host != NULL && host[0] != '\0' && opts->context == NULL)
        return kube_config_in_cluster(opts->sa_dir, out, err);
    return ds_err_set(err, "no kubeconfig: set --kubeconfig or KUBECONFIG, create ~/.kube/config, "
                           "or run in a cluster");
}

static int dup_blob(char **dst, const char *src, size_t len)
{
    *dst = NULL;
    if (src == NULL)
        return 0;
    *dst = malloc(len + 1);
    if (*dst == NULL)
        return -1;
    memcpy(*dst, src, len);
    (*dst)[len] = '\0';
    return 0;
}

int kube_config_copy(const kube_config *src, kube_config **out, ds_err *err)
{
    *out = NULL;
    kube_config *c = calloc(1, sizeof *c);
    if (c == NULL)
        return ds_err_set(err, "out of memory");
    c->insecure_skip_tls_verify = src->insecure_skip_tls_verify;
    c->ca_data_len = src->ca_data_len;
    c->cert_data_len = src->cert_data_len;
    c->key_data_len = src->key_data_len;
    const char *const from[] = {src->server,     src->tls_server_name, src->ca_file,
                                src->cert_file,  src->key_file,        src->token,
                                src->token_file, src->namespace,       src->source};
    char **const to[] = {&c->server,     &c->tls_server_name, &c->ca_file,
                         &c->cert_file,  &c->key_file,        &c->token,
                         &c->token_file, &c->namespace,       &c->source};
    int rc = 0;
    for (size_t i = 0; i < sizeof from / sizeof from[0]; i++)
        if (from[i] != NULL && (*to[i] = kutil_strdup(from[i])) == NULL)
            rc = -1;
    if (dup_blob(&c->ca_data, src->ca_data, src->ca_data_len) != 0 ||
        dup_blob(&c->cert_data, src->cert_data, src->cert_data_len) != 0 ||
        dup_blob(&c->key_data, src->key_data, src->key_data_len) != 0)
        rc = -1;
    if (rc != 0 || c->server == NULL) {
        kube_config_free(c);
        return ds_err_set(err, "%s", rc != 0 ? "out of memory" : "configuration has no server");
    }
    *out = c;
    return 0;
}
