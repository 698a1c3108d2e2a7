/* workflows.h: the controller's part of Argo Workflows support: whether to watch Workflows (only
 * where the API server serves them), and handing the watched Workflows to the snapshot with the
 * JobGraphs (both declare whole jobs; tracker.c tells them apart by kind). */
#ifndef DAGSCHED_CONTROLLER_WORKFLOWS_H
#define DAGSCHED_CONTROLLER_WORKFLOWS_H

#include <stdbool.h>

#include "cache.h"
#include "client.h"
#include "informer.h"

/* Does the API server serve argoproj.io/v1alpha1 Workflows? Asked for up to 30 s; logged. An
 * answer that cannot be had counts as no (logged as a warning). */
bool ctl_workflows_served(kube_client *c);

/* Append the informer's objects (references) to l. -1 when out of memory (l is unchanged). */
int ctl_list_append_informer(kube_obj_list *l, kube_informer *inf);

#endif
