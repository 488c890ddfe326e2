/* types: the registry entry of a data type - every operation the library performs on one
 * element of a pmix_data_type_t, in one row per type (px_type_table.c). The operations
 * themselves live in the area that owns the concept: deep copy, release, compare and
 * footprint in types/, encode/decode in bfrops/, text in util/print.c. Adding a type =
 * one row in px_type_table.c plus its operations. Read-only data; any thread. */
#ifndef PX_TYPE_OPS_H
#define PX_TYPE_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

struct px_type_ops;
struct px_sbuf;          /* util/print.c */
struct px_bfrops_reader; /* bfrops/bfrops_int.h */

/* How numbers and scalars are read generically (compare, pack, print, get_number). */
enum px_num_kind {
    PX_NUM_NONE = 0, /* a struct, string, pointer ... */
    PX_NUM_SINT,     /* signed integer of `size` bytes */
    PX_NUM_UINT,     /* unsigned integer of `size` bytes */
    PX_NUM_FLT,      /* float (size 4) or double (size 8) */
    PX_NUM_BOOL      /* bool */
};

/* Per-type operations. Every pointer may be NULL, with the meaning given. */
typedef void (*px_type_init_fn)(void *elem);
typedef pmix_status_t (*px_type_copy_fn)(void *dest, const void *src);
typedef void (*px_type_release_fn)(void *elem);
typedef pmix_value_cmp_t (*px_type_cmp_fn)(const void *a, const void *b,
                                           const struct px_type_ops *o);
typedef size_t (*px_type_owned_fn)(const void *elem);
typedef pmix_status_t (*px_type_pack_fn)(pmix_data_buffer_t *b, const void *elem,
                                         const struct px_type_ops *o, int depth);
typedef pmix_status_t (*px_type_unpack_fn)(struct px_bfrops_reader *r, void *elem,
                                           const struct px_type_ops *o, int depth);
typedef void (*px_type_print_fn)(struct px_sbuf *b, const void *elem, const struct px_type_ops *o,
                                 int depth);
typedef pmix_status_t (*px_type_vload_fn)(pmix_value_t *v, const void *data);
typedef pmix_status_t (*px_type_vunload_fn)(const pmix_value_t *v, void **data, size_t *sz);

struct px_type_ops {
    pmix_data_type_t type;
    size_t size;                /* sizeof one element (px_types.h table); 0 marks an unknown type */
    uint8_t vs;                 /* enum px_value_storage (px_types_int.h) */
    uint8_t num;                /* enum px_num_kind */
    bool number;                /* PMIx_Value_get_number converts it (px_type_is_number) */
    uint8_t wire;               /* scalars: bytes on the wire (ENCODING.md); 0 for the others */
    uint8_t min_wire;           /* fewest bytes one element takes on the wire (>= 1) */
    px_type_init_fn init;       /* after zeroing, for a non-zero constructed state; NULL: zeroes */
    px_type_copy_fn copy;       /* deep copy into a constructed dest; on error the caller
                                 * releases dest. NULL: a byte copy (owns nothing) */
    px_type_release_fn release; /* free what it owns; NULL: owns nothing */
    px_type_cmp_fn cmp;         /* NULL: equal bytes or PMIX_VALUE_COMPARISON_NOT_AVAIL */
    px_type_owned_fn owned;     /* heap bytes owned; NULL: 0 */
    px_type_pack_fn pack;       /* bfrops/pack.c */
    px_type_unpack_fn unpack;   /* bfrops/unpack.c: into zeroed storage */
    px_type_print_fn print;     /* util/print.c */
    /* PMIx_Value_load / unload of a type whose `data` convention is not "a pointer to
     * one element" (px_value.c); NULL: the generic path of its storage */
    px_type_vload_fn vload;
    px_type_vunload_fn vunload;
};

/* The entry of type t, NULL when the library does not know t. */
const struct px_type_ops *px_type_ops(pmix_data_type_t t);

/* ---- the operations, by area ---- */

/* types/px_types.c: construct, copy, release; types/px_types_cmp.c: compare, footprint */
void px_types_init_proc(void *e);
void px_types_init_pinfo(void *e);
void px_types_init_pdata(void *e);
void px_types_init_pstats(void *e);
void px_types_init_devdist(void *e);
void px_types_init_nodepid(void *e);

#define PX_TYPES_OPS_DECL(n)                                                                       \
    pmix_status_t px_types_copy_##n(void *d, const void *s);                                       \
    void px_types_release_##n(void *e);                                                            \
    pmix_value_cmp_t px_types_cmp_##n(const void *a, const void *b, const struct px_type_ops *o);  \
    size_t px_types_owned_##n(const void *e)
PX_TYPES_OPS_DECL(string);
PX_TYPES_OPS_DECL(value);
PX_TYPES_OPS_DECL(app);
PX_TYPES_OPS_DECL(info);
PX_TYPES_OPS_DECL(pdata);
PX_TYPES_OPS_DECL(bo);
PX_TYPES_OPS_DECL(pinfo);
PX_TYPES_OPS_DECL(darray);
PX_TYPES_OPS_DECL(query);
PX_TYPES_OPS_DECL(envar);
PX_TYPES_OPS_DECL(coord);
PX_TYPES_OPS_DECL(regattr);
PX_TYPES_OPS_DECL(cpuset);
PX_TYPES_OPS_DECL(topo);
PX_TYPES_OPS_DECL(geometry);
PX_TYPES_OPS_DECL(devdist);
PX_TYPES_OPS_DECL(endpoint);
PX_TYPES_OPS_DECL(pstats);
PX_TYPES_OPS_DECL(dkstats);
PX_TYPES_OPS_DECL(netstats);
PX_TYPES_OPS_DECL(ndstats);
PX_TYPES_OPS_DECL(dbuf);
PX_TYPES_OPS_DECL(device);
PX_TYPES_OPS_DECL(nodepid);
PX_TYPES_OPS_DECL(regex2);
#undef PX_TYPES_OPS_DECL
pmix_status_t px_types_copy_nspace(void *d, const void *s);
pmix_value_cmp_t px_types_cmp_nspace(const void *a, const void *b, const struct px_type_ops *o);
pmix_value_cmp_t px_types_cmp_num(const void *a, const void *b, const struct px_type_ops *o);
pmix_value_cmp_t px_types_cmp_timeval(const void *a, const void *b, const struct px_type_ops *o);
pmix_value_cmp_t px_types_cmp_proc(const void *a, const void *b, const struct px_type_ops *o);
pmix_value_cmp_t px_types_cmp_pointer(const void *a, const void *b, const struct px_type_ops *o);
pmix_value_cmp_t px_types_cmp_resunit(const void *a, const void *b, const struct px_type_ops *o);

/* types/px_value.c: value load/unload of the types with their own convention */
pmix_status_t px_value_load_string(pmix_value_t *v, const void *data);
pmix_status_t px_value_load_pointer(pmix_value_t *v, const void *data);
pmix_status_t px_value_load_regex(pmix_value_t *v, const void *data);
pmix_status_t px_value_load_nspace(pmix_value_t *v, const void *data);
pmix_status_t px_value_unload_string(const pmix_value_t *v, void **data, size_t *sz);
pmix_status_t px_value_unload_bo(const pmix_value_t *v, void **data, size_t *sz);
pmix_status_t px_value_unload_pointer(const pmix_value_t *v, void **data, size_t *sz);
pmix_status_t px_value_unload_envar(const pmix_value_t *v, void **data, size_t *sz);

/* bfrops/pack.c and bfrops/unpack.c: one element's encoding (ENCODING.md) */
#define PX_BFROPS_OPS_DECL(n)                                                                      \
    pmix_status_t px_bfrops_enc_##n(pmix_data_buffer_t *b, const void *e,                          \
                                    const struct px_type_ops *o, int depth);                       \
    pmix_status_t px_bfrops_dec_##n(struct px_bfrops_reader *r, void *e,                           \
                                    const struct px_type_ops *o, int depth)
PX_BFROPS_OPS_DECL(int);
PX_BFROPS_OPS_DECL(bool);
PX_BFROPS_OPS_DECL(float);
PX_BFROPS_OPS_DECL(double);
PX_BFROPS_OPS_DECL(string);
PX_BFROPS_OPS_DECL(nspace);
PX_BFROPS_OPS_DECL(timeval);
PX_BFROPS_OPS_DECL(proc);
PX_BFROPS_OPS_DECL(value);
PX_BFROPS_OPS_DECL(info);
PX_BFROPS_OPS_DECL(pdata);
PX_BFROPS_OPS_DECL(app);
PX_BFROPS_OPS_DECL(query);
PX_BFROPS_OPS_DECL(bo);
PX_BFROPS_OPS_DECL(regex);
PX_BFROPS_OPS_DECL(darray);
PX_BFROPS_OPS_DECL(coord);
PX_BFROPS_OPS_DECL(regattr);
PX_BFROPS_OPS_DECL(cpuset);
PX_BFROPS_OPS_DECL(topo);
PX_BFROPS_OPS_DECL(geometry);
PX_BFROPS_OPS_DECL(ndstats);
PX_BFROPS_OPS_DECL(dbuf);
PX_BFROPS_OPS_DECL(pinfo);
PX_BFROPS_OPS_DECL(envar);
PX_BFROPS_OPS_DECL(devdist);
PX_BFROPS_OPS_DECL(endpoint);
PX_BFROPS_OPS_DECL(device);
PX_BFROPS_OPS_DECL(resunit);
PX_BFROPS_OPS_DECL(nodepid);
PX_BFROPS_OPS_DECL(regex2);
PX_BFROPS_OPS_DECL(pstats);
PX_BFROPS_OPS_DECL(dkstats);
PX_BFROPS_OPS_DECL(netstats);
#undef PX_BFROPS_OPS_DECL

/* util/print.c: one element's text (formats in util/px_print.h) */
#define PX_PRINT_OPS_DECL(n)                                                                       \
    void px_print_##n(struct px_sbuf *b, const void *e, const struct px_type_ops *o, int depth)
PX_PRINT_OPS_DECL(bool);
PX_PRINT_OPS_DECL(byte);
PX_PRINT_OPS_DECL(sint);
PX_PRINT_OPS_DECL(uint);
PX_PRINT_OPS_DECL(flt);
PX_PRINT_OPS_DECL(string);
PX_PRINT_OPS_DECL(timeval);
PX_PRINT_OPS_DECL(status);
PX_PRINT_OPS_DECL(rank);
PX_PRINT_OPS_DECL(nspace);
PX_PRINT_OPS_DECL(pointer);
PX_PRINT_OPS_DECL(bo);
PX_PRINT_OPS_DECL(persist);
PX_PRINT_OPS_DECL(scope);
PX_PRINT_OPS_DECL(range);
PX_PRINT_OPS_DECL(pstate);
PX_PRINT_OPS_DECL(jstate);
PX_PRINT_OPS_DECL(lstate);
PX_PRINT_OPS_DECL(allocdir);
PX_PRINT_OPS_DECL(resblock);
PX_PRINT_OPS_DECL(inherit);
PX_PRINT_OPS_DECL(dtype);
PX_PRINT_OPS_DECL(infodir);
PX_PRINT_OPS_DECL(iof);
PX_PRINT_OPS_DECL(devtype);
PX_PRINT_OPS_DECL(loctype);
PX_PRINT_OPS_DECL(stormed);
PX_PRINT_OPS_DECL(storacc);
PX_PRINT_OPS_DECL(storpers);
PX_PRINT_OPS_DECL(storacctype);
PX_PRINT_OPS_DECL(value);
PX_PRINT_OPS_DECL(info);
PX_PRINT_OPS_DECL(darray);
PX_PRINT_OPS_DECL(proc);
PX_PRINT_OPS_DECL(app);
PX_PRINT_OPS_DECL(pdata);
PX_PRINT_OPS_DECL(pinfo);
PX_PRINT_OPS_DECL(query);
PX_PRINT_OPS_DECL(envar);
PX_PRINT_OPS_DECL(coord);
PX_PRINT_OPS_DECL(regattr);
PX_PRINT_OPS_DECL(cpuset);
PX_PRINT_OPS_DECL(topo);
PX_PRINT_OPS_DECL(geometry);
PX_PRINT_OPS_DECL(devdist);
PX_PRINT_OPS_DECL(endpoint);
PX_PRINT_OPS_DECL(dbuf);
PX_PRINT_OPS_DECL(pstats);
PX_PRINT_OPS_DECL(dkstats);
PX_PRINT_OPS_DECL(netstats);
PX_PRINT_OPS_DECL(ndstats);
PX_PRINT_OPS_DECL(device);
PX_PRINT_OPS_DECL(resunit);
PX_PRINT_OPS_DECL(nodepid);
PX_PRINT_OPS_DECL(regex2);
#undef PX_PRINT_OPS_DECL

#endif /* PX_TYPE_OPS_H */
