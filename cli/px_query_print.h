/* cli: printing the answers of PMIx_Query_info for people and scripts (pquery, pattrs).
 * Main thread only; no state.
 */
#ifndef PX_QUERY_PRINT_H
#define PX_QUERY_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include <pmix_common.h>

/* Each result under its key. Readable: nested info arrays indented under their key,
 * process tables as rows (rank, pid, node, state, executable), attribute lists one per
 * line (name, key, type), comma lists one item per line. parsable: one line per leaf,
 * "path:value", the path being the keys from the top joined with ":" (array elements
 * numbered), e.g. "pmix.qry.ptable:0:rank=0:pid=123:...". */
void px_qprint_results(FILE *f, const pmix_info_t *res, size_t n, bool parsable);

/* A process state without its prefix: "RUNNING" rather than "PMIX_PROC_STATE_RUNNING". */
const char *px_qprint_state(pmix_proc_state_t st);

#endif /* PX_QUERY_PRINT_H */
