/* launcher: debugger daemons (the Standard's Tools chapter, "Debugger Support"). An app
 * marked PMIX_DEBUGGER_DAEMONS or PMIX_COSPAWN_APP is a job of its own: beside the
 * application spawned in the same request (co-spawn: started once the application has
 * started, the spawn answered with the application's namespace once both run), or
 * placed on the nodes of a running job (co-location: PMIX_DEBUG_TARGET or the older
 * PMIX_DEBUG_JOB, with PMIX_DEBUG_DAEMONS_PER_NODE / _PER_PROC). The daemons' job data
 * carries PMIX_DEBUG_TARGET; they never count in the application's ranks, sizes, peers
 * or slots. Their job lives on its own (it ends by itself, or with its requester's
 * connection unless PMIX_NOHUP), but co-spawned daemons that fail end their
 * application. Controller loop only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <pmix.h>

#include "help/px_help.h"
#include "launcher/dvm_int.h"
#include "server/px_srv_host.h"

struct px_dbg {
    /* an application spawned with debugger daemons */
    px_job_t *daemons; /* borrowed: its daemons' job, until one of the two ends */
    bool deferred;     /* its launch is told once its daemons run (px_dbg_launched) */
    /* a daemons' job */
    bool is_daemons;
    bool cospawn;            /* spawned with its application (else co-located) */
    bool waiting;            /* co-spawn: waits for its application's start */
    px_job_t *target;        /* borrowed: the job it debugs, until that ends */
    pmix_proc_t target_proc; /* what the daemons are told (a rank, or the wildcard) */
    uint16_t per_node, per_proc;
    bool out_held;          /* co-spawn: output held until the spawn is answered */
    struct event *start_ev; /* owned: maps co-spawned daemons on a later loop turn */
    /* owned arrays the job's apps/info point to (NULL: the request's own) */
    pmix_app_t *apps; /* owned array: the request's apps (see owns_apps) */
    size_t napps;
    bool owns_apps;    /* a daemons' job: apps are deep copies (info without stops) */
    pmix_info_t *info; /* owned: a daemons' job's info without stop points */
    size_t ninfo;
    /* a job whose processes run under debugger agents (PMIX_FORKEXEC_AGENT, _EXEC_) */
    px_jagents_t *agents; /* owned (job_agents.c); NULL: none */
};

/* The job's stop points and agents apply to the application only (Standard: "pause
 * attributes do not apply to applications where PMIX_DEBUGGER_DAEMONS is set"; the
 * daemons are not the processes an agent shepherds). */
static bool stop_key(const pmix_info_t *in)
{
    return PMIX_CHECK_KEY(in, PMIX_DEBUG_STOP_ON_EXEC) ||
           PMIX_CHECK_KEY(in, PMIX_DEBUG_STOP_IN_INIT) ||
           PMIX_CHECK_KEY(in, PMIX_DEBUG_STOP_IN_APP) || PMIX_CHECK_KEY(in, PMIX_FORKEXEC_AGENT) ||
           PMIX_CHECK_KEY(in, PMIX_EXEC_AGENT);
}

/* A deep copy of info[] without the stop points; *out NULL when nothing is left. */
static pmix_status_t copy_without_stops(const pmix_info_t *info, size_t ninfo, pmix_info_t **out,
                                        size_t *nout)
{
    size_t n = 0;
    *out = NULL;
    *nout = 0;
    for (size_t i = 0; i < ninfo; i++) {
        n += !stop_key(&info[i]);
    }
    if (n == 0) {
        return PMIX_SUCCESS;
    }
    pmix_info_t *c = PMIx_Info_create(n);
    if (c == NULL) {
        return PMIX_ERR_NOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < ninfo; i++) {
        if (!stop_key(&info[i]) && PMIx_Info_xfer(&c[k++], &info[i]) != PMIX_SUCCESS) {
            PMIx_Info_free(c, n);
            return PMIX_ERR_NOMEM;
        }
    }
    *out = c;
    *nout = n;
    return PMIX_SUCCESS;
}

static bool true_at(const pmix_info_t *info, size_t ninfo, const char *key)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], key) && PMIX_INFO_TRUE(&info[i])) {
            return true;
        }
    }
    return false;
}

static bool is_daemon_app(const pmix_app_t *app)
{
    return true_at(app->info, app->ninfo, PMIX_DEBUGGER_DAEMONS) ||
           true_at(app->info, app->ninfo, PMIX_COSPAWN_APP);
}

/* What a request asks of debugger daemons, read from the job info and each app's. */
typedef struct {
    size_t ndaemon_apps;
    const char *target_key; /* the key naming a target, NULL: none */
    pmix_proc_t target;
    const char *per_key; /* PER_NODE or PER_PROC when given */
    uint16_t per_node, per_proc;
    char *msg; /* a refusal's text */
    pmix_status_t rc;
} dreq_t;

static void refuse(dreq_t *q, pmix_status_t rc, char *msg)
{
    if (q->rc == PMIX_SUCCESS) {
        q->rc = rc;
        q->msg = msg;
    } else {
        free(msg);
    }
}

static void read_keys(dreq_t *q, const px_job_t *j, const pmix_info_t *info, size_t ninfo)
{
    for (size_t i = 0; i < ninfo; i++) {
        const pmix_info_t *in = &info[i];
        uint16_t n = 0;
        if (PMIX_CHECK_KEY(in, PMIX_DEBUG_TARGET)) {
            if (in->value.type != PMIX_PROC || in->value.data.proc == NULL ||
                in->value.data.proc->nspace[0] == '\0') {
                refuse(q, PMIX_ERR_BAD_PARAM,
                       px_help_render("help-prte-debug.txt", "bad-value", j->nspace, in->key,
                                      "a pmix_proc_t (PMIX_PROC) naming a namespace"));
                continue;
            }
            q->target_key = PMIX_DEBUG_TARGET;
            q->target = *in->value.data.proc;
        } else if (PMIX_CHECK_KEY(in, PMIX_DEBUG_JOB)) {
            if (in->value.type != PMIX_STRING || in->value.data.string == NULL ||
                in->value.data.string[0] == '\0') {
                refuse(q, PMIX_ERR_BAD_PARAM,
                       px_help_render("help-prte-debug.txt", "bad-value", j->nspace, in->key,
                                      "a namespace (PMIX_STRING)"));
                continue;
            }
            if (q->target_key == NULL) { /* PMIX_DEBUG_TARGET wins */
                q->target_key = PMIX_DEBUG_JOB;
                PMIx_Load_procid(&q->target, in->value.data.string, PMIX_RANK_WILDCARD);
            }
        } else if (PMIX_CHECK_KEY(in, PMIX_DEBUG_DAEMONS_PER_NODE) ||
                   PMIX_CHECK_KEY(in, PMIX_DEBUG_DAEMONS_PER_PROC)) {
            if (PMIx_Value_get_number(&in->value, &n, PMIX_UINT16) != PMIX_SUCCESS || n == 0) {
                refuse(q, PMIX_ERR_BAD_PARAM,
                       px_help_render("help-prte-debug.txt", "bad-value", j->nspace, in->key,
                                      "a count from 1 to 65535 (PMIX_UINT16)"));
                continue;
            }
            bool node = PMIX_CHECK_KEY(in, PMIX_DEBUG_DAEMONS_PER_NODE);
            q->per_key = node ? PMIX_DEBUG_DAEMONS_PER_NODE : PMIX_DEBUG_DAEMONS_PER_PROC;
            *(node ? &q->per_node : &q->per_proc) = n;
        }
    }
}

static void dbg_free(px_dbg_t *g)
{
    if (g == NULL) {
        return;
    }
    if (g->start_ev != NULL) {
        event_free(g->start_ev);
    }
    for (size_t a = 0; g->owns_apps && a < g->napps; a++) {
        pmix_app_t *app = &g->apps[a];
        free(app->cmd);
        PMIx_Argv_free(app->argv);
        PMIx_Argv_free(app->env);
        free(app->cwd);
        PMIx_Info_free(app->info, app->ninfo);
    }
    free(g->apps);
    px_jagents_free(g->agents);
    PMIx_Info_free(g->info, g->ninfo);
    free(g);
}

/* The daemons' apps (want true) as copies of their own (the co-spawned daemons may be
 * launched after the request is gone: its spawn is answered once the application ends,
 * if that comes first), their info without stop points; or the application's apps as
 * shallow copies (used until its launch, which the request outlives). */
static pmix_status_t pick_apps(px_dbg_t *g, const pmix_app_t *apps, size_t napps, bool want,
                               bool all)
{
    g->apps = calloc(napps ? napps : 1, sizeof(*g->apps));
    g->owns_apps = want;
    if (g->apps == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (size_t a = 0; a < napps; a++) {
        if ((all || is_daemon_app(&apps[a])) != want) {
            continue;
        }
        size_t k = g->napps++;
        pmix_app_t *c = &g->apps[k];
        if (!want) {
            *c = apps[a];
            continue;
        }
        c->maxprocs = apps[a].maxprocs;
        c->cmd = apps[a].cmd ? strdup(apps[a].cmd) : NULL;
        c->argv = PMIx_Argv_copy(apps[a].argv);
        c->env = PMIx_Argv_copy(apps[a].env);
        c->cwd = apps[a].cwd ? strdup(apps[a].cwd) : NULL;
        pmix_status_t rc = copy_without_stops(apps[a].info, apps[a].ninfo, &c->info, &c->ninfo);
        if (rc != PMIX_SUCCESS || (apps[a].cmd && !c->cmd) || (apps[a].argv && !c->argv) ||
            (apps[a].env && !c->env) || (apps[a].cwd && !c->cwd)) {
            return PMIX_ERR_NOMEM;
        }
    }
    return PMIX_SUCCESS;
}

/* The running job the co-located daemons go beside, checked. */
static px_job_t *find_target(px_job_t *j, dreq_t *q)
{
    px_job_t *t = px_job_find(j->dvm, q->target.nspace);
    if (t == NULL || t == j) {
        refuse(
            q, PMIX_ERR_NOT_FOUND,
            px_help_render("help-prte-debug.txt", "target-unknown", j->nspace, q->target.nspace));
        return NULL;
    }
    if (!t->launched || t->nstarting > 0 || px_job_ending(t)) {
        refuse(q, PMIX_ERR_NOT_AVAILABLE,
               px_help_render("help-prte-debug.txt", "target-not-running", j->nspace, t->nspace));
        return NULL;
    }
    if (q->target.rank != PMIX_RANK_WILDCARD && q->target.rank >= t->nprocs) {
        refuse(q, PMIX_ERR_BAD_PARAM,
               px_help_render("help-prte-debug.txt", "target-rank", j->nspace,
                              (unsigned)q->target.rank, t->nspace, t->nprocs));
        return NULL;
    }
    return t;
}

/* j's processes run under the agents info and apps name (if any): kept, for the
 * messages about them once the request is gone and for the agents' namespace.
 * PMIX_SUCCESS or PMIX_ERR_NOMEM. */
static pmix_status_t keep_agents(px_job_t *j, const pmix_info_t *info, size_t ninfo,
                                 const pmix_app_t *apps, size_t napps)
{
    px_jagents_t *ag = NULL;
    pmix_status_t rc = px_jagents_keep(info, ninfo, apps, napps, &ag);
    if (rc != PMIX_SUCCESS || ag == NULL) {
        return rc;
    }
    px_dbg_t *g = j->dbg != NULL ? j->dbg : calloc(1, sizeof(*g));
    if (g == NULL) {
        px_jagents_free(ag);
        return PMIX_ERR_NOMEM;
    }
    g->agents = ag;
    j->dbg = g;
    return PMIX_SUCCESS;
}

px_jagents_t *px_dbg_agents(const px_job_t *j)
{
    return j->dbg != NULL ? j->dbg->agents : NULL;
}

pmix_status_t px_dbg_spawn(px_job_t *j, px_job_t **daemons, const pmix_info_t **info, size_t *ninfo,
                           const pmix_app_t **apps, size_t *napps, char **msg)
{
    dreq_t q = {0};
    *daemons = NULL;
    bool all = true_at(*info, *ninfo, PMIX_DEBUGGER_DAEMONS); /* every app is a daemon */
    bool *mine = calloc(*napps ? *napps : 1, sizeof(*mine));
    if (mine == NULL) {
        return PMIX_ERR_NOMEM;
    }
    read_keys(&q, j, *info, *ninfo);
    for (size_t a = 0; a < *napps; a++) {
        mine[a] = all || is_daemon_app(&(*apps)[a]);
        q.ndaemon_apps += mine[a];
        if (mine[a]) {
            read_keys(&q, j, (*apps)[a].info, (*apps)[a].ninfo);
        }
    }
    char *amsg = NULL; /* the agents (job_agents.c): of the application only */
    pmix_status_t arc = px_jagents_check(j, *info, *ninfo, *apps, *napps, mine, &amsg);
    free(mine);
    if (arc != PMIX_SUCCESS) {
        refuse(&q, arc, amsg);
    }
    bool cospawn = q.ndaemon_apps > 0 && q.ndaemon_apps < *napps;
    if (q.rc == PMIX_SUCCESS && q.ndaemon_apps == 0 && (q.target_key || q.per_key)) {
        refuse(&q, PMIX_ERR_BAD_PARAM,
               px_help_render("help-prte-debug.txt", "no-daemons", j->nspace,
                              q.target_key ? q.target_key : q.per_key));
    } else if (q.rc == PMIX_SUCCESS && q.ndaemon_apps > 0 && !cospawn && q.target_key == NULL) {
        refuse(&q, PMIX_ERR_BAD_PARAM,
               px_help_render("help-prte-debug.txt", "no-target", j->nspace));
    } else if (q.rc == PMIX_SUCCESS && cospawn && q.target_key != NULL) {
        refuse(&q, PMIX_ERR_BAD_PARAM,
               px_help_render("help-prte-debug.txt", "cospawn-target", j->nspace, q.target_key));
    } else if (q.rc == PMIX_SUCCESS && q.per_node > 0 && q.per_proc > 0) {
        refuse(&q, PMIX_ERR_BAD_PARAM,
               px_help_render("help-prte-debug.txt", "both-placements", j->nspace));
    } else if (q.rc == PMIX_SUCCESS && q.per_key != NULL && q.ndaemon_apps > 1) {
        refuse(&q, PMIX_ERR_NOT_SUPPORTED,
               px_help_render("help-prte-debug.txt", "placement-apps", j->nspace, q.ndaemon_apps));
    }
    if (q.rc == PMIX_SUCCESS && q.ndaemon_apps == 0) {
        return keep_agents(j, *info, *ninfo, *apps, *napps); /* a plain job, maybe under agents */
    }
    if (q.rc != PMIX_SUCCESS) {
        *msg = q.msg;
        return q.rc;
    }
    px_job_t *target = cospawn ? NULL : find_target(j, &q);
    if (q.rc != PMIX_SUCCESS) {
        *msg = q.msg;
        return q.rc;
    }
    /* the daemons' job: j itself (co-location), or a new job beside j (co-spawn) */
    px_job_t *d = cospawn ? px_job_new(j->dvm, j) : j;
    px_dbg_t *dg = calloc(1, sizeof(*dg));
    px_dbg_t *ag = cospawn ? calloc(1, sizeof(*ag)) : NULL;
    pmix_status_t rc =
        d != NULL && dg != NULL && (!cospawn || ag != NULL) ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    if (rc == PMIX_SUCCESS) {
        dg->is_daemons = true;
        dg->cospawn = cospawn;
        dg->waiting = cospawn;
        dg->out_held = cospawn;
        dg->per_node = q.per_node;
        dg->per_proc = q.per_proc;
        dg->target = cospawn ? j : target;
        dg->target_proc = cospawn ? (pmix_proc_t){0} : q.target;
        if (cospawn) {
            PMIx_Load_procid(&dg->target_proc, j->nspace, PMIX_RANK_WILDCARD);
        }
        rc = pick_apps(dg, *apps, *napps, true, all);
    }
    if (rc == PMIX_SUCCESS) {
        rc = copy_without_stops(*info, *ninfo, &dg->info, &dg->ninfo);
    }
    if (rc == PMIX_SUCCESS && cospawn) {
        rc = pick_apps(ag, *apps, *napps, false, all);
    }
    if (rc != PMIX_SUCCESS) {
        dbg_free(dg);
        dbg_free(ag);
        if (d != j && d != NULL) {
            d->dbg = NULL;
            px_job_move(d, PX_JOB_ENDED, "out of memory"); /* frees it */
        }
        return rc;
    }
    d->dbg = dg;
    if (cospawn) {
        ag->daemons = d;
        j->dbg = ag;
        *apps = ag->apps;
        *napps = ag->napps;
        *daemons = d;
        px_dvm_log(j->dvm, 1, "%s: co-spawns debugger daemons as %s", j->nspace, d->nspace);
        return keep_agents(j, *info, *ninfo, *apps, *napps); /* the application's agents */
    } else {
        *apps = dg->apps;
        *napps = dg->napps;
        *info = dg->info;
        *ninfo = dg->ninfo;
        px_dvm_log(j->dvm, 1, "%s: debugger daemons beside %s", j->nspace, target->nspace);
    }
    return PMIX_SUCCESS;
}

void px_dbg_daemons_part(const px_job_t *d, const pmix_info_t **info, size_t *ninfo,
                         const pmix_app_t **apps, size_t *napps)
{
    *info = d->dbg->info;
    *ninfo = d->dbg->ninfo;
    *apps = d->dbg->apps;
    *napps = d->dbg->napps;
}

bool px_dbg_is_daemons(const px_job_t *j)
{
    return j->dbg != NULL && j->dbg->is_daemons;
}

bool px_dbg_places(const px_job_t *j)
{
    return px_dbg_is_daemons(j) && j->dbg->target != NULL &&
           (j->dbg->per_node > 0 || j->dbg->per_proc > 0);
}

/* ---- placement beside the target ---- */

typedef struct {
    unsigned node; /* the pool's index */
    uint16_t local_rank;
} spot_t;

static int spot_cmp(const void *a, const void *b)
{
    const spot_t *x = a, *y = b;
    if (x->node != y->node) {
        return x->node < y->node ? -1 : 1;
    }
    return x->local_rank < y->local_rank ? -1 : x->local_rank > y->local_rank;
}

pmix_status_t px_dbg_map(px_job_t *d, const px_pool_t *pool, px_map_t *map, char **msg)
{
    const px_dbg_t *g = d->dbg;
    const px_job_t *t = g->target;
    spot_t *spots = calloc(t->nprocs ? t->nprocs : 1, sizeof(*spots));
    if (spots == NULL) {
        return PMIX_ERR_NOMEM;
    }
    /* the target's live processes on nodes whose daemon is up, by node then local rank */
    size_t ns = 0;
    for (size_t r = 0; r < t->nprocs; r++) {
        if (g->target_proc.rank != PMIX_RANK_WILDCARD && g->target_proc.rank != r) {
            continue;
        }
        if (t->procs[r].state == PX_PROC_DONE || t->procs[r].state == PX_PROC_FAILED_START) {
            continue;
        }
        for (size_t n = 0; n < pool->nnodes; n++) {
            if (pool->ids[n] == t->map.procs[r].node) {
                spots[ns++] = (spot_t){(unsigned)n, t->map.procs[r].local_rank};
                break;
            }
        }
    }
    if (ns == 0) {
        free(spots);
        *msg = px_help_render("help-prte-debug.txt", "target-gone", d->nspace, t->nspace);
        return PMIX_ERR_NOT_AVAILABLE;
    }
    qsort(spots, ns, sizeof(*spots), spot_cmp);
    size_t total = 0;
    for (size_t i = 0; i < ns; i++) {
        bool first_on_node = i == 0 || spots[i].node != spots[i - 1].node;
        total += g->per_proc > 0 ? g->per_proc : (first_on_node ? g->per_node : 0);
    }
    *map = (px_map_t){0};
    map->procs = calloc(total, sizeof(*map->procs));
    map->app_nprocs = calloc(1, sizeof(*map->app_nprocs));
    if (map->procs == NULL || map->app_nprocs == NULL) {
        free(spots);
        px_map_free(map);
        return PMIX_ERR_NOMEM;
    }
    map->nprocs = total;
    map->napps = 1;
    map->app_nprocs[0] = (uint32_t)total;
    map->bind_obj = PX_MAP_OBJ_NONE;
    size_t k = 0;
    uint16_t local = 0;
    for (size_t i = 0; i < ns; i++) {
        bool first_on_node = i == 0 || spots[i].node != spots[i - 1].node;
        local = first_on_node ? 0 : local;
        size_t here = g->per_proc > 0 ? g->per_proc : (first_on_node ? g->per_node : 0);
        for (size_t c = 0; c < here; c++, k++) {
            map->procs[k] = (px_map_proc_t){.rank = (pmix_rank_t)k,
                                            .app = 0,
                                            .app_rank = (pmix_rank_t)k,
                                            .node = spots[i].node,
                                            .local_rank = local,
                                            .node_rank = local};
            local++;
        }
    }
    free(spots);
    return PMIX_SUCCESS;
}

/* ---- the daemons' job data ---- */

pmix_status_t px_dbg_reg_info(const px_job_t *j, void *list)
{
    if (!px_dbg_is_daemons(j)) {
        return PMIX_SUCCESS;
    }
    const pmix_proc_t *t = &j->dbg->target_proc;
    pmix_status_t rc = PMIx_Info_list_add(list, PMIX_DEBUG_TARGET, t, PMIX_PROC);
    if (rc == PMIX_SUCCESS) { /* the older name, for daemons that read it */
        rc = PMIx_Info_list_add(list, PMIX_DEBUG_JOB, t->nspace, PMIX_STRING);
    }
    return rc;
}

/* ---- co-spawn: the daemons start once their application has ---- */

static void start_daemons(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    px_job_t *d = arg;
    if (d->dbg->target == NULL) { /* the application ended first (px_dbg_job_ended) */
        d->why = PX_WHY_KILLED;
        px_job_move(d, PX_JOB_ENDED, "its application ended before it started");
        return;
    }
    px_job_map(d); /* a failure ends d, and with it (px_dbg_job_ended) its application */
}

bool px_dbg_defer_launch(px_job_t *j)
{
    px_job_t *d = j->dbg != NULL ? j->dbg->daemons : NULL;
    if (d == NULL || !d->dbg->waiting) {
        return false;
    }
    d->dbg->waiting = false;
    j->dbg->deferred = true;
    /* not from inside the application's move to RUNNING: a daemons' job that cannot be
     * mapped ends at once, and so does its application */
    d->dbg->start_ev = evtimer_new(j->dvm->base, start_daemons, d);
    struct timeval now = {0, 0};
    if (d->dbg->start_ev == NULL || evtimer_add(d->dbg->start_ev, &now) != 0) {
        start_daemons(-1, 0, d);
    }
    px_dvm_log(j->dvm, 1, "%s started: its debugger daemons %s start now", j->nspace, d->nspace);
    return true;
}

/* The application's launch is told now (its spawn answered with its namespace); its
 * co-spawned daemons' output goes where its output goes from then on. */
static void tell_app(px_job_t *j)
{
    j->dbg->deferred = false;
    px_job_tell_launched(j);
    px_job_t *d = j->dbg->daemons;
    if (d != NULL && !j->local && !j->out_here) {
        px_srv_iof_inherit(j->nspace, d->nspace); /* after the server made j's sinks */
    }
}

void px_dbg_launched(px_job_t *d)
{
    if (!px_dbg_is_daemons(d) || !d->dbg->cospawn) {
        return;
    }
    px_job_t *j = d->dbg->target;
    if (j != NULL && j->dbg != NULL && j->dbg->deferred && !px_job_ending(j)) {
        tell_app(j);
    }
    /* the output held until the application's spawn was answered (dropped by the library
     * when it never was: the application failed before it ran) */
    d->dbg->out_held = false;
    px_out_flush_held(d, false);
}

bool px_dbg_out_held(const px_job_t *j)
{
    return j->dbg != NULL && j->dbg->out_held;
}

/* ---- ends ---- */

void px_dbg_job_ending(px_job_t *j)
{
    if (j->dbg != NULL && j->dbg->deferred && j->state == PX_JOB_ENDED && j->launched &&
        j->nstarting == 0 && j->why != PX_WHY_START && j->why != PX_WHY_DEBUGGER) {
        /* it ran and ended before its daemons ran: the spawn succeeded (its end follows);
         * daemons that could not start fail the spawn instead (PX_WHY_DEBUGGER) */
        tell_app(j);
    }
}

void px_dbg_job_ended(px_job_t *j, const char *message)
{
    px_dvm_t *dvm = j->dvm;
    /* the daemons debugging j live on (a separate job: they end by themselves, or with
     * their requester's connection); co-spawned ones not started yet end with it */
    for (px_job_t *d = dvm->jobs, *next; d != NULL; d = next) {
        next = d->next;
        if (d == j || !px_dbg_is_daemons(d) || d->dbg->target != j) {
            continue;
        }
        d->dbg->target = NULL;
        if (d->state == PX_JOB_INIT && d->dbg->start_ev == NULL) {
            /* not scheduled to start yet (else start_daemons ends it) */
            d->dbg->waiting = false;
            d->why = PX_WHY_KILLED;
            px_dvm_log(dvm, 1, "%s: %s ended before its debugger daemons started", d->nspace,
                       j->nspace);
            px_job_move(d, PX_JOB_ENDED, "its application ended first"); /* frees d */
            next = dvm->jobs; /* start over: the list changed (the rest no longer match) */
        }
    }
    if (j->dbg != NULL) {
        j->dbg->daemons = NULL;
    }
    if (!px_dbg_is_daemons(j) || j->dbg->target == NULL) {
        return;
    }
    px_job_t *t = j->dbg->target;
    j->dbg->target = NULL;
    if (t->dbg != NULL) {
        t->dbg->daemons = NULL;
    }
    /* co-spawned daemons that failed end their application (one spawn, one request) */
    if (j->dbg->cospawn && j->why != PX_WHY_NONE && j->why != PX_WHY_KILLED && !px_job_ending(t)) {
        char *text = px_help_render("help-prte-debug.txt", "daemons-failed", t->nspace, j->nspace,
                                    message ? message : "(no message)");
        px_job_fail_debugger(t, text ? text : "");
        free(text);
    }
}

void px_dbg_job_free(px_job_t *j)
{
    dbg_free(j->dbg);
    j->dbg = NULL;
}

/* ---- debugger agents: their failures, in the user's words ---- */

char *px_dbg_agent_signal(const px_job_t *j, int pid)
{
    bool fe = false;
    const char *path = px_jagents_path(j, j->why_rank, &fe);
    if (path == NULL || !fe || j->why_rank >= j->nprocs) {
        return NULL; /* an exec agent is the process itself */
    }
    return px_help_render("help-prte-debug.txt", "agent-signal", (unsigned)j->why_rank, j->nspace,
                          px_job_node_name(j, j->why_rank), path, pid, j->why_code,
                          strsignal(j->why_code));
}

char *px_dbg_agent_failure(const px_job_t *j, pmix_rank_t rank)
{
    bool fe = false;
    const char *path = px_jagents_path(j, rank, &fe);
    const char *stage = j->why_text != NULL ? j->why_text : "";
    if (path == NULL) {
        return NULL;
    }
    const char *node = px_job_node_name(j, rank);
    const char *kind = fe ? "fork/exec agent" : "exec agent";
    const char *opt =
        fe ? "--fork-exec-agent (PMIX_FORKEXEC_AGENT)" : "--exec-agent (PMIX_EXEC_AGENT)";
    if (strcmp(stage, "exec") == 0) {
        return px_help_render("help-prte-debug.txt", "agent-exec", (unsigned)rank, j->nspace, node,
                              kind, path, strerror(j->why_code), opt);
    }
    if (strcmp(stage, "agent-exited") == 0) {
        char how[64];
        int st = j->why_code & 0xffff; /* PX_NA_AGENT_EXITED_BIT | wait status */
        if (WIFSIGNALED(st)) {
            snprintf(how, sizeof(how), "was killed by signal %d (%s)", WTERMSIG(st),
                     strsignal(WTERMSIG(st)));
        } else {
            snprintf(how, sizeof(how), "exited with status %d", WEXITSTATUS(st));
        }
        return px_help_render("help-prte-debug.txt", "agent-exited", path, (unsigned)rank,
                              j->nspace, node, how, (unsigned)rank);
    }
    if (strcmp(stage, "agent-connect") == 0) {
        return px_help_render("help-prte-debug.txt", "agent-connect", path, (unsigned)rank,
                              j->nspace, node, j->why_code, (unsigned)rank);
    }
    return NULL;
}
