/* view_flags.c: flags of the commands that read the cluster (see view_flags.h). */
#include "view_flags.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { O_KUBECONFIG = 1000, O_CONTEXT, O_POLICY_NS, O_POLICY_NAME, O_TIMEOUT, O_SVG, O_WIDTH };

void cli_view_flags_usage(FILE *f)
{
    fprintf(f,
            "      common flags: --kubeconfig PATH, --context NAME, -n NS, --policy-namespace NS\n"
            "      (default dagsched-system), --policy-name NAME (default \"default\"),\n"
            "      --request-timeout SECONDS (default 30)\n");
}

static int refuse(const char *flag)
{
    fprintf(stderr, "kubectl-dagsched: %s is not a flag of this command\n", flag);
    return -1;
}

int cli_parse_view_flags(int argc, char **argv, unsigned allowed, cli_flags *f, int *first)
{
    static const struct option opts[] = {
        {"kubeconfig", required_argument, NULL, O_KUBECONFIG},
        {"context", required_argument, NULL, O_CONTEXT},
        {"namespace", required_argument, NULL, 'n'},
        {"all-namespaces", no_argument, NULL, 'A'},
        {"output", required_argument, NULL, 'o'},
        {"policy-namespace", required_argument, NULL, O_POLICY_NS},
        {"policy-name", required_argument, NULL, O_POLICY_NAME},
        {"request-timeout", required_argument, NULL, O_TIMEOUT},
        {"svg", required_argument, NULL, O_SVG},
        {"width", required_argument, NULL, O_WIDTH},
        {NULL, 0, NULL, 0},
    };
    memset(f, 0, sizeof *f);
    f->v.policy_ns = "dagsched-system";
    f->v.policy_name = "default";
    f->v.timeout_s = 30;
    f->width = 60;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "n:Ao:", opts, NULL)) != -1) {
        switch (c) {
        case O_KUBECONFIG:
            f->v.kubeconfig = optarg;
            break;
        case O_CONTEXT:
            f->v.context = optarg;
            break;
        case 'n':
            f->v.ns = optarg;
            break;
        case 'A':
            if (!(allowed & CLI_F_ALL_NS))
                return refuse("-A");
            f->v.all_namespaces = true;
            break;
        case 'o':
            if (!(allowed & CLI_F_OUTPUT))
                return refuse("-o");
            if (strcmp(optarg, "json") == 0)
                f->out = CLI_OUT_JSON;
            else if (strcmp(optarg, "wide") == 0)
                f->out = CLI_OUT_WIDE;
            else {
                fprintf(stderr, "kubectl-dagsched: -o: must be wide or json (got \"%.32s\")\n",
                        optarg);
                return -1;
            }
            break;
        case O_POLICY_NS:
            if (!(allowed & CLI_F_POLICY))
                return refuse("--policy-namespace");
            f->v.policy_ns = optarg;
            break;
        case O_POLICY_NAME:
            if (!(allowed & CLI_F_POLICY))
                return refuse("--policy-name");
            f->v.policy_name = optarg;
            break;
        case O_TIMEOUT: {
            char *end;
            double t = strtod(optarg, &end);
            if (*end || !(t > 0 && t <= 3600)) {
                fprintf(stderr, "kubectl-dagsched: --request-timeout: seconds in (0, 3600]\n");
                return -1;
            }
            f->v.timeout_s = t;
            break;
        }
        case O_SVG:
            if (!(allowed & CLI_F_SVG))
                return refuse("--svg");
            f->svg = optarg;
            break;
        case O_WIDTH: {
            if (!(allowed & CLI_F_WIDTH))
                return refuse("--width");
            char *end;
            long w = strtol(optarg, &end, 10);
            if (*end || w < 20 || w > 400) {
                fprintf(stderr, "kubectl-dagsched: --width: columns, 20 to 400\n");
                return -1;
            }
            f->width = (int)w;
            break;
        }
        default:
            fprintf(stderr, "kubectl-dagsched: unknown or incomplete flag %s\n",
                    optind > 0 && optind <= argc ? argv[optind - 1] : "?");
            return -1;
        }
    }
    *first = optind;
    return 0;
}
