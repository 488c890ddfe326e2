/* types: internals shared by the files of libpmix-core/types (not for other areas).
 * How a pmix_value_t stores each data type, and value-level copy/release/compare. */
#ifndef PX_TYPES_INT_H
#define PX_TYPES_INT_H

#include <stdint.h>

#include "types/px_types.h"

/* Where a pmix_value_t of type t keeps its data. */
enum px_value_storage {
    PX_VS_NONE,   /* t cannot be held by a pmix_value_t (no union member) */
    PX_VS_INLINE, /* the element itself sits at &value->data (scalars, string, bo, envar, ptr) */
    PX_VS_BOXED   /* value->data.<member> points to one malloc'd element (proc, darray ...) */
};
enum px_value_storage px_value_storage(pmix_data_type_t t);

/* Deep copy of src into dest (dest overwritten, not released). On error dest is
 * PMIX_UNDEF and nothing leaks. */
pmix_status_t px_value_copy(pmix_value_t *dest, const pmix_value_t *src);
/* Free what the value owns and reset it to PMIX_UNDEF. */
void px_value_release(pmix_value_t *v);
pmix_value_cmp_t px_value_cmp(const pmix_value_t *a, const pmix_value_t *b);
/* Heap bytes owned by the value's data (not counting the pmix_value_t itself). */
size_t px_value_owned_bytes(const pmix_value_t *v);

/* Same for a single info (key, flags, value). A PMIX_INFO_PERSISTENT source is copied
 * shallowly and stays persistent in the copy (its value is borrowed by both). */
pmix_status_t px_info_copy(pmix_info_t *dest, const pmix_info_t *src);
void px_info_release(pmix_info_t *info);

/* Arrays of elements: construct n, destruct n. */
void px_type_construct_n(void *array, size_t n, pmix_data_type_t t);
void px_type_destruct_n(void *array, size_t n, pmix_data_type_t t);
/* calloc of n constructed elements (NULL when n is 0, t unknown, or no memory). */
void *px_type_alloc_n(size_t n, pmix_data_type_t t);
/* Deep copy of n elements into a new array (n 0 or src NULL gives NULL, success). */
pmix_status_t px_type_dup_n(void **dest, const void *src, size_t n, pmix_data_type_t t);

/* An integer of sz (1, 2, 4 or 8) bytes at p, widened. */
int64_t px_types_read_sint(const void *p, size_t sz);
uint64_t px_types_read_uint(const void *p, size_t sz);

#endif /* PX_TYPES_INT_H */
