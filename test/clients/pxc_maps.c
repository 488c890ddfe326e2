/*
 * pxc_maps.c - reads the maps pxhost registered: PMIX_NODE_MAP and PMIX_PROC_MAP must be
 * of the expected type and hold exactly what PMIx_generate_regex / PMIx_generate_ppn
 * give for pxhost's block-wise layout (a PMIX_REGEX value: a byte object holding the
 * string with its NUL), and PMIX_LOCAL_PEERS / PMIX_LOCAL_SIZE (derived from them) must
 * name this rank's node's ranks. Also a peer's PMIX_HOSTNAME, from the derived realms.
 * Usage: pxc_maps [--nodes K] [--type regex|string]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix_server.h>

#include "pxc_common.h"

static void append(char *buf, size_t sz, const char *fmt, int v)
{
    size_t len = strlen(buf);
    snprintf(buf + len, sz - len, fmt, v);
}

/* Get a job-level (wildcard rank) value or fail; the caller frees it. */
static pmix_value_t *get(const pmix_proc_t *me, pmix_rank_t rank, const char *key)
{
    pmix_proc_t p;
    pmix_value_t *val = NULL;
    pmix_status_t rc;

    PMIx_Load_procid(&p, me->nspace, rank);
    rc = PMIx_Get(&p, key, NULL, 0, &val);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Get(%s, rank %u): expected PMIX_SUCCESS, got %s", key, rank,
                 PMIx_Error_string(rc));
    return val;
}

/* The map under key must be of type `type` and hold the text `want`. */
static void check_map(const pmix_proc_t *me, const char *key, pmix_data_type_t type,
                      const char *want)
{
    pmix_value_t *val = get(me, PMIX_RANK_WILDCARD, key);
    const char *text;

    if (val->type != type)
        pxc_fail("PMIx_Get(%s): expected type %s, got %s", key, PMIx_Data_type_string(type),
                 PMIx_Data_type_string(val->type));
    if (type == PMIX_REGEX) {
        if (val->data.bo.bytes == NULL || val->data.bo.size != strlen(want) + 1 ||
            memcmp(val->data.bo.bytes, want, val->data.bo.size) != 0)
            pxc_fail("PMIx_Get(%s): expected the %zu bytes of \"%s\" with its NUL, got %zu bytes",
                     key, strlen(want) + 1, want, val->data.bo.size);
        text = val->data.bo.bytes;
    } else {
        text = val->data.string;
    }
    if (text == NULL || strcmp(text, want) != 0)
        pxc_fail("PMIx_Get(%s): expected \"%s\", got \"%s\"", key, want, text ? text : "(null)");
    PMIx_Value_free(val, 1);
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    pmix_value_t *val;
    pmix_data_type_t type = PMIX_REGEX;
    int nranks, nnodes = 1, node, last;
    char hosts[64 * 16] = "", *ppn_in, peers[4096 * 6] = "", want[32], *regex = NULL, *ppn = NULL;
    size_t ppn_sz;

    pxc_name = "pxc_maps";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc) {
            nnodes = pxc_parse_int("--nodes", argv[++i]);
        } else if (strcmp(argv[i], "--type") == 0 && i + 1 < argc) {
            i++;
            if (strcmp(argv[i], "regex") == 0)
                type = PMIX_REGEX;
            else if (strcmp(argv[i], "string") == 0)
                type = PMIX_STRING;
            else
                pxc_fail("--type: expected regex or string, got \"%s\"", argv[i]);
        } else {
            pxc_fail("unknown argument \"%s\"", argv[i]);
        }
    }
    if (nnodes < 1 || nnodes > 64)
        pxc_fail("--nodes: expected 1..64, got %d", nnodes);
    pxc_init(&me, &nranks);

    /* what pxhost gave PMIx_generate_regex / PMIx_generate_ppn */
    ppn_sz = (size_t)nranks * 8 + 64;
    ppn_in = calloc(1, ppn_sz);
    if (ppn_in == NULL)
        pxc_fail("out of memory");
    for (int i = 0; i < nnodes; i++) {
        append(hosts, sizeof(hosts), i ? ",pxnode%d" : "pxnode%d", i);
        if (i)
            strcat(ppn_in, ";");
        for (int r = pxc_node_start(nranks, nnodes, i);
             r < pxc_node_start(nranks, nnodes, i) + pxc_node_count(nranks, nnodes, i); r++)
            append(ppn_in, ppn_sz, r == pxc_node_start(nranks, nnodes, i) ? "%d" : ",%d", r);
    }
    if (PMIx_generate_regex(hosts, &regex) != PMIX_SUCCESS ||
        PMIx_generate_ppn(ppn_in, &ppn) != PMIX_SUCCESS)
        pxc_fail("PMIx_generate_regex/ppn failed");
    check_map(&me, PMIX_NODE_MAP, type, regex);
    check_map(&me, PMIX_PROC_MAP, type, ppn);

    /* derived from the maps: this node's ranks */
    node = pxc_node_of(nranks, nnodes, (int)me.rank);
    for (int r = pxc_node_start(nranks, nnodes, node);
         r < pxc_node_start(nranks, nnodes, node) + pxc_node_count(nranks, nnodes, node); r++)
        append(peers, sizeof(peers), r == pxc_node_start(nranks, nnodes, node) ? "%d" : ",%d", r);
    val = get(&me, PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS);
    if (val->type != PMIX_STRING || strcmp(val->data.string, peers) != 0)
        pxc_fail("PMIx_Get(PMIX_LOCAL_PEERS): expected \"%s\", got a %s \"%s\"", peers,
                 PMIx_Data_type_string(val->type),
                 val->type == PMIX_STRING ? val->data.string : "?");
    PMIx_Value_free(val, 1);
    if (pxc_get_job_u32(&me, PMIX_LOCAL_SIZE) != (uint32_t)pxc_node_count(nranks, nnodes, node))
        pxc_fail("PMIX_LOCAL_SIZE: expected %d", pxc_node_count(nranks, nnodes, node));
    last = nranks - 1;
    snprintf(want, sizeof(want), "pxnode%d", pxc_node_of(nranks, nnodes, last));
    val = get(&me, (pmix_rank_t)last, PMIX_HOSTNAME);
    if (val->type != PMIX_STRING || strcmp(val->data.string, want) != 0)
        pxc_fail("PMIx_Get(PMIX_HOSTNAME, rank %d): expected \"%s\"", last, want);
    PMIx_Value_free(val, 1);

    free(ppn_in);
    free(regex);
    free(ppn);
    if (PMIx_Finalize(NULL, 0) != PMIX_SUCCESS)
        pxc_fail("PMIx_Finalize failed");
    printf("pxc_maps: rank %u: maps of %d ranks on %d nodes read as %s\n", me.rank, nranks, nnodes,
           PMIx_Data_type_string(type));
    return 0;
}
