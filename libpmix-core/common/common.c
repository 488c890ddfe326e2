/* common: developer logging, server URIs, host name. Any thread. */
#include <errno.h>
#include <pthread.h>
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

int px_uri_parse(const char *uri, pmix_proc_t *server, char **path)
{
    const char *semi = uri ? strchr(uri, ';') : NULL;
    if (semi == NULL || strncmp(semi + 1, PX_URI_USOCK, strlen(PX_URI_USOCK)) != 0) {
        errno = EINVAL;
        return -1;
    }
    const char *dot = semi;
    while (dot > uri && *dot != '.') {
        dot--;
    }
    const char *p = semi + 1 + strlen(PX_URI_USOCK);
    if (dot == uri || (size_t)(dot - uri) > PMIX_MAX_NSLEN || *p != '/') {
        errno = EINVAL;
        return -1;
    }
    char *end;
    unsigned long rank = strtoul(dot + 1, &end, 10);
    if (end != semi) {
        errno = EINVAL;
        return -1;
    }
    char ns[PMIX_MAX_NSLEN + 1];
    memcpy(ns, uri, (size_t)(dot - uri));
    ns[dot - uri] = '\0';
    PMIx_Load_procid(server, ns, (pmix_rank_t)rank);
    *path = strdup(p);
    return *path ? 0 : -1;
}

char *px_uri_make(const pmix_proc_t *server, const char *path)
{
    char *s = NULL;
    if (asprintf(&s, "%s.%u;%s%s", server->nspace, server->rank, PX_URI_USOCK, path) < 0) {
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

bool px_key_reserved(const char *key)
{
    return strncmp(key, "pmix", 4) == 0;
}
