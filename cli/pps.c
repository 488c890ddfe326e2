/* pps - list a DVM's jobs and processes (namespace, rank, pid, node, state, the CPUs
 * each holds, command) from the DVM's answers to PMIX_QUERY_NAMESPACE_INFO and
 * PMIX_QUERY_PROC_TABLE, and each process's PMIX_CPUSET; --nspace (one job), --node (one
 * node), --parsable (":"-separated). A PMIx tool; main thread only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix_tool.h>

#include "cli/px_cli.h"
#include "cli/px_opts.h"
#include "cli/px_query_print.h"
#include "help/px_help.h"

/* The value of key among the results (flat: one entry per key found, under its key). */
static const pmix_value_t *result(const pmix_info_t *res, size_t nres, const char *key)
{
    for (size_t i = 0; i < nres; i++) {
        if (PMIX_CHECK_KEY(&res[i], key)) {
            return &res[i].value;
        }
    }
    return NULL;
}

static pmix_status_t query(const char *key, const char *nspace, pmix_info_t **res, size_t *nres)
{
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    char *keys[2] = {(char *)key, NULL};
    q.keys = keys;
    pmix_info_t qual;
    if (nspace != NULL) {
        PMIX_INFO_LOAD(&qual, PMIX_NSPACE, nspace, PMIX_STRING);
        q.qualifiers = &qual;
        q.nqual = 1;
    }
    pmix_status_t rc = PMIx_Query_info(&q, 1, res, nres);
    if (nspace != NULL) {
        PMIX_INFO_DESTRUCT(&qual);
    }
    return rc;
}

static const char *cmd_of(const pmix_value_t *nsinfo, const char *nspace)
{
    if (nsinfo == NULL || nsinfo->type != PMIX_DATA_ARRAY || nsinfo->data.darray == NULL) {
        return "";
    }
    const pmix_data_array_t *rows = nsinfo->data.darray->array;
    for (size_t i = 0; i < nsinfo->data.darray->size; i++) {
        const pmix_info_t *row = rows[i].array;
        const char *ns = NULL, *cmd = NULL;
        for (size_t k = 0; row != NULL && k < rows[i].size; k++) {
            if (PMIX_CHECK_KEY(&row[k], PMIX_NSPACE)) {
                ns = row[k].value.data.string;
            } else if (PMIX_CHECK_KEY(&row[k], PMIX_CMD_LINE)) {
                cmd = row[k].value.data.string;
            }
        }
        if (ns != NULL && strcmp(ns, nspace) == 0) {
            return cmd ? cmd : "";
        }
    }
    return "";
}

/* The CPUs a process holds in the DVM's pool: its binding (PMIX_CPUSET, "hwloc:0-1",
 * shown without the source), "-" when it is not bound or no longer runs. Malloc'd; NULL
 * when out of memory. */
static char *cpus_of(const pmix_proc_info_t *pi)
{
    pmix_value_t *v = NULL;
    char *s = NULL;
    if (pi->state != PMIX_PROC_STATE_TERMINATED &&
        PMIx_Get(&pi->proc, PMIX_CPUSET, NULL, 0, &v) == PMIX_SUCCESS && v != NULL &&
        v->type == PMIX_STRING && v->data.string != NULL) {
        const char *colon = strchr(v->data.string, ':');
        s = strdup(colon != NULL ? colon + 1 : v->data.string);
    }
    if (v != NULL) {
        PMIx_Value_free(v, 1);
    }
    return s != NULL ? s : strdup("-");
}

int main(int argc, char **argv)
{
    px_cmd_t cmd;
    pmix_proc_t me;
    int done = px_cli_tool_start(PX_CMD_PPS, argc, argv, &cmd, &me);
    if (done >= 0) {
        return done;
    }
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc = query(PMIX_QUERY_NAMESPACE_INFO, NULL, &res, &nres);
    const pmix_value_t *nsinfo =
        rc == PMIX_SUCCESS ? result(res, nres, PMIX_QUERY_NAMESPACE_INFO) : NULL;
    size_t njobs = 0;
    if (nsinfo != NULL && nsinfo->type == PMIX_DATA_ARRAY && nsinfo->data.darray != NULL) {
        njobs = nsinfo->data.darray->size;
    }
    pmix_proc_t server;
    PMIX_LOAD_PROCID(&server, "", 0);
    pmix_proc_t *servers = NULL;
    size_t nservers = 0;
    if (PMIx_tool_get_servers(&servers, &nservers) == PMIX_SUCCESS && nservers > 0) {
        server = servers[0];
        PMIx_Proc_free(servers, nservers);
    }
    if (njobs == 0) {
        px_show_help("help-prte.txt", "pps-none", cmd.prog, server.nspace);
    }
    bool job_seen = false;
    if (!cmd.parsable) {
        printf("%-32s %6s %8s  %-16s %-12s %-8s %s\n", "NAMESPACE", "RANK", "PID", "NODE", "STATE",
               "CPUS", "COMMAND");
    }
    const pmix_data_array_t *rows = njobs ? nsinfo->data.darray->array : NULL;
    for (size_t j = 0; j < njobs; j++) {
        const char *ns = NULL;
        const pmix_info_t *row = rows[j].array;
        for (size_t k = 0; row != NULL && k < rows[j].size; k++) {
            if (PMIX_CHECK_KEY(&row[k], PMIX_NSPACE)) {
                ns = row[k].value.data.string;
            }
        }
        if (ns == NULL || (cmd.job_nspace != NULL && strcmp(ns, cmd.job_nspace) != 0)) {
            continue;
        }
        job_seen = true;
        pmix_info_t *pres = NULL;
        size_t npres = 0;
        if (query(PMIX_QUERY_PROC_TABLE, ns, &pres, &npres) != PMIX_SUCCESS) {
            continue;
        }
        const pmix_value_t *pt = result(pres, npres, PMIX_QUERY_PROC_TABLE);
        if (pt != NULL && pt->type == PMIX_DATA_ARRAY && pt->data.darray != NULL) {
            const pmix_proc_info_t *pi = pt->data.darray->array;
            for (size_t i = 0; i < pt->data.darray->size; i++) {
                const char *host = pi[i].hostname ? pi[i].hostname : "";
                if (cmd.node != NULL && strcmp(host, cmd.node) != 0) {
                    continue;
                }
                char *cpus = cpus_of(&pi[i]);
                /* --parsable: the same fields, ":"-separated, the command last (it may
                 * hold ":" itself) */
                printf(cmd.parsable ? "%s:%u:%d:%s:%s:%s:%s\n"
                                    : "%-32s %6u %8d  %-16s %-12s %-8s %s\n",
                       ns, pi[i].proc.rank, (int)pi[i].pid, host, px_qprint_state(pi[i].state),
                       cpus ? cpus : "-", cmd_of(nsinfo, ns));
                free(cpus);
            }
        }
        PMIx_Info_free(pres, npres);
    }
    int ret = 0;
    if (cmd.job_nspace != NULL && !job_seen) { /* a job that is not (or no longer) there */
        px_show_help("help-prte.txt", "pps-no-such-job", cmd.prog, server.nspace, cmd.job_nspace);
        ret = 1;
    }
    if (res != NULL) {
        PMIx_Info_free(res, nres);
    }
    PMIx_tool_finalize();
    px_opts_fini(&cmd);
    return ret;
}
