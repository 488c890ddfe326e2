/* cli: connecting a command to a DVM as a PMIx tool, waiting for a process to go, and
 * the launchers' output pipes. Main thread of the commands.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <pmix_tool.h>

#include "cli/px_cli.h"
#include "common/px_common.h"
#include "help/px_help.h"

double px_cli_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A launcher started by a tool connects back to it after finding its DVM, keeping the
 * DVM as its primary server; with no DVM, that tool is its primary. */
static bool found_dvm(const pmix_proc_t *me)
{
    pmix_proc_t *servers = NULL;
    size_t n = 0;
    pmix_value_t *parent = NULL;
    bool dvm = PMIx_tool_get_servers(&servers, &n) == PMIX_SUCCESS && n > 0;
    if (dvm && PMIx_Get(me, PMIX_PARENT_ID, NULL, 0, &parent) == PMIX_SUCCESS &&
        parent->type == PMIX_PROC) {
        dvm = !PMIx_Check_procid(&servers[0], parent->data.proc);
    }
    if (parent != NULL) {
        PMIx_Value_free(parent, 1);
    }
    if (servers != NULL) {
        PMIx_Proc_free(servers, n);
    }
    return dvm;
}

int px_cli_connect(const px_cmd_t *cmd, pmix_proc_t *me)
{
    pmix_info_t info[5];
    size_t n = 0;
    bool yes = true, by_tool = getenv("PMIX_LAUNCHER_RNDZ_URI") != NULL;
    if (by_tool) {
        /* started by a tool as its launcher (indirect launch): a listener of our own, so
         * that the tool can make us its server (PMIx_tool_set_server) */
        PMIX_INFO_LOAD(&info[n++], PMIX_LAUNCHER, &yes, PMIX_BOOL);
    }
    if (cmd->dvm_uri != NULL && strncmp(cmd->dvm_uri, "file:", 5) == 0) {
        PMIX_INFO_LOAD(&info[n++], PMIX_TOOL_ATTACHMENT_FILE, cmd->dvm_uri + 5, PMIX_STRING);
    } else if (cmd->dvm_uri != NULL) {
        PMIX_INFO_LOAD(&info[n++], PMIX_SERVER_URI, cmd->dvm_uri, PMIX_STRING);
    }
    if (cmd->pid > 0) {
        PMIX_INFO_LOAD(&info[n++], PMIX_SERVER_PIDINFO, &cmd->pid, PMIX_PID);
    }
    if (cmd->nspace != NULL) {
        PMIX_INFO_LOAD(&info[n++], PMIX_SERVER_NSPACE, cmd->nspace, PMIX_STRING);
    }
    if (cmd->system_only) {
        PMIX_INFO_LOAD(&info[n++], PMIX_CONNECT_TO_SYSTEM, &yes, PMIX_BOOL);
    } else if (cmd->system_first) {
        PMIX_INFO_LOAD(&info[n++], PMIX_CONNECT_SYSTEM_FIRST, &yes, PMIX_BOOL);
    }
    pmix_status_t rc = PMIx_tool_init(me, info, n);
    for (size_t i = 0; i < n; i++) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
    if (rc == PMIX_ERR_NO_PERMISSIONS) {
        /* found, but it does not serve us: not the same advice as finding none */
        px_show_help("help-prte.txt", "dvm-refused", cmd->prog, (unsigned)getuid());
        return -1;
    }
    if (rc == PMIX_SUCCESS && by_tool && !found_dvm(me)) {
        /* the tool that started us is our only server: it runs no jobs */
        PMIx_tool_finalize();
        rc = PMIX_ERR_UNREACH;
    }
    if (rc != PMIX_SUCCESS) {
        px_show_help("help-prte.txt", "no-dvm", cmd->prog);
        return -1;
    }
    return 0;
}

int px_cli_tool_start(px_cmd_kind_t kind, int argc, char **argv, px_cmd_t *cmd, pmix_proc_t *me)
{
    px_opts_result_t r = px_opts_parse(kind, argc, argv, cmd);
    if (r != PX_OPTS_RUN) {
        return r == PX_OPTS_EXIT_OK ? 0 : 1;
    }
    if (px_cli_connect(cmd, me) != 0) {
        px_opts_fini(cmd);
        return 1;
    }
    return -1;
}

bool px_cli_wait_gone(pid_t pid, int ms)
{
    double end = px_cli_now_ms() + ms;
    while (!px_pid_gone(pid)) { /* a zombie counts as gone */
        if (px_cli_now_ms() > end) {
            return false;
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return true;
}

#define PX_CLI_PIPE_SIZE (1024 * 1024)

void px_cli_grow_stdout_pipes(void)
{
    for (int fd = 1; fd <= 2; fd++) {
        struct stat st;
        if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) {
            continue;
        }
        int now = fcntl(fd, F_GETPIPE_SZ);
        if (now >= 0 && now < PX_CLI_PIPE_SIZE) {
            (void)fcntl(fd, F_SETPIPE_SZ, PX_CLI_PIPE_SIZE);
        }
    }
}
