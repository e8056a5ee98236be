#!/bin/bash
# ompt_reentry.sh: an OMPT tool may call the OpenMP API and start parallel regions from its
# callbacks, and a long OMP_TOOL_LIBRARIES list gets one warning (issue 50). Builds into
# BUILD/tests/integration/ompt-reentry/ with the stock gcc:
#   ompt_reentry_tool.so   the tool (ompt_reentry_tool.c), named by OMP_TOOL_LIBRARIES
#   app                    ompt_reentry.c, linked as users do (system libgomp)
# and runs app on the preload and ldpath routes at 1, 2, 4 and 16 threads, checking that it
# finishes (a hang is the timeout), that its results and the tool's own regions are right (no
# WRONG line), and that each kind of callback started regions. Then OMP_TOOL_LIBRARIES with 1,
# 3 and 200 missing libraries (a warning line each for 1 and 3, a single summary line for
# 200), and 200 missing ones before the tool (one line, and the tool starts). Every program
# proves it runs on libomp-lite (lite_check.h).
#
# usage: ompt_reentry.sh [--builddir DIR] [--srcdir DIR]
# Exit status: 0 pass, 1 fail, 77 skip (no LLVM omp-tools.h: apt-get install libomp-14-dev),
# 99 hard error. Environment: LITE_TEST_TIMEOUT (seconds per run, default 60), LITE_TEST_VERBOSE=1.
set -u

name=ompt_reentry outdir=ompt-reentry
. "$(dirname "$0")/ompt_env.sh"

cflags=(-O1 -Wall -Wextra -D_GNU_SOURCE -I "$out/include" -I "$src")
{
    gcc "${cflags[@]}" -fopenmp -shared -fPIC "$src/ompt_reentry_tool.c" \
        -o "$out/ompt_reentry_tool.so" &&
    gcc "${cflags[@]}" -fopenmp "$src/ompt_reentry.c" -o "$out/app" -ldl
} > "$out/build.log" 2>&1 || {
    echo "ompt_reentry: could not build:"; cat "$out/build.log"; exit 99; }
tool=$out/ompt_reentry_tool.so

failed=0
# run DESC EXPECTATIONS -- ENV... PROGRAM: stdout in run.out, stderr in run.err; each
# expectation is "N:REGEX" (exactly N stdout lines match), "+:REGEX" (at least one), or
# "errN:REGEX" (exactly N stderr lines match). The program must end with status 0 and print
# "app: done", and no line may say WRONG.
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
            err*) n=$(grep -Ec -- "$rest" "$out/run.err")
                  [ "$n" -eq "${kind#err}" ] ||
                      bad="${bad:+$bad; }$n stderr lines /$rest/, expected ${kind#err}" ;;
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
        sed 's/^/      | /' "$out/run.out" | tail -n 20; sed 's/^/      ! /' "$out/run.err" | tail -n 20
        failed=$((failed + 1))
    fi
}

routes=(preload ldpath)
route_env() {
    case $1 in
        preload) echo "LD_PRELOAD=$lib LITE_CHECK=on" ;;
        ldpath) echo "LD_LIBRARY_PATH=$dropin LITE_CHECK=only" ;;
    esac
}

# Every kind of callback started regions: the initial thread's thread-begin one; the others
# as many as the limit allows, at least one.
started=("1:^tool: started 1 from thread_begin$")
for k in parallel_begin parallel_end implicit_task work sync_region; do
    started+=("1:^tool: started [1-9][0-9]* from $k$")
done
for route in "${routes[@]}"; do
    for n in 1 2 4 16; do
        # shellcheck disable=SC2046
        run "$route, $n threads: callbacks call the API and start regions" "${started[@]}" -- \
            $(route_env "$route") OMP_NUM_THREADS=$n OMPT_REENTRY_LIMIT=32 \
            "OMP_TOOL_LIBRARIES=$tool" "$out/app" 100
    done
done

# Lists of missing tool libraries: the loader's reason per entry for a few, one line for many.
missing() { local k; for k in $(seq "$1"); do printf '%s/no-such-tool-%d.so:' "$out" "$k"; done; }
list1=$(missing 1) list3=$(missing 3) list200=$(missing 200)
nothing=("0:^tool: ")
for route in "${routes[@]}"; do
    # shellcheck disable=SC2046
    {
    run "$route: 1 missing tool library, one warning" "${nothing[@]}" \
        "err1:warning: OMP_TOOL_LIBRARIES: cannot load '.*no-such-tool-1\.so'" "err1:." -- \
        $(route_env "$route") OMP_NUM_THREADS=2 "OMP_TOOL_LIBRARIES=${list1%:}" "$out/app" 3
    run "$route: 3 missing tool libraries, a warning each" "${nothing[@]}" \
        "err3:warning: OMP_TOOL_LIBRARIES: cannot load '.*no-such-tool-[123]\.so'" "err3:." -- \
        $(route_env "$route") OMP_NUM_THREADS=2 "OMP_TOOL_LIBRARIES=${list3%:}" "$out/app" 3
    run "$route: 200 missing tool libraries, one summary warning" "${nothing[@]}" \
        "err1:warning: OMP_TOOL_LIBRARIES: 200 libraries could not be loaded" "err1:." -- \
        $(route_env "$route") OMP_NUM_THREADS=2 "OMP_TOOL_LIBRARIES=${list200%:}" "$out/app" 3
    run "$route: 200 missing tool libraries, then the tool: one warning, the tool starts" \
        "${started[@]}" "err1:warning: OMP_TOOL_LIBRARIES: 200 libraries could not be loaded" \
        "err1:." -- \
        $(route_env "$route") OMP_NUM_THREADS=2 OMPT_REENTRY_LIMIT=4 \
        "OMP_TOOL_LIBRARIES=$list200$tool" "$out/app" 10
    }
done
[ $failed -eq 0 ] || { echo "ompt_reentry: $failed runs failed"; exit 1; }
