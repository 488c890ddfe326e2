/* daemon: formatting of a child's output as the job's --output options ask (tag, rank,
 * timestamp, xml, merge stderr into stdout, raw, copies to files), one stream per
 * (process, channel). Pure byte processing on the daemon's loop; the caller delivers
 * what the stream emits (PMIx_server_IOF_deliver or its own stdout/stderr).
 *
 * Rules every option combination keeps:
 * - Without tag/rank/timestamp/xml the bytes pass through unchanged and unbuffered
 *   (byte-exact, binary safe, no newline added or removed).
 * - With a prefix option, complete lines are emitted one by one with their prefix; a
 *   partial line is held until its newline, end of stream, or PX_IOF_LINE_MAX bytes
 *   (then emitted as a piece and continued, so a 100 MB line costs linear time and
 *   bounded memory). ":raw" emits pieces as they arrive, prefixing only at line starts.
 * - Closing a stream emits what is held, as is (no newline appended).
 *
 * Exact formats (<ch> is "stdout" or "stderr": the process's own channel, even when
 * merged onto stdout; <ts> is local wall-clock time "2026-11-22T10:00:00.123456"):
 *   tag                 "[<job>,<rank>]<ch>: line\n"        (tag wins over rank)
 *   rank                "[<rank>]<ch>: line\n"
 *   timestamp           "<ts> " before the above, or alone: "<ts> line\n"
 *   xml                 "<ch rank=\"N\">line</ch>\n" with & < > escaped as &amp; &lt; &gt;,
 *                       timestamp as an attribute: <ch rank="N" timestamp="<ts>">;
 *                       tag/rank add nothing in xml. A piece that does not end its
 *                       line (long line, raw, close) is a whole element with no '\n'.
 *   The timestamp is taken once per px_iof_stream_push (the arrival of the bytes).
 * Files (each stream opens its own descriptor, O_APPEND; directories are created):
 *   dir=DIR             DIR/<job>/rank.<N>/stdout and DIR/<job>/rank.<N>/stderr
 *                       (with merge both channels go to .../stdout)
 *   file=FILE           FILE.<job>.<N>, both channels
 *   ('/' in <job> becomes '_'.) The stdout stream truncates its file; a stderr stream
 *   sharing a file appends, so create the stdout stream first. Files receive exactly
 *   the bytes that are emitted (formatted the same way); with nocopy nothing is
 *   emitted and only the file gets them.
 */
#ifndef PX_IOF_H
#define PX_IOF_H

#include <stdbool.h>
#include <stddef.h>

#include <pmix_common.h>

#define PX_IOF_LINE_MAX (64 * 1024)

typedef struct {
    bool tag;       /* PMIX_IOF_TAG_OUTPUT: "[<job>,<rank>]<stdout>: " */
    bool rank;      /* PMIX_IOF_RANK_OUTPUT: "[<rank>]" */
    bool timestamp; /* PMIX_IOF_TIMESTAMP_OUTPUT */
    bool xml;       /* PMIX_IOF_XML_OUTPUT: <stdout rank="N">line</stdout> (escaped) */
    bool merge;     /* PMIX_IOF_MERGE_STDERR_STDOUT: stderr is emitted on stdout */
    bool raw;       /* PMIX_IOF_OUTPUT_RAW */
    bool nocopy;    /* PMIX_IOF_FILE_ONLY: written to files only, nothing emitted */
    char *dir;      /* PMIX_IOF_OUTPUT_TO_DIRECTORY, owned, NULL if none */
    char *file;     /* PMIX_IOF_OUTPUT_TO_FILE, owned, NULL if none */
} px_iof_opts_t;

/* Read the PMIX_IOF_* keys above from a job's info (unknown keys ignored). o is zeroed
 * first. A bool key given as PMIX_UNDEF (no value) counts as true. */
void px_iof_opts_from_info(px_iof_opts_t *o, const pmix_info_t *info, size_t ninfo);
void px_iof_opts_fini(px_iof_opts_t *o);

typedef struct px_iof_stream px_iof_stream_t;

/* channel: PMIX_FWD_STDOUT_CHANNEL or PMIX_FWD_STDERR_CHANNEL (what is emitted may be
 * the stdout channel when merging). */
typedef void (*px_iof_emit_fn)(int channel, const char *data, size_t len, void *arg);

/* job: the short job label the prefixes show; rank: the process. With dir/file options
 * the output file is created here (directories included); NULL + errno when it cannot
 * be (the caller reports which path, from px_iof_last_path). */
px_iof_stream_t *px_iof_stream_create(const px_iof_opts_t *o, const char *job, pmix_rank_t rank,
                                      int channel, px_iof_emit_fn emit, void *arg);
/* The file a stream writes to (NULL if none); after a failed create, the path tried. */
const char *px_iof_last_path(void);

void px_iof_stream_push(px_iof_stream_t *s, const char *data, size_t len);
/* Emit what is held, close the file, free. NULL accepted. */
void px_iof_stream_close(px_iof_stream_t *s);

#endif /* PX_IOF_H */
