/* gang.c: the gang labels and the state of a gang (see gang.h). */
#include "gang.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "annotations.h"

static const char *const state_names[] = {"ready", "waiting", "started", "invalid"};

const char *ds_gang_state_name(ds_gang_state s)
{
    if ((unsigned)s >= sizeof state_names / sizeof state_names[0])
        return "unknown";
    return state_names[s];
}

/* A decimal size from 1 to DS_GANG_SIZE_MAX, digits only; false otherwise. */
static bool parse_size(const char *s, size_t *out)
{
    size_t v = 0, n = 0;
    for (; s[n] != '\0'; n++) {
        if (s[n] < '0' || s[n] > '9' || n >= 4)
            return false;
        v = v * 10 + (size_t)(s[n] - '0');
    }
    if (n == 0 || v < 1 || v > DS_GANG_SIZE_MAX)
        return false;
    *out = v;
    return true;
}

int ds_gang_parse(const char *name, const char *size, ds_gang_spec *out, ds_err *err)
{
    memset(out, 0, sizeof *out);
    if (name == NULL && size == NULL)
        return 0;
    if (name == NULL)
        return ds_err_set(err, "label " DS_LABEL_GANG_SIZE " is set without " DS_LABEL_GANG);
    if (size == NULL)
        return ds_err_set(err, "label " DS_LABEL_GANG " is set without " DS_LABEL_GANG_SIZE);
    size_t len = strnlen(name, DS_NAME_VALUE_MAX + 1);
    if (!ds_name_valid(name, len))
        return ds_err_set(err, "label " DS_LABEL_GANG " \"%.64s\": " DS_NAME_RULE, name);
    size_t v = 0;
    if (!parse_size(size, &v))
        return ds_err_set(err,
                          "label " DS_LABEL_GANG_SIZE " \"%.16s\" must be an integer from 1 to %d",
                          size, DS_GANG_SIZE_MAX);
    out->member = true;
    memcpy(out->name, name, len);
    out->name[len] = '\0';
    out->size = v;
    return 0;
}

ds_gang_state ds_gang_judge(const ds_gang_count *c)
{
    if (!c->sizes_agree || c->members > c->size || (c->all_listed && c->members < c->size))
        return DS_GANG_INVALID;
    if (c->started > 0)
        return DS_GANG_STARTED;
    if (c->ready < c->size)
        return DS_GANG_WAITING;
    return DS_GANG_READY;
}

void ds_gang_describe(const char *name, ds_gang_state s, const ds_gang_count *c, char *buf,
                      size_t bufsize)
{
    if (buf == NULL || bufsize == 0)
        return;
    const char *n = name != NULL ? name : "?";
    buf[0] = '\0';
    switch (s) {
    case DS_GANG_WAITING:
        snprintf(buf, bufsize, "gang %.64s: %zu of %zu members ready", n, c->ready, c->size);
        return;
    case DS_GANG_INVALID:
        if (!c->sizes_agree)
            snprintf(buf, bufsize,
                     "gang %.64s is invalid: its members declare different sizes "
                     "(" DS_LABEL_GANG_SIZE ")",
                     n);
        else if (c->members > c->size)
            snprintf(buf, bufsize, "gang %.64s is invalid: %zu members, more than its size %zu", n,
                     c->members, c->size);
        else
            snprintf(buf, bufsize,
                     "gang %.64s is invalid: its job lists %zu tasks in it, fewer than its size "
                     "%zu",
                     n, c->members, c->size);
        return;
    case DS_GANG_READY:
    case DS_GANG_STARTED:
        return;
    }
}

void ds_gang_describe_room(const char *name, size_t room_for, size_t size, char *buf,
                           size_t bufsize)
{
    if (buf == NULL || bufsize == 0)
        return;
    snprintf(buf, bufsize, "gang %.64s: room for %zu of %zu members", name != NULL ? name : "?",
             room_for, size);
}

bool ds_gang_timed_out(double oldest_created, double now, double timeout_s)
{
    if (!(timeout_s > 0) || !isfinite(timeout_s) || !isfinite(oldest_created) || !isfinite(now))
        return false;
    return now - oldest_created >= timeout_s;
}
