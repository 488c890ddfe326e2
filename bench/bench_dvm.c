/* bench_dvm - the launch path end to end: prterun, prun on a warm DVM, sequential jobs,
 * stdout forwarding throughput, pterm and the DVM's memory after many jobs, each against a
 * baseline of plain fork/exec (or a pipe through cat) measured in the same run. Single
 * threaded; the watchdog is SIGALRM. Re-executed with --write it is the output writer. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXKIDS 256 /* children alive at once: N = 64 baselines plus a pipeline */
#define MAXREPS 64
#define MAXROWS 32

/* ---- state the exit paths need (read by the signal handler) ---- */

static char tmpdir[PATH_MAX];        /* our private TMPDIR; "" until created */
static volatile pid_t dvm_pid;       /* the running DVM, 0 if none */
static volatile pid_t kids[MAXKIDS]; /* children not yet reaped */
static int errfd = -1;               /* launchers' stderr, $tmpdir/stderr.log */
static int nullfd = -1;              /* /dev/null, O_RDWR */

/* ---- options and paths ---- */

static char self[PATH_MAX], prte[PATH_MAX], prterun[PATH_MAX], prun[PATH_MAX], pterm[PATH_MAX];
static char urifile[PATH_MAX + 16], pidfile[PATH_MAX + 16], dvmuri[PATH_MAX + 32];
static const char *rr; /* "--allow-run-as-root" as root, else NULL */
static bool quick;
static int reps = 9, seqjobs = 200, rssjobs = 1000, mbytes = 200, cycles = 5, tput_reps = 3,
           timeout_s = 900;

/* ---- the summary table ---- */

struct row {
    char what[64], value[32], base[32], ratio[16], goal[40], verdict[8];
};
static struct row rows[MAXROWS];
static int nrows;

static void add_row(const char *what, const char *value, const char *base, const char *ratio,
                    const char *goal, int met /* 1 met, 0 missed, -1 no verdict */)
{
    if (nrows == MAXROWS) {
        return;
    }
    struct row *r = &rows[nrows++];
    snprintf(r->what, sizeof r->what, "%s", what);
    snprintf(r->value, sizeof r->value, "%s", value);
    snprintf(r->base, sizeof r->base, "%s", base);
    snprintf(r->ratio, sizeof r->ratio, "%s", ratio);
    snprintf(r->goal, sizeof r->goal, "%s", goal);
    snprintf(r->verdict, sizeof r->verdict, "%s", met < 0 ? "" : met ? "met" : "MISSED");
}

/* ---- numbers ---- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- cleanup and failing ---- */

/* Async-signal-safe: kill every child and the DVM (and its process group), remove the
 * tmpdir with a forked rm. Used by the signal handler and by every exit path. */
static void cleanup(void)
{
    for (int i = 0; i < MAXKIDS; i++) {
        if (kids[i] > 0) {
            kill(kids[i], SIGKILL);
        }
    }
    pid_t d = dvm_pid;
    if (d > 1) {
        kill(-d, SIGKILL); /* it is a session (and group) leader: setsid */
        kill(d, SIGKILL);
        dvm_pid = 0;
    }
    for (int i = 0; i < MAXKIDS; i++) {
        if (kids[i] > 0) {
            waitpid(kids[i], NULL, 0);
            kids[i] = 0;
        }
    }
    if (d > 1) {
        waitpid(d, NULL, 0); /* ours: we are a child subreaper */
    }
    if (tmpdir[0] != '\0') {
        pid_t p = fork();
        if (p == 0) {
            char *const argv[] = {"/bin/rm", "-rf", tmpdir, NULL};
            execv(argv[0], argv);
            _exit(127);
        }
        if (p > 0) {
            waitpid(p, NULL, 0);
        }
        tmpdir[0] = '\0';
    }
}

static void on_signal(int sig)
{
    static const char msg[] = "bench_dvm: ERROR: watchdog expired (--timeout) or signal; "
                              "everything killed\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) {
        /* nothing to do */
    }
    cleanup();
    _exit(1);
}

/* The last bytes the launchers wrote to stderr, to explain a failure. */
static void show_stderr_tail(void)
{
    if (errfd < 0) {
        return;
    }
    off_t end = lseek(errfd, 0, SEEK_END);
    off_t start = end > 2000 ? end - 2000 : 0;
    char buf[2001];
    ssize_t n = pread(errfd, buf, (size_t)(end - start), start);
    if (n > 0) {
        buf[n] = '\0';
        fprintf(stderr, "--- last launcher stderr ---\n%s\n---\n", buf);
    }
}

static void fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "bench_dvm: ERROR: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    show_stderr_tail();
    cleanup();
    exit(1);
}

/* ---- children ---- */

static void track(pid_t p)
{
    for (int i = 0; i < MAXKIDS; i++) {
        if (kids[i] == 0) {
            kids[i] = p;
            return;
        }
    }
    kill(p, SIGKILL);
    fail("more than %d children at once", MAXKIDS);
}

static void untrack(pid_t p)
{
    for (int i = 0; i < MAXKIDS; i++) {
        if (kids[i] == p) {
            kids[i] = 0;
            return;
        }
    }
}

/* fork/exec argv with the given stdin/stdout/stderr (-1: inherit). Every fd we open is
 * O_CLOEXEC, so the child gets only these three. */
static pid_t spawn(char *const argv[], int in, int out, int err)
{
    pid_t p = fork();
    if (p < 0) {
        fail("fork: %s", strerror(errno));
    }
    if (p == 0) {
        if ((in >= 0 && dup2(in, 0) < 0) || (out >= 0 && dup2(out, 1) < 0) ||
            (err >= 0 && dup2(err, 2) < 0)) {
            _exit(126);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    track(p);
    return p;
}

static int reap(pid_t p)
{
    int st;
    while (waitpid(p, &st, 0) < 0) {
        if (errno != EINTR) {
            fail("waitpid %d: %s", (int)p, strerror(errno));
        }
    }
    untrack(p);
    return st;
}

static void reap_ok(pid_t p, const char *what)
{
    int st = reap(p);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        if (WIFSIGNALED(st)) {
            fail("%s: killed by signal %d", what, WTERMSIG(st));
        }
        fail("%s: exit status %d", what, WEXITSTATUS(st));
    }
}

/* argv builder: NULL entries (rr when not root) are skipped. */
struct args {
    char *v[32];
    char nbuf[4][24];
    int n, nb;
};

static void a_add(struct args *a, const char *s)
{
    if (s != NULL && a->n < 31) {
        a->v[a->n++] = (char *)s;
        a->v[a->n] = NULL;
    }
}

static void a_num(struct args *a, long x)
{
    snprintf(a->nbuf[a->nb], sizeof a->nbuf[0], "%ld", x);
    a_add(a, a->nbuf[a->nb++]);
}

/* ---- baselines ---- */

static char *const true_argv[] = {"/bin/true", NULL};

/* fork/exec of n /bin/true at once, then waitpid of all: seconds. */
static double forkexec_n(int n)
{
    pid_t p[MAXKIDS];
    double t0 = now();
    for (int i = 0; i < n; i++) {
        p[i] = spawn(true_argv, nullfd, nullfd, errfd);
    }
    for (int i = 0; i < n; i++) {
        reap_ok(p[i], "/bin/true");
    }
    return now() - t0;
}

/* ---- the launchers ---- */

static double run_timed(struct args *a, const char *what)
{
    double t0 = now();
    pid_t p = spawn(a->v, nullfd, nullfd, errfd);
    reap_ok(p, what);
    return now() - t0;
}

static double prterun_n(int n)
{
    struct args a = {0};
    a_add(&a, prterun);
    a_add(&a, rr);
    a_add(&a, "-n");
    a_num(&a, n);
    a_add(&a, "--stdin");
    a_add(&a, "none");
    a_add(&a, "/bin/true");
    return run_timed(&a, "prterun -n N /bin/true");
}

static void prun_args(struct args *a, int n)
{
    a_add(a, prun);
    a_add(a, rr);
    a_add(a, "--dvm-uri");
    a_add(a, dvmuri);
    a_add(a, "-n");
    a_num(a, n);
    a_add(a, "--stdin");
    a_add(a, "none");
}

static double prun_n(int n)
{
    struct args a = {0};
    prun_args(&a, n);
    a_add(&a, "/bin/true");
    return run_timed(&a, "prun -n N /bin/true");
}

static long read_pidfile(void)
{
    FILE *f = fopen(pidfile, "r");
    long pid = 0;
    if (f == NULL || fscanf(f, "%ld", &pid) != 1) {
        pid = 0;
    }
    if (f != NULL) {
        fclose(f);
    }
    return pid;
}

/* prte --daemonize; returns the seconds until it said it is ready. The daemon becomes our
 * child (we are a subreaper) once the waiting parent exits. */
static double dvm_start(void)
{
    unlink(urifile);
    unlink(pidfile);
    struct args a = {0};
    a_add(&a, prte);
    a_add(&a, rr);
    a_add(&a, "--daemonize");
    a_add(&a, "--report-uri");
    a_add(&a, urifile);
    a_add(&a, "--report-pid");
    a_add(&a, pidfile);
    double t0 = now();
    pid_t p = spawn(a.v, nullfd, nullfd, errfd);
    int st = reap(p);
    double t = now() - t0;
    long pid = read_pidfile();
    if (pid > 1) {
        dvm_pid = (pid_t)pid; /* recorded even on failure, so cleanup kills it */
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fail("prte --daemonize failed (status 0x%x)", st);
    }
    if (pid <= 1) {
        fail("prte --daemonize: no pid in %s", pidfile);
    }
    return t;
}

/* Waits (bounded) until the DVM has exited and is reaped: seconds waited, or -1. */
static double dvm_wait_gone(double limit)
{
    double t0 = now();
    for (;;) {
        int st;
        pid_t r = waitpid(dvm_pid, &st, WNOHANG);
        if (r == dvm_pid || (r < 0 && errno == ECHILD)) {
            dvm_pid = 0;
            return now() - t0;
        }
        if (now() - t0 > limit) {
            return -1;
        }
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
}

/* pterm: returns pterm's own time; *gone = until the DVM was reaped. */
static double dvm_stop(double *gone)
{
    struct args a = {0};
    a_add(&a, pterm);
    a_add(&a, rr);
    a_add(&a, "--dvm-uri");
    a_add(&a, dvmuri);
    double t0 = now();
    pid_t p = spawn(a.v, nullfd, nullfd, errfd);
    reap_ok(p, "pterm");
    double t = now() - t0;
    if (dvm_wait_gone(10.0) < 0) {
        fail("BUG: the DVM (pid %d) is still running 10 s after pterm returned", (int)dvm_pid);
    }
    if (gone != NULL) {
        *gone = now() - t0;
    }
    return t;
}

static long dvm_rss_kb(void)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)dvm_pid);
    FILE *f = fopen(path, "r");
    long kb = -1;
    if (f == NULL) {
        fail("cannot open %s: the DVM is gone", path);
    }
    while (fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "VmRSS: %ld", &kb) == 1) {
            break;
        }
    }
    fclose(f);
    return kb;
}

/* ---- the writer (this program re-executed) ---- */

static int writer(long long bytes, bool lines)
{
    static char buf[81920]; /* 1024 lines of 80 bytes */
    for (size_t i = 0; i < sizeof buf; i++) {
        buf[i] = lines && i % 80 == 79 ? '\n' : (char)('a' + i % 26);
    }
    while (bytes > 0) {
        size_t want = bytes < (long long)sizeof buf ? (size_t)bytes : sizeof buf;
        char *p = buf;
        while (want > 0) {
            ssize_t n = write(1, p, want);
            if (n < 0) {
                if (errno == EINTR) {
                    continue;
                }
                perror("bench_dvm --write");
                return 1;
            }
            p += n;
            want -= (size_t)n;
            bytes -= n;
        }
    }
    return 0;
}

/* Reads fd to EOF, counting bytes and newlines. */
static void drain(int fd, long long *bytes, long long *nls)
{
    static char buf[1 << 20];
    *bytes = *nls = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            fail("read: %s", strerror(errno));
        }
        if (n == 0) {
            break;
        }
        *bytes += n;
        for (char *p = buf, *e = buf + n; (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++) {
            (*nls)++;
        }
    }
}

static void check_bytes(const char *what, long long bytes, long long nls, long long want,
                        bool lines)
{
    long long want_nl = lines ? want / 80 : 0;
    if (bytes != want || nls != want_nl) {
        fail("BUG: %s delivered %lld bytes (%lld newlines); the writer wrote %lld (%lld)", what,
             bytes, nls, want, want_nl);
    }
}

/* writer | cat, read by us: seconds. */
static double pipe_cat(long long bytes, bool lines)
{
    int p1[2], p2[2];
    if (pipe2(p1, O_CLOEXEC) != 0 || pipe2(p2, O_CLOEXEC) != 0) {
        fail("pipe: %s", strerror(errno));
    }
    struct args w = {0};
    char nb[32];
    snprintf(nb, sizeof nb, "%lld", bytes);
    a_add(&w, self);
    a_add(&w, "--write");
    a_add(&w, nb);
    a_add(&w, lines ? "--lines" : "--raw");
    char *const cat_argv[] = {"/bin/cat", NULL};
    double t0 = now();
    pid_t pw = spawn(w.v, nullfd, p1[1], errfd);
    pid_t pc = spawn(cat_argv, p1[0], p2[1], errfd);
    close(p1[0]);
    close(p1[1]);
    close(p2[1]);
    long long got, nls;
    drain(p2[0], &got, &nls);
    close(p2[0]);
    reap_ok(pw, "writer");
    reap_ok(pc, "cat");
    double t = now() - t0;
    check_bytes("writer | cat", got, nls, bytes, lines);
    return t;
}

/* prun -n 1 writer, read by us: seconds. */
static double prun_write(long long bytes, bool lines)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
        fail("pipe: %s", strerror(errno));
    }
    struct args a = {0};
    char nb[32];
    snprintf(nb, sizeof nb, "%lld", bytes);
    prun_args(&a, 1);
    a_add(&a, self);
    a_add(&a, "--write");
    a_add(&a, nb);
    a_add(&a, lines ? "--lines" : "--raw");
    double t0 = now();
    pid_t pr = spawn(a.v, nullfd, p[1], errfd);
    close(p[1]);
    long long got, nls;
    drain(p[0], &got, &nls);
    close(p[0]);
    reap_ok(pr, "prun -n 1 writer");
    double t = now() - t0;
    check_bytes(lines ? "prun -n 1 writer --lines" : "prun -n 1 writer --raw", got, nls, bytes,
                lines);
    return t;
}

/* ---- the measures ---- */

static const int sizes[] = {1, 16, 64};
#define NSIZES 3

static void fmt_ms(char *b, size_t n, double s)
{
    snprintf(b, n, "%.2f ms", s * 1e3);
}

/* 1 and 2: launcher -n N vs fork/exec of N, interleaved per repetition. */
static void bench_launch(const char *name, double (*launch)(int), double goal64)
{
    printf("\n%s -n N /bin/true vs fork/exec of N /bin/true + waitpid (median of %d)\n", name,
           reps);
    printf("     N   fork/exec ms   %s ms    ratio\n", name);
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s];
        double b[MAXREPS], l[MAXREPS];
        launch(n); /* one untimed */
        for (int r = 0; r < reps; r++) {
            b[r] = forkexec_n(n);
            l[r] = launch(n);
        }
        double mb = median(b, reps), ml = median(l, reps), ratio = ml / mb;
        printf("  %4d   %12.2f   %*.2f   %6.2fx\n", n, mb * 1e3, (int)strlen(name) + 3, ml * 1e3,
               ratio);
        fflush(stdout);
        char what[64], v[32], bs[32], rs[16], goal[40];
        snprintf(what, sizeof what, "%s -n %d /bin/true", name, n);
        fmt_ms(v, sizeof v, ml);
        fmt_ms(bs, sizeof bs, mb);
        snprintf(rs, sizeof rs, "%.2fx", ratio);
        if (n == 64) {
            snprintf(goal, sizeof goal, "<= %.1fx fork/exec", goal64);
        } else {
            goal[0] = '\0';
        }
        add_row(what, v, bs, rs, goal, n == 64 ? ratio <= goal64 : -1);
    }
}

/* 3: K sequential prun -n 1 vs K sequential fork/exec. */
static void bench_seq(void)
{
    double t0 = now();
    for (int i = 0; i < seqjobs; i++) {
        forkexec_n(1);
    }
    double tb = now() - t0;
    t0 = now();
    for (int i = 0; i < seqjobs; i++) {
        prun_n(1);
    }
    double tp = now() - t0;
    double jb = seqjobs / tb, jp = seqjobs / tp;
    printf("\nsequential jobs: %d x prun -n 1 /bin/true vs %d x fork/exec+waitpid\n", seqjobs,
           seqjobs);
    printf("  fork/exec %.0f jobs/s, prun %.0f jobs/s (%.2f ms per job), ratio %.3f\n", jb, jp,
           tp / seqjobs * 1e3, jp / jb);
    char v[32], bs[32], rs[16];
    snprintf(v, sizeof v, "%.0f jobs/s", jp);
    snprintf(bs, sizeof bs, "%.0f jobs/s", jb);
    snprintf(rs, sizeof rs, "%.3f", jp / jb);
    add_row("sequential prun -n 1", v, bs, rs, ">= 200 jobs/s", jp >= 200);
}

/* 4: stdout throughput. */
static void bench_tput(void)
{
    long long bytes = (long long)mbytes * 1000000;
    printf("\nstdout throughput: %d MB from a writer, read by this program (median of %d)\n",
           mbytes, tput_reps);
    printf("  mode     writer|cat MB/s   prun -n 1 MB/s   ratio\n");
    for (int m = 0; m < 2; m++) {
        bool lines = m == 0;
        double b[MAXREPS], p[MAXREPS];
        for (int r = 0; r < tput_reps; r++) {
            b[r] = pipe_cat(bytes, lines);
            p[r] = prun_write(bytes, lines);
        }
        double mbb = mbytes / median(b, tput_reps), mbp = mbytes / median(p, tput_reps);
        printf("  %-6s   %15.1f   %14.1f   %5.2f\n", lines ? "lines" : "raw", mbb, mbp, mbp / mbb);
        fflush(stdout);
        char what[64], v[32], bs[32], rs[16];
        snprintf(what, sizeof what, "stdout %d MB, %s", mbytes,
                 lines ? "80-byte lines" : "no newline");
        snprintf(v, sizeof v, "%.1f MB/s", mbp);
        snprintf(bs, sizeof bs, "%.1f MB/s", mbb);
        snprintf(rs, sizeof rs, "%.2f", mbp / mbb);
        add_row(what, v, bs, rs, ">= 0.80 of | cat", mbp / mbb >= 0.8);
    }
}

/* 5: DVM start and pterm cycles (each DVM idle: no job run). */
static void bench_pterm(void)
{
    double st[MAXREPS], pt[MAXREPS], gone[MAXREPS], b[MAXREPS];
    for (int c = 0; c < cycles; c++) {
        b[c] = forkexec_n(1);
        st[c] = dvm_start();
        pt[c] = dvm_stop(&gone[c]);
    }
    double mb = median(b, cycles), ms = median(st, cycles), mp = median(pt, cycles),
           mg = median(gone, cycles);
    printf("\nidle DVM start/stop, median of %d cycles (baseline: fork/exec+waitpid of one "
           "/bin/true, %.2f ms)\n",
           cycles, mb * 1e3);
    printf("  prte --daemonize until ready %.2f ms; pterm %.2f ms (%.1fx); until the DVM is "
           "reaped %.2f ms\n",
           ms * 1e3, mp * 1e3, mp / mb, mg * 1e3);
    char v[32], bs[32], rs[16];
    fmt_ms(v, sizeof v, mg);
    fmt_ms(bs, sizeof bs, mb);
    snprintf(rs, sizeof rs, "%.1fx", mg / mb);
    add_row("pterm, idle DVM, until reaped", v, bs, rs, "< 100 ms", mg < 0.1);
    fmt_ms(v, sizeof v, ms);
    snprintf(rs, sizeof rs, "%.1fx", ms / mb);
    add_row("prte --daemonize until ready", v, bs, rs, "", -1);
}

/* 6: the DVM's RSS: fresh, after 100 and after rssjobs jobs. */
static void bench_rss(void)
{
    dvm_start();
    long r0 = dvm_rss_kb(), r100 = -1;
    double t0 = now();
    for (int i = 1; i <= rssjobs; i++) {
        prun_n(1);
        if (i == 100) {
            r100 = dvm_rss_kb();
        }
    }
    double t = now() - t0;
    long rend = dvm_rss_kb();
    dvm_stop(NULL);
    printf("\nDVM VmRSS: fresh %ld kB, after 100 jobs %ld kB, after %d jobs %ld kB "
           "(%d jobs at %.0f jobs/s)\n",
           r0, r100, rssjobs, rend, rssjobs, rssjobs / t);
    char what[64], v[32], bs[32], rs[16];
    snprintf(v, sizeof v, "%ld kB", r100);
    snprintf(bs, sizeof bs, "%ld kB fresh", r0);
    snprintf(rs, sizeof rs, "%+ld kB", r100 - r0);
    add_row("DVM RSS after 100 jobs", v, bs, rs, "", -1);
    snprintf(what, sizeof what, "DVM RSS after %d jobs", rssjobs);
    snprintf(v, sizeof v, "%ld kB", rend);
    snprintf(bs, sizeof bs, "%ld kB @100", r100);
    snprintf(rs, sizeof rs, "%+ld kB", rend - r100);
    add_row(what, v, bs, rs, "flat (< 8 MB over @100)", r100 >= 0 ? rend - r100 < 8192 : -1);
}

/* ---- main ---- */

static void usage(void)
{
    fprintf(stderr,
            "usage: bench_dvm [--quick] [--bindir DIR] [--reps R] [--jobs K] [--rss-jobs M]\n"
            "                 [--mb MB] [--cycles C] [--timeout S]\n"
            "  defaults: R 9, K 200, M 1000, MB 200, C 5, S 900; --quick: 3, 50, 100, 20, 2\n"
            "  DIR: where prte, prterun, prun, pterm are (default <this dir>/../cli)\n"
            "  (bench_dvm --write BYTES --lines|--raw is the output writer)\n");
    exit(2);
}

static void set_tool(char *dst, const char *dir, const char *name)
{
    snprintf(dst, PATH_MAX, "%s/%s", dir, name);
    if (access(dst, X_OK) != 0) {
        fprintf(stderr, "bench_dvm: ERROR: %s not found or not executable (use --bindir)\n", dst);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--write") == 0) {
        return writer(atoll(argv[2]), strcmp(argv[3], "--lines") == 0);
    }
    const char *bindir = NULL;
    int set_reps = 0, set_jobs = 0, set_rss = 0, set_mb = 0, set_cycles = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (strcmp(o, "--quick") == 0) {
            quick = true;
            continue;
        }
        if (i + 1 >= argc) {
            usage();
        }
        const char *v = argv[++i];
        if (strcmp(o, "--bindir") == 0) {
            bindir = v;
        } else if (strcmp(o, "--reps") == 0) {
            set_reps = atoi(v);
        } else if (strcmp(o, "--jobs") == 0) {
            set_jobs = atoi(v);
        } else if (strcmp(o, "--rss-jobs") == 0) {
            set_rss = atoi(v);
        } else if (strcmp(o, "--mb") == 0) {
            set_mb = atoi(v);
        } else if (strcmp(o, "--cycles") == 0) {
            set_cycles = atoi(v);
        } else if (strcmp(o, "--timeout") == 0) {
            timeout_s = atoi(v);
        } else {
            usage();
        }
    }
    if (quick) {
        reps = 3, seqjobs = 50, rssjobs = 100, mbytes = 20, cycles = 2, tput_reps = 1;
    }
    reps = set_reps > 0 ? set_reps : reps;
    seqjobs = set_jobs > 0 ? set_jobs : seqjobs;
    rssjobs = set_rss > 0 ? set_rss : rssjobs;
    mbytes = set_mb > 0 ? set_mb : mbytes;
    cycles = set_cycles > 0 ? set_cycles : cycles;
    if (reps > MAXREPS || cycles > MAXREPS || timeout_s <= 0 || rssjobs < 100) {
        fprintf(stderr, "bench_dvm: ERROR: reps/cycles at most %d, --rss-jobs at least 100\n",
                MAXREPS);
        return 2;
    }

    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        perror("bench_dvm: readlink /proc/self/exe");
        return 1;
    }
    self[n] = '\0';
    char defdir[PATH_MAX];
    if (bindir == NULL) {
        snprintf(defdir, sizeof defdir, "%s", self);
        char *slash = strrchr(defdir, '/');
        *slash = '\0';
        snprintf(defdir + strlen(defdir), sizeof defdir - strlen(defdir), "/../cli");
        bindir = defdir;
    }
    set_tool(prte, bindir, "prte");
    set_tool(prterun, bindir, "prterun");
    set_tool(prun, bindir, "prun");
    set_tool(pterm, bindir, "pterm");
    rr = geteuid() == 0 ? "--allow-run-as-root" : NULL;

    /* The exit paths: watchdog, signals, and we adopt the daemonized DVM. */
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGALRM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        perror("bench_dvm: prctl(PR_SET_CHILD_SUBREAPER)");
        return 1;
    }
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/pxbdvm.XXXXXX", base != NULL && *base ? base : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        perror("bench_dvm: mkdtemp");
        tmpdir[0] = '\0';
        return 1;
    }
    alarm((unsigned)timeout_s);
    setenv("TMPDIR", tmpdir, 1); /* rendezvous files of our DVM only */
    snprintf(urifile, sizeof urifile, "%s/dvm.uri", tmpdir);
    snprintf(pidfile, sizeof pidfile, "%s/dvm.pid", tmpdir);
    snprintf(dvmuri, sizeof dvmuri, "file:%s", urifile);
    char errpath[PATH_MAX + 16];
    snprintf(errpath, sizeof errpath, "%s/stderr.log", tmpdir);
    errfd = open(errpath, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    nullfd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (errfd < 0 || nullfd < 0) {
        fail("open: %s", strerror(errno));
    }

    printf("bench_dvm: %s%d reps, %d sequential jobs, %d MB, %d cycles, RSS after %d jobs; "
           "%ld cpus; tools in %s\n",
           quick ? "--quick: " : "", reps, seqjobs, mbytes, cycles, rssjobs,
           sysconf(_SC_NPROCESSORS_ONLN), bindir);
    fflush(stdout);

    bench_launch("prterun", prterun_n, 1.5);
    dvm_start();
    prun_n(1); /* warm */
    bench_launch("prun", prun_n, 1.3);
    bench_seq();
    bench_tput();
    dvm_stop(NULL);
    bench_pterm();
    bench_rss();

    printf("\nsummary (goals are targets to report against, not pass/fail)\n");
    printf("  %-34s %14s %16s %10s  %-24s %s\n", "measure", "value", "baseline", "ratio", "goal",
           "");
    for (int i = 0; i < nrows; i++) {
        struct row *r = &rows[i];
        printf("  %-34s %14s %16s %10s  %-24s %s\n", r->what, r->value, r->base, r->ratio, r->goal,
               r->verdict);
    }
    alarm(0);
    /* Left behind: files in our TMPDIR (the DVMs are stopped; only our own stderr.log should
     * remain) and processes adopted by us (the subreaper) once their parent exited. */
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    int nleft = 0;
    while (d != NULL && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            strcmp(e->d_name, "stderr.log") != 0) {
            printf("%s %s", nleft++ == 0 ? "\nnote: left in TMPDIR after pterm:" : ",", e->d_name);
        }
    }
    if (d != NULL) {
        closedir(d);
    }
    if (nleft > 0) {
        printf("\n");
    }
    int orphans = 0;
    while (waitpid(-1, NULL, WNOHANG) > 0) { /* nothing of ours is left to reap by pid */
        orphans++;
    }
    if (orphans > 0) {
        printf("\nnote: %d orphaned processes were adopted and reaped by this program\n", orphans);
    }
    /* launchers' stderr: anything there is worth seeing */
    off_t errlen = lseek(errfd, 0, SEEK_END);
    if (errlen > 0) {
        printf("\nnote: the launchers wrote %lld bytes to stderr:\n", (long long)errlen);
        fflush(stdout);
        show_stderr_tail();
    }
    cleanup();
    return 0;
}
