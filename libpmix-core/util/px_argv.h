/* Internal argv/environment helpers of libpmix-core/util (argv.c). The public
 * PMIx_Argv_* and PMIx_Setenv functions cover the common cases; these add what daemons
 * need on top. All are plain functions on caller-owned arrays: any thread. */
#ifndef PX_ARGV_H
#define PX_ARGV_H

#include <stddef.h>

#include "pmix_common.h"

/* Bytes a deep copy of argv occupies: the pointer array including its NULL terminator
 * plus every string with its NUL. NULL gives 0. */
size_t px_argv_len(char **argv);

/* Remove (and free) up to num entries of *argv starting at index start; entries past the
 * end are ignored, so start >= count is a no-op. The array stays NULL-terminated and is
 * never freed (an emptied array is a valid empty argv). 0, or -1 with errno EINVAL for a
 * NULL argv pointer or a negative start/num. */
int px_argv_delete(char ***argv, int start, int num);

/* Value of the first "name=value" entry of an environ-style array, pointing into that
 * entry (borrowed; valid while the entry is). An entry "name" without '=' gives "".
 * NULL if absent or if env/name is NULL. */
const char *px_env_get(char **env, const char *name);

/* Remove every "name=..." (and bare "name") entry of *env, freeing it. If *env is the
 * process environment (environ) unsetenv() is used instead and *env is refreshed.
 * 0 whether or not the name was present; -1 with errno EINVAL for NULL arguments or a
 * name that is empty or contains '='. */
int px_env_unset(char ***env, const char *name);

/* Set each "name=value" entry of add (an app's env: NULL-terminated, may be NULL) in
 * *env, replacing an entry of the same name; entries without '=' are skipped. 0, or -1
 * with errno ENOMEM (*env then holds what was set so far). */
int px_env_merge(char ***env, char *const add[]);

#endif /* PX_ARGV_H */
