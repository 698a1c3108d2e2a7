/* outlook.c: when a job ends, or ended (see outlook.h). */
#include "outlook.h"

#include <math.h>
#include <stdio.h>

#include "fmt.h"

void cli_outlook_of(double created, double finished, double deadline, double now,
                    double remaining_path_s, cli_outlook *out)
{
    out->ended = !isnan(finished);
    out->finished = out->ended && isfinite(finished) ? finished : NAN;
    out->makespan_s = out->ended && isfinite(finished) && isfinite(created) && finished >= created
                          ? finished - created
                          : NAN;
    out->eta = !out->ended && isfinite(now) && isfinite(remaining_path_s) && remaining_path_s >= 0
                   ? now + remaining_path_s
                   : NAN;
    double end = out->ended ? out->finished : out->eta;
    out->margin_s = isfinite(deadline) && isfinite(end) ? deadline - end : NAN;
}

static void margin_text(double margin, const char *pace, char *buf, size_t size)
{
    char d[32];
    if (isnan(margin)) {
        snprintf(buf, size, "%s", "");
        return;
    }
    cli_fmt_dur(fabs(margin), d, sizeof d);
    if (margin >= 0)
        snprintf(buf, size, "; deadline met with %s to spare%s", d, pace);
    else
        snprintf(buf, size, "; deadline missed by %s%s", d, pace);
}

void cli_outlook_text(const cli_outlook *o, double now, char *buf, size_t size)
{
    char when[48], span[32], margin[96];
    if (o->ended) {
        if (!isfinite(o->finished)) {
            snprintf(buf, size, "finished (when is not known)");
            return;
        }
        margin_text(o->margin_s, "", margin, sizeof margin);
        cli_fmt_dur(now - o->finished, when, sizeof when);
        cli_fmt_dur(o->makespan_s, span, sizeof span);
        snprintf(buf, size, "finished %s ago, makespan %s%s", when, span, margin);
        return;
    }
    if (!isfinite(o->eta)) {
        snprintf(buf, size, "-");
        return;
    }
    margin_text(o->margin_s, " at that pace", margin, sizeof margin);
    cli_fmt_until(o->eta, now, when, sizeof when);
    snprintf(buf, size, "%s (now + remaining critical path; the wait for room not counted)%s", when,
             margin);
}
