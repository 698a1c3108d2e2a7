/* complete.c: shell completion of kubectl-dagsched (see complete.h). The command tree below is
 * the one place that lists the commands, their subcommands and flags for completion; the bash and
 * zsh scripts and kubectl_complete-dagsched all ask `kubectl-dagsched __complete`. Job and pod
 * names come from the cluster (complete_names.h). */
#include "complete.h"

#include <stdbool.h>
#include <string.h>

#include "log.h"

/* Cobra's directives (kubectl reads them from kubectl_complete-<plugin>). */
#define DIR_DEFAULT  0 /* no candidate: the shell may complete file names */
#define DIR_NO_FILES 4 /* no file names */

/* A flag: its names and what its value is (NULL: takes none; "" a file name or free text;
 * else the values, space-separated). */
typedef struct flag {
    const char *shrt, *lng;
    const char *values;
    bool files; /* the value is a file name */
} flag;

#define F_KUBECONFIG                                                                               \
    {                                                                                              \
        NULL, "--kubeconfig", "", true                                                             \
    }
#define F_CONTEXT                                                                                  \
    {                                                                                              \
        NULL, "--context", "", false                                                               \
    }
#define F_NAMESPACE                                                                                \
    {                                                                                              \
        "-n", "--namespace", "", false                                                             \
    }
#define F_TIMEOUT                                                                                  \
    {                                                                                              \
        NULL, "--request-timeout", "", false                                                       \
    }
#define F_POLICY                                                                                   \
    {NULL, "--policy-namespace", "", false},                                                       \
    {                                                                                              \
        NULL, "--policy-name", "", false                                                           \
    }
#define F_END                                                                                      \
    {                                                                                              \
        NULL, NULL, NULL, false                                                                    \
    }

static const flag get_flags[] = {F_KUBECONFIG,
                                 F_CONTEXT,
                                 F_NAMESPACE,
                                 F_TIMEOUT,
                                 F_POLICY,
                                 {"-A", "--all-namespaces", NULL, false},
                                 {"-o", "--output", "wide json", false},
                                 F_END};
static const flag describe_flags[] = {F_KUBECONFIG, F_CONTEXT, F_NAMESPACE,
                                      F_TIMEOUT,    F_POLICY,  {"-o", "--output", "json", false},
                                      F_END};
static const flag gantt_flags[] = {F_KUBECONFIG,
                                   F_CONTEXT,
                                   F_NAMESPACE,
                                   F_TIMEOUT,
                                   F_POLICY,
                                   {NULL, "--width", "", false},
                                   {NULL, "--svg", "", true},
                                   F_END};
static const flag configmap_flags[] = {F_NAMESPACE, F_END};
static const flag apply_flags[] = {F_KUBECONFIG, F_CONTEXT, F_NAMESPACE, F_TIMEOUT, F_END};
static const flag no_flags[] = {F_END};

/* A command: the words that lead to it, the words that may follow (space-separated; NULL when
 * what follows is a file (files) or a name), the names its argument takes from the cluster, and
 * its flags. */
typedef struct command {
    const char *path; /* "get", "policy apply" */
    const char *next;
    bool files;
    cli_name_kind names;
    const flag *flags;
} command;

static const command commands[] = {
    {"", "get describe gantt explain policy completion version help", false, CLI_NAMES_NONE,
     no_flags},
    {"get", "jobs", false, CLI_NAMES_NONE, get_flags},
    {"get jobs", NULL, false, CLI_NAMES_NONE, get_flags},
    {"describe", "job", false, CLI_NAMES_NONE, describe_flags},
    {"describe job", NULL, false, CLI_NAMES_JOBS, describe_flags},
    {"gantt", NULL, false, CLI_NAMES_JOBS, gantt_flags},
    {"explain", "pod", false, CLI_NAMES_NONE, describe_flags},
    {"explain pod", NULL, false, CLI_NAMES_PODS, describe_flags},
    {"policy", "validate configmap apply", false, CLI_NAMES_NONE, no_flags},
    {"policy validate", NULL, true, CLI_NAMES_NONE, no_flags},
    {"policy configmap", NULL, true, CLI_NAMES_NONE, configmap_flags},
    {"policy apply", NULL, true, CLI_NAMES_NONE, apply_flags},
    {"completion", "bash zsh", false, CLI_NAMES_NONE, no_flags},
    {"version", NULL, false, CLI_NAMES_NONE, no_flags},
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])
#define PATH_MAX_W 2 /* commands are at most two words deep */

static const flag *find_flag(const flag *fl, const char *word, size_t len)
{
    for (; fl->lng != NULL; fl++)
        if ((fl->shrt != NULL && strlen(fl->shrt) == len && !strncmp(fl->shrt, word, len)) ||
            (strlen(fl->lng) == len && !strncmp(fl->lng, word, len)))
            return fl;
    return NULL;
}

static const command *find_command(const char *const *words, size_t n)
{
    char path[64] = "";
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(words[i]);
        if (off + l + 2 > sizeof path)
            return NULL;
        if (i > 0)
            path[off++] = ' ';
        memcpy(path + off, words[i], l + 1);
        off += l;
    }
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].path, path) == 0)
            return &commands[i];
    return NULL;
}

/* Print the space-separated words of list that start with prefix, one a line. */
static void print_matching(FILE *out, const char *list, const char *prefix)
{
    size_t pl = strlen(prefix);
    while (*list != '\0') {
        size_t l = strcspn(list, " ");
        if (l >= pl && strncmp(list, prefix, pl) == 0)
            fprintf(out, "%.*s\n", (int)l, list);
        list += l;
        list += strspn(list, " ");
    }
}

static void print_flags(FILE *out, const flag *fl, const char *prefix)
{
    size_t pl = strlen(prefix);
    for (; fl->lng != NULL; fl++) {
        if (fl->shrt != NULL && strncmp(fl->shrt, prefix, pl) == 0)
            fprintf(out, "%s\n", fl->shrt);
        if (strncmp(fl->lng, prefix, pl) == 0)
            fprintf(out, "%s\n", fl->lng);
    }
}

/* The value of flag f, being typed as cur. */
static int complete_value(FILE *out, const flag *f, const char *cur)
{
    if (f->files)
        return DIR_DEFAULT;
    if (f->values[0] != '\0')
        print_matching(out, f->values, cur);
    return DIR_NO_FILES;
}

/* Remember the value of a flag that says where the names are (--kubeconfig, --context,
 * -n/--namespace, --request-timeout). */
static void note_conn(cli_names_conn *conn, const flag *f, const char *value)
{
    if (strcmp(f->lng, "--kubeconfig") == 0)
        conn->kubeconfig = value;
    else if (strcmp(f->lng, "--context") == 0)
        conn->context = value;
    else if (strcmp(f->lng, "--namespace") == 0)
        conn->ns = value;
    else if (strcmp(f->lng, "--request-timeout") == 0)
        conn->timeout = value;
}

int complete_words(FILE *out, int n, const char *const *words, complete_names_fn names)
{
    if (n < 1)
        return DIR_NO_FILES;
    const char *cur = words[n - 1];
    const char *pos[PATH_MAX_W];
    size_t npos = 0;
    const command *cmd = &commands[0];
    size_t extra = 0; /* positional arguments after the command (names, files) */
    const flag *pending = NULL;
    cli_names_conn conn = {0};
    for (int i = 0; i < n - 1; i++) {
        const char *w = words[i];
        if (pending != NULL) {
            note_conn(&conn, pending, w);
            pending = NULL;
            continue;
        }
        if (w[0] == '-' && w[1] != '\0') {
            const char *eq = strchr(w, '=');
            size_t l = eq ? (size_t)(eq - w) : strlen(w);
            /* A flag before its command (`-n ns get jobs`): known by any command. */
            const flag *f = find_flag(cmd->flags, w, l);
            if (f == NULL)
                f = find_flag(get_flags, w, l);
            if (f == NULL)
                f = find_flag(gantt_flags, w, l);
            if (f != NULL && f->values != NULL && eq == NULL)
                pending = f;
            else if (f != NULL && f->values != NULL)
                note_conn(&conn, f, eq + 1);
            continue;
        }
        const command *sub = NULL;
        if (extra == 0 && npos < PATH_MAX_W) {
            pos[npos] = w;
            sub = find_command(pos, npos + 1);
        }
        if (sub != NULL) {
            cmd = sub;
            npos++;
        } else {
            extra++;
        }
    }
    if (pending != NULL)
        return complete_value(out, pending, cur);
    if (cur[0] == '-') {
        const char *eq = strchr(cur, '=');
        if (eq != NULL) {
            const flag *f = find_flag(cmd->flags, cur, (size_t)(eq - cur));
            return f != NULL && f->values != NULL && f->files ? DIR_DEFAULT : DIR_NO_FILES;
        }
        print_flags(out, cmd->flags, cur);
        return DIR_NO_FILES;
    }
    if (cmd->files)
        return DIR_DEFAULT;
    if (cmd->next != NULL && extra == 0)
        print_matching(out, cmd->next, cur);
    else if (cmd->names != CLI_NAMES_NONE && extra == 0 && names != NULL)
        names(cmd->names, &conn, cur, out);
    return DIR_NO_FILES;
}

int complete_cmd(int argc, char **argv)
{
    /* argv[0] is "__complete"; the last word is the one being completed ("" for a new one).
     * Nothing but candidates is printed: the client's warnings would land on the command line. */
    kube_log_setup(KUBE_LOG_OFF, KUBE_LOG_TEXT, NULL);
    int n = argc - 1;
    const char *empty[] = {""};
    int d = n > 0 ? complete_words(stdout, n, (const char *const *)argv + 1, cli_complete_names)
                  : complete_words(stdout, 1, empty, cli_complete_names);
    printf(":%d\n", d);
    return fflush(stdout) == 0 ? 0 : 1;
}

static const char bash_script[] =
    "# bash completion for kubectl-dagsched:\n"
    "#   source <(kubectl-dagsched completion bash)\n"
    "# completes `kubectl-dagsched ...`; kubectl 1.26 and later complete `kubectl dagsched ...`\n"
    "# through the kubectl_complete-dagsched executable on PATH.\n"
    "_kubectl_dagsched() {\n"
    "    local cur=${COMP_WORDS[COMP_CWORD]} line directive=0\n"
    "    local -a cands=()\n"
    "    while IFS= read -r line; do\n"
    "        if [[ $line == :* ]]; then directive=${line#:}; else cands+=(\"$line\"); fi\n"
    "    done < <(\"${COMP_WORDS[0]}\" __complete \"${COMP_WORDS[@]:1:COMP_CWORD-1}\" \"$cur\" "
    "2>/dev/null)\n"
    "    COMPREPLY=(\"${cands[@]}\")\n"
    "    if (( ${#cands[@]} == 0 && (directive & 4) == 0 )); then\n"
    "        local IFS=$'\\n'\n"
    "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
    "    fi\n"
    "}\n"
    "complete -F _kubectl_dagsched kubectl-dagsched\n";

static const char zsh_script[] =
    "#compdef kubectl-dagsched\n"
    "# zsh completion for kubectl-dagsched:\n"
    "#   autoload -U compinit && compinit; source <(kubectl-dagsched completion zsh)\n"
    "# completes `kubectl-dagsched ...`; kubectl 1.26 and later complete `kubectl dagsched ...`\n"
    "# through the kubectl_complete-dagsched executable on PATH.\n"
    "_kubectl_dagsched() {\n"
    "    local line out directive=0\n"
    "    local -a cands\n"
    "    out=$(\"${words[1]}\" __complete \"${(@)words[2,CURRENT-1]}\" \"${words[CURRENT]}\" "
    "2>/dev/null) || return 1\n"
    "    for line in \"${(@f)out}\"; do\n"
    "        if [[ $line == :* ]]; then directive=${line#:}; else cands+=(\"$line\"); fi\n"
    "    done\n"
    "    if (( ${#cands} )); then\n"
    "        compadd -a cands\n"
    "    elif (( (directive & 4) == 0 )); then\n"
    "        _files\n"
    "    fi\n"
    "}\n"
    "compdef _kubectl_dagsched kubectl-dagsched\n";

void completion_cmd_usage(FILE *f)
{
    fprintf(f, "  completion bash|zsh           print a shell completion script for\n"
               "                                kubectl-dagsched (commands, subcommands, flags,\n"
               "                                -o values, file names, and job and pod names\n"
               "                                from the cluster)\n");
}

int completion_cmd(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "bash") != 0 && strcmp(argv[1], "zsh") != 0)) {
        fprintf(stderr, "usage: kubectl dagsched completion bash|zsh\n");
        return 2;
    }
    const char *s = strcmp(argv[1], "bash") == 0 ? bash_script : zsh_script;
    return fputs(s, stdout) < 0 || fflush(stdout) != 0 ? 1 : 0;
}
