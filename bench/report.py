#!/usr/bin/env python3
"""bench/report.py: the results section of docs/benchmarks.md, and its charts, from the raw
file that bench/run-bench writes (`make bench-report`; issue 40).

    bench/report.py --raw bench-raw.txt [--doc docs/benchmarks.md] [--charts docs/bench]

It replaces what lies between the lines `<!-- results: begin -->` and `<!-- results: end -->`
of the page (and nothing else) with: the headline chart, one chart per table, where and when
the samples were taken (date, CPU model, CPUs, the cache-line round trip of bench/floor, the
commit, the options), then the tables: per row and runtime the median and the interquartile
range (q1..q3) of every sample, the ratios of the medians lite/libgomp and lite/LLVM, and
CPU/wall per runtime: the CPU time (user + system, all threads) over the wall time of the
window of the row's samples, i.e. the CPUs the runtime kept busy on average. A runtime that wins wall time by
spinning shows there.

The raw format is run-bench's (see its header lines): `config runtime row round value` per
sample, `config runtime cpu round row wall_s user_s sys_s` per process (and `cpuwin`, the same
over the window of the row's samples alone, which the tables use when present: a short process
is mostly its single-threaded start-up), `config runtime away
round row percent`, `config runtime serial round fib us`, `config runtime checksum round sum
energy`, and `#` lines (date, options, runtimes, units, families, machine, commit, floor).
Raw files written before the CPU, machine and family lines existed still work: what they lack
reads "not recorded".

The charts are SVG, drawn with matplotlib (Debian: python3-matplotlib). Without it the script
exits with status 3 (or, with --no-charts, writes the tables alone). If the python3 that runs
it lacks matplotlib and /usr/bin/python3 has it (a pyenv or venv python first on PATH), it
runs itself again under /usr/bin/python3.
"""

import argparse
import datetime
import os
import re
import sys

BEGIN = "<!-- results: begin -->"
END = "<!-- results: end -->"

RUNTIMES = ["libgomp", "llvm", "lite"]
LABEL = {"libgomp": "libgomp", "llvm": "LLVM", "lite": "lite"}
LONG_LABEL = {"libgomp": "GNU libgomp", "llvm": "LLVM libomp", "lite": "libomp-lite"}
COLOR = {"libgomp": "#4C72B0", "llvm": "#DD8452", "lite": "#55A868"}

FAMILIES = ["sync", "loop", "task", "reuse"]
FAMILY_TITLE = {"sync": "constructs and the stencil", "loop": "loops", "task": "tasks",
                "reuse": "binding (static blocks reused across regions)"}
# syncbench's rows and the two whole programs of the first table, with their units
SYNC_UNIT = {"stencil": "s/run", "heapchurn": "ms/step", "heapchurn-sys": "ms/step"}
SYNC_ROWS = ["parallel", "for", "barrier", "single", "critical", "lock", "atomic", "reduction",
             "stencil", "heapchurn", "heapchurn-sys"]
TASK_UNITS = {"us/task", "us/fib", "us/taskloop", "us/taskgroup", "us/node"}
CLIP_LO, CLIP_HI = 1e-3, 1e3  # the headline's range of ratios


def need_matplotlib():
    """matplotlib, or None: from this python, else from /usr/bin/python3 by running again."""
    try:
        import matplotlib
        return matplotlib
    except ImportError:
        pass
    system = "/usr/bin/python3"
    if (not os.environ.get("BENCH_REPORT_AGAIN") and os.path.exists(system)
            and os.path.realpath(system) != os.path.realpath(sys.executable)):
        os.environ["BENCH_REPORT_AGAIN"] = "1"
        os.execv(system, [system] + sys.argv)
    return None


# ---- reading the raw file ----

class Raw:
    def __init__(self):
        self.date = None            # "2026-12-04T14:10:35Z"
        self.host = None
        self.cpus = None            # what nproc said
        self.load = None            # the load averages at the start
        self.options = {}           # rounds, samples, target_us, ...
        self.runtimes = []          # in the file's order
        self.runtime_path = {}
        self.unavailable = {}
        self.env = []
        self.units = {}
        self.families = {}          # family -> [rows]
        self.cpu_model = None
        self.kernel = None
        self.commit = None          # (describe, hash)
        self.floor = []             # round trips, ns
        self.floor_cpus = None
        self.failures = []
        self.configs = []           # in the order they ran
        self.samples = {}           # (config, row, runtime) -> [values]
        self.cpu = {}               # (config, row, runtime) -> [wall, cpu] summed
        self.cpuwin = {}            # the same over the samples alone (cpuwin lines), preferred
        self.away = {}              # (config, row, runtime) -> [percent]
        self.serial = {}            # (config, runtime) -> [fib us]
        self.checksums = {}         # config -> {runtime: set of sums}
        self.rows = {}              # config -> [rows in the order they ran]


def parse_raw(path):
    raw = Raw()
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    for line in lines:
        if line.startswith("#"):
            parse_comment(raw, line[1:].strip())
            continue
        w = line.split()
        if len(w) < 5:
            continue
        cfg, rt, kind = w[0], w[1], w[2]
        if cfg not in raw.configs:
            raw.configs.append(cfg)
            raw.rows[cfg] = []
        try:
            if kind == "checksum":
                raw.checksums.setdefault(cfg, {}).setdefault(rt, set()).add(w[4])
            elif kind == "away" and len(w) >= 6:
                raw.away.setdefault((cfg, w[4], rt), []).append(float(w[5]))
            elif kind == "serial" and len(w) >= 6:
                raw.serial.setdefault((cfg, rt), []).append(float(w[5]))
            elif kind == "cpuwin" and len(w) >= 8:
                acc = raw.cpuwin.setdefault((cfg, w[4], rt), [0.0, 0.0])
                acc[0] += float(w[5])
                acc[1] += float(w[6]) + float(w[7])
            elif kind == "cpu" and len(w) >= 8:
                acc = raw.cpu.setdefault((cfg, w[4], rt), [0.0, 0.0])
                acc[0] += float(w[5])
                acc[1] += float(w[6]) + float(w[7])
            else:
                raw.samples.setdefault((cfg, kind, rt), []).append(float(w[4]))
                if kind not in raw.rows[cfg]:
                    raw.rows[cfg].append(kind)
        except ValueError:
            continue
        if rt not in raw.runtimes:
            raw.runtimes.append(rt)
    raw.runtimes = [r for r in RUNTIMES if r in raw.runtimes] + \
        [r for r in raw.runtimes if r not in RUNTIMES]
    return raw


def parse_comment(raw, text):
    w = text.split()
    if not w:
        return
    if w[0] == "run-bench" and len(w) >= 2:
        raw.date = w[1]
        kv = dict(zip(w[2::2], w[3::2]))
        raw.host = kv.get("host")
        raw.cpus = kv.get("cpus")
        m = re.search(r"\bload ([\d.]+(?: [\d.]+)*)", text)
        raw.load = m.group(1) if m else None
    elif w[0] == "rounds":
        raw.options = dict(zip(w[0::2], w[1::2]))
    elif w[0] == "runtime" and len(w) >= 2:
        rt = w[1]
        m = re.search(r"expect '([^']*)'", text)
        raw.runtime_path[rt] = m.group(1) if m else ""
        m = re.search(r"unavailable: (.*)", text)
        if m:
            raw.unavailable[rt] = m.group(1)
        if rt not in raw.runtimes:
            raw.runtimes.append(rt)
    elif w[0] == "env":
        raw.env.append(text[4:])
    elif w[0] == "unit" and len(w) >= 3:
        raw.units[w[1]] = w[2]
    elif w[0] == "family" and len(w) >= 2:
        raw.families[w[1]] = w[2:]
    elif w[0] == "machine" and len(w) >= 2:
        value = text.split(None, 2)[2] if len(w) >= 3 else ""
        if w[1] == "cpu_model":
            raw.cpu_model = value
        elif w[1] == "kernel":
            raw.kernel = value
    elif w[0] == "commit":
        raw.commit = (w[1], w[2] if len(w) >= 3 else w[1]) if len(w) >= 2 else None
    elif w[0] == "floor" and len(w) >= 3:
        if w[1] == "roundtrip_ns":
            try:
                raw.floor.append(float(w[2]))
            except ValueError:
                pass
        elif w[1] == "cpus" and len(w) >= 4:
            raw.floor_cpus = (w[2], w[3])
    elif w[0] == "failure":
        raw.failures.append(text[len("failure "):])


def family_of(raw, row):
    for fam in FAMILIES:
        if row in raw.families.get(fam, []):
            return fam
    if row == "heapchurn-sys" and "heapchurn" in raw.families.get("sync", []):
        return "sync"
    # raw files from before the family lines
    if row in SYNC_ROWS:
        return "sync"
    if row.startswith("reuse"):
        return "reuse"
    if raw.units.get(row) in TASK_UNITS:
        return "task"
    if row in raw.units:
        return "loop"
    return None  # stencil-1t and the like: not a row of a table


def unit_of(raw, row):
    return raw.units.get(row) or SYNC_UNIT.get(row, "us")


# ---- statistics: as run-bench's tables compute them ----

def quantile(sorted_v, p):
    """linear interpolation between the order statistics, as in run-bench"""
    n = len(sorted_v)
    h = (n - 1) * p
    lo = int(h)
    if lo >= n - 1:
        return sorted_v[-1]
    return sorted_v[lo] + (h - lo) * (sorted_v[lo + 1] - sorted_v[lo])


class Stat:
    def __init__(self, values):
        v = sorted(values)
        self.n = len(v)
        self.med = quantile(v, 0.5)
        self.q1 = quantile(v, 0.25)
        self.q3 = quantile(v, 0.75)


def fmt(x):
    a = abs(x)
    if a >= 100:
        return "%.0f" % x
    if a >= 10:
        return "%.1f" % x
    if a >= 1:
        return "%.2f" % x
    if x == 0:
        return "0"
    return "%#.3g" % x  # three significant digits, trailing zeros kept: 0.310, 0.00312


def ratio(x, y):
    """x / y of two Stats, as run-bench marks it: None where it means nothing; '~' where the
    quartile ranges overlap and one reaches below zero, '*' where only the divisor's spans 0"""
    if x is None or y is None or y.med <= 0 or x.med < 0:
        return None, ""
    r = x.med / y.med
    mark = ""
    if (x.q1 < 0 or y.q1 < 0) and x.q1 <= y.q3 and y.q1 <= x.q3:
        mark = "~"
    elif y.q1 < 0 < y.q3:
        mark = "*"
    return r, mark


def fmt_ratio(r):
    if r >= 100:
        return "%.0f" % r
    if r >= 10:
        return "%.1f" % r
    if r >= 0.1:
        return "%.2f" % r
    return "%.2g" % r  # two significant digits: 0.032, 0.0004


def config_title(raw, cfg):
    nth, _, busy = cfg.partition("+")
    cpus = raw.cpus or "?"
    plural = "" if nth == "1" else "s"
    if not busy:
        return "%s thread%s (%s CPUs)" % (nth, plural, cpus)
    if busy == "busy":
        return "%s thread%s + a busy process on the last CPU (%s CPUs)" % (nth, plural, cpus)
    k = busy[len("busy"):]
    return "%s thread%s + %s busy processes on any CPU (%s CPUs)" % (nth, plural, k, cpus)


def slug(cfg):
    return re.sub(r"[^A-Za-z0-9]+", "-", cfg).strip("-")


class Table:
    def __init__(self, raw, cfg, family, rows):
        self.cfg = cfg
        self.family = family
        self.rows = rows
        self.title = "%s: %s" % (config_title(raw, cfg), FAMILY_TITLE[family])
        self.chart = "%s-%s.svg" % (family, slug(cfg))
        self.stat = {}
        self.cpu = {}
        for row in rows:
            for rt in raw.runtimes:
                v = raw.samples.get((cfg, row, rt))
                self.stat[row, rt] = Stat(v) if v else None
                # heapchurn-sys is measured in the heapchurn runs
                key = (cfg, "heapchurn" if row == "heapchurn-sys" else row, rt)
                c = raw.cpuwin.get(key) or raw.cpu.get(key)
                self.cpu[row, rt] = c[1] / c[0] if c and c[0] > 0 else None


def tables_of(raw):
    out = []
    for cfg in raw.configs:
        by_family = {}
        for row in raw.rows[cfg]:
            fam = family_of(raw, row)
            if fam:
                by_family.setdefault(fam, []).append(row)
        # heapchurn-sys right below heapchurn
        sync = by_family.get("sync", [])
        if "heapchurn-sys" in sync and "heapchurn" in sync:
            sync.remove("heapchurn-sys")
            sync.insert(sync.index("heapchurn") + 1, "heapchurn-sys")
        for fam in FAMILIES:
            if by_family.get(fam):
                out.append(Table(raw, cfg, fam, by_family[fam]))
    return out


# ---- the markdown ----

def row_label(raw, row):
    return "%s (%s)" % (row, unit_of(raw, row))


def markdown_table(raw, t):
    rts = raw.runtimes
    has = set(rts)
    head = ["row"] + ["%s median (q1..q3)" % LABEL.get(r, r) for r in rts]
    pairs = []
    if "lite" in has and "libgomp" in has:
        pairs.append(("lite", "libgomp"))
    if "lite" in has and "llvm" in has:
        pairs.append(("lite", "llvm"))
    if "lite" not in has and "libgomp" in has and "llvm" in has:
        pairs.append(("llvm", "libgomp"))
    head += ["%s/%s" % (LABEL[a], LABEL[b]) for a, b in pairs]
    head.append("CPU/wall " + " / ".join(LABEL.get(r, r) for r in rts))
    has_away = any(raw.away.get((t.cfg, row, r)) for row in t.rows for r in rts)
    if has_away:
        head.append("away " + " / ".join(LABEL.get(r, r) for r in rts))
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    marks = set()
    for row in t.rows:
        cells = ["`%s` (%s)" % (row, unit_of(raw, row))]
        for r in rts:
            s = t.stat[row, r]
            cells.append("%s (%s..%s)" % (fmt(s.med), fmt(s.q1), fmt(s.q3)) if s else "n/a")
        for a, b in pairs:
            value, mark = ratio(t.stat[row, a], t.stat[row, b])
            cells.append(fmt_ratio(value) + mark if value is not None else "n/a")
            if mark:
                marks.add(mark)
        cells.append(" / ".join("%.2f" % t.cpu[row, r] if t.cpu[row, r] is not None else "n/a"
                                for r in rts))
        if has_away:
            aw = []
            for r in rts:
                v = raw.away.get((t.cfg, row, r))
                aw.append("%.0f%%" % Stat(v).med if v else "n/a")
            cells.append(" / ".join(aw))
        lines.append("| " + " | ".join(cells) + " |")
    notes = []
    if "~" in marks:
        notes.append("`~`: the two quartile ranges overlap and one reaches below zero: the "
                     "difference is within the noise, whatever the ratio says.")
    if "*" in marks:
        notes.append("`*`: the divisor's quartile range spans zero (its overhead is not told "
                     "apart from none), so the ratio can take any size: compare the medians' "
                     "difference.")
    if has_away:
        notes.append("away: the share of the work that ran on threads other than the creating "
                     "one (median over the runs; 0% = the creator ran it all: cheap, but not "
                     "parallel).")
    serial = [(r, raw.serial.get((t.cfg, r))) for r in rts]
    serial = [(r, v) for r, v in serial if v]
    if t.family == "task" and serial and "fib" in t.rows:
        notes.append("fib without tasks, on one thread (median of every run): " + ", ".join(
            "%s %s us" % (LABEL.get(r, r), fmt(Stat(v).med)) for r, v in serial) + ".")
    if t.family == "sync" and "stencil" in t.rows:
        notes.extend(stencil_notes(raw, t))
    return "\n".join(lines) + ("\n\n" + "\n\n".join(notes) if notes else "")


def stencil_notes(raw, t):
    notes = []
    one = [(r, raw.samples.get((t.cfg, "stencil-1t", r))) for r in raw.runtimes]
    one = [(r, Stat(v).med) for r, v in one if v]
    if one:
        nth = int(t.cfg.partition("+")[0])
        used = min(nth, int(raw.cpus)) if raw.cpus and raw.cpus.isdigit() else nth
        ideal = min(m for _, m in one) / max(used, 1)
        text = ("The stencil on one thread (s/run, median): " +
                ", ".join("%s %s" % (LABEL.get(r, r), fmt(m)) for r, m in one) +
                "; split over %d CPUs with no overhead at all it would take %s" % (used, fmt(ideal)))
        ref = t.stat.get(("stencil", "libgomp"))
        if ref and ref.med > 0:
            text += ", %.2f x libgomp's median above" % (ideal / ref.med)
        notes.append(text + ".")
    sums = raw.checksums.get(t.cfg)
    if sums:
        seen = set()
        for s in sums.values():
            seen |= s
        notes.append("Stencil checksums %s across the runtimes." %
                     ("agree" if len(seen) == 1 else "DISAGREE (%s)" % ", ".join(sorted(seen))))
    return notes


def machine_text(raw):
    date = raw.date or "an unrecorded date"
    try:
        d = datetime.datetime.strptime(raw.date, "%Y-%m-%dT%H:%M:%SZ")
        date = d.strftime("%Y-%m-%d %H:%M UTC")
    except (TypeError, ValueError):
        pass
    model = raw.cpu_model or "CPU model not recorded"
    cpus = "%s CPUs" % raw.cpus if raw.cpus else "CPU count not recorded"
    parts = ["**When and where**: %s, %s, %s" % (date, model, cpus)]
    if raw.kernel:
        parts[-1] += ", Linux %s" % raw.kernel
    if raw.host:
        parts[-1] += " (host `%s`)" % raw.host
    parts[-1] += "."
    if raw.floor:
        s = Stat(raw.floor)
        cpus_pair = " %s and %s" % raw.floor_cpus if raw.floor_cpus else ""
        parts.append("**Hardware floor** (`bench/floor`): a cache line's round trip between "
                     "CPUs%s takes %.0f ns (median of %d samples, min..max %.0f..%.0f): no "
                     "2-thread fork and join can cost less." %
                     (cpus_pair, s.med, s.n, min(raw.floor), max(raw.floor)))
    else:
        parts.append("**Hardware floor**: not recorded (bench/floor needs 2 CPUs).")
    if raw.commit and raw.commit[0] != "unknown":
        parts.append("**Commit**: `%s` (%s)." % (raw.commit[0], raw.commit[1]))
    else:
        parts.append("**Commit**: unknown (not run from a git tree).")
    o = raw.options
    if o:
        parts.append("**Runs** (rounds of one process per runtime, in a rotating order): "
                     "construct rows %s, loop rows %s, task rows %s, binding rows %s; %s samples "
                     "a process, of %s us each (%s us with busy processes)." %
                     (o.get("rounds", "?"), o.get("loop-rounds", "?"), o.get("task-rounds", "?"),
                      o.get("reuse-rounds", "?"), o.get("samples", "?"), o.get("target_us", "?"),
                      o.get("busy_target_us", "?")))
    load = (raw.load or "").split()
    if load:
        parts.append("**Load average** at the start: %s." % load[0])
    rts = []
    for r in raw.runtimes:
        path = raw.runtime_path.get(r, "")
        how = " (LD_PRELOAD)" if r != "libgomp" else ""
        if r in raw.unavailable:
            rts.append("%s: n/a (%s)" % (LONG_LABEL.get(r, r), raw.unavailable[r]))
        else:
            rts.append("%s `%s`%s" % (LONG_LABEL.get(r, r), path, how))
    if rts:
        parts.append("**Runtimes**: " + "; ".join(rts) + ".")
    env = [e for e in raw.env if not e.startswith("LITE_SO=")]
    if env:
        parts.append("**Environment**: " + ", ".join("`%s`" % e for e in env) + ".")
    return parts


def warnings_text(raw):
    out = []
    try:
        rounds = int(raw.options.get("rounds", "0"))
    except ValueError:
        rounds = 0
    if 0 < rounds < 3:
        out.append("**Only %d round(s) a runtime (a `--quick` run?): a smoke test of the "
                   "pipeline, not a measurement.**" % rounds)
    try:
        if raw.load and raw.cpus and float(raw.load.split()[0]) > 0.5 * int(raw.cpus):
            out.append("**The machine was loaded when the run started (load average %s on %s "
                       "CPUs): expect wide quartiles, and trust only large ratios.**" %
                       (raw.load.split()[0], raw.cpus))
    except ValueError:
        pass
    if raw.failures:
        out.append("**%d failure(s)** (n/a in the tables):\n\n" % len(raw.failures) +
                   "\n".join("- %s" % f for f in raw.failures))
    return out


def section(raw, tables, charts_rel, headline, raw_name):
    """the text between the markers"""
    out = ["## Results", "",
           "*Generated by `make bench-report` (bench/report.py) from `%s`; edit the generator, "
           "not this section.*" % raw_name, ""]
    if charts_rel is not None:
        if headline:
            out += ["![%s](%s/%s)" % (headline[1], charts_rel, headline[0]), ""]
        for t in tables:
            out += ["![%s](%s/%s)" % (t.title, charts_rel, t.chart), ""]
    for w in warnings_text(raw):
        out += [w, ""]
    out += ["- " + p for p in machine_text(raw)]
    out += ["",
            "Each cell: the median of every sample of every run, with the interquartile range "
            "(q1..q3); lower is faster. Ratios are ratios of the medians: below 1, libomp-lite "
            "is faster. **CPU/wall**: the CPU time (user + system, all threads) over the wall "
            "time of the window in which a row's samples were taken (references included), "
            "summed over the runs: the CPUs the runtime kept busy on average, so a runtime "
            "that waits by spinning reads near the thread count (at most the CPUs), one that "
            "sleeps lower (raw files without those windows: the whole processes, start-up "
            "included).", ""]
    for t in tables:
        out += ["### %s" % t.title, "", markdown_table(raw, t), ""]
    return "\n".join(out).rstrip("\n") + "\n"


def replace_section(doc_path, text):
    with open(doc_path, encoding="utf-8") as f:
        doc = f.read()
    b = doc.find(BEGIN)
    e = doc.find(END)
    if b < 0 or e < b:
        sys.exit("report.py: %s has no '%s' ... '%s' lines to write between" % (doc_path, BEGIN, END))
    new = doc[:b + len(BEGIN)] + "\n" + text + doc[e:]
    tmp = doc_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(new)
    os.replace(tmp, doc_path)


# ---- the charts ----

def pretty_unit(u):
    return re.sub(r"^us", "µs", u)


def plain_log_ticks(ax):
    """tick labels 0.01, 0.1, 1, 10 rather than powers of ten: the values are read, not the
    exponents"""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    ax.yaxis.set_major_locator(LogLocator(base=10))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "%g" % v))
    ax.yaxis.set_minor_formatter(NullFormatter())


def setup_matplotlib(mpl):
    mpl.use("Agg")
    mpl.rcParams.update({
        "font.size": 9, "axes.titlesize": 10, "axes.spines.top": False,
        "axes.spines.right": False, "svg.hashsalt": "libomp-lite-bench", "svg.fonttype": "path",
        "axes.axisbelow": True,
    })


def save(fig, path, png):
    fig.savefig(path, format="svg", metadata={"Date": None}, bbox_inches="tight")
    if png:
        fig.savefig(os.path.splitext(path)[0] + ".png", format="png", dpi=110,
                    bbox_inches="tight")


def unit_groups(raw, rows):
    groups = []
    for row in rows:
        u = unit_of(raw, row)
        for g in groups:
            if g[0] == u:
                g[1].append(row)
                break
        else:
            groups.append((u, [row]))
    return groups


def draw_table(plt, raw, t, path, png):
    """per row three bars (one per runtime): the median, whiskers q1..q3; one panel per unit
    (log scale where the panel's values span more than 20x); under it the CPUs kept busy"""
    rts = raw.runtimes
    groups = unit_groups(raw, t.rows)
    nrows = len(t.rows)
    width = min(max(4.5, 0.42 * len(rts) * nrows + 1.1 * len(groups) + 1.0), 22)
    fig = plt.figure(figsize=(width, 5.6))
    gs = fig.add_gridspec(2, len(groups), height_ratios=[3, 1.25],
                          width_ratios=[max(len(g[1]), 1.6) for g in groups],
                          hspace=0.08, wspace=0.35)
    try:
        ncpus = int(raw.cpus)
    except (TypeError, ValueError):
        ncpus = None
    nth = int(t.cfg.partition("+")[0])
    busy_line = min(nth, ncpus) if ncpus else nth
    bw = 0.8 / len(rts)
    for gi, (unit, rows) in enumerate(groups):
        top = fig.add_subplot(gs[0, gi])
        bottom = fig.add_subplot(gs[1, gi], sharex=top)
        positive = [s.med for row in rows for r in rts
                    for s in [t.stat[row, r]] if s and s.med > 0]
        positive += [s.q3 for row in rows for r in rts for s in [t.stat[row, r]] if s and s.q3 > 0]
        log = bool(positive) and max(positive) / min(positive) > 20
        floor = min(positive) / 4 if positive else 1e-3
        for j, r in enumerate(rts):
            xs, hs, lo, hi = [], [], [], []
            for i, row in enumerate(rows):
                s = t.stat[row, r]
                x = i + (j - (len(rts) - 1) / 2) * bw
                if s is None:
                    top.text(x, 0.01, "n/a", rotation=90, ha="center", va="bottom", fontsize=7,
                             color="#555555", transform=top.get_xaxis_transform())
                    continue
                if s.med <= 0:
                    top.text(x, 0.01, "0" if s.med == 0 else "<0", ha="center", va="bottom",
                             fontsize=7, color=COLOR.get(r, "black"),
                             transform=top.get_xaxis_transform())
                    continue
                xs.append(x)
                hs.append(s.med)
                q1 = s.q1 if not log or s.q1 > 0 else floor
                lo.append(max(s.med - q1, 0))
                hi.append(max(s.q3 - s.med, 0))
            if xs:
                top.bar(xs, hs, bw * 0.92, color=COLOR.get(r), label=LONG_LABEL.get(r, r),
                        yerr=[lo, hi], error_kw={"elinewidth": 0.8, "capsize": 1.5,
                                                 "ecolor": "#333333"})
            cx = [i + (j - (len(rts) - 1) / 2) * bw for i in range(len(rows))]
            cv = [t.cpu[row, r] for row in rows]
            bottom.bar([x for x, v in zip(cx, cv) if v is not None],
                       [v for v in cv if v is not None], bw * 0.92, color=COLOR.get(r))
        if log:
            top.set_yscale("log")
            top.set_ylim(bottom=floor)
            plain_log_ticks(top)
        top.set_ylabel(pretty_unit(unit) + (" (log scale)" if log else ""))
        top.grid(axis="y", color="#dddddd", linewidth=0.6, which="major")
        top.tick_params(axis="x", labelbottom=False, length=0)
        top_cpu = max([v for row in rows for r in rts for v in [t.cpu[row, r]] if v] + [busy_line])
        bottom.set_ylim(0, top_cpu * 1.2)
        if all(t.cpu[row, r] is None for row in rows for r in rts):
            bottom.text(0.5, 0.5, "CPU time not recorded", transform=bottom.transAxes,
                        ha="center", va="center", fontsize=8, color="#555555")
        bottom.axhline(busy_line, color="#888888", linewidth=0.8, linestyle="--")
        if gi == 0:
            bottom.set_ylabel("CPUs busy\n(CPU s / wall s)")
        bottom.grid(axis="y", color="#dddddd", linewidth=0.6)
        bottom.set_xticks(range(len(rows)))
        rotate = len(rows) > 2 or (len(rows) > 1 and max(len(r) for r in rows) > 9)
        bottom.set_xticklabels(rows, rotation=40 if rotate else 0, ha="right" if rotate else "center",
                               fontsize=8)
        bottom.set_xlim(-0.6, len(rows) - 0.4)
    handles, labels = fig.axes[0].get_legend_handles_labels()
    for ax in fig.axes[2::2]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.suptitle("%s\nbars: median, whiskers: q1..q3, lower is faster; below: CPUs kept busy "
                 "(dashed: %d)" % (t.title, busy_line), fontsize=10, y=1.0)
    fig.legend(handles, labels, loc="upper right", ncol=len(rts), frameon=False,
               bbox_to_anchor=(1.0, 0.93), fontsize=8)
    save(fig, path, png)
    plt.close(fig)


def headline_rows(t):
    return [r for r in t.rows if r != "heapchurn-sys"]


def draw_headline(plt, raw, tables, path, png):
    """each configuration's first table, every runtime's median over the reference's (libgomp,
    else LLVM), log scale: the question 'faster than libgomp, on what, by how much' at a glance"""
    rts = raw.runtimes
    ref = "libgomp" if "libgomp" in rts else rts[0]
    others = [r for r in rts if r != ref]
    first = {}
    for t in tables:
        first.setdefault(t.cfg, t)
    shown = list(first.values())
    if not shown or not others:
        return None
    ncol = 2 if len(shown) > 1 else 1
    nrow = (len(shown) + ncol - 1) // ncol
    most = max(len(headline_rows(t)) for t in shown)
    fig, axes = plt.subplots(nrow, ncol, squeeze=False,
                             figsize=(max(8.0, 0.55 * most * ncol + 1.5), 3.3 * nrow + 0.9))
    values = []
    for t in shown:
        for row in headline_rows(t):
            for r in others:
                v, _ = ratio(t.stat[row, r], t.stat[row, ref])
                if v:
                    values.append(v)
    # at most 1000x either way: beyond that (a spinning waiter beside a busy process can lose
    # whole ticks) a bar is cut at the edge and its label says how far it goes
    lo = max(min(values + [0.5]) / 1.6, CLIP_LO)
    hi = min(max(values + [2.0]) * 1.6, CLIP_HI)
    bw = 0.8 / len(others)
    for k, t in enumerate(shown):
        ax = axes[k // ncol][k % ncol]
        rows = headline_rows(t)
        for j, r in enumerate(others):
            for i, row in enumerate(rows):
                v, mark = ratio(t.stat[row, r], t.stat[row, ref])
                x = i + (j - (len(others) - 1) / 2) * bw
                if not v:
                    ax.text(x, lo * 1.05, "n/a", rotation=90, ha="center", va="bottom", fontsize=7,
                            color="#555555")
                    continue
                # from the reference's 1, up when slower, down when faster
                ax.bar(x, v - 1, bw * 0.92, bottom=1, color=COLOR.get(r),
                       label=LONG_LABEL.get(r, r) if i == 0 else None)
                up = v >= 1
                rot = 90 if len(rows) > 6 else 0
                if not lo < v < hi:  # cut at the edge: the label goes inside, on the bar
                    ax.text(x, hi / 1.15 if up else lo * 1.15, fmt_ratio(v) + mark, ha="center",
                            va="top" if up else "bottom", fontsize=6.5, rotation=rot,
                            bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "none",
                                  "pad": 0.6})
                elif r == "lite":
                    ax.text(x, v * (1.08 if up else 1 / 1.08), fmt_ratio(v) + mark,
                            ha="center", va="bottom" if up else "top", fontsize=6.5,
                            rotation=rot)
        ax.axhline(1, color=COLOR.get(ref, "black"), linewidth=1.4)
        ax.text(len(rows) - 0.45, 1, " %s = 1" % LABEL.get(ref, ref), color=COLOR.get(ref, "black"),
                va="bottom", ha="right", fontsize=7.5)
        ax.set_yscale("log")
        ax.set_ylim(lo, hi)
        plain_log_ticks(ax)
        ax.set_title(config_title(raw, t.cfg), fontsize=9.5)
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels(rows, rotation=35, ha="right", fontsize=8)
        ax.set_xlim(-0.6, len(rows) - 0.4)
        ax.grid(axis="y", color="#dddddd", linewidth=0.6, which="major")
        if k % ncol == 0:
            ax.set_ylabel("time / %s's (log)" % LABEL.get(ref, ref))
    for k in range(len(shown), nrow * ncol):
        axes[k // ncol][k % ncol].axis("off")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.suptitle("Median time relative to %s (log scale): bars below its line are faster"
                 % LONG_LABEL.get(ref, ref), fontsize=10.5)
    fig.legend(handles, labels, loc="upper center", ncol=len(others), frameon=False,
               bbox_to_anchor=(0.5, 0.955), fontsize=8.5)
    fig.tight_layout(rect=(0, 0, 1, 0.92))
    save(fig, path, png)
    plt.close(fig)
    return ("headline.svg", "Median time relative to %s, per construct and configuration"
            % LONG_LABEL.get(ref, ref))


def draw_charts(mpl, raw, tables, charts_dir, png):
    setup_matplotlib(mpl)
    import matplotlib.pyplot as plt
    os.makedirs(charts_dir, exist_ok=True)
    # charts of an earlier report that this one does not draw again
    for name in os.listdir(charts_dir):
        if re.match(r"^(headline|(sync|loop|task|reuse)-[A-Za-z0-9-]+)\.(svg|png)$", name):
            os.remove(os.path.join(charts_dir, name))
    headline = draw_headline(plt, raw, tables, os.path.join(charts_dir, "headline.svg"), png)
    for t in tables:
        draw_table(plt, raw, t, os.path.join(charts_dir, t.chart), png)
    return headline


def main():
    ap = argparse.ArgumentParser(description="Write docs/benchmarks.md's results section and its "
                                 "charts from bench/run-bench's raw file.")
    ap.add_argument("--raw", default="bench-raw.txt", help="run-bench's raw file")
    ap.add_argument("--doc", default=None, help="the page whose results section is replaced "
                    "(default: docs/benchmarks.md beside this script's folder)")
    ap.add_argument("--charts", default=None, help="where the SVG charts go (default: bench/ "
                    "beside the page)")
    ap.add_argument("--png", action="store_true", help="also write each chart as PNG")
    ap.add_argument("--no-charts", action="store_true", help="the tables alone, no matplotlib")
    ap.add_argument("--stdout", action="store_true", help="print the section instead of "
                    "writing the page")
    args = ap.parse_args()

    here = os.path.dirname(os.path.abspath(__file__))
    doc = args.doc or os.path.join(os.path.dirname(here), "docs", "benchmarks.md")
    charts = args.charts or os.path.join(os.path.dirname(os.path.abspath(doc)), "bench")
    mpl = None
    if not args.no_charts:
        mpl = need_matplotlib()
        if mpl is None:
            print("report.py: the charts need matplotlib (apt-get install python3-matplotlib; "
                  ".ci/install-deps installs it), or give --no-charts", file=sys.stderr)
            return 3
    if not os.path.exists(args.raw):
        print("report.py: no raw file '%s' (run make bench, or give --raw FILE)" % args.raw,
              file=sys.stderr)
        return 2
    raw = parse_raw(args.raw)
    tables = tables_of(raw)
    if not tables:
        print("report.py: no samples in '%s'" % args.raw, file=sys.stderr)
        return 2
    headline = None
    charts_rel = None
    if mpl is not None:
        headline = draw_charts(mpl, raw, tables, charts, args.png)
        charts_rel = os.path.relpath(charts, os.path.dirname(os.path.abspath(doc)))
    text = section(raw, tables, charts_rel, headline, os.path.basename(args.raw))
    if args.stdout:
        sys.stdout.write(text)
    else:
        replace_section(doc, text)
        print("report.py: wrote %s%s" % (doc, ", %d charts in %s" % (len(tables) + bool(headline),
                                                                  charts) if mpl else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
