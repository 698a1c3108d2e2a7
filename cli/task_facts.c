/* task_facts.c: the sections of `describe job` after its task table (see task_facts.h). */
#include "task_facts.h"

#include <math.h>
#include <stdio.h>

#include "fmt.h"

/* Where a task's run-time estimate comes from, in words. */
static void runtime_source(const cli_view *v, const ds_job *j, size_t t, char *buf, size_t size)
{
    const ctl_pod *p = cli_view_task_pod(&v->snap, j, t);
    char key[DS_RT_KEY_MAX];
    unsigned runs = 0;
    double est = ds_jobset_runtime_key(j, j->dag.tasks[t].name, key, sizeof key)
                     ? ds_rt_history_estimate(&v->learned, key, &runs)
                     : NAN;
    bool learned = isfinite(est) && fabs(est - j->dag.tasks[t].runtime_s) < 1e-3;
    if (j->node != NULL) {
        static const char *const src[] = {"template annotation " DS_ANN_RUNTIME,
                                          "Workflow annotation " DS_ANN_RUNTIME,
                                          "Argo estimatedDuration", "default (no history)"};
        unsigned k = (unsigned)j->node[t].runtime_source;
        if (j->node[t].runtime_source == DS_WF_RUNTIME_LEARNED)
            snprintf(buf, size, "learned from %u earlier run(s)", runs);
        else
            snprintf(buf, size, "%s", k < sizeof src / sizeof src[0] ? src[k] : "?");
    } else if (j->graph != NULL) {
        snprintf(buf, size, "JobGraph %s", j->graph);
    } else if (p != NULL && p->has_runtime) {
        snprintf(buf, size, "annotation " DS_ANN_RUNTIME);
    } else if (learned) {
        snprintf(buf, size, "learned from %u earlier run(s)", runs);
    } else {
        snprintf(buf, size, "default (no " DS_ANN_RUNTIME ", no history)");
    }
}

void cli_print_runtimes(const cli_view *v, const ds_job *j)
{
    printf("\nRun times (at reference speed):\n");
    for (size_t k = 0; k < j->dag.n; k++) {
        size_t t = j->dag.topo[k];
        char d[32], src[320];
        cli_fmt_dur(j->dag.tasks[t].runtime_s, d, sizeof d);
        runtime_source(v, j, t, src, sizeof src);
        char name[80];
        snprintf(name, sizeof name, "%s:", j->dag.tasks[t].name);
        printf("  %-21s %8s  %s\n", name, d, src);
    }
}

/* "started 5m ago" of an instant, or "-". */
static void ago(double at, double now, char *buf, size_t size)
{
    char d[32];
    if (!isfinite(at)) {
        snprintf(buf, size, "-");
        return;
    }
    cli_fmt_dur(now - at, d, sizeof d);
    snprintf(buf, size, "%s ago", d);
}

void cli_print_task_times(const cli_view *v, const ds_job *j)
{
    const ctl_snapshot *s = &v->snap;
    printf("\nTask times:\n");
    for (size_t k = 0; k < j->dag.n; k++) {
        size_t t = j->dag.topo[k];
        cli_task_times tt;
        cli_view_task_times(s, j, t, &tt);
        char name[80], started[48], ran[48] = "-";
        snprintf(name, sizeof name, "%s:", j->dag.tasks[t].name);
        ago(tt.started, s->now, started, sizeof started);
        if (isfinite(tt.started)) {
            char d[32];
            bool done = isfinite(tt.finished);
            cli_fmt_dur((done ? tt.finished : s->now) - tt.started, d, sizeof d);
            snprintf(ran, sizeof ran, "%s %s", done ? "ran" : "running for", d);
        }
        bool from_node =
            j->node != NULL && cli_view_task_pod(s, j, t) == NULL && isfinite(tt.started);
        if (from_node)
            printf("  %-21s started %-12s %-18s  (no pod: from the Workflow's status.nodes)\n",
                   name, started, ran);
        else
            printf("  %-21s started %-12s %s\n", name, started, ran);
    }
}
