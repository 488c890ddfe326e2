/* launcher: what the controller keeps the same on every daemon for the other nodes'
 * processes — process sets (PSET to every prted, after this process's own server has the
 * set). Controller loop only.
 */
#include <pmix.h>
#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "daemon/px_dproto.h"
#include "launcher/dvm_int.h"
#include "launcher/px_daemons.h"

/* The PSET message to every daemon up but daemon 0 (whose server is ours). */
static void pset_to_daemons(px_dvm_t *dvm, bool define, const char *name,
                            const pmix_proc_t *members, size_t n)
{
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    size_t nd = dvm->daemons != NULL ? px_daemons_count(dvm->daemons) : 0;
    if (nd > 1 && px_dp_pset_pack(&b, define, name, members, n) == PMIX_SUCCESS) {
        for (size_t id = 1; id < nd; id++) {
            if (px_daemons_up(dvm->daemons, (unsigned)id) &&
                px_daemons_send(dvm->daemons, (unsigned)id, PX_DP_PSET, &b) != 0) {
                px_dvm_log(dvm, 1, "process set %s: not sent to daemon %zu", name, id);
            }
        }
    }
    px_bfrops_buf_free(&b);
}

pmix_status_t px_dvm_pset_define(px_dvm_t *dvm, const pmix_proc_t *members, size_t n,
                                 const char *name)
{
    pmix_status_t rc = PMIx_server_define_process_set(members, n, name);
    if (rc == PMIX_SUCCESS) {
        pset_to_daemons(dvm, true, name, members, n);
    }
    return rc;
}

void px_dvm_pset_delete(px_dvm_t *dvm, const char *name)
{
    if (PMIx_server_delete_process_set((char *)name) == PMIX_SUCCESS) {
        pset_to_daemons(dvm, false, name, NULL, 0);
    }
}
