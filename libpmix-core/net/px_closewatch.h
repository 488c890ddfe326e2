/* net: watching a descriptor for its closure on a loop (the PMIX_KEEPALIVE_PIPE a tool
 * hands the launcher it starts: data is no news, end of file or an error is). Loop
 * thread only.
 */
#ifndef PX_CLOSEWATCH_H
#define PX_CLOSEWATCH_H

#include <event2/event.h>

typedef struct px_closewatch px_closewatch_t;

/* Watch fd (made non-blocking and close-on-exec: it is ours, not our children's) on base:
 * closed(arg) runs once, on the loop, when it reads end of file or fails. NULL with errno
 * (EBADF: fd is not open). */
px_closewatch_t *px_closewatch_start(struct event_base *base, int fd, void (*closed)(void *arg),
                                     void *arg);
/* Stop watching (the descriptor stays open). NULL accepted. */
void px_closewatch_stop(px_closewatch_t *w);

#endif /* PX_CLOSEWATCH_H */
