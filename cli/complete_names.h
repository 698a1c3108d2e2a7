/* complete_names.h: the names shell completion offers from the cluster: the DAG jobs of a
 * namespace (as `get jobs` names them: the dagsched.io/job label of their pods and task Jobs, else
 * the Argo workflow of their pods, and its Argo Workflows where served) and its pods. Used by
 * `kubectl-dagsched __complete`. */
#ifndef DAGSCHED_CLI_COMPLETE_NAMES_H
#define DAGSCHED_CLI_COMPLETE_NAMES_H

#include <stdio.h>

typedef enum { CLI_NAMES_NONE = 0, CLI_NAMES_JOBS, CLI_NAMES_PODS } cli_name_kind;

/* Where to look: the flags typed so far (each NULL when not typed). */
typedef struct cli_names_conn {
    const char *kubeconfig, *context;
    const char *ns;      /* NULL: the context's namespace, else "default" */
    const char *timeout; /* --request-timeout SECONDS as typed; NULL: 5 seconds */
} cli_names_conn;

/* Print the names of `kind` that start with prefix to out, one a line, sorted, each once.
 * Prints nothing when the cluster cannot be read (completion stays quiet); 0 or -1 then. */
int cli_complete_names(cli_name_kind kind, const cli_names_conn *conn, const char *prefix,
                       FILE *out);

#endif
