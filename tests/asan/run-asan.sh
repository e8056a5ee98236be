#!/bin/bash
# run-asan.sh: libomp-lite under AddressSanitizer (with LeakSanitizer). Builds libomp-lite and the
# stress and hardening programs again with gcc -fsanitize=address, in a build of their own
# (BUILD/tests/asan/build), and runs them on the ldpath route (the instrumented libomp-lite loaded
# as libgomp.so.1), with every report fatal to the program that hits it.
#
# Why: the stress program (10^5 regions of random shape from three user threads, tasks, locks)
# and the hostile inputs of harden reach the runtime's allocation paths (pools growing and
# shutting down, task blocks, the worksharing ring) in orders no other test does; an
# out-of-bounds access or a use after free there may go unnoticed in a plain run, and
# ThreadSanitizer does not look for them. LeakSanitizer checks at exit that what the runtime
# allocated for pools, teams and tasks it freed or still holds.
#
# usage: run-asan.sh --builddir DIR [--srcdir DIR]
# Exit status: 0 passed, 1 failed, 77 skipped (this compiler or kernel cannot run AddressSanitizer
# programs), 99 could not build.
set -u
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
builddir=
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=$2; shift 2 ;;
        --srcdir) srcdir=$(cd "$2" && pwd); shift 2 ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) echo "run-asan.sh: unknown argument '$1'" >&2; exit 99 ;;
    esac
done
[ -n "$builddir" ] || builddir=$(pwd)
builddir=$(cd "$builddir" && pwd)

tests="stress harden"
name=asan flags="-O1 -g -fsanitize=address -fno-omit-frame-pointer" ldflags="-fsanitize=address"
. "$srcdir/tests/sanitizer-build.sh" omp-lite/libgomp.so.1 $(printf 'tests/integration/%s ' $tests)

export ASAN_OPTIONS="halt_on_error=1 exitcode=67 detect_leaks=1"
# Instrumented programs run about twice slower; 16 threads on 2 CPUs more so.
export LITE_TEST_TIMEOUT=${LITE_TEST_TIMEOUT:-300}

status=0
bash "$srcdir/tests/integration/run-routes.sh" --builddir "$sanbuild" ldpath $tests || status=1
if [ $status -eq 0 ]; then
    echo "PASS: no AddressSanitizer report, every test passed"
else
    echo "FAIL: see the runs marked FAIL above (a report exits with status 67)"
fi
exit $status
