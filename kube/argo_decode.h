/* argo_decode.h: the parts of an Argo Workflow object (argoproj.io/v1alpha1) that dagsched reads,
 * decoded from API JSON into the observation lib/argo_wf.h expands into a DAG job.
 *
 * Read: metadata (name, namespace, creationTimestamp, the dagsched.io/runtime, deadline and
 * deadline-after annotations); spec.entrypoint and spec.templates
 * (status.storedWorkflowTemplateSpec when the Workflow runs a WorkflowTemplate through
 * workflowTemplateRef): each template's kind, its metadata.annotations["dagsched.io/runtime"], its
 * dag tasks or steps (name, template, templateRef, dependencies, depends,
 * withItems/withParam/withSequence), a pod template's resources.requests (container, script,
 * containerSet, sidecars, initContainers: the request of its pods before they exist); status.nodes
 * (id, name, type, phase, startedAt, finishedAt, estimatedDuration, children). Everything else is
 * ignored.
 *
 * Bounded: at most DS_WF_MAX_TEMPLATES templates, KUBE_ARGO_MAX_STEPS tasks or steps per template,
 * DS_WF_MAX_NODES nodes, KUBE_ARGO_MAX_CHILDREN children in all, strings of at most
 * KUBE_ARGO_MAX_STR bytes (`depends`: DS_WF_DEPENDS_MAX). A Workflow beyond a bound, or with a
 * field of the wrong type, is still decoded: obs.decode_error says what is wrong, and its job is
 * invalid for dagsched. The copy kept is about the size of these fields in the JSON.
 *
 * Private to kube/: objects.c and model_input.c (other folders see a decoded Workflow as
 * kube_workflow, objects.h, and its job through model_input.h). */
#ifndef DAGSCHED_KUBE_ARGO_DECODE_H
#define DAGSCHED_KUBE_ARGO_DECODE_H

#include <jansson.h>

#include "argo_wf.h"
#include "ds_error.h"

struct kube_decode_opts; /* objects.h */

#define KUBE_ARGO_MAX_STEPS    100000
#define KUBE_ARGO_MAX_CHILDREN 1000000
#define KUBE_ARGO_MAX_STR      1024

typedef struct kube_argo_wf {
    ds_wf_obs obs; /* every string and array lives in the arena */
    ds_arena arena;
    size_t bytes; /* bytes of the copies (for the memory figures in docs/dag-jobs.md) */
} kube_argo_wf;

/* Decode `obj`, a Workflow (opts: the gpu names of the templates' requests; NULL: none). -1 with
 * err set only when out of memory or obj is not an object. */
int kube_argo_decode(const json_t *obj, const struct kube_decode_opts *opts, kube_argo_wf **out,
                     ds_err *err);

void kube_argo_wf_free(kube_argo_wf *w);

#endif
