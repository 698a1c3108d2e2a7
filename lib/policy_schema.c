/* policy_schema.c: the SchedulingPolicy field tables (names, types, locations in ds_policy,
 * bounds) and the range and syntax checks that the parser and the validator share.
 * docs/policy.md documents every field listed here. */
#include "policy_schema.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "k8s_names.h"
#include "policy.h"
#include "strquote.h"

#define OFF(member)  offsetof(ds_policy, member)
#define SIZE(member) sizeof(((ds_policy *)0)->member)

#define MINUTE (60.0)
#define HOUR   (3600.0)
#define DAY    (24.0 * HOUR)
#define WEEK   (7.0 * DAY)

/* Weights are relative; the bound only keeps them in a sane numeric range. */
#define WEIGHT_MAX 1000.0

#define NUMBER(n, member, lo_, hi_, fl)                                                            \
    {                                                                                              \
        .name = n, .type = DS_PF_NUMBER, .flags = (fl), .offset = OFF(member), .lo = (lo_),        \
        .hi = (hi_)                                                                                \
    }
#define DURATION(n, member, lo_, lo_s, hi_, hi_s)                                                  \
    {                                                                                              \
        .name = n, .type = DS_PF_DURATION, .offset = OFF(member), .lo = (lo_), .hi = (hi_),        \
        .lo_text = lo_s, .hi_text = hi_s                                                           \
    }
#define COUNT(n, member, lo_, hi_)                                                                 \
    {                                                                                              \
        .name = n, .type = DS_PF_COUNT, .offset = OFF(member), .lo = (lo_), .hi = (hi_)            \
    }
#define BOOL(n, member)                                                                            \
    {                                                                                              \
        .name = n, .type = DS_PF_BOOL, .offset = OFF(member)                                       \
    }
/* Tenant names to numbers > 0 and <= hi_. */
#define TENANT_MAP(n, member, hi_)                                                                 \
    {                                                                                              \
        .name = n, .type = DS_PF_TENANT_MAP, .flags = DS_PF_LO_OPEN, .offset = OFF(member),        \
        .lo = 0.0, .hi = (hi_)                                                                     \
    }
#define SECTION(n, table, fl)                                                                      \
    {                                                                                              \
        .name = n, .type = DS_PF_SECTION, .flags = (fl), .sub = table                              \
    }
#define END                                                                                        \
    {                                                                                              \
        .name = NULL                                                                               \
    }

static const ds_pfield metadata_fields[] = {
    {.name = "name",
     .type = DS_PF_STRING,
     .flags = DS_PF_REQUIRED,
     .offset = OFF(name),
     .size = SIZE(name),
     .syntax = DS_SYN_DNS_SUBDOMAIN},
    END,
};

static const ds_pfield priority_weight_fields[] = {
    NUMBER("remaining", priority.w_remaining, 0.0, WEIGHT_MAX, 0),
    NUMBER("waiting", priority.w_waiting, 0.0, WEIGHT_MAX, 0),
    NUMBER("slack", priority.w_slack, 0.0, WEIGHT_MAX, 0),
    END,
};

static const ds_pfield priority_fields[] = {
    NUMBER("gamma", priority.gamma, 0.0, 1.0, DS_PF_LO_OPEN | DS_PF_HI_OPEN),
    SECTION("weights", priority_weight_fields, 0),
    {.name = "slackTerm", .type = DS_PF_SLACK_TERM, .offset = OFF(priority.slack_term)},
    DURATION("timeScale", priority.time_scale_s, 1.0, "1s", DAY, "24h"),
    DURATION("minRemaining", priority.min_remaining_s, 0.001, "1ms", HOUR, "1h"),
    END,
};

static const ds_pfield order_fields[] = {
    {.name = "acrossJobs", .type = DS_PF_JOB_ORDER, .offset = OFF(order.job_order)},
    DURATION("starvationThreshold", order.starvation_s, 0.0, "0s", WEEK, "168h"),
    {.name = "withinJob", .type = DS_PF_WITHIN_ORDER, .offset = OFF(order.within_job)},
    END,
};

static const ds_pfield theta_fields[] = {
    NUMBER("cpu", theta_cpu, 0.0, 1.0, 0),
    NUMBER("memory", theta_memory, 0.0, 1.0, 0),
    END,
};

static const ds_pfield node_speed_fields[] = {
    SECTION("theta", theta_fields, 0),
    {.name = "speedLabel",
     .type = DS_PF_STRING,
     .offset = OFF(speed_label),
     .size = SIZE(speed_label),
     .syntax = DS_SYN_QUALIFIED},
    END,
};

static const ds_pfield deadline_fields[] = {
    DURATION("urgentThreshold", urgent_threshold_s, 0.0, "0s", DAY, "24h"),
    BOOL("filterInfeasibleNodes", filter_infeasible_nodes),
    END,
};

static const ds_pfield packing_weight_fields[] = {
    NUMBER("complementarity", packing.w_complementarity, 0.0, WEIGHT_MAX, 0),
    NUMBER("bestFit", packing.w_best_fit, 0.0, WEIGHT_MAX, 0),
    NUMBER("speed", packing.w_speed, 0.0, WEIGHT_MAX, 0),
    END,
};

static const ds_pfield packing_fields[] = {
    SECTION("weights", packing_weight_fields, 0),
    {.name = "gpuResourceNames",
     .type = DS_PF_NAME_LIST,
     .offset = OFF(gpu_resource_names),
     .syntax = DS_SYN_EXT_RESOURCE},
    END,
};

static const ds_pfield selector_fields[] = {
    {.name = "matchLabels", .type = DS_PF_LABELS, .offset = OFF(opt_in_selector)},
    END,
};

static const ds_pfield namespace_selector_fields[] = {
    {.name = "matchLabels", .type = DS_PF_LABELS, .offset = OFF(opt_in_namespace_selector)},
    END,
};

static const ds_pfield cross_namespace_fields[] = {
    {.name = "trustedNamespaces",
     .type = DS_PF_NAME_LIST,
     .offset = OFF(cross_ns_trusted),
     .syntax = DS_SYN_DNS_LABEL},
    BOOL("requireHigherPriority", cross_ns_require_higher),
    END,
};

static const ds_pfield long_task_fields[] = {
    DURATION("runtime", preemption.long_task_s, 0.0, "0s", WEEK, "168h"),
    DURATION("window", long_task_window_s, 0.0, "0s", DAY, "24h"),
    END,
};

static const ds_pfield preemption_fields[] = {
    BOOL("enabled", preemption_enabled),
    DURATION("epoch", preemption.epoch_s, 1.0, "1s", HOUR, "1h"),
    NUMBER("delta", preemption.delta, 0.0, 1.0, 0),
    NUMBER("rho", preemption.rho, 1.0, 1000.0, DS_PF_LO_OPEN | DS_PF_ZERO_OK),
    {.name = "normalisation", .type = DS_PF_GAP_NORM, .offset = OFF(preemption.norm)},
    BOOL("payoff", preemption.payoff),
    BOOL("queueOrder", preemption.queue_order),
    BOOL("jobRoom", preemption.job_room),
    BOOL("deadlineVictims", preemption.deadline_victims),
    DURATION("tau", preemption.tau_s, 0.0, "0s", WEEK, "168h"),
    DURATION("minRunTime", preemption.min_run_s, 0.0, "0s", DAY, "24h"),
    DURATION("startLatency", preemption.start_latency_s, 0.0, "0s", HOUR, "1h"),
    COUNT("maxVictimsPerPreemptor", preemption.max_victims_per_preemptor, 1, 64),
    COUNT("maxEvictionsPerNode", max_evictions_per_node, 1, 1000),
    COUNT("maxEvictionsPerNamespace", max_evictions_per_namespace, 1, 10000),
    COUNT("maxEvictionsPerMinute", max_evictions_per_minute, 1, 10000),
    DURATION("cooldown", cooldown_s, 0.0, "0s", WEEK, "168h"),
    COUNT("maxEvictionsPerTask", max_evictions_per_task, 0, 1000),
    SECTION("longTask", long_task_fields, 0),
    BOOL("sameResourceFirst", preemption.same_resource_first),
    SECTION("podSelector", selector_fields, 0),
    SECTION("namespaceSelector", namespace_selector_fields, 0),
    {.name = "protectedNamespaces",
     .type = DS_PF_NAME_LIST,
     .offset = OFF(protected_namespaces),
     .syntax = DS_SYN_DNS_LABEL},
    {.name = "protectedPriorityClasses",
     .type = DS_PF_NAME_LIST,
     .offset = OFF(protected_priority_classes),
     .syntax = DS_SYN_DNS_SUBDOMAIN},
    SECTION("crossNamespace", cross_namespace_fields, 0),
    END,
};

static const ds_pfield release_fields[] = {
    COUNT("maxConcurrentReleases", max_concurrent_releases, 0, 100000),
    {.name = "admission", .type = DS_PF_ADMIT_MODE, .offset = OFF(release_admission)},
    COUNT("lookahead", release_lookahead, 0, 10000),
    COUNT("holdRoom", release_hold_room, 0, 10000),
    END,
};

static const ds_pfield fairness_fields[] = {
    BOOL("enabled", fairness_enabled),
    {.name = "tenantLabel",
     .type = DS_PF_STRING,
     .offset = OFF(tenant_label),
     .size = SIZE(tenant_label),
     .syntax = DS_SYN_OPT_QUALIFIED},
    TENANT_MAP("weights", tenant_weights, WEIGHT_MAX),
    TENANT_MAP("caps", tenant_caps, 1.0),
    END,
};

static const ds_pfield gang_fields[] = {
    DURATION("timeout", gang_timeout_s, 0.0, "0s", WEEK, "168h"),
    END,
};

static const ds_pfield spec_fields[] = {
    SECTION("priority", priority_fields, 0),
    SECTION("order", order_fields, 0),
    SECTION("nodeSpeed", node_speed_fields, 0),
    SECTION("deadlines", deadline_fields, 0),
    SECTION("packing", packing_fields, 0),
    SECTION("preemption", preemption_fields, 0),
    SECTION("release", release_fields, 0),
    SECTION("fairness", fairness_fields, 0),
    SECTION("gang", gang_fields, 0),
    END,
};

static const ds_pfield root_fields[] = {
    {.name = "apiVersion",
     .type = DS_PF_CONST,
     .flags = DS_PF_REQUIRED,
     .text = DS_POLICY_API_VERSION},
    {.name = "kind", .type = DS_PF_CONST, .flags = DS_PF_REQUIRED, .text = DS_POLICY_KIND},
    SECTION("metadata", metadata_fields, DS_PF_REQUIRED),
    SECTION("spec", spec_fields, 0),
    END,
};

const ds_pfield *ds_policy_schema(void)
{
    return root_fields;
}

/* Paths are bounded by the schema's depth and by the quoting of keys; a path that does not fit is
 * cut short, which only shortens a message. */
void ds_pf_join(char *buf, size_t bufsize, const char *parent, const char *name)
{
    int n;
    if (parent == NULL || parent[0] == '\0')
        n = snprintf(buf, bufsize, "%s", name);
    else
        n = snprintf(buf, bufsize, "%s.%s", parent, name);
    (void)n;
}

void ds_pf_index(char *buf, size_t bufsize, const char *parent, size_t i)
{
    int n = snprintf(buf, bufsize, "%s[%zu]", parent, i);
    (void)n;
}

void ds_pf_entry(char *buf, size_t bufsize, const char *parent, const char *key)
{
    char q[DS_QUOTE_BUF];
    int n = snprintf(buf, bufsize, "%s[%s]", parent, ds_quote(key, 64, q, sizeof q));
    (void)n;
}

static void bound_text(const ds_pfield *f, bool low, char *buf, size_t bufsize)
{
    if (f->type == DS_PF_DURATION)
        snprintf(buf, bufsize, "%s", low ? f->lo_text : f->hi_text);
    else
        snprintf(buf, bufsize, "%g", low ? f->lo : f->hi);
}

int ds_pf_check_range(const ds_pfield *f, const char *path, double v, const char *got, ds_err *err)
{
    if (!isfinite(v))
        return ds_err_set(err, "%s: must be a finite number (got %s)", path, got);
    if ((f->flags & DS_PF_ZERO_OK) && v == 0.0)
        return 0;
    char b[32];
    bool lo_open = (f->flags & DS_PF_LO_OPEN) != 0, hi_open = (f->flags & DS_PF_HI_OPEN) != 0;
    if (lo_open ? !(v > f->lo) : !(v >= f->lo)) {
        bound_text(f, true, b, sizeof b);
        return ds_err_set(err, "%s: must be %s %s (got %s)", path, lo_open ? ">" : ">=", b, got);
    }
    if (hi_open ? !(v < f->hi) : !(v <= f->hi)) {
        bound_text(f, false, b, sizeof b);
        return ds_err_set(err, "%s: must be %s %s (got %s)", path, hi_open ? "<" : "<=", b, got);
    }
    return 0;
}

int ds_pf_check_syntax(ds_pf_syntax syn, const char *path, const char *what, const char *s,
                       ds_err *err)
{
    const char *why = NULL;
    switch (syn) {
    case DS_SYN_NONE:
        break;
    case DS_SYN_DNS_LABEL:
        why = ds_check_dns_label(s);
        break;
    case DS_SYN_DNS_SUBDOMAIN:
        why = ds_check_dns_subdomain(s);
        break;
    case DS_SYN_QUALIFIED:
        why = ds_check_qualified_name(s);
        break;
    case DS_SYN_LABEL_VALUE:
        why = ds_check_label_value(s);
        break;
    case DS_SYN_EXT_RESOURCE:
        why = ds_check_extended_resource_name(s);
        break;
    case DS_SYN_OPT_QUALIFIED:
        why = s[0] == '\0' ? NULL : ds_check_qualified_name(s);
        break;
    case DS_SYN_TENANT:
        why = s[0] == '\0' ? "must not be empty" : ds_check_label_value(s);
        break;
    }
    if (why == NULL)
        return 0;
    char q[DS_QUOTE_BUF];
    return ds_err_set(err, "%s: %s%s (got %s)", path, what, why, ds_quote(s, 64, q, sizeof q));
}
