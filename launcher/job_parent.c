/* launcher: jobs spawned from inside a job (PMIx_Spawn by an application process, as
 * MPI_Comm_spawn does): the parent relation, the child's PMIX_PARENT_ID, its output going
 * where the parent job's goes, and the children ending with their parent unless
 * PMIX_NOHUP. Controller loop only.
 */
#include <pmix.h>

#include "launcher/dvm_int.h"
#include "server/px_srv_host.h"

const pmix_proc_t *px_job_parent(const px_job_t *j)
{
    /* a process of another job of this DVM asked for it (a tool or this process did not) */
    return !j->local && px_job_find(j->dvm, j->requester.nspace) != NULL ? &j->requester : NULL;
}

void px_job_adopt(px_job_t *j)
{
    const pmix_proc_t *parent = px_job_parent(j);
    px_job_t *pj = parent != NULL ? px_job_find(j->dvm, parent->nspace) : NULL;
    if (pj == NULL) {
        return;
    }
    /* the output goes where the parent job's goes: this process's own stdout/stderr
     * (prterun), else to whoever takes the parent's output (prun). A parent whose own
     * spawn is not answered yet (one of its processes spawned while another had not
     * started: likelier across nodes) has no sinks yet: the child's output waits. */
    j->out_here = pj->local || pj->out_here;
    j->fwd |= pj->fwd; /* what tools may pull of it (dvm_iof.c) */
    px_srv_iof_inherit(pj->nspace, j->nspace);
    px_dvm_log(j->dvm, 1, "%s: spawned by %s:%u", j->nspace, parent->nspace, parent->rank);
}

void px_job_end_children(px_job_t *pj)
{
    for (px_job_t *j = pj->dvm->jobs; j != NULL; j = j->next) {
        const pmix_proc_t *parent = px_job_parent(j);
        if (j == pj || parent == NULL || !PMIx_Check_nspace(parent->nspace, pj->nspace) ||
            j->nohup || px_job_ending(j)) {
            continue;
        }
        px_dvm_log(j->dvm, 1, "%s: its parent job %s ended: terminating it", j->nspace, pj->nspace);
        px_job_kill(j, PX_WHY_KILLED, false);
    }
}
