#!/bin/sh
# Runs one pxhost job for the 'server' test suite and checks it.
# Usage: pxh_run.sh [--status N|nonzero] [--match ERE]... [--no-match ERE]...
#                   [--gone PATH]... [--kept PATH]... -- PXHOST [ARGS...]
#   --status   expected exit status (default 0); 77 from pxhost is passed on (skip)
#   --match    an extended regular expression the output (stdout+stderr) must match
#   --no-match one it must not match
#   --gone     a file that must not exist after the job (created by the job)
#   --kept     a path the job creates that must still exist after it (then removed)
# Every process of the job carries a unique token in its environment: any process still
# holding it after pxhost exited is reported as leaked (and killed).
set -u
want=0
matches=""
nomatches=""
gone=""
kept=""
nl='
'
while [ $# -gt 0 ]; do
    case "$1" in
    --status) want=$2; shift 2 ;;
    --match) matches="$matches$2$nl"; shift 2 ;;
    --no-match) nomatches="$nomatches$2$nl"; shift 2 ;;
    --gone) gone="$gone$2$nl"; shift 2 ;;
    --kept) kept="$kept$2$nl"; shift 2 ;;
    --) shift; break ;;
    *) echo "pxh_run.sh: unknown option $1"; exit 2 ;;
    esac
done
fail=0
token="pxhrun.$$.$(date +%s%N)"
echo "$gone$kept" | while IFS= read -r f; do [ -n "$f" ] && rm -rf "$f"; done
out=$(env PXH_TEST_TOKEN="$token" timeout -s KILL 55 "$@" 2>&1)
status=$?
printf '%s\n' "$out"
if [ "$status" -eq 77 ] && [ "$want" != 77 ]; then
    echo "SKIP: pxhost says the test cannot run here"
    exit 77
fi
# leaked processes of this job: those still there once the ones that are ending have
# gone (a process on its way out may still show its environment on a loaded machine;
# 5 s at most)
for i in $(seq 1 50); do
    leaked=$(grep -l "PXH_TEST_TOKEN=$token" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3)
    [ -z "$leaked" ] && break
    sleep 0.1
done
if [ -n "$leaked" ]; then
    for p in $leaked; do
        echo "FAIL: process $p ($(tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null)) outlived the job"
        kill -9 "$p" 2>/dev/null
    done
    fail=1
fi
case "$want" in
nonzero) [ "$status" -ne 0 ] || { echo "FAIL: expected a non-zero exit status"; fail=1; } ;;
*) [ "$status" -eq "$want" ] || { echo "FAIL: exit status $status, expected $want"; fail=1; } ;;
esac
while IFS= read -r re; do
    [ -n "$re" ] || continue
    printf '%s\n' "$out" | grep -Eq -- "$re" || { echo "FAIL: output does not match '$re'"; fail=1; }
done <<EOF
$matches
EOF
while IFS= read -r re; do
    [ -n "$re" ] || continue
    if printf '%s\n' "$out" | grep -Eq -- "$re"; then
        echo "FAIL: output matches '$re'"; fail=1
    fi
done <<EOF
$nomatches
EOF
while IFS= read -r f; do
    [ -n "$f" ] || continue
    [ ! -e "$f" ] || { echo "FAIL: $f still exists after the job"; fail=1; rm -f "$f"; }
done <<EOF
$gone
EOF
while IFS= read -r f; do
    [ -n "$f" ] || continue
    [ -e "$f" ] || { echo "FAIL: $f is gone after the job, it should remain"; fail=1; }
done <<EOF
$kept
EOF
echo "$kept" | while IFS= read -r f; do [ -n "$f" ] && rm -rf "$f"; done
[ "$fail" -eq 0 ] && echo "ok"
exit "$fail"
