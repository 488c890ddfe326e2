/* daemon: user messages for processes that could not start (help-prted.txt topics),
 * rendered on the daemon for the controller to print. Plain code, any thread. */
#include "daemon/px_odls.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "help/px_help.h"

static const char *px_odls_help_path(char *const *env)
{
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        if (strncmp(env[i], "PATH=", 5) == 0)
            return env[i] + 5;
    return "/usr/local/bin:/usr/bin:/bin (the default: no PATH in the environment)";
}

char *px_odls_error_text(const px_child_spec_t *spec, int err, const char *stage, const char *node,
                         const char *job, unsigned rank)
{
    if (spec == NULL || spec->argv == NULL || spec->argv[0] == NULL || stage == NULL) {
        errno = EINVAL;
        return NULL;
    }
    const char *exe = spec->argv[0];
    const char *why = strerror(err);
    node = node ? node : "(unknown node)";
    job = job ? job : "(unknown job)";
    if (strcmp(stage, "exec") == 0) {
        if (err == ENOENT) {
            const char *searched = strchr(exe, '/') ? exe : px_odls_help_path(spec->env);
            return px_help_render("help-prted.txt", "exec-not-found", exe, node, rank, job,
                                  searched);
        }
        if (err == EACCES)
            return px_help_render("help-prted.txt", "exec-permission", exe, node, rank, job);
        return px_help_render("help-prted.txt", "exec-failed", exe, node, rank, job, why);
    }
    if (strcmp(stage, "chdir") == 0)
        return px_help_render("help-prted.txt", "wdir-failed", spec->wdir ? spec->wdir : ".", node,
                              rank, job, why);
    if (strcmp(stage, "bind") == 0) {
        char *cpus = NULL;
        if (spec->cpuset == NULL || hwloc_bitmap_list_asprintf(&cpus, spec->cpuset) < 0)
            cpus = NULL;
        char *t = px_help_render("help-prted.txt", "bind-failed", rank, job, node,
                                 cpus ? cpus : "(none)", why);
        free(cpus);
        return t;
    }
    if (strcmp(stage, "fork") == 0)
        return px_help_render("help-prted.txt", "fork-failed", node, exe, rank, job, why);
    return px_help_render("help-prted.txt", "setup-failed", exe, node, rank, job, why);
}
