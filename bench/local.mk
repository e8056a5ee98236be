# Benchmarks: EPCC-style construct overheads (syncbench), loop schedules and loop shapes
# (loopbench), explicit tasks (taskbench), a small time-stepping stencil and the reuse of static
# blocks across regions, bound and unbound (reuse), built with the stock
# gcc -fopenmp against the system libgomp, and run side by side under libgomp, LLVM libomp and
# libomp-lite by bench/run-bench (`make bench`). See docs/benchmarks.md.
#
# The programs use their own CPPFLAGS (not AM_CPPFLAGS) so that <omp.h> is always gcc's.
bench_cpp_flags = -D_GNU_SOURCE
bench_c_flags = $(AM_CFLAGS) -O2 -fopenmp
bench_ld_flags = -fopenmp

noinst_PROGRAMS += bench/syncbench bench/loopbench bench/taskbench bench/stencil bench/floor \
	bench/reuse bench/gapbench

# gapbench: parallel steps of ~50 us between serial phases of 0.05-30 ms (issue 48's wake ahead);
# bench/run-gapbench runs it under the three runtimes interleaved
bench_gapbench_SOURCES = bench/gapbench.c
bench_gapbench_CPPFLAGS = $(bench_cpp_flags)
bench_gapbench_CFLAGS = $(bench_c_flags)
bench_gapbench_LDFLAGS = $(bench_ld_flags)

bench_syncbench_SOURCES = bench/syncbench.c bench/benchutil.c bench/benchutil.h
bench_syncbench_CPPFLAGS = $(bench_cpp_flags)
bench_syncbench_CFLAGS = $(bench_c_flags)
bench_syncbench_LDFLAGS = $(bench_ld_flags)
bench_syncbench_LDADD = -ldl

bench_loopbench_SOURCES = bench/loopbench.c bench/benchutil.c bench/benchutil.h
bench_loopbench_CPPFLAGS = $(bench_cpp_flags)
bench_loopbench_CFLAGS = $(bench_c_flags)
bench_loopbench_LDFLAGS = $(bench_ld_flags)
bench_loopbench_LDADD = -ldl

bench_taskbench_SOURCES = bench/taskbench.c bench/benchutil.c bench/benchutil.h
bench_taskbench_CPPFLAGS = $(bench_cpp_flags)
bench_taskbench_CFLAGS = $(bench_c_flags)
bench_taskbench_LDFLAGS = $(bench_ld_flags)
bench_taskbench_LDADD = -ldl

bench_stencil_SOURCES = bench/stencil.c bench/benchutil.c bench/benchutil.h
bench_stencil_CPPFLAGS = $(bench_cpp_flags)
bench_stencil_CFLAGS = $(bench_c_flags)
bench_stencil_LDFLAGS = $(bench_ld_flags)
bench_stencil_LDADD = -lm -ldl

# reuse: static blocks that stay in each core's L2 across 2000 regions, with OMP_PROC_BIND=close
# OMP_PLACES=cores and unbound (the binding rows)
bench_reuse_SOURCES = bench/reuse.c bench/benchutil.c bench/benchutil.h
bench_reuse_CPPFLAGS = $(bench_cpp_flags)
bench_reuse_CFLAGS = $(bench_c_flags)
bench_reuse_LDFLAGS = $(bench_ld_flags)
bench_reuse_LDADD = -ldl

# floor: the hardware's cache-line round trip between two CPUs (pthreads, no OpenMP)
bench_floor_SOURCES = bench/floor.c bench/benchutil.c bench/benchutil.h
bench_floor_CPPFLAGS = $(bench_cpp_flags)
bench_floor_CFLAGS = $(AM_CFLAGS) -O2 -pthread
bench_floor_LDFLAGS = -pthread
bench_floor_LDADD = -ldl

EXTRA_DIST += bench/run-bench
CLEANFILES += bench-raw.txt

# `make bench` runs the whole comparison (8 to 13 minutes); `make bench-quick` a smoke test
# (about two minutes). Neither is part of `make check`. Extra driver options: BENCH_FLAGS, e.g.
#   make bench BENCH_FLAGS='--threads 2 --only parallel,barrier'
BENCH_FLAGS =
BENCH_RUN = LIBGOMP_SO='$(LIBGOMP_SO)' LLVM_LIBOMP_SO='$(LLVM_LIBOMP_SO)' \
	LITE_SO='$(abs_top_builddir)/.libs/libomp-lite.so.0' \
	bash $(top_srcdir)/bench/run-bench --bindir $(top_builddir)/bench --out bench-raw.txt
BENCH_DEPS = bench/syncbench$(EXEEXT) bench/loopbench$(EXEEXT) bench/taskbench$(EXEEXT) \
	bench/stencil$(EXEEXT) bench/floor$(EXEEXT) bench/reuse$(EXEEXT) libomp-lite.la

bench: $(BENCH_DEPS)
	$(BENCH_RUN) $(BENCH_FLAGS)

bench-quick: $(BENCH_DEPS)
	$(BENCH_RUN) --quick $(BENCH_FLAGS)

.PHONY: bench bench-quick

# `make bench-report`: the same run as `make bench` (BENCH_FLAGS as there; BENCH_FLAGS=--quick for
# a smoke test), then bench/report.py writes the results section of docs/benchmarks.md and its
# charts (docs/bench/*.svg, python3-matplotlib) from bench-raw.txt. BENCH_RAW=FILE redraws them
# from the raw file of an earlier run, without running anything. The report is written even
# when some runs failed (their cells read n/a, the failures are listed); make then fails.
BENCH_RAW =
BENCH_REPORT_FLAGS =
PYTHON3 = python3
BENCH_REPORT = $(PYTHON3) $(srcdir)/bench/report.py --doc $(srcdir)/docs/benchmarks.md \
	--charts $(srcdir)/docs/bench $(BENCH_REPORT_FLAGS)
bench-report:
	@if test -n '$(BENCH_RAW)'; then \
	  echo "$(BENCH_REPORT) --raw '$(BENCH_RAW)'"; $(BENCH_REPORT) --raw '$(BENCH_RAW)'; \
	else \
	  $(MAKE) $(AM_MAKEFLAGS) bench-report-run; \
	fi
bench-report-run: $(BENCH_DEPS) bench/heapchurn$(EXEEXT)
	$(BENCH_RUN) $(BENCH_FLAGS); rc=$$?; \
	$(BENCH_REPORT) --raw bench-raw.txt || exit $$?; exit $$rc
.PHONY: bench-report bench-report-run
EXTRA_DIST += bench/report.py

# `make bench-lines`: the remote cache lines one member touches per barrier, flat and tree, for
# teams of 2 to 256, from a --enable-line-count build of its own (bench/lines; issue 41).
bench-lines:
	bash $(top_srcdir)/bench/lines --builddir $(abs_top_builddir) --srcdir $(abs_top_srcdir)
.PHONY: bench-lines
EXTRA_DIST += bench/lines bench/many-cores

# heapchurn: a hydro proxy whose temporaries are malloc'd and freed every time step, first
# touched inside 31 short parallel loops: whether glibc's heap keeps the freed memory or trims
# it back to the kernel at every step (issue 25)
noinst_PROGRAMS += bench/heapchurn
bench_heapchurn_SOURCES = bench/heapchurn.c bench/benchutil.c bench/benchutil.h
bench_heapchurn_CPPFLAGS = $(bench_cpp_flags)
bench_heapchurn_CFLAGS = $(bench_c_flags)
bench_heapchurn_LDFLAGS = $(bench_ld_flags)
bench_heapchurn_LDADD = -lm -ldl
bench bench-quick: bench/heapchurn$(EXEEXT)

# `make bench-apps`: packaged third-party OpenMP programs (numpy on OpenBLAS, ImageMagick, GROMACS,
# LAMMPS) run unchanged under the three runtimes by bench/apps/run; docs/history/benchmarks-2026.md,
# "Real programs". Not part of make check. Extra options: BENCH_APPS_FLAGS, e.g.
#   make bench-apps BENCH_APPS_FLAGS='--threads 2 --only numpy,convert'
BENCH_APPS_FLAGS =
bench-apps: libomp-lite.la
	LLVM_LIBOMP_SO='$(LLVM_LIBOMP_SO)' LITE_SO='$(abs_top_builddir)/.libs/libomp-lite.so.0' \
	bash $(top_srcdir)/bench/apps/run --out bench-apps-raw.txt $(BENCH_APPS_FLAGS)
.PHONY: bench-apps
EXTRA_DIST += bench/apps/run bench/apps/numpy_parts.py
CLEANFILES += bench-apps-raw.txt

# `make bench-clang`: the same benchmark sources built by clang 14 -fopenmp (LLVM's ABI, served
# by kmpc/), run on LLVM's libomp, their own runtime and its best case, and on libomp-lite;
# raw samples in bench-clang-raw.txt. BENCH_FLAGS as for `make bench`.
CLANG_BENCH_SOURCES_LIST = syncbench loopbench taskbench stencil reuse floor
bench-clang: libomp-lite.la
	$(MKDIR_P) bench/clang
	for p in $(CLANG_BENCH_SOURCES_LIST); do \
	  clang-14 -fopenmp -O2 -D_GNU_SOURCE -I$(srcdir)/bench $(srcdir)/bench/$$p.c \
	    $(srcdir)/bench/benchutil.c -o bench/clang/$$p -lm -ldl || exit 1; \
	done
	LLVM_LIBOMP_SO='$(LLVM_LIBOMP_SO)' LITE_SO='$(abs_top_builddir)/.libs/libomp-lite.so.0' \
	  bash $(top_srcdir)/bench/run-bench --bindir bench/clang --runtimes llvm,lite \
	  --out bench-clang-raw.txt $(BENCH_FLAGS)
.PHONY: bench-clang
CLEANFILES += bench-clang-raw.txt
clean-local: clean-bench-clang
clean-bench-clang:
	rm -rf bench/clang
.PHONY: clean-bench-clang

# make check: bench/report.py on a small checked-in raw file (tests/bench/report-sample.sh):
# the section between the page's markers and every chart, written without error; skipped
# without matplotlib. Nothing is measured.
BENCH_REPORT_TESTS = tests/bench/report-sample
check_SCRIPTS += $(BENCH_REPORT_TESTS)
TESTS += $(BENCH_REPORT_TESTS)
CLEANFILES += $(BENCH_REPORT_TESTS)
EXTRA_DIST += tests/bench/report-sample.sh tests/bench/sample-raw.txt
$(BENCH_REPORT_TESTS): Makefile
	$(AM_V_GEN)$(MKDIR_P) tests/bench && \
	{ echo '#!/bin/sh'; \
	  echo '# generated by make: the report generator on a sample raw file'; \
	  echo "exec bash '$(abs_top_srcdir)/tests/bench/report-sample.sh' \
	    --srcdir '$(abs_top_srcdir)' --builddir '$(abs_top_builddir)'"; \
	} > $@ && chmod +x $@
