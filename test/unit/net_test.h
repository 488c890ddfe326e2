/* Helpers the net unit tests share (test_net.c, test_net_tcp.c, test_net_hs.c): the
 * bound on every wait, counting our open fds, running a function on an engine's loop.
 */
#ifndef NET_TEST_H
#define NET_TEST_H

#include <criterion/criterion.h>
#include <dirent.h>

#include "net/px_progress.h"

#define WAIT_MS 10000

/* Entries of /proc/self/fd: equal before and after a test when it leaks no fd. */
static inline int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;

    cr_assert_not_null(d);
    while (readdir(d) != NULL) {
        n++;
    }
    closedir(d);
    return n;
}

/* Run fn(arg) on p's loop thread and wait for it, bounded. */
static inline void on_loop(px_progress_t *p, px_progress_fn_t fn, void *arg)
{
    cr_assert_eq(px_progress_shift_wait(p, fn, arg, WAIT_MS), 0);
}

#endif /* NET_TEST_H */
