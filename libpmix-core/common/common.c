/* common: developer logging, server URIs, host name, required directives. Any thread. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "common/px_common.h"
#include "common/px_proto.h"

static int debug_level = -1;
static pthread_once_t debug_once = PTHREAD_ONCE_INIT;

static void debug_read_env(void)
{
    const char *s = getenv("PMIX_RUNTIME_DEBUG");
    debug_level = (s != NULL && *s != '\0') ? atoi(s) : 0;
}

bool px_debug_on(int level)
{
    pthread_once(&debug_once, debug_read_env);
    return level <= debug_level;
}

void px_debug(int level, const char *side, const char *fmt, ...)
{
    if (!px_debug_on(level)) {
        return;
    }
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "[pmix:%s %d] %s\n", side, (int)getpid(), line);
}

/* "<nspace>.<rank>;" at the start of uri: the server's identity, and where the
 * transport part begins. */
static const char *uri_proc(const char *uri, pmix_proc_t *server)
{
    const char *semi = uri ? strchr(uri, ';') : NULL;
    if (semi == NULL) {
        return NULL;
    }
    const char *dot = semi;
    while (dot > uri && *dot != '.') {
        dot--;
    }
    if (dot == uri || (size_t)(dot - uri) > PMIX_MAX_NSLEN || dot[1] < '0' || dot[1] > '9') {
        return NULL;
    }
    char *end;
    errno = 0;
    unsigned long rank = strtoul(dot + 1, &end, 10);
    if (end != semi || errno != 0 || rank > UINT32_MAX) {
        return NULL;
    }
    char ns[PMIX_MAX_NSLEN + 1];
    memcpy(ns, uri, (size_t)(dot - uri));
    ns[dot - uri] = '\0';
    PMIx_Load_procid(server, ns, (pmix_rank_t)rank);
    return semi + 1;
}

/* "tcp4://a.b.c.d:port;secret=<hex>" */
static int uri_tcp(const char *t, px_uri_t *out)
{
    const char *colon = strrchr(t, ':');
    const char *semi = strchr(t, ';');
    size_t alen;
    if (colon == NULL || semi == NULL || colon > semi || colon[1] < '0' || colon[1] > '9') {
        return -1;
    }
    alen = (size_t)(colon - t);
    if (alen == 0 || alen >= sizeof(out->addr)) {
        return -1;
    }
    memcpy(out->addr, t, alen);
    out->addr[alen] = '\0';
    struct in_addr a;
    if (inet_pton(AF_INET, out->addr, &a) != 1) {
        return -1;
    }
    char *end;
    unsigned long port = strtoul(colon + 1, &end, 10);
    if (end != semi || port == 0 || port > 65535) {
        return -1;
    }
    out->port = (unsigned short)port;
    const char *sec = semi + 1;
    if (strncmp(sec, PX_URI_SECRET, strlen(PX_URI_SECRET)) != 0) {
        return -1;
    }
    sec += strlen(PX_URI_SECRET);
    if (strlen(sec) != 32 || strspn(sec, "0123456789abcdef") != 32) {
        return -1;
    }
    memcpy(out->secret, sec, 33);
    out->tcp = true;
    return 0;
}

int px_uri_parse_any(const char *uri, px_uri_t *out)
{
    memset(out, 0, sizeof(*out));
    const char *t = uri_proc(uri, &out->server);
    int rc = -1;
    if (t == NULL) {
        rc = -1;
    } else if (strncmp(t, PX_URI_USOCK, strlen(PX_URI_USOCK)) == 0) {
        t += strlen(PX_URI_USOCK);
        if (*t == '/') {
            out->path = strdup(t);
            rc = out->path ? 0 : -1;
        }
    } else if (strncmp(t, PX_URI_TCP4, strlen(PX_URI_TCP4)) == 0) {
        rc = uri_tcp(t + strlen(PX_URI_TCP4), out);
    }
    if (rc != 0) {
        free(out->path);
        memset(out, 0, sizeof(*out));
        errno = EINVAL;
    }
    return rc;
}

void px_uri_fini(px_uri_t *u)
{
    if (u != NULL) {
        free(u->path);
        u->path = NULL;
    }
}

int px_uri_parse(const char *uri, pmix_proc_t *server, char **path)
{
    px_uri_t u;
    if (px_uri_parse_any(uri, &u) != 0) {
        return -1;
    }
    if (u.tcp) {
        errno = EINVAL;
        return -1;
    }
    *server = u.server;
    *path = u.path;
    return 0;
}

char *px_uri_make(const pmix_proc_t *server, const char *path)
{
    char *s = NULL;
    if (asprintf(&s, "%s.%u;%s%s", server->nspace, server->rank, PX_URI_USOCK, path) < 0) {
        return NULL;
    }
    return s;
}

char *px_uri_make_tcp(const pmix_proc_t *server, const char *addr, unsigned short port,
                      const char *secret)
{
    char *s = NULL;
    if (asprintf(&s, "%s.%u;%s%s:%u;%s%s", server->nspace, server->rank, PX_URI_TCP4, addr,
                 (unsigned)port, PX_URI_SECRET, secret) < 0) {
        return NULL;
    }
    return s;
}

static char host[256];
static pthread_once_t host_once = PTHREAD_ONCE_INIT;

static void host_read(void)
{
    if (gethostname(host, sizeof(host) - 1) != 0) {
        strcpy(host, "localhost");
    }
}

const char *px_hostname(void)
{
    pthread_once(&host_once, host_read);
    return host;
}

const char *px_tmpdir_default(void)
{
    const char *t = getenv("TMPDIR");
    return t != NULL && *t != '\0' ? t : "/tmp";
}

const char *px_tmpdir_pick(const pmix_info_t *info, size_t ninfo, const char *key)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], key) && info[i].value.type == PMIX_STRING &&
            info[i].value.data.string != NULL) {
            return info[i].value.data.string;
        }
    }
    return px_tmpdir_default();
}

bool px_pid_gone(pid_t pid)
{
    if (pid <= 0) {
        return false;
    }
    if (kill(pid, 0) != 0 && errno == ESRCH) {
        return true;
    }
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (f == NULL) {
        return errno == ENOENT;
    }
    size_t len = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[len] = '\0';
    const char *paren = strrchr(buf, ')');
    return paren != NULL && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

bool px_key_reserved(const char *key)
{
    return strncmp(key, "pmix", 4) == 0;
}

const char *px_info_unhonoured(const pmix_info_t *info, size_t ninfo, const char *const honoured[])
{
    for (size_t i = 0; info != NULL && i < ninfo; i++) {
        if (!PMIx_Info_is_required(&info[i])) {
            continue;
        }
        bool known = false;
        for (size_t k = 0; honoured != NULL && honoured[k] != NULL && !known; k++) {
            known = PMIX_CHECK_KEY(&info[i], honoured[k]);
        }
        if (!known) {
            return info[i].key;
        }
    }
    return NULL;
}

int px_debug_stop_rank(const pmix_value_t *v, pmix_rank_t *rank)
{
    switch (v->type) {
    case PMIX_UNDEF: /* a bare key: true (PMIX_INFO_TRUE) */
        *rank = PMIX_RANK_WILDCARD;
        return 1;
    case PMIX_BOOL:
        *rank = PMIX_RANK_WILDCARD;
        return v->data.flag ? 1 : 0;
    case PMIX_PROC_RANK:
        *rank = v->data.rank;
        return v->data.rank == PMIX_RANK_WILDCARD || v->data.rank < PMIX_RANK_VALID ? 1 : -1;
    case PMIX_INT:
    case PMIX_INT8:
    case PMIX_INT16:
    case PMIX_INT32:
    case PMIX_INT64:
    case PMIX_UINT:
    case PMIX_UINT8:
    case PMIX_UINT16:
    case PMIX_UINT32:
    case PMIX_UINT64:
    case PMIX_SIZE: {
        uint32_t r = 0;
        if (PMIx_Value_get_number(v, &r, PMIX_UINT32) != PMIX_SUCCESS ||
            (r >= PMIX_RANK_VALID && r != PMIX_RANK_WILDCARD)) {
            return -1;
        }
        *rank = r;
        return 1;
    }
    default:
        return -1;
    }
}

int px_debug_stop_list(const pmix_value_t *v, const pmix_proc_t **procs, size_t *n)
{
    if (v->type != PMIX_DATA_ARRAY || v->data.darray == NULL || v->data.darray->type != PMIX_PROC ||
        (v->data.darray->size > 0 && v->data.darray->array == NULL)) {
        return 0;
    }
    *procs = v->data.darray->array;
    *n = v->data.darray->size;
    return 1;
}

bool px_debug_stop_names(const pmix_value_t *v, const pmix_proc_t *who)
{
    const pmix_proc_t *procs;
    size_t n;
    if (px_debug_stop_list(v, &procs, &n) == 1) {
        for (size_t i = 0; i < n; i++) {
            if ((procs[i].nspace[0] == '\0' || PMIx_Check_nspace(procs[i].nspace, who->nspace)) &&
                (procs[i].rank == PMIX_RANK_WILDCARD || procs[i].rank == who->rank)) {
                return true;
            }
        }
        return false;
    }
    pmix_rank_t r;
    return px_debug_stop_rank(v, &r) == 1 && (r == PMIX_RANK_WILDCARD || r == who->rank);
}

const pmix_proc_t *px_event_custom_range(const pmix_info_t *info, size_t ninfo, size_t *n)
{
    *n = 0;
    for (size_t i = 0; i < ninfo; i++) {
        if (!PMIX_CHECK_KEY(&info[i], PMIX_EVENT_CUSTOM_RANGE)) {
            continue;
        }
        const pmix_value_t *v = &info[i].value;
        if (v->type == PMIX_PROC && v->data.proc != NULL) {
            *n = 1;
            return v->data.proc;
        }
        if (v->type == PMIX_DATA_ARRAY && v->data.darray != NULL &&
            v->data.darray->type == PMIX_PROC) {
            *n = v->data.darray->size;
            return v->data.darray->array;
        }
        return NULL;
    }
    return NULL;
}
