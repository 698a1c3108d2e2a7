/* strquote.h: quoting of untrusted input for error messages.
 *
 * Parsers name the offending string in their messages ("quantity \"1.2.3\": ..."). The input may be
 * long or hold control bytes, so it is written double-quoted, with non-printable bytes, quotes and
 * backslashes escaped, and cut short with "..." when it does not fit. */
#ifndef DAGSCHED_STRQUOTE_H
#define DAGSCHED_STRQUOTE_H

#include <stddef.h>

/* Room for a quoted string of up to about 64 input characters plus escapes. */
#define DS_QUOTE_BUF 160

/* Write s quoted into buf (bufsize > 0) and return buf. NULL s is written as (null). At most
 * max_in bytes of s are read; if s is longer than that, or the quoted form does not fit, the output
 * ends in "...". */
const char *ds_quote(const char *s, size_t max_in, char *buf, size_t bufsize);

#endif
