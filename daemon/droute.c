/* daemon: a prted's place in the routing tree (px_droute.h). Daemon's loop; the connect to
 * the parent daemon blocks, so it runs on a helper thread whose result is shifted back.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "daemon/px_droute.h"
#include "net/px_peer.h"
#include "net/px_tcp.h"

#define PARENT_CONNECT_MS 10000

/* A child's connection (accepted before or after the tree came). */
typedef struct conn {
    struct conn *next;
    px_droute_t *r;
    uint32_t id;
    px_peer_t *peer; /* owned */
} conn_t;

/* A fence of this subtree: this daemon's and its children's contributions. */
typedef struct rfence {
    struct rfence *next;
    char *sig;          /* owned */
    pmix_proc_t *procs; /* owned: the participants */
    size_t nprocs;
    bool collect;
    bool self_need, self_got;
    bool *need, *got; /* owned, by child index */
    bool sent;        /* gone up: waits for its release */
    pmix_data_buffer_t data;
} rfence_t;

struct px_droute {
    px_droute_opts_t o;
    char secret[PX_TCP_SECRET_HEX + 1];
    px_tcp_listener_t *lis;        /* owned */
    char addr[PX_DP_NAME_MAX + 1]; /* the listener's "a.b.c.d:port" */
    bool have_tree;
    uint32_t radix, n, parent;
    uint32_t *kids; /* owned, nkids: this daemon's children */
    size_t nkids;
    conn_t *conns;    /* owned: children's connections */
    px_peer_t *up;    /* owned: the parent daemon's connection (parent != 0) */
    bool tree_up;     /* TREE_UP sent */
    rfence_t *fences; /* owned */
    /* the connect to the parent: the helper thread's result (written before it shifts
     * joined_on_loop; read on the loop, or at destroy after the join) */
    pthread_t thread;
    bool thread_started;
    char paddr[64];
    uint16_t pport;
    int join_fd, join_err;
    pmix_status_t join_status;
};

/* ---- messages up ---- */

/* To the controller, over its connection. */
static int to_controller(px_droute_t *r, uint32_t tag, const pmix_data_buffer_t *b)
{
    px_peer_t *p = px_dlink_peer(r->o.link);
    return p != NULL && px_peer_send(p, tag, b) == 0 ? 0 : -1;
}

/* To the parent in the tree: the controller for a child of daemon 0. */
static int to_parent(px_droute_t *r, uint32_t tag, const pmix_data_buffer_t *b)
{
    if (r->parent == 0) {
        return to_controller(r, tag, b);
    }
    return r->up != NULL && px_peer_send(r->up, tag, b) == 0 ? 0 : -1;
}

/* ---- the tree's shape ---- */

static int kid_index(const px_droute_t *r, uint32_t id)
{
    for (size_t i = 0; i < r->nkids; i++) {
        if (r->kids[i] == id) {
            return (int)i;
        }
    }
    return -1;
}

static conn_t *conn_of(const px_droute_t *r, uint32_t id)
{
    for (conn_t *c = r->conns; c != NULL; c = c->next) {
        if (c->id == id) {
            return c;
        }
    }
    return NULL;
}

/* Whether daemon d is in the subtree rooted at k. */
static bool in_subtree(const px_droute_t *r, uint32_t d, uint32_t k)
{
    while (d != k && d != 0) {
        d = px_dp_tree_parent(r->radix, d);
    }
    return d == k;
}

/* Every child connected (and the tree known): tell the controller, once. */
static void check_tree_up(px_droute_t *r)
{
    if (!r->have_tree || r->tree_up) {
        return;
    }
    for (size_t i = 0; i < r->nkids; i++) {
        conn_t *c = conn_of(r, r->kids[i]);
        if (c == NULL || c->peer == NULL) {
            return;
        }
    }
    if (r->parent != 0 && r->up == NULL) {
        return; /* not joined to our own parent yet */
    }
    r->tree_up = true;
    px_debug(1, "prted", "daemon %u: tree up (%zu children)", r->o.self, r->nkids);
    if (to_controller(r, PX_DP_TREE_UP, NULL) != 0) {
        r->o.lost("cannot tell the controller", r->o.arg);
    }
}

/* ---- fences ---- */

static void rfence_free(rfence_t *f)
{
    free(f->sig);
    free(f->procs);
    free(f->need);
    free(f->got);
    px_bfrops_buf_free(&f->data);
    free(f);
}

static rfence_t *rfence_find(px_droute_t *r, const char *sig)
{
    for (rfence_t *f = r->fences; f != NULL; f = f->next) {
        if (strcmp(f->sig, sig) == 0 && !f->sent) {
            return f;
        }
    }
    return NULL;
}

/* A tracker for the fence over procs: which of this subtree's parts host participants. */
static rfence_t *rfence_new(px_droute_t *r, const char *sig, const pmix_proc_t *procs, size_t n)
{
    rfence_t *f = calloc(1, sizeof(*f));
    bool *mark = calloc(r->n ? r->n : 1, sizeof(bool));
    if (f == NULL || mark == NULL || (f->sig = strdup(sig)) == NULL ||
        (f->procs = calloc(n, sizeof(*procs))) == NULL ||
        (f->need = calloc(r->nkids ? r->nkids : 1, sizeof(bool))) == NULL ||
        (f->got = calloc(r->nkids ? r->nkids : 1, sizeof(bool))) == NULL ||
        !r->o.where(procs, n, mark, r->n, r->o.arg)) {
        if (f != NULL) {
            free(f->sig);
            free(f->procs);
            free(f->need);
            free(f);
        }
        free(mark);
        return NULL;
    }
    memcpy(f->procs, procs, n * sizeof(*procs));
    f->nprocs = n;
    px_bfrops_buf_init(&f->data);
    f->self_need = mark[r->o.self];
    for (uint32_t d = 0; d < r->n; d++) {
        for (size_t i = 0; mark[d] && i < r->nkids; i++) {
            f->need[i] |= in_subtree(r, d, r->kids[i]);
        }
    }
    free(mark);
    f->next = r->fences;
    r->fences = f;
    return f;
}

/* The subtree's part is complete: up it goes. */
static void rfence_check(px_droute_t *r, rfence_t *f)
{
    if (f->self_need && !f->self_got) {
        return;
    }
    for (size_t i = 0; i < r->nkids; i++) {
        if (f->need[i] && !f->got[i]) {
            return;
        }
    }
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    f->sent = true;
    if (px_dp_fence_up_pack(&b, f->procs, f->nprocs, f->collect, f->data.base_ptr,
                            f->data.bytes_used) != PMIX_SUCCESS ||
        to_parent(r, PX_DP_FENCE_UP, &b) != 0) {
        px_debug(1, "prted", "fence %s: cannot send it up", f->sig);
    }
    px_bfrops_buf_free(&b);
}

/* One part's contribution (kid -1: this daemon's own). */
static pmix_status_t contribute(px_droute_t *r, int kid, const pmix_proc_t *procs, size_t n,
                                bool collect, const void *data, size_t len)
{
    char *sig = px_dp_fence_sig(procs, n);
    if (sig == NULL) {
        return PMIX_ERR_NOMEM;
    }
    rfence_t *f = rfence_find(r, sig);
    if (f == NULL) {
        f = rfence_new(r, sig, procs, n);
    }
    free(sig);
    if (f == NULL) {
        return PMIX_ERR_NOT_FOUND; /* a participant this daemon does not know */
    }
    bool *got = kid < 0 ? &f->self_got : &f->got[kid];
    if (*got || (kid >= 0 && !f->need[kid])) {
        return PMIX_ERR_BAD_PARAM; /* twice, or from a part that hosts no participant */
    }
    if (len > 0 && px_bfrops_buf_append(&f->data, data, len) != PMIX_SUCCESS) {
        return PMIX_ERR_NOMEM;
    }
    *got = true;
    f->collect |= collect;
    rfence_check(r, f);
    return PMIX_SUCCESS;
}

pmix_status_t px_droute_fence(px_droute_t *r, const pmix_proc_t *procs, size_t n, bool collect,
                              const void *data, size_t len)
{
    return contribute(r, -1, procs, n, collect, data, len);
}

void px_droute_fence_rel(px_droute_t *r, const px_dp_ctl_msg_t *m)
{
    if (r == NULL) {
        return;
    }
    for (rfence_t **pp = &r->fences; *pp != NULL; pp = &(*pp)->next) {
        rfence_t *f = *pp;
        if (strcmp(f->sig, m->sig) != 0) {
            continue;
        }
        *pp = f->next;
        pmix_data_buffer_t b;
        px_bfrops_buf_init(&b);
        if (px_dp_fence_rel_pack(&b, m->sig, m->status, m->data.bytes, m->data.size) ==
            PMIX_SUCCESS) {
            for (size_t i = 0; i < r->nkids; i++) {
                conn_t *c = f->got[i] ? conn_of(r, r->kids[i]) : NULL;
                if (c != NULL && c->peer != NULL) {
                    px_peer_send(c->peer, PX_DP_FENCE_REL, &b);
                }
            }
        }
        px_bfrops_buf_free(&b);
        rfence_free(f);
        return;
    }
}

/* ---- children ---- */

static void conn_drop(px_droute_t *r, conn_t *c)
{
    for (conn_t **pp = &r->conns; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    }
    px_peer_destroy(c->peer);
    free(c);
}

static void on_child_msg(px_peer_t *peer, uint32_t tag, uint32_t seq, pmix_data_buffer_t *payload,
                         void *cbdata)
{
    (void)peer;
    (void)seq;
    conn_t *c = cbdata;
    px_droute_t *r = c->r;
    int kid = kid_index(r, c->id);
    px_dp_dmn_msg_t m;
    pmix_status_t rc = tag == PX_DP_FENCE_UP && kid >= 0 ? px_dp_dmn_decode(tag, payload, &m)
                                                         : PMIX_ERR_NOT_SUPPORTED;
    if (rc == PMIX_SUCCESS) {
        rc = contribute(r, kid, m.procs, m.nprocs, m.collect, m.data.bytes, m.data.size);
        px_dp_dmn_msg_free(&m);
    }
    if (rc != PMIX_SUCCESS) {
        /* what a child sends is a contribution of its subtree, or it is out of step */
        px_debug(1, "prted", "daemon %u: dropped message %u from child %u: %s", r->o.self, tag,
                 c->id, PMIx_Error_string(rc));
    }
}

static void on_child_lost(px_peer_t *peer, int err, void *cbdata)
{
    (void)peer;
    conn_t *c = cbdata;
    px_debug(1, "prted", "daemon %u: child %u gone (%s)", c->r->o.self, c->id,
             err ? strerror(err) : "closed");
    /* its own connection to the controller tells the controller: the fences waiting
     * for its subtree fail there */
    conn_drop(c->r, c);
}

/* A connection on our listener: a child's hello (before or after the tree came). */
static pmix_status_t on_accept(px_tcp_listener_t *l, int fd, pmix_data_buffer_t *hello,
                               void *cbdata)
{
    (void)l;
    px_droute_t *r = cbdata;
    uint32_t id = 0;
    pmix_status_t rc = px_dp_child_hello_unpack(hello, &id);
    if (rc == PMIX_SUCCESS &&
        (conn_of(r, id) != NULL || id == r->o.self || (r->have_tree && kid_index(r, id) < 0))) {
        rc = PMIX_ERR_BAD_PARAM; /* not ours, or twice */
    }
    conn_t *c = rc == PMIX_SUCCESS ? calloc(1, sizeof(*c)) : NULL;
    if (rc == PMIX_SUCCESS && c == NULL) {
        rc = PMIX_ERR_NOMEM;
    }
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    c->r = r;
    c->id = id;
    c->peer = px_peer_create(r->o.prog, fd, on_child_msg, on_child_lost, c);
    if (c->peer == NULL) {
        free(c);
        return PMIX_SUCCESS; /* the fd was the peer's: closed */
    }
    c->next = r->conns;
    r->conns = c;
    px_debug(1, "prted", "daemon %u: child %u connected", r->o.self, id);
    check_tree_up(r);
    return PMIX_SUCCESS;
}

/* ---- the parent ---- */

static void on_parent_msg(px_peer_t *peer, uint32_t tag, uint32_t seq, pmix_data_buffer_t *payload,
                          void *cbdata)
{
    (void)peer;
    (void)seq;
    px_droute_t *r = cbdata;
    pmix_status_t rc = PMIX_ERR_NOT_SUPPORTED;
    if (tag == PX_DP_XCAST || tag == PX_DP_FENCE_REL) {
        rc = r->o.deliver(tag, payload, r->o.arg);
    }
    if (rc != PMIX_SUCCESS) {
        char why[64];
        snprintf(why, sizeof(why), "message %u from the parent daemon: %s", tag,
                 PMIx_Error_string(rc));
        r->o.lost(why, r->o.arg);
    }
}

static void on_parent_lost(px_peer_t *peer, int err, void *cbdata)
{
    (void)peer;
    px_droute_t *r = cbdata;
    char why[96];
    snprintf(why, sizeof(why), "the parent daemon %u closed the connection (%s)", r->parent,
             err ? strerror(err) : "end of file");
    r->o.lost(why, r->o.arg);
}

static void joined_on_loop(void *arg)
{
    px_droute_t *r = arg;
    int fd = r->join_fd;
    r->join_fd = -1;
    if (fd >= 0) {
        r->up = px_peer_create(r->o.prog, fd, on_parent_msg, on_parent_lost, r);
    }
    if (r->up == NULL) {
        char why[160];
        snprintf(why, sizeof(why), "cannot join the parent daemon %u at %s:%u: %s", r->parent,
                 r->paddr, (unsigned)r->pport,
                 r->join_status != PMIX_SUCCESS ? PMIx_Error_string(r->join_status)
                                                : strerror(r->join_err));
        r->o.lost(why, r->o.arg);
    } else {
        px_debug(1, "prted", "daemon %u: joined parent %u", r->o.self, r->parent);
        check_tree_up(r);
    }
}

static void *join_parent(void *arg)
{
    px_droute_t *r = arg;
    pmix_data_buffer_t hello;
    px_bfrops_buf_init(&hello);
    int fd = -1;
    pmix_status_t st = PMIX_SUCCESS;
    errno = ENOMEM;
    if (px_dp_child_hello_pack(&hello, r->o.self) == PMIX_SUCCESS) {
        fd = px_tcp_connect(r->paddr, r->pport, r->secret, &hello, PARENT_CONNECT_MS, &st);
    }
    r->join_err = errno;
    r->join_status = st;
    r->join_fd = fd;
    px_bfrops_buf_free(&hello);
    px_progress_shift(r->o.prog, joined_on_loop, r); /* dropped if the loop is gone */
    return NULL;
}

/* ---- the tree ---- */

pmix_status_t px_droute_tree(px_droute_t *r, const px_dp_tree_t *t)
{
    if (r->have_tree || r->o.self >= t->n || t->radix == 0) {
        return PMIX_ERR_BAD_PARAM;
    }
    r->radix = t->radix;
    r->n = t->n;
    r->parent = px_dp_tree_parent(t->radix, r->o.self);
    size_t nk = px_dp_tree_children(t->radix, r->o.self, t->n, NULL, 0);
    r->kids = calloc(nk ? nk : 1, sizeof(*r->kids));
    if (r->kids == NULL) {
        return PMIX_ERR_NOMEM;
    }
    r->nkids = px_dp_tree_children(t->radix, r->o.self, t->n, r->kids, nk);
    r->have_tree = true;
    /* a connection from a daemon that is not our child: closed */
    for (conn_t *c = r->conns, *next; c != NULL; c = next) {
        next = c->next;
        if (kid_index(r, c->id) < 0) {
            conn_drop(r, c);
        }
    }
    px_debug(1, "prted", "daemon %u: parent %u, %zu children (radix %u)", r->o.self, r->parent,
             r->nkids, r->radix);
    if (r->parent != 0) {
        const char *a = t->addrs[r->parent];
        const char *colon = a != NULL ? strrchr(a, ':') : NULL;
        char *end = NULL;
        unsigned long port = colon != NULL ? strtoul(colon + 1, &end, 10) : 0;
        if (colon == NULL || (size_t)(colon - a) >= sizeof(r->paddr) || end == colon + 1 ||
            *end != '\0' || port == 0 || port > 65535) {
            return PMIX_ERR_BAD_PARAM; /* no address for our parent */
        }
        memcpy(r->paddr, a, (size_t)(colon - a));
        r->paddr[colon - a] = '\0';
        r->pport = (uint16_t)port;
        if (pthread_create(&r->thread, NULL, join_parent, r) != 0) {
            return PMIX_ERR_OUT_OF_RESOURCE;
        }
        r->thread_started = true;
    }
    check_tree_up(r);
    return PMIX_SUCCESS;
}

bool px_droute_indirect(const px_droute_t *r)
{
    return r != NULL && r->have_tree && r->parent != 0;
}

bool px_droute_active(const px_droute_t *r)
{
    return r != NULL && r->have_tree;
}

void px_droute_xcast(px_droute_t *r, uint32_t tag, const pmix_byte_object_t *payload)
{
    if (r == NULL || r->nkids == 0) {
        return;
    }
    pmix_data_buffer_t inner, b;
    px_bfrops_buf_init(&inner);
    px_bfrops_buf_init(&b);
    if ((payload->size == 0 ||
         px_bfrops_buf_append(&inner, payload->bytes, payload->size) == PMIX_SUCCESS) &&
        px_dp_xcast_pack(&b, tag, &inner) == PMIX_SUCCESS) {
        for (size_t i = 0; i < r->nkids; i++) {
            conn_t *c = conn_of(r, r->kids[i]);
            if (c != NULL && c->peer != NULL && px_peer_send(c->peer, PX_DP_XCAST, &b) != 0) {
                px_debug(1, "prted", "daemon %u: cannot relay to child %u", r->o.self, c->id);
            }
        }
    }
    px_bfrops_buf_free(&inner);
    px_bfrops_buf_free(&b);
}

/* ---- life ---- */

px_droute_t *px_droute_create(const px_droute_opts_t *o)
{
    px_droute_t *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        return NULL;
    }
    r->o = *o;
    r->join_fd = -1;
    snprintf(r->secret, sizeof(r->secret), "%s", o->secret);
    r->lis = px_tcp_listen(o->prog, true, r->secret, on_accept, r);
    if (r->lis == NULL) {
        free(r);
        return NULL;
    }
    snprintf(r->addr, sizeof(r->addr), "%s:%u", px_tcp_listener_addr(r->lis),
             (unsigned)px_tcp_listener_port(r->lis));
    px_debug(1, "prted", "daemon %u: tree listener at %s", o->self, r->addr);
    return r;
}

const char *px_droute_addr(const px_droute_t *r)
{
    return r->addr;
}

void px_droute_destroy(px_droute_t *r)
{
    if (r == NULL) {
        return;
    }
    if (r->thread_started) {
        pthread_join(r->thread, NULL);
    }
    if (r->join_fd >= 0) {
        close(r->join_fd); /* joined after the loop stopped */
    }
    px_tcp_listener_destroy(r->lis);
    while (r->conns != NULL) {
        conn_drop(r, r->conns);
    }
    px_peer_destroy(r->up);
    while (r->fences != NULL) {
        rfence_t *f = r->fences;
        r->fences = f->next;
        rfence_free(f);
    }
    memset(r->secret, 0, sizeof(r->secret));
    free(r->kids);
    free(r);
}
