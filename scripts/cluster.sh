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
#   cluster.sh [-n NAME] ssh       start an sshd on every node (fresh host keys), make a
#                                  user key and a known_hosts, give the bridge this
#                                  machine's address NET.254 (the nodes' default route);
#                                  prints the directory to use as HOME (its .ssh/ has
#                                  id_ed25519, known_hosts and a config naming the nodes;
#                                  ssh sessions on the nodes get it as HOME too, so a
#                                  daemon there can ssh on to the others: tree spawn)
#   cluster.sh [-n NAME] sshd-stop HOST    stop HOST's sshd (a node without ssh)
#   cluster.sh gc                  remove the runs whose owner process is gone
#
# NAME (default $PXCLUSTER_NAME, else "pxc") makes every name of the run unique, so two
# runs never collide: letters and digits, at most 10. Environment: PXCLUSTER_OWNER (a
# pid: when it is gone, the next "up" or "gc" removes the run; tests pass their own pid),
# PXCLUSTER_NET (the first three octets of the nodes' /24, default 10.211.0),
# PXCLUSTER_STATE (where runs are recorded, default /run/pxcluster).
#
# Until "ssh", nothing is routed: the bridge has no address on this machine, the addresses exist only
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
    sed -n '6,21s/^# \{0,1\}//p' "$SELF" >&2
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

# ssh: an sshd per node inside its namespaces, root logins with the run's own user key
# only; this machine joins the bridge as NET.254 under its hostname, so prted on the
# nodes can connect back to a controller here. down removes it all with the run.
ssh_run() {
    local name=$1 dir br h a ns sd home me sshd
    dir=$(state_dir "$name")
    [ -f "$dir/nodes" ] || die "no cluster \"$name\" is up; start one with: cluster.sh -n $name up N"
    sshd=$(command -v sshd || echo /usr/sbin/sshd)
    [ -x "$sshd" ] || die "sshd not found; install openssh-server (scripts/install-deps.sh)."
    command -v ssh-keygen >/dev/null 2>&1 ||
        die "ssh-keygen not found; install openssh-client (scripts/install-deps.sh)."
    br=$(bridge_of "$name")
    me=$(hostname)
    home=$dir/home
    mkdir -p "$home/.ssh" /run/sshd
    chmod 700 "$home/.ssh"
    trap 'die "ssh failed; take the run down with: cluster.sh -n $name down"' ERR
    set -E
    ip addr replace "$NET.254/24" dev "$br"
    rm -f "$home/.ssh/id_ed25519" "$home/.ssh/id_ed25519.pub"
    ssh-keygen -q -t ed25519 -N '' -C "pxcluster-$name" -f "$home/.ssh/id_ed25519"
    cp "$home/.ssh/id_ed25519.pub" "$dir/authorized_keys"
    : >"$home/.ssh/known_hosts"
    : >"$home/.ssh/config"
    while read -r h a; do
        ns=$(netns_of "$name" "$h")
        sd=$dir/sshd/$h
        mkdir -p "$sd"
        rm -f "$sd/host_key" "$sd/host_key.pub"
        ssh-keygen -q -t ed25519 -N '' -C "$h" -f "$sd/host_key"
        printf '%s\n' "ListenAddress $a" "Port 22" "HostKey $sd/host_key" \
            "PidFile $sd/sshd.pid" "AuthorizedKeysFile $dir/authorized_keys" \
            "PermitRootLogin prohibit-password" "PubkeyAuthentication yes" \
            "PasswordAuthentication no" "KbdInteractiveAuthentication no" "UsePAM no" \
            "StrictModes no" "SetEnv HOME=$home" >"$sd/sshd_config"
        ip -n "$ns" route replace default via "$NET.254"
        grep -q " $me\$" "/etc/netns/$ns/hosts" || echo "$NET.254 $me" >>"/etc/netns/$ns/hosts"
        # sshd forks into the background once it listens: the address is ready on return
        ip netns exec "$ns" nsenter --uts="$dir/uts/$h" -- "$sshd" -f "$sd/sshd_config"
        echo "$h,$a $(cut -d' ' -f1,2 "$sd/host_key.pub")" >>"$home/.ssh/known_hosts"
        printf 'Host %s\n    HostName %s\n    User root\n' "$h" "$a" >>"$home/.ssh/config"
    done <"$dir/nodes"
    trap - ERR
    set +E
    echo "$home"
}

sshd_stop() {
    local name=$1 host=$2 dir pid
    dir=$(state_dir "$name")
    [ -f "$dir/sshd/$host/sshd.pid" ] || die "no sshd runs on \"$host\" in cluster \"$name\"."
    pid=$(cat "$dir/sshd/$host/sshd.pid")
    kill "$pid" 2>/dev/null
    rm -f "$dir/sshd/$host/sshd.pid"
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
ssh)
    [ $# = 0 ] || usage
    need_root
    ssh_run "$NAME"
    ;;
sshd-stop)
    [ $# = 1 ] || usage
    need_root
    sshd_stop "$NAME" "$1"
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
