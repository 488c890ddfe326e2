/* bench_event - event round-trip latency through our server: client A raises code PING
 * (range LOCAL, or a custom range naming B), the server relays it, B's handler answers
 * with PONG in a custom range naming A, and A's handler wakes A's main thread. Printed
 * next to baselines measured in the same run: a socketpair ping-pong between two
 * processes and one relayed through a third (the shape of our client -> server -> client
 * path), and a condvar ping-pong between two threads for the process-local event.
 * The parent is a small server host (public API, bench_common) on the main thread; the
 * clients are this program re-executed with --client, their handlers run on the library's
 * progress thread. A measurement, not a pass/fail test: the exit status only says whether
 * the run worked (a lost event ends it with status 1). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"

#define PXE_BLOCK     200 /* round trips per block; latency = median of block means */
#define PXE_MSG       64  /* bytes of the baselines' message */
#define PXE_LOST_S    5   /* a round trip not back within this is lost */
#define PXE_REG_ITERS 200 /* timed registrations */
#define PXE_CACHE_DEF 512 /* the server's default event cache (server_event.c) */

/* Our event codes (positive: outside the Standard's ranges) and the sequence number key. */
#define PXE_PING    7201 /* A -> B */
#define PXE_PONG    7202 /* B -> A */
#define PXE_SELF    7203 /* A -> A, PMIX_RANGE_PROC_LOCAL */
#define PXE_IDLE    7204 /* never raised: the code of the timed registrations */
#define PXE_KEY_SEQ "bench.event.seq"

typedef struct {
    double med, p99; /* seconds */
} stat_t;

/* Per-round-trip samples: the median of PXE_BLOCK-sample block means, and the p99. */
static stat_t summarize(double *samples, int n)
{
    int nblocks = n / PXE_BLOCK > 0 ? n / PXE_BLOCK : 1;
    double *blk = calloc((size_t)nblocks, sizeof(double));
    stat_t s;
    if (blk == NULL) {
        px_bench_fail("out of memory");
    }
    for (int b = 0; b < nblocks; b++) {
        int lo = b * PXE_BLOCK, hi = n < lo + PXE_BLOCK ? n : lo + PXE_BLOCK;
        for (int i = lo; i < hi; i++) {
            blk[b] += samples[i] / (hi - lo);
        }
    }
    s.med = px_bench_median(blk, nblocks);
    s.p99 = px_bench_quantile(samples, n, 0.99);
    free(blk);
    return s;
}

/* Sequence numbers grow across measurements: an answer of an earlier one never counts. */
static uint32_t next_seq;

/* Runs one(seq) for PXE_BLOCK untimed warm-up rounds, then iters timed ones. */
static stat_t measure(int iters, void (*one)(uint32_t seq, void *arg), void *arg)
{
    double *t = calloc((size_t)iters, sizeof(double));
    if (t == NULL) {
        px_bench_fail("out of memory");
    }
    for (int i = 0; i < PXE_BLOCK; i++) {
        one(++next_seq, arg);
    }
    for (int i = 0; i < iters; i++) {
        double t0 = px_bench_now();
        one(++next_seq, arg);
        t[i] = px_bench_now() - t0;
    }
    stat_t s = summarize(t, iters);
    free(t);
    return s;
}

static struct timespec deadline(int secs)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += secs;
    return ts;
}

/* A mutex and a condvar on CLOCK_MONOTONIC, and the last sequence number seen. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    uint32_t seq;
} mailbox_t;

static void mailbox_init(mailbox_t *m)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&m->lock, NULL);
    pthread_cond_init(&m->cond, &ca);
    pthread_condattr_destroy(&ca);
    m->seq = 0;
}

static void mailbox_post(mailbox_t *m, uint32_t seq)
{
    pthread_mutex_lock(&m->lock);
    m->seq = seq;
    pthread_cond_signal(&m->cond);
    pthread_mutex_unlock(&m->lock);
}

/* Until seq (or a later one) was posted, at most PXE_LOST_S seconds; false if lost. */
static bool mailbox_wait(mailbox_t *m, uint32_t seq)
{
    struct timespec ts = deadline(PXE_LOST_S);
    pthread_mutex_lock(&m->lock);
    int rc = 0;
    while (m->seq < seq && rc == 0) {
        rc = pthread_cond_timedwait(&m->cond, &m->lock, &ts);
    }
    bool got = m->seq >= seq;
    pthread_mutex_unlock(&m->lock);
    return got;
}

/* ================================ client ================================ */

static pmix_proc_t me, peer;
static mailbox_t pong; /* A: the sequence number of the last PONG or SELF heard */
static volatile uint32_t answered, answer_errors;

static uint32_t event_seq(const pmix_info_t info[], size_t ninfo)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PXE_KEY_SEQ) && info[i].value.type == PMIX_UINT32) {
            return info[i].value.data.uint32;
        }
    }
    return 0;
}

/* A: PONG from B, or its own SELF event. */
static void on_pong(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                    size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)status;
    (void)source;
    (void)results;
    (void)nresults;
    mailbox_post(&pong, event_seq(info, ninfo));
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

/* Raises code with our sequence number, to range (custom: naming to). */
static pmix_status_t notify(pmix_status_t code, pmix_data_range_t range, uint32_t seq,
                            const pmix_proc_t *to)
{
    pmix_info_t info[2];
    size_t ninfo = 1;
    PMIx_Info_load(&info[0], PXE_KEY_SEQ, &seq, PMIX_UINT32);
    if (range == PMIX_RANGE_CUSTOM) {
        PMIx_Info_load(&info[1], PMIX_EVENT_CUSTOM_RANGE, to, PMIX_PROC);
        ninfo = 2;
    }
    pmix_status_t rc = PMIx_Notify_event(code, &me, range, info, ninfo, NULL, NULL);
    for (size_t i = 0; i < ninfo; i++) {
        PMIx_Info_destruct(&info[i]);
    }
    return rc;
}

/* B: answers every PING with a PONG to A, from the handler (progress thread). */
static void on_ping(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                    size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)status;
    (void)results;
    (void)nresults;
    if (notify(PXE_PONG, PMIX_RANGE_CUSTOM, event_seq(info, ninfo), source) == PMIX_SUCCESS) {
        answered++;
    } else {
        answer_errors++;
    }
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

typedef struct {
    pmix_status_t code;
    pmix_data_range_t range;
    const char *what;
} trip_t;

/* A: one round trip (PING to B and PONG back, or SELF to ourselves). */
static void one_trip(uint32_t seq, void *arg)
{
    const trip_t *t = arg;
    pmix_status_t rc = notify(t->code, t->range, seq, &peer);
    if (rc != PMIX_SUCCESS) {
        px_bench_fail("PMIx_Notify_event (%s, round trip %u) failed: %s", t->what, seq,
                      PMIx_Error_string(rc));
    }
    if (!mailbox_wait(&pong, seq)) {
        px_bench_fail("event lost: round trip %u (%s) not back within %d s", seq, t->what,
                      PXE_LOST_S);
    }
}

static size_t reg(pmix_status_t *codes, size_t ncodes, pmix_notification_fn_t fn)
{
    pmix_status_t rc = PMIx_Register_event_handler(codes, ncodes, NULL, 0, fn, NULL, NULL);
    if (rc < 0) {
        px_bench_fail("PMIx_Register_event_handler failed: %s", PMIx_Error_string(rc));
    }
    return (size_t)rc;
}

/* A: a blocking registration for a code never raised (timed), then its deregistration. */
static void one_reg(uint32_t seq, void *arg)
{
    (void)seq;
    (void)arg;
    pmix_status_t code = PXE_IDLE;
    size_t ref = reg(&code, 1, on_pong);
    pmix_status_t rc = PMIx_Deregister_event_handler(ref, NULL, NULL);
    if (rc != PMIX_SUCCESS) {
        px_bench_fail("PMIx_Deregister_event_handler failed: %s", PMIx_Error_string(rc));
    }
}

static void barrier(void)
{
    pmix_status_t rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        px_bench_fail("PMIx_Fence failed: %s", PMIx_Error_string(rc));
    }
}

static int append(char *buf, size_t size, int len, const char *name, stat_t s)
{
    return len + snprintf(buf + len, size - (size_t)len, "PXE %s %.1f %.1f\n", name, s.med * 1e9,
                          s.p99 * 1e9);
}

/* Rank 0 is A (measures), rank 1 is B (answers). A prints "PXE <what> <med> <p99>" (ns)
 * lines, B "PXE answered <n>". */
static int client_main(int iters)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "bench_event client: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    px_bench_client_start("bench_event", me.rank);
    if (me.rank > 1) {
        px_bench_fail("expected ranks 0 and 1 only");
    }
    PMIx_Load_procid(&peer, me.nspace, 1 - me.rank);
    mailbox_init(&pong);

    char out[1024];
    int len = 0;
    stat_t reg_empty = {0, 0};
    if (me.rank == 0) {
        pmix_status_t codes[] = {PXE_PONG, PXE_SELF};
        reg(codes, 2, on_pong);
        reg_empty = measure(PXE_REG_ITERS, one_reg, NULL);
    } else {
        pmix_status_t code = PXE_PING;
        reg(&code, 1, on_ping);
    }
    barrier();
    if (me.rank == 0) {
        trip_t local = {PXE_PING, PMIX_RANGE_LOCAL, "PING to range LOCAL"};
        trip_t custom = {PXE_PING, PMIX_RANGE_CUSTOM, "PING to a custom range {B}"};
        trip_t self = {PXE_SELF, PMIX_RANGE_PROC_LOCAL, "SELF to range PROC_LOCAL"};
        len = append(out, sizeof(out), len, "local", measure(iters, one_trip, &local));
        len = append(out, sizeof(out), len, "custom", measure(iters, one_trip, &custom));
        len = append(out, sizeof(out), len, "self", measure(iters, one_trip, &self));
        len = append(out, sizeof(out), len, "reg_empty", reg_empty);
        len = append(out, sizeof(out), len, "reg_after", measure(PXE_REG_ITERS, one_reg, NULL));
    }
    barrier(); /* B answers until A is done */
    if (me.rank == 1) {
        if (answer_errors > 0) {
            px_bench_fail("%u PONG(s) could not be raised", answer_errors);
        }
        len = snprintf(out, sizeof(out), "PXE answered %u\n", answered);
    }
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        px_bench_fail("PMIx_Finalize failed: %s", PMIx_Error_string(rc));
    }
    return write(1, out, (size_t)len) == (ssize_t)len ? 0 : 1;
}

/* ================================ parent ================================ */

/* ---- baselines: the same ping-pong over sockets and between threads ---- */

static void io_all(int fd, char *buf, bool rd, const char *who)
{
    for (size_t done = 0; done < PXE_MSG;) {
        if (rd) {
            struct pollfd p = {fd, POLLIN, 0};
            if (poll(&p, 1, PXE_LOST_S * 1000) == 0) {
                px_bench_fail("%s: message lost (nothing within %d s)", who, PXE_LOST_S);
            }
        }
        ssize_t n =
            rd ? read(fd, buf + done, PXE_MSG - done) : write(fd, buf + done, PXE_MSG - done);
        if (n <= 0 && !(n < 0 && errno == EINTR)) {
            px_bench_fail("%s: %s", who, n == 0 ? "peer closed" : strerror(errno));
        }
        done += n > 0 ? (size_t)n : 0;
    }
}

/* Child: sends back each message read on fd, until EOF. */
static void echo_loop(int fd, int unused)
{
    (void)unused;
    char buf[PXE_MSG];
    ssize_t n;
    while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
        if (n > 0 && write(fd, buf, (size_t)n) != n) {
            break;
        }
    }
}

/* Child: a poll loop forwarding bytes between a and b (as the server's loop does), until
 * either closes. */
static void relay_loop(int a, int b)
{
    char buf[4096];
    struct pollfd p[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
    for (;;) {
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            return;
        }
        for (int i = 0; i < 2; i++) {
            if (p[i].revents == 0) {
                continue;
            }
            ssize_t n = read(p[i].fd, buf, sizeof(buf));
            if (n <= 0 || write(p[1 - i].fd, buf, (size_t)n) != n) {
                return;
            }
        }
    }
}

/* Forks fn(a, b) in a tracked child, after closing the parent's ends the child must not
 * hold (drop[], -1 terminated). */
static pid_t spawn(void (*fn)(int, int), int a, int b, const int *drop)
{
    pid_t parent = getpid(), pid = fork();
    if (pid < 0) {
        px_bench_fail("fork: %s", strerror(errno));
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) {
            _exit(1);
        }
        for (int i = 0; drop[i] >= 0; i++) {
            close(drop[i]);
        }
        fn(a, b);
        _exit(0);
    }
    px_bench_track(pid);
    return pid;
}

static void reap(pid_t pid, const char *who)
{
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        px_bench_fail("baseline %s process ended badly (status 0x%x)", who, st);
    }
    px_bench_untrack(pid);
}

static void sock_trip(uint32_t seq, void *arg)
{
    int fd = *(int *)arg;
    char buf[PXE_MSG];
    memset(buf, (int)(seq & 0xff), sizeof(buf));
    io_all(fd, buf, false, "socket ping-pong");
    io_all(fd, buf, true, "socket ping-pong");
    if ((unsigned char)buf[PXE_MSG - 1] != (seq & 0xff)) {
        px_bench_fail("socket ping-pong: wrong message back");
    }
}

static int socketpair_or_fail(int sv[2])
{
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
        px_bench_fail("socketpair: %s", strerror(errno));
    }
    return 0;
}

/* Parent <-> echo process over one socketpair. */
static stat_t direct_baseline(int iters)
{
    int s[2];
    socketpair_or_fail(s);
    int drop[] = {s[0], -1};
    pid_t echo = spawn(echo_loop, s[1], -1, drop);
    close(s[1]);
    stat_t st = measure(iters, sock_trip, &s[0]);
    close(s[0]);
    reap(echo, "echo");
    return st;
}

/* Parent <-> relay process <-> echo process, two socketpairs. */
static stat_t relayed_baseline(int iters)
{
    int a[2], b[2];
    socketpair_or_fail(a);
    socketpair_or_fail(b);
    int drop_relay[] = {a[0], b[1], -1}, drop_echo[] = {a[0], a[1], b[0], -1};
    pid_t relay = spawn(relay_loop, a[1], b[0], drop_relay);
    pid_t echo = spawn(echo_loop, b[1], -1, drop_echo);
    close(a[1]);
    close(b[0]);
    close(b[1]);
    stat_t st = measure(iters, sock_trip, &a[0]);
    close(a[0]);
    reap(relay, "relay");
    reap(echo, "echo");
    return st;
}

/* Threads: the main thread posts seq to ping, the helper posts it back to pong. */
typedef struct {
    mailbox_t ping, back;
    bool stop;
} threads_t;

static void *thread_echo(void *arg)
{
    threads_t *t = arg;
    for (uint32_t last = 0;;) {
        pthread_mutex_lock(&t->ping.lock);
        while (t->ping.seq == last && !t->stop) {
            pthread_cond_wait(&t->ping.cond, &t->ping.lock);
        }
        bool stop = t->stop;
        last = t->ping.seq;
        pthread_mutex_unlock(&t->ping.lock);
        if (stop) {
            return NULL;
        }
        mailbox_post(&t->back, last);
    }
}

static void thread_trip(uint32_t seq, void *arg)
{
    threads_t *t = arg;
    mailbox_post(&t->ping, seq);
    if (!mailbox_wait(&t->back, seq)) {
        px_bench_fail("thread ping-pong: no answer within %d s", PXE_LOST_S);
    }
}

static stat_t threads_baseline(int iters)
{
    threads_t t;
    pthread_t th;
    mailbox_init(&t.ping);
    mailbox_init(&t.back);
    t.stop = false;
    if (pthread_create(&th, NULL, thread_echo, &t) != 0) {
        px_bench_fail("pthread_create failed");
    }
    stat_t st = measure(iters, thread_trip, &t);
    pthread_mutex_lock(&t.ping.lock);
    t.stop = true;
    pthread_cond_signal(&t.ping.cond);
    pthread_mutex_unlock(&t.ping.lock);
    pthread_join(th, NULL);
    return st;
}

typedef struct {
    stat_t direct, relayed, threads;
} baselines_t;

static void baselines(baselines_t *b, int iters)
{
    b->direct = direct_baseline(iters);
    b->relayed = relayed_baseline(iters);
    b->threads = threads_baseline(iters);
}

/* ---- the PMIx runs ---- */

enum { R_LOCAL, R_CUSTOM, R_SELF, R_REG_EMPTY, R_REG_AFTER, R_N };
static const char *const r_names[R_N] = {"local", "custom", "self", "reg_empty", "reg_after"};

typedef struct {
    stat_t r[R_N];
    bool seen[R_N];
    long answered;
} run_t;

static void parse_line(char *line, void *arg)
{
    run_t *run = arg;
    char name[32];
    double med, p99;
    if (sscanf(line, "PXE answered %ld", &run->answered) == 1) {
        return;
    }
    if (sscanf(line, "PXE %31s %lf %lf", name, &med, &p99) == 3) {
        for (int i = 0; i < R_N; i++) {
            if (strcmp(name, r_names[i]) == 0 && !run->seen[i]) {
                run->r[i] = (stat_t){med * 1e-9, p99 * 1e-9};
                run->seen[i] = true;
                return;
            }
        }
    }
    px_bench_fail("unexpected client output: %s", line);
}

/* A server with an event cache of `cache` entries (< 0: the default), clients A and B. */
static int pmix_run(run_t *run, int cache, int iters)
{
    char nspace[PMIX_MAX_NSLEN + 1], a_iters[16];
    int fds[2];
    pmix_info_t extra;
    memset(&extra, 0, sizeof(extra));
    uint32_t n = (uint32_t)cache;

    memset(run, 0, sizeof(*run));
    run->answered = -1;
    if (cache >= 0) {
        PMIx_Info_load(&extra, "px.srv.evcache", &n, PMIX_UINT32);
    }
    px_bench_server_init(&extra, cache >= 0 ? 1 : 0);
    if (cache >= 0) {
        PMIx_Info_destruct(&extra);
    }
    snprintf(nspace, sizeof(nspace), "bench.event.%d.%d", (int)getpid(), cache);
    px_bench_register_job(nspace, 2);
    if (pipe2(fds, O_CLOEXEC) < 0) {
        px_bench_fail("pipe: %s", strerror(errno));
    }
    snprintf(a_iters, sizeof(a_iters), "%d", iters);
    char *args[] = {a_iters, NULL};
    for (int r = 0; r < 2; r++) {
        px_bench_start_client(nspace, r, fds[1], args);
    }
    close(fds[1]);
    px_bench_collect(fds[0], 2, parse_line, run);
    close(fds[0]);
    for (int i = 0; i < R_N; i++) {
        if (!run->seen[i]) {
            px_bench_fail("no \"%s\" result from client A", r_names[i]);
        }
    }
    /* B answered the warm-up and the timed PINGs of both ranges */
    if (run->answered != 2L * (PXE_BLOCK + iters)) {
        px_bench_fail("client B answered %ld PINGs, expected %d", run->answered,
                      2 * (PXE_BLOCK + iters));
    }
    px_bench_deregister_job(nspace, 2);
    return px_bench_server_finalize();
}

/* ---- output ---- */

static stat_t lower(stat_t a, stat_t b)
{
    return a.med <= b.med ? a : b;
}

static void print_base(const char *what, stat_t a, stat_t b)
{
    stat_t l = lower(a, b);
    printf("  %-50s %7.2f %7.2f   (before %.2f, after %.2f)\n", what, l.med * 1e6, l.p99 * 1e6,
           a.med * 1e6, b.med * 1e6);
}

/* One line: the result of each run, with its ratio to base1 (and base2, if any). */
static void print_row(const char *what, const run_t *runs, int i, stat_t base1, const char *n1,
                      const stat_t *base2, const char *n2)
{
    printf("  %-36s", what);
    for (int k = 0; k < 2; k++) {
        const stat_t *s = &runs[k].r[i];
        printf(" %s %6.2f %7.2f %5.2fx %-3s", k ? "|" : "", s->med * 1e6, s->p99 * 1e6,
               s->med / base1.med, n1);
        if (base2 != NULL) {
            printf(" %5.2fx %-3s", s->med / base2->med, n2);
        } else {
            printf(" %10s", "");
        }
    }
    printf("\n");
}

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [--iters I] [--timeout S]\n"
            "  I: timed round trips per line (default 2000, after %d untimed)\n"
            "  S: give up, kill everything and exit 1 after S seconds (default 100)\n",
            prog, PXE_BLOCK);
}

int main(int argc, char **argv)
{
    int iters = 2000, timeout_s = 100;

    if (argc == 3 && strcmp(argv[1], "--client") == 0) {
        return client_main(atoi(argv[2]));
    }
    for (int i = 1; i < argc; i++) {
        char *end;
        long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
        if (i + 1 >= argc || *end != '\0' || v <= 0 || v > 10000000 ||
            (strcmp(argv[i], "--iters") != 0 && strcmp(argv[i], "--timeout") != 0)) {
            usage(argv[0]);
            return 2;
        }
        *(argv[i][2] == 'i' ? &iters : &timeout_s) = (int)v;
        i++;
    }
    px_bench_host_start("bench_event", timeout_s);

    /* Baselines before and after the PMIx runs (forks only while no server runs). */
    baselines_t before, after;
    run_t runs[2];
    baselines(&before, iters);
    int leftovers = pmix_run(&runs[0], -1, iters);
    leftovers += pmix_run(&runs[1], 0, iters);
    baselines(&after, iters);
    stat_t direct = lower(before.direct, after.direct);
    stat_t relayed = lower(before.relayed, after.relayed);
    stat_t threads = lower(before.threads, after.threads);

    long held = 4L * (PXE_BLOCK + iters) < PXE_CACHE_DEF ? 4L * (PXE_BLOCK + iters) : PXE_CACHE_DEF;
    printf("bench_event: one node (%s), %ld cpus; %d timed round trips per line after %d\n"
           "  untimed; med = median of %d-round-trip block means, p99 of single round trips;\n"
           "  all in microseconds\n\n",
           px_bench_hostname(), sysconf(_SC_NPROCESSORS_ONLN), iters, PXE_BLOCK, PXE_BLOCK);
    printf("  baselines (%d-byte message), the lower of before/after the PMIx runs:\n", PXE_MSG);
    printf("  %-50s %7s %7s\n", "", "med", "p99");
    print_base("dir: socketpair ping-pong, 2 processes", before.direct, after.direct);
    print_base("rel: ping-pong relayed by a 3rd process (poll loop)", before.relayed,
               after.relayed);
    print_base("thr: condvar ping-pong, 2 threads", before.threads, after.threads);
    printf("\n  %-36s  %-36s | %s\n", "", "server event cache 512 (default)",
           "no cache (px.srv.evcache = 0)");
    printf("  %-36s  %6s %7s %-21s | %6s %7s %s\n", "", "med", "p99", "ratios", "med", "p99",
           "ratios");
    print_row("event round trip A-B-A, range LOCAL", runs, R_LOCAL, direct, "dir", &relayed, "rel");
    print_row("  same, custom range {B}", runs, R_CUSTOM, direct, "dir", &relayed, "rel");
    print_row("process-local event, own handler", runs, R_SELF, threads, "thr", NULL, NULL);
    print_row("PMIx_Register_event_handler, first", runs, R_REG_EMPTY, direct, "dir", &relayed,
              "rel");
    print_row("  same, after the round trips", runs, R_REG_AFTER, direct, "dir", &relayed, "rel");
    printf("\n  A event round trip = A's PMIx_Notify_event(PING) until A's main thread is woken\n"
           "  by its PONG handler: A main -> A progress thread -> server -> B progress thread\n"
           "  (handler raises PONG) -> server -> A progress thread -> condvar -> A main.\n"
           "  Registrations are blocking, for a code never raised; \"after\": the cache then\n"
           "  holds %ld events in the first run, none in the second.\n",
           held);
    fflush(stdout);
    if (leftovers) {
        fprintf(stderr, "bench_event: ERROR: %d file(s) left in the server tmpdir\n", leftovers);
        return 1;
    }
    return 0;
}
