# lib_ompi.sh - sourced by the Open MPI tests after test/dvm/lib.sh: where the programs
# are, and a failure (not a skip) when they were not built.
O=${PX_OMPI_BIN:?PX_OMPI_BIN must name the directory of the Open MPI test programs}
if [ ! -x "$O/ompi_hello" ]; then
    echo "FAIL: the Open MPI test programs were not built: mpicc.openmpi was not found when"
    echo "the build was configured. Install openmpi-bin and libopenmpi-dev"
    echo "(scripts/install-deps.sh does), then reconfigure: meson setup --reconfigure <build>."
    cleanup
    exit 1
fi
# Open MPI leaks by design; under ASan only our library's errors count here
if [ -n "${ASAN_OPTIONS:-}" ]; then
    export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
fi

# expect_lines FILE PATTERN N : exactly N lines of FILE match the extended regex PATTERN
expect_lines() {
    local c
    c=$(grep -cE -- "$2" "$1")
    [ "$c" = "$3" ] || fail "$3 lines matching '$2' expected in $1, found $c: $(head -c 3000 "$1")"
}
