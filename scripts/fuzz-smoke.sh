#!/bin/sh
# Fuzz the bfrops decoder for SECONDS (default 60): configure a clang libFuzzer build in
# build-fuzz if needed, build test/fuzz/fuzz_unpack, run it from the committed seeds in
# test/fuzz/corpus (new inputs go to a scratch directory, the seeds stay untouched).
# Exits non-zero when the fuzzer reports a crash, a sanitizer error or a leak; the
# reproducer is left in build-fuzz/fuzz-artifacts/.
set -eu

seconds=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-fuzz"

if [ ! -f "$build/build.ninja" ]; then
    CC=clang meson setup "$build" "$root" -Dfuzz=true -Dtests=true
fi
ninja -C "$build" test/fuzz/fuzz_unpack

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$build/fuzz-artifacts"

set +e
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
"$build/test/fuzz/fuzz_unpack" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
    -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/" "$work" "$root/test/fuzz/corpus"
rc=$?
set -e
if [ $rc -ne 0 ]; then
    echo "fuzz-smoke: the fuzzer found a problem (exit $rc); see $build/fuzz-artifacts/" >&2
    exit 1
fi
echo "fuzz-smoke: ${seconds}s without findings"
