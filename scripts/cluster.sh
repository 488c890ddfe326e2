#!/bin/bash
# cluster.sh - a test cluster on one machine: N "nodes", each a network namespace with
# its own address on a private bridge and its own hostname (a UTS namespace), and an
# agent that runs a command on a node the way "ssh host cmd" would. Needs root,
# iproute2 (ip) and util-linux (unshare, nsenter). Used by hand and by test/cluster/.
#
#   cluster.sh [-n NAME] up N      build nodes node1..nodeN (a previous run of the same
#                                  NAME, and runs whose owner died, are removed first)
#   cluster.sh [-n NAME] down      remove every namespace, link, mount, file and
#                                  process of the run (safe to repeat)
#   cluster.sh [-n NAME] run HOST CMD...   run CMD on HOST (name or address)
#   cluster.sh [-n NAME] agent     print the agent's path: "<agent> <host> <cmd...>"
#   cluster.sh [-n NAME] nodes     print "host address" for each node
#   cluster.sh gc                  remove the runs whose owner process is gone
#
# NAME (default $PXCLUSTER_NAME, else "pxc") makes every name of the run unique, so two
# runs never collide: letters and digits, at most 10. Environment: PXCLUSTER_OWNER (a
# pid: when it is gone, the next "up" or "gc" removes the run; tests pass their own pid),
# PXCLUSTER_NET (the first three octets of the nodes' /24, default 10.211.0),
# PXCLUSTER_STATE (where runs are recorded, default /run/pxcluster).
#
# Nothing is routed: the bridge has no address on this machine, the addresses exist only
# inside the nodes' namespaces, so the nodes reach each other and nothing else.
set -u

STATE_ROOT=${PXCLUSTER_STATE:-/run/pxcluster}
NAME=${PXCLUSTER_NAME:-pxc}
NET=${PXCLUSTER_NET:-10.211.0}
SELF=$(readlink -f "$0")

die() {
    echo "cluster.sh: $*" >&2
    exit 1
}

usage() {
    sed -n '6,15s/^# \{0,1\}//p' "$SELF" >&2
    exit 2
}

# names of a run; IFNAMSIZ is 16, so NAME <= 10 and node numbers <= 250 keep links short
check_name() {
    [[ $1 =~ ^[a-zA-Z][a-zA-Z0-9]{0,9}$ ]] ||
        die "run name \"$1\" is not valid: give 1-10 letters and digits, starting with a letter."
}
state_dir() { echo "$STATE_ROOT/$1"; }
bridge_of() { echo "${1}br"; }
veth_of() { echo "${1}v$2"; }
netns_of() { echo "$1-$2"; }

need_root() {
    [ "$(id -u)" = 0 ] || die "needs root (network and UTS namespaces); run it as root."
    local t
    for t in ip unshare nsenter; do
        command -v "$t" >/dev/null 2>&1 ||
            die "\"$t\" not found; install iproute2 and util-linux (scripts/install-deps.sh)."
    done
}

# ---- teardown: by name, so it also removes what a crashed "up" made before recording it
down_run() {
    local name=$1 dir ns pids left i
    dir=$(state_dir "$name")
    # processes first: everything still running inside the run's namespaces
    for i in 1 2 3 4 5 6 7 8 9 10; do
        left=""
        for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$name-"); do
            pids=$(ip netns pids "$ns" 2>/dev/null)
            if [ -n "$pids" ]; then
                left="$left $pids"
                # shellcheck disable=SC2086
                kill -9 $pids 2>/dev/null
            fi
        done
        [ -z "$left" ] && break
        sleep 0.1 # bounded: at most 10 rounds for SIGKILLed processes to vanish
    done
    [ -z "$left" ] || echo "cluster.sh: processes still in $name's namespaces:$left" >&2
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$name-"); do
        ip netns delete "$ns" 2>/dev/null
        rm -rf "/etc/netns/$ns"
    done
    for l in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' |
        grep -E "^${name}(br|v[0-9]+)$"); do
        ip link delete "$l" 2>/dev/null
    done
    if [ -d "$dir/uts" ]; then
        for f in "$dir"/uts/*; do
            [ -e "$f" ] || continue
            umount "$f" 2>/dev/null
            rm -f "$f"
        done
    fi
    rm -rf "$dir"
    rmdir "$STATE_ROOT" /etc/netns 2>/dev/null # only when no other run uses them
    return 0
}

# runs whose recorded owner process is gone
gc_runs() {
    local d owner
    [ -d "$STATE_ROOT" ] || return 0
    for d in "$STATE_ROOT"/*/; do
        [ -d "$d" ] || continue
        owner=$(cat "$d/owner" 2>/dev/null)
        if [ -n "$owner" ] && ! kill -0 "$owner" 2>/dev/null; then
            down_run "$(basename "$d")"
        fi
    done
}

up_run() {
    local name=$1 n=$2 dir br i host addr ns veth
    [[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 250 ] ||
        die "the number of nodes \"$n\" is not valid: give an integer from 1 to 250."
    [[ $NET =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] ||
        die "PXCLUSTER_NET \"$NET\" is not valid: give three octets, e.g. 10.211.0."
    gc_runs
    down_run "$name" # the leftovers of a crashed run of the same name
    dir=$(state_dir "$name")
    br=$(bridge_of "$name")
    mkdir -p "$dir/uts" || die "cannot create $dir"
    echo "${PXCLUSTER_OWNER:-}" >"$dir/owner"
    # a failure half-way removes everything made so far
    trap 'down_run "$name"; die "up failed; everything it made was removed."' ERR
    set -E
    ip link add "$br" type bridge
    ip link set "$br" up
    : >"$dir/nodes"
    for i in $(seq 1 "$n"); do
        host=node$i
        addr=$NET.$i
        ns=$(netns_of "$name" "$host")
        veth=$(veth_of "$name" "$i")
        echo "$host $addr" >>"$dir/nodes"
        ip netns add "$ns"
        ip link add "$veth" type veth peer name "${veth}p"
        ip link set "${veth}p" netns "$ns"
        ip link set "$veth" master "$br" up
        ip -n "$ns" link set lo up
        ip -n "$ns" link set "${veth}p" name eth0
        ip -n "$ns" addr add "$addr/24" dev eth0
        ip -n "$ns" link set eth0 up
        # a persistent UTS namespace (a bind mount, no process keeps it) with the hostname
        touch "$dir/uts/$host"
        unshare --uts="$dir/uts/$host" hostname "$host"
    done
    # names resolve inside the nodes: "ip netns exec" shows /etc/netns/<ns>/hosts as /etc/hosts
    for i in $(seq 1 "$n"); do
        ns=$(netns_of "$name" "node$i")
        mkdir -p "/etc/netns/$ns"
        { printf '127.0.0.1 localhost\n'; awk '{print $2, $1}' "$dir/nodes"; } >"/etc/netns/$ns/hosts"
    done
    cat >"$dir/agent" <<EOF
#!/bin/sh
# agent of cluster run $name: <agent> <host> <command...> (as "ssh host command")
exec "$SELF" -n "$name" run "\$@"
EOF
    chmod 755 "$dir/agent"
    trap - ERR
    set +E
    echo "$dir/agent"
}

# run HOST CMD...: like ssh, the words of CMD are joined with spaces and run by sh -c on
# the node; stdin, stdout and stderr pass through; the exit status is the command's.
# Unlike ssh, the environment and working directory are this process's.
run_on() {
    local name=$1 host=$2 dir h a found=""
    shift 2
    dir=$(state_dir "$name")
    [ -f "$dir/nodes" ] || die "no cluster \"$name\" is up; start one with: cluster.sh -n $name up N"
    while read -r h a; do
        if [ "$host" = "$h" ] || [ "$host" = "$a" ]; then
            found=$h
        fi
    done <"$dir/nodes"
    [ -n "$found" ] || die "no node \"$host\" in cluster \"$name\"; its nodes: $(awk '{print $1}' "$dir/nodes" | tr '\n' ' ')"
    [ $# -gt 0 ] || die "no command given to run on $host."
    exec ip netns exec "$(netns_of "$name" "$found")" \
        nsenter --uts="$dir/uts/$found" -- sh -c "$*"
}

while [ $# -gt 0 ]; do
    case $1 in
    -n)
        [ $# -ge 2 ] || usage
        NAME=$2
        shift 2
        ;;
    *) break ;;
    esac
done
[ $# -ge 1 ] || usage
check_name "$NAME"
cmd=$1
shift
case $cmd in
up)
    [ $# = 1 ] || usage
    need_root
    up_run "$NAME" "$1"
    ;;
down)
    need_root
    down_run "$NAME"
    ;;
gc)
    need_root
    gc_runs
    ;;
run)
    [ $# -ge 1 ] || usage
    need_root
    run_on "$NAME" "$@"
    ;;
agent)
    [ -x "$(state_dir "$NAME")/agent" ] || die "no cluster \"$NAME\" is up."
    echo "$(state_dir "$NAME")/agent"
    ;;
nodes)
    [ -f "$(state_dir "$NAME")/nodes" ] || die "no cluster \"$NAME\" is up."
    cat "$(state_dir "$NAME")/nodes"
    ;;
*) usage ;;
esac
