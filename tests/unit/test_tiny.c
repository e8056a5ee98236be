/* Unit tests for sched/tiny.c: the list of tiny loops a pool runs on thread 0 alone. The list
   must change only at the join, and a loop whose work grew must leave it. site.c's decisions are
   fed with given measurements (as in test_site.c), so nothing depends on the machine's load. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "libomp-lite/loop_common.h"

/* A pool with a team of nthreads, and thread id of it, all zeroed but for the links. */
struct fixture {
  struct lite_pool *pool;
  struct lite_thread thr;
};

static void fixture_init(struct fixture *f, unsigned nthreads, unsigned id)
{
  f->pool = aligned_alloc(LITE_CACHE_LINE, sizeof *f->pool);
  memset(f->pool, 0, sizeof *f->pool);
  f->pool->nthreads = nthreads;
  f->pool->team_storage.pool = f->pool;
  f->pool->team_storage.nthreads = nthreads;
  f->pool->team_storage.level = 1;
  memset(&f->thr, 0, sizeof f->thr);
  f->thr.team = &f->pool->team_storage;
  f->thr.id = id;
}

static void fixture_free(struct fixture *f)
{
  for (unsigned i = 0; i < f->thr.nsolo; i++)
    if (f->thr.solo[i] != NULL) {
      free(f->thr.solo[i]->ranges);
      free(f->thr.solo[i]);
    }
  free(f->thr.solo);
  free(f->pool);
}

/* Makes site.c call (key, nthreads, count) tiny, as the ring would after a few short runs. */
static void make_tiny(void *key, unsigned nthreads, uint64_t count)
{
  struct lite_ws *ws = aligned_alloc(LITE_CACHE_LINE, sizeof *ws);
  memset(ws, 0, sizeof *ws);
  ws->nthreads = nthreads;
  ws->count = count;
  for (int i = 0; i < 4 && !lite_site_is_tiny(key, nthreads, count); i++) {
    ws->handout = LITE_HANDOUT_OWN;
    ws->handout = lite_site_plan(ws, key, NULL);
    if (ws->start_ns != 0) {
      atomic_store(&ws->min_busy_ns, 300);
      atomic_store(&ws->max_busy_ns, 300);
      atomic_store(&ws->last_done_ns, ws->start_ns + 800);
    }
    lite_site_loop_done(ws);
  }
  ck_assert(lite_site_is_tiny(key, nthreads, count));
  free(ws);
}

/* The first member of a ring loop that site.c set up whole notes it. */
static void note_whole(struct fixture *f, struct lite_loop_request *req, uint64_t count)
{
  struct lite_ws ws;
  memset(&ws, 0, sizeof ws);
  ws.handout = LITE_HANDOUT_WHOLE;
  ws.count = count;
  lite_tiny_note(&f->thr, &ws, req);
}

START_TEST(test_listed_only_at_the_join)
{
  lite_env.tiny_loops = true;
  struct fixture f;
  fixture_init(&f, 2, 1);
  void *key = (void *)0x2001;
  struct lite_loop_request req = {LITE_SCHED_DYNAMIC, false, false, 1, key, false};
  make_tiny(key, 2, 64);
  ck_assert(!lite_tiny_in_team(&f.thr, &req, 64));
  note_whole(&f, &req, 64);
  /* Noted, but the region is still running: members must keep using the ring. */
  ck_assert(!lite_tiny_in_team(&f.thr, &req, 64));
  lite_tiny_join(f.pool);
  ck_assert_uint_eq(f.pool->ntiny, 1);
  ck_assert(lite_tiny_in_team(&f.thr, &req, 64));
  /* Another trip count or team size, or a schedule that is not explicitly nonmonotonic: no. */
  ck_assert(!lite_tiny_in_team(&f.thr, &req, 65));
  struct lite_loop_request mono = req, runtime = req, stat = req;
  mono.monotonic = true;
  runtime.from_icv = true;
  stat.kind = LITE_SCHED_STATIC;
  ck_assert(!lite_tiny_in_team(&f.thr, &mono, 64));
  ck_assert(!lite_tiny_in_team(&f.thr, &runtime, 64));
  ck_assert(!lite_tiny_in_team(&f.thr, &stat, 64));
  f.pool->team_storage.nthreads = 3;
  ck_assert(!lite_tiny_in_team(&f.thr, &req, 64));
  /* Noting it again does not list it twice. */
  note_whole(&f, &req, 64);
  lite_tiny_join(f.pool);
  ck_assert_uint_eq(f.pool->ntiny, 1);
  fixture_free(&f);
}
END_TEST

START_TEST(test_members_take_their_share)
{
  lite_env.tiny_loops = true;
  struct fixture f;
  fixture_init(&f, 2, 1);
  void *key = (void *)0x2002;
  struct lite_loop_request req = {LITE_SCHED_GUIDED, false, false, 4, key, false};
  make_tiny(key, 2, 64);
  note_whole(&f, &req, 64);
  lite_tiny_join(f.pool);
  /* Thread 1 has no iterations, and its worksharing count goes on as with the ring. */
  ck_assert(lite_tiny_in_team(&f.thr, &req, 64));
  unsigned before = f.thr.ws_count;
  ck_assert_ptr_null(lite_tiny_begin(&f.thr));
  ck_assert_uint_eq(f.thr.ws_count, before + 1);
  ck_assert_ptr_null(f.thr.ws);
  /* Thread 0 gets every iteration in one chunk, then nothing. */
  f.thr.id = 0;
  ck_assert(lite_tiny_in_team(&f.thr, &req, 64));
  struct lite_ws *ws = lite_tiny_begin(&f.thr);
  ck_assert_ptr_nonnull(ws);
  ck_assert_uint_eq(f.thr.ws_count, before + 2);
  lite_iter_init_long(ws, 10, 74, 1);
  lite_tiny_setup(&f.thr, ws);
  uint64_t lo, hi;
  ck_assert(lite_sched_next(&f.thr, ws, &lo, &hi));
  ck_assert_uint_eq(lo, 0);
  ck_assert_uint_eq(hi, 64);
  ck_assert(!lite_sched_next(&f.thr, ws, &lo, &hi));
  fixture_free(&f);
}
END_TEST

START_TEST(test_grown_loop_leaves_at_the_join)
{
  lite_env.tiny_loops = true;
  struct fixture f;
  fixture_init(&f, 2, 0);
  void *key = (void *)0x2003;
  struct lite_loop_request req = {LITE_SCHED_DYNAMIC, false, false, 1, key, false};
  make_tiny(key, 2, 64);
  note_whole(&f, &req, 64);
  lite_tiny_join(f.pool);
  ck_assert_uint_eq(f.pool->ntiny, 1);
  /* Thread 0 runs it until a measured run (one in eight) took 1 ms. */
  bool measured = false;
  for (int run = 0; run < 16 && !measured; run++) {
    ck_assert(lite_tiny_in_team(&f.thr, &req, 64));
    struct lite_ws *ws = lite_tiny_begin(&f.thr);
    lite_iter_init_long(ws, 0, 64, 1);
    lite_tiny_setup(&f.thr, ws);
    if (f.thr.tiny_start_ns != 0) {
      f.thr.tiny_start_ns -= 1000000;
      measured = true;
    }
    lite_loop_finish(&f.thr, false);
    ck_assert_uint_eq(f.thr.tiny_start_ns, 0);
  }
  ck_assert(measured);
  /* Still listed until the join: the other members may be reading the list. */
  ck_assert(lite_tiny_in_team(&f.thr, &req, 64));
  ck_assert(!lite_site_is_tiny(key, 2, 64));
  lite_tiny_join(f.pool);
  ck_assert_uint_eq(f.pool->ntiny, 0);
  ck_assert(!lite_tiny_in_team(&f.thr, &req, 64));
  fixture_free(&f);
}
END_TEST

START_TEST(test_switch_off)
{
  lite_env.tiny_loops = true;
  struct fixture f;
  fixture_init(&f, 2, 0);
  void *key = (void *)0x2004;
  struct lite_loop_request req = {LITE_SCHED_DYNAMIC, false, false, 1, key, false};
  make_tiny(key, 2, 64);
  lite_env.tiny_loops = false;
  note_whole(&f, &req, 64);
  lite_tiny_join(f.pool);
  ck_assert(!lite_tiny_in_team(&f.thr, &req, 64));
  lite_env.tiny_loops = true;
  fixture_free(&f);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("tiny");
  TCase *tc = tcase_create("list");
  tcase_add_test(tc, test_listed_only_at_the_join);
  tcase_add_test(tc, test_members_take_their_share);
  tcase_add_test(tc, test_grown_loop_leaves_at_the_join);
  tcase_add_test(tc, test_switch_off);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
