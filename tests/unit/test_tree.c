/* Unit tests for affinity/tree.c: the tree barrier's shape on synthetic machines (hwloc), for
   teams of 2 to 256, bound (member i on CPU i, as OMP_PLACES=threads with close puts them) and
   unbound (members wherever they last ran), with the expected parents worked out by hand. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "affinity/affinity.h"

/* 2 packages x 2 NUMA nodes x 4 L3 caches x 8 cores x 2 threads: 256 CPUs. CPU c is thread
   c % 2 of core c / 2, in L3 c / 16, NUMA node c / 64, package c / 128. */
#define BIG "pack:2 numa:2 l3:4 core:8 pu:2"
/* One package of 8 L3 domains of 8 single-thread cores: 64 CPUs. */
#define SIXTY_FOUR_CORES "pack:1 numa:1 l3:8 core:8 pu:1"

/* tests/vm's numa16 guest: 2 packages of 2 L3 domains (a NUMA node each) of 4 cores. */
#define GUEST_NUMA16 "pack:2 l3:2 numa:1 l2:4 l1d:1 core:1 pu:1"

enum { FANIN = 4 };

static void load(struct lite_topo *t, const char *desc, const int *allowed, unsigned nallowed)
{
  ck_assert_msg(lite_topo_load(t, desc, allowed, nallowed), "cannot load %s", desc);
}

static void build(struct lite_tree *tree, const struct lite_topo *t, const int *cpus, unsigned n)
{
  ck_assert(lite_tree_build(tree, t, cpus, n, FANIN));
  ck_assert_uint_eq(tree->n, n);
}

/* Member i on CPU i. */
static int *bound_cpus(unsigned n)
{
  int *cpus = malloc(n * sizeof *cpus);
  for (unsigned i = 0; i < n; i++)
    cpus[i] = (int)i;
  return cpus;
}

static int object(const struct lite_topo *t, int cpu, int level)
{
  const struct lite_topo_cpu *c = lite_topo_find(t, cpu);
  if (c == NULL)
    return -1;
  return level == 0 ? c->package : level == 1 ? c->numa : level == 2 ? c->l3 : c->core;
}

/* What every tree must be, whatever the placement: parents below their children; the children
   lists are the parents turned around; at most FANIN children per member from each level
   (FANIN per level and four levels, plus the threads of a core); and for every package, NUMA
   node, L3 and core, exactly one member has its parent outside it (the group's leader), none
   for the group that holds member 0, so that each group's lines cross its boundary once per
   barrier each way. */
static void check_properties(const struct lite_tree *tree, const struct lite_topo *t,
                             const int *cpus)
{
  unsigned n = tree->n;
  ck_assert_uint_eq(tree->first[0], 0);
  ck_assert_uint_eq(tree->first[n], n - 1);
  for (unsigned i = 1; i < n; i++) {
    ck_assert_uint_lt(tree->parent[i], i);
    unsigned p = tree->parent[i];
    bool listed = false;
    for (unsigned k = tree->first[p]; k < tree->first[p + 1]; k++)
      listed = listed || tree->kids[k] == i;
    ck_assert_msg(listed, "member %u is not among its parent %u's children", i, p);
  }
  for (unsigned i = 0; i < n; i++)
    ck_assert_uint_le(tree->first[i + 1] - tree->first[i], 5 * FANIN);
  for (int level = 0; level < 4; level++) {
    /* For each group (by its object id), how many members report outside it. */
    for (unsigned i = 0; i < n; i++) {
      int id = object(t, cpus[i], level);
      unsigned leaving = 0;
      bool holds_zero = object(t, cpus[0], level) == id;
      for (unsigned j = 1; j < n; j++)
        if (object(t, cpus[j], level) == id && object(t, cpus[tree->parent[j]], level) != id)
          leaving++;
      ck_assert_msg(leaving == (holds_zero ? 0u : 1u),
                    "level %d, group %d: %u members report outside it", level, id, leaving);
    }
  }
}

START_TEST(test_small_teams)
{
  struct lite_topo t;
  load(&t, BIG, NULL, 0);
  struct lite_tree tree = {0};
  int *cpus = bound_cpus(3);
  build(&tree, &t, cpus, 2);
  ck_assert_uint_eq(tree.parent[1], 0);
  ck_assert_uint_eq(tree.depth, 1);
  /* CPUs 0 and 1 share core 0; CPU 2 is core 1 of the same L3: both report to 0. */
  build(&tree, &t, cpus, 3);
  ck_assert_uint_eq(tree.parent[1], 0);
  ck_assert_uint_eq(tree.parent[2], 0);
  ck_assert_uint_eq(tree.first[1], 2);
  check_properties(&tree, &t, cpus);
  free(cpus);
  lite_tree_free(&tree);
  lite_topo_free(&t);
}
END_TEST

START_TEST(test_one_l3)
{
  struct lite_topo t;
  load(&t, BIG, NULL, 0);
  struct lite_tree tree = {0};
  int *cpus = bound_cpus(16);
  build(&tree, &t, cpus, 16);
  /* Cores 0..7 led by members 0, 2, ..., 14: a heap of 4, so 2, 4, 6, 8 under 0 and 10, 12,
     14 under 2; each odd member under its core's leader, one below. */
  static const unsigned want[16] = {0, 0, 0, 2, 0, 4, 0, 6, 0, 8, 2, 10, 2, 12, 2, 14};
  for (unsigned i = 1; i < 16; i++)
    ck_assert_msg(tree.parent[i] == want[i], "parent of %u: %u, expected %u", i, tree.parent[i],
                  want[i]);
  ck_assert_uint_eq(tree.depth, 3); /* 11 -> 10 -> 2 -> 0 */
  check_properties(&tree, &t, cpus);
  free(cpus);
  lite_tree_free(&tree);
  lite_topo_free(&t);
}
END_TEST

START_TEST(test_two_sockets_256)
{
  struct lite_topo t;
  load(&t, BIG, NULL, 0);
  struct lite_tree tree = {0};
  int *cpus = bound_cpus(256);
  for (unsigned n = 255; n <= 256; n++) {
    build(&tree, &t, cpus, n);
    /* Packages: 0 and 128. NUMA nodes of package 1: 128 and 192. L3s of node 192: 192, 208,
       224, 240. Cores of L3 240: 240, 242, ..., 254 (254 alone at n = 255). */
    ck_assert_uint_eq(tree.parent[128], 0);
    ck_assert_uint_eq(tree.parent[64], 0);
    ck_assert_uint_eq(tree.parent[192], 128);
    ck_assert_uint_eq(tree.parent[16], 0);
    ck_assert_uint_eq(tree.parent[48], 0);
    ck_assert_uint_eq(tree.parent[208], 192);
    ck_assert_uint_eq(tree.parent[240], 192);
    ck_assert_uint_eq(tree.parent[242], 240);
    ck_assert_uint_eq(tree.parent[248], 240);
    ck_assert_uint_eq(tree.parent[250], 242);
    ck_assert_uint_eq(tree.parent[254], 242);
    if (n == 256)
      ck_assert_uint_eq(tree.parent[255], 254);
    /* 253 -> 252 -> 242 -> 240 -> 192 -> 128 -> 0: six transfers, one across the sockets. */
    ck_assert_uint_eq(tree.depth, 6);
    check_properties(&tree, &t, cpus);
  }
  free(cpus);
  lite_tree_free(&tree);
  lite_topo_free(&t);
}
END_TEST

START_TEST(test_sixty_four_cores)
{
  struct lite_topo t;
  load(&t, SIXTY_FOUR_CORES, NULL, 0);
  struct lite_tree tree = {0};
  int *cpus = bound_cpus(64);
  build(&tree, &t, cpus, 64);
  /* L3 leaders 0, 8, ..., 56: 8, 16, 24, 32 under 0, 40, 48, 56 under 8. Cores of L3 0:
     1..4 under 0, 5..7 under 1. */
  ck_assert_uint_eq(tree.parent[8], 0);
  ck_assert_uint_eq(tree.parent[32], 0);
  ck_assert_uint_eq(tree.parent[40], 8);
  ck_assert_uint_eq(tree.parent[56], 8);
  ck_assert_uint_eq(tree.parent[4], 0);
  ck_assert_uint_eq(tree.parent[5], 1);
  ck_assert_uint_eq(tree.parent[61], 57);
  ck_assert_uint_eq(tree.parent[57], 56);
  ck_assert_uint_eq(tree.depth, 4); /* 61 -> 57 -> 56 -> 8 -> 0 */
  check_properties(&tree, &t, cpus);
  free(cpus);
  lite_tree_free(&tree);
  lite_topo_free(&t);
}
END_TEST

/* Unbound: members wherever they last waited, in no order, some unknown (-1, a member that has
   not waited yet), several on one CPU (more members than CPUs in a group). */
START_TEST(test_unbound_scattered)
{
  struct lite_topo t;
  load(&t, BIG, NULL, 0);
  struct lite_tree tree = {0};
  static const unsigned sizes[] = {3, 16, 64, 255, 256};
  for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    unsigned n = sizes[s];
    int *cpus = malloc(n * sizeof *cpus);
    for (unsigned i = 0; i < n; i++)
      cpus[i] = i % 17 == 5 ? -1 : (int)((i * 37 + 11) % 256);
    build(&tree, &t, cpus, n);
    check_properties(&tree, &t, cpus);
    free(cpus);
  }
  /* Member 0 on the last CPU, members 1 and 2 on CPU 0's core, 3 on CPU 0 too: 1 leads package
     0 and reports to 0 across the sockets; 2 and 3 share CPU 0 with 1 and report to it. */
  int cpus[4] = {255, 0, 1, 0};
  build(&tree, &t, cpus, 4);
  ck_assert_uint_eq(tree.parent[1], 0);
  ck_assert_uint_eq(tree.parent[2], 1);
  ck_assert_uint_eq(tree.parent[3], 1);
  check_properties(&tree, &t, cpus);
  lite_tree_free(&tree);
  lite_topo_free(&t);
}
END_TEST

/* A process mask of every third CPU (an MPI launcher's, say): the topology holds only those,
   and a bound team of 64 on them groups by where they are, not by member number. */
START_TEST(test_scattered_mask)
{
  int allowed[86];
  for (unsigned i = 0; i < 86; i++)
    allowed[i] = (int)(3 * i);
  struct lite_topo t;
  load(&t, BIG, allowed, 86);
  struct lite_tree tree = {0};
  int cpus[64];
  for (unsigned i = 0; i < 64; i++)
    cpus[i] = allowed[i];
  build(&tree, &t, cpus, 64);
  /* CPUs 0..63 (members 0..21) are NUMA node 0, CPU 129 (member 43) is the first of package 1:
     it reports to 0; CPU 66 (member 22) leads NUMA node 1 under 0. */
  ck_assert_uint_eq(tree.parent[43], 0);
  ck_assert_uint_eq(tree.parent[22], 0);
  check_properties(&tree, &t, cpus);
  lite_tree_free(&tree);
  lite_topo_free(&t);
}
END_TEST

START_TEST(test_no_topology)
{
  struct lite_tree tree = {0};
  int cpus[10] = {0};
  ck_assert(lite_tree_build(&tree, NULL, cpus, 10, FANIN));
  /* One heap of 4: 1..4 under 0, 5..8 under 1, 9 under 2. */
  ck_assert_uint_eq(tree.parent[4], 0);
  ck_assert_uint_eq(tree.parent[5], 1);
  ck_assert_uint_eq(tree.parent[9], 2);
  ck_assert_uint_eq(tree.depth, 2);
  lite_tree_free(&tree);
}
END_TEST

START_TEST(test_format_guest_numa16)
{
  struct lite_topo t;
  load(&t, GUEST_NUMA16, NULL, 0);
  struct lite_tree tree = {0};
  int *cpus = bound_cpus(16);
  build(&tree, &t, cpus, 16);
  check_properties(&tree, &t, cpus);
  /* Packages led by 0 and 8, their nodes by 0, 4 and 8, 12, each node's cores under its leader:
     the line tests/vm/guest-checks.sh reads from OMP_DISPLAY_ENV=verbose. */
  static const char want[] = "16 members, depth 3: 1>0 2>0 3>0 4>0 5>4 6>4 7>4 8>0 9>8 10>8 "
                             "11>8 12>8 13>12 14>12 15>12";
  char text[256];
  ck_assert_uint_eq(lite_tree_format(&tree, text, sizeof text), strlen(want));
  ck_assert_str_eq(text, want);
  /* Cut short: NUL-terminated, the whole length still returned; nothing written for size 0. */
  ck_assert_uint_eq(lite_tree_format(&tree, text, 10), strlen(want));
  ck_assert_str_eq(text, "16 member");
  text[0] = 'x';
  ck_assert_uint_eq(lite_tree_format(&tree, text, 0), strlen(want));
  ck_assert_int_eq(text[0], 'x');
  free(cpus);
  lite_tree_free(&tree);
  lite_topo_free(&t);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("tree");
  TCase *tc = tcase_create("shapes");
  tcase_add_test(tc, test_small_teams);
  tcase_add_test(tc, test_one_l3);
  tcase_add_test(tc, test_two_sockets_256);
  tcase_add_test(tc, test_sixty_four_cores);
  tcase_add_test(tc, test_unbound_scattered);
  tcase_add_test(tc, test_scattered_mask);
  tcase_add_test(tc, test_no_topology);
  tcase_add_test(tc, test_format_guest_numa16);
  tcase_set_timeout(tc, 60);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
