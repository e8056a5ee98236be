# ompt_env.sh: the start the OMPT integration scripts share (ompt_startup.sh, ompt_dispatch.sh,
# ompt_teams_target.sh), sourced with name (the script's name, for its messages) and outdir
# (its build folder's name under BUILD/tests/integration) set. It reads the script's options
# (--builddir DIR, --srcdir DIR, -h: the script's header comment), drops the caller's OpenMP
# environment, and sets builddir, srcdir, src (the test sources), out (the build folder, whose
# include/ holds only LLVM's omp-tools.h: gcc has none, and clang's own include directory also
# has a stddef.h and an omp.h gcc must not see), lib, dropin, timeout_s and verbose. Exits 77
# (skip) without LLVM's omp-tools.h (apt-get install libomp-14-dev).
set -u

builddir= srcdir=
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=$2; shift 2 ;;
        --srcdir) srcdir=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -u$/p' "$0" | sed '$d'; exit 0 ;;
        *) echo "$name: unknown argument $1"; exit 99 ;;
    esac
done
[ -n "$builddir" ] || builddir=$(pwd)
builddir=$(cd "$builddir" && pwd)
[ -n "$srcdir" ] || srcdir=$(cd "$(dirname "$0")/../.." && pwd)
timeout_s=${LITE_TEST_TIMEOUT:-60}
verbose=${LITE_TEST_VERBOSE:-0}

for v in $(compgen -e); do
    case $v in OMP_*|GOMP_*|KMP_*|LIBOMP_LITE_*|OMPLITE_*|LITE_CHECK|OMPT_TEST_*) unset "$v" ;; esac
done
unset LD_PRELOAD LD_LIBRARY_PATH

src=$srcdir/tests/integration
out=$builddir/tests/integration/$outdir
lib=$builddir/.libs/libomp-lite.so.0
dropin=$builddir/omp-lite
header=$(ls /usr/lib/llvm-14/lib/clang/*/include/omp-tools.h 2> /dev/null | tail -n 1)
[ -n "$header" ] || {
    echo "$name: SKIP: no omp-tools.h (apt-get install libomp-14-dev)"; exit 77; }
mkdir -p "$out/include" || exit 99
ln -sf "$header" "$out/include/omp-tools.h"
