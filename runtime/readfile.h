/* readfile.h: reading a whole file, bounded: the one way the binaries read a file they are given
 * (kubeconfig, service-account token, certificates, policies, workloads). */
#ifndef DAGSCHED_RUNTIME_READFILE_H
#define DAGSCHED_RUNTIME_READFILE_H

#include <stddef.h>

#include "ds_error.h"

/* Read a whole regular file of at most max_bytes into a NUL-terminated buffer (*len excludes the
 * NUL; the caller frees *out). A file whose size says less than it holds (those of /proc) is
 * read whole, and refused once past the limit. Errors name the path: "/x/y: No such file or
 * directory", "/x/y: not a regular file", "/x/y: file too large (got 9 bytes, limit 8)". */
int rt_read_file(const char *path, size_t max_bytes, char **out, size_t *len, ds_err *err);

/* The same for an open descriptor that need not be a regular file (standard input); name is used
 * in errors. The descriptor is not closed. */
int rt_read_fd(int fd, const char *name, size_t max_bytes, char **out, size_t *len, ds_err *err);

#endif
