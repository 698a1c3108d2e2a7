/* quantity.c: Kubernetes resource quantities to integers (see quantity.h).
 *
 * Grammar, as k8s.io/apimachinery/pkg/api/resource scans it:
 *     [+-] digits [. digits] suffix      (at least one digit; "1." and ".5" are fine)
 *     suffix: "" n u m k M G T P E | Ki Mi Gi Ti Pi Ei | (e|E)[+-]digits
 * Kubernetes reads a number with no digits at all ("Gi", ".", "+") as zero; here that is an error.
 *
 * Arithmetic is exact: the digits are kept as a decimal digit string, multiplied by 2^b for a
 * binary suffix, and the result is read off at the wanted decimal exponent. A non-zero remainder
 * rounds the magnitude up (away from zero), as Quantity.MilliValue()/Value() do for values held in
 * int64 form, and as the rounding to nano-units in ParseQuantity does (ceil of ceil is ceil).
 * Results beyond int64 are errors where Kubernetes would cap (binary suffixes) or wrap. */
#include "quantity.h"

#include <stdio.h>
#include <string.h>

#include "strquote.h"

/* Room for DS_QUANTITY_MAX_LEN digits times 2^60 (19 more digits). */
#define DIGITS_CAP (DS_QUANTITY_MAX_LEN + 20)
/* Kubernetes keeps exponents as int32 and rejects e.g. "1e2147483648". */
#define EXP_LIMIT 2147483647LL
#define STR_(x)   #x
#define STR(x)    STR_(x)

/* A parsed quantity: |value| = digits * 10^exp10 * 2^exp2. */
struct qnum {
    int negative;
    unsigned char digits[DIGITS_CAP]; /* most significant first, values 0-9 */
    int ndigits;
    long long exp10;
    int exp2;
};

struct qsuffix {
    const char *name;
    int exp10;
    int exp2;
};

static const struct qsuffix qsuffixes[] = {
    {"", 0, 0},    {"n", -9, 0},  {"u", -6, 0},  {"m", -3, 0},  {"k", 3, 0},   {"M", 6, 0},
    {"G", 9, 0},   {"T", 12, 0},  {"P", 15, 0},  {"E", 18, 0},  {"Ki", 0, 10}, {"Mi", 0, 20},
    {"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50}, {"Ei", 0, 60},
};

#define SUFFIX_HELP                                                                                \
    "use n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an exponent such as e3"

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int q_fail(ds_err *err, const char *s, const char *why)
{
    char q[DS_QUOTE_BUF];
    return ds_err_set(err, "quantity %s: %s", ds_quote(s, DS_QUANTITY_MAX_LEN, q, sizeof q), why);
}

static int ascii_ieq(const char *a, const char *b)
{
    for (; *a != '\0' && *b != '\0'; a++, b++) {
        char ca = (*a >= 'A' && *a <= 'Z') ? (char)(*a - 'A' + 'a') : *a;
        char cb = (*b >= 'A' && *b <= 'Z') ? (char)(*b - 'A' + 'a') : *b;
        if (ca != cb)
            return 0;
    }
    return *a == *b;
}

/* The valid suffix that s spells in the wrong case ("ki", "KI" -> "Ki"), or NULL. */
static const char *case_hint(const char *s)
{
    for (size_t i = 0; i < sizeof qsuffixes / sizeof qsuffixes[0]; i++) {
        if (qsuffixes[i].name[0] != '\0' && ascii_ieq(s, qsuffixes[i].name))
            return qsuffixes[i].name;
    }
    return NULL;
}

static int unknown_suffix(ds_err *err, const char *s, const char *suf)
{
    char sq[DS_QUOTE_BUF], why[DS_QUOTE_BUF + 128];
    ds_quote(suf, DS_QUANTITY_MAX_LEN, sq, sizeof sq);
    const char *hint = case_hint(suf);
    if (hint != NULL)
        snprintf(why, sizeof why,
                 "unknown suffix %s (suffixes are case-sensitive: did you mean \"%s\"?)", sq, hint);
    else
        snprintf(why, sizeof why, "unknown suffix %s (" SUFFIX_HELP ")", sq);
    return q_fail(err, s, why);
}

/* Reads the exponent of "e3", "E-2", "e+10". Returns 0, or -1 with err set. */
static int parse_exponent(const char *s, const char *p, long long *exp10, ds_err *err)
{
    int neg = 0;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    if (!is_digit(*p))
        return q_fail(err, s, "exponent has no digits (write e.g. \"1e3\" or \"5e-3\")");
    long long v = 0;
    for (; is_digit(*p); p++) {
        v = v * 10 + (*p - '0');
        if (v > EXP_LIMIT)
            return q_fail(err, s, "exponent out of range");
    }
    *exp10 = neg ? -v : v;
    return 0;
}

static int unexpected_char(ds_err *err, const char *s, const char *p)
{
    char why[160];
    unsigned char c = (unsigned char)*p;
    if (c >= 0x20 && c < 0x7f)
        snprintf(
            why, sizeof why,
            "unexpected '%c' at offset %d (expected e.g. \"100m\", \"1.5\", \"2Gi\" or \"1e3\")", c,
            (int)(p - s));
    else
        snprintf(why, sizeof why, "unexpected byte 0x%02x at offset %d", c, (int)(p - s));
    return q_fail(err, s, why);
}

/* Syntax: fills n or fails with a message naming what is wrong. */
static int parse_syntax(const char *s, struct qnum *n, ds_err *err)
{
    memset(n, 0, sizeof *n);
    const char *p = s;
    if (*p == '+' || *p == '-')
        n->negative = *p++ == '-';
    int nint = 0, nfrac = 0;
    for (; is_digit(*p); p++, nint++)
        n->digits[n->ndigits++] = (unsigned char)(*p - '0');
    if (*p == '.') {
        for (p++; is_digit(*p); p++, nfrac++)
            n->digits[n->ndigits++] = (unsigned char)(*p - '0');
    }
    if (nint + nfrac == 0) {
        if (*p == '\0')
            return q_fail(err, s, "no digits");
        if (strchr("eEinumkKMGTP", *p) == NULL)
            return unexpected_char(err, s, p);
        return q_fail(err, s, "no number before the suffix");
    }
    n->exp10 = -nfrac;

    /* Suffix: letters from Kubernetes' suffix alphabet, then an optional signed digit run. */
    const char *suf = p;
    while (*p != '\0' && strchr("eEinumkKMGTP", *p) != NULL)
        p++;
    const char *letters_end = p;
    if (*p == '+' || *p == '-')
        p++;
    while (is_digit(*p))
        p++;
    if (*p != '\0')
        return case_hint(suf) != NULL ? unknown_suffix(err, s, suf) : unexpected_char(err, s, p);
    if ((*suf == 'e' || *suf == 'E') && suf[1] != '\0' && letters_end == suf + 1) {
        long long e = 0;
        if (parse_exponent(s, suf + 1, &e, err) != 0)
            return -1;
        n->exp10 += e;
        return 0;
    }
    for (size_t i = 0; i < sizeof qsuffixes / sizeof qsuffixes[0]; i++) {
        if (strcmp(suf, qsuffixes[i].name) == 0) {
            n->exp10 += qsuffixes[i].exp10;
            n->exp2 = qsuffixes[i].exp2;
            return 0;
        }
    }
    return unknown_suffix(err, s, suf);
}

/* digits *= 2^exp2, exactly (long multiplication in base 10). */
static void apply_binary(struct qnum *n)
{
    if (n->exp2 == 0)
        return;
    unsigned long long mul = 1ULL << n->exp2;
    unsigned char out[DIGITS_CAP];
    int len = n->ndigits;
    unsigned __int128 carry = 0;
    int pos = DIGITS_CAP;
    for (int i = len - 1; i >= 0; i--) {
        carry += (unsigned __int128)n->digits[i] * mul;
        out[--pos] = (unsigned char)(carry % 10);
        carry /= 10;
    }
    while (carry > 0) {
        out[--pos] = (unsigned char)(carry % 10);
        carry /= 10;
    }
    n->ndigits = DIGITS_CAP - pos;
    memcpy(n->digits, out + pos, (size_t)n->ndigits);
    n->exp2 = 0;
}

/* |value| * 10^scale, rounded up; -1 when it exceeds limit. */
static int magnitude(const struct qnum *n, int scale, unsigned long long limit,
                     unsigned long long *out)
{
    int first = 0;
    while (first < n->ndigits && n->digits[first] == 0)
        first++;
    int sig = n->ndigits - first;
    if (sig == 0) {
        *out = 0;
        return 0;
    }
    long long e = n->exp10 + scale;
    long long int_digits = sig + e; /* digits left of the decimal point */
    if (int_digits > 20)
        return -1;
    unsigned __int128 v = 0;
    int round_up = 0;
    for (int i = 0; i < sig; i++) {
        if (i < int_digits)
            v = v * 10 + n->digits[first + i];
        else if (n->digits[first + i] != 0)
            round_up = 1;
    }
    for (long long i = sig; i < int_digits; i++)
        v *= 10;
    v += (unsigned)round_up;
    if (v > limit)
        return -1;
    *out = (unsigned long long)v;
    return 0;
}

static int parse_scaled(const char *s, int scale, int64_t *result, ds_err *err)
{
    if (s == NULL)
        return ds_err_set(err, "quantity: no value given");
    size_t len = strnlen(s, DS_QUANTITY_MAX_LEN + 1);
    if (len > DS_QUANTITY_MAX_LEN)
        return q_fail(err, s, "longer than " STR(DS_QUANTITY_MAX_LEN) " characters");
    if (len == 0)
        return q_fail(err, s, "empty (write e.g. \"100m\", \"1.5\" or \"2Gi\")");
    struct qnum n;
    if (parse_syntax(s, &n, err) != 0)
        return -1;
    apply_binary(&n);
    unsigned long long limit = n.negative ? (unsigned long long)INT64_MAX + 1 : INT64_MAX;
    unsigned long long mag = 0;
    if (magnitude(&n, scale, limit, &mag) != 0)
        return q_fail(err, s,
                      scale == 3 ? "value out of range (does not fit in 64-bit milli-units)"
                                 : "value out of range (does not fit in a 64-bit integer)");
    if (n.negative)
        *result = mag == (unsigned long long)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
    else
        *result = (int64_t)mag;
    return 0;
}

int ds_quantity_parse_milli(const char *s, int64_t *milli, ds_err *err)
{
    return parse_scaled(s, 3, milli, err);
}

int ds_quantity_parse_value(const char *s, int64_t *value, ds_err *err)
{
    return parse_scaled(s, 0, value, err);
}
