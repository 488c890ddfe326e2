/* launcher: the DVM controller — embeds the PMIx server (with tool support), keeps the
 * job table and runs each job's life: map, register, define psets, start (through the
 * node agent of daemon/), forward output, watch exits, report the end. prte and prterun
 * call this; everything runs on the caller's libevent loop (main thread), the server
 * library's upcalls are shifted onto it.
 */
#ifndef PX_DVM_H
#define PX_DVM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <event2/event.h>
#include <pmix_common.h>

#include "launcher/px_host.h"

typedef struct px_dvm px_dvm_t; /* one controller: px_dvm_create / px_dvm_destroy */

typedef struct {
    bool system_server;     /* PMIX_SERVER_SYSTEM_SUPPORT */
    const px_host_t *hosts; /* borrowed: --host/--hostfile; a prted runs on each other one */
    size_t nhosts;
    /* borrowed: the remote shell starting prted on the other hosts ("<agent> <host>
     * <prted command line>": --prtemca plm_ssh_agent or PRTE_MCA_plm_ssh_agent); NULL:
     * none, every host must be this node */
    const char *ssh_agent;
    /* the daemons' heartbeats in ms (px_daemons_opts_t; both 0: off) */
    unsigned hb_interval_ms, hb_timeout_ms;
    bool debug_daemons; /* --debug-daemons: the daemons log every message (prted --debug) */
    /* borrowed: the installation whose bin/prted runs on the other hosts (--prefix /
     * PRTE_PREFIX); NULL: this command's own prted's path, or with noprefix (--noprefix)
     * "prted" from the remote PATH */
    const char *prted_prefix;
    bool noprefix;
    unsigned tree_radix; /* the daemons' start tree (px_daemons_opts_t); 0: all by us */
    bool srun;           /* the daemons are started through srun (px_daemons_opts_t) */
    /* The routing tree's radix (--prtemca routed_radix / PRTE_MCA_routed_radix; 0: the
     * default, PX_DP_RADIX_DEFAULT = 64). */
    unsigned radix;
    /* Other users and groups whose tools are served (--allow-users, --allow-groups):
     * borrowed. Everyone else but the DVM's own user is refused. */
    const uid_t *allow_uids;
    size_t nallow_uids;
    const gid_t *allow_gids;
    size_t nallow_gids;
    int verbose;
    const char *prog; /* for messages */
    /* Called on the loop when a tool (pterm) asks the DVM to terminate; the command then
     * runs px_dvm_shutdown and exits. */
    void (*terminate)(void *arg);
    void *terminate_arg;
    /* Called on the loop, once, when the DVM is up (ok: every daemon said hello; jobs
     * asked for meanwhile start now) or could not start (ok false: a message said why;
     * jobs asked for meanwhile end with dvm-not-started; the command then stops the loop
     * and destroys the DVM). Never inside px_dvm_create. May be NULL. */
    void (*ready)(bool ok, void *arg);
    void *ready_arg;
    /* borrowed: the DVM's namespace; NULL: "prte-<host>-<pid>". A launcher started by a
     * tool takes the one that tool registered for it (Tools chapter, indirect launch). */
    const char *nspace;
    /* borrowed: a file where the server also writes its rendezvous information
     * (PMIX_LAUNCHER_RENDEZVOUS_FILE), or NULL */
    const char *rndz_file;
} px_dvm_opts_t;

/* Start a controller on base (the caller runs that loop): its PMIx server is up when
 * this returns, its daemons come up on the loop (opts.ready). The handle, or NULL after
 * printing a clear message. One per process: it runs the process's PMIx server. */
px_dvm_t *px_dvm_create(struct event_base *base, const px_dvm_opts_t *o);
/* Run fn(arg) on the controller's loop, in call order, never inside this call
 * (px_progress_shift on the DVM's base); callable from any thread. 0 / -1 with errno;
 * work shifted but not run when the DVM is finalized is dropped. */
int px_dvm_shift(px_dvm_t *dvm, void (*fn)(void *), void *arg);
/* The server's URI ("<nspace>.0;usock:<path>") and namespace; valid after init. */
const char *px_dvm_uri(const px_dvm_t *dvm);
const char *px_dvm_nspace(const px_dvm_t *dvm);

/* How a job ended, as told to its requester (also the JOB_END event's content). */
typedef struct {
    pmix_status_t status; /* PMIX_SUCCESS or the job's PMIX_ERR_JOB_* status */
    int exit_code;        /* what the launcher should exit with */
    const char *message;  /* rendered help text, NULL when the job succeeded */
} px_job_result_t;

/* A job requested in this process (prterun): output goes to our own stdout/stderr. */
typedef struct {
    void (*ended)(const char *nspace, const px_job_result_t *r, void *arg);
    void *arg;
    /* Every process has started (NULL: not asked). Stdin pushed before this has no
     * process to go to and would be dropped: prterun reads its stdin only after it. */
    void (*started)(const char *nspace, void *arg);
} px_dvm_local_t;

/* Spawn apps as a job of this process. apps/info are borrowed until ended() runs, which
 * may happen before this returns (a job that cannot be mapped or started). 0, or -1 when
 * out of memory (no callback). */
int px_dvm_spawn_local(px_dvm_t *dvm, const pmix_app_t *apps, size_t napps, const pmix_info_t *info,
                       size_t ninfo, const px_dvm_local_t *cb);
/* Signal every job of this process (prterun's signal forwarding); kill = SIGKILL now. */
void px_dvm_signal_local(px_dvm_t *dvm, int sig, bool kill);
/* Write stdin bytes to the local jobs' stdin target(s); len 0 = end of input. data is
 * borrowed until done(PMIX_SUCCESS, cbdata), which runs on the loop, later, once every
 * target's stdin queue has room (bytes for a target that is gone are dropped): read the
 * next chunk only then, and the DVM holds a bounded amount. Call it on the loop. 0, or -1
 * when out of memory (no callback). */
int px_dvm_stdin_local(px_dvm_t *dvm, const char *data, size_t len, pmix_op_cbfunc_t done,
                       void *cbdata);

/* Terminate every job (each requester is told), then call done on the loop. Used by
 * pterm's request, prte's SIGTERM/SIGINT and prterun's end. */
void px_dvm_shutdown(px_dvm_t *dvm, void (*done)(void *arg), void *arg);
/* Finalize the server (rendezvous files and sockets removed) and free everything, after
 * the loop has stopped. NULL accepted. */
void px_dvm_destroy(px_dvm_t *dvm);

#endif /* PX_DVM_H */
