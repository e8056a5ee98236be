/* Unit tests of balance.c: when a placement of an oversubscribed team counts as lopsided, which
   worker moves where (never the leader, only to a CPU of the mask), when the load of other
   processes is known (lite_foreign_load), the move itself
   (lite_os_move_to_cpu leaves the thread's mask as it was), and a team whose members all crowd
   onto one CPU at every region gets workers moved by its leader while the results stay right.

   No assertion depends on timing. The team test turns the load watch off, so that other processes
   on the machine cannot make the leader hold back. */
#include "internal.h"

#include <check.h>
#include <sched.h>
#include <stdlib.h>

/* The count of moves as a function, so that a failed assertion prints the call. */
static unsigned long moves_so_far(void) { return atomic_load(&lite_balance_moves); }

/* ---------------------------------------------------------------- lite_balance_lopsided */

START_TEST(test_lopsided)
{
  ck_assert(lite_balance_lopsided((int[]){0, 0, 0, 1}, 4, 2));
  ck_assert(lite_balance_lopsided((int[]){1, 1, 1, 1}, 4, 2));
  ck_assert(!lite_balance_lopsided((int[]){0, 0, 1, 1}, 4, 2));
  ck_assert(!lite_balance_lopsided((int[]){0, 1, 1, 0}, 4, 2));
  /* 5 members on 2 CPUs: 3 on one is a fair share, 4 is not. */
  ck_assert(!lite_balance_lopsided((int[]){0, 0, 0, 1, 1}, 5, 2));
  ck_assert(lite_balance_lopsided((int[]){0, 0, 0, 0, 1}, 5, 2));
  /* 3 members on 2 CPUs may not all share one. */
  ck_assert(lite_balance_lopsided((int[]){7, 7, 7}, 3, 2));
  ck_assert(!lite_balance_lopsided((int[]){7, 7, 3}, 3, 2));
  /* CPUs it does not count: unknown, or numbered past its table. */
  ck_assert(!lite_balance_lopsided((int[]){0, 0, 0, -1}, 4, 2));
  ck_assert(!lite_balance_lopsided((int[]){0, 0, 0, 300}, 4, 2));
}
END_TEST

/* ---------------------------------------------------------------- lite_balance_plan */

static void mask_of(uint64_t allowed[4], const int *cpus, unsigned n)
{
  allowed[0] = allowed[1] = allowed[2] = allowed[3] = 0;
  for (unsigned i = 0; i < n; i++)
    allowed[cpus[i] / 64] |= (uint64_t)1 << (cpus[i] % 64);
}

START_TEST(test_plan_moves_a_worker_to_the_emptiest_cpu)
{
  uint64_t allowed[4];
  struct lite_balance_move move;
  mask_of(allowed, (int[]){0, 1}, 2);
  /* The last worker on the crowded CPU goes to the other. */
  ck_assert(lite_balance_plan((int[]){0, 0, 0, 1}, 4, allowed, &move));
  ck_assert_uint_eq(move.member, 2);
  ck_assert_int_eq(move.cpu, 1);
  ck_assert(lite_balance_plan((int[]){1, 0, 0, 0}, 4, allowed, &move));
  ck_assert_uint_eq(move.member, 3);
  ck_assert_int_eq(move.cpu, 1);
  /* The leader (member 0) shares the crowded CPU: a worker moves, never the leader. */
  ck_assert(lite_balance_plan((int[]){1, 1, 0, 1}, 4, allowed, &move));
  ck_assert_uint_eq(move.member, 3);
  ck_assert_int_eq(move.cpu, 0);
  ck_assert(lite_balance_plan((int[]){0, 1, 0, 0}, 4, allowed, &move));
  ck_assert_uint_eq(move.member, 3);
  ck_assert_int_eq(move.cpu, 1);
  /* A CPU of the mask that no member uses is the emptiest. */
  mask_of(allowed, (int[]){0, 1, 130}, 3);
  ck_assert(lite_balance_plan((int[]){0, 0, 1, 1}, 4, allowed, &move));
  ck_assert_int_eq(move.cpu, 130);
  ck_assert_uint_eq(move.member, 1);
}
END_TEST

START_TEST(test_plan_leaves_even_placements)
{
  uint64_t allowed[4];
  struct lite_balance_move move;
  mask_of(allowed, (int[]){0, 1}, 2);
  ck_assert(!lite_balance_plan((int[]){0, 0, 1, 1}, 4, allowed, &move));
  ck_assert(!lite_balance_plan((int[]){0, 1, 0, 1, 0}, 5, allowed, &move));
  /* Crowded, but the mask offers no other CPU. */
  mask_of(allowed, (int[]){0}, 1);
  ck_assert(!lite_balance_plan((int[]){0, 0, 0, 0}, 4, allowed, &move));
  /* The members' CPUs outside the mask do not count as places to move to. */
  mask_of(allowed, (int[]){0, 1}, 2);
  ck_assert(!lite_balance_plan((int[]){0, 0, 1, 1, 5, 5, 5}, 7, allowed, &move));
  ck_assert(!lite_balance_plan((int[]){0, 0, 0, -1}, 4, allowed, &move));
}
END_TEST

/* ---------------------------------------------------------------- the move */

static int first_cpu(const cpu_set_t *mask, int after)
{
  for (int c = after + 1; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, mask))
      return c;
  return -1;
}

START_TEST(test_move_to_cpu_keeps_the_mask)
{
  cpu_set_t before, after;
  ck_assert_int_eq(sched_getaffinity(0, sizeof before, &before), 0);
  for (int c = first_cpu(&before, -1); c >= 0; c = first_cpu(&before, c)) {
    ck_assert(lite_os_move_to_cpu(0, c));
    ck_assert_int_eq(sched_getaffinity(0, sizeof after, &after), 0);
    ck_assert(CPU_EQUAL(&before, &after));
  }
  /* A CPU outside the mask, or no CPU at all. */
  int outside = -1;
  for (int c = 0; c < CPU_SETSIZE && outside < 0; c++)
    if (!CPU_ISSET(c, &before))
      outside = c;
  if (outside >= 0)
    ck_assert(!lite_os_move_to_cpu(0, outside));
  ck_assert(!lite_os_move_to_cpu(0, -1));
  ck_assert_int_eq(sched_getaffinity(0, sizeof after, &after), 0);
  ck_assert(CPU_EQUAL(&before, &after));
}
END_TEST

/* The runtime's own moves: a thread with the process's mask moves and gets exactly that mask
   back; a thread whose mask the user narrowed is not moved at all. */
START_TEST(test_move_self_only_with_the_process_mask)
{
  cpu_set_t before, after, pin;
  ck_assert_int_eq(sched_getaffinity(0, sizeof before, &before), 0);
  int first = first_cpu(&before, -1), second = first_cpu(&before, first);
  if (second >= 0) {
    ck_assert(lite_os_move_self_to_cpu(second));
    ck_assert(lite_os_move_self_off_cpu(second));
  }
  ck_assert_int_eq(sched_getaffinity(0, sizeof after, &after), 0);
  ck_assert(CPU_EQUAL(&before, &after));
  CPU_ZERO(&pin);
  CPU_SET(first, &pin);
  ck_assert_int_eq(sched_setaffinity(0, sizeof pin, &pin), 0);
  ck_assert(!lite_os_move_self_to_cpu(first));
  if (second >= 0)
    ck_assert(!lite_os_move_self_to_cpu(second));
  ck_assert(!lite_os_move_self_off_cpu(first));
  ck_assert_int_eq(sched_getaffinity(0, sizeof after, &after), 0);
  ck_assert(CPU_EQUAL(&pin, &after));
  ck_assert_int_eq(sched_setaffinity(0, sizeof before, &before), 0);
}
END_TEST

START_TEST(test_affinity_bitmap)
{
  cpu_set_t mask;
  uint64_t bits[4];
  ck_assert_int_eq(sched_getaffinity(0, sizeof mask, &mask), 0);
  ck_assert(lite_os_affinity_bitmap(bits, 256));
  for (int c = 0; c < 256; c++)
    ck_assert_int_eq((int)(bits[c / 64] >> (c % 64) & 1), CPU_ISSET(c, &mask) ? 1 : 0);
}
END_TEST

/* ---------------------------------------------------------------- a crowded team */

/* Regions a crowded team runs: the leader moves a worker at most once per ms, and each region
   takes a few µs at least. */
#define CROWD_REGIONS 20000

struct crowd {
  int cpu;                /* where every member goes at the start of each region */
  _Atomic long sum;
};

static void crowd_fn(void *arg)
{
  struct crowd *c = arg;
  lite_os_move_to_cpu(0, c->cpu);
  atomic_fetch_add(&c->sum, (long)lite_self()->id + 1);
}

START_TEST(test_crowded_team_is_spread)
{
  cpu_set_t mask;
  ck_assert_int_eq(sched_getaffinity(0, sizeof mask, &mask), 0);
  if (CPU_COUNT(&mask) < 2 || lite_env.ncpus < 2 || 2 * lite_env.ncpus > 64)
    return; /* nothing to spread over, or a team too large for balance.c to look at */
  lite_env.load_watch = false;
  unsigned n = 2 * lite_env.ncpus;
  struct crowd c = {first_cpu(&mask, -1), 0};
  unsigned long moves = moves_so_far();
  /* Every region ends with the whole team noted on one CPU: the leader moves a worker at the
     first join, and again once its hold is over. */
  int r = 0;
  while (r < CROWD_REGIONS && moves_so_far() - moves < 2) {
    GOMP_parallel(crowd_fn, &c, n, 0);
    r++;
  }
  ck_assert_uint_ge(moves_so_far() - moves, 2);
  ck_assert_int_eq(atomic_load(&c.sum), (long)r * n * (n + 1) / 2);
  /* The workers keep the process's mask. */
  cpu_set_t now;
  ck_assert_int_eq(sched_getaffinity(0, sizeof now, &now), 0);
  ck_assert(CPU_EQUAL(&mask, &now));
}
END_TEST

/* A team that fits the CPUs is never moved, however it is placed. */
START_TEST(test_team_that_fits_is_left_alone)
{
  cpu_set_t mask;
  ck_assert_int_eq(sched_getaffinity(0, sizeof mask, &mask), 0);
  lite_env.load_watch = false;
  unsigned n = lite_env.ncpus;
  struct crowd c = {first_cpu(&mask, -1), 0};
  unsigned long moves = moves_so_far();
  for (int r = 0; r < CROWD_REGIONS / 10; r++)
    GOMP_parallel(crowd_fn, &c, n, 0);
  ck_assert_uint_eq(moves_so_far(), moves);
  ck_assert_int_eq(atomic_load(&c.sum), (long)CROWD_REGIONS / 10 * n * (n + 1) / 2);
}
END_TEST

/* ---------------------------------------------------------------- lite_foreign_load */

/* Threads the runtime is made to count as its own, live and parked, that do not exist. */
static void pretend(int live, int parked)
{
  atomic_fetch_add(&lite_threads_live, live);
  atomic_fetch_add(&lite_threads_parked, parked);
}

/* The kernel's count of runnable tasks as the load watch is given it, instead of the machine's:
   1,000 busy threads of another process, or make -j's other tests, must not change the answer.
   (lite_env.ncpus is all the online CPUs here: no task is set aside for CPUs we do not use.) */
static _Atomic int given_runnable_tasks;
static int runnable_tasks_given(void) { return atomic_load(&given_runnable_tasks); }
/* Our runnable threads, counted one by one, which the overload check reads: all awake ones. */
static int runnable_ours_given(void) { return lite_threads_awake(); }

/* A count taken while threads of ours are parked settles nothing when those threads may or may
   not be in it: the answer is unknown, and a count is asked for, which the thread whose wake-up
   empties the parked ones takes; that answer then serves later looks, for 10 ms. A count with
   more runnable tasks than all our threads says foreign. */
START_TEST(test_foreign_load_counted_when_all_awake)
{
  (void)lite_self(); /* the one live thread of ours, runnable */
  lite_env.load_watch = true;
  lite_env.ncpus = lite_os_online_cpus();
  lite_load_counts.runnable_tasks = runnable_tasks_given;
  lite_load_counts.runnable_threads_of_process = runnable_ours_given;
  _Atomic uint32_t sleepers = 0;

  /* 4 live, 3 parked, 2 runnable tasks (this thread and one more): the floor (runnable - live)
     is below zero, the ceiling (runnable - live + parked) above: the other one may be a thread
     of ours that has just gone to sleep, or a foreign one. */
  pretend(3, 2);
  lite_park_begin(&sleepers);
  atomic_store(&given_runnable_tasks, 2);
  ck_assert_int_eq(lite_foreign_load(lite_now_ns()), LITE_LOAD_UNKNOWN);
  ck_assert_int_eq(lite_foreign_load(lite_now_ns()), LITE_LOAD_UNKNOWN);

  /* The last one wakes, and all 4 are runnable: the count it takes says none. */
  pretend(0, -2);
  atomic_store(&given_runnable_tasks, 4);
  uint64_t before = lite_now_ns();
  lite_park_end(&sleepers);
  pretend(0, 3); /* 3 parked again */
  uint64_t now = lite_now_ns();
  enum lite_load load = lite_foreign_load(now); /* unknown again by itself */
  ck_assert_msg(load == LITE_LOAD_NONE || now - before >= 10000000,
                "the answer of the count taken at the wake-up was not kept: %d", (int)load);
  pretend(0, -3);

  /* All 4 awake, and 5 runnable tasks: foreign, unless the load is not looked for. */
  atomic_store(&given_runnable_tasks, 5);
  ck_assert_int_eq(lite_foreign_load(lite_now_ns()), LITE_LOAD_FOREIGN);
  lite_env.load_watch = false;
  ck_assert_int_eq(lite_foreign_load(lite_now_ns()), LITE_LOAD_NONE);
  pretend(-3, 0);
}
END_TEST

static Suite *balance_suite(void)
{
  Suite *s = suite_create("balance");
  TCase *plan = tcase_create("plan");
  tcase_add_test(plan, test_lopsided);
  tcase_add_test(plan, test_plan_moves_a_worker_to_the_emptiest_cpu);
  tcase_add_test(plan, test_plan_leaves_even_placements);
  suite_add_tcase(s, plan);
  TCase *os = tcase_create("os");
  tcase_add_test(os, test_move_to_cpu_keeps_the_mask);
  tcase_add_test(os, test_affinity_bitmap);
  tcase_add_test(os, test_move_self_only_with_the_process_mask);
  suite_add_tcase(s, os);
  TCase *load = tcase_create("load");
  tcase_add_test(load, test_foreign_load_counted_when_all_awake);
  suite_add_tcase(s, load);
  TCase *team = tcase_create("team");
  tcase_set_timeout(team, 60);
  tcase_add_test(team, test_crowded_team_is_spread);
  tcase_add_test(team, test_team_that_fits_is_left_alone);
  suite_add_tcase(s, team);
  return s;
}

int main(void)
{
  SRunner *sr = srunner_create(balance_suite());
  /* Each test in its own process: they change lite_env and count moves from a fresh start. */
  srunner_set_fork_status(sr, CK_FORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
