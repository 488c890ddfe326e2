/* types: the registry - one row per pmix_data_type_t with every operation on one element
 * of it (px_type_ops.h). Adding a type means adding its row here (and its operations
 * where its concept lives). Constant data; any thread. */
#include <stdint.h>
#include <sys/time.h>

#include "types/px_type_ops.h"
#include "types/px_types_int.h"

/* A plain scalar: byte copy, numeric compare, integer encoding, a printer. */
#define PX_SCALAR(T, ctype, nk, w, pr, isnum)                                                      \
    [T] = {.type = (T),                                                                            \
           .size = sizeof(ctype),                                                                  \
           .vs = PX_VS_INLINE,                                                                     \
           .num = (nk),                                                                            \
           .number = (isnum),                                                                      \
           .wire = (w),                                                                            \
           .min_wire = (w),                                                                        \
           .cmp = px_types_cmp_num,                                                                \
           .pack = px_bfrops_enc_int,                                                              \
           .unpack = px_bfrops_dec_int,                                                            \
           .print = (pr)}
#define PX_SINT(T, ctype, w, pr, isnum) PX_SCALAR(T, ctype, PX_NUM_SINT, w, pr, isnum)
#define PX_UINT(T, ctype, w, pr, isnum) PX_SCALAR(T, ctype, PX_NUM_UINT, w, pr, isnum)

/* A structure whose operations all carry the same family name n (copy, release,
 * compare, footprint in types/, encoding in bfrops/, text in util/print.c). */
#define PX_STRUCT(T, ctype, vsv, mw, n)                                                            \
    [T] = {.type = (T),                                                                            \
           .size = sizeof(ctype),                                                                  \
           .vs = (vsv),                                                                            \
           .min_wire = (mw),                                                                       \
           .copy = px_types_copy_##n,                                                              \
           .release = px_types_release_##n,                                                        \
           .cmp = px_types_cmp_##n,                                                                \
           .owned = px_types_owned_##n,                                                            \
           .pack = px_bfrops_enc_##n,                                                              \
           .unpack = px_bfrops_dec_##n,                                                            \
           .print = px_print_##n}

#define PX_BO(T)                                                                                   \
    [T] = {.type = (T),                                                                            \
           .size = sizeof(pmix_byte_object_t),                                                     \
           .vs = PX_VS_INLINE,                                                                     \
           .min_wire = 4,                                                                          \
           .copy = px_types_copy_bo,                                                               \
           .release = px_types_release_bo,                                                         \
           .cmp = px_types_cmp_bo,                                                                 \
           .owned = px_types_owned_bo,                                                             \
           .pack = px_bfrops_enc_bo,                                                               \
           .unpack = px_bfrops_dec_bo,                                                             \
           .print = px_print_bo,                                                                   \
           .vunload = px_value_unload_bo}

#define PX_TYPE_TABLE_LEN (PMIX_ALLOC_INHERIT + 1)

static const struct px_type_ops px_type_table[PX_TYPE_TABLE_LEN] = {
    [PMIX_BOOL] = {.type = PMIX_BOOL,
                   .size = sizeof(bool),
                   .vs = PX_VS_INLINE,
                   .num = PX_NUM_BOOL,
                   .wire = 1,
                   .min_wire = 1,
                   .cmp = px_types_cmp_num,
                   .pack = px_bfrops_enc_bool,
                   .unpack = px_bfrops_dec_bool,
                   .print = px_print_bool},
    PX_UINT(PMIX_BYTE, uint8_t, 1, px_print_byte, false),
    [PMIX_STRING] = {.type = PMIX_STRING,
                     .size = sizeof(char *),
                     .vs = PX_VS_INLINE,
                     .min_wire = 4,
                     .copy = px_types_copy_string,
                     .release = px_types_release_string,
                     .cmp = px_types_cmp_string,
                     .owned = px_types_owned_string,
                     .pack = px_bfrops_enc_string,
                     .unpack = px_bfrops_dec_string,
                     .print = px_print_string,
                     .vload = px_value_load_string,
                     .vunload = px_value_unload_string},
    PX_UINT(PMIX_SIZE, size_t, 8, px_print_uint, true),
    PX_SINT(PMIX_PID, pid_t, 4, px_print_sint, true),
    PX_SINT(PMIX_INT, int, 4, px_print_sint, true),
    PX_SINT(PMIX_INT8, int8_t, 1, px_print_sint, true),
    PX_SINT(PMIX_INT16, int16_t, 2, px_print_sint, true),
    PX_SINT(PMIX_INT32, int32_t, 4, px_print_sint, true),
    PX_SINT(PMIX_INT64, int64_t, 8, px_print_sint, true),
    PX_UINT(PMIX_UINT, unsigned int, 4, px_print_uint, true),
    PX_UINT(PMIX_UINT8, uint8_t, 1, px_print_uint, true),
    PX_UINT(PMIX_UINT16, uint16_t, 2, px_print_uint, true),
    PX_UINT(PMIX_UINT32, uint32_t, 4, px_print_uint, true),
    PX_UINT(PMIX_UINT64, uint64_t, 8, px_print_uint, true),
    [PMIX_FLOAT] = {.type = PMIX_FLOAT,
                    .size = sizeof(float),
                    .vs = PX_VS_INLINE,
                    .num = PX_NUM_FLT,
                    .number = true,
                    .wire = 4,
                    .min_wire = 4,
                    .cmp = px_types_cmp_num,
                    .pack = px_bfrops_enc_float,
                    .unpack = px_bfrops_dec_float,
                    .print = px_print_flt},
    [PMIX_DOUBLE] = {.type = PMIX_DOUBLE,
                     .size = sizeof(double),
                     .vs = PX_VS_INLINE,
                     .num = PX_NUM_FLT,
                     .number = true,
                     .wire = 8,
                     .min_wire = 8,
                     .cmp = px_types_cmp_num,
                     .pack = px_bfrops_enc_double,
                     .unpack = px_bfrops_dec_double,
                     .print = px_print_flt},
    [PMIX_TIMEVAL] = {.type = PMIX_TIMEVAL,
                      .size = sizeof(struct timeval),
                      .vs = PX_VS_INLINE,
                      .min_wire = 16,
                      .cmp = px_types_cmp_timeval,
                      .pack = px_bfrops_enc_timeval,
                      .unpack = px_bfrops_dec_timeval,
                      .print = px_print_timeval},
    PX_SINT(PMIX_TIME, time_t, 8, px_print_sint, false),
    PX_SINT(PMIX_STATUS, pmix_status_t, 4, px_print_status, false),
    PX_STRUCT(PMIX_VALUE, pmix_value_t, PX_VS_NONE, 2, value),
    [PMIX_PROC] = {.type = PMIX_PROC,
                   .size = sizeof(pmix_proc_t),
                   .vs = PX_VS_BOXED,
                   .min_wire = 8,
                   .init = px_types_init_proc,
                   .cmp = px_types_cmp_proc,
                   .pack = px_bfrops_enc_proc,
                   .unpack = px_bfrops_dec_proc,
                   .print = px_print_proc},
    PX_STRUCT(PMIX_APP, pmix_app_t, PX_VS_NONE, 24, app),
    PX_STRUCT(PMIX_INFO, pmix_info_t, PX_VS_NONE, 10, info),
    [PMIX_PDATA] = {.type = PMIX_PDATA,
                    .size = sizeof(pmix_pdata_t),
                    .vs = PX_VS_NONE,
                    .min_wire = 14,
                    .init = px_types_init_pdata,
                    .copy = px_types_copy_pdata,
                    .release = px_types_release_pdata,
                    .cmp = px_types_cmp_pdata,
                    .owned = px_types_owned_pdata,
                    .pack = px_bfrops_enc_pdata,
                    .unpack = px_bfrops_dec_pdata,
                    .print = px_print_pdata},
    /* PMIX_BUFFER (gone from the Standard since v4.1) is a pmix_data_buffer_t */
    PX_STRUCT(PMIX_BUFFER, pmix_data_buffer_t, PX_VS_NONE, 4, dbuf),
    PX_BO(PMIX_BYTE_OBJECT),
    /* PMIX_KVAL: stored as a pmix_info_t (px_types.h) */
    PX_STRUCT(PMIX_KVAL, pmix_info_t, PX_VS_NONE, 10, info),
    PX_UINT(PMIX_PERSIST, pmix_persistence_t, 1, px_print_persist, false),
    [PMIX_POINTER] = {.type = PMIX_POINTER,
                      .size = sizeof(void *),
                      .vs = PX_VS_INLINE,
                      .wire = 8,
                      .min_wire = 8,
                      .cmp = px_types_cmp_pointer,
                      .pack = px_bfrops_enc_int,
                      .unpack = px_bfrops_dec_int,
                      .print = px_print_pointer,
                      .vload = px_value_load_pointer,
                      .vunload = px_value_unload_pointer},
    PX_UINT(PMIX_SCOPE, pmix_scope_t, 1, px_print_scope, false),
    PX_UINT(PMIX_DATA_RANGE, pmix_data_range_t, 1, px_print_range, false),
    PX_UINT(PMIX_COMMAND, uint8_t, 1, px_print_uint, false),
    PX_UINT(PMIX_INFO_DIRECTIVES, pmix_info_directives_t, 4, px_print_infodir, false),
    PX_UINT(PMIX_DATA_TYPE, pmix_data_type_t, 2, px_print_dtype, false),
    PX_UINT(PMIX_PROC_STATE, pmix_proc_state_t, 1, px_print_pstate, false),
    [PMIX_PROC_INFO] = {.type = PMIX_PROC_INFO,
                        .size = sizeof(pmix_proc_info_t),
                        .vs = PX_VS_BOXED,
                        .min_wire = 25,
                        .init = px_types_init_pinfo,
                        .copy = px_types_copy_pinfo,
                        .release = px_types_release_pinfo,
                        .cmp = px_types_cmp_pinfo,
                        .owned = px_types_owned_pinfo,
                        .pack = px_bfrops_enc_pinfo,
                        .unpack = px_bfrops_dec_pinfo,
                        .print = px_print_pinfo},
    PX_STRUCT(PMIX_DATA_ARRAY, pmix_data_array_t, PX_VS_BOXED, 6, darray),
    PX_UINT(PMIX_PROC_RANK, pmix_rank_t, 4, px_print_rank, true),
    PX_STRUCT(PMIX_QUERY, pmix_query_t, PX_VS_NONE, 8, query),
    PX_BO(PMIX_COMPRESSED_STRING),
    PX_UINT(PMIX_ALLOC_DIRECTIVE, pmix_alloc_directive_t, 1, px_print_allocdir, false),
    PX_UINT(PMIX_IOF_CHANNEL, pmix_iof_channel_t, 2, px_print_iof, false),
    [PMIX_ENVAR] = {.type = PMIX_ENVAR,
                    .size = sizeof(pmix_envar_t),
                    .vs = PX_VS_INLINE,
                    .min_wire = 9,
                    .copy = px_types_copy_envar,
                    .release = px_types_release_envar,
                    .cmp = px_types_cmp_envar,
                    .owned = px_types_owned_envar,
                    .pack = px_bfrops_enc_envar,
                    .unpack = px_bfrops_dec_envar,
                    .print = px_print_envar,
                    .vunload = px_value_unload_envar},
    PX_STRUCT(PMIX_COORD, pmix_coord_t, PX_VS_BOXED, 5, coord),
    PX_STRUCT(PMIX_REGATTR, pmix_regattr_t, PX_VS_NONE, 14, regattr),
    /* PMIX_REGEX: a string as an element, a byte object inside a value (px_types.h) */
    [PMIX_REGEX] = {.type = PMIX_REGEX,
                    .size = sizeof(char *),
                    .vs = PX_VS_INLINE,
                    .min_wire = 4,
                    .copy = px_types_copy_string,
                    .release = px_types_release_string,
                    .cmp = px_types_cmp_string,
                    .owned = px_types_owned_string,
                    .pack = px_bfrops_enc_regex,
                    .unpack = px_bfrops_dec_regex,
                    .print = px_print_string,
                    .vload = px_value_load_regex,
                    .vunload = px_value_unload_bo},
    PX_UINT(PMIX_JOB_STATE, pmix_job_state_t, 1, px_print_jstate, false),
    PX_UINT(PMIX_LINK_STATE, pmix_link_state_t, 1, px_print_lstate, false),
    /* cpuset/topology: backed by hwloc (px_hwtypes.h) */
    PX_STRUCT(PMIX_PROC_CPUSET, pmix_cpuset_t, PX_VS_BOXED, 8, cpuset),
    PX_STRUCT(PMIX_GEOMETRY, pmix_geometry_t, PX_VS_BOXED, 20, geometry),
    [PMIX_DEVICE_DIST] = {.type = PMIX_DEVICE_DIST,
                          .size = sizeof(pmix_device_distance_t),
                          .vs = PX_VS_BOXED,
                          .min_wire = 20,
                          .init = px_types_init_devdist,
                          .copy = px_types_copy_devdist,
                          .release = px_types_release_devdist,
                          .cmp = px_types_cmp_devdist,
                          .owned = px_types_owned_devdist,
                          .pack = px_bfrops_enc_devdist,
                          .unpack = px_bfrops_dec_devdist,
                          .print = px_print_devdist},
    PX_STRUCT(PMIX_ENDPOINT, pmix_endpoint_t, PX_VS_BOXED, 12, endpoint),
    PX_STRUCT(PMIX_TOPO, pmix_topology_t, PX_VS_BOXED, 8, topo),
    PX_UINT(PMIX_DEVTYPE, pmix_device_type_t, 8, px_print_devtype, false),
    PX_UINT(PMIX_LOCTYPE, pmix_locality_t, 2, px_print_loctype, false),
    PX_BO(PMIX_COMPRESSED_BYTE_OBJECT),
    [PMIX_PROC_NSPACE] = {.type = PMIX_PROC_NSPACE,
                          .size = sizeof(pmix_nspace_t),
                          .vs = PX_VS_BOXED,
                          .min_wire = 4,
                          .copy = px_types_copy_nspace,
                          .cmp = px_types_cmp_nspace,
                          .pack = px_bfrops_enc_nspace,
                          .unpack = px_bfrops_dec_nspace,
                          .print = px_print_nspace,
                          .vload = px_value_load_nspace},
    [PMIX_PROC_STATS] = {.type = PMIX_PROC_STATS,
                         .size = sizeof(pmix_proc_stats_t),
                         .vs = PX_VS_BOXED,
                         .min_wire = 81,
                         .init = px_types_init_pstats,
                         .copy = px_types_copy_pstats,
                         .release = px_types_release_pstats,
                         .cmp = px_types_cmp_pstats,
                         .owned = px_types_owned_pstats,
                         .pack = px_bfrops_enc_pstats,
                         .unpack = px_bfrops_dec_pstats,
                         .print = px_print_pstats},
    PX_STRUCT(PMIX_DISK_STATS, pmix_disk_stats_t, PX_VS_BOXED, 92, dkstats),
    PX_STRUCT(PMIX_NET_STATS, pmix_net_stats_t, PX_VS_BOXED, 52, netstats),
    PX_STRUCT(PMIX_NODE_STATS, pmix_node_stats_t, PX_VS_BOXED, 72, ndstats),
    PX_STRUCT(PMIX_DATA_BUFFER, pmix_data_buffer_t, PX_VS_BOXED, 4, dbuf),
    PX_UINT(PMIX_STOR_MEDIUM, pmix_storage_medium_t, 8, px_print_stormed, false),
    PX_UINT(PMIX_STOR_ACCESS, pmix_storage_accessibility_t, 8, px_print_storacc, false),
    PX_UINT(PMIX_STOR_PERSIST, pmix_storage_persistence_t, 8, px_print_storpers, false),
    PX_UINT(PMIX_STOR_ACCESS_TYPE, pmix_storage_access_type_t, 2, px_print_storacctype, false),
    PX_STRUCT(PMIX_DEVICE, pmix_device_t, PX_VS_BOXED, 16, device),
    PX_UINT(PMIX_RESBLOCK_DIRECTIVE, pmix_resource_block_directive_t, 1, px_print_resblock, false),
    [PMIX_RESOURCE_UNIT] = {.type = PMIX_RESOURCE_UNIT,
                            .size = sizeof(pmix_resource_unit_t),
                            .vs = PX_VS_BOXED,
                            .min_wire = 16,
                            .cmp = px_types_cmp_resunit,
                            .pack = px_bfrops_enc_resunit,
                            .unpack = px_bfrops_dec_resunit,
                            .print = px_print_resunit},
    [PMIX_NODE_PID] = {.type = PMIX_NODE_PID,
                       .size = sizeof(pmix_node_pid_t),
                       .vs = PX_VS_BOXED,
                       .min_wire = 12,
                       .init = px_types_init_nodepid,
                       .copy = px_types_copy_nodepid,
                       .release = px_types_release_nodepid,
                       .cmp = px_types_cmp_nodepid,
                       .owned = px_types_owned_nodepid,
                       .pack = px_bfrops_enc_nodepid,
                       .unpack = px_bfrops_dec_nodepid,
                       .print = px_print_nodepid},
    PX_STRUCT(PMIX_REGEX2, pmix_regex2_t, PX_VS_BOXED, 8, regex2),
    PX_UINT(PMIX_ALLOC_INHERIT, pmix_alloc_inheritance_t, 1, px_print_inherit, false),
};

const struct px_type_ops *px_type_ops(pmix_data_type_t t)
{
    if (t >= PX_TYPE_TABLE_LEN || 0 == px_type_table[t].size) {
        return NULL;
    }
    return &px_type_table[t];
}
