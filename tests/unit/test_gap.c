/* Unit tests for gap.c: the estimate of a pool's serial gaps and its decision to predict the
   next fork (wake ahead). Gaps are fed as given times, so nothing depends on the machine. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "libomp-lite/env.h"
#include "libomp-lite/internal.h"

#define MS 1000000ull
#define SPIN 300000ull /* the default spin budget */

/* The outlined bodies of three parallel regions: the sites gaps are learned for. */
static void region_a(void *data) { (void)data; }
static void region_b(void *data) { (void)data; }
static void region_c(void *data) { (void)data; }
static void region_d(void *data) { (void)data; }
static void region_e(void *data) { (void)data; }

/* The leader's fork at t of region next, after a gap that followed region after. */
static uint64_t fork_at(struct lite_gap *g, uint64_t t, void (*after)(void *),
                        void (*next)(void *), bool allowed)
{
  lite_gap_learn(g, after, t, SPIN);
  return lite_gap_predict(g, next, SPIN, allowed);
}

/* Feeds n regions (all region_a) whose serial gaps are gap(i) ns, starting at *t; returns the
   last prediction. */
static uint64_t feed(struct lite_gap *g, uint64_t *t, unsigned n, uint64_t (*gap)(unsigned),
                     bool allowed)
{
  uint64_t predict = 0;
  for (unsigned i = 0; i < n; i++) {
    lite_gap_join(g, *t);
    *t += gap(i);
    predict = fork_at(g, *t, region_a, region_a, allowed);
    ck_assert_uint_eq(predict, atomic_load(&g->until_ns));
    if (predict != 0)
      ck_assert_uint_le(atomic_load(&g->from_ns), predict);
    *t += 50000; /* the region */
  }
  return predict;
}

static uint64_t regular_10ms(unsigned i) { return 10 * MS + (i % 3) * 20000; }
static uint64_t regular_100us(unsigned i) { (void)i; return 100000; }
static uint64_t regular_310us(unsigned i) { return 310000 + (i % 2) * 5000; }
/* 0.5-5 ms, as gapbench's random row: a hash of a running count (feed restarts i). */
static unsigned irregular_n;
static uint64_t irregular(unsigned i)
{
  (void)i;
  return 500000 + (++irregular_n * 2654435761u) % 4500000;
}
static uint64_t long_30ms(unsigned i) { (void)i; return 30 * MS; }
/* 0.5-50 ms: wider than a member may spin */
static uint64_t very_irregular(unsigned i)
{
  (void)i;
  return 500000 + (++irregular_n * 2654435761u) % (50 * MS);
}

START_TEST(test_regular_gaps_predicted)
{
  struct lite_gap g;
  memset(&g, 0, sizeof g);
  uint64_t t = 1000 * MS;
  uint64_t until = feed(&g, &t, 20, regular_10ms, true);
  ck_assert_uint_ge(atomic_load(&g.from_ns), 9 * MS);
  ck_assert_uint_le(until, 11 * MS);
  /* the member sets its timer ahead of the span, and spins only through it */
  ck_assert_uint_gt(lite_gap_lead_ns(&g), 0);
  ck_assert_uint_lt(lite_gap_lead_ns(&g), 1 * MS);
  uint64_t wake_at, end;
  ck_assert(lite_gap_plan(&g, t, SPIN, &wake_at, &end));
  ck_assert_uint_eq(wake_at, t + atomic_load(&g.from_ns) - lite_gap_lead_ns(&g));
  ck_assert_uint_le(end - wake_at, SPIN);
}
END_TEST

/* Gaps just over the spin budget: the member spins its budget and on through the span, with no
   timer (it had parked right before every fork). */
START_TEST(test_gaps_near_the_budget_spun_through)
{
  struct lite_gap g;
  memset(&g, 0, sizeof g);
  uint64_t t = 1000 * MS;
  ck_assert_uint_ne(feed(&g, &t, 20, regular_310us, true), 0);
  uint64_t wake_at = 1, end = 0;
  ck_assert(lite_gap_plan(&g, t, SPIN, &wake_at, &end));
  ck_assert_uint_eq(wake_at, 0);
  ck_assert_uint_ge(end, t + 315000);
  ck_assert_uint_le(end, t + 500000);
}
END_TEST

/* The timer's lateness, as members measure it, moves the lead: by its spread too, not only its
   average; never past 1 ms. */
START_TEST(test_lead_follows_lateness)
{
  struct lite_gap g;
  memset(&g, 0, sizeof g);
  uint64_t start = lite_gap_lead_ns(&g);
  for (unsigned i = 0; i < 100; i++)
    lite_gap_woke_late(&g, 100000);
  uint64_t steady = lite_gap_lead_ns(&g);
  ck_assert_uint_gt(steady, start);
  ck_assert_uint_ge(steady, 100000);
  for (unsigned i = 0; i < 100; i++)
    lite_gap_woke_late(&g, i % 2 ? 40000 : 160000);
  ck_assert_uint_gt(lite_gap_lead_ns(&g), steady + 50000);
  for (unsigned i = 0; i < 100; i++)
    lite_gap_woke_late(&g, i % 2 ? 0 : 10 * MS);
  ck_assert_uint_eq(lite_gap_lead_ns(&g), 1 * MS);
}
END_TEST

START_TEST(test_not_before_warmup)
{
  struct lite_gap g;
  memset(&g, 0, sizeof g);
  uint64_t t = 1000 * MS;
  ck_assert_uint_eq(feed(&g, &t, 2, regular_10ms, true), 0);
}
END_TEST

START_TEST(test_short_gaps_left_to_the_spin)
{
  struct lite_gap g;
  memset(&g, 0, sizeof g);
  uint64_t t = 1000 * MS;
  ck_assert_uint_eq(feed(&g, &t, 50, regular_100us, true), 0);
}
END_TEST

/* Gaps of 0.5-5 ms: the span covers most of them; members spin from its start. */
START_TEST(test_irregular_gaps_spanned)
{
  struct lite_gap g;
  memset(&g, 0, sizeof g);
  uint64_t t = 1000 * MS;
  unsigned predicted = 0, covered = 0;
  feed(&g, &t, 20, irregular, true);
  for (unsigned i = 0; i < 200; i++) {
    uint64_t from = atomic_load(&g.from_ns), until = atomic_load(&g.until_ns);
    uint64_t gap = irregular(0);
    lite_gap_join(&g, t);
    t += gap;
    covered += until != 0 && gap >= from && gap <= until + 50000;
    predicted += fork_at(&g, t, region_a, region_a, true) != 0;
  }
  ck_assert_uint_ge(predicted, 190);
  ck_assert_uint_ge(covered, 150);
  ck_assert_uint_le(atomic_load(&g.from_ns), 1500000);
  ck_assert_uint_ge(atomic_load(&g.until_ns), 4 * MS);
  ck_assert_uint_le(atomic_load(&g.until_ns), 7 * MS);
}
END_TEST

/* Wider than 10 ms: left to the untimed park. */
START_TEST(test_very_irregular_gaps_not_predicted)
{
  struct lite_gap g;
  memset(&g, 0, sizeof g);
  uint64_t t = 1000 * MS;
  for (unsigned i = 0; i < 100; i++) {
    uint64_t until = feed(&g, &t, 1, very_irregular, true);
    if (i >= 20)
      ck_assert_uint_eq(until, 0);
  }
}
END_TEST

/* Gaps that grew from 10 to 30 ms: the forks come after the members' span, and after a few in
   a row the estimate starts over from the last gap; within a warm-up the prediction is back,
   with a span as narrow as the new rhythm's. */
static uint64_t regular_3ms(unsigned i) { return 3 * MS + (i % 3) * 20000; }

START_TEST(test_late_forks_restart_the_estimate)
{
  struct lite_gap g;
  memset(&g, 0, sizeof g);
  uint64_t t = 1000 * MS;
  ck_assert_uint_ne(feed(&g, &t, 20, regular_10ms, true), 0);
  unsigned predicted = 0;
  for (unsigned i = 0; i < 3; i++)
    predicted += feed(&g, &t, 1, long_30ms, true) != 0;
  ck_assert_uint_le(predicted, 2);
  ck_assert_uint_eq(feed(&g, &t, 1, long_30ms, true), 0);
  ck_assert_uint_ne(feed(&g, &t, 3, long_30ms, true), 0);
  ck_assert_uint_ge(atomic_load(&g.from_ns), 29 * MS);
  ck_assert_uint_le(atomic_load(&g.until_ns), 31 * MS);
}
END_TEST

/* And gaps that shrank, 10 to 3 ms: the forks come before the span, and the same. */
START_TEST(test_early_forks_restart_the_estimate)
{
  struct lite_gap g;
  memset(&g, 0, sizeof g);
  uint64_t t = 1000 * MS;
  ck_assert_uint_ne(feed(&g, &t, 20, regular_10ms, true), 0);
  feed(&g, &t, 6, regular_3ms, true);
  ck_assert_uint_ne(atomic_load(&g.until_ns), 0);
  ck_assert_uint_ge(atomic_load(&g.from_ns), 2900000);
  ck_assert_uint_le(atomic_load(&g.until_ns), 3200000);
}
END_TEST

/* A step of three regions, A and B back to back (gaps shorter than the spin: no member parks,
   nothing is learned and the clock is not read), then C and a serial phase of 10 ms: the gap is
   learned for C's site and predicted at C's fork only; the short gaps after A and B do not reset
   it (with one estimate per pool they did, at every step, and nothing was ever predicted). */
START_TEST(test_sites_of_a_step)
{
  struct lite_gap g;
  memset(&g, 0, sizeof g);
  uint64_t t = 1000 * MS;
  unsigned predicted_c = 0;
  for (unsigned step = 0; step < 20; step++) {
    /* fork of A, after C's serial phase */
    uint64_t after_c = fork_at(&g, t, region_c, region_a, true);
    ck_assert_uint_eq(after_c, 0); /* nothing predicted for the gap after A */
    t += 50000;
    lite_gap_short(&g, region_a); /* fork of B */
    ck_assert_uint_eq(lite_gap_predict(&g, region_b, SPIN, true), 0);
    t += 50000;
    lite_gap_short(&g, region_b); /* fork of C */
    uint64_t until = lite_gap_predict(&g, region_c, SPIN, true);
    predicted_c += until != 0;
    if (step >= 6) {
      ck_assert_uint_ge(until, 10 * MS);
      ck_assert_uint_le(atomic_load(&g.from_ns), 10 * MS);
    }
    t += 50000;
    lite_gap_join(&g, t); /* C ends; member 1 parks */
    t += regular_10ms(step);
  }
  ck_assert_uint_ge(predicted_c, 14);
}
END_TEST

/* The same step with one loop function run three times (one outlined body): the site is told
   apart by its place after the short gaps, and only the fork before the long gap predicts. */
START_TEST(test_one_region_three_times_a_step)
{
  struct lite_gap g;
  memset(&g, 0, sizeof g);
  uint64_t t = 1000 * MS;
  unsigned predicted = 0;
  for (unsigned step = 0; step < 20; step++) {
    ck_assert_uint_eq(fork_at(&g, t, region_a, region_a, true), 0);
    t += 50000;
    lite_gap_short(&g, region_a);
    ck_assert_uint_eq(lite_gap_predict(&g, region_a, SPIN, true), 0);
    t += 50000;
    lite_gap_short(&g, region_a);
    uint64_t until = lite_gap_predict(&g, region_a, SPIN, true);
    predicted += until != 0;
    if (step >= 6)
      ck_assert_uint_ge(atomic_load(&g.from_ns), 9 * MS);
    t += 50000;
    lite_gap_join(&g, t);
    t += regular_10ms(step);
  }
  ck_assert_uint_ge(predicted, 14);
}
END_TEST

/* More regions than places: the oldest place is taken over, and a site that lost its place
   learns again from nothing. */
START_TEST(test_sites_taken_over)
{
  struct lite_gap g;
  memset(&g, 0, sizeof g);
  uint64_t t = 1000 * MS;
  ck_assert_uint_ne(feed(&g, &t, 20, regular_10ms, true), 0);
  void (*others[])(void *) = { region_b, region_c, region_d, region_e };
  for (unsigned i = 0; i < 4; i++) {
    lite_gap_join(&g, t);
    t += 5 * MS;
    fork_at(&g, t, others[i], region_a, true);
  }
  ck_assert_uint_eq(lite_gap_predict(&g, region_a, SPIN, true), 0);
  ck_assert_uint_eq(g.ready, 0); /* A's place went to E; the others have one gap each */
}
END_TEST

/* A fork with no member parked (a gap shorter than the spin) starts the learning over. */
START_TEST(test_short_gap_resets)
{
  struct lite_gap g;
  memset(&g, 0, sizeof g);
  uint64_t t = 1000 * MS;
  ck_assert_uint_ne(feed(&g, &t, 20, regular_10ms, true), 0);
  lite_gap_short(&g, region_a);
  lite_gap_predict(&g, region_a, SPIN, true);
  ck_assert_uint_eq(atomic_load(&g.until_ns), 0);
  ck_assert_uint_eq(feed(&g, &t, 2, regular_10ms, true), 0);
  ck_assert_uint_ne(feed(&g, &t, 20, regular_10ms, true), 0);
  /* a fork without a gap's start (member 1 did not park) learns nothing */
  unsigned samples = g.sites[0].samples;
  t += 10 * MS;
  fork_at(&g, t, region_a, region_a, true);
  ck_assert_uint_eq(g.sites[0].samples, samples);
}
END_TEST

START_TEST(test_not_allowed_never_predicts)
{
  struct lite_gap g;
  memset(&g, 0, sizeof g);
  uint64_t t = 1000 * MS;
  ck_assert_uint_eq(feed(&g, &t, 50, regular_10ms, false), 0);
  /* and a published prediction is withdrawn when the machine turns out loaded */
  ck_assert_uint_ne(feed(&g, &t, 1, regular_10ms, true), 0);
  lite_gap_fork_cancel(&g);
  ck_assert_uint_eq(atomic_load(&g.until_ns), 0);
}
END_TEST

/* The user's settings: passive stays passive, active keeps spinning, the switch turns it off,
   and threads that outnumber the CPUs or a loaded machine never wake ahead. */
START_TEST(test_allowed)
{
  struct lite_env env;
  memset(&env, 0, sizeof env);
  env.ncpus = 2;
  env.wake_ahead = true;
  env.wait_policy = LITE_WAIT_DEFAULT;
  env.spin_ns = SPIN;
  ck_assert(lite_gap_allowed(&env, 2, false));
  ck_assert(!lite_gap_allowed(&env, 3, false)); /* oversubscribed */
  ck_assert(!lite_gap_allowed(&env, 2, true));  /* loaded */
  env.wake_ahead = false;
  ck_assert(!lite_gap_allowed(&env, 2, false));
  env.wake_ahead = true;
  env.wait_policy = LITE_WAIT_PASSIVE;
  ck_assert(!lite_gap_allowed(&env, 2, false));
  env.wait_policy = LITE_WAIT_ACTIVE;
  ck_assert(!lite_gap_allowed(&env, 2, false));
  env.wait_policy = LITE_WAIT_DEFAULT;
  env.spin_ns = 0; /* GOMP_SPINCOUNT=0 / OMPLITE_SPIN_US=0: park at once, as asked */
  ck_assert(!lite_gap_allowed(&env, 2, false));
}
END_TEST

/* The environment: OMPLITE_WAKE_AHEAD, on by default. */
static const char *var_off(const char *name)
{
  return strcmp(name, "OMPLITE_WAKE_AHEAD") == 0 ? "false" : NULL;
}
static const char *var_none(const char *name) { (void)name; return NULL; }

START_TEST(test_env_switch)
{
  struct lite_env env;
  lite_env_parse(&env, var_none, 2, false);
  ck_assert(env.wake_ahead);
  lite_env_parse(&env, var_off, 2, false);
  ck_assert(!env.wake_ahead);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("gap");
  TCase *tc = tcase_create("estimate");
  tcase_add_test(tc, test_regular_gaps_predicted);
  tcase_add_test(tc, test_not_before_warmup);
  tcase_add_test(tc, test_short_gaps_left_to_the_spin);
  tcase_add_test(tc, test_gaps_near_the_budget_spun_through);
  tcase_add_test(tc, test_lead_follows_lateness);
  tcase_add_test(tc, test_irregular_gaps_spanned);
  tcase_add_test(tc, test_very_irregular_gaps_not_predicted);
  tcase_add_test(tc, test_late_forks_restart_the_estimate);
  tcase_add_test(tc, test_early_forks_restart_the_estimate);
  tcase_add_test(tc, test_short_gap_resets);
  tcase_add_test(tc, test_sites_of_a_step);
  tcase_add_test(tc, test_one_region_three_times_a_step);
  tcase_add_test(tc, test_sites_taken_over);
  tcase_add_test(tc, test_not_allowed_never_predicts);
  tcase_add_test(tc, test_allowed);
  tcase_add_test(tc, test_env_switch);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
