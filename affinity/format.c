/* The affinity display: OpenMP 5.2 sections 18.3.4-18.3.8 (omp_set_affinity_format,
   omp_get_affinity_format, omp_display_affinity, omp_capture_affinity) and the format of
   OMP_AFFINITY_FORMAT / OMP_DISPLAY_AFFINITY (section 21.2.5), with libgomp 12's output where the
   specification leaves room.

   A field is '%', an optional size, and a type: one letter (%n) or its long name in braces
   (%{thread_num}). The size is a width in decimal (no leading zero), after "0." (numbers padded
   with zeros on the left, after a '-' or "0x"; other values with spaces on the left, as libgomp
   does), after "." (spaces on the left) or alone (spaces on the right); "." is no precision, so
   "%.2000000000A" asks for a width of 2000000000. A width above LITE_AFFINITY_WIDTH_MAX is cut
   to it, with one warning a process (field_size says why). %% is a '%'. Anything
   else after a '%' (an unknown type or long name, "0" without ".", "0." or "." without a width)
   ends the program with a message, as libgomp does: a format is written once by the programmer,
   and a run that cannot print it should not go on as if it had.

   The values, libgomp's:
     %t team_num, %T num_teams, %L nesting_level, %n thread_num, %N num_threads
                         omp_get_team_num, omp_get_num_teams, omp_get_level, omp_get_thread_num,
                         omp_get_num_threads
     %a ancestor_tnum    omp_get_ancestor_thread_num(omp_get_level() - 1): -1 at level 0
     %H host             gethostname ("node" if that fails)
     %P process_id       getpid
     %i native_thread_id pthread_self() in hex ("0x7f..."), libgomp's native id on Linux (not the
                         kernel's thread id)
     %A thread_affinity  the CPUs the calling thread may run on, as a list of numbers and ranges:
                         "0-3,8,10-11": its place when bound, else the CPUs the process started
                         with, as libgomp prints it. Not the thread's mask of the moment: the
                         oversubscription balancer (balance.c) and the co-location mend (wait.c)
                         narrow an unbound thread's mask to one CPU for a few µs, and a display
                         that caught one showed "1" for a thread free to run on "0-1". */
#include "internal.h"
#include "affinity.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The text being built: what fits goes into buf[0 .. size-1], len counts it all. */
struct out {
  char *buf;
  size_t size;
  size_t len;
};

static void grow(struct out *o, size_t n)
{
  if (n > SIZE_MAX - 1 - o->len)
    lite_error_exit("affinity format: the text would be longer than memory");
  o->len += n;
}

static void put(struct out *o, const char *s, size_t n)
{
  if (o->len < o->size)
    memcpy(o->buf + o->len, s, n < o->size - o->len ? n : o->size - o->len);
  grow(o, n);
}

static void put_repeat(struct out *o, char c, size_t n)
{
  if (o->len < o->size)
    memset(o->buf + o->len, c, n < o->size - o->len ? n : o->size - o->len);
  grow(o, n);
}

static void put_str(struct out *o, const char *s) { put(o, s, strlen(s)); }

/* The size part of a field: width 0 means none was given. */
struct field_size {
  bool zero;  /* "0.": numbers padded with zeros */
  bool right; /* "." or "0.": right-justified */
  size_t width;
};

/* A value that is text: padded with spaces on the side the size asks for. */
static void put_padded(struct out *o, const struct field_size *fs, const char *s, size_t n)
{
  size_t pad = fs->width > n ? fs->width - n : 0;
  if (fs->right)
    put_repeat(o, ' ', pad);
  put(o, s, n);
  if (!fs->right)
    put_repeat(o, ' ', pad);
}

/* A value that is a number (decimal, perhaps with '-', or hex after "0x"): with "0." the zeros go
   between the sign or prefix and the digits, as libgomp puts them. */
static void put_number(struct out *o, const struct field_size *fs, const char *s)
{
  size_t n = strlen(s);
  if (!fs->zero || fs->width <= n) {
    put_padded(o, fs, s, n);
    return;
  }
  size_t prefix = s[0] == '-' ? 1 : s[0] == '0' && s[1] == 'x' ? 2 : 0;
  put(o, s, prefix);
  put_repeat(o, '0', fs->width - n);
  put(o, s + prefix, n - prefix);
}

static void put_int(struct out *o, const struct field_size *fs, long value)
{
  char s[24];
  snprintf(s, sizeof s, "%ld", value);
  put_number(o, fs, s);
}

/* The CPUs below this are the ones %A can show (the platform layer reads no more). */
#define MASK_CPUS 1024

static bool cpu_set_in(const uint64_t *bits, unsigned cpu)
{
  return bits[cpu / 64] >> (cpu % 64) & 1;
}

/* The CPUs set in bits as "0-3,8,10-11": a run of two or more as first-last. */
static void put_cpu_list(struct out *o, const uint64_t *bits, unsigned ncpus)
{
  bool first = true;
  for (unsigned c = 0; c < ncpus; c++) {
    if (!cpu_set_in(bits, c))
      continue;
    unsigned last = c;
    while (last + 1 < ncpus && cpu_set_in(bits, last + 1))
      last++;
    char s[32];
    if (last > c)
      snprintf(s, sizeof s, "%s%u-%u", first ? "" : ",", c, last);
    else
      snprintf(s, sizeof s, "%s%u", first ? "" : ",", c);
    put_str(o, s);
    first = false;
    c = last;
  }
}

size_t lite_affinity_format_cpus(const uint64_t *bits, unsigned ncpus, char *buf, size_t size)
{
  struct out o = { buf, size, 0 };
  put_cpu_list(&o, bits, ncpus);
  if (size > 0)
    buf[o.len < size ? o.len : size - 1] = '\0';
  return o.len;
}

/* %A: the calling thread's place, or the process's CPUs, padded on the side the size asks for. */
static void put_affinity(struct out *o, const struct field_size *fs)
{
  uint64_t bits[MASK_CPUS / 64];
  unsigned ncpus = MASK_CPUS;
  const int *cpus = lite_binding.process_cpus;
  unsigned n = lite_binding.nprocess;
  struct lite_thread *thr = lite_self();
  lite_bind_initial(thr);
  int place = thr->place;
  if (lite_binding.on && place >= 0 && (unsigned)place < lite_binding.places.n) {
    cpus = lite_binding.places.places[place].cpus;
    n = lite_binding.places.places[place].ncpus;
  }
  memset(bits, 0, sizeof bits);
  for (unsigned i = 0; i < n; i++)
    if (cpus[i] >= 0 && cpus[i] < MASK_CPUS)
      bits[cpus[i] / 64] |= (uint64_t)1 << (cpus[i] % 64);
  if (n == 0) {
    /* Unknown: all online CPUs, libgomp's answer when it knows no set. */
    ncpus = lite_os_online_cpus();
    ncpus = ncpus < MASK_CPUS ? ncpus : MASK_CPUS;
    for (unsigned c = 0; c < ncpus; c++)
      bits[c / 64] |= (uint64_t)1 << (c % 64);
  }
  /* Measure first (a sink with no room only counts). */
  struct out measure = { NULL, 0, 0 };
  put_cpu_list(&measure, bits, ncpus);
  size_t pad = fs->width > measure.len ? fs->width - measure.len : 0;
  if (fs->right)
    put_repeat(o, ' ', pad);
  put_cpu_list(o, bits, ncpus);
  if (!fs->right)
    put_repeat(o, ' ', pad);
}

static void put_host(struct out *o, const struct field_size *fs)
{
  char host[256];
  if (gethostname(host, sizeof host) != 0)
    strcpy(host, "node");
  host[sizeof host - 1] = '\0';
  put_padded(o, fs, host, strlen(host));
}

static void put_thread_handle(struct out *o, const struct field_size *fs)
{
  _Static_assert(sizeof(pthread_t) <= sizeof(unsigned long), "pthread_t is an integer on Linux");
  char s[24];
  snprintf(s, sizeof s, "0x%lx", (unsigned long)pthread_self());
  put_number(o, fs, s);
}

static const struct {
  const char *name;
  char type;
} long_names[] = {
  { "team_num", 't' },    { "num_teams", 'T' },  { "nesting_level", 'L' },
  { "thread_num", 'n' },  { "num_threads", 'N' }, { "ancestor_tnum", 'a' },
  { "host", 'H' },        { "process_id", 'P' }, { "native_thread_id", 'i' },
  { "thread_affinity", 'A' },
};

/* The type of the field at p ('{' of a long name, or the letter); *end: just after it. */
static char field_type(const char *p, const char **end)
{
  if (*p != '{') {
    if (*p == '\0')
      lite_error_exit("affinity format: '%%' at the end of the format, with no field type");
    *end = p + 1;
    return *p;
  }
  const char *close = strchr(p + 1, '}');
  if (close == NULL)
    lite_error_exit("affinity format: unterminated long type name '%s'", p + 1);
  size_t n = (size_t)(close - (p + 1));
  for (size_t i = 0; i < sizeof long_names / sizeof long_names[0]; i++)
    if (strlen(long_names[i].name) == n && memcmp(long_names[i].name, p + 1, n) == 0) {
      *end = close + 1;
      return long_names[i].type;
    }
  lite_error_exit("affinity format: unsupported long type name '%.*s'", (int)n, p + 1);
}

/* Why LITE_AFFINITY_WIDTH_MAX is 16384. A width pads a value to line up a column, and the
   widest value is %A's list of 1024 CPUs at its longest, every other one: 2004 characters (a host
   name has 255 at most). 16 KiB is eight times that, so no width that pads anything changes,
   nor the 9000 the integration test compares with libgomp; and it bounds what a field adds to a
   line, which display() allocates and writes to stderr whole: '%99999999999n' asked for 100 GB
   and ended the program in "out of memory" (SIGABRT), '%.2000000000A' wrote 2 GB a line (as
   libgomp still does). A width is the programmer's or the user's value: cut, not fatal. */
static void warn_wide_once(const char *digits, size_t n)
{
  static _Atomic bool warned;
  if (!atomic_exchange(&warned, true))
    lite_warn("affinity format: field width %.*s%s is more than %d; using %d",
              (int)(n < 24 ? n : 24), digits, n < 24 ? "" : "...", LITE_AFFINITY_WIDTH_MAX,
              LITE_AFFINITY_WIDTH_MAX);
}

/* Reads "[0.|.][width]" at p; returns what follows. */
static const char *field_size(const char *p, struct field_size *fs)
{
  *fs = (struct field_size){ false, false, 0 };
  if (*p == '0') {
    fs->zero = true;
    p++;
    if (*p != '.')
      lite_error_exit("affinity format: a leading zero must be followed by '.' (%%0.Nx)");
  }
  if (*p == '.') {
    fs->right = true;
    p++;
  }
  if (*p >= '1' && *p <= '9') {
    const char *digits = p;
    for (; *p >= '0' && *p <= '9'; p++) {
      /* Past the bound the digits are only skipped: no width of any length can overflow. */
      if (fs->width <= LITE_AFFINITY_WIDTH_MAX)
        fs->width = fs->width * 10 + (size_t)(*p - '0');
    }
    if (fs->width > LITE_AFFINITY_WIDTH_MAX) {
      warn_wide_once(digits, (size_t)(p - digits));
      fs->width = LITE_AFFINITY_WIDTH_MAX;
    }
  } else if (fs->zero || fs->right) {
    lite_error_exit("affinity format: '0.' or '.' must be followed by a field width");
  }
  return p;
}

static void expand(struct out *o, const char *format)
{
  const char *p = format;
  for (;;) {
    const char *pct = strchr(p, '%');
    if (pct == NULL) {
      put_str(o, p);
      return;
    }
    put(o, p, (size_t)(pct - p));
    p = pct + 1;
    if (*p == '%') {
      put(o, "%", 1);
      p++;
      continue;
    }
    struct field_size fs;
    p = field_size(p, &fs);
    char type = field_type(p, &p);
    switch (type) {
    case 't': put_int(o, &fs, omp_get_team_num()); break;
    case 'T': put_int(o, &fs, omp_get_num_teams()); break;
    case 'L': put_int(o, &fs, omp_get_level()); break;
    case 'n': put_int(o, &fs, omp_get_thread_num()); break;
    case 'N': put_int(o, &fs, omp_get_num_threads()); break;
    case 'a': put_int(o, &fs, omp_get_ancestor_thread_num(omp_get_level() - 1)); break;
    case 'H': put_host(o, &fs); break;
    case 'P': put_int(o, &fs, (long)getpid()); break;
    case 'i': put_thread_handle(o, &fs); break;
    case 'A': put_affinity(o, &fs); break;
    default:
      lite_error_exit("affinity format: unsupported field type '%c'", type);
    }
  }
}

static size_t capture(char *buf, size_t size, const char *format)
{
  struct out o = { buf, size, 0 };
  expand(&o, format);
  if (size > 0)
    buf[o.len < size ? o.len : size - 1] = '\0';
  return o.len;
}

/* ---------------------------------------------------------------- affinity-format-var */

/* OpenMP keeps one affinity-format-var per device, and omp_set_affinity_format may replace it
   while other threads expand it: with OMP_DISPLAY_AFFINITY set, every member of a team does at
   the start of each region. Until the program sets it, the variable is env.c's
   lite_env.affinity_format (OMP_AFFINITY_FORMAT or the default), set before any thread starts and
   never changed after. A format the program sets is a counted copy: the variable holds one
   reference, each reader one more while it reads, and whoever drops the last frees the copy. So
   a reader never sees its string freed or rewritten (libgomp rewrites it in place: a concurrent
   reader can get half of each), and the memory is the current string plus one per reader still
   on an older one. Before, every replaced string was kept, for want of knowing whether someone
   still read it: 10^6 calls with two 200-byte formats grew the RSS by 214 MiB.
   The lock covers only the pointer and the counts, never a copy or an expansion: readers do not
   wait on one another's expansions, and one that ends the program over a malformed format holds
   no lock. */
struct lite_counted_format {
  unsigned long refs;
  char text[];
};

static pthread_mutex_t format_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lite_counted_format *program_format; /* NULL: lite_env.affinity_format */

const char *lite_affinity_format_hold(struct lite_counted_format **held)
{
  pthread_mutex_lock(&format_lock);
  struct lite_counted_format *copy = program_format;
  if (copy != NULL)
    copy->refs++;
  pthread_mutex_unlock(&format_lock);
  *held = copy;
  return copy != NULL ? copy->text : lite_env.affinity_format;
}

void lite_affinity_format_release(struct lite_counted_format *held)
{
  if (held == NULL)
    return;
  pthread_mutex_lock(&format_lock);
  bool last = --held->refs == 0;
  pthread_mutex_unlock(&format_lock);
  if (last)
    free(held);
}

void lite_affinity_format_after_fork(void)
{
  /* Only the forking thread lives on, and another may have held the lock at the fork. A copy
     that a vanished thread was reading keeps its count and stays allocated: one at most each. */
  pthread_mutex_init(&format_lock, NULL);
}

static void set_format(const char *format)
{
  size_t len = strlen(format);
  struct lite_counted_format *copy = malloc(sizeof *copy + len + 1);
  if (copy == NULL) {
    lite_warn("out of memory for the affinity format (%zu bytes); it stays as it was", len + 1);
    return;
  }
  copy->refs = 1; /* the variable's own */
  memcpy(copy->text, format, len + 1);
  pthread_mutex_lock(&format_lock);
  struct lite_counted_format *old = program_format;
  program_format = copy;
  bool last = old != NULL && --old->refs == 0;
  pthread_mutex_unlock(&format_lock);
  if (last)
    free(old);
}

size_t lite_affinity_capture(char *buf, size_t size, const char *format)
{
  if (format != NULL && *format != '\0')
    return capture(buf, size, format);
  struct lite_counted_format *held;
  size_t len = capture(buf, size, lite_affinity_format_hold(&held));
  lite_affinity_format_release(held);
  return len;
}

static void warn_short_line_once(size_t len)
{
  static _Atomic bool warned;
  if (!atomic_exchange(&warned, true))
    lite_warn("out of memory for an affinity display line (%zu bytes); showing its start", len + 1);
}

/* One line on stderr, written with one call so that the lines of several threads do not mix. Its
   length is bounded by the format's: a field adds LITE_AFFINITY_WIDTH_MAX at most. */
static void display_line(const char *format)
{
  char small[512];
  size_t len = capture(small, sizeof small, format);
  char *line = small;
  if (len >= sizeof small) {
    line = malloc(len + 1);
    if (line != NULL) {
      /* The same text, but for a host name changed in between: never past what was written. */
      size_t again = capture(line, len + 1, format);
      len = again < len ? again : len;
    } else {
      warn_short_line_once(len);
      line = small;
      len = sizeof small - 1;
    }
  }
  line[len] = '\n';
  fwrite(line, 1, len + 1, stderr);
  if (line != small)
    free(line);
}

/* format, or affinity-format-var (NULL or ""), held for both expansions of display_line. */
static void display(const char *format)
{
  if (format != NULL && *format != '\0') {
    display_line(format);
    return;
  }
  struct lite_counted_format *held;
  display_line(lite_affinity_format_hold(&held));
  lite_affinity_format_release(held);
}

void lite_affinity_display_self(void) { display(NULL); }

/* ---------------------------------------------------------------- the C API */

void omp_set_affinity_format(const char *format) { set_format(format); }

size_t omp_get_affinity_format(char *buffer, size_t size)
{
  struct lite_counted_format *held;
  const char *format = lite_affinity_format_hold(&held);
  size_t len = strlen(format);
  if (size > 0) {
    size_t n = len < size ? len : size - 1;
    memcpy(buffer, format, n);
    buffer[n] = '\0';
  }
  lite_affinity_format_release(held);
  return len;
}

void omp_display_affinity(const char *format) { display(format); }

size_t omp_capture_affinity(char *buffer, size_t size, const char *format)
{
  return lite_affinity_capture(buffer, size, format);
}
