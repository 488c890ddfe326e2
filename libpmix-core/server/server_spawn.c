/* server: SPAWN requests of clients and tools -> the host's spawn upcall. The request
 * arrives on the loop (lock held); the host's callback may come from any thread and is
 * shifted back to the loop, where the requester becomes a sink of the channels its job
 * info asked to forward (PMIX_FWD_STDOUT/STDERR/STDDIAG) before the reply is sent: the
 * host's PMIx_server_IOF_deliver calls that follow its callback are shifted behind it.
 */
#include <stdlib.h>
#include <string.h>

#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "server/px_server.h"

/* More apps than this in one request is garbage, not a job. */
#define PX_SPAWN_MAX_APPS 65536

typedef struct {
    px_srv_client_t *client; /* counted */
    uint32_t seq;
    pmix_info_t *info; /* owned: the job info */
    size_t ninfo;
    pmix_app_t *apps; /* owned */
    size_t napps;
    pmix_status_t status;
    pmix_nspace_t nspace; /* the host's answer */
} spawn_req_t;

static void spawn_free(spawn_req_t *s)
{
    px_srv_client_release(s->client);
    px_bfrops_info_array_free(s->info, s->ninfo);
    if (s->apps != NULL) {
        PMIx_App_free(s->apps, s->napps);
    }
    free(s);
}

/* The channels the job info asks to forward to the requester. */
static pmix_iof_channel_t fwd_channels(const pmix_info_t *info, size_t ninfo)
{
    pmix_iof_channel_t ch = 0;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_FWD_STDOUT) && PMIX_INFO_TRUE(&info[i])) {
            ch |= PMIX_FWD_STDOUT_CHANNEL;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_FWD_STDERR) && PMIX_INFO_TRUE(&info[i])) {
            ch |= PMIX_FWD_STDERR_CHANNEL;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_FWD_STDDIAG) && PMIX_INFO_TRUE(&info[i])) {
            ch |= PMIX_FWD_STDDIAG_CHANNEL;
        }
    }
    return ch;
}

static void spawn_finish(spawn_req_t *s)
{
    pmix_data_buffer_t body;
    px_bfrops_buf_init(&body);
    if (s->status == PMIX_SUCCESS && s->nspace[0] == '\0') {
        s->status = PMIX_ERR_BAD_PARAM; /* the host said yes without a namespace */
    }
    pmix_iof_channel_t ch = fwd_channels(s->info, s->ninfo);
    px_srv_iof_opts_t o; /* the spawn's PMIX_IOF_CACHE_SIZE / DROP_*; checked before the upcall */
    if (s->status == PMIX_SUCCESS && px_srv_iof_opts(s->info, s->ninfo, &o) == PMIX_SUCCESS) {
        for (size_t i = 0; i < s->ninfo; i++) {
            if (PMIX_CHECK_KEY(&s->info[i], PMIX_IOF_CACHE_SIZE)) {
                px_srv_iof_cache_size(s->nspace, o.cap); /* kept for late pulls */
            }
        }
        if (ch != 0 && s->client->peer != NULL) {
            pmix_proc_t job;
            PMIx_Load_procid(&job, s->nspace, PMIX_RANK_WILDCARD);
            o.is_default = true; /* until a pull redirects it */
            s->status = px_srv_iof_add_sink(s->client, &job, ch, &o);
        }
    }
    if (s->status == PMIX_SUCCESS) {
        char *ns = s->nspace;
        s->status = px_bfrops_pack(&body, &ns, 1, PMIX_STRING);
    }
    px_debug(2, "server", "spawn for %s:%u: %s %s", s->client->proc.nspace, s->client->proc.rank,
             PMIx_Error_string(s->status), s->nspace);
    px_srv_reply(s->client, s->seq, PX_TAG_SPAWN, s->status,
                 s->status == PMIX_SUCCESS ? &body : NULL);
    px_bfrops_buf_free(&body);
    spawn_free(s);
}

static void spawn_finish_on_loop(void *arg)
{
    spawn_finish(arg);
}

/* The host's answer, any thread (possibly inside the upcall). */
static void spawn_host_cb(pmix_status_t status, pmix_nspace_t nspace, void *cbdata)
{
    spawn_req_t *s = cbdata;
    s->status = status;
    if (status == PMIX_SUCCESS || status == PMIX_OPERATION_SUCCEEDED) {
        s->status = PMIX_SUCCESS;
        if (nspace != NULL) {
            PMIX_LOAD_NSPACE(s->nspace, nspace);
        }
    }
    if (px_srv_shift(spawn_finish_on_loop, s) != 0) {
        px_debug(1, "server", "cannot deliver the host's spawn answer");
    }
}

/* Loop, no lock held (px_srv_upcall). */
static void spawn_upcall(void *arg)
{
    spawn_req_t *s = arg;
    pmix_status_t rc = px_srv->module.spawn(&s->client->proc, s->info, s->ninfo, s->apps, s->napps,
                                            spawn_host_cb, s);
    if (rc == PMIX_SUCCESS) {
        return; /* the callback comes */
    }
    if (rc == PMIX_OPERATION_SUCCEEDED) {
        rc = PMIX_ERR_BAD_PARAM; /* a spawn cannot succeed without naming its namespace */
    }
    pthread_mutex_lock(&px_srv->lock);
    px_srv_reply(s->client, s->seq, PX_TAG_SPAWN, rc, NULL);
    spawn_free(s);
    pthread_mutex_unlock(&px_srv->lock);
}

void px_srv_spawn(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    spawn_req_t *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        px_srv_reply(c, seq, PX_TAG_SPAWN, PMIX_ERR_NOMEM, NULL);
        return;
    }
    s->client = c;
    px_srv_client_retain(c);
    s->seq = seq;
    int32_t one = 1;
    pmix_status_t rc = px_bfrops_unpack_info_array(payload, &s->info, &s->ninfo);
    if (rc == PMIX_SUCCESS) {
        rc = px_srv_count(payload, px_bfrops_wire_elem(PMIX_APP), PX_SPAWN_MAX_APPS, &s->napps);
    }
    if (rc == PMIX_SUCCESS && s->napps == 0) {
        rc = PMIX_ERR_BAD_PARAM;
    }
    if (rc == PMIX_SUCCESS) {
        s->apps = PMIx_App_create(s->napps);
        rc = s->apps != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    if (rc == PMIX_SUCCESS) {
        one = (int32_t)s->napps;
        rc = px_bfrops_unpack(payload, s->apps, &one, PMIX_APP);
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < s->napps; i++) {
        if (s->apps[i].cmd == NULL || s->apps[i].cmd[0] == '\0') {
            rc = PMIX_ERR_BAD_PARAM;
        }
    }
    px_srv_iof_opts_t o;
    if (rc == PMIX_SUCCESS) {
        rc = px_srv_iof_opts(s->info, s->ninfo, &o); /* a bad cache size or both policies */
    }
    if (rc == PMIX_SUCCESS && px_srv->module.spawn == NULL) {
        rc = PMIX_ERR_NOT_SUPPORTED;
    }
    if (rc == PMIX_SUCCESS) {
        if (px_srv_upcall(spawn_upcall, s) == 0) {
            return;
        }
        rc = PMIX_ERR_OUT_OF_RESOURCE;
    }
    px_srv_reply(c, seq, PX_TAG_SPAWN, rc, NULL);
    spawn_free(s);
}
