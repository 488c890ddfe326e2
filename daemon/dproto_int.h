/* daemon: field helpers shared by the protocol's codec files (dproto.c, dproto_msgs.c).
 * Internal to them; pure bfrops code.
 */
#ifndef PX_DPROTO_INT_H
#define PX_DPROTO_INT_H

#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

#include "daemon/px_dproto.h"

pmix_status_t px_dpi_pack_str(pmix_data_buffer_t *buf, const char *s);
pmix_status_t px_dpi_pack_u32(pmix_data_buffer_t *buf, uint32_t v);
/* One string item that may be NULL. */
pmix_status_t px_dpi_unpack_str_opt(pmix_data_buffer_t *buf, char **out);
/* One string item, bounded: NULL, empty or longer than max is malformed. */
pmix_status_t px_dpi_unpack_str(pmix_data_buffer_t *buf, size_t max, char **out);
pmix_status_t px_dpi_unpack_u32(pmix_data_buffer_t *buf, uint32_t *v);
pmix_status_t px_dpi_unpack_u16(pmix_data_buffer_t *buf, uint16_t *v);
pmix_status_t px_dpi_unpack_u8(pmix_data_buffer_t *buf, uint8_t *v);
pmix_status_t px_dpi_pack_u8(pmix_data_buffer_t *buf, uint8_t v);
pmix_status_t px_dpi_pack_i32(pmix_data_buffer_t *buf, int32_t v);
/* A whole PROC item of one, with a non-empty namespace. */
pmix_status_t px_dpi_unpack_proc(pmix_data_buffer_t *buf, pmix_proc_t *p);
pmix_status_t px_dpi_pack_nspace(pmix_data_buffer_t *buf, const char *ns);
/* A namespace, non-empty. */
pmix_status_t px_dpi_unpack_nspace(pmix_data_buffer_t *buf, pmix_nspace_t ns);
/* UINT32 n then one PROC item of exactly n (none when n is 0); at most max. *procs
 * malloc'd (NULL when n is 0); nothing held on error. */
pmix_status_t px_dpi_pack_procs(pmix_data_buffer_t *buf, const pmix_proc_t *procs, size_t n);
pmix_status_t px_dpi_unpack_procs(pmix_data_buffer_t *buf, size_t max, pmix_proc_t **procs,
                                  size_t *n);

/* UINT32 napps (1..PX_DP_APPS_MAX) then one APP item of exactly napps. *apps is
 * PMIx_App_create'd (the caller frees it, also on error: *napps says how many). */
pmix_status_t px_dpi_unpack_apps(pmix_data_buffer_t *buf, pmix_app_t **apps, size_t *napps);

/* The decoder of the controller -> daemon messages of dproto_msgs.c (STDIN, IOF_FLOW,
 * FENCE_REL, DMODEX_REQ, EVENT), then of dproto_grp.c (PSET) into m;
 * PMIX_ERR_NOT_SUPPORTED for another tag. */
pmix_status_t px_dpi_ctl_decode_more(uint32_t tag, pmix_data_buffer_t *payload, px_dp_ctl_msg_t *m);
pmix_status_t px_dpi_ctl_decode_grp(uint32_t tag, pmix_data_buffer_t *payload, px_dp_ctl_msg_t *m);
/* The same for the daemon -> controller messages of dproto_grp.c (GROUP_UP, PROC_SPAWN,
 * REPORT). */
pmix_status_t px_dpi_dmn_decode_grp(uint32_t tag, pmix_data_buffer_t *payload, px_dp_dmn_msg_t *m);
/* The tree's messages (dproto_tree.c): TREE, XCAST; ADDR, TREE_UP. */
pmix_status_t px_dpi_ctl_decode_tree(uint32_t tag, pmix_data_buffer_t *payload, px_dp_ctl_msg_t *m);
pmix_status_t px_dpi_dmn_decode_tree(uint32_t tag, pmix_data_buffer_t *payload, px_dp_dmn_msg_t *m);
#endif /* PX_DPROTO_INT_H */
