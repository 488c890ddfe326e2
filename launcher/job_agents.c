/* launcher: a job's debugger agents, controller side (the Standard's Tools chapter,
 * "Debugger Agents"): which agent (PMIX_FORKEXEC_AGENT / PMIX_EXEC_AGENT, given in the
 * job info or in one app's info, the app's winning) starts each process; the agents'
 * namespace "<job>.fea" (the fork/exec agents as a debugger job: rank k is the k-th
 * process of the job, in rank order, that runs under a fork/exec agent; the node agent
 * numbers them the same way, daemon/nagent_agent.c) with its proc table; and the pid of
 * the process a fork/exec agent started, learnt when it connects as the rank's client.
 * The node agents start the agents. Controller loop only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "daemon/px_nagent.h"
#include "help/px_help.h"
#include "launcher/dvm_int.h"

struct px_jagents {
    char **paths;  /* owned, napps: each app's agent (owned), NULL: none */
    bool *fe;      /* owned, napps: a fork/exec agent (else an exec agent) */
    size_t napps;  /* the application's apps */
    bool any_fe;   /* some app runs under a fork/exec agent */
    pid_t *client; /* owned, by rank once mapped: the pid that connected as the rank's
                      client (the process its fork/exec agent started), 0: none yet */
    size_t nprocs;
};

/* The agent directive of one info array (the last one), NULL: none. */
static const pmix_info_t *agent_directive(const pmix_info_t *info, size_t ninfo)
{
    const pmix_info_t *found = NULL;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_FORKEXEC_AGENT) ||
            PMIX_CHECK_KEY(&info[i], PMIX_EXEC_AGENT)) {
            found = &info[i];
        }
    }
    return found;
}

/* One level's agent directives: a path, one of the two kinds. */
static pmix_status_t check_level(const px_job_t *j, const pmix_info_t *info, size_t ninfo,
                                 char **msg)
{
    const char *first = NULL;
    for (size_t i = 0; i < ninfo; i++) {
        const pmix_info_t *in = &info[i];
        if (!PMIX_CHECK_KEY(in, PMIX_FORKEXEC_AGENT) && !PMIX_CHECK_KEY(in, PMIX_EXEC_AGENT)) {
            continue;
        }
        if (in->value.type != PMIX_STRING || in->value.data.string == NULL ||
            in->value.data.string[0] == '\0') {
            *msg = px_help_render("help-prte-debug.txt", "bad-value", j->nspace, in->key,
                                  "the agent's path (a non-empty PMIX_STRING)");
            return PMIX_ERR_BAD_PARAM;
        }
        if (first != NULL && !PMIX_CHECK_KEY(in, first)) {
            *msg = px_help_render("help-prte-debug.txt", "two-agents", j->nspace);
            return PMIX_ERR_BAD_PARAM;
        }
        first = in->key;
    }
    return PMIX_SUCCESS;
}

pmix_status_t px_jagents_check(const px_job_t *j, const pmix_info_t *info, size_t ninfo,
                               const pmix_app_t *apps, size_t napps, const bool *daemon_app,
                               char **msg)
{
    pmix_status_t rc = check_level(j, info, ninfo, msg);
    const pmix_info_t *job = agent_directive(info, ninfo);
    bool app = false; /* some app is the application's (not debugger daemons) */
    for (size_t a = 0; rc == PMIX_SUCCESS && a < napps; a++) {
        const pmix_info_t *in = agent_directive(apps[a].info, apps[a].ninfo);
        app |= !daemon_app[a];
        if (in != NULL && daemon_app[a]) {
            /* debugger daemons are the debugger's own processes: no agent starts them */
            *msg = px_help_render("help-prte-debug.txt", "agent-daemons", j->nspace, a, in->key);
            return PMIX_ERR_NOT_SUPPORTED;
        }
        rc = check_level(j, apps[a].info, apps[a].ninfo, msg);
    }
    if (rc == PMIX_SUCCESS && job != NULL && !app) {
        *msg = px_help_render("help-prte-debug.txt", "agent-no-app", j->nspace, job->key);
        return PMIX_ERR_NOT_SUPPORTED;
    }
    return rc;
}

void px_jagents_free(px_jagents_t *g)
{
    if (g == NULL) {
        return;
    }
    for (size_t a = 0; a < g->napps; a++) {
        free(g->paths[a]);
    }
    free(g->paths);
    free(g->fe);
    free(g->client);
    free(g);
}

pmix_status_t px_jagents_keep(const pmix_info_t *info, size_t ninfo, const pmix_app_t *apps,
                              size_t napps, px_jagents_t **out)
{
    *out = NULL;
    const pmix_info_t *job = agent_directive(info, ninfo);
    bool any = job != NULL;
    for (size_t a = 0; a < napps && !any; a++) {
        any = agent_directive(apps[a].info, apps[a].ninfo) != NULL;
    }
    if (!any) {
        return PMIX_SUCCESS;
    }
    px_jagents_t *g = calloc(1, sizeof(*g));
    if (g == NULL || (g->paths = calloc(napps ? napps : 1, sizeof(*g->paths))) == NULL ||
        (g->fe = calloc(napps ? napps : 1, sizeof(*g->fe))) == NULL) {
        px_jagents_free(g);
        return PMIX_ERR_NOMEM;
    }
    g->napps = napps;
    for (size_t a = 0; a < napps; a++) {
        const pmix_info_t *in = agent_directive(apps[a].info, apps[a].ninfo);
        in = in != NULL ? in : job;
        if (in == NULL) {
            continue;
        }
        g->fe[a] = PMIX_CHECK_KEY(in, PMIX_FORKEXEC_AGENT);
        g->any_fe |= g->fe[a];
        if ((g->paths[a] = strdup(in->value.data.string)) == NULL) {
            px_jagents_free(g);
            return PMIX_ERR_NOMEM;
        }
    }
    *out = g;
    return PMIX_SUCCESS;
}

const char *px_jagents_path(const px_job_t *j, pmix_rank_t r, bool *fe)
{
    const px_jagents_t *g = px_dbg_agents(j);
    *fe = false;
    if (g == NULL || r >= j->map.nprocs || j->map.procs[r].app >= g->napps) {
        return NULL;
    }
    size_t a = j->map.procs[r].app;
    *fe = g->fe[a];
    return g->paths[a];
}

/* Whether rank r runs under a fork/exec agent, and its agent's rank (*k). */
static bool fe_rank(const px_job_t *j, pmix_rank_t r, pmix_rank_t *k)
{
    const px_jagents_t *g = px_dbg_agents(j);
    if (g == NULL || !g->any_fe || r >= j->map.nprocs) {
        return false;
    }
    pmix_rank_t n = 0;
    for (pmix_rank_t i = 0; i < r; i++) {
        n += j->map.procs[i].app < g->napps && g->fe[j->map.procs[i].app];
    }
    *k = n;
    size_t a = j->map.procs[r].app;
    return a < g->napps && g->fe[a];
}

void px_jagents_connected(px_proc_t *p, pid_t pid)
{
    px_job_t *j = p->job;
    px_jagents_t *g = px_dbg_agents(j);
    pmix_rank_t k;
    if (pid <= 0 || g == NULL || !fe_rank(j, p->proc.rank, &k)) {
        return;
    }
    if (g->client == NULL) {
        g->client = calloc(j->nprocs ? j->nprocs : 1, sizeof(*g->client));
        g->nprocs = g->client != NULL ? j->nprocs : 0;
    }
    if (p->proc.rank < g->nprocs) {
        g->client[p->proc.rank] = pid;
        px_dvm_log(j->dvm, 2, "%s rank %u: its fork/exec agent's process (pid %d) connected",
                   j->nspace, p->proc.rank, (int)pid);
    }
}

pid_t px_jagents_proc_pid(const px_proc_t *p)
{
    const px_jagents_t *g = px_dbg_agents(p->job);
    if (g != NULL && p->proc.rank < g->nprocs && g->client[p->proc.rank] != 0) {
        return g->client[p->proc.rank];
    }
    return p->pid; /* the process the daemon started (or, under an agent, the agent) */
}

bool px_jagents_nspace(const px_job_t *j, pmix_nspace_t out)
{
    const px_jagents_t *g = px_dbg_agents(j);
    if (g == NULL || !g->any_fe || j->map.nprocs == 0) {
        return false;
    }
    char ns[PMIX_MAX_NSLEN + 8];
    snprintf(ns, sizeof(ns), "%s" PX_NA_AGENTS_SUFFIX, j->nspace);
    PMIX_LOAD_NSPACE(out, ns);
    return true;
}

px_job_t *px_jagents_job(px_dvm_t *dvm, const char *nspace)
{
    size_t n = strlen(nspace), s = strlen(PX_NA_AGENTS_SUFFIX);
    if (n <= s || strcmp(nspace + n - s, PX_NA_AGENTS_SUFFIX) != 0) {
        return NULL;
    }
    for (px_job_t *j = dvm->jobs; j != NULL; j = j->next) {
        pmix_nspace_t ans;
        if (px_jagents_nspace(j, ans) && PMIx_Check_nspace(ans, nspace)) {
            return j;
        }
    }
    return NULL;
}

bool px_jagents_agent(const px_job_t *j, pmix_rank_t r, pmix_rank_t *k, const char **path)
{
    bool fe = false;
    if (!fe_rank(j, r, k)) {
        return false;
    }
    *path = px_jagents_path(j, r, &fe);
    return true;
}
