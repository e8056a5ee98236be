/* The place routines of the OpenMP API (OpenMP 5.2 section 18.3): the place list in force
   (affinity/bind.c) and the calling thread's place and partition. Without binding there are no
   places, as in libgomp: the counts are 0 and the thread's place is -1. Libraries call these at
   load time (OpenBLAS asks omp_get_num_places), so none of them starts anything. */
#include "internal.h"
#include "affinity/affinity.h"

/* The place list is made at the process's first OpenMP call; these may be that call. */
static void places_ready(void)
{
  lite_init_once();
  lite_bind_ready();
}

static const struct lite_place *place_at(int place_num)
{
  if (place_num < 0 || (unsigned)place_num >= lite_binding.places.n)
    return NULL;
  return &lite_binding.places.places[place_num];
}

int omp_get_num_places(void)
{
  places_ready();
  return (int)lite_binding.places.n;
}

int omp_get_place_num_procs(int place_num)
{
  places_ready();
  const struct lite_place *p = place_at(place_num);
  return p != NULL ? (int)p->ncpus : 0;
}

void omp_get_place_proc_ids(int place_num, int *ids)
{
  places_ready();
  const struct lite_place *p = place_at(place_num);
  for (unsigned i = 0; p != NULL && i < p->ncpus; i++)
    ids[i] = p->cpus[i];
}

/* The calling thread's place: the initial thread takes place 0 now, if it has not yet. */
static struct lite_thread *placed_self(void)
{
  struct lite_thread *thr = lite_self();
  lite_bind_initial(thr);
  return thr;
}

int omp_get_place_num(void) { return placed_self()->place; }

int omp_get_partition_num_places(void) { return (int)placed_self()->partition.len; }

void omp_get_partition_place_nums(int *place_nums)
{
  struct lite_partition part = placed_self()->partition;
  for (unsigned i = 0; i < part.len; i++)
    place_nums[i] = (int)(part.lo + i);
}
