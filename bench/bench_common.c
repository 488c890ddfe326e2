/* bench_common - shared pieces of the PMIx benchmarks (see bench_common.h): numbers, the
 * failure path, and the host of a one-node server. Main thread, plus the watchdog thread
 * (which only ever calls px_bench_fail) and the library's progress thread (latch only). */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"

/* ---- numbers ---- */

double px_bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double px_bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double px_bench_quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    int k = (int)(q * n);
    if ((double)k < q * n) {
        k++; /* k = ceil(q * n): the k-th smallest */
    }
    return v[k < 1 ? 0 : k > n ? n - 1 : k - 1];
}

/* ---- state the failure paths and the watchdog clean up ---- */

static const char *prog = "bench";
static long client_rank = -1; /* >= 0 in a client */
static char tmpdir[256];
static pid_t tracked[PX_BENCH_MAX_PROCS]; /* 0 = free slot */
static pid_t clients[PX_BENCH_MAX_PROCS]; /* by rank, since the last collect */
static int nclients;
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static int timeout_secs = 60;
static char self_path[4096];
static char host[256];

void px_bench_client_start(const char *name, pmix_rank_t rank)
{
    prog = name;
    client_rank = (long)rank;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static void remove_tmpdir(void)
{
    if (tmpdir[0] != '\0') {
        nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        tmpdir[0] = '\0';
    }
}

static int kill_children(void)
{
    int n = 0;
    for (int i = 0; i < PX_BENCH_MAX_PROCS; i++) {
        if (tracked[i] > 0) {
            kill(tracked[i], SIGKILL);
            n++;
        }
    }
    for (int i = 0; i < PX_BENCH_MAX_PROCS; i++) {
        if (tracked[i] > 0) {
            waitpid(tracked[i], NULL, 0);
            tracked[i] = 0;
        }
    }
    return n;
}

void px_bench_fail(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    int len = client_rank >= 0
                  ? snprintf(msg, sizeof(msg), "%s client rank %ld: ERROR: ", prog, client_rank)
                  : snprintf(msg, sizeof(msg), "%s: ERROR: ", prog);
    va_start(ap, fmt);
    vsnprintf(msg + len, sizeof(msg) - (size_t)len, fmt, ap);
    va_end(ap);
    if (client_rank >= 0) {
        fprintf(stderr, "%s\n", msg);
        exit(1); /* the server sees us go without finalizing and fails our peers' fences */
    }
    pthread_mutex_lock(&state_lock);
    fprintf(stderr, "%s\n", msg);
    int n = kill_children();
    if (n > 0) {
        fprintf(stderr, "%s: killed %d child process(es)\n", prog, n);
    }
    remove_tmpdir();
    _exit(1);
}

void px_bench_track(pid_t pid)
{
    for (int i = 0; i < PX_BENCH_MAX_PROCS; i++) {
        if (tracked[i] == 0) {
            tracked[i] = pid;
            return;
        }
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    px_bench_fail("more than %d child processes", PX_BENCH_MAX_PROCS);
}

void px_bench_untrack(pid_t pid)
{
    for (int i = 0; i < PX_BENCH_MAX_PROCS; i++) {
        if (tracked[i] == pid) {
            tracked[i] = 0;
        }
    }
}

/* Never hang: after timeout_secs the whole run is abandoned. A thread, not a signal
 * handler, so that cleaning up may allocate. */
static void *watchdog(void *arg)
{
    (void)arg;
    struct timespec ts = {timeout_secs, 0};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
    px_bench_fail("no result after %d s (a client or the server hangs)", timeout_secs);
    return NULL;
}

void px_bench_host_start(const char *name, int timeout_s)
{
    prog = name;
    timeout_secs = timeout_s;
    ssize_t sl = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
    if (sl <= 0) {
        px_bench_fail("cannot find my own executable: %s", strerror(errno));
    }
    self_path[sl] = '\0';
    if (gethostname(host, sizeof(host)) != 0) {
        snprintf(host, sizeof(host), "localhost");
    }
    host[sizeof(host) - 1] = '\0';
    signal(SIGPIPE, SIG_IGN);
    pthread_t wd;
    if (pthread_create(&wd, NULL, watchdog, NULL) != 0) {
        px_bench_fail("cannot start the watchdog thread");
    }
    pthread_detach(wd);
}

const char *px_bench_self(void)
{
    return self_path;
}

const char *px_bench_hostname(void)
{
    return host;
}

/* ---- the server ---- */

void px_bench_server_init(const pmix_info_t extra[], size_t nextra)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof(tmpdir), "%s/%s.XXXXXX", t != NULL && *t ? t : "/tmp", prog);
    if (mkdtemp(tmpdir) == NULL) {
        int e = errno;
        tmpdir[0] = '\0';
        px_bench_fail("mkdtemp: %s", strerror(e));
    }
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module)); /* one node: fences complete inside the server */
    pmix_info_t *info = PMIx_Info_create(2 + nextra);
    if (info == NULL) {
        px_bench_fail("out of memory");
    }
    PMIx_Info_load(&info[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    PMIx_Info_load(&info[1], PMIX_HOSTNAME, host, PMIX_STRING);
    for (size_t i = 0; i < nextra; i++) {
        PMIx_Info_xfer(&info[2 + i], &extra[i]);
    }
    pmix_status_t rc = PMIx_server_init(&module, info, 2 + nextra);
    PMIx_Info_free(info, 2 + nextra);
    if (rc != PMIX_SUCCESS) {
        px_bench_fail("PMIx_server_init failed: %s", PMIx_Error_string(rc));
    }
}

int px_bench_server_finalize(void)
{
    pmix_status_t rc = PMIx_server_finalize();
    if (rc != PMIX_SUCCESS) {
        px_bench_fail("PMIx_server_finalize failed: %s", PMIx_Error_string(rc));
    }
    pthread_mutex_lock(&state_lock); /* the watchdog must not remove it under us */
    int leftovers = 0;
    DIR *d = opendir(tmpdir);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            fprintf(stderr, "%s: note: %s/%s left behind after PMIx_server_finalize\n", prog,
                    tmpdir, e->d_name);
            leftovers++;
        }
    }
    if (d != NULL) {
        closedir(d);
    }
    remove_tmpdir();
    pthread_mutex_unlock(&state_lock);
    return leftovers;
}

void px_bench_latch_cb(pmix_status_t status, void *cbdata)
{
    px_bench_latch_t *l = cbdata;
    pthread_mutex_lock(&l->lock);
    l->status = status;
    l->done = true;
    pthread_cond_signal(&l->cond);
    pthread_mutex_unlock(&l->lock);
}

pmix_status_t px_bench_latch_wait(px_bench_latch_t *l, pmix_status_t rc)
{
    if (rc == PMIX_OPERATION_SUCCEEDED) {
        return PMIX_SUCCESS;
    }
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 10;
    pthread_mutex_lock(&l->lock);
    while (!l->done && pthread_cond_timedwait(&l->cond, &l->lock, &ts) == 0) {
    }
    rc = l->done ? l->status : PMIX_ERR_TIMEOUT;
    pthread_mutex_unlock(&l->lock);
    return rc;
}

static void add_info(void *list, const char *key, const void *val, pmix_data_type_t type)
{
    pmix_status_t rc = PMIx_Info_list_add(list, key, val, type);
    if (rc != PMIX_SUCCESS) {
        px_bench_fail("PMIx_Info_list_add(%s) failed: %s", key, PMIx_Error_string(rc));
    }
}

void px_bench_register_job(const char *nspace, int n)
{
    char *regex = NULL, *ppn = NULL, *ranks = calloc((size_t)n, 8);
    uint32_t size = (uint32_t)n;
    pmix_data_array_t da;
    pmix_status_t rc;

    if (ranks == NULL) {
        px_bench_fail("out of memory");
    }
    for (int r = 0; r < n; r++) {
        sprintf(ranks + strlen(ranks), r ? ",%d" : "%d", r);
    }
    rc = PMIx_generate_regex(host, &regex);
    if (rc != PMIX_SUCCESS) {
        px_bench_fail("PMIx_generate_regex(\"%s\") failed: %s", host, PMIx_Error_string(rc));
    }
    rc = PMIx_generate_ppn(ranks, &ppn);
    if (rc != PMIX_SUCCESS) {
        px_bench_fail("PMIx_generate_ppn(\"%s\") failed: %s", ranks, PMIx_Error_string(rc));
    }
    void *list = PMIx_Info_list_start();
    if (list == NULL) {
        px_bench_fail("out of memory");
    }
    add_info(list, PMIX_JOB_SIZE, &size, PMIX_UINT32);
    add_info(list, PMIX_UNIV_SIZE, &size, PMIX_UINT32);
    add_info(list, PMIX_NODE_MAP, regex, PMIX_STRING);
    add_info(list, PMIX_PROC_MAP, ppn, PMIX_STRING);
    rc = PMIx_Info_list_convert(list, &da);
    PMIx_Info_list_release(list);
    if (rc != PMIX_SUCCESS) {
        px_bench_fail("PMIx_Info_list_convert failed: %s", PMIx_Error_string(rc));
    }
    PX_BENCH_LATCH(l);
    rc = px_bench_latch_wait(
        &l, PMIx_server_register_nspace(nspace, n, da.array, da.size, px_bench_latch_cb, &l));
    if (rc != PMIX_SUCCESS) {
        px_bench_fail("PMIx_server_register_nspace(%s, %d ranks) failed: %s", nspace, n,
                      PMIx_Error_string(rc));
    }
    PMIx_Data_array_destruct(&da);
    free(regex);
    free(ppn);
    free(ranks);
}

void px_bench_deregister_job(const char *nspace, int n)
{
    pmix_status_t rc;
    for (int r = 0; r < n; r++) {
        pmix_proc_t proc;
        PMIx_Load_procid(&proc, nspace, (pmix_rank_t)r);
        PX_BENCH_LATCH(l);
        PMIx_server_deregister_client(&proc, px_bench_latch_cb, &l); /* void: always calls back */
        rc = px_bench_latch_wait(&l, PMIX_SUCCESS);
        if (rc != PMIX_SUCCESS) {
            px_bench_fail("PMIx_server_deregister_client(rank %d) failed: %s", r,
                          PMIx_Error_string(rc));
        }
    }
    PX_BENCH_LATCH(l);
    PMIx_server_deregister_nspace(nspace, px_bench_latch_cb, &l); /* void: always calls back */
    rc = px_bench_latch_wait(&l, PMIX_SUCCESS);
    if (rc != PMIX_SUCCESS) {
        px_bench_fail("PMIx_server_deregister_nspace(%s) failed: %s", nspace,
                      PMIx_Error_string(rc));
    }
}

void px_bench_start_client(const char *nspace, int rank, int outfd, char *const args[])
{
    extern char **environ;
    pmix_proc_t proc;
    char **env = PMIx_Argv_copy(environ);
    char *argv[32] = {self_path, "--client"};
    int argc = 2;
    pid_t parent = getpid();
    pmix_status_t rc;

    for (int i = 0; args != NULL && args[i] != NULL && argc < 31; i++) {
        argv[argc++] = args[i];
    }
    argv[argc] = NULL;
    if (nclients == PX_BENCH_MAX_PROCS) {
        px_bench_fail("more than %d clients", PX_BENCH_MAX_PROCS);
    }
    PMIx_Load_procid(&proc, nspace, (pmix_rank_t)rank);
    PX_BENCH_LATCH(l);
    rc = px_bench_latch_wait(
        &l, PMIx_server_register_client(&proc, getuid(), getgid(), NULL, px_bench_latch_cb, &l));
    if (rc != PMIX_SUCCESS) {
        px_bench_fail("PMIx_server_register_client(rank %d) failed: %s", rank,
                      PMIx_Error_string(rc));
    }
    rc = PMIx_server_setup_fork(&proc, &env);
    if (rc != PMIX_SUCCESS) {
        px_bench_fail("PMIx_server_setup_fork(rank %d) failed: %s", rank, PMIx_Error_string(rc));
    }
    pid_t pid = fork();
    if (pid < 0) {
        px_bench_fail("fork: %s", strerror(errno));
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the benchmark */
        if (getppid() != parent) {
            _exit(1);
        }
        dup2(outfd, 1);
        signal(SIGPIPE, SIG_DFL);
        execve(self_path, argv, env);
        _exit(127);
    }
    px_bench_track(pid);
    clients[nclients++] = pid;
    PMIx_Argv_free(env);
}

/* A client that ended: fine if it exited 0, the end of the run otherwise. */
static void check_client_exit(int rank, int st)
{
    if (WIFSIGNALED(st)) {
        px_bench_fail("client rank %d was killed by signal %d (%s)", rank, WTERMSIG(st),
                      strsignal(WTERMSIG(st)));
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        px_bench_fail("client rank %d exited with status %d (see its message above)", rank,
                      WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
}

void px_bench_collect(int fd, int n, void (*line)(char *text, void *arg), void *arg)
{
    static char buf[1 << 16];
    size_t have = 0;
    for (;;) {
        struct pollfd pfd = {fd, POLLIN, 0};
        int prc = poll(&pfd, 1, 100);
        if (prc < 0 && errno != EINTR) {
            px_bench_fail("poll: %s", strerror(errno));
        }
        if (prc > 0) {
            ssize_t got = read(fd, buf + have, sizeof(buf) - 1 - have);
            if (got < 0 && errno != EINTR) {
                px_bench_fail("read: %s", strerror(errno));
            }
            if (got == 0) {
                break;
            }
            if (got > 0) {
                have += (size_t)got;
                buf[have] = '\0';
                char *nl;
                while ((nl = strchr(buf, '\n')) != NULL) {
                    *nl = '\0';
                    line(buf, arg);
                    have -= (size_t)(nl + 1 - buf);
                    memmove(buf, nl + 1, have + 1);
                }
                if (have == sizeof(buf) - 1) {
                    px_bench_fail("a client line is too long");
                }
            }
        }
        for (int i = 0; i < n && i < nclients; i++) {
            int st;
            if (clients[i] > 0 && waitpid(clients[i], &st, WNOHANG) == clients[i]) {
                px_bench_untrack(clients[i]);
                clients[i] = 0;
                check_client_exit(i, st);
            }
        }
    }
    for (int i = 0; i < nclients; i++) {
        int st;
        if (clients[i] > 0) {
            if (waitpid(clients[i], &st, 0) != clients[i]) {
                px_bench_fail("waitpid(rank %d): %s", i, strerror(errno));
            }
            px_bench_untrack(clients[i]);
            clients[i] = 0;
            check_client_exit(i, st);
        }
    }
    nclients = 0;
}
