/* version.c - PMIx_Get_version: which library and which API level callers talk to.
 * Pure function; any thread. */
#include <pmix.h>

/* Callers such as MPI libraries parse the leading "major.minor" of this string and
 * refuse versions below 4, so it starts with the API level we advertise. */
static const char px_version_string[] =
    PMIX_RUNTIME_API_LEVEL " (" PMIX_RUNTIME_NAME " " PMIX_RUNTIME_VERSION ")";

const char *PMIx_Get_version(void)
{
    return px_version_string;
}
