/* server: PMI_PORT (docs/PMI.md, "How a process gets PMI"): for a process that cannot
 * inherit PMI_FD, a TCP listener on the loopback. The node agent offers the process
 * PMI_PORT=127.0.0.1:<port> and PMI_ID=<id> (px_srv_pmi_offer_port: any thread, under
 * px_srv->lock); the process connects and says "cmd=initack pmiid=<id>"
 * (server_pmi_cmd.c claims the offer), and from then on the connection is served as that
 * process's, exactly like a handed-over PMI_FD. The listener and its connections: the
 * server's loop.
 *
 * Who may connect: anybody on the node can reach a loopback port, so an offer is a random
 * number (31 bits, the most MPICH's atoi(PMI_ID) reads) used once, withdrawn when its
 * process ends; a connection that names no live offer is answered rc=-1 and closed, one
 * that says nothing within PX_PMI_PORT_HANDSHAKE_S is closed, and at most
 * PX_PMI_PORT_PENDING_MAX connections wait for their initack at a time.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include <pmix_server.h>

#include "common/px_common.h"
#include "server/pmi_int.h"
#include "server/px_server.h"
#include "server/px_srv_pmi.h"

#define PX_PMI_PORT_HANDSHAKE_S 30
#define PX_PMI_PORT_PENDING_MAX 64
#define PX_PMI_PORT_OFFERS_MAX  (1u << 20) /* a bound on what a runaway agent can make us hold */

/* a pending connection that said nothing in time */
static void handshake_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    pthread_mutex_lock(&px_srv->lock);
    px_pmi_conn_t *k = arg;
    if (k->port_pending && !k->dead) {
        px_debug(1, "server", "PMI_PORT connection closed: no initack within %d s",
                 PX_PMI_PORT_HANDSHAKE_S);
        k->dead = true;
        event_active(k->ev_resume, 0, 0); /* freed there, like any dead connection */
    }
    pthread_mutex_unlock(&px_srv->lock);
}

static void accept_cb(evutil_socket_t lfd, short what, void *arg)
{
    (void)what;
    (void)arg;
    pthread_mutex_lock(&px_srv->lock);
    struct px_srv_pmi *s = px_srv->pmi;
    for (int i = 0; s != NULL && i < 16; i++) {
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            break; /* EAGAIN, or a connection that went (ECONNABORTED): nothing to do */
        }
        if (s->npending >= PX_PMI_PORT_PENDING_MAX) {
            px_debug(1, "server", "PMI_PORT connection refused: %u wait for their initack",
                     s->npending);
            close(fd);
            continue;
        }
        pmix_proc_t nobody;
        memset(&nobody, 0, sizeof(nobody));
        nobody.rank = PMIX_RANK_UNDEF;
        px_pmi_conn_t *k = px_pmi_conn_new(fd, &nobody, 0);
        if (k == NULL) {
            continue;
        }
        k->port_pending = true;
        s->npending++;
        struct timeval tv = {PX_PMI_PORT_HANDSHAKE_S, 0};
        k->ev_timeout = evtimer_new(px_progress_base(px_srv->prog), handshake_timeout_cb, k);
        if (k->ev_timeout == NULL || evtimer_add(k->ev_timeout, &tv) != 0) {
            k->dead = true;
            event_active(k->ev_resume, 0, 0);
        }
    }
    pthread_mutex_unlock(&px_srv->lock);
}

static void listen_on_loop(void *arg)
{
    (void)arg;
    struct px_srv_pmi *s = px_srv->pmi;
    if (s == NULL || !s->port_open || s->ev_accept != NULL) {
        return;
    }
    s->ev_accept = event_new(px_progress_base(px_srv->prog), s->port_fd, EV_READ | EV_PERSIST,
                             accept_cb, NULL);
    if (s->ev_accept == NULL || event_add(s->ev_accept, NULL) != 0) {
        px_debug(1, "server", "PMI_PORT: cannot watch the listener");
    }
}

/* The listener on 127.0.0.1, an ephemeral port; lock held. 0 / -1 + errno. */
static int port_open(struct px_srv_pmi *s)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(sa);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
        }
        errno = e;
        return -1;
    }
    snprintf(s->port, sizeof(s->port), "127.0.0.1:%u", (unsigned)ntohs(sa.sin_port));
    s->port_fd = fd;
    s->port_open = true;
    if (px_srv_shift(listen_on_loop, NULL) != 0) {
        close(fd);
        s->port_open = false;
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

static bool id_taken(const struct px_srv_pmi *s, uint32_t id)
{
    for (const pmi_offer_t *o = s->offers; o != NULL; o = o->next) {
        if (o->id == id) {
            return true;
        }
    }
    return false;
}

int px_srv_pmi_offer_port(const pmix_proc_t *proc, uint32_t size, char *port, size_t portlen,
                          uint32_t *id)
{
    if (px_srv == NULL) {
        errno = ENOTCONN;
        return -1;
    }
    int rc = -1;
    pthread_mutex_lock(&px_srv->lock);
    struct px_srv_pmi *s = px_pmi_state();
    size_t n = 0;
    for (const pmi_offer_t *o = s ? s->offers : NULL; o != NULL; o = o->next) {
        n++;
    }
    pmi_offer_t *o = s != NULL && n < PX_PMI_PORT_OFFERS_MAX ? calloc(1, sizeof(*o)) : NULL;
    if (o == NULL) {
        errno = ENOMEM;
        goto out;
    }
    if (!s->port_open && port_open(s) != 0) {
        free(o);
        goto out;
    }
    do {
        if (getrandom(&o->id, sizeof(o->id), 0) != (ssize_t)sizeof(o->id)) {
            free(o);
            errno = EIO;
            goto out;
        }
        o->id &= 0x7fffffffu;
    } while (o->id == 0 || id_taken(s, o->id));
    o->proc = *proc;
    o->size = size;
    o->next = s->offers;
    s->offers = o;
    snprintf(port, portlen, "%s", s->port);
    *id = o->id;
    rc = 0;
out:
    pthread_mutex_unlock(&px_srv->lock);
    return rc;
}

void px_srv_pmi_port_started(uint32_t id, const pmix_proc_t *proc, pid_t pid)
{
    if (px_srv == NULL) {
        return;
    }
    pthread_mutex_lock(&px_srv->lock);
    struct px_srv_pmi *s = px_srv->pmi;
    bool offered = false;
    for (pmi_offer_t **pp = s ? &s->offers : NULL; pp != NULL && *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->id == id) {
            offered = true;
            if (pid > 0) {
                (*pp)->pid = pid;
            } else { /* it did not start: nobody will claim it */
                pmi_offer_t *o = *pp;
                *pp = o->next;
                free(o);
            }
            break;
        }
    }
    /* already claimed (the server's loop may run on another thread than the caller's):
     * the connection learns the pid now */
    for (px_pmi_conn_t *k = s && !offered && pid > 0 ? s->conns : NULL; k != NULL; k = k->next) {
        if (!k->port_pending && k->pid == 0 && k->proc.rank == proc->rank &&
            strncmp(k->proc.nspace, proc->nspace, PMIX_MAX_NSLEN) == 0) {
            k->pid = pid;
            if (k->client != NULL && k->client->pid == 0) {
                k->client->pid = pid;
            }
        }
    }
    pthread_mutex_unlock(&px_srv->lock);
}

bool px_pmi_port_claim(uint32_t id, pmix_proc_t *proc, uint32_t *size, pid_t *pid)
{
    struct px_srv_pmi *s = px_srv->pmi;
    for (pmi_offer_t **pp = s ? &s->offers : NULL; id != 0 && pp != NULL && *pp != NULL;
         pp = &(*pp)->next) {
        pmi_offer_t *o = *pp;
        if (o->id == id) {
            *proc = o->proc;
            *size = o->size;
            *pid = o->pid;
            *pp = o->next;
            free(o);
            return true;
        }
    }
    return false;
}

void px_pmi_port_settled(px_pmi_conn_t *k)
{
    if (k->ev_timeout != NULL) {
        event_free(k->ev_timeout);
        k->ev_timeout = NULL;
    }
    if (k->port_pending) {
        k->port_pending = false;
        px_srv->pmi->npending--;
    }
}

void px_pmi_port_drop(const pmix_proc_t *proc)
{
    struct px_srv_pmi *s = px_srv->pmi;
    for (pmi_offer_t **pp = s ? &s->offers : NULL; pp != NULL && *pp != NULL;) {
        pmi_offer_t *o = *pp;
        if (strncmp(o->proc.nspace, proc->nspace, PMIX_MAX_NSLEN) == 0 &&
            (proc->rank == PMIX_RANK_WILDCARD || o->proc.rank == proc->rank)) {
            *pp = o->next;
            free(o);
        } else {
            pp = &o->next;
        }
    }
}

void px_pmi_port_fini(void)
{
    struct px_srv_pmi *s = px_srv->pmi;
    while (s->offers != NULL) {
        pmi_offer_t *o = s->offers;
        s->offers = o->next;
        free(o);
    }
    if (s->ev_accept != NULL) {
        event_free(s->ev_accept);
        s->ev_accept = NULL;
    }
    if (s->port_open) {
        close(s->port_fd);
        s->port_open = false;
    }
}
