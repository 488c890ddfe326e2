/* Internal helpers over the public PMIx_Info_list_* (util/info_list.c) for hosts that
 * build registration data as nested lists: the launcher's LAUNCH job data and the node
 * agent's registration. Plain functions on caller-owned lists: any thread. */
#ifndef PX_INFO_LIST_H
#define PX_INFO_LIST_H

#include <stdint.h>

#include "pmix_common.h"

/* Add key as a PMIX_UINT32 holding v. */
pmix_status_t px_ilist_add_u32(void *list, const char *key, uint32_t v);

/* Move the list inner into outer as one key holding a PMIX_INFO data array. inner is
 * released in every case. */
pmix_status_t px_ilist_add_array(void *outer, const char *key, void *inner);

#endif /* PX_INFO_LIST_H */
