/* policy_schema.h: the SchedulingPolicy schema as data, shared by the parser (policy_parse.c) and
 * the validator (policy_validate.c) so that field names, bounds and messages exist once.
 *
 * Each field names its YAML key, its type, where it lives in ds_policy and its bounds. Sections
 * are nested mappings with their own field tables; every table ends with an entry whose name is
 * NULL.
 *
 * Private to lib/: policy_parse.c, policy_validate.c. */
#ifndef DAGSCHED_POLICY_SCHEMA_H
#define DAGSCHED_POLICY_SCHEMA_H

#include <stddef.h>

#include "ds_error.h"
#include "policy.h"

typedef enum {
    DS_PF_SECTION,      /* nested mapping (sub) */
    DS_PF_CONST,        /* a string that must equal `text`; not stored (apiVersion, kind) */
    DS_PF_NUMBER,       /* double */
    DS_PF_DURATION,     /* double seconds, written as a duration string */
    DS_PF_COUNT,        /* size_t */
    DS_PF_BOOL,         /* bool */
    DS_PF_SLACK_TERM,   /* ds_slack_term, written "urgency" or "literal" */
    DS_PF_JOB_ORDER,    /* ds_job_order, written "dsp", "leastSlack" or "shortestRemaining" */
    DS_PF_WITHIN_ORDER, /* ds_within_order, written "dsp" or "criticalPath" */
    DS_PF_GAP_NORM,     /* ds_gap_norm, written "ratio" or "paper" */
    DS_PF_ADMIT_MODE,   /* ds_admit_mode, written "capacity" or "all" */
    DS_PF_STRING,       /* char[size], syntax-checked */
    DS_PF_NAME_LIST,    /* ds_name_list, each entry syntax-checked, no duplicates */
    DS_PF_LABELS,       /* ds_label_selector (a matchLabels mapping) */
    DS_PF_TENANT_MAP,   /* ds_tenant_map: tenant names to numbers within lo, hi */
} ds_pf_type;

typedef enum {
    DS_SYN_NONE = 0,
    DS_SYN_DNS_LABEL,     /* namespaces */
    DS_SYN_DNS_SUBDOMAIN, /* object names */
    DS_SYN_QUALIFIED,     /* label keys */
    DS_SYN_LABEL_VALUE,
    DS_SYN_EXT_RESOURCE,  /* extended resource names */
    DS_SYN_OPT_QUALIFIED, /* a label key, or "" */
    DS_SYN_TENANT,        /* a tenant: a namespace or a label value, not empty */
} ds_pf_syntax;

#define DS_PF_REQUIRED 0x1u /* must be present in the document */
#define DS_PF_LO_OPEN  0x2u /* value must be > lo (else >= lo) */
#define DS_PF_HI_OPEN  0x4u /* value must be < hi (else <= hi) */
#define DS_PF_ZERO_OK  0x8u /* 0 is also allowed (a switch-off value outside [lo, hi]) */

typedef struct ds_pfield {
    const char *name; /* YAML key; NULL ends a table */
    ds_pf_type type;
    unsigned flags;
    size_t offset;                 /* into ds_policy (not used by SECTION and CONST) */
    size_t size;                   /* STRING: buffer size */
    const struct ds_pfield *sub;   /* SECTION */
    double lo, hi;                 /* NUMBER, DURATION (seconds), COUNT */
    const char *lo_text, *hi_text; /* DURATION: the bounds as written in messages */
    ds_pf_syntax syntax;           /* STRING, NAME_LIST */
    const char *text;              /* CONST: the required value */
} ds_pfield;

/* The root table: apiVersion, kind, metadata, spec. */
const ds_pfield *ds_policy_schema(void);

/* "parent.name", or "name" when parent is empty, into buf. */
void ds_pf_join(char *buf, size_t bufsize, const char *parent, const char *name);

/* "parent[i]" into buf. */
void ds_pf_index(char *buf, size_t bufsize, const char *parent, size_t i);

/* parent["key"] (the key quoted) into buf, for map entries whose keys hold dots and slashes. */
void ds_pf_entry(char *buf, size_t bufsize, const char *parent, const char *key);

/* Bounds of a NUMBER, DURATION or COUNT field: 0 when v is within them, else -1 with
 * "<path>: must be >= lo (got <got>)" (or >, <, <=; "must be a finite number" for NaN/inf). */
int ds_pf_check_range(const ds_pfield *f, const char *path, double v, const char *got, ds_err *err);

/* Syntax of a string: 0 when valid, else -1 with "<path>: <what><reason> (got "<s>")". `what` is
 * prepended to the reason ("" or "key "). */
int ds_pf_check_syntax(ds_pf_syntax syn, const char *path, const char *what, const char *s,
                       ds_err *err);

/* ds_policy_validate's checks (policy_validate.c); with `all` (not NULL) every failed check is
 * kept there (ds_errs_keep) and the checks go on: -1 then only for an error not kept (in err). */
int ds_policy_check(const ds_policy *p, ds_err *err, ds_errs *all);

#endif
