/* The shape of a team's tree barrier (libomp-lite/barrier_tree.c): who gathers whose arrival,
   and who releases whom, from where the members run.

   Members are grouped by the topology from the outside in: package, NUMA node, L3 cache, core.
   A group's leader is its lowest-numbered member (member 0 leads every group it is in). Inside a
   group, the leaders of its subgroups form a heap of FANIN children per node under the group's
   leader, and each subgroup is built the same way one level down; the members of one core (its
   hardware threads) hang under the core's leader the same way. So every line that crosses a
   package, a NUMA node or an L3 cache is crossed once per group and barrier, by the group's
   leader, and a member waits on at most FANIN children per level.

   Critical path of a gather (the release is the same path down): one transfer per heap level
   of each topology level that has more than one group. 2 packages x 2 NUMA x 4 L3 x 8 cores x
   2 PUs (256 members, fan-in 4): core 1, L3 2 (8 cores), NUMA 1 (4 L3s), package 1 (2 NUMA),
   machine 1 (2 packages): 6 transfers, one of them across the sockets; the flat gather has the
   leader read 255 lines one after another, 128 of them from the other socket. Children of one
   parent arrive in parallel and their lines are polled one after the other, so a parent's
   wait is its slowest child's, not their sum. See docs/architecture.md, "Many cores". */
#include "affinity/affinity.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LEVEL_PACKAGE, LEVEL_NUMA, LEVEL_L3, LEVEL_CORE, NLEVELS };

/* The id of the object at level that holds member m's CPU; -1 for a CPU the topology does not
   hold (unknown CPUs make one group of their own at every level). */
static int level_id(const struct lite_topo *t, const int *cpus, unsigned m, int level)
{
  const struct lite_topo_cpu *c = t != NULL ? lite_topo_find(t, cpus[m]) : NULL;
  if (c == NULL)
    return -1;
  switch (level) {
  case LEVEL_PACKAGE: return c->package;
  case LEVEL_NUMA: return c->numa;
  case LEVEL_L3: return c->l3;
  default: return c->core;
  }
}

/* Hangs leaders[1..n) under leaders[0] as a heap of fanin children per node. */
static void heap(const unsigned *leaders, unsigned n, unsigned fanin, unsigned *parent)
{
  for (unsigned j = 1; j < n; j++)
    parent[leaders[j]] = leaders[(j - 1) / fanin];
}

struct builder {
  const struct lite_topo *t;
  const int *cpus;
  unsigned fanin;
  unsigned *parent;
};

/* Builds the tree of the members m[0..n) (ascending, m[0] their leader) from level on. The
   list is reordered in place so that each group is contiguous. */
static void build(struct builder *b, unsigned *m, unsigned n, int level)
{
  if (n <= 1)
    return;
  if (level == NLEVELS) {
    heap(m, n, b->fanin, b->parent); /* the hardware threads of one core, or unknown CPUs */
    return;
  }
  /* Stable partition by the id at this level, groups in the order of their leaders. */
  unsigned *order = malloc(n * sizeof *order);
  unsigned *leaders = malloc(n * sizeof *leaders);
  unsigned *bounds = malloc((n + 1) * sizeof *bounds);
  if (order == NULL || leaders == NULL || bounds == NULL) {
    free(order);
    free(leaders);
    free(bounds);
    heap(m, n, b->fanin, b->parent); /* without memory: one heap, still a valid tree */
    return;
  }
  bool *taken = calloc(n, sizeof *taken);
  if (taken == NULL) {
    free(order);
    free(leaders);
    free(bounds);
    heap(m, n, b->fanin, b->parent);
    return;
  }
  unsigned k = 0, ngroups = 0;
  for (unsigned i = 0; i < n; i++) {
    if (taken[i])
      continue;
    int id = level_id(b->t, b->cpus, m[i], level);
    bounds[ngroups] = k;
    leaders[ngroups++] = m[i];
    for (unsigned j = i; j < n; j++)
      if (!taken[j] && level_id(b->t, b->cpus, m[j], level) == id) {
        taken[j] = true;
        order[k++] = m[j];
      }
  }
  bounds[ngroups] = n;
  free(taken);
  memcpy(m, order, n * sizeof *m);
  free(order);
  heap(leaders, ngroups, b->fanin, b->parent);
  free(leaders);
  for (unsigned g = 0; g < ngroups; g++)
    build(b, m + bounds[g], bounds[g + 1] - bounds[g], level + 1);
  free(bounds);
}

bool lite_tree_build(struct lite_tree *tree, const struct lite_topo *t, const int *cpus,
                     unsigned n, unsigned fanin)
{
  lite_tree_free(tree);
  if (n == 0 || fanin == 0)
    return false;
  tree->parent = malloc(n * sizeof *tree->parent);
  tree->first = malloc((n + 1) * sizeof *tree->first);
  tree->kids = malloc(n * sizeof *tree->kids);
  unsigned *members = malloc(n * sizeof *members);
  if (tree->parent == NULL || tree->first == NULL || tree->kids == NULL || members == NULL) {
    free(members);
    lite_tree_free(tree);
    return false;
  }
  tree->n = n;
  for (unsigned i = 0; i < n; i++)
    members[i] = i;
  tree->parent[0] = 0;
  struct builder b = {t, cpus, fanin, tree->parent};
  build(&b, members, n, LEVEL_PACKAGE);
  free(members);
  /* Children lists, ascending: a count per parent, then the placing pass. */
  memset(tree->first, 0, (n + 1) * sizeof *tree->first);
  for (unsigned i = 1; i < n; i++)
    tree->first[tree->parent[i] + 1]++;
  for (unsigned i = 0; i < n; i++)
    tree->first[i + 1] += tree->first[i];
  unsigned *at = malloc(n * sizeof *at);
  if (at == NULL) {
    lite_tree_free(tree);
    return false;
  }
  memcpy(at, tree->first, n * sizeof *at);
  for (unsigned i = 1; i < n; i++)
    tree->kids[at[tree->parent[i]]++] = i;
  free(at);
  /* Depth: a parent always has a lower number than its children (every leader is its group's
     lowest member, and a heap puts lower positions above), so one pass in member order does. */
  unsigned *depth = calloc(n, sizeof *depth);
  tree->depth = 0;
  for (unsigned i = 1; i < n && depth != NULL; i++) {
    depth[i] = depth[tree->parent[i]] + 1;
    if (depth[i] > tree->depth)
      tree->depth = depth[i];
  }
  free(depth);
  return true;
}

void lite_tree_free(struct lite_tree *tree)
{
  free(tree->parent);
  free(tree->first);
  free(tree->kids);
  memset(tree, 0, sizeof *tree);
}

/* snprintf at buf + *len, counting what does not fit, as snprintf's result does. */
static void append(char *buf, size_t size, size_t *len, const char *fmt, unsigned a, unsigned b)
{
  int k = snprintf(*len < size ? buf + *len : NULL, *len < size ? size - *len : 0, fmt, a, b);
  *len += k > 0 ? (size_t)k : 0;
}

size_t lite_tree_format(const struct lite_tree *tree, char *buf, size_t size)
{
  size_t len = 0;
  if (size > 0)
    buf[0] = '\0';
  append(buf, size, &len, "%u members, depth %u:", tree->n, tree->depth);
  for (unsigned i = 1; i < tree->n; i++)
    append(buf, size, &len, " %u>%u", i, tree->parent[i]);
  return len;
}
