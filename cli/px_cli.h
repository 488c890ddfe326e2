/* cli: what the tool commands (prun, pterm, pps, pquery, pattrs) share — finding and connecting to
 * a DVM through the tool connection chain, and small process helpers. Main thread only.
 */
#ifndef PX_CLI_H
#define PX_CLI_H

#include <stdbool.h>
#include <sys/types.h>

#include <pmix_common.h>

#include "cli/px_opts.h"

/* PMIx_tool_init with the chain the options name (--dvm-uri uri|file:path, --pid,
 * --namespace, --system-server-first/-only, else the default search). 0, or -1 after
 * printing how to start a DVM. */
int px_cli_connect(const px_cmd_t *cmd, pmix_proc_t *me);

/* The start of a tool command: parse its line, then connect. -1 when *cmd (owned by
 * the caller, px_opts_fini) and *me are ready; else the status to exit with (help or
 * version printed, or a clear error). */
int px_cli_tool_start(px_cmd_kind_t kind, int argc, char **argv, px_cmd_t *cmd, pmix_proc_t *me);

/* Wait until pid is gone (no process, or a zombie) for at most ms. true if gone. */
bool px_cli_wait_gone(pid_t pid, int ms);

/* A launcher whose stdout/stderr is a pipe makes that pipe hold 1 MiB (best effort:
 * fs.pipe-max-size and the per-user pipe limits may refuse; never shrinks). Forwarded
 * output then reaches the reader in a few large writes instead of one wake-up of each
 * side per 64 KiB, which decides the throughput of `prun ... | consumer` on few cores. */
void px_cli_grow_stdout_pipes(void);

/* Monotonic milliseconds. */
double px_cli_now_ms(void);

#endif /* PX_CLI_H */
