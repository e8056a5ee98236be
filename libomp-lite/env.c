/* The environment: every OMP_*, GOMP_* and OMPLITE_* variable is read once, at load time, into
   lite_env, with libgomp 12's syntax and meaning. A malformed value never stops the program: it
   gets one line on stderr naming the variable and the value, and the default is kept. */
#include "env.h"
#include "profile/profile.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------------------- wait policy constants */

/* How long a waiter spins before it parks, when neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT is
   set. Parking and waking cost 20-25 us here (DESIGN §5), so the spin must cover the typical gap
   between two regions; 300 us is also what libgomp's default GOMP_SPINCOUNT (300000) comes to. */
#define LITE_SPIN_NS_DEFAULT 300000ull
/* OMP_WAIT_POLICY=active: spin much longer, but still bounded (libgomp spins for minutes). */
#define LITE_SPIN_NS_ACTIVE 50000000ull
/* The longest spin anything may ask for, GOMP_SPINCOUNT=infinite included: a runtime that
   spins forever burns a CPU after the program has gone serial (DESIGN §2). */
#define LITE_SPIN_NS_MAX 1000000000ull
/* How long a waiter polls with sched_yield when runtime threads outnumber the CPUs. */
#define LITE_YIELD_NS_DEFAULT 100000ull
/* One GOMP_SPINCOUNT unit, in ns: libgomp's spin loop costs about that per iteration. */
#define LITE_NS_PER_SPINCOUNT 1ull

/* libgomp's GOMP_SPINCOUNT values, kept for OMP_DISPLAY_ENV=verbose. */
#define GOMP_SPINCOUNT_DEFAULT 300000ull
#define GOMP_SPINCOUNT_ACTIVE 30000000000ull

/* What OMP_DISPLAY_ENV shows as _OPENMP: the version gcc 12's libgomp reports. */
#define LITE_OPENMP_VERSION "201511"

static char default_affinity_format[] = "level %L thread %i affinity %A";

/* Sane values from the first instruction on, in case something calls in before lite_env_init. */
struct lite_env lite_env LITE_ALIGNED = {
  .icv = {
    .nthreads = 1,
    .max_active_levels = 1,
    .thread_limit = UINT_MAX,
    .run_sched = omp_sched_dynamic,
    .bind = omp_proc_bind_false,
    .default_allocator = omp_default_mem_alloc,
  },
  .ncpus = 1,
  .spincount = GOMP_SPINCOUNT_DEFAULT,
  .spin_ns = LITE_SPIN_NS_DEFAULT,
  .yield_ns = LITE_YIELD_NS_DEFAULT,
  .affinity_format = default_affinity_format,
};

/* ---------------------------------------------------------------- messages */

/* The whole line goes out in one stdio call, so that lines from several threads do not mix. */
static void message(const char *kind, const char *fmt, va_list ap)
{
  char line[1024];
  int n = snprintf(line, sizeof line, "libomp-lite: %s: ", kind);
  vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
  strcat(line, "\n");
  fputs(line, stderr);
}

void lite_warn(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  message("warning", fmt, ap);
  va_end(ap);
}

void lite_fatal(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  message("fatal", fmt, ap);
  va_end(ap);
  abort();
}

void lite_error_exit(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  message("error", fmt, ap);
  va_end(ap);
  exit(EXIT_FAILURE);
}

/* ---------------------------------------------------------------- lexing helpers */

static const char *skip_space(const char *s)
{
  while (isspace((unsigned char)*s))
    s++;
  return s;
}

static bool only_space_left(const char *s) { return *skip_space(s) == '\0'; }

/* Consumes word (any letter case) at *s, after leading space, if a letter or digit does not follow. */
static bool take_word(const char **s, const char *word)
{
  const char *p = skip_space(*s);
  size_t len = strlen(word);
  if (strncasecmp(p, word, len) != 0 || isalnum((unsigned char)p[len]))
    return false;
  *s = p + len;
  return true;
}

/* Whether s is word alone, but for letter case and surrounding space. */
static bool is_word(const char *s, const char *word)
{
  return take_word(&s, word) && only_space_left(s);
}

/* Consumes the character c at *s, after leading space. */
static bool take_char(const char **s, char c)
{
  const char *p = skip_space(*s);
  if (*p != c)
    return false;
  *s = p + 1;
  return true;
}

/* Consumes a decimal number (optional '+') at *s, after leading space. A number too big for
   unsigned long long saturates and sets *overflow, so callers choose between clamping and
   rejecting. A '-' is no number: negative values are always malformed here. */
static bool take_number(const char **s, unsigned long long *value, bool *overflow)
{
  const char *p = skip_space(*s);
  if (*p == '+')
    p++;
  if (!isdigit((unsigned char)*p))
    return false;
  unsigned long long v = 0;
  *overflow = false;
  for (; isdigit((unsigned char)*p); p++) {
    unsigned digit = (unsigned)(*p - '0');
    if (v > (ULLONG_MAX - digit) / 10) {
      *overflow = true;
      v = ULLONG_MAX;
    } else if (!*overflow) {
      v = v * 10 + digit;
    }
  }
  *value = v;
  *s = p;
  return true;
}

/* Multiplies *v by factor unless that overflows max. */
static bool scale(unsigned long long *v, unsigned long long factor, unsigned long long max)
{
  if (*v > max / factor)
    return false;
  *v *= factor;
  return true;
}

/* ---------------------------------------------------------------- parsers (env.h) */

bool lite_parse_bool(const char *s, bool *out)
{
  bool v;
  if (take_word(&s, "true"))
    v = true;
  else if (take_word(&s, "false"))
    v = false;
  else
    return false;
  if (!only_space_left(s))
    return false;
  *out = v;
  return true;
}

bool lite_parse_ulong(const char *s, unsigned long long max, unsigned long long *out)
{
  unsigned long long v;
  bool overflow;
  if (!take_number(&s, &v, &overflow) || overflow || v > max || !only_space_left(s))
    return false;
  *out = v;
  return true;
}

bool lite_parse_nthreads_list(const char *s, unsigned **list, unsigned *len)
{
  unsigned n = 1;
  for (const char *c = s; *c != '\0'; c++)
    n += *c == ',';
  unsigned *entries = malloc(n * sizeof *entries);
  if (entries == NULL)
    return false;
  for (unsigned i = 0; i < n; i++) {
    unsigned long long v;
    bool overflow;
    if (!take_number(&s, &v, &overflow) || v == 0 || !(take_char(&s, ',') || i == n - 1)) {
      free(entries);
      return false;
    }
    /* A count too big to store is still a count: saturate, and let the caller clamp it. */
    entries[i] = v > UINT_MAX ? UINT_MAX : (unsigned)v;
  }
  if (!only_space_left(s)) {
    free(entries);
    return false;
  }
  *list = entries;
  *len = n;
  return true;
}

enum schedule_modifier { MOD_NONE, MOD_MONOTONIC, MOD_NONMONOTONIC };

/* Consumes "word:" at *s (space allowed around the colon); leaves *s alone if it is not there. */
static bool take_modifier(const char **s, const char *word)
{
  const char *p = *s;
  if (!take_word(&p, word) || !take_char(&p, ':'))
    return false;
  *s = p;
  return true;
}

bool lite_parse_schedule(const char *s, omp_sched_t *kind, int *chunk)
{
  enum schedule_modifier mod = MOD_NONE;
  const char *p = s;
  if (take_modifier(&p, "monotonic"))
    mod = MOD_MONOTONIC;
  else if (take_modifier(&p, "nonmonotonic"))
    mod = MOD_NONMONOTONIC;

  unsigned k;
  if (take_word(&p, "static"))
    k = omp_sched_static;
  else if (take_word(&p, "dynamic"))
    k = omp_sched_dynamic;
  else if (take_word(&p, "guided"))
    k = omp_sched_guided;
  else if (take_word(&p, "auto"))
    k = omp_sched_auto;
  else
    return false;

  unsigned long long c = 0;
  if (take_char(&p, ',')) {
    bool overflow;
    if (!take_number(&p, &c, &overflow) || overflow || c > INT_MAX)
      return false;
  }
  if (!only_space_left(p))
    return false;

  /* OpenMP: static is monotonic unless said otherwise, every other kind nonmonotonic. */
  if (mod == MOD_MONOTONIC || (mod == MOD_NONE && k == omp_sched_static))
    k |= omp_sched_monotonic;
  *kind = (omp_sched_t)k;
  *chunk = (int)c;
  return true;
}

/* One OMP_PROC_BIND keyword at *s. */
static bool take_bind_word(const char **s, omp_proc_bind_t *bind)
{
  static const struct { const char *word; omp_proc_bind_t bind; } words[] = {
    { "false", omp_proc_bind_false },     { "true", omp_proc_bind_true },
    { "primary", omp_proc_bind_primary }, { "master", omp_proc_bind_master },
    { "close", omp_proc_bind_close },     { "spread", omp_proc_bind_spread },
  };
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
    if (take_word(s, words[i].word)) {
      *bind = words[i].bind;
      return true;
    }
  }
  return false;
}

bool lite_parse_proc_bind_list(const char *s, omp_proc_bind_t **list, unsigned *len)
{
  unsigned n = 1;
  for (const char *c = s; *c != '\0'; c++)
    n += *c == ',';
  omp_proc_bind_t *entries = malloc(n * sizeof *entries);
  if (entries == NULL)
    return false;
  for (unsigned i = 0; i < n; i++) {
    bool ok = take_bind_word(&s, &entries[i]) && (take_char(&s, ',') || i == n - 1);
    /* true and false describe binding as a whole: they make no sense as one level of a list. */
    if (ok && n > 1)
      ok = entries[i] != omp_proc_bind_true && entries[i] != omp_proc_bind_false;
    if (!ok) {
      free(entries);
      return false;
    }
  }
  if (!only_space_left(s)) {
    free(entries);
    return false;
  }
  *list = entries;
  *len = n;
  return true;
}

bool lite_parse_stacksize(const char *s, size_t *bytes)
{
  unsigned long long v;
  bool overflow;
  if (!take_number(&s, &v, &overflow) || overflow)
    return false;
  unsigned long long unit = 1024; /* no suffix: kilobytes, as OpenMP says */
  s = skip_space(s);
  switch (*s) {
  case 'b': case 'B': unit = 1; s++; break;
  case 'k': case 'K': unit = 1024; s++; break;
  case 'm': case 'M': unit = 1024ull * 1024; s++; break;
  case 'g': case 'G': unit = 1024ull * 1024 * 1024; s++; break;
  }
  if (!only_space_left(s) || !scale(&v, unit, SIZE_MAX))
    return false;
  *bytes = (size_t)v;
  return true;
}

bool lite_parse_spincount(const char *s, unsigned long long *count)
{
  if (is_word(s, "infinite") || is_word(s, "infinity")) {
    *count = ULLONG_MAX;
    return true;
  }
  unsigned long long v;
  bool overflow;
  if (!take_number(&s, &v, &overflow) || overflow)
    return false;
  unsigned long long unit = 1;
  s = skip_space(s);
  switch (*s) {
  case 'k': case 'K': unit = 1000ull; s++; break;
  case 'm': case 'M': unit = 1000000ull; s++; break;
  case 'g': case 'G': unit = 1000000000ull; s++; break;
  case 't': case 'T': unit = 1000000000000ull; s++; break;
  }
  if (!only_space_left(s) || !scale(&v, unit, ULLONG_MAX))
    return false;
  *count = v;
  return true;
}

bool lite_parse_wait_policy(const char *s, enum lite_wait_policy *out)
{
  enum lite_wait_policy v;
  if (take_word(&s, "active"))
    v = LITE_WAIT_ACTIVE;
  else if (take_word(&s, "passive"))
    v = LITE_WAIT_PASSIVE;
  else
    return false;
  if (!only_space_left(s))
    return false;
  *out = v;
  return true;
}

bool lite_parse_display_env(const char *s, int *out)
{
  bool b;
  if (is_word(s, "verbose")) {
    *out = 2;
    return true;
  }
  if (!lite_parse_bool(s, &b))
    return false;
  *out = b ? 1 : 0;
  return true;
}

/* ---------------------------------------------------------------- reading the variables */

/* The state lite_env_parse threads through the per-variable readers. */
struct env_reader {
  struct lite_env *env;
  lite_getenv_fn get;
  bool secure;             /* setuid or setgid: no file the environment names (file_allowed) */
  const char *ignored[4];  /* the variables ignored for that, for the one warning */
  unsigned nignored;
};

static void warn_invalid(const char *name, const char *value, const char *what,
                         const char *fallback)
{
  lite_warn("%s='%s' is not %s; using the default (%s)", name, value, what, fallback);
}

/* Whether variable name's value, a file name, may be used. Not in a setuid or setgid program:
   its environment is its caller's, who would have it write with privileges the caller lacks
   (issue 37: a setuid-root program overwrote a root-only file that an ordinary user named in
   OMPLITE_PROFILE). The variable is then ignored, and warn_ignored says so once for all of them.
   glibc does the same with LD_DEBUG_OUTPUT while LD_DEBUG, on stderr, stays: OMPLITE_PROFILE=1
   stays too. A variable that will name a library to load (OMP_TOOL_LIBRARIES, once tools are
   loaded) belongs here as well. */
static bool file_allowed(struct env_reader *r, const char *name)
{
  if (!r->secure)
    return true;
  if (r->nignored < sizeof r->ignored / sizeof *r->ignored)
    r->ignored[r->nignored++] = name;
  return false;
}

static void warn_ignored(const struct env_reader *r)
{
  if (r->nignored == 0)
    return;
  char names[128];
  size_t at = 0;
  names[0] = 0;
  for (unsigned i = 0; i < r->nignored && at < sizeof names; i++)
    at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", i ? ", " : "", r->ignored[i]);
  lite_warn("%s ignored: a setuid or setgid program writes no file its environment names", names);
}

/* A boolean variable: returns true if it was set (and valid). */
static bool read_bool(struct env_reader *r, const char *name, bool *out)
{
  const char *v = r->get(name);
  if (v == NULL)
    return false;
  if (lite_parse_bool(v, out))
    return true;
  warn_invalid(name, v, "true or false", *out ? "true" : "false");
  return false;
}

/* OMP_ALLOCATOR: the name of a predefined allocator, in any case (OpenMP 5.2's
   memspace:traits form is not in libgomp 12 either). */
static const char *const allocator_names[] = {
    NULL, "omp_default_mem_alloc", "omp_large_cap_mem_alloc", "omp_const_mem_alloc",
    "omp_high_bw_mem_alloc", "omp_low_lat_mem_alloc", "omp_cgroup_mem_alloc",
    "omp_pteam_mem_alloc", "omp_thread_mem_alloc"};

static void read_allocator(struct env_reader *r)
{
  const char *v = r->get("OMP_ALLOCATOR");
  if (v == NULL)
    return;
  size_t len = strlen(v);
  while (len > 0 && isspace((unsigned char)v[len - 1]))
    len--;
  while (len > 0 && isspace((unsigned char)*v))
    v++, len--;
  for (unsigned i = 1; i < sizeof allocator_names / sizeof *allocator_names; i++) {
    if (strlen(allocator_names[i]) == len && strncasecmp(v, allocator_names[i], len) == 0) {
      r->env->icv.default_allocator = (omp_allocator_handle_t)i;
      return;
    }
  }
  warn_invalid("OMP_ALLOCATOR", v, "a predefined allocator such as omp_default_mem_alloc",
               "omp_default_mem_alloc");
}

/* OMP_TARGET_OFFLOAD: mandatory, disabled or default, in any case. */
static const char *const offload_names[] = {"DEFAULT", "MANDATORY", "DISABLED"};

static void read_target_offload(struct env_reader *r)
{
  const char *v = r->get("OMP_TARGET_OFFLOAD");
  if (v == NULL)
    return;
  for (unsigned i = 0; i < 3; i++) {
    if (strcasecmp(v, offload_names[i]) == 0) {
      r->env->target_offload = (enum lite_offload)i;
      return;
    }
  }
  warn_invalid("OMP_TARGET_OFFLOAD", v, "mandatory, disabled or default", "default");
}

/* libomp-lite's own switches also take 1 and 0. */
static void read_switch(struct env_reader *r, const char *name, bool *out)
{
  const char *v = r->get(name);
  if (v != NULL && (strcmp(v, "1") == 0 || strcmp(v, "0") == 0))
    *out = v[0] == '1';
  else
    read_bool(r, name, out);
}

/* An integer variable in [min, max]: returns true if it was set (and valid). */
static bool read_int(struct env_reader *r, const char *name, unsigned long long min,
                     unsigned long long max, const char *what, unsigned long long *out)
{
  const char *v = r->get(name);
  if (v == NULL)
    return false;
  unsigned long long n;
  if (lite_parse_ulong(v, max, &n) && n >= min) {
    *out = n;
    return true;
  }
  char fallback[32];
  snprintf(fallback, sizeof fallback, "%llu", *out);
  warn_invalid(name, v, what, fallback);
  return false;
}

/* OMPLITE_BARRIER: auto (the default), flat or tree, in any case. */
static void read_barrier(struct env_reader *r)
{
  static const char *const names[] = {"auto", "flat", "tree"};
  r->env->barrier = LITE_BARRIER_AUTO;
  const char *v = r->get("OMPLITE_BARRIER");
  if (v == NULL)
    return;
  for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcasecmp(v, names[i]) == 0) {
      r->env->barrier = (unsigned char)i;
      return;
    }
  warn_invalid("OMPLITE_BARRIER", v, "auto, flat or tree", "auto");
}

/* OMPLITE_STEAL: monotonic (the default), free or off, in any case. */
static void read_steal(struct env_reader *r)
{
  static const char *const names[] = {"monotonic", "free", "off"};
  r->env->steal = LITE_STEAL_MONOTONIC;
  const char *v = r->get("OMPLITE_STEAL");
  if (v == NULL)
    return;
  for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcasecmp(v, names[i]) == 0) {
      r->env->steal = (unsigned char)i;
      return;
    }
  warn_invalid("OMPLITE_STEAL", v, "monotonic, free or off", "monotonic");
}

/* OMPLITE_PROFILE: 1 or true (the table on stderr at exit), 0 or false (off), or a file name.
   OMPLITE_TRACE: a file name for the timeline, or 0 / false. OMPLITE_TRACE_EVENTS: the trace's
   events per thread. An empty value is a mistake, not a file name: one warning, off. A file
   name in a setuid or setgid program: off (file_allowed). */
static void read_profile(struct env_reader *r)
{
  struct lite_env *env = r->env;
  env->profile = 0;
  free((char *)lite_prof_path);
  free((char *)lite_trace_path);
  lite_prof_path = lite_trace_path = NULL;
  const char *v = r->get("OMPLITE_PROFILE");
  bool b;
  if (v != NULL) {
    if (*v == 0)
      warn_invalid("OMPLITE_PROFILE", v, "1, 0 or a file name", "off");
    else if (strcmp(v, "1") == 0 || (lite_parse_bool(v, &b) && b))
      env->profile |= LITE_PROF_TABLE;
    else if (strcmp(v, "0") != 0 && !lite_parse_bool(v, &b) &&
             file_allowed(r, "OMPLITE_PROFILE") && (lite_prof_path = strdup(v)) != NULL)
      env->profile |= LITE_PROF_TABLE;
  }
  v = r->get("OMPLITE_TRACE");
  if (v != NULL) {
    if (*v == 0 || strcmp(v, "1") == 0 || (lite_parse_bool(v, &b) && b))
      warn_invalid("OMPLITE_TRACE", v, "a file name (such as trace.json) or 0", "off");
    else if (strcmp(v, "0") != 0 && !lite_parse_bool(v, &b) && file_allowed(r, "OMPLITE_TRACE") &&
             (lite_trace_path = strdup(v)) != NULL)
      env->profile |= LITE_PROF_TRACE;
  }
  unsigned long long n = LITE_TRACE_EVENTS_DEFAULT;
  lite_trace_events = LITE_TRACE_EVENTS_DEFAULT;
  if (read_int(r, "OMPLITE_TRACE_EVENTS", 16, 1u << 26, "a number of events from 16 to 67108864",
               &n))
    lite_trace_events = (unsigned)n;
}

/* OMP_NUM_THREADS: nthreads-var, a list for nested levels. Returns its length (0: not set). */
static unsigned read_num_threads(struct env_reader *r)
{
  struct lite_env *env = r->env;
  const char *v = r->get("OMP_NUM_THREADS");
  if (v == NULL)
    return 0;
  if (!lite_parse_nthreads_list(v, &env->nthreads_list, &env->nthreads_list_len)) {
    char fallback[32];
    snprintf(fallback, sizeof fallback, "%u", env->icv.nthreads);
    warn_invalid("OMP_NUM_THREADS", v, "a valid thread count", fallback);
    return 0;
  }
  /* libgomp keeps any count and then fails starting 100000 threads; clamp to what team.c
     would start anyway (LITE_MAX_TEAM_THREADS), and say so once, here. */
  unsigned cap = LITE_MAX_TEAM_THREADS;
  bool clamped = false;
  for (unsigned i = 0; i < env->nthreads_list_len; i++) {
    if (env->nthreads_list[i] > cap) {
      env->nthreads_list[i] = cap;
      clamped = true;
    }
  }
  if (clamped)
    lite_warn("OMP_NUM_THREADS='%s' asks for more threads than libomp-lite starts in one team; "
              "using at most %u", v, cap);
  env->icv.nthreads = env->nthreads_list[0];
  return env->nthreads_list_len;
}

/* OMP_PROC_BIND: bind-var, a list for nested levels. Returns its length (0: not set). */
static unsigned read_proc_bind(struct env_reader *r)
{
  struct lite_env *env = r->env;
  const char *v = r->get("OMP_PROC_BIND");
  if (v == NULL)
    return 0;
  if (!lite_parse_proc_bind_list(v, &env->bind_list, &env->bind_list_len)) {
    warn_invalid("OMP_PROC_BIND", v, "true, false or a list of primary, master, close, spread",
                 "false");
    return 0;
  }
  env->icv.bind = env->bind_list[0];
  return env->bind_list_len;
}

/* OMP_PLACES and GOMP_CPU_AFFINITY are parsed against the topology (affinity/bind.c); here only
   their effect on bind-var: with either set and OMP_PROC_BIND unset, threads are bound (true),
   as in libgomp. An empty value counts as unset. */
static void read_places(struct env_reader *r, unsigned bind_len)
{
  struct lite_env *env = r->env;
  const char *places = r->get("OMP_PLACES");
  const char *cpus = r->get("GOMP_CPU_AFFINITY");
  env->places = places != NULL && places[strspn(places, " \t")] != '\0' ? places : NULL;
  env->cpu_affinity = cpus != NULL && cpus[strspn(cpus, " \t")] != '\0' ? cpus : NULL;
  if (bind_len == 0 && (env->places != NULL || env->cpu_affinity != NULL))
    env->icv.bind = omp_proc_bind_true;
  /* LLVM's KMP_AFFINITY and KMP_HW_SUBSET: kept as given; affinity/bind.c translates them at the
     first OpenMP call, with the topology (affinity/kmp_env.c), and decides precedence there. */
  const char *kmp = r->get("KMP_AFFINITY");
  const char *subset = r->get("KMP_HW_SUBSET");
  env->kmp_affinity = kmp != NULL && kmp[strspn(kmp, " \t")] != '\0' ? kmp : NULL;
  env->kmp_hw_subset = subset != NULL && subset[strspn(subset, " \t")] != '\0' ? subset : NULL;
}

/* max-active-levels-var, by libgomp 12's rule: OMP_MAX_ACTIVE_LEVELS if set; else the supported
   maximum if OMP_NESTED=true, 1 if OMP_NESTED=false; else the maximum if OMP_NUM_THREADS or
   OMP_PROC_BIND lists more than one level, 1 otherwise. */
static void read_active_levels(struct env_reader *r, unsigned nthreads_len, unsigned bind_len)
{
  struct lite_env *env = r->env;
  bool nested = false;
  unsigned levels = 1;
  if (read_bool(r, "OMP_NESTED", &nested))
    levels = nested ? LITE_MAX_ACTIVE_LEVELS : 1;
  else if (nthreads_len > 1 || bind_len > 1)
    levels = LITE_MAX_ACTIVE_LEVELS;

  unsigned long long n = levels;
  const char *v = r->get("OMP_MAX_ACTIVE_LEVELS");
  if (read_int(r, "OMP_MAX_ACTIVE_LEVELS", 0, ULLONG_MAX, "a non-negative number", &n)) {
    if (n > LITE_MAX_ACTIVE_LEVELS) {
      lite_warn("OMP_MAX_ACTIVE_LEVELS='%s' exceeds the supported maximum; using %u", v,
                LITE_MAX_ACTIVE_LEVELS);
      n = LITE_MAX_ACTIVE_LEVELS;
    }
  }
  env->icv.max_active_levels = (unsigned)n;
}

static void read_schedule(struct env_reader *r)
{
  const char *v = r->get("OMP_SCHEDULE");
  if (v == NULL || lite_parse_schedule(v, &r->env->icv.run_sched, &r->env->icv.run_chunk))
    return;
  /* A valid kind with a bad chunk ("guided,abc") keeps the kind with the default chunk, as in
     libgomp, which sets the kind before it reads the chunk. */
  const char *comma = strchr(v, ',');
  char kind[64];
  if (comma != NULL && (size_t)(comma - v) < sizeof kind) {
    memcpy(kind, v, (size_t)(comma - v));
    kind[comma - v] = '\0';
    if (lite_parse_schedule(kind, &r->env->icv.run_sched, &r->env->icv.run_chunk)) {
      lite_warn("OMP_SCHEDULE='%s' has a chunk size that is not a number; using '%s' with the "
                "default chunk", v, kind);
      return;
    }
  }
  warn_invalid("OMP_SCHEDULE", v, "a valid schedule ([monotonic:|nonmonotonic:]kind[,chunk])",
               "dynamic");
}

static bool read_stacksize_var(struct env_reader *r, const char *name)
{
  const char *v = r->get(name);
  if (v == NULL)
    return false;
  size_t bytes;
  if (!lite_parse_stacksize(v, &bytes) || bytes == 0) {
    warn_invalid(name, v, "a valid stack size (a number with an optional B, K, M or G suffix)",
                 "the system's");
    return false;
  }
  /* Below the minimum, pthread_attr_setstacksize fails and no worker could ever start. */
  size_t min = PTHREAD_STACK_MIN;
  if (bytes < min) {
    lite_warn("%s='%s' is below the minimum stack size; using %zu bytes", name, v, min);
    bytes = min;
  }
  r->env->stacksize = bytes;
  return true;
}

/* OMP_STACKSIZE, else GOMP_STACKSIZE (libgomp's older name). */
static void read_stacksize(struct env_reader *r)
{
  if (!read_stacksize_var(r, "OMP_STACKSIZE"))
    read_stacksize_var(r, "GOMP_STACKSIZE");
}

/* A microsecond override of a wait time, capped at LITE_SPIN_NS_MAX. */
static void read_wait_us(struct env_reader *r, const char *name, uint64_t *ns)
{
  unsigned long long us = *ns / 1000;
  if (!read_int(r, name, 0, ULLONG_MAX, "a number of microseconds", &us))
    return;
  if (us > LITE_SPIN_NS_MAX / 1000) {
    lite_warn("%s='%llu' is longer than the %llu us libomp-lite allows; using that", name, us,
              LITE_SPIN_NS_MAX / 1000);
    us = LITE_SPIN_NS_MAX / 1000;
  }
  *ns = us * 1000;
}

/* OMP_WAIT_POLICY, GOMP_SPINCOUNT, OMPLITE_SPIN_US and OMPLITE_YIELD_US, in that order of
   precedence from weakest to strongest. */
static void read_wait_policy(struct env_reader *r)
{
  struct lite_env *env = r->env;
  const char *v = r->get("OMP_WAIT_POLICY");
  if (v != NULL && !lite_parse_wait_policy(v, &env->wait_policy))
    warn_invalid("OMP_WAIT_POLICY", v, "active or passive", "unset");

  switch (env->wait_policy) {
  case LITE_WAIT_ACTIVE:
    env->spincount = GOMP_SPINCOUNT_ACTIVE;
    env->spin_ns = LITE_SPIN_NS_ACTIVE;
    break;
  case LITE_WAIT_PASSIVE:
    env->spincount = 0;
    env->spin_ns = 0;
    break;
  case LITE_WAIT_DEFAULT:
    env->spincount = GOMP_SPINCOUNT_DEFAULT;
    env->spin_ns = LITE_SPIN_NS_DEFAULT;
    break;
  }
  /* Passive means "do not burn CPU while waiting", yields included. */
  env->yield_ns = env->wait_policy == LITE_WAIT_PASSIVE ? 0 : LITE_YIELD_NS_DEFAULT;

  v = r->get("GOMP_SPINCOUNT");
  if (v != NULL) {
    unsigned long long count;
    if (lite_parse_spincount(v, &count)) {
      env->spincount = count;
      env->spin_ns = count > LITE_SPIN_NS_MAX / LITE_NS_PER_SPINCOUNT
                         ? LITE_SPIN_NS_MAX
                         : count * LITE_NS_PER_SPINCOUNT;
    } else {
      char fallback[32];
      snprintf(fallback, sizeof fallback, "%llu", env->spincount);
      warn_invalid("GOMP_SPINCOUNT", v, "a count (with an optional k, M, G or T suffix) or infinite",
                   fallback);
    }
  }
  read_wait_us(r, "OMPLITE_SPIN_US", &env->spin_ns);
  read_wait_us(r, "OMPLITE_YIELD_US", &env->yield_ns);
}

static void read_display_env(struct env_reader *r)
{
  const char *v = r->get("OMP_DISPLAY_ENV");
  if (v != NULL && !lite_parse_display_env(v, &r->env->display_env))
    warn_invalid("OMP_DISPLAY_ENV", v, "true, false or verbose", "false");
}

/* Kept as written: its fields are read where they are expanded (format.c), which cuts a huge
   width there, for this format as for the program's. */
static void read_affinity_format(struct env_reader *r)
{
  const char *v = r->get("OMP_AFFINITY_FORMAT");
  char *copy = v != NULL ? strdup(v) : NULL;
  if (copy != NULL)
    r->env->affinity_format = copy;
}

/* The defaults of everything, before any variable is read. */
static void set_defaults(struct lite_env *env, unsigned ncpus)
{
  memset(env, 0, sizeof *env);
  env->ncpus = ncpus > 0 ? ncpus : 1;
  env->icv.nthreads = env->ncpus;
  env->icv.max_active_levels = 1;
  env->icv.thread_limit = UINT_MAX;
  env->icv.dynamic = false;
  env->icv.run_sched = omp_sched_dynamic; /* libgomp's default: OMP_SCHEDULE='DYNAMIC', chunk 1 */
  env->icv.run_chunk = 0;
  env->icv.bind = omp_proc_bind_false;
  env->icv.default_device = 0;
  env->icv.default_allocator = omp_default_mem_alloc;
  env->wait_policy = LITE_WAIT_DEFAULT;
  env->affinity_format = default_affinity_format;
}

void lite_env_parse(struct lite_env *env, lite_getenv_fn get, unsigned ncpus, bool secure)
{
  struct env_reader r = { env, get, secure, {NULL}, 0 };
  set_defaults(env, ncpus);

  unsigned nthreads_len = read_num_threads(&r);
  unsigned bind_len = read_proc_bind(&r);
  read_places(&r, bind_len);
  read_active_levels(&r, nthreads_len, bind_len);
  read_bool(&r, "OMP_DYNAMIC", &env->icv.dynamic);

  /* The fallback the warning names is what omp_get_thread_limit() then returns (INT_MAX for
     "no limit"), not the unsigned ICV's 4294967295. */
  unsigned long long n = env->icv.thread_limit > INT_MAX ? INT_MAX : env->icv.thread_limit;
  if (read_int(&r, "OMP_THREAD_LIMIT", 1, ULLONG_MAX, "a positive number", &n))
    env->icv.thread_limit = n > UINT_MAX ? UINT_MAX : (unsigned)n; /* beyond: no limit anyway */

  read_schedule(&r);
  read_stacksize(&r);
  read_wait_policy(&r);
  read_bool(&r, "OMP_CANCELLATION", &env->cancellation);
  read_switch(&r, "OMPLITE_LOOP_STATS", &env->loop_stats);
  env->tiny_loops = true;
  read_switch(&r, "OMPLITE_TINY_LOOPS", &env->tiny_loops);
  env->load_watch = true;
  read_switch(&r, "OMPLITE_LOAD_WATCH", &env->load_watch);
  env->heap_keep = true;
  read_switch(&r, "OMPLITE_HEAP_KEEP", &env->heap_keep);
  env->wake_ahead = true;
  read_switch(&r, "OMPLITE_WAKE_AHEAD", &env->wake_ahead);
  read_barrier(&r);
  read_steal(&r);
  read_profile(&r);
  read_bool(&r, "OMP_DISPLAY_AFFINITY", &env->display_affinity);
  read_affinity_format(&r);

  n = 0;
  if (read_int(&r, "OMP_MAX_TASK_PRIORITY", 0, INT_MAX, "a non-negative number", &n))
    env->max_task_priority = (int)n;
  n = 0;
  if (read_int(&r, "OMP_DEFAULT_DEVICE", 0, INT_MAX, "a non-negative number", &n))
    env->icv.default_device = (int)n;
  n = 0;
  if (read_int(&r, "OMP_NUM_TEAMS", 1, INT_MAX, "a positive number", &n))
    env->num_teams = (int)n;
  n = 0;
  if (read_int(&r, "OMP_TEAMS_THREAD_LIMIT", 1, INT_MAX, "a positive number", &n))
    env->teams_thread_limit = (int)n;

  read_target_offload(&r);
  read_allocator(&r);
  read_display_env(&r);
  warn_ignored(&r);
}

void lite_env_free(struct lite_env *env)
{
  free(env->nthreads_list);
  env->nthreads_list = NULL;
  env->nthreads_list_len = 0;
  free(env->bind_list);
  env->bind_list = NULL;
  env->bind_list_len = 0;
  if (env->affinity_format != default_affinity_format)
    free(env->affinity_format);
  env->affinity_format = default_affinity_format;
}

static const char *process_getenv(const char *name) { return getenv(name); }

void lite_env_init(void)
{
  /* The default team follows the CPUs the process started with (a stock libgomp loaded beside
     us may have pinned the initial thread since: affinity/bind.c), capped by the cgroup quota. */
  unsigned ncpus = lite_bind_process_init();
  unsigned quota = lite_os_cgroup_cpu_quota("/sys/fs/cgroup");
  lite_env_parse(&lite_env, process_getenv, quota > 0 && quota < ncpus ? quota : ncpus,
                 lite_os_secure());
  if (lite_env.display_env != 0)
    lite_env_display(lite_env.display_env == 2);
}

/* ---------------------------------------------------------------- OMP_DISPLAY_ENV */

static const char *bool_name(bool b) { return b ? "TRUE" : "FALSE"; }

static const char *bind_name(omp_proc_bind_t bind)
{
  switch (bind) {
  case omp_proc_bind_false: return "FALSE";
  case omp_proc_bind_true: return "TRUE";
  case omp_proc_bind_master: return "MASTER"; /* libgomp 12 shows primary under its old name */
  case omp_proc_bind_close: return "CLOSE";
  case omp_proc_bind_spread: return "SPREAD";
  }
  return "FALSE";
}

static const char *sched_kind_name(unsigned kind)
{
  switch (kind) {
  case omp_sched_static: return "STATIC";
  case omp_sched_dynamic: return "DYNAMIC";
  case omp_sched_guided: return "GUIDED";
  case omp_sched_auto: return "AUTO";
  }
  return "DYNAMIC";
}

/* libgomp's spelling: the modifier only where it differs from the kind's default, the chunk
   only where it differs from the default chunk (0 for static, 1 otherwise, none for auto). */
static void print_schedule(FILE *out, omp_sched_t sched, int chunk)
{
  unsigned kind = (unsigned)sched & ~(unsigned)omp_sched_monotonic;
  bool monotonic = ((unsigned)sched & omp_sched_monotonic) != 0;
  if (monotonic && kind != omp_sched_static)
    fputs("MONOTONIC:", out);
  else if (!monotonic && kind == omp_sched_static)
    fputs("NONMONOTONIC:", out);
  fputs(sched_kind_name(kind), out);
  int default_chunk = kind == omp_sched_static ? 0 : 1;
  if (kind != omp_sched_auto && chunk > default_chunk)
    fprintf(out, ",%d", chunk);
}

static void print_num_threads(FILE *out, const struct lite_env *env)
{
  fprintf(out, "%u", env->icv.nthreads);
  for (unsigned i = 1; i < env->nthreads_list_len; i++)
    fprintf(out, ",%u", env->nthreads_list[i]);
}

static void print_proc_bind(FILE *out, const struct lite_env *env)
{
  fputs(bind_name(env->icv.bind), out);
  for (unsigned i = 1; i < env->bind_list_len; i++)
    fprintf(out, ",%s", bind_name(env->bind_list[i]));
}

/* The place list in force (none: ''), in libgomp's shape. */
static void print_places(FILE *out)
{
  if (!lite_binding.on)
    return;
  size_t len = lite_places_format(&lite_binding.places, NULL, 0);
  char *text = malloc(len + 1);
  if (text == NULL)
    return;
  lite_places_format(&lite_binding.places, text, len + 1);
  fputs(text, out);
  free(text);
}

/* The process's own block only: the barrier its first team of nthreads-var gets (barrier_tree.c),
   for checking the tree against the machine (tests/vm). */
static void print_barrier_tree(FILE *out)
{
  size_t len = lite_tree_describe(NULL, 0);
  char *text = malloc(len + 1);
  if (text == NULL)
    return;
  lite_tree_describe(text, len + 1);
  fprintf(out, "  OMPLITE_BARRIER_TREE = '%s'\n", text);
  free(text);
}

static void print_verbose(FILE *out, const struct lite_env *env)
{
  fprintf(out, "  GOMP_CPU_AFFINITY = '%s'\n", env->cpu_affinity != NULL ? env->cpu_affinity : "");
  fprintf(out, "  GOMP_STACKSIZE = '%zu'\n", env->stacksize);
  fprintf(out, "  KMP_AFFINITY = '%s'\n", env->kmp_affinity != NULL ? env->kmp_affinity : "");
  fprintf(out, "  KMP_HW_SUBSET = '%s'\n", env->kmp_hw_subset != NULL ? env->kmp_hw_subset : "");
  fprintf(out, "  GOMP_SPINCOUNT = '%llu'\n", env->spincount);
  fprintf(out, "  OMPLITE_SPIN_US = '%llu'\n", (unsigned long long)(env->spin_ns / 1000));
  fprintf(out, "  OMPLITE_YIELD_US = '%llu'\n", (unsigned long long)(env->yield_ns / 1000));
  static const char *const steal_names[] = {"monotonic", "free", "off"};
  fprintf(out, "  OMPLITE_STEAL = '%s'\n", steal_names[env->steal]);
  /* The profile's settings as read: off '0', the table on stderr '1', or its file. */
  fprintf(out, "  OMPLITE_PROFILE = '%s'\n",
          lite_prof_path != NULL                  ? lite_prof_path
          : (env->profile & LITE_PROF_TABLE) != 0 ? "1"
                                                   : "0");
  fprintf(out, "  OMPLITE_TRACE = '%s'\n", lite_trace_path != NULL ? lite_trace_path : "0");
  fprintf(out, "  OMPLITE_TRACE_EVENTS = '%u'\n", lite_trace_events);
}

void lite_env_print(FILE *out, const struct lite_env *env, bool verbose)
{
  const struct lite_icv *icv = &env->icv;
  flockfile(out); /* one block, even if two threads call omp_display_env */
  fputs("\nOPENMP DISPLAY ENVIRONMENT BEGIN\n", out);
  fputs("  _OPENMP = '" LITE_OPENMP_VERSION "'\n", out);
  fputs("  LIBOMP_LITE_VERSION = '" LITE_VERSION_STRING "'\n", out);
  fprintf(out, "  OMP_DYNAMIC = '%s'\n", bool_name(icv->dynamic));
  fprintf(out, "  OMP_NESTED = '%s'\n", bool_name(icv->max_active_levels > 1));
  fputs("  OMP_NUM_THREADS = '", out);
  print_num_threads(out, env);
  fputs("'\n  OMP_SCHEDULE = '", out);
  print_schedule(out, icv->run_sched, icv->run_chunk);
  fputs("'\n  OMP_PROC_BIND = '", out);
  print_proc_bind(out, env);
  fputs("'\n  OMP_PLACES = '", out);
  print_places(out);
  fputs("'\n", out);
  /* LLVM's pinning variables, as given, where set (verbose lists them always): they decided the
     two lines above. */
  if (env->kmp_affinity != NULL && !verbose)
    fprintf(out, "  KMP_AFFINITY = '%s'\n", env->kmp_affinity);
  if (env->kmp_hw_subset != NULL && !verbose)
    fprintf(out, "  KMP_HW_SUBSET = '%s'\n", env->kmp_hw_subset);
  fprintf(out, "  OMP_STACKSIZE = '%zu'\n", env->stacksize);
  fprintf(out, "  OMP_WAIT_POLICY = '%s'\n",
          env->wait_policy == LITE_WAIT_ACTIVE ? "ACTIVE" : "PASSIVE");
  fprintf(out, "  OMP_THREAD_LIMIT = '%u'\n", icv->thread_limit);
  fprintf(out, "  OMP_MAX_ACTIVE_LEVELS = '%u'\n", icv->max_active_levels);
  fprintf(out, "  OMP_NUM_TEAMS = '%d'\n", env->num_teams);
  fprintf(out, "  OMP_TEAMS_THREAD_LIMIT = '%d'\n", env->teams_thread_limit);
  fprintf(out, "  OMP_CANCELLATION = '%s'\n", bool_name(env->cancellation));
  fprintf(out, "  OMP_DEFAULT_DEVICE = '%d'\n", icv->default_device);
  fprintf(out, "  OMP_MAX_TASK_PRIORITY = '%d'\n", env->max_task_priority);
  fprintf(out, "  OMP_DISPLAY_AFFINITY = '%s'\n", bool_name(env->display_affinity));
  /* The runtime's own: affinity-format-var as the program may have set it since, held against
     a thread that sets it now (format.c frees what it replaces). */
  struct lite_counted_format *held = NULL;
  const char *format = env == &lite_env ? lite_affinity_format_hold(&held) : env->affinity_format;
  fprintf(out, "  OMP_AFFINITY_FORMAT = '%s'\n", format);
  lite_affinity_format_release(held);
  /* A user-made default allocator has no name: '' (as in libgomp). */
  uintptr_t allocator = (uintptr_t)icv->default_allocator;
  fprintf(out, "  OMP_ALLOCATOR = '%s'\n",
          allocator >= 1 && allocator <= 8 ? allocator_names[allocator] : "");
  fprintf(out, "  OMP_TARGET_OFFLOAD = '%s'\n", offload_names[env->target_offload]);
  if (verbose)
    print_verbose(out, env);
  if (verbose && env == &lite_env)
    print_barrier_tree(out);
  fputs("OPENMP DISPLAY ENVIRONMENT END\n", out);
  funlockfile(out);
}

void lite_env_display(bool verbose)
{
  lite_bind_ready(); /* the place list it prints */
  lite_env_print(stderr, &lite_env, verbose);
}
