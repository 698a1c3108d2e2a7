/* fuzz_decoders.c: libFuzzer target over every decoder of what the cluster hands dagsched: the
 * Kubernetes object decoder (pods, nodes, ConfigMaps, PodDisruptionBudgets, Jobs, Namespaces,
 * Workflows), the JobGraph and SchedulingPolicy YAML parsers, and the job model built from a list
 * of decoded pods (any labels, annotations and creation order). The first byte of an input picks
 * the decoder, the rest is the document. Any crash, leak or sanitizer report is a bug, and so is a
 * decoded pod that breaks the rule of kube/objects.h: identified (name and namespace), and outside
 * any DAG job (no job key) whenever dagsched_error says why. Built by `make fuzz-decoders` with
 * clang; seeds at the decoders' bounds come from fuzz_decoders_seeds.py. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobgraph.h"
#include "jobmodel.h"
#include "model_input.h"
#include "objects.h"
#include "policy.h"

enum { D_KINDS = KUBE_KIND_N, D_JOBGRAPH = D_KINDS, D_POLICY, D_JOBSET, D_N };

#define MAX_JOBSET_PODS 256

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    json_object_seed(1); /* reproducible runs */
    return 0;
}

static const char *const gpus[] = {"nvidia.com/gpu"};
static const kube_decode_opts opts = {.gpu_names = gpus, .n_gpu_names = 1};

/* The rule every decoded pod keeps. */
static void check_pod(const kube_pod *p)
{
    if (p->meta.name == NULL || p->meta.ns == NULL) {
        fprintf(stderr, "decoded pod without identity\n");
        abort();
    }
    if (p->meta.dagsched_error != NULL && (p->job_key != NULL || p->task_name != NULL)) {
        fprintf(stderr, "pod %s/%s over its bounds (%s) keeps a job key\n", p->meta.ns,
                p->meta.name, p->meta.dagsched_error);
        abort();
    }
    for (size_t i = 0; i < p->n_gates; i++)
        if (p->gates[i] == NULL)
            abort();
}

static void decode_one(kube_kind kind, const json_t *j)
{
    kube_meta *m = NULL;
    ds_err err = {{0}};
    if (kube_obj_decode(kind, j, &opts, &m, &err) != 0) {
        if (m != NULL || err.msg[0] == '\0')
            abort(); /* a failure leaves nothing and says why */
        return;
    }
    if (kind == KUBE_KIND_POD)
        check_pod((const kube_pod *)m);
    kube_obj_unref(m);
}

/* A JSON list of pods: decoded, then built into jobs at a fixed time. */
static void jobset(const json_t *list)
{
    if (!json_is_array(list))
        return;
    kube_pod *pods[MAX_JOBSET_PODS];
    ds_pod_obs obs[MAX_JOBSET_PODS];
    size_t n = 0, i;
    json_t *v;
    json_array_foreach(list, i, v)
    {
        if (n == MAX_JOBSET_PODS)
            break;
        kube_meta *m = NULL;
        ds_err err = {{0}};
        if (kube_obj_decode(KUBE_KIND_POD, v, &opts, &m, &err) != 0)
            continue;
        pods[n] = (kube_pod *)m;
        check_pod(pods[n]);
        kube_pod_obs(pods[n], 1.0, &obs[n]);
        n++;
    }
    ds_priority_params pp;
    ds_priority_defaults(&pp);
    ds_jobset s;
    ds_err err = {{0}};
    if (ds_jobs_build(obs, n, NULL, 0, 1795341600.0, &pp, &s, &err) == 0) {
        for (size_t k = 0; k < s.n_pods; k++)
            (void)ds_jobset_pod_must_wait(&s, k);
        char buf[256];
        for (size_t jk = 0; jk < s.n_jobs; jk++) {
            const ds_job *job = &s.jobs[jk];
            for (size_t t = 0; job->valid && t < job->dag.n; t++) {
                (void)ds_job_pending_upstream(job, t, buf, sizeof buf);
                /* A task without a pod never runs, so nothing may wait on it as runnable. */
                if (job->missing != NULL && job->missing[t] &&
                    job->status[t].state != DS_TASK_BLOCKED)
                    abort();
            }
        }
    }
    ds_jobset_free(&s);
    for (size_t k = 0; k < n; k++)
        kube_obj_unref(&pods[k]->meta);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned which = data[0] % D_N;
    const char *doc = (const char *)data + 1;
    size_t len = size - 1;
    if (which == D_JOBGRAPH) {
        ds_jobgraph g;
        ds_err err = {{0}};
        (void)ds_jobgraph_parse(doc, len, &g, &err);
        ds_jobgraph_free(&g); /* in both cases (jobgraph.h) */
        return 0;
    }
    if (which == D_POLICY) {
        ds_policy p;
        ds_err err = {{0}};
        (void)ds_policy_parse(doc, len, &p, &err);
        return 0;
    }
    json_error_t je;
    json_t *j = json_loadb(doc, len, JSON_ALLOW_NUL, &je);
    if (j == NULL)
        return 0;
    if (which == D_JOBSET)
        jobset(j);
    else
        decode_one((kube_kind)which, j);
    json_decref(j);
    return 0;
}
