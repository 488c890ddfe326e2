/*
 * pxh_tool.c - the tool_connected upcall of pxhost (--tools approve|refuse). Runs on the
 * library's progress thread and answers at once, inside the upcall (the Standard lets a
 * host do so; the library shifts the answer onto its loop). Approval keeps the id a
 * tool brings (PMIX_TOOL_NSPACE/RANK) or assigns "pxhost-tool.<node>.<n>" rank 0.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pxh_node.h"

static atomic_int ntools, napproved;

int pxh_tools_approved(void)
{
    return atomic_load(&napproved);
}

void pxh_tool_connected(pmix_info_t *info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc,
                        void *cbdata)
{
    pxh_reenter("tool_connected");
    pmix_proc_t proc;
    const char *ns = NULL;
    pmix_rank_t rank = 0;
    int64_t uid = -1, gid = -1, pid = -1;

    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_TOOL_NSPACE) && info[i].value.type == PMIX_STRING)
            ns = info[i].value.data.string;
        else if (PMIX_CHECK_KEY(&info[i], PMIX_TOOL_RANK))
            PMIx_Value_get_number(&info[i].value, &rank, PMIX_PROC_RANK);
        else if (PMIX_CHECK_KEY(&info[i], PMIX_USERID))
            PMIx_Value_get_number(&info[i].value, &uid, PMIX_INT64);
        else if (PMIX_CHECK_KEY(&info[i], PMIX_GRPID))
            PMIx_Value_get_number(&info[i].value, &gid, PMIX_INT64);
        else if (PMIX_CHECK_KEY(&info[i], PMIX_PROC_PID))
            PMIx_Value_get_number(&info[i].value, &pid, PMIX_INT64);
    }
    if (pxh_opts.tools == PXH_TOOLS_REFUSE) {
        fprintf(stderr, "pxhost: node %d: tool (uid %lld, pid %lld) refused\n", pxh_node.id,
                (long long)uid, (long long)pid);
        cbfunc(PMIX_ERR_NO_PERMISSIONS, NULL, cbdata);
        return;
    }
    if (ns != NULL) {
        PMIx_Load_procid(&proc, ns, rank);
    } else {
        char buf[PMIX_MAX_NSLEN + 1];
        snprintf(buf, sizeof(buf), "pxhost-tool.%d.%d", pxh_node.id, atomic_fetch_add(&ntools, 1));
        PMIx_Load_procid(&proc, buf, 0);
    }
    /* the credentials the library handed up (SO_PEERCRED; none over TCP), compared
     * with this host's own user */
    const char *who = uid < 0 || gid < 0                                 ? "no credentials"
                      : (uid_t)uid == getuid() && (gid_t)gid == getgid() ? "the host's user"
                                                                         : "another user";
    fprintf(stderr, "pxhost: node %d: tool %s:%u approved (uid %lld, gid %lld, pid %lld; %s)\n",
            pxh_node.id, proc.nspace, proc.rank, (long long)uid, (long long)gid, (long long)pid,
            who);
    atomic_fetch_add(&napproved, 1);
    cbfunc(PMIX_SUCCESS, &proc, cbdata);
}
