/* types: pmix_value_t - construct/destruct/create/free, load/unload/xfer/compare,
 * number conversion, boolean reading and size. Pure functions on caller memory; any
 * thread. Where the data of each type lives in the union: px_value_storage(). */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <pmix.h>

#include "types/px_type_ops.h"
#include "types/px_types_int.h"

/* ---- internals (px_types_int.h) ---- */

void px_value_release(pmix_value_t *v)
{
    if (NULL == v) {
        return;
    }
    switch (px_value_storage(v->type)) {
    case PX_VS_INLINE:
        px_type_destruct(&v->data, px_type_in_value(v->type));
        break;
    case PX_VS_BOXED:
        /* every boxed member is a pointer at offset 0 of the union */
        if (NULL != v->data.ptr) {
            px_type_destruct(v->data.ptr, v->type);
            free(v->data.ptr);
        }
        break;
    default:
        break;
    }
    memset(v, 0, sizeof(*v));
    v->type = PMIX_UNDEF;
}

/* Allocate a deep copy of one element of type t (boxed storage). NULL src gives NULL. */
static pmix_status_t px_box(void **out, const void *src, pmix_data_type_t t)
{
    void *box;
    pmix_status_t rc;

    *out = NULL;
    if (NULL == src) {
        return PMIX_SUCCESS;
    }
    box = malloc(px_type_size(t));
    if (NULL == box) {
        return PMIX_ERR_NOMEM;
    }
    rc = px_type_copy(box, src, t);
    if (PMIX_SUCCESS != rc) {
        free(box);
        return rc;
    }
    *out = box;
    return PMIX_SUCCESS;
}

pmix_status_t px_value_copy(pmix_value_t *dest, const pmix_value_t *src)
{
    pmix_status_t rc = PMIX_SUCCESS;

    memset(dest, 0, sizeof(*dest));
    dest->type = PMIX_UNDEF;
    switch (px_value_storage(src->type)) {
    case PX_VS_INLINE:
        rc = px_type_copy(&dest->data, &src->data, px_type_in_value(src->type));
        break;
    case PX_VS_BOXED:
        rc = px_box(&dest->data.ptr, src->data.ptr, src->type);
        break;
    default:
        if (PMIX_UNDEF != src->type) {
            rc = PMIX_ERR_UNKNOWN_DATA_TYPE;
        }
        break;
    }
    if (PMIX_SUCCESS != rc) {
        memset(dest, 0, sizeof(*dest));
        return rc;
    }
    dest->type = src->type;
    return PMIX_SUCCESS;
}

pmix_value_cmp_t px_value_cmp(const pmix_value_t *a, const pmix_value_t *b)
{
    if (a->type != b->type) {
        return PMIX_VALUE_TYPE_DIFFERENT;
    }
    switch (px_value_storage(a->type)) {
    case PX_VS_INLINE:
        return px_type_compare(&a->data, &b->data, px_type_in_value(a->type));
    case PX_VS_BOXED:
        return px_type_compare(a->data.ptr, b->data.ptr, a->type);
    default:
        return PMIX_UNDEF == a->type ? PMIX_EQUAL : PMIX_VALUE_COMPARISON_NOT_AVAIL;
    }
}

size_t px_value_owned_bytes(const pmix_value_t *v)
{
    switch (px_value_storage(v->type)) {
    case PX_VS_INLINE:
        return px_type_footprint(&v->data, px_type_in_value(v->type)) -
               px_type_size(px_type_in_value(v->type));
    case PX_VS_BOXED:
        return NULL == v->data.ptr ? 0 : px_type_footprint(v->data.ptr, v->type);
    default:
        return 0;
    }
}

/* ---- construct / destruct / create / free ---- */

void PMIx_Value_construct(pmix_value_t *val)
{
    if (NULL == val) {
        return;
    }
    memset(val, 0, sizeof(*val));
    val->type = PMIX_UNDEF;
}

void PMIx_Value_destruct(pmix_value_t *val)
{
    px_value_release(val);
}

pmix_value_t *PMIx_Value_create(size_t n)
{
    return px_type_alloc_n(n, PMIX_VALUE);
}

void PMIx_Value_free(pmix_value_t *v, size_t n)
{
    if (NULL == v) {
        return;
    }
    px_type_destruct_n(v, n, PMIX_VALUE);
    free(v);
}

/* ---- load / unload / xfer / compare ---- */

/*
 * What `data` points to, by type (the 4.2.2 conventions):
 *   PMIX_STRING        the string itself (char *), not a char **
 *   PMIX_POINTER       the pointer to store (kept as is, never freed)
 *   PMIX_PROC_NSPACE   the namespace characters (char * or pmix_nspace_t)
 *   PMIX_REGEX         a NUL-terminated string (PMIx_generate_regex/ppn output), stored
 *                      as a byte object holding a copy with its NUL (size = strlen + 1)
 *   PMIX_VALUE         a pmix_value_t to copy: val becomes a copy of it (its type)
 *   everything else    one element of the type's representation (px_types.h), e.g. an
 *                      int *, a pmix_byte_object_t *, a pmix_proc_t *, a pmix_data_array_t *
 * NULL data: PMIX_BOOL loads true, everything else loads its empty/zero element.
 * Types a pmix_value_t has no member for (APP, INFO, KVAL, PDATA, QUERY, REGATTR, BUFFER)
 * give PMIX_ERR_NOT_SUPPORTED; unknown types PMIX_ERR_UNKNOWN_DATA_TYPE. Previous
 * contents of val are overwritten, not released. On error val is PMIX_UNDEF.
 */
pmix_status_t PMIx_Value_load(pmix_value_t *val, const void *data, pmix_data_type_t type)
{
    const struct px_type_ops *o;
    pmix_status_t rc = PMIX_SUCCESS;

    if (NULL == val) {
        return PMIX_ERR_BAD_PARAM;
    }
    PMIx_Value_construct(val);
    if (PMIX_VALUE == type) {
        return NULL == data ? PMIX_SUCCESS : px_value_copy(val, data);
    }
    if (PMIX_UNDEF == type) {
        return PMIX_SUCCESS;
    }
    o = px_type_ops(type);
    if (NULL == o) {
        rc = PMIX_ERR_UNKNOWN_DATA_TYPE;
    } else if (PX_VS_NONE == o->vs) {
        rc = PMIX_ERR_NOT_SUPPORTED;
    } else if (NULL == data) {
        val->data.flag = (PMIX_BOOL == type); /* NULL loads true for a flag, else empty */
    } else if (NULL != o->vload) {
        rc = o->vload(val, data);
    } else if (PX_VS_INLINE == o->vs) {
        rc = px_type_copy(&val->data, data, type);
    } else {
        rc = px_box(&val->data.ptr, data, type);
    }
    if (PMIX_SUCCESS != rc) {
        PMIx_Value_construct(val);
        return rc;
    }
    val->type = type;
    return PMIX_SUCCESS;
}

/*
 * *data receives the value's data, *sz its size in bytes:
 *   PMIX_STRING                a strdup'd copy, sz = strlen + 1 (NULL string: NULL, 0)
 *   byte-object types          a malloc'd copy of the bytes, sz = size (empty: NULL, 0);
 *                              for PMIX_REGEX that is the string with its NUL
 *   PMIX_POINTER               the stored pointer itself, sz = sizeof(void *)
 *   boxed types (proc, darray, coord, nspace ...) and PMIX_ENVAR
 *                              a malloc'd deep copy of the element, sz = its size
 *   plain scalars              if *data is NULL, a malloc'd copy; if *data is not NULL,
 *                              the scalar is written to the caller's storage at *data
 *                              (what OpenPMIx 4.2.2 did); sz = its size
 * Everything handed out is the caller's, to release with free() (and, for structs,
 * the type's destruct first). An empty value gives PMIX_ERR_UNKNOWN_DATA_TYPE.
 */
pmix_status_t PMIx_Value_unload(pmix_value_t *val, void **data, size_t *sz)
{
    const struct px_type_ops *o;
    size_t esz;
    pmix_status_t rc;

    if (NULL == val || NULL == data || NULL == sz) {
        return PMIX_ERR_BAD_PARAM;
    }
    o = px_type_ops(val->type);
    if (NULL == o || PX_VS_NONE == o->vs) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    if (NULL != o->vunload) {
        return o->vunload(val, data, sz);
    }
    esz = o->size;
    if (PX_VS_INLINE == o->vs) {
        if (NULL == *data) {
            if (NULL == (*data = malloc(esz))) {
                *sz = 0;
                return PMIX_ERR_NOMEM;
            }
        }
        memcpy(*data, &val->data, esz);
        *sz = esz;
        return PMIX_SUCCESS;
    }
    rc = px_box(data, val->data.ptr, val->type);
    *sz = PMIX_SUCCESS == rc && NULL != *data ? esz : 0;
    return rc;
}

/* The value load/unload operations of the types whose `data` is not "a pointer to one
 * element" (rows in px_type_table.c; conventions above PMIx_Value_load/unload). */

pmix_status_t px_value_load_string(pmix_value_t *v, const void *data)
{
    /* data is the string itself */
    return px_types_strdup(&v->data.string, data) ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}

pmix_status_t px_value_load_pointer(pmix_value_t *v, const void *data)
{
    /* data is the pointer to keep (borrowed) */
    v->data.ptr = (void *)data;
    return PMIX_SUCCESS;
}

pmix_status_t px_value_load_regex(pmix_value_t *v, const void *data)
{
    pmix_byte_object_t bo = {.bytes = (char *)data, .size = strlen(data) + 1};

    return px_type_copy(&v->data, &bo, PMIX_BYTE_OBJECT);
}

pmix_status_t px_value_load_nspace(pmix_value_t *v, const void *data)
{
    pmix_nspace_t *ns = malloc(sizeof(pmix_nspace_t));

    if (NULL == ns) {
        return PMIX_ERR_NOMEM;
    }
    PMIx_Load_nspace(*ns, data);
    v->data.nspace = ns;
    return PMIX_SUCCESS;
}

pmix_status_t px_value_unload_string(const pmix_value_t *v, void **data, size_t *sz)
{
    *data = NULL;
    *sz = 0;
    if (NULL != v->data.string) {
        if (NULL == (*data = strdup(v->data.string))) {
            return PMIX_ERR_NOMEM;
        }
        *sz = strlen(v->data.string) + 1;
    }
    return PMIX_SUCCESS;
}

pmix_status_t px_value_unload_bo(const pmix_value_t *v, void **data, size_t *sz)
{
    *data = NULL;
    *sz = 0;
    if (NULL != v->data.bo.bytes && 0 < v->data.bo.size) {
        if (NULL == (*data = malloc(v->data.bo.size))) {
            return PMIX_ERR_NOMEM;
        }
        memcpy(*data, v->data.bo.bytes, v->data.bo.size);
        *sz = v->data.bo.size;
    }
    return PMIX_SUCCESS;
}

pmix_status_t px_value_unload_pointer(const pmix_value_t *v, void **data, size_t *sz)
{
    *data = v->data.ptr;
    *sz = sizeof(void *);
    return PMIX_SUCCESS;
}

pmix_status_t px_value_unload_envar(const pmix_value_t *v, void **data, size_t *sz)
{
    pmix_status_t rc = px_box(data, &v->data.envar, PMIX_ENVAR);

    *sz = PMIX_SUCCESS == rc ? sizeof(pmix_envar_t) : 0;
    return rc;
}

pmix_status_t PMIx_Value_xfer(pmix_value_t *dest, const pmix_value_t *src)
{
    if (NULL == dest || NULL == src) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (dest == src) {
        return PMIX_SUCCESS;
    }
    return px_value_copy(dest, src);
}

pmix_value_cmp_t PMIx_Value_compare(pmix_value_t *v1, pmix_value_t *v2)
{
    if (NULL == v1 || NULL == v2) {
        return v1 == v2 ? PMIX_EQUAL : PMIX_VALUE_INCOMPATIBLE_OBJECTS;
    }
    return px_value_cmp(v1, v2);
}

/* ---- numbers ---- */

/* A number read out of a value: exactly one of the three is meaningful. */
struct px_num {
    enum { PX_NUM_S, PX_NUM_U, PX_NUM_F } kind;
    int64_t s;
    uint64_t u;
    double f;
};

/* The number a numeric value holds (its type's number representation, px_type_ops.h). */
static void px_num_read(const pmix_value_t *v, struct px_num *n)
{
    const struct px_type_ops *o = px_type_ops(v->type);

    if (PX_NUM_SINT == o->num) {
        n->kind = PX_NUM_S;
        n->s = px_types_read_sint(&v->data, o->size);
    } else if (PX_NUM_UINT == o->num) {
        n->kind = PX_NUM_U;
        n->u = px_types_read_uint(&v->data, o->size);
    } else {
        n->kind = PX_NUM_F;
        n->f = sizeof(float) == o->size ? (double)v->data.fval : v->data.dval;
    }
}

/* Store the low `sz` bytes' worth of v into an integer of sz bytes. */
static void px_num_write(void *dest, size_t sz, uint64_t v)
{
    switch (sz) { /* C sizes, not data types */
    case 1:
        *(uint8_t *)dest = (uint8_t)v;
        break;
    case 2:
        *(uint16_t *)dest = (uint16_t)v;
        break;
    case 4:
        *(uint32_t *)dest = (uint32_t)v;
        break;
    default:
        *(uint64_t *)dest = v;
        break;
    }
}

/* Convert n to an integer within [lo, hi] (signed dest) or [0, uhi] (unsigned dest). */
static pmix_status_t px_num_to_int(const struct px_num *n, bool is_signed, int64_t lo, int64_t hi,
                                   uint64_t uhi, int64_t *sout, uint64_t *uout)
{
    switch (n->kind) {
    case PX_NUM_S:
        if (!is_signed) {
            if (n->s < 0) {
                return PMIX_ERR_CHANGE_SIGN;
            }
            if ((uint64_t)n->s > uhi) {
                return PMIX_ERR_LOST_PRECISION;
            }
            *uout = (uint64_t)n->s;
            return PMIX_SUCCESS;
        }
        if (n->s < lo || n->s > hi) {
            return PMIX_ERR_LOST_PRECISION;
        }
        *sout = n->s;
        return PMIX_SUCCESS;
    case PX_NUM_U:
        if (is_signed) {
            if (n->u > (uint64_t)hi) {
                return PMIX_ERR_LOST_PRECISION;
            }
            *sout = (int64_t)n->u;
            return PMIX_SUCCESS;
        }
        if (n->u > uhi) {
            return PMIX_ERR_LOST_PRECISION;
        }
        *uout = n->u;
        return PMIX_SUCCESS;
    default:
        if (isnan(n->f) || isinf(n->f) || n->f != trunc(n->f)) {
            return PMIX_ERR_LOST_PRECISION;
        }
        if (n->f < 0 && !is_signed) {
            return PMIX_ERR_CHANGE_SIGN;
        }
        if (is_signed) {
            /* 2^63 is exactly representable; anything >= it does not fit */
            if (n->f >= 9223372036854775808.0 || n->f < (double)lo || n->f > (double)hi) {
                return PMIX_ERR_LOST_PRECISION;
            }
            *sout = (int64_t)n->f;
            if (*sout < lo || *sout > hi) {
                return PMIX_ERR_LOST_PRECISION;
            }
            return PMIX_SUCCESS;
        }
        if (n->f >= 18446744073709551616.0) {
            return PMIX_ERR_LOST_PRECISION;
        }
        *uout = (uint64_t)n->f;
        if (*uout > uhi) {
            return PMIX_ERR_LOST_PRECISION;
        }
        return PMIX_SUCCESS;
    }
}

/* Convert n to a double (is_float: then to a float), failing when it is not exact. */
static pmix_status_t px_num_to_flt(const struct px_num *n, bool is_float, double *out)
{
    double d;

    switch (n->kind) {
    case PX_NUM_S:
        d = (double)n->s;
        if (d >= 9223372036854775808.0 || (int64_t)d != n->s) {
            return PMIX_ERR_LOST_PRECISION;
        }
        break;
    case PX_NUM_U:
        d = (double)n->u;
        if (d >= 18446744073709551616.0 || (uint64_t)d != n->u) {
            return PMIX_ERR_LOST_PRECISION;
        }
        break;
    default:
        d = n->f;
        break;
    }
    if (is_float && !isnan(d) && (double)(float)d != d) {
        return PMIX_ERR_LOST_PRECISION;
    }
    *out = d;
    return PMIX_SUCCESS;
}

/*
 * Convert any numeric value (SIZE, PID, INT, INT8..64, UINT, UINT8..64, FLOAT, DOUBLE,
 * PROC_RANK) into the numeric type `type`, written to dest (storage of that type).
 *   PMIX_ERR_BAD_PARAM       NULL argument, or either type is not numeric
 *   PMIX_ERR_CHANGE_SIGN     a negative number asked for as an unsigned type
 *   PMIX_ERR_LOST_PRECISION  the exact number does not exist in the target type: out of
 *                            its range, a fraction or NaN/inf asked for as an integer, an
 *                            integer beyond the float/double mantissa, a double that is not
 *                            exactly a float
 * Same type: a plain copy. On error dest is not touched.
 */
pmix_status_t PMIx_Value_get_number(const pmix_value_t *value, void *dest, pmix_data_type_t type)
{
    const struct px_type_ops *o;
    int bits;
    struct px_num n;
    int64_t s = 0;
    uint64_t u = 0;
    double d = 0;
    pmix_status_t rc;

    if (NULL == value || NULL == dest || !px_type_is_number(value->type) ||
        !px_type_is_number(type)) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (value->type == type) {
        memcpy(dest, &value->data, px_type_size(type));
        return PMIX_SUCCESS;
    }
    px_num_read(value, &n);
    o = px_type_ops(type);
    bits = 8 * (int)o->size;
    if (PX_NUM_SINT == o->num) {
        int64_t hi = 64 == bits ? INT64_MAX : (INT64_C(1) << (bits - 1)) - 1;
        rc = px_num_to_int(&n, true, -hi - 1, hi, 0, &s, &u);
        if (PMIX_SUCCESS == rc) {
            px_num_write(dest, o->size, (uint64_t)s);
        }
    } else if (PX_NUM_UINT == o->num) {
        uint64_t uhi = 64 == bits ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
        rc = px_num_to_int(&n, false, 0, 0, uhi, &s, &u);
        if (PMIX_SUCCESS == rc) {
            px_num_write(dest, o->size, u);
        }
    } else {
        rc = px_num_to_flt(&n, sizeof(float) == o->size, &d);
        if (PMIX_SUCCESS == rc && sizeof(float) == o->size) {
            *(float *)dest = (float)d;
        } else if (PMIX_SUCCESS == rc) {
            *(double *)dest = d;
        }
    }
    return rc;
}

/* ---- booleans ---- */

/* Does s start with the lower-case word w, in any case? */
static bool px_starts_with_word(const char *s, const char *w)
{
    return 0 == strncasecmp(s, w, strlen(w));
}

/*
 * The reading 4.2.2's pmix_check_true() gives (so programs built against either header
 * agree): PMIX_UNDEF -> true (a flag given without a value means "on"); PMIX_BOOL -> its
 * flag; PMIX_STRING, after leading blanks -> NULL or empty: true; starting with a digit:
 * true if a nonzero digit occurs in the leading run of digits ("0", "00" false, "10",
 * "1x" true); starting with "yes"/"true" (any case): true; with "no"/"false": false;
 * anything else PMIX_NON_BOOL. Every other type (and NULL): PMIX_NON_BOOL.
 */
pmix_boolean_t PMIx_Value_true(const pmix_value_t *v)
{
    const char *s;

    if (NULL == v) {
        return PMIX_NON_BOOL;
    }
    if (PMIX_UNDEF == v->type) {
        return PMIX_BOOL_TRUE;
    }
    if (PMIX_BOOL == v->type) {
        return v->data.flag ? PMIX_BOOL_TRUE : PMIX_BOOL_FALSE;
    }
    if (PMIX_STRING != v->type) {
        return PMIX_NON_BOOL;
    }
    s = v->data.string;
    if (NULL == s) {
        return PMIX_BOOL_TRUE;
    }
    while (isspace((unsigned char)*s)) {
        s++;
    }
    if ('\0' == *s) {
        return PMIX_BOOL_TRUE;
    }
    if (isdigit((unsigned char)*s)) {
        for (; isdigit((unsigned char)*s); s++) {
            if ('0' != *s) {
                return PMIX_BOOL_TRUE;
            }
        }
        return PMIX_BOOL_FALSE;
    }
    if (px_starts_with_word(s, "yes") || px_starts_with_word(s, "true")) {
        return PMIX_BOOL_TRUE;
    }
    if (px_starts_with_word(s, "no") || px_starts_with_word(s, "false")) {
        return PMIX_BOOL_FALSE;
    }
    return PMIX_NON_BOOL;
}

/* ---- size ---- */

/* Bytes the value occupies: sizeof(pmix_value_t) plus every heap byte its data owns
 * (strings with their NUL, byte-object bytes, boxed structures and what they own,
 * recursively). PMIX_ERR_BAD_PARAM for NULL arguments. */
pmix_status_t PMIx_Value_get_size(const pmix_value_t *val, size_t *size)
{
    if (NULL == val || NULL == size) {
        return PMIX_ERR_BAD_PARAM;
    }
    *size = sizeof(pmix_value_t) + px_value_owned_bytes(val);
    return PMIX_SUCCESS;
}
