/* timefmt.c: Go-style durations and RFC 3339 timestamps (see timefmt.h).
 *
 * Durations follow Go's time.ParseDuration: the value is accumulated exactly in integer nanoseconds
 * (so "1.1s" is 1100000000 ns, never 1099999999) with the same 2^63-1 ns limit, then converted to
 * seconds. Timestamps are converted with calendar arithmetic only (no timegm, no TZ state). */
#include "timefmt.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "strquote.h"

#define NS_PER_US       UINT64_C(1000)
#define NS_PER_MS       UINT64_C(1000000)
#define NS_PER_S        UINT64_C(1000000000)
#define NS_PER_MIN      (60 * NS_PER_S)
#define NS_PER_HOUR     (60 * NS_PER_MIN)
#define DURATION_NS_MAX UINT64_C(9223372036854775807) /* 2^63-1 ns, Go's time.Duration limit */
#define STR_(x)         #x
#define STR(x)          STR_(x)

struct dur_unit {
    const char *name;
    uint64_t ns;
};

/* Go's unit table; "µs" is accepted as U+00B5 (micro sign) and U+03BC (Greek mu). */
static const struct dur_unit dur_units[] = {
    {"ns", 1},         {"us", NS_PER_US}, {"\xc2\xb5s", NS_PER_US}, {"\xce\xbcs", NS_PER_US},
    {"ms", NS_PER_MS}, {"s", NS_PER_S},   {"m", NS_PER_MIN},        {"h", NS_PER_HOUR},
};

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int dur_fail(ds_err *err, const char *s, const char *why)
{
    char q[DS_QUOTE_BUF];
    return ds_err_set(err, "duration %s: %s", ds_quote(s, DS_DURATION_MAX_LEN, q, sizeof q), why);
}

static int dur_range(ds_err *err, const char *s)
{
    return dur_fail(err, s, "value out of range (largest is 2562047h47m16.854775807s)");
}

/* Looks up the unit s[0..len). Returns its size in ns, or 0 when unknown. */
static uint64_t unit_ns(const char *u, size_t len)
{
    for (size_t i = 0; i < sizeof dur_units / sizeof dur_units[0]; i++) {
        if (strlen(dur_units[i].name) == len && memcmp(dur_units[i].name, u, len) == 0)
            return dur_units[i].ns;
    }
    return 0;
}

int ds_duration_parse(const char *s, double *seconds, ds_err *err)
{
    if (s == NULL)
        return ds_err_set(err, "duration: no value given");
    size_t len = strnlen(s, DS_DURATION_MAX_LEN + 1);
    if (len > DS_DURATION_MAX_LEN)
        return dur_fail(err, s, "longer than " STR(DS_DURATION_MAX_LEN) " characters");
    if (len == 0)
        return dur_fail(err, s, "empty (write e.g. \"30s\", \"1m30s\" or \"0\")");
    const char *p = s;
    if (*p == '-')
        return dur_fail(err, s, "negative durations are not allowed");
    if (*p == '+')
        p++;
    if (strcmp(p, "0") == 0) {
        *seconds = 0.0;
        return 0;
    }
    if (*p == '\0')
        return dur_fail(err, s, "no number after the sign");

    uint64_t total = 0;
    while (*p != '\0') {
        if (!is_digit(*p) && *p != '.') {
            char why[96];
            snprintf(why, sizeof why, "expected a number at offset %d, found '%c'", (int)(p - s),
                     (*p >= 0x20 && *p < 0x7f) ? *p : '?');
            return dur_fail(err, s, why);
        }
        /* Whole part [0-9]*, exact; beyond 2^63 it is out of range anyway. */
        uint64_t whole = 0;
        int have_whole = 0;
        for (; is_digit(*p); p++) {
            have_whole = 1;
            if (whole > (UINT64_C(1) << 63) / 10)
                return dur_range(err, s);
            whole = whole * 10 + (uint64_t)(*p - '0');
            if (whole > (UINT64_C(1) << 63))
                return dur_range(err, s);
        }
        /* Fraction (\.[0-9]*)?: digits are kept while the numerator stays below 2^63, as Go does;
         * later digits are dropped. The value is frac * unit / 10^kept, truncated to whole ns. */
        uint64_t frac = 0;
        int kept = 0, have_frac = 0, frac_full = 0;
        if (*p == '.') {
            for (p++; is_digit(*p); p++) {
                have_frac = 1;
                if (frac_full || frac > (UINT64_C(1) << 63) / 10 ||
                    frac * 10 + (uint64_t)(*p - '0') > (UINT64_C(1) << 63)) {
                    frac_full = 1;
                    continue;
                }
                frac = frac * 10 + (uint64_t)(*p - '0');
                kept++;
            }
        }
        if (!have_whole && !have_frac)
            return dur_fail(err, s, "a '.' must have digits next to it");
        const char *u = p;
        while (*p != '\0' && !is_digit(*p) && *p != '.')
            p++;
        if (p == u)
            return dur_fail(err, s, "missing unit (one of ns, us, ms, s, m, h; e.g. \"30s\")");
        uint64_t unit = unit_ns(u, (size_t)(p - u));
        if (unit == 0) {
            char uq[DS_QUOTE_BUF], why[DS_QUOTE_BUF + 64];
            char ubuf[DS_DURATION_MAX_LEN + 1];
            size_t ulen = (size_t)(p - u);
            memcpy(ubuf, u, ulen);
            ubuf[ulen] = '\0';
            snprintf(why, sizeof why, "unknown unit %s (use ns, us, ms, s, m or h)",
                     ds_quote(ubuf, DS_DURATION_MAX_LEN, uq, sizeof uq));
            return dur_fail(err, s, why);
        }
        if (whole > DURATION_NS_MAX / unit)
            return dur_range(err, s);
        unsigned __int128 v = (unsigned __int128)whole * unit;
        /* frac * unit < 2^63 * 3.6e12 < 10^32: with 32 or more kept digits the part is 0 ns. */
        if (frac > 0 && kept < 32) {
            unsigned __int128 scale = 1;
            for (int i = 0; i < kept; i++)
                scale *= 10;
            v += (unsigned __int128)frac * unit / scale;
        }
        v += total;
        if (v > DURATION_NS_MAX)
            return dur_range(err, s);
        total = (uint64_t)v;
    }
    *seconds = (double)(total / NS_PER_S) + (double)(total % NS_PER_S) / 1e9;
    return 0;
}

/* Appends text to out (capacity cap, current length *pos), truncating, always NUL-terminated. */
static void put_str(char *out, size_t cap, size_t *pos, const char *text)
{
    for (; *text != '\0' && *pos + 1 < cap; text++)
        out[(*pos)++] = *text;
    out[*pos] = '\0';
}

static void put_u64(char *out, size_t cap, size_t *pos, uint64_t v)
{
    char num[24];
    snprintf(num, sizeof num, "%llu", (unsigned long long)v);
    put_str(out, cap, pos, num);
}

/* Writes v / 10^digits (digits <= 9) as "<int>[.<frac without trailing zeros>]". */
static void put_fixed(char *out, size_t cap, size_t *pos, uint64_t v, int digits)
{
    char f[10];
    int n = digits < 9 ? digits : 9;
    f[n] = '\0';
    for (int i = n - 1; i >= 0; i--) {
        f[i] = (char)('0' + v % 10);
        v /= 10;
    }
    put_u64(out, cap, pos, v);
    while (n > 0 && f[n - 1] == '0')
        f[--n] = '\0';
    if (n == 0)
        return;
    put_str(out, cap, pos, ".");
    put_str(out, cap, pos, f);
}

void ds_duration_format(double seconds, char *buf, unsigned long bufsize)
{
    if (buf == NULL || bufsize == 0)
        return;
    char out[64];
    size_t pos = 0;
    out[0] = '\0';
    if (isnan(seconds)) {
        snprintf(buf, bufsize, "NaN");
        return;
    }
    if (seconds < 0) {
        put_str(out, sizeof out, &pos, "-");
        seconds = -seconds;
    }
    double ns_d = round(seconds * 1e9);
    if (isinf(seconds) || ns_d >= 9223372036854775808.0) {
        /* Beyond Go's range (about 292 years): no exact form, say so plainly. */
        if (isinf(seconds))
            snprintf(out + pos, sizeof out - pos, "inf");
        else
            snprintf(out + pos, sizeof out - pos, "%.0fh", seconds / 3600.0);
        snprintf(buf, bufsize, "%s", out);
        return;
    }
    uint64_t ns = (uint64_t)ns_d;
    /* A double carries about 15 significant digits: past that, digits of ns are noise from the
     * conversion (1974938h54m47.012772864s), so round them off (1974938h54m47.01277s). */
    uint64_t unit = 1;
    for (uint64_t n = ns; n >= UINT64_C(1000000000000000); n /= 10)
        unit *= 10;
    if (unit > 1)
        ns = (ns / unit + (ns % unit >= unit / 2)) * unit;
    if (ns == 0) {
        snprintf(buf, bufsize, "0s");
        return;
    }
    if (ns < NS_PER_S) {
        /* Sub-second: one unit with a fraction, as Go does ("1.5µs", "250ms"). */
        if (ns < NS_PER_US) {
            put_u64(out, sizeof out, &pos, ns);
            put_str(out, sizeof out, &pos, "ns");
        } else if (ns < NS_PER_MS) {
            put_fixed(out, sizeof out, &pos, ns, 3);
            put_str(out, sizeof out, &pos, "\xc2\xb5s");
        } else {
            put_fixed(out, sizeof out, &pos, ns, 6);
            put_str(out, sizeof out, &pos, "ms");
        }
        snprintf(buf, bufsize, "%s", out);
        return;
    }
    uint64_t h = ns / NS_PER_HOUR, m = ns % NS_PER_HOUR / NS_PER_MIN, sec_ns = ns % NS_PER_MIN;
    if (h > 0) {
        put_u64(out, sizeof out, &pos, h);
        put_str(out, sizeof out, &pos, "h");
    }
    if (h > 0 || m > 0) {
        put_u64(out, sizeof out, &pos, m);
        put_str(out, sizeof out, &pos, "m");
    }
    put_fixed(out, sizeof out, &pos, sec_ns, 9);
    put_str(out, sizeof out, &pos, "s");
    snprintf(buf, bufsize, "%s", out);
}

/* ---- RFC 3339 timestamps ---- */

static int is_leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int64_t y, int m)
{
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

/* Days since 1970-01-01 of the proleptic Gregorian date y-m-d (m 1-12, d valid). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* Reads exactly n digits at s; -1 if any is not a digit. */
static int digits_at(const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!is_digit(s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

static int ts_fail(ds_err *err, const char *s, const char *why)
{
    char q[DS_QUOTE_BUF];
    return ds_err_set(err, "timestamp %s: %s", ds_quote(s, DS_TIMESTAMP_MAX_LEN, q, sizeof q), why);
}

#define TS_FORM "expected RFC 3339 form YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)"

static int ts_range(ds_err *err, const char *s, const char *field, int got, int lo, int hi)
{
    char why[128];
    snprintf(why, sizeof why, "%s %d out of range %d-%d", field, got, lo, hi);
    return ts_fail(err, s, why);
}

int ds_timestamp_parse(const char *s, double *epoch_s, ds_err *err)
{
    if (s == NULL)
        return ds_err_set(err, "timestamp: no value given");
    size_t len = strnlen(s, DS_TIMESTAMP_MAX_LEN + 1);
    if (len > DS_TIMESTAMP_MAX_LEN)
        return ts_fail(err, s, "longer than " STR(DS_TIMESTAMP_MAX_LEN) " characters");
    if (len == 0)
        return ts_fail(err, s, "empty (" TS_FORM ")");
    /* "2006-01-02T15:04:05" is 19 characters; the zone follows. */
    if (len < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' ||
        s[16] != ':')
        return ts_fail(err, s, TS_FORM);
    int year = digits_at(s, 4), month = digits_at(s + 5, 2), day = digits_at(s + 8, 2);
    int hour = digits_at(s + 11, 2), min = digits_at(s + 14, 2), sec = digits_at(s + 17, 2);
    if (year < 0 || month < 0 || day < 0 || hour < 0 || min < 0 || sec < 0)
        return ts_fail(err, s, TS_FORM);
    if (month < 1 || month > 12)
        return ts_range(err, s, "month", month, 1, 12);
    int dim = days_in_month(year, month);
    if (day < 1 || day > dim) {
        char why[128];
        snprintf(why, sizeof why, "day %d out of range 1-%d for %04d-%02d", day, dim, year, month);
        return ts_fail(err, s, why);
    }
    if (hour > 23)
        return ts_range(err, s, "hour", hour, 0, 23);
    if (min > 59)
        return ts_range(err, s, "minute", min, 0, 59);
    if (sec > 59)
        return ts_fail(err, s,
                       sec == 60 ? "second 60 (leap second) is not supported"
                                 : "second out of range 0-59");
    const char *p = s + 19;
    /* Fraction: any number of digits, kept to nanoseconds (further digits are dropped). */
    int64_t frac_ns = 0;
    if (*p == '.') {
        p++;
        if (!is_digit(*p))
            return ts_fail(err, s, "a '.' must be followed by fractional-second digits");
        int64_t mult = 100000000;
        for (; is_digit(*p); p++) {
            frac_ns += (*p - '0') * mult;
            mult /= 10;
        }
    }
    int offset_s = 0;
    if ((p[0] == 'Z' || p[0] == 'z') && p[1] == '\0') {
        offset_s = 0;
    } else if ((p[0] == '+' || p[0] == '-') && strlen(p) == 6 && p[3] == ':') {
        int oh = digits_at(p + 1, 2), om = digits_at(p + 4, 2);
        if (oh < 0 || om < 0)
            return ts_fail(err, s, TS_FORM);
        if (oh > 23)
            return ts_range(err, s, "offset hour", oh, 0, 23);
        if (om > 59)
            return ts_range(err, s, "offset minute", om, 0, 59);
        offset_s = (oh * 60 + om) * 60 * (p[0] == '-' ? -1 : 1);
    } else if (*p == '\0') {
        return ts_fail(err, s, "missing time zone (append Z or an offset such as +02:00)");
    } else {
        return ts_fail(err, s, TS_FORM);
    }
    int64_t days = days_from_civil(year, month, day);
    int64_t secs = days * 86400 + hour * 3600 + min * 60 + sec - offset_s;
    *epoch_s = (double)secs + (double)frac_ns / 1e9;
    return 0;
}
