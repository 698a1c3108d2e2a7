/* list.h: one paginated LIST of a collection (GET with limit and continue), item by item, for
 * one-shot readers (kubectl-dagsched, `dagsched-controller uninstall`); the informers keep their
 * own list-then-watch loop. */
#ifndef DAGSCHED_KUBE_LIST_H
#define DAGSCHED_KUBE_LIST_H

#include <jansson.h>

#include "client.h"
#include "ds_error.h"
#include "objects.h"

/* Called for every item, in order. 0 to go on; non-zero stops the list, which then fails with
 * the err the callback set. */
typedef int (*kube_list_item_fn)(void *user, const json_t *item, ds_err *err);

/* GET path ("/api/v1/pods", with or without a query of its own) page by page (page_size items,
 * 1..5000) and call fn on each item. 0 when every page was read; -1 with err set (naming path)
 * when a request failed or fn stopped. */
int kube_list_each(kube_client *c, const char *path, int page_size, kube_list_item_fn fn,
                   void *user, ds_err *err);

/* Called for each pod of kube_list_pods_once. 0 to go on; non-zero stops the list (not an
 * error). */
typedef int (*kube_pod_fn)(void *user, const kube_pod *p);

/* One GET of the pods of namespace ns that match the label selector (not paginated: at most
 * `limit` items, 1..5000), each decoded as the informers decode it (kube/objects.h; no extended
 * resource counted as gpu) and passed to fn; a pod the decoder refuses is skipped. ro: the
 * request's options (NULL: the client's). 0, or -1 with err set (naming the namespace). */
int kube_list_pods_once(kube_client *c, const kube_request_opts *ro, const char *ns,
                        const char *selector, int limit, kube_pod_fn fn, void *user, ds_err *err);

#endif
