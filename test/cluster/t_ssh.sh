#!/bin/bash
# t_ssh.sh - the controller's built-in ssh client (launcher/ssh.c) against real sshd on 3
# cluster nodes (scripts/cluster.sh up 3; ssh): prte --host node1,node2,node3 with no
# agent starts a prted on each through ssh (names mapped by ~/.ssh/config, a hashed
# known_hosts), each says hello, pterm leaves no prted on any node. Then each failure
# ends the DVM start with its message, no hang and no prted left: no known_hosts entry,
# a wrong host key, no usable user key, sshd down, prted missing on the remote side.
# --debug-daemons with --daemonize keeps the daemons' logs; --prefix (over PRTE_PREFIX)
# runs <dir>/bin/prted with <dir>/bin and its lib directory first in the remote PATH and
# LD_LIBRARY_PATH; --noprefix runs "prted" from the remote PATH; a daemon of another
# version is refused with both versions named.
# HOME is the test's own directory: the real user's keys are never read. Needs root.
set -u
NAME=pxs$$
# this machine gets an address on the bridge (NET.254): a /24 of its own, apart from
# the default 10.211.0 of t_cluster.sh (which checks that no such address exists here)
export PXCLUSTER_NET=10.212.$(($$ % 250))
SSH_NODES=3
. "$(dirname "$0")/lib_ssh.sh"

# a home per case: its .ssh/ from the cluster's, then changed
mkhome() {
    rm -rf "$T/$1"
    mkdir -p "$T/$1"
    cp -a "$H/.ssh" "$T/$1/"
    echo "$T/$1"
}

# no prted left in any node's namespace (sshd's listeners stay)
no_prted() {
    local n p
    for n in 1 2 3; do
        for p in $(ip netns pids "$NAME-node$n"); do
            grep -q prted "/proc/$p/cmdline" 2>/dev/null &&
                fail "a prted is left on node$n: $(tr '\0' ' ' <"/proc/$p/cmdline")"
        done
    done
    return 0
}

# no_prted, once the daemons had time to go (bounded: 60 s)
no_prted_wait() {
    local i n p left
    for i in $(seq 1 1200); do
        left=""
        for n in 1 2 3; do
            for p in $(ip netns pids "$NAME-node$n"); do
                grep -q prted "/proc/$p/cmdline" 2>/dev/null && left="$left $p"
            done
        done
        [ -z "$left" ] && return 0
        sleep 0.05
    done
    no_prted
}

# bounded wait for a line in a file (every 0.05 s, 60 s at most)
wait_for() {
    local i
    for i in $(seq 1 1200); do
        grep -qF -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.05
    done
    fail "timed out waiting for \"$2\" in $1: $(cat "$1" 2>/dev/null)"
}

# ---- a DVM on 3 nodes through ssh; known_hosts hashed (as HashKnownHosts writes it)
OK=$(mkhome ok)
ssh-keygen -q -H -f "$OK/.ssh/known_hosts" >/dev/null 2>&1 || fail "ssh-keygen -H failed"
rm -f "$OK/.ssh/known_hosts.old"
grep -q '^|1|' "$OK/.ssh/known_hosts" || fail "known_hosts was not hashed"
HOME=$OK timeout 120 "$PRTE" --host node1,node2,node3 --debug-daemons >"$T/prte.out" 2>&1 &
PPID_=$!
wait_for "$T/prte.out" "DVM ready"
grep -q "daemons: 4 up" "$T/prte.out" || fail "4 daemons expected: $(cat "$T/prte.out")"
for n in 1 2 3; do
    grep -q "daemon $n hello: node node$n" "$T/prte.out" || fail "no hello from node$n"
done
HOME=$OK timeout 30 "$PTERM" >"$T/pterm.out" 2>&1 || fail "pterm failed: $(cat "$T/pterm.out")"
wait "$PPID_" || fail "prte exited with $?: $(tail -5 "$T/prte.out")"
no_prted

# ---- --debug-daemons with --daemonize: prte keeps its stdio, so the daemons' logs (which
# the ssh client copies to prte's stderr) of a job run later still arrive
HOME=$OK timeout 60 "$PRTE" --host node1:1,node2:1,node3:1 --debug-daemons --daemonize \
    --report-uri "$T/uri" --report-pid "$T/dd.pid" >"$T/dd.out" 2>&1 || fail "prte --daemonize: $(cat "$T/dd.out")"
DDPID=$(cat "$T/dd.pid")
HOME=$OK timeout 60 "$BUILD/cli/prun" --dvm-uri "file:$T/uri" -n 4 --map-by node hostname \
    >"$T/dd.job" 2>&1 || fail "prun: $(cat "$T/dd.job")"
for n in 1 2 3; do
    grep -q "^node$n\$" "$T/dd.job" || fail "no output from node$n: $(cat "$T/dd.job")"
done
wait_for "$T/dd.out" "] received JOB_CLEANUP (tag 16,"
for n in 1 2 3; do
    grep -E "^\[prted $n node$n:[0-9]+\] received LAUNCH \(tag 5," "$T/dd.out" >/dev/null ||
        fail "no LAUNCH logged by the daemon on node$n: $(cat "$T/dd.out")"
done
HOME=$OK timeout 30 "$PTERM" --dvm-uri "file:$T/uri" >"$T/pterm.out" 2>&1 ||
    fail "pterm failed: $(cat "$T/pterm.out")"
wait_for "$T/dd.out" "received EXIT (tag 3,"
no_prted_wait
for i in $(seq 1 1200); do
    kill -0 "$DDPID" 2>/dev/null || break
    sleep 0.05
done
kill -0 "$DDPID" 2>/dev/null && fail "prte still runs after pterm"
DDPID=""

# ---- each failure: prte does not start, says why, leaves nothing
# expect_fail CASE HOME HOST TEXT [env...]
expect_fail() {
    local c=$1 home=$2 host=$3 text=$4
    shift 4
    # VAR=VALUE words, then (from "$PRTE" on) prte's own options
    local envs=() opts=()
    while [ $# -gt 0 ] && [ "$1" != "$PRTE" ]; do envs+=("$1"); shift; done
    [ $# -gt 0 ] && { shift; opts=("$@"); }
    env HOME="$home" "${envs[@]}" timeout 90 "$PRTE" --host "$host" "${opts[@]}" >"$T/$c.out" 2>&1
    local rc=$?
    [ "$rc" != 0 ] || fail "$c: prte started"
    [ "$rc" != 124 ] || fail "$c: prte hung: $(cat "$T/$c.out")"
    ! grep -q "Sanitizer" "$T/$c.out" || fail "$c: sanitizer report: $(cat "$T/$c.out")"
    grep -qF -- "$text" "$T/$c.out" || fail "$c: no \"$text\" in: $(cat "$T/$c.out")"
    grep -qF -- "the daemon 1 on host $host did not start" "$T/$c.out" ||
        fail "$c: the start failure is not reported: $(cat "$T/$c.out")"
    no_prted
}

U=$(mkhome unknown)
grep -v '^node1,' "$H/.ssh/known_hosts" >"$U/.ssh/known_hosts"
expect_fail unknown "$U" node1 'the ssh host key of host "node1" is not known'

W=$(mkhome wrong)
k2=$(awk '/^node2,/ {print $2, $3}' "$H/.ssh/known_hosts")
a1=$(awk '$1 == "node1" {print $2}' "$("$CL" -n "$NAME" agent | xargs dirname)/nodes")
{ grep -v '^node1,' "$H/.ssh/known_hosts"; echo "node1,$a1 $k2"; } >"$W/.ssh/known_hosts"
expect_fail wrong "$W" node1 'the ssh host key of host "node1" DIFFERS'

K=$(mkhome nokey)
rm -f "$K/.ssh/id_ed25519" "$K/.ssh/id_ed25519.pub"
ssh-keygen -q -t ed25519 -N '' -f "$K/.ssh/id_ed25519" || fail "ssh-keygen failed"
expect_fail nokey "$K" node2 'host "node2" refused every ssh key'

expect_fail noprted "$OK" node2 'prted was not found on host "node2"' PRTE_PREFIX=/nonexistent

# ---- --prefix / --noprefix (PRRTE's meaning) and the daemon's version
# an installation of our own: bin/prted says where it runs and with which PATH and
# LD_LIBRARY_PATH (on the ssh channel's stderr, which prte copies), then is the real one
mkpfx() { # DIR [VAR=VALUE]: DIR/bin/prted runs the build's prted (with VAR set)
    mkdir -p "$1/bin"
    cat >"$1/bin/prted" <<EOF
#!/bin/sh
echo "wrapper prted on \$(hostname) PATH=\$PATH LD_LIBRARY_PATH=\$LD_LIBRARY_PATH" >&2
${2:+export $2}
exec "$BUILD/daemon/prted" "\$@"
EOF
    chmod +x "$1/bin/prted"
}
mkpfx "$T/pfx"
# --prefix wins over PRTE_PREFIX; every daemon is the prefix's, with its bin/ and lib
# directory first in the remote PATH and LD_LIBRARY_PATH
HOME=$OK PRTE_PREFIX=/nonexistent timeout 60 "$PRTE" --host node1,node2,node3 --prefix "$T/pfx" \
    --report-uri "$T/puri" >"$T/pfx.out" 2>&1 &
PPID_=$!
wait_for "$T/pfx.out" "DVM ready"
for n in 1 2 3; do
    grep -q "^wrapper prted on node$n PATH=$T/pfx/bin:.* LD_LIBRARY_PATH=$T/pfx/lib" "$T/pfx.out" ||
        fail "node$n did not run the prefix's prted: $(cat "$T/pfx.out")"
done
HOME=$OK timeout 30 "$PTERM" --dvm-uri "file:$T/puri" >"$T/pterm.out" 2>&1 || fail "pterm failed: $(cat "$T/pterm.out")"
wait "$PPID_" || fail "prte --prefix exited with $?: $(tail -5 "$T/pfx.out")"
no_prted_wait
# --noprefix: "prted" as the remote PATH finds it (it does not), whatever the prefix
expect_fail noprefix "$OK" node1 "to \"'prted' --controller" PRTE_PREFIX="$T/pfx" "$PRTE" --noprefix
grep -q 'prted was not found on host "node1"' "$T/noprefix.out" || fail "noprefix: $(cat "$T/noprefix.out")"
# a daemon of another version is refused, both versions named, the start fails (the
# daemon's own message may not make it back: its ssh session is closed at once)
mkpfx "$T/old" PX_PRTED_TEST_VERSION=0.0.1
expect_fail version "$OK" node2 'the daemon 1 on host node2 is version 0.0.1 (protocol 2), this DVM' \
    "$PRTE" --prefix "$T/old"

spid=$(cat "/run/pxcluster/$NAME/sshd/node3/sshd.pid")
"$CL" -n "$NAME" sshd-stop node3 || fail "sshd-stop failed"
for i in $(seq 1 400); do
    [ -e "/proc/$spid" ] || break
    sleep 0.05
done
[ ! -e "/proc/$spid" ] || fail "sshd on node3 did not stop"
expect_fail sshdown "$OK" node3 'cannot reach the ssh server on host "node3"'

timeout 60 "$CL" -n "$NAME" down || fail "down failed"
ip netns list | grep -q "^$NAME-" && fail "namespaces left"
echo PASS
