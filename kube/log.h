/* log.h: leveled logging to stderr for the Kubernetes client and the binaries built on it.
 *
 * Two formats: text ("2026-01-02T03:04:05.678Z INFO  informer: message") and JSON lines
 * ({"ts":"...","level":"info","component":"informer","msg":"..."}). One line per call, written with
 * a single write under a lock, so lines from several threads never interleave. The module owns its
 * settings (level, format, sink); set them once at start-up with kube_log_setup. Messages longer
 * than KUBE_LOG_MAX_MSG bytes are truncated.
 *
 * A line may carry the objects a decision is about as fields (kube_log_fields): JSON lines add them
 * as keys of their own after "msg" ({...,"msg":"...","pod":"p","namespace":"ns","reason":"..."}),
 * text lines end with " pod=p namespace=ns reason=\"...\"" (a value is quoted when it is empty
 * of nothing printable or holds a space, '"', '=' or '\'). Fields that are NULL or "" are left
 * out. Each field value is truncated to KUBE_LOG_MAX_FIELD bytes. */
#ifndef DAGSCHED_KUBE_LOG_H
#define DAGSCHED_KUBE_LOG_H

#include <stdio.h>

#include "flags.h"

#define KUBE_LOG_MAX_MSG   4096
#define KUBE_LOG_MAX_FIELD 1024

typedef enum {
    KUBE_LOG_DEBUG = 0,
    KUBE_LOG_INFO = 1,
    KUBE_LOG_WARN = 2,
    KUBE_LOG_ERROR = 3,
    KUBE_LOG_OFF = 4
} kube_log_level;

typedef enum { KUBE_LOG_TEXT = 0, KUBE_LOG_JSON = 1 } kube_log_format;

/* Minimum level written, output format and sink (NULL = stderr). Defaults: info, text, stderr. */
void kube_log_setup(kube_log_level min_level, kube_log_format format, FILE *sink);

/* The names of the levels ("debug" "info" "warn" "error" "off") and of the formats ("text"
 * "json"), each list in the order of its enum and NULL-terminated: the binaries' --log-level and
 * --log-format choices (runtime/flags.h). */
extern const char *const kube_log_level_names[];
extern const char *const kube_log_format_names[];

/* The table entries (runtime/flags.h) of --log-format and --log-level, into two ints that hold a
 * kube_log_format and a kube_log_level. */
#define KUBE_LOG_FLAGS(format, level)                                                              \
    RT_FLAG_CHOICE("log-format", "text|json", format, kube_log_format_names, "(default text)"),    \
        RT_FLAG_CHOICE("log-level", "LEVEL", level, kube_log_level_names,                          \
                       "debug, info, warn, error or off (default info)")

/* "debug" "info" "warn" "error" "off" -> level; 0 on success, -1 on an unknown name. */
int kube_log_level_parse(const char *s, kube_log_level *out);
/* "text" "json" -> format; 0 on success, -1 on an unknown name. */
int kube_log_format_parse(const char *s, kube_log_format *out);

/* True when a message at this level would be written (to skip costly formatting). */
int kube_log_enabled(kube_log_level level);

void kube_log(kube_log_level level, const char *component, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The objects a line is about; every member may be NULL. Keys: pod, namespace, job, task, node,
 * reason (in that order). */
typedef struct kube_log_fields {
    const char *pod, *ns, *job, *task, *node, *reason;
} kube_log_fields;

/* kube_log with fields (f may be NULL: then exactly kube_log). */
void kube_log_f(kube_log_level level, const char *component, const kube_log_fields *f,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* A pointer to fields given by name: KLOG_FIELDS(.pod = p->name, .ns = p->ns). */
#define KLOG_FIELDS(...) (&(const kube_log_fields){__VA_ARGS__})

#define KLOG_DEBUG(comp, ...) kube_log(KUBE_LOG_DEBUG, comp, __VA_ARGS__)
#define KLOG_INFO(comp, ...)  kube_log(KUBE_LOG_INFO, comp, __VA_ARGS__)
#define KLOG_WARN(comp, ...)  kube_log(KUBE_LOG_WARN, comp, __VA_ARGS__)
#define KLOG_ERROR(comp, ...) kube_log(KUBE_LOG_ERROR, comp, __VA_ARGS__)

/* With fields: KLOG_INFO_F("evict", KLOG_FIELDS(.pod = v->name, .ns = v->ns), "evicted %s", x). */
#define KLOG_DEBUG_F(comp, fields, ...) kube_log_f(KUBE_LOG_DEBUG, comp, fields, __VA_ARGS__)
#define KLOG_INFO_F(comp, fields, ...)  kube_log_f(KUBE_LOG_INFO, comp, fields, __VA_ARGS__)
#define KLOG_WARN_F(comp, fields, ...)  kube_log_f(KUBE_LOG_WARN, comp, fields, __VA_ARGS__)
#define KLOG_ERROR_F(comp, fields, ...) kube_log_f(KUBE_LOG_ERROR, comp, fields, __VA_ARGS__)

#endif
