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

static const char *const level_names[] = {"debug", "info", "warn", "error", "off"};
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
        if (strcmp(s, level_names[i]) == 0) {
            *out = (kube_log_level)i;
            return 0;
        }
    }
    return -1;
}

int kube_log_format_parse(const char *s, kube_log_format *out)
{
    if (s == NULL)
        return -1;
    if (strcmp(s, "text") == 0)
        *out = KUBE_LOG_TEXT;
    else if (strcmp(s, "json") == 0)
        *out = KUBE_LOG_JSON;
    else
        return -1;
    return 0;
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

void kube_log(kube_log_level level, const char *component, const char *fmt, ...)
{
    if (!kube_log_enabled(level))
        return;
    char msg[KUBE_LOG_MAX_MSG];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);

    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char when[40];
    size_t wl = strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(when + wl, sizeof when - wl, ".%03ldZ", ts.tv_nsec / 1000000L);
    if (component == NULL)
        component = "-";

    /* Escaping can at most sextuple the message: size the line for the worst case. */
    char line[KUBE_LOG_MAX_MSG * 2 + 256];
    size_t len = 0;
    line[0] = '\0';
    if (atomic_load(&log_format) == KUBE_LOG_JSON) {
        len = append_str(line, len, sizeof line, "{\"ts\":\"");
        len = append_str(line, len, sizeof line, when);
        len = append_str(line, len, sizeof line, "\",\"level\":\"");
        len = append_str(line, len, sizeof line, level_names[level]);
        len = append_str(line, len, sizeof line, "\",\"component\":\"");
        len = json_escape_append(line, len, sizeof line, component);
        len = append_str(line, len, sizeof line, "\",\"msg\":\"");
        len = json_escape_append(line, len, sizeof line, msg);
        len = append_str(line, len, sizeof line, "\"}\n");
        if (len == 0 || line[len - 1] != '\n') {
            /* Truncated: close the object anyway so the line stays valid JSON. */
            len = len > 4 ? len - 4 : 0;
            line[len] = '\0';
            len = append_str(line, len, sizeof line, "\"}\n");
        }
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
