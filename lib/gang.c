/* gang.c: the gang labels and the state of a gang (see gang.h). */
#include "gang.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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
    if (!c->sizes_agree || c->members > c->size || c->can_exist < c->size)
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
                     "gang %.64s is invalid: its job has %zu tasks, fewer than its size %zu", n,
                     c->can_exist, c->size);
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

typedef struct obs_key {
    size_t job;
    const char *name;
    size_t task, i;
} obs_key;

static int cmp_obs(const void *pa, const void *pb)
{
    const obs_key *a = pa, *b = pb;
    if (a->job != b->job)
        return a->job < b->job ? -1 : 1;
    int c = strcmp(a->name, b->name);
    if (c != 0)
        return c;
    if (a->task != b->task)
        return a->task < b->task ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* Close the member of obs idx[lo..hi) (one task) into gang g. */
static void add_member(ds_gang *g, const ds_gang_obs *obs, const obs_key *key, size_t lo, size_t hi)
{
    bool ready = false, started = false;
    for (size_t j = lo; j < hi; j++) {
        const ds_gang_obs *o = &obs[key[j].i];
        ready = ready || o->ready;
        started = started || o->started;
        if (o->size != g->count.size)
            g->count.sizes_agree = false;
        if (o->ready && isfinite(o->ready_since) &&
            (isnan(g->ready_since) || o->ready_since < g->ready_since))
            g->ready_since = o->ready_since;
        if (o->can_exist < g->count.can_exist)
            g->count.can_exist = o->can_exist;
    }
    g->count.members++;
    g->count.started += started ? 1 : 0;
    g->count.ready += ready && !started ? 1 : 0;
}

int ds_gang_tally(const ds_gang_obs *obs, size_t n, ds_gang *gangs, size_t *n_gangs,
                  size_t *gang_of, ds_err *err)
{
    if (n_gangs == NULL || (n > 0 && (obs == NULL || gangs == NULL || gang_of == NULL)))
        return ds_err_set(err, "gangs: missing arrays");
    *n_gangs = 0;
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (obs[i].name == NULL)
            return ds_err_set(err, "gangs: member %zu has no name", i);
    obs_key *key = malloc(n * sizeof *key);
    if (key == NULL)
        return ds_err_set(err, "gangs: out of memory for %zu members", n);
    for (size_t i = 0; i < n; i++)
        key[i] = (obs_key){obs[i].job, obs[i].name, obs[i].task, i};
    qsort(key, n, sizeof *key, cmp_obs);
    size_t ng = 0;
    for (size_t j = 0; j < n;) {
        const ds_gang_obs *o = &obs[key[j].i];
        ds_gang *g = &gangs[ng++];
        *g = (ds_gang){.job = o->job,
                       .name = o->name,
                       .count = {.size = o->size, .sizes_agree = true, .can_exist = SIZE_MAX},
                       .ready_since = NAN,
                       .first = key[j].i};
        size_t end = j;
        while (end < n && key[end].job == o->job && strcmp(key[end].name, o->name) == 0)
            end++;
        for (size_t a = j; a < end;) {
            size_t b = a;
            while (b < end && key[b].task == key[a].task)
                b++;
            add_member(g, obs, key, a, b);
            a = b;
        }
        for (size_t a = j; a < end; a++)
            gang_of[key[a].i] = ng - 1;
        g->state = ds_gang_judge(&g->count);
        j = end;
    }
    free(key);
    *n_gangs = ng;
    return 0;
}

bool ds_gang_timed_out(double ready_since, double now, double timeout_s)
{
    if (!(timeout_s > 0) || !isfinite(timeout_s) || !isfinite(ready_since) || !isfinite(now))
        return false;
    return now - ready_since >= timeout_s;
}

double ds_gang_hold_s(double cooldown_s)
{
    return cooldown_s > 0 && cooldown_s < DS_GANG_HOLD_S ? cooldown_s : DS_GANG_HOLD_S;
}
