/* Unit tests of affinity/home.c and its callers: each member's slot, thread state and task queue
   are on pages of their own and asked for, by that member's own thread, on the node of the CPU
   it runs on; so are its stack and static TLS (glibc's pages).

   This machine has one NUMA node, so the test replaces the machine: a synthetic hwloc topology
   of two nodes of one CPU each (HWLOC_SYNTHETIC, which the runtime's topology reads), and a node
   count of 2; the request for pages is recorded (which block, which node, by which thread, on
   which CPU) instead of sent to the kernel. Whatever CPUs the workers land on, each request must
   come from the block's own member and name the node of the CPU the runtime found it on.
   Every test runs in its own process (Check's fork mode). No assertion depends on timing. */
#include "internal.h"
#include "task_queue.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEAM 4
#define MAX_MOVES 256

struct move {
  void *start;
  size_t len;
  int node;
  int tid;
  int cpu;
};
static pthread_mutex_t moves_lock = PTHREAD_MUTEX_INITIALIZER;
static struct move moves[MAX_MOVES];
static int nmoves;

/* The CPU the runtime looked up last in this thread: the thread may move before the request,
   so the request is checked against the CPU the runtime saw, not the one it runs on then. */
static __thread int asked_cpu = -1;
static int (*real_node_of_cpu)(int cpu);

static int node_of_cpu_noted(int cpu)
{
  asked_cpu = cpu;
  return real_node_of_cpu(cpu);
}

static unsigned two_nodes(void) { return 2; }
static unsigned one_node(void) { return 1; }

static void record_move(void *start, size_t len, int node)
{
  pthread_mutex_lock(&moves_lock);
  if (nmoves < MAX_MOVES)
    moves[nmoves++] = (struct move){start, len, node, lite_os_gettid(), asked_cpu};
  pthread_mutex_unlock(&moves_lock);
}

/* What each member was, seen from inside the region. */
struct seen {
  int tid[TEAM];
  struct lite_thread *thr[TEAM];
  void *stack[TEAM], *tls[TEAM];
};

/* A threadprivate-like variable: in the static TLS block at the top of each thread's stack. */
static __thread int member_tls;

static void task_fn(void *arg) { (void)arg; }

static void member_fn(void *arg)
{
  struct seen *s = arg;
  int id = omp_get_thread_num();
  s->tid[id] = lite_os_gettid();
  s->thr[id] = lite_self();
  int local = id;
  s->stack[id] = &local;
  s->tls[id] = &member_tls;
  /* A deferred task: the member's queue is made now, by the member. */
  GOMP_task(task_fn, NULL, NULL, 0, 1, true, 0, NULL, 0, NULL);
  GOMP_barrier();
}

static void use_two_nodes(void)
{
  ck_assert_int_eq(setenv("HWLOC_SYNTHETIC", "numa:2 core:1 pu:1", 1), 0);
  lite_home_ops.nodes = two_nodes;
  real_node_of_cpu = lite_home_ops.node_of_cpu;
  lite_home_ops.node_of_cpu = node_of_cpu_noted;
  lite_home_ops.move = record_move;
  lite_home_forget();
}

/* The requests made for memory that holds the line at p: each by tid, each naming the node of the
   CPU the runtime found its caller on (in this topology CPU c is node c). Returns how many there
   were. */
static int check_moves_of(const void *p, int tid)
{
  int count = 0;
  pthread_mutex_lock(&moves_lock);
  for (int i = 0; i < nmoves; i++) {
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    if ((uintptr_t)moves[i].start > (uintptr_t)p ||
        (uintptr_t)moves[i].start + moves[i].len <= (uintptr_t)p)
      continue;
    count++;
    ck_assert_msg(moves[i].tid == tid, "block %p asked for by thread %d, its member is %d", p,
                  moves[i].tid, tid);
    ck_assert_msg(moves[i].node == moves[i].cpu, "block %p asked on node %d from CPU %d", p,
                  moves[i].node, moves[i].cpu);
    ck_assert_int_eq((uintptr_t)moves[i].start % page, 0);
    ck_assert_uint_ge((uintptr_t)moves[i].start + moves[i].len, (uintptr_t)p + 64);
  }
  pthread_mutex_unlock(&moves_lock);
  return count;
}

START_TEST(test_members_home_their_own_state)
{
  use_two_nodes();
  struct seen s;
  memset(&s, 0, sizeof s);
  lite_self()->icv.dynamic = false;
  GOMP_parallel(member_fn, &s, TEAM, 0);
  struct lite_pool *pool = lite_self()->pools[0];
  ck_assert_ptr_nonnull(pool);
  for (unsigned id = 1; id < TEAM; id++) {
    ck_assert_int_ne(s.tid[id], 0);
    ck_assert_int_eq(atomic_load(&pool->slots[id]->tid), s.tid[id]);
    ck_assert_msg(check_moves_of(pool->slots[id], s.tid[id]) >= 1, "slot %u never homed", id);
    /* Its part of every ring entry's loop, which it takes chunks from (sched/). */
    for (unsigned k = 0; k < LITE_WS_RING; k++)
      ck_assert_msg(check_moves_of(&pool->slots[id]->ranges[k], s.tid[id]) >= 1,
                    "range %u of member %u never homed", k, id);
    ck_assert_msg(check_moves_of(s.thr[id], s.tid[id]) >= 1, "thread %u never homed", id);
    struct lite_member_q *mq = lite_tq_member_queue(&pool->team_storage.tasks, id);
    ck_assert_ptr_nonnull(mq);
    ck_assert_msg(check_moves_of(mq, s.tid[id]) >= 1, "queue %u never homed", id);
    /* Its stack and static TLS, which glibc set up from the leader (issue 47). */
    ck_assert_msg(check_moves_of(s.stack[id], s.tid[id]) >= 1, "stack %u never homed", id);
    ck_assert_msg(check_moves_of(s.tls[id], s.tid[id]) >= 1, "TLS %u never homed", id);
  }
  /* The leader's state is where the leader runs: nothing asked for it. */
  ck_assert_int_eq(check_moves_of(pool->slots[0], lite_os_gettid()), 0);
  ck_assert_int_eq(check_moves_of(s.thr[0], lite_os_gettid()), 0);
}
END_TEST

/* On one node nothing is asked of the kernel. */
START_TEST(test_one_node_asks_nothing)
{
  lite_home_ops.nodes = one_node;
  lite_home_ops.move = record_move;
  lite_home_forget();
  struct seen s;
  lite_self()->icv.dynamic = false;
  GOMP_parallel(member_fn, &s, TEAM, 0);
  ck_assert_int_eq(nmoves, 0);
}
END_TEST

/* Blocks are zeroed, on pages of their own, on a line, and two blocks in a row start at
   different offsets in their pages (cache colouring). */
START_TEST(test_alloc_pages)
{
  long page = sysconf(_SC_PAGESIZE);
  unsigned char *a = lite_home_alloc(100), *b = lite_home_alloc(100);
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_nonnull(b);
  ck_assert_int_eq((uintptr_t)a % 64, 0);
  ck_assert_int_eq((uintptr_t)b % 64, 0);
  ck_assert_int_ne((uintptr_t)a % (uintptr_t)page, (uintptr_t)b % (uintptr_t)page);
  ck_assert((uintptr_t)b / (uintptr_t)page != (uintptr_t)a / (uintptr_t)page);
  for (long i = 0; i < 100; i++)
    ck_assert_int_eq(a[i] | b[i], 0);
  a[99] = 1;
  lite_home_free(a, 100);
  lite_home_free(b, 100);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("home");
  TCase *tc = tcase_create("home");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_members_home_their_own_state);
  tcase_add_test(tc, test_one_node_asks_nothing);
  tcase_add_test(tc, test_alloc_pages);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
