/* The place list: OMP_PLACES (abstract names and the explicit syntax of OpenMP 5.2), libgomp's
   GOMP_CPU_AFFINITY, the default list, and the OMP_DISPLAY_ENV form of a list.

   While a value is read, each place is a bitmap of the machine's CPU numbers 0 .. max_os; only
   at the end are the CPUs the process may not use taken out (lite_topo_find), places left empty
   dropped, and the bitmaps turned into sorted arrays. Choices where the specification leaves
   room, and where this differs from libgomp:
   - Abstract places follow hwloc's logical order (nearby CPUs next to each other), each place in
     the order of its first CPU there; within a place CPUs go up. ll_caches are L3 caches where
     every CPU has one, else L2, else cores.
   - Inside braces, exclusions apply after every inclusion (as libgomp); excluding a CPU that the
     place does not hold, or a place the list does not hold, is an error (as libgomp), unless it
     names only CPUs past the machine's largest number (those are dropped anyway).
   - A CPU number past the machine's largest is dropped when it is read, before a place interval
     could shift it back into range; copies of a place that would hold only such CPUs are not
     made, and copies with stride 0 stop at max_os + 1. Each of these counts as "dropped" for the
     warning. Numbers are clamped at 2^30, so no input makes the arithmetic overflow or the
     parser allocate more than PARSE_BYTES_MAX.
   - GOMP_CPU_AFFINITY numbers are decimal (libgomp's strtoul base 0 also reads 0x1f and takes
     010 for 8). */
#include "affinity/affinity.h"
#include "internal.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Numbers past this are all equally far outside any machine; clamping them keeps interval
   arithmetic (lo + len * stride) well inside 64 bits. */
#define NUMBER_CLAMP (1L << 30)
/* The most memory the bitmaps of one value may take while it is read. */
#define PARSE_BYTES_MAX ((size_t)16 << 20)

/* ---------------------------------------------------------------- the list being built */

struct builder {
  const struct lite_topo *t;
  const char *name, *value; /* for the warnings */
  const char *p;            /* the next character to read */
  size_t words;             /* 64-bit words per place: CPUs 0 .. t->max_os */
  unsigned n, cap, max;     /* places held, allocated, allowed */
  uint64_t *bits;           /* place i at bits + i * words */
  uint64_t *minus;          /* the CPUs a place in braces excludes */
  bool lost;                /* something named was past the machine, or a repeat cut short */
  const char *error;        /* why the value is invalid; NULL while it is not */
};

static bool fail(struct builder *b, const char *why)
{
  if (b->error == NULL)
    b->error = why;
  return false;
}

static bool builder_init(struct builder *b, const struct lite_topo *t, const char *name,
                         const char *value)
{
  memset(b, 0, sizeof *b);
  b->t = t;
  b->name = name;
  b->value = value;
  b->p = value;
  b->words = ((size_t)(t->max_os > 0 ? t->max_os : 0) + 64) / 64;
  size_t per_place = b->words * sizeof(uint64_t);
  b->max = PARSE_BYTES_MAX / per_place > 65536 ? 65536 : (unsigned)(PARSE_BYTES_MAX / per_place);
  b->minus = calloc(b->words, sizeof(uint64_t));
  return b->minus != NULL;
}

static void builder_free(struct builder *b)
{
  free(b->bits);
  free(b->minus);
  b->bits = b->minus = NULL;
}

static uint64_t *place_at(struct builder *b, unsigned i) { return b->bits + (size_t)i * b->words; }

/* A new, empty place at the end of the list; -1 (and an error) if the list is full. */
static long append_place(struct builder *b)
{
  if (b->n == b->cap) {
    if (b->cap == b->max) {
      fail(b, "more places than the runtime can hold");
      return -1;
    }
    unsigned cap = b->cap == 0 ? 16 : (b->cap > b->max / 2 ? b->max : b->cap * 2);
    uint64_t *bits = realloc(b->bits, (size_t)cap * b->words * sizeof(uint64_t));
    if (bits == NULL) {
      fail(b, "out of memory");
      return -1;
    }
    b->bits = bits;
    b->cap = cap;
  }
  memset(place_at(b, b->n), 0, b->words * sizeof(uint64_t));
  return b->n++;
}

/* Takes place i out of the list, keeping the order of the others. */
static void remove_place(struct builder *b, unsigned i)
{
  memmove(place_at(b, i), place_at(b, i + 1), (size_t)(b->n - i - 1) * b->words * sizeof(uint64_t));
  b->n--;
}

static void add_cpu(struct builder *b, uint64_t *set, long cpu)
{
  if (cpu > b->t->max_os)
    b->lost = true;
  else
    set[cpu / 64] |= (uint64_t)1 << (cpu % 64);
}

static bool is_empty(const struct builder *b, const uint64_t *set)
{
  for (size_t w = 0; w < b->words; w++)
    if (set[w] != 0)
      return false;
  return true;
}

static long lowest_cpu(const struct builder *b, const uint64_t *set)
{
  for (size_t w = 0; w < b->words; w++)
    if (set[w] != 0)
      return (long)(w * 64) + __builtin_ctzll(set[w]);
  return -1;
}

/* ---------------------------------------------------------------- reading */

static void skip_spaces(struct builder *b)
{
  while (isspace((unsigned char)*b->p))
    b->p++;
}

static bool eat(struct builder *b, char c)
{
  skip_spaces(b);
  if (*b->p != c)
    return false;
  b->p++;
  return true;
}

/* A decimal number, clamped at NUMBER_CLAMP. */
static bool read_number(struct builder *b, long *v)
{
  skip_spaces(b);
  if (!isdigit((unsigned char)*b->p))
    return fail(b, "a number was expected");
  long n = 0;
  for (; isdigit((unsigned char)*b->p); b->p++)
    if (n < NUMBER_CLAMP)
      n = n * 10 + (*b->p - '0');
  *v = n < NUMBER_CLAMP ? n : NUMBER_CLAMP;
  return true;
}

/* A stride: a number with an optional sign. */
static bool read_stride(struct builder *b, long *v)
{
  bool negative = eat(b, '-');
  if (!negative)
    eat(b, '+');
  if (!read_number(b, v))
    return false;
  if (negative)
    *v = -*v;
  return true;
}

/* ":len" or ":len:stride" after a number or a place, if there; len 1 and stride 1 otherwise. */
static bool read_len_stride(struct builder *b, long *len, long *stride)
{
  *len = 1;
  *stride = 1;
  if (!eat(b, ':'))
    return true;
  if (!read_number(b, len))
    return false;
  if (*len == 0)
    return fail(b, "a length of 0");
  return !eat(b, ':') || read_stride(b, stride);
}

/* ---------------------------------------------------------------- OMP_PLACES, explicit */

/* lo, lo + stride, ... (len numbers) into set. Only the numbers that can be in range are visited,
   so {0:100000000} costs max_os steps, not 10^8. */
static bool add_run(struct builder *b, uint64_t *set, long lo, long len, long stride)
{
  long max_os = b->t->max_os, first = 0, last = len - 1;
  if (stride < 0 && lo + last * stride < 0)
    return fail(b, "a CPU number below 0");
  if (stride == 0) {
    last = 0;
  } else if (stride > 0 && lo + last * stride > max_os) {
    last = lo > max_os ? 0 : (max_os - lo) / stride;
    b->lost = true;
  } else if (stride < 0 && lo > max_os) {
    first = (lo - max_os + (-stride) - 1) / (-stride); /* the first k in range */
    b->lost = true;
  }
  for (long k = first; k <= last; k++)
    add_cpu(b, set, lo + k * stride);
  return true;
}

/* n, n:len or n:len:stride inside braces; !n records an exclusion. */
static bool read_res_interval(struct builder *b, uint64_t *set)
{
  long lo, len, stride;
  if (eat(b, '!')) {
    if (!read_number(b, &lo))
      return false;
    if (lo <= b->t->max_os)
      b->minus[lo / 64] |= (uint64_t)1 << (lo % 64);
    return true;
  }
  return read_number(b, &lo) && read_len_stride(b, &len, &stride) &&
         add_run(b, set, lo, len, stride);
}

/* {res-list} or a single number, into set (empty on entry). */
static bool read_place(struct builder *b, uint64_t *set)
{
  long cpu;
  if (!eat(b, '{')) {
    if (!read_number(b, &cpu))
      return false;
    add_cpu(b, set, cpu);
    return true;
  }
  memset(b->minus, 0, b->words * sizeof(uint64_t));
  do
    if (!read_res_interval(b, set))
      return false;
  while (eat(b, ','));
  if (!eat(b, '}'))
    return fail(b, "a place is not closed with }");
  for (size_t w = 0; w < b->words; w++) {
    if (b->minus[w] & ~set[w])
      return fail(b, "an excluded CPU is not in its place");
    set[w] &= ~b->minus[w];
  }
  return true;
}

/* Copies 1 .. len-1 of place i, copy k shifted by k * stride. */
static bool repeat_place(struct builder *b, unsigned i, long len, long stride)
{
  long lo = lowest_cpu(b, place_at(b, i)), copies = len - 1, max_os = b->t->max_os;
  if (copies == 0)
    return true;
  if (lo < 0) { /* nothing in range to copy: the copies would all be dropped */
    b->lost = true;
    return true;
  }
  if (stride < 0 && lo + copies * stride < 0)
    return fail(b, "a CPU number below 0");
  /* Copies past the machine hold nothing (stride > 0); identical ones (stride 0) stop at
     max_os + 1 places in all. */
  long useful = stride > 0 ? (max_os - lo) / stride : stride == 0 ? max_os : copies;
  if (copies > useful) {
    copies = useful;
    b->lost = true;
  }
  for (long k = 1; k <= copies; k++) {
    long j = append_place(b);
    if (j < 0)
      return false;
    const uint64_t *src = place_at(b, i);
    uint64_t *dst = place_at(b, (unsigned)j);
    for (size_t w = 0; w < b->words; w++)
      for (uint64_t bits = src[w]; bits != 0; bits &= bits - 1)
        add_cpu(b, dst, (long)(w * 64) + __builtin_ctzll(bits) + k * stride);
  }
  return true;
}

/* !place: takes the first equal place out of the list. */
static bool exclude_place(struct builder *b)
{
  long j = append_place(b);
  if (j < 0 || !read_place(b, place_at(b, (unsigned)j)))
    return false;
  const uint64_t *gone = place_at(b, (unsigned)j);
  for (unsigned i = 0; i < (unsigned)j; i++)
    if (memcmp(place_at(b, i), gone, b->words * sizeof(uint64_t)) == 0) {
      b->n--; /* the excluded place itself, last in the list */
      remove_place(b, i);
      return true;
    }
  bool past_the_machine = is_empty(b, gone);
  b->n--;
  return past_the_machine || fail(b, "an excluded place is not in the list");
}

/* place, place:len, place:len:stride or !place. */
static bool read_place_interval(struct builder *b)
{
  if (eat(b, '!'))
    return exclude_place(b);
  long i = append_place(b), len, stride;
  return i >= 0 && read_place(b, place_at(b, (unsigned)i)) &&
         read_len_stride(b, &len, &stride) && repeat_place(b, (unsigned)i, len, stride);
}

static bool read_explicit(struct builder *b)
{
  do
    if (!read_place_interval(b))
      return false;
  while (eat(b, ','));
  skip_spaces(b);
  return *b->p == '\0' || fail(b, "unexpected text after the places");
}

/* ---------------------------------------------------------------- OMP_PLACES, abstract names */

/* L2_CACHES has no name of its own: it is ll_caches on a machine without L3 caches. */
enum level { THREADS, CORES, LL_CACHES, NUMA_DOMAINS, SOCKETS, L2_CACHES };

static const struct {
  const char *name;
  enum level level;
} abstract_names[] = {{"threads", THREADS},           {"cores", CORES},
                      {"ll_caches", LL_CACHES},       {"numa_domains", NUMA_DOMAINS},
                      {"sockets", SOCKETS}};

/* The last level cache of the machine: L3 if every CPU has one, else L2, else none (cores). */
static enum level ll_cache_level(const struct lite_topo *t)
{
  bool all_l3 = t->ncpus > 0, all_l2 = t->ncpus > 0;
  for (unsigned i = 0; i < t->ncpus; i++) {
    all_l3 = all_l3 && t->cpus[i].l3 >= 0;
    all_l2 = all_l2 && t->cpus[i].l2 >= 0;
  }
  return all_l3 ? LL_CACHES : all_l2 ? L2_CACHES : CORES;
}

/* The group of CPU i at a level, as an index >= 0 (ids of -1 share group 0). */
static int group_of(const struct lite_topo *t, unsigned i, enum level level)
{
  const struct lite_topo_cpu *c = &t->cpus[i];
  switch (level) {
  case THREADS: return (int)i;
  case CORES: return c->core + 1;
  case LL_CACHES: return c->l3 + 1;
  case L2_CACHES: return c->l2 + 1;
  case NUMA_DOMAINS: return c->numa + 1;
  case SOCKETS: return c->package + 1;
  }
  return 0;
}

/* The first count groups of the topology's CPUs, in the order their first CPU comes. */
static bool build_abstract(struct builder *b, enum level named, long count)
{
  const struct lite_topo *t = b->t;
  enum level level = named == LL_CACHES ? ll_cache_level(t) : named;
  int max_group = 0;
  for (unsigned i = 0; i < t->ncpus; i++)
    if (group_of(t, i, level) > max_group)
      max_group = group_of(t, i, level);
  long *place_of = malloc(((size_t)max_group + 1) * sizeof *place_of);
  if (place_of == NULL)
    return fail(b, "out of memory");
  for (int g = 0; g <= max_group; g++)
    place_of[g] = -1;
  for (unsigned i = 0; i < t->ncpus; i++) {
    int g = group_of(t, i, level);
    if (place_of[g] < 0 && b->n < count && (place_of[g] = append_place(b)) < 0)
      break;
    if (place_of[g] >= 0)
      add_cpu(b, place_at(b, (unsigned)place_of[g]), t->cpus[i].os);
  }
  free(place_of);
  return b->error == NULL;
}

/* name or name(count), any case, spaces around. */
static bool read_abstract(struct builder *b)
{
  const char *word = b->p;
  size_t len = 0;
  while (isalpha((unsigned char)word[len]) || word[len] == '_')
    len++;
  b->p += len;
  for (size_t k = 0; k < sizeof abstract_names / sizeof abstract_names[0]; k++) {
    if (strlen(abstract_names[k].name) != len || strncasecmp(word, abstract_names[k].name, len))
      continue;
    long count = NUMBER_CLAMP;
    if (eat(b, '(') && (!read_number(b, &count) || !eat(b, ')')))
      return fail(b, "a count in parentheses was expected");
    if (count == 0)
      return fail(b, "a count of 0");
    skip_spaces(b);
    if (*b->p != '\0')
      return fail(b, "unexpected text after the place name");
    return build_abstract(b, abstract_names[k].level, count);
  }
  return fail(b, "unknown place name");
}

/* ---------------------------------------------------------------- GOMP_CPU_AFFINITY */

/* The next character, if it is c; no spaces before it (they separate CPUs here). */
static bool eat_here(struct builder *b, char c)
{
  if (*b->p != c)
    return false;
  b->p++;
  return true;
}

/* One place per CPU of n, n-m or n-m:stride (no spaces inside, as libgomp). */
static bool read_cpu_range(struct builder *b)
{
  long beg, end, stride = 1;
  if (!read_number(b, &beg))
    return false;
  end = beg;
  if (eat_here(b, '-')) {
    if (!isdigit((unsigned char)*b->p) || !read_number(b, &end))
      return fail(b, "a range needs its last CPU right after the -");
    if (end < beg)
      return fail(b, "a range that ends below its start");
    if (eat_here(b, ':') && (!isdigit((unsigned char)*b->p) || !read_number(b, &stride)))
      return fail(b, "a stride must follow the : at once");
    if (stride == 0)
      return fail(b, "a stride of 0");
  }
  long cpu = beg;
  for (; cpu <= end && cpu <= b->t->max_os; cpu += stride) {
    long i = append_place(b);
    if (i < 0)
      return false;
    add_cpu(b, place_at(b, (unsigned)i), cpu);
  }
  if (cpu <= end)
    b->lost = true;
  return true;
}

static bool read_cpu_list(struct builder *b)
{
  for (;;) {
    if (!read_cpu_range(b))
      return false;
    const char *before = b->p;
    skip_spaces(b);
    if (*b->p == '\0')
      return true;
    if (!eat(b, ',') && b->p == before)
      return fail(b, "CPUs must be separated by spaces or commas");
  }
}

/* ---------------------------------------------------------------- the result */

/* Place i's CPUs that the process may use, ascending, into *out; false if none (or no memory). */
static bool usable_place(struct builder *b, unsigned i, struct lite_place *out, bool *reduced)
{
  const uint64_t *set = place_at(b, i);
  unsigned named = 0, usable = 0;
  for (size_t w = 0; w < b->words; w++)
    named += (unsigned)__builtin_popcountll(set[w]);
  out->cpus = named ? malloc(named * sizeof *out->cpus) : NULL;
  if (out->cpus == NULL) {
    *reduced = true;
    return false;
  }
  for (size_t w = 0; w < b->words; w++)
    for (uint64_t bits = set[w]; bits != 0; bits &= bits - 1) {
      int cpu = (int)(w * 64) + __builtin_ctzll(bits);
      if (lite_topo_find(b->t, cpu) != NULL)
        out->cpus[usable++] = cpu;
    }
  out->ncpus = usable;
  *reduced = *reduced || usable < named;
  if (usable == 0) {
    free(out->cpus);
    out->cpus = NULL;
  }
  return usable > 0;
}

/* Takes the CPUs the process may not use out, drops empty places, warns (once) if that changed
   anything, and hands the list over. */
static bool finish(struct builder *b, struct lite_place_list *out)
{
  out->places = b->n ? calloc(b->n, sizeof *out->places) : NULL;
  bool reduced = b->lost || (b->n > 0 && out->places == NULL);
  for (unsigned i = 0; out->places != NULL && i < b->n; i++)
    if (usable_place(b, i, &out->places[out->n], &reduced))
      out->n++;
  if (out->n == 0) {
    lite_warn("%s='%.200s': no place is left (%s); threads run unbound", b->name, b->value,
              b->n == 0 ? "every place was excluded" : "none holds a CPU this process may use");
    lite_places_free(out);
    return false;
  }
  if (reduced)
    lite_warn("%s='%.200s': CPUs this process may not use (or past the machine's last) were "
              "left out; %u place%s left",
              b->name, b->value, out->n, out->n == 1 ? "" : "s");
  return true;
}

typedef bool reader(struct builder *b);

/* Reads value with read, then finishes the list; one warning on any error. */
static bool parse_with(reader *read, const char *name, const char *value,
                       const struct lite_topo *t, struct lite_place_list *out)
{
  struct builder b;
  memset(out, 0, sizeof *out);
  if (value == NULL)
    return false;
  if (!builder_init(&b, t, name, value)) {
    lite_warn("%s: out of memory while reading the places", name);
    builder_free(&b);
    return false;
  }
  skip_spaces(&b);
  bool ok = (*b.p != '\0' || fail(&b, "an empty value")) && read(&b);
  if (!ok)
    lite_warn("invalid value for environment variable %s: '%.200s' (%s)", name, value,
              b.error != NULL ? b.error : "cannot be read");
  else
    ok = finish(&b, out);
  builder_free(&b);
  return ok;
}

static bool read_omp_places(struct builder *b)
{
  return isalpha((unsigned char)*b->p) ? read_abstract(b) : read_explicit(b);
}

static bool read_default(struct builder *b) { return build_abstract(b, CORES, NUMBER_CLAMP); }

bool lite_places_parse(const char *value, const struct lite_topo *t, struct lite_place_list *out)
{
  return parse_with(read_omp_places, "OMP_PLACES", value, t, out);
}

bool lite_places_parse_as(const char *name, const char *value, const struct lite_topo *t,
                          struct lite_place_list *out)
{
  return parse_with(read_omp_places, name, value, t, out);
}

bool lite_places_parse_gomp_cpu_affinity(const char *value, const struct lite_topo *t,
                                         struct lite_place_list *out)
{
  return parse_with(read_cpu_list, "GOMP_CPU_AFFINITY", value, t, out);
}

bool lite_places_default(const struct lite_topo *t, struct lite_place_list *out)
{
  return parse_with(read_default, "OMP_PLACES", "cores", t, out);
}

void lite_places_free(struct lite_place_list *list)
{
  for (unsigned i = 0; list->places != NULL && i < list->n; i++)
    free(list->places[i].cpus);
  free(list->places);
  list->places = NULL;
  list->n = 0;
}

/* ---------------------------------------------------------------- OMP_DISPLAY_ENV's form */

struct text {
  char *buf;
  size_t size, len; /* len: what the whole text needs, written or not */
};

static void put(struct text *x, const char *fmt, unsigned a, unsigned b)
{
  size_t room = x->len < x->size ? x->size - x->len : 0;
  int n = snprintf(room ? x->buf + x->len : NULL, room, fmt, a, b);
  if (n > 0)
    x->len += (size_t)n;
}

/* libgomp's form: a run of two or more consecutive CPUs as first:count. */
static void put_place(struct text *x, const struct lite_place *p)
{
  put(x, "{", 0, 0);
  for (unsigned i = 0; i < p->ncpus;) {
    unsigned run = 1;
    while (i + run < p->ncpus && p->cpus[i + run] == p->cpus[i] + (int)run)
      run++;
    if (run > 1)
      put(x, i ? ",%u:%u" : "%u:%u", (unsigned)p->cpus[i], run);
    else
      put(x, i ? ",%u" : "%u", (unsigned)p->cpus[i], 0);
    i += run;
  }
  put(x, "}", 0, 0);
}

size_t lite_places_format(const struct lite_place_list *list, char *buf, size_t size)
{
  struct text x = {.buf = buf, .size = size};
  if (size > 0)
    buf[0] = '\0';
  for (unsigned i = 0; i < list->n; i++) {
    if (i > 0)
      put(&x, ",", 0, 0);
    put_place(&x, &list->places[i]);
  }
  return x.len;
}
