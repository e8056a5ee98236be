/* The events of a host teams region (OpenMP 5.1 sections 4.5.2.3, 4.5.2.4 and 4.5.2.11): the
   league is a region of its own, begun and ended with ompt_callback_parallel_begin and _end
   with ompt_parallel_league, and each team's initial task begins and ends with
   ompt_callback_implicit_task and ompt_task_initial.

   libomp-lite runs the teams one after another on the encountering thread (teams.c), so the
   events come in that order from that thread: league begin, then for each team its initial
   task's begin, the team's body, its end, then league end. The values are those LLVM's
   runtime gives (its tests in ompt/teams): at a team's begin, the league's parallel data, the
   league size as actual_parallelism and the team's number as index; at its end, no parallel
   data and 0, as for every implicit task's end.

   While a team runs, its initial task is the thread's current task (thr->task), so the tasks
   and parallel regions it makes name it as their parent, and thr->ompt_league says where the
   league is, for ompt_get_parallel_info and ompt_get_task_info (entry.c): level 0 in a team
   is the league's region and the team's initial task, level 1 what encountered the league. */
#include "ompt/ompt.h"

#include <stdlib.h>
#include <string.h>

#define FRAME_FLAGS (ompt_frame_runtime | ompt_frame_framepointer)

void lite_ompt_league_begin(struct lite_thread *thr, struct lite_ompt_league *league,
                            const void *codeptr, void *enter, unsigned requested, unsigned size,
                            int invoker)
{
  struct lite_task *parent = lite_current_task(thr);
  league->parallel_data.value = 0;
  league->codeptr = codeptr;
  league->size = size;
  league->index = 0;
  league->flags = ompt_parallel_league | invoker;
  league->stepped = false;
  league->encountering = parent;
  league->outer = thr->ompt_league;
  if (enter != NULL) {
    parent->ompt_frame.enter_frame.ptr = enter;
    parent->ompt_frame.enter_frame_flags = FRAME_FLAGS;
  }
  ompt_callback_parallel_begin_t begin = LITE_OMPT_CB(ompt_callback_parallel_begin);
  if (lite_ompt_attached() && begin != NULL)
    begin(&parent->ompt_data, &parent->ompt_frame, &league->parallel_data,
          requested != 0 ? requested : size, league->flags, codeptr);
  /* From here the thread is in the league (not at its begin, where level 0 is still the
     enclosing region). */
  thr->ompt_league = league;
}

void lite_ompt_team_begin(struct lite_thread *thr, struct lite_ompt_league *league)
{
  struct lite_task *t = &league->initial;
  /* Whole, as a root thread's initial task is (the thread's state is zeroed when made): the
     task code reads fields of a parent that lite_task_implicit_init does not set. */
  memset(t, 0, sizeof *t);
  lite_task_implicit_init(t);
  t->icv = thr->icv;
  t->ompt_type = ompt_task_initial;
  league->index = thr->team_num;
  thr->task = t;
  ompt_callback_implicit_task_t task = LITE_OMPT_CB(ompt_callback_implicit_task);
  if (lite_ompt_attached() && task != NULL)
    task(ompt_scope_begin, &league->parallel_data, &t->ompt_data, league->size, league->index,
         ompt_task_initial);
}

void lite_ompt_team_end(struct lite_thread *thr, struct lite_ompt_league *league)
{
  struct lite_task *t = &league->initial;
  /* The team ends when its tasks have: none may outlive the initial task they point to. */
  lite_tasks_drain(thr);
  t->ompt_frame.exit_frame.ptr = NULL;
  ompt_callback_implicit_task_t task = LITE_OMPT_CB(ompt_callback_implicit_task);
  if (lite_ompt_attached() && task != NULL)
    task(ompt_scope_end, NULL, &t->ompt_data, 0, league->index, ompt_task_initial);
  lite_task_implicit_end(t);
  thr->task = league->encountering;
}

void lite_ompt_league_end(struct lite_thread *thr, struct lite_ompt_league *league)
{
  thr->ompt_league = league->outer;
  struct lite_task *parent = league->encountering;
  thr->task = parent;
  ompt_callback_parallel_end_t end = LITE_OMPT_CB(ompt_callback_parallel_end);
  if (lite_ompt_attached() && end != NULL)
    end(&league->parallel_data, &parent->ompt_data, league->flags, league->codeptr);
  parent->ompt_frame.enter_frame.ptr = NULL;
}

/* gcc's target teams: GOMP_teams4 is the loop condition around the body (and GOMP_teams, gcc
   5 to 8's, comes before it, the region's end closing: target.c), so the league spans calls,
   and is allocated; the program calls each team's body (invoker_program). No frame is
   set: the body runs in the caller's own frame, between the calls. A league begun while no tool
   was attached has no record, and none is made later (the tool may only go:
   ompt_finalize_tool). */
void lite_ompt_teams_step(struct lite_thread *thr, bool first, bool more, unsigned requested,
                          const void *codeptr)
{
  struct lite_ompt_league *league = thr->ompt_league;
  if (first) {
    if (!lite_ompt_attached())
      return;
    league = aligned_alloc(_Alignof(struct lite_ompt_league),
                           (sizeof *league + _Alignof(struct lite_ompt_league) - 1) &
                               ~(_Alignof(struct lite_ompt_league) - 1));
    if (league == NULL)
      lite_fatal("out of memory for a teams region's tool record");
    lite_ompt_league_begin(thr, league, codeptr, NULL, requested,
                           thr->num_teams != 0 ? thr->num_teams : 1,
                           ompt_parallel_invoker_program);
    league->stepped = true;
  } else {
    if (league == NULL || !league->stepped)
      return;
    lite_ompt_team_end(thr, league);
  }
  if (more) {
    lite_ompt_team_begin(thr, league);
    return;
  }
  lite_ompt_league_end(thr, league);
  free(league);
}
