/* Unit tests of places.c: OMP_PLACES (every abstract name, with and without a count; the
   explicit syntax with intervals, place intervals, negative strides and exclusions), the
   CPUs outside the process's mask taken out with one warning, garbage refused with one warning,
   GOMP_CPU_AFFINITY, the default list, OMP_DISPLAY_ENV's form, and random input.

   The expected lists are written out by hand, in the form lite_places_format gives (libgomp's:
   a run of two or more consecutive CPUs as first:count), which test_format checks on its own
   against place lists built by hand. Topologies (see test_topology.c): in TWO_SOCKETS CPU n is in
   core n/2, L3 and NUMA node n/16, package n/32. */
#include "affinity/affinity.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TWO_SOCKETS "pack:2 numa:2 l3:1 core:8 l2:1 pu:2"
#define SIXTY_FOUR_CORES "pack:1 numa:1 l3:8 core:8 l2:1 pu:1"
#define INTERLEAVED "pack:1 numa:1 core:4 pu:2(indexes=0,4,1,5,2,6,3,7)"
/* The numa16 guest of tests/vm as its kernel shows it to hwloc (lstopo there): 2 packages of 2
   L3 domains of 4 cores, each NUMA node a memory child of its L3, not a parent of it. */
#define GUEST_NUMA16 "pack:2 l3:2 numa:1 l2:4 l1d:1 core:1 pu:1"
/* The process may use only these CPUs of TWO_SOCKETS: cores 1, 2, 8, 20, 31. */
static const int scattered[] = {3, 4, 17, 40, 41, 63};

static struct lite_topo topo;

static void load_topo(const char *desc, const int *allowed, unsigned nallowed)
{
  ck_assert(lite_topo_load(&topo, desc, allowed, nallowed));
}
static void two_sockets(void) { load_topo(TWO_SOCKETS, NULL, 0); }
static void sixty_four_cores(void) { load_topo(SIXTY_FOUR_CORES, NULL, 0); }
static void interleaved(void) { load_topo(INTERLEAVED, NULL, 0); }
static void guest_numa16(void) { load_topo(GUEST_NUMA16, NULL, 0); }
static void scattered_mask(void) { load_topo(TWO_SOCKETS, scattered, 6); }
static void free_topo(void) { lite_topo_free(&topo); }

/* ---------------------------------------------------------------- counting warnings */

/* stderr goes to a file while a parser runs, so that a test can count the warnings it gave. */
static int count_warnings_after(FILE *f, long from)
{
  fflush(stderr);
  fseek(f, from, SEEK_SET);
  char line[2048];
  int n = 0;
  while (fgets(line, sizeof line, f) != NULL)
    n += strncmp(line, "libomp-lite: warning: ", 22) == 0;
  return n;
}

typedef bool parser(const char *, const struct lite_topo *, struct lite_place_list *);

/* Runs parse on value; returns its result, the formatted list and the number of warnings. */
static bool run(parser *parse, const char *value, char *text, size_t size, int *warnings)
{
  static FILE *log;
  if (log == NULL) {
    log = tmpfile();
    ck_assert_ptr_nonnull(log);
  }
  fflush(stderr);
  int saved = dup(2);
  fseek(log, 0, SEEK_END);
  long from = ftell(log);
  dup2(fileno(log), 2);
  struct lite_place_list list;
  bool ok = parse(value, &topo, &list);
  dup2(saved, 2);
  close(saved);
  *warnings = count_warnings_after(log, from);
  lite_places_format(&list, text, size);
  if (!ok)
    ck_assert_msg(list.n == 0 && list.places == NULL, "'%s' failed but left places", value);
  for (unsigned i = 0; i < list.n; i++) {
    ck_assert_uint_ge(list.places[i].ncpus, 1);
    for (unsigned k = 0; k < list.places[i].ncpus; k++) {
      ck_assert_ptr_nonnull(lite_topo_find(&topo, list.places[i].cpus[k]));
      ck_assert(k == 0 || list.places[i].cpus[k] > list.places[i].cpus[k - 1]);
    }
  }
  lite_places_free(&list);
  return ok;
}

/* value gives exactly the places want, with `warnings` warnings (0 or 1). */
static void expect_with(parser *parse, const char *value, const char *want, int warnings)
{
  char text[4096];
  int warned;
  bool ok = run(parse, value, text, sizeof text, &warned);
  ck_assert_msg(ok, "'%s' was refused", value);
  ck_assert_msg(strcmp(text, want) == 0, "'%s' gave %s, expected %s", value, text, want);
  ck_assert_msg(warned == warnings, "'%s' gave %d warnings, expected %d", value, warned,
                warnings);
}

static void expect(const char *value, const char *want)
{
  expect_with(lite_places_parse, value, want, 0);
}
static void expect_masked(const char *value, const char *want)
{
  expect_with(lite_places_parse, value, want, 1);
}

/* value is refused, with exactly one warning. */
static void refused_by(parser *parse, const char *value)
{
  char text[64];
  int warned;
  ck_assert_msg(!run(parse, value, text, sizeof text, &warned), "'%s' was accepted: %s", value,
                text);
  ck_assert_msg(warned == 1, "'%s' gave %d warnings, expected 1", value, warned);
}
static void refused(const char *value) { refused_by(lite_places_parse, value); }

/* ---------------------------------------------------------------- abstract names */

START_TEST(test_abstract_two_sockets)
{
  /* threads: one place per CPU. */
  expect("threads(5)", "{0},{1},{2},{3},{4}");
  char all[1024] = "", one[16];
  for (int n = 0; n < 64; n++) {
    snprintf(one, sizeof one, n ? ",{%d}" : "{%d}", n);
    strcat(all, one);
  }
  expect("threads", all);
  /* cores: the two threads of each core. */
  expect("cores(3)", "{0:2},{2:2},{4:2}");
  all[0] = '\0';
  for (int n = 0; n < 64; n += 2) {
    snprintf(one, sizeof one, n ? ",{%d:2}" : "{%d:2}", n);
    strcat(all, one);
  }
  expect("cores", all);
  /* ll_caches and numa_domains: 16 CPUs each here. */
  expect("ll_caches", "{0:16},{16:16},{32:16},{48:16}");
  expect("ll_caches(2)", "{0:16},{16:16}");
  expect("numa_domains", "{0:16},{16:16},{32:16},{48:16}");
  expect("numa_domains(1)", "{0:16}");
  /* sockets: 32 each; a count past the number of places gives them all. */
  expect("sockets", "{0:32},{32:32}");
  expect("sockets(1)", "{0:32}");
  expect("sockets(100)", "{0:32},{32:32}");
  expect("sockets(99999999999999999999999)", "{0:32},{32:32}");
  /* Any case, spaces around. */
  expect("  CoReS ( 2 )  ", "{0:2},{2:2}");
  expect("\tSOCKETS", "{0:32},{32:32}");
  expect("Numa_Domains(2)", "{0:16},{16:16}");
}
END_TEST

START_TEST(test_abstract_sixty_four_cores)
{
  /* 8 L3 domains of 8 cores, one NUMA node, one package. */
  expect("ll_caches", "{0:8},{8:8},{16:8},{24:8},{32:8},{40:8},{48:8},{56:8}");
  expect("ll_caches(3)", "{0:8},{8:8},{16:8}");
  expect("numa_domains", "{0:64}");
  expect("sockets", "{0:64}");
  expect("cores(4)", "{0},{1},{2},{3}");
  expect("threads(2)", "{0},{1}");
}
END_TEST

START_TEST(test_abstract_interleaved)
{
  /* Places in hwloc's order, CPUs ascending within a place. */
  expect("cores", "{0,4},{1,5},{2,6},{3,7}");
  expect("threads", "{0},{4},{1},{5},{2},{6},{3},{7}");
  expect("sockets", "{0:8}");
  /* No cache in this description: ll_caches falls back to cores. */
  expect("ll_caches", "{0,4},{1,5},{2,6},{3,7}");
}
END_TEST

START_TEST(test_abstract_guest_numa16)
{
  /* The guest's check once read {0:4} here: that was the stock libgomp's OMP_DISPLAY_ENV block,
     printed first beside ours (its own ll_caches); ours has an L3 place per node. */
  expect("ll_caches", "{0:4},{4:4},{8:4},{12:4}");
  expect("numa_domains", "{0:4},{4:4},{8:4},{12:4}");
  expect("sockets", "{0:8},{8:8}");
  expect("ll_caches(3)", "{0:4},{4:4},{8:4}");
}
END_TEST

START_TEST(test_abstract_scattered_mask)
{
  /* Only the CPUs the process may use are there, so nothing is dropped and nobody warned. */
  expect("threads", "{3},{4},{17},{40},{41},{63}");
  expect("cores", "{3},{4},{17},{40:2},{63}");
  expect("cores(4)", "{3},{4},{17},{40:2}");
  expect("ll_caches", "{3:2},{17},{40:2},{63}");
  expect("numa_domains(2)", "{3:2},{17}");
  expect("sockets", "{3:2,17},{40:2,63}");
}
END_TEST

START_TEST(test_default_is_cores)
{
  struct lite_place_list list;
  char text[256];
  ck_assert(lite_places_default(&topo, &list));
  lite_places_format(&list, text, sizeof text);
  ck_assert_str_eq(text, "{0,4},{1,5},{2,6},{3,7}");
  lite_places_free(&list);
}
END_TEST

/* ---------------------------------------------------------------- explicit syntax */

START_TEST(test_explicit_places)
{
  expect("{0,1,2,3}", "{0:4}");
  expect("{3,1,2,0}", "{0:4}");
  expect("{0:4}", "{0:4}");
  expect("{0:4:2}", "{0,2,4,6}");
  expect("{8:4:-2}", "{2,4,6,8}");
  expect("{0:3:+2}", "{0,2,4}");
  expect("{0,0,1}", "{0:2}");
  expect("{0,1},{2,3}", "{0:2},{2:2}");
  /* A bare number is a place of one CPU; with a length, a place interval. */
  expect("0,1,5", "{0},{1},{5}");
  expect("0:4", "{0},{1},{2},{3}");
  expect("7:3:-2", "{7},{5},{3}");
  /* Spaces anywhere between the tokens. */
  expect(" { 0 : 2 } , { 4 , 5 } ", "{0:2},{4:2}");
  expect("{ 0 : 4 : 2 } : 2 : 1", "{0,2,4,6},{1,3,5,7}");
}
END_TEST

START_TEST(test_explicit_intervals)
{
  /* {0:4}:8:4: 8 places, each the previous shifted by 4. */
  expect("{0:4}:8:4", "{0:4},{4:4},{8:4},{12:4},{16:4},{20:4},{24:4},{28:4}");
  expect("{0}:8", "{0},{1},{2},{3},{4},{5},{6},{7}");
  expect("{1}:7:1", "{1},{2},{3},{4},{5},{6},{7}");
  expect("{0,32}:3:2", "{0,32},{2,34},{4,36}");
  /* Negative strides. */
  expect("{7,6}:2:-3", "{6:2},{3:2}");
  expect("{2:2}:3:-1", "{2:2},{1:2},{0:2}");
  /* Stride 0 repeats the place. */
  expect("{5}:3:0", "{5},{5},{5}");
}
END_TEST

START_TEST(test_explicit_exclusion)
{
  /* Inside braces: a CPU out, after every inclusion. */
  expect("{0:8,!3,!5}", "{0:3,4,6:2}");
  expect("{!3,0:8}", "{0:3,4:4}");
  expect("{0,1},{3,2,4},{6,5,!6},{6},{7:2:-1,!6}", "{0:2},{2:3},{5},{6},{7}");
  /* A place out of the list: the first equal one. */
  expect("{6,7}:4:-2,!{2,3}", "{6:2},{4:2},{0:2}");
  expect("{0},{1},{0},!{0}", "{1},{0}");
  expect("{0:2},!{1,0},{4}", "{4}");
  /* libgomp's longer case: 1, 2, {3}, 3, 3; !3 takes out the first {3}; !{5:3:-1,!4,!5} is {3}
     and takes out the next; {4} and 5 come in, !4 and !5 take them out again. */
  expect("1,2,{2,3,!2},3,3,!3,!{5:3:-1,!4,!5},{4},5,!4,!5", "{1},{2},{3}");
}
END_TEST

START_TEST(test_explicit_past_the_machine)
{
  /* CPUs past 63 are dropped (one warning), and no huge count allocates much. */
  expect_masked("{60:8}", "{60:4}");
  expect_masked("{0:100000000}", "{0:64}");
  expect_masked("{0:99999999999999999999:99999999999999999999}", "{0}");
  expect_masked("{0},{100},!{100}", "{0}");
  expect_masked("{0},{64}", "{0}");
  expect_masked("{62}:4", "{62},{63}");
  char all[1024] = "", one[16];
  for (int n = 0; n < 64; n++) {
    snprintf(one, sizeof one, n ? ",{%d}" : "{%d}", n);
    strcat(all, one);
  }
  expect_masked("{0}:100000000", all);
  expect_masked("{0:4}:100000000:4", "{0:4},{4:4},{8:4},{12:4},{16:4},{20:4},{24:4},{28:4},"
                                     "{32:4},{36:4},{40:4},{44:4},{48:4},{52:4},{56:4},{60:4}");
}
END_TEST

START_TEST(test_explicit_scattered_mask)
{
  /* The process may use 3, 4, 17, 40, 41, 63: the others leave their places, empty places go,
     one warning. */
  expect_masked("{0:8}", "{3:2}");
  expect_masked("{0},{1},{3}", "{3}");
  expect_masked("{0:4}:16:4", "{3},{4},{17},{40:2},{63}");
  expect_masked("{2:4},{40:2}", "{3:2},{40:2}");
  expect("{3,4},{41,40}", "{3:2},{40:2}"); /* nothing dropped: no warning */
  /* Nothing left: one warning, false. */
  refused("{0,1,2}");
  refused("{0}:3:5");
  refused("{0},!{0}");
}
END_TEST

START_TEST(test_garbage_refused)
{
  static const char *const bad[] = {
      "", "   ", "\t\n", "{", "}", "{}", "{0", "{0,}", "{,0}", "{0}:", "{0}:0", "{0}:2:",
      "{0:0}", "{0:2:}", "{a}", "0-3", "{0-3}", "cores(", "cores(2", "cores(x)", "cores()",
      "cores(0)", "cores(-1)", "cores 4", "cores4", "corez", "core", "threads,cores", "{0}}",
      "{{0}}", "!", "!!{0}", "{0}!", "{!}", "{0:-1}", "{-1}", "{0},", ",{0}", "{0}:2:-",
      "{0}:2:--1", "{1:4:-1}", "{0:2}:3:-1", "{0,1,!2}", "{0},!{1}", "!{0}", "{0}:2:3:4",
      "{0:1:2:3}", "{0} {1}", "{0};{1}", "{!0:2,1}", "!{0}:2", "{0}x", "x{0}", "{0,,1}",
      "{0:4:-}", "sockets()", "ll_caches(3)x", "numa_domains)", "{0}:+2",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    refused(bad[i]);
}
END_TEST

/* Random strings over the grammar's characters: never a crash, at most one warning, and a
   result that is either empty (false) or well formed (checked in run). */
START_TEST(test_random_input)
{
  static const char alphabet[] = "{}{}::,,,!!-+0123456789 1234 cores(threads)9999999999";
  char value[48], text[4096];
  srand(12345);
  for (int round = 0; round < 20000; round++) {
    int len = rand() % (int)sizeof value;
    for (int i = 0; i < len; i++)
      value[i] = alphabet[rand() % (int)(sizeof alphabet - 1)];
    value[len] = '\0';
    int warned;
    run(round % 4 == 3 ? lite_places_parse_gomp_cpu_affinity : lite_places_parse, value, text,
        sizeof text, &warned);
    ck_assert_msg(warned <= 1, "'%s' gave %d warnings", value, warned);
  }
}
END_TEST

/* ---------------------------------------------------------------- GOMP_CPU_AFFINITY */

static void gomp(const char *value, const char *want, int warnings)
{
  expect_with(lite_places_parse_gomp_cpu_affinity, value, want, warnings);
}

START_TEST(test_gomp_cpu_affinity)
{
  /* libgomp's documented example: one place per CPU, in the order given. */
  gomp("0 3 1-2 4-15:2", "{0},{3},{1},{2},{4},{6},{8},{10},{12},{14}", 0);
  gomp("0,3, 1-2 ,4", "{0},{3},{1},{2},{4}", 0);
  gomp("  7  ", "{7}", 0);
  gomp("5 5", "{5},{5}", 0);
  gomp("60-100", "{60},{61},{62},{63}", 1);
  gomp("0-100000000:16", "{0},{16},{32},{48}", 1);
  static const char *const bad[] = {"", " ", "a", "3-1", "0-4:0", "1,", ",1", "1--2", "0x10",
                                    "1 2x", "{0}", "1,,2", "-1", "1-", "1-3:",
                                    "1 - 3", "1-3 :2"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    refused_by(lite_places_parse_gomp_cpu_affinity, bad[i]);
}
END_TEST

START_TEST(test_gomp_cpu_affinity_scattered_mask)
{
  gomp("0-7", "{3},{4}", 1);
  gomp("63 40 3", "{63},{40},{3}", 0);
  refused_by(lite_places_parse_gomp_cpu_affinity, "0 1 2");
}
END_TEST

/* ---------------------------------------------------------------- OMP_DISPLAY_ENV's form */

START_TEST(test_format)
{
  int a[] = {0, 1, 2, 3}, b[] = {0, 2}, c[] = {0, 1, 3}, d[] = {5}, e[] = {4, 5};
  struct lite_place places[] = {{4, a}, {2, b}, {3, c}, {1, d}, {2, e}};
  struct lite_place_list list = {5, places};
  char buf[64];
  /* Runs of two or more as first:count, as libgomp prints them. */
  ck_assert_uint_eq(lite_places_format(&list, buf, sizeof buf), 29);
  ck_assert_str_eq(buf, "{0:4},{0,2},{0:2,3},{5},{4:2}");
  /* Truncated, NUL-terminated, and the full length returned, as snprintf does. */
  ck_assert_uint_eq(lite_places_format(&list, buf, 5), 29);
  ck_assert_str_eq(buf, "{0:4");
  ck_assert_uint_eq(lite_places_format(&list, NULL, 0), 29);
  struct lite_place_list none = {0, NULL};
  buf[0] = 'x';
  ck_assert_uint_eq(lite_places_format(&none, buf, sizeof buf), 0);
  ck_assert_str_eq(buf, "");
}
END_TEST

static Suite *places_suite(void)
{
  Suite *s = suite_create("places");
  TCase *two = tcase_create("two_sockets");
  tcase_add_checked_fixture(two, two_sockets, free_topo);
  tcase_set_timeout(two, 60);
  tcase_add_test(two, test_abstract_two_sockets);
  tcase_add_test(two, test_explicit_places);
  tcase_add_test(two, test_explicit_intervals);
  tcase_add_test(two, test_explicit_exclusion);
  tcase_add_test(two, test_explicit_past_the_machine);
  tcase_add_test(two, test_garbage_refused);
  tcase_add_test(two, test_random_input);
  tcase_add_test(two, test_gomp_cpu_affinity);
  suite_add_tcase(s, two);
  TCase *big = tcase_create("sixty_four_cores");
  tcase_add_checked_fixture(big, sixty_four_cores, free_topo);
  tcase_add_test(big, test_abstract_sixty_four_cores);
  suite_add_tcase(s, big);
  TCase *inter = tcase_create("interleaved");
  tcase_add_checked_fixture(inter, interleaved, free_topo);
  tcase_add_test(inter, test_abstract_interleaved);
  tcase_add_test(inter, test_default_is_cores);
  suite_add_tcase(s, inter);
  TCase *guest = tcase_create("guest_numa16");
  tcase_add_checked_fixture(guest, guest_numa16, free_topo);
  tcase_add_test(guest, test_abstract_guest_numa16);
  suite_add_tcase(s, guest);
  TCase *mask = tcase_create("scattered_mask");
  tcase_add_checked_fixture(mask, scattered_mask, free_topo);
  tcase_set_timeout(mask, 60);
  tcase_add_test(mask, test_abstract_scattered_mask);
  tcase_add_test(mask, test_explicit_scattered_mask);
  tcase_add_test(mask, test_gomp_cpu_affinity_scattered_mask);
  tcase_add_test(mask, test_random_input);
  suite_add_tcase(s, mask);
  TCase *format = tcase_create("format");
  tcase_add_test(format, test_format);
  suite_add_tcase(s, format);
  return s;
}

int main(void)
{
  SRunner *sr = srunner_create(places_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
