/* cli: --host name[:slots],... and --hostfile (lines "name [slots=N] [max_slots=M]", #
 * comments) into px_cmd_t.hosts, validated, and those hosts as the mapper's node list.
 * Single-threaded, called from the option parser and the commands' main. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/opts_int.h"
#include "help/px_help.h"

/* A reason topic rendered with its arguments, without its final newline (for the last %s
 * of bad-host or hostfile-bad-line). NULL when out of memory. */
static char *px_opts_reason(const char *topic, ...)
{
    char *r;
    va_list ap;

    va_start(ap, topic);
    r = px_help_vrender("help-prte-cli.txt", topic, ap);
    va_end(ap);
    if (r != NULL)
        r[strcspn(r, "\n")] = '\0';
    return r;
}

/* Add one entry. A repeated host adds its slots to the earlier entries' (as PRRTE
 * aggregates --host a,a and repeated hostfile lines); its max_slots must agree with an
 * earlier one, and the sum must stay within it. The same name spelled with other
 * letter case is refused (host names are case-insensitive: two spellings would make two
 * nodes of one host). 0, or -1 with *why set (NULL only when out of memory). */
static int px_opts_push_host(px_cmd_t *cmd, bool add, const char *name, size_t len, int slots,
                             int max_slots, char **why)
{
    px_host_t *h, **list = add ? &cmd->add_hosts : &cmd->hosts;
    size_t *n = add ? &cmd->nadd_hosts : &cmd->nhosts;
    int total = slots > 0 ? slots : 1, max = max_slots;

    *why = NULL;
    for (size_t i = 0; i < *n; i++) {
        const px_host_t *o = &(*list)[i];
        if (strlen(o->name) != len || strncasecmp(o->name, name, len) != 0)
            continue;
        if (strncmp(o->name, name, len) != 0) {
            *why = px_opts_reason("reason-dup-spelling", o->name);
            return -1;
        }
        if (add) { /* a host joins the DVM once */
            *why = px_opts_reason("reason-add-twice");
            return -1;
        }
        if (max > 0 && o->max_slots > 0 && o->max_slots != max) {
            *why = px_opts_reason("reason-dup-max-slots", o->max_slots, max);
            return -1;
        }
        if (o->max_slots > 0)
            max = o->max_slots;
        total += o->slots > 0 ? o->slots : 1;
    }
    if (max > 0 && total > max) {
        *why = px_opts_reason("reason-over-max-slots", total, max);
        return -1;
    }
    h = realloc(*list, (*n + 1) * sizeof(*h));
    if (h == NULL)
        return -1;
    *list = h;
    h[*n].name = strndup(name, len);
    if (h[*n].name == NULL)
        return -1;
    h[*n].slots = slots;
    h[*n].max_slots = max_slots;
    (*n)++;
    return 0;
}

int px_opts_add_hosts(px_cmd_t *cmd, const char *spec)
{
    return px_opts_add_hosts_to(cmd, spec, false);
}

int px_opts_add_hosts_to(px_cmd_t *cmd, const char *spec, bool add)
{
    const char *p = spec, *end, *colon;
    char *why = NULL, *entry;
    int slots, rc;

    for (;; p = end + 1) {
        end = strchr(p, ',');
        if (end == NULL)
            end = p + strlen(p);
        entry = strndup(p, (size_t)(end - p));
        if (entry == NULL)
            return -1;
        colon = strchr(entry, ':');
        slots = 0;
        if (entry[0] == '\0' || colon == entry) {
            why = px_opts_reason("reason-empty-name");
            rc = -1;
        } else if (colon != NULL && px_opts_posint(colon + 1, &slots) < 0) {
            why = px_opts_reason("reason-bad-slots");
            rc = -1;
        } else {
            rc = px_opts_push_host(cmd, add, entry,
                                   colon != NULL ? (size_t)(colon - entry) : strlen(entry), slots,
                                   0, &why);
        }
        if (rc < 0) {
            if (why != NULL)
                px_show_help("help-prte-cli.txt", add ? "bad-add-host" : "bad-host", cmd->prog,
                             entry, why);
            free(why);
            free(entry);
            return -1;
        }
        free(entry);
        if (*end == '\0')
            break;
    }
    return 0;
}

/* "key=N" of a hostfile line into *val: 1 when tok is that key (value checked, given
 * once), 0 when it is another token, -1 with *why set. */
static int px_opts_hostfile_key(const char *tok, const char *key, int *val, char **why)
{
    size_t n = strlen(key);

    if (strncmp(tok, key, n) != 0 || tok[n] != '=')
        return 0;
    if (*val != 0) {
        *why = px_opts_reason("reason-twice", key);
        return -1;
    }
    if (px_opts_posint(tok + n + 1, val) < 0) {
        *why = px_opts_reason("reason-bad-count", key);
        return -1;
    }
    return 1;
}

/* One hostfile line (comment already removed): "name [slots=N] [max_slots=M]" (also
 * "max-slots=M"). 0 ok (or blank), -1 with *why set (NULL only when out of memory). */
static int px_opts_hostfile_line(px_cmd_t *cmd, char *line, char **why)
{
    char *save = NULL, *name = strtok_r(line, " \t\r\n", &save), *tok;
    int slots = 0, max_slots = 0, k;

    *why = NULL;
    if (name == NULL)
        return 0;
    if (strchr(name, '=') != NULL) {
        *why = px_opts_reason("reason-empty-name");
        return -1;
    }
    while ((tok = strtok_r(NULL, " \t\r\n", &save)) != NULL) {
        if ((k = px_opts_hostfile_key(tok, "slots", &slots, why)) == 0 &&
            (k = px_opts_hostfile_key(tok, "max_slots", &max_slots, why)) == 0 &&
            (k = px_opts_hostfile_key(tok, "max-slots", &max_slots, why)) == 0) {
            *why = px_opts_reason("reason-bad-token", tok);
            return -1;
        }
        if (k < 0)
            return -1;
    }
    if (max_slots > 0 && slots > max_slots) {
        *why = px_opts_reason("reason-max-lt-slots", max_slots, slots);
        return -1;
    }
    return px_opts_push_host(cmd, false, name, strlen(name), slots, max_slots, why);
}

int px_opts_add_hostfile(px_cmd_t *cmd, const char *path)
{
    FILE *f = fopen(path, "r");
    char *line = NULL, *copy = NULL, *why = NULL;
    size_t cap = 0, before = cmd->nhosts;
    int lineno = 0, rc = -1;

    if (f == NULL) {
        px_show_help("help-prte-cli.txt", "hostfile-unreadable", cmd->prog, path, strerror(errno));
        return -1;
    }
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        line[strcspn(line, "#")] = '\0';
        line[strcspn(line, "\r\n")] = '\0';
        free(copy);
        if ((copy = strdup(line)) == NULL)
            goto out;
        if (px_opts_hostfile_line(cmd, line, &why) < 0) {
            if (why != NULL)
                px_show_help("help-prte-cli.txt", "hostfile-bad-line", cmd->prog, path, lineno,
                             copy, why);
            goto out;
        }
    }
    if (ferror(f)) {
        px_show_help("help-prte-cli.txt", "hostfile-unreadable", cmd->prog, path, strerror(errno));
        goto out;
    }
    if (cmd->nhosts == before) {
        px_show_help("help-prte-cli.txt", "hostfile-empty", cmd->prog, path);
        goto out;
    }
    rc = 0;
out:
    free(why);
    free(copy);
    free(line);
    fclose(f);
    return rc;
}

/* Order of host entries: by name, then by position (so each name's first entry leads). */
static const px_host_t *px_opts_sort_hosts;

static int px_opts_host_cmp(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = strcmp(px_opts_sort_hosts[x].name, px_opts_sort_hosts[y].name);
    return c != 0 ? c : (x > y) - (x < y);
}

int px_opts_host_nodes(const px_cmd_t *cmd, px_map_node_t **nodes, size_t *nnodes)
{
    size_t n = cmd->nhosts, k = 0;
    size_t *idx = calloc(n + 1, sizeof(size_t)), *lead = calloc(n + 1, sizeof(size_t));
    int *slots = calloc(n + 1, sizeof(int)), *max = calloc(n + 1, sizeof(int));
    px_map_node_t *out = calloc(n + 1, sizeof(*out));

    if (idx == NULL || lead == NULL || slots == NULL || max == NULL || out == NULL) {
        free(out);
        out = NULL;
        errno = ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    px_opts_sort_hosts = cmd->hosts;
    qsort(idx, n, sizeof(size_t), px_opts_host_cmp);
    for (size_t j = 0; j < n; j++) { /* each entry's lead: its name's first entry */
        size_t i = idx[j];
        lead[i] = j > 0 && strcmp(cmd->hosts[idx[j - 1]].name, cmd->hosts[i].name) == 0
                      ? lead[idx[j - 1]]
                      : i;
        slots[lead[i]] += cmd->hosts[i].slots > 0 ? cmd->hosts[i].slots : 1;
        if (cmd->hosts[i].max_slots > 0) /* agreed among the name's entries (push_host) */
            max[lead[i]] = cmd->hosts[i].max_slots;
    }
    for (size_t i = 0; i < n; i++) {
        if (lead[i] != i)
            continue;
        out[k].name = cmd->hosts[i].name;
        out[k].slots = slots[i];
        out[k].slots_given = true;
        out[k].max_slots = max[i];
        k++;
    }
out:
    free(idx);
    free(lead);
    free(slots);
    free(max);
    *nodes = out;
    *nnodes = out != NULL ? k : 0;
    return out != NULL ? 0 : -1;
}
