/* job_room.c: can the rest of a preemptor's job still get room in time (see job_room.h). */
#include "job_room.h"

#include <math.h>
#include <string.h>

size_t ds_job_level_needs(const ds_dag *d, const ds_task_status *st, const ds_task_eval *ev,
                          const ds_res *req, ds_level_need *out)
{
    size_t n = 0;
    if (d == NULL || d->n_levels <= 0)
        return 0;
    /* Levels are 1..n_levels: one pass per level keeps out sorted without scratch memory;
     * a level with no blocked task is skipped. */
    for (int l = 1; l <= d->n_levels; l++) {
        ds_level_need need = {.level = l, .start_by_s = INFINITY};
        bool any = false;
        for (size_t i = 0; i < d->n; i++) {
            if (d->tasks[i].level != l || st[i].state != DS_TASK_BLOCKED ||
                !isfinite(ev[i].t_allow_s))
                continue;
            any = true;
            ds_res_add(&need.demand, &req[i]);
            if (ev[i].t_allow_s < need.start_by_s)
                need.start_by_s = ev[i].t_allow_s;
        }
        if (any)
            out[n++] = need;
    }
    return n;
}

bool ds_job_room_in_time(const ds_room_index *ix, const ds_res *ahead, const ds_res *own,
                         int own_level, const ds_level_need *need, size_t n, double start_s)
{
    double start = start_s > 0.0 && isfinite(start_s) ? start_s : 0.0;
    for (size_t k = 0; k < n; k++) {
        ds_res demand = *ahead;
        ds_res_add(&demand, &need[k].demand);
        if (need[k].level > own_level) {
            ds_res_sub(&demand, own);
            for (int r = 0; r < DS_RES_N; r++)
                if (demand.v[r] < 0)
                    demand.v[r] = 0;
        }
        double wait = ds_room_pool_wait(ix, &demand);
        if (!(wait + start <= need[k].start_by_s))
            return false;
    }
    return true;
}
