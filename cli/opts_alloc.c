/* cli: prun's allocation options as spawn directives: --host (the DVM's nodes this job
 * runs on) as each app's PMIX_HOST, --add-host (hosts the DVM grows by first) as each
 * app's PMIX_ADD_HOST, both "name[:slots],..." as validated by opts_hosts.c. The
 * controller reads them (launcher/job_hosts.c). Single-threaded; at the end of parsing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opts_int.h"

/* "a:2,b" of a host list; NULL when out of memory. */
static char *px_opts_host_list(const px_host_t *h, size_t n)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(h[i].name) + 13;
    char *s = calloc(1, len), *p = s;
    for (size_t i = 0; s != NULL && i < n; i++) {
        p += sprintf(p, "%s%s", i ? "," : "", h[i].name);
        if (h[i].slots > 0)
            p += sprintf(p, ":%d", h[i].slots);
    }
    return s;
}

/* Append key = value to app a's info. 0, or -1 when out of memory. */
static int px_opts_app_info_add(pmix_app_t *a, const char *key, const char *value)
{
    pmix_info_t *info = PMIx_Info_create(a->ninfo + 1);
    if (info == NULL)
        return -1;
    for (size_t i = 0; i < a->ninfo; i++)
        PMIx_Info_xfer(&info[i], &a->info[i]);
    PMIx_Info_load(&info[a->ninfo], key, value, PMIX_STRING);
    if (a->info != NULL)
        PMIx_Info_free(a->info, a->ninfo);
    a->info = info;
    a->ninfo++;
    return 0;
}

int px_opts_alloc_finish(px_cmd_t *cmd)
{
    const struct {
        const char *key;
        const px_host_t *hosts;
        size_t n;
    } lists[2] = {{PMIX_HOST, cmd->hosts, cmd->nhosts},
                  {PMIX_ADD_HOST, cmd->add_hosts, cmd->nadd_hosts}};
    int rc = 0;

    for (size_t k = 0; rc == 0 && k < 2; k++) {
        if (lists[k].n == 0)
            continue;
        char *value = px_opts_host_list(lists[k].hosts, lists[k].n);
        rc = value != NULL ? 0 : -1;
        for (size_t i = 0; rc == 0 && i < cmd->napps; i++)
            rc = px_opts_app_info_add(&cmd->apps[i], lists[k].key, value);
        free(value);
    }
    return rc;
}
