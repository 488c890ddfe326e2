#!/usr/bin/env bash
# Cpusets and locality end to end (issue 13 item 3): under --bind-to core each process
# reads PMIX_CPUSET ("hwloc:<its Cpus_allowed_list>") and PMIX_LOCALITY_STRING, gets the
# same set from PMIx_Get_cpuset, finds its relative locality to rank 0, reads the node's
# PMIX_LOCAL_CPUSETS, and loads the DVM's topology (no caches: the DVM's filters; a
# client discovering its own would keep them) instead of discovering one. Unbound
# processes still get a locality string (the whole node) but no PMIX_CPUSET.
. "$(dirname "$0")/lib.sh"
LOC=$B/test/dvm/dvm_locality
start_dvm
P() { run_to 30 "$PRUN" $RR "$@" >"$T/out" 2>"$T/err" || fail "prun $*: $(cat "$T/err")"; }
field() { grep "^loc rank $1 " "$T/out" | tr " " "\n" | sed -n "s/^$2=//p"; }

ncores=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
n=2
[ "$ncores" -ge 2 ] || n=1
P -n $n --map-by core --bind-to core "$LOC"
[ "$(grep -c '^loc rank' "$T/out")" = $n ] || fail "$n lines expected: $(cat "$T/out") $(cat "$T/err")"
lcpus=""
for r in $(seq 0 $((n - 1))); do
    allowed=$(field $r allowed)
    [ -n "$allowed" ] || fail "rank $r: no Cpus_allowed_list: $(cat "$T/out")"
    [ "$(field $r cpuset)" = "hwloc:$allowed" ] || fail "rank $r: PMIX_CPUSET vs $allowed: $(cat "$T/out")"
    [ "$(field $r mine)" = "$allowed" ] || fail "rank $r: PMIx_Get_cpuset vs $allowed: $(cat "$T/out")"
    [ "$(field $r thread)" = "$allowed" ] || fail "rank $r: thread cpuset vs $allowed: $(cat "$T/out")"
    locstr=$(field $r locstr)
    echo "$locstr" | grep -Eq '^hwloc:NM[0-9,-]*:SK[0-9,-]+:L3:L2:L1:CR[0-9]+:HT[0-9,-]+$' ||
        fail "rank $r: locality string $locstr"
    [ "$(field $r pus)" -ge 1 ] || fail "rank $r: no topology: $(cat "$T/out")"
    [ "$(field $r caches)" = 0 ] || fail "rank $r: topology not the DVM's (caches): $(cat "$T/out")"
    lcpus=${lcpus:+$lcpus:}$allowed
done
# every process sees the node's cpusets in local-peer order
for r in $(seq 0 $((n - 1))); do
    [ "$(field $r lcpus)" = "$lcpus" ] || fail "rank $r: PMIX_LOCAL_CPUSETS vs $lcpus: $(cat "$T/out")"
done
# rank 0 shares everything with itself; two distinct cores share the node and package but
# not the core (0x4000 node, 0x40 NUMA, 0x20 package, 0x2 core, 0x1 hwthread)
[ "$(field 0 rel0)" = 4063 ] || fail "rank 0 vs itself: $(cat "$T/out")"
if [ $n = 2 ]; then
    rel=$(field 1 rel0)
    [ $((0x$rel & 0x4000)) != 0 ] && [ $((0x$rel & 0x3)) = 0 ] || fail "rank 1 vs 0: $rel"
fi

# not bound: no PMIX_CPUSET, a locality string covering the node
P -n 1 --bind-to none "$LOC"
case "$(field 0 cpuset)" in ERR:*) ;; *) fail "unbound process got a PMIX_CPUSET: $(cat "$T/out")" ;; esac
field 0 locstr | grep -q '^hwloc:' || fail "unbound: no locality string: $(cat "$T/out")"
[ "$(field 0 mine)" = "$(field 0 allowed)" ] || fail "unbound: Get_cpuset: $(cat "$T/out")"

stop_dvm
pass
