#!/usr/bin/env python3
"""Runs LLVM 14's OpenMP runtime testsuite (openmp/runtime/test) on stock libgomp and on
libomp-lite, side by side.

Every *.c and *.cpp test is read the way LLVM's lit reads it: its `RUN:` lines (a trailing `\\`
continues one), and its `REQUIRES:`, `UNSUPPORTED:` and `XFAIL:` lists, judged against what this
machine offers with gcc 12 on x86-64 Linux. A test that is unsupported here, needs something we do
not have, or is expected to fail with gcc is skipped. The substitutions of the suite's lit.cfg
are mapped onto the stock gcc and g++ (`-fopenmp -I <suite> ... -lm -latomic`, no -O, as lit
passes none).

The compile steps of a test's RUN lines run once, each distinct command into its own binary. Its
run steps then run on stock libgomp and on libomp-lite (LD_PRELOAD, given to the test program
only, never to FileCheck or the other tools of a pipeline) at the default team size and at
OMP_NUM_THREADS=1 and 4 (an `env OMP_NUM_THREADS=...` inside a RUN line still wins), each program
run under a time limit. A test passes on a runtime when all its run steps exit 0 at every team
size. The expected passes are the tests stock libgomp passes in the same run; a test that passes
there and fails on libomp-lite is a failure, unless known-failures.txt lists it: as not
implemented yet (and the run stopped on libomp-lite's own "does not implement ... yet" message),
or as differing from libgomp by design (whatever the output).

The output ends with the line "N passed, M failed": N tests pass on both runtimes, M pass on stock
libgomp and fail on libomp-lite without being known failures. The exit status is 1 when M > 0.
"""

import argparse
import glob
import os
import re
import shlex
import subprocess
import sys
import textwrap
import time

# What both testsuites' runners share is in tests/testsuite_common.py, one folder up (the runner
# is run by path from the source tree, not installed).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testsuite_common import (RUNTIMES, bool_expr, build, clean_environment,  # noqa: E402
                              compile_all, give_up, in_parallel, not_implemented, preload_problem,
                              print_now_passing, read_known, read_known_entries, run_program,
                              verdict)

# None: the runtime's own default (the CPUs this process may use); 1: teams of one take their
# own paths; 4: more threads than a small machine has cores, so members get preempted mid-loop.
THREAD_COUNTS = (None, 1, 4)
# The runtime the tests are judged against: the one whose run is not preloaded (main sets it).
REFERENCE = "libgomp"
# The second field of a known-failures.txt line for a test that differs from libgomp by design.
BY_DESIGN = "by design"
# ... and for one that waits on a piece being built elsewhere (another branch: the WHY names it),
# accepted whatever the output, like BY_DESIGN, until that piece lands and the list is written
# again (--known-out).
PENDING = "pending"
# The OMPT tests (--ompt) are judged against LLVM's libomp, the one runtime here with OMPT.
OMPT_DIR = "ompt/"
# lit's own library flags for this suite: -lm, and -latomic, which lit's CMake adds when the
# compiler's atomics need libatomic, as gcc's do (libgcc does not provide __atomic_load_1).
LIBS = "-lm -latomic"
# LLVM's runtime, the judge of the OMPT tests (package libomp-14-dev).
LLVM_LIBOMP = "/usr/lib/llvm-14/lib/libomp.so.5"


# ---- Directives ------------------------------------------------------------------------------

def read_directives(path):
    """A test's RUN commands (continuations joined, as lit joins them: the `\\` dropped, the next
    line's text appended) and its REQUIRES, UNSUPPORTED and XFAIL items."""
    runs = []
    lists = {"REQUIRES": [], "UNSUPPORTED": [], "XFAIL": []}
    with open(path, errors="replace") as f:
        for line in f:
            m = re.search(r"(RUN|REQUIRES|UNSUPPORTED|XFAIL):(.*)$", line)
            if not m:
                continue
            key, body = m.group(1), m.group(2).rstrip()
            if key != "RUN":
                lists[key] += [item.strip() for item in body.split(",") if item.strip()]
            elif runs and runs[-1].endswith("\\"):
                runs[-1] = runs[-1][:-1] + body
            else:
                runs.append(body)
    return [r.strip() for r in runs if r.strip()], lists


def feature_expr(text, features):
    """Evaluates one lit feature expression (`a && !(b || c)`); `*` matches everything."""
    tokens = re.findall(r"&&|\|\||[!()]|[^\s&|!()]+", text)
    return bool_expr(tokens, lambda tok: tok == "*" or tok in features, "(", ")")


def machine_features(compiler, ompt=False):
    """What REQUIRES, UNSUPPORTED and XFAIL are judged against: the names lit's CMake gives the
    compiler (gcc, gcc-12, gcc-12.2, gcc-12.2.0; or clang, clang-14, ...), and those lit.cfg
    adds on Linux: linux, affinity (the runtimes bind threads to places there) and multicpu
    (more than one CPU). The suite also writes `gnu` for the GNU compiler, which lit never
    defines; it is added for gcc so that those tests are left out as their authors meant.
    ompt (the tool interface, openmp/runtime/test/ompt) with --ompt. Not here: hwloc (a build
    option of LLVM's libomp), other systems and compilers."""
    program = "gcc" if compiler == "gcc" else "clang-14"
    version = subprocess.run([program, "-dumpversion"], stdout=subprocess.PIPE,
                             text=True).stdout.strip() or ("12" if compiler == "gcc" else "14")
    if compiler == "gcc":
        version = subprocess.run(["gcc", "-dumpfullversion"], stdout=subprocess.PIPE,
                                 text=True).stdout.strip() or version
    parts = version.split(".")
    features = {compiler, "linux", "affinity"}
    if compiler == "gcc":
        features.add("gnu")
    if ompt:
        features.add("ompt")
    features |= {compiler + "-" + ".".join(parts[:n]) for n in range(1, len(parts) + 1)}
    if (os.cpu_count() or 1) > 1:
        features.add("multicpu")
    return features


# ---- Substitutions -----------------------------------------------------------------------------

def split_and(text):
    """Splits a shell command at its top-level `&&` (outside quotes)."""
    parts, start, quote, i = [], 0, None, 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif text.startswith("&&", i):
            parts.append(text[start:i].strip())
            start = i + 2
            i += 1
        i += 1
    parts.append(text[start:].strip())
    return parts


# The compile-and-run forms are a compile step and a run step (lit.cfg defines them that way).
COMPILE_AND_RUN = [("%libomp-compile-and-run", "%libomp-compile && %libomp-run"),
                   ("%libomp-c99-compile-and-run", "%libomp-c99-compile && %libomp-run"),
                   ("%libomp-cxx-compile-and-run", "%libomp-cxx-compile && %libomp-run")]
# A step that starts with one of these compiles; any other step runs.
COMPILE_START = re.compile(r"%libomp-(cxx-compile-c|cxx-compile|c99-compile|compile)\b|%clang")


class Tools:
    """The programs and flags the substitutions name."""

    def __init__(self, root, filecheck, lite, compiler, workdir, ompt=False):
        self.root, self.filecheck, self.lite, self.ompt = root, filecheck, lite, ompt
        self.gcc_ompt = ompt and compiler == "gcc"
        # The drop-in directory (libomp.so.5 and libgomp.so.1 naming libomp-lite) beside .libs.
        self.dropin = os.path.join(os.path.dirname(os.path.dirname(lite)), "omp-lite")
        # The OMPT tests' callback.h includes "../../src/kmp_platform.h" (LLVM's runtime sources,
        # which the fetched suite does not have): found through -I SHIM/include/ompt as
        # SHIM/src/kmp_platform.h, a two-line header of our own (the architecture macros it reads).
        self.shim = os.path.join(workdir, "ompt-shim")
        os.makedirs(os.path.join(self.shim, "include", "ompt"), exist_ok=True)
        os.makedirs(os.path.join(self.shim, "src"), exist_ok=True)
        with open(os.path.join(self.shim, "src", "kmp_platform.h"), "w") as f:
            f.write("/* run-testsuite.py: what callback.h reads of LLVM's kmp_platform.h */\n"
                    "#define KMP_ARCH_X86_64 %d\n#define KMP_ARCH_AARCH64 %d\n"
                    % (os.uname().machine == "x86_64", os.uname().machine == "aarch64"))
        self.libs = LIBS
        if self.gcc_ompt:
            self.prepare_gcc_ompt(workdir)
        self.not_tool = os.path.join(os.path.dirname(filecheck), "not")
        # gcc's own omp.h is the one that matches libgomp and libomp-lite; clang's (LLVM's, in
        # clang's resource directory) the one that matches LLVM's libomp, whose ABI the clang
        # build calls.
        self.cc, self.cxx = ("gcc", "g++") if compiler == "gcc" else ("clang-14", "clang++-14")

    def prepare_gcc_ompt(self, workdir):
        """What a gcc user of OMPT does, for the gcc-built OMPT tests. gcc has no omp-tools.h:
        LLVM's (libomp-14-dev, in clang's resource directory, among clang's own stddef.h and
        omp.h that gcc must not see) is reached through a directory holding only it, the shim.
        The tests link libomp-lite (-L the drop-in directory, whose libgomp.so names it), whose
        weak ompt_start_tool makes ld export the test's own (ompt/start.c); the binary then
        needs libomp-lite.so.0, its soname. The judge, LLVM's libomp, answers to that name from
        a directory of its own (it has libgomp's GOMP_* entry points and version nodes)."""
        found = sorted(glob.glob("/usr/lib/llvm-14/lib/clang/*/include/omp-tools.h"))
        header = os.path.join(self.shim, "include", "ompt", "omp-tools.h")
        if found and not os.path.lexists(header):
            os.symlink(found[-1], header)
        self.libs = "-L %s %s" % (shlex.quote(self.dropin), LIBS)
        self.llvm_dir = os.path.join(workdir, "llvm-libomp")
        os.makedirs(self.llvm_dir, exist_ok=True)
        alias = os.path.join(self.llvm_dir, "libomp-lite.so.0")
        if not os.path.lexists(alias):
            os.symlink(LLVM_LIBOMP, alias)

    def substitute(self, text, test, binary, runtime=None):
        """lit.cfg's substitutions, then lit's own, one pass each in lit's order, which puts
        the longer names first (%clangXX before %clang, %sort-threads before %s). %libomp-run
        starts the program on the given runtime."""
        q = shlex.quote
        program = q(binary)
        ompt = test.id.startswith(OMPT_DIR)
        if runtime == "libgomp" and ompt and self.gcc_ompt:
            program = "env LD_LIBRARY_PATH=%s %s" % (q(self.llvm_dir), program)
        elif runtime == "lite" and ompt:
            # Preloaded beside LLVM's libomp, both runtimes would start the tool (LLVM's at its
            # load): the drop-in directory replaces libomp.so.5 instead, as README says to.
            program = "env LD_LIBRARY_PATH=%s %s" % (q(self.dropin), program)
        elif runtime == "lite":
            program = "env LD_PRELOAD=%s %s" % (q(self.lite), program)
        subs = [
            ("%libomp-cxx-compile-c",
             "%clangXX %openmp_flags %flags -std=c++14 -x c++ %s -o %t " + self.libs),
            ("%libomp-cxx-compile", "%clangXX %openmp_flags %flags -std=c++14 %s -o %t " + self.libs),
            ("%libomp-compile", "%clang %openmp_flags %flags %s -o %t " + self.libs),
            ("%libomp-c99-compile", "%clang %openmp_flags %flags -std=c99 %s -o %t " + self.libs),
            ("%libomp-run", program),
            ("%clangXX", self.cxx),
            ("%clang", self.cc),
            ("%openmp_flags", "-fopenmp"),
            ("%flags-use-compiler-omp-h", "-I " + q(self.root)),
            ("%flags", "-I " + q(self.root) +
             (" -I %s -I %s" % (q(os.path.join(self.root, "ompt")),  # lit.cfg's, for OMPT
                                 q(os.path.join(self.shim, "include", "ompt"))) if ompt else "")),
            ("%no-as-needed-flag", "-Wl,--no-as-needed"),
            ("%preload-tool", "env LD_PRELOAD=%T/tool.so"),
            ("%python", q(sys.executable)),
            ("%not", q(self.not_tool)),
            ("FileCheck", q(self.filecheck)),
            ("%sort-threads", "sort -n -s"),
            ("%s", q(test.path)),
            ("%S", q(os.path.dirname(test.path))),
            ("%p", q(os.path.dirname(test.path))),
            ("%t", q(binary)),
            ("%T", q(os.path.dirname(binary))),
        ]
        for name, value in subs:
            text = text.replace(name, value)
        return text


# ---- One test ----------------------------------------------------------------------------------

class Test:
    """A test's plan: its compile commands (each distinct one once, into its own binary) and its
    run steps, each tied to the binary the compile steps before it left in %t."""

    def __init__(self, root, rel, features, tools, workdir):
        self.id, self.path = rel, os.path.join(root, rel)
        self.workdir = os.path.join(workdir, re.sub(r"[^\w.+-]+", "_", rel))
        self.skip = None
        self.compiles = []  # (binary, shell command)
        self.steps = []     # ({runtime: shell command}, the step as the test wrote it)
        runs, lists = read_directives(self.path)
        for item in lists["UNSUPPORTED"]:
            if self.skip is None and feature_expr(item, features):
                self.skip = "UNSUPPORTED: " + item
        for item in lists["REQUIRES"]:
            if self.skip is None and not feature_expr(item, features):
                self.skip = "REQUIRES: " + item
        # A test expected to fail with gcc says nothing about the runtime it runs on.
        for item in lists["XFAIL"]:
            if self.skip is None and feature_expr(item, features):
                self.skip = "XFAIL: " + item
        if not runs and self.skip is None:
            self.skip = "no RUN line"
        if self.skip is None:
            self.plan(runs, tools)

    def plan(self, runs, tools):
        variants = {}  # compile step as written -> binary
        binary = os.path.join(self.workdir, "t")
        for line in runs:
            for name, value in COMPILE_AND_RUN:
                line = line.replace(name, value)
            for step in split_and(line):
                elsewhere = re.search(r"-o\s+%T/(\S+)", step)
                if COMPILE_START.match(step) and elsewhere:
                    # A library for the test's runs (an OMPT tool, %T/tool.so): built, not run.
                    output = os.path.join(self.workdir, elsewhere.group(1))
                    self.compiles.append((output, tools.substitute(step, self, output)))
                elif COMPILE_START.match(step):
                    if step not in variants:
                        variants[step] = os.path.join(
                            self.workdir, "t" + (".%d" % len(variants) if variants else ""))
                        self.compiles.append((variants[step], tools.substitute(
                            step, self, variants[step])))
                    binary = variants[step]
                elif COMPILE_START.search(step) or "||" in step or ";" in step:
                    self.skip = "RUN line this runner does not take apart: " + line
                    return
                else:
                    self.steps.append(({r: tools.substitute(step, self, binary, r)
                                        for r in RUNTIMES}, step))
        if not self.steps:
            self.skip = "compiles only"


def discover(top, root, features, tools, workdir):
    """The tests, as lit finds them: every .c and .cpp file under top, in the suite's root."""
    tests = []
    for dirpath, dirnames, names in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(names):
            if name.endswith((".c", ".cpp")):
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                tests.append(Test(root, rel, features, tools, workdir))
    return sorted(tests, key=lambda t: t.id)


# ---- Compiling and running ---------------------------------------------------------------------

def compile_test(test):
    """Runs a test's compile commands in its own directory. A binary built by the same command
    from an unchanged source is reused. Returns (ok, the failing command's output)."""
    os.makedirs(test.workdir, exist_ok=True)
    for binary, cmd in test.compiles:
        ok, output = build(["bash", "-c", cmd], test.workdir, binary, [test.path],
                           binary + ".command")
        if not ok:
            return False, "$ %s\n%s" % (cmd, output)
    return True, ""


def run_step(command, cwd, threads, base_env, timeout):
    """Runs one step through bash (pipefail, as lit runs its pipelines); returns (passed, reason,
    output)."""
    env = dict(base_env)
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
    code, why, output = run_program(["bash", "-o", "pipefail", "-c", command], cwd, env, timeout)
    return code == 0, why, output


def run_all_steps(test, runtime, threads, base_env, timeout):
    """A test's run steps in order at one team size, stopping at the first that fails (lit's
    `&&`). Returns (passed, reason, output, the failing step: as the test wrote it, as run)."""
    for commands, written in test.steps:
        ok, why, out = run_step(commands[runtime], test.workdir, threads, base_env, timeout)
        if not ok:
            return False, why, out, (written, commands[runtime])
    return True, "", "", None


def stopped_on(output):
    """What libomp-lite said it does not implement: the last such message, the one that stopped
    the program (a warning about thread binding may come before it)."""
    found = not_implemented(output)
    return found[-1] if found else None


def team(threads):
    return "the default team size" if threads is None else "%d threads" % threads


# ---- Main --------------------------------------------------------------------------------------

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--testsuite", required=True, help="openmp/runtime/test directory")
    ap.add_argument("--lite", required=True, help="libomp-lite.so.0 to preload")
    ap.add_argument("--workdir", required=True, help="where binaries are built and kept")
    ap.add_argument("--filecheck", default="/usr/lib/llvm-14/bin/FileCheck")
    ap.add_argument("--known", default=os.path.join(here, "known-failures.txt"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per program run")
    ap.add_argument("--filter", default="", help="only tests whose path contains this")
    ap.add_argument("--ompt", action="store_true",
                    help="the OMPT tests (ompt/) only, judged against LLVM's libomp: built by "
                         "clang, run as they link it; built by gcc, linked against libomp-lite "
                         "and run on LLVM's libomp under libomp-lite's soname")
    ap.add_argument("--known-out", metavar="FILE",
                    help="write the known-failure list this run implies to FILE (- for the "
                         "output): the --known file's header, its entries for the tests that "
                         "still fail, and a FIXME entry for each new failure")
    ap.add_argument("--compiler", choices=("gcc", "clang"), default="gcc",
                    help="gcc: built by gcc 12, judged against stock libgomp; clang: built by "
                         "clang 14, judged against LLVM's libomp (the program's own runtime)")
    args = ap.parse_args()
    global REFERENCE
    REFERENCE = "libgomp" if args.compiler == "gcc" and not args.ompt else "LLVM libomp"

    root = os.path.abspath(args.testsuite)
    lite = os.path.abspath(args.lite)
    workdir = os.path.abspath(args.workdir)
    tools = Tools(root, args.filecheck, lite, args.compiler, workdir, args.ompt)
    features = machine_features(args.compiler, args.ompt)
    tests = [t for t in discover(os.path.join(root, OMPT_DIR) if args.ompt else root, root,
                                 features, tools, workdir) if args.filter in t.id]
    known = read_known(args.known)
    base_env = clean_environment()

    runnable = [t for t in tests if t.skip is None]
    print("LLVM OpenMP runtime testsuite%s, built by %s: %d tests, %d run here (%d skipped: %s"
          "other compilers, XFAIL with %s)" % (" (OMPT tests)" if args.ompt else "",
                                               args.compiler, len(tests), len(runnable),
                                               len(tests) - len(runnable),
                                               "" if args.ompt else "OMPT, ", args.compiler))
    print("features: %s" % " ".join(sorted(features)))
    skipped = {}
    for test in tests:
        if test.skip:
            skipped.setdefault(test.skip, []).append(test.id)
    for why, ids in sorted(skipped.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print("    skipped %3d, %s: %s" % (len(ids), why, ", ".join(ids) if len(ids) <= 4
                                          else "%s ... %s" % (ids[0], ids[-1])))

    def show_failure(test, output):
        # Most call LLVM's own entry points (__kmpc_*, kmp_*), which libgomp does not have.
        lines = output.strip().splitlines()
        first = next((l for l in lines if re.search(r"error|undefined reference", l)),
                     lines[-1] if lines else "")
        print("    does not compile: %s\n        | %s" % (test.id, first.strip()[:160]))

    compiled = compile_all(runnable, compile_test, args.jobs, show_failure)
    if not compiled:
        return give_up("nothing compiled: are %s and %s installed?" % (tools.cc, tools.cxx))
    # The preload route must really put libomp-lite in charge; prove it once with a real test.
    probe_test = next((t for t in compiled if t.id.startswith("parallel/")), compiled[0])
    probe_binary = next(b for b, _ in probe_test.compiles if not b.endswith(".so"))
    problem = preload_problem(probe_test.id, probe_binary, probe_test.workdir, base_env, lite,
                              args.timeout,
                              {"LD_LIBRARY_PATH": tools.dropin} if args.ompt else None)
    if problem:
        return give_up(problem)

    # Each test on stock libgomp at each team size, then, if it passed there, on libomp-lite: a
    # test that fails on libgomp is not judged, and some of those time out (sleeping tasks) at
    # every size. A failing libomp-lite run gets one retry, so that a rare failure is reported
    # as such instead of failing the suite silently or flakily. Runs that stop on a missing
    # piece, or of tests that differ by design or wait for a piece being built, are not retried,
    # and the first of their failing runs is enough (some time out).
    def judge(test):
        started = time.monotonic()
        result = {"libgomp": [], "lite": []}
        by_design = known.get(test.id, ("", ""))[0] in (BY_DESIGN, PENDING)
        for runtime in RUNTIMES:
            for threads in THREAD_COUNTS:
                ok, why, out, step = run_all_steps(test, runtime, threads, base_env,
                                                   args.timeout)
                retried = False
                if not ok and runtime == "lite" and not stopped_on(out) and not by_design:
                    retried = run_all_steps(test, runtime, threads, base_env, args.timeout)[0]
                    ok = retried
                result[runtime].append((threads, ok, why, out, step, retried))
                if not ok and (runtime == "libgomp" or by_design):
                    return test, result, time.monotonic() - started
        return test, result, time.monotonic() - started

    started = time.monotonic()
    results = in_parallel(judge, compiled, args.jobs)
    print("ran %d tests on %d runtimes at %d team sizes in %.0f s (slowest: %s)"
          % (len(compiled), len(RUNTIMES), len(THREAD_COUNTS), time.monotonic() - started,
             ", ".join("%s %.0f s" % (t.id, secs) for t, _, secs in
                       sorted(results, key=lambda r: -r[2])[:5])))

    passed, failed, known_failed, now_passing, flaky = [], [], [], [], []
    gomp_pass = 0
    for test, result, _ in results:
        if not all(run[1] for run in result["libgomp"]):
            continue
        gomp_pass += 1
        bad = [run for run in result["lite"] if not run[1]]
        flaky += [(test, run) for run in result["lite"] if run[5]]
        if not bad:
            passed.append(test)
            if test.id in known:
                now_passing.append(test)
            continue
        what, _ = known.get(test.id, (None, None))
        entry = stopped_on(bad[0][3])
        if what in (BY_DESIGN, PENDING):
            known_failed.append((test, what))
        elif what is not None and entry:
            known_failed.append((test, "does not implement " + entry))
        else:
            failed.append((test, bad[0]))

    print()
    print("runs on %-15s %d of %d tests pass" % (REFERENCE + ":", gomp_pass, len(compiled)))
    for test, result, _ in results:
        bad = [run for run in result["libgomp"] if not run[1]]
        if bad:
            threads, _, why, _, step, _ = bad[0]
            print("    fails on %s, not counted: %s at %s: %s (%s)"
                  % (REFERENCE, test.id, team(threads), why, step[0]))
    print("runs on libomp-lite:    %d of the %d tests that pass on %s pass"
          % (len(passed), gomp_pass, REFERENCE))
    print("known failures:         %d (not implemented yet, different by design, or pending)"
          % len(known_failed))
    groups = {}
    for test, what in known_failed:
        groups.setdefault((what, known[test.id][1]), []).append(test.id)
    for (what, why), ids in sorted(groups.items()):
        print("    %d  %s: %s" % (len(ids), what, ", ".join(ids)))
        print(textwrap.fill(why, 100, initial_indent=" " * 8, subsequent_indent=" " * 8))
    print_now_passing([test.id for test in now_passing], args.known)
    if flaky:
        print("\nruns on libomp-lite that failed once and passed on a retry:")
        for test, (threads, _, why, _, step, _) in flaky:
            print("    %s at %s: %s (%s)" % (test.id, team(threads), why, step[0]))
    if failed:
        print("\npass on %s, FAIL on libomp-lite:" % REFERENCE)
        for test, (threads, _, why, out, step, _) in failed:
            setting = "" if threads is None else "OMP_NUM_THREADS=%d " % threads
            print("  %s at %s: %s" % (test.id, team(threads), why))
            print("      $ cd %s && %s%s" % (test.workdir, setting, step[1]))
            for line in out.splitlines()[:8]:
                print("      | " + line[:160])
    if args.known_out:
        write_known(args.known_out, args.known, [t.id for t, _ in known_failed],
                    [(t.id, run) for t, run in failed])
    print()
    return verdict(len(passed), len(failed))


def write_known(out, known_path, still_failing, new_failures):
    """--known-out: the list this run implies, in known-failures.txt's format: the header of
    known_path, its entries for the tests that still fail (as written), and a FIXME entry for
    each test that failed without one, which someone must judge and word (or fix)."""
    header, entries = read_known_entries(known_path)
    lines = {test_id: entries[test_id] for test_id in still_failing}
    for test_id, (threads, _, why, out_text, _, _) in new_failures:
        first = next((l.strip() for l in out_text.splitlines() if "error" in l),
                     why).replace("#", "")[:150]
        lines[test_id] = ("%s | %s | FIXME: why it fails (at %s: %s)\n"
                          % (test_id, PENDING, team(threads), first))
    text = header + "".join(lines[k] for k in sorted(lines))
    if out == "-":
        print("\n---- known failures as of this run ----\n" + text, end="")
    else:
        with open(out, "w") as f:
            f.write(text)
        print("\nwrote %d known failures to %s" % (len(lines), out))


if __name__ == "__main__":
    sys.exit(main())
