/* regex: the Standard's PMIx_generate_regex / PMIx_generate_ppn, thin wrappers over the
 * px_regex_* functions (see px_regex.h). Any thread; no shared state. */
#include <errno.h>
#include <stddef.h>

#include <pmix_server.h>

#include "regex/px_regex.h"

/* errno of a failed px_regex_* call -> the API's status. */
static pmix_status_t regex_status(int err)
{
    return err == ENOMEM ? PMIX_ERR_NOMEM : PMIX_ERR_BAD_PARAM;
}

pmix_status_t PMIx_generate_regex(const char *input, char **regex)
{
    if (!input || !regex)
        return PMIX_ERR_BAD_PARAM;
    if (px_regex_generate_nodes(input, regex) < 0)
        return regex_status(errno);
    return PMIX_SUCCESS;
}

pmix_status_t PMIx_generate_ppn(const char *input, char **ppn)
{
    if (!input || !ppn)
        return PMIX_ERR_BAD_PARAM;
    if (px_regex_generate_ppn(input, ppn) < 0)
        return regex_status(errno);
    return PMIX_SUCCESS;
}
