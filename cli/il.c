/* cli: the launcher side of indirect launch (px_il.h): prterun, prte and prun started
 * by a tool. Created on the command's main thread; the event handler runs on the
 * library's thread; il->lock guards the flags both touch.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>

#include "cli/px_il.h"
#include "help/px_help.h"

struct px_il {
    px_il_cbs_t cbs;
    pmix_proc_t me;
    pmix_proc_t parent;
    bool stop_in_init, nohup;
    int hold_secs;
    pmix_info_t *dirs; /* owned: PMIX_LAUNCH_DIRECTIVES */
    size_t ndirs;
    pmix_status_t release_code; /* PMIX_DEBUGGER_RELEASE, or the older handshake's
                                 * PMIX_LAUNCH_DIRECTIVE */
    pthread_mutex_t lock;
    bool holding, released, gone;
    bool early; /* a release that came before px_il_hold */
    size_t evid;
    bool have_evid;
};

static bool own_flag(const pmix_proc_t *me, const char *key)
{
    pmix_value_t *v = NULL;
    bool on = false;
    if (PMIx_Get(me, key, NULL, 0, &v) == PMIX_SUCCESS && v != NULL) {
        on = v->type == PMIX_BOOL ? v->data.flag : v->type == PMIX_UNDEF;
    }
    if (v != NULL) {
        PMIx_Value_free(v, 1);
    }
    return on;
}

static bool names(const pmix_value_t *v, const pmix_proc_t *who, bool nspace_only)
{
    const pmix_proc_t *p = NULL;
    size_t n = 0;
    if (v->type == PMIX_PROC && v->data.proc != NULL) {
        p = v->data.proc;
        n = 1;
    } else if (v->type == PMIX_DATA_ARRAY && v->data.darray != NULL &&
               v->data.darray->type == PMIX_PROC) {
        p = v->data.darray->array;
        n = v->data.darray->size;
    }
    for (size_t i = 0; i < n; i++) {
        if (PMIx_Check_nspace(p[i].nspace, who->nspace) &&
            (nspace_only || PMIx_Check_rank(p[i].rank, who->rank))) {
            return true;
        }
    }
    return false;
}

/* Is this event about the tool that started us (its end, or our link to it)? */
static bool about_parent(const px_il_t *il, const pmix_info_t info[], size_t ninfo)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE) && info[i].value.type == PMIX_STRING &&
            PMIx_Check_nspace(info[i].value.data.string, il->parent.nspace)) {
            return true;
        }
        if ((PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) ||
             PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROCS)) &&
            names(&info[i].value, &il->parent, true)) {
            return true;
        }
    }
    return false;
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)source;
    (void)results;
    (void)nresults;
    px_il_t *il = NULL;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_RETURN_OBJECT) &&
            info[i].value.type == PMIX_POINTER) {
            il = info[i].value.data.ptr;
        }
    }
    bool release = false, gone = false;
    if (il != NULL && status == PMIX_LAUNCH_DIRECTIVE && il->release_code == status) {
        /* the older handshake: the directives for the job, from the tool we wait for */
        release = source != NULL && PMIx_Check_nspace(source->nspace, il->parent.nspace);
        pthread_mutex_lock(&il->lock);
        for (size_t i = 0; release && il->dirs == NULL && i < ninfo; i++) {
            const pmix_value_t *v = &info[i].value;
            if (PMIX_CHECK_KEY(&info[i], PMIX_DEBUG_JOB_DIRECTIVES) && v->type == PMIX_DATA_ARRAY &&
                v->data.darray != NULL && v->data.darray->type == PMIX_INFO &&
                v->data.darray->size > 0 &&
                (il->dirs = PMIx_Info_create(v->data.darray->size)) != NULL) {
                il->ndirs = v->data.darray->size;
                for (size_t k = 0; k < il->ndirs; k++) {
                    PMIx_Info_xfer(&il->dirs[k], &((pmix_info_t *)v->data.darray->array)[k]);
                }
            }
        }
        pthread_mutex_unlock(&il->lock);
    } else if (il != NULL && status == PMIX_DEBUGGER_RELEASE &&
               il->release_code == status) { /* also PMIX_ERR_DEBUGGER_RELEASE */
        /* a release for us: its custom range names us (or it has none) */
        release = true;
        for (size_t i = 0; i < ninfo; i++) {
            if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_CUSTOM_RANGE)) {
                release = names(&info[i].value, &il->me, false);
            }
        }
    } else if (il != NULL && (status == PMIX_EVENT_JOB_END || status == PMIX_ERR_LOST_CONNECTION)) {
        gone = about_parent(il, info, ninfo);
    }
    if (il != NULL) {
        pthread_mutex_lock(&il->lock);
        if (release && !il->holding && !il->released) {
            il->early = true; /* the tool was quicker than our init: kept for the hold */
        }
        release = release && il->holding && !il->released;
        if (release) {
            il->released = true;
        }
        gone = gone && !il->gone && !il->nohup;
        if (gone) {
            il->gone = true;
        }
        pthread_mutex_unlock(&il->lock);
        if (release) {
            il->cbs.released(PMIX_SUCCESS, il->cbs.arg);
        }
        if (gone) {
            il->cbs.parent_gone(il->cbs.arg);
        }
    }
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

/* The hold's bound when the tool gives none: PX_LAUNCHER_HOLD_SECS, else PX_IL_HOLD_SECS.
 * -1 (message shown, errno EINVAL) for a value that is not a positive number of seconds. */
static int hold_default(const px_il_cbs_t *cbs)
{
    const char *env = getenv(PX_IL_HOLD_ENV);
    if (env == NULL) {
        return PX_IL_HOLD_SECS;
    }
    char *end = NULL;
    errno = 0;
    long secs = strtol(env, &end, 10);
    if (errno != 0 || end == env || *end != '\0' || secs <= 0 || secs > 86400) {
        px_show_help("help-prte.txt", "hold-secs-bad", cbs->prog, PX_IL_HOLD_ENV, env);
        errno = EINVAL;
        return -1;
    }
    return (int)secs;
}

static int il_register(px_il_t *il)
{
    pmix_status_t codes[] = {il->release_code, PMIX_EVENT_JOB_END, PMIX_ERR_LOST_CONNECTION};
    pmix_info_t ret;
    PMIx_Info_load(&ret, PMIX_EVENT_RETURN_OBJECT, il, PMIX_POINTER);
    pmix_status_t rc = PMIx_Register_event_handler(codes, 3, &ret, 1, on_event, NULL, NULL);
    PMIx_Info_destruct(&ret);
    if (rc < 0) {
        errno = EIO;
        return -1;
    }
    il->evid = (size_t)rc;
    il->have_evid = true;
    return 0;
}

px_il_t *px_il_create_paused(const char *tool, const pmix_proc_t *me, const px_il_cbs_t *cbs)
{
    const char *colon = tool != NULL ? strrchr(tool, ':') : NULL;
    char *end = NULL;
    unsigned long rank = colon != NULL ? strtoul(colon + 1, &end, 10) : 0;
    if (colon == NULL || colon == tool || (size_t)(colon - tool) > PMIX_MAX_NSLEN ||
        end == colon + 1 || *end != '\0' || rank >= PMIX_RANK_VALID) {
        px_show_help("help-prte.txt", "pause-for-tool-bad", cbs->prog, tool ? tool : "");
        errno = EINVAL;
        return NULL;
    }
    int secs = hold_default(cbs);
    if (secs < 0) {
        return NULL;
    }
    px_il_t *il = calloc(1, sizeof(*il));
    if (il == NULL) {
        return NULL;
    }
    pthread_mutex_init(&il->lock, NULL);
    il->cbs = *cbs;
    il->me = *me;
    char ns[PMIX_MAX_NSLEN + 1];
    snprintf(ns, sizeof(ns), "%.*s", (int)(colon - tool), tool);
    PMIx_Load_procid(&il->parent, ns, (pmix_rank_t)rank);
    il->stop_in_init = true; /* until its PMIX_LAUNCH_DIRECTIVE */
    il->hold_secs = secs;
    il->release_code = PMIX_LAUNCH_DIRECTIVE;
    if (il_register(il) != 0) {
        px_il_destroy(il);
        return NULL;
    }
    return il;
}

px_il_t *px_il_create(const pmix_proc_t *me, const px_il_cbs_t *cbs)
{
    pmix_value_t *v = NULL;
    errno = 0;
    if (PMIx_Get(me, PMIX_PARENT_ID, NULL, 0, &v) != PMIX_SUCCESS || v == NULL ||
        v->type != PMIX_PROC) {
        if (v != NULL) {
            PMIx_Value_free(v, 1);
        }
        return NULL; /* nobody started us as a launcher */
    }
    int secs = hold_default(cbs);
    px_il_t *il = secs > 0 ? calloc(1, sizeof(*il)) : NULL;
    if (il == NULL) {
        PMIx_Value_free(v, 1);
        errno = secs > 0 ? ENOMEM : EINVAL;
        return NULL;
    }
    pthread_mutex_init(&il->lock, NULL);
    il->cbs = *cbs;
    il->me = *me;
    il->parent = *v->data.proc;
    PMIx_Value_free(v, 1);
    /* our own directives (the spawn's job info), then those for the job we launch */
    il->stop_in_init = own_flag(me, PMIX_DEBUG_STOP_IN_INIT);
    il->nohup = own_flag(me, PMIX_NOHUP);
    il->hold_secs = secs;
    v = NULL;
    if (PMIx_Get(me, PMIX_SPAWN_TIMEOUT, NULL, 0, &v) == PMIX_SUCCESS && v != NULL) {
        int secs = 0;
        if (PMIx_Value_get_number(v, &secs, PMIX_INT) == PMIX_SUCCESS && secs > 0) {
            il->hold_secs = secs;
        }
    }
    if (v != NULL) {
        PMIx_Value_free(v, 1);
        v = NULL;
    }
    if (PMIx_Get(me, PMIX_LAUNCH_DIRECTIVES, NULL, 0, &v) == PMIX_SUCCESS && v != NULL &&
        v->type == PMIX_DATA_ARRAY && v->data.darray != NULL && v->data.darray->type == PMIX_INFO &&
        v->data.darray->size > 0) {
        il->ndirs = v->data.darray->size;
        il->dirs = PMIx_Info_create(il->ndirs);
        for (size_t i = 0; il->dirs != NULL && i < il->ndirs; i++) {
            PMIx_Info_xfer(&il->dirs[i], &((pmix_info_t *)v->data.darray->array)[i]);
        }
        if (il->dirs == NULL) {
            il->ndirs = 0;
        }
    }
    if (v != NULL) {
        PMIx_Value_free(v, 1);
    }
    il->release_code = PMIX_DEBUGGER_RELEASE;
    if (il_register(il) != 0) {
        px_il_destroy(il);
        return NULL;
    }
    return il;
}

void px_il_destroy(px_il_t *il)
{
    if (il == NULL) {
        return;
    }
    if (il->have_evid) {
        PMIx_Deregister_event_handler(il->evid, NULL, NULL);
    }
    PMIx_Info_free(il->dirs, il->ndirs);
    pthread_mutex_destroy(&il->lock);
    free(il);
}

bool px_il_nohup(const px_il_t *il)
{
    return il->nohup;
}

bool px_il_is_parent(const px_il_t *il, const char *nspace)
{
    return nspace != NULL && PMIx_Check_nspace(nspace, il->parent.nspace);
}

void px_il_hold(px_il_t *il)
{
    pthread_mutex_lock(&il->lock);
    bool now = !il->stop_in_init || il->early;
    il->holding = !now;
    il->released = now;
    pthread_mutex_unlock(&il->lock);
    if (now) {
        il->cbs.released(PMIX_SUCCESS, il->cbs.arg);
    }
}

int px_il_hold_secs(const px_il_t *il)
{
    return il->hold_secs;
}

void px_il_hold_expired(px_il_t *il)
{
    pthread_mutex_lock(&il->lock);
    bool late = il->holding && !il->released;
    il->released = true;
    pthread_mutex_unlock(&il->lock);
    if (late) {
        px_show_help("help-prte.txt",
                     il->release_code == PMIX_LAUNCH_DIRECTIVE ? "pause-timeout"
                                                               : "release-timeout",
                     il->cbs.prog, il->parent.nspace, il->parent.rank, il->hold_secs);
        il->cbs.released(PMIX_ERR_TIMEOUT, il->cbs.arg);
    }
}

int px_il_add_directives(px_il_t *il, pmix_info_t **jinfo, size_t *njinfo)
{
    pthread_mutex_lock(&il->lock); /* the older handshake's came with its event */
    size_t ndirs = il->ndirs;
    pthread_mutex_unlock(&il->lock);
    if (ndirs == 0) {
        return 0;
    }
    pmix_info_t *all = PMIx_Info_create(*njinfo + il->ndirs);
    if (all == NULL) {
        errno = ENOMEM;
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < *njinfo; i++) {
        bool replaced = false;
        for (size_t k = 0; k < il->ndirs && !replaced; k++) {
            replaced = PMIX_CHECK_KEY(&(*jinfo)[i], il->dirs[k].key);
        }
        if (!replaced) {
            PMIx_Info_xfer(&all[n++], &(*jinfo)[i]);
        }
    }
    for (size_t k = 0; k < il->ndirs; k++) {
        PMIx_Info_xfer(&all[n++], &il->dirs[k]);
    }
    PMIx_Info_free(*jinfo, *njinfo);
    *jinfo = all;
    *njinfo = n;
    return 0;
}

/* An event for the tool alone (custom range): code, then key/values. */
static void tell(px_il_t *il, pmix_status_t code, const char *nspace, const int *exit_code,
                 const pmix_status_t *status)
{
    pmix_info_t info[6];
    size_t n = 0;
    time_t now = time(NULL);
    PMIx_Info_load(&info[n++], PMIX_EVENT_CUSTOM_RANGE, &il->parent, PMIX_PROC);
    PMIx_Info_load(&info[n++], PMIX_EVENT_TIMESTAMP, &now, PMIX_TIME);
    if (nspace != NULL) {
        pmix_proc_t job;
        PMIx_Load_procid(&job, nspace, PMIX_RANK_WILDCARD);
        PMIx_Info_load(&info[n++], PMIX_NSPACE, nspace, PMIX_STRING);
        PMIx_Info_load(&info[n++], PMIX_EVENT_AFFECTED_PROC, &job, PMIX_PROC);
    }
    if (exit_code != NULL) {
        PMIx_Info_load(&info[n++], PMIX_EXIT_CODE, exit_code, PMIX_INT);
    }
    if (status != NULL) {
        PMIx_Info_load(&info[n++], PMIX_JOB_TERM_STATUS, status, PMIX_STATUS);
    }
    pmix_status_t rc = PMIx_Notify_event(code, NULL, PMIX_RANGE_CUSTOM, info, n, NULL, NULL);
    if (rc != PMIX_SUCCESS) {
        px_show_help("help-prte.txt", "il-event-failed", il->cbs.prog, il->parent.nspace,
                     il->parent.rank, PMIx_Error_string(code), PMIx_Error_string(rc));
    }
    for (size_t i = 0; i < n; i++) {
        PMIx_Info_destruct(&info[i]);
    }
}

void px_il_ready(px_il_t *il)
{
    tell(il, PMIX_LAUNCHER_READY, NULL, NULL, NULL);
}

void px_il_launched(px_il_t *il, const char *nspace)
{
    tell(il, PMIX_LAUNCH_COMPLETE, nspace, NULL, NULL);
}

void px_il_ended(px_il_t *il, const char *nspace, int exit_code, pmix_status_t status)
{
    tell(il, PMIX_EVENT_JOB_END, nspace, &exit_code, &status);
}
