#!/bin/bash
# run-routes.sh: runs the integration tests (OpenMP programs built by the stock gcc, g++ and
# gfortran -fopenmp) on libomp-lite through the routes users take:
#   preload  LD_PRELOAD=BUILD/.libs/libomp-lite.so.0 on binaries linked against the system libgomp
#   ldpath   LD_LIBRARY_PATH=BUILD/omp-lite on the same, unmodified binaries (drop-in libgomp.so.1)
#   rpath    copies linked at build time with -L BUILD/omp-lite -Wl,-rpath,BUILD/omp-lite
#   stock    the system-linked binaries on stock libgomp with the proof check off: a development
#            aid for comparison, not part of make check
# Each test is a list of cases (one program run each, with its own environment and arguments);
# a test passes on a route when every case does. Every run has a timeout, so a deadlock fails.
#
# usage: run-routes.sh [--builddir DIR] ROUTE [TEST...]   (no TEST: all of them)
#        run-routes.sh --list
# make check runs one (test, route) pair per automake test, through the stubs that
# tests/integration/local.mk generates (tests/integration/TEST.ROUTE).
# Environment: LITE_TEST_TIMEOUT  seconds per program run (default 60)
#              LITE_TEST_VERBOSE  1: show the output of passing runs too
set -u

ALL_TESTS="parallel_basics nested barrier single copyprivate critical atomic locks reduction
threadprivate flush_handoff root_threads exit_user_threads fork oversub wait_policy cxx fortran env_display
env_bad_values thread_limit error_directive tasks target allocators affinity_format dlclose binding
harden stress memcheck"
ALL_TESTS="$ALL_TESTS heap_churn loop_order profile profile_edges profile_files many_cores"
ALL_TESTS="$ALL_TESTS seccomp_affinity task_locks wake_ahead kmp_affinity"

builddir=
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=$2; shift 2 ;;
        --srcdir) shift 2 ;;  # accepted for symmetry with check-symbols.sh; not needed
        --list) echo $ALL_TESTS; exit 0 ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) break ;;
    esac
done
[ -n "$builddir" ] || builddir=$(pwd)
builddir=$(cd "$builddir" && pwd)
route=${1:-}
[ $# -gt 0 ] && shift
case $route in
    preload|ldpath|rpath|stock) ;;
    *) echo "run-routes.sh: unknown route '$route' (preload, ldpath, rpath or stock)" >&2; exit 99 ;;
esac
tests=${*:-$ALL_TESTS}
timeout_s=${LITE_TEST_TIMEOUT:-60}
verbose=${LITE_TEST_VERBOSE:-0}
lib=$builddir/.libs/libomp-lite.so.0

# The tests define their own OpenMP environment: drop whatever the caller's shell had.
for v in $(compgen -e); do
    case $v in OMP_*|GOMP_*|KMP_*|LIBOMP_LITE_*|LITE_CHECK) unset "$v" ;; esac
done
unset LD_PRELOAD
# The processors available to the tests, as the programs should count them.
LITE_TEST_NPROCS=$(nproc)
export LITE_TEST_NPROCS

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lite-routes.XXXXXX") || exit 99
# A second folder, for the cases where another user must reach files (t_profile_files): $tmp is
# the caller's alone.
open_tmp=
trap 'rm -rf "$tmp" ${open_tmp:+"$open_tmp"}' EXIT

cases_run=0
cases_failed=0
CASE_RC=0
CASE_OUT=$tmp/out
CASE_ERR=$tmp/err
CASE_DESC=

indent() { sed 's/^/      | /' "$1"; }

# case_run [VAR=VALUE...] PROGRAM [ARG...]: run one program on the route; sets CASE_RC, CASE_DESC
# and leaves its output in $CASE_OUT and $CASE_ERR.
case_run() {
    local envs=()
    while [ $# -gt 0 ] && [[ $1 == *=* ]]; do envs+=("$1"); shift; done
    local prog=$1; shift
    local bin=$builddir/tests/integration/$prog
    local route_env=()
    case $route in
        preload) route_env=("LD_PRELOAD=$lib" LITE_CHECK=on) ;;
        ldpath) route_env=("LD_LIBRARY_PATH=$builddir/omp-lite${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
                          LITE_CHECK=only) ;;
        rpath) bin=$builddir/tests/integration/rpath/$prog; route_env=(LITE_CHECK=only) ;;
        stock) route_env=(LITE_CHECK=stock) ;;
    esac
    CASE_DESC="${envs[*]:+${envs[*]} }$prog${*:+ $*}"
    cases_run=$((cases_run + 1))
    if [ ! -x "$bin" ]; then
        echo "missing program $bin (not built?)" > "$CASE_ERR"
        : > "$CASE_OUT"
        CASE_RC=99
        return
    fi
    if [ "$route" = preload ] && [ ! -e "$lib" ]; then
        echo "missing library $lib (not built?)" > "$CASE_ERR"
        : > "$CASE_OUT"
        CASE_RC=99
        return
    fi
    timeout -k 5 "$timeout_s" $CASE_OUTER env "${route_env[@]}" "${envs[@]}" $CASE_WRAP "$bin" "$@" \
        > "$CASE_OUT" 2> "$CASE_ERR" < /dev/null
    CASE_RC=$?
}

# Why a run with status rc failed, in words.
rc_words() {
    case $1 in
        124|137) echo "timed out after ${timeout_s} s (deadlock?)" ;;
        99) echo "could not run" ;;
        *) if [ "$1" -gt 128 ]; then echo "killed by SIG$(kill -l $(($1 - 128)) 2>/dev/null)"
           else echo "exit status $1"; fi ;;
    esac
}

case_pass() {
    echo "  ok    $CASE_DESC"
    if [ "$verbose" = 1 ]; then indent "$CASE_OUT"; indent "$CASE_ERR"; fi
}

case_fail() {
    echo "  FAIL  $CASE_DESC: $*"
    indent "$CASE_OUT"
    indent "$CASE_ERR"
    cases_failed=$((cases_failed + 1))
}

case_skip() {
    echo "  skip  $*"
}

# case_ok [VAR=VALUE...] PROGRAM [ARG...]: the program must exit 0.
case_ok() {
    case_run "$@"
    if [ "$CASE_RC" -eq 0 ]; then case_pass; else case_fail "$(rc_words "$CASE_RC")"; fi
}

# case_exits RC LINES [VAR=VALUE...] PROGRAM [ARG...]: the program must exit with status RC (a
# signal is a failure) and the non-empty lines of its stderr must be LINES, word for word and in
# order (one string, a newline between lines).
case_exits() {
    local want_rc=$1 want_err=$2
    shift 2
    case_run "$@"
    local got_err
    got_err=$(grep -v '^[[:space:]]*$' "$CASE_ERR")
    if [ "$CASE_RC" -ne "$want_rc" ]; then
        case_fail "$(rc_words "$CASE_RC"), expected exit status $want_rc"
    elif [ "$got_err" != "$want_err" ]; then
        case_fail "the non-empty lines of stderr are not the expected ones (marked >)"
        sed 's/^/      > /' <<< "$want_err"
    else
        case_pass
    fi
}

# case_stops PATTERN [VAR=VALUE...] PROGRAM [ARG...]: the runtime must stop the program the way
# libgomp's fatal errors do: exit status 1 (EXIT_FAILURE; a signal, such as abort's, is a
# failure), with one non-empty line on stderr, which matches the grep pattern PATTERN (the
# wording of the message is the runtime's own).
case_stops() {
    local pattern=$1
    shift
    case_run "$@"
    local nlines
    nlines=$(grep -c -v '^[[:space:]]*$' "$CASE_ERR")
    if [ "$CASE_RC" -ne 1 ]; then
        case_fail "$(rc_words "$CASE_RC"), expected exit status 1 (EXIT_FAILURE, as libgomp)"
    elif [ "$nlines" -ne 1 ] || ! grep -q -- "$pattern" "$CASE_ERR"; then
        case_fail "stderr is not one line matching '$pattern'"
    else
        case_pass
    fi
}

lite_route() { [ "$route" != stock ]; }

# case_task_ops MAX [VAR=VALUE...] PROGRAM [ARG...]: the program must exit 0, and libomp-lite's
# OMPLITE_TASK_COUNTERS line on its stderr must count at most MAX task operations (a task's
# creation, start and completion: three a queued task).
case_task_ops() {
    local max=$1
    shift
    case_run OMPLITE_TASK_COUNTERS=1 "$@"
    local ops
    ops=$(sed -n 's/^# libomp-lite task counters: \([0-9]*\) task operations.*/\1/p' "$CASE_ERR")
    if [ "$CASE_RC" -ne 0 ]; then
        case_fail "$(rc_words "$CASE_RC")"
    elif [ -z "$ops" ]; then
        case_fail "no task counters line on stderr"
    elif [ "$ops" -gt "$max" ]; then
        case_fail "$ops task operations, expected at most $max"
    else
        case_pass
    fi
}

# ---- the tests: each a list of cases ----

t_parallel_basics() {
    case_ok parallel_basics
    case_ok OMP_NUM_THREADS=3 parallel_basics
    case_ok OMP_NUM_THREADS=5 OMP_DYNAMIC=false parallel_basics
    # Binding must not change the processor count or the default team size.
    case_ok OMP_PROC_BIND=true parallel_basics
    case_ok OMP_PROC_BIND=spread OMP_PLACES=cores parallel_basics
}

# A program that makes no OpenMP call, with libomp-lite preloaded and the environment given:
# its mask must be the test's own.
case_mask_kept() {
    local want got
    want=$(grep Cpus_allowed_list /proc/self/status)
    got=$(env "$@" LD_PRELOAD="$lib" grep Cpus_allowed_list /proc/self/status 2> "$CASE_ERR")
    CASE_DESC="$* LD_PRELOAD=libomp-lite grep Cpus_allowed_list /proc/self/status"
    cases_run=$((cases_run + 1))
    echo "$got" > "$CASE_OUT"
    if [ "$got" = "$want" ]; then case_pass; else case_fail "the mask changed, expected '$want'"; fi
}

# LLVM's KMP_AFFINITY and KMP_HW_SUBSET (affinity/kmp_env.c), checked from inside each thread
# (tests/integration/kmp_affinity.c says how) on a machine of exactly two CPUs, 0 and 1; the
# guests (tests/vm/guest-checks.sh, group kmp) check them on 16 CPUs in 2 sockets and 4 nodes.
t_kmp_affinity() {
    if ! lite_route; then
        case_skip "kmp_affinity: the stock libgomp does not read KMP_AFFINITY"
        return
    fi
    local cpus
    cpus=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //')
    if [ "$cpus" != "0,1" ] && [ "$cpus" != "0-1" ]; then
        case_skip "kmp_affinity: needs a mask of exactly CPUs 0 and 1 (here '$cpus')"
        return
    fi
    # compact at the default granularity, core: one place per CPU, its core (two places that are
    # one core's where the two CPUs are one core's threads).
    local core0='{0},{1}'
    case $(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null) in
        0-1|0,1) core0='{0:2},{0:2}' ;;
    esac
    local expect="KMP_EXPECT_BIND=close KMP_EXPECT_THREADS=2"
    case_ok KMP_AFFINITY=compact KMP_EXPECT_PLACES="$core0" $expect kmp_affinity
    case_ok KMP_AFFINITY=granularity=fine,compact KMP_EXPECT_PLACES='{0},{1}' $expect kmp_affinity
    case_ok KMP_AFFINITY=granularity=fine,compact,0,1 KMP_EXPECT_PLACES='{1},{0}' $expect \
        kmp_affinity
    case_ok KMP_AFFINITY=granularity=fine,scatter KMP_EXPECT_PLACES='{0},{1}' $expect kmp_affinity
    case_ok 'KMP_AFFINITY=explicit,proclist=[1,0]' KMP_EXPECT_PLACES='{1},{0}' $expect kmp_affinity
    case_ok 'KMP_AFFINITY=proclist=[{0,1}]' KMP_EXPECT_PLACES='{0:2}' $expect kmp_affinity 2
    case_ok KMP_AFFINITY=granularity=fine,balanced KMP_EXPECT_PLACES='{0},{1}' \
        KMP_EXPECT_BIND=spread kmp_affinity 2 3
    # Not bound: disabled, none; a team of 4 too.
    case_ok KMP_AFFINITY=disabled KMP_EXPECT_PLACES= KMP_EXPECT_BIND=false KMP_EXPECT_THREADS=2 \
        kmp_affinity 4
    case_ok KMP_AFFINITY=none KMP_EXPECT_PLACES= KMP_EXPECT_BIND=false kmp_affinity
    # verbose: one line with the result; with none, that nothing is bound.
    case_exits 0 "libomp-lite: KMP_AFFINITY: 2 CPUs, bind close, places {1},{0}" \
        'KMP_AFFINITY=verbose,explicit,proclist=[1,0]' kmp_affinity 4
    case_exits 0 "libomp-lite: KMP_AFFINITY: 2 CPUs, threads are not bound" \
        KMP_AFFINITY=verbose,none kmp_affinity
    # KMP_HW_SUBSET: the kept CPUs are the process's, the default team follows them.
    case_ok KMP_HW_SUBSET=1c KMP_EXPECT_PLACES='{0}' KMP_EXPECT_BIND=true KMP_EXPECT_THREADS=1 \
        kmp_affinity
    case_ok KMP_HW_SUBSET=1c@1 KMP_EXPECT_PLACES='{1}' KMP_EXPECT_THREADS=1 kmp_affinity 3
    case_ok KMP_HW_SUBSET=1s KMP_EXPECT_THREADS=2 kmp_affinity
    case_ok KMP_HW_SUBSET=1c OMP_NUM_THREADS=2 KMP_EXPECT_THREADS=2 kmp_affinity
    case_ok KMP_HW_SUBSET=1c KMP_AFFINITY=none KMP_EXPECT_PLACES= KMP_EXPECT_THREADS=1 kmp_affinity
    # The standard variables win over a KMP_AFFINITY type, with one warning.
    case_exits 0 "libomp-lite: warning: KMP_AFFINITY='compact' names a type, and OMP_PROC_BIND is set: OMP_PROC_BIND decides the binding (the standard variables win in libomp-lite)" \
        OMP_PROC_BIND=spread KMP_AFFINITY=compact KMP_EXPECT_BIND=spread kmp_affinity
    case_exits 0 "libomp-lite: warning: KMP_AFFINITY='scatter' names a type, and OMP_PLACES is set: OMP_PLACES decides the binding (the standard variables win in libomp-lite)" \
        OMP_PLACES='{1},{0}' KMP_AFFINITY=scatter KMP_EXPECT_PLACES='{1},{0}' KMP_EXPECT_BIND=true \
        kmp_affinity
    # Bad values: one warning, never a stop.
    case_exits 0 "libomp-lite: warning: KMP_AFFINITY='bogus': 'bogus' is not a type (none, compact, scatter, balanced, explicit, disabled) or modifier that libomp-lite knows; ignored" \
        KMP_AFFINITY=bogus KMP_EXPECT_PLACES= KMP_EXPECT_BIND=false kmp_affinity
    case_exits 0 "libomp-lite: warning: KMP_HW_SUBSET='9c' is ignored: it asks for more cores than the machine has (2 per socket)" \
        KMP_HW_SUBSET=9c KMP_EXPECT_PLACES= KMP_EXPECT_THREADS=2 kmp_affinity
    case_exits 0 "libomp-lite: warning: KMP_HW_SUBSET='1c' is ignored: KMP_AFFINITY=disabled" \
        KMP_HW_SUBSET=1c KMP_AFFINITY=disabled KMP_EXPECT_THREADS=2 kmp_affinity
}

# Binding, checked from inside each thread (tests/integration/binding.c says how). The CPUs named
# are those every machine has: 0, and the last CPU of the test's mask when there are two.
t_binding() {
    case_ok BINDING_EXPECT=unbound binding
    case_ok OMP_PROC_BIND=true binding
    case_ok OMP_PROC_BIND=close binding
    case_ok OMP_PROC_BIND=spread binding
    case_ok OMP_PROC_BIND=primary binding 2 4
    case_ok OMP_PROC_BIND=master OMP_PLACES=threads binding 3
    case_ok OMP_PLACES=threads binding 2 3 4 16
    case_ok OMP_PLACES=cores OMP_PROC_BIND=spread,close binding
    case_ok OMP_PLACES=sockets binding 2
    case_ok OMP_PLACES='threads(1)' BINDING_PLACES='{0}' binding 2 4
    case_ok OMP_PLACES='{0}' BINDING_PLACES='{0}' binding 2
    # Loaded but not yet used (a shell, `timeout` or a launcher script that LD_PRELOAD reaches):
    # no mask changed, so the programs it starts keep every CPU. (Under LD_PRELOAD a program
    # linked with the stock libgomp also loads it, and its constructor binds at load: that
    # route checks a program without OpenMP, as the issue's `grep` did.)
    case $route in
        preload)
            case_mask_kept OMP_PROC_BIND=true
            case_mask_kept OMP_PLACES=threads OMP_PROC_BIND=spread ;;
        ldpath|rpath)
            case_ok OMP_PROC_BIND=true binding --inert 2
            case_ok OMP_PLACES=threads OMP_PROC_BIND=close binding --inert 2 4 ;;
    esac
    # Bad values: one warning each, and the program runs unbound.
    case_ok OMP_PLACES=junk BINDING_EXPECT=unbound binding 2
    case_ok OMP_PLACES='{99999}' BINDING_EXPECT=unbound binding 2
    case_ok GOMP_CPU_AFFINITY='x-y' BINDING_EXPECT=unbound binding 2
    local cpus last
    cpus=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //')
    last=$(grep -o '[0-9]*$' <<< "$cpus")
    if [ "$LITE_TEST_NPROCS" -ge 2 ] && [ -n "$last" ] && [ "$last" != 0 ]; then
        case_ok OMP_PLACES="{0},{$last}" BINDING_PLACES="{0},{$last}" binding
        case_ok GOMP_CPU_AFFINITY="$last 0" BINDING_PLACES="{$last},{0}" binding
        # Inside a narrower mask (taskset -c LAST): no thread leaves it, whatever the list names.
        case_ok GOMP_CPU_AFFINITY="0-$last" BINDING_PLACES="{$last}" binding --mask "$last" 2 4
        case_ok OMP_PLACES=threads BINDING_PLACES="{$last}" binding --mask "$last" 2
        case_ok OMP_PLACES="{0:$((last + 1))}" OMP_PROC_BIND=spread binding --mask "$last" 2
        case_ok OMP_PLACES="{0}" BINDING_EXPECT=unbound binding --mask "$last" 2
        case_ok BINDING_EXPECT=unbound binding --mask "$last" 2
    else
        case_skip "binding inside a narrower mask: needs two CPUs"
    fi
}

t_nested() {
    case_ok nested
    case_ok OMP_NESTED=true nested
    case_ok OMP_NESTED=false nested
    case_ok OMP_MAX_ACTIVE_LEVELS=2 nested
    case_ok OMP_NESTED=true OMP_MAX_ACTIVE_LEVELS=1 nested
    case_ok OMP_NUM_THREADS=3,2 nested
    case_ok OMP_NUM_THREADS=1 nested
    case_ok OMP_DYNAMIC=true nested
}

t_barrier() {
    case_ok barrier
    case_ok OMP_NUM_THREADS=3 barrier
}

t_single() {
    case_ok single
    case_ok OMP_NUM_THREADS=4 single
}

t_copyprivate() {
    case_ok copyprivate
    case_ok OMP_NUM_THREADS=3 copyprivate
}

t_critical() {
    case_ok critical
    case_ok OMP_NUM_THREADS=3 critical
}

t_atomic() {
    case_ok atomic
    case_ok OMP_NUM_THREADS=4 atomic
}

t_locks() {
    case_ok locks
    case_ok OMP_NUM_THREADS=4 locks
}

t_reduction() {
    case_ok reduction
    case_ok OMP_NUM_THREADS=3 reduction
}

t_threadprivate() {
    case_ok threadprivate
    case_ok OMP_NUM_THREADS=4 threadprivate
}

t_flush_handoff() {
    case_ok flush_handoff
    case_ok OMP_NUM_THREADS=4 flush_handoff
}

t_root_threads() {
    case_ok root_threads
}

# exit() from one user thread while the others run regions (issue 51: SIGSEGV once in 81 runs
# on the drop-in route): a loop of runs, since the crash was a race; ROOTS THREADS ROUNDS
# INSIDE vary who is where when exit comes (exit_user_threads.c). 48 runs here, a few seconds;
# the fix was checked with 1,000 by hand.
t_exit_user_threads() {
    local k args bad=0 runs=0
    for k in $(seq 12); do
        for args in "4 2 20 0" "4 2 0 0" "3 4 5 1" "8 2 1 0"; do
            case_run exit_user_threads $args
            runs=$((runs + 1))
            if [ "$CASE_RC" -ne 0 ]; then
                bad=$((bad + 1))
                case_fail "run $runs: $(rc_words "$CASE_RC")"
            fi
        done
    done
    CASE_DESC="exit_user_threads: $runs runs, $bad failed"
    cases_run=$((cases_run - runs + 1))
    [ $bad -eq 0 ] && case_pass
}

t_fork() {
    if lite_route; then
        case_ok fork
    else
        case_skip "fork: stock libgomp hangs in a forked child that starts a team (not fork-safe)"
    fi
}

# The same correctness checks with 4, 16 and 64 threads on this machine's 2 processors, through
# OMP_NUM_THREADS and through the num_threads clause; a few single-construct tests crowded too.
t_oversub() {
    local n
    for n in 4 16 64; do
        case_ok OMP_NUM_THREADS=$n oversub
        case_ok oversub $n
    done
    case_ok OMP_NUM_THREADS=16 critical
    case_ok OMP_NUM_THREADS=16 locks
    case_ok reduction 0 64
    case_ok copyprivate 0 16
    case_ok single 0 64
}

# A barrier-heavy program under both wait policies, with and without oversubscription.
t_wait_policy() {
    local p n
    for p in passive active; do
        for n in 2 4 16; do
            case_ok OMP_WAIT_POLICY=$p OMP_NUM_THREADS=$n barrier
        done
    done
}

# Wake ahead (issue 48): on by default, off by its switch, passive (never), and 4 threads (on 2
# CPUs: never). Each case checks every step and that the workers sleep through a long serial phase.
t_wake_ahead() {
    case_ok OMP_NUM_THREADS=2 wake_ahead
    # The load watch off, so that the members wake ahead even on a loaded machine (checked with a
    # window made 5 s long: this case failed, "workers used 1.000 s of CPU").
    case_ok OMP_NUM_THREADS=2 OMPLITE_LOAD_WATCH=false wake_ahead
    case_ok OMP_NUM_THREADS=2 OMPLITE_WAKE_AHEAD=false wake_ahead
    case_ok OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive wake_ahead
    case_ok OMP_NUM_THREADS=4 wake_ahead
}

t_cxx() {
    case_ok cxx_test
    case_ok OMP_NUM_THREADS=4 cxx_test
}

t_fortran() {
    case_ok fortran_test
    case_ok OMP_NUM_THREADS=3 fortran_test
}

# OMP_THREAD_LIMIT counts the threads of nested teams together; without it, every team gets what
# it asks for.
t_thread_limit() {
    case_ok thread_limit
    case_ok OMP_THREAD_LIMIT=6 thread_limit
    case_ok OMP_THREAD_LIMIT=3 thread_limit
    case_ok OMP_THREAD_LIMIT=6 OMP_NUM_THREADS=4 thread_limit
}

# The error directive prints libgomp's lines: a warning goes on, a fatal error exits with
# EXIT_FAILURE (not by a signal, as an abort would). From C (the message a C string) and from
# Fortran (the message with its length).
t_error_directive() {
    local warnings="libgomp: error directive encountered: hello from libomp-lite test
libgomp: error directive encountered"
    local fatal="libgomp: fatal error: error directive encountered: stop here"
    local prog
    for prog in error_directive error_directive_f; do
        case_exits 0 "$warnings" $prog warning
        case_exits 0 "$warnings" OMP_NUM_THREADS=4 $prog warning
        case_exits 1 "$fatal" $prog fatal
    done
}

# Explicit tasks (tasks.c; tasks_f.f90 from Fortran): every part in teams of 1 to 8 threads (8 on
# this machine's 2 processors), the cancellation part again with OMP_CANCELLATION=true, and the
# whole program so once, and again at 2 and 3 threads under OMP_WAIT_POLICY=passive. Two parts
# are cases of their own: idle (threads already waiting at a barrier run the tasks made after
# they arrived, as in libgomp), late_group (tasks made after the other threads reached the end
# of the region: a taskgroup's task depends on a task made before the group, which the waiting
# thread must run itself), late_help (tasks made then are shared with the threads waiting for
# the region to end), late_help_nested (the same in two inner teams at once, from nested pools)
# and all_memory (omp_all_memory as gcc 13 passes it, a null address:
# stock libgomp 12 takes that for an ordinary address), priority (a member's queued tasks run
# highest priority first; it needs OMP_MAX_TASK_PRIORITY), idle_memory (an idle team gives
# back the memory of the tasks its workers ran), and taskloop_grains (small grains over many
# iterations, also counted: far fewer tasks made than grains), yield (taskyield runs the
# yielding task's child, not its sibling).
t_tasks() {
    local n
    for n in 1 2 3 4 8; do
        case_ok OMP_NUM_THREADS=$n tasks
    done
    for n in 1 2 4 8; do
        case_ok OMP_CANCELLATION=true OMP_NUM_THREADS=$n tasks cancel
    done
    case_ok OMP_CANCELLATION=true OMP_NUM_THREADS=3 tasks
    for n in 2 8; do
        case_ok OMP_NUM_THREADS=$n tasks idle
    done
    for n in 1 2 4; do
        case_ok OMP_NUM_THREADS=$n tasks late_group
    done
    for n in 2 8; do
        case_ok OMP_NUM_THREADS=$n tasks late_help
        case_ok OMP_WAIT_POLICY=passive OMP_NUM_THREADS=$n tasks late_help
        case_ok OMP_NUM_THREADS=$n tasks late_help_nested
    done
    case_ok OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2 tasks late_help_nested
    for setting in OMP_NUM_THREADS=2 "OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2" \
                   "OMP_CANCELLATION=true OMP_NUM_THREADS=3"; do
        if lite_route; then
            case_ok $setting tasks detach_solo
        else
            case_skip "$setting tasks detach_solo: stock libgomp 12 never ends the region"
        fi
    done
    # Waiters that park at once: a taskwait sleeps on the queue while watching its own task.
    for n in 2 3; do
        case_ok OMP_WAIT_POLICY=passive OMP_NUM_THREADS=$n tasks
    done
    for n in 1 2 4 8; do
        if lite_route; then
            case_ok OMP_NUM_THREADS=$n tasks all_memory
        else
            case_skip "OMP_NUM_THREADS=$n tasks all_memory: stock libgomp 12 has no omp_all_memory"
        fi
    done
    for n in 1 3 8; do
        case_ok OMP_NUM_THREADS=$n tasks_f
    done
    # A member's queue runs the highest priority first (OMP_MAX_TASK_PRIORITY must allow 8).
    for n in 1 2 4; do
        case_ok OMP_MAX_TASK_PRIORITY=10 OMP_NUM_THREADS=$n tasks priority
    done
    # taskyield runs a ready descendant task (stock libgomp's runs none: the part never ends).
    if lite_route; then
        case_ok tasks yield
        case_ok OMP_WAIT_POLICY=passive tasks yield
    else
        case_skip "tasks yield: stock libgomp 12's taskyield runs no task"
    fi
    # Workers that ran others' tasks give the tasks' memory back once idle.
    case_ok tasks idle_memory
    case_ok OMP_WAIT_POLICY=passive tasks idle_memory
    # taskloop with small grains (issue 38): the contract over 2.3 million grains; and libomp-lite
    # makes far fewer tasks than grains (before: three task operations a grain, 7 million; now
    # about one range task a steal, under a thousand).
    for n in 1 2 4 8; do
        case_ok OMP_NUM_THREADS=$n tasks taskloop_grains
    done
    if lite_route; then
        for n in 2 8; do
            case_task_ops 20000 OMP_NUM_THREADS=$n tasks taskloop_grains
        done
    fi
}

# Target and teams on the host, there being no offload device: the same checks with 1, 2 and 4
# threads, a league size and a teams thread limit from the environment, OMP_TARGET_OFFLOAD and
# OMP_DEFAULT_DEVICE. Under OMP_TARGET_OFFLOAD=mandatory the initial device (the default one) is
# fine, but a construct for a device that does not exist stops the program, as in libgomp.
t_dlclose() {
    if lite_route; then
        case_ok dlclose
        case_ok OMP_WAIT_POLICY=active dlclose
        case_ok OMP_WAIT_POLICY=passive dlclose
        # The plugin's user is a pthread that outlives the dlclose (issue 26, item 1).
        case_ok DLCLOSE_USER_THREAD=1 dlclose
        case_ok DLCLOSE_USER_THREAD=1 OMP_WAIT_POLICY=passive dlclose
    else
        case_skip "dlclose: stock libgomp leaves its workers behind when it is unloaded (they crash)"
    fi
}

t_target() {
    local n mode
    for n in 1 2 4; do
        case_ok OMP_NUM_THREADS=$n target
    done
    case_ok OMP_NUM_THREADS=2 OMP_NUM_TEAMS=5 target
    case_ok OMP_NUM_THREADS=4 OMP_TEAMS_THREAD_LIMIT=2 target
    case_ok OMP_NUM_THREADS=2 OMP_TARGET_OFFLOAD=mandatory target
    case_ok OMP_NUM_THREADS=4 OMP_TARGET_OFFLOAD=mandatory OMP_DEFAULT_DEVICE=0 target
    case_ok OMP_NUM_THREADS=2 OMP_DEFAULT_DEVICE=7 target
    case_ok OMP_NUM_THREADS=2 OMP_TARGET_OFFLOAD=disabled target
    local stop='OMP_TARGET_OFFLOAD is set to MANDATORY'
    case_stops "$stop" OMP_TARGET_OFFLOAD=mandatory OMP_DEFAULT_DEVICE=7 target default
    for mode in device7 data7 enter7 update7; do
        case_stops "$stop" OMP_TARGET_OFFLOAD=mandatory target $mode
    done
}

# Allocators with the traits partition and pinned: where the pages are, what is locked, and
# the fallbacks of a pinned block that cannot be locked (the program drops CAP_IPC_LOCK and
# lowers RLIMIT_MEMLOCK itself). Stock libgomp 12 refuses pinned allocators: on its route only
# the placement runs (it ignores the partition, which a machine of one node cannot tell).
t_allocators() {
    local n
    for n in 1 3; do
        case_ok OMP_NUM_THREADS=$n allocators placement
    done
    if ! lite_route; then
        case_skip "allocators kinds, pinned, fallback, abort: stock libgomp 12 refuses pinned"
        return
    fi
    case_ok allocators kinds
    # ThreadSanitizer's runtime intercepts mlock and locks nothing (VmLck stayed 0, and a 1 MiB
    # mlock succeeded under a 64 kB limit): pinning cannot be seen under it (tests/tsan).
    if [ -n "${TSAN_OPTIONS:-}" ]; then
        case_skip "allocators pinned, fallback, abort: ThreadSanitizer's mlock locks nothing"
        return
    fi
    case_ok allocators pinned
    case_ok OMP_NUM_THREADS=2 allocators fallback
    # abort_fb: the runtime's fatal error (abort, as for its other fatal errors), one line that
    # says why.
    case_run allocators abort
    if [ "$CASE_RC" -ne 134 ]; then
        case_fail "$(rc_words "$CASE_RC"), expected SIGABRT (abort_fb)"
    elif [ "$(nonempty_lines "$CASE_ERR")" -ne 1 ] || ! grep -q 'cannot pin.*mlock' "$CASE_ERR"; then
        case_fail "stderr is not one line saying that the block cannot be pinned"
    else
        case_pass
    fi
}

# The affinity display routines (affinity_format.c): in teams of the default size and of 4; with
# affinity-format-var from OMP_AFFINITY_FORMAT; with threads bound to places (%A follows each
# thread's own mask, whoever set it); malformed
# formats stop the program with one line, as libgomp's do (its wording differs; both name the
# "affinity format"). OMP_DISPLAY_AFFINITY=false must print nothing of its own.
t_affinity_format() {
    case_ok affinity_format
    case_ok OMP_NUM_THREADS=4 affinity_format
    case_ok "OMP_AFFINITY_FORMAT=host %H pid %P tid %i cpus %.8A" affinity_format env
    case_ok "OMP_AFFINITY_FORMAT=%{thread_num}%%" OMP_DISPLAY_AFFINITY=false affinity_format env
    if lite_route; then
        case_ok OMP_PROC_BIND=true OMP_PLACES=threads OMP_NUM_THREADS=3 affinity_format
    else
        case_skip "OMP_PROC_BIND=true OMP_PLACES=threads affinity_format: stock libgomp's %A" \
            "shows a place, not the thread's mask (seen: 0 for a thread on CPU 1)"
    fi
    # Issue 37 item 6: a huge width is cut (one warning), never an abort or gigabytes on stderr.
    # Before: '%99999999999n' ended in "fatal: out of memory" and SIGABRT; '%.2000000000A' (a
    # width on the right: the grammar has no precision) wrote 2 GB a line. Stock libgomp writes
    # them all.
    if lite_route; then
        local huge
        for huge in '%99999999999n' '%.2000000000A' \
                '%0.99999999999999999999999{thread_num}|%.9999999999H'; do
            case_bounded 262144 'affinity format.*width' OMP_DISPLAY_AFFINITY=true \
                "OMP_AFFINITY_FORMAT=$huge" affinity_format display
        done
    else
        case_skip "affinity_format display with huge widths: stock libgomp writes gigabytes"
    fi
    local bad
    for bad in '%0n' '%.n' '%0.n' '%q' '%{bogus}' '%{thread_num'; do
        case_stops 'affinity format' affinity_format bad "$bad"
    done
    if lite_route; then
        case_stops 'affinity format' affinity_format bad '%'
    else
        case_skip "affinity_format bad %: stock libgomp names the type as a NUL byte"
    fi
}

# Lines of stderr that are not empty.
nonempty_lines() { grep -c -v '^[[:space:]]*$' "$1"; }

# case_bounded MAX_BYTES PATTERN [VAR=VALUE...] PROGRAM [ARG...]: the program must exit 0 with
# at most MAX_BYTES on stderr, of which one line is a libomp-lite warning matching PATTERN. It
# runs with soft limits of 1 GiB of address space and 1 MiB a file, so that a runtime that does
# not bound its text fails at once (out of memory, SIGXFSZ) instead of filling the machine's
# memory and disk. (Not the address space under ThreadSanitizer, whose shadow memory alone is
# terabytes of it.)
case_bounded() {
    local max=$1 pattern=$2 vmem fsize
    shift 2
    vmem=$(ulimit -S -v)
    fsize=$(ulimit -S -f)
    [ "${LITE_TEST_TSAN:-0}" = 1 ] || ulimit -S -v $((1024 * 1024))
    ulimit -S -f 1024
    case_run "$@"
    ulimit -S -f "$fsize"
    ulimit -S -v "$vmem"
    local size warnings
    size=$(wc -c < "$CASE_ERR")
    warnings=$(grep -c '^libomp-lite: warning' "$CASE_ERR")
    if [ "$CASE_RC" -ne 0 ]; then
        case_fail "$(rc_words "$CASE_RC")"
    elif [ "$size" -gt "$max" ]; then
        head -c 4096 "$CASE_ERR" > "$CASE_ERR.head" && mv "$CASE_ERR.head" "$CASE_ERR"
        case_fail "$size bytes on stderr, more than $max (the first 4096 below)"
    elif [ "$warnings" -ne 1 ] ||
         ! grep '^libomp-lite: warning' "$CASE_ERR" | grep -q -- "$pattern"; then
        case_fail "not one warning on stderr, matching '$pattern' ($warnings warnings)"
    else
        case_pass
    fi
}

# The OMP_DISPLAY_ENV blocks on stderr, each as one line with its lines joined by '|'.
display_blocks() {
    awk '/^OPENMP DISPLAY ENVIRONMENT BEGIN$/ { on = 1; b = "" }
         on { b = b $0 "|" }
         /^OPENMP DISPLAY ENVIRONMENT END$/ && on { print b; on = 0 }' "$1"
}

# OMP_DISPLAY_ENV prints the block on stderr (libgomp's format), with a line naming libomp-lite
# inside it; without it, a normal run prints nothing on stderr. On the preload route the stock
# libgomp is loaded too (the binary needs it) and its constructor prints a block of its own:
# there, the one block with LIBOMP_LITE_VERSION is checked and one other is allowed.
t_env_display() {
    local v
    for v in true TRUE verbose; do
        case_run OMP_DISPLAY_ENV=$v OMP_NUM_THREADS=3 env_probe
        local problem='' blocks block nblocks nlite
        if [ "$CASE_RC" -ne 0 ]; then
            problem=$(rc_words "$CASE_RC")
        else
            blocks=$(display_blocks "$CASE_ERR")
            nblocks=$(grep -c . <<< "$blocks")
            nlite=$(grep -c "|  LIBOMP_LITE_VERSION = '" <<< "$blocks")
            if lite_route; then
                block=$(grep "|  LIBOMP_LITE_VERSION = '" <<< "$blocks" | head -1)
            else
                block=$(head -1 <<< "$blocks")
            fi
            if [ "$nblocks" -eq 0 ]; then
                problem="no OPENMP DISPLAY ENVIRONMENT BEGIN ... END block on stderr"
            elif lite_route && [ "$nlite" -ne 1 ]; then
                problem="$nlite blocks with a LIBOMP_LITE_VERSION = '...' line, expected one"
            elif [ "$nblocks" -gt 1 ] && [ "$route" != preload ]; then
                problem="$nblocks blocks on stderr, expected one"
            elif [ "$nblocks" -gt 2 ]; then
                problem="$nblocks blocks on stderr, expected libomp-lite's and stock libgomp's"
            elif ! grep -q "|  _OPENMP = '[0-9]*'|" <<< "$block"; then
                problem="no _OPENMP = '...' line in the block"
            elif ! grep -q "|  OMP_NUM_THREADS = '3'|" <<< "$block"; then
                problem="no OMP_NUM_THREADS = '3' line in the block"
            elif ! grep -q "|  OMP_DYNAMIC = 'FALSE'|" <<< "$block"; then
                problem="no OMP_DYNAMIC = 'FALSE' line in the block"
            fi
        fi
        if [ -z "$problem" ]; then case_pass; else case_fail "$problem"; fi
    done
    for v in "" OMP_DISPLAY_ENV=false; do
        case_run $v env_probe
        if [ "$CASE_RC" -ne 0 ]; then
            case_fail "$(rc_words "$CASE_RC")"
        elif [ -s "$CASE_ERR" ]; then
            case_fail "a normal run wrote on stderr"
        else
            case_pass
        fi
    done
}

# A malformed or absurd value: the program runs correctly and stderr carries exactly one
# non-empty line, which names the variable. The cases marked lite-only are libomp-lite
# requirements that stock libgomp does not meet (it tries to start 100000 threads, or aborts).
# On the preload route the stock libgomp is loaded too and its constructor warns as well: its
# lines ("libgomp: ...") are left out there.
t_env_bad_values() {
    while read -r scope assignment args; do
        [ -n "$scope" ] || continue
        if [ "$scope" = lite-only ] && ! lite_route; then
            case_skip "$assignment env_probe: stock libgomp does not handle this value"
            continue
        fi
        local var=${assignment%%=*}
        case_run "$assignment" env_probe $args
        if [ "$route" = preload ]; then
            grep -v '^libgomp: ' "$CASE_ERR" > "$CASE_ERR.lite"
            mv "$CASE_ERR.lite" "$CASE_ERR"
        fi
        if [ "$CASE_RC" -ne 0 ]; then
            case_fail "$(rc_words "$CASE_RC")"
        elif [ "$(nonempty_lines "$CASE_ERR")" -ne 1 ]; then
            case_fail "expected exactly one warning line on stderr, got $(nonempty_lines "$CASE_ERR")"
        elif ! grep -q "$var" "$CASE_ERR"; then
            case_fail "the warning does not name $var"
        else
            case_pass
        fi
    done <<'EOF'
all OMP_NUM_THREADS=abc --default-max
all OMP_NUM_THREADS= --default-max
all OMP_NUM_THREADS=-3 --default-max
all OMP_NUM_THREADS=0 --default-max
all OMP_NUM_THREADS=4x --default-max
all OMP_NUM_THREADS=4,abc
lite-only OMP_NUM_THREADS=100000 --any-team
lite-only OMP_NUM_THREADS=3000000000 --any-team
all OMP_DYNAMIC=maybe --default-max
all OMP_NESTED=perhaps --default-max
all OMP_MAX_ACTIVE_LEVELS=abc --default-max
all OMP_SCHEDULE=bogus --default-max
all OMP_WAIT_POLICY=sometimes --default-max
all OMP_STACKSIZE=huge --default-max
all OMP_THREAD_LIMIT=abc --default-max
all OMP_PROC_BIND=sideways --default-max
all GOMP_SPINCOUNT=abc --default-max
lite-only OMPLITE_PROFILE= --default-max
lite-only OMPLITE_TRACE=1 --default-max
lite-only OMPLITE_TRACE_EVENTS=abc --default-max
EOF
}

# The heap under temporaries malloc'd and freed at every step (libomp-lite/heap.c): libomp-lite's
# thresholds keep the memory, at 2 and 4 threads; the opt-out, the user's own settings through
# glibc's variables and a mallopt of the program's own leave glibc trimming. On stock libgomp,
# glibc's own thresholds: the memory comes and goes (the churn of issue 25).
# tests/integration/loop_order.c: a thread's chunks of a plain dynamic, guided or runtime loop
# in increasing order (issue 46), at 2, 4 and 16 threads, and with OMPLITE_STEAL=off (the shared
# counter). OMPLITE_STEAL=free gives no such order (it fails there, by design).
t_loop_order() {
    case_ok OMP_NUM_THREADS=2 loop_order 4
    case_ok OMP_NUM_THREADS=4 loop_order 3
    case_ok OMP_NUM_THREADS=16 loop_order 2
    if lite_route; then
        case_ok OMPLITE_STEAL=off OMP_NUM_THREADS=3 loop_order 2
    fi
}

t_heap_churn() {
    # ThreadSanitizer's runtime brings its own allocator: glibc's thresholds govern nothing there
    # (libomp-lite does not set them under it); the loops' results are still checked.
    if [ -n "${TSAN_OPTIONS:-}" ]; then
        case_ok heap_churn any
        case_skip "heap_churn keep, churn: ThreadSanitizer's allocator is not glibc's malloc"
        return
    fi
    if lite_route; then
        case_ok heap_churn keep
        case_ok OMP_NUM_THREADS=4 heap_churn keep
        case_ok OMPLITE_HEAP_KEEP=false heap_churn churn
        case_ok OMPLITE_HEAP_KEEP=0 OMP_NUM_THREADS=3 heap_churn churn
        case_ok GLIBC_TUNABLES=glibc.malloc.trim_threshold=131072 heap_churn churn
        case_ok MALLOC_TRIM_THRESHOLD_=131072 heap_churn churn
        case_ok heap_churn churn mallopt
    else
        case_ok heap_churn churn
    fi
}

# ---- issue 26 (hardening) ----

# Busy processes beside a case: busy_start N starts N shell loops (their pids in busy_pids),
# busy_stop ends them.
busy_pids=
busy_start() {
    local i
    for ((i = 0; i < $1; i++)); do
        sh -c 'while :; do :; done' &
        busy_pids="$busy_pids $!"
    done
}
busy_stop() {
    local p
    for p in $busy_pids; do kill "$p" 2> /dev/null; wait "$p" 2> /dev/null; done
    busy_pids=
}

# case_warns_n N PATTERN [VAR=VALUE...] PROGRAM [ARG...]: the program must exit 0 with exactly N
# non-empty lines on stderr (the stock libgomp's own "libgomp: " lines left out on the preload
# route), one of which matches the grep pattern PATTERN. case_warns: N is 1.
case_warns_n() {
    local want=$1 pattern=$2
    shift 2
    case_run "$@"
    grep -v '^libgomp: ' "$CASE_ERR" | grep -v '^[[:space:]]*$' > "$CASE_ERR.lite"
    if [ "$CASE_RC" -ne 0 ]; then
        case_fail "$(rc_words "$CASE_RC")"
    elif [ "$(wc -l < "$CASE_ERR.lite")" -ne "$want" ]; then
        case_fail "expected $want warning line(s) on stderr, got $(wc -l < "$CASE_ERR.lite")"
    elif [ "$(grep -c -- "$pattern" "$CASE_ERR.lite")" -ne 1 ]; then
        case_fail "not one warning matches '$pattern'"
    else
        case_pass
    fi
}
case_warns() { case_warns_n 1 "$@"; }

# Sets CASE_OUTER (a command run before the route's environment is set: under LD_PRELOAD the
# wrapper itself would load libomp-lite) to a command that runs a program with at most $1 more threads than its user
# runs now (RLIMIT_NPROC, which the kernel does not apply to root: as root, the program runs
# as nobody). Returns 1, with the reason in LIMIT_WHY, where it cannot.
limit_threads() {
    LIMIT_WHY=
    if ! command -v prlimit > /dev/null; then LIMIT_WHY="prlimit is not installed"; return 1; fi
    local user=$(id -un) as=()
    if [ "$(id -u)" -eq 0 ]; then
        if ! command -v setpriv > /dev/null || ! id nobody > /dev/null 2>&1; then
            LIMIT_WHY="running as root, and setpriv or the user nobody is missing"; return 1
        fi
        as=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
        if ! "${as[@]}" test -r "$lib" -a -x "$builddir/tests/integration/harden"; then
            LIMIT_WHY="the user nobody cannot read the build"; return 1
        fi
        user=nobody
    fi
    local now
    now=$(ps -L -u "$user" --no-headers 2> /dev/null | wc -l)
    CASE_OUTER="${as[*]} prlimit --nproc=$((now + $1))"
}

t_harden() {
    if ! lite_route; then
        case_skip "harden: libomp-lite's own answers to bad input"
        return
    fi
    # Item 6: OMP_THREAD_LIMIT=0 names the value omp_get_thread_limit() returns.
    case_warns "OMP_THREAD_LIMIT.*2147483647" OMP_THREAD_LIMIT=0 harden regions 2 10
    # A valid kind with a bad chunk keeps the kind, with the default chunk (as libgomp).
    case_warns "OMP_SCHEDULE" OMP_SCHEDULE=guided,abc harden schedule guided 1
    case_warns "OMP_SCHEDULE" OMP_SCHEDULE=static,-2 harden schedule static 0
    case_ok OMP_SCHEDULE=guided,7 harden schedule guided 7
    # num_threads(-3): one warning, teams of nthreads-var.
    case_warns "num_threads(-3)" OMP_NUM_THREADS=3 harden negative
    # Item 3: threads that cannot be started (RLIMIT_NPROC): one warning, not one per region,
    # the right results with smaller teams; a nested level that cannot get its threads
    # shrinks (OMP_NUM_THREADS=2,5000 ended in "fatal: out of memory").
    if limit_threads 5; then
        case_warns "could not start thread" harden regions 8 2000
        case_warns_n 2 "could not start thread" OMP_NUM_THREADS=2,5000 harden nested 50
        CASE_OUTER=
    else
        echo "  SKIP  harden: no thread limit can be set here: $LIMIT_WHY"
    fi
    # Item 5: the spreading of oversubscribed teams never shows in a member's mask, nor undoes
    # a mask the user set (the load watch off: under foreign load the runtime moves no one).
    # Before: 41 looks in 500 regions found a one-CPU mask.
    case_ok OMPLITE_LOAD_WATCH=0 harden mask 200
    # Issue 37 item 9: 1,000 threads on 2 CPUs, a schedule(runtime) loop in each of 20 regions:
    # every member that ran out of work looked at every other member's range under its lock,
    # and a waiter for a lock whose holder had lost its CPU spun instead of yielding while the
    # load watch said overloaded: 22-40 s (libgomp 0.5 s), 0.3 s now.
    # (tests/unit/test_steal checks the first without timing.)
    if [ "${LITE_TEST_TSAN:-0}" = 1 ]; then
        case_ok harden runtime-loop 100 10
    else
        case_ok harden runtime-loop 1000 20
    fi
    # OMP_DYNAMIC=true while other processes hold every CPU: a team of one.
    busy_start "$LITE_TEST_NPROCS"
    case_ok OMP_DYNAMIC=true harden dynamic-busy
    # Item 4: 4,096 threads while other processes hold every CPU. The load watch's cost grew
    # with the square of the threads: 30 such regions took ~90 s (past the timeout) on 2 CPUs
    # beside 2 busy loops; ~6 s now.
    if [ "${LITE_TEST_TSAN:-0}" = 1 ]; then
        # 4,096 instrumented threads beside busy loops ran past 300 s (env_bad_values starts
        # 4,096 threads under ThreadSanitizer too, without them).
        case_skip "harden regions 4096 30: too heavy under ThreadSanitizer"
    else
        case_ok harden regions 4096 30
    fi
    busy_stop
    # Item 10: 256 threads beside 3 busy processes, the same loop: 4.6-7.1 s (libgomp 0.2).
    busy_start 3
    case_ok harden runtime-loop 256 20
    busy_stop
}

# The stress program (random nesting from 3 user threads, every result checked) at 2 and 16
# threads: a few seconds on a loaded 2-CPU machine. tests/tsan runs it too (ldpath route).
t_stress() {
    case_ok OMP_NUM_THREADS=2 stress 1000
    case_ok OMP_NUM_THREADS=16 stress 300
}

# Issue 41: the tree barrier (libomp-lite/barrier_tree.c), which a team uses when it spans
# several L3 caches or has more than 8 members on as many CPUs, forced with OMPLITE_BARRIER=tree
# on teams of 64 to 256 threads here (2 CPUs), spinning and parked: barriers, the join, single,
# reductions, worksharing and tasks (the task tests wait in barriers for tasks that wait for one
# another to start), nested teams under the stress program's user threads. Results are checked
# by each program.
t_many_cores() {
    local n sizes="64 256"
    [ "${LITE_TEST_TSAN:-0}" = 1 ] && sizes=64
    for n in $sizes; do
        case_ok OMPLITE_BARRIER=tree barrier 20 $n
        case_ok OMPLITE_BARRIER=tree single 20 $n
        case_ok OMPLITE_BARRIER=tree reduction 20 $n
    done
    case_ok OMPLITE_BARRIER=tree OMP_WAIT_POLICY=passive barrier 20 128
    if [ "${LITE_TEST_TSAN:-0}" = 1 ]; then
        case_ok OMPLITE_BARRIER=tree OMP_NUM_THREADS=64 stress 20
        case_ok OMPLITE_BARRIER=tree OMP_NUM_THREADS=32 tasks
    else
        case_ok OMPLITE_BARRIER=tree OMP_NUM_THREADS=128 stress 50
        case_ok OMPLITE_BARRIER=tree OMP_NUM_THREADS=256 stress 20
        case_ok OMPLITE_BARRIER=tree OMP_NUM_THREADS=64 tasks
        case_ok OMPLITE_BARRIER=tree OMP_WAIT_POLICY=passive OMP_NUM_THREADS=64 tasks
        # 256 tasks that wait for each other to start, one per member, on either barrier:
        # the throttle once ran one at once (every run deadlocked), and thieves once left
        # members asleep with tasks queued (1 run in 20).
        case_ok OMP_NUM_THREADS=256 tasks steal
        case_ok OMPLITE_BARRIER=tree OMP_NUM_THREADS=256 tasks steal
    fi
    # A bad value: one warning, the default.
    if lite_route; then
        case_warns "OMPLITE_BARRIER" OMPLITE_BARRIER=bogus barrier 5 4
    fi
}

# A few programs under valgrind memcheck: any error fails the run (a user who runs their own
# program under valgrind --error-exitcode must not see the runtime fail). Small sizes: each run
# takes seconds under valgrind.
CASE_WRAP=
CASE_OUTER=
t_memcheck() {
    if ! command -v valgrind > /dev/null; then
        echo "  SKIP  memcheck: valgrind is not installed (.ci/install-deps installs it)"
        return
    fi
    if ! lite_route; then
        case_skip "memcheck: libomp-lite's own check"
        return
    fi
    CASE_WRAP="valgrind -q --error-exitcode=42 --trace-children=no"
    # valgrind runs one thread at a time, 20-50 times slower: tasks took 15 s here, and more
    # than 60 s while the machine ran at a load of 80. A deadlock still fails, later.
    local saved_timeout=$timeout_s
    timeout_s=$((timeout_s * 5))
    case_ok OMP_NUM_THREADS=3 parallel_basics
    case_ok OMP_NUM_THREADS=3 nested
    case_ok OMP_NUM_THREADS=3 single
    case_ok OMP_NUM_THREADS=3 tasks
    case_ok OMP_NUM_THREADS=2 stress 100
    case_ok OMP_NUM_THREADS=16 stress 20
    timeout_s=$saved_timeout
    CASE_WRAP=
}

# ---- issue 28: OMPLITE_PROFILE and OMPLITE_TRACE ----

# profile_verdict ARGS...: the program run before must have exited 0, then profile_check.py ARGS
# must find nothing wrong with the files it wrote.
profile_verdict() {
    if [ "$CASE_RC" -ne 0 ]; then
        case_fail "$(rc_words "$CASE_RC")"
    elif ! python3 "$(dirname "$0")/profile_check.py" "$@" >> "$CASE_ERR" 2>&1; then
        case_fail "profile_check.py $1 found problems"
    else
        case_pass
    fi
}

# tests/integration/ompt_tasks.c: a tool's view of taskloop, task memory and taskyield (the
# program's own tool); libomp-lite only: stock libgomp has no OMPT.
t_ompt_tasks() {
    if ! lite_route; then
        case_skip "ompt_tasks: stock libgomp has no OMPT"
        return
    fi
    local n
    for n in 1 2 4; do
        case_ok OMP_NUM_THREADS=$n ompt_tasks
    done
    case_ok OMP_WAIT_POLICY=passive ompt_tasks
}

# tests/integration/task_locks.c (issues 50, 51): a task holding a lock, nest lock or critical
# that yields while its child wants the lock, or makes 50 children that take it; a chain of 10^5
# tasks that each make the next and yield. Each hung or crashed before (the program's alarm
# fails a hang after 30 s).
t_task_locks() {
    local n kind
    for n in 1 2 4 16; do
        for kind in lock nest critical; do
            case_ok OMP_NUM_THREADS=$n task_locks yield $kind
            case_ok OMP_NUM_THREADS=$n task_locks children $kind
        done
    done
    # 10^5 a member crashed at 1 and 2 threads before; shorter chains at 4 and 16 keep the test
    # fast (every link's descriptor lives until its chain ends: 50 MB a chain of 10^5).
    for n in 1 2; do
        case_ok OMP_NUM_THREADS=$n task_locks chain 100000
    done
    for n in 4 16; do
        case_ok OMP_NUM_THREADS=$n task_locks chain 20000
    done
    case_ok OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2 task_locks chain 20000
}

# tests/integration/profile.c: known shapes; the table's counts, the imbalance order, the
# trace's lanes, nesting and counts, a fork()ed child's own files, several root threads and a full
# trace buffer (profile_check.py says what each checks).
t_profile() {
    if ! lite_route; then
        case_skip "profile: libomp-lite's own OMPLITE_PROFILE"
        return
    fi
    if ! command -v python3 > /dev/null; then
        echo "  SKIP  profile: python3 is not installed"
        return
    fi
    local d=$tmp/profile n child
    mkdir -p "$d"
    # Up to 3 tries: on a loaded machine a member of the even loop may lose its CPU long enough
    # to make that loop look uneven; a wrong count or a wrong column fails every try.
    local try
    for n in 2 3; do
        for try in 1 2 3; do
            rm -f "$d"/*
            case_run OMP_NUM_THREADS=$n OMPLITE_PROFILE="$d/table" OMPLITE_TRACE="$d/trace.json" \
                profile shape
            if [ "$CASE_RC" -eq 0 ] && python3 "$(dirname "$0")/profile_check.py" shape "$n" \
                "$d/table" "$d/trace.json" "$LITE_TEST_NPROCS" > /dev/null 2>&1; then
                break
            fi
            [ "$try" -lt 3 ] && cases_run=$((cases_run - 1))
        done
        profile_verdict shape "$n" "$d/table" "$d/trace.json" "$LITE_TEST_NPROCS"
    done
    # With an OMPT tool attached too (the program's own): the tasks' rows are still there (before,
    # a tool's task path left them out), and the tool sees every task.
    rm -f "$d"/*
    case_run PROFILE_TOOL=1 OMP_NUM_THREADS=2 OMPLITE_PROFILE="$d/table" \
        OMPLITE_TRACE="$d/trace.json" profile shape
    cp "$CASE_OUT" "$d/out"
    profile_verdict tool "$d/table" "$d/trace.json" "$d/out"
    rm -f "$d"/*
    case_run OMP_NUM_THREADS=2 OMPLITE_TRACE="$d/trace.json" OMPLITE_TRACE_EVENTS=64 profile shape
    profile_verdict full 2 "$d/trace.json"
    rm -f "$d"/*
    # ThreadSanitizer cannot start threads in the child of a multi-threaded process.
    if [ "${LITE_TEST_TSAN:-0}" = 1 ]; then
        echo "  skip  profile fork: ThreadSanitizer cannot run a forked child's team"
    else
        case_run OMP_NUM_THREADS=2 OMPLITE_PROFILE="$d/table" OMPLITE_TRACE="$d/trace.json" \
            profile fork
        child=$(sed -n 's/^child //p' "$CASE_OUT")
        profile_verdict fork 2 "$d/table" "$d/trace.json" "${child:-none}"
    fi
    rm -f "$d"/*
    case_run OMPLITE_PROFILE="$d/table" OMPLITE_TRACE="$d/trace.json" profile roots 3
    profile_verdict roots 3 "$d/table" "$d/trace.json"
    # The table on stderr (OMPLITE_PROFILE=1): the header and the region's row are there.
    case_run OMP_NUM_THREADS=2 OMPLITE_PROFILE=1 profile roots 1
    if [ "$CASE_RC" -ne 0 ]; then
        case_fail "$(rc_words "$CASE_RC")"
    elif ! grep -q '^libomp-lite profile: ' "$CASE_ERR" ||
         ! grep -q ' parallel  site_roots+0x' "$CASE_ERR"; then
        case_fail "no profile table on stderr with a row for site_roots"
    else
        case_pass
    fi
}

# tests/integration/profile_edges.c: the shapes of other people's programs that showed the
# profile's rough edges (issue 40; profile_check.py edges says what it checks).
t_profile_edges() {
    if ! lite_route; then
        case_skip "profile_edges: libomp-lite's own OMPLITE_PROFILE"
        return
    fi
    if [ "${LITE_TEST_TSAN:-0}" = 1 ]; then
        # The instrumented programs end their functions with the sanitizer's exit hook, so gcc
        # makes none of the tail calls into the runtime these cases are about.
        case_skip "profile_edges: no tail calls in ThreadSanitizer's build"
        return
    fi
    if ! command -v python3 > /dev/null; then
        echo "  SKIP  profile_edges: python3 is not installed"
        return
    fi
    local d=$tmp/profile_edges n
    mkdir -p "$d"
    for n in 2 3; do
        rm -f "$d"/*
        case_run OMP_NUM_THREADS=$n OMPLITE_PROFILE="$d/table" profile_edges
        profile_verdict edges "$n" "$d/table"
    done
    # A program that starts many processes: one file each (%p), merged into one table.
    local merge=$(dirname "$0")/../../tools/omplite-profile-merge i
    rm -f "$d"/*
    for i in 1 2 3; do
        case_run OMP_NUM_THREADS=2 OMPLITE_PROFILE="$d/prof.%p" profile_edges
        [ "$CASE_RC" -eq 0 ] || break
    done
    if [ "$CASE_RC" -ne 0 ]; then
        case_fail "$(rc_words "$CASE_RC")"
    elif [ "$(ls "$d"/prof.* | wc -l)" -ne 3 ]; then
        case_fail "not 3 files from OMPLITE_PROFILE=$d/prof.%p: $(ls "$d")"
    elif ! python3 "$merge" "$d"/prof.* > "$d/merged" 2>> "$CASE_ERR"; then
        case_fail "omplite-profile-merge failed"
    else
        profile_verdict merge "$d/merged" "$d"/prof.*
    fi
    # The tables on stderr, between the program's own output: they say how to get a file per
    # process, and the merge finds them in the log.
    : > "$d/log"
    for i in 1 2; do
        case_run OMP_NUM_THREADS=3 OMPLITE_PROFILE=1 profile_edges
        { echo "a line of the program's"; cat "$CASE_ERR"; echo "normal termination"; } >> "$d/log"
    done
    if [ "$CASE_RC" -ne 0 ]; then
        case_fail "$(rc_words "$CASE_RC")"
    elif ! grep -q 'OMPLITE_PROFILE=/path/prof.%p' "$CASE_ERR" ||
         ! grep -q 'omplite-profile-merge' "$CASE_ERR"; then
        case_fail "the table on stderr does not say how to write one file per process and merge"
    elif ! python3 "$merge" "$d/log" > "$d/merged" 2>> "$CASE_ERR"; then
        case_fail "omplite-profile-merge failed on the log"
    else
        profile_verdict merged "$d/merged" 2 3
    fi
    # Without exported symbols (no -rdynamic), the symbol table names the sites; stripped, the
    # table says how to get them named. Built against the system libgomp only.
    if [ "$route" = rpath ]; then
        case_skip "profile_edges_nodyn, profile_edges_stripped: not built for the rpath route"
        return
    fi
    rm -f "$d"/*
    case_run OMP_NUM_THREADS=2 OMPLITE_PROFILE="$d/table" profile_edges_nodyn
    profile_verdict symtab 2 "$d/table" profile_edges_nodyn
    rm -f "$d"/*
    case_run OMP_NUM_THREADS=2 OMPLITE_PROFILE="$d/table" profile_edges_stripped
    if [ "$CASE_RC" -ne 0 ]; then
        case_fail "$(rc_words "$CASE_RC")"
    elif ! grep -q '^ *[0-9.]* .* parallel  0x[0-9a-f]* (profile_edges_stripped)$' "$d/table" ||
         ! grep -q '^(.*tools/omplite-profile-lines' "$d/table"; then
        case_fail "stripped: no unnamed site, or no footer naming omplite-profile-lines"
    else
        profile_verdict stripped "$d/table" profile_edges_stripped
    fi
}

# ---- issue 37: the profile's files ----

# profile_refuses PATTERN FILE [VAR=VALUE...] PROGRAM [ARG...]: the run must exit 0, leave FILE
# holding "precious" as before (FILE -: not checked), warn once, in a line matching PATTERN, and
# write the table, refused its file, on stderr.
profile_refuses() {
    local pattern=$1 file=$2
    shift 2
    case_run "$@"
    if [ "$CASE_RC" -ne 0 ]; then
        case_fail "$(rc_words "$CASE_RC")"
    elif [ "$file" != - ] && [ "$(cat "$file" 2> /dev/null)" != precious ]; then
        case_fail "$file was written into"
    elif [ "$(grep -c '^libomp-lite: warning: ' "$CASE_ERR")" -ne 1 ] ||
         ! grep -q -- "$pattern" "$CASE_ERR"; then
        case_fail "not one warning, matching '$pattern'"
    elif ! grep -q '^libomp-lite profile: ' "$CASE_ERR"; then
        case_fail "no table on stderr"
    else
        case_pass
    fi
}

# How the cases below run a command as another user (root only).
as_nobody=(setpriv --reuid=nobody --regid="$(id -g nobody 2> /dev/null)" --clear-groups)

# The files OMPLITE_PROFILE and OMPLITE_TRACE name, as a program running as root in /tmp must
# treat them (profile/output.c): no symbolic link followed, another user's file (or a second name
# of one's own) not written into, a new file not writable by others, a name too long refused
# rather than cut, write errors told; and in a setuid program no file named at all (env.c). On
# the rpath route only: a setuid program ignores LD_PRELOAD and LD_LIBRARY_PATH, and the other
# cases do not depend on how the library is found.
t_profile_files() {
    if [ "$route" != rpath ]; then
        case_skip "profile_files: on the rpath route only (a setuid program's route)"
        return
    fi
    local p=$tmp/profile_files root=0
    mkdir -p "$p"
    # Each case that names $p/target writes it afresh first: a case that wrote into it must not
    # fail the next.
    [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null && id nobody > /dev/null 2>&1 && root=1
    # Item 1. A symbolic link, planted by another user in a sticky folder everyone may write to
    # (where the kernel's fs.protected_symlinks, when on, refuses to follow it for root anyway),
    # and one of the caller's own in its own folder: neither is followed.
    if [ "$root" = 1 ]; then
        open_tmp=$(mktemp -d "${TMPDIR:-/tmp}/lite-open.XXXXXX") && chmod 1777 "$open_tmp"
        "${as_nobody[@]}" ln -s "$p/target" "$open_tmp/prof.txt"
        echo precious > "$p/target"
        profile_refuses "symbolic link" "$p/target" OMPLITE_PROFILE="$open_tmp/prof.txt" \
            profile roots 1
        "${as_nobody[@]}" sh -c "echo precious > '$open_tmp/theirs'"
        profile_refuses "'$open_tmp/theirs'" "$open_tmp/theirs" OMPLITE_PROFILE="$open_tmp/theirs" \
            profile roots 1
        # Out of /tmp (where fs.protected_regular may refuse the open already): a file that
        # belongs to another user is not written into.
        echo precious > "$p/theirs" && chown nobody "$p/theirs"
        profile_refuses "belongs to another user" "$p/theirs" OMPLITE_PROFILE="$p/theirs" \
            profile roots 1
    else
        case_skip "profile_files: another user's link and file need root (and setpriv, nobody)"
    fi
    ln -s "$p/target" "$p/link"
    echo precious > "$p/target"
    profile_refuses "symbolic link" "$p/target" OMPLITE_PROFILE="$p/link" profile roots 1
    # A second name of a file: a hard link planted in /tmp has the owner of the file it names.
    ln "$p/target" "$p/hard"
    echo precious > "$p/target"
    profile_refuses "hard links" "$p/target" OMPLITE_PROFILE="$p/hard" profile roots 1
    # A FIFO: refused, not waited on for a reader until the timeout.
    mkfifo "$p/fifo"
    profile_refuses "not a regular file" - OMPLITE_PROFILE="$p/fifo" profile roots 1
    # A new file: 0644 under a umask of 0, not stdio's 0666.
    local saved_umask
    saved_umask=$(umask)
    umask 000
    case_run OMPLITE_PROFILE="$p/new" profile roots 1
    umask "$saved_umask"
    if [ "$CASE_RC" -ne 0 ]; then
        case_fail "$(rc_words "$CASE_RC")"
    elif [ "$(stat -c %a "$p/new")" != 644 ]; then
        case_fail "the new file's mode is $(stat -c %a "$p/new"), not 644"
    elif ! grep -q '^libomp-lite profile: ' "$p/new"; then
        case_fail "no table in $p/new"
    else
        case_pass
    fi
    # Item 3. A name of 4,107 bytes whose first 4,095 name an existing file: it was cut to those
    # and the file overwritten; refused now.
    local d=$p/long f
    while [ $((4095 - ${#d} - 201 - 1)) -ge 20 ]; do d=$d/$(printf 'd%.0s' {1..200}); done
    f=$d/$(printf 'f%.0s' $(seq $((4095 - ${#d} - 1))))
    mkdir -p "$d" && echo precious > "$f"
    profile_refuses "name is too long" "$f" OMPLITE_PROFILE="${f}xxxxxxxxxxxx" profile roots 1
    rm -rf "$p/long"
    # Item 4. Write errors: a full device, and a file size limit (SIGXFSZ ignored, as under
    # python; with it, the kernel ends the program, which is not silent either).
    case_warns_n 2 "OMPLITE_PROFILE: error writing '/dev/full': No space left" \
        OMPLITE_PROFILE=/dev/full OMPLITE_TRACE=/dev/full profile roots 1
    if command -v prlimit > /dev/null; then
        trap '' XFSZ
        CASE_OUTER="prlimit --fsize=512"
        case_warns "OMPLITE_PROFILE: error writing '$p/cut': File too large" \
            OMPLITE_PROFILE="$p/cut" profile roots 1
        CASE_OUTER=
        trap - XFSZ
    else
        case_skip "profile_files: a file size limit needs prlimit"
    fi
    # Item 2. A setuid-root program run by another user: the files it names are ignored, with
    # one warning (before, it overwrote the root-only file named). A copy of the program, where
    # nobody reaches it; skipped where the setuid bit has no effect (a nosuid mount).
    if [ "$root" = 1 ]; then
        local prog=$builddir/tests/integration/rpath/profile suid=$open_tmp/suid/profile out
        mkdir -m 755 "$open_tmp/suid" && cp "$prog" "$suid" && chmod 4755 "$suid"
        if ! "${as_nobody[@]}" test -r "$lib" -a -x "$suid"; then
            case_skip "profile_files: setuid: the user nobody cannot read the build"
        elif out=$("${as_nobody[@]}" env LITE_CHECK=only "$suid" setuid 2> /dev/null) &&
             [ "$out" = "secure 0" ]; then
            case_skip "profile_files: setuid: the bit has no effect in $open_tmp (nosuid?)"
        else
            echo precious > "$p/target"
            cases_run=$((cases_run + 1))
            CASE_DESC="OMPLITE_PROFILE=$p/target OMPLITE_TRACE=$p/trace.json profile setuid"
            CASE_DESC="$CASE_DESC (setuid root, run by nobody)"
            timeout -k 5 "$timeout_s" "${as_nobody[@]}" env LITE_CHECK=only \
                OMPLITE_PROFILE="$p/target" OMPLITE_TRACE="$p/trace.json" "$suid" setuid \
                > "$CASE_OUT" 2> "$CASE_ERR" < /dev/null
            CASE_RC=$?
            if [ "$CASE_RC" -ne 0 ]; then
                case_fail "$(rc_words "$CASE_RC")"
            elif [ "$(cat "$p/target")" != precious ] || [ -e "$p/trace.json" ]; then
                case_fail "the root-only files named were written"
            elif [ "$(grep -c -v '^[[:space:]]*$' "$CASE_ERR")" -ne 1 ] ||
                 ! grep -q "OMPLITE_PROFILE, OMPLITE_TRACE ignored: a setuid" "$CASE_ERR"; then
                case_fail "not one warning that both variables are ignored"
            else
                case_pass
            fi
        fi
    else
        case_skip "profile_files: a setuid program needs root (and setpriv, nobody)"
    fi
    rm -rf "$p"
    [ -n "$open_tmp" ] && rm -rf "$open_tmp"
    open_tmp=
}

# case_sandboxed MIN MAX PATTERN [VAR=VALUE...] seccomp_affinity ARG...: the program must exit 0
# and say ok (or that the kernel has no seccomp filters: then the case is skipped); between MIN
# and MAX lines of its stderr match PATTERN, and every other non-empty line is an
# OMP_DISPLAY_AFFINITY line ("AFF ...", the cases' format), of which a run with
# OMP_DISPLAY_AFFINITY=true must print some.
case_sandboxed() {
    local min=$1 max=$2 pattern=$3
    shift 3
    case_run "$@"
    local warned others shown
    warned=$(grep -c -- "$pattern" "$CASE_ERR")
    # The stock libgomp that a preloaded program also loads may speak for itself ("libgomp: ").
    others=$(grep -v -- "$pattern" "$CASE_ERR" | grep -v -e '^AFF ' -e '^libgomp: ' |
             grep -c -v '^[[:space:]]*$')
    shown=$(grep -c '^AFF ' "$CASE_ERR")
    if grep -q '^seccomp unavailable' "$CASE_OUT"; then
        case_skip "$CASE_DESC: $(cat "$CASE_OUT")"
    elif [ "$CASE_RC" -ne 0 ]; then
        case_fail "$(rc_words "$CASE_RC")"
    elif ! grep -q '^seccomp_affinity: ok' "$CASE_OUT"; then
        case_fail "the program did not say ok"
    elif [ "$warned" -lt "$min" ] || [ "$warned" -gt "$max" ]; then
        case_fail "$warned warning(s) match '$pattern', expected $min to $max"
    elif [ "$others" -ne 0 ]; then
        case_fail "$others other line(s) on stderr"
    elif [[ " $* " == *" OMP_DISPLAY_AFFINITY=true "* ]] && [ "$shown" -eq 0 ]; then
        case_fail "OMP_DISPLAY_AFFINITY=true printed no line"
    else
        case_pass
    fi
}

# Issues 50 and 51: the affinity and NUMA system calls refused by a seccomp filter that the
# program installs before its first OpenMP call (with --exec, before it is even loaded: the
# program runs itself again under the filter). Before, libhwloc retried the refused
# sched_getaffinity for ever when the topology was loaded (binding, or the stealing order of
# a team of 3 or more), and the team waited on it. Now: one warning, an unbound run, places
# that agree with each other, the display still printed. Unbound, only a team that steals
# loads the topology, so the warning may not come.
t_seccomp_affinity() {
    local e n="1 2 4 16" refused="affinity system calls are refused"
    # The warnings are libomp-lite's (stock libgomp, bound, exits: "Thread creation failed");
    # no rpath copy is built: the routes differ only in how the library is found.
    case $route in
        stock|rpath) case_skip "seccomp_affinity: preload and ldpath routes only"; return ;;
    esac
    local bind=(OMP_PROC_BIND=true OMP_PLACES=cores)
    local show=(OMP_DISPLAY_AFFINITY=true "OMP_AFFINITY_FORMAT=AFF %n %A")
    for e in EPERM ENOSYS; do
        case_sandboxed 0 1 "$refused" seccomp_affinity affinity $e $n
        case_sandboxed 1 1 "$refused" "${bind[@]}" seccomp_affinity affinity $e $n
        case_sandboxed 0 1 "$refused" "${show[@]}" seccomp_affinity affinity $e $n
        case_sandboxed 1 1 "$refused" "${bind[@]}" "${show[@]}" seccomp_affinity affinity $e $n
        case_sandboxed 1 1 "$refused" OMP_PROC_BIND=spread OMP_PLACES=threads \
            seccomp_affinity affinity $e --exec $n
        case_sandboxed 1 1 "could not be bound" "${bind[@]}" "${show[@]}" \
            seccomp_affinity setaffinity $e $n
        case_sandboxed 1 1 "NUMA memory placement" seccomp_affinity numa $e $n
        case_sandboxed 1 1 "NUMA memory placement" "${bind[@]}" seccomp_affinity numa $e --exec $n
    done
    case_sandboxed 1 1 "$refused" "${bind[@]}" seccomp_affinity affinity EINVAL 4
}

# ---- main ----
overall=0
for t in $tests; do
    if ! declare -F "t_$t" > /dev/null; then
        echo "run-routes.sh: unknown test '$t' (--list shows them)" >&2
        exit 99
    fi
    cases_run=0
    cases_failed=0
    echo "$t [$route]:"
    "t_$t"
    if [ "$cases_failed" -eq 0 ]; then
        echo "PASS: $t [$route] ($cases_run runs)"
    else
        echo "FAIL: $t [$route] ($cases_failed of $cases_run runs failed)"
        overall=1
    fi
done
exit $overall
