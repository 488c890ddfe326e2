/* client: a launcher tool as a relay (Tools chapter, "Indirect launch": the IL "idles ...
 * solely acting as a relay (if connected to a server that is performing the actual
 * application launch)"). prun started by an initiator that parses the command line: the
 * initiator makes prun's own server (tool_srv.c) its primary and spawns through it; the
 * spawn goes to our primary server (the DVM) on the initiator's behalf, and what the DVM
 * then sends us about that job goes back to the initiator through our own server: its
 * lifecycle events (PMIX_EVENT_JOB_START, PMIX_LAUNCH_COMPLETE, PMIX_EVENT_JOB_END,
 * PMIX_READY_FOR_DEBUG), its forwarded output (PMIx_server_IOF_deliver, the initiator being
 * the default sink of the channels its spawn asked for), and the initiator's
 * notifications beyond our node (its PMIX_DEBUGGER_RELEASE of the job's processes) go up.
 * The spawn request arrives on the server's loop; the DVM's answers, events and output on
 * the client's loop; rl.lock guards the table of relayed jobs.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "client/px_client.h"
#include "client/px_tool.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "server/px_server.h"
#include "types/px_types.h"

/* Bytes of relayed output in our server's hands before the client's loop waits for the
 * initiator to read (backpressure, as writing into a pipe: the DVM's output pacing goes
 * on through us). */
#define PX_RELAY_IOF_HOLD (1024u * 1024)

/* A job spawned on a tool's behalf. */
typedef struct relayed {
    struct relayed *next;
    pmix_nspace_t nspace;
    pmix_proc_t requester;
} relayed_t;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond; /* relayed output was written, or the relay stopped */
    relayed_t *jobs;     /* owned */
    bool registered;     /* our handler for the jobs' events, at our primary server */
    size_t held;         /* bytes of output in our server's hands */
    bool stopped;
} rl = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

/* The tool a relayed job nspace was spawned for: true with *requester. */
static bool requester_of(const char *nspace, pmix_proc_t *requester)
{
    bool found = false;
    pthread_mutex_lock(&rl.lock);
    for (relayed_t *r = rl.jobs; r != NULL && !found; r = r->next) {
        if (PMIx_Check_nspace(r->nspace, nspace)) {
            *requester = r->requester;
            found = true;
        }
    }
    pthread_mutex_unlock(&rl.lock);
    return found;
}

/* ---- the jobs' events: from our primary server to the requester (client loop) ---- */

/* The relayed job an event is about (PMIX_NSPACE, an affected process, or its source). */
static bool event_job(const pmix_proc_t *source, const pmix_info_t info[], size_t ninfo,
                      pmix_proc_t *requester)
{
    for (size_t i = 0; i < ninfo; i++) {
        const pmix_value_t *v = &info[i].value;
        if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE) && v->type == PMIX_STRING &&
            v->data.string != NULL && requester_of(v->data.string, requester)) {
            return true;
        }
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && v->type == PMIX_PROC &&
            v->data.proc != NULL && requester_of(v->data.proc->nspace, requester)) {
            return true;
        }
    }
    return source != NULL && requester_of(source->nspace, requester);
}

static void relay_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                        pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                        pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)results;
    (void)nresults;
    pmix_proc_t requester;
    if (px_tool_srv_running() && event_job(source, info, ninfo, &requester) &&
        !(source != NULL && PMIx_Check_procid(source, &requester) &&
          source->rank == requester.rank)) {
        /* the same event, its custom range now the requester (the DVM's named us) */
        pmix_info_t *out = PMIx_Info_create(ninfo + 1);
        size_t n = 0;
        for (size_t i = 0; out != NULL && i < ninfo; i++) {
            if (!PMIX_CHECK_KEY(&info[i], PMIX_EVENT_CUSTOM_RANGE)) {
                PMIx_Info_xfer(&out[n++], &info[i]);
            }
        }
        pmix_status_t rc = PMIX_ERR_NOMEM;
        if (out != NULL) {
            PMIx_Info_load(&out[n++], PMIX_EVENT_CUSTOM_RANGE, &requester, PMIX_PROC);
            rc = px_srv_event_relay(status, source, PMIX_RANGE_CUSTOM, out, n, NULL);
        }
        px_debug(2, "tool", "relay: %s of %s to %s:%u: %s", PMIx_Error_string(status),
                 source != NULL ? source->nspace : "?", requester.nspace, requester.rank,
                 PMIx_Error_string(rc));
        PMIx_Info_free(out, ninfo + 1);
    }
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

static void registered(pmix_status_t status, size_t ref, void *cbdata)
{
    (void)ref;
    (void)cbdata;
    if (status != PMIX_SUCCESS) {
        px_debug(1, "tool", "relay: no registration for the jobs' events: %s",
                 PMIx_Error_string(status));
        pthread_mutex_lock(&rl.lock);
        rl.registered = false;
        pthread_mutex_unlock(&rl.lock);
    }
}

/* Once, before the first spawn we relay: the registration travels ahead of the spawn
 * request on the same connection, so the server has it before the job can raise
 * anything, and our handler is active when the answer to it comes back. */
static void register_once(void)
{
    pthread_mutex_lock(&rl.lock);
    bool first = !rl.registered;
    rl.registered = true;
    pthread_mutex_unlock(&rl.lock);
    if (!first) {
        return;
    }
    pmix_status_t codes[] = {PMIX_EVENT_JOB_START, PMIX_LAUNCH_COMPLETE, PMIX_EVENT_JOB_END,
                             PMIX_READY_FOR_DEBUG};
    pmix_info_t name;
    PMIx_Info_load(&name, PMIX_EVENT_HDLR_NAME, "px-tool-relay", PMIX_STRING);
    pmix_status_t rc = PMIx_Register_event_handler(codes, sizeof(codes) / sizeof(codes[0]), &name,
                                                   1, relay_event, registered, NULL);
    PMIx_Info_destruct(&name);
    if (rc != PMIX_SUCCESS) {
        registered(rc, 0, NULL);
    }
}

/* ---- spawn (the tool server's module, its loop) ---- */

typedef struct {
    pmix_proc_t requester;
    pmix_spawn_cbfunc_t cbfunc;
    void *cbdata;
} spawn_t;

/* Our primary server's answer (client loop), before any of the job's output is
 * handled: the job is in the table, then our server answers the requester (it becomes
 * the sink of the channels it asked for before any output is delivered to it). */
static void spawned(pmix_status_t status, pmix_nspace_t nspace, void *cbdata)
{
    spawn_t *s = cbdata;
    relayed_t *r = status == PMIX_SUCCESS ? calloc(1, sizeof(*r)) : NULL;
    if (r != NULL) {
        PMIX_LOAD_NSPACE(r->nspace, nspace);
        r->requester = s->requester;
        pthread_mutex_lock(&rl.lock);
        r->next = rl.jobs;
        rl.jobs = r;
        pthread_mutex_unlock(&rl.lock);
    } else if (status == PMIX_SUCCESS) {
        status = PMIX_ERR_NOMEM; /* its output and events could not reach the requester */
    }
    px_debug(2, "tool", "relay: spawn for %s:%u: %s %s", s->requester.nspace, s->requester.rank,
             PMIx_Error_string(status), status == PMIX_SUCCESS ? nspace : "");
    s->cbfunc(status, nspace, s->cbdata);
    free(s);
}

pmix_status_t px_tool_relay_spawn(const pmix_proc_t *proc, const pmix_info_t job_info[],
                                  size_t ninfo, const pmix_app_t apps[], size_t napps,
                                  pmix_spawn_cbfunc_t cbfunc, void *cbdata)
{
    pmix_proc_t primary;
    if (!px_tool_primary(&primary) ||
        (PMIx_Check_procid(&primary, proc) && primary.rank == proc->rank)) {
        /* nobody to launch it (or only the requester itself) */
        px_debug(1, "tool", "relay: spawn for %s:%u refused: no server to pass it to", proc->nspace,
                 proc->rank);
        return PMIX_ERR_NOT_SUPPORTED;
    }
    spawn_t *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return PMIX_ERR_NOMEM;
    }
    *s = (spawn_t){*proc, cbfunc, cbdata};
    register_once();
    pmix_status_t rc = PMIx_Spawn_nb(job_info, ninfo, apps, napps, spawned, s);
    if (rc != PMIX_SUCCESS) {
        free(s);
    }
    return rc;
}

/* ---- the requester's notifications beyond our node: up to our primary server ---- */

pmix_status_t px_tool_relay_notify(pmix_status_t code, const pmix_proc_t *source,
                                   pmix_data_range_t range, const pmix_info_t info[], size_t ninfo,
                                   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pmix_proc_t primary;
    if (!px_tool_primary(&primary) || source == NULL ||
        (PMIx_Check_procid(&primary, source) && primary.rank == source->rank)) {
        return PMIX_ERR_NOT_SUPPORTED; /* nowhere to send it, or it came from there */
    }
    pmix_data_buffer_t msg;
    pmix_status_t rc = px_cl_notify_pack(&msg, code, source, range, info, ninfo);
    if (rc == PMIX_SUCCESS) {
        rc = px_cl_send(PX_TAG_NOTIFY, &msg);
    }
    px_bfrops_buf_free(&msg);
    px_debug(2, "tool", "relay: %s from %s:%u up: %s", PMIx_Error_string(code), source->nspace,
             source->rank, PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    return px_progress_op_later(px_cl.prog, cbfunc, cbdata, PMIX_SUCCESS);
}

/* ---- output (client loop) ---- */

typedef struct {
    char *bytes; /* owned */
    size_t size;
    pmix_info_t *info; /* owned */
    size_t ninfo;
} iof_copy_t;

static void iof_written(pmix_status_t status, void *cbdata)
{
    (void)status;
    iof_copy_t *c = cbdata;
    pthread_mutex_lock(&rl.lock);
    rl.held -= c->size <= rl.held ? c->size : rl.held;
    pthread_cond_broadcast(&rl.cond);
    pthread_mutex_unlock(&rl.lock);
    free(c->bytes);
    px_bfrops_info_array_free(c->info, c->ninfo);
    free(c);
}

bool px_tool_relay_iof(const pmix_proc_t *source, pmix_iof_channel_t channel,
                       const pmix_byte_object_t *bo, const pmix_info_t info[], size_t ninfo)
{
    pmix_proc_t requester;
    if (!requester_of(source->nspace, &requester) || !px_tool_srv_running()) {
        return false;
    }
    iof_copy_t *c = calloc(1, sizeof(*c));
    if (c == NULL || (bo->size > 0 && (c->bytes = malloc(bo->size)) == NULL) ||
        (ninfo > 0 && px_info_array_dup(info, ninfo, &c->info) != PMIX_SUCCESS)) {
        if (c != NULL) {
            free(c->bytes);
            free(c);
        }
        px_debug(1, "tool", "relay: output of %s:%u lost: out of memory", source->nspace,
                 source->rank);
        return true; /* it was the requester's, not ours to print */
    }
    if (bo->size > 0) {
        memcpy(c->bytes, bo->bytes, bo->size);
    }
    c->size = bo->size;
    c->ninfo = ninfo;
    pthread_mutex_lock(&rl.lock);
    rl.held += c->size;
    pthread_mutex_unlock(&rl.lock);
    pmix_byte_object_t out = {c->bytes, c->size};
    pmix_status_t rc =
        PMIx_server_IOF_deliver(source, channel, &out, c->info, c->ninfo, iof_written, c);
    if (rc != PMIX_SUCCESS) {
        px_debug(1, "tool", "relay: output of %s:%u lost: %s", source->nspace, source->rank,
                 PMIx_Error_string(rc));
        iof_written(rc, c);
        return true;
    }
    /* the requester reads slower than the job writes: so does the job (our primary server
     * waits for us as we wait here) */
    pthread_mutex_lock(&rl.lock);
    while (rl.held > PX_RELAY_IOF_HOLD && !rl.stopped) {
        pthread_cond_wait(&rl.cond, &rl.lock);
    }
    pthread_mutex_unlock(&rl.lock);
    return true;
}

/* ---- teardown ---- */

void px_tool_relay_stop(void)
{
    pthread_mutex_lock(&rl.lock);
    rl.stopped = true;
    pthread_cond_broadcast(&rl.cond);
    pthread_mutex_unlock(&rl.lock);
}

void px_tool_relay_fini(void)
{
    pthread_mutex_lock(&rl.lock);
    while (rl.jobs != NULL) {
        relayed_t *r = rl.jobs;
        rl.jobs = r->next;
        free(r);
    }
    rl.registered = false;
    rl.held = 0;
    rl.stopped = false;
    pthread_mutex_unlock(&rl.lock);
}
