/* complete.h: shell completion of kubectl-dagsched: `kubectl-dagsched __complete WORDS... CUR`
 * answers as Cobra programs do (the candidates for CUR, one a line, then ":DIRECTIVE", 4 when the
 * shell must not complete file names, 0 when it may), which is what kubectl 1.26 and later expect
 * from a plugin's kubectl_complete-<plugin> executable; `completion bash|zsh` prints scripts that
 * ask it. Commands, subcommands, flags and the values of -o are completed, and the names of jobs
 * (`describe job`, `gantt`) and pods (`explain pod`) from the cluster, in the namespace of the
 * -n/--namespace typed (else the context's), with the --kubeconfig and --context typed. */
#ifndef DAGSCHED_CLI_COMPLETE_H
#define DAGSCHED_CLI_COMPLETE_H

#include <stdio.h>

#include "complete_names.h"

/* Prints the names of a kind that start with prefix (cli_complete_names, or a stand-in). */
typedef int (*complete_names_fn)(cli_name_kind kind, const cli_names_conn *conn, const char *prefix,
                                 FILE *out);

/* words: the arguments after the plugin's name, the last one the word being completed (n >= 1).
 * Prints the candidates that start with it to out, one a line; returns the directive. Names are
 * asked of `names` (NULL: none offered). */
int complete_words(FILE *out, int n, const char *const *words, complete_names_fn names);

/* argv[0] is "__complete". Prints the candidates and ":DIRECTIVE"; the exit code. */
int complete_cmd(int argc, char **argv);

/* argv[0] is "completion", argv[1] "bash" or "zsh": prints the script; the exit code (2: usage). */
int completion_cmd(int argc, char **argv);
void completion_cmd_usage(FILE *f);

#endif
