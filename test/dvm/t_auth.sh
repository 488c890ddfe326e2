#!/usr/bin/env bash
# Who may connect to a DVM (issue 12, item 9), against the real prte with a user created
# for the purpose: a DVM run as root and one run as that user refuse tools of another
# user (socket URI) and TCP tools with a wrong or missing secret; a client presenting a
# job's identity under the wrong uid is refused; --allow-users/--allow-groups let another
# user's tools query but not start or stop anything; rendezvous files are mode 0600. None
# of the refused commands may start a process: each would create a marker file.
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null || ! command -v setpriv >/dev/null; then
    rm -rf "$T"
    echo "SKIP: needs root, useradd and setpriv (the test creates a user)"
    exit 77
fi
U=pxauth$$
useradd -M -U -d /nonexistent -s /bin/sh "$U" >/dev/null 2>&1 || {
    rm -rf "$T"
    echo "SKIP: cannot create a user"
    exit 77
}
drop_user() {
    userdel "$U" >/dev/null 2>&1
    groupdel "$U" >/dev/null 2>&1
    true
}
trap drop_user EXIT
as_user() { setpriv --reuid="$U" --regid="$U" --init-groups "$@"; }

# The other user may walk into our directories (like /tmp), but owns nothing there.
chmod 755 "$T"
chmod 1777 "$TMPDIR"
HOST=$(hostname)
NOPERM="PMIX_ERR_NO_PERMISSIONS"

# refused WHO MARKFILE CMD... : CMD (run by WHO: "user" or "root") fails with a
# no-permission message and no job created MARKFILE.
refused() {
    local who=$1 mark=$2
    shift 2
    if [ "$who" = user ]; then
        run_to 30 setpriv --reuid="$U" --regid="$U" --init-groups "$@" >"$T/out" 2>"$T/err"
    else
        run_to 30 "$@" >"$T/out" 2>"$T/err"
    fi
    local rc=$?
    [ $rc != 0 ] || fail "$who: $* was accepted: $(cat "$T/out" "$T/err")"
    [ $rc != 124 ] || fail "$who: $* timed out"
    expect_in "$T/err" "$NOPERM"
    [ ! -e "$mark" ] || fail "$who: $* started a process ($(cat "$mark"))"
}

# The DVM's TCP URI: the fourth line of its rendezvous file.
tcp_uri() { sed -n 4p "$TMPDIR/pmix.$HOST.tool.$1"; }

# raw_tcp URI PAYLOAD_HEX : the status a TCP listener answers a handshake whose payload
# (no secret, or a wrong one) is PAYLOAD_HEX.
raw_tcp() {
    python3 - "$1" "$2" <<'EOF'
import re, socket, struct, sys
m = re.search(r"tcp4://([0-9.]+):([0-9]+)", sys.argv[1])
payload = bytes.fromhex(sys.argv[2])
s = socket.create_connection((m.group(1), int(m.group(2))), timeout=10)
s.sendall(struct.pack("!B3xI", 1, len(payload)) + payload)
ans = b""
while len(ans) < 8:
    chunk = s.recv(8 - len(ans))
    if not chunk:
        break
    ans += chunk
print(struct.unpack("!B3xi", ans)[1] if len(ans) == 8 else "closed")
EOF
}

# find_rank PATTERN : RANK = the pid of the job process whose command line starts with
# PATTERN, once it has its PMIx environment (bounded wait)
find_rank() {
    RANK=""
    for _ in $(seq 200); do
        RANK=$(pgrep -f "^$1" | head -1)
        [ -n "$RANK" ] && grep -qz '^PMIX_NAMESPACE=' "/proc/$RANK/environ" 2>/dev/null && return 0
        RANK=""
        sleep 0.05
    done
    fail "the job's rank ($1) did not start"
}

# ---- 1. a DVM run as root ----
start_dvm
URI=$(cat "$T/uri")
for f in "$TMPDIR"/pmix.*tool*; do
    [ "$(stat -c %a "$f")" = 600 ] || fail "rendezvous file $f has mode $(stat -c %a "$f")"
    as_user test -r "$f" && fail "user $U can read $f"
done
MARK="$T/ran" # a job run as root can write there
refused user "$MARK.1" "$PRUN" --dvm-uri "$URI" -n 1 /bin/sh -c "id > $MARK.1"
expect_in "$T/err" "the DVM refused this command, run by uid $(id -u "$U")"
expect_in "$T/err" "serves only the user who started it"
refused user "$MARK.2" "$PPS" --dvm-uri "$URI"
refused user "$MARK.3" "$PTERM" --dvm-uri "$URI"
kill -0 "$DVM_PID" 2>/dev/null || fail "the DVM is gone after another user's pterm"
# the default search: the rendezvous files are not readable, so no DVM is found
run_to 30 setpriv --reuid="$U" --regid="$U" --init-groups "$PRUN" -n 1 /bin/sh -c "id > $MARK.4" \
    >"$T/out" 2>"$T/err" && fail "user $U reached the DVM through the default search"
[ ! -e "$MARK.4" ] || fail "the default search started a process"

# TCP: the owner itself needs the secret; a wrong one and none at all are refused
TCP=$(tcp_uri "$DVM_PID")
case "$TCP" in *secret=*) ;; *) fail "no TCP URI in the rendezvous file" ;; esac
BAD=$(printf '%s' "$TCP" | sed 's/secret=.*/secret=00000000000000000000000000000000/')
refused root "$MARK.5" "$PRUN" $RR --dvm-uri "$BAD" -n 1 /bin/sh -c "id > $MARK.5"
refused user "$MARK.6" "$PRUN" --dvm-uri "$BAD" -n 1 /bin/sh -c "id > $MARK.6"
[ "$(raw_tcp "$TCP" "")" = -23 ] || fail "a handshake without a secret was not refused"
[ "$(raw_tcp "$TCP" "$(printf '%064x' 0)")" = -23 ] || fail "a wrong secret was not refused"
# the right secret: accepted (a TCP tool has no peer credentials; the secret is its proof)
run_to 30 "$PRUN" $RR --dvm-uri "$TCP" -n 1 "$APP" hello >"$T/out" 2>"$T/err" ||
    fail "the owner's TCP tool with the secret failed: $(cat "$T/err")"
expect_in "$T/out" "hello rank 0 of 1"

# a client of the wrong user: the identity of a running rank, presented by user U
run_to 60 "$PRUN" $RR --dvm-uri "$URI" -n 1 "$APP" sleep 60 >"$T/job.out" 2>&1 &
JOB=$!
find_rank "$APP sleep 60"
ENVS=()
while IFS= read -r -d '' kv; do ENVS+=("$kv"); done <"/proc/$RANK/environ"
refused user "$MARK.7" env -i "${ENVS[@]}" "$APP" hello
expect_in "$T/err" "refused this process"
# the right uid (root) with a wrong gid is refused too
run_to 30 setpriv --regid="$U" --clear-groups env -i "${ENVS[@]}" "$APP" hello >"$T/out" 2>"$T/err" &&
    fail "a client with the registered uid but another gid was accepted"
expect_in "$T/err" "$NOPERM"
kill -TERM "$JOB"
wait "$JOB"
stop_dvm

# ---- 2. a root DVM that also serves user U (and then group U) ----
for opt in "--allow-users $U" "--allow-groups $U" "--allow-users $(id -u "$U")"; do
    start_dvm $opt
    URI=$(cat "$T/uri")
    run_to 30 setpriv --reuid="$U" --regid="$U" --init-groups "$PPS" --dvm-uri "$URI" \
        >"$T/out" 2>"$T/err" || fail "$opt: user $U's pps refused: $(cat "$T/err")"
    refused user "$MARK.8" "$PRUN" --dvm-uri "$URI" -n 1 /bin/sh -c "id > $MARK.8"
    expect_in "$T/err" "for queries only"
    refused user "$MARK.9" "$PTERM" --dvm-uri "$URI"
    expect_in "$T/err" "Only the user who started the DVM may stop it"
    kill -0 "$DVM_PID" 2>/dev/null || fail "$opt: the DVM is gone after user $U's pterm"
    # nor may it feed or signal the owner's job
    run_to 60 "$PRUN" $RR --dvm-uri "$URI" -n 1 "$APP" trap </dev/null >"$T/job.out" 2>&1 &
    JOB=$!
    find_rank "$APP trap"
    wait_for "$T/job.out" "ready" # its handlers are installed: a SIGHUP will not kill it
    NS=$(tr '\0' '\n' <"/proc/$RANK/environ" | sed -n 's/^PMIX_NAMESPACE=//p')
    run_to 30 setpriv --reuid="$U" --regid="$U" --init-groups "$APP" toolact "$URI" "$NS" \
        >"$T/out" 2>"$T/err" || fail "$opt: toolact failed: $(cat "$T/err")"
    expect_in "$T/out" "push $NOPERM"
    expect_in "$T/out" "signal $NOPERM"
    # the owner may: its SIGHUP is the only one the job reports
    run_to 30 "$APP" toolact "$URI" "$NS" >"$T/out" 2>"$T/err" ||
        fail "$opt: the owner's toolact failed: $(cat "$T/err")"
    expect_in "$T/out" "signal PMIX_SUCCESS"
    wait_for "$T/job.out" "got signal 1"
    [ "$(grep -c "got signal 1$" "$T/job.out")" = 1 ] ||
        fail "$opt: the job did not get exactly the owner's SIGHUP: $(cat "$T/job.out")"
    kill -TERM "$JOB"
    wait "$JOB"
    stop_dvm
done
for bad in "--allow-users no-such-user-$$" "--allow-groups no-such-group-$$" "--allow-users ,"; do
    run_to 10 "$PRTE" $RR --no-ready-msg $bad >"$T/out" 2>&1 && fail "prte accepted $bad"
    expect_in "$T/out" "is not valid"
done

# ---- 3. a DVM run as user U: root's tools are another user's ----
mkdir "$T/u" && chown "$U" "$T/u"
run_to 20 setpriv --reuid="$U" --regid="$U" --init-groups "$PRTE" --daemonize \
    --report-uri "$T/u/uri" --report-pid "$T/u/pid" >"$T/prte.out" 2>&1 ||
    fail "prte as $U failed: $(cat "$T/prte.out")"
DVM_PID=$(cat "$T/u/pid")
URI=$(cat "$T/u/uri")
# a job of this DVM runs as $U: its marker goes where $U can write
refused root "$T/u/ran.10" "$PRUN" $RR --dvm-uri "$URI" -n 1 /bin/sh -c "id > $T/u/ran.10"
refused root "$MARK.11" "$PTERM" $RR --dvm-uri "$URI"
kill -0 "$DVM_PID" 2>/dev/null || fail "the DVM of $U is gone after root's pterm"
# its own user is served, and its clients (registered under its uid) are accepted
run_to 30 setpriv --reuid="$U" --regid="$U" --init-groups "$PRUN" --dvm-uri "$URI" -n 1 \
    "$APP" hello >"$T/out" 2>"$T/err" || fail "user $U's own DVM refused it: $(cat "$T/err")"
expect_in "$T/out" "hello rank 0 of 1"
run_to 20 setpriv --reuid="$U" --regid="$U" --init-groups "$PTERM" --dvm-uri "$URI" ||
    fail "pterm of the DVM's own user failed"
gone "$DVM_PID" || fail "DVM $DVM_PID still running after pterm returned"
DVM_PID=""
rm -rf "$T/u"
pass
