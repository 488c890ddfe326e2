/* launcher: a job's lifecycle events (Tools chapter, "Tracking the job lifecycle"):
 * PMIX_EVENT_JOB_START and PMIX_LAUNCH_COMPLETE when every process started,
 * PMIX_EVENT_JOB_END when the last one is gone, each with the namespace and a
 * PMIX_EVENT_TIMESTAMP, JOB_END also with PMIX_JOB_TERM_STATUS and the first failed
 * process's PMIX_PROCID and PMIX_EXIT_CODE. Who gets them: the requester when its spawn
 * asked (PMIX_NOTIFY_JOB_EVENTS: all three, PMIX_NOTIFY_COMPLETION: JOB_END; this
 * process's own jobs always), and, asked or not, every tool or process that registered
 * for the code naming the job (PMIX_EVENT_AFFECTED_PROC(S)): an attached debugger. The
 * server library keeps them in its event cache, so a registration that comes after the
 * event still gets it. PMIX_LOG_JOB_EVENTS / PMIX_LOG_COMPLETION log them with PMIx_Log
 * (to the DVM's stderr). Controller loop.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>
#include <pmix_server.h>

#include "help/px_help.h"
#include "launcher/dvm_int.h"
#include "server/px_srv_host.h"
#include "util/px_info_list.h"

/* Does the requester's spawn ask for code? */
static bool requester_asked(const px_job_t *j, pmix_status_t code)
{
    return j->local || j->notify_events || (code == PMIX_EVENT_JOB_END && j->notify_completion);
}

/* Log the event with PMIx_Log when the spawn asked (PMIX_LOG_JOB_EVENTS: every event,
 * PMIX_LOG_COMPLETION: JOB_END), one line rendered from help-prte-attach.txt. */
static void log_event(const px_job_t *j, pmix_status_t code, time_t when, const px_job_result_t *r)
{
    if (!j->log_events && !(code == PMIX_EVENT_JOB_END && j->log_completion)) {
        return;
    }
    char stamp[32];
    struct tm tm;
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", localtime_r(&when, &tm));
    char *line;
    if (r == NULL) {
        line = px_help_render("help-prte-attach.txt", "log-job-event", stamp, j->nspace,
                              PMIx_Error_string(code));
    } else {
        char failed[PMIX_MAX_NSLEN + 16];
        if (j->why_rank < j->nprocs) {
            snprintf(failed, sizeof(failed), "%u", j->why_rank);
        } else {
            snprintf(failed, sizeof(failed), "none");
        }
        line = px_help_render("help-prte-attach.txt", "log-job-end", stamp, j->nspace,
                              PMIx_Error_string(r->status), failed, r->exit_code);
    }
    if (line == NULL) {
        return;
    }
    pmix_info_t data, dirs[2];
    PMIX_INFO_LOAD(&data, PMIX_LOG_STDERR, line, PMIX_STRING);
    pmix_proc_t source;
    PMIx_Load_procid(&source, j->nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&dirs[0], PMIX_LOG_SOURCE, &source, PMIX_PROC);
    PMIX_INFO_LOAD(&dirs[1], PMIX_LOG_TIMESTAMP, &when, PMIX_TIME);
    pmix_status_t rc = PMIx_Log(&data, 1, dirs, 2);
    if (rc != PMIX_SUCCESS) {
        px_dvm_log(j->dvm, 1, "%s: cannot log %s: %s", j->nspace, PMIx_Error_string(code),
                   PMIx_Error_string(rc));
    }
    PMIX_INFO_DESTRUCT(&data);
    PMIX_INFO_DESTRUCT(&dirs[0]);
    PMIX_INFO_DESTRUCT(&dirs[1]);
    free(line);
}

/* Raise code for j with the entries of list (taken), the common ones added here. */
static pmix_status_t job_raise(px_job_t *j, pmix_status_t code, void *list, bool to_requester,
                               time_t when, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pmix_proc_t affected;
    PMIx_Load_procid(&affected, j->nspace, PMIX_RANK_WILDCARD);
    bool yes = true;
    /* the custom range: the requester, or nobody (the interested only) */
    pmix_data_array_t targets = {.type = PMIX_PROC,
                                 .size = to_requester ? 1 : 0,
                                 .array = to_requester ? &j->requester : NULL};
    PMIx_Info_list_add(list, PMIX_EVENT_CUSTOM_RANGE, &targets, PMIX_DATA_ARRAY);
    PMIx_Info_list_add(list, PX_EVT_TO_INTERESTED, &yes, PMIX_BOOL);
    PMIx_Info_list_add(list, PMIX_EVENT_AFFECTED_PROC, &affected, PMIX_PROC);
    PMIx_Info_list_add(list, PMIX_NSPACE, j->nspace, PMIX_STRING);
    PMIx_Info_list_add(list, PMIX_EVENT_TIMESTAMP, &when, PMIX_TIME);
    pmix_data_array_t da = PMIX_DATA_ARRAY_STATIC_INIT;
    pmix_status_t rc = PMIx_Info_list_convert(list, &da);
    if (rc == PMIX_SUCCESS) {
        pmix_proc_t source;
        PMIx_Load_procid(&source, j->dvm->nspace, 0);
        rc = PMIx_Notify_event(code, &source, PMIX_RANGE_CUSTOM, da.array, da.size, cbfunc, cbdata);
        PMIx_Data_array_destruct(&da);
    }
    PMIx_Info_list_release(list);
    if (rc != PMIX_SUCCESS) {
        px_dvm_log(j->dvm, 1, "%s: cannot raise %s: %s", j->nspace, PMIx_Error_string(code),
                   PMIx_Error_string(rc));
    }
    return rc;
}

void px_job_notify(px_job_t *j, pmix_status_t code)
{
    time_t now = time(NULL);
    log_event(j, code, now, NULL);
    job_raise(j, code, PMIx_Info_list_start(), requester_asked(j, code), now, NULL, NULL);
}

pmix_status_t px_job_notify_end(px_job_t *j, const px_job_result_t *r, bool to_requester,
                                pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    time_t now = time(NULL);
    log_event(j, PMIX_EVENT_JOB_END, now, r);
    pmix_proc_t failed;
    PMIx_Load_procid(&failed, j->nspace,
                     j->why_rank < j->nprocs ? j->why_rank : PMIX_RANK_WILDCARD);
    void *list = PMIx_Info_list_start();
    PMIx_Info_list_add(list, PMIX_JOB_TERM_STATUS, &r->status, PMIX_STATUS);
    PMIx_Info_list_add(list, PMIX_PROCID, &failed, PMIX_PROC);
    PMIx_Info_list_add(list, PMIX_EXIT_CODE, &r->exit_code, PMIX_INT);
    if (r->message != NULL) {
        PMIx_Info_list_add(list, PMIX_EVENT_TEXT_MESSAGE, r->message, PMIX_STRING);
    }
    return job_raise(j, PMIX_EVENT_JOB_END, list,
                     to_requester || requester_asked(j, PMIX_EVENT_JOB_END), now, cbfunc, cbdata);
}
