"""What the runners of GCC's and LLVM's testsuites (tests/gcc-testsuite/run-testsuite.py,
tests/llvm-testsuite/run-testsuite.py) share: compiling in parallel and keeping the binaries,
running a test program under a time limit, proving that LD_PRELOAD puts libomp-lite in charge,
recognising libomp-lite's "does not implement ... yet" message, reading known-failures.txt, and
the parts of the report that read the same in both. How each suite finds, reads and judges its
tests stays in its own runner. Python 3, standard library only.
"""

import concurrent.futures
import hashlib
import os
import re
import signal
import subprocess
import sys
import time

# Every test runs on both: stock libgomp, and libomp-lite put in with LD_PRELOAD.
RUNTIMES = ("libgomp", "lite")
# libomp-lite's message when a program reaches something it does not implement yet: an entry
# point (libomp-lite/unsupported.c, which stops the program) or thread binding (init.c, a
# warning).
NOT_IMPLEMENTED_RE = re.compile(r"libomp-lite \S+ does not implement (.+?) yet")


# ---- Compiling -------------------------------------------------------------------------------

def build(argv, cwd, binary, sources, stamp):
    """Runs the compile command argv (in cwd), which writes binary, unless binary was built by
    the same command (the stamp file holds the command's hash) and no source has changed since.
    Returns (ok, the compiler's output)."""
    key = hashlib.sha1("\0".join(argv).encode()).hexdigest()
    if os.path.exists(binary) and os.path.exists(stamp):
        with open(stamp) as f:
            fresh = f.read() == key
        newest = max(os.path.getmtime(s) for s in sources if os.path.exists(s))
        if fresh and os.path.getmtime(binary) >= newest:
            return True, ""
    # A failed build must not leave the old binary behind to be run.
    if os.path.exists(binary):
        os.unlink(binary)
    proc = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors="replace")
    ok = proc.returncode == 0 and os.path.exists(binary)
    if ok:
        with open(stamp, "w") as f:
            f.write(key)
    return ok, proc.stdout


def in_parallel(function, items, jobs):
    """function(item) for every item, jobs at a time, the results in the items' order. Threads
    are enough: the work is done by the compilers and test programs they start."""
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        return list(pool.map(function, items))


def compile_all(tests, compile_test, jobs, show_failure):
    """Compiles the tests in parallel with compile_test(test), which returns (ok, output); calls
    show_failure(test, output) for each that does not compile, prints the count, and returns
    the ones that do, in order."""
    started = time.monotonic()
    built = in_parallel(compile_test, tests, jobs)
    compiled = [test for test, (ok, _) in zip(tests, built) if ok]
    for test, (ok, output) in zip(tests, built):
        if not ok:
            show_failure(test, output)
    print("compiled %d of %d in %.0f s (%d do not compile with the stock compiler here)"
          % (len(compiled), len(tests), time.monotonic() - started, len(tests) - len(compiled)))
    return compiled


# ---- Directives ------------------------------------------------------------------------------

def bool_expr(tokens, leaf, opening, closing):
    """Evaluates the boolean expression in tokens: `!`, `&&` (binding tighter), `||`, groups
    between the tokens opening and closing (`(` `)` in lit, `{` `}` in DejaGnu), and leaf(token)
    for every other token. Words side by side without `||` count as an `||` (DejaGnu's selector
    lists). An empty expression is false."""
    pos = 0

    def primary():
        nonlocal pos
        tok = tokens[pos]
        pos += 1
        if tok == "!":
            return not primary()
        if tok == opening:
            value = disjunction()
            pos += 1  # the closing token
            return value
        return leaf(tok)

    def conjunction():
        nonlocal pos
        value = primary()
        while pos < len(tokens) and tokens[pos] == "&&":
            pos += 1
            value = primary() and value
        return value

    def disjunction():
        nonlocal pos
        value = conjunction()
        while pos < len(tokens) and tokens[pos] != closing:
            if tokens[pos] == "||":
                pos += 1
            value = conjunction() or value
        return value

    return disjunction() if tokens else False


# ---- Running ---------------------------------------------------------------------------------

def clean_environment():
    """This process's environment less what would change how either runtime behaves: the
    caller's OMP_*, GOMP_*, KMP_* and libomp-lite variables, and LD_PRELOAD."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("OMP_", "GOMP_", "KMP_", "OMPLITE_", "LIBOMP_LITE_"))
            and k != "LD_PRELOAD"}


def run_program(argv, cwd, env, timeout):
    """Runs argv with stdin closed and stdout and stderr together. Returns (exit code, why it
    failed or "" when it exited 0, output); the exit code is None when it ran out of time. It runs
    in a session of its own, so that a timeout kills everything it started too (the shell of a
    RUN line's pipeline, a test that forks), not just the first process."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        raw, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raw, _ = proc.communicate()
        return None, "timed out after %.0f s" % timeout, raw.decode(errors="replace")
    output = raw.decode(errors="replace")
    code = proc.returncode
    if code == 0:
        return code, "", output
    why = "killed by signal %d" % -code if code < 0 else "exit status %d" % code
    return code, why, output


def preload_problem(test_id, binary, cwd, base_env, lite, timeout, route=None):
    """Why LD_PRELOAD=lite (or the variables in route, another way in: LD_LIBRARY_PATH naming
    the drop-in directory) does not put libomp-lite in charge of a test's program, or None when
    it does: OMP_DISPLAY_ENV must show libomp-lite's LIBOMP_LITE_VERSION line. Checked once, on
    a real test, so that a broken preload is not taken for libomp-lite passing everything."""
    route = route or {"LD_PRELOAD": lite}
    env = dict(base_env, OMP_DISPLAY_ENV="true", OMP_NUM_THREADS="1", **route)
    shown = subprocess.run([binary], env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout).stdout
    if b"LIBOMP_LITE_VERSION" in shown:
        return None
    return ("%s did not put libomp-lite in charge (no LIBOMP_LITE_VERSION in "
            "OMP_DISPLAY_ENV output of %s)"
            % (" ".join("%s=%s" % kv for kv in sorted(route.items())), test_id))


# ---- Known failures --------------------------------------------------------------------------

def not_implemented(output):
    """What libomp-lite's messages in a run's output say it does not implement yet, in the order
    they came (a warning about thread binding may come before the message that stopped it)."""
    return NOT_IMPLEMENTED_RE.findall(output)


def read_known(path):
    """known-failures.txt: `TEST | WHAT | WHY`, one a line, where WHAT is what libomp-lite stops
    on (or, in LLVM's list, `by design`); an indented line continues the previous line's WHY;
    # starts a comment. Returns {TEST: (WHAT, WHY)}."""
    known, last = {}, None
    with open(path) as f:
        for number, line in enumerate(f, 1):
            text = line.split("#", 1)[0].rstrip()
            if not text.strip():
                continue
            if text[0].isspace() and last:
                what, why = known[last]
                known[last] = (what, (why + " " + text.strip()).strip())
                continue
            parts = [p.strip() for p in text.split("|")]
            if len(parts) != 3:
                sys.exit("%s:%d: bad line: %s" % (path, number, text))
            last = parts[0]
            known[last] = (parts[1], parts[2])
    return known


def read_known_entries(path):
    """known-failures.txt as text: (the comment block it starts with, {TEST: its line and the
    indented lines that continue it, as written}), for writing the list out again."""
    header, entries, last = [], {}, None
    with open(path) as f:
        for line in f:
            if last is None and line.startswith("#"):
                header.append(line)
            elif line.strip() and line[0].isspace() and last:
                entries[last] += line
            elif line.split("#", 1)[0].strip():
                last = line.split("|", 1)[0].strip()
                entries[last] = line
    return "".join(header), entries


# ---- Report ----------------------------------------------------------------------------------

def print_now_passing(test_ids, known_path):
    """The listed known failures that passed this time: their lines can go."""
    if test_ids:
        print("\nknown failures that now pass (remove them from %s):" % known_path)
        for test_id in test_ids:
            print("    " + test_id)


def verdict(passed, failed):
    """Prints the report's last line, "N passed, M failed", and returns the exit status: 1 when
    a test that passes on libgomp fails on libomp-lite (M > 0)."""
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def give_up(why):
    """Stops before judging any test (nothing compiled, libomp-lite not in charge): says why,
    and counts it as one failure."""
    print(why)
    return verdict(0, 1)
