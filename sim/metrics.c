/* metrics.c: run metrics and their CSV / JSON / table output (see metrics.h). */
#include "metrics.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policies.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void sim_metrics_print_tenants(FILE *f, const sim_result *r)
{
    if (r->n_tenants < 2)
        return;
    for (size_t t = 0; t < r->n_tenants; t++) {
        size_t n = 0;
        double sum = 0;
        for (size_t i = 0; i < r->n_jobs; i++)
            if (r->jobs[i].tenant == t) {
                n++;
                sum += r->jobs[i].completion - r->jobs[i].arrival;
            }
        fprintf(f, "  tenant %s: %zu jobs, jct mean %.0f s\n", r->tenants[t], n,
                n > 0 ? sum / (double)n : 0.0);
    }
}

int sim_metrics_compute(const sim_result *r, sim_metrics *m)
{
    m->jobs = r->n_jobs;
    m->evict_deadline = m->evict_met = m->evict_no_deadline = 0;
    m->tasks = r->n_tasks;
    m->nodes = r->n_nodes;
    double last = r->first_arrival;
    double *jct = malloc((r->n_jobs ? r->n_jobs : 1) * sizeof *jct);
    if (jct == NULL)
        return -1;
    double sum = 0;
    size_t with_deadline = 0, met = 0;
    for (size_t i = 0; i < r->n_jobs; i++) {
        const sim_job_result *j = &r->jobs[i];
        if (j->completion > last)
            last = j->completion;
        jct[i] = j->completion - j->arrival;
        sum += jct[i];
        if (isfinite(j->deadline)) {
            with_deadline++;
            bool ok = j->completion <= j->deadline + 1e-9;
            if (ok)
                met++;
            m->evict_deadline += j->evictions_for;
            m->evict_met += ok ? j->evictions_for : 0;
        } else {
            m->evict_no_deadline += j->evictions_for;
        }
    }
    m->makespan_s = last - r->first_arrival;
    m->jct_mean_s = r->n_jobs ? sum / (double)r->n_jobs : 0;
    qsort(jct, r->n_jobs, sizeof *jct, cmp_double);
    if (r->n_jobs > 0) {
        size_t rank = (size_t)ceil(0.95 * (double)r->n_jobs);
        if (rank < 1)
            rank = 1;
        m->jct_p95_s = jct[rank - 1];
    }
    free(jct);
    m->deadline_jobs = with_deadline;
    m->deadline_met = met;
    m->deadline_met_ratio = with_deadline ? (double)met / (double)with_deadline : NAN;
    m->preemptions = r->preemptions;
    m->preempt_urgent = r->preempt_urgent;
    m->preempt_priority = r->preempt_priority;
    m->preempt_starvation = r->preempt_starvation;
    m->preempt_kube = r->preempt_kube;
    m->disorders = r->disorders;
    m->sched_failures = r->sched_failures;
    m->sched_failed_pods = r->sched_failed_pods;
    m->held_refusals = r->held_refusals;
    double span = m->makespan_s;
    m->util_cpu = span > 0 && r->capacity.v[DS_RES_CPU] > 0
                      ? r->area[DS_RES_CPU] / ((double)r->capacity.v[DS_RES_CPU] * span)
                      : 0;
    m->util_memory = span > 0 && r->capacity.v[DS_RES_MEMORY] > 0
                         ? r->area[DS_RES_MEMORY] / ((double)r->capacity.v[DS_RES_MEMORY] * span)
                         : 0;
    m->lost_work_s = r->lost_work_s;
    m->lost_run_s = r->lost_run_s;
    m->eviction_yield = m->evict_deadline ? (double)m->evict_met / (double)m->evict_deadline : NAN;
    m->evict_task_deadline = r->evict_task_deadline;
    m->evict_task_met = r->evict_task_met;
    m->evict_task_yield =
        r->evict_task_deadline ? (double)r->evict_task_met / (double)r->evict_task_deadline : NAN;
    m->failures = r->failures;
    m->starts = r->starts;
    m->peak_waiting = r->peak_waiting;
    m->events = r->events;
    m->peak_events = r->peak_events;
    return 0;
}

#define COL_D(field) offsetof(sim_metrics, field), 0
#define COL_N(field) offsetof(sim_metrics, field), 1

static const sim_metric_col cols[] = {
    {"makespan", "makespan", 0, COL_D(makespan_s)},
    {"jct_mean", "mean job completion time", 0, COL_D(jct_mean_s)},
    {"jct_p95", "p95 job completion time", 0, COL_D(jct_p95_s)},
    {"deadline_met", "deadline-met ratio", 1, COL_D(deadline_met_ratio)},
    {"preemptions", "preemptions", 0, COL_N(preemptions)},
    {"disorders", "dependency disorders", 0, COL_N(disorders)},
    {"util_cpu", "mean cpu utilisation", 1, COL_D(util_cpu)},
    {"util_mem", "mean memory utilisation", 1, COL_D(util_memory)},
    {"lost_work_s", "work lost to evictions", 0, COL_D(lost_work_s)},
    {"lost_run_s", "node time lost to evictions", 0, COL_D(lost_run_s)},
    {"evict_yield", "eviction yield", 1, COL_D(eviction_yield)},
};

double sim_metric_value(const sim_metric_col *col, const sim_metrics *m)
{
    const char *field = (const char *)m + col->offset;
    if (col->count) {
        uint64_t v;
        memcpy(&v, field, sizeof v);
        return (double)v;
    }
    double v;
    memcpy(&v, field, sizeof v);
    return v;
}

const sim_metric_col *sim_metric_cols(size_t *n)
{
    *n = sizeof cols / sizeof cols[0];
    return cols;
}

void sim_metrics_csv_header(FILE *f)
{
    fprintf(f,
            "workload,seed,policy,jobs,tasks,nodes,makespan_s,jct_mean_s,jct_p95_s,"
            "deadline_met_ratio,preemptions,preempt_urgent,preempt_priority,preempt_starvation,"
            "preempt_kube,disorders,util_cpu,util_memory,lost_work_s,"
            "failures,starts,peak_waiting,events,wall_s,peak_rss_kb,lost_run_s,"
            "evict_deadline,evict_met,evict_no_deadline,eviction_yield,deadline_jobs,deadline_met,"
            "evict_task_deadline,evict_task_met,evict_task_yield,peak_events\n");
}

void sim_metrics_csv_row(FILE *f, const sim_metrics *m)
{
    fprintf(
        f,
        "%s,%llu,%s,%zu,%zu,%zu,%.3f,%.3f,%.3f,%.6f,%llu,%llu,%llu,%llu,%llu,%llu,%.6f,%.6f,"
        "%.3f,%llu,%llu,%zu,%llu,%.3f,%ld,%.3f,%llu,%llu,%llu,%.6f,%zu,%zu,%llu,%llu,%.6f,%zu\n",
        m->workload, (unsigned long long)m->seed, m->policy, m->jobs, m->tasks, m->nodes,
        m->makespan_s, m->jct_mean_s, m->jct_p95_s, m->deadline_met_ratio,
        (unsigned long long)m->preemptions, (unsigned long long)m->preempt_urgent,
        (unsigned long long)m->preempt_priority, (unsigned long long)m->preempt_starvation,
        (unsigned long long)m->preempt_kube, (unsigned long long)m->disorders, m->util_cpu,
        m->util_memory, m->lost_work_s, (unsigned long long)m->failures,
        (unsigned long long)m->starts, m->peak_waiting, (unsigned long long)m->events, m->wall_s,
        m->peak_rss_kb, m->lost_run_s, (unsigned long long)m->evict_deadline,
        (unsigned long long)m->evict_met, (unsigned long long)m->evict_no_deadline,
        m->eviction_yield, m->deadline_jobs, m->deadline_met,
        (unsigned long long)m->evict_task_deadline, (unsigned long long)m->evict_task_met,
        m->evict_task_yield, m->peak_events);
}

static void json_num(FILE *f, const char *key, double v, int last)
{
    if (isfinite(v))
        fprintf(f, "\"%s\": %.6g%s", key, v, last ? "" : ", ");
    else
        fprintf(f, "\"%s\": null%s", key, last ? "" : ", ");
}

/* Names here are the project's own (policy names, generated workload names, file names the user
 * chose); escape quotes and control bytes anyway. */
static void json_str(FILE *f, const char *key, const char *s)
{
    fprintf(f, "\"%s\": \"", key);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fprintf(f, "\", ");
}

void sim_metrics_json(FILE *f, const sim_metrics *runs, size_t n)
{
    fprintf(f, "[\n");
    for (size_t i = 0; i < n; i++) {
        const sim_metrics *m = &runs[i];
        fprintf(f, "  {");
        json_str(f, "workload", m->workload);
        fprintf(f, "\"seed\": %llu, ", (unsigned long long)m->seed);
        json_str(f, "policy", m->policy);
        fprintf(f, "\"jobs\": %zu, \"tasks\": %zu, \"nodes\": %zu, ", m->jobs, m->tasks, m->nodes);
        json_num(f, "makespan_s", m->makespan_s, 0);
        json_num(f, "jct_mean_s", m->jct_mean_s, 0);
        json_num(f, "jct_p95_s", m->jct_p95_s, 0);
        json_num(f, "deadline_met_ratio", m->deadline_met_ratio, 0);
        fprintf(f,
                "\"preemptions\": %llu, \"preempt_urgent\": %llu, \"preempt_priority\": %llu, "
                "\"preempt_starvation\": %llu, \"preempt_kube\": %llu, \"disorders\": %llu, ",
                (unsigned long long)m->preemptions, (unsigned long long)m->preempt_urgent,
                (unsigned long long)m->preempt_priority, (unsigned long long)m->preempt_starvation,
                (unsigned long long)m->preempt_kube, (unsigned long long)m->disorders);
        json_num(f, "util_cpu", m->util_cpu, 0);
        json_num(f, "util_memory", m->util_memory, 0);
        json_num(f, "lost_work_s", m->lost_work_s, 0);
        fprintf(f,
                "\"failures\": %llu, \"starts\": %llu, \"peak_waiting\": %zu, \"events\": %llu, "
                "\"peak_events\": %zu, ",
                (unsigned long long)m->failures, (unsigned long long)m->starts, m->peak_waiting,
                (unsigned long long)m->events, m->peak_events);
        fprintf(f,
                "\"sched_failures\": %llu, \"sched_failed_pods\": %llu, \"held_refusals\": %llu, ",
                (unsigned long long)m->sched_failures, (unsigned long long)m->sched_failed_pods,
                (unsigned long long)m->held_refusals);
        json_num(f, "wall_s", m->wall_s, 0);
        json_num(f, "lost_run_s", m->lost_run_s, 0);
        fprintf(f, "\"evict_deadline\": %llu, \"evict_met\": %llu, \"evict_no_deadline\": %llu, ",
                (unsigned long long)m->evict_deadline, (unsigned long long)m->evict_met,
                (unsigned long long)m->evict_no_deadline);
        json_num(f, "eviction_yield", m->eviction_yield, 0);
        fprintf(f, "\"evict_task_deadline\": %llu, \"evict_task_met\": %llu, ",
                (unsigned long long)m->evict_task_deadline, (unsigned long long)m->evict_task_met);
        json_num(f, "evict_task_yield", m->evict_task_yield, 0);
        fprintf(f, "\"deadline_jobs\": %zu, \"deadline_met\": %zu, ", m->deadline_jobs,
                m->deadline_met);
        fprintf(f, "\"peak_rss_kb\": %ld}%s\n", m->peak_rss_kb, i + 1 < n ? "," : "");
    }
    fprintf(f, "]\n");
}

double sim_metrics_mean(const sim_metrics *runs, size_t n, const char *policy,
                        const sim_metric_col *col)
{
    double sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(runs[i].policy, policy) != 0)
            continue;
        double v = sim_metric_value(col, &runs[i]);
        if (isnan(v))
            continue;
        sum += v;
        k++;
    }
    return k ? sum / (double)k : NAN;
}

void sim_metrics_print_tables(FILE *f, const sim_metrics *runs, size_t n,
                              const char *const *policies, size_t n_policies)
{
    size_t nc;
    const sim_metric_col *c = sim_metric_cols(&nc);
    fprintf(f, "\nMean over runs (absolute):\n%-22s", "policy");
    for (size_t k = 0; k < nc; k++)
        fprintf(f, " %12s", c[k].name);
    fprintf(f, "\n");
    for (size_t p = 0; p < n_policies; p++) {
        fprintf(f, "%-22s", sim_policy_label(policies[p]));
        for (size_t k = 0; k < nc; k++) {
            double v = sim_metrics_mean(runs, n, policies[p], &c[k]);
            if (isnan(v))
                fprintf(f, " %12s", "n/a");
            else
                fprintf(f, " %12.4g", v);
        }
        fprintf(f, "\n");
    }
    fprintf(f,
            "\nRatio to default (mean of policy / mean of default; lower is better except "
            "deadline_met, util_* and evict_yield; '-' where default is 0):\n%-22s",
            "policy");
    for (size_t k = 0; k < nc; k++)
        fprintf(f, " %12s", c[k].name);
    fprintf(f, "\n");
    bool bound = false;
    for (size_t p = 0; p < n_policies; p++) {
        const sim_policy_desc *d = sim_policy_find(policies[p]);
        bound = bound || (d != NULL && d->upper_bound);
    }
    for (size_t p = 0; p < n_policies; p++) {
        fprintf(f, "%-22s", sim_policy_label(policies[p]));
        for (size_t k = 0; k < nc; k++) {
            double v = sim_metrics_mean(runs, n, policies[p], &c[k]);
            double d = sim_metrics_mean(runs, n, "default", &c[k]);
            if (isnan(v) || isnan(d) || d == 0)
                fprintf(f, " %12s", "-");
            else
                fprintf(f, " %12.3f", v / d);
        }
        fprintf(f, "\n");
    }
    if (bound)
        fprintf(f, "(upper bound): not shipped; assumes kube-scheduler's queue ordered by DSP "
                   "priority, a power no shipped component has\n");
}
