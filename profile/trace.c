/* OMPLITE_TRACE: a timeline in Chrome's Trace Event Format, one lane per thread.

   Each thread writes its own buffer of lite_trace_events events (OMPLITE_TRACE_EVENTS, 65,536 by
   default: 2.5 MiB a thread), made on its first event and kept until the process ends. Intervals
   are B/E pairs. When a buffer is nearly full, a new interval is dropped with its end, and only
   then: the buffer always keeps room for the ends of the intervals it holds open, so what is kept
   nests. The count of dropped events is in the file (otherData.dropped_events, and an instant
   event on each lane that lost some).

   The file is written at exit (lite_prof_finish) while other threads may still add events: each
   buffer publishes its count with a release store after the event, and the writer reads only up
   to the count it loads; an interval still open at that moment is closed at the time of writing. */
#include "profile.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct trace_event {
  uint64_t ts;
  const void *site;
  uint64_t arg1, arg2;
  uint8_t name;
  char ph;
};

#define MAX_DEPTH 64

struct lite_trace_buf {
  struct lite_trace_buf *next;
  int tid;
  bool worker;
  _Atomic uint32_t n;        /* events written and published */
  uint32_t cap;
  uint32_t depth;            /* intervals open (kept or not) */
  uint64_t kept;             /* bit d: the open interval at depth d was kept */
  _Atomic uint64_t dropped;
  struct trace_event ev[];
};

unsigned lite_trace_events = LITE_TRACE_EVENTS_DEFAULT;
static struct lite_trace_buf *_Atomic buffers;
static _Atomic bool closed; /* the file is being written: no new buffers */

static const char *const names[LITE_TR_NAMES] = {
    "parallel", "loop", "barrier", "join", "critical", "parked", "task", "taskwait",
    "taskgroup", "lock"};

static struct lite_trace_buf *make_buf(void)
{
  if (atomic_load_explicit(&closed, memory_order_relaxed))
    return NULL;
  size_t cap = lite_trace_events;
  struct lite_trace_buf *buf = malloc(sizeof *buf + cap * sizeof(struct trace_event));
  if (buf == NULL)
    return NULL;
  memset(buf, 0, sizeof *buf);
  buf->cap = (uint32_t)cap;
  buf->tid = lite_os_gettid();
  buf->worker = lite_self_tls != NULL && lite_self_tls->is_worker;
  struct lite_trace_buf *head = atomic_load(&buffers);
  do
    buf->next = head;
  while (!atomic_compare_exchange_weak(&buffers, &head, buf));
  lite_prof_self()->trace = buf;
  return buf;
}

static void put(struct lite_trace_buf *buf, char ph, enum lite_trace_name name, const void *site,
                uint64_t ts, uint64_t arg1, uint64_t arg2)
{
  uint32_t n = atomic_load_explicit(&buf->n, memory_order_relaxed);
  buf->ev[n] = (struct trace_event){ts, site, arg1, arg2, (uint8_t)name, ph};
  atomic_store_explicit(&buf->n, n + 1, memory_order_release);
}

void lite_trace_begin(enum lite_trace_name name, const void *site, uint64_t ts)
{
  struct lite_trace_buf *buf = lite_prof_self()->trace;
  if (buf == NULL && (buf = make_buf()) == NULL)
    return;
  uint32_t d = buf->depth++;
  if (d >= MAX_DEPTH) {
    atomic_fetch_add_explicit(&buf->dropped, 1, memory_order_relaxed);
    return;
  }
  /* Room for this B, and for the E of every interval open once it is (d + 1 at most). */
  uint32_t n = atomic_load_explicit(&buf->n, memory_order_relaxed);
  if ((uint64_t)n + d + 2 <= buf->cap) {
    put(buf, 'B', name, site, ts, 0, 0);
    buf->kept |= UINT64_C(1) << d;
  } else {
    buf->kept &= ~(UINT64_C(1) << d);
    atomic_fetch_add_explicit(&buf->dropped, 1, memory_order_relaxed);
  }
}

void lite_trace_end(enum lite_trace_name name, uint64_t ts, uint64_t arg1, uint64_t arg2)
{
  struct lite_trace_buf *buf = lite_prof_self()->trace;
  if (buf == NULL || buf->depth == 0)
    return; /* its begin came before the buffer (or before a fork emptied it) */
  uint32_t d = --buf->depth;
  if (d < MAX_DEPTH && (buf->kept & (UINT64_C(1) << d)))
    put(buf, 'E', name, NULL, ts, arg1, arg2);
  else
    atomic_fetch_add_explicit(&buf->dropped, 1, memory_order_relaxed);
}

void lite_trace_after_fork(void)
{
  /* The other threads' buffers stay behind (their threads are not in the child). */
  struct lite_trace_buf *mine = lite_prof_tls != NULL ? lite_prof_tls->trace : NULL;
  atomic_store(&buffers, NULL);
  atomic_store(&closed, false);
  if (mine != NULL) {
    atomic_store(&mine->n, 0);
    atomic_store(&mine->dropped, 0);
    mine->depth = 0;
    mine->kept = 0;
    mine->tid = lite_os_gettid();
    mine->next = NULL;
    atomic_store(&buffers, mine);
  }
}

/* ---------------------------------------------------------------------------- the file */

/* Names of sites, cached: dladdr is a search through the loaded objects. */
#define NAME_CACHE 256
struct name_entry {
  const void *addr;
  char name[160];
};

static const char *site_name(struct name_entry *cache, const void *addr)
{
  struct name_entry *e = &cache[((uintptr_t)addr >> 2) % NAME_CACHE];
  if (e->addr != addr || e->name[0] == 0) {
    e->addr = addr;
    lite_prof_name(addr, e->name, sizeof e->name);
  }
  return e->name;
}

/* A JSON string's contents. */
static void put_escaped(FILE *f, const char *s)
{
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
}

static void put_ts(FILE *f, uint64_t ts, uint64_t t0)
{
  uint64_t rel = ts > t0 ? ts - t0 : 0;
  fprintf(f, "%" PRIu64 ".%03u", rel / 1000, (unsigned)(rel % 1000));
}

static void put_args(FILE *f, const struct trace_event *e, struct name_entry *cache)
{
  if (e->ph == 'B') {
    if (e->site != NULL) {
      fputs(",\"args\":{\"site\":\"", f);
      put_escaped(f, site_name(cache, e->site));
      fputs("\"}", f);
    }
    return;
  }
  switch (e->name) {
  case LITE_TR_PARALLEL:
    if (e->arg1 != 0)
      fprintf(f, ",\"args\":{\"threads\":%" PRIu64 ",\"chunks\":%" PRIu64 "}", e->arg1, e->arg2);
    break;
  case LITE_TR_LOOP:
    fprintf(f, ",\"args\":{\"chunks\":%" PRIu64 ",\"steals\":%" PRIu64 "}", e->arg1, e->arg2);
    break;
  case LITE_TR_TASK:
    fprintf(f, ",\"args\":{\"other_thread\":%" PRIu64 "}", e->arg1);
    break;
  default:
    break;
  }
}

/* One lane's events; every event follows another (the process_name record comes first). */
static void write_buf(FILE *f, struct lite_trace_buf *buf, int pid, uint64_t t0, uint64_t end,
                      struct name_entry *cache)
{
  uint32_t n = atomic_load_explicit(&buf->n, memory_order_acquire);
  uint8_t open[MAX_DEPTH];
  unsigned depth = 0;
  for (uint32_t i = 0; i < n; i++) {
    const struct trace_event *e = &buf->ev[i];
    if (e->ph == 'E') {
      if (depth == 0)
        continue;
      depth--;
    } else if (depth < MAX_DEPTH) {
      open[depth++] = e->name;
    } else {
      continue;
    }
    fprintf(f, ",\n{\"name\":\"%s\",\"ph\":\"%c\",\"pid\":%d,\"tid\":%d,\"ts\":",
            names[e->name < LITE_TR_NAMES ? e->name : 0], e->ph, pid, buf->tid);
    put_ts(f, e->ts, t0);
    put_args(f, e, cache);
    fputc('}', f);
  }
  while (depth > 0) {
    fprintf(f, ",\n{\"name\":\"%s\",\"ph\":\"E\",\"pid\":%d,\"tid\":%d,\"ts\":",
            names[open[--depth]], pid, buf->tid);
    put_ts(f, end, t0);
    fputs(",\"args\":{\"open_at_exit\":1}}", f);
  }
  uint64_t dropped = atomic_load_explicit(&buf->dropped, memory_order_relaxed);
  if (dropped != 0) {
    fprintf(f, ",\n{\"name\":\"dropped %" PRIu64 " events (buffer full)\",\"ph\":\"i\","
               "\"s\":\"t\",\"pid\":%d,\"tid\":%d,\"ts\":",
            dropped, pid, buf->tid);
    put_ts(f, end, t0);
    fprintf(f, ",\"args\":{\"dropped\":%" PRIu64 "}}", dropped);
  }
}

void lite_trace_write(void)
{
  if (lite_trace_path == NULL)
    return;
  atomic_store(&closed, true);
  /* As the table: a process without a single event (a helper the program started, with the
     same environment) writes nothing. */
  if (atomic_load(&buffers) == NULL)
    return;
  struct name_entry *cache = calloc(NAME_CACHE, sizeof *cache);
  if (cache == NULL)
    return;
  struct lite_prof_file file;
  if (!lite_prof_file_open(&file, "OMPLITE_TRACE", lite_trace_path, "; no trace written")) {
    free(cache);
    return;
  }
  FILE *f = file.f;
  int pid = (int)getpid();
  uint64_t end = lite_now_ns(), t0 = end, dropped = 0;
  unsigned threads = 0;
  struct lite_trace_buf *head = atomic_load(&buffers);
  for (struct lite_trace_buf *b = head; b != NULL; b = b->next) {
    if (atomic_load_explicit(&b->n, memory_order_acquire) > 0 && b->ev[0].ts < t0)
      t0 = b->ev[0].ts;
    dropped += atomic_load_explicit(&b->dropped, memory_order_relaxed);
    threads++;
  }
  fprintf(f, "{\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"runtime\":\"libomp-lite\","
             "\"pid\":%d,\"threads\":%u,\"events_per_thread\":%u,\"dropped_events\":%" PRIu64 "},\n"
             "\"traceEvents\":[",
          pid, threads, lite_trace_events, dropped);
  fprintf(f, "\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
             "\"args\":{\"name\":\"libomp-lite pid %d\"}}",
          pid, pid);
  for (struct lite_trace_buf *b = head; b != NULL; b = b->next)
    fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
               "\"args\":{\"name\":\"%s %d\"}}",
            pid, b->tid, b->worker ? "worker" : "thread", b->tid);
  for (struct lite_trace_buf *b = head; b != NULL; b = b->next)
    write_buf(f, b, pid, t0, end, cache);
  fputs("\n]}\n", f);
  free(cache);
  lite_prof_file_close(&file);
}
