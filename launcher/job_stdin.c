/* launcher: stdin of jobs with backpressure — a push (a tool's PMIx_IOF_push through the
 * push_stdin upcall, or prterun's own stdin) goes to each target process's daemon as a
 * STDIN request, and its completion is held until every such daemon has answered, which
 * it does once that process's stdin queue holds less than its mark (docs/PROTOCOL.md).
 * Controller loop only.
 *
 * Why: a pusher keeps one push in flight (prun reads its next chunk in the completion), so
 * holding the completion stops it reading, and its own stdin pipe then blocks the
 * producer, as in `producer | consumer`. Without it, a rank that never reads lets a
 * daemon's queue grow at the producer's rate.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "launcher/dvm_int.h"
#include "launcher/px_daemons.h"

/* A push waiting for a target job's launch (held: its bytes and targets copied), or for
 * its daemons' answers. Freed when the last answer came; its completion may run before
 * (released: its tool left, or the DVM finalizes). */
struct px_stdin_push {
    px_stdin_push_t *next;
    px_dvm_t *dvm;
    bool has_source;
    pmix_proc_t source;   /* the tool that pushed */
    size_t waiting;       /* requests not answered yet */
    bool held;            /* a target job is not launched yet: nothing sent */
    pmix_proc_t *targets; /* owned while held */
    size_t ntargets;
    char *data; /* owned copy while held */
    size_t len;
    bool complete;
    pmix_op_cbfunc_t cbfunc; /* NULL once called */
    void *cbdata;            /* borrowed: the pusher's */
};

static void push_complete(px_stdin_push_t *w)
{
    if (w->cbfunc != NULL) {
        pmix_op_cbfunc_t cb = w->cbfunc;
        w->cbfunc = NULL;
        cb(PMIX_SUCCESS, w->cbdata);
    }
}

static void push_unlink_free(px_stdin_push_t *w)
{
    for (px_stdin_push_t **pp = &w->dvm->stdin_pushes; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == w) {
            *pp = w->next;
            break;
        }
    }
    free(w->targets);
    free(w->data);
    free(w);
}

/* Append w to the DVM's pushes (arrival order). */
static void push_link(px_stdin_push_t *w)
{
    px_stdin_push_t **pp = &w->dvm->stdin_pushes;
    while (*pp != NULL) {
        pp = &(*pp)->next;
    }
    w->next = NULL;
    *pp = w;
}

/* A daemon's answer (or its loss): the bytes were taken or dropped. */
static void on_answer(unsigned id, pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    (void)id;
    (void)status;
    (void)reply;
    px_stdin_push_t *w = cbdata;
    if (--w->waiting == 0) {
        push_complete(w);
        push_unlink_free(w);
    }
}

/* One STDIN request to rank's daemon: data, or (len 0) the end of input. */
static void send_stdin(px_stdin_push_t *w, px_job_t *j, pmix_rank_t rank, const char *data,
                       size_t len)
{
    pmix_proc_t target;
    PMIx_Load_procid(&target, j->nspace, rank);
    pmix_data_buffer_t buf;
    px_bfrops_buf_init(&buf);
    if (px_dp_stdin_pack(&buf, &target, data, len) == PMIX_SUCCESS &&
        px_daemons_request(w->dvm->daemons, px_job_node(j, rank), PX_DP_STDIN, &buf, on_answer,
                           w) == 0) {
        w->waiting++;
    }
    px_bfrops_buf_free(&buf);
}

/* Bytes (len > 0) and / or the end of input to the job's stdin target(s) matching
 * rank that still run. Bytes for a target that is gone are dropped. */
static void job_stdin(px_stdin_push_t *w, px_job_t *j, pmix_rank_t rank, const char *data,
                      size_t len, bool complete)
{
    for (size_t r = 0; r < j->nprocs; r++) {
        bool target = j->stdin_rank == PMIX_RANK_WILDCARD || j->stdin_rank == r;
        px_proc_state_t st = j->procs[r].state;
        if (!target || (rank != PMIX_RANK_WILDCARD && rank != r) ||
            (st != PX_PROC_STARTING && st != PX_PROC_RUNNING)) {
            continue;
        }
        if (len > 0) {
            send_stdin(w, j, (pmix_rank_t)r, data, len);
        }
        if (complete) {
            send_stdin(w, j, (pmix_rank_t)r, NULL, 0);
        }
    }
}

/* A job a push must wait for: there, not launched yet, not ending. */
static bool unlaunched(px_dvm_t *dvm, const pmix_proc_t *target)
{
    px_job_t *j = px_job_find(dvm, target->nspace);
    return j != NULL && !j->launched && !px_job_ending(j);
}

/* Send w's requests (w is linked); it completes and goes when there is nothing to wait
 * for. */
static void push_send(px_stdin_push_t *w, const pmix_proc_t *targets, size_t ntargets,
                      const char *data, size_t len, bool complete)
{
    for (size_t i = 0; i < ntargets; i++) {
        px_job_t *j = px_job_find(w->dvm, targets[i].nspace);
        if (j != NULL && j->launched) {
            job_stdin(w, j, targets[i].rank, data, len, complete);
        }
    }
    if (w->waiting == 0) {
        push_complete(w); /* no live target: nothing to wait for */
        push_unlink_free(w);
        return;
    }
    px_dvm_log(w->dvm, 3, "stdin push from %s:%u waits for %zu answers",
               w->has_source ? w->source.nspace : "local", w->has_source ? w->source.rank : 0,
               w->waiting);
}

pmix_status_t px_job_stdin_check(px_dvm_t *dvm, const pmix_proc_t *targets, size_t ntargets)
{
    for (size_t i = 0; i < ntargets; i++) {
        px_job_t *j = px_job_find(dvm, targets[i].nspace);
        pmix_rank_t r = targets[i].rank;
        if (j == NULL || (r != PMIX_RANK_WILDCARD && r >= j->nprocs)) {
            px_dvm_log(dvm, 1, "stdin for %s:%u refused: no such process", targets[i].nspace, r);
            return PMIX_ERR_NOT_FOUND;
        }
        if (j->stdin_rank == PMIX_RANK_INVALID ||
            (r != PMIX_RANK_WILDCARD && j->stdin_rank != PMIX_RANK_WILDCARD &&
             j->stdin_rank != r)) {
            px_dvm_log(dvm, 1, "stdin for %s:%u refused: its stdin was not kept open", j->nspace,
                       r);
            return PMIX_ERR_NOT_SUPPORTED;
        }
    }
    return PMIX_SUCCESS;
}

void px_job_stdin_push(px_dvm_t *dvm, const pmix_proc_t *source, const pmix_proc_t *targets,
                       size_t ntargets, const char *data, size_t len, bool complete,
                       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    px_stdin_push_t *w = calloc(1, sizeof(*w));
    if (w == NULL) {
        cbfunc(PMIX_SUCCESS, cbdata); /* cannot even send: the bytes are dropped */
        return;
    }
    w->dvm = dvm;
    w->has_source = source != NULL;
    if (source != NULL) {
        w->source = *source;
    }
    w->cbfunc = cbfunc;
    w->cbdata = cbdata;
    push_link(w);
    /* held while a target job is not launched yet, or an earlier push is held: its
     * processes get the bytes once they exist, in the order pushed */
    bool hold = false;
    for (px_stdin_push_t *o = dvm->stdin_pushes; o != w && !hold; o = o->next) {
        hold = o->held;
    }
    for (size_t i = 0; i < ntargets && !hold; i++) {
        hold = unlaunched(dvm, &targets[i]);
    }
    if (hold) {
        w->targets = calloc(ntargets ? ntargets : 1, sizeof(*targets));
        w->data = len > 0 ? malloc(len) : NULL;
        if (w->targets != NULL && (len == 0 || w->data != NULL)) {
            memcpy(w->targets, targets, ntargets * sizeof(*targets));
            w->ntargets = ntargets;
            if (len > 0) {
                memcpy(w->data, data, len);
            }
            w->len = len;
            w->complete = complete;
            w->held = true;
            px_dvm_log(dvm, 3, "stdin push from %s:%u held until its job is launched",
                       source ? source->nspace : "local", source ? source->rank : 0);
            return;
        }
        /* cannot copy: sent to what exists now */
    }
    push_send(w, targets, ntargets, data, len, complete);
}

void px_job_stdin_launched(px_dvm_t *dvm)
{
    for (px_stdin_push_t *w = dvm->stdin_pushes, *next; w != NULL; w = next) {
        next = w->next;
        if (!w->held) {
            continue;
        }
        for (size_t i = 0; i < w->ntargets; i++) {
            if (unlaunched(dvm, &w->targets[i])) {
                return; /* still waiting; the later ones wait behind it */
            }
        }
        w->held = false;
        pmix_proc_t *targets = w->targets;
        char *data = w->data;
        w->targets = NULL;
        w->data = NULL;
        push_send(w, targets, w->ntargets, data, w->len, w->complete); /* may free w */
        free(targets);
        free(data);
    }
}

/* Complete now the pushes that match (all, or those of source); their answers are
 * still awaited. Completions may push again: they run after the walk. */
static void release_matching(px_dvm_t *dvm, const pmix_proc_t *source, bool all)
{
    size_t n = 0;
    for (px_stdin_push_t *w = dvm->stdin_pushes; w != NULL; w = w->next) {
        n++;
    }
    px_stdin_push_t **go = calloc(n ? n : 1, sizeof(*go));
    size_t k = 0;
    for (px_stdin_push_t *w = dvm->stdin_pushes; go != NULL && w != NULL; w = w->next) {
        if (w->cbfunc != NULL &&
            (all || (w->has_source && PMIx_Check_procid(&w->source, source)))) {
            go[k++] = w;
        }
    }
    for (size_t i = 0; i < k; i++) {
        push_complete(go[i]);
    }
    free(go);
}

/* Held pushes that were released are dropped (nothing was sent for them). */
static void drop_released_held(px_dvm_t *dvm)
{
    for (px_stdin_push_t *w = dvm->stdin_pushes, *next; w != NULL; w = next) {
        next = w->next;
        if (w->held && w->cbfunc == NULL) {
            push_unlink_free(w);
        }
    }
}

void px_job_stdin_forget(px_dvm_t *dvm, const pmix_proc_t *source)
{
    release_matching(dvm, source, false);
    drop_released_held(dvm);
}

void px_job_stdin_release_all(px_dvm_t *dvm)
{
    release_matching(dvm, NULL, true);
    drop_released_held(dvm);
}
