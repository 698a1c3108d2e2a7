/* yaml_tree.h: a bounded, untyped tree of one YAML document, loaded with libyaml.
 *
 * Configuration documents (the SchedulingPolicy) are small and come from users, so loading is
 * defensive: the input size, the nesting depth, the number of nodes and the length of each scalar
 * are bounded; anchors, aliases and explicit tags are refused (no alias expansion, so no
 * "billion laughs"); keys of mappings must be scalars; exactly one document is accepted. Errors
 * name the line and column (1-based) where the problem is. Scalars keep their text and whether they
 * were written plain (unquoted), so that the caller can apply its own typing rules. */
#ifndef DAGSCHED_YAML_TREE_H
#define DAGSCHED_YAML_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include "ds_error.h"

typedef enum { DS_YAML_SCALAR = 0, DS_YAML_MAPPING, DS_YAML_SEQUENCE } ds_yaml_kind;

typedef struct ds_yaml_node ds_yaml_node;
struct ds_yaml_node {
    ds_yaml_kind kind;
    size_t line, column;  /* 1-based start position */
    char *text;           /* SCALAR: NUL-terminated value (never holds a NUL byte); else NULL */
    size_t len;           /* SCALAR: strlen(text) */
    bool plain;           /* SCALAR: written without quotes or block indicators */
    ds_yaml_node **child; /* MAPPING: key0, value0, key1, value1, ...; SEQUENCE: the items */
    size_t n;             /* MAPPING: number of pairs; SEQUENCE: number of items */
};

typedef struct ds_yaml_limits {
    size_t max_bytes;  /* input size */
    size_t max_depth;  /* nested mappings/sequences; the root collection is depth 1 */
    size_t max_nodes;  /* scalars, mappings and sequences in total */
    size_t max_scalar; /* bytes in one scalar */
} ds_yaml_limits;

/* Load the single document in buf[0..len). On success *root is the document's root node (free it
 * with ds_yaml_free) and 0 is returned. On error -1 is returned, err holds "line L, column C: ..."
 * (or a size/empty-input message) and *root is left untouched. */
int ds_yaml_load(const char *buf, size_t len, const ds_yaml_limits *lim, ds_yaml_node **root,
                 ds_err *err);

void ds_yaml_free(ds_yaml_node *node);

/* A plain scalar that YAML reads as null: empty, "~", "null", "Null" or "NULL". */
bool ds_yaml_is_null(const ds_yaml_node *node);

/* Mapping lookup: the value of the first pair whose key is `key`, or NULL. */
const ds_yaml_node *ds_yaml_get(const ds_yaml_node *mapping, const char *key);

#endif
