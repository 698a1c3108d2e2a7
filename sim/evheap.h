/* evheap.h: the simulator's event queue: a binary min-heap ordered by (time, sequence number), so
 * events at the same instant are processed in the order they were scheduled (determinism). */
#ifndef DAGSCHED_SIM_EVHEAP_H
#define DAGSCHED_SIM_EVHEAP_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    SIM_EV_ARRIVAL = 0,     /* a job arrives: a = job index in the workload */
    SIM_EV_FINISH,          /* a task run ends: a = job slot, b = task, gen = run generation */
    SIM_EV_REQUEUE,         /* an evicted or failed pod is recreated: a, b, gen as above */
    SIM_EV_EPOCH,           /* periodic priority refresh and preemption */
    SIM_EV_ROUND,           /* a controller round: gated tasks are released (release.c) */
    SIM_EV_RELEASE,         /* a release takes effect: a = job slot, b = task, gen as above */
    SIM_EV_BACKOFF,         /* kube-scheduler's back-off flush for a pod (kqueue.c): a, b, gen */
    SIM_EV_UNSCHED_TIMEOUT, /* a pod's time in the unschedulable pool is up (kqueue.c) */
    SIM_EV_SCHED,           /* kube-scheduler's scheduling cycle is over: the next attempt */
} sim_ev_type;

typedef struct sim_event {
    double t;
    uint64_t seq;
    uint32_t type;
    uint32_t a, b, gen;
} sim_event;

typedef struct sim_evheap {
    sim_event *ev;
    size_t n, cap;
    size_t peak; /* most events held at once */
    uint64_t next_seq;
} sim_evheap;

void sim_evheap_init(sim_evheap *h);
void sim_evheap_free(sim_evheap *h);
int sim_evheap_push(sim_evheap *h, double t, sim_ev_type type, uint32_t a, uint32_t b,
                    uint32_t gen);
/* Pop the earliest event into *out; 0 when the heap is empty. */
int sim_evheap_pop(sim_evheap *h, sim_event *out);
/* Time of the earliest event (INFINITY when empty). */
double sim_evheap_peek_time(const sim_evheap *h);

#endif
