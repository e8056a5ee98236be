/* The profile's rows: one per (call site, kind), in a fixed open-addressed table.

   A row is claimed by one compare-and-swap of its tag (the site's address with the kind in the
   top byte: user-space addresses fit in 56 bits on x86-64 and AArch64), so two threads meeting a
   new site at once agree on one row, and a row never moves or goes away: a hook keeps its
   pointer. Counters are relaxed atomic adds; a row is 3 cache lines, its own, so two sites do not
   share a line. The table's memory is never touched while the profile is off. */
#include "profile.h"

#include <stdlib.h>
#include <string.h>

#define PROF_ROWS 1024
#define TAG_KIND_SHIFT 56
#define TAG_SITE_MASK ((UINT64_C(1) << TAG_KIND_SHIFT) - 1)

__thread struct lite_prof_thread *lite_prof_tls __attribute__((tls_model("initial-exec")));

/* Out of memory, every thread shares this one: the numbers blur, nothing breaks. */
static struct lite_prof_thread shared_fallback;

struct lite_prof_thread *lite_prof_thread_make(void)
{
  struct lite_prof_thread *p = calloc(1, sizeof *p);
  lite_prof_tls = p != NULL ? p : &shared_fallback;
  return lite_prof_tls;
}

void lite_prof_thread_free(struct lite_prof_thread *p)
{
  lite_prof_tls = NULL;
  if (p != &shared_fallback)
    free(p); /* its trace buffer stays on the list of buffers until exit */
}

static struct lite_prof_row rows[PROF_ROWS];
/* Row i is in use once tags[i] is not 0 (apart from the rows: a lookup reads only the tags). */
static _Atomic uint64_t tags[PROF_ROWS];
_Atomic uint64_t lite_prof_team_sizes;

static uint64_t tag_of(const void *site, enum lite_prof_kind kind)
{
  return ((uint64_t)(uintptr_t)site & TAG_SITE_MASK) | (uint64_t)(kind + 1) << TAG_KIND_SHIFT;
}

struct lite_prof_row *lite_prof_row(const void *site, enum lite_prof_kind kind, const void *fn)
{
  uint64_t tag = tag_of(site, kind);
  uint64_t h = tag * 0x9e3779b97f4a7c15ull;
  /* The last row is the overflow row, "other sites", never probed. */
  unsigned start = (unsigned)(h >> 40) % (PROF_ROWS - 1);
  for (unsigned probe = 0; probe < PROF_ROWS - 1; probe++) {
    unsigned i = (start + probe) % (PROF_ROWS - 1);
    uint64_t seen = atomic_load_explicit(&tags[i], memory_order_acquire);
    if (seen == 0) {
      /* The winner of the tag writes the row's identity. A site's fn is the same for everyone,
         or at worst a name the report shows. */
      if (atomic_compare_exchange_strong_explicit(&tags[i], &seen, tag, memory_order_acq_rel,
                                                  memory_order_acquire)) {
        rows[i].key = site;
        rows[i].kind = kind;
        atomic_store_explicit(&rows[i].fn, fn, memory_order_relaxed);
        return &rows[i];
      }
    }
    if (seen == tag) {
      /* The winner may still be writing the row's identity: fn, read and written here by
         anyone, is atomic; key and kind only the report reads, at exit. */
      if (fn != NULL && atomic_load_explicit(&rows[i].fn, memory_order_relaxed) == NULL)
        atomic_store_explicit(&rows[i].fn, fn, memory_order_relaxed);
      return &rows[i];
    }
  }
  struct lite_prof_row *other = &rows[PROF_ROWS - 1];
  uint64_t none = 0;
  if (atomic_compare_exchange_strong(&tags[PROF_ROWS - 1], &none, UINT64_MAX)) {
    other->key = NULL;
    other->kind = kind;
  }
  return other;
}

void lite_prof_each_row(void (*f)(struct lite_prof_row *row, void *arg), void *arg)
{
  for (unsigned i = 0; i < PROF_ROWS; i++)
    if (atomic_load_explicit(&tags[i], memory_order_acquire) != 0 &&
        atomic_load_explicit(&rows[i].count, memory_order_relaxed) +
                atomic_load_explicit(&rows[i].wait_ns, memory_order_relaxed) !=
            0)
      f(&rows[i], arg);
}

void lite_prof_note_team(unsigned n)
{
  uint64_t bit = UINT64_C(1) << (n < 64 ? n : 0);
  if (!(atomic_load_explicit(&lite_prof_team_sizes, memory_order_relaxed) & bit))
    atomic_fetch_or_explicit(&lite_prof_team_sizes, bit, memory_order_relaxed);
}

void lite_prof_after_fork(void)
{
  /* Only the forking thread lives on in the child: nobody else can be inside the table. */
  memset(rows, 0, sizeof rows);
  for (unsigned i = 0; i < PROF_ROWS; i++)
    atomic_store_explicit(&tags[i], 0, memory_order_relaxed);
  atomic_store_explicit(&lite_prof_team_sizes, 0, memory_order_relaxed);
  struct lite_prof_thread *p = lite_prof_tls;
  if (p != NULL) {
    struct lite_trace_buf *trace = p->trace;
    memset(p, 0, sizeof *p);
    p->trace = trace; /* emptied by lite_trace_after_fork */
  }
  lite_trace_after_fork();
}
