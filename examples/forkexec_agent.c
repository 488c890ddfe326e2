/* examples: a debugger's fork/exec agent (PMIX_FORKEXEC_AGENT, prun --fork-exec-agent).
 * The node's daemon starts it in place of one application process:
 *
 * 1. PMIx_tool_init connects to the daemon as its server (PMIX_SERVER_URI: the address
 *    the daemon put in PMIX_LAUNCHER_RNDZ_URI, taken out of the environment first, as
 *    the library would otherwise attach there beside a server it finds itself) and the
 *    daemon gives the agent its identity: rank R of the agents' namespace "<job>.fea".
 * 2. PMIx_Get of its own PMIX_DEBUG_TARGET: the process it stands for; of its own
 *    "px.fea.app": that process's description, one pmix_app_t (cmd, argv, env, cwd).
 * 3. Prints "fea R pid P host H target NS:R cmd CMD cwd DIR" (where a debugger would set up
 *    whatever it needs), leaves the daemon (PMIx_tool_finalize), forks and execs the
 *    process with exactly that environment in that directory (the process is then the
 *    registered PMIx client of its rank; the agent never is), tied to the agent's life
 *    (PR_SET_PDEATHSIG), waits for it and exits as it did.
 * Public PMIx API only; errors go to stderr and exit 1 (before connecting) or 126/127
 * (the process could not be executed: the child's status).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_tool.h>

#define FEA_APP_KEY "px.fea.app" /* the daemon's key for the description */

static pmix_proc_t me;

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "forkexec_agent %s:%u: %s: %s\n", me.nspace, me.rank, what,
            PMIx_Error_string(rc));
    exit(1);
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    const char *env = getenv(PMIX_LAUNCHER_RNDZ_URI);
    char *uri = env != NULL ? strdup(env) : NULL;
    if (uri == NULL) {
        die("$" PMIX_LAUNCHER_RNDZ_URI, PMIX_ERR_NOT_FOUND);
    }
    unsetenv(PMIX_LAUNCHER_RNDZ_URI);
    pmix_info_t server;
    PMIX_INFO_LOAD(&server, PMIX_SERVER_URI, uri, PMIX_STRING);
    pmix_status_t rc = PMIx_tool_init(&me, &server, 1);
    PMIX_INFO_DESTRUCT(&server);
    free(uri);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_tool_init", rc);
    }
    pmix_value_t *v = NULL;
    rc = PMIx_Get(&me, PMIX_DEBUG_TARGET, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v->type != PMIX_PROC) {
        die("PMIx_Get(PMIX_DEBUG_TARGET)", rc != PMIX_SUCCESS ? rc : PMIX_ERR_TYPE_MISMATCH);
    }
    pmix_proc_t target = *v->data.proc;
    PMIX_VALUE_RELEASE(v);
    rc = PMIx_Get(&me, FEA_APP_KEY, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v->type != PMIX_DATA_ARRAY || v->data.darray == NULL ||
        v->data.darray->type != PMIX_APP || v->data.darray->size != 1) {
        die("PMIx_Get(" FEA_APP_KEY ")", rc != PMIX_SUCCESS ? rc : PMIX_ERR_TYPE_MISMATCH);
    }
    const pmix_app_t *app = v->data.darray->array;
    char *host = NULL;
    pmix_value_t *hv = NULL;
    if (PMIx_Get(&me, PMIX_HOSTNAME, NULL, 0, &hv) == PMIX_SUCCESS && hv->type == PMIX_STRING) {
        host = strdup(hv->data.string);
        PMIX_VALUE_RELEASE(hv);
    }
    printf("fea %u pid %d host %s target %s:%u cmd %s cwd %s\n", me.rank, (int)getpid(),
           host ? host : "?", target.nspace, target.rank, app->cmd, app->cwd ? app->cwd : ".");
    fflush(stdout);
    free(host);
    /* the copies the child needs, then leave the daemon before forking */
    char *cmd = strdup(app->cmd);
    char **cargv = PMIx_Argv_copy(app->argv);
    char **cenv = PMIx_Argv_copy(app->env);
    char *cwd = app->cwd ? strdup(app->cwd) : NULL;
    PMIX_VALUE_RELEASE(v);
    PMIx_tool_finalize();
    if (cmd == NULL || cargv == NULL || cenv == NULL) {
        fprintf(stderr, "forkexec_agent: out of memory\n");
        return 1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        perror("forkexec_agent: fork");
        return 1;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) {
            _exit(1); /* the agent is gone already */
        }
        if (cwd != NULL && chdir(cwd) != 0) {
            fprintf(stderr, "forkexec_agent: cannot enter %s: %s\n", cwd, strerror(errno));
            _exit(126);
        }
        environ = cenv; /* the search path is the process's own */
        execvp(cmd, cargv);
        fprintf(stderr, "forkexec_agent: cannot execute %s: %s\n", cmd, strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
    }
    free(cmd);
    PMIx_Argv_free(cargv);
    PMIx_Argv_free(cenv);
    free(cwd);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status)) {
        signal(WTERMSIG(status), SIG_DFL);
        raise(WTERMSIG(status)); /* end as the process did */
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
