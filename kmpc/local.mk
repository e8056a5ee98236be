# LLVM's runtime ABI for clang-built programs (__kmpc_*, and the user API at version VERSION).
libomp_lite_internal_la_SOURCES += \
	kmpc/kmpc.h \
	kmpc/thread.c \
	kmpc/invoke.c \
	kmpc/parallel.c \
	kmpc/loop.c \
	kmpc/sync.c \
	kmpc/task.c \
	kmpc/doacross.c \
	kmpc/threadprivate.c \
	kmpc/misc.c \
	kmpc/kmp_api.c \
	kmpc/omp_api.c
