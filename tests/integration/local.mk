# Integration tests: OpenMP programs built by the stock gcc, g++ and gfortran -fopenmp (their own
# omp.h and omp_lib, not ours), run on libomp-lite through the three routes users take: LD_PRELOAD,
# the drop-in libgomp.so.1 through LD_LIBRARY_PATH (same binaries, linked against the system
# libgomp), and copies linked at build time against build/omp-lite with an rpath. Each program
# proves it ran on libomp-lite (tests/integration/lite_check.h). tests/integration/run-routes.sh
# holds the cases of each test (environment, arguments) and runs them with a timeout; make check
# runs one automake test per (test, route) through generated stubs, tests/integration/TEST.ROUTE.
# By hand, for comparison on stock libgomp:  make check-integration-stock
# Plus the ABI check of the built library against libgomp 12's symbol list (tests/abi/).

# Flags of a user's build: only -D_GNU_SOURCE (replacing AM_CPPFLAGS, so that the compiler's own
# omp.h is used), warnings, -fopenmp.
INTEG_CPP_FLAGS = -D_GNU_SOURCE
INTEG_C_FLAGS = $(LITE_WARN_CFLAGS) -fopenmp -pthread
INTEG_CXX_FLAGS = $(LITE_WARN_CFLAGS) -fopenmp -pthread
INTEG_FC_FLAGS = -Wall -fopenmp
INTEG_LIBS = -ldl
# Routes 1 and 2: linked as usual, against the system libgomp.
INTEG_LINK_FLAGS = -fopenmp -pthread
# Route 3: gcc -fopenmp's own -lgomp finds build/omp-lite/libgomp.so first.
INTEG_RPATH_LINK_FLAGS = -fopenmp -pthread -L$(abs_top_builddir)/omp-lite \
	-Wl,-rpath,$(abs_top_builddir)/omp-lite
INTEG_RPATH_DEPS = omp-lite/libgomp.so.1

tests_integration_parallel_basics_SOURCES = tests/integration/parallel_basics.c \
	tests/integration/lite_check.h
tests_integration_parallel_basics_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_parallel_basics_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_parallel_basics_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_parallel_basics_LDADD = $(INTEG_LIBS)

tests_integration_rpath_parallel_basics_SOURCES = tests/integration/parallel_basics.c \
	tests/integration/lite_check.h
tests_integration_rpath_parallel_basics_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_parallel_basics_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_parallel_basics_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_parallel_basics_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_parallel_basics_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_nested_SOURCES = tests/integration/nested.c tests/integration/lite_check.h
tests_integration_nested_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_nested_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_nested_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_nested_LDADD = $(INTEG_LIBS)

tests_integration_rpath_nested_SOURCES = tests/integration/nested.c tests/integration/lite_check.h
tests_integration_rpath_nested_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_nested_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_nested_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_nested_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_nested_DEPENDENCIES = $(INTEG_RPATH_DEPS)

# wake_ahead: regular serial gaps then a long serial phase (issue 48, libomp-lite/gap.c)
tests_integration_wake_ahead_SOURCES = tests/integration/wake_ahead.c tests/integration/lite_check.h
tests_integration_wake_ahead_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_wake_ahead_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_wake_ahead_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_wake_ahead_LDADD = $(INTEG_LIBS)

tests_integration_rpath_wake_ahead_SOURCES = tests/integration/wake_ahead.c \
	tests/integration/lite_check.h
tests_integration_rpath_wake_ahead_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_wake_ahead_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_wake_ahead_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_wake_ahead_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_wake_ahead_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_barrier_SOURCES = tests/integration/barrier.c tests/integration/lite_check.h
tests_integration_barrier_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_barrier_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_barrier_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_barrier_LDADD = $(INTEG_LIBS)

tests_integration_rpath_barrier_SOURCES = tests/integration/barrier.c tests/integration/lite_check.h
tests_integration_rpath_barrier_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_barrier_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_barrier_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_barrier_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_barrier_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_single_SOURCES = tests/integration/single.c tests/integration/lite_check.h
tests_integration_single_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_single_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_single_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_single_LDADD = $(INTEG_LIBS)

tests_integration_rpath_single_SOURCES = tests/integration/single.c tests/integration/lite_check.h
tests_integration_rpath_single_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_single_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_single_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_single_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_single_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_copyprivate_SOURCES = tests/integration/copyprivate.c \
	tests/integration/lite_check.h
tests_integration_copyprivate_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_copyprivate_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_copyprivate_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_copyprivate_LDADD = $(INTEG_LIBS)

tests_integration_rpath_copyprivate_SOURCES = tests/integration/copyprivate.c \
	tests/integration/lite_check.h
tests_integration_rpath_copyprivate_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_copyprivate_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_copyprivate_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_copyprivate_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_copyprivate_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_critical_SOURCES = tests/integration/critical.c tests/integration/lite_check.h
tests_integration_critical_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_critical_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_critical_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_critical_LDADD = $(INTEG_LIBS)

tests_integration_rpath_critical_SOURCES = tests/integration/critical.c \
	tests/integration/lite_check.h
tests_integration_rpath_critical_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_critical_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_critical_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_critical_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_critical_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_atomic_SOURCES = tests/integration/atomic.c tests/integration/lite_check.h
tests_integration_atomic_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_atomic_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_atomic_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_atomic_LDADD = $(INTEG_LIBS)

tests_integration_rpath_atomic_SOURCES = tests/integration/atomic.c tests/integration/lite_check.h
tests_integration_rpath_atomic_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_atomic_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_atomic_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_atomic_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_atomic_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_locks_SOURCES = tests/integration/locks.c tests/integration/lite_check.h
tests_integration_locks_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_locks_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_locks_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_locks_LDADD = $(INTEG_LIBS)

tests_integration_rpath_locks_SOURCES = tests/integration/locks.c tests/integration/lite_check.h
tests_integration_rpath_locks_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_locks_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_locks_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_locks_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_locks_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_reduction_SOURCES = tests/integration/reduction.c tests/integration/lite_check.h
tests_integration_reduction_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_reduction_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_reduction_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_reduction_LDADD = $(INTEG_LIBS)

tests_integration_rpath_reduction_SOURCES = tests/integration/reduction.c \
	tests/integration/lite_check.h
tests_integration_rpath_reduction_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_reduction_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_reduction_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_reduction_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_reduction_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_threadprivate_SOURCES = tests/integration/threadprivate.c \
	tests/integration/lite_check.h
tests_integration_threadprivate_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_threadprivate_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_threadprivate_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_threadprivate_LDADD = $(INTEG_LIBS)

tests_integration_rpath_threadprivate_SOURCES = tests/integration/threadprivate.c \
	tests/integration/lite_check.h
tests_integration_rpath_threadprivate_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_threadprivate_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_threadprivate_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_threadprivate_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_threadprivate_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_flush_handoff_SOURCES = tests/integration/flush_handoff.c \
	tests/integration/lite_check.h
tests_integration_flush_handoff_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_flush_handoff_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_flush_handoff_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_flush_handoff_LDADD = $(INTEG_LIBS)

tests_integration_rpath_flush_handoff_SOURCES = tests/integration/flush_handoff.c \
	tests/integration/lite_check.h
tests_integration_rpath_flush_handoff_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_flush_handoff_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_flush_handoff_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_flush_handoff_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_flush_handoff_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_root_threads_SOURCES = tests/integration/root_threads.c \
	tests/integration/lite_check.h
tests_integration_root_threads_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_root_threads_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_root_threads_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_root_threads_LDADD = $(INTEG_LIBS)

tests_integration_rpath_root_threads_SOURCES = tests/integration/root_threads.c \
	tests/integration/lite_check.h
tests_integration_rpath_root_threads_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_root_threads_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_root_threads_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_root_threads_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_root_threads_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_exit_user_threads_SOURCES = tests/integration/exit_user_threads.c \
	tests/integration/lite_check.h
tests_integration_exit_user_threads_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_exit_user_threads_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_exit_user_threads_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_exit_user_threads_LDADD = $(INTEG_LIBS)

tests_integration_rpath_exit_user_threads_SOURCES = tests/integration/exit_user_threads.c \
	tests/integration/lite_check.h
tests_integration_rpath_exit_user_threads_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_exit_user_threads_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_exit_user_threads_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_exit_user_threads_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_exit_user_threads_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_fork_SOURCES = tests/integration/fork.c tests/integration/lite_check.h
tests_integration_fork_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_fork_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_fork_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_fork_LDADD = $(INTEG_LIBS)

tests_integration_rpath_fork_SOURCES = tests/integration/fork.c tests/integration/lite_check.h
tests_integration_rpath_fork_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_fork_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_fork_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_fork_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_fork_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_oversub_SOURCES = tests/integration/oversub.c tests/integration/lite_check.h
tests_integration_oversub_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_oversub_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_oversub_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_oversub_LDADD = $(INTEG_LIBS)

tests_integration_rpath_oversub_SOURCES = tests/integration/oversub.c tests/integration/lite_check.h
tests_integration_rpath_oversub_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_oversub_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_oversub_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_oversub_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_oversub_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_env_probe_SOURCES = tests/integration/env_probe.c tests/integration/lite_check.h
tests_integration_env_probe_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_env_probe_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_env_probe_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_env_probe_LDADD = $(INTEG_LIBS)

tests_integration_rpath_env_probe_SOURCES = tests/integration/env_probe.c \
	tests/integration/lite_check.h
tests_integration_rpath_env_probe_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_env_probe_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_env_probe_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_env_probe_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_env_probe_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_cxx_test_SOURCES = tests/integration/cxx_test.cpp tests/integration/lite_check.h
tests_integration_cxx_test_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_cxx_test_CXXFLAGS = $(INTEG_CXX_FLAGS)
tests_integration_cxx_test_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_cxx_test_LDADD = $(INTEG_LIBS)

tests_integration_rpath_cxx_test_SOURCES = tests/integration/cxx_test.cpp \
	tests/integration/lite_check.h
tests_integration_rpath_cxx_test_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_cxx_test_CXXFLAGS = $(INTEG_CXX_FLAGS)
tests_integration_rpath_cxx_test_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_cxx_test_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_cxx_test_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_fortran_test_SOURCES = tests/integration/fortran_test.f90 \
	tests/integration/lite_check_f.c tests/integration/lite_check.h
tests_integration_fortran_test_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_fortran_test_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_fortran_test_FCFLAGS = $(INTEG_FC_FLAGS)
tests_integration_fortran_test_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_fortran_test_LDADD = $(INTEG_LIBS)

tests_integration_rpath_fortran_test_SOURCES = tests/integration/fortran_test.f90 \
	tests/integration/lite_check_f.c tests/integration/lite_check.h
tests_integration_rpath_fortran_test_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_fortran_test_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_fortran_test_FCFLAGS = $(INTEG_FC_FLAGS)
tests_integration_rpath_fortran_test_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_fortran_test_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_fortran_test_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_thread_limit_SOURCES = tests/integration/thread_limit.c \
	tests/integration/lite_check.h
tests_integration_thread_limit_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_thread_limit_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_thread_limit_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_thread_limit_LDADD = $(INTEG_LIBS)

tests_integration_rpath_thread_limit_SOURCES = tests/integration/thread_limit.c \
	tests/integration/lite_check.h
tests_integration_rpath_thread_limit_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_thread_limit_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_thread_limit_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_thread_limit_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_thread_limit_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_error_directive_SOURCES = tests/integration/error_directive.c \
	tests/integration/lite_check.h
tests_integration_error_directive_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_error_directive_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_error_directive_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_error_directive_LDADD = $(INTEG_LIBS)

tests_integration_rpath_error_directive_SOURCES = tests/integration/error_directive.c \
	tests/integration/lite_check.h
tests_integration_rpath_error_directive_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_error_directive_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_error_directive_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_error_directive_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_error_directive_DEPENDENCIES = $(INTEG_RPATH_DEPS)

# Its Fortran twin: gfortran passes the message with its length.
EDF_CPP_FLAGS = $(INTEG_CPP_FLAGS) -DLITE_FORTRAN_TEST_NAME='"error_directive_f"'
tests_integration_error_directive_f_SOURCES = tests/integration/error_directive_f.f90 \
	tests/integration/lite_check_f.c tests/integration/lite_check.h
tests_integration_error_directive_f_CPPFLAGS = $(EDF_CPP_FLAGS)
tests_integration_error_directive_f_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_error_directive_f_FCFLAGS = $(INTEG_FC_FLAGS)
tests_integration_error_directive_f_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_error_directive_f_LDADD = $(INTEG_LIBS)

tests_integration_rpath_error_directive_f_SOURCES = tests/integration/error_directive_f.f90 \
	tests/integration/lite_check_f.c tests/integration/lite_check.h
tests_integration_rpath_error_directive_f_CPPFLAGS = $(EDF_CPP_FLAGS)
tests_integration_rpath_error_directive_f_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_error_directive_f_FCFLAGS = $(INTEG_FC_FLAGS)
tests_integration_rpath_error_directive_f_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_error_directive_f_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_error_directive_f_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_tasks_SOURCES = tests/integration/tasks.c tests/integration/lite_check.h
tests_integration_tasks_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_tasks_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_tasks_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_tasks_LDADD = $(INTEG_LIBS)

tests_integration_rpath_tasks_SOURCES = tests/integration/tasks.c tests/integration/lite_check.h
tests_integration_rpath_tasks_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_tasks_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_tasks_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_tasks_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_tasks_DEPENDENCIES = $(INTEG_RPATH_DEPS)

# Its Fortran companion: task, taskwait, taskgroup, depend, detach and taskloop from gfortran.
TF_CPP_FLAGS = $(INTEG_CPP_FLAGS) -DLITE_FORTRAN_TEST_NAME='"tasks_f"'
tests_integration_tasks_f_SOURCES = tests/integration/tasks_f.f90 \
	tests/integration/lite_check_f.c tests/integration/lite_check.h
tests_integration_tasks_f_CPPFLAGS = $(TF_CPP_FLAGS)
tests_integration_tasks_f_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_tasks_f_FCFLAGS = $(INTEG_FC_FLAGS)
tests_integration_tasks_f_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_tasks_f_LDADD = $(INTEG_LIBS)

tests_integration_rpath_tasks_f_SOURCES = tests/integration/tasks_f.f90 \
	tests/integration/lite_check_f.c tests/integration/lite_check.h
tests_integration_rpath_tasks_f_CPPFLAGS = $(TF_CPP_FLAGS)
tests_integration_rpath_tasks_f_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_tasks_f_FCFLAGS = $(INTEG_FC_FLAGS)
tests_integration_rpath_tasks_f_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_tasks_f_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_tasks_f_DEPENDENCIES = $(INTEG_RPATH_DEPS)
tests_integration_target_SOURCES = tests/integration/target.c tests/integration/lite_check.h
tests_integration_target_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_target_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_target_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_target_LDADD = $(INTEG_LIBS)

tests_integration_rpath_target_SOURCES = tests/integration/target.c tests/integration/lite_check.h
tests_integration_rpath_target_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_target_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_target_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_target_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_target_DEPENDENCIES = $(INTEG_RPATH_DEPS)

# allocators: links libnuma too, to ask the kernel where each page is (get_mempolicy).
tests_integration_allocators_SOURCES = tests/integration/allocators.c \
	tests/integration/lite_check.h
tests_integration_allocators_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_allocators_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_allocators_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_allocators_LDADD = $(INTEG_LIBS) $(NUMA_LIBS)

tests_integration_rpath_allocators_SOURCES = tests/integration/allocators.c \
	tests/integration/lite_check.h
tests_integration_rpath_allocators_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_allocators_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_allocators_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_allocators_LDADD = $(INTEG_LIBS) $(NUMA_LIBS)
EXTRA_tests_integration_rpath_allocators_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_affinity_format_SOURCES = tests/integration/affinity_format.c \
	tests/integration/lite_check.h
tests_integration_affinity_format_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_affinity_format_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_affinity_format_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_affinity_format_LDADD = $(INTEG_LIBS)

tests_integration_rpath_affinity_format_SOURCES = tests/integration/affinity_format.c \
	tests/integration/lite_check.h
tests_integration_rpath_affinity_format_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_affinity_format_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_affinity_format_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_affinity_format_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_affinity_format_DEPENDENCIES = $(INTEG_RPATH_DEPS)

# dlclose: the host has no OpenMP of its own; its plugin, a shared object built by gcc -fopenmp,
# lies next to it (in rpath/, linked against build/omp-lite).
tests_integration_dlclose_SOURCES = tests/integration/dlclose.c tests/integration/lite_check.h
tests_integration_dlclose_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_dlclose_CFLAGS = $(LITE_WARN_CFLAGS) -pthread
tests_integration_dlclose_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_dlclose_DEPENDENCIES = tests/integration/dlclose_plugin.so

tests_integration_rpath_dlclose_SOURCES = tests/integration/dlclose.c tests/integration/lite_check.h
tests_integration_rpath_dlclose_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_dlclose_CFLAGS = $(LITE_WARN_CFLAGS) -pthread
tests_integration_rpath_dlclose_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_dlclose_DEPENDENCIES = tests/integration/rpath/dlclose_plugin.so

INTEG_PLUGIN_SRC = $(srcdir)/tests/integration/dlclose_plugin.c
tests/integration/dlclose_plugin.so: $(INTEG_PLUGIN_SRC)
	$(AM_V_CC)$(MKDIR_P) tests/integration && \
	$(CC) $(INTEG_CPP_FLAGS) $(INTEG_C_FLAGS) -fPIC -shared -o $@ $(INTEG_PLUGIN_SRC) \
	  $(INTEG_LINK_FLAGS)
tests/integration/rpath/dlclose_plugin.so: $(INTEG_PLUGIN_SRC) $(INTEG_RPATH_DEPS)
	$(AM_V_CC)$(MKDIR_P) tests/integration/rpath && \
	$(CC) $(INTEG_CPP_FLAGS) $(INTEG_C_FLAGS) -fPIC -shared -o $@ $(INTEG_PLUGIN_SRC) \
	  $(INTEG_RPATH_LINK_FLAGS)
CLEANFILES += tests/integration/dlclose_plugin.so tests/integration/rpath/dlclose_plugin.so
EXTRA_DIST += tests/integration/dlclose_plugin.c

tests_integration_kmp_affinity_SOURCES = tests/integration/kmp_affinity.c tests/integration/lite_check.h
tests_integration_kmp_affinity_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_kmp_affinity_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_kmp_affinity_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_kmp_affinity_LDADD = $(INTEG_LIBS)

tests_integration_rpath_kmp_affinity_SOURCES = tests/integration/kmp_affinity.c \
	tests/integration/lite_check.h
tests_integration_rpath_kmp_affinity_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_kmp_affinity_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_kmp_affinity_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_kmp_affinity_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_kmp_affinity_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_binding_SOURCES = tests/integration/binding.c tests/integration/lite_check.h
tests_integration_binding_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_binding_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_binding_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_binding_LDADD = $(INTEG_LIBS)

tests_integration_rpath_binding_SOURCES = tests/integration/binding.c tests/integration/lite_check.h
tests_integration_rpath_binding_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_binding_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_binding_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_binding_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_binding_DEPENDENCIES = $(INTEG_RPATH_DEPS)

INTEG_BINARIES = tests/integration/parallel_basics tests/integration/rpath/parallel_basics \
	tests/integration/nested tests/integration/rpath/nested tests/integration/barrier \
	tests/integration/rpath/barrier tests/integration/single tests/integration/rpath/single \
	tests/integration/copyprivate tests/integration/rpath/copyprivate tests/integration/critical \
	tests/integration/rpath/critical tests/integration/atomic tests/integration/rpath/atomic \
	tests/integration/locks tests/integration/rpath/locks tests/integration/reduction \
	tests/integration/rpath/reduction tests/integration/threadprivate \
	tests/integration/rpath/threadprivate tests/integration/flush_handoff \
	tests/integration/rpath/flush_handoff tests/integration/root_threads \
	tests/integration/rpath/root_threads tests/integration/exit_user_threads \
	tests/integration/rpath/exit_user_threads tests/integration/fork tests/integration/rpath/fork \
	tests/integration/oversub tests/integration/rpath/oversub tests/integration/env_probe \
	tests/integration/rpath/env_probe tests/integration/cxx_test tests/integration/rpath/cxx_test \
	tests/integration/fortran_test tests/integration/rpath/fortran_test \
	tests/integration/thread_limit tests/integration/rpath/thread_limit \
	tests/integration/error_directive tests/integration/rpath/error_directive \
	tests/integration/error_directive_f tests/integration/rpath/error_directive_f \
	tests/integration/tasks tests/integration/rpath/tasks tests/integration/tasks_f \
	tests/integration/rpath/tasks_f \
	tests/integration/target tests/integration/rpath/target \
	tests/integration/dlclose tests/integration/rpath/dlclose tests/integration/binding \
	tests/integration/rpath/binding tests/integration/allocators \
	tests/integration/rpath/allocators tests/integration/affinity_format \
	tests/integration/rpath/affinity_format tests/integration/wake_ahead \
	tests/integration/rpath/wake_ahead tests/integration/kmp_affinity \
	tests/integration/rpath/kmp_affinity
check_PROGRAMS += $(INTEG_BINARIES)

# One automake test per (test, route): the stubs exec run-routes.sh ROUTE TEST.
INTEG_TESTS = tests/integration/parallel_basics tests/integration/nested tests/integration/barrier \
	tests/integration/single tests/integration/copyprivate tests/integration/critical \
	tests/integration/atomic tests/integration/locks tests/integration/reduction \
	tests/integration/threadprivate tests/integration/flush_handoff tests/integration/root_threads \
	tests/integration/exit_user_threads tests/integration/fork tests/integration/oversub tests/integration/wait_policy \
	tests/integration/cxx tests/integration/fortran tests/integration/env_display \
	tests/integration/env_bad_values tests/integration/thread_limit \
	tests/integration/error_directive tests/integration/tasks tests/integration/target \
	tests/integration/dlclose tests/integration/binding tests/integration/allocators \
	tests/integration/affinity_format tests/integration/wake_ahead tests/integration/kmp_affinity
INTEG_ROUTE_TESTS = $(INTEG_TESTS:=.preload) $(INTEG_TESTS:=.ldpath) $(INTEG_TESTS:=.rpath)
ABI_TESTS = tests/abi/check-symbols
check_SCRIPTS += $(INTEG_ROUTE_TESTS) $(ABI_TESTS)
TESTS += $(ABI_TESTS) $(INTEG_ROUTE_TESTS)
CLEANFILES += $(INTEG_ROUTE_TESTS) $(ABI_TESTS)
EXTRA_DIST += tests/integration/run-routes.sh tests/integration/README.md \
	tests/abi/check-symbols.sh tests/abi/libgomp12-host-symbols.txt \
	tests/abi/clang14-host-entry-points.txt \
	tests/abi/lite-own-symbols.txt

$(INTEG_ROUTE_TESTS): Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/integration && b=`basename $@` && \
	{ echo '#!/bin/sh'; \
	  echo '# generated by make: integration test '"$${b%.*}"' on route '"$${b##*.}"; \
	  echo "exec bash '$(abs_top_srcdir)/tests/integration/run-routes.sh' \
	    --builddir '$(abs_top_builddir)' --srcdir '$(abs_top_srcdir)' $${b##*.} $${b%.*}"; \
	} > $@ && chmod +x $@

$(ABI_TESTS): Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/abi && \
	{ echo '#!/bin/sh'; \
	  echo '# generated by make: the ABI check of the built library'; \
	  echo "exec bash '$(abs_top_srcdir)/tests/abi/check-symbols.sh' \
	    --srcdir '$(abs_top_srcdir)' --lib '$(abs_top_builddir)/.libs/libomp-lite.so.0'"; \
	} > $@ && chmod +x $@

# The same programs on stock libgomp (proof check off), for comparison while developing.
check-integration-stock: $(INTEG_BINARIES)
	bash $(srcdir)/tests/integration/run-routes.sh --builddir $(abs_top_builddir) \
	  --srcdir $(abs_top_srcdir) stock
.PHONY: check-integration-stock

# Applications, each one test that runs its own routes (see the scripts): numpy on OpenBLAS's
# OpenMP build (LD_PRELOAD and the drop-in libgomp.so.1, 2 and 4 threads, with the proof that
# every OpenMP call of OpenBLAS binds to libomp-lite), and hybrid MPI + OpenMP under Open MPI's
# mpirun (the program is built by the script with mpicc, into tests/integration/mpi/). Both skip
# (exit 77) only where numpy with OpenBLAS-openmp, or mpirun and mpicc, are not installed;
# .ci/install-deps installs them.
APP_TESTS = tests/integration/numpy_openblas tests/integration/mpi_hybrid
check_SCRIPTS += $(APP_TESTS)
TESTS += $(APP_TESTS)
CLEANFILES += $(APP_TESTS) tests/integration/mpi/mpi_hybrid
EXTRA_DIST += tests/integration/numpy_openblas.sh tests/integration/numpy_openblas.py \
	tests/integration/mpi_hybrid.sh tests/integration/mpi_hybrid.c

$(APP_TESTS): Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/integration && b=`basename $@` && \
	{ echo '#!/bin/sh'; \
	  echo '# generated by make: the application test '"$$b"; \
	  echo "exec bash '$(abs_top_srcdir)/tests/integration/$$b.sh' \
	    --builddir '$(abs_top_builddir)' --srcdir '$(abs_top_srcdir)'"; \
	} > $@ && chmod +x $@

# heap_churn: the heap's behaviour under temporaries malloc'd and freed at every step (heap.c)
tests_integration_heap_churn_SOURCES = tests/integration/heap_churn.c \
	tests/integration/lite_check.h
tests_integration_heap_churn_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_heap_churn_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_heap_churn_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_heap_churn_LDADD = $(INTEG_LIBS)

tests_integration_rpath_heap_churn_SOURCES = tests/integration/heap_churn.c \
	tests/integration/lite_check.h
tests_integration_rpath_heap_churn_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_heap_churn_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_heap_churn_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_heap_churn_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_heap_churn_DEPENDENCIES = $(INTEG_RPATH_DEPS)

INTEG_BINARIES += tests/integration/heap_churn tests/integration/rpath/heap_churn
INTEG_TESTS += tests/integration/heap_churn

# loop_order: each thread's chunks of a plain dynamic/guided/runtime loop in increasing order,
# as a program written the MEGAHIT way relies on (issue 46, sched/steal.c)
tests_integration_loop_order_SOURCES = tests/integration/loop_order.c \
	tests/integration/lite_check.h
tests_integration_loop_order_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_loop_order_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_loop_order_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_loop_order_LDADD = $(INTEG_LIBS)

tests_integration_rpath_loop_order_SOURCES = tests/integration/loop_order.c \
	tests/integration/lite_check.h
tests_integration_rpath_loop_order_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_loop_order_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_loop_order_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_loop_order_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_loop_order_DEPENDENCIES = $(INTEG_RPATH_DEPS)

INTEG_BINARIES += tests/integration/loop_order tests/integration/rpath/loop_order
INTEG_TESTS += tests/integration/loop_order

# clang-built programs (LLVM's runtime ABI, kmpc/) through the routes users take, and a mixed
# process (a clang-built program calling a gcc-built OpenMP library): tests/integration/
# clang_routes.sh builds them with clang -fopenmp into tests/integration/clang/. Skips (exit 77)
# only without clang and LLVM's libomp to link against; .ci/install-deps installs both.
CLANG_TESTS = tests/integration/clang_routes
check_SCRIPTS += $(CLANG_TESTS)
TESTS += $(CLANG_TESTS)
CLEANFILES += $(CLANG_TESTS)
EXTRA_DIST += tests/integration/clang_routes.sh tests/integration/clang_abi.c \
	tests/integration/clang_mixed_lib.c tests/integration/clang_threadprivate.cpp

$(CLANG_TESTS): Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/integration && \
	{ echo '#!/bin/sh'; \
	  echo '# generated by make: clang-built programs on libomp-lite'; \
	  echo "exec bash '$(abs_top_srcdir)/tests/integration/clang_routes.sh' \
	    --builddir '$(abs_top_builddir)' --srcdir '$(abs_top_srcdir)'"; \
	} > $@ && chmod +x $@

clean-local: clean-clang-tests
clean-clang-tests:
	rm -rf tests/integration/clang
.PHONY: clean-clang-tests

# OMPT tool start-up (issue 39): a tool linked into the program (gcc: linked against
# libomp-lite, and with -rdynamic; clang), preloaded, or named by OMP_TOOL_LIBRARIES; OMP_TOOL,
# OMP_TOOL_VERBOSE_INIT, an initialize that returns 0, finalize once, ompt_set_callback's
# answers. tests/integration/ompt_startup.sh builds its programs into tests/integration/ompt/;
# skips (77) without LLVM's omp-tools.h (libomp-14-dev).
OMPT_STARTUP_TESTS = tests/integration/ompt_startup
check_SCRIPTS += $(OMPT_STARTUP_TESTS)
TESTS += $(OMPT_STARTUP_TESTS)
CLEANFILES += $(OMPT_STARTUP_TESTS)
EXTRA_DIST += tests/integration/ompt_env.sh tests/integration/ompt_startup.sh \
	tests/integration/ompt_startup.c tests/integration/ompt_tool.c

$(OMPT_STARTUP_TESTS): Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/integration && \
	{ echo '#!/bin/sh'; \
	  echo '# generated by make: OMPT tool start-up on libomp-lite'; \
	  echo "exec bash '$(abs_top_srcdir)/tests/integration/ompt_startup.sh' \
	    --builddir '$(abs_top_builddir)' --srcdir '$(abs_top_srcdir)'"; \
	} > $@ && chmod +x $@

clean-local: clean-ompt-startup
clean-ompt-startup:
	rm -rf tests/integration/ompt
.PHONY: clean-ompt-startup

# OMPT callbacks that call the OpenMP API and start regions (parallel-begin of an outermost
# region starting a new team before the program's exists, nested ones from implicit-task,
# work and sync-region), and one warning for a long OMP_TOOL_LIBRARIES list (issue 50), at 1,
# 2, 4 and 16 threads on the preload and ldpath routes. tests/integration/ompt_reentry.sh
# builds into tests/integration/ompt-reentry/; skips (77) without LLVM's omp-tools.h.
OMPT_REENTRY_TESTS = tests/integration/ompt_reentry
check_SCRIPTS += $(OMPT_REENTRY_TESTS)
TESTS += $(OMPT_REENTRY_TESTS)
CLEANFILES += $(OMPT_REENTRY_TESTS)
EXTRA_DIST += tests/integration/ompt_reentry.sh tests/integration/ompt_reentry.c \
	tests/integration/ompt_reentry_tool.c

$(OMPT_REENTRY_TESTS): Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/integration && \
	{ echo '#!/bin/sh'; \
	  echo '# generated by make: OMPT callbacks that start regions, on libomp-lite'; \
	  echo "exec bash '$(abs_top_srcdir)/tests/integration/ompt_reentry.sh' \
	    --builddir '$(abs_top_builddir)' --srcdir '$(abs_top_srcdir)'"; \
	} > $@ && chmod +x $@

clean-local: clean-ompt-reentry
clean-ompt-reentry:
	rm -rf tests/integration/ompt-reentry
.PHONY: clean-ompt-reentry

# OMPT dispatch events (issue 39): the chunks and sections a tool sees (ompt_dispatch.c),
# gcc-built and clang-built; tests/integration/ompt_dispatch.sh builds into
# tests/integration/ompt/ (cleaned with ompt_startup's) and skips (77) without LLVM's
# omp-tools.h.
OMPT_DISPATCH_TESTS = tests/integration/ompt_dispatch
check_SCRIPTS += $(OMPT_DISPATCH_TESTS)
TESTS += $(OMPT_DISPATCH_TESTS)
CLEANFILES += $(OMPT_DISPATCH_TESTS)
EXTRA_DIST += tests/integration/ompt_dispatch.sh tests/integration/ompt_dispatch.c

$(OMPT_DISPATCH_TESTS): Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/integration && \
	{ echo '#!/bin/sh'; \
	  echo '# generated by make: OMPT dispatch events on libomp-lite'; \
	  echo "exec bash '$(abs_top_srcdir)/tests/integration/ompt_dispatch.sh' \
	    --builddir '$(abs_top_builddir)' --srcdir '$(abs_top_srcdir)'"; \
	} > $@ && chmod +x $@

# OMPT callback counts of a gcc-built program on libomp-lite, against fixed expectations and
# LLVM's runtime's under the same binary (issue 46); tests/integration/ompt_counts.sh builds
# into tests/integration/ompt/ and skips (77) without LLVM's omp-tools.h.
OMPT_COUNTS_TESTS = tests/integration/ompt_counts
check_SCRIPTS += $(OMPT_COUNTS_TESTS)
TESTS += $(OMPT_COUNTS_TESTS)
CLEANFILES += $(OMPT_COUNTS_TESTS)
EXTRA_DIST += tests/integration/ompt_counts.sh tests/integration/ompt_counts.c

$(OMPT_COUNTS_TESTS): Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/integration && \
	{ echo '#!/bin/sh'; \
	  echo '# generated by make: OMPT callback counts on libomp-lite and LLVM'"'"'s runtime'; \
	  echo "exec bash '$(abs_top_srcdir)/tests/integration/ompt_counts.sh' \
	    --builddir '$(abs_top_builddir)' --srcdir '$(abs_top_srcdir)'"; \
	} > $@ && chmod +x $@

# OMPT events of host teams regions (a league, its teams' initial tasks, the inquiries inside)
# and of target constructs run on the host (target, target data, enter/exit data, update,
# nowait; ompt_callback_target and _emi), gcc-built and clang-built, each run's whole event
# sequence against the expected one (issue 39). tests/integration/ompt_teams_target.sh builds
# its programs into tests/integration/ompt-teams/; skips (77) without LLVM's omp-tools.h.
OMPT_TEAMS_TARGET_TESTS = tests/integration/ompt_teams_target
check_SCRIPTS += $(OMPT_TEAMS_TARGET_TESTS)
TESTS += $(OMPT_TEAMS_TARGET_TESTS)
CLEANFILES += $(OMPT_TEAMS_TARGET_TESTS)
EXTRA_DIST += tests/integration/ompt_teams_target.sh tests/integration/ompt_teams_target.c

$(OMPT_TEAMS_TARGET_TESTS): Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/integration && \
	{ echo '#!/bin/sh'; \
	  echo '# generated by make: OMPT teams and target events on libomp-lite'; \
	  echo "exec bash '$(abs_top_srcdir)/tests/integration/ompt_teams_target.sh' \
	    --builddir '$(abs_top_builddir)' --srcdir '$(abs_top_srcdir)'"; \
	} > $@ && chmod +x $@

clean-local: clean-ompt-teams-target
clean-ompt-teams-target:
	rm -rf tests/integration/ompt-teams
.PHONY: clean-ompt-teams-target

# Issue 26 ("hardening"): harden.c holds the cases that need a program of their own (see its
# usage); t_harden and t_stress in run-routes.sh run them, on the LD_PRELOAD route only (the
# routes differ in how the library is found, which these cases do not test), and t_memcheck runs
# a few integration programs under valgrind memcheck.
tests_integration_harden_SOURCES = tests/integration/harden.c tests/integration/lite_check.h
tests_integration_harden_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_harden_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_harden_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_harden_LDADD = $(INTEG_LIBS)
check_PROGRAMS += tests/integration/harden

HARDEN_TESTS = tests/integration/harden.preload tests/integration/stress.preload \
	tests/integration/memcheck.preload
check_SCRIPTS += $(HARDEN_TESTS)
TESTS += $(HARDEN_TESTS)
CLEANFILES += $(HARDEN_TESTS)

$(HARDEN_TESTS): Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/integration && b=`basename $@` && \
	{ echo '#!/bin/sh'; \
	  echo '# generated by make: integration test '"$${b%.*}"' on route '"$${b##*.}"; \
	  echo "exec bash '$(abs_top_srcdir)/tests/integration/run-routes.sh' \
	    --builddir '$(abs_top_builddir)' --srcdir '$(abs_top_srcdir)' $${b##*.} $${b%.*}"; \
	} > $@ && chmod +x $@

tests_integration_stress_SOURCES = tests/integration/stress.c tests/integration/lite_check.h
tests_integration_stress_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_stress_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_stress_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_stress_LDADD = $(INTEG_LIBS)
check_PROGRAMS += tests/integration/stress

# Issue 41: the tree barrier forced on teams of 64 to 256 threads (t_many_cores), on the
# LD_PRELOAD route only, as the hardening cases: the routes differ in how the library is found.
MANY_CORES_TESTS = tests/integration/many_cores.preload
check_SCRIPTS += $(MANY_CORES_TESTS)
TESTS += $(MANY_CORES_TESTS)
CLEANFILES += $(MANY_CORES_TESTS)
$(MANY_CORES_TESTS): Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/integration && b=`basename $@` && \
	{ echo '#!/bin/sh'; \
	  echo '# generated by make: integration test '"$${b%.*}"' on route '"$${b##*.}"; \
	  echo "exec bash '$(abs_top_srcdir)/tests/integration/run-routes.sh' \
	    --builddir '$(abs_top_builddir)' --srcdir '$(abs_top_srcdir)' $${b##*.} $${b%.*}"; \
	} > $@ && chmod +x $@
EXTRA_DIST += tests/stress-soak.sh

# Issues 50 and 51: the affinity and NUMA system calls refused by a seccomp filter the program
# installs itself (t_seccomp_affinity), on the LD_PRELOAD and drop-in routes.
tests_integration_seccomp_affinity_SOURCES = tests/integration/seccomp_affinity.c \
	tests/integration/lite_check.h
tests_integration_seccomp_affinity_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_seccomp_affinity_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_seccomp_affinity_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_seccomp_affinity_LDADD = $(INTEG_LIBS)
check_PROGRAMS += tests/integration/seccomp_affinity

SECCOMP_TESTS = tests/integration/seccomp_affinity.preload tests/integration/seccomp_affinity.ldpath
check_SCRIPTS += $(SECCOMP_TESTS)
TESTS += $(SECCOMP_TESTS)
CLEANFILES += $(SECCOMP_TESTS)
$(SECCOMP_TESTS): Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/integration && b=`basename $@` && \
	{ echo '#!/bin/sh'; \
	  echo '# generated by make: integration test '"$${b%.*}"' on route '"$${b##*.}"; \
	  echo "exec bash '$(abs_top_srcdir)/tests/integration/run-routes.sh' \
	    --builddir '$(abs_top_builddir)' --srcdir '$(abs_top_srcdir)' $${b##*.} $${b%.*}"; \
	} > $@ && chmod +x $@

# profile: OMPLITE_PROFILE's table and OMPLITE_TRACE's timeline on programs of a known shape,
# checked by profile_check.py (python3). Linked with -rdynamic so that the table names the
# program's own functions (dladdr sees only exported symbols). It has an OMPT tool of its own
# (PROFILE_TOOL=1), built against the runtime's omp-tools.h.
tests_integration_profile_SOURCES = tests/integration/profile.c tests/integration/lite_check.h
tests_integration_profile_CPPFLAGS = $(INTEG_CPP_FLAGS) -I$(top_srcdir)/ompt
tests_integration_profile_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_profile_LDFLAGS = $(INTEG_LINK_FLAGS) -rdynamic
tests_integration_profile_LDADD = $(INTEG_LIBS)

tests_integration_rpath_profile_SOURCES = tests/integration/profile.c \
	tests/integration/lite_check.h
tests_integration_rpath_profile_CPPFLAGS = $(INTEG_CPP_FLAGS) -I$(top_srcdir)/ompt
tests_integration_rpath_profile_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_profile_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS) -rdynamic
tests_integration_rpath_profile_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_profile_DEPENDENCIES = $(INTEG_RPATH_DEPS)

INTEG_BINARIES += tests/integration/profile tests/integration/rpath/profile
INTEG_TESTS += tests/integration/profile
EXTRA_DIST += tests/integration/profile_check.py

# ompt_tasks: what a tool sees of tasks (taskloop, task memory, taskyield), with the program's own
# OMPT tool linked in (exported with -rdynamic: the runtime finds ompt_start_tool with dlsym),
# built against the runtime's omp-tools.h.
tests_integration_ompt_tasks_SOURCES = tests/integration/ompt_tasks.c \
	tests/integration/lite_check.h
tests_integration_ompt_tasks_CPPFLAGS = $(INTEG_CPP_FLAGS) -I$(top_srcdir)/ompt
tests_integration_ompt_tasks_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_ompt_tasks_LDFLAGS = $(INTEG_LINK_FLAGS) -rdynamic
tests_integration_ompt_tasks_LDADD = $(INTEG_LIBS)

tests_integration_rpath_ompt_tasks_SOURCES = tests/integration/ompt_tasks.c \
	tests/integration/lite_check.h
tests_integration_rpath_ompt_tasks_CPPFLAGS = $(INTEG_CPP_FLAGS) -I$(top_srcdir)/ompt
tests_integration_rpath_ompt_tasks_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_ompt_tasks_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS) -rdynamic
tests_integration_rpath_ompt_tasks_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_ompt_tasks_DEPENDENCIES = $(INTEG_RPATH_DEPS)

INTEG_BINARIES += tests/integration/ompt_tasks tests/integration/rpath/ompt_tasks
INTEG_TESTS += tests/integration/ompt_tasks

# task_locks: tasks that hold a lock while the runtime could run another task on their thread
# (taskyield, the throttle), and a deep taskyield chain (issues 50, 51).
tests_integration_task_locks_SOURCES = tests/integration/task_locks.c \
	tests/integration/lite_check.h
tests_integration_task_locks_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_task_locks_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_task_locks_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_task_locks_LDADD = $(INTEG_LIBS)

tests_integration_rpath_task_locks_SOURCES = tests/integration/task_locks.c \
	tests/integration/lite_check.h
tests_integration_rpath_task_locks_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_task_locks_CFLAGS = $(INTEG_C_FLAGS)
tests_integration_rpath_task_locks_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS)
tests_integration_rpath_task_locks_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_task_locks_DEPENDENCIES = $(INTEG_RPATH_DEPS)

INTEG_BINARIES += tests/integration/task_locks tests/integration/rpath/task_locks
INTEG_TESTS += tests/integration/task_locks

# Issue 40: the profile on the shapes that showed its rough edges (t_profile_edges). -O2 for
# gcc's tail calls, which the test is about (a CFLAGS with -O0 after it leaves them out, and the
# test then checks less). Built with -rdynamic as profile above; without it, so that only the
# symbol table names the program's functions; and stripped, so that nothing does (these two on
# the routes with the system-linked binaries).
tests_integration_profile_edges_SOURCES = tests/integration/profile_edges.c \
	tests/integration/lite_check.h
tests_integration_profile_edges_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_profile_edges_CFLAGS = $(INTEG_C_FLAGS) -O2 -foptimize-sibling-calls
tests_integration_profile_edges_LDFLAGS = $(INTEG_LINK_FLAGS) -rdynamic
tests_integration_profile_edges_LDADD = $(INTEG_LIBS)

tests_integration_rpath_profile_edges_SOURCES = tests/integration/profile_edges.c \
	tests/integration/lite_check.h
tests_integration_rpath_profile_edges_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_rpath_profile_edges_CFLAGS = $(INTEG_C_FLAGS) -O2 -foptimize-sibling-calls
tests_integration_rpath_profile_edges_LDFLAGS = $(INTEG_RPATH_LINK_FLAGS) -rdynamic
tests_integration_rpath_profile_edges_LDADD = $(INTEG_LIBS)
EXTRA_tests_integration_rpath_profile_edges_DEPENDENCIES = $(INTEG_RPATH_DEPS)

tests_integration_profile_edges_nodyn_SOURCES = tests/integration/profile_edges.c \
	tests/integration/lite_check.h
tests_integration_profile_edges_nodyn_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_profile_edges_nodyn_CFLAGS = $(INTEG_C_FLAGS) -O2 -foptimize-sibling-calls
tests_integration_profile_edges_nodyn_LDFLAGS = $(INTEG_LINK_FLAGS)
tests_integration_profile_edges_nodyn_LDADD = $(INTEG_LIBS)

tests_integration_profile_edges_stripped_SOURCES = tests/integration/profile_edges.c \
	tests/integration/lite_check.h
tests_integration_profile_edges_stripped_CPPFLAGS = $(INTEG_CPP_FLAGS)
tests_integration_profile_edges_stripped_CFLAGS = $(INTEG_C_FLAGS) -O2 -foptimize-sibling-calls
tests_integration_profile_edges_stripped_LDFLAGS = $(INTEG_LINK_FLAGS) -s
tests_integration_profile_edges_stripped_LDADD = $(INTEG_LIBS)

INTEG_BINARIES += tests/integration/profile_edges tests/integration/rpath/profile_edges \
	tests/integration/profile_edges_nodyn tests/integration/profile_edges_stripped
INTEG_TESTS += tests/integration/profile_edges

# Issue 37: the profile's files (t_profile_files), on the rpath route only: its setuid case needs
# a program that finds libomp-lite without LD_PRELOAD or LD_LIBRARY_PATH, which a setuid program
# ignores, and its other cases do not depend on how the library is found.
PROFILE_FILES_TESTS = tests/integration/profile_files.rpath
check_SCRIPTS += $(PROFILE_FILES_TESTS)
TESTS += $(PROFILE_FILES_TESTS)
CLEANFILES += $(PROFILE_FILES_TESTS)

$(PROFILE_FILES_TESTS): Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/integration && b=`basename $@` && \
	{ echo '#!/bin/sh'; \
	  echo '# generated by make: integration test '"$${b%.*}"' on route '"$${b##*.}"; \
	  echo "exec bash '$(abs_top_srcdir)/tests/integration/run-routes.sh' \
	    --builddir '$(abs_top_builddir)' --srcdir '$(abs_top_srcdir)' $${b##*.} $${b%.*}"; \
	} > $@ && chmod +x $@
