/* status.c: parsing of the API server's Status objects (see status.h). */
#include "status.h"

#include <string.h>

static void copy_str(char *dst, size_t size, const json_t *v)
{
    const char *s = json_string_value(v);
    if (s == NULL)
        return;
    size_t n = strnlen(s, size - 1);
    memcpy(dst, s, n);
    dst[n] = '\0';
    /* Messages end up in logs and error strings: no control characters. */
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)dst[i] < 0x20)
            dst[i] = ' ';
}

void kube_status_from_json(const json_t *obj, kube_status *out)
{
    memset(out, 0, sizeof *out);
    if (!json_is_object(obj))
        return;
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    if (kind == NULL || strcmp(kind, "Status") != 0)
        return;
    out->valid = true;
    json_t *code = json_object_get(obj, "code");
    if (json_is_integer(code) && json_integer_value(code) >= 0 && json_integer_value(code) < 1000)
        out->code = (int)json_integer_value(code);
    copy_str(out->reason, sizeof out->reason, json_object_get(obj, "reason"));
    copy_str(out->message, sizeof out->message, json_object_get(obj, "message"));
    json_t *details = json_object_get(obj, "details");
    json_t *ra = json_object_get(details, "retryAfterSeconds");
    if (json_is_integer(ra) && json_integer_value(ra) > 0 && json_integer_value(ra) < 86400)
        out->retry_after_s = (int)json_integer_value(ra);
    json_t *causes = json_object_get(details, "causes");
    size_t i;
    json_t *c;
    json_array_foreach(causes, i, c)
    {
        const char *r = json_string_value(json_object_get(c, "reason"));
        if (r != NULL && strcmp(r, "DisruptionBudget") == 0)
            out->cause_disruption_budget = true;
    }
}

void kube_status_parse(const char *body, size_t len, kube_status *out)
{
    memset(out, 0, sizeof *out);
    if (body == NULL || len == 0)
        return;
    json_error_t jerr;
    json_t *v = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
    if (v == NULL)
        return;
    kube_status_from_json(v, out);
    json_decref(v);
}
