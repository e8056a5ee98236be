/* Unit tests of affinity/format.c: the size syntax and padding of each kind of value, the %A
   list of CPUs from given masks, truncation, and the malformed formats that end the program
   (each run in its own process: Check forks). Values that depend on the thread come from the
   initial thread outside any region: level 0, thread 0 of 1, ancestor -1, team 0 of 1. The
   integration test (tests/integration/affinity_format.c) checks them inside teams. */
#include "affinity/affinity.h"
#include "internal.h"

#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char text[8192];

/* The expansion of format in the calling thread, with its returned length checked. */
static const char *expand(const char *format)
{
  size_t n = lite_affinity_capture(text, sizeof text, format);
  ck_assert_uint_eq(n, strlen(text));
  return text;
}

START_TEST(test_plain_fields)
{
  ck_assert_str_eq(expand("%t %T %L %n %N %a"), "0 1 0 0 1 -1");
  ck_assert_str_eq(expand("%{team_num} %{num_teams} %{nesting_level} %{thread_num} "
                          "%{num_threads} %{ancestor_tnum}"),
                   "0 1 0 0 1 -1");
  ck_assert_str_eq(expand("no fields"), "no fields");
  ck_assert_str_eq(expand("%%"), "%");
  ck_assert_str_eq(expand("100%% %%n %%%n"), "100% %n %0");
  char want[64];
  snprintf(want, sizeof want, "%ld", (long)getpid());
  ck_assert_str_eq(expand("%P"), want);
  snprintf(want, sizeof want, "0x%lx", (unsigned long)pthread_self());
  ck_assert_str_eq(expand("%i"), want);
  char host[256];
  ck_assert_int_eq(gethostname(host, sizeof host), 0);
  ck_assert_str_eq(expand("%H"), host);
}
END_TEST

/* Numbers: width alone pads on the right, "." on the left, "0." with zeros after the sign. */
START_TEST(test_number_sizes)
{
  ck_assert_str_eq(expand("[%4n]"), "[0   ]");
  ck_assert_str_eq(expand("[%.4n]"), "[   0]");
  ck_assert_str_eq(expand("[%0.4n]"), "[0000]");
  ck_assert_str_eq(expand("[%4a][%.4a][%0.4a]"), "[-1  ][  -1][-001]");
  ck_assert_str_eq(expand("[%1a][%.2a][%0.2a]"), "[-1][-1][-1]");
  ck_assert_str_eq(expand("[%10{num_threads}]"), "[1         ]");
  ck_assert_str_eq(expand("[%0.10{num_threads}]"), "[0000000001]");
  ck_assert_str_eq(expand("[%12n]"), "[0           ]");
}
END_TEST

/* The thread handle is a number after "0x": zeros go between. */
START_TEST(test_handle_sizes)
{
  char hex[32], want[128];
  snprintf(hex, sizeof hex, "0x%lx", (unsigned long)pthread_self());
  snprintf(want, sizeof want, "[0x%026lx][%-28s][%28s]", (unsigned long)pthread_self(), hex, hex);
  ck_assert_str_eq(expand("[%0.28i][%28i][%.28i]"), want);
  snprintf(want, sizeof want, "[%s]", hex);
  ck_assert_str_eq(expand("[%0.2i]"), want);
}
END_TEST

/* Text (host, CPU list): "0." pads with spaces on the left, as "." does. */
START_TEST(test_text_sizes)
{
  char host[256], want[16384];
  gethostname(host, sizeof host);
  snprintf(want, sizeof want, "[%-70s][%70s][%70s][%s]", host, host, host, host);
  ck_assert_str_eq(expand("[%70H][%.70H][%0.70H][%1H]"), want);
  char cpus[4096];
  uint64_t bits[16];
  ck_assert(lite_os_affinity_bitmap(bits, 1024));
  lite_affinity_format_cpus(bits, 1024, cpus, sizeof cpus);
  snprintf(want, sizeof want, "[%-60s][%60s][%60s]", cpus, cpus, cpus);
  ck_assert_str_eq(expand("[%60A][%.60A][%0.60A]"), want);
  ck_assert_str_eq(expand("%{thread_affinity}"), cpus);
}
END_TEST

static const char *cpus_of(const unsigned *list, unsigned n, unsigned ncpus)
{
  static char out[8192];
  uint64_t bits[16] = { 0 };
  for (unsigned i = 0; i < n; i++)
    bits[list[i] / 64] |= (uint64_t)1 << (list[i] % 64);
  size_t len = lite_affinity_format_cpus(bits, ncpus, out, sizeof out);
  ck_assert_uint_eq(len, strlen(out));
  return out;
}

START_TEST(test_cpu_lists)
{
  ck_assert_str_eq(cpus_of(NULL, 0, 1024), "");
  ck_assert_str_eq(cpus_of((unsigned[]){ 0 }, 1, 1024), "0");
  ck_assert_str_eq(cpus_of((unsigned[]){ 0, 1 }, 2, 1024), "0-1");
  ck_assert_str_eq(cpus_of((unsigned[]){ 0, 1, 2, 3, 8, 10, 11 }, 7, 1024), "0-3,8,10-11");
  ck_assert_str_eq(cpus_of((unsigned[]){ 1, 3, 5 }, 3, 1024), "1,3,5");
  ck_assert_str_eq(cpus_of((unsigned[]){ 62, 63, 64, 65, 127, 128 }, 6, 1024), "62-65,127-128");
  ck_assert_str_eq(cpus_of((unsigned[]){ 1023 }, 1, 1024), "1023");
  ck_assert_str_eq(cpus_of((unsigned[]){ 1022, 1023 }, 2, 1024), "1022-1023");
  /* CPUs at or above ncpus are not shown. */
  ck_assert_str_eq(cpus_of((unsigned[]){ 2, 3, 4, 70 }, 4, 4), "2-3");
  unsigned all[1024];
  for (unsigned c = 0; c < 1024; c++)
    all[c] = c;
  ck_assert_str_eq(cpus_of(all, 1024, 1024), "0-1023");
  /* Truncated like the capture: the length is the full one. */
  char small[5];
  uint64_t bits[16] = { 0x0f | 1u << 8 };
  ck_assert_uint_eq(lite_affinity_format_cpus(bits, 1024, small, sizeof small), 5);
  ck_assert_str_eq(small, "0-3,");
}
END_TEST

/* Every size from 0 to past the end: a prefix and a NUL within size, nothing beyond; the length
   always the full one. */
START_TEST(test_truncation)
{
  const char *format = "ab%0.4n%%cd%.3L";  /* "ab0000%cd  0", 12 characters */
  const char *full = "ab0000%cd  0";
  size_t len = strlen(full);
  ck_assert_uint_eq(lite_affinity_capture(NULL, 0, format), len);
  for (size_t size = 1; size <= len + 2; size++) {
    char buf[32];
    memset(buf, 'Z', sizeof buf);
    ck_assert_uint_eq(lite_affinity_capture(buf, size, format), len);
    size_t kept = size - 1 < len ? size - 1 : len;
    ck_assert_int_eq(memcmp(buf, full, kept), 0);
    ck_assert_int_eq(buf[kept], '\0');
    for (size_t i = size; i < sizeof buf; i++)
      ck_assert_int_eq(buf[i], 'Z');
  }
}
END_TEST

/* NULL and "" mean affinity-format-var; omp_set_affinity_format replaces it with a copy. */
START_TEST(test_format_var)
{
  char own[] = "lvl=%L";
  omp_set_affinity_format(own);
  own[0] = 'X';  /* the runtime kept a copy */
  ck_assert_str_eq(expand(NULL), "lvl=0");
  ck_assert_str_eq(expand(""), "lvl=0");
  char buf[8];
  ck_assert_uint_eq(omp_get_affinity_format(buf, sizeof buf), 6);
  ck_assert_str_eq(buf, "lvl=%L");
  ck_assert_uint_eq(omp_get_affinity_format(buf, 4), 6);
  ck_assert_str_eq(buf, "lvl");
  ck_assert_uint_eq(omp_capture_affinity(buf, sizeof buf, "%0.3n"), 3);
  ck_assert_str_eq(buf, "000");
}
END_TEST

/* Malformed formats end the program with status 1 (Check runs each in its own process). */
START_TEST(test_zero_without_dot) { expand("%0n"); }
END_TEST
START_TEST(test_zero_dot_without_width) { expand("%0.n"); }
END_TEST
START_TEST(test_dot_without_width) { expand("%.{thread_num}"); }
END_TEST
START_TEST(test_width_with_leading_zero) { expand("%05n"); }
END_TEST
START_TEST(test_unknown_type) { expand("%x"); }
END_TEST
START_TEST(test_unknown_long_name) { expand("%{thread}"); }
END_TEST
START_TEST(test_unterminated_long_name) { expand("%{thread_num"); }
END_TEST
START_TEST(test_percent_at_end) { expand("text%"); }
END_TEST
START_TEST(test_huge_width) { expand("%99999999999999999999999999n"); }
END_TEST

int main(void)
{
  Suite *s = suite_create("format");
  TCase *tc = tcase_create("expand");
  tcase_add_test(tc, test_plain_fields);
  tcase_add_test(tc, test_number_sizes);
  tcase_add_test(tc, test_handle_sizes);
  tcase_add_test(tc, test_text_sizes);
  tcase_add_test(tc, test_cpu_lists);
  tcase_add_test(tc, test_truncation);
  tcase_add_test(tc, test_format_var);
  suite_add_tcase(s, tc);
  TCase *bad = tcase_create("malformed");
  tcase_add_exit_test(bad, test_zero_without_dot, 1);
  tcase_add_exit_test(bad, test_zero_dot_without_width, 1);
  tcase_add_exit_test(bad, test_dot_without_width, 1);
  tcase_add_exit_test(bad, test_width_with_leading_zero, 1);
  tcase_add_exit_test(bad, test_unknown_type, 1);
  tcase_add_exit_test(bad, test_unknown_long_name, 1);
  tcase_add_exit_test(bad, test_unterminated_long_name, 1);
  tcase_add_exit_test(bad, test_percent_at_end, 1);
  tcase_add_exit_test(bad, test_huge_width, 1);
  suite_add_tcase(s, bad);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
