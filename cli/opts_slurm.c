/* cli: a Slurm allocation as the DVM's hosts (issue 15 item 3). Inside an allocation
 * (SLURM_JOB_ID and SLURM_JOB_NODELIST set) and without --host/--hostfile, prte and
 * prterun take the allocation's nodes (the hostlist expression expanded: "n[1-3,7],g01")
 * with the slots Slurm gives each: SLURM_TASKS_PER_NODE ("2(x3),1"), else
 * SLURM_JOB_CPUS_PER_NODE; their daemons are then started through srun
 * (launcher/daemons.c). Single-threaded; at the end of parsing.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opts_int.h"
#include "help/px_help.h"

/* Append name to *list. 0, or -1 when out of memory. */
static int px_slurm_push(char ***list, size_t *n, const char *name)
{
    char **l = realloc(*list, (*n + 2) * sizeof(*l));
    if (l == NULL)
        return -1;
    *list = l;
    if ((l[*n] = strdup(name)) == NULL)
        return -1;
    l[++*n] = NULL;
    return 0;
}

/* One "prefix[ranges]suffix" element (no top-level comma). */
static int px_slurm_expand_one(const char *e, char ***list, size_t *n)
{
    const char *lb = strchr(e, '['), *rb = lb ? strchr(lb, ']') : NULL;
    if (lb == NULL)
        return e[0] != '\0' ? px_slurm_push(list, n, e) : -1;
    if (rb == NULL || rb == lb + 1)
        return -1;
    char *ranges = strndup(lb + 1, (size_t)(rb - lb - 1));
    int rc = ranges != NULL ? 0 : -1;
    for (char *save = NULL, *r = ranges ? strtok_r(ranges, ",", &save) : NULL; rc == 0 && r != NULL;
         r = strtok_r(NULL, ",", &save)) {
        char *dash = strchr(r, '-'), *end = NULL;
        size_t width = dash ? (size_t)(dash - r) : strlen(r);
        unsigned long lo = strtoul(r, &end, 10), hi = lo;
        if (!isdigit((unsigned char)r[0]) || end != r + width)
            rc = -1;
        if (rc == 0 && dash != NULL) {
            hi = strtoul(dash + 1, &end, 10);
            rc = isdigit((unsigned char)dash[1]) && *end == '\0' && hi >= lo && hi - lo < 100000
                     ? 0
                     : -1;
        }
        for (unsigned long v = lo; rc == 0 && v <= hi; v++) {
            char name[512];
            int len = snprintf(name, sizeof(name), "%.*s%0*lu%s", (int)(lb - e), e, (int)width, v,
                               rb + 1);
            /* a suffix holding another bracket is not expanded (Slurm allows one level) */
            rc = len > 0 && (size_t)len < sizeof(name) && strchr(rb + 1, '[') == NULL
                     ? px_slurm_push(list, n, name)
                     : -1;
        }
    }
    free(ranges);
    return rc;
}

int px_opts_hostlist_expand(const char *expr, char ***names, size_t *n)
{
    *names = NULL;
    *n = 0;
    const char *p = expr;
    int rc = expr[0] != '\0' ? 0 : -1;
    while (rc == 0 && *p != '\0') {
        /* the element ends at a comma outside brackets */
        const char *q = p;
        int depth = 0;
        while (*q != '\0' && (*q != ',' || depth > 0)) {
            depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
            q++;
        }
        char *e = strndup(p, (size_t)(q - p));
        rc = e != NULL && depth == 0 ? px_slurm_expand_one(e, names, n) : -1;
        free(e);
        p = *q == ',' ? q + 1 : q;
        if (rc == 0 && *q == ',' && *p == '\0')
            rc = -1; /* a trailing comma */
    }
    if (rc != 0) {
        PMIx_Argv_free(*names);
        *names = NULL;
        *n = 0;
    }
    return rc;
}

int px_opts_slurm_counts(const char *spec, size_t n, int *out)
{
    size_t k = 0;
    const char *p = spec;
    while (*p != '\0') {
        char *end = NULL;
        long v = strtol(p, &end, 10), times = 1;
        if (end == p || v <= 0 || v > 1000000)
            return -1;
        if (end[0] == '(' && end[1] == 'x') {
            times = strtol(end + 2, &end, 10);
            if (times <= 0 || *end != ')')
                return -1;
            end++;
        }
        for (long t = 0; t < times; t++) {
            if (k == n)
                return -1;
            out[k++] = (int)v;
        }
        if (*end == ',' && end[1] != '\0')
            end++;
        else if (*end != '\0')
            return -1;
        p = end;
    }
    return k == n ? 0 : -1;
}

int px_opts_slurm_hosts(px_cmd_t *cmd)
{
    const char *job = getenv("SLURM_JOB_ID"), *list = getenv("SLURM_JOB_NODELIST");
    const char *tasks = getenv("SLURM_TASKS_PER_NODE"), *cpus = getenv("SLURM_JOB_CPUS_PER_NODE");
    const char *counts = tasks != NULL ? tasks : cpus;
    char **names = NULL;
    size_t n = 0;
    int *slots = NULL, rc = 0;

    if (job == NULL || list == NULL || job[0] == '\0' || cmd->nhosts > 0)
        return 0; /* not in an allocation, or the hosts were given */
    if (px_opts_hostlist_expand(list, &names, &n) != 0) {
        px_show_help("help-prte-cli.txt", "slurm-bad-env", cmd->prog, "SLURM_JOB_NODELIST", list);
        return -1;
    }
    slots = calloc(n, sizeof(*slots));
    if (slots == NULL) {
        PMIx_Argv_free(names);
        return -1;
    }
    if (counts != NULL && px_opts_slurm_counts(counts, n, slots) != 0) {
        px_show_help("help-prte-cli.txt", "slurm-bad-env", cmd->prog,
                     tasks != NULL ? "SLURM_TASKS_PER_NODE" : "SLURM_JOB_CPUS_PER_NODE", counts);
        rc = -1;
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char entry[600];
        if (slots[i] > 0)
            snprintf(entry, sizeof(entry), "%s:%d", names[i], slots[i]);
        else
            snprintf(entry, sizeof(entry), "%s", names[i]);
        rc = px_opts_add_hosts(cmd, entry);
    }
    PMIx_Argv_free(names);
    free(slots);
    if (rc == 0)
        cmd->slurm = true;
    return rc;
}
