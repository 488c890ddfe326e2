/* The compiled help catalog: one sorted table written by tools/gen_help.py at build time.
 * Read-only after load, so any thread may read it; only help.c should need this header. */
#ifndef PX_HELP_TABLE_H
#define PX_HELP_TABLE_H

#include <stddef.h>

struct px_help_entry {
    const char *file;  /* catalog base name, e.g. "help-px-util.txt" (static) */
    const char *topic; /* topic name without brackets (static) */
    int nargs;         /* printf arguments the text consumes (a '*' counts as one) */
    const char *text;  /* printf format, each line ending in '\n' (static) */
};

/* Sorted by (file, topic) with strcmp; px_help_table_len entries. */
extern const struct px_help_entry px_help_table[];
extern const size_t px_help_table_len;

#endif /* PX_HELP_TABLE_H */
