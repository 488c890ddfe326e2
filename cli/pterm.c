/* pterm - stop a DVM and every job in it, returning only when the DVM process is gone.
 * A PMIx tool: one job-control request (terminate, no targets = the whole DVM), whose
 * answer carries the DVM's pid, then a wait for that pid. Main thread only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix_tool.h>

#include "cli/px_cli.h"
#include "cli/px_opts.h"
#include "help/px_help.h"

int main(int argc, char **argv)
{
    px_cmd_t cmd;
    pmix_proc_t me;
    int done = px_cli_tool_start(PX_CMD_PTERM, argc, argv, &cmd, &me);
    if (done >= 0) {
        return done;
    }
    pmix_info_t dir;
    bool yes = true;
    PMIX_INFO_LOAD(&dir, PMIX_JOB_CTRL_TERMINATE, &yes, PMIX_BOOL);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc = PMIx_Job_control(NULL, 0, &dir, 1, &res, &nres);
    PMIX_INFO_DESTRUCT(&dir);
    pid_t pid = 0;
    uint32_t njobs = 0;
    for (size_t i = 0; i < nres; i++) {
        if (PMIX_CHECK_KEY(&res[i], PMIX_PROC_PID)) {
            PMIx_Value_get_number(&res[i].value, &pid, PMIX_PID);
        } else if (PMIX_CHECK_KEY(&res[i], "px.dvm.njobs")) {
            PMIx_Value_get_number(&res[i].value, &njobs, PMIX_UINT32);
        }
    }
    if (res != NULL) {
        PMIx_Info_free(res, nres);
    }
    int status = 0;
    if (rc != PMIX_SUCCESS || pid <= 0) {
        px_show_help("help-prte.txt",
                     rc == PMIX_ERR_NO_PERMISSIONS ? "pterm-not-allowed" : "pterm-refused",
                     cmd.prog, PMIx_Error_string(rc));
        status = 1;
    } else if (!px_cli_wait_gone(pid, 30000)) {
        px_show_help("help-prte.txt", "pterm-timeout", cmd.prog, (int)pid);
        status = 1;
    } else if (njobs > 0 && cmd.verbose > 0) {
        px_show_help("help-prte.txt", "pterm-jobs", cmd.prog, (unsigned)njobs);
    }
    PMIx_tool_finalize();
    px_opts_fini(&cmd);
    return status;
}
