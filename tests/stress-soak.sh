#!/bin/bash
# stress-soak.sh: RSS and thread count over a long run of the stress program
# (tests/integration/stress.c: random nesting from 3 user threads, every result checked) on
# libomp-lite through LD_PRELOAD. Not part of make check: it runs for minutes.
#
# usage: tests/stress-soak.sh [--builddir DIR] [SECONDS [NTHREADS]]   (default 600 s, 16 threads)
#
# Samples VmRSS and Threads from /proc every SECONDS/60 s. The first quarter of the run is the
# warm-up (pools and heap grow to what the random nesting asks for); after it, the RSS must stay
# within 10 % + 4 MiB of the largest warm-up sample, and the thread count never pass what the
# pools can hold: each of the 3 user threads leads a top team of up to NTHREADS, each member a
# level-2 pool of up to 3 workers, each of those 4 members a level-3 pool of up to 3, so
# 16 * NTHREADS per user thread, plus the main thread (a rare nesting may reach it late: 768
# then 769 threads at 16). The program must exit 0 (its results checked).
set -u
builddir=$(pwd)
if [ "${1:-}" = --builddir ]; then builddir=$2; shift 2; fi
seconds=${1:-600}
nthreads=${2:-16}
bin=$builddir/tests/integration/stress
lib=$builddir/.libs/libomp-lite.so.0
[ -x "$bin" ] && [ -e "$lib" ] || { echo "stress-soak: build first (make check TESTS=)"; exit 99; }
period=$(awk "BEGIN { p = $seconds / 60; print (p < 1 ? 1 : p) }")

LD_PRELOAD=$lib OMP_NUM_THREADS=$nthreads STRESS_SECONDS=$seconds "$bin" 0 > /tmp/stress-soak.$$ 2>&1 &
pid=$!
samples=()
while kill -0 "$pid" 2> /dev/null; do
    line=$(awk '/^VmRSS:/ { r = $2 } /^Threads:/ { t = $2 } END { if (r) print r, t }' \
        "/proc/$pid/status" 2> /dev/null)
    [ -n "$line" ] && samples+=("$line")
    sleep "$period"
done
wait "$pid"
rc=$?
cat /tmp/stress-soak.$$
rm -f /tmp/stress-soak.$$
n=${#samples[@]}
if [ "$rc" -ne 0 ] || [ "$n" -lt 8 ]; then
    echo "stress-soak: FAIL: the program exited with status $rc after $n samples"
    exit 1
fi
warm=$((n / 4))
bound=$((1 + 3 * 16 * nthreads))
printf '%s\n' "${samples[@]}" | awk -v warm="$warm" -v secs="$seconds" -v nt="$nthreads" \
    -v bound="$bound" '
    NR <= warm { if ($1 > wr) wr = $1; if ($2 > wt) wt = $2; next }
    { if ($1 > lr) lr = $1; if ($2 > lt) lt = $2; if (!fr) fr = $1; last = $1 }
    END {
        printf "stress-soak: %d s at %d threads, %d samples: warm-up max RSS %d KiB, %d threads; " \
               "after: RSS %d..%d KiB (last %d), max %d threads\n", secs, nt, NR, wr, wt, fr, lr, \
               last, lt
        if (lr > wr * 1.1 + 4096) { print "stress-soak: FAIL: the RSS grew"; exit 1 }
        if (lt > bound) { printf "stress-soak: FAIL: %d threads, more than the pools hold (%d)\n", lt, bound; exit 1 }
        print "stress-soak: PASS"
    }'
