/* version.h: the binaries' version and git commit, as the top-level Makefile passes them
 * (-DDAGSCHED_VERSION, -DDAGSCHED_GIT; mk/version.mk); "unknown" when built without them. */
#ifndef DAGSCHED_RUNTIME_VERSION_H
#define DAGSCHED_RUNTIME_VERSION_H

#ifndef DAGSCHED_VERSION
#define DAGSCHED_VERSION "unknown"
#endif
#ifndef DAGSCHED_GIT
#define DAGSCHED_GIT "unknown"
#endif

/* What --version prints: "NAME VERSION (git COMMIT)" (make version-test checks it). */
#define DAGSCHED_VERSION_LINE(name) name " " DAGSCHED_VERSION " (git " DAGSCHED_GIT ")"

#endif
