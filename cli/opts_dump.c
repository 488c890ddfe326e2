/* opts_dump: print the option table of every command (cli/opts.c) as lines
 * "<command> <long> <short or -> <none|req|opt>", for the build (the bash completion
 * file) and the tests; with --aliases, the single-dash long forms instead, as lines
 * "<command> <alias>" (the man page check). Not installed. Single-threaded. */
#include <stdio.h>
#include <string.h>

#include "cli/opts_int.h"

int main(int argc, char **argv)
{
    static const char *const args[] = {"none", "req", "opt"};
    bool aliases = argc > 1 && strcmp(argv[1], "--aliases") == 0;
    if (argc > 2 || (argc == 2 && !aliases)) {
        fprintf(stderr, "usage: opts_dump [--aliases]\n");
        return 2;
    }
    for (int k = 0; k < PX_CMD_COUNT; k++) {
        for (size_t i = 0; i < px_opt_ndefs; i++) {
            const px_opt_def_t *d = &px_opt_defs[i];
            if (!(d->cmds & (1u << k))) {
                continue;
            }
            if (aliases) {
                if (d->alias != NULL) {
                    printf("%s %s\n", px_cmd_names[k], d->alias);
                }
                continue;
            }
            printf("%s %s %c %s\n", px_cmd_names[k], d->lng, d->shrt != 0 ? d->shrt : '-',
                   args[d->arg]);
        }
    }
    return 0;
}
