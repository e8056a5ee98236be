/* Unit tests of kmp_env.c: KMP_AFFINITY's parts as read (types, modifiers, granularity,
   permute and offset, proclist), the place list of each type on synthetic machines, and
   KMP_HW_SUBSET's CPUs; every bad value gives exactly one warning and a fallback, never a stop.

   Topologies (hwloc synthetic): SMT is 2 packages x 4 cores x 2 threads, CPU n in core n/2 and
   package n/8; NUMA16 is the guest's numa16 shape, 2 packages x 2 NUMA nodes x 4 cores, CPU n in
   node n/4 and package n/8. Expected lists are in lite_places_format's shape. */
#include "affinity/affinity.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SMT "pack:2 core:4 pu:2"
#define NUMA16 "pack:2 numa:2 core:4 pu:1"

static struct lite_topo topo;

static void smt(void) { ck_assert(lite_topo_load(&topo, SMT, NULL, 0)); }
static void numa16(void) { ck_assert(lite_topo_load(&topo, NUMA16, NULL, 0)); }
static void free_topo(void) { lite_topo_free(&topo); }

/* ---------------------------------------------------------------- counting warnings */

static FILE *log_file;
static int saved_fd = -1;
static long log_from;

/* stderr goes to a file between these two calls; the second returns the warnings printed. */
static void capture(void)
{
  if (log_file == NULL) {
    log_file = tmpfile();
    ck_assert_ptr_nonnull(log_file);
  }
  fflush(stderr);
  fseek(log_file, 0, SEEK_END);
  log_from = ftell(log_file);
  saved_fd = dup(2);
  dup2(fileno(log_file), 2);
}

static int released(void)
{
  fflush(stderr);
  dup2(saved_fd, 2);
  close(saved_fd);
  fseek(log_file, log_from, SEEK_SET);
  char line[2048];
  int n = 0;
  while (fgets(line, sizeof line, log_file) != NULL)
    n += strncmp(line, "libomp-lite: warning: ", 22) == 0;
  return n;
}

static void parse(const char *value, struct lite_kmp_affinity *a, int warnings)
{
  capture();
  lite_kmp_affinity_parse(value, a);
  int warned = released();
  ck_assert_msg(warned == warnings, "'%s' gave %d warnings, expected %d", value, warned,
                warnings);
}

/* value's place list on the loaded topology is want (NULL: no list, with one warning). */
static void expect_places(const char *value, const char *want)
{
  struct lite_kmp_affinity a;
  struct lite_place_list list;
  char text[4096];
  capture();
  lite_kmp_affinity_parse(value, &a);
  bool ok = lite_kmp_places(&a, &topo, &list);
  int warned = released();
  lite_kmp_affinity_free(&a);
  if (want == NULL) {
    ck_assert_msg(!ok && list.n == 0, "'%s' made places", value);
    ck_assert_msg(warned == 1, "'%s' gave %d warnings, expected 1", value, warned);
    return;
  }
  ck_assert_msg(ok, "'%s' made no places", value);
  lite_places_format(&list, text, sizeof text);
  lite_places_free(&list);
  ck_assert_msg(strcmp(text, want) == 0, "'%s' gave %s, expected %s", value, text, want);
  ck_assert_msg(warned == 0, "'%s' gave %d warnings", value, warned);
}

/* KMP_HW_SUBSET=value keeps the CPUs want lists ("0,1,8"; "" for none kept), with `warnings`
   warnings. */
static void expect_subset(const char *value, const char *want, int warnings)
{
  int keep[256];
  char text[1024] = "";
  capture();
  unsigned n = lite_kmp_hw_subset(value, &topo, keep);
  int warned = released();
  for (unsigned i = 0; i < n; i++)
    snprintf(text + strlen(text), sizeof text - strlen(text), i ? ",%d" : "%d", keep[i]);
  ck_assert_msg(strcmp(text, want) == 0, "'%s' kept %s, expected %s", value, text, want);
  ck_assert_msg(warned == warnings, "'%s' gave %d warnings, expected %d", value, warned,
                warnings);
}

/* ---------------------------------------------------------------- KMP_AFFINITY: reading */

START_TEST(test_parse_parts)
{
  struct lite_kmp_affinity a;
  parse("compact", &a, 0);
  ck_assert_int_eq(a.type, LITE_KMP_COMPACT);
  ck_assert_int_eq(a.gran, LITE_KMP_GRAN_DEFAULT);
  ck_assert(!a.verbose && a.warnings);
  lite_kmp_affinity_free(&a);

  parse(" Verbose , granularity=fine,SCATTER,2, 3 ", &a, 0);
  ck_assert_int_eq(a.type, LITE_KMP_SCATTER);
  ck_assert_int_eq(a.gran, LITE_KMP_GRAN_THREAD);
  ck_assert(a.verbose);
  ck_assert_uint_eq(a.permute, 2);
  ck_assert_uint_eq(a.offset, 3);
  lite_kmp_affinity_free(&a);

  /* Deprecated names, the other granularities, modifiers with nothing to do. */
  parse("logical", &a, 0);
  ck_assert_int_eq(a.type, LITE_KMP_COMPACT);
  parse("physical", &a, 0);
  ck_assert_int_eq(a.type, LITE_KMP_SCATTER);
  parse("respect,noreset,noverbose,warnings,granularity=socket,balanced", &a, 0);
  ck_assert_int_eq(a.type, LITE_KMP_BALANCED);
  ck_assert_int_eq(a.gran, LITE_KMP_GRAN_SOCKET);
  parse("gran=core,none", &a, 0);
  ck_assert_int_eq(a.type, LITE_KMP_NONE);
  ck_assert_int_eq(a.gran, LITE_KMP_GRAN_CORE);
  parse("granularity=tile,disabled", &a, 0);
  ck_assert_int_eq(a.type, LITE_KMP_DISABLED);
  ck_assert_int_eq(a.gran, LITE_KMP_GRAN_L2);
  parse("granularity=numa,verbose", &a, 0); /* no type: modifiers only */
  ck_assert_int_eq(a.type, LITE_KMP_UNSET);
  ck_assert_int_eq(a.gran, LITE_KMP_GRAN_NUMA);

  /* proclist: rewritten as OMP_PLACES; alone it means explicit, as in LLVM. */
  parse("granularity=fine,explicit,proclist=[3,0,{1,2},{0,3}]", &a, 0);
  ck_assert_int_eq(a.type, LITE_KMP_EXPLICIT);
  ck_assert_str_eq(a.proclist, "{3},{0},{1,2},{0,3}");
  lite_kmp_affinity_free(&a);
  parse("proclist=[ 0-2 , {4-5,7} ]", &a, 0);
  ck_assert_int_eq(a.type, LITE_KMP_EXPLICIT);
  ck_assert_str_eq(a.proclist, "{0}:3,{4:2,7}");
  lite_kmp_affinity_free(&a);
}
END_TEST

START_TEST(test_parse_bad)
{
  struct lite_kmp_affinity a;
  /* No equivalent: one warning each, the rest applies; nowarnings silences them. */
  parse("norespect,compact", &a, 1);
  ck_assert_int_eq(a.type, LITE_KMP_COMPACT);
  parse("reset,norespect,scatter", &a, 2);
  ck_assert_int_eq(a.type, LITE_KMP_SCATTER);
  parse("norespect,nowarnings,compact", &a, 0);
  ck_assert(!a.warnings);
  parse("granularity=die,compact", &a, 1);
  ck_assert_int_eq(a.gran, LITE_KMP_GRAN_CORE);
  /* Malformed parts: one warning each, left out. */
  parse("bogus,scatter", &a, 1);
  ck_assert_int_eq(a.type, LITE_KMP_SCATTER);
  parse("1,compact", &a, 1);
  ck_assert_uint_eq(a.permute, 0);
  parse("compact,1,2,3", &a, 1);
  ck_assert_uint_eq(a.permute, 1);
  ck_assert_uint_eq(a.offset, 2);
  parse("explicit,1,proclist=[0]", &a, 1);
  lite_kmp_affinity_free(&a);
  /* Many bad parts: four warnings, then one line saying there are more. */
  parse("compact,compact,compact,compact,compact,compact,compact", &a, 5);
  ck_assert_int_eq(a.type, LITE_KMP_COMPACT);
  parse("compact,scatter", &a, 1);
  ck_assert_int_eq(a.type, LITE_KMP_SCATTER);
  parse("compact,99999999999", &a, 1);
  parse("", &a, 0);
  ck_assert_int_eq(a.type, LITE_KMP_UNSET);
  parse(",,,", &a, 0);
  ck_assert_int_eq(a.type, LITE_KMP_UNSET);
  /* explicit needs a proclist: not bound. */
  parse("explicit", &a, 1);
  ck_assert_int_eq(a.type, LITE_KMP_NONE);
  /* A proclist that cannot be read: left out, and then explicit has none. */
  parse("explicit,proclist=[1-]", &a, 2);
  ck_assert_int_eq(a.type, LITE_KMP_NONE);
  parse("proclist=[2-1]", &a, 1);
  ck_assert_int_eq(a.type, LITE_KMP_UNSET);
  parse("proclist=0,1", &a, 2); /* no brackets; then '1' before a type */
  parse("proclist=[{0,1]", &a, 1);
  parse("proclist=[0]],compact", &a, 1);
  parse("proclist=[0],compact", &a, 1); /* compact does not use a proclist */
  ck_assert_int_eq(a.type, LITE_KMP_COMPACT);
  lite_kmp_affinity_free(&a);
}
END_TEST

/* ---------------------------------------------------------------- KMP_AFFINITY: places */

START_TEST(test_places_smt)
{
  /* compact at the default granularity (core): one place per CPU, its core: threads 0 and 1
     share core 0, as in LLVM. */
  expect_places("compact", "{0:2},{0:2},{2:2},{2:2},{4:2},{4:2},{6:2},{6:2},{8:2},{8:2},"
                           "{10:2},{10:2},{12:2},{12:2},{14:2},{14:2}");
  expect_places("granularity=fine,compact",
                "{0},{1},{2},{3},{4},{5},{6},{7},{8},{9},{10},{11},{12},{13},{14},{15}");
  /* scatter: threads first, then cores, then packages. */
  expect_places("granularity=fine,scatter",
                "{0},{8},{2},{10},{4},{12},{6},{14},{1},{9},{3},{11},{5},{13},{7},{15}");
  expect_places("granularity=core,scatter", "{0:2},{8:2},{2:2},{10:2},{4:2},{12:2},{6:2},"
                                            "{14:2},{0:2},{8:2},{2:2},{10:2},{4:2},{12:2},"
                                            "{6:2},{14:2}");
  /* permute 1: the thread level first, then packages and cores. */
  expect_places("granularity=fine,compact,1",
                "{0},{2},{4},{6},{8},{10},{12},{14},{1},{3},{5},{7},{9},{11},{13},{15}");
  /* scatter with permute 1 (three levels): one level deepest-first (threads), then packages and
     cores, which is compact,1's order. */
  expect_places("granularity=fine,scatter,1",
                "{0},{2},{4},{6},{8},{10},{12},{14},{1},{3},{5},{7},{9},{11},{13},{15}");
  /* A permute past the levels: compact's most permuted is scatter's order. */
  expect_places("granularity=fine,compact,7",
                "{0},{8},{2},{10},{4},{12},{6},{14},{1},{9},{3},{11},{5},{13},{7},{15}");
  /* offset: the list starts that far in. */
  expect_places("granularity=fine,compact,0,3",
                "{3},{4},{5},{6},{7},{8},{9},{10},{11},{12},{13},{14},{15},{0},{1},{2}");
  expect_places("granularity=fine,compact,0,19",
                "{3},{4},{5},{6},{7},{8},{9},{10},{11},{12},{13},{14},{15},{0},{1},{2}");
  /* balanced: one place per unit of the granularity. */
  expect_places("balanced", "{0:2},{2:2},{4:2},{6:2},{8:2},{10:2},{12:2},{14:2}");
  expect_places("granularity=socket,balanced", "{0:8},{8:8}");
  expect_places("granularity=fine,balanced",
                "{0},{1},{2},{3},{4},{5},{6},{7},{8},{9},{10},{11},{12},{13},{14},{15}");
  /* granularity=socket,compact: each CPU's package, in order. */
  expect_places("granularity=socket,compact", "{0:8},{0:8},{0:8},{0:8},{0:8},{0:8},{0:8},{0:8},"
                                              "{8:8},{8:8},{8:8},{8:8},{8:8},{8:8},{8:8},{8:8}");
  /* explicit: the proclist as places, widened to a coarser granularity. */
  expect_places("explicit,proclist=[3,0,{1,2},{0,3}]", "{3},{0},{1:2},{0,3}");
  expect_places("granularity=core,explicit,proclist=[1,4]", "{0:2},{4:2}");
  expect_places("proclist=[0-2,{4-5,7}]", "{0},{1},{2},{4:2,7}");
  /* CPUs the machine lacks: the places parser's warning; none left: no list. */
  expect_places("explicit,proclist=[999]", NULL);
}
END_TEST

START_TEST(test_places_numa16)
{
  /* No SMT: the thread level adds nothing, and cores are the leaves. */
  expect_places("granularity=core,compact",
                "{0},{1},{2},{3},{4},{5},{6},{7},{8},{9},{10},{11},{12},{13},{14},{15}");
  /* scatter: cores first, then nodes, then packages: four threads on four nodes. */
  expect_places("scatter",
                "{0},{8},{4},{12},{1},{9},{5},{13},{2},{10},{6},{14},{3},{11},{7},{15}");
  expect_places("granularity=numa,balanced", "{0:4},{4:4},{8:4},{12:4}");
  expect_places("granularity=l3,balanced", "{0:16}"); /* no L3: one unit, the machine */
}
END_TEST

/* ---------------------------------------------------------------- KMP_HW_SUBSET */

START_TEST(test_subset_smt)
{
  expect_subset("1s", "0,1,2,3,4,5,6,7", 0);
  expect_subset("1s@1,2c,1t", "8,10", 0);
  expect_subset("2c@1", "2,3,4,5,10,11,12,13", 0);
  expect_subset("1T", "0,2,4,6,8,10,12,14", 0);
  expect_subset("1t@1", "1,3,5,7,9,11,13,15", 0);
  expect_subset("*s, 1c", "0,1,8,9", 0);
  expect_subset("2 sockets,1 cores,1 threads", "0,8", 0);
  expect_subset("c@3", "6,7,14,15", 0);
  /* Levels this machine or libomp-lite lacks: one warning each, left out. */
  expect_subset("1d,1c", "0,1,8,9", 1);
  expect_subset("1d,1d,1d,1d,1d,1d,1c", "0,1,8,9", 5);
  expect_subset("2s,1l3", "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15", 1);
  expect_subset("1c:intel_atom,1s", "0,1,2,3,4,5,6,7", 1);
  /* Ignored whole, with one warning: too many, twice, unreadable, zero. */
  expect_subset("3s", "", 1);
  expect_subset("1s@2", "", 1);
  expect_subset("5c", "", 1);
  expect_subset("3t", "", 1);
  expect_subset("2c,2c", "", 1);
  expect_subset("xyz", "", 1);
  expect_subset("0c", "", 1);
  expect_subset("1c@", "", 1);
  expect_subset("1c@x", "", 1);
  expect_subset("", "", 1);
  expect_subset("1s,,1c", "", 1);
}
END_TEST

START_TEST(test_subset_numa16)
{
  expect_subset("1n", "0,1,2,3,8,9,10,11", 0);
  expect_subset("1s,1n@1,2c", "4,5", 0);
  expect_subset("2c", "0,1,8,9", 0); /* cores per socket when no node is named */
  expect_subset("1numa,2c", "0,1,8,9", 0);
  expect_subset("2n,2c@2", "2,3,6,7,10,11,14,15", 0);
  expect_subset("3n", "", 1);
}
END_TEST

static Suite *kmp_suite(void)
{
  Suite *s = suite_create("kmp_env");
  TCase *parse_case = tcase_create("parse");
  tcase_add_test(parse_case, test_parse_parts);
  tcase_add_test(parse_case, test_parse_bad);
  suite_add_tcase(s, parse_case);
  TCase *smt_case = tcase_create("smt");
  tcase_add_checked_fixture(smt_case, smt, free_topo);
  tcase_add_test(smt_case, test_places_smt);
  tcase_add_test(smt_case, test_subset_smt);
  suite_add_tcase(s, smt_case);
  TCase *numa_case = tcase_create("numa16");
  tcase_add_checked_fixture(numa_case, numa16, free_topo);
  tcase_add_test(numa_case, test_places_numa16);
  tcase_add_test(numa_case, test_subset_numa16);
  suite_add_tcase(s, numa_case);
  return s;
}

int main(void)
{
  SRunner *sr = srunner_create(kmp_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
