/* jobs_cmd.c: `get jobs` and `describe job` (see jobs_cmd.h). Tables like kubectl's, or JSON with
 * -o json; times relative to now, or absolute RFC 3339 in JSON (the job's creation, first start,
 * last finish and deadline; each task's creation, start and finish: cli_view_task_times). */
#include "jobs_cmd.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_view.h"
#include "eta_inputs.h"
#include "fmt.h"
#include "json_out.h"
#include "outlook.h"
#include "task_facts.h"
#include "tenants_cmd.h"
#include "term.h"
#include "view_flags.h"
#include "joborder.h"
#include "objects.h"
#include "writes.h"

#define UPSTREAM_NAMES_MAX 5 /* upstream tasks named in a reason, then "and N more" */

typedef cli_flags cmd_opts;
#define OUT_WIDE CLI_OUT_WIDE
#define OUT_JSON CLI_OUT_JSON

void jobs_cmd_usage(FILE *f)
{
    fprintf(f, "  get jobs [-n NS | -A] [-o wide|json]\n"
               "                                DAG jobs: tasks per state, deadline, slack,\n"
               "                                ETA, evictions\n"
               "  get tenants [-n NS | -A] [-o wide|json]\n"
               "                                tenants of spec.fairness: weight, cap, dominant\n"
               "                                and fair share, the jobs waiting for fair share\n"
               "                                (-n NS: NS's tenant only)\n"
               "  describe job NAME [-n NS] [-o json]\n"
               "                                every task of a job: state, pod, node, priority,\n"
               "                                level deadline, slack, and why it waits; the\n"
               "                                job's ETA and what it is based on\n");
}

/* ---- formatting */

static json_t *json_time(double at)
{
    if (!isfinite(at))
        return json_null();
    char b[64];
    kube_format_microtime(at, b, sizeof b);
    return json_string(b);
}

static json_t *json_num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* ---- what dagsched knows of a job */

typedef struct job_stats {
    size_t n[5]; /* per ds_task_state */
    size_t evictions;
    bool summarised;
    ds_job_summary sum;
    const char *status; /* Running, Stalled, Succeeded, Failed, Invalid */
} job_stats;

static void stats_of(const ctl_snapshot *s, const ds_job *j, job_stats *st)
{
    memset(st, 0, sizeof *st);
    for (size_t k = 0; k < j->n_pods; k++)
        if (j->pods[k] < s->n_pod && !isnan(s->pod[j->pods[k]].evicted_at))
            st->evictions++;
    if (!j->valid) {
        st->status = "Invalid";
        return;
    }
    for (size_t t = 0; t < j->dag.n; t++)
        if ((unsigned)j->status[t].state < 5)
            st->n[j->status[t].state]++;
    ds_err err = {{0}};
    st->summarised =
        ds_job_summarise(&j->dag, j->status, j->eval, j->deadline, s->now, &st->sum, &err) == 0;
    if (st->n[DS_TASK_FAILED] > 0)
        st->status = "Failed";
    else if (st->n[DS_TASK_SUCCEEDED] == j->dag.n)
        st->status = "Succeeded";
    else if (j->stalled != NULL)
        st->status = "Stalled";
    else
        st->status = "Running";
}

/* Why a task that has not finished is where it is, in words. */
static void why_of(const ctl_snapshot *s, const ds_job *j, size_t t, char *buf, size_t size)
{
    const ds_dag_task *task = &j->dag.tasks[t];
    const ctl_pod *p = cli_view_task_pod(s, j, t);
    buf[0] = '\0';
    switch (j->status[t].state) {
    case DS_TASK_BLOCKED: {
        if (j->missing != NULL && j->missing[t]) {
            snprintf(buf, size, "no pod carries this task yet (a task after it depends on it)");
            return;
        }
        size_t off = (size_t)snprintf(buf, size, "waiting for upstream tasks: ");
        size_t named = 0, more = 0;
        for (size_t u = 0; u < task->n_up; u++) {
            size_t up = task->up[u];
            if (j->status[up].state == DS_TASK_SUCCEEDED)
                continue;
            if (named == UPSTREAM_NAMES_MAX) {
                more++;
                continue;
            }
            if (off < size)
                off += (size_t)snprintf(
                    buf + off, size - off, "%s%s%s", named ? ", " : "", j->dag.tasks[up].name,
                    j->missing != NULL && j->missing[up] ? DS_MISSING_TASK_NOTE : "");
            named++;
        }
        if (more > 0 && off < size)
            snprintf(buf + off, size - off, " and %zu more", more);
        return;
    }
    case DS_TASK_WAITING:
        break;
    default:
        return;
    }
    if (p == NULL) {
        if (j->graph == NULL && j->workflow != NULL)
            snprintf(buf, size, "no pod yet (Argo creates it; declared by Workflow %s)",
                     j->workflow);
        else
            snprintf(buf, size, "no pod yet (declared by JobGraph %s)",
                     j->graph != NULL ? j->graph : "?");
        return;
    }
    const char *reason = kube_meta_annotation(s->pods.items[p - s->pod], DS_ANN_WAITING_REASON);
    switch (p->state) {
    case CTL_POD_GATED:
        if (reason != NULL && reason[0] != '\0') {
            char line[1024];
            snprintf(buf, size, "gated: %s", cli_oneline(reason, line, sizeof line));
        } else if (p->task.queue_pos != SIZE_MAX)
            snprintf(buf, size, "gated: position %zu of %zu in the release queue",
                     p->task.queue_pos + 1, s->js.n_waiting);
        else
            snprintf(buf, size, "gated: waiting for the controller");
        return;
    case CTL_POD_UNSCHEDULABLE:
        snprintf(buf, size,
                 "unschedulable: kube-scheduler found no node (kubectl describe pod "
                 "%s)",
                 p->name);
        return;
    case CTL_POD_PENDING:
        snprintf(buf, size, "released, waiting for kube-scheduler");
        return;
    default:
        return;
    }
}

/* ---- get jobs */

/* The job's first task start and, once every task has ended, its last task finish. */
static void job_span(const ctl_snapshot *s, const ds_job *j, double *started, double *finished)
{
    *started = *finished = NAN;
    bool ended = j->valid;
    for (size_t t = 0; j->valid && t < j->dag.n; t++) {
        cli_task_times tt;
        cli_view_task_times(s, j, t, &tt);
        if (isfinite(tt.started) && !(tt.started >= *started))
            *started = tt.started;
        ds_task_state k = j->status[t].state;
        if (k != DS_TASK_SUCCEEDED && k != DS_TASK_FAILED)
            ended = false;
        else if (isfinite(tt.finished) && !(tt.finished <= *finished))
            *finished = tt.finished;
    }
    if (!ended)
        *finished = NAN;
}

/* The job's outlook (outlook.h): finished with its makespan and deadline margin, or its ETA and
 * what it is based on (eta: the room and the release queue); finished as job_span gives it. 0, or
 * -1 with the error printed (out of memory). */
static int job_outlook(const cli_view *v, const cli_eta_inputs *eta, const ds_job *j,
                       const job_stats *st, double finished, cli_outlook *out)
{
    bool ended = j->valid && st->n[DS_TASK_SUCCEEDED] + st->n[DS_TASK_FAILED] == j->dag.n;
    if (ended && isnan(finished))
        finished = INFINITY; /* ended, when not known */
    cli_eta basis;
    bool known = !ended && st->summarised;
    ds_err err = {{0}};
    if (known && cli_eta_of_job(eta, v, j, st->sum.remaining_path_s, &basis, &err) != 0) {
        fprintf(stderr, "kubectl-dagsched: %s\n", err.msg);
        return -1;
    }
    cli_outlook_of(j->created_at, finished, j->deadline, v->snap.now, known ? &basis : NULL, out);
    return 0;
}

/* What the ETA is based on, for -o json. */
static json_t *eta_basis_json(const cli_outlook *ol, double now)
{
    const cli_eta *b = &ol->basis;
    char text[1024];
    cli_outlook_text(ol, now, text, sizeof text);
    return json_pack("{s:o,s:o,s:i,s:o,s:o,s:o,s:b,s:o,s:s}", "remainingCriticalPathSeconds",
                     json_num(b->path_s), "roomDelaySeconds", json_num(b->delay_s), "readyTasks",
                     (json_int_t)b->n_ready, "waitingTask",
                     b->wait_task != NULL ? json_string(b->wait_task) : json_null(),
                     "roomWaitSeconds", b->wait_task != NULL ? json_num(b->wait_s) : json_null(),
                     "tasksBefore",
                     b->wait_task != NULL ? json_integer((json_int_t)b->wait_ahead) : json_null(),
                     "lowerBound", b->lower_bound, "notForecast",
                     b->lower_bound ? json_string(b->why) : json_null(), "text", text);
}

/* The job as -o json gives it; NULL on allocation failure. */
static json_t *job_json(const cli_view *v, const cli_eta_inputs *eta, const ds_job *j,
                        const job_stats *st)
{
    const ctl_snapshot *s = &v->snap;
    json_t *o = json_object();
    if (o == NULL)
        return NULL;
    double started, finished;
    job_span(s, j, &started, &finished);
    json_object_set_new(o, "namespace", json_string(j->ns));
    json_object_set_new(o, "name", json_string(j->name));
    json_object_set_new(o, "status", json_string(st->status));
    json_object_set_new(o, "graph", j->graph != NULL ? json_string(j->graph) : json_null());
    json_object_set_new(o, "workflow",
                        j->workflow != NULL ? json_string(j->workflow) : json_null());
    json_object_set_new(o, "created", json_time(j->created_at));
    json_object_set_new(o, "started", json_time(started));
    json_object_set_new(o, "finished", json_time(finished));
    if (!j->valid) {
        json_object_set_new(o, "error", json_string(j->error != NULL ? j->error : ""));
    } else {
        if (j->stalled != NULL)
            json_object_set_new(o, "stalled", json_string(j->stalled));
        json_t *states = json_object();
        for (int k = 0; k < 5; k++)
            json_object_set_new(states, ds_task_state_name((ds_task_state)k),
                                json_integer((json_int_t)st->n[k]));
        json_object_set_new(o, "tasks", json_integer((json_int_t)j->dag.n));
        json_object_set_new(o, "taskStates", states);
        json_object_set_new(o, "deadline", json_time(j->deadline));
        json_object_set_new(o, "slackSeconds", json_num(st->summarised ? st->sum.slack_s : NAN));
        json_object_set_new(o, "remainingCriticalPathSeconds",
                            json_num(st->summarised ? st->sum.remaining_path_s : NAN));
        cli_outlook ol;
        if (job_outlook(v, eta, j, st, finished, &ol) != 0) {
            json_decref(o);
            return NULL;
        }
        json_object_set_new(o, "eta", json_time(ol.eta));
        json_object_set_new(o, "etaBasis",
                            isfinite(ol.eta) ? eta_basis_json(&ol, s->now) : json_null());
        json_object_set_new(o, "makespanSeconds", json_num(ol.makespan_s));
        json_object_set_new(o, "deadlineMarginSeconds", json_num(ol.margin_s));
    }
    json_object_set_new(o, "evictions", json_integer((json_int_t)st->evictions));
    return o;
}

static int get_jobs(const cmd_opts *o, const cli_view *v, const cli_eta_inputs *eta)
{
    char line[1024];
    const ctl_snapshot *s = &v->snap;
    bool all = v->ns[0] == '\0';
    if (o->out == OUT_JSON) {
        json_t *items = json_array();
        for (size_t i = 0; items != NULL && i < s->js.n_jobs; i++) {
            if (!cli_view_shows(v, &s->js.jobs[i]))
                continue;
            job_stats st;
            stats_of(s, &s->js.jobs[i], &st);
            json_t *jo = job_json(v, eta, &s->js.jobs[i], &st);
            if (jo == NULL || json_array_append_new(items, jo) != 0) {
                json_decref(items);
                items = NULL;
            }
        }
        json_t *doc =
            items != NULL ? json_pack("{s:s,s:o}", "kind", "DagJobList", "items", items) : NULL;
        if (doc == NULL) {
            fprintf(stderr, "kubectl-dagsched: out of memory\n");
            return 1;
        }
        if (v->policy.source[0] != '\0')
            json_object_set_new(doc, "policy", json_string(v->policy.source));
        return cli_print_json(doc, JSON_SORT_KEYS);
    }
    size_t shown = 0;
    for (size_t i = 0; i < s->js.n_jobs; i++)
        shown += cli_view_shows(v, &s->js.jobs[i]);
    if (shown == 0) {
        if (all)
            fprintf(stderr, "No DAG jobs found.\n");
        else
            fprintf(stderr, "No DAG jobs found in %s namespace.\n", v->ns);
        return 0;
    }
    if (all)
        printf("%-20s ", "NAMESPACE");
    printf("%-28s %-10s %5s %5s %7s %7s %7s %6s %-18s %-9s %-9s %s\n", "JOB", "STATUS", "TASKS",
           "DONE", "RUNNING", "WAITING", "BLOCKED", "FAILED", "DEADLINE", "SLACK", "ETA",
           "EVICTIONS");
    for (size_t i = 0; i < s->js.n_jobs; i++) {
        const ds_job *j = &s->js.jobs[i];
        if (!cli_view_shows(v, j))
            continue;
        job_stats st;
        stats_of(s, j, &st);
        if (all)
            printf("%-20s ", j->ns);
        char dl[48] = "-", sl[32] = "-", at[48] = "-";
        if (j->valid) {
            cli_fmt_until(j->deadline, s->now, dl, sizeof dl);
            if (st.summarised && st.status[0] == 'R')
                cli_fmt_dur(st.sum.slack_s, sl, sizeof sl);
            double started, finished;
            job_span(s, j, &started, &finished);
            cli_outlook ol;
            if (job_outlook(v, eta, j, &st, finished, &ol) != 0)
                return 1;
            cli_outlook_eta_cell(&ol, s->now, at, sizeof at);
            printf("%-28s %-10s %5zu %5zu %7zu %7zu %7zu %6zu %-18s %-9s %-9s %zu\n", j->name,
                   st.status, j->dag.n, st.n[DS_TASK_SUCCEEDED], st.n[DS_TASK_RUNNING],
                   st.n[DS_TASK_WAITING], st.n[DS_TASK_BLOCKED], st.n[DS_TASK_FAILED], dl, sl, at,
                   st.evictions);
        } else {
            printf("%-28s %-10s %5s %5s %7s %7s %7s %6s %-18s %-9s %-9s %zu\n", j->name, st.status,
                   "-", "-", "-", "-", "-", "-", "-", "-", "-", st.evictions);
        }
        if (o->out == OUT_WIDE && !j->valid)
            printf("    error: %s\n", cli_oneline(j->error, line, sizeof line));
        else if (o->out == OUT_WIDE && j->stalled != NULL)
            printf("    stalled: %s\n", cli_oneline(j->stalled, line, sizeof line));
    }
    return 0;
}

/* ---- describe job */

static int describe_job(const cmd_opts *o, const cli_view *v, const cli_eta_inputs *eta,
                        const char *name)
{
    char line[1024];
    const ctl_snapshot *s = &v->snap;
    const ds_job *j = cli_view_find_job(s, v->ns, name);
    if (j == NULL) {
        fprintf(stderr, "kubectl-dagsched: DAG job \"%s\" not found in %s%s\n", name,
                v->ns[0] ? "namespace " : "any namespace", v->ns);
        return 1;
    }
    job_stats st;
    stats_of(s, j, &st);
    if (o->out == OUT_JSON) {
        json_t *doc = job_json(v, eta, j, &st);
        json_t *tasks = json_array();
        if (doc == NULL || tasks == NULL) {
            json_decref(doc);
            json_decref(tasks);
            fprintf(stderr, "kubectl-dagsched: out of memory\n");
            return 1;
        }
        for (size_t t = 0; j->valid && t < j->dag.n; t++) {
            const ctl_pod *p = cli_view_task_pod(s, j, t);
            char why[512];
            why_of(s, j, t, why, sizeof why);
            const ds_task_eval *e = &j->eval[t];
            cli_task_times tt;
            cli_view_task_times(s, j, t, &tt);
            json_t *to = json_pack(
                "{s:s,s:i,s:s,s:o,s:o,s:o,s:o,s:o,s:s,s:o,s:o,s:o}", "name", j->dag.tasks[t].name,
                "level", j->dag.tasks[t].level, "state", ds_task_state_name(j->status[t].state),
                "pod", p ? json_string(p->name) : json_null(), "node",
                p && p->node[0] ? json_string(p->node) : json_null(), "priority",
                json_num(e->priority), "levelDeadline", json_time(e->level_deadline),
                "slackSeconds", json_num(e->t_allow_s), "why", why, "created",
                json_time(tt.created), "started", json_time(tt.started), "finished",
                json_time(tt.finished));
            if (to == NULL || json_array_append_new(tasks, to) != 0) {
                json_decref(tasks);
                json_decref(doc);
                fprintf(stderr, "kubectl-dagsched: out of memory\n");
                return 1;
            }
        }
        if (json_object_set_new(doc, "taskList", tasks) != 0) {
            json_decref(doc);
            fprintf(stderr, "kubectl-dagsched: out of memory\n");
            return 1;
        }
        return cli_print_json(doc, JSON_SORT_KEYS);
    }
    char dl[48] = "-", sl[32] = "-", rp[32] = "-";
    printf("Name:        %s\nNamespace:   %s\nStatus:      %s\n", j->name, j->ns, st.status);
    if (!j->valid) {
        printf("Error:       %s\n", cli_oneline(j->error, line, sizeof line));
        printf("Evictions:   %zu\n", st.evictions);
        return 0;
    }
    if (j->stalled != NULL)
        printf("Stalled:     %s\n", cli_oneline(j->stalled, line, sizeof line));
    cli_fmt_until(j->deadline, s->now, dl, sizeof dl);
    double started, finished;
    job_span(s, j, &started, &finished);
    cli_outlook ol;
    if (job_outlook(v, eta, j, &st, finished, &ol) != 0)
        return 1;
    char olt[1024];
    cli_outlook_text(&ol, s->now, olt, sizeof olt);
    printf("Deadline:    %s\n", dl);
    if (ol.ended) {
        printf("Finished:    %s\n", olt);
    } else {
        if (st.summarised) {
            cli_fmt_dur(st.sum.slack_s, sl, sizeof sl);
            cli_fmt_dur(st.sum.remaining_path_s, rp, sizeof rp);
        }
        printf("Slack:       %s (deadline - now - remaining critical path %s)\nETA:         %s\n",
               sl, rp, olt);
    }
    printf("Tasks:       %zu (%zu succeeded, %zu running, %zu waiting, %zu blocked, %zu failed)\n",
           j->dag.n, st.n[DS_TASK_SUCCEEDED], st.n[DS_TASK_RUNNING], st.n[DS_TASK_WAITING],
           st.n[DS_TASK_BLOCKED], st.n[DS_TASK_FAILED]);
    printf("Evictions:   %zu\nPolicy:      %s\n\n", st.evictions, v->policy.source);
    printf("%-20s %5s %-10s %-28s %-14s %10s %-18s %-9s %s\n", "TASK", "LEVEL", "STATE", "POD",
           "NODE", "PRIORITY", "LEVEL-DEADLINE", "SLACK", "WHY");
    for (size_t k = 0; k < j->dag.n; k++) {
        size_t t = j->dag.topo[k];
        const ctl_pod *p = cli_view_task_pod(s, j, t);
        const ds_task_eval *e = &j->eval[t];
        char ld[48], tsl[32] = "-", why[512], prio[32] = "-";
        cli_fmt_until(e->level_deadline, s->now, ld, sizeof ld);
        if (j->status[t].state != DS_TASK_SUCCEEDED && j->status[t].state != DS_TASK_FAILED)
            cli_fmt_dur(e->t_allow_s, tsl, sizeof tsl);
        if (isfinite(e->priority))
            snprintf(prio, sizeof prio, "%.3g", e->priority);
        why_of(s, j, t, why, sizeof why);
        printf("%-20s %5d %-10s %-28s %-14s %10s %-18s %-9s %s\n", j->dag.tasks[t].name,
               j->dag.tasks[t].level, ds_task_state_name(j->status[t].state), p ? p->name : "-",
               p && p->node[0] ? p->node : "-", prio, ld, tsl, why[0] ? why : "-");
    }
    cli_print_runtimes(v, j);
    cli_print_task_times(v, j);
    return 0;
}

int jobs_cmd(int argc, char **argv)
{
    bool get = strcmp(argv[0], "get") == 0;
    cmd_opts o;
    int first;
    const char *usage =
        get ? "usage: kubectl dagsched get jobs|tenants [-n NS | -A] [-o wide|json]\n"
            : "usage: kubectl dagsched describe job NAME [-n NS] [-o json]\n";
    /* getopt permutes: the resource and NAME may come before or after the flags. */
    int rc = cli_parse_view_flags(argc, argv, get ? CLI_FLAGS_GET : CLI_FLAGS_DESCRIBE, usage, &o,
                                  &first);
    if (rc != RT_FLAGS_RUN)
        return rc;
    int npos = argc - first;
    const char *what = npos >= 1 ? argv[first] : NULL;
    const char *name = npos >= 2 ? argv[first + 1] : NULL;
    if (get && npos == 1 && (strcmp(what, "tenants") == 0 || strcmp(what, "tenant") == 0))
        return tenants_cmd_get(&o);
    if ((get &&
         (what == NULL || npos != 1 || (strcmp(what, "jobs") != 0 && strcmp(what, "job") != 0))) ||
        (!get && (what == NULL || strcmp(what, "job") != 0 || npos != 2))) {
        fputs(usage, stderr);
        return RT_EXIT_USAGE;
    }
    /* Every namespace where allowed: the release queue and the room the ETA counts. */
    o.v.wide = true;
    cli_view v;
    if (cli_view_load_or_report(&o.v, &v) != 0)
        return 1;
    char missing[480] = "";
    if (!v.nodes_listed)
        snprintf(missing, sizeof missing, "the nodes cannot be listed");
    else if (!v.wide)
        snprintf(missing, sizeof missing, "the pods of other namespaces cannot be listed");
    cli_eta_inputs eta;
    ds_err err = {{0}};
    if (cli_eta_inputs_build(&v, missing[0] ? missing : NULL, &eta, &err) != 0) {
        fprintf(stderr, "kubectl-dagsched: %s\n", err.msg);
        cli_view_free(&v);
        return 1;
    }
    rc = get ? get_jobs(&o, &v, &eta) : describe_job(&o, &v, &eta, name);
    if (o.out != OUT_JSON && v.policy_note[0] != '\0')
        fprintf(stderr, "note: %s\n", v.policy_note);
    if (o.out != OUT_JSON && v.wide_note[0] != '\0')
        fprintf(stderr, "note: %s\n", v.wide_note);
    cli_eta_inputs_free(&eta);
    cli_view_free(&v);
    return rc;
}
