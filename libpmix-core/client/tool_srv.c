/* client: a tool's own server (PMIX_LAUNCHER at PMIx_tool_init, Tools chapter "Launching
 * Applications with Tools"). A launcher the tool starts must be able to connect back to
 * it, so the tool opens a listener and writes rendezvous files the way a server does:
 * this library's server side, run inside the tool's process with the small host module
 * below (server/px_server.h, PX_ATTR_SRV_EMBED). It serves the launchers connected back
 * to it: events both ways and the namespaces it registered (the job info a launcher's
 * PMIx_Get of PMIX_LAUNCH_DIRECTIVES reads). Started and stopped on the user thread that
 * runs PMIx_tool_init / PMIx_tool_finalize; the module's functions run on the server's
 * loop; ts.lock guards the table of launchers connected back.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix_server.h>

#include "client/px_client.h"
#include "client/px_tool.h"
#include "common/px_common.h"
#include "server/px_server.h"

/* A launcher that connected back to us (its attach carried PMIX_LAUNCHER_RNDZ_URI). */
typedef struct back {
    struct back *next;
    pmix_proc_t proc;
    char *uri; /* owned: the URI of its own server (PMIX_MYSERVER_URI), or NULL */
    pid_t pid; /* SO_PEERCRED's, 0 over TCP */
} back_t;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond; /* a launcher connected back */
    bool on;             /* the server runs (user threads: init/finalize only change it) */
    back_t *backs;       /* owned */
    unsigned next_id;
} ts = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

/* ---- the host module (server loop) ---- */

static const char *info_str(const pmix_info_t *info, size_t ninfo, const char *key)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], key) && info[i].value.type == PMIX_STRING) {
            return info[i].value.data.string;
        }
    }
    return NULL;
}

static bool info_num(const pmix_info_t *info, size_t ninfo, const char *key, void *out,
                     pmix_data_type_t type)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], key)) {
            return PMIx_Value_get_number(&info[i].value, out, type) == PMIX_SUCCESS;
        }
    }
    return false;
}

/* Only launchers we started connect here (their attach says which URI they were given,
 * PMIX_LAUNCHER_RNDZ_URI), and the tool that started us. Any other tool is refused, so that the
 * default search of the tools on this node (prun looking for its DVM) never settles on a debugger.
 * A launcher keeps the identity it has (tool ids are constant across servers); one without an
 * identity yet gets "<our nspace>.l<n>", rank 0. */
static void ts_tool_connected(pmix_info_t *info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc,
                              void *cbdata)
{
    uint32_t uid = 0;
    pmix_proc_t proc, parent;
    const char *ns = info_str(info, ninfo, PMIX_TOOL_NSPACE);
    pmix_rank_t rank = 0;
    info_num(info, ninfo, PMIX_TOOL_RANK, &rank, PMIX_PROC_RANK);
    /* ... and, when we are such a launcher ourselves, the tool that started us (it makes
     * us its server: PMIx_tool_set_server) */
    bool ours = ns != NULL && px_tool_parent(&parent) && PMIx_Check_nspace(ns, parent.nspace) &&
                rank == parent.rank;
    if (info_str(info, ninfo, PMIX_LAUNCHER_RNDZ_URI) == NULL && !ours) {
        px_debug(1, "tool", "own server: refused a tool that is not a launcher connecting back");
        cbfunc(PMIX_ERR_NOT_SUPPORTED, NULL, cbdata);
        return;
    }
    if (info_num(info, ninfo, PMIX_USERID, &uid, PMIX_UINT32) && uid != (uint32_t)geteuid()) {
        px_debug(1, "tool", "own server: refused a launcher of uid %u", uid);
        cbfunc(PMIX_ERR_NO_PERMISSIONS, NULL, cbdata);
        return;
    }
    back_t *b = calloc(1, sizeof(*b));
    if (b == NULL) {
        cbfunc(PMIX_ERR_NOMEM, NULL, cbdata);
        return;
    }
    pthread_mutex_lock(&ts.lock);
    if (ns != NULL && *ns != '\0') {
        PMIx_Load_procid(&proc, ns, rank);
    } else {
        char name[PMIX_MAX_NSLEN + 16];
        snprintf(name, sizeof(name), "%.*s.l%u", PMIX_MAX_NSLEN - 12, px_cl.myproc.nspace,
                 ++ts.next_id);
        PMIx_Load_procid(&proc, name, 0);
    }
    const char *uri = info_str(info, ninfo, PMIX_MYSERVER_URI);
    b->proc = proc;
    b->uri = uri != NULL ? strdup(uri) : NULL;
    info_num(info, ninfo, PMIX_PROC_PID, &b->pid, PMIX_PID);
    b->next = ts.backs;
    ts.backs = b;
    pthread_cond_broadcast(&ts.cond);
    pthread_mutex_unlock(&ts.lock);
    px_debug(2, "tool", "own server: launcher %s:%u connected back (pid %d, server %s)",
             proc.nspace, proc.rank, (int)b->pid, uri ? uri : "none");
    cbfunc(PMIX_SUCCESS, &proc, cbdata);
}

static void ts_deliver(pmix_status_t status, const pmix_proc_t *source, pmix_data_range_t range,
                       const pmix_info_t info[], size_t ninfo)
{
    px_cl_event_deliver_keep(status, source, range, info, ninfo);
}

static const px_srv_embed_t ts_embed = {.deliver = ts_deliver};

/* What a connected tool notifies beyond this node: only the tool that started us (a
 * launcher relaying its spawns, tool_relay.c) has it passed on to our primary server;
 * the events of launchers connected back to us came from there. */
static pmix_status_t ts_notify(pmix_status_t code, const pmix_proc_t *source,
                               pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
                               pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pmix_proc_t parent;
    if (source == NULL || !px_tool_parent(&parent) || !PMIx_Check_procid(source, &parent) ||
        source->rank != parent.rank) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    return px_tool_relay_notify(code, source, range, info, ninfo, cbfunc, cbdata);
}

/* ---- start / stop (PMIx_tool_init / PMIx_tool_finalize) ---- */

/* Our URI where PMIx_Get(&myproc, PMIX_MYSERVER_URI) finds it: our own process's
 * record in the store (answered without a server, client_get.c). */
static pmix_status_t store_uri(const char *uri)
{
    pmix_value_t v;
    PMIx_Value_load(&v, uri, PMIX_STRING);
    pthread_mutex_lock(&px_cl.lock);
    pmix_status_t rc = PMIX_ERR_NOMEM;
    px_nspace_t *ns = px_store_add(&px_cl.store, px_cl.myproc.nspace);
    px_ns_rank_t *r = ns != NULL ? px_ns_rank(ns, px_cl.myproc.rank) : NULL;
    if (r != NULL) {
        rc = px_kvset_put(&r->info, PMIX_MYSERVER_URI, &v);
    }
    pthread_mutex_unlock(&px_cl.lock);
    PMIx_Value_destruct(&v);
    return rc;
}

pmix_status_t px_tool_srv_start(const pmix_info_t info[], size_t ninfo)
{
    static const char *const passed[] = {PMIX_SERVER_TMPDIR, PMIX_SYSTEM_TMPDIR,
                                         PMIX_LAUNCHER_RENDEZVOUS_FILE, NULL};
    pmix_info_t si[8];
    size_t n = 0;
    bool yes = true;
    pmix_server_module_t module = {.tool_connected = ts_tool_connected,
                                   .spawn = px_tool_relay_spawn,
                                   .notify_event = ts_notify};
    PMIx_Info_load(&si[n++], PMIX_SERVER_NSPACE, px_cl.myproc.nspace, PMIX_STRING);
    PMIx_Info_load(&si[n++], PMIX_SERVER_RANK, &px_cl.myproc.rank, PMIX_PROC_RANK);
    PMIx_Info_load(&si[n++], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    PMIx_Info_load(&si[n++], PX_ATTR_SRV_EMBED, &ts_embed, PMIX_POINTER);
    for (size_t i = 0; i < ninfo; i++) {
        for (size_t k = 0; passed[k] != NULL; k++) {
            if (PMIX_CHECK_KEY(&info[i], passed[k]) && info[i].value.type == PMIX_STRING) {
                PMIx_Info_load(&si[n++], passed[k], info[i].value.data.string, PMIX_STRING);
            }
        }
        if (n >= 7) {
            break;
        }
    }
    pmix_status_t rc = px_srv != NULL ? PMIX_ERR_INIT : PMIx_server_init(&module, si, n);
    for (size_t i = 0; i < n; i++) {
        PMIx_Info_destruct(&si[i]);
    }
    if (rc != PMIX_SUCCESS) {
        px_debug(1, "tool", "PMIX_LAUNCHER: no server of our own: %s", PMIx_Error_string(rc));
        return rc;
    }
    pthread_mutex_lock(&px_srv->lock);
    char *uri = strdup(px_srv->uri);
    pthread_mutex_unlock(&px_srv->lock);
    rc = uri != NULL ? store_uri(uri) : PMIX_ERR_NOMEM;
    px_debug(1, "tool", "PMIX_LAUNCHER: listening at %s", uri ? uri : "?");
    free(uri);
    if (rc != PMIX_SUCCESS) {
        PMIx_server_finalize();
        return rc;
    }
    pthread_mutex_lock(&ts.lock);
    ts.on = true;
    pthread_mutex_unlock(&ts.lock);
    return PMIX_SUCCESS;
}

void px_tool_srv_stop(void)
{
    pthread_mutex_lock(&ts.lock);
    bool on = ts.on;
    ts.on = false;
    pthread_mutex_unlock(&ts.lock);
    if (on) {
        PMIx_server_finalize(); /* its connections close, its rendezvous files go */
    }
    pthread_mutex_lock(&ts.lock);
    while (ts.backs != NULL) {
        back_t *b = ts.backs;
        ts.backs = b->next;
        free(b->uri);
        free(b);
    }
    ts.next_id = 0;
    pthread_mutex_unlock(&ts.lock);
}

bool px_tool_srv_running(void)
{
    pthread_mutex_lock(&ts.lock);
    bool on = ts.on;
    pthread_mutex_unlock(&ts.lock);
    return on;
}

char *px_tool_srv_back_uri(const pmix_proc_t *proc, int wait_ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += wait_ms / 1000;
    until.tv_nsec += (long)(wait_ms % 1000) * 1000000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    char *uri = NULL;
    pthread_mutex_lock(&ts.lock);
    for (;;) {
        for (back_t *b = ts.backs; b != NULL && uri == NULL; b = b->next) {
            if (b->uri != NULL && PMIx_Check_procid(&b->proc, proc) && b->proc.rank == proc->rank) {
                uri = strdup(b->uri);
            }
        }
        if (uri != NULL || !ts.on || wait_ms <= 0 ||
            pthread_cond_timedwait(&ts.cond, &ts.lock, &until) != 0) {
            break;
        }
    }
    pthread_mutex_unlock(&ts.lock);
    return uri;
}

bool px_tool_srv_has(const pmix_proc_t *proc)
{
    pthread_mutex_lock(&ts.lock);
    bool has = false;
    if (ts.on && px_srv != NULL) {
        pthread_mutex_lock(&px_srv->lock);
        has = px_srv_tool_is_connected(proc);
        pthread_mutex_unlock(&px_srv->lock);
    }
    pthread_mutex_unlock(&ts.lock);
    return has;
}

char *px_tool_srv_uri(void)
{
    pthread_mutex_lock(&ts.lock);
    char *uri = NULL;
    if (ts.on && px_srv != NULL) {
        pthread_mutex_lock(&px_srv->lock);
        uri = strdup(px_srv->uri);
        pthread_mutex_unlock(&px_srv->lock);
    }
    pthread_mutex_unlock(&ts.lock);
    return uri;
}

pmix_status_t px_tool_srv_relay(pmix_status_t status, const pmix_proc_t *source,
                                pmix_data_range_t range, const pmix_info_t info[], size_t ninfo)
{
    if (!px_tool_srv_running()) {
        return PMIX_ERR_INIT;
    }
    /* a launcher that is also our primary server hears it from there: once is enough */
    pmix_proc_t primary;
    bool skip = px_tool_primary(&primary);
    return px_srv_event_relay(status, source, range, info, ninfo, skip ? &primary : NULL);
}
