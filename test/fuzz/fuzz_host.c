/* test/fuzz: the server shared by the server-side fuzz targets (fuzz_host.h). */
#include <event2/event.h>
#include <event2/thread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix_server.h>

#include "fuzz_host.h"

struct event_base *base;
pmix_proc_t rank0, rank1;

void op_done(pmix_status_t status, void *cbdata)
{
    *(pmix_status_t *)cbdata = status;
}

/* Run the loop until *flag leaves PMIX_ERR_TIMEOUT. */
void run_until(const pmix_status_t *flag)
{
    while (*flag == PMIX_ERR_TIMEOUT)
        event_base_loop(base, EVLOOP_ONCE);
}

void start_server(void)
{
    static char dir[] = "/tmp/pxfuzz.XXXXXX";
    pmix_info_t info[3];
    pmix_server_module_t module;
    char host[256] = "localhost", *nodes = NULL, *ppn = NULL;
    uint32_t two = 2;
    pmix_status_t done = PMIX_ERR_TIMEOUT;

    evthread_use_pthreads();
    base = event_base_new();
    if (base == NULL || mkdtemp(dir) == NULL)
        abort();
    PMIx_Info_load(&info[0], PMIX_EVENT_BASE, base, PMIX_POINTER);
    PMIx_Info_load(&info[1], PMIX_SERVER_TMPDIR, dir, PMIX_STRING);
    PMIx_Info_load(&info[2], PMIX_SYSTEM_TMPDIR, dir, PMIX_STRING);
    memset(&module, 0, sizeof(module));
    if (PMIx_server_init(&module, info, 3) != PMIX_SUCCESS)
        abort();
    for (int i = 0; i < 3; i++)
        PMIx_Info_destruct(&info[i]);
    gethostname(host, sizeof(host) - 1);
    PMIx_generate_regex(host, &nodes);
    PMIx_generate_ppn("0,1", &ppn);
    pmix_info_t reg[3];
    PMIx_Info_load(&reg[0], PMIX_JOB_SIZE, &two, PMIX_UINT32);
    PMIx_Info_load(&reg[1], PMIX_NODE_MAP, nodes, PMIX_STRING);
    PMIx_Info_load(&reg[2], PMIX_PROC_MAP, ppn, PMIX_STRING);
    if (PMIx_server_register_nspace("fz", 1, reg, 3, op_done, &done) != PMIX_SUCCESS)
        abort();
    run_until(&done);
    PMIx_Load_procid(&rank0, "fz", 0);
    PMIx_Load_procid(&rank1, "fz", 1);
    if (PMIx_server_register_client(&rank1, getuid(), getgid(), NULL, NULL, NULL) != PMIX_SUCCESS)
        abort();
    for (int i = 0; i < 3; i++)
        PMIx_Info_destruct(&reg[i]);
    free(nodes);
    free(ppn);
    /* the server stays up for the process's life (libFuzzer exits without a hook) */
}
