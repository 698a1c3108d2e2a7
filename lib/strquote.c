/* strquote.c: quoting of untrusted input for error messages (see strquote.h). */
#include "strquote.h"

#include <stdio.h>
#include <string.h>

/* Escaped form of one byte into out (at least 5 bytes); returns its length. */
static size_t escape_byte(unsigned char c, char *out)
{
    if (c == '"' || c == '\\') {
        out[0] = '\\';
        out[1] = (char)c;
        out[2] = '\0';
        return 2;
    }
    if (c < 0x20 || c >= 0x7f) {
        snprintf(out, 5, "\\x%02x", c);
        return 4;
    }
    out[0] = (char)c;
    out[1] = '\0';
    return 1;
}

const char *ds_quote(const char *s, size_t max_in, char *buf, size_t bufsize)
{
    if (buf == NULL || bufsize == 0)
        return "";
    if (s == NULL) {
        snprintf(buf, bufsize, "(null)");
        return buf;
    }
    /* Layout: '"' body '"' or '"' body '"...', NUL. Keep room for the longest ending. */
    const char *ellipsis = "\"...";
    size_t tail = strlen(ellipsis) + 1;
    if (bufsize < tail + 1) {
        buf[0] = '\0';
        return buf;
    }
    size_t pos = 0;
    buf[pos++] = '"';
    int cut = 0;
    size_t i = 0;
    for (; s[i] != '\0'; i++) {
        if (i >= max_in) {
            cut = 1;
            break;
        }
        char esc[5];
        size_t n = escape_byte((unsigned char)s[i], esc);
        if (pos + n + tail > bufsize) {
            cut = 1;
            break;
        }
        memcpy(buf + pos, esc, n);
        pos += n;
    }
    if (cut) {
        memcpy(buf + pos, ellipsis, strlen(ellipsis) + 1);
    } else {
        buf[pos++] = '"';
        buf[pos] = '\0';
    }
    return buf;
}
