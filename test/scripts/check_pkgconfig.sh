#!/bin/sh
# What build systems of PMIx users see (issue 20 item 8): installs the build into a
# scratch DESTDIR, then asks pkg-config about pmix the way configure scripts of Open MPI,
# Slurm and PRRTE do (--atleast-version against the API level, --modversion), and
# compiles, links and runs a program with `pkg-config --cflags --libs pmix` against the
# installed tree. Usage: check_pkgconfig.sh BUILDDIR CC
set -eu
builddir=$1
cc=${2:-cc}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
meson install -C "$builddir" --no-rebuild --destdir "$dest" >"$dest/install.log" 2>&1 || {
    cat "$dest/install.log"; echo "FAIL: meson install"; exit 1; }
pc=$(find "$dest" -name pmix.pc | head -n 1)
[ -n "$pc" ] || { echo "FAIL: pmix.pc not installed"; exit 1; }
# the sysroot prefixes the installed -I and -L with the scratch DESTDIR
export PKG_CONFIG_PATH="$(dirname "$pc")"
export PKG_CONFIG_SYSROOT_DIR="$dest"
export PKG_CONFIG_LIBDIR="$(dirname "$pc")"
fail=0
ver=$(pkg-config --modversion pmix)
hdr=$(sed -n 's/^#define PMIX_VERSION_MAJOR \([0-9]*\)L/\1/p;s/^#define PMIX_VERSION_MINOR \([0-9]*\)L/.\1/p;s/^#define PMIX_VERSION_RELEASE \([0-9]*\)L/.\1/p' \
    "$(find "$dest" -name pmix_version.h | head -n 1)" | tr -d '\n')
echo "pmix.pc Version: $ver, pmix_version.h: $hdr"
[ "$ver" = "$hdr" ] || { echo "FAIL: pmix.pc says $ver, the header $hdr"; fail=1; }
for v in 4 4.2 "$hdr"; do
    pkg-config --atleast-version="$v" pmix || { echo "FAIL: pkg-config --atleast-version=$v pmix"; fail=1; }
done
if pkg-config --atleast-version=99 pmix; then echo "FAIL: --atleast-version=99 accepted"; fail=1; fi
desc=$(grep '^Description:' "$pc")
ours=$(sed -n 's/^#define PMIX_RUNTIME_VERSION "\(.*\)"/\1/p' "$(find "$dest" -name pmix_version.h | head -n 1)")
case "$desc" in
*"$ours"*) ;;
*) echo "FAIL: our version $ours not in '$desc'"; fail=1 ;;
esac
cat >"$dest/hello.c" <<'C'
#include <pmix.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
#if PMIX_VERSION_MAJOR < 4
#error "PMIx v4 or later expected"
#endif
    const char *v = PMIx_Get_version();
    printf("%s\n", v);
    return v != NULL && strlen(v) > 0 ? 0 : 1;
}
C
# shellcheck disable=SC2046
$cc -o "$dest/hello" "$dest/hello.c" $(pkg-config --cflags --libs pmix) \
    >"$dest/cc.log" 2>&1 || { cat "$dest/cc.log"; echo "FAIL: compile/link through pkg-config"; exit 1; }
libdir=$(dirname "$(find "$dest" -name libpmix.so.2 | head -n 1)")
LD_LIBRARY_PATH="$libdir" "$dest/hello" >"$dest/run.log" 2>&1 || {
    cat "$dest/run.log"; echo "FAIL: the linked program did not run"; fail=1; }
lib=$(LD_LIBRARY_PATH="$libdir" ldd "$dest/hello" | awk '/libpmix/ {print $3}')
case "$lib" in
"$dest"*) echo "linked against $lib" ;;
*) echo "FAIL: linked against '$lib', not the installed tree"; fail=1 ;;
esac
exit $fail
