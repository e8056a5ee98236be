/* Unit tests of affinity/format.c: the size syntax and padding of each kind of value, the %A
   list of CPUs from given masks, truncation, the cut of huge widths, the memory
   omp_set_affinity_format keeps, and the malformed formats that end the program (each run in
   its own process: Check forks). Values that depend on the thread come from the
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

/* A width beyond LITE_AFFINITY_WIDTH_MAX is cut to it, whatever its size, "." (which puts the
   value on the right, and is no precision) and "0." included; no abort and no huge text
   ("%99999999999n" ended in "fatal: out of memory" when displayed, issue 37 item 6). */
START_TEST(test_huge_widths)
{
  enum { MAX = LITE_AFFINITY_WIDTH_MAX };
  static char big[MAX + 2];
  ck_assert_uint_eq(lite_affinity_capture(NULL, 0, "%99999999999n"), MAX);
  ck_assert_uint_eq(lite_affinity_capture(NULL, 0, "%.2000000000A"), MAX);
  ck_assert_uint_eq(lite_affinity_capture(NULL, 0, "%0.2147483648{thread_num}"), MAX);
  /* Too many digits for any integer type: no wrap to a small width. */
  ck_assert_uint_eq(lite_affinity_capture(NULL, 0, "%99999999999999999999999999n"), MAX);
  ck_assert_uint_eq(lite_affinity_capture(NULL, 0, "%18446744073709551617n"), MAX);
  ck_assert_uint_eq(lite_affinity_capture(NULL, 0, "[%99999999999H][%.99999999999L]"),
                    2 * MAX + 4);
  /* The cut width pads as the width itself would. */
  ck_assert_uint_eq(lite_affinity_capture(big, sizeof big, "%0.99999999999n|"), MAX + 1);
  ck_assert_int_eq(big[0], '0');
  ck_assert_int_eq(big[MAX - 1], '0');
  ck_assert_str_eq(big + MAX, "|");
  ck_assert_uint_eq(lite_affinity_capture(big, sizeof big, "%.99999999999n|"), MAX + 1);
  ck_assert_int_eq(big[0], ' ');
  ck_assert_str_eq(big + MAX - 1, "0|");
  /* Up to the bound, widths are kept. */
  ck_assert_uint_eq(lite_affinity_capture(NULL, 0, "%16000n"), 16000);
  char at_max[32], past_max[32];
  snprintf(at_max, sizeof at_max, "%%%dn", MAX);
  snprintf(past_max, sizeof past_max, "%%%dn", MAX + 1);
  ck_assert_uint_eq(lite_affinity_capture(NULL, 0, at_max), MAX);
  ck_assert_uint_eq(lite_affinity_capture(NULL, 0, past_max), MAX);
}
END_TEST

/* VmRSS of this process, in KiB. */
static long rss_kib(void)
{
  FILE *f = fopen("/proc/self/status", "r");
  ck_assert_ptr_nonnull(f);
  char line[256];
  long kib = -1;
  while (fgets(line, sizeof line, f) != NULL)
    if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
      break;
  fclose(f);
  ck_assert_int_ge(kib, 0);
  return kib;
}

/* omp_set_affinity_format keeps no string it replaced once no one reads it: 10^6 calls with two
   200-byte formats grew the RSS by 214 MiB (issue 37 item 7; libgomp +0). 16 MiB is far above
   what reuse costs and far below the 200 MiB a leak makes. */
START_TEST(test_set_format_memory)
{
  char one[201], two[201];
  memset(one, 'a', sizeof one - 3);
  memset(two, 'b', sizeof two - 3);
  strcpy(one + sizeof one - 3, "%n");
  strcpy(two + sizeof two - 3, "%L");
  omp_set_affinity_format(two);
  long before = rss_kib();
  for (int i = 0; i < 1000000; i++)
    omp_set_affinity_format(i % 2 == 0 ? one : two);
  long grown = rss_kib() - before;
  ck_assert_msg(grown < 16 * 1024, "RSS grew by %ld KiB over 10^6 calls", grown);
  char buf[256];
  ck_assert_uint_eq(omp_get_affinity_format(buf, sizeof buf), 200);
  ck_assert_str_eq(buf, two);
  ck_assert_uint_eq(lite_affinity_capture(NULL, 0, NULL), 198 + 1);
}
END_TEST

/* A string read from affinity-format-var (held) stays whole while the program sets others. */
START_TEST(test_held_format)
{
  omp_set_affinity_format("first %n");
  struct lite_counted_format *held;
  const char *first = lite_affinity_format_hold(&held);
  for (int i = 0; i < 1000; i++)
    omp_set_affinity_format(i % 2 == 0 ? "second %L" : "third %N");
  ck_assert_str_eq(first, "first %n");
  lite_affinity_format_release(held);
  ck_assert_str_eq(expand(NULL), "third 1");
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
  tcase_add_test(tc, test_huge_widths);
  tcase_add_test(tc, test_held_format);
  suite_add_tcase(s, tc);
  /* A million calls: well under a second alone, but not within Check's 4 s on a loaded machine. */
  TCase *memory = tcase_create("memory");
  tcase_add_test(memory, test_set_format_memory);
  tcase_set_timeout(memory, 60);
  suite_add_tcase(s, memory);
  TCase *bad = tcase_create("malformed");
  tcase_add_exit_test(bad, test_zero_without_dot, 1);
  tcase_add_exit_test(bad, test_zero_dot_without_width, 1);
  tcase_add_exit_test(bad, test_dot_without_width, 1);
  tcase_add_exit_test(bad, test_width_with_leading_zero, 1);
  tcase_add_exit_test(bad, test_unknown_type, 1);
  tcase_add_exit_test(bad, test_unknown_long_name, 1);
  tcase_add_exit_test(bad, test_unterminated_long_name, 1);
  tcase_add_exit_test(bad, test_percent_at_end, 1);
  suite_add_tcase(s, bad);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
