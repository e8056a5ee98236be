/* The runtime proof for ws_fortran, called through bind(C) before anything else. */
#include "../integration/lite_check.h"

int omp_get_thread_num_(void); /* the Fortran binding that omp_lib's omp_get_thread_num calls */

void ws_check_fortran(void);
void ws_check_fortran(void)
{
    lite_check_runtime("ws_fortran", LITE_FN_ADDR(omp_get_thread_num_));
}
