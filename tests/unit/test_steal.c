/* Unit tests for sched/steal.c: the stealing hand-out of nonmonotonic loops, driven by one
   thread playing every member in turn, so that the order of takes and steals is the test's. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

/* A stealing loop of count iterations in chunks of chunk, set up as lite_sched_setup would. */
static struct lite_ws *new_ws(unsigned nthreads, uint64_t count, uint64_t chunk)
{
  struct lite_ws *ws = aligned_alloc(LITE_CACHE_LINE, sizeof *ws);
  memset(ws, 0, sizeof *ws);
  ws->nthreads = nthreads;
  ws->count = count;
  ws->chunk = chunk;
  ws->handout = LITE_HANDOUT_OWN;
  ws->steal = true;
  ws->ranges = aligned_alloc(LITE_CACHE_LINE, nthreads * sizeof *ws->ranges);
  memset(ws->ranges, 0, nthreads * sizeof *ws->ranges);
  ws->ranges_cap = nthreads;
  atomic_store(&ws->ticket, 1);
  lite_steal_setup(ws);
  return ws;
}

static void free_ws(struct lite_ws *ws)
{
  free(ws->ranges);
  free(ws);
}

/* The ranges that hold chunks a thief could take: ranges_left may count more, never fewer. */
static unsigned ranges_with_chunks(const struct lite_ws *ws)
{
  uint64_t nchunks = ws->count / ws->chunk + (ws->count % ws->chunk != 0);
  unsigned n = 0;
  for (unsigned id = 0; id < ws->nthreads; id++) {
    const struct lite_range *r = &ws->ranges[id];
    n += r->tag == (uint32_t)atomic_load(&ws->ticket) ? r->lo < r->hi : id < nchunks;
  }
  return n;
}

/* Members take in turn, each `turns[id]` requests per round (0: it sits the round out), until
   every one has been told there is nothing left; every iteration must be run exactly once. */
static void run_members(struct lite_ws *ws, const unsigned *turns)
{
  unsigned n = ws->nthreads;
  unsigned char *seen = calloc(ws->count, 1);
  bool *done = calloc(n, sizeof *done);
  unsigned left = n;
  while (left > 0) {
    for (unsigned id = 0; id < n; id++) {
      for (unsigned t = 0; t < (turns != NULL ? turns[id] : 1) && !done[id]; t++) {
        uint64_t lo, hi;
        bool got = lite_steal_next(ws, id, &lo, &hi);
        ck_assert_uint_ge(atomic_load(&ws->ranges_left), ranges_with_chunks(ws));
        if (!got) {
          done[id] = true;
          left--;
          break;
        }
        ck_assert_uint_lt(lo, hi);
        ck_assert_uint_le(hi, ws->count);
        for (uint64_t i = lo; i < hi; i++) {
          ck_assert_int_eq(seen[i], 0);
          seen[i] = 1;
        }
      }
    }
  }
  for (uint64_t i = 0; i < ws->count; i++)
    ck_assert_int_eq(seen[i], 1);
  free(seen);
  free(done);
}

START_TEST(test_every_iteration_once)
{
  static const uint64_t counts[] = {1, 3, 64, 1000, 4099};
  static const unsigned teams[] = {2, 3, 16, 100};
  for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; c++)
    for (unsigned t = 0; t < sizeof teams / sizeof teams[0]; t++)
      for (uint64_t chunk = 1; chunk <= 7; chunk += 3) {
        struct lite_ws *ws = new_ws(teams[t], counts[c], chunk);
        /* Uneven speeds: member k takes 1 + k % 4 times per round, so the fast ones steal. */
        unsigned *turns = malloc(teams[t] * sizeof *turns);
        for (unsigned id = 0; id < teams[t]; id++)
          turns[id] = 1 + id % 4;
        run_members(ws, turns);
        ck_assert_uint_eq(atomic_load(&ws->ranges_left), 0);
        free(turns);
        free_ws(ws);
      }
}
END_TEST

/* Once every range is empty, a thief answers "nothing left" without taking another member's
   lock: in a team many times the CPUs, the owner of each lock may be waiting for a CPU, and a
   look at every range by every member that finishes cost the square of the team (1,000 threads
   on 2 CPUs, 20 regions of a schedule(runtime) loop: 22-40 s; libgomp 0.5). Here every other
   member's lock is held: a thief that took one would never return. */
START_TEST(test_drained_loop_takes_no_lock)
{
  struct lite_ws *ws = new_ws(1000, 100000, 1);
  run_members(ws, NULL);
  for (unsigned id = 0; id < 1000; id++)
    atomic_store(&ws->ranges[id].lock, 1);
  atomic_store(&ws->ranges[7].lock, 0);
  uint64_t lo, hi;
  ck_assert(!lite_steal_next(ws, 7, &lo, &hi));
  free_ws(ws);
}
END_TEST

/* The count never falls below the ranges that hold chunks (checked after every request by
   run_members): a thief that leaves its victim some chunks counts its own range in. One member
   takes its block and then steals the other's in halves before the other starts. */
START_TEST(test_ranges_left_counts_split_ranges)
{
  struct lite_ws *ws = new_ws(2, 64, 1);
  static const unsigned turns[] = {1000, 1};
  run_members(ws, turns);
  ck_assert_uint_gt(atomic_load(&ws->stolen), 0);
  free_ws(ws);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("steal");
  TCase *tc = tcase_create("hand-out");
  tcase_add_test(tc, test_every_iteration_once);
  tcase_add_test(tc, test_drained_loop_takes_no_lock);
  tcase_add_test(tc, test_ranges_left_counts_split_ranges);
  tcase_set_timeout(tc, 60);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
