#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what is missing, builds with
# warnings as errors, runs every test; then a sanitizer build (ASan+UBSan) runs the unit
# and server/client, daemon and DVM integration tests, and the fuzzers (unpack, server
# dispatch, namespace unpacking, daemon protocol) share a short smoke run.
# Ends with "N passed, N failed" counted from meson's test logs; exits non-zero on any
# failure or when no test ran.
# Usage: scripts/test.sh            (FUZZ_SECONDS=60 by default; 0 skips the fuzz run)
set -uo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
fuzz_seconds=${FUZZ_SECONDS:-60}

scripts/install-deps.sh --with-fuzz || exit 1

failed_steps=()
run_step() {
    local name=$1
    shift
    echo "==> $name"
    if ! "$@"; then
        failed_steps+=("$name")
    fi
}

configure() {
    local dir=$1
    shift
    if [ -d "$dir" ]; then
        meson setup --reconfigure "$dir" "$@" >/dev/null
    else
        meson setup "$dir" "$@" >/dev/null
    fi
}

rm -f build-test/meson-logs/testlog.json build-test-asan/meson-logs/testlog.json

# 1. the main build: everything, warnings are errors
run_step "configure" configure build-test -Dwerror=true -Dbuildtype=debugoptimized
run_step "build" ninja -C build-test
run_step "tests" meson test -C build-test --print-errorlogs --num-processes 2

# 2. sanitizers on the unit tests, the server/client integration tests and the Open MPI
#    programs' runs
run_step "configure (asan)" configure build-test-asan -Dwerror=true \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
run_step "build (asan)" ninja -C build-test-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    PX_MANY_JOBS=50 PX_MANY_NO_RSS=1 \
    run_step "unit+server+tool+daemon+dvm+ompi tests (asan)" meson test -C build-test-asan --suite unit \
    --suite server --suite tool --suite daemon --suite dvm --suite ompi \
    --print-errorlogs \
    --num-processes 2

# 3. fuzz smoke run of the four targets, FUZZ_SECONDS in all (one test in the count)
fuzz_result=""
if [ "$fuzz_seconds" != "0" ]; then
    if [ -x scripts/fuzz-smoke.sh ]; then
        echo "==> fuzz smoke (${fuzz_seconds}s)"
        if scripts/fuzz-smoke.sh "$fuzz_seconds"; then fuzz_result=pass; else fuzz_result=fail; fi
    fi
fi

if [ ${#failed_steps[@]} -ne 0 ]; then
    echo "failed steps: ${failed_steps[*]}"
fi
python3 - "$top/build-test/meson-logs/testlog.json" "$top/build-test-asan/meson-logs/testlog.json" \
    "$fuzz_result" "${failed_steps[@]}" <<'PY'
import json, sys
# Each test counts once; a failed step counts only when no failed test of its own
# explains it (a build that failed, a test run that ended without a log).
logs = {"tests": sys.argv[1], "unit+server+tool+daemon+dvm+ompi tests (asan)": sys.argv[2]}
passed = failed = skipped = 0
failures = []  # (name, result, duration, build, last lines), printed last
failed_in = {}
for step, path in logs.items():
    try:
        lines = open(path).read().splitlines()
    except OSError:
        continue
    for line in lines:
        if not line.strip():
            continue
        t = json.loads(line)
        r = t.get("result", "")
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:
            failed += 1
            failed_in[step] = failed_in.get(step, 0) + 1
            failures.append((t.get("name"), r, t.get("duration", 0.0), path.split("/")[-3],
                             (t.get("stdout") or "").splitlines()[-12:]))
if sys.argv[3] == "pass":
    passed += 1
elif sys.argv[3] == "fail":
    failed += 1
unexplained = [st for st in sys.argv[4:] if not failed_in.get(st)]
# name the failures last, so a reader of only the run's tail sees them
for name, r, d, build, out in failures:
    print("FAILED %s (%s, %.1fs, %s)" % (name, r, d, build))
    for o in out:
        print("  | " + o[:200])
for st in unexplained:
    print("FAILED step: %s" % st)
failed_total = failed + len(unexplained)
tail = ", %d skipped" % skipped if skipped else ""
print("%d passed, %d failed%s" % (passed, failed_total, tail))
sys.exit(1 if failed_total or passed == 0 else 0)
PY
