/* client: a pull's formatting and aggregation of the output it receives
 * (client_iof_fmt.c). Client loop only, except px_iof_fmt_parse / px_iof_fmt_active.
 */
#ifndef PX_IOF_FMT_H
#define PX_IOF_FMT_H

#include <stdbool.h>
#include <stddef.h>

#include <pmix_common.h>

struct event_base;

typedef struct {
    bool tag, rank, timestamp, xml, raw; /* PMIX_IOF_TAG/RANK/TIMESTAMP/XML_OUTPUT, _RAW */
    uint32_t bsize;                      /* PMIX_IOF_BUFFERING_SIZE, 0: none */
    uint32_t btime;                      /* PMIX_IOF_BUFFERING_TIME (s), 0: none */
    /* Files (util/px_iof_file.h names them): PMIX_IOF_OUTPUT_TO_DIRECTORY,
     * PMIX_IOF_OUTPUT_TO_FILE (borrowed from the directives; px_iof_fmt_create copies),
     * PMIX_IOF_FILE_PATTERN, PMIX_IOF_FILE_ONLY (nothing but the files gets the output) */
    const char *dir, *file;
    bool pattern, file_only;
    bool merge; /* PMIX_IOF_MERGE_STDERR_STDOUT: stderr (and stddiag) goes out as stdout */
} px_iof_fmt_opts_t;

/* A pull's directives into o (the others are not read here). PMIX_ERR_BAD_PARAM for a
 * wrong type, both a file and a directory, a pattern or PMIX_IOF_FILE_ONLY without a
 * file; a directory (or a file's) that cannot be made: its errno's status
 * (PMIX_ERR_NO_PERMISSIONS, else PMIX_ERR_BAD_PARAM), with a message. */
pmix_status_t px_iof_fmt_parse(const pmix_info_t *dirs, size_t n, px_iof_fmt_opts_t *o);
/* Whether o asks for anything (else the bytes pass as they come, no state). */
bool px_iof_fmt_active(const px_iof_fmt_opts_t *o);

/* Where the formatted bytes go (borrowed for the call). */
typedef void (*px_iof_fmt_deliver_fn)(const pmix_proc_t *source, pmix_iof_channel_t channel,
                                      const char *bytes, size_t n, void *arg);

typedef struct px_iof_fmt px_iof_fmt_t;

/* NULL on ENOMEM. Timers go on base (the client loop's). The files are opened at the
 * first output of each (source, channel): the first stream of a path starts it afresh,
 * the others append; one that cannot be opened or written is said once
 * (help-pmix-iof.txt) and the rest goes on without it. */
px_iof_fmt_t *px_iof_fmt_create(const px_iof_fmt_opts_t *o, struct event_base *base,
                                px_iof_fmt_deliver_fn deliver, void *arg);
/* Bytes of source's channel as they arrived. */
void px_iof_fmt_push(px_iof_fmt_t *f, const pmix_proc_t *source, pmix_iof_channel_t channel,
                     const char *bytes, size_t n);
/* flush: hand over what is held (a partial line as is, aggregated bytes) first. Frees f;
 * NULL accepted. */
void px_iof_fmt_destroy(px_iof_fmt_t *f, bool flush);

#endif /* PX_IOF_FMT_H */
