/* pmix_demo (examples/; was the first pmix_info) - demonstrate the library's
 * foundation: node/ppn regular expressions, pack/unpack, info lists. Not installed.
 * Single-threaded command-line program. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "help/px_help.h"

static const char px_info_demo_hosts[] =
    "odin009.org,odin010.org,odin011.org,odin012.org,odin[102-107].org";
static const char px_info_demo_ppn[] = "1-4;2-5;8,10,11,12;6,7,9";

static int px_info_regex(const char *prog, const char *hosts)
{
    char *regex = NULL;
    pmix_status_t rc = PMIx_generate_regex(hosts, &regex);
    if (PMIX_SUCCESS != rc) {
        px_show_help("help-pmix-info.txt", "bad-host-list", prog, hosts, PMIx_Error_string(rc));
        return -1;
    }
    printf("node regex:  %s\n          => %s\n", hosts, regex);
    free(regex);
    return 0;
}

static int px_info_ppn(const char *prog, const char *ranks)
{
    char *ppn = NULL;
    pmix_status_t rc = PMIx_generate_ppn(ranks, &ppn);
    if (PMIX_SUCCESS != rc) {
        px_show_help("help-pmix-info.txt", "bad-ppn-list", prog, ranks, PMIx_Error_string(rc));
        return -1;
    }
    printf("ppn regex:   %s\n          => %s\n", ranks, ppn);
    free(ppn);
    return 0;
}

/* Pack an info array built with an info list, unpack it and compare. */
static int px_info_pack_demo(void)
{
    int ret = -1;
    void *list = PMIx_Info_list_start();
    pmix_data_array_t darray = {0};
    pmix_data_buffer_t buf;
    pmix_info_t *out = NULL;
    int32_t n = 0;
    uint32_t jobsize = 4;
    pmix_status_t rc;

    PMIx_Data_buffer_construct(&buf);
    if (NULL == list) {
        goto out;
    }
    PMIx_Info_list_add(list, PMIX_JOB_SIZE, &jobsize, PMIX_UINT32);
    PMIx_Info_list_add(list, PMIX_PSET_NAME, "ocean", PMIX_STRING);
    PMIx_Info_list_add(list, PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
    rc = PMIx_Info_list_convert(list, &darray);
    if (PMIX_SUCCESS != rc) {
        printf("pack demo:   info list convert failed: %s\n", PMIx_Error_string(rc));
        goto out;
    }
    n = (int32_t)darray.size;
    rc = PMIx_Data_pack(NULL, &buf, &n, 1, PMIX_INT32);
    if (PMIX_SUCCESS == rc) {
        rc = PMIx_Data_pack(NULL, &buf, darray.array, n, PMIX_INFO);
    }
    if (PMIX_SUCCESS != rc) {
        printf("pack demo:   pack failed: %s\n", PMIx_Error_string(rc));
        goto out;
    }
    size_t packed = buf.bytes_used;
    int32_t cnt = 1;
    n = 0;
    rc = PMIx_Data_unpack(NULL, &buf, &n, &cnt, PMIX_INT32);
    if (PMIX_SUCCESS == rc && n > 0 && (size_t)n == darray.size) {
        PMIX_INFO_CREATE(out, (size_t)n);
        cnt = n;
        rc = PMIx_Data_unpack(NULL, &buf, out, &cnt, PMIX_INFO);
    } else if (PMIX_SUCCESS == rc) {
        rc = PMIX_ERR_UNPACK_FAILURE;
    }
    if (PMIX_SUCCESS != rc) {
        printf("pack demo:   unpack failed: %s\n", PMIx_Error_string(rc));
        goto out;
    }
    printf("pack demo:   %d infos packed into %zu bytes and unpacked:\n", n, packed);
    for (int32_t i = 0; i < n; i++) {
        pmix_info_t *src = &((pmix_info_t *)darray.array)[i];
        char *text = PMIx_Info_string(&out[i]);
        bool same = 0 == strcmp(src->key, out[i].key) &&
                    PMIX_EQUAL == PMIx_Value_compare(&src->value, &out[i].value);
        printf("             %s  [%s]\n", text ? text : "(unprintable)",
               same ? "identical" : "DIFFERENT");
        free(text);
        if (!same) {
            goto out;
        }
    }
    ret = 0;
out:
    if (NULL != out) {
        PMIX_INFO_FREE(out, (size_t)n);
    }
    PMIx_Data_array_destruct(&darray);
    PMIx_Data_buffer_destruct(&buf);
    if (NULL != list) {
        PMIx_Info_list_release(list);
    }
    return ret;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {"regex", required_argument, NULL, 'r'},
        {"ppn", required_argument, NULL, 'p'},
        {NULL, 0, NULL, 0},
    };
    const char *prog = "pmix_demo";
    const char *hosts = NULL;
    const char *ranks = NULL;
    int c;

    opterr = 0; /* our own messages, from the help catalog */
    while (-1 != (c = getopt_long(argc, argv, ":hVr:p:", opts, NULL))) {
        switch (c) {
        case 'h':
            px_help_fshow(stdout, "help-pmix-info.txt", "usage", prog);
            return 0;
        case 'V':
            printf("%s %s\n", prog, PMIx_Get_version());
            return 0;
        case 'r':
            hosts = optarg;
            break;
        case 'p':
            ranks = optarg;
            break;
        case ':':
            px_show_help("help-pmix-info.txt", "missing-argument", prog, argv[optind - 1], prog);
            return 1;
        default:
            px_show_help("help-pmix-info.txt", "unknown-option", prog, argv[optind - 1], prog);
            return 1;
        }
    }
    if (optind < argc) {
        px_show_help("help-pmix-info.txt", "unexpected-argument", prog, argv[optind], prog);
        return 1;
    }

    if (NULL != hosts || NULL != ranks) {
        int rc = 0;
        if (NULL != hosts && 0 != px_info_regex(prog, hosts)) {
            rc = 1;
        }
        if (NULL != ranks && 0 != px_info_ppn(prog, ranks)) {
            rc = 1;
        }
        return rc;
    }

    printf("PMIx library: %s\n", PMIx_Get_version());
    if (0 != px_info_regex(prog, px_info_demo_hosts) || 0 != px_info_ppn(prog, px_info_demo_ppn) ||
        0 != px_info_pack_demo()) {
        return 1;
    }
    return 0;
}
