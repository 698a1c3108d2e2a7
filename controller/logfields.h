/* logfields.h: the log fields (kube_log_fields) of the objects the controller decides about, so
 * every decision line names its pod, namespace, job, task, node and reason the same way. */
#ifndef DAGSCHED_CTL_LOGFIELDS_H
#define DAGSCHED_CTL_LOGFIELDS_H

#include "log.h"

/* A pod (const ctl_pod *): its name, namespace, DAG job and task (NULL outside a DAG), the given
 * node and reason (either may be NULL). */
#define CTL_POD_FIELDS(p, node_, reason_)                                                          \
    KLOG_FIELDS(.pod = (p)->name, .ns = (p)->ns, .job = (p)->task.job_name,                        \
                .task = (p)->task.task_name, .node = (node_), .reason = (reason_))

/* A batch/v1 Job that is a DAG task (const ctl_batch_job *): no pod yet. */
#define CTL_JOB_FIELDS(j, reason_)                                                                 \
    KLOG_FIELDS(.ns = (j)->ns, .job = (j)->task.job_name, .task = (j)->task.task_name,             \
                .reason = (reason_))

#endif
