/* User-facing messages: lookup and rendering of the compiled help catalogs
 * (share/help/help-<area>.txt), and a de-duplication table for repeated messages.
 * Every function here is thread-safe; the catalog itself is read-only. */
#ifndef PX_HELP_H
#define PX_HELP_H

#include <stdarg.h>
#include <stdio.h>

/* The text of (file, topic) -- a printf format whose lines each end in '\n' -- or NULL
 * with errno = ENOENT when the catalog has no such entry. The string is static. */
const char *px_help_lookup(const char *file, const char *topic);

/* Number of printf arguments the topic consumes (a '*' width counts as one), or -1 with
 * errno = ENOENT. */
int px_help_nargs(const char *file, const char *topic);

/* Render (file, topic) with the printf arguments that follow. Returns a malloc'd string
 * (the caller frees it), or NULL with errno = ENOENT (no such topic) or ENOMEM. */
char *px_help_render(const char *file, const char *topic, ...);
char *px_help_vrender(const char *file, const char *topic, va_list ap);

/* Render (file, topic) and write it to stderr (or give it to the sink, below) as one
 * block framed by lines of dashes.
 * When the topic is missing, writes a framed message naming the missing file and topic
 * instead and returns -1 with errno = ENOENT. Returns 0 on success, -1 + errno else. */
int px_show_help(const char *file, const char *topic, ...);

/* Where px_show_help() sends its messages instead of stderr: fn gets each rendered message
 * (borrowed for the call) and returns 0 when it took it, -1 to have it written to stderr
 * as usual. A daemon sends them to its controller's terminal this way. fn is called on
 * the thread that shows the message. NULL: stderr again. Any thread. */
typedef int (*px_help_sink_fn)(const char *file, const char *topic, const char *text, void *arg);
void px_help_set_sink(px_help_sink_fn fn, void *arg);

/* Same as px_show_help(), to any stream (e.g. stdout, or a memory stream in tests). */
int px_help_fshow(FILE *out, const char *file, const char *topic, ...);
int px_help_vfshow(FILE *out, const char *file, const char *topic, va_list ap);

/* Write already rendered text (e.g. a message a daemon sent to the controller) to out as
 * one framed block. A missing final newline is added. Returns 0 or -1 + errno. */
int px_help_fput(FILE *out, const char *text);

/* The line of dashes used to frame messages (no newline). */
extern const char px_help_rule[];

/* ---- De-duplication ---------------------------------------------------------------
 * The controller receives the same message from many processes; it shows the first
 * one and counts the rest, then prints a summary such as
 *     "15 more processes sent help message help-x.txt / topic".
 * A table is keyed by (file, topic), or by (file, topic, rendered text) when created
 * with PX_HELP_DEDUP_BY_TEXT. All functions lock the table's mutex, so they may be
 * called from any thread. */
typedef struct px_help_dedup px_help_dedup_t;

#define PX_HELP_DEDUP_BY_TEXT 0x1

/* Returns a new empty table, or NULL with errno (EINVAL for unknown flags, ENOMEM). */
px_help_dedup_t *px_help_dedup_create(int flags);
/* Frees the table; accepts NULL. */
void px_help_dedup_destroy(px_help_dedup_t *d);

/* Count one occurrence of (file, topic[, text]); text may be NULL (treated as "") and
 * is ignored unless PX_HELP_DEDUP_BY_TEXT. Returns 1 the first time (the caller should
 * show the message), 0 for a repeat (only counted), -1 with errno on error. */
int px_help_dedup_note(px_help_dedup_t *d, const char *file, const char *topic, const char *text);

/* How many times (file, topic[, text]) has been noted in total; 0 if never. */
unsigned long px_help_dedup_count(px_help_dedup_t *d, const char *file, const char *topic,
                                  const char *text);

/* Note an already rendered message and, the first time only, px_help_fput() it to out.
 * Returns 1 if printed, 0 if only counted, -1 with errno on error. */
int px_help_dedup_show_text(px_help_dedup_t *d, FILE *out, const char *file, const char *topic,
                            const char *text);

/* Render (file, topic, ...) locally and px_help_dedup_show_text() it to stderr. A
 * missing topic is shown (and counted) as the missing-topic message; returns -1 with
 * errno = ENOENT in that case, like px_show_help(). */
int px_help_dedup_show(px_help_dedup_t *d, const char *file, const char *topic, ...);

/* The repeats noted since the previous summary, one line per (file, topic) in the order
 * the topics were first seen, e.g. "3 more processes sent help message help-a.txt /
 * topic\n". Resets those pending counts (totals are kept, and a message already shown
 * is not shown again). Returns a malloc'd string ("" when there is nothing to report),
 * or NULL with errno = ENOMEM. */
char *px_help_dedup_summary(px_help_dedup_t *d);

/* px_help_dedup_summary() written to out. Returns the number of lines written, or -1
 * with errno. */
int px_help_dedup_flush(px_help_dedup_t *d, FILE *out);

#endif /* PX_HELP_H */
