/* launcher: stdin of jobs with backpressure — a push (a tool's PMIx_IOF_push through the
 * push_stdin upcall, or prterun's own stdin) is queued on its target children's stdin
 * pipes, and its completion is held until every target's queue holds less than
 * PX_STDIN_HIGH bytes. Controller loop only.
 *
 * Why: a pusher keeps one push in flight (prun reads its next chunk in the completion), so
 * holding the completion stops it reading, and its own stdin pipe then blocks the
 * producer, as in `producer | consumer`. Without it, a rank that never reads lets the
 * DVM's queue grow at the producer's rate.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "launcher/dvm_int.h"

/* A push completes once each target's queue is below this (bytes); with prun's 64 KiB
 * chunks a queue holds at most PX_STDIN_HIGH + 64 KiB. */
#define PX_STDIN_HIGH (1024 * 1024)

/* A push whose completion waits for room. */
typedef struct px_stdin_wait {
    struct px_stdin_wait *next;
    bool has_source;
    pmix_proc_t source;   /* the tool that pushed (released when it disconnects) */
    pmix_proc_t *targets; /* owned */
    size_t ntargets;
    pmix_op_cbfunc_t cbfunc;
    void *cbdata; /* borrowed: the pusher's */
} px_stdin_wait_t;

/* The child of process r of j when it is still running and a stdin target of j matching
 * rank (or wildcard), else NULL. */
static px_child_t *stdin_target(const px_job_t *j, size_t r, pmix_rank_t rank)
{
    bool target = j->stdin_rank == PMIX_RANK_WILDCARD || j->stdin_rank == r;
    if (!target || (rank != PMIX_RANK_WILDCARD && rank != r)) {
        return NULL;
    }
    return px_job_child(&j->procs[r]);
}

/* Queue bytes on (len > 0), or close (len 0), the stdin of the job's stdin target(s)
 * matching rank. Bytes for a target that is gone are dropped. */
static void job_stdin(px_job_t *j, pmix_rank_t rank, const char *data, size_t len)
{
    for (size_t r = 0; r < j->nprocs; r++) {
        px_child_t *child = stdin_target(j, r, rank);
        if (child == NULL) {
            continue;
        }
        if (len == 0) {
            px_odls_stdin_close(child);
        } else {
            px_odls_stdin_write(child, data, len);
        }
    }
}

static void on_drained(px_child_t *child, int err, void *arg)
{
    (void)child;
    (void)err;
    px_job_stdin_recheck(arg); /* the DVM */
}

/* Is any child of this target at or above the mark? Each such child is asked to tell us
 * when it drains (on_drained), so a full target always has a request pending. */
static bool target_full(px_dvm_t *dvm, const pmix_proc_t *t)
{
    px_job_t *j = px_job_find(dvm, t->nspace);
    bool full = false;
    for (size_t r = 0; j != NULL && r < j->nprocs; r++) {
        px_child_t *child = stdin_target(j, r, t->rank);
        if (child == NULL) {
            continue;
        }
        /* 1: below the mark; -1: its stdin is gone (EPIPE) */
        if (px_odls_stdin_notify(child, PX_STDIN_HIGH, on_drained, dvm) == 0) {
            full = true;
        }
    }
    return full;
}

static bool targets_full(px_dvm_t *dvm, const pmix_proc_t *targets, size_t ntargets)
{
    bool full = false;
    for (size_t i = 0; i < ntargets; i++) {
        full |= target_full(dvm, &targets[i]); /* no shortcut: every full child gets asked */
    }
    return full;
}

/* Completion status: always PMIX_SUCCESS. The bytes were taken: queued, or dropped because
 * their target is gone (closed its stdin, exited, its job ended or the DVM stops) — what
 * PRRTE does too; the job's end event tells the pusher the rest. */
static void wait_release(px_stdin_wait_t *w)
{
    w->cbfunc(PMIX_SUCCESS, w->cbdata);
    free(w->targets);
    free(w);
}

/* Release, in arrival order, the pushes that match: all, those of source, or (source
 * NULL) those with room. They are unlinked before any completion runs, so a completion
 * may push again. */
static void release_matching(px_dvm_t *dvm, const pmix_proc_t *source, bool all)
{
    px_stdin_wait_t *done = NULL, **tail = &done;
    for (px_stdin_wait_t **pp = &dvm->stdin_waiting; *pp != NULL;) {
        px_stdin_wait_t *w = *pp;
        bool go;
        if (all) {
            go = true;
        } else if (source != NULL) {
            go = w->has_source && PMIx_Check_procid(&w->source, source);
        } else {
            go = !targets_full(dvm, w->targets, w->ntargets);
        }
        if (!go) {
            pp = &w->next;
            continue;
        }
        *pp = w->next;
        w->next = NULL;
        *tail = w;
        tail = &w->next;
    }
    while (done != NULL) {
        px_stdin_wait_t *w = done;
        done = w->next;
        wait_release(w);
    }
}

void px_job_stdin_push(px_dvm_t *dvm, const pmix_proc_t *source, const pmix_proc_t *targets,
                       size_t ntargets, const char *data, size_t len, bool complete,
                       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    for (size_t i = 0; i < ntargets; i++) {
        px_job_t *j = px_job_find(dvm, targets[i].nspace);
        if (j == NULL) {
            continue; /* no such job (any more): the bytes are dropped */
        }
        if (len > 0) {
            job_stdin(j, targets[i].rank, data, len);
        }
        if (complete) {
            job_stdin(j, targets[i].rank, NULL, 0);
        }
    }
    if (!targets_full(dvm, targets, ntargets)) {
        cbfunc(PMIX_SUCCESS, cbdata); /* room already: the usual case */
        return;
    }
    px_stdin_wait_t *w = calloc(1, sizeof(*w));
    if (w != NULL) {
        w->targets = calloc(ntargets, sizeof(*targets));
    }
    if (w == NULL || w->targets == NULL) {
        /* cannot wait: complete now (the bytes are queued; this push is just not held) */
        free(w);
        cbfunc(PMIX_SUCCESS, cbdata);
        return;
    }
    memcpy(w->targets, targets, ntargets * sizeof(*targets)); /* full: ntargets > 0 */
    w->ntargets = ntargets;
    w->has_source = source != NULL;
    if (source != NULL) {
        w->source = *source;
    }
    w->cbfunc = cbfunc;
    w->cbdata = cbdata;
    px_stdin_wait_t **pp = &dvm->stdin_waiting;
    while (*pp != NULL) {
        pp = &(*pp)->next;
    }
    *pp = w;
    px_dvm_log(dvm, 3, "stdin push from %s:%u waits for room", source ? source->nspace : "local",
               source ? source->rank : 0);
}

void px_job_stdin_recheck(px_dvm_t *dvm)
{
    release_matching(dvm, NULL, false);
}

void px_job_stdin_forget(px_dvm_t *dvm, const pmix_proc_t *source)
{
    release_matching(dvm, source, false);
}

void px_job_stdin_release_all(px_dvm_t *dvm)
{
    release_matching(dvm, NULL, true);
}
