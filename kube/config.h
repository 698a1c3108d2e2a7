/* config.h: where the API server is and how to authenticate to it.
 *
 * Two sources, as kubectl and client-go read them:
 *  - a kubeconfig file: the explicit path, else the first entry of $KUBECONFIG, else
 *    ~/.kube/config; the context named by kube_config_opts.context, else current-context.
 * Supported: clusters with server, certificate-authority / certificate-authority-data,
 *    insecure-skip-tls-verify and tls-server-name; users with client-certificate(-data) and
 *    client-key(-data), token or tokenFile. Relative paths are relative to the file's directory;
 *    *-data fields are base64 as kubectl writes them and override the matching file field.
 *    Credential plugins (exec, auth-provider) and basic auth are refused with a clear error.
 *  - in-cluster: $KUBERNETES_SERVICE_HOST / $KUBERNETES_SERVICE_PORT and the service account's
 *    token, ca.crt and namespace files. Used when asked, or when no kubeconfig file exists and
 *    $KUBERNETES_SERVICE_HOST is set.
 * A token given as a file (tokenFile, the service account token) is kept as a path: the client
 * re-reads it whenever the file changes, so rotated projected tokens keep working.
 * Errors name the file and the field: "/x/kubeconfig: users[\"me\"].user.token-file: ...". */
#ifndef DAGSCHED_KUBE_CONFIG_H
#define DAGSCHED_KUBE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "ds_error.h"

/* Largest kubeconfig and credential file read. */
#define KUBE_CONFIG_MAX_FILE (4u << 20)
#define KUBE_SA_DIR_DEFAULT  "/var/run/secrets/kubernetes.io/serviceaccount"

typedef struct kube_config_opts {
    const char *kubeconfig; /* explicit file (a --kubeconfig flag); NULL: see above */
    const char *context;    /* explicit context (a --context flag); NULL: current-context */
    bool in_cluster;        /* use the in-cluster configuration only */
    const char *sa_dir;     /* service account directory; NULL: KUBE_SA_DIR_DEFAULT */
} kube_config_opts;

typedef struct kube_config {
    char *server;          /* "https://host:port", no trailing slash */
    char *tls_server_name; /* SNI / certificate name override, or NULL */
    bool insecure_skip_tls_verify;
    char *ca_file; /* CA bundle path, or NULL */
    char *ca_data; /* CA bundle PEM (decoded), or NULL; overrides ca_file */
    size_t ca_data_len;
    char *cert_file; /* client certificate path, or NULL */
    char *cert_data; /* client certificate PEM, or NULL; overrides cert_file */
    size_t cert_data_len;
    char *key_file; /* client key path, or NULL */
    char *key_data; /* client key PEM, or NULL; overrides key_file */
    size_t key_data_len;
    char *token;      /* static bearer token, or NULL */
    char *token_file; /* bearer token file, re-read on change, or NULL */
    char *namespace;  /* the context's (or service account's) namespace; "default" when unset */
    char *source;     /* for messages: "kubeconfig /x (context c)" or "in-cluster" */
} kube_config;

/* Load the configuration. opts may be NULL (all defaults). On success *out is owned by the caller
 * (kube_config_free). */
int kube_config_load(const kube_config_opts *opts, kube_config **out, ds_err *err);

/* Parse kubeconfig text already in memory; path names it in messages and anchors relative paths. */
int kube_config_parse_kubeconfig(const char *text, size_t len, const char *path,
                                 const char *context, kube_config **out, ds_err *err);

/* In-cluster configuration from the environment and sa_dir (NULL: the default directory). */
int kube_config_in_cluster(const char *sa_dir, kube_config **out, ds_err *err);

/* Deep copy. */
int kube_config_copy(const kube_config *src, kube_config **out, ds_err *err);

void kube_config_free(kube_config *cfg);

#endif
