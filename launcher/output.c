/* launcher: a job's output on its way out. A job of this process (prterun) goes to the
 * in-process sink: our own stdout/stderr, made non-blocking and written when writable,
 * so the loop never blocks on a reader that does not read; the rest is written at
 * destroy. A requester's job hands it to the server library
 * (PMIx_server_IOF_deliver), held while the spawn is unanswered; each piece is copied
 * once, into a cache-line-aligned block that the library sends from directly.
 *
 * Flow control: every process's bytes in the library's hands are counted. Above
 * PX_OUT_HIGH its pipes are no longer read, so the process blocks in write as it would
 * on a full pipe into `cat`; at PX_OUT_LOW they are read again. The library calls back
 * once a piece was written to every sink's socket (or dropped with a sink that left),
 * on its own thread; those completions are shifted to the loop (px_dvm_shift).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "launcher/dvm_int.h"
#include "server/px_srv_host.h"

/* Bytes of one process in the library's hands above which its pipes are not read, and
 * at or below which they are read again. */
#define PX_OUT_HIGH (4u * 1024 * 1024)
#define PX_OUT_LOW  (1024u * 1024)
/* Large pieces (an eighth of a block up to a block: what a busy writer's pipe gives)
 * are copied into blocks that are kept for reuse (at most PX_OUT_POOL of them): fresh
 * memory for each costs page faults that take longer than the copy itself. Smaller
 * pieces get just their size. */
#define PX_OUT_BLOCK_DATA (1024u * 1024)

struct px_dlv {
    struct px_dlv *prev, *next; /* the in-flight list, or next = the held list */
    px_dvm_t *dvm;              /* borrowed: whose pool and in-flight list */
    pmix_proc_t source;
    int channel;
    pmix_byte_object_t bo; /* points at data */
    size_t cap;            /* bytes of data */
    bool host_sink;        /* a copy of what this process prints (PX_IOF_HOST_SINK) */
    char data[] __attribute__((aligned(64)));
};

/* The info of a copy for tools of what this process prints: no tool may hold it back. */
static const pmix_info_t host_sink_info = {.key = PX_IOF_HOST_SINK,
                                           .value = {.type = PMIX_BOOL, .data = {.flag = true}}};

/* The DVM's in-flight list and pool of blocks: dvm->out_* (loop only). */

static px_dlv_t *dlv_alloc(px_dvm_t *dvm, size_t len)
{
    bool block = len > PX_OUT_BLOCK_DATA / 8 && len <= PX_OUT_BLOCK_DATA;
    if (block && dvm->out_npool > 0) {
        px_dlv_t *d = dvm->out_pool[--dvm->out_npool];
        d->dvm = dvm;
        return d;
    }
    px_dlv_t *d;
    size_t cap = block ? PX_OUT_BLOCK_DATA : len;
    if (posix_memalign((void **)&d, 64, offsetof(px_dlv_t, data) + cap) != 0) {
        return NULL;
    }
    d->cap = cap;
    d->dvm = dvm;
    return d;
}

static void dlv_free(px_dlv_t *d)
{
    px_dvm_t *dvm = d->dvm;
    if (d->cap == PX_OUT_BLOCK_DATA && dvm->out_npool < PX_OUT_POOL) {
        dvm->out_pool[dvm->out_npool++] = d;
    } else {
        free(d);
    }
}

/* Blocking (regular files, and the flush at destroy). */
static void write_full(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return; /* our own stdout is gone: nothing else to do with it */
        }
        data += n;
        len -= (size_t)n;
    }
}

/* Tell the process's daemon to stop (resume) reading its output (IOF_FLOW). */
static void set_paused(px_proc_t *p, bool pause)
{
    p->out_paused = pause;
    pmix_data_buffer_t buf;
    px_bfrops_buf_init(&buf);
    if (p->state != PX_PROC_DONE && px_dp_flow_pack(&buf, &p->proc, pause) == PMIX_SUCCESS) {
        px_job_to_daemons(p->job->dvm, p->job, p->proc.rank, PX_DP_IOF_FLOW, &buf);
    }
    px_bfrops_buf_free(&buf);
}

/* d is out of the library's hands (or never reached it): count it off its process. */
static void dlv_finish(px_dlv_t *d)
{
    px_proc_t *p = px_job_proc(d->dvm, &d->source); /* NULL once the job is gone */
    if (p != NULL) {
        p->out_pending -= d->bo.size;
        if (p->out_paused && p->out_pending <= PX_OUT_LOW) {
            set_paused(p, false);
        }
    }
    dlv_free(d);
}

static void unlink_inflight(px_dlv_t *d)
{
    if (d->prev != NULL) {
        d->prev->next = d->next;
    } else {
        d->dvm->out_inflight = d->next;
    }
    if (d->next != NULL) {
        d->next->prev = d->prev;
    }
}

static void dlv_done_on_loop(void *arg)
{
    px_dlv_t *d = arg;
    unlink_inflight(d);
    dlv_finish(d);
}

/* The library's callback, on its thread. A completion that cannot be shifted (out of
 * memory, the DVM finalizing) leaves d in flight: px_out_fini frees it. */
static void dlv_done(pmix_status_t status, void *cbdata)
{
    (void)status;
    px_dlv_t *d = cbdata;
    px_dvm_shift(d->dvm, dlv_done_on_loop, d);
}

static void dlv_send(px_dlv_t *d)
{
    d->prev = NULL;
    px_dvm_t *dvm = d->dvm;
    d->next = dvm->out_inflight;
    if (dvm->out_inflight != NULL) {
        dvm->out_inflight->prev = d;
    }
    dvm->out_inflight = d;
    pmix_status_t rc = PMIx_server_IOF_deliver(&d->source, (pmix_iof_channel_t)d->channel, &d->bo,
                                               d->host_sink ? &host_sink_info : NULL,
                                               d->host_sink ? 1 : 0, dlv_done, d);
    if (rc != PMIX_SUCCESS) {
        unlink_inflight(d);
        dlv_finish(d);
    }
}

/* ---- the in-process sink ---- */

/* One of our own fds (1, 2) as a sink: pieces queued in order, counted like those in
 * the library's hands (flow control pauses the writers), written when it is writable. */
struct px_out_sink {
    px_dvm_t *dvm; /* borrowed */
    int fd;
    int flags;        /* its file status flags before we set O_NONBLOCK, restored */
    struct event *ev; /* EV_WRITE while the queue is not empty */
    bool polled;      /* ev is added */
    bool blocking;    /* the fd cannot be polled (a regular file): plain writes */
    bool broken;      /* nobody reads it any more (EPIPE...): pieces are dropped */
    px_dlv_t *head, *tail;
    size_t off; /* bytes of head written */
};

static void sink_drop_all(px_out_sink_t *s)
{
    while (s->head != NULL) {
        px_dlv_t *d = s->head;
        s->head = d->next;
        dlv_finish(d);
    }
    s->tail = NULL;
    s->off = 0;
}

/* Write what the fd takes now; wait for it to be writable for the rest. */
static void sink_drain(px_out_sink_t *s)
{
    while (s->head != NULL) {
        px_dlv_t *d = s->head;
        if (s->blocking) {
            write_full(s->fd, d->data + s->off, d->bo.size - s->off);
            s->off = d->bo.size;
        } else {
            ssize_t n = write(s->fd, d->data + s->off, d->bo.size - s->off);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                if (s->polled || event_add(s->ev, NULL) == 0) {
                    s->polled = true;
                    return; /* sink_writable goes on */
                }
                s->blocking = true; /* cannot be polled: write it plainly */
                continue;
            }
            if (n <= 0) {
                s->broken = true; /* our own output is gone: nothing else to do with it */
                sink_drop_all(s);
                break;
            }
            s->off += (size_t)n;
        }
        if (s->off == d->bo.size) {
            s->head = d->next;
            if (s->head == NULL) {
                s->tail = NULL;
            }
            s->off = 0;
            dlv_finish(d);
        }
    }
    if (s->head == NULL && s->polled) {
        event_del(s->ev);
        s->polled = false;
    }
}

static void sink_writable(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    sink_drain(arg);
}

static px_out_sink_t *sink_get(px_dvm_t *dvm, int channel)
{
    int i = channel == PMIX_FWD_STDERR_CHANNEL ? 1 : 0;
    if (dvm->out_sink[i] != NULL) {
        return dvm->out_sink[i];
    }
    px_out_sink_t *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return NULL;
    }
    s->dvm = dvm;
    s->fd = i + 1;
    s->flags = fcntl(s->fd, F_GETFL);
    s->ev = event_new(dvm->base, s->fd, EV_WRITE | EV_PERSIST, sink_writable, s);
    if (s->ev == NULL) {
        free(s);
        return NULL;
    }
    struct stat st;
    s->blocking = s->flags < 0 || (fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode)) ||
                  fcntl(s->fd, F_SETFL, s->flags | O_NONBLOCK) != 0;
    dvm->out_sink[i] = s;
    return s;
}

static void sink_push(px_out_sink_t *s, px_dlv_t *d)
{
    if (s->broken) {
        dlv_finish(d);
        return;
    }
    d->next = NULL;
    bool idle = s->head == NULL;
    if (s->tail != NULL) {
        s->tail->next = d;
    } else {
        s->head = d;
    }
    s->tail = d;
    if (idle) {
        sink_drain(s);
    }
}

/* After the loop: write what is still queued (blocking), restore the fd's flags. */
static void sink_destroy(px_out_sink_t *s)
{
    if (s == NULL) {
        return;
    }
    if (s->flags >= 0) {
        fcntl(s->fd, F_SETFL, s->flags);
    }
    s->blocking = true;
    if (!s->broken) {
        sink_drain(s);
    }
    sink_drop_all(s);
    event_free(s->ev);
    free(s);
}

/* One piece of p's output, copied and counted: to sink (this process's stdout/stderr),
 * else to the server library (held while the spawn is unanswered). */
static void out_piece(px_proc_t *p, int channel, const char *data, size_t len, px_out_sink_t *sink,
                      bool host_sink)
{
    px_job_t *j = p->job;
    px_dlv_t *d = dlv_alloc(j->dvm, len);
    if (d == NULL) {
        return;
    }
    d->host_sink = host_sink;
    d->source = p->proc;
    d->channel = channel;
    d->bo.bytes = d->data;
    d->bo.size = len;
    memcpy(d->data, data, len);
    p->out_pending += len;
    if (!p->out_paused && p->out_pending > PX_OUT_HIGH) {
        set_paused(p, true);
    }
    if (sink != NULL) {
        sink_push(sink, d);
        return;
    }
    if (j->spawn_cb != NULL || px_dbg_out_held(j)) { /* until its spawn is answered */
        d->next = NULL;
        if (j->held_tail != NULL) {
            j->held_tail->next = d;
        } else {
            j->held = d;
        }
        j->held_tail = d;
        return;
    }
    dlv_send(d);
}

void px_out_emit(int channel, const char *data, size_t len, void *arg)
{
    px_proc_t *p = arg;
    px_job_t *j = p->job;
    if (!j->local && !j->out_here) {
        out_piece(p, channel, data, len, NULL, false);
        return;
    }
    /* printed here; a copy for a tool that pulls it (PMIX_IOF_COPY, dvm_iof.c), or the
     * tool's instead while its pull with PMIX_IOF_REDIRECT lasts (then the tool alone
     * paces it, as for a requester's job) */
    if (px_srv_iof_wanted(&p->proc, (pmix_iof_channel_t)channel)) {
        bool taken = px_srv_iof_redirected(&p->proc, (pmix_iof_channel_t)channel);
        out_piece(p, channel, data, len, NULL, !taken);
        if (taken) {
            return;
        }
    }
    px_out_sink_t *sink = sink_get(j->dvm, channel);
    if (sink == NULL) {
        write_full(channel == PMIX_FWD_STDERR_CHANNEL ? 2 : 1, data, len);
        return;
    }
    out_piece(p, channel, data, len, sink, false);
}

void px_out_flush_held(px_job_t *j, bool drop)
{
    px_dlv_t *d = j->held;
    j->held = j->held_tail = NULL;
    while (d != NULL) {
        px_dlv_t *next = d->next;
        if (drop) {
            dlv_finish(d);
        } else {
            dlv_send(d);
        }
        d = next;
    }
}

void px_out_fini(px_dvm_t *dvm)
{
    for (int i = 0; i < 2; i++) {
        sink_destroy(dvm->out_sink[i]);
        dvm->out_sink[i] = NULL;
    }
    /* The library is finalized and the loop has stopped: completions still shifted are
     * dropped with the DVM's progress engine (after this), and what the library dropped
     * unsent will never be called back. Either way the piece is still in flight. */
    while (dvm->out_inflight != NULL) {
        px_dlv_t *d = dvm->out_inflight;
        dvm->out_inflight = d->next;
        free(d);
    }
    while (dvm->out_npool > 0) {
        free(dvm->out_pool[--dvm->out_npool]);
    }
}
