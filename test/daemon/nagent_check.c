/* test driver: the node agent (daemon/nagent.c) given real protocol bytes on a real
 * libevent loop with real children. A LAUNCH over two nodes starts only this daemon's
 * part; process states come back as PSTATE payloads (started, exited with status,
 * failed at exec), output as read; SIGNAL kills one rank; a second LAUNCH of the job is
 * refused; JOB_CLEANUP forgets it. Single-threaded. Bounded by a 20 s loop timer.
 * "facts CLIENT": a LAUNCH over three nodes whose local ranks run CLIENT (test/daemon/
 * nagent_client.c), which prints what the agent registered for it: this node's facts
 * (node count and id, local size, node size, peers, local rank apart from node rank,
 * oversubscription from the map's flag), a rank of another node with its host and node
 * id, and the binding the agent computed for a rank the controller left unbound (the
 * first core of this node); a rank whose cpuset does not parse fails at stage "bind".
 * "early": the agent behind its controller link (daemon/dlink.c) with messages that may
 * come another way than the link (the routing tree): a SIGNAL for a job whose LAUNCH has
 * not come yet waits for it and then kills the rank; one for a job cleaned up is dropped.
 * Usage: nagent_check [facts CLIENT | early] (TMPDIR: where the PMIx server may put its
 * files) */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <event2/event.h>
#include <hwloc.h>
#include <pmix.h>
#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "daemon/px_dlink.h"
#include "daemon/px_nagent.h"
#include "net/px_peer.h"
#include <sys/socket.h>

#define NPROCS 4

static struct event_base *base;
static px_nagent_t *agent;
static int failures;
static int started[NPROCS], exited[NPROCS], failed[NPROCS], wstatus[NPROCS], fail_err[NPROCS];
static char out0[64];
static size_t out0_len;
static bool signalled;

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    failures++;
}

static void deliver(uint32_t tag, pmix_data_buffer_t *buf, pmix_status_t want)
{
    px_dp_ctl_msg_t m;
    pmix_status_t rc = px_dp_ctl_decode(tag, buf, &m);
    if (rc == PMIX_SUCCESS) {
        rc = px_nagent_handle(agent, &m, 0);
        px_dp_ctl_msg_free(&m);
    }
    if (rc != want) {
        fail("message %u: %s, expected %s", tag, PMIx_Error_string(rc), PMIx_Error_string(want));
    }
    px_bfrops_buf_free(buf);
}

static void kill_rank2(void)
{
    pmix_proc_t t;
    PMIx_Load_procid(&t, "check@1", 2);
    pmix_data_buffer_t buf;
    px_bfrops_buf_init(&buf);
    px_dp_signal_pack(&buf, &t, SIGKILL);
    deliver(PX_DP_SIGNAL, &buf, PMIX_SUCCESS);
}

static bool done(void)
{
    return exited[0] && exited[2] && exited[3];
}

static void on_output(const pmix_proc_t *proc, uint16_t channel, const char *data, size_t len)
{
    if (proc->rank == 0 && channel == PMIX_FWD_STDOUT_CHANNEL && out0_len + len < sizeof(out0)) {
        memcpy(out0 + out0_len, data, len);
        out0_len += len;
    }
}

static void on_send(uint32_t tag, pmix_data_buffer_t *payload, void *arg)
{
    (void)arg;
    px_dp_dmn_msg_t m;
    if (px_dp_dmn_decode(tag, payload, &m) != PMIX_SUCCESS ||
        (tag != PX_DP_PSTATE && tag != PX_DP_IOF)) {
        fail("undecodable report (tag %u)", tag);
        return;
    }
    if (tag == PX_DP_IOF) {
        on_output(&m.proc, m.channel, m.data.bytes, m.data.size);
        px_dp_dmn_msg_free(&m);
        return;
    }
    px_dp_pstate_t ps = m.pstate;
    m.pstate = (px_dp_pstate_t){0};
    px_dp_dmn_msg_free(&m);
    for (size_t i = 0; i < ps.n; i++) {
        const px_dp_pstate_one_t *o = &ps.procs[i];
        if (o->rank >= NPROCS || o->rank == 1) {
            fail("report for rank %u, not on this node", o->rank);
            continue;
        }
        if (o->state == PX_DP_PS_STARTED) {
            started[o->rank]++;
            if (o->pid <= 0) {
                fail("rank %u started without a pid", o->rank);
            }
        } else if (o->state == PX_DP_PS_FAILED) {
            failed[o->rank]++;
            fail_err[o->rank] = o->status;
            if (o->stage == NULL || strcmp(o->stage, "exec") != 0) {
                fail("rank %u failed at stage %s, expected exec", o->rank,
                     o->stage ? o->stage : "(none)");
            }
        } else {
            if (!started[o->rank] && !failed[o->rank]) {
                fail("rank %u exited before its start was reported", o->rank);
            }
            exited[o->rank]++;
            wstatus[o->rank] = o->status;
        }
    }
    if (started[2] && !signalled) {
        signalled = true;
        kill_rank2(); /* from inside the report, as the controller does */
    }
    px_dp_pstate_free(&ps);
    if (done()) {
        event_base_loopbreak(base);
    }
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
    fail("timed out");
    event_base_loopbreak(base);
}

static void launch_buf(pmix_data_buffer_t *buf)
{
    px_dp_lnode_t nodes[2] = {{.name = "here", .daemon = 0}, {.name = "there", .daemon = 1}};
    px_dp_lproc_t procs[NPROCS] = {{.node = 0, .app = 0},
                                   {.node = 1, .app = 0},
                                   {.node = 0, .local_rank = 1, .app = 1},
                                   {.node = 0, .local_rank = 2, .app = 2}};
    char *a0[] = {"sh", "-c", "echo hello from 0; exit 3", NULL};
    char *a1[] = {"sleep", "30", NULL};
    char *a2[] = {"/nonexistent/program", NULL};
    pmix_app_t apps[3] = {{.cmd = "sh", .argv = a0, .maxprocs = 2},
                          {.cmd = "sleep", .argv = a1, .maxprocs = 1},
                          {.cmd = "/nonexistent/program", .argv = a2, .maxprocs = 1}};
    px_dp_launch_t l = {
        .nodes = nodes, .nnodes = 2, .procs = procs, .nprocs = NPROCS, .apps = apps, .napps = 3};
    PMIX_LOAD_NSPACE(l.nspace, "check@1");
    px_bfrops_buf_init(buf);
    if (px_dp_launch_pack(buf, &l) != PMIX_SUCCESS) {
        fail("launch does not pack");
    }
}

/* ---- facts ---- */

#define FACTS_NPROCS 6
static char facts_out[FACTS_NPROCS][512];
static int facts_exited[FACTS_NPROCS], facts_failed[FACTS_NPROCS], facts_err[FACTS_NPROCS];
static char facts_stage[FACTS_NPROCS][16];

static bool facts_done(void)
{
    return facts_exited[1] && facts_exited[2] && facts_exited[4] && facts_failed[5];
}

static void facts_send(uint32_t tag, pmix_data_buffer_t *payload, void *arg)
{
    (void)arg;
    px_dp_dmn_msg_t m;
    if (px_dp_dmn_decode(tag, payload, &m) != PMIX_SUCCESS) {
        fail("undecodable report (tag %u)", tag);
        return;
    }
    if (tag == PX_DP_IOF && m.proc.rank < FACTS_NPROCS) {
        size_t have = strlen(facts_out[m.proc.rank]);
        size_t room = sizeof(facts_out[0]) - have - 1;
        memcpy(facts_out[m.proc.rank] + have, m.data.bytes,
               m.data.size < room ? m.data.size : room);
    }
    for (size_t i = 0; tag == PX_DP_PSTATE && i < m.pstate.n; i++) {
        const px_dp_pstate_one_t *o = &m.pstate.procs[i];
        if (o->rank >= FACTS_NPROCS || o->rank == 0 || o->rank == 3) {
            fail("report for rank %u, not on this node", o->rank);
        } else if (o->state == PX_DP_PS_EXITED) {
            facts_exited[o->rank]++;
        } else if (o->state == PX_DP_PS_FAILED) {
            facts_failed[o->rank]++;
            facts_err[o->rank] = o->status;
            snprintf(facts_stage[o->rank], sizeof(facts_stage[0]), "%s", o->stage ? o->stage : "");
        }
    }
    px_dp_dmn_msg_free(&m);
    if (facts_done()) {
        event_base_loopbreak(base);
    }
}

/* Nodes n0 (daemon 5), here (this daemon, 0, oversubscribed), n2 (daemon 7). Ranks 1, 2
 * and 4 are here (local ranks 0-2, node ranks 3-5: another job holds 0-2); rank 4 is
 * left to this daemon to bind to a core; rank 5 is here with a cpuset that does not
 * parse. */
static int facts(const char *client)
{
    px_dp_lnode_t nodes[3] = {{.name = "n0", .daemon = 5},
                              {.name = "here", .daemon = 0, .flags = PX_DP_NODE_OVERSUB},
                              {.name = "n2", .daemon = 7}};
    px_dp_lproc_t procs[FACTS_NPROCS] = {
        {.node = 0},
        {.node = 1, .local_rank = 0, .node_rank = 3},
        {.node = 1, .local_rank = 1, .node_rank = 4},
        {.node = 2},
        {.node = 1, .local_rank = 2, .node_rank = 5, .flags = PX_DP_PROC_BIND_LATER},
        {.node = 1, .local_rank = 3, .node_rank = 6, .cpuset = "hwloc:zz"},
    };
    char *argv[] = {(char *)client, "3", NULL};
    pmix_app_t apps[1] = {{.cmd = (char *)client, .argv = argv, .maxprocs = FACTS_NPROCS}};
    uint32_t size = FACTS_NPROCS;
    pmix_info_t reg[1];
    PMIX_INFO_LOAD(&reg[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    px_dp_launch_t l = {.nodes = nodes,
                        .nnodes = 3,
                        .procs = procs,
                        .nprocs = FACTS_NPROCS,
                        .bind_obj = PX_DP_BIND_CORE,
                        .apps = apps,
                        .napps = 1,
                        .reg = reg,
                        .nreg = 1};
    PMIX_LOAD_NSPACE(l.nspace, "facts@1");
    pmix_data_buffer_t buf;
    px_bfrops_buf_init(&buf);
    if (px_dp_launch_pack(&buf, &l) != PMIX_SUCCESS) {
        fail("launch does not pack");
    }
    PMIX_INFO_DESTRUCT(&reg[0]);
    deliver(PX_DP_LAUNCH, &buf, PMIX_SUCCESS);
    struct event *t = evtimer_new(base, on_timeout, NULL);
    struct timeval tv = {20, 0};
    evtimer_add(t, &tv);
    event_base_dispatch(base);
    event_free(t);
    if (!facts_done()) {
        fail("the local ranks did not all end: exited %d %d %d, rank 5 failed %d", facts_exited[1],
             facts_exited[2], facts_exited[4], facts_failed[5]);
    }
    return 0;
}

/* What rank r's line must begin with, and the binding rank 4 must get. */
static void facts_check(hwloc_topology_t topo)
{
    hwloc_obj_t core0 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, 0);
    char *list = NULL;
    if (core0 == NULL || hwloc_bitmap_list_asprintf(&list, core0->cpuset) < 0) {
        fail("no core in this node's topology");
        return;
    }
    static const struct {
        pmix_rank_t rank;
        int lrank, nrank;
    } want[3] = {{1, 0, 3}, {2, 1, 4}, {4, 2, 5}};
    for (int i = 0; i < 3; i++) {
        char line[512];
        snprintf(line, sizeof(line),
                 "rank %u nnodes 3 nodeid 0/0 lsize 4 nsize 4 peers 1,2,4,5 lrank %d nrank %d "
                 "host here over 1 peer 3 on n2/7 cpuset ",
                 want[i].rank, want[i].lrank, want[i].nrank);
        if (strncmp(facts_out[want[i].rank], line, strlen(line)) != 0) {
            fail("rank %u printed '%s', expected it to start with '%s'", want[i].rank,
                 facts_out[want[i].rank], line);
        }
    }
    char bound[256];
    snprintf(bound, sizeof(bound), "cpuset hwloc:%s allowed %s\n", list, list);
    const char *at = strstr(facts_out[4], "cpuset ");
    if (at == NULL || strcmp(at, bound) != 0) {
        fail("rank 4 (bound by the daemon) printed '%s', expected '... %s'", facts_out[4], bound);
    }
    if (strstr(facts_out[1], "cpuset - ") == NULL) {
        fail("rank 1 is not bound, but printed '%s'", facts_out[1]);
    }
    if (!(facts_failed[5] == 1 && facts_err[5] == EINVAL && strcmp(facts_stage[5], "bind") == 0)) {
        fail("rank 5 (bad cpuset): failed %d, errno %d, stage '%s'; expected EINVAL at bind",
             facts_failed[5], facts_err[5], facts_stage[5]);
    }
    free(list);
}

/* ---- early: job messages before their LAUNCH ---- */

static int early_exited;
static int early_status;

static void early_msg(px_peer_t *peer, uint32_t tag, uint32_t seq, pmix_data_buffer_t *payload,
                      void *cbdata)
{
    (void)peer;
    (void)seq;
    (void)cbdata;
    px_dp_dmn_msg_t m;
    if (px_dp_dmn_decode(tag, payload, &m) != PMIX_SUCCESS) {
        fail("undecodable report (tag %u)", tag);
        return;
    }
    for (size_t i = 0; tag == PX_DP_PSTATE && i < m.pstate.n; i++) {
        /* (early@1's rank is killed by its JOB_CLEANUP) */
        if (m.pstate.procs[i].state == PX_DP_PS_EXITED &&
            PMIx_Check_nspace(m.pstate.nspace, "early@2")) {
            early_exited++;
            early_status = m.pstate.procs[i].status;
            event_base_loopbreak(base);
        }
    }
    px_dp_dmn_msg_free(&m);
}

static void early_lost(px_peer_t *peer, int err, void *cbdata)
{
    (void)peer;
    (void)cbdata;
    fail("the link closed (%s)", strerror(err));
    event_base_loopbreak(base);
}

static bool always(void *arg)
{
    (void)arg;
    return true;
}

static void early_failed(int err, uint32_t tag, pmix_status_t rc, void *arg)
{
    (void)arg;
    fail("link failed: %s, tag %u, %s", strerror(err), tag, PMIx_Error_string(rc));
}

/* A LAUNCH of nspace with one local rank running sleep 30. */
static void early_launch(pmix_data_buffer_t *buf, const char *nspace)
{
    px_dp_lnode_t nodes[1] = {{.name = "here", .daemon = 0}};
    px_dp_lproc_t procs[1] = {{.node = 0, .app = 0}};
    char *a[] = {"sleep", "30", NULL};
    pmix_app_t apps[1] = {{.cmd = "sleep", .argv = a, .maxprocs = 1}};
    px_dp_launch_t l = {
        .nodes = nodes, .nnodes = 1, .procs = procs, .nprocs = 1, .apps = apps, .napps = 1};
    PMIX_LOAD_NSPACE(l.nspace, nspace);
    px_bfrops_buf_init(buf);
    if (px_dp_launch_pack(buf, &l) != PMIX_SUCCESS) {
        fail("launch does not pack");
    }
}

static void early_send(px_peer_t *ctl, uint32_t tag, pmix_data_buffer_t *buf)
{
    if (px_peer_send(ctl, tag, buf) != 0) {
        fail("cannot send message %u", tag);
    }
    px_bfrops_buf_free(buf);
}

static int early(hwloc_topology_t topo)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        fail("socketpair: %s", strerror(errno));
        return 1;
    }
    px_progress_t *prog = px_progress_create(base);
    px_nagent_opts_t ao = {.base = base, .topo = topo, .self = 0, .node = "here"};
    px_dlink_cbs_t cbs = {.failed = early_failed, .indirect = always};
    px_dlink_t *link = prog != NULL ? px_dlink_create(prog, sv[0], &ao, &cbs) : NULL;
    px_peer_t *ctl = prog != NULL ? px_peer_create(prog, sv[1], early_msg, early_lost, NULL) : NULL;
    if (link == NULL || ctl == NULL) {
        fail("cannot make the link");
        return 1;
    }
    /* a job launched and cleaned up: a late SIGNAL for it is dropped, not kept */
    pmix_data_buffer_t buf;
    early_launch(&buf, "early@1");
    early_send(ctl, PX_DP_LAUNCH, &buf);
    px_bfrops_buf_init(&buf);
    px_dp_cleanup_pack(&buf, "early@1");
    early_send(ctl, PX_DP_JOB_CLEANUP, &buf);
    pmix_proc_t t;
    PMIx_Load_procid(&t, "early@1", PMIX_RANK_WILDCARD);
    px_bfrops_buf_init(&buf);
    px_dp_signal_pack(&buf, &t, SIGTERM);
    early_send(ctl, PX_DP_SIGNAL, &buf);
    /* a SIGNAL that overtook its job's LAUNCH: the rank is killed once it starts */
    PMIx_Load_procid(&t, "early@2", PMIX_RANK_WILDCARD);
    px_bfrops_buf_init(&buf);
    px_dp_signal_pack(&buf, &t, SIGTERM);
    early_send(ctl, PX_DP_SIGNAL, &buf);
    early_launch(&buf, "early@2");
    early_send(ctl, PX_DP_LAUNCH, &buf);
    struct event *tm = evtimer_new(base, on_timeout, NULL);
    struct timeval tv = {20, 0};
    evtimer_add(tm, &tv);
    event_base_dispatch(base);
    event_free(tm);
    if (!(early_exited == 1 && WIFSIGNALED(early_status) && WTERMSIG(early_status) == SIGTERM)) {
        fail("early@2's rank: %d exit reports, status 0x%x; expected killed by SIGTERM",
             early_exited, early_status);
    }
    px_peer_destroy(ctl);
    px_dlink_destroy(link);
    px_progress_destroy(prog);
    return 0;
}

/* The end of every mode: the exit status. */
static int finish(hwloc_topology_t topo)
{
    event_base_free(base);
    hwloc_topology_destroy(topo);
    PMIx_server_finalize();
    if (failures == 0) {
        printf("ok\n");
    }
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    bool facts_mode = argc > 2 && strcmp(argv[1], "facts") == 0;
    bool early_mode = argc > 1 && strcmp(argv[1], "early") == 0;
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    pmix_info_t sinfo[1];
    PMIX_INFO_LOAD(&sinfo[0], PMIX_HOSTNAME, "here", PMIX_STRING);
    if (PMIx_server_init(&module, sinfo, 1) != PMIX_SUCCESS) {
        fprintf(stderr, "FAIL: PMIx_server_init\n");
        return 1;
    }
    PMIX_INFO_DESTRUCT(&sinfo[0]);
    hwloc_topology_t topo;
    hwloc_topology_init(&topo);
    hwloc_topology_load(topo);
    base = event_base_new();
    if (early_mode) {
        early(topo);
        return finish(topo);
    }
    if (facts_mode) {
        px_nagent_cbs_t cbs = {.send = facts_send};
        px_nagent_opts_t ao = {.base = base, .topo = topo, .self = 0, .node = "here"};
        agent = px_nagent_create(&ao, &cbs);
        if (agent == NULL) {
            fprintf(stderr, "FAIL: px_nagent_create: %s\n", strerror(errno));
            return 1;
        }
        facts(argv[2]);
        facts_check(topo);
        px_nagent_destroy(agent);
        return finish(topo);
    }
    px_nagent_cbs_t cbs = {.send = on_send};
    px_nagent_opts_t ao = {.base = base, .topo = topo, .self = 0, .node = "here"};
    agent = px_nagent_create(&ao, &cbs);
    if (agent == NULL) {
        fprintf(stderr, "FAIL: px_nagent_create: %s\n", strerror(errno));
        return 1;
    }
    pmix_data_buffer_t buf;
    launch_buf(&buf);
    deliver(PX_DP_LAUNCH, &buf, PMIX_SUCCESS);
    launch_buf(&buf);
    deliver(PX_DP_LAUNCH, &buf, PMIX_EXISTS); /* the same job twice */
    if (px_nagent_count(agent) != 3) {
        fail("%zu children right after LAUNCH, expected 3 (ranks 0, 2, 3)", px_nagent_count(agent));
    }
    if (started[0] + exited[0] + failed[3] != 0) {
        fail("a report came from inside px_nagent_handle");
    }
    struct event *t = evtimer_new(base, on_timeout, NULL);
    struct timeval tv = {20, 0};
    evtimer_add(t, &tv);
    event_base_dispatch(base);
    event_free(t);

    if (!(started[0] == 1 && exited[0] == 1 && WIFEXITED(wstatus[0]) &&
          WEXITSTATUS(wstatus[0]) == 3)) {
        fail("rank 0: started %d exited %d status 0x%x, expected exit code 3", started[0],
             exited[0], wstatus[0]);
    }
    if (out0_len != 13 || memcmp(out0, "hello from 0\n", 13) != 0) {
        fail("rank 0's output: '%.*s'", (int)out0_len, out0);
    }
    if (!(started[2] == 1 && exited[2] == 1 && WIFSIGNALED(wstatus[2]) &&
          WTERMSIG(wstatus[2]) == SIGKILL)) {
        fail("rank 2: started %d exited %d status 0x%x, expected SIGKILL", started[2], exited[2],
             wstatus[2]);
    }
    if (!(failed[3] == 1 && fail_err[3] == ENOENT && exited[3] == 1)) {
        fail("rank 3: failed %d (errno %d) exited %d, expected ENOENT at exec", failed[3],
             fail_err[3], exited[3]);
    }
    if (px_nagent_count(agent) != 0) {
        fail("%zu children left after their exits", px_nagent_count(agent));
    }
    px_bfrops_buf_init(&buf);
    px_dp_cleanup_pack(&buf, "check@1");
    deliver(PX_DP_JOB_CLEANUP, &buf, PMIX_SUCCESS);
    launch_buf(&buf); /* forgotten: the namespace may be launched again */
    deliver(PX_DP_LAUNCH, &buf, PMIX_SUCCESS);
    px_nagent_destroy(agent); /* kills and reaps the relaunched ones */
    return finish(topo);
}
