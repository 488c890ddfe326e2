#!/bin/bash
# t_cluster.sh - scripts/cluster.sh: 3 nodes with their own hostname and address on a
# private bridge, reachable from each other; the agent runs a command on a node with its
# stdin, output and exit status; "down" and the clean-up of a crashed run leave no
# namespace, link, mount, file or process. Needs root (skips with 77 otherwise).
set -u
SRC=${PX_SRC:?PX_SRC must name the source directory}
CL=$SRC/scripts/cluster.sh
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
for t in ip unshare nsenter python3 timeout; do
    command -v "$t" >/dev/null 2>&1 || { echo "SKIP: $t not installed"; exit 77; }
done
# unique to this run; a pid has up to 7 digits (pid_max is at most 4194304, and
# systemd's default on 64-bit machines) and a run name at most 10 characters
NAME=pxt$$
CRASHED=pxu$$
export PXCLUSTER_OWNER=$$
T=$(mktemp -d "${TMPDIR:-/tmp}/pxcl.XXXXXX")
cleanup() {
    "$CL" -n "$NAME" down
    "$CL" -n "$CRASHED" down
    rm -rf "$T"
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}
# a namespace may be refused (a container without CAP_SYS_ADMIN): skip, not fail
if ! ip netns add "$NAME-probe" 2>/dev/null; then
    echo "SKIP: cannot create network namespaces here"
    exit 77
fi
ip netns delete "$NAME-probe"

# bounded wait for a line in a file (every 0.05 s, 20 s at most)
wait_for() {
    local i
    for i in $(seq 1 400); do
        grep -qF -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.05
    done
    fail "timed out waiting for \"$2\" in $1: $(cat "$1" 2>/dev/null)"
}

# nothing of run $1 left: namespaces, links, UTS mounts, state, processes $2...
nothing_left() {
    local name=$1 p
    shift
    ip netns list | grep -q "^$name-" && fail "namespaces left: $(ip netns list | grep "^$name-")"
    ip -o link show | grep -qE ": ${name}(br|v[0-9]+)[@:]" && fail "links left: $(ip -o link show | grep "$name")"
    grep -q "pxcluster/$name/" /proc/self/mountinfo && fail "mounts left: $(grep "pxcluster/$name/" /proc/self/mountinfo)"
    [ ! -e "/run/pxcluster/$name" ] || fail "state left: /run/pxcluster/$name"
    ls -d /etc/netns/"$name"-* 2>/dev/null && fail "/etc/netns entries left"
    for p in "$@"; do
        [ ! -e "/proc/$p" ] || fail "process $p left behind: $(tr '\0' ' ' <"/proc/$p/cmdline")"
    done
    return 0
}

# ---- up
A=$(timeout 60 "$CL" -n "$NAME" up 3) || fail "up 3 failed"
[ -x "$A" ] || fail "up printed no agent: $A"
[ "$("$CL" -n "$NAME" agent)" = "$A" ] || fail "agent path differs"
"$CL" -n "$NAME" nodes >"$T/nodes" || fail "nodes failed"
[ "$(wc -l <"$T/nodes")" = 3 ] || fail "3 nodes expected: $(cat "$T/nodes")"

# ---- each node: its own hostname (not ours) and its own address
seen=""
while read -r host addr; do
    h=$(timeout 10 "$A" "$host" hostname) || fail "agent on $host failed"
    [ "$h" = "$host" ] || fail "$host calls itself \"$h\""
    [ "$h" != "$(hostname)" ] || fail "$host has this machine's hostname"
    a=$(timeout 10 "$A" "$host" ip -4 -o addr show dev eth0) || fail "no eth0 on $host"
    echo "$a" | grep -qF " $addr/24 " || fail "$host should have $addr: $a"
    case " $seen " in *" $addr "*) fail "address $addr twice" ;; esac
    seen="$seen $addr"
    # the node sees only its loopback and its own interface: no route off the bridge
    n=$(timeout 10 "$A" "$host" ip -o link show | grep -vc ': lo:')
    [ "$n" = 1 ] || fail "$host should have exactly one interface besides lo"
done <"$T/nodes"
net=$(awk 'NR == 1 {split($2, o, "."); print o[1] "." o[2] "." o[3] "."}' "$T/nodes")
[ -z "$(ip -4 -o addr show | grep -F "inet $net")" ] ||
    fail "a cluster address ($net*) exists on this machine, outside the nodes"

# ---- reachability: node3 listens, node1 (by name) and node2 (by address) connect
addr3=$(awk '$1 == "node3" {print $2}' "$T/nodes")
timeout 30 "$A" node3 python3 -c "'
import socket
s = socket.socket()
s.bind((\"$addr3\", 7411))
s.listen(2)
print(\"listening\", flush=True)
s.settimeout(20)
for _ in range(2):
    c, peer = s.accept()
    print(\"from\", peer[0], c.recv(64).decode(), flush=True)
    c.close()
'" >"$T/listen" 2>&1 &
LPID=$!
wait_for "$T/listen" listening
for pair in "node1 node3" "node2 $addr3"; do
    set -- $pair
    timeout 10 "$A" "$1" python3 -c "'
import socket
socket.create_connection((\"$2\", 7411), timeout=5).sendall(b\"hello-$1\")
'" || fail "$1 cannot reach node3 at $2"
done
wait "$LPID" || fail "the listener on node3 failed: $(cat "$T/listen")"
grep -q "from ${net}1 hello-node1" "$T/listen" || fail "node1's connection: $(cat "$T/listen")"
grep -q "from ${net}2 hello-node2" "$T/listen" || fail "node2's connection: $(cat "$T/listen")"

# ---- the agent as "ssh host cmd": words joined and run by sh, stdin/stdout/stderr, status
out=$(echo "in-put" | timeout 10 "$A" node2 'read x; echo "$x on $(hostname)"; echo err >&2' 2>"$T/err")
[ "$out" = "in-put on node2" ] || fail "agent output: $out"
[ "$(cat "$T/err")" = err ] || fail "agent stderr: $(cat "$T/err")"
timeout 10 "$A" node1 exit 42
[ $? = 42 ] || fail "the agent must return the command's exit status"
timeout 10 "$A" node1 false && fail "false must fail through the agent"
timeout 10 "$A" nodeX true 2>"$T/err" && fail "an unknown host must be refused"
grep -q 'no node "nodeX"' "$T/err" || fail "unclear message for an unknown host: $(cat "$T/err")"

# ---- down removes processes still running on the nodes, and everything else
timeout 60 "$A" node2 sleep 300 &
SPID=$!
ipid=""
for i in $(seq 1 400); do
    ipid=$(ip netns pids "$NAME-node2" | head -1)
    [ -n "$ipid" ] && break
    sleep 0.05
done
[ -n "$ipid" ] || fail "sleep never started on node2"
timeout 60 "$CL" -n "$NAME" down || fail "down failed"
wait "$SPID" 2>/dev/null
nothing_left "$NAME" "$ipid"
timeout 60 "$CL" -n "$NAME" down || fail "a second down must succeed"

# ---- a crashed run (its owner gone, never taken down) is removed by the next up
sleep 0 &
dead=$!
wait "$dead"
PXCLUSTER_OWNER=$dead timeout 60 "$CL" -n "$CRASHED" up 2 >/dev/null || fail "up of the crashed run"
timeout 60 "$CL" -n "$NAME" up 1 >/dev/null || fail "up after a crash"
nothing_left "$CRASHED"
timeout 60 "$CL" -n "$NAME" down || fail "down failed"
nothing_left "$NAME"
echo PASS
