/* node_speed.c: the processing rate g(k) of a node (see node_speed.h). */
#include "node_speed.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "dsp.h"

double ds_speed_label_parse(const char *value)
{
    if (value == NULL || *value == '\0')
        return NAN;
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    if (errno != 0 || *end != '\0' || !isfinite(v) || v <= 0.0)
        return NAN;
    return v;
}

double ds_node_speed(double given, double cpu, double mem, double max_cpu, double max_mem,
                     const ds_policy *pol)
{
    if (isfinite(given) && given > 0.0)
        return given;
    double s = ds_node_rate(cpu, mem, max_cpu, max_mem, pol->theta_cpu, pol->theta_memory);
    return isfinite(s) && s > 0.0 ? s : 1.0;
}

double ds_node_speed_label(const char *label_value, double cpu, double mem, double max_cpu,
                           double max_mem, const ds_policy *pol)
{
    return ds_node_speed(ds_speed_label_parse(label_value), cpu, mem, max_cpu, max_mem, pol);
}
