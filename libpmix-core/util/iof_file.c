/* util: files that receive a job's output (px_iof_file.h): names, directories, opening,
 * writing. No state; any thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/px_iof_file.h"

void px_iof_file_label(char *dst, size_t cap, const char *nspace)
{
    snprintf(dst, cap, "%s", nspace != NULL ? nspace : "job");
    for (char *p = dst; *p != '\0'; p++) {
        if (*p == '/') {
            *p = '_';
        }
    }
}

/* Append src to path at *at; false when it does not fit. */
static bool put(char *path, size_t cap, size_t *at, const char *src, size_t n)
{
    if (*at + n >= cap) {
        return false;
    }
    memcpy(path + *at, src, n);
    *at += n;
    path[*at] = '\0';
    return true;
}

int px_iof_file_path(char *path, size_t cap, const char *dir, const char *file, bool pattern,
                     const char *nspace, pmix_rank_t rank, bool to_stderr, bool merge)
{
    char label[PMIX_MAX_NSLEN + 1];
    px_iof_file_label(label, sizeof(label), nspace);
    const char *name = to_stderr && !merge ? "stderr" : "stdout";
    int n = -1;
    if (cap == 0) {
        errno = ENAMETOOLONG;
        return -1;
    }
    path[0] = '\0';
    if (dir != NULL) {
        n = snprintf(path, cap, "%s/%s/rank.%u/%s", dir, label, (unsigned)rank, name);
    } else if (file != NULL && !pattern) {
        n = snprintf(path, cap, "%s.%s.%u.%s", file, label, (unsigned)rank, name);
    } else if (file != NULL) {
        char num[16];
        snprintf(num, sizeof(num), "%u", (unsigned)rank);
        size_t at = 0;
        bool fits = true;
        for (const char *p = file; fits && *p != '\0'; p++) {
            if (p[0] == '%' && p[1] == 'n') {
                fits = put(path, cap, &at, label, strlen(label));
                p++;
            } else if (p[0] == '%' && p[1] == 'r') {
                fits = put(path, cap, &at, num, strlen(num));
                p++;
            } else {
                fits = put(path, cap, &at, p, 1);
            }
        }
        fits = fits && put(path, cap, &at, ".", 1) && put(path, cap, &at, name, strlen(name));
        n = fits ? (int)at : (int)cap;
    } else {
        errno = EINVAL;
        return -1;
    }
    if (n < 0 || (size_t)n >= cap) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* mkdir -p of every directory above the last component of path. */
static int make_parents(const char *path)
{
    char tmp[PATH_MAX];
    size_t len = strlen(path);
    if (len >= sizeof(tmp)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(tmp, path, len + 1);
    char *slash = strrchr(tmp, '/');
    if (slash == NULL || slash == tmp) {
        return 0; /* in the working directory, or in / */
    }
    *slash = '\0';
    for (char *p = tmp + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (tmp[0] != '\0' && mkdir(tmp, 0755) < 0 && errno != EEXIST) {
                return -1;
            }
            if (c == '\0') {
                break;
            }
            *p = c;
        }
    }
    return 0;
}

int px_iof_file_open(const char *path, bool fresh)
{
    if (make_parents(path) < 0) {
        return -1;
    }
    return open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (fresh ? O_TRUNC : 0), 0644);
}

int px_iof_file_write(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, data, len);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            if (w == 0) {
                errno = EIO;
            }
            return -1;
        }
        data += w;
        len -= (size_t)w;
    }
    return 0;
}
