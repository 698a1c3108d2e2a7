/* room_hold.c: room held for a preemptor against other pods (see room_hold.h). */
#include "room_hold.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "timefmt.h"

#define HOLD_NODE_MAX 253

int ds_room_hold_parse(const char *value, char *node, size_t node_size, double *until, ds_err *err)
{
    if (value == NULL || node == NULL || node_size == 0 || until == NULL)
        return ds_err_set(err, DS_ANN_RESERVED_NODE ": missing value");
    const char *sp = memchr(value, ' ', strnlen(value, HOLD_NODE_MAX + 2));
    size_t n = sp != NULL ? (size_t)(sp - value) : 0;
    if (sp == NULL || n == 0 || n > HOLD_NODE_MAX || n + 1 > node_size)
        return ds_err_set(err, DS_ANN_RESERVED_NODE ": want \"<node> <time>\"");
    memcpy(node, value, n);
    node[n] = '\0';
    if (ds_timestamp_parse(sp + 1, until, err) != 0)
        return -1;
    return 0;
}

void ds_room_hold_format(const char *node, double until, char *buf, size_t size)
{
    if (buf == NULL || size == 0)
        return;
    time_t t = (time_t)floor(until);
    struct tm tm;
    char ts[32] = "1970-01-01T00:00:00Z";
    if (isfinite(until) && gmtime_r(&t, &tm) != NULL)
        strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(buf, size, "%s %s", node != NULL ? node : "", ts);
}

bool ds_room_hold_applies(const ds_policy *p, const ds_room_hold *h, const char *pod_ns,
                          const char *pod_uid, const char *pod_job, double now)
{
    if (p == NULL || h == NULL || h->ns == NULL || pod_ns == NULL)
        return false;
    if (h->uid != NULL && pod_uid != NULL && strcmp(h->uid, pod_uid) == 0)
        return false;
    if (h->job != NULL && pod_job != NULL && strcmp(h->job, pod_job) == 0)
        return false;
    if (!(h->until > now) || !(h->until - now <= p->cooldown_s + 1.0))
        return false;
    if (strcmp(h->ns, pod_ns) == 0)
        return true;
    return ds_name_list_contains(&p->cross_ns_trusted, h->ns);
}
