/* gantt_chart.c: the gantt chart as text and SVG (see gantt_chart.h). The time axis runs from the
 * job's creation to the latest of now (while the job runs), its last finish and its deadline. */
#include "gantt_chart.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "xml_escape.h"

#define NAME_COL 24
#define NODE_COL 14

void cli_gantt_scale(cli_gantt *c)
{
    c->t0 = isfinite(c->created) ? c->created : c->now;
    double end = -INFINITY;
    for (size_t i = 0; i < c->n; i++) {
        const cli_gantt_row *r = &c->rows[i];
        if (isfinite(r->created) && r->created < c->t0)
            c->t0 = r->created;
        if (isfinite(r->finished) && r->finished > end)
            end = r->finished;
    }
    c->t1 = c->running || !isfinite(end) ? c->now : end;
    if (isfinite(c->deadline) && c->deadline > c->t1)
        c->t1 = c->deadline;
    if (!(c->t1 > c->t0))
        c->t1 = c->t0 + 1;
}

static int col_of(const cli_gantt *c, double t, int width)
{
    int x = (int)floor((t - c->t0) / (c->t1 - c->t0) * width);
    return x < 0 ? 0 : x >= width ? width - 1 : x;
}

void cli_gantt_text(const cli_gantt *c, int width, FILE *out)
{
    char span[32], dl[48];
    double now = c->now;
    cli_fmt_dur(c->t1 - c->t0, span, sizeof span);
    cli_fmt_until(c->deadline, now, dl, sizeof dl);
    fprintf(out, "Job %s/%s: %s shown, deadline %s\n", c->ns, c->name, span, dl);
    fprintf(out, "'.' waiting (pod created, not started)  '#' running or done  'x' failed  '|' "
                 "deadline\n\n");
    char *line = malloc((size_t)width + 1);
    if (line == NULL)
        return;
    int dcol = isfinite(c->deadline) ? col_of(c, c->deadline, width) : -1;
    for (size_t i = 0; i < c->n; i++) {
        const cli_gantt_row *r = &c->rows[i];
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
        fprintf(out, "%-*.*s %-*.*s %s\n", NAME_COL, NAME_COL, r->task, NODE_COL, NODE_COL, r->node,
                line);
    }
    free(line);
}

static void xml_text(FILE *f, const char *s)
{
    char buf[1024];
    fputs(ds_xml_escape(s, buf, sizeof buf), f);
}

void cli_gantt_svg(const cli_gantt *c, FILE *f)
{
    double now = c->now;
    const double left = 260, plot = 700, rowh = 22;
    double h = 60 + rowh * (double)c->n + 30;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n",
            left + plot + 20, h);
    fprintf(f, "<text x=\"10\" y=\"24\" font-size=\"16\">DAG job ");
    xml_text(f, c->ns);
    fputc('/', f);
    xml_text(f, c->name);
    char span[32];
    cli_fmt_dur(c->t1 - c->t0, span, sizeof span);
    fprintf(f, " (%s)</text>\n", span);
#define X(t) (left + ((t)-c->t0) / (c->t1 - c->t0) * plot)
    for (size_t i = 0; i < c->n; i++) {
        const cli_gantt_row *r = &c->rows[i];
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
}
