/* prog_lease_contender.c: contends for a Lease (KUBECONFIG) and reports on stdout, one line each:
 * "LEADING <id>" when it starts leading, "STOPPED <id>" when it stops, "LEADER <holder>" when it
 * sees a new holder. Runs until SIGTERM/SIGINT (then releases the Lease) or until killed.
 * Usage: prog_lease_contender NAMESPACE LEASE IDENTITY [DURATION RENEW RETRY] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "config.h"
#include "leader.h"
#include "log.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static const char *me;

static void on_started(void *u)
{
    (void)u;
    printf("LEADING %s\n", me);
    fflush(stdout);
}

static void on_stopped(void *u)
{
    (void)u;
    printf("STOPPED %s\n", me);
    fflush(stdout);
}

static void on_new_leader(void *u, const char *id)
{
    (void)u;
    printf("LEADER %s\n", id);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 7) {
        fprintf(stderr, "usage: %s NAMESPACE LEASE IDENTITY [DURATION RENEW RETRY]\n", argv[0]);
        return 2;
    }
    kube_log_setup(KUBE_LOG_INFO, KUBE_LOG_TEXT, NULL);
    me = argv[3];
    kube_config *cfg;
    kube_client *c;
    ds_err err = {{0}};
    if (kube_config_load(NULL, &cfg, &err) != 0 || kube_client_new(cfg, NULL, &c, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    kube_config_free(cfg);
    kube_leader_opts o = {.namespace = argv[1],
                          .name = argv[2],
                          .identity = argv[3],
                          .on_started = on_started,
                          .on_stopped = on_stopped,
                          .on_new_leader = on_new_leader};
    if (argc == 7) {
        o.lease_duration_s = atof(argv[4]);
        o.renew_deadline_s = atof(argv[5]);
        o.retry_period_s = atof(argv[6]);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    kube_leader *le;
    if (kube_leader_new(c, &o, &le, &err) != 0 || kube_leader_start(le, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    while (!stop_requested)
        usleep(50000);
    kube_leader_free(le);
    kube_client_free(c);
    return 0;
}
