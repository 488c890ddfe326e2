/* Unit tests of libpmix-core/common: the value of a debugger's stop directive
 * (px_debug_stop_rank) and an event's custom range (px_event_custom_range). */
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
