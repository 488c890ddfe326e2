/* Unit tests for event/: one test per rule of the Events chapter (chain order by category,
 * FIRST/LAST, in-category directives, source ranges, affected procs, results
 * aggregation, termination, deregistration) plus the engine's threading contract. Every
 * test runs a real progress loop on its own thread, bound with px_evt_bind; waits are
 * bounded latches. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "event/px_event.h"
#include "net/px_progress.h"

#define WAIT_MS 10000
#define E1      1001 /* event codes of our own (positive: outside the Standard's) */
#define E2      1002
#define E3      1003

static px_progress_t *loop;

/* ---- who "me" is: job:0; nspace "near" is local; "rm" is the resource manager ---- */

static bool is_local(const pmix_proc_t *p)
{
    return 0 == strcmp(p->nspace, "near");
}

static bool is_rm(const pmix_proc_t *p)
{
    return 0 == strcmp(p->nspace, "rm");
}

static void setup(void)
{
    px_evt_self_t self = {.is_local = is_local, .is_rm = is_rm};
    PMIx_Load_procid(&self.me, "job", 0);
    loop = px_progress_create(NULL);
    cr_assert_not_null(loop);
    cr_assert_eq(px_progress_start(loop), 0);
    cr_assert_eq(px_evt_bind(loop, &self), PMIX_SUCCESS);
}

static void teardown(void)
{
    px_evt_unbind();
    px_progress_destroy(loop);
}

TestSuite(event, .init = setup, .fini = teardown);

/* ---- recording handlers ---- */

static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static char seq[256]; /* tags of the handlers called, in call order */

typedef struct {
    size_t id;
    char tag;
    pmix_status_t ret; /* what the handler passes to its completion */
} hcfg_t;
static hcfg_t cfg[64];
static int ncfg;

static hcfg_t *cfg_of(size_t id)
{
    for (int k = 0; k < ncfg; k++) {
        if (cfg[k].id == id) {
            return &cfg[k];
        }
    }
    cr_assert_fail("handler %zu not registered by the test", id);
    return NULL;
}

static void record(char c)
{
    pthread_mutex_lock(&rec_lock);
    size_t n = strlen(seq);
    if (n + 1 < sizeof(seq)) {
        seq[n] = c;
        seq[n + 1] = '\0';
    }
    pthread_mutex_unlock(&rec_lock);
}

static void rec(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                size_t ninfo, pmix_info_t *results, size_t nresults,
                pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)status, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    hcfg_t *h = cfg_of(id);
    cr_assert(px_progress_on_loop(loop), "handlers run on the bound loop");
    record(h->tag);
    cbfunc(h->ret, NULL, 0, NULL, NULL, cbdata);
}

static pmix_status_t reg_fn(char tag, const pmix_status_t *codes, size_t ncodes,
                            const pmix_info_t *info, size_t ninfo, pmix_notification_fn_t fn,
                            size_t *id)
{
    size_t myid = 0;
    pmix_status_t rc = px_evt_register(codes, ncodes, info, ninfo, fn, &myid);
    if (PMIX_SUCCESS == rc) {
        cr_assert_lt(ncfg, 64);
        cfg[ncfg++] = (hcfg_t){.id = myid, .tag = tag, .ret = PMIX_SUCCESS};
        px_evt_activate(myid);
        if (NULL != id) {
            *id = myid;
        }
    }
    return rc;
}

/* Register an active recording handler; asserts success. */
static size_t reg(char tag, const pmix_status_t *codes, size_t ncodes, const pmix_info_t *info,
                  size_t ninfo)
{
    size_t id = 0;
    cr_assert_eq(reg_fn(tag, codes, ncodes, info, ninfo, rec, &id), PMIX_SUCCESS);
    return id;
}

static const pmix_status_t c_e1[] = {E1};
static const pmix_status_t c_e2[] = {E2};
static const pmix_status_t c_e1e2[] = {E1, E2};
static const pmix_status_t c_e2e3[] = {E2, E3};

static pmix_info_t *inf_bool(const char *key)
{
    pmix_info_t *i = PMIx_Info_create(1);
    bool t = true;
    PMIx_Info_load(i, key, &t, PMIX_BOOL);
    return i;
}

static pmix_info_t *inf_str(const char *key, const char *val)
{
    pmix_info_t *i = PMIx_Info_create(1);
    PMIx_Info_load(i, key, val, PMIX_STRING);
    return i;
}

static pmix_info_t *inf_name2(const char *name, const char *key, const char *val)
{
    pmix_info_t *i = PMIx_Info_create(2);
    PMIx_Info_load(&i[0], PMIX_EVENT_HDLR_NAME, name, PMIX_STRING);
    PMIx_Info_load(&i[1], key, val, PMIX_STRING);
    return i;
}

static pmix_info_t *inf_range(pmix_data_range_t r)
{
    pmix_info_t *i = PMIx_Info_create(1);
    PMIx_Info_load(i, PMIX_RANGE, &r, PMIX_DATA_RANGE);
    return i;
}

/* ---- delivering and waiting ---- */

typedef struct {
    px_latch_t latch;
    pmix_status_t status;
    int calls;
} done_t;

static void on_done(pmix_status_t status, void *cbdata)
{
    done_t *d = cbdata;
    cr_assert(px_progress_on_loop(loop));
    d->status = status;
    d->calls++;
    px_latch_release(&d->latch);
}

static pmix_status_t deliver_from(pmix_status_t code, const char *ns, pmix_rank_t rank,
                                  const pmix_info_t *info, size_t ninfo)
{
    done_t d = {.status = -9999};
    pmix_proc_t src;
    PMIx_Load_procid(&src, ns, rank);
    cr_assert_eq(px_latch_init(&d.latch, 1), 0);
    cr_assert_eq(px_evt_deliver(code, &src, PMIX_RANGE_SESSION, info, ninfo, on_done, &d),
                 PMIX_SUCCESS);
    cr_assert_eq(px_latch_wait(&d.latch, WAIT_MS), 0, "chain did not end");
    px_latch_fini(&d.latch);
    cr_assert_eq(d.calls, 1);
    return d.status;
}

static pmix_status_t deliver(pmix_status_t code)
{
    return deliver_from(code, "job", 1, NULL, 0);
}

static void expect_seq(const char *want)
{
    pthread_mutex_lock(&rec_lock);
    cr_assert_str_eq(seq, want);
    seq[0] = '\0';
    pthread_mutex_unlock(&rec_lock);
}

/* ---- categories: single-code, then multi-code, then default ---- */

Test(event, single_code_before_multi_code_before_default)
{
    reg('D', NULL, 0, NULL, 0);
    reg('M', c_e1e2, 2, NULL, 0);
    reg('S', c_e1, 1, NULL, 0);
    reg('T', c_e2, 1, NULL, 0); /* another code: not in E1's chain */
    cr_assert_eq(deliver(E1), PMIX_SUCCESS);
    expect_seq("SMD");
    cr_assert_eq(deliver(E2), PMIX_SUCCESS);
    expect_seq("TMD");
}

Test(event, multi_code_handler_included_for_any_of_its_codes)
{
    reg('M', c_e2e3, 2, NULL, 0);
    deliver(E3);
    expect_seq("M");
    deliver(E2);
    expect_seq("M");
    cr_assert_eq(deliver(E1), PMIX_ERR_NOT_FOUND);
    expect_seq("");
}

Test(event, any_integer_code_can_be_registered)
{
    const pmix_status_t odd[] = {PMIX_EXTERNAL_ERR_BASE - 77, 123456};
    reg('A', &odd[0], 1, NULL, 0);
    reg('B', &odd[1], 1, NULL, 0);
    deliver(odd[0]);
    deliver(odd[1]);
    expect_seq("AB");
}

/* ---- FIRST and LAST ---- */

Test(event, first_runs_before_everything_regardless_of_category)
{
    reg('S', c_e1, 1, NULL, 0);
    pmix_info_t *f = inf_bool(PMIX_EVENT_HDLR_FIRST);
    reg('F', NULL, 0, f, 1); /* a default handler, yet first */
    reg('D', NULL, 0, NULL, 0);
    deliver(E1);
    expect_seq("FSD");
    PMIx_Info_free(f, 1);
}

Test(event, last_runs_after_default_handlers)
{
    pmix_info_t *l = inf_bool(PMIX_EVENT_HDLR_LAST);
    reg('L', c_e1, 1, l, 1); /* a single-code handler, yet after the defaults */
    reg('D', NULL, 0, NULL, 0);
    reg('M', c_e1e2, 2, NULL, 0);
    reg('S', c_e1, 1, NULL, 0);
    deliver(E1);
    expect_seq("SMDL");
    PMIx_Info_free(l, 1);
}

Test(event, first_and_last_only_for_their_codes)
{
    pmix_info_t *f = inf_bool(PMIX_EVENT_HDLR_FIRST);
    pmix_info_t *l = inf_bool(PMIX_EVENT_HDLR_LAST);
    reg('F', c_e2, 1, f, 1);
    reg('L', c_e2, 1, l, 1);
    reg('S', c_e1, 1, NULL, 0);
    deliver(E1);
    expect_seq("S");
    PMIx_Info_free(f, 1);
    PMIx_Info_free(l, 1);
}

Test(event, second_first_or_last_is_refused_with_exists)
{
    pmix_info_t *f = inf_bool(PMIX_EVENT_HDLR_FIRST);
    pmix_info_t *l = inf_bool(PMIX_EVENT_HDLR_LAST);
    size_t id;
    reg('F', c_e1, 1, f, 1);
    reg('L', NULL, 0, l, 1);
    cr_assert_eq(px_evt_register(c_e2, 1, f, 1, rec, &id), PMIX_EXISTS);
    cr_assert_eq(px_evt_register(NULL, 0, l, 1, rec, &id), PMIX_EXISTS);
    cr_assert_eq(px_evt_count(), 2);
    PMIx_Info_free(f, 1);
    PMIx_Info_free(l, 1);
}

Test(event, deregistering_first_or_last_reopens_the_slot)
{
    pmix_info_t *f = inf_bool(PMIX_EVENT_HDLR_FIRST);
    pmix_info_t *l = inf_bool(PMIX_EVENT_HDLR_LAST);
    size_t f1 = reg('F', NULL, 0, f, 1);
    size_t l1 = reg('L', NULL, 0, l, 1);
    cr_assert_eq(px_evt_deregister(f1), PMIX_SUCCESS);
    cr_assert_eq(px_evt_deregister(l1), PMIX_SUCCESS);
    reg('G', NULL, 0, f, 1);
    reg('M', NULL, 0, l, 1);
    reg('S', c_e1, 1, NULL, 0);
    deliver(E1);
    expect_seq("GSM");
    PMIx_Info_free(f, 1);
    PMIx_Info_free(l, 1);
}

Test(event, last_not_called_when_chain_terminated)
{
    pmix_info_t *l = inf_bool(PMIX_EVENT_HDLR_LAST);
    reg('L', NULL, 0, l, 1);
    size_t s = reg('S', c_e1, 1, NULL, 0);
    reg('D', NULL, 0, NULL, 0);
    cfg_of(s)->ret = PMIX_EVENT_ACTION_COMPLETE;
    cr_assert_eq(deliver(E1), PMIX_EVENT_ACTION_COMPLETE);
    expect_seq("S");
    cr_assert_eq(deliver(E2), PMIX_SUCCESS); /* S not in this chain: D then L */
    expect_seq("DL");
    PMIx_Info_free(l, 1);
}

Test(event, first_terminating_stops_everything)
{
    pmix_info_t *f = inf_bool(PMIX_EVENT_HDLR_FIRST);
    size_t id = reg('F', NULL, 0, f, 1);
    reg('S', c_e1, 1, NULL, 0);
    cfg_of(id)->ret = PMIX_EVENT_ACTION_COMPLETE;
    cr_assert_eq(deliver(E1), PMIX_EVENT_ACTION_COMPLETE);
    expect_seq("F");
    PMIx_Info_free(f, 1);
}

/* ---- order within a category ---- */

Test(event, first_and_last_in_category)
{
    pmix_info_t *fic = inf_bool(PMIX_EVENT_HDLR_FIRST_IN_CATEGORY);
    pmix_info_t *lic = inf_bool(PMIX_EVENT_HDLR_LAST_IN_CATEGORY);
    reg('A', c_e1, 1, NULL, 0);
    reg('B', c_e1, 1, lic, 1);
    reg('C', c_e1, 1, fic, 1);
    reg('D', c_e1, 1, NULL, 0);
    reg('x', NULL, 0, fic, 1); /* first among defaults only: still after singles */
    reg('y', NULL, 0, NULL, 0);
    deliver(E1);
    expect_seq("CADBxy");
    PMIx_Info_free(fic, 1);
    PMIx_Info_free(lic, 1);
}

Test(event, prepend_and_append)
{
    pmix_info_t *pre = inf_bool(PMIX_EVENT_HDLR_PREPEND);
    pmix_info_t *app = inf_bool(PMIX_EVENT_HDLR_APPEND);
    reg('A', NULL, 0, NULL, 0); /* default: append */
    reg('B', NULL, 0, pre, 1);
    reg('C', NULL, 0, app, 1);
    reg('D', NULL, 0, pre, 1);
    deliver(E1);
    expect_seq("DBAC");
    PMIx_Info_free(pre, 1);
    PMIx_Info_free(app, 1);
}

Test(event, before_and_after_by_name)
{
    pmix_info_t *a = inf_str(PMIX_EVENT_HDLR_NAME, "a");
    pmix_info_t *b = inf_name2("b", PMIX_EVENT_HDLR_AFTER, "c");
    pmix_info_t *c = inf_str(PMIX_EVENT_HDLR_NAME, "c");
    pmix_info_t *d = inf_name2("d", PMIX_EVENT_HDLR_BEFORE, "a");
    reg('A', c_e1, 1, a, 1);
    reg('B', c_e1, 1, b, 2);
    reg('C', c_e1, 1, c, 1);
    reg('D', c_e1, 1, d, 2);
    deliver(E1);
    pthread_mutex_lock(&rec_lock);
    cr_assert_eq(strlen(seq), 4);
    cr_assert_lt(strchr(seq, 'D'), strchr(seq, 'A'), "D BEFORE a: %s", seq);
    cr_assert_lt(strchr(seq, 'C'), strchr(seq, 'B'), "B AFTER c: %s", seq);
    pthread_mutex_unlock(&rec_lock);
    PMIx_Info_free(a, 1);
    PMIx_Info_free(b, 2);
    PMIx_Info_free(c, 1);
    PMIx_Info_free(d, 2);
}

Test(event, before_after_ignored_when_other_not_in_chain)
{
    pmix_info_t *a = inf_str(PMIX_EVENT_HDLR_NAME, "a");
    pmix_info_t *b = inf_name2("b", PMIX_EVENT_HDLR_BEFORE, "ghost");
    pmix_info_t *c = inf_name2("c", PMIX_EVENT_HDLR_BEFORE, "z");
    pmix_info_t *z = inf_str(PMIX_EVENT_HDLR_NAME, "z");
    reg('A', c_e1, 1, a, 1);
    reg('B', c_e1, 1, b, 2); /* names nobody */
    reg('C', c_e1, 1, c, 2); /* names Z, which is not in E1's chain */
    reg('Z', c_e2, 1, z, 1);
    deliver(E1);
    expect_seq("ABC");
    PMIx_Info_free(a, 1);
    PMIx_Info_free(b, 2);
    PMIx_Info_free(c, 2);
    PMIx_Info_free(z, 1);
}

Test(event, several_after_one_handler_all_follow_it)
{
    pmix_info_t *a = inf_str(PMIX_EVENT_HDLR_NAME, "a");
    pmix_info_t *b = inf_name2("b", PMIX_EVENT_HDLR_AFTER, "a");
    pmix_info_t *c = inf_name2("c", PMIX_EVENT_HDLR_AFTER, "a");
    reg('B', NULL, 0, b, 2);
    reg('C', NULL, 0, c, 2);
    reg('A', NULL, 0, a, 1);
    deliver(E1);
    pthread_mutex_lock(&rec_lock);
    cr_assert_eq(seq[0], 'A');
    pthread_mutex_unlock(&rec_lock);
    PMIx_Info_free(a, 1);
    PMIx_Info_free(b, 2);
    PMIx_Info_free(c, 2);
}

/* ---- generator's directives ---- */

Test(event, non_default_skips_default_handlers)
{
    reg('S', c_e1, 1, NULL, 0);
    reg('D', NULL, 0, NULL, 0);
    pmix_info_t *nd = inf_bool(PMIX_EVENT_NON_DEFAULT);
    deliver_from(E1, "job", 1, nd, 1);
    expect_seq("S");
    cr_assert_eq(deliver_from(E2, "job", 1, nd, 1), PMIX_ERR_NOT_FOUND);
    expect_seq("");
    deliver(E1);
    expect_seq("SD");
    PMIx_Info_free(nd, 1);
}

/* ---- source ranges given at registration ---- */

Test(event, range_proc_local_only_from_me)
{
    pmix_info_t *r = inf_range(PMIX_RANGE_PROC_LOCAL);
    reg('P', c_e1, 1, r, 1);
    reg('D', NULL, 0, NULL, 0);
    deliver_from(E1, "job", 0, NULL, 0);
    expect_seq("PD");
    deliver_from(E1, "job", 1, NULL, 0);
    expect_seq("D");
    PMIx_Info_free(r, 1);
}

Test(event, range_namespace_only_from_my_nspace)
{
    pmix_info_t *r = inf_range(PMIX_RANGE_NAMESPACE);
    reg('N', c_e1, 1, r, 1);
    deliver_from(E1, "job", 7, NULL, 0);
    expect_seq("N");
    cr_assert_eq(deliver_from(E1, "other", 0, NULL, 0), PMIX_ERR_NOT_FOUND);
    expect_seq("");
    PMIx_Info_free(r, 1);
}

Test(event, range_custom_with_proc_array)
{
    pmix_proc_t *procs = PMIx_Proc_create(2);
    PMIx_Load_procid(&procs[0], "other", PMIX_RANK_WILDCARD);
    PMIx_Load_procid(&procs[1], "job", 3);
    pmix_data_array_t arr = {.type = PMIX_PROC, .size = 2, .array = procs};
    pmix_info_t *i = PMIx_Info_create(2);
    pmix_data_range_t cr = PMIX_RANGE_CUSTOM;
    PMIx_Info_load(&i[0], PMIX_RANGE, &cr, PMIX_DATA_RANGE);
    PMIx_Info_load(&i[1], PMIX_EVENT_CUSTOM_RANGE, &arr, PMIX_DATA_ARRAY);
    reg('C', c_e1, 1, i, 2);
    deliver_from(E1, "other", 9, NULL, 0);
    deliver_from(E1, "job", 3, NULL, 0);
    expect_seq("CC");
    cr_assert_eq(deliver_from(E1, "job", 4, NULL, 0), PMIX_ERR_NOT_FOUND);
    expect_seq("");
    PMIx_Info_free(i, 2);
    PMIx_Proc_free(procs, 2);
}

Test(event, range_custom_with_single_proc)
{
    pmix_proc_t p;
    PMIx_Load_procid(&p, "job", 5);
    pmix_info_t *i = PMIx_Info_create(1);
    PMIx_Info_load(i, PMIX_EVENT_CUSTOM_RANGE, &p, PMIX_PROC); /* implies RANGE_CUSTOM */
    reg('C', c_e1, 1, i, 1);
    deliver_from(E1, "job", 5, NULL, 0);
    expect_seq("C");
    cr_assert_eq(deliver_from(E1, "job", 6, NULL, 0), PMIX_ERR_NOT_FOUND);
    PMIx_Info_free(i, 1);
}

Test(event, range_local_uses_is_local)
{
    pmix_info_t *r = inf_range(PMIX_RANGE_LOCAL);
    reg('L', c_e1, 1, r, 1);
    deliver_from(E1, "near", 3, NULL, 0);
    expect_seq("L");
    cr_assert_eq(deliver_from(E1, "far", 3, NULL, 0), PMIX_ERR_NOT_FOUND);
    PMIx_Info_free(r, 1);
}

Test(event, range_rm_uses_is_rm)
{
    pmix_info_t *r = inf_range(PMIX_RANGE_RM);
    reg('R', c_e1, 1, r, 1);
    deliver_from(E1, "rm", 0, NULL, 0);
    expect_seq("R");
    cr_assert_eq(deliver_from(E1, "job", 0, NULL, 0), PMIX_ERR_NOT_FOUND);
    PMIx_Info_free(r, 1);
}

Test(event, range_session_global_undef_accept_anyone)
{
    pmix_data_range_t rs[] = {PMIX_RANGE_SESSION, PMIX_RANGE_GLOBAL, PMIX_RANGE_UNDEF};
    for (int k = 0; k < 3; k++) {
        pmix_info_t *r = inf_range(rs[k]);
        reg('a' + k, c_e1, 1, r, 1);
        PMIx_Info_free(r, 1);
    }
    deliver_from(E1, "anywhere", 42, NULL, 0);
    expect_seq("abc");
}

/* ---- affected procs ---- */

Test(event, affected_procs_must_intersect)
{
    pmix_proc_t mine;
    PMIx_Load_procid(&mine, "job", 2);
    pmix_info_t *ri = PMIx_Info_create(1);
    PMIx_Info_load(ri, PMIX_EVENT_AFFECTED_PROC, &mine, PMIX_PROC);
    reg('A', c_e1, 1, ri, 1);
    reg('S', c_e1, 1, NULL, 0);

    pmix_proc_t *ev = PMIx_Proc_create(2);
    PMIx_Load_procid(&ev[0], "job", 1);
    PMIx_Load_procid(&ev[1], "job", 2);
    pmix_data_array_t arr = {.type = PMIX_PROC, .size = 2, .array = ev};
    pmix_info_t *ei = PMIx_Info_create(1);
    PMIx_Info_load(ei, PMIX_EVENT_AFFECTED_PROCS, &arr, PMIX_DATA_ARRAY);
    deliver_from(E1, "job", 1, ei, 1);
    expect_seq("AS");

    pmix_proc_t other;
    PMIx_Load_procid(&other, "job", 5);
    pmix_info_t *e2 = PMIx_Info_create(1);
    PMIx_Info_load(e2, PMIX_EVENT_AFFECTED_PROC, &other, PMIX_PROC);
    deliver_from(E1, "job", 1, e2, 1);
    expect_seq("S");
    deliver(E1); /* the event names no affected proc: no intersection */
    expect_seq("S");
    PMIx_Info_free(ri, 1);
    PMIx_Info_free(ei, 1);
    PMIx_Info_free(e2, 1);
    PMIx_Proc_free(ev, 2);
}

Test(event, affected_procs_registration_with_wildcard)
{
    pmix_proc_t *mine = PMIx_Proc_create(1);
    PMIx_Load_procid(&mine[0], "job", PMIX_RANK_WILDCARD);
    pmix_data_array_t arr = {.type = PMIX_PROC, .size = 1, .array = mine};
    pmix_info_t *ri = PMIx_Info_create(1);
    PMIx_Info_load(ri, PMIX_EVENT_AFFECTED_PROCS, &arr, PMIX_DATA_ARRAY);
    reg('W', c_e1, 1, ri, 1);
    pmix_proc_t p;
    PMIx_Load_procid(&p, "job", 11);
    pmix_info_t *ei = PMIx_Info_create(1);
    PMIx_Info_load(ei, PMIX_EVENT_AFFECTED_PROC, &p, PMIX_PROC);
    deliver_from(E1, "rm", 0, ei, 1);
    expect_seq("W");
    PMIx_Info_free(ri, 1);
    PMIx_Info_free(ei, 1);
    PMIx_Proc_free(mine, 1);
}

/* ---- what a handler receives ---- */

static int retobj_target;
static atomic_int retobj_seen;

static void retobj_hdlr(size_t id, pmix_status_t status, const pmix_proc_t *source,
                        pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                        pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)status, (void)source, (void)results, (void)nresults;
    int found = 0;
    bool has_evinfo = false;
    for (size_t k = 0; k < ninfo; k++) {
        if (PMIx_Check_key(info[k].key, PMIX_EVENT_RETURN_OBJECT)) {
            cr_assert_eq(info[k].value.type, PMIX_POINTER);
            found += info[k].value.data.ptr == &retobj_target ? 1 : 100;
        }
        has_evinfo = has_evinfo || PMIx_Check_key(info[k].key, "test.evinfo");
    }
    cr_assert(has_evinfo, "the event's own info is passed too");
    atomic_fetch_add(&retobj_seen, found);
    cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

Test(event, return_object_given_back_to_its_handler)
{
    void *obj = &retobj_target;
    pmix_info_t *i = PMIx_Info_create(1);
    PMIx_Info_load(i, PMIX_EVENT_RETURN_OBJECT, obj, PMIX_POINTER);
    cr_assert_eq(reg_fn('R', c_e1, 1, i, 1, retobj_hdlr, NULL), PMIX_SUCCESS);
    cr_assert_eq(reg_fn('N', c_e1, 1, NULL, 0, retobj_hdlr, NULL), PMIX_SUCCESS);
    int v = 5;
    pmix_info_t *ev = PMIx_Info_create(1);
    PMIx_Info_load(ev, "test.evinfo", &v, PMIX_INT);
    deliver_from(E1, "job", 1, ev, 1);
    cr_assert_eq(atomic_load(&retobj_seen), 1, "only R gets its object, exactly once");
    PMIx_Info_free(i, 1);
    PMIx_Info_free(ev, 1);
}

static pmix_status_t seen_status;
static pmix_proc_t seen_source;

static void src_hdlr(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t *results, size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)info, (void)ninfo, (void)results, (void)nresults;
    seen_status = status;
    seen_source = *source;
    cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

Test(event, handler_receives_code_and_source)
{
    cr_assert_eq(reg_fn('X', c_e2, 1, NULL, 0, src_hdlr, NULL), PMIX_SUCCESS);
    deliver_from(E2, "srcns", 17, NULL, 0);
    cr_assert_eq(seen_status, E2);
    cr_assert_str_eq(seen_source.nspace, "srcns");
    cr_assert_eq(seen_source.rank, 17);
}

/* ---- results and status aggregation ---- */

static atomic_int releases;
static pmix_info_t *third_results;
static size_t third_nresults;

static void release_cb(pmix_status_t status, void *cbdata)
{
    (void)status;
    PMIx_Info_free(cbdata, 1);
    atomic_fetch_add(&releases, 1);
}

static void agg_hdlr(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t *results, size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)status, (void)source, (void)info, (void)ninfo;
    hcfg_t *h = cfg_of(id);
    record(h->tag);
    if ('3' == h->tag) {
        third_nresults = nresults;
        third_results = PMIx_Info_create(nresults);
        for (size_t k = 0; k < nresults; k++) {
            PMIx_Info_xfer(&third_results[k], &results[k]);
        }
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
        return;
    }
    cr_assert_eq(atomic_load(&releases), 0, "results stay held until the chain ends");
    pmix_info_t *mine = PMIx_Info_create(1);
    int v = h->tag - '0';
    char key[16];
    snprintf(key, sizeof(key), "r%c", h->tag);
    PMIx_Info_load(mine, key, &v, PMIX_INT);
    cbfunc(h->ret, mine, 1, release_cb, mine, cbdata);
}

Test(event, results_and_status_aggregate_along_the_chain)
{
    pmix_info_t *n1 = inf_str(PMIX_EVENT_HDLR_NAME, "one");
    size_t id1, id2;
    cr_assert_eq(reg_fn('1', c_e1, 1, n1, 1, agg_hdlr, &id1), PMIX_SUCCESS);
    cr_assert_eq(reg_fn('2', c_e1e2, 2, NULL, 0, agg_hdlr, &id2), PMIX_SUCCESS); /* unnamed */
    cr_assert_eq(reg_fn('3', NULL, 0, NULL, 0, agg_hdlr, NULL), PMIX_SUCCESS);
    cfg_of(id2)->ret = PMIX_ERR_TIMEOUT;
    cr_assert_eq(deliver(E1), PMIX_SUCCESS); /* the last handler's status */
    expect_seq("123");
    cr_assert_eq(atomic_load(&releases), 2, "each handler's results released once");

    cr_assert_eq(third_nresults, 4);
    cr_assert_str_eq(third_results[0].key, "r1");
    cr_assert_eq(third_results[0].value.data.integer, 1);
    cr_assert_str_eq(third_results[1].key, "one");
    cr_assert_eq(third_results[1].value.type, PMIX_STATUS);
    cr_assert_eq(third_results[1].value.data.status, PMIX_SUCCESS);
    cr_assert_str_eq(third_results[2].key, "r2");
    char key[64];
    snprintf(key, sizeof(key), "px.evhdlr.%zu", id2);
    cr_assert_str_eq(third_results[3].key, key);
    cr_assert_eq(third_results[3].value.type, PMIX_STATUS);
    cr_assert_eq(third_results[3].value.data.status, PMIX_ERR_TIMEOUT);
    PMIx_Info_free(third_results, third_nresults);
    PMIx_Info_free(n1, 1);
}

/* px_evt_deliver_res: the end of the chain sees the event and every handler's results and
 * status (what client_group.c reads a handler's decisions from) */
static struct {
    px_latch_t latch;
    pmix_status_t code, status;
    size_t ninfo, nresults;
    char info0[PMIX_MAX_KEYLEN + 1], res0[PMIX_MAX_KEYLEN + 1];
    pmix_status_t res1;
} dres;

static void on_done_res(pmix_status_t code, const pmix_info_t *info, size_t ninfo,
                        pmix_status_t status, const pmix_info_t *results, size_t nresults,
                        void *cbdata)
{
    cr_assert_eq(cbdata, &dres);
    cr_assert(px_progress_on_loop(loop));
    dres.code = code;
    dres.status = status;
    dres.ninfo = ninfo;
    dres.nresults = nresults;
    if (ninfo > 0) {
        PMIX_LOAD_KEY(dres.info0, info[0].key);
    }
    if (nresults > 1) {
        PMIX_LOAD_KEY(dres.res0, results[0].key);
        dres.res1 = results[1].value.data.status;
    }
    px_latch_release(&dres.latch);
}

Test(event, deliver_res_hands_the_results_to_the_end)
{
    size_t id;
    cr_assert_eq(reg_fn('1', c_e1, 1, NULL, 0, agg_hdlr, &id), PMIX_SUCCESS);
    cfg_of(id)->ret = PMIX_GROUP_CONSTRUCT_ABORT;
    pmix_info_t *grp = inf_str(PMIX_GROUP_ID, "g");
    pmix_proc_t src;
    PMIx_Load_procid(&src, "job", 1);
    cr_assert_eq(px_latch_init(&dres.latch, 1), 0);
    cr_assert_eq(px_evt_deliver_res(E1, &src, grp, 1, on_done_res, &dres), PMIX_SUCCESS);
    cr_assert_eq(px_latch_wait(&dres.latch, WAIT_MS), 0, "chain did not end");
    px_latch_fini(&dres.latch);
    expect_seq("1");
    cr_assert_eq(dres.code, E1);
    cr_assert_eq(dres.status, PMIX_GROUP_CONSTRUCT_ABORT);
    cr_assert_eq(dres.ninfo, 1);
    cr_assert_str_eq(dres.info0, PMIX_GROUP_ID);
    cr_assert_eq(dres.nresults, 2, "the handler's result and its status");
    cr_assert_str_eq(dres.res0, "r1");
    cr_assert_eq(dres.res1, PMIX_GROUP_CONSTRUCT_ABORT);
    PMIx_Info_free(grp, 1);
}

Test(event, done_status_is_last_handlers_status)
{
    size_t a = reg('A', c_e1, 1, NULL, 0);
    size_t b = reg('B', NULL, 0, NULL, 0);
    cfg_of(a)->ret = PMIX_ERR_TIMEOUT;
    cfg_of(b)->ret = 77;
    cr_assert_eq(deliver(E1), 77);
    expect_seq("AB");
}

/* ---- the completion function ---- */

typedef struct {
    pmix_event_notification_cbfunc_fn_t cbfunc;
    void *cbdata;
} later_t;

static void *complete_later(void *arg)
{
    later_t *l = arg;
    usleep(20000);
    record('t');
    l->cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, l->cbdata);
    free(l);
    return NULL;
}

static void thread_hdlr(size_t id, pmix_status_t status, const pmix_proc_t *source,
                        pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                        pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)status, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    record(cfg_of(id)->tag);
    later_t *l = malloc(sizeof(*l));
    l->cbfunc = cbfunc;
    l->cbdata = cbdata;
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, complete_later, l), 0);
    pthread_detach(t);
}

Test(event, completion_from_another_thread)
{
    cr_assert_eq(reg_fn('A', c_e1, 1, NULL, 0, thread_hdlr, NULL), PMIX_SUCCESS);
    reg('B', NULL, 0, NULL, 0);
    deliver(E1);
    expect_seq("AtB");
}

static void inline_hdlr(size_t id, pmix_status_t status, const pmix_proc_t *source,
                        pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                        pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)status, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    record(cfg_of(id)->tag);
    cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    record('r'); /* the next handler must not run inside our completion call */
}

Test(event, completion_inside_the_handler)
{
    cr_assert_eq(reg_fn('A', c_e1, 1, NULL, 0, inline_hdlr, NULL), PMIX_SUCCESS);
    reg('B', NULL, 0, NULL, 0);
    deliver(E1);
    expect_seq("ArB");
}

static atomic_int hdlr_in_deliver;
static __thread bool in_deliver;

static void check_not_inside(size_t id, pmix_status_t status, const pmix_proc_t *source,
                             pmix_info_t info[], size_t ninfo, pmix_info_t *results,
                             size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                             void *cbdata)
{
    (void)id, (void)status, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    if (in_deliver) {
        atomic_fetch_add(&hdlr_in_deliver, 1);
    }
    cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static done_t loop_done;

static void on_loop_deliver(void *arg)
{
    (void)arg;
    in_deliver = true; /* the loop thread's own flag */
    cr_assert_eq(px_evt_deliver(E1, NULL, PMIX_RANGE_SESSION, NULL, 0, on_done, &loop_done),
                 PMIX_SUCCESS);
    cr_assert_eq(loop_done.calls, 0, "done not inside deliver");
    in_deliver = false;
}

Test(event, handlers_never_run_inside_deliver)
{
    /* delivered from the loop thread itself: the handler and done must still come later */
    cr_assert_eq(reg_fn('A', c_e1, 1, NULL, 0, check_not_inside, NULL), PMIX_SUCCESS);
    cr_assert_eq(px_latch_init(&loop_done.latch, 1), 0);
    cr_assert_eq(px_progress_shift_wait(loop, on_loop_deliver, NULL, WAIT_MS), 0);
    cr_assert_eq(px_latch_wait(&loop_done.latch, WAIT_MS), 0);
    px_latch_fini(&loop_done.latch);
    cr_assert_eq(loop_done.calls, 1);
    cr_assert_eq(atomic_load(&hdlr_in_deliver), 0);
}

static int copied_seen;

static void copy_hdlr(size_t id, pmix_status_t status, const pmix_proc_t *source,
                      pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                      pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)status, (void)source, (void)results, (void)nresults;
    cr_assert_eq(ninfo, 1);
    cr_assert_str_eq(info[0].key, "test.v");
    copied_seen = info[0].value.data.integer;
    cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

Test(event, deliver_copies_its_inputs)
{
    cr_assert_eq(reg_fn('A', c_e1, 1, NULL, 0, copy_hdlr, NULL), PMIX_SUCCESS);
    done_t d = {0};
    cr_assert_eq(px_latch_init(&d.latch, 1), 0);
    int v = 5;
    pmix_info_t *i = PMIx_Info_create(1);
    PMIx_Info_load(i, "test.v", &v, PMIX_INT);
    pmix_proc_t src;
    PMIx_Load_procid(&src, "job", 3);
    cr_assert_eq(px_evt_deliver(E1, &src, PMIX_RANGE_SESSION, i, 1, on_done, &d), PMIX_SUCCESS);
    PMIx_Info_free(i, 1); /* inputs are not borrowed past the call */
    memset(&src, 0, sizeof(src));
    cr_assert_eq(px_latch_wait(&d.latch, WAIT_MS), 0);
    px_latch_fini(&d.latch);
    cr_assert_eq(copied_seen, 5);
}

/* ---- deregistration ---- */

static size_t victim;

static void dereg_hdlr(size_t id, pmix_status_t status, const pmix_proc_t *source,
                       pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                       pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)status, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    record(cfg_of(id)->tag);
    cr_assert_eq(px_evt_deregister(victim), PMIX_SUCCESS);
    cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

Test(event, deregistered_during_chain_is_skipped)
{
    reg('1', c_e1, 1, NULL, 0);
    cr_assert_eq(reg_fn('2', c_e1e2, 2, NULL, 0, dereg_hdlr, NULL), PMIX_SUCCESS);
    victim = reg('3', NULL, 0, NULL, 0);
    cr_assert_eq(deliver(E1), PMIX_SUCCESS);
    expect_seq("12");
    cr_assert_eq(px_evt_count(), 2);
}

static atomic_bool dereg_returned;
static atomic_int late_calls;
static atomic_int calls;

static void watch_hdlr(size_t id, pmix_status_t status, const pmix_proc_t *source,
                       pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                       pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)status, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    if (atomic_load(&dereg_returned)) {
        atomic_fetch_add(&late_calls, 1);
    }
    atomic_fetch_add(&calls, 1);
    cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void count_done(pmix_status_t status, void *cbdata)
{
    (void)status;
    px_latch_release(cbdata);
}

Test(event, no_invocation_starts_after_deregister_returns)
{
    size_t id;
    cr_assert_eq(reg_fn('W', NULL, 0, NULL, 0, watch_hdlr, &id), PMIX_SUCCESS);
    enum { N = 2000 };
    px_latch_t l;
    cr_assert_eq(px_latch_init(&l, N), 0);
    for (int k = 0; k < N; k++) {
        cr_assert_eq(px_evt_deliver(E1, NULL, PMIX_RANGE_SESSION, NULL, 0, count_done, &l),
                     PMIX_SUCCESS);
        if (N / 4 == k) {
            while (0 == atomic_load(&calls)) {
                usleep(100); /* let some chains run before pulling the handler */
            }
            cr_assert_eq(px_evt_deregister(id), PMIX_SUCCESS);
            atomic_store(&dereg_returned, true);
        }
    }
    cr_assert_eq(px_latch_wait(&l, WAIT_MS), 0);
    px_latch_fini(&l);
    cr_assert_eq(atomic_load(&late_calls), 0);
    cr_assert_gt(atomic_load(&calls), 0);
}

Test(event, not_active_before_activate)
{
    size_t id;
    cr_assert_eq(px_evt_register(c_e1, 1, NULL, 0, rec, &id), PMIX_SUCCESS);
    cfg[ncfg++] = (hcfg_t){.id = id, .tag = 'A'};
    cr_assert_eq(px_evt_count(), 0);
    cr_assert_eq(deliver(E1), PMIX_ERR_NOT_FOUND);
    expect_seq("");
    px_evt_activate(id);
    cr_assert_eq(px_evt_count(), 1);
    deliver(E1);
    expect_seq("A");
}

Test(event, unknown_id_is_bad_param)
{
    size_t id = reg('A', c_e1, 1, NULL, 0);
    cr_assert_eq(px_evt_deregister(id + 1000), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(px_evt_deregister(id), PMIX_SUCCESS);
    cr_assert_eq(px_evt_deregister(id), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(deliver(E1), PMIX_ERR_NOT_FOUND);
}

Test(event, ids_unique_and_never_reused)
{
    size_t prev = 0;
    for (int k = 0; k < 50; k++) {
        size_t id;
        cr_assert_eq(px_evt_register(NULL, 0, NULL, 0, rec, &id), PMIX_SUCCESS);
        cr_assert_gt(id, prev);
        prev = id;
        cr_assert_eq(px_evt_deregister(id), PMIX_SUCCESS);
    }
}

Test(event, bad_types_and_arguments_are_bad_param)
{
    size_t id;
    int n = 3;
    const char *keys_wrong_int[] = {PMIX_EVENT_HDLR_NAME,
                                    PMIX_EVENT_HDLR_FIRST,
                                    PMIX_EVENT_HDLR_LAST,
                                    PMIX_EVENT_HDLR_FIRST_IN_CATEGORY,
                                    PMIX_EVENT_HDLR_LAST_IN_CATEGORY,
                                    PMIX_EVENT_HDLR_BEFORE,
                                    PMIX_EVENT_HDLR_AFTER,
                                    PMIX_EVENT_HDLR_PREPEND,
                                    PMIX_EVENT_HDLR_APPEND,
                                    PMIX_RANGE,
                                    PMIX_EVENT_CUSTOM_RANGE,
                                    PMIX_EVENT_AFFECTED_PROC,
                                    PMIX_EVENT_AFFECTED_PROCS,
                                    PMIX_EVENT_RETURN_OBJECT};
    for (size_t k = 0; k < sizeof(keys_wrong_int) / sizeof(keys_wrong_int[0]); k++) {
        pmix_info_t *i = PMIx_Info_create(1);
        PMIx_Info_load(i, keys_wrong_int[k], &n, PMIX_INT);
        cr_assert_eq(px_evt_register(c_e1, 1, i, 1, rec, &id), PMIX_ERR_BAD_PARAM, "%s",
                     keys_wrong_int[k]);
        PMIx_Info_free(i, 1);
    }
    /* a data array of the wrong element type */
    int ints[2] = {1, 2};
    pmix_data_array_t arr = {.type = PMIX_INT, .size = 2, .array = ints};
    pmix_info_t *i = PMIx_Info_create(1);
    PMIx_Info_load(i, PMIX_EVENT_AFFECTED_PROCS, &arr, PMIX_DATA_ARRAY);
    cr_assert_eq(px_evt_register(c_e1, 1, i, 1, rec, &id), PMIX_ERR_BAD_PARAM);
    PMIx_Info_free(i, 1);
    cr_assert_eq(px_evt_register(c_e1, 1, NULL, 0, NULL, &id), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(px_evt_register(NULL, 2, NULL, 0, rec, &id), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(px_evt_register(c_e1, 1, NULL, 1, rec, &id), PMIX_ERR_BAD_PARAM);
    /* FIRST and LAST at once */
    pmix_info_t *fl = PMIx_Info_create(2);
    bool t = true;
    PMIx_Info_load(&fl[0], PMIX_EVENT_HDLR_FIRST, &t, PMIX_BOOL);
    PMIx_Info_load(&fl[1], PMIX_EVENT_HDLR_LAST, &t, PMIX_BOOL);
    cr_assert_eq(px_evt_register(c_e1, 1, fl, 2, rec, &id), PMIX_ERR_BAD_PARAM);
    PMIx_Info_free(fl, 2);
    cr_assert_eq(px_evt_count(), 0);
    cr_assert_eq(px_evt_deliver(E1, NULL, PMIX_RANGE_SESSION, NULL, 1, NULL, NULL),
                 PMIX_ERR_BAD_PARAM);
}

Test(event, nobody_registered_done_with_not_found)
{
    cr_assert_eq(deliver(E3), PMIX_ERR_NOT_FOUND);
}

Test(event, bind_twice_exists_and_unbound_is_init)
{
    px_evt_self_t self = {0};
    size_t id;
    cr_assert(px_evt_bound());
    cr_assert_eq(px_evt_bind(loop, &self), PMIX_EXISTS);
    px_evt_unbind();
    cr_assert_not(px_evt_bound());
    cr_assert_eq(px_evt_register(c_e1, 1, NULL, 0, rec, &id), PMIX_ERR_INIT);
    cr_assert_eq(px_evt_deliver(E1, NULL, PMIX_RANGE_SESSION, NULL, 0, NULL, NULL), PMIX_ERR_INIT);
    /* bind again (same loop): a fresh registry */
    PMIx_Load_procid(&self.me, "job", 0);
    cr_assert_eq(px_evt_bind(loop, &self), PMIX_SUCCESS);
    cr_assert_eq(px_evt_count(), 0);
    reg('A', c_e1, 1, NULL, 0);
    deliver(E1);
    expect_seq("A");
}

/* ---- concurrency ---- */

enum { NTHREADS = 4, NEVENTS = 1000 };
static atomic_int conc_calls;

static void conc_hdlr(size_t id, pmix_status_t status, const pmix_proc_t *source,
                      pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                      pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)status, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    atomic_fetch_add(&conc_calls, 1);
    if (0 == atomic_load(&conc_calls) % 7) {
        later_t *l = malloc(sizeof(*l)); /* some complete from another thread */
        l->cbfunc = cbfunc;
        l->cbdata = cbdata;
        pthread_t t;
        cr_assert_eq(pthread_create(&t, NULL, complete_later, l), 0);
        pthread_detach(t);
        return;
    }
    cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void *deliver_many(void *arg)
{
    px_latch_t *l = arg;
    for (int k = 0; k < NEVENTS; k++) {
        if (PMIX_SUCCESS !=
            px_evt_deliver(E1 + k % 2, NULL, PMIX_RANGE_SESSION, NULL, 0, count_done, l)) {
            return (void *)1;
        }
    }
    return NULL;
}

Test(event, concurrent_delivery_from_four_threads)
{
    cr_assert_eq(reg_fn('S', c_e1, 1, NULL, 0, conc_hdlr, NULL), PMIX_SUCCESS);
    cr_assert_eq(reg_fn('D', NULL, 0, NULL, 0, conc_hdlr, NULL), PMIX_SUCCESS);
    px_latch_t l;
    cr_assert_eq(px_latch_init(&l, NTHREADS * NEVENTS), 0);
    pthread_t t[NTHREADS];
    for (int k = 0; k < NTHREADS; k++) {
        cr_assert_eq(pthread_create(&t[k], NULL, deliver_many, &l), 0);
    }
    for (int k = 0; k < NTHREADS; k++) {
        void *rv;
        pthread_join(t[k], &rv);
        cr_assert_null(rv);
    }
    cr_assert_eq(px_latch_wait(&l, 60000), 0, "not every chain ended");
    px_latch_fini(&l);
    /* E1 events run S and D, E2 events only D */
    cr_assert_eq(atomic_load(&conc_calls), NTHREADS * NEVENTS * 3 / 2);
}

/* ---- unbind with chains in flight ---- */

static later_t held[4];
static atomic_int nheld;
static atomic_int dead_done;
static px_latch_t held_latch;

static void hold_hdlr(size_t id, pmix_status_t status, const pmix_proc_t *source,
                      pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                      pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)status, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    int k = atomic_fetch_add(&nheld, 1);
    held[k] = (later_t){cbfunc, cbdata};
    px_latch_release(&held_latch);
}

static void dead_done_cb(pmix_status_t status, void *cbdata)
{
    (void)status, (void)cbdata;
    atomic_fetch_add(&dead_done, 1);
}

Test(event, unbind_with_chains_in_flight_is_clean)
{
    pmix_info_t *nm = inf_str(PMIX_EVENT_HDLR_NAME, "holder");
    cr_assert_eq(px_latch_init(&held_latch, 2), 0);
    cr_assert_eq(reg_fn('H', c_e1, 1, nm, 1, hold_hdlr, NULL), PMIX_SUCCESS);
    reg('D', NULL, 0, NULL, 0);
    int v = 1;
    pmix_info_t *ev = PMIx_Info_create(1);
    PMIx_Info_load(ev, "test.payload", &v, PMIX_INT);
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(px_evt_deliver(E1, NULL, PMIX_RANGE_SESSION, ev, 1, dead_done_cb, NULL),
                     PMIX_SUCCESS);
    }
    cr_assert_eq(px_latch_wait(&held_latch, WAIT_MS), 0);
    /* one chain completes its handler (its continuation is queued or running) ... */
    pmix_info_t *res = PMIx_Info_create(1);
    PMIx_Info_load(res, "test.res", &v, PMIX_INT);
    held[0].cbfunc(PMIX_SUCCESS, res, 1, release_cb, res, held[0].cbdata);
    /* ... and many more are queued behind */
    for (int k = 0; k < 50; k++) {
        cr_assert_eq(px_evt_deliver(E2, NULL, PMIX_RANGE_SESSION, ev, 1, dead_done_cb, NULL),
                     PMIX_SUCCESS);
    }
    px_evt_unbind();
    /* the other handler completes after unbind: only its results are released */
    pmix_info_t *res2 = PMIx_Info_create(1);
    PMIx_Info_load(res2, "test.res", &v, PMIX_INT);
    held[1].cbfunc(PMIX_SUCCESS, res2, 1, release_cb, res2, held[1].cbdata);
    px_progress_destroy(loop); /* a step still on the loop finishes first */
    loop = NULL;
    cr_assert_eq(atomic_load(&releases), 2, "both handlers' results released");
    cr_assert_lt(atomic_load(&dead_done), 52, "the held chain never reports done");
    px_latch_fini(&held_latch);
    PMIx_Info_free(ev, 1);
    PMIx_Info_free(nm, 1);
}

/* ---- a replay to one registration (the client's event cache) ---- */

static pmix_status_t deliver_to(size_t id, pmix_status_t code, const pmix_info_t *info,
                                size_t ninfo)
{
    done_t d = {.status = -9999};
    pmix_proc_t src;
    PMIx_Load_procid(&src, "job", 1);
    cr_assert_eq(px_latch_init(&d.latch, 1), 0);
    cr_assert_eq(px_evt_deliver_to(id, code, &src, info, ninfo, on_done, &d), PMIX_SUCCESS);
    cr_assert_eq(px_latch_wait(&d.latch, WAIT_MS), 0, "chain did not end");
    px_latch_fini(&d.latch);
    cr_assert_eq(d.calls, 1);
    return d.status;
}

Test(event, deliver_to_runs_only_that_registration_if_it_matches)
{
    pmix_info_t *f = inf_bool(PMIX_EVENT_HDLR_FIRST);
    reg('F', c_e1, 1, f, 1);
    PMIx_Info_free(f, 1);
    reg('D', NULL, 0, NULL, 0);
    size_t s = reg('S', c_e1, 1, NULL, 0);
    size_t d = reg('X', NULL, 0, NULL, 0);
    size_t t = reg('T', c_e2, 1, NULL, 0);
    cr_assert_eq(deliver_to(s, E1, NULL, 0), PMIX_SUCCESS);
    expect_seq("S");
    cr_assert_eq(deliver_to(d, E1, NULL, 0), PMIX_SUCCESS); /* a default handler */
    expect_seq("X");
    cr_assert_eq(deliver_to(t, E1, NULL, 0), PMIX_ERR_NOT_FOUND); /* not its code */
    expect_seq("");
    pmix_info_t *nd = inf_bool(PMIX_EVENT_NON_DEFAULT);
    cr_assert_eq(deliver_to(d, E1, nd, 1), PMIX_ERR_NOT_FOUND);
    expect_seq("");
    PMIx_Info_free(nd, 1);
    cr_assert_eq(px_evt_deliver_to(0, E1, NULL, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM);
    /* not active yet: nothing */
    size_t late = 0;
    cr_assert_eq(px_evt_register(c_e1, 1, NULL, 0, rec, &late), PMIX_SUCCESS);
    cr_assert_eq(deliver_to(late, E1, NULL, 0), PMIX_ERR_NOT_FOUND);
    expect_seq("");
}
