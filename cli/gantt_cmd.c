/* gantt_cmd.c: `kubectl dagsched gantt JOB` (see gantt_cmd.h): reads the job and draws it with
 * gantt_chart.h. A task's times are its pod's, or its Argo node's once podGC deleted the pod
 * (cli_view_task_times). */
#include "gantt_cmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gantt_chart.h"
#include "view_flags.h"

void gantt_cmd_usage(FILE *f)
{
    fprintf(f, "  gantt JOB [-n NS] [--width N] [--svg FILE]\n"
               "                                where and when each task ran: a chart in the\n"
               "                                terminal, or an SVG file\n");
}

/* The chart's rows of job j in dependency order (rows has j->dag.n entries). */
static void build(const ctl_snapshot *s, const ds_job *j, cli_gantt_row *rows, cli_gantt *c)
{
    memset(c, 0, sizeof *c);
    c->ns = j->ns;
    c->name = j->name;
    c->rows = rows;
    c->created = j->created_at;
    c->deadline = j->deadline;
    c->now = s->now;
    for (size_t k = 0; k < j->dag.n; k++) {
        size_t t = j->dag.topo[k];
        cli_gantt_row *r = &rows[c->n++];
        const ctl_pod *p = cli_view_task_pod(s, j, t);
        r->task = j->dag.tasks[t].name;
        r->node = p != NULL && p->node[0] ? p->node : "-";
        cli_task_times tt;
        cli_view_task_times(s, j, t, &tt);
        r->created = tt.created;
        r->started = tt.started;
        r->finished = tt.finished;
        r->failed = j->status[t].state == DS_TASK_FAILED;
        if (j->status[t].state != DS_TASK_SUCCEEDED && j->status[t].state != DS_TASK_FAILED)
            c->running = true;
    }
    cli_gantt_scale(c);
}

static int svg(const cli_gantt *c, const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "kubectl-dagsched: %s: %s\n", path, strerror(errno));
        return 1;
    }
    cli_gantt_svg(c, f);
    if (fclose(f) != 0) {
        fprintf(stderr, "kubectl-dagsched: %s: %s\n", path, strerror(errno));
        return 1;
    }
    printf("wrote %s (%zu tasks)\n", path, c->n);
    return 0;
}

int gantt_cmd(int argc, char **argv)
{
    cli_flags o;
    int first;
    static const char usage[] =
        "usage: kubectl dagsched gantt JOB [-n NS] [--width N] [--svg FILE]\n";
    int rc = cli_parse_view_flags(argc, argv, CLI_FLAGS_GANTT, usage, &o, &first);
    if (rc != RT_FLAGS_RUN)
        return rc;
    if (argc - first != 1) {
        fputs(usage, stderr);
        return RT_EXIT_USAGE;
    }
    const char *name = argv[first];
    cli_view v;
    if (cli_view_load_or_report(&o.v, &v) != 0)
        return 1;
    rc = 0;
    const ds_job *j = cli_view_find_job(&v.snap, v.ns, name);
    cli_gantt c = {0};
    cli_gantt_row *rows = NULL;
    if (j == NULL) {
        fprintf(stderr, "kubectl-dagsched: DAG job \"%s\" not found in namespace %s\n", name, v.ns);
        rc = 1;
    } else if (!j->valid) {
        fprintf(stderr, "kubectl-dagsched: job %s cannot be scheduled as a DAG: %s\n", name,
                j->error != NULL ? j->error : "");
        rc = 1;
    } else if ((rows = calloc(j->dag.n ? j->dag.n : 1, sizeof *rows)) == NULL) {
        fprintf(stderr, "kubectl-dagsched: out of memory\n");
        rc = 1;
    } else {
        build(&v.snap, j, rows, &c);
        if (o.svg != NULL)
            rc = svg(&c, o.svg);
        else
            cli_gantt_text(&c, o.width, stdout);
    }
    free(rows);
    cli_view_free(&v);
    return rc;
}
