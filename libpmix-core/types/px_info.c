/* types: pmix_info_t (construct/destruct/create/free, load/xfer, directive flags, size)
 * and pmix_data_array_t (init/construct/create/destruct/free, any element type).
 * Pure functions on caller memory; any thread. */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "types/px_types_int.h"

/* ---- internals (px_types_int.h) ---- */

void px_info_release(pmix_info_t *info)
{
    if (NULL == info) {
        return;
    }
    if (!(PMIX_INFO_PERSISTENT & info->flags)) {
        px_value_release(&info->value);
    }
    memset(info, 0, sizeof(*info));
    info->value.type = PMIX_UNDEF;
}

pmix_status_t px_info_copy(pmix_info_t *dest, const pmix_info_t *src)
{
    memset(dest, 0, sizeof(*dest));
    memcpy(dest->key, src->key, PMIX_MAX_KEYLEN);
    dest->flags = src->flags;
    if (PMIX_INFO_PERSISTENT & src->flags) {
        /* the value is borrowed: the copy borrows it too */
        memcpy(&dest->value, &src->value, sizeof(dest->value));
        return PMIX_SUCCESS;
    }
    return px_value_copy(&dest->value, &src->value);
}

/* ---- pmix_info_t ---- */

void PMIx_Info_construct(pmix_info_t *p)
{
    px_type_construct(p, PMIX_INFO);
}

/* Releases the value unless the info is flagged PMIX_INFO_PERSISTENT (its value is then
 * someone else's); either way the info is left constructed (empty key, no flags). */
void PMIx_Info_destruct(pmix_info_t *p)
{
    px_info_release(p);
}

/* n constructed infos, the last flagged PMIX_INFO_ARRAY_END; NULL when n is 0. */
pmix_info_t *PMIx_Info_create(size_t n)
{
    pmix_info_t *p = px_type_alloc_n(n, PMIX_INFO);

    if (NULL != p) {
        p[n - 1].flags |= PMIX_INFO_ARRAY_END;
    }
    return p;
}

void PMIx_Info_free(pmix_info_t *p, size_t n)
{
    if (NULL == p) {
        return;
    }
    px_type_destruct_n(p, n, PMIX_INFO);
    free(p);
}

/* Sets the key, clears every directive except PMIX_INFO_ARRAY_END (so loading the last
 * element of a PMIx_Info_create array keeps the end marker) and loads a deep copy of the
 * data (PMIx_Value_load conventions; NULL data with PMIX_BOOL means true). The previous
 * value is overwritten, not released. */
pmix_status_t PMIx_Info_load(pmix_info_t *info, const char *key, const void *data,
                             pmix_data_type_t type)
{
    if (NULL == info || NULL == key) {
        return PMIX_ERR_BAD_PARAM;
    }
    PMIx_Load_key(info->key, key);
    info->flags &= PMIX_INFO_ARRAY_END;
    return PMIx_Value_load(&info->value, data, type);
}

/* Copies key and flags and deep-copies the value; a PMIX_INFO_PERSISTENT source is
 * copied shallowly (its value stays borrowed, by both). dest is overwritten. */
pmix_status_t PMIx_Info_xfer(pmix_info_t *dest, const pmix_info_t *src)
{
    if (NULL == dest || NULL == src) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (dest == src) {
        return PMIX_SUCCESS;
    }
    return px_info_copy(dest, src);
}

pmix_boolean_t PMIx_Info_true(const pmix_info_t *p)
{
    if (NULL == p) {
        return PMIX_NON_BOOL;
    }
    return PMIx_Value_true(&p->value);
}

void PMIx_Info_required(pmix_info_t *p)
{
    if (NULL != p) {
        p->flags |= PMIX_INFO_REQD;
    }
}

void PMIx_Info_optional(pmix_info_t *p)
{
    if (NULL != p) {
        p->flags &= ~PMIX_INFO_REQD;
    }
}

bool PMIx_Info_is_required(const pmix_info_t *p)
{
    return NULL != p && (PMIX_INFO_REQD & p->flags);
}

bool PMIx_Info_is_optional(const pmix_info_t *p)
{
    return NULL != p && !(PMIX_INFO_REQD & p->flags);
}

void PMIx_Info_processed(pmix_info_t *p)
{
    if (NULL != p) {
        p->flags |= PMIX_INFO_REQD_PROCESSED;
    }
}

bool PMIx_Info_was_processed(const pmix_info_t *p)
{
    return NULL != p && (PMIX_INFO_REQD_PROCESSED & p->flags);
}

void PMIx_Info_set_end(pmix_info_t *p)
{
    if (NULL != p) {
        p->flags |= PMIX_INFO_ARRAY_END;
    }
}

bool PMIx_Info_is_end(const pmix_info_t *p)
{
    return NULL != p && (PMIX_INFO_ARRAY_END & p->flags);
}

void PMIx_Info_qualifier(pmix_info_t *p)
{
    if (NULL != p) {
        p->flags |= PMIX_INFO_QUALIFIER;
    }
}

bool PMIx_Info_is_qualifier(const pmix_info_t *p)
{
    return NULL != p && (PMIX_INFO_QUALIFIER & p->flags);
}

void PMIx_Info_persistent(pmix_info_t *p)
{
    if (NULL != p) {
        p->flags |= PMIX_INFO_PERSISTENT;
    }
}

bool PMIx_Info_is_persistent(const pmix_info_t *p)
{
    return NULL != p && (PMIX_INFO_PERSISTENT & p->flags);
}

/* sizeof(pmix_info_t) plus the heap bytes its value owns (0 for a persistent info, whose
 * value it does not own). PMIX_ERR_BAD_PARAM for NULL arguments. */
pmix_status_t PMIx_Info_get_size(const pmix_info_t *val, size_t *size)
{
    if (NULL == val || NULL == size) {
        return PMIX_ERR_BAD_PARAM;
    }
    *size = px_type_footprint(val, PMIX_INFO);
    return PMIX_SUCCESS;
}

/* ---- pmix_data_array_t ---- */

void PMIx_Data_array_init(pmix_data_array_t *p, pmix_data_type_t type)
{
    if (NULL == p) {
        return;
    }
    p->type = type;
    p->size = 0;
    p->array = NULL;
}

/* num constructed elements of type (an array of PMIX_INFO has its last element flagged
 * PMIX_INFO_ARRAY_END, as PMIx_Info_create does); num 0, an unknown type or no memory
 * leave the array empty (array NULL, size 0) with the type set. */
void PMIx_Data_array_construct(pmix_data_array_t *p, size_t num, pmix_data_type_t type)
{
    if (NULL == p) {
        return;
    }
    PMIx_Data_array_init(p, type);
    p->array = px_type_alloc_n(num, type);
    if (NULL != p->array) {
        p->size = num;
        if (PMIX_INFO == type) {
            /* like PMIx_Info_create: the last info marks the end */
            ((pmix_info_t *)p->array)[num - 1].flags |= PMIX_INFO_ARRAY_END;
        }
    }
}

/* NULL when n is 0, the type is unknown or memory runs out. */
pmix_data_array_t *PMIx_Data_array_create(size_t n, pmix_data_type_t type)
{
    pmix_data_array_t *p;

    if (0 == n) {
        return NULL;
    }
    p = malloc(sizeof(*p));
    if (NULL == p) {
        return NULL;
    }
    PMIx_Data_array_construct(p, n, type);
    if (NULL == p->array) {
        /* unknown type or no memory */
        free(p);
        return NULL;
    }
    return p;
}

/* Destructs every element (recursively: arrays of infos whose values hold arrays ...),
 * frees the storage; the type is kept, size 0, array NULL. */
void PMIx_Data_array_destruct(pmix_data_array_t *d)
{
    if (NULL == d) {
        return;
    }
    px_type_destruct_n(d->array, d->size, d->type);
    free(d->array);
    d->array = NULL;
    d->size = 0;
}

void PMIx_Data_array_free(pmix_data_array_t *p)
{
    if (NULL == p) {
        return;
    }
    PMIx_Data_array_destruct(p);
    free(p);
}

const pmix_proc_t *px_value_procs(const pmix_value_t *v, size_t *n)
{
    *n = 0;
    if (v->type == PMIX_PROC && v->data.proc != NULL) {
        *n = 1;
        return v->data.proc;
    }
    if (v->type == PMIX_DATA_ARRAY && v->data.darray != NULL && v->data.darray->type == PMIX_PROC) {
        *n = v->data.darray->size;
        return v->data.darray->array;
    }
    return NULL;
}

pmix_status_t px_info_array_dup(const pmix_info_t *src, size_t n, pmix_info_t **dest)
{
    *dest = NULL;
    if (n == 0) {
        return PMIX_SUCCESS;
    }
    if (src == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_info_t *d = calloc(n, sizeof(*d));
    if (d == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        pmix_status_t rc = px_info_copy(&d[i], &src[i]);
        if (rc != PMIX_SUCCESS) {
            for (size_t j = 0; j < i; j++) {
                px_type_destruct(&d[j], PMIX_INFO);
            }
            free(d);
            return rc;
        }
    }
    *dest = d;
    return PMIX_SUCCESS;
}
