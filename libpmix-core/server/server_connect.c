/* server: PMIx_Connect / PMIx_Disconnect (Chap_API_Proc_Mgmt, "Connecting and
 * Disconnecting Processes"). One record per participant set (its sorted signature): the
 * local participants of a connect or disconnect are aggregated, then the host's
 * `connect`/`disconnect` upcall runs the collective across servers (Server chapter: one
 * call per collective); a set with every participant here and a host without the upcall
 * is done here. A connect's participants get every participant's posted data in the
 * answer; a disconnect of a set that is not connected is PMIX_ERR_INVALID_OPERATION.
 * Runs on the loop with px_srv->lock held; the host's answers are shifted back there.
 */
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "server/px_server.h"
#include "server/px_srv_host.h"

/* What the set is doing; one operation at a time (Standard: a process engages in one
 * connect or disconnect of an identical procs array at a time). */
typedef enum { OP_NONE, OP_COLLECTING, OP_IN_HOST } op_state_t;

typedef struct {
    px_srv_client_t *client; /* counted */
    uint32_t seq;
} part_t;

typedef struct px_conn {
    char *sig;          /* owned */
    pmix_proc_t *procs; /* owned, sorted */
    size_t nprocs;
    size_t nconnected; /* completed connects not yet disconnected */
    op_state_t state;
    bool disconnect;   /* the operation in flight */
    pmix_info_t *info; /* owned: the first caller's directives */
    size_t ninfo;
    size_t nexpected;
    bool all_local;
    part_t *parts; /* owned */
    size_t nparts;
    struct event *timer;
    int upcalls; /* in flight: the record lives until they return */
    struct px_conn *next;
} px_conn_t;

static uint32_t op_tag(const px_conn_t *k)
{
    return k->disconnect ? PX_TAG_DISCONNECT : PX_TAG_CONNECT;
}

static void conn_unlink(px_conn_t *k)
{
    for (px_conn_t **pp = &px_srv->conns; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == k) {
            *pp = k->next;
            return;
        }
    }
}

static void conn_free(px_conn_t *k)
{
    for (size_t i = 0; i < k->nparts; i++) {
        px_srv_client_release(k->parts[i].client);
    }
    if (k->timer != NULL) {
        event_free(k->timer);
    }
    free(k->parts);
    free(k->sig);
    free(k->procs);
    PMIx_Info_free(k->info, k->ninfo);
    free(k);
}

/* The operation is over: answer every participant; a record neither connected nor busy
 * goes. */
static void op_finish(px_conn_t *k, pmix_status_t status)
{
    pmix_data_buffer_t body;
    px_bfrops_buf_init(&body);
    if (status == PMIX_SUCCESS && !k->disconnect) {
        /* connected processes exchange their posted data */
        status = px_srv_pack_all(k->procs, k->nprocs, &body);
    }
    if (status == PMIX_SUCCESS && !k->disconnect) {
        k->nconnected++;
    } else if (status == PMIX_SUCCESS && k->nconnected > 0) {
        k->nconnected--;
    }
    px_debug(2, "server", "%s %s: %s", k->disconnect ? "disconnect" : "connect", k->sig,
             PMIx_Error_string(status));
    for (size_t i = 0; i < k->nparts; i++) {
        px_srv_reply(k->parts[i].client, k->parts[i].seq, op_tag(k), status,
                     status == PMIX_SUCCESS ? &body : NULL);
        px_srv_client_release(k->parts[i].client);
    }
    px_bfrops_buf_free(&body);
    k->nparts = 0;
    k->state = OP_NONE;
    if (k->timer != NULL) {
        event_free(k->timer);
        k->timer = NULL;
    }
    PMIx_Info_free(k->info, k->ninfo);
    k->info = NULL;
    k->ninfo = 0;
    if (k->nconnected == 0) {
        conn_unlink(k);
        if (k->upcalls == 0) {
            conn_free(k);
        }
    }
}

/* ---- the host ---- */

typedef struct {
    px_conn_t *k; /* counted in k->upcalls */
    bool disconnect;
    pmix_proc_t *procs; /* owned */
    size_t nprocs;
    pmix_info_t *info; /* owned */
    size_t ninfo;
    pmix_status_t status;
} conn_up_t;

static void up_done(conn_up_t *u)
{
    px_conn_t *k = u->k;
    k->upcalls--;
    bool mine = k->state == OP_IN_HOST && k->disconnect == u->disconnect;
    if (mine) {
        op_finish(k, u->status == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : u->status);
    } else if (k->upcalls == 0 && k->nconnected == 0 && k->state == OP_NONE) {
        conn_free(k); /* already unlinked */
    }
    free(u->procs);
    PMIx_Info_free(u->info, u->ninfo);
    free(u);
}

static void up_done_on_loop(void *arg)
{
    up_done(arg);
}

/* The host's answer; any thread. */
static void host_cb(pmix_status_t status, void *cbdata)
{
    conn_up_t *u = cbdata;
    u->status = status;
    if (px_srv_shift(up_done_on_loop, u) != 0) {
        px_debug(1, "server", "connect: the host's answer is lost (loop gone)");
    }
}

/* Loop, no lock held. */
static void conn_upcall(void *arg)
{
    conn_up_t *u = arg;
    pmix_status_t rc =
        u->disconnect
            ? px_srv->module.disconnect(u->procs, u->nprocs, u->info, u->ninfo, host_cb, u)
            : px_srv->module.connect(u->procs, u->nprocs, u->info, u->ninfo, host_cb, u);
    if (rc != PMIX_SUCCESS) {
        pthread_mutex_lock(&px_srv->lock);
        u->status = rc;
        up_done(u);
        pthread_mutex_unlock(&px_srv->lock);
    }
}

/* Every local participant is in: to the host, or done here. */
static void op_ready(px_conn_t *k)
{
    bool has_up =
        k->disconnect ? px_srv->module.disconnect != NULL : px_srv->module.connect != NULL;
    if (!has_up) {
        /* with every participant here the library can do without the host */
        op_finish(k, k->all_local ? PMIX_SUCCESS : PMIX_ERR_NOT_SUPPORTED);
        return;
    }
    conn_up_t *u = calloc(1, sizeof(*u));
    pmix_proc_t *parts = calloc(k->nparts ? k->nparts : 1, sizeof(*parts));
    pmix_status_t rc = PMIX_ERR_NOMEM;
    if (u == NULL || parts == NULL) {
        goto error;
    }
    u->k = k;
    u->disconnect = k->disconnect;
    u->procs = calloc(k->nprocs, sizeof(*u->procs));
    u->info = PMIx_Info_create(k->ninfo + 2);
    if (u->procs == NULL || u->info == NULL) {
        goto error;
    }
    memcpy(u->procs, k->procs, k->nprocs * sizeof(*u->procs));
    u->nprocs = k->nprocs;
    for (size_t i = 0; i < k->ninfo; i++) {
        PMIx_Info_xfer(&u->info[i], &k->info[i]);
    }
    /* the Server chapter's PMIX_LOCAL_COLLECTIVE_STATUS, and who took part here */
    pmix_status_t lst = PMIX_SUCCESS;
    PMIx_Info_load(&u->info[k->ninfo], PMIX_LOCAL_COLLECTIVE_STATUS, &lst, PMIX_STATUS);
    for (size_t i = 0; i < k->nparts; i++) {
        parts[i] = k->parts[i].client->proc;
    }
    pmix_data_array_t da = {.type = PMIX_PROC, .size = k->nparts, .array = parts};
    PMIx_Info_load(&u->info[k->ninfo + 1], PX_GRP_PARTS, &da, PMIX_DATA_ARRAY);
    u->ninfo = k->ninfo + 2;
    free(parts);
    parts = NULL;
    if (k->timer != NULL) {
        event_free(k->timer); /* the host bounds its part with the directives' PMIX_TIMEOUT */
        k->timer = NULL;
    }
    k->state = OP_IN_HOST;
    k->upcalls++;
    if (px_srv_upcall(conn_upcall, u) == 0) {
        return;
    }
    k->upcalls--;
    rc = PMIX_ERR_OUT_OF_RESOURCE;
error:
    free(parts);
    if (u != NULL) {
        free(u->procs);
        PMIx_Info_free(u->info, k->ninfo + 2);
        free(u);
    }
    op_finish(k, rc);
}

static void op_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    pthread_mutex_lock(&px_srv->lock);
    px_conn_t *k = arg;
    event_free(k->timer);
    k->timer = NULL;
    op_finish(k, PMIX_ERR_TIMEOUT);
    pthread_mutex_unlock(&px_srv->lock);
}

/* A participant that can no longer arrive fails the operation. */
static pmix_status_t check_departed(const px_conn_t *k)
{
    for (px_srv_client_t *c = px_srv->clients; c != NULL; c = c->next) {
        if (c->departed && px_srv_procs_involve(k->procs, k->nprocs, &c->proc)) {
            return c->finalized ? PMIX_ERR_LOST_CONNECTION : PMIX_ERR_PROC_TERM_WO_SYNC;
        }
    }
    return PMIX_SUCCESS;
}

static void request(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload, bool disconnect)
{
    size_t nprocs = 0, ninfo = 0;
    pmix_proc_t *procs = NULL;
    pmix_info_t *info = NULL;
    char *sig = NULL;
    px_conn_t *k = NULL;
    uint32_t tag = disconnect ? PX_TAG_DISCONNECT : PX_TAG_CONNECT;
    pmix_status_t rc = px_srv_unpack_procs(payload, &procs, &nprocs);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_info_array(payload, &info, &ninfo);
    }
    if (rc == PMIX_SUCCESS && nprocs == 0) {
        rc = PMIX_ERR_BAD_PARAM;
    }
    if (rc == PMIX_SUCCESS && !px_srv_procs_involve(procs, nprocs, &c->proc)) {
        rc = PMIX_ERR_NOT_A_MEMBER; /* a participant calls with itself among the procs */
    }
    if (rc == PMIX_SUCCESS && (sig = px_srv_proc_signature(procs, nprocs)) == NULL) {
        rc = PMIX_ERR_NOMEM;
    }
    if (rc != PMIX_SUCCESS) {
        goto reply;
    }
    for (k = px_srv->conns; k != NULL && strcmp(k->sig, sig) != 0; k = k->next) {
    }
    if (disconnect && (k == NULL || (k->nconnected == 0 && k->state == OP_NONE))) {
        rc = PMIX_ERR_INVALID_OPERATION; /* not connected (Server chapter) */
        goto reply;
    }
    if (k != NULL && k->state != OP_NONE && k->disconnect != disconnect) {
        rc = PMIX_ERR_INVALID_OPERATION; /* a connect and a disconnect of one set at once */
        goto reply;
    }
    if (k == NULL) {
        k = calloc(1, sizeof(*k));
        if (k == NULL) {
            rc = PMIX_ERR_NOMEM;
            goto reply;
        }
        k->sig = sig;
        sig = NULL;
        k->procs = procs;
        k->nprocs = nprocs;
        procs = NULL;
        k->next = px_srv->conns;
        px_srv->conns = k;
    }
    if (k->state == OP_IN_HOST) {
        rc = PMIX_EXISTS; /* already handed to the host: this caller was in it */
        goto reply;
    }
    if (k->state == OP_NONE) {
        k->state = OP_COLLECTING;
        k->disconnect = disconnect;
        k->info = info;
        k->ninfo = ninfo;
        info = NULL;
        ninfo = 0;
        rc = px_srv_count_local(k->procs, k->nprocs, &k->nexpected, &k->all_local);
        int secs = 0;
        for (size_t i = 0; i < k->ninfo; i++) {
            if (PMIX_CHECK_KEY(&k->info[i], PMIX_TIMEOUT)) {
                PMIx_Value_get_number(&k->info[i].value, &secs, PMIX_INT);
            }
        }
        if (rc == PMIX_SUCCESS && secs > 0) {
            k->timer = evtimer_new(px_progress_base(px_srv->prog), op_timeout, k);
            struct timeval tv = {secs, 0};
            if (k->timer != NULL) {
                evtimer_add(k->timer, &tv);
            }
        }
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < k->nparts; i++) {
        if (k->parts[i].client == c) {
            rc = PMIX_EXISTS; /* the same process twice in one operation */
            goto reply;
        }
    }
    part_t *grown = rc == PMIX_SUCCESS ? realloc(k->parts, (k->nparts + 1) * sizeof(*grown)) : NULL;
    if (rc == PMIX_SUCCESS && grown == NULL) {
        rc = PMIX_ERR_NOMEM;
    }
    if (rc != PMIX_SUCCESS) {
        /* a namespace we do not know, or no memory: this caller is answered; an operation
         * nobody else is in is dropped */
        px_srv_reply(c, seq, tag, rc, NULL);
        if (k->nparts == 0) {
            op_finish(k, rc);
        }
        goto out;
    }
    k->parts = grown;
    k->parts[k->nparts++] = (part_t){c, seq};
    px_srv_client_retain(c);
    rc = check_departed(k);
    if (rc != PMIX_SUCCESS) {
        op_finish(k, rc);
    } else if (k->nparts >= k->nexpected) {
        op_ready(k);
    }
    goto out;
reply:
    px_srv_reply(c, seq, tag, rc, NULL);
out:
    free(sig);
    free(procs);
    px_bfrops_info_array_free(info, ninfo);
}

void px_srv_connect(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    request(c, seq, payload, false);
}

void px_srv_disconnect(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    request(c, seq, payload, true);
}

void px_srv_connect_client_gone(px_srv_client_t *c)
{
    for (px_conn_t *k = px_srv->conns; k != NULL;) {
        px_conn_t *next = k->next;
        if (k->state == OP_COLLECTING && px_srv_procs_involve(k->procs, k->nprocs, &c->proc)) {
            /* a participant that can no longer call fails what waits for it */
            op_finish(k, c->finalized ? PMIX_ERR_LOST_CONNECTION : PMIX_ERR_PROC_TERM_WO_SYNC);
        }
        k = next;
    }
}

void px_srv_connect_fini(void)
{
    while (px_srv->conns != NULL) {
        px_conn_t *k = px_srv->conns;
        px_srv->conns = k->next;
        conn_free(k); /* the host will not be heard from again */
    }
}
