/* daemon: the node agent's debugger agents (the Standard's Tools chapter, "Debugger
 * Agents"): a job started with PMIX_EXEC_AGENT runs "<agent> <the process's argv>" in
 * place of each process (the agent execs it; it is the process); with
 * PMIX_FORKEXEC_AGENT the agent runs in place of each process, connects back to this
 * daemon's PMIx server as a tool (found through PMIX_LAUNCHER_RNDZ_URI, recognised by its
 * pid and given its identity in the agents' namespace "<job>.fea"), reads the
 * description of the process it replaces (PX_NA_FEA_APP: cmd, argv, env, cwd) and
 * starts it; that process is the registered client of its rank, the agents never are.
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
    pmix_rank_t rank;
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
    bool fork_exec; /* else an exec agent */
    char *path;     /* owned */
    pmix_nspace_t nspace;
    bool registered;
    int wait_s;
    na_agent_t *procs; /* owned, by rank */
    size_t nprocs;
};

int px_na_agents_setup(px_nagent_t *a, na_job_t *j, const px_dp_launch_t *l)
{
    (void)a;
    const char *path = NULL;
    bool fe = false;
    for (size_t i = 0; i < l->ninfo; i++) {
        bool f = PMIX_CHECK_KEY(&l->info[i], PMIX_FORKEXEC_AGENT);
        if ((f || PMIX_CHECK_KEY(&l->info[i], PMIX_EXEC_AGENT)) &&
            l->info[i].value.type == PMIX_STRING && l->info[i].value.data.string != NULL &&
            l->info[i].value.data.string[0] != '\0') {
            path = l->info[i].value.data.string;
            fe = f;
        }
    }
    if (path == NULL) {
        return 0;
    }
    na_agents_t *g = calloc(1, sizeof(*g));
    if (g == NULL || (g->path = strdup(path)) == NULL ||
        (g->procs = calloc(l->nprocs ? l->nprocs : 1, sizeof(*g->procs))) == NULL) {
        if (g != NULL) {
            free(g->path);
        }
        free(g);
        errno = ENOMEM;
        return -1;
    }
    g->job = j;
    g->fork_exec = fe;
    g->nprocs = l->nprocs;
    char ns[PMIX_MAX_NSLEN + 8];
    snprintf(ns, sizeof(ns), "%s.fea", j->nspace);
    PMIX_LOAD_NSPACE(g->nspace, ns);
    const char *w = getenv("PX_NAGENT_TEST_AGENT_WAIT");
    g->wait_s = w != NULL && atoi(w) > 0 ? atoi(w) : PX_NA_AGENT_WAIT;
    for (size_t r = 0; r < l->nprocs; r++) {
        g->procs[r].owner = g;
        g->procs[r].rank = (pmix_rank_t)r;
    }
    j->agents = g;
    return 0;
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
    char **argv = NULL;
    if (PMIx_Argv_append_nosize(&argv, g->path) != PMIX_SUCCESS) {
        return -1;
    }
    if (!g->fork_exec) {
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
    na_agent_t *ag = &g->procs[r];
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
    if (g == NULL || !g->fork_exec || r >= g->nprocs) {
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
    if (g == NULL || !g->fork_exec || p->rank >= g->nprocs) {
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
    if (g == NULL || !g->fork_exec || p->rank >= g->nprocs) {
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
        for (size_t r = 0; g != NULL && g->fork_exec && g->registered && r < g->nprocs; r++) {
            na_agent_t *ag = &g->procs[r];
            if (ag->pid != pid || ag->claimed || ag->failed) {
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
            PMIx_Load_procid(proc, g->nspace, ag->rank);
            return true;
        }
    }
    return false;
}

/* One agent's process realm: its target, the description of the process it starts. */
static pmix_status_t agent_realm(na_agents_t *g, na_agent_t *ag, void *list)
{
    void *pl = PMIx_Info_list_start();
    pmix_proc_t target;
    PMIx_Load_procid(&target, g->job->nspace, ag->rank);
    PMIx_Info_list_add(pl, PMIX_RANK, &ag->rank, PMIX_PROC_RANK);
    PMIx_Info_list_add(pl, PMIX_DEBUG_TARGET, &target, PMIX_PROC);
    pmix_app_t *app = PMIx_App_create(1);
    char *line = PMIx_Argv_join(ag->argv, ' ');
    if (app == NULL || line == NULL) {
        free(line);
        if (app != NULL) {
            PMIx_App_free(app, 1);
        }
        PMIx_Info_list_release(pl);
        return PMIX_ERR_NOMEM;
    }
    app->cmd = strdup(ag->argv[0]);
    app->argv = ag->argv;
    app->env = ag->env;
    app->cwd = ag->cwd;
    app->maxprocs = 1;
    ag->argv = ag->env = NULL;
    ag->cwd = NULL;
    pmix_data_array_t da = {.type = PMIX_APP, .size = 1, .array = app};
    pmix_status_t rc = PMIx_Info_list_add(pl, PX_NA_FEA_APP, &da, PMIX_DATA_ARRAY);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_add(pl, PMIX_APP_ARGV, line, PMIX_STRING);
    }
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_add(pl, PMIX_WDIR, app->cwd, PMIX_STRING);
    }
    free(line);
    PMIx_App_free(app, 1);
    if (rc != PMIX_SUCCESS) {
        PMIx_Info_list_release(pl);
        return rc;
    }
    return px_ilist_add_array(list, PMIX_PROC_INFO_ARRAY, pl);
}

pmix_status_t px_na_agents_register(px_nagent_t *a, na_job_t *j)
{
    na_agents_t *g = j->agents;
    if (g == NULL || !g->fork_exec) {
        return PMIX_SUCCESS;
    }
    void *list = PMIx_Info_list_start();
    pmix_proc_t all;
    PMIx_Load_procid(&all, j->nspace, PMIX_RANK_WILDCARD);
    uint32_t nlocal = 0;
    PMIx_Info_list_add(list, PMIX_DEBUG_TARGET, &all, PMIX_PROC);
    PMIx_Info_list_add(list, PMIX_DEBUG_JOB, j->nspace, PMIX_STRING);
    PMIx_Info_list_add(list, PMIX_FORKEXEC_AGENT, g->path, PMIX_STRING);
    PMIx_Info_list_add(list, PMIX_HOSTNAME, a->o.node, PMIX_STRING);
    px_ilist_add_u32(list, PMIX_JOB_SIZE, (uint32_t)g->nprocs);
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t r = 0; rc == PMIX_SUCCESS && r < g->nprocs; r++) {
        if (g->procs[r].argv != NULL) {
            nlocal++;
            rc = agent_realm(g, &g->procs[r], list);
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
    free(g->procs);
    free(g->path);
    free(g);
    j->agents = NULL;
}
