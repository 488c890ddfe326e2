/* opts_dump: print the option table of every command (cli/opts.c) as lines
 * "<command> <long> <short or -> <none|req|opt>", for the build (the bash completion
 * file) and the tests. Not installed. Single-threaded. */
#include <stdio.h>

#include "cli/opts_int.h"

int main(void)
{
    static const char *const args[] = {"none", "req", "opt"};
    for (int k = 0; k < PX_CMD_COUNT; k++) {
        for (size_t i = 0; i < px_opt_ndefs; i++) {
            const px_opt_def_t *d = &px_opt_defs[i];
            if (!(d->cmds & (1u << k))) {
                continue;
            }
            printf("%s %s %c %s\n", px_cmd_names[k], d->lng, d->shrt != 0 ? d->shrt : '-',
                   args[d->arg]);
        }
    }
    return 0;
}
