#!/bin/bash
# ompt_teams_target.sh: OMPT events of host teams regions and of target constructs run on the
# host (issue 39), with a tool linked into the program (ompt_teams_target.c, which holds both).
# Builds into BUILD/tests/integration/ompt-teams/, against LLVM's omp-tools.h as ompt_startup.sh
# does:
#   app         gcc-built, linked against libomp-lite: a host teams league (GOMP_teams_reg),
#               target (with a parallel region in it, and in a parallel region), target teams
#               (GOMP_target_ext, GOMP_teams4), target data around target update, enter data,
#               exit data, target nowait, and a target region whose body starts with gcc 5-8's
#               GOMP_teams (the league ends with the region)
#   app_clang   the same program clang-built (__kmpc_fork_teams for both teams constructs; the
#               target constructs compiled to host code: no target event), run through the
#               drop-in directory
# and compares each run's whole event sequence ("ev: " lines: ids are the tool's own, numbered in
# order; only the initial thread's events are printed, and its ids are numbered apart from the
# workers') with the expected one below. The gcc program runs twice, with ompt_callback_target
# and with ompt_callback_target_emi; and once with OMP_TOOL=disabled (no tool: the same results,
# no event).
#
# usage: ompt_teams_target.sh [--builddir DIR] [--srcdir DIR]
# Exit status: 0 pass, 1 fail, 77 skip (no LLVM omp-tools.h: apt-get install libomp-14-dev),
# 99 hard error. Environment: LITE_TEST_TIMEOUT (seconds per run, default 60), LITE_TEST_VERBOSE=1.
set -u

name=ompt_teams_target outdir=ompt-teams
. "$(dirname "$0")/ompt_env.sh"

# -rdynamic: the tool names the user's return addresses by symbol (main).
cflags=(-O1 -Wall -Wextra -D_GNU_SOURCE -I "$out/include" -I "$src" -fopenmp -rdynamic)
gcc "${cflags[@]}" "$src/ompt_teams_target.c" -o "$out/app" -ldl -L "$dropin" \
    -Wl,-rpath,"$dropin" > "$out/build.log" 2>&1 || {
    echo "ompt_teams_target: could not build:"; cat "$out/build.log"; exit 99; }
clang=$(command -v clang-14)
if [ -n "$clang" ] && ! "$clang" "${cflags[@]}" "$src/ompt_teams_target.c" -o "$out/app_clang" \
        -ldl > "$out/build-clang.log" 2>&1; then
    echo "  (clang-14 cannot build OpenMP programs here: the clang case is left out)"
    clang=
fi

# The host teams region: a league of two teams, each running a parallel region of one thread.
# Level 0 in a team is the league's region (its size: the league's) and the team's initial
# task (thread_num: its team number), level 1 the initial task that met the construct.
teams_expected='ev: initial_task_begin P1 T1 parallelism=1 index=1
ev: probe main: task(0)=T1 initial P1 num=0 parallel(0)=P1 size=1
ev: teams_begin parent=T1 P2 requested=2 invoker=runtime enter=set ra=main
ev: initial_task_begin P2 T2 parallelism=2 index=0
ev: probe team: task(0)=T2 initial P2 num=0 task(1)=T1 initial P1 num=0 parallel(0)=P2 size=2 parallel(1)=P1 size=1
ev: parallel_begin parent=T2 P3 requested=1 invoker=program enter=set ra=app
ev: implicit_task_begin P3 T3 parallelism=1 index=0
ev: probe team'"'"'s parallel: task(0)=T3 implicit|undeferred P3 num=0 task(1)=T2 initial P2 num=0 task(2)=T1 initial P1 num=0 parallel(0)=P3 size=1 parallel(1)=P2 size=2 parallel(2)=P1 size=1
ev: implicit_task_end null T3 parallelism=1 index=0
ev: parallel_end P3 parent=T2 ra=app
ev: initial_task_end null T2 parallelism=0 index=0
ev: initial_task_begin P2 T4 parallelism=2 index=1
ev: probe team: task(0)=T4 initial P2 num=1 task(1)=T1 initial P1 num=0 parallel(0)=P2 size=2 parallel(1)=P1 size=1
ev: parallel_begin parent=T4 P4 requested=1 invoker=program enter=set ra=app
ev: implicit_task_begin P4 T5 parallelism=1 index=0
ev: probe team'"'"'s parallel: task(0)=T5 implicit|undeferred P4 num=0 task(1)=T4 initial P2 num=1 task(2)=T1 initial P1 num=0 parallel(0)=P4 size=1 parallel(1)=P2 size=2 parallel(2)=P1 size=1
ev: implicit_task_end null T5 parallelism=1 index=0
ev: parallel_end P4 parent=T4 ra=app
ev: initial_task_end null T4 parallelism=0 index=1
ev: teams_end P2 parent=T1 ra=main'

# gcc: the target region runs in the encountering task (as LLVM's host fallback does: no
# target task, no initial task of a device), and ompt_get_target_info answers for it there and
# in both threads of its parallel region, not in the other thread of a region whose primary
# thread runs one; target teams is GOMP_teams4's league, whose body the program's loop runs
# (invoker=program, no enter frame, codeptr in the outlined function); target data is enter
# data at its begin and exit data at its end (OpenMP 5.1, 2.14.2).
gcc_expected="$teams_expected
ev: target begin dev=host task=T1 I1 ra=main
ev: probe target: task(0)=T1 initial P1 num=0 parallel(0)=P1 size=1 target=I1
ev: parallel_begin parent=T1 P5 requested=2 invoker=program enter=set ra=app
ev: implicit_task_begin P5 T6 parallelism=2 index=0
ev: implicit_task_end null T6 parallelism=2 index=0
ev: parallel_end P5 parent=T1 ra=app
ev: target end dev=host task=T1 I1 ra=main
ev: target's parallel: target I1 I1
ev: parallel_begin parent=T1 P6 requested=2 invoker=program enter=set ra=main
ev: implicit_task_begin P6 T7 parallelism=2 index=0
ev: target begin dev=host task=T7 I2 ra=app
ev: target end dev=host task=T7 I2 ra=app
ev: implicit_task_end null T7 parallelism=2 index=0
ev: parallel_end P6 parent=T1 ra=main
ev: beside a target region: target I0
ev: target begin dev=host task=T1 I3 ra=main
ev: teams_begin parent=T1 P7 requested=2 invoker=program enter=none ra=app
ev: initial_task_begin P7 T8 parallelism=2 index=0
ev: probe target team: task(0)=T8 initial P7 num=0 task(1)=T1 initial P1 num=0 parallel(0)=P7 size=2 parallel(1)=P1 size=1 target=I3
ev: initial_task_end null T8 parallelism=0 index=0
ev: initial_task_begin P7 T9 parallelism=2 index=1
ev: probe target team: task(0)=T9 initial P7 num=1 task(1)=T1 initial P1 num=0 parallel(0)=P7 size=2 parallel(1)=P1 size=1 target=I3
ev: initial_task_end null T9 parallelism=0 index=1
ev: teams_end P7 parent=T1 ra=app
ev: target end dev=host task=T1 I3 ra=main
ev: enter_data begin dev=host task=T1 I4 ra=main
ev: enter_data end dev=host task=T1 I4 ra=main
ev: update begin dev=host task=T1 I5 ra=main
ev: update end dev=host task=T1 I5 ra=main
ev: exit_data begin dev=host task=T1 I6 ra=main
ev: exit_data end dev=host task=T1 I6 ra=main
ev: enter_data begin dev=host task=T1 I7 ra=main
ev: enter_data end dev=host task=T1 I7 ra=main
ev: exit_data begin dev=host task=T1 I8 ra=main
ev: exit_data end dev=host task=T1 I8 ra=main
ev: target_nowait begin dev=host task=T1 I9 ra=main
ev: target_nowait end dev=host task=T1 I9 ra=main
ev: target begin dev=host task=T1 I10 ra=main
ev: teams_begin parent=T1 P8 requested=1 invoker=program enter=none ra=app
ev: initial_task_begin P8 T10 parallelism=1 index=0
ev: probe legacy team: task(0)=T10 initial P8 num=0 task(1)=T1 initial P1 num=0 parallel(0)=P8 size=1 parallel(1)=P1 size=1 target=I10
ev: initial_task_end null T10 parallelism=0 index=0
ev: teams_end P8 parent=T1 ra=app
ev: target end dev=host task=T1 I10 ra=main"
# The same through ompt_callback_target_emi: no target task, the tool's own target_data.
gcc_emi_expected=$(sed -E '/^ev: [a-z_]+ (begin|end) dev=/{s/ ra=/ target_task=null ra=/;s/$/ (emi)/}' \
    <<< "$gcc_expected")
# clang without -fopenmp-targets: no target event, no target region for ompt_get_target_info;
# target teams is a host league from __kmpc_fork_teams; target nowait is a task of its own
# (__kmpc_omp_target_task_alloc), a target task to a tool (ompt_task_target), as LLVM's libomp
# reports it.
clang_expected="$teams_expected
ev: probe target: task(0)=T1 initial P1 num=0 parallel(0)=P1 size=1
ev: parallel_begin parent=T1 P5 requested=2 invoker=program enter=set ra=main
ev: implicit_task_begin P5 T6 parallelism=2 index=0
ev: implicit_task_end null T6 parallelism=2 index=0
ev: parallel_end P5 parent=T1 ra=main
ev: target's parallel: target I0 I0
ev: parallel_begin parent=T1 P6 requested=2 invoker=program enter=set ra=main
ev: implicit_task_begin P6 T7 parallelism=2 index=0
ev: implicit_task_end null T7 parallelism=2 index=0
ev: parallel_end P6 parent=T1 ra=main
ev: beside a target region: target I0
ev: teams_begin parent=T1 P7 requested=2 invoker=runtime enter=set ra=main
ev: initial_task_begin P7 T8 parallelism=2 index=0
ev: probe target team: task(0)=T8 initial P7 num=0 task(1)=T1 initial P1 num=0 parallel(0)=P7 size=2 parallel(1)=P1 size=1
ev: initial_task_end null T8 parallelism=0 index=0
ev: initial_task_begin P7 T9 parallelism=2 index=1
ev: probe target team: task(0)=T9 initial P7 num=1 task(1)=T1 initial P1 num=0 parallel(0)=P7 size=2 parallel(1)=P1 size=1
ev: initial_task_end null T9 parallelism=0 index=1
ev: teams_end P7 parent=T1 ra=main
ev: task_create parent=T1 T10 target|undeferred"
# At exit, after the program's last line.
tail_expected='ev: initial_task_end parallel T1 parallelism=0 index=1'
notool_expected='ev: probe main: no tool
ev: probe team: no tool
ev: probe team'"'"'s parallel: no tool
ev: probe team: no tool
ev: probe team'"'"'s parallel: no tool
ev: probe target: no tool
ev: target'"'"'s parallel: target I0 I0
ev: beside a target region: target I0
ev: probe target team: no tool
ev: probe target team: no tool
ev: probe legacy team: no tool'

failed=0
# run DESC EXPECTED -- ENV... PROGRAM: the run's "ev: " lines must be EXPECTED exactly, and it
# must finish ("app: done") with no WRONG line and status 0.
run() {
    local desc=$1 expected=$2; shift 3
    timeout -k 5 "$timeout_s" env "$@" > "$out/run.out" 2> "$out/run.err"
    local rc=$? bad=
    [ $rc -eq 0 ] || bad="exit status $rc"
    grep -q '^app: done$' "$out/run.out" || bad="${bad:+$bad; }the program did not finish"
    if grep -q WRONG "$out/run.out"; then bad="${bad:+$bad; }$(grep WRONG "$out/run.out" | head -n 1)"; fi
    grep '^ev: ' "$out/run.out" > "$out/run.events"
    if ! diff -u <(printf '%s\n' "$expected") "$out/run.events" > "$out/run.diff"; then
        bad="${bad:+$bad; }the events differ (- expected, + seen):"
    fi
    if [ -z "$bad" ]; then
        echo "  ok    $desc"
        [ "$verbose" = 1 ] && sed 's/^/      | /' "$out/run.out" "$out/run.err"
    else
        echo "  FAIL  $desc: $bad"
        sed 's/^/      | /' "$out/run.diff"; sed 's/^/      ! /' "$out/run.err"
        failed=$((failed + 1))
    fi
}

run "gcc: host teams and target constructs, ompt_callback_target" \
    "$gcc_expected"$'\n'"$tail_expected" -- LITE_CHECK=only "$out/app"
run "gcc: the same with ompt_callback_target_emi" \
    "$gcc_emi_expected"$'\n'"$tail_expected" -- LITE_CHECK=only OMPT_TEST_EMI=1 "$out/app"
run "gcc: OMP_TOOL=disabled (no tool, no event)" "$notool_expected" -- \
    LITE_CHECK=only OMP_TOOL=disabled "$out/app"
if [ -n "$clang" ]; then
    run "clang: host teams (__kmpc_fork_teams), target constructs as host code" \
        "$clang_expected"$'\n'"$tail_expected" -- \
        "LD_LIBRARY_PATH=$dropin" LITE_CHECK=only "$out/app_clang"
fi
[ $failed -eq 0 ] || { echo "ompt_teams_target: $failed runs failed"; exit 1; }
