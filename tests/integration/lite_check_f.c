/* The runtime proof for the Fortran test, called through bind(C) before anything else. */
#include "lite_check.h"

int omp_get_thread_num_(void);  /* the Fortran binding that omp_lib's omp_get_thread_num calls */

void lite_check_fortran(void);
void lite_check_fortran(void)
{
    lite_check_runtime("fortran_test", LITE_FN_ADDR(omp_get_thread_num_));
}
