/* svg.c: SVG plots of policy comparisons and per-node Gantt charts (see svg.h). */
#include "svg.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies.h"
#include "xml_escape.h"

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1",
                                      "#76b7b2", "#edc948", "#9c755f", "#e15759"};
#define N_PALETTE (sizeof palette / sizeof palette[0])

/* Text of an element: escaped (lib/xml_escape.h); labels longer than 1 KiB are cut. */
static void xml_text(FILE *f, const char *s)
{
    char buf[1024];
    fputs(ds_xml_escape(s, buf, sizeof buf), f);
}

static FILE *open_out(const char *path, ds_err *err)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        ds_err_set(err, "%s: cannot write: %s", path, strerror(errno));
    return f;
}

static int close_out(FILE *f, const char *path, ds_err *err)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return ds_err_set(err, "%s: write failed", path);
    return 0;
}

int sim_svg_bars(const char *path, const sim_metrics *runs, size_t n, const char *const *policies,
                 size_t n_policies, const char *title, ds_err *err)
{
    size_t nc;
    const sim_metric_col *c = sim_metric_cols(&nc);
    /* Ratio panel: metrics whose default mean is non-zero; count panel: preemptions, disorders. */
    size_t ratio_cols[16], nr = 0;
    for (size_t k = 0; k < nc && nr < 16; k++) {
        double d = sim_metrics_mean(runs, n, "default", &c[k]);
        if (!isnan(d) && d != 0 && strcmp(c[k].name, "preemptions") != 0 &&
            strcmp(c[k].name, "disorders") != 0 && strcmp(c[k].name, "lost_work_s") != 0 &&
            strcmp(c[k].name, "lost_run_s") != 0 && strcmp(c[k].name, "evict_yield") != 0)
            ratio_cols[nr++] = k;
    }
    const double group_w = 30.0 * (double)n_policies + 30.0;
    const double left = 60, top = 60, ph = 260;
    double width = left + group_w * (double)(nr + 2) + 40;
    if (width < 700)
        width = 700;
    double height = top + ph + 160;
    FILE *f = open_out(path, err);
    if (f == NULL)
        return -1;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" "
            "fill=\"white\"/>\n<text x=\"%.0f\" y=\"24\" font-size=\"15\">",
            width, height, left);
    xml_text(f, title);
    fprintf(f,
            "</text>\n<text x=\"%.0f\" y=\"42\" fill=\"#555\">ratio to default (1.0 = "
            "default); right: absolute counts</text>\n",
            left);
    /* scale of the ratio panel */
    double maxr = 1.2;
    for (size_t i = 0; i < nr; i++)
        for (size_t p = 0; p < n_policies; p++) {
            double v = sim_metrics_mean(runs, n, policies[p], &c[ratio_cols[i]]) /
                       sim_metrics_mean(runs, n, "default", &c[ratio_cols[i]]);
            if (isfinite(v) && v > maxr)
                maxr = v;
        }
    maxr = ceil(maxr * 5.0) / 5.0;
    double y0 = top + ph;
    for (int g = 0; g <= 4; g++) {
        double v = maxr * g / 4.0;
        double y = y0 - ph * v / maxr;
        fprintf(f,
                "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.2f</text>\n",
                left, left + group_w * (double)nr, y, y, left - 4, y + 4, v);
    }
    double y1 = y0 - ph * 1.0 / maxr;
    fprintf(f,
            "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#333\" "
            "stroke-dasharray=\"4 3\"/>\n",
            left, left + group_w * (double)nr, y1, y1);
    for (size_t i = 0; i < nr; i++) {
        const sim_metric_col *col = &c[ratio_cols[i]];
        double gx = left + group_w * (double)i + 15;
        double d = sim_metrics_mean(runs, n, "default", col);
        for (size_t p = 0; p < n_policies; p++) {
            double v = sim_metrics_mean(runs, n, policies[p], col) / d;
            if (!isfinite(v))
                continue;
            double h = ph * v / maxr;
            fprintf(f,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"26\" height=\"%.1f\" fill=\"%s\"><title>",
                    gx + 30.0 * (double)p, y0 - h, h, palette[p % N_PALETTE]);
            xml_text(f, policies[p]);
            fprintf(f, " %s: %.3f</title></rect>\n", col->name, v);
        }
        /* Two short lines under each group so neighbouring labels never overlap. */
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                gx + 15.0 * (double)n_policies, y0 + 16, col->name);
        if (col->higher_better)
            fprintf(f,
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                    "font-size=\"9\">(higher better)</text>\n",
                    gx + 15.0 * (double)n_policies, y0 + 28);
    }
    /* count panel */
    const char *counts[2] = {"preemptions", "disorders"};
    double cx = left + group_w * (double)nr + 30;
    double maxc = 1;
    for (size_t i = 0; i < 2; i++)
        for (size_t k = 0; k < nc; k++)
            if (strcmp(c[k].name, counts[i]) == 0)
                for (size_t p = 0; p < n_policies; p++) {
                    double v = sim_metrics_mean(runs, n, policies[p], &c[k]);
                    if (isfinite(v) && v > maxc)
                        maxc = v;
                }
    for (size_t i = 0; i < 2; i++)
        for (size_t k = 0; k < nc; k++) {
            if (strcmp(c[k].name, counts[i]) != 0)
                continue;
            double gx = cx + group_w * (double)i;
            for (size_t p = 0; p < n_policies; p++) {
                double v = sim_metrics_mean(runs, n, policies[p], &c[k]);
                if (!isfinite(v))
                    continue;
                double h = ph * v / maxc;
                fprintf(f,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"26\" height=\"%.1f\" "
                        "fill=\"%s\"><title>",
                        gx + 30.0 * (double)p, y0 - h, h, palette[p % N_PALETTE]);
                xml_text(f, policies[p]);
                fprintf(f,
                        " %s: %.0f</title></rect>\n<text x=\"%.1f\" y=\"%.1f\" "
                        "text-anchor=\"middle\" font-size=\"9\">%.0f</text>\n",
                        counts[i], v, gx + 30.0 * (double)p + 13, y0 - h - 3, v);
            }
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                    gx + 15.0 * (double)n_policies, y0 + 16, counts[i]);
        }
    /* legend */
    for (size_t p = 0; p < n_policies; p++) {
        double lx = left + 170.0 * (double)p, ly = y0 + 50;
        fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>", lx, ly,
                palette[p % N_PALETTE]);
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">", lx + 16, ly + 10);
        xml_text(f, sim_policy_label(policies[p]));
        fprintf(f, "</text>\n");
    }
    fprintf(f, "</svg>\n");
    return close_out(f, path, err);
}

typedef struct seg_ref {
    uint32_t node;
    double start;
    size_t i;
} seg_ref;

static int cmp_seg(const void *a, const void *b)
{
    const seg_ref *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->i < y->i ? -1 : 1;
}

typedef struct slot {
    double y0, y1, end;
} slot;

int sim_svg_gantt(const char *path, const sim_result *r, const char *title, size_t max_nodes,
                  ds_err *err)
{
    size_t nn = r->n_nodes < max_nodes ? r->n_nodes : max_nodes;
    const double left = 90, top = 50, lane = 46, gap = 8, plot_w = 1200;
    double t0 = r->first_arrival, t1 = r->end_time > t0 ? r->end_time : t0 + 1;
    double height = top + (lane + gap) * (double)nn + 60;
    seg_ref *idx = malloc((r->n_segs ? r->n_segs : 1) * sizeof *idx);
    slot *active = malloc((r->n_segs ? r->n_segs : 1) * sizeof *active);
    if (idx == NULL || active == NULL) {
        free(idx);
        free(active);
        return ds_err_set(err, "%s: out of memory", path);
    }
    for (size_t i = 0; i < r->n_segs; i++)
        idx[i] = (seg_ref){r->segs[i].node, r->segs[i].start, i};
    qsort(idx, r->n_segs, sizeof *idx, cmp_seg);
    FILE *f = open_out(path, err);
    if (f == NULL) {
        free(idx);
        free(active);
        return -1;
    }
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "font-family=\"sans-serif\" font-size=\"10\">\n<rect width=\"100%%\" height=\"100%%\" "
            "fill=\"white\"/>\n<text x=\"%.0f\" y=\"20\" font-size=\"14\">",
            left + plot_w + 30, height, left);
    xml_text(f, title);
    fprintf(f,
            "</text>\n<text x=\"%.0f\" y=\"36\" fill=\"#555\">box height = cpu request share "
            "of the node; white = idle capacity; red = evicted run; orange = run failed "
            "(dependency disorder)%s</text>\n",
            left, r->segs_truncated ? "; recording truncated" : "");
    double xs = plot_w / (t1 - t0);
    /* time axis */
    double yaxis = top + (lane + gap) * (double)nn;
    for (int g = 0; g <= 10; g++) {
        double t = t0 + (t1 - t0) * g / 10.0;
        double x = left + (t - t0) * xs;
        fprintf(f,
                "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#eee\"/>"
                "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.0fs</text>\n",
                x, x, top, yaxis, x, yaxis + 14, t - t0);
    }
    size_t s = 0;
    for (size_t nd = 0; nd < nn; nd++) {
        double ly = top + (lane + gap) * (double)nd;
        fprintf(f,
                "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"white\" "
                "stroke=\"#999\"/>\n<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">node %zu "
                "(x%.2f)</text>\n",
                left, ly, plot_w, lane, left - 6, ly + lane / 2 + 4, nd, r->node_speed[nd]);
        while (s < r->n_segs && r->segs[idx[s].i].node < nd)
            s++;
        size_t n_active = 0;
        for (; s < r->n_segs && r->segs[idx[s].i].node == nd; s++) {
            const sim_segment *g = &r->segs[idx[s].i];
            /* drop finished runs, then place this one at the lowest free height */
            size_t k = 0;
            for (size_t a = 0; a < n_active; a++)
                if (active[a].end > g->start + 1e-9)
                    active[k++] = active[a];
            n_active = k;
            double h = (double)g->cpu_frac;
            if (h > 1)
                h = 1;
            double y = 0;
            for (bool moved = true; moved;) {
                moved = false;
                for (size_t a = 0; a < n_active; a++)
                    if (y < active[a].y1 - 1e-9 && y + h > active[a].y0 + 1e-9) {
                        y = active[a].y1;
                        moved = true;
                    }
            }
            active[n_active++] = (slot){y, y + h, g->end};
            if (y + h > 1.0 + 1e-6)
                y = 1.0 - h; /* rounding: keep inside the lane */
            const char *fill = palette[g->job % N_PALETTE];
            const char *stroke = "#fff";
            if (g->outcome == SIM_SEG_EVICTED)
                stroke = "#d00";
            else if (g->outcome == SIM_SEG_FAILED)
                fill = "#ff9f1c";
            double x = left + (g->start - t0) * xs;
            double w = (g->end - g->start) * xs;
            if (w < 0.5)
                w = 0.5;
            fprintf(f,
                    "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" "
                    "stroke=\"%s\" stroke-width=\"%s\"><title>job %u task %u: %.1f-%.1f s%s"
                    "</title></rect>\n",
                    x, ly + lane * (1.0 - y - h), w, lane * h, fill, stroke,
                    g->outcome == SIM_SEG_EVICTED ? "1.5" : "0.3", g->job, g->task, g->start - t0,
                    g->end - t0,
                    g->outcome == SIM_SEG_EVICTED  ? " (evicted)"
                    : g->outcome == SIM_SEG_FAILED ? " (failed: disorder)"
                                                   : "");
            if (g->outcome == SIM_SEG_EVICTED)
                fprintf(f,
                        "<path d=\"M%.2f %.2f l-4 -7 h8 z\" fill=\"#d00\"><title>preemption at "
                        "%.1f s</title></path>\n",
                        x + w, ly, g->end - t0);
        }
    }
    if (r->n_nodes > nn)
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">(%zu more nodes not shown)</text>\n", left,
                yaxis + 34, r->n_nodes - nn);
    fprintf(f, "</svg>\n");
    free(idx);
    free(active);
    return close_out(f, path, err);
}
