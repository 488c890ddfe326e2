/* libFuzzer target: arbitrary bytes as a JOBINFO reply body, unpacked by the client's
 * px_ns_unpack into a fresh namespace (then located, as PMIx_Init does) and released.
 * Any crash, sanitizer report, leak or allocation beyond -malloc_limit_mb is a bug in
 * the namespace decoder or the count checks it relies on. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "store/px_store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    px_store_t st;
    pmix_data_buffer_t b;
    char *copy = malloc(size ? size : 1);

    if (size)
        memcpy(copy, data, size);
    px_bfrops_buf_init(&b);
    px_bfrops_buf_adopt(&b, copy, size);
    px_store_init(&st, "n1");
    px_nspace_t *ns = px_store_add(&st, "fz");
    if (ns != NULL && px_ns_unpack(&b, ns) == PMIX_SUCCESS)
        px_ns_locate(&st, ns);
    px_store_fini(&st);
    px_bfrops_buf_free(&b);
    return 0;
}
