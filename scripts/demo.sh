#!/usr/bin/env bash
# The demo, from a fresh clone: install what is missing, build, then start a DVM on this
# machine, run the MPMD job `prun -n 4 --pset ocean app : -n 3 --pset ice app` (each
# process prints its rank and the process sets it belongs to), list the DVM's jobs while
# one runs (pps), and stop the DVM (pterm).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null
B=$(pwd)/build
APP=$B/test/dvm/dvm_app
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "\$ prte --daemonize --report-uri $dir/uri"
"$B/cli/prte" --daemonize --report-uri "$dir/uri" "${root[@]}"
echo "\$ prun -n 4 --pset ocean dvm_app hello : -n 3 --pset ice dvm_app hello"
"$B/cli/prun" "${root[@]}" -n 4 --pset ocean "$APP" hello : -n 3 --pset ice "$APP" hello | sort -k3 -n
echo "\$ prun -n 2 dvm_app sleep 2 &   then   pps"
"$B/cli/prun" "${root[@]}" -n 2 "$APP" sleep 2 &
sleep 0.5
"$B/cli/pps" "${root[@]}"
wait
echo "\$ pterm"
"$B/cli/pterm" "${root[@]}"
echo "DVM stopped"
