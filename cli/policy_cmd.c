/* policy_cmd.c: `kubectl dagsched policy ...`: checks SchedulingPolicy files with the validator
 * the extender and the controller use (lib/policy), wraps a policy into the labelled ConfigMap
 * that both components watch, and creates or updates that ConfigMap on the cluster through the
 * kube client (kube/writes.h) (see policy_cmd.h). */
#include "policy_cmd.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "annotations.h"
#include "configmaps.h"
#include "json_out.h"
#include "k8s_names.h"
#include "policy.h"
#include "policy_source.h"
#include "readfile.h"
#include "view_flags.h"
#include "writes.h"

#define DEFAULT_NAMESPACE "dagsched-system"
#define MAX_ERRORS        50 /* errors printed per file, then how many more */

/* Read a whole file of at most DS_POLICY_MAX_BYTES into a NUL-terminated buffer ("-" = stdin). */
static char *read_policy_file(const char *path, size_t *len)
{
    char *buf = NULL;
    ds_err err = {{0}};
    int rc = strcmp(path, "-") == 0
                 ? rt_read_fd(STDIN_FILENO, "-", DS_POLICY_MAX_BYTES, &buf, len, &err)
                 : rt_read_file(path, DS_POLICY_MAX_BYTES, &buf, len, &err);
    if (rc != 0) {
        fprintf(stderr, "kubectl-dagsched: %s\n", err.msg);
        return NULL;
    }
    if (memchr(buf, '\0', *len) != NULL) {
        fprintf(stderr, "kubectl-dagsched: %s: holds a NUL byte (not a YAML document)\n", path);
        free(buf);
        return NULL;
    }
    return buf;
}

/* Parse and validate one file; on failure prints "FILE: ERROR" for each error (the first
 * MAX_ERRORS, then how many more). */
static int load(const char *path, char **text, size_t *len, ds_policy *pol)
{
    *text = read_policy_file(path, len);
    if (*text == NULL)
        return -1;
    ds_err items[MAX_ERRORS];
    ds_errs errs = {.items = items, .max = MAX_ERRORS};
    if (ds_policy_parse_all(*text, *len, pol, &errs) != 0) {
        for (size_t i = 0; i < errs.n && i < errs.max; i++)
            fprintf(stderr, "%s: %s\n", path, items[i].msg);
        if (errs.n > errs.max)
            fprintf(stderr, "%s: and %zu more errors\n", path, errs.n - errs.max);
        free(*text);
        *text = NULL;
        return -1;
    }
    return 0;
}

static int cmd_validate(int argc, char **argv)
{
    if (argc < 1) {
        fprintf(stderr, "kubectl-dagsched policy validate: expected one or more FILEs\n");
        return 2;
    }
    int bad = 0;
    for (int i = 0; i < argc; i++) {
        char *text = NULL;
        size_t len = 0;
        ds_policy pol;
        if (load(argv[i], &text, &len, &pol) != 0) {
            bad = 1;
            continue;
        }
        printf("%s: SchedulingPolicy \"%s\" is valid\n", argv[i], pol.name);
        free(text);
    }
    return bad;
}

/* The ConfigMap as JSON (kubectl apply takes JSON as it takes YAML). */
static json_t *configmap(const ds_policy *pol, const char *text, const char *ns)
{
    char name[DS_POLICY_NAME_MAX + sizeof KUBE_POLICY_CM_PREFIX];
    snprintf(name, sizeof name, "%s%s", KUBE_POLICY_CM_PREFIX, pol->name);
    const char *const labels[] = {DS_LABEL_KIND, DS_POLICY_KIND, "app.kubernetes.io/name",
                                  "dagsched"};
    const char *const data[] = {KUBE_POLICY_DATA_KEY, text};
    kube_cm_spec spec = {
        .ns = ns, .name = name, .labels = labels, .n_labels = 2, .data = data, .n_data = 1};
    ds_err err = {{0}};
    return kube_cm_object(&spec, &err);
}

/* The labelled ConfigMap of the policy in FILE for namespace ns: 0 and *out set; 2 for a bad
 * namespace, 1 for an invalid policy or out of memory (said on stderr). */
static int policy_configmap(const char *path, const char *ns, json_t **out)
{
    const char *why = ds_check_dns_label(ns);
    if (why != NULL) {
        fprintf(stderr, "kubectl-dagsched: --namespace: %s (got \"%.80s\")\n", why, ns);
        return 2;
    }
    char *text = NULL;
    size_t len = 0;
    ds_policy pol;
    if (load(path, &text, &len, &pol) != 0)
        return 1;
    *out = configmap(&pol, text, ns);
    free(text);
    if (*out == NULL) {
        fprintf(stderr, "kubectl-dagsched: out of memory\n");
        return 1;
    }
    return 0;
}

static int cmd_configmap(int argc, char **argv)
{
    static const char usage[] = "usage: kubectl dagsched policy configmap FILE [-n NS]\n";
    cli_flags o;
    int first;
    int parsed = cli_parse_view_flags(argc, argv, CLI_FLAGS_POLICY_CONFIGMAP, usage, &o, &first);
    if (parsed != RT_FLAGS_RUN)
        return parsed;
    if (argc - first != 1) {
        fprintf(stderr, "kubectl-dagsched policy configmap: %s\n%s",
                argc - first == 0 ? "expected a FILE" : "one FILE only", usage);
        return RT_EXIT_USAGE;
    }
    const char *ns = o.v.ns != NULL ? o.v.ns : DEFAULT_NAMESPACE;
    const char *path = argv[first];
    json_t *cm = NULL;
    int built = policy_configmap(path, ns, &cm);
    if (built != 0)
        return built;
    return cli_print_json(cm, JSON_PRESERVE_ORDER);
}

/* `policy apply FILE [-n NS]`: validate, wrap, create or update on the cluster. */
static int cmd_apply(int argc, char **argv)
{
    cli_flags o;
    int first;
    static const char usage[] = "usage: kubectl dagsched policy apply FILE [-n NS]\n";
    int rc = cli_parse_view_flags(argc, argv, CLI_FLAGS_POLICY_APPLY, usage, &o, &first);
    if (rc != RT_FLAGS_RUN)
        return rc;
    if (argc - first != 1) {
        fputs(usage, stderr);
        return RT_EXIT_USAGE;
    }
    const char *path = argv[first];
    const char *ns = o.v.ns != NULL ? o.v.ns : DEFAULT_NAMESPACE;
    o.v.ns = ns;
    json_t *cm = NULL;
    int built = policy_configmap(path, ns, &cm);
    if (built != 0)
        return built;
    kube_client *c = NULL;
    char cns[254];
    ds_err err = {{0}};
    kube_apply_result res = KUBE_APPLY_UNCHANGED;
    rc = cli_client_open(&o.v, &c, cns, sizeof cns, &err);
    if (rc == 0)
        rc = kube_apply_configmap(c, cm, &res, &err);
    if (rc == 0)
        printf("configmap/%s %s\n",
               json_string_value(json_object_get(json_object_get(cm, "metadata"), "name")),
               kube_apply_result_name(res));
    else
        fprintf(stderr, "kubectl-dagsched: %s\n", err.msg);
    kube_client_free(c);
    json_decref(cm);
    return rc == 0 ? 0 : 1;
}

void policy_cmd_usage(FILE *f)
{
    fprintf(
        f, "  policy validate FILE...       check SchedulingPolicy documents with the components'\n"
           "                                validator; prints each error with its field path\n"
           "  policy configmap FILE [-n NS] print the labelled ConfigMap that carries the policy\n"
           "                                (namespace default " DEFAULT_NAMESPACE
           "), for kubectl apply -f -\n"
           "  policy apply FILE [-n NS]     validate, then create or update that ConfigMap on the\n"
           "                                cluster (same namespace default; other labels and\n"
           "                                annotations of an existing one are kept)\n");
}

int policy_cmd(int argc, char **argv)
{
    if (argc < 1) {
        policy_cmd_usage(stderr);
        return 2;
    }
    if (strcmp(argv[0], "validate") == 0)
        return cmd_validate(argc - 1, argv + 1);
    if (strcmp(argv[0], "configmap") == 0)
        return cmd_configmap(argc, argv);
    if (strcmp(argv[0], "apply") == 0)
        return cmd_apply(argc, argv);
    fprintf(stderr, "kubectl-dagsched policy: unknown command \"%s\"\n", argv[0]);
    policy_cmd_usage(stderr);
    return 2;
}
