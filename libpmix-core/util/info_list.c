/* PMIx_Info_list_*: an opaque, growable list of pmix_info_t used to build info arrays
 * (PMIX_INFO_LIST_* macros). A doubly linked list of nodes, so iterator handles stay
 * valid while entries are added. Not locked: one list is used by one thread at a time.
 *
 * Ownership: every entry owns a deep copy of its key/value (PMIx_Info_load/xfer,
 * PMIx_Value_xfer), freed by PMIx_Info_list_release -- except entries added by
 * PMIx_Info_list_insert, which take a shallow copy of the caller's pmix_info_t: the list
 * borrows the value's memory (strings, arrays, ...) and never frees it, so the caller keeps
 * it alive until the list is released or converted and frees it afterwards.
 * PMIx_Info_list_convert always produces independent deep copies and leaves the list
 * untouched (the caller still releases it). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pmix_common.h"

struct px_ilist_node {
    pmix_info_t info;           /* owned, unless borrowed */
    bool borrowed;              /* value memory belongs to the caller (insert) */
    struct px_ilist_node *prev; /* owned by the list */
    struct px_ilist_node *next;
};

struct px_ilist {
    struct px_ilist_node *head;
    struct px_ilist_node *tail;
    size_t len;
};

static void px_ilist_link(struct px_ilist *l, struct px_ilist_node *n, bool front)
{
    if (front) {
        n->next = l->head;
        if (l->head != NULL) {
            l->head->prev = n;
        } else {
            l->tail = n;
        }
        l->head = n;
    } else {
        n->prev = l->tail;
        if (l->tail != NULL) {
            l->tail->next = n;
        } else {
            l->head = n;
        }
        l->tail = n;
    }
    l->len++;
}

static struct px_ilist_node *px_ilist_find(struct px_ilist *l, const char *key)
{
    for (struct px_ilist_node *n = l->head; n != NULL; n = n->next) {
        if (strncmp(n->info.key, key, PMIX_MAX_KEYLEN) == 0) {
            return n;
        }
    }
    return NULL;
}

/* Copy key into info->key like PMIX_LOAD_KEY: truncated to PMIX_MAX_KEYLEN. */
static void px_ilist_set_key(pmix_info_t *info, const char *key)
{
    memset(info->key, 0, sizeof(info->key));
    strncpy(info->key, key, PMIX_MAX_KEYLEN);
}

/* Replace the value of an existing entry by a deep copy of val. */
static pmix_status_t px_ilist_replace(struct px_ilist_node *n, const pmix_value_t *val)
{
    pmix_value_t tmp;
    pmix_status_t rc;

    memset(&tmp, 0, sizeof(tmp));
    rc = PMIx_Value_xfer(&tmp, val);
    if (rc != PMIX_SUCCESS) {
        PMIx_Value_destruct(&tmp);
        return rc;
    }
    if (!n->borrowed) {
        PMIx_Value_destruct(&n->info.value);
    }
    n->info.value = tmp;
    n->borrowed = false;
    return PMIX_SUCCESS;
}

void *PMIx_Info_list_start(void)
{
    return calloc(1, sizeof(struct px_ilist));
}

/* Append (or prepend) a node loaded by load(); the node is freed if load fails. */
static pmix_status_t px_ilist_add_loaded(void *ptr, bool front, const char *key, const void *data,
                                         pmix_data_type_t type, const pmix_value_t *val,
                                         const pmix_info_t *src)
{
    struct px_ilist_node *n;
    pmix_status_t rc;

    if (ptr == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    n = calloc(1, sizeof(*n));
    if (n == NULL) {
        return PMIX_ERR_NOMEM;
    }
    if (src != NULL) {
        rc = PMIx_Info_xfer(&n->info, src);
    } else if (val != NULL) {
        px_ilist_set_key(&n->info, key);
        rc = PMIx_Value_xfer(&n->info.value, val);
    } else {
        rc = PMIx_Info_load(&n->info, key, data, type);
    }
    if (rc != PMIX_SUCCESS) {
        PMIx_Info_destruct(&n->info);
        free(n);
        return rc;
    }
    px_ilist_link(ptr, n, front);
    return PMIX_SUCCESS;
}

pmix_status_t PMIx_Info_list_add(void *ptr, const char *key, const void *value,
                                 pmix_data_type_t type)
{
    if (key == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    return px_ilist_add_loaded(ptr, false, key, value, type, NULL, NULL);
}

pmix_status_t PMIx_Info_list_prepend(void *ptr, const char *key, const void *value,
                                     pmix_data_type_t type)
{
    if (key == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    return px_ilist_add_loaded(ptr, true, key, value, type, NULL, NULL);
}

/* The *_unique variants: if an entry with the same key exists, overwrite replaces its
 * value (flags kept) and returns PMIX_SUCCESS; without overwrite the list is left as it
 * is and PMIX_SUCCESS is returned too (the key is present, which is what was asked). */
pmix_status_t PMIx_Info_list_add_unique(void *ptr, const char *key, const void *value,
                                        pmix_data_type_t type, bool overwrite)
{
    struct px_ilist_node *n;
    pmix_value_t tmp;
    pmix_status_t rc;

    if (ptr == NULL || key == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    n = px_ilist_find(ptr, key);
    if (n == NULL) {
        return px_ilist_add_loaded(ptr, false, key, value, type, NULL, NULL);
    }
    if (!overwrite) {
        return PMIX_SUCCESS;
    }
    memset(&tmp, 0, sizeof(tmp));
    rc = PMIx_Value_load(&tmp, value, type);
    if (rc == PMIX_SUCCESS) {
        if (!n->borrowed) {
            PMIx_Value_destruct(&n->info.value);
        }
        n->info.value = tmp;
        n->borrowed = false;
    } else {
        PMIx_Value_destruct(&tmp);
    }
    return rc;
}

pmix_status_t PMIx_Info_list_add_value(void *ptr, const char *key, const pmix_value_t *value)
{
    if (key == NULL || value == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    return px_ilist_add_loaded(ptr, false, key, NULL, PMIX_UNDEF, value, NULL);
}

pmix_status_t PMIx_Info_list_add_value_unique(void *ptr, const char *key, const pmix_value_t *value,
                                              bool overwrite)
{
    struct px_ilist_node *n;

    if (ptr == NULL || key == NULL || value == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    n = px_ilist_find(ptr, key);
    if (n == NULL) {
        return px_ilist_add_loaded(ptr, false, key, NULL, PMIX_UNDEF, value, NULL);
    }
    return overwrite ? px_ilist_replace(n, value) : PMIX_SUCCESS;
}

pmix_status_t PMIx_Info_list_xfer(void *ptr, const pmix_info_t *info)
{
    if (info == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    return px_ilist_add_loaded(ptr, false, NULL, NULL, PMIX_UNDEF, NULL, info);
}

pmix_status_t PMIx_Info_list_xfer_unique(void *ptr, const pmix_info_t *info, bool overwrite)
{
    struct px_ilist_node *n;

    if (ptr == NULL || info == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    n = px_ilist_find(ptr, info->key);
    if (n == NULL) {
        return px_ilist_add_loaded(ptr, false, NULL, NULL, PMIX_UNDEF, NULL, info);
    }
    return overwrite ? px_ilist_replace(n, &info->value) : PMIX_SUCCESS;
}

/* Shallow: key, flags and the value struct are copied, the memory the value points to
 * is borrowed (see the file comment). */
pmix_status_t PMIx_Info_list_insert(void *ptr, pmix_info_t *info)
{
    struct px_ilist_node *n;

    if (ptr == NULL || info == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    n = calloc(1, sizeof(*n));
    if (n == NULL) {
        return PMIX_ERR_NOMEM;
    }
    n->info = *info;
    n->borrowed = true;
    px_ilist_link(ptr, n, false);
    return PMIX_SUCCESS;
}

/* par becomes {PMIX_INFO, n, array of n deep copies}; the last element is flagged
 * PMIX_INFO_ARRAY_END as PMIX_INFO_CREATE does. An empty list gives {PMIX_INFO, 0, NULL}
 * and PMIX_ERR_EMPTY (as 4.2.2). On any other error par is left {PMIX_INFO, 0, NULL}. */
pmix_status_t PMIx_Info_list_convert(void *ptr, pmix_data_array_t *par)
{
    struct px_ilist *l = ptr;
    pmix_info_t *array = NULL;
    pmix_status_t rc = PMIX_SUCCESS;
    size_t i = 0;

    if (l == NULL || par == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    par->type = PMIX_INFO;
    par->size = 0;
    par->array = NULL;
    if (l->len == 0) {
        return PMIX_ERR_EMPTY;
    }
    array = calloc(l->len, sizeof(pmix_info_t));
    if (array == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (struct px_ilist_node *n = l->head; n != NULL; n = n->next, i++) {
        rc = PMIx_Info_xfer(&array[i], &n->info);
        if (rc != PMIX_SUCCESS) {
            i++; /* the failed element may hold partial data */
            goto error;
        }
    }
    array[l->len - 1].flags |= PMIX_INFO_ARRAY_END;
    par->size = l->len;
    par->array = array;
    return PMIX_SUCCESS;

error:
    while (i > 0) {
        PMIx_Info_destruct(&array[--i]);
    }
    free(array);
    return rc;
}

void PMIx_Info_list_release(void *ptr)
{
    struct px_ilist *l = ptr;
    struct px_ilist_node *n;

    if (l == NULL) {
        return;
    }
    while ((n = l->head) != NULL) {
        l->head = n->next;
        if (!n->borrowed) {
            PMIx_Info_destruct(&n->info);
        }
        free(n);
    }
    free(l);
}

/* Iteration: prev NULL returns the first entry, otherwise prev must be a handle that an
 * earlier call stored in *next, and that entry is returned. *next (if next is not NULL)
 * receives the handle of the following entry, or NULL after the last one. NULL for an
 * empty list or a NULL ptr. The returned info belongs to the list. */
pmix_info_t *PMIx_Info_list_get_info(void *ptr, void *prev, void **next)
{
    struct px_ilist *l = ptr;
    struct px_ilist_node *n;

    if (next != NULL) {
        *next = NULL;
    }
    if (l == NULL) {
        return NULL;
    }
    n = prev != NULL ? prev : l->head;
    if (n == NULL) {
        return NULL;
    }
    if (next != NULL) {
        *next = n->next;
    }
    return &n->info;
}

size_t PMIx_Info_list_get_size(void *ptr)
{
    struct px_ilist *l = ptr;

    return l != NULL ? l->len : 0;
}

pmix_status_t px_ilist_add_u32(void *list, const char *key, uint32_t v)
{
    return PMIx_Info_list_add(list, key, &v, PMIX_UINT32);
}

pmix_status_t px_ilist_add_array(void *outer, const char *key, void *inner)
{
    pmix_data_array_t da = PMIX_DATA_ARRAY_STATIC_INIT;
    pmix_status_t rc = PMIx_Info_list_convert(inner, &da);
    PMIx_Info_list_release(inner);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_add(outer, key, &da, PMIX_DATA_ARRAY);
        PMIx_Data_array_destruct(&da);
    }
    return rc;
}
