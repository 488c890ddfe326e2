/*
 * pxc_event.c - events through the real library and test host.
 * Usage: pxc_event MODE [options]
 *   relay  --range R [--expect LIST] [--custom LIST]  rank 0 raises 7001 with range R
 *          (local|namespace|session|global|rm|custom|proc_local|undef); ranks in LIST
 *          (default: none) must receive it, the others must not
 *   cache  [--expect-codes LIST]  rank 0 raises 7101, 7102, 7103 (range namespace) before
 *          anyone registers; after a fence the other ranks register (non-blocking) and
 *          must receive exactly LIST (default all three) in that order; rank 0 nothing
 *   late   every rank has a default handler; rank 0 raises 7201, 7202; once the default
 *          handler saw both, the others register for them and must get both (from the
 *          process's own cache: the server already sent them), in order, once
 *   host   --code C   register for C (may be negative), raised by the host before we started
 *   rereg  --code C   register for C, deregister, register again, deregister
 *   after-default --code C   a default handler first, then a handler for C (the host must
 *          still be asked for C), deregistered before the default one
 *   pset   --pset NAME --members N   hear PMIX_PROCESS_SET_DEFINE of NAME (N members)
 *   chain  the API-level chain: FIRST, single, multi, default, LAST handlers in order,
 *          ACTION_COMPLETE stops it, deregistration takes effect
 *   badargs  bad arguments to the event API (before and after init)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pxc_common.h"

#define MAX_SEEN 64

static pmix_proc_t me;
static int nranks;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int n;
    pmix_status_t code[MAX_SEEN];
    pmix_proc_t source[MAX_SEEN];
    char payload[MAX_SEEN][64];
    int node[MAX_SEEN];
    char order[256];  /* chain mode: handler letters in call order */
    bool reg_cb_done; /* the registration callback has returned */
    bool before_reg;  /* an event arrived before the registration callback */
} seen = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};

static void record(pmix_status_t status, const pmix_proc_t *source, const pmix_info_t info[],
                   size_t ninfo)
{
    pthread_mutex_lock(&seen.lock);
    if (!seen.reg_cb_done)
        seen.before_reg = true;
    if (seen.n < MAX_SEEN) {
        int i = seen.n++;

        seen.code[i] = status;
        seen.source[i] = *source;
        seen.payload[i][0] = '\0';
        seen.node[i] = -1;
        for (size_t k = 0; k < ninfo; k++) {
            if (PMIX_CHECK_KEY(&info[k], "pxc.payload") && info[k].value.type == PMIX_STRING)
                snprintf(seen.payload[i], sizeof(seen.payload[i]), "%s", info[k].value.data.string);
            else if (PMIX_CHECK_KEY(&info[k], "pxhost.node") && info[k].value.type == PMIX_INT32)
                seen.node[i] = info[k].value.data.int32;
            else if (PMIX_CHECK_KEY(&info[k], PMIX_PSET_NAME) && info[k].value.type == PMIX_STRING)
                snprintf(seen.payload[i], sizeof(seen.payload[i]), "%s", info[k].value.data.string);
            else if (PMIX_CHECK_KEY(&info[k], PMIX_PSET_MEMBERS) &&
                     info[k].value.type == PMIX_DATA_ARRAY && info[k].value.data.darray)
                seen.node[i] = (int)info[k].value.data.darray->size;
        }
    }
    pthread_cond_broadcast(&seen.cond);
    pthread_mutex_unlock(&seen.lock);
}

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                    size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)results;
    (void)nresults;
    record(status, source, info, ninfo);
    if (cbfunc)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

/* Wait until *counter (guarded by seen.lock) reaches n, at most secs; its value. */
static int wait_count(const int *counter, int n, double secs)
{
    double end = pxc_now() + secs;
    int got;

    pthread_mutex_lock(&seen.lock);
    while (*counter < n && pxc_now() < end) {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 20 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&seen.cond, &seen.lock, &ts);
    }
    got = *counter;
    pthread_mutex_unlock(&seen.lock);
    return got;
}

/* Wait until n events were seen, at most secs; the count seen. */
static int wait_seen(int n, double secs)
{
    return wait_count(&seen.n, n, secs);
}

static void fence_all(void)
{
    pmix_proc_t all;
    pmix_status_t rc;

    PMIx_Load_procid(&all, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Fence(&all, 1, NULL, 0);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Fence failed: %s", PMIx_Error_string(rc));
}

static size_t reg_blocking(pmix_status_t *codes, size_t ncodes, pmix_info_t *info, size_t ninfo,
                           pmix_notification_fn_t fn)
{
    pmix_status_t rc = PMIx_Register_event_handler(codes, ncodes, info, ninfo, fn, NULL, NULL);

    if (rc < 0)
        pxc_fail("PMIx_Register_event_handler: %s", PMIx_Error_string(rc));
    return (size_t)rc;
}

static bool in_list(const char *list, int r)
{
    char *copy, *tok, *save = NULL;
    bool found = false;

    if (!list)
        return false;
    copy = strdup(list);
    for (tok = strtok_r(copy, ",", &save); tok && !found; tok = strtok_r(NULL, ",", &save))
        found = atoi(tok) == r;
    free(copy);
    return found;
}

static pmix_data_range_t parse_range(const char *s)
{
    static const struct {
        const char *name;
        pmix_data_range_t r;
    } ranges[] = {{"local", PMIX_RANGE_LOCAL},
                  {"namespace", PMIX_RANGE_NAMESPACE},
                  {"session", PMIX_RANGE_SESSION},
                  {"global", PMIX_RANGE_GLOBAL},
                  {"rm", PMIX_RANGE_RM},
                  {"custom", PMIX_RANGE_CUSTOM},
                  {"proc_local", PMIX_RANGE_PROC_LOCAL},
                  {"undef", PMIX_RANGE_UNDEF}};

    for (size_t i = 0; s && i < sizeof(ranges) / sizeof(ranges[0]); i++)
        if (strcmp(s, ranges[i].name) == 0)
            return ranges[i].r;
    pxc_fail("unknown range \"%s\"", s ? s : "(none)");
}

/* ---- relay: one event, who hears it ---- */

static void mode_relay(const char *range_s, const char *expect, const char *custom)
{
    pmix_status_t code = 7001;
    pmix_data_range_t range = parse_range(range_s);
    bool want = in_list(expect, pxc_rank);
    char payload[64];

    seen.reg_cb_done = true;
    reg_blocking(&code, 1, NULL, 0, handler);
    fence_all();
    snprintf(payload, sizeof(payload), "hello from %d", pxc_rank);
    if (pxc_rank == 0) {
        pmix_info_t info[2];
        size_t ninfo = 1;
        pmix_proc_t targets[64];
        pmix_data_array_t darray = {.type = PMIX_PROC, .array = targets, .size = 0};
        pmix_status_t rc;

        PMIx_Info_load(&info[0], "pxc.payload", payload, PMIX_STRING);
        if (custom) {
            for (int r = 0; r < nranks && r < 64; r++)
                if (in_list(custom, r))
                    PMIx_Load_procid(&targets[darray.size++], me.nspace, (pmix_rank_t)r);
            PMIx_Info_load(&info[1], PMIX_EVENT_CUSTOM_RANGE, &darray, PMIX_DATA_ARRAY);
            ninfo = 2;
        }
        rc = PMIx_Notify_event(code, &me, range, info, ninfo, NULL, NULL);
        if (rc != PMIX_SUCCESS)
            pxc_fail("PMIx_Notify_event(range %s): %s", range_s, PMIx_Error_string(rc));
        for (size_t i = 0; i < ninfo; i++)
            PMIx_Info_destruct(&info[i]);
    }
    if (want) {
        if (wait_seen(1, 10.0) < 1)
            pxc_fail("event 7001 (range %s) never arrived", range_s);
        if (seen.code[0] != code || seen.source[0].rank != 0 ||
            !PMIx_Check_nspace(seen.source[0].nspace, me.nspace) ||
            strcmp(seen.payload[0], "hello from 0") != 0)
            pxc_fail("wrong event: %d from %s:%u payload \"%s\"", seen.code[0],
                     seen.source[0].nspace, seen.source[0].rank, seen.payload[0]);
        wait_seen(2, 0.5);
        if (seen.n != 1)
            pxc_fail("event 7001 delivered %d times", seen.n);
        printf("rank %d: got event 7001 from rank 0\n", pxc_rank);
    } else {
        if (wait_seen(1, 1.5) > 0)
            pxc_fail("event 7001 (range %s) reached a rank out of range", range_s);
        printf("rank %d: no event, as expected\n", pxc_rank);
    }
    fence_all();
}

/* ---- cache: registering after the event happened ---- */

/* Raise each code (range namespace) with payload pxc.payload = payload, or fail. */
static void notify_namespace(const pmix_status_t *codes, int n, const char *payload)
{
    for (int i = 0; i < n; i++) {
        pmix_info_t info;
        pmix_status_t rc;

        PMIx_Info_load(&info, "pxc.payload", payload, PMIX_STRING);
        rc = PMIx_Notify_event(codes[i], &me, PMIX_RANGE_NAMESPACE, &info, 1, NULL, NULL);
        PMIx_Info_destruct(&info);
        if (rc != PMIX_SUCCESS)
            pxc_fail("PMIx_Notify_event(%d): %s", codes[i], PMIx_Error_string(rc));
    }
}

static void reg_cb(pmix_status_t status, size_t id, void *cbdata)
{
    pxc_cb_t *cb = cbdata;

    (void)id;
    /* give an early event the chance to overtake the callback if the library let it */
    usleep(100 * 1000);
    pthread_mutex_lock(&seen.lock);
    seen.reg_cb_done = true;
    pthread_mutex_unlock(&seen.lock);
    pxc_cb_mark(cb, status);
}

static void mode_cache(const char *expect_codes)
{
    pmix_status_t codes[3] = {7101, 7102, 7103};
    const char *want = expect_codes ? expect_codes : "7101,7102,7103";
    pxc_cb_t cb;
    int nwant = 0;
    pmix_status_t rc;

    if (pxc_rank == 0)
        notify_namespace(codes, 3, "cached");
    fence_all();
    /* let the other node's server receive the relayed events before we register */
    usleep(300 * 1000);
    pxc_cb_init(&cb);
    rc = PMIx_Register_event_handler(codes, 3, NULL, 0, handler, reg_cb, &cb);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Register_event_handler (nb): %s", PMIx_Error_string(rc));
    if (!pxc_cb_wait(&cb, 10.0) || cb.status != PMIX_SUCCESS)
        pxc_fail("registration callback: %s", PMIx_Error_string(cb.status));
    if (pxc_rank == 0) {
        if (wait_seen(1, 1.0) > 0)
            pxc_fail("the origin of event %d got it back from the cache", seen.code[0]);
        printf("rank 0: nothing replayed to the origin\n");
        fence_all();
        return;
    }
    for (const char *p = want; *p; p++)
        if (*p == ',')
            nwant++;
    nwant++;
    wait_seen(nwant, 10.0);
    wait_seen(nwant + 1, 0.5);
    if (seen.before_reg)
        pxc_fail("an event was delivered before the registration callback returned");
    {
        char got[128] = "";

        for (int i = 0; i < seen.n; i++)
            snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%d", i ? "," : "",
                     seen.code[i]);
        if (strcmp(got, want) != 0)
            pxc_fail("cached events: expected %s, got %s", want, got[0] ? got : "none");
        printf("rank %d: cached events %s\n", pxc_rank, got);
    }
    fence_all();
}

/* ---- late: handlers registered after a default handler already saw the events ---- */

static struct {              /* guarded by seen.lock */
    int ndefault;            /* calls of the default handler */
    int nsecond;             /* calls of the second late handler */
    pmix_status_t second[8]; /* what it got */
} late;

static void late_count(pmix_status_t status, bool second,
                       pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    pthread_mutex_lock(&seen.lock);
    if (!second)
        late.ndefault++;
    else if (late.nsecond < 8)
        late.second[late.nsecond++] = status;
    pthread_cond_broadcast(&seen.cond);
    pthread_mutex_unlock(&seen.lock);
    if (cbfunc)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void default_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                            pmix_info_t info[], size_t ninfo, pmix_info_t results[],
                            size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                            void *cbdata)
{
    (void)id, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    late_count(status, false, cbfunc, cbdata);
}

static void second_handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                           pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                           pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    late_count(status, true, cbfunc, cbdata);
}

/* Every rank has only a default handler; rank 0 raises 7201 then 7202 (range namespace).
 * Once their default handler has run on both, the other ranks register a handler for
 * both codes (non-blocking), which must get them from the process's cache, in order,
 * once, only after its registration callback; then a blocking one for 7202 alone, which
 * gets 7202 once although two handlers already ran on it. The default handler is not
 * run again. */
static void mode_late(void)
{
    pmix_status_t codes[2] = {7201, 7202};
    pxc_cb_t cb;
    pmix_status_t rc;
    char got[128] = "";

    reg_blocking(NULL, 0, NULL, 0, default_handler);
    fence_all();
    if (pxc_rank == 0) {
        notify_namespace(codes, 2, "late");
        fence_all();
        return;
    }
    if (wait_count(&late.ndefault, 2, 10.0) < 2)
        pxc_fail("the default handler saw %d of the 2 events", late.ndefault);
    pxc_cb_init(&cb);
    rc = PMIx_Register_event_handler(codes, 2, NULL, 0, handler, reg_cb, &cb);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Register_event_handler (nb): %s", PMIx_Error_string(rc));
    if (!pxc_cb_wait(&cb, 10.0) || cb.status != PMIX_SUCCESS)
        pxc_fail("registration callback: %s", PMIx_Error_string(cb.status));
    wait_seen(2, 10.0);
    wait_seen(3, 0.5);
    if (seen.before_reg)
        pxc_fail("a cached event was delivered before the registration callback returned");
    for (int i = 0; i < seen.n; i++) {
        if (seen.source[i].rank != 0 || strcmp(seen.payload[i], "late") != 0)
            pxc_fail("event %d from rank %u with payload \"%s\"", seen.code[i], seen.source[i].rank,
                     seen.payload[i]);
        snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%d", i ? "," : "", seen.code[i]);
    }
    if (strcmp(got, "7201,7202") != 0)
        pxc_fail("late handler: expected 7201,7202, got %s", got[0] ? got : "none");
    reg_blocking(&codes[1], 1, NULL, 0, second_handler);
    wait_count(&late.nsecond, 1, 10.0);
    wait_count(&late.nsecond, 2, 0.5);
    if (late.nsecond != 1 || late.second[0] != 7202)
        pxc_fail("second late handler: expected 7202 once, got %d calls", late.nsecond);
    if (late.ndefault != 2)
        pxc_fail("the default handler ran %d times, expected 2", late.ndefault);
    printf("rank %d: late handler got %s, second late handler got 7202\n", pxc_rank, got);
    fence_all();
}

/* ---- host: an event raised by the host before we existed ---- */

static void mode_host(int code)
{
    pmix_status_t c = code;

    seen.reg_cb_done = true;
    reg_blocking(&c, 1, NULL, 0, handler);
    if (wait_seen(1, 10.0) < 1)
        pxc_fail("host event %d never arrived", code);
    if (seen.code[0] != code || strcmp(seen.source[0].nspace, "pxhost-rm") != 0 || seen.node[0] < 0)
        pxc_fail("wrong host event %d from %s:%u node %d", seen.code[0], seen.source[0].nspace,
                 seen.source[0].rank, seen.node[0]);
    wait_seen(2, 0.5);
    if (seen.n != 1)
        pxc_fail("host event %d delivered %d times", code, seen.n);
    printf("rank %d: host event %d from node %d\n", pxc_rank, code, seen.node[0]);
}

/* ---- rereg: register, deregister, register again a code only the host raises ---- */

static void mode_rereg(int code)
{
    pmix_status_t c = code, rc;
    size_t id = reg_blocking(&c, 1, NULL, 0, handler);

    rc = PMIx_Deregister_event_handler(id, NULL, NULL);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Deregister_event_handler: %s", PMIx_Error_string(rc));
    /* the registration's reply comes after the server handled the deregistration */
    id = reg_blocking(&c, 1, NULL, 0, handler);
    rc = PMIx_Deregister_event_handler(id, NULL, NULL);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Deregister_event_handler: %s", PMIx_Error_string(rc));
    fence_all();
    printf("rank %d: registered %d twice\n", pxc_rank, code);
}

/* ---- after-default: a code asked for after a default handler exists ---- */

static void mode_after_default(int code)
{
    pmix_status_t c = code, rc;
    size_t all = reg_blocking(NULL, 0, NULL, 0, handler);
    size_t id = reg_blocking(&c, 1, NULL, 0, handler);

    rc = PMIx_Deregister_event_handler(id, NULL, NULL);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Deregister_event_handler(all, NULL, NULL);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Deregister_event_handler: %s", PMIx_Error_string(rc));
    fence_all(); /* the deregistration reached the server before the fence did */
    printf("rank %d: registered %d after a default handler\n", pxc_rank, code);
}

/* ---- pset ---- */

static void mode_pset(const char *name, int members)
{
    pmix_status_t c = PMIX_PROCESS_SET_DEFINE;

    seen.reg_cb_done = true;
    reg_blocking(&c, 1, NULL, 0, handler);
    if (wait_seen(1, 10.0) < 1)
        pxc_fail("PMIX_PROCESS_SET_DEFINE never arrived");
    if (seen.code[0] != PMIX_PROCESS_SET_DEFINE || strcmp(seen.payload[0], name) != 0 ||
        seen.node[0] != members)
        pxc_fail("wrong pset event %s: name \"%s\", %d members", PMIx_Error_string(seen.code[0]),
                 seen.payload[0], seen.node[0]);
    printf("rank %d: pset %s defined with %d members\n", pxc_rank, name, members);
}

/* ---- chain through the API ---- */

static void note(char c)
{
    pthread_mutex_lock(&seen.lock);
    size_t n = strlen(seen.order);
    if (n + 1 < sizeof(seen.order)) {
        seen.order[n] = c;
        seen.order[n + 1] = '\0';
    }
    pthread_mutex_unlock(&seen.lock);
}

#define HANDLER(name, letter, st)                                                                  \
    static void name(size_t id, pmix_status_t status, const pmix_proc_t *source,                   \
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,     \
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)                     \
    {                                                                                              \
        (void)id;                                                                                  \
        (void)results;                                                                             \
        (void)nresults;                                                                            \
        note(letter);                                                                              \
        record(status, source, info, ninfo);                                                       \
        cbfunc(st, NULL, 0, NULL, NULL, cbdata);                                                   \
    }
HANDLER(h_first, 'F', PMIX_SUCCESS)
HANDLER(h_single, 'S', PMIX_SUCCESS)
HANDLER(h_multi, 'M', PMIX_SUCCESS)
HANDLER(h_default, 'D', PMIX_SUCCESS)
HANDLER(h_last, 'L', PMIX_SUCCESS)
HANDLER(h_stop, 'X', PMIX_EVENT_ACTION_COMPLETE)

static void chain_run(pmix_status_t code, int nexpect, const char *want)
{
    pmix_status_t rc;

    pthread_mutex_lock(&seen.lock);
    seen.n = 0;
    seen.order[0] = '\0';
    pthread_mutex_unlock(&seen.lock);
    rc = PMIx_Notify_event(code, &me, PMIX_RANGE_PROC_LOCAL, NULL, 0, NULL, NULL);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Notify_event(proc_local): %s", PMIx_Error_string(rc));
    wait_seen(nexpect, 10.0);
    wait_seen(nexpect + 1, 0.3);
    if (strcmp(seen.order, want) != 0)
        pxc_fail("chain for %d: expected %s, got %s", code, want, seen.order);
    printf("rank %d: chain %s\n", pxc_rank, seen.order);
}

static void mode_chain(void)
{
    pmix_status_t one = 7201, two[2] = {7201, 7202};
    pmix_info_t first, last;
    bool yes = true;
    size_t id_single, id_stop;
    pmix_status_t rc;

    seen.reg_cb_done = true;
    /* registered in the reverse of the order they must run */
    reg_blocking(NULL, 0, NULL, 0, h_default);
    PMIx_Info_load(&last, PMIX_EVENT_HDLR_LAST, &yes, PMIX_BOOL);
    reg_blocking(two, 2, &last, 1, h_last); /* with codes: not a default handler */
    reg_blocking(two, 2, NULL, 0, h_multi);
    id_single = reg_blocking(&one, 1, NULL, 0, h_single);
    PMIx_Info_load(&first, PMIX_EVENT_HDLR_FIRST, &yes, PMIX_BOOL);
    reg_blocking(two, 2, &first, 1, h_first);
    /* a second FIRST is refused */
    rc = PMIx_Register_event_handler(&one, 1, &first, 1, h_stop, NULL, NULL);
    if (rc != PMIX_EXISTS)
        pxc_fail("second PMIX_EVENT_HDLR_FIRST: expected %s, got %s",
                 PMIx_Error_string(PMIX_EXISTS), PMIx_Error_string(rc));
    chain_run(7201, 5, "FSMDL");
    chain_run(7202, 4, "FMDL");
    chain_run(7999, 1, "D");
    /* deregistration takes effect */
    rc = PMIx_Deregister_event_handler(id_single, NULL, NULL);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Deregister_event_handler: %s", PMIx_Error_string(rc));
    chain_run(7201, 4, "FMDL");
    /* a handler ending the chain: nothing after it, not even LAST */
    id_stop = reg_blocking(&one, 1, NULL, 0, h_stop);
    chain_run(7201, 2, "FX");
    rc = PMIx_Deregister_event_handler(id_stop, NULL, NULL);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Deregister_event_handler: %s", PMIx_Error_string(rc));
    /* a non-default event skips the default handler */
    {
        pmix_info_t nd;

        pthread_mutex_lock(&seen.lock);
        seen.n = 0;
        seen.order[0] = '\0';
        pthread_mutex_unlock(&seen.lock);
        PMIx_Info_load(&nd, PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
        rc = PMIx_Notify_event(7202, &me, PMIX_RANGE_PROC_LOCAL, &nd, 1, NULL, NULL);
        PMIx_Info_destruct(&nd);
        if (rc != PMIX_SUCCESS)
            pxc_fail("PMIx_Notify_event(non-default): %s", PMIx_Error_string(rc));
        wait_seen(3, 10.0);
        wait_seen(4, 0.3);
        if (strcmp(seen.order, "FML") != 0)
            pxc_fail("non-default chain: expected FML, got %s", seen.order);
        printf("rank %d: non-default chain %s\n", pxc_rank, seen.order);
    }
    PMIx_Info_destruct(&first);
    PMIx_Info_destruct(&last);
}

/* ---- bad arguments ---- */

static void expect_rc(const char *what, pmix_status_t got, pmix_status_t want)
{
    if (got != want)
        pxc_fail("%s: expected %s, got %s", what, PMIx_Error_string(want), PMIx_Error_string(got));
}

static void mode_badargs_after(void)
{
    pmix_status_t code = 7301;
    pmix_info_t info;

    expect_rc("register with no handler",
              PMIx_Register_event_handler(&code, 1, NULL, 0, NULL, NULL, NULL), PMIX_ERR_BAD_PARAM);
    expect_rc("register with codes NULL, ncodes 1",
              PMIx_Register_event_handler(NULL, 1, NULL, 0, handler, NULL, NULL),
              PMIX_ERR_BAD_PARAM);
    expect_rc("deregister an unknown id", PMIx_Deregister_event_handler(123456, NULL, NULL),
              PMIX_ERR_BAD_PARAM);
    expect_rc("notify with an invalid range",
              PMIx_Notify_event(code, &me, PMIX_RANGE_INVALID, NULL, 0, NULL, NULL),
              PMIX_ERR_BAD_PARAM);
    expect_rc("notify with range 42", PMIx_Notify_event(code, &me, 42, NULL, 0, NULL, NULL),
              PMIX_ERR_BAD_PARAM);
    expect_rc("custom range without PMIX_EVENT_CUSTOM_RANGE",
              PMIx_Notify_event(code, &me, PMIX_RANGE_CUSTOM, NULL, 0, NULL, NULL),
              PMIX_ERR_BAD_PARAM);
    PMIx_Info_load(&info, PMIX_EVENT_CUSTOM_RANGE, "not procs", PMIX_STRING);
    expect_rc("custom range of the wrong type",
              PMIx_Notify_event(code, &me, PMIX_RANGE_CUSTOM, &info, 1, NULL, NULL),
              PMIX_ERR_BAD_PARAM);
    PMIx_Info_destruct(&info);
    expect_rc("notify with info NULL, ninfo 2",
              PMIx_Notify_event(code, &me, PMIX_RANGE_LOCAL, NULL, 2, NULL, NULL),
              PMIX_ERR_BAD_PARAM);
    PMIx_Info_load(&info, PMIX_EVENT_HDLR_FIRST, "yes", PMIX_STRING);
    expect_rc("PMIX_EVENT_HDLR_FIRST given as a string",
              PMIx_Register_event_handler(&code, 1, &info, 1, handler, NULL, NULL),
              PMIX_ERR_BAD_PARAM);
    PMIx_Info_destruct(&info);
    printf("rank %d: bad arguments refused\n", pxc_rank);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : NULL, *range = NULL, *expect = NULL, *custom = NULL,
               *codes = NULL, *pset = NULL;
    int code = 0, members = 0;

    pxc_name = "pxc_event";
    for (int i = 2; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--range") == 0)
            range = argv[i + 1];
        else if (strcmp(argv[i], "--expect") == 0)
            expect = argv[i + 1];
        else if (strcmp(argv[i], "--custom") == 0)
            custom = argv[i + 1];
        else if (strcmp(argv[i], "--expect-codes") == 0)
            codes = argv[i + 1];
        else if (strcmp(argv[i], "--code") == 0)
            code = argv[i + 1][0] == '-' ? -pxc_parse_int("--code", argv[i + 1] + 1)
                                         : pxc_parse_int("--code", argv[i + 1]);
        else if (strcmp(argv[i], "--pset") == 0)
            pset = argv[i + 1];
        else if (strcmp(argv[i], "--members") == 0)
            members = pxc_parse_int("--members", argv[i + 1]);
        else
            pxc_fail("unknown option %s", argv[i]);
    }
    if (!mode)
        pxc_fail("usage: pxc_event relay|cache|late|host|rereg|after-default|pset|chain|badargs "
                 "[options]");
    if (strcmp(mode, "badargs") == 0) {
        pmix_status_t c = 7301;

        expect_rc("register before init",
                  PMIx_Register_event_handler(&c, 1, NULL, 0, handler, NULL, NULL), PMIX_ERR_INIT);
        expect_rc("deregister before init", PMIx_Deregister_event_handler(0, NULL, NULL),
                  PMIX_ERR_INIT);
        expect_rc("notify before init",
                  PMIx_Notify_event(c, NULL, PMIX_RANGE_LOCAL, NULL, 0, NULL, NULL), PMIX_ERR_INIT);
    }
    pxc_init(&me, &nranks);
    if (strcmp(mode, "relay") == 0)
        mode_relay(range, expect, custom);
    else if (strcmp(mode, "cache") == 0)
        mode_cache(codes);
    else if (strcmp(mode, "late") == 0)
        mode_late();
    else if (strcmp(mode, "host") == 0)
        mode_host(code);
    else if (strcmp(mode, "rereg") == 0)
        mode_rereg(code);
    else if (strcmp(mode, "after-default") == 0)
        mode_after_default(code);
    else if (strcmp(mode, "pset") == 0)
        mode_pset(pset ? pset : "", members);
    else if (strcmp(mode, "chain") == 0)
        mode_chain();
    else if (strcmp(mode, "badargs") == 0)
        mode_badargs_after();
    else
        pxc_fail("unknown mode %s", mode);
    if (PMIx_Finalize(NULL, 0) != PMIX_SUCCESS)
        pxc_fail("PMIx_Finalize failed");
    return 0;
}
