/* net: a request on a peer waited for on a caller's thread (px_call.h). The sending and
 * the reply run on the peer's loop; the waiter blocks on a latch. call_lock guards the
 * counts of the requests in flight.
 */
#include <stdlib.h>
#include <string.h>

#include "bfrops/px_bfrops.h"
#include "net/px_call.h"

typedef struct {
    px_call_peer_fn peer;
    uint32_t tag;
    pmix_data_buffer_t msg;
    px_latch_t latch;
    pmix_status_t status;
    pmix_data_buffer_t reply; /* after the status */
    int refs;                 /* waiter + callback; call_lock */
    size_t keysize;
    unsigned char key[]; /* copied */
} call_t;

static pthread_mutex_t call_lock = PTHREAD_MUTEX_INITIALIZER;

static void call_release(call_t *r)
{
    pthread_mutex_lock(&call_lock);
    int left = --r->refs;
    pthread_mutex_unlock(&call_lock);
    if (left == 0) {
        px_bfrops_buf_free(&r->msg);
        px_bfrops_buf_free(&r->reply);
        px_latch_fini(&r->latch);
        free(r);
    }
}

static void call_reply(px_peer_t *peer, pmix_status_t status, pmix_data_buffer_t *reply,
                       void *cbdata)
{
    (void)peer;
    call_t *r = cbdata;
    r->status = status;
    if (status == PMIX_SUCCESS) {
        int32_t one = 1;
        pmix_status_t rc = px_bfrops_unpack(reply, &r->status, &one, PMIX_STATUS);
        size_t left = px_bfrops_buf_remaining(reply);
        if (rc != PMIX_SUCCESS) {
            r->status = rc;
        } else if (left > 0) {
            px_bfrops_buf_append(&r->reply, reply->unpack_ptr, left);
        }
    }
    px_latch_release(&r->latch);
    call_release(r);
}

static void call_send(void *arg)
{
    call_t *r = arg;
    px_peer_t *p = r->peer(r->key);
    if (p == NULL || px_peer_send_request(p, r->tag, &r->msg, call_reply, r) != 0) {
        r->status = PMIX_ERR_UNREACH;
        px_latch_release(&r->latch);
        call_release(r);
    }
}

pmix_status_t px_call_wait(px_progress_t *prog, px_call_peer_fn peer, const void *key,
                           size_t keysize, uint32_t tag, const pmix_data_buffer_t *msg, int ms,
                           pmix_data_buffer_t *reply)
{
    if (reply != NULL) {
        px_bfrops_buf_init(reply);
    }
    call_t *r = calloc(1, sizeof(*r) + keysize);
    if (r == NULL || px_latch_init(&r->latch, 1) != 0) {
        free(r);
        return PMIX_ERR_NOMEM;
    }
    r->peer = peer;
    r->tag = tag;
    r->refs = 2;
    r->status = PMIX_ERR_TIMEOUT;
    r->keysize = keysize;
    memcpy(r->key, key, keysize);
    px_bfrops_buf_init(&r->msg);
    px_bfrops_buf_init(&r->reply);
    if (msg != NULL && msg->bytes_used > 0) {
        px_bfrops_buf_append(&r->msg, msg->base_ptr, msg->bytes_used);
    }
    if (px_progress_shift(prog, call_send, r) != 0) {
        r->refs = 1;
        call_release(r);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    pmix_status_t rc = PMIX_ERR_TIMEOUT;
    if (px_latch_wait(&r->latch, ms) == 0) {
        rc = r->status;
        if (reply != NULL && r->reply.bytes_used > 0) {
            px_bfrops_buf_append(reply, r->reply.base_ptr, r->reply.bytes_used);
        }
    }
    call_release(r);
    return rc;
}
