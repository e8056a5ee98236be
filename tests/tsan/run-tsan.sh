#!/bin/bash
# run-tsan.sh: libomp-lite under ThreadSanitizer. Builds libomp-lite and the test programs again
# with gcc -fsanitize=thread, in a build of their own (BUILD/tests/tsan/build), and runs the
# integration and worksharing tests on the ldpath route (the instrumented libomp-lite loaded as
# libgomp.so.1), with every ThreadSanitizer report fatal to the program that hits it.
#
# Why: the runtime synchronises with C11 atomics and futexes, which ThreadSanitizer follows, so a
# report names a real data race in the runtime, or one the runtime lets a correct program have
# (a missing happens-before between a task and its taskwait, say). The instrumented runs also
# shake the schedule: the first run found an ordered loop that deadlocked (a lost wake-up) at 16
# threads, which plain runs on 2 CPUs had never hit.
#
# Left out: dlclose (it counts the process's threads, and ThreadSanitizer starts one of its own)
# and fork (ThreadSanitizer cannot start threads in the child of a multi-threaded process), and
# memcheck (valgrind cannot run an instrumented program).
# suppressions.txt lists the reports that are not the runtime's, and why.
#
# usage: run-tsan.sh --builddir DIR [--srcdir DIR]
# Exit status: 0 passed, 1 failed, 77 skipped (this compiler or kernel cannot run ThreadSanitizer
# programs), 99 could not build.
set -u
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
builddir=
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=$2; shift 2 ;;
        --srcdir) srcdir=$(cd "$2" && pwd); shift 2 ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "run-tsan.sh: unknown argument '$1'" >&2; exit 99 ;;
    esac
done
[ -n "$builddir" ] || builddir=$(pwd)
builddir=$(cd "$builddir" && pwd)
tsanbuild=$builddir/tests/tsan/build
flags="-O1 -g -fsanitize=thread"

# Can this machine run a ThreadSanitizer program at all? (Some kernels' address-space layouts
# make the runtime refuse to start.)
probe=$(mktemp -d "${TMPDIR:-/tmp}/tsan-probe.XXXXXX") || exit 99
trap 'rm -rf "$probe"' EXIT
echo 'int main(void) { return 0; }' > "$probe/p.c"
if ! gcc $flags "$probe/p.c" -o "$probe/p" > "$probe/log" 2>&1 || ! "$probe/p" >> "$probe/log" 2>&1
then
    echo "SKIP: gcc -fsanitize=thread programs do not build or run here:"
    sed 's/^/  | /' "$probe/log"
    exit 77
fi

# The instrumented build is configured from a copy of the sources: configure refuses a source
# tree that was configured in place (as .ci/run's is). Automake's distdir makes the copy and
# keeps the files' times, so the build, configured once, recompiles only what changed. The outer
# make's job server is not ours to use (this script is one test among make check's).
run_make() { env -u MAKEFLAGS -u MFLAGS make "$@"; }
tsansrc=$builddir/tests/tsan/src
mkdir -p "$tsanbuild" || exit 99
run_make -s -C "$builddir" distdir distdir="$tsansrc" > "$tsanbuild/distdir.log" 2>&1 || {
    echo "run-tsan.sh: could not copy the sources:"; tail -n 30 "$tsanbuild/distdir.log"; exit 99; }
cd "$tsanbuild" || exit 99
if [ ! -f Makefile ] || [ "$tsansrc/configure" -nt config.status ]; then
    echo "configuring an instrumented build in $tsanbuild"
    "$tsansrc/configure" -q CFLAGS="$flags" CXXFLAGS="$flags" FCFLAGS="$flags" \
        LDFLAGS="-fsanitize=thread" > configure.log 2>&1 || {
        echo "run-tsan.sh: configure failed (see $tsanbuild/configure.log)"; exit 99; }
fi
echo "building libomp-lite and the test programs with $flags"
run_make -s -j2 all > build.log 2>&1 && run_make -s -j2 check TESTS= >> build.log 2>&1 || {
    echo "run-tsan.sh: the instrumented build failed:"; tail -n 30 build.log; exit 99; }

export TSAN_OPTIONS="halt_on_error=0 exitcode=66 suppressions=$here/suppressions.txt"
# Instrumented programs run several times slower; 16 and 64 threads on 2 CPUs more so.
export LITE_TEST_TIMEOUT=${LITE_TEST_TIMEOUT:-300} WS_TEST_TIMEOUT=${WS_TEST_TIMEOUT:-300}
# Tells run-routes.sh to leave out the cases too heavy for instrumented programs.
export LITE_TEST_TSAN=1

status=0
tests=$(bash "$srcdir/tests/integration/run-routes.sh" --list | tr ' ' '\n' | grep -vx 'dlclose\|fork\|memcheck')
bash "$srcdir/tests/integration/run-routes.sh" --builddir "$tsanbuild" ldpath $tests || status=1
bash "$srcdir/tests/worksharing/run-ws.sh" --builddir "$tsanbuild" --srcdir "$srcdir" ldpath ||
    status=1
if [ $status -eq 0 ]; then
    echo "PASS: no ThreadSanitizer report, every test passed"
else
    echo "FAIL: see the runs marked FAIL above (a ThreadSanitizer report exits with status 66)"
fi
exit $status
