#!/usr/bin/env bash
# 1,000 consecutive prun -n 64 /bin/true on one DVM: no hang, every job succeeds, and the
# DVM's memory stays flat (RSS after the last job within 8 MB of RSS after the first
# tenth of them, the 100th by default).
. "$(dirname "$0")/lib.sh"
start_dvm
JOBS=${PX_MANY_JOBS:-1000}
mark=$((JOBS / 10))
rss() { awk '/VmRSS/ {print $2}' "/proc/$DVM_PID/status"; }
for i in $(seq 1 "$JOBS"); do
    run_to 30 "$PRUN" $RR --dvm-uri "file:$T/uri" -n 64 --stdin none /bin/true \
        >"$T/out" 2>&1 || fail "job $i failed or hung: $(cat "$T/out")"
    [ "$i" = "$mark" ] && r100=$(rss)
done
rend=$(rss)
echo "DVM RSS after $mark jobs: ${r100} kB, after $JOBS: ${rend} kB"
# (a sanitizer's quarantine keeps freed memory: PX_MANY_NO_RSS=1 skips this check there)
[ "${PX_MANY_NO_RSS:-0}" = 1 ] || [ $((rend - r100)) -lt 8192 ] || fail "DVM memory grew from ${r100} kB to ${rend} kB"
stop_dvm
pass
