#!/bin/bash
# run-gcc-testsuite.sh: the make check entry of GCC's libgomp testsuite (see README.md here).
# Fetches the testsuite (cached), then runs run-testsuite.py on the built libomp-lite.
#
# usage: run-gcc-testsuite.sh --builddir DIR [run-testsuite.py options...]
# Environment: OMPLITE_GCC_TESTSUITE   an existing libgomp/testsuite directory (nothing fetched)
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
    echo "run-gcc-testsuite.sh: python3 is needed (apt-get install python3)"; exit 99; }
suite=$(bash "$here/fetch-testsuite.sh") || {
    echo "run-gcc-testsuite.sh: could not fetch GCC's libgomp testsuite (see above)"; exit 99; }
exec "$python" "$here/run-testsuite.py" --testsuite "$suite" \
    --lite "$builddir/.libs/libomp-lite.so.0" --workdir "$builddir/tests/gcc-testsuite/work" \
    --timeout "${OMPLITE_SUITE_TIMEOUT:-60}" "$@"
