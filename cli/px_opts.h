/* cli: the command lines of prte, prterun, prun, pterm and pps — PRRTE's spellings —
 * parsed into what the commands need: for a job, the pmix_app_t[] and job info a
 * PMIx_Spawn takes; for a DVM connection, the tool connection chain's options; for prte,
 * the DVM's options. --help, --help <option>, --version, unknown or malformed options,
 * and the run-as-root rule are handled here (messages from share/help/help-prte-cli.txt).
 * Single-threaded; called once at the start of main.
 */
#ifndef PX_OPTS_H
#define PX_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <pmix_common.h>

#include "launcher/px_dvm.h"  /* px_dvm_opts_t */
#include "launcher/px_host.h" /* px_host_t */
#include "launcher/px_map.h"

typedef enum {
    PX_CMD_PRTE,
    PX_CMD_PRTERUN,
    PX_CMD_PRUN,
    PX_CMD_PTERM,
    PX_CMD_PPS,
    PX_CMD_PQUERY,    /* ask a DVM for query keys */
    PX_CMD_PATTRS,    /* the attributes a DVM supports, per function */
    PX_CMD_PMIX_INFO, /* the local library: no DVM, no run-as-root rule */
    PX_CMD_COUNT,
} px_cmd_kind_t;

/* The command names, indexed by px_cmd_kind_t. */
extern const char *const px_cmd_names[PX_CMD_COUNT];

typedef struct {
    px_cmd_kind_t kind;
    const char *prog; /* borrowed: basename of argv[0] */

    /* --- a job (prun, prterun) ---
     * apps: argv (owned, argv[0] the executable as typed), cmd (= argv[0]), env (owned:
     * "VAR=value" for each -x, the value taken from our environment when not given),
     * cwd (--wdir, else the current directory), maxprocs (-n; 0 when absent), info
     * (PMIX_PSET_NAME when the app had --pset). */
    pmix_app_t *apps; /* owned (PMIx_App_free) */
    size_t napps;
    /* jinfo: PMIX_MAPBY / PMIX_RANKBY / PMIX_BINDTO (strings as typed, validated),
     * PMIX_DISPLAY_MAP, PMIX_REPORT_BINDINGS, the PMIX_IOF_* output keys of px_iof.h,
     * PMIX_STDIN_TGT (uint32: a rank, PMIX_RANK_WILDCARD for "all"; absent for "none"
     * — see stdin_none), PMIX_JOB_TIMEOUT (int seconds), PMIX_NOHUP, PMIX_PERSONALITY
     * (--personality, as typed), and always
     * PMIX_FWD_STDOUT, PMIX_FWD_STDERR, PMIX_NOTIFY_COMPLETION, PMIX_NOTIFY_JOB_EVENTS
     * (true). */
    pmix_info_t *jinfo; /* owned (PMIx_Info_free) */
    size_t njinfo;
    bool stdin_none;        /* --stdin none */
    pmix_rank_t stdin_rank; /* --stdin N (default 0); PMIX_RANK_WILDCARD for all */
    int timeout;            /* --timeout seconds, 0: none */

    /* --- which DVM (prun, pterm, pps): the tool connection chain --- */
    char *dvm_uri;     /* owned: --dvm-uri as typed ("file:<path>" kept as is) */
    pid_t pid;         /* --pid, 0: none */
    char *nspace;      /* owned: --namespace */
    bool system_first; /* --system-server-first */
    bool system_only;  /* --system-server-only */

    /* --- the DVM itself (prte, prterun) --- */
    bool daemonize;     /* --daemonize */
    char *report_uri;   /* owned: --report-uri <file|-|+> */
    char *report_pid;   /* owned: --report-pid <file|-|+> ("-" when given bare) */
    bool system_server; /* --system-server */
    px_host_t *hosts;   /* owned: --host a,b:2 and --hostfile lines, validated (prun: the
                           DVM's nodes the job may use, also in each app's PMIX_HOST) */
    size_t nhosts;
    px_host_t *add_hosts; /* owned: prun --add-host, validated, each name once (also in
                             each app's PMIX_ADD_HOST) */
    size_t nadd_hosts;
    bool debug_daemons; /* --debug-daemons */
    bool no_ready_msg;  /* --no-ready-msg */
    uid_t *allow_uids;  /* owned: --allow-users, resolved */
    size_t nallow_uids;
    gid_t *allow_gids; /* owned: --allow-groups, resolved */
    size_t nallow_gids;
    /* owned: the remote shell that starts remote daemons, "<agent> <host> <prted command
     * line>": --prtemca plm_ssh_agent <cmd>, else $PRTE_MCA_plm_ssh_agent (the command
     * line wins); NULL when neither is given (the built-in ssh client). Not empty. */
    char *plm_ssh_agent;
    /* owned: --prefix <dir>: the installation whose bin/prted runs on the other hosts
     * (absolute); NULL: not given. --noprefix: run "prted" from the remote PATH. */
    char *prefix;
    bool noprefix;
    /* owned: --prtemca dvm_heartbeat_interval / dvm_heartbeat_timeout <seconds> (or
     * PRTE_MCA_dvm_heartbeat_*), validated numbers 0..3600; NULL: the default */
    char *hb_interval, *hb_timeout;
    /* the hosts came from a Slurm allocation (SLURM_JOB_ID, SLURM_JOB_NODELIST; no --host
     * or --hostfile given): cli/opts_slurm.c */
    bool slurm;
    /* owned: --prtemca plm_ssh_tree_radix <n> (1..4096), NULL: the default */
    char *tree_radix;
    /* owned: --prtemca routed_radix <n> (1..4096), else $PRTE_MCA_routed_radix: the
     * routing tree's radix; NULL: the default (px_opts_dvm) */
    char *routed_radix;

    /* --- the listing and query commands (pps, pquery, pattrs, pmix_info) --- */
    bool parsable;    /* --parsable: colon-separated lines for scripts */
    char *job_nspace; /* owned: pps --nspace / pquery --nspace: one job */
    char *node;       /* owned: pps --node: one node */
    char **functions; /* owned, NULL-ended: pattrs --function / pmix_info --param (repeatable,
                       * comma lists split) */
    bool all;         /* pmix_info --all */
    char **keys;      /* owned, NULL-ended: pquery's positional query keys as typed */

    /* --- every command --- */
    int verbose; /* -v, repeatable */
    bool allow_run_as_root;
} px_cmd_t;

typedef enum {
    PX_OPTS_RUN = 0,      /* go on with *cmd filled */
    PX_OPTS_EXIT_OK = 1,  /* --help / --version printed: exit 0 */
    PX_OPTS_EXIT_ERR = 2, /* a clear error was printed on stderr: exit 1 */
} px_opts_result_t;

/* Parse argv for a command. On PX_OPTS_RUN the caller owns *cmd (px_opts_fini). The
 * run-as-root rule is checked here: as root, --allow-run-as-root or both
 * PRTE_ALLOW_RUN_AS_ROOT=1 and PRTE_ALLOW_RUN_AS_ROOT_CONFIRM=1 are needed. */
px_opts_result_t px_opts_parse(px_cmd_kind_t kind, int argc, char **argv, px_cmd_t *cmd);
void px_opts_fini(px_cmd_t *cmd);

/* The DVM's heartbeats (docs/ARCHITECTURE.md "Faults"): a ping every interval, a daemon
 * silent for the timeout is lost. Defaults, and both in ms from --prtemca
 * dvm_heartbeat_interval / dvm_heartbeat_timeout (seconds); either one 0 turns them off
 * (both 0 then). */
#define PX_HB_INTERVAL_MS 2000
#define PX_HB_TIMEOUT_MS  20000
void px_opts_heartbeat(const px_cmd_t *cmd, unsigned *interval_ms, unsigned *timeout_ms);

/* The radix of the tree the daemons are started along (daemon i starts daemons
 * radix*i+1 .. radix*i+radix): --prtemca plm_ssh_tree_radix, else the default (with at
 * most that many other hosts, the controller starts every daemon itself). */
#define PX_TREE_RADIX_DEFAULT 64
unsigned px_opts_tree_radix(const px_cmd_t *cmd);

/* The DVM's options of prte and prterun from cmd (hosts, agent, heartbeats, prefix,
 * tree radix, srun, allowed users, verbosity; pointers borrowed from cmd); the caller
 * adds its own callbacks. */
void px_opts_dvm(const px_cmd_t *cmd, px_dvm_opts_t *o);

/* Where prted is on the other hosts (PRRTE's rule): NULL with --noprefix (from their
 * PATH), else --prefix, else $PRTE_PREFIX, else NULL (the path of this command's own
 * prted). Borrowed from cmd or the environment. */
const char *px_opts_prted_prefix(const px_cmd_t *cmd);

/* The run-as-root rule, as a pure function (compatible addition, for tests and for
 * commands that check it themselves): true when euid is not 0, when allow_flag
 * (--allow-run-as-root) is set, or when env_allow and env_confirm (the values of
 * PRTE_ALLOW_RUN_AS_ROOT and PRTE_ALLOW_RUN_AS_ROOT_CONFIRM, NULL if unset) are both "1". */
bool px_opts_root_allowed(uid_t euid, bool allow_flag, const char *env_allow,
                          const char *env_confirm);

/* The hosts of --host and --hostfile as the mapper's nodes (launcher/px_map.h): one per
 * distinct name, in the order first named; its slots are the sum over its entries (an
 * entry without a count is 1 slot: "--host a,a,b:2" is a:2, b:2), counted as given;
 * topo NULL and nothing held (the node's daemon reports its topology later). *nodes is
 * malloc'd (the caller frees it, names are borrowed from cmd->hosts); 0 nodes when no
 * host was given. O(n log n). 0, or -1 with errno = ENOMEM. */
int px_opts_host_nodes(const px_cmd_t *cmd, px_map_node_t **nodes, size_t *nnodes);

#endif /* PX_OPTS_H */
