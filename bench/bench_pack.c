/* bench_pack - cost of packing and unpacking job-level data (an array of infos) with
 * PMIx_Data_pack/unpack, as a ratio against copying the same number of bytes with
 * memcpy in the same run. A measurement, not a pass/fail test. Single-threaded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>

static double px_bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    size_t ninfo = 64;
    int iters = argc > 1 ? atoi(argv[1]) : 2000;
    pmix_info_t *info;
    char key[64], val[64];

    if (iters <= 0) {
        fprintf(stderr, "usage: %s [ITERATIONS>0]\n", argv[0]);
        return 1;
    }
    PMIX_INFO_CREATE(info, ninfo);
    for (size_t i = 0; i < ninfo; i++) {
        snprintf(key, sizeof(key), "bench.key.%zu", i);
        if (i % 2) {
            uint32_t u = (uint32_t)i;
            PMIx_Info_load(&info[i], key, &u, PMIX_UINT32);
        } else {
            snprintf(val, sizeof(val), "value-%zu-of-the-job-level-data", i);
            PMIx_Info_load(&info[i], key, val, PMIX_STRING);
        }
    }

    /* measure pack + unpack */
    size_t bytes = 0;
    double t0 = px_bench_now();
    for (int it = 0; it < iters; it++) {
        pmix_data_buffer_t buf;
        pmix_info_t out[64];
        int32_t n = (int32_t)ninfo;
        PMIx_Data_buffer_construct(&buf);
        if (PMIX_SUCCESS != PMIx_Data_pack(NULL, &buf, info, n, PMIX_INFO)) {
            fprintf(stderr, "pack failed\n");
            return 1;
        }
        bytes = buf.bytes_used;
        memset(out, 0, sizeof(out));
        if (PMIX_SUCCESS != PMIx_Data_unpack(NULL, &buf, out, &n, PMIX_INFO)) {
            fprintf(stderr, "unpack failed\n");
            return 1;
        }
        for (int32_t i = 0; i < n; i++) {
            PMIx_Info_destruct(&out[i]);
        }
        PMIx_Data_buffer_destruct(&buf);
    }
    double t_pack = (px_bench_now() - t0) / iters;

    /* baseline: copy the same number of bytes twice (there and back) */
    char *a = calloc(1, bytes), *b = calloc(1, bytes);
    volatile char sink = 0;
    t0 = px_bench_now();
    for (int it = 0; it < iters * 10; it++) {
        memcpy(b, a, bytes);
        memcpy(a, b, bytes);
        sink ^= a[it % bytes];
    }
    double t_copy = (px_bench_now() - t0) / (iters * 10.0);
    (void)sink;

    printf("bench_pack: %zu infos = %zu bytes packed\n", ninfo, bytes);
    printf("  pack+unpack: %.2f us per round trip\n", t_pack * 1e6);
    printf("  memcpy x2 baseline: %.3f us\n", t_copy * 1e6);
    printf("  ratio pack+unpack / memcpy: %.1f\n", t_copy > 0 ? t_pack / t_copy : 0.0);
    free(a);
    free(b);
    PMIX_INFO_FREE(info, ninfo);
    return 0;
}
