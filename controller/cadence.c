/* cadence.c: when the decision loop runs its next round (see cadence.h). */
#include "cadence.h"

#include <math.h>

void ctl_cadence_init(ctl_cadence *cd)
{
    cd->last_round = -1e9;
    cd->last_urgent_round = -1e9;
    cd->next_epoch = 0;
    cd->last_duration = 0;
}

void ctl_cadence_done(ctl_cadence *cd, double end)
{
    double d = end - cd->last_round;
    cd->last_duration = isfinite(d) && d > 0 ? d : 0;
}

double ctl_cadence_urgent_gap(const ctl_cadence *cd, double min_interval)
{
    double gap = CTL_CADENCE_URGENT_FACTOR * cd->last_duration;
    if (!(gap >= CTL_CADENCE_URGENT_MIN_GAP))
        gap = CTL_CADENCE_URGENT_MIN_GAP;
    if (gap > min_interval)
        gap = min_interval;
    return gap;
}

ctl_cadence_step ctl_cadence_next(ctl_cadence *cd, double now, double epoch, double min_interval,
                                  bool kicked, bool urgent, double *wait)
{
    if (!(epoch > 0) || !isfinite(epoch))
        epoch = 10;
    bool due = now >= cd->next_epoch;
    bool spaced = now - cd->last_round >= min_interval;
    double urgent_gap = ctl_cadence_urgent_gap(cd, min_interval);
    bool urgent_spaced = now - cd->last_urgent_round >= urgent_gap;
    ctl_cadence_step step = CTL_CADENCE_WAIT;
    if ((due || kicked || urgent) && spaced)
        step = CTL_CADENCE_ROUND;
    else if (urgent && urgent_spaced)
        step = CTL_CADENCE_URGENT;
    if (step != CTL_CADENCE_WAIT) {
        cd->last_round = now;
        if (step == CTL_CADENCE_URGENT)
            cd->last_urgent_round = now;
        if (due)
            cd->next_epoch = now + epoch;
        *wait = 0;
        return step;
    }
    double w = cd->next_epoch - now;
    if (kicked || urgent) {
        double w2 = cd->last_round + min_interval - now;
        if (w2 < w)
            w = w2;
    }
    if (urgent) {
        double w3 = cd->last_urgent_round + urgent_gap - now;
        if (w3 < w)
            w = w3;
    }
    if (!(w <= 1.0))
        w = 1.0;
    if (w < 0.01)
        w = 0.01;
    *wait = w;
    return CTL_CADENCE_WAIT;
}
