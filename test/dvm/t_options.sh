#!/usr/bin/env bash
# Every command: --help, --version, unknown options, bad -n, and the run-as-root rule;
# each answer is checked against its text in share/help/help-prte-cli.txt.
. "$(dirname "$0")/lib.sh"
for c in "$PRTE" "$PRTERUN" "$PRUN" "$PTERM" "$PPS"; do
    n=$(basename "$c")
    run_to 10 "$c" --help >"$T/out" 2>&1 || fail "$c --help"
    expect_in "$T/out" "Usage: $n [options]"   # [usage-<command>]
    expect_in "$T/out" "-h, --help [option]"   # [opt-help], listed among the options
    expect_in "$T/out" "Use --help <option> (e.g."
    run_to 10 "$c" --version >"$T/out" 2>&1 || fail "$c --version"
    expect_in "$T/out" "$n (pmix-runtime) " # [version]
    run_to 10 "$c" $RR --no-such-option >"$T/out" 2>&1 && fail "$c accepted an unknown option"
    expect_in "$T/out" "$n: unknown option \"--no-such-option\"." # [unknown-option]
    expect_in "$T/out" "See the list of options with --help."
done
for bad in 0 -1 abc 1x ""; do
    run_to 10 "$PRUN" $RR -n "$bad" /bin/true >"$T/out" 2>&1 && fail "-n '$bad' accepted"
    expect_in "$T/out" "prun: the number of processes \"$bad\" (-n) is not valid." # [bad-np]
    expect_in "$T/out" "Give a positive integer, e.g. -n 4."
done
run_to 10 "$PRUN" $RR -n 1 >"$T/out" 2>&1 && fail "no executable accepted"
expect_in "$T/out" "prun: no executable was given." # [no-executable]
expect_in "$T/out" 'e.g. "prun -n 2 ./my_app"'
run_to 10 "$PRUN" --help n >"$T/out" 2>&1 || fail "--help n"
expect_in "$T/out" "-n, --np, -np <N>" # [opt-np], with its details
expect_in "$T/out" "N must be a positive integer."
run_to 10 "$PRUN" --help no-such-option >"$T/out" 2>&1 && fail "--help of no option accepted"
expect_in "$T/out" "prun: there is no option \"no-such-option\" to show help for." # [help-unknown-option]
if [ "$(id -u)" = 0 ]; then
    env -u PRTE_ALLOW_RUN_AS_ROOT -u PRTE_ALLOW_RUN_AS_ROOT_CONFIRM \
        "$PRTE" --no-ready-msg >"$T/out" 2>&1 && fail "root without --allow-run-as-root"
    expect_in "$T/out" "prte: refusing to run as root." # [run-as-root]
    expect_in "$T/out" "add --allow-run-as-root to the command line"
fi
pass
