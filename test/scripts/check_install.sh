#!/bin/sh
# Installs the build into a scratch DESTDIR and checks what a user expects to find there:
# libpmix.so.2 (SONAME libpmix.so.2) exporting only PMIx_* symbols, the six public
# headers, pmix.pc, and mpiexec/mpirun as links to prterun under libexec only.  Usage: check_install.sh BUILDDIR
set -eu
builddir=$1
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
meson install -C "$builddir" --no-rebuild --destdir "$dest" >"$dest.log" 2>&1 || {
    cat "$dest.log"; rm -f "$dest.log"; echo "FAIL: meson install"; exit 1; }
rm -f "$dest.log"
fail=0
lib=$(find "$dest" -name 'libpmix.so.2' | head -n 1)
if [ -z "$lib" ]; then echo "FAIL: no libpmix.so.2 installed"; exit 1; fi
echo "installed: ${lib#$dest}"
soname=$(objdump -p "$lib" | awk '/SONAME/ {print $2}')
[ "$soname" = "libpmix.so.2" ] || { echo "FAIL: SONAME is '$soname'"; fail=1; }
nexp=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -c . || true)
bad=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^PMIx_' || true)
if [ -n "$bad" ]; then
    echo "FAIL: symbols other than PMIx_* exported:"; echo "$bad" | head -20; fail=1
fi
# objdump -T agrees with nm -D
bad2=$(objdump -T "$lib" | awk '$2 == "g" && $4 != "*UND*" {print $NF}' | grep -v '^PMIx_' || true)
[ -z "$bad2" ] || { echo "FAIL: objdump -T shows non-PMIx_ globals: $bad2"; fail=1; }
for h in pmix.h pmix_common.h pmix_server.h pmix_tool.h pmix_version.h pmix_deprecated.h; do
    [ -n "$(find "$dest" -name "$h")" ] || { echo "FAIL: header $h not installed"; fail=1; }
done
# mpiexec/mpirun: links to prterun under libexec/pmix-runtime only, never in a bin dir
for a in mpiexec mpirun; do
    l=$(find "$dest" -path "*/pmix-runtime/$a" | head -n 1)
    [ -n "$l" ] && [ -L "$l" ] || { echo "FAIL: $a is not installed as a link"; fail=1; continue; }
    case "$(readlink "$l")" in
    */bin/prterun) ;;
    *) echo "FAIL: $a points to $(readlink "$l"), not prterun"; fail=1 ;;
    esac
    [ -z "$(find "$dest" -path "*/bin/$a")" ] || { echo "FAIL: $a installed in a bin dir"; fail=1; }
done
pc=$(find "$dest" -name pmix.pc | head -n 1)
[ -n "$pc" ] || { echo "FAIL: pmix.pc not installed"; fail=1; }
echo "$nexp PMIx_* symbols exported"
[ "$nexp" -gt 100 ] || { echo "FAIL: too few exported symbols"; fail=1; }
exit $fail
