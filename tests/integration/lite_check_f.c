/* The runtime proof for the Fortran tests, called through bind(C) before anything else.
   LITE_FORTRAN_TEST_NAME: the name the program reports under, which local.mk sets for each
   Fortran program but fortran_test. */
#include "lite_check.h"

#ifndef LITE_FORTRAN_TEST_NAME
#define LITE_FORTRAN_TEST_NAME "fortran_test"
#endif

int omp_get_thread_num_(void);  /* the Fortran binding that omp_lib's omp_get_thread_num calls */

void lite_check_fortran(void);
void lite_check_fortran(void)
{
    lite_check_runtime(LITE_FORTRAN_TEST_NAME, LITE_FN_ADDR(omp_get_thread_num_));
}
