/* bench_common - what the PMIx benchmarks share: a clock and order statistics, and the
 * host side of a one-node PMIx server (public API only) that re-executes its own program
 * with --client for each rank. Host functions run on the main thread; the watchdog is a
 * thread of its own; server callbacks arrive on the library's progress thread and only
 * touch a latch. */
#ifndef PX_BENCH_COMMON_H
#define PX_BENCH_COMMON_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include <pmix.h>
#include <pmix_server.h>

#define PX_BENCH_MAX_PROCS 256 /* children tracked at once (clients and baselines) */

/* ---- numbers ---- */

double px_bench_now(void); /* seconds, CLOCK_MONOTONIC */
/* Both sort v in place. quantile: the smallest value with at least q*n values <= it. */
double px_bench_median(double *v, int n);
double px_bench_quantile(double *v, int n, double q);

/* ---- failing ---- */

/* Prints "<name>[ client rank R]: ERROR: <msg>" and exits 1. In the host it first kills and
 * reaps every tracked child and removes the server tmpdir (and uses _exit: the library's
 * progress thread may be mid-operation). */
void px_bench_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* A client process: px_bench_fail names the rank and only exits. */
void px_bench_client_start(const char *name, pmix_rank_t rank);

/* ---- the host ---- */

/* Names the program, finds its own executable and the host name, ignores SIGPIPE and
 * starts the watchdog: after timeout_s seconds everything is killed and it exits 1. */
void px_bench_host_start(const char *name, int timeout_s);
const char *px_bench_self(void);     /* path of this executable */
const char *px_bench_hostname(void); /* gethostname, or "localhost" */

/* Children the failure paths must kill: track after fork, untrack once reaped. */
void px_bench_track(pid_t pid);
void px_bench_untrack(pid_t pid);

/* PMIx_server_init with an all-NULL module, PMIX_SERVER_TMPDIR (a fresh mkdtemp
 * directory), PMIX_HOSTNAME and extra[] (borrowed). */
void px_bench_server_init(const pmix_info_t extra[], size_t nextra);
/* PMIx_server_finalize, then the tmpdir must be empty; it is removed. Returns the number of
 * files left behind (each named on stderr). */
int px_bench_server_finalize(void);

/* Waiting for a server API callback on the main thread (at most 10 s). */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
    pmix_status_t status;
} px_bench_latch_t;

#define PX_BENCH_LATCH(l)                                                                          \
    px_bench_latch_t l = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0}

void px_bench_latch_cb(pmix_status_t status, void *cbdata);
/* rc of the call; when PMIX_SUCCESS, the status its callback brought (or PMIX_ERR_TIMEOUT). */
pmix_status_t px_bench_latch_wait(px_bench_latch_t *l, pmix_status_t rc);

/* nspace with n ranks on this node: PMIX_JOB_SIZE, PMIX_UNIV_SIZE and the two maps. */
void px_bench_register_job(const char *nspace, int n);
/* Deregisters ranks 0..n-1 and then nspace. */
void px_bench_deregister_job(const char *nspace, int n);

/* Registers rank, sets up its environment and forks/execs "<self> --client args..." with
 * stdout on outfd; the child dies with the host. Tracked. */
void px_bench_start_client(const char *nspace, int rank, int outfd, char *const args[]);

/* Reads lines from fd (the clients' shared stdout) until every writer closed it, handing
 * each to line(); a client that dies or exits non-zero ends the run. Then reaps the n
 * clients started since the last collect. */
void px_bench_collect(int fd, int n, void (*line)(char *text, void *arg), void *arg);

#endif
