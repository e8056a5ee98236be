#!/bin/bash
# clang_routes.sh: clang-built programs on libomp-lite (LLVM's runtime ABI, kmpc/). Builds
# tests/integration/clang_abi.c with clang -fopenmp, and the gcc-built library it calls in its
# `mixed` part (clang_mixed_lib.c), and clang_threadprivate.cpp with clang++ -fopenmp
# -fnoopenmp-use-tls, into BUILD/tests/integration/clang/, twice: linked as users
# link them (against LLVM's libomp.so.5 and the system libgomp.so.1), and linked against the
# build's drop-in directory (-L BUILD/omp-lite, with an rpath). Then runs every part through the
# routes users take:
#   stock    the system-linked binary on LLVM's libomp (the check of the test itself: a failure
#            here is a hard error)
#   preload  LD_PRELOAD=BUILD/.libs/libomp-lite.so.0 on the system-linked binary
#   ldpath   LD_LIBRARY_PATH=BUILD/omp-lite on the same binary (libomp.so.5 and libgomp.so.1
#            there name libomp-lite; no stock runtime may be mapped)
#   rpath    the binary linked against the drop-in directory
# The program proves it ran on libomp-lite (tests/integration/lite_check.h: every __kmpc_*,
# kmp_* and omp_* import binds there).
#
# usage: clang_routes.sh [--builddir DIR] [--srcdir DIR] [ROUTE...] (default: all four)
# Exit status: 0 pass, 1 fail, 77 skip (no clang-14, or no LLVM libomp to link against:
# apt-get install clang libomp-14-dev; .ci/install-deps does), 99 hard error.
# Environment: LITE_TEST_TIMEOUT (seconds per run, default 60), LITE_TEST_VERBOSE=1.
set -u

builddir= srcdir=
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=$2; shift 2 ;;
        --srcdir) srcdir=$2; shift 2 ;;
        -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
        *) break ;;
    esac
done
[ -n "$builddir" ] || builddir=$(pwd)
builddir=$(cd "$builddir" && pwd)
[ -n "$srcdir" ] || srcdir=$(cd "$(dirname "$0")/../.." && pwd)
routes=${*:-stock preload ldpath rpath}
timeout_s=${LITE_TEST_TIMEOUT:-60}
verbose=${LITE_TEST_VERBOSE:-0}

for v in $(compgen -e); do
    case $v in OMP_*|GOMP_*|KMP_*|LIBOMP_LITE_*|LITE_CHECK) unset "$v" ;; esac
done
unset LD_PRELOAD

clang=$(command -v clang-14 || command -v clang) || {
    echo "clang_routes: SKIP: no clang (apt-get install clang libomp-14-dev)"; exit 77; }
clangxx=$(command -v clang++-14 || command -v clang++) || {
    echo "clang_routes: SKIP: no clang++ (apt-get install clang libomp-14-dev)"; exit 77; }
src=$srcdir/tests/integration
out=$builddir/tests/integration/clang
mkdir -p "$out/system" "$out/dropin" || exit 99
lib=$builddir/.libs/libomp-lite.so.0
dropin=$builddir/omp-lite

# The library the program calls (gcc-built, libgomp's ABI) and the program, both ways.
build() {
    local dir=$1; shift
    gcc -fopenmp -O1 -shared -fPIC "$src/clang_mixed_lib.c" -o "$dir/libclang_mixed.so" "$@" &&
    "$clang" -fopenmp -O1 -I "$src" "$src/clang_abi.c" -o "$dir/clang_abi" \
        -L "$dir" -lclang_mixed -Wl,-rpath,"$dir" "$@" &&
    "$clangxx" -fopenmp -fnoopenmp-use-tls -O1 "$src/clang_threadprivate.cpp" \
        -o "$dir/clang_threadprivate" "$@"
}
if ! build "$out/system" 2> "$out/system/build.log"; then
    if grep -q "cannot find -lomp\|omp.h" "$out/system/build.log"; then
        echo "clang_routes: SKIP: clang cannot build OpenMP programs here (apt-get install libomp-14-dev)"
        exit 77
    fi
    echo "clang_routes: could not build the program:"; cat "$out/system/build.log"; exit 99
fi
if ! build "$out/dropin" -L "$dropin" -Wl,-rpath,"$dropin" 2> "$out/dropin/build.log"; then
    echo "clang_routes: could not build the program against $dropin:"
    cat "$out/dropin/build.log"; exit 99
fi

# Each run: [OMP_NUM_THREADS=N] PROGRAM PART. The threadprivate parts ask for their teams.
runs=
for threads in "" 1 3; do
    for part in parallel loops sync tasks teams mixed; do
        runs+=" ${threads:-default}:clang_abi:$part"
    done
done
runs+=" default:clang_threadprivate:copies default:clang_threadprivate:dtor"
failed=0
for route in $routes; do
    for run in $runs; do
        IFS=: read -r threads prog part <<< "$run"
        [ "$threads" = default ] && threads=
        bin=$out/system/$prog
        env=()
        case $route in
            stock) env=(LITE_CHECK=stock) ;;
            preload) env=("LD_PRELOAD=$lib" LITE_CHECK=on) ;;
            ldpath) env=("LD_LIBRARY_PATH=$dropin" LITE_CHECK=only) ;;
            rpath) bin=$out/dropin/$prog; env=(LITE_CHECK=only) ;;
            *) echo "clang_routes: unknown route $route"; exit 99 ;;
        esac
        [ -n "$threads" ] && env+=("OMP_NUM_THREADS=$threads")
        desc="$route: ${threads:+OMP_NUM_THREADS=$threads }$prog $part"
        timeout -k 5 "$timeout_s" env "${env[@]}" "$bin" "$part" > "$out/run.log" 2>&1
        rc=$?
        if [ $rc -eq 0 ]; then
            echo "  ok    $desc"
            [ "$verbose" = 1 ] && sed 's/^/      | /' "$out/run.log"
        else
            echo "  FAIL  $desc: exit status $rc"
            sed 's/^/      | /' "$out/run.log"
            [ "$route" = stock ] && { echo "clang_routes: fails on LLVM's libomp"; exit 99; }
            failed=$((failed + 1))
        fi
    done
done
# The profile (OMPLITE_PROFILE) of clang-built constructs names the program's own sites: every
# kind the parts use has rows, and no row is named inside libomp-lite (kmpc/ passes its caller's
# address on). Once, on the first libomp-lite route asked for.
for route in $routes; do
    case $route in stock) continue ;; preload) env=("LD_PRELOAD=$lib") ;;
        ldpath) env=("LD_LIBRARY_PATH=$dropin") ;; rpath) continue ;; esac
    table=$out/profile.txt
    rm -f "$table"
    desc="$route: OMPLITE_PROFILE clang_abi sync tasks"
    if ! timeout -k 5 "$timeout_s" env "${env[@]}" LITE_CHECK=on OMPLITE_PROFILE="$table" \
            "$out/system/clang_abi" sync tasks > "$out/run.log" 2>&1; then
        echo "  FAIL  $desc: the program failed"; sed 's/^/      | /' "$out/run.log"
        failed=$((failed + 1))
    elif ! awk 'NR > 2 && !/^\(/ { sub(/ \[[^]]*\]$/, "") }  # drop the note after a site
              NR > 2 && NF > 3 && !/^\(/ { kinds[$(NF - 2)] = 1; if ($0 ~ /libomp-lite|libomp\.so/) bad = bad "\n" $0 }
              END { split("parallel barrier single critical task taskwait taskgroup", want, " ")
                    for (i in want) if (!(want[i] in kinds)) missing = missing " " want[i]
                    if (missing != "") print "no rows of kind" missing
                    if (bad != "") print "rows named inside the runtime:" bad
                    exit (missing != "" || bad != "") }' "$table" > "$out/check.log"; then
        echo "  FAIL  $desc:"; sed 's/^/      | /' "$out/check.log"
        failed=$((failed + 1))
    else
        echo "  ok    $desc"
    fi
    break
done
[ $failed -eq 0 ] || { echo "clang_routes: $failed runs failed"; exit 1; }
echo "clang_routes: all runs passed"
