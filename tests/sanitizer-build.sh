# sanitizer-build.sh: sourced by tests/tsan/run-tsan.sh and tests/asan/run-asan.sh. Builds
# libomp-lite and test programs again with the sanitizer flags in $flags (and $ldflags), in a
# build of their own under BUILD/tests/$name/build, configured from a copy of the sources.
# In: $name (tsan, asan), $flags, $ldflags, $builddir, $srcdir, and the make targets to build as
# arguments (none: every test program). Out: $sanbuild, the instrumented build directory.
# Exits 77 when the compiler or kernel cannot run such programs, 99 when the build fails.

# Can this machine run an instrumented program at all? (Some kernels' address-space layouts make
# the sanitizers' runtimes refuse to start.)
probe=$(mktemp -d "${TMPDIR:-/tmp}/$name-probe.XXXXXX") || exit 99
trap 'rm -rf "$probe"' EXIT
echo 'int main(void) { return 0; }' > "$probe/p.c"
if ! gcc $flags "$probe/p.c" -o "$probe/p" > "$probe/log" 2>&1 || ! "$probe/p" >> "$probe/log" 2>&1
then
    echo "SKIP: gcc $flags programs do not build or run here:"
    sed 's/^/  | /' "$probe/log"
    exit 77
fi

# The copy of the sources: configure refuses a source tree that was configured in place (as
# .ci/run's is). Automake's distdir makes the copy and keeps the files' times, so the build,
# configured once, recompiles only what changed. The outer make's job server is not ours to use
# (this script is one test among make check's).
run_make() { env -u MAKEFLAGS -u MFLAGS make "$@"; }
sansrc=$builddir/tests/$name/src
sanbuild=$builddir/tests/$name/build
mkdir -p "$sanbuild" || exit 99
run_make -s -C "$builddir" distdir distdir="$sansrc" > "$sanbuild/distdir.log" 2>&1 || {
    echo "$name: could not copy the sources:"; tail -n 30 "$sanbuild/distdir.log"; exit 99; }
cd "$sanbuild" || exit 99
if [ ! -f Makefile ] || [ "$sansrc/configure" -nt config.status ]; then
    echo "configuring an instrumented build in $sanbuild"
    "$sansrc/configure" -q CFLAGS="$flags" CXXFLAGS="$flags" FCFLAGS="$flags" \
        LDFLAGS="$ldflags" > configure.log 2>&1 || {
        echo "$name: configure failed (see $sanbuild/configure.log)"; exit 99; }
fi
echo "building libomp-lite and the test programs with $flags"
if [ $# -eq 0 ]; then
    run_make -s -j2 all > build.log 2>&1 && run_make -s -j2 check TESTS= >> build.log 2>&1
else
    run_make -s -j2 all > build.log 2>&1 && run_make -s -j2 "$@" >> build.log 2>&1
fi || { echo "$name: the instrumented build failed:"; tail -n 30 build.log; exit 99; }
