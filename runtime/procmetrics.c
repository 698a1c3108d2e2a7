/* procmetrics.c: the process's own metrics, read from /proc and malloc when /metrics is rendered
 * (see procmetrics.h). */
#include "procmetrics.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#define STAT_MAX 4096 /* /proc/self/stat is a few hundred bytes */

typedef struct proc_families {
    metrics_family *rss, *vsize, *cpu, *start, *fds, *max_fds, *threads, *heap;
    double boot_time; /* 0: unknown */
} proc_families;

int rt_proc_stat_parse(const char *text, double ticks_per_s, rt_proc_stat *out)
{
    if (text == NULL || !(ticks_per_s > 0))
        return -1;
    const char *p = strrchr(text, ')');
    if (p == NULL)
        return -1;
    p++;
    /* Fields after the name, numbered as in proc(5): 3 state, 14 utime, 15 stime,
     * 20 num_threads, 22 starttime. */
    unsigned long long utime = 0, stime = 0, start = 0;
    long threads = 0;
    bool have_u = false, have_s = false, have_t = false, have_st = false;
    int field = 2;
    while (*p != '\0') {
        while (*p == ' ')
            p++;
        if (*p == '\0' || *p == '\n')
            break;
        field++;
        const char *tok = p;
        while (*p != ' ' && *p != '\0' && *p != '\n')
            p++;
        if (field == 14 || field == 15 || field == 20 || field == 22) {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(tok, &end, 10);
            if (end != p || errno != 0 || *tok == '-')
                return -1;
            if (field == 14) {
                utime = v;
                have_u = true;
            } else if (field == 15) {
                stime = v;
                have_s = true;
            } else if (field == 20) {
                threads = (long)v;
                have_t = true;
            } else {
                start = v;
                have_st = true;
                break;
            }
        }
    }
    if (!have_u || !have_s || !have_t || !have_st)
        return -1;
    out->cpu_s = (double)(utime + stime) / ticks_per_s;
    out->start_ticks = (double)start;
    out->threads = threads;
    return 0;
}

int rt_proc_boot_time_parse(const char *text, double *out)
{
    if (text == NULL)
        return -1;
    for (const char *line = text; line != NULL && *line != '\0';) {
        if (strncmp(line, "btime ", 6) == 0) {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(line + 6, &end, 10);
            if (errno != 0 || end == line + 6 || (*end != '\n' && *end != '\0') || v == 0)
                return -1;
            *out = (double)v;
            return 0;
        }
        line = strchr(line, '\n');
        if (line != NULL)
            line++;
    }
    return -1;
}

/* Read a small /proc file into buf (NUL-terminated). 0, or -1. */
static int read_small(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return -1;
    size_t n = fread(buf, 1, size - 1, f);
    int bad = ferror(f);
    fclose(f);
    if (bad || n == 0)
        return -1;
    buf[n] = '\0';
    return 0;
}

static long count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL)
        return -1;
    long n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n - 1; /* the directory's own descriptor */
}

/* The boot time from /proc/stat, line by line (its `intr` line can be long); 0 when unknown. */
static double boot_time(void)
{
    FILE *f = fopen("/proc/stat", "re");
    if (f == NULL)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    double t = 0;
    while (getline(&line, &cap, f) > 0)
        if (rt_proc_boot_time_parse(line, &t) == 0)
            break;
    free(line);
    fclose(f);
    return t;
}

static void refresh(void *user)
{
    proc_families *p = user;
    long page = sysconf(_SC_PAGESIZE), ticks = sysconf(_SC_CLK_TCK);
    char buf[STAT_MAX];
    unsigned long long vsize_pages, rss_pages;
    if (page > 0 && read_small("/proc/self/statm", buf, sizeof buf) == 0 &&
        sscanf(buf, "%llu %llu", &vsize_pages, &rss_pages) == 2) {
        metrics_set(p->vsize, NULL, (double)vsize_pages * (double)page);
        metrics_set(p->rss, NULL, (double)rss_pages * (double)page);
    }
    rt_proc_stat st;
    if (ticks > 0 && read_small("/proc/self/stat", buf, sizeof buf) == 0 &&
        rt_proc_stat_parse(buf, (double)ticks, &st) == 0) {
        metrics_set_total(p->cpu, NULL, st.cpu_s);
        metrics_set(p->threads, NULL, (double)st.threads);
        if (p->boot_time > 0)
            metrics_set(p->start, NULL, p->boot_time + st.start_ticks / (double)ticks);
    }
    long fds = count_fds();
    if (fds >= 0)
        metrics_set(p->fds, NULL, (double)fds);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        metrics_set(p->max_fds, NULL, (double)rl.rlim_cur);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 mi = mallinfo2();
    static const char *const in_use[] = {"in_use"}, *const free_[] = {"free"};
    /* In use: small and large (mmap'd) blocks handed out; free: what the arenas keep. An
     * allocator that replaces glibc's (a sanitizer's) reports nothing: left out. */
    if (mi.arena != 0 || mi.hblkhd != 0) {
        metrics_set(p->heap, in_use, (double)mi.uordblks + (double)mi.hblkhd);
        metrics_set(p->heap, free_, (double)mi.fordblks);
    }
#endif
}

int rt_procmetrics_register(metrics_registry *r)
{
    static const char *const l_state[] = {"state"};
    proc_families *p = calloc(1, sizeof *p);
    if (p == NULL)
        return -1;
    p->rss = metrics_family_new(r, METRICS_GAUGE, "process_resident_memory_bytes",
                                "Resident memory size in bytes", NULL, 0, NULL, 0);
    p->vsize = metrics_family_new(r, METRICS_GAUGE, "process_virtual_memory_bytes",
                                  "Virtual memory size in bytes", NULL, 0, NULL, 0);
    p->cpu =
        metrics_family_new(r, METRICS_COUNTER, "process_cpu_seconds_total",
                           "Total user and system CPU time spent in seconds", NULL, 0, NULL, 0);
    p->start = metrics_family_new(r, METRICS_GAUGE, "process_start_time_seconds",
                                  "Start time of the process since unix epoch in seconds", NULL, 0,
                                  NULL, 0);
    p->fds = metrics_family_new(r, METRICS_GAUGE, "process_open_fds",
                                "Number of open file descriptors", NULL, 0, NULL, 0);
    p->max_fds = metrics_family_new(r, METRICS_GAUGE, "process_max_fds",
                                    "Maximum number of open file descriptors", NULL, 0, NULL, 0);
    p->threads = metrics_family_new(r, METRICS_GAUGE, "process_threads",
                                    "Number of OS threads of the process", NULL, 0, NULL, 0);
    p->heap = metrics_family_new(r, METRICS_GAUGE, "dagsched_process_heap_bytes",
                                 "malloc's heap by state: in_use (held by the program), free "
                                 "(kept by malloc for reuse)",
                                 l_state, 1, NULL, 0);
    if (!p->rss || !p->vsize || !p->cpu || !p->start || !p->fds || !p->max_fds || !p->threads ||
        !p->heap) {
        free(p);
        return -1;
    }
    p->boot_time = boot_time();
    metrics_registry_on_render(r, refresh, p, free);
    return 0;
}
