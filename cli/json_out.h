/* json_out.h: how kubectl-dagsched writes a JSON document (-o json, policy configmap): indented,
 * one trailing newline, and an exit status that says whether it reached stdout. */
#ifndef DAGSCHED_CLI_JSON_OUT_H
#define DAGSCHED_CLI_JSON_OUT_H

#include <jansson.h>

/* Write doc (consumed; NULL counts as out of memory) on stdout, indented by 2, with jansson's
 * `order` flag (JSON_SORT_KEYS or JSON_PRESERVE_ORDER). 0, or 1 with the reason on stderr. */
int cli_print_json(json_t *doc, size_t order);

#endif
