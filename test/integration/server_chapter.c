/* server_chapter: what the Server chapter requires of the library, checked from a host
 * (this program embeds the server; public API only).
 *   server_chapter nodata       PMIx_server_register_nspace with PMIX_REGISTER_NODATA
 *                               registers the namespace and none of the data given
 *   server_chapter notify-none  PMIx_Notify_event from the server, range beyond the node,
 *                               no notify_event upcall: PMIX_ERR_NOT_SUPPORTED (no
 *                               callback); node-local ranges still succeed
 *   server_chapter notify-host  the same with a notify_event upcall: success, and the
 *                               upcall gets the event
 *   server_chapter setup        PMIx_server_setup_application returns the environment to
 *                               forward (PMIX_MCA_*) and the programming model, refuses
 *                               fabric requests; PMIx_server_setup_local_support makes
 *                               setup_fork apply that environment
 * Exit 0 when every check holds; otherwise a message naming the check.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

static int failures = 0;

static void check(int ok, const char *fmt, ...)
{
    if (ok) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "server_chapter: FAILED: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    failures++;
}

static void expect(pmix_status_t got, pmix_status_t want, const char *what)
{
    check(got == want, "%s: expected %s, got %s", what, PMIx_Error_string(want),
          PMIx_Error_string(got));
}

/* One-shot latch for callbacks from the library's thread. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int calls;
static pmix_status_t last_status;

static void note(pmix_status_t status)
{
    pthread_mutex_lock(&lock);
    calls++;
    last_status = status;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

/* Wait (at most 10 s) until calls reaches n; the number seen. */
static int wait_calls(int n)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    pthread_mutex_lock(&lock);
    while (calls < n && pthread_cond_timedwait(&cond, &lock, &until) == 0) {
    }
    int seen = calls;
    pthread_mutex_unlock(&lock);
    return seen;
}

static void op_cb(pmix_status_t status, void *cbdata)
{
    (void)cbdata;
    note(status);
}

static char tmpdir[64];

static int start(pmix_server_module_t *module)
{
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/pxsch.XXXXXX");
    if (mkdtemp(tmpdir) == NULL) {
        return -1;
    }
    pmix_info_t info[2];
    PMIx_Info_load(&info[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    PMIx_Info_load(&info[1], PMIX_SYSTEM_TMPDIR, tmpdir, PMIX_STRING);
    pmix_status_t rc = PMIx_server_init(module, info, 2);
    PMIx_Info_destruct(&info[0]);
    PMIx_Info_destruct(&info[1]);
    expect(rc, PMIX_SUCCESS, "PMIx_server_init");
    if (rc != PMIX_SUCCESS) {
        rmdir(tmpdir);
        return -1;
    }
    return 0;
}

static int stop(void)
{
    expect(PMIx_server_finalize(), PMIX_SUCCESS, "PMIx_server_finalize");
    check(rmdir(tmpdir) == 0, "the server's tmpdir %s is not empty after finalize", tmpdir);
    return failures ? 1 : 0;
}

/* ---- nodata ---- */

/* The value of name in the environment setup_fork makes for proc, or NULL (static). */
static const char *fork_env(const pmix_proc_t *proc, const char *name)
{
    static char value[256];
    char **env = NULL;
    const char *found = NULL;
    expect(PMIx_server_setup_fork(proc, &env), PMIX_SUCCESS, "PMIx_server_setup_fork");
    size_t len = strlen(name);
    for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
        if (strncmp(env[i], name, len) == 0 && env[i][len] == '=') {
            snprintf(value, sizeof(value), "%s", env[i] + len + 1);
            found = value;
        }
    }
    PMIx_Argv_free(env);
    return found;
}

static int do_nodata(void)
{
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    if (start(&module) != 0) {
        return 1;
    }
    pmix_nspace_t data_ns, nodata_ns;
    PMIX_LOAD_NSPACE(data_ns, "sch.data");
    PMIX_LOAD_NSPACE(nodata_ns, "sch.nodata");
    uint32_t four = 4;
    bool yes = true;
    pmix_envar_t var = {.envar = "PX_SCH_VAR", .value = "from-the-job", .separator = ':'};
    pmix_info_t info[3];
    PMIx_Info_load(&info[0], PMIX_JOB_SIZE, &four, PMIX_UINT32);
    PMIx_Info_load(&info[1], PMIX_SET_ENVAR, &var, PMIX_ENVAR);
    PMIx_Info_load(&info[2], PMIX_REGISTER_NODATA, &yes, PMIX_BOOL);
    /* the same data with and without the attribute; the job's environment directive is
     * the data a host can observe without a client */
    expect(PMIx_server_register_nspace(data_ns, 1, info, 2, NULL, NULL), PMIX_SUCCESS,
           "register_nspace(sch.data)");
    expect(PMIx_server_register_nspace(nodata_ns, 1, info, 3, NULL, NULL), PMIX_SUCCESS,
           "register_nspace(sch.nodata, PMIX_REGISTER_NODATA)");
    pmix_proc_t d, p;
    PMIx_Load_procid(&d, data_ns, 0);
    PMIx_Load_procid(&p, nodata_ns, 0);
    expect(PMIx_server_register_client(&d, getuid(), getgid(), NULL, NULL, NULL), PMIX_SUCCESS,
           "register_client(sch.data:0)");
    expect(PMIx_server_register_client(&p, getuid(), getgid(), NULL, NULL, NULL), PMIX_SUCCESS,
           "register_client(sch.nodata:0)");
    const char *v = fork_env(&d, "PX_SCH_VAR");
    check(v != NULL && strcmp(v, "from-the-job") == 0,
          "sch.data: the job's PMIX_SET_ENVAR is not in setup_fork's environment (%s)",
          v ? v : "unset");
    v = fork_env(&p, "PX_SCH_VAR");
    check(v == NULL, "sch.nodata: PMIX_SET_ENVAR was kept despite PMIX_REGISTER_NODATA (%s)",
          v ? v : "");
    /* the namespace itself is there: its client gets its connection variables */
    check(fork_env(&p, "PMIX_NAMESPACE") != NULL &&
              strcmp(fork_env(&p, "PMIX_NAMESPACE"), "sch.nodata") == 0,
          "sch.nodata:0 has no PMIX_NAMESPACE in setup_fork's environment");
    PMIx_server_deregister_client(&p, NULL, NULL);
    PMIx_server_deregister_client(&d, NULL, NULL);
    PMIx_server_deregister_nspace(nodata_ns, NULL, NULL);
    PMIx_server_deregister_nspace(data_ns, NULL, NULL);
    for (int i = 0; i < 3; i++) {
        PMIx_Info_destruct(&info[i]); /* the loads copied var's strings */
    }
    return stop();
}

/* ---- notify ---- */

static pmix_status_t host_code = 0;
static pmix_data_range_t host_range;

static pmix_status_t up_notify(pmix_status_t code, const pmix_proc_t *source,
                               pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
                               pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)source;
    (void)info;
    (void)ninfo;
    pthread_mutex_lock(&lock);
    host_code = code;
    host_range = range;
    pthread_mutex_unlock(&lock);
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, cbdata);
    }
    note(PMIX_SUCCESS);
    return PMIX_SUCCESS;
}

static int do_notify(bool with_host)
{
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    if (with_host) {
        module.notify_event = up_notify;
    }
    if (start(&module) != 0) {
        return 1;
    }
    pmix_data_range_t beyond[] = {PMIX_RANGE_SESSION, PMIX_RANGE_GLOBAL, PMIX_RANGE_NAMESPACE,
                                  PMIX_RANGE_RM};
    for (size_t i = 0; i < sizeof(beyond) / sizeof(beyond[0]); i++) {
        char what[128];
        snprintf(what, sizeof(what), "PMIx_Notify_event(range %s)%s",
                 PMIx_Data_range_string(beyond[i]), with_host ? "" : " without notify_event");
        int before = wait_calls(0);
        pmix_status_t rc = PMIx_Notify_event(7001, NULL, beyond[i], NULL, 0, op_cb, NULL);
        if (!with_host) {
            expect(rc, PMIX_ERR_NOT_SUPPORTED, what);
            usleep(100000);
            check(wait_calls(0) == before, "%s: a refused call must not call back", what);
            continue;
        }
        expect(rc, PMIX_SUCCESS, what);
        /* our callback and the upcall */
        check(wait_calls(before + 2) == before + 2, "%s: callback and upcall not both seen", what);
        pthread_mutex_lock(&lock);
        check(host_code == 7001 && host_range == beyond[i], "%s: the upcall got %d range %u", what,
              host_code, host_range);
        pthread_mutex_unlock(&lock);
    }
    /* ranges within the node need no host */
    int before = wait_calls(0);
    expect(PMIx_Notify_event(7002, NULL, PMIX_RANGE_LOCAL, NULL, 0, op_cb, NULL), PMIX_SUCCESS,
           "PMIx_Notify_event(range local)");
    check(wait_calls(before + 1) >= before + 1, "range local: no callback");
    pmix_proc_t me;
    pmix_value_t *v = NULL;
    PMIx_Load_procid(&me, "", 0);
    if (PMIx_Get(NULL, PMIX_SERVER_NSPACE, NULL, 0, &v) == PMIX_SUCCESS && v != NULL &&
        v->type == PMIX_STRING) {
        PMIx_Load_procid(&me, v->data.string, 0);
    }
    if (v != NULL) {
        PMIx_Value_free(v, 1);
    }
    pmix_info_t custom;
    PMIx_Info_load(&custom, PMIX_EVENT_CUSTOM_RANGE, &me, PMIX_PROC);
    before = wait_calls(0);
    expect(PMIx_Notify_event(7003, NULL, PMIX_RANGE_CUSTOM, &custom, 1, op_cb, NULL), PMIX_SUCCESS,
           "PMIx_Notify_event(custom range: the server itself)");
    check(wait_calls(before + 1) >= before + 1, "custom range: no callback");
    PMIx_Info_destruct(&custom);
    return stop();
}

/* ---- setup_application / setup_local_support ---- */

static struct {
    pmix_status_t status;
    pmix_info_t *info; /* copied */
    size_t ninfo;
} app;

static void app_cb(pmix_status_t status, pmix_info_t info[], size_t ninfo, void *provided_cbdata,
                   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)provided_cbdata;
    pthread_mutex_lock(&lock);
    app.status = status;
    app.ninfo = ninfo;
    app.info = ninfo ? PMIx_Info_create(ninfo) : NULL;
    for (size_t i = 0; i < ninfo; i++) {
        PMIx_Info_xfer(&app.info[i], &info[i]);
    }
    pthread_mutex_unlock(&lock);
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, cbdata); /* the library frees its array */
    }
    note(status);
}

/* setup_application with the job's maps plus extra (key, bool true) directives. */
static pmix_status_t setup_app(const char *nspace, const char *extra, const char *model)
{
    pmix_info_t info[4];
    size_t n = 0;
    bool yes = true;
    PMIx_Info_load(&info[n++], PMIX_NODE_MAP, "pxnode0", PMIX_STRING);
    PMIx_Info_load(&info[n++], PMIX_PROC_MAP, "0,1", PMIX_STRING);
    if (extra != NULL) {
        PMIx_Info_load(&info[n++], extra, &yes, PMIX_BOOL);
    }
    if (model != NULL) {
        PMIx_Info_load(&info[n++], PMIX_PROGRAMMING_MODEL, model, PMIX_STRING);
    }
    int before = wait_calls(0);
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, nspace);
    pmix_status_t rc = PMIx_server_setup_application(ns, info, n, app_cb, NULL);
    if (rc == PMIX_SUCCESS) {
        check(wait_calls(before + 1) == before + 1, "setup_application: no callback");
        rc = app.status;
    }
    for (size_t i = 0; i < n; i++) {
        PMIx_Info_destruct(&info[i]);
    }
    return rc;
}

/* The returned string value of key (a PMIX_SET_ENVAR's variable when envar), or NULL. */
static const char *app_value(const char *key, const char *envar)
{
    for (size_t i = 0; i < app.ninfo; i++) {
        const pmix_value_t *v = &app.info[i].value;
        if (!PMIX_CHECK_KEY(&app.info[i], key)) {
            continue;
        }
        if (envar == NULL && v->type == PMIX_STRING) {
            return v->data.string;
        }
        if (envar != NULL && v->type == PMIX_ENVAR && v->data.envar.envar != NULL &&
            strcmp(v->data.envar.envar, envar) == 0) {
            return v->data.envar.value;
        }
    }
    return NULL;
}

static void app_clear(void)
{
    if (app.info != NULL) {
        PMIx_Info_free(app.info, app.ninfo);
    }
    memset(&app, 0, sizeof(app));
}

static int do_setup(void)
{
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    if (start(&module) != 0) {
        return 1;
    }
    setenv("PMIX_MCA_px_sch_param", "42", 1);
    setenv("PX_SCH_NOT_FORWARDED", "1", 1);
    /* fabric requests cannot be honoured */
    expect(setup_app("sch.app", PMIX_ALLOC_FABRIC_ENDPTS, NULL), PMIX_ERR_NOT_SUPPORTED,
           "setup_application(PMIX_ALLOC_FABRIC_ENDPTS)");
    app_clear();
    /* non-environment data only */
    expect(setup_app("sch.app", PMIX_SETUP_APP_NONENVARS, "MPI"), PMIX_SUCCESS,
           "setup_application(PMIX_SETUP_APP_NONENVARS)");
    check(app_value(PMIX_SET_ENVAR, "PMIX_MCA_px_sch_param") == NULL,
          "PMIX_SETUP_APP_NONENVARS returned an environment variable");
    check(app_value(PMIX_PROGRAMMING_MODEL, NULL) != NULL &&
              strcmp(app_value(PMIX_PROGRAMMING_MODEL, NULL), "MPI") == 0,
          "PMIX_SETUP_APP_NONENVARS did not return the programming model");
    app_clear();
    /* everything */
    expect(setup_app("sch.app", PMIX_SETUP_APP_ALL, "MPI"), PMIX_SUCCESS,
           "setup_application(PMIX_SETUP_APP_ALL)");
    const char *v = app_value(PMIX_SET_ENVAR, "PMIX_MCA_px_sch_param");
    check(v != NULL && strcmp(v, "42") == 0, "PMIX_MCA_px_sch_param not harvested (%s)",
          v ? v : "absent");
    check(app_value(PMIX_SET_ENVAR, "PX_SCH_NOT_FORWARDED") == NULL,
          "an unrelated variable was harvested");
    /* a node where the launcher's variable is not set: setup_local_support + setup_fork */
    unsetenv("PMIX_MCA_px_sch_param");
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, "sch.app");
    expect(PMIx_server_setup_local_support(ns, app.info, app.ninfo, NULL, NULL), PMIX_ERR_NOT_FOUND,
           "setup_local_support before register_nspace");
    expect(PMIx_server_register_nspace(ns, 1, NULL, 0, NULL, NULL), PMIX_SUCCESS,
           "register_nspace(sch.app)");
    int before = wait_calls(0);
    expect(PMIx_server_setup_local_support(ns, app.info, app.ninfo, op_cb, NULL), PMIX_SUCCESS,
           "setup_local_support");
    check(wait_calls(before + 1) == before + 1, "setup_local_support: no callback");
    pmix_proc_t p;
    PMIx_Load_procid(&p, ns, 0);
    v = fork_env(&p, "PMIX_MCA_px_sch_param");
    check(v != NULL && strcmp(v, "42") == 0,
          "setup_fork after setup_local_support lacks PMIX_MCA_px_sch_param (%s)",
          v ? v : "absent");
    pmix_info_t bogus;
    PMIx_Info_load(&bogus, "px.sch.unknown", "x", PMIX_STRING);
    expect(PMIx_server_setup_local_support(ns, &bogus, 1, NULL, NULL), PMIX_ERR_NOT_SUPPORTED,
           "setup_local_support(unknown data)");
    PMIx_Info_destruct(&bogus);
    app_clear();
    PMIx_server_deregister_nspace(ns, NULL, NULL);
    return stop();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "nodata") == 0) {
        return do_nodata();
    }
    if (strcmp(mode, "notify-none") == 0) {
        return do_notify(false);
    }
    if (strcmp(mode, "notify-host") == 0) {
        return do_notify(true);
    }
    if (strcmp(mode, "setup") == 0) {
        return do_setup();
    }
    fprintf(stderr, "usage: server_chapter nodata|notify-none|notify-host|setup\n");
    return 2;
}
