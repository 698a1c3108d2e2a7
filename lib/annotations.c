/* annotations.c: validation and parsing of dagsched labels and annotation values (see
 * annotations.h). */
#include "annotations.h"

#include <string.h>

#include "strquote.h"

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool ds_name_valid(const char *s, size_t len)
{
    if (s == NULL || len == 0 || len > DS_NAME_VALUE_MAX)
        return false;
    if (!is_alnum(s[0]) || !is_alnum(s[len - 1]))
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!is_alnum(c) && c != '-' && c != '_' && c != '.')
            return false;
    }
    return true;
}

const char *ds_job_label_value(const char *dagsched_job, const char *argo_workflow,
                               const char **label)
{
    if (dagsched_job != NULL) {
        if (label != NULL)
            *label = DS_LABEL_JOB;
        return dagsched_job;
    }
    if (argo_workflow != NULL) {
        if (label != NULL)
            *label = DS_LABEL_ARGO_WORKFLOW;
        return argo_workflow;
    }
    if (label != NULL)
        *label = NULL;
    return NULL;
}

size_t ds_depends_on_max_entries(const char *s)
{
    size_t n = 1;
    if (s == NULL)
        return n;
    for (size_t i = 0; i <= DS_DEPENDS_ON_MAX_LEN && s[i] != '\0'; i++)
        if (s[i] == ',')
            n++;
    return n;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

bool ds_depends_on_declared(const char *s)
{
    if (s == NULL)
        return false;
    size_t i = 0;
    while (i <= DS_DEPENDS_ON_MAX_LEN && s[i] != '\0' && is_blank(s[i]))
        i++;
    return i > DS_DEPENDS_ON_MAX_LEN || s[i] != '\0';
}

int ds_depends_on_parse(const char *s, ds_span *out, size_t *n, ds_err *err)
{
    *n = 0;
    if (s == NULL)
        return 0;
    size_t total = strnlen(s, DS_DEPENDS_ON_MAX_LEN + 1);
    if (total > DS_DEPENDS_ON_MAX_LEN)
        return ds_err_set(err, "too long (more than %d bytes)", DS_DEPENDS_ON_MAX_LEN);
    size_t lead = 0;
    while (lead < total && is_blank(s[lead]))
        lead++;
    if (lead == total)
        return 0; /* blank: no upstream */
    size_t entry = 0, pos = 0, count = 0;
    for (;;) {
        size_t end = pos;
        while (end < total && s[end] != ',')
            end++;
        size_t a = pos, b = end;
        while (a < b && is_blank(s[a]))
            a++;
        while (b > a && is_blank(s[b - 1]))
            b--;
        entry++;
        char q[DS_QUOTE_BUF];
        if (a == b)
            return ds_err_set(err, "entry %zu is empty (got %s)", entry,
                              ds_quote(s, 64, q, sizeof q));
        if (!ds_name_valid(s + a, b - a)) {
            char name[DS_NAME_VALUE_MAX + 2];
            size_t cut = b - a > DS_NAME_VALUE_MAX + 1 ? DS_NAME_VALUE_MAX + 1 : b - a;
            memcpy(name, s + a, cut);
            name[cut] = '\0';
            return ds_err_set(err, "entry %zu: task name " DS_NAME_RULE " (got %s)", entry,
                              ds_quote(name, DS_NAME_VALUE_MAX, q, sizeof q));
        }
        out[count].off = a;
        out[count].len = b - a;
        count++;
        if (end == total)
            break;
        pos = end + 1;
    }
    *n = count;
    return 0;
}
