# Worksharing tests: OpenMP programs built by the stock gcc and gfortran -fopenmp (their own omp.h
# and omp_lib, not ours) that check every worksharing entry point of libomp-lite: each loop
# schedule, ordered, sections, doacross, cancellation, the OpenMP 5.0 loop forms with scratch
# memory (lastprivate(conditional:), inscan reductions), combined parallel loops, and the stealing
# statistics. Each program proves it runs on libomp-lite (tests/integration/lite_check.h) and
# checks its own results; tests/worksharing/run-ws.sh holds the cases (team sizes 1, 2, 3, 4, 16
# and environments) and runs them with a timeout through the three routes users take, as the
# integration tests do: LD_PRELOAD, the drop-in libgomp.so.1 through LD_LIBRARY_PATH (the same
# binaries, linked against the system libgomp), and copies linked at build time against
# build/omp-lite with an rpath. make check runs one automake test per (group, route), through
# generated stubs tests/worksharing/GROUP.ROUTE.
# By hand, for comparison on stock libgomp:  make check-worksharing-stock

# Flags of a user's build: only -D_GNU_SOURCE (replacing AM_CPPFLAGS, so that the compiler's own
# omp.h is used), warnings, -fopenmp.
WS_CPP_FLAGS = -D_GNU_SOURCE
WS_C_FLAGS = $(LITE_WARN_CFLAGS) -fopenmp -pthread
WS_FC_FLAGS = -Wall -fopenmp
WS_LIBS = -ldl
# Routes preload and ldpath: linked as usual, against the system libgomp.
WS_LINK_FLAGS = -fopenmp -pthread
# Route rpath: gcc -fopenmp's own -lgomp finds build/omp-lite/libgomp.so first.
WS_RPATH_LINK_FLAGS = -fopenmp -pthread -L$(abs_top_builddir)/omp-lite \
	-Wl,-rpath,$(abs_top_builddir)/omp-lite
WS_RPATH_DEPS = omp-lite/libgomp.so.1
WS_HDRS = tests/worksharing/ws_test.h tests/integration/lite_check.h

tests_worksharing_ws_schedules_SOURCES = tests/worksharing/ws_schedules.c $(WS_HDRS)
tests_worksharing_ws_schedules_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_ws_schedules_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_ws_schedules_LDFLAGS = $(WS_LINK_FLAGS)
tests_worksharing_ws_schedules_LDADD = $(WS_LIBS)

tests_worksharing_rpath_ws_schedules_SOURCES = tests/worksharing/ws_schedules.c $(WS_HDRS)
tests_worksharing_rpath_ws_schedules_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_rpath_ws_schedules_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_rpath_ws_schedules_LDFLAGS = $(WS_RPATH_LINK_FLAGS)
tests_worksharing_rpath_ws_schedules_LDADD = $(WS_LIBS)
EXTRA_tests_worksharing_rpath_ws_schedules_DEPENDENCIES = $(WS_RPATH_DEPS)

tests_worksharing_ws_runtime_SOURCES = tests/worksharing/ws_runtime.c $(WS_HDRS)
tests_worksharing_ws_runtime_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_ws_runtime_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_ws_runtime_LDFLAGS = $(WS_LINK_FLAGS)
tests_worksharing_ws_runtime_LDADD = $(WS_LIBS)

tests_worksharing_rpath_ws_runtime_SOURCES = tests/worksharing/ws_runtime.c $(WS_HDRS)
tests_worksharing_rpath_ws_runtime_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_rpath_ws_runtime_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_rpath_ws_runtime_LDFLAGS = $(WS_RPATH_LINK_FLAGS)
tests_worksharing_rpath_ws_runtime_LDADD = $(WS_LIBS)
EXTRA_tests_worksharing_rpath_ws_runtime_DEPENDENCIES = $(WS_RPATH_DEPS)

tests_worksharing_ws_bounds_SOURCES = tests/worksharing/ws_bounds.c $(WS_HDRS)
tests_worksharing_ws_bounds_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_ws_bounds_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_ws_bounds_LDFLAGS = $(WS_LINK_FLAGS)
tests_worksharing_ws_bounds_LDADD = $(WS_LIBS)

tests_worksharing_rpath_ws_bounds_SOURCES = tests/worksharing/ws_bounds.c $(WS_HDRS)
tests_worksharing_rpath_ws_bounds_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_rpath_ws_bounds_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_rpath_ws_bounds_LDFLAGS = $(WS_RPATH_LINK_FLAGS)
tests_worksharing_rpath_ws_bounds_LDADD = $(WS_LIBS)
EXTRA_tests_worksharing_rpath_ws_bounds_DEPENDENCIES = $(WS_RPATH_DEPS)

tests_worksharing_ws_combined_SOURCES = tests/worksharing/ws_combined.c $(WS_HDRS)
tests_worksharing_ws_combined_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_ws_combined_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_ws_combined_LDFLAGS = $(WS_LINK_FLAGS)
tests_worksharing_ws_combined_LDADD = $(WS_LIBS)

tests_worksharing_rpath_ws_combined_SOURCES = tests/worksharing/ws_combined.c $(WS_HDRS)
tests_worksharing_rpath_ws_combined_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_rpath_ws_combined_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_rpath_ws_combined_LDFLAGS = $(WS_RPATH_LINK_FLAGS)
tests_worksharing_rpath_ws_combined_LDADD = $(WS_LIBS)
EXTRA_tests_worksharing_rpath_ws_combined_DEPENDENCIES = $(WS_RPATH_DEPS)

tests_worksharing_ws_ordered_SOURCES = tests/worksharing/ws_ordered.c $(WS_HDRS)
tests_worksharing_ws_ordered_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_ws_ordered_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_ws_ordered_LDFLAGS = $(WS_LINK_FLAGS)
tests_worksharing_ws_ordered_LDADD = $(WS_LIBS)

tests_worksharing_rpath_ws_ordered_SOURCES = tests/worksharing/ws_ordered.c $(WS_HDRS)
tests_worksharing_rpath_ws_ordered_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_rpath_ws_ordered_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_rpath_ws_ordered_LDFLAGS = $(WS_RPATH_LINK_FLAGS)
tests_worksharing_rpath_ws_ordered_LDADD = $(WS_LIBS)
EXTRA_tests_worksharing_rpath_ws_ordered_DEPENDENCIES = $(WS_RPATH_DEPS)

tests_worksharing_ws_sections_SOURCES = tests/worksharing/ws_sections.c $(WS_HDRS)
tests_worksharing_ws_sections_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_ws_sections_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_ws_sections_LDFLAGS = $(WS_LINK_FLAGS)
tests_worksharing_ws_sections_LDADD = $(WS_LIBS)

tests_worksharing_rpath_ws_sections_SOURCES = tests/worksharing/ws_sections.c $(WS_HDRS)
tests_worksharing_rpath_ws_sections_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_rpath_ws_sections_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_rpath_ws_sections_LDFLAGS = $(WS_RPATH_LINK_FLAGS)
tests_worksharing_rpath_ws_sections_LDADD = $(WS_LIBS)
EXTRA_tests_worksharing_rpath_ws_sections_DEPENDENCIES = $(WS_RPATH_DEPS)

tests_worksharing_ws_doacross_SOURCES = tests/worksharing/ws_doacross.c $(WS_HDRS)
tests_worksharing_ws_doacross_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_ws_doacross_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_ws_doacross_LDFLAGS = $(WS_LINK_FLAGS)
tests_worksharing_ws_doacross_LDADD = $(WS_LIBS)

tests_worksharing_rpath_ws_doacross_SOURCES = tests/worksharing/ws_doacross.c $(WS_HDRS)
tests_worksharing_rpath_ws_doacross_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_rpath_ws_doacross_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_rpath_ws_doacross_LDFLAGS = $(WS_RPATH_LINK_FLAGS)
tests_worksharing_rpath_ws_doacross_LDADD = $(WS_LIBS)
EXTRA_tests_worksharing_rpath_ws_doacross_DEPENDENCIES = $(WS_RPATH_DEPS)

tests_worksharing_ws_cancel_SOURCES = tests/worksharing/ws_cancel.c $(WS_HDRS)
tests_worksharing_ws_cancel_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_ws_cancel_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_ws_cancel_LDFLAGS = $(WS_LINK_FLAGS)
tests_worksharing_ws_cancel_LDADD = $(WS_LIBS)

tests_worksharing_rpath_ws_cancel_SOURCES = tests/worksharing/ws_cancel.c $(WS_HDRS)
tests_worksharing_rpath_ws_cancel_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_rpath_ws_cancel_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_rpath_ws_cancel_LDFLAGS = $(WS_RPATH_LINK_FLAGS)
tests_worksharing_rpath_ws_cancel_LDADD = $(WS_LIBS)
EXTRA_tests_worksharing_rpath_ws_cancel_DEPENDENCIES = $(WS_RPATH_DEPS)

tests_worksharing_ws_mem_SOURCES = tests/worksharing/ws_mem.c $(WS_HDRS)
tests_worksharing_ws_mem_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_ws_mem_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_ws_mem_LDFLAGS = $(WS_LINK_FLAGS)
tests_worksharing_ws_mem_LDADD = $(WS_LIBS)

tests_worksharing_rpath_ws_mem_SOURCES = tests/worksharing/ws_mem.c $(WS_HDRS)
tests_worksharing_rpath_ws_mem_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_rpath_ws_mem_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_rpath_ws_mem_LDFLAGS = $(WS_RPATH_LINK_FLAGS)
tests_worksharing_rpath_ws_mem_LDADD = $(WS_LIBS)
EXTRA_tests_worksharing_rpath_ws_mem_DEPENDENCIES = $(WS_RPATH_DEPS)

tests_worksharing_ws_steal_SOURCES = tests/worksharing/ws_steal.c $(WS_HDRS)
tests_worksharing_ws_steal_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_ws_steal_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_ws_steal_LDFLAGS = $(WS_LINK_FLAGS)
tests_worksharing_ws_steal_LDADD = $(WS_LIBS)

tests_worksharing_rpath_ws_steal_SOURCES = tests/worksharing/ws_steal.c $(WS_HDRS)
tests_worksharing_rpath_ws_steal_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_rpath_ws_steal_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_rpath_ws_steal_LDFLAGS = $(WS_RPATH_LINK_FLAGS)
tests_worksharing_rpath_ws_steal_LDADD = $(WS_LIBS)
EXTRA_tests_worksharing_rpath_ws_steal_DEPENDENCIES = $(WS_RPATH_DEPS)

tests_worksharing_ws_fortran_SOURCES = tests/worksharing/ws_fortran.f90 tests/worksharing/ws_check_f.c $(WS_HDRS)
tests_worksharing_ws_fortran_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_ws_fortran_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_ws_fortran_FCFLAGS = $(WS_FC_FLAGS)
tests_worksharing_ws_fortran_LDFLAGS = $(WS_LINK_FLAGS)
tests_worksharing_ws_fortran_LDADD = $(WS_LIBS)

tests_worksharing_rpath_ws_fortran_SOURCES = tests/worksharing/ws_fortran.f90 tests/worksharing/ws_check_f.c $(WS_HDRS)
tests_worksharing_rpath_ws_fortran_CPPFLAGS = $(WS_CPP_FLAGS)
tests_worksharing_rpath_ws_fortran_CFLAGS = $(WS_C_FLAGS)
tests_worksharing_rpath_ws_fortran_FCFLAGS = $(WS_FC_FLAGS)
tests_worksharing_rpath_ws_fortran_LDFLAGS = $(WS_RPATH_LINK_FLAGS)
tests_worksharing_rpath_ws_fortran_LDADD = $(WS_LIBS)
EXTRA_tests_worksharing_rpath_ws_fortran_DEPENDENCIES = $(WS_RPATH_DEPS)

WS_BINARIES = tests/worksharing/ws_schedules tests/worksharing/rpath/ws_schedules \
	tests/worksharing/ws_runtime tests/worksharing/rpath/ws_runtime tests/worksharing/ws_bounds \
	tests/worksharing/rpath/ws_bounds tests/worksharing/ws_combined \
	tests/worksharing/rpath/ws_combined tests/worksharing/ws_ordered \
	tests/worksharing/rpath/ws_ordered tests/worksharing/ws_sections \
	tests/worksharing/rpath/ws_sections tests/worksharing/ws_doacross \
	tests/worksharing/rpath/ws_doacross tests/worksharing/ws_cancel tests/worksharing/rpath/ws_cancel \
	tests/worksharing/ws_mem tests/worksharing/rpath/ws_mem tests/worksharing/ws_steal \
	tests/worksharing/rpath/ws_steal tests/worksharing/ws_fortran tests/worksharing/rpath/ws_fortran
check_PROGRAMS += $(WS_BINARIES)

# One automake test per (group, route): the stubs exec run-ws.sh ROUTE GROUP. The groups are
# run-ws.sh's (run-ws.sh --list).
WS_TESTS = tests/worksharing/schedules tests/worksharing/runtime tests/worksharing/bounds \
	tests/worksharing/combined tests/worksharing/ordered tests/worksharing/sections \
	tests/worksharing/doacross tests/worksharing/cancel tests/worksharing/mem tests/worksharing/steal \
	tests/worksharing/steal_stats tests/worksharing/fortran
WS_ROUTE_TESTS = $(WS_TESTS:=.preload) $(WS_TESTS:=.ldpath) $(WS_TESTS:=.rpath)
check_SCRIPTS += $(WS_ROUTE_TESTS)
TESTS += $(WS_ROUTE_TESTS)
CLEANFILES += $(WS_ROUTE_TESTS)
EXTRA_DIST += tests/worksharing/run-ws.sh

$(WS_ROUTE_TESTS): Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/worksharing && b=`basename $@` && \
	{ echo '#!/bin/sh'; \
	  echo '# generated by make: worksharing test group '"$${b%.*}"' on route '"$${b##*.}"; \
	  echo "exec bash '$(abs_top_srcdir)/tests/worksharing/run-ws.sh' \
	    --builddir '$(abs_top_builddir)' --srcdir '$(abs_top_srcdir)' $${b##*.} $${b%.*}"; \
	} > $@ && chmod +x $@

# The same programs on stock libgomp (proof check off), for comparison while developing.
check-worksharing-stock: $(WS_BINARIES)
	bash $(srcdir)/tests/worksharing/run-ws.sh --builddir $(abs_top_builddir) \
	  --srcdir $(abs_top_srcdir) stock
.PHONY: check-worksharing-stock
