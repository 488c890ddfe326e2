#!/usr/bin/env bash
# Every command: --help, --version, unknown options, bad -n, and the run-as-root rule.
. "$(dirname "$0")/lib.sh"
for c in "$PRTE" "$PRTERUN" "$PRUN" "$PTERM" "$PPS"; do
    run_to 10 "$c" --help >"$T/out" 2>&1 || fail "$c --help"
    [ -s "$T/out" ] || fail "$c --help printed nothing"
    run_to 10 "$c" --version >"$T/out" 2>&1 || fail "$c --version"
    expect_in "$T/out" "pmix-runtime"
    run_to 10 "$c" $RR --no-such-option >"$T/out" 2>&1 && fail "$c accepted an unknown option"
    expect_in "$T/out" "no-such-option"
done
for bad in 0 -1 abc 1x ""; do
    run_to 10 "$PRUN" $RR -n "$bad" /bin/true >"$T/out" 2>&1 && fail "-n '$bad' accepted"
    [ -s "$T/out" ] || fail "-n '$bad': no message"
done
run_to 10 "$PRUN" $RR -n 1 >"$T/out" 2>&1 && fail "no executable accepted"
run_to 10 "$PRUN" --help n >"$T/out" 2>&1 || fail "--help n"
if [ "$(id -u)" = 0 ]; then
    env -u PRTE_ALLOW_RUN_AS_ROOT -u PRTE_ALLOW_RUN_AS_ROOT_CONFIRM \
        "$PRTE" --no-ready-msg >"$T/out" 2>&1 && fail "root without --allow-run-as-root"
    expect_in "$T/out" "allow-run-as-root"
fi
pass
