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
name=tsan flags="-O1 -g -fsanitize=thread" ldflags="-fsanitize=thread"
. "$srcdir/tests/sanitizer-build.sh"

export TSAN_OPTIONS="halt_on_error=0 exitcode=66 suppressions=$here/suppressions.txt"
# Instrumented programs run several times slower; 16 and 64 threads on 2 CPUs more so.
export LITE_TEST_TIMEOUT=${LITE_TEST_TIMEOUT:-300} WS_TEST_TIMEOUT=${WS_TEST_TIMEOUT:-300}
# Tells run-routes.sh to leave out the cases too heavy for instrumented programs.
export LITE_TEST_TSAN=1

status=0
# Left out as well: seccomp_affinity (its filter refuses sched_getaffinity, which ThreadSanitizer's
# own start of each thread calls through pthread_getattr_np: it stops with a CHECK failure), and
# exit_user_threads (exit() while other roots run regions: the exit handlers race with them by
# the test's design).
tests=$(bash "$srcdir/tests/integration/run-routes.sh" --list | tr ' ' '\n' |
    grep -vx 'dlclose\|fork\|memcheck\|seccomp_affinity\|exit_user_threads')
bash "$srcdir/tests/integration/run-routes.sh" --builddir "$sanbuild" ldpath $tests || status=1
bash "$srcdir/tests/worksharing/run-ws.sh" --builddir "$sanbuild" --srcdir "$srcdir" ldpath ||
    status=1
if [ $status -eq 0 ]; then
    echo "PASS: no ThreadSanitizer report, every test passed"
else
    echo "FAIL: see the runs marked FAIL above (a ThreadSanitizer report exits with status 66)"
fi
exit $status
