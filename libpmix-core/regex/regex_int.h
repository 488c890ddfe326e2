/* regex: helpers shared by the files of this area only (growable text, string lists,
 * "pmix:"/"raw:" identifiers). Not for use by other areas. Any thread; no shared state. */
#ifndef PX_REGEX_INT_H
#define PX_REGEX_INT_H

#include <stddef.h>
#include <stdint.h>

/* Growable text. Appends grow the capacity geometrically, so building an n-byte string
 * costs O(n). A failed allocation makes the buffer "failed": later appends are no-ops and
 * px_regex_buf_finish() reports ENOMEM, so builders check once, at the end. */
struct px_regex_buf {
    char *data; /* owned */
    size_t len;
    size_t cap;
    int failed;
};

void px_regex_buf_init(struct px_regex_buf *b);
void px_regex_buf_append(struct px_regex_buf *b, const char *s, size_t n);
void px_regex_buf_putc(struct px_regex_buf *b, char c);
/* Decimal value, zero-padded to at least width digits (width <= 20). */
void px_regex_buf_put_u64(struct px_regex_buf *b, uint64_t v, size_t width);
/* NUL-terminate and hand the text to *out (buffer left empty); -1/ENOMEM if failed. */
int px_regex_buf_finish(struct px_regex_buf *b, char **out);
void px_regex_buf_release(struct px_regex_buf *b);

/* Many strings stored back to back in one buffer: one allocation per doubling rather than
 * per string, which matters at millions of entries. */
struct px_regex_strlist {
    struct px_regex_buf text; /* owned: the strings, each NUL-terminated */
    size_t *off;              /* owned: start of string i in text.data */
    size_t n;
    size_t cap;
    int failed;
};

void px_regex_strlist_init(struct px_regex_strlist *l);
/* Start a new string at the end of l->text; append its bytes to l->text, then end it. */
void px_regex_strlist_begin(struct px_regex_strlist *l);
void px_regex_strlist_end(struct px_regex_strlist *l);
/* Copy into a malloc'd NULL-terminated argv of malloc'd strings; -1/ENOMEM on failure. */
int px_regex_strlist_to_argv(struct px_regex_strlist *l, char ***argv);
void px_regex_strlist_release(struct px_regex_strlist *l);

/* Identifier of a regex: returns the body after "pmix:" or "raw:", and sets *is_raw.
 * NULL with errno ENOTSUP for "blob:", EINVAL for anything else. */
const char *px_regex_body(const char *regex, int *is_raw);

#define PX_REGEX_PREFIX "pmix:"

#endif /* PX_REGEX_INT_H */
