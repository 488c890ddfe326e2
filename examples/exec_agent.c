/* examples: a debugger's exec agent (PMIX_EXEC_AGENT, prun --exec-agent). The node's
 * daemon runs "exec_agent <the process's argv>" in place of one application process;
 * the agent does its preparations and then execs the process in its own place, so the
 * pid the daemon started is the process's. It does not connect to the daemon.
 *
 *   exec_agent [--agent-env NAME=VALUE]... [--] argv0 args...
 *
 * Its own options come first (the Standard leaves separating them to the agent): each
 * --agent-env sets a variable for the process; "--" ends them (needed when the
 * process's argv0 itself starts with "--"). Preparation here: PX_EXEC_AGENT_PID is set
 * to the agent's pid (the process can check it is the same process), and one line
 * "exec_agent pid P execs ARGV0" goes to stderr. Errors: exit 126/127 as a shell does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (strcmp(argv[i], "--agent-env") == 0 && i + 1 < argc && strchr(argv[i + 1], '=')) {
            char *kv = argv[++i];
            char *eq = strchr(kv, '=');
            *eq = '\0';
            setenv(kv, eq + 1, 1);
            *eq = '=';
            continue;
        }
        break; /* the process's argv0 */
    }
    if (i >= argc) {
        fprintf(stderr, "usage: exec_agent [--agent-env NAME=VALUE]... [--] argv0 args...\n");
        return 127;
    }
    char pid[32];
    snprintf(pid, sizeof(pid), "%d", (int)getpid());
    setenv("PX_EXEC_AGENT_PID", pid, 1);
    fprintf(stderr, "exec_agent pid %s execs %s\n", pid, argv[i]);
    execvp(argv[i], argv + i);
    fprintf(stderr, "exec_agent: cannot execute %s: %s\n", argv[i], strerror(errno));
    return errno == ENOENT ? 127 : 126;
}
