/* uninstall.h: `dagsched-controller uninstall`, run by the Helm chart's pre-delete hook so that
 * removing dagsched strands no pod behind its scheduling gate.
 *
 * In order: deletes the chart's MutatingWebhookConfiguration (when named), so that no pod created
 * from then on is gated; then lists every pending pod of the cluster (paginated) and removes the
 * dagsched.io/dependencies gate from each pod that carries it, in passes until a pass finds no
 * gated pod (pods created while the webhook was being removed are caught by the next pass; at
 * most UNINSTALL_MAX_PASSES). It reports what it did and what it leaves: pods whose schedulerName
 * is dagsched's wait for a scheduler of that name once the chart's scheduler is gone, and batch/v1
 * Jobs of DAG tasks that are still suspended stay suspended (a user may have suspended them for
 * their own reasons); both are listed (first 20) with the command that resolves them.
 *
 * Exit status: 0 when no gated pod is left, 1 when a request failed or gated pods remain, 2 on bad
 * flags. Every write goes through kube/writes.h. */
#ifndef DAGSCHED_CONTROLLER_UNINSTALL_H
#define DAGSCHED_CONTROLLER_UNINSTALL_H

#define UNINSTALL_MAX_PASSES 5

/* argv[0] is "uninstall". */
int ctl_uninstall_main(int argc, char **argv);

#endif
