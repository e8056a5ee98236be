/* threadprivate variables of clang-built code when they do not live in thread-local storage
   (clang -fnoopenmp-use-tls, or C++ objects with constructors registered through
   __kmpc_threadprivate_register): __kmpc_threadprivate_cached returns the calling thread's copy
   of a variable, made on first use. The initial thread's copy is the variable itself; another
   thread's starts as the variable's value at its first use by any thread (the initial value,
   unless the program changed it before), or from the registered constructors. A thread's copies
   are destroyed (the registered destructor, then freed) when the thread ends: a user thread at
   its exit, a worker when its pool shuts down, at the latest when the library unloads at process
   exit (init.c joins the idle workers), as LLVM destroys them at thread exit and at shutdown. */
#include "internal.h"
#include "kmpc.h"

#include <stdlib.h>
#include <string.h>

typedef void *(*kmpc_ctor)(void *);
typedef void *(*kmpc_cctor)(void *, void *);
typedef void (*kmpc_dtor)(void *);

/* A variable: its registered constructors, and the value other threads' copies start from. */
struct tp_var {
  struct tp_var *next;
  void *data;
  size_t size;
  kmpc_ctor ctor;
  kmpc_cctor cctor;
  kmpc_dtor dtor;
  void *initial;     /* a copy of the variable at its first use, when no constructor is given */
};

static struct tp_var *vars;
static _Atomic uint32_t vars_lock;

static struct tp_var *var_find_locked(void *data)
{
  for (struct tp_var *v = vars; v != NULL; v = v->next)
    if (v->data == data)
      return v;
  struct tp_var *v = calloc(1, sizeof *v);
  if (v == NULL)
    lite_fatal("out of memory for a threadprivate variable");
  v->data = data;
  v->next = vars;
  vars = v;
  return v;
}

KMPC_EXPORT void __kmpc_threadprivate_register(ident_t *loc, void *data, kmpc_ctor ctor,
                                               kmpc_cctor cctor, kmpc_dtor dtor)
{
  (void)loc;
  lite_mutex_lock(&vars_lock);
  struct tp_var *v = var_find_locked(data);
  v->ctor = ctor;
  v->cctor = cctor;
  v->dtor = dtor;
  lite_mutex_unlock(&vars_lock);
}

/* The calling thread's copies: an open-addressing table from variable address to copy. */
struct tp_slot {
  void *data, *copy;
};
static LITE_THREAD_LOCAL struct tp_slot *table;
static LITE_THREAD_LOCAL size_t table_cap, table_used;

static struct tp_slot *slot_of(void *data)
{
  size_t mask = table_cap - 1;
  size_t i = ((uintptr_t)data >> 4) * 0x9e3779b97f4a7c15ULL >> 7 & mask;
  while (table[i].data != NULL && table[i].data != data)
    i = (i + 1) & mask;
  return &table[i];
}

static void table_grow(void)
{
  struct tp_slot *old = table;
  size_t old_cap = table_cap;
  table_cap = old_cap ? old_cap * 2 : 16;
  table = calloc(table_cap, sizeof *table);
  if (table == NULL)
    lite_fatal("out of memory for threadprivate copies");
  table_used = 0;
  for (size_t i = 0; i < old_cap; i++)
    if (old[i].data != NULL) {
      *slot_of(old[i].data) = old[i];
      table_used++;
    }
  free(old);
}

static void *make_copy(void *data, size_t size)
{
  lite_mutex_lock(&vars_lock);
  struct tp_var *v = var_find_locked(data);
  if (v->ctor == NULL && v->cctor == NULL && v->initial == NULL) {
    v->size = size;
    v->initial = malloc(size > 0 ? size : 1);
    if (v->initial == NULL)
      lite_fatal("out of memory for a threadprivate variable");
    memcpy(v->initial, data, size);
  }
  lite_mutex_unlock(&vars_lock);
  void *copy = malloc(size > 0 ? size : 1);
  if (copy == NULL)
    lite_fatal("out of memory for a threadprivate copy (%zu bytes)", size);
  if (v->cctor != NULL)
    v->cctor(copy, data);
  else if (v->ctor != NULL)
    v->ctor(copy);
  else
    memcpy(copy, v->initial, size);
  return copy;
}

KMPC_EXPORT void *__kmpc_threadprivate_cached(ident_t *loc, int32_t gtid, void *data, size_t size,
                                              void ***cache)
{
  (void)loc, (void)cache;
  if (lite_kmpc_gtid() == 0)
    return data;
  (void)gtid;
  if (table_used * 2 >= table_cap) {
    if (table == NULL)
      (void)lite_self(); /* the thread's state, whose end runs lite_kmpc_threadprivate_exit */
    table_grow();
  }
  struct tp_slot *s = slot_of(data);
  if (s->data == NULL) {
    s->copy = make_copy(data, size);
    s->data = data;
    table_used++;
  }
  return s->copy;
}

/* The older entry, without the compiler's cache. */
KMPC_EXPORT void *__kmpc_threadprivate(ident_t *loc, int32_t gtid, void *data, size_t size)
{
  return __kmpc_threadprivate_cached(loc, gtid, data, size, NULL);
}

/* The calling thread's copies, as it ends (team.c, thread_exit). */
void lite_kmpc_threadprivate_exit(void)
{
  if (table == NULL)
    return;
  for (size_t i = 0; i < table_cap; i++) {
    if (table[i].data == NULL)
      continue;
    lite_mutex_lock(&vars_lock);
    struct tp_var *v = var_find_locked(table[i].data);
    kmpc_dtor dtor = v->dtor;
    lite_mutex_unlock(&vars_lock);
    if (dtor != NULL)
      dtor(table[i].copy);
    free(table[i].copy);
  }
  free(table);
  table = NULL;
  table_cap = table_used = 0;
}
