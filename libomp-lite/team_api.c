/* The thread and team queries of the user API: thread numbers, team sizes, nesting levels. */
#include "internal.h"

int omp_get_num_threads(void)
{
  struct lite_thread *thr = lite_self();
  return thr->team != NULL ? (int)thr->team->nthreads : 1;
}

int omp_get_thread_num(void)
{
  struct lite_thread *thr = lite_self();
  return thr->team != NULL ? (int)thr->id : 0;
}

int omp_in_parallel(void)
{
  struct lite_thread *thr = lite_self();
  return thr->team != NULL && thr->team->active_level > 0;
}

int omp_get_level(void)
{
  struct lite_thread *thr = lite_self();
  return thr->team != NULL ? (int)thr->team->level : 0;
}

int omp_get_active_level(void)
{
  struct lite_thread *thr = lite_self();
  return thr->team != NULL ? (int)thr->team->active_level : 0;
}

/* The team at nesting level `level` around the calling thread, and the thread's number in it
   (the number of its ancestor, for outer levels). Level 0 is the initial thread's implicit team. */
static bool team_at_level(int level, struct lite_team **team_out, unsigned *id_out)
{
  struct lite_thread *thr = lite_self();
  struct lite_team *team = thr->team;
  unsigned id = thr->id;
  int current = team != NULL ? (int)team->level : 0;
  if (level < 0 || level > current)
    return false;
  for (; current > level; current--) {
    id = team->parent_id;
    team = team->parent;
  }
  *team_out = team;
  *id_out = team != NULL ? id : 0;
  return true;
}

int omp_get_ancestor_thread_num(int level)
{
  struct lite_team *team;
  unsigned id;
  return team_at_level(level, &team, &id) ? (int)id : -1;
}

int omp_get_team_size(int level)
{
  struct lite_team *team;
  unsigned id;
  if (!team_at_level(level, &team, &id))
    return -1;
  return team != NULL ? (int)team->nthreads : 1;
}

/* Hand the workers' resources back: idle pools are shut down and recreated on the next region. */
int omp_pause_resource(omp_pause_resource_t kind, int device_num)
{
  (void)kind; /* soft and hard both free the workers; libgomp accepts any kind as well */
  if (device_num != omp_get_initial_device())
    return -1;
  /* Like libgomp: only outside every parallel region, active or not. */
  struct lite_thread *thr = lite_self();
  if (thr->team != NULL)
    return -1;
  lite_thread_release(thr);
  return 0;
}

int omp_pause_resource_all(omp_pause_resource_t kind)
{
  return omp_pause_resource(kind, omp_get_initial_device());
}
