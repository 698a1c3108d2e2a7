/* graph_budget.c: which DAG jobs a controller round evaluates under the bound on graph work (see
 * graph_budget.h). */
#include "graph_budget.h"

#include <stdint.h>
#include <string.h>

#include "strquote.h"

static size_t work_of(const ds_work_job *j)
{
    return j->tasks > 0 ? j->tasks : 1;
}

/* The saturating sum a + b. */
static size_t add_sat(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

int ds_work_select(const ds_work_job *jobs, size_t n, size_t bound, const char *start, size_t debt,
                   bool *evaluate, ds_work_plan *out, ds_err *err)
{
    if (out == NULL || ((jobs == NULL || evaluate == NULL) && n > 0))
        return ds_err_set(err, "graph budget: missing argument");
    for (size_t i = 0; i < n; i++) {
        if (jobs[i].key == NULL)
            return ds_err_set(err, "graph budget: job %zu has no key", i);
        if (i > 0 && strcmp(jobs[i - 1].key, jobs[i].key) >= 0) {
            char a[DS_QUOTE_BUF], b[DS_QUOTE_BUF];
            return ds_err_set(
                err, "graph budget: keys not distinct and ascending (got %s before %s)",
                ds_quote(jobs[i - 1].key, 64, a, sizeof a), ds_quote(jobs[i].key, 64, b, sizeof b));
        }
    }
    memset(out, 0, sizeof *out);
    out->next_start = SIZE_MAX;
    size_t first = 0;
    if (start != NULL)
        while (first < n && strcmp(jobs[first].key, start) < 0)
            first++;
    if (first == n)
        first = 0;
    if (bound == 0 || debt >= bound) {
        /* No bound: everything. A debt as large as the budget: nothing, and the debt shrinks. */
        bool all = bound == 0;
        for (size_t k = 0; k < n; k++) {
            size_t i = (first + k) % n;
            evaluate[i] = all;
            if (all) {
                out->n_evaluated++;
                out->tasks_evaluated = add_sat(out->tasks_evaluated, work_of(&jobs[i]));
            } else {
                out->n_deferred++;
                out->tasks_deferred = add_sat(out->tasks_deferred, work_of(&jobs[i]));
            }
        }
        out->next_start = !all && n > 0 ? first : SIZE_MAX;
        out->debt = all ? 0 : debt - bound;
        return 0;
    }
    size_t budget = bound - debt, used = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = (first + k) % n, w = work_of(&jobs[i]);
        if (k == 0 || w <= budget - used) {
            evaluate[i] = true;
            used = add_sat(used, w);
            out->n_evaluated++;
            out->tasks_evaluated = add_sat(out->tasks_evaluated, w);
            if (used > budget)
                used = budget; /* only the first job can go past it: it ends the round */
        } else {
            evaluate[i] = false;
            out->n_deferred++;
            out->tasks_deferred = add_sat(out->tasks_deferred, w);
            if (out->next_start == SIZE_MAX)
                out->next_start = i;
        }
    }
    /* The first job's excess over the budget (the others fit in it). */
    size_t w0 = n > 0 ? work_of(&jobs[first]) : 0;
    out->debt = w0 > budget ? w0 - budget : 0;
    return 0;
}
