/* readfile.c: reading a whole file, bounded (see readfile.h). */
#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytebuf.h"

/* Read fd to its end, expecting about `expect` bytes. */
static int read_all(int fd, const char *name, size_t max_bytes, size_t expect, char **out,
                    size_t *len, ds_err *err)
{
    /* One byte past the limit says the file grew too large while it was read. */
    ds_bytebuf b;
    ds_bytebuf_init(&b, max_bytes < SIZE_MAX ? max_bytes + 1 : max_bytes);
    size_t want = expect + 1; /* the announced size, and one to see the end */
    int rc = 0;
    for (;;) {
        if (b.len > max_bytes) {
            rc = ds_err_set(err, "%s: file too large (limit %zu bytes)", name, max_bytes);
            break;
        }
        size_t n = want < b.limit - b.len ? want : b.limit - b.len;
        if (n < 4096 && b.limit - b.len >= 4096)
            n = 4096;
        char *room = ds_bytebuf_room(&b, n);
        if (room == NULL) {
            rc = ds_err_set(err, "%s: out of memory", name);
            break;
        }
        ssize_t r = read(fd, room, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = ds_err_set(err, "%s: %s", name, strerror(errno));
            break;
        }
        ds_bytebuf_commit(&b, (size_t)r);
        if (r == 0)
            break;
        want = b.len; /* more than announced: read as much again */
    }
    if (rc == 0 && (*out = ds_bytebuf_take(&b, len)) == NULL)
        rc = ds_err_set(err, "%s: out of memory", name);
    ds_bytebuf_free(&b);
    return rc;
}

int rt_read_file(const char *path, size_t max_bytes, char **out, size_t *len, ds_err *err)
{
    *out = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ds_err_set(err, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return ds_err_set(err, "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return ds_err_set(err, "%s: not a regular file", path);
    }
    if ((uint64_t)st.st_size > max_bytes) {
        close(fd);
        return ds_err_set(err, "%s: file too large (got %lld bytes, limit %zu)", path,
                          (long long)st.st_size, max_bytes);
    }
    int rc = read_all(fd, path, max_bytes, (size_t)st.st_size, out, len, err);
    close(fd);
    return rc;
}

int rt_read_fd(int fd, const char *name, size_t max_bytes, char **out, size_t *len, ds_err *err)
{
    *out = NULL;
    *len = 0;
    return read_all(fd, name, max_bytes, 0, out, len, err);
}
