/* Unit tests for libomp-lite/task_queue.c: the members' ready queues. The owner takes its newest
   task, a thief the oldest; a task with a priority goes first; a member with nothing of its own
   steals from the nearest member first: by the topology when there is one (a synthetic machine
   through HWLOC_SYNTHETIC, so the test does not depend on this one), else by member number; a
   thief in a barrier leaves a short queue to its maker for a moment, then takes half a queue. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libomp-lite/task_queue.h"

#define MEMBERS 4

/* A pool whose team has MEMBERS members, member k noted as last running on CPU cpus[k], and
   the state of member 0; the tasks' parent. */
struct fixture {
  struct lite_pool *pool;
  struct lite_thread thr;
  struct lite_task parent;
  struct lite_task tasks[8];
};

static void fixture_init(struct fixture *f, const int *cpus)
{
  f->pool = aligned_alloc(LITE_CACHE_LINE, sizeof *f->pool);
  memset(f->pool, 0, sizeof *f->pool);
  f->pool->nthreads = MEMBERS;
  f->pool->team_storage.pool = f->pool;
  f->pool->team_storage.nthreads = MEMBERS;
  f->pool->team_storage.tasks.pool = f->pool;
  f->pool->slots = calloc(MEMBERS, sizeof *f->pool->slots);
  for (unsigned k = 0; k < MEMBERS; k++) {
    f->pool->slots[k] = aligned_alloc(LITE_CACHE_LINE, sizeof *f->pool->slots[k]);
    memset(f->pool->slots[k], 0, sizeof *f->pool->slots[k]);
    atomic_store(&f->pool->slots[k]->cpu, cpus != NULL ? cpus[k] : (int)k);
  }
  memset(&f->thr, 0, sizeof f->thr);
  f->thr.team = &f->pool->team_storage;
  f->thr.id = 0;
  memset(&f->parent, 0, sizeof f->parent);
  f->parent.implicit = true;
  memset(f->tasks, 0, sizeof f->tasks);
  for (unsigned i = 0; i < 8; i++)
    f->tasks[i].parent = &f->parent;
}

static struct lite_tasks *queue(struct fixture *f) { return &f->pool->team_storage.tasks; }

static void push(struct fixture *f, unsigned member, unsigned task)
{
  lite_tq_push(queue(f), lite_tq_own(queue(f), member), &f->tasks[task]);
}

/* A taker with a rule that accepts every task, as a taskwait's: one task, as soon as it is
   there (an idle thief may wait for more, below). */
static bool any(const struct lite_task *t, void *arg)
{
  (void)t;
  (void)arg;
  return true;
}

static struct lite_task *take(struct fixture *f, struct lite_thread *thr, unsigned me)
{
  return lite_tq_take(thr, queue(f), me, MEMBERS, any, NULL, false);
}

/* A thief with nothing else to do (in a barrier): no rule, idle. */
static struct lite_task *take_idle(struct fixture *f, unsigned me)
{
  return lite_tq_take(NULL, queue(f), me, MEMBERS, NULL, NULL, true);
}

static void sleep_past_patience(void)
{
  struct timespec ts = {0, 50000}; /* 50 us, the patience is 2 */
  nanosleep(&ts, NULL);
}

static void fixture_free(struct fixture *f)
{
  lite_tq_free(queue(f));
  for (unsigned k = 0; k < MEMBERS; k++)
    free(f->pool->slots[k]);
  free(f->pool->slots);
  free(f->thr.near);
  free(f->pool);
}

START_TEST(test_owner_newest_thief_oldest)
{
  struct fixture f;
  fixture_init(&f, NULL);
  push(&f, 0, 0);
  push(&f, 0, 1);
  push(&f, 0, 2);
  ck_assert_ptr_eq(take(&f, NULL, 0), &f.tasks[2]);  /* the owner: newest */
  ck_assert_ptr_eq(take(&f, NULL, 1), &f.tasks[0]);  /* a thief: oldest */
  ck_assert_ptr_eq(take(&f, NULL, 0), &f.tasks[1]);
  ck_assert_ptr_null(take(&f, NULL, 0));
  ck_assert(lite_tq_length(queue(&f), 0) == 0);
  fixture_free(&f);
}
END_TEST

START_TEST(test_priority_first)
{
  struct fixture f;
  fixture_init(&f, NULL);
  push(&f, 0, 0);
  f.tasks[1].priority = 3;
  push(&f, 0, 1);
  f.tasks[2].priority = 7;
  push(&f, 0, 2);
  push(&f, 0, 3);
  /* The owner and a thief alike: the highest priority first, then by their ends. */
  ck_assert_ptr_eq(take(&f, NULL, 1), &f.tasks[2]);
  ck_assert_ptr_eq(take(&f, NULL, 0), &f.tasks[1]);
  ck_assert_ptr_eq(take(&f, NULL, 0), &f.tasks[3]);
  ck_assert_ptr_eq(take(&f, NULL, 0), &f.tasks[0]);
  fixture_free(&f);
}
END_TEST

/* Without a topology: the members around the thief's own number, id + 1 first. */
START_TEST(test_steal_by_member_number)
{
  struct fixture f;
  fixture_init(&f, NULL);
  push(&f, 2, 0);
  push(&f, 1, 1);
  push(&f, 3, 2);
  ck_assert_ptr_eq(take(&f, NULL, 0), &f.tasks[1]); /* member 1 */
  ck_assert_ptr_eq(take(&f, NULL, 0), &f.tasks[2]); /* member 3 (0 - 1) */
  ck_assert_ptr_eq(take(&f, NULL, 0), &f.tasks[0]); /* member 2 */
  fixture_free(&f);
}
END_TEST

/* Two packages of four cores: members 0 and 2 run on package 0, members 1 and 3 on package 1.
   Member 0 steals from member 2 first, though member 1 comes first by number. */
START_TEST(test_steal_nearest_first)
{
  ck_assert_int_eq(setenv("HWLOC_SYNTHETIC", "pack:2 core:4 pu:1", 1), 0);
  const int cpus[MEMBERS] = {0, 4, 1, 5};
  struct fixture f;
  fixture_init(&f, cpus);
  push(&f, 1, 0);
  push(&f, 2, 1);
  push(&f, 3, 2);
  ck_assert_ptr_eq(take(&f, &f.thr, 0), &f.tasks[1]); /* member 2: the same package */
  ck_assert_ptr_nonnull(f.thr.near);
  ck_assert_ptr_eq(take(&f, &f.thr, 0), &f.tasks[0]); /* then member 1 or 3 */
  ck_assert_ptr_eq(take(&f, &f.thr, 0), &f.tasks[2]);
  fixture_free(&f);
}
END_TEST

/* A thief without a rule leaves a lone task to its maker for a while (not a look that found
   nothing: the queue stays counted), then takes it; with two queues of one task each it takes
   both in the end (its patience is its own, not per queue). */
START_TEST(test_lone_task_waits)
{
  struct fixture f;
  fixture_init(&f, NULL);
  push(&f, 1, 0);
  ck_assert_ptr_null(take_idle(&f, 0));
  ck_assert(atomic_load(&queue(&f)->ready) != 0);
  sleep_past_patience();
  ck_assert_ptr_eq(take_idle(&f, 0), &f.tasks[0]);
  push(&f, 1, 1);
  push(&f, 2, 2);
  struct lite_task *got[2] = {NULL, NULL};
  for (unsigned k = 0; k < 2; k++) {
    for (int tries = 0; got[k] == NULL && tries < 1000; tries++) {
      got[k] = take_idle(&f, 0);
      if (got[k] == NULL)
        sleep_past_patience();
    }
    ck_assert_ptr_nonnull(got[k]);
  }
  ck_assert(got[0] != got[1]);
  ck_assert_ptr_null(take_idle(&f, 0));
  ck_assert(atomic_load(&queue(&f)->ready) == 0); /* a look that found nothing settles */
  fixture_free(&f);
}
END_TEST

/* A short queue (two tasks) whose maker is still making tasks is left to it: the patience starts
   again at each look that sees the maker's count of tasks made grown. Meanwhile another queue's
   lone task waits only the patience from the first sighting of a short queue. */
START_TEST(test_short_queue_waits_for_its_maker)
{
  struct fixture f;
  fixture_init(&f, NULL);
  push(&f, 1, 0);
  push(&f, 1, 1);
  ck_assert_ptr_null(take_idle(&f, 0));
  sleep_past_patience();
  _Atomic unsigned long *made = &lite_tq_own(queue(&f), 1)->created;
  atomic_fetch_add(made, 1); /* member 1 made a task */
  ck_assert_ptr_null(take_idle(&f, 0));
  push(&f, 2, 2);
  atomic_fetch_add(made, 1); /* and another: the wait holds however long the push took */
  ck_assert_ptr_eq(take_idle(&f, 0), &f.tasks[2]);
  ck_assert_ptr_null(take_idle(&f, 0)); /* a new wait for member 1's queue */
  sleep_past_patience();
  ck_assert_ptr_eq(take_idle(&f, 0), &f.tasks[0]); /* the maker made nothing since */
  ck_assert_uint_eq(lite_tq_length(queue(&f), 1), 1);
  fixture_free(&f);
}
END_TEST

/* From a longer queue a thief without a rule takes half: the oldest to run, the next ones into
   its own queue, where they stay ready and counted for their parent. */
START_TEST(test_steal_half)
{
  struct fixture f;
  fixture_init(&f, NULL);
  for (unsigned i = 0; i < 7; i++)
    push(&f, 1, i);
  ck_assert_ptr_eq(take_idle(&f, 0), &f.tasks[0]);
  ck_assert_uint_eq(lite_tq_length(queue(&f), 0), 3);
  ck_assert_uint_eq(lite_tq_length(queue(&f), 1), 3);
  ck_assert_uint_eq(lite_task_kids_ready(&f.parent), 6);
  ck_assert_ptr_eq(take(&f, NULL, 0), &f.tasks[3]); /* its own newest: the last one moved */
  ck_assert_ptr_eq(take(&f, NULL, 1), &f.tasks[6]); /* the maker's newest */
  ck_assert_uint_eq(lite_task_kids_ready(&f.parent), 4);
  fixture_free(&f);
}
END_TEST

/* The summary of which queues hold tasks: a queue's bit is set with its count in ready and
   cleared by the look that finds it empty; a thief finds the task behind the bit. */
START_TEST(test_holding_summary)
{
  struct fixture f;
  fixture_init(&f, NULL);
  ck_assert_uint_eq(atomic_load(&queue(&f)->holding[0]), 0);
  push(&f, 3, 0);
  push(&f, 3, 1);
  push(&f, 3, 2);
  ck_assert_uint_eq(atomic_load(&queue(&f)->holding[0]), 1u << 3);
  ck_assert_ptr_eq(take(&f, NULL, 1), &f.tasks[0]); /* a thief: through the bit, the oldest */
  ck_assert_ptr_eq(take(&f, NULL, 3), &f.tasks[2]);
  ck_assert_ptr_eq(take(&f, NULL, 3), &f.tasks[1]);
  ck_assert_uint_eq(atomic_load(&queue(&f)->holding[0]), 1u << 3); /* not yet looked at */
  ck_assert_ptr_null(take(&f, NULL, 1));
  ck_assert_uint_eq(atomic_load(&queue(&f)->holding[0]), 0);
  ck_assert_uint_eq(atomic_load(&queue(&f)->ready), 0);
  push(&f, 0, 3);
  push(&f, 2, 4);
  ck_assert_uint_eq(atomic_load(&queue(&f)->holding[0]), (1u << 0) | (1u << 2));
  fixture_free(&f);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("task_queue");
  TCase *tc = tcase_create("queues");
  tcase_add_test(tc, test_owner_newest_thief_oldest);
  tcase_add_test(tc, test_priority_first);
  tcase_add_test(tc, test_steal_by_member_number);
  tcase_add_test(tc, test_steal_nearest_first);
  tcase_add_test(tc, test_lone_task_waits);
  tcase_add_test(tc, test_short_queue_waits_for_its_maker);
  tcase_add_test(tc, test_steal_half);
  tcase_add_test(tc, test_holding_summary);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
