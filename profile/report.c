/* OMPLITE_PROFILE's table, at exit: one row per call site, sorted by total time.

   Sites are named "function+0xoffset (object)" through dladdr, which needs no debug information
   and no library the user may lack; tools/omplite-profile-lines turns the names into file:line
   with addr2line where the object has debug information. A barrier or taskwait that ended a
   region's or a task's body (a tail call, whose return address is in the runtime) is keyed by
   that region's or task's site (hooks.c user_site), and its row says so. A site still inside
   libomp-lite is named by the row's outlined function instead, where it has one outside. */
#include "profile.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *lite_prof_path;
const char *lite_trace_path;
static bool in_child; /* a fork() child: the files get a .PID suffix */

/* The file to write: "%p" in the name becomes the pid (for programs that start other programs
   with the same environment), and a fork() child appends ".PID". A name that does not fit is
   refused, not cut: the cut name may be another file's (issue 37). */
const char *lite_prof_file_name(const char *path, char *buf, size_t len)
{
  size_t at = 0;
  int pid = (int)getpid();
  for (const char *c = path; *c != 0; c++) {
    if (at + 1 >= len)
      return NULL;
    if (c[0] == '%' && c[1] == 'p') {
      size_t n = (size_t)snprintf(buf + at, len - at, "%d", pid);
      if (n >= len - at)
        return NULL;
      at += n;
      c++;
    } else {
      buf[at++] = *c;
    }
  }
  buf[at] = 0;
  if (in_child && (size_t)snprintf(buf + at, len - at, ".%d", pid) >= len - at)
    return NULL;
  return buf;
}

bool lite_prof_name(const void *addr, char *buf, size_t len)
{
  Dl_info info;
  if (addr == NULL) {
    snprintf(buf, len, "(unknown)");
    return true;
  }
  if (dladdr(addr, &info) == 0 || info.dli_fname == NULL) {
    snprintf(buf, len, "%p", addr);
    return false;
  }
  const char *object = strrchr(info.dli_fname, '/');
  object = object != NULL ? object + 1 : info.dli_fname;
  if (*object == 0)
    object = "main program";
  if (info.dli_sname != NULL && info.dli_saddr != NULL) {
    snprintf(buf, len, "%s+0x%tx (%s)", info.dli_sname,
             (const char *)addr - (const char *)info.dli_saddr, object);
    return true;
  }
  /* Not exported (a static function, a program linked without -rdynamic): its symbol table,
     if the object has one; else the offset in the object, for omplite-profile-lines. */
  if (lite_prof_symtab_name(addr, object, buf, len))
    return true;
  snprintf(buf, len, "0x%tx (%s)", (const char *)addr - (const char *)info.dli_fbase, object);
  return false;
}

static const char *const kind_names[LITE_PROF_KINDS] = {
    "parallel", "loop", "sections", "barrier", "single", "critical", "task", "taskwait",
    "taskgroup"};
static const char *const decision_names[LITE_DEC_KINDS] = {
    "static", "dynamic", "guided", "own", "steal", "split", "whole", "tiny", "inline"};

/* The time a row is sorted by: regions and loops their wall time, tasks the time their bodies
   ran, the rest the time the members spent waiting in them. */
static uint64_t total_ns(const struct lite_prof_row *row)
{
  switch (row->kind) {
  case LITE_PROF_PARALLEL:
  case LITE_PROF_LOOP:
  case LITE_PROF_SECTIONS:
    return atomic_load_explicit(&row->wall_ns, memory_order_relaxed);
  case LITE_PROF_TASK:
    return atomic_load_explicit(&row->member_ns, memory_order_relaxed);
  default:
    return atomic_load_explicit(&row->wait_ns, memory_order_relaxed);
  }
}

struct row_list {
  struct lite_prof_row **rows;
  unsigned n, cap;
};

static void collect(struct lite_prof_row *row, void *arg)
{
  struct row_list *list = arg;
  if (list->n == list->cap) {
    unsigned cap = list->cap ? 2 * list->cap : 64;
    struct lite_prof_row **rows = realloc(list->rows, cap * sizeof *rows);
    if (rows == NULL)
      return;
    list->rows = rows;
    list->cap = cap;
  }
  list->rows[list->n++] = row;
}

static int by_total(const void *a, const void *b)
{
  uint64_t x = total_ns(*(struct lite_prof_row *const *)a);
  uint64_t y = total_ns(*(struct lite_prof_row *const *)b);
  return x < y ? 1 : x > y ? -1 : 0;
}

/* "dynamic", "nm:guided", ... for the schedules a loop's site was seen with. */
static void sched_text(unsigned mask, char *buf, size_t len)
{
  static const char *const kinds[] = {"runtime", "static", "dynamic", "guided", "auto"};
  buf[0] = 0;
  size_t at = 0;
  for (unsigned bit = 0; bit < 16 && at < len; bit++) {
    if (!(mask & (1u << bit)) || (bit & 7) > 4)
      continue;
    at += (size_t)snprintf(buf + at, len - at, "%s%s%s", at ? "," : "", bit & 8 ? "nm:" : "",
                           kinds[bit & 7]);
  }
  if (at == 0)
    snprintf(buf, len, "-");
}

/* The decisions taken, most frequent first, with their share of the runs: "steal:80%,own:20%"
   (one word, so that the table splits on blanks). */
static void decision_text(const struct lite_prof_row *row, char *buf, size_t len)
{
  uint64_t total = 0, counts[LITE_DEC_KINDS];
  for (unsigned d = 0; d < LITE_DEC_KINDS; d++)
    total += counts[d] = atomic_load_explicit(&row->decisions[d], memory_order_relaxed);
  size_t at = 0;
  buf[0] = 0;
  for (unsigned k = 0; k < 3 && total != 0; k++) {
    unsigned best = 0;
    for (unsigned d = 1; d < LITE_DEC_KINDS; d++)
      if (counts[d] > counts[best])
        best = d;
    if (counts[best] == 0 || at >= len)
      break;
    uint64_t pct = (counts[best] * 100 + total / 2) / total;
    if (pct == 0)
      at += (size_t)snprintf(buf + at, len - at, "%s%s:<1%%", at ? "," : "",
                             decision_names[best]);
    else
      at += (size_t)snprintf(buf + at, len - at, "%s%s:%" PRIu64 "%%", at ? "," : "",
                             decision_names[best], pct);
    counts[best] = 0;
  }
  if (at == 0)
    snprintf(buf, len, "-");
}

static void print_header(FILE *f, unsigned nrows, bool to_stderr)
{
  uint64_t sizes = atomic_load_explicit(&lite_prof_team_sizes, memory_order_relaxed);
  char teams[256] = "";
  size_t at = 0;
  for (unsigned n = 1; n < 64 && at < sizeof teams; n++)
    if (sizes & (UINT64_C(1) << n))
      at += (size_t)snprintf(teams + at, sizeof teams - at, "%s%u", at ? "," : "", n);
  if ((sizes & 1) && at < sizeof teams)
    snprintf(teams + at, sizeof teams - at, "%s64+", at ? "," : "");
  const char *policy = lite_env.wait_policy == LITE_WAIT_ACTIVE    ? "active"
                       : lite_env.wait_policy == LITE_WAIT_PASSIVE ? "passive"
                                                                   : "default";
  char binding[64];
  if (lite_binding.on)
    snprintf(binding, sizeof binding, "on, %u places", lite_binding.places.n);
  else
    snprintf(binding, sizeof binding, "off");
  fprintf(f,
          "libomp-lite profile: pid %d, %u sites; team sizes %s; %u CPUs; wait policy %s "
          "(spin %" PRIu64 " us, then park); binding %s%s\n",
          (int)getpid(), nrows, at ? teams : "-", lite_env.ncpus, policy,
          lite_env.spin_ns / 1000, binding,
          to_stderr ? "; on stderr (a file per process: OMPLITE_PROFILE=/path/prof.%p)" : "");
  fprintf(f, "%10s %9s %10s %5s %6s %8s %8s %-12s %9s %7s %-24s %7s %7s %-9s %s\n",
          "total-ms", "count", "mean-us", "thr", "wait%", "fork-us", "join-us", "schedule",
          "chunks/r", "steals", "decision", "parks", "wakes", "kind", "site");
}

/* Returns false for a site left unnamed (an offset in an object without a symbol table). */
static bool print_row(FILE *f, const struct lite_prof_row *row)
{
  uint64_t count = atomic_load_explicit(&row->count, memory_order_relaxed);
  uint64_t total = total_ns(row);
  uint64_t member = atomic_load_explicit(&row->member_ns, memory_order_relaxed);
  uint64_t wait = atomic_load_explicit(&row->wait_ns, memory_order_relaxed);
  uint64_t fork = atomic_load_explicit(&row->fork_ns, memory_order_relaxed);
  uint64_t join = atomic_load_explicit(&row->join_ns, memory_order_relaxed);
  uint64_t chunks = atomic_load_explicit(&row->chunks, memory_order_relaxed);
  unsigned lo = atomic_load_explicit(&row->min_threads, memory_order_relaxed);
  unsigned hi = atomic_load_explicit(&row->max_threads, memory_order_relaxed);
  char thr[16], waitp[16], forkus[16], joinus[16], sched[32], perrun[24], dec[64], site[512];
  if (hi == 0)
    snprintf(thr, sizeof thr, "-");
  else if (lo == hi)
    snprintf(thr, sizeof thr, "%u", hi);
  else
    snprintf(thr, sizeof thr, "%u-%u", lo, hi);
  bool construct = row->kind == LITE_PROF_PARALLEL || row->kind == LITE_PROF_LOOP ||
                   row->kind == LITE_PROF_SECTIONS;
  if (construct && member != 0)
    snprintf(waitp, sizeof waitp, "%.1f", 100.0 * (double)wait / (double)member);
  else
    snprintf(waitp, sizeof waitp, "-");
  if (row->kind == LITE_PROF_PARALLEL && count != 0) {
    snprintf(forkus, sizeof forkus, "%.2f", (double)fork / 1000.0 / (double)count);
    snprintf(joinus, sizeof joinus, "%.2f", (double)join / 1000.0 / (double)count);
  } else {
    snprintf(forkus, sizeof forkus, "-");
    snprintf(joinus, sizeof joinus, "-");
  }
  if (row->kind == LITE_PROF_LOOP)
    sched_text(atomic_load_explicit(&row->sched_mask, memory_order_relaxed), sched, sizeof sched);
  else
    snprintf(sched, sizeof sched, "-");
  if (chunks != 0 && count != 0)
    snprintf(perrun, sizeof perrun, "%.1f", (double)chunks / (double)count);
  else
    snprintf(perrun, sizeof perrun, "-");
  decision_text(row, dec, sizeof dec);
  const void *name_addr = row->key;
  const void *fn = atomic_load_explicit(&row->fn, memory_order_relaxed);
  if (fn != NULL && (row->key == NULL || lite_prof_in_runtime(row->key)) &&
      !lite_prof_in_runtime(fn))
    name_addr = fn;
  bool named = true;
  if (row->key == NULL && fn == NULL)
    snprintf(site, sizeof site, "(other sites: the table is full)");
  else
    named = lite_prof_name(name_addr, site, sizeof site);
  /* A construct that ended a region's or a task's body, in gcc's tail call (hooks.c user_site):
     the site is that region's or task's, so say which construct of it this is. */
  unsigned char tail = atomic_load_explicit(&row->tail, memory_order_relaxed);
  if (tail != LITE_TAIL_NONE) {
    size_t at = strlen(site);
    snprintf(site + at, sizeof site - at, " [the last construct of the %s at this site]",
             tail == LITE_TAIL_TASK ? "task made" : "region started");
  }
  const char *kind = kind_names[row->kind < LITE_PROF_KINDS ? row->kind : 0];
  char kindbuf[24];
  if (row->kind == LITE_PROF_TASK) {
    /* Tasks: count is tasks created; the share run by another thread goes in wait%'s place. */
    uint64_t other = atomic_load_explicit(&row->tasks_other, memory_order_relaxed);
    snprintf(waitp, sizeof waitp, "%.0f", count ? 100.0 * (double)other / (double)count : 0.0);
    snprintf(kindbuf, sizeof kindbuf, "task");
    kind = kindbuf;
  }
  fprintf(f, "%10.3f %9" PRIu64 " %10.2f %5s %6s %8s %8s %-12s %9s %7" PRIu64 " %-24s %7" PRIu64
             " %7" PRIu64 " %-9s %s\n",
          (double)total / 1e6, count, count ? (double)total / 1e3 / (double)count : 0.0, thr,
          waitp, forkus, joinus, sched, perrun, atomic_load_explicit(&row->steals, memory_order_relaxed),
          dec, atomic_load_explicit(&row->parks, memory_order_relaxed),
          atomic_load_explicit(&row->wakes, memory_order_relaxed), kind, site);
  return named;
}

void lite_prof_report(void)
{
  if (!(lite_env.profile & LITE_PROF_TABLE))
    return;
  struct row_list list = {NULL, 0, 0};
  lite_prof_each_row(collect, &list);
  /* A process that ran no construct writes nothing: a helper the program starts (a shell, with
     LD_PRELOAD and OMPLITE_PROFILE in its environment) must not overwrite the program's table. */
  if (list.n == 0)
    return;
  qsort(list.rows, list.n, sizeof *list.rows, by_total);
  /* A file that cannot be used (output.c) leaves the table on stderr, with the warning. */
  struct lite_prof_file file;
  bool to_file = lite_prof_path != NULL &&
                 lite_prof_file_open(&file, "OMPLITE_PROFILE", lite_prof_path,
                                     "; the profile goes to stderr");
  FILE *f = to_file ? file.f : stderr;
  print_header(f, list.n, !to_file);
  unsigned unnamed = 0;
  for (unsigned i = 0; i < list.n; i++)
    unnamed += !print_row(f, list.rows[i]);
  fprintf(f, "(count: runs; for barrier and critical, the members' passes, so that mean-us is one "
             "member's wait; for task, tasks made. wait%%: the members' wait at the construct's "
             "barrier or join, as a share of their time in it; for tasks, the share run by "
             "another thread. Times are wall clock.)\n");
  /* Issue 40: "0x1f8c09 (mmseqs-avx2)" alone told nobody where to look. */
  if (unnamed != 0)
    fprintf(f, "(%u sites are offsets in objects without a symbol table (stripped): "
               "tools/omplite-profile-lines -e /path/to/OBJECT adds their file:line where debug "
               "information is found (a -dbgsym or -debuginfo package, or a build with -g).)\n",
            unnamed);
  /* A program that starts other programs (a pipeline, a launcher script) printed one table per
     process into its own output, in the middle of it (issue 40): say where they can go. */
  if (!to_file)
    fprintf(f, "(Each process that runs OpenMP prints its own table here. To have one file per "
               "process instead, set OMPLITE_PROFILE=/path/prof.%%p (%%p: the pid); then "
               "tools/omplite-profile-merge /path/prof.* makes them one table.)\n");
  if (to_file)
    lite_prof_file_close(&file);
  else
    fflush(f);
  free(list.rows);
}

void lite_prof_finish(void)
{
  static _Atomic bool done;
  if (lite_env.profile == 0 || atomic_exchange(&done, true))
    return;
  lite_prof_flush_thread();
  lite_prof_report();
  if (lite_env.profile & LITE_PROF_TRACE)
    lite_trace_write();
  lite_prof_symtab_close();
}

void lite_prof_fork_child(void)
{
  in_child = true;
  lite_prof_after_fork();
}
