"""numpy on OpenBLAS's OpenMP build, one part per process, for bench/apps/run.

usage: numpy_parts.py small|large|solve
  small  200 products of 256x256 double matrices (short OpenMP regions, many of them)
  large  2 products of 2000x2000 double matrices (long regions)
  solve  1 LAPACK solve of a 2000x2000 system (getrf/getrs through OpenBLAS)
Prints "seconds <s>" (the part alone, after a warm-up call, numpy's import excluded) and
"result <text>": the products are of small integer matrices, exact in doubles, so their sums and
a hash of their bits agree under every runtime; the solve prints whether its residual is small."""
import hashlib
import sys
import time

import numpy as np


def ints(n, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(-8, 9, size=(n, n)).astype(np.float64)


def main():
    part = sys.argv[1] if len(sys.argv) > 1 else ""
    if part == "small":
        a, b = ints(256, 1), ints(256, 2)
        c = a @ b
        t0 = time.perf_counter()
        h = hashlib.sha1()
        for _ in range(200):
            c = a @ b
            a, b = b, a
        t1 = time.perf_counter()
        h.update(c.tobytes())
        result = "%d %s" % (int(c.sum()), h.hexdigest()[:16])
    elif part == "large":
        a, b = ints(2000, 3), ints(2000, 4)
        c = a[:200, :200] @ b[:200, :200]
        t0 = time.perf_counter()
        for _ in range(2):
            c = a @ b
        t1 = time.perf_counter()
        result = "%d %s" % (int(c.sum()), hashlib.sha1(c.tobytes()).hexdigest()[:16])
    elif part == "solve":
        rng = np.random.default_rng(5)
        a = rng.standard_normal((2000, 2000)) + 2000 * np.eye(2000)
        x_true = rng.standard_normal(2000)
        b = a @ x_true
        np.linalg.solve(a[:200, :200], b[:200])
        t0 = time.perf_counter()
        x = np.linalg.solve(a, b)
        t1 = time.perf_counter()
        err = float(np.max(np.abs(x - x_true)))
        result = "residual-ok" if err < 1e-9 else "residual-BAD %g" % err
    else:
        sys.stderr.write(__doc__)
        return 2
    print("seconds %.6f" % (t1 - t0))
    print("result %s" % result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
