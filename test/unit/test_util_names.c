/* Unit tests of libpmix-core/util names.c and the generated px_abi_tables: every
 * *_string function, PMIx_Error_code, the attribute dictionary both ways.
 * Single-threaded. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmix.h"
#include "common/px_common.h"
#include "util/px_abi_tables.h"
#include "util/px_names.h"

Test(names, error_string_convention)
{
    cr_assert_str_eq(PMIx_Error_string(PMIX_SUCCESS), "PMIX_SUCCESS");
    cr_assert_str_eq(PMIx_Error_string(PMIX_ERR_BAD_PARAM), "PMIX_ERR_BAD_PARAM");
    cr_assert_str_eq(PMIx_Error_string(PMIX_ERR_NOT_SUPPORTED), "PMIX_ERR_NOT_SUPPORTED");
    cr_assert_str_eq(PMIx_Error_string(PMIX_ERR_CHANGE_SIGN), "PMIX_ERR_CHANGE_SIGN");
    /* aliases print the current Standard name */
    cr_assert_str_eq(PMIx_Error_string(PMIX_ERR_DEBUGGER_RELEASE), "PMIX_DEBUGGER_RELEASE");
    cr_assert_str_eq(PMIx_Error_string(PMIX_EXISTS), "PMIX_ERR_EXISTS");
    cr_assert_str_eq(PMIx_Error_string(PMIX_ERR_JOB_TERMINATED), "PMIX_EVENT_JOB_END");
    cr_assert_str_eq(PMIx_Error_string(PMIX_ERR_NODE_DOWN), "PMIX_EVENT_NODE_DOWN");
    cr_assert_str_eq(PMIx_Error_string(PMIX_DEBUG_WAITING_FOR_NOTIFY), "PMIX_READY_FOR_DEBUG");
}

/* OpenPMIx 3.x's event of the older "wait for directives" handshake (issue 16): kept
 * in our headers (tools/headers/constants_compat.tsv) with its value and name. */
Test(names, launch_directive_compat)
{
    cr_assert_eq(PMIX_LAUNCH_DIRECTIVE, -154);
    cr_assert_str_eq(PMIx_Error_string(PMIX_LAUNCH_DIRECTIVE), "PMIX_LAUNCH_DIRECTIVE");
    cr_assert_eq(PMIx_Error_code("PMIX_LAUNCH_DIRECTIVE"), -154);
}

Test(names, error_string_unknown)
{
    cr_assert_str_eq(PMIx_Error_string(12345), "UNKNOWN STATUS");
    cr_assert_str_eq(PMIx_Error_string(-99999), "UNKNOWN STATUS");
    cr_assert_str_eq(PMIx_Error_string(INT32_MIN), "UNKNOWN STATUS");
    cr_assert_str_eq(PMIx_Error_string(-57), "UNKNOWN STATUS");
}

/* Every status value has a non-NULL string, and distinct values distinct strings. */
Test(names, every_status_distinct)
{
    const struct px_abi_enum *e = &px_abi_status;
    size_t nprimary = 0;

    cr_assert_gt(e->len, 150);
    for (size_t i = 0; i < e->len; i++) {
        const char *s = PMIx_Error_string((pmix_status_t)e->names[i].value);

        cr_assert_not_null(s);
        cr_assert_str_neq(s, "UNKNOWN STATUS", "%s", e->names[i].name);
        if (e->names[i].primary) {
            nprimary++;
            cr_assert_str_eq(s, e->names[i].name);
        }
        for (size_t j = 0; j < e->len; j++) {
            if (e->names[j].value != e->names[i].value) {
                cr_assert_str_neq(s, PMIx_Error_string((pmix_status_t)e->names[j].value),
                                  "%s vs %s", e->names[i].name, e->names[j].name);
            }
        }
    }
    /* exactly one primary name per value */
    for (size_t i = 0; i < e->len; i++) {
        size_t n = 0;

        for (size_t j = 0; j < e->len; j++) {
            n += e->names[j].value == e->names[i].value && e->names[j].primary;
        }
        cr_assert_eq(n, 1, "%s", e->names[i].name);
    }
    cr_assert_gt(nprimary, 150);
}

Test(names, every_enum_table_has_one_primary_per_value)
{
    for (size_t t = 0; t < px_abi_enums_len; t++) {
        const struct px_abi_enum *e = px_abi_enums[t];

        cr_assert_gt(e->len, 0, "%s", e->typedef_name);
        for (size_t i = 0; i < e->len; i++) {
            size_t n = 0;

            for (size_t j = 0; j < e->len; j++) {
                n += e->names[j].value == e->names[i].value && e->names[j].primary;
            }
            cr_assert_eq(n, 1, "%s %s", e->typedef_name, e->names[i].name);
        }
        if (t > 0) {
            cr_assert_lt(strcmp(px_abi_enums[t - 1]->typedef_name, e->typedef_name), 0);
        }
    }
}

Test(names, error_code)
{
    const struct px_abi_enum *e = &px_abi_status;

    for (size_t i = 0; i < e->len; i++) {
        cr_assert_eq(PMIx_Error_code(e->names[i].name), e->names[i].value, "%s", e->names[i].name);
        cr_assert_eq(PMIx_Error_code(PMIx_Error_string((pmix_status_t)e->names[i].value)),
                     e->names[i].value);
    }
    cr_assert_eq(PMIx_Error_code("pmix_err_bad_param"), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Error_code("PMIX_ERR_DEBUGGER_RELEASE"), PMIX_ERR_DEBUGGER_RELEASE);
    cr_assert_eq(PMIx_Error_code("NO_SUCH_ERROR"), INT32_MIN);
    cr_assert_eq(PMIx_Error_code(""), INT32_MIN);
    cr_assert_eq(PMIx_Error_code(NULL), INT32_MIN);
    cr_assert_eq(PMIx_Error_code("UNKNOWN STATUS"), INT32_MIN);
}

Test(names, proc_and_job_state)
{
    cr_assert_str_eq(PMIx_Proc_state_string(PMIX_PROC_STATE_RUNNING), "PMIX_PROC_STATE_RUNNING");
    cr_assert_str_eq(PMIx_Proc_state_string(PMIX_PROC_STATE_FAILED_TO_LAUNCH),
                     "PMIX_PROC_STATE_FAILED_TO_LAUNCH");
    cr_assert_str_eq(PMIx_Proc_state_string(200), "UNKNOWN PROC STATE");
    /* ours: a stopped process in a proc table (the Standard has no such state) */
    cr_assert_str_eq(PMIx_Proc_state_string(PX_PROC_STATE_STOPPED), "STOPPED");
    cr_assert_lt(PX_PROC_STATE_STOPPED, PMIX_PROC_STATE_UNTERMINATED);
    cr_assert_str_eq(PMIx_Job_state_string(PMIX_JOB_STATE_RUNNING), "PMIX_JOB_STATE_RUNNING");
    cr_assert_str_eq(PMIx_Job_state_string(PMIX_JOB_STATE_PREPPED),
                     "PMIX_JOB_STATE_AWAITING_ALLOC");
    cr_assert_str_eq(PMIx_Job_state_string(PMIX_JOB_STATE_TERMINATED_WITH_ERROR),
                     "PMIX_JOB_STATE_TERMINATED_WITH_ERROR");
    cr_assert_str_eq(PMIx_Job_state_string(99), "UNKNOWN JOB STATE");
}

Test(names, small_enums)
{
    cr_assert_str_eq(PMIx_Scope_string(PMIX_GLOBAL), "PMIX_GLOBAL");
    cr_assert_str_eq(PMIx_Scope_string(PMIX_DEL_INTERNAL), "PMIX_DEL_INTERNAL");
    cr_assert_str_eq(PMIx_Scope_string(77), "UNKNOWN SCOPE");
    cr_assert_str_eq(PMIx_Persistence_string(PMIX_PERSIST_SESSION), "PMIX_PERSIST_SESSION");
    cr_assert_str_eq(PMIx_Persistence_string(PMIX_PERSIST_INVALID), "PMIX_PERSIST_INVALID");
    cr_assert_str_eq(PMIx_Persistence_string(9), "UNKNOWN PERSISTENCE");
    cr_assert_str_eq(PMIx_Data_range_string(PMIX_RANGE_NAMESPACE), "PMIX_RANGE_NAMESPACE");
    cr_assert_str_eq(PMIx_Data_range_string(42), "UNKNOWN RANGE");
    cr_assert_str_eq(PMIx_Alloc_directive_string(PMIX_ALLOC_EXTERNAL), "PMIX_ALLOC_EXTERNAL");
    cr_assert_str_eq(PMIx_Alloc_directive_string(PMIX_ALLOC_REQ_CANCEL), "PMIX_ALLOC_REQ_CANCEL");
    cr_assert_str_eq(PMIx_Alloc_directive_string(0), "UNKNOWN ALLOC DIRECTIVE");
    cr_assert_str_eq(PMIx_Link_state_string(PMIX_LINK_UP), "PMIX_LINK_UP");
    cr_assert_str_eq(PMIx_Link_state_string(3), "UNKNOWN LINK STATE");
    cr_assert_str_eq(PMIx_Value_comparison_string(PMIX_VALUE2_GREATER), "PMIX_VALUE2_GREATER");
    cr_assert_str_eq(PMIx_Value_comparison_string((pmix_value_cmp_t)17),
                     "UNKNOWN VALUE COMPARISON");
    cr_assert_str_eq(PMIx_Resource_block_directive_string(PMIX_RESOURCE_BLOCK_EXTERNAL),
                     "PMIX_RESOURCE_BLOCK_EXTERNAL");
    cr_assert_str_eq(PMIx_Resource_block_directive_string(0), "UNKNOWN RESOURCE BLOCK DIRECTIVE");
    cr_assert_str_eq(PMIx_Alloc_inheritance_string(PMIX_ALLOC_INHERIT_CHILD_DEFAULT),
                     "PMIX_ALLOC_INHERIT_CHILD_DEFAULT");
    cr_assert_str_eq(PMIx_Alloc_inheritance_string(0), "UNKNOWN ALLOC INHERITANCE");
    cr_assert_str_eq(PMIx_Group_operation_string(PMIX_GROUP_CANCEL), "PMIX_GROUP_CANCEL");
    cr_assert_str_eq(PMIx_Group_operation_string((pmix_group_operation_t)9),
                     "UNKNOWN GROUP OPERATION");
}

Test(names, data_type_string)
{
    const struct px_abi_enum *e = &px_abi_data_type;

    cr_assert_str_eq(PMIx_Data_type_string(PMIX_BOOL), "PMIX_BOOL");
    cr_assert_str_eq(PMIx_Data_type_string(PMIX_DATA_ARRAY), "PMIX_DATA_ARRAY");
    cr_assert_str_eq(PMIx_Data_type_string(PMIX_REGEX2), "PMIX_REGEX2");
    cr_assert_str_eq(PMIx_Data_type_string(PMIX_PROC_STATS), "PMIX_PROC_STATS");
    cr_assert_str_eq(PMIx_Data_type_string(29), "UNKNOWN DATA TYPE");
    cr_assert_str_eq(PMIx_Data_type_string(1000), "UNKNOWN DATA TYPE");
    for (size_t i = 0; i < e->len; i++) {
        cr_assert_str_eq(PMIx_Data_type_string((pmix_data_type_t)e->names[i].value),
                         e->names[i].name);
    }
}

Test(names, iof_channel_flags)
{
    cr_assert_str_eq(PMIx_IOF_channel_string(PMIX_FWD_NO_CHANNELS), "PMIX_FWD_NO_CHANNELS");
    cr_assert_str_eq(PMIx_IOF_channel_string(PMIX_FWD_STDOUT_CHANNEL), "PMIX_FWD_STDOUT_CHANNEL");
    cr_assert_str_eq(PMIx_IOF_channel_string(PMIX_FWD_ALL_CHANNELS), "PMIX_FWD_ALL_CHANNELS");
    cr_assert_str_eq(PMIx_IOF_channel_string(PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL),
                     "PMIX_FWD_STDOUT_CHANNEL|PMIX_FWD_STDERR_CHANNEL");
    cr_assert_str_eq(PMIx_IOF_channel_string(PMIX_FWD_STDIN_CHANNEL | 0x100),
                     "PMIX_FWD_STDIN_CHANNEL|0x100");
    cr_assert_str_eq(PMIx_IOF_channel_string(0x300), "0x300");
}

Test(names, device_type_flags)
{
    cr_assert_str_eq(PMIx_Device_type_string(PMIX_DEVTYPE_UNKNOWN), "PMIX_DEVTYPE_UNKNOWN");
    cr_assert_str_eq(PMIx_Device_type_string(PMIX_DEVTYPE_GPU), "PMIX_DEVTYPE_GPU");
    cr_assert_str_eq(PMIx_Device_type_string(PMIX_DEVTYPE_NETWORK | PMIX_DEVTYPE_BLOCK),
                     "PMIX_DEVTYPE_BLOCK|PMIX_DEVTYPE_NETWORK");
    cr_assert_str_eq(PMIx_Device_type_string(PMIX_DEVTYPE_NODE | (UINT64_C(1) << 63)),
                     "PMIX_DEVTYPE_NODE|0x8000000000000000");
}

Test(names, info_directives_string)
{
    char *s;

    s = PMIx_Info_directives_string(0);
    cr_assert_str_eq(s, "NONE");
    free(s);
    s = PMIx_Info_directives_string(PMIX_INFO_REQD);
    cr_assert_str_eq(s, "PMIX_INFO_REQD");
    free(s);
    s = PMIx_Info_directives_string(PMIX_INFO_REQD | PMIX_INFO_ARRAY_END | PMIX_INFO_PERSISTENT);
    cr_assert_str_eq(s, "PMIX_INFO_REQD|PMIX_INFO_ARRAY_END|PMIX_INFO_PERSISTENT");
    free(s);
    s = PMIx_Info_directives_string(PMIX_INFO_QUALIFIER | 0x10000);
    cr_assert_str_eq(s, "PMIX_INFO_QUALIFIER|0x10000");
    free(s);
}

Test(names, flags_buffer_truncation)
{
    char small[8];
    size_t need = px_names_flags(&px_abi_iof_channel, 6, "x", small, sizeof(small));

    cr_assert_eq(need, strlen("PMIX_FWD_STDOUT_CHANNEL|PMIX_FWD_STDERR_CHANNEL"));
    cr_assert_str_eq(small, "PMIX_FW");
    cr_assert_eq(px_names_flags(&px_abi_iof_channel, 6, "x", NULL, 0), need);
}

Test(names, attribute_lookup)
{
    cr_assert_str_eq(PMIx_Get_attribute_string("PMIX_JOB_SIZE"), "pmix.job.size");
    cr_assert_str_eq(PMIx_Get_attribute_name("pmix.job.size"), "PMIX_JOB_SIZE");
    /* unknown: returned unchanged; NULL stays NULL */
    cr_assert_str_eq(PMIx_Get_attribute_string("PMIX_NO_SUCH_ATTR"), "PMIX_NO_SUCH_ATTR");
    cr_assert_str_eq(PMIx_Get_attribute_name("pmix.no.such"), "pmix.no.such");
    cr_assert_null(PMIx_Get_attribute_string(NULL));
    cr_assert_null(PMIx_Get_attribute_name(NULL));
    /* 4.2.2's shared keys map to the name master kept on that key */
    cr_assert_str_eq(PMIx_Get_attribute_string("PMIX_QUERY_SUPPORTED_QUALIFIERS"),
                     "pmix.qry.quals");
    cr_assert_str_eq(PMIx_Get_attribute_name("pmix.qry.quals"), "PMIX_QUERY_QUALIFIERS");
    cr_assert_str_eq(PMIx_Get_attribute_name("pmix.alloc.net"), "PMIX_ALLOC_FABRIC");
    /* master's three re-keyed strings are synonyms */
    cr_assert_str_eq(PMIx_Get_attribute_name("pmix.qry.supqual"),
                     "PMIX_QUERY_SUPPORTED_QUALIFIERS");
    cr_assert_str_eq(PMIx_Get_attribute_name("pmix.jctrl.ckpttime"),
                     "PMIX_JOB_CTRL_CHECKPOINT_TIMEOUT");
    cr_assert_str_eq(PMIx_Get_attribute_name("pmix.fabdev.coord"),
                     "PMIX_FABRIC_DEVICE_COORDINATES");
    cr_assert_str_eq(PMIx_Get_attribute_name("pmix.fab.coord"), "PMIX_FABRIC_COORDINATES");
    cr_assert_str_eq(PMIx_Get_attribute_name("pmix.jctrl.ckptsig"),
                     "PMIX_JOB_CTRL_CHECKPOINT_SIGNAL");
}

Test(names, attribute_dictionary_entries)
{
    const struct px_abi_attr *a = px_names_attr_by_name("PMIX_JOB_SIZE");

    cr_assert_not_null(a);
    cr_assert_eq(a->type, PMIX_UINT32);
    cr_assert_not_null(a->description);
    cr_assert_gt(strlen(a->description), 0);
    cr_assert_not(a->master_only);
    a = px_names_attr_by_key("pmix.fabdev.coord");
    cr_assert_not_null(a);
    cr_assert_str_eq(a->key, "pmix.fab.coord");
    cr_assert_null(px_names_attr_by_name("PMIX_LAUNCHER_RNDZ_URI")); /* env-var name */
    cr_assert_null(px_names_attr_by_key(NULL));
}

/* name -> key -> name for every attribute: the name comes back, or (for keys several
 * names share) a name with the same key. The macros agree with the dictionary. */
Test(names, attribute_round_trip_all)
{
    cr_assert_gt(px_abi_attrs_len, 600);
    for (size_t i = 0; i < px_abi_attrs_len; i++) {
        const struct px_abi_attr *a = &px_abi_attrs[i];
        const char *key = PMIx_Get_attribute_string(a->name);
        const char *name = PMIx_Get_attribute_name(key);

        cr_assert_str_eq(key, a->key, "%s", a->name);
        cr_assert_str_neq(key, a->name);
        cr_assert_not_null(name);
        if (strcmp(name, a->name) != 0) {
            cr_assert_str_eq(PMIx_Get_attribute_string(name), key, "%s vs %s", a->name, name);
        }
        if (i > 0) {
            cr_assert_lt(strcmp(px_abi_attrs[i - 1].name, a->name), 0);
        }
    }
    for (size_t i = 1; i < px_abi_keys_len; i++) {
        cr_assert_lt(strcmp(px_abi_keys[i - 1].key, px_abi_keys[i].key), 0);
    }
}

Test(names, attribute_macros_match_dictionary)
{
    cr_assert_str_eq(PMIx_Get_attribute_string("PMIX_NODE_RANK"), PMIX_NODE_RANK);
    cr_assert_str_eq(PMIx_Get_attribute_string("PMIX_SERVER_URI"), PMIX_SERVER_URI);
    cr_assert_str_eq(PMIx_Get_attribute_string("PMIX_FABRIC_DEVICE_COORDINATES"),
                     PMIX_FABRIC_DEVICE_COORDINATES);
    cr_assert_str_eq(PMIx_Get_attribute_name(PMIX_NSPACE), "PMIX_NSPACE");
}
