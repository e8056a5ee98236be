/* Unit tests for sched/site.c: the per-call-site decisions (steal or not, tiny or not), fed with
   given measurements instead of real timings, so that they do not depend on the machine's load. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

static struct lite_ws *new_ws(unsigned nthreads, uint64_t count)
{
  struct lite_ws *ws = aligned_alloc(LITE_CACHE_LINE, sizeof *ws);
  memset(ws, 0, sizeof *ws);
  ws->nthreads = nthreads;
  ws->count = count;
  ws->handout = LITE_HANDOUT_OWN;
  return ws;
}

/* A run at site key in two halves: its plan (ws->steal, and ws->handout as lite_sched_setup
   sets it from the plan; measured if ws->start_ns is set), then its end, which reports the
   given busy times (ns) and wall time (ns) if measured. */
static void plan_run(void *key, struct lite_ws *ws)
{
  atomic_store(&ws->ticket, atomic_load(&ws->ticket) + 1);
  ws->handout = lite_site_plan(ws, key, NULL);
}

static void end_run(struct lite_ws *ws, uint64_t min_busy, uint64_t max_busy, uint64_t wall)
{
  if (ws->start_ns != 0) {
    atomic_store(&ws->min_busy_ns, min_busy);
    atomic_store(&ws->max_busy_ns, max_busy);
    atomic_store(&ws->last_done_ns, ws->start_ns + wall);
  }
  lite_site_loop_done(ws);
}

/* One whole run; returns whether it stole. */
static bool run(void *key, struct lite_ws *ws, uint64_t min_busy, uint64_t max_busy, uint64_t wall,
                enum lite_handout *handout)
{
  plan_run(key, ws);
  bool steal = ws->steal;
  if (handout != NULL)
    *handout = ws->handout;
  end_run(ws, min_busy, max_busy, wall);
  return steal;
}

START_TEST(test_first_run_steals)
{
  lite_env.tiny_loops = true;
  struct lite_ws *ws = new_ws(2, 1000);
  ck_assert(run((void *)0x1001, ws, 10000, 10000, 12000, NULL));
  free(ws);
}
END_TEST

START_TEST(test_short_balanced_stops_stealing)
{
  lite_env.tiny_loops = true;
  struct lite_ws *ws = new_ws(2, 1000);
  void *key = (void *)0x1002;
  int stealing = 0;
  for (int i = 0; i < 100; i++)
    stealing += run(key, ws, 10000, 10500, 12000, NULL);
  /* Stealing runs are the first run and the probes' alternation at most: well under half. */
  ck_assert_int_lt(stealing, 20);
  free(ws);
}
END_TEST

START_TEST(test_imbalanced_keeps_stealing)
{
  lite_env.tiny_loops = true;
  struct lite_ws *ws = new_ws(2, 1000);
  void *key = (void *)0x1003;
  int stealing = 0;
  /* Without stealing the members' busy times differ threefold; with it they would be even, but
     the site must not drop back to not stealing for long. */
  for (int i = 0; i < 100; i++)
    stealing += run(key, ws, 5000, 15000, 16000, NULL);
  ck_assert_int_gt(stealing, 80);
  free(ws);
}
END_TEST

START_TEST(test_long_loop_steals)
{
  lite_env.tiny_loops = true;
  struct lite_ws *ws = new_ws(4, 100000);
  void *key = (void *)0x1004;
  int stealing = 0;
  for (int i = 0; i < 50; i++)
    stealing += run(key, ws, 200000, 200000, 210000, NULL);
  ck_assert_int_eq(stealing, 50);
  free(ws);
}
END_TEST

/* A site at key whose loop (2 threads, 1000 iterations) has run evenly for a while: balanced,
   short, not tiny. */
static struct lite_ws *settled_site(void *key)
{
  lite_env.tiny_loops = true;
  struct lite_ws *ws = new_ws(2, 1000);
  for (int i = 0; i < 10; i++)
    run(key, ws, 10000, 10000, 12000, NULL);
  return ws;
}

START_TEST(test_steady_site_is_sampled)
{
  void *key = (void *)0x1007;
  struct lite_ws *ws = settled_site(key);
  /* Settled: the measured runs keep confirming the decision, so they thin out from about one run
     in eight to one in 64; the others only read the site. */
  int early = 0, late = 0;
  for (int i = 0; i < 1600; i++) {
    plan_run(key, ws);
    ck_assert(!ws->steal);
    if (i < 64)
      early += ws->start_ns != 0;
    else if (i >= 960)
      late += ws->start_ns != 0;
    end_run(ws, 10000, 10000, 12000);
  }
  ck_assert_int_ge(early, 1);
  ck_assert_int_ge(late, 640 / 64 / 3);
  ck_assert_int_le(late, 640 / 64 * 3); /* one in eight would be about 80 */
  free(ws);
}
END_TEST

START_TEST(test_one_imbalanced_probe_is_not_held)
{
  void *key = (void *)0x1008;
  struct lite_ws *ws = settled_site(key);
  /* One measured run finds the members threefold apart (a disturbance, say), the others are
     even: the site steals for a run or two, not for HOLD_IMBALANCED runs. */
  bool disturbed = false;
  int stealing = 0;
  for (int i = 0; i < 400; i++) {
    plan_run(key, ws);
    stealing += disturbed && ws->steal;
    bool disturb = ws->start_ns != 0 && !disturbed && !ws->steal;
    disturbed |= disturb;
    end_run(ws, disturb ? 5000 : 10000, disturb ? 15000 : 10000, 16000);
  }
  ck_assert(disturbed);
  ck_assert_int_le(stealing, 2);
  free(ws);
}
END_TEST

START_TEST(test_tiny_goes_whole_and_comes_back)
{
  lite_env.tiny_loops = true;
  struct lite_ws *ws = new_ws(2, 64);
  void *key = (void *)0x1005;
  enum lite_handout handout;
  run(key, ws, 300, 300, 800, &handout); /* first run: stealing, measured */
  run(key, ws, 300, 300, 800, &handout); /* probe without stealing: tiny */
  run(key, ws, 300, 300, 800, &handout);
  ck_assert_int_eq(handout, LITE_HANDOUT_WHOLE);
  ck_assert(lite_site_is_tiny(key, 2, 64));
  ck_assert(!lite_site_is_tiny(key, 4, 64));
  /* The work grows: a measured whole run (one in eight, at random) that takes long ends the
     tiny mode. */
  for (int i = 0; i < 400 && lite_site_is_tiny(key, 2, 64); i++)
    run(key, ws, 0, 30000, 30000, &handout);
  ck_assert(!lite_site_is_tiny(key, 2, 64));
  free(ws);
}
END_TEST

START_TEST(test_tiny_switch_off)
{
  lite_env.tiny_loops = false;
  struct lite_ws *ws = new_ws(2, 64);
  void *key = (void *)0x1006;
  enum lite_handout handout = LITE_HANDOUT_OWN;
  for (int i = 0; i < 20; i++)
    run(key, ws, 300, 300, 800, &handout);
  ck_assert_int_ne(handout, LITE_HANDOUT_WHOLE);
  ck_assert(!lite_site_is_tiny(key, 2, 64));
  free(ws);
}
END_TEST

START_TEST(test_split_only_where_nothing_is_shared)
{
  void *key = (void *)0x1009;
  bool measure, whole;
  /* A site never seen: its first run is measured, and set up by its first member. */
  ck_assert(!lite_site_may_split(key, 2, 1000, &measure, &whole));
  ck_assert(measure);
  /* Settled short and balanced: nearly every run may go split, the others are measured. */
  struct lite_ws *ws = settled_site(key);
  int split = 0;
  for (int i = 0; i < 800; i++) {
    bool may = lite_site_may_split(key, 2, 1000, &measure, &whole);
    ck_assert(may != measure);
    ck_assert(!whole);
    split += may;
  }
  ck_assert_int_gt(split, 800 * 3 / 4);
  /* Another team size or trip count has no plan yet. */
  ck_assert(!lite_site_may_split(key, 4, 1000, &measure, &whole));
  ck_assert(!lite_site_may_split(key, 2, 999, &measure, &whole));
  /* The loop grows long: once the site steals, no run goes split. */
  for (int i = 0; i < 1000 && !ws->steal; i++)
    run(key, ws, 100000, 100000, 110000, NULL);
  ck_assert(ws->steal);
  for (int i = 0; i < 100; i++)
    ck_assert(!lite_site_may_split(key, 2, 1000, &measure, &whole));
  free(ws);
  /* Tiny: the loop goes whole to the member that claims it, split or not; with tiny loops
     switched off it is split among the members. */
  void *tiny = (void *)0x100a;
  ws = new_ws(2, 64);
  enum lite_handout handout = LITE_HANDOUT_OWN;
  for (int i = 0; i < 3; i++)
    run(tiny, ws, 300, 300, 800, &handout);
  ck_assert_int_eq(handout, LITE_HANDOUT_WHOLE);
  int whole_runs = 0;
  for (int i = 0; i < 100; i++) {
    bool may = lite_site_may_split(tiny, 2, 64, &measure, &whole);
    ck_assert(may != measure);
    ck_assert(whole);
    whole_runs += may;
  }
  ck_assert_int_gt(whole_runs, 100 * 3 / 4);
  lite_env.tiny_loops = false;
  for (int i = 0; i < 100; i++) {
    lite_site_may_split(tiny, 2, 64, &measure, &whole);
    ck_assert(!whole);
  }
  lite_env.tiny_loops = true;
  free(ws);
}
END_TEST

START_TEST(test_sites_sharing_a_set_keep_their_plans)
{
  lite_env.tiny_loops = true;
  /* Four call sites whose entries fall in one set of the table, run in turn. */
  void *keys[4];
  struct lite_ws *ws[4];
  unsigned found = 0;
  for (uintptr_t k = 0x3000; found < 4; k += 16)
    if (found == 0 || lite_site_set_of((void *)k) == lite_site_set_of(keys[0]))
      keys[found++] = (void *)k;
  for (int i = 0; i < 4; i++)
    ws[i] = new_ws(2, 1000);
  int stealing = 0, measured = 0;
  for (int r = 0; r < 200; r++)
    for (int i = 0; i < 4; i++) {
      plan_run(keys[i], ws[i]);
      if (r >= 100) {
        stealing += ws[i]->steal;
        measured += ws[i]->start_ns != 0;
      }
      end_run(ws[i], 10000, 10000, 12000);
    }
  /* Had they taken each other's entries, every run would be a new site's first: measured and
     stealing, 400 of 400. */
  ck_assert_int_lt(stealing, 20);
  ck_assert_int_lt(measured, 100);
  for (int i = 0; i < 4; i++)
    free(ws[i]);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("site");
  TCase *tc = tcase_create("decisions");
  tcase_add_test(tc, test_first_run_steals);
  tcase_add_test(tc, test_short_balanced_stops_stealing);
  tcase_add_test(tc, test_imbalanced_keeps_stealing);
  tcase_add_test(tc, test_long_loop_steals);
  tcase_add_test(tc, test_steady_site_is_sampled);
  tcase_add_test(tc, test_one_imbalanced_probe_is_not_held);
  tcase_add_test(tc, test_split_only_where_nothing_is_shared);
  tcase_add_test(tc, test_sites_sharing_a_set_keep_their_plans);
  tcase_add_test(tc, test_tiny_goes_whole_and_comes_back);
  tcase_add_test(tc, test_tiny_switch_off);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
