/* prted: the node daemon. Started by the controller (through a remote-shell agent or a
 * local fork), it reads the DVM's secret from an inherited fd (stdin by default, never
 * argv), connects back over TCP, says hello (node name, topology signature), starts its
 * PMIx server (daemon/dsrv.c) and runs the node agent on the controller's job messages
 * (daemon/dlink.c, nagent.c); it exits on PX_DP_EXIT or when the controller is gone,
 * killing its processes. Everything runs on the main thread's libevent loop (the PMIx
 * server's upcalls are shifted onto it) (docs/PROTOCOL.md). Once connected, its user
 * messages (px_show_help) go to the controller's terminal as REPORT messages.
 */
#include <errno.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "daemon/px_dlink.h"
#include "daemon/px_dproto.h"
#include "daemon/px_dspawn.h"
#include "daemon/px_droute.h"
#include "daemon/px_dsrv.h"
#include "daemon/px_dtopo.h"
#include "daemon/px_hb.h"
#include "help/px_help.h"
#include "net/px_peer.h"
#include "net/px_progress.h"
#include "net/px_tcp.h"

#define CONNECT_TIMEOUT_MS 10000

typedef struct {
    struct event_base *base;
    px_progress_t *prog;
    px_dlink_t *link;   /* the controller connection and the node agent */
    px_dsrv_t *srv;     /* the PMIx server of this node's processes */
    px_hb_t *hb;        /* the controller's heartbeats (NULL: not asked for) */
    px_dspawn_t *spawn; /* the children of the tree this daemon starts (NULL: none) */
    char secret[PX_TCP_SECRET_HEX + 1]; /* the DVM's, for those children's stdin */
    px_hb_opts_t hbo;                   /* --heartbeat */
    char ctl[96];                       /* the controller's address:port, for messages */
    px_droute_t *route;                 /* its place in the routing tree */
    /* test-only (PX_PRTED_TEST_RELAY_DELAY_MS): XCASTs relayed this much later, in order,
     * so job messages straight from the controller overtake a relayed LAUNCH */
    int relay_delay_ms;
    struct event *relay_ev;
    struct relay *relays, **relays_tail;
    hwloc_topology_t topo;
    char sig[PX_DTOPO_SIG_LEN];
    char node[HOST_NAME_MAX + 1];
    unsigned id;
    int verbose;
    int status;         /* exit status of the daemon */
    pthread_t loop_tid; /* the main thread, which runs the loop */
} prted_t;

static void dlog(const prted_t *d, const char *fmt, const char *arg)
{
    if (d->verbose > 0) {
        fprintf(stderr, "[prted %u %s:%d] ", d->id, d->node, (int)getpid());
        fprintf(stderr, fmt, arg);
        fputc('\n', stderr);
    }
}

/* The controller is gone or told us to go: the loop ends, then our processes are
 * killed (px_dlink_destroy). */
static void stop(prted_t *d, int status)
{
    d->status = status;
    event_base_loopbreak(d->base);
}

static void send_topology(prted_t *d, uint32_t seq)
{
    char *xml = NULL;
    int len = 0;
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    if (hwloc_topology_export_xmlbuffer(d->topo, &xml, &len, 0) != 0 ||
        px_dp_topo_pack(&b, d->sig, xml) != PMIX_SUCCESS || px_dlink_peer(d->link) == NULL ||
        px_peer_send_reply(px_dlink_peer(d->link), seq, PX_DP_TOPO, &b) != 0) {
        px_show_help("help-prted.txt", "daemon-send", d->id, d->node, "topology",
                     strerror(errno ? errno : EIO));
        stop(d, 1);
    } else {
        dlog(d, "sent topology %s", d->sig);
    }
    if (xml != NULL) {
        hwloc_free_xmlbuffer(d->topo, xml);
    }
    px_bfrops_buf_free(&b);
}

static void on_failed(int err, uint32_t tag, pmix_status_t rc, void *arg);

/* --debug: each message to and from the controller, by name (heartbeats left out) */
static void on_trace(bool in, uint32_t tag, size_t bytes, void *arg)
{
    static const char *const names[] = {
        [PX_DP_TOPO_ASK] = "TOPO_ASK",
        [PX_DP_TOPO] = "TOPO",
        [PX_DP_EXIT] = "EXIT",
        [PX_DP_XCAST] = "XCAST",
        [PX_DP_LAUNCH] = "LAUNCH",
        [PX_DP_PSTATE] = "PSTATE",
        [PX_DP_SIGNAL] = "SIGNAL",
        [PX_DP_STDIN] = "STDIN",
        [PX_DP_IOF] = "IOF",
        [PX_DP_FENCE_UP] = "FENCE_UP",
        [PX_DP_FENCE_REL] = "FENCE_REL",
        [PX_DP_DMODEX_REQ] = "DMODEX_REQ",
        [PX_DP_DMODEX_RESP] = "DMODEX_RESP",
        [PX_DP_EVENT] = "EVENT",
        [PX_DP_PSET] = "PSET",
        [PX_DP_JOB_CLEANUP] = "JOB_CLEANUP",
        [PX_DP_REPORT] = "REPORT",
        [PX_DP_IOF_FLOW] = "IOF_FLOW",
        [PX_DP_ABORT] = "ABORT",
        [PX_DP_JOBCTL] = "JOBCTL",
    };
    prted_t *d = arg;
    if (d->verbose < 2 || tag == PX_DP_HEARTBEAT) {
        return;
    }
    const char *name = tag < sizeof(names) / sizeof(names[0]) ? names[tag] : NULL;
    fprintf(stderr, "[prted %u %s:%d] %s %s (tag %u, %zu bytes)\n", d->id, d->node, (int)getpid(),
            in ? "received" : "sent", name ? name : "message", tag, bytes);
}

/* A child of the tree this daemon started: its agent or ssh session ended. */
static void on_child_end(uint32_t id, int32_t status, const char *why, void *arg)
{
    prted_t *d = arg;
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    dlog(d, "a child daemon's start ended: %s", why ? why : "");
    if (px_dp_child_end_pack(&b, id, status, why) != PMIX_SUCCESS ||
        px_dlink_peer(d->link) == NULL ||
        px_peer_send(px_dlink_peer(d->link), PX_DP_CHILD_END, &b) != 0) {
        /* the controller is gone: the child's start times out there, if it still runs */
    }
    px_bfrops_buf_free(&b);
}

/* The controller's messages the node agent does not take. */
static pmix_status_t on_other(const px_dp_ctl_msg_t *m, uint32_t seq, void *arg)
{
    prted_t *d = arg;
    switch (m->tag) {
    case PX_DP_TOPO_ASK:
        send_topology(d, seq);
        return PMIX_SUCCESS;
    case PX_DP_HEARTBEAT:
        /* the controller's ping: it is alive, and so are we (the echo) */
        px_hb_heard(d->hb, 0);
        if (px_dlink_peer(d->link) != NULL &&
            px_peer_send(px_dlink_peer(d->link), PX_DP_HEARTBEAT, NULL) != 0) {
            on_failed(errno, PX_DP_HEARTBEAT, PMIX_ERR_LOST_CONNECTION, d);
        }
        return PMIX_SUCCESS;
    case PX_DP_SPAWN:
        if (d->spawn == NULL) {
            char prog[HOST_NAME_MAX + 32];
            snprintf(prog, sizeof(prog), "prted %u (%s)", d->id, d->node);
            d->spawn = px_dspawn_create(d->base, prog, d->secret, on_child_end, d);
        }
        if (d->spawn == NULL) {
            return PMIX_ERR_NOMEM;
        }
        dlog(d, "%s", "starting its children of the tree");
        px_dspawn_start(d->spawn, &m->spawn);
        return PMIX_SUCCESS;
    case PX_DP_EXIT:
        dlog(d, "%s", "told to exit");
        stop(d, m->reason == PX_DP_EXIT_NORMAL ? 0 : 1);
        return PMIX_SUCCESS;
    case PX_DP_ADDR: {
        /* where our children in the routing tree are to connect */
        pmix_data_buffer_t b;
        px_bfrops_buf_init(&b);
        pmix_status_t rc = d->route != NULL ? px_dp_addr_pack(&b, px_droute_addr(d->route))
                                            : PMIX_ERR_NOT_SUPPORTED;
        if (rc == PMIX_SUCCESS &&
            (px_dlink_peer(d->link) == NULL ||
             px_peer_send_reply(px_dlink_peer(d->link), seq, PX_DP_ADDR, &b) != 0)) {
            rc = PMIX_ERR_UNREACH;
        }
        px_bfrops_buf_free(&b);
        return rc;
    }
    case PX_DP_TREE:
        return d->route != NULL ? px_droute_tree(d->route, &m->tree) : PMIX_ERR_NOT_SUPPORTED;
    case PX_DP_FENCE_REL:
        px_droute_fence_rel(d->route, m); /* to the children that took part first */
        return px_dsrv_ctl(d->srv, m, seq);
    default:
        return px_dsrv_ctl(d->srv, m, seq);
    }
}

/* ---- the routing tree (droute.c) ---- */

static pmix_status_t route_deliver(uint32_t tag, pmix_data_buffer_t *payload, void *arg)
{
    prted_t *d = arg;
    return px_dlink_deliver(d->link, tag, payload);
}

static bool route_where(const pmix_proc_t *procs, size_t nprocs, bool *mark, size_t n, void *arg)
{
    prted_t *d = arg;
    return px_nagent_where(px_dlink_agent(d->link), procs, nprocs, mark, n);
}

/* The parent daemon is gone: as if the controller were (our subtree is lost with it;
 * the controller reports each daemon it loses). */
static void route_lost(const char *why, void *arg)
{
    prted_t *d = arg;
    dlog(d, "leaving the routing tree: %s", why);
    stop(d, 1);
}

typedef struct relay {
    struct relay *next;
    uint32_t tag;
    pmix_byte_object_t bo; /* owned copy */
} relay_t;

static void relay_later(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    prted_t *d = arg;
    while (d->relays != NULL) {
        relay_t *x = d->relays;
        d->relays = x->next;
        px_droute_xcast(d->route, x->tag, &x->bo);
        free(x->bo.bytes);
        free(x);
    }
    d->relays_tail = &d->relays;
}

static void route_xcast(uint32_t tag, const pmix_byte_object_t *payload, void *arg)
{
    prted_t *d = arg;
    relay_t *x = d->relay_delay_ms > 0 ? calloc(1, sizeof(*x)) : NULL;
    if (x != NULL && (payload->size == 0 || (x->bo.bytes = malloc(payload->size)) != NULL)) {
        x->tag = tag;
        if (payload->size > 0) {
            memcpy(x->bo.bytes, payload->bytes, payload->size);
        }
        x->bo.size = payload->size;
        *d->relays_tail = x;
        d->relays_tail = &x->next;
        struct timeval tv = {d->relay_delay_ms / 1000, (d->relay_delay_ms % 1000) * 1000};
        if (!evtimer_pending(d->relay_ev, NULL)) {
            evtimer_add(d->relay_ev, &tv);
        }
        return;
    }
    free(x);
    px_droute_xcast(d->route, tag, payload);
}

static bool route_indirect(void *arg)
{
    prted_t *d = arg;
    return px_droute_indirect(d->route);
}

static void on_failed(int err, uint32_t tag, pmix_status_t rc, void *arg)
{
    prted_t *d = arg;
    if (rc == PMIX_ERR_LOST_CONNECTION) {
        dlog(d, "lost the controller (%s)", err ? strerror(err) : "closed");
    } else {
        char what[32];
        snprintf(what, sizeof(what), "%u", tag);
        px_show_help("help-prted.txt", "daemon-bad-msg", d->id, d->node, what,
                     PMIx_Error_string(rc));
    }
    stop(d, 1);
}

/* No ping from the controller for the heartbeat timeout: its node is frozen or cut off
 * from this one. The DVM is over for this daemon: its processes are killed, it exits. */
static void on_silent(unsigned id, double silent_ms, void *arg)
{
    (void)id;
    prted_t *d = arg;
    px_help_set_sink(NULL, NULL); /* not to the silent controller: our own stderr */
    px_show_help("help-prted.txt", "controller-silent", d->id, d->node, d->ctl, silent_ms / 1e3,
                 d->hbo.timeout_ms / 1e3);
    stop(d, 1);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    (void)what;
    prted_t *d = arg;
    dlog(d, "signal %s", strsignal((int)sig));
    px_show_help("help-prted.txt", "daemon-signal", d->id, d->node, strsignal((int)sig));
    stop(d, 1);
}

/* ---- our messages on the controller's terminal (REPORT) ---- */

/* Loop thread. 0 when sent (queued on the connection), -1 when there is no controller to
 * send it to or it does not fit a REPORT (then it goes to our stderr). */
static int send_report(prted_t *d, const char *file, const char *topic, const char *text)
{
    px_peer_t *p = d->link != NULL ? px_dlink_peer(d->link) : NULL;
    if (p == NULL || strlen(file) > PX_DP_NAME_MAX || strlen(topic) > PX_DP_NAME_MAX ||
        strlen(text) > PX_DP_REPORT_MAX) {
        return -1;
    }
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    int rc = px_dp_report_pack(&b, file, topic, text) == PMIX_SUCCESS &&
                     px_peer_send(p, PX_DP_REPORT, &b) == 0
                 ? 0
                 : -1;
    px_bfrops_buf_free(&b);
    return rc;
}

typedef struct {
    prted_t *d;
    char *file, *topic, *text; /* owned */
} report_t;

static void report_on_loop(void *arg)
{
    report_t *r = arg;
    if (send_report(r->d, r->file, r->topic, r->text) != 0) {
        px_help_fput(stderr, r->text);
    }
    free(r->file);
    free(r->topic);
    free(r->text);
    free(r);
}

/* px_show_help's sink: the message to the controller, from the loop thread. */
static int report_sink(const char *file, const char *topic, const char *text, void *arg)
{
    prted_t *d = arg;
    if (pthread_equal(pthread_self(), d->loop_tid)) {
        return send_report(d, file, topic, text);
    }
    report_t *r = calloc(1, sizeof(*r));
    if (r == NULL || (r->file = strdup(file)) == NULL || (r->topic = strdup(topic)) == NULL ||
        (r->text = strdup(text)) == NULL || px_progress_shift(d->prog, report_on_loop, r) != 0) {
        if (r != NULL) {
            free(r->file);
            free(r->topic);
            free(r->text);
        }
        free(r);
        return -1;
    }
    return 0;
}

/* Up to PX_TCP_SECRET_HEX hex digits and a newline (or EOF) from fd. */
static int read_secret(int fd, char out[PX_TCP_SECRET_HEX + 1])
{
    size_t have = 0;
    while (have < PX_TCP_SECRET_HEX) {
        ssize_t n = read(fd, out + have, PX_TCP_SECRET_HEX - have);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        have += (size_t)n;
    }
    out[have] = '\0';
    if (have != PX_TCP_SECRET_HEX || strspn(out, "0123456789abcdef") != have) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

static int parse_uint(const char *s, unsigned long max, unsigned long *v)
{
    char *end = NULL;
    errno = 0;
    unsigned long x = strtoul(s, &end, 10);
    if (s[0] == '\0' || s[0] == '-' || *end != '\0' || errno != 0 || x > max) {
        return -1;
    }
    *v = x;
    return 0;
}

typedef struct {
    char addr[64];
    unsigned long port, id, secret_fd;
    const char *dvm; /* --dvm: the DVM's namespace (default: "prted-<node>") */
    const char *hb;  /* --heartbeat <interval ms>:<timeout ms> (NULL: none) */
    int verbose;
} args_t;

/* 0 run, 1 exit 0 (help/version printed), -1 error (message printed). */
static int parse_args(int argc, char **argv, args_t *a)
{
    bool have_ctl = false, have_id = false;
    a->secret_fd = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
            px_help_fshow(stdout, "help-prted.txt", "usage", "prted");
            return 1;
        }
        if (strcmp(o, "--version") == 0 || strcmp(o, "-V") == 0) {
            printf("prted %s (protocol version %d)\n", PMIX_RUNTIME_VERSION, PX_DP_VERSION);
            return 1;
        }
        if (strcmp(o, "-v") == 0 || strcmp(o, "--verbose") == 0) {
            a->verbose++;
            continue;
        }
        if (strcmp(o, "--debug") == 0) {
            a->verbose += 2; /* -v's log and every message (on_trace) */
            continue;
        }
        bool ok = v != NULL;
        if (ok && strcmp(o, "--controller") == 0) {
            const char *colon = strrchr(v, ':');
            ok = colon != NULL && (size_t)(colon - v) < sizeof(a->addr) && colon != v &&
                 parse_uint(colon + 1, 65535, &a->port) == 0 && a->port > 0;
            if (ok) {
                memcpy(a->addr, v, (size_t)(colon - v));
                a->addr[colon - v] = '\0';
                have_ctl = true;
            }
        } else if (ok && strcmp(o, "--id") == 0 && strncmp(v, "slurm:", 6) == 0) {
            /* started by srun (one command line for every daemon): ours is the base plus
             * this node's index in the step */
            const char *nid = getenv("SLURM_NODEID");
            unsigned long base = 0, idx = 0;
            ok = parse_uint(v + 6, UINT32_MAX - 1, &base) == 0 && nid != NULL &&
                 parse_uint(nid, UINT32_MAX - 1, &idx) == 0 && base + idx < UINT32_MAX;
            a->id = base + idx;
            have_id = ok;
        } else if (ok && strcmp(o, "--id") == 0) {
            ok = parse_uint(v, UINT32_MAX - 1, &a->id) == 0;
            have_id = ok;
        } else if (ok && strcmp(o, "--secret-fd") == 0) {
            ok = parse_uint(v, INT_MAX, &a->secret_fd) == 0;
        } else if (ok && strcmp(o, "--heartbeat") == 0) {
            px_hb_opts_t t;
            ok = px_hb_parse(v, &t) == 0;
            a->hb = v;
        } else if (ok && strcmp(o, "--dvm") == 0) {
            ok = v[0] != '\0' && strlen(v) <= PMIX_MAX_NSLEN;
            a->dvm = v;
        } else {
            px_show_help("help-prted.txt", "bad-arg", "prted", o);
            return -1;
        }
        if (!ok) {
            px_show_help("help-prted.txt", "bad-arg", "prted", o);
            return -1;
        }
        i++;
    }
    if (!have_ctl || !have_id) {
        px_show_help("help-prted.txt", "bad-arg", "prted",
                     have_ctl ? "--id (missing)" : "--controller (missing)");
        return -1;
    }
    return 0;
}

static int connect_back(prted_t *d, const args_t *a, const char *secret)
{
    char shortname[HOST_NAME_MAX + 1];
    snprintf(shortname, sizeof(shortname), "%s", d->node);
    shortname[strcspn(shortname, ".")] = '\0';
    char *aliases[1] = {shortname};
    /* developer-only (tests of the version check): the release this daemon reports */
    const char *rel = getenv("PX_PRTED_TEST_VERSION");
    px_dp_hello_t h = {.version = PX_DP_VERSION,
                       .id = d->id,
                       .release =
                           (char *)(rel != NULL && *rel != '\0' ? rel : PMIX_RUNTIME_VERSION),
                       .node = d->node,
                       .aliases = aliases,
                       .naliases = strcmp(shortname, d->node) != 0 ? 1 : 0,
                       .topo_sig = d->sig};
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    pmix_status_t st = PMIX_SUCCESS;
    int fd = -1;
    if (px_dp_hello_pack(&b, &h) != PMIX_SUCCESS) {
        errno = ENOMEM;
    } else {
        fd = px_tcp_connect(a->addr, (uint16_t)a->port, secret, &b, CONNECT_TIMEOUT_MS, &st);
    }
    px_bfrops_buf_free(&b);
    if (fd < 0 && st == PMIX_ERR_NOT_SUPPORTED) {
        /* the controller refused our version (and says so on its side too) */
        px_show_help("help-prted.txt", "daemon-version", d->id, d->node, h.release, PX_DP_VERSION,
                     d->ctl);
    } else if (fd < 0) {
        char where[96];
        snprintf(where, sizeof(where), "%s:%lu", a->addr, a->port);
        px_show_help("help-prted.txt", "daemon-connect", d->id, d->node, where,
                     errno == ECONNREFUSED && st != PMIX_SUCCESS && st != PMIX_ERR_UNREACH
                         ? PMIx_Error_string(st)
                         : strerror(errno));
    }
    return fd;
}

int main(int argc, char **argv)
{
    args_t a;
    memset(&a, 0, sizeof(a));
    int r = parse_args(argc, argv, &a);
    if (r != 0) {
        return r > 0 ? 0 : 1;
    }
    prted_t d;
    memset(&d, 0, sizeof(d));
    d.id = (unsigned)a.id;
    d.verbose = a.verbose;
    d.status = 1;
    snprintf(d.ctl, sizeof(d.ctl), "%s:%lu", a.addr, a.port);
    if (a.hb != NULL) {
        px_hb_parse(a.hb, &d.hbo);
        d.hbo.silent = on_silent;
        d.hbo.arg = &d;
    }
    /* developer-only (tests on one machine): the node name this daemon reports */
    const char *fake = getenv("PX_PRTED_TEST_NODENAME");
    if (fake != NULL && *fake != '\0') {
        snprintf(d.node, sizeof(d.node), "%s", fake);
    } else if (gethostname(d.node, sizeof(d.node)) != 0) {
        snprintf(d.node, sizeof(d.node), "localhost");
    }
    d.node[sizeof(d.node) - 1] = '\0';

    char secret[PX_TCP_SECRET_HEX + 1];
    if (read_secret((int)a.secret_fd, secret) != 0) {
        px_show_help("help-prted.txt", "daemon-secret", d.id, d.node, (int)a.secret_fd);
        return 1;
    }
    /* the secret's fd is of no further use; stdin becomes /dev/null */
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) {
        dup2(devnull, (int)a.secret_fd);
        if (devnull != (int)a.secret_fd) {
            close(devnull);
        }
    }
    if (px_dtopo_load(&d.topo) != 0) {
        px_show_help("help-prted.txt", "daemon-topology", d.id, d.node, strerror(errno));
        return 1;
    }
    px_dtopo_signature(d.topo, d.sig);

    signal(SIGPIPE, SIG_IGN);
    evthread_use_pthreads();
    d.base = event_base_new();
    int fd = d.base != NULL ? connect_back(&d, &a, secret) : -1;
    memcpy(d.secret, secret, sizeof(d.secret)); /* for the children it may start (SPAWN) */
    struct event *sigs[3] = {NULL, NULL, NULL};
    if (fd >= 0) {
        d.prog = px_progress_create(d.base);
        char ns[PMIX_MAX_NSLEN + 1];
        snprintf(ns, sizeof(ns), "prted-%s", d.node);
        px_dsrv_opts_t so = {.prog = d.prog,
                             .nspace = a.dvm != NULL ? a.dvm : ns,
                             .id = d.id,
                             .node = d.node,
                             .topo = d.topo};
        pmix_status_t rc = PMIX_ERR_NOMEM;
        d.srv = d.prog != NULL ? px_dsrv_start(&so, &rc) : NULL;
        if (d.srv == NULL) {
            px_show_help("help-prted.txt", "daemon-server", d.id, d.node, PMIx_Error_string(rc));
            close(fd);
        } else {
            px_nagent_opts_t ao = {.base = d.base, .topo = d.topo, .self = d.id, .node = d.node};
            px_dlink_cbs_t cbs = {.other = on_other,
                                  .failed = on_failed,
                                  .trace = on_trace,
                                  .xcast = route_xcast,
                                  .indirect = route_indirect,
                                  .arg = &d};
            d.link = px_dlink_create(d.prog, fd, &ao, &cbs);
            if (d.link == NULL) {
                px_show_help("help-prted.txt", "daemon-connect", d.id, d.node, a.addr,
                             strerror(errno));
            }
            px_dsrv_attach(d.srv, d.link);
        }
    }
    if (d.link != NULL) {
        px_droute_opts_t ro = {.prog = d.prog,
                               .self = d.id,
                               .secret = secret,
                               .link = d.link,
                               .deliver = route_deliver,
                               .where = route_where,
                               .lost = route_lost,
                               .arg = &d};
        const char *delay = getenv("PX_PRTED_TEST_RELAY_DELAY_MS");
        d.relays_tail = &d.relays;
        d.relay_ev = evtimer_new(d.base, relay_later, &d);
        d.relay_delay_ms = delay != NULL && d.relay_ev != NULL ? atoi(delay) : 0;
        d.route = px_droute_create(&ro);
        if (d.route == NULL) {
            px_show_help("help-prted.txt", "daemon-tree", d.id, d.node, strerror(errno));
            px_dlink_destroy(d.link);
            d.link = NULL;
        } else {
            px_dsrv_route(d.srv, d.route);
        }
    }
    memset(secret, 0, sizeof(secret));
    bool run = d.link != NULL;
    if (run && a.hb != NULL &&
        ((d.hb = px_hb_create(d.base, &d.hbo)) == NULL || px_hb_heard(d.hb, 0) != 0)) {
        px_show_help("help-prted.txt", "daemon-server", d.id, d.node, strerror(errno));
        run = false;
    }
    if (run) {
        dlog(&d, "connected, topology %s", d.sig);
        d.loop_tid = pthread_self();
        px_help_set_sink(report_sink, &d);
        int signos[3] = {SIGTERM, SIGINT, SIGHUP};
        for (int i = 0; i < 3; i++) {
            sigs[i] = evsignal_new(d.base, signos[i], on_signal, &d);
            if (sigs[i] != NULL) {
                event_add(sigs[i], NULL);
            }
        }
        event_base_dispatch(d.base);
    }
    for (int i = 0; i < 3; i++) {
        if (sigs[i] != NULL) {
            event_free(sigs[i]);
        }
    }
    px_hb_destroy(d.hb);
    px_dspawn_destroy(d.spawn);
    explicit_bzero(d.secret, sizeof(d.secret));
    /* What we told the controller (a last message before stopping) reaches it; our
     * processes are killed, their directories and our server's socket removed while the
     * connection is still open (a controller ends what is left of a daemon whose
     * connection closed); then the connection closes. */
    px_help_set_sink(NULL, NULL);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    px_dlink_stop_agent(d.link, (double)now.tv_sec * 1e3 + now.tv_nsec / 1e6 + 2000.0);
    if (d.srv != NULL) {
        px_dsrv_attach(d.srv, NULL);
        px_dsrv_route(d.srv, NULL);
    }
    px_dsrv_stop(d.srv);
    px_droute_destroy(d.route); /* our children see us go */
    while (d.relays != NULL) {
        relay_t *x = d.relays;
        d.relays = x->next;
        free(x->bo.bytes);
        free(x);
    }
    if (d.relay_ev != NULL) {
        event_free(d.relay_ev);
    }
    px_dlink_destroy(d.link); /* (what px_dlink_stop_agent did not do is done here) */
    px_progress_destroy(d.prog);
    if (d.base != NULL) {
        event_base_free(d.base);
    }
    hwloc_topology_destroy(d.topo);
    return d.status;
}
