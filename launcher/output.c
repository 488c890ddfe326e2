/* launcher: a job's output on its way out. A job of this process (prterun) writes it to
 * our own stdout/stderr. A requester's job hands it to the server library
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
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix_server.h>

#include "launcher/dvm_int.h"

/* Bytes of one process in the library's hands above which its pipes are not read, and
 * at or below which they are read again. */
#define PX_OUT_HIGH (4u * 1024 * 1024)
#define PX_OUT_LOW  (1024u * 1024)
/* Large pieces (an eighth of a block up to a block: what a busy writer's pipe gives)
 * are copied into blocks that are kept for reuse (at most PX_OUT_POOL of them): fresh
 * memory for each costs page faults that take longer than the copy itself. Smaller
 * pieces get just their size. */
#define PX_OUT_BLOCK_DATA (1024u * 1024)
#define PX_OUT_POOL       4

struct px_dlv {
    struct px_dlv *prev, *next; /* the in-flight list, or next = the held list */
    pmix_proc_t source;
    int channel;
    pmix_byte_object_t bo; /* points at data */
    size_t cap;            /* bytes of data */
    char data[] __attribute__((aligned(64)));
};

static struct {
    px_dlv_t *inflight;          /* in the library's hands */
    px_dlv_t *pool[PX_OUT_POOL]; /* free blocks of PX_OUT_BLOCK_DATA bytes */
    size_t npool;
} out; /* loop only */

static px_dlv_t *dlv_alloc(size_t len)
{
    bool block = len > PX_OUT_BLOCK_DATA / 8 && len <= PX_OUT_BLOCK_DATA;
    if (block && out.npool > 0) {
        return out.pool[--out.npool];
    }
    px_dlv_t *d;
    size_t cap = block ? PX_OUT_BLOCK_DATA : len;
    if (posix_memalign((void **)&d, 64, offsetof(px_dlv_t, data) + cap) != 0) {
        return NULL;
    }
    d->cap = cap;
    return d;
}

static void dlv_free(px_dlv_t *d)
{
    if (d->cap == PX_OUT_BLOCK_DATA && out.npool < PX_OUT_POOL) {
        out.pool[out.npool++] = d;
    } else {
        free(d);
    }
}

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

static void set_paused(px_proc_t *p, bool pause)
{
    p->out_paused = pause;
    if (p->child != NULL) {
        px_odls_output_pause(p->child, pause);
    }
}

/* d is out of the library's hands (or never reached it): count it off its process. */
static void dlv_finish(px_dlv_t *d)
{
    px_proc_t *p = px_job_proc(&d->source); /* NULL once the job is gone */
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
        out.inflight = d->next;
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
    px_dvm_shift(dlv_done_on_loop, cbdata);
}

static void dlv_send(px_dlv_t *d)
{
    d->prev = NULL;
    d->next = out.inflight;
    if (out.inflight != NULL) {
        out.inflight->prev = d;
    }
    out.inflight = d;
    pmix_status_t rc = PMIx_server_IOF_deliver(&d->source, (pmix_iof_channel_t)d->channel, &d->bo,
                                               NULL, 0, dlv_done, d);
    if (rc != PMIX_SUCCESS) {
        unlink_inflight(d);
        dlv_finish(d);
    }
}

void px_out_emit(int channel, const char *data, size_t len, void *arg)
{
    px_proc_t *p = arg;
    px_job_t *j = p->job;
    if (j->local) {
        write_full(channel == PMIX_FWD_STDERR_CHANNEL ? 2 : 1, data, len);
        return;
    }
    px_dlv_t *d = dlv_alloc(len);
    if (d == NULL) {
        return;
    }
    d->source = p->proc;
    d->channel = channel;
    d->bo.bytes = d->data;
    d->bo.size = len;
    memcpy(d->data, data, len);
    p->out_pending += len;
    if (!p->out_paused && p->out_pending > PX_OUT_HIGH) {
        set_paused(p, true);
    }
    if (j->spawn_cb != NULL) {
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

void px_out_fini(void)
{
    /* The library is finalized and the loop has stopped: completions still shifted are
     * dropped with the DVM's progress engine (after this), and what the library dropped
     * unsent will never be called back. Either way the piece is still in flight. */
    while (out.inflight != NULL) {
        px_dlv_t *d = out.inflight;
        out.inflight = d->next;
        free(d);
    }
    while (out.npool > 0) {
        free(out.pool[--out.npool]);
    }
}
