/* k8s_names.h: Kubernetes name syntax checks (namespace names, object names, label keys and
 * values, extended resource names), following the rules of the Kubernetes API validation.
 *
 * Each check returns NULL when the string is valid, else a static reason in words ("must be ...")
 * that the caller combines with the field path and the quoted value. */
#ifndef DAGSCHED_K8S_NAMES_H
#define DAGSCHED_K8S_NAMES_H

#define DS_DNS_LABEL_MAX     63
#define DS_DNS_SUBDOMAIN_MAX 253
#define DS_QUALIFIED_MAX     63 /* the name part of a qualified name, and a label value */

/* RFC 1123 label: namespaces. */
const char *ds_check_dns_label(const char *s);

/* RFC 1123 subdomain: most object names (PriorityClass, the policy's metadata.name). */
const char *ds_check_dns_subdomain(const char *s);

/* Qualified name ([prefix/]name): label and annotation keys. */
const char *ds_check_qualified_name(const char *s);

/* Label value: empty, or up to 63 alphanumerics, '-', '_', '.' starting and ending alphanumeric. */
const char *ds_check_label_value(const char *s);

/* Extended resource name: a qualified name with a domain prefix outside kubernetes.io. */
const char *ds_check_extended_resource_name(const char *s);

#endif
