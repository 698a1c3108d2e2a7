/* clock.h: the process's two clocks in seconds, the one place that reads them for the binaries,
 * the Kubernetes client and the simulator: monotonic for durations, timeouts and rates, wall
 * (Unix time) for timestamps the API server and the logs see. The core library (lib/) reads no
 * clock: its callers pass the time in. Timed waits on a condition variable run on the monotonic
 * clock too (rt_cond_init, rt_cond_wait_s), so that a step of the wall clock neither cuts a wait
 * short nor stretches it. */
#ifndef DAGSCHED_RUNTIME_CLOCK_H
#define DAGSCHED_RUNTIME_CLOCK_H

#include <pthread.h>

/* Seconds of CLOCK_MONOTONIC (an arbitrary origin; only differences mean something). */
double rt_mono_now(void);

/* Seconds of CLOCK_REALTIME since the Unix epoch. */
double rt_wall_now(void);

/* Initialise cv to time its waits on CLOCK_MONOTONIC. 0, or the error number. */
int rt_cond_init(pthread_cond_t *cv);

/* Wait on cv (made by rt_cond_init; mu locked) until signalled or `seconds` have passed (0 or
 * less, or NaN: no wait beyond a wake-up check). pthread_cond_timedwait's result. */
int rt_cond_wait_s(pthread_cond_t *cv, pthread_mutex_t *mu, double seconds);

#endif
