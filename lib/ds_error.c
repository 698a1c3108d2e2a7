/* ds_error.c: formatting of core-library error messages (see ds_error.h). */
#include "ds_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int ds_err_set(ds_err *err, const char *fmt, ...)
{
    if (err == NULL)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

void ds_err_prefix(ds_err *err, const char *fmt, ...)
{
    if (err == NULL)
        return;
    char prefix[DS_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    char old[DS_ERR_MAX];
    memcpy(old, err->msg, sizeof old);
    old[sizeof old - 1] = '\0';
    /* Truncation is acceptable: the message is bounded by design. */
    size_t plen = strnlen(prefix, sizeof prefix - 1);
    size_t pos = 0;
    for (size_t i = 0; i < plen && pos + 1 < sizeof err->msg; i++)
        err->msg[pos++] = prefix[i];
    for (const char *sep = ": "; *sep != '\0' && pos + 1 < sizeof err->msg; sep++)
        err->msg[pos++] = *sep;
    for (size_t i = 0; old[i] != '\0' && pos + 1 < sizeof err->msg; i++)
        err->msg[pos++] = old[i];
    err->msg[pos] = '\0';
}

int ds_errs_keep(ds_errs *l, const ds_err *err)
{
    if (l == NULL)
        return -1;
    if (l->items != NULL && l->n < l->max) {
        if (err != NULL)
            memcpy(&l->items[l->n], err, sizeof *err);
        else
            snprintf(l->items[l->n].msg, sizeof l->items[l->n].msg, "error");
        l->items[l->n].msg[DS_ERR_MAX - 1] = '\0';
    }
    l->n++;
    return 0;
}
