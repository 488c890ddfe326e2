/* cli: --host name[:slots],... and --hostfile (lines "name [slots=N]", # comments) into
 * px_cmd_t.hosts, validated, and those hosts as the mapper's node list. Single-threaded,
 * called from the option parser and the commands' main. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opts_int.h"
#include "help/px_help.h"

/* A short reason topic rendered without its final newline (for a %s of another topic). */
static char *px_opts_reason(const char *topic_text)
{
    char *r = topic_text != NULL ? strdup(topic_text) : NULL;
    if (r != NULL)
        r[strcspn(r, "\n")] = '\0';
    return r;
}

static int px_opts_push_host(px_cmd_t *cmd, const char *name, size_t len, int slots)
{
    px_host_t *h = realloc(cmd->hosts, (cmd->nhosts + 1) * sizeof(*h));

    if (h == NULL)
        return -1;
    cmd->hosts = h;
    h[cmd->nhosts].name = strndup(name, len);
    if (h[cmd->nhosts].name == NULL)
        return -1;
    h[cmd->nhosts].slots = slots;
    cmd->nhosts++;
    return 0;
}

int px_opts_add_hosts(px_cmd_t *cmd, const char *spec)
{
    const char *p = spec, *end, *colon;
    char *why = NULL, *entry;
    int slots;

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
            why = px_opts_reason(px_help_lookup("help-prte-cli.txt", "reason-empty-name"));
        } else if (colon != NULL && px_opts_posint(colon + 1, &slots) < 0) {
            why = px_opts_reason(px_help_lookup("help-prte-cli.txt", "reason-bad-slots"));
        }
        if (why != NULL) {
            px_show_help("help-prte-cli.txt", "bad-host", cmd->prog, entry, why);
            free(why);
            free(entry);
            return -1;
        }
        if (px_opts_push_host(cmd, entry, colon != NULL ? (size_t)(colon - entry) : strlen(entry),
                              slots) < 0) {
            free(entry);
            return -1;
        }
        free(entry);
        if (*end == '\0')
            break;
    }
    return 0;
}

/* One hostfile line (comment already removed): 0 ok (or blank), -1 with *why set. */
static int px_opts_hostfile_line(px_cmd_t *cmd, char *line, char **why)
{
    char *save = NULL, *name = strtok_r(line, " \t\r\n", &save), *tok;
    int slots = 0;

    if (name == NULL)
        return 0;
    while ((tok = strtok_r(NULL, " \t\r\n", &save)) != NULL) {
        if (strncmp(tok, "slots=", 6) == 0) {
            if (px_opts_posint(tok + 6, &slots) < 0) {
                *why = px_opts_reason(px_help_lookup("help-prte-cli.txt", "reason-bad-slots"));
                return -1;
            }
        } else {
            *why = px_opts_reason(px_help_lookup("help-prte-cli.txt", "reason-bad-token"));
            return -1;
        }
    }
    return px_opts_push_host(cmd, name, strlen(name), slots);
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
            px_show_help("help-prte-cli.txt", "hostfile-bad-line", cmd->prog, path, lineno, copy,
                         why != NULL ? why : "");
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
    int *slots = calloc(n + 1, sizeof(int));
    px_map_node_t *out = calloc(n + 1, sizeof(*out));

    if (idx == NULL || lead == NULL || slots == NULL || out == NULL) {
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
    }
    for (size_t i = 0; i < n; i++) {
        if (lead[i] != i)
            continue;
        out[k].name = cmd->hosts[i].name;
        out[k].slots = slots[i];
        out[k].slots_given = true;
        k++;
    }
out:
    free(idx);
    free(lead);
    free(slots);
    *nodes = out;
    *nnodes = out != NULL ? k : 0;
    return out != NULL ? 0 : -1;
}
