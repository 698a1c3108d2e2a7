/* kutil.c: helpers shared by the Kubernetes client modules (see kutil.h). */
#include "kutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytebuf.h"

static bool b64_char(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
           c == '/';
}

int kutil_base64_decode(const char *in, size_t in_len, char **out, size_t *out_len, ds_err *err)
{
    *out = NULL;
    *out_len = 0;
    if (in_len > (size_t)INT_MAX - 3)
        return ds_err_set(err, "invalid base64: input too long (got %zu bytes, limit %d)", in_len,
                          INT_MAX - 3);
    /* Checked here (the offset of a bad character, padding only at the end): the data characters
     * without whitespace and padding, what OpenSSL decodes. */
    unsigned char *data = malloc(in_len + 4);
    if (data == NULL)
        return ds_err_set(err, "out of memory");
    size_t k = 0;
    int pad = 0;
    for (size_t i = 0; i < in_len; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            continue;
        if (c == '=') {
            pad++;
            continue;
        }
        if (!b64_char(c) || pad > 0) {
            free(data);
            return ds_err_set(err, "invalid base64 at offset %zu", i);
        }
        data[k++] = c;
    }
    if (pad > 2 || k % 4 == 1) {
        free(data);
        return ds_err_set(err, "invalid base64: truncated input");
    }
    /* Whole groups of four for EVP_DecodeBlock: completed with 'A' (zero bits), whose bytes are
     * then dropped; k characters carry k * 6 / 8 bytes. */
    size_t whole = (k + 3) / 4 * 4;
    for (size_t j = k; j < whole; j++)
        data[j] = 'A';
    unsigned char *buf = malloc(whole / 4 * 3 + 1);
    if (buf == NULL) {
        free(data);
        return ds_err_set(err, "out of memory");
    }
    int n = EVP_DecodeBlock(buf, data, (int)whole);
    free(data);
    if (n < 0 || (size_t)n != whole / 4 * 3) {
        free(buf);
        return ds_err_set(err, "invalid base64 (got %d from EVP_DecodeBlock)", n);
    }
    size_t len = k * 3 / 4;
    buf[len] = '\0';
    *out = (char *)buf;
    *out_len = len;
    return 0;
}

char *kutil_strdup(const char *s)
{
    if (s == NULL)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d != NULL)
        memcpy(d, s, n);
    return d;
}

char *kutil_query_escape(const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = strlen(s);
    char *out = malloc(n * 3 + 1);
    if (out == NULL)
        return NULL;
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '.' || c == '_' || c == '~') {
            out[j++] = (char)c;
        } else {
            out[j++] = '%';
            out[j++] = hex[c >> 4];
            out[j++] = hex[c & 15];
        }
    }
    out[j] = '\0';
    return out;
}

double kutil_rand01(uint64_t *state)
{
    uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ULL;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return (double)(x >> 11) / 9007199254740992.0;
}

void kutil_sfmt(char *buf, size_t size, const char *fmt, ...)
{
    if (size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    if (n < 0)
        buf[0] = '\0';
}
