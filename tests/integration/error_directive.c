/* The error directive (OpenMP 5.1) at execution time: gcc turns
   `#pragma omp error at(execution) severity(warning)` into GOMP_warning and severity(fatal) into
   GOMP_error, passing the message as a C string or NULL. A warning prints one line on stderr and
   the program goes on; a fatal error prints one and exits with EXIT_FAILURE. The lines are
   libgomp's, word for word (programs and their test scripts match on them), which
   run-routes.sh checks on stderr along with the exit status:
     libgomp: error directive encountered: MESSAGE
     libgomp: fatal error: error directive encountered: MESSAGE
   (without a message, the same lines end after "encountered").

   usage: error_directive warning   two warnings, one with a message and one without (the second
                                    from inside a parallel region, by one thread), then exit 0
          error_directive fatal     a fatal error with message("stop here"): never returns */
#include "lite_check.h"
#include <omp.h>

int main(int argc, char **argv)
{
    LITE_CHECK("error_directive");
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "warning") == 0) {
#pragma omp error at(execution) severity(warning) message("hello from libomp-lite test")
        int warned = 0;
#pragma omp parallel num_threads(2) shared(warned)
#pragma omp single
        {
#pragma omp error at(execution) severity(warning)
            warned = 1;
        }
        LITE_EXPECT(warned == 1, "the code after a warning in a region did not run");
        printf("error_directive: OK (went on after two warnings)\n");
        return 0;
    }
    if (strcmp(mode, "fatal") == 0) {
        fflush(stdout);
#pragma omp error at(execution) severity(fatal) message("stop here")
        /* Not lite_fail: its status 1 is the one a correct fatal error exits with. */
        fprintf(stderr, "error_directive: FAIL: the program went on after a fatal error "
                "directive\n");
        _exit(3);
    }
    lite_fail("usage: error_directive warning|fatal (got '%s')", mode);
}
