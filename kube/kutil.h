/* kutil.h: small helpers shared by the Kubernetes client modules: base64,
 * checked string duplication and URL query escaping. */
#ifndef DAGSCHED_KUBE_KUTIL_H
#define DAGSCHED_KUBE_KUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "ds_error.h"

/* Decode standard base64 (padding optional, whitespace ignored) with OpenSSL's EVP_DecodeBlock.
 * Output NUL-terminated. Errors: "invalid base64 at offset N" (a character outside the alphabet,
 * or data after padding), "invalid base64: truncated input". */
int kutil_base64_decode(const char *in, size_t in_len, char **out, size_t *out_len, ds_err *err);

/* strdup that returns NULL only when s is NULL or on allocation failure. */
char *kutil_strdup(const char *s);

/* Percent-escape s for a URL query value (RFC 3986 unreserved characters kept). Caller frees. */
char *kutil_query_escape(const char *s);

/* snprintf that may truncate on purpose (messages that embed other messages); always
 * NUL-terminates when size > 0. */
void kutil_sfmt(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Uniform random double in [0,1) from a caller-owned xorshift state (seed it non-zero). */
double kutil_rand01(uint64_t *state);

#endif
