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

#include "daemon/px_dlink.h"
#include "daemon/px_dproto.h"
#include "daemon/px_iof.h"
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
    PX_WHY_DAEMON,    /* the daemon of a node running some of its processes was lost */
    PX_WHY_CONNECTED, /* a process of a job it is connected to failed (dvm_group.c) */
    PX_WHY_DEBUGGER,  /* the debugger daemons co-spawned with it failed (job_dbgd.c) */
} px_why_t;

typedef struct px_job px_job_t;
typedef struct px_dlv px_dlv_t;               /* output.c: one piece of output on its way out */
typedef struct px_out_sink px_out_sink_t;     /* output.c: our own stdout or stderr */
typedef struct px_dvm_auth px_dvm_auth_t;     /* dvm_auth.c: who may use the DVM */
typedef struct px_cfence px_cfence_t;         /* fence.c: a fence across daemons */
typedef struct px_stdin_push px_stdin_push_t; /* job_stdin.c: a push on its way */
typedef struct px_dbg px_dbg_t;               /* job_dbgd.c: a job's debugger daemons */
typedef struct px_route px_route_t;           /* route.c: the routing tree */

typedef struct {
    px_job_t *job; /* borrowed: the owner */
    pmix_proc_t proc;
    pid_t pid;
    px_proc_state_t state;
    bool connected; /* called PMIx_Init */
    bool finalized; /* called PMIx_Finalize */
    int wstatus;
    px_iof_stream_t *out, *err; /* owned */
    size_t out_pending;         /* output bytes held or in the server library's hands */
    bool out_paused;            /* its pipes are not read (flow control, output.c) */
    /* debugger stop points (job_debug.c) */
    uint8_t stop;      /* px_stop_t: the stop point asked of it, PX_STOP_NONE if none */
    bool stop_reached; /* it reached that point (counted once in the job's stop_reached) */
    bool at_stop;      /* held there: not released or continued since */
    bool released;     /* a release named it before it got there: it passes through */
    bool os_stopped;   /* its daemon saw it stopped (a signal) and not continued since */
} px_proc_t;

/* The stop points a debugger may ask for (Tools chapter, "Debugger Support"). */
typedef enum {
    PX_STOP_NONE,
    PX_STOP_EXEC, /* PMIX_DEBUG_STOP_ON_EXEC: stopped by its daemon at its first instruction */
    PX_STOP_INIT, /* PMIX_DEBUG_STOP_IN_INIT: held by the client library in PMIx_Init */
    PX_STOP_APP,  /* PMIX_DEBUG_STOP_IN_APP: held where the application decides */
    PX_STOP_KINDS
} px_stop_t;

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
    pmix_iof_channel_t fwd; /* PMIX_FWD_STD*: the channels tools may pull (dvm_iof.c) */
    bool notify_completion; /* PMIX_NOTIFY_COMPLETION: JOB_END to the requester */
    bool notify_events;     /* PMIX_NOTIFY_JOB_EVENTS: all three to the requester */
    bool log_events;        /* PMIX_LOG_JOB_EVENTS */
    bool log_completion;    /* PMIX_LOG_COMPLETION */
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
    bool launched;          /* its LAUNCH went to the daemons (JOB_CLEANUP follows) */
    bool waiting_dvm;       /* asked for before the DVM was up, or waiting for the hosts
                               it adds (job_hosts.c): mapped once they are */
    bool hosts_added;       /* its PMIX_ADD_HOST was acted on (job_hosts.c) */
    bool ompi;              /* an app of it has the ompi personality (Open MPI 4.1), as
                               the controller sees its executable: dvm_group.c */
    bool *node_over;        /* owned, by daemon id: the node has more processes than slots */
    const pmix_app_t *apps; /* borrowed until the job ends (the spawn's) */
    size_t napps;
    const pmix_info_t *info; /* borrowed likewise: the spawn's job info */
    size_t ninfo;
    char *node_map, *proc_map, *node_list; /* owned: PMIX_NODE_MAP, PMIX_PROC_MAP,
                                            * PMIX_NODE_LIST (made once, in setup_app) */
    px_pset_t *psets;
    px_iof_opts_t iof;
    pmix_rank_t stdin_rank; /* PMIX_RANK_WILDCARD: all; PMIX_RANK_INVALID: none */

    /* debugger stop points (job_debug.c): per app and kind, the directive's value that
     * applies (one rank, the wildcard, a list of processes; checked) or NULL; read while
     * the job is mapped and set up (the request's info is alive then) */
    const pmix_value_t *(*stops)[PX_STOP_KINDS]; /* owned array of borrowed, napps */
    size_t stop_targets;                         /* processes with a stop point */
    size_t stop_reached;                         /* of those, how many reached it */
    char *breakpoint;                            /* owned: the first PMIX_BREAKPOINT reported */
    bool sent_stop;                              /* SIGSTOP went to it (job control) */

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
    px_dbg_t *dbg; /* owned: its debugger daemons, or what it debugs (job_dbgd.c); NULL */
};

/* output.c: large output blocks kept for reuse */
#define PX_OUT_POOL 4

struct px_dvm {
    struct event_base *base;     /* borrowed: the command's loop */
    px_progress_t *progress;     /* owned: the one way onto base from other threads */
    bool topo_loaded, server_up; /* what px_dvm_destroy undoes */
    hwloc_topology_t topo;
    px_dlink_t *d0;       /* owned: daemon 0's end of its link (this node's agent) */
    px_map_node_t *nodes; /* owned, nnodes: the DVM's nodes, by daemon id (names and
                             topologies borrowed from the daemon table) */
    size_t nnodes;
    size_t nnodes_used; /* the nodes jobs are mapped onto (daemons whose prted can
                           launch) */
    char *hostname;
    pmix_nspace_t nspace;
    char *uri;
    char *prog;
    int verbose;
    px_job_t *jobs;
    unsigned next_jobid;
    unsigned next_tool;
    bool shutting_down;
    bool daemons_stopping; /* shutting down and no job left: the daemons were told to exit */
    px_dvm_opts_t opts;    /* as given (its pointers borrowed: the hosts until the DVM is up) */
    bool up;               /* every daemon is up: jobs are mapped and launched */
    bool start_failed;     /* the daemons could not start: jobs end at once */
    void (*ready)(bool ok, void *arg); /* opts.ready */
    void *ready_arg;
    void (*shutdown_done)(void *);
    void *shutdown_arg;
    void (*terminate)(void *); /* a tool asked the DVM to terminate */
    void *terminate_arg;
    size_t evhdlr;                /* PMIX_ERR_LOST_CONNECTION */
    size_t evhdlr_life;           /* the lifecycle events of this process's jobs (logged) */
    struct local_end *local_ends; /* owned: jobs of this process told of their end once
                                     JOB_END is delivered to us too (job.c) */
    bool swept_stale_dirs;  /* the dead controllers' job directories were removed (job_reg.c) */
    px_pubsub_t *pubsub;    /* owned: the name service's datastore (dvm_pubsub.c) */
    px_dvm_auth_t *auth;    /* owned: the allow-lists and other users' tools (dvm_auth.c) */
    px_dlv_t *out_inflight; /* owned: output in the library's hands (output.c) */
    px_dlv_t *out_pool[PX_OUT_POOL]; /* owned: free large output blocks (output.c) */
    size_t out_npool;
    px_out_sink_t *out_sink[2];    /* owned: stdout, stderr for this process's jobs */
    px_stdin_push_t *stdin_pushes; /* owned: stdin pushes waiting for their daemons */
    struct px_daemons *daemons;    /* owned: the daemon table (daemons.c) */
    px_cfence_t *fences;           /* owned: fences across daemons in progress (fence.c) */
    struct px_grow *grow;          /* owned: hosts being added for jobs (job_hosts.c) */
    struct px_coll *colls;         /* owned: group/connect collectives (dvm_group.c) */
    struct px_connset *connsets;   /* owned: connected sets (dvm_group.c) */
    size_t next_ctxid;             /* the last group context id given (dvm_group.c) */
    struct px_help_dedup *reports; /* owned: the daemons' messages shown (dvm_remote.c) */
    px_route_t *route;             /* owned: the routing tree (route.c) */
};

/* dvm.c */
/* The DVM whose PMIx server this process runs. The server library's upcalls carry no
 * host context (one server per process), so their entry points, and only they, find
 * the DVM here and pass it down; set by px_dvm_create, cleared by px_dvm_destroy. */
px_dvm_t *px_dvm_served(void);
void px_dvm_log(const px_dvm_t *dvm, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void px_dvm_maybe_shutdown_done(px_dvm_t *dvm);
/* A process called PMIx_Abort (through this process's server or its daemon's ABORT): its
 * job ends with the status and message; other jobs named in procs are terminated. */
void px_dvm_abort(px_dvm_t *dvm, const pmix_proc_t *caller, int status, const char *msg,
                  const pmix_proc_t *procs, size_t nprocs);
/* An event whose range reaches beyond a node, raised on daemon `from`'s node (0: a
 * process of this server): delivered by this process's server unless it came from it,
 * relayed to every other daemon up (EVENT), whose servers deliver it in range. */
void px_dvm_event(px_dvm_t *dvm, unsigned from, pmix_status_t code, const pmix_proc_t *source,
                  pmix_data_range_t range, const pmix_info_t *info, size_t ninfo);
/* A remote daemon's JOBCTL request (seq): carried out like the job_control upcall, the
 * answer sent back to daemon id. */
void px_dvm_jobctl(px_dvm_t *dvm, unsigned id, uint32_t seq, const pmix_proc_t *requester,
                   const pmix_proc_t *targets, size_t ntargets, const pmix_info_t *info,
                   size_t ninfo);

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
/* A new job in INIT for the same requester as `like` (its events, output and local
 * callbacks' process; no spawn callback), listed in the DVM. NULL on ENOMEM. */
px_job_t *px_job_new(px_dvm_t *dvm, const px_job_t *like);
/* Map j onto the pool, check what it names, ask for its application setup; a failure
 * ends it (its requester is told). */
void px_job_map(px_job_t *j);
/* j runs (entering RUNNING, or later for a co-spawn): answer its spawn, raise JOB_START
 * and LAUNCH_COMPLETE, send the output held meanwhile. */
void px_job_tell_launched(px_job_t *j);
/* j's co-spawned debugger daemons failed (text: why, rendered): j ends too. */
void px_job_fail_debugger(px_job_t *j, const char *text);
pmix_status_t px_job_spawn(px_dvm_t *dvm, const pmix_proc_t *requester, const px_dvm_local_t *local,
                           const pmix_info_t *info, size_t ninfo, const pmix_app_t *apps,
                           size_t napps, pmix_spawn_cbfunc_t cbfunc, void *cbdata);
/* Move j to state `to` if the table (px_job_state.h) allows it, logging the move and
 * reason (developer log); entering RUNNING answers the spawn and raises JOB_START and
 * LAUNCH_COMPLETE if the requester asked (PMIX_NOTIFY_JOB_EVENTS), entering ENDED tells
 * the result (JOB_END) as asked and frees j. 0, or -1 for a
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
/* The node (= daemon id) rank of j runs on, and that node's name. */
unsigned px_job_node(const px_job_t *j, pmix_rank_t rank);
const char *px_job_node_name(const px_job_t *j, pmix_rank_t rank);
/* A daemon's message (dvm.c's px_daemons_msg_fn): PSTATE and IOF move jobs; the rest is
 * handed to fence.c and dvm.c. A malformed one is logged and dropped. */
void px_job_daemon_msg(px_dvm_t *dvm, unsigned id, uint32_t tag, uint32_t seq,
                       pmix_data_buffer_t *payload);
/* The DVM's start ended (ok: every daemon up): the jobs asked for meanwhile go on, or end
 * (dvm-not-started). */
void px_job_dvm_started(px_dvm_t *dvm, bool ok);
/* End a job that cannot start with rc and the rendered msg (owned then); may free j. (A
 * job that waited for hosts it added is mapped with px_job_map.) */
void px_job_setup_failed(px_job_t *j, pmix_status_t rc, char *msg);

/* Daemon id is gone: the jobs with live processes on its node end (job-daemon-lost). */
void px_job_daemon_lost(px_dvm_t *dvm, unsigned id);
/* Send a message to the daemon of rank (WILDCARD: to every daemon up). */
void px_job_to_daemons(px_dvm_t *dvm, const px_job_t *j, pmix_rank_t rank, uint32_t tag,
                       const pmix_data_buffer_t *buf);
/* job_directives.c: the spawn directives the DVM honours, comma-separated
 * (PMIX_QUERY_SPAWN_SUPPORT); owned by the caller, NULL on ENOMEM. */
char *px_job_spawn_support(void);
/* The debugger directives among them (PMIX_QUERY_DEBUG_SUPPORT lists them). */
char *px_job_debug_support(void);
/* job_directives.c: refuse (PMIX_ERR_NOT_SUPPORTED, *msg rendered) a request carrying
 * a required directive, in the job info or an app's, the table does not list. */
pmix_status_t px_job_check_directives(px_job_t *j, const pmix_info_t *info, size_t ninfo,
                                      const pmix_app_t *apps, size_t napps, char **msg);
/* job_parent.c: jobs spawned by an application process */
/* The process that spawned j when it is a process of another job of this DVM, else NULL
 * (a tool, or this process). */
const pmix_proc_t *px_job_parent(const px_job_t *j);
/* At spawn: j's output goes where its parent job's goes (PMIX_PARENT_ID goes in the LAUNCH's
 * job data, job.c). */
void px_job_adopt(px_job_t *j);
/* dvm_iof.c: the iof_pull upcall (a job's forwarded channels only). */
pmix_status_t px_dvm_iof_pull(const pmix_proc_t procs[], size_t nprocs,
                              const pmix_info_t directives[], size_t ndirs,
                              pmix_iof_channel_t channels, pmix_op_cbfunc_t cbfunc, void *cbdata);
/* job_events.c: the lifecycle events. JOB_START or LAUNCH_COMPLETE (code) of j, to its
 * requester when asked and to whoever registered naming j; logged when asked. */
void px_job_notify(px_job_t *j, pmix_status_t code);
/* JOB_END of j with r, the same way; to_requester: also when its spawn did not ask.
 * cbfunc/cbdata and the result: PMIx_Notify_event's. */
pmix_status_t px_job_notify_end(px_job_t *j, const px_job_result_t *r, bool to_requester,
                                pmix_op_cbfunc_t cbfunc, void *cbdata);
/* JOB_END of nspace reached this process's own lifecycle handler (loop). */
void px_job_end_delivered(px_dvm_t *dvm, const char *nspace);
/* Free the job ends still waiting (px_dvm_destroy, after the loop's last shift). */
void px_job_local_ends_free(px_dvm_t *dvm);
/* pj is ending: the jobs it spawned end too, unless spawned with PMIX_NOHUP. */
void px_job_end_children(px_job_t *pj);

/* job_debug.c: a debugger's stop points (PMIX_DEBUG_STOP_ON_EXEC/_IN_INIT/_IN_APP) and
 * PMIX_READY_FOR_DEBUG (controller loop) */
/* Read the spawn's stop directives (job and app level) once j is mapped: which process
 * stops where. PMIX_SUCCESS, or a refusal with *msg (owned by the caller): a value not
 * read (PMIX_ERR_NOT_SUPPORTED), a rank not in the job or app (PMIX_ERR_BAD_PARAM), two
 * stop points for one process (PMIX_ERR_NOT_SUPPORTED). */
pmix_status_t px_jdbg_read(px_job_t *j, char **msg);
/* The stop directives of app a for its application realm (the client library and the
 * application read them with PMIx_Get): each as a PMIX_PROC_RANK, or a list as a
 * PMIX_DATA_ARRAY of PMIX_PROC naming the job's namespace. */
void px_jdbg_app_realm(const px_job_t *j, size_t a, void *list);
/* Process p reached its stop point (its exec hold is confirmed, or it said
 * PMIX_READY_FOR_DEBUG); once every target has, the running job moves to HELD. */
void px_jdbg_reached(px_proc_t *p);
/* The job just moved to RUNNING: HELD at once when every target is at its stop point. */
void px_jdbg_running(px_job_t *j);
/* Entering HELD: raise PMIX_READY_FOR_DEBUG for the job. */
void px_jdbg_tell_ready(px_job_t *j);
/* Its daemon saw p stop (true) or continue (false). */
void px_jdbg_os_state(px_proc_t *p, bool stopped);
/* An event beyond a node passing through the controller (px_dvm_event): a target's
 * PMIX_READY_FOR_DEBUG is taken here (true: not to be relayed); a
 * PMIX_DEBUGGER_RELEASE releases the held processes its custom range names (false:
 * relayed as usual). */
bool px_jdbg_event(px_dvm_t *dvm, pmix_status_t code, const pmix_proc_t *source,
                   const pmix_info_t *info, size_t ninfo);
/* Whether some process of j may be stopped by a signal (held at exec, paused, seen
 * stopped): a SIGTERM then needs a SIGCONT to act. */
bool px_jdbg_maybe_stopped(const px_job_t *j);

/* fence.c: fences and direct modex across daemons (controller loop) */
/* Daemon id's contribution to the fence over procs (its local data, len bytes; daemon 0
 * passes the library's callback, called once the fence completes). PMIX_SUCCESS, or an
 * error (nothing recorded; the caller answers). */
pmix_status_t px_fence_contribute(px_dvm_t *dvm, unsigned id, const pmix_proc_t *procs, size_t n,
                                  bool collect, const void *data, size_t len,
                                  pmix_modex_cbfunc_t cb0, void *cbdata0);
void px_fence_up(px_dvm_t *dvm, unsigned id, const px_dp_dmn_msg_t *m);
void px_fence_job_ended(px_dvm_t *dvm, const char *nspace);
void px_fence_daemon_lost(px_dvm_t *dvm, unsigned id);
void px_fence_fini(px_dvm_t *dvm); /* every fence fails */
/* Fetch target's data from its daemon for daemon `from` (request seq) or, with cb0, for
 * this process's server. PMIX_SUCCESS: answered later; else nothing was sent. */
pmix_status_t px_dmodex_route(px_dvm_t *dvm, unsigned from, uint32_t seq, const pmix_proc_t *target,
                              const pmix_info_t *info, size_t ninfo, pmix_modex_cbfunc_t cb0,
                              void *cbdata0);
void px_dmodex_req(px_dvm_t *dvm, unsigned id, uint32_t seq, const px_dp_dmn_msg_t *m);

/* route.c: the routing tree over the daemons (controller loop) */
/* The radix the options ask for (routed_radix), else PX_DP_RADIX_DEFAULT. */
uint32_t px_route_radix(const px_dvm_opts_t *o);
/* Once every daemon is up: make the tree (TREE to every daemon, wait for TREE_UP), then
 * done(dvm, ok) on the loop, once (ok false: a message said why). With no more daemons
 * beyond this node's than the radix there is nothing to make: done at once. */
void px_route_start(px_dvm_t *dvm, void (*done)(px_dvm_t *dvm, bool ok));
void px_route_tree_up(px_dvm_t *dvm, unsigned id); /* a daemon's TREE_UP */
/* A daemon was lost: the tree being made cannot be. */
void px_route_daemon_lost(px_dvm_t *dvm, unsigned id);
/* The daemon whose subtree holds id among daemon 0's children in the tree (id itself
 * without a tree, and for 0): the one whose fence contribution carries id's. */
unsigned px_route_top(const px_dvm_t *dvm, unsigned id);
/* A message for every daemon down the tree (XCAST to daemon 0's children; daemon 0 itself
 * gets it plainly with to_self). 0, or -1 without a tree (the caller sends to each). */
int px_route_xcast(px_dvm_t *dvm, uint32_t tag, const pmix_data_buffer_t *buf, bool to_self);
void px_route_fini(px_dvm_t *dvm);

/* pool.c: what the running jobs hold on each node, to map a new job onto the rest */
typedef struct {
    px_map_node_t *nodes; /* owned, nnodes: the DVM's nodes jobs are mapped onto (those
                             whose daemon is up), with slots_inuse, inuse_cpus, holds */
    size_t nnodes;
    unsigned *ids;        /* owned, nnodes: each node's daemon id (the DVM's node index) */
    px_map_hold_t *holds; /* owned: every node's holds, one after the other */
    hwloc_bitmap_t *cpus; /* owned, nnodes */
    /* the node ranks held by live processes, per pool node: used[n][k], k < nused[n] */
    bool **used;
    size_t *nused;
} px_pool_t;
/* Fill pool from dvm's jobs. 0, or -1 with errno ENOMEM (nothing to put). */
int px_pool_get(px_dvm_t *dvm, px_pool_t *pool);
/* The same over the nodes whose use[daemon id] is true (use NULL: every node). */
int px_pool_get_on(px_dvm_t *dvm, px_pool_t *pool, const bool *use);
/* Free what px_pool_get allocated (NULL accepted). */
void px_pool_put(px_pool_t *pool);
/* The max_slots of this node (hostname) from the hostfile: the sum of the limits of the
 * names that are this node, 0 (no limit) when one of those names has none. */
int px_pool_max_slots(const px_host_t *hosts, size_t nhosts, const char *hostname);

/* job_dbgd.c: debugger daemons, co-spawned with an application or placed beside a
 * running job (controller loop) */
/* Read a spawn request for debugger daemons (j is its job, in INIT). Nothing asked:
 * PMIX_SUCCESS, nothing changed. A co-spawn: j keeps the application's apps (*apps,
 * *napps then point to j's own array) and *daemons is a new job in INIT holding the
 * daemons' apps and job info (px_dbg_daemons_part), which starts once j has started. A
 * co-location: j is the daemons' job beside the running target (*info, *apps replaced by
 * its own copies). Else an error and *msg, the refusal's text (rendered). */
pmix_status_t px_dbg_spawn(px_job_t *j, px_job_t **daemons, const pmix_info_t **info, size_t *ninfo,
                           const pmix_app_t **apps, size_t *napps, char **msg);
void px_dbg_daemons_part(const px_job_t *d, const pmix_info_t **info, size_t *ninfo,
                         const pmix_app_t **apps, size_t *napps);
/* j is a job of debugger daemons (they hold no slots: pool.c). */
bool px_dbg_is_daemons(const px_job_t *j);
/* j's daemons are placed beside their target (per node or per process): px_dbg_map maps
 * them, not px_map_job. */
bool px_dbg_places(const px_job_t *j);
/* The daemons' map: PER_NODE on each node running a live target process, or PER_PROC
 * beside each, ranked by (node, the target's local rank); node indices the pool's. */
pmix_status_t px_dbg_map(px_job_t *d, const px_pool_t *pool, px_map_t *map, char **msg);
/* The daemons' job data: PMIX_DEBUG_TARGET (and PMIX_DEBUG_JOB); nothing for others. */
pmix_status_t px_dbg_reg_info(const px_job_t *j, void *list);
/* j enters RUNNING: true when its co-spawned daemons start now and its launch is told
 * once they run (px_dbg_launched). */
bool px_dbg_defer_launch(px_job_t *j);
/* Daemons' job d runs: its application's launch is told, d's held output sent. */
void px_dbg_launched(px_job_t *d);
/* j's output is held (co-spawned daemons until their application's spawn is answered). */
bool px_dbg_out_held(const px_job_t *j);
/* j enters ENDED: if it ran and its launch was still to be told (its co-spawned daemons
 * not running yet), the spawn is answered now, before its end is told. */
void px_dbg_job_ending(px_job_t *j);
/* j ends (message: how, rendered; may be NULL): co-spawned daemons not started yet end
 * with it (the others live on); co-spawned daemons that failed end their application.
 * Before j is freed. */
void px_dbg_job_ended(px_job_t *j, const char *message);
void px_dbg_job_free(px_job_t *j);
/* Why rank of j could not start when it ran under a debugger agent (PMIX_EXEC_AGENT,
 * PMIX_FORKEXEC_AGENT) and the agent failed (its exec, its early exit, no connection
 * back: the node agent's stages exec, agent-exited, agent-connect), rendered; else NULL. */
char *px_dbg_agent_failure(const px_job_t *j, pmix_rank_t rank);
/* j's first failure is a signal and its processes run under a fork/exec agent (pid: the
 * agent's, the process the daemon started): the rendered message naming the agent; else
 * NULL. */
char *px_dbg_agent_signal(const px_job_t *j, int pid);

/* job_agents.c: which debugger agent starts each process of a job, the agents' namespace
 * ("<job>" PX_NA_AGENTS_SUFFIX: the job's ranks under a fork/exec agent, numbered in rank
 * order), the pid of the process a fork/exec agent started (controller loop) */
typedef struct px_jagents px_jagents_t;
/* The agent directives of a spawn (job info, each app's info): a non-empty path and one
 * kind per level; none in an app of debugger daemons (daemon_app[a]), none in the job
 * info of a request of daemons only. PMIX_SUCCESS or a refusal with *msg. */
pmix_status_t px_jagents_check(const px_job_t *j, const pmix_info_t *info, size_t ninfo,
                               const pmix_app_t *apps, size_t napps, const bool *daemon_app,
                               char **msg);
/* Which agent starts each of apps' processes (an app's own directive wins over the job's),
 * kept for the job's life; *out NULL when none does. PMIX_SUCCESS or PMIX_ERR_NOMEM. */
pmix_status_t px_jagents_keep(const pmix_info_t *info, size_t ninfo, const pmix_app_t *apps,
                              size_t napps, px_jagents_t **out);
void px_jagents_free(px_jagents_t *g);
/* The agent of rank r of mapped job j (*fe: a fork/exec agent), NULL: none. */
const char *px_jagents_path(const px_job_t *j, pmix_rank_t r, bool *fe);
/* p's rank connected as a client from pid (0: not known): under a fork/exec agent, that
 * is the process the agent started. */
void px_jagents_connected(px_proc_t *p, pid_t pid);
/* The pid a proc table shows for p: the process its fork/exec agent started once that
 * connected, else the one its daemon started. */
pid_t px_jagents_proc_pid(const px_proc_t *p);
/* j's agents' namespace into out: false when no process of j runs under a fork/exec
 * agent. */
bool px_jagents_nspace(const px_job_t *j, pmix_nspace_t out);
/* The job whose agents' namespace is nspace, or NULL. */
px_job_t *px_jagents_job(px_dvm_t *dvm, const char *nspace);
/* Whether rank r of j runs under a fork/exec agent: its rank in the agents' namespace
 * (*k) and the agent's path (*path). */
bool px_jagents_agent(const px_job_t *j, pmix_rank_t r, pmix_rank_t *k, const char **path);
/* job_dbgd.c keeps a job's agents with its debugger state: NULL when none. */
px_jagents_t *px_dbg_agents(const px_job_t *j);

/* dvm_query.c: daemon id's QUERY request seq (a process of its node asked): answered as
 * the query upcall answers this node's processes, the requester's node being id's. */
void px_dvm_query_remote(px_dvm_t *dvm, unsigned id, uint32_t seq, const pmix_query_t *queries,
                         size_t nqueries);

/* job_hosts.c: a job's hosts. px_job_hosts_add starts a daemon on each host of its
 * PMIX_ADD_HOST (once per job): PMIX_OPERATION_IN_PROGRESS when it must wait for them
 * (waiting_dvm; px_job_hosts_joined maps or ends it), PMIX_SUCCESS when there is none,
 * else the refusal with *msg (a host already in the DVM or named twice, a bad list).
 * px_job_hosts_pool: the pool it is mapped onto (PMIX_HOST: those nodes, "name:N" its
 * slots there; a host not in the DVM refused with *msg). px_job_hosts_joined: daemon
 * id, added, is up (its node joins the DVM's nodes) or failed. */
pmix_status_t px_job_hosts_add(px_job_t *j, char **msg);
pmix_status_t px_job_hosts_pool(px_job_t *j, px_pool_t *pool, char **msg);
void px_job_hosts_joined(px_dvm_t *dvm, unsigned id, bool ok);
void px_job_hosts_fini(px_dvm_t *dvm);

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

/* dvm_pubsub.c: the host's name service upcalls (any thread), and another daemon's
 * PUBSUB request (seq; loop), answered the same way */
void px_dvm_pubsub_remote(px_dvm_t *dvm, unsigned id, uint32_t seq, const px_dp_dmn_msg_t *m);
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
/* Daemon id's GROUP_UP request (seq): its server's contribution, answered by GROUP_REL. */
void px_dvm_group_up(px_dvm_t *dvm, unsigned id, uint32_t seq, const px_dp_dmn_msg_t *m);
/* An event on its way through the DVM (px_dvm_event): a member's PMIX_GROUP_CONSTRUCT_ABORT
 * ends the group's collective here (every server waiting for it is answered so). */
void px_dvm_group_event(px_dvm_t *dvm, pmix_status_t code, const pmix_info_t *info, size_t ninfo);
/* Daemon id is lost: the collectives waiting for it fail (PMIX_ERR_LOST_CONNECTION). */
void px_dvm_group_daemon_lost(px_dvm_t *dvm, unsigned id);
/* Before the server is finalized: answer what waits, forget the connected sets. */
void px_dvm_group_fini(px_dvm_t *dvm);

/* dvm_remote.c (loop): process sets on every daemon. Define: this process's server
 * (PMIx_server_define_process_set's status), then every other daemon up (PSET, in order
 * before anything sent after it); delete likewise. */
pmix_status_t px_dvm_pset_define(px_dvm_t *dvm, const pmix_proc_t *members, size_t n,
                                 const char *name);
void px_dvm_pset_delete(px_dvm_t *dvm, const char *name);
/* Daemon id's PROC_SPAWN request (seq) for one of its processes: px_job_spawn as for this
 * server's spawn upcall, the answer (status, namespace) sent back once the job started or
 * failed. Takes m's apps and info (left NULL). */
void px_dvm_spawn_remote(px_dvm_t *dvm, unsigned id, uint32_t seq, px_dp_dmn_msg_t *m);
/* Daemon id's REPORT: its rendered message on our stderr, each (file, topic) once; the
 * repeats are counted and summed up at px_dvm_remote_fini. */
void px_dvm_report(px_dvm_t *dvm, unsigned id, const px_dp_dmn_msg_t *m);
/* The summary of repeated reports (stderr), then free what dvm_remote.c holds. */
void px_dvm_remote_fini(px_dvm_t *dvm);

/* job_reg.c: the application setup the Server chapter asks of a host before launch */
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
/* Send data (len 0: none) to the stdin of each target (nspace, rank or wildcard: the
 * job's stdin targets among them) through their daemons (STDIN requests), then close it
 * when complete; call cbfunc(PMIX_SUCCESS, cbdata) exactly once, when every daemon
 * answered that its target's queue is below its mark or the target is gone (later, on
 * the loop; from here when there is no live target; source NULL: a push of this
 * process). A push for a job not launched yet is held (copied) until it is. data and
 * targets are borrowed for the call only. */
void px_job_stdin_push(px_dvm_t *dvm, const pmix_proc_t *source, const pmix_proc_t *targets,
                       size_t ntargets, const char *data, size_t len, bool complete,
                       pmix_op_cbfunc_t cbfunc, void *cbdata);
/* A tool's push may go to targets: each a live job's process (a rank or the wildcard)
 * whose stdin its spawn kept open (PMIX_STDIN_TGT / PMIX_FWD_STDIN; the wildcard: any of
 * them). PMIX_SUCCESS, PMIX_ERR_NOT_FOUND, or PMIX_ERR_NOT_SUPPORTED. */
pmix_status_t px_job_stdin_check(px_dvm_t *dvm, const pmix_proc_t *targets, size_t ntargets);
/* A job was launched or ended: the pushes held for it go out now (in order). */
void px_job_stdin_launched(px_dvm_t *dvm);
/* Release every push held for this tool (its connection is gone). */
void px_job_stdin_forget(px_dvm_t *dvm, const pmix_proc_t *source);
/* Release every held push (the controller is finalizing); their requests' answers are
 * still awaited (they come, or fail with the daemons' connections). */
void px_job_stdin_release_all(px_dvm_t *dvm);

#endif /* PX_DVM_INT_H */
