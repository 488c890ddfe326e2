/*
 * pxc_query.c - runs PMIx_Query_info(_nb) calls described on the command line and prints
 * every result on its own line, in a form the 'server' tests match:
 *   pxc_query: call C status NAME nresults N
 *   pxc_query: call C query Q KEY=VALUE
 * Results must be flat (one entry per key found, under the query key, in the order asked);
 * Q is the query the entry answers.
 * Options (in order; a call collects the queries given since the previous --call):
 *   --query KEYS[@QUALS]  one query: KEYS comma-separated, QUALS comma-separated
 *                         KEY=s:STRING | KEY=b:true|false | KEY=u:N
 *                         (KEY: a macro name such as PMIX_QUERY_NAMESPACES, or a key string)
 *   --expect STATUS       status the current call must return (macro name), default PMIX_SUCCESS
 *   --nb                  the current call uses PMIx_Query_info_nb (callback checked to come
 *                         after the call returned, exactly once)
 *   --call                end the current call and start a new one
 *   --rank R              only rank R queries (default 0); the others only init/finalize
 *   --no-init             query without PMIx_Init (a process not connected to any server)
 *   --bad-args            check the answers to bad input (before and after PMIx_Init)
 * A string qualifier value "@ns" stands for the caller's namespace.
 * Values: strings in quotes, numbers, true/false, procs NSPACE:RANK, data arrays [a,b],
 * infos KEY=VALUE, regattrs by name, proc infos {NSPACE:RANK HOST EXE pid>0?}.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pxc_common.h"

#define MAXQ 16
#define MAXC 8

typedef struct {
    pmix_query_t q[MAXQ];
    size_t nq;
    pmix_status_t expect;
    bool nb;
} call_t;

static call_t calls[MAXC];
static int ncalls = 1;

static const struct {
    const char *name, *key;
} names[] = {
    {"PMIX_QUERY_NAMESPACES", PMIX_QUERY_NAMESPACES},
    {"PMIX_QUERY_NUM_PSETS", PMIX_QUERY_NUM_PSETS},
    {"PMIX_QUERY_PSET_NAMES", PMIX_QUERY_PSET_NAMES},
    {"PMIX_QUERY_PSET_MEMBERSHIP", PMIX_QUERY_PSET_MEMBERSHIP},
    {"PMIX_QUERY_ATTRIBUTE_SUPPORT", PMIX_QUERY_ATTRIBUTE_SUPPORT},
    {"PMIX_QUERY_AVAIL_SERVERS", PMIX_QUERY_AVAIL_SERVERS},
    {"PMIX_QUERY_PROC_TABLE", PMIX_QUERY_PROC_TABLE},
    {"PMIX_QUERY_REFRESH_CACHE", PMIX_QUERY_REFRESH_CACHE},
    {"PMIX_QUERY_JOB_STATUS", PMIX_QUERY_JOB_STATUS},
    {"PMIX_SERVER_URI", PMIX_SERVER_URI},
    {"PMIX_PSET_NAME", PMIX_PSET_NAME},
    {"PMIX_NSPACE", PMIX_NSPACE},
    {"PMIX_CLIENT_FUNCTIONS", PMIX_CLIENT_FUNCTIONS},
    {"PMIX_CLIENT_ATTRIBUTES", PMIX_CLIENT_ATTRIBUTES},
    {"PMIX_SERVER_FUNCTIONS", PMIX_SERVER_FUNCTIONS},
    {"PMIX_SERVER_ATTRIBUTES", PMIX_SERVER_ATTRIBUTES},
    {"PMIX_HOST_FUNCTIONS", PMIX_HOST_FUNCTIONS},
    {"PMIX_HOST_ATTRIBUTES", PMIX_HOST_ATTRIBUTES},
    {"PMIX_TOOL_FUNCTIONS", PMIX_TOOL_FUNCTIONS},
    {"PMIX_TOOL_ATTRIBUTES", PMIX_TOOL_ATTRIBUTES},
};

static const char *key_of(const char *s)
{
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(names[i].name, s) == 0)
            return names[i].key;
    return s;
}

static pmix_status_t status_of(const char *s)
{
    static const struct {
        const char *name;
        pmix_status_t st;
    } sts[] = {
        {"PMIX_SUCCESS", PMIX_SUCCESS},
        {"PMIX_QUERY_PARTIAL_SUCCESS", PMIX_QUERY_PARTIAL_SUCCESS},
        {"PMIX_ERR_NOT_FOUND", PMIX_ERR_NOT_FOUND},
        {"PMIX_ERR_INIT", PMIX_ERR_INIT},
        {"PMIX_ERR_BAD_PARAM", PMIX_ERR_BAD_PARAM},
    };
    for (size_t i = 0; i < sizeof(sts) / sizeof(sts[0]); i++)
        if (strcmp(sts[i].name, s) == 0)
            return sts[i].st;
    pxc_fail("unknown status name %s", s);
}

static void parse_query(const char *arg)
{
    call_t *c = &calls[ncalls - 1];
    char *dup = strdup(arg), *at = strchr(dup, '@');
    char **keys, **quals = NULL;
    pmix_query_t *q;

    if (c->nq == MAXQ)
        pxc_fail("too many queries in one call");
    q = &c->q[c->nq++];
    if (at) {
        *at = '\0';
        quals = PMIx_Argv_split(at + 1, ',');
    }
    keys = PMIx_Argv_split(dup, ',');
    for (int i = 0; keys && keys[i]; i++)
        PMIx_Argv_append_nosize(&q->keys, key_of(keys[i]));
    PMIx_Argv_free(keys);
    q->nqual = (size_t)PMIx_Argv_count(quals);
    if (q->nqual)
        q->qualifiers = PMIx_Info_create(q->nqual);
    for (size_t i = 0; i < q->nqual; i++) {
        char *eq = strchr(quals[i], '=');
        const char *key;

        if (!eq || strlen(eq) < 3 || eq[2] != ':')
            pxc_fail("qualifier %s: want KEY=s:..|b:..|u:..", quals[i]);
        *eq = '\0';
        key = key_of(quals[i]);
        if (eq[1] == 's') {
            PMIx_Info_load(&q->qualifiers[i], key, eq + 3, PMIX_STRING);
        } else if (eq[1] == 'b') {
            bool b = strcmp(eq + 3, "true") == 0;
            PMIx_Info_load(&q->qualifiers[i], key, &b, PMIX_BOOL);
        } else {
            uint32_t u = (uint32_t)strtoul(eq + 3, NULL, 10);
            PMIx_Info_load(&q->qualifiers[i], key, &u, PMIX_UINT32);
        }
    }
    PMIx_Argv_free(quals);
    free(dup);
}

/* ---- printing ---- */

static void put(char **buf, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void put(char **buf, size_t *len, const char *fmt, ...)
{
    va_list ap;
    char *more = NULL;
    int n;

    va_start(ap, fmt);
    n = vasprintf(&more, fmt, ap);
    va_end(ap);
    if (n < 0)
        pxc_fail("out of memory");
    *buf = realloc(*buf, *len + (size_t)n + 1);
    memcpy(*buf + *len, more, (size_t)n + 1);
    *len += (size_t)n;
    free(more);
}

static void render(char **b, size_t *l, const pmix_value_t *v);

static void render_elem(char **b, size_t *l, pmix_data_type_t t, const void *p)
{
    switch (t) {
    case PMIX_INFO: {
        const pmix_info_t *i = p;
        put(b, l, "%s=", i->key);
        render(b, l, &i->value);
        break;
    }
    case PMIX_STRING:
        put(b, l, "\"%s\"", *(char *const *)p ? *(char *const *)p : "");
        break;
    case PMIX_PROC: {
        const pmix_proc_t *pr = p;
        put(b, l, "%s:%u", pr->nspace, pr->rank);
        break;
    }
    case PMIX_REGATTR:
        put(b, l, "%s", ((const pmix_regattr_t *)p)->name);
        break;
    case PMIX_PROC_INFO: {
        const pmix_proc_info_t *pi = p;
        put(b, l, "{%s:%u %s %s %s}", pi->proc.nspace, pi->proc.rank, pi->hostname,
            pi->executable_name, pi->pid > 0 ? "pid" : "nopid");
        break;
    }
    default:
        put(b, l, "<type %s>", PMIx_Data_type_string(t));
    }
}

static void render(char **b, size_t *l, const pmix_value_t *v)
{
    switch (v->type) {
    case PMIX_UNDEF:
        put(b, l, "undef");
        break;
    case PMIX_STRING:
        put(b, l, "\"%s\"", v->data.string ? v->data.string : "");
        break;
    case PMIX_BOOL:
        put(b, l, "%s", v->data.flag ? "true" : "false");
        break;
    case PMIX_SIZE:
        put(b, l, "%zu", v->data.size);
        break;
    case PMIX_UINT32:
        put(b, l, "%u", v->data.uint32);
        break;
    case PMIX_PID:
        put(b, l, "%d", (int)v->data.pid);
        break;
    case PMIX_PROC_RANK:
        put(b, l, "%u", v->data.rank);
        break;
    case PMIX_DATA_ARRAY: {
        const pmix_data_array_t *da = v->data.darray;
        size_t esz = 0;

        switch (da->type) {
        case PMIX_INFO:
            esz = sizeof(pmix_info_t);
            break;
        case PMIX_STRING:
            esz = sizeof(char *);
            break;
        case PMIX_PROC:
            esz = sizeof(pmix_proc_t);
            break;
        case PMIX_REGATTR:
            esz = sizeof(pmix_regattr_t);
            break;
        case PMIX_PROC_INFO:
            esz = sizeof(pmix_proc_info_t);
            break;
        default:
            break;
        }
        put(b, l, "[");
        for (size_t i = 0; esz && i < da->size; i++) {
            if (i)
                put(b, l, ",");
            render_elem(b, l, da->type, (const char *)da->array + i * esz);
        }
        put(b, l, "]");
        break;
    }
    default:
        put(b, l, "<type %s>", PMIx_Data_type_string(v->type));
    }
}

/* The i-th key query q answers under, NULL past the last: an attribute-support query is
 * answered as one PMIX_QUERY_ATTRIBUTE_SUPPORT entry. */
static const char *answer_key(const pmix_query_t *q, size_t i)
{
    if (strcmp(q->keys[0], PMIX_QUERY_ATTRIBUTE_SUPPORT) == 0)
        return i == 0 ? PMIX_QUERY_ATTRIBUTE_SUPPORT : NULL;
    return q->keys[i];
}

/* Results are flat: one entry per key found, under that key, in the order of the queries
 * and of their keys. Each line names the query the entry answers, found by walking the
 * asked keys in order; an entry under a key not asked (or out of that order) fails. */
static void print_results(int c, pmix_status_t rc, const pmix_info_t *res, size_t n)
{
    const call_t *call = &calls[c];
    size_t qi = 0, ki = 0;

    printf("pxc_query: call %d status %s nresults %zu\n", c, PMIx_Error_string(rc), n);
    for (size_t i = 0; i < n; i++) {
        bool found = false;
        size_t at = 0;
        char *b = NULL;
        size_t l = 0;

        while (!found && qi < call->nq) {
            const char *want = answer_key(&call->q[qi], ki);

            if (!want) {
                qi++;
                ki = 0;
                continue;
            }
            ki++;
            if (PMIX_CHECK_KEY(&res[i], want)) {
                found = true;
                at = qi;
            }
        }
        if (!found)
            pxc_fail("call %d result %zu: key %s is not a key asked (in the order asked)", c, i,
                     res[i].key);
        render_elem(&b, &l, PMIX_INFO, &res[i]);
        printf("pxc_query: call %d query %zu %s\n", c, at, b);
        free(b);
    }
    fflush(stdout);
}

/* ---- non-blocking ---- */

static pthread_mutex_t nb_lock = PTHREAD_MUTEX_INITIALIZER;
static bool in_call; /* the caller is inside PMIx_Query_info_nb */
static pthread_t caller;

typedef struct {
    pxc_cb_t cb;
    int c;
} nb_t;

static void nb_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                  pmix_release_cbfunc_t relfn, void *relcbdata)
{
    nb_t *nb = cbdata;
    bool inside;

    pthread_mutex_lock(&nb_lock);
    inside = in_call && pthread_equal(caller, pthread_self());
    pthread_mutex_unlock(&nb_lock);
    if (inside)
        pxc_fail("PMIx_Query_info_nb called back inside the call");
    if (nb->cb.calls > 0)
        pxc_fail("PMIx_Query_info_nb called back twice");
    print_results(nb->c, status, info, ninfo);
    if (relfn)
        relfn(relcbdata);
    pxc_cb_mark(&nb->cb, status);
}

static pmix_proc_t me;

static void run_call(int c)
{
    call_t *call = &calls[c];
    pmix_status_t rc;

    if (call->nq == 0)
        return;
    for (size_t i = 0; i < call->nq; i++)
        for (size_t j = 0; j < call->q[i].nqual; j++) {
            pmix_info_t *qi = &call->q[i].qualifiers[j];

            if (qi->value.type == PMIX_STRING && strcmp(qi->value.data.string, "@ns") == 0) {
                free(qi->value.data.string);
                qi->value.data.string = strdup(me.nspace);
            }
        }
    if (call->nb) {
        nb_t nb = {.c = c};

        pxc_cb_init(&nb.cb);
        pthread_mutex_lock(&nb_lock);
        in_call = true;
        caller = pthread_self();
        pthread_mutex_unlock(&nb_lock);
        rc = PMIx_Query_info_nb(call->q, call->nq, nb_cb, &nb);
        pthread_mutex_lock(&nb_lock);
        in_call = false;
        pthread_mutex_unlock(&nb_lock);
        if (rc != PMIX_SUCCESS)
            pxc_fail("PMIx_Query_info_nb: %s", PMIx_Error_string(rc));
        if (!pxc_cb_wait(&nb.cb, 20))
            pxc_fail("PMIx_Query_info_nb: no callback");
        rc = nb.cb.status;
    } else {
        pmix_info_t *res = NULL;
        size_t n = 0;

        rc = PMIx_Query_info(call->q, call->nq, &res, &n);
        print_results(c, rc, res, n);
        if (rc != PMIX_SUCCESS && rc != PMIX_QUERY_PARTIAL_SUCCESS && (res || n))
            pxc_fail("call %d: status %s with results", c, PMIx_Error_string(rc));
        if (res)
            PMIx_Info_free(res, n);
    }
    if (rc != call->expect)
        pxc_fail("call %d: status %s, expected %s", c, PMIx_Error_string(rc),
                 PMIx_Error_string(call->expect));
}

static void expect_st(pmix_status_t got, pmix_status_t want, const char *what)
{
    if (got != want)
        pxc_fail("%s returned %s, expected %s", what, PMIx_Error_string(got),
                 PMIx_Error_string(want));
}

static int cb_calls;

static void never_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                     pmix_release_cbfunc_t relfn, void *relcbdata)
{
    (void)status, (void)info, (void)ninfo, (void)cbdata;
    cb_calls++;
    if (relfn)
        relfn(relcbdata);
}

/* Bad input: every call answers at once, no callback ever comes. */
static void bad_args(bool initialized)
{
    pmix_query_t q, nokeys, emptykeys, noquals;
    pmix_info_t *res = (pmix_info_t *)&q; /* must come back NULL */
    size_t n = 7;
    char *empty[] = {NULL};
    pmix_status_t want = initialized ? PMIX_ERR_BAD_PARAM : PMIX_ERR_INIT;

    PMIX_QUERY_CONSTRUCT(&q);
    PMIX_QUERY_CONSTRUCT(&nokeys);
    PMIX_QUERY_CONSTRUCT(&emptykeys);
    PMIX_QUERY_CONSTRUCT(&noquals);
    PMIx_Argv_append_nosize(&q.keys, PMIX_QUERY_NAMESPACES);
    emptykeys.keys = empty;
    PMIx_Argv_append_nosize(&noquals.keys, PMIX_QUERY_NAMESPACES);
    noquals.nqual = 2;
    if (!initialized) {
        expect_st(PMIx_Query_info(&q, 1, &res, &n), PMIX_ERR_INIT, "PMIx_Query_info before init");
        if (res || n)
            pxc_fail("PMIx_Query_info before init left results");
        expect_st(PMIx_Query_info_nb(&q, 1, never_cb, NULL), PMIX_ERR_INIT,
                  "PMIx_Query_info_nb before init");
    }
    expect_st(PMIx_Query_info(NULL, 1, &res, &n), want, "PMIx_Query_info(NULL queries)");
    expect_st(PMIx_Query_info(&q, 0, &res, &n), want, "PMIx_Query_info(0 queries)");
    expect_st(PMIx_Query_info(&nokeys, 1, &res, &n), want, "PMIx_Query_info(NULL keys)");
    expect_st(PMIx_Query_info(&emptykeys, 1, &res, &n), want, "PMIx_Query_info(no keys)");
    expect_st(PMIx_Query_info(&noquals, 1, &res, &n), want, "PMIx_Query_info(nqual 2, NULL)");
    expect_st(PMIx_Query_info(&q, 1, NULL, &n), want, "PMIx_Query_info(NULL results)");
    expect_st(PMIx_Query_info(&q, 1, &res, NULL), want, "PMIx_Query_info(NULL nresults)");
    expect_st(PMIx_Query_info_nb(NULL, 1, never_cb, NULL), want, "PMIx_Query_info_nb(NULL)");
    expect_st(PMIx_Query_info_nb(&q, 0, never_cb, NULL), want, "PMIx_Query_info_nb(0 queries)");
    expect_st(PMIx_Query_info_nb(&emptykeys, 1, never_cb, NULL), want,
              "PMIx_Query_info_nb(no keys)");
    expect_st(PMIx_Query_info_nb(&q, 1, NULL, NULL), want, "PMIx_Query_info_nb(NULL cbfunc)");
    if (initialized && (res != NULL || n != 0))
        pxc_fail("PMIx_Query_info with bad input left results");
    emptykeys.keys = NULL;
    PMIX_QUERY_DESTRUCT(&q);
    PMIX_QUERY_DESTRUCT(&noquals);
    sleep(1);
    if (cb_calls)
        pxc_fail("a query with bad input called back");
    printf("pxc_query: bad arguments refused (%s)\n", initialized ? "after init" : "before init");
}

int main(int argc, char **argv)
{
    int size, rank = 0;
    bool init = true, bad = false;

    pxc_name = "pxc_query";
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : "";

        if (strcmp(argv[i], "--query") == 0) {
            parse_query(v);
            i++;
        } else if (strcmp(argv[i], "--expect") == 0) {
            calls[ncalls - 1].expect = status_of(v);
            i++;
        } else if (strcmp(argv[i], "--nb") == 0) {
            calls[ncalls - 1].nb = true;
        } else if (strcmp(argv[i], "--call") == 0) {
            if (ncalls == MAXC)
                pxc_fail("too many calls");
            ncalls++;
        } else if (strcmp(argv[i], "--rank") == 0) {
            rank = pxc_parse_int("--rank", v);
            i++;
        } else if (strcmp(argv[i], "--no-init") == 0) {
            init = false;
        } else if (strcmp(argv[i], "--bad-args") == 0) {
            bad = true;
        } else {
            pxc_fail("unknown option %s", argv[i]);
        }
    }
    if (bad)
        bad_args(false);
    if (init) {
        pxc_init(&me, &size);
        if ((int)me.rank != rank)
            goto out;
    }
    if (bad)
        bad_args(true);
    for (int c = 0; c < ncalls; c++)
        run_call(c);
out:
    for (int c = 0; c < ncalls; c++)
        for (size_t i = 0; i < calls[c].nq; i++)
            PMIX_QUERY_DESTRUCT(&calls[c].q[i]);
    if (init) {
        pmix_status_t rc = PMIx_Finalize(NULL, 0);
        if (rc != PMIX_SUCCESS)
            pxc_fail("PMIx_Finalize: %s", PMIx_Error_string(rc));
    }
    return 0;
}
