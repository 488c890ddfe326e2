/*
 * pxc_common.h - helpers shared by the test clients (test/clients/pxc_*.c): failure
 * reporting, the job layout pxhost uses, waiting for callbacks, a data exchange.
 * Each client is single-threaded apart from the library's callbacks.
 */
#ifndef PXC_COMMON_H
#define PXC_COMMON_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <pmix.h>

/* Set by the program: its name, and its rank once known (-1 before). */
extern const char *pxc_name;
extern int pxc_rank;

/* Print "NAME: rank R: message" on stderr and exit 1. */
void pxc_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Print "NAME: rank R: message" on stderr. */
void pxc_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double pxc_now(void);

/* Block-wise layout of N ranks over K nodes, as pxhost does it. */
int pxc_node_count(int n, int k, int node);
int pxc_node_start(int n, int k, int node);
int pxc_node_of(int n, int k, int rank);

/* A callback counter: pxc_cb_wait waits (bounded) for the first call. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int calls;
    pmix_status_t status;
    pmix_value_t *value; /* Get_nb: copy of the value */
    pmix_pdata_t *pdata; /* Lookup_nb: copy of the data */
    size_t npdata;
} pxc_cb_t;

void pxc_cb_init(pxc_cb_t *cb);
void pxc_cb_op(pmix_status_t status, void *cbdata);   /* pmix_op_cbfunc_t */
void pxc_cb_mark(pxc_cb_t *cb, pmix_status_t status); /* count one call */
/* Wait up to secs for the first call; false on timeout. */
bool pxc_cb_wait(pxc_cb_t *cb, double secs);

/* PMIx_Init, or fail; fills proc and the job size (PMIX_JOB_SIZE). */
void pxc_init(pmix_proc_t *proc, int *size);
/* Get a uint32 job-level value (wildcard rank) or fail. */
uint32_t pxc_get_job_u32(const pmix_proc_t *me, const char *key);

/* Put three keys (local/remote/global), commit, fence over procs (collect data), then
 * check every participant's global key. members: ranks taking part (n of them). */
void pxc_exchange(const pmix_proc_t *me, const int *members, int n);

/* Parse a decimal argument or fail. */
int pxc_parse_int(const char *opt, const char *s);

#endif /* PXC_COMMON_H */
