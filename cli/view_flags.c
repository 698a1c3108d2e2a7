/* view_flags.c: flags of the commands that read the cluster (see view_flags.h). */
#include "view_flags.h"

#include <stdio.h>
#include <string.h>

void cli_view_flags_usage(FILE *f)
{
    fprintf(f,
            "      common flags: --kubeconfig PATH, --context NAME, -n NS, --policy-namespace NS\n"
            "      (default dagsched-system), --policy-name NAME (default \"default\"),\n"
            "      --request-timeout SECONDS (default 30)\n");
}

static const char *const out_names[] = {"wide", "json", NULL}; /* CLI_OUT_WIDE, CLI_OUT_JSON */
static const char *const json_only[] = {"json", NULL};

size_t cli_view_flag_table(unsigned allowed, cli_flags *f, int *out, rt_flag *table)
{
    const rt_flag all[CLI_VIEW_FLAGS_MAX] = {
        RT_FLAG_STRING("kubeconfig", "PATH", &f->v.kubeconfig,
                       "kubeconfig file (default: $KUBECONFIG, ~/.kube/config)"),
        RT_FLAG_STRING("context", "NAME", &f->v.context, "kubeconfig context"),
        RT_FLAG_STRING("namespace", "NS", &f->v.ns, "namespace (default: the context's)"),
        RT_FLAG_SET("all-namespaces", &f->v.all_namespaces, "every namespace"),
        RT_FLAG_CHOICE("output", "wide|json", out, out_names, "output format"),
        RT_FLAG_STRING("policy-namespace", "NS", &f->v.policy_ns,
                       "namespace of the policy ConfigMaps (default dagsched-system)"),
        RT_FLAG_STRING("policy-name", "NAME", &f->v.policy_name,
                       "SchedulingPolicy to use (default \"default\")"),
        RT_FLAG_DOUBLE("request-timeout", "SECONDS", &f->v.timeout_s, 0.001, 3600,
                       "longest wait for each request (default 30)"),
        RT_FLAG_STRING("svg", "FILE", &f->svg, "write the chart as SVG to FILE"),
        RT_FLAG_INT("width", "N", &f->width, 20, 400, "columns of the chart (default 60)"),
    };
    memcpy(table, all, sizeof all);
    table[2].short_name = 'n';
    table[3].short_name = 'A';
    table[4].short_name = 'o';
    if (allowed & CLI_F_NS_SYSTEM)
        table[2].help = "namespace (default dagsched-system)";
    if (!(allowed & CLI_F_WIDE)) {
        table[4].choices = json_only;
        table[4].arg = "json";
    }
    table[0].refused = table[1].refused = table[7].refused = (allowed & CLI_F_OFFLINE) != 0;
    table[3].refused = !(allowed & CLI_F_ALL_NS);
    table[4].refused = !(allowed & CLI_F_OUTPUT);
    table[5].refused = table[6].refused = !(allowed & CLI_F_POLICY);
    table[8].refused = !(allowed & CLI_F_SVG);
    table[9].refused = !(allowed & CLI_F_WIDTH);
    return CLI_VIEW_FLAGS_MAX;
}

int cli_parse_view_flags(int argc, char **argv, unsigned allowed, const char *usage, cli_flags *f,
                         int *first)
{
    memset(f, 0, sizeof *f);
    f->v.policy_ns = "dagsched-system";
    f->v.policy_name = "default";
    f->v.timeout_s = 30;
    f->width = 60;
    int out = -1;
    rt_flag table[CLI_VIEW_FLAGS_MAX];
    size_t n = cli_view_flag_table(allowed, f, &out, table);
    const rt_flags spec = {.prog = "kubectl-dagsched",
                           .usage = usage,
                           .flags = table,
                           .n_flags = n,
                           .arguments = true};
    int rc = rt_flags_parse(&spec, argc, argv, first);
    if (out >= 0)
        f->out = strcmp(table[4].choices[out], "wide") == 0 ? CLI_OUT_WIDE : CLI_OUT_JSON;
    return rc;
}
