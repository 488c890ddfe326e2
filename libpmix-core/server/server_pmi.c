/* server: PMI-1 and PMI-2 connections (px_srv_pmi.h, docs/PMI.md). Each connection is
 * one end of a socketpair the host's node agent made for a process it started; once the
 * process says init, the connection is served as that process's registered client
 * (px_srv_client_t): a put is that client's commit, a barrier its fence, a publish its
 * publish — the same handlers a PMIx client's messages reach, fed request payloads built
 * here, their replies (px_srv_reply) turned back into PMI text by px_srv_pmi_reply.
 * Everything runs on the server's loop with px_srv->lock held.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "help/px_help.h"
#include "pmi/px_pmi_wire.h"
#include "server/px_server.h"
#include "server/pmi_int.h"
#include "server/px_srv_pmi.h"

#define PX_PMI_READ_CHUNK 4096
/* the input buffer never holds more than the longest message plus one read */
#define PX_PMI_IN_MAX (PX_PMI2_HDR + PX_PMI2_MSG_MAX + PX_PMI_READ_CHUNK)

/* ---- state ---- */

struct px_srv_pmi *px_pmi_state(void)
{
    if (px_srv->pmi == NULL) {
        px_srv->pmi = calloc(1, sizeof(*px_srv->pmi));
    }
    return px_srv->pmi;
}

static void conn_read_cb(evutil_socket_t fd, short what, void *arg);
static void conn_write_cb(evutil_socket_t fd, short what, void *arg);
static void conn_resume_cb(evutil_socket_t fd, short what, void *arg);

/* Unlink, unbind and free. A bound client is lost as when a PMIx connection closes
 * (px_srv_peer_lost: its fences fail, its gets are dropped, its cleanups run), unless it
 * is being deregistered (unbound before). */
static void conn_free(px_pmi_conn_t *k, int err)
{
    for (px_pmi_conn_t **pp = &px_srv->pmi->conns; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == k) {
            *pp = k->next;
            break;
        }
    }
    px_srv_client_t *c = k->client;
    if (c != NULL) {
        c->pmi = NULL;
        k->client = NULL;
        px_debug(1, "server", "PMI connection of %s:%u (pid %d) closed: %s%s", c->proc.nspace,
                 c->proc.rank, (int)k->pid, err ? strerror(err) : "end of stream",
                 k->finalized ? "" : " (not finalized)");
        px_srv_peer_lost(NULL, err, c); /* releases the connection's reference */
    }
    if (k->ev_read != NULL) {
        event_free(k->ev_read);
    }
    if (k->ev_write != NULL) {
        event_free(k->ev_write);
    }
    if (k->ev_resume != NULL) {
        event_free(k->ev_resume);
    }
    px_pmi_port_settled(k);
    if (k->fd >= 0) {
        close(k->fd);
    }
    free(k->in);
    free(k->out);
    free(k->key);
    free(k->thrid);
    px_pmi_spawn_free(k->spawn);
    free(k);
}

/* ---- output ---- */

/* Write what is queued; what the socket does not take waits for EV_WRITE. */
void px_pmi_conn_flush(px_pmi_conn_t *k)
{
    while (k->out_off < k->out_len) {
        ssize_t n = send(k->fd, k->out + k->out_off, k->out_len - k->out_off, MSG_NOSIGNAL);
        if (n > 0) {
            k->out_off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            event_add(k->ev_write, NULL);
            return;
        }
        k->dead = true; /* the process is gone: closed from the resume event */
        event_active(k->ev_resume, 0, 0);
        return;
    }
    k->out_off = k->out_len = 0;
    event_del(k->ev_write);
    if (k->closing) {
        k->dead = true;
        event_active(k->ev_resume, 0, 0);
    }
}

static void conn_queue(px_pmi_conn_t *k, const char *bytes, size_t len)
{
    if (k->dead) {
        return;
    }
    if (k->out_off > 0) {
        memmove(k->out, k->out + k->out_off, k->out_len - k->out_off);
        k->out_len -= k->out_off;
        k->out_off = 0;
    }
    char *o = realloc(k->out, k->out_len + len);
    if (o == NULL) {
        k->dead = true;
        event_active(k->ev_resume, 0, 0);
        return;
    }
    memcpy(o + k->out_len, bytes, len);
    k->out = o;
    k->out_len += len;
    px_pmi_conn_flush(k);
}

/* ---- replies ---- */

void px_pmi_reply_start(px_pmi_conn_t *k, px_pmi_out_t *o, const char *cmd)
{
    px_pmi_out_start(o, (px_pmi_wire_t)(k->wire ? k->wire : PX_PMI_WIRE1), cmd);
    if (k->wire == PX_PMI_WIRE2 && k->thrid != NULL) {
        px_pmi_out_add(o, "thrid", k->thrid);
    }
}

void px_pmi_reply_send(px_pmi_conn_t *k, px_pmi_out_t *o)
{
    char *buf;
    size_t len;
    if (px_pmi_out_finish(o, &buf, &len) != 0) {
        /* a value this wire cannot carry: say so instead */
        px_pmi_out_t e;
        px_pmi_reply_start(k, &e, "error");
        px_pmi_out_add_int(&e, "rc", -1);
        px_pmi_out_add_text(&e, k->wire == PX_PMI_WIRE2 ? "errmsg" : "msg",
                            "the answer cannot be carried on this wire");
        if (px_pmi_out_finish(&e, &buf, &len) != 0) {
            return;
        }
    }
    conn_queue(k, buf, len);
    free(buf);
}

/* An error answer: rc=-1 and the rendered (file, topic) text. */
void px_pmi_reply_error(px_pmi_conn_t *k, const char *cmd, const char *topic, ...)
{
    va_list ap;
    va_start(ap, topic);
    char *text = px_help_vrender("help-pmi.txt", topic, ap);
    va_end(ap);
    px_pmi_out_t o;
    px_pmi_reply_start(k, &o, cmd);
    px_pmi_out_add_int(&o, "rc", -1);
    if (text != NULL) {
        /* one line: the catalog's line breaks become spaces */
        for (char *p = text; *p != '\0'; p++) {
            if (*p == '\n') {
                *p = ' ';
            }
        }
        size_t n = strlen(text);
        while (n > 0 && text[n - 1] == ' ') {
            text[--n] = '\0';
        }
        px_pmi_out_add_text(&o, k->wire == PX_PMI_WIRE2 ? "errmsg" : "msg", text);
    }
    free(text);
    px_pmi_reply_send(k, &o);
}

/* Bytes that cannot be framed: the process is told why (on PMI-1 when it does not speak
 * PMI at all) and its connection closed once that is written. */
static void protocol_error(px_pmi_conn_t *k, const char *why)
{
    px_debug(1, "server", "PMI connection of %s:%u (pid %d): %s: closed", k->proc.nspace,
             k->proc.rank, (int)k->pid, why);
    if (k->wire == 0) {
        k->wire = PX_PMI_WIRE1; /* not PMI at all: answered as PMI-1 would be */
    }
    px_pmi_reply_error(k, "error", "unframed", why);
    k->closing = true;
    px_pmi_conn_flush(k);
}

/* ---- reading ---- */

static void conn_read(px_pmi_conn_t *k)
{
    for (int i = 0; i < 16 && !k->dead; i++) {
        if (k->in_cap - k->in_len < PX_PMI_READ_CHUNK) {
            size_t cap = k->in_cap ? 2 * k->in_cap : PX_PMI_READ_CHUNK;
            if (cap > PX_PMI_IN_MAX) {
                cap = PX_PMI_IN_MAX;
            }
            if (cap - k->in_len < PX_PMI_READ_CHUNK) {
                return; /* full: a message this long is refused by the framing */
            }
            char *in = realloc(k->in, cap);
            if (in == NULL) {
                k->dead = true;
                return;
            }
            k->in = in;
            k->in_cap = cap;
        }
        ssize_t n = read(k->fd, k->in + k->in_len, PX_PMI_READ_CHUNK);
        if (n > 0) {
            k->in_len += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return;
        }
        k->dead = true; /* end of file or an error: served what is buffered, then closed */
        return;
    }
}

/* Serve the whole messages buffered, one request at a time. */
static void conn_process(px_pmi_conn_t *k)
{
    while (!k->closing && k->wait == PMI_WAIT_NONE && k->in_len > 0) {
        if (k->wire == 0) {
            int w = px_pmi_sniff(k->in, k->in_len);
            if (w == 0) {
                return;
            }
            if (w < 0) {
                protocol_error(k, "the connection does not speak PMI");
                return;
            }
            k->wire = w;
        }
        ssize_t n = px_pmi_frame((px_pmi_wire_t)k->wire, k->in, k->in_len);
        if (n == 0) {
            return;
        }
        if (n < 0) {
            protocol_error(k, errno == EMSGSIZE ? "a message longer than the limit"
                                                : "a length header that is not a number");
            return;
        }
        px_pmi_msg_t m;
        const char *why = NULL;
        int rc = px_pmi_parse((px_pmi_wire_t)k->wire, k->in, (size_t)n, &m, &why);
        int err = errno;
        memmove(k->in, k->in + n, k->in_len - (size_t)n);
        k->in_len -= (size_t)n;
        if (rc != 0 && err == ENOMEM) {
            k->dead = true;
            return;
        }
        if (rc != 0) {
            /* framed, so the stream is still in step: say why and go on */
            px_debug(1, "server", "PMI message of %s:%u refused: %s", k->proc.nspace, k->proc.rank,
                     why);
            px_pmi_reply_error(k, "error", "malformed", why);
            continue;
        }
        px_pmi_handle(k, &m);
        px_pmi_msg_fini(&m);
    }
}

/* After an event: a dead connection is freed (the caller touches it no more). */
static void conn_settle(px_pmi_conn_t *k)
{
    if (k->dead) {
        conn_free(k, 0);
    }
}

static void conn_read_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    pthread_mutex_lock(&px_srv->lock);
    px_pmi_conn_t *k = arg;
    conn_read(k);
    conn_process(k);
    conn_settle(k);
    pthread_mutex_unlock(&px_srv->lock);
}

static void conn_write_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    pthread_mutex_lock(&px_srv->lock);
    px_pmi_conn_t *k = arg;
    px_pmi_conn_flush(k);
    conn_settle(k);
    pthread_mutex_unlock(&px_srv->lock);
}

static void conn_resume_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    pthread_mutex_lock(&px_srv->lock);
    px_pmi_conn_t *k = arg;
    if (!k->dead) {
        conn_process(k);
    }
    conn_settle(k);
    pthread_mutex_unlock(&px_srv->lock);
}

/* ---- attach / detach ---- */

typedef struct {
    int fd;
    pmix_proc_t proc;
    pid_t pid;
} attach_t;

px_pmi_conn_t *px_pmi_conn_new(int fd, const pmix_proc_t *proc, pid_t pid)
{
    px_pmi_conn_t *k = px_pmi_state() ? calloc(1, sizeof(*k)) : NULL;
    struct event_base *base = px_progress_base(px_srv->prog);
    int fl = fcntl(fd, F_GETFL);
    if (k == NULL || fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
        close(fd);
        free(k);
        return NULL;
    }
    k->fd = fd;
    k->proc = *proc;
    k->pid = pid;
    k->ev_read = event_new(base, k->fd, EV_READ | EV_PERSIST, conn_read_cb, k);
    k->ev_write = event_new(base, k->fd, EV_WRITE | EV_PERSIST, conn_write_cb, k);
    k->ev_resume = event_new(base, -1, 0, conn_resume_cb, k);
    k->next = px_srv->pmi->conns;
    px_srv->pmi->conns = k;
    if (k->ev_read == NULL || k->ev_write == NULL || k->ev_resume == NULL ||
        event_add(k->ev_read, NULL) != 0) {
        conn_free(k, ENOMEM);
        return NULL;
    }
    return k;
}

static void attach_on_loop(void *arg)
{
    attach_t *a = arg;
    (void)px_pmi_conn_new(a->fd, &a->proc, a->pid);
    free(a);
}

bool px_srv_pmi_ready(void)
{
    return px_srv != NULL;
}

int px_srv_pmi_attach(int fd, const pmix_proc_t *proc, pid_t pid)
{
    attach_t *a = px_srv != NULL ? malloc(sizeof(*a)) : NULL;
    if (a == NULL) {
        close(fd);
        errno = px_srv != NULL ? ENOMEM : ENOTCONN;
        return -1;
    }
    a->fd = fd;
    a->proc = *proc;
    a->pid = pid;
    if (px_srv_shift(attach_on_loop, a) != 0) {
        close(fd);
        free(a);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

static void detach_on_loop(void *arg)
{
    pmix_proc_t *p = arg;
    px_pmi_port_drop(p); /* an offer it never took up */
    for (px_pmi_conn_t *k = px_srv->pmi ? px_srv->pmi->conns : NULL, *next; k != NULL; k = next) {
        next = k->next;
        if (!k->port_pending && PMIx_Check_procid(&k->proc, p) && k->proc.rank == p->rank) {
            conn_read(k); /* what it wrote before it went (an abort) */
            conn_process(k);
            conn_free(k, 0);
        }
    }
    free(p);
}

void px_srv_pmi_detach(const pmix_proc_t *proc)
{
    pmix_proc_t *p = px_srv != NULL ? malloc(sizeof(*p)) : NULL;
    if (p == NULL) {
        return;
    }
    *p = *proc;
    if (px_srv_shift(detach_on_loop, p) != 0) {
        free(p);
    }
}

/* ---- the server's own hooks ---- */

void px_srv_pmi_unbind(px_srv_client_t *c)
{
    px_pmi_conn_t *k = c->pmi;
    if (k == NULL) {
        return;
    }
    c->pmi = NULL;
    k->client = NULL;
    conn_free(k, 0);
}

void px_srv_pmi_ns_gone(const char *nspace)
{
    if (px_srv->pmi == NULL) {
        return;
    }
    for (px_pmi_conn_t *k = px_srv->pmi->conns, *next; k != NULL; k = next) {
        next = k->next;
        if (!k->port_pending && PMIx_Check_nspace(k->proc.nspace, nspace)) {
            conn_free(k, 0);
        }
    }
    pmix_proc_t all;
    PMIx_Load_procid(&all, nspace, PMIX_RANK_WILDCARD);
    px_pmi_port_drop(&all);
    for (pmi_nattr_t **pp = &px_srv->pmi->nattrs; *pp != NULL;) {
        pmi_nattr_t *a = *pp;
        if (strcmp(a->nspace, nspace) == 0) {
            *pp = a->next;
            free(a->nspace);
            free(a->key);
            free(a->val);
            free(a);
        } else {
            pp = &a->next;
        }
    }
}

void px_srv_pmi_fini(void)
{
    struct px_srv_pmi *s = px_srv->pmi;
    if (s == NULL) {
        return;
    }
    while (s->conns != NULL) {
        px_pmi_conn_t *k = s->conns;
        px_srv_client_t *c = k->client;
        if (c != NULL) {
            c->pmi = NULL;
            k->client = NULL;
            c->departed = true;
            px_srv_client_release(c); /* the connection's reference */
        }
        conn_free(k, 0);
    }
    px_pmi_port_fini();
    while (s->nattrs != NULL) {
        pmi_nattr_t *a = s->nattrs;
        s->nattrs = a->next;
        free(a->nspace);
        free(a->key);
        free(a->val);
        free(a);
    }
    free(s);
    px_srv->pmi = NULL;
}
