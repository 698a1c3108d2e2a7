/* publish.c: DSP annotations and Event texts (see publish.h). */
#include "publish.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timefmt.h"

static double round_slack(double s)
{
    double a = fabs(s), step;
    if (a < 300.0)
        step = 10.0;
    else if (a < 3600.0)
        step = 60.0;
    else
        step = 600.0;
    return round(s / step) * step;
}

static void format_slack(double s, char *buf, size_t size)
{
    if (!isfinite(s)) {
        snprintf(buf, size, "none");
        return;
    }
    double r = round_slack(s);
    if (r < 0.0) {
        char tmp[CTL_PUB_VALUE_MAX - 8];
        ds_duration_format(-r, tmp, sizeof tmp);
        snprintf(buf, size, "-%.*s", (int)(sizeof tmp - 1), tmp);
    } else {
        ds_duration_format(r, buf, size);
    }
}

void ctl_format_time(double epoch_s, char *buf, size_t size)
{
    if (!isfinite(epoch_s) || epoch_s < 0.0 || epoch_s > 253402300799.0) {
        snprintf(buf, size, "none");
        return;
    }
    time_t t = (time_t)floor(epoch_s);
    struct tm tm;
    if (gmtime_r(&t, &tm) == NULL || strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(buf, size, "none");
}

void ctl_publish_values(const ctl_task_info *t, ctl_dsp_values *out)
{
    snprintf(out->priority, sizeof out->priority, "%.3g", t->eval.priority);
    format_slack(t->eval.t_allow_s, out->slack, sizeof out->slack);
    ctl_format_time(t->eval.level_deadline, out->level_deadline, sizeof out->level_deadline);
}

static bool same(const char *a, const char *b)
{
    return b != NULL && strcmp(a, b) == 0;
}

bool ctl_publish_differs(const ctl_dsp_values *want, const char *priority, const char *slack,
                         const char *level_deadline)
{
    return !same(want->priority, priority) || !same(want->slack, slack) ||
           !same(want->level_deadline, level_deadline);
}

static void dur(double s, char *buf, size_t size)
{
    if (!isfinite(s))
        snprintf(buf, size, "none");
    else if (s < 0.0) {
        char tmp[48];
        ds_duration_format(-s, tmp, sizeof tmp);
        snprintf(buf, size, "-%.*s", (int)(sizeof tmp - 1), tmp);
    } else
        ds_duration_format(s, buf, size);
}

void ctl_explain_reason(const ctl_eviction *e, const ctl_pod *preemptor, const ctl_pod *victim,
                        const ds_policy *p, char *buf, size_t size)
{
    char a[64], b[64];
    switch (e->reason) {
    case DS_REASON_URGENT:
        dur(round(preemptor->task.eval.t_allow_s), a, sizeof a);
        if (isfinite(e->room_wait_s)) {
            dur(round(e->room_wait_s), b, sizeof b);
            snprintf(buf, size,
                     "urgent: room would come in %s without an eviction, too late for its slack "
                     "%s (or its job's)",
                     b, a);
        } else if (isinf(e->room_wait_s)) {
            snprintf(buf, size,
                     "urgent: room would not come without an eviction (the tasks queued ahead of "
                     "it take what the running tasks free), too late for its slack %s (or its "
                     "job's)",
                     a);
        } else {
            dur(p->urgent_threshold_s, b, sizeof b);
            snprintf(buf, size, "urgent: its slack %s is within the urgent threshold %s", a, b);
        }
        break;
    case DS_REASON_STARVATION:
        dur(round(preemptor->task.eval.t_wait_s), a, sizeof a);
        dur(p->preemption.tau_s, b, sizeof b);
        snprintf(buf, size, "starving: it has waited %s, at least tau %s", a, b);
        break;
    case DS_REASON_PRIORITY:
        if (isfinite(e->normalised_gap))
            snprintf(buf, size,
                     "priority: its DSP priority %.3g exceeds %.3g by %.2f times the average "
                     "priority gap (rho %.2f)",
                     preemptor->task.eval.priority, victim->task.eval.priority, e->normalised_gap,
                     p->preemption.rho);
        else
            snprintf(buf, size, "priority: its DSP priority %.3g exceeds %.3g (rho %.2f)",
                     preemptor->task.eval.priority, victim->task.eval.priority, p->preemption.rho);
        break;
    default:
        snprintf(buf, size, "%s", ds_reason_name(e->reason));
    }
}

void ctl_victim_message(const ctl_eviction *e, const ctl_pod *preemptor, const ctl_pod *victim,
                        const char *node, const ds_policy *p, bool dry_run, char *buf, size_t size)
{
    char why[512];
    ctl_explain_reason(e, preemptor, victim, p, why, sizeof why);
    snprintf(buf, size,
             "%s on node %s to make room for %s/%s (%s); this pod's DSP priority is %.3g",
             dry_run ? "Would be evicted (dry run)" : "Evicted", node, preemptor->ns,
             preemptor->name, why, victim->task.eval.priority);
}

void ctl_preemptor_message(const ctl_eviction *e, const ctl_pod *preemptor, const ctl_pod *victim,
                           const char *node, const ds_policy *p, bool dry_run, char *buf,
                           size_t size)
{
    char why[512];
    ctl_explain_reason(e, preemptor, victim, p, why, sizeof why);
    snprintf(buf, size, "%s %s/%s (DSP priority %.3g) on node %s for this pod (%s)",
             dry_run ? "Would evict (dry run)" : "Evicting", victim->ns, victim->name,
             victim->task.eval.priority, node, why);
}

bool ctl_publish_due(const ctl_pod *p, double last, double now, bool urgent, bool cooling)
{
    if (p->state != CTL_POD_BOUND)
        return !(last >= 0 && now - last < CTL_PUBLISH_PENDING_EVERY_S) && !cooling;
    return !(last >= 0 && now - last < CTL_PUBLISH_RUNNING_EVERY_S) || urgent;
}

typedef struct pub_cand {
    size_t pod;
    double prio;
} pub_cand;

static int cmp_pub(const void *a, const void *b)
{
    const pub_cand *x = a, *y = b;
    if (x->prio != y->prio)
        return x->prio > y->prio ? -1 : 1;
    return (x->pod > y->pod) - (x->pod < y->pod);
}

long ctl_publish_order(const ctl_pod *pods, size_t n, size_t *idx)
{
    pub_cand *cand = calloc(n ? n : 1, sizeof *cand);
    if (cand == NULL)
        return -1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const ctl_pod *p = &pods[i];
        if (!p->task.evaluated || p->state == CTL_POD_SUCCEEDED || p->state == CTL_POD_FAILED ||
            p->terminating)
            continue;
        cand[m++] = (pub_cand){i, p->task.eval.priority};
    }
    qsort(cand, m, sizeof *cand, cmp_pub);
    for (size_t k = 0; k < m; k++)
        idx[k] = cand[k].pod;
    free(cand);
    return (long)m;
}
