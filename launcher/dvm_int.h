/* launcher: the controller's state (one per process) and the job objects. Touched only
 * on the controller's loop (main thread). */
#ifndef PX_DVM_INT_H
#define PX_DVM_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <event2/event.h>
#include <hwloc.h>
#include <pmix_server.h>

#include "daemon/px_iof.h"
#include "daemon/px_nagent.h"
#include "daemon/px_odls.h"
#include "net/px_progress.h"
#include "launcher/px_dvm.h"
#include "launcher/px_job_state.h"
#include "launcher/px_map.h"
#include "launcher/px_pubsub.h"

typedef enum {
    PX_PROC_INIT,     /* not started yet */
    PX_PROC_STARTING, /* forked, exec not yet confirmed */
    PX_PROC_RUNNING,
    PX_PROC_FAILED_START, /* exec/chdir/bind failed (still reaped) */
    PX_PROC_DONE,         /* reaped, output drained */
} px_proc_state_t;

typedef enum {
    PX_WHY_NONE,
    PX_WHY_START,     /* could not start */
    PX_WHY_EXIT,      /* non-zero exit */
    PX_WHY_SIGNAL,    /* killed by a signal */
    PX_WHY_ABORT,     /* PMIx_Abort */
    PX_WHY_NOFINAL,   /* PMIx_Init without PMIx_Finalize, exit 0 */
    PX_WHY_TIMEOUT,   /* --timeout */
    PX_WHY_KILLED,    /* by its launcher (signal forwarding, lost launcher, pterm) */
    PX_WHY_SETUP,     /* could not be mapped, registered or given its psets */
    PX_WHY_CONNECTED, /* a process of a job it is connected to failed (dvm_group.c) */
} px_why_t;

typedef struct px_job px_job_t;
typedef struct px_dlv px_dlv_t;           /* output.c: one piece of output on its way out */
typedef struct px_out_sink px_out_sink_t; /* output.c: our own stdout or stderr */
typedef struct px_dvm_auth px_dvm_auth_t; /* dvm_auth.c: who may use the DVM */

typedef struct {
    px_job_t *job; /* borrowed: the owner */
    pmix_proc_t proc;
    pid_t pid;
    px_proc_state_t state;
    bool connected;  /* called PMIx_Init */
    bool finalized;  /* called PMIx_Finalize */
    bool registered; /* PMIx_server_register_client done */
    int wstatus;
    px_iof_stream_t *out, *err; /* owned */
    size_t out_pending;         /* output bytes held or in the server library's hands */
    bool out_paused;            /* its pipes are not read (flow control, output.c) */
} px_proc_t;

typedef struct px_pset {
    char *name;
    struct px_pset *next;
} px_pset_t;

struct px_job {
    px_job_t *next;
    px_dvm_t *dvm;  /* borrowed: the DVM running it */
    unsigned jobid; /* small number for labels and output prefixes */
    char label[16];
    pmix_nspace_t nspace;
    /* who asked: a tool/client (requester) or this process (local) */
    bool local;
    px_dvm_local_t local_cb;
    pmix_proc_t requester;
    pmix_spawn_cbfunc_t spawn_cb; /* pending until every process started */
    void *spawn_cbdata;
    bool notify_completion;
    bool nohup;
    bool out_here; /* spawned by a job of this process (prterun's): output to our stdout */
    bool display_map, report_bindings; /* PMIX_DISPLAY_MAP, PMIX_REPORT_BINDINGS */
    bool display_alloc;                /* PMIX_DISPLAY_ALLOCATION */

    char **cmds;           /* owned: each app's argv joined, for proc tables */
    char **exes;           /* owned: each app's executable */
    char **wdirs, **paths; /* owned: each app's working directory and PATH ("" = none) */
    px_map_t map;
    size_t nprocs;
    px_proc_t *procs;       /* owned, by rank */
    px_job_state_t state;   /* its life: moved only by px_job_move */
    size_t nstarting;       /* processes forked whose exec is not confirmed yet */
    size_t nalive;          /* processes forked and not reaped yet */
    bool registered;        /* its namespace is registered (deregistered when freed) */
    const pmix_app_t *apps; /* borrowed until the job ends (the spawn's) */
    size_t napps;
    const pmix_info_t *info; /* borrowed likewise: the spawn's job info */
    size_t ninfo;
    char *nsdir; /* owned: PMIX_NSDIR, removed with its content at the end (job_reg.c) */
    char *node_map, *proc_map, *peers; /* owned: PMIX_NODE_MAP, PMIX_PROC_MAP, PMIX_LOCAL_PEERS
                                        * (made once, in setup_app) */
    px_pset_t *psets;
    px_iof_opts_t iof;
    pmix_rank_t stdin_rank; /* PMIX_RANK_WILDCARD: all; PMIX_RANK_INVALID: none */

    /* output held while the spawn reply is pending (requester jobs) */
    px_dlv_t *held, *held_tail;

    px_why_t why; /* the first failure, or the kill (set: the job is ending) */
    pmix_rank_t why_rank;
    int why_code; /* exit code or signal, errno for start failures */
    pmix_status_t why_status;
    char *why_text; /* abort message, or the node agent's stage of a start failure; owned */
    char *why_msg;  /* a rendered message (map failure), owned */
    struct event *timeout_ev;
    struct event *kill_ev;
    int timeout;
};

/* output.c: large output blocks kept for reuse */
#define PX_OUT_POOL 4

struct px_dvm {
    struct event_base *base;     /* borrowed: the command's loop */
    px_progress_t *progress;     /* owned: the one way onto base from other threads */
    bool topo_loaded, server_up; /* what px_dvm_destroy undoes */
    hwloc_topology_t topo;
    px_nagent_t *agent; /* owned: daemon 0, this node's agent */
    px_map_node_t node;
    char *hostname;
    pmix_nspace_t nspace;
    char *uri;
    char *prog;
    int verbose;
    px_job_t *jobs;
    unsigned next_jobid;
    unsigned next_tool;
    bool shutting_down;
    void (*shutdown_done)(void *);
    void *shutdown_arg;
    void (*terminate)(void *); /* a tool asked the DVM to terminate */
    void *terminate_arg;
    size_t evhdlr;          /* PMIX_ERR_LOST_CONNECTION */
    size_t evhdlr_life;     /* the lifecycle events of this process's jobs (logged) */
    bool swept_stale_dirs;  /* the dead controllers' job directories were removed (job_reg.c) */
    px_pubsub_t *pubsub;    /* owned: the name service's datastore (dvm_pubsub.c) */
    px_dvm_auth_t *auth;    /* owned: the allow-lists and other users' tools (dvm_auth.c) */
    px_dlv_t *out_inflight; /* owned: output in the library's hands (output.c) */
    px_dlv_t *out_pool[PX_OUT_POOL]; /* owned: free large output blocks (output.c) */
    size_t out_npool;
    px_out_sink_t *out_sink[2];          /* owned: stdout, stderr for this process's jobs */
    struct px_stdin_wait *stdin_waiting; /* owned: held stdin pushes (job_stdin.c) */
    struct px_daemons *daemons;          /* owned: the daemon table (daemons.c) */
    struct px_coll *colls;               /* owned: group/connect collectives (dvm_group.c) */
    struct px_connset *connsets;         /* owned: connected sets (dvm_group.c) */
    size_t next_ctxid;                   /* the last group context id given (dvm_group.c) */
};

/* dvm.c */
/* The DVM whose PMIx server this process runs. The server library's upcalls carry no
 * host context (one server per process), so their entry points, and only they, find
 * the DVM here and pass it down; set by px_dvm_create, cleared by px_dvm_destroy. */
px_dvm_t *px_dvm_served(void);
void px_dvm_log(const px_dvm_t *dvm, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void px_dvm_maybe_shutdown_done(px_dvm_t *dvm);

/* dvm_auth.c: who may use the DVM (on the loop) */
int px_dvm_auth_init(px_dvm_t *dvm, const px_dvm_opts_t *o); /* 0 / -1 (out of memory) */
void px_dvm_auth_fini(px_dvm_t *dvm);                        /* none made: a no-op */
/* A tool's credentials (have_cred false: a TCP tool, which presented the secret) ->
 * PMIX_SUCCESS (*foreign: another user, served by --allow-users/--allow-groups) or
 * PMIX_ERR_NO_PERMISSIONS. */
pmix_status_t px_dvm_auth_tool(const px_dvm_t *dvm, bool have_cred, uid_t uid, gid_t gid,
                               bool *foreign);
/* Remember an approved tool of another user until px_dvm_auth_forget (its connection
 * went). 0 / -1 (out of memory). A tool that left before the library took the approval
 * raises no lost-connection event: its entry stays until fini (its id is never reused). */
int px_dvm_auth_add_foreign(px_dvm_t *dvm, const pmix_proc_t *proc, uid_t uid);
void px_dvm_auth_forget(px_dvm_t *dvm, const pmix_proc_t *proc);
/* May requester (NULL: this process) start, signal or feed jobs? false (logged, what
 * names the request) for a tool of another user. */
bool px_dvm_auth_may_act(const px_dvm_t *dvm, const pmix_proc_t *requester, const char *what);

/* job.c */
px_job_t *px_job_find(px_dvm_t *dvm, const char *nspace);
pmix_status_t px_job_spawn(px_dvm_t *dvm, const pmix_proc_t *requester, const px_dvm_local_t *local,
                           const pmix_info_t *info, size_t ninfo, const pmix_app_t *apps,
                           size_t napps, pmix_spawn_cbfunc_t cbfunc, void *cbdata);
/* Move j to state `to` if the table (px_job_state.h) allows it, logging the move and
 * reason (developer log); entering RUNNING answers the spawn and raises JOB_START and
 * LAUNCH_COMPLETE, entering ENDED tells the result (JOB_END) and frees j. 0, or -1 for a
 * move the table refuses (logged; j unchanged). */
int px_job_move(px_job_t *j, px_job_state_t to, const char *reason);
/* Whether j is being ended (a failure or kill recorded, or past RUNNING). */
bool px_job_ending(const px_job_t *j);
void px_job_kill(px_job_t *j, px_why_t why, bool now);
void px_job_signal(px_job_t *j, pmix_rank_t rank, int sig);
void px_job_abort(px_job_t *j, pmix_rank_t rank, int status, const char *msg);
/* j is connected (PMIx_Connect) to failed, whose end failed its own job: j ends too, as
 * one application (Chap_API_Proc_Mgmt, connected processes). */
void px_job_fail_connected(px_job_t *j, const pmix_proc_t *failed);
px_proc_t *px_job_proc(px_dvm_t *dvm, const pmix_proc_t *proc);
/* The spawn directives the DVM honours, comma-separated (PMIX_QUERY_SPAWN_SUPPORT);
 * owned by the caller, NULL on ENOMEM. */
char *px_job_spawn_support(void);
void px_job_agent_cbs(px_dvm_t *dvm, px_nagent_cbs_t *cbs);
/* job_parent.c: jobs spawned by an application process */
/* The process that spawned j when it is a process of another job of this DVM, else NULL
 * (a tool, or this process). */
const pmix_proc_t *px_job_parent(const px_job_t *j);
/* At spawn: j's output goes where its parent job's goes (PMIX_PARENT_ID is registered by
 * job_reg.c). */
void px_job_adopt(px_job_t *j);
/* pj is ending: the jobs it spawned end too, unless spawned with PMIX_NOHUP. */
void px_job_end_children(px_job_t *pj);
/* The local child of p while it runs (daemon 0's in-process handle), else NULL. */
px_child_t *px_job_child(const px_proc_t *p);

/* pool.c: what the running jobs hold on the node, to map a new job onto the rest */
typedef struct {
    px_map_node_t node;   /* the DVM's node with slots_inuse, inuse_cpus, holds filled in */
    px_map_hold_t *holds; /* owned */
    hwloc_bitmap_t cpus;  /* owned */
} px_pool_t;
/* Fill pool from dvm's jobs. 0, or -1 with errno ENOMEM (nothing to put). */
int px_pool_get(px_dvm_t *dvm, px_pool_t *pool);
/* Free what px_pool_get allocated (NULL accepted). */
void px_pool_put(px_pool_t *pool);
/* The max_slots of this node (hostname) from the hostfile: the sum of the limits of the
 * names that are this node, 0 (no limit) when one of those names has none. */
int px_pool_max_slots(const px_host_t *hosts, size_t nhosts, const char *hostname);

/* The query keys the DVM's query upcall answers (dvm_query.c) and the job-control
 * directives it acts on (dvm.c), each from the table its reader uses: NULL-ended,
 * owned by the caller (PMIx_Argv_free), NULL on ENOMEM. */
char **px_dvm_query_keys(void);
char **px_dvm_jobctl_keys(void);
/* The directives of one name-service call (0 publish, 1 lookup, 2 unpublish; dvm_pubsub.c). */
char **px_dvm_pubsub_keys(int kind);
/* dvm_attrs.c: register with the server library (PMIx_Register_attributes) the attributes
 * the DVM honours per PMIx function, so PMIX_QUERY_ATTRIBUTE_SUPPORT (pattrs) reports
 * them at the host level. After PMIx_server_init; PMIX_SUCCESS or the first error. */
pmix_status_t px_dvm_attrs_register(void);

/* dvm_pubsub.c: the host's name service upcalls (any thread) */
pmix_status_t px_dvm_publish(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                             pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t px_dvm_lookup(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
                            size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void *cbdata);
pmix_status_t px_dvm_unpublish(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
                               size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata);

/* dvm_group.c: the group, connect and disconnect upcalls (any thread) and their state */
pmix_status_t px_dvm_group(pmix_group_operation_t op, char grp[], const pmix_proc_t procs[],
                           size_t nprocs, const pmix_info_t directives[], size_t ndirs,
                           pmix_info_cbfunc_t cbfunc, void *cbdata);
pmix_status_t px_dvm_connect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                             size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t px_dvm_disconnect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                                size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata);
/* A connect (connect true) or disconnect of the set with signature sig completed (loop). */
void px_dvm_connected(px_dvm_t *dvm, const pmix_proc_t *procs, size_t nprocs, const char *sig,
                      bool connect);
/* A process ended (loop); failed_job: its end is what fails its job. */
void px_dvm_group_proc_ended(px_dvm_t *dvm, const pmix_proc_t *proc, bool failed_job);
/* Before the server is finalized: answer what waits, forget the connected sets. */
void px_dvm_group_fini(px_dvm_t *dvm);

/* job_reg.c: what the Server chapter asks of a host around registration */
/* The job- and node-realm keys beyond sizes and maps (PMIX_NSPACE, the server's
 * identity, PMIX_SESSION_ID, PMIX_NODE_LIST, PMIX_LOCAL_PROCS, PMIX_NSDIR: the job's
 * directory, made here) added to list. */
pmix_status_t px_job_reg_host_keys(px_job_t *j, void *list);
/* The process-realm keys beyond ranks (PMIX_PROCDIR, PMIX_REINCARNATION, PMIX_SPAWNED =
 * spawned, the same for the whole job). */
void px_job_reg_proc_keys(const px_job_t *j, pmix_rank_t rank, bool spawned, void *pl);
/* Remove the job's directory and everything in it (job end). */
void px_job_reg_cleanup(px_job_t *j);
/* Called on the loop with the library's setup data for the job (borrowed for the call). */
typedef void (*px_job_setup_done_t)(px_job_t *j, pmix_status_t status, pmix_info_t *info,
                                    size_t ninfo);
/* PMIx_server_setup_application for j (its maps, PMIX_SETUP_APP_ALL, the programming model
 * of its job info); done runs later on the loop, once, unless this returns an error. */
pmix_status_t px_job_setup_app(px_job_t *j, const char *node_map, const char *proc_map,
                               const pmix_info_t *job_info, size_t njob_info,
                               px_job_setup_done_t done);

/* output.c */
/* After PMIx_server_finalize and the loop: writes what this process's jobs left queued
 * for our stdout/stderr (blocking), restores their flags, frees what the library still
 * held. */
void px_out_fini(px_dvm_t *dvm);
/* A process's output (the px_iof emit callback; arg is its px_proc_t). */
void px_out_emit(int channel, const char *data, size_t len, void *arg);
/* The spawn was answered: send what was held (drop: the job is going, free it). */
void px_out_flush_held(px_job_t *j, bool drop);

/* job_stdin.c: stdin with backpressure */
/* Queue data (len 0: none) on the stdin of each target (nspace, rank or wildcard: the
 * job's stdin targets among them), then close it when complete; call cbfunc(PMIX_SUCCESS,
 * cbdata) exactly once, when every target's queue holds less than the bound (from here
 * when it does already; source NULL: a push of this process). data and targets are
 * borrowed for the call only. */
void px_job_stdin_push(px_dvm_t *dvm, const pmix_proc_t *source, const pmix_proc_t *targets,
                       size_t ntargets, const char *data, size_t len, bool complete,
                       pmix_op_cbfunc_t cbfunc, void *cbdata);
/* Release the held pushes that have room now (a job ended: its targets are gone). */
void px_job_stdin_recheck(px_dvm_t *dvm);
/* Release every push held for this tool (its connection is gone). */
void px_job_stdin_forget(px_dvm_t *dvm, const pmix_proc_t *source);
/* Release every held push (the controller is finalizing). */
void px_job_stdin_release_all(px_dvm_t *dvm);

#endif /* PX_DVM_INT_H */
