/* runtime_store.h: the learned run times' ConfigMap (lib/runtime_history.h): loaded when this
 * process becomes the leader, written by the leader at most every CTL_RT_SAVE_EVERY_S while it
 * changed. The extender reads the same ConfigMap. A history that cannot be read or written
 * costs estimates, never a decision's safety: the controller then counts the policy's default
 * run time as before, and says so in its log. */
#ifndef DAGSCHED_CONTROLLER_RUNTIME_STORE_H
#define DAGSCHED_CONTROLLER_RUNTIME_STORE_H

#include <stdbool.h>

#include "client.h"
#include "ledger.h"
#include "runtime_history.h"

#define CTL_RT_SAVE_EVERY_S 15.0

typedef struct ctl_runtime_store {
    kube_client *client;
    char ns[CTL_NS_MAX];
    char name[CTL_NAME_MAX];
    bool loaded;
    double saved_at; /* when it was last written (0: never) */
    ds_rt_history history;
} ctl_runtime_store;

/* An empty history of DS_RT_MAX_KEYS keys. 0, or -1 with err set. */
int ctl_runtime_store_init(ctl_runtime_store *s, kube_client *c, const char *ns, const char *name,
                           ds_err *err);
void ctl_runtime_store_free(ctl_runtime_store *s);

/* Read the ConfigMap into the history (absent: empty). Malformed lines are skipped (logged). */
int ctl_runtime_store_load(ctl_runtime_store *s, ds_err *err);

/* Write the history when it changed and CTL_RT_SAVE_EVERY_S passed since the last write (create
 * or replace, last writer wins: only the leader writes). 1 written, 0 nothing to do, -1 error. */
int ctl_runtime_store_save(ctl_runtime_store *s, double now, ds_err *err);

#endif
