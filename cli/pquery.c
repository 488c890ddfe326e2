/* pquery: ask a running DVM for query keys (PMIx_Query_info as a tool) and print the
 * answers readably: nested info arrays indented, process tables as rows, attribute lists
 * one per line; --parsable prints one "key:...:value" line per leaf. Main thread only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix_tool.h>

#include "cli/px_cli.h"
#include "cli/px_query_print.h"
#include "help/px_help.h"
#include "util/px_names.h"

/* A key as typed: its string ("pmix.qry.ns"), or its name ("PMIX_QUERY_NAMESPACES")
 * from the attribute dictionary. NULL when a name is unknown. */
static const char *resolve_key(const char *typed)
{
    if (strncmp(typed, "PMIX_", 5) != 0) {
        return typed;
    }
    const struct px_abi_attr *a = px_names_attr_by_name(typed);
    return a != NULL ? a->key : NULL;
}

int main(int argc, char **argv)
{
    px_cmd_t cmd;
    pmix_proc_t me;
    size_t nkeys = 0;
    int ret = 1;

    /* the key names are checked before connecting: a typo needs no DVM */
    px_opts_result_t r = px_opts_parse(PX_CMD_PQUERY, argc, argv, &cmd);
    if (r != PX_OPTS_RUN) {
        return r == PX_OPTS_EXIT_OK ? 0 : 1;
    }
    nkeys = (size_t)PMIx_Argv_count(cmd.keys);
    for (size_t i = 0; i < nkeys; i++) {
        if (resolve_key(cmd.keys[i]) == NULL) {
            px_show_help("help-prte-cli.txt", "pquery-unknown-key", cmd.prog, cmd.keys[i]);
            px_opts_fini(&cmd);
            return 1;
        }
    }
    if (px_cli_connect(&cmd, &me) != 0) {
        px_opts_fini(&cmd);
        return 1;
    }

    /* one query per key, each with the --nspace qualifier when given */
    pmix_query_t *q = PMIx_Query_create(nkeys);
    for (size_t i = 0; q != NULL && i < nkeys; i++) {
        PMIx_Argv_append_nosize(&q[i].keys, resolve_key(cmd.keys[i]));
        if (cmd.job_nspace != NULL) {
            q[i].qualifiers = PMIx_Info_create(1);
            q[i].nqual = 1;
            PMIX_INFO_LOAD(&q[i].qualifiers[0], PMIX_NSPACE, cmd.job_nspace, PMIX_STRING);
        }
    }
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc = q != NULL ? PMIx_Query_info(q, nkeys, &res, &nres) : PMIX_ERR_NOMEM;
    if (rc == PMIX_SUCCESS || rc == PMIX_QUERY_PARTIAL_SUCCESS) {
        px_qprint_results(stdout, res, nres, cmd.parsable);
    }
    /* every key the DVM did not answer is named on stderr */
    for (size_t i = 0; i < nkeys; i++) {
        const char *key = resolve_key(cmd.keys[i]);
        bool found = false;
        for (size_t k = 0; k < nres && !found; k++) {
            found = PMIX_CHECK_KEY(&res[k], key);
        }
        if (!found) {
            px_show_help(
                "help-prte-cli.txt", "pquery-not-answered", cmd.prog, cmd.keys[i],
                PMIx_Error_string(rc == PMIX_QUERY_PARTIAL_SUCCESS ? PMIX_ERR_NOT_FOUND : rc));
        }
    }
    ret = rc == PMIX_SUCCESS ? 0 : 1;
    if (res != NULL) {
        PMIx_Info_free(res, nres);
    }
    if (q != NULL) {
        PMIx_Query_free(q, nkeys);
    }
    PMIx_tool_finalize();
    px_opts_fini(&cmd);
    return ret;
}
