/* bfrops: the typed, big-endian encoding behind PMIx_Data_pack/unpack, which is also
 * the wire format of our client/server messages (layout: ENCODING.md beside this file).
 *
 * Every function here is reentrant and touches only the buffer it is given; a buffer
 * itself is single-owner (no locking). Functions return a pmix_status_t because the
 * callers (the PMIx_Data_* API and the message layer) hand the status straight to the
 * user: PMIX_ERR_BAD_PARAM, PMIX_ERR_UNKNOWN_DATA_TYPE, PMIX_ERR_NOMEM,
 * PMIX_ERR_PACK_FAILURE, PMIX_ERR_PACK_MISMATCH, PMIX_ERR_UNPACK_FAILURE,
 * PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER, PMIX_ERR_UNPACK_INADEQUATE_SPACE.
 */
#ifndef PX_BFROPS_H
#define PX_BFROPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

/* Nesting limit of value -> data array -> info -> value ... (each of PMIX_VALUE,
 * PMIX_DATA_ARRAY, PMIX_INFO, PMIX_PDATA, PMIX_APP, PMIX_QUERY counts one level). */
#define PX_BFROPS_MAX_DEPTH 64

/* ---- buffer lifecycle (the PMIx_Data_buffer_* API is a thin layer over these) ---- */

/* Empty, unallocated buffer (all fields zero). */
void px_bfrops_buf_init(pmix_data_buffer_t *buf);
/* Free the payload and return to the empty state. Accepts NULL. */
void px_bfrops_buf_free(pmix_data_buffer_t *buf);
/* True when the buffer's pointers are consistent (base <= unpack <= pack <= base+allocated). */
bool px_bfrops_buf_valid(const pmix_data_buffer_t *buf);
/* Bytes packed but not yet unpacked. */
size_t px_bfrops_buf_remaining(const pmix_data_buffer_t *buf);
/* Take ownership of a malloc'd region as the buffer's payload (old payload freed). */
void px_bfrops_buf_adopt(pmix_data_buffer_t *buf, char *bytes, size_t size);
/* Copy bytes onto the end of the payload. */
pmix_status_t px_bfrops_buf_append(pmix_data_buffer_t *buf, const void *bytes, size_t size);
/* Hand the unread part of the payload to the caller (malloc'd, NULL when empty) and leave
 * the buffer empty. */
void px_bfrops_buf_take(pmix_data_buffer_t *buf, char **bytes, size_t *size);

/* ---- typed packing ---- */

/* Append one item: the type tag, the count n, then n elements read from src (an array
 * of n elements as laid out in memory; strings are char *[n]). On failure the buffer
 * is left exactly as it was. */
pmix_status_t px_bfrops_pack(pmix_data_buffer_t *buf, const void *src, int32_t n,
                             pmix_data_type_t type);

/* Read the next item, which must have this type, into dest (storage for *n elements,
 * overwritten). *n is in/out: capacity in, number stored out. An item with more
 * elements than *n fills dest, skips the rest of the item and returns
 * PMIX_ERR_UNPACK_INADEQUATE_SPACE (the elements in dest are the caller's). On any
 * other error nothing is stored, nothing leaks and the read position is unchanged. */
pmix_status_t px_bfrops_unpack(pmix_data_buffer_t *buf, void *dest, int32_t *n,
                               pmix_data_type_t type);

/* Zero-copy halves of one PMIX_BYTE_OBJECT item (count 1), for bulk data. pack_bo_head
 * appends the item's head (tag, count, length = size); the caller must then put exactly
 * size bytes into the stream itself (px_peer_send_ext sends them from its own memory).
 * unpack_bo_view reads such an item without copying: bo->bytes points into buf and is
 * valid as long as buf's payload is (NULL when size is 0); never free it. Same errors
 * and "nothing consumed on error" rule as px_bfrops_unpack. */
pmix_status_t px_bfrops_pack_bo_head(pmix_data_buffer_t *buf, size_t size);
pmix_status_t px_bfrops_unpack_bo_view(pmix_data_buffer_t *buf, pmix_byte_object_t *bo);

/* Type tag of the next item without consuming it. */
pmix_status_t px_bfrops_peek(const pmix_data_buffer_t *buf, pmix_data_type_t *type, int32_t *count);

/* A whole pmix_info_t array with its count, as one PMIX_INFO item (ninfo may be 0, info
 * NULL then). The unpack side allocates the array (NULL when empty); release it with
 * px_bfrops_info_array_free. */
pmix_status_t px_bfrops_pack_info_array(pmix_data_buffer_t *buf, const pmix_info_t *info,
                                        size_t ninfo);
pmix_status_t px_bfrops_unpack_info_array(pmix_data_buffer_t *buf, pmix_info_t **info,
                                          size_t *ninfo);
void px_bfrops_info_array_free(pmix_info_t *info, size_t ninfo);

/* ---- counts read from the wire ----
 * Every message handler (server, client, tool, and the daemon protocol) reads a
 * count that sizes an allocation through px_bfrops_unpack_count, never through a plain
 * unpack: the count is checked against the bytes left in the message before the caller
 * allocates anything for it. */

/* Least bytes one element of type t takes inside an item (after the item's header). */
size_t px_bfrops_wire_elem(pmix_data_type_t t);
/* Least bytes of a whole item holding k elements of type t (header included); k = 0 is
 * the empty item, e.g. an empty info array. */
size_t px_bfrops_wire_item(pmix_data_type_t t, size_t k);

/* Read a count (one item of ctype: PMIX_SIZE or PMIX_UINT32) announcing *n things that
 * follow in buf, each taking at least `each` bytes on the wire (>= 1; build it from
 * px_bfrops_wire_elem/item). Refused with PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER when
 * *n * each exceeds the bytes left after the count, and with PMIX_ERR_BAD_PARAM when
 * max > 0 and *n > max (a bound the protocol sets). On a refusal *n is 0 and the count
 * stays unread; on success the caller may allocate *n elements. */
pmix_status_t px_bfrops_unpack_count(pmix_data_buffer_t *buf, pmix_data_type_t ctype, size_t each,
                                     size_t max, size_t *n);

/* ---- compression (PMIx_Data_compress/decompress) ---- */

/* Compress into a malloc'd block; false (nothing allocated) when it would not shrink. */
bool px_bfrops_compress(const uint8_t *in, size_t size, uint8_t **out, size_t *outsize);
/* Validate and expand a block made by px_bfrops_compress; false on any inconsistency. */
bool px_bfrops_decompress(const uint8_t *in, size_t size, uint8_t **out, size_t *outsize);

#endif /* PX_BFROPS_H */
