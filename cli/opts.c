/* cli: the generic command-line parser of prte, prterun, prun, pterm and pps: the
 * option table, --help / --help <option> / --version, unknown and malformed options,
 * the run-as-root rule. Job options are in opts_job.c, hosts in opts_hosts.c.
 * Single-threaded; called once at the start of main. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_version.h>

#include "cli/opts_int.h"
#include "help/px_help.h"

#define B(k) (1u << (k))
#define ALL  ((1u << PX_CMD_COUNT) - 1)
#define JOB  (B(PX_CMD_PRUN) | B(PX_CMD_PRTERUN))
#define DVM  (B(PX_CMD_PRTE) | B(PX_CMD_PRTERUN))
#define CONN                                                                                       \
    (B(PX_CMD_PRUN) | B(PX_CMD_PTERM) | B(PX_CMD_PPS) | B(PX_CMD_PQUERY) | B(PX_CMD_PATTRS))
#define LIST (B(PX_CMD_PPS) | B(PX_CMD_PQUERY) | B(PX_CMD_PATTRS) | B(PX_CMD_PMIX_INFO))
#define PRTE B(PX_CMD_PRTE)

/* The order here is the order of --help. */
const px_opt_def_t px_opt_defs[] = {
    {PX_O_NP, "np", 'n', "np", PX_ARG_REQ, JOB, "opt-np"},
    {PX_O_APP, "app", 0, NULL, PX_ARG_REQ, JOB, "opt-app"},
    {PX_O_PSET, "pset", 0, NULL, PX_ARG_REQ, JOB, "opt-pset"},
    {PX_O_X, "x", 'x', NULL, PX_ARG_REQ, JOB, "opt-x"},
    {PX_O_WDIR, "wdir", 0, "wdir", PX_ARG_REQ, JOB, "opt-wdir"},
    {PX_O_MAPBY, "map-by", 0, "map-by", PX_ARG_REQ, JOB, "opt-map-by"},
    {PX_O_RANKBY, "rank-by", 0, "rank-by", PX_ARG_REQ, JOB, "opt-rank-by"},
    {PX_O_BINDTO, "bind-to", 0, "bind-to", PX_ARG_REQ, JOB, "opt-bind-to"},
    {PX_O_REPORT_BINDINGS, "report-bindings", 0, "report-bindings", PX_ARG_NONE, JOB,
     "opt-report-bindings"},
    {PX_O_DISPLAY, "display", 0, NULL, PX_ARG_REQ, JOB, "opt-display"},
    {PX_O_OUTPUT, "output", 0, NULL, PX_ARG_REQ, JOB, "opt-output"},
    {PX_O_TAG_OUTPUT, "tag-output", 0, "tag-output", PX_ARG_NONE, JOB, "opt-tag-output"},
    {PX_O_TIMESTAMP_OUTPUT, "timestamp-output", 0, "timestamp-output", PX_ARG_NONE, JOB,
     "opt-timestamp-output"},
    {PX_O_XML, "xml", 0, NULL, PX_ARG_NONE, JOB, "opt-xml"},
    {PX_O_MERGE, "merge-stderr-to-stdout", 0, NULL, PX_ARG_NONE, JOB, "opt-merge-stderr-to-stdout"},
    {PX_O_OUTPUT_FILENAME, "output-filename", 0, "output-filename", PX_ARG_REQ, JOB,
     "opt-output-filename"},
    {PX_O_STDIN, "stdin", 0, NULL, PX_ARG_REQ, JOB, "opt-stdin"},
    {PX_O_TIMEOUT, "timeout", 0, NULL, PX_ARG_REQ, JOB, "opt-timeout"},
    {PX_O_NOPREFIX, "noprefix", 0, NULL, PX_ARG_NONE, DVM, "opt-noprefix"},
    {PX_O_PREFIX, "prefix", 0, NULL, PX_ARG_REQ, DVM, "opt-prefix"},
    {PX_O_PERSONALITY, "personality", 0, NULL, PX_ARG_REQ, JOB, "opt-personality"},
    {PX_O_PPN, "ppn", 0, "ppn", PX_ARG_REQ, JOB, "opt-ppn"},
    {PX_O_GENV, "genv", 0, "genv", PX_ARG_REQ, JOB, "opt-genv"},
    {PX_O_FORK_EXEC_AGENT, "fork-exec-agent", 0, NULL, PX_ARG_REQ, JOB, "opt-fork-exec-agent"},
    {PX_O_EXEC_AGENT, "exec-agent", 0, NULL, PX_ARG_REQ, JOB, "opt-exec-agent"},
    {PX_O_NOHUP, "nohup", 0, NULL, PX_ARG_NONE, JOB, "opt-nohup"},
    {PX_O_STOP_ON_EXEC, "stop-on-exec", 0, NULL, PX_ARG_NONE, JOB, "opt-stop-on-exec"},
    {PX_O_STOP_IN_INIT, "stop-in-init", 0, NULL, PX_ARG_NONE, JOB, "opt-stop-in-init"},
    {PX_O_STOP_IN_APP, "stop-in-app", 0, NULL, PX_ARG_NONE, JOB, "opt-stop-in-app"},
    {PX_O_HOST, "host", 'H', "host", PX_ARG_REQ, DVM | B(PX_CMD_PRUN), "opt-host"},
    {PX_O_HOSTS, "hosts", 0, "hosts", PX_ARG_REQ, DVM | B(PX_CMD_PRUN), "opt-hosts"},
    {PX_O_ADD_HOST, "add-host", 0, "add-host", PX_ARG_REQ, B(PX_CMD_PRUN), "opt-add-host"},
    {PX_O_HOSTFILE, "hostfile", 0, "hostfile", PX_ARG_REQ, DVM, "opt-hostfile"},
    {PX_O_DEBUG_DAEMONS, "debug-daemons", 0, NULL, PX_ARG_NONE, DVM, "opt-debug-daemons"},
    {PX_O_DAEMONIZE, "daemonize", 0, NULL, PX_ARG_NONE, PRTE, "opt-daemonize"},
    {PX_O_REPORT_URI, "report-uri", 0, NULL, PX_ARG_REQ, PRTE, "opt-report-uri"},
    {PX_O_REPORT_PID, "report-pid", 0, NULL, PX_ARG_OPT, PRTE, "opt-report-pid"},
    {PX_O_SYSTEM_SERVER, "system-server", 0, NULL, PX_ARG_NONE, PRTE, "opt-system-server"},
    {PX_O_NO_READY_MSG, "no-ready-msg", 0, NULL, PX_ARG_NONE, PRTE, "opt-no-ready-msg"},
    {PX_O_ALLOW_USERS, "allow-users", 0, NULL, PX_ARG_REQ, DVM, "opt-allow-users"},
    {PX_O_ALLOW_GROUPS, "allow-groups", 0, NULL, PX_ARG_REQ, DVM, "opt-allow-groups"},
    {PX_O_PRTEMCA, "prtemca", 0, "prtemca", PX_ARG_REQ, DVM, "opt-prtemca"},
    {PX_O_DVM_URI, "dvm-uri", 0, NULL, PX_ARG_REQ, CONN, "opt-dvm-uri"},
    {PX_O_PID, "pid", 0, NULL, PX_ARG_REQ, CONN, "opt-pid"},
    {PX_O_NAMESPACE, "namespace", 0, NULL, PX_ARG_REQ, CONN, "opt-namespace"},
    {PX_O_SYS_FIRST, "system-server-first", 0, NULL, PX_ARG_NONE, CONN, "opt-system-server-first"},
    {PX_O_SYS_ONLY, "system-server-only", 0, NULL, PX_ARG_NONE, CONN, "opt-system-server-only"},
    {PX_O_NSPACE, "nspace", 0, NULL, PX_ARG_REQ, B(PX_CMD_PPS) | B(PX_CMD_PQUERY), "opt-nspace"},
    {PX_O_NODE, "node", 0, NULL, PX_ARG_REQ, B(PX_CMD_PPS), "opt-node"},
    {PX_O_FUNCTION, "function", 'f', NULL, PX_ARG_REQ, B(PX_CMD_PATTRS), "opt-function"},
    {PX_O_PARAM, "param", 0, NULL, PX_ARG_REQ, B(PX_CMD_PMIX_INFO), "opt-param"},
    {PX_O_ALL, "all", 'a', NULL, PX_ARG_NONE, B(PX_CMD_PMIX_INFO), "opt-all"},
    {PX_O_PARSABLE, "parsable", 'p', "parseable", PX_ARG_NONE, LIST, "opt-parsable"},
    {PX_O_VERBOSE, "verbose", 'v', NULL, PX_ARG_NONE, ALL, "opt-verbose"},
    {PX_O_ALLOW_ROOT, "allow-run-as-root", 0, NULL, PX_ARG_NONE, ALL, "opt-allow-run-as-root"},
    {PX_O_HELP, "help", 'h', NULL, PX_ARG_OPT, ALL, "opt-help"},
    {PX_O_VERSION, "version", 'V', NULL, PX_ARG_NONE, ALL, "opt-version"},
};
const size_t px_opt_ndefs = sizeof(px_opt_defs) / sizeof(px_opt_defs[0]);

const char *const px_cmd_names[PX_CMD_COUNT] = {"prte", "prterun", "prun",   "pterm",
                                                "pps",  "pquery",  "pattrs", "pmix_info"};

/* By long name or single-dash alias (name without dashes, without "=value"). */
const px_opt_def_t *px_opts_find_def(const char *name)
{
    for (size_t i = 0; i < px_opt_ndefs; i++) {
        if (strcmp(px_opt_defs[i].lng, name) == 0 ||
            (px_opt_defs[i].alias != NULL && strcmp(px_opt_defs[i].alias, name) == 0))
            return &px_opt_defs[i];
    }
    return NULL;
}

static const px_opt_def_t *px_opts_find_short(char c)
{
    for (size_t i = 0; i < px_opt_ndefs; i++) {
        if (px_opt_defs[i].shrt != 0 && px_opt_defs[i].shrt == c)
            return &px_opt_defs[i];
    }
    return NULL;
}

int px_opts_posint(const char *s, int *out)
{
    char *end;
    long v;

    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < 1 || v > 0x7fffffff)
        return -1;
    *out = (int)v;
    return 0;
}

bool px_opts_root_allowed(uid_t euid, bool allow_flag, const char *env_allow,
                          const char *env_confirm)
{
    if (euid != 0 || allow_flag)
        return true;
    return env_allow != NULL && strcmp(env_allow, "1") == 0 && env_confirm != NULL &&
           strcmp(env_confirm, "1") == 0;
}

/* ---- help ------------------------------------------------------------------------ */

/* Catalog text of an option topic with "%%" turned into "%" (the topics take no
 * arguments). Returns a malloc'd string or NULL. */
static char *px_opts_topic_text(const char *topic)
{
    const char *t = px_help_lookup(PX_CLI_HELP, topic);
    char *out, *o;

    if (t == NULL || (out = malloc(strlen(t) + 1)) == NULL)
        return NULL;
    for (o = out; *t != '\0'; t++) {
        *o++ = *t;
        if (t[0] == '%' && t[1] == '%')
            t++;
    }
    *o = '\0';
    return out;
}

/* The option list of --help: synopsis and summary (the first two lines of each topic). */
static char *px_opts_option_list(px_cmd_kind_t kind)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    if (f == NULL)
        return NULL;
    for (size_t i = 0; i < px_opt_ndefs; i++) {
        char *text, *nl, *summary;
        if (!(px_opt_defs[i].cmds & B(kind)))
            continue;
        if ((text = px_opts_topic_text(px_opt_defs[i].topic)) == NULL)
            continue;
        nl = strchr(text, '\n');
        summary = "";
        if (nl != NULL) {
            *nl = '\0';
            summary = nl + 1;
            if ((nl = strchr(summary, '\n')) != NULL)
                *nl = '\0';
        }
        if (strlen(text) <= 30)
            fprintf(f, "  %-30s  %s\n", text, summary);
        else
            fprintf(f, "  %s\n  %-30s  %s\n", text, "", summary);
        free(text);
    }
    fclose(f);
    if (len > 0 && buf[len - 1] == '\n')
        buf[len - 1] = '\0'; /* the usage text adds its own newline */
    return buf;
}

static int px_opts_print_usage(const px_cmd_t *cmd)
{
    char *list = px_opts_option_list(cmd->kind), *text = NULL;

    if (list == NULL)
        return -1;
    /* topic usage-<command>, "_" written "-" (usage-pmix-info) */
    char topic[64];
    snprintf(topic, sizeof(topic), "usage-%s", px_cmd_names[cmd->kind]);
    for (char *c = topic; *c != '\0'; c++)
        if (*c == '_')
            *c = '-';
    text = px_help_render("help-prte-cli.txt", topic, cmd->prog, list);
    free(list);
    if (text == NULL)
        return -1;
    fputs(text, stdout);
    fflush(stdout);
    free(text);
    return 0;
}

/* --help <option>: the option's whole text on stdout. */
static px_opts_result_t px_opts_print_option_help(const px_cmd_t *cmd, const char *what)
{
    char name[128];
    const char *n = what;
    const px_opt_def_t *d;
    char *text;

    while (*n == '-')
        n++;
    snprintf(name, sizeof(name), "%s", n);
    name[strcspn(name, "=")] = '\0';
    d = px_opts_find_def(name);
    if (d == NULL && name[0] != '\0' && name[1] == '\0')
        d = px_opts_find_short(name[0]);
    if (d == NULL) {
        px_show_help("help-prte-cli.txt", "help-unknown-option", cmd->prog, what);
        return PX_OPTS_EXIT_ERR;
    }
    if ((text = px_opts_topic_text(d->topic)) == NULL)
        return PX_OPTS_EXIT_ERR;
    fputs(text, stdout);
    fflush(stdout);
    free(text);
    return PX_OPTS_EXIT_OK;
}

static void px_opts_print_version(const px_cmd_t *cmd)
{
    char *text = px_help_render("help-prte-cli.txt", "version", cmd->prog, PMIX_RUNTIME_VERSION);
    if (text != NULL) {
        fputs(text, stdout);
        fflush(stdout);
        free(text);
    }
}

/* "prun, prterun": the commands that have an option. */
static void px_opts_cmds_of(const px_opt_def_t *d, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int k = 0; k < PX_CMD_COUNT; k++) {
        if (d->cmds & B(k)) {
            if (buf[0] != '\0')
                strncat(buf, ", ", len - strlen(buf) - 1);
            strncat(buf, px_cmd_names[k], len - strlen(buf) - 1);
        }
    }
}

/* ---- parsing --------------------------------------------------------------------- */

static bool px_opts_is_job(px_cmd_kind_t k)
{
    return k == PX_CMD_PRUN || k == PX_CMD_PRTERUN;
}

/* A name-valued option (--nspace, --node): not empty. 0, or -1 after the message. */
static int px_opts_set_name(px_cmd_t *cmd, char **dst, const char *opt, const char *val)
{
    if (val[0] == '\0') {
        px_show_help("help-prte-cli.txt", "empty-value", cmd->prog, opt);
        return -1;
    }
    free(*dst);
    *dst = strdup(val);
    return *dst == NULL ? -1 : 0;
}

/* Append the comma-separated names of val to a NULL-ended list; empty names refused. */
static int px_opts_add_list(px_cmd_t *cmd, char ***list, const char *opt, const char *val)
{
    char **names = PMIx_Argv_split(val, ',');
    int rc = 0;

    if (names == NULL || names[0] == NULL || strstr(val, ",,") != NULL || val[0] == ',' ||
        val[strlen(val) - 1] == ',') {
        px_show_help("help-prte-cli.txt", "empty-value", cmd->prog, opt);
        rc = -1;
    }
    for (size_t i = 0; rc == 0 && names[i] != NULL; i++) {
        if (PMIx_Argv_append_nosize(list, names[i]) != PMIX_SUCCESS)
            rc = -1;
    }
    PMIx_Argv_free(names);
    return rc;
}

/* Apply one option of a non-job kind. 0, or -1 after printing the error. */
static int px_opts_apply(px_cmd_t *cmd, const px_opt_def_t *d, const char *opt, const char *val,
                         int count)
{
    int n;

    switch (d->id) {
    case PX_O_VERBOSE:
        cmd->verbose += count;
        return 0;
    case PX_O_ALLOW_ROOT:
        cmd->allow_run_as_root = true;
        return 0;
    case PX_O_HOST:
    case PX_O_HOSTS:
        return px_opts_add_hosts(cmd, val);
    case PX_O_ADD_HOST:
        return px_opts_add_hosts_to(cmd, val, true);
    case PX_O_HOSTFILE:
        return px_opts_add_hostfile(cmd, val);
    case PX_O_DEBUG_DAEMONS:
        cmd->debug_daemons = true;
        return 0;
    case PX_O_DAEMONIZE:
        cmd->daemonize = true;
        return 0;
    case PX_O_REPORT_URI:
        free(cmd->report_uri);
        cmd->report_uri = strdup(val);
        return cmd->report_uri == NULL ? -1 : 0;
    case PX_O_REPORT_PID:
        free(cmd->report_pid);
        cmd->report_pid = strdup(val != NULL ? val : "-");
        return cmd->report_pid == NULL ? -1 : 0;
    case PX_O_SYSTEM_SERVER:
        cmd->system_server = true;
        return 0;
    case PX_O_NO_READY_MSG:
        cmd->no_ready_msg = true;
        return 0;
    case PX_O_ALLOW_USERS:
        return px_opts_add_allowed(cmd, val, false);
    case PX_O_ALLOW_GROUPS:
        return px_opts_add_allowed(cmd, val, true);
    case PX_O_DVM_URI:
        free(cmd->dvm_uri);
        cmd->dvm_uri = strdup(val);
        return cmd->dvm_uri == NULL ? -1 : 0;
    case PX_O_PID:
        if (px_opts_posint(val, &n) < 0) {
            px_show_help("help-prte-cli.txt", "bad-pid", cmd->prog, val);
            return -1;
        }
        cmd->pid = (pid_t)n;
        return 0;
    case PX_O_NAMESPACE:
        free(cmd->nspace);
        cmd->nspace = strdup(val);
        return cmd->nspace == NULL ? -1 : 0;
    case PX_O_SYS_FIRST:
        cmd->system_first = true;
        return 0;
    case PX_O_SYS_ONLY:
        cmd->system_only = true;
        return 0;
    case PX_O_PARSABLE:
        cmd->parsable = true;
        return 0;
    case PX_O_ALL:
        cmd->all = true;
        return 0;
    case PX_O_NSPACE:
        return px_opts_set_name(cmd, &cmd->job_nspace, opt, val);
    case PX_O_NODE:
        return px_opts_set_name(cmd, &cmd->node, opt, val);
    case PX_O_FUNCTION:
    case PX_O_PARAM:
        return px_opts_add_list(cmd, &cmd->functions, opt, val);
    default:
        (void)opt;
        return 0;
    }
}

int px_opts_parse_vec(px_cmd_t *cmd, px_job_state_t *js, int argc, char **argv, bool appfile,
                      px_opts_result_t *res)
{
    bool job = px_opts_is_job(cmd->kind), positional = false;

    *res = PX_OPTS_RUN;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        const px_opt_def_t *d = NULL;
        px_seg_t *seg = NULL;
        char name[128], cmds[64];
        bool inl = false;
        int count = 1;

        if (job && (seg = px_opts_job_seg(js)) == NULL)
            return -1;
        if (seg != NULL && seg->argv != NULL) { /* the arguments of an executable */
            if (strcmp(a, ":") == 0) {
                positional = false;
                if (px_opts_job_new_seg(js) < 0)
                    return -1;
                continue;
            }
            if (px_opts_seg_add_arg(seg, a) < 0)
                return -1;
            continue;
        }
        if (job && strcmp(a, ":") == 0) {
            px_show_help("help-prte-cli.txt", "empty-segment", cmd->prog, (int)js->nsegs);
            return -1;
        }
        if (!positional && strcmp(a, "--") == 0) {
            positional = true;
            continue;
        }
        if (positional || a[0] != '-' || a[1] == '\0') {
            if (!job && cmd->kind == PX_CMD_PQUERY) { /* a query key */
                if (PMIx_Argv_append_nosize(&cmd->keys, a) != PMIX_SUCCESS)
                    return -1;
                continue;
            }
            if (!job) {
                px_show_help("help-prte-cli.txt", "unexpected-argument", cmd->prog, a);
                return -1;
            }
            if (px_opts_seg_add_arg(seg, a) < 0)
                return -1;
            continue;
        }

        /* an option: --name[=v], -alias[=v], -c, -cVALUE, -vvv */
        snprintf(name, sizeof(name), "%s", a + (a[1] == '-' ? 2 : 1));
        if (strchr(name, '=') != NULL) {
            name[strcspn(name, "=")] = '\0';
            val = strchr(a, '=') + 1;
            inl = true;
        }
        if (a[1] == '-') {
            d = px_opts_find_def(name);
        } else {
            for (size_t k = 0; k < px_opt_ndefs && d == NULL; k++) {
                if (px_opt_defs[k].alias != NULL && strcmp(px_opt_defs[k].alias, name) == 0)
                    d = &px_opt_defs[k];
            }
            if (d == NULL && (d = px_opts_find_short(a[1])) != NULL && a[2] != '\0') {
                if (d->arg != PX_ARG_NONE) {
                    val = a[2] == '=' ? a + 3 : a + 2;
                    inl = true;
                } else if (a[2] != '=' && strspn(a + 1, (char[]){a[1], 0}) == strlen(a + 1) &&
                           d->id == PX_O_VERBOSE) {
                    count = (int)strlen(a + 1);
                } else {
                    d = NULL;
                }
            }
        }
        snprintf(name, sizeof(name), "%s", a);
        name[strcspn(name, "=")] = '\0';
        if (d == NULL) {
            px_show_help("help-prte-cli.txt", "unknown-option", cmd->prog, name);
            return -1;
        }
        if (!(d->cmds & B(cmd->kind))) {
            px_opts_cmds_of(d, cmds, sizeof(cmds));
            px_show_help("help-prte-cli.txt", "option-not-here", cmd->prog, name, cmd->prog, cmds);
            return -1;
        }
        if (appfile && d->id == PX_O_APP) {
            px_show_help("help-prte-cli.txt", "appfile-nested", cmd->prog, name);
            return -1;
        }
        if (d->arg == PX_ARG_NONE && inl) {
            px_show_help("help-prte-cli.txt", "unexpected-value", cmd->prog, name, val);
            return -1;
        }
        if (d->arg == PX_ARG_REQ && !inl) {
            if (i + 1 >= argc) {
                char *text = px_opts_topic_text(d->topic);
                if (text != NULL)
                    text[strcspn(text, "\n")] = '\0';
                px_show_help("help-prte-cli.txt", "missing-value", cmd->prog, name,
                             text != NULL ? text : d->lng);
                free(text);
                return -1;
            }
            val = argv[++i];
        }
        if (d->arg == PX_ARG_OPT && !inl && i + 1 < argc) {
            const char *nx = argv[i + 1];
            if (d->id == PX_O_HELP || nx[0] != '-' || strcmp(nx, "-") == 0 || strcmp(nx, "+") == 0)
                val = argv[++i];
        }

        if (d->id == PX_O_GENV) { /* -genv NAME VALUE (Hydra), or -genv NAME=VALUE */
            const char *value = NULL;
            if (strchr(val, '=') == NULL) {
                if (i + 1 >= argc) {
                    px_show_help("help-prte-cli.txt", "missing-value", cmd->prog, name,
                                 "-genv <name> <value>");
                    return -1;
                }
                value = argv[++i];
            }
            if (px_opts_job_genv(cmd, js, val, value) < 0)
                return -1;
            continue;
        }
        if (d->id == PX_O_PRTEMCA) { /* two values: --prtemca <key> <value> */
            if (i + 1 >= argc) {
                px_show_help("help-prte-cli.txt", "missing-value", cmd->prog, name,
                             "--prtemca <key> <value>");
                return -1;
            }
            if (px_opts_prtemca(cmd, name, val, argv[++i]) < 0)
                return -1;
            continue;
        }

        switch (d->id) {
        case PX_O_HELP:
            if (val == NULL)
                *res = px_opts_print_usage(cmd) < 0 ? PX_OPTS_EXIT_ERR : PX_OPTS_EXIT_OK;
            else
                *res = px_opts_print_option_help(cmd, val);
            return 1;
        case PX_O_VERSION:
            px_opts_print_version(cmd);
            *res = PX_OPTS_EXIT_OK;
            return 1;
        default:
            break;
        }
        if (d->id >= PX_O_NP && d->id <= PX_O_STOP_IN_APP) { /* the job options */
            if (px_opts_job_option(cmd, js, d->id, name, val) < 0)
                return -1;
        } else if (px_opts_apply(cmd, d, name, val, count) < 0) {
            return -1;
        }
    }
    return 0;
}

px_opts_result_t px_opts_parse(px_cmd_kind_t kind, int argc, char **argv, px_cmd_t *cmd)
{
    px_job_state_t js;
    px_opts_result_t res = PX_OPTS_RUN;
    const char *slash;
    int rc;

    memset(cmd, 0, sizeof(*cmd));
    memset(&js, 0, sizeof(js));
    cmd->kind = kind;
    cmd->prog = px_cmd_names[kind];
    if (argc > 0 && argv[0] != NULL) {
        slash = strrchr(argv[0], '/');
        cmd->prog = slash != NULL ? slash + 1 : argv[0];
    }
    rc = px_opts_parse_vec(cmd, &js, argc > 0 ? argc - 1 : 0, argv + (argc > 0), false, &res);
    if (rc == 1)
        goto out;
    if (rc < 0)
        goto error;
    if (cmd->pid != 0 && cmd->dvm_uri != NULL) {
        px_show_help("help-prte-cli.txt", "conflicting-options", cmd->prog, "--pid", "--dvm-uri");
        goto error;
    }
    if (px_opts_is_job(kind) && px_opts_job_finish(cmd, &js) < 0)
        goto error;
    if (kind == PX_CMD_PRUN && px_opts_alloc_finish(cmd) < 0)
        goto error;
    if ((kind == PX_CMD_PRTE || kind == PX_CMD_PRTERUN) && px_opts_prtemca_env(cmd) < 0)
        goto error;
    if ((kind == PX_CMD_PRTE || kind == PX_CMD_PRTERUN) && px_opts_slurm_hosts(cmd) < 0)
        goto error;
    if (kind == PX_CMD_PQUERY && cmd->keys == NULL) {
        px_show_help("help-prte-cli.txt", "pquery-no-key", cmd->prog);
        goto error;
    }
    /* pmix_info only reads the library's own tables: nothing to guard as root */
    if (kind != PX_CMD_PMIX_INFO &&
        !px_opts_root_allowed(geteuid(), cmd->allow_run_as_root, getenv("PRTE_ALLOW_RUN_AS_ROOT"),
                              getenv("PRTE_ALLOW_RUN_AS_ROOT_CONFIRM"))) {
        px_show_help("help-prte-cli.txt", "run-as-root", cmd->prog);
        goto error;
    }
    px_opts_job_state_fini(&js);
    return PX_OPTS_RUN;
error:
    res = PX_OPTS_EXIT_ERR;
out:
    px_opts_job_state_fini(&js);
    px_opts_fini(cmd);
    return res;
}

void px_opts_fini(px_cmd_t *cmd)
{
    if (cmd == NULL)
        return;
    if (cmd->apps != NULL)
        PMIx_App_free(cmd->apps, cmd->napps);
    if (cmd->jinfo != NULL)
        PMIx_Info_free(cmd->jinfo, cmd->njinfo);
    free(cmd->dvm_uri);
    free(cmd->nspace);
    free(cmd->report_uri);
    free(cmd->report_pid);
    free(cmd->plm_ssh_agent);
    cmd->plm_ssh_agent = NULL;
    free(cmd->hb_interval);
    free(cmd->hb_timeout);
    free(cmd->tree_radix);
    cmd->tree_radix = NULL;
    free(cmd->prefix);
    cmd->prefix = NULL;
    cmd->hb_interval = cmd->hb_timeout = NULL;
    free(cmd->routed_radix);
    cmd->routed_radix = NULL;
    free(cmd->job_nspace);
    free(cmd->node);
    PMIx_Argv_free(cmd->functions);
    PMIx_Argv_free(cmd->keys);
    cmd->job_nspace = cmd->node = NULL;
    cmd->functions = cmd->keys = NULL;
    for (size_t i = 0; i < cmd->nhosts; i++)
        free(cmd->hosts[i].name);
    free(cmd->hosts);
    for (size_t i = 0; i < cmd->nadd_hosts; i++)
        free(cmd->add_hosts[i].name);
    free(cmd->add_hosts);
    cmd->add_hosts = NULL;
    cmd->nadd_hosts = 0;
    free(cmd->allow_uids);
    free(cmd->allow_gids);
    cmd->allow_uids = NULL;
    cmd->allow_gids = NULL;
    cmd->nallow_uids = cmd->nallow_gids = 0;
    cmd->apps = NULL;
    cmd->napps = 0;
    cmd->jinfo = NULL;
    cmd->njinfo = 0;
    cmd->dvm_uri = cmd->nspace = cmd->report_uri = cmd->report_pid = NULL;
    cmd->hosts = NULL;
    cmd->nhosts = 0;
}
