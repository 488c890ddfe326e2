/* daemon: the daemon's end of the controller connection (px_dlink.h). Loop thread only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "daemon/px_dlink.h"

/* A job message that came before its job's LAUNCH (which came another way: the tree). */
typedef struct early {
    struct early *next;
    pmix_nspace_t nspace;
    uint32_t tag, seq;
    char *bytes; /* owned: the payload */
    size_t len;
} early_t;

struct px_dlink {
    px_peer_t *peer;    /* owned */
    px_nagent_t *agent; /* owned */
    px_dlink_cbs_t cbs;
    bool failed;                  /* told once */
    early_t *early, **early_tail; /* owned: in arrival order */
};

static void fail(px_dlink_t *l, int err, uint32_t tag, pmix_status_t rc)
{
    if (l->failed) {
        return;
    }
    l->failed = true;
    if (l->cbs.failed != NULL) {
        l->cbs.failed(err, tag, rc, l->cbs.arg);
    }
}

static pmix_status_t dispatch(px_dlink_t *l, uint32_t tag, uint32_t seq,
                              pmix_data_buffer_t *payload);

/* A message about a job whose LAUNCH has not come yet (it comes down the tree, this one
 * came straight from the controller): kept, in order, until it has. */
static bool held_early(px_dlink_t *l, const px_dp_ctl_msg_t *m, uint32_t seq,
                       const pmix_data_buffer_t *payload)
{
    bool about_job = m->tag == PX_DP_SIGNAL || m->tag == PX_DP_STDIN || m->tag == PX_DP_IOF_FLOW ||
                     m->tag == PX_DP_DMODEX_REQ;
    if (!about_job || l->cbs.indirect == NULL || !l->cbs.indirect(l->cbs.arg) ||
        !px_nagent_launch_due(l->agent, m->target.nspace)) {
        return false;
    }
    early_t *e = calloc(1, sizeof(*e));
    size_t len = payload->bytes_used;
    if (e == NULL || (len > 0 && (e->bytes = malloc(len)) == NULL)) {
        free(e);
        return false; /* acted on now, as without the tree */
    }
    PMIX_LOAD_NSPACE(e->nspace, m->target.nspace);
    e->tag = m->tag;
    e->seq = seq;
    if (len > 0) {
        memcpy(e->bytes, payload->base_ptr, len);
    }
    e->len = len;
    px_debug(1, "dlink", "message %u about %s held until its LAUNCH comes", e->tag, e->nspace);
    *l->early_tail = e;
    l->early_tail = &e->next;
    return true;
}

/* The job's LAUNCH was handled: what came before it about the job, in order. */
static void replay_early(px_dlink_t *l, const char *nspace)
{
    early_t **pp = &l->early;
    while (*pp != NULL && !l->failed) {
        early_t *e = *pp;
        if (!PMIx_Check_nspace(e->nspace, nspace)) {
            pp = &e->next;
            continue;
        }
        *pp = e->next;
        if (l->early_tail == &e->next) {
            l->early_tail = pp;
        }
        pmix_data_buffer_t b;
        px_bfrops_buf_init(&b);
        px_bfrops_buf_adopt(&b, e->bytes, e->len);
        pmix_status_t rc = dispatch(l, e->tag, e->seq, &b);
        px_bfrops_buf_free(&b);
        if (rc != PMIX_SUCCESS) {
            fail(l, 0, e->tag, rc);
        }
        free(e);
    }
}

static pmix_status_t dispatch(px_dlink_t *l, uint32_t tag, uint32_t seq,
                              pmix_data_buffer_t *payload)
{
    if (l->failed || l->agent == NULL) {
        return PMIX_SUCCESS;
    }
    if (l->cbs.trace != NULL) {
        l->cbs.trace(true, tag, px_bfrops_buf_remaining(payload), l->cbs.arg);
    }
    px_dp_ctl_msg_t m;
    pmix_status_t rc = px_dp_ctl_decode(tag, payload, &m);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (tag == PX_DP_XCAST) {
        /* for every daemon: to the children first, then here */
        if (l->cbs.xcast != NULL) {
            l->cbs.xcast(m.inner, &m.data, l->cbs.arg);
        }
        pmix_data_buffer_t inner;
        px_bfrops_buf_init(&inner);
        rc = m.data.size == 0 ||
                     px_bfrops_buf_append(&inner, m.data.bytes, m.data.size) == PMIX_SUCCESS
                 ? dispatch(l, m.inner, 0, &inner)
                 : PMIX_ERR_NOMEM;
        px_bfrops_buf_free(&inner);
        px_dp_ctl_msg_free(&m);
        return rc;
    }
    if (held_early(l, &m, seq, payload)) {
        px_dp_ctl_msg_free(&m);
        return PMIX_SUCCESS;
    }
    rc = px_nagent_handle(l->agent, &m, seq);
    if (rc == PMIX_ERR_NOT_SUPPORTED) {
        rc = l->cbs.other != NULL ? l->cbs.other(&m, seq, l->cbs.arg) : rc;
    } else if (rc == PMIX_EXISTS || rc == PMIX_ERR_NOMEM) {
        rc = PMIX_SUCCESS; /* the agent reported what it could not do */
    }
    if (rc == PMIX_SUCCESS && tag == PX_DP_LAUNCH && l->early != NULL) {
        replay_early(l, m.launch.nspace);
    }
    px_dp_ctl_msg_free(&m);
    return rc;
}

static void on_msg(px_peer_t *peer, uint32_t tag, uint32_t seq, pmix_data_buffer_t *payload,
                   void *cbdata)
{
    (void)peer;
    px_dlink_t *l = cbdata;
    pmix_status_t rc = dispatch(l, tag, seq, payload);
    if (rc != PMIX_SUCCESS) {
        fail(l, 0, tag, rc);
    }
}

pmix_status_t px_dlink_deliver(px_dlink_t *l, uint32_t tag, pmix_data_buffer_t *payload)
{
    return dispatch(l, tag, 0, payload);
}

static void on_lost(px_peer_t *peer, int err, void *cbdata)
{
    (void)peer;
    fail(cbdata, err, 0, PMIX_ERR_LOST_CONNECTION);
}

/* The agent's messages for the controller (PSTATE, IOF) and its answers (STDIN). */
static void agent_send(uint32_t tag, pmix_data_buffer_t *payload, void *arg)
{
    px_dlink_t *l = arg;
    if (l->cbs.trace != NULL) {
        l->cbs.trace(false, tag, payload ? px_bfrops_buf_remaining(payload) : 0, l->cbs.arg);
    }
    if (!l->failed && px_peer_send(l->peer, tag, payload) != 0) {
        fail(l, errno, tag, PMIX_ERR_LOST_CONNECTION);
    }
}

static void agent_reply(uint32_t seq, uint32_t tag, pmix_data_buffer_t *payload, void *arg)
{
    px_dlink_t *l = arg;
    if (l->cbs.trace != NULL) {
        l->cbs.trace(false, tag, payload ? px_bfrops_buf_remaining(payload) : 0, l->cbs.arg);
    }
    if (!l->failed && px_peer_send_reply(l->peer, seq, tag, payload) != 0) {
        fail(l, errno, tag, PMIX_ERR_LOST_CONNECTION);
    }
}

static int agent_send_bulk(uint32_t tag, const pmix_data_buffer_t *head, const void *data,
                           size_t len, void (*done)(void *), void *done_arg, void *arg)
{
    px_dlink_t *l = arg;
    if (l->cbs.trace != NULL) {
        l->cbs.trace(false, tag, (head ? px_bfrops_buf_remaining(head) : 0) + len, l->cbs.arg);
    }
    if (l->failed || px_peer_send_ext(l->peer, tag, head, data, len, NULL, done, done_arg) != 0) {
        return -1;
    }
    return 0;
}

px_dlink_t *px_dlink_create(px_progress_t *prog, int fd, const px_nagent_opts_t *ao,
                            const px_dlink_cbs_t *cbs)
{
    px_dlink_t *l = calloc(1, sizeof(*l));
    if (l == NULL) {
        close(fd);
        return NULL;
    }
    l->early_tail = &l->early;
    l->cbs = *cbs;
    px_nagent_cbs_t acbs = {
        .send = agent_send, .reply = agent_reply, .send_bulk = agent_send_bulk, .arg = l};
    l->agent = px_nagent_create(ao, &acbs);
    if (l->agent == NULL) {
        close(fd);
        free(l);
        return NULL;
    }
    l->peer = px_peer_create(prog, fd, on_msg, on_lost, l);
    if (l->peer == NULL) {
        px_nagent_destroy(l->agent);
        free(l);
        return NULL;
    }
    return l;
}

void px_dlink_stop_agent(px_dlink_t *l, double deadline_ms)
{
    if (l == NULL || l->agent == NULL) {
        return;
    }
    if (!l->failed && px_peer_flush(l->peer, deadline_ms) != 0) {
        return; /* output still queued: px_dlink_destroy releases it first */
    }
    px_nagent_destroy(l->agent); /* what it reports now is queued, maybe not written */
    l->agent = NULL;
}

void px_dlink_destroy(px_dlink_t *l)
{
    if (l == NULL) {
        return;
    }
    /* the connection first: output still queued is released while its agent lives */
    px_peer_destroy(l->peer);
    l->peer = NULL;
    l->failed = true; /* nothing more is sent */
    px_nagent_destroy(l->agent);
    while (l->early != NULL) {
        early_t *e = l->early;
        l->early = e->next;
        free(e->bytes);
        free(e);
    }
    free(l);
}

px_peer_t *px_dlink_peer(px_dlink_t *l)
{
    return l->failed ? NULL : l->peer;
}

px_nagent_t *px_dlink_agent(px_dlink_t *l)
{
    return l->agent;
}
