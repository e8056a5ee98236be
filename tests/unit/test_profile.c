/* Unit tests for profile/: the rows (one per site and kind, the overflow row of a full table),
   the report's file names, and the trace buffer's rule that what it keeps always nests (a begin
   that does not fit is dropped with its end), written to a file and read back. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/profile.h"

START_TEST(test_rows)
{
  static char sites[3];
  struct lite_prof_row *a = lite_prof_row(&sites[0], LITE_PROF_LOOP, NULL);
  ck_assert_ptr_eq(lite_prof_row(&sites[0], LITE_PROF_LOOP, NULL), a);
  ck_assert_ptr_ne(lite_prof_row(&sites[0], LITE_PROF_BARRIER, NULL), a);
  ck_assert_ptr_ne(lite_prof_row(&sites[1], LITE_PROF_LOOP, NULL), a);
  ck_assert_ptr_eq(a->key, &sites[0]);
  ck_assert_int_eq(a->kind, LITE_PROF_LOOP);
  /* Fill the table: every new site after it is full lands in one overflow row. */
  static char many[2048];
  struct lite_prof_row *last = NULL;
  for (unsigned i = 0; i < 2048; i++)
    last = lite_prof_row(&many[i], LITE_PROF_PARALLEL, NULL);
  ck_assert_ptr_eq(lite_prof_row(&sites[2], LITE_PROF_PARALLEL, NULL), last);
  ck_assert_ptr_eq(lite_prof_row(&sites[0], LITE_PROF_LOOP, NULL), a); /* old rows stay */
}
END_TEST

START_TEST(test_file_names)
{
  char buf[256], want[256];
  ck_assert_str_eq(lite_prof_file_name("prof.txt", buf, sizeof buf), "prof.txt");
  snprintf(want, sizeof want, "p.%d.txt", (int)getpid());
  ck_assert_str_eq(lite_prof_file_name("p.%p.txt", buf, sizeof buf), want);
  ck_assert_str_eq(lite_prof_file_name("100%", buf, sizeof buf), "100%");
  /* Too long for the buffer: cut, never overrun. */
  char small[8];
  ck_assert_uint_eq(strlen(lite_prof_file_name("abcdefghijkl", small, sizeof small)), 7);
}
END_TEST

static unsigned count_of(const char *text, const char *what)
{
  unsigned n = 0;
  for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what))
    n++;
  return n;
}

/* Writes the trace and returns its text (malloc'd). */
static char *write_and_read(const char *path)
{
  lite_trace_write();
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  char *text = calloc(1, 1 << 20);
  size_t n = fread(text, 1, (1 << 20) - 1, f);
  text[n] = 0;
  fclose(f);
  return text;
}

START_TEST(test_trace_full_buffer)
{
  char path[] = "/tmp/test_profile.XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  close(fd);
  lite_trace_path = path;
  lite_trace_events = 16;
  lite_env.profile = LITE_PROF_TRACE;
  /* One interval left open (the writer closes it), holding 10 intervals that each hold 3: 81
     events asked for, for a buffer of 16. */
  uint64_t t = 1000;
  lite_trace_begin(LITE_TR_PARKED, NULL, t++);
  for (int i = 0; i < 10; i++) {
    lite_trace_begin(LITE_TR_PARALLEL, NULL, t++);
    for (int k = 0; k < 3; k++) {
      lite_trace_begin(LITE_TR_BARRIER, NULL, t++);
      lite_trace_end(LITE_TR_BARRIER, t++, 0, 0);
    }
    lite_trace_end(LITE_TR_PARALLEL, t++, 2, 0);
  }
  char *text = write_and_read(path);
  unsigned b = count_of(text, "\"ph\":\"B\""), e = count_of(text, "\"ph\":\"E\"");
  ck_assert_uint_eq(b, e);
  ck_assert_uint_le(b + e, 16 + 1); /* the buffer's 16, and the writer's close */
  ck_assert_uint_ge(b, 6);          /* the buffer was used up, not left empty */
  /* Kept (all but the writer's close) + dropped = the 81 asked for. */
  char want[64];
  snprintf(want, sizeof want, "\"dropped_events\":%u", 81 - (b + e - 1));
  ck_assert_msg(strstr(text, want) != NULL, "no %s in %s", want, text);
  /* Only the interval really left open needs the writer's close: a buffer that kept a begin
     without room for its end would leave more. */
  ck_assert_uint_eq(count_of(text, "open_at_exit"), 1);
  ck_assert_msg(strstr(text, "dropped ") != NULL, "no lane mark for the dropped events");
  free(text);
  unlink(path);
  lite_env.profile = 0;
  lite_trace_path = NULL;
}
END_TEST

int main(void)
{
  Suite *s = suite_create("profile");
  TCase *tc = tcase_create("profile");
  tcase_add_test(tc, test_rows);
  tcase_add_test(tc, test_file_names);
  tcase_add_test(tc, test_trace_full_buffer);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
