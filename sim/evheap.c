/* evheap.c: binary min-heap of simulator events (see evheap.h). */
#include "evheap.h"
#include "grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int ev_less(const sim_event *a, const sim_event *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    return a->seq < b->seq;
}

void sim_evheap_init(sim_evheap *h)
{
    memset(h, 0, sizeof *h);
}

void sim_evheap_free(sim_evheap *h)
{
    free(h->ev);
    memset(h, 0, sizeof *h);
}

int sim_evheap_push(sim_evheap *h, double t, sim_ev_type type, uint32_t a, uint32_t b, uint32_t gen)
{
    if (h->n == h->cap) {
        sim_event *grown = ds_grow(h->ev, &h->cap, sizeof *grown, 1024);
        if (grown == NULL)
            return -1;
        h->ev = grown;
    }
    sim_event e = {.t = t, .seq = h->next_seq++, .type = type, .a = a, .b = b, .gen = gen};
    size_t i = h->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!ev_less(&e, &h->ev[p]))
            break;
        h->ev[i] = h->ev[p];
        i = p;
    }
    h->ev[i] = e;
    if (h->n > h->peak)
        h->peak = h->n;
    return 0;
}

int sim_evheap_pop(sim_evheap *h, sim_event *out)
{
    if (h->n == 0)
        return 0;
    *out = h->ev[0];
    sim_event last = h->ev[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && ev_less(&h->ev[c + 1], &h->ev[c]))
            c++;
        if (!ev_less(&h->ev[c], &last))
            break;
        h->ev[i] = h->ev[c];
        i = c;
    }
    if (h->n > 0)
        h->ev[i] = last;
    return 1;
}

double sim_evheap_peek_time(const sim_evheap *h)
{
    return h->n ? h->ev[0].t : INFINITY;
}
