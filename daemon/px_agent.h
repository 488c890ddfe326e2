/* daemon: starting a daemon through a remote-shell agent (or srun): fork and exec
 * "<agent words...> [<host>] <command words...>" in a process group of its own, with a
 * line (the DVM's secret) written to its stdin, which then ends. Used by the controller
 * (launcher/daemons.c) and by a prted starting its children of the start tree
 * (daemon/dspawn.c). Loop thread; the child only makes system calls before exec.
 */
#ifndef PX_AGENT_H
#define PX_AGENT_H

#include <stddef.h>
#include <sys/types.h>

/* agent and cmd are blank-separated words (no quoting); host may be NULL (then only
 * agent and cmd). line (len bytes, at most a pipe's buffer) goes to the child's stdin.
 * The child's pid (the caller reaps it by pid), or -1 with errno. */
pid_t px_agent_fork(const char *agent, const char *host, const char *cmd, const void *line,
                    size_t len);

#endif /* PX_AGENT_H */
