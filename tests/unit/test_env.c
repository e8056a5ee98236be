/* Unit tests of env.c (every environment parser, the defaults and their rules, the warnings, the
   OMP_DISPLAY_ENV block), of icv.c (the ICV user API) and of the cgroup quota reader. Values are
   fed through a fake getenv, so the process environment stays out of it except where
   lite_env_init itself is under test. */
#include "env.h"
#include "profile/profile.h"

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- fake environment */

#define FAKE_MAX 32
static const char *fake_names[FAKE_MAX];
static const char *fake_values[FAKE_MAX];
static int fake_count;

static bool fake_secure; /* parse_env's lite_env_parse runs as in a setuid program */

static const char *fake_getenv(const char *name)
{
  for (int i = 0; i < fake_count; i++)
    if (strcmp(fake_names[i], name) == 0)
      return fake_values[i];
  return NULL;
}

/* ---------------------------------------------------------------- stderr capture */

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

/* Everything written to stderr since capture_begin, as a malloc'd string. */
static char *capture_end(struct capture *c)
{
  fflush(stderr);
  dup2(c->saved_fd, STDERR_FILENO);
  close(c->saved_fd);
  long size = ftell(c->file);
  ck_assert_int_ge(size, 0);
  char *text = malloc((size_t)size + 1);
  rewind(c->file);
  size_t got = fread(text, 1, (size_t)size, c->file);
  text[got] = '\0';
  fclose(c->file);
  return text;
}

static unsigned count_lines(const char *text)
{
  unsigned n = 0;
  for (; *text != '\0'; text++)
    n += *text == '\n';
  return n;
}

/* Parses the NULL-terminated name/value pairs with ncpus CPUs into *env; returns what was
   printed (the warnings), malloc'd. */
static char *parse_env(struct lite_env *env, unsigned ncpus, ...)
{
  va_list ap;
  va_start(ap, ncpus);
  fake_count = 0;
  for (const char *name; (name = va_arg(ap, const char *)) != NULL;) {
    ck_assert_int_lt(fake_count, FAKE_MAX);
    fake_names[fake_count] = name;
    fake_values[fake_count] = va_arg(ap, const char *);
    fake_count++;
  }
  va_end(ap);
  struct capture c;
  capture_begin(&c);
  lite_env_parse(env, fake_getenv, ncpus, fake_secure);
  return capture_end(&c);
}

/* Whether *env holds exactly the defaults for ncpus CPUs. */
static void assert_defaults(const struct lite_env *env, unsigned ncpus)
{
  ck_assert_uint_eq(env->icv.nthreads, ncpus);
  ck_assert_uint_eq(env->icv.max_active_levels, 1);
  ck_assert_uint_eq(env->icv.thread_limit, UINT_MAX);
  ck_assert(!env->icv.dynamic);
  ck_assert_int_eq(env->icv.run_sched, omp_sched_dynamic);
  ck_assert_int_eq(env->icv.run_chunk, 0);
  ck_assert_int_eq(env->icv.bind, omp_proc_bind_false);
  ck_assert_int_eq(env->icv.default_device, 0);
  ck_assert_ptr_null(env->nthreads_list);
  ck_assert_uint_eq(env->nthreads_list_len, 0);
  ck_assert_ptr_null(env->bind_list);
  ck_assert_uint_eq(env->bind_list_len, 0);
  ck_assert_uint_eq(env->ncpus, ncpus);
  ck_assert_uint_eq(env->stacksize, 0);
  ck_assert_int_eq(env->wait_policy, LITE_WAIT_DEFAULT);
  ck_assert_uint_eq(env->spincount, 300000);
  ck_assert_uint_eq(env->spin_ns, 300000);
  ck_assert_uint_eq(env->yield_ns, 100000);
  ck_assert(!env->cancellation);
  ck_assert_int_eq(env->max_task_priority, 0);
  ck_assert(!env->display_affinity);
  ck_assert_str_eq(env->affinity_format, "level %L thread %i affinity %A");
  ck_assert_int_eq(env->num_teams, 0);
  ck_assert_int_eq(env->teams_thread_limit, 0);
  ck_assert_int_eq(env->display_env, 0);
  ck_assert(!env->loop_stats);
  ck_assert(env->tiny_loops);
  ck_assert_int_eq(env->steal, LITE_STEAL_MONOTONIC);
  ck_assert(env->load_watch);
}

/* ---------------------------------------------------------------- scalar parsers */

START_TEST(test_parse_bool)
{
  bool b = false;
  ck_assert(lite_parse_bool("true", &b) && b);
  ck_assert(lite_parse_bool("FALSE", &b) && !b);
  ck_assert(lite_parse_bool("  True \t", &b) && b);
  ck_assert(lite_parse_bool("fAlSe", &b) && !b);
  const char *bad[] = { "", " ", "yes", "1", "0", "truex", "true false", "t", "false," };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    b = true;
    ck_assert_msg(!lite_parse_bool(bad[i], &b), "accepted '%s'", bad[i]);
    ck_assert(b); /* untouched */
  }
}
END_TEST

START_TEST(test_parse_ulong)
{
  unsigned long long v;
  ck_assert(lite_parse_ulong("0", 10, &v) && v == 0);
  ck_assert(lite_parse_ulong("+5", 10, &v) && v == 5);
  ck_assert(lite_parse_ulong(" 07 ", 10, &v) && v == 7);
  ck_assert(lite_parse_ulong("18446744073709551615", ULLONG_MAX, &v) && v == ULLONG_MAX);
  ck_assert(!lite_parse_ulong("11", 10, &v)); /* above max */
  ck_assert(!lite_parse_ulong("18446744073709551616", ULLONG_MAX, &v)); /* overflow */
  const char *bad[] = { "", "-0", "-1", "4x", "1e3", "0x10", "1 2", "+", "++1" };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    ck_assert_msg(!lite_parse_ulong(bad[i], 10, &v), "accepted '%s'", bad[i]);
}
END_TEST

START_TEST(test_parse_stacksize)
{
  size_t s;
  ck_assert(lite_parse_stacksize("100", &s) && s == 100 * 1024); /* default unit K */
  ck_assert(lite_parse_stacksize("10b", &s) && s == 10);
  ck_assert(lite_parse_stacksize("10B", &s) && s == 10);
  ck_assert(lite_parse_stacksize("1k", &s) && s == 1024);
  ck_assert(lite_parse_stacksize("1K", &s) && s == 1024);
  ck_assert(lite_parse_stacksize(" 4 m ", &s) && s == 4u << 20);
  ck_assert(lite_parse_stacksize("2g", &s) && s == 2ull << 30);
  ck_assert(lite_parse_stacksize("3G", &s) && s == 3ull << 30);
  ck_assert(lite_parse_stacksize("0", &s) && s == 0);
  const char *bad[] = { "", "x", "1t", "-1", "1.5M", "1MB", "8kk", "M", "18446744073709551615",
                        "17179869184G" };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    ck_assert_msg(!lite_parse_stacksize(bad[i], &s), "accepted '%s'", bad[i]);
}
END_TEST

START_TEST(test_parse_spincount)
{
  unsigned long long c;
  ck_assert(lite_parse_spincount("10", &c) && c == 10);
  ck_assert(lite_parse_spincount("0", &c) && c == 0);
  ck_assert(lite_parse_spincount("1k", &c) && c == 1000);
  ck_assert(lite_parse_spincount("1K", &c) && c == 1000);
  ck_assert(lite_parse_spincount("10 k", &c) && c == 10000);
  ck_assert(lite_parse_spincount("2M", &c) && c == 2000000);
  ck_assert(lite_parse_spincount("3g", &c) && c == 3000000000ull);
  ck_assert(lite_parse_spincount("1T", &c) && c == 1000000000000ull);
  ck_assert(lite_parse_spincount("5t", &c) && c == 5000000000000ull);
  ck_assert(lite_parse_spincount("infinite", &c) && c == ULLONG_MAX);
  ck_assert(lite_parse_spincount(" INFINITY ", &c) && c == ULLONG_MAX);
  const char *bad[] = { "", "inf", "infinites", "1e3", "-5", "12x", "1kk", "99999999999999999999",
                        "18446744073709552T" };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    ck_assert_msg(!lite_parse_spincount(bad[i], &c), "accepted '%s'", bad[i]);
}
END_TEST

START_TEST(test_parse_keywords)
{
  enum lite_wait_policy w;
  ck_assert(lite_parse_wait_policy("active", &w) && w == LITE_WAIT_ACTIVE);
  ck_assert(lite_parse_wait_policy(" Passive ", &w) && w == LITE_WAIT_PASSIVE);
  ck_assert(lite_parse_wait_policy("ACTIVE", &w) && w == LITE_WAIT_ACTIVE);
  ck_assert(!lite_parse_wait_policy("sleepy", &w));
  ck_assert(!lite_parse_wait_policy("active,passive", &w));
  ck_assert(!lite_parse_wait_policy("", &w));

  int d;
  ck_assert(lite_parse_display_env("true", &d) && d == 1);
  ck_assert(lite_parse_display_env("FALSE", &d) && d == 0);
  ck_assert(lite_parse_display_env(" Verbose ", &d) && d == 2);
  ck_assert(!lite_parse_display_env("1", &d));
  ck_assert(!lite_parse_display_env("verbosely", &d));
}
END_TEST

/* ---------------------------------------------------------------- list parsers */

static void assert_nthreads(const char *s, unsigned len, const unsigned *want)
{
  unsigned *list = NULL;
  unsigned n = 0;
  ck_assert_msg(lite_parse_nthreads_list(s, &list, &n), "rejected '%s'", s);
  ck_assert_uint_eq(n, len);
  for (unsigned i = 0; i < len; i++)
    ck_assert_uint_eq(list[i], want[i]);
  free(list);
}

START_TEST(test_parse_nthreads_list)
{
  assert_nthreads("4", 1, (unsigned[]){ 4 });
  assert_nthreads(" 3 ", 1, (unsigned[]){ 3 });
  assert_nthreads("+2", 1, (unsigned[]){ 2 });
  assert_nthreads("4,2", 2, (unsigned[]){ 4, 2 });
  assert_nthreads("3 ,4", 2, (unsigned[]){ 3, 4 });
  assert_nthreads(" 8 , 4 , 2 ", 3, (unsigned[]){ 8, 4, 2 });
  /* Too big to store is still a count: it saturates, and lite_env_parse clamps it. */
  assert_nthreads("99999999999", 1, (unsigned[]){ UINT_MAX });
  assert_nthreads("2,999999999999999999999999", 2, (unsigned[]){ 2, UINT_MAX });

  const char *bad[] = { "", " ", "abc", "0", "-3", "3,", ",3", "3,0", "3,4x", "3,,4", "3 4",
                        "1.5", "4;2" };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    unsigned *list = NULL;
    unsigned n = 7;
    ck_assert_msg(!lite_parse_nthreads_list(bad[i], &list, &n), "accepted '%s'", bad[i]);
    ck_assert_ptr_null(list);
    ck_assert_uint_eq(n, 7);
  }
}
END_TEST

static void assert_bind(const char *s, unsigned len, const omp_proc_bind_t *want)
{
  omp_proc_bind_t *list = NULL;
  unsigned n = 0;
  ck_assert_msg(lite_parse_proc_bind_list(s, &list, &n), "rejected '%s'", s);
  ck_assert_uint_eq(n, len);
  for (unsigned i = 0; i < len; i++)
    ck_assert_int_eq(list[i], want[i]);
  free(list);
}

START_TEST(test_parse_proc_bind_list)
{
  assert_bind("true", 1, (omp_proc_bind_t[]){ omp_proc_bind_true });
  assert_bind(" FALSE ", 1, (omp_proc_bind_t[]){ omp_proc_bind_false });
  assert_bind("primary", 1, (omp_proc_bind_t[]){ omp_proc_bind_primary });
  assert_bind("Master", 1, (omp_proc_bind_t[]){ omp_proc_bind_master });
  assert_bind(" Close ", 1, (omp_proc_bind_t[]){ omp_proc_bind_close });
  assert_bind("spread", 1, (omp_proc_bind_t[]){ omp_proc_bind_spread });
  assert_bind("spread,close", 2, (omp_proc_bind_t[]){ omp_proc_bind_spread, omp_proc_bind_close });
  assert_bind("SPREAD , primary ,close", 3,
              (omp_proc_bind_t[]){ omp_proc_bind_spread, omp_proc_bind_primary,
                                   omp_proc_bind_close });
  const char *bad[] = { "", "bogus", "false,close", "close,false", "close,true", "true,true",
                        "close,", ",close", "close spread", "closer" };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    omp_proc_bind_t *list = NULL;
    unsigned n = 7;
    ck_assert_msg(!lite_parse_proc_bind_list(bad[i], &list, &n), "accepted '%s'", bad[i]);
    ck_assert_ptr_null(list);
    ck_assert_uint_eq(n, 7);
  }
}
END_TEST

static void assert_schedule(const char *s, unsigned kind, int chunk)
{
  omp_sched_t k = 0;
  int c = -1;
  ck_assert_msg(lite_parse_schedule(s, &k, &c), "rejected '%s'", s);
  ck_assert_msg((unsigned)k == kind, "'%s': kind %#x, want %#x", s, (unsigned)k, kind);
  ck_assert_msg(c == chunk, "'%s': chunk %d, want %d", s, c, chunk);
}

START_TEST(test_parse_schedule)
{
  const unsigned mono = omp_sched_monotonic;
  /* A plain static is monotonic, the other kinds are not: libgomp 12's (and OpenMP's) rule. */
  assert_schedule("static", omp_sched_static | mono, 0);
  assert_schedule("dynamic", omp_sched_dynamic, 0);
  assert_schedule("guided", omp_sched_guided, 0);
  assert_schedule("auto", omp_sched_auto, 0);
  assert_schedule("STATIC,4", omp_sched_static | mono, 4);
  assert_schedule("static,0", omp_sched_static | mono, 0);
  assert_schedule("dynamic,0", omp_sched_dynamic, 0);
  assert_schedule(" Guided , 4 ", omp_sched_guided, 4);
  assert_schedule("auto,5", omp_sched_auto, 5);
  assert_schedule("dynamic,+7", omp_sched_dynamic, 7);
  assert_schedule("dynamic,2147483647", omp_sched_dynamic, INT_MAX);
  assert_schedule("monotonic:dynamic", omp_sched_dynamic | mono, 0);
  assert_schedule("MONOTONIC : dynamic , 5", omp_sched_dynamic | mono, 5);
  assert_schedule("monotonic:static", omp_sched_static | mono, 0);
  assert_schedule("monotonic:auto", omp_sched_auto | mono, 0);
  assert_schedule("nonmonotonic:static", omp_sched_static, 0);
  assert_schedule("NonMonotonic:guided,3", omp_sched_guided, 3);
  assert_schedule("nonmonotonic:dynamic,3", omp_sched_dynamic, 3);

  const char *bad[] = { "", "bogus", "dynamic,x", "dynamic,-3", "static,", "static,1x",
                        "monotonic:", "monotonic", "monotonic,nonmonotonic:static",
                        "monotonic:nonmonotonic:static", "dynamic,2147483648",
                        "dynamic,99999999999999999999", "dynamic 4", "runtime", "staticx",
                        "static:monotonic" };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    omp_sched_t k = 42;
    int c = 42;
    ck_assert_msg(!lite_parse_schedule(bad[i], &k, &c), "accepted '%s'", bad[i]);
    ck_assert_int_eq(k, 42);
    ck_assert_int_eq(c, 42);
  }
}
END_TEST

/* ---------------------------------------------------------------- lite_env_parse */

START_TEST(test_env_defaults)
{
  struct lite_env env;
  char *out = parse_env(&env, 2, NULL);
  ck_assert_str_eq(out, "");
  assert_defaults(&env, 2);
  free(out);
  lite_env_free(&env);

  out = parse_env(&env, 48, NULL);
  assert_defaults(&env, 48);
  free(out);
  lite_env_free(&env);
}
END_TEST

START_TEST(test_env_good_values)
{
  struct lite_env env;
  char *out = parse_env(&env, 2, "OMP_NUM_THREADS", " 4 , 2 ", "OMP_DYNAMIC", " TRUE ",
                        "OMP_THREAD_LIMIT", "+5", "OMP_SCHEDULE", "monotonic:guided,7",
                        "OMP_PROC_BIND", "spread,close", "OMP_STACKSIZE", "2M",
                        "OMP_CANCELLATION", "true", "OMP_MAX_TASK_PRIORITY", "5",
                        "OMP_DISPLAY_AFFINITY", "TRUE", "OMP_AFFINITY_FORMAT", "x %n",
                        "OMP_DEFAULT_DEVICE", "3", "OMP_NUM_TEAMS", "4",
                        "OMP_TEAMS_THREAD_LIMIT", "8", "OMP_DISPLAY_ENV", "verbose", NULL);
  ck_assert_str_eq(out, "");
  ck_assert_uint_eq(env.icv.nthreads, 4);
  ck_assert_uint_eq(env.nthreads_list_len, 2);
  ck_assert_uint_eq(env.nthreads_list[0], 4);
  ck_assert_uint_eq(env.nthreads_list[1], 2);
  ck_assert(env.icv.dynamic);
  ck_assert_uint_eq(env.icv.thread_limit, 5);
  ck_assert_uint_eq(env.icv.run_sched, omp_sched_guided | omp_sched_monotonic);
  ck_assert_int_eq(env.icv.run_chunk, 7);
  ck_assert_int_eq(env.icv.bind, omp_proc_bind_spread);
  ck_assert_uint_eq(env.bind_list_len, 2);
  ck_assert_int_eq(env.bind_list[1], omp_proc_bind_close);
  ck_assert_uint_eq(env.stacksize, 2u << 20);
  ck_assert(env.cancellation);
  ck_assert_int_eq(env.max_task_priority, 5);
  ck_assert(env.display_affinity);
  ck_assert_str_eq(env.affinity_format, "x %n");
  ck_assert_int_eq(env.icv.default_device, 3);
  ck_assert_int_eq(env.num_teams, 4);
  ck_assert_int_eq(env.teams_thread_limit, 8);
  ck_assert_int_eq(env.display_env, 2);
  ck_assert_uint_eq(env.icv.max_active_levels, LITE_MAX_ACTIVE_LEVELS); /* two-level lists */
  ck_assert_uint_eq(env.ncpus, 2);
  free(out);
  lite_env_free(&env);
}
END_TEST

/* Every kind of malformed value, one variable at a time: exactly one warning line naming the
   variable and the value, and every field left at its default. */
START_TEST(test_env_bad_values)
{
  static const struct { const char *name, *value; } cases[] = {
    { "OMP_NUM_THREADS", "abc" },      { "OMP_NUM_THREADS", "0" },
    { "OMP_NUM_THREADS", "-3" },       { "OMP_NUM_THREADS", "3," },
    { "OMP_NUM_THREADS", "3,0" },      { "OMP_NUM_THREADS", "3,4x" },
    { "OMP_NUM_THREADS", "" },         { "OMP_DYNAMIC", "yes" },
    { "OMP_DYNAMIC", "1" },            { "OMP_NESTED", "1" },
    { "OMP_MAX_ACTIVE_LEVELS", "-1" }, { "OMP_MAX_ACTIVE_LEVELS", "two" },
    { "OMP_THREAD_LIMIT", "0" },       { "OMP_THREAD_LIMIT", "4x" },
    { "OMP_THREAD_LIMIT", "1,2" },     { "OMP_SCHEDULE", "bogus" },
    { "OMP_SCHEDULE", "dynamic,x" },   { "OMP_SCHEDULE", "dynamic,-3" },
    { "OMP_SCHEDULE", "monotonic:" },  { "OMP_PROC_BIND", "bogus" },
    { "OMP_PROC_BIND", "close,true" }, { "OMP_PROC_BIND", "false,close" },
    { "OMP_STACKSIZE", "1t" },         { "OMP_STACKSIZE", "-1" },
    { "OMP_STACKSIZE", "1.5M" },       { "OMP_STACKSIZE", "0" },
    { "GOMP_STACKSIZE", "x" },         { "OMP_WAIT_POLICY", "sleepy" },
    { "GOMP_SPINCOUNT", "-5" },        { "GOMP_SPINCOUNT", "inf" },
    { "GOMP_SPINCOUNT", "12x" },       { "OMPLITE_SPIN_US", "-1" },
    { "OMPLITE_SPIN_US", "1ms" },      { "OMPLITE_YIELD_US", "x" },
    { "OMP_CANCELLATION", "on" },      { "OMP_MAX_TASK_PRIORITY", "-1" },
    { "OMP_DISPLAY_AFFINITY", "2" },   { "OMP_DEFAULT_DEVICE", "-2" },
    { "OMP_NUM_TEAMS", "0" },          { "OMP_TEAMS_THREAD_LIMIT", "-4" },
    { "OMP_DISPLAY_ENV", "bogus" },    { "OMPLITE_LOAD_WATCH", "maybe" },
    { "OMPLITE_TINY_LOOPS", "2" },     { "OMPLITE_LOOP_STATS", "yes please" },
    { "OMPLITE_STEAL", "never" },      { "OMPLITE_STEAL", "monotonic:" },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct lite_env env;
    char *out = parse_env(&env, 2, cases[i].name, cases[i].value, NULL);
    char needle[128];
    snprintf(needle, sizeof needle, "libomp-lite: warning: %s='%s' ", cases[i].name,
             cases[i].value);
    ck_assert_msg(strncmp(out, needle, strlen(needle)) == 0, "%s='%s' printed: %s",
                  cases[i].name, cases[i].value, out);
    ck_assert_msg(count_lines(out) == 1, "%s='%s' printed: %s", cases[i].name, cases[i].value,
                  out);
    assert_defaults(&env, 2);
    free(out);
    lite_env_free(&env);
  }
}
END_TEST

/* libomp-lite's own switches: false, 0, true and 1. */
START_TEST(test_env_switches)
{
  struct lite_env env;
  char *out = parse_env(&env, 2, "OMPLITE_LOAD_WATCH", "false", "OMPLITE_TINY_LOOPS", "0",
                        "OMPLITE_LOOP_STATS", "1", NULL);
  ck_assert_str_eq(out, "");
  ck_assert(!env.load_watch);
  ck_assert(!env.tiny_loops);
  ck_assert(env.loop_stats);
  free(out);
  lite_env_free(&env);
  out = parse_env(&env, 2, "OMPLITE_LOAD_WATCH", "1", "OMPLITE_TINY_LOOPS", "true",
                  "OMPLITE_LOOP_STATS", "false", NULL);
  ck_assert_str_eq(out, "");
  ck_assert(env.load_watch);
  ck_assert(env.tiny_loops);
  ck_assert(!env.loop_stats);
  free(out);
  lite_env_free(&env);
}
END_TEST

/* OMPLITE_PROFILE, OMPLITE_TRACE, OMPLITE_TRACE_EVENTS (profile/) */
static unsigned char profile_with(const char *name, const char *value, unsigned warnings)
{
  struct lite_env env;
  char *out = parse_env(&env, 2, name, value, NULL);
  ck_assert_msg(count_lines(out) == warnings, "%s='%s': %u warnings: %s", name, value,
                count_lines(out), out);
  if (warnings != 0)
    ck_assert_msg(strstr(out, name) != NULL, "the warning names %s: %s", name, out);
  free(out);
  lite_env_free(&env);
  return env.profile;
}

START_TEST(test_env_profile)
{
  ck_assert_uint_eq(profile_with(NULL, NULL, 0), 0);
  ck_assert_uint_eq(profile_with("OMPLITE_PROFILE", "1", 0), LITE_PROF_TABLE);
  ck_assert_ptr_null(lite_prof_path);
  ck_assert_uint_eq(profile_with("OMPLITE_PROFILE", "true", 0), LITE_PROF_TABLE);
  ck_assert_uint_eq(profile_with("OMPLITE_PROFILE", "0", 0), 0);
  ck_assert_uint_eq(profile_with("OMPLITE_PROFILE", "FALSE", 0), 0);
  ck_assert_uint_eq(profile_with("OMPLITE_PROFILE", "/tmp/prof.txt", 0), LITE_PROF_TABLE);
  ck_assert_str_eq(lite_prof_path, "/tmp/prof.txt");
  ck_assert_uint_eq(profile_with("OMPLITE_PROFILE", "", 1), 0);
  ck_assert_uint_eq(profile_with("OMPLITE_TRACE", "t.json", 0), LITE_PROF_TRACE);
  ck_assert_str_eq(lite_trace_path, "t.json");
  ck_assert_uint_eq(profile_with("OMPLITE_TRACE", "0", 0), 0);
  ck_assert_uint_eq(profile_with("OMPLITE_TRACE", "1", 1), 0); /* not a file name */
  ck_assert_uint_eq(profile_with("OMPLITE_TRACE", "", 1), 0);
  profile_with("OMPLITE_TRACE_EVENTS", "100", 0);
  ck_assert_uint_eq(lite_trace_events, 100);
  profile_with("OMPLITE_TRACE_EVENTS", "abc", 1);
  ck_assert_uint_eq(lite_trace_events, LITE_TRACE_EVENTS_DEFAULT);
  profile_with("OMPLITE_TRACE_EVENTS", "8", 1);
  ck_assert_uint_eq(lite_trace_events, LITE_TRACE_EVENTS_DEFAULT);
  profile_with(NULL, NULL, 0); /* frees the paths */
}
END_TEST

/* Issue 37: in a setuid or setgid program the variables that name a file are ignored, with one
   warning for all of them; the table on stderr stays (it names no file). */
START_TEST(test_env_profile_secure)
{
  struct lite_env env;
  fake_secure = true;
  char *out = parse_env(&env, 2, "OMPLITE_PROFILE", "/root/prof.txt", "OMPLITE_TRACE",
                        "/root/trace.json", NULL);
  fake_secure = false;
  ck_assert_uint_eq(env.profile, 0);
  ck_assert_ptr_null(lite_prof_path);
  ck_assert_ptr_null(lite_trace_path);
  ck_assert_msg(count_lines(out) == 1, "not one warning: %s", out);
  ck_assert_msg(strstr(out, "OMPLITE_PROFILE, OMPLITE_TRACE ignored: a setuid") != NULL,
                "the warning names both: %s", out);
  free(out);
  lite_env_free(&env);
  fake_secure = true;
  ck_assert_uint_eq(profile_with("OMPLITE_TRACE", "t.json", 1), 0);
  ck_assert_uint_eq(profile_with("OMPLITE_PROFILE", "1", 0), LITE_PROF_TABLE);
  ck_assert_uint_eq(profile_with("OMPLITE_TRACE", "0", 0), 0);
  fake_secure = false;
  /* The unit test itself is no setuid program. */
  ck_assert(!lite_os_secure());
}
END_TEST

/* OMPLITE_HEAP_KEEP, and heap.c's reading of what the user set for glibc's malloc */
static bool heap_user_set_with(const char *name, const char *value)
{
  fake_count = 0;
  if (name != NULL) {
    fake_names[0] = name;
    fake_values[0] = value;
    fake_count = 1;
  }
  return lite_heap_user_set(fake_getenv);
}

START_TEST(test_env_heap_keep)
{
  struct lite_env env;
  char *out = parse_env(&env, 2, NULL);
  ck_assert(env.heap_keep);
  free(out);
  lite_env_free(&env);
  out = parse_env(&env, 2, "OMPLITE_HEAP_KEEP", "0", NULL);
  ck_assert_str_eq(out, "");
  ck_assert(!env.heap_keep);
  free(out);
  lite_env_free(&env);
  out = parse_env(&env, 2, "OMPLITE_HEAP_KEEP", "false", NULL);
  ck_assert(!env.heap_keep);
  free(out);
  lite_env_free(&env);

  ck_assert(!heap_user_set_with(NULL, NULL));
  ck_assert(heap_user_set_with("MALLOC_TRIM_THRESHOLD_", "131072"));
  ck_assert(heap_user_set_with("MALLOC_MMAP_THRESHOLD_", "1"));
  ck_assert(heap_user_set_with("MALLOC_TOP_PAD_", "0"));
  ck_assert(heap_user_set_with("MALLOC_MMAP_MAX_", "0"));
  ck_assert(!heap_user_set_with("MALLOC_ARENA_MAX", "2")); /* not a threshold */
  ck_assert(heap_user_set_with("GLIBC_TUNABLES", "glibc.malloc.trim_threshold=1"));
  ck_assert(heap_user_set_with("GLIBC_TUNABLES",
                               "glibc.malloc.check=0:glibc.malloc.mmap_threshold=4096"));
  ck_assert(!heap_user_set_with("GLIBC_TUNABLES", "glibc.malloc.arena_max=2"));
  ck_assert(!heap_user_set_with("GLIBC_TUNABLES", ""));
}
END_TEST

START_TEST(test_env_warning_text)
{
  struct lite_env env;
  char *out = parse_env(&env, 2, "OMP_NUM_THREADS", "abc", NULL);
  ck_assert_str_eq(out, "libomp-lite: warning: OMP_NUM_THREADS='abc' is not a valid thread "
                        "count; using the default (2)\n");
  free(out);
  lite_env_free(&env);
}
END_TEST

START_TEST(test_env_nthreads_clamped)
{
  struct lite_env env;
  char *out = parse_env(&env, 2, "OMP_NUM_THREADS", "100000", NULL);
  ck_assert_uint_eq(env.icv.nthreads, LITE_MAX_TEAM_THREADS);
  ck_assert_uint_eq(count_lines(out), 1);
  ck_assert_ptr_nonnull(strstr(out, "OMP_NUM_THREADS='100000'"));
  free(out);
  lite_env_free(&env);

  out = parse_env(&env, 2, "OMP_NUM_THREADS", "4,99999999999", NULL);
  ck_assert_uint_eq(env.icv.nthreads, 4);
  ck_assert_uint_eq(env.nthreads_list[1], LITE_MAX_TEAM_THREADS);
  ck_assert_uint_eq(count_lines(out), 1);
  free(out);
  lite_env_free(&env);

  /* Within the cap: kept as asked, even far above the CPU count (oversubscription is legal). */
  out = parse_env(&env, 2, "OMP_NUM_THREADS", "64", NULL);
  ck_assert_uint_eq(env.icv.nthreads, 64);
  ck_assert_str_eq(out, "");
  free(out);
  lite_env_free(&env);
}
END_TEST

/* The max-active-levels-var default: libgomp 12's rule. A NULL value reads as unset. */
static unsigned levels_for(const char *nested, const char *nthreads, const char *bind,
                           const char *levels)
{
  struct lite_env env;
  char *out = parse_env(&env, 2, "OMP_NESTED", nested, "OMP_NUM_THREADS", nthreads,
                        "OMP_PROC_BIND", bind, "OMP_MAX_ACTIVE_LEVELS", levels, NULL);
  free(out);
  unsigned result = env.icv.max_active_levels;
  lite_env_free(&env);
  return result;
}

START_TEST(test_env_active_levels_rule)
{
  ck_assert_uint_eq(levels_for(NULL, NULL, NULL, NULL), 1);
  ck_assert_uint_eq(levels_for(NULL, "4", NULL, NULL), 1);
  ck_assert_uint_eq(levels_for(NULL, "4,2", NULL, NULL), 255);
  ck_assert_uint_eq(levels_for(NULL, NULL, "close", NULL), 1);
  ck_assert_uint_eq(levels_for(NULL, NULL, "spread,close", NULL), 255);
  ck_assert_uint_eq(levels_for("true", NULL, NULL, NULL), 255);
  ck_assert_uint_eq(levels_for("false", NULL, NULL, NULL), 1);
  ck_assert_uint_eq(levels_for("false", "2,2", NULL, NULL), 1); /* an explicit false wins */
  ck_assert_uint_eq(levels_for("true", NULL, NULL, "3"), 3);   /* OMP_MAX_ACTIVE_LEVELS wins */
  ck_assert_uint_eq(levels_for(NULL, "4,2", NULL, "2"), 2);
  ck_assert_uint_eq(levels_for(NULL, NULL, NULL, "0"), 0);
  ck_assert_uint_eq(levels_for(NULL, NULL, NULL, "7"), 7);
  ck_assert_uint_eq(levels_for("bogus", "4,2", NULL, NULL), 255); /* bad OMP_NESTED: as unset */

  struct lite_env env;
  char *out = parse_env(&env, 2, "OMP_MAX_ACTIVE_LEVELS", "1000", NULL);
  ck_assert_uint_eq(env.icv.max_active_levels, 255);
  ck_assert_uint_eq(count_lines(out), 1);
  ck_assert_ptr_nonnull(strstr(out, "OMP_MAX_ACTIVE_LEVELS='1000'"));
  free(out);
  lite_env_free(&env);
}
END_TEST

/* spin_ns, yield_ns and the GOMP_SPINCOUNT shown by OMP_DISPLAY_ENV for one setting. */
static void assert_wait(const char *policy, const char *spincount, const char *spin_us,
                        const char *yield_us, unsigned long long want_count, uint64_t want_spin,
                        uint64_t want_yield, unsigned want_warnings)
{
  struct lite_env env;
  char *out = parse_env(&env, 2, "OMP_WAIT_POLICY", policy, "GOMP_SPINCOUNT", spincount,
                        "OMPLITE_SPIN_US", spin_us, "OMPLITE_YIELD_US", yield_us, NULL);
  ck_assert_uint_eq(env.spincount, want_count);
  ck_assert_uint_eq(env.spin_ns, want_spin);
  ck_assert_uint_eq(env.yield_ns, want_yield);
  ck_assert_msg(count_lines(out) == want_warnings, "printed: %s", out);
  free(out);
  lite_env_free(&env);
}

START_TEST(test_env_wait_policy)
{
  assert_wait(NULL, NULL, NULL, NULL, 300000, 300000, 100000, 0);
  assert_wait("active", NULL, NULL, NULL, 30000000000ull, 50000000, 100000, 0);
  assert_wait("passive", NULL, NULL, NULL, 0, 0, 0, 0);
  assert_wait(NULL, "1000", NULL, NULL, 1000, 1000, 100000, 0);
  assert_wait(NULL, "0", NULL, NULL, 0, 0, 100000, 0);
  assert_wait(NULL, "infinite", NULL, NULL, ULLONG_MAX, 1000000000, 100000, 0);
  assert_wait(NULL, "5G", NULL, NULL, 5000000000ull, 1000000000, 100000, 0); /* capped at 1 s */
  assert_wait("active", "10k", NULL, NULL, 10000, 10000, 100000, 0);
  assert_wait("passive", "1000", NULL, NULL, 1000, 1000, 0, 0); /* GOMP_SPINCOUNT wins */
  assert_wait(NULL, NULL, "20", NULL, 300000, 20000, 100000, 0);
  assert_wait(NULL, NULL, NULL, "0", 300000, 300000, 0, 0);
  assert_wait("passive", NULL, "15", "7", 0, 15000, 7000, 0);
  assert_wait("active", "1000", "0", NULL, 1000, 0, 100000, 0);
  assert_wait(NULL, NULL, "5000000", "2000000", 300000, 1000000000, 1000000000, 2);
  assert_wait("sleepy", "nope", NULL, NULL, 300000, 300000, 100000, 2);
}
END_TEST

START_TEST(test_env_stacksize)
{
  struct lite_env env;
  char *out = parse_env(&env, 2, "OMP_STACKSIZE", "1M", "GOMP_STACKSIZE", "2M", NULL);
  ck_assert_uint_eq(env.stacksize, 1u << 20); /* OMP_STACKSIZE wins */
  ck_assert_str_eq(out, "");
  free(out);
  lite_env_free(&env);

  out = parse_env(&env, 2, "GOMP_STACKSIZE", "2M", NULL);
  ck_assert_uint_eq(env.stacksize, 2u << 20);
  free(out);
  lite_env_free(&env);

  /* A malformed OMP_STACKSIZE falls back to GOMP_STACKSIZE, as in libgomp. */
  out = parse_env(&env, 2, "OMP_STACKSIZE", "lots", "GOMP_STACKSIZE", "3M", NULL);
  ck_assert_uint_eq(env.stacksize, 3u << 20);
  ck_assert_uint_eq(count_lines(out), 1);
  free(out);
  lite_env_free(&env);

  /* Below the pthread minimum no worker could start: raised to it, with a warning. */
  out = parse_env(&env, 2, "OMP_STACKSIZE", "1k", NULL);
  ck_assert_uint_eq(env.stacksize, (size_t)PTHREAD_STACK_MIN);
  ck_assert_uint_eq(count_lines(out), 1);
  ck_assert_ptr_nonnull(strstr(out, "OMP_STACKSIZE='1k'"));
  free(out);
  lite_env_free(&env);
}
END_TEST

START_TEST(test_env_thread_limit_saturates)
{
  struct lite_env env;
  char *out = parse_env(&env, 2, "OMP_THREAD_LIMIT", "99999999999", NULL);
  ck_assert_uint_eq(env.icv.thread_limit, UINT_MAX);
  ck_assert_str_eq(out, "");
  free(out);
  lite_env_free(&env);
}
END_TEST

/* ---------------------------------------------------------------- OMP_DISPLAY_ENV */

static char *print_env(const struct lite_env *env, bool verbose)
{
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(f);
  lite_env_print(f, env, verbose);
  fclose(f);
  return text;
}

/* The shape of gcc 12's libgomp block, with libomp-lite's line after _OPENMP. */
#define DISPLAY_HEAD                                                                          \
  "\nOPENMP DISPLAY ENVIRONMENT BEGIN\n"                                                     \
  "  _OPENMP = '201511'\n"                                                                  \
  "  LIBOMP_LITE_VERSION = '" LITE_VERSION_STRING "'\n"

#define DISPLAY_DEFAULT_BODY                                                                  \
  "  OMP_DYNAMIC = 'FALSE'\n"                                                               \
  "  OMP_NESTED = 'FALSE'\n"                                                                \
  "  OMP_NUM_THREADS = '2'\n"                                                               \
  "  OMP_SCHEDULE = 'DYNAMIC'\n"                                                            \
  "  OMP_PROC_BIND = 'FALSE'\n"                                                             \
  "  OMP_PLACES = ''\n"                                                                     \
  "  OMP_STACKSIZE = '0'\n"                                                                 \
  "  OMP_WAIT_POLICY = 'PASSIVE'\n"                                                         \
  "  OMP_THREAD_LIMIT = '4294967295'\n"                                                     \
  "  OMP_MAX_ACTIVE_LEVELS = '1'\n"                                                         \
  "  OMP_NUM_TEAMS = '0'\n"                                                                 \
  "  OMP_TEAMS_THREAD_LIMIT = '0'\n"                                                        \
  "  OMP_CANCELLATION = 'FALSE'\n"                                                          \
  "  OMP_DEFAULT_DEVICE = '0'\n"                                                            \
  "  OMP_MAX_TASK_PRIORITY = '0'\n"                                                         \
  "  OMP_DISPLAY_AFFINITY = 'FALSE'\n"                                                      \
  "  OMP_AFFINITY_FORMAT = 'level %L thread %i affinity %A'\n"                              \
  "  OMP_ALLOCATOR = 'omp_default_mem_alloc'\n"                                             \
  "  OMP_TARGET_OFFLOAD = 'DEFAULT'\n"

#define DISPLAY_TAIL "OPENMP DISPLAY ENVIRONMENT END\n"

START_TEST(test_display_defaults)
{
  struct lite_env env;
  free(parse_env(&env, 2, NULL));
  char *text = print_env(&env, false);
  ck_assert_str_eq(text, DISPLAY_HEAD DISPLAY_DEFAULT_BODY DISPLAY_TAIL);
  free(text);

  text = print_env(&env, true);
  ck_assert_str_eq(text, DISPLAY_HEAD DISPLAY_DEFAULT_BODY
                         "  GOMP_CPU_AFFINITY = ''\n"
                         "  GOMP_STACKSIZE = '0'\n"
                         "  KMP_AFFINITY = ''\n"
                         "  KMP_HW_SUBSET = ''\n"
                         "  GOMP_SPINCOUNT = '300000'\n"
                         "  OMPLITE_SPIN_US = '300'\n"
                         "  OMPLITE_YIELD_US = '100'\n"
                         "  OMPLITE_STEAL = 'monotonic'\n"
                         "  OMPLITE_PROFILE = '0'\n"
                         "  OMPLITE_TRACE = '0'\n"
                         "  OMPLITE_TRACE_EVENTS = '65536'\n" DISPLAY_TAIL);
  free(text);
  lite_env_free(&env);
}
END_TEST

/* LLVM's pinning variables, where set, after the two lines they decide; verbose always. */
START_TEST(test_display_kmp)
{
  struct lite_env env;
  free(parse_env(&env, 2, "KMP_AFFINITY", "verbose,compact", "KMP_HW_SUBSET", "1s,2c", NULL));
  ck_assert_str_eq(env.kmp_affinity, "verbose,compact");
  ck_assert_str_eq(env.kmp_hw_subset, "1s,2c");
  char *text = print_env(&env, false);
  ck_assert_ptr_nonnull(strstr(text, "  OMP_PLACES = ''\n"
                                     "  KMP_AFFINITY = 'verbose,compact'\n"
                                     "  KMP_HW_SUBSET = '1s,2c'\n"
                                     "  OMP_STACKSIZE = '0'\n"));
  free(text);
  text = print_env(&env, true);
  ck_assert_ptr_nonnull(strstr(text, "  KMP_AFFINITY = 'verbose,compact'\n"
                                     "  KMP_HW_SUBSET = '1s,2c'\n"
                                     "  GOMP_SPINCOUNT"));
  ck_assert_ptr_null(strstr(text, "  OMP_PLACES = ''\n  KMP_AFFINITY"));
  free(text);
  lite_env_free(&env);
  /* Empty values count as unset, as OMP_PLACES's do. */
  free(parse_env(&env, 2, "KMP_AFFINITY", " ", NULL));
  ck_assert_ptr_null(env.kmp_affinity);
  lite_env_free(&env);
}
END_TEST

START_TEST(test_display_values)
{
  struct lite_env env;
  free(parse_env(&env, 2, "OMP_NUM_THREADS", "4,2", "OMP_PROC_BIND", "spread,primary",
                 "OMP_SCHEDULE", "monotonic:guided,7", "OMP_DYNAMIC", "true", "OMP_STACKSIZE",
                 "1M", "OMP_WAIT_POLICY", "active", "OMP_THREAD_LIMIT", "5", "OMP_NUM_TEAMS", "4",
                 "OMP_TEAMS_THREAD_LIMIT", "8", "OMP_CANCELLATION", "true", "OMP_DEFAULT_DEVICE",
                 "3", "OMP_MAX_TASK_PRIORITY", "5", "OMP_DISPLAY_AFFINITY", "true",
                 "OMP_AFFINITY_FORMAT", "x %n", "OMPLITE_YIELD_US", "7", "OMPLITE_PROFILE", "1",
                 "OMPLITE_TRACE", "t.json", "OMPLITE_TRACE_EVENTS", "100", "OMPLITE_STEAL", "OFF", NULL));
  char *text = print_env(&env, true);
  ck_assert_str_eq(text, DISPLAY_HEAD
                   "  OMP_DYNAMIC = 'TRUE'\n"
                   "  OMP_NESTED = 'TRUE'\n"
                   "  OMP_NUM_THREADS = '4,2'\n"
                   "  OMP_SCHEDULE = 'MONOTONIC:GUIDED,7'\n"
                   "  OMP_PROC_BIND = 'SPREAD,MASTER'\n"
                   "  OMP_PLACES = ''\n"
                   "  OMP_STACKSIZE = '1048576'\n"
                   "  OMP_WAIT_POLICY = 'ACTIVE'\n"
                   "  OMP_THREAD_LIMIT = '5'\n"
                   "  OMP_MAX_ACTIVE_LEVELS = '255'\n"
                   "  OMP_NUM_TEAMS = '4'\n"
                   "  OMP_TEAMS_THREAD_LIMIT = '8'\n"
                   "  OMP_CANCELLATION = 'TRUE'\n"
                   "  OMP_DEFAULT_DEVICE = '3'\n"
                   "  OMP_MAX_TASK_PRIORITY = '5'\n"
                   "  OMP_DISPLAY_AFFINITY = 'TRUE'\n"
                   "  OMP_AFFINITY_FORMAT = 'x %n'\n"
                   "  OMP_ALLOCATOR = 'omp_default_mem_alloc'\n"
                   "  OMP_TARGET_OFFLOAD = 'DEFAULT'\n"
                   "  GOMP_CPU_AFFINITY = ''\n"
                   "  GOMP_STACKSIZE = '1048576'\n"
                         "  KMP_AFFINITY = ''\n"
                         "  KMP_HW_SUBSET = ''\n"
                   "  GOMP_SPINCOUNT = '30000000000'\n"
                   "  OMPLITE_SPIN_US = '50000'\n"
                   "  OMPLITE_YIELD_US = '7'\n"
                   "  OMPLITE_STEAL = 'off'\n"
                   "  OMPLITE_PROFILE = '1'\n"
                   "  OMPLITE_TRACE = 't.json'\n"
                   "  OMPLITE_TRACE_EVENTS = '100'\n" DISPLAY_TAIL);
  free(text);
  lite_env_free(&env);
}
END_TEST

/* The OMP_SCHEDULE line as libgomp 12 spells each setting (checked against it). */
static void assert_schedule_shown(const char *value, const char *shown)
{
  struct lite_env env;
  free(parse_env(&env, 2, "OMP_SCHEDULE", value, NULL));
  char *text = print_env(&env, false);
  char line[128];
  snprintf(line, sizeof line, "\n  OMP_SCHEDULE = '%s'\n", shown);
  ck_assert_msg(strstr(text, line) != NULL, "OMP_SCHEDULE='%s' shown as: %s", value, text);
  free(text);
  lite_env_free(&env);
}

START_TEST(test_display_schedule)
{
  assert_schedule_shown("static", "STATIC");
  assert_schedule_shown("static,0", "STATIC");
  assert_schedule_shown("static,1", "STATIC,1");
  assert_schedule_shown("monotonic:static,3", "STATIC,3");
  assert_schedule_shown("nonmonotonic:static", "NONMONOTONIC:STATIC");
  assert_schedule_shown("nonmonotonic:static,4", "NONMONOTONIC:STATIC,4");
  assert_schedule_shown("dynamic", "DYNAMIC");
  assert_schedule_shown("dynamic,1", "DYNAMIC");
  assert_schedule_shown("nonmonotonic:dynamic,3", "DYNAMIC,3");
  assert_schedule_shown("monotonic:dynamic", "MONOTONIC:DYNAMIC");
  assert_schedule_shown("guided,1", "GUIDED");
  assert_schedule_shown(" Guided , 4 ", "GUIDED,4");
  assert_schedule_shown("auto,5", "AUTO");
  assert_schedule_shown("monotonic:auto", "MONOTONIC:AUTO");
}
END_TEST

START_TEST(test_env_init_displays)
{
  /* lite_env_init reads the real environment: this test runs in its own forked process. */
  setenv("OMP_DISPLAY_ENV", "true", 1);
  setenv("OMP_NUM_THREADS", "3,2", 1);
  struct capture c;
  capture_begin(&c);
  lite_env_init();
  char *out = capture_end(&c);
  ck_assert_ptr_nonnull(strstr(out, DISPLAY_HEAD "  OMP_DYNAMIC = "));
  ck_assert_ptr_nonnull(strstr(out, "  OMP_NUM_THREADS = '3,2'\n"));
  ck_assert_ptr_null(strstr(out, "GOMP_SPINCOUNT"));
  ck_assert_uint_eq(lite_env.icv.nthreads, 3);
  ck_assert_uint_eq(lite_env.ncpus, lite_os_available_cpus());
  free(out);

  unsetenv("OMP_DISPLAY_ENV");
  unsetenv("OMP_NUM_THREADS");
  lite_env_free(&lite_env); /* nothing else runs: no region, no other thread reads it */
  capture_begin(&c);
  lite_env_init();
  out = capture_end(&c);
  ck_assert_str_eq(out, "");
  ck_assert_uint_eq(lite_env.icv.nthreads, lite_os_available_cpus());
  free(out);

  /* omp_display_env prints the same block on demand, verbose or not. */
  capture_begin(&c);
  omp_display_env(1);
  out = capture_end(&c);
  ck_assert_ptr_nonnull(strstr(out, DISPLAY_HEAD));
  ck_assert_ptr_nonnull(strstr(out, "  OMPLITE_YIELD_US = '"));
  /* The process's block, verbose, names its first team's barrier (barrier_tree.c): flat or
     unbound here, as this machine's CPUs and the environment make it. */
  ck_assert_ptr_nonnull(strstr(out, "  OMPLITE_BARRIER_TREE = '"));
  free(out);
}
END_TEST

/* ---------------------------------------------------------------- cgroup v1 and v2 quotas */

static void mkdir_p(const char *path)
{
  char buf[PATH_MAX];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p != '\0'; p++) {
    if (*p == '/') {
      *p = '\0';
      ck_assert(mkdir(buf, 0700) == 0 || errno == EEXIST);
      *p = '/';
    }
  }
  ck_assert(mkdir(buf, 0700) == 0 || errno == EEXIST);
}

static void write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

/* Removes the fake tree made under root (at most a few levels deep). */
static void remove_tree(const char *root)
{
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  ck_assert_int_eq(system(cmd), 0);
}

/* A fake cgroup root and a fake /proc/self/cgroup (the reader takes both as parameters), so that
   v1, v2 and hybrid systems are all tested whatever this machine has. */
START_TEST(test_cgroup_quota)
{
  char root[] = "/tmp/test_env_cgroup.XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(root));
  char proc[PATH_MAX], dir[PATH_MAX], file[PATH_MAX + 32], parent_file[PATH_MAX + 32];
  snprintf(proc, sizeof proc, "%s/proc-self-cgroup", root);

  /* Nothing to read: no quota. */
  ck_assert_uint_eq(lite_os_cgroup_quota_at(root, proc), 0);
  write_file(proc, "");
  ck_assert_uint_eq(lite_os_cgroup_quota_at(root, proc), 0);

  /* cgroup v2 */
  write_file(proc, "0::/a/b\n");
  snprintf(dir, sizeof dir, "%s/a/b", root);
  mkdir_p(dir);
  snprintf(file, sizeof file, "%s/cpu.max", dir);
  ck_assert_uint_eq(lite_os_cgroup_quota_at(root, proc), 0); /* no cpu.max at all */
  write_file(file, "max 100000\n");
  ck_assert_uint_eq(lite_os_cgroup_quota_at(root, proc), 0);
  write_file(file, "150000 100000\n");
  ck_assert_uint_eq(lite_os_cgroup_quota_at(root, proc), 2); /* 1.5 CPUs round up */
  write_file(file, "50000 100000\n");
  ck_assert_uint_eq(lite_os_cgroup_quota_at(root, proc), 1);
  write_file(file, "400000 100000\n");
  ck_assert_uint_eq(lite_os_cgroup_quota_at(root, proc), 4);
  /* A smaller quota higher up the hierarchy limits this process too. */
  snprintf(parent_file, sizeof parent_file, "%s/cpu.max", root);
  write_file(parent_file, "100000 100000\n");
  ck_assert_uint_eq(lite_os_cgroup_quota_at(root, proc), 1);
  unlink(parent_file);

  /* cgroup v1: the cpu controller (here with cpuacct) at ROOT/cpu, quota and period apart. A
     hybrid system also has the v2 line, whose tree holds no cpu controller: v1 wins. */
  write_file(proc, "9:pids:/x\n4:cpu,cpuacct:/c/d\n3:cpuset:/\n0::/a/b\n");
  snprintf(dir, sizeof dir, "%s/cpu/c/d", root);
  mkdir_p(dir);
  ck_assert_uint_eq(lite_os_cgroup_quota_at(root, proc), 0); /* no files: none */
  snprintf(file, sizeof file, "%s/cpu.cfs_quota_us", dir);
  write_file(file, "-1\n");
  snprintf(parent_file, sizeof parent_file, "%s/cpu.cfs_period_us", dir);
  write_file(parent_file, "100000\n");
  ck_assert_uint_eq(lite_os_cgroup_quota_at(root, proc), 0); /* -1: no quota */
  write_file(file, "250000\n");
  ck_assert_uint_eq(lite_os_cgroup_quota_at(root, proc), 3); /* 2.5 CPUs round up */
  write_file(parent_file, "50000\n");
  ck_assert_uint_eq(lite_os_cgroup_quota_at(root, proc), 5);
  /* The group at the mount's top (a container's own, where the path is the host's). */
  snprintf(file, sizeof file, "%s/cpu/cpu.cfs_quota_us", root);
  write_file(file, "100000\n");
  snprintf(parent_file, sizeof parent_file, "%s/cpu/cpu.cfs_period_us", root);
  write_file(parent_file, "100000\n");
  ck_assert_uint_eq(lite_os_cgroup_quota_at(root, proc), 1);
  /* v1 with the controller alone on its line. */
  write_file(proc, "2:cpu:/\n");
  ck_assert_uint_eq(lite_os_cgroup_quota_at(root, proc), 1);

  /* The real /proc/self/cgroup against an empty root: no quota. */
  snprintf(dir, sizeof dir, "%s/empty", root);
  mkdir_p(dir);
  ck_assert_uint_eq(lite_os_cgroup_cpu_quota(dir), 0);
  remove_tree(root);
}
END_TEST

/* ---------------------------------------------------------------- the ICV API (icv.c) */

START_TEST(test_icv_num_threads)
{
  omp_set_num_threads(5);
  ck_assert_int_eq(omp_get_max_threads(), 5);
  omp_set_num_threads(0); /* libgomp makes a count below 1 into 1 */
  ck_assert_int_eq(omp_get_max_threads(), 1);
  omp_set_num_threads(-7);
  ck_assert_int_eq(omp_get_max_threads(), 1);
  omp_set_num_threads(100000); /* kept; the team size is clamped at fork */
  ck_assert_int_eq(omp_get_max_threads(), 100000);
  ck_assert_int_eq(omp_get_num_procs(), (int)lite_os_affinity_cpus());
}
END_TEST

START_TEST(test_icv_levels)
{
  ck_assert_int_eq(omp_get_supported_active_levels(), 255);
  omp_set_max_active_levels(4);
  ck_assert_int_eq(omp_get_max_active_levels(), 4);
  ck_assert(omp_get_nested());
  omp_set_max_active_levels(-1); /* ignored */
  ck_assert_int_eq(omp_get_max_active_levels(), 4);
  omp_set_max_active_levels(1000);
  ck_assert_int_eq(omp_get_max_active_levels(), 255);
  omp_set_max_active_levels(3);
  omp_set_nested(1); /* always the supported maximum, as libgomp and OpenMP 5.0 say */
  ck_assert_int_eq(omp_get_max_active_levels(), 255);
  omp_set_nested(0);
  ck_assert_int_eq(omp_get_max_active_levels(), 1);
  ck_assert(!omp_get_nested());
  omp_set_max_active_levels(0);
  omp_set_nested(0); /* only lowers */
  ck_assert_int_eq(omp_get_max_active_levels(), 0);
  ck_assert(!omp_get_nested());
}
END_TEST

static void assert_get_schedule(unsigned kind, int chunk)
{
  omp_sched_t k;
  int c;
  omp_get_schedule(&k, &c);
  ck_assert_uint_eq((unsigned)k, kind);
  ck_assert_int_eq(c, chunk);
}

START_TEST(test_icv_schedule)
{
  omp_set_schedule(omp_sched_static, 5);
  assert_get_schedule(omp_sched_static, 5);
  omp_set_schedule(omp_sched_auto, 7); /* auto keeps the stored chunk */
  assert_get_schedule(omp_sched_auto, 5);
  omp_set_schedule(omp_sched_dynamic, 0); /* default chunk: reported as 1, as libgomp does */
  assert_get_schedule(omp_sched_dynamic, 1);
  omp_set_schedule(omp_sched_guided, -4);
  assert_get_schedule(omp_sched_guided, 1);
  omp_set_schedule(omp_sched_static, -4);
  assert_get_schedule(omp_sched_static, 0);
  omp_set_schedule(omp_sched_guided | omp_sched_monotonic, 3);
  assert_get_schedule(omp_sched_guided | omp_sched_monotonic, 3);
  omp_set_schedule((omp_sched_t)9, 8); /* unknown kind: ignored */
  assert_get_schedule(omp_sched_guided | omp_sched_monotonic, 3);
  omp_set_schedule(omp_sched_auto, 0);
  assert_get_schedule(omp_sched_auto, 3);
}
END_TEST

START_TEST(test_icv_misc)
{
  omp_set_dynamic(5);
  ck_assert_int_eq(omp_get_dynamic(), 1);
  omp_set_dynamic(0);
  ck_assert_int_eq(omp_get_dynamic(), 0);

  lite_self()->icv.thread_limit = UINT_MAX;
  ck_assert_int_eq(omp_get_thread_limit(), INT_MAX);
  lite_self()->icv.thread_limit = 6;
  ck_assert_int_eq(omp_get_thread_limit(), 6);
  lite_self()->icv.bind = omp_proc_bind_spread;
  ck_assert_int_eq(omp_get_proc_bind(), omp_proc_bind_spread);

  omp_set_default_device(4);
  ck_assert_int_eq(omp_get_default_device(), 4);
  omp_set_default_device(-3); /* libgomp 12: negative becomes 0 */
  ck_assert_int_eq(omp_get_default_device(), 0);
  ck_assert_int_eq(omp_get_num_devices(), 0);
  ck_assert_int_eq(omp_get_initial_device(), 0);
  ck_assert_int_eq(omp_get_device_num(), 0);
  ck_assert_int_eq(omp_is_initial_device(), 1);

  ck_assert_int_eq(omp_get_num_teams(), 1);
  ck_assert_int_eq(omp_get_team_num(), 0);
  omp_set_num_teams(3);
  ck_assert_int_eq(omp_get_max_teams(), 3);
  omp_set_num_teams(-1); /* ignored */
  ck_assert_int_eq(omp_get_max_teams(), 3);
  omp_set_num_teams(0);
  ck_assert_int_eq(omp_get_max_teams(), 0);
  omp_set_teams_thread_limit(6);
  ck_assert_int_eq(omp_get_teams_thread_limit(), 6);
  omp_set_teams_thread_limit(-2); /* ignored */
  ck_assert_int_eq(omp_get_teams_thread_limit(), 6);

  lite_env.cancellation = true;
  lite_env.max_task_priority = 9;
  ck_assert_int_eq(omp_get_cancellation(), 1);
  ck_assert_int_eq(omp_get_max_task_priority(), 9);
}
END_TEST

/* ---------------------------------------------------------------- runner */

static Suite *env_suite(void)
{
  Suite *s = suite_create("env");
  TCase *parsers = tcase_create("parsers");
  tcase_add_test(parsers, test_parse_bool);
  tcase_add_test(parsers, test_parse_ulong);
  tcase_add_test(parsers, test_parse_stacksize);
  tcase_add_test(parsers, test_parse_spincount);
  tcase_add_test(parsers, test_parse_keywords);
  tcase_add_test(parsers, test_parse_nthreads_list);
  tcase_add_test(parsers, test_parse_proc_bind_list);
  tcase_add_test(parsers, test_parse_schedule);
  suite_add_tcase(s, parsers);

  TCase *env = tcase_create("lite_env_parse");
  tcase_add_test(env, test_env_defaults);
  tcase_add_test(env, test_env_good_values);
  tcase_add_test(env, test_env_bad_values);
  tcase_add_test(env, test_env_warning_text);
  tcase_add_test(env, test_env_switches);
  tcase_add_test(env, test_env_heap_keep);
  tcase_add_test(env, test_env_profile);
  tcase_add_test(env, test_env_profile_secure);
  tcase_add_test(env, test_env_nthreads_clamped);
  tcase_add_test(env, test_env_active_levels_rule);
  tcase_add_test(env, test_env_wait_policy);
  tcase_add_test(env, test_env_stacksize);
  tcase_add_test(env, test_env_thread_limit_saturates);
  suite_add_tcase(s, env);

  TCase *display = tcase_create("display");
  tcase_add_test(display, test_display_defaults);
  tcase_add_test(display, test_display_kmp);
  tcase_add_test(display, test_display_values);
  tcase_add_test(display, test_display_schedule);
  tcase_add_test(display, test_env_init_displays);
  suite_add_tcase(s, display);

  TCase *cgroup = tcase_create("cgroup");
  tcase_add_test(cgroup, test_cgroup_quota);
  suite_add_tcase(s, cgroup);

  TCase *icv = tcase_create("icv");
  tcase_add_test(icv, test_icv_num_threads);
  tcase_add_test(icv, test_icv_levels);
  tcase_add_test(icv, test_icv_schedule);
  tcase_add_test(icv, test_icv_misc);
  suite_add_tcase(s, icv);
  return s;
}

int main(void)
{
  SRunner *runner = srunner_create(env_suite());
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
