/* cli: prte's and prterun's --prtemca <key> <value> (PRRTE's spelling of its parameters)
 * and the PRTE_MCA_<key> environment variables. Only the keys of the table below are
 * known; any other key on the command line is refused (we would not honour it). Other
 * PRTE_MCA_* variables in the environment are not ours to judge and are left alone.
 * Single-threaded; called while parsing the command line. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opts_int.h"
#include "help/px_help.h"

typedef struct {
    const char *key;
    size_t field; /* offset of the char * in px_cmd_t */
    /* NULL, or what else the value sets (0), after checking it (-1: message shown) */
    int (*check)(px_cmd_t *cmd, const char *from, const char *value);
} px_prtemca_key_t;

/* routed_radix: a whole number of children per daemon in the routing tree. */
static int px_prtemca_radix(px_cmd_t *cmd, const char *from, const char *value)
{
    char *end = NULL;
    unsigned long v = strtoul(value, &end, 10);
    if (value[0] < '0' || value[0] > '9' || *end != '\0' || v < 1 || v > 4096) {
        px_show_help("help-prte-cli.txt", "bad-routed-radix", cmd->prog, from, value);
        return -1;
    }
    cmd->radix = (unsigned)v;
    return 0;
}

static const px_prtemca_key_t px_prtemca_keys[] = {
    {"plm_ssh_agent", offsetof(px_cmd_t, plm_ssh_agent), NULL},
    {"routed_radix", offsetof(px_cmd_t, routed_radix), px_prtemca_radix},
};
#define PX_PRTEMCA_NKEYS (sizeof(px_prtemca_keys) / sizeof(px_prtemca_keys[0]))

static char **px_prtemca_slot(px_cmd_t *cmd, const px_prtemca_key_t *k)
{
    return (char **)(void *)((char *)cmd + k->field);
}

/* Store value (from: the option or variable that gave it, for the message). */
static int px_prtemca_set(px_cmd_t *cmd, const px_prtemca_key_t *k, const char *from,
                          const char *value)
{
    char **slot = px_prtemca_slot(cmd, k);
    char *copy;

    if (value[strspn(value, " \t")] == '\0') {
        px_show_help("help-prte-cli.txt", "bad-prtemca-value", cmd->prog, from, k->key);
        return -1;
    }
    if (k->check != NULL && k->check(cmd, from, value) != 0) {
        return -1;
    }
    if ((copy = strdup(value)) == NULL)
        return -1;
    free(*slot);
    *slot = copy;
    return 0;
}

int px_opts_prtemca(px_cmd_t *cmd, const char *opt, const char *key, const char *value)
{
    char known[256] = "";

    for (size_t i = 0; i < PX_PRTEMCA_NKEYS; i++) {
        if (strcmp(px_prtemca_keys[i].key, key) == 0)
            return px_prtemca_set(cmd, &px_prtemca_keys[i], opt, value);
    }
    for (size_t i = 0; i < PX_PRTEMCA_NKEYS; i++) {
        if (known[0] != '\0')
            strncat(known, ", ", sizeof(known) - strlen(known) - 1);
        strncat(known, px_prtemca_keys[i].key, sizeof(known) - strlen(known) - 1);
    }
    px_show_help("help-prte-cli.txt", "unknown-prtemca", cmd->prog, opt, key, known);
    return -1;
}

int px_opts_prtemca_env(px_cmd_t *cmd)
{
    for (size_t i = 0; i < PX_PRTEMCA_NKEYS; i++) {
        const px_prtemca_key_t *k = &px_prtemca_keys[i];
        char var[128];
        const char *value;

        if (*px_prtemca_slot(cmd, k) != NULL)
            continue; /* the command line wins */
        snprintf(var, sizeof(var), "PRTE_MCA_%s", k->key);
        if ((value = getenv(var)) != NULL && px_prtemca_set(cmd, k, var, value) < 0)
            return -1;
    }
    return 0;
}
