/* model_input.h: what the job model (lib/jobmodel.h) and the node speed model (lib/dsp.h) are
 * given, taken from cached API objects. The extender and the controller build their job model
 * from the same observations through these functions, so both see the same jobs, task states and
 * priorities.
 *
 * Strings in the results are borrowed from the objects: keep a reference to each object while the
 * observation is in use. */
#ifndef DAGSCHED_KUBE_MODEL_INPUT_H
#define DAGSCHED_KUBE_MODEL_INPUT_H

#include "jobmodel.h"
#include "objects.h"
#include "policy.h"

/* DS_PHASE_* of a pod phase. */
int kube_model_phase(kube_pod_phase p);

/* The identity, DAG labels and annotations and creation time of an object (a pod, or a batch Job
 * standing for its pod), with the phase pending, no times and speed 1.0. An object whose dagsched
 * metadata cannot be used (kube_meta.dagsched_error) is observed without DAG labels and
 * annotations: outside any DAG job. */
void kube_meta_obs(const kube_meta *m, ds_pod_obs *o);

/* A pod as the job model observes it; node_speed: the processing rate of its node (1.0 when it
 * has none or the node is unknown). */
void kube_pod_obs(const kube_pod *p, double node_speed, ds_pod_obs *o);

/* A JobGraph ConfigMap as the job model reads it (data["graph.yaml"], "" when absent). */
void kube_graph_obs(const kube_configmap *cm, ds_graph_obs *o);

/* An Argo Workflow as the job model reads it (lib/argo_wf.h). */
void kube_workflow_obs(const kube_workflow *w, ds_wf_obs *o);

#endif
