"""numpy on OpenBLAS's OpenMP build, run by tests/integration/numpy_openblas.sh on libomp-lite.

Checks, each printing one line; any failure exits 1 with a line starting FAIL:
  - numpy loaded OpenBLAS from its OpenMP build (the openblas-openmp directory); which runtime
    OpenBLAS's OpenMP calls bind to is proved by the caller, from LD_DEBUG=bindings;
  - matrix products of the shapes BLAS splits over threads (double, single, complex) equal the
    exact products of the same integer matrices computed in int64 by numpy's own loops (no BLAS);
    a matrix-vector product likewise; a LAPACK solve leaves a small residual;
  - with ONLY_OMP_RUNTIME=1 (the drop-in route), no libgomp or libomp other than
    EXPECT_OMP_RUNTIME is mapped;
  - OpenBLAS really ran on several threads: after the products the process has more than one
    thread (OpenMP workers) when more than one thread is asked for and more than one CPU is free;
  - threadpoolctl (when installed) reports OpenBLAS with the "openmp" threading layer, and an
    OpenMP runtime at EXPECT_OMP_RUNTIME (a path, compared after resolving links); under threadpool_limits(1) the products stay exact.
Prints "numpy_openblas: ok" at the end.
"""
import os
import sys

import numpy as np

failed = False


def check(ok, what):
    global failed
    print(("ok    " if ok else "FAIL: ") + what, flush=True)
    if not ok:
        failed = True


def mapped_objects():
    paths = []
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) == 6 and parts[5].startswith("/"):
                p = parts[5].strip()
                if p not in paths:
                    paths.append(p)
    return paths


expect = os.path.realpath(os.environ["EXPECT_OMP_RUNTIME"])
nthreads = int(os.environ.get("OMP_NUM_THREADS", "1").split(",")[0])
ncpus = len(os.sched_getaffinity(0))

objs = mapped_objects()
openblas = [p for p in objs if "/openblas-openmp/" in p]
check(any(os.path.basename(p).startswith("libopenblas") for p in openblas),
      "numpy loaded OpenBLAS's OpenMP build: " + (", ".join(openblas) or "none mapped"))
if os.environ.get("ONLY_OMP_RUNTIME") == "1":
    gomps = [p for p in objs if os.path.basename(p).startswith(("libgomp", "libomp"))]
    check(all(os.path.realpath(p) == expect for p in gomps),
          "the only OpenMP runtime mapped is %s (mapped: %s)" % (expect, ", ".join(gomps)))

# Integer matrices: every product below is exact in double, single (|entries| <= 5, sums of at
# most 640 products < 2^24) and complex, so it must equal the int64 product bit for bit.
def int_matrix(rows, cols, seed):
    i = np.arange(rows, dtype=np.int64)[:, None]
    j = np.arange(cols, dtype=np.int64)[None, :]
    return (i * 7 + j * 3 + seed * 5 + (i * j) % 13) % 11 - 5


SHAPES = [(384, 256, 320), (300, 257, 411), (640, 64, 333), (1, 700, 900)]
# The exact answers, computed once: int64 products by numpy's own loops, no BLAS.
CASES = []
for m, k, n in SHAPES:
    a, b = int_matrix(m, k, 1), int_matrix(k, n, 2)
    ia, ib = int_matrix(m, k, 3), int_matrix(k, n, 4)
    ab, iaib, iab, aib = np.matmul(a, b), np.matmul(ia, ib), np.matmul(ia, b), np.matmul(a, ib)
    # (a + i ia) (b - i ib) = (ab + ia ib) + i (ia b - a ib)
    CASES.append((m, k, n, a, b, ab, a + 1j * ia, b - 1j * ib, (ab + iaib) + 1j * (iab - aib)))
MV_A, MV_X = int_matrix(2000, 1500, 5), int_matrix(1500, 1, 6)[:, 0]
MV_WANT = np.matmul(MV_A, MV_X)


def products_exact(label):
    for m, k, n, a, b, want, ca, cb, cwant in CASES:
        for dt in (np.float64, np.float32):
            got = a.astype(dt) @ b.astype(dt)
            check(np.array_equal(got, want.astype(dt)),
                  "%s %s (%dx%d)@(%dx%d) exact" % (label, np.dtype(dt).name, m, k, k, n))
        check(np.array_equal(ca @ cb, cwant),
              "%s complex128 (%dx%d)@(%dx%d) exact" % (label, m, k, k, n))
    check(np.array_equal(MV_A.astype(np.float64) @ MV_X.astype(np.float64), MV_WANT),
          "%s float64 matrix-vector (2000x1500) exact" % label)
    rng = np.random.default_rng(12345)
    s = rng.standard_normal((400, 400)) + 400 * np.eye(400)
    rhs = rng.standard_normal((400, 8))
    sol = np.linalg.solve(s, rhs)
    res = np.abs(s @ sol - rhs).max()
    check(res < 1e-10, "%s LAPACK solve 400x400: residual %.2e < 1e-10" % (label, res))


products_exact("%d threads:" % nthreads)

ntasks = len(os.listdir("/proc/self/task"))
if nthreads >= 2 and ncpus >= 2:
    check(ntasks >= 2, "the process has %d threads after the products (OpenMP workers)" % ntasks)
else:
    print("skip  thread count check (%d threads asked, %d CPUs)" % (nthreads, ncpus))

try:
    import threadpoolctl
except ImportError:
    threadpoolctl = None
    print("skip  threadpoolctl is not installed")
if threadpoolctl is not None:
    info = threadpoolctl.threadpool_info()
    for entry in info:
        print("      threadpoolctl: %s %s %s threads=%s layer=%s" % (
            entry.get("user_api"), entry.get("internal_api"), entry.get("filepath"),
            entry.get("num_threads"), entry.get("threading_layer", "-")))
    ob = [e for e in info if e.get("internal_api") == "openblas"]
    check(len(ob) >= 1 and all(e.get("threading_layer") == "openmp" for e in ob),
          "threadpoolctl: OpenBLAS with the openmp threading layer")
    check(all(1 <= int(e.get("num_threads", 0)) <= max(nthreads, 1) for e in ob),
          "threadpoolctl: OpenBLAS uses between 1 and %d threads" % max(nthreads, 1))
    omp = [os.path.realpath(e["filepath"]) for e in info if e.get("user_api") == "openmp"]
    check(expect in omp, "threadpoolctl: an OpenMP runtime at %s among %s" % (expect, omp))
    with threadpoolctl.threadpool_limits(limits=1):
        products_exact("threadpool_limits(1):")
    products_exact("%d threads again:" % nthreads)

if failed:
    sys.exit(1)
print("numpy_openblas: ok")
