/*
 * pxh_reg.c - the namespace registration data pxhost gives PMIx_server_register_nspace:
 * the whole job (every node and every rank), or with --derive only the sizes and the
 * maps (PMIX_STRING values, or with --regex-maps PMIX_REGEX ones). Runs on a node process's main
 * thread before any client is started.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pxhost.h"

#define ADD(list, key, val, type)                                                                  \
    do {                                                                                           \
        pmix_status_t rc_ = PMIx_Info_list_add((list), (key), (val), (type));                      \
        if (rc_ != PMIX_SUCCESS) {                                                                 \
            fprintf(stderr, "pxhost: PMIx_Info_list_add(%s) failed: %s\n", (key),                  \
                    PMIx_Error_string(rc_));                                                       \
            return rc_;                                                                            \
        }                                                                                          \
    } while (0)

/* Convert an inner list into a data array and add it to outer under key. */
static pmix_status_t add_array(void *outer, const char *key, void *inner)
{
    pmix_data_array_t da;
    pmix_status_t rc = PMIx_Info_list_convert(inner, &da);

    PMIx_Info_list_release(inner);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "pxhost: PMIx_Info_list_convert(%s) failed: %s\n", key,
                PMIx_Error_string(rc));
        return rc;
    }
    rc = PMIx_Info_list_add(outer, key, &da, PMIX_DATA_ARRAY);
    PMIx_Data_array_destruct(&da);
    if (rc != PMIX_SUCCESS)
        fprintf(stderr, "pxhost: PMIx_Info_list_add(%s) failed: %s\n", key, PMIx_Error_string(rc));
    return rc;
}

static void append(char *buf, size_t sz, const char *fmt, int v)
{
    size_t len = strlen(buf);
    snprintf(buf + len, sz - len, fmt, v);
}

static pmix_status_t add_maps(void *list)
{
    char hosts[PXH_MAX_NODES * 16] = "", *ppn_in, *regex = NULL, *ppn = NULL;
    size_t ppn_sz = (size_t)pxh_opts.nranks * 8 + 64;
    pmix_status_t rc;

    ppn_in = calloc(1, ppn_sz);
    if (!ppn_in)
        return PMIX_ERR_NOMEM;
    for (int i = 0; i < pxh_opts.nnodes; i++) {
        append(hosts, sizeof(hosts), i ? ",pxnode%d" : "pxnode%d", i);
        if (i)
            strcat(ppn_in, ";");
        for (int r = pxh_node_start(i); r < pxh_node_start(i) + pxh_node_count(i); r++)
            append(ppn_in, ppn_sz, r == pxh_node_start(i) ? "%d" : ",%d", r);
    }
    rc = PMIx_generate_regex(hosts, &regex);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "pxhost: PMIx_generate_regex(\"%s\") failed: %s\n", hosts,
                PMIx_Error_string(rc));
        goto out;
    }
    rc = PMIx_generate_ppn(ppn_in, &ppn);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "pxhost: PMIx_generate_ppn(\"%s\") failed: %s\n", ppn_in,
                PMIx_Error_string(rc));
        goto out;
    }
    if (pxh_opts.regex_maps) {
        /* as a host written against pmix_server.h does it (the Standard's example):
         * the strings loaded as PMIX_REGEX, once through each of the two macros */
        pmix_info_t nm;

        PMIX_INFO_CONSTRUCT(&nm);
        PMIX_INFO_LOAD(&nm, PMIX_NODE_MAP, regex, PMIX_REGEX);
        rc = PMIx_Info_list_xfer(list, &nm);
        PMIX_INFO_DESTRUCT(&nm);
        if (rc == PMIX_SUCCESS)
            PMIX_INFO_LIST_ADD(rc, list, PMIX_PROC_MAP, ppn, PMIX_REGEX);
        goto out;
    }
    rc = PMIx_Info_list_add(list, PMIX_NODE_MAP, regex, PMIX_STRING);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Info_list_add(list, PMIX_PROC_MAP, ppn, PMIX_STRING);
out:
    free(ppn_in);
    free(regex);
    free(ppn);
    return rc;
}

static pmix_status_t add_node(void *list, int node)
{
    void *n = PMIx_Info_list_start();
    char host[32], peers[PXH_MAX_RANKS * 6] = "";
    uint32_t nodeid = (uint32_t)node, size = (uint32_t)pxh_node_count(node);
    pmix_rank_t leader = (pmix_rank_t)pxh_node_start(node);

    snprintf(host, sizeof(host), "pxnode%d", node);
    for (int r = pxh_node_start(node); r < pxh_node_start(node) + pxh_node_count(node); r++)
        append(peers, sizeof(peers), r == pxh_node_start(node) ? "%d" : ",%d", r);
    ADD(n, PMIX_NODEID, &nodeid, PMIX_UINT32);
    ADD(n, PMIX_HOSTNAME, host, PMIX_STRING);
    ADD(n, PMIX_LOCAL_SIZE, &size, PMIX_UINT32);
    ADD(n, PMIX_NODE_SIZE, &size, PMIX_UINT32);
    ADD(n, PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    ADD(n, PMIX_LOCALLDR, &leader, PMIX_PROC_RANK);
    return add_array(list, PMIX_NODE_INFO_ARRAY, n);
}

static pmix_status_t add_proc(void *list, int rank)
{
    void *p = PMIx_Info_list_start();
    int node = pxh_node_of(rank);
    pmix_rank_t r = (pmix_rank_t)rank;
    uint16_t lrank = (uint16_t)(rank - pxh_node_start(node));
    uint32_t nodeid = (uint32_t)node, appnum = 0;
    char host[32];

    snprintf(host, sizeof(host), "pxnode%d", node);
    ADD(p, PMIX_RANK, &r, PMIX_PROC_RANK);
    ADD(p, PMIX_LOCAL_RANK, &lrank, PMIX_UINT16);
    ADD(p, PMIX_NODE_RANK, &lrank, PMIX_UINT16);
    ADD(p, PMIX_HOSTNAME, host, PMIX_STRING);
    ADD(p, PMIX_NODEID, &nodeid, PMIX_UINT32);
    ADD(p, PMIX_APPNUM, &appnum, PMIX_UINT32);
    ADD(p, PMIX_GLOBAL_RANK, &r, PMIX_PROC_RANK);
    ADD(p, PMIX_APP_RANK, &r, PMIX_PROC_RANK);
    if (pxh_opts.cpusets) {
        /* bound to the PU of its local rank (not really: the library only reads it) */
        char cpuset[32];
        snprintf(cpuset, sizeof(cpuset), "hwloc:%u", (unsigned)lrank);
        ADD(p, PMIX_CPUSET, cpuset, PMIX_STRING);
    }
    return add_array(list, PMIX_PROC_INFO_ARRAY, p);
}

static pmix_status_t fill(void *list)
{
    uint32_t size = (uint32_t)pxh_opts.nranks, nnodes = (uint32_t)pxh_opts.nnodes, appnum = 0;
    pmix_rank_t leader = 0;
    char jobid[PMIX_MAX_NSLEN + 8];
    pmix_status_t rc;
    void *app;

    snprintf(jobid, sizeof(jobid), "%s", pxh_opts.nspace);
    ADD(list, PMIX_UNIV_SIZE, &size, PMIX_UINT32);
    ADD(list, PMIX_JOB_SIZE, &size, PMIX_UINT32);
    ADD(list, PMIX_MAX_PROCS, &size, PMIX_UINT32);
    ADD(list, PMIX_JOBID, jobid, PMIX_STRING);
    rc = add_maps(list);
    if (rc != PMIX_SUCCESS || pxh_opts.derive)
        return rc;
    ADD(list, PMIX_NUM_NODES, &nnodes, PMIX_UINT32);
    app = PMIx_Info_list_start();
    ADD(app, PMIX_APPNUM, &appnum, PMIX_UINT32);
    ADD(app, PMIX_APP_SIZE, &size, PMIX_UINT32);
    ADD(app, PMIX_APPLDR, &leader, PMIX_PROC_RANK);
    rc = add_array(list, PMIX_APP_INFO_ARRAY, app);
    for (int i = 0; rc == PMIX_SUCCESS && i < pxh_opts.nnodes; i++)
        rc = add_node(list, i);
    for (int r = 0; rc == PMIX_SUCCESS && r < pxh_opts.nranks; r++)
        rc = add_proc(list, r);
    return rc;
}

pmix_status_t pxh_reg_build(pmix_info_t **info, size_t *ninfo)
{
    void *list = PMIx_Info_list_start();
    pmix_data_array_t da;
    pmix_status_t rc;

    if (!list)
        return PMIX_ERR_NOMEM;
    rc = fill(list);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Info_list_convert(list, &da);
    PMIx_Info_list_release(list);
    if (rc != PMIX_SUCCESS)
        return rc;
    *info = da.array;
    *ninfo = da.size;
    return PMIX_SUCCESS;
}
