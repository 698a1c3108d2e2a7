/* clock.h: the process's two clocks in seconds, the one place that reads them for the binaries,
 * the Kubernetes client and the simulator: monotonic for durations, timeouts and rates, wall
 * (Unix time) for timestamps the API server and the logs see. The core library (lib/) reads no
 * clock: its callers pass the time in. */
#ifndef DAGSCHED_RUNTIME_CLOCK_H
#define DAGSCHED_RUNTIME_CLOCK_H

/* Seconds of CLOCK_MONOTONIC (an arbitrary origin; only differences mean something). */
double rt_mono_now(void);

/* Seconds of CLOCK_REALTIME since the Unix epoch. */
double rt_wall_now(void);

#endif
