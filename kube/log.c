/* log.c: leveled text/JSON logging to stderr (see log.h). */
#include "log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

/* The module's settings: written by kube_log_setup, read by every logging thread. */
static atomic_int log_min_level = KUBE_LOG_INFO;
static atomic_int log_format = KUBE_LOG_TEXT;
static FILE *_Atomic log_sink = NULL;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

const char *const kube_log_level_names[] = {"debug", "info", "warn", "error", "off", NULL};
const char *const kube_log_format_names[] = {"text", "json", NULL};
static const char *const level_text[] = {"DEBUG", "INFO ", "WARN ", "ERROR", "OFF  "};

void kube_log_setup(kube_log_level min_level, kube_log_format format, FILE *sink)
{
    atomic_store(&log_min_level, (int)min_level);
    atomic_store(&log_format, (int)format);
    atomic_store(&log_sink, sink);
}

int kube_log_level_parse(const char *s, kube_log_level *out)
{
    if (s == NULL)
        return -1;
    for (int i = 0; i <= KUBE_LOG_OFF; i++) {
        if (strcmp(s, kube_log_level_names[i]) == 0) {
            *out = (kube_log_level)i;
            return 0;
        }
    }
    return -1;
}

int kube_log_format_parse(const char *s, kube_log_format *out)
{
    for (int i = 0; s != NULL && kube_log_format_names[i] != NULL; i++) {
        if (strcmp(s, kube_log_format_names[i]) == 0) {
            *out = (kube_log_format)i;
            return 0;
        }
    }
    return -1;
}

int kube_log_enabled(kube_log_level level)
{
    return level >= KUBE_LOG_DEBUG && level < KUBE_LOG_OFF &&
           (int)level >= atomic_load(&log_min_level);
}

/* Append s to buf (bounded), escaping it as a JSON string body. Returns the new length. */
static size_t json_escape_append(char *buf, size_t len, size_t cap, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        char tmp[7];
        size_t n = 0;
        switch (*p) {
        case '"':
            tmp[n++] = '\\';
            tmp[n++] = '"';
            break;
        case '\\':
            tmp[n++] = '\\';
            tmp[n++] = '\\';
            break;
        case '\n':
            tmp[n++] = '\\';
            tmp[n++] = 'n';
            break;
        case '\r':
            tmp[n++] = '\\';
            tmp[n++] = 'r';
            break;
        case '\t':
            tmp[n++] = '\\';
            tmp[n++] = 't';
            break;
        default:
            if (*p < 0x20) {
                memcpy(tmp, "\\u00", 4);
                n = 4;
                tmp[n++] = hex[*p >> 4];
                tmp[n++] = hex[*p & 15];
            } else {
                tmp[n++] = (char)*p;
            }
        }
        if (len + n + 1 >= cap)
            break;
        memcpy(buf + len, tmp, n);
        len += n;
    }
    buf[len] = '\0';
    return len;
}

static size_t append_str(char *buf, size_t len, size_t cap, const char *s)
{
    size_t n = strlen(s);
    if (len + n + 1 > cap)
        n = cap - len - 1;
    memcpy(buf + len, s, n);
    len += n;
    buf[len] = '\0';
    return len;
}

static const char *const field_keys[] = {"pod", "namespace", "job", "task", "node", "reason"};
#define N_FIELDS 6

/* The fields in key order (NULL when f is NULL). */
static void field_values(const kube_log_fields *f, const char *v[N_FIELDS])
{
    const char *all[N_FIELDS] = {NULL};
    if (f != NULL) {
        all[0] = f->pod;
        all[1] = f->ns;
        all[2] = f->job;
        all[3] = f->task;
        all[4] = f->node;
        all[5] = f->reason;
    }
    memcpy(v, all, sizeof all);
}

/* Append at most budget bytes of s escaped as a JSON string body (never cutting an escape). */
static size_t json_escape_budget(char *buf, size_t len, size_t cap, size_t budget, const char *s)
{
    size_t lim = len + budget + 1 < cap ? len + budget + 1 : cap;
    return json_escape_append(buf, len, lim, s);
}

/* A text field value needs quotes when a reader could not tell where it ends. */
static int text_needs_quotes(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++)
        if (*p <= ' ' || *p == 0x7f || *p == '"' || *p == '=' || *p == '\\')
            return 1;
    return 0;
}

/* Append a text field value, quoted and escaped when needed, control characters as spaces. */
static size_t text_value_append(char *buf, size_t len, size_t cap, const char *s)
{
    int q = text_needs_quotes(s);
    if (q)
        len = append_str(buf, len, cap, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        char tmp[3];
        size_t n = 0;
        if (*p == '"' || *p == '\\')
            tmp[n++] = '\\';
        tmp[n++] = (*p < ' ' || *p == 0x7f) ? ' ' : (char)*p;
        if (len + n + 2 >= cap) /* room for the closing quote */
            break;
        memcpy(buf + len, tmp, n);
        len += n;
    }
    buf[len] = '\0';
    if (q)
        len = append_str(buf, len, cap, "\"");
    return len;
}

/* Format and write one line (see log.h). */
static void log_line(kube_log_level level, const char *component, const kube_log_fields *f,
                     const char *fmt, va_list ap)
{
    char msg[KUBE_LOG_MAX_MSG];
    vsnprintf(msg, sizeof msg, fmt, ap);

    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char when[40];
    size_t wl = strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(when + wl, sizeof when - wl, ".%03ldZ", ts.tv_nsec / 1000000L);
    if (component == NULL)
        component = "-";
    const char *fv[N_FIELDS];
    field_values(f, fv);

    /* Each part has a budget (the message twice its size, each field twice its cut size, the
     * component 256 bytes), so the closing characters always fit. */
    char line[KUBE_LOG_MAX_MSG * 2 + N_FIELDS * (KUBE_LOG_MAX_FIELD * 2 + 32) + 512];
    char val[KUBE_LOG_MAX_FIELD + 1];
    size_t len = 0;
    line[0] = '\0';
    if (atomic_load(&log_format) == KUBE_LOG_JSON) {
        len = append_str(line, len, sizeof line, "{\"ts\":\"");
        len = append_str(line, len, sizeof line, when);
        len = append_str(line, len, sizeof line, "\",\"level\":\"");
        len = append_str(line, len, sizeof line, kube_log_level_names[level]);
        len = append_str(line, len, sizeof line, "\",\"component\":\"");
        len = json_escape_budget(line, len, sizeof line, 256, component);
        len = append_str(line, len, sizeof line, "\",\"msg\":\"");
        len = json_escape_budget(line, len, sizeof line, KUBE_LOG_MAX_MSG * 2, msg);
        len = append_str(line, len, sizeof line, "\"");
        for (int k = 0; k < N_FIELDS; k++) {
            if (fv[k] == NULL || fv[k][0] == '\0')
                continue;
            snprintf(val, sizeof val, "%s", fv[k]);
            len = append_str(line, len, sizeof line, ",\"");
            len = append_str(line, len, sizeof line, field_keys[k]);
            len = append_str(line, len, sizeof line, "\":\"");
            len = json_escape_budget(line, len, sizeof line, KUBE_LOG_MAX_FIELD * 2, val);
            len = append_str(line, len, sizeof line, "\"");
        }
        len = append_str(line, len, sizeof line, "}\n");
    } else {
        len = append_str(line, len, sizeof line, when);
        len = append_str(line, len, sizeof line, " ");
        len = append_str(line, len, sizeof line, level_text[level]);
        len = append_str(line, len, sizeof line, " ");
        len = append_str(line, len, sizeof line, component);
        len = append_str(line, len, sizeof line, ": ");
        /* Keep one message on one line. */
        for (char *p = msg; *p != '\0'; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
        len = append_str(line, len, sizeof line, msg);
        for (int k = 0; k < N_FIELDS; k++) {
            if (fv[k] == NULL || fv[k][0] == '\0')
                continue;
            snprintf(val, sizeof val, "%s", fv[k]);
            len = append_str(line, len, sizeof line, " ");
            len = append_str(line, len, sizeof line, field_keys[k]);
            len = append_str(line, len, sizeof line, "=");
            len = text_value_append(line, len, sizeof line, val);
        }
        len = append_str(line, len, sizeof line, "\n");
    }
    FILE *sink = atomic_load(&log_sink);
    if (sink == NULL)
        sink = stderr;
    pthread_mutex_lock(&log_lock);
    fwrite(line, 1, len, sink);
    fflush(sink);
    pthread_mutex_unlock(&log_lock);
}

void kube_log(kube_log_level level, const char *component, const char *fmt, ...)
{
    if (!kube_log_enabled(level))
        return;
    va_list ap;
    va_start(ap, fmt);
    log_line(level, component, NULL, fmt, ap);
    va_end(ap);
}

void kube_log_f(kube_log_level level, const char *component, const kube_log_fields *f,
                const char *fmt, ...)
{
    if (!kube_log_enabled(level))
        return;
    va_list ap;
    va_start(ap, fmt);
    log_line(level, component, f, fmt, ap);
    va_end(ap);
}
