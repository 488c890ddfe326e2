/* client: PMIx_Init/Initialized/Finalize, the connection to the server, the request
 * machinery every client call uses, and storing what the server sends. API calls run on
 * user threads; request callbacks and connection events run on the client's loop.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "client/px_client.h"
#include "event/px_event.h"
#include "help/px_help.h"
#include "net/px_usock.h"
#include "types/px_hwtypes.h"

px_client_state_t px_cl = {
    .init_lock = PTHREAD_MUTEX_INITIALIZER,
    .lock = PTHREAD_MUTEX_INITIALIZER,
};

bool px_cl_initialized(void)
{
    pthread_mutex_lock(&px_cl.lock);
    bool on = px_cl.refs > 0;
    pthread_mutex_unlock(&px_cl.lock);
    return on;
}

/* ---- requests ---- */

typedef struct {
    uint32_t tag;
    pmix_data_buffer_t msg;
    int timeout_ms;
    px_creq_fn cb;
    void *cbdata;
    struct event *timer;
    bool answered; /* cb has run (reply or timeout) */
    bool in_peer;  /* the peer still owes us the reply callback */
} creq_t;

static void creq_maybe_free(creq_t *r)
{
    if (r->answered && !r->in_peer) {
        if (r->timer != NULL) {
            event_free(r->timer);
        }
        px_bfrops_buf_free(&r->msg);
        free(r);
    }
}

static void creq_reply(px_peer_t *peer, pmix_status_t status, pmix_data_buffer_t *reply,
                       void *cbdata)
{
    (void)peer;
    creq_t *r = cbdata;
    r->in_peer = false;
    if (!r->answered) {
        r->answered = true;
        if (r->timer != NULL) {
            event_del(r->timer);
        }
        pmix_status_t st = status;
        if (status == PMIX_SUCCESS) {
            int32_t one = 1;
            pmix_status_t rc = px_bfrops_unpack(reply, &st, &one, PMIX_STATUS);
            if (rc != PMIX_SUCCESS) {
                st = rc;
            }
        }
        r->cb(st, status == PMIX_SUCCESS ? reply : NULL, r->cbdata);
    }
    creq_maybe_free(r);
}

static void creq_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    creq_t *r = arg;
    if (!r->answered) {
        r->answered = true;
        r->cb(PMIX_ERR_TIMEOUT, NULL, r->cbdata);
    }
    creq_maybe_free(r);
}

static void creq_send(void *arg)
{
    creq_t *r = arg;
    if (px_cl.peer == NULL ||
        px_peer_send_request(px_cl.peer, r->tag, &r->msg, creq_reply, r) != 0) {
        r->answered = true;
        r->cb(PMIX_ERR_UNREACH, NULL, r->cbdata);
        creq_maybe_free(r);
        return;
    }
    r->in_peer = true;
    if (r->timeout_ms > 0) {
        r->timer = evtimer_new(px_progress_base(px_cl.prog), creq_timeout, r);
        struct timeval tv = {r->timeout_ms / 1000, (r->timeout_ms % 1000) * 1000};
        if (r->timer != NULL) {
            evtimer_add(r->timer, &tv);
        }
    }
}

pmix_status_t px_cl_request(uint32_t tag, pmix_data_buffer_t *msg, int timeout_ms, px_creq_fn cb,
                            void *cbdata)
{
    if (px_cl.prog == NULL) {
        return PMIX_ERR_INIT;
    }
    creq_t *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        return PMIX_ERR_NOMEM;
    }
    r->tag = tag;
    px_bfrops_buf_init(&r->msg);
    if (msg != NULL) {
        char *bytes;
        size_t size;
        px_bfrops_buf_take(msg, &bytes, &size);
        px_bfrops_buf_adopt(&r->msg, bytes, size);
    }
    r->timeout_ms = timeout_ms;
    r->cb = cb;
    r->cbdata = cbdata;
    if (px_progress_shift(px_cl.prog, creq_send, r) != 0) {
        px_bfrops_buf_free(&r->msg);
        free(r);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

typedef struct {
    px_latch_t latch;
    pmix_status_t status;
    pmix_data_buffer_t *reply;
} csync_t;

static void csync_cb(pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    csync_t *s = cbdata;
    s->status = status;
    if (reply != NULL && s->reply != NULL) {
        size_t left = px_bfrops_buf_remaining(reply);
        if (left > 0 && px_bfrops_buf_append(s->reply, reply->unpack_ptr, left) != PMIX_SUCCESS &&
            status == PMIX_SUCCESS) {
            s->status = PMIX_ERR_NOMEM;
        }
    }
    px_latch_release(&s->latch);
}

pmix_status_t px_cl_request_wait(uint32_t tag, pmix_data_buffer_t *msg, int timeout_ms,
                                 pmix_data_buffer_t *reply)
{
    if (reply != NULL) {
        px_bfrops_buf_init(reply);
    }
    if (px_cl.prog != NULL && px_progress_on_loop(px_cl.prog)) {
        return PMIX_ERR_WOULD_BLOCK; /* a blocking call from inside one of our callbacks */
    }
    csync_t s = {.status = PMIX_ERR_UNREACH, .reply = reply};
    px_latch_init(&s.latch, 1);
    pmix_status_t rc = px_cl_request(tag, msg, timeout_ms, csync_cb, &s);
    if (rc == PMIX_SUCCESS) {
        px_latch_wait(&s.latch, -1); /* bounded: reply, timeout or connection loss */
        rc = s.status;
    }
    px_latch_fini(&s.latch);
    return rc;
}

static void cl_send_on_loop(void *arg)
{
    creq_t *r = arg;
    if (px_cl.peer != NULL && px_peer_send(px_cl.peer, r->tag, &r->msg) != 0) {
        px_debug(1, "client", "cannot send message %u: %s", r->tag, strerror(errno));
    }
    px_bfrops_buf_free(&r->msg);
    free(r);
}

pmix_status_t px_cl_send(uint32_t tag, pmix_data_buffer_t *msg)
{
    creq_t *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        return PMIX_ERR_NOMEM;
    }
    r->tag = tag;
    char *bytes;
    size_t size;
    px_bfrops_buf_take(msg, &bytes, &size);
    px_bfrops_buf_adopt(&r->msg, bytes, size);
    if (px_progress_shift(px_cl.prog, cl_send_on_loop, r) != 0) {
        px_bfrops_buf_free(&r->msg);
        free(r);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

pmix_status_t px_cl_later(px_progress_fn_t fn, void *arg)
{
    return px_progress_shift(px_cl.prog, fn, arg) == 0 ? PMIX_SUCCESS : PMIX_ERR_OUT_OF_RESOURCE;
}

int px_cl_timeout_ms(const pmix_info_t *info, size_t ninfo)
{
    for (size_t i = 0; info != NULL && i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_TIMEOUT)) {
            int secs = 0;
            if (PMIx_Value_get_number(&info[i].value, &secs, PMIX_INT) == PMIX_SUCCESS &&
                secs > 0) {
                return secs * 1000;
            }
        }
    }
    return 0;
}

/* ---- what the server sends ---- */

pmix_status_t px_cl_store_jobinfo(const char *nspace, pmix_data_buffer_t *reply)
{
    pthread_mutex_lock(&px_cl.lock);
    pmix_status_t rc = PMIX_ERR_NOMEM;
    px_nspace_t *ns = px_store_add(&px_cl.store, nspace);
    if (ns != NULL && !ns->complete) {
        rc = px_ns_unpack(reply, ns);
        if (rc == PMIX_SUCCESS && px_cl.store.my_hostname == NULL &&
            PMIx_Check_nspace(nspace, px_cl.myproc.nspace)) {
            /* our node is the one our own rank was placed on */
            const pmix_value_t *h = px_ns_lookup(ns, px_cl.myproc.rank, PMIX_HOSTNAME, NULL);
            px_cl.store.my_hostname = strdup(
                h && h->type == PMIX_STRING && h->data.string ? h->data.string : px_hostname());
        }
        px_ns_locate(&px_cl.store, ns);
    } else if (ns != NULL) {
        rc = PMIX_SUCCESS; /* another thread got it first */
    }
    pthread_mutex_unlock(&px_cl.lock);
    return rc;
}

bool px_cl_key_dynamic(const char *key)
{
    return strcmp(key, PMIX_PSET_NAMES) == 0 || strcmp(key, PMIX_GROUP_NAMES) == 0;
}

pmix_status_t px_cl_store_blob(pmix_data_buffer_t *blob)
{
    pmix_proc_t p;
    pmix_info_t *info;
    size_t n;
    pmix_status_t rc;
    pthread_mutex_lock(&px_cl.lock);
    while ((rc = px_blob_next(blob, &p, &info, &n)) == PMIX_SUCCESS) {
        bool mine = PMIx_Check_procid(&p, &px_cl.myproc) && p.rank == px_cl.myproc.rank;
        px_nspace_t *ns = px_store_add(&px_cl.store, p.nspace);
        px_kvset_t *set = NULL;
        if (ns != NULL && p.rank == PMIX_RANK_WILDCARD) {
            set = &ns->job;
        } else if (ns != NULL) {
            px_ns_rank_t *pr = px_ns_rank(ns, p.rank);
            if (pr != NULL) {
                bool local = px_ns_rank_is_local(ns, p.rank);
                set = local ? &pr->local : &pr->remote;
                if (local) {
                    pr->have_local = true;
                } else {
                    pr->have_remote = true;
                }
            }
        }
        for (size_t i = 0; set != NULL && i < n; i++) {
            /* our own puts may be newer than what the server holds of them */
            if (!mine || px_kvset_get(set, info[i].key) == NULL || px_cl_key_dynamic(info[i].key)) {
                px_kvset_put(set, info[i].key, &info[i].value);
            }
        }
        px_bfrops_info_array_free(info, n);
    }
    pthread_mutex_unlock(&px_cl.lock);
    return rc == PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER ? PMIX_SUCCESS : rc;
}

/* ---- connection ---- */

static void cl_recv(px_peer_t *peer, uint32_t tag, uint32_t seq, pmix_data_buffer_t *payload,
                    void *cbdata)
{
    (void)peer;
    (void)cbdata;
    if (tag == PX_TAG_EVENT && seq == 0) {
        px_cl_event_recv(payload);
        return;
    }
    if (tag == PX_TAG_IOF_DATA && seq == 0) {
        px_cl_iof_recv(payload);
        return;
    }
    px_debug(1, "client", "unexpected message tag %u seq %u from the server", tag, seq);
}

static void cl_lost(px_peer_t *peer, int err, void *cbdata)
{
    (void)cbdata;
    px_debug(1, "client", "connection to the server lost: %s", err ? strerror(err) : "closed");
    px_peer_destroy(peer);
    px_cl.peer = NULL;
    px_cl_event_lost();
}

typedef struct {
    int fd;
    int err;
} attach_t;

static void attach_on_loop(void *arg)
{
    attach_t *a = arg;
    px_cl.peer = px_peer_create(px_cl.prog, a->fd, cl_recv, cl_lost, NULL);
    a->err = px_cl.peer ? 0 : errno;
}

static void detach_on_loop(void *arg)
{
    (void)arg;
    px_peer_destroy(px_cl.peer);
    px_cl.peer = NULL;
}

static const char *env_uri(const char **name)
{
    static const char *names[] = PX_ENV_URI_NAMES;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *v = getenv(names[i]);
        if (v != NULL && *v != '\0') {
            *name = names[i];
            return v;
        }
    }
    return NULL;
}

static const char *refusal_reason(pmix_status_t st)
{
    switch (st) {
    case PMIX_ERR_NOT_FOUND:
        return "the server has no such client registered";
    case PMIX_ERR_NO_PERMISSIONS:
        return "this process runs under another user or group";
    case PMIX_EXISTS:
        return "a process with this identity is already connected";
    default:
        return "the server did not accept the handshake";
    }
}

pmix_status_t px_cl_hello_pack(pmix_data_buffer_t *hello, int32_t kind, const char *nspace,
                               pmix_rank_t rank)
{
    const char *version = PMIx_Get_version();
    px_bfrops_buf_init(hello);
    pmix_status_t rc = px_bfrops_pack(hello, &kind, 1, PMIX_INT32);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(hello, &nspace, 1, PMIX_STRING);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(hello, &rank, 1, PMIX_PROC_RANK);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(hello, &version, 1, PMIX_STRING);
    }
    return rc;
}

/* Connect, hand the socket to the loop, fetch our namespace. */
static pmix_status_t cl_connect(const char *nspace, pmix_rank_t rank)
{
    const char *uri_name = NULL;
    const char *uri = env_uri(&uri_name);
    char *path = NULL;
    char rank_s[16];
    snprintf(rank_s, sizeof(rank_s), "%u", rank);
    if (px_uri_parse(uri, &px_cl.server, &path) != 0) {
        px_show_help("help-pmix-client.txt", "bad-uri", uri_name, uri);
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_data_buffer_t hello;
    pmix_status_t rc = px_cl_hello_pack(&hello, PX_HELLO_CLIENT, nspace, rank);
    pmix_status_t answer = PMIX_SUCCESS;
    int fd = rc == PMIX_SUCCESS ? px_usock_connect(path, &hello, 10000, &answer) : -1;
    px_bfrops_buf_free(&hello);
    if (fd < 0) {
        if (rc != PMIX_SUCCESS) {
            free(path);
            return rc;
        }
        if (errno == ECONNREFUSED && answer != PMIX_SUCCESS) {
            px_show_help("help-pmix-client.txt", "refused", rank_s, nspace, uri,
                         PMIx_Error_string(answer), refusal_reason(answer));
            rc = answer;
        } else {
            px_show_help("help-pmix-client.txt", "unreachable", rank_s, nspace, path,
                         strerror(errno));
            rc = PMIX_ERR_UNREACH;
        }
        free(path);
        return rc;
    }
    free(path);
    attach_t a = {fd, 0};
    if (px_progress_shift_wait(px_cl.prog, attach_on_loop, &a, 10000) != 0 || a.err != 0) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    pmix_data_buffer_t msg, reply;
    px_bfrops_buf_init(&msg);
    rc = px_bfrops_pack(&msg, &nspace, 1, PMIX_STRING);
    if (rc == PMIX_SUCCESS) {
        rc = px_cl_request_wait(PX_TAG_JOBINFO, &msg, 0, &reply);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_cl_store_jobinfo(nspace, &reply);
    }
    px_bfrops_buf_free(&msg);
    px_bfrops_buf_free(&reply);
    return rc;
}

void px_cl_teardown(void)
{
    if (px_cl.event_bound) {
        px_evt_unbind();
        px_cl.event_bound = false;
    }
    px_cl_event_fini();
    px_cl_iof_quiesce(); /* pulls' held output out, their timers gone before the loop */
    if (px_cl.prog != NULL) {
        px_progress_shift_wait(px_cl.prog, detach_on_loop, NULL, 10000);
        px_progress_destroy(px_cl.prog);
        px_cl.prog = NULL;
    }
    pthread_mutex_lock(&px_cl.lock);
    px_store_fini(&px_cl.store);
    px_kvset_fini(&px_cl.commit_local);
    px_kvset_fini(&px_cl.commit_remote);
    pthread_mutex_unlock(&px_cl.lock);
    px_cl_query_fini();
    px_cl_group_fini();
    px_cl_iof_fini();
    px_hw_local_fini(); /* what PMIx_Load_topology handed out (Standard: ours to clean) */
}

/* ---- one start and one stop for both sides (client and tool) ---- */

pmix_status_t px_cl_start(const px_cl_side_t *side, pmix_proc_t *proc, pmix_info_t info[],
                          size_t ninfo)
{
    if (ninfo > 0 && info == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    const char *reqd = px_info_unhonoured(info, ninfo, side->honoured);
    if (reqd != NULL) {
        px_show_help(side->helpfile, "init-directive", reqd);
        return PMIX_ERR_NOT_SUPPORTED;
    }
    pthread_mutex_lock(&px_cl.init_lock);
    pmix_status_t rc = PMIX_SUCCESS;
    if (px_cl.refs > 0) {
        pthread_mutex_lock(&px_cl.lock);
        px_cl.refs++;
        pthread_mutex_unlock(&px_cl.lock);
        goto out;
    }
    memset(&px_cl.myproc, 0, sizeof(px_cl.myproc));
    memset(&px_cl.server, 0, sizeof(px_cl.server));
    rc = side->identify(info, ninfo);
    if (rc != PMIX_SUCCESS) {
        goto out; /* nothing set up yet */
    }
    px_store_init(&px_cl.store, NULL);
    px_kvset_init(&px_cl.commit_local);
    px_kvset_init(&px_cl.commit_remote);
    px_cl.prog = px_progress_create(NULL);
    if (px_cl.prog == NULL || px_progress_start(px_cl.prog) != 0) {
        rc = PMIX_ERR_OUT_OF_RESOURCE;
        px_cl_teardown();
        goto out;
    }
    rc = side->join(info, ninfo);
    if (rc != PMIX_SUCCESS) {
        if (side->release != NULL) {
            side->release();
        }
        px_cl_teardown();
        goto out;
    }
    pthread_mutex_lock(&px_cl.lock);
    px_cl.refs = 1;
    pthread_mutex_unlock(&px_cl.lock);
    px_debug(2, "client", "%s:%u started", px_cl.myproc.nspace, px_cl.myproc.rank);
    if (side->hold != NULL && (rc = side->hold()) != PMIX_SUCCESS) {
        pthread_mutex_lock(&px_cl.lock);
        px_cl.refs = 0;
        pthread_mutex_unlock(&px_cl.lock);
        if (side->release != NULL) {
            side->release();
        }
        px_cl_teardown();
    }
out:
    if (rc == PMIX_SUCCESS && proc != NULL) {
        *proc = px_cl.myproc;
    }
    pthread_mutex_unlock(&px_cl.init_lock);
    return rc;
}

pmix_status_t px_cl_stop(const px_cl_side_t *side)
{
    pthread_mutex_lock(&px_cl.init_lock);
    pmix_status_t rc = PMIX_SUCCESS;
    pthread_mutex_lock(&px_cl.lock);
    if (px_cl.refs == 0) {
        rc = PMIX_ERR_INIT;
    } else if (px_cl.refs > 1) {
        px_cl.refs--;
        pthread_mutex_unlock(&px_cl.lock);
        goto out;
    }
    pthread_mutex_unlock(&px_cl.lock);
    if (rc != PMIX_SUCCESS) {
        goto out;
    }
    if (px_progress_on_loop(px_cl.prog)) {
        rc = PMIX_ERR_WOULD_BLOCK; /* from one of our callbacks: the loop cannot stop itself */
        goto out;
    }
    side->leave();
    if (side->release != NULL) {
        side->release();
    }
    pthread_mutex_lock(&px_cl.lock);
    px_cl.refs = 0;
    pthread_mutex_unlock(&px_cl.lock);
    px_cl_teardown();
out:
    pthread_mutex_unlock(&px_cl.init_lock);
    return rc;
}

/* ---- the client side ---- */

/* Who we are: from the environment our server set. */
static pmix_status_t client_identify(const pmix_info_t info[], size_t ninfo)
{
    (void)info;
    (void)ninfo;
    const char *nspace = getenv(PX_ENV_NSPACE);
    const char *rank_s = getenv(PX_ENV_RANK);
    const char *uri_name;
    if (nspace == NULL || rank_s == NULL || env_uri(&uri_name) == NULL) {
        /* not started by a PMIx server: nothing to connect to */
        return PMIX_ERR_UNREACH;
    }
    char *end;
    unsigned long rank = strtoul(rank_s, &end, 10);
    if (*end != '\0' || rank >= PMIX_RANK_VALID || strlen(nspace) > PMIX_MAX_NSLEN) {
        char max_s[16];
        snprintf(max_s, sizeof(max_s), "%u", PMIX_RANK_VALID - 1);
        px_show_help("help-pmix-client.txt", "bad-rank", PX_ENV_RANK, rank_s, max_s, PX_ENV_RANK);
        return PMIX_ERR_BAD_PARAM;
    }
    PMIx_Load_procid(&px_cl.myproc, nspace, (pmix_rank_t)rank);
    return PMIX_SUCCESS;
}

static pmix_status_t client_join(const pmix_info_t info[], size_t ninfo)
{
    (void)info;
    (void)ninfo;
    /* a process that is also a server keeps the engine on the server's loop */
    px_cl.event_bound = px_cl_event_bind() == PMIX_SUCCESS;
    return cl_connect(px_cl.myproc.nspace, px_cl.myproc.rank);
}

/* Tell the server we leave on purpose; a lost server is no reason to fail. */
static void client_leave(void)
{
    pmix_status_t rc = px_cl_request_wait(PX_TAG_FINALIZE, NULL, 10000, NULL);
    if (rc != PMIX_SUCCESS) {
        px_debug(1, "client", "finalize not acknowledged: %s", PMIx_Error_string(rc));
    }
}

static const px_cl_side_t client_side = {
    .helpfile = "help-pmix-client.txt",
    .honoured = NULL, /* no directive of PMIx_Init is acted on yet */
    .identify = client_identify,
    .join = client_join,
    .leave = client_leave,
    .release = NULL,
    .hold = px_cl_debug_hold, /* PMIX_DEBUG_STOP_IN_INIT (client_debug.c) */
};

PMIX_EXPORT pmix_status_t PMIx_Init(pmix_proc_t *proc, pmix_info_t info[], size_t ninfo)
{
    return px_cl_start(&client_side, proc, info, ninfo);
}

PMIX_EXPORT int PMIx_Initialized(void)
{
    return px_cl_initialized();
}

PMIX_EXPORT pmix_status_t PMIx_Finalize(const pmix_info_t info[], size_t ninfo)
{
    (void)info;
    (void)ninfo;
    return px_cl_stop(&client_side);
}
