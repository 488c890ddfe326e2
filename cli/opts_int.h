/* cli internals shared by opts.c (generic parser, option table, help), opts_job.c (job
 * options -> pmix_app_t[] + job info) and opts_hosts.c (--host, --hostfile).
 * Single-threaded, called from main. */
#ifndef PX_OPTS_INT_H
#define PX_OPTS_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/px_opts.h"

#define PX_CLI_HELP "help-prte-cli.txt"

typedef enum {
    PX_O_HELP,
    PX_O_VERSION,
    PX_O_VERBOSE,
    PX_O_ALLOW_ROOT,
    /* job */
    PX_O_NP,
    PX_O_APP,
    PX_O_PSET,
    PX_O_X,
    PX_O_WDIR,
    PX_O_MAPBY,
    PX_O_RANKBY,
    PX_O_BINDTO,
    PX_O_REPORT_BINDINGS,
    PX_O_DISPLAY,
    PX_O_OUTPUT,
    PX_O_TAG_OUTPUT,
    PX_O_TIMESTAMP_OUTPUT,
    PX_O_XML,
    PX_O_MERGE,
    PX_O_OUTPUT_FILENAME,
    PX_O_STDIN,
    PX_O_TIMEOUT,
    PX_O_NOPREFIX,
    PX_O_PREFIX,
    PX_O_PERSONALITY,
    PX_O_PPN,             /* Hydra's -ppn N: --map-by ppr:N:node */
    PX_O_GENV,            /* Hydra's -genv NAME VALUE: -x for every executable */
    PX_O_FORK_EXEC_AGENT, /* PMIX_FORKEXEC_AGENT (issue 17) */
    PX_O_EXEC_AGENT,      /* PMIX_EXEC_AGENT */
    PX_O_NOHUP,
    PX_O_STOP_ON_EXEC, /* a debugger's stop points (PMIX_DEBUG_STOP_*), every rank */
    PX_O_STOP_IN_INIT,
    PX_O_STOP_IN_APP, /* the last job option (opts.c dispatches the range to opts_job.c) */
    /* DVM (prte, prterun) */
    PX_O_HOST,
    PX_O_HOSTS, /* Hydra's -hosts: --host */
    PX_O_HOSTFILE,
    PX_O_ADD_HOST, /* prun --add-host */
    PX_O_DEBUG_DAEMONS,
    PX_O_DAEMONIZE,
    PX_O_REPORT_URI,
    PX_O_REPORT_PID,
    PX_O_SYSTEM_SERVER,
    PX_O_NO_READY_MSG,
    PX_O_ALLOW_USERS,
    PX_O_ALLOW_GROUPS,
    PX_O_PRTEMCA,
    /* connection (prun, pterm, pps) */
    PX_O_DVM_URI,
    PX_O_PID,
    PX_O_NAMESPACE,
    PX_O_SYS_FIRST,
    PX_O_SYS_ONLY,
    /* listing and query commands (pps, pquery, pattrs, pmix_info) */
    PX_O_PARSABLE,
    PX_O_NSPACE,
    PX_O_NODE,
    PX_O_FUNCTION,
    PX_O_PARAM,
    PX_O_ALL,
} px_opt_id_t;

typedef enum { PX_ARG_NONE, PX_ARG_REQ, PX_ARG_OPT } px_arg_kind_t;

typedef struct {
    px_opt_id_t id;
    const char *lng;   /* --lng */
    char shrt;         /* -c, 0 none */
    const char *alias; /* single-dash long form (-np, -host), NULL none */
    px_arg_kind_t arg;
    unsigned cmds;     /* bit (1u << px_cmd_kind_t) for each command that has it */
    const char *topic; /* its topic in help-prte-cli.txt */
} px_opt_def_t;

extern const px_opt_def_t px_opt_defs[];
extern const size_t px_opt_ndefs;

/* One app context being parsed (a segment of an MPMD command line or an appfile line). */
typedef struct {
    char **argv; /* owned, NULL-terminated; NULL until the executable is seen */
    int argc;
    int np;
    char *pset; /* owned */
    char **env; /* owned, NULL-terminated "VAR=value" */
    int nenv;
    char *wdir; /* owned */
} px_seg_t;

/* Everything the job options say, before it becomes apps + info. */
typedef struct {
    px_seg_t *segs; /* owned; the last one is being filled */
    size_t nsegs;
    char *mapby, *rankby, *bindto; /* owned */
    bool display_map, report_bindings, display_alloc;
    bool tag, rank, ts, xml, merge, raw, nocopy;
    char *dir, *file; /* owned */
    bool stdin_none;
    uint32_t stdin_rank;
    int timeout;
    char *personality; /* owned: --personality, passed on as typed (the DVM checks it) */
    char *fork_exec_agent, *exec_agent; /* owned: --fork-exec-agent, --exec-agent */
    char **genv; /* owned, NULL-terminated: -genv "VAR=value", for every segment */
    int ngenv;
    bool ppn; /* mapby came from -ppn (for the conflict message) */
    bool nohup;
    bool stop_exec, stop_init, stop_app; /* --stop-on-exec, --stop-in-init, --stop-in-app */
    char *appfile;                       /* owned */
} px_job_state_t;

/* opts.c */
const px_opt_def_t *px_opts_find_def(const char *name);
int px_opts_posint(const char *s, int *out); /* 0, or -1 when not a positive int */

/* opts_job.c. Each returns 0, or -1 after printing the error. */
int px_opts_job_option(px_cmd_t *cmd, px_job_state_t *js, px_opt_id_t id, const char *opt,
                       const char *val);
/* -genv NAME VALUE, or -genv NAME=VALUE (value NULL): an -x for every executable of the
 * job (an executable's own -x of the name wins). */
int px_opts_job_genv(px_cmd_t *cmd, px_job_state_t *js, const char *name, const char *value);
px_seg_t *px_opts_job_seg(px_job_state_t *js); /* current segment (made on demand) */
int px_opts_job_new_seg(px_job_state_t *js);
int px_opts_seg_add_arg(px_seg_t *seg, const char *arg);
int px_opts_job_finish(px_cmd_t *cmd, px_job_state_t *js);
void px_opts_job_state_fini(px_job_state_t *js);
/* Parse an argument vector (the command line after argv[0], or one appfile line). */
int px_opts_parse_vec(px_cmd_t *cmd, px_job_state_t *js, int argc, char **argv, bool appfile,
                      px_opts_result_t *res);

/* opts_hosts.c: --host entries into cmd->hosts (add false) or --add-host entries into
 * cmd->add_hosts (add true: a name given twice is refused). 0, or -1 after the message. */
int px_opts_add_hosts(px_cmd_t *cmd, const char *spec);
int px_opts_add_hosts_to(px_cmd_t *cmd, const char *spec, bool add);
/* opts_slurm.c: inside a Slurm allocation, without --host/--hostfile, its nodes and
 * slots as cmd's hosts (cmd->slurm set). 0, or -1 after a clear message. The parsers,
 * exposed for the unit test: a hostlist expression ("n[1-3,07],g") into a NULL-ended
 * malloc'd list (PMIx_Argv_free), and a count list ("2(x3),1") into exactly n ints;
 * each 0, or -1 when malformed. */
int px_opts_slurm_hosts(px_cmd_t *cmd);
int px_opts_hostlist_expand(const char *expr, char ***names, size_t *n);
int px_opts_slurm_counts(const char *spec, size_t n, int *out);

/* opts_alloc.c: prun's --host / --add-host as each app's PMIX_HOST / PMIX_ADD_HOST. 0,
 * or -1 (out of memory). */
int px_opts_alloc_finish(px_cmd_t *cmd);
/* opts_users.c: --allow-users (group false) / --allow-groups (group true): a comma list
 * of names or numeric ids appended to cmd. 0, or -1 after a clear message. */
int px_opts_add_allowed(px_cmd_t *cmd, const char *list, bool group);
int px_opts_add_hostfile(px_cmd_t *cmd, const char *path);

/* opts_prtemca.c: --prtemca <key> <value> (opt: the option as typed) and, for what the
 * command line did not set, the PRTE_MCA_<key> environment variables of the known keys.
 * 0, or -1 after a clear message; an unknown key is refused. */
int px_opts_prtemca(px_cmd_t *cmd, const char *opt, const char *key, const char *value);
int px_opts_prtemca_env(px_cmd_t *cmd);

#endif /* PX_OPTS_INT_H */
