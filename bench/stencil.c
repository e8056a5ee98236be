/* stencil: a small time-stepping model with many short parallel loops, the shape of an ocean model
   or LULESH at small sizes, where fork/join and barrier costs decide the run time.

   The model is linear shallow water on a staggered (Arakawa C) grid, forward-backward in time, in
   a closed basin with a weak periodic forcing, carrying a tracer by upwind advection and diffusion.
   Each time step runs six `parallel for schedule(static)` regions over rows:
     1. u momentum    2. v momentum    3. walls (a boundary loop of n iterations: pure overhead)
     4. continuity (height) and forcing    5. tracer transport    6. an energy norm (reduction)
   Only the first five feed the state; the norm is a diagnostic. Every grid value is computed from
   the same inputs by the same operations whatever the thread count or runtime, so the final grids
   are bitwise identical and the checksum (FNV-1a over their bits) must agree exactly. The norm's
   summation order follows the runtime's reduction, so it only agrees to rounding.

   Output, for bench/run-bench:
     runtime <path> / runtime-gomp <path> / threads <team size>
     stencil steps <n> seconds <s>               one line per sample
     stencil checksum <16 hex digits> energy <e> one line per sample */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchutil.h"

/* Physical constants in grid units (dx = dt = 1): a = g dt/dx, b = H dt/dx, so the gravity-wave
   Courant number is sqrt(a b) = 0.32 (forward-backward is stable below 0.7 in 2D). Tracer: upwind
   with |u|,|v| < 0.2 plus diffusion 4 kappa = 0.2 keeps the scheme monotone. */
static const double A = 0.1, B = 1.0, DRAG = 1e-3, KAPPA = 0.05;

struct model {
  int n;
  double *h;     /* n x n     heights at cell centres */
  double *u;     /* n x (n+1) velocities on west/east faces */
  double *v;     /* (n+1) x n velocities on south/north faces */
  double *tr;    /* n x n     tracer */
  double *trn;   /* n x n     next tracer */
};

#define H(i, j) m->h[(size_t)(i) * n + (j)]
#define U(i, j) m->u[(size_t)(i) * (n + 1) + (j)]
#define V(i, j) m->v[(size_t)(i) * n + (j)]
#define TR(i, j) m->tr[(size_t)(i) * n + (j)]
#define TRN(i, j) m->trn[(size_t)(i) * n + (j)]

static double *alloc_grid(size_t count)
{
  double *p = aligned_alloc(64, (count * sizeof(double) + 63) / 64 * 64);
  if (!p) {
    fprintf(stderr, "stencil: out of memory\n");
    exit(1);
  }
  memset(p, 0, count * sizeof(double));
  return p;
}

static void model_init(struct model *m, int n)
{
  m->n = n;
  m->h = alloc_grid((size_t)n * n);
  m->u = alloc_grid((size_t)n * (n + 1));
  m->v = alloc_grid((size_t)(n + 1) * n);
  m->tr = alloc_grid((size_t)n * n);
  m->trn = alloc_grid((size_t)n * n);
}

/* the same initial state for every sample: a Gaussian hump off centre, a tracer patch */
static void model_reset(struct model *m)
{
  int n = m->n;
  memset(m->u, 0, sizeof(double) * (size_t)n * (n + 1));
  memset(m->v, 0, sizeof(double) * (size_t)(n + 1) * n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double di = (i - 0.35 * n) / (0.1 * n), dj = (j - 0.4 * n) / (0.1 * n);
      H(i, j) = 0.5 * exp(-(di * di + dj * dj));
      TR(i, j) = (i > n / 2 && i < 3 * n / 4 && j > n / 4 && j < n / 2) ? 1.0 : 0.0;
    }
}

/* upwind flux of the tracer across a face with velocity vel, between values lo and hi */
static inline double upwind(double vel, double lo, double hi)
{
  return vel > 0 ? vel * lo : vel * hi;
}

static double step(struct model *m, long t)
{
  const int n = m->n;

  /* 1. u momentum on interior west/east faces */
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++)
    for (int j = 1; j < n; j++)
      U(i, j) = (1 - DRAG) * U(i, j) - A * (H(i, j) - H(i, j - 1));

  /* 2. v momentum on interior south/north faces */
#pragma omp parallel for schedule(static)
  for (int i = 1; i < n; i++)
    for (int j = 0; j < n; j++)
      V(i, j) = (1 - DRAG) * V(i, j) - A * (H(i, j) - H(i - 1, j));

  /* 3. closed basin: no flow through the walls */
#pragma omp parallel for schedule(static)
  for (int k = 0; k < n; k++) {
    U(k, 0) = 0;
    U(k, n) = 0;
    V(0, k) = 0;
    V(n, k) = 0;
  }

  /* 4. continuity with the new velocities, plus a forcing that flips sign every 64 steps */
  const double force = (t / 64) % 2 ? 2e-3 : -2e-3;
  const int fi = n / 3, fj = 2 * n / 3;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double div = (U(i, j + 1) - U(i, j)) + (V(i + 1, j) - V(i, j));
      H(i, j) = H(i, j) - B * div + (i == fi && j == fj ? force : 0.0);
    }

  /* 5. tracer: upwind advection and diffusion, no flux through the walls */
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double c = TR(i, j);
      double w = j > 0 ? TR(i, j - 1) : c, e = j < n - 1 ? TR(i, j + 1) : c;
      double s = i > 0 ? TR(i - 1, j) : c, no = i < n - 1 ? TR(i + 1, j) : c;
      double adv = (upwind(U(i, j + 1), c, e) - upwind(U(i, j), w, c)) +
                   (upwind(V(i + 1, j), c, no) - upwind(V(i, j), s, c));
      TRN(i, j) = c - adv + KAPPA * ((w - c) + (e - c) + (s - c) + (no - c));
    }
  double *swap = m->tr;
  m->tr = m->trn;
  m->trn = swap;

  /* 6. diagnostic: energy norm */
  double energy = 0;
#pragma omp parallel for schedule(static) reduction(+ : energy)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      energy += H(i, j) * H(i, j) + U(i, j) * U(i, j) + V(i, j) * V(i, j);
  return energy;
}

/* FNV-1a over the bits of every value, in a fixed order */
static uint64_t fnv(uint64_t hash, const double *p, size_t count)
{
  for (size_t k = 0; k < count; k++) {
    uint64_t bits;
    memcpy(&bits, &p[k], sizeof bits);
    for (int b = 0; b < 8; b++) {
      hash ^= (bits >> (8 * b)) & 0xff;
      hash *= 0x100000001b3ULL;
    }
  }
  return hash;
}

static uint64_t checksum(const struct model *m)
{
  size_t n = (size_t)m->n;
  uint64_t hash = 0xcbf29ce484222325ULL;
  hash = fnv(hash, m->h, n * n);
  hash = fnv(hash, m->u, n * (n + 1));
  hash = fnv(hash, m->v, (n + 1) * n);
  return fnv(hash, m->tr, n * n);
}

static void usage(FILE *f)
{
  fprintf(f, "usage: stencil [-n GRID] [-s STEPS] [-r SAMPLES] [--probe]\n"
             "  -n, --size N      grid of N x N cells (default 96)\n"
             "  -s, --steps N     time steps per sample (default 500)\n"
             "  -r, --samples N   samples, each from the same initial state (default 5)\n"
             "      --probe       print the runtime in use and run a few steps\n"
             "The team size comes from OMP_NUM_THREADS.\n");
}

int main(int argc, char **argv)
{
  int n = 96, samples = 5;
  long steps = 500;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--probe")) {
      steps = 20;
      samples = 1;
      continue;
    }
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    }
    if (!val) {
      usage(stderr);
      return 2;
    }
    if (!strcmp(a, "-n") || !strcmp(a, "--size"))
      n = (int)bench_parse_long(val, 8, 4096, a);
    else if (!strcmp(a, "-s") || !strcmp(a, "--steps"))
      steps = bench_parse_long(val, 1, 100000000, a);
    else if (!strcmp(a, "-r") || !strcmp(a, "--samples"))
      samples = (int)bench_parse_long(val, 1, 1000, a);
    else {
      usage(stderr);
      return 2;
    }
    i++;
  }

  bench_print_runtime();
  printf("threads %d\n", omp_get_max_threads());
  printf("# grid %d x %d, 6 parallel regions per step\n", n, n);
  fflush(stdout);

  struct model model;
  model_init(&model, n);

  /* warm-up: the team starts, pages are touched */
  model_reset(&model);
  for (int k = 0; k < 10; k++)
    step(&model, k);

  struct bench_usage usage;
  bench_usage_now(&usage);
  for (int s = 0; s < samples; s++) {
    model_reset(&model);
    double energy = 0;
    double t0 = bench_now();
    for (long t = 0; t < steps; t++)
      energy = step(&model, t);
    double seconds = bench_now() - t0;
    if (!isfinite(energy)) {
      printf("FAIL stencil: the model blew up (energy %g)\n", energy);
      return 1;
    }
    printf("stencil steps %ld seconds %.6f\n", steps, seconds);
    printf("stencil checksum %016llx energy %.12e\n", (unsigned long long)checksum(&model), energy);
    fflush(stdout);
  }
  bench_usage_print("stencil", &usage);
  return 0;
}
