/* launcher: the routing tree over the daemons, controller side (docs/PROTOCOL.md, "The
 * routing tree"). With more daemons beyond this node's than the radix, every prted joins
 * its parent in a radix-k tree over the daemon ids rooted at daemon 0 (this process):
 * once all are up we ask each for its tree listener (ADDR), send every daemon the tree
 * (TREE), and the DVM is ready when every daemon with children has them connected (TREE_UP).
 * Then messages for every daemon (LAUNCH, JOB_CLEANUP, PSET) go to daemon 0's children
 * only, wrapped in XCAST, and each daemon relays them to its own; fence contributions
 * come up the same tree (fence.c counts them by the top-level daemon of each part). With
 * no more daemons than the radix the tree is the star it was: nothing is sent. Controller
 * loop only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "daemon/px_dproto.h"
#include "help/px_help.h"
#include "launcher/dvm_int.h"
#include "launcher/px_daemons.h"

#define TREE_START_S 30 /* bound on the tree's set-up once every daemon is up */

struct px_route {
    uint32_t radix;
    uint32_t n;   /* the daemons when the tree was made */
    char **addrs; /* owned, naddrs, by daemon id: its tree listener (NULL: not told yet) */
    size_t naddrs;
    bool *up;    /* owned, by daemon id: TREE_UP came (or has no children) */
    bool sent;   /* TREE went out */
    bool active; /* every TREE_UP came: XCAST and fences use the tree */
    void (*done)(px_dvm_t *dvm, bool ok);
    struct event *timer;
};

uint32_t px_route_radix(const px_dvm_opts_t *o)
{
    return o->radix > 0 ? o->radix : PX_DP_RADIX_DEFAULT;
}

static px_route_t *route_of(px_dvm_t *dvm)
{
    if (dvm->route == NULL) {
        dvm->route = calloc(1, sizeof(*dvm->route));
        if (dvm->route != NULL) {
            dvm->route->radix = px_route_radix(&dvm->opts);
        }
    }
    return dvm->route;
}

unsigned px_route_top(const px_dvm_t *dvm, unsigned id)
{
    const px_route_t *r = dvm->route;
    if (r == NULL || !r->active || id == 0) {
        return id;
    }
    while (px_dp_tree_parent(r->radix, id) != 0) {
        id = px_dp_tree_parent(r->radix, id);
    }
    return id;
}

static void finish(px_dvm_t *dvm, bool ok, const char *why)
{
    px_route_t *r = dvm->route;
    void (*done)(px_dvm_t *, bool) = r->done;
    r->done = NULL;
    if (r->timer != NULL) {
        event_free(r->timer);
        r->timer = NULL;
    }
    if (done == NULL) {
        return;
    }
    if (!ok) {
        px_show_help("help-prte.txt", "tree-start", dvm->prog, why);
    } else {
        r->active = r->sent;
        px_dvm_log(dvm, 1, "routing tree: radix %u over %u daemons%s", r->radix, r->n,
                   r->sent ? "" : " (a star: every daemon a child of this one)");
    }
    done(dvm, ok);
}

/* Every daemon with children has them: the tree is up. */
static void check_up(px_dvm_t *dvm)
{
    px_route_t *r = dvm->route;
    for (uint32_t id = 1; id < r->n; id++) {
        if (!r->up[id]) {
            return;
        }
    }
    finish(dvm, true, NULL);
}

/* Every daemon's address is known: send the tree. */
static void send_tree(px_dvm_t *dvm)
{
    px_route_t *r = dvm->route;
    if (r->sent || r->done == NULL) {
        return;
    }
    for (uint32_t id = 1; id < r->n; id++) {
        if (r->addrs[id] == NULL) {
            return;
        }
    }
    px_dp_tree_t t = {.radix = r->radix, .n = r->n, .addrs = r->addrs};
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    bool ok = px_dp_tree_pack(&b, &t) == PMIX_SUCCESS;
    for (uint32_t id = 1; ok && id < r->n; id++) {
        ok = px_daemons_send(dvm->daemons, id, PX_DP_TREE, &b) == 0;
    }
    px_bfrops_buf_free(&b);
    r->sent = true;
    if (!ok) {
        finish(dvm, false, "the tree could not be sent to every daemon");
        return;
    }
    check_up(dvm);
}

static void px_route_addr(px_dvm_t *dvm, unsigned id, const char *addr);

/* A daemon's answer to ADDR. */
static void on_addr(unsigned id, pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    px_dvm_t *dvm = cbdata;
    char *addr = NULL;
    int32_t one = 1;
    if (status == PMIX_SUCCESS &&
        (px_bfrops_unpack(reply, &addr, &one, PMIX_STRING) != PMIX_SUCCESS || addr == NULL ||
         addr[0] == '\0' || strlen(addr) > PX_DP_NAME_MAX || px_bfrops_buf_remaining(reply) != 0)) {
        status = PMIX_ERR_UNPACK_FAILURE;
    }
    px_dvm_log(dvm, 2, "daemon %u: address %s (%s)", id, addr ? addr : "-",
               PMIx_Error_string(status));
    if (status == PMIX_SUCCESS) {
        px_route_addr(dvm, id, addr);
    } else if (dvm->route != NULL && dvm->route->done != NULL) {
        finish(dvm, false, "a daemon did not say where it listens");
    }
    free(addr);
}

static void ask_addrs(void *arg)
{
    px_dvm_t *dvm = arg;
    px_route_t *r = dvm->route;
    for (uint32_t id = 1; id < r->n && r->done != NULL; id++) {
        if (px_daemons_request(dvm->daemons, id, PX_DP_ADDR, NULL, on_addr, dvm) != 0) {
            finish(dvm, false, "a daemon could not be asked where it listens");
        }
    }
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    finish(arg, false, "not every daemon joined its parent within 30 seconds");
}

/* Room for every daemon's address. 0 / -1. */
static int addrs_room(px_route_t *r, size_t n)
{
    if (r->addrs == NULL && (r->addrs = calloc(n ? n : 1, sizeof(char *))) == NULL) {
        return -1;
    }
    r->naddrs = n;
    return 0;
}

void px_route_start(px_dvm_t *dvm, void (*done)(px_dvm_t *dvm, bool ok))
{
    px_route_t *r = route_of(dvm);
    size_t n = px_daemons_count(dvm->daemons);
    if (r == NULL || addrs_room(r, n) != 0 || (r->up = calloc(n, sizeof(bool))) == NULL) {
        done(dvm, false);
        return;
    }
    r->n = (uint32_t)n;
    r->done = done;
    if (n <= (size_t)r->radix + 1) {
        finish(dvm, true, NULL); /* a star: the controller connections are the tree */
        return;
    }
    for (uint32_t id = 1; id < r->n; id++) {
        /* a leaf has nobody to wait for */
        r->up[id] = r->up[id] || px_dp_tree_children(r->radix, id, r->n, NULL, 0) == 0;
    }
    r->timer = evtimer_new(dvm->base, on_timeout, dvm);
    struct timeval tv = {TREE_START_S, 0};
    if (r->timer == NULL || evtimer_add(r->timer, &tv) != 0) {
        finish(dvm, false, strerror(ENOMEM));
        return;
    }
    /* (the last daemon's handshake answer is not on the wire yet: ask after it) */
    if (px_dvm_shift(dvm, ask_addrs, dvm) != 0) {
        finish(dvm, false, strerror(errno));
    }
}

static void px_route_addr(px_dvm_t *dvm, unsigned id, const char *addr)
{
    px_route_t *r = route_of(dvm);
    size_t n = px_daemons_count(dvm->daemons);
    if (r == NULL || id == 0 || id >= n || addrs_room(r, n) != 0) {
        return;
    }
    free(r->addrs[id]);
    r->addrs[id] = strdup(addr);
    px_dvm_log(dvm, 2, "daemon %u: tree listener at %s", id, addr);
    if (r->n > 0) {
        send_tree(dvm);
    }
}

void px_route_tree_up(px_dvm_t *dvm, unsigned id)
{
    px_route_t *r = dvm->route;
    if (r == NULL || id == 0 || id >= r->n || r->up == NULL) {
        return;
    }
    r->up[id] = true;
    px_dvm_log(dvm, 2, "daemon %u: its children joined it", id);
    if (r->done != NULL && r->sent) {
        check_up(dvm);
    }
}

void px_route_daemon_lost(px_dvm_t *dvm, unsigned id)
{
    px_route_t *r = dvm->route;
    if (r != NULL && r->done != NULL && id < r->n) {
        finish(dvm, false, "a daemon was lost while the tree was made");
    }
}

int px_route_xcast(px_dvm_t *dvm, uint32_t tag, const pmix_data_buffer_t *buf, bool to_self)
{
    px_route_t *r = dvm->route;
    if (r == NULL || !r->active) {
        return -1;
    }
    if (to_self && px_daemons_up(dvm->daemons, 0) &&
        px_daemons_send(dvm->daemons, 0, tag, buf) != 0) {
        px_dvm_log(dvm, 1, "cannot send message %u to daemon 0", tag);
    }
    pmix_data_buffer_t x;
    px_bfrops_buf_init(&x);
    if (px_dp_xcast_pack(&x, tag, buf) == PMIX_SUCCESS) {
        uint32_t kids[PX_DP_RADIX_MAX];
        size_t nk = px_dp_tree_children(r->radix, 0, r->n, kids, PX_DP_RADIX_MAX);
        for (size_t i = 0; i < nk && i < PX_DP_RADIX_MAX; i++) {
            if (px_daemons_up(dvm->daemons, kids[i]) &&
                px_daemons_send(dvm->daemons, kids[i], PX_DP_XCAST, &x) != 0) {
                px_dvm_log(dvm, 1, "cannot send message %u down the tree to daemon %u", tag,
                           kids[i]);
            }
        }
    }
    px_bfrops_buf_free(&x);
    return 0;
}

void px_route_fini(px_dvm_t *dvm)
{
    px_route_t *r = dvm->route;
    if (r == NULL) {
        return;
    }
    if (r->timer != NULL) {
        event_free(r->timer);
    }
    for (size_t id = 0; r->addrs != NULL && id < r->naddrs; id++) {
        free(r->addrs[id]);
    }
    free(r->addrs);
    free(r->up);
    free(r);
    dvm->route = NULL;
}
