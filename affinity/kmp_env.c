/* KMP_AFFINITY and KMP_HW_SUBSET: the pinning variables of LLVM's and Intel's runtimes, which
   users of those runtimes carry in their job scripts, translated into libomp-lite's own place
   list and bind-var. affinity/bind.c decides when they apply (the standard variables win); this
   file reads them and makes the lists. The contract followed is LLVM's documentation
   (openmp/docs/design/Runtimes.rst); where libomp-lite has no equivalent, one warning says so and
   the rest of the value still applies. Never an abort: a value that cannot be read is left out.

   KMP_AFFINITY=[<modifier>,...]<type>[,<permute>][,<offset>]
   - compact, scatter: LLVM sorts the CPUs by their place in the topology (package, NUMA node,
     core, thread: the levels that tell CPUs apart; a level whose every unit holds one unit below
     adds nothing and is left out, as LLVM drops such layers), most significant level first for
     compact, least significant first for scatter, and gives thread i the i-th CPU's unit of the
     granularity (default core), duplicates included: with two threads per core and
     granularity=core, threads 0 and 1 share core 0 under compact. The same here: the place list
     holds one place per CPU in that order (omp_get_num_places is the CPU count, as in LLVM) and
     bind-var is close, so member k of a team takes place k. permute moves the given number of
     least significant levels to the front (deepest first), offset rotates the list.
     logical and physical are LLVM's deprecated names of compact and scatter.
   - balanced: one place per unit of the granularity, in topology order, bound spread: threads
     on separate cores while they are fewer than the cores, consecutive thread numbers sharing a
     core beyond that, which is what LLVM's balanced does on one socket (spread also spreads over
     sockets, where LLVM's balanced once refused to run).
   - explicit with proclist=[...]: the list's places (a number, a range a-b, a set {..}), as
     OMP_PLACES would hold them, widened to the granularity if it is coarser than a thread; close.
   - none: not bound; disabled: not bound, and KMP_HW_SUBSET ignored.
   - modifiers: verbose (the resulting places and binding, one line on stderr), warnings/
     nowarnings (the notes on what has no equivalent), granularity=fine|thread|core|tile|l2|l3|
     ll_cache|numa|socket|package (tile: the cores that share an L2, as on LLVM's tiled machines);
     respect is what libomp-lite always does; norespect, reset, die and group granularity have no
     equivalent: one warning each.

   KMP_HW_SUBSET=[N|*]<level>[@offset][,...] keeps, for each level named, N units (all for * or
   no number) per unit of the next coarser level named (per socket when none is; threads per
   core), after skipping offset of them. Levels: s (socket), n (NUMA node), l3/ll, l2, c (core),
   t (thread), with their long names. A level the machine does not have, or one libomp-lite
   cannot see (die, tile, core attributes), gets one warning and is left out; a value that asks
   for more units than the machine has, names a level twice or cannot be read is ignored whole,
   as LLVM does. */
#include "affinity/affinity.h"
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------------------- warnings */

/* At most this many warnings about the parts of one value, then one line saying there are more:
   "compact,compact,..." 500 times is one mistake, not 500 lines. Each value is read once per
   process (the unit tests read many, one after another). */
#define PART_WARNINGS_MAX 4
static unsigned part_warnings;

static bool part_warning_allowed(const char *name, const char *value)
{
  if (++part_warnings == PART_WARNINGS_MAX + 1)
    lite_warn("%s='%.200s': more parts that cannot be used; not listed", name, value);
  return part_warnings <= PART_WARNINGS_MAX;
}
/* lite_warn within that budget; `value` is the variable's value where it is used. */
#define PART_WARN(name, ...)                                                                  \
  do {                                                                                        \
    if (part_warning_allowed(name, value))                                                    \
      lite_warn(__VA_ARGS__);                                                                 \
  } while (0)

/* ---------------------------------------------------------------- topology levels */

/* Finest last; MACHINE is every CPU's parent at the top. */
enum level { L_MACHINE, L_PACKAGE, L_NUMA, L_L3, L_L2, L_CORE, L_THREAD };
static const char *const level_names[] = {"machine", "socket", "NUMA node", "L3 cache",
                                          "L2 cache", "core", "thread"};

static int id_at(const struct lite_topo *t, unsigned i, enum level level)
{
  const struct lite_topo_cpu *c = &t->cpus[i];
  switch (level) {
  case L_MACHINE: return 0;
  case L_PACKAGE: return c->package;
  case L_NUMA: return c->numa;
  case L_L3: return c->l3;
  case L_L2: return c->l2;
  case L_CORE: return c->core;
  case L_THREAD: return (int)i;
  }
  return 0;
}

/* Whether any CPU has an object of this level (an L3 cache, a NUMA node). */
static bool level_present(const struct lite_topo *t, enum level level)
{
  for (unsigned i = 0; i < t->ncpus; i++)
    if (id_at(t, i, level) >= 0)
      return true;
  return false;
}

/* rank[i]: the number of level units inside CPU i's parent unit that come before CPU i's own
   unit, in topology order (LLVM's "child number"). O(n^2): once per process, at binding. */
static void child_ranks(const struct lite_topo *t, enum level level, enum level parent,
                        unsigned *rank)
{
  unsigned n = t->ncpus;
  unsigned *first = malloc(n * sizeof *first);
  if (first == NULL) {
    memset(rank, 0, n * sizeof *rank);
    return;
  }
  for (unsigned i = 0; i < n; i++) {
    first[i] = i;
    for (unsigned j = 0; j < i; j++)
      if (id_at(t, j, level) == id_at(t, i, level) && id_at(t, j, parent) == id_at(t, i, parent)) {
        first[i] = j;
        break;
      }
  }
  for (unsigned i = 0; i < n; i++) {
    rank[i] = 0;
    for (unsigned j = 0; j < first[i]; j++)
      rank[i] += first[j] == j && id_at(t, j, parent) == id_at(t, i, parent);
  }
  free(first);
}

/* How many distinct units a level has across the machine. */
static unsigned units_of(const struct lite_topo *t, enum level level)
{
  unsigned *rank = malloc((t->ncpus + 1) * sizeof *rank), most = 0;
  if (rank == NULL)
    return t->ncpus;
  child_ranks(t, level, L_MACHINE, rank);
  for (unsigned i = 0; i < t->ncpus; i++)
    if (rank[i] + 1 > most)
      most = rank[i] + 1;
  free(rank);
  return most;
}

/* ---------------------------------------------------------------- KMP_AFFINITY: reading */

static char *trimmed(const char *s, size_t len)
{
  while (len > 0 && isspace((unsigned char)*s))
    s++, len--;
  while (len > 0 && isspace((unsigned char)s[len - 1]))
    len--;
  char *copy = malloc(len + 1);
  if (copy != NULL) {
    memcpy(copy, s, len);
    copy[len] = '\0';
  }
  return copy;
}

/* A decimal number of at most 9 digits (no CPU or count is larger), the whole of s. */
static bool small_number(const char *s, unsigned *out)
{
  size_t len = strspn(s, "0123456789");
  if (len == 0 || len > 9 || s[len] != '\0')
    return false;
  *out = (unsigned)strtoul(s, NULL, 10);
  return true;
}

/* One number or range a-b of a proclist, at *p; appended to out as OMP_PLACES writes it: "n"
   or "n:len" inside a set, "{n}" or "{n}:len" (len places of one CPU each) outside. */
static bool proc_item(const char **p, bool in_set, char *out)
{
  char *end;
  while (isspace((unsigned char)**p))
    (*p)++;
  if (!isdigit((unsigned char)**p))
    return false;
  unsigned long lo = strtoul(*p, &end, 10), hi = lo;
  *p = end;
  if (**p == '-') {
    (*p)++;
    if (!isdigit((unsigned char)**p))
      return false;
    hi = strtoul(*p, &end, 10);
    *p = end;
  }
  while (isspace((unsigned char)**p))
    (*p)++;
  if (lo > 1000000000ul || hi > 1000000000ul || hi < lo)
    return false;
  char item[48];
  if (hi == lo)
    snprintf(item, sizeof item, in_set ? "%lu" : "{%lu}", lo);
  else
    snprintf(item, sizeof item, in_set ? "%lu:%lu" : "{%lu}:%lu", lo, hi - lo + 1);
  strcat(out, item);
  return true;
}

/* proclist=[...] (the text between the brackets) in OMP_PLACES syntax; NULL if malformed. */
static char *proclist_to_places(const char *list)
{
  /* Each item grows at most from "n" to "{n}" or from "a-b" to "{a}:len": 4x and a margin. */
  char *out = malloc(strlen(list) * 4 + 64);
  if (out == NULL)
    return NULL;
  out[0] = '\0';
  const char *p = list;
  for (;;) {
    while (isspace((unsigned char)*p))
      p++;
    if (*p == '{') {
      p++;
      strcat(out, "{");
      do
        if (!proc_item(&p, true, out))
          goto bad;
      while (*p == ',' && (p++, strcat(out, ","), true));
      if (*p != '}')
        goto bad;
      p++;
      strcat(out, "}");
    } else if (!proc_item(&p, false, out)) {
      goto bad;
    }
    while (isspace((unsigned char)*p))
      p++;
    if (*p == '\0')
      return out;
    if (*p != ',')
      goto bad;
    p++;
    strcat(out, ",");
  }
bad:
  free(out);
  return NULL;
}

static const struct {
  const char *name;
  enum lite_kmp_gran gran;
} gran_names[] = {
    {"fine", LITE_KMP_GRAN_THREAD}, {"thread", LITE_KMP_GRAN_THREAD},
    {"core", LITE_KMP_GRAN_CORE},   {"tile", LITE_KMP_GRAN_L2},
    {"l2", LITE_KMP_GRAN_L2},       {"l2_cache", LITE_KMP_GRAN_L2},
    {"l3", LITE_KMP_GRAN_L3},       {"l3_cache", LITE_KMP_GRAN_L3},
    {"ll", LITE_KMP_GRAN_L3},       {"llc", LITE_KMP_GRAN_L3},
    {"ll_cache", LITE_KMP_GRAN_L3}, {"numa", LITE_KMP_GRAN_NUMA},
    {"numa_domain", LITE_KMP_GRAN_NUMA}, {"socket", LITE_KMP_GRAN_SOCKET},
    {"package", LITE_KMP_GRAN_SOCKET},
};

static const struct {
  const char *name;
  enum lite_kmp_type type;
} type_names[] = {
    {"none", LITE_KMP_NONE},         {"compact", LITE_KMP_COMPACT},
    {"scatter", LITE_KMP_SCATTER},   {"balanced", LITE_KMP_BALANCED},
    {"explicit", LITE_KMP_EXPLICIT}, {"disabled", LITE_KMP_DISABLED},
    {"logical", LITE_KMP_COMPACT},   {"physical", LITE_KMP_SCATTER},
};

static bool modifier(const char *tok, const char *on, const char *off, bool *flag)
{
  if (strcasecmp(tok, on) == 0)
    *flag = true;
  else if (strcasecmp(tok, off) == 0)
    *flag = false;
  else
    return false;
  return true;
}

/* One comma-separated part of the value. numbers: how many permute/offset numbers came. */
static void read_part(const char *value, const char *tok, struct lite_kmp_affinity *a,
                      unsigned *numbers)
{
  bool flag;
  unsigned n;
  const char *eq = strchr(tok, '=');
  if (modifier(tok, "verbose", "noverbose", &a->verbose) ||
      modifier(tok, "warnings", "nowarnings", &a->warnings) ||
      strcasecmp(tok, "respect") == 0 || strcasecmp(tok, "noreset") == 0)
    return;
  if (modifier(tok, "norespect", "", &flag) || modifier(tok, "reset", "", &flag)) {
    if (a->warnings)
      PART_WARN("KMP_AFFINITY",
                "KMP_AFFINITY='%.200s': '%s' has no equivalent in libomp-lite (threads always "
                "stay inside the process's CPUs, and keep their places); ignored",
                value, tok);
    return;
  }
  if (eq != NULL && ((eq - tok == 11 && strncasecmp(tok, "granularity", 11) == 0) ||
                     (eq - tok == 4 && strncasecmp(tok, "gran", 4) == 0))) {
    for (size_t k = 0; k < sizeof gran_names / sizeof gran_names[0]; k++)
      if (strcasecmp(eq + 1, gran_names[k].name) == 0) {
        a->gran = gran_names[k].gran;
        return;
      }
    a->gran = LITE_KMP_GRAN_CORE;
    PART_WARN("KMP_AFFINITY",
              "KMP_AFFINITY='%.200s': granularity '%s' has no equivalent in libomp-lite; using "
              "core", value, eq + 1);
    return;
  }
  if (eq != NULL && eq - tok == 8 && strncasecmp(tok, "proclist", 8) == 0) {
    size_t len = strlen(eq + 1);
    char *places = NULL;
    if (len >= 2 && eq[1] == '[' && eq[len] == ']') {
      char *inner = trimmed(eq + 2, len - 2);
      places = inner != NULL ? proclist_to_places(inner) : NULL;
      free(inner);
    }
    if (places == NULL) {
      PART_WARN("KMP_AFFINITY",
                "KMP_AFFINITY='%.200s': '%.200s' is not a proclist=[n,a-b,{n,..},..]; ignored",
                value, tok);
      return;
    }
    free(a->proclist);
    a->proclist = places;
    return;
  }
  for (size_t k = 0; k < sizeof type_names / sizeof type_names[0]; k++)
    if (strcasecmp(tok, type_names[k].name) == 0) {
      if (a->type != LITE_KMP_UNSET)
        PART_WARN("KMP_AFFINITY",
                  "KMP_AFFINITY='%.200s': a second type '%s'; the last one counts", value, tok);
      a->type = type_names[k].type;
      *numbers = 0;
      return;
    }
  if (small_number(tok, &n)) {
    if (a->type != LITE_KMP_COMPACT && a->type != LITE_KMP_SCATTER)
      PART_WARN("KMP_AFFINITY",
                "KMP_AFFINITY='%.200s': '%s': permute and offset follow compact or scatter only; "
                "ignored", value, tok);
    else if (*numbers == 0)
      a->permute = n, (*numbers)++;
    else if (*numbers == 1)
      a->offset = n, (*numbers)++;
    else
      PART_WARN("KMP_AFFINITY",
                "KMP_AFFINITY='%.200s': '%s': more than a permute and an offset; ignored", value,
                tok);
    return;
  }
  PART_WARN("KMP_AFFINITY",
            "KMP_AFFINITY='%.200s': '%.200s' is not a type (none, compact, scatter, balanced, "
            "explicit, disabled) or modifier that libomp-lite knows; ignored",
            value, tok);
}

void lite_kmp_affinity_parse(const char *value, struct lite_kmp_affinity *out)
{
  memset(out, 0, sizeof *out);
  out->warnings = true;
  part_warnings = 0;
  if (value == NULL)
    return;
  /* nowarnings applies to the whole value, wherever it is written. */
  for (const char *p = value; (p = strcasestr(p, "nowarnings")) != NULL; p++)
    out->warnings = false;
  unsigned numbers = 0;
  const char *start = value;
  int depth = 0;
  for (const char *p = value;; p++) {
    if (*p == '[' || *p == '{')
      depth++;
    else if ((*p == ']' || *p == '}') && depth > 0)
      depth--;
    if (*p != '\0' && (*p != ',' || depth > 0))
      continue;
    char *tok = trimmed(start, (size_t)(p - start));
    if (tok != NULL && tok[0] != '\0')
      read_part(value, tok, out, &numbers);
    free(tok);
    if (*p == '\0')
      break;
    start = p + 1;
  }
  if (out->proclist != NULL && out->type == LITE_KMP_UNSET)
    out->type = LITE_KMP_EXPLICIT; /* a proclist alone asks for it, as in LLVM */
  if (out->type == LITE_KMP_EXPLICIT && out->proclist == NULL) {
    lite_warn("KMP_AFFINITY='%.200s': explicit needs a proclist=[...]; threads are not bound",
              value);
    out->type = LITE_KMP_NONE;
  }
  if (out->proclist != NULL && out->type != LITE_KMP_EXPLICIT && out->warnings)
    lite_warn("KMP_AFFINITY='%.200s': the proclist is used by explicit only; ignored", value);
}

void lite_kmp_affinity_free(struct lite_kmp_affinity *a)
{
  free(a->proclist);
  a->proclist = NULL;
}

/* ---------------------------------------------------------------- KMP_AFFINITY: places */

static enum level gran_level(enum lite_kmp_gran gran, enum lite_kmp_gran fallback)
{
  switch (gran == LITE_KMP_GRAN_DEFAULT ? fallback : gran) {
  case LITE_KMP_GRAN_THREAD: return L_THREAD;
  case LITE_KMP_GRAN_L2: return L_L2;
  case LITE_KMP_GRAN_L3: return L_L3;
  case LITE_KMP_GRAN_NUMA: return L_NUMA;
  case LITE_KMP_GRAN_SOCKET: return L_PACKAGE;
  default: return L_CORE;
  }
}

static int cmp_int(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* The place of the unit of CPU i at level gran: every CPU of t in it, ascending. */
static bool unit_place(const struct lite_topo *t, unsigned i, enum level gran,
                       struct lite_place *p)
{
  p->cpus = malloc(t->ncpus * sizeof *p->cpus);
  p->ncpus = 0;
  if (p->cpus == NULL)
    return false;
  for (unsigned j = 0; j < t->ncpus; j++)
    if (id_at(t, j, gran) == id_at(t, i, gran))
      p->cpus[p->ncpus++] = t->cpus[j].os;
  qsort(p->cpus, p->ncpus, sizeof *p->cpus, cmp_int);
  return true;
}

/* Places from the CPU indices order[0..n), one per CPU (each its unit at gran). */
static bool places_of(const struct lite_topo *t, const unsigned *order, unsigned n,
                      enum level gran, struct lite_place_list *out)
{
  out->places = calloc(n, sizeof *out->places);
  if (out->places == NULL)
    return false;
  for (out->n = 0; out->n < n; out->n++)
    if (!unit_place(t, order[out->n], gran, &out->places[out->n])) {
      lite_places_free(out);
      return false;
    }
  return true;
}

/* compact and scatter: CPU indices sorted by their child numbers in the significance order
   permute and the type give (the header says how), into order[0..ncpus). */
static bool sorted_cpus(const struct lite_kmp_affinity *a, const struct lite_topo *t,
                        unsigned *order)
{
  static const enum level candidates[] = {L_PACKAGE, L_NUMA, L_CORE, L_THREAD};
  enum level kept[4];
  unsigned depth = 0, n = t->ncpus, above = 1;
  for (unsigned k = 0; k < 4; k++) {
    unsigned units = units_of(t, candidates[k]);
    if (units > above || (k == 3 && depth == 0)) {
      kept[depth++] = candidates[k];
      above = units;
    }
  }
  unsigned *rank = malloc((size_t)n * depth * sizeof *rank);
  if (rank == NULL)
    return false;
  for (unsigned d = 0; d < depth; d++)
    child_ranks(t, kept[d], d == 0 ? L_MACHINE : kept[d - 1], rank + (size_t)d * n);
  /* c deepest levels first (deepest first), then the others from the root down: c = permute for
     compact, depth - 1 - permute for scatter (LLVM's rule). */
  unsigned c = a->permute >= depth ? depth - 1 : a->permute;
  if (a->type == LITE_KMP_SCATTER)
    c = a->permute >= depth ? 0 : depth - 1 - a->permute;
  unsigned key_level[4];
  for (unsigned k = 0; k < depth; k++)
    key_level[k] = k < c ? depth - 1 - k : k - c;
  for (unsigned i = 0; i < n; i++)
    order[i] = i;
  /* Insertion sort: stable, and n is at most the machine's CPUs, once. */
  for (unsigned i = 1; i < n; i++) {
    unsigned x = order[i], j = i;
    for (; j > 0; j--) {
      unsigned y = order[j - 1];
      int diff = 0;
      for (unsigned k = 0; k < depth && diff == 0; k++) {
        unsigned rx = rank[(size_t)key_level[k] * n + x], ry = rank[(size_t)key_level[k] * n + y];
        diff = (rx > ry) - (rx < ry);
      }
      if (diff >= 0)
        break;
      order[j] = y;
    }
    order[j] = x;
  }
  free(rank);
  return true;
}

/* Every CPU of t in the unit (at gran) of some CPU of p. */
static bool widen(const struct lite_topo *t, enum level gran, struct lite_place *p)
{
  int *cpus = malloc(t->ncpus * sizeof *cpus);
  if (cpus == NULL)
    return false;
  unsigned n = 0;
  for (unsigned j = 0; j < t->ncpus; j++)
    for (unsigned k = 0; k < p->ncpus; k++) {
      const struct lite_topo_cpu *c = lite_topo_find(t, p->cpus[k]);
      if (c != NULL && id_at(t, (unsigned)(c - t->cpus), gran) == id_at(t, j, gran)) {
        cpus[n++] = t->cpus[j].os;
        break;
      }
    }
  qsort(cpus, n, sizeof *cpus, cmp_int);
  free(p->cpus);
  p->cpus = cpus;
  p->ncpus = n;
  return true;
}

bool lite_kmp_places(const struct lite_kmp_affinity *a, const struct lite_topo *t,
                     struct lite_place_list *out)
{
  memset(out, 0, sizeof *out);
  if (t->ncpus == 0)
    return false;
  if (a->type == LITE_KMP_EXPLICIT) {
    if (!lite_places_parse_as("KMP_AFFINITY", a->proclist, t, out))
      return false;
    enum level gran = gran_level(a->gran, LITE_KMP_GRAN_THREAD);
    for (unsigned i = 0; gran != L_THREAD && i < out->n; i++)
      if (!widen(t, gran, &out->places[i])) {
        lite_places_free(out);
        return false;
      }
    return true;
  }
  unsigned *order = malloc(t->ncpus * sizeof *order), n = 0;
  bool ok = order != NULL;
  enum level gran = gran_level(a->gran, LITE_KMP_GRAN_CORE);
  if (ok && (a->type == LITE_KMP_COMPACT || a->type == LITE_KMP_SCATTER)) {
    ok = sorted_cpus(a, t, order);
    n = t->ncpus;
  } else if (ok) {
    /* balanced, or a granularity for the default list: the units in topology order. */
    for (unsigned i = 0; i < t->ncpus; i++) {
      unsigned j = 0;
      while (j < i && id_at(t, j, gran) != id_at(t, i, gran))
        j++;
      if (j == i)
        order[n++] = i;
    }
  }
  if (ok && a->offset % n != 0) { /* offset: the list starts that far in, wrapping around */
    unsigned *rotated = malloc(n * sizeof *rotated);
    ok = rotated != NULL;
    for (unsigned i = 0; ok && i < n; i++)
      rotated[i] = order[(i + a->offset) % n];
    if (ok)
      memcpy(order, rotated, n * sizeof *order);
    free(rotated);
  }
  ok = ok && places_of(t, order, n, gran, out);
  free(order);
  if (!ok)
    lite_warn("KMP_AFFINITY: out of memory making the places; threads are not bound");
  return ok;
}

/* ---------------------------------------------------------------- KMP_HW_SUBSET */

struct subset_item {
  enum level level;
  unsigned count; /* 0: all */
  unsigned offset;
};

static const struct {
  const char *name;
  enum level level; /* L_MACHINE: a level libomp-lite cannot see */
} subset_levels[] = {
    {"s", L_PACKAGE},      {"socket", L_PACKAGE}, {"sockets", L_PACKAGE},
    {"package", L_PACKAGE}, {"n", L_NUMA},         {"numa", L_NUMA},
    {"numa_domain", L_NUMA}, {"numa_domains", L_NUMA}, {"l3", L_L3},
    {"ll", L_L3},          {"llc", L_L3},         {"l2", L_L2},
    {"c", L_CORE},         {"core", L_CORE},      {"cores", L_CORE},
    {"t", L_THREAD},       {"thread", L_THREAD},  {"threads", L_THREAD},
    {"d", L_MACHINE},      {"die", L_MACHINE},    {"ti", L_MACHINE},
    {"tile", L_MACHINE},   {"l1", L_MACHINE},     {"m", L_MACHINE},
};

/* One item, "N<level>[@offset][:attribute]"; false if malformed. *level L_MACHINE (after its
   warning) for an item to leave out. */
static bool subset_item(const char *value, const char *tok, struct subset_item *it,
                        const struct lite_topo *t)
{
  const char *p = tok;
  it->count = 0;
  it->offset = 0;
  if (*p == '*') {
    p++;
  } else if (isdigit((unsigned char)*p)) {
    char *end;
    unsigned long n = strtoul(p, &end, 10);
    if (n == 0 || n > 1000000000ul)
      return false;
    it->count = (unsigned)n;
    p = end;
  }
  while (isspace((unsigned char)*p))
    p++;
  size_t len = 0;
  while (isalnum((unsigned char)p[len]) || p[len] == '_')
    len++;
  const char *rest = p + len;
  while (isspace((unsigned char)*rest))
    rest++;
  if (*rest == '@') {
    char *end;
    rest++;
    if (!isdigit((unsigned char)*rest))
      return false;
    unsigned long off = strtoul(rest, &end, 10);
    if (off > 1000000000ul)
      return false;
    it->offset = (unsigned)off;
    rest = end;
    while (isspace((unsigned char)*rest))
      rest++;
  }
  it->level = L_MACHINE;
  for (size_t k = 0; k < sizeof subset_levels / sizeof subset_levels[0]; k++)
    if (strlen(subset_levels[k].name) == len && strncasecmp(p, subset_levels[k].name, len) == 0) {
      it->level = subset_levels[k].level;
      if (it->level == L_MACHINE) {
        PART_WARN("KMP_HW_SUBSET",
                  "KMP_HW_SUBSET='%.200s': '%s': libomp-lite does not see that level; left out",
                  value, tok);
        return *rest == '\0' || *rest == ':';
      }
      break;
    }
  if (len == 0 || (it->level == L_MACHINE))
    return false;
  if (*rest == ':') {
    PART_WARN("KMP_HW_SUBSET",
              "KMP_HW_SUBSET='%.200s': '%s': core attributes have no equivalent in libomp-lite; "
              "left out", value, tok);
    it->level = L_MACHINE;
    return true;
  }
  if (*rest != '\0')
    return false;
  if (!level_present(t, it->level)) {
    PART_WARN("KMP_HW_SUBSET",
              "KMP_HW_SUBSET='%.200s': '%s': this machine has no %s level; left out", value, tok,
              level_names[it->level]);
    it->level = L_MACHINE;
  }
  return true;
}

unsigned lite_kmp_hw_subset(const char *value, const struct lite_topo *t, int *keep)
{
  struct subset_item items[L_THREAD + 1];
  bool named[L_THREAD + 1] = {false};
  unsigned nitems = 0, nkeep = 0;
  const char *why = NULL;
  part_warnings = 0;
  char text[160];
  const char *start = value;
  for (const char *p = value; why == NULL; p++) {
    if (*p != '\0' && *p != ',')
      continue;
    char *tok = trimmed(start, (size_t)(p - start));
    struct subset_item it;
    if (tok == NULL || !subset_item(value, tok, &it, t))
      why = "it cannot be read (N<level>[@offset],..., levels s, n, l3, l2, c, t)";
    else if (it.level != L_MACHINE && named[it.level])
      why = "it names a level twice";
    else if (it.level != L_MACHINE) {
      named[it.level] = true;
      items[nitems++] = it;
    }
    free(tok);
    if (*p == '\0')
      break;
    start = p + 1;
  }
  unsigned *rank = why == NULL ? malloc((t->ncpus + 1) * sizeof *rank) : NULL;
  bool *out = why == NULL ? calloc(t->ncpus + 1, sizeof *out) : NULL;
  if (why == NULL && (rank == NULL || out == NULL))
    why = "out of memory";
  /* Each item's parent: cores of a core's thread; the next coarser level named; else a socket
     (the machine, for sockets). */
  for (unsigned k = 0; why == NULL && k < nitems; k++) {
    enum level level = items[k].level, parent = L_PACKAGE;
    if (level == L_THREAD)
      parent = L_CORE;
    else if (level == L_PACKAGE)
      parent = L_MACHINE;
    else
      for (int above = (int)level - 1; above > L_PACKAGE; above--)
        if (named[above]) {
          parent = (enum level)above;
          break;
        }
    child_ranks(t, level, parent, rank);
    unsigned most = 0;
    for (unsigned i = 0; i < t->ncpus; i++) {
      most = rank[i] + 1 > most ? rank[i] + 1 : most;
      unsigned end = items[k].count == 0 ? ~0u : items[k].offset + items[k].count;
      out[i] = out[i] || rank[i] < items[k].offset || rank[i] >= end;
    }
    if (items[k].offset + (items[k].count == 0 ? 1 : items[k].count) > most) {
      snprintf(text, sizeof text, "it asks for more %ss than the machine has (%u per %s)",
               level_names[level], most, level_names[parent]);
      why = text;
    }
  }
  for (unsigned i = 0; why == NULL && i < t->ncpus; i++)
    if (!out[i])
      keep[nkeep++] = t->cpus[i].os;
  if (why == NULL && nkeep == 0)
    why = "it keeps no CPU";
  if (why != NULL) {
    lite_warn("KMP_HW_SUBSET='%.200s' is ignored: %s", value, why);
    nkeep = 0;
  }
  free(rank);
  free(out);
  qsort(keep, nkeep, sizeof *keep, cmp_int);
  return nkeep;
}
