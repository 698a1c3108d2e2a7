/* reserve.c: the room an eviction freed, held for its preemptor (see reserve.h). */
#include "reserve.h"

#include <stdlib.h>
#include <string.h>

const char *ctl_room_fate_name(ctl_room_fate f)
{
    switch (f) {
    case CTL_ROOM_RESERVED:
        return "reserved";
    case CTL_ROOM_REACHED:
        return "reached";
    case CTL_ROOM_ELSEWHERE:
        return "elsewhere";
    case CTL_ROOM_LOST:
        return "lost";
    case CTL_ROOM_FATES:
        break;
    }
    return "unknown";
}

/* Pods by UID, for lookups of the ledger's preemptors. */
typedef struct uid_ix {
    const char *uid;
    size_t idx;
} uid_ix;

static int cmp_uid(const void *a, const void *b)
{
    return strcmp(((const uid_ix *)a)->uid, ((const uid_ix *)b)->uid);
}

static size_t find_uid(const uid_ix *ix, size_t n, const char *uid)
{
    uid_ix key = {uid, 0};
    const uid_ix *hit = n ? bsearch(&key, ix, n, sizeof *ix, cmp_uid) : NULL;
    return hit ? hit->idx : SIZE_MAX;
}

static size_t find_node(const ctl_node *nodes, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(nodes[i].name, name) == 0)
            return i;
    return SIZE_MAX;
}

void ctl_reserve_out_free(ctl_reserve_out *out)
{
    free(out->res);
    free(out->fate);
    memset(out, 0, sizeof *out);
}

int ctl_reserve_plan(const ctl_ledger *l, const ctl_pod *pods, size_t n_pods, const ctl_node *nodes,
                     size_t n_nodes, double now, double hold_s, ctl_reserve_out *out, ds_err *err)
{
    memset(out, 0, sizeof *out);
    uid_ix *ix = calloc(n_pods ? n_pods : 1, sizeof *ix);
    out->res = calloc(l->n ? l->n : 1, sizeof *out->res);
    out->fate = calloc(l->n ? l->n : 1, sizeof *out->fate);
    if (ix == NULL || out->res == NULL || out->fate == NULL) {
        free(ix);
        ctl_reserve_out_free(out);
        return ds_err_set(err, "reservations: out of memory");
    }
    size_t n_ix = 0;
    for (size_t i = 0; i < n_pods; i++)
        if (pods[i].uid != NULL && pods[i].uid[0] != '\0')
            ix[n_ix++] = (uid_ix){pods[i].uid, i};
    qsort(ix, n_ix, sizeof *ix, cmp_uid);
    /* Newest first, so that a preemptor's latest eviction makes its one reservation. */
    for (size_t k = l->n; k-- > 0;) {
        const ctl_ledger_entry *e = &l->e[k];
        if (strcmp(e->result, CTL_LEDGER_EVICTED) != 0)
            continue;
        size_t p = find_uid(ix, n_ix, e->preemptor_uid);
        ctl_room_fate fate;
        if (p == SIZE_MAX)
            fate = CTL_ROOM_LOST; /* gone */
        else if (pods[p].node[0] != '\0')
            fate = strcmp(pods[p].node, e->node) == 0 ? CTL_ROOM_REACHED : CTL_ROOM_ELSEWHERE;
        else if (pods[p].terminating || pods[p].state == CTL_POD_SUCCEEDED ||
                 pods[p].state == CTL_POD_FAILED || !(now - e->at < hold_s))
            fate = CTL_ROOM_LOST;
        else
            fate = CTL_ROOM_RESERVED;
        out->fate[out->n_fate++] = (ctl_room_report){k, fate};
        if (fate != CTL_ROOM_RESERVED)
            continue;
        size_t node = find_node(nodes, n_nodes, e->node);
        bool have = false;
        for (size_t r = 0; r < out->n_res && !have; r++)
            have = out->res[r].preemptor == p;
        if (node == SIZE_MAX || have)
            continue;
        out->res[out->n_res++] = (ctl_reservation){
            .node = node, .preemptor = p, .request = pods[p].request, .until = e->at + hold_s};
    }
    free(ix);
    return 0;
}

void ctl_reserved_room(const ctl_reserve_out *r, size_t n_nodes, ds_res *out)
{
    memset(out, 0, n_nodes * sizeof *out);
    for (size_t i = 0; i < r->n_res; i++)
        if (r->res[i].node < n_nodes)
            ds_res_add(&out[r->res[i].node], &r->res[i].request);
}
