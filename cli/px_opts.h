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
     * PMIX_FWD_STDOUT, PMIX_FWD_STDERR, PMIX_NOTIFY_COMPLETION (true). */
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
    px_host_t *hosts;   /* owned: --host a,b:2 and --hostfile lines, validated */
    size_t nhosts;
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
    /* --prtemca routed_radix N, else $PRTE_MCA_routed_radix: the routing tree's radix
     * (1..4096; 0 when not given: the default); routed_radix is the text as given. */
    char *routed_radix;
    unsigned radix;

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
