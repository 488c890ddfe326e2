/* test/fuzz: the server the fuzz targets of the server side share (fuzz_server,
 * fuzz_pmi): PMIx_server_init on the target's own event base (PMIX_EVENT_BASE, so the
 * fuzzer's thread runs its loop) with an empty host module, namespace "fz" of two ranks
 * on this node, rank 1 registered. */
#ifndef FUZZ_HOST_H
#define FUZZ_HOST_H

#include <event2/event.h>
#include <pmix_server.h>

extern struct event_base *base;
extern pmix_proc_t rank0, rank1; /* fz:0 (registered per input by the target), fz:1 */

/* An op callback storing its status in *cbdata. */
void op_done(pmix_status_t status, void *cbdata);
/* Run the loop until *flag leaves PMIX_ERR_TIMEOUT. */
void run_until(const pmix_status_t *flag);
/* Start the server and register "fz" (once per process; it stays up). */
void start_server(void);

#endif /* FUZZ_HOST_H */
