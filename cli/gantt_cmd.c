/* gantt_cmd.c: `kubectl dagsched gantt JOB` (see gantt_cmd.h). The time axis runs from the job's
 * creation to the latest of now (while the job runs), its last finish and its deadline. A task's
 * times are its pod's, or its Argo node's once podGC deleted the pod (cli_view_task_times). */
#include "gantt_cmd.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "view_flags.h"
#include "xml_escape.h"

#define NAME_COL 24
#define NODE_COL 14

void gantt_cmd_usage(FILE *f)
{
    fprintf(f, "  gantt JOB [-n NS] [--width N] [--svg FILE]\n"
               "                                where and when each task ran: a chart in the\n"
               "                                terminal, or an SVG file\n");
}

typedef struct row {
    const char *task, *node;
    int level;
    double created, started, finished; /* NAN when not (yet) */
    bool failed;
} row;

typedef struct chart {
    row *rows;
    size_t n;
    double t0, t1, deadline;
} chart;

static int build(const ctl_snapshot *s, const ds_job *j, chart *c)
{
    memset(c, 0, sizeof *c);
    c->rows = calloc(j->dag.n ? j->dag.n : 1, sizeof *c->rows);
    if (c->rows == NULL)
        return -1;
    c->t0 = isfinite(j->created_at) ? j->created_at : s->now;
    c->deadline = j->deadline;
    double end = -INFINITY;
    bool running = false;
    for (size_t k = 0; k < j->dag.n; k++) {
        size_t t = j->dag.topo[k];
        row *r = &c->rows[c->n++];
        const ctl_pod *p = cli_view_task_pod(s, j, t);
        r->task = j->dag.tasks[t].name;
        r->level = j->dag.tasks[t].level;
        r->node = p != NULL && p->node[0] ? p->node : "-";
        cli_task_times tt;
        cli_view_task_times(s, j, t, &tt);
        r->created = tt.created;
        r->started = tt.started;
        r->finished = tt.finished;
        r->failed = j->status[t].state == DS_TASK_FAILED;
        if (isfinite(r->created) && r->created < c->t0)
            c->t0 = r->created;
        if (isfinite(r->finished) && r->finished > end)
            end = r->finished;
        if (j->status[t].state != DS_TASK_SUCCEEDED && j->status[t].state != DS_TASK_FAILED)
            running = true;
    }
    c->t1 = running || !isfinite(end) ? s->now : end;
    if (isfinite(c->deadline) && c->deadline > c->t1)
        c->t1 = c->deadline;
    if (!(c->t1 > c->t0))
        c->t1 = c->t0 + 1;
    return 0;
}

static int col_of(const chart *c, double t, int width)
{
    int x = (int)floor((t - c->t0) / (c->t1 - c->t0) * width);
    return x < 0 ? 0 : x >= width ? width - 1 : x;
}

static void terminal(const chart *c, const ds_job *j, double now, int width)
{
    char span[32], dl[48];
    cli_fmt_dur(c->t1 - c->t0, span, sizeof span);
    cli_fmt_until(c->deadline, now, dl, sizeof dl);
    printf("Job %s/%s: %s shown, deadline %s\n", j->ns, j->name, span, dl);
    printf("'.' waiting (pod created, not started)  '#' running or done  'x' failed  '|' "
           "deadline\n\n");
    char *line = malloc((size_t)width + 1);
    if (line == NULL)
        return;
    int dcol = isfinite(c->deadline) ? col_of(c, c->deadline, width) : -1;
    for (size_t i = 0; i < c->n; i++) {
        const row *r = &c->rows[i];
        memset(line, ' ', (size_t)width);
        line[width] = '\0';
        if (isfinite(r->created)) {
            double run_from = isfinite(r->started) ? r->started : now;
            for (int x = col_of(c, r->created, width); x <= col_of(c, run_from, width); x++)
                line[x] = '.';
        }
        if (isfinite(r->started)) {
            double until = isfinite(r->finished) ? r->finished : now;
            for (int x = col_of(c, r->started, width); x <= col_of(c, until, width); x++)
                line[x] = r->failed ? 'x' : '#';
        }
        if (dcol >= 0 && line[dcol] == ' ')
            line[dcol] = '|';
        printf("%-*.*s %-*.*s %s\n", NAME_COL, NAME_COL, r->task, NODE_COL, NODE_COL, r->node,
               line);
    }
    free(line);
}

static void xml_text(FILE *f, const char *s)
{
    char buf[1024];
    fputs(ds_xml_escape(s, buf, sizeof buf), f);
}

static int svg(const chart *c, const ds_job *j, double now, const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "kubectl-dagsched: %s: %s\n", path, strerror(errno));
        return 1;
    }
    const double left = 260, plot = 700, rowh = 22;
    double h = 60 + rowh * (double)c->n + 30;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n",
            left + plot + 20, h);
    fprintf(f, "<text x=\"10\" y=\"24\" font-size=\"16\">DAG job ");
    xml_text(f, j->ns);
    fputc('/', f);
    xml_text(f, j->name);
    char span[32];
    cli_fmt_dur(c->t1 - c->t0, span, sizeof span);
    fprintf(f, " (%s)</text>\n", span);
#define X(t) (left + ((t)-c->t0) / (c->t1 - c->t0) * plot)
    for (size_t i = 0; i < c->n; i++) {
        const row *r = &c->rows[i];
        double y = 50 + rowh * (double)i;
        fprintf(f, "<text x=\"10\" y=\"%.1f\">", y + 15);
        xml_text(f, r->task);
        fprintf(f, " <tspan fill=\"#666\">");
        xml_text(f, r->node);
        fprintf(f, "</tspan></text>\n");
        if (isfinite(r->created)) {
            double to = isfinite(r->started) ? r->started : now;
            fprintf(f,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#ddd\">"
                    "<title>waiting</title></rect>\n",
                    X(r->created), y + 4, fmax(X(to) - X(r->created), 1), rowh - 8);
        }
        if (isfinite(r->started)) {
            double until = isfinite(r->finished) ? r->finished : now;
            fprintf(f,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                    "<title>%s</title></rect>\n",
                    X(r->started), y + 2, fmax(X(until) - X(r->started), 1), rowh - 4,
                    r->failed ? "#d62728" : "#1f77b4", r->failed ? "failed" : "ran");
        }
    }
    if (isfinite(c->deadline))
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"40\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" "
                "stroke-dasharray=\"4 3\"/><text x=\"%.1f\" y=\"38\" fill=\"#d62728\">deadline"
                "</text>\n",
                X(c->deadline), X(c->deadline), h - 20, X(c->deadline) - 24);
#undef X
    fprintf(f, "</svg>\n");
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
    int rc =
        cli_parse_view_flags(argc, argv, CLI_F_SVG | CLI_F_WIDTH | CLI_F_POLICY, usage, &o, &first);
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
    chart c = {0};
    if (j == NULL) {
        fprintf(stderr, "kubectl-dagsched: DAG job \"%s\" not found in namespace %s\n", name, v.ns);
        rc = 1;
    } else if (!j->valid) {
        fprintf(stderr, "kubectl-dagsched: job %s cannot be scheduled as a DAG: %s\n", name,
                j->error != NULL ? j->error : "");
        rc = 1;
    } else if (build(&v.snap, j, &c) != 0) {
        fprintf(stderr, "kubectl-dagsched: out of memory\n");
        rc = 1;
    } else if (o.svg != NULL) {
        rc = svg(&c, j, v.snap.now, o.svg);
    } else {
        terminal(&c, j, v.snap.now, o.width);
    }
    free(c.rows);
    cli_view_free(&v);
    return rc;
}
