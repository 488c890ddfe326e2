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
    if (pj->spawn_cb != NULL) {
        j->adopt_pending = true;
    } else {
        px_srv_iof_inherit(pj->nspace, j->nspace);
    }
    px_dvm_log(j->dvm, 1, "%s: spawned by %s:%u%s", j->nspace, parent->nspace, parent->rank,
               j->adopt_pending ? " (before its job was launched)" : "");
}

void px_job_adopt_pending(px_job_t *pj)
{
    for (px_job_t *j = pj->dvm->jobs; j != NULL; j = j->next) {
        const pmix_proc_t *parent = px_job_parent(j);
        if (!j->adopt_pending || parent == NULL || !PMIx_Check_nspace(parent->nspace, pj->nspace)) {
            continue;
        }
        j->adopt_pending = false;
        px_srv_iof_inherit(pj->nspace, j->nspace); /* after the parent's spawn reply */
        if (j->spawn_cb == NULL) {
            px_out_flush_held(j, false); /* launched meanwhile */
        }
    }
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
