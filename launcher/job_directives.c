/* launcher: the spawn directives this DVM honours (the table behind
 * PMIX_QUERY_SPAWN_SUPPORT and PMIX_QUERY_DEBUG_SUPPORT) and the refusal of a request that
 * carries one it would not act on. Pure functions of the table: any thread.
 */
#include <stdbool.h>
#include <stdlib.h>

#include <pmix.h>

#include "help/px_help.h"
#include "launcher/dvm_int.h"
#include "common/px_common.h"
#include "server/px_srv_pmi.h"

/* The spawn directives this DVM honours, and at which level: the one table the
 * job-info reader checks requests against (px_job_check_directives) and the
 * PMIX_QUERY_SPAWN_SUPPORT answer lists (px_job_spawn_support). Who reads each:
 * job.c's read_job_info, px_map_job (mapping, binding), px_iof_opts_from_info (output
 * formatting and files), the server library (forwarding to the requester), job.c's app_pset,
 * the node agent's px_personality_env (checked by job.c's check_request).
 * A key added to a reader must be added here, and the other way round. */
enum { PX_AT_JOB = 1, PX_AT_APP = 2, PX_DEBUGGER = 4 /* listed in PMIX_QUERY_DEBUG_SUPPORT */ };
static const struct {
    const char *key;
    unsigned where;
} spawn_attrs[] = {
    {PMIX_NOTIFY_COMPLETION, PX_AT_JOB},
    {PMIX_NOTIFY_JOB_EVENTS, PX_AT_JOB}, /* job_events.c */
    {PMIX_LOG_JOB_EVENTS, PX_AT_JOB},
    {PMIX_LOG_COMPLETION, PX_AT_JOB},
    {PMIX_NOHUP, PX_AT_JOB},
    {PMIX_STDIN_TGT, PX_AT_JOB},
    {PMIX_FWD_STDIN, PX_AT_JOB}, /* as PMIX_STDIN_TGT (px_dp_stdin_target) */
    {PMIX_JOB_TIMEOUT, PX_AT_JOB},
    {PMIX_DISPLAY_MAP, PX_AT_JOB},
    {PMIX_DISPLAY_ALLOCATION, PX_AT_JOB},
    {PMIX_REPORT_BINDINGS, PX_AT_JOB},
    {PMIX_MAPBY, PX_AT_JOB},
    {PMIX_RANKBY, PX_AT_JOB},
    {PMIX_BINDTO, PX_AT_JOB},
    {PMIX_CPUS_PER_PROC, PX_AT_JOB},
    {PMIX_FWD_STDOUT, PX_AT_JOB},
    {PMIX_FWD_STDERR, PX_AT_JOB},
    {PMIX_IOF_CACHE_SIZE, PX_AT_JOB}, /* the server library: the requester's sink */
    {PMIX_IOF_DROP_OLDEST, PX_AT_JOB},
    {PMIX_IOF_DROP_NEWEST, PX_AT_JOB},
    {PMIX_IOF_TAG_OUTPUT, PX_AT_JOB},
    {PMIX_IOF_RANK_OUTPUT, PX_AT_JOB},
    {PMIX_IOF_TIMESTAMP_OUTPUT, PX_AT_JOB},
    {PMIX_IOF_XML_OUTPUT, PX_AT_JOB},
    {PMIX_IOF_MERGE_STDERR_STDOUT, PX_AT_JOB},
    {PMIX_IOF_OUTPUT_RAW, PX_AT_JOB},
    {PMIX_IOF_FILE_ONLY, PX_AT_JOB},
    {PMIX_IOF_OUTPUT_TO_DIRECTORY, PX_AT_JOB},
    {PMIX_IOF_OUTPUT_TO_FILE, PX_AT_JOB},
    {PMIX_PSET_NAME, PX_AT_APP},
    {PMIX_PERSONALITY, PX_AT_JOB | PX_AT_APP}, /* the node agent: daemon/personality.c */
    {PMIX_DEBUG_STOP_ON_EXEC,
     PX_AT_JOB | PX_AT_APP | PX_DEBUGGER}, /* job_debug.c, the node agent's odls */
    {PMIX_DEBUG_STOP_IN_INIT,
     PX_AT_JOB | PX_AT_APP | PX_DEBUGGER}, /* job_debug.c, the client library */
    {PMIX_DEBUG_STOP_IN_APP,
     PX_AT_JOB | PX_AT_APP | PX_DEBUGGER}, /* job_debug.c, the application */
    {PX_PMI_PREPUT, PX_AT_JOB},            /* reg_info: a PMI spawn's preput keys */
    /* debugger daemons: job_dbgd.c */
    {PMIX_DEBUGGER_DAEMONS, PX_AT_JOB | PX_AT_APP | PX_DEBUGGER},
    {PMIX_COSPAWN_APP, PX_AT_APP | PX_DEBUGGER},
    {PMIX_DEBUG_TARGET, PX_AT_JOB | PX_AT_APP | PX_DEBUGGER},
    {PMIX_DEBUG_JOB, PX_AT_JOB | PX_AT_APP | PX_DEBUGGER},
    {PMIX_DEBUG_DAEMONS_PER_NODE, PX_AT_JOB | PX_AT_APP | PX_DEBUGGER},
    {PMIX_DEBUG_DAEMONS_PER_PROC, PX_AT_JOB | PX_AT_APP | PX_DEBUGGER},
    /* debugger agents: job_agents.c, the node agent (daemon/nagent_agent.c); an app's
     * own takes the place of the job's for its processes */
    {PMIX_FORKEXEC_AGENT, PX_AT_JOB | PX_AT_APP | PX_DEBUGGER},
    {PMIX_EXEC_AGENT, PX_AT_JOB | PX_AT_APP | PX_DEBUGGER},
    {PMIX_HOST, PX_AT_JOB | PX_AT_APP},     /* job_hosts.c */
    {PMIX_ADD_HOST, PX_AT_JOB | PX_AT_APP}, /* job_hosts.c */
    /* a tool (e.g. a launcher a debugger starts through us): started like any process;
     * the launcher variables its requester put in the app's env reach it (the server
     * library's setup_fork strips only what we inherited), and a tool never connects as
     * a client, so the client rules (finalize before exit) do not apply to it */
    {PMIX_SPAWN_TOOL, PX_AT_JOB},
};

/* The table's keys (only the debugger's: PMIX_QUERY_DEBUG_SUPPORT), comma-separated. */
static char *support(bool debugger)
{
    char **keys = NULL;
    for (size_t i = 0; i < sizeof(spawn_attrs) / sizeof(spawn_attrs[0]); i++) {
        if (debugger && !(spawn_attrs[i].where & PX_DEBUGGER)) {
            continue;
        }
        if (PMIx_Argv_append_nosize(&keys, spawn_attrs[i].key) != PMIX_SUCCESS) {
            PMIx_Argv_free(keys);
            return NULL;
        }
    }
    char *s = keys != NULL ? PMIx_Argv_join(keys, ',') : strdup("");
    PMIx_Argv_free(keys);
    return s;
}

char *px_job_spawn_support(void)
{
    return support(false);
}

char *px_job_debug_support(void)
{
    return support(true);
}

/* The first directive of info[] at level `where` the DVM will not act on: a required one
 * the table does not list. NULL if none. */
static const char *unhonoured(const pmix_info_t *info, size_t ninfo, unsigned where)
{
    const char *honoured[sizeof(spawn_attrs) / sizeof(spawn_attrs[0]) + 1];
    size_t n = 0;
    for (size_t i = 0; i < sizeof(spawn_attrs) / sizeof(spawn_attrs[0]); i++) {
        if (spawn_attrs[i].where & where) {
            honoured[n++] = spawn_attrs[i].key;
        }
    }
    honoured[n] = NULL;
    return px_info_unhonoured(info, ninfo, honoured);
}

/* Refuse a request carrying a directive the DVM would not honour (Standard: a
 * required directive that cannot be honoured fails the call), naming it. */
pmix_status_t px_job_check_directives(px_job_t *j, const pmix_info_t *info, size_t ninfo,
                                      const pmix_app_t *apps, size_t napps, char **msg)
{
    const char *key = unhonoured(info, ninfo, PX_AT_JOB);
    for (size_t a = 0; key == NULL && a < napps; a++) {
        key = unhonoured(apps[a].info, apps[a].ninfo, PX_AT_APP);
    }
    if (key == NULL) {
        return PMIX_SUCCESS;
    }
    *msg = px_help_render("help-prte.txt", "spawn-unsupported", j->nspace, key);
    return PMIX_ERR_NOT_SUPPORTED;
}
