/*
 * pxt_iof.c - a PMIx tool for the spawn/IO forwarding tests (suite 'tool'): connects to
 * the server whose pid it is given, spawns through a pxhost started with --spawn and
 * checks the canned output of test/host/pxh_spawn.c byte for byte, its order against the
 * PMIX_EVENT_JOB_END the host raises after it, stdin pushed and echoed back, and the
 * errors. Its own messages go to stderr (stdout may carry forwarded output).
 *
 *   pxt_iof --pid P --tmpdir D MODE
 *     --handler                 Spawn_nb; PMIx_IOF_pull with a handler from inside its
 *                               callback; then push stdin (checked echo), deregister
 *     --default OUT ERR         blocking Spawn, no handler: the library writes the output
 *                               to our stdout/stderr, redirected to the files OUT / ERR
 *     --no-upcalls              Spawn and push answer PMIX_ERR_NOT_SUPPORTED
 *     --bad-args                bad input to every call (also before init)
 *     --die                     leave without PMIx_tool_finalize
 */
#include <fcntl.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix_tool.h>

#define BIG_SIZE (1024 * 1024)

/* Same generator as test/host/pxh_spawn.c. */
static unsigned char spawn_byte(size_t i)
{
    return (unsigned char)((i * 131u + (i >> 8) * 7u) & 0xff);
}

static void fnv(uint64_t *h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        *h = (*h ^ b[i]) * 1099511628211ull;
}

#define FNV0 14695981039346656037ull

/* What a stream should hold. */
static void expected(uint64_t *out_h, size_t *out_n, uint64_t *err_h, size_t *err_n)
{
    unsigned char *big = malloc(BIG_SIZE), all[256];
    for (size_t i = 0; i < BIG_SIZE; i++)
        big[i] = spawn_byte(i);
    for (int i = 0; i < 256; i++)
        all[i] = (unsigned char)i;
    *out_h = FNV0;
    fnv(out_h, "hello from rank 0\n", 18);
    const char *rep = getenv("PXH_SPAWN_REPEAT"); /* the host's volume knob */
    int k = rep ? atoi(rep) : 1;
    for (int i = 0; i < k; i++)
        fnv(out_h, big, BIG_SIZE);
    fnv(out_h, "no newline at the end", 21);
    *out_n = 18 + (size_t)k * BIG_SIZE + 21;
    *err_h = FNV0;
    fnv(err_h, all, 256);
    fnv(err_h, "diag line\n", 10);
    *err_n = 256 + 10;
    free(big);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static struct {
    bool spawned, job_end, echo_done;
    pmix_status_t spawn_status;
    pmix_nspace_t ns;
    size_t hdlr;
    pmix_status_t reg_status;
    bool registered;
    /* what the handler got, by phase */
    uint64_t out_h, err_h, echo_h;
    size_t out_n, err_n, echo_n;
    bool out_complete, err_complete;
    bool order_ok; /* at job end: both streams complete */
    size_t at_end_out_n, at_end_err_n;
    int stray; /* output of an unexpected source or channel */
} st = {.out_h = FNV0, .err_h = FNV0, .echo_h = FNV0};

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "pxt_iof: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

static bool wait_for(bool *flag)
{
    struct timespec end;
    clock_gettime(CLOCK_REALTIME, &end);
    end.tv_sec += 15;
    pthread_mutex_lock(&lock);
    while (!*flag && pthread_cond_timedwait(&cond, &lock, &end) == 0) {
    }
    bool ok = *flag;
    pthread_mutex_unlock(&lock);
    return ok;
}

static bool complete_in(const pmix_info_t *info, size_t ninfo)
{
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_IOF_COMPLETE) && PMIX_INFO_TRUE(&info[i]))
            return true;
    return false;
}

static void iof_handler(size_t id, pmix_iof_channel_t channel, pmix_proc_t *source,
                        pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
    bool complete = complete_in(info, ninfo);
    pthread_mutex_lock(&lock);
    if (id != st.hdlr && st.registered)
        st.stray++;
    if (!PMIx_Check_nspace(source->nspace, st.ns)) {
        st.stray++;
    } else if (st.job_end) {
        /* after the job's end only the echo of our stdin comes (stdout of rank 0) */
        if (channel != PMIX_FWD_STDOUT_CHANNEL || source->rank != 0)
            st.stray++;
        fnv(&st.echo_h, payload->bytes, payload->size);
        st.echo_n += payload->size;
        if (complete)
            st.echo_done = true;
    } else if (channel == PMIX_FWD_STDOUT_CHANNEL && source->rank == 0) {
        fnv(&st.out_h, payload->bytes, payload->size);
        st.out_n += payload->size;
        st.out_complete |= complete;
    } else if ((channel == PMIX_FWD_STDERR_CHANNEL && source->rank == 1) ||
               (channel == PMIX_FWD_STDDIAG_CHANNEL && source->rank == 0)) {
        fnv(&st.err_h, payload->bytes, payload->size);
        st.err_n += payload->size;
        st.err_complete |= complete;
    } else {
        st.stray++;
    }
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

static void job_end(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                    size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)status;
    (void)source;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    pthread_mutex_lock(&lock);
    st.order_ok = st.out_complete && st.err_complete;
    st.at_end_out_n = st.out_n;
    st.at_end_err_n = st.err_n;
    st.job_end = true;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void reg_done(pmix_status_t status, size_t refid, void *cbdata)
{
    (void)cbdata;
    pthread_mutex_lock(&lock);
    st.reg_status = status;
    st.hdlr = refid;
    st.registered = true;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

/* Runs on the library's loop before any output of the new job is handled. */
static void spawned(pmix_status_t status, pmix_nspace_t nspace, void *cbdata)
{
    (void)cbdata;
    pthread_mutex_lock(&lock);
    st.spawn_status = status;
    PMIX_LOAD_NSPACE(st.ns, nspace);
    pthread_mutex_unlock(&lock);
    if (status == PMIX_SUCCESS) {
        pmix_proc_t job;
        PMIx_Load_procid(&job, nspace, PMIX_RANK_WILDCARD);
        pmix_status_t rc = PMIx_IOF_pull(&job, 1, NULL, 0,
                                         PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL |
                                             PMIX_FWD_STDDIAG_CHANNEL,
                                         iof_handler, reg_done, NULL);
        if (rc != PMIX_SUCCESS)
            say("PMIx_IOF_pull in the spawn callback: %s", PMIx_Error_string(rc));
    }
    pthread_mutex_lock(&lock);
    st.spawned = true;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

static void fwd_info(pmix_info_t *info)
{
    bool yes = true;
    PMIx_Info_load(&info[0], PMIX_FWD_STDOUT, &yes, PMIX_BOOL);
    PMIx_Info_load(&info[1], PMIX_FWD_STDERR, &yes, PMIX_BOOL);
    PMIx_Info_load(&info[2], PMIX_FWD_STDDIAG, &yes, PMIX_BOOL);
}

static int register_job_end(void)
{
    pmix_status_t code = PMIX_EVENT_JOB_END;
    pmix_status_t rc = PMIx_Register_event_handler(&code, 1, NULL, 0, job_end, NULL, NULL);
    if (rc < 0) {
        say("PMIx_Register_event_handler: %s", PMIx_Error_string(rc));
        return 1;
    }
    return 0;
}

static int check_streams(const char *how, uint64_t oh, size_t on, uint64_t eh, size_t en)
{
    uint64_t xo, xe;
    size_t no, ne;
    expected(&xo, &no, &xe, &ne);
    bool ok = oh == xo && on == no && eh == xe && en == ne;
    say("%s: stdout %zu bytes fnv %016llx, stderr+diag %zu bytes fnv %016llx: %s", how, on,
        (unsigned long long)oh, en, (unsigned long long)eh, ok ? "byte-exact" : "WRONG");
    if (!ok)
        say("expected stdout %zu bytes fnv %016llx, stderr+diag %zu bytes fnv %016llx", no,
            (unsigned long long)xo, ne, (unsigned long long)xe);
    return ok ? 0 : 1;
}

static int push_data(void)
{
    pmix_proc_t target;
    PMIx_Load_procid(&target, st.ns, 0);
    size_t n = 100000;
    unsigned char *buf = malloc(n);
    for (size_t i = 0; i < n; i++)
        buf[i] = (unsigned char)(i % 253); /* NULs included */
    pmix_byte_object_t bo = {(char *)buf, n};
    pmix_status_t rc = PMIx_IOF_push(&target, 1, &bo, NULL, 0, NULL, NULL);
    say("PMIx_IOF_push %zu bytes: %s", n, PMIx_Error_string(rc));
    uint64_t h = FNV0;
    fnv(&h, buf, n);
    free(buf);
    pmix_info_t done;
    bool yes = true;
    PMIx_Info_load(&done, PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
    pmix_status_t rc2 = PMIx_IOF_push(&target, 1, NULL, &done, 1, NULL, NULL);
    PMIx_Info_destruct(&done);
    say("PMIx_IOF_push end of input: %s", PMIx_Error_string(rc2));
    if (rc != PMIX_SUCCESS || rc2 != PMIX_SUCCESS)
        return 1;
    if (!wait_for(&st.echo_done)) {
        say("the echo of our stdin never completed (%zu bytes)", st.echo_n);
        return 1;
    }
    bool ok = st.echo_h == h && st.echo_n == n;
    say("stdin echoed back: %zu bytes: %s", st.echo_n, ok ? "byte-exact" : "WRONG");
    return ok ? 0 : 1;
}

static int mode_handler(void)
{
    pmix_info_t info[3];
    pmix_app_t app;
    int fail = register_job_end();
    fwd_info(info);
    PMIx_App_construct(&app);
    app.cmd = strdup("/bin/true");
    app.maxprocs = 2;
    pmix_status_t rc = PMIx_Spawn_nb(info, 3, &app, 1, spawned, NULL);
    if (rc != PMIX_SUCCESS || !wait_for(&st.spawned)) {
        say("PMIx_Spawn_nb: %s", PMIx_Error_string(rc));
        return 1;
    }
    say("spawned %s: %s", st.ns, PMIx_Error_string(st.spawn_status));
    if (!wait_for(&st.registered) || st.reg_status != PMIX_SUCCESS) {
        say("pull registration: %s", PMIx_Error_string(st.reg_status));
        return 1;
    }
    if (!wait_for(&st.job_end)) {
        say("no job end event");
        return 1;
    }
    say("job end after all output: %s (stdout %zu bytes, stderr+diag %zu bytes at that time)",
        st.order_ok ? "yes" : "NO", st.at_end_out_n, st.at_end_err_n);
    fail |= !st.order_ok;
    fail |= check_streams("handler", st.out_h, st.out_n, st.err_h, st.err_n);
    fail |= push_data();
    rc = PMIx_IOF_deregister(st.hdlr, NULL, 0, NULL, NULL);
    say("PMIx_IOF_deregister: %s", PMIx_Error_string(rc));
    fail |= rc != PMIX_SUCCESS;
    rc = PMIx_IOF_deregister(st.hdlr, NULL, 0, NULL, NULL);
    say("PMIx_IOF_deregister again: %s", PMIx_Error_string(rc));
    fail |= rc != PMIX_ERR_NOT_FOUND;
    if (st.stray)
        say("%d stray deliveries", st.stray);
    fail |= st.stray != 0;
    PMIx_App_destruct(&app);
    for (int i = 0; i < 3; i++)
        PMIx_Info_destruct(&info[i]);
    return fail;
}

/* Read a whole file into a hash. */
static int hash_file(const char *path, uint64_t *h, size_t *n)
{
    FILE *f = fopen(path, "rb");
    char buf[65536];
    size_t k;
    *h = FNV0;
    *n = 0;
    if (f == NULL)
        return -1;
    while ((k = fread(buf, 1, sizeof(buf), f)) > 0) {
        fnv(h, buf, k);
        *n += k;
    }
    fclose(f);
    return 0;
}

static int mode_default(const char *out, const char *err)
{
    pmix_info_t info[3];
    pmix_app_t app;
    pmix_nspace_t ns;
    int fail = register_job_end();
    fwd_info(info);
    PMIx_App_construct(&app);
    app.cmd = strdup("/bin/true");
    app.maxprocs = 2;
    pmix_status_t rc = PMIx_Spawn(info, 3, &app, 1, ns);
    say("PMIx_Spawn: %s %s", PMIx_Error_string(rc), ns);
    PMIx_App_destruct(&app);
    for (int i = 0; i < 3; i++)
        PMIx_Info_destruct(&info[i]);
    if (rc != PMIX_SUCCESS)
        return 1;
    PMIX_LOAD_NSPACE(st.ns, ns);
    if (!wait_for(&st.job_end)) {
        say("no job end event");
        return 1;
    }
    /* the library wrote everything before the event was handled */
    uint64_t oh, eh;
    size_t on, en;
    if (hash_file(out, &oh, &on) != 0 || hash_file(err, &eh, &en) != 0) {
        say("cannot read %s / %s", out, err);
        return 1;
    }
    return fail | check_streams("own stdout/stderr at job end", oh, on, eh, en);
}

static int mode_no_upcalls(void)
{
    pmix_app_t app;
    pmix_nspace_t ns;
    PMIx_App_construct(&app);
    app.cmd = strdup("/bin/true");
    pmix_status_t rc = PMIx_Spawn(NULL, 0, &app, 1, ns);
    say("PMIx_Spawn without a spawn upcall: %s", PMIx_Error_string(rc));
    PMIx_App_destruct(&app);
    pmix_proc_t t;
    PMIx_Load_procid(&t, "somejob", 0);
    pmix_byte_object_t bo = {"x", 1};
    pmix_status_t rc2 = PMIx_IOF_push(&t, 1, &bo, NULL, 0, NULL, NULL);
    say("PMIx_IOF_push without a push_stdin upcall: %s", PMIx_Error_string(rc2));
    /* pull needs nothing of the host (no iof_pull upcall): the sink is the server's */
    pmix_status_t rc3 = PMIx_IOF_pull(&t, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, NULL, NULL, NULL);
    say("blocking PMIx_IOF_pull without an iof_pull upcall: %s",
        rc3 > 0 ? "a handler id" : PMIx_Error_string(rc3));
    pmix_status_t rc4 = rc3 > 0 ? PMIx_IOF_deregister((size_t)rc3, NULL, 0, NULL, NULL) : -1;
    say("PMIx_IOF_deregister: %s", PMIx_Error_string(rc4));
    return !(rc == PMIX_ERR_NOT_SUPPORTED && rc2 == PMIX_ERR_NOT_SUPPORTED && rc3 > 0 &&
             rc4 == PMIX_SUCCESS);
}

static int expect(const char *what, pmix_status_t rc, pmix_status_t want)
{
    say("%s: %s%s", what, PMIx_Error_string(rc), rc == want ? "" : " (WRONG)");
    return rc != want;
}

static void nop_spawn(pmix_status_t s, pmix_nspace_t n, void *c)
{
    (void)s;
    (void)n;
    (void)c;
}

static int bad_args(bool inited)
{
    pmix_app_t app, noc;
    pmix_nspace_t ns;
    pmix_proc_t p;
    int fail = 0;
    pmix_status_t bad = inited ? PMIX_ERR_BAD_PARAM : PMIX_ERR_INIT;
    PMIx_App_construct(&app);
    PMIx_App_construct(&noc);
    app.cmd = strdup("/bin/true");
    PMIx_Load_procid(&p, "somejob", 0);
    pmix_byte_object_t bo = {"x", 1}, empty = {NULL, 0};
    pmix_info_t push_stdin;
    bool yes = true;
    PMIx_Info_load(&push_stdin, PMIX_IOF_PUSH_STDIN, &yes, PMIX_BOOL);
    fail |= expect("Spawn NULL apps", PMIx_Spawn(NULL, 0, NULL, 1, ns), bad);
    fail |= expect("Spawn 0 apps", PMIx_Spawn(NULL, 0, &app, 0, ns), bad);
    fail |= expect("Spawn app without cmd", PMIx_Spawn(NULL, 0, &noc, 1, ns), bad);
    fail |= expect("Spawn_nb NULL apps", PMIx_Spawn_nb(NULL, 0, NULL, 1, nop_spawn, NULL), bad);
    fail |= expect("Spawn_nb without callback", PMIx_Spawn_nb(NULL, 0, &app, 1, NULL, NULL), bad);
    fail |= expect("IOF_pull NULL procs",
                   PMIx_IOF_pull(NULL, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, NULL, NULL, NULL), bad);
    fail |= expect("IOF_pull no channel", PMIx_IOF_pull(&p, 1, NULL, 0, 0, NULL, NULL, NULL), bad);
    fail |= expect("IOF_pull stdin channel",
                   PMIx_IOF_pull(&p, 1, NULL, 0, PMIX_FWD_STDIN_CHANNEL, NULL, NULL, NULL), bad);
    fail |= expect("IOF_push NULL targets", PMIx_IOF_push(NULL, 1, &bo, NULL, 0, NULL, NULL), bad);
    fail |= expect("IOF_push no data, not complete",
                   PMIx_IOF_push(&p, 1, &empty, NULL, 0, NULL, NULL), bad);
    fail |= expect("IOF_push NULL bo, not complete",
                   PMIx_IOF_push(&p, 1, NULL, NULL, 0, NULL, NULL), bad);
    if (inited) {
        /* the library reads our stdin itself: bytes given along are a contradiction */
        fail |= expect("IOF_push PMIX_IOF_PUSH_STDIN with bytes",
                       PMIx_IOF_push(&p, 1, &bo, &push_stdin, 1, NULL, NULL), bad);
        fail |= expect("IOF_deregister unknown id", PMIx_IOF_deregister(12345, NULL, 0, NULL, NULL),
                       PMIX_ERR_NOT_FOUND);
    } else {
        fail |=
            expect("IOF_deregister", PMIx_IOF_deregister(1, NULL, 0, NULL, NULL), PMIX_ERR_INIT);
    }
    PMIx_Info_destruct(&push_stdin);
    PMIx_App_destruct(&app);
    PMIx_App_destruct(&noc);
    say("bad arguments %s (%s init)", fail ? "NOT all refused" : "refused",
        inited ? "after" : "before");
    return fail;
}

int main(int argc, char **argv)
{
    const char *mode = NULL, *out = NULL, *err = NULL, *tmpdir = NULL;
    pid_t pid = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--pid") && i + 1 < argc)
            pid = (pid_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--tmpdir") && i + 1 < argc)
            tmpdir = argv[++i];
        else if (!strcmp(argv[i], "--default") && i + 2 < argc) {
            mode = argv[i];
            out = argv[++i];
            err = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1] == '-' && mode == NULL)
            mode = argv[i];
        else {
            say("bad command line at %s", argv[i]);
            return 2;
        }
    }
    if (mode == NULL || pid == 0 || tmpdir == NULL) {
        say("usage: pxt_iof --pid P --tmpdir D --handler|--default OUT ERR|--no-upcalls|"
            "--bad-args|--die");
        return 2;
    }
    int fail = 0;
    if (!strcmp(mode, "--bad-args"))
        fail |= bad_args(false);
    if (out != NULL) {
        /* our stdout/stderr become the files; messages go to the original stderr */
        int keep = dup(2);
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (keep < 0 || fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0) {
            say("cannot redirect to %s / %s", out, err);
            return 1;
        }
        close(fo);
        close(fe);
        stderr = fdopen(keep, "w");
        setvbuf(stderr, NULL, _IONBF, 0);
    }
    pmix_info_t info[2];
    PMIx_Info_load(&info[0], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    PMIx_Info_load(&info[1], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, info, 2);
    PMIx_Info_destruct(&info[0]);
    PMIx_Info_destruct(&info[1]);
    if (rc != PMIX_SUCCESS) {
        say("PMIx_tool_init: %s", PMIx_Error_string(rc));
        return 1;
    }
    say("tool %s:%u connected", me.nspace, me.rank);
    if (!strcmp(mode, "--handler"))
        fail |= mode_handler();
    else if (!strcmp(mode, "--default"))
        fail |= mode_default(out, err);
    else if (!strcmp(mode, "--no-upcalls"))
        fail |= mode_no_upcalls();
    else if (!strcmp(mode, "--bad-args"))
        fail |= bad_args(true);
    else if (!strcmp(mode, "--die")) {
        say("leaving without finalize");
        _exit(0);
    } else {
        say("unknown mode %s", mode);
        fail = 2;
    }
    rc = PMIx_tool_finalize();
    say("finalize: %s", PMIx_Error_string(rc));
    return fail || rc != PMIX_SUCCESS;
}
