/* Names of PMIx constants: PMIx_Error_string and the other *_string functions, their
 * inverses (PMIx_Error_code, PMIx_Get_attribute_string/_name) and px_names_*.
 * Any thread: the tables are constant; flag-set strings use a per-thread buffer.
 *
 * Convention: every *_string function returns the constant's exact C name as the headers
 * spell it ("PMIX_ERR_BAD_PARAM", "PMIX_PROC_STATE_RUNNING", "PMIX_RANGE_SESSION",
 * "PMIX_BOOL"), so a printed value can be grepped for and fed back to PMIx_Error_code.
 * Aliases print one chosen name (tools/gen_tables.py says which). An unknown value gives
 * a fixed "UNKNOWN <WHAT>" string (e.g. "UNKNOWN STATUS"), never NULL. Flag sets
 * (IOF channels, device types, info directives) print "A|B|0x..." as px_names_flags
 * describes; the const char * of PMIx_IOF_channel_string/PMIx_Device_type_string points
 * to a per-thread buffer valid until the same function is next called on that thread. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pmix.h"
#include "common/px_common.h"
#include "util/px_names.h"

/* Longest flag-set text: all single-bit names of the largest table plus a hex tail. */
#define PX_NAMES_FLAGBUF 1024

const char *px_names_enum(const struct px_abi_enum *e, int64_t v)
{
    for (size_t i = 0; i < e->len; i++) {
        if (e->names[i].value == v && e->names[i].primary) {
            return e->names[i].name;
        }
    }
    return NULL;
}

static bool px_names_single_bit(int64_t v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

/* Append text to buf at *pos (snprintf-style: counts even what does not fit). */
static void px_names_put(char *buf, size_t size, size_t *pos, const char *text)
{
    size_t len = strlen(text);

    if (*pos < size) {
        size_t room = size - *pos - 1;
        size_t n = len < room ? len : room;

        memcpy(buf + *pos, text, n);
        buf[*pos + n] = '\0';
    }
    *pos += len;
}

size_t px_names_flags(const struct px_abi_enum *e, uint64_t v, const char *none, char *buf,
                      size_t size)
{
    const char *exact = v <= INT64_MAX ? px_names_enum(e, (int64_t)v) : NULL;
    uint64_t left = v;
    size_t pos = 0;

    if (size > 0) {
        buf[0] = '\0';
    }
    if (exact != NULL) {
        px_names_put(buf, size, &pos, exact);
        return pos;
    }
    if (v == 0) {
        px_names_put(buf, size, &pos, none);
        return pos;
    }
    for (int bit = 0; bit < 64; bit++) {
        uint64_t mask = UINT64_C(1) << bit;

        if ((v & mask) == 0) {
            continue;
        }
        for (size_t i = 0; i < e->len; i++) {
            if (e->names[i].primary && px_names_single_bit(e->names[i].value) &&
                (uint64_t)e->names[i].value == mask) {
                if (pos > 0) {
                    px_names_put(buf, size, &pos, "|");
                }
                px_names_put(buf, size, &pos, e->names[i].name);
                left &= ~mask;
                break;
            }
        }
    }
    if (left != 0) {
        char hex[24];

        snprintf(hex, sizeof(hex), "0x%" PRIx64, left);
        if (pos > 0) {
            px_names_put(buf, size, &pos, "|");
        }
        px_names_put(buf, size, &pos, hex);
    }
    return pos;
}

static int px_names_attr_cmp(const void *key, const void *elem)
{
    return strcmp(key, ((const struct px_abi_attr *)elem)->name);
}

static int px_names_key_cmp(const void *key, const void *elem)
{
    return strcmp(key, ((const struct px_abi_key *)elem)->key);
}

const struct px_abi_attr *px_names_attr_by_name(const char *name)
{
    if (name == NULL) {
        return NULL;
    }
    return bsearch(name, px_abi_attrs, px_abi_attrs_len, sizeof(px_abi_attrs[0]),
                   px_names_attr_cmp);
}

const struct px_abi_attr *px_names_attr_by_key(const char *key)
{
    const struct px_abi_key *k;

    if (key == NULL) {
        return NULL;
    }
    k = bsearch(key, px_abi_keys, px_abi_keys_len, sizeof(px_abi_keys[0]), px_names_key_cmp);
    return k != NULL ? &px_abi_attrs[k->attr] : NULL;
}

static const char *px_names_or(const struct px_abi_enum *e, int64_t v, const char *unknown)
{
    const char *name = px_names_enum(e, v);

    return name != NULL ? name : unknown;
}

const char *PMIx_Error_string(pmix_status_t status)
{
    return px_names_or(&px_abi_status, status, "UNKNOWN STATUS");
}

/* Inverse of PMIx_Error_string: any status name, aliases included, compared without
 * regard to case. INT32_MIN (no status has that value) if unknown or NULL. */
pmix_status_t PMIx_Error_code(const char *errname)
{
    if (errname == NULL) {
        return INT32_MIN;
    }
    for (size_t i = 0; i < px_abi_status.len; i++) {
        if (strcasecmp(px_abi_status.names[i].name, errname) == 0) {
            return (pmix_status_t)px_abi_status.names[i].value;
        }
    }
    return INT32_MIN;
}

const char *PMIx_Proc_state_string(pmix_proc_state_t state)
{
    if (state == PX_PROC_STATE_STOPPED) {
        return "STOPPED"; /* ours (common/px_common.h): the Standard has no stopped state */
    }
    return px_names_or(&px_abi_proc_state, state, "UNKNOWN PROC STATE");
}

const char *PMIx_Job_state_string(pmix_job_state_t state)
{
    return px_names_or(&px_abi_job_state, state, "UNKNOWN JOB STATE");
}

const char *PMIx_Scope_string(pmix_scope_t scope)
{
    return px_names_or(&px_abi_scope, scope, "UNKNOWN SCOPE");
}

const char *PMIx_Persistence_string(pmix_persistence_t persist)
{
    return px_names_or(&px_abi_persistence, persist, "UNKNOWN PERSISTENCE");
}

const char *PMIx_Data_range_string(pmix_data_range_t range)
{
    return px_names_or(&px_abi_data_range, range, "UNKNOWN RANGE");
}

const char *PMIx_Data_type_string(pmix_data_type_t type)
{
    return px_names_or(&px_abi_data_type, type, "UNKNOWN DATA TYPE");
}

const char *PMIx_Alloc_directive_string(pmix_alloc_directive_t directive)
{
    return px_names_or(&px_abi_alloc_directive, directive, "UNKNOWN ALLOC DIRECTIVE");
}

const char *PMIx_Link_state_string(pmix_link_state_t state)
{
    return px_names_or(&px_abi_link_state, state, "UNKNOWN LINK STATE");
}

const char *PMIx_Value_comparison_string(pmix_value_cmp_t cmp)
{
    return px_names_or(&px_abi_value_cmp, cmp, "UNKNOWN VALUE COMPARISON");
}

const char *PMIx_Resource_block_directive_string(pmix_resource_block_directive_t directive)
{
    return px_names_or(&px_abi_resource_block_directive, directive,
                       "UNKNOWN RESOURCE BLOCK DIRECTIVE");
}

const char *PMIx_Alloc_inheritance_string(pmix_alloc_inheritance_t inheritance)
{
    return px_names_or(&px_abi_alloc_inheritance, inheritance, "UNKNOWN ALLOC INHERITANCE");
}

const char *PMIx_Group_operation_string(pmix_group_operation_t op)
{
    return px_names_or(&px_abi_group_operation, op, "UNKNOWN GROUP OPERATION");
}

const char *PMIx_IOF_channel_string(pmix_iof_channel_t channel)
{
    static _Thread_local char buf[PX_NAMES_FLAGBUF];

    px_names_flags(&px_abi_iof_channel, channel, "PMIX_FWD_NO_CHANNELS", buf, sizeof(buf));
    return buf;
}

const char *PMIx_Device_type_string(pmix_device_type_t type)
{
    static _Thread_local char buf[PX_NAMES_FLAGBUF];

    px_names_flags(&px_abi_device_type, type, "PMIX_DEVTYPE_UNKNOWN", buf, sizeof(buf));
    return buf;
}

/* Caller frees (4.2.2 returns char *). No directive set prints "NONE". NULL only when
 * out of memory. */
char *PMIx_Info_directives_string(pmix_info_directives_t directives)
{
    size_t len = px_names_flags(&px_abi_info_directives, directives, "NONE", NULL, 0);
    char *out = malloc(len + 1);

    if (out != NULL) {
        px_names_flags(&px_abi_info_directives, directives, "NONE", out, len + 1);
    }
    return out;
}

/* "PMIX_JOB_SIZE" -> "pmix.job.size". An unknown name (or a string that already is a
 * key) is returned unchanged, as 4.2.2 does; NULL gives NULL. */
const char *PMIx_Get_attribute_string(const char *attribute)
{
    const struct px_abi_attr *a = px_names_attr_by_name(attribute);

    return a != NULL ? a->key : attribute;
}

/* "pmix.job.size" -> "PMIX_JOB_SIZE"; master's re-keyed strings (pmix.qry.supqual,
 * pmix.jctrl.ckpttime, pmix.fabdev.coord) give their attribute's name too. A key
 * shared by several names gives the one gen_tables.py picked. Unknown keys are returned
 * unchanged; NULL gives NULL. */
const char *PMIx_Get_attribute_name(const char *attrstring)
{
    const struct px_abi_attr *a = px_names_attr_by_key(attrstring);

    return a != NULL ? a->name : attrstring;
}
