/* NULL-terminated string arrays (argv) and environ-style arrays: the public
 * PMIx_Argv_* / PMIx_Setenv helpers and the internal px_argv_* / px_env_* ones.
 * Pure functions on caller-owned memory; callable from any thread (except that touching
 * the real environ is not thread-safe, as with setenv(3)). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmix_common.h"
#include "util/px_argv.h"

/* Grow *argv by one slot at index pos (0 = front, count = back) holding copy. */
static pmix_status_t px_argv_insert(char ***argv, int pos, const char *arg)
{
    char **a;
    char *copy;
    int n;

    if (argv == NULL || arg == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    copy = strdup(arg);
    if (copy == NULL) {
        return PMIX_ERR_NOMEM;
    }
    n = PMIx_Argv_count(*argv);
    a = realloc(*argv, (size_t)(n + 2) * sizeof(char *));
    if (a == NULL) {
        free(copy);
        return PMIX_ERR_NOMEM;
    }
    if (pos > n) {
        pos = n;
    }
    memmove(&a[pos + 1], &a[pos], (size_t)(n - pos) * sizeof(char *));
    a[pos] = copy;
    a[n + 1] = NULL;
    *argv = a;
    return PMIX_SUCCESS;
}

int PMIx_Argv_count(char **a)
{
    int n = 0;

    if (a != NULL) {
        while (a[n] != NULL) {
            n++;
        }
    }
    return n;
}

pmix_status_t PMIx_Argv_append_nosize(char ***argv, const char *arg)
{
    if (argv == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    return px_argv_insert(argv, PMIx_Argv_count(*argv), arg);
}

pmix_status_t PMIx_Argv_prepend_nosize(char ***argv, const char *arg)
{
    return px_argv_insert(argv, 0, arg);
}

pmix_status_t PMIx_Argv_append_unique_nosize(char ***argv, const char *arg)
{
    if (argv == NULL || arg == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    for (char **p = *argv; p != NULL && *p != NULL; p++) {
        if (strcmp(*p, arg) == 0) {
            return PMIX_SUCCESS;
        }
    }
    return PMIx_Argv_append_nosize(argv, arg);
}

void PMIx_Argv_free(char **argv)
{
    if (argv == NULL) {
        return;
    }
    for (char **p = argv; *p != NULL; p++) {
        free(*p);
    }
    free(argv);
}

/* Split semantics (same as OpenPMIx 4.2.2's pmix_argv_split_inter): NULL or "" gives
 * NULL (no fields, no array). A delimiter ends the field before it, so a leading
 * delimiter or two in a row make an empty field (kept only with include_empty) while a
 * trailing delimiter makes none: ":a::b:" gives {"", "a", "", "b"} with empties and
 * {"a", "b"} without. Delimiter 0 gives the whole string as one field. NULL also on
 * allocation failure. */
char **PMIx_Argv_split_inter(const char *src_string, int delimiter, bool include_empty)
{
    char **argv = NULL;
    const char *s = src_string;
    char delim = (char)delimiter;

    while (s != NULL && *s != '\0') {
        const char *end = delim != '\0' ? strchr(s, delim) : NULL;
        size_t len = end != NULL ? (size_t)(end - s) : strlen(s);

        if (len > 0 || include_empty) {
            char *field = strndup(s, len);

            if (field == NULL || PMIx_Argv_append_nosize(&argv, field) != PMIX_SUCCESS) {
                free(field);
                goto error;
            }
            free(field);
        }
        s = end != NULL ? end + 1 : s + len;
    }
    return argv;

error:
    PMIx_Argv_free(argv);
    return NULL;
}

char **PMIx_Argv_split(const char *src_string, int delimiter)
{
    return PMIx_Argv_split_inter(src_string, delimiter, false);
}

char **PMIx_Argv_split_with_empty(const char *src_string, int delimiter)
{
    return PMIx_Argv_split_inter(src_string, delimiter, true);
}

/* NULL or empty argv gives a new "" (never NULL except on allocation failure). */
char *PMIx_Argv_join(char **argv, int delimiter)
{
    size_t total = 1;
    char *out;
    char *w;

    for (char **p = argv; p != NULL && *p != NULL; p++) {
        total += strlen(*p) + 1;
    }
    out = malloc(total);
    if (out == NULL) {
        return NULL;
    }
    w = out;
    for (char **p = argv; p != NULL && *p != NULL; p++) {
        size_t len = strlen(*p);

        if (p != argv) {
            *w++ = (char)delimiter;
        }
        memcpy(w, *p, len);
        w += len;
    }
    *w = '\0';
    return out;
}

/* NULL gives NULL; an empty array gives a new empty array. */
char **PMIx_Argv_copy(char **argv)
{
    char **copy;
    int n;

    if (argv == NULL) {
        return NULL;
    }
    n = PMIx_Argv_count(argv);
    copy = calloc((size_t)n + 1, sizeof(char *));
    if (copy == NULL) {
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        copy[i] = strdup(argv[i]);
        if (copy[i] == NULL) {
            PMIx_Argv_free(copy);
            return NULL;
        }
    }
    return copy;
}

/* Index of the entry "name=..." or "name" in env, or -1. */
static int px_env_find(char **env, const char *name)
{
    size_t len = strlen(name);

    for (int i = 0; env != NULL && env[i] != NULL; i++) {
        if (strncmp(env[i], name, len) == 0 && (env[i][len] == '=' || env[i][len] == '\0')) {
            return i;
        }
    }
    return -1;
}

static bool px_env_name_ok(const char *name)
{
    return name != NULL && name[0] != '\0' && strchr(name, '=') == NULL;
}

/* A NULL value sets the empty string. With overwrite false an existing entry is kept and
 * PMIX_ERR_EXISTS returned. If *env is the process environment (environ) setenv(3) does
 * the work and *env is refreshed to the (possibly moved) environ. */
pmix_status_t PMIx_Setenv(const char *name, const char *value, bool overwrite, char ***env)
{
    pmix_status_t rc = PMIX_SUCCESS;
    char *entry = NULL;
    size_t nlen;
    size_t vlen;
    int i;

    if (!px_env_name_ok(name) || env == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (value == NULL) {
        value = "";
    }
    if (*env != NULL && *env == environ) {
        if (!overwrite && getenv(name) != NULL) {
            return PMIX_ERR_EXISTS;
        }
        if (setenv(name, value, 1) != 0) {
            return errno == ENOMEM ? PMIX_ERR_NOMEM : PMIX_ERR_BAD_PARAM;
        }
        *env = environ;
        return PMIX_SUCCESS;
    }
    i = px_env_find(*env, name);
    if (i >= 0 && !overwrite) {
        return PMIX_ERR_EXISTS;
    }
    nlen = strlen(name);
    vlen = strlen(value);
    entry = malloc(nlen + vlen + 2);
    if (entry == NULL) {
        rc = PMIX_ERR_NOMEM;
        goto out;
    }
    memcpy(entry, name, nlen);
    entry[nlen] = '=';
    memcpy(entry + nlen + 1, value, vlen + 1);
    if (i >= 0) {
        free((*env)[i]);
        (*env)[i] = entry;
        entry = NULL;
    } else {
        rc = PMIx_Argv_append_nosize(env, entry);
    }
out:
    free(entry);
    return rc;
}

size_t px_argv_len(char **argv)
{
    size_t len;

    if (argv == NULL) {
        return 0;
    }
    len = sizeof(char *);
    for (char **p = argv; *p != NULL; p++) {
        len += sizeof(char *) + strlen(*p) + 1;
    }
    return len;
}

int px_argv_delete(char ***argv, int start, int num)
{
    int n;

    if (argv == NULL || start < 0 || num < 0) {
        errno = EINVAL;
        return -1;
    }
    n = PMIx_Argv_count(*argv);
    if (start >= n || num == 0) {
        return 0;
    }
    if (num > n - start) {
        num = n - start;
    }
    for (int i = start; i < start + num; i++) {
        free((*argv)[i]);
    }
    /* Move the tail, NULL terminator included. */
    memmove(&(*argv)[start], &(*argv)[start + num], (size_t)(n - start - num + 1) * sizeof(char *));
    return 0;
}

const char *px_env_get(char **env, const char *name)
{
    int i;
    const char *eq;

    if (env == NULL || !px_env_name_ok(name)) {
        return NULL;
    }
    i = px_env_find(env, name);
    if (i < 0) {
        return NULL;
    }
    eq = strchr(env[i], '=');
    return eq != NULL ? eq + 1 : "";
}

int px_env_unset(char ***env, const char *name)
{
    int i;

    if (env == NULL || !px_env_name_ok(name)) {
        errno = EINVAL;
        return -1;
    }
    if (*env != NULL && *env == environ) {
        if (unsetenv(name) != 0) {
            return -1;
        }
        *env = environ;
        return 0;
    }
    while ((i = px_env_find(*env, name)) >= 0) {
        px_argv_delete(env, i, 1);
    }
    return 0;
}

int px_env_merge(char ***env, char *const add[])
{
    for (size_t i = 0; add != NULL && add[i] != NULL; i++) {
        const char *eq = strchr(add[i], '=');
        if (eq == NULL) {
            continue;
        }
        char *name = strndup(add[i], (size_t)(eq - add[i]));
        pmix_status_t rc = name != NULL ? PMIx_Setenv(name, eq + 1, true, env) : PMIX_ERR_NOMEM;
        free(name);
        if (rc != PMIX_SUCCESS) {
            errno = ENOMEM;
            return -1;
        }
    }
    return 0;
}
