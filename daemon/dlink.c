/* daemon: the daemon's end of the controller connection (px_dlink.h). Loop thread only.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "daemon/px_dlink.h"

struct px_dlink {
    px_peer_t *peer;    /* owned */
    px_nagent_t *agent; /* owned */
    px_dlink_cbs_t cbs;
    bool failed; /* told once */
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

static void on_msg(px_peer_t *peer, uint32_t tag, uint32_t seq, pmix_data_buffer_t *payload,
                   void *cbdata)
{
    (void)peer;
    px_dlink_t *l = cbdata;
    if (l->failed || l->agent == NULL) {
        return;
    }
    px_dp_ctl_msg_t m;
    pmix_status_t rc = px_dp_ctl_decode(tag, payload, &m);
    if (rc == PMIX_SUCCESS) {
        rc = px_nagent_handle(l->agent, &m, seq);
        if (rc == PMIX_ERR_NOT_SUPPORTED) {
            rc = l->cbs.other != NULL ? l->cbs.other(&m, seq, l->cbs.arg) : rc;
        } else if (rc == PMIX_EXISTS || rc == PMIX_ERR_NOMEM) {
            rc = PMIX_SUCCESS; /* the agent reported what it could not do */
        }
        px_dp_ctl_msg_free(&m);
    }
    if (rc != PMIX_SUCCESS) {
        fail(l, 0, tag, rc);
    }
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
    if (!l->failed && px_peer_send(l->peer, tag, payload) != 0) {
        fail(l, errno, tag, PMIX_ERR_LOST_CONNECTION);
    }
}

static void agent_reply(uint32_t seq, uint32_t tag, pmix_data_buffer_t *payload, void *arg)
{
    px_dlink_t *l = arg;
    if (!l->failed && px_peer_send_reply(l->peer, seq, tag, payload) != 0) {
        fail(l, errno, tag, PMIX_ERR_LOST_CONNECTION);
    }
}

static int agent_send_bulk(uint32_t tag, const pmix_data_buffer_t *head, const void *data,
                           size_t len, void (*done)(void *), void *done_arg, void *arg)
{
    px_dlink_t *l = arg;
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
