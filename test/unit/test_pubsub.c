/* Unit tests of launcher/pubsub.c, the DVM's name service datastore: ranges, the
 * publisher's user, duplicates, persistence, lookups waiting for keys and their
 * timeout. Runs the datastore on a private event base. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "launcher/px_pubsub.h"

static struct event_base *base;
static px_pubsub_t *ps;

static void setup(void)
{
    base = event_base_new();
    cr_assert_not_null(base);
    ps = px_pubsub_create(base);
    cr_assert_not_null(ps);
}

static void teardown(void)
{
    px_pubsub_destroy(ps);
    event_base_free(base);
}

TestSuite(pubsub, .init = setup, .fini = teardown);

static px_pubsub_who_t who(const char *ns, pmix_rank_t rank, uint32_t uid)
{
    px_pubsub_who_t w;
    memset(&w, 0, sizeof(w));
    PMIx_Load_procid(&w.proc, ns, rank);
    w.uid = uid;
    w.gid = uid;
    return w;
}

static pmix_status_t pub(const px_pubsub_who_t *w, const char *key, const char *val,
                         pmix_data_range_t range, pmix_persistence_t persist)
{
    pmix_info_t info;
    PMIx_Info_load(&info, key, val, PMIX_STRING);
    pmix_status_t rc = px_pubsub_publish(ps, w, range, persist, &info, 1);
    PMIx_Info_destruct(&info);
    return rc;
}

/* What a lookup answered. */
typedef struct {
    int calls;
    pmix_status_t status;
    size_t n;
    char values[4][64];
    pmix_proc_t procs[4];
} answer_t;

static void on_answer(pmix_status_t status, pmix_pdata_t data[], size_t ndata, void *cbdata)
{
    answer_t *a = cbdata;
    a->calls++;
    a->status = status;
    a->n = ndata;
    for (size_t i = 0; i < ndata && i < 4; i++) {
        cr_assert_eq(data[i].value.type, PMIX_STRING);
        snprintf(a->values[i], sizeof(a->values[i]), "%s", data[i].value.data.string);
        a->procs[i] = data[i].proc;
    }
}

/* A lookup answered at once: its status, and its value in out (when found). */
static pmix_status_t look(const px_pubsub_who_t *w, const char *key, pmix_data_range_t range,
                          char *out)
{
    char *keys[] = {(char *)key, NULL};
    answer_t a = {0};
    cr_assert_eq(px_pubsub_lookup(ps, w, range, keys, -1, 0, on_answer, &a), PMIX_SUCCESS);
    cr_assert_eq(a.calls, 1, "a lookup without PMIX_WAIT is answered at once");
    if (out != NULL) {
        strcpy(out, a.status == PMIX_SUCCESS ? a.values[0] : "");
    }
    return a.status;
}

Test(pubsub, found_with_its_publisher)
{
    px_pubsub_who_t a = who("job1", 0, 1000), b = who("job2", 3, 1000);
    cr_assert_eq(pub(&a, "svc", "port-1", PMIX_RANGE_UNDEF, PMIX_PERSIST_INVALID), PMIX_SUCCESS);
    char *keys[] = {"svc", NULL};
    answer_t r = {0};
    cr_assert_eq(px_pubsub_lookup(ps, &b, PMIX_RANGE_UNDEF, keys, -1, 0, on_answer, &r),
                 PMIX_SUCCESS);
    cr_assert_eq(r.calls, 1);
    cr_assert_eq(r.status, PMIX_SUCCESS);
    cr_assert_eq(r.n, 1);
    cr_assert_str_eq(r.values[0], "port-1");
    cr_assert(PMIx_Check_procid(&r.procs[0], &a.proc));
    cr_assert_eq(look(&b, "nothere", PMIX_RANGE_UNDEF, NULL), PMIX_ERR_NOT_FOUND);
}

Test(pubsub, other_users_see_only_the_global_range)
{
    px_pubsub_who_t a = who("job1", 0, 1000), other = who("job2", 0, 2000);
    cr_assert_eq(pub(&a, "mine", "x", PMIX_RANGE_SESSION, PMIX_PERSIST_APP), PMIX_SUCCESS);
    cr_assert_eq(pub(&a, "open", "y", PMIX_RANGE_GLOBAL, PMIX_PERSIST_APP), PMIX_SUCCESS);
    cr_assert_eq(look(&other, "mine", PMIX_RANGE_GLOBAL, NULL), PMIX_ERR_NOT_FOUND);
    char v[64];
    cr_assert_eq(look(&other, "open", PMIX_RANGE_UNDEF, v), PMIX_SUCCESS);
    cr_assert_str_eq(v, "y");
    /* the other user may publish the same key in its own session scope */
    cr_assert_eq(pub(&other, "mine", "z", PMIX_RANGE_SESSION, PMIX_PERSIST_APP), PMIX_SUCCESS);
    cr_assert_eq(look(&other, "mine", PMIX_RANGE_UNDEF, v), PMIX_SUCCESS);
    cr_assert_str_eq(v, "z");
    cr_assert_eq(look(&a, "mine", PMIX_RANGE_UNDEF, v), PMIX_SUCCESS);
    cr_assert_str_eq(v, "x");
}

Test(pubsub, namespace_and_proc_ranges)
{
    px_pubsub_who_t a0 = who("job1", 0, 1), a1 = who("job1", 1, 1), b = who("job2", 0, 1);
    cr_assert_eq(pub(&a0, "ns", "n", PMIX_RANGE_NAMESPACE, PMIX_PERSIST_APP), PMIX_SUCCESS);
    cr_assert_eq(pub(&a0, "me", "m", PMIX_RANGE_PROC_LOCAL, PMIX_PERSIST_APP), PMIX_SUCCESS);
    cr_assert_eq(look(&a1, "ns", PMIX_RANGE_UNDEF, NULL), PMIX_SUCCESS);
    cr_assert_eq(look(&b, "ns", PMIX_RANGE_UNDEF, NULL), PMIX_ERR_NOT_FOUND);
    cr_assert_eq(look(&a0, "me", PMIX_RANGE_UNDEF, NULL), PMIX_SUCCESS);
    cr_assert_eq(look(&a1, "me", PMIX_RANGE_UNDEF, NULL), PMIX_ERR_NOT_FOUND);
    /* a lookup's range restricts the publishers searched */
    cr_assert_eq(pub(&b, "sess", "s", PMIX_RANGE_SESSION, PMIX_PERSIST_APP), PMIX_SUCCESS);
    cr_assert_eq(look(&a0, "sess", PMIX_RANGE_SESSION, NULL), PMIX_SUCCESS);
    cr_assert_eq(look(&a0, "sess", PMIX_RANGE_NAMESPACE, NULL), PMIX_ERR_NOT_FOUND);
    cr_assert_eq(look(&b, "sess", PMIX_RANGE_PROC_LOCAL, NULL), PMIX_SUCCESS);
}

Test(pubsub, duplicates_per_range_and_the_narrowest_wins)
{
    px_pubsub_who_t a = who("job1", 0, 1), b = who("job2", 0, 1);
    cr_assert_eq(pub(&a, "k", "session", PMIX_RANGE_SESSION, PMIX_PERSIST_APP), PMIX_SUCCESS);
    cr_assert_eq(pub(&b, "k", "again", PMIX_RANGE_SESSION, PMIX_PERSIST_APP),
                 PMIX_ERR_DUPLICATE_KEY);
    cr_assert_eq(pub(&a, "k", "ns", PMIX_RANGE_NAMESPACE, PMIX_PERSIST_APP), PMIX_SUCCESS);
    cr_assert_eq(pub(&b, "k", "ns-b", PMIX_RANGE_NAMESPACE, PMIX_PERSIST_APP), PMIX_SUCCESS);
    char v[64];
    cr_assert_eq(look(&a, "k", PMIX_RANGE_UNDEF, v), PMIX_SUCCESS);
    cr_assert_str_eq(v, "ns");
    cr_assert_eq(look(&b, "k", PMIX_RANGE_UNDEF, v), PMIX_SUCCESS);
    cr_assert_str_eq(v, "ns-b");
    cr_assert_eq(px_pubsub_count(ps), 3);
}

Test(pubsub, unsupported_ranges_are_refused)
{
    px_pubsub_who_t a = who("job1", 0, 1);
    cr_assert_eq(pub(&a, "k", "v", PMIX_RANGE_RM, PMIX_PERSIST_APP), PMIX_ERR_NOT_SUPPORTED);
    cr_assert_eq(pub(&a, "k", "v", PMIX_RANGE_CUSTOM, PMIX_PERSIST_APP), PMIX_ERR_NOT_SUPPORTED);
    cr_assert_eq(pub(&a, "k", "v", PMIX_RANGE_SESSION, 17), PMIX_ERR_NOT_SUPPORTED);
    char *keys[] = {"k", NULL};
    answer_t r = {0};
    cr_assert_eq(px_pubsub_lookup(ps, &a, PMIX_RANGE_CUSTOM, keys, -1, 0, on_answer, &r),
                 PMIX_ERR_NOT_SUPPORTED);
    cr_assert_eq(r.calls, 0);
    cr_assert_eq(px_pubsub_count(ps), 0);
}

Test(pubsub, persistence)
{
    px_pubsub_who_t a0 = who("job1", 0, 1), a1 = who("job1", 1, 1), b = who("job2", 0, 1);
    cr_assert_eq(pub(&a0, "proc", "p", PMIX_RANGE_SESSION, PMIX_PERSIST_PROC), PMIX_SUCCESS);
    cr_assert_eq(pub(&a1, "proc1", "p", PMIX_RANGE_SESSION, PMIX_PERSIST_PROC), PMIX_SUCCESS);
    cr_assert_eq(pub(&a0, "app", "a", PMIX_RANGE_SESSION, PMIX_PERSIST_APP), PMIX_SUCCESS);
    cr_assert_eq(pub(&a0, "sess", "s", PMIX_RANGE_SESSION, PMIX_PERSIST_SESSION), PMIX_SUCCESS);
    cr_assert_eq(pub(&a0, "indef", "i", PMIX_RANGE_SESSION, PMIX_PERSIST_INDEF), PMIX_SUCCESS);
    cr_assert_eq(pub(&a0, "once", "o", PMIX_RANGE_SESSION, PMIX_PERSIST_FIRST_READ), PMIX_SUCCESS);
    cr_assert_eq(look(&b, "once", PMIX_RANGE_UNDEF, NULL), PMIX_SUCCESS);
    cr_assert_eq(look(&b, "once", PMIX_RANGE_UNDEF, NULL), PMIX_ERR_NOT_FOUND);
    px_pubsub_proc_ended(ps, &a0.proc);
    cr_assert_eq(look(&b, "proc", PMIX_RANGE_UNDEF, NULL), PMIX_ERR_NOT_FOUND);
    cr_assert_eq(look(&b, "proc1", PMIX_RANGE_UNDEF, NULL), PMIX_SUCCESS);
    cr_assert_eq(look(&b, "app", PMIX_RANGE_UNDEF, NULL), PMIX_SUCCESS);
    px_pubsub_job_ended(ps, "job1");
    cr_assert_eq(look(&b, "proc1", PMIX_RANGE_UNDEF, NULL), PMIX_ERR_NOT_FOUND);
    cr_assert_eq(look(&b, "app", PMIX_RANGE_UNDEF, NULL), PMIX_ERR_NOT_FOUND);
    cr_assert_eq(look(&b, "sess", PMIX_RANGE_UNDEF, NULL), PMIX_SUCCESS);
    cr_assert_eq(look(&b, "indef", PMIX_RANGE_UNDEF, NULL), PMIX_SUCCESS);
    cr_assert_eq(px_pubsub_count(ps), 2);
}

Test(pubsub, unpublish_own_entries_only)
{
    px_pubsub_who_t a = who("job1", 0, 1), b = who("job2", 0, 1);
    cr_assert_eq(pub(&a, "k1", "1", PMIX_RANGE_SESSION, PMIX_PERSIST_APP), PMIX_SUCCESS);
    cr_assert_eq(pub(&a, "k2", "2", PMIX_RANGE_SESSION, PMIX_PERSIST_APP), PMIX_SUCCESS);
    char *k1[] = {"k1", NULL};
    cr_assert_eq(px_pubsub_unpublish(ps, &b, PMIX_RANGE_UNDEF, k1), PMIX_ERR_NOT_FOUND);
    cr_assert_eq(px_pubsub_unpublish(ps, &a, PMIX_RANGE_NAMESPACE, k1), PMIX_ERR_NOT_FOUND);
    cr_assert_eq(px_pubsub_unpublish(ps, &a, PMIX_RANGE_UNDEF, k1), PMIX_SUCCESS);
    cr_assert_eq(look(&b, "k1", PMIX_RANGE_UNDEF, NULL), PMIX_ERR_NOT_FOUND);
    cr_assert_eq(px_pubsub_unpublish(ps, &a, PMIX_RANGE_UNDEF, NULL), PMIX_SUCCESS);
    cr_assert_eq(px_pubsub_count(ps), 0);
}

Test(pubsub, a_waiting_lookup_is_answered_when_all_keys_appear)
{
    px_pubsub_who_t a = who("job1", 0, 1), b = who("job2", 0, 1);
    char *keys[] = {"x", "y", NULL};
    answer_t r = {0};
    cr_assert_eq(px_pubsub_lookup(ps, &b, PMIX_RANGE_UNDEF, keys, 0, 30, on_answer, &r),
                 PMIX_SUCCESS);
    cr_assert_eq(r.calls, 0);
    cr_assert_eq(pub(&a, "x", "vx", PMIX_RANGE_SESSION, PMIX_PERSIST_APP), PMIX_SUCCESS);
    cr_assert_eq(r.calls, 0, "PMIX_WAIT 0 waits for every key");
    /* not visible to the waiter: does not count */
    cr_assert_eq(pub(&a, "y", "hidden", PMIX_RANGE_NAMESPACE, PMIX_PERSIST_APP), PMIX_SUCCESS);
    cr_assert_eq(r.calls, 0);
    cr_assert_eq(pub(&a, "y", "vy", PMIX_RANGE_SESSION, PMIX_PERSIST_APP), PMIX_SUCCESS);
    cr_assert_eq(r.calls, 1);
    cr_assert_eq(r.status, PMIX_SUCCESS);
    cr_assert_eq(r.n, 2);
    cr_assert_str_eq(r.values[0], "vx");
    cr_assert_str_eq(r.values[1], "vy");
    /* PMIX_WAIT 1: one key is enough */
    char *keys2[] = {"z", "x", NULL};
    answer_t r2 = {0};
    cr_assert_eq(px_pubsub_lookup(ps, &b, PMIX_RANGE_UNDEF, keys2, 1, 0, on_answer, &r2),
                 PMIX_SUCCESS);
    cr_assert_eq(r2.calls, 1);
    cr_assert_eq(r2.n, 1);
    cr_assert_str_eq(r2.values[0], "vx");
}

Test(pubsub, a_waiting_lookup_times_out)
{
    px_pubsub_who_t b = who("job2", 0, 1);
    char *keys[] = {"never", NULL};
    answer_t r = {0};
    cr_assert_eq(px_pubsub_lookup(ps, &b, PMIX_RANGE_UNDEF, keys, 0, 1, on_answer, &r),
                 PMIX_SUCCESS);
    cr_assert_eq(r.calls, 0);
    event_base_dispatch(base); /* returns once the timer fired: nothing else is pending */
    cr_assert_eq(r.calls, 1);
    cr_assert_eq(r.status, PMIX_ERR_TIMEOUT);
}

Test(pubsub, waiters_are_answered_when_their_process_or_the_session_ends)
{
    px_pubsub_who_t b = who("job2", 0, 1), c = who("job3", 0, 1);
    char *keys[] = {"never", NULL};
    answer_t rb = {0}, rc = {0};
    cr_assert_eq(px_pubsub_lookup(ps, &b, PMIX_RANGE_UNDEF, keys, 0, 0, on_answer, &rb),
                 PMIX_SUCCESS);
    cr_assert_eq(px_pubsub_lookup(ps, &c, PMIX_RANGE_UNDEF, keys, 0, 0, on_answer, &rc),
                 PMIX_SUCCESS);
    px_pubsub_proc_ended(ps, &b.proc);
    cr_assert_eq(rb.calls, 1);
    cr_assert_eq(rb.status, PMIX_ERR_NOT_FOUND);
    cr_assert_eq(rc.calls, 0);
    px_pubsub_destroy(ps);
    ps = NULL;
    cr_assert_eq(rc.calls, 1);
    cr_assert_eq(rc.status, PMIX_ERR_NOT_FOUND);
}
