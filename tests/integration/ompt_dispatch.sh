#!/bin/bash
# ompt_dispatch.sh: ompt_callback_dispatch on libomp-lite (issue 39): the chunks of worksharing
# loops and the sections the runtime hands out, as a tool sees them (ompt_dispatch.c says what
# is checked). Builds ompt_dispatch.c, its tool linked in, into BUILD/tests/integration/ompt/
# with the stock gcc (linked against libomp-lite) and with clang-14 where it can build OpenMP
# programs (run through the drop-in directory), against LLVM's omp-tools.h as ompt_startup.sh
# does, and runs each with 4 threads.
#
# usage: ompt_dispatch.sh [--builddir DIR] [--srcdir DIR]
# Exit status: 0 pass, 1 fail, 77 skip (no LLVM omp-tools.h: apt-get install libomp-14-dev),
# 99 hard error. Environment: LITE_TEST_TIMEOUT (seconds per run, default 60), LITE_TEST_VERBOSE=1.
set -u

name=ompt_dispatch outdir=ompt
. "$(dirname "$0")/ompt_env.sh"

cflags=(-O1 -Wall -Wextra -Wshadow -D_GNU_SOURCE -I "$out/include" -I "$src")
gcc "${cflags[@]}" -fopenmp "$src/ompt_dispatch.c" -o "$out/dispatch_gcc" -ldl -lpthread \
    -L "$dropin" -Wl,-rpath,"$dropin" > "$out/dispatch-build.log" 2>&1 || {
    echo "ompt_dispatch: could not build:"; cat "$out/dispatch-build.log"; exit 99; }
clang=$(command -v clang-14)
if [ -n "$clang" ] && ! "$clang" "${cflags[@]}" -fopenmp "$src/ompt_dispatch.c" \
        -o "$out/dispatch_clang" -ldl -lpthread > "$out/dispatch-build-clang.log" 2>&1; then
    echo "  (clang-14 cannot build OpenMP programs here: the clang case is left out)"
    clang=
fi

failed=0
# run DESC ENV... PROGRAM: passes when the program exits 0 having printed "app: done".
run() {
    local desc=$1; shift
    timeout -k 5 "$timeout_s" env "$@" > "$out/dispatch.out" 2>&1
    local rc=$?
    if [ $rc -eq 0 ] && grep -q '^app: done$' "$out/dispatch.out"; then
        echo "  ok    $desc"
        [ "$verbose" = 1 ] && sed 's/^/      | /' "$out/dispatch.out"
    else
        echo "  FAIL  $desc (exit status $rc)"
        sed 's/^/      | /' "$out/dispatch.out"
        failed=$((failed + 1))
    fi
}

run "gcc-built, linked against libomp-lite" LITE_CHECK=only "$out/dispatch_gcc"
if [ -n "$clang" ]; then
    run "clang-built, drop-in directory" "LD_LIBRARY_PATH=$dropin" LITE_CHECK=only \
        "$out/dispatch_clang"
fi
[ $failed -eq 0 ] || { echo "ompt_dispatch: $failed runs failed"; exit 1; }
