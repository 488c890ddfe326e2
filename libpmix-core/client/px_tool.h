/* client: the tool side — connections to one or more servers (tool.c) and the
 * rendezvous precedence chain that finds them (tool_rndz.c). Called on user threads;
 * peers and their callbacks live on the client's loop (px_cl.prog).
 */
#ifndef PX_TOOL_H
#define PX_TOOL_H

#include <stdbool.h>
#include <sys/types.h>

#include <pmix.h>

/* How a connection attempt is to be reported. */
typedef struct px_tool_try {
    bool quiet;   /* no help message (silent steps, optional connection, the search) */
    bool primary; /* make it the primary server even if there is one */
    bool tcp_only;
    bool connect_back; /* a launcher connecting back to the tool that started it: the
                        * attach says so (PMIX_LAUNCHER_RNDZ_URI) */
} px_tool_try_t;

/* Connect to uri, attach (the host approves and may assign our id). PMIX_SUCCESS with
 * *server set; PMIX_OPERATION_SUCCEEDED when already connected to that server (nothing
 * done); PMIX_ERR_BAD_PARAM
 * for a malformed URI; PMIX_ERR_UNREACH when nobody answers; else the server's refusal.
 * *server may be NULL. */
pmix_status_t px_tool_connect_uri(const char *uri, const px_tool_try_t *how, pmix_proc_t *server);

/* help-pmix-tool.txt "refused" for a server's refusal status. */
void px_tool_show_refused(const char *uri, pmix_status_t status);

/* The rendezvous chain of the Tools chapter over info (PMIx_tool_init /
 * PMIx_tool_attach_to_server). env_uri / env_file: the launcher's
 * PMIX_LAUNCHER_RNDZ_URI / _FILE read at init (NULL if none; only used when info names
 * no server). PMIX_SUCCESS with *server, or the error (help message printed unless
 * quiet). */
pmix_status_t px_tool_rndz(const pmix_info_t *info, size_t ninfo, const char *env_uri,
                           const char *env_file, bool quiet, pmix_proc_t *server);

/* Where the chain looks for info (NULL/0: nothing given, what pmix_info prints): *tmpdir
 * for pmix.<host>.tool[.<pid>|.<nspace>] (the default search and the pid/namespace steps;
 * PMIX_SERVER_TMPDIR, else px_tmpdir_default()), *systmpdir for pmix.sys.<host>
 * (PMIX_SYSTEM_TMPDIR, else the same default). Borrowed from info or the environment. */
void px_tool_rndz_dirs(const pmix_info_t *info, size_t ninfo, const char **tmpdir,
                       const char **systmpdir);

/* A rendezvous file: line 1 socket URI, 3 pid, 4 TCP URI (optional). 0, or -1 + errno
 * (ENOENT, EACCES, EINVAL for bad contents). Strings malloc'd. */
int px_tool_rndz_read(const char *path, char **uri, pid_t *pid, char **tcp_uri);

/* The primary server's id into *server; false when there is none. */
bool px_tool_primary(pmix_proc_t *server);

/* The tool that started us, connected back to (true), or false. */
bool px_tool_parent(pmix_proc_t *parent);
/* A NOTIFY of ours (payload msg, borrowed): also to the tool that started us when it is
 * in range and hears it no other way (it is neither our primary server nor connected to
 * our own server). */
void px_tool_parent_notify(const pmix_data_buffer_t *msg, pmix_data_range_t range,
                           const pmix_info_t info[], size_t ninfo);

/* ---- tool_srv.c: the tool's own server (PMIX_LAUNCHER) ---- */
/* Start it (our id is known, the loop runs): a listener, rendezvous files, our URI under
 * PMIX_MYSERVER_URI. info: the tool's init directives (tmpdirs, the launcher's rendezvous
 * file are passed on). PMIX_SUCCESS or the server's error. */
pmix_status_t px_tool_srv_start(const pmix_info_t info[], size_t ninfo);
/* Stop it if it runs (its connections close, its files go). Not on a loop. */
void px_tool_srv_stop(void);
bool px_tool_srv_running(void);
/* The server URI a launcher that connected back as proc told us (malloc'd), waiting
 * for it at most wait_ms; NULL when none. */
char *px_tool_srv_back_uri(const pmix_proc_t *proc, int wait_ms);
/* Is proc a tool connected to it now? */
bool px_tool_srv_has(const pmix_proc_t *proc);
/* Its URI (malloc'd), NULL when it does not run. */
char *px_tool_srv_uri(void);
/* PMIx_Notify_event of the tool: to the launchers connected back to it (not to the one
 * that is also our primary server, which gets it from there). PMIX_ERR_INIT when no
 * server of ours runs. */
pmix_status_t px_tool_srv_relay(pmix_status_t status, const pmix_proc_t *source,
                                pmix_data_range_t range, const pmix_info_t info[], size_t ninfo);

/* ---- tool_relay.c: a launcher tool passing its initiator's requests on ---- */
/* The tool server's spawn: proc's spawn goes to our primary server (the DVM); its
 * events and output come back to proc through our server. PMIX_ERR_NOT_SUPPORTED with
 * no primary server (or when proc is it). Server loop. */
pmix_status_t px_tool_relay_spawn(const pmix_proc_t *proc, const pmix_info_t job_info[],
                                  size_t ninfo, const pmix_app_t apps[], size_t napps,
                                  pmix_spawn_cbfunc_t cbfunc, void *cbdata);
/* A notification of the tool that started us, beyond our node (e.g. its
 * PMIX_DEBUGGER_RELEASE of a relayed job's processes): to our primary server, as it came
 * (its source kept). PMIX_ERR_NOT_SUPPORTED when there is none or it came from there. */
pmix_status_t px_tool_relay_notify(pmix_status_t code, const pmix_proc_t *source,
                                   pmix_data_range_t range, const pmix_info_t info[], size_t ninfo,
                                   pmix_op_cbfunc_t cbfunc, void *cbdata);
/* Output of a relayed job (client loop): handed to our server for its requester (true;
 * waits while more than a bound of it is unwritten), or false: not a relayed job's. */
bool px_tool_relay_iof(const pmix_proc_t *source, pmix_iof_channel_t channel,
                       const pmix_byte_object_t *bo, const pmix_info_t info[], size_t ninfo);
/* Finalize: stop waiting for the requesters (before our server stops), then forget. */
void px_tool_relay_stop(void);
void px_tool_relay_fini(void);

/* ---- tool_spawn.c: self-spawn ---- */
/* Does PMIx_Spawn start the programs itself? (our own server runs, no primary server) */
bool px_tool_self_spawns(void);
/* PMIx_Spawn's work then (checked apps), on the caller's thread: the new namespace into
 * nspace (may be NULL). PMIX_SUCCESS, or the error with nothing left running. */
pmix_status_t px_tool_self_spawn(const pmix_info_t job[], size_t njob, const pmix_app_t apps[],
                                 size_t napps, pmix_nspace_t nspace);
/* Did we start nspace ourselves, and has it ended? */
bool px_tool_spawn_ended(const char *nspace);
/* At finalize (the loop runs): stop watching what we started. */
void px_tool_spawn_fini(void);

#endif /* PX_TOOL_H */
