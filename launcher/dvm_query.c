/* launcher: the host's answers to queries the library passes up — running namespaces,
 * proc tables (pmix_proc_info_t: host, executable, pid, state, exit code), spawn and
 * debug support.
 * The upcall arrives on the server library's thread; answers are built on the loop.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/px_common.h"
#include "bfrops/px_bfrops.h"
#include "daemon/px_dproto.h"
#include "launcher/dvm_int.h"
#include "launcher/px_daemons.h"

typedef struct {
    px_dvm_t *dvm;
    unsigned node;         /* the requester's node (daemon id): its local proc tables */
    pmix_query_t *queries; /* borrowed until the callback */
    size_t nqueries;
    pmix_info_cbfunc_t cbfunc;
    void *cbdata;
    pmix_info_t *results; /* owned */
    size_t nresults;
} query_req_t;

static void query_release(void *arg)
{
    query_req_t *q = arg;
    PMIx_Info_free(q->results, q->nresults);
    free(q);
}

/* A process's state: its progress while it lives; once reaped, how it ended (and
 * whether the DVM ended it after another process's failure). */
static pmix_proc_state_t proc_state(const px_job_t *j, const px_proc_t *p)
{
    bool first = j->why_rank == p->proc.rank; /* this process decided how the job ends */
    if (first && j->why == PX_WHY_ABORT) {
        return PMIX_PROC_STATE_CALLED_ABORT;
    }
    switch (p->state) {
    case PX_PROC_INIT:
        return PMIX_PROC_STATE_PREPPED;
    case PX_PROC_STARTING:
        return PMIX_PROC_STATE_LAUNCH_UNDERWAY;
    case PX_PROC_RUNNING:
        if (p->at_stop || p->os_stopped) { /* held at a stop point, or by a signal */
            return PX_PROC_STATE_STOPPED;
        }
        return p->connected ? PMIX_PROC_STATE_CONNECTED : PMIX_PROC_STATE_RUNNING;
    case PX_PROC_FAILED_START:
        return PMIX_PROC_STATE_FAILED_TO_START;
    case PX_PROC_DONE:
        if (first && j->why == PX_WHY_START) {
            return PMIX_PROC_STATE_FAILED_TO_START;
        }
        if (WIFSIGNALED(p->wstatus)) {
            return (px_job_ending(j) && !first) ? PMIX_PROC_STATE_KILLED_BY_CMD
                                                : PMIX_PROC_STATE_ABORTED_BY_SIG;
        }
        if (WIFEXITED(p->wstatus) && WEXITSTATUS(p->wstatus) != 0) {
            return PMIX_PROC_STATE_TERM_NON_ZERO;
        }
        if (p->connected && !p->finalized) {
            return PMIX_PROC_STATE_TERM_WO_SYNC;
        }
        return PMIX_PROC_STATE_TERMINATED;
    }
    return PMIX_PROC_STATE_UNDEF;
}

/* The exit code of a reaped process (128 + signal when a signal ended it); 0 while it
 * runs. */
static int proc_exit_code(const px_proc_t *p)
{
    if (p->state != PX_PROC_DONE) {
        return 0;
    }
    if (WIFEXITED(p->wstatus)) {
        return WEXITSTATUS(p->wstatus);
    }
    return WIFSIGNALED(p->wstatus) ? 128 + WTERMSIG(p->wstatus) : 0;
}

static const char *qualifier(const pmix_query_t *q, const char *key)
{
    for (size_t i = 0; i < q->nqual; i++) {
        if (PMIX_CHECK_KEY(&q->qualifiers[i], key) && q->qualifiers[i].value.type == PMIX_STRING) {
            return q->qualifiers[i].value.data.string;
        }
    }
    return NULL;
}

/* Whether rank r of j is in a table of node (UINT_MAX: of every node). */
static bool on_node(const px_job_t *j, size_t r, unsigned node)
{
    return node == UINT_MAX || px_job_node(j, (pmix_rank_t)r) == node;
}

/* Rank r of j in a proc table: the process, or (agents) its fork/exec agent as rank k of
 * the agents' namespace (job_agents.c), which runs and ends with the rank. */
static void proc_row(const px_job_t *j, size_t r, bool agents, pmix_proc_info_t *pi)
{
    const px_proc_t *p = &j->procs[r];
    pmix_rank_t k = 0;
    const char *agent = NULL;
    pi->proc = p->proc;
    pi->hostname = strdup(px_job_node_name(j, (pmix_rank_t)r));
    pi->exit_code = proc_exit_code(p);
    pi->state = proc_state(j, p);
    if (agents && px_jagents_agent(j, (pmix_rank_t)r, &k, &agent)) {
        px_jagents_nspace(j, pi->proc.nspace);
        pi->proc.rank = k;
        pi->executable_name = strdup(agent);
        pi->pid = p->pid; /* the process its daemon started */
        if (pi->state == PX_PROC_STATE_STOPPED || pi->state == PMIX_PROC_STATE_CONNECTED) {
            pi->state = PMIX_PROC_STATE_RUNNING; /* the agent itself is neither */
        }
        return;
    }
    pi->executable_name = strdup(j->exes[j->map.procs[r].app]);
    pi->pid = px_jagents_proc_pid(p);
}

/* Whether rank r of j (its fork/exec agent when agents) is a row of the table of nspace
 * (NULL: every job and agents' namespace) and node (UINT_MAX: every node). */
static bool in_table(const px_job_t *j, size_t r, bool agents, const char *nspace, unsigned node)
{
    pmix_nspace_t ans;
    pmix_rank_t k;
    const char *path;
    if (agents && (!px_jagents_nspace(j, ans) || !px_jagents_agent(j, (pmix_rank_t)r, &k, &path))) {
        return false;
    }
    if (nspace != NULL && !PMIx_Check_nspace(agents ? ans : j->nspace, nspace)) {
        return false;
    }
    return on_node(j, r, node);
}

/* The proc table of one namespace (NULL: every job and agents' namespace), of one node
 * (UINT_MAX: all). */
static pmix_status_t proc_table(px_dvm_t *dvm, void *list, const char *key, const char *nspace,
                                unsigned node)
{
    if (nspace != NULL && px_job_find(dvm, nspace) == NULL && px_jagents_job(dvm, nspace) == NULL) {
        return PMIX_ERR_NOT_FOUND;
    }
    size_t n = 0;
    for (px_job_t *j = dvm->jobs; j != NULL; j = j->next) {
        for (size_t r = 0; r < j->nprocs; r++) {
            n += in_table(j, r, false, nspace, node) + in_table(j, r, true, nspace, node);
        }
    }
    pmix_data_array_t *da = PMIx_Data_array_create(n, PMIX_PROC_INFO);
    if (da == NULL && n > 0) {
        return PMIX_ERR_NOMEM;
    }
    pmix_proc_info_t *pi = da ? da->array : NULL;
    size_t k = 0;
    for (int agents = 0; agents < 2; agents++) { /* the jobs' processes, then the agents */
        for (px_job_t *j = dvm->jobs; j != NULL; j = j->next) {
            for (size_t r = 0; r < j->nprocs; r++) {
                if (in_table(j, r, agents, nspace, node)) {
                    proc_row(j, r, agents, &pi[k++]);
                }
            }
        }
    }
    pmix_data_array_t empty = PMIX_DATA_ARRAY_STATIC_INIT;
    empty.type = PMIX_PROC_INFO;
    pmix_status_t rc = PMIx_Info_list_add(list, key, da ? da : &empty, PMIX_DATA_ARRAY);
    PMIx_Data_array_free(da);
    return rc;
}

static char *namespaces(px_dvm_t *dvm)
{
    char **names = NULL;
    for (px_job_t *j = dvm->jobs; j != NULL; j = j->next) {
        pmix_nspace_t ans;
        if (j->state != PX_JOB_ENDED) {
            PMIx_Argv_append_nosize(&names, j->nspace);
            if (px_jagents_nspace(j, ans)) { /* its fork/exec agents' (job_agents.c) */
                PMIx_Argv_append_nosize(&names, ans);
            }
        }
    }
    char *s = names ? PMIx_Argv_join(names, ',') : strdup("");
    PMIx_Argv_free(names);
    return s;
}

/* One row of PMIX_QUERY_NAMESPACE_INFO: a namespace and its command line. */
static void ns_row(pmix_data_array_t *row, const char *nspace, const char *cmd)
{
    pmix_info_t *info = PMIx_Info_create(2);
    if (info != NULL) {
        PMIX_INFO_LOAD(&info[0], PMIX_NSPACE, nspace, PMIX_STRING);
        PMIX_INFO_LOAD(&info[1], PMIX_CMD_LINE, cmd ? cmd : "", PMIX_STRING);
    }
    row->type = PMIX_INFO;
    row->size = info ? 2 : 0;
    row->array = info;
}

/* For each job: its namespace and command line (PMIX_QUERY_NAMESPACE_INFO); its fork/exec
 * agents' namespace with the agent of its first rank under one. */
static pmix_status_t namespace_info(px_dvm_t *dvm, void *list)
{
    size_t n = 0;
    pmix_nspace_t ans;
    for (px_job_t *j = dvm->jobs; j != NULL; j = j->next) {
        n += 1 + px_jagents_nspace(j, ans);
    }
    pmix_data_array_t *outer = PMIx_Data_array_create(n, PMIX_DATA_ARRAY);
    if (outer == NULL && n > 0) {
        return PMIX_ERR_NOMEM;
    }
    pmix_data_array_t *rows = outer ? outer->array : NULL;
    size_t k = 0;
    for (px_job_t *j = dvm->jobs; j != NULL; j = j->next) {
        char *cmd = PMIx_Argv_join(j->cmds, ':');
        ns_row(&rows[k++], j->nspace, cmd);
        free(cmd);
        const char *agent = NULL;
        pmix_rank_t ar;
        for (size_t r = 0; px_jagents_nspace(j, ans) && agent == NULL && r < j->nprocs; r++) {
            px_jagents_agent(j, (pmix_rank_t)r, &ar, &agent);
        }
        if (agent != NULL) {
            ns_row(&rows[k++], ans, agent);
        }
    }
    pmix_data_array_t empty = PMIX_DATA_ARRAY_STATIC_INIT;
    empty.type = PMIX_DATA_ARRAY;
    pmix_status_t rc = PMIx_Info_list_add(list, PMIX_QUERY_NAMESPACE_INFO, outer ? outer : &empty,
                                          PMIX_DATA_ARRAY);
    PMIx_Data_array_free(outer);
    return rc;
}

/* One answerable key's answer into list (PMIX_ERR_NOT_FOUND: nothing to say). */
typedef pmix_status_t (*answer_fn)(const query_req_t *q, const pmix_query_t *qq, const char *key,
                                   void *list);

static pmix_status_t ans_namespaces(const query_req_t *q, const pmix_query_t *qq, const char *key,
                                    void *list)
{
    (void)qq;
    char *s = namespaces(q->dvm);
    pmix_status_t rc = s ? PMIx_Info_list_add(list, key, s, PMIX_STRING) : PMIX_ERR_NOMEM;
    free(s);
    return rc;
}

static pmix_status_t ans_proc_table(const query_req_t *q, const pmix_query_t *qq, const char *key,
                                    void *list)
{
    return proc_table(q->dvm, list, key, qualifier(qq, PMIX_NSPACE), UINT_MAX);
}

/* The processes on the requester's node. */
static pmix_status_t ans_local_proc_table(const query_req_t *q, const pmix_query_t *qq,
                                          const char *key, void *list)
{
    return proc_table(q->dvm, list, key, qualifier(qq, PMIX_NSPACE), q->node);
}

static pmix_status_t ans_namespace_info(const query_req_t *q, const pmix_query_t *qq,
                                        const char *key, void *list)
{
    (void)qq;
    (void)key;
    return namespace_info(q->dvm, list);
}

static pmix_status_t ans_spawn_support(const query_req_t *q, const pmix_query_t *qq,
                                       const char *key, void *list)
{
    (void)q;
    (void)qq;
    char *attrs = px_job_spawn_support(); /* the job-info reader's table */
    pmix_status_t rc = attrs ? PMIx_Info_list_add(list, key, attrs, PMIX_STRING) : PMIX_ERR_NOMEM;
    free(attrs);
    return rc;
}

static pmix_status_t ans_debug_support(const query_req_t *q, const pmix_query_t *qq,
                                       const char *key, void *list)
{
    (void)q;
    (void)qq;
    /* what this DVM does for debuggers: proc tables, job events, and the debugger
     * directives of the spawn table (debugger daemons, ...) */
    char *spawn = px_job_debug_support();
    char *attrs = NULL;
    if (spawn == NULL ||
        asprintf(&attrs, "%s,%s,%s%s%s", PMIX_QUERY_PROC_TABLE, PMIX_QUERY_LOCAL_PROC_TABLE,
                 PMIX_NOTIFY_COMPLETION, spawn[0] ? "," : "", spawn) < 0) {
        attrs = NULL;
    }
    free(spawn);
    pmix_status_t rc = attrs ? PMIx_Info_list_add(list, key, attrs, PMIX_STRING) : PMIX_ERR_NOMEM;
    free(attrs);
    return rc;
}

/* The keys the DVM answers: the one table query_on_loop dispatches on and
 * px_dvm_query_keys lists (the host attributes of PMIx_Query_info, dvm_attrs.c). */
static const struct {
    const char *key;
    answer_fn answer;
} answers[] = {
    {PMIX_QUERY_NAMESPACES, ans_namespaces},
    {PMIX_QUERY_PROC_TABLE, ans_proc_table},
    {PMIX_QUERY_LOCAL_PROC_TABLE, ans_local_proc_table},
    {PMIX_QUERY_NAMESPACE_INFO, ans_namespace_info},
    {PMIX_QUERY_SPAWN_SUPPORT, ans_spawn_support},
    {PMIX_QUERY_DEBUG_SUPPORT, ans_debug_support},
};
#define NANSWERS (sizeof(answers) / sizeof(answers[0]))

char **px_dvm_query_keys(void)
{
    char **keys = NULL;
    for (size_t i = 0; i < NANSWERS; i++) {
        if (PMIx_Argv_append_nosize(&keys, answers[i].key) != PMIX_SUCCESS) {
            PMIx_Argv_free(keys);
            return NULL;
        }
    }
    return keys;
}

/* Every key of q's queries answered into q->results; PMIX_ERR_NOT_FOUND when none was. */
static pmix_status_t answer_all(query_req_t *q)
{
    void *list = PMIx_Info_list_start();
    bool any = false;
    for (size_t i = 0; i < q->nqueries; i++) {
        const pmix_query_t *qq = &q->queries[i];
        for (size_t k = 0; qq->keys != NULL && qq->keys[k] != NULL; k++) {
            const char *key = qq->keys[k];
            pmix_status_t rc = PMIX_ERR_NOT_FOUND;
            for (size_t a = 0; a < NANSWERS; a++) {
                if (strcmp(key, answers[a].key) == 0) {
                    rc = answers[a].answer(q, qq, key, list);
                    break;
                }
            }
            any = any || rc == PMIX_SUCCESS;
        }
    }
    pmix_data_array_t da = PMIX_DATA_ARRAY_STATIC_INIT;
    pmix_status_t rc = PMIx_Info_list_convert(list, &da);
    PMIx_Info_list_release(list);
    if (rc == PMIX_SUCCESS) {
        q->results = da.array;
        q->nresults = da.size;
    }
    return any ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND;
}

static void query_on_loop(void *arg)
{
    query_req_t *q = arg;
    pmix_status_t rc = answer_all(q);
    q->cbfunc(rc, q->results, q->nresults, q->cbdata, query_release, q);
}

void px_dvm_query_remote(px_dvm_t *dvm, unsigned id, uint32_t seq, const pmix_query_t *queries,
                         size_t nqueries)
{
    query_req_t q = {
        .dvm = dvm, .node = id, .queries = (pmix_query_t *)queries, .nqueries = nqueries};
    pmix_status_t rc = answer_all(&q);
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    if (px_dp_status_info_pack(&b, rc, q.results, q.nresults) == PMIX_SUCCESS ||
        (px_bfrops_buf_free(&b), px_bfrops_buf_init(&b),
         px_dp_status_info_pack(&b, PMIX_ERR_NOMEM, NULL, 0) == PMIX_SUCCESS)) {
        px_daemons_reply(dvm->daemons, id, seq, PX_DP_QUERY, &b);
    }
    px_bfrops_buf_free(&b);
    PMIx_Info_free(q.results, q.nresults);
}

pmix_status_t px_dvm_query(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
                           pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void)proct;
    query_req_t *q = calloc(1, sizeof(*q));
    if (q == NULL) {
        return PMIX_ERR_NOMEM;
    }
    q->dvm = px_dvm_served();
    q->queries = queries;
    q->nqueries = nqueries;
    q->cbfunc = cbfunc;
    q->cbdata = cbdata;
    if (px_dvm_shift(q->dvm, query_on_loop, q) != 0) {
        free(q);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}
