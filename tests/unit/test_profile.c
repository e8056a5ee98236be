/* Unit tests for profile/: the rows (one per site and kind, the overflow row of a full table),
   the report's file names, what output.c refuses to write into and how it reports a write error,
   and the trace buffer's rule that what it keeps always nests (a begin that does not fit is
   dropped with its end), written to a file and read back; a function named from the symbol
   table. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
  /* Too long for the buffer: refused, never cut (issue 37: the cut name was another file's) nor
     overrun. */
  char small[8];
  ck_assert_str_eq(lite_prof_file_name("abcdefg", small, sizeof small), "abcdefg");
  ck_assert_ptr_null(lite_prof_file_name("abcdefgh", small, sizeof small));
  ck_assert_ptr_null(lite_prof_file_name("abcdefghijkl", small, sizeof small));
  char pid[16];
  int n = snprintf(pid, sizeof pid, "%d", (int)getpid());
  char tight[16];
  snprintf(want, sizeof want, "x%s", pid);
  ck_assert_str_eq(lite_prof_file_name("x%p", tight, (size_t)n + 2), want);
  ck_assert_ptr_null(lite_prof_file_name("x%p", tight, (size_t)n + 1));
}
END_TEST

/* ---------------------------------------------------------------- the output files (output.c) */

/* stderr into a temporary file, for the warnings. */
struct capture {
  int saved_fd;
  FILE *file;
};

static void capture_begin(struct capture *c)
{
  fflush(stderr);
  c->file = tmpfile();
  ck_assert_ptr_nonnull(c->file);
  c->saved_fd = dup(STDERR_FILENO);
  dup2(fileno(c->file), STDERR_FILENO);
}

/* What was written to stderr since capture_begin (malloc'd); echoed, for the test's log. */
static char *capture_end(struct capture *c)
{
  fflush(stderr);
  dup2(c->saved_fd, STDERR_FILENO);
  close(c->saved_fd);
  long size = ftell(c->file);
  ck_assert_int_ge(size, 0);
  char *text = calloc(1, (size_t)size + 1);
  rewind(c->file);
  size_t got = fread(text, 1, (size_t)size, c->file);
  text[got] = 0;
  fclose(c->file);
  fputs(text, stderr);
  return text;
}

static unsigned lines_of(const char *text)
{
  unsigned n = 0;
  for (; *text != 0; text++)
    n += *text == '\n';
  return n;
}

static void write_text(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
}

/* The file's text (up to 255 bytes), into a static buffer; "" if it cannot be read. */
static const char *text_of(const char *path)
{
  static char text[256];
  text[0] = 0;
  FILE *f = fopen(path, "r");
  if (f != NULL) {
    text[fread(text, 1, sizeof text - 1, f)] = 0;
    fclose(f);
  }
  return text;
}

/* lite_prof_file_open(path) must refuse, with one warning that names the file and says why. */
static void assert_refused(const char *path, const char *why)
{
  struct lite_prof_file file;
  struct capture c;
  capture_begin(&c);
  bool opened = lite_prof_file_open(&file, "OMPLITE_PROFILE", path, "; elsewhere");
  if (opened)
    lite_prof_file_close(&file);
  char *out = capture_end(&c);
  ck_assert_msg(!opened, "%s was opened", path);
  ck_assert_msg(lines_of(out) == 1, "%s: not one warning: %s", path, out);
  ck_assert_msg(strstr(out, "OMPLITE_PROFILE: not writing '") != NULL && strstr(out, path) &&
                    strstr(out, why) != NULL && strstr(out, "; elsewhere\n") != NULL,
                "%s: the warning does not say '%s': %s", path, why, out);
  free(out);
}

/* Writes text into path through lite_prof_file_open; returns what close said, and the warnings
   in *out (malloc'd). */
static bool write_through(const char *path, const char *text, char **out)
{
  struct lite_prof_file file;
  struct capture c;
  capture_begin(&c);
  bool ok = lite_prof_file_open(&file, "OMPLITE_TRACE", path, "");
  if (ok) {
    fputs(text, file.f);
    ok = lite_prof_file_close(&file);
  }
  *out = capture_end(&c);
  return ok;
}

/* Issue 37, items 1 and 4: links are never followed, another user's file or a FIFO is refused
   and left as it was, a new file is 0644 whatever the umask, write errors are told. */
START_TEST(test_output_files)
{
  char dir[] = "/tmp/test_profile.XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char target[256], path[256];
  snprintf(target, sizeof target, "%s/target", dir);
  write_text(target, "precious\n");

  /* A symbolic link, even one the caller made in its own directory, to its own file. */
  snprintf(path, sizeof path, "%s/link", dir);
  ck_assert_int_eq(symlink(target, path), 0);
  assert_refused(path, "symbolic link");
  ck_assert_str_eq(text_of(target), "precious\n");
  unlink(path);
  /* A dangling one: nothing is made at its target. */
  char absent[256];
  snprintf(absent, sizeof absent, "%s/absent", dir);
  ck_assert_int_eq(symlink(absent, path), 0);
  assert_refused(path, "symbolic link");
  ck_assert_int_ne(access(absent, F_OK), 0);
  unlink(path);
  /* A second name of a file (a hard link planted in /tmp has the owner of the file it names). */
  ck_assert_int_eq(link(target, path), 0);
  assert_refused(path, "hard links");
  ck_assert_str_eq(text_of(target), "precious\n");
  unlink(path);
  /* A FIFO: refused at once, not waited on for a reader. */
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  assert_refused(path, "not a regular file");
  unlink(path);
  /* Another user's file (as root, who could write into it). */
  if (geteuid() == 0) {
    write_text(path, "theirs\n");
    ck_assert_int_eq(chown(path, 65534, 65534), 0);
    assert_refused(path, "belongs to another user");
    ck_assert_str_eq(text_of(path), "theirs\n");
    unlink(path);
  }
  /* A name too long once %p is expanded. */
  char long_name[4200];
  memset(long_name, 'a', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = 0;
  struct lite_prof_file file;
  struct capture c;
  capture_begin(&c);
  ck_assert(!lite_prof_file_open(&file, "OMPLITE_PROFILE", long_name, "; elsewhere"));
  char *out = capture_end(&c);
  ck_assert_msg(lines_of(out) == 1 && strstr(out, "name is too long") != NULL, "%s", out);
  free(out);

  /* A new file: 0644 under umask 0, not stdio's 0666. */
  snprintf(path, sizeof path, "%s/new", dir);
  mode_t saved = umask(0);
  ck_assert(write_through(path, "table\n", &out));
  umask(saved);
  ck_assert_uint_eq(lines_of(out), 0);
  free(out);
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_uint_eq(st.st_mode & 07777, 0644);
  ck_assert_str_eq(text_of(path), "table\n");
  /* The caller's own file: emptied, then written. */
  write_text(path, "a much longer old text\n");
  ck_assert(write_through(path, "new\n", &out));
  free(out);
  ck_assert_str_eq(text_of(path), "new\n");
  unlink(path);
  /* A character device is written as it is; a write error is told, once. */
  ck_assert(write_through("/dev/null", "table\n", &out));
  ck_assert_uint_eq(lines_of(out), 0);
  free(out);
  if (access("/dev/full", W_OK) == 0) {
    ck_assert(!write_through("/dev/full", "table\n", &out));
    ck_assert_msg(lines_of(out) == 1 && strstr(out, "OMPLITE_TRACE: error writing '/dev/full'"),
                  "%s", out);
    free(out);
  }
  unlink(target);
  ck_assert_int_eq(rmdir(dir), 0);
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

/* A function no dynamic symbol names (static, in a program not linked with -rdynamic): the
   report names it from the program's symbol table (symtab.c), and a site in the runtime is
   told from one in the program. */
static __attribute__((noinline)) int not_exported(int x)
{
  __asm__ volatile("" : "+r"(x));
  return x + 1;
}

START_TEST(test_symtab_names)
{
  char buf[256];
  const char *addr = (const char *)not_exported + 1;
  ck_assert(not_exported(1) == 2);
  ck_assert(lite_prof_name(addr, buf, sizeof buf));
  ck_assert_msg(strncmp(buf, "not_exported+0x1 (", 18) == 0, "named %s", buf);
  ck_assert(lite_prof_in_runtime((const void *)lite_prof_name)); /* linked in, here */
  lite_prof_symtab_close();
  /* Again after the close: the file is mapped anew. */
  ck_assert(lite_prof_name(addr, buf, sizeof buf));
  lite_prof_symtab_close();
}
END_TEST

int main(void)
{
  Suite *s = suite_create("profile");
  TCase *tc = tcase_create("profile");
  tcase_add_test(tc, test_rows);
  tcase_add_test(tc, test_file_names);
  tcase_add_test(tc, test_output_files);
  tcase_add_test(tc, test_trace_full_buffer);
  tcase_add_test(tc, test_symtab_names);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
