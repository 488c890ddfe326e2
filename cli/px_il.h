/* cli: the launcher side of indirect launch (Tools chapter, "Indirect launch") shared by
 * prterun, prte and prun when a tool started them with PMIX_LAUNCHER_RNDZ_URI: the
 * directives that tool left for us (PMIx_Get of our own job info and of
 * PMIX_LAUNCH_DIRECTIVES), the hold in init (PMIX_DEBUG_STOP_IN_INIT until a
 * PMIX_DEBUGGER_RELEASE naming us), the events we owe it (PMIX_LAUNCHER_READY,
 * PMIX_LAUNCH_COMPLETE, PMIX_EVENT_JOB_END) and hearing that it ended (its
 * PMIX_EVENT_JOB_END: the keepalive pipe closed, or it said so; or its link lost).
 * Public PMIx API only. Created and destroyed on the command's main thread; the
 * callbacks come on the library's thread.
 */
#ifndef PX_IL_H
#define PX_IL_H

#include <stdbool.h>
#include <stddef.h>

#include <pmix_common.h>

typedef struct px_il px_il_t;

typedef struct px_il_cbs {
    const char *prog; /* for messages */
    /* The hold is over: released (PMIX_SUCCESS), or the tool did not release us within
     * the bound (PMIX_ERR_TIMEOUT, after the message). Called once, also when no hold
     * was asked (at px_il_hold). Library thread or the caller's. */
    void (*released)(pmix_status_t status, void *arg);
    /* The tool that started us ended (and it did not ask PMIX_NOHUP): tear the job down
     * and exit. At most once. Library thread. */
    void (*parent_gone)(void *arg);
    void *arg;
} px_il_cbs_t;

/* How long a launcher holds in init for the release (or, in the older handshake, for
 * the tool's directives) when the tool gave no PMIX_SPAWN_TIMEOUT (seconds;
 * docs/ARCHITECTURE.md, man pmix-runtime): PX_IL_HOLD_ENV in our environment (a positive
 * number of seconds), else PX_IL_HOLD_SECS. */
#define PX_IL_HOLD_SECS 60
#define PX_IL_HOLD_ENV  "PX_LAUNCHER_HOLD_SECS"

/* After PMIx_server_init / PMIx_tool_init, me = our id (the server's, or the tool's):
 * NULL when no tool started us (errno 0) or on failure (errno set; EINVAL: a bad
 * PX_IL_HOLD_ENV, message shown). cbs copied. */
px_il_t *px_il_create(const pmix_proc_t *me, const px_il_cbs_t *cbs);
/* The older "wait for directives" handshake (OpenPMIx 3.x): started with
 * PMIX_LAUNCHER_PAUSE_FOR_TOOL=<nspace>:<rank>, we hold until that tool sends
 * PMIX_LAUNCH_DIRECTIVE, whose PMIX_DEBUG_JOB_DIRECTIVES join the job's info
 * (px_il_add_directives after the release); px_il_ready tells it we wait. NULL (message
 * shown, errno EINVAL) for a value that is not <nspace>:<rank>, or a bad PX_IL_HOLD_ENV. */
px_il_t *px_il_create_paused(const char *tool, const pmix_proc_t *me, const px_il_cbs_t *cbs);
void px_il_destroy(px_il_t *il);

/* Did the tool that started us ask PMIX_NOHUP of us? */
bool px_il_nohup(const px_il_t *il);

/* Is nspace the namespace of the tool that started us? */
bool px_il_is_parent(const px_il_t *il, const char *nspace);

/* Start the hold when our own directives ask PMIX_DEBUG_STOP_IN_INIT (released() comes
 * later), else call released(PMIX_SUCCESS) now. The bound is a timer the caller runs:
 * px_il_hold_secs() seconds after this call it calls px_il_hold_expired(). */
void px_il_hold(px_il_t *il);
int px_il_hold_secs(const px_il_t *il);
void px_il_hold_expired(px_il_t *il);

/* Add the tool's PMIX_LAUNCH_DIRECTIVES to a job's info (*jinfo reallocated; a directive
 * replaces an entry of the same key). 0, or -1 (ENOMEM). */
int px_il_add_directives(px_il_t *il, pmix_info_t **jinfo, size_t *njinfo);

/* Tell the tool: we take spawn requests (PMIX_LAUNCHER_READY); the application's
 * namespace was launched (PMIX_LAUNCH_COMPLETE); it ended (PMIX_EVENT_JOB_END with its
 * exit code and termination status). */
void px_il_ready(px_il_t *il);
void px_il_launched(px_il_t *il, const char *nspace);
void px_il_ended(px_il_t *il, const char *nspace, int exit_code, pmix_status_t status);

#endif /* PX_IL_H */
