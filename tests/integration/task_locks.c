/* task_locks: tasks that hold a lock while the runtime may run other tasks on their thread
   (issues 50 and 51). Each case hung or crashed on libomp-lite before, and runs on libgomp:
     yield KIND     a task holding KIND (lock, nest, critical) makes a child that wants it, then
                    calls taskyield: the yield must not run the child under the lock
     children KIND  a task holding KIND makes 50 children that take it, releases it, then
                    waits: the throttle must not run a child at once under the lock
     chain N        a chain of N tasks per member, each making the next and then calling
                    taskyield, no taskwait: the yields must not nest a chain on one stack
   Every member of the team runs the probe at once, with its own lock (the critical ones share
   the name), ROUNDS times; alarm() turns a hang into a failure well before the harness's
   timeout. */
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lite_check.h"

#define ROUNDS 20
#define CHILDREN 50
#define MAX_MEMBERS 64

enum kind { LOCK, NEST, CRITICAL };

static omp_lock_t locks[MAX_MEMBERS];
static omp_nest_lock_t nest_locks[MAX_MEMBERS];
static long counts[MAX_MEMBERS];

static void take(enum kind k, int i)
{
  if (k == LOCK)
    omp_set_lock(&locks[i]);
  else if (k == NEST)
    omp_set_nest_lock(&nest_locks[i]);
}

static void give(enum kind k, int i)
{
  if (k == LOCK)
    omp_unset_lock(&locks[i]);
  else if (k == NEST)
    omp_unset_nest_lock(&nest_locks[i]);
}

/* The child: takes its parent's lock (or the critical), counts, lets go. */
static void child(enum kind k, int i)
{
  if (k == CRITICAL) {
#pragma omp critical(task_locks)
    counts[i]++;
  } else {
    take(k, i);
    counts[i]++;
    give(k, i);
  }
}

/* The parent's body inside its lock: makes n children, yields if asked. */
static void inside(enum kind k, int i, int n, int yields)
{
  for (int c = 0; c < n; c++) {
#pragma omp task firstprivate(k, i)
    child(k, i);
  }
  for (int y = 0; y < yields; y++) {
#pragma omp taskyield
  }
}

static void parent(enum kind k, int i, int n, int yields)
{
  if (k == CRITICAL) {
#pragma omp critical(task_locks)
    inside(k, i, n, yields);
  } else {
    take(k, i);
    inside(k, i, n, yields);
    give(k, i);
  }
#pragma omp taskwait
}

static void probe(enum kind k, int n, int yields)
{
  int members = 0;
  for (int r = 0; r < ROUNDS; r++) {
    memset(counts, 0, sizeof counts);
#pragma omp parallel
    {
      int i = omp_get_thread_num();
#pragma omp single
      members = omp_get_num_threads();
      if (i < MAX_MEMBERS) {
#pragma omp task firstprivate(k, i, n, yields)
        parent(k, i, n, yields);
      }
    }
    for (int i = 0; i < members && i < MAX_MEMBERS; i++)
      if (counts[i] != n)
        lite_fail("round %d, member %d: %ld children ran, expected %d", r, i, counts[i], n);
  }
}

static long chain_done;

static void chain_link(long left)
{
  if (left > 1) {
#pragma omp task firstprivate(left)
    chain_link(left - 1);
  }
#pragma omp taskyield
#pragma omp atomic
  chain_done++;
}

/* Every member starts a chain, so that no idle member steals the next link before the yield. */
static void chain(long n)
{
  int members = 0;
#pragma omp parallel
  {
#pragma omp single
    members = omp_get_num_threads();
#pragma omp task firstprivate(n)
    chain_link(n);
  }
  if (chain_done != n * members)
    lite_fail("%ld tasks of the chains ran, expected %ld", chain_done, n * members);
}

static enum kind kind_of(const char *s)
{
  if (strcmp(s, "lock") == 0)
    return LOCK;
  if (strcmp(s, "nest") == 0)
    return NEST;
  if (strcmp(s, "critical") == 0)
    return CRITICAL;
  fprintf(stderr, "task_locks: unknown kind %s\n", s);
  exit(2);
}

int main(int argc, char **argv)
{
  LITE_CHECK("task_locks");
  if (argc < 3) {
    fprintf(stderr, "usage: task_locks yield|children lock|nest|critical, or chain N\n");
    return 2;
  }
  signal(SIGALRM, SIG_DFL);
  alarm(30); /* a hang fails here, sooner than the harness's timeout */
  for (int i = 0; i < MAX_MEMBERS; i++) {
    omp_init_lock(&locks[i]);
    omp_init_nest_lock(&nest_locks[i]);
  }
  if (strcmp(argv[1], "yield") == 0)
    probe(kind_of(argv[2]), 1, 10);
  else if (strcmp(argv[1], "children") == 0)
    probe(kind_of(argv[2]), CHILDREN, 0);
  else if (strcmp(argv[1], "chain") == 0)
    chain(atol(argv[2]));
  else {
    fprintf(stderr, "task_locks: unknown case %s\n", argv[1]);
    return 2;
  }
  printf("task_locks %s %s: ok\n", argv[1], argv[2]);
  return 0;
}
