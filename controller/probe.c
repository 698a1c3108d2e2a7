/* probe.c: `dagsched-controller probe` (see probe.h), on libcurl. */
#include "probe.h"

#include <curl/curl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void usage(FILE *f)
{
    fprintf(f, "Usage: dagsched-controller probe --url URL [--url URL...] [--cacert FILE]\n"
               "                                [--connect-to HOST:PORT] [--timeout SECONDS]\n"
               "\n"
               "GET each URL; exit 0 when every one answers 200 (the chart's `helm test`).\n");
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
    static const struct option opts[] = {
        {"url", required_argument, NULL, 'u'},
        {"cacert", required_argument, NULL, 'c'},
        {"connect-to", required_argument, NULL, 't'},
        {"timeout", required_argument, NULL, 'T'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *urls[MAX_URLS], *cacert = NULL, *connect_to = NULL;
    size_t n = 0;
    long timeout_s = 10;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'u':
            if (n == MAX_URLS) {
                fprintf(stderr, "probe: at most %d --url\n", MAX_URLS);
                return 2;
            }
            if (strncmp(optarg, "http://", 7) != 0 && strncmp(optarg, "https://", 8) != 0) {
                fprintf(stderr, "probe: --url must start with http:// or https://\n");
                return 2;
            }
            urls[n++] = optarg;
            break;
        case 'c':
            cacert = optarg;
            break;
        case 't':
            connect_to = optarg;
            break;
        case 'T': {
            char *end;
            timeout_s = strtol(optarg, &end, 10);
            if (*end || timeout_s < 1 || timeout_s > 300) {
                fprintf(stderr, "probe: --timeout: whole seconds, 1 to 300\n");
                return 2;
            }
            break;
        }
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (n == 0 || optind < argc) {
        usage(stderr);
        return 2;
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
        fprintf(stderr, "probe: cannot initialise libcurl\n");
        return 1;
    }
    int failed = 0;
    for (size_t i = 0; i < n; i++)
        failed |= probe_one(urls[i], cacert, connect_to, timeout_s);
    curl_global_cleanup();
    return failed ? 1 : 0;
}
