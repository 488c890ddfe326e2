/* cli: prte's --allow-users and --allow-groups: comma-separated user or group names (or
 * numeric ids), each resolved now through the user and group databases. Single-threaded;
 * called while parsing the command line. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opts_int.h"
#include "help/px_help.h"

/* A numeric id (all digits, fits an id_t), else -1. */
static long numeric_id(const char *s)
{
    if (*s < '0' || *s > '9') {
        return -1;
    }
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno != 0 || *end != '\0' || v >= 0xffffffffUL) {
        return -1;
    }
    return (long)v;
}

/* One name -> id. 0, or -1 when the database has no such entry. */
static int resolve(const char *name, bool group, unsigned *id)
{
    long n = numeric_id(name);
    if (n >= 0) {
        *id = (unsigned)n;
        return 0;
    }
    char buf[16384];
    if (group) {
        struct group gr, *grp = NULL;
        if (getgrnam_r(name, &gr, buf, sizeof(buf), &grp) != 0 || grp == NULL) {
            return -1;
        }
        *id = (unsigned)gr.gr_gid;
    } else {
        struct passwd pw, *pwp = NULL;
        if (getpwnam_r(name, &pw, buf, sizeof(buf), &pwp) != 0 || pwp == NULL) {
            return -1;
        }
        *id = (unsigned)pw.pw_uid;
    }
    return 0;
}

int px_opts_add_allowed(px_cmd_t *cmd, const char *list, bool group)
{
    const char *opt = group ? "--allow-groups" : "--allow-users";
    char *copy = strdup(list);
    if (copy == NULL) {
        return -1;
    }
    int rc = -1;
    char *save = NULL;
    size_t added = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        unsigned id;
        if (resolve(tok, group, &id) != 0) {
            px_show_help("help-prte-cli.txt", "bad-allowed", cmd->prog, opt, tok,
                         group ? "group" : "user");
            goto out;
        }
        if (group) {
            gid_t *g = realloc(cmd->allow_gids, (cmd->nallow_gids + 1) * sizeof(*g));
            if (g == NULL) {
                goto out;
            }
            g[cmd->nallow_gids++] = (gid_t)id;
            cmd->allow_gids = g;
        } else {
            uid_t *u = realloc(cmd->allow_uids, (cmd->nallow_uids + 1) * sizeof(*u));
            if (u == NULL) {
                goto out;
            }
            u[cmd->nallow_uids++] = (uid_t)id;
            cmd->allow_uids = u;
        }
        added++;
    }
    if (added == 0) {
        px_show_help("help-prte-cli.txt", "bad-allowed", cmd->prog, opt, list,
                     group ? "group" : "user");
        goto out;
    }
    rc = 0;
out:
    free(copy);
    return rc;
}
