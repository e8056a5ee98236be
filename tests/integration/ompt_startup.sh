#!/bin/bash
# ompt_startup.sh: OMPT tool start-up on libomp-lite (OpenMP 5.1 section 4.2), the ways users
# attach a tool. Builds into BUILD/tests/integration/ompt/, with the stock gcc (and clang-14
# where it is installed), against LLVM's omp-tools.h (libomp-14-dev; gcc has none, so the
# script reaches it through a directory holding only that header, as README.md says):
#   ompt_tool.so, ompt_decline.so   the tool as a library; the second's ompt_start_tool
#                                   returns NULL
#   app                             ompt_startup.c linked as users do (system libgomp)
#   app_linked                      the tool linked into the program, the program linked
#                                   against libomp-lite (-L BUILD/omp-lite, rpath): libomp-lite's
#                                   weak ompt_start_tool makes ld export the program's own
#   app_rdynamic                    the tool linked in, the program linked against the system
#                                   libgomp with -rdynamic, run with LD_PRELOAD
#   app_clang                       clang-built, the tool linked in, run through the drop-in
#                                   directory (LD_LIBRARY_PATH=BUILD/omp-lite)
# and checks, from the tool's own lines (ompt_tool.c): which tool starts, that initialize is
# called once and ompt_set_callback answers as documented, that the callbacks come, that
# finalize is called exactly once (at exit), or that nothing of the tool is called when it must
# not be (OMP_TOOL=disabled, a NULL ompt_start_tool, an initialize that returns 0); and the
# OMP_TOOL_VERBOSE_INIT log on stdout, stderr and in a file. Every program proves it runs on
# libomp-lite (lite_check.h).
#
# usage: ompt_startup.sh [--builddir DIR] [--srcdir DIR]
# Exit status: 0 pass, 1 fail, 77 skip (no LLVM omp-tools.h: apt-get install libomp-14-dev),
# 99 hard error. Environment: LITE_TEST_TIMEOUT (seconds per run, default 60), LITE_TEST_VERBOSE=1.
set -u

name=ompt_startup outdir=ompt
. "$(dirname "$0")/ompt_env.sh"

cflags=(-O1 -Wall -Wextra -D_GNU_SOURCE -I "$out/include" -I "$src")
{
    gcc "${cflags[@]}" -shared -fPIC "$src/ompt_tool.c" -o "$out/ompt_tool.so" &&
    gcc "${cflags[@]}" -DDECLINE -shared -fPIC "$src/ompt_tool.c" -o "$out/ompt_decline.so" &&
    gcc "${cflags[@]}" -fopenmp "$src/ompt_startup.c" -o "$out/app" -ldl &&
    gcc "${cflags[@]}" -fopenmp -DLINKED_TOOL "$src/ompt_startup.c" -o "$out/app_linked" -ldl \
        -L "$dropin" -Wl,-rpath,"$dropin" &&
    gcc "${cflags[@]}" -fopenmp -DLINKED_TOOL -rdynamic "$src/ompt_startup.c" \
        -o "$out/app_rdynamic" -ldl
} > "$out/build.log" 2>&1 || {
    echo "ompt_startup: could not build:"; cat "$out/build.log"; exit 99; }
clang=$(command -v clang-14)
if [ -n "$clang" ] && ! "$clang" "${cflags[@]}" -fopenmp -DLINKED_TOOL "$src/ompt_startup.c" \
        -o "$out/app_clang" -ldl > "$out/build-clang.log" 2>&1; then
    echo "  (clang-14 cannot build OpenMP programs here: the clang case is left out)"
    clang=
fi
# The gcc-linked program with the tool linked in exports ompt_start_tool only because the
# library it links defines one: check that premise, so that a failure below is not mistaken.
nm -D --defined-only "$out/app_linked" | grep -qw ompt_start_tool || {
    echo "  FAIL  app_linked does not export ompt_start_tool (libomp-lite's weak one missing?)"
    exit 1; }

failed=0
# run DESC EXPECTATIONS -- ENV... PROGRAM: runs with stdout in run.out, stderr in run.err, and
# checks each expectation: "N:REGEX" (exactly N stdout lines match), "+:REGEX" (at least one),
# "err:REGEX" (a stderr line matches), "file:PATH:REGEX".
run() {
    local desc=$1; shift
    local checks=()
    while [ "$1" != -- ]; do checks+=("$1"); shift; done
    shift
    rm -f "$out/run.out" "$out/run.err"
    timeout -k 5 "$timeout_s" env "$@" > "$out/run.out" 2> "$out/run.err"
    local rc=$? bad=
    [ $rc -eq 0 ] || bad="exit status $rc"
    grep -q '^app: done$' "$out/run.out" || bad="${bad:+$bad; }the program did not finish"
    if grep -q WRONG "$out/run.out"; then bad="${bad:+$bad; }$(grep WRONG "$out/run.out" | head -n 1)"; fi
    for c in "${checks[@]}"; do
        local kind=${c%%:*} rest=${c#*:} n
        case $kind in
            err) grep -Eq -- "$rest" "$out/run.err" || bad="${bad:+$bad; }no stderr line /$rest/" ;;
            file) local f=${rest%%:*}; grep -Eq -- "${rest#*:}" "$f" 2> /dev/null ||
                      bad="${bad:+$bad; }no line /${rest#*:}/ in $f" ;;
            +) grep -Eq -- "$rest" "$out/run.out" || bad="${bad:+$bad; }no line /$rest/" ;;
            *) n=$(grep -Ec -- "$rest" "$out/run.out")
               [ "$n" -eq "$kind" ] || bad="${bad:+$bad; }$n lines /$rest/, expected $kind" ;;
        esac
    done
    if [ -z "$bad" ]; then
        echo "  ok    $desc"
        [ "$verbose" = 1 ] && sed 's/^/      | /' "$out/run.out" "$out/run.err"
    else
        echo "  FAIL  $desc: $bad"
        sed 's/^/      | /' "$out/run.out"; sed 's/^/      ! /' "$out/run.err"
        failed=$((failed + 1))
    fi
}

# A tool that started and ran: initialize once, the four answers checked (ok), callbacks,
# finalize exactly once, after the program's last line (at exit).
started=("1:^tool: initialize$" "4:^tool: set .* ok$" "+:^tool: thread_begin$"
         "2:^tool: parallel_begin$" "1:^tool: finalize" "1:tool: start_tool libomp-lite [0-9.]+$")
nothing=("0:^tool: (initialize|thread_begin|parallel_begin|finalize)")
preload=("LD_PRELOAD=$lib" LITE_CHECK=on)
tools="$out/no_such_tool.so:$out/ompt_decline.so:$out/ompt_tool.so"

run "linked into the program (linked against libomp-lite, no -rdynamic)" "${started[@]}" -- \
    LITE_CHECK=only OMP_NUM_THREADS=2 "$out/app_linked"
run "linked into the program (-rdynamic, LD_PRELOAD)" "${started[@]}" -- \
    "${preload[@]}" "$out/app_rdynamic"
run "preloaded library (LD_PRELOAD=libomp-lite:tool)" "${started[@]}" -- \
    "LD_PRELOAD=$lib:$out/ompt_tool.so" LITE_CHECK=on "$out/app"
run "OMP_TOOL_LIBRARIES: a missing library, one that declines, the tool" "${started[@]}" \
    "1:^tool: start_tool libomp-lite .*\(declined\)$" -- \
    "${preload[@]}" "OMP_TOOL_LIBRARIES=$tools" "$out/app"
run "the same through the drop-in directory (LD_LIBRARY_PATH)" "${started[@]}" -- \
    "LD_LIBRARY_PATH=$dropin" LITE_CHECK=only "OMP_TOOL_LIBRARIES=$tools" "$out/app"
run "OMP_TOOL=disabled with OMP_TOOL_LIBRARIES" "${nothing[@]}" "0:^tool: start_tool" -- \
    "${preload[@]}" OMP_TOOL=disabled "OMP_TOOL_LIBRARIES=$tools" "$out/app"
run "OMP_TOOL=disabled with the tool linked in" "${nothing[@]}" "0:^tool: start_tool" -- \
    LITE_CHECK=only OMP_TOOL=disabled "$out/app_linked"
run "OMP_TOOL=enabled (explicitly)" "${started[@]}" -- \
    "${preload[@]}" OMP_TOOL=enabled "OMP_TOOL_LIBRARIES=$out/ompt_tool.so" "$out/app"
run "initialize returns 0: no callback, no finalize" "1:^tool: initialize$" \
    "0:^tool: (thread_begin|parallel_begin|finalize|set )" -- \
    "${preload[@]}" OMPT_TEST_REFUSE=1 "OMP_TOOL_LIBRARIES=$out/ompt_tool.so" "$out/app"
run "initialize registers nothing: hooks off, finalize once, late registration fails" \
    "1:^tool: initialize$" "0:^tool: (thread_begin|parallel_begin|set )" \
    "1:^tool: quiet late set = .* ok, thread data ok$" "1:^tool: finalize after 0 thread_begin" -- \
    "${preload[@]}" OMPT_TEST_QUIET=1 "OMP_TOOL_LIBRARIES=$out/ompt_tool.so" "$out/app"
run "only a library that declines: no tool" "${nothing[@]}" -- \
    "${preload[@]}" "OMP_TOOL_LIBRARIES=$out/ompt_decline.so" "$out/app"
log_lines=("+:^----- START LOGGING OF TOOL REGISTRATION -----$"
           "+:^Opening $out/no_such_tool.so\.\.\. Failed: "
           "+:^Found but not using the OMPT interface\.$"
           "+:^Tool was started and is using the OMPT interface\.$")
run "OMP_TOOL_VERBOSE_INIT=stdout" "${started[@]}" "${log_lines[@]}" -- \
    "${preload[@]}" OMP_TOOL_VERBOSE_INIT=stdout "OMP_TOOL_LIBRARIES=$tools" "$out/app"
run "OMP_TOOL_VERBOSE_INIT=stderr" "${started[@]}" "0:LOGGING OF TOOL REGISTRATION" \
    "err:^Tool was started and is using the OMPT interface\.$" -- \
    "${preload[@]}" OMP_TOOL_VERBOSE_INIT=stderr "OMP_TOOL_LIBRARIES=$tools" "$out/app"
rm -f "$out/init.log"
run "OMP_TOOL_VERBOSE_INIT=FILE" "${started[@]}" "0:LOGGING OF TOOL REGISTRATION" \
    "file:$out/init.log:^Tool was started and is using the OMPT interface\.$" -- \
    "${preload[@]}" "OMP_TOOL_VERBOSE_INIT=$out/init.log" "OMP_TOOL_LIBRARIES=$tools" "$out/app"
run "OMP_TOOL_VERBOSE_INIT=stdout, no tool anywhere" "+:^No OMP tool loaded\.$" "${nothing[@]}" -- \
    "${preload[@]}" OMP_TOOL_VERBOSE_INIT=stdout "$out/app"
if [ -n "$clang" ]; then
    run "clang-built, tool linked in, drop-in directory" "${started[@]}" -- \
        "LD_LIBRARY_PATH=$dropin" LITE_CHECK=only "$out/app_clang"
fi
[ $failed -eq 0 ] || { echo "ompt_startup: $failed runs failed"; exit 1; }
