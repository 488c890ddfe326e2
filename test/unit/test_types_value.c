/* Unit tests of libpmix-core/types: pmix_value_t (load/unload/xfer/compare for every
 * type, numbers, booleans, sizes), pmix_info_t and pmix_data_array_t, also through the
 * header macros when include/ has them. Single-threaded. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "types/px_types.h"

extern const pmix_data_type_t tt_all_types[];
extern const size_t tt_num_types;
void tt_fill_sample(void *elem, pmix_data_type_t t, int variant, int depth);
bool tt_type_comparable(pmix_data_type_t t);

/* Types a pmix_value_t has no union member for. */
static bool not_in_value(pmix_data_type_t t)
{
    return PMIX_APP == t || PMIX_INFO == t || PMIX_KVAL == t || PMIX_PDATA == t ||
           PMIX_QUERY == t || PMIX_REGATTR == t || PMIX_BUFFER == t || PMIX_VALUE == t;
}

/* The `data` argument PMIx_Value_load expects for an element of type t. */
static const void *load_arg(const void *elem, pmix_data_type_t t)
{
    if (PMIX_STRING == t || PMIX_POINTER == t || PMIX_REGEX == t) {
        return *(void *const *)elem;
    }
    return elem;
}

/* Pointer to the element a value of type t holds. */
static const void *value_elem(const pmix_value_t *v)
{
    switch (v->type) {
    case PMIX_PROC:
    case PMIX_PROC_INFO:
    case PMIX_DATA_ARRAY:
    case PMIX_COORD:
    case PMIX_PROC_CPUSET:
    case PMIX_GEOMETRY:
    case PMIX_DEVICE_DIST:
    case PMIX_ENDPOINT:
    case PMIX_TOPO:
    case PMIX_PROC_NSPACE:
    case PMIX_PROC_STATS:
    case PMIX_DISK_STATS:
    case PMIX_NET_STATS:
    case PMIX_NODE_STATS:
    case PMIX_DATA_BUFFER:
    case PMIX_DEVICE:
    case PMIX_RESOURCE_UNIT:
    case PMIX_NODE_PID:
    case PMIX_REGEX2:
        return v->data.ptr;
    default:
        return &v->data;
    }
}

/* Does value v hold the element elem of type t? A PMIX_REGEX value holds its string
 * as a byte object with the NUL counted (OpenPMIx 4.2.2). */
static pmix_value_cmp_t value_holds(const pmix_value_t *v, const void *elem, pmix_data_type_t t)
{
    if (PMIX_REGEX == t) {
        const char *s = *(char *const *)elem;
        return v->data.bo.size == strlen(s) + 1 && 0 == memcmp(v->data.bo.bytes, s, strlen(s) + 1)
                   ? PMIX_EQUAL
                   : PMIX_VALUE_COMPARISON_NOT_AVAIL;
    }
    return px_type_compare(value_elem(v), elem, t);
}

/* ---- every type through load / xfer / compare / unload ---- */

Test(types_value, load_xfer_compare_unload_every_type)
{
    for (size_t i = 0; i < tt_num_types; i++) {
        pmix_data_type_t t = tt_all_types[i];
        size_t sz = px_type_size(t), usz = 0;
        void *elem = malloc(sz), *other = malloc(sz), *out = NULL;
        pmix_value_t v, w, x;

        cr_assert(elem && other);
        tt_fill_sample(elem, t, 0, 2);
        tt_fill_sample(other, t, 1, 2);
        memset(&v, 0x77, sizeof(v));
        if (not_in_value(t)) {
            if (PMIX_VALUE == t) {
                /* loading a value copies it, with its own type */
                cr_expect_eq(PMIx_Value_load(&v, elem, t), PMIX_SUCCESS);
                cr_expect_eq(PMIx_Value_compare(&v, elem), PMIX_EQUAL);
                PMIx_Value_destruct(&v);
            } else {
                cr_expect_eq(PMIx_Value_load(&v, elem, t), PMIX_ERR_NOT_SUPPORTED, "type %u",
                             (unsigned)t);
                cr_expect_eq(v.type, PMIX_UNDEF);
            }
            px_type_destruct(elem, t);
            px_type_destruct(other, t);
            free(elem);
            free(other);
            continue;
        }
        cr_assert_eq(PMIx_Value_load(&v, load_arg(elem, t), t), PMIX_SUCCESS, "type %u",
                     (unsigned)t);
        cr_expect_eq(v.type, t);
        cr_expect_eq(value_holds(&v, elem, t), PMIX_EQUAL, "type %u", (unsigned)t);
        cr_assert_eq(PMIx_Value_xfer(&w, &v), PMIX_SUCCESS);
        cr_expect_eq(PMIx_Value_compare(&v, &w), PMIX_EQUAL, "type %u", (unsigned)t);
        cr_assert_eq(PMIx_Value_load(&x, load_arg(other, t), t), PMIX_SUCCESS);
        if (tt_type_comparable(t)) {
            pmix_value_cmp_t c = PMIx_Value_compare(&v, &x);
            cr_expect(c == PMIX_VALUE1_GREATER || c == PMIX_VALUE2_GREATER ||
                          c == PMIX_VALUE_INCOMPATIBLE_OBJECTS,
                      "type %u: %d", (unsigned)t, c);
        }
        /* unload gives an independent copy */
        cr_assert_eq(PMIx_Value_unload(&v, &out, &usz), PMIX_SUCCESS, "type %u", (unsigned)t);
        switch (t) {
        case PMIX_STRING:
        case PMIX_REGEX:
            cr_expect_str_eq(out, *(char **)elem);
            cr_expect_eq(usz, strlen(out) + 1);
            free(out);
            break;
        case PMIX_BYTE_OBJECT:
        case PMIX_COMPRESSED_STRING:
        case PMIX_COMPRESSED_BYTE_OBJECT:
            cr_expect_eq(usz, ((pmix_byte_object_t *)elem)->size);
            cr_expect_eq(memcmp(out, ((pmix_byte_object_t *)elem)->bytes, usz), 0);
            cr_expect_neq(out, v.data.bo.bytes);
            free(out);
            break;
        case PMIX_POINTER:
            cr_expect_eq(out, *(void **)elem);
            break;
        default:
            cr_expect_eq(usz, sz, "type %u", (unsigned)t);
            cr_expect_eq(px_type_compare(out, elem, t), PMIX_EQUAL, "type %u", (unsigned)t);
            px_type_destruct(out, t);
            free(out);
            break;
        }
        PMIx_Value_destruct(&v);
        cr_expect_eq(v.type, PMIX_UNDEF);
        /* the xfer'd copy survives the original */
        cr_expect_eq(value_holds(&w, elem, t), PMIX_EQUAL, "type %u", (unsigned)t);
        PMIx_Value_destruct(&w);
        PMIx_Value_destruct(&x);
        PMIx_Value_destruct(&x);
        px_type_destruct(elem, t);
        px_type_destruct(other, t);
        free(elem);
        free(other);
    }
}

Test(types_value, null_data)
{
    pmix_value_t v;

    cr_assert_eq(PMIx_Value_load(&v, NULL, PMIX_BOOL), PMIX_SUCCESS);
    cr_expect_eq(v.type, PMIX_BOOL);
    cr_expect(v.data.flag);
    cr_assert_eq(PMIx_Value_load(&v, NULL, PMIX_STRING), PMIX_SUCCESS);
    cr_expect_eq(v.type, PMIX_STRING);
    cr_expect_null(v.data.string);
    PMIx_Value_destruct(&v);
    cr_assert_eq(PMIx_Value_load(&v, NULL, PMIX_UINT64), PMIX_SUCCESS);
    cr_expect_eq(v.data.uint64, 0);
    cr_assert_eq(PMIx_Value_load(&v, NULL, PMIX_DOUBLE), PMIX_SUCCESS);
    cr_expect_eq(v.data.dval, 0.0);
    cr_assert_eq(PMIx_Value_load(&v, NULL, PMIX_DATA_ARRAY), PMIX_SUCCESS);
    cr_expect_null(v.data.darray);
    PMIx_Value_destruct(&v);
    cr_assert_eq(PMIx_Value_load(&v, NULL, PMIX_BYTE_OBJECT), PMIX_SUCCESS);
    cr_expect_null(v.data.bo.bytes);
    cr_expect_eq(v.data.bo.size, 0);
    PMIx_Value_destruct(&v);
    cr_assert_eq(PMIx_Value_load(&v, NULL, PMIX_UNDEF), PMIX_SUCCESS);
    cr_expect_eq(v.type, PMIX_UNDEF);
    cr_expect_eq(PMIx_Value_load(NULL, "x", PMIX_STRING), PMIX_ERR_BAD_PARAM);
    cr_expect_eq(PMIx_Value_load(&v, "x", 300), PMIX_ERR_UNKNOWN_DATA_TYPE);
    cr_expect_eq(v.type, PMIX_UNDEF);
}

Test(types_value, null_string_round_trip)
{
    pmix_value_t v, w;
    void *out = (void *)"junk";
    size_t sz = 9;

    cr_assert_eq(PMIx_Value_load(&v, NULL, PMIX_STRING), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Value_xfer(&w, &v), PMIX_SUCCESS);
    cr_expect_eq(w.type, PMIX_STRING);
    cr_expect_null(w.data.string);
    cr_expect_eq(PMIx_Value_compare(&v, &w), PMIX_EQUAL);
    cr_assert_eq(PMIx_Value_unload(&w, &out, &sz), PMIX_SUCCESS);
    cr_expect_null(out);
    cr_expect_eq(sz, 0);
    PMIx_Value_destruct(&v);
    PMIx_Value_destruct(&w);
}

Test(types_value, nspace_from_short_string)
{
    pmix_value_t v;
    char longns[400];

    cr_assert_eq(PMIx_Value_load(&v, "abc", PMIX_PROC_NSPACE), PMIX_SUCCESS);
    cr_expect_str_eq(*v.data.nspace, "abc");
    PMIx_Value_destruct(&v);
    memset(longns, 'n', sizeof(longns) - 1);
    longns[sizeof(longns) - 1] = '\0';
    cr_assert_eq(PMIx_Value_load(&v, longns, PMIX_PROC_NSPACE), PMIX_SUCCESS);
    cr_expect_eq(strlen(*v.data.nspace), PMIX_MAX_NSLEN);
    PMIx_Value_destruct(&v);
}

Test(types_value, unload_scalars)
{
    pmix_value_t v;
    uint32_t u = 77, into = 0;
    void *out = NULL;
    size_t sz = 0;

    cr_assert_eq(PMIx_Value_load(&v, &u, PMIX_UINT32), PMIX_SUCCESS);
    /* *data NULL: newly allocated */
    cr_assert_eq(PMIx_Value_unload(&v, &out, &sz), PMIX_SUCCESS);
    cr_expect_eq(sz, 4);
    cr_expect_eq(*(uint32_t *)out, 77);
    free(out);
    /* *data set: the caller's storage is filled (4.2.2 behaviour) */
    out = &into;
    cr_assert_eq(PMIx_Value_unload(&v, &out, &sz), PMIX_SUCCESS);
    cr_expect_eq(out, &into);
    cr_expect_eq(into, 77);
    cr_expect_eq(PMIx_Value_unload(NULL, &out, &sz), PMIX_ERR_BAD_PARAM);
    cr_expect_eq(PMIx_Value_unload(&v, NULL, &sz), PMIX_ERR_BAD_PARAM);
    cr_expect_eq(PMIx_Value_unload(&v, &out, NULL), PMIX_ERR_BAD_PARAM);
    PMIx_Value_construct(&v);
    cr_expect_eq(PMIx_Value_unload(&v, &out, &sz), PMIX_ERR_UNKNOWN_DATA_TYPE);
}

Test(types_value, unload_empty_boxed)
{
    pmix_value_t v;
    void *out = NULL;
    size_t sz = 5;

    cr_assert_eq(PMIx_Value_load(&v, NULL, PMIX_PROC), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Value_unload(&v, &out, &sz), PMIX_SUCCESS);
    cr_expect_null(out);
    cr_expect_eq(sz, 0);
    PMIx_Value_destruct(&v);
}

Test(types_value, xfer_onto_itself)
{
    pmix_value_t v;
    pmix_info_t i;

    PMIx_Value_load(&v, "same", PMIX_STRING);
    cr_expect_eq(PMIx_Value_xfer(&v, &v), PMIX_SUCCESS);
    cr_expect_str_eq(v.data.string, "same");
    PMIx_Value_destruct(&v);
    PMIx_Info_load(&i, "k", "same", PMIX_STRING);
    cr_expect_eq(PMIx_Info_xfer(&i, &i), PMIX_SUCCESS);
    cr_expect_str_eq(i.value.data.string, "same");
    PMIx_Info_destruct(&i);
    cr_expect_eq(PMIx_Value_xfer(NULL, &v), PMIX_ERR_BAD_PARAM);
    cr_expect_eq(PMIx_Value_xfer(&v, NULL), PMIX_ERR_BAD_PARAM);
}

Test(types_value, compare_basics)
{
    pmix_value_t a, b;
    int x = 1;
    char y = 'a';

    PMIx_Value_construct(&a);
    PMIx_Value_construct(&b);
    cr_expect_eq(PMIx_Value_compare(&a, &b), PMIX_EQUAL);
    PMIx_Value_load(&a, &x, PMIX_INT);
    cr_expect_eq(PMIx_Value_compare(&a, &b), PMIX_VALUE_TYPE_DIFFERENT);
    PMIx_Value_load(&b, &y, PMIX_BYTE);
    cr_expect_eq(PMIx_Value_compare(&a, &b), PMIX_VALUE_TYPE_DIFFERENT);
    x = 5;
    PMIx_Value_load(&b, &x, PMIX_INT);
    cr_expect_eq(PMIx_Value_compare(&a, &b), PMIX_VALUE2_GREATER);
    cr_expect_eq(PMIx_Value_compare(&b, &a), PMIX_VALUE1_GREATER);
    cr_expect_eq(PMIx_Value_compare(NULL, &a), PMIX_VALUE_INCOMPATIBLE_OBJECTS);
    cr_expect_eq(PMIx_Value_compare(NULL, NULL), PMIX_EQUAL);
}

Test(types_value, create_free)
{
    pmix_value_t *v = PMIx_Value_create(3);

    cr_assert_not_null(v);
    for (int i = 0; i < 3; i++) {
        cr_expect_eq(v[i].type, PMIX_UNDEF);
    }
    PMIx_Value_load(&v[1], "owned", PMIX_STRING);
    PMIx_Value_free(v, 3);
    cr_expect_null(PMIx_Value_create(0));
    PMIx_Value_free(NULL, 4);
    PMIx_Value_construct(NULL);
    PMIx_Value_destruct(NULL);
}

/* ---- numbers ---- */

static pmix_value_t num(pmix_data_type_t t, double d)
{
    pmix_value_t v;

    PMIx_Value_construct(&v);
    v.type = t;
    switch (t) {
    case PMIX_INT8:
        v.data.int8 = (int8_t)d;
        break;
    case PMIX_INT16:
        v.data.int16 = (int16_t)d;
        break;
    case PMIX_INT:
        v.data.integer = (int)d;
        break;
    case PMIX_INT32:
        v.data.int32 = (int32_t)d;
        break;
    case PMIX_PID:
        v.data.pid = (pid_t)d;
        break;
    case PMIX_INT64:
        v.data.int64 = (int64_t)d;
        break;
    case PMIX_UINT8:
        v.data.uint8 = (uint8_t)d;
        break;
    case PMIX_UINT16:
        v.data.uint16 = (uint16_t)d;
        break;
    case PMIX_UINT:
        v.data.uint = (unsigned)d;
        break;
    case PMIX_UINT32:
        v.data.uint32 = (uint32_t)d;
        break;
    case PMIX_PROC_RANK:
        v.data.rank = (pmix_rank_t)d;
        break;
    case PMIX_SIZE:
        v.data.size = (size_t)d;
        break;
    case PMIX_UINT64:
        v.data.uint64 = (uint64_t)d;
        break;
    case PMIX_FLOAT:
        v.data.fval = (float)d;
        break;
    default:
        v.data.dval = d;
        break;
    }
    return v;
}

Test(types_value, get_number_all_pairs_small)
{
    const pmix_data_type_t nt[] = {PMIX_INT8,   PMIX_INT16,  PMIX_INT,       PMIX_INT32,
                                   PMIX_PID,    PMIX_INT64,  PMIX_UINT8,     PMIX_UINT16,
                                   PMIX_UINT,   PMIX_UINT32, PMIX_PROC_RANK, PMIX_SIZE,
                                   PMIX_UINT64, PMIX_FLOAT,  PMIX_DOUBLE};
    const size_t n = sizeof(nt) / sizeof(nt[0]);

    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            pmix_value_t v = num(nt[i], 42), back;
            unsigned char out[16];
            memset(out, 0, sizeof(out));
            cr_assert_eq(PMIx_Value_get_number(&v, out, nt[j]), PMIX_SUCCESS, "%u -> %u",
                         (unsigned)nt[i], (unsigned)nt[j]);
            /* reading it back into the source type gives 42 again */
            PMIx_Value_construct(&back);
            back.type = nt[j];
            memcpy(&back.data, out, px_type_size(nt[j]));
            memset(out, 0, sizeof(out));
            cr_assert_eq(PMIx_Value_get_number(&back, out, nt[i]), PMIX_SUCCESS);
            cr_expect_eq(memcmp(out, &v.data, px_type_size(nt[i])), 0, "%u -> %u", (unsigned)nt[i],
                         (unsigned)nt[j]);
        }
    }
}

Test(types_value, get_number_errors)
{
    pmix_value_t v;
    uint8_t u8 = 9;
    uint32_t u32;
    int8_t i8;
    int64_t i64;
    float f;
    double d;
    size_t sz;

    v = num(PMIX_INT, -1);
    cr_expect_eq(PMIx_Value_get_number(&v, &u32, PMIX_UINT32), PMIX_ERR_CHANGE_SIGN);
    cr_expect_eq(PMIx_Value_get_number(&v, &sz, PMIX_SIZE), PMIX_ERR_CHANGE_SIGN);
    cr_expect_eq(PMIx_Value_get_number(&v, &i8, PMIX_INT8), PMIX_SUCCESS);
    cr_expect_eq(i8, -1);
    v = num(PMIX_INT, 300);
    cr_expect_eq(PMIx_Value_get_number(&v, &u8, PMIX_UINT8), PMIX_ERR_LOST_PRECISION);
    cr_expect_eq(u8, 9, "untouched on error");
    cr_expect_eq(PMIx_Value_get_number(&v, &i8, PMIX_INT8), PMIX_ERR_LOST_PRECISION);
    v = num(PMIX_DOUBLE, 2.5);
    cr_expect_eq(PMIx_Value_get_number(&v, &i64, PMIX_INT64), PMIX_ERR_LOST_PRECISION);
    cr_expect_eq(PMIx_Value_get_number(&v, &f, PMIX_FLOAT), PMIX_SUCCESS);
    cr_expect_eq(f, 2.5f);
    v = num(PMIX_DOUBLE, 0.1);
    cr_expect_eq(PMIx_Value_get_number(&v, &f, PMIX_FLOAT), PMIX_ERR_LOST_PRECISION);
    v = num(PMIX_DOUBLE, -3);
    cr_expect_eq(PMIx_Value_get_number(&v, &u32, PMIX_UINT32), PMIX_ERR_CHANGE_SIGN);
    cr_expect_eq(PMIx_Value_get_number(&v, &i64, PMIX_INT64), PMIX_SUCCESS);
    cr_expect_eq(i64, -3);
    v = num(PMIX_DOUBLE, NAN);
    cr_expect_eq(PMIx_Value_get_number(&v, &i64, PMIX_INT64), PMIX_ERR_LOST_PRECISION);
    cr_expect_eq(PMIx_Value_get_number(&v, &f, PMIX_FLOAT), PMIX_SUCCESS);
    cr_expect(isnan(f));
    v = num(PMIX_DOUBLE, 1e300);
    cr_expect_eq(PMIx_Value_get_number(&v, &i64, PMIX_INT64), PMIX_ERR_LOST_PRECISION);
    cr_expect_eq(PMIx_Value_get_number(&v, &f, PMIX_FLOAT), PMIX_ERR_LOST_PRECISION);
    v = num(PMIX_DOUBLE, 9223372036854775808.0);
    cr_expect_eq(PMIx_Value_get_number(&v, &i64, PMIX_INT64), PMIX_ERR_LOST_PRECISION);
    PMIx_Value_construct(&v);
    v.type = PMIX_UINT64;
    v.data.uint64 = UINT64_MAX;
    cr_expect_eq(PMIx_Value_get_number(&v, &i64, PMIX_INT64), PMIX_ERR_LOST_PRECISION);
    cr_expect_eq(PMIx_Value_get_number(&v, &d, PMIX_DOUBLE), PMIX_ERR_LOST_PRECISION);
    v.data.uint64 = (1ull << 53) + 1;
    cr_expect_eq(PMIx_Value_get_number(&v, &d, PMIX_DOUBLE), PMIX_ERR_LOST_PRECISION);
    v.data.uint64 = 1ull << 60;
    cr_expect_eq(PMIx_Value_get_number(&v, &d, PMIX_DOUBLE), PMIX_SUCCESS);
    cr_expect_eq(d, 1152921504606846976.0);
    cr_expect_eq(PMIx_Value_get_number(&v, &f, PMIX_FLOAT), PMIX_SUCCESS);
    v.type = PMIX_INT64;
    v.data.int64 = INT64_MIN;
    cr_expect_eq(PMIx_Value_get_number(&v, &d, PMIX_DOUBLE), PMIX_SUCCESS);
    cr_expect_eq(PMIx_Value_get_number(&v, &u32, PMIX_UINT32), PMIX_ERR_CHANGE_SIGN);
    v.data.int64 = INT64_MAX;
    cr_expect_eq(PMIx_Value_get_number(&v, &d, PMIX_DOUBLE), PMIX_ERR_LOST_PRECISION);
    /* non-numeric */
    PMIx_Value_load(&v, "12", PMIX_STRING);
    cr_expect_eq(PMIx_Value_get_number(&v, &i64, PMIX_INT64), PMIX_ERR_BAD_PARAM);
    PMIx_Value_destruct(&v);
    v = num(PMIX_INT, 1);
    cr_expect_eq(PMIx_Value_get_number(&v, &i64, PMIX_STRING), PMIX_ERR_BAD_PARAM);
    cr_expect_eq(PMIx_Value_get_number(&v, &i64, PMIX_BOOL), PMIX_ERR_BAD_PARAM);
    cr_expect_eq(PMIx_Value_get_number(&v, NULL, PMIX_INT), PMIX_ERR_BAD_PARAM);
    cr_expect_eq(PMIx_Value_get_number(NULL, &i64, PMIX_INT), PMIX_ERR_BAD_PARAM);
}

/* ---- booleans ---- */

static pmix_boolean_t str_true(const char *s)
{
    pmix_value_t v;
    pmix_boolean_t b;

    PMIx_Value_load(&v, s, PMIX_STRING);
    b = PMIx_Value_true(&v);
    PMIx_Value_destruct(&v);
    return b;
}

Test(types_value, value_true)
{
    pmix_value_t v;
    bool f = false;
    int i = 1;

    PMIx_Value_construct(&v);
    cr_expect_eq(PMIx_Value_true(&v), PMIX_BOOL_TRUE);
    PMIx_Value_load(&v, &f, PMIX_BOOL);
    cr_expect_eq(PMIx_Value_true(&v), PMIX_BOOL_FALSE);
    PMIx_Value_load(&v, NULL, PMIX_BOOL);
    cr_expect_eq(PMIx_Value_true(&v), PMIX_BOOL_TRUE);
    PMIx_Value_load(&v, &i, PMIX_INT);
    cr_expect_eq(PMIx_Value_true(&v), PMIX_NON_BOOL);
    cr_expect_eq(PMIx_Value_true(NULL), PMIX_NON_BOOL);
    cr_expect_eq(str_true(NULL), PMIX_BOOL_TRUE);
    cr_expect_eq(str_true(""), PMIX_BOOL_TRUE);
    cr_expect_eq(str_true("  "), PMIX_BOOL_TRUE);
    cr_expect_eq(str_true("true"), PMIX_BOOL_TRUE);
    cr_expect_eq(str_true(" TRUE "), PMIX_BOOL_TRUE);
    cr_expect_eq(str_true("Yes"), PMIX_BOOL_TRUE);
    cr_expect_eq(str_true("1"), PMIX_BOOL_TRUE);
    cr_expect_eq(str_true("42"), PMIX_BOOL_TRUE);
    cr_expect_eq(str_true("01"), PMIX_BOOL_TRUE);
    cr_expect_eq(str_true("1x"), PMIX_BOOL_TRUE);
    cr_expect_eq(str_true("yesterday"), PMIX_BOOL_TRUE); /* 4.2.2 reads prefixes */
    cr_expect_eq(str_true("false"), PMIX_BOOL_FALSE);
    cr_expect_eq(str_true("No"), PMIX_BOOL_FALSE);
    cr_expect_eq(str_true(" FALSE"), PMIX_BOOL_FALSE);
    cr_expect_eq(str_true("0"), PMIX_BOOL_FALSE);
    cr_expect_eq(str_true("00"), PMIX_BOOL_FALSE);
    cr_expect_eq(str_true("maybe"), PMIX_NON_BOOL);
    cr_expect_eq(str_true("on"), PMIX_NON_BOOL);
    cr_expect_eq(str_true("-1"), PMIX_NON_BOOL);
#ifdef PMIX_CHECK_TRUE
    {
        /* the library agrees with the header's 4.2.2 inline helper */
        const char *samples[] = {NULL,   "",      " ",   "1",    "0",  "007",
                                 "000",  "1x",    "Yes", "TRUE", "no", "False",
                                 "nope", "maybe", "on",  "off",  "-1", " yes"};
        for (size_t k = 0; k < sizeof(samples) / sizeof(samples[0]); k++) {
            pmix_value_t sv;
            PMIx_Value_load(&sv, samples[k], PMIX_STRING);
            cr_expect_eq(PMIx_Value_true(&sv), pmix_check_true(&sv), "\"%s\"",
                         samples[k] ? samples[k] : "(null)");
            cr_expect_eq(PMIX_CHECK_TRUE(&sv), PMIX_BOOL_TRUE == pmix_check_true(&sv));
            PMIx_Value_destruct(&sv);
        }
    }
#endif
}

/* ---- sizes ---- */

Test(types_value, get_size)
{
    pmix_value_t v;
    pmix_info_t info;
    size_t sz = 0;
    int i = 3;

    PMIx_Value_construct(&v);
    cr_assert_eq(PMIx_Value_get_size(&v, &sz), PMIX_SUCCESS);
    cr_expect_eq(sz, sizeof(pmix_value_t));
    PMIx_Value_load(&v, &i, PMIX_INT);
    cr_assert_eq(PMIx_Value_get_size(&v, &sz), PMIX_SUCCESS);
    cr_expect_eq(sz, sizeof(pmix_value_t));
    PMIx_Value_load(&v, "abcd", PMIX_STRING);
    cr_assert_eq(PMIx_Value_get_size(&v, &sz), PMIX_SUCCESS);
    cr_expect_eq(sz, sizeof(pmix_value_t) + 5);
    PMIx_Value_destruct(&v);
    PMIx_Value_load(&v, NULL, PMIX_DATA_ARRAY);
    cr_assert_eq(PMIx_Value_get_size(&v, &sz), PMIX_SUCCESS);
    cr_expect_eq(sz, sizeof(pmix_value_t));
    PMIx_Value_destruct(&v);
    {
        pmix_data_array_t *d = PMIx_Data_array_create(4, PMIX_UINT64);
        PMIx_Value_load(&v, d, PMIX_DATA_ARRAY);
        PMIx_Data_array_free(d);
    }
    cr_assert_eq(PMIx_Value_get_size(&v, &sz), PMIX_SUCCESS);
    cr_expect_eq(sz, sizeof(pmix_value_t) + sizeof(pmix_data_array_t) + 4 * 8);
    PMIx_Value_destruct(&v);
    cr_expect_eq(PMIx_Value_get_size(NULL, &sz), PMIX_ERR_BAD_PARAM);
    cr_expect_eq(PMIx_Value_get_size(&v, NULL), PMIX_ERR_BAD_PARAM);

    PMIx_Info_load(&info, "k", "abc", PMIX_STRING);
    cr_assert_eq(PMIx_Info_get_size(&info, &sz), PMIX_SUCCESS);
    cr_expect_eq(sz, sizeof(pmix_info_t) + 4);
    PMIx_Info_persistent(&info);
    cr_assert_eq(PMIx_Info_get_size(&info, &sz), PMIX_SUCCESS);
    cr_expect_eq(sz, sizeof(pmix_info_t));
    info.flags = 0;
    PMIx_Info_destruct(&info);
    cr_expect_eq(PMIx_Info_get_size(NULL, &sz), PMIX_ERR_BAD_PARAM);
}

/* ---- pmix_info_t ---- */

Test(types_info, construct_create_free)
{
    pmix_info_t i, *arr;

    memset(&i, 0x33, sizeof(i));
    PMIx_Info_construct(&i);
    cr_expect_eq(i.key[0], '\0');
    cr_expect_eq(i.flags, 0);
    cr_expect_eq(i.value.type, PMIX_UNDEF);
    arr = PMIx_Info_create(3);
    cr_assert_not_null(arr);
    cr_expect_not(PMIx_Info_is_end(&arr[0]));
    cr_expect_not(PMIx_Info_is_end(&arr[1]));
    cr_expect(PMIx_Info_is_end(&arr[2]));
    cr_expect_eq(PMIx_Info_load(&arr[2], "last", "v", PMIX_STRING), PMIX_SUCCESS);
    cr_expect(PMIx_Info_is_end(&arr[2]), "load keeps the end marker");
    cr_expect_eq(PMIx_Info_load(&arr[0], "first", NULL, PMIX_BOOL), PMIX_SUCCESS);
    cr_expect(arr[0].value.data.flag);
    PMIx_Info_free(arr, 3);
    cr_expect_null(PMIx_Info_create(0));
    PMIx_Info_free(NULL, 2);
    PMIx_Info_destruct(NULL);
    PMIx_Info_construct(NULL);
}

Test(types_info, load_errors)
{
    pmix_info_t i;
    char longkey[700];

    PMIx_Info_construct(&i);
    cr_expect_eq(PMIx_Info_load(&i, NULL, "x", PMIX_STRING), PMIX_ERR_BAD_PARAM);
    cr_expect_eq(PMIx_Info_load(NULL, "k", "x", PMIX_STRING), PMIX_ERR_BAD_PARAM);
    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    cr_expect_eq(PMIx_Info_load(&i, longkey, NULL, PMIX_BOOL), PMIX_SUCCESS);
    cr_expect_eq(strlen(i.key), PMIX_MAX_KEYLEN);
    PMIx_Info_destruct(&i);
}

Test(types_info, flags)
{
    pmix_info_t i;

    PMIx_Info_construct(&i);
    cr_expect(PMIx_Info_is_optional(&i));
    cr_expect_not(PMIx_Info_is_required(&i));
    PMIx_Info_required(&i);
    cr_expect(PMIx_Info_is_required(&i));
    cr_expect_not(PMIx_Info_is_optional(&i));
    PMIx_Info_optional(&i);
    cr_expect(PMIx_Info_is_optional(&i));
    cr_expect_not(PMIx_Info_was_processed(&i));
    PMIx_Info_processed(&i);
    cr_expect(PMIx_Info_was_processed(&i));
    cr_expect_not(PMIx_Info_is_end(&i));
    PMIx_Info_set_end(&i);
    cr_expect(PMIx_Info_is_end(&i));
    cr_expect_not(PMIx_Info_is_qualifier(&i));
    PMIx_Info_qualifier(&i);
    cr_expect(PMIx_Info_is_qualifier(&i));
    cr_expect_not(PMIx_Info_is_persistent(&i));
    PMIx_Info_persistent(&i);
    cr_expect(PMIx_Info_is_persistent(&i));
    cr_expect_eq(i.flags, PMIX_INFO_REQD_PROCESSED | PMIX_INFO_ARRAY_END | PMIX_INFO_QUALIFIER |
                              PMIX_INFO_PERSISTENT);
    /* NULL-safe */
    PMIx_Info_required(NULL);
    PMIx_Info_optional(NULL);
    PMIx_Info_processed(NULL);
    PMIx_Info_set_end(NULL);
    PMIx_Info_qualifier(NULL);
    PMIx_Info_persistent(NULL);
    cr_expect_not(PMIx_Info_is_required(NULL));
    cr_expect_not(PMIx_Info_is_optional(NULL));
    cr_expect_not(PMIx_Info_was_processed(NULL));
    cr_expect_not(PMIx_Info_is_end(NULL));
    cr_expect_not(PMIx_Info_is_qualifier(NULL));
    cr_expect_not(PMIx_Info_is_persistent(NULL));
}

Test(types_info, xfer_and_persistent)
{
    pmix_info_t a, b, p;
    char *borrowed = strdup("not yours");

    PMIx_Info_load(&a, "pmix.k", "val", PMIX_STRING);
    PMIx_Info_required(&a);
    cr_assert_eq(PMIx_Info_xfer(&b, &a), PMIX_SUCCESS);
    cr_expect_str_eq(b.key, "pmix.k");
    cr_expect(PMIx_Info_is_required(&b));
    cr_expect_neq(a.value.data.string, b.value.data.string);
    cr_expect_str_eq(b.value.data.string, "val");
    PMIx_Info_destruct(&a);
    PMIx_Info_destruct(&b);
    cr_expect_eq(PMIx_Info_xfer(NULL, &a), PMIX_ERR_BAD_PARAM);
    cr_expect_eq(PMIx_Info_xfer(&a, NULL), PMIX_ERR_BAD_PARAM);

    /* a persistent info's value is borrowed: destruct and xfer leave it alone */
    PMIx_Info_construct(&p);
    PMIx_Load_key(p.key, "pmix.borrowed");
    p.value.type = PMIX_STRING;
    p.value.data.string = borrowed;
    PMIx_Info_persistent(&p);
    cr_assert_eq(PMIx_Info_xfer(&b, &p), PMIX_SUCCESS);
    cr_expect_eq(b.value.data.string, borrowed);
    cr_expect(PMIx_Info_is_persistent(&b));
    PMIx_Info_destruct(&b);
    PMIx_Info_destruct(&p);
    cr_expect_eq(p.value.type, PMIX_UNDEF);
    cr_expect_str_eq(borrowed, "not yours");
    free(borrowed);
}

Test(types_info, info_true)
{
    pmix_info_t i;

    PMIx_Info_construct(&i);
    PMIx_Load_key(i.key, "flag");
    cr_expect_eq(PMIx_Info_true(&i), PMIX_BOOL_TRUE);
    PMIx_Info_load(&i, "flag", "no", PMIX_STRING);
    cr_expect_eq(PMIx_Info_true(&i), PMIX_BOOL_FALSE);
    PMIx_Info_destruct(&i);
    cr_expect_eq(PMIx_Info_true(NULL), PMIX_NON_BOOL);
}

/* ---- pmix_data_array_t ---- */

Test(types_darray, init_construct_create_free)
{
    pmix_data_array_t d, *p;

    memset(&d, 0x11, sizeof(d));
    PMIx_Data_array_init(&d, PMIX_STRING);
    cr_expect_eq(d.type, PMIX_STRING);
    cr_expect_eq(d.size, 0);
    cr_expect_null(d.array);
    PMIx_Data_array_construct(&d, 3, PMIX_STRING);
    cr_expect_eq(d.size, 3);
    cr_assert_not_null(d.array);
    ((char **)d.array)[1] = strdup("owned");
    PMIx_Data_array_destruct(&d);
    cr_expect_null(d.array);
    cr_expect_eq(d.size, 0);
    PMIx_Data_array_construct(&d, 0, PMIX_INT);
    cr_expect_null(d.array);
    PMIx_Data_array_construct(&d, 4, 999);
    cr_expect_null(d.array);
    cr_expect_eq(d.size, 0);
    PMIx_Data_array_construct(&d, 2, PMIX_PROC);
    cr_expect_eq(((pmix_proc_t *)d.array)[1].rank, PMIX_RANK_UNDEF);
    PMIx_Data_array_destruct(&d);
    PMIx_Data_array_construct(&d, 2, PMIX_INFO);
    cr_expect_eq(((pmix_info_t *)d.array)[1].value.type, PMIX_UNDEF);
    cr_expect_not(PMIx_Info_is_end(&((pmix_info_t *)d.array)[0]));
    cr_expect(PMIx_Info_is_end(&((pmix_info_t *)d.array)[1]));
    PMIx_Data_array_destruct(&d);

    cr_expect_null(PMIx_Data_array_create(0, PMIX_INT));
    p = PMIx_Data_array_create(2, PMIX_VALUE);
    cr_assert_not_null(p);
    cr_expect_eq(p->size, 2);
    cr_expect_eq(p->type, PMIX_VALUE);
    PMIx_Value_load(&((pmix_value_t *)p->array)[0], "s", PMIX_STRING);
    PMIx_Data_array_free(p);
    PMIx_Data_array_free(NULL);
    PMIx_Data_array_destruct(NULL);
    PMIx_Data_array_init(NULL, PMIX_INT);
    PMIx_Data_array_construct(NULL, 1, PMIX_INT);
}

/* An info array whose values are data arrays of infos whose values are arrays ... */
Test(types_darray, deep_nesting_round_trip)
{
    pmix_data_array_t top, *copy = NULL;
    pmix_value_t v, w;
    pmix_info_t *infos;

    PMIx_Data_array_construct(&top, 3, PMIX_INFO);
    infos = top.array;
    for (int i = 0; i < 3; i++) {
        pmix_data_array_t inner;
        PMIx_Data_array_construct(&inner, 2, PMIX_INFO);
        for (int j = 0; j < 2; j++) {
            pmix_data_array_t leaf;
            PMIx_Data_array_construct(&leaf, 2, PMIX_STRING);
            ((char **)leaf.array)[0] = strdup("leaf");
            ((char **)leaf.array)[1] = NULL; /* NULL string inside */
            PMIx_Info_load(&((pmix_info_t *)inner.array)[j], "leaf", &leaf, PMIX_DATA_ARRAY);
            PMIx_Data_array_destruct(&leaf);
        }
        PMIx_Info_load(&infos[i], "inner", &inner, PMIX_DATA_ARRAY);
        PMIx_Data_array_destruct(&inner);
    }
    cr_assert_eq(PMIx_Value_load(&v, &top, PMIX_DATA_ARRAY), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Value_xfer(&w, &v), PMIX_SUCCESS);
    cr_expect_eq(PMIx_Value_compare(&v, &w), PMIX_EQUAL);
    {
        size_t sz = 0;
        cr_assert_eq(PMIx_Value_unload(&w, (void **)&copy, &sz), PMIX_SUCCESS);
        cr_expect_eq(sz, sizeof(pmix_data_array_t));
        cr_expect_eq(px_type_compare(copy, &top, PMIX_DATA_ARRAY), PMIX_EQUAL);
    }
    /* change one leaf deep down: compare sees it */
    {
        pmix_info_t *i0 =
            ((pmix_data_array_t *)((pmix_info_t *)w.data.darray->array)[1].value.data.darray)
                ->array;
        char **leaf = i0[1].value.data.darray->array;
        free(leaf[0]);
        leaf[0] = strdup("leaz");
        cr_expect_eq(PMIx_Value_compare(&v, &w), PMIX_VALUE2_GREATER);
    }
    PMIx_Data_array_free(copy);
    PMIx_Value_destruct(&v);
    PMIx_Value_destruct(&w);
    PMIx_Data_array_destruct(&top);
}

Test(types_darray, zero_length_and_null)
{
    pmix_data_array_t d = {PMIX_INT, 0, NULL}, e;
    pmix_value_t v, w;

    cr_assert_eq(px_type_copy(&e, &d, PMIX_DATA_ARRAY), PMIX_SUCCESS);
    cr_expect_eq(e.type, PMIX_INT);
    cr_expect_null(e.array);
    cr_assert_eq(PMIx_Value_load(&v, &d, PMIX_DATA_ARRAY), PMIX_SUCCESS);
    cr_assert_not_null(v.data.darray);
    cr_expect_eq(v.data.darray->size, 0);
    cr_assert_eq(PMIx_Value_xfer(&w, &v), PMIX_SUCCESS);
    cr_expect_eq(PMIx_Value_compare(&v, &w), PMIX_EQUAL);
    PMIx_Value_destruct(&v);
    PMIx_Value_destruct(&w);
    /* size set but array NULL: treated as empty */
    d.size = 5;
    cr_assert_eq(px_type_copy(&e, &d, PMIX_DATA_ARRAY), PMIX_SUCCESS);
    cr_expect_eq(e.size, 0);
}

/* ---- PMIX_REGEX: a string in, a byte object holding it (with its NUL) in the value ---- */

/* A regex longer than 16 bytes: read as a pmix_byte_object_t it would crash. */
#define TV_REGEX "pmix:pxnode[2:0-63]@pmix:[1:1-2,5]"

static void expect_regex_value(const pmix_value_t *v, const char *text)
{
    cr_assert_eq(v->type, PMIX_REGEX);
    cr_assert_eq(v->data.bo.size, strlen(text) + 1);
    cr_assert_str_eq(v->data.bo.bytes, text);
    cr_expect_neq(v->data.bo.bytes, text);
}

Test(types_value, regex_is_loaded_from_a_string)
{
    char text[] = TV_REGEX;
    pmix_value_t v, w, x;
    pmix_info_t info;
    void *out = NULL;
    size_t sz = 0, vsz = 0;

    cr_assert_eq(PMIx_Value_load(&v, text, PMIX_REGEX), PMIX_SUCCESS);
    expect_regex_value(&v, TV_REGEX);
    /* the value owns a copy */
    text[0] = 'X';
    expect_regex_value(&v, TV_REGEX);
    cr_assert_eq(PMIx_Value_unload(&v, &out, &sz), PMIX_SUCCESS);
    cr_expect_str_eq(out, TV_REGEX);
    cr_expect_eq(sz, strlen(TV_REGEX) + 1);
    free(out);
    cr_assert_eq(PMIx_Value_xfer(&w, &v), PMIX_SUCCESS);
    expect_regex_value(&w, TV_REGEX);
    cr_expect_eq(PMIx_Value_compare(&v, &w), PMIX_EQUAL);
    cr_assert_eq(PMIx_Value_load(&x, "pmix:other", PMIX_REGEX), PMIX_SUCCESS);
    cr_expect_neq(PMIx_Value_compare(&v, &x), PMIX_EQUAL);
    cr_assert_eq(PMIx_Value_get_size(&v, &vsz), PMIX_SUCCESS);
    cr_expect_eq(vsz, sizeof(pmix_value_t) + strlen(TV_REGEX) + 1);
    PMIx_Value_destruct(&v);
    PMIx_Value_destruct(&w);
    PMIx_Value_destruct(&x);

    PMIx_Info_construct(&info);
    cr_assert_eq(PMIx_Info_load(&info, PMIX_NODE_MAP, TV_REGEX, PMIX_REGEX), PMIX_SUCCESS);
    expect_regex_value(&info.value, TV_REGEX);
    PMIx_Info_destruct(&info);

    /* NULL data: an empty regex */
    cr_assert_eq(PMIx_Value_load(&v, NULL, PMIX_REGEX), PMIX_SUCCESS);
    cr_expect_eq(v.type, PMIX_REGEX);
    cr_expect_null(v.data.bo.bytes);
    cr_expect_eq(v.data.bo.size, 0);
    PMIx_Value_destruct(&v);
}

#ifdef PMIX_INFO_LOAD
Test(types_value, regex_through_the_macros_and_info_lists)
{
    pmix_info_t info;
    pmix_value_t v;
    pmix_data_array_t da;
    void *list = NULL;
    pmix_status_t rc;

    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_PROC_MAP, TV_REGEX, PMIX_REGEX);
    expect_regex_value(&info.value, TV_REGEX);
    PMIX_INFO_DESTRUCT(&info);
    PMIX_VALUE_CONSTRUCT(&v);
    cr_assert_eq(PMIX_VALUE_LOAD(&v, TV_REGEX, PMIX_REGEX), PMIX_SUCCESS);
    expect_regex_value(&v, TV_REGEX);
    PMIX_VALUE_DESTRUCT(&v);
    PMIX_INFO_LIST_START(list);
    cr_assert_not_null(list);
    PMIX_INFO_LIST_ADD(rc, list, PMIX_NODE_MAP, TV_REGEX, PMIX_REGEX);
    cr_assert_eq(rc, PMIX_SUCCESS);
    PMIX_INFO_LIST_CONVERT(rc, list, &da);
    cr_assert_eq(rc, PMIX_SUCCESS);
    PMIX_INFO_LIST_RELEASE(list);
    cr_assert_eq(da.size, 1);
    expect_regex_value(&((pmix_info_t *)da.array)[0].value, TV_REGEX);
    PMIx_Data_array_destruct(&da);
}
#endif

/* ---- through the header macros (once include/ carries them) ---- */

#ifdef PMIX_INFO_LOAD
Test(types_macros, info_and_value_macros)
{
    pmix_info_t *arr = NULL, i;
    pmix_value_t *v = NULL;

    PMIX_INFO_CREATE(arr, 2);
    cr_assert_not_null(arr);
    cr_expect(PMIX_INFO_IS_END(&arr[1]));
    PMIX_INFO_LOAD(&arr[0], "pmix.flag", NULL, PMIX_BOOL);
    cr_expect_eq(arr[0].value.type, PMIX_BOOL);
    cr_expect(arr[0].value.data.flag);
    PMIX_INFO_LOAD(&arr[1], "pmix.str", "abc", PMIX_STRING);
    PMIX_INFO_FREE(arr, 2);
    cr_expect_null(arr);

    PMIX_VALUE_CREATE(v, 2);
    cr_assert_not_null(v);
    PMIX_VALUE_LOAD(&v[0], "x", PMIX_STRING);
    PMIX_VALUE_FREE(v, 2);
    cr_expect_null(v);

    PMIX_INFO_CONSTRUCT(&i);
    PMIX_INFO_LOAD(&i, "k", NULL, PMIX_BOOL);
    cr_expect(PMIX_INFO_TRUE(&i));
    PMIX_INFO_DESTRUCT(&i);
}

Test(types_macros, proc_and_darray_macros)
{
    pmix_proc_t p;
    pmix_data_array_t *d = NULL;

    PMIX_PROC_CONSTRUCT(&p);
    cr_expect_eq(p.rank, PMIX_RANK_UNDEF);
    PMIX_LOAD_PROCID(&p, "ns", 3);
    cr_expect(PMIX_CHECK_PROCID(&p, &p));
    PMIX_DATA_ARRAY_CREATE(d, 3, PMIX_INFO);
    cr_assert_not_null(d);
    PMIX_DATA_ARRAY_FREE(d);
    cr_expect_null(d);
}

Test(types_macros, value_xfer_unload_get_number)
{
    pmix_value_t src, *dst = NULL, direct;
    pmix_status_t rc = -1;
    void *out = NULL;
    size_t sz = 0;
    uint16_t u16 = 0;
    int64_t i64 = 77;

    PMIX_VALUE_LOAD(&src, "hello", PMIX_STRING);
    PMIX_VALUE_XFER(rc, dst, &src); /* NULL target: allocated by the macro */
    cr_expect_eq(rc, PMIX_SUCCESS);
    cr_assert_not_null(dst);
    cr_expect_str_eq(dst->data.string, "hello");
    PMIX_VALUE_RELEASE(dst);
    cr_expect_null(dst);
    PMIX_VALUE_XFER_DIRECT(rc, &direct, &src);
    cr_expect_eq(rc, PMIX_SUCCESS);
    PMIX_VALUE_UNLOAD(rc, &direct, &out, &sz);
    cr_expect_eq(rc, PMIX_SUCCESS);
    cr_expect_str_eq(out, "hello");
    free(out);
    PMIX_VALUE_DESTRUCT(&direct);
    PMIX_VALUE_DESTRUCT(&src);
    PMIX_VALUE_LOAD(&src, &i64, PMIX_INT64);
    PMIX_VALUE_GET_NUMBER(rc, &src, u16, uint16_t);
    cr_expect_eq(rc, PMIX_SUCCESS);
    cr_expect_eq(u16, 77);
}

Test(types_macros, info_flags_and_xfer)
{
    pmix_info_t a, b;

    PMIX_INFO_LOAD(&a, "pmix.x", "v", PMIX_STRING);
    PMIX_INFO_REQUIRED(&a);
    cr_expect(PMIX_INFO_IS_REQUIRED(&a));
    PMIX_INFO_OPTIONAL(&a);
    cr_expect(PMIX_INFO_IS_OPTIONAL(&a));
    PMIX_INFO_PROCESSED(&a);
    cr_expect(PMIX_INFO_WAS_PROCESSED(&a));
    PMIX_INFO_SET_QUALIFIER(&a);
    cr_expect(PMIX_INFO_IS_QUALIFIER(&a));
    PMIX_INFO_SET_END(&a);
    cr_expect(PMIX_INFO_IS_END(&a));
    PMIX_INFO_XFER(&b, &a);
    cr_expect(PMIX_CHECK_KEY(&b, "pmix.x"));
    cr_expect_str_eq(b.value.data.string, "v");
    cr_expect_not(PMIX_INFO_TRUE(&b), "\"v\" is not a boolean");
    PMIX_INFO_DESTRUCT(&a);
    PMIX_INFO_DESTRUCT(&b);
}

Test(types_macros, struct_family_macros)
{
    pmix_byte_object_t bo;
    char *buf = strdup("bytes");
    size_t len = 6;
    pmix_envar_t *ev = NULL;
    pmix_coord_t *co = NULL;
    pmix_app_t *app = NULL;
    pmix_query_t *q = NULL;
    pmix_pdata_t *pd = NULL;
    pmix_proc_info_t *pi = NULL;
    pmix_regattr_t ra;
    pmix_geometry_t *g = NULL;
    pmix_device_distance_t *dd = NULL;
    pmix_endpoint_t *ep = NULL;
    pmix_proc_t *procs = NULL, me;
    pmix_nspace_t t, c, n;

    PMIX_BYTE_OBJECT_CONSTRUCT(&bo);
    PMIX_BYTE_OBJECT_LOAD(&bo, buf, len);
    cr_expect_null(buf);
    cr_expect_eq(len, 0);
    cr_expect_eq(bo.size, 6);
    PMIX_BYTE_OBJECT_DESTRUCT(&bo);

    PMIX_ENVAR_CREATE(ev, 2);
    PMIX_ENVAR_LOAD(&ev[0], "A", "1", ':');
    PMIX_ENVAR_FREE(ev, 2);
    cr_expect_null(ev);

    PMIX_COORD_CREATE(co, 2, 3); /* 2 structs of 3 dimensions */
    cr_assert_not_null(co);
    cr_expect_eq(co[1].dims, 3);
    PMIX_COORD_FREE(co, 2);
    cr_expect_null(co);

    PMIX_APP_CREATE(app, 1);
    PMIX_APP_INFO_CREATE(app, 2);
    cr_expect_eq(app->ninfo, 2);
    PMIX_INFO_LOAD(&app->info[0], "pmix.x", NULL, PMIX_BOOL);
    PMIX_APP_RELEASE(app);
    cr_expect_null(app);

    PMIX_QUERY_CREATE(q, 2);
    PMIX_QUERY_QUALIFIERS_CREATE(&q[1], 1);
    PMIX_QUERY_FREE(q, 2);
    cr_expect_null(q);

    PMIX_PDATA_CREATE(pd, 1);
    PMIX_LOAD_PROCID(&me, "ns", 0);
    PMIX_PDATA_LOAD(&pd[0], &me, "pmix.k", "v", PMIX_STRING);
    cr_expect_str_eq(pd[0].value.data.string, "v");
    PMIX_PDATA_RELEASE(pd);
    cr_expect_null(pd);

    PMIX_PROC_INFO_CREATE(pi, 1);
    pi->hostname = strdup("h");
    PMIX_PROC_INFO_RELEASE(pi);

    PMIX_REGATTR_CONSTRUCT(&ra);
    PMIX_REGATTR_LOAD(&ra, "NAME", "pmix.key", PMIX_INT, "desc");
    cr_expect_str_eq(ra.description[0], "desc");
    PMIX_REGATTR_DESTRUCT(&ra);

    PMIX_GEOMETRY_CREATE(g, 1);
    PMIX_GEOMETRY_FREE(g, 1);
    PMIX_DEVICE_DIST_CREATE(dd, 2);
    cr_expect_eq(dd[1].mindist, UINT16_MAX);
    PMIX_DEVICE_DIST_FREE(dd, 2);
    PMIX_ENDPOINT_CREATE(ep, 1);
    PMIX_ENDPOINT_FREE(ep, 1);
    cr_expect_null(ep);

    PMIX_PROC_CREATE(procs, 2);
    cr_expect_eq(procs[1].rank, PMIX_RANK_UNDEF);
    PMIX_PROC_FREE(procs, 2);
    cr_expect_null(procs);

    PMIX_LOAD_NSPACE(c, "cl");
    PMIX_LOAD_NSPACE(n, "job");
    PMIX_MULTICLUSTER_NSPACE_CONSTRUCT(t, c, n);
    cr_expect_str_eq(t, "cl:job");
}
#endif
