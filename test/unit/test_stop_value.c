/* Unit tests of libpmix-core/common: the value of a debugger's stop directive
 * (px_debug_stop_rank, px_debug_stop_list, px_debug_stop_names) and an event's custom
 * range (px_event_custom_range). */
#include <criterion/criterion.h>

#include <pmix.h>

#include "common/px_common.h"

static int rank_of(pmix_value_t *v, pmix_rank_t *r)
{
    *r = 12345;
    return px_debug_stop_rank(v, r);
}

Test(stop_value, bool_rank_and_numbers)
{
    pmix_value_t v;
    pmix_rank_t r;
    bool yes = true, no = false;
    PMIx_Value_load(&v, &yes, PMIX_BOOL);
    cr_assert_eq(rank_of(&v, &r), 1);
    cr_assert_eq(r, PMIX_RANK_WILDCARD);
    PMIx_Value_load(&v, &no, PMIX_BOOL);
    cr_assert_eq(rank_of(&v, &r), 0);
    v.type = PMIX_UNDEF; /* a bare key: true */
    cr_assert_eq(rank_of(&v, &r), 1);
    cr_assert_eq(r, PMIX_RANK_WILDCARD);
    pmix_rank_t three = 3, wild = PMIX_RANK_WILDCARD, undef = PMIX_RANK_UNDEF;
    PMIx_Value_load(&v, &three, PMIX_PROC_RANK);
    cr_assert_eq(rank_of(&v, &r), 1);
    cr_assert_eq(r, 3);
    PMIx_Value_load(&v, &wild, PMIX_PROC_RANK);
    cr_assert_eq(rank_of(&v, &r), 1);
    cr_assert_eq(r, PMIX_RANK_WILDCARD);
    PMIx_Value_load(&v, &undef, PMIX_PROC_RANK); /* not a rank a process has */
    cr_assert_eq(rank_of(&v, &r), -1);
    int seven = 7, minus = -1;
    PMIx_Value_load(&v, &seven, PMIX_INT);
    cr_assert_eq(rank_of(&v, &r), 1);
    cr_assert_eq(r, 7);
    PMIx_Value_load(&v, &minus, PMIX_INT);
    cr_assert_eq(rank_of(&v, &r), -1);
}

Test(stop_value, other_types_refused)
{
    pmix_value_t v;
    pmix_rank_t r;
    PMIx_Value_load(&v, "all", PMIX_STRING);
    cr_assert_eq(rank_of(&v, &r), -1);
    PMIx_Value_destruct(&v);
    pmix_proc_t p;
    PMIx_Load_procid(&p, "ns", 0);
    PMIx_Value_load(&v, &p, PMIX_PROC);
    cr_assert_eq(rank_of(&v, &r), -1);
    PMIx_Value_destruct(&v);
}

Test(stop_value, list_of_processes)
{
    pmix_proc_t p[3], me;
    PMIx_Load_procid(&p[0], "", 1);    /* empty: the job being spawned */
    PMIx_Load_procid(&p[1], "job", 4); /* the job's own namespace */
    PMIx_Load_procid(&p[2], "other", 2);
    pmix_data_array_t da = {.type = PMIX_PROC, .size = 3, .array = p};
    pmix_value_t v;
    PMIx_Value_load(&v, &da, PMIX_DATA_ARRAY);
    const pmix_proc_t *got = NULL;
    size_t n = 0;
    cr_assert_eq(px_debug_stop_list(&v, &got, &n), 1);
    cr_assert_eq(n, 3);
    cr_assert_eq(got[1].rank, 4);
    pmix_rank_t r;
    cr_assert_eq(rank_of(&v, &r), -1); /* not one rank */
    PMIx_Load_procid(&me, "job", 1);
    cr_assert(px_debug_stop_names(&v, &me));
    me.rank = 4;
    cr_assert(px_debug_stop_names(&v, &me));
    me.rank = 2; /* rank 2 of another namespace only */
    cr_assert_not(px_debug_stop_names(&v, &me));
    me.rank = 0;
    cr_assert_not(px_debug_stop_names(&v, &me));
    PMIx_Value_destruct(&v);
    /* the wildcard in a list: every rank */
    PMIx_Load_procid(&p[0], "", PMIX_RANK_WILDCARD);
    da.size = 1;
    PMIx_Value_load(&v, &da, PMIX_DATA_ARRAY);
    cr_assert(px_debug_stop_names(&v, &me));
    PMIx_Value_destruct(&v);
    /* an empty list names no one; an array of another type is not a list */
    da.size = 0;
    da.array = NULL;
    PMIx_Value_load(&v, &da, PMIX_DATA_ARRAY);
    cr_assert_eq(px_debug_stop_list(&v, &got, &n), 1);
    cr_assert_eq(n, 0);
    cr_assert_not(px_debug_stop_names(&v, &me));
    PMIx_Value_destruct(&v);
    int ints[] = {0, 1};
    pmix_data_array_t di = {.type = PMIX_INT, .size = 2, .array = ints};
    PMIx_Value_load(&v, &di, PMIX_DATA_ARRAY);
    cr_assert_eq(px_debug_stop_list(&v, &got, &n), 0);
    cr_assert_not(px_debug_stop_names(&v, &me));
    PMIx_Value_destruct(&v);
    /* the other forms through the same test */
    bool yes = true, no = false;
    PMIx_Value_load(&v, &yes, PMIX_BOOL);
    cr_assert(px_debug_stop_names(&v, &me));
    PMIx_Value_load(&v, &no, PMIX_BOOL);
    cr_assert_not(px_debug_stop_names(&v, &me));
    pmix_rank_t zero = 0, one = 1;
    PMIx_Value_load(&v, &zero, PMIX_PROC_RANK);
    cr_assert(px_debug_stop_names(&v, &me));
    PMIx_Value_load(&v, &one, PMIX_PROC_RANK);
    cr_assert_not(px_debug_stop_names(&v, &me));
}

Test(stop_value, custom_range)
{
    pmix_info_t info[2];
    size_t n = 99;
    pmix_proc_t p[2];
    PMIx_Load_procid(&p[0], "a", 1);
    PMIx_Load_procid(&p[1], "b", PMIX_RANK_WILDCARD);
    cr_assert_null(px_event_custom_range(NULL, 0, &n));
    cr_assert_eq(n, 0);
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_NON_DEFAULT, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_EVENT_CUSTOM_RANGE, &p[0], PMIX_PROC);
    const pmix_proc_t *got = px_event_custom_range(info, 2, &n);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(got[0].nspace, "a");
    PMIX_INFO_DESTRUCT(&info[1]);
    pmix_data_array_t da = {.type = PMIX_PROC, .size = 2, .array = p};
    PMIX_INFO_LOAD(&info[1], PMIX_EVENT_CUSTOM_RANGE, &da, PMIX_DATA_ARRAY);
    got = px_event_custom_range(info, 2, &n);
    cr_assert_eq(n, 2);
    cr_assert_eq(got[1].rank, PMIX_RANK_WILDCARD);
    PMIX_INFO_DESTRUCT(&info[1]);
    PMIX_INFO_LOAD(&info[1], PMIX_EVENT_CUSTOM_RANGE, "a:1", PMIX_STRING);
    cr_assert_null(px_event_custom_range(info, 2, &n));
    cr_assert_eq(n, 0);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
}
