/* Internal lookups over the generated name tables (px_abi_tables.[ch]): constant value
 * -> name, flag sets -> "A|B" strings, attribute name <-> key. Read-only data: any
 * thread. Implemented in strings.c together with the public *_string functions. */
#ifndef PX_NAMES_H
#define PX_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "util/px_abi_tables.h"

/* The printed name of value v in table e (the primary name of its aliases), or NULL if
 * no constant of that typedef has this value. */
const char *px_names_enum(const struct px_abi_enum *e, int64_t v);

/* Write the flag set v of table e into buf (size bytes, always NUL-terminated when
 * size > 0) like snprintf, returning the length the full text needs. Format: the name of
 * a constant whose value is exactly v if there is one (so 0 prints e.g.
 * PMIX_FWD_NO_CHANNELS); else the names of the single-bit constants set in v in
 * ascending bit order joined by '|', followed by any remaining unnamed bits as one hex
 * number ("0x..."); none is printed for 0 when no constant is 0. */
size_t px_names_flags(const struct px_abi_enum *e, uint64_t v, const char *none, char *buf,
                      size_t size);

/* Attribute dictionary entry by macro name ("PMIX_JOB_SIZE") or by key string
 * ("pmix.job.size"; master's three re-keyed strings are accepted as synonyms). NULL if
 * unknown or NULL. */
const struct px_abi_attr *px_names_attr_by_name(const char *name);
const struct px_abi_attr *px_names_attr_by_key(const char *key);

#endif /* PX_NAMES_H */
