/* launcher: the built-in ssh client (px_ssh.h). Each session is a small state machine
 * (connect, handshake, host key, authentication, channel, exec, stdin, run) whose
 * steps are retried when libssh2 says EAGAIN, from an event on the socket in the
 * direction libssh2 waits for. Runs on the controller's libevent loop (main thread).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libssh2.h>

#include "help/px_help.h"
#include "launcher/px_ssh.h"

typedef enum {
    SSH_CONNECT,
    SSH_HANDSHAKE,
    SSH_HOSTKEY,
    SSH_AUTH_AGENT,
    SSH_AUTH_KEYS,
    SSH_CHANNEL,
    SSH_EXEC,
    SSH_STDIN,
    SSH_EOF,
    SSH_RUN,
    SSH_CLOSE,
    SSH_DONE,
} ssh_state_t;

struct px_ssh {
    struct event_base *base; /* borrowed */
    char *prog, *host, *cmd; /* owned */
    char *line;              /* owned: what goes to the command's stdin */
    size_t line_len, line_off;
    px_ssh_config_t cfg;
    char user[64];
    char home[4096];
    px_ssh_end_fn end;
    void *arg;
    int fd;
    struct event *ev, *kick; /* owned: the socket's event; a first step, later */
    LIBSSH2_SESSION *sess;
    LIBSSH2_CHANNEL *ch;
    LIBSSH2_AGENT *agent;
    struct libssh2_agent_publickey *ident; /* borrowed from agent: the one being tried */
    unsigned key;                          /* next key file to try */
    ssh_state_t state;
};

static bool lib_ready;

/* ---- ~/.ssh/config ---- */

static bool host_matches(const char *patterns, const char *host)
{
    bool match = false;
    char buf[1024];
    snprintf(buf, sizeof(buf), "%s", patterns);
    for (char *save = NULL, *p = strtok_r(buf, " \t", &save); p != NULL;
         p = strtok_r(NULL, " \t", &save)) {
        bool neg = p[0] == '!';
        if (fnmatch(neg ? p + 1 : p, host, 0) == 0) {
            if (neg) {
                return false; /* a negated match excludes the block */
            }
            match = true;
        }
    }
    return match;
}

int px_ssh_config_read(const char *path, const char *host, px_ssh_config_t *c)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return -1;
    }
    char line[4096];
    bool active = true; /* lines before the first Host apply to all */
    bool got_name = false, got_port = false, got_user = false, got_id = false;
    while (fgets(line, sizeof(line), f) != NULL) {
        char *k = line + strspn(line, " \t");
        if (*k == '#' || *k == '\n' || *k == '\0') {
            continue;
        }
        size_t kl = strcspn(k, " \t=\n");
        char *v = k + kl;
        v += strspn(v, " \t=");
        v[strcspn(v, "\n")] = '\0';
        for (size_t n = strlen(v); n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'); n--) {
            v[n - 1] = '\0';
        }
        k[kl] = '\0';
        if (strcasecmp(k, "Host") == 0) {
            active = host_matches(v, host);
        } else if (!active || *v == '\0') {
            continue;
        } else if (strcasecmp(k, "HostName") == 0 && !got_name) {
            got_name = true;
            snprintf(c->hostname, sizeof(c->hostname), "%s", v);
        } else if (strcasecmp(k, "Port") == 0 && !got_port) {
            char *e = NULL;
            unsigned long p = strtoul(v, &e, 10);
            if (*e == '\0' && p > 0 && p < 65536) {
                got_port = true;
                c->port = (unsigned)p;
            }
        } else if (strcasecmp(k, "User") == 0 && !got_user) {
            got_user = true;
            snprintf(c->user, sizeof(c->user), "%s", v);
        } else if (strcasecmp(k, "IdentityFile") == 0 && !got_id) {
            got_id = true;
            const char *home = getenv("HOME");
            if (v[0] == '~' && v[1] == '/' && home != NULL) {
                snprintf(c->identity, sizeof(c->identity), "%s/%s", home, v + 2);
            } else {
                snprintf(c->identity, sizeof(c->identity), "%s", v);
            }
        }
    }
    fclose(f);
    return 0;
}

/* ---- the session ---- */

static void step(px_ssh_t *s);

static void finish(px_ssh_t *s, int status, const char *why)
{
    if (s->state == SSH_DONE) {
        return;
    }
    s->state = SSH_DONE;
    if (s->ev != NULL) {
        event_del(s->ev);
    }
    s->end(s->arg, status, why);
}

/* a failure: the message (topic of help-prte-ssh.txt, arguments prog, host, detail),
 * then the end with why */
static void fail(px_ssh_t *s, const char *topic, const char *detail, const char *why)
{
    px_show_help("help-prte-ssh.txt", topic, s->prog, s->host, detail);
    finish(s, -1, why);
}

static const char *last_error(px_ssh_t *s)
{
    char *msg = NULL;
    if (s->sess == NULL || libssh2_session_last_error(s->sess, &msg, NULL, 0) == 0 || msg == NULL) {
        return "unknown error";
    }
    return msg;
}

static void on_io(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    step(arg);
}

/* wait for the socket in the direction libssh2 (or connect) needs */
static void wait_io(px_ssh_t *s)
{
    short what = EV_READ;
    if (s->state == SSH_CONNECT) {
        what = EV_WRITE;
    } else if (s->sess != NULL) {
        int dir = libssh2_session_block_directions(s->sess);
        what = 0;
        if (dir & LIBSSH2_SESSION_BLOCK_INBOUND) {
            what |= EV_READ;
        }
        if (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND) {
            what |= EV_WRITE;
        }
        if (what == 0) {
            what = EV_READ;
        }
    }
    if (s->ev != NULL) {
        event_free(s->ev);
    }
    s->ev = event_new(s->base, s->fd, what, on_io, s);
    if (s->ev == NULL || event_add(s->ev, NULL) != 0) {
        fail(s, "ssh-error", strerror(ENOMEM), "out of memory");
    }
}

static int open_socket(px_ssh_t *s)
{
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_socktype = SOCK_STREAM;
    char port[8];
    snprintf(port, sizeof(port), "%u", s->cfg.port);
    /* getaddrinfo blocks: names come from /etc/hosts or a resolver, quickly in practice */
    int rc = getaddrinfo(s->cfg.hostname, port, &hints, &res);
    if (rc != 0) {
        fail(s, "ssh-resolve", gai_strerror(rc), "ssh: the host name does not resolve");
        return -1;
    }
    s->fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s->fd < 0 || (connect(s->fd, res->ai_addr, res->ai_addrlen) != 0 && errno != EINPROGRESS)) {
        freeaddrinfo(res);
        fail(s, "ssh-connect", strerror(errno), "ssh: cannot connect");
        return -1;
    }
    freeaddrinfo(res);
    return 0;
}

static int known_type(int hostkey_type)
{
    switch (hostkey_type) {
    case LIBSSH2_HOSTKEY_TYPE_RSA:
        return LIBSSH2_KNOWNHOST_KEY_SSHRSA;
    case LIBSSH2_HOSTKEY_TYPE_DSS:
        return LIBSSH2_KNOWNHOST_KEY_SSHDSS;
    case LIBSSH2_HOSTKEY_TYPE_ECDSA_256:
        return LIBSSH2_KNOWNHOST_KEY_ECDSA_256;
    case LIBSSH2_HOSTKEY_TYPE_ECDSA_384:
        return LIBSSH2_KNOWNHOST_KEY_ECDSA_384;
    case LIBSSH2_HOSTKEY_TYPE_ECDSA_521:
        return LIBSSH2_KNOWNHOST_KEY_ECDSA_521;
    case LIBSSH2_HOSTKEY_TYPE_ED25519:
        return LIBSSH2_KNOWNHOST_KEY_ED25519;
    default:
        return LIBSSH2_KNOWNHOST_KEY_UNKNOWN;
    }
}

/* 0 when the host key is known; -1 after the message */
static int check_hostkey(px_ssh_t *s)
{
    size_t len = 0;
    int type = 0;
    const char *key = libssh2_session_hostkey(s->sess, &len, &type);
    LIBSSH2_KNOWNHOSTS *kh = libssh2_knownhost_init(s->sess);
    char user_file[4200];
    snprintf(user_file, sizeof(user_file), "%s/.ssh/known_hosts", s->home);
    if (key == NULL || kh == NULL) {
        if (kh != NULL) {
            libssh2_knownhost_free(kh);
        }
        fail(s, "ssh-error", last_error(s), "ssh: no host key");
        return -1;
    }
    /* a missing or unreadable file has no entries: the check below says "unknown" */
    (void)libssh2_knownhost_readfile(kh, user_file, LIBSSH2_KNOWNHOST_FILE_OPENSSH);
    (void)libssh2_knownhost_readfile(kh, "/etc/ssh/ssh_known_hosts",
                                     LIBSSH2_KNOWNHOST_FILE_OPENSSH);
    struct libssh2_knownhost *found = NULL;
    int r = libssh2_knownhost_checkp(
        kh, s->cfg.hostname, (int)s->cfg.port, key, len,
        LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | known_type(type), &found);
    libssh2_knownhost_free(kh);
    if (r == LIBSSH2_KNOWNHOST_CHECK_MATCH) {
        return 0;
    }
    if (r == LIBSSH2_KNOWNHOST_CHECK_MISMATCH) {
        fail(s, "ssh-hostkey-changed", user_file, "ssh: the host key changed");
    } else if (r == LIBSSH2_KNOWNHOST_CHECK_NOTFOUND) {
        fail(s, "ssh-hostkey-unknown", user_file, "ssh: the host key is unknown");
    } else {
        fail(s, "ssh-error", last_error(s), "ssh: cannot check the host key");
    }
    return -1;
}

static const char *const key_files[] = {"id_ed25519", "id_ecdsa", "id_rsa"};
#define NKEYS (sizeof(key_files) / sizeof(key_files[0]))

/* the next key file that exists: its path in buf, or false */
static bool next_key(px_ssh_t *s, char *buf, size_t size)
{
    while (s->key < NKEYS + 1) {
        unsigned k = s->key;
        if (k == 0) {
            if (s->cfg.identity[0] != '\0') {
                snprintf(buf, size, "%s", s->cfg.identity);
            } else {
                s->key++;
                continue;
            }
        } else {
            snprintf(buf, size, "%s/.ssh/%s", s->home, key_files[k - 1]);
        }
        if (access(buf, R_OK) == 0) {
            return true;
        }
        s->key++;
    }
    return false;
}

/* one move of the state machine per loop until libssh2 would block */
static void step(px_ssh_t *s)
{
    for (;;) {
        int rc = 0;
        switch (s->state) {
        case SSH_CONNECT: {
            int err = 0;
            socklen_t el = sizeof(err);
            if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0) {
                err = errno;
            }
            if (err == EINPROGRESS) {
                wait_io(s);
                return;
            }
            if (err != 0) {
                fail(s, "ssh-connect", strerror(err), "ssh: cannot connect");
                return;
            }
            s->state = SSH_HANDSHAKE;
            break;
        }
        case SSH_HANDSHAKE:
            rc = libssh2_session_handshake(s->sess, s->fd);
            if (rc == 0) {
                s->state = SSH_HOSTKEY;
            } else if (rc != LIBSSH2_ERROR_EAGAIN) {
                fail(s, "ssh-connect", last_error(s), "ssh: the handshake failed");
                return;
            }
            break;
        case SSH_HOSTKEY:
            if (check_hostkey(s) != 0) {
                return;
            }
            s->state = SSH_AUTH_AGENT;
            if (getenv("SSH_AUTH_SOCK") == NULL ||
                (s->agent = libssh2_agent_init(s->sess)) == NULL ||
                libssh2_agent_connect(s->agent) != 0 ||
                libssh2_agent_list_identities(s->agent) != 0 ||
                libssh2_agent_get_identity(s->agent, &s->ident, NULL) != 0) {
                s->ident = NULL;
                s->state = SSH_AUTH_KEYS;
            }
            break;
        case SSH_AUTH_AGENT:
            rc = libssh2_agent_userauth(s->agent, s->user, s->ident);
            if (rc == 0) {
                s->state = SSH_CHANNEL;
            } else if (rc != LIBSSH2_ERROR_EAGAIN) {
                struct libssh2_agent_publickey *prev = s->ident;
                if (libssh2_agent_get_identity(s->agent, &s->ident, prev) != 0) {
                    s->state = SSH_AUTH_KEYS;
                }
            }
            break;
        case SSH_AUTH_KEYS: {
            char path[4200], pub[4300];
            if (!next_key(s, path, sizeof(path))) {
                fail(s, "ssh-auth", s->user, "ssh: authentication refused");
                return;
            }
            snprintf(pub, sizeof(pub), "%s.pub", path);
            rc = libssh2_userauth_publickey_fromfile(
                s->sess, s->user, access(pub, R_OK) == 0 ? pub : NULL, path, NULL);
            if (rc == 0) {
                s->state = SSH_CHANNEL;
            } else if (rc != LIBSSH2_ERROR_EAGAIN) {
                s->key++; /* refused, or not readable without a passphrase: the next */
            }
            break;
        }
        case SSH_CHANNEL:
            s->ch = libssh2_channel_open_session(s->sess);
            if (s->ch != NULL) {
                s->state = SSH_EXEC;
            } else if ((rc = libssh2_session_last_errno(s->sess)) != LIBSSH2_ERROR_EAGAIN) {
                fail(s, "ssh-error", last_error(s), "ssh: cannot open a channel");
                return;
            }
            break;
        case SSH_EXEC:
            rc = libssh2_channel_exec(s->ch, s->cmd);
            if (rc == 0) {
                s->state = SSH_STDIN;
            } else if (rc != LIBSSH2_ERROR_EAGAIN) {
                fail(s, "ssh-error", last_error(s), "ssh: the remote command was refused");
                return;
            }
            break;
        case SSH_STDIN: {
            ssize_t n =
                s->line_off < s->line_len
                    ? libssh2_channel_write(s->ch, s->line + s->line_off, s->line_len - s->line_off)
                    : 0;
            if (n >= 0) {
                s->line_off += (size_t)n;
                if (s->line_off == s->line_len) {
                    explicit_bzero(s->line, s->line_len);
                    s->state = SSH_EOF;
                }
            } else if (n != LIBSSH2_ERROR_EAGAIN) {
                s->state = SSH_RUN; /* the command is gone already: its end says why */
            }
            rc = n < 0 ? (int)n : 0;
            break;
        }
        case SSH_EOF:
            rc = libssh2_channel_send_eof(s->ch);
            if (rc != LIBSSH2_ERROR_EAGAIN) {
                s->state = SSH_RUN;
            }
            break;
        case SSH_RUN: {
            char buf[4096];
            ssize_t n = libssh2_channel_read(s->ch, buf, sizeof(buf));
            if (n > 0) {
                fwrite(buf, 1, (size_t)n, stdout);
                fflush(stdout);
                continue;
            }
            n = libssh2_channel_read_stderr(s->ch, buf, sizeof(buf));
            if (n > 0) {
                fwrite(buf, 1, (size_t)n, stderr);
                continue;
            }
            if (libssh2_channel_eof(s->ch)) {
                s->state = SSH_CLOSE;
                break;
            }
            if (n < 0 && n != LIBSSH2_ERROR_EAGAIN) {
                finish(s, -1, "ssh: the connection was lost");
                return;
            }
            rc = LIBSSH2_ERROR_EAGAIN;
            break;
        }
        case SSH_CLOSE:
            rc = libssh2_channel_close(s->ch);
            if (rc == 0) {
                rc = libssh2_channel_wait_closed(s->ch);
            }
            if (rc == 0) {
                finish(s, libssh2_channel_get_exit_status(s->ch), NULL);
                return;
            }
            if (rc != LIBSSH2_ERROR_EAGAIN) {
                finish(s, -1, "ssh: the connection was lost");
                return;
            }
            break;
        case SSH_DONE:
            return;
        }
        if (rc == LIBSSH2_ERROR_EAGAIN) {
            wait_io(s);
            return;
        }
    }
}

static void on_kick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    px_ssh_t *s = arg;
    if (open_socket(s) == 0) {
        step(s);
    }
}

px_ssh_t *px_ssh_start(struct event_base *base, const char *prog, const char *host, const char *cmd,
                       const char *stdin_line, px_ssh_end_fn end, void *arg)
{
    if (!lib_ready) {
        if (libssh2_init(0) != 0) {
            errno = EIO;
            return NULL;
        }
        lib_ready = true; /* libssh2_exit is left to the process's end */
    }
    px_ssh_t *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return NULL;
    }
    s->fd = -1;
    s->base = base;
    s->end = end;
    s->arg = arg;
    s->prog = strdup(prog);
    s->host = strdup(host);
    s->cmd = strdup(cmd);
    s->line = strdup(stdin_line);
    if (s->prog == NULL || s->host == NULL || s->cmd == NULL || s->line == NULL) {
        goto error;
    }
    s->line_len = strlen(s->line);
    const char *home = getenv("HOME");
    struct passwd *pw = getpwuid(getuid());
    if (home == NULL && pw != NULL) {
        home = pw->pw_dir;
    }
    snprintf(s->home, sizeof(s->home), "%s", home != NULL ? home : "/");
    snprintf(s->cfg.hostname, sizeof(s->cfg.hostname), "%s", host);
    s->cfg.port = 22;
    char path[4200];
    snprintf(path, sizeof(path), "%s/.ssh/config", s->home);
    (void)px_ssh_config_read(path, host, &s->cfg); /* no file: the defaults */
    snprintf(s->user, sizeof(s->user), "%s",
             s->cfg.user[0] != '\0' ? s->cfg.user
             : pw != NULL           ? pw->pw_name
                                    : "root");
    if ((s->sess = libssh2_session_init()) == NULL) {
        goto error;
    }
    libssh2_session_set_blocking(s->sess, 0);
    /* the first step runs later: the callback never comes inside this call */
    s->kick = evtimer_new(base, on_kick, s);
    struct timeval now = {0, 0};
    if (s->kick == NULL || evtimer_add(s->kick, &now) != 0) {
        goto error;
    }
    return s;
error:
    px_ssh_destroy(s);
    errno = ENOMEM;
    return NULL;
}

const char *px_ssh_command(const px_ssh_t *s)
{
    return s != NULL ? s->cmd : "";
}

void px_ssh_destroy(px_ssh_t *s)
{
    if (s == NULL) {
        return;
    }
    if (s->kick != NULL) {
        event_free(s->kick);
    }
    if (s->ev != NULL) {
        event_free(s->ev);
    }
    /* the frees would wait for the peer in blocking mode, and stop half-way in
     * non-blocking mode: shut the socket first, so each send fails at once */
    if (s->fd >= 0) {
        shutdown(s->fd, SHUT_RDWR);
    }
    if (s->sess != NULL) {
        libssh2_session_set_blocking(s->sess, 1);
    }
    if (s->ch != NULL) {
        libssh2_channel_free(s->ch);
    }
    if (s->agent != NULL) {
        libssh2_agent_disconnect(s->agent);
        libssh2_agent_free(s->agent);
    }
    if (s->sess != NULL) {
        libssh2_session_free(s->sess);
    }
    if (s->fd >= 0) {
        close(s->fd);
    }
    if (s->line != NULL) {
        explicit_bzero(s->line, s->line_len);
    }
    free(s->line);
    free(s->prog);
    free(s->host);
    free(s->cmd);
    free(s);
}
