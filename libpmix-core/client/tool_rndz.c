/* client: the rendezvous precedence chain of the Tools chapter — which server a tool
 * connects to (attachment file, URI, server pid or namespace, system server, default
 * search of the server tmpdir), with the "delayed connection" retries of the explicit
 * steps. Runs on the user thread calling PMIx_tool_init / PMIx_tool_attach_to_server.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#include "client/px_tool.h"
#include "common/px_common.h"
#include "common/px_query.h"
#include "help/px_help.h"

/* What the caller's info asks for. */
typedef struct {
    const char *attach_file;
    const char *server_uri;
    const char *tcp_uri;
    const char *nspace;
    pid_t pid;
    bool have_pid;
    bool to_system, system_first, primary;
    uint32_t retries;
    uint32_t delay_s;
    bool wait;
    int timeout_ms;
    const char *tmpdir;    /* PMIX_SERVER_TMPDIR, else $TMPDIR, else /tmp */
    const char *systmpdir; /* PMIX_SYSTEM_TMPDIR, else $TMPDIR, else /tmp */
} ropts_t;

int px_tool_rndz_read(const char *path, char **uri, pid_t *pid, char **tcp_uri)
{
    char line[4096];
    *uri = *tcp_uri = NULL;
    *pid = -1;
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return -1;
    }
    for (int i = 0; i < 4 && fgets(line, sizeof(line), f) != NULL; i++) {
        line[strcspn(line, "\n")] = '\0';
        if (i == 0) {
            *uri = strdup(line);
        } else if (i == 2) {
            *pid = (pid_t)strtol(line, NULL, 10);
        } else if (i == 3 && line[0] != '\0') {
            *tcp_uri = strdup(line);
        }
    }
    fclose(f);
    if (*uri == NULL || strchr(*uri, ';') == NULL) {
        free(*uri);
        free(*tcp_uri);
        *uri = *tcp_uri = NULL;
        errno = EINVAL;
        return -1;
    }
    return 0;
}

static bool pid_alive(pid_t pid)
{
    return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

/* Connect to the server a rendezvous file names: its socket, else its TCP listener.
 * what (for messages) says which file it is. */
static pmix_status_t connect_file(const ropts_t *o, const char *path, const char *what, bool quiet,
                                  pmix_proc_t *server)
{
    char *uri, *tcp;
    pid_t pid;
    if (px_tool_rndz_read(path, &uri, &pid, &tcp) != 0) {
        int err = errno;
        if (err == EINVAL) {
            if (!quiet) {
                px_show_help("help-pmix-tool.txt", "bad-file", path);
            }
            return PMIX_ERR_BAD_PARAM;
        }
        if (!quiet) {
            px_show_help("help-pmix-tool.txt", "file-not-found", what, path, px_hostname(),
                         strerror(err));
        }
        return PMIX_ERR_NOT_FOUND;
    }
    px_tool_try_t how = {.quiet = quiet || tcp != NULL, .primary = o->primary};
    pmix_status_t rc = px_tool_connect_uri(uri, &how, server);
    if (rc == PMIX_ERR_UNREACH && tcp != NULL) {
        how.quiet = quiet;
        rc = px_tool_connect_uri(tcp, &how, server);
    } else if (rc != PMIX_SUCCESS && rc != PMIX_ERR_UNREACH && rc != PMIX_OPERATION_SUCCEEDED &&
               rc != PMIX_ERR_BAD_PARAM && how.quiet && !quiet) {
        px_tool_show_refused(uri, rc); /* refused on the socket: no point in TCP */
    }
    free(uri);
    free(tcp);
    return rc;
}

typedef pmix_status_t (*step_fn)(const ropts_t *o, const void *arg, bool quiet,
                                 pmix_proc_t *server);

static pmix_status_t step_file(const ropts_t *o, const void *arg, bool quiet, pmix_proc_t *server)
{
    const char *const *fw = arg; /* {path, what} */
    return connect_file(o, fw[0], fw[1], quiet, server);
}

static pmix_status_t step_uri(const ropts_t *o, const void *arg, bool quiet, pmix_proc_t *server)
{
    px_tool_try_t how = {.quiet = quiet, .primary = o->primary, .tcp_only = arg == o->tcp_uri};
    return px_tool_connect_uri(arg, &how, server);
}

static long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

/* An explicit step with the delayed-connection protocol: a missing file or a server
 * that does not answer is tried again (PMIX_CONNECT_MAX_RETRIES times, or until
 * PMIX_TIMEOUT with PMIX_WAIT_FOR_CONNECTION), PMIX_CONNECT_RETRY_DELAY apart. Only
 * the last attempt prints its message. */
static pmix_status_t with_retries(const ropts_t *o, step_fn fn, const void *arg, bool quiet,
                                  pmix_proc_t *server)
{
    long deadline = o->timeout_ms > 0 ? now_ms() + o->timeout_ms : 0;
    long delay = (long)o->delay_s * 1000L;
    for (uint32_t attempt = 0;; attempt++) {
        bool more =
            attempt < o->retries || (o->wait && (deadline == 0 || now_ms() + delay < deadline));
        pmix_status_t rc = fn(o, arg, quiet || more, server);
        if (rc == PMIX_SUCCESS || (rc != PMIX_ERR_NOT_FOUND && rc != PMIX_ERR_UNREACH)) {
            return rc;
        }
        if (!more) {
            return rc;
        }
        px_debug(2, "tool", "attempt %u failed (%s): again in %ld ms", attempt + 1,
                 PMIx_Error_string(rc), delay);
        struct timespec ts = {delay / 1000, (delay % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
    }
}

static bool argv_has(char **argv, const char *s)
{
    for (size_t i = 0; argv != NULL && argv[i] != NULL; i++) {
        if (strcmp(argv[i], s) == 0) {
            return true;
        }
    }
    return false;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Default: every pmix.<host>.tool* file in the server tmpdir, skipping files of dead
 * servers, until one accepts. No retries here (the Standard forbids them). */
static pmix_status_t search(const ropts_t *o, bool quiet, pmix_proc_t *server)
{
    DIR *d = opendir(o->tmpdir);
    char **names = NULL, **seen = NULL;
    size_t n = 0;
    if (d != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            bool sys = false;
            if (!px_query_rndz_name(e->d_name, px_hostname(), &sys) || sys) {
                continue; /* not a tool rendezvous file (or one being written) */
            }
            char **grown = realloc(names, (n + 1) * sizeof(*names));
            if (grown == NULL) {
                break;
            }
            names = grown;
            names[n++] = strdup(e->d_name);
        }
        closedir(d);
    }
    if (n > 0) {
        qsort(names, n, sizeof(*names), name_cmp);
    }
    pmix_status_t rc = PMIX_ERR_UNREACH, refusal = PMIX_SUCCESS;
    char *refused_uri = NULL;
    for (size_t i = 0; i < n && rc != PMIX_SUCCESS; i++) {
        char *path = NULL, *uri, *tcp;
        pid_t pid;
        if (names[i] == NULL || asprintf(&path, "%s/%s", o->tmpdir, names[i]) < 0) {
            continue;
        }
        if (px_tool_rndz_read(path, &uri, &pid, &tcp) != 0) {
            free(path);
            continue;
        }
        if (!pid_alive(pid)) {
            px_debug(1, "tool", "skipping stale rendezvous file %s (pid %d is gone)", path,
                     (int)pid);
        } else if (argv_has(seen, uri)) {
            /* the same server under another of its file names */
        } else {
            PMIx_Argv_append_nosize(&seen, uri);
            px_tool_try_t how = {.quiet = true, .primary = o->primary};
            pmix_status_t r = px_tool_connect_uri(uri, &how, server);
            if (r == PMIX_ERR_UNREACH && tcp != NULL) {
                r = px_tool_connect_uri(tcp, &how, server);
            }
            if (r == PMIX_SUCCESS) {
                rc = PMIX_SUCCESS;
            } else if (r != PMIX_ERR_UNREACH && r != PMIX_OPERATION_SUCCEEDED &&
                       r != PMIX_ERR_BAD_PARAM) {
                refusal = r;
                free(refused_uri);
                refused_uri = strdup(uri);
            }
        }
        free(uri);
        free(tcp);
        free(path);
    }
    if (rc != PMIX_SUCCESS && refusal != PMIX_SUCCESS) {
        rc = refusal; /* every server found refused: say why the last one did */
        if (!quiet) {
            px_tool_show_refused(refused_uri, rc);
        }
    } else if (rc != PMIX_SUCCESS && !quiet) {
        px_show_help("help-pmix-tool.txt", "no-server", o->tmpdir, px_hostname());
    }
    free(refused_uri);
    for (size_t i = 0; i < n; i++) {
        free(names[i]);
    }
    free(names);
    PMIx_Argv_free(seen);
    return rc;
}

void px_tool_rndz_dirs(const pmix_info_t *info, size_t ninfo, const char **tmpdir,
                       const char **systmpdir)
{
    *tmpdir = px_tmpdir_pick(info, ninfo, PMIX_SERVER_TMPDIR);
    *systmpdir = px_tmpdir_pick(info, ninfo, PMIX_SYSTEM_TMPDIR);
}

static const char *str_of(const pmix_info_t *in)
{
    return in->value.type == PMIX_STRING ? in->value.data.string : NULL;
}

static void parse(const pmix_info_t *info, size_t ninfo, ropts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->delay_s = 1;
    for (size_t i = 0; i < ninfo; i++) {
        const pmix_info_t *in = &info[i];
        if (PMIX_CHECK_KEY(in, PMIX_TOOL_ATTACHMENT_FILE)) {
            o->attach_file = str_of(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_SERVER_URI)) {
            o->server_uri = str_of(in) ? str_of(in) : "";
        } else if (PMIX_CHECK_KEY(in, PMIX_TCP_URI)) {
            o->tcp_uri = str_of(in) ? str_of(in) : "";
        } else if (PMIX_CHECK_KEY(in, PMIX_SERVER_NSPACE)) {
            o->nspace = str_of(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_SERVER_PIDINFO)) {
            o->have_pid = PMIx_Value_get_number(&in->value, &o->pid, PMIX_PID) == PMIX_SUCCESS;
        } else if (PMIX_CHECK_KEY(in, PMIX_CONNECT_TO_SYSTEM)) {
            o->to_system = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_CONNECT_SYSTEM_FIRST)) {
            o->system_first = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_PRIMARY_SERVER)) {
            o->primary = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_CONNECT_MAX_RETRIES)) {
            PMIx_Value_get_number(&in->value, &o->retries, PMIX_UINT32);
        } else if (PMIX_CHECK_KEY(in, PMIX_CONNECT_RETRY_DELAY)) {
            PMIx_Value_get_number(&in->value, &o->delay_s, PMIX_UINT32);
        } else if (PMIX_CHECK_KEY(in, PMIX_WAIT_FOR_CONNECTION)) {
            o->wait = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_TIMEOUT)) {
            int secs = 0;
            if (PMIx_Value_get_number(&in->value, &secs, PMIX_INT) == PMIX_SUCCESS && secs > 0) {
                o->timeout_ms = secs * 1000;
            }
        }
    }
    px_tool_rndz_dirs(info, ninfo, &o->tmpdir, &o->systmpdir);
}

static pmix_status_t chain(const pmix_info_t *info, size_t ninfo, const char *env_uri,
                           const char *env_file, bool quiet, pmix_proc_t *server)
{
    ropts_t o;
    pmix_proc_t dummy;
    char *path = NULL;
    pmix_status_t rc;
    if (server == NULL) {
        server = &dummy;
    }
    parse(info, ninfo, &o);
    bool named =
        o.attach_file || o.server_uri || o.tcp_uri || o.have_pid || o.nspace || o.to_system;
    /* a launcher's environment names the server when the caller does not */
    struct stat st;
    if (!named && env_file != NULL && stat(env_file, &st) == 0) {
        o.attach_file = env_file;
    } else if (!named && env_uri != NULL) {
        o.server_uri = env_uri;
    }

    if (o.attach_file != NULL) {
        const char *fw[2] = {o.attach_file, "attachment file"};
        return with_retries(&o, step_file, fw, quiet, server);
    }
    if (o.server_uri != NULL && o.tcp_uri != NULL) {
        if (!quiet) {
            px_show_help("help-pmix-tool.txt", "both-uris");
        }
        return PMIX_ERR_BAD_PARAM;
    }
    if (o.server_uri != NULL || o.tcp_uri != NULL) {
        return with_retries(&o, step_uri, o.server_uri ? o.server_uri : o.tcp_uri, quiet, server);
    }
    if (o.have_pid) {
        if (asprintf(&path, "%s/pmix.%s.tool.%d", o.tmpdir, px_hostname(), (int)o.pid) < 0) {
            return PMIX_ERR_NOMEM;
        }
        const char *fw[2] = {path, "rendezvous file of the server with the given pid"};
        rc = with_retries(&o, step_file, fw, quiet, server);
        free(path);
        return rc;
    }
    if (o.nspace != NULL) {
        if (asprintf(&path, "%s/pmix.%s.tool.%s", o.tmpdir, px_hostname(), o.nspace) < 0) {
            return PMIX_ERR_NOMEM;
        }
        const char *fw[2] = {path, "rendezvous file of the server of the given namespace"};
        rc = with_retries(&o, step_file, fw, quiet, server);
        free(path);
        return rc;
    }
    if (o.to_system || o.system_first) {
        if (asprintf(&path, "%s/pmix.sys.%s", o.systmpdir, px_hostname()) < 0) {
            return PMIX_ERR_NOMEM;
        }
        const char *fw[2] = {path, "system server's rendezvous file"};
        if (o.to_system) {
            rc = with_retries(&o, step_file, fw, quiet, server);
            free(path);
            return rc;
        }
        rc = step_file(&o, fw, true, server); /* silently on to the next option */
        free(path);
        if (rc == PMIX_SUCCESS) {
            return rc;
        }
    }
    return search(&o, quiet, server);
}

pmix_status_t px_tool_rndz(const pmix_info_t *info, size_t ninfo, const char *env_uri,
                           const char *env_file, bool quiet, pmix_proc_t *server)
{
    pmix_status_t rc = chain(info, ninfo, env_uri, env_file, quiet, server);
    /* a named server we are connected to already */
    return rc == PMIX_OPERATION_SUCCEEDED ? PMIX_EXISTS : rc;
}
