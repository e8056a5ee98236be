/* Unit tests of topology.c: loading synthetic topologies (and one exported to XML), the ids of
   each CPU's core, caches, NUMA node and package, the restriction to an allowed list, this
   machine, lite_topo_distance and lite_topo_nearest_order.

   In a synthetic topology hwloc numbers the PUs in logical order (os = logical index) unless the
   description gives indexes, as the interleaved one does. The expected ids are worked out from
   the descriptions: in TWO_SOCKETS CPU n is in core n/2 (its own L2), L3 and NUMA node n/16,
   package n/32. */
#include "affinity/affinity.h"
#include "os.h"

#include <check.h>
#include <errno.h>
#include <hwloc.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* 2 packages x 2 NUMA nodes (an L3 each) x 8 cores (an L2 each) x 2 threads: 64 CPUs. */
#define TWO_SOCKETS "pack:2 numa:2 l3:1 core:8 l2:1 pu:2"
/* One package, one NUMA node, 8 L3 domains of 8 single-thread cores. */
#define SIXTY_FOUR_CORES "pack:1 numa:1 l3:8 core:8 l2:1 pu:1"
/* 4 cores of 2 threads numbered as Linux does on x86: thread siblings n and n+4. */
#define INTERLEAVED "pack:1 numa:1 core:4 pu:2(indexes=0,4,1,5,2,6,3,7)"
/* 2 L2 caches each shared by 2 cores, no L3. */
#define SHARED_L2 "pack:1 numa:1 l2:2 core:2 pu:1"
/* tests/vm's numa16 guest: 2 packages of 2 L3 domains of 4 cores; each NUMA node hangs off its
   L3 as a memory child (hwloc 2), so it is no ancestor of the PUs. */
#define GUEST_NUMA16 "pack:2 l3:2 numa:1 l2:4 l1d:1 core:1 pu:1"

static struct lite_topo load(const char *desc, const int *allowed, unsigned nallowed)
{
  struct lite_topo t;
  ck_assert_msg(lite_topo_load(&t, desc, allowed, nallowed), "cannot load %s", desc);
  return t;
}

static void check_cpu(const struct lite_topo *t, int os, int core, int l2, int l3, int numa,
                      int package)
{
  const struct lite_topo_cpu *c = lite_topo_find(t, os);
  ck_assert_msg(c != NULL, "cpu %d missing", os);
  ck_assert_int_eq(c->os, os);
  ck_assert_int_eq(c->core, core);
  ck_assert_int_eq(c->l2, l2);
  ck_assert_int_eq(c->l3, l3);
  ck_assert_int_eq(c->numa, numa);
  ck_assert_int_eq(c->package, package);
}

/* ---------------------------------------------------------------- loading */

START_TEST(test_two_sockets_ids)
{
  struct lite_topo t = load(TWO_SOCKETS, NULL, 0);
  ck_assert_uint_eq(t.ncpus, 64);
  ck_assert_int_eq(t.max_os, 63);
  for (int n = 0; n < 64; n++) {
    ck_assert_int_eq(t.cpus[n].os, n); /* logical order, os = logical index */
    check_cpu(&t, n, n / 2, n / 2, n / 16, n / 16, n / 32);
  }
  ck_assert_ptr_null(lite_topo_find(&t, 64));
  ck_assert_ptr_null(lite_topo_find(&t, -1));
  lite_topo_free(&t);
  ck_assert_uint_eq(t.ncpus, 0);
  ck_assert_ptr_null(t.cpus);
}
END_TEST

START_TEST(test_sixty_four_cores_ids)
{
  struct lite_topo t = load(SIXTY_FOUR_CORES, NULL, 0);
  ck_assert_uint_eq(t.ncpus, 64);
  for (int n = 0; n < 64; n++)
    check_cpu(&t, n, n, n, n / 8, 0, 0);
  lite_topo_free(&t);
}
END_TEST

START_TEST(test_guest_numa16_ids)
{
  struct lite_topo t = load(GUEST_NUMA16, NULL, 0);
  ck_assert_uint_eq(t.ncpus, 16);
  for (int n = 0; n < 16; n++)
    check_cpu(&t, n, n, n, n / 4, n / 4, n / 8);
  lite_topo_free(&t);
}
END_TEST

START_TEST(test_interleaved_numbers)
{
  struct lite_topo t = load(INTERLEAVED, NULL, 0);
  static const int logical_order[8] = {0, 4, 1, 5, 2, 6, 3, 7};
  ck_assert_uint_eq(t.ncpus, 8);
  ck_assert_int_eq(t.max_os, 7);
  for (int i = 0; i < 8; i++)
    ck_assert_int_eq(t.cpus[i].os, logical_order[i]);
  /* No caches in the description: -1. CPU n and n+4 share core n. */
  for (int n = 0; n < 8; n++)
    check_cpu(&t, n, n % 4, -1, -1, 0, 0);
  lite_topo_free(&t);
}
END_TEST

START_TEST(test_allowed_list_restricts)
{
  /* A scattered mask; 100 is no CPU of the machine and -1 none at all: both ignored. */
  static const int allowed[] = {63, 3, 41, 17, 100, 4, 40, -1};
  struct lite_topo t = load(TWO_SOCKETS, allowed, 8);
  static const int in_order[6] = {3, 4, 17, 40, 41, 63};
  ck_assert_uint_eq(t.ncpus, 6);
  ck_assert_int_eq(t.max_os, 63); /* the machine's, mask or not */
  for (int i = 0; i < 6; i++)
    ck_assert_int_eq(t.cpus[i].os, in_order[i]);
  check_cpu(&t, 17, 8, 8, 1, 1, 0);
  check_cpu(&t, 40, 20, 20, 2, 2, 1);
  check_cpu(&t, 41, 20, 20, 2, 2, 1);
  ck_assert_ptr_null(lite_topo_find(&t, 5));
  ck_assert_ptr_null(lite_topo_find(&t, 0));
  lite_topo_free(&t);

  /* Nothing allowed: an empty topology, not a failure. */
  t = load(TWO_SOCKETS, (int[]){200}, 1);
  ck_assert_uint_eq(t.ncpus, 0);
  ck_assert_ptr_null(lite_topo_find(&t, 0));
  lite_topo_free(&t);
}
END_TEST

START_TEST(test_bad_description_fails_empty)
{
  struct lite_topo t;
  t.ncpus = 77;
  ck_assert(!lite_topo_load(&t, "bogus:3 nonsense", NULL, 0));
  ck_assert_uint_eq(t.ncpus, 0);
  ck_assert_ptr_null(t.cpus);
  ck_assert(!lite_topo_load(&t, "", NULL, 0));
  ck_assert_uint_eq(t.ncpus, 0);
}
END_TEST

START_TEST(test_xml_file)
{
  /* Export a synthetic topology with hwloc itself, then read the file back. */
  char path[] = "/tmp/test_topology_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  close(fd);
  hwloc_topology_t h;
  ck_assert_int_eq(hwloc_topology_init(&h), 0);
  ck_assert_int_eq(hwloc_topology_set_synthetic(h, SIXTY_FOUR_CORES), 0);
  ck_assert_int_eq(hwloc_topology_load(h), 0);
  ck_assert_int_eq(hwloc_topology_export_xml(h, path, 0), 0);
  hwloc_topology_destroy(h);

  struct lite_topo t = load(path, (int[]){9, 10, 20}, 3);
  unlink(path);
  ck_assert_uint_eq(t.ncpus, 3);
  check_cpu(&t, 9, 9, 9, 1, 0, 0);
  check_cpu(&t, 20, 20, 20, 2, 0, 0);
  lite_topo_free(&t);
}
END_TEST

START_TEST(test_this_machine)
{
  /* Whatever the machine: at least one CPU, each one in this thread's mask, found by its
     number, with a core. */
  struct lite_topo t = load(NULL, NULL, 0);
  cpu_set_t mask;
  ck_assert_int_eq(sched_getaffinity(0, sizeof mask, &mask), 0);
  ck_assert_uint_ge(t.ncpus, 1);
  ck_assert_uint_le(t.ncpus, (unsigned)CPU_COUNT(&mask));
  for (unsigned i = 0; i < t.ncpus; i++) {
    ck_assert(t.cpus[i].os >= 0 && t.cpus[i].os <= t.max_os);
    ck_assert(t.cpus[i].os >= CPU_SETSIZE || CPU_ISSET(t.cpus[i].os, &mask));
    ck_assert_ptr_eq(lite_topo_find(&t, t.cpus[i].os), &t.cpus[i]);
    ck_assert_int_ge(t.cpus[i].core, 0);
  }
  int first = t.cpus[0].os;
  lite_topo_free(&t);

  /* The allowed list applies to this machine too. */
  t = load(NULL, &first, 1);
  ck_assert_uint_eq(t.ncpus, 1);
  ck_assert_int_eq(t.cpus[0].os, first);
  lite_topo_free(&t);
}
END_TEST

/* ---------------------------------------------------------------- distance */

START_TEST(test_distance_two_sockets)
{
  struct lite_topo t = load(TWO_SOCKETS, NULL, 0);
  ck_assert_int_eq(lite_topo_distance(&t, 5, 5), LITE_DIST_SAME_CPU);
  ck_assert_int_eq(lite_topo_distance(&t, 0, 1), LITE_DIST_SAME_CORE);
  ck_assert_int_eq(lite_topo_distance(&t, 0, 2), LITE_DIST_SAME_L3);
  ck_assert_int_eq(lite_topo_distance(&t, 15, 0), LITE_DIST_SAME_L3);
  ck_assert_int_eq(lite_topo_distance(&t, 0, 16), LITE_DIST_SAME_PACKAGE);
  ck_assert_int_eq(lite_topo_distance(&t, 31, 0), LITE_DIST_SAME_PACKAGE);
  ck_assert_int_eq(lite_topo_distance(&t, 0, 32), LITE_DIST_FAR);
  ck_assert_int_eq(lite_topo_distance(&t, 0, 99), LITE_DIST_FAR);
  ck_assert_int_eq(lite_topo_distance(&t, -1, 0), LITE_DIST_FAR);
  ck_assert_int_eq(lite_topo_distance(&t, -1, -1), LITE_DIST_FAR);
  lite_topo_free(&t);
}
END_TEST

START_TEST(test_distance_caches_and_numa)
{
  struct lite_topo t = load(SIXTY_FOUR_CORES, NULL, 0);
  ck_assert_int_eq(lite_topo_distance(&t, 0, 7), LITE_DIST_SAME_L3);
  ck_assert_int_eq(lite_topo_distance(&t, 0, 8), LITE_DIST_SAME_NUMA);
  ck_assert_int_eq(lite_topo_distance(&t, 63, 0), LITE_DIST_SAME_NUMA);
  lite_topo_free(&t);

  /* An L2 shared by two cores; no L3 anywhere (both -1) does not count as a shared L3. */
  t = load(SHARED_L2, NULL, 0);
  ck_assert_int_eq(lite_topo_distance(&t, 0, 1), LITE_DIST_SAME_L2);
  ck_assert_int_eq(lite_topo_distance(&t, 0, 2), LITE_DIST_SAME_NUMA);
  lite_topo_free(&t);

  /* Interleaved numbers: 1 and 5 are one core. */
  t = load(INTERLEAVED, NULL, 0);
  ck_assert_int_eq(lite_topo_distance(&t, 1, 5), LITE_DIST_SAME_CORE);
  ck_assert_int_eq(lite_topo_distance(&t, 1, 2), LITE_DIST_SAME_NUMA);
  lite_topo_free(&t);
}
END_TEST

START_TEST(test_distance_masked_cpu_is_far)
{
  struct lite_topo t = load(TWO_SOCKETS, (int[]){0, 2}, 2);
  ck_assert_int_eq(lite_topo_distance(&t, 0, 2), LITE_DIST_SAME_L3);
  ck_assert_int_eq(lite_topo_distance(&t, 0, 1), LITE_DIST_FAR); /* 1 is not the process's */
  lite_topo_free(&t);
}
END_TEST

/* ---------------------------------------------------------------- nearest order */

static void check_order(const struct lite_topo *t, const int *cpus, unsigned n, unsigned self,
                        const unsigned *want)
{
  unsigned order[16];
  for (unsigned i = 0; i < 16; i++)
    order[i] = 99;
  lite_topo_nearest_order(t, cpus, n, self, order);
  for (unsigned i = 0; i + 1 < n; i++)
    ck_assert_msg(order[i] == want[i], "self %u, order[%u] = %u, expected %u", self, i,
                  order[i], want[i]);
  ck_assert_uint_eq(order[n - 1], 99); /* nothing written past n - 1 entries */
}

START_TEST(test_nearest_order)
{
  struct lite_topo t = load(TWO_SOCKETS, NULL, 0);
  /* Members 0..5 on CPUs 0, 1, 2, 16, 32, 3. */
  static const int cpus[6] = {0, 1, 2, 16, 32, 3};
  /* From member 0: 1 (same core), then 2 and 5 (same L3, going up), 3 (same package), 4. */
  check_order(&t, cpus, 6, 0, (unsigned[]){1, 2, 5, 3, 4});
  /* From member 2 (CPU 2): 5 (CPU 3, same core); same L3 going up from 2 and wrapping: 0, 1;
     then 3, then 4. */
  check_order(&t, cpus, 6, 2, (unsigned[]){5, 0, 1, 3, 4});
  /* From member 4 (CPU 32, alone on its package): everyone far, going up and wrapping. */
  check_order(&t, cpus, 6, 4, (unsigned[]){5, 0, 1, 2, 3});
  /* An unknown CPU (-1) is far; members on the same CPU come first. */
  check_order(&t, (int[]){0, -1, 1, 0}, 4, 0, (unsigned[]){3, 2, 1});
  /* From a member whose CPU is unknown, everyone is far. */
  check_order(&t, (int[]){0, -1, 1, 0}, 4, 1, (unsigned[]){2, 3, 0});
  /* A team of one has no one to look at; a team of two, the other. */
  check_order(&t, (int[]){7}, 1, 0, NULL);
  check_order(&t, (int[]){7, 40}, 2, 1, (unsigned[]){0});
  lite_topo_free(&t);
}
END_TEST

/* A sandbox that refuses sched_getaffinity (issues 50, 51): libhwloc 2.9 retried the call for
   ever inside hwloc_topology_load. Now this machine loads at once as the online CPUs, one core
   each, and described topologies still load through hwloc. The filter is installed in the
   test's own process, which Check forks for each test (not with CK_FORK=no: then skipped). */
static int refuse_getaffinity(void)
{
  struct sock_filter prog[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_sched_getaffinity, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog fprog = {.len = sizeof prog / sizeof prog[0], .filter = prog};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return -1;
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0);
}

START_TEST(test_this_machine_sandboxed)
{
  const char *fork_mode = getenv("CK_FORK");
  if (fork_mode != NULL && strcmp(fork_mode, "no") == 0)
    return;
  if (refuse_getaffinity() != 0)
    return; /* no seccomp here */
  cpu_set_t mask;
  ck_assert_int_ne(sched_getaffinity(0, sizeof mask, &mask), 0);
  ck_assert_int_eq(lite_os_affinity_error(), EPERM);
  struct lite_topo t = load(NULL, NULL, 0);
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  ck_assert_uint_eq(t.ncpus, (unsigned)(online > 0 ? online : 1));
  for (unsigned i = 0; i < t.ncpus; i++) {
    ck_assert_int_eq(t.cpus[i].os, (int)i);
    ck_assert_int_eq(t.cpus[i].core, (int)i);
    ck_assert_int_eq(t.cpus[i].numa_os, -1);
  }
  lite_topo_free(&t);
  t = load(TWO_SOCKETS, NULL, 0);
  ck_assert_uint_eq(t.ncpus, 64);
  lite_topo_free(&t);
}
END_TEST

static Suite *topology_suite(void)
{
  Suite *s = suite_create("topology");
  TCase *tc = tcase_create("load");
  tcase_add_test(tc, test_two_sockets_ids);
  tcase_add_test(tc, test_sixty_four_cores_ids);
  tcase_add_test(tc, test_guest_numa16_ids);
  tcase_add_test(tc, test_interleaved_numbers);
  tcase_add_test(tc, test_allowed_list_restricts);
  tcase_add_test(tc, test_bad_description_fails_empty);
  tcase_add_test(tc, test_xml_file);
  tcase_add_test(tc, test_this_machine);
  tcase_add_test(tc, test_this_machine_sandboxed);
  suite_add_tcase(s, tc);
  TCase *dist = tcase_create("distance");
  tcase_add_test(dist, test_distance_two_sockets);
  tcase_add_test(dist, test_distance_caches_and_numa);
  tcase_add_test(dist, test_distance_masked_cpu_is_far);
  tcase_add_test(dist, test_nearest_order);
  suite_add_tcase(s, dist);
  return s;
}

int main(void)
{
  SRunner *sr = srunner_create(topology_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
