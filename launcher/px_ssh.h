/* launcher: the built-in ssh client (libssh2) that starts a prted on another host when
 * no remote-shell agent is configured. One session per host, non-blocking, driven by
 * the controller's libevent loop, so many connections proceed at once. Runs on the
 * controller's loop (main thread) only.
 */
#ifndef PX_SSH_H
#define PX_SSH_H

#include <event2/event.h>

typedef struct px_ssh px_ssh_t;

/* The session's end, called once on the loop, never inside px_ssh_start. status is the
 * remote command's exit status (>= 0), or -1 when the session failed before or while
 * the command ran (a share/help message naming the host was shown; why says it short,
 * for the caller's own message). The session stays allocated: px_ssh_destroy it. */
typedef void (*px_ssh_end_fn)(void *arg, int status, const char *why);

/* Connect to host (as ~/.ssh/config maps it: HostName, Port, User, IdentityFile),
 * check its host key against ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts,
 * authenticate with the agent (SSH_AUTH_SOCK) then ~/.ssh/id_ed25519, id_ecdsa,
 * id_rsa, run cmd there and write stdin_line (e.g. the DVM's secret and a newline;
 * borrowed until the call returns: copied) to its stdin, then end of file. The
 * command's output is copied to our stdout/stderr. The channel stays open as long as
 * the command runs: that is the daemon's lifeline. prog names us in messages.
 * NULL with errno when nothing could be started (no callback then). */
px_ssh_t *px_ssh_start(struct event_base *base, const char *prog, const char *host, const char *cmd,
                       const char *stdin_line, px_ssh_end_fn end, void *arg);

/* The remote command line, for messages. */
const char *px_ssh_command(const px_ssh_t *s);

/* Close the channel and connection (the remote command sees its stdin and the session
 * end) and free. No callback after this. Accepts NULL. */
void px_ssh_destroy(px_ssh_t *s);

/* ~/.ssh/config, the subset we read (documented in docs/ARCHITECTURE.md): for host,
 * the first value given of HostName, Port, User and IdentityFile in the "Host"
 * blocks whose patterns (*, ? wildcards; !negation) match. Fields left untouched when
 * not given. Exposed for the unit test. 0, or -1 with errno (ENOENT: no file). */
typedef struct {
    char hostname[256];
    unsigned port;
    char user[64];
    char identity[4096];
} px_ssh_config_t;
int px_ssh_config_read(const char *path, const char *host, px_ssh_config_t *c);

#endif /* PX_SSH_H */
