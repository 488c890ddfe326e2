/* client: IO forwarding on the receiving side — PMIx_IOF_pull / PMIx_IOF_deregister
 * (local handlers + the server's sinks), IOF_DATA from the server (matching handlers, or
 * this process's own stdout/stderr; a pull that asked for formatting or aggregation
 * passes through its px_iof_fmt state first, client_iof_fmt.c), and PMIx_IOF_push of
 * stdin data to the host. API calls run on user threads; IOF_DATA, request replies and
 * the formatting states on the client's loop. iof.lock guards the handler list and the
 * handlers' counts (never held while a handler runs).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix_tool.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "client/px_client.h"
#include "client/px_iof_fmt.h"
#include "client/px_tool.h"

#define PX_IOF_OUT_CHANNELS                                                                        \
    (PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL | PMIX_FWD_STDDIAG_CHANNEL)

/* One PMIx_IOF_pull registration. */
typedef struct px_iof_hdlr {
    size_t id;
    pmix_proc_t *procs; /* owned */
    size_t nprocs;
    pmix_iof_channel_t channels;
    pmix_iof_cbfunc_t cbfunc; /* NULL: write to our own stdout/stderr */
    px_iof_fmt_t *fmt;        /* owned, loop only: its formatting/aggregation, or NULL */
    int refs;                 /* the list's + each delivery running it (iof.lock) */
    struct px_iof_hdlr *next;
} px_iof_hdlr_t;

static struct {
    pthread_mutex_t lock;
    px_iof_hdlr_t *hdlrs; /* owned */
    size_t next_id;
} iof = {.lock = PTHREAD_MUTEX_INITIALIZER, .next_id = 1};

static void hdlr_free(px_iof_hdlr_t *h)
{
    if (h != NULL) {
        px_iof_fmt_destroy(h->fmt, false);
        free(h->procs);
        free(h);
    }
}

static void hdlr_unref(px_iof_hdlr_t *h)
{
    pthread_mutex_lock(&iof.lock);
    bool last = --h->refs == 0;
    pthread_mutex_unlock(&iof.lock);
    if (last) {
        hdlr_free(h);
    }
}

/* Unlink and return the handler with this id, or NULL. */
static px_iof_hdlr_t *hdlr_take(size_t id)
{
    pthread_mutex_lock(&iof.lock);
    px_iof_hdlr_t *h = NULL;
    for (px_iof_hdlr_t **pp = &iof.hdlrs; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->id == id) {
            h = *pp;
            *pp = h->next;
            break;
        }
    }
    pthread_mutex_unlock(&iof.lock);
    return h;
}

/* Loop: hand over what the formatting states hold, then drop them (their timers live on
 * the loop, which is about to go). */
static void quiesce_on_loop(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&iof.lock);
    for (px_iof_hdlr_t *h = iof.hdlrs; h != NULL; h = h->next) {
        px_iof_fmt_t *f = h->fmt;
        h->fmt = NULL;
        pthread_mutex_unlock(&iof.lock);
        px_iof_fmt_destroy(f, true);
        pthread_mutex_lock(&iof.lock);
    }
    pthread_mutex_unlock(&iof.lock);
}

void px_cl_iof_quiesce(void)
{
    px_cl_iof_stdin_stop();
    if (px_cl.prog != NULL) {
        px_progress_shift_wait(px_cl.prog, quiesce_on_loop, NULL, 10000);
    }
}

void px_cl_iof_fini(void)
{
    pthread_mutex_lock(&iof.lock);
    while (iof.hdlrs != NULL) {
        px_iof_hdlr_t *h = iof.hdlrs;
        iof.hdlrs = h->next;
        hdlr_free(h);
    }
    pthread_mutex_unlock(&iof.lock);
}

/* ---- IOF_DATA ---- */

/* Write all of it (partial writes, EINTR, a non-blocking fd). 0 / -1. */
static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
        } else if (w < 0 && errno == EINTR) {
            continue;
        } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pfd = {.fd = fd, .events = POLLOUT};
            (void)poll(&pfd, 1, -1);
        } else {
            return -1;
        }
    }
    return 0;
}

static bool hdlr_matches(const px_iof_hdlr_t *h, const pmix_proc_t *source,
                         pmix_iof_channel_t channel)
{
    if ((h->channels & channel) == 0) {
        return false;
    }
    for (size_t i = 0; i < h->nprocs; i++) {
        if (PMIx_Check_nspace(h->procs[i].nspace, source->nspace) &&
            PMIx_Check_rank(h->procs[i].rank, source->rank)) {
            return true;
        }
    }
    return false;
}

/* A matching handler, copied out of the lock (h: counted, when it formats). */
typedef struct {
    size_t id;
    pmix_iof_cbfunc_t cbfunc;
    px_iof_hdlr_t *h;
} hit_t;

/* Formatted output of handler arg: to its callback, or our own stdout/stderr. Loop. */
static void fmt_deliver(const pmix_proc_t *source, pmix_iof_channel_t channel, const char *bytes,
                        size_t n, void *arg)
{
    px_iof_hdlr_t *h = arg;
    if (h->cbfunc != NULL) {
        pmix_proc_t src = *source;
        pmix_byte_object_t bo = {(char *)bytes, n};
        h->cbfunc(h->id, channel, &src, &bo, NULL, 0);
        return;
    }
    int fd = (channel & PMIX_FWD_STDOUT_CHANNEL) ? STDOUT_FILENO : STDERR_FILENO;
    if (write_all(fd, bytes, n) != 0) {
        px_debug(1, "client", "forwarded output of %s:%u lost: %s", source->nspace, source->rank,
                 strerror(errno));
    }
}

void px_cl_iof_recv(pmix_data_buffer_t *payload)
{
    pmix_proc_t source;
    pmix_iof_channel_t channel = 0;
    pmix_byte_object_t bo = {NULL, 0};
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    int32_t one = 1;
    pmix_status_t rc = px_bfrops_unpack(payload, &source, &one, PMIX_PROC);
    if (rc == PMIX_SUCCESS) {
        one = 1;
        rc = px_bfrops_unpack(payload, &channel, &one, PMIX_IOF_CHANNEL);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_bo_view(payload, &bo); /* no copy: bo points into payload */
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_info_array(payload, &info, &ninfo);
    }
    if (rc != PMIX_SUCCESS) {
        px_debug(1, "client", "malformed forwarded output dropped: %s", PMIx_Error_string(rc));
        goto out;
    }
    /* a job spawned through us for the tool that started us: its output is that tool's
     * (tool_relay.c), not ours to print */
    bool relayed = px_tool_relay_iof(&source, channel, &bo, info, ninfo);
    /* Handlers are few; a stack array covers the usual case. */
    hit_t stack_hits[8], *hits = stack_hits;
    size_t nhits = 0, cap = 8;
    bool to_fd = true;
    pthread_mutex_lock(&iof.lock);
    for (px_iof_hdlr_t *h = iof.hdlrs; h != NULL; h = h->next) {
        if (!hdlr_matches(h, &source, channel)) {
            continue;
        }
        if (h->cbfunc == NULL && h->fmt == NULL) {
            continue; /* "write to the fd" registration: to_fd stays */
        }
        if (nhits == cap) {
            hit_t *more = malloc(2 * cap * sizeof(*more));
            if (more == NULL) {
                break;
            }
            memcpy(more, hits, nhits * sizeof(*more));
            if (hits != stack_hits) {
                free(hits);
            }
            hits = more;
            cap *= 2;
        }
        hits[nhits++] = (hit_t){h->id, h->cbfunc, h->fmt != NULL ? h : NULL};
        if (h->fmt != NULL) {
            h->refs++;
        }
    }
    pthread_mutex_unlock(&iof.lock);
    if (nhits > 0) {
        to_fd = false;
        /* a pull with a NULL cbfunc for the same source still gets its copy */
        pthread_mutex_lock(&iof.lock);
        for (px_iof_hdlr_t *h = iof.hdlrs; h != NULL; h = h->next) {
            if (h->cbfunc == NULL && h->fmt == NULL && hdlr_matches(h, &source, channel)) {
                to_fd = true;
                break;
            }
        }
        pthread_mutex_unlock(&iof.lock);
    }
    for (size_t i = 0; i < nhits; i++) {
        if (hits[i].h != NULL) {
            /* its own formatting; its deregistration's flush comes after us (loop) */
            if (hits[i].h->fmt != NULL) {
                px_iof_fmt_push(hits[i].h->fmt, &source, channel, bo.bytes, bo.size);
            }
            hdlr_unref(hits[i].h);
            continue;
        }
        /* payload and info are the library's: borrowed for the call */
        hits[i].cbfunc(hits[i].id, channel, &source, &bo, info, ninfo);
    }
    if (hits != stack_hits) {
        free(hits);
    }
    if (to_fd && !relayed && bo.size > 0) {
        int fd = (channel & PMIX_FWD_STDOUT_CHANNEL) ? STDOUT_FILENO : STDERR_FILENO;
        if (write_all(fd, bo.bytes, bo.size) != 0) {
            px_debug(1, "client", "forwarded output of %s:%u lost: %s", source.nspace, source.rank,
                     strerror(errno));
        }
    }
out:
    px_bfrops_info_array_free(info, ninfo);
}

/* ---- pull / deregister ---- */

/* size n, proc[n], uint16 channels */
static pmix_status_t pack_procs_channels(pmix_data_buffer_t *msg, const pmix_proc_t *procs,
                                         size_t nprocs, pmix_iof_channel_t channels)
{
    pmix_status_t rc = px_bfrops_pack(msg, &nprocs, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(msg, procs, (int32_t)nprocs, PMIX_PROC);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(msg, &channels, 1, PMIX_IOF_CHANNEL);
    }
    return rc;
}

/* Loop: hand over what h's formatting holds, then drop the list's count. */
static void flush_on_loop(void *arg)
{
    px_iof_hdlr_t *h = arg;
    px_iof_fmt_destroy(h->fmt, true);
    h->fmt = NULL;
    hdlr_unref(h);
}

/* h, unlinked (NULL accepted), no longer reached by new output: what its formatting
 * holds goes to it first, on the loop, after any delivery running now. */
static void drop_hdlr(px_iof_hdlr_t *h)
{
    if (h == NULL) {
        return;
    }
    if (h->fmt == NULL || px_cl.prog == NULL ||
        px_progress_shift(px_cl.prog, flush_on_loop, h) != 0) {
        hdlr_unref(h); /* nothing held, or no loop any more (teardown dropped it) */
    }
}

typedef struct {
    size_t id;
    pmix_hdlr_reg_cbfunc_t regcbfunc;
    void *regcbdata;
} pull_cb_t;

static void pull_reply(pmix_status_t st, pmix_data_buffer_t *reply, void *cbdata)
{
    (void)reply;
    pull_cb_t *p = cbdata;
    if (st != PMIX_SUCCESS) {
        drop_hdlr(hdlr_take(p->id));
    }
    p->regcbfunc(st, st == PMIX_SUCCESS ? p->id : 0, p->regcbdata);
    free(p);
}

PMIX_EXPORT pmix_status_t PMIx_IOF_pull(const pmix_proc_t procs[], size_t nprocs,
                                        const pmix_info_t directives[], size_t ndirs,
                                        pmix_iof_channel_t channel, pmix_iof_cbfunc_t cbfunc,
                                        pmix_hdlr_reg_cbfunc_t regcbfunc, void *regcbdata)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    pmix_iof_channel_t ch = channel & PX_IOF_OUT_CHANNELS;
    if (procs == NULL || nprocs == 0 || ch == 0 || (ndirs > 0 && directives == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    px_iof_fmt_opts_t fo;
    pmix_status_t frc = px_iof_fmt_parse(directives, ndirs, &fo);
    if (frc != PMIX_SUCCESS) {
        return frc;
    }
    px_iof_hdlr_t *h = calloc(1, sizeof(*h));
    pull_cb_t *p = regcbfunc != NULL ? calloc(1, sizeof(*p)) : NULL;
    if (h == NULL || (h->procs = calloc(nprocs, sizeof(*procs))) == NULL ||
        (regcbfunc != NULL && p == NULL)) {
        hdlr_free(h);
        free(p);
        return PMIX_ERR_NOMEM;
    }
    memcpy(h->procs, procs, nprocs * sizeof(*procs));
    h->nprocs = nprocs;
    h->channels = ch;
    h->cbfunc = cbfunc;
    h->refs = 1;
    if (px_iof_fmt_active(&fo) &&
        (h->fmt = px_iof_fmt_create(&fo, px_progress_base(px_cl.prog), fmt_deliver, h)) == NULL) {
        hdlr_free(h);
        free(p);
        return PMIX_ERR_NOMEM;
    }
    pmix_data_buffer_t msg;
    px_bfrops_buf_init(&msg);
    pmix_status_t rc = pack_procs_channels(&msg, procs, nprocs, ch);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(&msg, directives, ndirs);
    }
    if (rc != PMIX_SUCCESS) {
        px_bfrops_buf_free(&msg);
        hdlr_free(h);
        free(p);
        return rc;
    }
    /* The handler serves at once: output that arrives while the server adds our sinks
     * (e.g. a job spawned with PMIX_FWD_* whose sink already exists) already reaches it. */
    pthread_mutex_lock(&iof.lock);
    h->id = iof.next_id++;
    h->next = iof.hdlrs;
    iof.hdlrs = h;
    pthread_mutex_unlock(&iof.lock);
    size_t id = h->id;
    if (p != NULL) {
        *p = (pull_cb_t){id, regcbfunc, regcbdata};
        rc = px_cl_request(PX_TAG_IOF_PULL, &msg, px_cl_timeout_ms(directives, ndirs), pull_reply,
                           p);
        if (rc != PMIX_SUCCESS) {
            free(p);
        }
    } else {
        /* Blocking form: the handler's reference id is the (positive) return value. */
        rc = px_cl_request_wait(PX_TAG_IOF_PULL, &msg, px_cl_timeout_ms(directives, ndirs), NULL);
    }
    px_bfrops_buf_free(&msg);
    if (rc != PMIX_SUCCESS) {
        drop_hdlr(hdlr_take(id));
        return rc;
    }
    return p != NULL ? PMIX_SUCCESS : (pmix_status_t)id;
}

typedef struct {
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
} op_cb_t;

static void op_reply(pmix_status_t st, pmix_data_buffer_t *reply, void *cbdata)
{
    (void)reply;
    op_cb_t *o = cbdata;
    o->cbfunc(st, o->cbdata);
    free(o);
}

/* Send msg: blocking when cbfunc is NULL, else cbfunc later with the server's status. */
static pmix_status_t request(uint32_t tag, pmix_data_buffer_t *msg, int timeout_ms,
                             pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (cbfunc == NULL) {
        return px_cl_request_wait(tag, msg, timeout_ms, NULL);
    }
    op_cb_t *o = malloc(sizeof(*o));
    if (o == NULL) {
        return PMIX_ERR_NOMEM;
    }
    *o = (op_cb_t){cbfunc, cbdata};
    pmix_status_t rc = px_cl_request(tag, msg, timeout_ms, op_reply, o);
    if (rc != PMIX_SUCCESS) {
        free(o);
    }
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_IOF_deregister(size_t iofhdlr, const pmix_info_t directives[],
                                              size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (ndirs > 0 && directives == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    /* From here on nothing more reaches the handler but what its formatting holds. */
    px_iof_hdlr_t *h = hdlr_take(iofhdlr);
    if (h == NULL) {
        return PMIX_ERR_NOT_FOUND;
    }
    pmix_data_buffer_t msg;
    px_bfrops_buf_init(&msg);
    pmix_status_t rc = pack_procs_channels(&msg, h->procs, h->nprocs, h->channels);
    drop_hdlr(h);
    if (rc == PMIX_SUCCESS) {
        rc = request(PX_TAG_IOF_DEREG, &msg, px_cl_timeout_ms(directives, ndirs), cbfunc, cbdata);
    }
    px_bfrops_buf_free(&msg);
    if (rc == PMIX_ERR_UNREACH || rc == PMIX_ERR_LOST_CONNECTION) {
        /* no server, no sinks: the local part is all there was */
        rc = cbfunc == NULL ? PMIX_SUCCESS : PMIX_OPERATION_SUCCEEDED;
    }
    return rc;
}

/* ---- push ---- */

PMIX_EXPORT pmix_status_t PMIx_IOF_push(const pmix_proc_t targets[], size_t ntargets,
                                        pmix_byte_object_t *bo, const pmix_info_t directives[],
                                        size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (ndirs > 0 && directives == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    bool complete = false, own_stdin = false;
    for (size_t i = 0; i < ndirs; i++) {
        if (PMIX_CHECK_KEY(&directives[i], PMIX_IOF_PUSH_STDIN) && PMIX_INFO_TRUE(&directives[i])) {
            own_stdin = true;
        }
        if (PMIX_CHECK_KEY(&directives[i], PMIX_IOF_COMPLETE) && PMIX_INFO_TRUE(&directives[i])) {
            complete = true;
        }
    }
    size_t size = bo != NULL ? bo->size : 0;
    if (own_stdin) {
        /* the library reads our stdin and pushes it to targets (client_iof_stdin.c) */
        if (targets == NULL || ntargets == 0 || complete || size > 0) {
            return PMIX_ERR_BAD_PARAM;
        }
        pmix_status_t rc = px_cl_iof_stdin_start(targets, ntargets);
        if (rc != PMIX_SUCCESS || cbfunc == NULL) {
            return rc;
        }
        return px_progress_op_later(px_cl.prog, cbfunc, cbdata, PMIX_SUCCESS);
    }
    if (complete && size == 0) {
        px_cl_iof_stdin_stop(); /* PMIX_IOF_COMPLETE ends our stdin's forwarding */
    }
    if (targets == NULL || ntargets == 0 || (size == 0 && !complete) ||
        (size > 0 && bo->bytes == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_byte_object_t data = {.bytes = size > 0 ? bo->bytes : NULL, .size = size};
    pmix_data_buffer_t msg;
    px_bfrops_buf_init(&msg);
    pmix_status_t rc = px_bfrops_pack(&msg, &ntargets, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(&msg, targets, (int32_t)ntargets, PMIX_PROC);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(&msg, &data, 1, PMIX_BYTE_OBJECT);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(&msg, directives, ndirs);
    }
    /* bo was copied into msg: the callback only reports the host's answer */
    if (rc == PMIX_SUCCESS) {
        rc = request(PX_TAG_IOF_PUSH, &msg, px_cl_timeout_ms(directives, ndirs), cbfunc, cbdata);
    }
    px_bfrops_buf_free(&msg);
    return rc;
}
