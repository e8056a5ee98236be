#!/bin/bash
# mpi_hybrid.sh: hybrid MPI + OpenMP (tests/integration/mpi_hybrid.c, built here with mpicc) under
# Open MPI's mpirun, 2 ranks, each running OpenMP regions inside the CPU set mpirun bound it to.
# Every case runs through the routes:
#   stock    the stock libgomp (the check of the test itself: a failure here is a hard error)
#   preload  libomp-lite by LD_PRELOAD
#   ldpath   libomp-lite as libgomp.so.1 through LD_LIBRARY_PATH=BUILD/omp-lite
# Each rank starts as `sh -c WRAPPER mpi_hybrid ...`: the wrapper records the rank's CPU set as
# mpirun left it (RANK_CPUS, from /proc/self/status) and only then sets LD_PRELOAD and execs the
# program, because an OpenMP runtime may bind the initial thread as it loads (libgomp does under
# OMP_PROC_BIND), before main could read the set. One more case passes LD_PRELOAD straight to the
# program with mpirun -x, as users do (the program then reads its mask at the start of main).
#
# The cases: --bind-to core (one core per rank here: the ranks' CPUs must be disjoint, threads
# included), --bind-to socket and --bind-to none; unbound OpenMP, and OMP_PROC_BIND with OMP_PLACES
# (cores, threads, sockets, an explicit list, the default) or GOMP_CPU_AFFINITY. Checked by the
# program: every thread's mask lies within its rank's set; the reductions are right; with
# binding, every place lies within the rank's set and each thread runs exactly on its place.
#
# usage: mpi_hybrid.sh [--builddir DIR] [--srcdir DIR] [ROUTE...]  (default: stock preload ldpath)
# Exit status: 0 pass, 1 fail, 77 skip (no mpirun or mpicc: apt-get install openmpi-bin
# libopenmpi-dev; .ci/install-deps does), 99 hard error (the test fails on stock libgomp, or
# mpirun cannot start 2 processes here). Environment: LITE_TEST_TIMEOUT (seconds per mpirun,
# default 120), LITE_TEST_VERBOSE=1 (show the output of passing runs), MPIRUN_FLAGS (replaces the
# Open MPI options found by the probe below).
set -u

builddir= srcdir=
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=$2; shift 2 ;;
        --srcdir) srcdir=$2; shift 2 ;;
        -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
        *) break ;;
    esac
done
[ -n "$builddir" ] || builddir=$(pwd)
builddir=$(cd "$builddir" && pwd)
[ -n "$srcdir" ] || srcdir=$(cd "$(dirname "$0")/../.." && pwd)
routes=${*:-stock preload ldpath}
timeout_s=${LITE_TEST_TIMEOUT:-120}
verbose=${LITE_TEST_VERBOSE:-0}
lib=$builddir/.libs/libomp-lite.so.0

for v in $(compgen -e); do
    case $v in OMP_*|GOMP_*|KMP_*|LIBOMP_LITE_*|OMPLITE_*|LITE_CHECK|RANK_*) unset "$v" ;; esac
done
unset LD_PRELOAD

if ! command -v mpirun > /dev/null 2>&1 || ! command -v mpicc > /dev/null 2>&1; then
    echo "SKIP: mpirun or mpicc not found (apt-get install openmpi-bin libopenmpi-dev;" \
        ".ci/install-deps does)"
    exit 77
fi
if [ ! -e "$lib" ] || [ ! -e "$builddir/omp-lite/libgomp.so.1" ]; then
    echo "ERROR: $lib or $builddir/omp-lite/libgomp.so.1 is missing (not built?)"
    exit 99
fi
# CI runs as root: Open MPI refuses that without both of these (and --allow-run-as-root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lite-mpi.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# ---- build the program (a user's build: mpicc -fopenmp against the system libgomp) ----
prog=$builddir/tests/integration/mpi/mpi_hybrid
src=$srcdir/tests/integration/mpi_hybrid.c
if [ ! -x "$prog" ] || [ "$src" -nt "$prog" ]; then
    mkdir -p "$builddir/tests/integration/mpi"
    if ! mpicc -D_GNU_SOURCE -O2 -Wall -Wextra -fopenmp -o "$prog" "$src" > "$tmp/cc" 2>&1; then
        echo "ERROR: mpicc -fopenmp failed:"; cat "$tmp/cc"; exit 99
    fi
fi
echo "mpirun: $(command -v mpirun) ($(mpirun --version 2>/dev/null | head -n 1))"

# ---- which Open MPI options work in this machine (containers lack ssh, CMA, networks) ----
base=(mpirun --allow-run-as-root --oversubscribe)
if [ -n "${MPIRUN_FLAGS+set}" ]; then
    read -r -a mpi_flags <<< "$MPIRUN_FLAGS"
else
    mpi_flags=()
    for flags in \
        "--mca plm isolated --mca btl self,vader --mca btl_vader_single_copy_mechanism none" \
        "--mca btl self,vader --mca btl_vader_single_copy_mechanism none" \
        "--mca btl self,vader" ""; do
        read -r -a try <<< "$flags"
        if timeout -k 5 60 "${base[@]}" "${try[@]}" -np 2 true > "$tmp/probe" 2>&1; then
            mpi_flags=("${try[@]}"); found=1; break
        fi
    done
    if [ -z "${found:-}" ]; then
        echo "ERROR: mpirun cannot start 2 processes here:"; cat "$tmp/probe"; exit 99
    fi
fi
echo "mpirun options: ${base[*]} ${mpi_flags[*]}"

OUT=$tmp/out ERR=$tmp/err
failed=0 stock_failed=0 runs=0
indent() { sed 's/^/      | /' "$1"; }
rc_words() {
    case $1 in
        124|137) echo "timed out after ${timeout_s} s (deadlock?)" ;;
        *) if [ "$1" -gt 128 ]; then echo "killed by SIG$(kill -l $(($1 - 128)) 2>/dev/null)"
           else echo "exit status $1"; fi ;;
    esac
}

# The rank wrapper: the rank's CPU set first, then the runtime.
wrapper='RANK_CPUS=$(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)
export RANK_CPUS
if [ -n "${RANK_PRELOAD:-}" ]; then LD_PRELOAD=$RANK_PRELOAD; export LD_PRELOAD; fi
exec "$0" "$@"'

# case_mpi ROUTE direct|wrapped "MPIRUN OPTIONS" [ARG...]: one mpirun of 2 ranks; the options are
# mpirun's (--bind-to ..., -x VAR=VALUE ...), the arguments the program's.
case_mpi() {
    local route=$1 how=$2 opts=$3
    shift 3
    local -a o route_x=()
    read -r -a o <<< "$opts"
    case $route in
        stock) ;;
        preload) if [ "$how" = direct ]; then route_x=(-x "LD_PRELOAD=$lib")
                 else route_x=(-x "RANK_PRELOAD=$lib"); fi ;;
        ldpath) route_x=(-x "LD_LIBRARY_PATH=$builddir/omp-lite${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}") ;;
    esac
    local desc="[$route] $opts${*:+ -- $*}"
    [ "$how" = direct ] && desc="$desc (LD_PRELOAD by mpirun -x, no wrapper)"
    runs=$((runs + 1))
    local -a cmd
    if [ "$how" = direct ]; then cmd=("$prog" "$@")
    else cmd=(/bin/sh -c "$wrapper" "$prog" "$@"); fi
    ( timeout -k 5 "$timeout_s" "${base[@]}" "${mpi_flags[@]}" -np 2 "${o[@]}" "${route_x[@]}" \
        "${cmd[@]}" > "$OUT" 2> "$ERR" < /dev/null; exit $? ) 2> /dev/null
    local rc=$?
    if [ "$rc" -eq 0 ] && grep -q '^mpi_hybrid: ok$' "$OUT"; then
        echo "  ok    $desc"
        if [ "$verbose" = 1 ]; then indent "$OUT"; indent "$ERR"; fi
    else
        echo "  FAIL  $desc: $(rc_words "$rc")"
        indent "$OUT" | head -n 40
        grep -v -e '^--------' -e '^\[.*\] \*\*\*' -e '^\[.*\] \[ *[0-9]*\]' "$ERR" | head -n 30 |
            sed 's/^/      | /'
        failed=$((failed + 1))
        [ "$route" = stock ] && stock_failed=$((stock_failed + 1))
    fi
}

# This machine's CPUs (this process's mask), as a list and as one place per CPU.
cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
cpu_places=$(awk -v l="$cpus" 'BEGIN { n = split(l, r, ","); s = ""
    for (i = 1; i <= n; i++) { m = split(r[i], e, "-"); hi = m > 1 ? e[2] : e[1]
        for (c = e[1]; c <= hi; c++) s = s (s == "" ? "" : ",") "{" c "}" }
    print s }')
# --bind-to core gives the 2 ranks disjoint cores only where there are 2 CPUs or more.
disjoint=--disjoint
if [ "$(nproc)" -lt 2 ]; then
    disjoint=
    echo "one CPU: the ranks share it, the --disjoint checks are left out"
fi

for route in $routes; do
    case $route in stock|preload|ldpath) ;; *) echo "mpi_hybrid.sh: unknown route '$route'"; exit 99 ;; esac
    echo "mpi_hybrid [$route]:"
    # Unbound OpenMP inside bound (and unbound) ranks: no places routine is called.
    case_mpi "$route" wrapped "--bind-to core -x OMP_NUM_THREADS=2" $disjoint
    case_mpi "$route" wrapped "--bind-to socket -x OMP_NUM_THREADS=2"
    case_mpi "$route" wrapped "--bind-to none -x OMP_NUM_THREADS=3"
    # Binding inside the rank's set (needs places and thread binding in the runtime).
    case_mpi "$route" wrapped "--bind-to core -x OMP_NUM_THREADS=2 -x OMP_PROC_BIND=close -x OMP_PLACES=cores" --places $disjoint
    case_mpi "$route" wrapped "--bind-to core -x OMP_NUM_THREADS=2 -x OMP_PROC_BIND=true" --places $disjoint
    case_mpi "$route" wrapped "--bind-to core -x OMP_NUM_THREADS=2 -x OMP_PROC_BIND=spread -x OMP_PLACES=$cpu_places" --places $disjoint
    case_mpi "$route" wrapped "--bind-to socket -x OMP_NUM_THREADS=2 -x OMP_PROC_BIND=close -x OMP_PLACES=cores" --places
    case_mpi "$route" wrapped "--bind-to socket -x OMP_NUM_THREADS=4 -x OMP_PROC_BIND=spread -x OMP_PLACES=sockets" --places
    case_mpi "$route" wrapped "--bind-to none -x OMP_NUM_THREADS=2 -x OMP_PROC_BIND=spread -x OMP_PLACES=threads" --places
    case_mpi "$route" wrapped "--bind-to none -x OMP_NUM_THREADS=2 -x GOMP_CPU_AFFINITY=$cpus" --places
    # As users write it: mpirun -x LD_PRELOAD=... straight on the program.
    if [ "$route" = preload ]; then
        case_mpi "$route" direct "--bind-to core -x OMP_NUM_THREADS=2 -x OMP_PROC_BIND=close -x OMP_PLACES=cores" --places $disjoint
    fi
done

if [ "$stock_failed" -gt 0 ]; then
    echo "ERROR: mpi_hybrid: $stock_failed case(s) fail on stock libgomp: the test or the machine is broken"
    exit 99
fi
if [ "$failed" -eq 0 ]; then
    echo "PASS: mpi_hybrid ($runs runs)"
    exit 0
fi
echo "FAIL: mpi_hybrid ($failed of $runs runs failed)"
exit 1
