/* heapchurn: a hydrodynamics proxy with the memory habits of many real codes: every time step
   allocates its temporary arrays with malloc, first touches them inside short parallel loops, and
   frees them at the end of the step. The runtime is not in the loops' way much; what decides the
   time is whether glibc's heap keeps the freed memory (the next step reuses warm pages) or gives
   the heap's top back to the kernel at each free and takes it again at the next step (every page
   faulted in and zeroed again, all in system time). A runtime's own allocations can tip that
   balance, which is what this program keeps measured (issue 25).

   The model: 1D Euler equations (ideal gas), MUSCL reconstruction with a minmod limiter and a
   Rusanov flux, on n cells with reflecting walls, starting from a Sod shock tube repeated along
   the domain. Per step 31 `parallel for schedule(static)` loops (one of them a max reduction for
   the time step, two diagnostic sums) over 24 temporaries, each its own array of n or n+1
   doubles, allocated and freed every step: the primitive variables (3), their limited slopes (3),
   the left and right face states (3 + 3), the fluxes (3), a smoothing scratch of 8 components and
   the sound speed. With the default n = 131072: 1 MiB each, 24 MiB a step, just below the
   1 MiB + 4 KiB that LLVM's libomp raises glibc's mmap threshold to at load, which matters
   (docs/history/benchmarks-2026.md, "The heap churn"). Every value of the state is computed by
   the same operations whatever the thread count or runtime (the time step comes from a max,
   exact in any order), so the checksum of the final state must agree across runtimes; the mass
   and energy sums are diagnostics whose rounding follows the runtime's reduction.

   Output, for bench/run-bench:
     runtime <path> / runtime-gomp <path> / threads <team size>
     construct heapchurn sample <ms per step, wall>          one line per sample
     construct heapchurn-sys sample <ms per step, system>    one line per sample
     # heapchurn minflt_per_step <page faults a step>              one line per sample
     # heapchurn rss_mib_between_steps <resident MiB> peak_rss_mib <MiB>
     heapchurn checksum <16 hex digits> mass <m> energy <e> */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "benchutil.h"

static const double GAMMA = 1.4;

struct state {
  long n;
  double *rho, *mom, *ene; /* conserved variables, n cells each, kept across steps */
};

static void *xmalloc(size_t bytes)
{
  void *p = malloc(bytes);
  if (!p) {
    fprintf(stderr, "heapchurn: out of memory\n");
    exit(1);
  }
  return p;
}

static double minmod(double a, double b)
{
  if (a * b <= 0.0) return 0.0;
  return fabs(a) < fabs(b) ? a : b;
}

static void init(struct state *s, long n, int parallel_init)
{
  s->n = n;
  s->rho = xmalloc(n * sizeof(double));
  s->mom = xmalloc(n * sizeof(double));
  s->ene = xmalloc(n * sizeof(double));
  long period = n / 8 > 0 ? n / 8 : 1;
  /* serial by default, as many codes set up: the first parallel region then opens inside the
     first step, with that step's temporaries allocated */
#pragma omp parallel for schedule(static) if (parallel_init)
  for (long i = 0; i < n; i++) {
    int left = (i % period) < period / 2; /* a Sod tube every `period` cells */
    double r = left ? 1.0 : 0.125, p = left ? 1.0 : 0.1;
    s->rho[i] = r;
    s->mom[i] = 0.0;
    s->ene[i] = p / (GAMMA - 1.0);
  }
}

/* One time step: 31 parallel loops, temporaries malloc'd here and freed at the end. Returns dt. */
static double step(struct state *s, double *mass_out, double *energy_out)
{
  const long n = s->n;
  double *rho = s->rho, *mom = s->mom, *ene = s->ene;
  /* every component its own array, as most codes have them: 24 arrays of n or n+1 doubles */
  double *w[3], *slope[3], *wl[3], *wr[3], *flux[3], *visc[8];
  for (int v = 0; v < 3; v++) {
    w[v] = xmalloc(n * sizeof(double));     /* rho, u, p */
    slope[v] = xmalloc(n * sizeof(double));
    wl[v] = xmalloc((n + 1) * sizeof(double)); /* left state at face f */
    wr[v] = xmalloc((n + 1) * sizeof(double)); /* right state at face f */
    flux[v] = xmalloc((n + 1) * sizeof(double));
  }
  for (int v = 0; v < 8; v++) visc[v] = xmalloc(n * sizeof(double));
  double *cs = xmalloc(n * sizeof(double));
  double *wrho = w[0], *wu = w[1], *wp = w[2];

  /* 1-3: primitives */
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) wrho[i] = rho[i];
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) wu[i] = mom[i] / rho[i];
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) wp[i] = (GAMMA - 1.0) * (ene[i] - 0.5 * mom[i] * wu[i]);
  /* 4: sound speed; 5: the time step from the largest signal speed (max: exact in any order) */
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) cs[i] = sqrt(GAMMA * wp[i] / wrho[i]);
  double smax = 0.0;
#pragma omp parallel for schedule(static) reduction(max : smax)
  for (long i = 0; i < n; i++) smax = fmax(smax, fabs(wu[i]) + cs[i]);
  const double dt = 0.4 / smax; /* dx = 1 */

  /* 6-8: limited slopes, one loop per variable */
  for (int v = 0; v < 3; v++) {
    double *q = w[v], *sl = slope[v];
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
      double dl = i > 0 ? q[i] - q[i - 1] : 0.0;
      double dr = i < n - 1 ? q[i + 1] - q[i] : 0.0;
      sl[i] = minmod(dl, dr);
    }
  }
  /* 9-14: face states; face f lies between cells f-1 and f; walls at f = 0 and f = n mirror
     the velocity */
  for (int v = 0; v < 3; v++) {
    double *q = w[v], *sl = slope[v], *l = wl[v];
    double sign = v == 1 ? -1.0 : 1.0;
#pragma omp parallel for schedule(static)
    for (long f = 0; f <= n; f++)
      l[f] = f > 0 ? q[f - 1] + 0.5 * sl[f - 1] : sign * (q[0] - 0.5 * sl[0]);
  }
  for (int v = 0; v < 3; v++) {
    double *q = w[v], *sl = slope[v], *r = wr[v];
    double sign = v == 1 ? -1.0 : 1.0;
#pragma omp parallel for schedule(static)
    for (long f = 0; f <= n; f++)
      r[f] = f < n ? q[f] - 0.5 * sl[f] : sign * (q[n - 1] + 0.5 * sl[n - 1]);
  }
  /* 15-17: Rusanov fluxes, one loop per conserved variable */
  for (int v = 0; v < 3; v++) {
    double *fl = flux[v];
#pragma omp parallel for schedule(static)
    for (long f = 0; f <= n; f++) {
      double rl = wl[0][f], ul = wl[1][f], pl = wl[2][f];
      double rr = wr[0][f], ur = wr[1][f], pr = wr[2][f];
      double el = pl / (GAMMA - 1.0) + 0.5 * rl * ul * ul;
      double er = pr / (GAMMA - 1.0) + 0.5 * rr * ur * ur;
      double a = fmax(fabs(ul) + sqrt(GAMMA * pl / rl), fabs(ur) + sqrt(GAMMA * pr / rr));
      double ql, qr, fl_, fr_;
      if (v == 0) { ql = rl; qr = rr; fl_ = rl * ul; fr_ = rr * ur; }
      else if (v == 1) { ql = rl * ul; qr = rr * ur; fl_ = rl * ul * ul + pl; fr_ = rr * ur * ur + pr; }
      else { ql = el; qr = er; fl_ = (el + pl) * ul; fr_ = (er + pr) * ur; }
      fl[f] = 0.5 * (fl_ + fr_) - 0.5 * a * (qr - ql);
    }
  }
  /* 18-20: conservative update */
  double *cons[3] = {rho, mom, ene};
  for (int v = 0; v < 3; v++) {
    double *u = cons[v], *fl = flux[v];
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) u[i] -= dt * (fl[i + 1] - fl[i]);
  }
  /* 21-28: a weak smoothing through a scratch of 8 components: the 3 conserved variables, their
     neighbour averages, and two work arrays, each component its own loop */
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) visc[0][i] = rho[i];
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) visc[1][i] = mom[i];
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) visc[2][i] = ene[i];
  for (int v = 0; v < 3; v++) {
    double *src = visc[v], *avg = visc[3 + v];
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
      double a = i > 0 ? src[i - 1] : src[i], b = i < n - 1 ? src[i + 1] : src[i];
      avg[i] = 0.5 * (a + b);
    }
  }
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) visc[6][i] = fabs(visc[4][i]) * 1e-3; /* |avg mom| */
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) visc[7][i] = visc[6][i] > 1e-4 ? 1e-3 : 0.0;
  /* 29: apply it (conserves mass up to the walls) and keep the density positive */
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) {
    double k = visc[7][i];
    rho[i] += k * (visc[3][i] - visc[0][i]);
    mom[i] += k * (visc[4][i] - visc[1][i]);
    ene[i] += k * (visc[5][i] - visc[2][i]);
    if (rho[i] < 1e-6) rho[i] = 1e-6;
  }
  /* 30-31: diagnostics (sums: their rounding follows the runtime's reduction) */
  double mass = 0.0, energy = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : mass)
  for (long i = 0; i < n; i++) mass += rho[i];
#pragma omp parallel for schedule(static) reduction(+ : energy)
  for (long i = 0; i < n; i++) energy += ene[i];
  *mass_out = mass;
  *energy_out = energy;

  free(cs);
  for (int v = 7; v >= 0; v--) free(visc[v]);
  for (int v = 2; v >= 0; v--) {
    free(flux[v]);
    free(wr[v]);
    free(wl[v]);
    free(slope[v]);
    free(w[v]);
  }
  return dt;
}

static uint64_t checksum(const struct state *s)
{
  uint64_t h = 1469598103934665603ull;
  const double *arrays[3] = {s->rho, s->mom, s->ene};
  for (int a = 0; a < 3; a++)
    for (long i = 0; i < s->n; i++) {
      uint64_t bits;
      memcpy(&bits, &arrays[a][i], sizeof bits);
      for (int b = 0; b < 8; b++) {
        h ^= (bits >> (8 * b)) & 0xff;
        h *= 1099511628211ull;
      }
    }
  return h;
}

static double sys_seconds(long *minflt)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  *minflt = ru.ru_minflt;
  return ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

/* resident memory now (/proc/self/statm) and at its peak (getrusage), in MiB */
static void rss_mib(double *now, double *peak)
{
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f != NULL) {
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(f);
  }
  *now = (double)resident * sysconf(_SC_PAGESIZE) / (1 << 20);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  *peak = ru.ru_maxrss / 1024.0;
}

static void usage(FILE *f)
{
  fprintf(f, "usage: heapchurn [-n CELLS] [-s STEPS] [-r SAMPLES] [-w WARMUP] [-p] [--probe]\n"
             "  -n CELLS   cells (default 131072: 24 temporaries of 1 MiB a step)\n"
             "  -s STEPS   time steps per sample (default 200)\n"
             "  -r SAMPLES samples (default 1)\n"
             "  -w WARMUP  untimed steps first (default 5)\n"
             "  -p         set the state up in a parallel loop (default: serially, so that the\n"
             "             first parallel region opens inside the first step)\n"
             "  --probe    print the runtime in use and run a few steps\n");
}

int main(int argc, char **argv)
{
  long n = 131072, steps = 200, samples = 1, warmup = 5;
  int parallel_init = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--probe")) {
      steps = 3;
      warmup = 1;
      n = 4096;
    } else if (!strcmp(a, "-p")) {
      parallel_init = 1;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (val && !strcmp(a, "-n")) {
      n = bench_parse_long(val, 16, 1L << 26, "-n"); i++;
    } else if (val && !strcmp(a, "-s")) {
      steps = bench_parse_long(val, 1, 1L << 30, "-s"); i++;
    } else if (val && !strcmp(a, "-r")) {
      samples = bench_parse_long(val, 1, 1000, "-r"); i++;
    } else if (val && !strcmp(a, "-w")) {
      warmup = bench_parse_long(val, 0, 1L << 30, "-w"); i++;
    } else {
      usage(stderr);
      return 2;
    }
  }
  bench_print_runtime();
  printf("threads %d\n", omp_get_max_threads());

  struct state s;
  init(&s, n, parallel_init);
  double mass = 0.0, energy = 0.0;
  for (long k = 0; k < warmup; k++) step(&s, &mass, &energy);
  for (long r = 0; r < samples; r++) {
    long f0, f1;
    double s0 = sys_seconds(&f0), t0 = bench_now();
    for (long k = 0; k < steps; k++) step(&s, &mass, &energy);
    double t1 = bench_now(), s1 = sys_seconds(&f1);
    printf("construct heapchurn sample %.6f\n", (t1 - t0) * 1e3 / steps);
    printf("construct heapchurn-sys sample %.6f\n", (s1 - s0) * 1e3 / steps);
    printf("# heapchurn minflt_per_step %.1f\n", (double)(f1 - f0) / steps);
  }
  if (!(mass > 0.0) || !isfinite(mass)) {
    printf("FAIL heapchurn: mass %g\n", mass);
    return 1;
  }
  /* between steps, the temporaries freed: what the heap kept is the price of keeping it */
  double rss_now, rss_peak;
  rss_mib(&rss_now, &rss_peak);
  printf("# heapchurn rss_mib_between_steps %.1f peak_rss_mib %.1f\n", rss_now, rss_peak);
  printf("heapchurn checksum %016llx mass %.12e energy %.12e\n", (unsigned long long)checksum(&s),
         mass, energy);
  free(s.rho);
  free(s.mom);
  free(s.ene);
  return 0;
}
