/* k8s_names.c: Kubernetes name syntax checks (see k8s_names.h). */
#include "k8s_names.h"

#include <stdbool.h>
#include <string.h>

static const char EMPTY[] = "must not be empty";
static const char DNS_LABEL[] = "must be a lowercase RFC 1123 label: at most 63 characters of a-z, "
                                "0-9 and '-', starting and ending with an alphanumeric character";
static const char DNS_SUBDOMAIN[] =
    "must be a lowercase RFC 1123 subdomain: at most 253 characters of a-z, 0-9, '-' and '.', "
    "each '.'-separated part starting and ending with an alphanumeric character";
static const char QUALIFIED_PREFIX[] = "must be a qualified name: the prefix before '/' must be a "
                                       "lowercase RFC 1123 subdomain of at most 253 characters";
static const char QUALIFIED_NAME[] =
    "must be a qualified name: the name (after an optional prefix and '/') must be 1-63 "
    "characters of alphanumerics, '-', '_' and '.', starting and ending with an alphanumeric "
    "character";
static const char QUALIFIED_SLASH[] = "must be a qualified name: at most one '/'";
static const char LABEL_VALUE[] = "must be at most 63 characters of alphanumerics, '-', '_' and "
                                  "'.', starting and ending with an alphanumeric character";
static const char EXT_NO_PREFIX[] =
    "must be an extended resource name with a domain prefix, such as nvidia.com/gpu";
static const char EXT_RESERVED[] = "must not use the kubernetes.io domain (reserved for built-in "
                                   "resources)";

static bool lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool alnum(char c)
{
    return lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* One RFC 1123 label of s[0..len): [a-z0-9]([-a-z0-9]*[a-z0-9])? */
static bool dns_label_ok(const char *s, size_t len)
{
    if (len == 0 || len > DS_DNS_LABEL_MAX)
        return false;
    if (!lower_alnum(s[0]) || !lower_alnum(s[len - 1]))
        return false;
    for (size_t i = 1; i + 1 < len; i++)
        if (!lower_alnum(s[i]) && s[i] != '-')
            return false;
    return true;
}

static bool dns_subdomain_ok(const char *s, size_t len)
{
    if (len == 0 || len > DS_DNS_SUBDOMAIN_MAX)
        return false;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || s[i] == '.') {
            size_t part = i - start;
            /* Each part follows the label syntax; the 63-character limit applies to the whole. */
            if (part == 0 || !lower_alnum(s[start]) || !lower_alnum(s[i - 1]))
                return false;
            for (size_t j = start; j < i; j++)
                if (!lower_alnum(s[j]) && s[j] != '-')
                    return false;
            start = i + 1;
        }
    }
    return true;
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], 1..63 characters. */
static bool name_part_ok(const char *s, size_t len)
{
    if (len == 0 || len > DS_QUALIFIED_MAX)
        return false;
    if (!alnum(s[0]) || !alnum(s[len - 1]))
        return false;
    for (size_t i = 1; i + 1 < len; i++)
        if (!alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    return true;
}

const char *ds_check_dns_label(const char *s)
{
    if (s == NULL || s[0] == '\0')
        return EMPTY;
    return dns_label_ok(s, strlen(s)) ? NULL : DNS_LABEL;
}

const char *ds_check_dns_subdomain(const char *s)
{
    if (s == NULL || s[0] == '\0')
        return EMPTY;
    return dns_subdomain_ok(s, strlen(s)) ? NULL : DNS_SUBDOMAIN;
}

const char *ds_check_qualified_name(const char *s)
{
    if (s == NULL || s[0] == '\0')
        return EMPTY;
    const char *slash = strchr(s, '/');
    if (slash == NULL)
        return name_part_ok(s, strlen(s)) ? NULL : QUALIFIED_NAME;
    if (strchr(slash + 1, '/') != NULL)
        return QUALIFIED_SLASH;
    if (!dns_subdomain_ok(s, (size_t)(slash - s)))
        return QUALIFIED_PREFIX;
    return name_part_ok(slash + 1, strlen(slash + 1)) ? NULL : QUALIFIED_NAME;
}

const char *ds_check_label_value(const char *s)
{
    if (s == NULL || s[0] == '\0')
        return NULL;
    return name_part_ok(s, strlen(s)) ? NULL : LABEL_VALUE;
}

const char *ds_check_extended_resource_name(const char *s)
{
    const char *why = ds_check_qualified_name(s);
    if (why != NULL)
        return why;
    const char *slash = strchr(s, '/');
    if (slash == NULL)
        return EXT_NO_PREFIX;
    size_t plen = (size_t)(slash - s);
    static const char k8s[] = "kubernetes.io";
    size_t klen = sizeof k8s - 1;
    if (plen == klen && memcmp(s, k8s, klen) == 0)
        return EXT_RESERVED;
    if (plen > klen && s[plen - klen - 1] == '.' && memcmp(s + plen - klen, k8s, klen) == 0)
        return EXT_RESERVED;
    return NULL;
}
