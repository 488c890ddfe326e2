#!/usr/bin/env bash
# PMIx_Connect / PMIx_Disconnect between two jobs of one DVM (issue 18), with real client
# programs (dvm_grp): posted data exchanged by the connect, blocking and _nb forms, a
# disconnect that waits for every participant, PMIX_TIMEOUT, a disconnect of what was
# never connected, a connected process ending without disconnecting (the others hear of
# it) and a connected process's failure ending the connected job.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/grp_lib.sh"
grp_start_dvm


# --- connect, read each other's posted data, disconnect (A waits in its disconnect until
# B, which waits for the driver, disconnects too); _nb forms on B; a second disconnect and
# one of a set never connected are refused
grp "$T/b" 2 put:kb=vb peer:pb:pa conn:nb getb:1:ka wait:$T/go disc:nb disc
b=$LAST
grp "$T/a" 2 put:ka=va peer:pa:pb discme conn:to=30 getb:0:kb disc exists:$T/go
a=$LAST
wait_for "$T/a" "> disc" 2
wait_for "$T/b" "getb:1:ka:" 2
touch "$T/go"
done_ok $a "$T/a"
done_ok $b "$T/b"
lines "$T/a" "discme: PMIX_ERR_INVALID_OPERATION" 2
lines "$T/a" "conn:to=30: PMIX_SUCCESS" 2
lines "$T/b" "conn:nb: PMIX_SUCCESS" 2
lines "$T/a" "getb:0:kb: PMIX_SUCCESS vb" 2
lines "$T/b" "getb:1:ka: PMIX_SUCCESS va" 2
lines "$T/a" "disc: PMIX_SUCCESS" 2
lines "$T/b" "disc:nb: PMIX_SUCCESS" 2
lines "$T/a" "exists:$T/go: yes" 2
lines "$T/b" "disc: PMIX_ERR_INVALID_OPERATION" 2

# --- PMIX_TIMEOUT: B never connects (it waits for the driver)
grp "$T/tb" 1 peer:pbt:pat wait:$T/got
b=$LAST
grp "$T/ta" 1 peer:pat:pbt conn:to=2
done_ok $LAST "$T/ta"
touch "$T/got"
done_ok $b "$T/tb"
lines "$T/ta" "conn:to=2: PMIX_ERR_TIMEOUT" 1

# --- a connected process ends without disconnecting (finalized, exit 0): the other job
# hears PMIX_ERR_PROC_TERM_WO_SYNC about it and goes on
grp "$T/eb" 1 peer:pbe:pae conn
b=$LAST
grp "$T/ea" 2 peer:pae:pbe ev conn waitev:PMIX_ERR_PROC_TERM_WO_SYNC:1
done_ok $LAST "$T/ea"
done_ok $b "$T/eb"
lines "$T/ea" "event PMIX_ERR_PROC_TERM_WO_SYNC grp=- proc=B:0 src=S" 2

# --- a connected process fails: its job ends, and the connected job with it (A waits for
# a file that never comes: only the connected failure ends it)
# (B dies only once both of A have said their connect succeeded: a kill right after the
# connect could end A before its ranks print that line)
grp "$T/fb" 1 peer:pbf:paf conn wait:$T/fgo kill:0
b=$LAST
grp "$T/fa" 2 peer:paf:pbf conn wait:$T/never wait:$T/never wait:$T/never
wait_for "$T/fa" "conn: PMIX_SUCCESS" 2
touch "$T/fgo"
wait $LAST && fail "the job connected to a failed one must end failed: $(cat "$T/fa")"
wait $b && fail "the killed process's job must fail"
expect_in "$T/fa" "which failed without disconnecting"
lines "$T/fa" "conn: PMIX_SUCCESS" 2

stop_dvm
pass
