/* common: small helpers every side shares — developer logging and server URIs.
 * Thread-safe.
 */
#ifndef PX_COMMON_H
#define PX_COMMON_H

#include <stdbool.h>

#include <pmix_common.h>

/* Developer logging, off by default: PMIX_RUNTIME_DEBUG=<level> in the environment
 * prints messages of that level and below on stderr, prefixed with the side and pid.
 * Never used for what a user must see (that comes from share/help). */
bool px_debug_on(int level);
void px_debug(int level, const char *side, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "<nspace>.<rank>;usock:<path>" -> server identity and socket path (malloc'd).
 * 0 / -1 with errno EINVAL. */
int px_uri_parse(const char *uri, pmix_proc_t *server, char **path);
/* The reverse; malloc'd string or NULL. */
char *px_uri_make(const pmix_proc_t *server, const char *path);

/* gethostname(), never NULL (static storage). */
const char *px_hostname(void);

/* Is the key one of the Standard's reserved "pmix." keys? */
bool px_key_reserved(const char *key);

#endif /* PX_COMMON_H */
