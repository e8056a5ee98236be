/* The assignment of a new team's members to places (OpenMP 5.2 section 10.1.3): pure arithmetic
   on place numbers, no topology, no system call.

   Where the specification leaves room, the choices made here:
   - T > P (close and spread): which places get ceiling(T/P) members is implementation defined.
     Here the places are taken in the order the rule visits them (the primary thread's place
     first, then the following places of the partition, wrapping around), and the first T mod P
     of them get the extra member, so the primary thread's place is never short of one.
   - spread with T <= P: the partition is cut from its first place on (not from the primary
     thread's place), the first P mod T runs one place longer; that keeps the runs the same for
     every primary thread of the partition.
   - true is close (as in libgomp); false should not reach here (no binding), but if it does,
     every member gets the primary thread's place and partition, as for primary. */
#include "affinity/affinity.h"

static struct lite_partition one_place(unsigned place)
{
  return (struct lite_partition){.lo = place, .len = 1};
}

/* Every member on the primary thread's place, the partition unchanged. */
static void assign_primary(struct lite_partition part, unsigned primary, unsigned nthreads,
                           struct lite_member_place *out)
{
  for (unsigned k = 0; k < nthreads; k++)
    out[k] = (struct lite_member_place){.place = primary, .partition = part};
}

/* T > P, for close and spread alike: consecutive members share a place, the places visited from
   the primary thread's one (relative position r0) on. Each member's partition is either the
   whole partition (close) or its single place (spread). */
static void assign_crowded(struct lite_partition part, unsigned r0, unsigned nthreads,
                           bool spread, struct lite_member_place *out)
{
  unsigned per_place = nthreads / part.len, extra = nthreads % part.len;
  unsigned k = 0;
  for (unsigned j = 0; j < part.len && k < nthreads; j++) {
    unsigned place = part.lo + (r0 + j) % part.len;
    unsigned count = per_place + (j < extra ? 1 : 0);
    for (unsigned i = 0; i < count; i++, k++)
      out[k] = (struct lite_member_place){
          .place = place, .partition = spread ? one_place(place) : part};
  }
}

/* close, T <= P: member k on the k-th place after the primary thread's, wrapping around. */
static void assign_close(struct lite_partition part, unsigned r0, unsigned nthreads,
                         struct lite_member_place *out)
{
  for (unsigned k = 0; k < nthreads; k++)
    out[k] = (struct lite_member_place){.place = part.lo + (r0 + k) % part.len,
                                        .partition = part};
}

/* Run i of a partition of len places cut into nruns runs, the first len mod nruns one longer. */
static struct lite_partition run_of(struct lite_partition part, unsigned nruns, unsigned i)
{
  unsigned base = part.len / nruns, extra = part.len % nruns;
  unsigned lo = i * base + (i < extra ? i : extra);
  return (struct lite_partition){.lo = part.lo + lo, .len = base + (i < extra ? 1 : 0)};
}

/* spread, T <= P: one member per run; the primary thread keeps its place and its run, the next
   members take the first place of the following runs, wrapping around. */
static void assign_spread(struct lite_partition part, unsigned r0, unsigned nthreads,
                          struct lite_member_place *out)
{
  unsigned mine = 0;
  while (mine + 1 < nthreads && run_of(part, nthreads, mine + 1).lo <= part.lo + r0)
    mine++;
  out[0] = (struct lite_member_place){.place = part.lo + r0,
                                      .partition = run_of(part, nthreads, mine)};
  for (unsigned k = 1; k < nthreads; k++) {
    struct lite_partition run = run_of(part, nthreads, (mine + k) % nthreads);
    out[k] = (struct lite_member_place){.place = run.lo, .partition = run};
  }
}

void lite_partition_assign(omp_proc_bind_t bind, struct lite_partition part, unsigned primary,
                           unsigned nthreads, struct lite_member_place *out)
{
  /* A place outside the partition (a caller's mistake) or an empty partition leaves nothing to
     distribute: everyone stays with the primary thread rather than on a place out of range. */
  if (nthreads == 0)
    return;
  if (part.len == 0 || primary < part.lo || primary - part.lo >= part.len)
    bind = omp_proc_bind_primary;
  unsigned r0 = primary - part.lo;
  switch (bind) {
  case omp_proc_bind_true:
  case omp_proc_bind_close:
    if (nthreads > part.len)
      assign_crowded(part, r0, nthreads, false, out);
    else
      assign_close(part, r0, nthreads, out);
    return;
  case omp_proc_bind_spread:
    if (nthreads > part.len)
      assign_crowded(part, r0, nthreads, true, out);
    else
      assign_spread(part, r0, nthreads, out);
    return;
  case omp_proc_bind_primary:
  case omp_proc_bind_false:
  default:
    assign_primary(part, primary, nthreads, out);
    return;
  }
}
