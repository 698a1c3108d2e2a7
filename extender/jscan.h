/* jscan.h: a strict, bounded, non-recursive JSON tokenizer for the extender's request envelopes.
 *
 * The extender receives up to thousands of node names (or full Node objects) per request and must
 * answer within a millisecond; building a jansson tree of them costs several milliseconds. This
 * tokenizer validates the whole document (RFC 8259 syntax, nesting depth, token count) in one pass
 * and produces a flat array of tokens in document order, each knowing where its subtree ends, so a
 * caller can walk an object's members or skip a value in O(1). Strings must be valid UTF-8; they
 * are not copied but decoded on demand (escapes, \u surrogate pairs to UTF-8). Objects and arrays
 * keep their raw byte span, so a sub-document (the Pod, one Node) can be handed to another decoder
 * or echoed verbatim.
 */
#ifndef DAGSCHED_EXT_JSCAN_H
#define DAGSCHED_EXT_JSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    JS_OBJECT = 0,
    JS_ARRAY,
    JS_STRING,
    JS_NUMBER,
    JS_TRUE,
    JS_FALSE,
    JS_NULL,
} js_type;

typedef struct js_tok {
    uint32_t start;  /* first byte: '{', '[', the first byte inside a string's quotes, ... */
    uint32_t end;    /* one past the last byte ('}' / ']' included; a string's closing quote not) */
    uint32_t next;   /* index of the token after this value and all its descendants */
    uint32_t n;      /* objects: members; arrays: elements; otherwise 0 */
    uint8_t type;    /* js_type */
    uint8_t escaped; /* strings: contains a backslash escape */
} js_tok;

typedef struct js_limits {
    unsigned max_depth; /* nesting of objects and arrays; e.g. 100 */
    size_t max_tokens;  /* values and object keys; e.g. 4 Mi */
    size_t max_len;     /* bytes; at most 4 GiB - 1 */
} js_limits;

/* Tokens: an object token is followed by its members as key (a string token), value (a subtree);
 * an array token by its elements. */
typedef struct js_doc {
    const char *buf; /* not owned */
    size_t len;
    js_tok *t;
    size_t n, cap;
} js_doc;

#define JS_ERR_MAX 160

/* Tokenize buf[0..len). 0 on success; -1 with a message in err ("invalid JSON at byte 12:
 * expected ':' after an object key", "JSON nested deeper than 100 levels at byte 4001") on a
 * syntax error, a limit exceeded or allocation failure. The doc is empty (and needs no js_free)
 * on failure. */
int js_parse(js_doc *d, const char *buf, size_t len, const js_limits *lim, char err[JS_ERR_MAX]);

void js_free(js_doc *d);

/* Member lookup in the object at token `obj`: the value token index of the last member whose key
 * equals `key` ignoring ASCII case (as Go's encoding/json decodes), or -1. */
long js_obj_get(const js_doc *d, size_t obj, const char *key);

/* Decode the string at token `tok` into out (capacity cap, NUL-terminated). Returns the decoded
 * length, or -1 when it does not fit. (The tokenizer rejects lone surrogates; should one get
 * here, it becomes U+FFFD, as in Go.) */
long js_str_decode(const js_doc *d, size_t tok, char *out, size_t cap);

/* Upper bound of the decoded length of a string token (its encoded length). */
size_t js_str_max_len(const js_doc *d, size_t tok);

/* Does the string at `tok` equal `lit` ignoring ASCII case? */
bool js_str_eq_fold(const js_doc *d, size_t tok, const char *lit);

/* Length of the valid UTF-8 sequence (no overlong forms, surrogates or code points above
 * U+10FFFF) that starts at s, n bytes being available; 0 when invalid. */
size_t js_utf8_seq(const unsigned char *s, size_t n);

/* Parse an integer number token into *out (no fraction/exponent beyond an integral value, within
 * int64). 0 on success, -1 otherwise. */
int js_int64(const js_doc *d, size_t tok, int64_t *out);

#endif
