/* Unit tests for affinity/memory.c: the decisions of NUMA placement (which allocators map their
   blocks, how a block is laid out in its pages, which pages of a blocked allocation go to which
   node), with made-up machines of 4 nodes, since the machines the tests run on often have one
   node, where nothing of it can be observed; and one real mapping, pinned, on this machine. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "affinity/affinity.h"

/* The page size of the made-up machines (the real block's test asks the system). */
#define PAGE ((size_t)4096)

/* Part i of size bytes blocked over n parts, as an expected page count (the last page of the data
   counts whole). */
static size_t part_pages(size_t size, unsigned n, unsigned i)
{
  size_t lo, hi;
  lite_mem_blocked_part(size, PAGE, n, i, &lo, &hi);
  ck_assert_uint_le(lo, hi);
  return (hi - lo + PAGE - 1) / PAGE;
}

START_TEST(test_blocked_over_four_nodes)
{
  /* 8 pages: 2 each, part i starting at page 2i. */
  for (unsigned i = 0; i < 4; i++) {
    size_t lo, hi;
    lite_mem_blocked_part(8 * PAGE, PAGE, 4, i, &lo, &hi);
    ck_assert_uint_eq(lo, 2 * i * PAGE);
    ck_assert_uint_eq(hi, 2 * (i + 1) * PAGE);
  }
  /* 5 pages: 2, 1, 1, 1 (the first parts take the remainder, as a static schedule does). */
  ck_assert_uint_eq(part_pages(5 * PAGE, 4, 0), 2);
  for (unsigned i = 1; i < 4; i++)
    ck_assert_uint_eq(part_pages(5 * PAGE, 4, i), 1);
  /* 8 pages and one byte: 9 pages, the last partial, in part 3 which ends at the data's end. */
  size_t lo, hi;
  lite_mem_blocked_part(8 * PAGE + 1, PAGE, 4, 0, &lo, &hi);
  ck_assert_uint_eq(lo, 0);
  ck_assert_uint_eq(hi, 3 * PAGE);
  lite_mem_blocked_part(8 * PAGE + 1, PAGE, 4, 3, &lo, &hi);
  ck_assert_uint_eq(lo, 7 * PAGE);
  ck_assert_uint_eq(hi, 8 * PAGE + 1);
  /* 3 pages over 4 nodes: one page each on nodes 0-2, node 3 gets nothing. */
  for (unsigned i = 0; i < 3; i++)
    ck_assert_uint_eq(part_pages(3 * PAGE, 4, i), 1);
  lite_mem_blocked_part(3 * PAGE, PAGE, 4, 3, &lo, &hi);
  ck_assert_uint_eq(lo, hi);
  /* One byte: all of it on node 0. */
  lite_mem_blocked_part(1, PAGE, 4, 0, &lo, &hi);
  ck_assert_uint_eq(lo, 0);
  ck_assert_uint_eq(hi, 1);
  for (unsigned i = 1; i < 4; i++) {
    lite_mem_blocked_part(1, PAGE, 4, i, &lo, &hi);
    ck_assert_uint_eq(lo, hi);
  }
}
END_TEST

/* For every size up to 40 pages and some odd ones: the parts are contiguous, cover the data
   exactly, start on pages (empty ones sit at the end), differ by at most a page, and as many are used as there are pages (up
   to the node count). */
START_TEST(test_blocked_parts_cover_the_data)
{
  for (unsigned n = 1; n <= 4; n++) {
    for (size_t size = 1; size <= 40 * PAGE + 3; size += (size < 3 * PAGE ? 511 : 1237)) {
      size_t next = 0, most = 0, least = SIZE_MAX;
      unsigned used = 0;
      size_t npages = (size + PAGE - 1) / PAGE;
      for (unsigned i = 0; i < n; i++) {
        size_t lo, hi;
        lite_mem_blocked_part(size, PAGE, n, i, &lo, &hi);
        ck_assert_uint_eq(lo, next);
        if (hi > lo)
          ck_assert_uint_eq(lo % PAGE, 0);
        size_t pages = (hi - lo + PAGE - 1) / PAGE;
        if (pages > most)
          most = pages;
        if (pages < least)
          least = pages;
        used += hi > lo;
        next = hi;
      }
      ck_assert_uint_eq(next, size);
      ck_assert_uint_le(most - least, 1);
      ck_assert_uint_eq(used, npages < n ? npages : n);
    }
  }
}
END_TEST

/* The ranges a blocked mapping asks each of 4 nodes for: they tile the whole mapping in part
   order, on page boundaries, and each holds exactly its part's data pages. */
START_TEST(test_blocked_ranges_tile_the_mapping)
{
  static const size_t header = 32;
  static const size_t sizes[] = {1, PAGE, 3 * PAGE, 5 * PAGE, 8 * PAGE + 1, 100 * PAGE + 77};
  static const size_t aligns[] = {8, PAGE, 4 * PAGE};
  for (unsigned z = 0; z < sizeof sizes / sizeof *sizes; z++)
    for (unsigned a = 0; a < sizeof aligns / sizeof *aligns; a++) {
      size_t size = sizes[z];
      size_t len = lite_mem_map_length(size, aligns[a], header, PAGE, true);
      uintptr_t base = 7 * PAGE;
      size_t data_off = lite_mem_data_at(base, aligns[a], header, PAGE, true) - base;
      size_t next = 0;
      for (unsigned i = 0; i < 4; i++) {
        size_t start, end, lo, hi;
        lite_mem_blocked_range(len, data_off, size, PAGE, 4, i, &start, &end);
        lite_mem_blocked_part(size, PAGE, 4, i, &lo, &hi);
        if (lo == hi) {
          ck_assert_uint_eq(start, end);
          continue;
        }
        ck_assert_uint_eq(start, next);
        ck_assert_uint_eq(start % PAGE, 0);
        ck_assert_uint_eq(end % PAGE, 0);
        ck_assert_uint_le(start, data_off + lo);
        ck_assert_uint_ge(end, data_off + hi);
        /* No page of another part's data. */
        if (i > 0)
          ck_assert_uint_eq(start, data_off + lo);
        if (hi < size)
          ck_assert_uint_eq(end, data_off + hi);
        next = end;
      }
      ck_assert_uint_eq(next, len);
    }
}
END_TEST

START_TEST(test_which_allocators_map)
{
  static const enum lite_mem_partition placed[] = {LITE_MEM_NEAREST, LITE_MEM_BLOCKED,
                                                   LITE_MEM_INTERLEAVED};
  /* Pinned always maps, whatever the machine. */
  for (unsigned nodes = 0; nodes <= 4; nodes++) {
    ck_assert(lite_mem_mapped_for(LITE_MEM_ENVIRONMENT, true, nodes));
    ck_assert(!lite_mem_mapped_for(LITE_MEM_ENVIRONMENT, false, nodes));
    for (unsigned p = 0; p < 3; p++)
      ck_assert(lite_mem_mapped_for(placed[p], true, nodes));
  }
  /* A partition alone: only on more than one node (0: no libnuma; 1: the only node is the
     nearest, and malloc's memory is there). */
  for (unsigned p = 0; p < 3; p++) {
    ck_assert(!lite_mem_mapped_for(placed[p], false, 0));
    ck_assert(!lite_mem_mapped_for(placed[p], false, 1));
    ck_assert(lite_mem_mapped_for(placed[p], false, 2));
    ck_assert(lite_mem_mapped_for(placed[p], false, 4));
  }
  /* The decision for this machine is the pure one for its node count. */
  int nodes[LITE_MEM_MAX_NODES];
  unsigned n = lite_mem_nodes(nodes, LITE_MEM_MAX_NODES);
  for (unsigned p = 0; p < 3; p++)
    ck_assert(lite_mem_mapped(placed[p], false) == lite_mem_mapped_for(placed[p], false, n));
  ck_assert(!lite_mem_mapped(LITE_MEM_ENVIRONMENT, false));
  ck_assert(lite_mem_mapped(LITE_MEM_ENVIRONMENT, true));
  for (unsigned i = 1; i < n && i < LITE_MEM_MAX_NODES; i++)
    ck_assert_int_lt(nodes[i - 1], nodes[i]);
}
END_TEST

/* The layout of a mapped block, for alignments below, at and above a page, at mappings on
   different pages: the data is aligned, the header fits below it inside the mapping, the data
   ends inside it, and blocked data starts on a page. */
START_TEST(test_layout)
{
  static const size_t aligns[] = {8, 16, 64, 4096, 8192, 65536, 1 << 21};
  static const size_t sizes[] = {1, 100, 4096 - 32, 4096, 4097, 5 * 4096 + 7};
  static const size_t header = 32;
  for (unsigned pd = 0; pd < 2; pd++)
    for (unsigned a = 0; a < sizeof aligns / sizeof *aligns; a++)
      for (unsigned s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t len = lite_mem_map_length(sizes[s], aligns[a], header, PAGE, pd);
        ck_assert_uint_gt(len, 0);
        ck_assert_uint_eq(len % PAGE, 0);
        for (uintptr_t page = 1; page < 1024; page += 37) {
          uintptr_t base = page * PAGE;
          uintptr_t data = lite_mem_data_at(base, aligns[a], header, PAGE, pd);
          ck_assert_uint_eq(data % aligns[a], 0);
          if (pd)
            ck_assert_uint_eq(data % PAGE, 0);
          ck_assert_uint_ge(data - header, base);
          ck_assert_uint_le(data + sizes[s], base + len);
        }
      }
  /* Small blocks cost one page, not more; blocked ones a page for the header besides. */
  ck_assert_uint_eq(lite_mem_map_length(100, 8, header, PAGE, false), PAGE);
  ck_assert_uint_eq(lite_mem_map_length(PAGE - header, 8, header, PAGE, false), PAGE);
  ck_assert_uint_eq(lite_mem_map_length(PAGE, 8, header, PAGE, true), 2 * PAGE);
  /* Too large: 0, not a wrapped length. */
  ck_assert_uint_eq(lite_mem_map_length(SIZE_MAX - 100, 8, header, PAGE, false), 0);
  ck_assert_uint_eq(lite_mem_map_length(SIZE_MAX / 2, (size_t)1 << 63, header, PAGE, false), 0);
}
END_TEST

/* The kB of locked memory of this process (/proc/self/status VmLck). */
static long locked_kb(void)
{
  FILE *f = fopen("/proc/self/status", "r");
  ck_assert_ptr_nonnull(f);
  char line[256];
  long kb = -1;
  while (fgets(line, sizeof line, f) != NULL)
    if (sscanf(line, "VmLck: %ld kB", &kb) == 1)
      break;
  fclose(f);
  return kb;
}

/* A real block on this machine: pinned (this process may lock 64 kB at least unless the limit
   says less: then the failure must be reported as a lock failure), zeros, placed as nearest. */
START_TEST(test_map_pinned_block)
{
  size_t size = 3 * PAGE + 5;
  size_t len = lite_mem_length(size, 64, 32, LITE_MEM_NEAREST);
  ck_assert_uint_ge(len, size + 32);
  long before = locked_kb();
  struct lite_mem_block b;
  bool lock_failed;
  int error = lite_mem_map(&b, len, size, 64, 32, LITE_MEM_NEAREST, true, &lock_failed);
  if (error != 0) {
    ck_assert(lock_failed);
    return;
  }
  ck_assert_uint_eq((uintptr_t)b.data % 64, 0);
  ck_assert_uint_eq(b.len, len);
  for (size_t i = 0; i < size; i++)
    ck_assert_int_eq(((unsigned char *)b.data)[i], 0);
  memset(b.data, 1, size);
  /* The pages of the header and data (the header shares the first with the data, 64 bytes in). */
  long page = sysconf(_SC_PAGESIZE);
  ck_assert_int_eq(locked_kb() - before, (64 + (long)size + page - 1) / page * page / 1024);
  lite_mem_unmap(b.base, b.len);
  ck_assert_int_eq(locked_kb(), before);
}
END_TEST

static Suite *memory_suite(void)
{
  Suite *s = suite_create("memory");
  TCase *blocked = tcase_create("blocked");
  tcase_add_test(blocked, test_blocked_over_four_nodes);
  tcase_add_test(blocked, test_blocked_parts_cover_the_data);
  tcase_add_test(blocked, test_blocked_ranges_tile_the_mapping);
  suite_add_tcase(s, blocked);
  TCase *decide = tcase_create("decide");
  tcase_add_test(decide, test_which_allocators_map);
  tcase_add_test(decide, test_layout);
  suite_add_tcase(s, decide);
  TCase *map = tcase_create("map");
  tcase_add_test(map, test_map_pinned_block);
  suite_add_tcase(s, map);
  return s;
}

int main(void)
{
  SRunner *sr = srunner_create(memory_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
