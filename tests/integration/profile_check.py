#!/usr/bin/env python3
"""Checks what tests/integration/profile.c's runs left: OMPLITE_PROFILE's table and OMPLITE_TRACE's
JSON (run-routes.sh t_profile calls it). Exits 1 with the reasons when a check fails.

usage: profile_check.py shape N TABLE TRACE [CPUS]  the shape at N threads (on CPUS CPUs: the
                                                    imbalance order is checked where N <= CPUS)
       profile_check.py full N TRACE                the same with a tiny trace buffer
       profile_check.py fork N TABLE TRACE CHILDPID the parent's and the child's files
       profile_check.py roots R TABLE TRACE         R root threads
       profile_check.py edges N TABLE [PROGRAM]     profile_edges.c at N threads (issue 40)
       profile_check.py symtab N TABLE PROGRAM      the same, built without -rdynamic: every
                                                    site named from the symbol table
       profile_check.py stripped TABLE PROGRAM      the same, stripped: every site in PROGRAM
       profile_check.py merge MERGED TABLE...       omplite-profile-merge's table of TABLEs
       profile_check.py merged MERGED K N           its table of K runs of profile_edges at N
The counts are profile.c's and profile_edges.c's."""
import json
import sys

REGIONS, LOOPS, BARRIERS, SINGLES, CRITICALS, SECTIONS, TASKS = 50, 12, 7, 5, 3, 4, 30
CHILD_REGIONS, ROOT_REGIONS = 9, 20
EDGE_REPS = 10
problems = []


def fail(msg):
    problems.append(msg)


def read_table(path):
    """The table's rows as dicts: the columns the header names, the last of them the site (the
    rest of the line)."""
    with open(path) as f:
        lines = f.read().splitlines()
    if not lines or not lines[0].startswith("libomp-lite profile: "):
        fail("%s: no 'libomp-lite profile:' header line" % path)
        return [], ""
    names = lines[1].split()
    if names[-1] != "site":
        fail("%s: the column header does not end with site: %s" % (path, lines[1]))
        return [], ""
    ncols = len(names) - 1
    rows = []
    for line in lines[2:]:
        if line.startswith("("):
            continue
        parts = line.split(None, ncols)
        if len(parts) < ncols + 1:
            fail("%s: a short row: %r" % (path, line))
            continue
        row = dict(zip(names[:ncols], parts[:ncols]))
        row["site"] = parts[ncols]
        rows.append(row)
    for r in rows:
        # Issue 40: a total with no count (a barrier whose waits came from members other than
        # thread 0, which alone counted) cannot be read.
        if int(r["count"]) == 0 and float(r["total-ms"]) > 0:
            fail("%s: count 0 with a total of %s ms: %s %s" % (path, r["total-ms"], r["kind"],
                                                               r["site"]))
    totals = [float(r["total-ms"]) for r in rows]
    if totals != sorted(totals, reverse=True):
        fail("%s: the rows are not sorted by total time" % path)
    return rows, lines[0]


def find(rows, kind, function, path):
    got = [r for r in rows if r["kind"] == kind and r["site"].startswith(function + "+")]
    if len(got) != 1:
        fail("%s: %d %s rows for %s, expected 1" % (path, len(got), kind, function))
        return None
    return got[0]


def expect_count(rows, kind, function, count, path):
    row = find(rows, kind, function, path)
    if row is not None and int(row["count"]) != count:
        fail("%s: %s %s: count %s, expected %d" % (path, kind, function, row["count"], count))
    return row


def read_trace(path):
    """The events per lane (tid), after checking that B/E nest on every lane."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail("%s: not JSON: %s" % (path, e))
        return {}, {}, {}
    lanes, names = {}, {}
    for ev in doc.get("traceEvents", []):
        if ev.get("ph") == "M":
            if ev.get("name") == "thread_name":
                names[ev["tid"]] = ev["args"]["name"]
            continue
        lanes.setdefault(ev["tid"], []).append(ev)
    for tid, evs in lanes.items():
        stack, last = [], -1.0
        for ev in evs:
            if ev["ts"] < last:
                fail("%s: lane %s: time goes back at %s" % (path, tid, ev))
            last = ev["ts"]
            if ev["ph"] == "B":
                stack.append(ev["name"])
            elif ev["ph"] == "E":
                if not stack or stack[-1] != ev["name"]:
                    fail("%s: lane %s: E %s does not close %s" % (path, tid, ev["name"],
                                                                 stack[-1:] or "anything"))
                    break
                stack.pop()
        if stack:
            fail("%s: lane %s: intervals left open: %s" % (path, tid, stack))
        if tid not in names:
            fail("%s: lane %s has no thread_name" % (path, tid))
    return lanes, names, doc.get("otherData", {})


def begins(evs, name):
    return sum(1 for ev in evs if ev["ph"] == "B" and ev["name"] == name)


def check_shape(n, table, trace, cpus):
    rows, header = read_table(table)
    if "team sizes %d" % n not in header and "team sizes 1,%d" % n not in header:
        fail("%s: the header does not give team size %d: %s" % (table, n, header))
    expect_count(rows, "parallel", "site_regions", REGIONS, table)
    expect_count(rows, "parallel", "site_loops", 1, table)
    uneven = expect_count(rows, "loop", "site_uneven", LOOPS, table)
    even = expect_count(rows, "loop", "site_even", LOOPS, table)
    # A barrier counts each member's pass (its total is every member's wait).
    expect_count(rows, "barrier", "site_barrier", BARRIERS * n, table)
    expect_count(rows, "single", "site_single", SINGLES, table)
    expect_count(rows, "critical", "site_critical", CRITICALS * n, table)
    sections = expect_count(rows, "sections", "site_sections", SECTIONS, table)
    expect_count(rows, "task", "site_tasks", TASKS, table)
    expect_count(rows, "taskwait", "site_tasks", 1, table)
    expect_count(rows, "single", "site_tasks", 1, table)
    if sections is not None and float(sections["chunks/r"]) != 2:
        fail("%s: sections: %s chunks a run, expected 2 (its sections)" % (table,
                                                                        sections["chunks/r"]))
    if uneven and even:
        # With more members than CPUs a balanced loop waits too, for members without a CPU.
        if n <= cpus and float(uneven["wait%"]) <= float(even["wait%"]):
            fail("%s: the uneven loop's wait%% (%s) is not above the even one's (%s)"
                 % (table, uneven["wait%"], even["wait%"]))
        for row in (uneven, even):
            if float(row["chunks/r"]) != n:
                fail("%s: %s: %s chunks a run, expected %d" % (table, row["site"],
                                                               row["chunks/r"], n))
    if trace:
        lanes, _, other = read_trace(trace)
        members = [t for t, evs in lanes.items() if begins(evs, "parallel") > 0]
        if len(members) != n:
            fail("%s: %d lanes with regions, expected %d" % (trace, len(members), n))
        for t in members:
            if begins(lanes[t], "parallel") != REGIONS + 1:
                fail("%s: lane %s: %d regions, expected %d" % (trace, t,
                     begins(lanes[t], "parallel"), REGIONS + 1))
            if begins(lanes[t], "loop") != 2 * LOOPS + SECTIONS:
                fail("%s: lane %s: %d loops and sections, expected %d"
                     % (trace, t, begins(lanes[t], "loop"), 2 * LOOPS + SECTIONS))
            if begins(lanes[t], "barrier") < BARRIERS + 2 * LOOPS:
                fail("%s: lane %s: %d barriers, expected at least %d"
                     % (trace, t, begins(lanes[t], "barrier"), BARRIERS + 2 * LOOPS))
        ran = sum(begins(evs, "task") for evs in lanes.values())
        if ran != TASKS:
            fail("%s: %d task intervals, expected %d" % (trace, ran, TASKS))
        if other.get("dropped_events") != 0:
            fail("%s: %s events dropped" % (trace, other.get("dropped_events")))


def check_full(n, trace):
    lanes, _, other = read_trace(trace)
    if not other.get("dropped_events"):
        fail("%s: a full buffer, yet no dropped events reported" % trace)
    if other.get("events_per_thread") != 64:
        fail("%s: events_per_thread %s, expected 64" % (trace, other.get("events_per_thread")))
    dropped_marks = sum(1 for evs in lanes.values() for ev in evs if ev["ph"] == "i")
    if dropped_marks == 0:
        fail("%s: no lane marks its dropped events" % trace)
    for tid, evs in lanes.items():
        kept = sum(1 for ev in evs if ev["ph"] in "BE" and not ev.get("args", {}).get("open_at_exit"))
        if kept > 64:
            fail("%s: lane %s kept %d events, more than its buffer of 64" % (trace, tid, kept))
    if len(lanes) < n:
        fail("%s: %d lanes, expected %d" % (trace, len(lanes), n))


def check_fork(n, table, trace, child):
    rows, _ = read_table(table)
    expect_count(rows, "parallel", "site_regions", REGIONS, table)
    if any(r["site"].startswith("site_child+") for r in rows):
        fail("%s: the parent's table has the child's regions" % table)
    ctable, ctrace = "%s.%s" % (table, child), "%s.%s" % (trace, child)
    crows, _ = read_table(ctable)
    expect_count(crows, "parallel", "site_child", CHILD_REGIONS, ctable)
    if any(r["site"].startswith("site_regions+") for r in crows):
        fail("%s: the child's table has the parent's regions" % ctable)
    lanes, _, _ = read_trace(trace)
    if sum(begins(evs, "parallel") for evs in lanes.values()) != REGIONS * n:
        fail("%s: the parent's trace does not hold %d member regions" % (trace, REGIONS * n))
    clanes, _, _ = read_trace(ctrace)
    main = clanes.get(int(child), [])
    if begins(main, "parallel") != CHILD_REGIONS:
        fail("%s: the child's lane %s has %d regions, expected %d"
             % (ctrace, child, begins(main, "parallel"), CHILD_REGIONS))


def check_roots(nroots, table, trace):
    rows, _ = read_table(table)
    row = expect_count(rows, "parallel", "site_roots", nroots * ROOT_REGIONS, table)
    if row is not None and row["thr"] != "2":
        fail("%s: site_roots: teams of %s, expected 2" % (table, row["thr"]))
    lanes, names, _ = read_trace(trace)
    roots = [t for t, evs in lanes.items()
             if not names.get(t, "").startswith("worker") and begins(evs, "parallel") > 0]
    if len(roots) != nroots:
        fail("%s: %d root lanes with regions, expected %d" % (trace, len(roots), nroots))
    for t in roots:
        if begins(lanes[t], "parallel") != ROOT_REGIONS:
            fail("%s: root lane %s: %d regions, expected %d"
                 % (trace, t, begins(lanes[t], "parallel"), ROOT_REGIONS))
    workers = [t for t in lanes if names.get(t, "").startswith("worker")]
    if len(workers) < nroots:
        fail("%s: %d worker lanes, expected at least %d" % (trace, len(workers), nroots))


def plain_site(site):
    """A site without the table's note on how it was found ("... (object) [the last ...]")."""
    return site.split(" [", 1)[0]


def check_edges(n, table, program="profile_edges", named=True):
    """Every row belongs to the program: a construct that ended the body of a region or a task,
    a tail call whose return address is in the runtime, is the region's or the task's (issue
    40's "barrier 0x13189 (libomp-lite.so.0)")."""
    rows, _ = read_table(table)
    for r in rows:
        if not plain_site(r["site"]).endswith("(%s)" % program):
            fail("%s: a %s row whose site is not in the program: %s" % (table, r["kind"],
                                                                        r["site"]))
    if not named:  # stripped: no site has a name to look for
        return
    expect_count(rows, "parallel", "site_reduce", EDGE_REPS, table)
    expect_count(rows, "parallel", "site_single_tasks", EDGE_REPS, table)
    bar = expect_count(rows, "barrier", "site_single_tasks", EDGE_REPS * n, table)
    if bar is not None and "[the last construct of the region" not in bar["site"]:
        fail("%s: the single's barrier does not say it ended the region: %s" % (table,
                                                                               bar["site"]))
    expect_count(rows, "barrier", "site_leader_barrier", EDGE_REPS, table)
    expect_count(rows, "barrier", "site_others_barrier", EDGE_REPS * (n - 1), table)
    waits = [r for r in rows if r["kind"] == "taskwait"]
    tasks = set(r["site"] for r in rows if r["kind"] == "task")
    if len(waits) != 1:
        fail("%s: %d taskwait rows, expected 1" % (table, len(waits)))
    else:
        w = waits[0]
        if plain_site(w["site"]) not in tasks or "[the last construct of the task" not in w["site"]:
            fail("%s: the taskwait is not the task's that ended with it: %s" % (table, w["site"]))
        if int(w["count"]) != EDGE_REPS:
            fail("%s: taskwait: count %s, expected %d" % (table, w["count"], EDGE_REPS))


def check_symtab(n, table, program):
    """profile_edges without -rdynamic: dladdr names none of its functions, its .symtab all,
    the outlined ones (site_single_tasks._omp_fn.0) too."""
    check_edges(n, table, program)
    rows, _ = read_table(table)
    for r in rows:
        if r["site"].startswith("0x"):
            fail("%s: a site not named from the symbol table: %s %s" % (table, r["kind"],
                                                                         r["site"]))
    if not any("._omp_fn." in r["site"] for r in rows):
        fail("%s: no site in an outlined function (NAME._omp_fn.N) named" % table)


def check_merge(merged, tables):
    """One row per kind and site of the tables, with their counts summed."""
    rows, header = read_table(merged)
    if "merged %d tables" % len(tables) not in header:
        fail("%s: the header does not say 'merged %d tables': %s" % (merged, len(tables), header))
    want = {}
    for t in tables:
        for r in read_table(t)[0]:
            key = (r["kind"], r["site"])
            want[key] = want.get(key, 0) + int(r["count"])
    got = {}
    for r in rows:
        key = (r["kind"], r["site"])
        if key in got:
            fail("%s: two rows for %s %s" % (merged, r["kind"], r["site"]))
        got[key] = int(r["count"])
    if got != want:
        for key in sorted(set(got) | set(want)):
            if got.get(key) != want.get(key):
                fail("%s: %s %s: count %s, expected %s (the tables' sum)"
                     % (merged, key[0], key[1], got.get(key), want.get(key)))


def check_merged(merged, runs, n):
    """The merge of `runs` runs of profile_edges at n threads, from a log of their stderr."""
    rows, header = read_table(merged)
    if "merged %d tables" % runs not in header:
        fail("%s: the header does not say 'merged %d tables': %s" % (merged, runs, header))
    expect_count(rows, "parallel", "site_reduce", runs * EDGE_REPS, merged)
    expect_count(rows, "barrier", "site_single_tasks", runs * EDGE_REPS * n, merged)
    expect_count(rows, "barrier", "site_others_barrier", runs * EDGE_REPS * (n - 1), merged)


def check_tool(table, trace, out):
    """shape with the program's own OMPT tool attached (PROFILE_TOOL=1): the tasks' rows are
    there, as without a tool, with the time of their bodies (before: tasks made, none seen run,
    and no taskwait row), the trace has an interval for each task, and the tool saw every task
    made and run."""
    rows, _ = read_table(table)
    task = expect_count(rows, "task", "site_tasks", TASKS, table)
    if task is not None and float(task["total-ms"]) <= 0:
        fail("%s: the tasks' row has no time: their bodies were not seen" % table)
    expect_count(rows, "taskwait", "site_tasks", 1, table)
    lanes, _, _ = read_trace(trace)
    ran = sum(begins(evs, "task") for evs in lanes.values())
    if ran != TASKS:
        fail("%s: %d task intervals, expected %d" % (trace, ran, TASKS))
    with open(out) as f:
        said = [line.strip() for line in f if line.startswith("tool: ")]
    want = "tool: %d tasks created, %d ran" % (TASKS, TASKS)
    if said != [want]:
        fail("%s: the tool said %s, expected %r" % (out, said, want))


def main(argv):
    mode = argv[1]
    if mode == "shape":
        check_shape(int(argv[2]), argv[3], argv[4], int(argv[5]) if len(argv) > 5 else 1 << 20)
    elif mode == "tool":
        check_tool(argv[2], argv[3], argv[4])
    elif mode == "full":
        check_full(int(argv[2]), argv[3])
    elif mode == "fork":
        check_fork(int(argv[2]), argv[3], argv[4], argv[5])
    elif mode == "roots":
        check_roots(int(argv[2]), argv[3], argv[4])
    elif mode == "edges":
        check_edges(int(argv[2]), argv[3], *argv[4:5])
    elif mode == "stripped":
        check_edges(0, argv[2], argv[3], named=False)
    elif mode == "symtab":
        check_symtab(int(argv[2]), argv[3], argv[4])
    elif mode == "merge":
        check_merge(argv[2], argv[3:])
    elif mode == "merged":
        check_merged(argv[2], int(argv[3]), int(argv[4]))
    else:
        fail("unknown mode %s" % mode)
    for p in problems:
        print("profile_check: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
