/* server: tool connections — the TCP listener, a tool's hello, its attach request and
 * the host's tool_connected approval. Runs on the progress loop with px_srv->lock held
 * (the host's approval callback may come from any thread and is shifted there).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "net/px_tcp.h"
#include "server/px_server.h"

/* ---- environment and listener (init) ---- */

void px_srv_tool_env(px_server_t *s)
{
    const char *v = getenv(PMIX_LAUNCHER_RNDZ_URI);
    if (v != NULL && *v != '\0') {
        s->launcher_rndz_uri = strdup(v); /* connected back to: server_uplink.c */
    }
    v = getenv(PMIX_KEEPALIVE_PIPE);
    if (v != NULL && *v != '\0') {
        s->keepalive_str = strdup(v);
        char *end;
        long fd = strtol(v, &end, 10);
        s->keepalive_fd = (*end == '\0' && fd >= 0 && fd < 1 << 20) ? (int)fd : -1;
    }
    /* neither may reach the processes this server's host will start */
    unsetenv(PMIX_LAUNCHER_RNDZ_URI);
    unsetenv(PMIX_KEEPALIVE_PIPE);
}

/* The hello after the secret: int32 kind, string nspace, uint32 rank, string version. */
static pmix_status_t tcp_on_accept(px_tcp_listener_t *l, int fd, pmix_data_buffer_t *hello,
                                   void *cbdata)
{
    (void)l;
    (void)cbdata;
    int32_t kind = 0, one = 1;
    char *nspace = NULL, *version = NULL;
    pmix_rank_t rank = PMIX_RANK_UNDEF;
    pthread_mutex_lock(&px_srv->lock);
    pmix_status_t rc = px_bfrops_unpack(hello, &kind, &one, PMIX_INT32);
    if (rc == PMIX_SUCCESS) {
        one = 1;
        rc = px_bfrops_unpack(hello, &nspace, &one, PMIX_STRING);
    }
    if (rc == PMIX_SUCCESS) {
        one = 1;
        rc = px_bfrops_unpack(hello, &rank, &one, PMIX_PROC_RANK);
    }
    if (rc == PMIX_SUCCESS) {
        one = 1;
        rc = px_bfrops_unpack(hello, &version, &one, PMIX_STRING);
    }
    if (rc != PMIX_SUCCESS) {
        px_debug(1, "server", "refused TCP connection: malformed handshake");
        rc = PMIX_ERR_BAD_PARAM;
    } else if (kind != PX_HELLO_TOOL) {
        /* a client's identity is checked with SO_PEERCRED: Unix socket only */
        px_debug(1, "server", "refused TCP connection of a client: clients use the socket");
        rc = PMIX_ERR_NOT_SUPPORTED;
    } else {
        rc = px_srv_tool_hello(fd, NULL, nspace, rank, version);
    }
    pthread_mutex_unlock(&px_srv->lock);
    free(nspace);
    free(version);
    return rc;
}

void px_srv_tool_listen(px_server_t *s)
{
    char secret[PX_TCP_SECRET_HEX + 1];
    if ((!s->tool_support || s->no_rndz) && !s->remote_connections) {
        return; /* no tools, or tools only through the URI the host hands out */
    }
    if (px_tcp_secret_new(secret) != 0) {
        px_debug(1, "server", "no TCP listener: no random secret: %s", strerror(errno));
        return;
    }
    s->tcp_listener = px_tcp_listen(s->prog, s->remote_connections, secret, tcp_on_accept, NULL);
    if (s->tcp_listener == NULL) {
        px_debug(1, "server", "no TCP listener: %s", strerror(errno));
        return;
    }
    s->tcp_uri = px_uri_make_tcp(&s->myproc, px_tcp_listener_addr(s->tcp_listener),
                                 px_tcp_listener_port(s->tcp_listener), secret);
    explicit_bzero(secret, sizeof(secret));
    if (s->tcp_uri == NULL) {
        px_tcp_listener_destroy(s->tcp_listener);
        s->tcp_listener = NULL;
    }
}

bool px_srv_tool_is_connected(const pmix_proc_t *proc)
{
    for (px_srv_client_t *c = px_srv->tools; c != NULL; c = c->next) {
        if (c->approved && c->peer != NULL && PMIx_Check_procid(&c->proc, proc) &&
            c->proc.rank == proc->rank) {
            return true;
        }
    }
    return false;
}

/* ---- a tool's connection ---- */

static void tool_unlink(px_srv_client_t *c)
{
    for (px_srv_client_t **pp = &px_srv->tools; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            c->next = NULL;
            return;
        }
    }
}

void px_srv_tool_gone(px_srv_client_t *c)
{
    tool_unlink(c);
    if (!c->approved) {
        return; /* never attached: nobody knew it */
    }
    /* The host learns that a tool left (a launcher whose jobs it may end) through its
     * own event handlers only: not relayed, not cached, not handed up. */
    pmix_info_t info[2];
    PMIx_Info_load(&info[0], PMIX_EVENT_AFFECTED_PROC, &c->proc, PMIX_PROC);
    PMIx_Info_load(&info[1], PMIX_EVENT_TEXT_MESSAGE,
                   c->finalized ? "tool disconnected" : "tool connection lost", PMIX_STRING);
    px_srv_event_local(PMIX_ERR_LOST_CONNECTION, &c->proc, info, 2);
    PMIx_Info_destruct(&info[0]);
    PMIx_Info_destruct(&info[1]);
}

typedef struct {
    px_srv_client_t *c; /* counted */
    uint32_t seq;
    pmix_info_t *info; /* owned: what the host was given */
    size_t ninfo;
    pmix_status_t status;
    pmix_proc_t proc;
    bool have_proc;
} tool_req_t;

static void tool_req_free(tool_req_t *r)
{
    px_srv_client_release(r->c);
    if (r->info != NULL) {
        PMIx_Info_free(r->info, r->ninfo);
    }
    free(r);
}

/* Is proc already taken by a connected client or an approved tool other than c? */
static bool proc_taken(const px_srv_client_t *c, const pmix_proc_t *proc)
{
    const px_srv_client_t *o = px_srv_client_find(proc->nspace, proc->rank);
    if (o != NULL && o->peer != NULL) {
        return true;
    }
    for (o = px_srv->tools; o != NULL; o = o->next) {
        if (o != c && o->approved && o->peer != NULL && o->proc.rank == proc->rank &&
            PMIx_Check_nspace(o->proc.nspace, proc->nspace)) {
            return true;
        }
    }
    return false;
}

/* On the loop: the host's answer. */
static void tool_decided(void *arg)
{
    tool_req_t *r = arg;
    px_srv_client_t *c = r->c;
    pmix_status_t rc = r->status;
    if (c->peer == NULL) {
        goto out; /* the tool left meanwhile */
    }
    if (rc == PMIX_SUCCESS &&
        (!r->have_proc || r->proc.nspace[0] == '\0' || r->proc.rank >= PMIX_RANK_VALID)) {
        px_debug(1, "server", "host approved a tool without a valid identity: refused");
        rc = PMIX_ERR_BAD_PARAM;
    }
    if (rc == PMIX_SUCCESS && proc_taken(c, &r->proc)) {
        px_debug(1, "server", "tool %s:%u refused: that identity is connected already",
                 r->proc.nspace, r->proc.rank);
        rc = PMIX_EXISTS;
    }
    if (rc != PMIX_SUCCESS) {
        px_debug(1, "server", "tool connection (pid %d) refused: %s", (int)c->pid,
                 PMIx_Error_string(rc));
        px_srv_reply(c, r->seq, PX_TAG_TOOL_ATTACH, rc, NULL);
        goto out;
    }
    c->proc = r->proc;
    c->approved = true;
    pmix_data_buffer_t body;
    px_bfrops_buf_init(&body);
    rc = px_bfrops_pack(&body, &c->proc, 1, PMIX_PROC);
    px_srv_reply(c, r->seq, PX_TAG_TOOL_ATTACH, rc, rc == PMIX_SUCCESS ? &body : NULL);
    px_bfrops_buf_free(&body);
    px_debug(2, "server", "tool %s:%u connected (pid %d)", c->proc.nspace, c->proc.rank,
             (int)c->pid);
out:
    tool_req_free(r);
}

/* The host's callback (any thread, maybe inside the upcall). */
static void tool_cb(pmix_status_t status, pmix_proc_t *proc, void *cbdata)
{
    tool_req_t *r = cbdata;
    r->status = status;
    if (proc != NULL) {
        r->proc = *proc;
        r->have_proc = true;
    }
    if (px_srv == NULL || px_srv_shift(tool_decided, r) != 0) {
        tool_req_free(r); /* the server is gone: nobody to answer */
    }
}

static pmix_status_t info_add(pmix_info_t **info, size_t *n, const char *key, const void *v,
                              pmix_data_type_t t)
{
    pmix_info_t *grown = realloc(*info, (*n + 1) * sizeof(**info));
    if (grown == NULL) {
        return PMIX_ERR_NOMEM;
    }
    *info = grown;
    PMIx_Info_load(&grown[*n], key, v, t);
    (*n)++;
    return PMIX_SUCCESS;
}

/* Loop, no lock held (px_srv_upcall); tool_connected has no immediate answer. */
static void tool_upcall(void *arg)
{
    tool_req_t *r = arg;
    px_srv->module.tool_connected(r->info, r->ninfo, tool_cb, r);
}

/* PX_TAG_TOOL_ATTACH: info[] of the tool -> the host's tool_connected. */
static void tool_attach(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    tool_req_t *r = calloc(1, sizeof(*r));
    pmix_status_t rc = r != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    if (rc == PMIX_SUCCESS) {
        px_srv_client_retain(c);
        r->c = c;
        r->seq = seq;
        rc = px_bfrops_unpack_info_array(payload, &r->info, &r->ninfo);
    }
    if (rc == PMIX_SUCCESS && c->tool_cred) { /* credentials of a Unix-socket peer */
        uint32_t uid = c->uid, gid = c->gid;
        pid_t pid = c->pid;
        rc = info_add(&r->info, &r->ninfo, PMIX_USERID, &uid, PMIX_UINT32);
        if (rc == PMIX_SUCCESS) {
            rc = info_add(&r->info, &r->ninfo, PMIX_GRPID, &gid, PMIX_UINT32);
        }
        if (rc == PMIX_SUCCESS) {
            rc = info_add(&r->info, &r->ninfo, PMIX_PROC_PID, &pid, PMIX_PID);
        }
    }
    if (rc == PMIX_SUCCESS && px_srv->module.tool_connected == NULL) {
        /* the Tools chapter: a host without the hook refuses every tool */
        px_debug(1, "server", "tool connection (pid %d) refused: the host has no tool_connected",
                 (int)c->pid);
        rc = PMIX_ERR_NOT_SUPPORTED;
    }
    if (rc == PMIX_SUCCESS && px_srv_upcall(tool_upcall, r) != 0) {
        rc = PMIX_ERR_OUT_OF_RESOURCE;
    }
    if (rc != PMIX_SUCCESS) {
        px_srv_reply(c, seq, PX_TAG_TOOL_ATTACH, rc, NULL);
        if (r != NULL) {
            tool_req_free(r);
        }
        return;
    }
}

/* A tool's messages: before approval only its one attach request is served. */
static void tool_recv(px_peer_t *peer, uint32_t tag, uint32_t seq, pmix_data_buffer_t *payload,
                      void *cbdata)
{
    px_srv_client_t *c = cbdata;
    pthread_mutex_lock(&px_srv->lock);
    if (c->approved) {
        if (tag == PX_TAG_TOOL_ATTACH) {
            px_srv_reply(c, seq, tag, PMIX_EXISTS, NULL);
        } else if (tag == PX_TAG_FINALIZE) {
            /* client_finalized is the host's hook for its registered clients only */
            c->finalized = true;
            px_srv_reply(c, seq, tag, PMIX_SUCCESS, NULL);
        } else {
            px_srv_peer_recv(peer, tag, seq, payload, cbdata);
        }
    } else if (tag == PX_TAG_TOOL_ATTACH && seq != 0 && !c->tool_attaching) {
        c->tool_attaching = true;
        tool_attach(c, seq, payload);
    } else {
        px_debug(1, "server", "tool (pid %d) sent message %u before its approval: refused",
                 (int)c->pid, tag);
        if (seq != 0) {
            px_srv_reply(c, seq, tag, PMIX_ERR_NO_PERMISSIONS, NULL);
        }
    }
    pthread_mutex_unlock(&px_srv->lock);
}

pmix_status_t px_srv_tool_hello(int fd, const px_usock_cred_t *cred, const char *nspace,
                                pmix_rank_t rank, const char *version)
{
    if (!px_srv->tool_support) {
        px_debug(1, "server", "refused tool connection (pid %d): no tool support",
                 cred ? (int)cred->pid : -1);
        return PMIX_ERR_NOT_SUPPORTED;
    }
    px_srv_client_t *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        return PMIX_ERR_NOMEM;
    }
    c->is_tool = true;
    c->refs = 1; /* the connection's */
    c->connected_once = true;
    PMIx_Load_procid(&c->proc, nspace != NULL ? nspace : "", rank);
    if (cred != NULL) {
        c->tool_cred = true;
        c->uid = cred->uid;
        c->gid = cred->gid;
        c->pid = cred->pid;
    } else {
        /* TCP: no peer credentials, but the tool presented the listener's secret, which
         * only our own rendezvous files (mode 0600) hold: it acts as this server's user.
         * Its requests' upcalls (publish, lookup, query, register_events...) carry these
         * ids; tool_connected still gets none, so the host knows it was not told. */
        c->uid = geteuid();
        c->gid = getegid();
    }
    c->peer = px_peer_create(px_srv->prog, fd, tool_recv, px_srv_peer_lost, c);
    if (c->peer == NULL) {
        free(c);
        return PMIX_ERR_NOMEM;
    }
    c->next = px_srv->tools;
    px_srv->tools = c;
    px_debug(2, "server", "tool connection over %s (pid %d, library %s): waiting for its attach",
             cred ? "socket" : "TCP", (int)c->pid, version ? version : "?");
    return PMIX_SUCCESS;
}

void px_srv_tool_fini(void)
{
    px_server_t *s = px_srv;
    px_tcp_listener_destroy(s->tcp_listener);
    s->tcp_listener = NULL;
    while (s->tools != NULL) {
        px_srv_client_t *c = s->tools;
        s->tools = c->next;
        c->next = NULL;
        px_peer_destroy(c->peer);
        c->peer = NULL;
        c->departed = true;
        px_srv_data_client_gone(c, true);
        px_srv_client_release(c); /* the connection's reference */
    }
    free(s->tcp_uri);
    s->tcp_uri = NULL;
    free(s->launcher_rndz_uri);
    s->launcher_rndz_uri = NULL;
    free(s->launcher_rndz_file);
    s->launcher_rndz_file = NULL;
    free(s->keepalive_str);
    s->keepalive_str = NULL;
}
