/*
 * pxh_spawn.c - spawn and stdin in the test host (--spawn). The spawn upcall answers with
 * a new namespace "pxspawn.<node>.<n>" (nothing is started) and then, from the same
 * thread right after its callback, delivers canned output of that job with
 * PMIx_server_IOF_deliver and raises PMIX_EVENT_JOB_END for it: the tool must see the
 * spawn reply, all of the output, then the event. push_stdin echoes what it gets as
 * stdout of the target. The host's own handler logs PMIX_ERR_LOST_CONNECTION (a tool
 * left). Upcalls (progress thread) copy and post; the work runs on the node loop.
 *
 * Canned output (pxt_iof.c checks it byte for byte; keep both in step):
 *   stdout of rank 0: "hello from rank 0\n", 1 MiB of pxh_spawn_byte(i) (delivered
 *                     $PXH_SPAWN_REPEAT times, default 1: the volume test), "no newline at the end"
 *   stderr of rank 1: the 256 byte values 0..255
 *   diag of rank 0:   "diag line\n"
 *   then an empty delivery with PMIX_IOF_COMPLETE on stdout (rank 0) and stderr (rank 1)
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pxh_node.h"

#define PXH_BIG_SIZE (1024 * 1024)

static atomic_int issued, completed, tools_left;
static _Thread_local bool in_deliver;
static int nspawned;

static unsigned char pxh_spawn_byte(size_t i)
{
    return (unsigned char)((i * 131u + (i >> 8) * 7u) & 0xff);
}

/* ---- upcalls (progress thread): copy, post, return ---- */

pmix_status_t pxh_spawn_upcall(const pmix_proc_t *proc, const pmix_info_t job_info[], size_t ninfo,
                               const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
                               void *cbdata)
{
    pxh_reenter("spawn");
    pxh_work_t *w = calloc(1, sizeof(*w));

    if (!w)
        return PMIX_ERR_NOMEM;
    w->kind = PXH_W_SPAWN;
    w->proc = *proc;
    w->info = pxh_info_dup(job_info, ninfo);
    w->ninfo = ninfo;
    w->msg = strdup(napps > 0 && apps[0].cmd ? apps[0].cmd : "?");
    w->status = (int)napps;
    w->cb.spawn = cbfunc;
    w->cbdata = cbdata;
    pxh_node_post(w);
    return PMIX_SUCCESS;
}

pmix_status_t pxh_push_stdin_upcall(const pmix_proc_t *source, const pmix_proc_t targets[],
                                    size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                                    const pmix_byte_object_t *bo, pmix_op_cbfunc_t cbfunc,
                                    void *cbdata)
{
    pxh_reenter("push_stdin");
    pxh_work_t *w = calloc(1, sizeof(*w));

    if (!w)
        return PMIX_ERR_NOMEM;
    if (bo == NULL) {
        pxh_host_error("push_stdin upcall without a byte object");
        free(w);
        return PMIX_ERR_BAD_PARAM;
    }
    w->kind = PXH_W_PUSH;
    w->proc = *source;
    w->procs = calloc(ntargets ? ntargets : 1, sizeof(pmix_proc_t));
    memcpy(w->procs, targets, ntargets * sizeof(pmix_proc_t));
    w->nprocs = ntargets;
    w->info = pxh_info_dup(directives, ndirs);
    w->ninfo = ndirs;
    w->ndata = bo->size;
    w->data = malloc(bo->size ? bo->size : 1);
    if (bo->size)
        memcpy(w->data, bo->bytes, bo->size);
    w->cb.op = cbfunc;
    w->cbdata = cbdata;
    pxh_node_post(w);
    return PMIX_SUCCESS;
}

/* ---- delivering (node loop) ---- */

typedef struct {
    pmix_byte_object_t bo; /* owned */
    pmix_info_t *info;     /* owned */
    size_t ninfo;
} held_t;

static void delivered(pmix_status_t status, void *cbdata)
{
    held_t *h = cbdata;

    if (in_deliver)
        pxh_host_error("PMIx_server_IOF_deliver called its callback inside the call");
    if (status != PMIX_SUCCESS)
        pxh_host_error("PMIx_server_IOF_deliver callback: %s", PMIx_Error_string(status));
    atomic_fetch_add(&completed, 1);
    free(h->bo.bytes);
    if (h->info)
        PMIx_Info_free(h->info, h->ninfo);
    free(h);
}

/* Deliver a copy of bytes (kept until the callback); with copy_mode the blocking form
 * (NULL callback) on a stack buffer instead. */
static void deliver(const pmix_proc_t *src, pmix_iof_channel_t ch, const void *bytes, size_t n,
                    bool complete, bool copy_mode)
{
    pmix_status_t rc;
    bool yes = true;

    if (copy_mode) {
        char tmp[256];
        pmix_byte_object_t bo = {tmp, n};
        pmix_info_t info;

        if (n > sizeof(tmp)) {
            pxh_host_error("copy-mode delivery too large");
            return;
        }
        if (n > 0) {
            memcpy(tmp, bytes, n);
        }
        PMIX_INFO_LOAD(&info, PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
        rc = PMIx_server_IOF_deliver(src, ch, &bo, complete ? &info : NULL, complete ? 1 : 0, NULL,
                                     NULL);
        memset(tmp, 'X', sizeof(tmp)); /* the library must have taken its copy */
        PMIX_INFO_DESTRUCT(&info);
        if (rc != PMIX_OPERATION_SUCCEEDED)
            pxh_host_error("blocking PMIx_server_IOF_deliver: %s", PMIx_Error_string(rc));
        return;
    }
    held_t *h = calloc(1, sizeof(*h));
    h->bo.bytes = malloc(n ? n : 1);
    h->bo.size = n;
    if (n)
        memcpy(h->bo.bytes, bytes, n);
    if (complete) {
        h->info = PMIx_Info_create(1);
        h->ninfo = 1;
        PMIX_INFO_LOAD(&h->info[0], PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
    }
    atomic_fetch_add(&issued, 1);
    in_deliver = true;
    rc = PMIx_server_IOF_deliver(src, ch, &h->bo, h->info, h->ninfo, delivered, h);
    in_deliver = false;
    if (rc != PMIX_SUCCESS) {
        pxh_host_error("PMIx_server_IOF_deliver: %s", PMIx_Error_string(rc));
        atomic_fetch_sub(&issued, 1);
        delivered(PMIX_SUCCESS, h);
        atomic_fetch_sub(&completed, 1);
    }
}

static void event_done(pmix_status_t status, void *cbdata)
{
    pmix_info_t *info = cbdata;

    (void)status;
    PMIx_Info_free(info, 2);
}

static void spawn_work(pxh_work_t *w)
{
    char ns[PMIX_MAX_NSLEN + 1];
    pmix_proc_t r0, r1, rm, job;
    pmix_info_t *info;
    unsigned char *big, all[256];
    int32_t zero = 0;

    snprintf(ns, sizeof(ns), "pxspawn.%d.%d", pxh_node.id, nspawned++);
    fprintf(stderr, "pxhost: node %d: spawn from %s:%u: %d app(s), cmd %s -> %s\n", pxh_node.id,
            w->proc.nspace, w->proc.rank, w->status, w->msg, ns);
    w->cb.spawn(PMIX_SUCCESS, ns, w->cbdata);
    /* right after the callback, from the same thread: the job's output */
    PMIx_Load_procid(&r0, ns, 0);
    PMIx_Load_procid(&r1, ns, 1);
    deliver(&r0, PMIX_FWD_STDOUT_CHANNEL, "hello from rank 0\n", 18, false, false);
    for (int i = 0; i < 256; i++)
        all[i] = (unsigned char)i;
    deliver(&r1, PMIX_FWD_STDERR_CHANNEL, all, sizeof(all), false, false);
    big = malloc(PXH_BIG_SIZE);
    for (size_t i = 0; i < PXH_BIG_SIZE; i++)
        big[i] = pxh_spawn_byte(i);
    const char *rep = getenv("PXH_SPAWN_REPEAT");
    for (int k = rep ? atoi(rep) : 1; k > 0; k--)
        deliver(&r0, PMIX_FWD_STDOUT_CHANNEL, big, PXH_BIG_SIZE, false, false);
    free(big);
    deliver(&r0, PMIX_FWD_STDOUT_CHANNEL, "no newline at the end", 21, false, true);
    deliver(&r0, PMIX_FWD_STDDIAG_CHANNEL, "diag line\n", 10, false, false);
    deliver(&r0, PMIX_FWD_STDOUT_CHANNEL, NULL, 0, true, false);
    deliver(&r1, PMIX_FWD_STDERR_CHANNEL, NULL, 0, true, true);
    /* then the end of the job, which the tool must see after all of it */
    PMIx_Load_procid(&rm, "pxhost-rm", 0);
    PMIx_Load_procid(&job, ns, PMIX_RANK_WILDCARD);
    info = PMIx_Info_create(2);
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_AFFECTED_PROC, &job, PMIX_PROC);
    PMIX_INFO_LOAD(&info[1], PMIX_JOB_TERM_STATUS, &zero, PMIX_STATUS);
    if (PMIx_Notify_event(PMIX_EVENT_JOB_END, &rm, PMIX_RANGE_LOCAL, info, 2, event_done, info) !=
        PMIX_SUCCESS) {
        pxh_host_error("PMIx_Notify_event(JOB_END) failed");
        PMIx_Info_free(info, 2);
    }
}

static void push_work(pxh_work_t *w)
{
    bool complete = false;

    for (size_t i = 0; i < w->ninfo; i++)
        if (PMIX_CHECK_KEY(&w->info[i], PMIX_IOF_COMPLETE))
            complete = PMIX_INFO_TRUE(&w->info[i]);
    fprintf(stderr, "pxhost: node %d: push_stdin from %s:%u to %s:%u: %zu bytes, complete %s\n",
            pxh_node.id, w->proc.nspace, w->proc.rank, w->nprocs ? w->procs[0].nspace : "?",
            w->nprocs ? w->procs[0].rank : 0, w->ndata, complete ? "yes" : "no");
    /* echo it as the target's stdout */
    if (w->nprocs > 0)
        deliver(&w->procs[0], PMIX_FWD_STDOUT_CHANNEL, w->data, w->ndata, complete, false);
    if (w->cb.op)
        w->cb.op(PMIX_SUCCESS, w->cbdata);
}

void pxh_spawn_work(pxh_work_t *w)
{
    if (w->kind == PXH_W_SPAWN)
        spawn_work(w);
    else
        push_work(w);
    pxh_work_free(w);
}

/* ---- tools leaving ---- */

static void lost_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                         pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                         pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    const pmix_proc_t *affected = NULL;
    const char *text = "";

    (void)id;
    (void)results;
    (void)nresults;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC)
            affected = info[i].value.data.proc;
        else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_TEXT_MESSAGE) &&
                 info[i].value.type == PMIX_STRING)
            text = info[i].value.data.string;
    }
    fprintf(stderr, "pxhost: node %d: %s from %s:%u affected %s:%u (%s)\n", pxh_node.id,
            PMIx_Error_string(status), source->nspace, source->rank,
            affected ? affected->nspace : "none", affected ? affected->rank : 0, text);
    if (affected != NULL)
        atomic_fetch_add(&tools_left, 1);
    if (cbfunc)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

void pxh_spawn_init(void)
{
    pmix_status_t code = PMIX_ERR_LOST_CONNECTION, rc;

    if (!pxh_opts.spawn)
        return;
    rc = PMIx_Register_event_handler(&code, 1, NULL, 0, lost_handler, NULL, NULL);
    if (rc < 0)
        pxh_host_error("PMIx_Register_event_handler(LOST_CONNECTION): %s", PMIx_Error_string(rc));
}

void pxh_spawn_wait_tools(void)
{
    for (int i = 0; pxh_opts.spawn && i < 1000; i++) {
        if (atomic_load(&tools_left) >= pxh_tools_approved())
            return;
        usleep(10000);
    }
}

void pxh_spawn_check(void)
{
    if (atomic_load(&issued) != atomic_load(&completed))
        pxh_host_error("%d PMIx_server_IOF_deliver calls, %d callbacks", atomic_load(&issued),
                       atomic_load(&completed));
}
