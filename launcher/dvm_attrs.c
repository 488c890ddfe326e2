/* launcher: the attributes the DVM honours, registered with the server library
 * (PMIx_Register_attributes) per PMIx function at start-up, so that
 * PMIX_QUERY_ATTRIBUTE_SUPPORT (pattrs) reports them at the host level. Each list comes
 * from the table its reader uses: spawn directives (job.c), query keys (dvm_query.c),
 * job-control directives (dvm.c), name-service directives (dvm_pubsub.c). The DVM gives
 * the library no fence, connect, event (register_events/notify_event) or group upcall:
 * it honours no host attribute of those functions and registers none.
 * Called once on the controller's thread, after PMIx_server_init.
 */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "launcher/dvm_int.h"

/* Register keys (taken; NULL: out of memory) for fn and its _nb twin. */
static pmix_status_t reg_both(const char *fn, char **keys)
{
    if (keys == NULL) {
        return PMIX_ERR_NOMEM;
    }
    char nb[64];
    snprintf(nb, sizeof(nb), "%s_nb", fn);
    pmix_status_t rc = PMIx_Register_attributes((char *)fn, keys);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Register_attributes(nb, keys);
    }
    PMIx_Argv_free(keys);
    return rc;
}

pmix_status_t px_dvm_attrs_register(void)
{
    char *spawn = px_job_spawn_support();
    pmix_status_t rc = reg_both("PMIx_Spawn", spawn ? PMIx_Argv_split(spawn, ',') : NULL);
    free(spawn);
    if (rc == PMIX_SUCCESS) {
        rc = reg_both("PMIx_Query_info", px_dvm_query_keys());
    }
    if (rc == PMIX_SUCCESS) {
        rc = reg_both("PMIx_Job_control", px_dvm_jobctl_keys());
    }
    static const char *const pubsub_fns[] = {"PMIx_Publish", "PMIx_Lookup", "PMIx_Unpublish"};
    for (int k = 0; rc == PMIX_SUCCESS && k < 3; k++) {
        rc = reg_both(pubsub_fns[k], px_dvm_pubsub_keys(k));
    }
    return rc;
}
