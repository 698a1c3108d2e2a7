/* gantt_chart.c: the gantt chart as text and SVG (see gantt_chart.h).
 *
 * The axis spans the job: from its creation to its last finish (now while it runs), so a job of
 * 13 s fills the width as one of 13 hours does. A deadline up to a quarter of the job's span past
 * that end stretches the axis to it; a later one is named at the right edge instead of squeezing
 * the job into a corner. Tick labels count from the job's creation ("0s", "12s"; "1:30" for
 * minutes; "1:00:00" for hours), a step apart that leaves each label three blanks at least. */
#include "gantt_chart.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "xml_escape.h"

#define NAME_MIN       4 /* "TASK", "NODE" */
#define NAME_MAX       40
#define NODE_MAX       32
#define LABEL_GAP      3   /* blanks at least between two tick labels */
#define DEADLINE_REACH 4   /* the axis reaches a deadline within span / 4 after the job's end */
#define SVG_CHAR_W     7.0 /* a character of the SVG's 12 px sans-serif, roughly */

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
    if (!(c->t1 > c->t0))
        c->t1 = c->t0 + 1;
    double reach = c->t1 + (c->t1 - c->t0) / DEADLINE_REACH;
    if (isfinite(c->deadline) && c->deadline > c->t1 && c->deadline <= reach)
        c->t1 = c->deadline;
}

/* ---- time labels relative to the job's creation */

typedef enum { STYLE_S = 0, STYLE_MS, STYLE_HMS } label_style;

static label_style style_for(double seconds)
{
    double a = fabs(seconds);
    return a < 60 ? STYLE_S : a < 3600 ? STYLE_MS : STYLE_HMS;
}

/* "12s", "1:30", "1:00:00" (with sign when `sign` or negative); returns its length. */
static int rel_label(double s, label_style st, bool sign, char *buf, size_t size)
{
    long v = lround(fabs(s));
    const char *pre = s < 0 && v > 0 ? "-" : sign ? "+" : "";
    int n;
    if (st == STYLE_S)
        n = snprintf(buf, size, "%s%lds", pre, v);
    else if (st == STYLE_MS)
        n = snprintf(buf, size, "%s%ld:%02ld", pre, v / 60, v % 60);
    else
        n = snprintf(buf, size, "%s%ld:%02ld:%02ld", pre, v / 3600, v / 60 % 60, v % 60);
    return n < 0 ? 0 : n;
}

/* The tick step in seconds: the smallest round step whose ticks are a label and LABEL_GAP
 * blanks apart in `cols` columns. */
static double tick_step(double span, int cols, label_style st)
{
    static const double steps[] = {1,   2,   5,    10,   15,   20,   30,    60,    120,  300,
                                   600, 900, 1200, 1800, 3600, 7200, 10800, 21600, 43200};
    double step = 86400;
    for (size_t i = 0, k = 0; k < 64; k++) {
        if (i < sizeof steps / sizeof steps[0])
            step = steps[i++];
        else
            step *= 2;
        char lab[48];
        int len = rel_label(floor(span / step) * step, st, false, lab, sizeof lab);
        if (step / span * cols >= len + LABEL_GAP)
            break;
    }
    return step;
}

static int col_of(const cli_gantt *c, double t, int width)
{
    int x = (int)floor((t - c->t0) / (c->t1 - c->t0) * width);
    return x < 0 ? 0 : x >= width ? width - 1 : x;
}

/* "deadline +10:00 (in 8m20s)" or "no deadline"; the first line of the text, the SVG's title. */
static void summary(const cli_gantt *c, char *buf, size_t size)
{
    char span[32], dl[160] = "no deadline";
    cli_fmt_dur(c->t1 - c->t0, span, sizeof span);
    bool ended = false;
    for (size_t i = 0; !c->running && i < c->n; i++)
        ended = ended || isfinite(c->rows[i].finished);
    if (isfinite(c->deadline)) {
        char rel[48], until[48];
        double d = c->deadline - c->t0;
        rel_label(d, style_for(d), true, rel, sizeof rel);
        cli_fmt_until(c->deadline, c->now, until, sizeof until);
        snprintf(dl, sizeof dl, "deadline %s (%s)", rel, until);
    }
    snprintf(buf, size, "%s from its creation to %s; %s", span,
             c->running ? "now (running)"
             : ended    ? "its last finish"
                        : "now",
             dl);
}

/* ---- text */

/* s in exactly w columns: padded, or cut with '~' as its last character. */
static void cell(FILE *out, const char *s, int w)
{
    if ((int)strlen(s) <= w)
        fprintf(out, "%-*s ", w, s);
    else
        fprintf(out, "%.*s~ ", w - 1, s);
}

static int col_width(const cli_gantt *c, bool node, int max)
{
    int w = NAME_MIN;
    for (size_t i = 0; i < c->n; i++) {
        int l = (int)strlen(node ? c->rows[i].node : c->rows[i].task);
        w = l > w ? l : w;
    }
    return w < max ? w : max;
}

/* line without its trailing blanks. */
static void put_trimmed(FILE *out, char *line, int width)
{
    int n = width;
    while (n > 0 && line[n - 1] == ' ')
        n--;
    fprintf(out, "%.*s\n", n, line);
}

/* Tick labels into head, '+' marks into axis (width columns each). */
static void ticks(const cli_gantt *c, int width, char *head, char *axis)
{
    double span = c->t1 - c->t0;
    label_style st = style_for(span);
    double step = tick_step(span, width, st);
    memset(head, ' ', (size_t)width);
    memset(axis, '-', (size_t)width);
    int free_from = 0; /* the first column a label may use */
    for (long k = 0; k * step <= span + 1e-9; k++) {
        int x = col_of(c, c->t0 + (double)k * step, width);
        axis[x] = '+';
        char lab[48];
        int len = rel_label((double)k * step, st, false, lab, sizeof lab);
        if (x >= free_from && x + len <= width) {
            memcpy(head + x, lab, (size_t)len);
            free_from = x + len + 1;
        }
    }
}

/* The deadline's label under the chart: at its column, right of it when it fits, else left of it;
 * past the axis, against the edge it is beyond. The longest form that fits. */
static void deadline_line(const cli_gantt *c, int width, char *line)
{
    memset(line, ' ', (size_t)width);
    double d = c->deadline - c->t0;
    char rel[48], text[3][96];
    rel_label(d, style_for(d), true, rel, sizeof rel);
    int where = c->deadline > c->t1 ? 1 : c->deadline < c->t0 ? -1 : 0;
    if (where > 0) {
        snprintf(text[0], sizeof text[0], "deadline %s is after the chart's end >", rel);
        snprintf(text[1], sizeof text[1], "deadline %s >", rel);
        snprintf(text[2], sizeof text[2], ">");
    } else if (where < 0) {
        snprintf(text[0], sizeof text[0], "< deadline %s is before the job's creation", rel);
        snprintf(text[1], sizeof text[1], "< deadline %s", rel);
        snprintf(text[2], sizeof text[2], "<");
    } else {
        snprintf(text[0], sizeof text[0], "deadline %s", rel);
        snprintf(text[1], sizeof text[1], "deadline");
        text[2][0] = '\0';
    }
    int dcol = col_of(c, c->deadline, width);
    for (int i = 0; i < 3; i++) {
        int len = (int)strlen(text[i]);
        if (where > 0 && len <= width) {
            memcpy(line + width - len, text[i], (size_t)len);
            return;
        }
        if (where < 0 && len <= width) {
            memcpy(line, text[i], (size_t)len);
            return;
        }
        if (where != 0)
            continue;
        if (dcol + 2 + len <= width) { /* "^ deadline +3s" */
            line[dcol] = '^';
            memcpy(line + dcol + 2, text[i], (size_t)len);
            return;
        }
        if (dcol - 1 - len >= 0) { /* "deadline +13s ^" */
            memcpy(line + dcol - 1 - len, text[i], (size_t)len);
            line[dcol] = '^';
            return;
        }
    }
    line[dcol] = '^';
}

static void bars(const cli_gantt *c, const cli_gantt_row *r, int width, int dcol, char *line)
{
    memset(line, ' ', (size_t)width);
    if (isfinite(r->created)) {
        double run_from = isfinite(r->started) ? r->started : c->now;
        for (int x = col_of(c, r->created, width); x <= col_of(c, run_from, width); x++)
            line[x] = '.';
    }
    if (isfinite(r->started)) {
        double until = isfinite(r->finished) ? r->finished : c->now;
        for (int x = col_of(c, r->started, width); x <= col_of(c, until, width); x++)
            line[x] = r->failed ? 'x' : '#';
    }
    if (dcol >= 0 && line[dcol] == ' ')
        line[dcol] = '|';
}

void cli_gantt_text(const cli_gantt *c, int width, FILE *out)
{
    char head[320];
    summary(c, head, sizeof head);
    fprintf(out, "Job %s/%s: %s\n", c->ns, c->name, head);
    fprintf(out, "'.' waiting (pod created, not started)  '#' running or done  'x' failed  '|' "
                 "deadline\n\n");
    char *line = malloc((size_t)width + 1), *axis = malloc((size_t)width + 1);
    if (line == NULL || axis == NULL) {
        free(line);
        free(axis);
        return;
    }
    line[width] = axis[width] = '\0';
    int nw = col_width(c, false, NAME_MAX), dw = col_width(c, true, NODE_MAX);
    ticks(c, width, line, axis);
    cell(out, "TASK", nw);
    cell(out, "NODE", dw);
    put_trimmed(out, line, width);
    fprintf(out, "%*s%s\n", nw + dw + 2, "", axis);
    bool on_axis = isfinite(c->deadline) && c->deadline >= c->t0 && c->deadline <= c->t1;
    int dcol = on_axis ? col_of(c, c->deadline, width) : -1;
    for (size_t i = 0; i < c->n; i++) {
        bars(c, &c->rows[i], width, dcol, line);
        cell(out, c->rows[i].task, nw);
        cell(out, c->rows[i].node, dw);
        fprintf(out, "%s\n", line);
    }
    if (isfinite(c->deadline)) {
        deadline_line(c, width, line);
        fprintf(out, "%*s", nw + dw + 2, "");
        put_trimmed(out, line, width);
    }
    free(line);
    free(axis);
}

/* ---- SVG */

static void xml_text(FILE *f, const char *s)
{
    char buf[1024];
    fputs(ds_xml_escape(s, buf, sizeof buf), f);
}

typedef struct svg_frame {
    double left, plot, top, rowh, h;
} svg_frame;

static double svg_x(const cli_gantt *c, const svg_frame *fr, double t)
{
    double x = fr->left + (t - c->t0) / (c->t1 - c->t0) * fr->plot;
    return fmin(fmax(x, fr->left), fr->left + fr->plot);
}

static void svg_axis(const cli_gantt *c, const svg_frame *fr, FILE *f)
{
    double span = c->t1 - c->t0;
    label_style st = style_for(span);
    double step = tick_step(span, (int)(fr->plot / SVG_CHAR_W), st);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/>\n",
            fr->left, fr->top, fr->left + fr->plot, fr->top);
    for (long k = 0; k * step <= span + 1e-9; k++) {
        double x = svg_x(c, fr, c->t0 + (double)k * step);
        char lab[48];
        int len = rel_label((double)k * step, st, false, lab, sizeof lab);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/>\n", x,
                fr->top - 5, x, fr->top);
        if (x + 2 + len * SVG_CHAR_W <= fr->left + fr->plot)
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#666\">%s</text>\n", x + 2, fr->top - 7,
                    lab);
    }
}

static void svg_deadline(const cli_gantt *c, const svg_frame *fr, FILE *f)
{
    if (!isfinite(c->deadline))
        return;
    double d = c->deadline - c->t0, x = svg_x(c, fr, c->deadline), y = fr->h - 10;
    char rel[48], text[128];
    rel_label(d, style_for(d), true, rel, sizeof rel);
    bool after = c->deadline > c->t1, before = c->deadline < c->t0;
    if (!after && !before)
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" "
                "stroke-dasharray=\"4 3\"/>\n",
                x, fr->top, x, fr->h - 24);
    snprintf(text, sizeof text, "deadline %s%s", rel,
             after    ? " is after the chart's end &#8594;"
             : before ? " is before the job's creation"
                      : "");
    size_t len = strlen(text) - (after ? 6 : 0); /* the arrow's entity is one character */
    bool start = before || (!after && x + 3 + (double)len * SVG_CHAR_W <= fr->left + fr->plot);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#d62728\" text-anchor=\"%s\">%s</text>\n",
            start ? x + 3 : x - 3, y, start ? "start" : "end", text);
}

/* A bar of the row at row_y from `from` to `to`, `inset` px inside the row at top and bottom. */
static void svg_bar(const cli_gantt *c, const svg_frame *fr, FILE *f, double row_y, double inset,
                    double from, double to, const char *fill, const char *title)
{
    double x0 = svg_x(c, fr, from);
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
            "<title>%s</title></rect>\n",
            x0, row_y + inset, fmax(svg_x(c, fr, to) - x0, 1), fr->rowh - 2 * inset, fill, title);
}

void cli_gantt_svg(const cli_gantt *c, FILE *f)
{
    size_t chars = 0;
    for (size_t i = 0; i < c->n; i++) {
        size_t l = strlen(c->rows[i].task) + 1 + strlen(c->rows[i].node);
        chars = l > chars ? l : chars;
    }
    svg_frame fr = {.left = fmin(fmax(20 + SVG_CHAR_W * (double)chars, 160), 600),
                    .plot = 700,
                    .top = 66,
                    .rowh = 22};
    fr.h = fr.top + 6 + fr.rowh * (double)c->n + 40;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n",
            fr.left + fr.plot + 20, fr.h);
    char head[320];
    summary(c, head, sizeof head);
    fprintf(f, "<text x=\"10\" y=\"24\" font-size=\"16\">DAG job ");
    xml_text(f, c->ns);
    fputc('/', f);
    xml_text(f, c->name);
    fprintf(f, "</text>\n<text x=\"10\" y=\"42\" fill=\"#666\">");
    xml_text(f, head);
    fprintf(f, "</text>\n");
    svg_axis(c, &fr, f);
    for (size_t i = 0; i < c->n; i++) {
        const cli_gantt_row *r = &c->rows[i];
        double y = fr.top + 6 + fr.rowh * (double)i;
        fprintf(f, "<text x=\"10\" y=\"%.1f\">", y + 15);
        xml_text(f, r->task);
        fprintf(f, " <tspan fill=\"#666\">");
        xml_text(f, r->node);
        fprintf(f, "</tspan></text>\n");
        if (isfinite(r->created))
            svg_bar(c, &fr, f, y, 4, r->created, isfinite(r->started) ? r->started : c->now, "#ddd",
                    "waiting");
        if (isfinite(r->started))
            svg_bar(c, &fr, f, y, 2, r->started, isfinite(r->finished) ? r->finished : c->now,
                    r->failed ? "#d62728" : "#1f77b4", r->failed ? "failed" : "ran");
    }
    svg_deadline(c, &fr, f);
    fprintf(f, "</svg>\n");
}
