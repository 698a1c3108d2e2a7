/* jobview.c: the DAG of a job as dagsched's controller and extender know it, in the simulation.
 *
 * They build their job model from the pods they watch (lib/jobmodel.h). A job whose whole graph
 * is declared (a JobGraph ConfigMap, an Argo Workflow, or pods created up front with their
 * dagsched.io/depends-on annotations) is known whole from the start. A job whose pods a workflow
 * engine creates as their upstream tasks succeed, without declaring the graph, is known only by
 * the pods created so far: a task enters the model when its pod is first created, with its edges
 * to its upstream tasks (which have all succeeded by then); its downstream tasks are unknown
 * until their pods exist. With `graph_observed` (dagsched-sim --graph observed) the simulator
 * evaluates such jobs (onUpstream, policies with `gated`) on that view: the full DAG with every
 * unknown task cut loose (no edges, run time 0) and counted as done, so that remaining work, DSP
 * priorities (Eq. 12 sums over known dependents only) and level deadlines (the deepest known level
 * gets the job's deadline) are what the controller computes. Task indexes stay those of the full
 * DAG. Rebuilt when a task became known since the last build: O(tasks + edges) each time. */
#include <stdlib.h>

#include "engine_state.h"

bool sim_view_observed(const engine *e, const ejob *j)
{
    return e->c->graph_observed && e->p->gated && !j->upfront;
}

void sim_view_known(engine *e, ejob *j, uint32_t task)
{
    etask *t = &j->t[task];
    if (t->flags & F_KNOWN)
        return;
    t->flags |= F_KNOWN;
    if (sim_view_observed(e, j))
        j->view_stale = j->stale = true; /* the next round re-evaluates the job */
}

static int build(engine *e, ejob *j)
{
    size_t n = j->dag.n, edges = 0;
    for (size_t i = 0; i < n; i++)
        if (j->t[i].flags & F_KNOWN)
            edges += j->dag.tasks[i].n_up;
    ds_task_spec *specs = calloc(n ? n : 1, sizeof *specs);
    const char **names = malloc((edges ? edges : 1) * sizeof *names);
    if (specs == NULL || names == NULL) {
        free(specs);
        free(names);
        return sim_eng_oom(e, "job view");
    }
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        const ds_dag_task *dt = &j->dag.tasks[i];
        specs[i].name = dt->name;
        if (!(j->t[i].flags & F_KNOWN))
            continue; /* cut loose: no edges, run time 0 */
        specs[i].runtime_s = dt->runtime_s;
        specs[i].upstream = names + pos;
        specs[i].n_upstream = dt->n_up;
        for (size_t k = 0; k < dt->n_up; k++)
            names[pos++] = j->dag.tasks[dt->up[k]].name;
    }
    ds_dag view;
    int rc = ds_dag_build(&view, specs, n, e->err);
    free(specs);
    free(names);
    if (rc != 0) {
        ds_err_prefix(e->err, "job view");
        return -1;
    }
    if (j->has_view)
        ds_dag_free(&j->view);
    j->view = view;
    j->has_view = true;
    j->view_stale = false;
    return 0;
}

const ds_dag *sim_view_dag(engine *e, ejob *j)
{
    if (!sim_view_observed(e, j))
        return &j->dag;
    if ((j->view_stale || !j->has_view) && build(e, j) != 0)
        return NULL;
    return &j->view;
}

bool sim_view_unknown(const engine *e, const ejob *j, uint32_t task)
{
    return sim_view_observed(e, j) && !(j->t[task].flags & F_KNOWN);
}

void sim_view_free(ejob *j)
{
    if (j->has_view)
        ds_dag_free(&j->view);
    j->has_view = false;
}
