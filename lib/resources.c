/* resources.c: saturating arithmetic on the multi-resource vector (see resources.h). */
#include "resources.h"

#include <stdio.h>
#include <string.h>

static const char *const kind_names[DS_RES_N] = {"cpu", "memory", "ephemeral-storage", "gpu"};

const char *ds_res_name(int kind)
{
    if (kind < 0 || kind >= DS_RES_N)
        return "unknown";
    return kind_names[kind];
}

int ds_res_kind(const char *k8s_name, const char *const *gpu_names, size_t n_gpu_names)
{
    if (k8s_name == NULL)
        return -1;
    for (int k = 0; k < DS_RES_GPU; k++)
        if (strcmp(k8s_name, kind_names[k]) == 0)
            return k;
    for (size_t i = 0; i < n_gpu_names; i++)
        if (gpu_names[i] != NULL && strcmp(k8s_name, gpu_names[i]) == 0)
            return DS_RES_GPU;
    return -1;
}

static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static int64_t sat_sub(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? INT64_MAX : INT64_MIN;
    return r;
}

void ds_res_add(ds_res *acc, const ds_res *x)
{
    for (int k = 0; k < DS_RES_N; k++)
        acc->v[k] = sat_add(acc->v[k], x->v[k]);
}

void ds_res_sub(ds_res *acc, const ds_res *x)
{
    for (int k = 0; k < DS_RES_N; k++)
        acc->v[k] = sat_sub(acc->v[k], x->v[k]);
}

bool ds_res_fits(const ds_res *request, const ds_res *free_)
{
    for (int k = 0; k < DS_RES_N; k++)
        if (request->v[k] > 0 && request->v[k] > free_->v[k])
            return false;
    return true;
}

bool ds_res_is_zero(const ds_res *r)
{
    for (int k = 0; k < DS_RES_N; k++)
        if (r->v[k] != 0)
            return false;
    return true;
}

void ds_res_normalise(const ds_res *x, const ds_res *cap, double out[DS_RES_N])
{
    for (int k = 0; k < DS_RES_N; k++)
        out[k] = cap->v[k] > 0 ? (double)x->v[k] / (double)cap->v[k] : 0.0;
}

static void format_kind(int k, int64_t v, char *buf, size_t bufsize)
{
    if (k == DS_RES_CPU) {
        if (v % 1000 == 0)
            snprintf(buf, bufsize, "%lld", (long long)(v / 1000));
        else
            snprintf(buf, bufsize, "%lldm", (long long)v);
        return;
    }
    if (k == DS_RES_GPU) {
        snprintf(buf, bufsize, "%lld", (long long)v);
        return;
    }
    static const char *const suffix[] = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};
    for (int i = 0; i < 6; i++) {
        int64_t unit = (int64_t)1 << (10 * (6 - i));
        if (v != 0 && v % unit == 0) {
            snprintf(buf, bufsize, "%lld%s", (long long)(v / unit), suffix[i]);
            return;
        }
    }
    snprintf(buf, bufsize, "%lld", (long long)v);
}

static void format_kinds(const ds_res *r, const bool show[DS_RES_N], char *buf, size_t bufsize)
{
    buf[0] = '\0';
    size_t used = 0;
    for (int k = 0; k < DS_RES_N; k++) {
        if (!show[k])
            continue;
        char q[32];
        format_kind(k, r->v[k], q, sizeof q);
        int n = snprintf(buf + used, bufsize - used, "%s%s %s", used ? ", " : "", kind_names[k], q);
        if (n < 0 || (size_t)n >= bufsize - used) {
            if (used > 0)
                buf[used] = '\0'; /* cut before the kind that does not fit */
            return;
        }
        used += (size_t)n;
    }
    if (used == 0)
        snprintf(buf, bufsize, "nothing");
}

void ds_res_format(const ds_res *r, char *buf, size_t bufsize)
{
    if (bufsize == 0)
        return;
    bool show[DS_RES_N];
    for (int k = 0; k < DS_RES_N; k++)
        show[k] = r->v[k] != 0;
    format_kinds(r, show, buf, bufsize);
}

void ds_res_format_like(const ds_res *r, const ds_res *like, char *buf, size_t bufsize)
{
    if (bufsize == 0)
        return;
    bool show[DS_RES_N], any = false;
    for (int k = 0; k < DS_RES_N; k++) {
        show[k] = like != NULL && like->v[k] > 0;
        any = any || show[k];
    }
    if (!any) {
        ds_res_format(r, buf, bufsize);
        return;
    }
    format_kinds(r, show, buf, bufsize);
}
