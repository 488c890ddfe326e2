/* Behaviour of the header-only parts of tools/headers/pmix_macros.h.in: the macros and
 * static inline helpers that do not call into libpmix (the others are tested with the
 * library functions they wrap).  Criterion, single-threaded. */
#include <criterion/criterion.h>
#include <limits.h>
#include <pmix.h>

Test(abi_inline, strncpy_truncates_and_terminates)
{
    char dst[8];

    memset(dst, 'x', sizeof(dst));
    pmix_strncpy(dst, "abcdefghij", 4);
    cr_assert_str_eq(dst, "abcd");
    pmix_strncpy(dst, "ab", 6);
    cr_assert_str_eq(dst, "ab");
    pmix_strncpy(dst, "abc", 0);
    cr_assert_str_eq(dst, "");
}

Test(abi_inline, key_and_nspace_lengths_are_bounded)
{
    char big[1024];

    memset(big, 'k', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    cr_assert_eq(pmix_keylen(NULL), 0);
    cr_assert_eq(pmix_nslen(NULL), 0);
    cr_assert_eq(pmix_keylen("pmix.rank"), 9);
    cr_assert_eq(pmix_keylen(big), PMIX_MAX_KEYLEN + 1);
    cr_assert_eq(pmix_nslen(big), PMIX_MAX_NSLEN + 1);
}

static pmix_boolean_t truth_of_string(char *s)
{
    pmix_value_t v = PMIX_VALUE_STATIC_INIT;

    v.type = PMIX_STRING;
    v.data.string = s;
    return pmix_check_true(&v);
}

Test(abi_inline, check_true_classifies_like_4_2_2)
{
    pmix_value_t v = PMIX_VALUE_STATIC_INIT;

    cr_assert_eq(pmix_check_true(&v), PMIX_BOOL_TRUE, "a key without value means true");
    v.type = PMIX_BOOL;
    v.data.flag = false;
    cr_assert_eq(pmix_check_true(&v), PMIX_BOOL_FALSE);
    v.data.flag = true;
    cr_assert_eq(pmix_check_true(&v), PMIX_BOOL_TRUE);
    v.type = PMIX_INT;
    v.data.integer = 1;
    cr_assert_eq(pmix_check_true(&v), PMIX_NON_BOOL);

    cr_assert_eq(truth_of_string(NULL), PMIX_BOOL_TRUE);
    cr_assert_eq(truth_of_string(""), PMIX_BOOL_TRUE);
    cr_assert_eq(truth_of_string("  "), PMIX_BOOL_TRUE);
    cr_assert_eq(truth_of_string("Yes"), PMIX_BOOL_TRUE);
    cr_assert_eq(truth_of_string(" TRUE"), PMIX_BOOL_TRUE);
    cr_assert_eq(truth_of_string("no"), PMIX_BOOL_FALSE);
    cr_assert_eq(truth_of_string("False"), PMIX_BOOL_FALSE);
    cr_assert_eq(truth_of_string("0"), PMIX_BOOL_FALSE);
    cr_assert_eq(truth_of_string("000"), PMIX_BOOL_FALSE);
    cr_assert_eq(truth_of_string("10"), PMIX_BOOL_TRUE);
    cr_assert_eq(truth_of_string("maybe"), PMIX_NON_BOOL);
}

Test(abi_inline, rank_and_system_event_ranges)
{
    cr_assert(PMIX_RANK_IS_VALID(0));
    cr_assert(PMIX_RANK_IS_VALID(PMIX_RANK_VALID - 1));
    cr_assert(!PMIX_RANK_IS_VALID(PMIX_RANK_VALID));
    cr_assert(!PMIX_RANK_IS_VALID(PMIX_RANK_WILDCARD));
    cr_assert(!PMIX_RANK_IS_VALID(PMIX_RANK_UNDEF));

    cr_assert(PMIX_SYSTEM_EVENT(PMIX_EVENT_SYS_BASE));
    cr_assert(PMIX_SYSTEM_EVENT(PMIX_EVENT_SYS_OTHER));
    cr_assert(PMIX_SYSTEM_EVENT(PMIX_EVENT_NODE_DOWN));
    cr_assert(!PMIX_SYSTEM_EVENT(PMIX_EVENT_SYS_BASE + 1));
    cr_assert(!PMIX_SYSTEM_EVENT(PMIX_EVENT_SYS_OTHER - 1));
    cr_assert(!PMIX_SYSTEM_EVENT(PMIX_SUCCESS));
    cr_assert(!PMIX_SYSTEM_EVENT(INT_MAX));
    cr_assert(!PMIX_SYSTEM_EVENT(INT_MIN));
}

Test(abi_inline, value_get_number_converts_numbers_only)
{
    pmix_value_t v = PMIX_VALUE_STATIC_INIT;
    pmix_status_t rc;
    int64_t i64 = -1;
    float f = 0;
    int calls = 0;

    v.type = PMIX_UINT32;
    v.data.uint32 = 5;
    PMIX_VALUE_GET_NUMBER(rc, &v, i64, int64_t);
    cr_assert_eq(rc, PMIX_SUCCESS);
    cr_assert_eq(i64, 5);

    v.type = PMIX_DOUBLE;
    v.data.dval = 2.5;
    PMIX_VALUE_GET_NUMBER(rc, &v, f, float);
    cr_assert_eq(rc, PMIX_SUCCESS);
    cr_assert_float_eq(f, 2.5f, 1e-6);

    v.type = PMIX_PROC_RANK;
    v.data.rank = 7;
    PMIX_VALUE_GET_NUMBER(rc, (++calls, &v), i64, int64_t);
    cr_assert_eq(i64, 7);
    cr_assert_eq(calls, 1, "the value argument is evaluated once");

    v.type = PMIX_STRING;
    v.data.string = "12";
    i64 = 99;
    PMIX_VALUE_GET_NUMBER(rc, &v, i64, int64_t);
    cr_assert_eq(rc, PMIX_ERR_BAD_PARAM);
    cr_assert_eq(i64, 99, "the destination is untouched on error");
}

Test(abi_inline, static_initializers)
{
    pmix_proc_t proc = PMIX_PROC_STATIC_INIT;
    pmix_proc_info_t pinfo = PMIX_PROC_INFO_STATIC_INIT;
    pmix_info_t info = PMIX_INFO_STATIC_INIT;
    pmix_device_distance_t dist = PMIX_DEVICE_DIST_STATIC_INIT;
    pmix_node_pid_t np = PMIX_NODE_PID_STATIC_INIT;
    pmix_data_array_t da = PMIX_DATA_ARRAY_STATIC_INIT;
    pmix_coord_t coord = PMIX_COORD_STATIC_INIT;

    cr_assert_eq(proc.rank, PMIX_RANK_UNDEF);
    cr_assert_str_empty(proc.nspace);
    cr_assert_eq(pinfo.proc.rank, PMIX_RANK_UNDEF);
    cr_assert_eq(pinfo.state, PMIX_PROC_STATE_UNDEF);
    cr_assert_str_empty(info.key);
    cr_assert_eq(info.flags, 0);
    cr_assert_eq(info.value.type, PMIX_UNDEF);
    cr_assert_null(info.value.data.ptr);
    cr_assert_eq(dist.type, PMIX_DEVTYPE_UNKNOWN);
    cr_assert_eq(np.nodeid, UINT32_MAX);
    cr_assert_eq(np.pid, -1);
    cr_assert_eq(da.type, PMIX_UNDEF);
    cr_assert_null(da.array);
    cr_assert_eq(coord.view, PMIX_COORD_VIEW_UNDEF);
}

Test(abi_inline, fabric_construct_zeroes)
{
    pmix_fabric_t fabric;

    memset(&fabric, 0xff, sizeof(fabric));
    PMIX_FABRIC_CONSTRUCT(&fabric);
    cr_assert_null(fabric.name);
    cr_assert_eq(fabric.index, 0);
    cr_assert_null(fabric.info);
    cr_assert_null(fabric.module);
}

Test(abi_inline, stats_create_and_free)
{
    pmix_node_stats_t *nd = NULL;
    pmix_proc_stats_t *ps = NULL;

    PMIX_PROC_STATS_CREATE(ps, 0);
    cr_assert_null(ps, "0 elements give NULL");
    PMIX_PROC_STATS_CREATE(ps, 2);
    cr_assert_not_null(ps);
    cr_assert_null(ps[1].cmd);
    ps[0].node = strdup("n0");
    ps[1].cmd = strdup("a.out");
    PMIX_PROC_STATS_FREE(ps, 2);
    cr_assert_null(ps);
    PMIX_PROC_STATS_FREE(ps, 2); /* NULL is a no-op */

    PMIX_NODE_STATS_CREATE(nd, 1);
    cr_assert_not_null(nd);
    nd->node = strdup("n0");
    PMIX_DISK_STATS_CREATE(nd->diskstats, 2);
    nd->ndiskstats = 2;
    nd->diskstats[1].disk = strdup("sda");
    PMIX_NET_STATS_CREATE(nd->netstats, 1);
    nd->nnetstats = 1;
    nd->netstats[0].net_interface = strdup("eth0");
    PMIX_NODE_STATS_DESTRUCT(nd);
    cr_assert_null(nd->node);
    cr_assert_null(nd->diskstats);
    cr_assert_eq(nd->ndiskstats, 0);
    cr_assert_null(nd->netstats);
    /* 4.2.2 semantics: RELEASE destructs but does not free the object */
    PMIX_NODE_STATS_RELEASE(nd);
    cr_assert_not_null(nd);
    PMIX_NODE_STATS_FREE(nd, 1);
    cr_assert_null(nd);
}
