/* daemon: tree spawn, a daemon's side (px_dspawn.h). Agents are forked on the loop and
 * reaped by pid from a SIGCHLD event (never waitpid(-1): odls reaps its own children the
 * same way); ssh sessions are driven by launcher/ssh.c on the same loop. prted's loop
 * only.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/px_agent.h"
#include "daemon/px_dspawn.h"
#include "launcher/px_ssh.h"
#include "net/px_tcp.h"

typedef struct {
    px_dspawn_t *owner; /* borrowed */
    uint32_t id;
    pid_t agent;         /* > 0: the agent process (its own group) */
    px_ssh_t *ssh;       /* owned: the built-in client's session */
    struct event *later; /* owned: tells a start that failed, from the loop */
    bool ended;          /* told through end */
} child_t;

struct px_dspawn {
    struct event_base *base; /* borrowed */
    char *prog;              /* owned */
    char secret[PX_TCP_SECRET_HEX + 2];
    px_dspawn_end_fn end;
    void *arg;
    child_t **kids; /* owned (each and the array) */
    size_t nkids;
    struct event *sigchld; /* owned, once an agent was forked */
};

static void tell(child_t *c, int32_t status, const char *why)
{
    if (!c->ended) {
        c->ended = true;
        c->owner->end(c->id, status, why, c->owner->arg);
    }
}

static void on_sigchld(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    px_dspawn_t *s = arg;
    for (size_t i = 0; i < s->nkids; i++) {
        child_t *c = s->kids[i];
        int st = 0;
        if (c->agent <= 0 || waitpid(c->agent, &st, WNOHANG) != c->agent) {
            continue;
        }
        c->agent = 0;
        char why[96];
        snprintf(why, sizeof(why), "its agent exited with status %d",
                 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
        tell(c, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), why);
    }
}

static void on_ssh_end(void *arg, int status, const char *why)
{
    child_t *c = arg;
    char buf[96];
    if (why == NULL) {
        snprintf(buf, sizeof(buf), "the remote command exited with status %d", status);
        why = buf;
    }
    tell(c, status, why);
}

/* A child that could not be started, told on the loop (never inside px_dspawn_start). */
static void tell_later(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    child_t *c = arg;
    tell(c, -1, strerror(ENOEXEC));
}

/* <agent words> <host> <cmd words>, the secret on its stdin */
static int start_agent(px_dspawn_t *s, child_t *c, const char *agent, const px_dp_child_t *ch)
{
    if (s->sigchld == NULL &&
        ((s->sigchld = evsignal_new(s->base, SIGCHLD, on_sigchld, s)) == NULL ||
         event_add(s->sigchld, NULL) != 0)) {
        return -1;
    }
    c->agent = px_agent_fork(agent, ch->host, ch->cmd, s->secret, PX_TCP_SECRET_HEX + 1);
    return c->agent > 0 ? 0 : -1;
}

px_dspawn_t *px_dspawn_create(struct event_base *base, const char *prog, const char *secret,
                              px_dspawn_end_fn end, void *arg)
{
    px_dspawn_t *s = calloc(1, sizeof(*s));
    if (s == NULL || (s->prog = strdup(prog)) == NULL) {
        free(s);
        return NULL;
    }
    s->base = base;
    s->end = end;
    s->arg = arg;
    snprintf(s->secret, sizeof(s->secret), "%.*s\n", PX_TCP_SECRET_HEX, secret);
    return s;
}

void px_dspawn_start(px_dspawn_t *s, const px_dp_spawn_t *sp)
{
    for (size_t i = 0; i < sp->n; i++) {
        const px_dp_child_t *ch = &sp->children[i];
        child_t **k = realloc(s->kids, (s->nkids + 1) * sizeof(*k));
        child_t *c = calloc(1, sizeof(*c));
        if (k != NULL) {
            s->kids = k;
        }
        if (k == NULL || c == NULL) {
            free(c);
            continue; /* its start times out at the controller */
        }
        c->owner = s;
        c->id = ch->id;
        s->kids[s->nkids++] = c;
        int rc = 0;
        if (sp->agent != NULL) {
            rc = start_agent(s, c, sp->agent, ch);
        } else {
            c->ssh = px_ssh_start(s->base, s->prog, ch->host, ch->cmd, s->secret, on_ssh_end, c);
            rc = c->ssh != NULL ? 0 : -1;
        }
        struct timeval now = {0, 0};
        if (rc != 0 && ((c->later = evtimer_new(s->base, tell_later, c)) == NULL ||
                        evtimer_add(c->later, &now) != 0)) {
            /* out of memory: its start times out at the controller */
        }
    }
}

void px_dspawn_destroy(px_dspawn_t *s)
{
    if (s == NULL) {
        return;
    }
    for (size_t i = 0; i < s->nkids; i++) {
        child_t *c = s->kids[i];
        px_ssh_destroy(c->ssh);
        if (c->later != NULL) {
            event_free(c->later);
        }
        if (c->agent > 0) {
            (void)waitpid(c->agent, NULL, WNOHANG); /* reaped if done; else init will */
        }
        free(c);
    }
    free(s->kids);
    if (s->sigchld != NULL) {
        event_free(s->sigchld);
    }
    explicit_bzero(s->secret, sizeof(s->secret));
    free(s->prog);
    free(s);
}
