/* http1.h: HTTP/1.x request-head framing for the server in httpd.c: finds the end of a request
 * head in a byte buffer and parses the request line and the header fields the server needs
 * (Content-Length, Transfer-Encoding, Connection, Expect), enforcing the limits in httpd.h.
 * Pure functions: no I/O, no allocation. Every malformed head maps to the status HTTP prescribes
 * (400, 413, 414, 431, 501, 505) and a short reason.
 *
 * Private to runtime/: httpd.c. */
#ifndef DAGSCHED_HTTP1_H
#define DAGSCHED_HTTP1_H

#include <stdbool.h>
#include <stddef.h>

#include "httpd.h"

#define HTTP1_MAX_LEADING_EMPTY_LINES 8 /* CRLFs tolerated before a request line */

typedef enum {
    HTTP1_INCOMPLETE, /* need more bytes */
    HTTP1_OK,         /* a complete, valid head */
    HTTP1_ERROR       /* answer error_status and close the connection */
} http1_result;

typedef struct http1_head {
    char method[16];
    char path[HTTPD_MAX_PATH]; /* the request target up to '?' */
    size_t head_len;           /* bytes of the head, from the first byte to after the empty line */
    size_t content_length;     /* 0 when absent */
    bool http10;               /* HTTP/1.0 request */
    bool keep_alive;           /* the connection may carry another request after this one */
    bool expect_continue;      /* Expect: 100-continue */
    int error_status;          /* on HTTP1_ERROR */
    const char *error;         /* on HTTP1_ERROR: static text */
} http1_head;

/* Parse the head at the start of buf[0..len). *scan is the caller's resume point across calls on
 * the same growing buffer (0 for a new request), so that a head arriving one byte at a time is
 * scanned once. Bodies longer than max_body are an error (413). */
http1_result http1_parse_head(const char *buf, size_t len, size_t max_body, size_t *scan,
                              http1_head *out);

/* Standard reason phrase of a status code ("Unknown" for codes not listed). */
const char *http1_reason(int status);

#endif
