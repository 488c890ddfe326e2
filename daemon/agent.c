/* daemon: fork an agent with a line on its stdin (px_agent.h). Loop thread. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/px_agent.h"

#define PX_AGENT_ARGV_MAX 96

/* the blank-separated words of s (modified in place) appended to argv */
static void words(char *s, char **argv, size_t *argc)
{
    for (char *save = NULL, *w = s ? strtok_r(s, " \t", &save) : NULL;
         w != NULL && *argc < PX_AGENT_ARGV_MAX - 1; w = strtok_r(NULL, " \t", &save)) {
        argv[(*argc)++] = w;
    }
}

pid_t px_agent_fork(const char *agent, const char *host, const char *cmd, const void *line,
                    size_t len)
{
    char *a = strdup(agent), *c = strdup(cmd), *argv[PX_AGENT_ARGV_MAX];
    size_t argc = 0;
    int fds[2] = {-1, -1}, err = ENOMEM;
    pid_t pid = -1;
    words(a, argv, &argc);
    if (host != NULL && argc < PX_AGENT_ARGV_MAX - 1) {
        argv[argc++] = (char *)host;
    }
    words(c, argv, &argc);
    argv[argc] = NULL;
    if (a == NULL || c == NULL || argc == 0 || pipe2(fds, O_CLOEXEC) != 0) {
        err = a == NULL || c == NULL ? ENOMEM : argc == 0 ? EINVAL : errno;
        goto out;
    }
    pid = fork();
    if (pid < 0) {
        err = errno;
        goto out;
    }
    if (pid == 0) {
        /* the child: system calls only, then exec */
        setpgid(0, 0);
        dup2(fds[0], 0);
        execvp(argv[0], argv);
        _exit(127);
    }
    setpgid(pid, pid);
    /* the line fits in an empty pipe: the write does not block */
    if (write(fds[1], line, len) != (ssize_t)len) {
        /* the agent is gone already: its reap reports it */
    }
out:
    if (fds[0] >= 0) {
        close(fds[0]);
        close(fds[1]);
    }
    free(a);
    free(c);
    errno = pid < 0 ? err : errno;
    return pid;
}
