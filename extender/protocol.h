/* protocol.h: the kube-scheduler extender wire format (k8s.io/kube-scheduler/extender/v1).
 *
 * Parses ExtenderArgs ({"Pod", "Nodes" | "NodeNames"}) and ExtenderPreemptionArgs ({"Pod",
 * "NodeNameToVictims" | "NodeNameToMetaVictims"}) with keys matched ignoring ASCII case (Go's
 * encoding/json does the same, and older clients send lowercase keys), and writes
 * ExtenderFilterResult, HostPriorityList and ExtenderPreemptionResult with the capitalised keys
 * kube-scheduler sends. Node names come either as NodeNames (nodeCacheCapable: true) or as a full
 * NodeList (nodeCacheCapable: false), in which case the filter result echoes the passing Node
 * objects verbatim. The Pod stays a raw JSON sub-document for the Kubernetes object decoder.
 *
 * Everything is bounded: body size, nesting depth, number of nodes and victims, name lengths.
 * Errors name the field ("NodeNames[3]: expected a string (got number)"). */
#ifndef DAGSCHED_EXT_PROTOCOL_H
#define DAGSCHED_EXT_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bytebuf.h"
#include "jscan.h"

#define EXT_NAME_MAX  253 /* a node name (DNS subdomain) */
#define EXT_UID_MAX   128
#define EXT_ERR_MAX   512
#define EXT_MAX_DEPTH 100 /* nesting of the whole request; real Pods and Nodes stay below 30 */

typedef struct ext_limits {
    size_t max_body;  /* bytes */
    size_t max_nodes; /* node names, Node objects or victim nodes per request */
    size_t max_victims;
} ext_limits;

/* Defaults: 64 MiB (5,000 full kwok Nodes are about 18 MiB: nodeCacheCapable: false needs
 * room), 20000 nodes, 100000 victims in total. */
void ext_limits_default(ext_limits *l);

typedef enum {
    EXT_NODES_ABSENT = 0, /* neither Nodes nor NodeNames (or both null) */
    EXT_NODES_NAMES,      /* NodeNames (nodeCacheCapable: true) */
    EXT_NODES_LIST,       /* Nodes.items (nodeCacheCapable: false) */
} ext_nodes_kind;

typedef struct ext_args {
    js_doc doc;
    char *arena;         /* decoded strings */
    long pod;            /* token of the Pod object */
    ext_nodes_kind kind; /* how the nodes came, and so how the filter result returns them */
    size_t n_nodes;
    const char **names;  /* [n_nodes] NUL-terminated node names */
    uint32_t *name_lens; /* [n_nodes] their lengths */
    uint32_t *items;     /* EXT_NODES_LIST: token of each Node object, echoed in the result */
} ext_args;

/* Parse an ExtenderArgs body. 0 on success; -1 with a message in err (the request is malformed:
 * answer 400). *out needs ext_args_free either way. */
int ext_parse_args(const char *body, size_t len, const ext_limits *lim, ext_args *out,
                   char err[EXT_ERR_MAX]);
void ext_args_free(ext_args *a);

/* The raw JSON of the Pod (pointer into the body) and its length. */
const char *ext_pod_json(const js_doc *d, long pod, size_t *len);

typedef struct ext_victim_node {
    const char *node;
    const char **uids; /* [n_pods]; "" for a pod without a UID */
    size_t n_pods;
    int64_t pdb_violations;
} ext_victim_node;

typedef struct ext_preempt_args {
    js_doc doc;
    char *arena;
    long pod;
    bool meta; /* NodeNameToMetaVictims (nodeCacheCapable) rather than NodeNameToVictims */
    ext_victim_node *nodes;
    size_t n_nodes;
    const char **uid_store;
} ext_preempt_args;

int ext_parse_preempt_args(const char *body, size_t len, const ext_limits *lim,
                           ext_preempt_args *out, char err[EXT_ERR_MAX]);
void ext_preempt_args_free(ext_preempt_args *a);

/* Answers are written into a ds_bytebuf (lib/bytebuf.h) without a limit of their own (their
 * size follows the request's, which is bounded), checked once when taken (ds_bytebuf_take: NULL
 * after an allocation failure). ext_out_init allocates hint bytes ahead. */
void ext_out_init(ds_bytebuf *b, size_t hint);
/* A JSON string, quoted and escaped: invalid UTF-8 becomes U+FFFD, as Go's encoder does. */
void ext_put_json_string(ds_bytebuf *b, const char *s);
void ext_put_json_string_n(ds_bytebuf *b, const char *s, size_t n);
void ext_put_int(ds_bytebuf *b, long long v);

/* The filter verdict of one input node. */
typedef struct ext_node_result {
    bool pass;
    bool unresolvable;   /* when failing: FailedAndUnresolvableNodes rather than FailedNodes */
    const char *message; /* when failing */
} ext_node_result;

/* ExtenderFilterResult: passing nodes as NodeNames or, for EXT_NODES_LIST, as a NodeList of the
 * input Node objects, failing ones in FailedNodes / FailedAndUnresolvableNodes, and Error. */
void ext_emit_filter(ds_bytebuf *b, const ext_args *a, const ext_node_result *r, const char *error);

/* HostPriorityList: [{"Host": name, "Score": score}] in input order. */
void ext_emit_priorities(ds_bytebuf *b, const ext_args *a, const int *scores);

/* ExtenderPreemptionResult: for every node with keep[i], the victims with kept[i][j]. */
void ext_emit_preemption(ds_bytebuf *b, const ext_preempt_args *a, const bool *keep,
                         const bool *const *kept);

/* {"Error": message} for error responses. */
void ext_emit_error(ds_bytebuf *b, const char *message);

#endif
