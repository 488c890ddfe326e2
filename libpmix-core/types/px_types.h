/* types: the per-data-type registry of libpmix-core. Every pmix_data_type_t the library
 * knows has one element representation; these functions size, construct, deep-copy,
 * release and compare one element of it. Pure functions; callable from any thread. */
#ifndef PX_TYPES_H
#define PX_TYPES_H

#include <stdbool.h>
#include <stddef.h>

#include <pmix_common.h>

/*
 * Element representations
 * -----------------------
 * "Element" = what one entry of a pmix_data_array_t's array holds, and what
 * PMIx_Data_copy / PMIx_Data_pack / PMIx_Data_unpack read or write for one value of the
 * type. px_type_size() is sizeof of the C type in the right column.
 *
 *   type                                     C type of one element     owns (freed by destruct)
 *   ---------------------------------------- ------------------------- ------------------------
 *   PMIX_BOOL                                bool                      -
 *   PMIX_BYTE, PMIX_INT8, PMIX_UINT8         uint8_t / int8_t          -
 *   PMIX_STRING                              char *                    the string
 *   PMIX_REGEX (in a value: see below)       char *                    the string
 *   PMIX_SIZE                                size_t                    -
 *   PMIX_PID                                 pid_t                     -
 *   PMIX_INT, PMIX_UINT                      int / unsigned int        -
 *   PMIX_INT16..INT64, PMIX_UINT16..UINT64   intN_t / uintN_t          -
 *   PMIX_FLOAT, PMIX_DOUBLE                  float / double            -
 *   PMIX_TIMEVAL                             struct timeval            -
 *   PMIX_TIME                                time_t                    -
 *   PMIX_STATUS                              pmix_status_t             -
 *   PMIX_VALUE                               pmix_value_t              its data (see px_value)
 *   PMIX_PROC                                pmix_proc_t               -
 *   PMIX_APP                                 pmix_app_t                cmd, argv, env, cwd, info
 *   PMIX_INFO                                pmix_info_t               value unless PERSISTENT
 *   PMIX_KVAL (our choice, see below)        pmix_info_t               as PMIX_INFO
 *   PMIX_PDATA                               pmix_pdata_t              value
 *   PMIX_BYTE_OBJECT, PMIX_COMPRESSED_STRING,
 *   PMIX_COMPRESSED_BYTE_OBJECT              pmix_byte_object_t        bytes
 *   PMIX_PERSIST                             pmix_persistence_t (u8)   -
 *   PMIX_POINTER                             void *                    nothing (borrowed)
 *   PMIX_SCOPE                               pmix_scope_t (u8)         -
 *   PMIX_DATA_RANGE                          pmix_data_range_t (u8)    -
 *   PMIX_COMMAND                             uint8_t (wire command)    -
 *   PMIX_INFO_DIRECTIVES                     pmix_info_directives_t    -
 *   PMIX_DATA_TYPE                           pmix_data_type_t (u16)    -
 *   PMIX_PROC_STATE                          pmix_proc_state_t (u8)    -
 *   PMIX_PROC_INFO                           pmix_proc_info_t          hostname, executable
 *   PMIX_DATA_ARRAY                          pmix_data_array_t         array + its elements
 *   PMIX_PROC_RANK                           pmix_rank_t (u32)         -
 *   PMIX_QUERY                               pmix_query_t              keys, qualifiers
 *   PMIX_ALLOC_DIRECTIVE                     pmix_alloc_directive_t    -
 *   PMIX_IOF_CHANNEL                         pmix_iof_channel_t (u16)  -
 *   PMIX_ENVAR                               pmix_envar_t              envar, value
 *   PMIX_COORD                               pmix_coord_t              coord array
 *   PMIX_REGATTR                             pmix_regattr_t            name, description argv
 *   PMIX_JOB_STATE                           pmix_job_state_t (u8)     -
 *   PMIX_LINK_STATE                          pmix_link_state_t (u8)    -
 *   PMIX_PROC_CPUSET                         pmix_cpuset_t             source (bitmap: see below)
 *   PMIX_GEOMETRY                            pmix_geometry_t           uuid, osname, coordinates
 *   PMIX_DEVICE_DIST                         pmix_device_distance_t    uuid, osname
 *   PMIX_ENDPOINT                            pmix_endpoint_t           uuid, osname, endpt bytes
 *   PMIX_TOPO                                pmix_topology_t           source (topology: below)
 *   PMIX_DEVTYPE                             pmix_device_type_t (u64)  -
 *   PMIX_LOCTYPE                             pmix_locality_t (u16)     -
 *   PMIX_PROC_NSPACE                         pmix_nspace_t (char[256]) -
 *   PMIX_PROC_STATS   (4.2.2 only)           pmix_proc_stats_t         node, cmd
 *   PMIX_DISK_STATS   (4.2.2 only)           pmix_disk_stats_t         disk
 *   PMIX_NET_STATS    (4.2.2 only)           pmix_net_stats_t          net_interface
 *   PMIX_NODE_STATS   (4.2.2 only)           pmix_node_stats_t         node, disk/net arrays
 *   PMIX_DATA_BUFFER, PMIX_BUFFER (see below) pmix_data_buffer_t       base_ptr
 *   PMIX_STOR_MEDIUM, PMIX_STOR_ACCESS,
 *   PMIX_STOR_PERSIST                        uint64_t                  -
 *   PMIX_STOR_ACCESS_TYPE                    uint16_t                  -
 *   PMIX_DEVICE          (master)            pmix_device_t             uuid, osname
 *   PMIX_RESBLOCK_DIRECTIVE (master)         uint8_t                   -
 *   PMIX_RESOURCE_UNIT   (master)            pmix_resource_unit_t      -
 *   PMIX_NODE_PID        (master)            pmix_node_pid_t           hostname
 *   PMIX_REGEX2          (master)            pmix_regex2_t             type, bytes
 *   PMIX_ALLOC_INHERIT   (master)            pmix_alloc_inheritance_t  -
 *
 * Not known (px_type_size() == 0): PMIX_UNDEF (only meaningful as the type of an empty
 * pmix_value_t), PMIX_MODEX and PMIX_INFO_ARRAY (in neither 4.2.2 nor master),
 * PMIX_DATA_TYPE_MAX and any other number.
 *
 * Decisions:
 *  - PMIX_KVAL: OpenPMIx's kval is an internal object, not a public struct. We store a
 *    key/value pair as a pmix_info_t (key, flags, value) so arrays of it can exist.
 *  - PMIX_BUFFER (removed from the Standard in v4.1, still defined by 4.2.2) is treated
 *    as a pmix_data_buffer_t. Copying a data buffer copies base_ptr[0..bytes_allocated)
 *    and keeps pack_ptr/unpack_ptr at the same offsets; destruct frees base_ptr.
 *  - PMIX_PROC_CPUSET / PMIX_TOPO with source "hwloc" own an hwloc bitmap / topology
 *    (deep copy, freed by destruct); see types/px_hwtypes.h for the rules, including the
 *    process's local topology, which destruct leaves alone.
 *  - PMIX_POINTER elements are copied as the pointer value; nothing is freed.
 *  - PMIX_REGEX is a NUL-terminated string (what PMIx_generate_regex/ppn return) as an
 *    element - PMIx_Data_pack/unpack/copy/print and data arrays - but a pmix_value_t
 *    keeps it in data.bo: a copy of the string with its NUL counted in size (OpenPMIx
 *    4.2.2 does both). px_type_in_value() names what a value holds.
 *
 * Constructed state (px_type_construct): all bytes zero, except pmix_proc_t (and the
 * proc inside pmix_proc_info_t, pmix_pdata_t, pmix_proc_stats_t): rank PMIX_RANK_UNDEF;
 * pmix_device_distance_t: mindist = maxdist = UINT16_MAX; pmix_node_pid_t: nodeid
 * UINT32_MAX, pid -1. (PMIX_UNDEF == 0 so values and infos are empty when zeroed.)
 */

/* Bytes of one element of type t as stored in a pmix_data_array_t's array (and as the
 * destination of PMIx_Data_copy/PMIx_Data_unpack). 0 for an unknown type. */
size_t px_type_size(pmix_data_type_t t);

/* Deep copy of one element into caller storage of px_type_size(t) bytes (zeroed or not).
 * The destination is overwritten without being released first. On error the
 * destination is left in its constructed state and nothing is leaked.
 * Returns PMIX_SUCCESS, PMIX_ERR_BAD_PARAM (NULL dest/src), PMIX_ERR_UNKNOWN_DATA_TYPE,
 * PMIX_ERR_NOMEM. */
pmix_status_t px_type_copy(void *dest, const void *src, pmix_data_type_t t);

/* Release whatever one element owns (strings, arrays, nested values), not its storage;
 * leaves the element in its constructed (empty) state. NULL elem or unknown t: no-op. */
void px_type_destruct(void *elem, pmix_data_type_t t);

/* True when t is a type this library knows. */
bool px_type_known(pmix_data_type_t t);

/* Put one element of storage px_type_size(t) into its constructed state (see above).
 * Unknown t: no-op. */
void px_type_construct(void *elem, pmix_data_type_t t);

/* Compare two elements of type t. Numbers (and enum-like scalars) compare by value,
 * strings with strcmp (NULL sorts first), byte objects by size then bytes, procs by
 * nspace then rank, values/infos by type/key then data, data arrays by element type
 * (different: PMIX_VALUE_INCOMPATIBLE_OBJECTS), size, then element by element; other
 * structs field by field (strings, argvs and nested arrays deeply). PMIX_EQUAL always
 * means deep equality. PMIX_VALUE_COMPARISON_NOT_AVAIL when no order exists: different
 * pointers (PMIX_POINTER; cpusets/topologies of a source other than hwloc), stats whose
 * numbers differ,
 * buffers whose offsets differ, NaN. Different device types or coordinate views give
 * PMIX_VALUE_INCOMPATIBLE_OBJECTS. */
pmix_value_cmp_t px_type_compare(const void *a, const void *b, pmix_data_type_t t);

/* Bytes one element occupies: px_type_size(t) plus every heap byte it owns
 * (strings with their NUL, arrays, nested structures). 0 for an unknown type. */
size_t px_type_footprint(const void *elem, pmix_data_type_t t);

/* True for the numeric types PMIx_Value_get_number converts between: SIZE, PID, INT,
 * INT8..INT64, UINT, UINT8..UINT64, FLOAT, DOUBLE, PROC_RANK. */
bool px_type_is_number(pmix_data_type_t t);

/* The type whose element representation a pmix_value_t of type t holds (at &value->data
 * or value->data.ptr): t itself, except PMIX_BYTE_OBJECT for PMIX_REGEX (see above). */
pmix_data_type_t px_type_in_value(pmix_data_type_t t);

/* The text of a PMIX_REGEX value: its bytes when they are exactly one NUL-terminated
 * string (as PMIx_Value_load stores it), else NULL (another type, or other bytes). */
const char *px_value_regex_text(const pmix_value_t *v);

/* Helpers the struct families share (also used by other areas). */
/* Deep copy of n infos into a new array (NULL when n is 0), freed with
 * px_bfrops_info_array_free. */
pmix_status_t px_info_array_dup(const pmix_info_t *src, size_t n, pmix_info_t **dest);
/* The processes a value names: one PMIX_PROC, or a PMIX_DATA_ARRAY of them (borrowed from
 * v, *n set); NULL (and *n 0) for anything else. */
const pmix_proc_t *px_value_procs(const pmix_value_t *v, size_t *n);

/* strdup that maps NULL to NULL; returns false on allocation failure of a non-NULL src. */
bool px_types_strdup(char **dest, const char *src);
/* Deep copy / free of a NULL-terminated argv (NULL src gives *dest NULL). */
pmix_status_t px_types_argv_copy(char ***dest, char *const *src);
void px_types_argv_free(char **argv);

#endif /* PX_TYPES_H */
