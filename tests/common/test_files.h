/* test_files.h: temporary directories and files for the unit tests that read real files (the
 * kubeconfig and its certificates, bounded whole-file reads): one helper each, header-only. */
#ifndef DAGSCHED_TEST_FILES_H
#define DAGSCHED_TEST_FILES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Create a fresh temporary directory; the path is written into buf (size >= 64). */
static inline int ds_test_mkdtemp(char *buf, size_t size)
{
    snprintf(buf, size, "/tmp/dagsched-test-XXXXXX");
    return mkdtemp(buf) != NULL ? 0 : -1;
}

/* Write text to dir/name; returns 0 on success. The full path goes into path (size >= 512). */
static inline int ds_test_write(const char *dir, const char *name, const char *text, char *path,
                                size_t path_size)
{
    snprintf(path, path_size, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    size_t n = strlen(text);
    int rc = fwrite(text, 1, n, f) == n ? 0 : -1;
    if (fclose(f) != 0)
        rc = -1;
    return rc;
}

/* Remove a directory and the files in it (one level). */
static inline void ds_test_rmdir(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

#endif
