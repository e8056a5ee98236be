# The runtime core: entry points by construct over the team, barrier and wait policy.
libomp_lite_internal_la_SOURCES += \
	libomp-lite/abi.h \
	libomp-lite/internal.h \
	libomp-lite/os.h \
	libomp-lite/lock.h \
	libomp-lite/os_linux.c \
	libomp-lite/env.h \
	libomp-lite/env.c \
	libomp-lite/icv.c \
	libomp-lite/wait.c \
	libomp-lite/gap.c \
	libomp-lite/init.c \
	libomp-lite/heap.c \
	libomp-lite/team.c \
	libomp-lite/team_api.c \
	libomp-lite/parallel.c \
	libomp-lite/barrier.c \
	libomp-lite/barrier_tree.c \
	libomp-lite/barrier_lines.c \
	libomp-lite/balance.c \
	libomp-lite/single.c \
	libomp-lite/work.c \
	libomp-lite/loop_common.h \
	libomp-lite/loop.c \
	libomp-lite/loop_ull.c \
	libomp-lite/parallel_loop.c \
	libomp-lite/sections.c \
	libomp-lite/ordered.c \
	libomp-lite/doacross.c \
	libomp-lite/cancel.c \
	libomp-lite/scope.c \
	libomp-lite/error.c \
	libomp-lite/task.c \
	libomp-lite/task_queue.c \
	libomp-lite/task_queue.h \
	libomp-lite/taskloop.c \
	libomp-lite/task_reduction.c \
	libomp-lite/target.c \
	libomp-lite/teams.c \
	libomp-lite/allocator.c \
	libomp-lite/critical.c \
	libomp-lite/lock.c \
	libomp-lite/time.c \
	libomp-lite/fortran.c

EXTRA_DIST += libomp-lite/libgomp.map
