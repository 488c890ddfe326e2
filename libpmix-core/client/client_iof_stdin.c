/* client: PMIX_IOF_PUSH_STDIN — the library reads this process's own stdin and forwards
 * it to the targets of the PMIx_IOF_push that asked, until end of input (then a push
 * with PMIX_IOF_COMPLETE closes their stdin), a later PMIx_IOF_push with
 * PMIX_IOF_COMPLETE, or teardown (Tools chapter, "Forwarding stdin"). A reader thread
 * of ours: poll on stdin and a wake pipe, read 64 KiB, push it and wait for the push's
 * completion before reading more (the host completes a push once its targets' queues
 * have room: a producer piping into us is held back, as in `producer | consumer`). It
 * never waits on anything the loop needs, so stopping it is prompt: a push still in
 * flight completes into a record the callback frees.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix_tool.h>

#include "client/px_client.h"
#include "common/px_common.h"

#define PX_STDIN_CHUNK 65536

/* One push in flight: the reader waits on it; whoever lets go last frees it. */
typedef struct {
    bool done;
    int refs; /* the reader + the callback */
    pmix_byte_object_t bo;
} rd_push_t;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool running;  /* a reader was started and not joined yet */
    bool finished; /* it left on its own (end of input, a failed push) */
    bool stop;
    pthread_t thread;
    int wake[2];
    pmix_proc_t *targets; /* owned */
    size_t ntargets;
} rd = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER, .wake = {-1, -1}};

static void push_unref(rd_push_t *p)
{
    if (--p->refs == 0) {
        free(p->bo.bytes);
        free(p);
    }
}

/* Any thread (the loop's). */
static void push_done(pmix_status_t status, void *cbdata)
{
    (void)status;
    rd_push_t *p = cbdata;
    pthread_mutex_lock(&rd.lock);
    p->done = true;
    pthread_cond_broadcast(&rd.cond);
    push_unref(p);
    pthread_mutex_unlock(&rd.lock);
}

/* Push bytes (n 0: end of input) and wait for its completion or a stop. false: stopped
 * or the push failed. */
static bool push_and_wait(char *bytes, size_t n)
{
    rd_push_t *p = calloc(1, sizeof(*p));
    if (p == NULL) {
        free(bytes);
        return false;
    }
    p->refs = 2;
    p->bo.bytes = bytes;
    p->bo.size = n;
    pmix_info_t dir;
    bool yes = true;
    PMIX_INFO_LOAD(&dir, PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_IOF_push(rd.targets, rd.ntargets, n > 0 ? &p->bo : NULL,
                                     n > 0 ? NULL : &dir, n > 0 ? 0 : 1, push_done, p);
    PMIX_INFO_DESTRUCT(&dir);
    pthread_mutex_lock(&rd.lock);
    if (rc != PMIX_SUCCESS) {
        p->refs = 1; /* no callback will come */
        px_debug(1, "client", "stdin push failed: %s", PMIx_Error_string(rc));
    }
    while (rc == PMIX_SUCCESS && !p->done && !rd.stop) {
        pthread_cond_wait(&rd.cond, &rd.lock);
    }
    bool go_on = rc == PMIX_SUCCESS && !rd.stop;
    push_unref(p);
    pthread_mutex_unlock(&rd.lock);
    return go_on;
}

static void *reader(void *arg)
{
    (void)arg;
    for (;;) {
        struct pollfd pfd[2] = {{STDIN_FILENO, POLLIN, 0}, {rd.wake[0], POLLIN, 0}};
        if (poll(pfd, 2, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            break;
        }
        if (pfd[1].revents != 0) {
            break; /* stopped */
        }
        char *buf = malloc(PX_STDIN_CHUNK);
        ssize_t n = buf != NULL ? read(STDIN_FILENO, buf, PX_STDIN_CHUNK) : -1;
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
            free(buf);
            continue;
        }
        if (n <= 0) {
            free(buf);
            push_and_wait(NULL, 0); /* end of input (or unreadable): the targets' stdin closes */
            break;
        }
        if (!push_and_wait(buf, (size_t)n)) {
            break;
        }
    }
    pthread_mutex_lock(&rd.lock);
    rd.finished = true;
    pthread_mutex_unlock(&rd.lock);
    return NULL;
}

pmix_status_t px_cl_iof_stdin_start(const pmix_proc_t *targets, size_t ntargets)
{
    pthread_mutex_lock(&rd.lock);
    bool over = rd.running && rd.finished;
    pthread_mutex_unlock(&rd.lock);
    if (over) {
        px_cl_iof_stdin_stop(); /* the last reader is done: joined, a new one may start */
    }
    pthread_mutex_lock(&rd.lock);
    if (rd.running) {
        pthread_mutex_unlock(&rd.lock);
        return PMIX_EXISTS; /* one reader of our stdin at a time */
    }
    pmix_status_t rc = PMIX_ERR_NOMEM;
    rd.targets = calloc(ntargets, sizeof(*targets));
    if (rd.targets != NULL && pipe2(rd.wake, O_CLOEXEC) == 0) {
        memcpy(rd.targets, targets, ntargets * sizeof(*targets));
        rd.ntargets = ntargets;
        rd.stop = false;
        rd.finished = false;
        if (pthread_create(&rd.thread, NULL, reader, NULL) == 0) {
            rd.running = true;
            rc = PMIX_SUCCESS;
        } else {
            close(rd.wake[0]);
            close(rd.wake[1]);
            rd.wake[0] = rd.wake[1] = -1;
        }
    }
    if (rc != PMIX_SUCCESS) {
        free(rd.targets);
        rd.targets = NULL;
    }
    pthread_mutex_unlock(&rd.lock);
    return rc;
}

bool px_cl_iof_stdin_stop(void)
{
    pthread_mutex_lock(&rd.lock);
    if (rd.running && pthread_equal(pthread_self(), rd.thread)) {
        pthread_mutex_unlock(&rd.lock);
        return false; /* the reader's own end-of-input push: it is leaving anyway */
    }
    bool was = rd.running;
    if (was) {
        rd.stop = true;
        pthread_cond_broadcast(&rd.cond);
        if (write(rd.wake[1], "x", 1) < 0) {
            /* the pipe holds a byte already: the reader wakes anyway */
        }
    }
    pthread_mutex_unlock(&rd.lock);
    if (!was) {
        return false;
    }
    pthread_join(rd.thread, NULL);
    pthread_mutex_lock(&rd.lock);
    rd.running = false;
    close(rd.wake[0]);
    close(rd.wake[1]);
    rd.wake[0] = rd.wake[1] = -1;
    free(rd.targets);
    rd.targets = NULL;
    rd.ntargets = 0;
    pthread_mutex_unlock(&rd.lock);
    return true;
}
