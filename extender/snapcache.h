/* snapcache.h: keeping the extender's snapshot current by rebuilding only what changed.
 *
 * The cache groups the objects the job model reads into units: one per job key ("ns/job": the
 * job's pods, the JobGraph and the Workflow declaring it) and, for pods outside any job, a fixed
 * number of buckets chosen by a hash of the pod's namespace and name. Object changes (add, update,
 * delete, as the informers report them) move objects between units and mark the units they touch
 * dirty. A build evaluates the job model (ds_jobs_build_wf) on the dirty units only, keeps the
 * others' results, joins all of them (ds_jobset_join), and builds the nodes, their usage, the
 * namespaces, P_bar and the order figures anew: the result equals what ext_snapshot_build gives on
 * the same objects in the same order (by unit, and inside a unit by namespace and name) when
 * every unit was evaluated at the same time. A unit not rebuilt keeps the evaluation time of its
 * last build; ext_snapcache_invalidate marks every unit dirty (the periodic refresh). A build
 * given other node objects (the informers replace an object on every change) or another policy
 * than the last one marks every unit dirty itself: node speeds and indexes and the priority
 * parameters enter every unit's results.
 *
 * Pure and single-threaded: no I/O, no clock except the build duration; one thread (the builder)
 * owns a cache. Snapshots it built stay valid after later changes and after the cache is freed. */
#ifndef DAGSCHED_EXT_SNAPCACHE_H
#define DAGSCHED_EXT_SNAPCACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "state.h"

typedef struct ext_unit ext_unit; /* one unit's objects and job model, immutable once built */
void ext_unit_unref(ext_unit *u);

typedef struct ext_snapcache ext_snapcache;

ext_snapcache *ext_snapcache_new(void); /* NULL when out of memory */
void ext_snapcache_free(ext_snapcache *c);

/* Replace every object with the pods, JobGraphs and Workflows of `in` (all units dirty). 0, or -1
 * with err set when out of memory (the cache then needs another reset). */
int ext_snapcache_reset(ext_snapcache *c, const ext_build_input *in, ds_err *err);

/* One change: old NULL for an addition, cur NULL for a deletion. Objects are identified by
 * namespace and name, and a change leaves the cache holding the latest version given, whatever it
 * held before: an addition of an object held replaces it, an update or deletion of one not held
 * (already seen by the list of a reset) only adds or does nothing. An allocation failure makes
 * ext_snapcache_needs_reset true. */
void ext_snapcache_pod(ext_snapcache *c, const kube_pod *old, const kube_pod *cur);
void ext_snapcache_graph(ext_snapcache *c, const kube_configmap *old, const kube_configmap *cur);
void ext_snapcache_workflow(ext_snapcache *c, const kube_workflow *old, const kube_workflow *cur);

bool ext_snapcache_needs_reset(const ext_snapcache *c);

/* Mark every unit dirty. */
void ext_snapcache_invalidate(ext_snapcache *c);

/* Build a snapshot from the cached pods, JobGraphs and Workflows and the nodes, namespaces, policy
 * and time of `in` (its pods, graphs and workflows are ignored). 0, or -1 with err set. */
int ext_snapcache_build(ext_snapcache *c, const ext_build_input *in, ext_snapshot **out,
                        ds_err *err);

/* Units whose job model has been evaluated since the cache was created, and the units held. */
uint64_t ext_snapcache_units_built(const ext_snapcache *c);
size_t ext_snapcache_units(const ext_snapcache *c);

/* Snapshot internals shared by snapshot.c and snapcache.c: begin allocates the snapshot and builds
 * its nodes and namespaces; finish computes P_bar and the order figures from s->jobs; discard
 * frees a snapshot whatever its state. */
int ext_snapshot_begin(const ext_build_input *in, ext_snapshot **out, ds_err *err);
int ext_snapshot_finish(ext_snapshot *s, const ext_build_input *in, ds_err *err);
void ext_snapshot_discard(ext_snapshot *s);

/* The node a pod counts on (ext_pod_occupies_node, and the node is in the snapshot), or DS_NONE. */
size_t ext_snapshot_pod_node(const ext_snapshot *s, const kube_pod *p);

/* Set s->pod_node[i] for s->pods[i] and add its request to that node's usage; returns the node's
 * speed (1 when it counts on none). */
double ext_snapshot_place_pod(ext_snapshot *s, size_t i);

#endif
