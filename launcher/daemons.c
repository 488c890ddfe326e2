/* launcher: the daemons of the DVM, controller side (px_daemons.h, docs/PROTOCOL.md):
 * start each prted through the remote-shell agent, accept its hello on a TCP listener
 * with the DVM's secret, fetch a topology only for a signature not seen before, send
 * the exit at the DVM's end. Main thread, on the controller's libevent loop.
 *
 * Daemon 0 is an entry of the table like the others (this node's name and topology);
 * its connection is a socket pair whose other end the node agent of this very process
 * reads (px_dlink), so every daemon gets the same messages the same way.
 *
 * Partial (issue 14): messages go from the controller to each daemon directly (a star),
 * not yet down the radix tree (XCAST).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bfrops/px_bfrops.h"
#include "daemon/px_agent.h"
#include "daemon/px_dproto.h"
#include "daemon/px_dtopo.h"
#include "daemon/px_hb.h"
#include "help/px_help.h"
#include "launcher/px_daemons.h"
#include "launcher/px_ssh.h"
#include "px_launcher_paths.h"
#include "net/px_peer.h"
#include "net/px_progress.h"
#include "net/px_tcp.h"

/* How long start-up waits for every daemon's hello and topology; how long the exit
 * waits for the daemons to go before killing them. */
#define START_TIMEOUT_MS 60000
#define STOP_TIMEOUT_MS  10000

/* A topology, stored once per signature. */
typedef struct px_topo {
    struct px_topo *next;
    char *sig;             /* owned */
    hwloc_topology_t topo; /* owned (borrowed for daemon 0's); NULL while asked for */
    bool borrowed;
    unsigned nxml; /* times its XML came over the wire (0 or 1) */
} px_topo_t;

/* One daemon's life: each move goes through set_state. */
typedef enum {
    DMN_STARTING, /* agent forked, no hello yet */
    DMN_TOPO,     /* hello accepted, its topology asked for (or asked of another) */
    DMN_UP,       /* hello and topology known */
    DMN_EXITING,  /* told to exit, waiting for EOF and the agent */
    DMN_GONE,     /* connection closed and agent reaped */
    DMN_FAILED,   /* did not start, or lost: the message was shown */
} px_dmn_state_t;

static const char *const state_names[] = {"starting", "topology", "up",
                                          "exiting",  "gone",     "failed"};

typedef struct {
    px_daemons_t *owner; /* borrowed */
    unsigned id;
    char *host;      /* owned: as given on the command line */
    char *node;      /* owned: as the daemon reported it */
    pid_t agent;     /* 0 for daemon 0 */
    px_ssh_t *ssh;   /* owned: the built-in ssh client's session, when there is no agent */
    bool reaped;     /* the agent, or the ssh session, has ended */
    px_peer_t *peer; /* owned */
    bool closed;     /* the connection is gone (or never was) */
    px_topo_t *topo; /* borrowed from the topology list */
    px_dmn_state_t state;
    bool joining;    /* added after start-up: o.joined is told once it is up or failed */
    bool via_parent; /* started by its parent in the tree (tree spawn), not by us */
    unsigned parent; /* its parent's id when via_parent */
    bool asked;      /* its parent was told to start it */
    bool srun;       /* started by an srun shared with other daemons (its agent) */
} px_dmn_t;

struct px_daemons {
    px_daemons_opts_t o;
    px_progress_t *prog; /* wraps o.base for the peers and the listener */
    px_tcp_listener_t *listener;
    char secret[PX_TCP_SECRET_HEX + 1];
    px_dmn_t **d; /* owned (each and the array), by id; d[0] is this node */
    size_t n, cap;
    char *prted; /* owned: the path of prted (prted_path), once a daemon was started */
    px_topo_t *topos;
    px_hb_t *hb; /* owned: the daemons' heartbeats (NULL: off, or no other host) */
    struct event *sigchld, *timer;
    bool starting; /* the start-up is under way: o.started has not been called */
    bool failed;   /* a daemon failed during start-up */
    bool stopping; /* px_daemons_stop ran */
    void (*done)(void *arg);
    void *done_arg;
};

static void dlog(const px_daemons_t *ds, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void dlog(const px_daemons_t *ds, const char *fmt, ...)
{
    if (ds->o.verbose < 1) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[%s:%d] ", ds->o.prog, (int)getpid());
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void tree_send(void *arg);

static void set_state(px_dmn_t *dm, px_dmn_state_t to)
{
    dlog(dm->owner, "daemon %u (%s): %s -> %s", dm->id, dm->host, state_names[dm->state],
         state_names[to]);
    dm->state = to;
    /* an up daemon's silence is watched (daemon 0 is this process) */
    if (dm->id == 0) {
        return;
    }
    if (to == DMN_UP) {
        px_hb_heard(dm->owner->hb, dm->id);
        /* its children of the tree, if it has some: from the loop, after the handshake's
         * answer (a daemon may be up inside on_accept) */
        if (dm->owner->o.tree_radix > 0 && px_progress_shift(dm->owner->prog, tree_send, dm) != 0) {
            dlog(dm->owner, "daemon %u: cannot schedule its children's start", dm->id);
        }
    } else {
        px_hb_forget(dm->owner->hb, dm->id);
    }
}

bool px_daemons_is_here(const char *name, const char *node)
{
    size_t short_len = strcspn(node, ".");
    return strcmp(name, "localhost") == 0 || strcmp(name, "127.0.0.1") == 0 ||
           strcmp(name, node) == 0 ||
           (strlen(name) == short_len && strncmp(name, node, short_len) == 0);
}

/* ---- topologies ---- */

static px_topo_t *topo_find(px_daemons_t *ds, const char *sig)
{
    for (px_topo_t *t = ds->topos; t != NULL; t = t->next) {
        if (strcmp(t->sig, sig) == 0) {
            return t;
        }
    }
    return NULL;
}

static px_topo_t *topo_add(px_daemons_t *ds, const char *sig)
{
    px_topo_t *t = calloc(1, sizeof(*t));
    if (t == NULL || (t->sig = strdup(sig)) == NULL) {
        free(t);
        return NULL;
    }
    t->next = ds->topos;
    ds->topos = t;
    return t;
}

/* ---- the start-up wait ---- */

static bool all_up(const px_daemons_t *ds)
{
    for (size_t i = 0; i < ds->n; i++) {
        if (ds->d[i]->state != DMN_UP) {
            return false;
        }
    }
    return true;
}

static void started(px_daemons_t *ds)
{
    ds->starting = false;
    if (ds->timer != NULL) {
        event_del(ds->timer);
    }
    bool ok = !ds->failed && all_up(ds);
    if (ok) {
        size_t ntopo = 0, nxml = 0;
        for (px_topo_t *t = ds->topos; t != NULL; t = t->next) {
            ntopo++;
            nxml += t->nxml;
        }
        dlog(ds, "daemons: %zu up, %zu distinct topologies, %zu received as XML", ds->n, ntopo,
             nxml);
        for (size_t i = 0; i < ds->n; i++) {
            dlog(ds, "daemon %u: host %s node %s topology %s", ds->d[i]->id, ds->d[i]->host,
                 ds->d[i]->node, ds->d[i]->topo->sig);
        }
    }
    if (ds->o.started != NULL) {
        ds->o.started(ok, ds->o.arg);
    }
}

/* Every change of a daemon's state may end the start-up or the stop. */
static void check_progress(px_daemons_t *ds)
{
    if (ds->starting && !ds->stopping && (ds->failed || all_up(ds))) {
        started(ds);
    }
    for (size_t i = 1; i < ds->n && !ds->stopping; i++) {
        px_dmn_t *dm = ds->d[i];
        if (dm->joining && (dm->state == DMN_UP || dm->state == DMN_FAILED)) {
            dm->joining = false;
            if (ds->o.joined != NULL) {
                ds->o.joined(dm->id, dm->state == DMN_UP, ds->o.arg);
            }
        }
    }
    if (ds->stopping && ds->done != NULL && px_daemons_stopped(ds)) {
        void (*done)(void *) = ds->done;
        ds->done = NULL;
        if (ds->timer != NULL) {
            event_del(ds->timer);
        }
        done(ds->done_arg);
    }
}

/* end the daemon's agent (its process group) or ssh session, whichever it has */
static void agent_kill(px_dmn_t *dm)
{
    if (dm->agent > 0 && !dm->reaped) {
        kill(-dm->agent, SIGKILL);
    }
    if (dm->ssh != NULL) {
        px_ssh_destroy(dm->ssh);
        dm->ssh = NULL;
        dm->reaped = true;
    }
}

static void dmn_fail(px_dmn_t *dm, const char *why)
{
    px_daemons_t *ds = dm->owner;
    if (dm->state == DMN_FAILED || dm->state == DMN_GONE) {
        return;
    }
    if (dm->state == DMN_EXITING) {
        return; /* going anyway: not a failure */
    }
    bool was_up = dm->state == DMN_UP;
    if (was_up) {
        px_show_help("help-prte.txt", "daemon-lost", ds->o.prog, dm->id, dm->host, why);
    } else if (dm->joining) {
        px_show_help("help-prte.txt", "daemon-add", ds->o.prog, dm->id, dm->host, why);
    } else {
        px_show_help("help-prte.txt", "daemon-start", ds->o.prog, dm->id, dm->host, why);
        ds->failed = true;
    }
    set_state(dm, DMN_FAILED);
    px_peer_destroy(dm->peer);
    dm->peer = NULL;
    dm->closed = true;
    agent_kill(dm);
    /* its children of the tree not up yet have lost the one starting them */
    for (size_t i = 1; i < ds->n; i++) {
        px_dmn_t *c = ds->d[i];
        if (c->via_parent && c->parent == dm->id && c->state == DMN_STARTING) {
            char text[PX_DP_NAME_MAX + 96];
            snprintf(text, sizeof(text), "daemon %u (host %s), which was to start it, failed",
                     dm->id, dm->host);
            dmn_fail(c, text);
        }
    }
    if (was_up && ds->o.lost != NULL) {
        ds->o.lost(dm->id, ds->o.arg);
    }
}

/* ---- the agents ---- */

/* the daemon's agent (or ssh session) ended, why says how */
static void agent_ended(px_dmn_t *dm, const char *why)
{
    dm->reaped = true;
    if (dm->state == DMN_EXITING) {
        if (dm->closed) {
            set_state(dm, DMN_GONE);
        }
    } else if (dm->state != DMN_FAILED && dm->state != DMN_GONE &&
               (dm->state != DMN_UP || dm->closed)) {
        dmn_fail(dm, why);
    }
    /* an agent (ssh) may end while its daemon's connection stays: nothing to do */
}

static void on_sigchld(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    px_daemons_t *ds = arg;
    for (size_t i = 1; i < ds->n; i++) {
        px_dmn_t *dm = ds->d[i];
        int st = 0;
        if (dm->agent <= 0 || dm->reaped || waitpid(dm->agent, &st, WNOHANG) != dm->agent) {
            continue;
        }
        dlog(ds, "daemon %u (%s): agent %d ended (status 0x%x)", dm->id, dm->host, (int)dm->agent,
             st);
        char why[96];
        const char *what = dm->srun ? "srun" : "the agent";
        if (WIFEXITED(st)) {
            snprintf(why, sizeof(why), "%s exited with status %d", what, WEXITSTATUS(st));
        } else {
            snprintf(why, sizeof(why), "%s was killed by signal %d", what,
                     WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        }
        /* one srun is the agent of several daemons: it ended for each of them */
        pid_t pid = dm->agent;
        for (size_t k = i; k < ds->n; k++) {
            if (ds->d[k]->agent == pid && !ds->d[k]->reaped) {
                agent_ended(ds->d[k], why);
            }
        }
    }
    check_progress(ds);
}

/* the built-in ssh client's session ended: the remote command's status, or -1 (its
 * message was shown) */
static void on_ssh_end(void *arg, int status, const char *why)
{
    px_dmn_t *dm = arg;
    char buf[96];
    dlog(dm->owner, "daemon %u (%s): ssh session ended (status %d)", dm->id, dm->host, status);
    if (status == 127 || status == 126) {
        px_show_help("help-prte-ssh.txt", status == 127 ? "ssh-prted-missing" : "ssh-prted-noexec",
                     dm->owner->o.prog, dm->host, px_ssh_command(dm->ssh));
    }
    if (why == NULL) {
        snprintf(buf, sizeof(buf), "the remote command exited with status %d", status);
        why = buf;
    }
    agent_ended(dm, why);
    check_progress(dm->owner);
}

/* prted beside our own executable (installed), else in the build tree's daemon/. */
static char *prted_path(void)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) {
        return strdup("prted");
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    *slash = '\0';
    const char *tries[] = {"prted", "../daemon/prted"};
    for (size_t i = 0; i < 2; i++) {
        char *p = NULL;
        if (asprintf(&p, "%s/%s", self, tries[i]) >= 0) {
            if (access(p, X_OK) == 0) {
                return p;
            }
            free(p);
        }
    }
    return strdup("prted"); /* from PATH on the remote side */
}

/* prted's options after its path, blank-separated words without quotes (the namespace
 * and address have no blanks): --controller <addr:port> --id <n> --dvm <nspace>
 * [--heartbeat <interval ms>:<timeout ms>] [--debug | -v]. malloc'd, NULL on ENOMEM. */
static char *prted_args(const px_daemons_t *ds, const px_dmn_t *dm)
{
    char hb[48] = "", id[32];
    /* under srun one command line serves every daemon: each adds its SLURM_NODEID */
    snprintf(id, sizeof(id), dm->srun ? "slurm:%u" : "%u", dm->id);
    if (ds->hb != NULL) {
        snprintf(hb, sizeof(hb), " --heartbeat %u:%u", ds->o.hb_interval_ms, ds->o.hb_timeout_ms);
    }
    char *a = NULL;
    if (asprintf(&a, "--controller %s:%u --id %s --dvm %s%s%s", px_tcp_listener_addr(ds->listener),
                 (unsigned)px_tcp_listener_port(ds->listener), id, ds->o.nspace, hb,
                 ds->o.debug         ? " --debug"
                 : ds->o.verbose > 0 ? " -v"
                                     : "") < 0) {
        return NULL;
    }
    return a;
}

/* The prted the other hosts run (PRRTE's --prefix rule): "prted" with --noprefix (the
 * remote PATH finds it), <prefix>/bin/prted, else our own prted's path. malloc'd. */
static char *remote_prted(const px_daemons_t *ds)
{
    char *p = NULL;
    if (ds->o.noprefix) {
        return strdup("prted");
    }
    if (ds->o.prefix != NULL) {
        return asprintf(&p, "%s/bin/prted", ds->o.prefix) < 0 ? NULL : p;
    }
    return strdup(ds->prted);
}

/* The command that starts dm's prted on its host: for the built-in ssh client (shell)
 * "'<prted>' <prted_args>", with a prefix after PATH=... LD_LIBRARY_PATH=... (its bin/
 * and library directory first); for an agent the blank-separated words "<prted>
 * <prted_args>". malloc'd; NULL with errno (EINVAL: a quote in a path, which is not
 * quoted for the remote shell). */
static char *child_cmd(const px_daemons_t *ds, const px_dmn_t *dm, bool shell)
{
    const char *pfx = ds->o.noprefix ? NULL : ds->o.prefix;
    char *prted = remote_prted(ds), *args = prted_args(ds, dm), *env = NULL, *cmd = NULL;
    if (prted == NULL || args == NULL) {
        goto out;
    }
    if (shell && (strchr(prted, '\'') != NULL || (pfx != NULL && strchr(pfx, '\'') != NULL))) {
        errno = EINVAL;
        goto out;
    }
    if (shell && pfx != NULL &&
        asprintf(&env, "PATH='%s/bin':\"$PATH\" LD_LIBRARY_PATH='%s/%s':\"$LD_LIBRARY_PATH\" ", pfx,
                 pfx, PX_LIBDIR_REL) < 0) {
        env = NULL;
        goto out;
    }
    if (asprintf(&cmd, shell ? "%s'%s' %s" : "%s%s %s", env ? env : "", prted, args) < 0) {
        cmd = NULL;
    }
out:
    free(prted);
    free(args);
    free(env);
    return cmd;
}

/* <agent words...> <host> <child_cmd words>; the secret goes down a pipe on the agent's
 * stdin (the remote shell passes it on). */
static int start_agent(px_daemons_t *ds, px_dmn_t *dm, const char *agent)
{
    char *cmd = child_cmd(ds, dm, false);
    char line[PX_TCP_SECRET_HEX + 1];
    memcpy(line, ds->secret, PX_TCP_SECRET_HEX);
    line[PX_TCP_SECRET_HEX] = '\n';
    pid_t pid = cmd != NULL ? px_agent_fork(agent, dm->host, cmd, line, sizeof(line)) : -1;
    explicit_bzero(line, sizeof(line));
    free(cmd);
    if (pid < 0) {
        return -1;
    }
    dm->agent = pid;
    return 0;
}

/* No agent: the built-in ssh client runs child_cmd on the host, with the secret on the
 * command's stdin. */
static int start_ssh(px_daemons_t *ds, px_dmn_t *dm)
{
    char *cmd = child_cmd(ds, dm, true);
    char line[PX_TCP_SECRET_HEX + 2];
    if (cmd == NULL) {
        return -1;
    }
    memcpy(line, ds->secret, PX_TCP_SECRET_HEX);
    line[PX_TCP_SECRET_HEX] = '\n';
    line[PX_TCP_SECRET_HEX + 1] = '\0';
    dm->ssh = px_ssh_start(ds->o.base, ds->o.prog, dm->host, cmd, line, on_ssh_end, dm);
    explicit_bzero(line, sizeof(line));
    free(cmd);
    return dm->ssh != NULL ? 0 : -1;
}

/* Inside a Slurm allocation: one srun starts a prted on each of the n daemons' hosts
 * (consecutive ids from dm[0]'s): one task per node, no binding, sharing the
 * allocation's CPUs with other steps, the whole step killed when one task fails, the
 * secret broadcast to every task's stdin; each prted takes dm[0]'s id plus its
 * SLURM_NODEID (the step's nodes in the allocation's order, as the hosts are). The
 * srun is the agent of every one of them. */
static int start_srun(px_daemons_t *ds, px_dmn_t **dm, size_t n)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++) {
        dm[i]->srun = true;
        len += strlen(dm[i]->host) + 1;
    }
    char *list = calloc(1, len), *cmd = child_cmd(ds, dm[0], false), *srun = NULL;
    int rc = -1;
    for (size_t i = 0; list != NULL && i < n; i++) {
        strcat(strcat(list, i ? "," : ""), dm[i]->host);
    }
    if (list != NULL && cmd != NULL &&
        asprintf(&srun,
                 "srun --nodes=%zu --ntasks=%zu --ntasks-per-node=1 --nodelist=%s "
                 "--kill-on-bad-exit=1 --cpu-bind=none --overlap --input=all --quiet",
                 n, n, list) >= 0) {
        char line[PX_TCP_SECRET_HEX + 1];
        memcpy(line, ds->secret, PX_TCP_SECRET_HEX);
        line[PX_TCP_SECRET_HEX] = '\n';
        pid_t pid = px_agent_fork(srun, NULL, cmd, line, sizeof(line));
        explicit_bzero(line, sizeof(line));
        for (size_t i = 0; pid > 0 && i < n; i++) {
            dm[i]->agent = pid;
        }
        if (pid > 0) {
            dlog(ds, "daemons %u..%zu: srun %d on %s", dm[0]->id, dm[0]->id + n - 1, (int)pid,
                 list);
            rc = 0;
        }
    } else {
        srun = NULL;
    }
    free(list);
    free(cmd);
    free(srun);
    return rc;
}

/* ---- tree spawn (docs/PROTOCOL.md "SPAWN / CHILD_END") ---- */

/* dm is up: the children of the tree it starts (still waiting for it) go to it in one
 * SPAWN; if it cannot be told, they fail. */
static void tree_send(void *arg)
{
    px_dmn_t *dm = arg;
    px_daemons_t *ds = dm->owner;
    if (dm->state != DMN_UP) {
        return; /* failed or told to exit meanwhile: its children fail with it */
    }
    px_dp_child_t *ch = calloc(ds->n, sizeof(*ch));
    px_dp_spawn_t sp = {.agent = (char *)ds->o.agent, .children = ch};
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    for (size_t i = 1; ch != NULL && i < ds->n; i++) {
        px_dmn_t *c = ds->d[i];
        if (c->via_parent && c->parent == dm->id && c->state == DMN_STARTING && !c->asked) {
            c->asked = true;
            ch[sp.n] = (px_dp_child_t){
                .id = c->id, .host = c->host, .cmd = child_cmd(ds, c, ds->o.agent == NULL)};
            sp.n += ch[sp.n].cmd != NULL ? 1 : 0;
        }
    }
    if (sp.n > 0) {
        dlog(ds, "daemon %u (%s) starts %zu daemons of the tree", dm->id, dm->host, sp.n);
        bool ok = px_dp_spawn_pack(&b, &sp) == PMIX_SUCCESS && dm->peer != NULL &&
                  px_peer_send(dm->peer, PX_DP_SPAWN, &b) == 0;
        for (size_t k = 0; !ok && k < sp.n; k++) {
            dmn_fail(ds->d[ch[k].id], "its parent in the start tree could not be told to start it");
        }
    }
    for (size_t k = 0; k < sp.n; k++) {
        free(ch[k].cmd);
    }
    free(ch);
    px_bfrops_buf_free(&b);
}

/* A CHILD_END from daemon `from`: its child's agent or ssh session ended. */
static void tree_child_end(px_dmn_t *from, pmix_data_buffer_t *payload)
{
    px_daemons_t *ds = from->owner;
    uint32_t id = 0;
    int32_t status = 0;
    char *why = NULL;
    if (px_dp_child_end_unpack(payload, &id, &status, &why) != PMIX_SUCCESS || id >= ds->n ||
        !ds->d[id]->via_parent || ds->d[id]->parent != from->id) {
        free(why);
        dmn_fail(from, "it sent a malformed CHILD_END, or one of a daemon not its child");
        return;
    }
    px_dmn_t *c = ds->d[id];
    dlog(ds, "daemon %u (%s): its start by daemon %u ended (status %d)", c->id, c->host, from->id,
         (int)status);
    char *cmd = (status == 127 || status == 126) ? child_cmd(ds, c, ds->o.agent == NULL) : NULL;
    if (cmd != NULL) {
        px_show_help("help-prte-ssh.txt", status == 127 ? "ssh-prted-missing" : "ssh-prted-noexec",
                     ds->o.prog, c->host, cmd);
    }
    free(cmd);
    char text[PX_DP_NAME_MAX + 320];
    snprintf(text, sizeof(text), "daemon %u (host %s), which started it, reports: %.256s", from->id,
             from->host, why != NULL ? why : "its start ended");
    free(why);
    agent_ended(c, text);
}

/* ---- the daemons' connections ---- */

static void on_lost(px_peer_t *peer, int err, void *cbdata)
{
    (void)peer;
    px_dmn_t *dm = cbdata;
    dm->closed = true;
    if (dm->state == DMN_EXITING) {
        if (dm->reaped) {
            set_state(dm, DMN_GONE);
        }
    } else {
        dmn_fail(dm, err ? strerror(err) : "the daemon closed its connection");
    }
    px_peer_destroy(dm->peer);
    dm->peer = NULL;
    check_progress(dm->owner);
}

static void on_msg(px_peer_t *peer, uint32_t tag, uint32_t seq, pmix_data_buffer_t *payload,
                   void *cbdata)
{
    (void)peer;
    px_dmn_t *dm = cbdata;
    px_daemons_t *ds = dm->owner;
    if (dm->state == DMN_UP && dm->id > 0) {
        px_hb_heard(ds->hb, dm->id); /* every message is a sign of life */
    }
    if (tag == PX_DP_HEARTBEAT && seq == 0) {
        return; /* the echo of our ping: nothing more to do */
    }
    if (tag == PX_DP_CHILD_END && seq == 0 && dm->state == DMN_UP) {
        tree_child_end(dm, payload);
        check_progress(ds);
        return;
    }
    if (dm->state == DMN_UP || dm->state == DMN_EXITING) {
        if (ds->o.msg != NULL) {
            ds->o.msg(dm->id, tag, seq, payload, ds->o.arg);
        }
        return;
    }
    /* nothing unsolicited comes before a daemon is up (PROTOCOL.md) */
    char why[64];
    snprintf(why, sizeof(why), "it sent message tag %u, which is not expected", tag);
    dmn_fail(dm, why);
    check_progress(dm->owner);
}

static void topo_known(px_daemons_t *ds, px_topo_t *t)
{
    for (size_t i = 1; i < ds->n; i++) {
        if (ds->d[i]->topo == t && ds->d[i]->state == DMN_TOPO) {
            set_state(ds->d[i], DMN_UP);
            dlog(ds, "daemon %u up on node %s (topology %s, %s)", ds->d[i]->id, ds->d[i]->node,
                 t->sig, t->nxml ? "received once" : "already known");
        }
    }
}

static void on_topo(px_peer_t *peer, pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    (void)peer;
    px_dmn_t *dm = cbdata;
    px_daemons_t *ds = dm->owner;
    char *sig = NULL, *xml = NULL;
    hwloc_topology_t topo = NULL;
    const char *why = NULL;
    if (status != PMIX_SUCCESS) {
        why = "the connection was lost while its topology was awaited";
    } else if (px_dp_topo_unpack(reply, &sig, &xml) != PMIX_SUCCESS ||
               px_bfrops_buf_remaining(reply) != 0) {
        why = "its topology message is malformed";
    } else if (strcmp(sig, dm->topo->sig) != 0) {
        why = "its topology does not match the signature of its hello";
    } else if (hwloc_topology_init(&topo) != 0 ||
               hwloc_topology_set_xmlbuffer(topo, xml, (int)strlen(xml) + 1) != 0 ||
               hwloc_topology_load(topo) != 0) {
        why = "hwloc cannot load its topology";
    }
    free(sig);
    free(xml);
    if (why != NULL) {
        if (topo != NULL) {
            hwloc_topology_destroy(topo);
        }
        dmn_fail(dm, why);
        /* others waiting for this signature ask again through the next one (not yet:
         * they fail with it, see PROTOCOL.md) */
        for (size_t i = 1; i < ds->n; i++) {
            if (ds->d[i]->topo == dm->topo && ds->d[i]->state == DMN_TOPO) {
                dmn_fail(ds->d[i], "the daemon asked for its topology failed");
            }
        }
    } else {
        dm->topo->topo = topo;
        dm->topo->nxml++;
        topo_known(ds, dm->topo);
    }
    check_progress(ds);
}

static void ask_topo(void *arg)
{
    px_dmn_t *dm = arg;
    if (dm->state == DMN_TOPO &&
        (dm->peer == NULL ||
         px_peer_send_request(dm->peer, PX_DP_TOPO_ASK, NULL, on_topo, dm) != 0)) {
        dmn_fail(dm, strerror(errno ? errno : ENOTCONN));
        check_progress(dm->owner);
    }
}

/* host (as given) names node (as it reports itself), or its short name */
static bool same_host(const char *host, const char *node)
{
    size_t hl = strcspn(host, "."), nl = strcspn(node, ".");
    return strcmp(host, node) == 0 || (hl == nl && strncmp(host, node, hl) == 0);
}

static pmix_status_t on_accept(px_tcp_listener_t *l, int fd, pmix_data_buffer_t *hello,
                               void *cbdata)
{
    (void)l;
    px_daemons_t *ds = cbdata;
    px_dp_hello_t h;
    pmix_status_t rc = px_dp_hello_unpack(hello, &h);
    if (rc != PMIX_SUCCESS && rc != PMIX_ERR_NOT_SUPPORTED) {
        return PMIX_ERR_BAD_PARAM;
    }
    px_dmn_t *dm = h.id > 0 && h.id < ds->n ? ds->d[h.id] : NULL;
    /* under srun the id is ours plus the step's node index: should Slurm order the step's
     * nodes otherwise than the hosts, the node's name tells which daemon it is */
    if (rc == PMIX_SUCCESS && dm != NULL && dm->srun && !same_host(dm->host, h.node)) {
        for (size_t k = 1; k < ds->n; k++) {
            px_dmn_t *o = ds->d[k];
            if (o->srun && o->state == DMN_STARTING && o->peer == NULL &&
                same_host(o->host, h.node)) {
                dm = o;
                break;
            }
        }
    }
    if (dm == NULL || dm->state != DMN_STARTING || dm->peer != NULL) {
        px_dp_hello_free(&h);
        return PMIX_ERR_BAD_PARAM; /* not a daemon we started, or a second hello */
    }
    /* another protocol or another release: refused, said here with both versions */
    if (rc == PMIX_ERR_NOT_SUPPORTED || strcmp(h.release, PMIX_RUNTIME_VERSION) != 0) {
        char theirs[PX_DP_RELEASE_MAX + 48];
        snprintf(theirs, sizeof(theirs), "%s (protocol %u)", h.release ? h.release : "unknown",
                 (unsigned)h.version);
        px_show_help("help-prte.txt", "daemon-version", ds->o.prog, dm->id, dm->host, theirs,
                     PMIX_RUNTIME_VERSION, PX_DP_VERSION);
        px_dp_hello_free(&h);
        dmn_fail(dm, "its version differs from this one's (see above)");
        check_progress(ds);
        return PMIX_ERR_NOT_SUPPORTED;
    }
    dm->peer = px_peer_create(ds->prog, fd, on_msg, on_lost, dm);
    if (dm->peer == NULL) {
        px_dp_hello_free(&h);
        return PMIX_ERR_NOMEM;
    }
    free(dm->node);
    dm->node = h.node;
    h.node = NULL;
    /* two hosts of the command line that are one node (a name and its address, two
     * names of one machine): one daemon per node */
    for (size_t k = 0; k < ds->n; k++) {
        const px_dmn_t *o = ds->d[k];
        if (o != dm && o->node != NULL && o->state != DMN_FAILED && o->state != DMN_GONE &&
            o->state != DMN_STARTING && strcmp(o->node, dm->node) == 0) {
            char why[PX_DP_NAME_MAX * 3 + 160];
            snprintf(why, sizeof(why),
                     "it runs on node %s, where daemon %u (host %s) runs already: hosts %s and "
                     "%s (in the order given) are the same node; name each node once",
                     dm->node, o->id, o->host, o->id < dm->id ? o->host : dm->host,
                     o->id < dm->id ? dm->host : o->host);
            px_dp_hello_free(&h);
            dmn_fail(dm, why);
            check_progress(ds);
            return PMIX_SUCCESS; /* the fd is the peer's now */
        }
    }
    px_topo_t *t = topo_find(ds, h.topo_sig);
    bool ask = false;
    if (t == NULL) {
        t = topo_add(ds, h.topo_sig);
        ask = true;
    }
    px_dp_hello_free(&h);
    if (t == NULL) {
        dmn_fail(dm, strerror(ENOMEM));
        check_progress(ds);
        return PMIX_SUCCESS; /* the fd is the peer's now */
    }
    dm->topo = t;
    set_state(dm, DMN_TOPO);
    dlog(ds, "daemon %u hello: node %s, topology %s%s", dm->id, dm->node, t->sig,
         ask ? " (new: asked for)" : "");
    if (ask) {
        /* after the handshake's answer, which is written when we return */
        if (px_progress_shift(ds->prog, ask_topo, dm) != 0) {
            dmn_fail(dm, strerror(errno));
        }
    } else if (t->topo != NULL) {
        topo_known(ds, t);
    } /* else: asked of another daemon; topo_known moves this one too */
    check_progress(ds);
    return PMIX_SUCCESS;
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    px_daemons_t *ds = arg;
    for (size_t i = 1; i < ds->n; i++) {
        px_dmn_t *dm = ds->d[i];
        if (!ds->stopping && dm->state != DMN_UP) {
            dmn_fail(dm, "it did not connect back in time (is prted installed on that node, "
                         "and can it reach this one over TCP?)");
        } else if (ds->stopping && dm->state == DMN_EXITING) {
            dlog(ds, "daemon %u (%s) did not exit in time: killed", dm->id, dm->host);
            agent_kill(dm);
            px_peer_destroy(dm->peer);
            dm->peer = NULL;
            dm->closed = true;
        }
    }
    check_progress(ds);
}

/* ---- heartbeats (docs/PROTOCOL.md "HEARTBEAT") ---- */

/* every interval: a ping to each daemon that is up; each answers it */
static void hb_tick(void *arg)
{
    px_daemons_t *ds = arg;
    for (size_t i = 1; i < ds->n; i++) {
        px_dmn_t *dm = ds->d[i];
        if (dm->state == DMN_UP && dm->peer != NULL) {
            (void)px_peer_send(dm->peer, PX_DP_HEARTBEAT, NULL); /* a failure: on_lost */
        }
    }
}

/* a daemon that is up sent nothing (not even the echo of a ping) for the timeout */
static void hb_silent(unsigned id, double silent_ms, void *arg)
{
    px_daemons_t *ds = arg;
    if (id >= ds->n || ds->d[id]->state != DMN_UP) {
        return;
    }
    char why[192];
    snprintf(why, sizeof(why),
             "it sent nothing for %.1f s (heartbeat timeout %.1f s): its node is frozen, "
             "overloaded or cut off from this one",
             silent_ms / 1e3, ds->o.hb_timeout_ms / 1e3);
    dmn_fail(ds->d[id], why);
    check_progress(ds);
}

/* ---- start, stop ---- */

/* A state change to look at from the loop (the start-up's end or the stop's). */
static void progress_later(void *arg)
{
    check_progress(arg);
}

/* A new entry at the end of the table (id = its index), for host. NULL on ENOMEM. */
static px_dmn_t *dmn_new(px_daemons_t *ds, const char *host)
{
    if (ds->n == ds->cap) {
        size_t cap = ds->cap ? 2 * ds->cap : 8;
        px_dmn_t **d = realloc(ds->d, cap * sizeof(*d));
        if (d == NULL) {
            return NULL;
        }
        ds->d = d;
        ds->cap = cap;
    }
    px_dmn_t *dm = calloc(1, sizeof(*dm));
    if (dm == NULL || (dm->host = strdup(host)) == NULL) {
        free(dm);
        return NULL;
    }
    dm->owner = ds;
    dm->id = (unsigned)ds->n;
    ds->d[ds->n++] = dm;
    return dm;
}

/* What starting remote daemons needs, made once: the secret and the TCP listener, the
 * prted path, the SIGCHLD event, the start/stop timer, the heartbeats. 0, or -1 after
 * the message. */
static int prepare(px_daemons_t *ds)
{
    const px_daemons_opts_t *o = &ds->o;
    if (ds->listener != NULL) {
        return 0;
    }
    if (px_tcp_secret_new(ds->secret) != 0 ||
        (ds->listener = px_tcp_listen(ds->prog, true, ds->secret, on_accept, ds)) == NULL ||
        (ds->prted = prted_path()) == NULL ||
        (ds->sigchld = evsignal_new(o->base, SIGCHLD, on_sigchld, ds)) == NULL ||
        event_add(ds->sigchld, NULL) != 0 ||
        (ds->timer = evtimer_new(o->base, on_timer, ds)) == NULL) {
        px_show_help("help-prte.txt", "daemon-listen", o->prog, strerror(errno));
        return -1;
    }
    if (o->hb_interval_ms > 0 && o->hb_timeout_ms > 0) {
        px_hb_opts_t ho = {.interval_ms = o->hb_interval_ms,
                           .timeout_ms = o->hb_timeout_ms,
                           .tick = hb_tick,
                           .silent = hb_silent,
                           .arg = ds};
        if ((ds->hb = px_hb_create(o->base, &ho)) == NULL) {
            px_show_help("help-prte.txt", "daemon-listen", o->prog, strerror(errno));
            return -1;
        }
    }
    char *rp = remote_prted(ds);
    dlog(ds, "daemons: listening at %s:%u, agent \"%s\", prted %s",
         px_tcp_listener_addr(ds->listener), (unsigned)px_tcp_listener_port(ds->listener),
         o->agent != NULL ? o->agent : "(built-in ssh)", rp ? rp : "?");
    free(rp);
    return 0;
}

/* Start dm's prted through the agent or the built-in ssh client; a failure fails dm. */
static void start_one(px_daemons_t *ds, px_dmn_t *dm)
{
    const char *agent = ds->o.agent; /* NULL: the built-in ssh client (launcher/ssh.c) */
    int rc = agent != NULL ? start_agent(ds, dm, agent) : start_ssh(ds, dm);
    if (rc != 0) {
        char why[128];
        snprintf(why, sizeof(why), "cannot start the agent \"%s\": %s",
                 agent != NULL ? agent : "(built-in ssh)", strerror(errno));
        dmn_fail(dm, why);
    }
}

/* (Re)arm the start timer: every daemon not up when it fires has failed. */
static void start_timer(px_daemons_t *ds)
{
    struct timeval tv = {START_TIMEOUT_MS / 1000, 0};
    evtimer_add(ds->timer, &tv);
}

px_daemons_t *px_daemons_start(const px_daemons_opts_t *o)
{
    px_daemons_t *ds = calloc(1, sizeof(*ds));
    if (ds == NULL) {
        px_show_help("help-prte.txt", "server-init", o->prog, strerror(ENOMEM));
        close(o->self_fd);
        return NULL;
    }
    ds->o = *o;
    /* daemon 0: this node, its agent in this process at the other end of self_fd */
    px_dmn_t *d0 = dmn_new(ds, o->node);
    ds->prog = px_progress_create(o->base);
    if (d0 != NULL && ds->prog != NULL) {
        d0->peer = px_peer_create(ds->prog, o->self_fd, on_msg, on_lost, d0);
    } else {
        close(o->self_fd);
    }
    if (d0 == NULL || d0->peer == NULL) {
        goto nomem;
    }
    d0->node = strdup(o->node);
    d0->reaped = true;
    px_topo_t *t0 = NULL;
    char sig[PX_DTOPO_SIG_LEN];
    px_dtopo_signature(o->topo, sig);
    if (d0->node == NULL || (t0 = topo_add(ds, sig)) == NULL) {
        goto nomem;
    }
    t0->topo = o->topo;
    t0->borrowed = true;
    d0->topo = t0;
    d0->state = DMN_UP;
    for (size_t i = 0; i < o->nhosts; i++) {
        const char *h = o->hosts[i].name;
        bool dup = px_daemons_is_here(h, o->node);
        for (size_t k = 1; k < ds->n && !dup; k++) {
            dup = strcmp(ds->d[k]->host, h) == 0;
        }
        if (!dup && dmn_new(ds, h) == NULL) {
            goto nomem;
        }
    }
    ds->starting = true;
    if (ds->n == 1) {
        /* this node only: nothing to start; said on the loop, not from here */
        if (px_progress_shift(ds->prog, progress_later, ds) != 0) {
            goto nomem;
        }
        return ds;
    }
    if (prepare(ds) != 0) {
        goto error;
    }
    if (o->srun && start_srun(ds, ds->d + 1, ds->n - 1) != 0) {
        char why[128];
        snprintf(why, sizeof(why), "cannot start srun: %s", strerror(errno));
        dmn_fail(ds->d[1], why);
    }
    for (size_t i = 1; i < ds->n && !ds->failed && !o->srun; i++) {
        px_dmn_t *dm = ds->d[i];
        uint32_t parent = o->tree_radix > 0 ? px_dp_tree_parent(o->tree_radix, dm->id) : 0;
        if (parent == 0) {
            start_one(ds, dm);
        } else {
            dm->via_parent = true; /* started by its parent once that one is up */
            dm->parent = parent;
            dm->reaped = true; /* no agent of ours: its lifeline is its parent's */
        }
    }
    start_timer(ds);
    /* the daemons come up on the caller's loop; a failure above is told from there too */
    if (ds->failed && px_progress_shift(ds->prog, progress_later, ds) != 0) {
        goto error;
    }
    return ds;
nomem:
    px_show_help("help-prte.txt", "server-init", o->prog, strerror(ENOMEM));
error:
    px_daemons_destroy(ds);
    return NULL;
}

int px_daemons_find(const px_daemons_t *d, const char *host)
{
    for (size_t i = 0; i < d->n; i++) {
        const px_dmn_t *dm = d->d[i];
        if (dm->state == DMN_FAILED || dm->state == DMN_GONE) {
            continue;
        }
        if (strcmp(dm->host, host) == 0 || (dm->node != NULL && strcmp(dm->node, host) == 0) ||
            (i == 0 && px_daemons_is_here(host, dm->node))) {
            return (int)i;
        }
    }
    return -1;
}

int px_daemons_add(px_daemons_t *d, const char *host)
{
    if (d->starting || d->stopping) {
        errno = EBUSY;
        return -1;
    }
    if (prepare(d) != 0) {
        errno = EIO;
        return -1;
    }
    px_dmn_t *dm = dmn_new(d, host);
    if (dm == NULL) {
        errno = ENOMEM;
        return -1;
    }
    dm->joining = true;
    dlog(d, "daemon %u (%s): added to the DVM", dm->id, dm->host);
    if (d->o.srun) {
        if (start_srun(d, &dm, 1) != 0) {
            dmn_fail(dm, "cannot start srun");
        }
    } else {
        start_one(d, dm);
    }
    start_timer(d);
    /* told through o.joined, later (also when it failed already) */
    if (px_progress_shift(d->prog, progress_later, d) != 0) {
        errno = ENOMEM;
        return -1;
    }
    return (int)dm->id;
}

size_t px_daemons_count(const px_daemons_t *d)
{
    return d != NULL ? d->n : 0;
}

const char *px_daemons_node(const px_daemons_t *d, unsigned id)
{
    return id < d->n ? d->d[id]->node : NULL;
}

hwloc_topology_t px_daemons_topo(const px_daemons_t *d, unsigned id)
{
    return id < d->n && d->d[id]->topo != NULL ? d->d[id]->topo->topo : NULL;
}

const char *px_daemons_host(const px_daemons_t *d, unsigned id)
{
    return id < d->n ? d->d[id]->host : NULL;
}

bool px_daemons_up(const px_daemons_t *d, unsigned id)
{
    return id < d->n && d->d[id]->state == DMN_UP && d->d[id]->peer != NULL;
}

int px_daemons_send(px_daemons_t *d, unsigned id, uint32_t tag, const pmix_data_buffer_t *buf)
{
    if (!px_daemons_up(d, id)) {
        errno = ENOTCONN;
        return -1;
    }
    return px_peer_send(d->d[id]->peer, tag, buf);
}

/* A request's reply, handed to the caller with the daemon's id. */
typedef struct {
    unsigned id;
    px_daemons_reply_fn cb;
    void *cbdata;
} req_t;

static void on_reply(px_peer_t *peer, pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    (void)peer;
    req_t *r = cbdata;
    r->cb(r->id, status, reply, r->cbdata);
    free(r);
}

int px_daemons_request(px_daemons_t *d, unsigned id, uint32_t tag, const pmix_data_buffer_t *buf,
                       px_daemons_reply_fn cb, void *cbdata)
{
    req_t *r = malloc(sizeof(*r));
    if (r == NULL) {
        return -1;
    }
    *r = (req_t){id, cb, cbdata};
    if (!px_daemons_up(d, id)) {
        free(r);
        errno = ENOTCONN;
        return -1;
    }
    if (px_peer_send_request(d->d[id]->peer, tag, buf, on_reply, r) != 0) {
        free(r);
        return -1;
    }
    return 0;
}

int px_daemons_reply(px_daemons_t *d, unsigned id, uint32_t seq, uint32_t tag,
                     const pmix_data_buffer_t *buf)
{
    if (id >= d->n || d->d[id]->peer == NULL) {
        errno = ENOTCONN;
        return -1;
    }
    return px_peer_send_reply(d->d[id]->peer, seq, tag, buf);
}

bool px_daemons_stopped(const px_daemons_t *d)
{
    for (size_t i = 1; d != NULL && i < d->n; i++) {
        if (d->d[i]->state == DMN_EXITING || d->d[i]->state == DMN_STARTING ||
            d->d[i]->state == DMN_TOPO || d->d[i]->state == DMN_UP) {
            return false;
        }
        if (d->d[i]->agent > 0 && !d->d[i]->reaped) {
            return false;
        }
    }
    return true;
}

static void stop_later(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    check_progress(arg);
}

void px_daemons_stop(px_daemons_t *d, void (*done)(void *arg), void *arg)
{
    if (d == NULL) {
        return;
    }
    d->done = done;
    d->done_arg = arg;
    if (!d->stopping) {
        d->stopping = true;
        pmix_data_buffer_t b;
        px_bfrops_buf_init(&b);
        bool packed = px_dp_exit_pack(&b, PX_DP_EXIT_NORMAL) == PMIX_SUCCESS;
        for (size_t i = 1; i < d->n; i++) {
            px_dmn_t *dm = d->d[i];
            if (dm->state == DMN_FAILED || dm->state == DMN_GONE) {
                continue;
            }
            if (!packed || dm->peer == NULL || px_peer_send(dm->peer, PX_DP_EXIT, &b) != 0) {
                /* not connected yet (a start that failed elsewhere), or cannot be told:
                 * its agent is ended, no connection is waited for */
                agent_kill(dm);
                px_peer_destroy(dm->peer);
                dm->peer = NULL;
                dm->closed = true;
            }
            set_state(dm, dm->closed && dm->reaped ? DMN_GONE : DMN_EXITING);
        }
        px_bfrops_buf_free(&b);
        if (d->timer != NULL) {
            struct timeval tv = {STOP_TIMEOUT_MS / 1000, 0};
            evtimer_add(d->timer, &tv);
        }
    }
    /* done runs later, never inside this call */
    event_base_once(d->o.base, -1, EV_TIMEOUT, stop_later, d, NULL);
}

void px_daemons_destroy(px_daemons_t *d)
{
    if (d == NULL) {
        return;
    }
    for (size_t i = 1; i < d->n; i++) {
        px_dmn_t *dm = d->d[i];
        px_peer_destroy(dm->peer);
        px_ssh_destroy(dm->ssh);
        if (dm->agent > 0 && !dm->reaped) {
            kill(-dm->agent, SIGKILL);
            while (waitpid(dm->agent, NULL, 0) < 0 && errno == EINTR) {
            }
        }
        free(dm->host);
        free(dm->node);
        free(dm);
    }
    if (d->n > 0) {
        px_peer_destroy(d->d[0]->peer);
        free(d->d[0]->host);
        free(d->d[0]->node);
        free(d->d[0]);
    }
    free(d->d);
    free(d->prted);
    while (d->topos != NULL) {
        px_topo_t *t = d->topos;
        d->topos = t->next;
        if (t->topo != NULL && !t->borrowed) {
            hwloc_topology_destroy(t->topo);
        }
        free(t->sig);
        free(t);
    }
    px_tcp_listener_destroy(d->listener);
    px_hb_destroy(d->hb);
    if (d->sigchld != NULL) {
        event_free(d->sigchld);
    }
    if (d->timer != NULL) {
        event_free(d->timer);
    }
    px_progress_destroy(d->prog);
    memset(d->secret, 0, sizeof(d->secret));
    free(d);
}
