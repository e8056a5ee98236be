#!/bin/sh
# omplite_cmd.sh: the `omplite` command (tools/omplite.in), each subcommand on a small OpenMP
# program built here by the stock gcc (tests/tools/omplite_prog.c):
#   run      the program, and a child of a shell, bind omp_* to libomp-lite;
#   compare  -n 2 of a deterministic program: a row per runtime (3 with LLVM's libomp installed)
#            and "outputs identical"; a program whose output differs between runs, and one that
#            prints which runtime it bound to, are reported as differing (exit 1); --json parses
#            (python3); numpy's matrix product gives three rows and "outputs identical" (skipped
#            without numpy);
#   profile  a merged table; trace  a timeline file;
#   doctor   an OpenMP binary (libgomp.so.1), /bin/true (not OpenMP), a statically linked one
#            (skipped where gcc cannot link -static), a renamed libgomp-HASH.so.1 with an rpath;
#   bad input for each subcommand: one message on stderr and a non-zero exit.
# No timing is asserted. usage: omplite_cmd.sh [--builddir DIR] [--srcdir DIR]
# Exit status: 0 pass, 1 fail, 77 skip (no gcc -fopenmp), 99 hard error.
set -u
builddir=. srcdir=
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=$2; shift 2 ;;
        --srcdir) srcdir=$2; shift 2 ;;
        *) echo "usage: $0 [--builddir DIR] [--srcdir DIR]" >&2; exit 99 ;;
    esac
done
builddir=$(cd "$builddir" && pwd)
[ -n "$srcdir" ] || srcdir=$(cd "$(dirname "$0")/../.." && pwd)
omplite=$builddir/tools/omplite
[ -x "$omplite" ] && [ -x "$builddir/tools/omplite-measure" ] || { echo "build tools/omplite first" >&2; exit 99; }
unset OMPLITE_LIB OMPLITE_DROPIN OMPLITE_LLVM_LIB OMPLITE_PROFILE OMPLITE_TRACE OMP_NUM_THREADS LD_PRELOAD
work=$builddir/tests/tools/omplite-work
rm -rf "$work" && mkdir -p "$work" || exit 99
cd "$work" || exit 99
prog=$work/omplite_prog
gcc -fopenmp -O1 -o "$prog" "$srcdir/tests/tools/omplite_prog.c" -ldl 2> gcc.log ||
    { echo "SKIP: gcc -fopenmp cannot build the test program"; cat gcc.log; exit 77; }
to=; command -v timeout >/dev/null 2>&1 && to="timeout 300"

fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# expect_in FILE TEXT WHAT
expect_in() { if grep -q -e "$2" "$1"; then pass "$3"; else fail "$3 (no '$2' in:)"; sed 's/^/    /' "$1"; fi; }

# ---- run -------------------------------------------------------------------------------------
$to "$omplite" run "$prog" where > run.out 2>&1
expect_in run.out "runtime .*libomp-lite" "run: omp_* bound to libomp-lite"
$to "$omplite" run -- sh -c "'$prog' where" > run2.out 2>&1
expect_in run2.out "runtime .*libomp-lite" "run: a child of a shell bound to libomp-lite"
"$prog" where > stock.out 2>&1
if grep -q "omp-lite" stock.out; then fail "the stock run already used libomp-lite: the environment is not clean"; fi

# ---- bad input: one message, non-zero exit -------------------------------------------------------
printf 'x\n' > notexec; chmod -x notexec
bad() {  # bad WHAT ARGS...
    what=$1; shift
    $to "$omplite" "$@" > bad.out 2> bad.err < /dev/null
    rc=$?
    lines=$(wc -l < bad.err | tr -d ' ')
    if [ "$rc" -ne 0 ] && [ "$lines" = 1 ] && [ ! -s bad.out ] && grep -q '^omplite: ' bad.err; then
        pass "bad input: $what (status $rc: $(cat bad.err))"
    else
        fail "bad input: $what: status $rc, $lines line(s) on stderr:"; sed 's/^/    /' bad.err bad.out
    fi
}
for sub in run compare profile trace; do
    bad "$sub with no command" $sub
    bad "$sub with an unknown option" $sub --bogus "$prog"
    bad "$sub of a non-executable file" $sub ./notexec
    bad "$sub of a command not found" $sub omplite-no-such-command-here
done
bad "doctor with an unknown option" doctor --bogus
bad "doctor of a command not found" doctor omplite-no-such-command-here
bad "doctor of a non-executable file" doctor ./notexec
bad "an unknown subcommand" bogus
bad "compare -n 0" compare -n 0 "$prog"
bad "compare --threads x" compare --threads x "$prog"
bad "profile -o a missing folder" profile -o ./no-such-dir "$prog"

# ---- compare ---------------------------------------------------------------------------------
llvm=no
for f in /usr/lib/llvm-*/lib/libomp.so.5 /usr/lib/x86_64-linux-gnu/libomp.so.5; do [ -f "$f" ] && llvm=yes; done
rows=2; [ "$llvm" = yes ] && rows=3
$to "$omplite" compare -n 2 --threads 2 -- "$prog" sum > cmp.out 2> cmp.err
rc=$?
n=$(grep -c -E '^(libgomp|llvm|libomp-lite) +[0-9]' cmp.out)
if [ "$rc" = 0 ] && [ "$n" = "$rows" ]; then pass "compare: $n rows (LLVM's libomp installed: $llvm)"
else fail "compare: status $rc, $n rows, $rows expected:"; sed 's/^/    /' cmp.out cmp.err; fi
expect_in cmp.out "^outputs identical" "compare: a deterministic program's outputs identical"

$to "$omplite" compare -n 2 -- "$prog" racy > racy.out 2> racy.err
rc=$?
if [ "$rc" = 1 ] && grep -q '^outputs differ' racy.out; then pass "compare: a program whose output differs between runs is reported"
else fail "compare racy: status $rc:"; sed 's/^/    /' racy.out racy.err; fi

$to "$omplite" compare -n 1 -- "$prog" where > where.out 2> where.err
rc=$?
if [ "$rc" = 1 ] && grep -q 'libomp-lite run 1: stdout' where.out; then pass "compare: the libomp-lite route ran another runtime than the stock route"
else fail "compare where: status $rc:"; sed 's/^/    /' where.out where.err; fi

# --output files: the same content every run, then a file that changes every run
$to "$omplite" compare -n 2 --output out.txt -- sh -c "'$prog' sum > out.txt" > outf.out 2>&1
expect_in outf.out "^outputs identical.*--output" "compare --output: the same file in every run"
$to "$omplite" compare -n 1 --output out.txt -- sh -c "'$prog' racy > out.txt" > outf2.out 2>&1
expect_in outf2.out "run 1: --output files" "compare --output: a file that differs is reported"

if command -v python3 >/dev/null 2>&1; then
    $to "$omplite" compare -n 1 --json -- "$prog" sum > cmp.json 2> cmp.err
    if python3 -m json.tool < cmp.json > /dev/null 2>&1 && grep -q '"outputs_identical": true' cmp.json &&
       [ "$(grep -c '"name": ' cmp.json)" = "$rows" ]; then
        pass "compare --json: parses, $rows runtimes, outputs identical"
    else fail "compare --json:"; sed 's/^/    /' cmp.json cmp.err; fi
else
    echo "SKIP: compare --json (no python3)"
fi

# numpy with OpenBLAS's OpenMP build: the issue's own example (integer-valued matrices, so the
# checksum is exact whatever the order of the sums).
py=
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy' > /dev/null 2>&1; then py=$(command -v "$p"); break; fi
done
if [ -n "$py" ]; then
    $to "$omplite" compare -n 1 -- "$py" -c 'import numpy as np; a = np.arange(90000, dtype=float).reshape(300, 300) % 7; print(round(float((a @ a).sum())))' > np.out 2> np.err
    rc=$?
    n=$(grep -c -E '^(libgomp|llvm|libomp-lite) +[0-9]' np.out)
    if [ "$rc" = 0 ] && [ "$n" = "$rows" ] && grep -q '^outputs identical' np.out; then pass "compare: numpy matmul, $n rows, outputs identical"
    else fail "compare numpy: status $rc, $n rows:"; sed 's/^/    /' np.out np.err; fi
else
    echo "SKIP: compare on numpy (no python3 with numpy)"
fi

# ---- profile and trace -------------------------------------------------------------------------
mkdir prof
$to "$omplite" profile -o prof -- "$prog" sum > prof.out 2> prof.err
rc=$?
if command -v python3 >/dev/null 2>&1; then
    merged=$(ls prof/omplite-profile-*.txt 2>/dev/null | head -n1)
    if [ "$rc" = 0 ] && [ -n "$merged" ] && grep -q 'libomp-lite profile' "$merged" && grep -q "$merged" prof.err; then
        pass "profile: the merged table $merged, and its path printed"
    else fail "profile: status $rc:"; ls prof; sed 's/^/    /' prof.out prof.err; fi
else
    if [ "$rc" = 0 ] && ls prof/omplite-profile-* > /dev/null 2>&1; then pass "profile: the tables written (no python3 to merge)"
    else fail "profile: status $rc"; fi
fi
mkdir trace
$to "$omplite" trace -o trace -- sh -c "'$prog' sum; '$prog' sum" > trace.out 2> trace.err
rc=$?
n=$(ls trace/omplite-trace-*.json 2>/dev/null | wc -l)
if [ "$rc" = 0 ] && [ "$n" = 2 ] && grep -q 'perfetto' trace.err; then pass "trace: a timeline per process (2)"
else fail "trace: status $rc, $n files:"; sed 's/^/    /' trace.out trace.err; fi
$to "$omplite" profile -o prof -- /bin/true > none.out 2> none.err
expect_in none.err "no file written" "profile of a program that runs no OpenMP says so"

# ---- doctor ----------------------------------------------------------------------------------
if command -v readelf >/dev/null 2>&1 && command -v nm >/dev/null 2>&1; then
    $to "$omplite" doctor "$prog" > doc.out 2>&1
    expect_in doc.out "libgomp.so.1" "doctor: an OpenMP binary links libgomp.so.1"
    expect_in doc.out "^== machine" "doctor: the machine"
    expect_in doc.out "LIBOMP_LITE_VERSION" "doctor: libomp-lite's reading of the environment"
    $to "$omplite" doctor /bin/true > doc2.out 2>&1
    expect_in doc2.out "not an OpenMP program" "doctor: /bin/true is not an OpenMP program"
    if gcc -fopenmp -static -o omplite_static "$srcdir/tests/tools/omplite_prog.c" > static.log 2>&1; then
        $to "$omplite" doctor ./omplite_static > doc3.out 2>&1
        expect_in doc3.out "LD_PRELOAD and LD_LIBRARY_PATH cannot reach it" "doctor: a statically linked libgomp"
    else
        echo "SKIP: doctor on a static libgomp (gcc -fopenmp -static fails here)"
    fi
    # A renamed libgomp as Python wheels bundle it (libgomp-HASH.so.1 in a .libs folder): a
    # stand-in library of that name, linked with an rpath.
    mkdir -p wheel.libs
    echo 'int omp_get_max_threads(void) { return 1; }' > fake.c
    echo 'int omp_get_max_threads(void); int main(void) { return omp_get_max_threads() - 1; }' > uses.c
    if gcc -shared -fPIC -Wl,-soname,libgomp-0123abcd.so.1 -o wheel.libs/libgomp-0123abcd.so.1 fake.c > wheel.log 2>&1 &&
       gcc -o uses_wheel uses.c "$work/wheel.libs/libgomp-0123abcd.so.1" -Wl,-rpath,"$work/wheel.libs" >> wheel.log 2>&1; then
        $to "$omplite" doctor ./uses_wheel > doc4.out 2>&1
        expect_in doc4.out "bundled, renamed libgomp: libgomp-0123abcd.so.1" "doctor: a bundled renamed libgomp"
        expect_in doc4.out "rpath/runpath: $work/wheel.libs" "doctor: the rpath"
    else
        echo "SKIP: doctor on a renamed libgomp (cannot build the stand-in):"; cat wheel.log
    fi
else
    echo "SKIP: doctor (no binutils)"
fi

if [ "$fails" -gt 0 ]; then echo "$fails check(s) failed"; exit 1; fi
cd "$builddir" && rm -rf "$work"
exit 0
