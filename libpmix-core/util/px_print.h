/* Internal printer of PMIx data (print.c): one element of any pmix_data_type_t as a
 * malloc'd string. Used by PMIx_Value_string & co. and by PMIx_Data_print. Any thread. */
#ifndef PX_PRINT_H
#define PX_PRINT_H

#include "pmix_common.h"

/* Text of one element of type t. elem points to the element in the same representation
 * a pmix_data_array_t of that type stores: char * for PMIX_STRING and PMIX_REGEX (elem
 * is a char **), pmix_value_t for PMIX_VALUE, pmix_info_t for PMIX_INFO,
 * pmix_data_array_t for PMIX_DATA_ARRAY, pmix_byte_object_t for PMIX_BYTE_OBJECT,
 * PMIX_COMPRESSED_STRING and PMIX_COMPRESSED_BYTE_OBJECT,
 * pmix_nspace_t for PMIX_PROC_NSPACE, the plain scalar for scalar types, ...
 * Formats (no type prefix; values, infos and arrays carry their element types):
 *   scalars     42, -1, 2.5, true, 0x1f (byte), 12.000345 (timeval)
 *   strings     as is; a NULL pointer prints (null); so do regexes (a PMIX_REGEX
 *               value prints its text when it holds one string, else "N bytes")
 *   enums/flags constant names, as the *_string functions print them
 *   proc        nspace:rank, special ranks by name without prefix (job:WILDCARD)
 *   value       TYPE: text          e.g. "PMIX_UINT32: 42"
 *   info        key = TYPE: text    plus " (flags: PMIX_INFO_REQD)" when flags are set
 *   data array  TYPE[n] {e0, e1}
 *   structs     field=value ...     e.g. app "cmd=a.out argv={a.out, -v} ..."
 *   opaque      "N bytes" for byte objects and buffers
 * Element sizes come from the types registry (px_type_size); PMIX_KVAL prints as the
 * pmix_info_t it is stored as.
 * A NULL elem prints (null); an unknown type prints "(unprintable type N)". Returns NULL
 * only when out of memory; the caller frees. */
char *px_print_elem(const void *elem, pmix_data_type_t t);

#endif /* PX_PRINT_H */
