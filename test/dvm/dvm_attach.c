/* dvm_attach - a tool that attaches to a running DVM the way a debugger does (default
 * rendezvous search in $TMPDIR), for test/dvm/t_attach.sh. Public PMIx API only.
 *   watch NS          register for JOB_START, LAUNCH_COMPLETE and JOB_END naming job NS
 *                     (PMIX_EVENT_AFFECTED_PROC NS:*), print "registered", then each event
 *                     as "event NAME ns=N ts=ok|missing" (JOB_END adds "status=S proc=N:R
 *                     exit=C"); exit 0 after JOB_END, 3 when none came within 60 s
 *   spawn N WHAT      spawn N x "dvm_app exit 0" asking WHAT: "events"
 *                     (PMIX_NOTIFY_JOB_EVENTS), "end" (PMIX_NOTIFY_COMPLETION), "log"
 *                     (PMIX_LOG_JOB_EVENTS + PMIX_NOTIFY_COMPLETION), "logend"
 *                     (PMIX_LOG_COMPLETION + PMIX_NOTIFY_COMPLETION); a handler for the
 *                     three codes without naming the job prints "event NAME"; prints
 *                     "spawned NS" and exits after JOB_END ("no JOB_END": exit 3, 30 s)
 *   stdin N FWD ACT... spawn N x "dvm_app cat" with PMIX_FWD_STDIN FWD (a rank, or "all"),
 *                     PMIX_FWD_STDOUT (their output comes to our stdout) and
 *                     PMIX_NOTIFY_COMPLETION, then act: push:R:TEXT (PMIx_IOF_push of
 *                     "TEXT\n" to rank R or "all"), close:R (PMIX_IOF_COMPLETE), own:R
 *                     (PMIX_IOF_PUSH_STDIN: the library forwards our stdin), each printing
 *                     "ACT R: STATUS" on stderr; exit after JOB_END (3 without in 60 s)
 *   writeafter F N [G] (an application, no PMIx) wait up to 60 s for file F, then write N
 *                     bytes to stdout: 64-byte lines, each its number in 63 digits; then
 *                     wait for file G
 *   phases F N        (an application, no PMIx) write N bytes of 64-byte lines "A<62
 *                     digits>\n", wait up to 60 s for file F.1, write N bytes of "B"
 *                     lines, wait for F.2, write N bytes of "C" lines
 *   pull NS FILE OPT... PMIx_IOF_pull the stdout of job NS (every rank) into FILE, with
 *                     OPT: copy (PMIX_IOF_COPY), redirect (PMIX_IOF_REDIRECT), oldest /
 *                     newest (PMIX_IOF_DROP_*), cache=N (PMIX_IOF_CACHE_SIZE), stderr /
 *                     stddiag (that channel instead), tag / rank / ts / xml / raw
 *                     (PMIX_IOF_TAG/RANK/TIMESTAMP/XML_OUTPUT, PMIX_IOF_OUTPUT_RAW),
 *                     bsize=N / btime=S (PMIX_IOF_BUFFERING_SIZE/TIME), both (stdout and
 *                     stderr), dir=D / file=F (PMIX_IOF_OUTPUT_TO_DIRECTORY/_TO_FILE),
 *                     pattern / merge / fileonly (PMIX_IOF_FILE_PATTERN,
 *                     PMIX_IOF_MERGE_STDERR_STDOUT, PMIX_IOF_FILE_ONLY), until=N or
 *                     lines=N (see below; the size of each callback's bytes goes to
 *                     FILE.sizes, one per line); a failed pull
 *                     prints "pull: STATUS" (exit 1); else print "pulled"; print each
 *                     PMIX_ERR_IOF_FAILURE as "iof failure: TEXT"; at the job's JOB_END
 *                     print "received B bytes" and exit (3 without JOB_END in 60 s); with
 *                     until=N (lines=N), once N bytes (newlines) came: PMIx_IOF_deregister, print
 *                     "deregistered" and "received B bytes", exit (3 after 60 s)
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix_tool.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static bool ended, registered_ok;

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "dvm_attach: %s: %s\n", what, PMIx_Error_string(rc));
    exit(99);
}

static void tool_init(void)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_tool_init", rc);
    }
}

/* A blocking registration of fn for code alone. */
static void register_one(pmix_status_t code, pmix_notification_fn_t fn)
{
    pmix_status_t rc = PMIx_Register_event_handler(&code, 1, NULL, 0, fn, NULL, NULL);
    if (rc < 0) {
        die(PMIx_Error_string(code), rc);
    }
}

static const pmix_info_t *find(const pmix_info_t *info, size_t ninfo, const char *key)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], key)) {
            return &info[i];
        }
    }
    return NULL;
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)source;
    (void)results;
    (void)nresults;
    const pmix_info_t *ns = find(info, ninfo, PMIX_NSPACE);
    const pmix_info_t *ts = find(info, ninfo, PMIX_EVENT_TIMESTAMP);
    pthread_mutex_lock(&lock);
    printf("event %s ns=%s ts=%s", PMIx_Error_string(status),
           ns != NULL && ns->value.type == PMIX_STRING ? ns->value.data.string : "missing",
           ts != NULL && ts->value.type == PMIX_TIME && ts->value.data.time > 0 ? "ok" : "missing");
    if (status == PMIX_EVENT_JOB_END) {
        const pmix_info_t *st = find(info, ninfo, PMIX_JOB_TERM_STATUS);
        const pmix_info_t *proc = find(info, ninfo, PMIX_PROCID);
        const pmix_info_t *ex = find(info, ninfo, PMIX_EXIT_CODE);
        int code = -1;
        if (ex != NULL) {
            PMIx_Value_get_number(&ex->value, &code, PMIX_INT);
        }
        printf(" status=%s", st != NULL && st->value.type == PMIX_STATUS
                                 ? PMIx_Error_string(st->value.data.status)
                                 : "missing");
        if (proc != NULL && proc->value.type == PMIX_PROC) {
            const pmix_proc_t *p = proc->value.data.proc;
            if (p->rank == PMIX_RANK_WILDCARD) {
                printf(" proc=%s:*", p->nspace);
            } else {
                printf(" proc=%s:%u", p->nspace, p->rank);
            }
        } else {
            printf(" proc=missing");
        }
        printf(" exit=%d", code);
        ended = true;
        pthread_cond_broadcast(&cond);
    }
    printf("\n");
    fflush(stdout);
    pthread_mutex_unlock(&lock);
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

static void on_registered(pmix_status_t status, size_t ref, void *cbdata)
{
    (void)ref;
    (void)cbdata;
    pthread_mutex_lock(&lock);
    registered_ok = status == PMIX_SUCCESS;
    if (!registered_ok) {
        fprintf(stderr, "dvm_attach: registration: %s\n", PMIx_Error_string(status));
        exit(98);
    }
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

/* Wait (secs) until JOB_END came: 0, else 3 with "no JOB_END". */
static int wait_end(int secs)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += secs;
    pthread_mutex_lock(&lock);
    while (!ended && pthread_cond_timedwait(&cond, &lock, &until) == 0) {
    }
    bool got = ended;
    pthread_mutex_unlock(&lock);
    if (!got) {
        printf("no JOB_END\n");
        return 3;
    }
    return 0;
}

/* Register on_event for the three lifecycle codes (naming job ns unless NULL) and wait
 * for the registration's callback. */
static void register_life(const char *ns)
{
    pmix_status_t codes[] = {PMIX_EVENT_JOB_START, PMIX_LAUNCH_COMPLETE, PMIX_EVENT_JOB_END};
    pmix_info_t info;
    pmix_proc_t job;
    size_t ninfo = 0;
    if (ns != NULL) {
        PMIx_Load_procid(&job, ns, PMIX_RANK_WILDCARD);
        PMIX_INFO_LOAD(&info, PMIX_EVENT_AFFECTED_PROC, &job, PMIX_PROC);
        ninfo = 1;
    }
    pmix_status_t rc = PMIx_Register_event_handler(codes, 3, ninfo ? &info : NULL, ninfo, on_event,
                                                   on_registered, NULL);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_Register_event_handler", rc);
    }
    pthread_mutex_lock(&lock);
    while (!registered_ok) {
        pthread_cond_wait(&cond, &lock);
    }
    printf("registered\n");
    fflush(stdout);
    pthread_mutex_unlock(&lock);
    if (ninfo) {
        PMIX_INFO_DESTRUCT(&info);
    }
}

static int watch(const char *ns)
{
    tool_init();
    register_life(ns);
    int code = wait_end(60);
    PMIx_tool_finalize();
    return code;
}

/* dvm_app, beside us (self: our argv[0]). */
static void sibling_app(const char *self, char *out, size_t size)
{
    snprintf(out, size, "%s", self);
    char *slash = strrchr(out, '/');
    size_t at = slash != NULL ? (size_t)(slash + 1 - out) : 0;
    snprintf(out + at, size - at, "dvm_app");
}

static int spawn(const char *self, int n, const char *what)
{
    tool_init();
    pmix_status_t rc;
    register_life(NULL);
    char app_path[4096];
    sibling_app(self, app_path, sizeof(app_path));
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(app_path);
    char *argv[] = {app_path, "exit", "0", NULL};
    app.argv = PMIx_Argv_copy(argv);
    app.maxprocs = n;
    bool yes = true;
    pmix_info_t jinfo[2];
    size_t nj = 0;
    if (strcmp(what, "events") == 0) {
        PMIX_INFO_LOAD(&jinfo[nj++], PMIX_NOTIFY_JOB_EVENTS, &yes, PMIX_BOOL);
    } else if (strcmp(what, "end") == 0) {
        PMIX_INFO_LOAD(&jinfo[nj++], PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
    } else if (strcmp(what, "log") == 0 || strcmp(what, "logend") == 0) {
        PMIX_INFO_LOAD(&jinfo[nj++], PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
        PMIX_INFO_LOAD(&jinfo[nj++], what[3] ? PMIX_LOG_COMPLETION : PMIX_LOG_JOB_EVENTS, &yes,
                       PMIX_BOOL);
    } else {
        fprintf(stderr, "dvm_attach: spawn: unknown %s\n", what);
        return 2;
    }
    pmix_nspace_t ns;
    rc = PMIx_Spawn(jinfo, nj, &app, 1, ns);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_Spawn", rc);
    }
    pthread_mutex_lock(&lock);
    printf("spawned %s\n", ns);
    fflush(stdout);
    pthread_mutex_unlock(&lock);
    int code = wait_end(30);
    for (size_t i = 0; i < nj; i++) {
        PMIX_INFO_DESTRUCT(&jinfo[i]);
    }
    PMIX_APP_DESTRUCT(&app);
    PMIx_tool_finalize();
    return code;
}

static int wait_file(const char *file);

/* n bytes of 64-byte lines to stdout: each its number in 63 digits, or (c not 0) c and
 * the number in 62 digits. */
static int write_lines(char c, long long n)
{
    static char buf[65536 + 1]; /* + the NUL snprintf writes after a last line */
    long long line = 0;
    while (n > 0) {
        size_t len = 0;
        while (len + 64 < sizeof(buf) && (long long)len < n) {
            if (c != 0) {
                snprintf(buf + len, 65, "%c%062lld\n", c, line++);
            } else {
                snprintf(buf + len, 65, "%063lld\n", line++);
            }
            len += 64;
        }
        for (size_t off = 0; off < len;) {
            ssize_t w = write(1, buf + off, len - off);
            if (w < 0 && errno == EINTR) {
                continue;
            }
            if (w <= 0) {
                return 4;
            }
            off += (size_t)w;
        }
        n -= (long long)len;
    }
    return 0;
}

static int writeafter(const char *file, long long n, const char *then)
{
    int rc = wait_file(file) != 0 ? 3 : write_lines(0, n);
    return rc != 0 || then == NULL ? rc : wait_file(then);
}

static int wait_file(const char *file)
{
    for (int i = 0; access(file, F_OK) != 0; i++) {
        if (i == 60 * 20) {
            fprintf(stderr, "dvm_attach: %s never appeared\n", file);
            return 3;
        }
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

static int phases(const char *f, long long n)
{
    char path[4096];
    int rc = write_lines('A', n);
    snprintf(path, sizeof(path), "%s.1", f);
    rc = rc ? rc : wait_file(path);
    rc = rc ? rc : write_lines('B', n);
    snprintf(path, sizeof(path), "%s.2", f);
    rc = rc ? rc : wait_file(path);
    return rc ? rc : write_lines('C', n);
}

static FILE *pulled_to, *sizes_to;
static long long received, until = -1, nlines, until_lines = -1;

static bool pull_done(void)
{
    return (until >= 0 && received >= until) || (until_lines >= 0 && nlines >= until_lines);
}

static void on_output(size_t iofhdlr, pmix_iof_channel_t channel, pmix_proc_t *source,
                      pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
    (void)iofhdlr;
    (void)channel;
    (void)source;
    (void)info;
    (void)ninfo;
    pthread_mutex_lock(&lock);
    if (pulled_to != NULL && payload != NULL && payload->size > 0) {
        fwrite(payload->bytes, 1, payload->size, pulled_to);
        fflush(pulled_to);
        fprintf(sizes_to, "%zu\n", payload->size);
        fflush(sizes_to);
        received += (long long)payload->size;
        for (size_t i = 0; i < payload->size; i++) {
            nlines += payload->bytes[i] == '\n';
        }
        if (pull_done()) {
            pthread_cond_broadcast(&cond);
        }
    }
    pthread_mutex_unlock(&lock);
}

static void on_iof_failure(size_t id, pmix_status_t status, const pmix_proc_t *source,
                           pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                           pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)status;
    (void)source;
    (void)results;
    (void)nresults;
    const pmix_info_t *m = find(info, ninfo, PMIX_EVENT_TEXT_MESSAGE);
    pthread_mutex_lock(&lock);
    printf("iof failure: ");
    for (const char *c = m != NULL && m->value.type == PMIX_STRING ? m->value.data.string : "?"; *c;
         c++) {
        putchar(*c == '\n' ? ' ' : *c);
    }
    printf("%s\n", find(info, ninfo, PMIX_FWD_STDOUT) != NULL ? " [stdout]" : "");
    fflush(stdout);
    pthread_mutex_unlock(&lock);
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

static int pull(const char *ns, const char *file, char **opts, int nopts)
{
    char sizes[4096];
    snprintf(sizes, sizeof(sizes), "%s.sizes", file);
    pulled_to = fopen(file, "w");
    sizes_to = fopen(sizes, "w");
    if (pulled_to == NULL || sizes_to == NULL) {
        perror(file);
        return 2;
    }
    tool_init();
    pmix_status_t rc;
    register_one(PMIX_ERR_IOF_FAILURE, on_iof_failure);
    pmix_info_t dirs[12];
    size_t nd = 0;
    bool yes = true;
    pmix_iof_channel_t channel = PMIX_FWD_STDOUT_CHANNEL;
    for (int i = 0; i < nopts && nd < 12; i++) {
        if (strcmp(opts[i], "copy") == 0) {
            PMIX_INFO_LOAD(&dirs[nd++], PMIX_IOF_COPY, &yes, PMIX_BOOL);
        } else if (strcmp(opts[i], "redirect") == 0) {
            PMIX_INFO_LOAD(&dirs[nd++], PMIX_IOF_REDIRECT, &yes, PMIX_BOOL);
        } else if (strcmp(opts[i], "stderr") == 0) {
            channel = PMIX_FWD_STDERR_CHANNEL;
        } else if (strcmp(opts[i], "stddiag") == 0) {
            channel = PMIX_FWD_STDDIAG_CHANNEL;
        } else if (strcmp(opts[i], "both") == 0) {
            channel = PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL;
        } else if (strncmp(opts[i], "dir=", 4) == 0) {
            PMIX_INFO_LOAD(&dirs[nd++], PMIX_IOF_OUTPUT_TO_DIRECTORY, opts[i] + 4, PMIX_STRING);
        } else if (strncmp(opts[i], "file=", 5) == 0) {
            PMIX_INFO_LOAD(&dirs[nd++], PMIX_IOF_OUTPUT_TO_FILE, opts[i] + 5, PMIX_STRING);
        } else if (strcmp(opts[i], "pattern") == 0) {
            PMIX_INFO_LOAD(&dirs[nd++], PMIX_IOF_FILE_PATTERN, &yes, PMIX_BOOL);
        } else if (strcmp(opts[i], "merge") == 0) {
            PMIX_INFO_LOAD(&dirs[nd++], PMIX_IOF_MERGE_STDERR_STDOUT, &yes, PMIX_BOOL);
        } else if (strcmp(opts[i], "fileonly") == 0) {
            PMIX_INFO_LOAD(&dirs[nd++], PMIX_IOF_FILE_ONLY, &yes, PMIX_BOOL);
        } else if (strncmp(opts[i], "until=", 6) == 0) {
            until = atoll(opts[i] + 6);
        } else if (strncmp(opts[i], "lines=", 6) == 0) {
            until_lines = atoll(opts[i] + 6);
        } else if (strcmp(opts[i], "tag") == 0 || strcmp(opts[i], "rank") == 0 ||
                   strcmp(opts[i], "ts") == 0 || strcmp(opts[i], "xml") == 0 ||
                   strcmp(opts[i], "raw") == 0) {
            const char *key = opts[i][0] == 't' && opts[i][1] == 'a' ? PMIX_IOF_TAG_OUTPUT
                              : opts[i][0] == 'r' && opts[i][1] == 'a' && opts[i][2] == 'n'
                                  ? PMIX_IOF_RANK_OUTPUT
                              : opts[i][0] == 't' ? PMIX_IOF_TIMESTAMP_OUTPUT
                              : opts[i][0] == 'x' ? PMIX_IOF_XML_OUTPUT
                                                  : PMIX_IOF_OUTPUT_RAW;
            PMIX_INFO_LOAD(&dirs[nd++], key, &yes, PMIX_BOOL);
        } else if (strncmp(opts[i], "bsize=", 6) == 0 || strncmp(opts[i], "btime=", 6) == 0) {
            uint32_t n = (uint32_t)strtoul(opts[i] + 6, NULL, 10);
            PMIX_INFO_LOAD(&dirs[nd++],
                           opts[i][1] == 's' ? PMIX_IOF_BUFFERING_SIZE : PMIX_IOF_BUFFERING_TIME,
                           &n, PMIX_UINT32);
        } else if (strcmp(opts[i], "oldest") == 0) {
            PMIX_INFO_LOAD(&dirs[nd++], PMIX_IOF_DROP_OLDEST, &yes, PMIX_BOOL);
        } else if (strcmp(opts[i], "newest") == 0) {
            PMIX_INFO_LOAD(&dirs[nd++], PMIX_IOF_DROP_NEWEST, &yes, PMIX_BOOL);
        } else if (strncmp(opts[i], "cache=", 6) == 0) {
            uint32_t n = (uint32_t)strtoul(opts[i] + 6, NULL, 10);
            PMIX_INFO_LOAD(&dirs[nd++], PMIX_IOF_CACHE_SIZE, &n, PMIX_UINT32);
        } else {
            fprintf(stderr, "dvm_attach: pull: unknown option %s\n", opts[i]);
            return 2;
        }
    }
    pmix_proc_t job;
    PMIx_Load_procid(&job, ns, PMIX_RANK_WILDCARD);
    rc = PMIx_IOF_pull(&job, 1, nd ? dirs : NULL, nd, channel, on_output, NULL, NULL);
    for (size_t k = 0; k < nd; k++) {
        PMIX_INFO_DESTRUCT(&dirs[k]); /* the pull took what it needs */
    }
    if (rc < 0) {
        printf("pull: %s\n", PMIx_Error_string(rc));
        fflush(stdout);
        PMIx_tool_finalize();
        return 1;
    }
    size_t hdlr = (size_t)rc;
    if (until < 0 && until_lines < 0) {
        register_life(ns);
    }
    pthread_mutex_lock(&lock);
    printf("pulled\n");
    fflush(stdout);
    pthread_mutex_unlock(&lock);
    int ret = 0;
    if (until < 0 && until_lines < 0) {
        ret = wait_end(60);
    } else {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_sec += 60;
        pthread_mutex_lock(&lock);
        while (!pull_done() && pthread_cond_timedwait(&cond, &lock, &t) == 0) {
        }
        ret = pull_done() ? 0 : 3;
        pthread_mutex_unlock(&lock);
        rc = PMIx_IOF_deregister(hdlr, NULL, 0, NULL, NULL);
        pthread_mutex_lock(&lock);
        printf("deregistered: %s\n", PMIx_Error_string(rc));
        fflush(stdout);
        pthread_mutex_unlock(&lock);
    }
    pthread_mutex_lock(&lock);
    fclose(pulled_to);
    fclose(sizes_to);
    pulled_to = NULL;
    printf("received %lld bytes\n", received);
    fflush(stdout);
    pthread_mutex_unlock(&lock);
    PMIx_tool_finalize();
    return ret;
}

static int stdin_job(const char *self, int n, const char *fwd, char **acts, int nacts)
{
    tool_init();
    pmix_status_t rc;
    register_one(PMIX_EVENT_JOB_END, on_event);
    char app_path[4096];
    sibling_app(self, app_path, sizeof(app_path));
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(app_path);
    char *argv[] = {app_path, "cat", NULL};
    app.argv = PMIx_Argv_copy(argv);
    app.maxprocs = n;
    bool yes = true;
    pmix_rank_t tgt = strcmp(fwd, "all") == 0 ? PMIX_RANK_WILDCARD : (pmix_rank_t)atoi(fwd);
    pmix_info_t jinfo[3];
    PMIX_INFO_LOAD(&jinfo[0], PMIX_FWD_STDIN, &tgt, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(&jinfo[1], PMIX_FWD_STDOUT, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&jinfo[2], PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
    pmix_nspace_t ns;
    rc = PMIx_Spawn(jinfo, 3, &app, 1, ns);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_Spawn", rc);
    }
    for (int i = 0; i < nacts; i++) {
        char *act = strdup(acts[i]);
        char *r = strchr(act, ':');
        char *text = r != NULL ? strchr(r + 1, ':') : NULL;
        if (r == NULL) {
            fprintf(stderr, "dvm_attach: bad action %s\n", acts[i]);
            return 2;
        }
        *r++ = '\0';
        if (text != NULL) {
            *text++ = '\0';
        }
        pmix_proc_t target;
        PMIx_Load_procid(&target, ns,
                         strcmp(r, "all") == 0 ? PMIX_RANK_WILDCARD : (pmix_rank_t)atoi(r));
        pmix_info_t dir;
        if (strcmp(act, "push") == 0 && text != NULL) {
            char line[1024];
            snprintf(line, sizeof(line), "%s\n", text);
            pmix_byte_object_t bo = {line, strlen(line)};
            rc = PMIx_IOF_push(&target, 1, &bo, NULL, 0, NULL, NULL);
        } else if (strcmp(act, "close") == 0) {
            PMIX_INFO_LOAD(&dir, PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
            rc = PMIx_IOF_push(&target, 1, NULL, &dir, 1, NULL, NULL);
            PMIX_INFO_DESTRUCT(&dir);
        } else if (strcmp(act, "own") == 0) {
            PMIX_INFO_LOAD(&dir, PMIX_IOF_PUSH_STDIN, &yes, PMIX_BOOL);
            rc = PMIx_IOF_push(&target, 1, NULL, &dir, 1, NULL, NULL);
            PMIX_INFO_DESTRUCT(&dir);
        } else {
            fprintf(stderr, "dvm_attach: bad action %s\n", acts[i]);
            return 2;
        }
        fprintf(stderr, "%s %s: %s\n", act, r, PMIx_Error_string(rc));
        free(act);
    }
    int ret = wait_end(60);
    for (int i = 0; i < 3; i++) {
        PMIX_INFO_DESTRUCT(&jinfo[i]);
    }
    PMIX_APP_DESTRUCT(&app);
    PMIx_tool_finalize();
    return ret;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "stdin") == 0) {
        return stdin_job(argv[0], atoi(argv[2]), argv[3], argv + 4, argc - 4);
    }
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "writeafter") == 0) {
        return writeafter(argv[2], atoll(argv[3]), argc == 5 ? argv[4] : NULL);
    }
    if (argc == 4 && strcmp(argv[1], "phases") == 0) {
        return phases(argv[2], atoll(argv[3]));
    }
    if (argc >= 4 && strcmp(argv[1], "pull") == 0) {
        return pull(argv[2], argv[3], argv + 4, argc - 4);
    }
    if (argc == 3 && strcmp(argv[1], "watch") == 0) {
        return watch(argv[2]);
    }
    if (argc == 4 && strcmp(argv[1], "spawn") == 0) {
        return spawn(argv[0], atoi(argv[2]), argv[3]);
    }
    fprintf(stderr,
            "usage: dvm_attach watch NS | spawn N events|end|log|logend | writeafter F N [G]"
            " | phases F N | pull NS FILE [copy|redirect|oldest|newest|cache=N|stderr|"
            "stddiag|both|tag|rank|ts|xml|raw|bsize=N|btime=S|dir=D|file=F|pattern|merge|fileonly|"
            "until=N|lines=N]... | stdin N FWD ACT...\n");
    return 2;
}
