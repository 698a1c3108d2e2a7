/* model_input.c: job model observations and node speeds from cached objects (see
 * model_input.h). */
#include "model_input.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "annotations.h"
#include "argo_decode.h"
#include "dsp.h"

static const char *or_empty(const char *s)
{
    return s != NULL ? s : "";
}

/* Kubernetes leaves absent times out; the decoder keeps them as 0. */
static double time_or_nan(double t)
{
    return t > 0.0 ? t : NAN;
}

int kube_model_phase(kube_pod_phase p)
{
    switch (p) {
    case KUBE_POD_PENDING:
        return DS_PHASE_PENDING;
    case KUBE_POD_RUNNING:
        return DS_PHASE_RUNNING;
    case KUBE_POD_SUCCEEDED:
        return DS_PHASE_SUCCEEDED;
    case KUBE_POD_FAILED:
        return DS_PHASE_FAILED;
    case KUBE_POD_UNKNOWN:
        break;
    }
    return DS_PHASE_UNKNOWN;
}

void kube_meta_obs(const kube_meta *m, ds_pod_obs *o)
{
    memset(o, 0, sizeof *o);
    o->ns = or_empty(m->ns);
    o->name = or_empty(m->name);
    o->uid = or_empty(m->uid);
    o->phase = DS_PHASE_PENDING;
    o->created_at = time_or_nan(m->creation_ts);
    o->started_at = NAN;
    o->finished_at = NAN;
    o->node_speed = 1.0;
    if (m->dagsched_error != NULL)
        return; /* its dagsched metadata cannot be used: outside any DAG job */
    o->job_label = kube_meta_label(m, DS_LABEL_JOB);
    o->argo_workflow = kube_meta_label(m, DS_LABEL_ARGO_WORKFLOW);
    o->task = kube_meta_label(m, DS_LABEL_TASK);
    o->depends_on = kube_meta_annotation(m, DS_ANN_DEPENDS_ON);
    o->runtime = kube_meta_annotation(m, DS_ANN_RUNTIME);
    o->deadline = kube_meta_annotation(m, DS_ANN_DEADLINE);
    o->deadline_after = kube_meta_annotation(m, DS_ANN_DEADLINE_AFTER);
}

void kube_workflow_obs(const kube_workflow *w, ds_wf_obs *o)
{
    *o = w->argo->obs;
}

void kube_pod_obs(const kube_pod *p, double node_speed, ds_pod_obs *o)
{
    kube_meta_obs(&p->meta, o);
    o->phase = kube_model_phase(p->phase);
    o->bound = p->node_name != NULL && p->node_name[0] != '\0';
    o->started_at = time_or_nan(p->start_time);
    o->finished_at = time_or_nan(p->finished_at);
    o->node_speed = node_speed;
    o->request = p->requests;
    if (p->meta.dagsched_error == NULL) {
        o->argo_node_id = p->argo_node_id;
        o->argo_node_name = p->argo_node_name;
    }
}

void kube_graph_obs(const kube_configmap *cm, ds_graph_obs *o)
{
    memset(o, 0, sizeof *o);
    o->ns = or_empty(cm->meta.ns);
    o->name = or_empty(cm->meta.name);
    o->yaml = "";
    for (size_t i = 0; i < cm->n_data; i++)
        if (strcmp(cm->data[i].key, DS_JOBGRAPH_DATA_KEY) == 0) {
            o->yaml = cm->data[i].value;
            break;
        }
    o->len = strlen(o->yaml);
    o->created_at = time_or_nan(cm->meta.creation_ts);
}
