#!/usr/bin/env bash
# The demo, from a fresh clone: install what is missing, build, run it.
# Today: pmix_info, which reports the library and exercises the foundation (node and
# ppn regular expressions, an info list packed and unpacked); then the test host pxhost
# runs a job of 4 real client processes under the PMIx server on 2 simulated nodes
# (put/commit/fence/get of every peer's keys). The DVM issue replaces this with prun.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null
build/cli/pmix_info "$@"
echo
echo "pxhost: 4 ranks on 2 simulated nodes, each checking every peer's keys after a fence..."
build/test/host/pxhost -n 4 --nodes 2 -- build/test/clients/pxc_modex --fence collect \
    --nodes 2 --check-keys
echo "pxhost: job done, every check passed"
