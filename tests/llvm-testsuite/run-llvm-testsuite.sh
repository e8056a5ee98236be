#!/bin/bash
# run-llvm-testsuite.sh: the make check entry of LLVM's OpenMP runtime testsuite (see README.md
# here). Fetches the testsuite (cached), then runs run-testsuite.py on the built libomp-lite.
#
# usage: run-llvm-testsuite.sh --builddir DIR [run-testsuite.py options...] (--compiler clang:
#        the tests built by clang 14 and judged against LLVM's libomp; --ompt: the OMPT tests)
# Environment: OMPLITE_LLVM_TESTSUITE  an existing openmp/runtime/test directory (nothing fetched)
#              OMPLITE_CACHE_DIR       where the fetched testsuite is cached
#              OMPLITE_SUITE_TIMEOUT   seconds per program run (default 60)
set -u
here=$(cd "$(dirname "$0")" && pwd)
builddir=
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=$2; shift 2 ;;
        *) break ;;
    esac
done
[ -n "$builddir" ] || builddir=$(pwd)
builddir=$(cd "$builddir" && pwd)

python=$(command -v python3) || {
    echo "run-llvm-testsuite.sh: python3 is needed (apt-get install python3)"; exit 99; }
# The RUN lines check output with LLVM's FileCheck (and `not`); Debian ships them in llvm-14-tools.
filecheck=/usr/lib/llvm-14/bin/FileCheck
[ -x "$filecheck" ] || {
    echo "run-llvm-testsuite.sh: $filecheck is needed (apt-get install llvm-14-tools)"; exit 99; }
# --compiler clang builds the tests with clang 14 and links them to LLVM's libomp.
# --ompt judges the OMPT tests against LLVM's libomp, whatever builds them.
case " $* " in
    *" --ompt "*)
        [ -e /usr/lib/llvm-14/lib/libomp.so.5 ] || {
            echo "run-llvm-testsuite.sh: the OMPT tests are judged against LLVM's libomp" \
                 "(apt-get install libomp-14-dev)"; exit 77; } ;;
esac
case " $* " in
    *" --compiler clang "*)
        command -v clang-14 > /dev/null && [ -e /usr/lib/llvm-14/lib/libomp.so ] || {
            echo "run-llvm-testsuite.sh: clang-14 and LLVM's libomp are needed" \
                 "(apt-get install clang libomp-14-dev)"; exit 77; } ;;
esac
suite=$(bash "$here/fetch-testsuite.sh") || {
    echo "run-llvm-testsuite.sh: could not fetch LLVM's OpenMP testsuite (see above)"; exit 99; }
exec "$python" "$here/run-testsuite.py" --testsuite "$suite" --filecheck "$filecheck" \
    --lite "$builddir/.libs/libomp-lite.so.0" --workdir "$builddir/tests/llvm-testsuite/work" \
    --timeout "${OMPLITE_SUITE_TIMEOUT:-60}" "$@"
