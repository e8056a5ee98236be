#!/bin/bash
# numpy_openblas.sh: numpy on OpenBLAS's OpenMP build (Debian's libopenblas0-openmp, selected as
# libblas.so.3 / liblapack.so.3 by .ci/install-deps), an unmodified application that calls the
# OpenMP runtime from a library it loads, run on libomp-lite through two routes:
#   preload  LD_PRELOAD=BUILD/.libs/libomp-lite.so.0 (the stock libgomp is loaded too)
#   ldpath   LD_LIBRARY_PATH=BUILD/omp-lite (libomp-lite is OpenBLAS's libgomp.so.1)
# at OMP_NUM_THREADS=2 and 4. Per route and thread count, two runs:
#   1. numpy_openblas.py: matrix products (double, single, complex, matrix-vector) of integer
#      matrices equal the exact int64 products; a LAPACK solve; several threads ran; threadpoolctl
#      sees OpenBLAS's openmp layer and libomp-lite (see the .py file);
#   2. the proof of where OpenBLAS's OpenMP calls go: with LD_BIND_NOW=1 LD_DEBUG=bindings, every
#      omp_*/GOMP_* symbol that the OpenBLAS objects import (nm -D --undefined-only) is bound to
#      libomp-lite, and no object other than an OpenMP runtime binds one anywhere else; and
#      OMP_DISPLAY_ENV=true prints a block with LIBOMP_LITE_VERSION and the thread count.
# First the same product check runs on stock libgomp (no preload): if that fails, the test or the
# machine is broken, not libomp-lite (exit 99, a hard error).
#
# usage: numpy_openblas.sh [--builddir DIR] [--srcdir DIR] [ROUTE...]   (default: preload ldpath)
# Exit status: 0 pass, 1 fail, 77 skip (numpy or OpenBLAS's OpenMP build is not installed),
# 99 hard error. Environment: NUMPY_PYTHON (the python that has numpy; default: python3 on PATH,
# else /usr/bin/python3), LITE_TEST_TIMEOUT (seconds per run, default 120),
# LITE_TEST_VERBOSE=1 (show the output of passing runs too). OPENBLAS_* variables are passed on.
set -u

builddir= srcdir=
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=$2; shift 2 ;;
        --srcdir) srcdir=$2; shift 2 ;;
        -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
        *) break ;;
    esac
done
[ -n "$builddir" ] || builddir=$(pwd)
builddir=$(cd "$builddir" && pwd)
[ -n "$srcdir" ] || srcdir=$(cd "$(dirname "$0")/../.." && pwd)
routes=${*:-preload ldpath}
timeout_s=${LITE_TEST_TIMEOUT:-120}
verbose=${LITE_TEST_VERBOSE:-0}
lib=$builddir/.libs/libomp-lite.so.0
pyscript=$srcdir/tests/integration/numpy_openblas.py

for v in $(compgen -e); do
    case $v in OMP_*|GOMP_*|KMP_*|LIBOMP_LITE_*|OMPLITE_*|LITE_CHECK|LD_DEBUG*|LD_BIND_NOW) unset "$v" ;; esac
done
unset LD_PRELOAD

# ---- what is needed: numpy, OpenBLAS's OpenMP build, and libomp-lite ----
python=
for p in ${NUMPY_PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$p" > /dev/null 2>&1 && "$p" -c 'import numpy' > /dev/null 2>&1; then
        python=$p; break
    fi
done
if [ -z "$python" ]; then
    echo "SKIP: no python3 with numpy (apt-get install python3-numpy; .ci/install-deps does)"
    exit 77
fi
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
obdir=/usr/lib/$multiarch/openblas-openmp
if [ ! -e "$obdir/libopenblas.so.0" ]; then
    echo "SKIP: OpenBLAS's OpenMP build is not installed ($obdir; apt-get install" \
        "libopenblas0-openmp; .ci/install-deps does)"
    exit 77
fi
if [ ! -e "$lib" ] || [ ! -e "$builddir/omp-lite/libgomp.so.1" ]; then
    echo "ERROR: $lib or $builddir/omp-lite/libgomp.so.1 is missing (not built?)"
    exit 99
fi
lib_real=$(readlink -f "$lib")
stock_gomp=$(readlink -f "$(gcc -print-file-name=libgomp.so.1)")
echo "python: $python (numpy $("$python" -c 'import numpy; print(numpy.__version__)'))"
echo "libomp-lite: $lib_real; stock libgomp: $stock_gomp"
[ -n "${OPENBLAS_CORETYPE:-}" ] && echo "OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE (passed on)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lite-numpy.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
OUT=$tmp/out ERR=$tmp/err
failed=0 runs=0

indent() { sed 's/^/      | /' "$1"; }
rc_words() {
    case $1 in
        124|137) echo "timed out after ${timeout_s} s (deadlock?)" ;;
        *) if [ "$1" -gt 128 ]; then echo "killed by SIG$(kill -l $(($1 - 128)) 2>/dev/null)"
           else echo "exit status $1"; fi ;;
    esac
}
pass() {
    echo "  ok    $DESC"
    if [ "$verbose" = 1 ]; then indent "$OUT"; indent "$ERR"; fi
}
fail() {
    echo "  FAIL  $DESC: $*"
    indent "$OUT" | tail -n 60
    indent "$ERR" | tail -n 30
    failed=$((failed + 1))
}

# run ROUTE [VAR=VALUE...] -- ARGS...: python ARGS on ROUTE with the variables; sets RC, DESC
run() {
    local route=$1; shift
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    local route_env=()
    case $route in
        preload) route_env=("LD_PRELOAD=$lib") ;;
        ldpath) route_env=("LD_LIBRARY_PATH=$builddir/omp-lite${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}") ;;
        stock) ;;
    esac
    DESC="[$route] ${envs[*]}"
    runs=$((runs + 1))
    # (in a subshell whose own stderr is dropped: bash's "Aborted" notice is not the program's)
    ( timeout -k 5 "$timeout_s" env "${route_env[@]}" "${envs[@]}" "$python" "$@" \
        > "$OUT" 2> "$ERR" < /dev/null; exit $? ) 2> /dev/null
    RC=$?
}

# The OpenMP symbols an object imports, without versions.
omp_imports() { nm -D --undefined-only "$1" 2>/dev/null | awk '{ print $2 }' |
    sed -n 's/@.*//; /^\(omp_\|GOMP_\)/p' | sort -u; }

# check_bindings FILE...: the LD_DEBUG=bindings output of one run (LD_BIND_NOW=1). Prints what is
# wrong, nothing when all is right.
check_bindings() {
    local lines problem=0 file to sym f t obj want got
    lines=$(grep -h "binding file .* to .*: normal symbol \`\(omp_\|GOMP_\)" "$@" |
        sed -n "s/.*binding file \(.*\) \[[0-9]*\] to \(.*\) \[[0-9]*\]: normal symbol \`\([^']*\)'.*/\1 \2 \3/p" |
        sort -u)
    if [ -z "$lines" ]; then echo "no omp_*/GOMP_* bindings in the LD_DEBUG output"; return; fi
    declare -A real=() bound=()
    local objs=""
    while read -r file to sym; do
        [ -n "${real[$file]:-}" ] || real[$file]=$(readlink -f "$file")
        [ -n "${real[$to]:-}" ] || real[$to]=$(readlink -f "$to")
        f=${real[$file]} t=${real[$to]}
        # an OpenMP runtime binding its own symbols (or the stock libgomp's, under LD_PRELOAD)
        if [ "$f" = "$lib_real" ] || [ "$f" = "$stock_gomp" ]; then continue; fi
        if [ "$t" != "$lib_real" ]; then
            echo "$file binds $sym to $to ($t), not to libomp-lite"; problem=1
        fi
        case $f in
            "$obdir"/*) bound[$f:$sym]=1
                        case " $objs " in *" $f "*) ;; *) objs="$objs $f" ;; esac ;;
        esac
    done <<< "$lines"
    case "$objs" in
        *"/libopenblas"*) ;;
        *) echo "no omp_*/GOMP_* binding from OpenBLAS ($obdir/libopenblas*) at all"; return ;;
    esac
    for obj in $objs; do
        got=0 want=0
        for sym in $(omp_imports "$obj"); do
            want=$((want + 1))
            if [ -n "${bound[$obj:$sym]:-}" ]; then got=$((got + 1))
            else echo "$obj imports $sym but no binding of it to libomp-lite was logged"; fi
        done
        echo "# $obj: $got of $want imported omp_*/GOMP_* symbols bound to libomp-lite" >&3
    done
}

# The OMP_DISPLAY_ENV blocks on stderr, each as one line with its lines joined by '|'.
display_blocks() {
    awk '/^OPENMP DISPLAY ENVIRONMENT BEGIN$/ { on = 1; b = "" }
         on { b = b $0 "|" }
         /^OPENMP DISPLAY ENVIRONMENT END$/ && on { print b; on = 0 }' "$1"
}

# A short numpy run for the binding proof: one product that OpenBLAS splits over threads.
probe='import numpy as np
a = np.arange(256 * 256, dtype=np.float64).reshape(256, 256) % 7
assert np.array_equal(a @ a, (a.astype(np.int64) @ a.astype(np.int64)).astype(np.float64))
print("probe ok")'

# ---- the test itself, on stock libgomp ----
echo "numpy_openblas [stock]:"
run stock OMP_NUM_THREADS=2 EXPECT_OMP_RUNTIME="$stock_gomp" -- "$pyscript"
if [ "$RC" -ne 0 ] || ! grep -q '^numpy_openblas: ok$' "$OUT"; then
    fail "$(rc_words "$RC"): the check fails on stock libgomp, so the test or the machine is" \
        "broken (is OpenBLAS's OpenMP build selected? update-alternatives --display" \
        "libblas.so.3-$multiarch)"
    exit 99
fi
pass

for route in $routes; do
    case $route in preload|ldpath) ;; *) echo "numpy_openblas.sh: unknown route '$route'"; exit 99 ;; esac
    echo "numpy_openblas [$route]:"
    # On the drop-in route no other libgomp may be mapped at all.
    only=ONLY_OMP_RUNTIME=
    [ "$route" = ldpath ] && only=ONLY_OMP_RUNTIME=1
    for n in 2 4; do
        run "$route" OMP_NUM_THREADS=$n EXPECT_OMP_RUNTIME="$lib_real" "$only" -- "$pyscript"
        if [ "$RC" -ne 0 ]; then fail "$(rc_words "$RC")"
        elif ! grep -q '^numpy_openblas: ok$' "$OUT"; then fail "no 'numpy_openblas: ok' line"
        else pass; fi

        rm -f "$tmp"/ld.*
        run "$route" OMP_NUM_THREADS=$n OMP_DISPLAY_ENV=true LD_BIND_NOW=1 LD_DEBUG=bindings \
            LD_DEBUG_OUTPUT="$tmp/ld" -- -c "$probe"
        DESC="$DESC (the binding proof)"
        problems=()
        [ "$RC" -eq 0 ] || problems+=("$(rc_words "$RC")")
        bind_problems=$(check_bindings "$tmp"/ld.* 3> "$tmp/summary")
        [ -z "$bind_problems" ] || problems+=("$bind_problems")
        lite_block=$(display_blocks "$ERR" | grep "|  LIBOMP_LITE_VERSION = '" | head -n 1)
        if [ -z "$lite_block" ]; then
            problems+=("OMP_DISPLAY_ENV=true printed no block with LIBOMP_LITE_VERSION")
        elif ! grep -q "|  OMP_NUM_THREADS = '$n'|" <<< "$lite_block"; then
            problems+=("libomp-lite's OMP_DISPLAY_ENV block has no OMP_NUM_THREADS = '$n' line")
        fi
        if [ ${#problems[@]} -eq 0 ]; then
            pass
        else
            joined=$(printf '%s; ' "${problems[@]}")
            fail "${joined%; }"
        fi
        # what the binding proof found, pass or fail
        sed 's/^# /        bindings: /' "$tmp/summary"
        [ -n "$bind_problems" ] || echo "        bindings: no omp_*/GOMP_* symbol bound elsewhere"
        [ -z "$lite_block" ] || echo "        OMP_DISPLAY_ENV: libomp-lite's block is there"
    done
done

if [ "$failed" -eq 0 ]; then
    echo "PASS: numpy_openblas ($runs runs)"
    exit 0
fi
echo "FAIL: numpy_openblas ($failed of $runs runs failed)"
exit 1
