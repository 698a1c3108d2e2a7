/* term.h: the one rule for text from the cluster that reaches a terminal through kubectl-dagsched.
 *
 * Anyone who may write a pod's annotations or a job's labels can put bytes in what the plugin
 * prints: escape sequences that set the terminal's title, recolour or erase the screen, carriage
 * returns and newlines that forge table rows. Two functions keep them out:
 *  - cli_term_install wraps stdout and stderr so that every byte the plugin writes passes one
 *    filter: C0 control characters other than newline and tab, DEL, C1 controls (U+0080..U+009F)
 *    and bytes that are not UTF-8 are written as "\xNN" (each byte of them). Valid UTF-8 text,
 *    newlines and tabs pass unchanged.
 *  - cli_oneline copies a free-text field (a waiting reason, a note, an error) with its own
 *    newlines, carriage returns and tabs written as "\n", "\r" and "\t", so that the field stays on
 *    its row; everything else is left to the filter.
 * -o json output is escaped by the JSON writer, SVG by xml_escape; they pass the filter unchanged.
 */
#ifndef DAGSCHED_CLI_TERM_H
#define DAGSCHED_CLI_TERM_H

#include <stddef.h>
#include <stdio.h>

/* Wrap stdout and stderr (first thing in main). 0, or -1 when a stream could not be wrapped (it
 * then stays as it was and the plugin should refuse to print cluster text: main exits 1). */
int cli_term_install(void);

/* Escape the bytes of s[0..n) for a terminal into out (the filter's rule), NUL-terminated;
 * returns the length written (cut at a whole escape when out is too small). For tests. */
size_t cli_term_escape(const char *s, size_t n, char *out, size_t size);

/* A copy of s (NULL: "") in buf with newlines, carriage returns and tabs escaped; returns buf. */
const char *cli_oneline(const char *s, char *buf, size_t size);

#endif
