/* tenants_cmd.h: `kubectl dagsched get tenants`: each tenant of spec.fairness with DAG tasks, its
 * weight, cap, dominant share and fair share, whether the release order holds it back, and the
 * jobs whose tasks wait for fair share (cli/tenant_view.h), from one read of every namespace. */
#ifndef DAGSCHED_CLI_TENANTS_CMD_H
#define DAGSCHED_CLI_TENANTS_CMD_H

#include "view_flags.h"

/* The command with its flags parsed (o: -n NS shows NS's tenant only). Returns the exit code: 0
 * done, 1 failure (cluster unreachable, pods of every namespace or nodes not readable). */
int tenants_cmd_get(cli_flags *o);

#endif
