/* mpi_hybrid: a hybrid MPI + OpenMP program, the shape of most HPC codes: mpirun starts one
   process per rank, bound by mpirun to a CPU set (--bind-to core, socket, none, ...), and each
   rank runs OpenMP parallel regions inside that set. Run by tests/integration/mpi_hybrid.sh.

   usage: mpi_hybrid [--places] [--disjoint] [N]
     N           loop length of the reductions (default 2000000)
     --places    also ask the places API (omp_get_num_places, omp_get_place_num,
                 omp_get_place_proc_ids) and check it against the masks; without it the
                 program calls no places routine (so it runs on runtimes without them)
     --disjoint  the ranks' CPU sets must not overlap (mpirun --bind-to core with as many cores
                 as ranks), and neither may the CPUs their threads run on

   The rank's CPU set: the environment variable RANK_CPUS (a list such as "0-3,8"), which
   tests/integration/mpi_hybrid.sh sets from the process's mask before the OpenMP runtime is
   loaded (a runtime that binds the initial thread at load time, as libgomp does under
   OMP_PROC_BIND, narrows the mask before main). Without RANK_CPUS: the mask at the start of main.

   Checks (each failure prints a line "FAIL: ..." on stderr; any failure exits 1 on every rank):
     - every thread's affinity mask (sched_getaffinity in the region) lies within its rank's set;
     - the team has omp_get_max_threads() threads;
     - two reductions (integer and floating point) over a static loop, in each rank and summed
       over ranks with MPI_Allreduce, equal the serial answer (integer: exactly);
     - with --places: every place lies within the rank's set; when OMP_PROC_BIND asks for binding
       (omp_get_proc_bind() != omp_proc_bind_false) and there are places, every thread has a place
       (omp_get_place_num() >= 0) and its mask is exactly that place's processors;
     - with --disjoint: as above.
   Rank 0 prints one line per rank and one per thread:
     rank R of S: cpus LIST (from RANK_CPUS|main) proc_bind B places P   (P -1: not asked)
     rank R thread T of N: cpus LIST place Q                            (Q -: not asked)
   and "mpi_hybrid: ok" at the end when every rank passed. */
#include <mpi.h>
#include <omp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 256
#define LINE 400
#define LIST 160 /* a formatted CPU list; longer ones are cut */

static int failures;

static void fail(int rank, const char *fmt, ...)
{
  va_list ap;
  char msg[512];
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "FAIL: rank %d: %s\n", rank, msg);
  failures++;
}

/* "0-3,8" -> set; returns 0 on a malformed list */
static int parse_list(const char *s, cpu_set_t *set)
{
  CPU_ZERO(set);
  while (*s) {
    char *end;
    long lo = strtol(s, &end, 10), hi;
    if (end == s || lo < 0 || lo >= CPU_SETSIZE)
      return 0;
    hi = lo;
    s = end;
    if (*s == '-') {
      hi = strtol(s + 1, &end, 10);
      if (end == s + 1 || hi < lo || hi >= CPU_SETSIZE)
        return 0;
      s = end;
    }
    for (long c = lo; c <= hi; c++)
      CPU_SET(c, set);
    if (*s == ',')
      s++;
    else if (*s && *s != '\n')
      return 0;
    else
      break;
  }
  return CPU_COUNT(set) > 0;
}

static void format_list(const cpu_set_t *set, char *buf, size_t len)
{
  size_t n = 0;
  buf[0] = '\0';
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (!CPU_ISSET(c, set))
      continue;
    int e = c;
    while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
      e++;
    n += snprintf(buf + n, n < len ? len - n : 0, "%s%d", n ? "," : "", c);
    if (e > c)
      n += snprintf(buf + n, n < len ? len - n : 0, "-%d", e);
    c = e;
  }
  if (n == 0)
    snprintf(buf, len, "(none)");
}

static int subset(const cpu_set_t *a, const cpu_set_t *b)
{
  cpu_set_t t;
  CPU_AND(&t, a, b);
  return CPU_EQUAL(&t, a);
}

struct thread_report {
  cpu_set_t mask;
  int got_mask;
  int place;
  int nthreads;
};

int main(int argc, char **argv)
{
  /* the rank's own CPU set, before any OpenMP construct */
  cpu_set_t rank_set;
  const char *source = "main";
  const char *env = getenv("RANK_CPUS");
  int rank_set_ok;
  if (env && *env) {
    rank_set_ok = parse_list(env, &rank_set);
    source = "RANK_CPUS";
  } else {
    rank_set_ok = sched_getaffinity(0, sizeof rank_set, &rank_set) == 0;
  }

  int places = 0, disjoint = 0;
  long n = 2000000;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--places"))
      places = 1;
    else if (!strcmp(argv[i], "--disjoint"))
      disjoint = 1;
    else
      n = atol(argv[i]);
  }

  int provided, rank, size;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (!rank_set_ok)
    fail(rank, "cannot read the rank's CPU set (%s)", env ? env : "sched_getaffinity");
  if (n < 1000)
    n = 1000;

  static struct thread_report rep[MAX_THREADS];
  int max_threads = omp_get_max_threads();
  int bind = omp_get_proc_bind();
  int num_places = places ? omp_get_num_places() : -1;

  /* the places must lie within the rank's set */
  if (places) {
    for (int p = 0; p < num_places; p++) {
      int k = omp_get_place_num_procs(p);
      int ids[CPU_SETSIZE];
      cpu_set_t ps;
      CPU_ZERO(&ps);
      if (k < 1 || k > CPU_SETSIZE) {
        fail(rank, "place %d has %d processors", p, k);
        continue;
      }
      omp_get_place_proc_ids(p, ids);
      for (int j = 0; j < k; j++)
        if (ids[j] >= 0 && ids[j] < CPU_SETSIZE)
          CPU_SET(ids[j], &ps);
      if (!subset(&ps, &rank_set)) {
        char a[LIST], b[LIST];
        format_list(&ps, a, sizeof a);
        format_list(&rank_set, b, sizeof b);
        fail(rank, "place %d {%s} is not within the rank's CPU set {%s}", p, a, b);
      }
    }
  }

  /* one region: each thread reports its mask and place, then the reductions */
  long long isum = 0;
  double dsum = 0.0;
  long lo = n * rank / size, hi = n * (rank + 1) / size;
#pragma omp parallel
  {
    int t = omp_get_thread_num();
    if (t < MAX_THREADS) {
      rep[t].got_mask = sched_getaffinity(0, sizeof rep[t].mask, &rep[t].mask) == 0;
      rep[t].place = places ? omp_get_place_num() : -2;
      rep[t].nthreads = omp_get_num_threads();
    }
  }
  for (int r = 0; r < 20; r++) { /* many regions: the team is reused, still bound */
    long long is = 0;
    double ds = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : is, ds)
    for (long i = lo; i < hi; i++) {
      is += (i % 7) * (i % 11) + r;
      ds += 1.0 / ((double)i + 1.0);
    }
    isum += is;
    dsum += ds;
  }

  int nthreads = rep[0].nthreads;
  if (nthreads != max_threads)
    fail(rank, "the team has %d threads, omp_get_max_threads() said %d", nthreads, max_threads);
  if (nthreads > MAX_THREADS)
    nthreads = MAX_THREADS;

  cpu_set_t thread_union;
  CPU_ZERO(&thread_union);
  char lines[MAX_THREADS + 1][LINE];
  char rs[LIST];
  format_list(&rank_set, rs, sizeof rs);
  snprintf(lines[0], LINE, "rank %d of %d: cpus %s (from %s) proc_bind %d places %d", rank, size,
           rs, source, bind, num_places);
  for (int t = 0; t < nthreads; t++) {
    char ms[LIST];
    if (!rep[t].got_mask) {
      fail(rank, "thread %d: sched_getaffinity failed", t);
      CPU_ZERO(&rep[t].mask);
    }
    CPU_OR(&thread_union, &thread_union, &rep[t].mask);
    format_list(&rep[t].mask, ms, sizeof ms);
    char pl[16] = "-";  /* "-": the places API was not asked (no --places) */
    if (places)
      snprintf(pl, sizeof pl, "%d", rep[t].place);
    snprintf(lines[t + 1], LINE, "rank %d thread %d of %d: cpus %s place %s", rank, t, nthreads,
             ms, pl);
    if (!subset(&rep[t].mask, &rank_set))
      fail(rank, "thread %d runs on cpus {%s}, not within the rank's set {%s}", t, ms, rs);
    if (places && bind != omp_proc_bind_false && num_places > 0) {
      int p = rep[t].place;
      if (p < 0 || p >= num_places) {
        fail(rank, "thread %d: OMP_PROC_BIND asks for binding but its place number is %d", t, p);
      } else {
        int k = omp_get_place_num_procs(p), ids[CPU_SETSIZE];
        cpu_set_t ps;
        CPU_ZERO(&ps);
        omp_get_place_proc_ids(p, ids);
        for (int j = 0; j < k && j < CPU_SETSIZE; j++)
          if (ids[j] >= 0 && ids[j] < CPU_SETSIZE)
            CPU_SET(ids[j], &ps);
        if (!CPU_EQUAL(&ps, &rep[t].mask)) {
          char a[LIST];
          format_list(&ps, a, sizeof a);
          fail(rank, "thread %d is bound to place %d {%s} but runs on cpus {%s}", t, p, a, ms);
        }
      }
    }
  }

  /* the reductions against the serial answer */
  long long iwant = 0, itotal = 0;
  double dwant = 0.0, dtotal = 0.0;
  for (int r = 0; r < 20; r++)
    for (long i = 0; i < n; i++) {
      iwant += (i % 7) * (i % 11) + r;
      dwant += 1.0 / ((double)i + 1.0);
    }
  MPI_Allreduce(&isum, &itotal, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&dsum, &dtotal, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (itotal != iwant)
    fail(rank, "integer reduction %lld, expected %lld", itotal, iwant);
  double rel = (dtotal - dwant) / dwant;
  if (rel < -1e-12 || rel > 1e-12)
    fail(rank, "floating-point reduction %.17g, expected %.17g", dtotal, dwant);

  /* disjoint ranks */
  if (disjoint) {
    cpu_set_t *all_rank = calloc(size, sizeof(cpu_set_t));
    cpu_set_t *all_thr = calloc(size, sizeof(cpu_set_t));
    MPI_Allgather(&rank_set, sizeof(cpu_set_t), MPI_BYTE, all_rank, sizeof(cpu_set_t), MPI_BYTE,
                  MPI_COMM_WORLD);
    MPI_Allgather(&thread_union, sizeof(cpu_set_t), MPI_BYTE, all_thr, sizeof(cpu_set_t),
                  MPI_BYTE, MPI_COMM_WORLD);
    for (int o = 0; o < size; o++) {
      cpu_set_t x;
      if (o == rank)
        continue;
      CPU_AND(&x, &rank_set, &all_rank[o]);
      if (CPU_COUNT(&x))
        fail(rank, "its CPU set overlaps rank %d's (was mpirun asked to bind to cores?)", o);
      CPU_AND(&x, &thread_union, &all_thr[o]);
      if (CPU_COUNT(&x))
        fail(rank, "its threads run on CPUs that rank %d's threads run on too", o);
    }
    free(all_rank);
    free(all_thr);
  }

  /* the report, gathered on rank 0 in rank order */
  int nl = nthreads + 1, total_fail = 0;
  int *counts = rank == 0 ? calloc(size, sizeof(int)) : NULL;
  MPI_Gather(&nl, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int *displs = NULL, sum = 0;
  char *all = NULL;
  if (rank == 0) {
    displs = calloc(size, sizeof(int));
    for (int r = 0; r < size; r++) {
      displs[r] = sum * LINE;
      sum += counts[r];
      counts[r] *= LINE;
    }
    all = calloc((size_t)sum, LINE);
  }
  MPI_Gatherv(lines, nl * LINE, MPI_CHAR, all, counts, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Allreduce(&failures, &total_fail, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int i = 0; i < sum; i++)
      printf("%s\n", all + (size_t)i * LINE);
    printf("integer reduction %lld (expected %lld), floating point %.15g (expected %.15g)\n",
           itotal, iwant, dtotal, dwant);
    if (total_fail == 0)
      printf("mpi_hybrid: ok\n");
    else
      printf("mpi_hybrid: %d failure(s)\n", total_fail);
    fflush(stdout);
    free(all);
    free(displs);
    free(counts);
  }
  MPI_Finalize();
  return total_fail ? 1 : 0;
}
