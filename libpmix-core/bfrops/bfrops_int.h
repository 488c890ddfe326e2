/* bfrops internals shared by pack.c, unpack.c and buffer.c: the per-type wire facts
 * (scalar widths, minimum encoded sizes, where a pmix_value_t keeps each type). */
#ifndef PX_BFROPS_INT_H
#define PX_BFROPS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

/* Length/count field value meaning "NULL" (a NULL string, argv, or absent object). */
#define PX_BFROPS_NONE UINT32_MAX
/* Bytes of an item header: type tag (u16) + element count (u32). */
#define PX_BFROPS_HDR 6

/* Encoding family of a type. */
typedef enum {
    PX_BFROPS_K_UNKNOWN = 0,
    PX_BFROPS_K_INT,     /* integer: wire bytes below, C size from px_type_size */
    PX_BFROPS_K_BOOL,    /* one byte, 0 or 1 */
    PX_BFROPS_K_FLOAT,   /* IEEE-754 binary32 bits, 4 bytes */
    PX_BFROPS_K_DOUBLE,  /* IEEE-754 binary64 bits, 8 bytes */
    PX_BFROPS_K_COMPLEX, /* everything else: a struct or a string, see pack.c */
} px_bfrops_kind_t;

typedef struct {
    px_bfrops_kind_t kind;
    uint8_t wire;   /* bytes on the wire of K_INT/K_FLOAT/K_DOUBLE */
    bool is_signed; /* K_INT: sign-extend on unpack */
} px_bfrops_tinfo_t;

/* Wire facts of a type (kind UNKNOWN for types without an encoding). */
px_bfrops_tinfo_t px_bfrops_tinfo(pmix_data_type_t t);

/* Smallest number of bytes one element of type t can occupy on the wire (>= 1); used
 * to reject counts that cannot fit in the bytes left before anything is allocated. */
size_t px_bfrops_min_wire(pmix_data_type_t t);

/* Where a pmix_value_t of type t keeps its data. */
typedef enum {
    PX_BFROPS_SLOT_BAD = 0, /* type cannot be carried by a value */
    PX_BFROPS_SLOT_EMPTY,   /* PMIX_UNDEF: no data */
    PX_BFROPS_SLOT_INLINE,  /* one element stored at &value->data */
    PX_BFROPS_SLOT_PTR,     /* value->data holds a pointer to one element (may be NULL) */
} px_bfrops_slot_t;

px_bfrops_slot_t px_bfrops_value_slot(pmix_data_type_t t);

/* Encode / decode one element (no header). The decoder writes into zeroed storage of
 * px_type_size(t) bytes; on error that storage may hold a partial element which
 * px_type_destruct releases. depth counts nesting levels so far. */
pmix_status_t px_bfrops_enc_elem(pmix_data_buffer_t *buf, const void *elem, pmix_data_type_t t,
                                 int depth);

typedef struct px_bfrops_reader {
    const uint8_t *p; /* next byte */
    size_t left;      /* bytes left */
} px_bfrops_reader_t;

pmix_status_t px_bfrops_dec_elem(px_bfrops_reader_t *r, void *elem, pmix_data_type_t t, int depth);

/* Make room for n more bytes after pack_ptr (grows and rebases the pointers). */
pmix_status_t px_bfrops_reserve(pmix_data_buffer_t *buf, size_t n);

/* Big-endian load/store of n-byte unsigned integers. */
static inline void px_bfrops_put_be(uint8_t *p, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static inline uint64_t px_bfrops_get_be(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

#endif /* PX_BFROPS_INT_H */
