#!/usr/bin/env python3
"""Runs GCC 12's libgomp testsuite on stock libgomp and on libomp-lite, side by side.

Each `dg-do run` host test of libgomp.c, libgomp.c-c++-common (as C and as C++), libgomp.c++ and
libgomp.fortran is compiled once by the stock gcc/g++/gfortran 12 with its dg-options, then run on
stock libgomp and on libomp-lite (LD_PRELOAD) at OMP_NUM_THREADS=1, 2 and 4, each run under a time
limit. A test passes on a runtime when every run exits as the test expects (dg-shouldfail) and its
output matches the test's dg-output patterns. The expected passes are the tests stock libgomp
passes in the same run; a test that passes there and fails on libomp-lite is a failure, unless
known-failures.txt lists it with the entry point that libomp-lite does not implement yet and the
run stopped on exactly that entry point's message.

The directives are read the way DejaGnu reads them (Tcl words, target selectors), for what these
tests use: dg-do, dg-options, dg-additional-options, dg-additional-sources, dg-set-target-env-var,
dg-output, dg-shouldfail, dg-skip-if, dg-require-effective-target, dg-require-alias, dg-timeout,
dg-timeout-factor. Compile-time checks (dg-error, dg-warning, dg-final scans) are not this runner's
business: they test the compiler. Fortran tests are compiled at -O2 only, where DejaGnu would
repeat them at six optimisation levels; that repeats the compiler's work, not the runtime's.

The output ends with the line "N passed, M failed": N tests pass on both runtimes, M pass on stock
libgomp and fail on libomp-lite without being known failures. The exit status is 1 when M > 0.
"""

import argparse
import fnmatch
import os
import re
import subprocess
import sys
import time

# What both testsuites' runners share is in tests/testsuite_common.py, one folder up (the runner
# is run by path from the source tree, not installed).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testsuite_common import (RUNTIMES, bool_expr, build, clean_environment,  # noqa: E402
                              compile_all, give_up, in_parallel, not_implemented, preload_problem,
                              print_now_passing, read_known, run_program, verdict)

TRIPLET = "x86_64-pc-linux-gnu"
# 1: teams of one take their own paths (libomp-lite read doacross trip counts gcc leaves unset
# there, and only runs at 1 thread met them).
THREAD_COUNTS = (1, 2, 4)
FORTRAN_SUFFIXES = tuple("." + s for s in
                         ("f", "F", "f90", "F90", "f95", "F95", "f03", "F03", "f08", "F08"))


# ---- Tcl words and target selectors ----------------------------------------------------------

def tcl_backslash(s):
    """Tcl's backslash substitution inside a double-quoted word."""
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            out.append({"n": "\n", "r": "\r", "t": "\t"}.get(n, n))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def tcl_words(text):
    """Splits the body of a Tcl list into words: {braced} words stay raw, "quoted" ones are
    backslash-substituted."""
    words, i, n = [], 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        if text[i] == "{":
            depth, j = 1, i + 1
            while j < n and depth:
                if text[j] == "\\":
                    j += 1
                elif text[j] == "{":
                    depth += 1
                elif text[j] == "}":
                    depth -= 1
                j += 1
            words.append(("brace", text[i + 1:j - 1]))
            i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            words.append(("quote", tcl_backslash(text[i + 1:j])))
            i = j + 1
        else:
            j = i
            while j < n and not text[j].isspace():
                j += 1
            words.append(("bare", text[i:j]))
            i = j
    return [w for _, w in words]


def directives(source_text):
    """Yields (name, [args]) for each { dg-NAME ... } in a test's text, in order."""
    for m in re.finditer(r"\{\s*(dg-[\w-]+)", source_text):
        depth, j = 1, m.start() + 1
        while j < len(source_text) and depth:
            c = source_text[j]
            if c == "\\":
                j += 1
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            elif c == "\n" and depth == 1:
                break  # a directive ends on its line; an unbalanced one is not a directive
            j += 1
        if depth:
            continue
        yield m.group(1), tcl_words(source_text[m.end():j - 1])


# DejaGnu's run-time effective targets about offloading, judged as libgomp.exp does: by
# compiling and running these programs (on stock libgomp); exit status 0 means true.
OFFLOAD_PROBES = {
    "offload_device": "#include <omp.h>\nint main () { int a;\n#pragma omp target map(from: a)\n"
                      "a = omp_is_initial_device ();\nreturn a; }\n",
    "offload_device_nonshared_as": "int main () { int a = 8;\n#pragma omp target map(to: a)\n"
                                   "a++;\nreturn a != 8; }\n",
    "offload_device_shared_as": "int main () { int x = 10;\n#pragma omp target map(to: x)\n"
                                "x++;\nreturn x == 10; }\n",
}


def probe_offload(workdir):
    """The offload effective targets of this machine: the compile-time ones from the offload
    targets gcc -fopenmp names (OFFLOAD_TARGET_NAMES), the run-time ones from OFFLOAD_PROBES."""
    os.makedirs(workdir, exist_ok=True)
    truths = {}
    for name, program in OFFLOAD_PROBES.items():
        src, exe = os.path.join(workdir, name + ".c"), os.path.join(workdir, name)
        with open(src, "w") as f:
            f.write(program)
        built = subprocess.run(["gcc", "-fopenmp", "-v", src, "-o", exe], cwd=workdir,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               errors="replace")
        names = re.search(r"(?m)^OFFLOAD_TARGET_NAMES=(.*)$", built.stdout)
        for target in (names.group(1).split(":") if names else []):
            truths["offload_target_" + target.split("-")[0]] = True
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        truths[name] = built.returncode == 0 and subprocess.run(
            [exe], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            timeout=60).returncode == 0
    return truths


class Target:
    """What DejaGnu's target selectors and effective-target keywords say about this machine."""

    def __init__(self, lang, cpu_flags, offload):
        self.lang = lang
        self.offload = offload
        self.truths = {
            "lp64": True, "size32plus": True, "tls": True, "tls_runtime": True,
            "sync_int_long": True, "sync_char_short": True, "lto": True, "shared": True,
            "fpic": True, "pthread": True, "fopenmp": True, "large_long_double": True,
            "__float128": True, "vect_simd_clones": True, "fd_truncate": True, "alias": True,
            "avx_runtime": "avx" in cpu_flags, "c": lang == "c", "c++": lang == "c++",
            "fortran": lang == "fortran", "run_expensive_tests": False,
        }
        self.unknown = set()

    def keyword(self, word):
        if "-" in word and "*" in word or word.count("-") >= 2:
            return fnmatch.fnmatchcase(TRIPLET, word)
        if word.startswith("offload_") or word.startswith("openacc_"):
            return self.offload.get(word, False)
        if word in self.truths:
            return self.truths[word]
        self.unknown.add(word)
        return False

    def expr(self, text):
        """Evaluates `a && { ! b } || c` and friends; a list of bare words means any of them."""
        tokens = re.findall(r"\{|\}|&&|\|\||!|[^\s{}!&|]+", text)
        return bool_expr(tokens, self.keyword, "{", "}")

    def selector(self, text):
        """A `{ target X }` / `{ xfail X }` selector, or a bare expression (dg-skip-if). Returns
        (kind, matches)."""
        words = tcl_words(text)
        if words and words[0] in ("target", "xfail"):
            return words[0], self.expr(" ".join("{%s}" % w for w in words[1:]))
        return "target", self.expr(text)


# ---- One test ---------------------------------------------------------------------------------

class Test:
    def __init__(self, root, rel, lang, target):
        self.rel, self.lang, self.path = rel, lang, os.path.join(root, rel)
        self.id = rel + (" [%s]" % lang if rel.startswith("libgomp.c-c++-common") else "")
        self.options = ["-O2"]
        self.extra_options, self.sources, self.env, self.outputs = [], [self.path], {}, []
        self.action, self.should_fail, self.timeout_factor = "run", False, 1.0
        self.timeout = None
        self.skip = None
        with open(self.path, errors="replace") as f:
            text = f.read()
        dg = list(directives(text))
        for name, args in dg:
            self.apply(name, args, target)
        # dg-skip-if looks at the final options, so it is judged after the others.
        for name, args in dg:
            if name == "dg-skip-if" and self.skip is None and self.skipped(args, target):
                self.skip = "dg-skip-if %s" % (args[0] if args else "")
        if self.action != "run" and self.skip is None:
            self.skip = "dg-do %s" % self.action

    def when(self, args, index, target):
        """Whether the optional selector at args[index] matches (no selector: it does)."""
        if len(args) <= index:
            return True
        kind, matches = target.selector(args[index])
        return matches if kind == "target" else True

    def apply(self, name, args, target):
        if name == "dg-do":
            if args:
                kind, matches = target.selector(args[1]) if len(args) > 1 else ("target", True)
                self.action = args[0] if matches or kind == "xfail" else "unsupported"
                if self.action == "unsupported" and self.skip is None:
                    self.skip = "dg-do %s: target selector does not match" % args[0]
        elif name == "dg-options" and args and self.when(args, 1, target):
            self.options = args[0].split()
        elif name == "dg-additional-options" and args and self.when(args, 1, target):
            self.extra_options += args[0].split()
        elif name == "dg-additional-sources" and args and self.when(args, 1, target):
            here = os.path.dirname(self.path)
            self.sources += [os.path.normpath(os.path.join(here, s)) for s in args[0].split()]
        elif name == "dg-set-target-env-var" and len(args) >= 2:
            self.env[args[0]] = args[1]
        elif name == "dg-output" and args and self.when(args, 1, target):
            self.outputs.append(args[0])
        elif name == "dg-shouldfail" and self.when(args, 1, target):
            self.should_fail = True
        elif name == "dg-require-effective-target" and args and self.when(args, 1, target):
            if not target.keyword(args[0]) and self.skip is None:
                self.skip = "needs effective target %s" % args[0]
        elif name == "dg-timeout" and args:
            self.timeout = float(args[0])
        elif name == "dg-timeout-factor" and args:
            self.timeout_factor = float(args[0])

    def skipped(self, args, target):
        """dg-skip-if MSG SELECTOR [INCLUDE-OPTIONS [EXCLUDE-OPTIONS]]."""
        if len(args) < 2 or not target.selector(args[1])[1]:
            return False
        flags = self.flags()
        include = tcl_words(args[2]) if len(args) > 2 else ["*"]
        exclude = tcl_words(args[3]) if len(args) > 3 else []
        included = any(o == "*" or o in flags for o in include) or not include
        excluded = any(o in flags for o in exclude)
        return included and not excluded

    def flags(self):
        return self.options + self.extra_options


# ---- Discovery --------------------------------------------------------------------------------

def discover(root, cpu_flags, offload):
    """The tests of each language, as DejaGnu's c.exp, c++.exp and fortran.exp gather them."""
    def files(subdir, suffixes):
        found = []
        for dirpath, _, names in os.walk(os.path.join(root, subdir)):
            for name in names:
                if name.endswith(suffixes):
                    found.append(os.path.relpath(os.path.join(dirpath, name), root))
        return sorted(found)

    common = files("libgomp.c-c++-common", (".c",))
    plan = [("c", files("libgomp.c", (".c",)) + common),
            ("c++", files("libgomp.c++", (".C",)) + common),
            ("fortran", files("libgomp.fortran", FORTRAN_SUFFIXES))]
    tests, unknown = [], set()
    for lang, rels in plan:
        target = Target(lang, cpu_flags, offload)
        for rel in rels:
            tests.append(Test(root, rel, lang, target))
        unknown |= target.unknown
    return tests, unknown


# ---- Compiling and running --------------------------------------------------------------------

COMPILERS = {"c": ["gcc"], "c++": ["g++"], "fortran": ["gfortran"]}
LINK_LIBS = {"c": ["-lm"], "c++": ["-lm"], "fortran": ["-lm"]}


def compile_test(test, workdir, include_dirs):
    """Compiles a test into its own directory (Fortran modules must not collide). A binary built
    by the same command from unchanged sources is reused."""
    os.makedirs(workdir, exist_ok=True)
    exe = os.path.join(workdir, "a.out")
    cmd = (COMPILERS[test.lang] + test.sources + ["-fopenmp"] +
           ["-I" + d for d in include_dirs] + test.flags() +
           ["-fmessage-length=0", "-fno-diagnostics-show-caret", "-fdiagnostics-color=never"] +
           LINK_LIBS[test.lang] + ["-o", exe])
    return build(cmd, workdir, exe, test.sources, os.path.join(workdir, "command"))


def run_once(test, workdir, runtime, threads, lite_lib, base_env, timeout):
    """Runs a compiled test once; returns (passed, reason, output)."""
    env = dict(base_env)
    env["OMP_NUM_THREADS"] = str(threads)
    env.update(test.env)
    if runtime == "lite":
        env["LD_PRELOAD"] = lite_lib
    code, why, output = run_program([os.path.join(workdir, "a.out")], workdir, env, timeout)
    if code is None:
        return False, why, output
    if test.should_fail and code == 0:
        return False, "exited 0 where the test expects a failure", output
    if not test.should_fail and code != 0:
        return False, why, output
    if test.outputs and not re.search("".join(test.outputs), output, re.S):
        return False, "output does not match dg-output", output
    return True, "", output


# ---- Known failures ---------------------------------------------------------------------------

KNOWN_HEADER = """\
# GCC libgomp testsuite programs that pass on stock libgomp and stop on libomp-lite because they
# reach something libomp-lite does not implement yet. One a line: TEST | WHAT IT STOPPED ON | WHY.
# A listed test counts as a known failure only if libomp-lite's run stops with its own
# "does not implement ... yet" message; any other failure of it is a real one. Lines go, by hand,
# as the pieces land: the runner names the listed tests that pass. To add the new ones:
#   run-gcc-testsuite.sh --builddir BUILD --write-known FILE
"""


# What each missing piece is and where it will come from, for new lines of known-failures.txt.
MISSING = [
    (r"reduction",
     "task reductions (issue 4 asks them for worksharing constructs; the rest: no issue yet)"),
    (r"GOMP_task|GOMP_taskgroup|GOMP_taskloop|GOMP_taskwait|GOMP_taskyield|omp_fulfill_event",
     "explicit tasks (no issue filed yet)"),
    (r"GOMP_target|GOMP_teams|omp_target_|GOMP_offload",
     "target and teams constructs, host fallback (no issue filed yet)"),
    (r"alloc", "memory allocators (no issue filed yet)"),
    (r"binding|places|affinity", "places and thread binding, affinity/ (no issue filed yet)"),
]


def missing_piece(entry):
    return next((why for pattern, why in MISSING if re.search(pattern, entry)), "?")


def stopped_on(output):
    """What libomp-lite said it does not implement: the first such message, which is what
    known-failures.txt's second field records (--write-known writes it)."""
    found = not_implemented(output)
    return found[0] if found else None


# ---- Main -------------------------------------------------------------------------------------

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--testsuite", required=True, help="libgomp/testsuite directory")
    ap.add_argument("--lite", required=True, help="libomp-lite.so.0 to preload")
    ap.add_argument("--workdir", required=True, help="where binaries are built and kept")
    ap.add_argument("--known", default=os.path.join(here, "known-failures.txt"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per run")
    ap.add_argument("--filter", default="", help="only tests whose id contains this")
    ap.add_argument("--write-known", metavar="FILE",
                    help="write the known failures, the listed ones and this run's new ones, "
                    "to FILE")
    args = ap.parse_args()

    root = os.path.abspath(args.testsuite)
    includes = [os.path.join(here, "shim"), os.path.normpath(os.path.join(root, "..")),
                os.path.normpath(os.path.join(root, "..", "..", "include"))]
    cpu_flags = ""
    if os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo") as f:
            cpu_flags = " ".join(l for l in f if l.startswith("flags")).split()
    offload = probe_offload(os.path.join(args.workdir, "probes"))
    tests, unknown = discover(root, cpu_flags, offload)
    tests = [t for t in tests if args.filter in t.id]
    known = read_known(args.known)
    base_env = clean_environment()
    lite = os.path.abspath(args.lite)

    runnable = [t for t in tests if t.skip is None]
    print("GCC libgomp testsuite: %d test files, %d run tests (%d skipped: offload, compile-only "
          "or target selectors)" % (len(tests), len(runnable), len(tests) - len(runnable)))
    if unknown:
        print("note: selector keywords taken as false: %s" % " ".join(sorted(unknown)))

    workdirs = {t.id: os.path.join(args.workdir, re.sub(r"[^\w.+-]+", "_", t.id))
                for t in runnable}

    def show_failure(test, output):
        last = (output.strip().splitlines() or [""])[-1]
        print("does not compile: %s\n      | %s" % (test.id, last))

    compiled = compile_all(runnable, lambda t: compile_test(t, workdirs[t.id], includes),
                           args.jobs, show_failure)
    if not compiled:
        return give_up("nothing compiled: is gcc-12 installed?")
    # The preload route must really put libomp-lite in charge; prove it once with a real test,
    # one that sets no environment of its own.
    probe_test = next((t for t in compiled if t.lang == "c" and not t.env), compiled[0])
    problem = preload_problem(probe_test.id, os.path.join(workdirs[probe_test.id], "a.out"),
                              workdirs[probe_test.id], base_env, lite, args.timeout)
    if problem:
        return give_up(problem)

    # Each test on each runtime at each thread count. A failing run gets one retry, so that a
    # rare failure is reported as such instead of failing the suite silently or flakily.
    def judge(test):
        timeout = (test.timeout or args.timeout) * test.timeout_factor
        result = {}
        for runtime in RUNTIMES:
            runs = []
            for threads in THREAD_COUNTS:
                ok, why, out = run_once(test, workdirs[test.id], runtime, threads, lite,
                                        base_env, timeout)
                retried = False
                if not ok and runtime == "lite" and not stopped_on(out):
                    ok2, why2, out2 = run_once(test, workdirs[test.id], runtime, threads, lite,
                                               base_env, timeout)
                    retried = ok2
                    if ok2:
                        ok = True
                runs.append((threads, ok, why, out, retried))
            result[runtime] = runs
        return test, result

    started = time.monotonic()
    results = in_parallel(judge, compiled, args.jobs)
    print("ran %d tests x %d runtimes x %d thread counts in %.0f s"
          % (len(compiled), len(RUNTIMES), len(THREAD_COUNTS), time.monotonic() - started))

    passed, failed, known_failed, now_passing, flaky, new_known = [], [], [], [], [], []
    gomp_pass = 0
    lite_pass = 0
    for test, result in results:
        ok = {r: all(run[1] for run in result[r]) for r in RUNTIMES}
        lite_pass += ok["lite"]
        if not ok["libgomp"]:
            continue
        gomp_pass += 1
        bad = [run for run in result["lite"] if not run[1]]
        flaky += [(test, run) for run in result["lite"] if run[4]]
        if not bad:
            passed.append(test)
            if test.id in known:
                now_passing.append(test)
            continue
        entry = stopped_on(bad[0][3])
        if entry:
            new_known.append((test, entry))
        # Listed, and stopped by libomp-lite's own message about a missing piece (which one may
        # vary with timing, as when a cancelled region skips the construct listed).
        if test.id in known and entry:
            known_failed.append((test, entry))
        else:
            failed.append((test, bad[0]))

    print()
    print("runs on stock libgomp:  %d of %d tests pass" % (gomp_pass, len(compiled)))
    gomp_failed = [(t, r) for t, r in results if not all(run[1] for run in r["libgomp"])]
    for test, result in gomp_failed:
        threads, _, why, _, _ = next(run for run in result["libgomp"] if not run[1])
        print("    fails on libgomp, not counted: %s at %d threads: %s" % (test.id, threads, why))
    print("runs on libomp-lite:    %d of %d tests pass (%d of the %d that pass on libgomp)"
          % (lite_pass, len(compiled), len(passed), gomp_pass))
    print("known failures:         %d (what libomp-lite does not implement yet)"
          % len(known_failed))
    by_entry = {}
    for test, entry in known_failed:
        by_entry.setdefault((entry, known[test.id][1]), []).append(test.id)
    for (entry, why), ids in sorted(by_entry.items(), key=lambda kv: -len(kv[1])):
        print("    %4d  %-38s %s" % (len(ids), entry, why))
    print_now_passing([test.id for test in now_passing], args.known)
    if flaky:
        print("\nruns on libomp-lite that failed once and passed on a retry:")
        for test, (threads, _, why, out, _) in flaky:
            print("    %s at %d threads: %s" % (test.id, threads, why))
    if failed:
        print("\npass on libgomp, FAIL on libomp-lite:")
        for test, (threads, _, why, out, _) in failed:
            print("  %s at %d threads: %s" % (test.id, threads, why))
            for line in out.splitlines()[:6]:
                print("      | " + line[:160])
    if args.write_known:
        # The listed tests plus the new ones: a line goes only by hand, once its test passes
        # for good (a cancelled region, say, can skip the missing construct on some runs).
        lines = {tid: entry_why for tid, entry_why in known.items()
                 if tid in {t.id for t in tests}}
        for test, entry in new_known:
            lines.setdefault(test.id, (entry, missing_piece(entry)))
        with open(args.write_known, "w") as f:
            f.write(KNOWN_HEADER)
            for tid in sorted(lines):
                f.write("%s | %s | %s\n" % (tid, lines[tid][0], lines[tid][1]))
    print()
    return verdict(len(passed), len(failed))


if __name__ == "__main__":
    sys.exit(main())
