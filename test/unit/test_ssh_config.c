/* Unit: px_ssh_config_read, the ~/.ssh/config subset of the built-in ssh client
 * (launcher/ssh.c): Host patterns with wildcards and negation, first value wins,
 * keywords case-insensitive, "=" separators, ~/ expansion, a missing file. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/px_ssh.h"

static char path[64];

static void write_config(const char *text)
{
    snprintf(path, sizeof(path), "/tmp/px_ssh_cfg.XXXXXX");
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static px_ssh_config_t read_for(const char *host)
{
    px_ssh_config_t c = {.port = 22};
    snprintf(c.hostname, sizeof(c.hostname), "%s", host);
    cr_assert_eq(px_ssh_config_read(path, host, &c), 0);
    return c;
}

static const char cfg[] = "# a comment\n"
                          "Host node1 other\n"
                          "    HostName 10.0.0.1\n"
                          "    Port 2222\n"
                          "host node*  !node9\n"
                          "    hostname=10.0.0.99\n"
                          "    User alice\n"
                          "    IdentityFile ~/.ssh/cluster_key\n"
                          "Host *\n"
                          "    User bob\n"
                          "    Port 99999\n";

Test(ssh_config, first_value_wins_patterns_and_negation)
{
    setenv("HOME", "/home/t", 1);
    write_config(cfg);
    px_ssh_config_t c = read_for("node1");
    cr_assert_str_eq(c.hostname, "10.0.0.1");
    cr_assert_eq(c.port, 2222);
    cr_assert_str_eq(c.user, "alice");
    cr_assert_str_eq(c.identity, "/home/t/.ssh/cluster_key");

    c = read_for("node5"); /* the wildcard block: "=" separator, lower-case keyword */
    cr_assert_str_eq(c.hostname, "10.0.0.99");
    cr_assert_eq(c.port, 22); /* 99999 is not a port: ignored */
    cr_assert_str_eq(c.user, "alice");

    c = read_for("node9"); /* negated: only "Host *" applies */
    cr_assert_str_eq(c.hostname, "node9");
    cr_assert_str_eq(c.user, "bob");
    cr_assert_str_eq(c.identity, "");
    unlink(path);
}

Test(ssh_config, missing_file)
{
    px_ssh_config_t c = {.port = 22};
    cr_assert_eq(px_ssh_config_read("/nonexistent/px/config", "h", &c), -1);
    cr_assert_eq(errno, ENOENT);
    cr_assert_eq(c.port, 22);
}
