/* The error directive (OpenMP 5.1): `#pragma omp error` at execution time calls GOMP_warning
   (severity(warning)) or GOMP_error (severity(fatal)).

   gcc passes the message with msglen == (size_t)-1 when it is a NUL-terminated C string, and
   with its length for Fortran, whose strings are not terminated; no message: msg is NULL.
   The text and its "libgomp:" prefix are those of the runtime this one replaces, since programs
   and their test scripts match on them (GCC's error-1.c tests do). */
#include "internal.h"
#include "ompt/ompt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void report(const char *severity, const char *msg, size_t msglen)
{
  flockfile(stderr);
  fprintf(stderr, "\nlibgomp: %serror directive encountered", severity);
  if (msg != NULL) {
    fputs(": ", stderr);
    fwrite(msg, 1, msglen == (size_t)-1 ? strlen(msg) : msglen, stderr);
  }
  fputc('\n', stderr);
  funlockfile(stderr);
}

void GOMP_warning(const char *msg, size_t msglen)
{
  if (lite_ompt_on())
    lite_ompt_error(false, msg, msglen == (size_t)-1 && msg != NULL ? strlen(msg) : msglen,
                    __builtin_return_address(0));
  report("", msg, msglen);
}

void GOMP_error(const char *msg, size_t msglen)
{
  if (lite_ompt_on())
    lite_ompt_error(true, msg, msglen == (size_t)-1 && msg != NULL ? strlen(msg) : msglen,
                    __builtin_return_address(0));
  report("fatal error: ", msg, msglen);
  exit(EXIT_FAILURE);
}
