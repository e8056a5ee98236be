/* Unit tests of partition.c: lite_partition_assign against OpenMP 5.2 section 10.1.3, for every
   policy with fewer threads than places, as many, and more; a primary thread not on the first
   place; nested teams inside a subpartition made by spread. Every expected placement below was
   worked out by hand from the rules quoted in affinity.h (runs cut from the partition's first
   place, the first P mod T runs one place longer; for T > P consecutive members per place, the
   first T mod P places visited from the primary thread's one get the extra member). */
#include "affinity/affinity.h"

#include <check.h>
#include <stdlib.h>

#define MAXT 64

struct expect {
  unsigned place, lo, len;
};

/* Runs the assignment and compares every member with the expected place and partition. */
static void check_assign(omp_proc_bind_t bind, unsigned lo, unsigned len, unsigned primary,
                         unsigned nthreads, const struct expect *want)
{
  struct lite_member_place out[MAXT];
  lite_partition_assign(bind, (struct lite_partition){lo, len}, primary, nthreads, out);
  for (unsigned k = 0; k < nthreads; k++) {
    ck_assert_msg(out[k].place == want[k].place, "member %u: place %u, expected %u", k,
                  out[k].place, want[k].place);
    ck_assert_msg(out[k].partition.lo == want[k].lo && out[k].partition.len == want[k].len,
                  "member %u: partition {%u,%u}, expected {%u,%u}", k, out[k].partition.lo,
                  out[k].partition.len, want[k].lo, want[k].len);
  }
}

/* ---------------------------------------------------------------- primary (master) */

START_TEST(test_primary_all_on_the_primary_place)
{
  /* Every member on place 5, the partition (0..7) unchanged, whatever T. */
  struct expect w[10];
  for (unsigned k = 0; k < 10; k++)
    w[k] = (struct expect){5, 0, 8};
  check_assign(omp_proc_bind_primary, 0, 8, 5, 4, w);  /* T < P */
  check_assign(omp_proc_bind_primary, 0, 8, 5, 8, w);  /* T = P */
  check_assign(omp_proc_bind_primary, 0, 8, 5, 10, w); /* T > P */
  /* false should not be passed; if it is, it behaves as primary. */
  check_assign(omp_proc_bind_false, 0, 8, 5, 10, w);
}
END_TEST

/* ---------------------------------------------------------------- close */

START_TEST(test_close_fewer_threads_than_places)
{
  /* P = 8, primary on place 2: members on 2, 3, 4; the partition stays 0..7. */
  check_assign(omp_proc_bind_close, 0, 8, 2, 3,
               (struct expect[]){{2, 0, 8}, {3, 0, 8}, {4, 0, 8}});
  /* Wrap-around: primary on place 6 of 8, members on 6, 7, 0, 1. */
  check_assign(omp_proc_bind_close, 0, 8, 6, 4,
               (struct expect[]){{6, 0, 8}, {7, 0, 8}, {0, 0, 8}, {1, 0, 8}});
  /* true is close. */
  check_assign(omp_proc_bind_true, 0, 8, 6, 4,
               (struct expect[]){{6, 0, 8}, {7, 0, 8}, {0, 0, 8}, {1, 0, 8}});
}
END_TEST

START_TEST(test_close_as_many_threads_as_places)
{
  /* P = T = 4, primary on place 1: 1, 2, 3, 0. */
  check_assign(omp_proc_bind_close, 0, 4, 1, 4,
               (struct expect[]){{1, 0, 4}, {2, 0, 4}, {3, 0, 4}, {0, 0, 4}});
}
END_TEST

START_TEST(test_close_more_threads_than_places)
{
  /* P = 3, T = 7, primary on place 1: 7 = 2 * 3 + 1. Places visited 1, 2, 0; the first one
     (place 1) gets 3 members, the others 2, consecutive member numbers. */
  check_assign(omp_proc_bind_close, 0, 3, 1, 7,
               (struct expect[]){{1, 0, 3}, {1, 0, 3}, {1, 0, 3}, {2, 0, 3}, {2, 0, 3},
                                 {0, 0, 3}, {0, 0, 3}});
  /* P = 2, T = 4, primary on place 0: 2 each. */
  check_assign(omp_proc_bind_close, 0, 2, 0, 4,
               (struct expect[]){{0, 0, 2}, {0, 0, 2}, {1, 0, 2}, {1, 0, 2}});
}
END_TEST

/* ---------------------------------------------------------------- spread */

START_TEST(test_spread_fewer_threads_than_places)
{
  /* P = 8, T = 3: runs of 3, 3, 2 places: 0..2, 3..5, 6..7. */
  check_assign(omp_proc_bind_spread, 0, 8, 0, 3,
               (struct expect[]){{0, 0, 3}, {3, 3, 3}, {6, 6, 2}});
  /* The same runs, primary on place 4 (run 3..5): it keeps place 4; the next members take the
     first place of runs 6..7 and 0..2. */
  check_assign(omp_proc_bind_spread, 0, 8, 4, 3,
               (struct expect[]){{4, 3, 3}, {6, 6, 2}, {0, 0, 3}});
  /* P = 8, T = 5 (libgomp's affinity test): runs of 2, 2, 2, 1, 1 places, first places
     0, 2, 4, 6, 7. */
  check_assign(omp_proc_bind_spread, 0, 8, 0, 5,
               (struct expect[]){{0, 0, 2}, {2, 2, 2}, {4, 4, 2}, {6, 6, 1}, {7, 7, 1}});
  /* P = 7, T = 4: runs 0..1, 2..3, 4..5, 6. */
  check_assign(omp_proc_bind_spread, 0, 7, 0, 4,
               (struct expect[]){{0, 0, 2}, {2, 2, 2}, {4, 4, 2}, {6, 6, 1}});
  /* A team of one gets the whole partition, on the primary thread's place. */
  check_assign(omp_proc_bind_spread, 0, 7, 3, 1, (struct expect[]){{3, 0, 7}});
}
END_TEST

START_TEST(test_spread_as_many_threads_as_places)
{
  /* Partition 2..5 (P = 4), T = 4, primary on place 3: unit runs 2, 3, 4, 5; the primary thread
     has run 3, then 4, 5, and wrap-around to 2. */
  check_assign(omp_proc_bind_spread, 2, 4, 3, 4,
               (struct expect[]){{3, 3, 1}, {4, 4, 1}, {5, 5, 1}, {2, 2, 1}});
}
END_TEST

START_TEST(test_spread_more_threads_than_places)
{
  /* P = 3, T = 5, primary on place 2: 5 = 1 * 3 + 2. Places visited 2, 0, 1; the first two get
     2 members. Each member's partition is its own place. */
  check_assign(omp_proc_bind_spread, 0, 3, 2, 5,
               (struct expect[]){{2, 2, 1}, {2, 2, 1}, {0, 0, 1}, {0, 0, 1}, {1, 1, 1}});
  /* P = 2, T = 6: 3 members each. */
  check_assign(omp_proc_bind_spread, 0, 2, 0, 6,
               (struct expect[]){{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {1, 1, 1}, {1, 1, 1},
                                 {1, 1, 1}});
}
END_TEST

/* ---------------------------------------------------------------- nested */

START_TEST(test_nested_inside_a_spread_subpartition)
{
  /* Outer: 16 places, spread over 4 members: runs 0..3, 4..7, 8..11, 12..15. */
  struct lite_member_place outer[4];
  lite_partition_assign(omp_proc_bind_spread, (struct lite_partition){0, 16}, 0, 4, outer);
  ck_assert_uint_eq(outer[2].place, 8);
  ck_assert_uint_eq(outer[2].partition.lo, 8);
  ck_assert_uint_eq(outer[2].partition.len, 4);
  ck_assert_uint_eq(outer[1].place, 4);

  /* Member 2 starts 3 close members: places 8, 9, 10, inside its run only. */
  check_assign(omp_proc_bind_close, 8, 4, 8, 3,
               (struct expect[]){{8, 8, 4}, {9, 8, 4}, {10, 8, 4}});
  /* Member 2, close with 6: 6 = 1 * 4 + 2: places 8, 8, 9, 9, 10, 11. */
  check_assign(omp_proc_bind_close, 8, 4, 8, 6,
               (struct expect[]){{8, 8, 4}, {8, 8, 4}, {9, 8, 4}, {9, 8, 4}, {10, 8, 4},
                                 {11, 8, 4}});
  /* Member 2, spread with 2: its run cut in two, 8..9 and 10..11. */
  check_assign(omp_proc_bind_spread, 8, 4, 8, 2, (struct expect[]){{8, 8, 2}, {10, 10, 2}});
  /* Member 1, spread with 8 over its 4 places: 2 per place, unit partitions. */
  check_assign(omp_proc_bind_spread, 4, 4, 4, 8,
               (struct expect[]){{4, 4, 1}, {4, 4, 1}, {5, 5, 1}, {5, 5, 1}, {6, 6, 1},
                                 {6, 6, 1}, {7, 7, 1}, {7, 7, 1}});
  /* A member of the close team on place 10 of the run starts its own close team of 3: 10, 11,
     and wrap-around to 8 (the partition, not the whole list). */
  check_assign(omp_proc_bind_close, 8, 4, 10, 3,
               (struct expect[]){{10, 8, 4}, {11, 8, 4}, {8, 8, 4}});
  /* Primary inside a unit partition: nothing to spread over. */
  check_assign(omp_proc_bind_spread, 5, 1, 5, 3,
               (struct expect[]){{5, 5, 1}, {5, 5, 1}, {5, 5, 1}});
}
END_TEST

/* ---------------------------------------------------------------- invariants and misuse */

/* For every small P, T and primary: each member's place lies in its partition and in the
   parent's; spread's partitions with T <= P are disjoint and cover the parent; with T > P every
   place holds floor(T/P) or ceiling(T/P) members. */
START_TEST(test_invariants)
{
  static const omp_proc_bind_t binds[] = {omp_proc_bind_primary, omp_proc_bind_close,
                                          omp_proc_bind_spread};
  struct lite_member_place out[MAXT];
  for (unsigned b = 0; b < 3; b++)
    for (unsigned len = 1; len <= 9; len++)
      for (unsigned t = 1; t <= 20; t++)
        for (unsigned r = 0; r < len; r++) {
          unsigned lo = 3, per_place[9] = {0}, covered[9] = {0};
          lite_partition_assign(binds[b], (struct lite_partition){lo, len}, lo + r, t, out);
          ck_assert_uint_eq(out[0].place, lo + r);
          for (unsigned k = 0; k < t; k++) {
            struct lite_partition p = out[k].partition;
            ck_assert(out[k].place >= p.lo && out[k].place < p.lo + p.len);
            ck_assert(p.lo >= lo && p.lo + p.len <= lo + len);
            per_place[out[k].place - lo]++;
            if (binds[b] == omp_proc_bind_spread && t <= len)
              for (unsigned i = p.lo; i < p.lo + p.len; i++)
                covered[i - lo]++;
          }
          if (binds[b] != omp_proc_bind_primary && t >= len)
            for (unsigned i = 0; i < len; i++)
              ck_assert(per_place[i] == t / len || per_place[i] == (t + len - 1) / len);
          if (binds[b] == omp_proc_bind_spread && t <= len)
            for (unsigned i = 0; i < len; i++)
              ck_assert_uint_eq(covered[i], 1);
        }
}
END_TEST

START_TEST(test_misuse_is_harmless)
{
  struct lite_member_place out[2] = {{77, {77, 77}}, {77, {77, 77}}};
  /* No members: nothing written. */
  lite_partition_assign(omp_proc_bind_spread, (struct lite_partition){0, 4}, 0, 0, out);
  ck_assert_uint_eq(out[0].place, 77);
  /* A primary outside its partition, or an empty partition: all stay with the primary. */
  check_assign(omp_proc_bind_spread, 0, 4, 9, 2, (struct expect[]){{9, 0, 4}, {9, 0, 4}});
  check_assign(omp_proc_bind_close, 4, 0, 4, 2, (struct expect[]){{4, 4, 0}, {4, 4, 0}});
}
END_TEST

static Suite *partition_suite(void)
{
  Suite *s = suite_create("partition");
  TCase *tc = tcase_create("assign");
  tcase_add_test(tc, test_primary_all_on_the_primary_place);
  tcase_add_test(tc, test_close_fewer_threads_than_places);
  tcase_add_test(tc, test_close_as_many_threads_as_places);
  tcase_add_test(tc, test_close_more_threads_than_places);
  tcase_add_test(tc, test_spread_fewer_threads_than_places);
  tcase_add_test(tc, test_spread_as_many_threads_as_places);
  tcase_add_test(tc, test_spread_more_threads_than_places);
  tcase_add_test(tc, test_nested_inside_a_spread_subpartition);
  tcase_add_test(tc, test_invariants);
  tcase_add_test(tc, test_misuse_is_harmless);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  SRunner *sr = srunner_create(partition_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
