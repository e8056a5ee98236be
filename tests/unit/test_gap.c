/* Unit tests for gap.c: the estimate of a pool's serial gaps and its decision to predict the
   next fork (wake ahead). Gaps are fed as given times, so nothing depends on the machine. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "libomp-lite/env.h"
#include "libomp-lite/internal.h"

#define MS 1000000ull
#define SPIN 300000ull /* the default spin budget */

/* Feeds n regions whose serial gaps are gap(i) ns, starting at *t; returns the last prediction. */
static uint64_t feed(struct lite_gap *g, uint64_t *t, unsigned n, uint64_t (*gap)(unsigned),
                     bool allowed)
{
  uint64_t predict = 0;
  for (unsigned i = 0; i < n; i++) {
    lite_gap_join(g, *t);
    *t += gap(i);
    predict = lite_gap_fork(g, *t, SPIN, allowed);
    ck_assert_uint_eq(predict, atomic_load(&g->predict_ns));
    *t += 50000; /* the region */
  }
  return predict;
}

static uint64_t regular_10ms(unsigned i) { return 10 * MS + (i % 3) * 20000; }
static uint64_t regular_100us(unsigned i) { (void)i; return 100000; }
/* 0.5-5 ms, as gapbench's random row: a hash of a running count (feed restarts i). */
static unsigned irregular_n;
static uint64_t irregular(unsigned i)
{
  (void)i;
  return 500000 + (++irregular_n * 2654435761u) % 4500000;
}
static uint64_t long_30ms(unsigned i) { (void)i; return 30 * MS; }

START_TEST(test_regular_gaps_predicted)
{
  struct lite_gap g;
  memset(&g, 0, sizeof g);
  uint64_t t = 1000 * MS;
  uint64_t p = feed(&g, &t, 20, regular_10ms, true);
  ck_assert_uint_ge(p, 9 * MS);
  ck_assert_uint_le(p, 11 * MS);
  /* the member sets its timer ahead of the fork, and spins no more than the spin budget */
  ck_assert_uint_gt(lite_gap_lead_ns(&g), 0);
  ck_assert_uint_lt(lite_gap_lead_ns(&g), 1 * MS);
  ck_assert_uint_le(lite_gap_window_ns(&g, SPIN), SPIN);
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

START_TEST(test_irregular_gaps_not_predicted)
{
  struct lite_gap g;
  memset(&g, 0, sizeof g);
  uint64_t t = 1000 * MS;
  for (unsigned i = 0; i < 100; i++)
    ck_assert_uint_eq(feed(&g, &t, 1, irregular, true), 0);
}
END_TEST

/* Gaps that grew from 10 to 30 ms: the forks come after the members' window, and after a few in
   a row the prediction stops; it comes back once the averages have caught up and the gaps are
   regular again. */
START_TEST(test_late_forks_stop_then_regular_again)
{
  struct lite_gap g;
  memset(&g, 0, sizeof g);
  uint64_t t = 1000 * MS;
  ck_assert_uint_ne(feed(&g, &t, 20, regular_10ms, true), 0);
  unsigned predicted = 0;
  for (unsigned i = 0; i < 3; i++)
    predicted += feed(&g, &t, 1, long_30ms, true) != 0;
  ck_assert_uint_eq(feed(&g, &t, 1, long_30ms, true), 0);
  ck_assert_uint_le(predicted, 2);
  ck_assert_uint_ne(feed(&g, &t, 100, long_30ms, true), 0);
  ck_assert_uint_ge(atomic_load(&g.predict_ns), 29 * MS);
}
END_TEST

/* A fork with no member parked (a gap shorter than the spin) starts the learning over. */
START_TEST(test_short_gap_resets)
{
  struct lite_gap g;
  memset(&g, 0, sizeof g);
  uint64_t t = 1000 * MS;
  ck_assert_uint_ne(feed(&g, &t, 20, regular_10ms, true), 0);
  lite_gap_short(&g);
  ck_assert_uint_eq(atomic_load(&g.predict_ns), 0);
  ck_assert_uint_eq(feed(&g, &t, 2, regular_10ms, true), 0);
  ck_assert_uint_ne(feed(&g, &t, 20, regular_10ms, true), 0);
  /* a fork without a gap's start (member 1 did not park) learns nothing */
  unsigned samples = g.samples;
  t += 10 * MS;
  lite_gap_fork(&g, t, SPIN, true);
  ck_assert_uint_eq(g.samples, samples);
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
  ck_assert_uint_eq(atomic_load(&g.predict_ns), 0);
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
  tcase_add_test(tc, test_irregular_gaps_not_predicted);
  tcase_add_test(tc, test_late_forks_stop_then_regular_again);
  tcase_add_test(tc, test_short_gap_resets);
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
