/* xml_escape.c: see xml_escape.h. */
#include "xml_escape.h"

#include <string.h>

const char *ds_xml_escape(const char *s, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (; s != NULL && *s; s++) {
        const char *rep;
        char one[2] = {*s, '\0'};
        switch (*s) {
        case '&':
            rep = "&amp;";
            break;
        case '<':
            rep = "&lt;";
            break;
        case '>':
            rep = "&gt;";
            break;
        case '"':
            rep = "&quot;";
            break;
        default:
            if ((unsigned char)*s < 0x20)
                continue;
            rep = one;
        }
        size_t len = strlen(rep);
        if (n + len >= size)
            break;
        memcpy(buf + n, rep, len);
        n += len;
        buf[n] = '\0';
    }
    return buf;
}
