/* libFuzzer target: arbitrary bytes loaded into a pmix_data_buffer_t and unpacked with
 * every data type (and with the type each item claims), plus PMIx_Data_decompress.
 * Any crash, sanitizer report or leak is a bug in libpmix-core/bfrops. */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/bfrops_int.h"
#include "bfrops/px_bfrops.h"
#include "types/px_types.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool packable(pmix_data_type_t t)
{
    return px_type_known(t) && px_bfrops_tinfo(t).kind != PX_BFROPS_K_UNKNOWN;
}

static void load(pmix_data_buffer_t *b, const uint8_t *data, size_t size)
{
    char *copy = malloc(size ? size : 1);

    if (size)
        memcpy(copy, data, size);
    PMIx_Data_buffer_construct(b);
    PMIx_Data_buffer_load(b, copy, size);
}

/* Unpack items of type t (or of their own type when t is PMIX_UNDEF) until an error,
 * releasing whatever was unpacked; max alternates to exercise partial unpacks. */
static void drain(pmix_data_buffer_t *b, pmix_data_type_t want)
{
    for (int round = 0; round < 64 && px_bfrops_buf_remaining(b) > 0; round++) {
        pmix_data_type_t t = want;
        int32_t cnt = 1, n;
        size_t es;
        char *dest;
        pmix_status_t rc;

        if (t == PMIX_UNDEF && (px_bfrops_peek(b, &t, &cnt) != PMIX_SUCCESS || !packable(t)))
            return;
        es = px_type_size(t);
        n = (round & 1) ? 1 : (cnt < 4 ? cnt : 4);
        dest = calloc(4, es);
        rc = PMIx_Data_unpack(NULL, b, dest, &n, t);
        if (rc == PMIX_SUCCESS || rc == PMIX_ERR_UNPACK_INADEQUATE_SPACE) {
            if (round == 0 && n > 0) {
                /* what we accepted must pack again and copy */
                pmix_data_buffer_t again;
                void *copy = NULL;
                PMIx_Data_buffer_construct(&again);
                if (t != PMIX_POINTER)
                    (void)PMIx_Data_pack(NULL, &again, dest, n, t);
                PMIx_Data_buffer_destruct(&again);
                /* strings and regexes are passed and copied as the char * itself */
                bool str = t == PMIX_STRING || t == PMIX_REGEX;
                char *text = NULL;
                if (PMIx_Data_print(&text, "> ", str ? *(char **)dest : dest, t) == PMIX_SUCCESS)
                    free(text);
                if (str) {
                    if (*(char **)dest != NULL &&
                        PMIx_Data_copy(&copy, *(char **)dest, t) == PMIX_SUCCESS)
                        free(copy);
                } else if (PMIx_Data_copy(&copy, dest, t) == PMIX_SUCCESS) {
                    px_type_destruct(copy, t);
                    free(copy);
                }
            }
            for (int32_t i = 0; i < n; i++)
                px_type_destruct(dest + (size_t)i * es, t);
        }
        free(dest);
        if (rc != PMIX_SUCCESS && rc != PMIX_ERR_UNPACK_INADEQUATE_SPACE)
            return;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pmix_data_buffer_t b;
    uint8_t *out = NULL;
    size_t outn = 0;

    /* items as they claim to be */
    load(&b, data, size);
    drain(&b, PMIX_UNDEF);
    PMIx_Data_buffer_destruct(&b);

    /* every type against the same bytes, with the tag forced to match */
    if (size >= 2) {
        uint8_t *forced = malloc(size);
        memcpy(forced, data, size);
        for (pmix_data_type_t t = 1; t <= PMIX_ALLOC_INHERIT; t++) {
            if (!packable(t))
                continue;
            forced[0] = (uint8_t)(t >> 8);
            forced[1] = (uint8_t)t;
            load(&b, forced, size);
            drain(&b, t);
            PMIx_Data_buffer_destruct(&b);
        }
        free(forced);
    }

    if (PMIx_Data_decompress(data, size, &out, &outn))
        free(out);
    return 0;
}
