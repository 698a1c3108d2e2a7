/* probe.c: `dagsched-controller probe` (see probe.h), on libcurl. */
#include "probe.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flags.h"

#define MAX_URLS   8
#define BODY_BYTES 512

typedef struct body {
    char data[BODY_BYTES + 1];
    size_t len;
} body;

static size_t on_body(char *p, size_t size, size_t n, void *user)
{
    body *b = user;
    size_t len = size * n;
    size_t room = BODY_BYTES - b->len;
    size_t take = len < room ? len : room;
    memcpy(b->data + b->len, p, take);
    b->len += take;
    b->data[b->len] = '\0';
    return len; /* the rest is read and dropped */
}

#define USAGE                                                                                      \
    "Usage: dagsched-controller probe --url URL [--url URL...] [--cacert FILE]\n"                  \
    "                                [--connect-to HOST:PORT] [--timeout SECONDS]\n"               \
    "\n"                                                                                           \
    "GET each URL; exit 0 when every one answers 200 (the chart's `helm test`).\n"

typedef struct url_list {
    const char *v[MAX_URLS];
    size_t n;
} url_list;

/* --url: appends to the list (a flag's conversion, runtime/flags.h). */
static int add_url(void *dest, const char *url, char *why, size_t size)
{
    url_list *l = dest;
    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0) {
        snprintf(why, size, "expected a URL starting with http:// or https://");
        return -1;
    }
    if (l->n == MAX_URLS) {
        snprintf(why, size, "given more than %d times", MAX_URLS);
        return -1;
    }
    l->v[l->n++] = url;
    return 0;
}

static int probe_one(const char *url, const char *cacert, const char *connect_to, long timeout_s)
{
    CURL *h = curl_easy_init();
    if (h == NULL) {
        fprintf(stderr, "probe: out of memory\n");
        return 1;
    }
    body b = {.len = 0};
    b.data[0] = '\0';
    char errbuf[CURL_ERROR_SIZE] = "";
    struct curl_slist *to = NULL;
    if (connect_to != NULL) {
        char spec[600];
        snprintf(spec, sizeof spec, "::%s", connect_to);
        to = curl_slist_append(NULL, spec);
    }
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_TIMEOUT, timeout_s);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    if (cacert != NULL)
        curl_easy_setopt(h, CURLOPT_CAINFO, cacert);
    if (to != NULL)
        curl_easy_setopt(h, CURLOPT_CONNECT_TO, to);
    CURLcode rc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(h);
    curl_slist_free_all(to);
    if (rc != CURLE_OK) {
        printf("%s: %s\n", url, errbuf[0] ? errbuf : curl_easy_strerror(rc));
        return 1;
    }
    char *nl = strchr(b.data, '\n');
    if (nl != NULL)
        *nl = '\0';
    printf("%s: %ld %s\n", url, status, b.data);
    return status == 200 ? 0 : 1;
}

int ctl_probe_main(int argc, char **argv)
{
    url_list urls = {.n = 0};
    const char *cacert = NULL, *connect_to = NULL;
    int timeout_s = 10;
    const rt_flag table[] = {
        RT_FLAG_FUNC("url", "URL", add_url, &urls, "GET this URL (repeatable)"),
        RT_FLAG_STRING("cacert", "FILE", &cacert, "CA certificates (PEM) to verify HTTPS with"),
        RT_FLAG_STRING("connect-to", "HOST:PORT", &connect_to,
                       "connect there whatever the URL's host and port"),
        RT_FLAG_INT("timeout", "SECONDS", &timeout_s, 1, 300,
                    "give up on a URL after this long (default 10)"),
    };
    const rt_flags spec = {
        .prog = "dagsched-controller probe", .usage = USAGE, RT_FLAGS_TABLE(table)};
    int rc = rt_flags_parse(&spec, argc, argv, NULL);
    if (rc != RT_FLAGS_RUN)
        return rc;
    if (urls.n == 0)
        return rt_flags_error(&spec, "--url: expected at least one (see --help)");
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
        fprintf(stderr, "probe: cannot initialise libcurl\n");
        return 1;
    }
    int failed = 0;
    for (size_t i = 0; i < urls.n; i++)
        failed |= probe_one(urls.v[i], cacert, connect_to, timeout_s);
    curl_global_cleanup();
    return failed ? 1 : 0;
}
