#!/bin/bash
# run-archer.sh: data-race detection on libomp-lite with Archer, LLVM's OMPT tool for
# ThreadSanitizer (libarcher.so, package libomp-14-dev). Each program here is built with
# -fsanitize=thread -fopenmp by gcc and by clang-14 (where installed) into
# BUILD/tests/archer/build/, and run on libomp-lite (LD_LIBRARY_PATH=BUILD/omp-lite, whose
# libgomp.so.1 and libomp.so.5 name it) with OMP_TOOL_LIBRARIES naming libarcher.so, at 2 and
# 4 threads. Without Archer, ThreadSanitizer does not see OpenMP's synchronisation (the
# runtime's own code is not instrumented) and reports races that are not there; with it, a
# race-free program must give no report, and race.c, a real race, must give one.
# Each run also proves that libomp-lite ran it (OMP_DISPLAY_ENV's LIBOMP_LITE_VERSION line)
# and that Archer was attached (its ARCHER_OPTIONS=verbose=1 line).
#
# PENDING lists programs whose reports are accepted while a piece of the runtime that Archer
# needs is missing; none now. (Before the task callbacks, Archer crashed at a taskwait inside an
# explicit task, and skipped the tasks that threads waiting in a barrier ran.)
#
# usage: run-archer.sh [--builddir DIR] [--srcdir DIR] [--table]
#   --table  also runs every program on stock libgomp (gcc builds, no Archer: libgomp has no
#            OMPT) and on LLVM's libomp with Archer, and prints the report counts side by side
# Exit status: 0 pass, 1 fail, 77 skip (no libarcher.so: apt-get install libomp-14-dev),
# 99 hard error. Environment: LITE_TEST_TIMEOUT (seconds per run, default 120).
set -u

builddir= srcdir= table=0
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=$2; shift 2 ;;
        --srcdir) srcdir=$2; shift 2 ;;
        --table) table=1; shift ;;
        -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
        *) echo "run-archer: unknown argument $1"; exit 99 ;;
    esac
done
[ -n "$builddir" ] || builddir=$(pwd)
builddir=$(cd "$builddir" && pwd)
[ -n "$srcdir" ] || srcdir=$(cd "$(dirname "$0")/../.." && pwd)
timeout_s=${LITE_TEST_TIMEOUT:-120}

archer=/usr/lib/llvm-14/lib/libarcher.so
llvm_omp=/usr/lib/llvm-14/lib/libomp.so.5
[ -e "$archer" ] || {
    echo "run-archer: SKIP: $archer is missing (apt-get install libomp-14-dev)"; exit 77; }

for v in $(compgen -e); do
    case $v in OMP_*|GOMP_*|KMP_*|LIBOMP_LITE_*|OMPLITE_*|TSAN_OPTIONS|ARCHER_OPTIONS) unset "$v" ;; esac
done
unset LD_PRELOAD LD_LIBRARY_PATH

src=$srcdir/tests/archer
out=$builddir/tests/archer/build
dropin=$builddir/omp-lite
programs="reduction task_deps taskwait taskloop locks barrier ordered critical race"
# Race-free programs whose reports are accepted for now, each for a reason given above.
PENDING=""
mkdir -p "$out/llvm-as-libgomp" || exit 99
# For --table: gcc-built binaries on LLVM's libomp, which has libgomp's entry points and
# version nodes, under the name they need.
ln -sf "$llvm_omp" "$out/llvm-as-libgomp/libgomp.so.1"

compilers=gcc
command -v clang-14 > /dev/null && compilers="gcc clang"
for cc in $compilers; do
    prog_cc=$cc; [ "$cc" = clang ] && prog_cc=clang-14
    for p in $programs; do
        "$prog_cc" -fsanitize=thread -fopenmp -g -O1 "$src/$p.c" -o "$out/$p.$cc" \
            > "$out/build.log" 2>&1 || {
            if [ "$cc" = clang ]; then
                echo "  (clang-14 cannot build $p with -fsanitize=thread -fopenmp: clang left out)"
                compilers=gcc; break
            fi
            echo "run-archer: could not build $p with $cc:"; cat "$out/build.log"; exit 99; }
    done
done

# reports RUNTIME BINARY THREADS: runs it, sets $reports (ThreadSanitizer warnings), $rc, and
# $log (the output's file).
reports() {
    local runtime=$1 bin=$2 threads=$3 env=(TSAN_OPTIONS=ignore_noninstrumented_modules=1
                                          "OMP_NUM_THREADS=$threads")
    case $runtime in
        lite) env+=("LD_LIBRARY_PATH=$dropin" "OMP_TOOL_LIBRARIES=$archer"
                    ARCHER_OPTIONS=verbose=1 OMP_DISPLAY_ENV=true) ;;
        libgomp) ;;
        llvm) env+=("OMP_TOOL_LIBRARIES=$archer")
              case $bin in *.gcc) env+=("LD_LIBRARY_PATH=$out/llvm-as-libgomp") ;; esac ;;
    esac
    log=$out/run.log
    timeout -k 5 "$timeout_s" env "${env[@]}" "$bin" > "$log" 2>&1
    rc=$?
    reports=$(grep -c "WARNING: ThreadSanitizer" "$log")
}

failed=0
for cc in $compilers; do
    for p in $programs; do
        for threads in 2 4; do
            reports lite "$out/$p.$cc" "$threads"
            desc="$cc $p, $threads threads"
            why=
            grep -q LIBOMP_LITE_VERSION "$log" || why="libomp-lite did not run it"
            grep -q "Archer detected OpenMP application with TSan" "$log" ||
                why="${why:+$why; }Archer was not attached"
            case " $PENDING " in *" $p "*) pending=1 ;; *) pending=0 ;; esac
            if [ "$p" = race ]; then
                [ "$reports" -ge 1 ] || why="${why:+$why; }the race was not reported"
            elif [ "$rc" -ne 0 ] || [ "$reports" -ne 0 ]; then
                [ $pending = 1 ] && [ -z "$why" ] && {
                    echo "  known $desc: $reports reports, exit status $rc (PENDING)"
                    continue; }
                why="${why:+$why; }$reports reports, exit status $rc"
            elif [ $pending = 1 ]; then
                echo "  ok    $desc: no report (PENDING: take it out if it keeps passing)"
                continue
            fi
            if [ -z "$why" ]; then
                echo "  ok    $desc: $reports reports"
            else
                echo "  FAIL  $desc: $why"
                grep -v "^  [A-Z_]*=\|OPENMP DISPLAY ENVIRONMENT" "$log" | head -n 30 | sed 's/^/      | /'
                failed=$((failed + 1))
            fi
        done
    done
done

if [ $table = 1 ]; then
    echo
    echo "ThreadSanitizer reports (WARNING lines) per run, 2 / 4 threads:"
    printf "%-10s | %-18s | %-18s | %-16s | %-18s | %-18s\n" program "gcc: lite+Archer" \
        "gcc: LLVM+Archer" "gcc: libgomp" "clang: lite+Archer" "clang: LLVM+Archer"
    for p in $programs; do
        row=()
        for col in lite.gcc llvm.gcc libgomp.gcc lite.clang llvm.clang; do
            cell=
            for threads in 2 4; do
                if [ -x "$out/$p.${col#*.}" ]; then
                    reports "${col%.*}" "$out/$p.${col#*.}" "$threads"
                    [ "$rc" -eq 0 ] || [ "$reports" -ne 0 ] || reports="0"
                    [ "$rc" -ne 0 ] && [ "$reports" -eq 0 ] && reports="0 (rc $rc)"
                else
                    reports=-
                fi
                cell="${cell:+$cell / }$reports"
            done
            row+=("$cell")
        done
        printf "%-10s | %-18s | %-18s | %-16s | %-18s | %-18s\n" "$p" "${row[@]}"
    done
fi
[ $failed -eq 0 ] || { echo "run-archer: $failed runs failed"; exit 1; }
