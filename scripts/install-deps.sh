#!/bin/sh
# Installs the Debian packages this project needs, and only those that are missing.
# Idempotent; prints nothing when everything is already there.
# Usage: scripts/install-deps.sh [--with-fuzz]   (clang + its fuzzer runtime as well)
set -eu

pkgs="gcc libc6-dev binutils make meson ninja-build pkg-config python3 libevent-dev libhwloc-dev
libssh2-1-dev openssh-server openssh-client libcriterion-dev valgrind iproute2 util-linux groff-base man-db
openmpi-bin libopenmpi-dev mpich libmpich-dev libpmi2-0-dev
slurmctld slurmd slurm-client munge"
case "${1:-}" in
--with-fuzz) pkgs="$pkgs clang libclang-rt-14-dev" ;;
esac
# procps: pgrep in the DVM tests (a minimal Debian has only the "required" packages,
# and procps is "important")
pkgs="$pkgs procps"

missing=""
for p in $pkgs; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$status" = "installed" ] || missing="$missing $p"
done
[ -n "$missing" ] || exit 0

if [ "$(id -u)" -eq 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    echo "install-deps: missing packages:$missing" >&2
    echo "install-deps: run this script as root (or install sudo) to install them." >&2
    exit 1
fi

echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
