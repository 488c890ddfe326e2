/* Unit tests of the table of a process group's states on a server
 * (libpmix-core/server/server_group.c, px_srv_grp_int.h): every move the diagram draws is
 * allowed, every other one refused, ENDED is final. */
#include <criterion/criterion.h>

#include "server/px_srv_grp_int.h"

static const struct {
    grp_state_t from, to;
} drawn_moves[] = {
    {GRP_COLLECTING, GRP_IN_HOST},
    {GRP_COLLECTING, GRP_ACTIVE},
    {GRP_COLLECTING, GRP_ENDED},
    {GRP_IN_HOST, GRP_ACTIVE},
    {GRP_IN_HOST, GRP_ENDED},
    {GRP_ACTIVE, GRP_DESTRUCTING},
    {GRP_ACTIVE, GRP_ENDED},
    {GRP_DESTRUCTING, GRP_DESTRUCT_IN_HOST},
    {GRP_DESTRUCTING, GRP_ACTIVE},
    {GRP_DESTRUCTING, GRP_ENDED},
    {GRP_DESTRUCT_IN_HOST, GRP_ACTIVE},
    {GRP_DESTRUCT_IN_HOST, GRP_ENDED},
};

static bool drawn(int from, int to)
{
    for (size_t i = 0; i < sizeof(drawn_moves) / sizeof(drawn_moves[0]); i++) {
        if ((int)drawn_moves[i].from == from && (int)drawn_moves[i].to == to) {
            return true;
        }
    }
    return false;
}

Test(group_state, drawn_moves_allowed)
{
    for (size_t i = 0; i < sizeof(drawn_moves) / sizeof(drawn_moves[0]); i++) {
        cr_expect(px_grp_state_allowed(drawn_moves[i].from, drawn_moves[i].to), "%s -> %s refused",
                  px_grp_state_name(drawn_moves[i].from), px_grp_state_name(drawn_moves[i].to));
    }
}

Test(group_state, every_other_move_refused)
{
    for (int f = 0; f < GRP_NSTATES; f++) {
        for (int t = 0; t < GRP_NSTATES; t++) {
            if (!drawn(f, t)) {
                cr_expect(!px_grp_state_allowed(f, t), "%s -> %s allowed", px_grp_state_name(f),
                          px_grp_state_name(t));
            }
        }
    }
}

Test(group_state, ended_is_final_and_built_groups_are_never_rebuilt)
{
    for (int s = 0; s < GRP_NSTATES; s++) {
        cr_expect(!px_grp_state_allowed(GRP_ENDED, s), "ENDED -> %s", px_grp_state_name(s));
        cr_expect(!px_grp_state_allowed(s, s), "%s -> itself", px_grp_state_name(s));
    }
    cr_expect(!px_grp_state_allowed(GRP_ACTIVE, GRP_COLLECTING));
    cr_expect(!px_grp_state_allowed(GRP_ACTIVE, GRP_IN_HOST));
    cr_expect_str_eq(px_grp_state_name(GRP_DESTRUCT_IN_HOST), "DESTRUCT_IN_HOST");
    cr_expect_str_eq(px_grp_state_name(GRP_NSTATES), "?");
}
