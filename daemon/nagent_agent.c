/* daemon: the node agent's debugger agents (the Standard's Tools chapter, "Debugger
 * Agents"), given in the job's directives or in an app's info (the app's wins, for its
 * processes): a process under PMIX_EXEC_AGENT runs as "<agent> <the process's argv>" (the
 * agent execs it; it is the process); under PMIX_FORKEXEC_AGENT the agent runs in its
 * place, connects back to this daemon's PMIx server as a tool (found through
 * PMIX_LAUNCHER_RNDZ_URI, recognised by its pid and given its identity in the agents'
 * namespace "<job>.fea", PX_NA_AGENTS_SUFFIX), reads the description of the process it
 * replaces (PX_NA_FEA_APP: cmd, argv, env, cwd) and starts it; that process is the
 * registered client of its rank, the agents never are. Every daemon registers the same
 * job data and each agent's rank, host and target for the agents' namespace, with the
 * descriptions of its own node's agents.
 * A fork/exec agent counts as started once it has connected; one that exits first, or
 * does not connect within the wait, is a start failure of its rank (stages agent-exited,
 * agent-connect). Daemon's loop only.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/px_proto.h"
#include "daemon/nagent_int.h"
#include "util/px_info_list.h"

/* How long a fork/exec agent may take to connect back (seconds); the test hook
 * PX_NAGENT_TEST_AGENT_WAIT sets another. */
#define PX_NA_AGENT_WAIT 60

typedef struct {
    na_agents_t *owner;
    pmix_rank_t rank;    /* in the job */
    const char *path;    /* borrowed (owner's paths): its agent, NULL: none */
    bool fe;             /* a fork/exec agent (else an exec agent) */
    pmix_rank_t k;       /* fork/exec: its rank in the agents' namespace */
    uint32_t node;       /* index into the owner's hosts */
    pid_t pid;           /* 0: not forked (or gone) */
    bool claimed;        /* connected back as a tool */
    bool start_held;     /* odls said it started: told once it connects */
    bool failed;         /* a start failure was reported: no STARTED any more */
    struct event *timer; /* owned: the connect deadline */
    char **argv, **env;  /* owned until the registration: the description */
    char *cwd;
} na_agent_t;

struct na_agents {
    na_job_t *job;
    char **paths; /* owned, napps: each app's agent (owned), NULL: none */
    size_t napps;
    char **hosts; /* owned, nhosts: the LAUNCH's node names */
    size_t nhosts;
    size_t nfe; /* ranks under a fork/exec agent: the agents' namespace's size */
    pmix_nspace_t nspace;
    bool registered;
    int wait_s;
    na_agent_t *procs; /* owned, by rank */
    size_t nprocs;
};

/* The agent directive of one info array (the last one; the controller checked them:
 * a non-empty path, one kind), NULL: none. */
static const pmix_info_t *agent_directive(const pmix_info_t *info, size_t ninfo)
{
    const pmix_info_t *found = NULL;
    for (size_t i = 0; i < ninfo; i++) {
        if ((PMIX_CHECK_KEY(&info[i], PMIX_FORKEXEC_AGENT) ||
             PMIX_CHECK_KEY(&info[i], PMIX_EXEC_AGENT)) &&
            info[i].value.type == PMIX_STRING && info[i].value.data.string != NULL &&
            info[i].value.data.string[0] != '\0') {
            found = &info[i];
        }
    }
    return found;
}

static void agents_free(na_agents_t *g)
{
    for (size_t i = 0; g->paths != NULL && i < g->napps; i++) {
        free(g->paths[i]);
    }
    for (size_t i = 0; g->hosts != NULL && i < g->nhosts; i++) {
        free(g->hosts[i]);
    }
    free(g->paths);
    free(g->hosts);
    free(g->procs);
    free(g);
}

int px_na_agents_setup(px_nagent_t *a, na_job_t *j, const px_dp_launch_t *l)
{
    (void)a;
    const pmix_info_t *job = agent_directive(l->info, l->ninfo);
    bool any = job != NULL;
    for (size_t i = 0; i < l->napps && !any; i++) {
        any = agent_directive(l->apps[i].info, l->apps[i].ninfo) != NULL;
    }
    if (!any) {
        return 0;
    }
    na_agents_t *g = calloc(1, sizeof(*g));
    if (g == NULL || (g->paths = calloc(l->napps ? l->napps : 1, sizeof(char *))) == NULL ||
        (g->hosts = calloc(l->nnodes ? l->nnodes : 1, sizeof(char *))) == NULL ||
        (g->procs = calloc(l->nprocs ? l->nprocs : 1, sizeof(*g->procs))) == NULL) {
        goto nomem;
    }
    g->napps = l->napps;
    g->nhosts = l->nnodes;
    bool *fe = calloc(l->napps ? l->napps : 1, sizeof(*fe));
    if (fe == NULL) {
        goto nomem;
    }
    for (size_t i = 0; i < l->napps; i++) {
        const pmix_info_t *in = agent_directive(l->apps[i].info, l->apps[i].ninfo);
        in = in != NULL ? in : job;
        if (in != NULL) {
            fe[i] = PMIX_CHECK_KEY(in, PMIX_FORKEXEC_AGENT);
            if ((g->paths[i] = strdup(in->value.data.string)) == NULL) {
                free(fe);
                goto nomem;
            }
        }
    }
    for (size_t n = 0; n < l->nnodes; n++) {
        if ((g->hosts[n] = strdup(l->nodes[n].name)) == NULL) {
            free(fe);
            goto nomem;
        }
    }
    g->job = j;
    g->nprocs = l->nprocs;
    char ns[PMIX_MAX_NSLEN + 8];
    snprintf(ns, sizeof(ns), "%s" PX_NA_AGENTS_SUFFIX, j->nspace);
    PMIX_LOAD_NSPACE(g->nspace, ns);
    const char *w = getenv("PX_NAGENT_TEST_AGENT_WAIT");
    g->wait_s = w != NULL && atoi(w) > 0 ? atoi(w) : PX_NA_AGENT_WAIT;
    for (size_t r = 0; r < l->nprocs; r++) {
        na_agent_t *ag = &g->procs[r];
        uint32_t app = l->procs[r].app; /* < napps: checked when the LAUNCH was read */
        ag->owner = g;
        ag->rank = (pmix_rank_t)r;
        ag->path = g->paths[app];
        ag->fe = ag->path != NULL && fe[app];
        ag->node = l->procs[r].node;
        ag->k = (pmix_rank_t)g->nfe; /* the agents' namespace: in rank order */
        g->nfe += ag->fe;
    }
    free(fe);
    j->agents = g;
    return 0;
nomem:
    if (g != NULL) {
        agents_free(g);
    }
    errno = ENOMEM;
    return -1;
}

/* The value of NAME in env, or NULL. */
static const char *env_get(char *const *env, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
        if (strncmp(env[i], name, n) == 0 && env[i][n] == '=') {
            return env[i] + n + 1;
        }
    }
    return NULL;
}

int px_na_agent_spec(na_job_t *j, pmix_rank_t r, px_child_spec_t *spec, char ***argv_owned,
                     char ***env_owned)
{
    na_agents_t *g = j->agents;
    na_agent_t *ag = &g->procs[r];
    char **argv = NULL;
    if (ag->path == NULL) {
        return 0; /* its app runs without an agent */
    }
    if (PMIx_Argv_append_nosize(&argv, ag->path) != PMIX_SUCCESS) {
        return -1;
    }
    if (!ag->fe) {
        /* "<agent> appargv[0] appargv[1] ...": the agent execs the rest */
        for (size_t i = 0; spec->argv[i] != NULL; i++) {
            if (PMIx_Argv_append_nosize(&argv, spec->argv[i]) != PMIX_SUCCESS) {
                PMIx_Argv_free(argv);
                return -1;
            }
        }
        spec->argv = argv;
        *argv_owned = argv;
        return 0;
    }
    /* the description the agent fetches, and the agent's own environment: the process's
     * with where to connect back (the tool library reads and clears it) */
    char here[4096];
    const char *cwd = spec->wdir != NULL ? spec->wdir : getcwd(here, sizeof(here));
    char **env = PMIx_Argv_copy((char **)spec->env);
    const char *uri = env_get(spec->env, PX_ENV_URI);
    ag->argv = PMIx_Argv_copy((char **)spec->argv);
    ag->env = PMIx_Argv_copy((char **)spec->env);
    ag->cwd = cwd != NULL ? strdup(cwd) : NULL;
    if (env == NULL || uri == NULL || ag->argv == NULL || ag->env == NULL || ag->cwd == NULL ||
        PMIx_Setenv(PMIX_LAUNCHER_RNDZ_URI, uri, true, &env) != PMIX_SUCCESS) {
        PMIx_Argv_free(argv);
        PMIx_Argv_free(env);
        return -1;
    }
    spec->argv = argv;
    spec->env = env;
    *argv_owned = argv;
    *env_owned = env;
    return 0;
}

static void agent_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    na_agent_t *ag = arg;
    if (ag->claimed || ag->failed || ag->pid == 0) {
        return;
    }
    na_job_t *j = ag->owner->job;
    ag->failed = true;
    /* status: the seconds it had, for the message */
    px_na_report(j, ag->rank, PX_DP_PS_FAILED, ag->pid, ag->owner->wait_s, "agent-connect");
    kill(-ag->pid, SIGKILL); /* its exit follows (odls) */
}

void px_na_agent_forked(na_job_t *j, pmix_rank_t r, pid_t pid)
{
    na_agents_t *g = j->agents;
    if (g == NULL || r >= g->nprocs || !g->procs[r].fe) {
        return;
    }
    na_agent_t *ag = &g->procs[r];
    ag->pid = pid;
    ag->timer = evtimer_new(j->agent->o.base, agent_timeout, ag);
    struct timeval tv = {g->wait_s, 0};
    if (ag->timer != NULL) {
        evtimer_add(ag->timer, &tv);
    }
}

bool px_na_agent_started(na_proc_t *p, int err)
{
    na_agents_t *g = p->job->agents;
    if (g == NULL || p->rank >= g->nprocs || !g->procs[p->rank].fe) {
        return false;
    }
    na_agent_t *ag = &g->procs[p->rank];
    if (err != 0) {
        ag->failed = true; /* the agent could not be started: reported as such */
        return false;
    }
    if (ag->failed) {
        return true; /* it already failed (no connection in time) */
    }
    if (!ag->claimed) {
        ag->start_held = true; /* told once it connects back */
        return true;
    }
    return false;
}

void px_na_agent_exited(na_proc_t *p, pid_t pid, int wstatus)
{
    na_agents_t *g = p->job->agents;
    if (g == NULL || p->rank >= g->nprocs || !g->procs[p->rank].fe) {
        return;
    }
    na_agent_t *ag = &g->procs[p->rank];
    if (!ag->claimed && !ag->failed) {
        /* it ended before connecting back: its process never started */
        ag->failed = true;
        px_na_report(p->job, p->rank, PX_DP_PS_FAILED, pid,
                     PX_NA_AGENT_EXITED_BIT | (wstatus & 0xffff), "agent-exited");
    }
    /* the rank ends with its agent: what the agent started is in its process group */
    kill(-pid, SIGKILL);
    ag->pid = 0;
    if (ag->timer != NULL) {
        event_free(ag->timer);
        ag->timer = NULL;
    }
}

bool px_nagent_agent_claim(px_nagent_t *a, pid_t pid, pmix_proc_t *proc)
{
    for (na_job_t *j = a != NULL ? a->jobs : NULL; j != NULL && pid > 0; j = j->next) {
        na_agents_t *g = j->agents;
        for (size_t r = 0; g != NULL && g->registered && r < g->nprocs; r++) {
            na_agent_t *ag = &g->procs[r];
            if (!ag->fe || ag->pid != pid || ag->claimed || ag->failed) {
                continue;
            }
            ag->claimed = true;
            if (ag->timer != NULL) {
                event_free(ag->timer);
                ag->timer = NULL;
            }
            if (ag->start_held) {
                ag->start_held = false;
                px_na_report(j, ag->rank, PX_DP_PS_STARTED, pid, 0, NULL);
            }
            PMIx_Load_procid(proc, g->nspace, ag->k);
            return true;
        }
    }
    return false;
}

/* One agent's process realm, on every node: its rank, host and target; on its own node
 * (the description kept: ag->argv) also the process it starts, the agent's path, its
 * local rank. */
static pmix_status_t agent_realm(na_agents_t *g, na_agent_t *ag, uint16_t local_rank, void *list)
{
    void *pl = PMIx_Info_list_start();
    pmix_proc_t target;
    PMIx_Load_procid(&target, g->job->nspace, ag->rank);
    pmix_status_t rc = PMIx_Info_list_add(pl, PMIX_RANK, &ag->k, PMIX_PROC_RANK);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_add(pl, PMIX_DEBUG_TARGET, &target, PMIX_PROC);
    }
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_add(pl, PMIX_HOSTNAME, g->hosts[ag->node], PMIX_STRING);
    }
    if (rc != PMIX_SUCCESS || ag->argv == NULL) {
        goto out;
    }
    pmix_app_t *app = PMIx_App_create(1);
    char *line = PMIx_Argv_join(ag->argv, ' ');
    if (app == NULL || line == NULL) {
        free(line);
        if (app != NULL) {
            PMIx_App_free(app, 1);
        }
        rc = PMIX_ERR_NOMEM;
        goto out;
    }
    app->cmd = strdup(ag->argv[0]);
    app->argv = ag->argv;
    app->env = ag->env;
    app->cwd = ag->cwd;
    app->maxprocs = 1;
    ag->argv = ag->env = NULL;
    ag->cwd = NULL;
    pmix_data_array_t da = {.type = PMIX_APP, .size = 1, .array = app};
    rc = PMIx_Info_list_add(pl, PX_NA_FEA_APP, &da, PMIX_DATA_ARRAY);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_add(pl, PMIX_APP_ARGV, line, PMIX_STRING);
    }
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_add(pl, PMIX_WDIR, app->cwd, PMIX_STRING);
    }
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_add(pl, PMIX_FORKEXEC_AGENT, ag->path, PMIX_STRING);
    }
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_add(pl, PMIX_LOCAL_RANK, &local_rank, PMIX_UINT16);
    }
    free(line);
    PMIx_App_free(app, 1);
out:
    if (rc != PMIX_SUCCESS) {
        PMIx_Info_list_release(pl);
        return rc;
    }
    return px_ilist_add_array(list, PMIX_PROC_INFO_ARRAY, pl);
}

pmix_status_t px_na_agents_register(px_nagent_t *a, na_job_t *j)
{
    (void)a;
    na_agents_t *g = j->agents;
    if (g == NULL || g->nfe == 0) {
        return PMIX_SUCCESS;
    }
    /* the job data, the same on every node: the agents' size and nodes, their target */
    void *list = PMIx_Info_list_start();
    pmix_proc_t all;
    PMIx_Load_procid(&all, j->nspace, PMIX_RANK_WILDCARD);
    PMIx_Info_list_add(list, PMIX_DEBUG_TARGET, &all, PMIX_PROC);
    PMIx_Info_list_add(list, PMIX_DEBUG_JOB, j->nspace, PMIX_STRING);
    px_ilist_add_u32(list, PMIX_JOB_SIZE, (uint32_t)g->nfe);
    char **nodes = NULL;
    uint32_t nnodes = 0;
    for (size_t n = 0; n < g->nhosts; n++) {
        bool used = false;
        for (size_t r = 0; r < g->nprocs && !used; r++) {
            used = g->procs[r].fe && g->procs[r].node == n;
        }
        if (used) {
            PMIx_Argv_append_nosize(&nodes, g->hosts[n]);
            nnodes++;
        }
    }
    char *node_list = nodes != NULL ? PMIx_Argv_join(nodes, ',') : NULL;
    PMIx_Argv_free(nodes);
    pmix_status_t rc = node_list != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_add(list, PMIX_NODE_LIST, node_list, PMIX_STRING);
    }
    free(node_list);
    if (rc == PMIX_SUCCESS) {
        rc = px_ilist_add_u32(list, PMIX_NUM_NODES, nnodes);
    }
    /* each agent's realm (its description: those of this node) */
    uint16_t nlocal = 0;
    for (size_t r = 0; rc == PMIX_SUCCESS && r < g->nprocs; r++) {
        na_agent_t *ag = &g->procs[r];
        if (ag->fe) {
            bool here = ag->argv != NULL;
            rc = agent_realm(g, ag, nlocal, list);
            nlocal += here;
        }
    }
    px_ilist_add_u32(list, PMIX_LOCAL_SIZE, nlocal);
    pmix_data_array_t da = PMIX_DATA_ARRAY_STATIC_INIT;
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_convert(list, &da);
    }
    PMIx_Info_list_release(list);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_server_register_nspace(g->nspace, (int)nlocal, da.array, da.size, NULL, NULL);
        rc = rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
        g->registered = rc == PMIX_SUCCESS;
        PMIx_Data_array_destruct(&da);
    }
    return rc;
}

void px_na_agents_free(na_job_t *j)
{
    na_agents_t *g = j->agents;
    if (g == NULL) {
        return;
    }
    for (size_t r = 0; r < g->nprocs; r++) {
        na_agent_t *ag = &g->procs[r];
        if (ag->timer != NULL) {
            event_free(ag->timer);
        }
        PMIx_Argv_free(ag->argv);
        PMIx_Argv_free(ag->env);
        free(ag->cwd);
    }
    if (g->registered) {
        PMIx_server_deregister_nspace(g->nspace, NULL, NULL);
    }
    agents_free(g);
    j->agents = NULL;
}
