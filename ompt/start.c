/* Tool start-up and shutdown (OpenMP 5.1 sections 4.2 and 4.4).

   At the runtime's first thread state (lite_ompt_start_once, from team.c), tool-var
   (OMP_TOOL) permitting:
   1. ompt_start_tool as the process already has it: a tool linked into the program or
      preloaded, found with dlsym(RTLD_DEFAULT). That may be libomp-lite's own weak one (below)
      or LLVM's (libomp, loaded beside us by a clang-built program, has the same): both pass
      the call on to the next definition, RTLD_NEXT from them, so calling them is right.
   2. Else each library in tool-libraries-var (OMP_TOOL_LIBRARIES, colon-separated), dlopen'ed
      in turn: the first whose ompt_start_tool returns non-NULL is the tool. The others stay
      loaded, as dlclose of a library that may have started threads or registered handlers is
      not safe.
   Then the tool's initialize gets the lookup function; if it returns 0 the tool is not used.
   Lazily at the first call, not at load (DESIGN.md section 7: a preloaded runtime must do
   nothing observable in a process that never uses OpenMP; loading a tool is observable).

   Security: in a setuid or setgid program (AT_SECURE) the environment is its caller's, who
   could have it load any library with its privileges, or write any file: OMP_TOOL_LIBRARIES
   and an OMP_TOOL_VERBOSE_INIT file name are ignored there, with one warning. A tool linked
   into the program (step 1) is the program's own and still starts. The verbose log's file is
   opened the way OMPLITE_PROFILE's is (profile/output.c: no symbolic link followed, no file of
   another user's written). */
#include "ompt/ompt.h"
#include "profile/profile.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The OpenMP version this runtime reports to ompt_start_tool (5.1: 202011). */
#define LITE_OMPT_OMP_VERSION 202011

static pthread_once_t start_once = PTHREAD_ONCE_INIT;
static ompt_start_tool_result_t *tool;
static _Atomic bool finalized;
/* The tool registered no callback in its initialize: the hooks stay off (lite_env.ompt 0), so
   that it costs the program nothing, and later registrations fail (ompt_set_error, which OpenMP
   5.1 section 4.2.4 allows outside an initializer). With the hooks on instead, a tool with
   nothing registered cost every region its slow path (syncbench, 2 threads, medians of 5
   interleaved runs: parallel 0.31 -> 0.38 us, critical 0.020 -> 0.028, lock 0.020 -> 0.023). */
static bool quiet;

bool lite_ompt_quiet(void) { return quiet; }

static bool any_registered(void)
{
  for (unsigned e = 0; e < LITE_OMPT_EVENTS; e++)
    if (lite_ompt_callbacks[e] != NULL)
      return true;
  return false;
}

/* ------------------------------------------------------------------------------ the log */

/* OMP_TOOL_VERBOSE_INIT's log: LLVM's wording, which tools' own tests check. */
static FILE *log_file;
static struct lite_prof_file log_out;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
  if (log_file == NULL)
    return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(log_file, fmt, ap);
  va_end(ap);
  fflush(log_file); /* the tool prints to the same stream between our words */
}

static void open_log(const char *v, bool secure)
{
  if (v == NULL || *v == '\0' || strcasecmp(v, "disabled") == 0)
    return;
  if (strcasecmp(v, "stdout") == 0) {
    log_file = stdout;
  } else if (strcasecmp(v, "stderr") == 0) {
    log_file = stderr;
  } else if (!secure && lite_prof_file_open(&log_out, "OMP_TOOL_VERBOSE_INIT", v,
                                            "; the tool registration is not logged")) {
    log_file = log_out.f;
  }
}

static void close_log(void)
{
  if (log_file == log_out.f && log_file != NULL)
    lite_prof_file_close(&log_out);
  else if (log_file != NULL)
    fflush(log_file);
  log_file = NULL;
}

/* ------------------------------------------------------------------------------ finding a tool */

typedef ompt_start_tool_result_t *(*start_tool_fn)(unsigned int, const char *);

static ompt_start_tool_result_t *call_start(start_tool_fn start)
{
  return start(LITE_OMPT_OMP_VERSION, "libomp-lite " PACKAGE_VERSION);
}

/* Why libomp-lite defines an ompt_start_tool at all: a program's own definition is reached by
   dlsym only if the linker put it in the program's dynamic symbol table, and ld does that for
   an executable only when a shared library it links against references or defines the name.
   This weak definition (exported at VERSION, libgomp.map, as LLVM's libomp exports its own) is
   that library for a program linked against libomp-lite (gcc -fopenmp -L .../omp-lite, or
   -lomp-lite): its tool then starts with no -rdynamic. When it is the one found, no tool is
   linked in: it asks the objects loaded after libomp-lite (a tool preloaded after it). */
__attribute__((weak, visibility("default"))) ompt_start_tool_result_t *
ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
  start_tool_fn next = (start_tool_fn)dlsym(RTLD_NEXT, "ompt_start_tool");
  return next != NULL ? next(omp_version, runtime_version) : NULL;
}

static ompt_start_tool_result_t *from_process(void)
{
  say("Search for OMP tool in current address space... ");
  start_tool_fn start = (start_tool_fn)dlsym(RTLD_DEFAULT, "ompt_start_tool");
  ompt_start_tool_result_t *r = start != NULL ? call_start(start) : NULL;
  say("%s\n", r != NULL ? "Success." : "Failed.");
  return r;
}

/* The entries of OMP_TOOL_LIBRARIES that could not be loaded, told in one place once the
   search ends: a line each for a few (with the loader's reason), one line for many. A list of
   200 missing libraries printed a warning line per entry (issue 50). */
#define MISSING_SHOWN 3
struct missing {
  unsigned count;
  char *names[MISSING_SHOWN];
  char *reasons[MISSING_SHOWN];
};

static void missing_add(struct missing *m, const char *path, const char *err)
{
  if (m->count < MISSING_SHOWN) {
    m->names[m->count] = strdup(path);
    m->reasons[m->count] = strdup(err != NULL ? err : "?");
  }
  m->count++;
}

static const char *or_unknown(const char *s) { return s != NULL ? s : "?"; }

static void missing_tell(struct missing *m)
{
  if (m->count <= MISSING_SHOWN) {
    for (unsigned k = 0; k < m->count; k++)
      lite_warn("OMP_TOOL_LIBRARIES: cannot load '%s': %s", or_unknown(m->names[k]),
                or_unknown(m->reasons[k]));
  } else {
    lite_warn("OMP_TOOL_LIBRARIES: %u libraries could not be loaded, among them '%s', '%s', "
              "'%s' (%s)",
              m->count, or_unknown(m->names[0]), or_unknown(m->names[1]),
              or_unknown(m->names[2]), or_unknown(m->reasons[0]));
  }
  for (unsigned k = 0; k < MISSING_SHOWN; k++) {
    free(m->names[k]);
    free(m->reasons[k]);
  }
}

static ompt_start_tool_result_t *from_library(const char *path, struct missing *missing)
{
  say("Opening %s... ", path);
  void *lib = dlopen(path, RTLD_LAZY);
  if (lib == NULL) {
    const char *err = dlerror();
    say("Failed: %s\n", err != NULL ? err : "unknown error");
    if (log_file == NULL)
      missing_add(missing, path, err);
    return NULL;
  }
  say("Success.\n");
  say("Searching for ompt_start_tool in %s... ", path);
  dlerror();
  start_tool_fn start = (start_tool_fn)dlsym(lib, "ompt_start_tool");
  if (start == NULL) {
    const char *err = dlerror();
    say("Failed: %s\n", err != NULL ? err : "no such symbol");
    return NULL;
  }
  ompt_start_tool_result_t *r = call_start(start);
  if (r == NULL) {
    say("Found but not using the OMPT interface.\n");
    say("Continuing search...\n");
    return NULL;
  }
  say("Success.\n");
  return r;
}

static ompt_start_tool_result_t *from_libraries(const char *libs, bool secure)
{
  if (libs == NULL || *libs == '\0') {
    say("No OMP_TOOL_LIBRARIES defined.\n");
    say("...searching tool libraries failed.\n");
    return NULL;
  }
  if (secure) {
    lite_warn("OMP_TOOL_LIBRARIES ignored: a setuid or setgid program loads no library its "
              "environment names");
    say("OMP_TOOL_LIBRARIES ignored in a setuid or setgid program.\n");
    return NULL;
  }
  say("Searching tool libraries...\n");
  say("OMP_TOOL_LIBRARIES = %s\n", libs);
  char *list = strdup(libs);
  ompt_start_tool_result_t *r = NULL;
  struct missing missing = { 0 };
  for (char *save = NULL, *path = list != NULL ? strtok_r(list, ":", &save) : NULL;
       path != NULL && r == NULL; path = strtok_r(NULL, ":", &save))
    r = from_library(path, &missing);
  free(list);
  missing_tell(&missing);
  if (r == NULL)
    say("...searching tool libraries failed.\n");
  return r;
}

/* ------------------------------------------------------------------------------ start, finish */

static void start(void)
{
  /* No tool unless one initializes below: until now every hook took its slow path (UNDECIDED),
     and left so, every barrier of a program without a tool went through the OMPT hook, which
     also hid it from OMPLITE_PROFILE. */
  __atomic_store_n(&lite_env.ompt, false, __ATOMIC_RELAXED);
  const char *var = getenv("OMP_TOOL");
  if (var != NULL && strcasecmp(var, "disabled") == 0)
    return;
  if (var != NULL && strcasecmp(var, "enabled") != 0)
    lite_warn("OMP_TOOL='%s' is neither enabled nor disabled; using the default (enabled)", var);
  bool secure = lite_os_secure();
  const char *verbose = getenv("OMP_TOOL_VERBOSE_INIT");
  if (secure && verbose != NULL && strcasecmp(verbose, "stdout") != 0 &&
      strcasecmp(verbose, "stderr") != 0 && strcasecmp(verbose, "disabled") != 0)
    lite_warn("OMP_TOOL_VERBOSE_INIT ignored: a setuid or setgid program writes no file its "
              "environment names");
  open_log(verbose, secure);
  say("----- START LOGGING OF TOOL REGISTRATION -----\n");
  ompt_start_tool_result_t *r = from_process();
  if (r == NULL)
    r = from_libraries(getenv("OMP_TOOL_LIBRARIES"), secure);
  if (r != NULL && r->initialize != NULL) {
    say("Tool was started and is using the OMPT interface.\n");
    tool = r;
  } else {
    say("No OMP tool loaded.\n");
  }
  say("----- END LOGGING OF TOOL REGISTRATION -----\n");
  close_log();
  if (tool == NULL)
    return;
  /* The host is device number omp_get_initial_device(): the number of devices, 0 here. */
  if (tool->initialize(lite_ompt_lookup, omp_get_initial_device(), &tool->tool_data) == 0)
    tool = NULL;
  else if (any_registered())
    __atomic_store_n(&lite_env.ompt, true, __ATOMIC_RELAXED);
  else
    quiet = true;
}

void lite_ompt_start_once(void) { pthread_once(&start_once, start); }

void lite_ompt_finalize(void)
{
  if (tool == NULL || atomic_exchange(&finalized, true))
    return;
  if (!quiet)
    __atomic_store_n(&lite_env.ompt, LITE_OMPT_FINALIZED, __ATOMIC_RELAXED);
  if (tool->finalize != NULL)
    tool->finalize(&tool->tool_data);
  memset(lite_ompt_callbacks, 0, sizeof lite_ompt_callbacks);
}

void lite_ompt_finish(void)
{
  if (quiet)
    lite_ompt_finalize();
  if (!lite_ompt_on())
    return;
  struct lite_thread *thr = lite_self_tls;
  if (thr != NULL && !thr->is_worker && thr->team == NULL)
    lite_ompt_thread_end(thr);
  lite_ompt_finalize();
}

/* ------------------------------------------------------------------------------ omp_control_tool */

/* omp_control_tool (OpenMP 5.1 section 3.14): the tool's control_tool callback gets the command
   and returns what the program gets; without a tool, omp_control_tool_notool; with one that
   registered no such callback, omp_control_tool_nocallback. LLVM's libomp exports it at
   VERSION only (libgomp 12 has none), and so do we (libgomp.map). */
int omp_control_tool(int command, int modifier, void *arg)
{
  lite_self(); /* the first OpenMP call decides whether a tool is attached */
  return lite_ompt_control_tool((uint64_t)command, (uint64_t)modifier, arg,
                                __builtin_return_address(0), __builtin_frame_address(0));
}

/* The tool is called from inside the runtime, as for any event: the current task's enter frame
   is the entry point's (enter) while it runs, so that a tool unwinding from its callback finds
   where the program's own frames resume (LLVM's libomp does the same). */
int lite_ompt_control_tool(uint64_t command, uint64_t modifier, void *arg, const void *codeptr,
                           void *enter)
{
  if (!lite_ompt_on())
    return quiet ? omp_control_tool_nocallback : omp_control_tool_notool;
  ompt_callback_control_tool_t cb = LITE_OMPT_CB(ompt_callback_control_tool);
  if (cb == NULL)
    return omp_control_tool_nocallback;
  ompt_frame_t *frame = &lite_current_task(lite_self())->ompt_frame;
  ompt_frame_t saved = *frame;
  frame->enter_frame.ptr = enter;
  frame->enter_frame_flags = ompt_frame_runtime | ompt_frame_framepointer;
  int result = cb(command, modifier, arg, codeptr);
  *frame = saved;
  return result;
}
