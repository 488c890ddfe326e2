/* launcher: a debugger's stop points (Tools chapter, "Debugger Support") — which process
 * of a job stops where (PMIX_DEBUG_STOP_ON_EXEC, _IN_INIT, _IN_APP, at job or app level,
 * one rank, the wildcard or a list of processes), who has reached their stop point, and
 * PMIX_READY_FOR_DEBUG once every target has (the job's HELD state). The stops themselves are
 * elsewhere: the node agent's odls holds a process at exec, the client library in PMIx_Init, the
 * application where it decides. Controller loop only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/px_common.h"
#include "help/px_help.h"
#include "launcher/dvm_int.h"

static const char *const stop_keys[PX_STOP_KINDS] = {
    [PX_STOP_EXEC] = PMIX_DEBUG_STOP_ON_EXEC,
    [PX_STOP_INIT] = PMIX_DEBUG_STOP_IN_INIT,
    [PX_STOP_APP] = PMIX_DEBUG_STOP_IN_APP,
};

/* The breakpoint of a stop at exec (the Standard names only "pmix-init"). */
#define PX_BREAKPOINT_EXEC "pmix-exec"

/* The last value of key in info[], or NULL. */
static const pmix_value_t *last_value(const pmix_info_t *info, size_t ninfo, const char *key)
{
    const pmix_value_t *v = NULL;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], key)) {
            v = &info[i].value;
        }
    }
    return v;
}

/* A rank named by app a's directive key: in the job, and in the app for an app-level
 * one (PMIX_RANK_WILDCARD always is); else the refusal in *msg. */
static pmix_status_t check_rank(const px_job_t *j, size_t a, const char *key, bool app_level,
                                pmix_rank_t r, char **msg)
{
    if (r == PMIX_RANK_WILDCARD || (r < j->nprocs && (!app_level || j->map.procs[r].app == a))) {
        return PMIX_SUCCESS;
    }
    char app[24];
    snprintf(app, sizeof(app), "%zu", a);
    *msg = px_help_render("help-prte.txt", "stop-rank", j->nspace, key, (unsigned)r, j->nprocs,
                          app_level ? app : "any");
    return PMIX_ERR_BAD_PARAM;
}

/* The value of stop directive k that applies to app a (an app's own directive wins over
 * the job's), NULL for none (absent, false, an empty list), checked: a refusal sets
 * *msg. */
static pmix_status_t app_stop(const px_job_t *j, size_t a, px_stop_t k, const pmix_value_t **out,
                              char **msg)
{
    const char *key = stop_keys[k];
    const pmix_value_t *v = last_value(j->apps[a].info, j->apps[a].ninfo, key);
    bool app_level = v != NULL;
    if (v == NULL) {
        v = last_value(j->info, j->ninfo, key);
    }
    *out = NULL;
    if (v == NULL) {
        return PMIX_SUCCESS;
    }
    const pmix_proc_t *procs;
    size_t n;
    if (px_debug_stop_list(v, &procs, &n) == 1) {
        /* a list of processes: of this job (the requester cannot know its namespace
         * before the spawn, so an empty one means this job too) */
        for (size_t i = 0; i < n; i++) {
            if (procs[i].nspace[0] != '\0' && !PMIx_Check_nspace(procs[i].nspace, j->nspace)) {
                *msg = px_help_render("help-prte.txt", "stop-nspace", j->nspace, key,
                                      procs[i].nspace, (unsigned)procs[i].rank);
                return PMIX_ERR_BAD_PARAM;
            }
            pmix_status_t rc = check_rank(j, a, key, app_level, procs[i].rank, msg);
            if (rc != PMIX_SUCCESS) {
                return rc;
            }
        }
        *out = n > 0 ? v : NULL;
        return PMIX_SUCCESS;
    }
    pmix_rank_t r;
    int how = px_debug_stop_rank(v, &r);
    if (how < 0) {
        *msg = px_help_render("help-prte.txt", "stop-value", j->nspace, key,
                              PMIx_Data_type_string(v->type));
        return PMIX_ERR_NOT_SUPPORTED;
    }
    if (how == 0) {
        return PMIX_SUCCESS;
    }
    pmix_status_t rc = check_rank(j, a, key, app_level, r, msg);
    *out = rc == PMIX_SUCCESS ? v : NULL;
    return rc;
}

pmix_status_t px_jdbg_read(px_job_t *j, char **msg)
{
    bool any = false;
    for (size_t i = 1; i < PX_STOP_KINDS && !any; i++) {
        any = last_value(j->info, j->ninfo, stop_keys[i]) != NULL;
        for (size_t a = 0; a < j->napps && !any; a++) {
            any = last_value(j->apps[a].info, j->apps[a].ninfo, stop_keys[i]) != NULL;
        }
    }
    if (!any) {
        return PMIX_SUCCESS;
    }
    j->stops = calloc(j->napps ? j->napps : 1, sizeof(*j->stops));
    if (j->stops == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (size_t a = 0; a < j->napps; a++) {
        for (size_t k = 1; k < PX_STOP_KINDS; k++) {
            pmix_status_t rc = app_stop(j, a, (px_stop_t)k, &j->stops[a][k], msg);
            if (rc != PMIX_SUCCESS) {
                return rc;
            }
        }
    }
    for (size_t r = 0; r < j->nprocs; r++) {
        px_proc_t *p = &j->procs[r];
        const pmix_value_t *const *s = j->stops[j->map.procs[r].app];
        for (size_t k = 1; k < PX_STOP_KINDS; k++) {
            if (s[k] == NULL || !px_debug_stop_names(s[k], &p->proc)) {
                continue;
            }
            if (p->stop != PX_STOP_NONE) {
                *msg = px_help_render("help-prte.txt", "stop-combination", j->nspace, (unsigned)r,
                                      stop_keys[p->stop], stop_keys[k]);
                return PMIX_ERR_NOT_SUPPORTED;
            }
            p->stop = (uint8_t)k;
            j->stop_targets++;
        }
    }
    return PMIX_SUCCESS;
}

void px_jdbg_app_realm(const px_job_t *j, size_t a, void *list)
{
    for (size_t k = 1; j->stops != NULL && k < PX_STOP_KINDS; k++) {
        const pmix_value_t *v = j->stops[a][k];
        const pmix_proc_t *procs;
        size_t n;
        pmix_rank_t r;
        if (v == NULL) {
            continue;
        }
        if (px_debug_stop_list(v, &procs, &n) == 1) {
            /* the list as given, each process named in the job's namespace */
            pmix_proc_t *named = PMIx_Proc_create(n);
            for (size_t i = 0; named != NULL && i < n; i++) {
                PMIx_Load_procid(&named[i], j->nspace, procs[i].rank);
            }
            pmix_data_array_t da = {.type = PMIX_PROC, .size = n, .array = named};
            if (named != NULL) {
                PMIx_Info_list_add(list, stop_keys[k], &da, PMIX_DATA_ARRAY);
            }
            PMIx_Proc_free(named, n);
        } else if (px_debug_stop_rank(v, &r) == 1) {
            PMIx_Info_list_add(list, stop_keys[k], &r, PMIX_PROC_RANK);
        }
    }
}

/* Every target is at its stop point and the job runs: HELD (once: the count only grows,
 * and RUNNING is entered once). */
static void maybe_held(px_job_t *j)
{
    if (j->state == PX_JOB_RUNNING && j->stop_targets > 0 && j->stop_reached == j->stop_targets) {
        px_job_move(j, PX_JOB_HELD, "every target at its stop point");
    }
}

void px_jdbg_reached(px_proc_t *p)
{
    px_job_t *j = p->job;
    if (p->stop == PX_STOP_NONE || p->stop_reached) {
        return;
    }
    p->stop_reached = true;
    p->at_stop = !p->released;
    j->stop_reached++;
    px_dvm_log(j->dvm, 2, "%s rank %u: at its stop point (%zu of %zu)%s", j->nspace, p->proc.rank,
               j->stop_reached, j->stop_targets, p->released ? ", released already" : "");
    maybe_held(j); /* every target reached its stop point: the ready event, once */
    if (p->released && j->state == PX_JOB_HELD) {
        /* its release came first (the client library got it from its server's event
         * cache): it is not held, so neither is the job */
        px_job_move(j, PX_JOB_RUNNING, "a target released before it reached its stop point");
    }
}

void px_jdbg_running(px_job_t *j)
{
    maybe_held(j);
}

/* One process left its stop point: a held job runs again. */
static void left_stop(px_proc_t *p, const char *how)
{
    px_job_t *j = p->job;
    p->at_stop = false;
    if (j->state == PX_JOB_HELD) {
        px_job_move(j, PX_JOB_RUNNING, how);
    }
}

void px_jdbg_tell_ready(px_job_t *j)
{
    pmix_proc_t source, affected;
    PMIx_Load_procid(&source, j->dvm->nspace, 0);
    PMIx_Load_procid(&affected, j->nspace, PMIX_RANK_WILDCARD);
    const char *bp = j->breakpoint;
    for (size_t r = 0; bp == NULL && r < j->nprocs; r++) {
        if (j->procs[r].stop == PX_STOP_EXEC) {
            bp = PX_BREAKPOINT_EXEC;
        }
    }
    time_t now = time(NULL);
    void *list = PMIx_Info_list_start();
    PMIx_Info_list_add(list, PMIX_NSPACE, j->nspace, PMIX_STRING);
    PMIx_Info_list_add(list, PMIX_EVENT_AFFECTED_PROC, &affected, PMIX_PROC);
    PMIx_Info_list_add(list, PMIX_EVENT_TIMESTAMP, &now, PMIX_TIME);
    /* only to handlers registered for it: a default handler (Open MPI's) would abort */
    PMIx_Info_list_add(list, PMIX_EVENT_NON_DEFAULT, NULL, PMIX_BOOL);
    if (bp != NULL) {
        PMIx_Info_list_add(list, PMIX_BREAKPOINT, bp, PMIX_STRING);
    }
    pmix_data_array_t da = PMIX_DATA_ARRAY_STATIC_INIT;
    if (PMIx_Info_list_convert(list, &da) == PMIX_SUCCESS) {
        /* the session: the requester and every tool (and process) registered for it,
         * on every node; kept in the server's cache for a debugger that registers later */
        pmix_status_t rc = PMIx_Notify_event(PMIX_READY_FOR_DEBUG, &source, PMIX_RANGE_SESSION,
                                             da.array, da.size, NULL, NULL);
        px_dvm_log(j->dvm, 1, "%s: ready for debug (%s)", j->nspace, PMIx_Error_string(rc));
        PMIx_Data_array_destruct(&da);
    }
    PMIx_Info_list_release(list);
}

void px_jdbg_os_state(px_proc_t *p, bool stopped)
{
    p->os_stopped = stopped;
    if (!stopped && p->stop == PX_STOP_EXEC && p->at_stop) {
        left_stop(p, "a process held at exec continued");
    }
}

bool px_jdbg_event(px_dvm_t *dvm, pmix_status_t code, const pmix_proc_t *source,
                   const pmix_info_t *info, size_t ninfo)
{
    if (code == PMIX_READY_FOR_DEBUG) {
        px_proc_t *p = px_job_proc(dvm, source);
        if (p == NULL || (p->stop != PX_STOP_INIT && p->stop != PX_STOP_APP)) {
            return false; /* not a stop we asked for: an ordinary event */
        }
        const pmix_value_t *bp = last_value(info, ninfo, PMIX_BREAKPOINT);
        if (p->job->breakpoint == NULL && bp != NULL && bp->type == PMIX_STRING &&
            bp->data.string != NULL) {
            p->job->breakpoint = strdup(bp->data.string);
        }
        px_jdbg_reached(p);
        return true; /* the job's own event says it, once every target is there */
    }
    if (code != PMIX_DEBUGGER_RELEASE) {
        return false;
    }
    size_t n;
    const pmix_proc_t *procs = px_event_custom_range(info, ninfo, &n);
    for (size_t i = 0; i < n; i++) {
        px_job_t *j = px_job_find(dvm, procs[i].nspace);
        for (size_t r = 0; j != NULL && r < j->nprocs; r++) {
            px_proc_t *p = &j->procs[r];
            if ((procs[i].rank != PMIX_RANK_WILDCARD && procs[i].rank != r) ||
                (p->stop != PX_STOP_INIT && p->stop != PX_STOP_APP)) {
                continue;
            }
            if (p->at_stop) {
                left_stop(p, "released by a debugger");
            } else if (!p->stop_reached) {
                p->released = true; /* it will pass through its stop point */
            }
        }
    }
    return false;
}

bool px_jdbg_maybe_stopped(const px_job_t *j)
{
    if (j->sent_stop) {
        return true;
    }
    for (size_t r = 0; r < j->nprocs; r++) {
        const px_proc_t *p = &j->procs[r];
        if (p->os_stopped || (p->stop == PX_STOP_EXEC && p->state != PX_PROC_DONE)) {
            return true;
        }
    }
    return false;
}
