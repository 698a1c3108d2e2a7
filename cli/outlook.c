/* outlook.c: when a job ends, or ended, and what the ETA is based on (see outlook.h). */
#include "outlook.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"

int cli_room_index(cli_room *r, ds_err *err)
{
    return ds_room_index_build(&r->ix, r->running, r->n_running, r->free_, r->n_nodes, err);
}

void cli_room_free(cli_room *r)
{
    ds_room_index_free(&r->ix);
}

#define OUT_OF_REACH (INT64_MIN / 4) /* a node no task can use (lib/room.h) */

int cli_room_only(const cli_room *base, const bool *eligible, ds_res *free_, cli_room *out,
                  ds_err *err)
{
    for (size_t n = 0; n < base->n_nodes; n++) {
        free_[n] = base->free_[n];
        if (!eligible[n])
            for (int k = 0; k < DS_RES_N; k++)
                free_[n].v[k] = OUT_OF_REACH;
    }
    *out = (cli_room){.free_ = free_,
                      .n_nodes = base->n_nodes,
                      .running = base->running,
                      .n_running = base->n_running};
    return cli_room_index(out, err);
}

/* Task t's forecast wait for room, or NAN with why set. */
static double wait_of(const cli_room *room, const char *room_missing, const cli_ready_task *t,
                      char *why, size_t size)
{
    if (room == NULL) {
        snprintf(why, size, "%s", room_missing != NULL ? room_missing : "the room is not known");
        return NAN;
    }
    if (t->room != NULL)
        room = t->room;
    if (!t->request_known) {
        snprintf(why, size, "its request is not known before its pod exists");
        return NAN;
    }
    double w =
        ds_room_preemptor_wait(&room->ix, room->running, NULL, room->free_, &t->request, &t->ahead);
    if (isnan(w))
        snprintf(why, size, "the room it needs depends on running tasks whose end is not known");
    else if (isinf(w))
        snprintf(why, size,
                 "the running DAG tasks' expected ends free too little room for it and the %zu "
                 "task(s) before it",
                 t->n_ahead);
    else if (t->held != NULL)
        snprintf(why, size, "%s", t->held);
    return isfinite(w) && t->held == NULL ? w : NAN;
}

void cli_eta_of(const cli_room *room, const char *room_missing, const cli_ready_task *ready,
                size_t n_ready, double path_s, cli_eta *out)
{
    memset(out, 0, sizeof *out);
    out->path_s = path_s;
    out->n_ready = n_ready;
    double latest = isfinite(path_s) ? path_s : 0; /* the end the waits are compared with */
    for (size_t i = 0; i < n_ready; i++) {
        const cli_ready_task *t = &ready[i];
        char why[200];
        double w = wait_of(room, room_missing, t, why, sizeof why);
        if (isnan(w)) {
            if (!out->lower_bound)
                snprintf(out->why, sizeof out->why, "%s: %s", t->name, why);
            out->lower_bound = true;
            continue;
        }
        double end = w + (t->path_s > 0 ? t->path_s : 0);
        if (w > 0 && (out->wait_task == NULL || end > latest)) {
            out->wait_task = t->name;
            out->wait_s = w;
            out->wait_ahead = t->n_ahead;
        }
        if (end > latest)
            latest = end;
    }
    out->delay_s = isfinite(path_s) ? latest - path_s : NAN;
}

void cli_outlook_of(double created, double finished, double deadline, double now,
                    const cli_eta *basis, cli_outlook *out)
{
    memset(out, 0, sizeof *out);
    out->ended = !isnan(finished);
    out->finished = out->ended && isfinite(finished) ? finished : NAN;
    out->makespan_s = out->ended && isfinite(finished) && isfinite(created) && finished >= created
                          ? finished - created
                          : NAN;
    out->basis.path_s = NAN;
    if (!out->ended && basis != NULL)
        out->basis = *basis;
    double path = out->basis.path_s;
    out->eta = !out->ended && isfinite(now) && isfinite(path) && path >= 0
                   ? now + path + (out->basis.delay_s > 0 ? out->basis.delay_s : 0)
                   : NAN;
    double end = out->ended ? out->finished : out->eta;
    out->margin_s = isfinite(deadline) && isfinite(end) ? deadline - end : NAN;
}

static void margin_text(double margin, bool lower_bound, const char *pace, char *buf, size_t size)
{
    char d[32];
    if (isnan(margin)) {
        snprintf(buf, size, "%s", "");
        return;
    }
    cli_fmt_dur(fabs(margin), d, sizeof d);
    /* A lower bound of the end: the spare time is at most this, a miss at least this. */
    if (margin >= 0)
        snprintf(buf, size, "; deadline met with %s%s to spare%s", lower_bound ? "at most " : "", d,
                 pace);
    else
        snprintf(buf, size, "; deadline missed by %s%s%s", lower_bound ? "at least " : "", d, pace);
}

/* "remaining critical path 45s + wait for room 20s (greet, 2 task(s) before it in the release
 * order)" and the other forms of what the ETA is based on. */
static void basis_text(const cli_eta *b, char *buf, size_t size)
{
    char path[32], wait[32];
    cli_fmt_dur(b->path_s, path, sizeof path);
    cli_fmt_dur(b->wait_s, wait, sizeof wait);
    int n = snprintf(buf, size, "remaining critical path %s", path);
    size_t off = n < 0 ? 0 : (size_t)n;
    if (off >= size)
        return;
    if (b->wait_task != NULL && b->delay_s > 0.5 && fabs(b->delay_s - b->wait_s) < 0.5)
        n = snprintf(buf + off, size - off,
                     " + wait for room %s (%s, %zu task(s) before it in the release order)", wait,
                     b->wait_task, b->wait_ahead);
    else if (b->wait_task != NULL && b->delay_s > 0.5) {
        char delay[32];
        cli_fmt_dur(b->delay_s, delay, sizeof delay);
        n = snprintf(buf + off, size - off,
                     " + %s for room (%s waits %s, %zu task(s) before it in the release order)",
                     delay, b->wait_task, wait, b->wait_ahead);
    } else if (b->wait_task != NULL)
        n = snprintf(buf + off, size - off, "; wait for room %s (%s) off the critical path", wait,
                     b->wait_task);
    else if (b->n_ready > 0 && !b->lower_bound)
        n = snprintf(buf + off, size - off, "; room free now for its %zu ready task(s)",
                     b->n_ready);
    else
        n = 0;
    off += n < 0 ? 0 : (size_t)n;
    if (b->lower_bound && off < size)
        snprintf(buf + off, size - off, "; wait for room not forecast: %s", b->why);
}

void cli_outlook_text(const cli_outlook *o, double now, char *buf, size_t size)
{
    char when[48], at[48], span[32], margin[128], basis[512];
    if (o->ended) {
        if (!isfinite(o->finished)) {
            snprintf(buf, size, "finished (when is not known)");
            return;
        }
        margin_text(o->margin_s, false, "", margin, sizeof margin);
        cli_fmt_dur(now - o->finished, when, sizeof when);
        cli_fmt_dur(o->makespan_s, span, sizeof span);
        snprintf(buf, size, "finished %s ago, makespan %s%s", when, span, margin);
        return;
    }
    if (!isfinite(o->eta)) {
        snprintf(buf, size, "-");
        return;
    }
    bool lb = o->basis.lower_bound;
    margin_text(o->margin_s, lb, " at that pace", margin, sizeof margin);
    cli_fmt_until(o->eta, now, when, sizeof when);
    cli_fmt_clock(o->eta, now, at, sizeof at);
    basis_text(&o->basis, basis, sizeof basis);
    if (lb)
        snprintf(buf, size, "not before %s, %s (%s)%s", at, when, basis, margin);
    else
        snprintf(buf, size, "%s, at %s (%s)%s", when, at, basis, margin);
}

void cli_outlook_eta_cell(const cli_outlook *o, double now, char *buf, size_t size)
{
    char at[48];
    if (o->ended || !isfinite(o->eta)) {
        snprintf(buf, size, "-");
        return;
    }
    cli_fmt_clock(o->eta, now, at, sizeof at);
    snprintf(buf, size, "%s%s", o->basis.lower_bound ? ">" : "", at);
}
