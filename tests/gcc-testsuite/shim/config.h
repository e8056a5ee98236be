/* Stands in for the config.h of a libgomp build tree, which a few GCC testsuite programs include
   (libgomp.c/affinity-1.c). It says what glibc on Linux provides. */
#define HAVE_PTHREAD_AFFINITY_NP 1
