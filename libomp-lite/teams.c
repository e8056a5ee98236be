/* The teams construct on the host (OpenMP 5.2 §10.2): a league of teams, run one after another by
   the encountering thread, each as the initial thread of its team. Teams do not synchronise with
   each other, so running them in turn is a valid schedule; each one can still fork a parallel
   region of its own. The team number and league size are the thread's (and are handed to the
   members of the parallel regions it starts: team.c). With a tool attached, the league and each
   team's initial task are reported (ompt/league.c). */
#include "internal.h"
#include "ompt/ompt.h"

#include <limits.h>

/* With no num_teams clause and no OMP_NUM_TEAMS, libgomp's host league has 3 teams. */
#define DEFAULT_TEAMS 3

static unsigned clamp_limit(unsigned limit) { return limit > INT_MAX ? UINT32_MAX : limit; }

/* The league: fn runs once per team. With league (a tool attached: ompt/league.c) each team's
   initial task begins and ends around its body; the plain copy (league NULL, inlined into its
   callers) has no more to it than the loop. */
static inline __attribute__((always_inline)) void run_league(void (*fn)(void *), void *data,
                                                             unsigned num_teams,
                                                             unsigned thread_limit,
                                                             struct lite_ompt_league *league,
                                                             const void *codeptr, void *enter)
{
  struct lite_thread *thr = lite_self();
  unsigned requested = num_teams;
  if (thread_limit == 0)
    thread_limit = (unsigned)lite_env.teams_thread_limit;
  unsigned saved_limit = thr->icv.thread_limit;
  if (thread_limit != 0)
    thr->icv.thread_limit = clamp_limit(thread_limit);
  if (num_teams == 0)
    num_teams = lite_env.num_teams > 0 ? (unsigned)lite_env.num_teams : DEFAULT_TEAMS;
  unsigned saved_teams = thr->num_teams, saved_num = thr->team_num;
  thr->num_teams = num_teams;
  if (league != NULL)
    lite_ompt_league_begin(thr, league, codeptr, enter, requested, num_teams,
                           ompt_parallel_invoker_runtime);
  for (thr->team_num = 0; thr->team_num < num_teams; thr->team_num++) {
    if (league == NULL) {
      fn(data);
      continue;
    }
    lite_ompt_team_begin(thr, league);
    lite_ompt_invoke(thr, fn, data);
    lite_ompt_team_end(thr, league);
  }
  if (league != NULL)
    lite_ompt_league_end(thr, league);
  thr->num_teams = saved_teams;
  thr->team_num = saved_num;
  thr->icv.thread_limit = saved_limit;
}

void lite_teams_run_ompt(const void *codeptr, void *enter, void (*fn)(void *), void *data,
                         unsigned num_teams, unsigned thread_limit)
{
  (void)lite_self(); /* the first call decides whether a tool is attached */
  if (!lite_ompt_attached()) {
    run_league(fn, data, num_teams, thread_limit, NULL, NULL, NULL);
    return;
  }
  struct lite_ompt_league league;
  run_league(fn, data, num_teams, thread_limit, &league, codeptr, enter);
}

/* teams outside a target region (OpenMP 5.0). */
void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams, unsigned thread_limit,
                    unsigned flags)
{
  (void)flags;
  /* The frame address only on this path: gcc then sets up a frame pointer there alone. */
  if (lite_ompt_on())
    lite_teams_run_ompt(__builtin_return_address(0), __builtin_frame_address(0), fn, data,
                        num_teams, thread_limit);
  else
    run_league(fn, data, num_teams, thread_limit, NULL, NULL, NULL);
}

/* teams inside a target region: gcc calls it as a loop condition around the teams body, first
   with first = true; each true answer runs the body once more, as the next team. */
static bool next_team(struct lite_thread *thr, unsigned num_teams_low, unsigned thread_limit,
                      bool first)
{
  if (first) {
    if (thread_limit != 0)
      thr->icv.thread_limit = clamp_limit(thread_limit);
    thr->num_teams = num_teams_low != 0 ? num_teams_low : 1;
    thr->team_num = 0;
    return true;
  }
  if (thr->team_num + 1 >= thr->num_teams)
    return false;
  thr->team_num++;
  return true;
}

bool GOMP_teams4(unsigned num_teams_low, unsigned num_teams_high, unsigned thread_limit,
                 bool first)
{
  (void)num_teams_high; /* the league may have any size in [low, high]: low teams */
  struct lite_thread *thr = lite_self();
  bool more = next_team(thr, num_teams_low, thread_limit, first);
  if (lite_ompt_on())
    lite_ompt_teams_step(thr, first, more, num_teams_low, __builtin_return_address(0));
  return more;
}

/* The OpenMP 4.5 form (gcc 5 to 8): the body runs once, as a league of one team, after the
   call. teams is then the only construct of its target region, so the league ends with the
   region: target.c closes it there. */
void GOMP_teams(unsigned num_teams, unsigned thread_limit)
{
  (void)num_teams;
  struct lite_thread *thr = lite_self();
  if (thread_limit != 0)
    thr->icv.thread_limit = clamp_limit(thread_limit);
  if (lite_ompt_on())
    lite_ompt_teams_step(thr, true, true, num_teams, __builtin_return_address(0));
}

int omp_get_num_teams(void)
{
  struct lite_thread *thr = lite_self();
  return thr->num_teams != 0 ? (int)thr->num_teams : 1;
}

int omp_get_team_num(void) { return (int)lite_self()->team_num; }
