#!/usr/bin/env bash
# A tool's pull that writes the output into files (Tools chapter, "IO Forwarding": the
# tool's library formats the stream it pulls, files included; issue 16). Tools attached
# to a running prun job (both ranks write "out R" to stdout and "err R" to stderr once
# $T/go exists) pull it with PMIX_IOF_COPY and:
#   dir=D                  D/<ns>/rank.<r>/stdout and .../stderr, and their callback
#   file=F tag             F.<ns>.<r>.stdout / .stderr with the tag's prefix
#   file=P.%n.%r pattern merge fileonly
#                          P.<ns>.<r>.stdout holding both channels, no .stderr, nothing
#                          to the callback
# A pull asking for files in a place it cannot make, both a file and a directory, a
# pattern or "files only" without a file, is refused at once; prun still prints all.
. "$(dirname "$0")/lib.sh"
ATT=$B/test/dvm/dvm_attach
start_dvm
"$PRUN" --dvm-uri "file:$T/uri" $RR -n 2 sh -c \
    'while [ ! -e "$1" ]; do sleep 0.05; done; echo "out $PMIX_RANK"; echo "err $PMIX_RANK" >&2' \
    sh "$T/go" >"$T/prun.out" 2>"$T/prun.err" &
prun=$!
wait_pps 'sh -c' 2
ns=$(awk '/sh -c/ {print $1; exit}' "$T/pps")
case "$ns" in *@*) ;; *) fail "no namespace in pps: $(cat "$T/pps")" ;; esac

# refused at once, with a message for the place
run_to 30 "$ATT" pull "$ns" "$T/x" copy both dir=/proc/none >"$T/r1" 2>&1 && fail "an impossible directory"
expect_in "$T/r1" "pull: PMIX_ERR_BAD_PARAM"
expect_in "$T/r1" "the output was to go to files in /proc/none, which cannot be created there"
run_to 30 "$ATT" pull "$ns" "$T/x" copy dir="$T/d" file="$T/f" >"$T/r2" 2>&1 && fail "file and directory"
expect_in "$T/r2" "pull: PMIX_ERR_BAD_PARAM"
run_to 30 "$ATT" pull "$ns" "$T/x" copy pattern >"$T/r3" 2>&1 && fail "a pattern of no file"
expect_in "$T/r3" "pull: PMIX_ERR_BAD_PARAM"
run_to 30 "$ATT" pull "$ns" "$T/x" copy fileonly >"$T/r4" 2>&1 && fail "files only, no file"
expect_in "$T/r4" "pull: PMIX_ERR_BAD_PARAM"

"$ATT" pull "$ns" "$T/cb1" copy both dir="$T/d" >"$T/p1" 2>&1 &
p1=$!
"$ATT" pull "$ns" "$T/cb2" copy both tag file="$T/f" >"$T/p2" 2>&1 &
p2=$!
"$ATT" pull "$ns" "$T/cb3" copy both file="$T/p.%n.%r" pattern merge fileonly >"$T/p3" 2>&1 &
p3=$!
wait_for "$T/p1" "pulled"
wait_for "$T/p2" "pulled"
wait_for "$T/p3" "pulled"
touch "$T/go"
wait $prun || fail "prun: $(cat "$T/prun.out" "$T/prun.err")"
for p in p1 p2 p3; do
    wait ${!p} || fail "$p: $(cat "$T/$p")"
done

# has FILE TEXT: FILE holds exactly the line TEXT
has() {
    [ -f "$1" ] || fail "no file $1: $(find "$T" -path "$T/tmp" -prune -o -type f -print)"
    [ "$(cat "$1")" = "$2" ] || fail "$1 must hold \"$2\": $(cat "$1")"
}
for r in 0 1; do
    has "$T/d/$ns/rank.$r/stdout" "out $r"
    has "$T/d/$ns/rank.$r/stderr" "err $r"
    has "$T/f.$ns.$r.stdout" "[$ns,$r]<stdout>: out $r"
    has "$T/f.$ns.$r.stderr" "[$ns,$r]<stderr>: err $r"
    [ "$(sort "$T/p.$ns.$r.stdout")" = "err $r
out $r" ] || fail "merged file: $(cat "$T/p.$ns.$r.stdout")"
    [ ! -e "$T/p.$ns.$r.stderr" ] || fail "merged: no stderr file expected"
done
[ "$(sort "$T/cb1" | tr '\n' ' ')" = "err 0 err 1 out 0 out 1 " ] || fail "callback of the dir pull: $(cat "$T/cb1")"
[ "$(grep -c '^\[' "$T/cb2")" = 4 ] || fail "callback of the tagged file pull: $(cat "$T/cb2")"
[ ! -s "$T/cb3" ] || fail "PMIX_IOF_FILE_ONLY: nothing for the callback: $(cat "$T/cb3")"
expect_in "$T/p3" "received 0 bytes"
[ "$(sort "$T/prun.out")" = "out 0
out 1" ] || fail "prun must print its job's stdout: $(cat "$T/prun.out")"
[ "$(sort "$T/prun.err")" = "err 0
err 1" ] || fail "prun must print its job's stderr: $(cat "$T/prun.err")"
stop_dvm
pass
