/* pod_times.c: a pod's run time and deadline annotations (see pod_times.h). */
#include "pod_times.h"

#include <string.h>

#include "annotations.h"
#include "strquote.h"
#include "timefmt.h"

static int duration_ann(const char *s, double *out, ds_err *e)
{
    if (ds_duration_parse(s, out, e) != 0)
        return -1;
    if (*out > DS_DURATION_ANN_MAX_S) {
        char q[DS_QUOTE_BUF];
        return ds_err_set(e, "%s exceeds the limit " DS_DURATION_ANN_MAX,
                          ds_quote(s, DS_DURATION_MAX_LEN, q, sizeof q));
    }
    return 0;
}

static int wrong(const char *what, const ds_err *why, ds_err *err)
{
    return ds_err_set(err, "annotation %s: %s", what, why->msg);
}

int ds_pod_times_parse(const char *runtime, const char *deadline, const char *deadline_after,
                       ds_pod_times *out, ds_err *err)
{
    memset(out, 0, sizeof *out);
    out->deadline_kind = DS_DEADLINE_NONE;
    ds_err e = {{0}};
    if (runtime != NULL) {
        if (duration_ann(runtime, &out->runtime_s, &e) != 0)
            return wrong(DS_ANN_RUNTIME, &e, err);
        out->runtime_set = true;
    }
    if (deadline != NULL && deadline_after != NULL)
        return ds_err_set(err, "annotations " DS_ANN_DEADLINE " and " DS_ANN_DEADLINE_AFTER
                               " are both set; use one");
    if (deadline != NULL) {
        if (ds_timestamp_parse(deadline, &out->deadline, &e) != 0)
            return wrong(DS_ANN_DEADLINE, &e, err);
        out->deadline_kind = DS_DEADLINE_ABSOLUTE;
    } else if (deadline_after != NULL) {
        if (duration_ann(deadline_after, &out->deadline, &e) != 0)
            return wrong(DS_ANN_DEADLINE_AFTER, &e, err);
        out->deadline_kind = DS_DEADLINE_AFTER;
    }
    return 0;
}
