/* ledger_store.h: the eviction ledger's ConfigMap (ledger.h): loading it when this process
 * becomes the leader and writing it before every eviction, with optimistic concurrency (the
 * resourceVersion read last), so that two processes that both believe they lead can never both
 * record an eviction against the same state. */
#ifndef DAGSCHED_CONTROLLER_LEDGER_STORE_H
#define DAGSCHED_CONTROLLER_LEDGER_STORE_H

#include <stdbool.h>

#include "client.h"
#include "ledger.h"

typedef struct ctl_ledger_store {
    kube_client *client;
    char ns[CTL_NS_MAX];
    char name[CTL_NAME_MAX];
    char resource_version[64]; /* of the ConfigMap as last read or written */
    bool loaded;
    ctl_ledger ledger;
} ctl_ledger_store;

void ctl_ledger_store_init(ctl_ledger_store *s, kube_client *c, const char *ns, const char *name);
void ctl_ledger_store_free(ctl_ledger_store *s);

/* Read the ConfigMap (creating it empty when absent). An unreadable ledger is an error: the
 * caller makes no eviction until a load succeeds. */
int ctl_ledger_store_load(ctl_ledger_store *s, ds_err *err);

/* Write the ledger (after pruning entries older than keep_s). A conflict (someone else wrote it)
 * reloads it and fails: the caller re-plans instead of acting on an outdated ledger. */
int ctl_ledger_store_save(ctl_ledger_store *s, double now, double keep_s, ds_err *err);

#endif
