/* json_out.c: a JSON document on stdout (see json_out.h). */
#include "json_out.h"

#include <stdio.h>

int cli_print_json(json_t *doc, size_t order)
{
    if (doc == NULL) {
        fprintf(stderr, "kubectl-dagsched: out of memory\n");
        return 1;
    }
    int rc = json_dumpf(doc, stdout, JSON_INDENT(2) | order);
    json_decref(doc);
    if (rc != 0 || fputc('\n', stdout) == EOF || fflush(stdout) != 0) {
        fprintf(stderr, "kubectl-dagsched: cannot write the output\n");
        return 1;
    }
    return 0;
}
