/* dvm_pset - process sets as a process on any node sees them (test/dvm/t_multinode.sh,
 * public PMIx API only). Its node is $PX_PRTED_TEST_NODENAME (a fake node's prted sets
 * it), else its hostname.
 *   names        init; print "names rank R host H get=G query=Q members=M": G the
 *                PMIx_Get(me, PMIX_PSET_NAMES) (comma-separated, "-" none), Q the
 *                PMIX_QUERY_PSET_NAMES answer, M the ranks PMIX_QUERY_PSET_MEMBERSHIP gives
 *                for the first name of G ("-" none); finalize
 *   watch NAME   init; register for PMIX_PROCESS_SET_DEFINE and _DELETE; print "watch rank
 *                R ready"; wait (up to 60 s) until NAME was defined and deleted; print
 *                "watch rank R host H define NAME members=N" and "... delete NAME" as each
 *                arrives (or "watch rank R timed out"); finalize
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

static pmix_proc_t me;
static char host[256];

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "dvm_pset rank %u: %s: %s\n", me.rank, what, PMIx_Error_string(rc));
    exit(99);
}

/* The comma-separated strings of a value (a string array, or one string). */
static void strings(const pmix_value_t *v, char *out, size_t len)
{
    out[0] = '\0';
    if (v->type == PMIX_STRING && v->data.string != NULL) {
        snprintf(out, len, "%s", v->data.string);
    } else if (v->type == PMIX_DATA_ARRAY && v->data.darray != NULL &&
               v->data.darray->type == PMIX_STRING) {
        char **s = v->data.darray->array;
        for (size_t i = 0; i < v->data.darray->size; i++) {
            size_t l = strlen(out);
            snprintf(out + l, len - l, "%s%s", i ? "," : "", s[i]);
        }
    }
    if (out[0] == '\0') {
        snprintf(out, len, "-");
    }
}

/* The value of key in a query's answer (flat, or inside PMIX_QUERY_RESULTS). */
static const pmix_value_t *result(const pmix_info_t *res, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&res[i], key)) {
            return &res[i].value;
        }
        if (PMIX_CHECK_KEY(&res[i], PMIX_QUERY_RESULTS) && res[i].value.type == PMIX_DATA_ARRAY &&
            res[i].value.data.darray != NULL && res[i].value.data.darray->type == PMIX_INFO) {
            const pmix_value_t *v =
                result(res[i].value.data.darray->array, res[i].value.data.darray->size, key);
            if (v != NULL) {
                return v;
            }
        }
    }
    return NULL;
}

static void names(void)
{
    char get[512] = "-", query[512] = "-", members[512] = "-";
    pmix_value_t *v = NULL;
    if (PMIx_Get(&me, PMIX_PSET_NAMES, NULL, 0, &v) == PMIX_SUCCESS && v != NULL) {
        strings(v, get, sizeof(get));
        PMIx_Value_free(v, 1);
    }
    char first[sizeof(get)];
    snprintf(first, sizeof(first), "%s", get);
    char *comma = strchr(first, ',');
    if (comma != NULL) {
        *comma = '\0';
    }
    pmix_query_t q[2];
    PMIX_QUERY_CONSTRUCT(&q[0]);
    PMIX_QUERY_CONSTRUCT(&q[1]);
    char *k0[] = {PMIX_QUERY_PSET_NAMES, NULL};
    char *k1[] = {PMIX_QUERY_PSET_MEMBERSHIP, NULL};
    q[0].keys = k0;
    q[1].keys = k1;
    pmix_info_t qual;
    PMIX_INFO_LOAD(&qual, PMIX_PSET_NAME, first, PMIX_STRING);
    q[1].qualifiers = &qual;
    q[1].nqual = 1;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc = PMIx_Query_info(q, strcmp(first, "-") != 0 ? 2 : 1, &res, &nres);
    if (rc == PMIX_SUCCESS || rc == PMIX_ERR_PARTIAL_SUCCESS) {
        const pmix_value_t *r = result(res, nres, PMIX_QUERY_PSET_NAMES);
        if (r != NULL) {
            strings(r, query, sizeof(query));
        }
        r = result(res, nres, PMIX_QUERY_PSET_MEMBERSHIP);
        if (r != NULL && r->type == PMIX_DATA_ARRAY && r->data.darray != NULL &&
            r->data.darray->type == PMIX_PROC) {
            const pmix_proc_t *p = r->data.darray->array;
            members[0] = '\0';
            for (size_t i = 0; i < r->data.darray->size; i++) {
                size_t l = strlen(members);
                snprintf(members + l, sizeof(members) - l, "%s%u", i ? "," : "", p[i].rank);
            }
        }
    }
    PMIx_Info_free(res, nres);
    PMIX_INFO_DESTRUCT(&qual);
    printf("names rank %u host %s get=%s query=%s members=%s\n", me.rank, host, get, query,
           members);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static const char *watched;
static bool defined, deleted;

static void on_pset(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                    size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)source;
    (void)results;
    (void)nresults;
    const char *name = NULL;
    size_t nmembers = 0;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_PSET_NAME) && info[i].value.type == PMIX_STRING) {
            name = info[i].value.data.string;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_PSET_MEMBERS) &&
                   info[i].value.type == PMIX_DATA_ARRAY && info[i].value.data.darray != NULL) {
            nmembers = info[i].value.data.darray->size;
        }
    }
    if (name != NULL && strcmp(name, watched) == 0) {
        pthread_mutex_lock(&lock);
        if (status == PMIX_PROCESS_SET_DEFINE) {
            printf("watch rank %u host %s define %s members=%zu\n", me.rank, host, name, nmembers);
            defined = true;
        } else {
            printf("watch rank %u host %s delete %s\n", me.rank, host, name);
            deleted = true;
        }
        fflush(stdout);
        pthread_cond_broadcast(&cond);
        pthread_mutex_unlock(&lock);
    }
    if (cbfunc != NULL) {
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
    }
}

static void watch(const char *name)
{
    watched = name;
    pmix_status_t codes[] = {PMIX_PROCESS_SET_DEFINE, PMIX_PROCESS_SET_DELETE};
    pmix_status_t rc = PMIx_Register_event_handler(codes, 2, NULL, 0, on_pset, NULL, NULL);
    if (rc < 0) {
        die("PMIx_Register_event_handler", rc);
    }
    printf("watch rank %u ready\n", me.rank);
    fflush(stdout);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 60;
    pthread_mutex_lock(&lock);
    int err = 0;
    while (!(defined && deleted) && err == 0) {
        err = pthread_cond_timedwait(&cond, &lock, &until);
    }
    if (!(defined && deleted)) {
        printf("watch rank %u timed out\n", me.rank);
    }
    pthread_mutex_unlock(&lock);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: dvm_pset names | watch NAME\n");
        return 2;
    }
    const char *fake = getenv("PX_PRTED_TEST_NODENAME");
    if (fake != NULL && *fake != '\0') {
        snprintf(host, sizeof(host), "%s", fake);
    } else if (gethostname(host, sizeof(host)) != 0) {
        snprintf(host, sizeof(host), "?");
    }
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_Init", rc);
    }
    if (strcmp(argv[1], "names") == 0) {
        names();
    } else if (strcmp(argv[1], "watch") == 0 && argc > 2) {
        watch(argv[2]);
    } else {
        fprintf(stderr, "dvm_pset: unknown operation %s\n", argv[1]);
        PMIx_Finalize(NULL, 0);
        return 2;
    }
    fflush(stdout);
    rc = PMIx_Finalize(NULL, 0);
    return rc == PMIX_SUCCESS ? 0 : 1;
}
