/* prog_pod_memory.c: measures the memory a cached pod costs: decodes N pods shaped like those of
 * a real cluster (labels, dagsched annotations, owner, managed fields, resources, status), keeps
 * them in a cache with its indexes, and reports heap bytes per pod (glibc mallinfo2) beside the
 * size of the pod's JSON.  Usage: prog_pod_memory [N]  (default 20000) */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "objects.h"

static const char *const pod_template =
    "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"etl-%06d-task-b\","
    "\"generateName\":\"etl-%06d-\",\"namespace\":\"batch-%d\",\"uid\":"
    "\"7c1e%04d-0000-4000-8000-%012d\",\"resourceVersion\":\"%d\",\"creationTimestamp\":"
    "\"2026-11-22T10:00:00Z\",\"labels\":{\"dagsched.io/job\":\"etl-%06d\",\"dagsched.io/task\":"
    "\"b\",\"app.kubernetes.io/name\":\"etl\",\"batch.kubernetes.io/job-name\":\"etl-%06d-b\","
    "\"controller-uid\":\"aa%06d-1111-4111-8111-111111111111\"},\"annotations\":"
    "{\"dagsched.io/runtime\":\"90s\",\"dagsched.io/depends-on\":\"a\",\"dagsched.io/deadline\":"
    "\"2026-11-22T12:00:00Z\",\"kubectl.kubernetes.io/last-applied-configuration\":\"{}\"},"
    "\"ownerReferences\":[{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"name\":\"etl-%06d-b\","
    "\"uid\":\"aa%06d-1111-4111-8111-111111111111\",\"controller\":true,\"blockOwnerDeletion\":"
    "true}],\"managedFields\":[{\"manager\":\"kube-controller-manager\",\"operation\":\"Update\","
    "\"apiVersion\":\"v1\",\"time\":\"2026-11-22T10:00:00Z\",\"fieldsType\":\"FieldsV1\","
    "\"fieldsV1\":{\"f:metadata\":{\"f:labels\":{\".\":{},\"f:app\":{}}}}}]},"
    "\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"registry.example/etl:1.4\","
    "\"command\":[\"run\",\"--stage=b\"],\"resources\":{\"requests\":{\"cpu\":\"500m\",\"memory\":"
    "\"1Gi\"},\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}},\"terminationMessagePath\":"
    "\"/dev/termination-log\",\"imagePullPolicy\":\"IfNotPresent\"}],\"restartPolicy\":"
    "\"Never\",\"nodeName\":\"node-%04d\",\"schedulerName\":\"default-scheduler\",\"priority\":0,"
    "\"priorityClassName\":\"batch-low\",\"schedulingGates\":[{\"name\":"
    "\"dagsched.io/dependencies\"}],\"tolerations\":[{\"key\":\"node.kubernetes.io/not-ready\","
    "\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":300}]},"
    "\"status\":{\"phase\":\"Running\",\"startTime\":\"2026-11-22T10:01:00Z\",\"qosClass\":"
    "\"Burstable\",\"podIP\":\"10.0.0.1\",\"conditions\":[{\"type\":\"Ready\",\"status\":"
    "\"True\"}]}}";

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    if (n <= 0 || n > 1000000) {
        fprintf(stderr, "N must be 1..1000000\n");
        return 2;
    }
    kube_cache *cache = kube_cache_new(KUBE_KIND_POD);
    if (cache == NULL)
        return 1;
    char text[8192];
    size_t json_bytes = 0, alloc_bytes = 0;
    struct mallinfo2 before = mallinfo2();
    for (int i = 0; i < n; i++) {
        int len = snprintf(text, sizeof text, pod_template, i, i, i % 10, i % 10000, i, i + 1000,
                           i / 4, i / 4, i, i / 4, i, i % 100);
        json_bytes += (size_t)len;
        json_error_t jerr;
        json_t *j = json_loadb(text, (size_t)len, 0, &jerr);
        kube_meta *m;
        ds_err err;
        if (j == NULL || kube_obj_decode(KUBE_KIND_POD, j, NULL, &m, &err) != 0) {
            fprintf(stderr, "decode failed: %s\n", j ? err.msg : jerr.text);
            return 1;
        }
        json_decref(j);
        alloc_bytes += m->alloc_bytes;
        const kube_meta *old;
        if (kube_cache_put(cache, m, &old) != 0)
            return 1;
        kube_obj_unref(old);
    }
    struct mallinfo2 after = mallinfo2();
    size_t heap = after.uordblks - before.uordblks;
    printf("pods cached:                 %d\n", n);
    printf("pod JSON from the API:       %zu bytes per pod\n", json_bytes / (size_t)n);
    printf("decoded object (one block):  %zu bytes per pod\n", alloc_bytes / (size_t)n);
    printf("cache tables and indexes:    %zu bytes per pod\n",
           kube_cache_table_bytes(cache) / (size_t)n);
    printf("heap in use (mallinfo2):     %zu bytes per pod\n", heap / (size_t)n);
    kube_cache_free(cache);
    return 0;
}
