/* node_speed.h: the processing rate g(k) of a node, the one rule the extender, the controller and
 * the simulator use.
 *
 * A node's speed is the value of the policy's speed label (spec.nodeSpeed.label, by default
 * dagsched.io/speed) when it holds a finite decimal > 0; else DSP Eq. 1 (ds_node_rate) over its
 * allocatable CPU and memory relative to the largest node's. A speed that would not be a finite
 * number > 0 (a node with no CPU and no memory while others have some) is 1.0, the reference
 * node's, so that no run time is ever divided by zero. */
#ifndef DAGSCHED_NODE_SPEED_H
#define DAGSCHED_NODE_SPEED_H

#include "policy.h"

/* A speed label's value: the number when it is a finite decimal > 0 written in full (no trailing
 * characters), else NAN (NULL and "" are NAN too). */
double ds_speed_label_parse(const char *value);

/* The node's speed. given: a speed already known (the label's value parsed by
 * ds_speed_label_parse, a simulator node's speed), or NAN (or any value <= 0) to fall back to
 * Eq. 1 on cpu, mem relative to max_cpu, max_mem with the policy's theta. Always finite and > 0. */
double ds_node_speed(double given, double cpu, double mem, double max_cpu, double max_mem,
                     const ds_policy *pol);

/* ds_node_speed of a node whose speed label holds label_value (NULL: no such label). */
double ds_node_speed_label(const char *label_value, double cpu, double mem, double max_cpu,
                           double max_mem, const ds_policy *pol);

#endif
