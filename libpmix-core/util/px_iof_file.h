/* util: files that receive a job's output, shared by the node agent's --output
 * (daemon/iof.c) and a tool's PMIx_IOF_pull (client/client_iof_fmt.c): the names the
 * Tools chapter gives them, their directories made, opened, written. No state; any
 * thread.
 */
#ifndef PX_IOF_FILE_H
#define PX_IOF_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include <pmix_common.h>

/* A namespace as one path component: '/' becomes '_'. */
void px_iof_file_label(char *dst, size_t cap, const char *nspace);

/* The file of one stream of process nspace:rank (to_stderr: its stderr or stddiag; with
 * merge both go to the stdout file):
 *   dir (PMIX_IOF_OUTPUT_TO_DIRECTORY)  <dir>/<nspace>/rank.<rank>/stdout | stderr
 *   file (PMIX_IOF_OUTPUT_TO_FILE)      <file>.<nspace>.<rank>.stdout | .stderr
 *   file, pattern (PMIX_IOF_FILE_PATTERN) <file> with each %n the namespace and each %r
 *                                       the rank, then .stdout | .stderr
 * dir wins when both are given. 0, or -1 with errno ENAMETOOLONG (path holds the
 * truncated name) or EINVAL (neither given). */
int px_iof_file_path(char *path, size_t cap, const char *dir, const char *file, bool pattern,
                     const char *nspace, pmix_rank_t rank, bool to_stderr, bool merge);

/* Make path's directories, then open it for appending (truncated first when fresh).
 * The descriptor (close-on-exec), or -1 with errno. */
int px_iof_file_open(const char *path, bool fresh);

/* Write all of it (EINTR retried). 0, or -1 with errno. */
int px_iof_file_write(int fd, const char *data, size_t len);

#endif /* PX_IOF_FILE_H */
