#!/bin/sh
# Fuzz for SECONDS in all (default 60), split between the libFuzzer targets: the bfrops
# decoder (what is left), the server's message dispatch, the client's namespace
# unpacking, the daemon protocol's decoders and the PMI wires with the server's PMI
# connections (a sixth each). Configures a clang
# libFuzzer build in build-fuzz if needed, builds test/fuzz/fuzz_*, runs each from its
# committed seeds (test/fuzz/corpus, corpus-server, corpus-nspace, corpus-dproto,
# corpus-pmi; new inputs go to a scratch directory, the seeds stay
# untouched). Exits non-zero when a fuzzer reports a crash, a sanitizer error or a leak;
# the reproducer is left in build-fuzz/fuzz-artifacts/.
set -eu

seconds=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-fuzz"

if [ ! -f "$build/build.ninja" ]; then
    CC=clang meson setup "$build" "$root" -Dfuzz=true -Dtests=true
fi
ninja -C "$build" test/fuzz/fuzz_unpack test/fuzz/fuzz_server test/fuzz/fuzz_nspace \
    test/fuzz/fuzz_dproto test/fuzz/fuzz_pmi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$build/fuzz-artifacts"

sixth=$((seconds / 6))
[ "$sixth" -ge 1 ] || sixth=1
failed=0
for target in "unpack:$((seconds - 4 * sixth)):corpus" "server:$sixth:corpus-server" \
    "nspace:$sixth:corpus-nspace" "dproto:$sixth:corpus-dproto" "pmi:$sixth:corpus-pmi"; do
    name=${target%%:*}
    rest=${target#*:}
    secs=${rest%%:*}
    seeds=$root/test/fuzz/${rest#*:}
    mkdir -p "$work/$name"
    set +e
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$build/test/fuzz/fuzz_$name" -max_total_time="$secs" -max_len=4096 -timeout=10 \
        -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 \
        -artifact_prefix="$build/fuzz-artifacts/$name-" "$work/$name" "$seeds"
    rc=$?
    set -e
    if [ $rc -ne 0 ]; then
        echo "fuzz-smoke: fuzz_$name found a problem (exit $rc); see $build/fuzz-artifacts/" >&2
        failed=1
    fi
done
[ $failed -eq 0 ] || exit 1
echo "fuzz-smoke: ${seconds}s without findings"
