/* uninstall.h: `dagsched-controller uninstall`, run by the Helm chart's pre-delete hook so that
 * removing dagsched strands no pod behind its scheduling gate, and by its post-delete hook so
 * that it leaves none of the objects dagsched wrote at run time.
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
 * Then, or alone with --objects-only (the chart's post-delete hook, run once `helm uninstall` has
 * deleted the Deployments): waits until no pod of --namespace matches --wait-for-pods (the
 * release's controller and scheduler, which would write them again: a leader re-creates a Lease
 * it finds gone), at most --wait-timeout, then deletes the named ConfigMaps (the eviction ledger,
 * the learned run times) and Leases (leader election) of that namespace; one already gone is
 * fine. Neither carries an owner, so nothing else would delete them.
 *
 * Exit status: 0 when no gated pod is left and every named object is gone, 1 when a request
 * failed, gated pods remain or the pods did not go, 2 on bad flags. Every write goes through
 * kube/writes.h. */
#ifndef DAGSCHED_CONTROLLER_UNINSTALL_H
#define DAGSCHED_CONTROLLER_UNINSTALL_H

#define UNINSTALL_MAX_PASSES  5
#define UNINSTALL_MAX_OBJECTS 8 /* ConfigMaps, Leases to delete: each at most */

/* argv[0] is "uninstall". */
int ctl_uninstall_main(int argc, char **argv);

#endif
