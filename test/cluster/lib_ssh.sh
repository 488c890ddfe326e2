# lib_ssh.sh - sourced by the tests of the built-in ssh client on scripts/cluster.sh's
# nodes with real sshd (t_ssh.sh, t_tree.sh), with NAME and PXCLUSTER_NET set (unique to
# the test: this machine takes NET.254 on the bridge), SSH_NODES (how many) and
# SSH_TOOLS (what the test needs beyond ip, unshare, nsenter, timeout and ssh-keygen; a
# missing one fails). Skips (77) without root or network namespaces. Sets SRC, BUILD,
# CL, T (private, removed at exit; TMPDIR below it), PRTE, PRUN, PTERM, H (the cluster's
# ssh home) and fail(); at exit kills the prte a test left in the background (DDPID,
# PPID_) and takes the cluster down. Not test/dvm/lib.sh: HOME, TMPDIR and the run-as-root
# variables are the test's own here.
SRC=${PX_SRC:?PX_SRC must name the source directory}
BUILD=${PX_BUILD:?PX_BUILD must name the build directory}
CL=$SRC/scripts/cluster.sh
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
for t in ip unshare nsenter timeout ssh-keygen ${SSH_TOOLS:-}; do
    command -v "$t" >/dev/null 2>&1 || { echo "FAIL: $t not installed (scripts/install-deps.sh)"; exit 1; }
done
export PXCLUSTER_OWNER=$$
T=$(mktemp -d "${TMPDIR:-/tmp}/pxssh.XXXXXX")
PRTE=$BUILD/cli/prte
PRUN=$BUILD/cli/prun
PTERM=$BUILD/cli/pterm
cleanup() {
    local p
    for p in ${DDPID:-} ${PPID_:-}; do # a prte left in the background by a failed check
        kill -9 "$p" 2>/dev/null
    done
    "$CL" -n "$NAME" down
    rm -rf "$T"
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}
if ! ip netns add "$NAME-probe" 2>/dev/null; then
    echo "SKIP: cannot create network namespaces here"
    exit 77
fi
ip netns delete "$NAME-probe"
unset SSH_AUTH_SOCK PRTE_MCA_plm_ssh_agent PRTE_PREFIX
export PRTE_ALLOW_RUN_AS_ROOT=1 PRTE_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$T/tmp"
export TMPDIR=$T/tmp

timeout 60 "$CL" -n "$NAME" up "$SSH_NODES" >/dev/null || fail "cluster up failed"
H=$(timeout 60 "$CL" -n "$NAME" ssh) || fail "cluster ssh failed"
