/* version_cmd.h: `kubectl dagsched version` (also --version): the plugin's version and git commit,
 * as the extender's and the controller's --version print theirs (runtime/version.h). */
#ifndef DAGSCHED_CLI_VERSION_CMD_H
#define DAGSCHED_CLI_VERSION_CMD_H

#include <stdio.h>

void version_cmd_usage(FILE *f);
/* argv[0] is "version" or "--version"; no other argument. 0, 1 when stdout cannot be written, 2
 * for bad usage. */
int version_cmd(int argc, char **argv);

#endif
