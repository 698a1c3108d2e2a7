/* complete.c: shell completion of kubectl-dagsched (see complete.h). The command tree below is
 * the one place that lists the commands and their subcommands for completion; their flags are
 * the tables their parsers use (cli/view_flags.h); the bash and
 * zsh scripts and kubectl_complete-dagsched all ask `kubectl-dagsched __complete`. Job and pod
 * names come from the cluster (complete_names.h). */
#include "complete.h"

#include <stdbool.h>
#include <string.h>

#include "log.h"
#include "view_flags.h"

/* Cobra's directives (kubectl reads them from kubectl_complete-<plugin>). */
#define DIR_DEFAULT  0 /* no candidate: the shell may complete file names */
#define DIR_NO_FILES 4 /* no file names */

/* Commands without flags of their own (only --help). */
#define NO_FLAGS (-1)
/* Any flag a command takes (a flag typed before its command). */
#define ANY_FLAGS                                                                                  \
    (CLI_F_ALL_NS | CLI_F_OUTPUT | CLI_F_WIDE | CLI_F_SVG | CLI_F_WIDTH | CLI_F_POLICY)

/* The flags of a command: the table its parser uses (cli/view_flags.h). */
typedef struct flagset {
    rt_flag t[CLI_VIEW_FLAGS_MAX];
    size_t n;
} flagset;

static void flags_of(int allowed, flagset *fs)
{
    static cli_flags sink;
    static int out_sink;
    fs->n =
        allowed == NO_FLAGS ? 0 : cli_view_flag_table((unsigned)allowed, &sink, &out_sink, fs->t);
}

/* Whether f takes a value; and whether the value is a file name. */
static bool takes_value(const rt_flag *f)
{
    return f->type != RT_FLAG_T_SET && f->type != RT_FLAG_T_SECTION;
}

static bool takes_file(const rt_flag *f)
{
    return f->arg != NULL && (strcmp(f->arg, "PATH") == 0 || strcmp(f->arg, "FILE") == 0);
}

/* A command: the words that lead to it, the words that may follow (space-separated; NULL when
 * what follows is a file (files) or a name), the names its argument takes from the cluster, and
 * its flags. */
typedef struct command {
    const char *path; /* "get", "policy apply" */
    const char *next;
    bool files;
    cli_name_kind names;
    int flags; /* the CLI_F_* its parser allows, or NO_FLAGS */
} command;

static const command commands[] = {
    {"", "get describe gantt explain policy completion version help", false, CLI_NAMES_NONE,
     NO_FLAGS},
    {"get", "jobs tenants", false, CLI_NAMES_NONE, CLI_FLAGS_GET},
    {"get jobs", NULL, false, CLI_NAMES_NONE, CLI_FLAGS_GET},
    {"get tenants", NULL, false, CLI_NAMES_NONE, CLI_FLAGS_GET},
    {"describe", "job", false, CLI_NAMES_NONE, CLI_FLAGS_DESCRIBE},
    {"describe job", NULL, false, CLI_NAMES_JOBS, CLI_FLAGS_DESCRIBE},
    {"gantt", NULL, false, CLI_NAMES_JOBS, CLI_FLAGS_GANTT},
    {"explain", "pod", false, CLI_NAMES_NONE, CLI_FLAGS_EXPLAIN},
    {"explain pod", NULL, false, CLI_NAMES_PODS, CLI_FLAGS_EXPLAIN},
    {"policy", "validate configmap apply", false, CLI_NAMES_NONE, NO_FLAGS},
    {"policy validate", NULL, true, CLI_NAMES_NONE, NO_FLAGS},
    {"policy configmap", NULL, true, CLI_NAMES_NONE, CLI_FLAGS_POLICY_CONFIGMAP},
    {"policy apply", NULL, true, CLI_NAMES_NONE, CLI_FLAGS_POLICY_APPLY},
    {"completion", "bash zsh", false, CLI_NAMES_NONE, NO_FLAGS},
    {"version", NULL, false, CLI_NAMES_NONE, NO_FLAGS},
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])
#define PATH_MAX_W 2 /* commands are at most two words deep */

/* The flag of fs named word[0..len) ("-n", "--namespace", or a prefix of a long name that only
 * one flag has, as the parser takes it); NULL when none. */
static const rt_flag *find_flag(const flagset *fs, const char *word, size_t len)
{
    if (len == 2 && word[0] == '-' && word[1] != '-') {
        for (size_t i = 0; i < fs->n; i++)
            if (!fs->t[i].refused && fs->t[i].short_name == word[1])
                return &fs->t[i];
        return NULL;
    }
    if (len < 3 || strncmp(word, "--", 2) != 0)
        return NULL;
    const rt_flag *found = NULL;
    for (size_t i = 0; i < fs->n; i++) {
        const rt_flag *f = &fs->t[i];
        if (f->refused || f->name == NULL || strncmp(f->name, word + 2, len - 2) != 0)
            continue;
        if (strlen(f->name) == len - 2)
            return f;
        if (found != NULL)
            return NULL; /* ambiguous */
        found = f;
    }
    return found;
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

static void print_flags(FILE *out, const flagset *fs, const char *prefix)
{
    size_t pl = strlen(prefix);
    char name[80];
    for (size_t i = 0; i < fs->n; i++) {
        const rt_flag *f = &fs->t[i];
        if (f->refused || f->name == NULL)
            continue;
        if (f->short_name != 0 && pl <= 2 && strncmp((char[]){'-', f->short_name}, prefix, pl) == 0)
            fprintf(out, "-%c\n", f->short_name);
        snprintf(name, sizeof name, "--%s", f->name);
        if (strncmp(name, prefix, pl) == 0)
            fprintf(out, "%s\n", name);
    }
}

/* The value of flag f, being typed as cur. */
static int complete_value(FILE *out, const rt_flag *f, const char *cur)
{
    if (takes_file(f))
        return DIR_DEFAULT;
    size_t cl = strlen(cur);
    for (const char *const *c = f->type == RT_FLAG_T_CHOICE ? f->choices : NULL; c && *c; c++)
        if (strncmp(*c, cur, cl) == 0)
            fprintf(out, "%s\n", *c);
    return DIR_NO_FILES;
}

/* Remember the value of a flag that says where the names are (--kubeconfig, --context,
 * -n/--namespace, --request-timeout). */
static void note_conn(cli_names_conn *conn, const rt_flag *f, const char *value)
{
    if (strcmp(f->name, "kubeconfig") == 0)
        conn->kubeconfig = value;
    else if (strcmp(f->name, "context") == 0)
        conn->context = value;
    else if (strcmp(f->name, "namespace") == 0)
        conn->ns = value;
    else if (strcmp(f->name, "request-timeout") == 0)
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
    const rt_flag *pending = NULL;
    cli_names_conn conn = {0};
    flagset cmd_flags, any_flags;
    flags_of(cmd->flags, &cmd_flags);
    flags_of(ANY_FLAGS, &any_flags);
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
            const rt_flag *f = find_flag(&cmd_flags, w, l);
            if (f == NULL)
                f = find_flag(&any_flags, w, l);
            if (f != NULL && takes_value(f) && eq == NULL)
                pending = f;
            else if (f != NULL && takes_value(f))
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
            flags_of(cmd->flags, &cmd_flags);
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
            const rt_flag *f = find_flag(&cmd_flags, cur, (size_t)(eq - cur));
            return f != NULL && takes_file(f) ? DIR_DEFAULT : DIR_NO_FILES;
        }
        print_flags(out, &cmd_flags, cur);
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
