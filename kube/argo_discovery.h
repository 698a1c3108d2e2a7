/* argo_discovery.h: whether the API server serves Argo Workflows (argoproj.io/v1alpha1,
 * resource workflows), so that dagsched watches Workflows only where Argo is installed and works
 * the same without it. Asked once at start: a cluster that gets Argo later needs a restart of the
 * extender and the controller for dagsched to read its Workflows. */
#ifndef DAGSCHED_KUBE_ARGO_DISCOVERY_H
#define DAGSCHED_KUBE_ARGO_DISCOVERY_H

#include <stdbool.h>

#include "client.h"
#include "ds_error.h"

/* 0 with *served set (false on 404 or when the group lacks the resource); -1 with err set when
 * the API server could not be asked. */
int kube_argo_workflows_served(kube_client *c, bool *served, ds_err *err);

/* kube_argo_workflows_served, retried every 2 s for up to timeout_s while it fails. */
int kube_argo_workflows_served_wait(kube_client *c, double timeout_s, bool *served, ds_err *err);

#endif
