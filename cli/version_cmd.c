/* version_cmd.c: `kubectl dagsched version` (see version_cmd.h). Built with the version flags of
 * the top-level Makefile (mk/cli.mk), like the components' main.c. */
#include "version_cmd.h"

#include "version.h"

void version_cmd_usage(FILE *f)
{
    fprintf(f, "  version                       the plugin's version and git commit\n");
}

int version_cmd(int argc, char **argv)
{
    if (argc != 1) {
        fprintf(stderr, "usage: kubectl dagsched version\n");
        return 2;
    }
    (void)argv;
    if (printf("%s\n", DAGSCHED_VERSION_LINE("kubectl-dagsched")) < 0 || fflush(stdout) != 0)
        return 1;
    return 0;
}
