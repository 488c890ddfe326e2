#!/usr/bin/env bash
# The demo, from a fresh clone: install what is missing, build, run it.
# Today: pmix_info, which reports the library and exercises the foundation (node and
# ppn regular expressions, an info list packed and unpacked).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null
exec build/cli/pmix_info "$@"
